/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/rwsem_mainline_impl.h - the one copy of the mainline rwsem algorithm
 * (Linux v6.3 kernel/locking/rwsem.c, unchanged in v6.18; docs/kernel.md
 * §2.2-2.6, §3.1-3.3, §3.5), shared by two variants:
 *
 *   locks/rwsem_mainline.c   "rwsem"           defines LAB_RWSEM_DHANDOFF 0
 *   locks/rwsem_dhandoff.c   "rwsem-dhandoff"  defines LAB_RWSEM_DHANDOFF 1
 *
 * Each variant file defines LAB_RWSEM_DHANDOFF and then includes this header,
 * which expands into static functions (a template in the dav1d *_tmpl.c
 * sense): the mainline variant's object code has no direct-handoff branches
 * at all. Without LAB_RWSEM_DHANDOFF only the layout, the bit constants and
 * the read-only helpers below are visible; tests/regression/rwsem_mainline.c
 * includes it that way to look at the count and owner words.
 *
 * Design summary and the bit layouts are in the two variant files' headers;
 * the comments here explain the individual steps.
 *
 * Threading: fields marked [wait_lock] are read and written only with
 * wait_lock held (still through READ_ONCE/WRITE_ONCE, the atomic.h seam).
 * count and owner are accessed locklessly by every path. A waiter lives on
 * its sleeper's stack; a waker must not touch it after the store that
 * releases the sleeper (waiter->task = NULL: for readers, and for a writer
 * granted the lock under direct handoff).
 */
#pragma once

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atomic.h"
#include "compiler.h"
#include "debug.h"
#include "events.h"
#include "osq.h"
#include "rwsem.h"
#include "spinlock.h"
#include "wait.h"
#include "wake_q.h"

/* ---- the count word (64-bit long) ------------------------------------- */

#define RWSEM_WRITER_LOCKED	(1L << 0)	/* a writer holds the lock */
#define RWSEM_FLAG_WAITERS	(1L << 1)	/* the wait list is not empty */
#define RWSEM_FLAG_HANDOFF	(1L << 2)	/* stealing and spinning are off: the head waiter goes next */
#define RWSEM_FLAG_READFAIL	LONG_MIN	/* bit 63: reader-count overflow guard, never set in practice */
#define RWSEM_READER_SHIFT	8
#define RWSEM_READER_BIAS	(1L << RWSEM_READER_SHIFT)
#define RWSEM_READER_MASK	(~(RWSEM_READER_BIAS - 1))	/* bits 8..63, READFAIL included */
#define RWSEM_WRITER_MASK	RWSEM_WRITER_LOCKED
#define RWSEM_LOCK_MASK		(RWSEM_WRITER_MASK | RWSEM_READER_MASK)
#define RWSEM_READ_FAILED_MASK	(RWSEM_WRITER_MASK | RWSEM_FLAG_WAITERS | RWSEM_FLAG_HANDOFF | \
				 RWSEM_FLAG_READFAIL)

/* ---- the owner word: a struct lab_task pointer (64-byte aligned) | flags - */

#define RWSEM_READER_OWNED	(1UL << 0)	/* last taken by readers: the pointer is only a hint */
#define RWSEM_NONSPINNABLE	(1UL << 1)	/* writers must not optimistically spin */
#define RWSEM_OWNER_FLAGS_MASK	(RWSEM_READER_OWNED | RWSEM_NONSPINNABLE)

/* A minimal circular doubly linked list for the wait queue. [wait_lock] */
struct rwsem_list {
	struct rwsem_list *next, *prev;
};

enum rwsem_waiter_type {
	RWSEM_WAITING_FOR_WRITE,
	RWSEM_WAITING_FOR_READ,
};

/*
 * What a waiter knows about the handoff: mainline's bool handoff_set as
 * NONE/REQUESTED. The direct handoff v4-v6 added a GRANTED state (rwsem-dhandoff
 * version=4); v7 (the default) signals a grant with waiter->task = NULL.
 */
enum rwsem_handoff_state {
	RWSEM_HANDOFF_NONE,
	RWSEM_HANDOFF_REQUESTED,	/* this head waiter's HANDOFF bit is in the count */
	RWSEM_HANDOFF_GRANTED,		/* dhandoff version=4 only: rwsem_handoff() granted it */
};

struct rwsem_waiter {
	struct rwsem_list list;		/* [wait_lock] */
	struct lab_task *task;		/* set to NULL (release) once granted (dhandoff: writers too) */
	enum rwsem_waiter_type type;
	int handoff;			/* enum rwsem_handoff_state; only the head ever leaves NONE */
	uint64_t timeout;		/* lab_jiffies_ns() after which it may request a handoff */
};

/*
 * 8-byte aligned as the kernel's (LAB_CAP_EMBED: the mm model places the
 * mmap_lock inside its mm_struct image); allocated alone at a line
 * (ops->align), so the knobs start on the next line. Bytes 40..63 are never
 * touched after init (ops->own_off: mm_struct's mmlist and mm_lock_seq lie
 * there in the image). A packed object (LAB_CAP_PACKED: v6.4's vma_lock
 * slab) is the first 40 bytes alone; its knobs are in its side record
 * (rwsem_ml_knobs()).
 */
struct rwsem_mainline {
	union {
		struct {	/* the kernel's struct rw_semaphore, in its order: 40 bytes */
			long count;
			unsigned long owner;
			struct optimistic_spin_queue osq;
			raw_spinlock_t wait_lock;
			struct rwsem_list wait_list;	/* [wait_lock] */
		};
		char sem_line[LAB_CACHELINE];
	};

	/* Knobs, read-only after init, a line after count (the kernel compiles them in). */
	uint64_t handoff_timeout_ns;	/* RWSEM_WAIT_TIMEOUT */
	uint64_t spin_budget_ns;	/* need_resched() as a budget (ablation); 0: preempted */
	long max_readers_wakeup;	/* MAX_READERS_WAKEUP */
	bool wspin;			/* writer optimistic spinning (CONFIG_RWSEM_SPIN_ON_OWNER) */
	bool rsteal;			/* reader lock stealing in the read slow path */
	int oncpu;			/* enum lab_oncpu: owner_on_cpu()'s signal (wait.h) */
	bool clear_reader_owner;	/* up_read clears the owner word naming it (v6.18 blocker) */
	bool rtrylock_blind;		/* down_read_trylock as before v5.16: cmpxchg from UNLOCKED first */
	bool dh_v4;			/* rwsem-dhandoff version=4 (never set for rwsem) */
};
_Static_assert(offsetof(struct rwsem_mainline, handoff_timeout_ns) == LAB_CACHELINE,
	       "the knobs start a line after count");
_Static_assert(offsetof(struct rwsem_mainline, wait_list) + sizeof(struct rwsem_list) == LAB_RWSEM_KERNEL_SIZE,
	       "the kernel's part is the 40 bytes a packed object (v6.4's struct vma_lock) holds");

/* Knob order = conf->knob[] order (shared by both variants). */
enum {
	RWSEM_KNOB_HANDOFF_TIMEOUT_US,
	RWSEM_KNOB_WSPIN,
	RWSEM_KNOB_MAX_READERS_WAKEUP,
	RWSEM_KNOB_RSTEAL,
	RWSEM_KNOB_SPIN_BUDGET_US,
	RWSEM_KNOB_ONCPU,
	RWSEM_KNOB_HUNG_TASK_BLOCKER,
	RWSEM_KNOB_RTRYLOCK,
	RWSEM_KNOB_VERSION,		/* rwsem-dhandoff only */
};

/* The knobs both variants have (rwsem-dhandoff adds version after them). */
#define RWSEM_ML_COMMON_KNOBS \
	{ .name = "handoff_timeout_us", .type = LAB_KNOB_INT, .def = 4000, .min = 0, .max = 10000000, \
	  .help = "us a waiter queues before it may set HANDOFF " \
		  "(RWSEM_WAIT_TIMEOUT, 4 ms at HZ=250/1000)" }, \
	{ .name = "wspin", .type = LAB_KNOB_BOOL, .def = 1, \
	  .help = "writer optimistic spinning, and mainline's owner-spin after HANDOFF " \
		  "(CONFIG_RWSEM_SPIN_ON_OWNER=y)" }, \
	{ .name = "max_readers_wakeup", .type = LAB_KNOB_INT, .def = 256, .min = 1, .max = 1 << 20, \
	  .help = "readers granted per wakeup (MAX_READERS_WAKEUP = 0x100)" }, \
	{ .name = "rsteal", .type = LAB_KNOB_BOOL, .def = 1, \
	  .help = "reader lock stealing in the read slow path (v5.11+, on in the kernel)" }, \
	{ .name = "spin_budget_us", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 1000000, \
	  .help = "need_resched() as a fixed spin budget in us (ablation; no kernel value); " \
		  "0: the spinner was preempted (its switch ring moved)" }, \
	{ .name = "oncpu", .type = LAB_KNOB_ENUM, .def = 0, .choices = "switch|clock|flag", \
	  .help = "owner_on_cpu(): switch = the owner's context-switch ring (perf, plain loads); " \
		  "clock = its thread CPU clock sampled every 25 us; flag = futex flag only (ablation)" }, \
	{ .name = "hung_task_blocker", .type = LAB_KNOB_BOOL, .def = 1, \
	  .help = "v6.18 CONFIG_DETECT_HUNG_TASK_BLOCKER: up_read clears an owner word that names " \
		  "the reader (a cmpxchg); Kconfig default y with DETECT_HUNG_TASK, as distributions " \
		  "build; 0 = v6.3" }, \
	{ .name = "rtrylock", .type = LAB_KNOB_ENUM, .def = 0, .choices = "read|blind", \
	  .help = "down_read_trylock: read = read the count first (v5.16+, 14c24048841151548a3f4d9e218510c844c1b737); " \
		  "blind = cmpxchg from RWSEM_UNLOCKED_VALUE first (v5.15 and before)" },

static const struct lab_knob rwsem_mainline_knobs[] __lab_unused = {
	RWSEM_ML_COMMON_KNOBS
	{ .name = NULL },
};

/*
 * rwsem-dhandoff only: which posting of the direct-handoff patch runs
 * (index 0 = v7 2023-01-25, 1 = v4 2022-10-24; v5 and v6 behave as v4).
 */
static const struct lab_knob rwsem_dhandoff_knobs[] __lab_unused = {
	RWSEM_ML_COMMON_KNOBS
	{ .name = "version", .type = LAB_KNOB_ENUM, .def = 0, .choices = "7|4",
	  .help = "direct-handoff patch as posted: 7 = v7 4/4 (2023-01-25, writers only); "
		  "4 = v4 4/5 (2022-10-24, readers too; known broken, hangs: README)" },
	{ .name = NULL },
};

static inline struct rwsem_mainline *rwsem_ml(struct lab_rwsem *s)
{
	return (struct rwsem_mainline *)s;
}

/*
 * The state holding @sem's knobs: @sem itself, or for a packed object
 * (LAB_CAP_PACKED: just the kernel's 40 bytes) its side record.
 */
static inline struct rwsem_mainline *rwsem_ml_knobs(struct rwsem_mainline *sem)
{
	struct rwsem_mainline *side = lab_lock_side(sem);

	return lab_likely(!side) ? sem : side;
}

/* The owner's task pointer without the flag bits. */
static inline struct lab_task *rwsem_owner_task(unsigned long owner)
{
	return (struct lab_task *)(owner & ~RWSEM_OWNER_FLAGS_MASK);
}

#ifdef LAB_RWSEM_DHANDOFF
/* ===== the algorithm (variant files only) =============================== */

/* ---- wait list --------------------------------------------------------- */

static inline void rwsem_list_init(struct rwsem_list *h)
{
	WRITE_ONCE(h->next, h);
	WRITE_ONCE(h->prev, h);
}

static inline bool rwsem_list_empty(struct rwsem_list *h)
{
	return READ_ONCE(h->next) == h;
}

static inline bool rwsem_list_singular(struct rwsem_list *h)
{
	struct rwsem_list *n = READ_ONCE(h->next);

	return n != h && READ_ONCE(n->next) == h;
}

static inline void rwsem_list_add_tail(struct rwsem_list *n, struct rwsem_list *h)
{
	struct rwsem_list *last = READ_ONCE(h->prev);

	WRITE_ONCE(n->next, h);
	WRITE_ONCE(n->prev, last);
	WRITE_ONCE(last->next, n);
	WRITE_ONCE(h->prev, n);
}

static inline void rwsem_list_del(struct rwsem_list *n)
{
	struct rwsem_list *next = READ_ONCE(n->next), *prev = READ_ONCE(n->prev);

	WRITE_ONCE(prev->next, next);
	WRITE_ONCE(next->prev, prev);
}

static inline struct rwsem_waiter *rwsem_list_waiter(struct rwsem_list *n)
{
	return lab_container_of(n, struct rwsem_waiter, list);
}

/* Wait list head. Needs wait_lock and a non-empty list. */
static inline struct rwsem_waiter *rwsem_first_waiter(struct rwsem_mainline *sem)
{
	return rwsem_list_waiter(READ_ONCE(sem->wait_list.next));
}

/* ---- wait_lock release: the invariants (debug.h) ---------------------- */

#define RWSEM_ML_NAME (LAB_RWSEM_DHANDOFF ? "rwsem-dhandoff" : "rwsem")

/*
 * Release wait_lock, first checking what must hold whenever nobody holds
 * it: HANDOFF and WAITERS only with waiters queued, WAITERS whenever there
 * are, and no reader-count underflow (the count's sign bit is READFAIL,
 * which a real reader count never reaches).
 */
static inline void rwsem_wait_unlock(struct rwsem_mainline *sem)
{
	long c = READ_ONCE(sem->count);
	bool empty = rwsem_list_empty(&sem->wait_list);

	LAB_RWSEM_CHECK((c & RWSEM_FLAG_HANDOFF) && empty, RWSEM_ML_NAME, "HANDOFF with no waiter", c);
	LAB_RWSEM_CHECK(!(c & RWSEM_FLAG_WAITERS) != empty, RWSEM_ML_NAME, "WAITERS != queue not empty", c);
	LAB_RWSEM_CHECK(c < 0, RWSEM_ML_NAME, "count underflow", c);
	raw_spin_unlock(&sem->wait_lock);
}

/* ---- owner word -------------------------------------------------------- */

static inline void rwsem_set_owner(struct rwsem_mainline *sem, struct lab_task *t)
{
	WRITE_ONCE(sem->owner, (unsigned long)t);
}

static inline void rwsem_clear_owner(struct rwsem_mainline *sem)
{
	WRITE_ONCE(sem->owner, 0UL);
}

/* Mark reader-owned by @t, keeping a NONSPINNABLE bit that a writer set. */
static inline void rwsem_set_reader_owned_by(struct rwsem_mainline *sem, struct lab_task *t)
{
	unsigned long keep = READ_ONCE(sem->owner) & RWSEM_NONSPINNABLE;

	WRITE_ONCE(sem->owner, (unsigned long)t | RWSEM_READER_OWNED | keep);
}

static inline void rwsem_set_reader_owned(struct rwsem_mainline *sem)
{
	rwsem_set_reader_owned_by(sem, lab_current());
}

/*
 * rwsem_clear_reader_owned() (v6.18, CONFIG_DEBUG_RWSEMS or
 * CONFIG_DETECT_HUNG_TASK_BLOCKER): if the owner word names us, drop the
 * task and keep the flags, so that no stale reader is reported as a
 * blocker. A fully ordered cmpxchg on the count's cache line, in up_read.
 */
static inline void rwsem_clear_reader_owned(struct rwsem_mainline *sem)
{
	unsigned long val = READ_ONCE(sem->owner);

	while ((val & ~RWSEM_OWNER_FLAGS_MASK) == (unsigned long)lab_current()) {
		if (atomic_try_cmpxchg(&sem->owner, &val, val & RWSEM_OWNER_FLAGS_MASK))
			return;
	}
}

/* Stop writers spinning on a reader-owned lock (only while it is still reader-owned). */
static inline void rwsem_set_nonspinnable(struct rwsem_mainline *sem)
{
	unsigned long o = READ_ONCE(sem->owner);

	while ((o & RWSEM_READER_OWNED) && !(o & RWSEM_NONSPINNABLE)) {
		if (atomic_try_cmpxchg(&sem->owner, &o, o | RWSEM_NONSPINNABLE))
			break;
	}
}

static inline void rwsem_clear_nonspinnable(struct rwsem_mainline *sem)
{
	if (lab_unlikely(READ_ONCE(sem->owner) & RWSEM_NONSPINNABLE))
		atomic_andnot(&sem->owner, RWSEM_NONSPINNABLE);
}

static inline bool rwsem_timed_out(const struct rwsem_waiter *w)
{
	/* time_after(jiffies, timeout); user space has no RT tasks to exempt */
	return lab_jiffies_ns() > w->timeout;
}

/*
 * Enter schedule() and count the sleep, at every call as v6.x does (a
 * wakeup that already arrived makes schedule() return at once; it counts).
 */
static inline void rwsem_schedule(bool writer)
{
	schedule();
	if (writer)
		lockevent_inc(rwsem_sleep_writer);
	else
		lockevent_inc(rwsem_sleep_reader);
}

/* ---- waking ------------------------------------------------------------ */

enum rwsem_wake_type {
	RWSEM_WAKE_ANY,		/* wake whoever heads the queue */
	RWSEM_WAKE_READERS,	/* wake readers only (the lock may be reader-held) */
	RWSEM_WAKE_READ_OWNED,	/* the caller holds it for read: grant readers without checking */
};


/*
 * rwsem_mark_wake() - hand the lock to the waiters at the front.
 * - wait_lock held, wait list not empty;
 * - a writer at the head is only woken (WAKE_ANY), to take the lock itself
 *   (dhandoff: rwsem_wake() grants it first when HANDOFF is set and the
 *   lock is free, see rwsem_handoff_to_writer());
 * - a reader at the head: take one reader bias provisionally (unless the
 *   caller holds it for read); if a writer got in first, undo, and request a
 *   handoff if the head has waited past its timeout. Otherwise grant up to
 *   max_readers_wakeup readers from anywhere in the queue, writers skipped,
 *   in two passes: all counts are added before any reader is released.
 */
static void rwsem_mark_wake(struct rwsem_mainline *sem, enum rwsem_wake_type wake_type,
			    struct wake_q_head *wake_q)
{
	struct rwsem_waiter *first = rwsem_first_waiter(sem);
	struct rwsem_list granted, *pos, *next;
	long adjustment = 0, oldcount, woken = 0;

	if (first->type == RWSEM_WAITING_FOR_WRITE) {
		if (wake_type == RWSEM_WAKE_ANY) {
			wake_q_add(wake_q, first->task);
			lockevent_inc(rwsem_wake_writer);
		}
		return;
	}

	/* Reader count overflowed: grant nothing. */
	if (lab_unlikely(READ_ONCE(sem->count) < 0))
		return;

	if (wake_type != RWSEM_WAKE_READ_OWNED) {
		adjustment = RWSEM_READER_BIAS;
		/* Fully ordered: the provisional grant races with writers taking the lock. */
		oldcount = atomic_fetch_add(&sem->count, adjustment);
		if (lab_unlikely(oldcount & RWSEM_WRITER_MASK)) {
			/* A writer won. A head reader that waited too long asks for the handoff. */
			if (rwsem_timed_out(first)) {
				if (!(oldcount & RWSEM_FLAG_HANDOFF)) {
					adjustment -= RWSEM_FLAG_HANDOFF;
					lockevent_inc(rwsem_rlock_handoff);
				}
				WRITE_ONCE(first->handoff, RWSEM_HANDOFF_REQUESTED);
#if LAB_RWSEM_DHANDOFF
				/* v7: a reader's handoff must stop all spinning (not v4). */
				if (!rwsem_ml_knobs(sem)->dh_v4)
					rwsem_set_nonspinnable(sem);
#endif
			}
			atomic_add(&sem->count, -adjustment);
			return;
		}
		rwsem_set_reader_owned_by(sem, first->task);
	}
#if LAB_RWSEM_DHANDOFF
	else if (READ_ONCE(first->handoff) == RWSEM_HANDOFF_GRANTED) {
		/* v4: rwsem_handoff() already added the head reader's bias. */
		adjustment = RWSEM_READER_BIAS;
	}
#endif

	/* Pass 1: move the readers to a private list, from the whole queue. */
	rwsem_list_init(&granted);
	for (pos = READ_ONCE(sem->wait_list.next); pos != &sem->wait_list; pos = next) {
		struct rwsem_waiter *w = rwsem_list_waiter(pos);

		next = READ_ONCE(pos->next);
		if (w->type == RWSEM_WAITING_FOR_WRITE)
			continue;
		rwsem_list_del(pos);
		rwsem_list_add_tail(pos, &granted);
		if (++woken >= rwsem_ml_knobs(sem)->max_readers_wakeup)
			break;
	}

	adjustment = woken * RWSEM_READER_BIAS - adjustment;
	lockevent_cond_inc(rwsem_wake_reader, woken);

	/* HANDOFF changes only under wait_lock, so this read stays true. */
	oldcount = READ_ONCE(sem->count);
	if (rwsem_list_empty(&sem->wait_list)) {
		adjustment -= RWSEM_FLAG_WAITERS;
		if (oldcount & RWSEM_FLAG_HANDOFF)
			adjustment -= RWSEM_FLAG_HANDOFF;
	} else if (woken && (oldcount & RWSEM_FLAG_HANDOFF)) {
		/* Readers got it: the handoff is served. */
		adjustment -= RWSEM_FLAG_HANDOFF;
	}
	if (adjustment)
		atomic_add(&sem->count, adjustment);

	/* Pass 2: release the readers. Read each link before its owner may leave. */
	for (pos = READ_ONCE(granted.next); pos != &granted; pos = next) {
		struct rwsem_waiter *w = rwsem_list_waiter(pos);
		struct lab_task *t = READ_ONCE(w->task);

		next = READ_ONCE(pos->next);
		/* Release: the count update above is visible to the reader (its acquire of task). */
		smp_store_release(&w->task, (struct lab_task *)NULL);
		wake_q_add(wake_q, t);
	}
}

/*
 * Called by a slow path that just queued itself and read @count: if no
 * writer holds the lock, someone at the head may be able to go. Needs
 * wait_lock.
 */
static void rwsem_cond_wake_waiter(struct rwsem_mainline *sem, long count,
				   struct wake_q_head *wake_q)
{
	enum rwsem_wake_type wake_type;

	if (count & RWSEM_WRITER_MASK)
		return;
	if (count & RWSEM_READER_MASK) {
		wake_type = RWSEM_WAKE_READERS;
	} else {
		wake_type = RWSEM_WAKE_ANY;
		rwsem_clear_nonspinnable(sem);
	}
	rwsem_mark_wake(sem, wake_type, wake_q);
}

/*
 * Unlink @waiter; if the queue is now empty, clear WAITERS and HANDOFF
 * (the handoff belonged to a waiter that is gone). Returns true if waiters
 * remain. Needs wait_lock. (d257cc8cb8d5 "Make handoff bit handling more
 * consistent", v5.16: one helper for every path, bits cleared with andnot,
 * never subtracted, so a stale waiter state cannot clear them twice.)
 */
static inline bool rwsem_del_waiter(struct rwsem_mainline *sem, struct rwsem_waiter *waiter)
{
	rwsem_list_del(&waiter->list);
	if (lab_likely(!rwsem_list_empty(&sem->wait_list)))
		return true;
	atomic_andnot(&sem->count, RWSEM_FLAG_HANDOFF | RWSEM_FLAG_WAITERS);
	return false;
}

#if LAB_RWSEM_DHANDOFF
/*
 * Direct handoff to a writer at the head (v7 4/4, in rwsem_wake() only).
 * With wait_lock held, a free lock with HANDOFF set cannot be taken by
 * anyone else (stealing and spinning check HANDOFF; a reader's transient
 * fast-path bias backs out). A reader head needs nothing new: mark_wake()
 * already grants readers. For a writer head: owner = its task, count +=
 * WRITER_LOCKED - HANDOFF, unlink it (clearing WAITERS if it was the last),
 * then waiter->task = NULL (release) signals the grant: the waiter may be
 * gone after that store. Returns true if granted. Needs wait_lock.
 */
static bool rwsem_handoff_to_writer(struct rwsem_mainline *sem, struct wake_q_head *wake_q)
{
	long count = READ_ONCE(sem->count);
	struct rwsem_waiter *first = rwsem_first_waiter(sem);
	struct lab_task *t = first->task;

	if ((count & RWSEM_LOCK_MASK) || !(count & RWSEM_FLAG_HANDOFF) ||
	    first->type != RWSEM_WAITING_FOR_WRITE)
		return false;
	rwsem_set_owner(sem, t);
	/*
	 * Fully ordered (the kernel's add is relaxed and relies on wait_lock
	 * and a control dependency): acquires the last holder's release, which
	 * the grant passes on to the writer; TSan sees the chain.
	 */
	(void)atomic_fetch_add(&sem->count, RWSEM_WRITER_LOCKED - RWSEM_FLAG_HANDOFF);
	wake_q_add(wake_q, t);
	rwsem_del_waiter(sem, first);
	/* Release: pairs with the writer's acquire of waiter.task; @first may be gone after this. */
	smp_store_release(&first->task, (struct lab_task *)NULL);
	/* v7's rwsem_wake() counts no rwsem_wake_writer for a direct grant. */
	lockevent_inc(rwsem_handoff_grant);
	return true;
}

/*
 * rwsem_handoff() of v4 4/5: grant the lock to the head, whatever it waits
 * for, adding @adj (the caller's own bias to drop, or 0) - HANDOFF to the
 * count. A writer head gets owner and WRITER_LOCKED and is only woken: it
 * stays queued, state GRANTED, until it unlinks itself under wait_lock. A
 * reader head gets a READER_BIAS, and rwsem_mark_wake(READ_OWNED) grants it
 * and the other readers (it sees GRANTED and counts that bias as given).
 * Needs wait_lock; the caller checked HANDOFF set and no other holder.
 */
static void rwsem_handoff_v4(struct rwsem_mainline *sem, long adj, struct wake_q_head *wake_q)
{
	struct rwsem_waiter *first = rwsem_first_waiter(sem);
	enum rwsem_wake_type wake_type;

	adj -= RWSEM_FLAG_HANDOFF;
	WRITE_ONCE(first->handoff, RWSEM_HANDOFF_GRANTED);
	if (first->type == RWSEM_WAITING_FOR_WRITE) {
		wake_type = RWSEM_WAKE_ANY;
		adj += RWSEM_WRITER_LOCKED;
		rwsem_set_owner(sem, first->task);
	} else {
		wake_type = RWSEM_WAKE_READ_OWNED;
		adj += RWSEM_READER_BIAS;
		rwsem_set_reader_owned_by(sem, first->task);
	}
	/* Fully ordered, as in rwsem_handoff_to_writer(). */
	(void)atomic_fetch_add(&sem->count, adj);
	lockevent_inc(rwsem_handoff_grant);
	rwsem_mark_wake(sem, wake_type, wake_q);
}
#endif

/*
 * The out_nolock paths of the killable waits: unlink @waiter and, if it was
 * the head and others remain, wake the new head, which inherits a HANDOFF
 * bit and may be able to take or spin on the lock (1ee326196c66 "Always try
 * to wake waiters in out_nolock path", v5.18). Needs wait_lock; releases it.
 */
static void rwsem_del_wake_waiter(struct rwsem_mainline *sem, struct rwsem_waiter *waiter,
				  struct wake_q_head *wake_q)
{
	bool first = rwsem_first_waiter(sem) == waiter;

	wake_q_init(wake_q);
	if (rwsem_del_waiter(sem, waiter) && first) {
#if LAB_RWSEM_DHANDOFF
		/* v4: a granted head keeps the lock; a requesting one passes REQUESTED on. */
		if (rwsem_ml_knobs(sem)->dh_v4 && READ_ONCE(waiter->handoff) == RWSEM_HANDOFF_GRANTED) {
			rwsem_wait_unlock(sem);
			return;
		}
		if (rwsem_ml_knobs(sem)->dh_v4 && READ_ONCE(waiter->handoff) == RWSEM_HANDOFF_REQUESTED)
			WRITE_ONCE(rwsem_first_waiter(sem)->handoff, RWSEM_HANDOFF_REQUESTED);
#endif
		rwsem_mark_wake(sem, RWSEM_WAKE_ANY, wake_q);
	}
	rwsem_wait_unlock(sem);
	if (!wake_q_empty(wake_q))
		wake_up_q(wake_q);
}

static __lab_noinline void rwsem_wake(struct rwsem_mainline *sem)
{
	struct wake_q_head wake_q;

	wake_q_init(&wake_q);
	raw_spin_lock(&sem->wait_lock);
#if LAB_RWSEM_DHANDOFF
	long count = READ_ONCE(sem->count);

	if (rwsem_ml_knobs(sem)->dh_v4 && !rwsem_list_empty(&sem->wait_list) &&
	    !(count & RWSEM_LOCK_MASK) && (count & RWSEM_FLAG_HANDOFF))
		rwsem_handoff_v4(sem, 0, &wake_q);	/* v4: the head, reader or writer */
	else if (!rwsem_list_empty(&sem->wait_list) &&
		 (rwsem_ml_knobs(sem)->dh_v4 || !rwsem_handoff_to_writer(sem, &wake_q)))
#else
	if (!rwsem_list_empty(&sem->wait_list))
#endif
		rwsem_mark_wake(sem, RWSEM_WAKE_ANY, &wake_q);
	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);
}

static __lab_noinline void rwsem_downgrade_wake(struct rwsem_mainline *sem)
{
	struct wake_q_head wake_q;

	wake_q_init(&wake_q);
	raw_spin_lock(&sem->wait_lock);
	if (!rwsem_list_empty(&sem->wait_list))
		rwsem_mark_wake(sem, RWSEM_WAKE_READ_OWNED, &wake_q);
	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);
}

/* ---- writer optimistic spinning ---------------------------------------- */

enum owner_state {
	OWNER_NULL		= 1 << 0,
	OWNER_WRITER		= 1 << 1,
	OWNER_READER		= 1 << 2,
	OWNER_NONSPINNABLE	= 1 << 3,
};
#define OWNER_SPINNABLE (OWNER_NULL | OWNER_WRITER | OWNER_READER)

static inline enum owner_state rwsem_owner_state(unsigned long owner)
{
	if (owner & RWSEM_NONSPINNABLE)
		return OWNER_NONSPINNABLE;
	if (owner & RWSEM_READER_OWNED)
		return OWNER_READER;
	return rwsem_owner_task(owner) ? OWNER_WRITER : OWNER_NULL;
}

/* True while need_resched() is false, checked now (no polling). */
static inline bool rwsem_spin_budget_left(void)
{
	return !lab_need_resched_now();
}

/*
 * Is spinning worth it? Not when the budget is gone, when spinning was
 * disabled on this lock, or when a writer owns it and is asleep. A reader
 * owner is not checked: the pointer may be stale.
 */
static bool rwsem_can_spin_on_owner(struct rwsem_mainline *sem)
{
	unsigned long owner;
	struct lab_task *t;
	bool ret = true;

	if (need_resched()) {
		lockevent_inc(rwsem_opt_fail);
		return false;
	}
	owner = READ_ONCE(sem->owner);
	t = rwsem_owner_task(owner);
	if ((owner & RWSEM_NONSPINNABLE) || (t && !(owner & RWSEM_READER_OWNED) && !owner_on_cpu(t)))
		ret = false;
	lockevent_cond_inc(rwsem_opt_fail, !ret);
	return ret;
}

/*
 * Spin while a running writer owns the lock; return how it changed. The
 * owner's struct lab_task never goes away (wait.c keeps them in a static
 * array), which is what the kernel's preempt-disabled RCU section buys.
 */
static __lab_noinline enum owner_state rwsem_spin_on_owner(struct rwsem_mainline *sem)
{
	unsigned long owner = READ_ONCE(sem->owner), now;
	enum owner_state state = rwsem_owner_state(owner);

#if LAB_RWSEM_DHANDOFF
	if (rwsem_owner_task(owner) == lab_current())
		return OWNER_NONSPINNABLE;	/* v7: the handoff was granted to us */
#endif
	if (state != OWNER_WRITER)
		return state;
	for (;;) {
		now = READ_ONCE(sem->owner);
		if (now != owner)
			return rwsem_owner_state(now);
		if (need_resched() || !owner_on_cpu(rwsem_owner_task(owner)))
			return OWNER_NONSPINNABLE;
		cpu_relax();
	}
}

/* Take the write lock without queueing: only if unlocked and no handoff is pending. */
static inline bool rwsem_try_write_lock_unqueued(struct rwsem_mainline *sem)
{
	long count = READ_ONCE(sem->count);

	while (!(count & (RWSEM_LOCK_MASK | RWSEM_FLAG_HANDOFF))) {
		/* Acquire: pairs with the release in up_read/up_write. */
		if (atomic_try_cmpxchg_acquire(&sem->count, &count, count | RWSEM_WRITER_LOCKED)) {
			rwsem_set_owner(sem, lab_current());
			lockevent_inc(rwsem_opt_lock);
			return true;
		}
	}
	return false;
}

/* How long a writer may spin on a reader-owned lock: 10 us + 0.5 us per reader, at most 25 us. */
static inline uint64_t rwsem_rspin_threshold(struct rwsem_mainline *sem)
{
	long readers = READ_ONCE(sem->count) >> RWSEM_READER_SHIFT;

	if (readers > 30)
		readers = 30;
	return lab_clock_ns() + (uint64_t)(20 + readers) * 1000 / 2;
}

/*
 * Writer optimistic spinning behind the osq: spin on the owner, try the
 * lock whenever it changes; give up when a writer owner sleeps, when readers
 * have held it past the rspin threshold (then mark it NONSPINNABLE), or when
 * the spin budget runs out. The caller started the budget.
 */
static __lab_noinline bool rwsem_optimistic_spin(struct rwsem_mainline *sem)
{
	enum owner_state prev_state = OWNER_NULL;
	uint64_t rspin_deadline = 0, t0 = lab_clock_ns(), null_since = 0;
	unsigned loop = 0;
	bool taken = false;

	if (!osq_lock(&sem->osq))
		goto done;
	for (;;) {
		enum owner_state state = rwsem_spin_on_owner(sem);

		if (!(state & OWNER_SPINNABLE))
			break;
		taken = rwsem_try_write_lock_unqueued(sem);
		if (taken)
			break;
		/* A held lock that names no owner: a window the kernel runs preempt-disabled (wait.h). */
		if (state != OWNER_NULL)
			null_since = 0;
		else if (lab_owner_null_expired(&null_since))
			break;
		if (state == OWNER_READER) {
			/* A new reader phase restarts the clock. */
			if (prev_state != OWNER_READER) {
				if (READ_ONCE(sem->owner) & RWSEM_NONSPINNABLE)
					break;
				rspin_deadline = rwsem_rspin_threshold(sem);
				loop = 0;
			} else if (!(++loop & 15) && lab_clock_ns() > rspin_deadline) {
				rwsem_set_nonspinnable(sem);
				lockevent_inc(rwsem_opt_nospin);
				break;
			}
		}
		/* spin_on_owner checks need_resched() only for a writer owner. */
		if (state != OWNER_WRITER && need_resched())
			break;
		prev_state = state;
		cpu_relax();
	}
	osq_unlock(&sem->osq);
done:
	lockevent_cond_inc(rwsem_opt_fail, !taken);
	lockevent_add(spin_ns, lab_clock_ns() - t0);
	return taken;
}

/* ---- slow paths ---------------------------------------------------------- */

#if LAB_RWSEM_DHANDOFF
/*
 * v4's secondary handoff in the read slow path (wait_lock held, queue not
 * empty): if HANDOFF is set and our own transient bias is the only one
 * left, the unlocker's rwsem_wake() missed its chance, so grant the head
 * here. A reader head: we keep our bias and hold the lock too (returns
 * true). A writer head: our bias goes with the grant and we queue with
 * *@adjustment = 0 (returns false).
 */
static bool rwsem_read_handoff_v4(struct rwsem_mainline *sem, long *adjustment,
				  struct wake_q_head *wake_q)
{
	long count = READ_ONCE(sem->count);

	if (!(count & RWSEM_FLAG_HANDOFF) || (count & RWSEM_LOCK_MASK) != RWSEM_READER_BIAS)
		return false;
	if (rwsem_first_waiter(sem)->type == RWSEM_WAITING_FOR_READ)
		*adjustment = 0;
	rwsem_handoff_v4(sem, *adjustment, wake_q);
	if (!*adjustment)
		return true;
	*adjustment = 0;
	return false;
}
#endif

/*
 * rwsem_down_read_slowpath() - the fast path failed with @count (its reader
 * bias is still in the count).
 * - No reader spinning (removed in v5.11).
 * - Lock stealing: keep the bias and go if no writer holds it and no handoff
 *   is pending - except when the lock is probably reader-owned by others
 *   (rcnt > 1), so that a stream of readers cannot starve a queued writer.
 * - Otherwise queue (FIFO), trade the bias for WAITERS if first, wake the
 *   head if the lock is free, and sleep until a waker sets waiter.task NULL.
 * - @state TASK_KILLABLE: a fatal signal (or deadline, wait.h) seen after a
 *   wakeup, with the waiter still queued under wait_lock, leaves through
 *   out_nolock: rwsem_del_wake_waiter(), -EINTR. Returns 0 with the lock.
 */
static __lab_noinline __lab_cold int rwsem_down_read_slowpath(struct rwsem_mainline *sem, long count,
							       uint32_t state)
{
	long adjustment = -RWSEM_READER_BIAS;
	long rcnt = count >> RWSEM_READER_SHIFT;
	struct rwsem_waiter waiter;
	struct wake_q_head wake_q;
	const struct rwsem_mainline *k = rwsem_ml_knobs(sem);	/* the knobs, looked up once */

	wake_q_init(&wake_q);
	if (!k->rsteal)
		goto queue;
	if ((READ_ONCE(sem->owner) & RWSEM_READER_OWNED) && rcnt > 1 && !(count & RWSEM_WRITER_LOCKED))
		goto queue;
	if (!(count & (RWSEM_WRITER_LOCKED | RWSEM_FLAG_HANDOFF))) {
		/* The fast path's add_return_acquire already ordered us after the last holder. */
		rwsem_set_reader_owned(sem);
		lockevent_inc(rwsem_rlock_steal);
		/* The first reader in brings the queued readers along. */
		if (rcnt == 1 && (count & RWSEM_FLAG_WAITERS)) {
			raw_spin_lock(&sem->wait_lock);
			if (!rwsem_list_empty(&sem->wait_list))
				rwsem_mark_wake(sem, RWSEM_WAKE_READ_OWNED, &wake_q);
			rwsem_wait_unlock(sem);
			wake_up_q(&wake_q);
		}
		return 0;
	}

queue:
	waiter.task = lab_current();
	waiter.type = RWSEM_WAITING_FOR_READ;
	waiter.handoff = RWSEM_HANDOFF_NONE;
	waiter.timeout = lab_jiffies_ns() + k->handoff_timeout_ns;

	raw_spin_lock(&sem->wait_lock);
	if (rwsem_list_empty(&sem->wait_list)) {
		/*
		 * Nobody queued and no writer: our bias is a read lock.
		 * Acquire: pairs with the last writer's release in up_write
		 * (the kernel uses a control dependency plus
		 * smp_acquire__after_ctrl_dep(); an acquire load is the same
		 * on x86 and, unlike a lone fence, ThreadSanitizer sees it).
		 */
		if (!(smp_load_acquire(&sem->count) & RWSEM_WRITER_MASK)) {
			rwsem_wait_unlock(sem);
			rwsem_set_reader_owned(sem);
			lockevent_inc(rwsem_rlock_fast);
			return 0;
		}
		adjustment += RWSEM_FLAG_WAITERS;
	}
#if LAB_RWSEM_DHANDOFF
	else if (k->dh_v4 && rwsem_read_handoff_v4(sem, &adjustment, &wake_q)) {
		/* v4: we granted a reader head and ride along on our own bias. */
		rwsem_wait_unlock(sem);
		wake_up_q(&wake_q);
		return 0;
	}
#endif
	rwsem_list_add_tail(&waiter.list, &sem->wait_list);

	if (adjustment) {
		/* Fully ordered: we are queued before anyone sees our bias gone. */
		count = atomic_add_return(&sem->count, adjustment);
		rwsem_cond_wake_waiter(sem, count, &wake_q);
	}
	rwsem_wait_unlock(sem);
	if (!wake_q_empty(&wake_q))
		wake_up_q(&wake_q);

	for (;;) {
		set_current_state(state);
		/* Acquire: pairs with rwsem_mark_wake()'s release of waiter->task. */
		if (!smp_load_acquire(&waiter.task))
			break;
		if (signal_pending_state(state)) {
			raw_spin_lock(&sem->wait_lock);
			if (READ_ONCE(waiter.task))
				goto out_nolock;
			/* Granted meanwhile: wait_lock orders us after rwsem_mark_wake(). */
			rwsem_wait_unlock(sem);
			break;
		}
		rwsem_schedule(false);
	}
	__set_current_state(TASK_RUNNING);
	lockevent_inc(rwsem_rlock);
	return 0;

out_nolock:
	rwsem_del_wake_waiter(sem, &waiter, &wake_q);
	__set_current_state(TASK_RUNNING);
	lockevent_inc(rwsem_rlock_fail);
	return -EINTR;
}

/*
 * rwsem_try_write_lock() - the queued writer @waiter tries for the lock.
 * - wait_lock held; @waiter is queued;
 * - a HANDOFF requested by the head stops everyone else;
 * - if the lock is held, a waiter that has waited past its timeout sets
 *   HANDOFF, and the request is recorded on the head (only the head spins
 *   for it, v6.3);
 * - on success the waiter leaves the queue and owns the lock.
 */
#if LAB_RWSEM_DHANDOFF
/* v7: waiter->task == NULL means rwsem_wake() made us the write owner. */
static inline bool rwsem_granted(struct rwsem_waiter *w)
{
	/* Acquire: pairs with the granter's release in rwsem_handoff_to_writer(). */
	return !smp_load_acquire(&w->task);
}
#endif

static bool rwsem_try_write_lock(struct rwsem_mainline *sem, struct rwsem_waiter *waiter)
{
	struct rwsem_waiter *first;
	long count, new;

#if LAB_RWSEM_DHANDOFF
	if (!rwsem_ml_knobs(sem)->dh_v4 && rwsem_granted(waiter))
		return true;	/* v7: rwsem_wake() handed the lock over (and unlinked us) */
#endif
	first = rwsem_first_waiter(sem);
	count = READ_ONCE(sem->count);
	do {
		bool has_handoff = count & RWSEM_FLAG_HANDOFF;

		if (has_handoff && waiter != first && READ_ONCE(first->handoff) != RWSEM_HANDOFF_NONE)
			return false;
		new = count;
		if (count & RWSEM_LOCK_MASK) {
			if (has_handoff || !rwsem_timed_out(waiter))
				return false;
			new |= RWSEM_FLAG_HANDOFF;
		} else {
			new |= RWSEM_WRITER_LOCKED;
			new &= ~RWSEM_FLAG_HANDOFF;
			if (rwsem_list_singular(&sem->wait_list))
				new &= ~RWSEM_FLAG_WAITERS;
		}
		/* Acquire: pairs with the release in up_read/up_write. */
	} while (!atomic_try_cmpxchg_acquire(&sem->count, &count, new));

	if (new & RWSEM_FLAG_HANDOFF) {
		WRITE_ONCE(first->handoff, RWSEM_HANDOFF_REQUESTED);
		lockevent_inc(rwsem_wlock_handoff);
		return false;
	}
	/*
	 * list_del only (v6.3 rwsem.c:663): the cmpxchg above already cleared
	 * HANDOFF, and WAITERS when we were the last waiter, so the andnot of
	 * rwsem_del_waiter() would be one more locked operation on the line.
	 */
	rwsem_list_del(&waiter->list);
	rwsem_set_owner(sem, lab_current());
	return true;
}

/*
 * rwsem_down_write_slowpath() - the fast path's cmpxchg(0 -> WRITER_LOCKED) failed.
 * - Spin optimistically first (wspin), behind the osq.
 * - Queue; a non-first writer wakes the head if the lock is not write-held,
 *   the first one sets WAITERS.
 * - Loop: try under wait_lock; the head that set HANDOFF spins on a running
 *   owner and retries at once when the owner leaves (OWNER_NULL); otherwise
 *   sleep until woken.
 * - dhandoff (v7): the head that set HANDOFF spins on a running owner too,
 *   but does not retry on OWNER_NULL: the unlocker's rwsem_wake() grants it
 *   the lock (owner and count set, unlinked, waiter.task = NULL) and wakes
 *   it; it sees the grant after the spin, or in rwsem_try_write_lock().
 */
static __lab_noinline __lab_cold int rwsem_down_write_slowpath(struct rwsem_mainline *sem, uint32_t state)
{
	struct rwsem_waiter waiter;
	struct wake_q_head wake_q;
	const struct rwsem_mainline *k = rwsem_ml_knobs(sem);	/* the knobs, looked up once */
#if !LAB_RWSEM_DHANDOFF
	uint64_t null_since = 0;	/* start of the current run of OWNER_NULL retries */
#endif

	if (k->wspin) {
		lab_spin_start(k->spin_budget_ns, k->oncpu);
		if (rwsem_can_spin_on_owner(sem) && rwsem_optimistic_spin(sem))
			return 0;
	}

	wake_q_init(&wake_q);
	waiter.task = lab_current();
	waiter.type = RWSEM_WAITING_FOR_WRITE;
	waiter.handoff = RWSEM_HANDOFF_NONE;
	waiter.timeout = lab_jiffies_ns() + k->handoff_timeout_ns;

	raw_spin_lock(&sem->wait_lock);
	rwsem_list_add_tail(&waiter.list, &sem->wait_list);
	if (rwsem_first_waiter(sem) != &waiter) {
		rwsem_cond_wake_waiter(sem, READ_ONCE(sem->count), &wake_q);
		if (!wake_q_empty(&wake_q)) {
			/* Do not wake a crowd of readers with wait_lock held. */
			rwsem_wait_unlock(sem);
			wake_up_q(&wake_q);
			raw_spin_lock(&sem->wait_lock);
		}
	} else {
		atomic_or(&sem->count, RWSEM_FLAG_WAITERS);
	}

	set_current_state(state);
	for (;;) {
		if (rwsem_try_write_lock(sem, &waiter))
			break;
		rwsem_wait_unlock(sem);
		if (signal_pending_state(state))
			goto out_nolock;

#if !LAB_RWSEM_DHANDOFF
		/*
		 * v6.3 rwsem.c:1170-1181: the head that asked for the handoff
		 * spins while the owner runs; if it returns OWNER_NULL (a
		 * writer owner just left) it tries again without sleeping,
		 * through the top of this loop and so through the
		 * signal_pending_state() check above (:1159). The kernel's
		 * retries end because the window that shows OWNER_NULL runs
		 * preempt-disabled; here a run of OWNER_NULL retries ends
		 * after LAB_OWNER_NULL_SPIN_NS (wait.h), or when this thread
		 * was preempted, and the writer sleeps.
		 */
		if (k->wspin && READ_ONCE(waiter.handoff) == RWSEM_HANDOFF_REQUESTED) {
			enum owner_state owner_state;
			uint64_t t0 = lab_clock_ns();

			if (!null_since)
				lab_spin_start(k->spin_budget_ns, k->oncpu);
			owner_state = rwsem_spin_on_owner(sem);
			lockevent_add(spin_ns, lab_clock_ns() - t0);
			if (owner_state == OWNER_NULL && !lab_owner_null_expired(&null_since) &&
			    rwsem_spin_budget_left())
				goto trylock_again;
			null_since = 0;
		}
#else
		/*
		 * v7: the head that asked for the handoff spins while the
		 * owner runs (no OWNER_NULL retry any more: the unlocker's
		 * rwsem_wake() hands the lock over), then checks the grant
		 * without wait_lock and skips the sleep if it came.
		 */
		if (READ_ONCE(waiter.handoff) == RWSEM_HANDOFF_REQUESTED) {
			if (k->wspin) {
				uint64_t t0 = lab_clock_ns();

				lab_spin_start(k->spin_budget_ns, k->oncpu);
				rwsem_spin_on_owner(sem);
				lockevent_add(spin_ns, lab_clock_ns() - t0);
			}
			if (!k->dh_v4 && rwsem_granted(&waiter))
				goto granted;
		}
		/* v4: GRANTED is a state; the granted writer is still queued. */
		if (k->dh_v4 && READ_ONCE(waiter.handoff) == RWSEM_HANDOFF_GRANTED)
			goto skip_sleep;
#endif
		rwsem_schedule(true);
		set_current_state(state);
#if LAB_RWSEM_DHANDOFF
skip_sleep:
#else
trylock_again:
#endif
		raw_spin_lock(&sem->wait_lock);
#if LAB_RWSEM_DHANDOFF
		if (k->dh_v4 && waiter.handoff == RWSEM_HANDOFF_GRANTED) {
			rwsem_del_waiter(sem, &waiter);
			break;
		}
#endif
	}
	rwsem_wait_unlock(sem);
#if LAB_RWSEM_DHANDOFF
granted:
#endif
	__set_current_state(TASK_RUNNING);
	lockevent_inc(rwsem_wlock);
	return 0;

out_nolock:
	__set_current_state(TASK_RUNNING);
	raw_spin_lock(&sem->wait_lock);
#if LAB_RWSEM_DHANDOFF
	/* v7: granted while we were leaving: keep the lock. */
	if (!k->dh_v4 && rwsem_granted(&waiter)) {
		rwsem_wait_unlock(sem);
		goto granted;
	}
#endif
	rwsem_del_wake_waiter(sem, &waiter, &wake_q);
#if LAB_RWSEM_DHANDOFF
	/* v4: granted while we were leaving (del_wake_waiter unlinked us): keep the lock. */
	if (k->dh_v4 && READ_ONCE(waiter.handoff) == RWSEM_HANDOFF_GRANTED)
		goto granted;
#endif
	lockevent_inc(rwsem_wlock_fail);
	return -EINTR;
}

/* ---- the verbs ----------------------------------------------------------- */

static int rwsem_ml_init(struct lab_rwsem *s, const struct lab_rwsem_conf *conf)
{
	struct rwsem_mainline *sem = rwsem_ml(s), *k = rwsem_ml_knobs(sem);

	WRITE_ONCE(sem->count, 0L);
	WRITE_ONCE(sem->owner, 0UL);
	osq_lock_init(&sem->osq);
	raw_spin_lock_init(&sem->wait_lock);
	rwsem_list_init(&sem->wait_list);
	k->handoff_timeout_ns = (uint64_t)conf->knob[RWSEM_KNOB_HANDOFF_TIMEOUT_US] * 1000;
	k->wspin = conf->knob[RWSEM_KNOB_WSPIN];
	k->max_readers_wakeup = conf->knob[RWSEM_KNOB_MAX_READERS_WAKEUP];
	k->rsteal = conf->knob[RWSEM_KNOB_RSTEAL];
	k->spin_budget_ns = (uint64_t)conf->knob[RWSEM_KNOB_SPIN_BUDGET_US] * 1000;
	k->oncpu = conf->knob[RWSEM_KNOB_ONCPU];
	k->clear_reader_owner = conf->knob[RWSEM_KNOB_HUNG_TASK_BLOCKER];
	k->rtrylock_blind = conf->knob[RWSEM_KNOB_RTRYLOCK] == 1;
	k->dh_v4 = LAB_RWSEM_DHANDOFF && conf->knob[RWSEM_KNOB_VERSION] == 1;
	return 0;
}

/* __down_read_common(): the fast path, then the slow path in @state. */
static inline int rwsem_ml_down_read_common(struct rwsem_mainline *sem, uint32_t state)
{
	/* Acquire: pairs with the release in up_write/up_read. */
	long count = atomic_add_return_acquire(&sem->count, RWSEM_READER_BIAS);

	if (lab_unlikely(count < 0))
		rwsem_set_nonspinnable(sem);
	if (lab_likely(!(count & RWSEM_READ_FAILED_MASK))) {
		rwsem_set_reader_owned(sem);
		return 0;
	}
	if (rwsem_down_read_slowpath(sem, count, state))
		return -EINTR;
	/* v6.3 rwsem.c:1254: the slow path left the lock reader-owned. */
	DEBUG_RWSEMS_WARN_ON(!(READ_ONCE(sem->owner) & RWSEM_READER_OWNED), RWSEM_ML_NAME,
			     "read slow path returned a lock not reader-owned", READ_ONCE(sem->count));
	return 0;
}

static void rwsem_ml_down_read(struct lab_rwsem *s)
{
	rwsem_ml_down_read_common(rwsem_ml(s), TASK_UNINTERRUPTIBLE);
}

static int rwsem_ml_down_read_killable(struct lab_rwsem *s)
{
	return rwsem_ml_down_read_common(rwsem_ml(s), TASK_KILLABLE);
}

/*
 * v5.16+ (14c24048841151548a3f4d9e218510c844c1b737) reads the count first;
 * before it (knob rtrylock=blind) the first cmpxchg assumed
 * RWSEM_UNLOCKED_VALUE (0) and so failed whenever another reader held the
 * lock. Both retry with the value a failed cmpxchg returned.
 */
static int rwsem_ml_down_read_trylock(struct lab_rwsem *s)
{
	struct rwsem_mainline *sem = rwsem_ml(s);
	long tmp = rwsem_ml_knobs(sem)->rtrylock_blind ? 0L : READ_ONCE(sem->count);

	while (!(tmp & RWSEM_READ_FAILED_MASK)) {
		lockevent_inc(rwsem_rtrylock_cas);
		/* Acquire: pairs with the release in up_write/up_read. */
		if (atomic_try_cmpxchg_acquire(&sem->count, &tmp, tmp + RWSEM_READER_BIAS)) {
			rwsem_set_reader_owned(sem);
			lockevent_inc(rwsem_rtrylock_ok);
			return 1;
		}
	}
	return 0;
}

static void rwsem_ml_up_read(struct lab_rwsem *s)
{
	struct rwsem_mainline *sem = rwsem_ml(s);
	long tmp;

	DEBUG_RWSEMS_WARN_ON(!(READ_ONCE(sem->owner) & RWSEM_READER_OWNED), RWSEM_ML_NAME,
			     "up_read of a lock not reader-owned", READ_ONCE(sem->count));
	if (rwsem_ml_knobs(sem)->clear_reader_owner)
		rwsem_clear_reader_owned(sem);
	/* Release: our critical section before the next owner's acquire. */
	tmp = atomic_add_return_release(&sem->count, -RWSEM_READER_BIAS);
	DEBUG_RWSEMS_WARN_ON(tmp < 0, RWSEM_ML_NAME, "up_read count underflow", tmp);

	/* Last one out, with waiters: wake the head. */
	if (lab_unlikely((tmp & (RWSEM_LOCK_MASK | RWSEM_FLAG_WAITERS)) == RWSEM_FLAG_WAITERS)) {
		rwsem_clear_nonspinnable(sem);
		rwsem_wake(sem);
	}
}

/* __down_write_common(): the fast path, then the slow path in @state. */
static inline int rwsem_ml_down_write_common(struct rwsem_mainline *sem, uint32_t state)
{
	long tmp = 0;

	/* Acquire: pairs with the release in up_write/up_read. */
	if (lab_likely(atomic_try_cmpxchg_acquire(&sem->count, &tmp, RWSEM_WRITER_LOCKED))) {
		rwsem_set_owner(sem, lab_current());
		return 0;
	}
	return rwsem_down_write_slowpath(sem, state);
}

static void rwsem_ml_down_write(struct lab_rwsem *s)
{
	rwsem_ml_down_write_common(rwsem_ml(s), TASK_UNINTERRUPTIBLE);
}

static int rwsem_ml_down_write_killable(struct lab_rwsem *s)
{
	return rwsem_ml_down_write_common(rwsem_ml(s), TASK_KILLABLE);
}

/* Timed waits (rwsem.h): the killable waits with the deadline as a fatal signal (lab_wait_timed()). */
static int rwsem_ml_down_read_timed(struct lab_rwsem *s, uint64_t deadline_ns)
{
	return lab_wait_timed(rwsem_ml_down_read_killable, s, deadline_ns);
}

static int rwsem_ml_down_write_timed(struct lab_rwsem *s, uint64_t deadline_ns)
{
	return lab_wait_timed(rwsem_ml_down_write_killable, s, deadline_ns);
}

static int rwsem_ml_check_unlocked(struct lab_rwsem *s, char *msg, size_t len)
{
	struct rwsem_mainline *sem = rwsem_ml(s);
	long c = READ_ONCE(sem->count);

	if (c == 0 && rwsem_list_empty(&sem->wait_list))
		return 0;
	snprintf(msg, len, "count %#lx, wait list %s (unlocked: 0, empty)", (unsigned long)c,
		 rwsem_list_empty(&sem->wait_list) ? "empty" : "not empty");
	return -1;
}

static int rwsem_ml_down_write_trylock(struct lab_rwsem *s)
{
	struct rwsem_mainline *sem = rwsem_ml(s);
	long tmp = 0;

	if (atomic_try_cmpxchg_acquire(&sem->count, &tmp, RWSEM_WRITER_LOCKED)) {
		rwsem_set_owner(sem, lab_current());
		return 1;
	}
	return 0;
}

static void rwsem_ml_up_write(struct lab_rwsem *s)
{
	struct rwsem_mainline *sem = rwsem_ml(s);
	long tmp;

	DEBUG_RWSEMS_WARN_ON(rwsem_owner_task(READ_ONCE(sem->owner)) != lab_current(), RWSEM_ML_NAME,
			     "up_write by a task that is not the owner", READ_ONCE(sem->count));
	rwsem_clear_owner(sem);
	/* Release: our critical section before the next owner's acquire. */
	tmp = atomic_fetch_add_release(&sem->count, -RWSEM_WRITER_LOCKED);
	DEBUG_RWSEMS_WARN_ON(!(tmp & RWSEM_WRITER_LOCKED), RWSEM_ML_NAME, "up_write of a lock not write-held", tmp);
	if (lab_unlikely(tmp & RWSEM_FLAG_WAITERS))
		rwsem_wake(sem);
}

static void rwsem_ml_downgrade_write(struct lab_rwsem *s)
{
	struct rwsem_mainline *sem = rwsem_ml(s);
	long tmp;

	/* v6.3 rwsem.c:1394 */
	DEBUG_RWSEMS_WARN_ON(rwsem_owner_task(READ_ONCE(sem->owner)) != lab_current(), RWSEM_ML_NAME,
			     "downgrade_write by a task that is not the owner", READ_ONCE(sem->count));
	/* Release: the write section before the readers we let in. */
	tmp = atomic_fetch_add_release(&sem->count, RWSEM_READER_BIAS - RWSEM_WRITER_LOCKED);
	rwsem_set_reader_owned(sem);
	if (tmp & RWSEM_FLAG_WAITERS)
		rwsem_downgrade_wake(sem);
}

/*
 * The events it counts: v6.3's lock_events_list.h (the rwsem block, unchanged
 * in v6.18), then rwlab's; rwsem-dhandoff adds rwsem_handoff_grant.
 */
#define RWSEM_ML_EVENTS LAB_EV_rwsem_sleep_reader, LAB_EV_rwsem_sleep_writer, LAB_EV_rwsem_wake_reader, \
	LAB_EV_rwsem_wake_writer, LAB_EV_rwsem_opt_lock, LAB_EV_rwsem_opt_fail, LAB_EV_rwsem_opt_nospin, \
	LAB_EV_rwsem_rlock, LAB_EV_rwsem_rlock_steal, LAB_EV_rwsem_rlock_fast, LAB_EV_rwsem_rlock_fail, \
	LAB_EV_rwsem_rlock_handoff, LAB_EV_rwsem_wlock, LAB_EV_rwsem_wlock_fail, LAB_EV_rwsem_wlock_handoff, \
	LAB_EV_rwsem_rtrylock_cas, LAB_EV_rwsem_rtrylock_ok, LAB_EV_spin_ns, LAB_EV_osq_abort

#define RWSEM_ML_CAPS (LAB_CAP_SLEEPS | LAB_CAP_SPINS | LAB_CAP_EXCLUSION | LAB_CAP_READ_TRYLOCK | \
		       LAB_CAP_WRITE_TRYLOCK | LAB_CAP_DOWNGRADE | LAB_CAP_EVENTS | LAB_CAP_KILLABLE | \
		       LAB_CAP_EMBED | LAB_CAP_PACKED)

#endif /* LAB_RWSEM_DHANDOFF */
