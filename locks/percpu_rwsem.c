/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * percpu-rwsem - the kernel's percpu_rw_semaphore as in v6.18 (the design
 * without an embedded rwsem).
 *
 * Citation: Linux v6.18 kernel/locking/percpu-rwsem.c,
 * include/linux/percpu-rwsem.h and kernel/rcu/sync.c (rcu_sync, Oleg
 * Nesterov 2015); docs/kernel.md §4.1 (§4.2 is the older design this one
 * replaced: there, waiters queued on an embedded rwsem).
 *
 * Design summary:
 * - down_read, fast path: inside an RCU read-side section, if rcu_sync is
 *   idle (no writer for at least one grace period) bump this thread's reader
 *   counter: no atomic RMW, no fence. Otherwise the slow path: bump the
 *   counter, full barrier (A), look at `block`; if a writer holds it, take
 *   the bump back, prod the writer and queue up (FIFO, one queue shared with
 *   writers) until up_write grants the read lock;
 * - up_read: idle -> drop the counter; otherwise full barrier (B), drop the
 *   counter, prod the writer waiting for readers to drain;
 * - down_write: rcu_sync_enter (the first writer waits a full grace period so
 *   that every reader has left the fast path; later writers ride on it), take
 *   `block` by xchg (or queue up if another writer has it), then sleep until
 *   the sum of all reader counters is zero (full barrier C after the sum);
 * - up_write: clear `block` with release, wake the queue (granting readers
 *   one after the other until it has granted one writer), rcu_sync_exit (the
 *   last writer out starts a grace period through call_rcu; when it ends the
 *   reader fast path is back);
 * - barrier pairing: A (reader) with D (the writer's xchg on block); B
 *   (reader) with C (the writer's check); the grace period covers readers
 *   that stayed on the fast path;
 * - no down_write_trylock and no downgrade_write: the kernel has neither for
 *   percpu_rw_semaphore (v6.18), so both verbs are NULL;
 * - knob rcu_sync=0 starts the lock as the kernel's rcu_sync_enter_start()
 *   leaves it (cgroup uses that to keep cgroup_threadgroup_rwsem off the fast
 *   path): readers always take the slow path and writers never wait for a
 *   grace period.
 *
 * Events: percpu_rwsem_slow_read (a read lock that missed the fast path),
 * rcu_sync_gp (a grace period a writer waited for), percpu_rwsem_queue_reader
 * and percpu_rwsem_queue_writer (a wait in the queue, once per wait),
 * percpu_rwsem_drain_wait (a writer that slept while readers drained, once
 * per down_write), percpu_rwsem_wake_reader/percpu_rwsem_wake_writer (a
 * waiter granted the lock by the queue wakeup, per waiter). They have names
 * of their own: the kernel's rwsem_* events count other things.
 *
 * What user space cannot model:
 * - per-CPU counters are per-thread counters (one cache line each, indexed by
 *   lab_current()->id, LAB_MAX_TASKS slots allocated per lock). As in the
 *   kernel only the modular sum matters: up_write's wakeup bumps the waker's
 *   own counter on behalf of the readers it grants, and those readers later
 *   drop their own. The writer sums slots [0, nr_slots), the high-water mark
 *   of thread ids that ever touched the lock (the kernel sums
 *   for_each_possible_cpu);
 * - preempt_disable() around the fast path (an RCU-sched read-side section)
 *   is urcu_memb_read_lock()/unlock() of liburcu's memb flavour, inlined
 *   (_LGPL_SOURCE, see below): a thread-local counter store and a compiler
 *   barrier, the fences being on the grace-period side (membarrier). A
 *   thread registers with liburcu on its first use of any percpu-rwsem and
 *   unregisters when it exits (a pthread key destructor);
 * - synchronize_rcu()/call_rcu() are liburcu's: their grace periods have
 *   other latencies and costs than the kernel's (membarrier-based; the
 *   callback runs on liburcu's call_rcu thread, which waits about 10 ms
 *   after being woken to batch callbacks, where the kernel's call_rcu_hurry
 *   does not batch), so the way back to the fast path after the last writer
 *   takes at least ~10 ms here, and writers closer together than that keep
 *   readers on the slow path (GP_EXIT -> GP_REPLAY). The shape (one grace
 *   period on the first writer, one more before readers go fast again, none
 *   for back-to-back writers) is the kernel's;
 * - rcuwait's task pointer needs no RCU here: struct lab_task is never freed;
 * - the counter stores are releases and the writer's sum uses acquires. On
 *   x86 that costs nothing; it gives ThreadSanitizer the happens-before
 *   edge that the kernel takes from the grace period and from B/C.
 *
 * State layout (struct percpu_rwsem; the kernel has no count word):
 *
 *   line 0 (read-mostly, every reader):
 *     rss.gp_state  GP_IDLE(0) GP_ENTER(1) GP_PASSED(2) GP_EXIT(3) GP_REPLAY(4)
 *     rss.gp_count  writers between rcu_sync_enter and rcu_sync_exit (rss.lock)
 *     rss.cb_head   liburcu call_rcu head
 *     read_count    -> LAB_MAX_TASKS x { u32 count; } one per 64-byte line
 *     nr_slots      1 + highest thread id that ever counted itself here
 *   line 1 (writers, slow-path readers):
 *     block         0 = open, 1 = a writer holds or is being granted the lock
 *     writer        the task waiting for readers to drain (rcuwait), or NULL
 *     waiters_lock  raw_spinlock_t over the FIFO wait queue below
 *     wait_head/wait_tail  waiters, oldest first; each sleeps until its
 *                          ->task is cleared by the waker that granted it
 */
/*
 * Inline liburcu's read_lock/read_unlock (the static versions). liburcu's
 * README allows _LGPL_SOURCE for code that is LGPL- or GPL-compatible, which
 * MIT is. Without it each of them is a call into liburcu.so (a PLT call and
 * the library's own thread-local access): 18-45 ns per lock+unlock pair
 * instead of ~3 ns inlined, measured on the (shared, noisy) lab machine,
 * several times the rest of the reader fast path.
 */
#define _LGPL_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler.h"
#if LAB_SIM
#include "rcu_sim.h"
#else
#include <urcu/urcu-memb.h>
#endif

#include "atomic.h"
#include "debug.h"
#include "events.h"
#include "rcu.h"
#include "rwsem.h"
#include "spinlock.h"
#include "wait.h"
#include "wake_q.h"

/* ---- rcu_sync (kernel/rcu/sync.c) -------------------------------------- */

enum { GP_IDLE = 0, GP_ENTER, GP_PASSED, GP_EXIT, GP_REPLAY };

struct rcu_sync {
	uint32_t gp_state;	/* readers poll it; also the futex word of gp_wait */
	int gp_count;		/* under lock */
	raw_spinlock_t lock;
	struct rcu_head cb_head;	/* queued at most once at a time (state EXIT/REPLAY) */
};

/* Caller is inside an RCU read-side section (the kernel: preemption off). */
static inline bool rcu_sync_is_idle(struct rcu_sync *rss)
{
	/* Acquire: pairs with rcu_sync_func()'s release of GP_IDLE (for TSan; see header). */
	return smp_load_acquire(&rss->gp_state) == GP_IDLE;
}

static void rcu_sync_init(struct rcu_sync *rss, bool enabled)
{
	raw_spin_lock_init(&rss->lock);
	/* rcu_sync_enter_start(): one permanent writer, readers never go fast. */
	WRITE_ONCE(rss->gp_count, enabled ? 0 : 1);
	WRITE_ONCE(rss->gp_state, enabled ? GP_IDLE : GP_PASSED);
}

static void rcu_sync_cb(struct rcu_head *head);

/*
 * The end of a grace period: called directly by the first writer after its
 * synchronize_rcu, and as the call_rcu callback after the last writer left.
 */
static void rcu_sync_func(struct rcu_sync *rss)
{
	uint32_t state;

	raw_spin_lock(&rss->lock);
	state = READ_ONCE(rss->gp_state);
	if (READ_ONCE(rss->gp_count) > 0) {
		/* A writer is (again) inside: readers stay slow. */
		WRITE_ONCE(rss->gp_state, GP_PASSED);
		if (state == GP_ENTER)
			lab_futex_wake(&rss->gp_state, INT32_MAX);
	} else if (state == GP_REPLAY) {
		/* A writer came and went while this grace period ran: one more. */
		WRITE_ONCE(rss->gp_state, GP_EXIT);
		urcu_memb_call_rcu(&rss->cb_head, rcu_sync_cb);
	} else {
		/* Release: the last writer's critical section is visible to fast readers. */
		smp_store_release(&rss->gp_state, GP_IDLE);
	}
	raw_spin_unlock(&rss->lock);
}

static void rcu_sync_cb(struct rcu_head *head)
{
	rcu_sync_func(lab_container_of(head, struct rcu_sync, cb_head));
}

/* Force readers onto the slow path; returns once none can still be on the fast one. */
static void rcu_sync_enter(struct rcu_sync *rss)
{
	uint32_t state;

	raw_spin_lock(&rss->lock);
	state = READ_ONCE(rss->gp_state);
	if (state == GP_IDLE)
		WRITE_ONCE(rss->gp_state, GP_ENTER);
	WRITE_ONCE(rss->gp_count, READ_ONCE(rss->gp_count) + 1);
	raw_spin_unlock(&rss->lock);

	if (state == GP_IDLE) {
		/* Every reader that saw GP_IDLE is out of its read-side section after this. */
		urcu_memb_synchronize_rcu();
		lockevent_inc(rcu_sync_gp);
		rcu_sync_func(rss);
		return;
	}
	/* Another writer is waiting for the grace period (GP_ENTER): wait with it. */
	while ((state = smp_load_acquire(&rss->gp_state)) < GP_PASSED)
		lab_futex_wait(&rss->gp_state, state, -1);
}

/* The last writer out schedules the return to the fast path after one more grace period. */
static void rcu_sync_exit(struct rcu_sync *rss)
{
	raw_spin_lock(&rss->lock);
	WRITE_ONCE(rss->gp_count, READ_ONCE(rss->gp_count) - 1);
	if (READ_ONCE(rss->gp_count) == 0) {
		uint32_t state = READ_ONCE(rss->gp_state);

		if (state == GP_PASSED) {
			WRITE_ONCE(rss->gp_state, GP_EXIT);
			urcu_memb_call_rcu(&rss->cb_head, rcu_sync_cb);
		} else if (state == GP_EXIT) {
			WRITE_ONCE(rss->gp_state, GP_REPLAY);
		}
	}
	raw_spin_unlock(&rss->lock);
}

/* Wait until no callback of @rss is queued or running (the lock is about to be freed). */
static void rcu_sync_dtor(struct rcu_sync *rss)
{
	for (;;) {
		uint32_t state;

		/*
		 * Look under the lock: when the callback is seen done, its
		 * unlock happened before our lock (what ThreadSanitizer needs
		 * to see before the memory is freed; liburcu's own ordering of
		 * rcu_barrier is invisible to it).
		 */
		raw_spin_lock(&rss->lock);
		state = READ_ONCE(rss->gp_state);
		/* A pending callback must end the chain instead of queueing one more. */
		if (state == GP_REPLAY)
			WRITE_ONCE(rss->gp_state, GP_EXIT);
		raw_spin_unlock(&rss->lock);
		if (state != GP_EXIT && state != GP_REPLAY)
			return;
		urcu_memb_barrier();
	}
}

/* ---- the semaphore ------------------------------------------------------ */

struct pcpu_slot {
	uint32_t count;		/* written only by its own thread; unsigned, wraps */
} __lab_cacheline_aligned;

struct pcpu_waiter {
	struct pcpu_waiter *next;
	struct lab_task *task;	/* set while waiting; the granting waker clears it (release) */
	bool reader;
};

struct percpu_rwsem {
	/* Read-mostly: what the reader fast path touches. */
	struct rcu_sync rss;
	struct pcpu_slot *read_count;
	unsigned nr_slots;

	/* Writers and slow-path readers. */
	int block __lab_cacheline_aligned;
	struct lab_task *writer;	/* rcuwait */
	raw_spinlock_t waiters_lock;
	struct pcpu_waiter *wait_head, *wait_tail;
};

enum { K_RCU_SYNC };

static const struct lab_knob pcpu_knobs[] = {
	[K_RCU_SYNC] = { .name = "rcu_sync", .type = LAB_KNOB_BOOL, .def = 1,
			 .help = "1: reader fast path while no writer (kernel); 0: rcu_sync_enter_start(), "
				 "readers always slow, writers never wait for a grace period" },
	{ .name = NULL },
};

static __lab_cold __lab_noinline void pcpu_grow(struct percpu_rwsem *sem, unsigned id)
{
	unsigned n = READ_ONCE(sem->nr_slots);

	/* Fully ordered: the slot is in the writer's sum before this thread counts in it. */
	while (n <= id && !atomic_try_cmpxchg(&sem->nr_slots, &n, id + 1))
		;
}

/* this_cpu_add(*read_count, d): only the calling thread writes its slot. */
static inline void this_cpu_add(struct percpu_rwsem *sem, int d)
{
	unsigned id = (unsigned)lab_current()->id;
	uint32_t *c;

	if (lab_unlikely(id >= READ_ONCE(sem->nr_slots)))
		pcpu_grow(sem, id);
	c = &sem->read_count[id].count;
	/* Release: pairs with the acquire in readers_active_check (TSan; see header). */
	smp_store_release(c, READ_ONCE(*c) + (uint32_t)d);
}

static void rcuwait_wake_up(struct percpu_rwsem *sem)
{
	struct lab_task *t;

	/* Full barrier: our counter update before the load of writer (pairs with set_current_state). */
	smp_mb();
	t = READ_ONCE(sem->writer);
	if (t)
		wake_up_process(t);
}

/* Sum of all reader counters is zero: the writer may enter. */
static bool readers_active_check(struct percpu_rwsem *sem)
{
	unsigned n = smp_load_acquire(&sem->nr_slots);
	uint32_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += smp_load_acquire(&sem->read_count[i].count);
	if (sum != 0)
		return false;
	/* C: pairs with B in percpu_up_read: the readers' sections end before ours starts. */
	smp_mb();
	return true;
}

static bool __percpu_down_read_trylock(struct percpu_rwsem *sem)
{
	this_cpu_add(sem, 1);
	/* A: pairs with D (the writer's xchg on block): it sees our count or we see block. */
	smp_mb();
	if (lab_likely(!smp_load_acquire(&sem->block)))
		return true;
	this_cpu_add(sem, -1);
	/* The writer may be waiting for this count to drain: let it sum again. */
	rcuwait_wake_up(sem);
	return false;
}

static bool __percpu_down_write_trylock(struct percpu_rwsem *sem)
{
	if (READ_ONCE(sem->block))
		return false;
	/* D: fully ordered xchg, pairs with A. */
	return atomic_xchg(&sem->block, 1) == 0;
}

static bool percpu_rwsem_trylock(struct percpu_rwsem *sem, bool reader)
{
	return reader ? __percpu_down_read_trylock(sem) : __percpu_down_write_trylock(sem);
}

/*
 * The wakeup of up_write (the kernel's __wake_up(&waiters, TASK_NORMAL, 1)
 * with percpu_rwsem_wake_function): from the head of the queue, take the
 * lock on each waiter's behalf and hand it over; a granted reader lets the
 * next waiter be tried, a granted writer or a failed try ends the pass.
 */
/* Release waiters_lock, first checking the queue's two ends agree (debug.h). */
static inline void pcpu_wait_unlock(struct percpu_rwsem *sem)
{
	LAB_RWSEM_CHECK(!READ_ONCE(sem->wait_head) != !READ_ONCE(sem->wait_tail), "percpu-rwsem",
			"wait_head and wait_tail disagree", (long)READ_ONCE(sem->block));
	raw_spin_unlock(&sem->waiters_lock);
}

static void percpu_rwsem_wake(struct percpu_rwsem *sem)
{
	struct wake_q_head wake_q;
	struct pcpu_waiter *w;

	wake_q_init(&wake_q);
	raw_spin_lock(&sem->waiters_lock);
	while ((w = READ_ONCE(sem->wait_head)) != NULL) {
		bool reader = READ_ONCE(w->reader);
		struct lab_task *t = READ_ONCE(w->task);

		if (!percpu_rwsem_trylock(sem, reader))
			break;
		WRITE_ONCE(sem->wait_head, READ_ONCE(w->next));
		if (!READ_ONCE(sem->wait_head))
			WRITE_ONCE(sem->wait_tail, NULL);
		/* Release: the grant (count or block) is visible before the waiter sees it. */
		smp_store_release(&w->task, NULL);
		/*
		 * w may be gone now (it lived on the waiter's stack); t is not.
		 * Queue the wakeup only after the grant: if t is already on
		 * another wake_q, that queue's wakeup comes after this store.
		 */
		wake_q_add(&wake_q, t);
		if (reader) {
			lockevent_inc(percpu_rwsem_wake_reader);
		} else {
			lockevent_inc(percpu_rwsem_wake_writer);
			break;
		}
	}
	pcpu_wait_unlock(sem);
	wake_up_q(&wake_q);
}

/* Queue up (FIFO, readers and writers alike) until granted, unless the lock frees up first. */
static __lab_cold __lab_noinline void percpu_rwsem_wait(struct percpu_rwsem *sem, bool reader)
{
	struct pcpu_waiter w = { .next = NULL, .task = lab_current(), .reader = reader };
	bool wait;

	raw_spin_lock(&sem->waiters_lock);
	/* Try again under the queue lock: up_write's wakeup cannot run in between. */
	wait = !percpu_rwsem_trylock(sem, reader);
	if (wait) {
		struct pcpu_waiter *tail = READ_ONCE(sem->wait_tail);

		if (tail)
			WRITE_ONCE(tail->next, &w);
		else
			WRITE_ONCE(sem->wait_head, &w);
		WRITE_ONCE(sem->wait_tail, &w);
	}
	pcpu_wait_unlock(sem);
	if (!wait)
		return;

	if (reader)
		lockevent_inc(percpu_rwsem_queue_reader);
	else
		lockevent_inc(percpu_rwsem_queue_writer);
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		/* Acquire: pairs with the waker's release after it took the lock for us. */
		if (!smp_load_acquire(&w.task))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static int pcpu_init(struct lab_rwsem *lsem, const struct lab_rwsem_conf *conf)
{
	struct percpu_rwsem *sem = (struct percpu_rwsem *)lsem;
	void *slots;

	if (posix_memalign(&slots, LAB_CACHELINE, sizeof(struct pcpu_slot) * LAB_MAX_TASKS))
		return -ENOMEM;
	/* Not yet shared: plain stores. */
	memset(slots, 0, sizeof(struct pcpu_slot) * LAB_MAX_TASKS);
	sem->read_count = slots;
	WRITE_ONCE(sem->nr_slots, 0);
	rcu_sync_init(&sem->rss, conf->knob[K_RCU_SYNC] != 0);
	WRITE_ONCE(sem->block, 0);
	WRITE_ONCE(sem->writer, NULL);
	raw_spin_lock_init(&sem->waiters_lock);
	WRITE_ONCE(sem->wait_head, NULL);
	WRITE_ONCE(sem->wait_tail, NULL);
	return 0;
}

static void pcpu_destroy(struct lab_rwsem *lsem)
{
	struct percpu_rwsem *sem = (struct percpu_rwsem *)lsem;

	lab_rcu_thread_online();
	rcu_sync_dtor(&sem->rss);
	free(sem->read_count);
	sem->read_count = NULL;
}

static void percpu_down_read(struct lab_rwsem *lsem)
{
	struct percpu_rwsem *sem = (struct percpu_rwsem *)lsem;
	bool fast;

	lab_rcu_thread_online();
	urcu_memb_read_lock();
	fast = rcu_sync_is_idle(&sem->rss);
	if (lab_likely(fast))
		this_cpu_add(sem, 1);
	urcu_memb_read_unlock();
	if (lab_likely(fast))
		return;
	/* Slow path, outside the read-side section: it may sleep. */
	lockevent_inc(percpu_rwsem_slow_read);
	if (!__percpu_down_read_trylock(sem))
		percpu_rwsem_wait(sem, true);
}

static int percpu_down_read_trylock(struct lab_rwsem *lsem)
{
	struct percpu_rwsem *sem = (struct percpu_rwsem *)lsem;
	bool fast;

	lab_rcu_thread_online();
	urcu_memb_read_lock();
	fast = rcu_sync_is_idle(&sem->rss);
	if (lab_likely(fast))
		this_cpu_add(sem, 1);
	urcu_memb_read_unlock();
	if (lab_likely(fast))
		return 1;
	lockevent_inc(percpu_rwsem_slow_read);
	return __percpu_down_read_trylock(sem);
}

static void percpu_up_read(struct lab_rwsem *lsem)
{
	struct percpu_rwsem *sem = (struct percpu_rwsem *)lsem;
	bool fast;

	lab_rcu_thread_online();
	urcu_memb_read_lock();
	fast = rcu_sync_is_idle(&sem->rss);
	if (lab_likely(fast))
		this_cpu_add(sem, -1);
	urcu_memb_read_unlock();
	if (lab_likely(fast))
		return;
	/* B: pairs with C: our critical section before the count drops. */
	smp_mb();
	this_cpu_add(sem, -1);
	rcuwait_wake_up(sem);
}

static void percpu_down_write(struct lab_rwsem *lsem)
{
	struct percpu_rwsem *sem = (struct percpu_rwsem *)lsem;
	bool slept = false;

	lab_rcu_thread_online();
	/* From here on new readers take the slow path and look at block. */
	rcu_sync_enter(&sem->rss);
	if (!__percpu_down_write_trylock(sem))
		percpu_rwsem_wait(sem, false);

	/* rcuwait_wait_event(&writer, readers_active_check(sem)) */
	smp_store_release(&sem->writer, lab_current());
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (readers_active_check(sem))
			break;
		if (!slept) {
			lockevent_inc(percpu_rwsem_drain_wait);
			slept = true;
		}
		schedule();
	}
	WRITE_ONCE(sem->writer, NULL);
	__set_current_state(TASK_RUNNING);
}

static void percpu_up_write(struct lab_rwsem *lsem)
{
	struct percpu_rwsem *sem = (struct percpu_rwsem *)lsem;

	DEBUG_RWSEMS_WARN_ON(!READ_ONCE(sem->block), "percpu-rwsem", "up_write of a lock not write-held", 0L);
	/* Release: slow-path readers that see block == 0 see our critical section. */
	smp_store_release(&sem->block, 0);
	percpu_rwsem_wake(sem);
	rcu_sync_exit(&sem->rss);
}

/* Unlocked: block open, nobody queued, the reader counters sum to zero. */
static int pcpu_check_unlocked(struct lab_rwsem *lsem, char *msg, size_t len)
{
	struct percpu_rwsem *sem = (struct percpu_rwsem *)lsem;
	unsigned n = smp_load_acquire(&sem->nr_slots);
	uint32_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += smp_load_acquire(&sem->read_count[i].count);
	if (!READ_ONCE(sem->block) && !READ_ONCE(sem->wait_head) && sum == 0)
		return 0;
	snprintf(msg, len, "block %d, queue %s, reader sum %d (unlocked: 0, empty, 0)", READ_ONCE(sem->block),
		 READ_ONCE(sem->wait_head) ? "not empty" : "empty", (int32_t)sum);
	return -1;
}

const struct lab_rwsem_ops lab_rwsem_percpu_rwsem_ops = {
	.name = "percpu-rwsem",
	.summary = "percpu_rw_semaphore (v6.18): per-thread reader counts, rcu_sync fast path, block + FIFO queue",
	.cite = "Linux v5.11/v6.18 kernel/locking/percpu-rwsem.c, kernel/rcu/sync.c (liburcu memb grace periods)",
	.caps = LAB_CAP_SLEEPS | LAB_CAP_EXCLUSION | LAB_CAP_READ_TRYLOCK | LAB_CAP_EVENTS,
	.size = sizeof(struct percpu_rwsem),
	.align = _Alignof(struct percpu_rwsem),
	.knobs = pcpu_knobs,
	.events = LAB_EVENTS(LAB_EV_percpu_rwsem_slow_read, LAB_EV_percpu_rwsem_queue_reader,
			     LAB_EV_percpu_rwsem_queue_writer, LAB_EV_percpu_rwsem_drain_wait,
			     LAB_EV_percpu_rwsem_wake_reader, LAB_EV_percpu_rwsem_wake_writer, LAB_EV_rcu_sync_gp),
	.init = pcpu_init,
	.destroy = pcpu_destroy,
	.down_read = percpu_down_read,
	.down_read_trylock = percpu_down_read_trylock,
	.up_read = percpu_up_read,
	.down_write = percpu_down_write,
	.up_write = percpu_up_write,
	.check_unlocked = pcpu_check_unlocked,
	/* The kernel has no percpu_down_write_trylock and no downgrade. */
	.down_write_trylock = NULL,
	.downgrade_write = NULL,
};
