/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Killable and timed acquisition (rwsem.h), for every variant with
 * LAB_CAP_KILLABLE:
 * - the capability bit agrees with the four verbs (all or none);
 * - on a free lock both verbs take it at once, even with a fatal signal
 *   pending or a deadline already past (the fast paths do not check);
 * - a timed waiter behind a writer gives up with -ETIMEDOUT at its deadline
 *   (not before, and not much after), a killed one with -EINTR, and in both
 *   cases the lock is back at its unlocked value afterwards (check_unlocked)
 *   and still works;
 * - a waiter that is granted the lock before its signal is seen keeps it;
 * - the kernel ports count a killed wait as rwsem_rlock_fail or
 *   rwsem_wlock_fail (v5.2+ out_nolock), and nothing as acquired.
 */
#include "common.h"
#include "events.h"

#define WAKE_MS 5000

ParameterizedTestParameters(rwsem_killable, caps_match_verbs)
{
	size_t n;
	struct lab_test_variant *v = lab_test_variants(0, 0, &n);

	return cr_make_param_array(struct lab_test_variant, v, n);
}

ParameterizedTest(struct lab_test_variant *v, rwsem_killable, caps_match_verbs)
{
	const struct lab_rwsem_ops *o = lab_rwsem_lookup(v->name);
	int n = !!o->down_read_killable + !!o->down_write_killable + !!o->down_read_timed +
		!!o->down_write_timed;

	cr_expect_eq(n, (o->caps & LAB_CAP_KILLABLE) ? 4 : 0, "%s: LAB_CAP_KILLABLE and %d of 4 verbs",
		     v->name, n);
}

#define KILLABLE_VARIANTS(fn)								\
	ParameterizedTestParameters(rwsem_killable, fn)					\
	{										\
		size_t n;								\
		struct lab_test_variant *v = lab_test_variants(LAB_CAP_KILLABLE | LAB_CAP_EXCLUSION, \
							       LAB_CAP_NOT_IN_ALL, &n);	\
		return cr_make_param_array(struct lab_test_variant, v, n);		\
	}

static void expect_unlocked(const struct lab_lock *l, const char *name)
{
	char msg[256];

	if (l->ops->check_unlocked)
		cr_expect_eq(l->ops->check_unlocked(l->sem, msg, sizeof(msg)), 0, "%s: not unlocked: %s",
			     name, msg);
	cr_expect(lab_down_write_trylock(l), "%s: free lock refused a write trylock", name);
	lab_up_write(l);
}

KILLABLE_VARIANTS(free_lock_taken_despite_signal)
ParameterizedTest(struct lab_test_variant *v, rwsem_killable, free_lock_taken_despite_signal, .timeout = 30)
{
	struct lab_lock l;

	lab_test_lock(&l, v->name);
	lab_send_fatal_signal(lab_current());
	cr_expect_eq(lab_down_read_killable(&l), 0, "%s: free lock, read", v->name);
	lab_up_read(&l);
	cr_expect_eq(lab_down_write_killable(&l), 0, "%s: free lock, write", v->name);
	lab_up_write(&l);
	lab_clear_fatal_signal();
	cr_expect_eq(lab_down_read_timed(&l, 1), 0, "%s: free lock, past deadline, read", v->name);
	lab_up_read(&l);
	cr_expect_eq(lab_down_write_timed(&l, 1), 0, "%s: free lock, past deadline, write", v->name);
	lab_up_write(&l);
	expect_unlocked(&l, v->name);
	lab_lock_destroy(&l);
}

struct waiter {
	pthread_t tid;
	const struct lab_lock *lock;
	bool write;
	uint64_t deadline;	/* 0: killable, else timed */
	struct lab_task *task;
	int ret, done;
	uint64_t t_end;
	struct lab_events ev;	/* the waiter's own events, up to its return */
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	int r;

	lab_events_reset();
	__atomic_store_n(&w->task, lab_current(), __ATOMIC_RELEASE);
	if (w->deadline)
		r = w->write ? lab_down_write_timed(w->lock, w->deadline) : lab_down_read_timed(w->lock, w->deadline);
	else
		r = w->write ? lab_down_write_killable(w->lock) : lab_down_read_killable(w->lock);
	w->t_end = lab_clock_ns();
	lab_events_snapshot(&w->ev);
	lab_clear_fatal_signal();
	if (r == 0) {
		if (w->write)
			lab_up_write(w->lock);
		else
			lab_up_read(w->lock);
	}
	w->ret = r;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool waiter_wait(struct waiter *w, int ms)
{
	for (int i = 0; i < ms && !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE); i++)
		lab_sleep_ns(1000000);
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

KILLABLE_VARIANTS(timed_waiter_times_out)
ParameterizedTest(struct lab_test_variant *v, rwsem_killable, timed_waiter_times_out, .timeout = 60)
{
	for (int write = 0; write < 2; write++) {
		struct lab_lock l;
		struct waiter w = { .write = write };

		lab_test_lock(&l, v->name);
		w.lock = &l;
		lab_down_write(&l);
		w.deadline = lab_clock_ns() + 30000000;	/* 30 ms */
		cr_assert_eq(pthread_create(&w.tid, NULL, waiter_main, &w), 0);
		cr_expect(waiter_wait(&w, WAKE_MS), "%s: timed %s never returned", v->name, write ? "write" : "read");
		cr_expect_eq(w.ret, -ETIMEDOUT, "%s: timed %s returned %d", v->name, write ? "write" : "read", w.ret);
		cr_expect_geq(w.t_end, w.deadline, "%s: returned before its deadline", v->name);
		cr_expect_lt(w.t_end, w.deadline + 1000000000ull, "%s: returned 1 s after its deadline", v->name);
		pthread_join(w.tid, NULL);
		lab_up_write(&l);
		expect_unlocked(&l, v->name);
		lab_lock_destroy(&l);
	}
}

KILLABLE_VARIANTS(killed_waiter_leaves)
ParameterizedTest(struct lab_test_variant *v, rwsem_killable, killed_waiter_leaves, .timeout = 60)
{
	for (int write = 0; write < 2; write++) {
		struct lab_lock l;
		struct waiter w = { .write = write };
		struct lab_task *t;

		lab_test_lock(&l, v->name);
		w.lock = &l;
		lab_down_write(&l);
		cr_assert_eq(pthread_create(&w.tid, NULL, waiter_main, &w), 0);
		while (!(t = __atomic_load_n(&w.task, __ATOMIC_ACQUIRE)))
			lab_sleep_ns(100000);
		lab_sleep_ns(20000000);	/* let it queue (and sleep) */
		cr_expect_not(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE), "%s: got a write-held lock", v->name);
		lab_send_fatal_signal(t);
		cr_expect(waiter_wait(&w, WAKE_MS), "%s: killed %s waiter never returned", v->name,
			  write ? "write" : "read");
		cr_expect_eq(w.ret, -EINTR, "%s: killed %s waiter returned %d", v->name, write ? "write" : "read",
			     w.ret);
		pthread_join(w.tid, NULL);
		if (LAB_EVENT_COUNTS && !strncmp(v->name, "rwsem", 5)) {
			uint64_t fail = w.ev.count[write ? LAB_EV_rwsem_wlock_fail : LAB_EV_rwsem_rlock_fail];
			uint64_t got = w.ev.count[write ? LAB_EV_rwsem_wlock : LAB_EV_rwsem_rlock];

			cr_expect_eq(fail, 1, "%s: killed %s wait counted %llu fail events", v->name,
				     write ? "write" : "read", (unsigned long long)fail);
			cr_expect_eq(got, 0, "%s: killed %s wait counted as acquired", v->name,
				     write ? "write" : "read");
		}
		lab_up_write(&l);
		expect_unlocked(&l, v->name);
		lab_lock_destroy(&l);
	}
}

KILLABLE_VARIANTS(killable_waiter_gets_lock)
ParameterizedTest(struct lab_test_variant *v, rwsem_killable, killable_waiter_gets_lock, .timeout = 60)
{
	for (int write = 0; write < 2; write++) {
		struct lab_lock l;
		struct waiter w = { .write = write };

		lab_test_lock(&l, v->name);
		w.lock = &l;
		lab_down_write(&l);
		cr_assert_eq(pthread_create(&w.tid, NULL, waiter_main, &w), 0);
		lab_sleep_ns(20000000);
		lab_up_write(&l);
		cr_expect(waiter_wait(&w, WAKE_MS), "%s: killable waiter never got the lock", v->name);
		cr_expect_eq(w.ret, 0, "%s: unkilled killable waiter returned %d", v->name, w.ret);
		pthread_join(w.tid, NULL);
		expect_unlocked(&l, v->name);
		lab_lock_destroy(&l);
	}
}
