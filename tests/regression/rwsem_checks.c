/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wait_lock-release invariants (debug.h LAB_RWSEM_CHECK) can fail:
 * with the checks on, a mainline rwsem whose count shows HANDOFF with an
 * empty queue (the state the v5.3 out_nolock could leave behind)
 * makes the next wait_lock release warn; with the checks off it does not.
 * This is the negative control for `rwlab torture --kill`, whose SUCCESS
 * lines mean "no warning".
 *
 * The kernel's DEBUG_RWSEMS_WARN_ON checks on misuse (built with
 * -Ddebug_checks=true only, as CONFIG_DEBUG_RWSEMS; skipped otherwise):
 * downgrade_write by a task that is not the write owner (v4.20 rwsem.c:148,
 * v5.3 :1447, v6.3 :1394) and up_read of a lock whose owner word is not
 * reader-owned (v4.20 :120, v5.3 :1403, v6.3 :1343), in each port.
 */
#include "common.h"
#include "rwsem_mainline_impl.h"
#include "rwsem_rspin.h"
#include "rwsem_xadd.h"

static unsigned long warnings(void)
{
	return __atomic_load_n(&lab_rwsem_warnings, __ATOMIC_SEQ_CST);
}

/* Plant HANDOFF on a free lock with nobody queued, then take it for read (the slow path). */
static unsigned long handoff_without_waiter(bool checks)
{
	struct lab_lock l;
	struct rwsem_mainline *sem;
	int saved = lab_rwsem_checks;
	unsigned long w0;

	lab_test_lock(&l, "rwsem");
	sem = (struct rwsem_mainline *)l.sem;
	lab_rwsem_checks = checks || LAB_DEBUG_CHECKS;
	w0 = warnings();
	__atomic_store_n(&sem->count, RWSEM_FLAG_HANDOFF, __ATOMIC_SEQ_CST);
	/* HANDOFF fails the fast path; the slow path queues nobody and releases wait_lock. */
	lab_down_read(&l);
	lab_up_read(&l);
	__atomic_fetch_and(&sem->count, ~RWSEM_FLAG_HANDOFF, __ATOMIC_SEQ_CST);
	lab_rwsem_checks = saved;
	w0 = warnings() - w0;
	lab_lock_destroy(&l);
	return w0;
}

Test(rwsem_checks, handoff_with_empty_queue_warns)
{
	cr_expect_geq(handoff_without_waiter(true), 1, "HANDOFF with an empty queue was not reported");
}

Test(rwsem_checks, checks_off_are_silent)
{
	if (LAB_DEBUG_CHECKS)
		cr_skip_test("built with -Ddebug_checks=true: the checks are always on");
	cr_expect_eq(handoff_without_waiter(false), 0, "a check fired while switched off");
}

/* ---- DEBUG_RWSEMS_WARN_ON on misuse (debug_checks builds) ---------------- */

static const char *const debug_variants[] = { "rwsem-xadd", "rwsem-rspin", "rwsem" };

static void *take_write_and_leave(void *arg)
{
	lab_down_write(arg);	/* exits holding it: the owner word names this thread's task */
	return NULL;
}

/* Another thread took the write lock; this one downgrades it (misuse). */
static unsigned long downgrade_by_non_owner(const char *variant)
{
	struct lab_lock l;
	pthread_t t;
	unsigned long w0;

	lab_test_lock(&l, variant);
	(void)lab_current();	/* our task first: the leaver's slot, freed at its exit, is not ours then */
	cr_assert_eq(pthread_create(&t, NULL, take_write_and_leave, &l), 0);
	pthread_join(t, NULL);
	w0 = warnings();
	lab_downgrade_write(&l);
	w0 = warnings() - w0;
	lab_up_read(&l);
	lab_lock_destroy(&l);
	return w0;
}

/* A read lock whose owner word names a writer (no READER_OWNED bit) at up_read. */
static unsigned long up_read_not_reader_owned(const char *variant)
{
	struct lab_lock l;
	unsigned long w0;
	void *me = lab_current();

	lab_test_lock(&l, variant);
	lab_down_read(&l);
	if (!strcmp(variant, "rwsem-xadd"))
		rwsem_xadd_test_set_owner(l.sem, me);
	else if (!strcmp(variant, "rwsem-rspin"))
		lab_rspin_test_set_owner(l.sem, (long)me);
	else
		__atomic_store_n(&((struct rwsem_mainline *)l.sem)->owner, (unsigned long)me, __ATOMIC_SEQ_CST);
	w0 = warnings();
	lab_up_read(&l);
	w0 = warnings() - w0;
	lab_lock_destroy(&l);
	return w0;
}

Test(rwsem_checks, downgrade_by_non_owner_warns)
{
	if (!LAB_DEBUG_CHECKS)
		cr_skip_test("DEBUG_RWSEMS_WARN_ON is built only with -Ddebug_checks=true");
	for (size_t i = 0; i < sizeof(debug_variants) / sizeof(debug_variants[0]); i++)
		cr_expect_eq(downgrade_by_non_owner(debug_variants[i]), 1,
			     "%s: downgrade_write by a non-owner was not reported once", debug_variants[i]);
}

Test(rwsem_checks, up_read_not_reader_owned_warns)
{
	if (!LAB_DEBUG_CHECKS)
		cr_skip_test("DEBUG_RWSEMS_WARN_ON is built only with -Ddebug_checks=true");
	for (size_t i = 0; i < sizeof(debug_variants) / sizeof(debug_variants[0]); i++)
		cr_expect_eq(up_read_not_reader_owned(debug_variants[i]), 1,
			     "%s: up_read of a lock not reader-owned was not reported once", debug_variants[i]);
}

/* Correct use warns nowhere: write, downgrade by the owner, up_read; a contended read slow path. */
static void *read_once(void *arg)
{
	lab_down_read(arg);
	lab_up_read(arg);
	return NULL;
}

Test(rwsem_checks, correct_use_is_silent)
{
	for (size_t i = 0; i < sizeof(debug_variants) / sizeof(debug_variants[0]); i++) {
		struct lab_lock l;
		pthread_t t;
		unsigned long w0 = warnings();

		lab_test_lock(&l, debug_variants[i]);
		lab_down_write(&l);
		cr_assert_eq(pthread_create(&t, NULL, read_once, &l), 0);
		lab_sleep_ns(20000000);	/* the reader queues behind the writer: the read slow path */
		lab_downgrade_write(&l);
		pthread_join(t, NULL);
		lab_up_read(&l);
		lab_lock_destroy(&l);
		cr_expect_eq(warnings() - w0, 0, "%s: a check fired on correct use", debug_variants[i]);
	}
}
