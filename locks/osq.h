/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/osq.h - the optimistic spin queue (osq): an MCS queue that lets only
 * one spinner at a time spin on a lock's owner, with abortable waits.
 *
 * Citation: Linux v6.3 kernel/locking/osq_lock.c (Jason Low, Waiman Long,
 * Peter Zijlstra), docs/kernel.md §1.6. The rwsem-xadd (v4.20) and
 * rwsem-rspin (v5.3) ports use it too: their osq_lock.c is the same state
 * machine, waiting with a cpu_relax() loop where v6.3 has
 * smp_cond_load_relaxed() on the same three conditions.
 *
 * Design summary:
 * - one node per thread (the kernel has one per CPU; with preemption
 *   disabled that is one per spinning task), indexed by lab_current()->id;
 * - the lock word is the encoded tail, node id + 1 (0 = empty);
 * - osq_lock: xchg the tail; if it was empty we own the queue; else link
 *   behind prev and spin on our node's `locked`;
 * - abort when need_resched() (see wait.h) or the predecessor's thread is
 *   off CPU (owner_on_cpu() on it: the vcpu_is_preempted stand-in): the
 *   three-step unqueue (unlink from prev, find or wait for next, stitch
 *   next to prev), as in the kernel;
 * - osq_unlock: cmpxchg the tail back to empty, else hand the queue to next.
 *
 * Threading: a thread may wait in one osq at a time, and must not sleep
 * while it holds or waits in one.
 */
#pragma once

#include <stdbool.h>
#include "atomic.h"
#include "compiler.h"
#include "wait.h"

#define OSQ_UNLOCKED_VAL 0

struct optimistic_spin_queue {
	int tail;		/* encoded id + 1 of the last queued node, 0 = empty */
};

static inline void osq_lock_init(struct optimistic_spin_queue *lock)
{
	WRITE_ONCE(lock->tail, OSQ_UNLOCKED_VAL);
}

static inline bool osq_is_locked(struct optimistic_spin_queue *lock)
{
	return READ_ONCE(lock->tail) != OSQ_UNLOCKED_VAL;
}

/*
 * osq_lock() - queue up to spin. Returns true when this thread heads the
 * queue (it may spin on the owner), false if it gave up (need_resched or a
 * preempted predecessor). The caller sets its spin budget first.
 */
bool osq_lock(struct optimistic_spin_queue *lock);
/* osq_unlock() - leave the queue, passing the head to the next spinner. */
void osq_unlock(struct optimistic_spin_queue *lock);
