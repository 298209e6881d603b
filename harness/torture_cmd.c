/* SPDX-License-Identifier: MIT */
/*
 * `rwlab torture`: locktorture for rwlab's variants, one after the other.
 *
 * Output follows kernel/locking/locktorture.c (v6.18): a parameter line
 * "<tag>-torture:--- Start of test: ...", the statistics lines
 *
 *   <tag>-torture: Writes:  Total: N  Max/Min: a/b ???  Fail: k !!!
 *   <tag>-torture: Reads :  Total: N  Max/Min: a/b ???  Fail: k !!!
 *
 * ("???" when max / 2 > min over the per-thread acquisition counts, "!!!" when
 * a check failed; the kernel prints Fail as 0/1, rwlab prints the number of
 * failed checks), the writer-acquisition watchdog line, and
 * "<tag>-torture:--- End of test: SUCCESS|FAILURE: ...". The tag is the
 * variant label. Exit status: 0 when every variant succeeded, 1 when one
 * failed, 2 for a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler.h"
#include "threads.h"
#include "lazy_mm.h"
#include "topology.h"
#include "torture.h"

#define MAX_LOCKS 64
#define MAX_THREADS_PER_ROLE 256	/* both roles together stay under LAB_MAX_TASKS */

static const char *prog = "rwlab torture";

static void torture_usage(FILE *f)
{
	fprintf(f,
		"usage: rwlab torture [-l LOCKS] [-d DUR] [--readers R] [--writers W] [options]\n"
		"  -l, --lock LIST          variants, NAME[:key=val,...] or all (default all; variants\n"
		"                           that claim no exclusion, like null, are skipped, and so are\n"
		"                           ck-* in ThreadSanitizer builds)\n"
		"  -d, --duration DUR       per variant (default 5s; s, ms, us, m)\n"
		"      --readers R          reader threads (default: online CPUs)\n"
		"      --writers W          writer threads (default: online CPUs)\n"
		"      --long-hold DUR      now and then hold 10x (writers) / 2x (readers) DUR (default 0: off)\n"
		"      --stutter DUR        run DUR, pause DUR, ... (default 0: off)\n"
		"      --acq-writer-lim DUR fail when a down_write takes longer (default 0: report the max)\n"
		"      --stat-interval DUR  print the statistics lines this often too (default 0: at the end)\n"
		"      --hold N             cpu_relax() loops inside each critical section (default 20)\n"
		"      --think N            cpu_relax() loops between acquisitions (default 20)\n"
		"      --no-trylock         never use the trylock verbs (default: 1 in 8 acquisitions)\n"
		"      --no-downgrade       never downgrade_write (default: 1 in 4 write holds)\n"
		"  -v, --verbose            per-thread counts\n"
		"  -m, --mm SCHEMES         lazy-mm schemes (all = every scheme but none): release racing\n"
		"                           grab/drop on 3 CPU threads, use after free detected\n");
}

static int parse_count(const char *opt, const char *arg, long min, long max, long *out)
{
	return lab_opt_count(prog, opt, arg, min, max, out);
}

static int parse_dur(const char *opt, const char *arg, bool allow_zero, uint64_t *ns)
{
	unsigned long long v;

	if (lab_opt_duration(prog, opt, arg, allow_zero, &v))
		return -1;
	*ns = v;
	return 0;
}

/* "30s", "1.5ms", "0": a duration as the user would type it. */
static const char *fmt_dur(uint64_t ns, char *buf, size_t len)
{
	if (ns == 0)
		snprintf(buf, len, "0");
	else if (ns % 1000000000ull == 0)
		snprintf(buf, len, "%" PRIu64 "s", (uint64_t)(ns / 1000000000ull));
	else if (ns >= 1000000000ull)
		snprintf(buf, len, "%.3gs", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, len, "%.4gms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.4gus", (double)ns / 1e3);
	return buf;
}

struct torture_print {
	const char *tag;
	const struct lab_torture_opts *o;
	bool verbose;
};

static void print_params(const struct lab_torture_opts *o, const char *tag, const char *what)
{
	char a[32], b[32], c[32], d[32], e[32];

	printf("%s-torture:--- %s: acq_writer_lim=%s long_hold=%s nreaders_stress=%d nwriters_stress=%d "
	       "stat_interval=%s stutter=%s duration=%s hold=%lu think=%lu trylock=%d downgrade=%d\n",
	       tag, what, fmt_dur(o->acq_writer_lim_ns, a, sizeof(a)), fmt_dur(o->long_hold_ns, b, sizeof(b)),
	       o->readers, o->writers, fmt_dur(o->stat_interval_ns, c, sizeof(c)),
	       fmt_dur(o->stutter_ns, d, sizeof(d)), fmt_dur(o->duration_ns, e, sizeof(e)), o->hold_loops,
	       o->think_loops, o->trylock, o->downgrade);
}

static void print_stats(void *arg, const struct lab_torture_result *r)
{
	const struct torture_print *p = arg;

	printf("%s-torture: Writes:  Total: %" PRIu64 "  Max/Min: %" PRIu64 "/%" PRIu64 " %s  Fail: %" PRIu64
	       " %s\n",
	       p->tag, r->wr_total, r->wr_max, r->wr_min, lab_torture_unfair(r->wr_max, r->wr_min) ? "???" : "",
	       r->wr_fail, r->wr_fail ? "!!!" : "");
	printf("%s-torture: Reads :  Total: %" PRIu64 "  Max/Min: %" PRIu64 "/%" PRIu64 " %s  Fail: %" PRIu64
	       " %s\n",
	       p->tag, r->rd_total, r->rd_max, r->rd_min, lab_torture_unfair(r->rd_max, r->rd_min) ? "???" : "",
	       r->rd_fail, r->rd_fail ? "!!!" : "");
	fflush(stdout);
}

static void print_final(const struct torture_print *p, const struct lab_torture_result *r)
{
	const struct lab_torture_opts *o = p->o;
	char a[32], b[32];

	print_stats((void *)p, r);
	if (o->acq_writer_lim_ns)
		printf("%s-torture: Writer acquisition: max %s, acq_writer_lim %s: %" PRIu64 " over %s\n", p->tag,
		       fmt_dur(r->wr_acq_max_ns, a, sizeof(a)), fmt_dur(o->acq_writer_lim_ns, b, sizeof(b)),
		       r->wr_acq_over_lim, r->wr_acq_over_lim ? "!!!" : "");
	else
		printf("%s-torture: Writer acquisition: max %s (acq_writer_lim off)\n", p->tag,
		       fmt_dur(r->wr_acq_max_ns, a, sizeof(a)));
	if (p->verbose) {
		printf("%s-torture: downgrades %" PRIu64 ", failed trylocks %" PRIu64 ", long holds %" PRIu64
		       ", stutter pauses %" PRIu64 "\n",
		       p->tag, r->downgrades, r->trylock_fail, r->long_holds, r->stutter_pauses);
		for (int i = 0; i < r->nthreads; i++) {
			const struct lab_torture_thread *t = &r->threads[i];

			printf("%s-torture:   %s %2d: acquired %" PRIu64 "  fail %" PRIu64 "  long holds %" PRIu64,
			       p->tag, t->writer ? "writer" : "reader", t->writer ? i : i - o->writers, t->acquired,
			       t->fail, t->long_holds);
			if (t->writer)
				printf("  max acquisition %s", fmt_dur(t->acq_max_ns, a, sizeof(a)));
			printf("\n");
		}
	}
}

/*
 * Lazy-mm torture: the release-versus-switch race of harness/lazy_race.h
 * (3 CPU threads switching to kernel threads and back on a shared mm while
 * the owner keeps replacing and releasing it; freed mms are poisoned and
 * every grab checks the canary, so a use after free aborts). Each scheme
 * runs in a child process, so that an abort or a failed check becomes a
 * FAILURE line here. `none` is expected to FAIL (use after free).
 */
#define LAZY_CHECK(cond, ...)								\
	do {										\
		if (!(cond)) {								\
			fprintf(stderr, "lazy-mm torture: check failed: ");		\
			fprintf(stderr, __VA_ARGS__);					\
			fprintf(stderr, "\n");						\
			fflush(NULL);							\
			_exit(1);							\
		}									\
	} while (0)
#include "lazy_race.h"

static int torture_lazy(const char *spec, uint64_t duration_ns)
{
	int status;
	pid_t pid;

	printf("%s-torture:--- Start of test: lazy-mm release vs grab/drop, cpus=%d duration=%.3gs\n", spec,
	       NCPUS, (double)duration_ns / 1e9);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		struct race r;

		race_run(spec, &r, race_sync_free(spec), duration_ns);
		race_verify(spec, &r);
		fflush(NULL);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("%s-torture:--- End of test: SUCCESS\n", spec);
		return 0;
	}
	if (WIFSIGNALED(status))
		printf("%s-torture:--- End of test: FAILURE: killed by signal %d (%s; a use after free aborts "
		       "at the poisoned mm's canary) !!!\n", spec, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		printf("%s-torture:--- End of test: FAILURE: a check failed (exit %d) !!!\n", spec,
		       WEXITSTATUS(status));
	fflush(stdout);
	return -1;
}

int lab_torture_cmd(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "lock", required_argument, NULL, 'l' },
		{ "mm", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "readers", required_argument, NULL, 'R' },
		{ "writers", required_argument, NULL, 'W' },
		{ "long-hold", required_argument, NULL, 'L' },
		{ "stutter", required_argument, NULL, 'S' },
		{ "acq-writer-lim", required_argument, NULL, 'A' },
		{ "stat-interval", required_argument, NULL, 'I' },
		{ "hold", required_argument, NULL, 'H' },
		{ "think", required_argument, NULL, 'T' },
		{ "no-trylock", no_argument, NULL, 't' },
		{ "no-downgrade", no_argument, NULL, 'g' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct lab_rwsem_conf locks[MAX_LOCKS];
	static struct lab_lazy_mm_conf schemes[MAX_LOCKS];
	int nschemes = 0;
	long ncpus = lab_online_cpus(), v;
	struct lab_torture_opts o = {
		.duration_ns = 5000000000ull,
		.hold_loops = 20,
		.think_loops = 20,
		.trylock = true,
		.downgrade = true,
	};
	int c, nlocks = 0, failed = 0, tried = 0;
	bool verbose = false;
	char err[1024], failed_names[512] = "";

	if (ncpus < 1)
		ncpus = 1;
	o.readers = o.writers = (int)(ncpus < MAX_THREADS_PER_ROLE ? ncpus : MAX_THREADS_PER_ROLE);
	while ((c = getopt_long(argc, argv, "l:m:d:vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (lab_rwsem_parse_list(optarg, locks, MAX_LOCKS, &nlocks, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", prog, err);
				return 2;
			}
			break;
		case 'm':
			if (lab_lazy_mm_parse_list(optarg, schemes, MAX_LOCKS, &nschemes, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", prog, err);
				return 2;
			}
			break;
		case 'd':
			if (parse_dur("-d/--duration", optarg, false, &o.duration_ns))
				return 2;
			break;
		case 'R':
			if (parse_count("--readers", optarg, 0, MAX_THREADS_PER_ROLE, &v))
				return 2;
			o.readers = (int)v;
			break;
		case 'W':
			if (parse_count("--writers", optarg, 0, MAX_THREADS_PER_ROLE, &v))
				return 2;
			o.writers = (int)v;
			break;
		case 'L':
			if (parse_dur("--long-hold", optarg, true, &o.long_hold_ns))
				return 2;
			break;
		case 'S':
			if (parse_dur("--stutter", optarg, true, &o.stutter_ns))
				return 2;
			break;
		case 'A':
			if (parse_dur("--acq-writer-lim", optarg, true, &o.acq_writer_lim_ns))
				return 2;
			break;
		case 'I':
			if (parse_dur("--stat-interval", optarg, true, &o.stat_interval_ns))
				return 2;
			break;
		case 'H':
			if (parse_count("--hold", optarg, 0, 100000000, &v))
				return 2;
			o.hold_loops = (unsigned long)v;
			break;
		case 'T':
			if (parse_count("--think", optarg, 0, 100000000, &v))
				return 2;
			o.think_loops = (unsigned long)v;
			break;
		case 't':
			o.trylock = false;
			break;
		case 'g':
			o.downgrade = false;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			torture_usage(stdout);
			return 0;
		default:	/* getopt_long said what was wrong */
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see 'rwlab torture --help')\n", prog,
			argv[optind]);
		return 2;
	}
	if (o.readers + o.writers == 0) {
		fprintf(stderr, "%s: --readers 0 and --writers 0: no thread to torture with\n", prog);
		return 2;
	}
	if (!nlocks && !nschemes && lab_rwsem_parse_list("all", locks, MAX_LOCKS, &nlocks, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}

	/* Lazy-mm schemes first: each runs in a child, before this process starts any liburcu thread. */
	for (int i = 0; i < nschemes; i++) {
		tried++;
		if (torture_lazy(schemes[i].label, o.duration_ns)) {
			failed++;
			snprintf(failed_names + strlen(failed_names), sizeof(failed_names) - strlen(failed_names),
				 "%s%s", failed > 1 ? ", " : "", schemes[i].label);
		}
	}

	for (int i = 0; i < nlocks; i++) {
		struct torture_print p = { locks[i].label, &o, verbose };
		struct lab_torture_thread threads[2 * MAX_THREADS_PER_ROLE];
		struct lab_torture_result r;
		int rc;

		if (!(locks[i].ops->caps & LAB_CAP_EXCLUSION)) {
			printf("%s-torture: skipped: the variant claims no exclusion\n", locks[i].label);
			continue;
		}
		if (LAB_SANITIZE_THREAD && lab_rwsem_conf_foreign_atomics(&locks[i])) {
			printf("%s-torture: skipped under ThreadSanitizer: it synchronises through atomics "
			       "TSan cannot see (ck_pr inline assembly), so TSan would report false races\n",
			       locks[i].label);
			continue;
		}
		if (!tried++ && o.readers + o.writers > ncpus)
			fprintf(stderr, "%s: %d threads on %ld CPUs: oversubscribed (as locktorture's defaults "
				"are); spinning variants slow down when a holder is preempted\n", prog,
				o.readers + o.writers, ncpus);
		o.lock = &locks[i];
		o.threads = threads;
		o.stat = print_stats;
		o.stat_arg = &p;
		print_params(&o, p.tag, "Start of test");
		fflush(stdout);
		rc = lab_torture_run(&o, &r);
		if (rc) {
			fprintf(stderr, "%s: %s: %s\n", prog, p.tag, strerror(-rc));
			failed++;
			snprintf(failed_names + strlen(failed_names), sizeof(failed_names) - strlen(failed_names),
				 "%s%s", failed > 1 ? ", " : "", p.tag);
			continue;
		}
		print_final(&p, &r);
		print_params(&o, p.tag, lab_torture_failed(&r) ? "End of test: FAILURE" : "End of test: SUCCESS");
		if (lab_torture_failed(&r)) {
			failed++;
			snprintf(failed_names + strlen(failed_names), sizeof(failed_names) - strlen(failed_names),
				 "%s%s", failed > 1 ? ", " : "", p.tag);
		}
		fflush(stdout);
	}
	if (!tried) {
		fprintf(stderr, "%s: nothing to torture: every variant given was skipped\n", prog);
		return 2;
	}
	if (failed)
		printf("rwlab torture: FAILURE: %d of %d variants failed: %s\n", failed, tried, failed_names);
	else
		printf("rwlab torture: SUCCESS: %d variants\n", tried);
	return failed ? 1 : 0;
}
