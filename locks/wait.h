/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/wait.h - the seam for sleeping, waking, tasks and clocks.
 *
 * Kernel primitive -> user-space stand-in (docs/kernel.md §8):
 *   task_struct / current   -> struct lab_task, one per thread (lab_current())
 *   schedule() / wake_up_q  -> lab_futex_wait() / lab_futex_wake() on a per-waiter word
 *   owner->on_cpu           -> owner_on_cpu(): 0 while the owner sleeps in
 *   && !vcpu_is_preempted()    lab_futex_wait() (lab_task.on_cpu), and 0 while the
 *                              last record of the owner's context-switch ring
 *                              (a perf PERF_RECORD_SWITCH ring the kernel writes
 *                              at every switch of that thread) is a switch-out:
 *                              plain loads, as the kernel's one load of on_cpu
 *   need_resched()          -> "this spinner was preempted since its spin began"
 *                              (its own switch ring moved), or a fixed time
 *                              budget for ablation (spin_budget_us)
 *   jiffies                 -> lab_jiffies_ns() (CLOCK_MONOTONIC_COARSE)
 *   sched_clock()           -> lab_clock_ns() (CLOCK_MONOTONIC)
 *   critical-section load   -> lab_delay(loops): `loops` cpu_relax() calls
 *
 * Workloads block, wake and burn time only through these helpers too, so the
 * simulated build (-DLAB_SIM=1, build/rwlab-sim) replaces them in one place:
 * tasks, futexes, sleeps, yields, clocks and thread creation go to the engine
 * (sim/sim.h; wait_sim.c), and the killable waits below run unchanged on it.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "compiler.h"
#include "atomic.h"

/* Upper bound on live threads that use locks/ at once (dense task ids). */
#define LAB_MAX_TASKS 1024

#define TASK_RUNNING		0u
#define TASK_INTERRUPTIBLE	1u
#define TASK_UNINTERRUPTIBLE	2u
#define TASK_WAKEKILL		0x100u		/* a fatal signal wakes the sleeper */
#define TASK_KILLABLE		(TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)

struct lab_task {
	int id;			/* dense id in [0, LAB_MAX_TASKS), reused after thread exit */
	int on_cpu;		/* 1 while running; 0 while sleeping in lab_futex_wait() */
	uint32_t state;		/* TASK_RUNNING, TASK_UNINTERRUPTIBLE or TASK_KILLABLE; the futex schedule() sleeps on */
	uint64_t spin_deadline;	/* need_resched(): end of the current spin budget (ns); 0: no budget */
	uint64_t spin_sw_head;	/* need_resched() without a budget: own switch ring's head at spin start */
	long spin_nivcsw;	/* ... without a ring: involuntary switches at spin start */
	uint64_t resched_at;	/* ... without a ring: lab_clock_ns() of the next getrusage() sample */
	int spin_oncpu;		/* enum lab_oncpu: owner_on_cpu()'s signal during this spin */
	clockid_t cpu_clock;	/* this thread's CPU-time clock (pthread_getcpuclockid) */
	const uint64_t *sw_head;	/* this thread's switch ring: data_head (NULL: no ring) */
	const uint64_t *sw_data;	/* ... its records (8 bytes each: no sample_id) */
	uint64_t sw_mask;	/* ... ring size in bytes - 1 */
	const struct lab_task *watch;	/* oncpu=clock: the task whose clock this spinner samples */
	uint64_t watch_seq;	/* ... its generation, so a reused id starts a new watch */
	uint64_t watch_cpu_ns;	/* ... its CPU time at the last sample */
	uint64_t watch_at;	/* ... lab_clock_ns() of the last sample */
	unsigned watch_poll;	/* ... polls since then (the time is read every 8th) */
	struct lab_task *wake_q_next;	/* wake_q link (wake_q.h); NULL when not queued */
	uint64_t seq;		/* generation: bumped when the id is reused */
	uint32_t fatal_signal;	/* set by lab_send_fatal_signal(), cleared by the task itself */
	uint64_t wait_deadline;	/* lab_clock_ns() deadline of a timed wait; 0 = none (lab_wait_deadline_set) */
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
 * user work) and the engine's voluntary/involuntary context switches;
 * getrusage(RUSAGE_THREAD) the same for the calling task alone.
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

static inline void lab_busy_ns(uint64_t ns)
{
	sim_prof_tag("lab_busy_ns (think time)");
	sim_cost_ns((double)ns);	/* think time is not a constant: +-1% from the seed */
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

/*
 * lab_busy_ns() - keep the CPU busy for @ns nanoseconds of CLOCK_MONOTONIC
 * without touching shared memory (atomics' think and critical-section
 * time). Natively it polls the clock (a vDSO read, tens of ns: shorter
 * requests overshoot); simulated, it is @ns of work on the task's CPU.
 */
static inline void lab_busy_ns(uint64_t ns)
{
	uint64_t end = lab_clock_ns() + ns;

	while (lab_clock_ns() < end)
		;
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

/* ---- the spinner's view of the scheduler ---------------------------------
 *
 * owner_on_cpu() (knob oncpu, enum lab_oncpu):
 * - switch (default): the owner's context-switch ring. Each thread opens, at
 *   its first use of locks/, a perf software event on itself with
 *   context_switch=1 and maps its one-page ring read-only (overwrite mode):
 *   the kernel appends an 8-byte PERF_RECORD_SWITCH at every switch in and
 *   out of that thread (PERF_RECORD_MISC_SWITCH_OUT on the way out, written
 *   in the scheduler before the switch). owner_on_cpu() is two plain loads:
 *   the ring's head and the record before it. Exact for preemption and for
 *   any block (futex, nanosleep, read(2)); blind, as all of user space, to
 *   the hypervisor preempting the vCPU the owner runs on (vcpu_is_preempted).
 *   A thread whose ring could not be opened (perf_event_paranoid > 2, the
 *   locked-memory limit: lab_switch_ring_status()) is watched as with clock.
 * - clock: the futex flag, then the owner's thread CPU clock (a system call,
 *   2.4-3.0 us in this KVM guest) sampled every LAB_OWNER_CLOCK_SAMPLE_NS of
 *   the spinner's time, not every N polls; stopped since the last sample =
 *   off CPU. The first sample of a new owner reads the clock twice and
 *   says off CPU if it did not move between the two reads (never optimistic).
 *   Between samples the last verdict (on CPU) stands: up to 25 us of false
 *   "on CPU" after the owner stops.
 * - flag: the futex flag only (lab_task.on_cpu, 0 while in lab_futex_wait):
 *   the old stand-in, optimistic for a preempted owner or one blocked
 *   outside rwlab's futexes; kept for comparison.
 *
 * need_resched() without a budget: true once the spinner has been preempted
 * since lab_spin_start() (its own ring's head moved: a switch-out and back;
 * without a ring, getrusage(RUSAGE_THREAD) ru_nivcsw went up, sampled every
 * LAB_RESCHED_SAMPLE_NS): the host scheduler wanted this CPU, which is when
 * the kernel sets TIF_NEED_RESCHED. With a budget (lab_spin_start(ns > 0, ...))
 * it is instead true once the budget has run out: the ablation.
 *
 * Simulated: owner_on_cpu() reads the exact on_cpu word the engine keeps and
 * need_resched() is exact (the CPU's scheduler wants it back): the reference
 * the native signals approximate. Both builds spin by the same rules: no
 * budget unless spin_budget_us asks for one, and OWNER_NULL spins bounded by
 * lab_owner_null_expired().
 */
enum lab_oncpu { LAB_ONCPU_SWITCH, LAB_ONCPU_CLOCK, LAB_ONCPU_FLAG };

#define LAB_OWNER_CLOCK_SAMPLE_NS 25000ull	/* oncpu=clock: one 2.4-3.0 us read per 25 us (~10%) */
#define LAB_RESCHED_SAMPLE_NS 100000ull	/* need_resched() without a ring: getrusage(), 1.1-1.8 us */
#define PERF_SWITCH_OUT_MISC (1u << 13)	/* PERF_RECORD_MISC_SWITCH_OUT, in the header's misc */

/*
 * OWNER_NULL spinning: a lock that is held but names no owner is in one of
 * the short windows between a count update and the owner store (a writer's
 * fast path, up_write, a reader's fast path). The kernel keeps them short:
 * v6.3 runs every rwsem path preempt-disabled; v4.20 and v5.3 run them as
 * kernel code that a PREEMPT_NONE/VOLUNTARY kernel (the distributions')
 * does not preempt. Here the thread in the window can be preempted for a
 * timeslice, so a spinner stops after LAB_OWNER_NULL_SPIN_NS of continuous
 * OWNER_NULL: far above the window's own length (a cmpxchg and a store,
 * under 1 us even with an interrupt in it) and far below a timeslice (ms).
 * @since: the caller's 0-initialised start of the current OWNER_NULL run;
 * reset it to 0 when the owner is not NULL. Same rule native and simulated.
 */
#define LAB_OWNER_NULL_SPIN_NS 10000ull

static inline bool lab_owner_null_expired(uint64_t *since)
{
	uint64_t now = lab_clock_ns();

	if (!*since) {
		*since = now;
		return false;
	}
	return now - *since > LAB_OWNER_NULL_SPIN_NS;
}

#if LAB_SIM
static inline void lab_spin_start(uint64_t budget_ns, int oncpu)
{
	struct lab_task *t = lab_current();

	t->spin_oncpu = oncpu;
	t->spin_deadline = budget_ns ? sim_now() + budget_ns : 0;
}

static inline int lab_need_resched_now(void)
{
	return sim_need_resched_by(lab_current()->spin_deadline);
}

static inline int need_resched(void)
{
	return lab_need_resched_now();
}
#else
long lab_task_nivcsw(void);
bool lab_owner_clock_stopped(struct lab_task *me, const struct lab_task *owner);

/*
 * lab_switch_ring_status() - NULL when this process's threads get switch
 * rings, else why not ("perf_event_open: Permission denied"): a thread
 * without one is watched through its CPU clock (oncpu=switch falls back).
 */
const char *lab_switch_ring_status(void);

/*
 * lab_spin_start() - begin a spin: @budget_ns > 0 bounds it by time (the
 * ablation), 0 ends it when this thread is preempted; @oncpu (enum
 * lab_oncpu) chooses owner_on_cpu()'s signal.
 */
static inline void lab_spin_start(uint64_t budget_ns, int oncpu)
{
	struct lab_task *t = lab_current();

	t->spin_oncpu = oncpu;
	t->watch = NULL;
	if (budget_ns) {
		t->spin_deadline = lab_clock_ns() + budget_ns;
	} else if (t->sw_head) {
		t->spin_deadline = 0;
		t->spin_sw_head = READ_ONCE(*t->sw_head);
	} else {
		t->spin_deadline = 0;
		t->spin_nivcsw = lab_task_nivcsw();
		t->resched_at = lab_clock_ns() + LAB_RESCHED_SAMPLE_NS;
	}
}

/* need_resched() now, without waiting for the next sample point. */
static inline int lab_need_resched_now(void)
{
	struct lab_task *t = lab_current();

	if (t->spin_deadline)
		return lab_clock_ns() > t->spin_deadline;
	if (t->sw_head)
		return READ_ONCE(*t->sw_head) != t->spin_sw_head;
	return lab_task_nivcsw() != t->spin_nivcsw;
}

static inline int need_resched(void)
{
	struct lab_task *t = lab_current();
	uint64_t now;

	if (t->spin_deadline)
		return lab_clock_ns() > t->spin_deadline;
	if (t->sw_head)
		return READ_ONCE(*t->sw_head) != t->spin_sw_head;
	now = lab_clock_ns();
	if (now < t->resched_at)
		return 0;
	t->resched_at = now + LAB_RESCHED_SAMPLE_NS;
	return lab_task_nivcsw() != t->spin_nivcsw;
}

/* Is @t's last context switch a switch-in (or none yet)? @head: its ring's data_head. */
static inline int lab_switch_on_cpu(const struct lab_task *t, const uint64_t *head)
{
	uint64_t h = smp_load_acquire(head), rec;

	if (!h)
		return 1;	/* no switch since it attached, running */
	/* The header {u32 type; u16 misc; u16 size}, written before head moved past it. */
	rec = READ_ONCE(READ_ONCE(t->sw_data)[((h - 8) & READ_ONCE(t->sw_mask)) / 8]);
	return !((rec >> 32) & PERF_SWITCH_OUT_MISC);
}
#endif

/* owner->on_cpu && !vcpu_is_preempted(task_cpu(owner)), for a spinner on @t. */
static inline int owner_on_cpu(const struct lab_task *t)
{
#if LAB_SIM
	return READ_ONCE(t->on_cpu);	/* the engine keeps on_cpu exact */
#else
	struct lab_task *me;
	const uint64_t *head;

	if (!READ_ONCE(t->on_cpu))
		return 0;
	me = lab_current();
	if (me->spin_oncpu == LAB_ONCPU_FLAG)
		return 1;
	head = smp_load_acquire(&t->sw_head);	/* pairs with lab_ring_open()'s release */
	if (me->spin_oncpu == LAB_ONCPU_SWITCH && lab_likely(head != NULL))
		return lab_switch_on_cpu(t, head);
	return !lab_owner_clock_stopped(me, t);
#endif
}

/* The futex-sleep flag alone: is @t not asleep in schedule()/lab_futex_wait()? */
static inline int lab_task_on_cpu(const struct lab_task *t)
{
	return READ_ONCE(t->on_cpu);
}

/* Sleep the calling thread for @ns nanoseconds (clock_nanosleep, restarts on EINTR). */
void lab_sleep_ns(uint64_t ns);

/* ---- fatal signals and deadlines (killable and timed waits) --------------
 *
 * The kernel's down_*_killable() sleep in TASK_KILLABLE and give up with
 * -EINTR where they check signal_pending_state(state, current): a fatal
 * signal is pending (SIGKILL; the task would die on return to user space).
 * rwlab has no signals: another thread calls lab_send_fatal_signal(t), which
 * sets t->fatal_signal and wakes @t if it sleeps in a TASK_WAKEKILL state
 * (signal_wake_up_state()). The task clears the flag when it has handled the
 * "signal" (lab_clear_fatal_signal(); rwlab's torture lets it live on).
 *
 * Timed waits (rwsem.h down_*_timed; no kernel counterpart) arm a deadline
 * with lab_wait_deadline_set(): until cleared, signal_pending_state() of a
 * killable state is also true once lab_clock_ns() passes it, and schedule()
 * sleeps at most until then - an expiring timer treated like a fatal signal,
 * at exactly the points where each kernel version checks for one.
 */

/* Send @t a fatal signal: set its flag, then wake it if it sleeps killably. Any thread. */
void lab_send_fatal_signal(struct lab_task *t);

/* The caller handled its fatal signal (or never got one): clear the flag. */
static inline void lab_clear_fatal_signal(void)
{
	WRITE_ONCE(lab_current()->fatal_signal, 0);
}

/* Arm (@deadline_ns > 0, lab_clock_ns() time) or disarm (0) the caller's wait deadline. */
static inline void lab_wait_deadline_set(uint64_t deadline_ns)
{
	WRITE_ONCE(lab_current()->wait_deadline, deadline_ns);
}

/* fatal_signal_pending(current) */
static inline int fatal_signal_pending(void)
{
	return READ_ONCE(lab_current()->fatal_signal) != 0;
}

/* True once the caller's armed deadline has passed. */
static inline int lab_wait_deadline_passed(void)
{
	uint64_t d = READ_ONCE(lab_current()->wait_deadline);

	return d && lab_clock_ns() >= d;
}

/*
 * signal_pending_state(state, current): only TASK_WAKEKILL (and
 * TASK_INTERRUPTIBLE) states can be interrupted, by a fatal signal or (timed
 * waits) the deadline.
 */
static inline int signal_pending_state(uint32_t state)
{
	if (!(state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL)))
		return 0;
	return fatal_signal_pending() || lab_wait_deadline_passed();
}

/* The -errno a killable slow path's -EINTR means: -EINTR (signal) or -ETIMEDOUT (deadline). */
static inline int lab_wait_interrupted_errno(void)
{
	return fatal_signal_pending() ? -EINTR : -ETIMEDOUT;
}

struct lab_rwsem;

/*
 * lab_wait_timed() - a timed wait (rwsem.h down_*_timed) made of a port's
 * killable one: the deadline armed for the duration of @killable(@sem),
 * which returns 0 or -EINTR. Returns 0, -ETIMEDOUT (the deadline passed) or
 * -EINTR (a fatal signal). The caller's thread; the kernel ports' (xadd,
 * rspin, mainline) timed waits are this.
 */
static inline int lab_wait_timed(int (*killable)(struct lab_rwsem *), struct lab_rwsem *sem, uint64_t deadline_ns)
{
	int r;

	lab_wait_deadline_set(deadline_ns);
	r = killable(sem);
	lab_wait_deadline_set(0);
	return r ? lab_wait_interrupted_errno() : 0;
}

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
/* lab_sim_machine_name() - the simulated machine's name ("generic-8"); NULL natively. */
#if LAB_SIM
const char *lab_sim_machine_name(void);
#else
static inline const char *lab_sim_machine_name(void)
{
	return NULL;
}
#endif

/*
 * lab_kernel_work() - kernel-side work that a workload's model stands for
 * but does not perform as the kernel would: natively nothing (the
 * host does the work it does, and its time is measured); in the simulated
 * build the machine's cost model charges it to the calling task:
 *   LAB_KWORK_FAULT       page-fault entry and exit (cost.fault_ns)
 *   LAB_KWORK_PAGE_ALLOC  one page from the page allocator (cost.page_alloc_ns)
 *   LAB_KWORK_CLEAR_PAGE  zeroing 4 KiB at the machine's per-core bandwidth,
 *                         shared with the socket's other copiers (bw.*)
 *   LAB_KWORK_HPAGE_ALLOC one 2 MiB huge page from the allocator with the prep
 *                         of its 512 struct pages (cost.hpage_alloc_ns)
 *   LAB_KWORK_HPAGE_COPY  copying 2 MiB (a huge page's COW), as CLEAR_PAGE
 */
enum lab_kwork {
	LAB_KWORK_FAULT, LAB_KWORK_PAGE_ALLOC, LAB_KWORK_CLEAR_PAGE,
	LAB_KWORK_HPAGE_ALLOC, LAB_KWORK_HPAGE_COPY, LAB_KWORK_SYSCALL,
};
#if LAB_SIM
void lab_kernel_work(enum lab_kwork w);
#else
static inline void lab_kernel_work(enum lab_kwork w)
{
	(void)w;
}
#endif

/* lab_task_cpu_ns() - the calling thread's CPU time (simulated: the task's, exact). */
static inline uint64_t lab_task_cpu_ns(void)
{
#if LAB_SIM
	return sim_task_cpu_ns();
#else
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/*
 * The work a workload does between its lock and mm calls, which
 * costs nothing in virtual time unless charged. Natively all three are
 * nothing (the host does the work and its time is measured); simulated:
 *   lab_work_key(name)    the index of the machine file's cost.work.NAME_ns
 *                         (ns per unit of that routine, measured by
 *                         rwlab-work-cost), or -1 when the machine has none;
 *   lab_user_work(k, n)   charges @n units of routine @k to the caller;
 *   lab_copy_work(bytes)  a copy of @bytes at the per-core bandwidth, shared
 *                         with the socket's other copiers (bw.*).
 * LAB_KWORK_SYSCALL: one system call's entry and exit (cost.syscall_ns).
 */
#if LAB_SIM
int lab_work_key(const char *name);
void lab_user_work(int key, double units);
void lab_copy_work(size_t bytes);
#else
static inline int lab_work_key(const char *name)
{
	(void)name;
	return 0;
}

static inline void lab_user_work(int key, double units)
{
	(void)key;
	(void)units;
}

static inline void lab_copy_work(size_t bytes)
{
	(void)bytes;
}
#endif

/*
 * lab_random_stores() - @n 8-byte stores at random places of a region far
 * beyond the caches, which the workload has just made with plain accesses
 * (vmscale's usemem --random loop): natively nothing (the host made them);
 * simulated, each store is a line's round trip to memory (the fill for
 * ownership and the write-back of the dirty line: 128 bytes) at the
 * socket's shared bandwidth, and no faster than cost.rand_store_ns each.
 */
#if LAB_SIM
void lab_random_stores(uint64_t n);
#else
static inline void lab_random_stores(uint64_t n)
{
	(void)n;
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

/* ---- CPUs and nodes, for per-CPU kernel state (workloads/kmm.c) ----------
 *
 * lab_this_cpu(): the CPU the caller runs on (simulated: its simulated CPU,
 * stable while interrupts are off; native: sched_getcpu(), which may change at
 * any moment, so native per-CPU state needs a lock). lab_nr_cpus(): the CPUs
 * (simulated: the machine's; native: configured processors). lab_cpu_node():
 * the NUMA node of @cpu (simulated: its socket; native: 0, one node is modelled).
 * lab_nr_nodes(): nodes (simulated: sockets; native: 1).
 * lab_local_irq_save()/restore(): the kernel's local_irq_save around per-CPU
 * data (simulated: interrupts off on the simulated CPU, which also keeps the
 * task from being preempted; native: nothing).
 */
int lab_this_cpu(void);
int lab_nr_cpus(void);
int lab_cpu_node(int cpu);
int lab_nr_nodes(void);
#if LAB_SIM
static inline void lab_local_irq_save(void)
{
	sim_irq_disable();
}

static inline void lab_local_irq_restore(void)
{
	sim_irq_enable();
}
#else
static inline void lab_local_irq_save(void)
{
}

static inline void lab_local_irq_restore(void)
{
}
#endif

/*
 * lab_cost_key() - the index of the machine file's cost key @key (a full name,
 * "cost.kpath.entry_ns"), or -1 when the machine has none; lab_user_work(k, n)
 * charges it. Native: 0 (charging does nothing).
 */
#if LAB_SIM
int lab_cost_key(const char *key);
#else
static inline int lab_cost_key(const char *key)
{
	(void)key;
	return 0;
}
#endif
