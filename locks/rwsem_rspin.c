/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwsem-rspin - the Linux v5.3 rw_semaphore: reader and writer optimistic
 * spinning, lock handoff, adaptive disabling of reader spinning.
 *
 * Citation: Linux v5.3 kernel/locking/rwsem.c, the 2019 series "locking/rwsem:
 * Rework rwsem-xadd & enable new rwsem features" by Waiman Long, co-developed
 * with Peter Zijlstra (merged for v5.3; reader spinning was removed again in
 * v5.11). Facts used: docs/kernel.md §2.1-2.11, stand-ins per §8.
 *
 * Design summary:
 * - down_read: one fetch_add of READER_BIAS; it succeeds when none of
 *   WRITER_LOCKED, FLAG_WAITERS, FLAG_HANDOFF, FLAG_READFAIL was set. Else
 *   the slow path, with the bias still added: take it back and spin on the
 *   owner behind the osq (reader optimistic spinning, joining a reader phase
 *   or catching the lock as a writer leaves), then a "reader phase" trylock,
 *   then queue. A reader that finds the queue empty and no writer keeps its
 *   bias and leaves at once (rwsem_rlock_fast).
 * - down_write: cmpxchg 0 -> WRITER_LOCKED. Else spin behind the osq while
 *   the owner runs; on a reader-owned lock only for 10 us + 0.5 us per reader
 *   (max 25 us), after which it marks the owner NONSPINNABLE. Then queue and
 *   sleep; the queue head retries whenever the lock is free and, after
 *   waiting handoff_timeout_us, sets FLAG_HANDOFF so that no spinner or fast
 *   path can take the lock before it.
 * - up_read/up_write: one atomic each; if FLAG_WAITERS is set and the lock is
 *   now free, rwsem_wake() under the wait_lock: a writer at the head is woken
 *   (not granted: it must still win the cmpxchg); if a reader is at the head,
 *   up to max_readers_wakeup readers from anywhere in the queue (writers
 *   skipped) are granted the lock together (phase-fair-ish, v5.3 only).
 * - downgrade_write: one fetch_add turns W into one reader, then wakes the
 *   queued readers.
 * - adaptive disabling: a writer that timed out spinning on readers sets
 *   RD|WR_NONSPINNABLE in the owner; readers then stop spinning, the last
 *   reader out clears WR_NONSPINNABLE, and a writer that saw the bits sets
 *   RD_NONSPINNABLE again once it owns the lock; woken readers carry the RD
 *   bit they saw on entry.
 * - cancellation (down_*_killable, timed): v5.3's out_nolock as released
 *   (knob out_nolock=v5.3, the default), with its bug: a writer cancelled
 *   while a HANDOFF it did not request is set (a reader head's, inherited)
 *   clears only WAITERS when the queue empties, leaving HANDOFF on an empty
 *   queue (rwlab torture --kill finds it). out_nolock=v5.19 applies the fix:
 *   d257cc8cb8d5 (v5.16) and 1ee326196c66 (v5.19), rwsem_del_wake_waiter().
 * - v5.3's hidden release (knob rspin=0 closes it, as mainline's removal
 *   of reader spinning did: 617f3ef95177, v5.11): a reader whose fast path
 *   failed takes its bias back with a plain atomic add before spinning (and
 *   rwsem_try_read_lock_unqueued() backs out the same way). An up_read in
 *   between sees that bias, is not the last reader out and wakes nobody; if
 *   HANDOFF is set the spinner cannot take the free lock either and spins
 *   until need_resched(), the queued writer asleep - the lock free, nobody
 *   acquiring (tests/regression/rwsem_rspin_reader_spin.c).
 * - sleeping: the kernel's protocol through locks/wait.h (set_current_state,
 *   schedule, wake_up_process) and locks/wake_q.h; readers sleep until the
 *   waker store-releases waiter->task = NULL.
 *
 * What user space cannot model (and how this port approximates it):
 * - holder preemption: the kernel runs the lock paths with preemption off; a
 *   user-space holder (or the wait_lock holder, or an osq node) can be
 *   descheduled anywhere. Spinners cannot see that.
 * - owner->on_cpu && !vcpu_is_preempted(): owner_on_cpu() (wait.h) is 0
 *   while the owner sleeps in a futex or while its context-switch ring's
 *   last record is a switch-out (knob oncpu=switch, default: plain loads;
 *   oncpu=clock: its thread CPU clock sampled every 25 us; oncpu=flag: the
 *   futex flag only, the earlier stand-in). The osq tests its predecessor
 *   the same way. OWNER_NULL spins end after LAB_OWNER_NULL_SPIN_NS (wait.h):
 *   the kernel's window is code a non-preemptible kernel does not preempt.
 * - need_resched(): true once the spinner has been preempted since its spin
 *   began (spin_budget_us=0, default), or after a fixed budget started at
 *   slow-path entry (spin_budget_us > 0, the earlier stand-in at 100 us, kept
 *   for ablation); it bounds the osq wait and every spin loop (on a writer,
 *   on readers, on a free lock). Time spent spinning: the spin_ns event.
 * - jiffies: CLOCK_MONOTONIC_COARSE (lab_jiffies_ns(), tick resolution,
 *   4 ms on this host); waiter timeouts are compared with it as the kernel
 *   compares jiffies, so the 4 ms RWSEM_WAIT_TIMEOUT means 4-8 ms. The
 *   reader-owned spin deadline uses lab_clock_ns() as sched_clock().
 * - no RT tasks (rt_task() is always false), no signals: a fatal signal is
 *   a per-task flag that another thread sets (wait.h lab_send_fatal_signal;
 *   the killable verbs check it where v5.3 checks signal_pending_state), no
 *   RWSEM_OWNER_UNKNOWN anonymous owners, no preempt_disable/rcu_read_lock
 *   (the task structures never go away: lab_task is a static array).
 *
 * Lock events (research §2.11), counted where the kernel counts them:
 * opt_rlock/opt_wlock = lock taken by spinning (opt_rlock2 = by the reader
 * phase trylock, also counted in opt_rlock); opt_fail = spinning refused or
 * failed; opt_nospin = a writer's reader-owned spin timed out; opt_norspin =
 * RD_NONSPINNABLE set by a writer or carried by a woken reader; rlock =
 * reader granted after queueing; rlock_fast = empty-queue shortcut; wlock =
 * writer got it from the queue; rlock_handoff/wlock_handoff = HANDOFF
 * requested for a reader/writer; sleep_* = schedule() calls; wake_reader =
 * rwsem_mark_wake calls that granted readers; wake_writer = head writer woken.
 *
 * The count word (long, 64 bits):
 *
 *   63    62 ............................ 8   7 .. 3   2        1        0
 *  +------+--------------------------------+--------+--------+--------+--------+
 *  |READ- |     reader count (55 bits)     |reserved|HANDOFF |WAITERS |WRITER_ |
 *  |FAIL  |     units of READER_BIAS 0x100 |        |        |        |LOCKED  |
 *  +------+--------------------------------+--------+--------+--------+--------+
 *  readers: fetch_add(READER_BIAS); writers: cmpxchg setting bit 0.
 *  READER_MASK = ~(READER_BIAS - 1) (includes READFAIL); LOCK_MASK =
 *  WRITER_LOCKED | READER_MASK; READ_FAILED_MASK = WRITER_LOCKED | WAITERS |
 *  HANDOFF | READFAIL. HANDOFF changes only under the wait_lock.
 *
 * The owner word (long):
 *
 *   63 ........................................ 6  5  4  3   2       1       0
 *  +-----------------------------------------------+--------+-------+-------+-------+
 *  |  struct lab_task * (64-byte aligned) or 0     |  zero  | WR_   | RD_   |READER_|
 *  |  writer: the owner; readers: the last reader  |        | NOSPIN| NOSPIN|OWNED  |
 *  +-----------------------------------------------+--------+-------+-------+-------+
 *  A reader-owned value is a hint: the named reader may be gone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "atomic.h"
#include "compiler.h"
#include "debug.h"
#include "events.h"
#include "osq.h"
#include "rwsem.h"
#include "rwsem_rspin.h"
#include "spinlock.h"
#include "wait.h"
#include "wake_q.h"

/* ---- count and owner bits ------------------------------------------------ */

#define RWSEM_WRITER_LOCKED	(1L << 0)
#define RWSEM_FLAG_WAITERS	(1L << 1)
#define RWSEM_FLAG_HANDOFF	(1L << 2)
#define RWSEM_FLAG_READFAIL	((long)(1UL << 63))

#define RWSEM_READER_SHIFT	8
#define RWSEM_READER_BIAS	(1L << RWSEM_READER_SHIFT)
#define RWSEM_READER_MASK	(~(RWSEM_READER_BIAS - 1))
#define RWSEM_WRITER_MASK	RWSEM_WRITER_LOCKED
#define RWSEM_LOCK_MASK		(RWSEM_WRITER_MASK | RWSEM_READER_MASK)
#define RWSEM_READ_FAILED_MASK	(RWSEM_WRITER_MASK | RWSEM_FLAG_WAITERS | \
				 RWSEM_FLAG_HANDOFF | RWSEM_FLAG_READFAIL)
#define RWSEM_UNLOCKED_VALUE	0L

#define RWSEM_READER_OWNED	(1L << 0)
#define RWSEM_RD_NONSPINNABLE	(1L << 1)
#define RWSEM_WR_NONSPINNABLE	(1L << 2)
#define RWSEM_NONSPINNABLE	(RWSEM_RD_NONSPINNABLE | RWSEM_WR_NONSPINNABLE)
#define RWSEM_OWNER_FLAGS_MASK	(RWSEM_READER_OWNED | RWSEM_NONSPINNABLE)

_Static_assert(_Alignof(struct lab_task) > RWSEM_OWNER_FLAGS_MASK,
	       "owner flags must fit below the task pointer's alignment");

/* ---- the wait list: a circular doubly linked list with a sentinel --------
 *
 * Changed only under wait_lock. Links are stored with WRITE_ONCE because a
 * queued writer peeks at the head without the lock (rwsem_first_waiter_racy).
 */
struct rspin_list {
	struct rspin_list *next, *prev;
};

static inline void list_init(struct rspin_list *h)
{
	WRITE_ONCE(h->next, h);
	h->prev = h;
}

static inline bool list_empty(const struct rspin_list *h)
{
	return h->next == h;
}

static inline bool list_is_singular(const struct rspin_list *h)
{
	return !list_empty(h) && h->next == h->prev;
}

static inline void list_add_tail(struct rspin_list *n, struct rspin_list *h)
{
	struct rspin_list *last = h->prev;

	n->prev = last;
	WRITE_ONCE(n->next, h);
	WRITE_ONCE(last->next, n);
	h->prev = n;
}

static inline void list_del(struct rspin_list *n)
{
	WRITE_ONCE(n->prev->next, n->next);
	n->next->prev = n->prev;
}

/* ---- the lock ------------------------------------------------------------ */

enum rwsem_waiter_type {
	RWSEM_WAITING_FOR_WRITE,
	RWSEM_WAITING_FOR_READ,
};

struct rwsem_waiter {
	struct rspin_list list;		/* first: list node <-> waiter casts */
	struct lab_task *task;		/* readers: NULL once granted (store-release) */
	enum rwsem_waiter_type type;
	uint64_t timeout;		/* lab_jiffies_ns() deadline for requesting HANDOFF */
	long last_rowner;		/* readers: owner word at slow-path entry (v5.3 only) */
};

enum rwsem_wake_type {
	RWSEM_WAKE_ANY,		/* wake whatever is at the head */
	RWSEM_WAKE_READERS,	/* wake readers only (a writer is queueing) */
	RWSEM_WAKE_READ_OWNED,	/* the waker holds the read lock: no provisional grant */
};

enum writer_wait_state {
	WRITER_NOT_FIRST,	/* not at the head of the queue */
	WRITER_FIRST,		/* at the head */
	WRITER_HANDOFF,		/* at the head and waited too long: HANDOFF requested */
};

enum owner_state {
	OWNER_NULL		= 1 << 0,
	OWNER_WRITER		= 1 << 1,
	OWNER_READER		= 1 << 2,
	OWNER_NONSPINNABLE	= 1 << 3,
};
#define OWNER_SPINNABLE	(OWNER_NULL | OWNER_WRITER | OWNER_READER)

struct rspin_rwsem {
	long count;			/* the count word: see the diagram above */
	long owner;			/* the owner word: next to count, same cache line */
	struct optimistic_spin_queue osq;
	raw_spinlock_t wait_lock;	/* protects wait_list and every HANDOFF change */
	struct rspin_list wait_list;
	/* knobs, read-only after init */
	uint64_t handoff_timeout_ns;
	uint64_t rspin_threshold_ns;	/* 0: the kernel's formula */
	uint64_t spin_budget_ns;
	long max_readers_wakeup;
	bool rspin, wspin;
	int oncpu;			/* enum lab_oncpu (wait.h) */
	bool out_nolock_fixed;		/* out_nolock=v5.19 */
};

enum {
	K_HANDOFF_TIMEOUT_US,
	K_RSPIN,
	K_WSPIN,
	K_MAX_READERS_WAKEUP,
	K_RSPIN_THRESHOLD_US,
	K_SPIN_BUDGET_US,
	K_ONCPU,
	K_OUT_NOLOCK,
};

static const struct lab_knob rspin_knobs[] = {
	[K_HANDOFF_TIMEOUT_US] = {
		.name = "handoff_timeout_us", .type = LAB_KNOB_INT, .def = 4000, .min = 0, .max = 10000000,
		.help = "queue wait before HANDOFF is requested, us (RWSEM_WAIT_TIMEOUT: 4 ms at HZ=250/1000)" },
	[K_RSPIN] = {
		.name = "rspin", .type = LAB_KNOB_BOOL, .def = 1,
		.help = "reader optimistic spinning (v5.3: on); 0 = mainline since 617f3ef95177 (v5.11), which "
			"also closes v5.3's window where a spinning reader hides a release from up_read" },
	[K_WSPIN] = {
		.name = "wspin", .type = LAB_KNOB_BOOL, .def = 1,
		.help = "writer optimistic spinning (CONFIG_RWSEM_SPIN_ON_OWNER: on)" },
	[K_MAX_READERS_WAKEUP] = {
		.name = "max_readers_wakeup", .type = LAB_KNOB_INT, .def = 256, .min = 1, .max = 1 << 20,
		.help = "readers granted per wakeup (MAX_READERS_WAKEUP = 0x100)" },
	[K_RSPIN_THRESHOLD_US] = {
		.name = "rspin_threshold_us", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 1000000,
		.help = "writer spin limit on a reader-owned lock, us; 0 = kernel formula 10 + readers/2, max 25" },
	[K_SPIN_BUDGET_US] = {
		.name = "spin_budget_us", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 1000000,
		.help = "need_resched() as a fixed spin budget per slow path in us (ablation); "
			"0: the spinner was preempted (its switch ring moved)" },
	[K_ONCPU] = {
		.name = "oncpu", .type = LAB_KNOB_ENUM, .def = 0, .choices = "switch|clock|flag",
		.help = "owner_on_cpu(): switch = the owner's context-switch ring (perf, plain loads); "
			"clock = its thread CPU clock sampled every 25 us; flag = futex flag only (ablation)" },
	[K_OUT_NOLOCK] = {
		.name = "out_nolock", .type = LAB_KNOB_ENUM, .def = 0, .choices = "v5.3|v5.19",
		.help = "cancelled waits: v5.3 as released (a cancelled writer can leave HANDOFF set on an "
			"empty queue); v5.19 = d257cc8cb8d5 (v5.16: HANDOFF and WAITERS cleared only when the "
			"queue empties, else inherited) + 1ee326196c66 (v5.19: a cancelled first waiter wakes "
			"the next)" },
	{ 0 }
};

static inline struct rspin_rwsem *to_rspin(struct lab_rwsem *sem)
{
	return (struct rspin_rwsem *)sem;
}

static inline struct rwsem_waiter *to_waiter(struct rspin_list *l)
{
	return lab_container_of(l, struct rwsem_waiter, list);
}

/* Head waiter; wait_lock held, list not empty. */
static inline struct rwsem_waiter *rwsem_first_waiter(struct rspin_rwsem *sem)
{
	return to_waiter(sem->wait_list.next);
}

/* The head node, read without the wait_lock: only good for comparing. */
static inline struct rspin_list *rwsem_first_waiter_racy(struct rspin_rwsem *sem)
{
	return READ_ONCE(sem->wait_list.next);
}

/* jiffies comparison: has @now passed @deadline? */
static inline bool time_after_ns(uint64_t now, uint64_t deadline)
{
	return (int64_t)(deadline - now) < 0;
}

/* ---- owner helpers ------------------------------------------------------- */

static inline void rwsem_set_owner(struct rspin_rwsem *sem)
{
	WRITE_ONCE(sem->owner, (long)lab_current());
}

static inline void rwsem_clear_owner(struct rspin_rwsem *sem)
{
	WRITE_ONCE(sem->owner, 0L);
}

static inline bool rwsem_test_oflags(struct rspin_rwsem *sem, long flags)
{
	return READ_ONCE(sem->owner) & flags;
}

/*
 * Record @owner (| flags already in it) as the last reader. RD_NONSPINNABLE
 * already in the word is kept; WR_NONSPINNABLE is dropped. The read-then-store
 * is not atomic: a bit set in between is lost, as in the kernel (a hint).
 */
static inline void __rwsem_set_reader_owned(struct rspin_rwsem *sem, long owner)
{
	long val = owner | RWSEM_READER_OWNED | (READ_ONCE(sem->owner) & RWSEM_RD_NONSPINNABLE);

	WRITE_ONCE(sem->owner, val);
}

static inline void rwsem_set_reader_owned(struct rspin_rwsem *sem)
{
	__rwsem_set_reader_owned(sem, (long)lab_current());
}

/* Set both NONSPINNABLE bits, but only while the lock is still reader-owned. */
static void rwsem_set_nonspinnable(struct rspin_rwsem *sem)
{
	long owner = READ_ONCE(sem->owner);

	do {
		if (!(owner & RWSEM_READER_OWNED) || (owner & RWSEM_NONSPINNABLE))
			return;
	} while (!atomic_try_cmpxchg_relaxed(&sem->owner, &owner, owner | RWSEM_NONSPINNABLE));
}

static inline struct lab_task *rwsem_owner_flags(struct rspin_rwsem *sem, long *flags)
{
	long owner = READ_ONCE(sem->owner);

	*flags = owner & RWSEM_OWNER_FLAGS_MASK;
	return (struct lab_task *)(owner & ~RWSEM_OWNER_FLAGS_MASK);
}

/* Called when the reader count dropped to 0: writers may spin again (readers not). */
static inline void clear_wr_nonspinnable(struct rspin_rwsem *sem)
{
	if (rwsem_test_oflags(sem, RWSEM_WR_NONSPINNABLE))
		atomic_andnot(&sem->owner, RWSEM_WR_NONSPINNABLE);
}

/* ---- wait_lock release: the invariants (debug.h) ------------------------ */

/*
 * Release wait_lock, first checking what must hold whenever nobody holds
 * it: HANDOFF and WAITERS only with waiters queued, WAITERS whenever there
 * are, no reader-count underflow (sign bit = READFAIL, never reached).
 */
static inline void rwsem_wait_unlock(struct rspin_rwsem *sem)
{
	long c = READ_ONCE(sem->count);
	bool empty = list_empty(&sem->wait_list);

	LAB_RWSEM_CHECK((c & RWSEM_FLAG_HANDOFF) && empty, "rwsem-rspin", "HANDOFF with no waiter", c);
	LAB_RWSEM_CHECK(!(c & RWSEM_FLAG_WAITERS) != empty, "rwsem-rspin", "WAITERS != queue not empty", c);
	LAB_RWSEM_CHECK(c < 0, "rwsem-rspin", "count underflow", c);
	raw_spin_unlock(&sem->wait_lock);
}

/* ---- waking -------------------------------------------------------------- */

/*
 * rwsem_mark_wake() - hand the lock to the head of the queue.
 * - wait_lock held, wait_list not empty;
 * - a writer at the head is only queued on @wake_q (WAKE_ANY), not granted;
 * - readers are granted here: the count is raised for all of them first,
 *   then each waiter->task is cleared; the caller runs wake_up_q() after
 *   dropping the wait_lock.
 */
static void rwsem_mark_wake(struct rspin_rwsem *sem, enum rwsem_wake_type wake_type,
			    struct wake_q_head *wake_q)
{
	struct rwsem_waiter *waiter = rwsem_first_waiter(sem);
	struct rspin_list wlist, *pos, *next;
	long oldcount, woken = 0, adjustment = 0;

	if (waiter->type == RWSEM_WAITING_FOR_WRITE) {
		if (wake_type == RWSEM_WAKE_ANY) {
			/* Woken, not granted: spinners may still take the lock first. */
			wake_q_add(wake_q, waiter->task);
			lockevent_inc(rwsem_wake_writer);
		}
		return;
	}

	/* READFAIL set: too many readers already. */
	if (lab_unlikely(READ_ONCE(sem->count) < 0))
		return;

	if (wake_type != RWSEM_WAKE_READ_OWNED) {
		long owner;

		/*
		 * Grant the head reader before counting the others, so that a
		 * writer that stole the lock meanwhile makes us back off early.
		 * Fully ordered: pairs with the up_write release we follow.
		 */
		adjustment = RWSEM_READER_BIAS;
		oldcount = atomic_fetch_add(&sem->count, adjustment);
		if (lab_unlikely(oldcount & RWSEM_WRITER_MASK)) {
			/* A writer got in first. Waited too long? Ask for HANDOFF. */
			if (!(oldcount & RWSEM_FLAG_HANDOFF) &&
			    time_after_ns(lab_jiffies_ns(), waiter->timeout)) {
				adjustment -= RWSEM_FLAG_HANDOFF;
				lockevent_inc(rwsem_rlock_handoff);
			}
			atomic_add(&sem->count, -adjustment);
			return;
		}
		/* Readers own it now; the head reader carries the RD bit it saw. */
		owner = (long)waiter->task;
		if (waiter->last_rowner & RWSEM_RD_NONSPINNABLE) {
			owner |= RWSEM_RD_NONSPINNABLE;
			lockevent_inc(rwsem_opt_norspin);
		}
		__rwsem_set_reader_owned(sem, owner);
	}

	/*
	 * Pass 1: move every queued reader, wherever it sits behind writers, to
	 * a private list, up to max_readers_wakeup of them.
	 */
	wlist.next = wlist.prev = &wlist;
	for (pos = sem->wait_list.next; pos != &sem->wait_list; pos = next) {
		next = pos->next;
		if (to_waiter(pos)->type == RWSEM_WAITING_FOR_WRITE)
			continue;
		list_del(pos);
		list_add_tail(pos, &wlist);
		if (++woken >= sem->max_readers_wakeup)
			break;
	}

	adjustment = woken * RWSEM_READER_BIAS - adjustment;
	lockevent_cond_inc(rwsem_wake_reader, woken);
	if (list_empty(&sem->wait_list))
		adjustment -= RWSEM_FLAG_WAITERS;
	/* Readers got the lock: a pending HANDOFF has done its job. */
	if (woken && (READ_ONCE(sem->count) & RWSEM_FLAG_HANDOFF))
		adjustment -= RWSEM_FLAG_HANDOFF;
	if (adjustment)
		atomic_add(&sem->count, adjustment);

	/*
	 * Pass 2: only now release the readers. A reader may run, finish and
	 * up_read as soon as its task is NULL; had its bias not been added yet,
	 * the count could underflow. The waiter lives on the reader's stack: read
	 * everything we need from it before the store.
	 */
	for (pos = wlist.next; pos != &wlist; pos = next) {
		struct rwsem_waiter *w = to_waiter(pos);
		struct lab_task *tsk = w->task;

		next = pos->next;
		/* Pairs with smp_load_acquire(&waiter.task) in the read slow path. */
		smp_store_release(&w->task, NULL);
		wake_q_add(wake_q, tsk);
	}
}

/* up_read/up_write found waiters and a free lock. */
static __lab_noinline void rwsem_wake(struct rspin_rwsem *sem)
{
	struct wake_q_head wake_q;

	wake_q_init(&wake_q);
	raw_spin_lock(&sem->wait_lock);
	if (!list_empty(&sem->wait_list))
		rwsem_mark_wake(sem, RWSEM_WAKE_ANY, &wake_q);
	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);
}

/* downgrade_write found waiters: bring queued readers in with us. */
static __lab_noinline void rwsem_downgrade_wake(struct rspin_rwsem *sem)
{
	struct wake_q_head wake_q;

	wake_q_init(&wake_q);
	raw_spin_lock(&sem->wait_lock);
	if (!list_empty(&sem->wait_list))
		rwsem_mark_wake(sem, RWSEM_WAKE_READ_OWNED, &wake_q);
	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);
}

/*
 * out_nolock=v5.19: the cancellation path of d257cc8cb8d5 ("locking/rwsem:
 * Make handoff bit handling more consistent", v5.16) and 1ee326196c66
 * ("locking/rwsem: Always try to wake waiters in out_nolock path", v5.19),
 * in v5.3's structure: unlink @waiter; if the queue is now empty clear
 * WAITERS and HANDOFF together (andnot, whoever set HANDOFF), else leave
 * HANDOFF to the new head and, if @waiter was the head, wake it. wait_lock
 * held; released here, then the wakeups.
 */
static void rwsem_del_wake_waiter(struct rspin_rwsem *sem, struct rwsem_waiter *waiter,
				  struct wake_q_head *wake_q)
{
	bool first = rwsem_first_waiter(sem) == waiter;

	list_del(&waiter->list);
	if (list_empty(&sem->wait_list))
		atomic_andnot(&sem->count, RWSEM_FLAG_HANDOFF | RWSEM_FLAG_WAITERS);
	else if (first)
		rwsem_mark_wake(sem, RWSEM_WAKE_ANY, wake_q);
	rwsem_wait_unlock(sem);
	wake_up_q(wake_q);
}

/*
 * rwsem_try_write_lock() - the queued writer's attempt.
 * - wait_lock held, the caller is on the wait list;
 * - NOT_FIRST honours someone else's HANDOFF; HANDOFF state sets the bit if
 *   the lock is still held (returns false) or takes the lock clearing it.
 */
static bool rwsem_try_write_lock(struct rspin_rwsem *sem, enum writer_wait_state wstate)
{
	long count = READ_ONCE(sem->count), new;

	do {
		bool has_handoff = count & RWSEM_FLAG_HANDOFF;

		if (has_handoff && wstate == WRITER_NOT_FIRST)
			return false;
		new = count;
		if (count & RWSEM_LOCK_MASK) {
			if (has_handoff || wstate != WRITER_HANDOFF)
				return false;
			new |= RWSEM_FLAG_HANDOFF;
		} else {
			new |= RWSEM_WRITER_LOCKED;
			new &= ~RWSEM_FLAG_HANDOFF;
			if (list_is_singular(&sem->wait_list))
				new &= ~RWSEM_FLAG_WAITERS;
		}
		/* Acquire on success: pairs with the release of the last unlock. */
	} while (!atomic_try_cmpxchg_acquire(&sem->count, &count, new));

	if (new & RWSEM_FLAG_HANDOFF)
		return false;
	rwsem_set_owner(sem);
	return true;
}

/* ---- optimistic spinning ------------------------------------------------- */

/* Unqueued read attempt: not while write-locked or a handoff is pending. */
static bool rwsem_try_read_lock_unqueued(struct rspin_rwsem *sem)
{
	long count = READ_ONCE(sem->count);

	if (count & (RWSEM_WRITER_MASK | RWSEM_FLAG_HANDOFF))
		return false;
	/* Acquire: pairs with the releasing up_write/up_read. */
	count = atomic_fetch_add_acquire(&sem->count, RWSEM_READER_BIAS);
	if (!(count & (RWSEM_WRITER_MASK | RWSEM_FLAG_HANDOFF))) {
		rwsem_set_reader_owned(sem);
		lockevent_inc(rwsem_opt_rlock);
		return true;
	}
	atomic_add(&sem->count, -RWSEM_READER_BIAS);
	return false;
}

/* Unqueued write attempt: only on a completely free lock with no handoff. */
static bool rwsem_try_write_lock_unqueued(struct rspin_rwsem *sem)
{
	long count = READ_ONCE(sem->count);

	while (!(count & (RWSEM_LOCK_MASK | RWSEM_FLAG_HANDOFF))) {
		if (atomic_try_cmpxchg_acquire(&sem->count, &count, count | RWSEM_WRITER_LOCKED)) {
			rwsem_set_owner(sem);
			lockevent_inc(rwsem_opt_wlock);
			return true;
		}
	}
	return false;
}

/*
 * May we spin at all? Not past the budget, not when our kind's NONSPINNABLE
 * bit is set, not behind a writer that sleeps. A reader owner is not checked:
 * the entry may be stale.
 */
static bool rwsem_can_spin_on_owner(struct rspin_rwsem *sem, long nonspinnable)
{
	struct lab_task *owner;
	long flags;
	bool ret = true;

	if (need_resched()) {
		lockevent_inc(rwsem_opt_fail);
		return false;
	}
	owner = rwsem_owner_flags(sem, &flags);
	if ((flags & nonspinnable) ||
	    (owner && !(flags & RWSEM_READER_OWNED) && !owner_on_cpu(owner)))
		ret = false;
	lockevent_cond_inc(rwsem_opt_fail, !ret);
	return ret;
}

static inline enum owner_state rwsem_owner_state(struct lab_task *owner, long flags, long nonspinnable)
{
	if (flags & nonspinnable)
		return OWNER_NONSPINNABLE;
	if (flags & RWSEM_READER_OWNED)
		return OWNER_READER;
	return owner ? OWNER_WRITER : OWNER_NULL;
}

/*
 * Classify the owner; while it is a running writer, spin until it changes.
 * v5.3 also gives up as soon as a waiter has requested HANDOFF.
 */
static enum owner_state rwsem_spin_on_owner(struct rspin_rwsem *sem, long nonspinnable)
{
	struct lab_task *owner, *new;
	long flags, new_flags;
	enum owner_state state;

	owner = rwsem_owner_flags(sem, &flags);
	state = rwsem_owner_state(owner, flags, nonspinnable);
	if (state != OWNER_WRITER)
		return state;

	for (;;) {
		if (READ_ONCE(sem->count) & RWSEM_FLAG_HANDOFF)
			return OWNER_NONSPINNABLE;
		new = rwsem_owner_flags(sem, &new_flags);
		if (new != owner || new_flags != flags)
			return rwsem_owner_state(new, new_flags, nonspinnable);
		if (need_resched() || !owner_on_cpu(owner))
			return OWNER_NONSPINNABLE;
		cpu_relax();
	}
}

/* sched_clock() deadline for a writer spinning on a reader-owned lock. */
static uint64_t rwsem_rspin_threshold(struct rspin_rwsem *sem)
{
	long readers = READ_ONCE(sem->count) >> RWSEM_READER_SHIFT;
	uint64_t delta;

	if (sem->rspin_threshold_ns)
		delta = sem->rspin_threshold_ns;
	else {
		if (readers > 30)
			readers = 30;
		if (readers < 0)
			readers = 0;
		delta = (uint64_t)(20 + readers) * 1000 / 2;	/* (10 + readers/2) us */
	}
	return lab_clock_ns() + delta;
}

/*
 * rwsem_optimistic_spin() - spin for the lock as reader (@wlock false) or
 * writer, at the head of the osq. Returns true with the lock held.
 * - the caller started the spin budget (need_resched) and is not queued;
 * - the caller counts rwsem_opt_fail on false (the read side only once the
 *   reader-phase trylock has failed too, where the kernel adds one and takes
 *   it back).
 */
static bool rwsem_optimistic_spin(struct rspin_rwsem *sem, bool wlock)
{
	enum owner_state prev_owner_state = OWNER_NULL;
	long nonspinnable = wlock ? RWSEM_WR_NONSPINNABLE : RWSEM_RD_NONSPINNABLE;
	uint64_t rspin_threshold = 0, t0 = lab_clock_ns(), null_since = 0;
	unsigned loop = 0;
	bool taken = false;

	if (!osq_lock(&sem->osq))
		goto done;

	for (;;) {
		enum owner_state owner_state = rwsem_spin_on_owner(sem, nonspinnable);

		if (!(owner_state & OWNER_SPINNABLE))
			break;

		taken = wlock ? rwsem_try_write_lock_unqueued(sem) : rwsem_try_read_lock_unqueued(sem);
		if (taken)
			break;

		/* A held lock that names no owner: a window the kernel does not preempt (wait.h). */
		if (owner_state != OWNER_NULL)
			null_since = 0;
		else if (lab_owner_null_expired(&null_since))
			break;

		/* A writer spins on readers only for a while: they may stay long. */
		if (wlock && owner_state == OWNER_READER) {
			if (prev_owner_state != OWNER_READER) {
				/* A new reader phase: (re)start the clock. */
				if (rwsem_test_oflags(sem, nonspinnable))
					break;
				rspin_threshold = rwsem_rspin_threshold(sem);
				loop = 0;
			} else if (!(++loop & 0xf) && lab_clock_ns() > rspin_threshold) {
				rwsem_set_nonspinnable(sem);
				lockevent_inc(rwsem_opt_nospin);
				break;
			}
		}

		/* rwsem_spin_on_owner() checks need_resched itself for a writer owner. */
		if (owner_state != OWNER_WRITER && need_resched())
			break;
		prev_owner_state = owner_state;
		cpu_relax();
	}
	osq_unlock(&sem->osq);
done:
	lockevent_add(spin_ns, lab_clock_ns() - t0);
	return taken;
}

/*
 * After a failed read spin: if the lock is reader-owned and the owner word
 * names another reader than at slow-path entry, a reader phase is still on;
 * join it.
 */
static bool rwsem_reader_phase_trylock(struct rspin_rwsem *sem, long last_rowner)
{
	long owner = READ_ONCE(sem->owner);

	if (!(owner & RWSEM_READER_OWNED))
		return false;
	if (((owner ^ last_rowner) & ~RWSEM_OWNER_FLAGS_MASK) && rwsem_try_read_lock_unqueued(sem)) {
		lockevent_inc(rwsem_opt_rlock2);
		return true;
	}
	return false;
}

/* ---- slow paths ---------------------------------------------------------- */

/*
 * rwsem_down_read_slowpath() - the read fast path failed; our READER_BIAS is
 * still in the count. @state TASK_KILLABLE: v5.3's out_nolock (list_del;
 * WAITERS and HANDOFF cleared only if the queue is now empty; nobody woken).
 * Returns 0 with the lock, or -EINTR.
 */
static __lab_cold int rwsem_down_read_slowpath(struct rspin_rwsem *sem, uint32_t state)
{
	long count, adjustment = -RWSEM_READER_BIAS;
	struct rwsem_waiter waiter;
	struct wake_q_head wake_q;
	bool wake = false;

	wake_q_init(&wake_q);
	/* Native tests only: under --sim its load would be a modelled access (another line, more time). */
	if (!LAB_SIM && lab_unlikely(READ_ONCE(lab_rspin_test_read_slowpath_hook) != NULL))
		lab_rspin_test_read_slowpath_hook();

	/* Remember the last reader (or just the RD bit) for the phase trylock and the wakeup. */
	waiter.last_rowner = READ_ONCE(sem->owner);
	if (!(waiter.last_rowner & RWSEM_READER_OWNED))
		waiter.last_rowner &= RWSEM_RD_NONSPINNABLE;

	if (!sem->rspin)
		goto queue;
	lab_spin_start(sem->spin_budget_ns, sem->oncpu);
	if (!rwsem_can_spin_on_owner(sem, RWSEM_RD_NONSPINNABLE))
		goto queue;

	/* Take our bias back and spin without it. */
	atomic_add(&sem->count, -RWSEM_READER_BIAS);
	adjustment = 0;
	if (rwsem_optimistic_spin(sem, false)) {
		/* Got it: bring the queued readers along if a reader heads the queue. */
		if (READ_ONCE(sem->count) & RWSEM_FLAG_WAITERS) {
			raw_spin_lock(&sem->wait_lock);
			if (!list_empty(&sem->wait_list))
				rwsem_mark_wake(sem, RWSEM_WAKE_READ_OWNED, &wake_q);
			rwsem_wait_unlock(sem);
			wake_up_q(&wake_q);
		}
		return 0;
	}
	if (rwsem_reader_phase_trylock(sem, waiter.last_rowner))
		return 0;
	lockevent_inc(rwsem_opt_fail);

queue:
	waiter.task = lab_current();
	waiter.type = RWSEM_WAITING_FOR_READ;
	waiter.timeout = lab_jiffies_ns() + sem->handoff_timeout_ns;

	raw_spin_lock(&sem->wait_lock);
	if (list_empty(&sem->wait_list)) {
		/*
		 * Nobody queued and no writer or handoff: our bias (still in
		 * the count unless we spun) already makes us a reader.
		 * Acquire: pairs with the release of a writer that left after
		 * our fetch_add.
		 */
		if (adjustment && !(smp_load_acquire(&sem->count) &
				    (RWSEM_WRITER_MASK | RWSEM_FLAG_HANDOFF))) {
			rwsem_wait_unlock(sem);
			rwsem_set_reader_owned(sem);
			lockevent_inc(rwsem_rlock_fast);
			return 0;
		}
		adjustment += RWSEM_FLAG_WAITERS;
	}
	list_add_tail(&waiter.list, &sem->wait_list);

	/* Queued: drop our bias (and set WAITERS if first), fully ordered. */
	if (adjustment)
		count = atomic_add_return(&sem->count, adjustment);
	else
		count = READ_ONCE(sem->count);

	/*
	 * Nobody holds the lock: wake the head. Or readers hold it and we are
	 * the first waiter: grant ourselves (and any readers behind us).
	 */
	if (!(count & RWSEM_LOCK_MASK)) {
		clear_wr_nonspinnable(sem);
		wake = true;
	}
	if (wake || (!(count & RWSEM_WRITER_MASK) && (adjustment & RWSEM_FLAG_WAITERS)))
		rwsem_mark_wake(sem, RWSEM_WAKE_ANY, &wake_q);
	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);

	/* Sleep until rwsem_mark_wake() grants us the lock. */
	for (;;) {
		set_current_state(state);
		/* Acquire: pairs with the store-release in rwsem_mark_wake(). */
		if (!smp_load_acquire(&waiter.task))
			break;
		if (signal_pending_state(state)) {
			raw_spin_lock(&sem->wait_lock);
			if (READ_ONCE(waiter.task))
				goto out_nolock;
			rwsem_wait_unlock(sem);
			break;
		}
		schedule();
		lockevent_inc(rwsem_sleep_reader);
	}
	__set_current_state(TASK_RUNNING);
	lockevent_inc(rwsem_rlock);
	return 0;

out_nolock:
	if (sem->out_nolock_fixed) {
		rwsem_del_wake_waiter(sem, &waiter, &wake_q);
	} else {
		list_del(&waiter.list);
		if (list_empty(&sem->wait_list))
			atomic_andnot(&sem->count, RWSEM_FLAG_WAITERS | RWSEM_FLAG_HANDOFF);
		rwsem_wait_unlock(sem);
	}
	__set_current_state(TASK_RUNNING);
	lockevent_inc(rwsem_rlock_fail);
	return -EINTR;
}

/* Called by the new write owner, so the owner word is stable apart from flags. */
static inline void rwsem_disable_reader_optspin(struct rspin_rwsem *sem, bool disable)
{
	if (lab_unlikely(disable)) {
		atomic_or(&sem->owner, RWSEM_RD_NONSPINNABLE);
		lockevent_inc(rwsem_opt_norspin);
	}
}

/*
 * rwsem_down_write_slowpath() - the write fast path's cmpxchg failed.
 * @state TASK_KILLABLE: v5.3's out_nolock, as released: list_del; subtract
 * HANDOFF if wstate says WRITER_HANDOFF (a local set outside wait_lock);
 * clear WAITERS if the queue is now empty, else mark_wake(WAKE_ANY). It
 * never clears a HANDOFF it did not account for itself (the bug that
 * d257cc8cb8d5 fixed in v5.16). Returns 0 with the lock, or -EINTR.
 */
static __lab_cold int rwsem_down_write_slowpath(struct rspin_rwsem *sem, uint32_t state)
{
	enum writer_wait_state wstate;
	struct rwsem_waiter waiter;
	struct wake_q_head wake_q;
	bool disable_rspin;
	long count;

	wake_q_init(&wake_q);

	if (sem->wspin) {
		lab_spin_start(sem->spin_budget_ns, sem->oncpu);
		if (rwsem_can_spin_on_owner(sem, RWSEM_WR_NONSPINNABLE)) {
			if (rwsem_optimistic_spin(sem, true))
				return 0;
			lockevent_inc(rwsem_opt_fail);
		}
	}

	/* Spinning was refused or failed: if the bits say why, discourage reader spinning later. */
	disable_rspin = READ_ONCE(sem->owner) & RWSEM_NONSPINNABLE;

	waiter.task = lab_current();
	waiter.type = RWSEM_WAITING_FOR_WRITE;
	waiter.timeout = lab_jiffies_ns() + sem->handoff_timeout_ns;
	waiter.last_rowner = 0;

	raw_spin_lock(&sem->wait_lock);
	wstate = list_empty(&sem->wait_list) ? WRITER_FIRST : WRITER_NOT_FIRST;
	list_add_tail(&waiter.list, &sem->wait_list);

	if (wstate == WRITER_NOT_FIRST) {
		count = READ_ONCE(sem->count);
		/*
		 * Others queued before us. If no writer holds the lock, wake
		 * the head (a HANDOFF may be pending), or, when readers hold
		 * it, the readers queued ahead of us.
		 */
		if (!(count & RWSEM_WRITER_MASK)) {
			rwsem_mark_wake(sem, (count & RWSEM_READER_MASK) ? RWSEM_WAKE_READERS
									: RWSEM_WAKE_ANY, &wake_q);
			if (!wake_q_empty(&wake_q)) {
				/* Keep the wait_lock hold short when many readers wake. */
				rwsem_wait_unlock(sem);
				wake_up_q(&wake_q);
				raw_spin_lock(&sem->wait_lock);
			}
		}
	} else {
		atomic_or(&sem->count, RWSEM_FLAG_WAITERS);
	}

	/* State before every check: a wakeup after the check makes schedule() return. */
	set_current_state(state);
	for (;;) {
		if (rwsem_try_write_lock(sem, wstate))
			break;
		rwsem_wait_unlock(sem);

		/* Sleep until the lock looks free, or it is time for a handoff. */
		for (;;) {
			if (signal_pending_state(state))
				goto out_nolock;
			schedule();
			lockevent_inc(rwsem_sleep_writer);
			set_current_state(state);
			/* HANDOFF requested: try unconditionally. */
			if (wstate == WRITER_HANDOFF)
				break;
			if (wstate == WRITER_NOT_FIRST && rwsem_first_waiter_racy(sem) == &waiter.list)
				wstate = WRITER_FIRST;
			count = READ_ONCE(sem->count);
			if (!(count & RWSEM_LOCK_MASK))
				break;
			/* The bit itself is set by rwsem_try_write_lock(). */
			if (wstate == WRITER_FIRST && time_after_ns(lab_jiffies_ns(), waiter.timeout)) {
				wstate = WRITER_HANDOFF;
				lockevent_inc(rwsem_wlock_handoff);
				break;
			}
		}
		raw_spin_lock(&sem->wait_lock);
	}
	__set_current_state(TASK_RUNNING);
	list_del(&waiter.list);
	rwsem_disable_reader_optspin(sem, disable_rspin);
	rwsem_wait_unlock(sem);
	lockevent_inc(rwsem_wlock);
	return 0;

out_nolock:
	__set_current_state(TASK_RUNNING);
	raw_spin_lock(&sem->wait_lock);
	if (sem->out_nolock_fixed) {
		rwsem_del_wake_waiter(sem, &waiter, &wake_q);
		lockevent_inc(rwsem_wlock_fail);
		return -EINTR;
	}
	list_del(&waiter.list);
	if (lab_unlikely(wstate == WRITER_HANDOFF))
		atomic_add(&sem->count, -RWSEM_FLAG_HANDOFF);
	if (list_empty(&sem->wait_list))
		atomic_andnot(&sem->count, RWSEM_FLAG_WAITERS);
	else
		rwsem_mark_wake(sem, RWSEM_WAKE_ANY, &wake_q);
	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);
	lockevent_inc(rwsem_wlock_fail);
	return -EINTR;
}

/* ---- the verbs ----------------------------------------------------------- */

/* __down_read(), __down_read_killable(): the fast path, then the slow path in @state. */
static inline int rspin_down_read_common(struct rspin_rwsem *sem, uint32_t state)
{
	/* Acquire: pairs with the release of the previous writer's up_write. */
	long cnt = atomic_add_return_acquire(&sem->count, RWSEM_READER_BIAS);

	if (lab_unlikely(cnt < 0))	/* READFAIL: reader count overflow (cannot happen here) */
		rwsem_set_nonspinnable(sem);
	if (lab_likely(!(cnt & RWSEM_READ_FAILED_MASK))) {
		rwsem_set_reader_owned(sem);
		return 0;
	}
	if (rwsem_down_read_slowpath(sem, state))
		return -EINTR;
	/* v5.3 rwsem.c:1321 (__down_read), :1332 (__down_read_killable) */
	DEBUG_RWSEMS_WARN_ON(!rwsem_test_oflags(sem, RWSEM_READER_OWNED), "rwsem-rspin",
			     "read slow path returned a lock not reader-owned", READ_ONCE(sem->count));
	return 0;
}

static void rspin_down_read(struct lab_rwsem *s)
{
	rspin_down_read_common(to_rspin(s), TASK_UNINTERRUPTIBLE);
}

static int rspin_down_read_killable(struct lab_rwsem *s)
{
	return rspin_down_read_common(to_rspin(s), TASK_KILLABLE);
}

static int rspin_down_read_trylock(struct lab_rwsem *s)
{
	struct rspin_rwsem *sem = to_rspin(s);
	long tmp = RWSEM_UNLOCKED_VALUE;

	/* Guess "free"; retry with what we saw while it stays readable. */
	do {
		if (atomic_try_cmpxchg_acquire(&sem->count, &tmp, tmp + RWSEM_READER_BIAS)) {
			rwsem_set_reader_owned(sem);
			return 1;
		}
	} while (!(tmp & RWSEM_READ_FAILED_MASK));
	return 0;
}

static void rspin_up_read(struct lab_rwsem *s)
{
	struct rspin_rwsem *sem = to_rspin(s);
	long tmp;

	/* v5.3 rwsem.c:1403 (__up_read) */
	DEBUG_RWSEMS_WARN_ON(!rwsem_test_oflags(sem, RWSEM_READER_OWNED), "rwsem-rspin",
			     "up_read of a lock not reader-owned", READ_ONCE(sem->count));
	/* Release: the read section stays before the unlock. */
	tmp = atomic_add_return_release(&sem->count, -RWSEM_READER_BIAS);

	DEBUG_RWSEMS_WARN_ON(tmp < 0, "rwsem-rspin", "up_read count underflow", tmp);

	if (lab_unlikely((tmp & (RWSEM_LOCK_MASK | RWSEM_FLAG_WAITERS)) == RWSEM_FLAG_WAITERS)) {
		clear_wr_nonspinnable(sem);
		rwsem_wake(sem);
	}
}

/* __down_write(), __down_write_killable(): the fast path, then the slow path in @state. */
static inline int rspin_down_write_common(struct rspin_rwsem *sem, uint32_t state)
{
	long tmp = RWSEM_UNLOCKED_VALUE;

	/* Acquire: pairs with the release of the last unlock. */
	if (lab_likely(atomic_try_cmpxchg_acquire(&sem->count, &tmp, RWSEM_WRITER_LOCKED))) {
		rwsem_set_owner(sem);
		return 0;
	}
	return rwsem_down_write_slowpath(sem, state);
}

static void rspin_down_write(struct lab_rwsem *s)
{
	rspin_down_write_common(to_rspin(s), TASK_UNINTERRUPTIBLE);
}

static int rspin_down_write_killable(struct lab_rwsem *s)
{
	return rspin_down_write_common(to_rspin(s), TASK_KILLABLE);
}

/* Timed waits (rwsem.h): the killable waits with the deadline as a fatal signal (lab_wait_timed()). */
static int rspin_down_read_timed(struct lab_rwsem *s, uint64_t deadline_ns)
{
	return lab_wait_timed(rspin_down_read_killable, s, deadline_ns);
}

static int rspin_down_write_timed(struct lab_rwsem *s, uint64_t deadline_ns)
{
	return lab_wait_timed(rspin_down_write_killable, s, deadline_ns);
}

static int rspin_check_unlocked(struct lab_rwsem *s, char *msg, size_t len)
{
	struct rspin_rwsem *sem = to_rspin(s);
	long c = READ_ONCE(sem->count);

	if (c == RWSEM_UNLOCKED_VALUE && list_empty(&sem->wait_list))
		return 0;
	snprintf(msg, len, "count %#lx, wait list %s (unlocked: 0, empty)", (unsigned long)c,
		 list_empty(&sem->wait_list) ? "empty" : "not empty");
	return -1;
}

static int rspin_down_write_trylock(struct lab_rwsem *s)
{
	struct rspin_rwsem *sem = to_rspin(s);
	long tmp = RWSEM_UNLOCKED_VALUE;

	if (atomic_try_cmpxchg_acquire(&sem->count, &tmp, RWSEM_WRITER_LOCKED)) {
		rwsem_set_owner(sem);
		return 1;
	}
	return 0;
}

static void rspin_up_write(struct lab_rwsem *s)
{
	struct rspin_rwsem *sem = to_rspin(s);
	long tmp;

	DEBUG_RWSEMS_WARN_ON((READ_ONCE(sem->owner) & ~RWSEM_OWNER_FLAGS_MASK) != (long)lab_current(),
			     "rwsem-rspin", "up_write by a task that is not the owner", READ_ONCE(sem->count));
	rwsem_clear_owner(sem);
	/* Release: the write section stays before the unlock. */
	tmp = atomic_fetch_add_release(&sem->count, -RWSEM_WRITER_LOCKED);
	DEBUG_RWSEMS_WARN_ON(!(tmp & RWSEM_WRITER_LOCKED), "rwsem-rspin", "up_write of a lock not write-held", tmp);
	if (lab_unlikely(tmp & RWSEM_FLAG_WAITERS))
		rwsem_wake(sem);
}

static void rspin_downgrade_write(struct lab_rwsem *s)
{
	struct rspin_rwsem *sem = to_rspin(s);
	long tmp;

	/* v5.3 rwsem.c:1447 (__downgrade_write) */
	DEBUG_RWSEMS_WARN_ON((READ_ONCE(sem->owner) & ~RWSEM_OWNER_FLAGS_MASK) != (long)lab_current(),
			     "rwsem-rspin", "downgrade_write by a task that is not the owner",
			     READ_ONCE(sem->count));
	/*
	 * Release is enough: nothing of the write section may move below the
	 * point where readers can enter, while read-side accesses may move up
	 * into the write section harmlessly.
	 */
	tmp = atomic_fetch_add_release(&sem->count, RWSEM_READER_BIAS - RWSEM_WRITER_LOCKED);
	rwsem_set_reader_owned(sem);
	if (tmp & RWSEM_FLAG_WAITERS)
		rwsem_downgrade_wake(sem);
}

static int rspin_init(struct lab_rwsem *s, const struct lab_rwsem_conf *conf)
{
	struct rspin_rwsem *sem = to_rspin(s);

	WRITE_ONCE(sem->count, RWSEM_UNLOCKED_VALUE);
	WRITE_ONCE(sem->owner, 0L);
	osq_lock_init(&sem->osq);
	raw_spin_lock_init(&sem->wait_lock);
	list_init(&sem->wait_list);
	sem->handoff_timeout_ns = (uint64_t)conf->knob[K_HANDOFF_TIMEOUT_US] * 1000;
	sem->rspin = conf->knob[K_RSPIN];
	sem->wspin = conf->knob[K_WSPIN];
	sem->max_readers_wakeup = conf->knob[K_MAX_READERS_WAKEUP];
	sem->rspin_threshold_ns = (uint64_t)conf->knob[K_RSPIN_THRESHOLD_US] * 1000;
	sem->spin_budget_ns = (uint64_t)conf->knob[K_SPIN_BUDGET_US] * 1000;
	sem->oncpu = conf->knob[K_ONCPU];
	sem->out_nolock_fixed = conf->knob[K_OUT_NOLOCK] == 1;
	return 0;
}

/* rwsem.h known_bug: the wait_lock invariant v5.3's own out_nolock breaks. */
static const char *rspin_known_bug(const struct lab_rwsem_conf *conf, const char *check)
{
	if (conf->knob[K_OUT_NOLOCK] != 0 || strcmp(check, "HANDOFF with no waiter"))
		return NULL;
	return "v5.3's out_nolock: a waiter cancelled while a HANDOFF it did not request is set (a reader "
	       "head's, inherited) can leave the lock with RWSEM_FLAG_HANDOFF set and an empty queue; fixed by "
	       "d257cc8cb8d5 (\"locking/rwsem: Make handoff bit handling more consistent\", v5.16) and "
	       "1ee326196c66 (\"locking/rwsem: Always try to wake waiters in out_nolock path\", v5.19); "
	       "rwsem-rspin:out_nolock=v5.19 applies both";
}

void lab_rspin_peek(struct lab_rwsem *s, struct lab_rspin_peek *out)
{
	struct rspin_rwsem *sem = to_rspin(s);

	raw_spin_lock(&sem->wait_lock);
	out->count = READ_ONCE(sem->count);
	out->owner = READ_ONCE(sem->owner);
	out->nr_waiters = out->nr_read_waiters = out->nr_write_waiters = 0;
	for (struct rspin_list *pos = sem->wait_list.next; pos != &sem->wait_list; pos = pos->next) {
		out->nr_waiters++;
		if (to_waiter(pos)->type == RWSEM_WAITING_FOR_READ)
			out->nr_read_waiters++;
		else
			out->nr_write_waiters++;
	}
	rwsem_wait_unlock(sem);
}

void (*lab_rspin_test_read_slowpath_hook)(void);

void lab_rspin_test_set_owner(struct lab_rwsem *s, long owner)
{
	WRITE_ONCE(to_rspin(s)->owner, owner);
}

void lab_rspin_test_set_flags(struct lab_rwsem *s, long bits)
{
	struct rspin_rwsem *sem = to_rspin(s);

	raw_spin_lock(&sem->wait_lock);
	atomic_or(&sem->count, bits);
	raw_spin_unlock(&sem->wait_lock);
}

const struct lab_rwsem_ops lab_rwsem_rspin_ops = {
	.name = "rwsem-rspin",
	.summary = "Linux v5.3 rwsem: reader+writer optimistic spinning, 4 ms handoff, wakes up to 256 queued readers",
	.cite = "Linux v5.3 kernel/locking/rwsem.c; Waiman Long & Peter Zijlstra, \"locking/rwsem: "
		"Rework rwsem-xadd & enable new rwsem features\" (2019)",
	.caps = LAB_CAP_SLEEPS | LAB_CAP_SPINS | LAB_CAP_EXCLUSION | LAB_CAP_READ_TRYLOCK |
		LAB_CAP_WRITE_TRYLOCK | LAB_CAP_DOWNGRADE | LAB_CAP_EVENTS | LAB_CAP_KILLABLE |
		LAB_CAP_EMBED,
	.size = sizeof(struct rspin_rwsem),
	.align = LAB_CACHELINE,
	.knobs = rspin_knobs,
	.events = LAB_EVENTS(/* v5.3's lock_events_list.h, then rwlab's */
			     LAB_EV_rwsem_sleep_reader, LAB_EV_rwsem_sleep_writer, LAB_EV_rwsem_wake_reader,
			     LAB_EV_rwsem_wake_writer, LAB_EV_rwsem_opt_rlock, LAB_EV_rwsem_opt_wlock,
			     LAB_EV_rwsem_opt_fail, LAB_EV_rwsem_opt_nospin, LAB_EV_rwsem_opt_rlock2,
			     LAB_EV_rwsem_opt_norspin, LAB_EV_rwsem_rlock, LAB_EV_rwsem_rlock_fast, LAB_EV_rwsem_rlock_fail,
			     LAB_EV_rwsem_rlock_handoff, LAB_EV_rwsem_wlock, LAB_EV_rwsem_wlock_fail,
			     LAB_EV_rwsem_wlock_handoff, LAB_EV_spin_ns, LAB_EV_osq_abort),
	.init = rspin_init,
	.down_read = rspin_down_read,
	.down_read_trylock = rspin_down_read_trylock,
	.up_read = rspin_up_read,
	.down_write = rspin_down_write,
	.down_write_trylock = rspin_down_write_trylock,
	.up_write = rspin_up_write,
	.downgrade_write = rspin_downgrade_write,
	.down_read_killable = rspin_down_read_killable,
	.down_write_killable = rspin_down_write_killable,
	.down_read_timed = rspin_down_read_timed,
	.down_write_timed = rspin_down_write_timed,
	.check_unlocked = rspin_check_unlocked,
	.known_bug = rspin_known_bug,
};
