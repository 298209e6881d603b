/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulated machine on the command line:
 *   rwlab sim list              the machines: CPUs, topology, sources
 *   rwlab sim show MACHINE      every parameter with its citation
 *   rwlab sim validate [M...]   the validation ladder (validate.h)
 *   rwlab run --sim MACHINE ... and rwlab torture --sim MACHINE [--seeds N] ...
 *                               re-exec build/rwlab-sim (beside this binary)
 *                               with the same arguments
 * Machine files: NAME.machine in $RWLAB_SIM_MACHINES, else in the installed
 * share/rwlab/machines beside the binary's prefix, else in the source tree's
 * sim/machines.
 */
#pragma once

#include <stddef.h>

#include "compiler.h"
#include "machine.h"

/*
 * `rwlab sim list|show` is lab_sim_cmd (cmds.h). `--sim` is an
 * option of run and torture: their handlers call lab_sim_reexec() once the
 * options are read, which re-executes build/rwlab-sim (beside this binary)
 * with the command line main() saved with lab_sim_save_argv(). Natively only.
 */
void lab_sim_save_argv(int argc, char **argv);

/* execv() rwlab-sim with the saved command line; returns 2 (message printed) only when that fails. */
int lab_sim_reexec(void);

/* `rwlab CMD ... --sim` for a CMD other than run and torture: 2 after one line; -1 otherwise. */
int lab_sim_misplaced(int argc, char **argv);

/* The machine files' names, space-separated ("generic-" for generic-N): the completion's words. */
void lab_sim_machine_names(char *buf, size_t len);

/* Where machine files are looked for: $RWLAB_SIM_MACHINES, the installed share/rwlab/machines, sim/machines. */
const char *lab_sim_machine_dir(void);

/* The machine directory, then sim_machine_load(). */
int lab_sim_machine_load(struct sim_machine *m, const char *name, char *err, size_t errlen);

/* A command line the simulated build refuses (torture -m), with one line in @err. */
int lab_sim_args_refused(int argc, char **argv, char *err, size_t errlen);

#if LAB_SIM
/* rwlab's main() as compiled into build/rwlab-sim (-Dmain=rwlab_main); sim_main.c calls it. */
int rwlab_main(int argc, char **argv);
#endif
