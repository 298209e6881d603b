/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cancellation paths of v5.3 and of mainline, side by side:
 * the scenario d257cc8cb8d5 ("locking/rwsem: Make handoff bit handling more
 * consistent", v5.16) describes - a queue-head reader that requested the
 * handoff is killed, so the writer behind it inherits the HANDOFF bit; then
 * that writer, not yet in its own handoff state, is killed too.
 *
 *   main: down_write (holds it throughout)
 *   R:    down_read_killable  -> queues, head
 *   W:    down_write_killable -> queues behind R
 *   HANDOFF is set for R (planted under wait_lock: R's rwsem_mark_wake()
 *   request needs a writer to steal the lock at the instant of a wakeup,
 *   which a test cannot schedule)
 *   kill R, then kill W (each returns -EINTR)
 *
 * v5.3 as released (rwsem-rspin): the reader's out_nolock clears HANDOFF
 * only if the queue empties, and the writer's subtracts it only if its
 * local wstate says it set it itself, so HANDOFF stays set with an empty
 * queue, and after up_write the lock is not back at its unlocked value
 * (count 0x4). Mainline (rwsem, rwsem-dhandoff): rwsem_del_waiter() clears
 * HANDOFF with the last waiter, so the lock ends clean; so does rwsem-rspin
 * with that fix applied (out_nolock=v5.19: d257cc8cb8d5 and 1ee326196c66).
 * This test pins all three.
 */
#include "common.h"
#include "rwsem_mainline_impl.h"
#include "rwsem_rspin.h"

#define WAKE_MS 5000

struct killee {
	pthread_t tid;
	const struct lab_lock *lock;
	bool write;
	struct lab_task *task;
	int ret, done;
};

static void *killee_main(void *arg)
{
	struct killee *k = arg;
	int r;

	__atomic_store_n(&k->task, lab_current(), __ATOMIC_RELEASE);
	r = k->write ? lab_down_write_killable(k->lock) : lab_down_read_killable(k->lock);
	lab_clear_fatal_signal();
	if (!r) {
		if (k->write)
			lab_up_write(k->lock);
		else
			lab_up_read(k->lock);
	}
	k->ret = r;
	__atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start @k and wait until it sleeps in the lock (queued, off the CPU). */
static void killee_start_asleep(struct killee *k, const struct lab_lock *l, bool write)
{
	struct lab_task *t;
	int i;

	memset(k, 0, sizeof(*k));
	k->lock = l;
	k->write = write;
	cr_assert_eq(pthread_create(&k->tid, NULL, killee_main, k), 0);
	while (!(t = __atomic_load_n(&k->task, __ATOMIC_ACQUIRE)))
		lab_sleep_ns(100000);
	for (i = 0; i < WAKE_MS * 10 && lab_task_on_cpu(t); i++)
		lab_sleep_ns(100000);
	cr_assert_lt(i, WAKE_MS * 10, "the %s never went to sleep", write ? "writer" : "reader");
	lab_sleep_ns(2000000);
}

static void killee_kill(struct killee *k)
{
	int i;

	lab_send_fatal_signal(k->task);
	for (i = 0; i < WAKE_MS && !__atomic_load_n(&k->done, __ATOMIC_ACQUIRE); i++)
		lab_sleep_ns(1000000);
	cr_assert(__atomic_load_n(&k->done, __ATOMIC_ACQUIRE), "a killed waiter never returned");
	cr_expect_eq(k->ret, -EINTR, "the killed %s returned %d", k->write ? "writer" : "reader", k->ret);
	pthread_join(k->tid, NULL);
}

/* The scenario; returns the count after up_write and whether check_unlocked passed. */
static long run_scenario(const char *spec, void (*plant)(struct lab_lock *), bool *unlocked)
{
	struct lab_lock l;
	struct killee r, w;
	char msg[200];
	long count;

	lab_test_lock(&l, spec);
	lab_down_write(&l);
	killee_start_asleep(&r, &l, false);
	killee_start_asleep(&w, &l, true);
	plant(&l);
	killee_kill(&r);
	killee_kill(&w);
	lab_up_write(&l);
	*unlocked = l.ops->check_unlocked(l.sem, msg, sizeof(msg)) == 0;
	if (!strncmp(spec, "rwsem-rspin:", 12)) {
		struct lab_rspin_peek pk;

		lab_rspin_peek(l.sem, &pk);
		count = pk.count;
		cr_expect_eq(pk.nr_waiters, 0, "%s: waiters left", spec);
	} else {
		count = READ_ONCE(((struct rwsem_mainline *)l.sem)->count);
	}
	cr_log_info("%s: after both waiters were killed and up_write: count %#lx, %s\n", spec,
		    (unsigned long)count, *unlocked ? "unlocked" : msg);
	/* Heal a leaked bit so that destroy sees a free lock: a reader's slow path clears it. */
	lab_down_read(&l);
	lab_up_read(&l);
	lab_lock_destroy(&l);
	return count;
}

static void plant_rspin(struct lab_lock *l)
{
	lab_rspin_test_set_flags(l->sem, 1L << 2);	/* RWSEM_FLAG_HANDOFF in v5.3 */
}

static void plant_mainline(struct lab_lock *l)
{
	struct rwsem_mainline *sem = (struct rwsem_mainline *)l->sem;

	raw_spin_lock(&sem->wait_lock);
	atomic_or(&sem->count, RWSEM_FLAG_HANDOFF);
	/* The head reader's request, as rwsem_mark_wake() records it. */
	WRITE_ONCE(lab_container_of(sem->wait_list.next, struct rwsem_waiter, list)->handoff,
		   RWSEM_HANDOFF_REQUESTED);
	raw_spin_unlock(&sem->wait_lock);
}

Test(rwsem_out_nolock, v5_3_leaves_handoff_with_empty_queue, .timeout = 60)
{
	bool unlocked;
	/* A long handoff timeout: the writer stays WRITER_FIRST, never sets HANDOFF itself. */
	long count = run_scenario("rwsem-rspin:handoff_timeout_us=1000000", plant_rspin, &unlocked);

	cr_expect(count & (1L << 2), "v5.3: HANDOFF was cleared (count %#lx): the port no longer follows "
		  "v5.3's out_nolock", (unsigned long)count);
	cr_expect_not(unlocked, "v5.3: the lock ended unlocked");
}

Test(rwsem_out_nolock, mainline_clears_handoff_with_last_waiter, .timeout = 60)
{
	static const char *const specs[] = { "rwsem:handoff_timeout_us=1000000",
					     "rwsem-dhandoff:handoff_timeout_us=1000000" };

	for (size_t i = 0; i < LAB_ARRAY_SIZE(specs); i++) {
		bool unlocked;
		long count = run_scenario(specs[i], plant_mainline, &unlocked);

		cr_expect_eq(count & RWSEM_FLAG_HANDOFF, 0, "%s: HANDOFF left (count %#lx)", specs[i],
			     (unsigned long)count);
		cr_expect(unlocked, "%s: not back at the unlocked value", specs[i]);
	}
}

Test(rwsem_out_nolock, v5_3_with_the_fix_clears_handoff, .timeout = 60)
{
	bool unlocked;
	long count = run_scenario("rwsem-rspin:handoff_timeout_us=1000000,out_nolock=v5.19", plant_rspin, &unlocked);

	cr_expect_eq(count & (1L << 2), 0, "out_nolock=v5.19: HANDOFF left (count %#lx)", (unsigned long)count);
	cr_expect(unlocked, "out_nolock=v5.19: not back at the unlocked value");
}
