/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwsem-dhandoff version=4 against version=7: Waiman
 * Long's direct handoff as posted in v4 4/5 (2022-10-24) and v7 4/4
 * (2023-01-25), locks/rwsem_dhandoff.c.
 *
 * (a) A reader heads the queue with HANDOFF requested; up_write frees the
 *     lock. v4's rwsem_wake() hands it to the reader (rwsem_handoff(): one
 *     rwsem_handoff_grant on the unlocker); v7 grants writers only, so the
 *     reader gets the lock through the ordinary rwsem_mark_wake() and no
 *     grant is counted. The reader gets the lock in both.
 *
 * (b) The v4 hang, made deterministic. v4 leaves a granted writer queued
 *     with handoff_state GRANTED until it runs and unlinks itself under
 *     wait_lock. A non-first writer that runs rwsem_try_write_lock() in that
 *     window (here: woken by a fatal signal), past its handoff timeout, finds
 *     the lock held and HANDOFF clear, sets HANDOFF and writes REQUESTED over
 *     the head's GRANTED, then leaves with -EINTR. The head no longer sees
 *     its grant: it sleeps holding the lock, and nobody will wake it.
 *       main: down_write;  W1: down_write_killable (head);  W2: the same, behind
 *       HANDOFF requested for W1 (planted under wait_lock; W1's own request
 *       needs a timed-out retry the test cannot schedule)
 *       W1 is parked in a signal handler inside its futex sleep: the window
 *       between "woken" and "takes wait_lock", held open
 *       main: up_write  -> grants W1 (v4: GRANTED, still queued; v7: unlinked)
 *       kill W2         -> v4: W1's state becomes REQUESTED
 *       unpark W1       -> v4: W1 sleeps with the lock (count WRITER_LOCKED,
 *                          owner W1); v7: W1 returns with the lock
 *     v4 then leaks the lock when W1 is killed (-EINTR, WRITER_LOCKED left);
 *     the test heals the words by hand so that the lock can be destroyed.
 *     rwlab torture --kill finds the same hang at random (README).
 */
#include <signal.h>

#include "common.h"
#include "rwsem_mainline_impl.h"

#define WAKE_MS 5000
#define EV(e, name) ((e).count[LAB_EV_##name])

static struct rwsem_mainline *sem_of(struct lab_lock *l)
{
	return (struct rwsem_mainline *)l->sem;
}

static struct rwsem_waiter *head_of(struct rwsem_mainline *sem)
{
	return lab_container_of(READ_ONCE(sem->wait_list.next), struct rwsem_waiter, list);
}

/* HANDOFF set and requested by the queue head, as its own timed-out request leaves them. */
static void plant_handoff(struct rwsem_mainline *sem)
{
	raw_spin_lock(&sem->wait_lock);
	atomic_or(&sem->count, RWSEM_FLAG_HANDOFF);
	WRITE_ONCE(head_of(sem)->handoff, RWSEM_HANDOFF_REQUESTED);
	raw_spin_unlock(&sem->wait_lock);
}

/* ---- a waiter thread: killable down_read/down_write, then release ---- */

struct waiter_thread {
	pthread_t tid;
	const struct lab_lock *lock;
	bool write;
	struct lab_task *task;
	int ret, done;
};

static void *waiter_main(void *arg)
{
	struct waiter_thread *w = arg;
	int r;

	__atomic_store_n(&w->task, lab_current(), __ATOMIC_RELEASE);
	r = w->write ? lab_down_write_killable(w->lock) : lab_down_read_killable(w->lock);
	lab_clear_fatal_signal();
	if (!r) {
		if (w->write)
			lab_up_write(w->lock);
		else
			lab_up_read(w->lock);
	}
	w->ret = r;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start @w and wait until it sleeps in the lock (queued, off the CPU). */
static void waiter_start_asleep(struct waiter_thread *w, const struct lab_lock *l, bool write)
{
	struct lab_task *t;
	int i;

	memset(w, 0, sizeof(*w));
	w->lock = l;
	w->write = write;
	cr_assert_eq(pthread_create(&w->tid, NULL, waiter_main, w), 0);
	while (!(t = __atomic_load_n(&w->task, __ATOMIC_ACQUIRE)))
		lab_sleep_ns(100000);
	for (i = 0; i < WAKE_MS * 10 && lab_task_on_cpu(t); i++)
		lab_sleep_ns(100000);
	cr_assert_lt(i, WAKE_MS * 10, "the %s never went to sleep", write ? "writer" : "reader");
	lab_sleep_ns(2000000);
}

/* Wait up to @ms for @w to return from its acquisition. */
static bool waiter_wait_done(struct waiter_thread *w, int ms)
{
	for (int i = 0; i < ms && !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE); i++)
		lab_sleep_ns(1000000);
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/* ---- (a) v4 grants to a reader head, v7 does not ----------------------- */

static uint64_t reader_head_grants(const char *spec)
{
	struct lab_lock l;
	struct waiter_thread r;
	struct lab_events before, after;

	lab_test_lock(&l, spec);
	lab_down_write(&l);
	waiter_start_asleep(&r, &l, false);
	plant_handoff(sem_of(&l));
	lab_events_snapshot(&before);
	lab_up_write(&l);
	lab_events_snapshot(&after);
	cr_assert(waiter_wait_done(&r, WAKE_MS), "%s: the reader head never got the lock", spec);
	cr_expect_eq(r.ret, 0, "%s: the reader returned %d", spec, r.ret);
	pthread_join(r.tid, NULL);
	cr_expect_eq(READ_ONCE(sem_of(&l)->count), 0L, "%s: count %#lx at the end", spec,
		     (unsigned long)READ_ONCE(sem_of(&l)->count));
	lab_lock_destroy(&l);
	return EV(after, rwsem_handoff_grant) - EV(before, rwsem_handoff_grant);
}

Test(rwsem_dhandoff_v4, v4_grants_reader_head_v7_does_not, .timeout = 60)
{
	uint64_t v4, v7;

	if (!LAB_EVENT_COUNTS)
		cr_skip_test("built with -Devent_counts=false");
	v4 = reader_head_grants("rwsem-dhandoff:version=4,handoff_timeout_us=1000000,wspin=0");
	v7 = reader_head_grants("rwsem-dhandoff:version=7,handoff_timeout_us=1000000,wspin=0");
	cr_log_info("handoff grants by up_write to a reader head: v4 %lu, v7 %lu\n",
		    (unsigned long)v4, (unsigned long)v7);
	cr_expect_eq(v4, 1, "version=4: up_write granted the reader head %lu times", (unsigned long)v4);
	cr_expect_eq(v7, 0, "version=7: up_write granted a reader head (%lu)", (unsigned long)v7);
}

/* ---- (b) the v4 hang: a granted head loses its grant ------------------- */

static int park_entered, park_release;

/* Runs on W1 inside its futex sleep: hold it off the lock until released. */
static void park_handler(int sig)
{
	(void)sig;
	__atomic_store_n(&park_entered, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&park_release, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void park(struct waiter_thread *w)
{
	struct sigaction sa = { .sa_handler = park_handler };
	int i;

	__atomic_store_n(&park_entered, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&park_release, 0, __ATOMIC_RELEASE);
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	cr_assert_eq(pthread_kill(w->tid, SIGUSR1), 0);
	for (i = 0; i < WAKE_MS && !__atomic_load_n(&park_entered, __ATOMIC_ACQUIRE); i++)
		lab_sleep_ns(1000000);
	cr_assert_lt(i, WAKE_MS, "the head writer never entered the parking handler");
}

/*
 * Run the scenario; returns true if W1 got the lock after W2 was killed.
 * @granted_state: W1's handoff state right after up_write (-1 if unlinked).
 * @after_kill: W1's handoff state after W2 left (-1 if unlinked).
 */
static bool grant_then_kill_behind(const char *spec, int *granted_state, int *after_kill)
{
	struct lab_lock l;
	struct rwsem_mainline *sem;
	struct waiter_thread w1, w2;
	struct rwsem_waiter *h;
	bool got;
	long count;

	lab_test_lock(&l, spec);
	sem = sem_of(&l);
	lab_down_write(&l);
	waiter_start_asleep(&w1, &l, true);
	waiter_start_asleep(&w2, &l, true);
	lab_sleep_ns(20000000);	/* past handoff_timeout_us=0 on the coarse jiffies clock */
	plant_handoff(sem);
	park(&w1);

	lab_up_write(&l);
	count = READ_ONCE(sem->count);
	cr_expect(count & RWSEM_WRITER_LOCKED, "%s: up_write did not grant (count %#lx)", spec,
		  (unsigned long)count);
	cr_expect_eq(rwsem_owner_task(READ_ONCE(sem->owner)), w1.task, "%s: owner is not W1", spec);
	h = head_of(sem);
	*granted_state = h->task == w1.task ? READ_ONCE(h->handoff) : -1;

	lab_send_fatal_signal(w2.task);
	cr_assert(waiter_wait_done(&w2, WAKE_MS), "%s: the killed W2 never returned", spec);
	cr_expect_eq(w2.ret, -EINTR, "%s: W2 returned %d", spec, w2.ret);
	pthread_join(w2.tid, NULL);
	raw_spin_lock(&sem->wait_lock);
	h = head_of(sem);
	*after_kill = &h->list != &sem->wait_list && h->task == w1.task ? READ_ONCE(h->handoff) : -1;
	raw_spin_unlock(&sem->wait_lock);

	__atomic_store_n(&park_release, 1, __ATOMIC_RELEASE);
	got = waiter_wait_done(&w1, 1000);
	if (!got) {
		count = READ_ONCE(sem->count);
		cr_log_info("%s: W1 still waits 1 s after the grant: count %#lx, owner %s, on CPU %d\n",
			    spec, (unsigned long)count,
			    rwsem_owner_task(READ_ONCE(sem->owner)) == w1.task ? "W1" : "not W1",
			    lab_task_on_cpu(w1.task));
		cr_expect(count & RWSEM_WRITER_LOCKED, "%s: W1 waits but the lock is free", spec);
		cr_expect_eq(rwsem_owner_task(READ_ONCE(sem->owner)), w1.task,
			     "%s: W1 waits for a lock owned by someone else", spec);
		/* Kill W1: v4 returns -EINTR and leaks the write lock it was granted. */
		lab_send_fatal_signal(w1.task);
		cr_assert(waiter_wait_done(&w1, WAKE_MS), "%s: the killed W1 never returned", spec);
		cr_expect_eq(w1.ret, -EINTR, "%s: killed W1 returned %d", spec, w1.ret);
		count = READ_ONCE(sem->count);
		cr_log_info("%s: W1 killed: %d, count %#lx (leaked)\n", spec, w1.ret,
			    (unsigned long)count);
		cr_expect_eq(count, RWSEM_WRITER_LOCKED, "%s: after W1's kill count %#lx", spec,
			     (unsigned long)count);
		/* Heal by hand: nobody holds it any more. */
		WRITE_ONCE(sem->owner, 0UL);
		atomic_andnot(&sem->count, RWSEM_WRITER_LOCKED);
	} else {
		cr_expect_eq(w1.ret, 0, "%s: W1 returned %d", spec, w1.ret);
	}
	pthread_join(w1.tid, NULL);
	cr_expect_eq(READ_ONCE(sem->count), 0L, "%s: count %#lx at the end", spec,
		     (unsigned long)READ_ONCE(sem->count));
	lab_lock_destroy(&l);
	signal(SIGUSR1, SIG_DFL);
	return got;
}

Test(rwsem_dhandoff_v4, v4_granted_head_loses_grant_and_hangs, .timeout = 60)
{
	int granted, after;
	bool got = grant_then_kill_behind("rwsem-dhandoff:version=4,handoff_timeout_us=0,wspin=0",
					  &granted, &after);

	cr_expect_eq(granted, RWSEM_HANDOFF_GRANTED, "v4: W1 not queued as GRANTED after up_write (%d)",
		     granted);
	cr_expect_eq(after, RWSEM_HANDOFF_REQUESTED,
		     "v4: W2's rwsem_try_write_lock() did not overwrite GRANTED (state %d)", after);
	cr_expect_not(got, "v4: the granted head got its lock: the posted v4 hang is not reproduced");
}

Test(rwsem_dhandoff_v4, v7_granted_head_keeps_grant, .timeout = 60)
{
	int granted, after;
	bool got = grant_then_kill_behind("rwsem-dhandoff:version=7,handoff_timeout_us=0,wspin=0",
					  &granted, &after);

	cr_expect_eq(granted, -1, "v7: W1 still queued after the grant (state %d)", granted);
	cr_expect_eq(after, -1, "v7: W1 queued again (state %d)", after);
	cr_expect(got, "v7: the granted head never got its lock");
}
