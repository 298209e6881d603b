/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main() of build/rwlab-sim, the simulated build: `rwlab run --sim MACHINE`
 * and `rwlab torture --sim MACHINE` re-exec it with the same arguments.
 * It takes --sim MACHINE (and, for torture, --seed S and --seeds N) out of
 * the arguments (torture gets --seed back as the engine's seed of each run), boots the engine on the machine and runs rwlab's own main()
 * (harness/main.c, compiled here as rwlab_main) as simulated task 0, so the
 * runner, the workloads and the locks run unchanged on simulated CPUs.
 *
 * torture --seeds N runs the torture under N schedules (engine seeds S ..
 * S+N-1); each seed's output is kept only when it fails, and every failing
 * seed is printed with the command that replays it exactly.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim.h"
#include "sim_cmd.h"



struct sim_args {
	const char *machine;
	unsigned long long seed, seeds;
	int have_seed;
	int argc;
	char **argv;		/* the rest, for rwlab_main */
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

static int take_value(int argc, char **argv, int *i, const char *opt, const char **val)
{
	size_t n = strlen(opt);

	if (!strcmp(argv[*i], opt)) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "rwlab-sim: %s needs a value\n", opt);
			exit(2);
		}
		*val = argv[++*i];
		return 1;
	}
	if (!strncmp(argv[*i], opt, n) && argv[*i][n] == '=') {
		*val = argv[*i] + n + 1;
		return 1;
	}
	return 0;
}

static unsigned long long parse_ull(const char *opt, const char *v, unsigned long long min)
{
	char *e;
	unsigned long long x = strtoull(v, &e, 10);

	if (!*v || *e || *v == '-' || x < min) {
		fprintf(stderr, "rwlab-sim: bad value '%s' for %s (an integer >= %llu)\n", v, opt, min);
		exit(2);
	}
	return x;
}

static char **args_copy;

static void free_args(void)
{
	free(args_copy);
}

static void parse(int argc, char **argv, struct sim_args *a)
{
	int torture = argc > 1 && !strcmp(argv[1], "torture");

	a->argv = args_copy = calloc((size_t)argc + 1, sizeof(char *));
	atexit(free_args);
	a->seed = 1;
	a->seeds = 1;
	for (int i = 0; i < argc; i++) {
		const char *v;

		if (i > 0 && take_value(argc, argv, &i, "--sim", &v)) {
			a->machine = v;
		} else if (i > 0 && torture && take_value(argc, argv, &i, "--seeds", &v)) {
			a->seeds = parse_ull("--seeds", v, 1);
		} else if (i > 0 && take_value(argc, argv, &i, "--seed", &v)) {
			a->seed = parse_ull("--seed", v, 0);
			a->have_seed = 1;
			if (!torture) {	/* run: the workers' PRNG seed too */
				a->argv[a->argc++] = argv[i - (strchr(argv[i], '=') ? 0 : 1)];
				if (!strchr(argv[i], '='))
					a->argv[a->argc++] = argv[i];
			}
		} else {
			a->argv[a->argc++] = argv[i];
		}
	}
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
	if (a->seeds == 1 && r == 0 && sim_elapsed_ns())	/* --list-cells, --help: no time passed, nothing to say */
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
	int r;

	/*
	 * Same seed, same schedule: the lock code hashes addresses (bravo's
	 * table) and the directory keys lines by address, so run without
	 * address-space randomisation (re-exec once with ADDR_NO_RANDOMIZE).
	 */
	{
		int p = personality(0xffffffff);

		if (p != -1 && !(p & ADDR_NO_RANDOMIZE) && personality((unsigned long)p | ADDR_NO_RANDOMIZE) != -1)
			execv("/proc/self/exe", argv);
		if (p == -1 || !(personality(0xffffffff) & ADDR_NO_RANDOMIZE))
			fprintf(stderr, "rwlab-sim: WARNING: cannot disable address randomisation: runs of one seed "
					"may differ where lock code hashes addresses\n");
	}
	parse(argc, argv, &a);
	if (!a.machine) {
		fprintf(stderr, "rwlab-sim: needs --sim MACHINE (rwlab sim list; generic-N for N = 2..512); "
				"use it through `rwlab run --sim` or `rwlab torture --sim`\n");
		return 2;
	}
	if (a.argc < 2 || (strcmp(a.argv[1], "run") && strcmp(a.argv[1], "torture"))) {
		fprintf(stderr, "rwlab-sim: --sim takes the run and torture commands only\n");
		return 2;
	}
	if (lab_sim_machine_load(&m, a.machine, err, sizeof(err))) {
		fprintf(stderr, "rwlab: %s\n", err);
		return 2;
	}
	if (lab_sim_args_refused(a.argc, a.argv, err, sizeof(err))) {
		fprintf(stderr, "rwlab: %s\n", err);
		return 2;
	}
	if (!strcmp(a.argv[1], "torture") && a.seeds > 1)
		r = torture_seeds(&m, &a);
	else
		r = run_once(&m, &a, a.seed);
	return r;
}
