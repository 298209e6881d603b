/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/rwsem_rspin.h - test-only introspection of the rwsem-rspin variant
 * (locks/rwsem_rspin.c, the Linux v5.3 rw_semaphore).
 *
 * Workloads never need this; regression tests use it to wait until a thread
 * has really queued (the wait list is the only place where queue order is
 * decided) and to look at the count and owner words.
 */
#pragma once

struct lab_rwsem;

struct lab_rspin_peek {
	long count;		/* the count word (bit layout in rwsem_rspin.c) */
	long owner;		/* the owner word: task pointer | READER_OWNED | RD/WR_NONSPINNABLE */
	int nr_waiters;		/* length of the wait list */
	int nr_read_waiters;	/* of which readers */
	int nr_write_waiters;	/* of which writers */
};

/*
 * lab_rspin_peek() - snapshot @sem (an rwsem-rspin lock) into @out.
 * Takes the lock's wait_lock, so the list fields are consistent with each
 * other; count and owner are read under it too but may change right after.
 * Any thread. Calling it on a lock of another variant is undefined.
 */
void lab_rspin_peek(struct lab_rwsem *sem, struct lab_rspin_peek *out);

/*
 * lab_rspin_test_set_flags() - OR @bits into the count word under wait_lock,
 * as rwsem_mark_wake() does when a timed-out reader head requests the
 * handoff (tests/regression/rwsem_out_nolock.c plants a reader head's
 * HANDOFF request this way). Test-only; any thread.
 */
void lab_rspin_test_set_flags(struct lab_rwsem *sem, long bits);

/*
 * lab_rspin_test_set_owner() - store @owner (task pointer | flag bits) in
 * the owner word, as a misusing caller would leave it: the debug checks'
 * tests. Test-only; any thread.
 */
void lab_rspin_test_set_owner(struct lab_rwsem *sem, long owner);

/*
 * lab_rspin_test_read_slowpath_hook - test-only: when not NULL, every
 * rwsem-rspin down_read slow path calls it first, on the reader's thread,
 * with the reader's READER_BIAS from the failed fast path still in the count
 * (tests/regression/rwsem_rspin_reader_spin.c holds a reader there to order
 * an up_read before the bias is taken back). NULL in every other use: one
 * predictable branch on the slow path.
 */
extern void (*lab_rspin_test_read_slowpath_hook)(void);
