/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/engine.h - the engine's own state, as one object: struct engine.
 *
 * sim.h is the contract with the layers above (locks/ calls it through its
 * seams); this header is the engine's inside, shared by its files:
 *
 *   boot.c       boot, the run loop, shutdown; the engine's memory region
 *   coro.c       coroutines and tasks: switches, spawn, join, exit
 *   events.c     the event queues: the CPU heap and the timer/RCU/IPI heap
 *   coherence.c  the per-line coherence directory and sim_mem()
 *   sched.c      the CFS-like scheduler: run queues, wake-up, preemption
 *   spin.c       spin parking (cpu_relax) and its wake-ups
 *   futex.c      futexes, sleeps, sched_yield and their timers
 *   work.c       work charges (CPU work, copies, memory traffic) and clocks
 *   rcu.c        RCU grace periods from quiescent states
 *   ipi.c        interrupts: IPIs and interrupt contexts
 *   stats.c      counters: the public ones and RWLAB_SIM_STATS
 *   machine.c    machine files (also linked natively: machine.h)
 *
 * Every piece of state that lives for one boot is a field of struct engine
 * (or of a per-concern struct inside it), reached through the one object
 * `eng`. sim_boot() zeroes it whole, reserves the engine's memory region
 * (everything the engine allocates while it runs comes from there:
 * eng_alloc()) and sets what does not start at zero; sim_shutdown() unmaps
 * the task stacks and the region. Nothing is reset by hand: a new field
 * starts at zero on every boot, and one that needs another initial value
 * gets it in sim_boot(). The only state outside struct engine: the boot
 * count (it must outlive a boot: sim_boot_count()) and the two public
 * mirrors sim_active and sim_cur_id (sim.h; the seams read them).
 *
 * Why an object, not a pointer to one in the region: reaching the fields
 * through a pointer cost 5-7% of host time on locktest at 128 and 384
 * CPUs, the object nothing measurable (tests/sim/bench.sh's runs, A/B
 * interleaved, best of 7).
 *
 * Units: nanoseconds of virtual time unless named otherwise. Threading: one
 * host thread; everything here is touched only by the engine and its tasks.
 * Never includes locks/, workloads/ or harness/ headers.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sim.h"

/* Boost.Context's C ABI (libboost_context: make_fcontext/jump_fcontext). */
typedef void *fcontext_t;
typedef struct {
	fcontext_t fctx;
	void *data;
} transfer_t;

#define INF UINT64_MAX
#define SPIN_WATCH 8
/*
 * Spin parking rules (sim/README.md): a spin that read a clock in one of its
 * last SPIN_CLOCK_MEMORY iterations is not parked (the kernel ports read the
 * clock only every 16 polls, gated by a local counter the engine cannot
 * see); any other park also ends after SPIN_PARK_MAX_NS, so that a loop
 * whose exit depends on its own poll count still makes progress.
 */
#define SPIN_CLOCK_MEMORY 64
#define SPIN_PARK_MAX_NS 100000
#define STACK_SIZE (256u << 10)
#define MAIN_STACK_SIZE (16u << 20)
#define LINE_SHIFT 6
#define FUTEX_BUCKETS 4096
/* The engine's region: reserved at boot, committed ARENA_STEP at a time. */
#define ARENA_RESERVE (64ull << 30)
#define ARENA_STEP ((size_t)2 << 20)

enum tstate { T_FREE, T_RUN, T_READY, T_BLOCK, T_SLEEP, T_PARK, T_DONE };
enum evkind { EV_CPU, EV_TIMER, EV_RCU_TICK, EV_RCU_FQS, EV_IPI };

struct line;
struct task;

/* One line a spinning task watches (spin.c). */
struct watch {
	struct line *l;
	uint64_t ver;
	struct watch *next, **pprev;
	struct task *t;
};

struct task {
	int id;
	enum tstate state;
	fcontext_t ctx;
	void *stack;
	size_t stack_size;
	void *(*fn)(void *);
	void *arg;
	void *ret;
	int detached, joiner;
	int cpu, pin;
	int64_t vruntime;
	uint64_t run_start, cpu_ns;
	uint64_t nvcsw, nivcsw;		/* this task's context switches (RUSAGE_THREAD) */
	/* futex */
	uint32_t *faddr;
	struct task *fnext;
	int fresult;
	uint32_t tgen;
	/* spin detection: the lines read since the last cpu_relax */
	int sn, simpure, sclock, sov;
	unsigned relax_since_clock;	/* cpu_relax() calls since the last clock read */
	uint64_t budget;		/* the spin budget need_resched() last checked (0: none) */
	struct watch w[SPIN_WATCH];
	int nwatch;
	int *oncpu_word;
	uint64_t ready_at;	/* when it was last made runnable (checked at switch-in) */
	int rcu_nest;		/* read-side nesting (sim_rcu_read_lock) */
	int rcu_blocked;	/* switched out inside a section during a grace period */
	uint64_t rcu_wait_seq;	/* sim_rcu_gp_wait(): blocked until this GP completes */
	void *fiber;		/* ThreadSanitizer's fiber (SIM_TSAN builds) */
	int irq_off;		/* sim_irq_disable() depth: IPIs wait, no preemption */
	int is_irq;		/* a CPU's interrupt context (sim_ipi_send) */
};

struct cpu {
	uint64_t clock;
	struct task *curr;
	struct task **rq;	/* sorted by vruntime (then id) */
	int nrq;
	uint64_t resched_at;	/* curr is preempted at the first seam point at or after this */
	uint64_t park_deadline;
	int64_t min_vruntime;
	int socket, l3, core;
	int in_work;
	uint64_t work_end;	/* while in_work: when the chunk ends if nothing cuts it */
	/* RCU, for the grace period in progress (sim_rcu_*) */
	int rcu_need;		/* this CPU has not reported its quiescent state yet */
	int rcu_noted;		/* a QS was noted (context switch, unlock): reported at the next tick */
	int rcu_unlock_qs;	/* a tick found a reader: the outermost unlock notes the QS */
	int rcu_idle_seen;	/* idle since the GP began: reported by the next FQS scan */
	uint64_t rcu_cb_seq;	/* a GP requested from here: its tick keeps running while idle */
	/* interrupts (sim_ipi_send): curr stays current while the handler runs */
	struct sim_ipi *ipi_head;	/* pending IPIs, by arrival time */
	struct task *irq;	/* this CPU's interrupt context, made at its first IPI */
	int in_irq;		/* the handler runs: EV_CPU resumes irq, not curr */
	int saved_in_work;	/* curr's work chunk, put aside during the handler */
	uint64_t saved_work_end, irq_t0;
	uint64_t irq_ns;	/* time spent in handlers: a work chunk deducts it */
};

/* Each CPU's place, dense (a transfer's cost looks up two CPUs at random). */
struct place {
	int core, l3, socket;
};

/* A directory entry: one 64-byte line (coherence.c). */
struct line {
	uintptr_t key;
	int owner;		/* CPU holding it in M/E, or -1 */
	int home;		/* socket of the first toucher (first-touch NUMA) */
	uint64_t busy_until;	/* end of the ownership transfer in flight */
	uint64_t version;	/* bumped by every store/RMW */
	struct watch *watchers;
	uint64_t sharers[];	/* CPUs holding it in S */
};

/* A timer, RCU or IPI event (events.c). */
struct event {
	uint64_t time, tie;
	int kind, idx;
	uint32_t gen;
};

__extension__ typedef unsigned __int128 evkey;

/* A CPU's one event in the CPU heap: its key is time << 64 | tie (one compare). */
struct cpu_ev {
	evkey key;
	int cpu;
};

/* A pending IPI (ipi.c). */
struct sim_ipi {
	uint64_t at;
	void (*fn)(void *);
	void *arg;
	struct sim_ipi *next;
};

/* Stands for the kernel's per-CPU call_single_queue: one line per CPU (ipi.c). */
struct sim_csq {
	uint64_t head;
} __attribute__((aligned(64)));

/* The engine's region: struct engine at its start, then every eng_alloc(). */
struct arena {
	char *base;
	size_t used, mapped;
};

/* The event queues (events.c). */
struct evq {
	struct event *heap;	/* timers, RCU ticks and scans, IPIs: a plain binary heap */
	int heap_n, heap_cap;
	int cheap_n;
	/* each CPU's one event: an indexed heap, its 32-byte entries in whole lines */
	struct cpu_ev cheap[SIM_MAX_CPUS] __attribute__((aligned(64)));
	int cpos[SIM_MAX_CPUS];		/* each CPU's place in cheap[] (-1: none queued) */
	uint64_t cev_time[SIM_MAX_CPUS];	/* each CPU's event time, kept after it is taken */
};

/* The coherence directory (coherence.c). */
struct directory {
	struct line **tab;	/* open addressing by line address */
	size_t cap, count;
	char *pool;		/* lines are carved from here */
	size_t pool_left, line_size;
	/* Per-CPU masks of the CPUs sharing its core, L3 domain and socket. */
	uint64_t *mask_core, *mask_l3, *mask_socket;
};

/* RCU's grace-period machine (rcu.c). */
struct rcu {
	uint64_t completed;	/* grace periods completed */
	uint64_t requested;	/* the highest GP number someone waits for */
	int active;		/* GP number completed + 1 is in progress */
	uint64_t start;
	int owing;		/* CPUs that have not reported yet */
	int blocked;		/* tasks switched out inside a section that the GP waits for */
	int dormant;		/* every CPU idle: no ticks, no scans until one runs a task */
	uint64_t fqs_due;	/* when this GP's next FQS scan is due */
	uint32_t gen;		/* bumped at every GP start and end: stale ticks and FQS scans drop */
};

/* Interrupts (ipi.c). */
struct irqs {
	struct sim_csq *csq;	/* per CPU */
	struct sim_ipi *pool;	/* delivered IPIs, for reuse */
};

/* Counters (stats.c): the public ones and RWLAB_SIM_STATS's host-side ones. */
struct stats {
	uint64_t mem, switches, park, unpark;
	uint64_t wake_early;	/* switch-ins before the wake-up time: must stay 0 */
	uint64_t ipi_sent, ipi_handled, ipi_local, ipi_busy, ipi_deferred;
};

/*
 * The fields every seam call reads come first, together (a few host cache
 * lines); the large arrays and the machine's parameter table after them.
 */
struct engine {
	struct task *running;		/* the task on the host thread now (NULL: the run loop) */
	struct cpu *cpus;
	int ncpu, nwords;		/* CPUs; 64-bit words in a CPU bitmap */
	int sched_factor;		/* the kernel's CFS tunable scale */
	int live_tasks;
	uint64_t rng;			/* the stream drawn from the seed (sim_random, tie keys) */
	struct stats st;
	struct directory dir;
	double work_frac;		/* sim_work_ns()'s sub-nanosecond carry */
	int *copiers;			/* per socket: tasks inside a bandwidth charge */
	uint64_t total_cpu_ns, nvcsw, nivcsw;	/* every task's, ended ones included */
	struct rcu rcu;
	struct irqs irq;
	struct arena arena;
	fcontext_t sched_ctx;		/* the run loop's context */
	void *sched_fiber;		/* the run loop's ThreadSanitizer fiber */
	int detach_next;		/* sim_spawn_detached(): the next spawn is detached */
	void (*exit_hook)(int id);
	uint64_t seed;			/* the boot's seed */
	struct timespec host_t0;	/* host time at boot */
	struct evq ev;
	struct place place[SIM_MAX_CPUS];
	struct sim_machine m;		/* the machine booted on (a copy) */
	struct task tasks[SIM_MAX_TASKS];
	struct task *fq[FUTEX_BUCKETS];	/* futex queues by address (futex.c) */
};

/* The engine: valid from sim_boot() to sim_shutdown(). */
extern struct engine eng;
