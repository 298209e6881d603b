/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwsem-xadd - the pre-5.3 Linux rwsem ("rwsem-xadd"), ported to user space.
 *
 * Citation: Linux v4.20 kernel/locking/rwsem-xadd.c (slow paths),
 * arch/x86/include/asm/rwsem.h + arch/x86/lib/rwsem.S (fast paths, the
 * default: knob fastpath=x86) or include/asm-generic/rwsem.h (knob
 * fastpath=generic), kernel/locking/rwsem.h and
 * rwsem.c (owner field), kernel/locking/osq_lock.c (spinner queue, here
 * locks/osq.c); docs/kernel.md §1 and §8. Re-implemented from those
 * descriptions; no kernel code or comments are reused.
 *
 * Design summary:
 * - down_read: add ACTIVE_READ_BIAS (acquire); a result <= 0 means a writer
 *   is active or someone waits: the slow path keeps the +1 only if the list
 *   is empty and no writer owns the lock, otherwise it queues.
 * - down_write: add ACTIVE_WRITE_BIAS (acquire). x86 (default): the lock is
 *   ours if the active half of the old count was zero, so one xadd takes it
 *   even at count == WAITING_BIAS (waiters queued, nobody active) and the
 *   write trylock succeeds there too; asm-generic (fastpath=generic): only
 *   from count == 0. Otherwise it is contention: take the bias back, spin
 *   optimistically (writers only, behind the osq, while the owner is a
 *   writer that runs), else queue and take the lock itself once the count
 *   reads WAITING_BIAS (nobody active). Writers are woken, never granted:
 *   a spinning or fast-path writer may steal the lock first.
 * - up_read/up_write/downgrade_write: one atomic each; the slow path
 *   (rwsem_wake) runs only when the count says "waiters and nobody active"
 *   (downgrade: "waiters"). x86's up_write also skips rwsem_wake while
 *   other lockers are still counted active (call_rwsem_wake's test of the
 *   old active half); asm-generic calls it whenever waiters exist. Both
 *   up_read tests are the same condition.
 * - Wakeup (__rwsem_mark_wake): a writer at the head is only woken; readers
 *   at the head are granted in a batch: the contiguous FIFO run of readers
 *   up to the first writer (no reader is taken from behind a writer).
 * - Sleeping: waiters sit on an on-stack node in a FIFO list under
 *   wait_lock and sleep in schedule(); a reader owns the lock once the waker
 *   has cleared its waiter->task; wakeups are collected in a wake_q and
 *   issued after wait_lock is dropped (except where v4.20 wakes readers
 *   from the writer slow path under the lock, which is kept).
 * - No handoff, no timeout, no reader spinning: unbounded writer stealing
 *   can starve the queue, as in v4.20.
 * Deliberate departure: the reader batch is granted with the later two-pass
 * ordering (count adjusted first, then each waiter->task cleared with a
 * release store; upstream ~v5.0/v5.1, docs/kernel.md §1.5). v4.20 cleared
 * waiter->task before adding the rest of the batch to the count, so a woken
 * reader could up_read before its bias was counted, drop the count to
 * WAITING_BIAS under a still-granted reader, and let a spinning writer that
 * had read the owner before the reader hint was set take the lock too.
 *
 * What user space cannot model (see also locks/wait.h, spinlock.h, osq.h):
 * - preemption: the kernel runs the spin loops and the wait_lock sections
 *   with preemption disabled; here the lock holder, a wait_lock holder and
 *   a spinner can all be descheduled at any point;
 * - owner->on_cpu && !vcpu_is_preempted() is owner_on_cpu() (wait.h): off
 *   while the owner sleeps in a futex or while its context-switch ring's
 *   last record is a switch-out (knob oncpu=switch, the default: plain
 *   loads; oncpu=clock: its thread CPU clock sampled every 25 us;
 *   oncpu=flag: the futex flag only, so a preempted owner looks on CPU).
 *   The osq uses the same test on its predecessor. A spin on a held lock
 *   that names no owner ends after LAB_OWNER_NULL_SPIN_NS (wait.h): v4.20's
 *   window is kernel code a non-preemptible kernel does not preempt;
 * - need_resched() is "this spinner was preempted since its spin began"
 *   (spin_budget_us=0, the default), or a fixed time budget (spin_budget_us
 *   > 0, the ablation); the time spent spinning is the spin_ns event;
 * - rt_task() livelock avoidance is dropped: the lab has no RT tasks;
 * - jiffies are not used by v4.20 rwsem-xadd (no handoff timeout).
 *
 * Count bit layout (64-bit long, signed arithmetic, docs/kernel.md §1.2):
 *
 *   63                             32 31                              0
 *  +---------------------------------+---------------------------------+
 *  |  waiting part (high 32 bits)    |  active part (RWSEM_ACTIVE_MASK)|
 *  +---------------------------------+---------------------------------+
 *
 *   RWSEM_UNLOCKED_VALUE     0x0000000000000000
 *   RWSEM_ACTIVE_MASK        0x00000000ffffffff
 *   RWSEM_ACTIVE_BIAS        +1                  (= RWSEM_ACTIVE_READ_BIAS)
 *   RWSEM_WAITING_BIAS       -0x100000000        (0xffffffff00000000)
 *   RWSEM_ACTIVE_WRITE_BIAS  WAITING_BIAS + 1    (0xffffffff00000001)
 *
 * The active part counts lockers that hold the lock or are attempting it
 * (their bias is added before they know whether they won). The waiting part
 * holds one WAITING_BIAS while the wait list is non-empty, and every writer
 * folds one more WAITING_BIAS into its own bias. Common states:
 *   0x0000000000000000  free, nobody waiting
 *   0x000000000000000X  X readers active or attempting, no waiters
 *   0xffffffff0000000X  X readers active/attempting with waiters queued, or
 *                       one writer active/attempting plus X-1 readers
 *                       attempting and no waiters
 *   0xffffffff00000001  one reader active with waiters, or one writer active
 *                       without waiters (ambiguous by design)
 *   0xffffffff00000000  waiters queued, nobody active: a writer may take the
 *                       lock by cmpxchg to ACTIVE_WRITE_BIAS (+ WAITING_BIAS)
 *   0xfffffffe00000001  one writer active and waiters queued
 *
 * Owner word (kernel/locking/rwsem.h, v4.20): a struct lab_task *:
 *   writer:  lab_current(), cleared to NULL by up_write;
 *   reader:  lab_current() | RWSEM_READER_OWNED | RWSEM_ANONYMOUSLY_OWNED,
 *            left stale after up_read (a hint naming the last reader).
 * A writer may spin only while the ANONYMOUSLY_OWNED bit is clear (NULL
 * counts as spinnable). struct lab_task is cache-line aligned, so bits 0-1
 * of a task pointer are free.
 *
 * Lock events (locks/events_list.h; per thread), with the meanings of v5.2's
 * kernel/locking/lock_events_list.h and counted where v5.2's rwsem-xadd.c
 * and rwsem.h count them (v5.2 is the last xadd release; v4.20 had none):
 *   rwsem_sleep_reader / rwsem_sleep_writer  one per schedule() call of a
 *                                            queued waiter
 *   rwsem_wake_reader   one per __rwsem_mark_wake that granted readers (a batch)
 *   rwsem_wake_writer   one per head writer woken by __rwsem_mark_wake
 *   rwsem_opt_wlock     write locks taken while spinning
 *   rwsem_opt_fail      rwsem_optimistic_spin() calls that did not get the
 *                       lock, refusals to spin (rwsem_can_spin_on_owner) included
 *   rwsem_rlock_fast    read slow paths that found the list empty and no
 *                       writer, and kept their bias without queueing
 *   rwsem_rlock         read locks acquired after queueing (slept or not)
 *   rwsem_rtrylock / rwsem_wtrylock  trylock calls (v5.2 only; removed in v5.3)
 *   rwsem_wlock         write locks taken from the wait list
 *   rwsem_rlock_fail / rwsem_wlock_fail  killable waits that gave up (out_nolock)
 *   spin_ns, osq_abort  rwlab's (spin time; counted by locks/osq.c)
 * rwsem_opt_nospin does not exist before v5.3 and never fires here. With
 * wspin=0 the spin code is not entered at all, so no opt_* event counts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "debug.h"
#include "events.h"
#include "osq.h"
#include "rwsem.h"
#include "rwsem_xadd.h"
#include "spinlock.h"
#include "wait.h"
#include "wake_q.h"

#define RWSEM_UNLOCKED_VALUE	0L
#define RWSEM_ACTIVE_BIAS	1L
#define RWSEM_ACTIVE_MASK	0xffffffffL
#define RWSEM_WAITING_BIAS	(-RWSEM_ACTIVE_MASK - 1)
#define RWSEM_ACTIVE_READ_BIAS	RWSEM_ACTIVE_BIAS
#define RWSEM_ACTIVE_WRITE_BIAS	(RWSEM_WAITING_BIAS + RWSEM_ACTIVE_BIAS)

_Static_assert(RWSEM_WAITING_BIAS == -0x100000000L, "64-bit WAITING_BIAS");
_Static_assert(sizeof(long) == 8, "rwsem-xadd uses the 64-bit count layout");

#define RWSEM_READER_OWNED	((uintptr_t)1 << 0)
#define RWSEM_ANONYMOUSLY_OWNED	((uintptr_t)1 << 1)

_Static_assert(_Alignof(struct lab_task) >= 4, "owner flag bits need 4-byte aligned tasks");

/* Doubly linked circular list of on-stack waiters; changed only under wait_lock. */
struct xadd_list {
	struct xadd_list *next, *prev;
};

enum rwsem_waiter_type {
	RWSEM_WAITING_FOR_WRITE,
	RWSEM_WAITING_FOR_READ,
};

struct rwsem_waiter {
	struct xadd_list list;
	struct lab_task *task;	/* reader: NULL once granted (release store by the waker) */
	enum rwsem_waiter_type type;
};

enum rwsem_wake_type {
	RWSEM_WAKE_ANY,		/* wake whoever heads the queue */
	RWSEM_WAKE_READERS,	/* wake readers only; the caller holds no lock */
	RWSEM_WAKE_READ_OWNED,	/* wake readers only; the caller holds a read lock */
};

/* Field order as in v4.20's struct rw_semaphore; knobs after (read-only). */
struct xadd_rwsem {
	long count;
	struct xadd_list wait_list;
	raw_spinlock_t wait_lock;
	struct optimistic_spin_queue osq;
	struct lab_task *owner;
	/* knobs */
	bool wspin;
	bool x86;		/* fastpath=x86: arch/x86 write fast paths */
	int oncpu;		/* enum lab_oncpu: owner_on_cpu()'s signal (wait.h) */
	uint64_t spin_budget_ns;
};	/* 8-byte aligned (LAB_CAP_EMBED); allocated alone at a line (ops->align) */

enum { K_WSPIN, K_SPIN_BUDGET_US, K_FASTPATH, K_ONCPU };
enum { FASTPATH_X86, FASTPATH_GENERIC };

/*
 * spin_budget_us: 0 (default) makes need_resched() the real signal (this
 * spinner was preempted). A value > 0 is the earlier stand-in kept for
 * ablation: a fixed budget (rwlab used 100 us: above one locktest critical
 * section and a futex round trip, below a timeslice), paired with oncpu=flag
 * it is rwlab's behaviour before owner_on_cpu() had a real signal.
 */
static const struct lab_knob xadd_knobs[] = {
	[K_WSPIN] = { .name = "wspin", .type = LAB_KNOB_BOOL, .def = 1,
		      .help = "writer optimistic spinning on the owner (CONFIG_RWSEM_SPIN_ON_OWNER=y: 1)" },
	[K_SPIN_BUDGET_US] = { .name = "spin_budget_us", .type = LAB_KNOB_INT, .def = 0,
			       .min = 0, .max = 1000000,
			       .help = "need_resched() as a fixed spin budget in us (ablation); 0: the spinner was "
				       "preempted (its switch ring moved)" },
	[K_FASTPATH] = { .name = "fastpath", .type = LAB_KNOB_ENUM, .def = FASTPATH_X86,
			 .choices = "x86|generic",
			 .help = "v4.20 fast paths: x86 (arch/x86/include/asm/rwsem.h; the seed tables ran on x86) "
				 "or generic (include/asm-generic/rwsem.h)" },
	[K_ONCPU] = { .name = "oncpu", .type = LAB_KNOB_ENUM, .def = 0, .choices = "switch|clock|flag",
		      .help = "owner_on_cpu(): switch = the owner's context-switch ring (perf, plain loads); "
			      "clock = its thread CPU clock sampled every 25 us; flag = futex flag only (ablation)" },
	{ 0 }
};

static inline struct xadd_rwsem *to_xadd(struct lab_rwsem *sem)
{
	return (struct xadd_rwsem *)sem;
}

/* ---- wait list ------------------------------------------------------- */

static inline void xadd_list_init(struct xadd_list *h)
{
	WRITE_ONCE(h->next, h);
	WRITE_ONCE(h->prev, h);
}

static inline bool xadd_list_empty(const struct xadd_list *h)
{
	return READ_ONCE(h->next) == h;
}

static inline bool xadd_list_is_singular(const struct xadd_list *h)
{
	struct xadd_list *first = READ_ONCE(h->next);

	return first != h && first == READ_ONCE(h->prev);
}

static inline void xadd_list_add_tail(struct xadd_list *n, struct xadd_list *h)
{
	struct xadd_list *last = READ_ONCE(h->prev);

	WRITE_ONCE(n->next, h);
	WRITE_ONCE(n->prev, last);
	WRITE_ONCE(last->next, n);
	WRITE_ONCE(h->prev, n);
}

static inline void xadd_list_del(struct xadd_list *n)
{
	struct xadd_list *prev = READ_ONCE(n->prev), *next = READ_ONCE(n->next);

	WRITE_ONCE(prev->next, next);
	WRITE_ONCE(next->prev, prev);
	WRITE_ONCE(n->next, NULL);
	WRITE_ONCE(n->prev, NULL);
}

static inline struct rwsem_waiter *waiter_of(struct xadd_list *l)
{
	return lab_container_of(l, struct rwsem_waiter, list);
}

/* ---- owner ----------------------------------------------------------- */

static inline void rwsem_set_owner(struct xadd_rwsem *sem)
{
	WRITE_ONCE(sem->owner, lab_current());
}

static inline void rwsem_clear_owner(struct xadd_rwsem *sem)
{
	WRITE_ONCE(sem->owner, (struct lab_task *)NULL);
}

static inline void __rwsem_set_reader_owned(struct xadd_rwsem *sem, struct lab_task *t)
{
	uintptr_t v = (uintptr_t)t | RWSEM_READER_OWNED | RWSEM_ANONYMOUSLY_OWNED;

	WRITE_ONCE(sem->owner, (struct lab_task *)v);
}

static inline void rwsem_set_reader_owned(struct xadd_rwsem *sem)
{
	__rwsem_set_reader_owned(sem, lab_current());
}

/* A writer may spin on @owner: NULL, or a task without the anonymous bit. */
static inline bool is_rwsem_owner_spinnable(struct lab_task *owner)
{
	return !((uintptr_t)owner & RWSEM_ANONYMOUSLY_OWNED);
}

/* ---- wait_lock release: the invariants (debug.h) ---------------------- */

/*
 * Release wait_lock, first checking what must hold whenever nobody holds
 * it: the active half (low 32 bits: lockers and transient attempts) never
 * underflows, and a non-empty queue always has its WAITING_BIAS in the
 * upper half (count >> 32 <= -1; a writer adds another -1).
 */
static inline void rwsem_wait_unlock(struct xadd_rwsem *sem)
{
	long c = READ_ONCE(sem->count);

	LAB_RWSEM_CHECK((uint32_t)c >= 0x80000000u, "rwsem-xadd", "active count underflow", c);
	LAB_RWSEM_CHECK(!xadd_list_empty(&sem->wait_list) && (c >> 32) >= 0, "rwsem-xadd",
			"waiters queued without WAITING_BIAS", c);
	raw_spin_unlock(&sem->wait_lock);
}

/* ---- __rwsem_mark_wake ----------------------------------------------- */

/*
 * Wake the head of the queue, or grant the read lock to the run of readers
 * at the head and wake them.
 * - caller holds wait_lock; the wait list is not empty;
 * - WAKE_READ_OWNED: the caller holds a read lock, so the count cannot be
 *   writer-owned and no grant bias is needed up front.
 */
static void __rwsem_mark_wake(struct xadd_rwsem *sem, enum rwsem_wake_type wake_type,
			      struct wake_q_head *wake_q)
{
	struct xadd_list *head = &sem->wait_list, *pos, *next, *last;
	struct rwsem_waiter *waiter = waiter_of(READ_ONCE(head->next));
	long oldcount, woken = 0, adjustment = 0;

	if (READ_ONCE(waiter->type) == RWSEM_WAITING_FOR_WRITE) {
		/* Wake it to race for the lock; it is not granted. */
		if (wake_type == RWSEM_WAKE_ANY) {
			wake_q_add(wake_q, READ_ONCE(waiter->task));
			lockevent_inc(rwsem_wake_writer);
		}
		return;
	}

	if (wake_type != RWSEM_WAKE_READ_OWNED) {
		/*
		 * Take one read bias for the batch before looking at anybody
		 * else, so that a writer cannot slip in between. Fully ordered:
		 * the grant must not be reordered with the release stores below.
		 */
		adjustment = RWSEM_ACTIVE_READ_BIAS;
		for (;;) {
			oldcount = atomic_fetch_add(&sem->count, adjustment);
			if (lab_likely(oldcount >= RWSEM_WAITING_BIAS))
				break;
			/*
			 * A writer took the lock after the last unlock (stealing
			 * from the fast path or a spin). Give the bias back; if
			 * the writer is still there it will wake the queue when
			 * it leaves. If the active part dropped to zero in the
			 * meantime, try the grant again.
			 */
			if (atomic_add_return(&sem->count, -adjustment) < RWSEM_WAITING_BIAS)
				return;
		}
		/* Name the first reader as owner early: a spinning writer stops spinning. */
		__rwsem_set_reader_owned(sem, READ_ONCE(waiter->task));
	}

	/* Count the FIFO run of readers at the head: stop at the first writer. */
	last = head;
	for (pos = READ_ONCE(head->next); pos != head; pos = READ_ONCE(pos->next)) {
		if (READ_ONCE(waiter_of(pos)->type) == RWSEM_WAITING_FOR_WRITE)
			break;
		woken++;
		last = pos;
	}

	/* One active bias per reader in the batch (one is already there), and
	 * the waiting bias goes if the batch empties the list. */
	adjustment = woken * RWSEM_ACTIVE_READ_BIAS - adjustment;
	lockevent_cond_inc(rwsem_wake_reader, woken);
	if (pos == head)
		adjustment -= RWSEM_WAITING_BIAS;
	if (adjustment)
		atomic_add(&sem->count, adjustment);

	/*
	 * Now grant: unlink each reader and clear its task with a release
	 * store (pairs with the smp_load_acquire in rwsem_down_read_failed).
	 * The count already holds every reader's bias, so a granted reader may
	 * run and up_read at once. After the release store the waiter may be
	 * gone (it lives on the reader's stack): read the task first. Queue the
	 * wakeup after the store, so that a wake_q_add() that finds the task
	 * already queued elsewhere still leaves a wakeup pending after it.
	 */
	for (pos = READ_ONCE(head->next); woken > 0; pos = next) {
		struct rwsem_waiter *w = waiter_of(pos);
		struct lab_task *tsk = READ_ONCE(w->task);

		next = READ_ONCE(pos->next);
		xadd_list_del(pos);
		smp_store_release(&w->task, (struct lab_task *)NULL);
		wake_q_add(wake_q, tsk);
		if (pos == last)
			break;
	}
}

/* ---- reader slow path -------------------------------------------------- */

/*
 * rwsem_down_read_failed - the fast path's +1 made the count <= 0.
 * - the count still holds this reader's ACTIVE_READ_BIAS;
 * - returns with the read lock held (0), or for @state TASK_KILLABLE
 *   (rwsem_down_read_failed_killable) -EINTR after v4.20's out_nolock:
 *   list_del; the WAITING_BIAS goes if the queue is now empty; nobody woken.
 */
static __lab_cold int __rwsem_down_read_failed_common(struct xadd_rwsem *sem, uint32_t state)
{
	long count, adjustment = -RWSEM_ACTIVE_READ_BIAS;
	struct rwsem_waiter waiter;
	struct wake_q_head wake_q;

	wake_q_init(&wake_q);
	waiter.task = lab_current();
	waiter.type = RWSEM_WAITING_FOR_READ;

	raw_spin_lock(&sem->wait_lock);
	if (xadd_list_empty(&sem->wait_list)) {
		/*
		 * Nobody queued and no writer active (count >= 0: the waiting
		 * part is empty): our +1 stands, the lock is ours. Acquire: the
		 * writer that made our fast path fail may have left since.
		 */
		if (smp_load_acquire(&sem->count) >= 0) {
			rwsem_wait_unlock(sem);
			lockevent_inc(rwsem_rlock_fast);
			return 0;
		}
		adjustment += RWSEM_WAITING_BIAS;	/* first waiter */
	}
	xadd_list_add_tail(&waiter.list, &sem->wait_list);

	/* Queued now: drop our active bias (and add the waiting bias if first). */
	count = atomic_add_return(&sem->count, adjustment);

	/*
	 * Nobody active: wake the head (maybe us). Or only readers active and
	 * we are the first waiter: no writer can be queued ahead of us, join
	 * them by waking ourselves.
	 */
	if (count == RWSEM_WAITING_BIAS ||
	    (count > RWSEM_WAITING_BIAS && adjustment != -RWSEM_ACTIVE_READ_BIAS))
		__rwsem_mark_wake(sem, RWSEM_WAKE_ANY, &wake_q);

	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);

	/* Sleep until a waker has granted us the lock. */
	for (;;) {
		set_current_state(state);
		/* Pairs with the release store in __rwsem_mark_wake. */
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
	xadd_list_del(&waiter.list);
	if (xadd_list_empty(&sem->wait_list))
		atomic_add(&sem->count, -RWSEM_WAITING_BIAS);
	rwsem_wait_unlock(sem);
	__set_current_state(TASK_RUNNING);
	lockevent_inc(rwsem_rlock_fail);
	return -EINTR;
}

static __lab_cold void rwsem_down_read_failed(struct xadd_rwsem *sem)
{
	__rwsem_down_read_failed_common(sem, TASK_UNINTERRUPTIBLE);
}

static __lab_cold int rwsem_down_read_failed_killable(struct xadd_rwsem *sem)
{
	return __rwsem_down_read_failed_common(sem, TASK_KILLABLE);
}

/* ---- writer optimistic spinning ----------------------------------------- */

static bool rwsem_can_spin_on_owner(struct xadd_rwsem *sem)
{
	struct lab_task *owner;

	if (need_resched())
		return false;
	owner = READ_ONCE(sem->owner);
	if (!owner)
		return true;
	return is_rwsem_owner_spinnable(owner) && owner_on_cpu(owner);
}

/*
 * Spin while the same writer owns the lock and runs. Returns true if it is
 * worth trying the lock (owner changed to a writer or NULL), false to stop
 * (owner off CPU, a reader owner, or need_resched()).
 */
static __lab_noinline bool rwsem_spin_on_owner(struct xadd_rwsem *sem)
{
	struct lab_task *owner = READ_ONCE(sem->owner);

	if (!is_rwsem_owner_spinnable(owner))
		return false;
	while (owner && READ_ONCE(sem->owner) == owner) {
		if (need_resched() || !owner_on_cpu(owner))
			return false;
		cpu_relax();
	}
	return is_rwsem_owner_spinnable(READ_ONCE(sem->owner));
}

/* Take the write lock without queueing: only when nobody is active. */
static inline bool rwsem_try_write_lock_unqueued(struct xadd_rwsem *sem)
{
	long count = READ_ONCE(sem->count);

	while (count == RWSEM_UNLOCKED_VALUE || count == RWSEM_WAITING_BIAS) {
		/* Acquire: pairs with the release in up_read/up_write. */
		if (atomic_try_cmpxchg_acquire(&sem->count, &count, count + RWSEM_ACTIVE_WRITE_BIAS)) {
			rwsem_set_owner(sem);
			lockevent_inc(rwsem_opt_wlock);
			return true;
		}
	}
	return false;
}

/* Returns true with the write lock held. Caller holds no lock. */
static bool rwsem_optimistic_spin(struct xadd_rwsem *sem)
{
	uint64_t t0 = lab_clock_ns(), null_since = 0;
	bool taken = false;

	lab_spin_start(sem->spin_budget_ns, sem->oncpu);
	if (!rwsem_can_spin_on_owner(sem))
		goto done;
	if (!osq_lock(&sem->osq))
		goto done;

	while (rwsem_spin_on_owner(sem)) {
		if (rwsem_try_write_lock_unqueued(sem)) {
			taken = true;
			break;
		}
		/*
		 * No owner named yet: the holder may be between its count
		 * update and its owner store. Stop when our time is up (v4.20),
		 * or when the window has lasted longer than a window the
		 * kernel does not preempt can (LAB_OWNER_NULL_SPIN_NS, wait.h).
		 */
		if (READ_ONCE(sem->owner))
			null_since = 0;
		else if (need_resched() || lab_owner_null_expired(&null_since))
			break;
		cpu_relax();
	}
	osq_unlock(&sem->osq);
done:
	/* v5.2: refusals to spin count as failures too. */
	lockevent_cond_inc(rwsem_opt_fail, !taken);
	lockevent_add(spin_ns, lab_clock_ns() - t0);
	return taken;
}

/* ---- writer slow path ------------------------------------------------- */

/*
 * Queued writer: take the lock if nobody is active (count == WAITING_BIAS).
 * - caller holds wait_lock and is on the wait list;
 * - keeps the waiting bias if others remain queued behind us.
 */
static inline bool rwsem_try_write_lock(long count, struct xadd_rwsem *sem)
{
	long new;

	if (count != RWSEM_WAITING_BIAS)
		return false;
	new = xadd_list_is_singular(&sem->wait_list) ? RWSEM_ACTIVE_WRITE_BIAS
						     : RWSEM_ACTIVE_WRITE_BIAS + RWSEM_WAITING_BIAS;
	/* Acquire: pairs with the release of the last up_read/up_write. */
	if (atomic_cmpxchg_acquire(&sem->count, RWSEM_WAITING_BIAS, new) == RWSEM_WAITING_BIAS) {
		rwsem_set_owner(sem);
		return true;
	}
	return false;
}

/*
 * rwsem_down_write_failed - the fast path found the lock active or queued.
 * - the count holds this writer's ACTIVE_WRITE_BIAS;
 * - returns with the write lock held (0), or for @state TASK_KILLABLE
 *   (rwsem_down_write_failed_killable) -EINTR after v4.20's out_nolock:
 *   list_del; the WAITING_BIAS goes if the queue is now empty, else the new
 *   head is woken (__rwsem_mark_wake(WAKE_ANY)).
 */
static __lab_cold int __rwsem_down_write_failed_common(struct xadd_rwsem *sem, uint32_t state)
{
	struct rwsem_waiter waiter;
	struct wake_q_head wake_q;
	bool waiting = true;
	long count;

	/* Take our bias back: we are no longer attempting. Fully ordered
	 * (see rwsem_wake: pairs with the osq_is_locked() check). */
	count = atomic_sub_return(&sem->count, RWSEM_ACTIVE_WRITE_BIAS);

	if (sem->wspin && rwsem_optimistic_spin(sem))
		return 0;

	wake_q_init(&wake_q);
	waiter.task = lab_current();
	waiter.type = RWSEM_WAITING_FOR_WRITE;

	raw_spin_lock(&sem->wait_lock);
	if (xadd_list_empty(&sem->wait_list))
		waiting = false;
	xadd_list_add_tail(&waiter.list, &sem->wait_list);

	if (waiting) {
		count = READ_ONCE(sem->count);
		/*
		 * Others queued before us and no writer is active, so readers
		 * own the lock: let the readers at the head join them now.
		 * v4.20 issues these wakeups before dropping wait_lock (the
		 * cost is like dropping and retaking it for the trylock).
		 */
		if (count > RWSEM_WAITING_BIAS) {
			__rwsem_mark_wake(sem, RWSEM_WAKE_READERS, &wake_q);
			wake_up_q(&wake_q);
		}
	} else {
		count = atomic_add_return(&sem->count, RWSEM_WAITING_BIAS);
	}

	set_current_state(state);
	for (;;) {
		if (rwsem_try_write_lock(count, sem))
			break;
		rwsem_wait_unlock(sem);

		/* Sleep until nobody is active, then race for the lock. */
		do {
			if (signal_pending_state(state))
				goto out_nolock;
			schedule();
			lockevent_inc(rwsem_sleep_writer);
			set_current_state(state);
		} while ((count = READ_ONCE(sem->count)) & RWSEM_ACTIVE_MASK);

		raw_spin_lock(&sem->wait_lock);
	}
	__set_current_state(TASK_RUNNING);
	xadd_list_del(&waiter.list);
	rwsem_wait_unlock(sem);
	lockevent_inc(rwsem_wlock);
	return 0;

out_nolock:
	__set_current_state(TASK_RUNNING);
	raw_spin_lock(&sem->wait_lock);
	xadd_list_del(&waiter.list);
	if (xadd_list_empty(&sem->wait_list))
		atomic_add(&sem->count, -RWSEM_WAITING_BIAS);
	else
		__rwsem_mark_wake(sem, RWSEM_WAKE_ANY, &wake_q);
	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);
	lockevent_inc(rwsem_wlock_fail);
	return -EINTR;
}

static __lab_cold void rwsem_down_write_failed(struct xadd_rwsem *sem)
{
	__rwsem_down_write_failed_common(sem, TASK_UNINTERRUPTIBLE);
}

static __lab_cold int rwsem_down_write_failed_killable(struct xadd_rwsem *sem)
{
	return __rwsem_down_write_failed_common(sem, TASK_KILLABLE);
}

/* ---- wakeups from the release paths ---------------------------------- */

/* From up_read/up_write: waiters exist and nobody is active any more. */
static __lab_cold void rwsem_wake(struct xadd_rwsem *sem)
{
	struct wake_q_head wake_q;

	wake_q_init(&wake_q);

	/* The count we just saw comes before the osq and list checks. */
	smp_rmb();

	/*
	 * A writer spinning on the osq will try the lock itself, and one that
	 * gives up still tries it under wait_lock before it sleeps. So when a
	 * spinner is present and wait_lock is busy, leave the wakeup to them
	 * rather than wait for the lock in the unlock path.
	 */
	if (osq_is_locked(&sem->osq)) {
		/* The spinner state is read before wait_lock. */
		smp_rmb();
		if (!raw_spin_trylock(&sem->wait_lock))
			return;
	} else {
		raw_spin_lock(&sem->wait_lock);
	}

	if (!xadd_list_empty(&sem->wait_list))
		__rwsem_mark_wake(sem, RWSEM_WAKE_ANY, &wake_q);

	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);
}

/* From downgrade_write with waiters: let the readers at the head in. */
static __lab_cold void rwsem_downgrade_wake(struct xadd_rwsem *sem)
{
	struct wake_q_head wake_q;

	wake_q_init(&wake_q);
	raw_spin_lock(&sem->wait_lock);
	if (!xadd_list_empty(&sem->wait_list))
		__rwsem_mark_wake(sem, RWSEM_WAKE_READ_OWNED, &wake_q);
	rwsem_wait_unlock(sem);
	wake_up_q(&wake_q);
}

/*
 * ---- fast paths (arch/x86/include/asm/rwsem.h or include/asm-generic/rwsem.h,
 * + kernel/locking/rwsem.c). The read paths are the same test in both.
 */

static void xadd_down_read(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);

	if (lab_unlikely(atomic_add_return_acquire(&sem->count, RWSEM_ACTIVE_READ_BIAS) <= 0))
		rwsem_down_read_failed(sem);
	rwsem_set_reader_owned(sem);
}

static int xadd_down_read_trylock(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);
	long count = READ_ONCE(sem->count);

	lockevent_inc(rwsem_rtrylock);
	while (count >= 0) {
		if (atomic_try_cmpxchg_acquire(&sem->count, &count, count + RWSEM_ACTIVE_READ_BIAS)) {
			rwsem_set_reader_owned(sem);
			return 1;
		}
	}
	return 0;
}

static void xadd_up_read(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);
	long count;

	/* v4.20 rwsem.c:120 */
	DEBUG_RWSEMS_WARN_ON(!((uintptr_t)READ_ONCE(sem->owner) & RWSEM_READER_OWNED), "rwsem-xadd",
			     "up_read of a lock not reader-owned", READ_ONCE(sem->count));
	count = atomic_sub_return_release(&sem->count, RWSEM_ACTIVE_READ_BIAS);
	DEBUG_RWSEMS_WARN_ON((uint32_t)count >= 0x80000000u, "rwsem-xadd", "up_read active count underflow",
			     count);

	/* Waiters queued (count < -1) and we were the last active locker. */
	if (lab_unlikely(count < -1 && (count & RWSEM_ACTIVE_MASK) == 0))
		rwsem_wake(sem);
}

static void xadd_down_write(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);
	long old = atomic_fetch_add_acquire(&sem->count, RWSEM_ACTIVE_WRITE_BIAS);

	/* x86: nobody was active (queued waiters allowed). generic: free and unqueued. */
	if (lab_unlikely(sem->x86 ? (old & RWSEM_ACTIVE_MASK) != 0 : old != RWSEM_UNLOCKED_VALUE))
		rwsem_down_write_failed(sem);
	rwsem_set_owner(sem);
}

static int xadd_down_write_trylock(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);
	long count = sem->x86 ? READ_ONCE(sem->count) : RWSEM_UNLOCKED_VALUE;

	lockevent_inc(rwsem_wtrylock);
	/* x86: retry while the active half reads zero. generic: one cmpxchg from 0. */
	do {
		if (count & RWSEM_ACTIVE_MASK)
			return 0;
		if (atomic_try_cmpxchg_acquire(&sem->count, &count, count + RWSEM_ACTIVE_WRITE_BIAS)) {
			rwsem_set_owner(sem);
			return 1;
		}
	} while (sem->x86);
	return 0;
}

static void xadd_up_write(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);
	long old;

	DEBUG_RWSEMS_WARN_ON(READ_ONCE(sem->owner) != lab_current(), "rwsem-xadd",
			     "up_write by a task that is not the owner", READ_ONCE(sem->count));
	rwsem_clear_owner(sem);
	old = atomic_fetch_sub_release(&sem->count, RWSEM_ACTIVE_WRITE_BIAS);
	/* Negative after our bias is gone: waiters are queued. x86 also wants
	 * our bias to have been the only active one (call_rwsem_wake). */
	if (lab_unlikely(old - RWSEM_ACTIVE_WRITE_BIAS < 0) &&
	    (!sem->x86 || (old & RWSEM_ACTIVE_MASK) == RWSEM_ACTIVE_BIAS))
		rwsem_wake(sem);
}

static void xadd_downgrade_write(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);

	/* v4.20 rwsem.c:148 */
	DEBUG_RWSEMS_WARN_ON(READ_ONCE(sem->owner) != lab_current(), "rwsem-xadd",
			     "downgrade_write by a task that is not the owner", READ_ONCE(sem->count));
	rwsem_set_reader_owned(sem);
	/* Turn our write bias into one read bias; negative: waiters queued. */
	if (lab_unlikely(atomic_add_return_release(&sem->count, -RWSEM_WAITING_BIAS) < 0))
		rwsem_downgrade_wake(sem);
}

/* v4.20 down_read_killable(): __down_read_killable (x86 and asm-generic test alike) + the killable slow path. */
static int xadd_down_read_killable(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);

	if (lab_unlikely(atomic_add_return_acquire(&sem->count, RWSEM_ACTIVE_READ_BIAS) <= 0) &&
	    rwsem_down_read_failed_killable(sem))
		return -EINTR;
	rwsem_set_reader_owned(sem);
	return 0;
}

/*
 * v4.20 down_write_killable(): __down_write_killable + the killable slow
 * path; the fast path's test follows the fastpath knob as xadd_down_write's.
 */
static int xadd_down_write_killable(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);
	long old = atomic_fetch_add_acquire(&sem->count, RWSEM_ACTIVE_WRITE_BIAS);

	/* x86: nobody was active (queued waiters allowed). generic: free and unqueued. */
	if (lab_unlikely(sem->x86 ? (old & RWSEM_ACTIVE_MASK) != 0 : old != RWSEM_UNLOCKED_VALUE) &&
	    rwsem_down_write_failed_killable(sem))
		return -EINTR;
	rwsem_set_owner(sem);
	return 0;
}

/* Timed waits (rwsem.h): the killable waits with the deadline as a fatal signal (lab_wait_timed()). */
static int xadd_down_read_timed(struct lab_rwsem *s, uint64_t deadline_ns)
{
	return lab_wait_timed(xadd_down_read_killable, s, deadline_ns);
}

static int xadd_down_write_timed(struct lab_rwsem *s, uint64_t deadline_ns)
{
	return lab_wait_timed(xadd_down_write_killable, s, deadline_ns);
}

static int xadd_check_unlocked(struct lab_rwsem *s, char *msg, size_t len)
{
	struct xadd_rwsem *sem = to_xadd(s);
	long c = READ_ONCE(sem->count);

	if (c == RWSEM_UNLOCKED_VALUE && xadd_list_empty(&sem->wait_list))
		return 0;
	snprintf(msg, len, "count %#lx, wait list %s (unlocked: 0, empty)", (unsigned long)c,
		 xadd_list_empty(&sem->wait_list) ? "empty" : "not empty");
	return -1;
}

static int xadd_init(struct lab_rwsem *s, const struct lab_rwsem_conf *conf)
{
	struct xadd_rwsem *sem = to_xadd(s);

	WRITE_ONCE(sem->count, RWSEM_UNLOCKED_VALUE);
	xadd_list_init(&sem->wait_list);
	raw_spin_lock_init(&sem->wait_lock);
	osq_lock_init(&sem->osq);
	WRITE_ONCE(sem->owner, (struct lab_task *)NULL);
	sem->wspin = conf->knob[K_WSPIN] != 0;
	sem->spin_budget_ns = (uint64_t)conf->knob[K_SPIN_BUDGET_US] * 1000u;
	sem->x86 = conf->knob[K_FASTPATH] == FASTPATH_X86;
	sem->oncpu = conf->knob[K_ONCPU];
	return 0;
}

/* ---- test-only accessors (rwsem_xadd.h) -------------------------------- */

int rwsem_xadd_nr_waiters(struct lab_rwsem *s)
{
	struct xadd_rwsem *sem = to_xadd(s);
	struct xadd_list *pos;
	int n = 0;

	raw_spin_lock(&sem->wait_lock);
	for (pos = READ_ONCE(sem->wait_list.next); pos != &sem->wait_list; pos = READ_ONCE(pos->next))
		n++;
	rwsem_wait_unlock(sem);
	return n;
}

long rwsem_xadd_count(struct lab_rwsem *s)
{
	return READ_ONCE(to_xadd(s)->count);
}

void rwsem_xadd_test_set_owner(struct lab_rwsem *s, void *owner)
{
	WRITE_ONCE(to_xadd(s)->owner, (struct lab_task *)owner);
}

const struct lab_rwsem_ops lab_rwsem_rwsem_xadd_ops = {
	.name = "rwsem-xadd",
	.summary = "Linux v4.20 rwsem-xadd: active/waiting bias count, FIFO reader-prefix wakeup, "
		   "writer-only osq spinning, writer stealing",
	.cite = "Linux v4.20 kernel/locking/rwsem-xadd.c, arch/x86/include/asm/rwsem.h "
		"(default; fastpath=generic: include/asm-generic/rwsem.h), kernel/locking/osq_lock.c",
	.caps = LAB_CAP_SLEEPS | LAB_CAP_SPINS | LAB_CAP_EXCLUSION | LAB_CAP_READ_TRYLOCK |
		LAB_CAP_WRITE_TRYLOCK | LAB_CAP_DOWNGRADE | LAB_CAP_EVENTS | LAB_CAP_KILLABLE |
		LAB_CAP_EMBED,
	.size = sizeof(struct xadd_rwsem),
	.align = LAB_CACHELINE,
	.knobs = xadd_knobs,
	.events = LAB_EVENTS(/* v5.2's lock_events_list.h (v4.20 had none), then rwlab's */
			     LAB_EV_rwsem_sleep_reader, LAB_EV_rwsem_sleep_writer, LAB_EV_rwsem_wake_reader,
			     LAB_EV_rwsem_wake_writer, LAB_EV_rwsem_opt_wlock, LAB_EV_rwsem_opt_fail, LAB_EV_rwsem_rlock,
			     LAB_EV_rwsem_rlock_fast, LAB_EV_rwsem_rlock_fail, LAB_EV_rwsem_rtrylock, LAB_EV_rwsem_wlock,
			     LAB_EV_rwsem_wlock_fail, LAB_EV_rwsem_wtrylock, LAB_EV_spin_ns, LAB_EV_osq_abort),
	.init = xadd_init,
	.down_read = xadd_down_read,
	.down_read_trylock = xadd_down_read_trylock,
	.up_read = xadd_up_read,
	.down_write = xadd_down_write,
	.down_write_trylock = xadd_down_write_trylock,
	.up_write = xadd_up_write,
	.downgrade_write = xadd_downgrade_write,
	.down_read_killable = xadd_down_read_killable,
	.down_write_killable = xadd_down_write_killable,
	.down_read_timed = xadd_down_read_timed,
	.down_write_timed = xadd_down_write_timed,
	.check_unlocked = xadd_check_unlocked,
};
