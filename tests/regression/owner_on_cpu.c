/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * owner_on_cpu() and need_resched() from real signals (locks/wait.h):
 * - an owner blocked outside rwlab's futexes (here in read(2) on a pipe or
 *   in nanosleep) is seen off CPU at the very first call, by the switch
 *   ring (oncpu=switch) and by the clock's two-read first sample
 *   (oncpu=clock): the first sample of a new owner is never optimistic. The
 *   futex flag alone (oncpu=flag) does not see it;
 * - an owner that burns CPU is seen on CPU;
 * - need_resched() turns true once the spinner has been preempted (two
 *   CPU-bound threads pinned to one CPU);
 * - rwsem-xadd, rwsem-rspin and rwsem: a writer that finds the write owner
 *   blocked does not spin (rspin and rwsem refuse before spinning: spin_ns
 *   0; xadd's spin_ns counts only its refusal);
 * - OWNER_NULL: a held lock that names no owner (a writer stuck in its
 *   count-then-owner window) is spun on for about LAB_OWNER_NULL_SPIN_NS,
 *   then the writer sleeps; rwsem's head writer, after requesting the
 *   handoff, retries on OWNER_NULL only that long and then sleeps, killably.
 */
#include <sched.h>
#include <unistd.h>

#include "common.h"
#include "config.h"
#include "events.h"

struct blocker {
	pthread_t tid;
	int pipe[2];
	const struct lab_lock *lock;	/* NULL: just block */
	struct lab_task *task;
	int blocked;
};

/* Attach, take the write lock if asked, then block in read() until poked. */
static void *blocker_main(void *arg)
{
	struct blocker *b = arg;
	char c;

	if (b->lock)
		lab_down_write(b->lock);
	__atomic_store_n(&b->task, lab_current(), __ATOMIC_RELEASE);
	__atomic_store_n(&b->blocked, 1, __ATOMIC_RELEASE);
	while (read(b->pipe[0], &c, 1) < 0)
		;
	if (b->lock)
		lab_up_write(b->lock);
	return NULL;
}

static struct lab_task *blocker_start(struct blocker *b, const struct lab_lock *l)
{
	memset(b, 0, sizeof(*b));
	b->lock = l;
	cr_assert_eq(pipe(b->pipe), 0);
	cr_assert_eq(pthread_create(&b->tid, NULL, blocker_main, b), 0);
	while (!__atomic_load_n(&b->blocked, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	lab_sleep_ns(20000000);		/* well inside read() by now */
	return __atomic_load_n(&b->task, __ATOMIC_ACQUIRE);
}

static void blocker_stop(struct blocker *b)
{
	cr_assert_eq(write(b->pipe[1], "x", 1), 1);
	pthread_join(b->tid, NULL);
	close(b->pipe[0]);
	close(b->pipe[1]);
}

/* Polls of owner_on_cpu(@t) until it first says 0, at most @max. */
static int polls_until_off(const struct lab_task *t, int oncpu, int max)
{
	lab_spin_start(0, oncpu);
	for (int i = 1; i <= max; i++) {
		if (!owner_on_cpu(t))
			return i;
		cpu_relax();
	}
	return -1;
}

Test(owner_on_cpu, blocked_owner_is_off_cpu_at_first_sample, .timeout = 30)
{
	struct blocker b;
	struct lab_task *t = blocker_start(&b, NULL);

	cr_assert_eq(lab_task_on_cpu(t), 1, "the futex flag says off CPU outside a futex wait");
	if (lab_switch_ring_status())
		cr_log_warn("no switch rings here (%s): oncpu=switch is the clock", lab_switch_ring_status());
	cr_expect_eq(polls_until_off(t, LAB_ONCPU_SWITCH, 1000), 1,
		     "oncpu=switch: a blocked owner did not read off CPU at the first call");
	cr_expect_eq(polls_until_off(t, LAB_ONCPU_CLOCK, 1000), 1,
		     "oncpu=clock: the first sample of a blocked owner was optimistic");
	/* The old stand-in cannot see it. */
	cr_expect_eq(polls_until_off(t, LAB_ONCPU_FLAG, 1000), -1, "oncpu=flag saw a non-futex block");
	blocker_stop(&b);
}

static int nap_ready;

static void *napper_main(void *arg)
{
	struct lab_task **t = arg;

	__atomic_store_n(t, lab_current(), __ATOMIC_RELEASE);
	lab_sleep_ns(300000000);	/* clock_nanosleep */
	__atomic_store_n(&nap_ready, 1, __ATOMIC_RELEASE);
	return NULL;
}

Test(owner_on_cpu, nanosleeping_owner_is_off_cpu_at_first_sample, .timeout = 30)
{
	struct lab_task *t = NULL;
	pthread_t tid;

	cr_assert_eq(pthread_create(&tid, NULL, napper_main, &t), 0);
	while (!__atomic_load_n(&t, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	lab_sleep_ns(50000000);		/* well inside its nanosleep */
	cr_expect_eq(polls_until_off(t, LAB_ONCPU_SWITCH, 1000), 1,
		     "oncpu=switch: an owner in nanosleep did not read off CPU at the first call");
	cr_expect_eq(polls_until_off(t, LAB_ONCPU_CLOCK, 1000), 1,
		     "oncpu=clock: the first sample of an owner in nanosleep was optimistic");
	cr_expect_eq(__atomic_load_n(&nap_ready, __ATOMIC_ACQUIRE), 0, "the nap ended before the checks");
	pthread_join(tid, NULL);
}

struct burner {
	pthread_t tid;
	struct lab_task *task;
	int stop;
};

static void *burner_main(void *arg)
{
	struct burner *b = arg;

	lab_test_pin_nth_allowed(1);	/* owner and watcher on two CPUs (common.h) */
	__atomic_store_n(&b->task, lab_current(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&b->stop, __ATOMIC_RELAXED))
		cpu_relax();
	return NULL;
}

Test(owner_on_cpu, running_owner_is_on_cpu, .timeout = 30)
{
	struct burner b = { 0 };
	struct lab_task *t;
	int on = 0, samples = 0;

	cr_assert_eq(pthread_create(&b.tid, NULL, burner_main, &b), 0);
	while (!(t = __atomic_load_n(&b.task, __ATOMIC_ACQUIRE)))
		lab_sleep_ns(100000);
	lab_test_pin_nth_allowed(0);	/* the burner took the second */
	/* Each signal, fresh watches: a running owner reads on CPU at some call (the host may preempt it). */
	for (int mode = LAB_ONCPU_SWITCH; mode <= LAB_ONCPU_CLOCK; mode++) {
		on = 0;
		samples = 0;
		uint64_t end = lab_clock_ns() + 5000000000ull;	/* a loaded host may run it late */

		while (!on && lab_clock_ns() < end) {
			lab_spin_start(0, mode);
			samples++;
			on += owner_on_cpu(t);
			lab_delay(200);
		}
		cr_expect_gt(on, 0, "oncpu=%s: a CPU-bound owner looked off CPU at all %d first samples",
			     mode == LAB_ONCPU_SWITCH ? "switch" : "clock", samples);
	}
	__atomic_store_n(&b.stop, 1, __ATOMIC_RELAXED);
	pthread_join(b.tid, NULL);
}

/* ---- need_resched(): two CPU-bound threads on one CPU ------------------- */

struct resched_arg {
	int polls_to_resched;	/* -1: never */
	int done;
};

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	cr_assert_eq(sched_setaffinity(0, sizeof(set), &set), 0);
}

static void *hog_main(void *arg)
{
	struct resched_arg *a = arg;

	pin_cpu0();
	while (!__atomic_load_n(&a->done, __ATOMIC_RELAXED))
		cpu_relax();
	return NULL;
}

Test(owner_on_cpu, need_resched_after_preemption, .timeout = 30)
{
	struct resched_arg a = { .polls_to_resched = -1 };
	uint64_t end;
	pthread_t hog;
	int i = 0;

	pin_cpu0();
	cr_assert_eq(pthread_create(&hog, NULL, hog_main, &a), 0);
	lab_spin_start(0, LAB_ONCPU_SWITCH);
	end = lab_clock_ns() + 3000000000ull;
	while (lab_clock_ns() < end) {
		i++;
		if (need_resched()) {
			a.polls_to_resched = i;
			break;
		}
		lab_delay(50);
	}
	__atomic_store_n(&a.done, 1, __ATOMIC_RELAXED);
	pthread_join(hog, NULL);
	cr_expect_gt(a.polls_to_resched, 0, "sharing a CPU for 3 s, need_resched() never turned true");
}

/* ---- the ports: no spinning on a blocked write owner --------------------- */

struct writer {
	pthread_t tid;
	const struct lab_lock *lock;
	int acquired;
	struct lab_events ev;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	lab_events_reset();
	lab_down_write(w->lock);
	__atomic_store_n(&w->acquired, 1, __ATOMIC_RELEASE);
	lab_up_write(w->lock);
	lab_events_snapshot(&w->ev);
	return NULL;
}

static void no_spin_on_blocked_owner(const char *spec)
{
	enum { HOLD_MS = 200 };
	struct lab_lock l;
	struct blocker b;
	struct writer w = { 0 };
	uint64_t spin;

	if (!LAB_EVENT_COUNTS)
		cr_skip_test("built with -Devent_counts=false");
	lab_test_lock(&l, spec);
	blocker_start(&b, &l);
	w.lock = &l;
	cr_assert_eq(pthread_create(&w.tid, NULL, writer_main, &w), 0);
	lab_sleep_ns((uint64_t)HOLD_MS * 1000000u);
	cr_expect_not(__atomic_load_n(&w.acquired, __ATOMIC_ACQUIRE), "%s: the writer got in under a write hold",
		      spec);
	blocker_stop(&b);
	pthread_join(w.tid, NULL);
	spin = w.ev.count[LAB_EV_spin_ns];
	/*
	 * The first sample already says off CPU: rspin and rwsem refuse before
	 * spinning (no spin_ns at all); xadd times its refusal too (a few
	 * calls; 1 ms leaves room for a preemption of the writer in between).
	 */
	if (strcmp(spec, "rwsem-xadd"))
		cr_expect_eq(spin, 0, "%s: the writer spun %.3f ms against a blocked owner", spec, spin / 1e6);
	else
		cr_expect_lt(spin, 1000000u, "%s: the writer spun %.3f ms against a blocked owner", spec,
			     spin / 1e6);
	cr_expect_geq(w.ev.count[LAB_EV_rwsem_sleep_writer], 1, "%s: the writer never slept", spec);
	lab_lock_destroy(&l);
}

Test(owner_on_cpu, xadd_no_spin_on_blocked_owner, .timeout = 30)
{
	no_spin_on_blocked_owner("rwsem-xadd");
}

Test(owner_on_cpu, rspin_no_spin_on_blocked_owner, .timeout = 30)
{
	no_spin_on_blocked_owner("rwsem-rspin");
}

Test(owner_on_cpu, mainline_no_spin_on_blocked_owner, .timeout = 30)
{
	no_spin_on_blocked_owner("rwsem");
}

/* ---- OWNER_NULL: a held lock that names no owner ------------------------- */

struct nuller {
	pthread_t tid;
	const struct lab_lock *lock;
	bool killable;
	int ret;
	struct lab_task *task;
	struct lab_events ev;
};

static void *nuller_main(void *arg)
{
	struct nuller *n = arg;

	lab_events_reset();
	__atomic_store_n(&n->task, lab_current(), __ATOMIC_RELEASE);
	if (n->killable) {
		n->ret = lab_down_write_killable(n->lock);
		lab_clear_fatal_signal();
	} else {
		lab_down_write(n->lock);
	}
	if (!n->ret)
		lab_up_write(n->lock);
	lab_events_snapshot(&n->ev);
	return NULL;
}

/*
 * rwsem with the count write-locked and the owner word NULL (a writer
 * preempted between its cmpxchg and its owner store): a contending writer
 * spins on OWNER_NULL for about LAB_OWNER_NULL_SPIN_NS and sleeps. With
 * handoff_timeout_us=0 it requests the handoff at once, so the head
 * writer's OWNER_NULL retries (v6.3 rwsem.c:1170-1181) run too. Returns
 * the waiter after it went to sleep (its on_cpu flag 0) or 2 s passed.
 */
static bool nuller_sleeps(struct lab_lock *l, struct nuller *n, bool killable)
{
	struct rwsem_ml_peek { long count; unsigned long owner; } *sem = (void *)l->sem;
	uint64_t end;

	lab_test_lock(l, "rwsem:handoff_timeout_us=0");
	sem = (void *)l->sem;
	__atomic_store_n(&sem->count, 1L, __ATOMIC_SEQ_CST);	/* RWSEM_WRITER_LOCKED, owner 0 */
	memset(n, 0, sizeof(*n));
	n->lock = l;
	n->killable = killable;
	cr_assert_eq(pthread_create(&n->tid, NULL, nuller_main, n), 0);
	while (!__atomic_load_n(&n->task, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	end = lab_clock_ns() + 2000000000ull;
	while (lab_task_on_cpu(n->task) && lab_clock_ns() < end)
		lab_sleep_ns(20000000);	/* seldom: our wakeups would preempt the spinner */
	if (lab_task_on_cpu(n->task))
		return false;
	/* Past its (jiffies) timeout, wake it: it requests the handoff, then retries on OWNER_NULL. */
	lab_sleep_ns(20000000);
	wake_up_process(n->task);
	while (!(__atomic_load_n(&sem->count, __ATOMIC_SEQ_CST) & 4) && lab_clock_ns() < end)	/* HANDOFF */
		lab_sleep_ns(20000000);	/* seldom: our wakeups would preempt the spinner */
	while (lab_task_on_cpu(n->task) && lab_clock_ns() < end)
		lab_sleep_ns(20000000);	/* seldom: our wakeups would preempt the spinner */
	return !lab_task_on_cpu(n->task);
}

Test(owner_on_cpu, owner_null_spin_is_bounded, .timeout = 30)
{
	struct lab_lock l;
	struct nuller n;
	struct { long count; unsigned long owner; } *sem;
	bool slept;

	if (!LAB_EVENT_COUNTS)
		cr_skip_test("built with -Devent_counts=false");
	slept = nuller_sleeps(&l, &n, false);
	/* The "preempted writer" finishes its window and unlocks. */
	sem = (void *)l.sem;
	__atomic_store_n(&sem->owner, (unsigned long)lab_current(), __ATOMIC_SEQ_CST);
	lab_up_write(&l);
	pthread_join(n.tid, NULL);
	cr_expect(slept, "a writer spun on OWNER_NULL for 2 s instead of sleeping");
	cr_expect_geq(n.ev.count[LAB_EV_rwsem_wlock_handoff], 1, "the head writer never requested the handoff");
	cr_expect_geq(n.ev.count[LAB_EV_rwsem_sleep_writer], 1, "the writer never slept");
	/*
	 * Two OWNER_NULL runs of 10 us each; 2 ms leaves room for a preemption
	 * inside one, and is below a timeslice (0.75-3 ms), which is how long
	 * an unbounded spin lasts at best here (until the spinner is preempted).
	 */
	cr_expect_lt(n.ev.count[LAB_EV_spin_ns], 2000000u, "the writer spun %.3f ms on OWNER_NULL",
		     n.ev.count[LAB_EV_spin_ns] / 1e6);
	lab_lock_destroy(&l);
}

Test(owner_on_cpu, owner_null_head_writer_is_killable, .timeout = 30)
{
	struct lab_lock l;
	struct nuller n;
	struct { long count; unsigned long owner; } *sem;
	uint64_t t0;

	cr_expect(nuller_sleeps(&l, &n, true), "a killable writer spun on OWNER_NULL for 2 s");
	t0 = lab_clock_ns();
	lab_send_fatal_signal(n.task);
	pthread_join(n.tid, NULL);
	cr_expect_eq(n.ret, -EINTR, "down_write_killable returned %d after a fatal signal", n.ret);
	cr_expect_lt(lab_clock_ns() - t0, 1000000000ull, "the killed writer took %.1f ms to leave",
		     (lab_clock_ns() - t0) / 1e6);
	sem = (void *)l.sem;
	__atomic_store_n(&sem->owner, (unsigned long)lab_current(), __ATOMIC_SEQ_CST);
	lab_up_write(&l);
	lab_lock_destroy(&l);
}
