/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/qspinlock.h - raw_spinlock_t as the kernel's queued spinlock, for the
 * simulated build (-DLAB_SIM=1) only; natively spinlock.h keeps its
 * test-and-test-and-set stand-in (its header says why).
 *
 * Source: Linux v6.4 kernel/locking/qspinlock.c (queued_spin_lock_slowpath),
 * include/asm-generic/qspinlock.h and qspinlock_types.h (the fast paths and
 * the word), kernel/locking/mcs_spinlock.h (the node), arch/x86/include/asm/
 * qspinlock.h (_Q_PENDING_LOOPS = 512; fetch-set-pending as a bit-test-and-
 * set and a load), include/linux/spinlock_api_smp.h (raw_spin_lock: preempt
 * off, then the lock). The algorithm is the same from v4.20 to v6.x.
 * Re-implemented from that description; no kernel code is copied.
 *
 * Design. A 32-bit word (little-endian, as x86):
 *   bits  0- 7  locked byte (1: held)
 *   bits  8-15  pending byte (bit 8: the one waiter that spins on the word)
 *   bits 16-17  tail index: the node's nesting level (task, softirq, hardirq, nmi)
 *   bits 18-31  tail CPU + 1 (0: no queue)
 * - Fast path: cmpxchg 0 -> locked. Otherwise the slow path:
 * - a word that is exactly "pending" (the pending owner is taking the lock)
 *   is re-read up to 512 times until it moves on;
 * - if nothing but the locked byte is set, set pending (bts, then a load of
 *   the rest); if that found pending or a tail, undo it (unless pending was
 *   someone else's) and queue; else wait for the locked byte to clear and
 *   store locked over pending in one 16-bit store;
 * - queue: take the CPU's next node (count++), tail = (cpu + 1, idx); more
 *   than 4 nestings spin on trylock instead. A trylock first, then swap the
 *   tail halfword in (16-bit xchg). With a predecessor: link into its ->next
 *   and spin on our own node's ->locked. At the head: wait until locked and
 *   pending are both clear, then either cmpxchg word -> locked when we are
 *   still the tail (queue empties), or set the locked byte and pass the head
 *   role on by a release store to the successor's ->locked (waiting for it to
 *   link in first). count-- on the way out. No stealing other than the fast
 *   path and the pending path.
 * - Unlock: a release store of 0 to the locked byte.
 * - raw_spin_lock() turns preemption off first, raw_spin_unlock() on after
 *   (sim_preempt_disable: the holder and every waiter keep their CPU; IPIs
 *   still run, as with spin_lock; that the rwsem ports' raw_spin_lock_irq
 *   also holds IPIs back is not modelled).
 *
 * What user space cannot model, and what is left out:
 * - Nodes are per simulated CPU (lab_qspin_nodes[cpu][4], 16 bytes each, one
 *   64-byte line per CPU as the kernel's per-CPU qnodes), indexed by the
 *   running task's simulated CPU. That is exact only because preemption is
 *   off from before the node is taken until after it is released, so the
 *   task cannot leave the CPU, and an interrupt handler on the same CPU nests
 *   at the next index, as in the kernel. Natively neither holds (a thread can
 *   be preempted or migrated between any two instructions), one reason the
 *   native build does not use this lock.
 * - Paravirt (pv_wait_node/pv_kick, virt_spin_lock) and the NUMA-aware
 *   variant (CNA, never merged) are not modelled; neither are the lock
 *   event counters (qstat/lockevents) nor prefetchw of the successor.
 * - Measured (results/sim/speed.txt, generic-384 locktest:lat=0 rwsem, 300 ms,
 *   against the test-and-test-and-set stand-in it replaced under --sim): at
 *   384 threads 267 -> 136 simulated accesses per acquisition, simulated
 *   throughput 109,579 -> 182,278 op/s (1.66x; 1.24x at 256, 1.08x at 192,
 *   within 1% at 8..64: the herd only forms when most CPUs contend).
 * - The simulator parks a spin whose polls re-read unchanged lines (sim/
 *   README.md): the 512-poll pending wait then counts parks, each ended by
 *   the word changing or 100 us.
 */
#pragma once

#include "compiler.h"

#if LAB_SIM	/* natively empty: spinlock.h's stand-in is raw_spinlock_t there */
#include <stdint.h>
#include "atomic.h"
#include "sim.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "locks/qspinlock.h: the byte and halfword views assume little-endian"
#endif

#define LAB_Q_LOCKED_VAL	1u
#define LAB_Q_LOCKED_MASK	0x000000ffu
#define LAB_Q_PENDING_VAL	(1u << 8)
#define LAB_Q_PENDING_MASK	0x0000ff00u
#define LAB_Q_LOCKED_PENDING_MASK 0x0000ffffu
#define LAB_Q_TAIL_IDX_OFFSET	16
#define LAB_Q_TAIL_IDX_MASK	(3u << LAB_Q_TAIL_IDX_OFFSET)
#define LAB_Q_TAIL_CPU_OFFSET	18
#define LAB_Q_TAIL_MASK		0xffff0000u
#define LAB_Q_MAX_NODES		4	/* task, softirq, hardirq, nmi */
#define LAB_Q_PENDING_LOOPS	512	/* x86's (1 << 9) */
#define LAB_Q_MAX_CPUS		SIM_MAX_CPUS	/* 14 tail bits allow 16383 */

typedef struct raw_spinlock {
	union {
		uint32_t val;
		struct {
			uint8_t locked;
			uint8_t pending;
		};
		struct {
			uint16_t locked_pending;
			uint16_t tail;
		};
	};
} raw_spinlock_t;

/* kernel/locking/mcs_spinlock.h's node; count is used in node 0 only. */
struct lab_qspin_node {
	struct lab_qspin_node *next;
	int locked;		/* 1: the head role was passed to this node */
	int count;		/* nesting depth on this CPU (node 0) */
};

/* Per simulated CPU, one 64-byte line each (locks/qspinlock.c). */
extern struct lab_qspin_node lab_qspin_nodes[LAB_Q_MAX_CPUS][LAB_Q_MAX_NODES];

/* The slow path (qspinlock.c); @val is the word the fast path found. */
void lab_queued_spin_lock_slowpath(raw_spinlock_t *lock, uint32_t val);

static inline void raw_spin_lock_init(raw_spinlock_t *l)
{
	WRITE_ONCE(l->val, 0);
}

/* queued_spin_trylock: only a free word is tried. Preemption stays off on success. */
static inline int raw_spin_trylock(raw_spinlock_t *l)
{
	uint32_t val;

	sim_preempt_disable();
	val = READ_ONCE(l->val);
	if (!val && atomic_try_cmpxchg_acquire(&l->val, &val, LAB_Q_LOCKED_VAL))
		return 1;
	sim_preempt_enable();
	return 0;
}

static inline void raw_spin_lock(raw_spinlock_t *l)
{
	uint32_t val = 0;

	sim_preempt_disable();
	if (__builtin_expect(atomic_try_cmpxchg_acquire(&l->val, &val, LAB_Q_LOCKED_VAL), 1))
		return;
	lab_queued_spin_lock_slowpath(l, val);
}

static inline void raw_spin_unlock(raw_spinlock_t *l)
{
	smp_store_release(&l->locked, 0);
	sim_preempt_enable();
}

static inline int raw_spin_is_locked(raw_spinlock_t *l)
{
	return READ_ONCE(l->val) != 0;
}
#endif
