/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/engine.h - the engine's own state, as one object: struct engine.
 *
 * sim.h is the contract with the layers above (locks/ calls it through its
 * seams); this header is the engine's inside, shared by its files:
 *
 *   boot.c       boot, the run loop, shutdown; the engine's memory region
 *   coro.c       coroutines and tasks: switches, spawn, join, exit
 *   events.c     the event queues: the CPU tree and the timer/RCU/IPI heap
 *   coherence.c  the per-line coherence directory and sim_mem()
 *   sched.c      the CFS-like scheduler: run queues, wake-up, preemption
 *   spin.c       spin parking (cpu_relax) and its wake-ups
 *   futex.c      futexes, sleeps, sched_yield and their timers
 *   work.c       work charges (CPU work, copies, memory traffic) and clocks
 *   rcu.c        RCU grace periods from quiescent states
 *   ipi.c        interrupts: IPIs and interrupt contexts
 *   idle.c       the idle loop: cpuidle states, the menu governor, wake-up IPI or polling
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
 * Units: picoseconds of virtual time (clocks, events, vruntime, CPU time:
 * PS_PER_NS per ns) unless named otherwise; the API (sim.h) speaks ns. Threading: one
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

/*
 * ThreadSanitizer must be told about the stack switches (its fiber API);
 * each switch also orders the two fibers, as the engine does.
 */
#if defined(__SANITIZE_THREAD__)
#define SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIM_TSAN 1
#endif
#endif
#ifndef SIM_TSAN
#define SIM_TSAN 0
#endif
#if SIM_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#define TSAN_SWITCH(f) __tsan_switch_to_fiber((f), 0)
#else
#define TSAN_SWITCH(f) ((void)0)
#endif

#define INF UINT64_MAX
#define SPIN_WATCH 8
/*
 * A task's cache of its recent lines (struct task): of the reaim cell's
 * accesses at 41 clients, 57.7% hit 8 entries, 71.0% 16, 81.8% 32, 90.3%
 * 64, 94.4% 128 (direct-mapped, results/sim/speed.txt 2026-12-03 coh);
 * 256 since 2026-12-04: 2-3% less host time per reaim cell than 64
 * (results/sim/speed.txt), 1024 no better.
 */
#define TASK_LINES 256
/*
 * Spin parking rules (sim/README.md): a spin that read a clock in one of its
 * last SPIN_CLOCK_MEMORY iterations is not parked (the kernel ports read the
 * clock only every 16 polls, gated by a local counter the engine cannot
 * see); any other park also ends after SPIN_PARK_MAX_NS, so that a loop
 * whose exit depends on its own poll count still makes progress.
 */
#define SPIN_CLOCK_MEMORY 64
#define SPIN_PARK_MAX_NS 100000	/* ns (engine time is in ps: x PS_PER_NS) */
#define STACK_SIZE (256u << 10)
#define MAIN_STACK_SIZE (16u << 20)
#define LINE_SHIFT 6
#define FUTEX_BUCKETS 4096
/* The engine's region: reserved at boot, committed ARENA_STEP at a time. */
#define ARENA_RESERVE (64ull << 30)
#define ARENA_STEP ((size_t)2 << 20)

enum tstate { T_FREE, T_RUN, T_READY, T_BLOCK, T_SLEEP, T_PARK, T_DONE };
enum evkind { EV_CPU, EV_TIMER, EV_RCU_TICK, EV_IPI, EV_LB };
/* Scheduling-domain levels of periodic load balancing (sched.c): SMT, LLC, package, machine. */
#define LB_LEVELS 4

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
	/*
	 * The first host line (the struct is 64-byte aligned): what a
	 * hand-over, an access, a relax and a work charge read.
	 */
	int id;
	enum tstate state;
	fcontext_t ctx;
	int cpu;
	/* spin detection: the lines read since the last cpu_relax */
	int sn, simpure, sclock, sov;
	unsigned relax_since_clock;	/* cpu_relax() calls since the last clock read */
	int irq_off;		/* sim_irq_disable() depth: IPIs wait, no preemption */
	int preempt_off;	/* sim_preempt_disable() depth: no preemption, IPIs run */
	int is_irq;		/* a CPU's interrupt context (sim_ipi_send) */
	int pin;
	uint64_t budget;		/* the spin budget need_resched() last checked (0: none) */
	/*
	 * The lines of its recent accesses (sim_mem: no directory lookup on a
	 * hit), direct-mapped by the key's low bits, each key stored plus one
	 * (0: empty) beside its line: a hit reads one host line.
	 */
	struct line_slot {
		uintptr_t key;
		struct line *line;
	} lc[TASK_LINES] __attribute__((aligned(64)));
	struct watch w[SPIN_WATCH];
	int nwatch;
	void *stack;
	size_t stack_size;
	void *(*fn)(void *);
	void *arg;
	void *ret;
	int detached, joiner;
	int pin_core;		/* sim_pin_core(): may run on any CPU of this core (-1: none) */
	int64_t vruntime;
	int64_t deadline, vlag;		/* EEVDF: virtual deadline; lag kept across a sleep */
	int protect;			/* EEVDF RUN_TO_PARITY: picked, its slice not renewed yet */
	int fresh;			/* a new task: PLACE_DEADLINE_INITIAL at its first enqueue */
	uint64_t run_start, cpu_ps;
	uint64_t nvcsw, nivcsw;		/* this task's context switches (RUSAGE_THREAD) */
	/* futex */
	uint32_t *faddr;
	struct task *fnext;
	int fresult;
	uint32_t tgen;
	int *oncpu_word;
	uint64_t ready_at;	/* when it was last made runnable (checked at switch-in) */
	int rcu_nest;		/* read-side nesting (sim_rcu_read_lock) */
	int rcu_blocked;	/* switched out inside a section during a grace period */
	uint64_t rcu_wait_seq;	/* sim_rcu_gp_wait(): blocked until this GP completes */
	int rcu_next;		/* the next synchronize_rcu() caller on the same CPU's callback list (-1 ends) */
	void *fiber;		/* ThreadSanitizer's fiber (SIM_TSAN builds) */
} __attribute__((aligned(64)));

/* idle.c: the machine file's cpuidle states (cost.idle.N.*), N = 0 the POLL state. */
#define IDLE_MAX_STATES 10
#define IDLE_INTERVALS 8	/* menu.c INTERVALS */
#define IDLE_BUCKETS 6		/* menu.c BUCKETS without the iowait half (no task waits for I/O here) */
struct idle_state {
	uint64_t exit_ns, residency_ns;	/* exit_latency, target_residency */
	int wake_ipi;			/* 1: the state does not poll TIF_NEED_RESCHED, a wake-up sends an IPI */
};
struct idle {
	int n;				/* states (0: the file has none, cost.wakeup_ns stands for the path) */
	struct idle_state s[IDLE_MAX_STATES];
};

struct cpu {
	/*
	 * The first host line (the struct is 64-byte aligned): what every
	 * access reads and writes (sync_point, sim_mem and its read for
	 * ownership). Read for ownership (coherence.c): this CPU's last load
	 * that took a line from its owner, the task that made it, its arrival
	 * and the line's version then, and when the first request queued
	 * behind it would reach this CPU (UINT64_MAX: none queued yet).
	 */
	uint64_t clock;
	uint64_t resched_at;	/* curr is preempted at the first seam point at or after this */
	struct task *curr;
	struct line *rd_line;
	struct task *rd_task;
	uint64_t rd_at, rd_ver, rd_snoop;
	/* The second: what a hand-over (cpu_event) and a work charge read. */
	struct task *irq;	/* this CPU's interrupt context, made at its first IPI */
	int in_irq;		/* the handler runs: EV_CPU resumes irq, not curr */
	int nrq;
	int in_work;		/* in a work chunk (2: one smt.exec_yield may stretch, work.c) */
	uint64_t work_end;	/* while in_work: when the chunk ends if nothing cuts it */
	uint64_t irq_ps;	/* time spent in handlers: a work chunk deducts it */
	struct task **rq;	/* sorted by vruntime (then id) */
	uint64_t park_deadline;
	int64_t min_vruntime;
	int socket, l3, core;
	/* RCU, for the grace period in progress (sim_rcu_*) */
	int rcu_need;		/* this CPU has not reported its quiescent state yet */
	int rcu_noted;		/* a QS was noted (context switch, unlock): reported at the next tick */
	int rcu_unlock_qs;	/* a tick found a reader: the outermost unlock notes the QS */
	int rcu_idle_seen;	/* idle since the GP began: reported by the next FQS scan */
	int rcu_seen;		/* noticed the GP in progress (__note_gp_changes): a QS from then counts */
	int rcu_snap;		/* busy at the first FQS scan: later scans report it once it has idled */
	uint64_t rcu_cb_max;	/* the latest GP a callback queued here waits for: the tick runs till then */
	int rcu_cb_head;	/* synchronize_rcu() callers whose callback is on this CPU (task ids, -1 ends) */
	/* interrupts (sim_ipi_send): curr stays current while the handler runs */
	struct sim_ipi *ipi_head;	/* pending IPIs, by arrival time */
	int line_wait;		/* curr waits for a line's transfer (coherence.c line_wait): an IPI is held */
	int ipi_held;		/* one arrived meanwhile: queued again when the access has landed */
	int saved_in_work;	/* curr's work chunk, put aside during the handler */
	uint64_t saved_work_end, irq_t0;
	/* the idle loop (idle.c): the state entered, when, and the menu governor's history */
	int idle_state;		/* the cpuidle state this idle CPU is in (-1: none, running) */
	uint64_t idle_t0;	/* when it entered the idle loop */
	uint64_t idle_next_timer;	/* menu_device.next_timer_ns of the last selection */
	int idle_bucket, idle_ivp;
	int idle_stop_tick;	/* the governor stopped the tick (else it wakes the CPU each jiffy) */
	uint32_t idle_iv[IDLE_INTERVALS];	/* the last idle durations, us (menu_device.intervals) */
	uint32_t idle_corr[IDLE_BUCKETS];	/* menu_device.correction_factor */
	uint64_t next_lb[LB_LEVELS];	/* periodic load balancing: when each domain level is next due */
	int lb_weight[LB_LEVELS];	/* the CPUs in each of its domains (0: not counted yet) */
	/*
	 * The store buffer (coherence.c rule 8): when the last buffered store
	 * commits, and each one's commit time, oldest first (sb_n from sb_head).
	 */
	uint64_t sb_last;
	int sb_head, sb_n;
	uint64_t sb[SIM_SB_MAX];
	/*
	 * Rule 4 after a wait (coherence.c mem_own): the line this CPU waits
	 * to own, and the hold window of the request queued right behind its
	 * own (the pair that will take the line: UINT64_MAX, none yet).
	 */
	struct line *own_line;
	uint64_t own_next_hold;
	/*
	 * The what-if smt.exec_yield (work.c), read and written only when a
	 * machine sets it: kept out of the hot lines above.
	 */
	int sibling;		/* the other hardware thread of its core (-1: none) */
	double work_k;		/* while in_work is 2 (a stretchable chunk): its smt_stretch() */
} __attribute__((aligned(64)));

/* Each CPU's place, dense (a transfer's cost looks up two CPUs at random). */
struct place {
	int core, l3, socket;
};

/*
 * A directory entry: one 64-byte line (coherence.c). CPU numbers are
 * int16_t (SIM_MAX_CPUS fits) so that, with one word of sharers (up to 64
 * CPUs), an entry is 64 bytes and sits in one host cache line (dir_boot
 * sizes and the pool aligns them): with int fields it was 80 bytes, and
 * every lookup touched two host lines.
 */
struct line {
	uintptr_t key;
	uint64_t busy_until;	/* when the last transfer granted or reserved arrives */
	uint64_t grant;		/* when the owner was granted it */
	uint64_t snoop_at;	/* the first reserved transfer's snoop reaches the owner: it loses the line */
	uint64_t version;	/* bumped by every store/RMW */
	struct watch *watchers;
	int16_t owner;		/* CPU holding it in M/E, or -1 */
	int16_t home;		/* socket of the first toucher (first-touch NUMA) */
	int16_t tail;		/* the CPU that transfer goes to (-1: none yet) */
	int16_t sb_tail;	/* the last reserved transfer is a buffered store's, none queued behind it yet */
	uint64_t sharers[];	/* CPUs holding it in S */
};
_Static_assert(SIM_MAX_CPUS <= INT16_MAX, "struct line keeps CPU numbers in int16_t");

/* A timer, RCU or IPI event (events.c). */
struct event {
	uint64_t time, tie;
	int kind, idx;
	uint32_t gen;
};

__extension__ typedef unsigned __int128 evkey;


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
	int cleaf;		/* the CPU tree's first leaf: a power of two, at least ncpu */
	uint64_t tmin;		/* heap[0].time, INF when heap_n is 0: read without the heap's line */
	/*
	 * Each CPU's one event: a winner tree. Node 1 is the root, node i's
	 * children are 2i and 2i + 1, leaves from cleaf on. A node holds its
	 * subtree's least key (time << 64 | tie, one compare) and that key's
	 * CPU; a leaf with no event has CEV_NONE. Each CPU owns one leaf,
	 * queued or not; a push-pop swaps two CPUs' leaves (cpu_push_pop).
	 */
	evkey ckey[2 * SIM_MAX_CPUS] __attribute__((aligned(64)));
	int16_t cwin[2 * SIM_MAX_CPUS];	/* a leaf's: the CPU owning it */
	int16_t cleaf_of[SIM_MAX_CPUS];	/* each CPU's leaf */
	uint64_t cev_time[SIM_MAX_CPUS];	/* each CPU's event time, kept after it is taken */
};

/*
 * A transfer's distance class (coherence.c): its cost is one machine-file
 * figure, converted to picoseconds once at boot (dir_boot), with the part
 * of it the owner keeps the line for (rmw.hold_share).
 */
enum xclass { X_NONE, X_SMT, X_L3, X_SOCKET, X_SOCKET_FAR_HOME, X_REMOTE, X_MEM_LOCAL, X_MEM_REMOTE, X_CLASSES };

/* The coherence directory (coherence.c). */
struct directory {
	double x_ns[X_CLASSES];		/* the class's figure, ns */
	uint64_t x_ps[X_CLASSES];	/* ps_of(the class's figure) */
	uint64_t hold_ps[X_CLASSES];	/* ps_of(the figure x rmw.hold_share) */
	uint64_t *pair_ps, *pair_hold_ps;	/* rule 9 (c2c.pairs): the same per pair, [a * ncpu + b]; NULL: none */
	uint64_t load_ps, rmw_ps;	/* ps_of(load.local_ns), ps_of(rmw.local_ns) */
	uint64_t relax_ps;		/* ps_of(relax_ns): a cpu_relax() (spin.c) */
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
	int kthread;		/* the GP kthread's task id (-1: not made yet this boot) */
	int kthread_idle;	/* it waits for a request (RCU_GP_WAIT_GPS) */
	int kthread_waiting;	/* it waits in the FQS loop: the last report wakes it */
	uint64_t gps, fqs_scans;	/* grace periods started, FQS scans made */
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
	uint64_t idle_enter[IDLE_MAX_STATES];	/* idle periods per state chosen (idle.c) */
	uint64_t idle_wake_ipi, idle_wake_poll;	/* wake-ups of an idle CPU: by IPI, by its polled flag */
	uint64_t rcu_gp_ps;			/* the grace periods' lengths, start to end (rcu.c) */
	uint64_t rcu_waits, rcu_wait_ps;	/* synchronize_rcu() sleeps and their lengths to the wake-up */
	uint64_t sb_buffered, sb_full, sb_drain_wait;	/* rule 8: stores that went on without their line; waits */
	uint64_t smt_served;	/* rule 10: RMWs and waiting stores served from the core, with or after a sibling's */
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
	int nr_queued;			/* tasks in every CPU's run queue together (sched.c: steal() skips its scan at 0) */
	uint64_t rng;			/* the stream drawn from the seed (sim_random, tie keys) */
	struct stats st;
	struct prof *prof;		/* RWLAB_SIM_STATS=2's profile (stats.c), NULL when off */
	struct directory dir;
	double work_frac;		/* sim_work_ns()'s sub-picosecond carry, in ps */
	int *copiers;			/* per socket: tasks inside a bandwidth charge */
	uint64_t total_cpu_ps, nvcsw, nivcsw;	/* every task's, ended ones included */
	struct rcu rcu;
	struct irqs irq;
	struct idle idle;
	uint32_t lb_gen;		/* the load-balancing tick's generation (0: not armed) */
	int lb_armed;
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

/*
 * What the engine's files call of each other. Every function below runs on
 * the host thread inside a boot (engine.h's threading rule); "the running
 * task" is eng.running.
 */

extern transfer_t jump_fcontext(fcontext_t const to, void *vp);	/* Boost.Context */
/*
 * The switch the engine uses: on x86-64 its own (switch_x86_64.S: Boost's
 * frame, resumed with a ret that keeps the return-stack buffer balanced),
 * elsewhere Boost's.
 */
#if defined(__x86_64__)
transfer_t sim_jump(fcontext_t to, void *vp);
#define SIM_JUMP sim_jump
#else
#define SIM_JUMP jump_fcontext
#endif

/* boot.c: @n zeroed bytes, 64-byte aligned, from the engine's region (aborts when full). */
void *eng_alloc(size_t n);

/* coro.c */
void run_task(struct task *t);		/* the run loop resumes @t until a task hands back */
int task_alloc(void *(*fn)(void *), void *arg, size_t stack);	/* a task slot, or -1 */

/* events.c: the CPU tree (one event per CPU) and the timer/RCU/IPI heap */
void heap_push(uint64_t time, int kind, int idx, uint32_t gen);
struct event heap_pop(void);
void heap_clean(void);			/* drop stale entries at the top of the timer heap */
void cpu_push(struct cpu *c, uint64_t t);	/* @c's one event is now at @t */
void cpu_cancel(struct cpu *c);
void cpu_events_boot(void);		/* every CPU without an event */

/* coherence.c */
void dir_boot(void);			/* the per-CPU topology masks (sim_boot) */
void line_touch_store(void *addr, int c);	/* the engine's own store: no charge, watchers see it */

/* sched.c */
void set_oncpu(struct task *t, int v, int c);
void cpu_set_curr(struct cpu *c, struct task *t);
void smt_sibling_changed_slow(const struct cpu *c);	/* work.c */
/* @c became busy or idle: with smt.exec_yield set, its sibling's work chunk may change rate (work.c). */
static inline void smt_sibling_changed(const struct cpu *c)
{
	if (__builtin_expect(eng.m.smt_exec_yield != 0, 0))
		smt_sibling_changed_slow(c);
}
void cpu_account(struct cpu *c, struct task *t);
void cpu_pick_next(struct cpu *c);	/* @c's task has left it: the next one, or idle */
void switch_out(struct task *t, enum tstate st);
void switch_sb_drain(struct cpu *c);
void wake_task(struct task *t, uint64_t now);
void lb_tick(uint64_t now);		/* periodic load balancing at the scheduler tick */
void lb_arm(uint64_t now);		/* start that tick (an unpinned task is queued) */
void sched_yield_place(struct cpu *c, struct task *t);	/* make @t runnable at @now */
void sched_next(struct cpu *yield);	/* leave the running task for the next event */
void sched_next_at(struct cpu *c, uint64_t time);	/* cpu_push(@c, @time), then sched_next(NULL) */
void sync_point_due(struct task *t);	/* sync_point() when @t's CPU has reached its resched point */
void sync_preempt(struct task *t);	/* at the resched point: preempt @t if due (work.c's check) */

/* spin.c */
void watch_detach(struct task *t);
void unpark(struct task *t, uint64_t when);
void wake_watchers(struct line *l, uint64_t when);
void sim_sb_drain(void);
void repark_deadline(struct cpu *c);

/* futex.c */
void block_current(struct task *t, enum tstate st, int64_t timeout_ps);	/* timeout < 0: none */
void timer_fire(struct task *t, uint64_t now);

/* rcu.c */
void rcu_note_switch(struct cpu *c, struct task *t);
void rcu_rearm(uint64_t now);
void rcu_tick(uint64_t now);
void rcu_note_idle(struct cpu *c);	/* @c enters the idle loop: an extended QS */

/* idle.c */
int idle_boot(void);			/* read the machine's states; -1 (message printed) on a bad set */
void idle_enter(struct cpu *c);		/* @c has no task: do_idle() picks a state */
uint64_t idle_wake(struct cpu *c, uint64_t now);	/* a task woken at @now onto idle @c: when it runs */
void idle_irq(struct cpu *c, uint64_t when);	/* an interrupt reaches idle @c at @when: leave the state */

/* May @t run on CPU @cpu (its pin, its core)? */
static inline int task_allowed(const struct task *t, int cpu)
{
	return t->pin < 0 ? t->pin_core < 0 || t->pin_core == eng.place[cpu].core : t->pin == cpu;
}

/* ipi.c */
void ipi_arrive(struct cpu *c, uint64_t when);	/* EV_IPI */
void irq_bug(const char *what);		/* prints one line and aborts */

/* stats.c */
void stats_print(void);			/* RWLAB_SIM_STATS=1: the host-side counters on stderr */
void prof_boot(void);			/* RWLAB_SIM_STATS=2: make the profile's tables (sim_boot) */
/*
 * The profile (RWLAB_SIM_STATS=2; host-side only: it reads the clocks, never
 * sets them). prof_mem(): an access to line @key from @pc that took @ps of
 * the CPU's time, @xfer 1 when it needed a transfer (2: from another
 * socket); prof_pc(): @ps of spinning (PROF_RELAX) at @pc.
 */
enum prof_kind { PROF_LOAD, PROF_OWN, PROF_RELAX, PROF_WORK, PROF_KINDS };
void prof_mem(uintptr_t key, const void *pc, int own, int xfer, uint64_t ps);
void prof_pc(const void *pc, int kind, uint64_t ps);
void prof_work(double ns);		/* sim_work_ns(): @ns under the pending sim_prof_tag() */

/* The seed's stream (splitmix64): tie keys, jitter, sim_random(). */
static inline uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * A cost's factor from the seed: uniform in [0.99, 1.01]. A kernel path
 * (system call, futex, fault, page allocation, context switch, wake-up),
 * PAUSE and think time are not constants on hardware (no published
 * distribution of them was found: +-1% is the engine's convention,
 * lab_delay()'s since sim-1), and without it two seeds of a workload that
 * never ties gave byte-identical iterations (before sim-6).
 */
static inline double jitter(void)
{
	return 1.0 + ((double)(splitmix(&eng.rng) >> 11) / 9007199254740992.0 - 0.5) * 0.02;
}

/*
 * Virtual time is kept in picoseconds (since sim-6: a 1.6 ns load was charged
 * 2 ns, +25%); the API speaks nanoseconds (sim.h). ps_of(): a cost in ns
 * (a machine-file figure) as the nearest whole picosecond.
 */
#define PS_PER_NS 1000ull

static inline uint64_t ps_of(double ns)
{
	return (uint64_t)(ns * (double)PS_PER_NS + 0.5);
}

/*
 * The earliest pending event's time (INF: none). The timer heap's top is
 * checked for staleness (a task's line: a host cache miss) only when it
 * would come first: when it does not, no event under it does either. Its
 * time is read from tmin, beside the CPU tree's root, not from the heap.
 */
static inline uint64_t heap_min(void)
{
	uint64_t t = (uint64_t)(eng.ev.ckey[1] >> 64);	/* INF when no CPU has one */

	if (eng.ev.tmin < t) {
		heap_clean();
		if (eng.ev.heap_n && eng.ev.heap[0].time < t)
			t = eng.ev.heap[0].time;
	}
	return t;
}

/* May the scheduler switch @t out? Not an interrupt context, nor a task with interrupts or preemption off. */
static inline int preemptible(const struct task *t)
{
	return !t->is_irq && !t->irq_off && !t->preempt_off;
}

/* Start a new record of a spin iteration (sim_relax(), a futex wait's re-check). */
static inline void spin_reset(struct task *t)
{
	t->sn = 0;
	t->simpure = 0;
	t->sclock = 0;
	t->sov = 0;
}

/*
 * The fast paths of the event queues and the coroutine switches, inline
 * here because every seam call may take them (sync_point, sched_next): out
 * of line in events.c and coro.c they cost 2-4% of host time on an
 * IPI-heavy tlb_flush run.
 */
static inline evkey ev_key(uint64_t time, uint64_t tie)
{
	return (evkey)time << 64 | tie;
}

/*
 * A CPU without an event: its leaf's key. Above every real key, since an
 * event's time is a clock in ps, never INF (repark_deadline() queues no
 * INF deadline); so the root is CEV_NONE only when no CPU has an event,
 * and its time is then INF.
 */
#define CEV_NONE (~(evkey)0)

/*
 * One node of a replay: the lesser of the path's winner (@hi:@lo, @win)
 * and the sibling's (@s, @sw). Conditional moves, so no branch depends
 * on the keys (GCC turns a ?: here into a branch).
 */
static inline void ctree_min(uint64_t *hi, uint64_t *lo, int *win, evkey s, int sw)
{
#if defined(__x86_64__)
	uint64_t shi = (uint64_t)(s >> 64), slo = (uint64_t)s, t = shi;

	/* t early-clobbered: it starts equal to shi, and GCC would otherwise give both one register */
	__asm__("cmp %[lo], %[slo]\n\t"
		"sbb %[hi], %[t]\n\t"		/* CF: the sibling's key is less */
		"cmovb %[slo], %[lo]\n\t"
		"cmovb %[shi], %[hi]\n\t"
		"cmovb %[sw], %[win]"
		: [lo] "+r"(*lo), [hi] "+r"(*hi), [win] "+r"(*win), [t] "+&r"(t)
		: [slo] "r"(slo), [shi] "r"(shi), [sw] "r"(sw)
		: "cc");
#else
	uint64_t m = -(uint64_t)(s < ((evkey)*hi << 64 | *lo));

	*hi = ((uint64_t)(s >> 64) & m) | (*hi & ~m);
	*lo = ((uint64_t)s & m) | (*lo & ~m);
	*win = (int)(((unsigned int)sw & (unsigned int)m) | ((unsigned int)*win & ~(unsigned int)m));
#endif
}

/*
 * Leaf @i now holds @key: replay its path to the root. The trip count is
 * the tree's depth, the same for every leaf, and the sibling loads do not
 * wait for the compares: nothing to mispredict, where the binary heap's
 * sift-down was 10.7% of the 161-client reaim cell's host time. The
 * reaim cells' user time fell 3.7-4.5% (results/sim/speed.txt,
 * 2026-12-04); two levels per compare on the path were slower (more
 * instructions: the loop is bound by them, not by the compares' chain).
 */
static inline void ctree_set(unsigned int i, evkey key)
{
	evkey *k = eng.ev.ckey;
	int16_t *w = eng.ev.cwin;
	uint64_t hi = (uint64_t)(key >> 64), lo = (uint64_t)key;
	int win = w[i];

	k[i] = key;
	for (; i > 1; i >>= 1) {
		ctree_min(&hi, &lo, &win, k[i ^ 1], w[i ^ 1]);
		k[i >> 1] = (evkey)hi << 64 | lo;
		w[i >> 1] = (int16_t)win;
	}
}

/* The CPU tree's root (not CEV_NONE) comes before every valid timer and RCU event. */
static inline int cpu_root_next(void)
{
	evkey root = eng.ev.ckey[1];

	if ((uint64_t)(root >> 64) < eng.ev.tmin || !eng.ev.heap_n ||
	    root < ev_key(eng.ev.heap[0].time, eng.ev.heap[0].tie))
		return 1;
	heap_clean();
	return !eng.ev.heap_n || root < ev_key(eng.ev.heap[0].time, eng.ev.heap[0].tie);
}

/*
 * Take the earliest pending event if it is a CPU's: its index (its time
 * stays in cev_time[]), or -1 when a timer or RCU event comes first or none
 * is pending.
 */
static inline int cpu_pop_next(void)
{
	int ci;

	if (eng.ev.ckey[1] == CEV_NONE || !cpu_root_next())
		return -1;
	ci = eng.ev.cwin[1];
	ctree_set((unsigned int)eng.ev.cleaf_of[ci], CEV_NONE);
	return ci;
}

/*
 * cpu_push(@c, @time), then cpu_pop_next(). When @c has no event and the
 * root's CPU is the next event and comes before @c's (all but 1,165 of the
 * 249 M push-pops of the 161-client reaim compute cell), @c takes over
 * the root CPU's leaf, and the root CPU @c's empty one: one replay, not
 * two (an insert and a removal).
 */
static inline int cpu_push_pop(struct cpu *c, uint64_t time)
{
	int ci = (int)(c - eng.cpus), top;
	unsigned int own = (unsigned int)eng.ev.cleaf_of[ci], leaf;
	evkey key;

	if (eng.ev.ckey[own] != CEV_NONE || eng.ev.ckey[1] == CEV_NONE) {
		cpu_push(c, time);
		return cpu_pop_next();
	}
	key = ev_key(time, splitmix(&eng.rng));
	eng.ev.cev_time[ci] = time;
	if (key < eng.ev.ckey[1] || !cpu_root_next()) {
		ctree_set(own, key);
		return cpu_pop_next();
	}
	top = eng.ev.cwin[1];
	leaf = (unsigned int)eng.ev.cleaf_of[top];
	eng.ev.cleaf_of[top] = (int16_t)own;
	eng.ev.cwin[own] = (int16_t)top;
	eng.ev.cleaf_of[ci] = (int16_t)leaf;
	eng.ev.cwin[leaf] = (int16_t)ci;
	ctree_set(leaf, key);
	return top;
}

/*
 * A task is resumed either by the scheduler loop (data NULL) or straight
 * by another task (data: that task); keep the context it came from.
 */
static inline void resumed(transfer_t r)
{
	if (r.data)
		((struct task *)r.data)->ctx = r.fctx;
	else
		eng.sched_ctx = r.fctx;
}

static inline void to_scheduler(void)
{
	TSAN_SWITCH(eng.sched_fiber);
	resumed(SIM_JUMP(eng.sched_ctx, eng.running));
}

/* From the running task straight to @t (no pass through the scheduler loop). */
static inline void switch_to(struct task *t)
{
	struct task *self = eng.running;

	eng.running = t;
	sim_cur_id = t->id;
	eng.st.switches++;
	TSAN_SWITCH(t->fiber);
	resumed(SIM_JUMP(t->ctx, self));
}

/*
 * A running task meets a seam: preempt it if due (sync_point_due(), out of
 * line: its CPU has reached its resched point), then let earlier CPUs go
 * first. Inline: every access, relax and work charge comes through here,
 * and most go on without a hand-over.
 */
static inline void sync_point(struct task *t)
{
	struct cpu *c = &eng.cpus[t->cpu];

	if (__builtin_expect(c->clock >= c->resched_at, 0))
		sync_point_due(t);
	else if (c->clock > heap_min())
		sched_next(c);
}

/*
 * CPU @ci's event (just taken) is due: its clock catches up; the task to
 * resume, if any (its interrupt context while a handler runs there).
 * Inline: every hand-over (sched_next) and the run loop take it. The
 * clock is stored whether it moves or not (a conditional move): as a
 * branch it was mispredicted in 3.8 M of 10.8 M hand-overs of a short
 * reaim cell (cachegrind's model; a yield's event is at its clock, a work
 * chunk's after it).
 */
static inline struct task *cpu_event(int ci)
{
	struct cpu *c = &eng.cpus[ci];
	struct task *t = c->in_irq ? c->irq : c->curr;
	uint64_t time = eng.ev.cev_time[ci], clock = c->clock;

	c->clock = time > clock ? time : clock;
	if (t && t->state == T_PARK) {
		watch_detach(t);
		t->state = T_RUN;
	}
	return t;
}
