/* SPDX-License-Identifier: MIT */
/*
 * locks/wait.h - the seam for sleeping, waking, tasks and clocks.
 *
 * Kernel primitive -> user-space stand-in (research/kernel.md §8):
 *   task_struct / current   -> struct lab_task, one per thread (lab_current())
 *   schedule() / wake_up_q  -> lab_futex_wait() / lab_futex_wake() on a per-waiter word
 *   owner->on_cpu           -> lab_task.on_cpu: 1 while the thread runs, 0 while
 *                              it sleeps in lab_futex_wait(). Preemption by the
 *                              host scheduler is invisible (user space cannot see
 *                              it), so spinners also keep a time budget.
 *   jiffies                 -> lab_jiffies_ns() (CLOCK_MONOTONIC_COARSE)
 *   sched_clock()           -> lab_clock_ns() (CLOCK_MONOTONIC)
 *   critical-section load   -> lab_delay(loops): `loops` cpu_relax() calls
 *
 * Workloads block, wake and burn time only through these helpers too, so a
 * future virtual-CPU simulator can replace them in one place.
 */
#pragma once

#include <stdint.h>
#include <time.h>
#include "compiler.h"
#include "atomic.h"

/* Upper bound on live threads that use locks/ at once (dense task ids). */
#define LAB_MAX_TASKS 1024

#define TASK_RUNNING		0u
#define TASK_UNINTERRUPTIBLE	2u

struct lab_task {
	int id;			/* dense id in [0, LAB_MAX_TASKS), reused after thread exit */
	int on_cpu;		/* 1 while running; 0 while sleeping in lab_futex_wait() */
	uint32_t state;		/* TASK_RUNNING or TASK_UNINTERRUPTIBLE; the futex schedule() sleeps on */
	unsigned resched_poll;	/* need_resched(): clock read every 16 polls */
	uint64_t spin_deadline;	/* need_resched(): end of the current spin budget (ns) */
	struct lab_task *wake_q_next;	/* wake_q link (wake_q.h); NULL when not queued */
	uint64_t seq;		/* generation: bumped when the id is reused */
} __lab_cacheline_aligned;

struct lab_task *lab_task_attach(void);
#if LAB_SIM
/* Simulated: tasks are coroutines on one host thread; index by the engine's task id. */
extern struct lab_task *lab_sim_current[LAB_MAX_TASKS];
#define lab_current_task (lab_sim_current[sim_cur_id])
/*
 * Per-task storage for what is __thread natively (events, bravo's slots):
 * register each array of LAB_MAX_TASKS elements of @size bytes once; the
 * element of a task id is zeroed when a new task takes that id.
 */
void lab_sim_tls_register(void *base, size_t size);
#else
extern __thread struct lab_task *lab_current_task;
#endif

/*
 * lab_current() - the calling thread's task. The first call in a thread
 * assigns a dense id; the id is returned to the pool when the thread exits.
 * Aborts if more than LAB_MAX_TASKS threads use locks/ at once.
 */
static inline struct lab_task *lab_current(void)
{
	struct lab_task *t = lab_current_task;

	if (lab_unlikely(!t))
		t = lab_task_attach();
	return t;
}

/* Task owning dense id @id, or NULL if that id is free. Racy by design (a hint). */
struct lab_task *lab_task_by_id(int id);

/*
 * lab_futex_wait() - sleep while *uaddr == val (FUTEX_WAIT_PRIVATE).
 * @timeout_ns: relative timeout in ns, or -1 for none.
 * Marks the task off-CPU for the duration. Returns 0 when woken or when
 * *uaddr != val on entry, -ETIMEDOUT on timeout, -EINTR on a signal.
 * Spurious returns happen: callers re-check their condition in a loop.
 */
int lab_futex_wait(uint32_t *uaddr, uint32_t val, int64_t timeout_ns);

/* lab_futex_wake() - wake up to @n waiters on @uaddr. Returns how many woke. */
int lab_futex_wake(uint32_t *uaddr, int n);

#if LAB_SIM
/* Simulated: sched_yield() is the simulated CPU's (CFS yield), not the host's. */
#include <sched.h>
static inline int lab_sim_sched_yield(void)
{
	sim_yield();
	return 0;
}
#define sched_yield() lab_sim_sched_yield()

/*
 * Simulated: getrusage(RUSAGE_SELF) is the simulated CPU time of every task
 * (user; no system time is modelled apart from syscall costs charged as
 * user work) and the engine's voluntary/involuntary context switches.
 */
#include <sys/resource.h>
int lab_sim_getrusage(int who, struct rusage *ru);
#define getrusage(who, ru) lab_sim_getrusage((who), (ru))

/* Simulated: virtual CLOCK_MONOTONIC, jiffies at the machine's HZ, cost-model work. */
static inline uint64_t lab_clock_ns(void)
{
	return sim_now();
}

static inline uint64_t lab_jiffies_ns(void)
{
	return sim_jiffies_ns();
}

static inline void lab_delay(unsigned long loops)
{
	sim_delay_relax(loops);
}
#else
/* Nanoseconds of CLOCK_MONOTONIC. */
static inline uint64_t lab_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds of CLOCK_MONOTONIC_COARSE: the jiffies stand-in (tick resolution). */
static inline uint64_t lab_jiffies_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * lab_delay() - burn @loops iterations of cpu_relax(): the unit of the
 * critical-section and between-sections load of locktest ("load = 100").
 */
static inline void lab_delay(unsigned long loops)
{
	for (unsigned long i = 0; i < loops; i++)
		cpu_relax();
}
#endif

/* ---- schedule() and wake_up_process() ------------------------------------
 *
 * The kernel's sleep protocol, on the task's own futex word:
 *
 *	set_current_state(TASK_UNINTERRUPTIBLE);	// store + full barrier
 *	if (!condition)
 *		schedule();				// sleeps until woken
 *	__set_current_state(TASK_RUNNING);
 *
 * and on the waker's side: make the condition true, then wake_up_process(t).
 * wake_up_process() only touches struct lab_task, which outlives any waiter
 * structure on the sleeper's stack, so a waker may wake a task whose waiter
 * has already gone (a spurious wakeup, which callers' loops absorb) - the
 * user-space version of the kernel's get_task_struct() in rwsem_mark_wake().
 */

/* Set the caller's state, then a full barrier (pairs with wake_up_process()'s xchg). */
static inline void set_current_state(uint32_t state)
{
	struct lab_task *t = lab_current();

	WRITE_ONCE(t->state, state);
	smp_mb();
}

/* Set the caller's state without a barrier. */
static inline void __set_current_state(uint32_t state)
{
	WRITE_ONCE(lab_current()->state, state);
}

/*
 * schedule() - if the caller's state is not TASK_RUNNING, sleep until a
 * wake_up_process() sets it back. Returns with the state TASK_RUNNING.
 */
void schedule(void);

/*
 * wake_up_process() - set @t's state to TASK_RUNNING and wake it if it was
 * (about to be) sleeping. Returns 1 if @t was not running. Any thread.
 */
int wake_up_process(struct lab_task *t);

/*
 * need_resched() stand-in. User space cannot see the host scheduler wanting
 * the CPU back, so a spinner gives itself a budget with
 * lab_spin_budget_start(ns) and need_resched() turns true when it runs out.
 * The clock is read every 16 polls, as the kernel reads sched_clock() in
 * rwsem_optimistic_spin.
 */
#if LAB_SIM
/* Simulated: need_resched() is exact (the CPU's scheduler wants it back); no budget. */
static inline void lab_spin_budget_start(uint64_t ns)
{
	lab_current()->spin_deadline = sim_now() + ns;
}

/*
 * Exact (the CPU's scheduler wants it back), or the port's spin budget ran
 * out: the ports end some spins only through need_resched(), and on a CPU
 * with nothing else runnable the exact answer stays false for ever (a
 * reader spinning on a reader-owned rwsem-rspin spun without end).
 */
static inline int need_resched(void)
{
	struct lab_task *t = lab_current();

	return sim_need_resched_by(t->spin_deadline);
}
#else
static inline void lab_spin_budget_start(uint64_t ns)
{
	struct lab_task *t = lab_current();

	t->resched_poll = 0;
	t->spin_deadline = lab_clock_ns() + ns;
}

static inline int need_resched(void)
{
	struct lab_task *t = lab_current();

	if (++t->resched_poll & 15)
		return 0;
	return lab_clock_ns() > t->spin_deadline;
}
#endif

/* owner->on_cpu stand-in: is @t running (not asleep in schedule()/lab_futex_wait())? */
static inline int lab_task_on_cpu(const struct lab_task *t)
{
	return READ_ONCE(t->on_cpu);
}

/* Sleep the calling thread for @ns nanoseconds (clock_nanosleep, restarts on EINTR). */
void lab_sleep_ns(uint64_t ns);

/*
 * lab_host_clock_ns() - the host's CLOCK_MONOTONIC even in the simulated
 * build (progress and ETA lines); lab_sim_progress() - "" natively, and
 * " (simulated 1.234 s, host 5.67 s)" in the simulated build.
 */
static inline uint64_t lab_host_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#if LAB_SIM
const char *lab_sim_progress(void);
#else
static inline const char *lab_sim_progress(void)
{
	return "";
}
#endif

/*
 * lab_thread_create()/lab_thread_join() - the thread seam the harness and
 * workloads create their workers through: pthread_create/pthread_join
 * natively; a simulated task (sim_spawn/sim_join) in the simulated build.
 * Returns 0 or an errno value, as pthread_create does.
 */
#include <pthread.h>
#if LAB_SIM
static inline int lab_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	int id = sim_spawn(fn, arg);

	if (id < 0)
		return 11;	/* EAGAIN: no free task slot */
	*tid = (pthread_t)id;
	return 0;
}

static inline int lab_thread_join(pthread_t tid, void **ret)
{
	void *r = sim_join((int)tid);

	if (ret)
		*ret = r;
	return 0;
}
#else
static inline int lab_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	return pthread_create(tid, NULL, fn, arg);
}

static inline int lab_thread_join(pthread_t tid, void **ret)
{
	return pthread_join(tid, ret);
}
#endif
