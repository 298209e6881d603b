/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wait_lock-release invariants (debug.h LAB_RWSEM_CHECK) can fail:
 * with the checks on, a mainline rwsem whose count shows HANDOFF with an
 * empty queue (the state the v5.3 out_nolock could leave behind)
 * makes the next wait_lock release warn; with the checks off it does not.
 * This is the negative control for `rwlab torture --kill`, whose SUCCESS
 * lines mean "no warning".
 */
#include "common.h"
#include "rwsem_mainline_impl.h"

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
