/* SPDX-License-Identifier: GPL-2.0-only */
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
 *
 * A stall (threads that do not return within a bound after the end of the
 * test, torture.c's hung-task stand-in) is the line
 * "<tag>-torture:--- End of test: FAILURE: stall: ..." after the statistics
 * lines; the stuck threads cannot be joined, so the variants after it are not
 * run (the summary line names them) and the process ends with status 1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "compiler.h"
#include "err.h"
#include "events.h"
#include "format.h"
#include "threads.h"
#include "lazy_mm.h"
#include "topology.h"
#include "sim_cell.h"
#include "sim_cmd.h"
#include "stop.h"
#include "torture.h"

#define MAX_LOCKS 64
#define MAX_THREADS_PER_ROLE 256	/* both roles together stay under LAB_MAX_TASKS */

static const char *prog = "rwlab torture";

#define DUR_UNITS "units s, ms, us or m"

/*
 * -d's default: 5 s natively (locktorture runs minutes; rwlab's variants run
 * one after the other); under --sim 20 ms of simulated time per variant, the
 * shortest of 10, 20, 30 and 50 ms at which every seed of 10 (generic-8, 8
 * readers and 8 writers, engine sim-9) took each variant's handoffs, reader
 * and writer wake-ups, switches both ways, downgrades, failed trylocks and
 * (--kill) kill bursts at least 3 times, where the variant has them: at 10 ms
 * rwsem-rspin asked for no HANDOFF in some seeds and percpu-rwsem's writers
 * were still in their first grace period (1 switch). Over 1,000 seeds at 20
 * ms (0.34 s of host CPU per seed of every variant) 97.7% of rwsem-rspin's
 * seeds had 3 handoffs or more (the fewest: 1) and 83% of mainline rwsem's
 * and rwsem-dhandoff's had 3 reader acquisitions after a writer (the fewest:
 * 0; its readers are near starved by 8 writers); every other path came at
 * least 3 times in every seed. rwsem-xadd's readers are starved at any
 * duration (1-4 reader wake-ups per seed). results/sim/torture-duration-
 * 20261202.txt and torture-1000-seeds-20261202.txt have the counts.
 */
#define TORTURE_DURATION_NS	5000000000ull
#define TORTURE_SIM_DURATION_NS	20000000ull

/* Adding an option: one entry here and one case in cmd_torture()'s switch. */
static const struct lab_opt torture_opts[] = {
	{ "lock", 'l', 'l', "LIST", "variants, NAME[:key=val,...] or all; variants that claim no exclusion, like "
	  "null, are skipped, and so are ck-* in ThreadSanitizer builds", "all", NULL, LAB_COMP_VARIANTS, NULL, 0, 0 },
	{ "duration", 'd', 'd', "DUR", "per variant (under --sim: simulated time; at 20ms, measured on generic-8, "
	  "nearly every seed takes each variant's handoffs, wake-ups, switches, downgrades and failed trylocks 3 "
	  "times or more: results/sim/torture-1000-seeds-20261202.txt)",
	  "5s; 20ms under --sim", DUR_UNITS, 0, NULL, 0, 0 },
	{ "readers", 0, 'R', "R", "reader threads", "the allowed CPUs", "0..256", 0, NULL, 0, 0 },
	{ "writers", 0, 'W', "W", "writer threads", "the allowed CPUs", "0..256", 0, NULL, 0, 0 },
	{ "long-hold", 0, 'L', "DUR", "now and then hold 10x (writers) / 2x (readers) DUR", "0: off", DUR_UNITS, 0,
	  NULL, 0, 0 },
	{ "stutter", 0, 'S', "DUR", "run DUR, pause DUR, ...", "0: off", DUR_UNITS, 0, NULL, 0, 0 },
	{ "acq-writer-lim", 0, 'A', "DUR", "fail when a down_write takes longer", "0: report the max", DUR_UNITS, 0,
	  NULL, 0, 0 },
	{ "stat-interval", 0, 'I', "DUR", "print the statistics lines this often too", "0: at the end", DUR_UNITS,
	  0, NULL, 0, 0 },
	{ "hold", 0, 'H', "N", "cpu_relax() loops inside each critical section", "20", "0..100000000", 0, NULL, 0, 0 },
	{ "think", 0, 'T', "N", "cpu_relax() loops between acquisitions", "20", "0..100000000", 0, NULL, 0, 0 },
	{ "no-trylock", 0, 't', NULL, "never use the trylock verbs (default: 1 in 8 acquisitions)", NULL, NULL, 0,
	  NULL, 0, 0 },
	{ "no-downgrade", 0, 'g', NULL, "never downgrade_write (default: 1 in 4 write holds)", NULL, NULL, 0, NULL, 0, 0 },
	{ "kill", 0, 'K', NULL, "cancel waiters: killable/timed acquisitions and fatal signals every 20..500 us, "
	  "to a random thread or to every waiter oldest first; long write holds and handoff_timeout_us=0 drive "
	  "waiters into HANDOFF; the ports' wait_lock invariants are checked at every wait_lock release "
	  "(variants without killable verbs run without cancellation)", NULL, NULL, 0, NULL, 0, 0 },
	{ "seed", 0, 'E', "N", "seed of the random choices: the threads' and the killer's; under --sim also the "
	  "engine's schedule", "0; 1 under --sim", NULL, 0, NULL, 0, LONG_MAX },
	{ "sim", 0, 'Z', "MACHINE", "torture on a simulated machine (rwlab sim list; generic-N), checked first, in "
	  "rwlab-sim beside rwlab; -d is simulated time", NULL, NULL,
	  LAB_COMP_MACHINES, NULL, 0, 0 },
	{ "seeds", 0, 'N', "N", "with --sim: N schedules, seeds --seed .. --seed+N-1, each in its own rwlab-sim; a "
	  "failing seed prints its output and the command that replays it", "1", NULL, 0, NULL, 1, 1000000000 },
	{ "jobs", 'j', 'j', "N", "with --sim and --seeds: seeds run at once, each in its own rwlab-sim, reported in "
	  "seed order (the output and the exit status are the same whatever N)", "the CPUs this process may use",
	  NULL, 0, NULL, 1, LAB_SIM_JOBS_MAX },
	{ "verbose", 'v', 'v', NULL, "per-thread counts", NULL, NULL, 0, NULL, 0, 0 },
	{ "events", 0, 'e', NULL, "one 'paths:' line per variant: the handoffs, wake-ups, writer/reader switches, "
	  "downgrades, failed trylocks and kill bursts the run saw, and every non-zero lock event (with --seeds: "
	  "one per seed and variant)", NULL, NULL, 0, NULL, 0, 0 },
	{ "lazy-mm", 'm', 'm', "SCHEMES", "lazy-mm schemes (all = every scheme but none): release racing grab/drop on 3 "
	  "CPU threads, use after free detected (run and bench-lazy's name)", NULL, NULL, LAB_COMP_SCHEMES, NULL, 0, 0 },
	{ "mm", 0, 'm', "SCHEMES", "the same as --lazy-mm (its older name here)", NULL, NULL, LAB_COMP_SCHEMES, NULL,
	  0, 0 },
	{ 0 }
};

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
	bool verbose, events;
};

/*
 * The trylock and downgrade options, for the verbs the variant has (torture.c
 * uses no other): trylock= with both trylocks, read_trylock= or
 * write_trylock= with one, nothing with neither; downgrade= with
 * downgrade_write. print_params() adds --kill's kill= and seed= so, only
 * for a variant with the killable verbs.
 */
static void print_verb_params(const struct lab_torture_opts *o)
{
	const struct lab_rwsem_ops *ops = o->lock->ops;

	if (ops->down_read_trylock || ops->down_write_trylock)
		printf(" %s=%d", !ops->down_write_trylock ? "read_trylock" : !ops->down_read_trylock ? "write_trylock" :
			   "trylock", o->trylock);
	if (ops->downgrade_write)
		printf(" downgrade=%d", o->downgrade);
}

static void print_params(const struct lab_torture_opts *o, const char *tag, const char *what)
{
	char a[32], b[32], c[32], d[32], e[32];

	printf("%s-torture:--- %s: acq_writer_lim=%s long_hold=%s nreaders_stress=%d nwriters_stress=%d "
	       "stat_interval=%s stutter=%s duration=%s hold=%lu think=%lu",
	       tag, what, fmt_dur(o->acq_writer_lim_ns, a, sizeof(a)), fmt_dur(o->long_hold_ns, b, sizeof(b)),
	       o->readers, o->writers, fmt_dur(o->stat_interval_ns, c, sizeof(c)),
	       fmt_dur(o->stutter_ns, d, sizeof(d)), fmt_dur(o->duration_ns, e, sizeof(e)), o->hold_loops,
	       o->think_loops);
	print_verb_params(o);
	if (o->kill && (o->lock->ops->caps & LAB_CAP_KILLABLE))	/* else it ran without cancellation */
		printf(" kill=1 seed=%" PRIu64, o->seed);
	printf("\n");
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

/* Kill mode: how often waiters asked for HANDOFF, the precondition of the cancellation races. */
static void print_handoff(const char *tag, const struct lab_torture_result *r)
{
	char t[48] = "no handoff_timeout_us knob";

	if (r->handoff_timeout_us >= 0)
		snprintf(t, sizeof(t), "handoff_timeout_us=%ld", r->handoff_timeout_us);
	if (LAB_EVENT_COUNTS)
		printf("%s-torture: HANDOFF requests: %" PRIu64 " by reader heads, %" PRIu64 " by writers (%s)\n",
		       tag, r->handoff_rd, r->handoff_wr, t);
	else
		printf("%s-torture: HANDOFF requests: not counted (built with -Devent_counts=false; %s)\n", tag, t);
}

/*
 * --events: the paths the run took, as key=value words after "paths:",
 *   handoffs      HANDOFF requests (rwsem_rlock_handoff + rwsem_wlock_handoff)
 *                 and direct grants by the unlocker (rwsem_handoff_grant)
 *   wakeups       waiters woken (rwsem_wake_reader/_writer, percpu_rwsem_wake_reader/_writer)
 *                 each only for a variant that counts one of its events (locks/events.h)
 *   to_read, to_write  holder-role switches (torture.h), switches their sum
 *   downgrades, trylock_fail, kill_bursts  torture's own counts, the first
 *                 two only for a variant with the verbs (as print_verb_params())
 * then "events:" and every lock event (events_list.h) that is not zero.
 */
static bool set_empty(const struct lab_event_set *set)
{
	for (int i = 0; i < LAB_EV_NR; i++)
		if (set->has[i])
			return false;
	return true;
}

static void print_paths(const char *tag, const struct lab_torture_opts *o, const struct lab_torture_result *r)
{
	const struct lab_rwsem_ops *ops = o->lock->ops;
	const uint64_t *e = r->events;

	struct lab_event_set set;
	bool ho, wk;

	lab_rwsem_conf_events(o->lock, &set);
	ho = set.has[LAB_EV_rwsem_rlock_handoff] || set.has[LAB_EV_rwsem_wlock_handoff] ||
	     set.has[LAB_EV_rwsem_handoff_grant];
	wk = set.has[LAB_EV_rwsem_wake_reader] || set.has[LAB_EV_rwsem_wake_writer] ||
	     set.has[LAB_EV_percpu_rwsem_wake_reader] || set.has[LAB_EV_percpu_rwsem_wake_writer];
	printf("%s-torture: paths:", tag);
	if (!LAB_EVENT_COUNTS)
		printf(" handoffs=? wakeups=? (built with -Devent_counts=false)");
	if (LAB_EVENT_COUNTS && ho)
		printf(" handoffs=%" PRIu64,
		       e[LAB_EV_rwsem_rlock_handoff] + e[LAB_EV_rwsem_wlock_handoff] + e[LAB_EV_rwsem_handoff_grant]);
	if (LAB_EVENT_COUNTS && wk)
		printf(" wakeups=%" PRIu64, e[LAB_EV_rwsem_wake_reader] + e[LAB_EV_rwsem_wake_writer] +
		       e[LAB_EV_percpu_rwsem_wake_reader] + e[LAB_EV_percpu_rwsem_wake_writer]);
	printf(" switches=%" PRIu64 " to_read=%" PRIu64 " to_write=%" PRIu64, r->switch_to_read + r->switch_to_write,
	       r->switch_to_read, r->switch_to_write);
	if (ops->downgrade_write)
		printf(" downgrades=%" PRIu64, r->downgrades);
	if (ops->down_read_trylock || ops->down_write_trylock)
		printf(" trylock_fail=%" PRIu64, r->trylock_fail);
	printf(" kill_bursts=%" PRIu64 " events:", r->kill_bursts);
	for (int i = 0; i < LAB_EV_NR; i++)
		if (e[i])
			printf(" %s=%" PRIu64, lab_event_names[i], e[i]);
	printf("%s\n", set_empty(&set) ? " none counted" : "");
}

/* A stall: the statistics snapshot, then one FAILURE line (torture.h: stalled). */
static void print_stall(const struct torture_print *p, const struct lab_torture_result *r)
{
	int acq = r->stall_acq_writers + r->stall_acq_readers;
	int other = r->stall_other_writers + r->stall_other_readers;
	char a[32];

	print_stats((void *)p, r);
	printf("%s-torture:--- End of test: FAILURE: stall: %d of %d threads still in lock acquisition %s after "
	       "the end of the test (%d writers, %d readers)", p->tag, acq, r->nthreads,
	       fmt_dur(r->stall_after_ns, a, sizeof(a)), r->stall_acq_writers, r->stall_acq_readers);
	if (other)
		printf(", %d more not returned (%d writers, %d readers)", other, r->stall_other_writers,
		       r->stall_other_readers);
	printf("; not joined, the variants after it not run !!!\n");
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
	if (o->kill && r->killable) {
		printf("%s-torture: Kills: sent %" PRIu64 " (%" PRIu64 " bursts), waits cancelled: %" PRIu64
		       " -EINTR, %" PRIu64 " -ETIMEDOUT; wait_lock invariant warnings: %" PRIu64 " %s\n", p->tag,
		       r->kills_sent, r->kill_bursts, r->cancelled_eintr, r->cancelled_etimedout, r->warnings,
		       r->warnings ? "!!!" : "");
		print_handoff(p->tag, r);
	} else if (o->kill)
		printf("%s-torture: Kills: none (no killable verbs: ran without cancellation)\n", p->tag);
	else if (r->warnings)
		printf("%s-torture: DEBUG_RWSEMS_WARN_ON warnings: %" PRIu64 " !!!\n", p->tag, r->warnings);
	if (r->first_warning[0])
		printf("%s-torture: first warning after %s: %s !!!\n", p->tag,
		       fmt_dur(r->first_warning_ns, a, sizeof(a)), r->first_warning);
	if (r->known_bug)
		printf("%s-torture: that is the kernel's own documented bug, not the port's: %s\n", p->tag,
		       r->known_bug);
	if (r->not_unlocked)
		printf("%s-torture: not back at the unlocked value at the end: %s !!!\n", p->tag, r->unlocked_msg);
	if (p->events)
		print_paths(p->tag, o, r);
	if (p->verbose) {
		const struct lab_rwsem_ops *ops = o->lock->ops;

		printf("%s-torture: ", p->tag);	/* the verbs the variant has, as print_paths() */
		if (ops->downgrade_write)
			printf("downgrades %" PRIu64 ", ", r->downgrades);
		if (ops->down_read_trylock || ops->down_write_trylock)
			printf("failed trylocks %" PRIu64 ", ", r->trylock_fail);
		printf("long holds %" PRIu64 ", stutter pauses %" PRIu64 "\n", r->long_holds, r->stutter_pauses);
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
		if (!(cond))								\
			lazy_check_failed(__VA_ARGS__);					\
	} while (0)

/*
 * One write(2) for the line (locks/err.h): when two threads fail a check at
 * once, the _exit() of one must not cut the other's line short (the FAILURE
 * line printed after it would then not start a line of its own).
 */
static __attribute__((format(printf, 1, 2), noreturn)) void lazy_check_failed(const char *fmt, ...)
{
	va_list ap;

	fflush(NULL);
	va_start(ap, fmt);
	lab_vwrite_line(STDERR_FILENO, "lazy-mm torture: check failed: ", fmt, ap);
	va_end(ap);
	_exit(1);
}
#include "lazy_race.h"

/* Returns 0 SUCCESS, -1 FAILURE (said), 1 a signal ended the child (Ctrl-C, SIGTERM: passed on to it). */
static int torture_lazy(const char *spec, uint64_t duration_ns)
{
	int status;
	pid_t pid;

	printf("%s-torture:--- Start of test: lazy-mm release vs grab/drop, cpus=%d duration=%.3gs\n", spec,
	       NCPUS, (double)duration_ns / 1e9);
	fflush(NULL);
	pid = lab_stop_fork();
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
	lab_stop_wait(pid, &status, NULL);
	if (lab_stop_signal() && WIFSIGNALED(status) && WTERMSIG(status) == lab_stop_signal())
		return 1;
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

/* What `rwlab torture` parsed. */
struct torture_args {
	struct lab_rwsem_conf locks[MAX_LOCKS];
	struct lab_lazy_mm_conf schemes[MAX_LOCKS];
	int nlocks, nschemes;
	struct lab_torture_opts o;
	bool verbose, events;
	const char *sim;	/* --sim MACHINE */
	unsigned long long seeds;	/* --seeds N (0: not given) */
	bool seed_given;	/* --seed: under --sim, the engine's seed too (else 1) */
	int jobs;		/* -j N (0: not given) */
	bool all_locks;		/* -l all given, or no -l: under --sim it leaves out what cannot be simulated */
	bool sim_ran;		/* the front ran the seeds (lab_sim_seeds()): its status is the command's */
};

/* One `rwlab torture` option. Returns 0 or the exit status of a bad value. */
static int torture_option(int c, struct torture_args *a)
{
	struct lab_torture_opts *o = &a->o;
	char err[1024];
	long v;

	switch (c) {
	case 'l':
	case 'm':
		if (c == 'l' ? lab_rwsem_parse_list(optarg, a->locks, MAX_LOCKS, &a->nlocks, err, sizeof(err)) :
			       lab_lazy_mm_parse_list(optarg, a->schemes, MAX_LOCKS, &a->nschemes, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			return 2;
		}
		a->all_locks |= c == 'l' && lab_list_has(optarg, "all");
		return 0;
	case 'd':
		return parse_dur("-d/--duration", optarg, false, &o->duration_ns) ? 2 : 0;
	case 'R':
	case 'W':
		if (parse_count(c == 'R' ? "--readers" : "--writers", optarg, 0, MAX_THREADS_PER_ROLE, &v))
			return 2;
		*(c == 'R' ? &o->readers : &o->writers) = (int)v;
		return 0;
	case 'L':
		return parse_dur("--long-hold", optarg, true, &o->long_hold_ns) ? 2 : 0;
	case 'S':
		return parse_dur("--stutter", optarg, true, &o->stutter_ns) ? 2 : 0;
	case 'A':
		return parse_dur("--acq-writer-lim", optarg, true, &o->acq_writer_lim_ns) ? 2 : 0;
	case 'I':
		return parse_dur("--stat-interval", optarg, true, &o->stat_interval_ns) ? 2 : 0;
	case 'H':
	case 'T':
		if (parse_count(c == 'H' ? "--hold" : "--think", optarg, 0, 100000000, &v))
			return 2;
		*(c == 'H' ? &o->hold_loops : &o->think_loops) = (unsigned long)v;
		return 0;
	case 't':
		o->trylock = false;
		return 0;
	case 'g':
		o->downgrade = false;
		return 0;
	case 'v':
		a->verbose = true;
		return 0;
	case 'e':
		a->events = true;
		return 0;
	case 'K':
		o->kill = true;
		return 0;
	case 'E':
		if (parse_count("--seed", optarg, 0, LONG_MAX, &v))
			return 2;
		o->seed = (uint64_t)v;
		a->seed_given = true;
		return 0;
	case 'Z':	/* torture_parse() hands the torture to rwlab-sim (sim_cmd.h) */
		a->sim = optarg;
		return 0;
	case 'N':	/* one rwlab-sim per seed (lab_sim_seeds()) */
		if (parse_count("--seeds", optarg, 1, 1000000000, &v))
			return 2;
		a->seeds = (unsigned long long)v;
		return 0;
	case 'j':
		if (parse_count("-j/--jobs", optarg, 1, LAB_SIM_JOBS_MAX, &v))
			return 2;
		a->jobs = (int)v;
		return 0;
	default:	/* getopt_long said what was wrong */
		return 2;
	}
}

/* -l all under --sim: what it leaves out, in run --sim's words. */
static void torture_sim_all_line(void)
{
	fprintf(stderr, "%s: under --sim, -l all leaves out pthread, pthread-wp and ck-*: they synchronise through "
		"atomics outside locks/atomic.h, which the simulator cannot see\n", prog);
}

/*
 * --sim MACHINE: the torture goes to rwlab-sim with the command line less
 * --sim, --seed, --seeds and -j (@drop: their elements in @argv), with the
 * engine's seed; with --seeds N > 1 one rwlab-sim per seed (lab_sim_seeds(),
 * whose status this returns). Else returns 2 (message printed) only when
 * it cannot start rwlab-sim (sim_cmd.h).
 */
static int torture_sim_exec(const struct torture_args *a, int argc, char **argv, const bool *drop)
{
	struct lab_sim_plan p = { .machine = a->sim, .seed = a->seed_given ? a->o.seed : 1,
				  .seeds = a->seeds ? a->seeds : 1, .cmd = "torture", .prog = prog };
	int st;

	if (a->nschemes) {
		fprintf(stderr, "%s: -m (lazy-mm schemes) cannot run under --sim yet; valid under --sim: the lock "
			"variants (-l)\n", prog);
		return 2;
	}
	/* each schedule's seed is torture's --seed in rwlab-sim, and a failing one's replay line */
	if (p.seeds - 1 > (unsigned long long)LONG_MAX - p.seed) {
		fprintf(stderr, "%s: --seed %llu with --seeds %llu goes past the largest seed, %ld (valid: --seed + "
			"--seeds - 1 <= %ld)\n", prog, p.seed, p.seeds, LONG_MAX, LONG_MAX);
		return 2;
	}
	if (lab_sim_plan_args(&p, argc, argv, drop))
		return 2;
	st = p.seeds > 1 ? lab_sim_seeds(&p, a->jobs ? a->jobs : lab_sim_host_cpus(), a->events) : lab_sim_exec(&p);
	if (st != 2 && a->all_locks)	/* each seed's rwlab-sim said it, in the output that is not shown */
		torture_sim_all_line();
	free(p.argv);
	return st;
}

/* The options, @drop marking where the simulator's lie in @argv. Returns 0 or 2. */
static int torture_options(struct torture_args *a, int argc, char **argv, bool *drop)
{
	struct lab_cli cli;
	int c, st;

	if (lab_cli_begin(&cli, &lab_torture_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1) {
		if (c == 'Z' || c == 'E' || c == 'N' || c == 'j') {	/* handed on to rwlab-sim without them */
			int from, to;

			lab_cli_span(&cli, &from, &to);
			while (from < to)
				drop[from++] = true;
		}
		if ((st = torture_option(c, a)))
			return st;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see 'rwlab torture --help')\n", prog,
			argv[optind]);
		return 2;
	}
	if (a->seeds && !a->sim && !LAB_SIM) {
		fprintf(stderr, "%s: --seeds needs --sim MACHINE (one simulated schedule per seed)\n", prog);
		return 2;
	}
	if (a->jobs && (!a->sim || !a->seeds) && !LAB_SIM) {	/* one schedule: nothing to run at once */
		fprintf(stderr, "%s: -j needs --sim MACHINE and --seeds N (simulated seeds in parallel processes; "
			"natively the variants run one at a time)\n", prog);
		return 2;
	}
	return 0;
}

/* A variant or scheme given twice would be tortured twice: refused, as run refuses it. Returns 0 or 2. */
static int torture_unique(const struct torture_args *a)
{
	const char *twice;

	if ((twice = lab_cli_repeat(a->locks[0].label, sizeof(a->locks[0]), a->nlocks))) {
		fprintf(stderr, "%s: lock variant '%s' given twice in -l (each variant is tortured once)\n", prog, twice);
		return 2;
	}
	if ((twice = lab_cli_repeat(a->schemes[0].label, sizeof(a->schemes[0]), a->nschemes))) {
		fprintf(stderr, "%s: lazy-mm scheme '%s' given twice in -m (each scheme is tortured once)\n", prog,
			twice);
		return 2;
	}
	return 0;
}

/* The options and their defaults (every allowed CPU a reader and a writer). Returns 0 or 2. */
static int torture_parse(struct torture_args *a, int argc, char **argv)
{
	long ncpus = lab_topology_init();
	bool *drop = calloc((size_t)argc + 1, sizeof(*drop));
	char err[1024];
	int st;

	a->o = (struct lab_torture_opts){ .duration_ns = LAB_SIM ? TORTURE_SIM_DURATION_NS : TORTURE_DURATION_NS,
					  .hold_loops = 20, .think_loops = 20,
					  .trylock = true, .downgrade = true };
	ncpus = ncpus < 1 ? 1 : ncpus;
	a->o.readers = a->o.writers = (int)(ncpus < MAX_THREADS_PER_ROLE ? ncpus : MAX_THREADS_PER_ROLE);
	for (int i = 1; i < argc && !LAB_SIM; i++)	/* -l may come before --sim: its lists are the simulator's */
		if (!strcmp(argv[i], "--sim") || !strncmp(argv[i], "--sim=", 6))
			lab_rwsem_sim_names(true);
	st = drop ? torture_options(a, argc, argv, drop) : 2;
	if (!st && a->o.readers + a->o.writers == 0) {
		fprintf(stderr, "%s: --readers 0 and --writers 0: no thread to torture with\n", prog);
		st = 2;
	}
	if (!st && !a->nlocks && !a->nschemes) {
		a->all_locks = true;
		if (lab_rwsem_parse_list("all", a->locks, MAX_LOCKS, &a->nlocks, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			st = 2;
		}
	}
	if (!st)
		st = torture_unique(a);
	if (!st && LAB_SIM && a->all_locks)	/* as run --sim says it, in rwlab-sim: the machine was found */
		torture_sim_all_line();
	if (!st && a->sim && !LAB_SIM) {	/* the front: rwlab-sim runs the torture */
		st = torture_sim_exec(a, argc, argv, drop);
		a->sim_ran = true;
	}
	free(drop);
	return st;
}

/* One more failed variant: counted, and its name (with @why, "" or " (stall)") added to the summary's list. */
static void note_failed(char *names, size_t len, int *failed, const char *tag, const char *why)
{
	size_t used = strlen(names);

	snprintf(names + used, len - used, "%s%s%s", ++*failed > 1 ? ", " : "", tag, why);
}

/* "2 variants", "1 scheme", "3 variants and 2 schemes": what the closing line counts. */
static void tried_what(char *buf, size_t len, int nlocks, int nschemes)
{
	int n = 0;

	if (nlocks || !nschemes)
		n = snprintf(buf, len, "%d variant%s", nlocks, nlocks == 1 ? "" : "s");
	if (nschemes && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s%d scheme%s", n ? " and " : "", nschemes, nschemes == 1 ? "" : "s");
}

/* Why variant @l is not tortured here (the line that says so), or NULL. */
static const char *skip_why(const struct lab_rwsem_conf *l)
{
	if (!(l->ops->caps & LAB_CAP_EXCLUSION))
		return "skipped: the variant claims no exclusion";
	if (LAB_SANITIZE_THREAD && lab_rwsem_conf_foreign_atomics(l))
		return "skipped under ThreadSanitizer: it synchronises through atomics TSan cannot see (ck_pr inline "
		       "assembly), so TSan would report false races";
	return NULL;
}

/* What a torture run has done so far (the closing lines). */
struct torture_tally {
	int locks, schemes;		/* tried to the end: a verdict, a setup error or a stall */
	int failed, stalled;		/* stalled: the index of the stalled variant, or -1 */
	int all;			/* variants and schemes to torture (skipped ones not counted) */
	const char *cut;		/* a signal ended this one before its verdict, or NULL */
	int next_lock, next_scheme;	/* the first not run */
	bool warned;			/* the oversubscription line */
	char failed_names[512];
};

/* The line of an interrupted torture (Ctrl-C, SIGTERM), after the finished ones' summary. */
static void say_interrupted(const struct torture_tally *t, const struct torture_args *a)
{
	int n = 0, nl = t->all - a->nschemes;
	char what[64];

	tried_what(what, sizeof(what), nl, a->nschemes);
	fprintf(stderr, "%s: interrupted after %d of %s%s%s%s", prog, t->locks + t->schemes, what,
		t->cut ? "; " : "", t->cut ? t->cut : "", t->cut ? " was cut short (no verdict)" : "");
	for (int i = t->next_scheme; i < a->nschemes; i++)
		fprintf(stderr, "%s %s", n++ ? "," : "; not run:", a->schemes[i].label);
	for (int i = t->next_lock; i < a->nlocks; i++)
		if (!skip_why(&a->locks[i]))
			fprintf(stderr, "%s %s", n++ ? "," : "; not run:", a->locks[i].label);
	fprintf(stderr, "\n");
}

/* Torture the lazy-mm schemes of @a, until a signal cuts one short. */
static void torture_schemes(const struct torture_args *a, struct torture_tally *t)
{
	for (int i = 0; i < a->nschemes; i++) {
		int r = torture_lazy(a->schemes[i].label, a->o.duration_ns);

		t->next_scheme = i + 1;
		if (r > 0) {
			t->cut = a->schemes[i].label;
			return;
		}
		t->schemes++;
		if (r)
			note_failed(t->failed_names, sizeof(t->failed_names), &t->failed, a->schemes[i].label, "");
	}
}

/*
 * Torture lock variant @i of @a. Returns 0 when it ran to its verdict (or
 * was skipped), 1 when a signal cut it short (and it had not failed: a
 * failure found before the signal stands), -1 on a stall (the variants
 * after it cannot run).
 */
static int torture_variant(const struct torture_args *a, int i, struct torture_tally *t)
{
	struct torture_print p = { a->locks[i].label, &a->o, a->verbose, a->events };
	static struct lab_torture_thread threads[2 * MAX_THREADS_PER_ROLE];
	struct lab_torture_opts o = a->o;
	struct lab_torture_result r;
	long ncpus = lab_topology_init();
	char cpus[32];
	int rc;

	if (skip_why(&a->locks[i])) {
		printf("%s-torture: %s\n", p.tag, skip_why(&a->locks[i]));
		return 0;
	}
	t->next_lock = i + 1;
	if (!t->warned && o.readers + o.writers > ncpus)
		fprintf(stderr, "%s: %d threads on %s: oversubscribed (as locktorture's defaults "
			"are); spinning variants slow down when a holder is preempted\n", prog,
			o.readers + o.writers, lab_fmt_ncpus(ncpus, cpus, sizeof(cpus)));
	t->warned = true;
	o.lock = &a->locks[i];
	o.threads = threads;
	o.stat = print_stats;
	o.stat_arg = &p;
	o.stop = LAB_SIM ? NULL : lab_stop_signal;
	p.o = &o;
	print_params(&o, p.tag, "Start of test");
	fflush(stdout);
	rc = lab_torture_run(&o, &r);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", prog, p.tag, strerror(-rc));
		note_failed(t->failed_names, sizeof(t->failed_names), &t->failed, p.tag, "");
		t->locks++;
		return 0;
	}
	if (r.stalled) {
		print_stall(&p, &r);
		note_failed(t->failed_names, sizeof(t->failed_names), &t->failed, p.tag, " (stall)");
		t->stalled = i;
		t->locks++;
		return -1;
	}
	if (lab_stop_signal() && !lab_torture_failed(&r)) {
		t->cut = p.tag;
		return 1;
	}
	print_final(&p, &r);
	print_params(&o, p.tag, lab_torture_failed(&r) ? "End of test: FAILURE" : "End of test: SUCCESS");
	if (lab_torture_failed(&r))
		note_failed(t->failed_names, sizeof(t->failed_names), &t->failed, p.tag, "");
	t->locks++;
	fflush(stdout);
	return 0;
}

/* The closing line: what was tried and what failed. */
static void summary(const struct torture_tally *t)
{
	char what[64];

	tried_what(what, sizeof(what), t->locks, t->schemes);
	if (t->failed)
		printf("rwlab torture: FAILURE: %d of %s failed: %s\n", t->failed, what, t->failed_names);
	else
		printf("rwlab torture: SUCCESS: %s\n", what);
	fflush(stdout);
}

/* A stall: the variants after it not run, and the process ends (the stuck threads cannot be joined). */
static __attribute__((noreturn)) void end_stalled(const struct torture_tally *t, const struct torture_args *a)
{
	/* The stuck threads still run: no join, no exit handlers, no leak check of what they use. */
	if (t->stalled + 1 < a->nlocks) {
		printf("rwlab torture: not run after the stall:");
		for (int k = t->stalled + 1; k < a->nlocks; k++)
			printf(" %s", a->locks[k].label);
		printf("\n");
	}
	fflush(NULL);
	_exit(1);
}

static int cmd_torture(int argc, char **argv)
{
	static struct torture_args a;
	struct torture_tally t = { .stalled = -1 };
	int st;

	if ((st = torture_parse(&a, argc, argv)) || a.sim_ran)
		return st;
	t.all = a.nschemes;
	for (int k = 0; k < a.nlocks; k++)
		t.all += !skip_why(&a.locks[k]);
	if (!LAB_SIM)	/* Ctrl-C ends the variant in progress: the finished ones are summed up */
		lab_stop_install();
	/* Lazy-mm schemes first: each runs in a child, before this process starts any liburcu thread. */
	torture_schemes(&a, &t);
	for (int i = 0; i < a.nlocks && !t.cut && !lab_stop_signal() && t.stalled < 0; i++)
		torture_variant(&a, i, &t);
	if (!t.locks && !t.schemes && !lab_stop_signal()) {
		fprintf(stderr, "%s: nothing to torture: every variant given was skipped\n", prog);
		return 2;
	}
	if (t.locks || t.schemes)
		summary(&t);
	if (t.stalled >= 0)
		end_stalled(&t, &a);
	if (lab_stop_signal()) {
		say_interrupted(&t, &a);
		return 130;
	}
	return t.failed ? 1 : 0;
}

const struct lab_cmd lab_torture_cmd = {
	.name = "torture",
	.synopsis = "[options]",
	.summary = "locktorture: exclusion checks under load, per variant",
	.opts = torture_opts,
	.fn = cmd_torture,
};
