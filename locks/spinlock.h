/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/spinlock.h - raw_spinlock_t for the kernel ports' wait_lock.
 *
 * Stand-in for the kernel's raw_spinlock (qspinlock on x86, v4.20..v6.18;
 * docs/kernel.md §8). The kernel holds it with preemption disabled, so a
 * holder is never descheduled; in user space it can be, and on an
 * oversubscribed machine a FIFO (ticket/MCS) lock then stalls every waiter
 * behind the preempted one. So this is a test-and-test-and-set lock whose
 * waiters sched_yield() every 128 failed polls: any waiter can take the lock
 * the moment it is free, and a preempted holder gets the CPU back quickly.
 * Its cost is documented as part of every port's design summary.
 *
 * Lock word: 0 = free, 1 = held. Acquire on lock, release on unlock.
 *
 * The simulated build (-DLAB_SIM=1) uses the kernel's algorithm instead,
 * locks/qspinlock.h: there the holder and the waiters run with preemption
 * off (sim_preempt_disable), as in the kernel, so a FIFO queue does not
 * convoy, and the herd of test-and-test-and-set spinners re-reading the word
 * at every release would misstate the wait_lock's cost (results/sim/speed.txt).
 */
#pragma once

#include "compiler.h"

#if LAB_SIM
#include "qspinlock.h"
#else
#include <sched.h>
#include "atomic.h"

typedef struct raw_spinlock {
	int locked;
} raw_spinlock_t;

static inline void raw_spin_lock_init(raw_spinlock_t *l)
{
	WRITE_ONCE(l->locked, 0);
}

static inline int raw_spin_trylock(raw_spinlock_t *l)
{
	return !READ_ONCE(l->locked) && !atomic_xchg_acquire(&l->locked, 1);
}

static inline void raw_spin_lock(raw_spinlock_t *l)
{
	unsigned spins = 0;

	while (atomic_xchg_acquire(&l->locked, 1)) {
		while (READ_ONCE(l->locked)) {
			cpu_relax();
			if (++spins == 128) {
				spins = 0;
				sched_yield();
			}
		}
	}
}

static inline void raw_spin_unlock(raw_spinlock_t *l)
{
	smp_store_release(&l->locked, 0);
}

static inline int raw_spin_is_locked(raw_spinlock_t *l)
{
	return READ_ONCE(l->locked);
}
#endif
