/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ck-brlock keeps each thread's reader record in a thread-local slot
 * (locks/ck.c; it used to look it up through lab_current() on every call).
 * The slot holds one lock, so these check what a stale slot would break:
 * - nested reads of two brlocks: up_read of the outer one after the inner
 *   one must release the outer lock's record (a writer then gets in);
 * - a lock destroyed and initialised again at the same address must not
 *   reuse the old record: the thread registers a new one, and a writer is
 *   excluded while the thread reads.
 * Writers are probed with down_write_trylock from another thread (ck_brlock
 * needs the reader's thread to be a different one for the record to count).
 */
#include "common.h"
#include "config.h"
#include "events.h"

struct probe {
	const struct lab_lock *lock;
	int got;
};

/* down_write_trylock(@l) from a fresh thread; releases at once. Returns 1 if it got it. */
static void *probe_main(void *arg)
{
	struct probe *p = arg;

	p->got = lab_down_write_trylock(p->lock);
	if (p->got)
		lab_up_write(p->lock);
	return NULL;
}

static int writer_gets_in(const struct lab_lock *l)
{
	struct probe p = { .lock = l };
	pthread_t t;

	cr_assert_eq(pthread_create(&t, NULL, probe_main, &p), 0);
	pthread_join(t, NULL);
	return p.got;
}

Test(ck_brlock_record, nested_reads_of_two_locks, .timeout = 30)
{
	struct lab_lock a, b;

	lab_test_lock(&a, "ck-brlock");
	lab_test_lock(&b, "ck-brlock");
	lab_down_read(&a);
	lab_down_read(&b);
	cr_expect_not(writer_gets_in(&a), "a writer got A while we read A and B");
	cr_expect_not(writer_gets_in(&b), "a writer got B while we read A and B");
	lab_up_read(&b);
	cr_expect(writer_gets_in(&b), "B stayed read-held after its up_read");
	cr_expect_not(writer_gets_in(&a), "A lost our read hold when B was released");
	lab_up_read(&a);
	cr_expect(writer_gets_in(&a), "A stayed read-held after up_read (wrong record released)");
	lab_lock_destroy(&b);
	lab_lock_destroy(&a);
}

Test(ck_brlock_record, reinit_at_same_address, .timeout = 30)
{
	struct lab_rwsem_conf conf;
	struct lab_events before, after;
	struct lab_lock l;
	char err[256];

	cr_assert_eq(lab_rwsem_parse("ck-brlock", &conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_lock_init(&l, &conf), 0);
	lab_down_read(&l);
	lab_up_read(&l);
	/* Same memory, a new lock: the thread's cached record belongs to the old one. */
	l.ops->destroy(l.sem);
	cr_assert_eq(l.ops->init(l.sem, &conf), 0);
	lab_events_snapshot(&before);
	lab_down_read(&l);
	lab_events_snapshot(&after);
	if (LAB_EVENT_COUNTS)
		cr_expect_eq(after.count[LAB_EV_brlock_register], before.count[LAB_EV_brlock_register] + 1,
			     "the re-initialised lock reused the old lock's reader record");
	cr_expect_not(writer_gets_in(&l), "a writer got in while we read the re-initialised lock");
	lab_up_read(&l);
	cr_expect(writer_gets_in(&l), "the re-initialised lock stayed read-held");
	lab_lock_destroy(&l);
}
