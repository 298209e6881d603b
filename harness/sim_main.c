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
 * torture with N > 1 runs the torture under N schedules (engine seeds S ..
 * S+N-1); each seed's output is kept only when it fails, and every failing
 * seed is printed with the command that replays it exactly.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
	/* run: one schedule; torture: each seed S..S+N-1 becomes torture's --seed, at most LONG_MAX */
	a->seeds = parse_ull("--seeds", argv[6], 1, strcmp(argv[8], "run") ? ULLONG_MAX : 1);
	if (strcmp(argv[8], "run") && (a->seed > LONG_MAX || a->seeds - 1 > LONG_MAX - a->seed)) {
		fprintf(stderr, "rwlab-sim: --seed %llu --seeds %llu: torture's seeds end at %ld\n", a->seed, a->seeds,
			LONG_MAX);
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
		fprintf(stderr, "rwlab-sim: out of memory booting %s\n", m->name);
		exit(1);
	}
	r = sim_run(rwlab_main, ac, av);
	fflush(NULL);
	/* --list-cells, --help, a run's process that only started its cells' own: no time passed, nothing to say */
	if (a->seeds == 1 && r == 0 && sim_elapsed_ns())
		fprintf(stderr, "rwlab-sim: %s seed %llu: %.3f s simulated in %.2f s of host time\n", m->name, seed,
			(double)sim_elapsed_ns() / 1e9, sim_host_seconds());
	sim_shutdown();
	free(av);
	return r;
}

static void print_replay(const struct sim_args *a, unsigned long long seed)
{
	fprintf(stderr, "rwlab-sim: replay: rwlab");
	for (int i = 1; i < a->argc; i++)
		fprintf(stderr, " %s", a->argv[i]);
	fprintf(stderr, " --sim %s --seed %llu\n", a->machine, seed);
}

/*
 * torture --seeds N: each seed in a forked child, so that it starts from the
 * very state (heap layout included) a fresh `--seed S` run has at that point
 * and its replay is exact. A seed's output is shown only when it fails.
 */
static int torture_seeds(const struct sim_machine *m, const struct sim_args *a)
{
	unsigned long long failed = 0, first = 0;

	for (unsigned long long k = 0; k < a->seeds; k++) {
		unsigned long long seed = a->seed + k;
		char path[] = "/tmp/rwlab-sim-seed-XXXXXX";
		int fd = mkstemp(path), status = 0, r;
		pid_t pid;

		if (fd < 0) {
			perror("rwlab-sim: mkstemp");
			return 2;
		}
		unlink(path);
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			_exit(run_once(m, a, seed) & 0xff);
		}
		while (pid > 0 && waitpid(pid, &status, 0) < 0)
			;
		r = pid < 0 ? 2 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (r) {
			char buf[4096];
			ssize_t n;

			if (!failed++)
				first = seed;
			printf("rwlab-sim: seed %llu: FAILURE (exit %d); its output:\n", seed, r);
			fflush(stdout);
			lseek(fd, 0, SEEK_SET);
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				if (write(1, buf, (size_t)n) != n)
					break;
			print_replay(a, seed);
		}
		close(fd);
	}
	printf("rwlab-sim: torture on %s: %llu seeds (%llu..%llu): %llu SUCCESS, %llu FAILURE\n", m->name,
	       a->seeds, a->seed, a->seed + a->seeds - 1, a->seeds - failed, failed);
	fflush(stdout);
	if (failed) {
		fprintf(stderr, "rwlab-sim: the first failing seed replays exactly with:\n");
		print_replay(a, first);
	}
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	static struct sim_machine m;
	struct sim_args a = { 0 };
	char err[1024];

	lab_sim_cell_watch_parent();
	if (protocol_read(argc, argv, &a))
		return 2;
	if (lab_sim_machine_load(&m, a.machine, err, sizeof(err))) {
		fprintf(stderr, "rwlab: %s\n", err);
		return 2;
	}
	if (!strcmp(a.argv[1], "torture") && a.seeds > 1)
		return torture_seeds(&m, &a);
	return run_once(&m, &a, a.seed);
}
