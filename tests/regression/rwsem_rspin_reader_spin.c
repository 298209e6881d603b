/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rwsem-rspin stall (a lock free, its waiters asleep, no acquisition for
 * hundreds of ms), made deterministic. v5.3's reader optimistic spinning
 * can hide the release of a reader-owned lock from the unlocker:
 *
 *   main: down_read (holds it)
 *   W:    down_write (wspin=0: queues at once) -> head, asleep; HANDOFF set
 *         for it (planted under wait_lock, as its rwsem_try_write_lock() sets
 *         it after its handoff timeout)
 *   N:    down_read: the fast path adds READER_BIAS, sees WAITERS|HANDOFF,
 *         enters the slow path - held there (the test hook) with its bias
 *         still in the count
 *   main: up_read: the count still shows N's reader, so it is not the last
 *         reader out and wakes nobody
 *   N:    v5.3 takes its bias back with a plain atomic_long_add (no wakeup
 *         check: "Undo read bias from down_read() and do optimistic
 *         spinning") and spins: the owner word still says reader-owned,
 *         rwsem_try_read_lock_unqueued() refuses HANDOFF, and a reader's spin
 *         on a reader-owned lock ends only at need_resched()
 *
 * Meanwhile the lock is free and W, the only one who may take it, sleeps:
 * nobody will wake it until N stops spinning and queues (its queueing sees
 * the free lock and wakes the head). In the kernel need_resched() stays
 * false while nothing else is runnable on N's CPU; natively the port's
 * need_resched() waits for the host to preempt N, which on a quiet machine
 * takes long - the stall that was seen. Here the spin is bounded by a 1 s
 * spin budget (spin_budget_us), so W's acquisition waits >= 0.9 s.
 *
 * Mainline has no such window since reader optimistic spinning was removed
 * (617f3ef95177 "locking/rwsem: Remove reader optimistic spinning", v5.11):
 * the slow-path reader keeps its bias until it queues, and the queueing's
 * atomic_long_add_return() sees the free lock and wakes the head. The knob
 * rspin=0 is that: with it W gets the lock as soon as N queues (< 0.5 s here,
 * typically well under 1 ms).
 */
#include "common.h"
#include "rwsem_rspin.h"

#define RWSEM_FLAG_HANDOFF	(1L << 2)	/* v5.3's count bits (rwsem_rspin.c) */
#define RWSEM_FLAG_WAITERS	(1L << 1)
#define RWSEM_LOCK_BITS		(~((1L << 8) - 1) | 1L)	/* READER_MASK | WRITER_LOCKED */
#define WAIT_MS 5000

static struct lab_task *hooked;		/* the reader to hold in its slow path */
static int in_slowpath, go;

static void hold_reader(void)
{
	if (lab_current() != __atomic_load_n(&hooked, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&in_slowpath, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
}

struct actor {
	pthread_t tid;
	const struct lab_lock *lock;
	bool write;
	struct lab_task *task;
	uint64_t acquired_ns;	/* lab_clock_ns() when it got the lock */
	int done;
};

static void *actor_main(void *arg)
{
	struct actor *a = arg;

	__atomic_store_n(&a->task, lab_current(), __ATOMIC_RELEASE);
	if (!a->write)
		__atomic_store_n(&hooked, lab_current(), __ATOMIC_RELEASE);
	if (a->write)
		lab_down_write(a->lock);
	else
		lab_down_read(a->lock);
	__atomic_store_n(&a->acquired_ns, lab_clock_ns(), __ATOMIC_RELEASE);
	if (a->write)
		lab_up_write(a->lock);
	else
		lab_up_read(a->lock);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void actor_start(struct actor *a, const struct lab_lock *l, bool write)
{
	memset(a, 0, sizeof(*a));
	a->lock = l;
	a->write = write;
	cr_assert_eq(pthread_create(&a->tid, NULL, actor_main, a), 0);
	while (!__atomic_load_n(&a->task, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
}

/*
 * The scenario on @spec; returns how long W waited for the lock after main's
 * up_read (ns), and in @free_asleep whether, 50 ms after it, the lock was free
 * with HANDOFF and WAITERS set and W still queued.
 */
static uint64_t run_scenario(const char *spec, bool *free_asleep)
{
	struct lab_rspin_peek pk;
	struct actor w, n;
	struct lab_lock l;
	uint64_t t0;
	int i;

	lab_test_lock(&l, spec);
	__atomic_store_n(&in_slowpath, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&go, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hooked, NULL, __ATOMIC_RELAXED);
	lab_down_read(&l);
	actor_start(&w, &l, true);
	for (i = 0; i < WAIT_MS * 10; i++) {
		lab_rspin_peek(l.sem, &pk);
		if (pk.nr_write_waiters == 1 && !lab_task_on_cpu(w.task))
			break;
		lab_sleep_ns(100000);
	}
	cr_assert_lt(i, WAIT_MS * 10, "%s: the writer never queued and slept", spec);
	lab_rspin_test_set_flags(l.sem, RWSEM_FLAG_HANDOFF);

	__atomic_store_n(&lab_rspin_test_read_slowpath_hook, hold_reader, __ATOMIC_RELEASE);
	actor_start(&n, &l, false);
	for (i = 0; i < WAIT_MS * 10 && !__atomic_load_n(&in_slowpath, __ATOMIC_ACQUIRE); i++)
		lab_sleep_ns(100000);
	cr_assert_lt(i, WAIT_MS * 10, "%s: the reader never entered the slow path", spec);

	lab_up_read(&l);	/* N's bias is in the count: not the last reader out */
	t0 = lab_clock_ns();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	lab_sleep_ns(50000000);
	lab_rspin_peek(l.sem, &pk);
	*free_asleep = !(pk.count & RWSEM_LOCK_BITS) && (pk.count & RWSEM_FLAG_HANDOFF) &&
		       (pk.count & RWSEM_FLAG_WAITERS) && pk.nr_write_waiters == 1 && !w.acquired_ns;
	cr_log_info("%s: 50 ms after up_read: count %#lx, %d waiters\n", spec, (unsigned long)pk.count,
		    pk.nr_waiters);

	pthread_join(w.tid, NULL);
	pthread_join(n.tid, NULL);
	__atomic_store_n(&lab_rspin_test_read_slowpath_hook, NULL, __ATOMIC_RELEASE);
	cr_expect(w.done && n.done);
	lab_lock_destroy(&l);
	return w.acquired_ns - t0;
}

Test(rwsem_rspin_reader_spin, v5_3_hides_the_release_from_up_read, .timeout = 60)
{
	bool free_asleep;
	uint64_t waited = run_scenario("rwsem-rspin:wspin=0,spin_budget_us=1000000,handoff_timeout_us=1000000",
				       &free_asleep);

	cr_log_info("v5.3: the writer waited %.3f s\n", (double)waited / 1e9);
	cr_expect(free_asleep, "v5.3: 50 ms after up_read the lock was not free with its writer asleep");
	cr_expect_geq(waited, 900000000ull, "v5.3: the writer got the lock after %.3f s, before the reader's "
		      "1 s spin ended: someone woke it", (double)waited / 1e9);
}

Test(rwsem_rspin_reader_spin, rspin_off_wakes_the_writer, .timeout = 60)
{
	bool free_asleep;
	uint64_t waited = run_scenario("rwsem-rspin:wspin=0,rspin=0,spin_budget_us=1000000,"
				       "handoff_timeout_us=1000000", &free_asleep);

	cr_log_info("rspin=0: the writer waited %.6f s\n", (double)waited / 1e9);
	cr_expect_not(free_asleep, "rspin=0: 50 ms after up_read the lock was free with its writer asleep");
	cr_expect_lt(waited, 500000000ull, "rspin=0: the writer waited %.3f s", (double)waited / 1e9);
}
