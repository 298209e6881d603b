/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/rwsem_xadd.h - test-only accessors of the rwsem-xadd variant
 * (locks/rwsem_xadd.c). Nothing outside tests/ calls these.
 *
 * Threading: any thread; both read a racy snapshot that may be stale by the
 * time the caller looks at it, so tests poll them rather than assert on a
 * single read of a changing lock.
 */
#pragma once

#include "rwsem.h"

/*
 * rwsem_xadd_nr_waiters() - number of waiters on @sem's wait list, counted
 * under its wait_lock. @sem must be a lock of the rwsem-xadd variant.
 */
int rwsem_xadd_nr_waiters(struct lab_rwsem *sem);

/* rwsem_xadd_count() - the raw 64-bit count word of @sem (relaxed load). */
long rwsem_xadd_count(struct lab_rwsem *sem);

/*
 * rwsem_xadd_test_set_owner() - store @owner (a task pointer with the
 * RWSEM_READER_OWNED/ANONYMOUSLY_OWNED bits, or NULL) in @sem's owner word,
 * as a misusing caller would leave it: the debug checks' tests. Test-only.
 */
void rwsem_xadd_test_set_owner(struct lab_rwsem *sem, void *owner);
