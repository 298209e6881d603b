/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/qspinlock.c - the queued spinlock's per-CPU nodes and slow path, for
 * the simulated build only (compiled empty natively). The design, the source
 * (v6.4 kernel/locking/qspinlock.c) and what is not modelled: qspinlock.h.
 */
#include "compiler.h"

#if LAB_SIM
#include "qspinlock.h"

struct lab_qspin_node lab_qspin_nodes[LAB_Q_MAX_CPUS][LAB_Q_MAX_NODES] __attribute__((aligned(64)));

_Static_assert(sizeof(struct lab_qspin_node) * LAB_Q_MAX_NODES == 64, "one line of nodes per CPU");
_Static_assert(LAB_Q_MAX_CPUS < (1 << (32 - LAB_Q_TAIL_CPU_OFFSET)), "the tail holds every CPU + 1");

static uint32_t encode_tail(int cpu, int idx)
{
	return ((uint32_t)(cpu + 1) << LAB_Q_TAIL_CPU_OFFSET) | ((uint32_t)idx << LAB_Q_TAIL_IDX_OFFSET);
}

static struct lab_qspin_node *decode_tail(uint32_t tail)
{
	int cpu = (int)(tail >> LAB_Q_TAIL_CPU_OFFSET) - 1;
	int idx = (int)((tail & LAB_Q_TAIL_IDX_MASK) >> LAB_Q_TAIL_IDX_OFFSET);

	return &lab_qspin_nodes[cpu][idx];
}

/* x86's queued_fetch_set_pending_acquire: bts of the pending bit, then a load of the rest. */
static uint32_t fetch_set_pending_acquire(raw_spinlock_t *lock)
{
	uint32_t val = atomic_fetch_or_acquire(&lock->val, LAB_Q_PENDING_VAL) & LAB_Q_PENDING_VAL;

	return val | (READ_ONCE(lock->val) & ~LAB_Q_PENDING_MASK);
}

/* The pending path: true if it took the lock, false if the caller must queue. */
static int pending_path(raw_spinlock_t *lock, uint32_t val)
{
	/* A word that is exactly "pending": its owner is about to take the lock. */
	if (val == LAB_Q_PENDING_VAL) {
		int cnt = LAB_Q_PENDING_LOOPS;

		while ((val = READ_ONCE(lock->val)) == LAB_Q_PENDING_VAL && cnt--)
			cpu_relax();
	}
	if (val & ~LAB_Q_LOCKED_MASK)
		return 0;	/* contended: a pending owner or a queue */
	val = fetch_set_pending_acquire(lock);
	if (val & ~LAB_Q_LOCKED_MASK) {
		if (!(val & LAB_Q_PENDING_MASK))
			WRITE_ONCE(lock->pending, 0);	/* clear_pending: the bit was ours */
		return 0;
	}
	/* We own pending: wait for the holder, then locked over pending in one store. */
	if (val & LAB_Q_LOCKED_MASK)
		while (smp_load_acquire(&lock->locked))
			cpu_relax();
	WRITE_ONCE(lock->locked_pending, LAB_Q_LOCKED_VAL);
	return 1;
}

/* At the queue's head: take the lock and pass the head role to @next (or whoever links in). */
static void head_take(raw_spinlock_t *lock, struct lab_qspin_node *node, struct lab_qspin_node *next, uint32_t tail)
{
	uint32_t val;

	while ((val = smp_load_acquire(&lock->val)) & LAB_Q_LOCKED_PENDING_MASK)
		cpu_relax();
	/* Still the tail: nobody queued behind us, the word becomes plain "locked". */
	if ((val & LAB_Q_TAIL_MASK) == tail && atomic_try_cmpxchg_relaxed(&lock->val, &val, LAB_Q_LOCKED_VAL))
		return;
	WRITE_ONCE(lock->locked, LAB_Q_LOCKED_VAL);	/* set_locked */
	if (!next)
		while (!(next = READ_ONCE(node->next)))
			cpu_relax();
	smp_store_release(&next->locked, 1);
}

void lab_queued_spin_lock_slowpath(raw_spinlock_t *lock, uint32_t val)
{
	struct lab_qspin_node *base, *node, *prev, *next = NULL;
	uint32_t tail, old;
	int idx, cpu = sim_current_cpu();

	if (pending_path(lock, val))
		return;
	base = &lab_qspin_nodes[cpu][0];
	idx = base->count++;	/* a per-CPU counter: not a shared access */
	if (idx >= LAB_Q_MAX_NODES) {
		/* Nested deeper than the nodes go: spin on trylock (the kernel's lock_no_node). */
		for (val = READ_ONCE(lock->val);; val = READ_ONCE(lock->val)) {
			if (!val && atomic_try_cmpxchg_acquire(&lock->val, &val, LAB_Q_LOCKED_VAL))
				break;
			cpu_relax();
		}
		base->count--;
		return;
	}
	tail = encode_tail(cpu, idx);
	node = base + idx;
	WRITE_ONCE(node->locked, 0);
	WRITE_ONCE(node->next, NULL);
	/* One more try before queueing: the holder may have gone meanwhile. */
	val = READ_ONCE(lock->val);
	if (!val && atomic_try_cmpxchg_acquire(&lock->val, &val, LAB_Q_LOCKED_VAL)) {
		base->count--;
		return;
	}
	/* xchg_tail: swap our tail into the word's upper halfword (NR_CPUS < 16K). */
	old = (uint32_t)atomic_xchg_relaxed(&lock->tail, (uint16_t)(tail >> 16)) << 16;
	if (old & LAB_Q_TAIL_MASK) {
		prev = decode_tail(old);
		WRITE_ONCE(prev->next, node);
		while (!smp_load_acquire(&node->locked))	/* arch_mcs_spin_lock_contended */
			cpu_relax();
		next = READ_ONCE(node->next);
	}
	head_take(lock, node, next, tail);
	base->count--;
}
#else
typedef int lab_qspinlock_native_empty;	/* natively: spinlock.h's stand-in */
#endif
