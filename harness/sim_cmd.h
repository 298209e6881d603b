/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulated machine on the command line (issue 10):
 *   rwlab sim list              the machines: CPUs, topology, sources
 *   rwlab sim show MACHINE      every parameter with its citation
 *   rwlab run --sim MACHINE ... and rwlab torture --sim MACHINE [--seeds N] ...
 *                               re-exec build/rwlab-sim (beside this binary)
 *                               with the same arguments
 * Machine files: sim/machines/NAME.machine under the source tree, or the
 * directory in $RWLAB_SIM_MACHINES.
 */
#pragma once

#include <stddef.h>

#include "compiler.h"
#include "machine.h"

/*
 * lab_sim_cmd() - handle `sim ...` and `--sim` in rwlab's main(). Returns
 * the exit status when it handled the command line, -1 when it is not a
 * simulation command (and always -1 in the simulated build itself).
 */
int lab_sim_cmd(int argc, char **argv);

/* The machine directory, then sim_machine_load(). */
int lab_sim_machine_load(struct sim_machine *m, const char *name, char *err, size_t errlen);

/* A command line the simulated build refuses (torture -m), with one line in @err. */
int lab_sim_args_refused(int argc, char **argv, char *err, size_t errlen);

#if LAB_SIM
/* rwlab's main() as compiled into build/rwlab-sim (-Dmain=rwlab_main); sim_main.c calls it. */
int rwlab_main(int argc, char **argv);
#endif
