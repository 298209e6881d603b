/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The many-CPU engine: see sim.h for the contract and sim/README.md for the
 * model, its sources and what it leaves out.
 *
 * Invariant that makes it a discrete-event simulation: a task acts (touches
 * a line, wakes a task, reads a clock) only while its CPU's clock is not
 * later than any pending event, so actions happen in virtual-time order.
 * Every CPU with a task to run has exactly one event queued (its place
 * in the CPU event heap, cpos[]); timers are per-task events (task->tgen). Ties are broken by a
 * per-event random key from the seed, so one seed is one schedule.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sim.h"

/* Boost.Context's C ABI (libboost_context: make_fcontext/jump_fcontext). */
typedef void *fcontext_t;
typedef struct {
	fcontext_t fctx;
	void *data;
} transfer_t;
extern transfer_t jump_fcontext(fcontext_t const to, void *vp);
extern fcontext_t make_fcontext(void *sp, size_t size, void (*fn)(transfer_t));

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
static void *sched_fiber;
#define TSAN_SWITCH(f) __tsan_switch_to_fiber((f), 0)
#else
#define TSAN_SWITCH(f) ((void)0)
#endif

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

enum tstate { T_FREE, T_RUN, T_READY, T_BLOCK, T_SLEEP, T_PARK, T_DONE };
enum evkind { EV_CPU, EV_TIMER, EV_RCU_TICK, EV_RCU_FQS, EV_IPI };

struct line;
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

struct line {
	uintptr_t key;
	int owner;		/* CPU holding it in M/E, or -1 */
	int home;		/* socket of the first toucher (first-touch NUMA) */
	uint64_t busy_until;	/* end of the ownership transfer in flight */
	uint64_t version;	/* bumped by every store/RMW */
	struct watch *watchers;
	uint64_t sharers[];	/* CPUs holding it in S */
};

struct event {
	uint64_t time, tie;
	int kind, idx;
	uint32_t gen;
};

int sim_active;
int sim_cur_id;

static void irq_bug(const char *what);
static void ipi_arrive(struct cpu *c, uint64_t when);

static struct sim_machine M;
static uint64_t seed0, rng_state;
static int ncpu, nwords, sched_factor;
static struct cpu *cpus;
/* Each CPU's place, dense (a transfer's cost looks up two CPUs at random). */
static struct place {
	int core, l3, socket;
} place[SIM_MAX_CPUS];
static struct task tasks[SIM_MAX_TASKS];
static struct task *running;
static fcontext_t sched_ctx;
static int live_tasks;
static uint64_t total_cpu_ns, nvcsw, nivcsw;
static struct timespec host_t0;
static int deadlock;
/* Host-side statistics (RWLAB_SIM_STATS=1 prints them at sim_shutdown). */
static uint64_t st_mem, st_switch, st_park, st_unpark, st_work;
static uint64_t st_wake_early;	/* switch-ins before the wake-up time: must stay 0 */

/* ---- random ---------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t sim_random(void)
{
	return splitmix(&rng_state);
}

/* ---- the engine's own memory ------------------------------------------------ */

/*
 * Everything the engine allocates while it runs (event heap, directory,
 * run queues) comes from one region reserved at boot, never from malloc.
 * The directory keys lines by address, so which simulated objects share a
 * line, and bravo's hash of a lock's address, follow where the allocator
 * places the simulated program's objects; with the engine's allocations
 * interleaved with the program's, that placement followed the engine's
 * internals (base sim-3 with only the event heap's initial capacity changed
 * from 1024 to 131072 entries: a different generic-64 locktest sweep).
 * Pages are committed as the region fills; nothing is freed until shutdown.
 */
#define ARENA_RESERVE (64ull << 30)
#define ARENA_STEP ((size_t)2 << 20)

static char *arena;
static size_t arena_used, arena_mapped;

/* @n zeroed bytes, 64-byte aligned, from the engine's region (aborts when full). */
static void *eng_alloc(size_t n)
{
	void *p;

	n = (n + 63) & ~(size_t)63;
	if (arena_used + n > arena_mapped) {
		size_t want = (arena_used + n + ARENA_STEP - 1) & ~(ARENA_STEP - 1);

		if (want > ARENA_RESERVE ||
		    mprotect(arena + arena_mapped, want - arena_mapped, PROT_READ | PROT_WRITE))
			abort();
		arena_mapped = want;
	}
	p = arena + arena_used;
	arena_used += n;
	return p;
}

/* ---- event queues ---------------------------------------------------------- */

/*
 * Two binary heaps ordered by (time, tie): the CPUs' events in an indexed
 * heap (at most one entry per CPU, moved in place when the CPU's event
 * changes: no stale entries), and timers and RCU events in a plain heap
 * (stale ones dropped lazily by generation). Tie keys come from the seed's
 * stream, drawn at each push in the same order as ever; they are distinct
 * (splitmix64 is a bijection of its counter), so (time, tie) is a strict
 * total order and the next event does not depend on how it is stored.
 */
static struct event *heap;
static int heap_n, heap_cap;
/*
 * The CPU heap: entries carry their key, time << 64 | tie (one compare);
 * cpos[] is each CPU's place in it (-1: none queued); cev_time[] the time
 * of each CPU's event, still there after it is taken.
 */
__extension__ typedef unsigned __int128 evkey;
static struct cpu_ev {
	evkey key;
	int cpu;
} cheap[SIM_MAX_CPUS];
static int cheap_n, cpos[SIM_MAX_CPUS];
static uint64_t cev_time[SIM_MAX_CPUS];

static int ev_less(const struct event *a, const struct event *b)
{
	return a->time < b->time || (a->time == b->time && a->tie < b->tie);
}

static void heap_push(uint64_t time, int kind, int idx, uint32_t gen)
{
	struct event e = { time, splitmix(&rng_state), kind, idx, gen };
	int i;

	if (heap_n == heap_cap) {
		struct event *n;

		heap_cap = heap_cap ? heap_cap * 2 : 1024;
		n = eng_alloc((size_t)heap_cap * sizeof(*heap));
		if (heap_n)
			memcpy(n, heap, (size_t)heap_n * sizeof(*heap));
		heap = n;
	}
	i = heap_n++;
	while (i > 0) {
		int p = (i - 1) / 2;

		if (!ev_less(&e, &heap[p]))
			break;
		heap[i] = heap[p];
		i = p;
	}
	heap[i] = e;
}

static struct event heap_pop(void)
{
	struct event top = heap[0], last = heap[--heap_n];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= heap_n)
			break;
		if (c + 1 < heap_n && ev_less(&heap[c + 1], &heap[c]))
			c++;
		if (!ev_less(&heap[c], &last))
			break;
		heap[i] = heap[c];
		i = c;
	}
	if (heap_n)
		heap[i] = last;
	return top;
}

static uint32_t rcu_gen;	/* bumped at every GP start and end: stale ticks and FQS scans drop */

static int event_valid(const struct event *e)
{
	if (e->kind == EV_RCU_TICK || e->kind == EV_RCU_FQS)
		return e->gen == rcu_gen;
	if (e->kind == EV_IPI)
		return 1;	/* ipi_arrive() finds what is still pending */
	return e->gen == tasks[e->idx].tgen;
}

static inline evkey ev_key(uint64_t time, uint64_t tie)
{
	return (evkey)time << 64 | tie;
}

static inline void cheap_place(int i, struct cpu_ev e)
{
	cheap[i] = e;
	cpos[e.cpu] = i;
}

static void cheap_up(int i)
{
	struct cpu_ev e = cheap[i];

	while (i > 0) {
		int p = (i - 1) / 2;

		if (e.key >= cheap[p].key)
			break;
		cheap_place(i, cheap[p]);
		i = p;
	}
	cheap_place(i, e);
}

static void cheap_down(int i)
{
	struct cpu_ev e = cheap[i];

	for (;;) {
		int c = 2 * i + 1;

		if (c >= cheap_n)
			break;
		if (c + 1 < cheap_n)
			c += cheap[c + 1].key < cheap[c].key;
		if (cheap[c].key >= e.key)
			break;
		cheap_place(i, cheap[c]);
		i = c;
	}
	cheap_place(i, e);
}

static void cheap_remove(int ci)
{
	int i = cpos[ci], last;

	cpos[ci] = -1;
	if (--cheap_n == i)
		return;
	last = cheap[cheap_n].cpu;
	cheap_place(i, cheap[cheap_n]);
	cheap_up(i);
	cheap_down(cpos[last]);
}

/* Drop stale timer and RCU entries at the top so heap[0] is a real event. */
static void heap_clean(void)
{
	while (heap_n && !event_valid(&heap[0]))
		heap_pop();
}

/*
 * The earliest pending event's time (INF: none). The timer heap's top is
 * checked for staleness (a task's line: a host cache miss) only when it
 * would come first: when it does not, no event under it does either.
 */
static uint64_t heap_min(void)
{
	uint64_t t = cheap_n ? (uint64_t)(cheap[0].key >> 64) : INF;

	if (heap_n && heap[0].time < t) {
		heap_clean();
		if (heap_n && heap[0].time < t)
			t = heap[0].time;
	}
	return t;
}

/* The CPU heap's root (cheap_n > 0) comes before every valid timer and RCU event. */
static int cpu_root_next(void)
{
	if (!heap_n || cheap[0].key < ev_key(heap[0].time, heap[0].tie))
		return 1;
	heap_clean();
	return !heap_n || cheap[0].key < ev_key(heap[0].time, heap[0].tie);
}

/*
 * Take the earliest pending event if it is a CPU's: its index (its time
 * stays in cev_time[]), or -1 when a timer or RCU event comes first or none
 * is pending.
 */
static int cpu_pop_next(void)
{
	int ci;

	if (!cheap_n || !cpu_root_next())
		return -1;
	ci = cheap[0].cpu;
	cheap_remove(ci);
	return ci;
}

/* The CPU's one event is now at @t (replacing any it had). */
static void cpu_push(struct cpu *c, uint64_t t)
{
	int ci = (int)(c - cpus), i = cpos[ci];
	struct cpu_ev e = { ev_key(t, splitmix(&rng_state)), ci };

	cev_time[ci] = t;
	if (i < 0)
		i = cheap_n++;
	cheap_place(i, e);
	cheap_up(i);
	cheap_down(cpos[ci]);
}

static void cpu_cancel(struct cpu *c)
{
	if (cpos[c - cpus] >= 0)
		cheap_remove((int)(c - cpus));
}

/*
 * cpu_push(@c, its clock), then cpu_pop_next(). When the CPU heap's root
 * is the next event and @c's comes after it (a task yielding at a seam:
 * the common case), @c takes the root's place in one sift-down.
 */
static int cpu_push_pop(struct cpu *c)
{
	int ci = (int)(c - cpus), top;
	struct cpu_ev e;

	if (cpos[ci] >= 0 || !cheap_n) {
		cpu_push(c, c->clock);
		return cpu_pop_next();
	}
	e.key = ev_key(c->clock, splitmix(&rng_state));
	e.cpu = ci;
	cev_time[ci] = c->clock;
	if (e.key < cheap[0].key || !cpu_root_next()) {
		cheap_place(cheap_n++, e);
		cheap_up(cpos[ci]);
		return cpu_pop_next();
	}
	top = cheap[0].cpu;
	cpos[top] = -1;
	cheap_place(0, e);
	cheap_down(0);
	return top;
}

/* ---- coroutines ------------------------------------------------------------ */

/*
 * A task is resumed either by the scheduler loop (data NULL) or straight
 * by another task (data: that task); keep the context it came from.
 */
static void resumed(transfer_t r)
{
	if (r.data)
		((struct task *)r.data)->ctx = r.fctx;
	else
		sched_ctx = r.fctx;
}

static void to_scheduler(void)
{
	TSAN_SWITCH(sched_fiber);
	resumed(jump_fcontext(sched_ctx, running));
}

/* From the running task straight to @t (no pass through the scheduler loop). */
static void switch_to(struct task *t)
{
	struct task *self = running;

	running = t;
	sim_cur_id = t->id;
	st_switch++;
	TSAN_SWITCH(t->fiber);
	resumed(jump_fcontext(t->ctx, self));
}

static void task_exit(struct task *t);

static void task_entry(transfer_t tr)
{
	struct task *t = running;

	resumed(tr);
	t->ret = t->fn(t->arg);
	task_exit(t);
}

static void run_task(struct task *t)
{
	transfer_t r;

	running = t;
	sim_cur_id = t->id;
	st_switch++;
	TSAN_SWITCH(t->fiber);
	r = jump_fcontext(t->ctx, NULL);
	t = r.data;		/* the task that came back: maybe not the one resumed */
	t->ctx = r.fctx;
	running = NULL;
	if (t->state == T_DONE && t->stack) {
#if SIM_TSAN
		__tsan_destroy_fiber(t->fiber);
		t->fiber = NULL;
#endif
		munmap(t->stack, t->stack_size);
		t->stack = NULL;
		if (t->detached)
			t->state = T_FREE;
	}
}

/* ---- topology and costs ---------------------------------------------------- */

static double xfer_ns(int a, int b, int home)
{
	const struct place *x = &place[a], *y = &place[b];

	if (a == b)
		return 0;
	if (x->core == y->core)
		return M.c2c_smt_ns;
	if (x->l3 == y->l3)
		return M.c2c_l3_ns;
	if (x->socket == y->socket)
		return home == x->socket ? M.c2c_socket_ns : M.c2c_socket_far_home_ns;
	return M.c2c_remote_ns;
}

static uint64_t ns_round(double ns)
{
	return (uint64_t)(ns + 0.5);
}

/* ---- coherence directory --------------------------------------------------- */

static struct line **ltab;
static size_t lcap, lcount;
static char *lpool;
static size_t lpool_left, line_size;

static struct line *line_new(uintptr_t key, int home)
{
	struct line *l;

	if (lpool_left < line_size) {
		lpool_left = line_size * 4096;
		lpool = eng_alloc(lpool_left);
	}
	l = (struct line *)lpool;
	lpool += line_size;
	lpool_left -= line_size;
	l->key = key;
	l->owner = -1;
	l->home = home;
	return l;
}

static size_t lhash(uintptr_t k)
{
	k *= 0x9e3779b97f4a7c15ull;
	return (size_t)(k >> 20);
}

static void ltab_grow(void)
{
	size_t ncap = lcap ? lcap * 2 : 1 << 14;
	struct line **n = eng_alloc(ncap * sizeof(*n));

	for (size_t i = 0; i < lcap; i++)
		if (ltab[i]) {
			size_t j = lhash(ltab[i]->key) & (ncap - 1);

			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = ltab[i];
		}
	ltab = n;
	lcap = ncap;
}

static struct line *line_get(const volatile void *addr, int cpu)
{
	uintptr_t key = (uintptr_t)addr >> LINE_SHIFT;
	size_t j;

	if (lcount * 2 >= lcap)
		ltab_grow();
	j = lhash(key) & (lcap - 1);
	while (ltab[j]) {
		if (ltab[j]->key == key)
			return ltab[j];
		j = (j + 1) & (lcap - 1);
	}
	lcount++;
	return ltab[j] = line_new(key, cpus[cpu].socket);
}

static inline int sharer(const struct line *l, int c)
{
	return (l->sharers[c >> 6] >> (c & 63)) & 1;
}

static inline void sharer_set(struct line *l, int c)
{
	l->sharers[c >> 6] |= 1ull << (c & 63);
}

static void unpark(struct task *t, uint64_t when);

static void wake_watchers(struct line *l, uint64_t when)
{
	while (l->watchers)
		unpark(l->watchers->t, when);
}

/*
 * Per-CPU masks of the CPUs sharing its core, L3 domain and socket: the
 * nearest (read) or farthest (invalidate) sharer of a line is found by
 * category in O(words), not by visiting every sharer.
 */
static uint64_t *mask_core, *mask_l3, *mask_socket;

static int any_outside(const struct line *l, const uint64_t *mask, int c)
{
	for (int w = 0; w < nwords; w++) {
		uint64_t b = l->sharers[w] & ~mask[(size_t)c * nwords + w];

		if (b)
			return 1;
	}
	return 0;
}

static int any_inside(const struct line *l, const uint64_t *mask, int c)
{
	for (int w = 0; w < nwords; w++) {
		uint64_t b = l->sharers[w] & mask[(size_t)c * nwords + w];

		if (w == c >> 6)
			b &= ~(1ull << (c & 63));
		if (b)
			return 1;
	}
	return 0;
}

static int no_sharers(const struct line *l, int except)
{
	for (int w = 0; w < nwords; w++) {
		uint64_t b = l->sharers[w];

		if (w == except >> 6 && except >= 0)
			b &= ~(1ull << (except & 63));
		if (b)
			return 0;
	}
	return 1;
}

static double mem_ns(const struct line *l, int c)
{
	return l->home == cpus[c].socket ? M.mem_local_ns : M.mem_remote_ns;
}

static double socket_ns(const struct line *l, int c)
{
	return l->home == cpus[c].socket ? M.c2c_socket_ns : M.c2c_socket_far_home_ns;
}

/* Cost of bringing the line to @c for reading: the nearest holder, else memory. */
static double read_source_ns(struct line *l, int c)
{
	if (l->owner >= 0)
		return xfer_ns(c, l->owner, l->home);
	if (no_sharers(l, c))
		return mem_ns(l, c);
	if (any_inside(l, mask_core, c))
		return M.c2c_smt_ns;
	if (any_inside(l, mask_l3, c))
		return M.c2c_l3_ns;
	if (any_inside(l, mask_socket, c))
		return socket_ns(l, c);
	return M.c2c_remote_ns;
}

/* Cost of taking the line exclusive at @c: invalidate the farthest holder. */
static double own_source_ns(struct line *l, int c)
{
	if (l->owner >= 0)
		return xfer_ns(c, l->owner, l->home);
	if (no_sharers(l, -1))
		return mem_ns(l, c);
	if (any_outside(l, mask_socket, c))
		return M.c2c_remote_ns;
	if (any_outside(l, mask_l3, c))
		return socket_ns(l, c);
	if (any_outside(l, mask_core, c))
		return M.c2c_l3_ns;
	return no_sharers(l, c) ? 0 : M.c2c_smt_ns;
}

/* The engine's own store (on_cpu words): no charge, but watchers see it. */
static void line_touch_store(void *addr, int c)
{
	struct line *l = line_get(addr, c);

	memset(l->sharers, 0, (size_t)nwords * 8);
	l->owner = c;
	l->version++;
	if (l->watchers)
		wake_watchers(l, cpus[c].clock);
}

/* ---- RCU state (the grace-period machine is below, after the scheduler) ---- */

static struct {
	uint64_t completed;	/* grace periods completed */
	uint64_t requested;	/* the highest GP number someone waits for */
	int active;		/* GP number completed + 1 is in progress */
	uint64_t start;
	int owing;		/* CPUs that have not reported yet */
	int blocked;		/* tasks switched out inside a section that the GP waits for */
	int dormant;		/* every CPU idle: no ticks, no scans until one runs a task */
	uint64_t fqs_due;	/* when this GP's next FQS scan is due */
} rcu;

static void rcu_rearm(uint64_t now);

/* A context switch on @c is a quiescent state; a reader switched out blocks the GP. */
static void rcu_note_switch(struct cpu *c, struct task *t)
{
	if (!rcu.active)
		return;
	if (c->rcu_need)
		c->rcu_noted = 1;
	if (t->rcu_nest > 0 && !t->rcu_blocked) {
		t->rcu_blocked = 1;
		rcu.blocked++;
	}
}

/* ---- scheduler ------------------------------------------------------------- */

static uint64_t slice_ns(struct cpu *c)
{
	int nr = c->nrq + (c->curr != NULL);
	double lat = M.sched_latency_ns * sched_factor, gran = M.sched_min_granularity_ns * sched_factor;
	double s = nr > 0 ? lat / nr : lat;

	return ns_round(s > gran ? s : gran);
}

static void update_resched(struct cpu *c)
{
	if (!c->curr || !c->nrq) {
		c->resched_at = INF;
		return;
	}
	{
		uint64_t end = c->curr->run_start + slice_ns(c);

		if (end < c->resched_at)
			c->resched_at = end;
	}
}

static void set_oncpu(struct task *t, int v, int c)
{
	if (t->oncpu_word) {
		*t->oncpu_word = v;
		line_touch_store(t->oncpu_word, c);
	}
}

static void cpu_set_curr(struct cpu *c, struct task *t)
{
	if (c->clock < t->ready_at)
		st_wake_early++;	/* it would run before it was made runnable */
	if (rcu.dormant)
		rcu_rearm(c->clock);
	c->curr = t;
	t->cpu = (int)(c - cpus);
	t->state = T_RUN;
	t->run_start = c->clock;
	t->sn = 0;
	t->simpure = 1;
	c->resched_at = INF;
	update_resched(c);
	set_oncpu(t, 1, t->cpu);
}

static void cpu_account(struct cpu *c, struct task *t)
{
	uint64_t d = c->clock > t->run_start ? c->clock - t->run_start : 0;

	t->cpu_ns += d;
	total_cpu_ns += d;
	t->vruntime += (int64_t)d;
	t->run_start = c->clock;
	if (t->vruntime > c->min_vruntime && (!c->nrq || c->rq[0]->vruntime > c->min_vruntime))
		c->min_vruntime = c->nrq && c->rq[0]->vruntime < t->vruntime ? c->rq[0]->vruntime : t->vruntime;
}

static void rq_insert(struct cpu *c, struct task *t)
{
	int i = c->nrq++;

	while (i > 0 && (c->rq[i - 1]->vruntime > t->vruntime ||
			 (c->rq[i - 1]->vruntime == t->vruntime && c->rq[i - 1]->id > t->id))) {
		c->rq[i] = c->rq[i - 1];
		i--;
	}
	c->rq[i] = t;
	t->cpu = (int)(c - cpus);
	t->state = T_READY;
}

static struct task *rq_take(struct cpu *c, int i)
{
	struct task *t = c->rq[i];

	memmove(&c->rq[i], &c->rq[i + 1], (size_t)(c->nrq - i - 1) * sizeof(*c->rq));
	c->nrq--;
	return t;
}

static void migrate_vruntime(struct task *t, struct cpu *from, struct cpu *to)
{
	t->vruntime += to->min_vruntime - from->min_vruntime;
}

/* Newly idle balance: pull the leftmost movable task of the busiest queue. */
static struct task *steal(struct cpu *c)
{
	int best = -1, bestn = 0, me = (int)(c - cpus);

	for (int k = 1; k < ncpu; k++) {
		struct cpu *o = &cpus[(me + k) % ncpu];

		if (o->nrq > bestn) {
			for (int i = 0; i < o->nrq; i++)
				if (o->rq[i]->pin < 0) {
					best = (me + k) % ncpu;
					bestn = o->nrq;
					break;
				}
		}
	}
	if (best < 0)
		return NULL;
	for (int i = 0; i < cpus[best].nrq; i++)
		if (cpus[best].rq[i]->pin < 0) {
			struct task *t = rq_take(&cpus[best], i);

			update_resched(&cpus[best]);
			migrate_vruntime(t, &cpus[best], c);
			return t;
		}
	return NULL;
}

/* The CPU's current task has left it (blocked, slept, ended, preempted). */
static void cpu_pick_next(struct cpu *c)
{
	struct task *n = c->nrq ? rq_take(c, 0) : steal(c);

	c->curr = NULL;
	if (!n) {
		c->rcu_idle_seen = 1;	/* an extended quiescent state */
		c->resched_at = INF;
		cpu_cancel(c);
		return;
	}
	c->clock += ns_round(M.ctxsw_ns);
	cpu_set_curr(c, n);
	cpu_push(c, c->clock);
}

static void switch_out(struct task *t, enum tstate st)
{
	struct cpu *c = &cpus[t->cpu];

	rcu_note_switch(c, t);
	cpu_account(c, t);
	set_oncpu(t, 0, t->cpu);
	t->state = st;
	c->curr = NULL;
	t->ready_at = c->clock;
	if (st == T_READY)
		rq_insert(c, t);
	cpu_pick_next(c);
}

static int select_cpu(struct task *t)
{
	int prev = t->cpu;

	if (t->pin >= 0)
		return t->pin;
	if (!cpus[prev].curr)
		return prev;
	for (int pass = 0; pass < 3; pass++)
		for (int k = 1; k < ncpu; k++) {
			int o = (prev + k) % ncpu;

			if (cpus[o].curr)
				continue;
			if (pass == 0 && cpus[o].l3 != cpus[prev].l3)
				continue;
			if (pass == 1 && cpus[o].socket != cpus[prev].socket)
				continue;
			return o;
		}
	return prev;
}

static void repark_deadline(struct cpu *c);

/* Make @t runnable at @now (a futex wake, a timer). */
static void wake_task(struct task *t, uint64_t now)
{
	int ci = select_cpu(t);
	struct cpu *c = &cpus[ci], *from = &cpus[t->cpu];
	int64_t floor_vr;

	if (from != c)
		migrate_vruntime(t, from, c);
	t->ready_at = now;
	/* Sleeper credit: at most half a latency period behind min_vruntime. */
	floor_vr = c->min_vruntime - (int64_t)(M.sched_latency_ns * sched_factor / 2);
	if (t->vruntime < floor_vr)
		t->vruntime = floor_vr;
	if (!c->curr && c->in_irq) {
		rq_insert(c, t);	/* an idle CPU in a handler: picked at its exit */
		return;
	}
	if (!c->curr) {
		uint64_t at = now + ns_round(M.wakeup_ns);

		c->clock = c->clock > at ? c->clock : at;
		cpu_set_curr(c, t);
		cpu_push(c, c->clock);
		return;
	}
	rq_insert(c, t);
	{
		struct task *cur = c->curr;
		int64_t cur_vr = cur->vruntime + (int64_t)(now > cur->run_start ? now - cur->run_start : 0);

		if (cur_vr - t->vruntime > (int64_t)(M.sched_wakeup_granularity_ns * sched_factor))
			c->resched_at = now;
	}
	update_resched(c);
	/*
	 * The current task's slice may have ended long before @now, while it
	 * ran alone; the preemption it is due can come no earlier than this
	 * wake-up. (Pushing the CPU's event at the old slice end ran the woken
	 * task before the time it was woken: a CPU parked or inside a work
	 * chunk has its clock behind @now.)
	 */
	if (c->resched_at < now)
		c->resched_at = now;
	repark_deadline(c);
}

static void watch_detach(struct task *t);

/*
 * CPU @c's event (just taken) is due: its clock catches up; the task to
 * resume, if any (its interrupt context while a handler runs there).
 */
static struct task *cpu_event(struct cpu *c)
{
	struct task *t = c->in_irq ? c->irq : c->curr;
	uint64_t time = cev_time[c - cpus];

	if (time > c->clock)
		c->clock = time;
	if (t && t->state == T_PARK) {
		watch_detach(t);
		t->state = T_RUN;
	}
	return t;
}

/*
 * Leave the running task (its state, and its CPU's event if it has one,
 * already set) for the next event, as the scheduler loop would take it:
 * a CPU's event resumes that CPU's task straight from this one; a timer
 * or RCU event first, or none pending, goes through the loop. @yield: the
 * running task's CPU, queued at its clock first (cpu_push_pop).
 */
static void sched_next(struct cpu *yield)
{
	int ci = yield ? cpu_push_pop(yield) : cpu_pop_next();

	for (;;) {
		struct task *t;

		if (ci < 0) {
			to_scheduler();
			return;
		}
		t = cpu_event(&cpus[ci]);
		if (t == running)
			return;
		if (t) {
			switch_to(t);
			return;
		}
		ci = cpu_pop_next();
	}
}

/* May the scheduler switch @t out? Not an interrupt context, nor a task with interrupts off. */
static inline int preemptible(const struct task *t)
{
	return !t->is_irq && !t->irq_off;
}

/* A running task meets a seam: preempt it if due, then let earlier CPUs go first. */
static void sync_point(struct task *t)
{
	struct cpu *c = &cpus[t->cpu];

	if (c->clock >= c->resched_at && c->nrq && preemptible(t)) {
		nivcsw++;
		t->nivcsw++;
		switch_out(t, T_READY);
		sched_next(NULL);
		c = &cpus[t->cpu];
	}
	if (c->clock > heap_min())
		sched_next(c);
}

/* ---- spin parking ---------------------------------------------------------- */

static void watch_detach(struct task *t)
{
	for (int i = 0; i < t->nwatch; i++) {
		struct watch *w = &t->w[i];

		*w->pprev = w->next;
		if (w->next)
			w->next->pprev = w->pprev;
	}
	t->nwatch = 0;
}

static void unpark(struct task *t, uint64_t when)
{
	struct cpu *c = &cpus[t->cpu];

	watch_detach(t);
	t->state = T_RUN;
	st_unpark++;
	if (!c->in_irq)		/* else the handler's exit resumes it */
		cpu_push(c, c->clock > when ? c->clock : when);
}

static void repark_deadline(struct cpu *c)
{
	uint64_t d;

	if (!c->curr || c->in_irq)
		return;
	if (c->curr->state == T_PARK) {
		d = c->park_deadline;
		if (c->nrq && c->resched_at < d)
			d = c->resched_at > c->clock ? c->resched_at : c->clock;
		if (d != INF)
			cpu_push(c, d);
	} else if (c->in_work && c->nrq && c->resched_at < c->work_end) {
		/* Cut a work chunk short: the scheduler wants the CPU back. */
		cpu_push(c, c->resched_at > c->clock ? c->resched_at : c->clock);
	}
}

static void spin_reset(struct task *t)
{
	t->sn = 0;
	t->simpure = 0;
	t->sclock = 0;
	t->sov = 0;
}

void sim_relax(void)
{
	struct task *t = running;
	struct cpu *c;
	int park;

	sync_point(t);
	c = &cpus[t->cpu];
	if (t->sclock)
		t->relax_since_clock = 0;
	else if (t->relax_since_clock < SPIN_CLOCK_MEMORY)
		t->relax_since_clock++;
	park = !t->simpure && !t->sov && t->sn > 0 && t->relax_since_clock >= SPIN_CLOCK_MEMORY && !t->is_irq;
	for (int i = 0; park && i < t->sn; i++)
		if (t->w[i].l->version != t->w[i].ver)
			park = 0;
	if (park) {
		t->nwatch = t->sn;
		for (int i = 0; i < t->sn; i++) {
			struct watch *w = &t->w[i];

			w->t = t;
			w->next = w->l->watchers;
			if (w->next)
				w->next->pprev = &w->next;
			w->pprev = &w->l->watchers;
			w->l->watchers = w;
		}
		t->state = T_PARK;
		st_park++;
		c->park_deadline = c->clock + SPIN_PARK_MAX_NS;
		if (t->budget > c->clock && t->budget + 1 < c->park_deadline)
			c->park_deadline = t->budget + 1;	/* need_resched() turns true then */
		cpu_cancel(c);
		repark_deadline(c);
		sched_next(NULL);
		c = &cpus[t->cpu];
	}
	c->clock += ns_round(M.relax_ns);
	spin_reset(t);
}

/* ---- memory ---------------------------------------------------------------- */

void sim_mem(const volatile void *addr, enum sim_op op)
{
	struct task *t = running;
	struct cpu *c;
	struct line *l;
	int ci;
	uint64_t now, start;
	double x;

	st_mem++;
	sync_point(t);
	ci = t->cpu;
	c = &cpus[ci];
	now = c->clock;
	if (op == SIM_FENCE) {
		c->clock += ns_round(M.rmw_local_ns);
		return;
	}
	l = line_get(addr, ci);
	if (op == SIM_LOAD) {
		if (l->owner == ci || sharer(l, ci)) {
			c->clock = now + ns_round(M.load_local_ns);
		} else {
			start = now > l->busy_until ? now : l->busy_until;
			x = read_source_ns(l, ci);
			if (l->owner >= 0) {
				sharer_set(l, l->owner);
				l->owner = -1;
			}
			sharer_set(l, ci);
			c->clock = start + ns_round(x);
		}
		if (t->sn < SPIN_WATCH) {
			if (!t->sn || t->w[t->sn - 1].l != l) {
				int dup = 0;

				for (int i = 0; i < t->sn; i++)
					dup |= t->w[i].l == l;
				if (!dup) {
					t->w[t->sn].l = l;
					t->w[t->sn].ver = l->version;
					t->sn++;
				}
			}
		} else {
			t->sov = 1;
		}
		return;
	}
	/* SIM_STORE, SIM_RMW */
	t->simpure = 1;
	{
		double local = op == SIM_RMW ? M.rmw_local_ns : M.load_local_ns;
		int alone = l->owner == ci;

		if (!alone && l->owner < 0 && sharer(l, ci))
			alone = no_sharers(l, ci);	/* S -> M with no other copy: no transfer */
		if (alone) {
			c->clock = now + ns_round(local);
		} else {
			start = now > l->busy_until ? now : l->busy_until;
			x = own_source_ns(l, ci);
			l->busy_until = start + ns_round(x + local);
			c->clock = l->busy_until;
		}
		memset(l->sharers, 0, (size_t)nwords * 8);
		l->owner = ci;
		l->version++;
		if (l->watchers)
			wake_watchers(l, c->clock);
	}
}

/* ---- work, clocks ---------------------------------------------------------- */

static double work_frac;

void sim_work_ns(double ns)
{
	struct task *t = running;
	uint64_t rem;

	work_frac += ns;
	rem = (uint64_t)work_frac;
	work_frac -= (double)rem;
	t->simpure = 1;
	while (rem) {
		struct cpu *c;
		uint64_t start, end, irq0;
		int cut;

		sync_point(t);
		c = &cpus[t->cpu];
		start = c->clock;
		end = start + rem;
		/*
		 * The scheduler cuts the chunk at its resched point, unless
		 * sync_point() would not preempt there: an interrupt context
		 * or interrupts off run to the end (else the chunk would be
		 * cut at the same clock for ever).
		 */
		cut = c->nrq && c->resched_at < end && preemptible(t);
		if (end <= heap_min() && !cut) {
			c->clock = end;	/* nothing can happen before it ends */
			return;
		}
		c->in_work = 1;
		c->work_end = end;
		cpu_push(c, cut ? (c->resched_at > start ? c->resched_at : start) : end);
		irq0 = c->irq_ns;
		sched_next(NULL);
		c = &cpus[t->cpu];
		c->in_work = 0;
		/* Interrupt handlers that ran meanwhile did none of this work. */
		start += c->irq_ns - irq0;
		if (c->clock > start)
			rem -= c->clock - start < rem ? c->clock - start : rem;
	}
}

static int copiers[16];		/* per socket: tasks inside a bandwidth charge */

void sim_copy_bytes(size_t bytes)
{
	int s = cpus[running->cpu].socket;
	double bw = M.bw_core_gbs, share;

	copiers[s]++;
	share = M.bw_socket_gbs / copiers[s];
	if (share < bw)
		bw = share;
	sim_work_ns((double)bytes / bw);	/* GB/s = bytes/ns */
	copiers[s]--;
}

void sim_mem_traffic(size_t bytes, double floor_ns)
{
	int s = cpus[running->cpu].socket;
	double ns;

	copiers[s]++;
	ns = (double)bytes / (M.bw_socket_gbs / copiers[s]);
	sim_work_ns(ns > floor_ns ? ns : floor_ns);
	copiers[s]--;
}

uint64_t sim_now(void)
{
	struct task *t = running;

	t->sclock = 1;
	return cpus[t->cpu].clock;
}

uint64_t sim_jiffies_ns(void)
{
	uint64_t j = 1000000000ull / (uint64_t)M.hz;

	return sim_now() / j * j;
}

uint64_t sim_task_cpu_ns(void)
{
	struct task *t = running;

	return t->cpu_ns + (cpus[t->cpu].clock - t->run_start);
}

uint64_t sim_total_cpu_ns(void)
{
	uint64_t s = total_cpu_ns;

	for (int i = 0; i < ncpu; i++)
		if (cpus[i].curr)
			s += cpus[i].clock - cpus[i].curr->run_start;
	return s;
}

uint64_t sim_elapsed_ns(void)
{
	uint64_t mx = 0;

	for (int i = 0; i < ncpu; i++)
		mx = cpus[i].clock > mx ? cpus[i].clock : mx;
	return mx - 1000000000ull;
}

uint64_t sim_wake_early_count(void)
{
	return st_wake_early;
}

uint64_t sim_ctxsw_count(int voluntary)
{
	return voluntary ? nvcsw : nivcsw;
}

uint64_t sim_task_ctxsw_count(int voluntary)
{
	return voluntary ? running->nvcsw : running->nivcsw;
}

int sim_need_resched(void)
{
	struct cpu *c = &cpus[running->cpu];

	return c->nrq && c->clock >= c->resched_at;
}

int sim_need_resched_by(uint64_t deadline)
{
	struct task *t = running;

	t->budget = deadline;
	return sim_need_resched() || (deadline && cpus[t->cpu].clock > deadline);
}

int sim_task_on_cpu(int id)
{
	return tasks[id].state == T_RUN || tasks[id].state == T_PARK;
}

void sim_set_oncpu_word(int *word)
{
	running->oncpu_word = word;
	*word = 1;
}

int sim_current_cpu(void)
{
	return running->cpu;
}

const struct sim_machine *sim_machine(void)
{
	return &M;
}

uint64_t sim_seed(void)
{
	return seed0;
}

double sim_host_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - host_t0.tv_sec) + (double)(ts.tv_nsec - host_t0.tv_nsec) / 1e9;
}

/* ---- futex, sleep, yield ----------------------------------------------------- */

#define FUTEX_BUCKETS 4096
static struct task *fq[FUTEX_BUCKETS];

static size_t fbucket(const uint32_t *a)
{
	return (size_t)(((uintptr_t)a >> 2) * 0x9e3779b97f4a7c15ull >> 52) & (FUTEX_BUCKETS - 1);
}

static void futex_unqueue(struct task *t)
{
	struct task **pp = &fq[fbucket(t->faddr)];

	while (*pp && *pp != t)
		pp = &(*pp)->fnext;
	if (*pp)
		*pp = t->fnext;
	t->faddr = NULL;
}

static void block_current(struct task *t, enum tstate st, int64_t timeout_ns)
{
	struct cpu *c = &cpus[t->cpu];

	if (!preemptible(t))
		irq_bug("blocks with interrupts off or in an interrupt handler");
	t->tgen++;
	if (timeout_ns >= 0)
		heap_push(c->clock + (uint64_t)timeout_ns, EV_TIMER, t->id, t->tgen);
	nvcsw++;
	t->nvcsw++;
	switch_out(t, st);
	sched_next(NULL);
}

int sim_futex_wait(uint32_t *uaddr, uint32_t val, int64_t timeout_ns)
{
	struct task *t = running;
	struct task **pp;

	sim_work_ns(M.futex_wait_ns);
	sim_mem(uaddr, SIM_LOAD);
	spin_reset(t);
	t->simpure = 1;
	if (__atomic_load_n(uaddr, __ATOMIC_RELAXED) != val)
		return 0;
	t->faddr = uaddr;
	t->fnext = NULL;
	t->fresult = 0;
	for (pp = &fq[fbucket(uaddr)]; *pp; pp = &(*pp)->fnext)
		;
	*pp = t;
	block_current(t, T_BLOCK, timeout_ns);
	return t->fresult;
}

int sim_futex_wake(uint32_t *uaddr, int n)
{
	struct task *t = running, **pp;
	int woke = 0;

	sim_work_ns(M.futex_wake_ns);
	t->simpure = 1;
	for (pp = &fq[fbucket(uaddr)]; *pp && woke < n;) {
		struct task *w = *pp;

		if (w->faddr != uaddr) {
			pp = &w->fnext;
			continue;
		}
		*pp = w->fnext;
		w->faddr = NULL;
		w->tgen++;	/* cancel its timeout */
		wake_task(w, cpus[t->cpu].clock);
		woke++;
	}
	return woke;
}

void sim_sleep_ns(uint64_t ns)
{
	struct task *t = running;

	sim_work_ns(M.syscall_ns);
	t->simpure = 1;
	block_current(t, T_SLEEP, (int64_t)ns);
}

void sim_yield(void)
{
	struct task *t = running;
	struct cpu *c;

	sim_work_ns(M.syscall_ns);
	t->simpure = 1;
	c = &cpus[t->cpu];
	if (c->nrq && preemptible(t)) {
		/* CFS yield: go behind the queue's leftmost task. */
		if (t->vruntime <= c->rq[0]->vruntime)
			t->vruntime = c->rq[0]->vruntime + 1;
		nvcsw++;
		t->nvcsw++;
		switch_out(t, T_READY);
		sched_next(NULL);
	}
}

static void timer_fire(struct task *t, uint64_t now)
{
	if (t->state == T_BLOCK) {
		futex_unqueue(t);
		t->fresult = -ETIMEDOUT;
	} else if (t->state != T_SLEEP) {
		return;
	}
	wake_task(t, now);
}


/* ---- RCU: grace periods from quiescent states ---------------------------------- */

/*
 * In outline as tree RCU (kernel/rcu/tree.c, tree_plugin.h; preemptible
 * flavour): a grace period (GP) ends once every CPU has reported a
 * quiescent state (QS) after its start and every task switched out inside
 * a read-side section has left it. A CPU notes a QS at a context switch; a
 * scheduler tick (aligned across CPUs, every 1/HZ) reports it, or reports
 * one itself when the CPU's task is outside a section (a tick inside one
 * makes the outermost unlock note it). An idle CPU's tick keeps running
 * while a GP it asked for (synchronize_rcu, call_rcu) is pending, as
 * rcu_needs_cpu() keeps it, and reports its idle QS; other idle CPUs are in
 * an extended QS that the GP kthread's force-quiescent-state scans report, jiffies_till_first_fqs
 * after the start and every jiffies_till_next_fqs after that (both
 * RCU_JIFFIES_TILL_FORCE_QS + nr_cpu_ids / RCU_JIFFIES_FQS_DIV jiffies).
 * The last blocked reader's unlock reports at once. Not modelled: the tick
 * on which a CPU first notices a new GP (the kernel may need a second
 * tick), the GP kthread's own wake-up and run time, callback batching.
 */
static uint64_t jiffy_ns(void)
{
	return 1000000000ull / (uint64_t)M.hz;
}

static uint64_t fqs_ns(void)
{
	return (uint64_t)(1 + (M.hz > 250) + (M.hz > 500) + ncpu / 256) * jiffy_ns();
}

static void rcu_rearm(uint64_t now)
{
	uint64_t j = jiffy_ns();

	rcu.dormant = 0;
	rcu_gen++;
	heap_push((now / j + 1) * j, EV_RCU_TICK, 0, rcu_gen);
	/*
	 * A task waking does not postpone the scan already due (the kernel's
	 * FQS timer runs on): re-arming it at now + interval every time let a
	 * task that wakes more often than that (a 1 ms sleeper at HZ 1000)
	 * cancel every scan, so idle CPUs were never reported.
	 */
	if (rcu.fqs_due <= now)
		rcu.fqs_due = now + fqs_ns();
	heap_push(rcu.fqs_due, EV_RCU_FQS, 0, rcu_gen);
}

static int rcu_ticking(const struct cpu *c)
{
	return c->curr || c->rcu_cb_seq > rcu.completed;
}

/*
 * No CPU runs a task: after this tick or scan nothing can report a quiescent
 * state until a task runs again (cpu_set_curr() re-arms them), so stop the
 * events; a GP held by a reader that never runs again is then a simulated
 * deadlock, reported, not an endless stream of ticks.
 */
static int rcu_all_idle(void)
{
	for (int i = 0; i < ncpu; i++)
		if (cpus[i].curr)
			return 0;
	return 1;
}

static void rcu_gp_start(uint64_t now)
{
	rcu.active = 1;
	rcu.start = now;
	rcu.owing = ncpu;
	rcu.fqs_due = 0;	/* the first scan comes a full interval after the start */
	for (int i = 0; i < ncpu; i++) {
		struct cpu *c = &cpus[i];

		c->rcu_need = 1;
		c->rcu_noted = c->rcu_unlock_qs = 0;
		c->rcu_idle_seen = !c->curr;
	}
	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		struct task *t = &tasks[i];

		if (t->rcu_nest > 0 && t->state != T_RUN && t->state != T_PARK && !t->rcu_blocked) {
			t->rcu_blocked = 1;
			rcu.blocked++;
		}
	}
	rcu_rearm(now);
}

static void rcu_gp_end(uint64_t now)
{
	rcu.active = 0;
	rcu.dormant = 0;
	rcu.completed++;
	rcu_gen++;
	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		struct task *t = &tasks[i];

		if (t->state == T_BLOCK && t->rcu_wait_seq && t->rcu_wait_seq <= rcu.completed) {
			t->rcu_wait_seq = 0;
			wake_task(t, now);
		}
	}
	if (rcu.requested > rcu.completed)
		rcu_gp_start(now);
}

static void rcu_try_end(uint64_t now)
{
	if (rcu.active && !rcu.owing && !rcu.blocked)
		rcu_gp_end(now);
}

static void rcu_report(struct cpu *c)
{
	c->rcu_need = 0;
	rcu.owing--;
}

static void rcu_tick(uint64_t now)
{
	for (int i = 0; i < ncpu; i++) {
		struct cpu *c = &cpus[i];

		if (!c->rcu_need || !rcu_ticking(c))
			continue;	/* reported, or idle without a tick: the FQS scan's */
		if (!c->curr || c->rcu_noted || c->curr->rcu_nest == 0)
			rcu_report(c);
		else
			c->rcu_unlock_qs = 1;
	}
	rcu_try_end(now);
	if (rcu.active && rcu_all_idle())
		rcu.dormant = 1;
	else if (rcu.active)
		heap_push(now + jiffy_ns(), EV_RCU_TICK, 0, rcu_gen);
}

static void rcu_fqs(uint64_t now)
{
	for (int i = 0; i < ncpu; i++) {
		struct cpu *c = &cpus[i];

		if (c->rcu_need && (!c->curr || c->rcu_idle_seen))
			rcu_report(c);
	}
	rcu_try_end(now);
	if (rcu.active && rcu_all_idle())
		rcu.dormant = 1;
	else if (rcu.active)
		heap_push(rcu.fqs_due = now + fqs_ns(), EV_RCU_FQS, 0, rcu_gen);
}

void sim_rcu_read_lock(void)
{
	sync_point(running);
	running->rcu_nest++;
}

void sim_rcu_read_unlock(void)
{
	struct task *t = running;
	struct cpu *c;

	sync_point(t);
	c = &cpus[t->cpu];
	if (--t->rcu_nest > 0)
		return;
	if (c->rcu_unlock_qs) {
		c->rcu_unlock_qs = 0;
		c->rcu_noted = 1;
	}
	if (t->rcu_blocked) {
		t->rcu_blocked = 0;
		rcu.blocked--;
		rcu_try_end(c->clock);
	}
}

int sim_rcu_read_depth(void)
{
	return running->rcu_nest;
}

uint64_t sim_rcu_gp_request(void)
{
	uint64_t need;

	sync_point(running);
	need = rcu.completed + 1 + (uint64_t)rcu.active;
	if (need > rcu.requested)
		rcu.requested = need;
	cpus[running->cpu].rcu_cb_seq = need;
	if (!rcu.active)
		rcu_gp_start(cpus[running->cpu].clock);
	return need;
}

uint64_t sim_rcu_gp_completed(void)
{
	return rcu.completed;
}

void sim_rcu_gp_wait(uint64_t seq)
{
	struct task *t = running;

	sync_point(t);
	t->simpure = 1;
	if (rcu.completed >= seq)
		return;
	t->rcu_wait_seq = seq;
	block_current(t, T_BLOCK, -1);
}

/* ---- tasks ------------------------------------------------------------------ */

static void (*exit_hook)(int id);
static int detach_next;

int sim_spawn_detached(void *(*fn)(void *), void *arg)
{
	detach_next = 1;
	return sim_spawn(fn, arg);
}

void sim_delay_relax(unsigned long loops)
{
	/* +-1% jitter from the seed: PAUSE latency is not a constant */
	double j = 1.0 + ((double)(splitmix(&rng_state) >> 11) / 9007199254740992.0 - 0.5) * 0.02;

	sim_work_ns((double)loops * M.relax_ns * j);
}

/*
 * How far below the top of its mapping at @base a stack starts (under
 * 24 KiB). Every stack is its own mapping, 256 KiB apart, so at one offset
 * the frames the tasks are suspended in would all fall in the same host
 * cache sets (perf, 384 tasks: jump_fcontext, where a resumed stack is
 * first touched, fell from 21% to 14% of host time). Whole lines, so objects on
 * a simulated stack keep their line boundaries; a function of the mapping's
 * address, not the task, so that a task whose stack reuses an ended task's
 * mapping meets the lines that task left in the directory at the same
 * offsets as it would without the colour.
 */
static size_t stack_colour(const void *base)
{
	return (size_t)(((uintptr_t)base >> 18) % 128) * 192;
}

static int task_alloc(void *(*fn)(void *), void *arg, size_t stack)
{
	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		struct task *t = &tasks[i];

		if (t->state != T_FREE)
			continue;
		memset(t, 0, sizeof(*t));
		t->id = i;
		t->fn = fn;
		t->arg = arg;
		t->pin = -1;
		t->joiner = -1;
		t->relax_since_clock = SPIN_CLOCK_MEMORY;
		t->budget = 0;
		t->stack_size = stack;
		t->stack = mmap(NULL, stack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0);
		if (t->stack == MAP_FAILED)
			return -1;
		t->ctx = make_fcontext((char *)t->stack + stack - stack_colour(t->stack),
				       stack - stack_colour(t->stack), task_entry);
#if SIM_TSAN
		t->fiber = __tsan_create_fiber(0);
#endif
		live_tasks++;
		return i;
	}
	return -1;
}

int sim_spawn(void *(*fn)(void *), void *arg)
{
	struct task *p = running;
	int id, detached = detach_next;

	/* Charged first: the charge may yield, and another spawner must not take the same free slot. */
	detach_next = 0;
	sim_work_ns(M.syscall_ns);
	id = task_alloc(fn, arg, STACK_SIZE);
	if (id < 0)
		return -1;
	tasks[id].detached = detached;
	tasks[id].cpu = p->cpu;
	/* clone() inherits the CPU affinity; detached tasks are the engine's helpers (RCU callbacks). */
	tasks[id].pin = tasks[id].detached ? -1 : p->pin;
	tasks[id].vruntime = cpus[p->cpu].min_vruntime;
	tasks[id].state = T_SLEEP;
	wake_task(&tasks[id], cpus[p->cpu].clock);
	return id;
}

void *sim_join(int id)
{
	struct task *t = &tasks[id], *me = running;
	void *r;

	while (t->state != T_DONE) {
		t->joiner = me->id;
		me->tgen++;
		nvcsw++;
		me->nvcsw++;
		switch_out(me, T_SLEEP);
		sched_next(NULL);
	}
	r = t->ret;
	t->state = T_FREE;
	return r;
}

int sim_pin(int cpu)
{
	struct task *t = running;

	if (cpu >= ncpu)
		return -1;
	t->pin = cpu;
	if (cpu >= 0 && t->cpu != cpu) {
		/* Migrate now: leave this CPU, queue on the pinned one. */
		struct cpu *from = &cpus[t->cpu];

		rcu_note_switch(from, t);
		cpu_account(from, t);
		set_oncpu(t, 0, t->cpu);
		from->curr = NULL;
		t->state = T_SLEEP;
		cpu_pick_next(from);
		wake_task(t, from->clock);
		sched_next(NULL);
	}
	return 0;
}


void sim_set_exit_hook(void (*fn)(int id))
{
	exit_hook = fn;
}

static void task_exit(struct task *t)
{
	struct cpu *c = &cpus[t->cpu];

	if (exit_hook)
		exit_hook(t->id);
	rcu_note_switch(c, t);
	cpu_account(c, t);
	set_oncpu(t, 0, t->cpu);
	t->state = T_DONE;
	live_tasks--;
	c->curr = NULL;
	cpu_pick_next(c);
	if (t->joiner >= 0 && tasks[t->joiner].state == T_SLEEP)
		wake_task(&tasks[t->joiner], c->clock);
	to_scheduler();
	abort();	/* never resumed */
}

/* ---- interrupts: IPIs ------------------------------------------------ */

/*
 * An IPI as the x86 kernel's smp_call_function_many() sends it: the sender
 * queues a request on the target's call_single_queue (an RMW on that line:
 * llist_add) and signals the target's APIC; the interrupt arrives
 * cost.ipi_ns later. The target CPU then takes it at once, whatever runs
 * there (a task mid-work, a parked spinner, nothing): it spends
 * cost.irq_ns on interrupt entry and exit, takes the whole queue (an RMW on
 * the same line: llist_del_all) and runs every handler that has arrived, in
 * its interrupt context (a per-CPU engine task), then resumes the task it
 * interrupted. That task stays current meanwhile: no context switch is
 * charged or counted, on_cpu stays 1, and a work chunk it was in takes the
 * handler's time on top. A task with interrupts off (sim_irq_disable) gets
 * the IPI when it turns them on again, and is never preempted meanwhile.
 * The sender does not wait here: native code that waits (the kernel's
 * wait=1) spins on its request's flag, as the kernel's csd_lock_wait() does.
 * Not modelled: the APIC's ICR write cost (no published figure; the send
 * costs the sender only the queue RMW), x2APIC cluster multicast.
 */
struct sim_ipi {
	uint64_t at;
	void (*fn)(void *);
	void *arg;
	struct sim_ipi *next;
};

struct sim_csq {
	uint64_t head;		/* stands for the kernel's per-CPU call_single_queue */
} __attribute__((aligned(64)));

static struct sim_csq *csq;
static struct sim_ipi *ipi_pool;
static uint64_t st_ipi_sent, st_ipi_handled, st_ipi_local, st_ipi_busy, st_ipi_deferred;

static void irq_bug(const char *what)
{
	fprintf(stderr, "rwlab-sim: task %d %s\n", running ? running->id : -1, what);
	abort();
}

static void irq_exit(struct cpu *c)
{
	struct task *p = c->curr;

	c->in_irq = 0;
	c->in_work = c->saved_in_work;
	c->work_end = c->saved_work_end;
	c->irq_ns += c->clock - c->irq_t0;
	if (!p) {
		if (c->nrq)
			cpu_pick_next(c);	/* a task woken onto this idle CPU meanwhile */
		else
			cpu_cancel(c);
		return;
	}
	if (p->state == T_PARK) {
		cpu_cancel(c);
		repark_deadline(c);
	} else {
		cpu_push(c, c->clock);	/* resume it: a work chunk deducts the handler's time */
	}
}

/* The interrupt context of CPU @arg: runs every arrived handler, then gives the CPU back. */
static void *irq_main(void *arg)
{
	struct cpu *c = arg;
	int ci = (int)(c - cpus);

	for (;;) {
		sim_work_ns(M.irq_ns);
		while (c->ipi_head && c->ipi_head->at <= c->clock) {
			sim_mem(&csq[ci].head, SIM_RMW);	/* llist_del_all */
			while (c->ipi_head && c->ipi_head->at <= c->clock) {
				struct sim_ipi *q = c->ipi_head;

				c->ipi_head = q->next;
				q->fn(q->arg);
				st_ipi_handled++;
				q->next = ipi_pool;
				ipi_pool = q;
			}
		}
		irq_exit(c);
		to_scheduler();
	}
	return NULL;
}

/* Enter CPU @c's interrupt context at its clock; the caller returns to the scheduler. */
static void irq_enter(struct cpu *c)
{
	if (!c->irq) {
		int id = task_alloc(irq_main, c, STACK_SIZE);

		if (id < 0)
			irq_bug("finds no task slot for an interrupt context");
		live_tasks--;		/* never ends; not a task of the run */
		c->irq = &tasks[id];
		c->irq->is_irq = 1;
		c->irq->detached = 1;
		c->irq->cpu = c->irq->pin = (int)(c - cpus);
	}
	st_ipi_busy += c->curr != NULL;
	c->in_irq = 1;
	c->irq->state = T_RUN;
	c->irq_t0 = c->clock;
	c->saved_in_work = c->in_work;
	c->saved_work_end = c->work_end;
	c->in_work = 0;
	cpu_push(c, c->clock);	/* cancels the interrupted task's event */
}

/* EV_IPI: an IPI reaches CPU @c at @when. */
static void ipi_arrive(struct cpu *c, uint64_t when)
{
	if (c->in_irq || !c->ipi_head || c->ipi_head->at > when)
		return;		/* being handled, or handled already */
	if (c->curr && c->curr->irq_off) {
		st_ipi_deferred++;
		return;		/* sim_irq_enable() takes it */
	}
	if (c->clock < when)
		c->clock = when;
	irq_enter(c);
}

void sim_ipi_send(int cpu, void (*fn)(void *), void *arg)
{
	struct task *t = running;
	struct cpu *c = &cpus[cpu];
	struct sim_ipi *q, **pp;

	if (cpu == t->cpu) {
		/* Two CPU slots on one simulated CPU: the handler runs here at once. */
		st_ipi_local++;
		fn(arg);
		return;
	}
	sim_mem(&csq[cpu].head, SIM_RMW);	/* llist_add on the target's queue */
	q = ipi_pool;
	if (q)
		ipi_pool = q->next;
	else
		q = eng_alloc(sizeof(*q));
	q->at = cpus[t->cpu].clock + ns_round(M.ipi_ns);
	q->fn = fn;
	q->arg = arg;
	for (pp = &c->ipi_head; *pp && (*pp)->at <= q->at; pp = &(*pp)->next)
		;
	q->next = *pp;
	*pp = q;
	st_ipi_sent++;
	heap_push(q->at, EV_IPI, cpu, 0);
}

void sim_irq_disable(void)
{
	running->irq_off++;
}

void sim_irq_enable(void)
{
	struct task *t = running;
	struct cpu *c = &cpus[t->cpu];

	if (--t->irq_off || c->in_irq || !c->ipi_head || c->ipi_head->at > c->clock)
		return;
	irq_enter(c);		/* what arrived while they were off */
	to_scheduler();
}

void sim_ipi_stats(uint64_t *sent, uint64_t *handled, uint64_t *interrupted, uint64_t *deferred)
{
	*sent = st_ipi_sent;
	*handled = st_ipi_handled;
	*interrupted = st_ipi_busy;
	*deferred = st_ipi_deferred;
}

int sim_task_cpu(int id)
{
	return tasks[id].cpu;
}

/* ---- boot and run ------------------------------------------------------------- */

static uint64_t boot_count;

uint64_t sim_boot_count(void)
{
	return boot_count;
}

int sim_boot(const struct sim_machine *m, uint64_t seed)
{
	boot_count++;
	M = *m;
	ncpu = m->ncpus;
	nwords = (ncpu + 63) / 64;
	sched_factor = sim_machine_sched_factor(m);
	seed0 = seed;
	rng_state = seed * 0x2545f4914f6cdd1dull + 0x632be59bd9b4e019ull;
	line_size = (sizeof(struct line) + (size_t)nwords * 8 + 15) & ~(size_t)15;
	arena = mmap(NULL, ARENA_RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (arena == MAP_FAILED) {
		arena = NULL;
		return -1;
	}
	cheap_n = 0;
	arena_used = arena_mapped = 0;
	cpus = eng_alloc((size_t)ncpu * sizeof(*cpus));
	for (int i = 0; i < ncpu; i++) {
		struct sim_cpu_place p;

		sim_machine_place(m, i, &p);
		cpus[i].socket = p.socket;
		cpus[i].l3 = p.l3;
		cpus[i].core = p.core;
		place[i] = (struct place){ p.core, p.l3, p.socket };
		cpus[i].resched_at = INF;
		cpus[i].clock = 1000000000ull;	/* CLOCK_MONOTONIC starts at 1 s */
		cpos[i] = -1;
		cpus[i].rq = eng_alloc(SIM_MAX_TASKS * sizeof(*cpus[i].rq));
	}
	mask_core = eng_alloc((size_t)ncpu * (size_t)nwords * 8);
	mask_l3 = eng_alloc((size_t)ncpu * (size_t)nwords * 8);
	mask_socket = eng_alloc((size_t)ncpu * (size_t)nwords * 8);
	for (int a = 0; a < ncpu; a++)
		for (int b = 0; b < ncpu; b++) {
			struct cpu *x = &cpus[a], *y = &cpus[b];
			uint64_t bit = 1ull << (b & 63);
			size_t w = (size_t)a * nwords + (size_t)(b >> 6);

			if (x->core == y->core)
				mask_core[w] |= bit;
			if (x->l3 == y->l3)
				mask_l3[w] |= bit;
			if (x->socket == y->socket)
				mask_socket[w] |= bit;
		}
	memset(tasks, 0, sizeof(tasks));
	memset(fq, 0, sizeof(fq));
	csq = eng_alloc((size_t)ncpu * sizeof(*csq));
	st_ipi_sent = st_ipi_handled = st_ipi_local = st_ipi_busy = st_ipi_deferred = 0;
	heap_n = 0;
	live_tasks = 0;
	total_cpu_ns = nvcsw = nivcsw = 0;
	st_wake_early = 0;
	memset(&rcu, 0, sizeof(rcu));
	rcu_gen++;
	work_frac = 0;
	deadlock = 0;
	clock_gettime(CLOCK_MONOTONIC, &host_t0);
	return 0;
}

struct main_arg {
	int (*fn)(int, char **);
	int argc;
	char **argv;
	int ret;
};

static void *main_task(void *p)
{
	struct main_arg *a = p;

	a->ret = a->fn(a->argc, a->argv);
	return NULL;
}

static void print_deadlock(void)
{
	int n = 0;

	fprintf(stderr, "rwlab-sim: simulated deadlock at t=%.6f s (seed %llu): every task blocked, no event pending;",
		(double)cpus[0].clock / 1e9, (unsigned long long)seed0);
	for (int i = 0; i < SIM_MAX_TASKS && n < 8; i++)
		if (tasks[i].state == T_BLOCK || tasks[i].state == T_SLEEP || tasks[i].state == T_PARK) {
			fprintf(stderr, " task %d %s", i, tasks[i].state == T_BLOCK ? "futex" :
				tasks[i].state == T_PARK ? "spinning" : "join");
			n++;
		}
	fprintf(stderr, "\n");
	if (getenv("RWLAB_SIM_DEBUG"))
		for (int i = 0; i < SIM_MAX_TASKS; i++)
			if (tasks[i].state != T_FREE && tasks[i].state != T_DONE)
			{
				fprintf(stderr, "rwlab-sim: task %d state %d cpu %d futex %p oncpu %p watches", i,
					(int)tasks[i].state, tasks[i].cpu, (void *)tasks[i].faddr,
					(void *)tasks[i].oncpu_word);
				for (int k = 0; k < tasks[i].nwatch; k++)
					fprintf(stderr, " %#lx", (unsigned long)(tasks[i].w[k].l->key << LINE_SHIFT));
				fprintf(stderr, "\n");
			}
}

int sim_run(int (*fn)(int, char **), int argc, char **argv)
{
	struct main_arg a = { fn, argc, argv, 0 };
	int id = task_alloc(main_task, &a, MAIN_STACK_SIZE);

	if (id < 0)
		return 1;
	tasks[id].detached = 1;
#if SIM_TSAN
	sched_fiber = __tsan_get_current_fiber();
#endif
	sim_active = 1;
	cpu_set_curr(&cpus[0], &tasks[id]);
	cpu_push(&cpus[0], cpus[0].clock);
	while (tasks[id].state != T_FREE) {
		struct event e;
		int ci;

		if (heap_min() == INF) {
			deadlock = 1;
			print_deadlock();
			a.ret = 99;
			break;
		}
		ci = cpu_pop_next();
		if (ci >= 0) {
			struct task *t = cpu_event(&cpus[ci]);

			if (t)
				run_task(t);
			continue;
		}
		heap_clean();
		e = heap_pop();
		if (e.kind == EV_TIMER) {
			timer_fire(&tasks[e.idx], e.time);
			continue;
		}
		if (e.kind == EV_IPI) {
			ipi_arrive(&cpus[e.idx], e.time);
			continue;
		}
		if (e.kind == EV_RCU_TICK || e.kind == EV_RCU_FQS) {
			if (e.kind == EV_RCU_TICK)
				rcu_tick(e.time);
			else
				rcu_fqs(e.time);
			continue;
		}
	}
	sim_active = 0;
	return a.ret;
}

void sim_shutdown(void)
{
	const char *s = getenv("RWLAB_SIM_STATS");

	if (s && *s == '1')
		fprintf(stderr, "rwlab-sim stats: %.3f s virtual (cpu 0), %.3f s host; %llu accesses, %llu task switches, "
			"%llu parks, %llu line-change wakes; %llu lines\n", (double)(cpus[0].clock - 1000000000ull) / 1e9,
			sim_host_seconds(), (unsigned long long)st_mem, (unsigned long long)st_switch,
			(unsigned long long)st_park, (unsigned long long)st_unpark, (unsigned long long)lcount);
	if (s && *s == '1' && st_ipi_sent + st_ipi_local)
		fprintf(stderr, "rwlab-sim stats: %llu IPIs sent, %llu handled, %llu on a busy CPU, %llu deferred, "
			"%llu run by the sender (same CPU)\n", (unsigned long long)st_ipi_sent,
			(unsigned long long)st_ipi_handled, (unsigned long long)st_ipi_busy,
			(unsigned long long)st_ipi_deferred, (unsigned long long)st_ipi_local);
	st_mem = st_switch = st_park = st_unpark = st_work = 0;
	for (int i = 0; i < SIM_MAX_TASKS; i++)
		if (tasks[i].stack) {
#if SIM_TSAN
			__tsan_destroy_fiber(tasks[i].fiber);
#endif
			munmap(tasks[i].stack, tasks[i].stack_size);
			tasks[i].stack = NULL;
		}
	ipi_pool = NULL;
	csq = NULL;
	if (arena)
		munmap(arena, ARENA_RESERVE);
	arena = NULL;
	arena_used = arena_mapped = 0;
	ltab = NULL;
	lcap = lcount = 0;
	lpool_left = 0;
	heap = NULL;
	cheap_n = 0;
	heap_n = heap_cap = 0;
	cpus = NULL;
	mask_core = mask_l3 = mask_socket = NULL;
}
