/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab torture --sim MACHINE --seeds N -j J`: one rwlab-sim per seed, J at
 * once, reported in seed order (sim_cmd.h, lab_sim_seeds()).
 *
 * Each seed's process is started with the protocol and N = 1, exactly as
 * the front starts rwlab-sim for `rwlab torture ... --sim MACHINE --seed S`
 * (the replay), so a seed's schedule is the replay's whatever ran before it
 * or beside it; address randomisation is off for both (lab_sim_prepare()).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_cell.h"
#include "sim_cmd.h"
#include "wait.h"

#define PROG "rwlab torture"

struct seeds_run {
	const struct lab_sim_plan *p;
	char exe[PATH_MAX + 16];
	bool events, tty;
	unsigned long long done, failed, first;	/* seeds finished (passed or failed), failed, the first failing */
	char first_what[256];			/* the first failing seed's variants */
	uint64_t t0;				/* lab_host_clock_ns() at the start, for the ETA */
};

static volatile sig_atomic_t seeds_stop;

static void on_stop(int sig)
{
	(void)sig;
	seeds_stop = 1;
}

static void seed_argv(void *arg, int i, struct lab_sim_argv *a)
{
	const struct seeds_run *s = arg;
	char num[2][24];
	int n;

	n = lab_sim_protocol(s->p, s->exe, s->p->seed + (unsigned long long)i, 1, num, a->av, LAB_SIM_ARGV_MAX);
	/* lab_sim_seeds() checked the length; the numbers into the room lab_sim_argv has for them */
	snprintf(a->num[0], sizeof(a->num[0]), "%s", num[0]);
	snprintf(a->num[1], sizeof(a->num[1]), "%s", num[1]);
	a->av[4] = a->num[0];
	a->av[6] = a->num[1];
	a->av[n] = NULL;
}

/* @arg as the shell reads it: in single quotes unless it needs none. */
static void print_arg(FILE *f, const char *arg)
{
	if (*arg && strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:=/@%+-") ==
			    strlen(arg)) {
		fprintf(f, " %s", arg);
		return;
	}
	fputs(" '", f);
	for (; *arg; arg++)
		fputs(*arg == '\'' ? "'\\''" : (char[]){ *arg, 0 }, f);
	fputc('\'', f);
}

/* The command that replays @seed: the command line as given, less --seeds and -j. */
static void print_replay(FILE *f, const struct lab_sim_plan *p, unsigned long long seed)
{
	fputs("rwlab torture", f);
	for (int i = 0; i < p->argc; i++)
		print_arg(f, p->argv[i]);
	fputs(" --sim", f);
	print_arg(f, p->machine);
	fprintf(f, " --seed %llu\n", seed);
}

/*
 * The variants a failing seed's output names: torture's own summary line
 * ("rwlab torture: FAILURE: K of M variant(s) failed: A, B"), else the one
 * that started and never ended (a crash, a deadlock).
 */
static void failed_variants(const char *out, char *what, size_t len)
{
	static const char sum[] = "rwlab torture: FAILURE: ", start[] = "-torture:--- Start of test:",
			  end[] = "-torture:--- End of test:";
	const char *l, *e, *c;
	char last[192] = "";

	snprintf(what, len, "no variant started");
	for (l = out; *l; l = *e ? e + 1 : e) {
		e = l + strcspn(l, "\n");
		if (!strncmp(l, sum, sizeof(sum) - 1) && (c = strstr(l, "failed: ")) && c < e) {
			snprintf(what, len, "%.*s", (int)(e - c - 8), c + 8);
			return;
		}
		if ((c = strstr(l, start)) && c < e)
			snprintf(last, sizeof(last), "%.*s", (int)(c - l), l);
		else if ((c = strstr(l, end)) && c < e)
			last[0] = 0;
	}
	if (last[0])
		snprintf(what, len, "%s (did not finish)", last);
}

/* A failing seed: its header line, its output, its replay. */
static void seed_failed(struct seeds_run *s, unsigned long long seed, const struct lab_sim_proc *pr)
{
	char what[256], status[64];

	if (pr->err) {
		snprintf(what, sizeof(what), "cannot start rwlab-sim: %s", strerror(-pr->err));
		snprintf(status, sizeof(status), "not started");
	} else {
		failed_variants(pr->out.p ? pr->out.p : "", what, sizeof(what));
		if (pr->status > 128)
			snprintf(status, sizeof(status), "killed by signal %d, %s", pr->status - 128,
				 strsignal(pr->status - 128));
		else
			snprintf(status, sizeof(status), "exit %d", pr->status);
	}
	if (!s->failed++) {
		s->first = seed;
		snprintf(s->first_what, sizeof(s->first_what), "%s", what);
	}
	printf("%s: seed %llu: FAILURE (%s): %s; its output:\n", PROG, seed, status, what);
	if (pr->out.len) {
		fwrite(pr->out.p, 1, pr->out.len, stdout);
		if (pr->out.p[pr->out.len - 1] != '\n')
			putchar('\n');
	}
	printf("%s: replay: ", PROG);
	print_replay(stdout, s->p, seed);
}

/* --events: a passing seed's 'paths:' lines, each after its seed. */
static void seed_paths(unsigned long long seed, const struct lab_sim_proc *pr)
{
	const char *l, *e;

	for (l = pr->out.p ? pr->out.p : ""; *l; l = *e ? e + 1 : e) {
		e = l + strcspn(l, "\n");
		if (memmem(l, (size_t)(e - l), "-torture: paths:", 16))
			printf("%s: seed %llu: %.*s\n", PROG, seed, (int)(e - l), l);
	}
}

/*
 * RWLAB_SIM_STATS: a passing seed's statistics ('rwlab-sim stats:' and
 * 'profile:' lines), whole under a line that names the seed, on stderr as
 * run's cells' are; its output is otherwise not shown, and they were lost.
 */
static void seed_stats(unsigned long long seed, const struct lab_sim_proc *pr)
{
	const char *l, *e;
	bool head = false;

	for (l = pr->out.p ? pr->out.p : ""; *l; l = *e ? e + 1 : e) {
		e = l + strcspn(l, "\n");
		if (strncmp(l, "rwlab-sim stats:", 16) && strncmp(l, "rwlab-sim profile:", 18))
			continue;
		if (!head)
			fprintf(stderr, "%s: seed %llu, its rwlab-sim's messages:\n", PROG, seed);
		head = true;
		fprintf(stderr, "%.*s\n", (int)(e - l), l);
	}
}

static void seed_done(void *arg, int i, const struct lab_sim_proc *pr)
{
	struct seeds_run *s = arg;
	unsigned long long seed = s->p->seed + (unsigned long long)i;

	if (seeds_stop && !pr->err && (pr->status == 130 || pr->status == 128 + SIGINT || pr->status == 128 + SIGTERM))
		return;	/* stopped with the run: not done */
	s->done++;
	if (pr->err || pr->status)
		seed_failed(s, seed, pr);
	else {
		if (s->events)
			seed_paths(seed, pr);
		if (getenv("RWLAB_SIM_STATS"))
			seed_stats(seed, pr);
	}
	fflush(stdout);
}

static void seed_progress(void *arg, int finished, int running)
{
	const struct seeds_run *s = arg;
	double el = (double)(lab_host_clock_ns() - s->t0) / 1e9, left;

	if (!s->tty)
		return;
	left = finished ? el / finished * (double)(s->p->seeds - (unsigned long long)finished) : -1;
	fprintf(stderr, "\r\033[K[seeds %d/%llu done, %d running, %llu failed] ETA ", finished, s->p->seeds, running,
		s->failed);
	if (left < 0)
		fprintf(stderr, "?");
	else
		fprintf(stderr, "%dm%02ds", (int)(left / 60), (int)left % 60);
}

int lab_sim_seeds(const struct lab_sim_plan *p, int jobs, bool events)
{
	static const struct lab_sim_cells_ops ops = { .argv = seed_argv, .done = seed_done,
						      .progress = seed_progress, .err_too = true, .quiet = true };
	struct seeds_run s = { .p = p, .events = events, .tty = isatty(2), .t0 = lab_host_clock_ns() };
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
	int n = (int)p->seeds;

	if (p->seeds > INT_MAX || p->argc + 10 > LAB_SIM_ARGV_MAX) {
		fprintf(stderr, "%s: --seeds %llu with %d arguments: at most %d seeds and %d arguments per run\n", PROG,
			p->seeds, p->argc, INT_MAX, LAB_SIM_ARGV_MAX - 10);
		return 2;
	}
	if (lab_sim_prepare(p->prog, p->machine, s.exe, sizeof(s.exe)))
		return 2;
	fflush(NULL);
	seeds_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	lab_sim_cells_run(n, jobs < n ? jobs : n, &ops, &s, &seeds_stop);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (s.tty)
		fprintf(stderr, "\r\033[K");
	printf("%s: --sim %s: %llu of %llu seeds done (%llu..%llu): %llu SUCCESS, %llu FAILURE%s\n", PROG, p->machine,
	       s.done, p->seeds, p->seed, p->seed + p->seeds - 1, s.done - s.failed, s.failed,
	       seeds_stop ? "; interrupted" : "");
	fflush(stdout);
	if (s.failed) {
		fprintf(stderr, "%s: first failure: seed %llu (%s); it replays exactly with:\n", PROG, s.first,
			s.first_what);
		print_replay(stderr, p, s.first);
	}
	return s.failed ? 1 : seeds_stop ? 130 : 0;
}
