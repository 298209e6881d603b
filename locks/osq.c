/* SPDX-License-Identifier: GPL-2.0-only */
/* The optimistic spin queue: see osq.h. */
#include "events.h"
#include "osq.h"

struct optimistic_spin_node {
	struct optimistic_spin_node *next, *prev;
	int locked;		/* 1 if lock acquired */
	int cpu;		/* encoded id + 1 */
} __lab_cacheline_aligned;

static struct optimistic_spin_node osq_node[LAB_MAX_TASKS];

static inline int encode_cpu(int id)
{
	return id + 1;
}

static inline struct optimistic_spin_node *decode_cpu(int val)
{
	return &osq_node[val - 1];
}

/*
 * Find who follows @node, for unlock or abort. If nobody has queued behind
 * us, move the tail back to @old_cpu and return NULL.
 */
static struct optimistic_spin_node *osq_wait_next(struct optimistic_spin_queue *lock,
						  struct optimistic_spin_node *node, int old_cpu)
{
	int curr = node->cpu;

	for (;;) {
		if (READ_ONCE(lock->tail) == curr &&
		    atomic_cmpxchg_acquire(&lock->tail, curr, old_cpu) == curr) {
			/* We were the last queued: moved the tail back; no next. */
			return NULL;
		}
		/* Take the link with xchg so that a successor that is itself
		 * aborting cannot still find us as its predecessor's next. */
		if (READ_ONCE(node->next)) {
			struct optimistic_spin_node *next = atomic_xchg(&node->next, NULL);

			if (next)
				return next;
		}
		cpu_relax();
	}
}

static inline bool prev_preempted(struct optimistic_spin_node *prev)
{
	struct lab_task *t = lab_task_by_id(READ_ONCE(prev->cpu) - 1);

	return t && !owner_on_cpu(t);
}

bool osq_lock(struct optimistic_spin_queue *lock)
{
	struct lab_task *me = lab_current();
	struct optimistic_spin_node *node = &osq_node[me->id];
	struct optimistic_spin_node *prev, *next;
	int curr = encode_cpu(me->id);
	int old;

	WRITE_ONCE(node->locked, 0);
	WRITE_ONCE(node->next, NULL);
	WRITE_ONCE(node->cpu, curr);

	/* Full barrier: publish the initialised node before the tail (pairs with osq_wait_next). */
	old = atomic_xchg(&lock->tail, curr);
	if (old == OSQ_UNLOCKED_VAL)
		return true;

	prev = decode_cpu(old);
	WRITE_ONCE(node->prev, prev);
	/*
	 * node->prev must be visible before prev->next: a concurrent unqueue
	 * of prev reads our prev after seeing us as its next.
	 */
	smp_wmb();
	WRITE_ONCE(prev->next, node);

	/* Spin until the predecessor hands over, or give up. */
	while (!smp_load_acquire(&node->locked)) {
		if (need_resched() || prev_preempted(READ_ONCE(node->prev)))
			goto unqueue;
		cpu_relax();
	}
	return true;

unqueue:
	lockevent_inc(osq_abort);
	/*
	 * Abort, in three steps.
	 * 1. Detach from prev: clear prev->next if it still points at us. Once
	 *    it is cleared, prev (unlocking or aborting) waits for a new next.
	 *    If prev is aborting too, it will hand us a new prev: re-read it.
	 */
	for (;;) {
		struct optimistic_spin_node *expect = node;

		if (READ_ONCE(prev->next) == node &&
		    atomic_try_cmpxchg(&prev->next, &expect, NULL))
			break;
		/* The handover raced with our abort and won: we are the head. */
		if (smp_load_acquire(&node->locked))
			return true;
		cpu_relax();
		prev = READ_ONCE(node->prev);
	}

	/* 2. Find our successor, or point the tail back at prev if none. */
	/* prev's owner rewrites prev->cpu (same value) each time it queues. */
	next = osq_wait_next(lock, node, READ_ONCE(prev->cpu));
	if (!next)
		return false;

	/* 3. Link successor and predecessor to each other; we are out. */
	WRITE_ONCE(next->prev, prev);
	WRITE_ONCE(prev->next, next);
	return false;
}

void osq_unlock(struct optimistic_spin_queue *lock)
{
	struct lab_task *me = lab_current();
	struct optimistic_spin_node *node = &osq_node[me->id], *next;
	int curr = encode_cpu(me->id);

	/* Nobody behind us: empty the queue. */
	if (atomic_try_cmpxchg_release(&lock->tail, &curr, OSQ_UNLOCKED_VAL))
		return;

	/* Someone linked behind us: make it the head. */
	next = atomic_xchg(&node->next, NULL);
	if (next) {
		smp_store_release(&next->locked, 1);
		return;
	}
	next = osq_wait_next(lock, node, OSQ_UNLOCKED_VAL);
	if (next)
		smp_store_release(&next->locked, 1);
}
