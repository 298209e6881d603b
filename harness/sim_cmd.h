/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulated machine on the command line:
 *   rwlab sim list              the machines: CPUs, topology, sources
 *   rwlab sim show MACHINE      every parameter with its citation
 *   rwlab sim validate [M...]   the validation ladder (validate.h)
 *   rwlab run --sim MACHINE ... and rwlab torture --sim MACHINE [--seeds N] ...
 *                               run build/rwlab-sim (beside this binary)
 * Machine files: NAME.machine in $RWLAB_SIM_MACHINES, else in the installed
 * share/rwlab/machines beside the binary's prefix, else in the source tree's
 * sim/machines.
 *
 * The path of --sim, one hop each:
 *   1. main.c dispatches to run or torture, whose getopt table has --sim:
 *      the command line is parsed once, there (nothing scans argv before);
 *      each option's place in argv is known (lab_cli_span()), so the
 *      simulator's own options can be taken out of the command line.
 *   2. lab_sim_exec() loads and checks the machine (a bad name or file: one
 *      line, exit 2, nothing executed), turns address-space randomisation
 *      off (the reason is in sim_cmd.c) and execs build/rwlab-sim with the
 *      protocol below.
 *   3. rwlab-sim (sim_main.c) reads the protocol, loads the machine, boots
 *      the engine and runs rwlab's main() as simulated task 0 on
 *      "rwlab CMD ARG...", which parses CMD's options with the same table.
 *
 * The protocol, rwlab-sim's whole argv, every position fixed:
 *   rwlab-sim --machine NAME --seed S --seeds N -- CMD [ARG...]
 * NAME   the machine, as lab_sim_machine_load() takes it (checked by the front);
 * S      the engine's seed: run's --seed (also its workloads' seed, left in
 *        the ARGs), torture's --seed (1 when not given);
 * N      schedules: always 1 (one rwlab-sim runs one schedule; torture
 *        --seeds N starts one rwlab-sim per seed, lab_sim_seeds());
 * CMD    run or torture;
 * ARG... CMD's arguments as given, less --sim and, for torture, --seed,
 *        --seeds and -j (rwlab-sim appends --seed S, so that torture's
 *        threads and killer follow the engine's seed).
 * rwlab-sim expects to start without address randomisation (step 2).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "compiler.h"
#include "machine.h"

/* What run or torture parsed for --sim: the protocol's fields (above). */
struct lab_sim_plan {
	const char *machine;		/* NAME */
	unsigned long long seed;	/* S */
	unsigned long long seeds;	/* N */
	const char *cmd;		/* "run" or "torture" */
	const char *prog;		/* what its error lines begin with: "rwlab" (run), "rwlab torture" */
	int argc;			/* the ARGs */
	char **argv;
};

/*
 * lab_sim_plan_args() - @p's ARGs: @argv[1..@argc-1] but the elements
 * marked in @drop (@argc entries: the simulator's options, lab_cli_span()).
 * Returns 0, or 2 after one line when out of memory.
 */
int lab_sim_plan_args(struct lab_sim_plan *p, int argc, char **argv, const bool *drop);

/*
 * lab_sim_prepare() - before rwlab-sim is started: check @machine (loaded
 * once), put the path of build/rwlab-sim (beside this binary) in @exe
 * (@len bytes) and turn address-space randomisation off for this process
 * and the ones it starts (the reason is in sim_cmd.c). Returns 0, or 2
 * after one line on stderr that begins with @prog (the machine refused, no
 * rwlab-sim, the simulated build). Native build only.
 */
int lab_sim_prepare(const char *prog, const char *machine, char *exe, size_t len);

/*
 * lab_sim_protocol() - rwlab-sim's argv for @p with the seed @seed and @seeds
 * schedules, @exe its path: into @av (room for @max pointers, the last
 * NULL), the numbers into @num. Returns the count, or -1 if @max is too few
 * (@p->argc + 10 are enough). Points into @p, @exe and @num.
 */
int lab_sim_protocol(const struct lab_sim_plan *p, const char *exe, unsigned long long seed,
		     unsigned long long seeds, char num[2][24], char **av, int max);

/*
 * lab_sim_exec() - lab_sim_prepare(), then exec build/rwlab-sim with the
 * protocol. Returns 2 after one line on stderr when the machine is refused
 * or rwlab-sim cannot be started; else never returns. Native build only
 * (the simulated build refuses: 2).
 */
int lab_sim_exec(const struct lab_sim_plan *p);

/*
 * lab_sim_seeds() - `torture --sim MACHINE --seeds N -j J`: seeds @p->seed ..
 * @p->seed + @p->seeds - 1, each in a fresh rwlab-sim of its own (the
 * protocol with that seed and N = 1: the very process a replay starts), @jobs
 * (>= 1) at once (sim_cell.h), its standard output and error kept. Seeds are
 * reported in seed order, so what it prints and its exit status do not
 * depend on @jobs: a failing seed's header line names the seed, the exit
 * status and the variants that failed, then its whole output and the command
 * that replays it; with @events, each passing seed's 'paths:' lines
 * (torture --events), prefixed with its seed. At the end one line counts the
 * seeds done of all, SUCCESS and FAILURE, and on stderr the first failure
 * with its replay. On a terminal, a progress line on stderr. SIGINT/SIGTERM:
 * the seeds in flight are stopped and not counted. Returns 0 (every seed
 * passed), 1 (a seed failed or could not start), 130 (interrupted, none
 * failed) or 2 (said: refused before any seed ran). Native build only.
 */
int lab_sim_seeds(const struct lab_sim_plan *p, int jobs, bool events);

/*
 * Is @name a machine file's name (NAME.machine, NAME not empty)? Its length
 * less ".machine", or 0.
 */
size_t lab_sim_machine_file(const char *name);
/*
 * The NAME.machine files of lab_sim_machine_dir(), NAMEs sorted, in @names
 * (each strdup'd: the caller frees them), at most @cap. Returns how many, or
 * -1 with errno (the directory cannot be read).
 */
int lab_sim_machine_files(char **names, int cap);
/* The machine files' names, space-separated ("generic-" for generic-N): the completion's words. */
void lab_sim_machine_names(char *buf, size_t len);

/* Where machine files are looked for: $RWLAB_SIM_MACHINES, the installed share/rwlab/machines, sim/machines. */
const char *lab_sim_machine_dir(void);

/*
 * 0 if lab_sim_machine_dir() holds a NAME.machine file; else -1 and @err: one
 * line naming that directory, what is wrong with it (missing, unreadable,
 * empty) and what to do.
 */
int lab_sim_machine_dir_check(char *err, size_t errlen);

/*
 * The machine directory, then sim_machine_load(); a NAME or generic-N that
 * fails in a directory with no machine file gets lab_sim_machine_dir_check()'s line.
 */
int lab_sim_machine_load(struct sim_machine *m, const char *name, char *err, size_t errlen);
/*
 * The last machine lab_sim_machine_load() loaded as 16 hex digits: FNV-1a 64
 * of its file's bytes and its name (generic-N: generic.machine and the
 * name); "" before any. Part of the simulated rows' kernel column, with the
 * engine's hash (tools/sim-version), so that a result names what made it.
 */
const char *lab_sim_machine_hash(void);
/*
 * The last machine lab_sim_machine_load() loaded as it was given (a NAME,
 * generic-N or a path): what a cell's own rwlab-sim is started with, so that
 * a machine given as a path is the file each cell runs; "" before any.
 */
const char *lab_sim_machine_arg(void);

#if LAB_SIM
/* rwlab's main() as compiled into build/rwlab-sim (-Dmain=rwlab_main); sim_main.c calls it. */
int rwlab_main(int argc, char **argv);
#endif
