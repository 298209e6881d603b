/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main() of build/rwlab-sim, the simulated build, started only by the front
 * (`rwlab run --sim MACHINE`, `rwlab torture --sim MACHINE`), which has
 * parsed the command line, checked the machine and turned address-space
 * randomisation off: its argv is the protocol of sim_cmd.h,
 *   rwlab-sim --machine NAME --seed S --seeds N -- CMD [ARG...]
 * It boots the engine on the machine with seed S and runs rwlab's own main()
 * (harness/main.c, compiled here as rwlab_main) on "rwlab CMD ARG..." as
 * simulated task 0, so the runner, the workloads and the locks run unchanged
 * on simulated CPUs.
 *
 * N is 1: one rwlab-sim runs one schedule. torture --seeds N starts one
 * rwlab-sim per seed (harness/sim_seeds.c), each the very process a replay
 * of that seed starts.
 *
 * Its error lines: once the protocol names the command, they begin with the
 * front's, "rwlab run:" or "rwlab torture:" (lab_prog_set(), err.h), as do
 * the libraries' beneath it; a command line that is not the protocol (no
 * front started it) is refused with "rwlab-sim:", the name the engine's own
 * diagnostics and statistics lines (sim/) carry.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "sim.h"
#include "sim_cell.h"
#include "sim_cmd.h"

/* The protocol's fields (sim_cmd.h). */
struct sim_args {
	const char *machine;
	unsigned long long seed, seeds;
	int argc;
	char **argv;		/* "rwlab-sim", CMD, the ARGs: for rwlab_main */
};

/*
 * jemalloc's options for the simulated build (read by jemalloc at its first
 * allocation; unused with another allocator): never purge dirty or muzzy
 * pages on a wall-clock decay. The engine keys its cache lines by address,
 * so which freed extent a later allocation reuses decides whether its lines
 * are already cached; with time-based decay that choice followed the host's
 * timing, and one seed gave two CSVs (reaim new_dbase).
 */
const char *malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";

static unsigned long long parse_ull(const char *opt, const char *v, unsigned long long min, unsigned long long max)
{
	char *e;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &e, 10);
	if (!*v || *e || *v == '-' || errno || x < min || x > max) {	/* ERANGE: past 2^64 - 1 */
		fprintf(stderr, "rwlab-sim: bad value '%s' for %s (an integer in %llu..%llu)\n", v, opt, min, max);
		exit(2);
	}
	return x;
}

/*
 * The protocol, every position fixed (sim_cmd.h). Returns 0, or 2 after one
 * line: rwlab-sim was not started by the front.
 */
static int protocol_read(int argc, char **argv, struct sim_args *a)
{
	static const char *const keys[] = { "--machine", "--seed", "--seeds", "--" };

	for (int i = 0; i < 4; i++)
		if (argc < 2 * i + 2 || strcmp(argv[2 * i + 1], keys[i]) || (i < 3 && argc < 2 * i + 3)) {
			fprintf(stderr, "rwlab-sim: started by `rwlab run --sim MACHINE` and `rwlab torture --sim "
					"MACHINE` only (its arguments: --machine NAME --seed S --seeds N -- run|torture "
					"ARG...)\n");
			return 2;
		}
	if (argc < 9 || (strcmp(argv[8], "run") && strcmp(argv[8], "torture"))) {
		fprintf(stderr, "rwlab-sim: the simulated commands are run and torture\n");
		return 2;
	}
	a->machine = argv[2];
	a->seed = parse_ull("--seed", argv[4], 0, ULLONG_MAX);
	a->seeds = parse_ull("--seeds", argv[6], 1, 1);	/* one schedule (torture's seeds: one process each) */
	/* torture: the seed becomes torture's --seed, at most LONG_MAX */
	if (strcmp(argv[8], "run") && a->seed > LONG_MAX) {
		fprintf(stderr, "rwlab-sim: --seed %llu: torture's seeds end at %ld\n", a->seed, LONG_MAX);
		return 2;
	}
	/* rwlab_main's argv: argv[0], then CMD and its ARGs (argv[8..]). */
	a->argv = argv + 7;
	a->argv[0] = argv[0];
	a->argc = argc - 7;
	return 0;
}

/* Run rwlab_main once on a fresh engine with @seed; returns its status. */
static int run_once(const struct sim_machine *m, const struct sim_args *a, unsigned long long seed)
{
	char **av = calloc((size_t)a->argc + 3, sizeof(char *)), seedarg[32];
	int r, ac = a->argc;

	memcpy(av, a->argv, (size_t)a->argc * sizeof(char *));
	if (!strcmp(a->argv[1], "torture")) {
		/* torture's own --seed (its threads' and the killer's choices) follows the engine's. */
		snprintf(seedarg, sizeof(seedarg), "%llu", seed);
		av[ac++] = "--seed";
		av[ac++] = seedarg;
	}
	optind = 0;	/* rwlab_main's getopt starts afresh */
	if (sim_boot(m, seed)) {
		lab_err("out of memory booting %s", m->name);
		exit(1);
	}
	r = sim_run(rwlab_main, ac, av);
	fflush(NULL);
	/*
	 * --list-cells, --help, a run's process that only started its cells' own: no time passed, nothing to
	 * say; a cell of a quiet run (-q) says nothing either
	 */
	if (r == 0 && sim_elapsed_ns() && !lab_sim_cell_quiet())
		fprintf(stderr, "rwlab-sim: %s seed %llu: %.3f s simulated in %.2f s of host time\n", m->name, seed,
			(double)sim_elapsed_ns() / 1e9, sim_host_seconds());
	sim_shutdown();
	free(av);
	return r;
}

int main(int argc, char **argv)
{
	static struct sim_machine m;
	struct sim_args a = { 0 };
	char err[1024];

	lab_sim_cell_watch_parent();
	if (protocol_read(argc, argv, &a))
		return 2;
	lab_prog_set(strcmp(a.argv[1], "run") ? "rwlab torture" : "rwlab run");	/* the front's command */
	if (lab_sim_machine_load(&m, a.machine, err, sizeof(err))) {
		lab_err("%s", err);
		return 2;
	}
	return run_once(&m, &a, a.seed);
}
