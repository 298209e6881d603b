/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwsem-xadd mechanisms (locks/rwsem_xadd.c, Linux v4.20 rwsem-xadd):
 * - no lost wakeup: readers and writers asleep behind a long write hold all
 *   get the lock after up_write, and each really slept;
 * - downgrade_write grants the reader at the head while a queued writer waits;
 * - only the FIFO run of readers at the head is woken: a reader queued behind
 *   a writer stays asleep until that writer has had the lock;
 * - writer optimistic spinning fires with wspin=1 and never with wspin=0;
 * - a reader owner stops a writer from spinning (readers are not spun on);
 * - a spinning writer steals the lock from a woken queued writer.
 * Waiters are ordered by waiting until each one is queued (a test-only
 * accessor counts the wait list) and asleep (its task is off CPU in
 * schedule()) before the next one starts.
 */
#include "common.h"
#include "config.h"
#include "events.h"
#include "rwsem_xadd.h"

#define WAKE_MS 5000		/* "completes" = within this long */
#define BLOCK_MS 150		/* "does not complete" = not within this long */

/* Count states from the layout in rwsem_xadd.c (64-bit). */
#define WAITING_BIAS	(-0x100000000L)
#define ACTIVE_WRITE_BIAS (WAITING_BIAS + 1)

static uint64_t order_seq;	/* acquisition order across threads */

/* A thread that takes the lock once, records when, holds until released. */
struct xt {
	pthread_t tid;
	const struct lab_lock *lock;
	bool write;
	int hold_ms;		/* > 0: release by itself after this long; 0: wait for `release` */
	struct lab_task *task;	/* published once running */
	int acquired, release, done;
	uint64_t seq;		/* position in order_seq */
	struct lab_events ev;	/* this thread's events, snapshot at the end */
};

static void *xt_main(void *arg)
{
	struct xt *t = arg;

	lab_events_reset();
	__atomic_store_n(&t->task, lab_current(), __ATOMIC_RELEASE);
	if (t->write)
		lab_down_write(t->lock);
	else
		lab_down_read(t->lock);
	t->seq = __atomic_fetch_add(&order_seq, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t->acquired, 1, __ATOMIC_RELEASE);
	if (t->hold_ms > 0)
		lab_sleep_ns((uint64_t)t->hold_ms * 1000000u);
	else
		while (!__atomic_load_n(&t->release, __ATOMIC_ACQUIRE))
			lab_sleep_ns(200000);
	if (t->write)
		lab_up_write(t->lock);
	else
		lab_up_read(t->lock);
	lab_events_snapshot(&t->ev);
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void xt_start(struct xt *t, const struct lab_lock *l, bool write, int hold_ms)
{
	memset(t, 0, sizeof(*t));
	t->lock = l;
	t->write = write;
	t->hold_ms = hold_ms;
	cr_assert_eq(pthread_create(&t->tid, NULL, xt_main, t), 0);
}

static int load_int(int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Asleep: in schedule(), off CPU in its futex wait. */
static bool xt_asleep(struct xt *t)
{
	struct lab_task *task = __atomic_load_n(&t->task, __ATOMIC_ACQUIRE);

	return task && __atomic_load_n(&task->state, __ATOMIC_ACQUIRE) == TASK_UNINTERRUPTIBLE &&
	       __atomic_load_n(&task->on_cpu, __ATOMIC_ACQUIRE) == 0;
}

/* Wait up to @ms for @n waiters on the list, all of @ts asleep. */
static bool wait_queued(const struct lab_lock *l, int n, struct xt **ts, int nts, int ms)
{
	for (int i = 0; i <= ms; i++) {
		bool ok = rwsem_xadd_nr_waiters(l->sem) == n;

		for (int k = 0; ok && k < nts; k++)
			ok = xt_asleep(ts[k]);
		if (ok)
			return true;
		lab_sleep_ns(1000000);
	}
	return false;
}

/* Wait up to @ms for *@flag to become 1. */
static bool wait_flag(int *flag, int ms)
{
	for (int i = 0; i <= ms; i++) {
		if (load_int(flag))
			return true;
		lab_sleep_ns(1000000);
	}
	return false;
}

static void xt_release(struct xt *t)
{
	__atomic_store_n(&t->release, 1, __ATOMIC_RELEASE);
}

static void xt_join(struct xt *t)
{
	cr_assert(wait_flag(&t->done, WAKE_MS), "a %s thread never finished", t->write ? "writer" : "reader");
	pthread_join(t->tid, NULL);
}

static void need_events(void)
{
	if (!LAB_EVENT_COUNTS)
		cr_skip_test("built with -Devent_counts=false");
}

/* Queue @t (start it and wait until it is the @n-th waiter and asleep). */
static void queue_hold(struct xt *t, const struct lab_lock *l, bool write, int n, int hold_ms)
{
	xt_start(t, l, write, hold_ms);
	cr_assert(wait_queued(l, n, &t, 1, WAKE_MS), "waiter %d (%s) did not queue and sleep", n,
		  write ? "writer" : "reader");
}

static void queue_one(struct xt *t, const struct lab_lock *l, bool write, int n)
{
	queue_hold(t, l, write, n, 0);
}

/* (1) No lost wakeup: 3 readers + 3 writers asleep behind a write hold all get in. */
Test(rwsem_xadd, no_lost_wakeup, .timeout = 60)
{
	enum { N = 6, ROUNDS = 3 };
	struct lab_lock l;

	need_events();
	lab_test_lock(&l, "rwsem-xadd");
	for (int round = 0; round < ROUNDS; round++) {
		struct xt t[N], *tp[N];

		lab_down_write(&l);
		for (int i = 0; i < N; i++) {
			/* r, w, r, w, ... in round 0; w, r, ... next; the queue order varies. */
			xt_start(&t[i], &l, (i + round) & 1, 2);
			tp[i] = &t[i];
		}
		cr_assert(wait_queued(&l, N, tp, N, WAKE_MS), "round %d: not all %d waiters queued and asleep",
			  round, N);
		cr_expect_eq(rwsem_xadd_count(l.sem), ACTIVE_WRITE_BIAS + WAITING_BIAS,
			     "round %d: count %#lx, expected one writer active with waiters", round,
			     (unsigned long)rwsem_xadd_count(l.sem));
		for (int i = 0; i < N; i++)
			cr_expect_not(load_int(&t[i].acquired), "round %d: waiter %d got in under a write hold",
				      round, i);
		lab_up_write(&l);
		for (int i = 0; i < N; i++)
			xt_join(&t[i]);
		for (int i = 0; i < N; i++) {
			if (t[i].write) {
				cr_expect_geq(t[i].ev.count[LAB_EV_rwsem_sleep_writer], 1,
					      "round %d: writer %d never slept", round, i);
				cr_expect_eq(t[i].ev.count[LAB_EV_rwsem_wlock], 1,
					     "round %d: writer %d not counted as a wait-list acquisition", round, i);
			} else {
				cr_expect_geq(t[i].ev.count[LAB_EV_rwsem_sleep_reader], 1,
					      "round %d: reader %d never slept", round, i);
			}
		}
		cr_expect_eq(rwsem_xadd_count(l.sem), 0, "round %d: count %#lx after all left", round,
			     (unsigned long)rwsem_xadd_count(l.sem));
		cr_expect_eq(rwsem_xadd_nr_waiters(l.sem), 0);
	}
	lab_lock_destroy(&l);
}

/* (2) downgrade_write wakes the reader at the head; the writer behind it waits. */
Test(rwsem_xadd, downgrade_wakes_reader_not_writer, .timeout = 60)
{
	struct lab_lock l;
	struct xt r, w;

	lab_test_lock(&l, "rwsem-xadd");
	lab_down_write(&l);
	queue_one(&r, &l, false, 1);
	queue_one(&w, &l, true, 2);

	lab_downgrade_write(&l);
	cr_assert(wait_flag(&r.acquired, WAKE_MS), "the queued reader did not get in after downgrade_write");
	/* We still hold read: two readers active, the writer queued. */
	cr_expect_eq(rwsem_xadd_count(l.sem), WAITING_BIAS + 2, "count %#lx",
		     (unsigned long)rwsem_xadd_count(l.sem));
	cr_expect_not(wait_flag(&w.acquired, BLOCK_MS), "the writer got in while we hold read");
	cr_expect_eq(rwsem_xadd_nr_waiters(l.sem), 1);

	lab_up_read(&l);
	cr_expect_not(wait_flag(&w.acquired, BLOCK_MS), "the writer got in while the reader holds read");
	xt_release(&r);
	cr_assert(wait_flag(&w.acquired, WAKE_MS), "the writer never got in after the readers left");
	cr_expect_lt(r.seq, w.seq);
	xt_release(&w);
	xt_join(&r);
	xt_join(&w);
	cr_expect_eq(rwsem_xadd_count(l.sem), 0);
	lab_lock_destroy(&l);
}

/* (3) Only the run of readers at the head is woken: R1 yes, R2 behind W no. */
Test(rwsem_xadd, wake_reader_prefix_only, .timeout = 60)
{
	struct lab_lock l;
	struct xt r1, w, r2;

	lab_test_lock(&l, "rwsem-xadd");
	lab_down_write(&l);
	queue_one(&r1, &l, false, 1);
	queue_one(&w, &l, true, 2);
	queue_one(&r2, &l, false, 3);

	lab_up_write(&l);
	cr_assert(wait_flag(&r1.acquired, WAKE_MS), "the head reader was not granted the lock");
	cr_expect_not(wait_flag(&r2.acquired, BLOCK_MS), "a reader queued behind a writer was woken too");
	cr_expect_not(load_int(&w.acquired), "the writer got in while a reader holds the lock");
	cr_expect_eq(rwsem_xadd_nr_waiters(l.sem), 2);
	cr_expect_eq(rwsem_xadd_count(l.sem), WAITING_BIAS + 1, "count %#lx",
		     (unsigned long)rwsem_xadd_count(l.sem));

	xt_release(&r1);
	cr_assert(wait_flag(&w.acquired, WAKE_MS), "the writer was not woken when the reader left");
	cr_expect_not(wait_flag(&r2.acquired, BLOCK_MS), "the second reader got in under the writer");
	xt_release(&w);
	cr_assert(wait_flag(&r2.acquired, WAKE_MS), "the second reader never got in");
	xt_release(&r2);
	xt_join(&r1);
	xt_join(&w);
	xt_join(&r2);
	cr_expect(r1.seq < w.seq && w.seq < r2.seq, "order R1 %lu, W %lu, R2 %lu", (unsigned long)r1.seq,
		  (unsigned long)w.seq, (unsigned long)r2.seq);
	cr_expect_eq(rwsem_xadd_count(l.sem), 0);
	lab_lock_destroy(&l);
}

/* ---- (4) optimistic spinning -------------------------------------------- */

struct spinner {
	pthread_t tid;
	int cpu;		/* the nth allowed CPU it runs on */
	const struct lab_lock *lock;
	uint64_t end_ns;
	int *stop;		/* shared: set once some thread has an opt_wlock */
	bool stop_early;
	uint64_t ops;
	struct lab_events ev;
};

static void *spinner_main(void *arg)
{
	struct spinner *s = arg;

	lab_test_pin_nth_allowed(s->cpu);
	lab_events_reset();
	while (lab_clock_ns() < s->end_ns && !__atomic_load_n(s->stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < 64; i++) {
			lab_down_write(s->lock);
			lab_delay(50);		/* a short write hold */
			lab_up_write(s->lock);
			lab_delay(50);
			s->ops++;
		}
		if (s->stop_early && lab_events_tls.count[LAB_EV_rwsem_opt_wlock])
			__atomic_store_n(s->stop, 1, __ATOMIC_RELAXED);
	}
	lab_events_snapshot(&s->ev);
	return NULL;
}

/* Two writers with short holds for up to @ms (@stop_early: until one spun and won). */
static void contend(const char *spec, int ms, bool stop_early, struct lab_events *sum)
{
	struct lab_lock l;
	struct spinner s[2];
	int stop = 0;
	uint64_t end = lab_clock_ns() + (uint64_t)(ms * lab_test_scale()) * 1000000u;

	lab_test_lock(&l, spec);
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < 2; i++) {
		s[i] = (struct spinner){ .lock = &l, .end_ns = end, .stop = &stop, .stop_early = stop_early,
				   .cpu = i };
		cr_assert_eq(pthread_create(&s[i].tid, NULL, spinner_main, &s[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(s[i].tid, NULL);
		lab_events_accumulate(sum, &s[i].ev);
		cr_expect_gt(s[i].ops, 0);
	}
	cr_expect_eq(rwsem_xadd_count(l.sem), 0);
	lab_lock_destroy(&l);
}

#define EV(sum, name) ((unsigned long)(sum).count[LAB_EV_##name])

Test(rwsem_xadd, optimistic_spin_fires, .timeout = 60)
{
	struct lab_events sum;

	need_events();
	/*
	 * The spin path itself, with the earlier stand-ins (futex flag, 100 us
	 * budget): with oncpu=clock a spinner rightly gives up whenever the other
	 * writer is preempted, which on a loaded 2-CPU machine can be every time.
	 * tests/regression/owner_on_cpu.c checks the default's detection.
	 * Up to 3 rounds of 3 s (each ends at the first spinning win): when
	 * the host runs both writers on one CPU for a whole round, every spin
	 * meets a descheduled owner and fails, as it should.
	 */
	for (int round = 0; round < 3; round++) {
		contend("rwsem-xadd:oncpu=flag,spin_budget_us=100", 3000, true, &sum);
		if (EV(sum, rwsem_opt_wlock))
			break;
		cr_log_info("round %d: no spinning win (opt_fail %lu wlock %lu)\n", round,
			    EV(sum, rwsem_opt_fail), EV(sum, rwsem_wlock));
	}
	cr_expect_gt(EV(sum, rwsem_opt_wlock), 0,
		     "wspin=1: no write lock taken by spinning (opt_fail %lu nospin %lu wlock %lu)",
		     EV(sum, rwsem_opt_fail), EV(sum, rwsem_opt_nospin), EV(sum, rwsem_wlock));
}

Test(rwsem_xadd, no_spin_when_disabled, .timeout = 60)
{
	struct lab_events sum;

	need_events();
	contend("rwsem-xadd:wspin=0", 300, false, &sum);
	cr_expect_eq(EV(sum, rwsem_opt_wlock), 0, "wspin=0 but %lu spinning acquisitions",
		     EV(sum, rwsem_opt_wlock));
	cr_expect_eq(EV(sum, rwsem_opt_fail) + EV(sum, rwsem_opt_nospin), 0, "wspin=0 but the spin code ran");
	/* The zero means something only if the writers did contend. */
	cr_expect_gt(EV(sum, rwsem_wlock), 0, "the two writers never contended (no wait-list acquisition)");
}

/* (5) A reader owner is not spun on: the writer queues at once and sleeps. */
Test(rwsem_xadd, no_spin_on_reader_owner, .timeout = 60)
{
	struct lab_lock l;
	struct xt w;

	need_events();
	lab_test_lock(&l, "rwsem-xadd");
	lab_down_read(&l);
	queue_one(&w, &l, true, 1);
	lab_up_read(&l);
	cr_assert(wait_flag(&w.acquired, WAKE_MS), "the writer never got in after up_read");
	xt_release(&w);
	xt_join(&w);
	/* v5.2 meanings: a refusal to spin is an opt_fail; opt_nospin is v5.3+. */
	cr_expect_geq(w.ev.count[LAB_EV_rwsem_opt_fail], 1, "the writer's refusal to spin was not counted");
	cr_expect_eq(w.ev.count[LAB_EV_rwsem_opt_nospin], 0, "rwsem_opt_nospin fired in the xadd generation");
	cr_expect_eq(w.ev.count[LAB_EV_rwsem_opt_wlock], 0);
	cr_expect_lt(w.ev.count[LAB_EV_spin_ns], 1000000, "the writer spun %lu ns on a reader owner",
		     (unsigned long)w.ev.count[LAB_EV_spin_ns]);
	cr_expect_geq(w.ev.count[LAB_EV_rwsem_sleep_writer], 1);
	cr_expect_eq(w.ev.count[LAB_EV_rwsem_wlock], 1);
	lab_lock_destroy(&l);
}

/*
 * (6) Writer stealing: up_write only wakes the queued writer; a writer that
 * arrives at once finds the count at WAITING_BIAS (nobody active), spins on
 * the NULL owner and takes the lock ahead of it. The woken writer gets it
 * later. Racy by nature (the woken writer could win), so a few rounds are
 * allowed; one steal proves the mechanism.
 */
Test(rwsem_xadd, spinning_writer_steals, .timeout = 60)
{
	struct lab_lock l;
	int steals = 0;

	need_events();
	/* generic: on x86 the fast path itself steals (see x86_write_fast_path_at_waiting_bias). */
	lab_test_lock(&l, "rwsem-xadd:fastpath=generic");
	for (int round = 0; round < 10 && !steals; round++) {
		struct lab_events before, after;
		struct xt w;
		bool stole;

		lab_down_write(&l);
		/* It releases by itself: if it wins the race, our down_write waits for it. */
		queue_hold(&w, &l, true, 1, 1);
		lab_events_snapshot(&before);
		lab_up_write(&l);
		lab_down_write(&l);
		lab_events_snapshot(&after);
		stole = !load_int(&w.acquired) &&
			after.count[LAB_EV_rwsem_opt_wlock] > before.count[LAB_EV_rwsem_opt_wlock];
		lab_up_write(&l);
		cr_assert(wait_flag(&w.acquired, WAKE_MS), "round %d: the queued writer never got in", round);
		xt_join(&w);
		steals += stole;
	}
	cr_expect_gt(steals, 0, "no spinning writer ever stole the lock from a woken queued writer");
	lab_lock_destroy(&l);
}

/*
 * (7) x86 write fast paths (v4.20 arch/x86/include/asm/rwsem.h): with a
 * writer queued and nobody active (count == WAITING_BIAS, the moment
 * between up_write and the woken writer running), one xadd takes the lock
 * (down_write) and the write trylock succeeds; asm-generic takes neither.
 * The window is the queued writer's wakeup latency, so a few rounds are
 * allowed for x86; for generic every round must refuse.
 */
enum fast_op { OP_DOWN_WRITE, OP_TRYLOCK };

/* One round: hold write, queue W, up_write, then @op at once. Returns true if
 * @op took the lock in its fast path with W still queued (count shows it). */
static bool fast_take_at_waiting_bias(const struct lab_lock *l, enum fast_op op)
{
	struct lab_events before, after;
	long count = 0;
	bool took, fast;
	struct xt w;

	lab_down_write(l);
	queue_hold(&w, l, true, 1, 1);
	lab_events_snapshot(&before);
	lab_up_write(l);
	if (op == OP_DOWN_WRITE) {
		lab_down_write(l);
		took = true;
	} else {
		took = lab_down_write_trylock(l);
	}
	if (took)
		count = rwsem_xadd_count(l->sem);
	lab_events_snapshot(&after);
	/* No slow-path event of ours: no spin tried, no queueing. */
	fast = after.count[LAB_EV_rwsem_opt_wlock] == before.count[LAB_EV_rwsem_opt_wlock] &&
	       after.count[LAB_EV_rwsem_opt_fail] == before.count[LAB_EV_rwsem_opt_fail] &&
	       after.count[LAB_EV_rwsem_opt_nospin] == before.count[LAB_EV_rwsem_opt_nospin] &&
	       after.count[LAB_EV_rwsem_wlock] == before.count[LAB_EV_rwsem_wlock];
	if (took)
		lab_up_write(l);
	cr_assert(wait_flag(&w.acquired, WAKE_MS), "the queued writer never got in");
	xt_join(&w);
	cr_assert_eq(rwsem_xadd_count(l->sem), 0, "count %#lx after the round", (unsigned long)rwsem_xadd_count(l->sem));
	/* W still queued while we held it: its waiting bias beside our write bias. */
	return took && fast && count == ACTIVE_WRITE_BIAS + WAITING_BIAS;
}

Test(rwsem_xadd, x86_write_fast_path_at_waiting_bias, .timeout = 60)
{
	struct lab_lock l;
	int hits = 0;

	need_events();
	lab_test_lock(&l, "rwsem-xadd");	/* fastpath=x86 is the default */
	for (int round = 0; round < 10 && !hits; round++)
		hits += fast_take_at_waiting_bias(&l, OP_DOWN_WRITE);
	cr_expect_gt(hits, 0, "x86 down_write never took the lock in one xadd with a writer queued");
	lab_lock_destroy(&l);
}

Test(rwsem_xadd, x86_write_trylock_at_waiting_bias, .timeout = 60)
{
	struct lab_lock l;
	int hits = 0;

	need_events();
	lab_test_lock(&l, "rwsem-xadd");
	for (int round = 0; round < 10 && !hits; round++)
		hits += fast_take_at_waiting_bias(&l, OP_TRYLOCK);
	cr_expect_gt(hits, 0, "x86 down_write_trylock never succeeded with a writer queued");
	lab_lock_destroy(&l);
}

Test(rwsem_xadd, generic_write_fast_paths_refuse_with_waiters, .timeout = 60)
{
	struct lab_lock l;

	need_events();
	lab_test_lock(&l, "rwsem-xadd:fastpath=generic");
	for (int round = 0; round < 5; round++) {
		cr_expect_not(fast_take_at_waiting_bias(&l, OP_TRYLOCK),
			      "round %d: asm-generic write trylock succeeded with a writer queued", round);
		cr_expect_not(fast_take_at_waiting_bias(&l, OP_DOWN_WRITE),
			      "round %d: asm-generic down_write took the fast path with a writer queued", round);
	}
	lab_lock_destroy(&l);
}
