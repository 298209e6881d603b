/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/wake_q.h - deferred wakeups: collect tasks under a lock, wake them
 * after dropping it (the kernel's wake_q, kernel/sched/core.c wake_q_add /
 * wake_up_q, v4.20..v6.18).
 *
 * A task can be on one wake_q at a time. wake_q_add() of a task that is
 * already queued elsewhere does nothing: the pending wake_up_q() of that other
 * queue clears the link before it wakes the task, so the wakeup still happens
 * after the caller's condition was made true.
 *
 * Threading: a wake_q_head belongs to one thread (it lives on the waker's
 * stack); the per-task link is claimed with a cmpxchg.
 */
#pragma once

#include "atomic.h"
#include "wait.h"

#define WAKE_Q_TAIL ((struct lab_task *)0x1)

struct wake_q_head {
	struct lab_task *first;
	struct lab_task **lastp;
	int count;
};

static inline void wake_q_init(struct wake_q_head *q)
{
	q->first = WAKE_Q_TAIL;
	q->lastp = &q->first;
	q->count = 0;
}

static inline int wake_q_empty(const struct wake_q_head *q)
{
	return q->first == WAKE_Q_TAIL;
}

/* Queue @t for a wakeup. Returns 1 if queued here, 0 if already on a wake_q. */
static inline int wake_q_add(struct wake_q_head *q, struct lab_task *t)
{
	struct lab_task *old = NULL;

	/* Full barrier on success: the caller's condition store precedes the link. */
	if (!atomic_try_cmpxchg(&t->wake_q_next, &old, WAKE_Q_TAIL))
		return 0;
	/*
	 * Atomic store: the previous task's link was last written (NULL) by
	 * another thread's wake_up_q(), which our relaxed-read cmpxchg does not
	 * order against a plain store.
	 */
	WRITE_ONCE(*q->lastp, t);
	q->lastp = &t->wake_q_next;
	q->count++;
	return 1;
}

/* Wake every queued task and empty the queue. */
static inline void wake_up_q(struct wake_q_head *q)
{
	struct lab_task *t = q->first;

	while (t != WAKE_Q_TAIL) {
		struct lab_task *next = READ_ONCE(t->wake_q_next);

		/* Unlink before waking: a new wake_q_add() must queue a new wakeup. */
		WRITE_ONCE(t->wake_q_next, NULL);
		wake_up_process(t);
		t = next;
	}
	wake_q_init(q);
}
