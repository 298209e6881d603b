/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * owner_on_cpu() and need_resched() from real signals (locks/wait.h):
 * - an owner blocked outside rwlab's futexes (here in read(2) on a pipe) is
 *   seen off CPU by the CPU-clock sampling, and not by the futex flag alone
 *   (the discrepancy fixed: a preempted or blocked owner looked on CPU);
 * - an owner that burns CPU is seen on CPU at some sample;
 * - need_resched() turns true once the spinner has been preempted (two
 *   CPU-bound threads pinned to one CPU);
 * - rwsem-xadd, rwsem-rspin and rwsem: a writer that finds the write owner
 *   blocked stops spinning at once (spin_ns stays far below the hold).
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
static int polls_until_off(const struct lab_task *t, bool clock, int max)
{
	lab_spin_start(0, clock);
	for (int i = 1; i <= max; i++) {
		if (!owner_on_cpu(t))
			return i;
		cpu_relax();
	}
	return -1;
}

Test(owner_on_cpu, blocked_owner_is_off_cpu, .timeout = 30)
{
	struct blocker b;
	struct lab_task *t = blocker_start(&b, NULL);
	int n;

	cr_assert_eq(lab_task_on_cpu(t), 1, "the futex flag says off CPU outside a futex wait");
	n = polls_until_off(t, true, 4 * LAB_SPIN_SAMPLE_POLLS);
	cr_expect(n > 0 && n <= 2 * LAB_SPIN_SAMPLE_POLLS + 1,
		  "oncpu=clock: a blocked owner still looked on CPU after %d polls", n);
	/* The ablation cannot see it: that is the discrepancy fixed. */
	cr_expect_eq(polls_until_off(t, false, 1000), -1, "oncpu=flag saw a non-futex block");
	blocker_stop(&b);
}

struct burner {
	pthread_t tid;
	struct lab_task *task;
	int stop;
};

static void *burner_main(void *arg)
{
	struct burner *b = arg;

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
	/* One watch; every LAB_SPIN_SAMPLE_POLLS-th call after the first reads its clock. */
	lab_spin_start(0, true);
	owner_on_cpu(t);
	for (int i = 1; i <= 200 * LAB_SPIN_SAMPLE_POLLS && !on; i++) {
		int r = owner_on_cpu(t);

		lab_delay(200);
		if (i % LAB_SPIN_SAMPLE_POLLS == 0) {
			samples++;
			on += r;
		}
	}
	__atomic_store_n(&b.stop, 1, __ATOMIC_RELAXED);
	pthread_join(b.tid, NULL);
	cr_expect_gt(on, 0, "a CPU-bound owner looked off CPU at all %d samples", samples);
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
	lab_spin_start(0, true);
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
	/* It spun at most a few samples' worth, then slept the rest of the hold. */
	cr_expect_lt(spin, (uint64_t)HOLD_MS * 1000000u / 10,
		     "%s: the writer spun %.1f ms of a %d ms hold by a blocked owner", spec, spin / 1e6, HOLD_MS);
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
