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

#include "engine.h"

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
#define TSAN_SWITCH(f) __tsan_switch_to_fiber((f), 0)
#else
#define TSAN_SWITCH(f) ((void)0)
#endif


int sim_active;
int sim_cur_id;

static void irq_bug(const char *what);
static void ipi_arrive(struct cpu *c, uint64_t when);


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
	return splitmix(&eng.rng);
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

/* @n zeroed bytes, 64-byte aligned, from the engine's region (aborts when full). */
static void *eng_alloc(size_t n)
{
	void *p;

	n = (n + 63) & ~(size_t)63;
	if (eng.arena.used + n > eng.arena.mapped) {
		size_t want = (eng.arena.used + n + ARENA_STEP - 1) & ~(ARENA_STEP - 1);

		if (want > ARENA_RESERVE ||
		    mprotect(eng.arena.base + eng.arena.mapped, want - eng.arena.mapped, PROT_READ | PROT_WRITE))
			abort();
		eng.arena.mapped = want;
	}
	p = eng.arena.base + eng.arena.used;
	eng.arena.used += n;
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

static int ev_less(const struct event *a, const struct event *b)
{
	return a->time < b->time || (a->time == b->time && a->tie < b->tie);
}

static void heap_push(uint64_t time, int kind, int idx, uint32_t gen)
{
	struct event e = { time, splitmix(&eng.rng), kind, idx, gen };
	int i;

	if (eng.ev.heap_n == eng.ev.heap_cap) {
		struct event *n;

		eng.ev.heap_cap = eng.ev.heap_cap ? eng.ev.heap_cap * 2 : 1024;
		n = eng_alloc((size_t)eng.ev.heap_cap * sizeof(*eng.ev.heap));
		if (eng.ev.heap_n)
			memcpy(n, eng.ev.heap, (size_t)eng.ev.heap_n * sizeof(*eng.ev.heap));
		eng.ev.heap = n;
	}
	i = eng.ev.heap_n++;
	while (i > 0) {
		int p = (i - 1) / 2;

		if (!ev_less(&e, &eng.ev.heap[p]))
			break;
		eng.ev.heap[i] = eng.ev.heap[p];
		i = p;
	}
	eng.ev.heap[i] = e;
}

static struct event heap_pop(void)
{
	struct event top = eng.ev.heap[0], last = eng.ev.heap[--eng.ev.heap_n];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= eng.ev.heap_n)
			break;
		if (c + 1 < eng.ev.heap_n && ev_less(&eng.ev.heap[c + 1], &eng.ev.heap[c]))
			c++;
		if (!ev_less(&eng.ev.heap[c], &last))
			break;
		eng.ev.heap[i] = eng.ev.heap[c];
		i = c;
	}
	if (eng.ev.heap_n)
		eng.ev.heap[i] = last;
	return top;
}


static int event_valid(const struct event *e)
{
	if (e->kind == EV_RCU_TICK || e->kind == EV_RCU_FQS)
		return e->gen == eng.rcu.gen;
	if (e->kind == EV_IPI)
		return 1;	/* ipi_arrive() finds what is still pending */
	return e->gen == eng.tasks[e->idx].tgen;
}

static inline evkey ev_key(uint64_t time, uint64_t tie)
{
	return (evkey)time << 64 | tie;
}

/*
 * The sift functions index the heap and cpos[] from local pointers: with
 * the arrays inside struct engine, GCC otherwise re-derives each element's
 * address from the struct's (one more instruction per step of the engine's
 * hottest loop, measured).
 */
static inline void cheap_place(int i, struct cpu_ev e)
{
	eng.ev.cheap[i] = e;
	eng.ev.cpos[e.cpu] = i;
}

static void cheap_up(int i)
{
	struct cpu_ev *h = eng.ev.cheap, e = h[i];
	int *pos = eng.ev.cpos;

	while (i > 0) {
		int p = (i - 1) / 2;

		if (e.key >= h[p].key)
			break;
		h[i] = h[p];
		pos[h[i].cpu] = i;
		i = p;
	}
	h[i] = e;
	pos[e.cpu] = i;
}

static void cheap_down(int i)
{
	struct cpu_ev *h = eng.ev.cheap, e = h[i];
	int *pos = eng.ev.cpos, n = eng.ev.cheap_n;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n)
			c += h[c + 1].key < h[c].key;
		if (h[c].key >= e.key)
			break;
		h[i] = h[c];
		pos[h[i].cpu] = i;
		i = c;
	}
	h[i] = e;
	pos[e.cpu] = i;
}

static void cheap_remove(int ci)
{
	int i = eng.ev.cpos[ci], last;

	eng.ev.cpos[ci] = -1;
	if (--eng.ev.cheap_n == i)
		return;
	last = eng.ev.cheap[eng.ev.cheap_n].cpu;
	cheap_place(i, eng.ev.cheap[eng.ev.cheap_n]);
	cheap_up(i);
	cheap_down(eng.ev.cpos[last]);
}

/* Drop stale timer and RCU entries at the top so heap[0] is a real event. */
static void heap_clean(void)
{
	while (eng.ev.heap_n && !event_valid(&eng.ev.heap[0]))
		heap_pop();
}

/*
 * The earliest pending event's time (INF: none). The timer heap's top is
 * checked for staleness (a task's line: a host cache miss) only when it
 * would come first: when it does not, no event under it does either.
 */
static uint64_t heap_min(void)
{
	uint64_t t = eng.ev.cheap_n ? (uint64_t)(eng.ev.cheap[0].key >> 64) : INF;

	if (eng.ev.heap_n && eng.ev.heap[0].time < t) {
		heap_clean();
		if (eng.ev.heap_n && eng.ev.heap[0].time < t)
			t = eng.ev.heap[0].time;
	}
	return t;
}

/* The CPU heap's root (cheap_n > 0) comes before every valid timer and RCU event. */
static int cpu_root_next(void)
{
	if (!eng.ev.heap_n || eng.ev.cheap[0].key < ev_key(eng.ev.heap[0].time, eng.ev.heap[0].tie))
		return 1;
	heap_clean();
	return !eng.ev.heap_n || eng.ev.cheap[0].key < ev_key(eng.ev.heap[0].time, eng.ev.heap[0].tie);
}

/*
 * Take the earliest pending event if it is a CPU's: its index (its time
 * stays in cev_time[]), or -1 when a timer or RCU event comes first or none
 * is pending.
 */
static int cpu_pop_next(void)
{
	int ci;

	if (!eng.ev.cheap_n || !cpu_root_next())
		return -1;
	ci = eng.ev.cheap[0].cpu;
	cheap_remove(ci);
	return ci;
}

/* The CPU's one event is now at @t (replacing any it had). */
static void cpu_push(struct cpu *c, uint64_t t)
{
	int ci = (int)(c - eng.cpus), i = eng.ev.cpos[ci];
	struct cpu_ev e = { ev_key(t, splitmix(&eng.rng)), ci };

	eng.ev.cev_time[ci] = t;
	if (i < 0)
		i = eng.ev.cheap_n++;
	cheap_place(i, e);
	cheap_up(i);
	cheap_down(eng.ev.cpos[ci]);
}

static void cpu_cancel(struct cpu *c)
{
	if (eng.ev.cpos[c - eng.cpus] >= 0)
		cheap_remove((int)(c - eng.cpus));
}

/*
 * cpu_push(@c, its clock), then cpu_pop_next(). When the CPU heap's root
 * is the next event and @c's comes after it (a task yielding at a seam:
 * the common case), @c takes the root's place in one sift-down.
 */
static int cpu_push_pop(struct cpu *c)
{
	int ci = (int)(c - eng.cpus), top;
	struct cpu_ev e;

	if (eng.ev.cpos[ci] >= 0 || !eng.ev.cheap_n) {
		cpu_push(c, c->clock);
		return cpu_pop_next();
	}
	e.key = ev_key(c->clock, splitmix(&eng.rng));
	e.cpu = ci;
	eng.ev.cev_time[ci] = c->clock;
	if (e.key < eng.ev.cheap[0].key || !cpu_root_next()) {
		cheap_place(eng.ev.cheap_n++, e);
		cheap_up(eng.ev.cpos[ci]);
		return cpu_pop_next();
	}
	top = eng.ev.cheap[0].cpu;
	eng.ev.cpos[top] = -1;
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
		eng.sched_ctx = r.fctx;
}

static void to_scheduler(void)
{
	TSAN_SWITCH(eng.sched_fiber);
	resumed(jump_fcontext(eng.sched_ctx, eng.running));
}

/* From the running task straight to @t (no pass through the scheduler loop). */
static void switch_to(struct task *t)
{
	struct task *self = eng.running;

	eng.running = t;
	sim_cur_id = t->id;
	eng.st.switches++;
	TSAN_SWITCH(t->fiber);
	resumed(jump_fcontext(t->ctx, self));
}

static void task_exit(struct task *t);

static void task_entry(transfer_t tr)
{
	struct task *t = eng.running;

	resumed(tr);
	t->ret = t->fn(t->arg);
	task_exit(t);
}

static void run_task(struct task *t)
{
	transfer_t r;

	eng.running = t;
	sim_cur_id = t->id;
	eng.st.switches++;
	TSAN_SWITCH(t->fiber);
	r = jump_fcontext(t->ctx, NULL);
	t = r.data;		/* the task that came back: maybe not the one resumed */
	t->ctx = r.fctx;
	eng.running = NULL;
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
	const struct place *x = &eng.place[a], *y = &eng.place[b];

	if (a == b)
		return 0;
	if (x->core == y->core)
		return eng.m.c2c_smt_ns;
	if (x->l3 == y->l3)
		return eng.m.c2c_l3_ns;
	if (x->socket == y->socket)
		return home == x->socket ? eng.m.c2c_socket_ns : eng.m.c2c_socket_far_home_ns;
	return eng.m.c2c_remote_ns;
}

static uint64_t ns_round(double ns)
{
	return (uint64_t)(ns + 0.5);
}

/* ---- coherence directory --------------------------------------------------- */


static struct line *line_new(uintptr_t key, int home)
{
	struct line *l;

	if (eng.dir.pool_left < eng.dir.line_size) {
		eng.dir.pool_left = eng.dir.line_size * 4096;
		eng.dir.pool = eng_alloc(eng.dir.pool_left);
	}
	l = (struct line *)eng.dir.pool;
	eng.dir.pool += eng.dir.line_size;
	eng.dir.pool_left -= eng.dir.line_size;
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
	size_t ncap = eng.dir.cap ? eng.dir.cap * 2 : 1 << 14;
	struct line **n = eng_alloc(ncap * sizeof(*n));

	for (size_t i = 0; i < eng.dir.cap; i++)
		if (eng.dir.tab[i]) {
			size_t j = lhash(eng.dir.tab[i]->key) & (ncap - 1);

			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = eng.dir.tab[i];
		}
	eng.dir.tab = n;
	eng.dir.cap = ncap;
}

static struct line *line_get(const volatile void *addr, int cpu)
{
	uintptr_t key = (uintptr_t)addr >> LINE_SHIFT;
	size_t j;

	if (eng.dir.count * 2 >= eng.dir.cap)
		ltab_grow();
	j = lhash(key) & (eng.dir.cap - 1);
	while (eng.dir.tab[j]) {
		if (eng.dir.tab[j]->key == key)
			return eng.dir.tab[j];
		j = (j + 1) & (eng.dir.cap - 1);
	}
	eng.dir.count++;
	return eng.dir.tab[j] = line_new(key, eng.cpus[cpu].socket);
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

static int any_outside(const struct line *l, const uint64_t *mask, int c)
{
	for (int w = 0; w < eng.nwords; w++) {
		uint64_t b = l->sharers[w] & ~mask[(size_t)c * eng.nwords + w];

		if (b)
			return 1;
	}
	return 0;
}

static int any_inside(const struct line *l, const uint64_t *mask, int c)
{
	for (int w = 0; w < eng.nwords; w++) {
		uint64_t b = l->sharers[w] & mask[(size_t)c * eng.nwords + w];

		if (w == c >> 6)
			b &= ~(1ull << (c & 63));
		if (b)
			return 1;
	}
	return 0;
}

static int no_sharers(const struct line *l, int except)
{
	for (int w = 0; w < eng.nwords; w++) {
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
	return l->home == eng.cpus[c].socket ? eng.m.mem_local_ns : eng.m.mem_remote_ns;
}

static double socket_ns(const struct line *l, int c)
{
	return l->home == eng.cpus[c].socket ? eng.m.c2c_socket_ns : eng.m.c2c_socket_far_home_ns;
}

/* Cost of bringing the line to @c for reading: the nearest holder, else memory. */
static double read_source_ns(struct line *l, int c)
{
	if (l->owner >= 0)
		return xfer_ns(c, l->owner, l->home);
	if (no_sharers(l, c))
		return mem_ns(l, c);
	if (any_inside(l, eng.dir.mask_core, c))
		return eng.m.c2c_smt_ns;
	if (any_inside(l, eng.dir.mask_l3, c))
		return eng.m.c2c_l3_ns;
	if (any_inside(l, eng.dir.mask_socket, c))
		return socket_ns(l, c);
	return eng.m.c2c_remote_ns;
}

/* Cost of taking the line exclusive at @c: invalidate the farthest holder. */
static double own_source_ns(struct line *l, int c)
{
	if (l->owner >= 0)
		return xfer_ns(c, l->owner, l->home);
	if (no_sharers(l, -1))
		return mem_ns(l, c);
	if (any_outside(l, eng.dir.mask_socket, c))
		return eng.m.c2c_remote_ns;
	if (any_outside(l, eng.dir.mask_l3, c))
		return socket_ns(l, c);
	if (any_outside(l, eng.dir.mask_core, c))
		return eng.m.c2c_l3_ns;
	return no_sharers(l, c) ? 0 : eng.m.c2c_smt_ns;
}

/* The engine's own store (on_cpu words): no charge, but watchers see it. */
static void line_touch_store(void *addr, int c)
{
	struct line *l = line_get(addr, c);

	memset(l->sharers, 0, (size_t)eng.nwords * 8);
	l->owner = c;
	l->version++;
	if (l->watchers)
		wake_watchers(l, eng.cpus[c].clock);
}

/* ---- RCU state (the grace-period machine is below, after the scheduler) ---- */


static void rcu_rearm(uint64_t now);

/* A context switch on @c is a quiescent state; a reader switched out blocks the GP. */
static void rcu_note_switch(struct cpu *c, struct task *t)
{
	if (!eng.rcu.active)
		return;
	if (c->rcu_need)
		c->rcu_noted = 1;
	if (t->rcu_nest > 0 && !t->rcu_blocked) {
		t->rcu_blocked = 1;
		eng.rcu.blocked++;
	}
}

/* ---- scheduler ------------------------------------------------------------- */

static uint64_t slice_ns(struct cpu *c)
{
	int nr = c->nrq + (c->curr != NULL);
	double lat = eng.m.sched_latency_ns * eng.sched_factor, gran = eng.m.sched_min_granularity_ns * eng.sched_factor;
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
		eng.st.wake_early++;	/* it would run before it was made runnable */
	if (eng.rcu.dormant)
		rcu_rearm(c->clock);
	c->curr = t;
	t->cpu = (int)(c - eng.cpus);
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
	eng.total_cpu_ns += d;
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
	t->cpu = (int)(c - eng.cpus);
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
	int best = -1, bestn = 0, me = (int)(c - eng.cpus);

	for (int k = 1; k < eng.ncpu; k++) {
		struct cpu *o = &eng.cpus[(me + k) % eng.ncpu];

		if (o->nrq > bestn) {
			for (int i = 0; i < o->nrq; i++)
				if (o->rq[i]->pin < 0) {
					best = (me + k) % eng.ncpu;
					bestn = o->nrq;
					break;
				}
		}
	}
	if (best < 0)
		return NULL;
	for (int i = 0; i < eng.cpus[best].nrq; i++)
		if (eng.cpus[best].rq[i]->pin < 0) {
			struct task *t = rq_take(&eng.cpus[best], i);

			update_resched(&eng.cpus[best]);
			migrate_vruntime(t, &eng.cpus[best], c);
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
	c->clock += ns_round(eng.m.ctxsw_ns);
	cpu_set_curr(c, n);
	cpu_push(c, c->clock);
}

static void switch_out(struct task *t, enum tstate st)
{
	struct cpu *c = &eng.cpus[t->cpu];

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
	if (!eng.cpus[prev].curr)
		return prev;
	for (int pass = 0; pass < 3; pass++)
		for (int k = 1; k < eng.ncpu; k++) {
			int o = (prev + k) % eng.ncpu;

			if (eng.cpus[o].curr)
				continue;
			if (pass == 0 && eng.cpus[o].l3 != eng.cpus[prev].l3)
				continue;
			if (pass == 1 && eng.cpus[o].socket != eng.cpus[prev].socket)
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
	struct cpu *c = &eng.cpus[ci], *from = &eng.cpus[t->cpu];
	int64_t floor_vr;

	if (from != c)
		migrate_vruntime(t, from, c);
	t->ready_at = now;
	/* Sleeper credit: at most half a latency period behind min_vruntime. */
	floor_vr = c->min_vruntime - (int64_t)(eng.m.sched_latency_ns * eng.sched_factor / 2);
	if (t->vruntime < floor_vr)
		t->vruntime = floor_vr;
	if (!c->curr && c->in_irq) {
		rq_insert(c, t);	/* an idle CPU in a handler: picked at its exit */
		return;
	}
	if (!c->curr) {
		uint64_t at = now + ns_round(eng.m.wakeup_ns);

		c->clock = c->clock > at ? c->clock : at;
		cpu_set_curr(c, t);
		cpu_push(c, c->clock);
		return;
	}
	rq_insert(c, t);
	{
		struct task *cur = c->curr;
		int64_t cur_vr = cur->vruntime + (int64_t)(now > cur->run_start ? now - cur->run_start : 0);

		if (cur_vr - t->vruntime > (int64_t)(eng.m.sched_wakeup_granularity_ns * eng.sched_factor))
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
	uint64_t time = eng.ev.cev_time[c - eng.cpus];

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
		t = cpu_event(&eng.cpus[ci]);
		if (t == eng.running)
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
	struct cpu *c = &eng.cpus[t->cpu];

	if (c->clock >= c->resched_at && c->nrq && preemptible(t)) {
		eng.nivcsw++;
		t->nivcsw++;
		switch_out(t, T_READY);
		sched_next(NULL);
		c = &eng.cpus[t->cpu];
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
	struct cpu *c = &eng.cpus[t->cpu];

	watch_detach(t);
	t->state = T_RUN;
	eng.st.unpark++;
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
	struct task *t = eng.running;
	struct cpu *c;
	int park;

	sync_point(t);
	c = &eng.cpus[t->cpu];
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
		eng.st.park++;
		c->park_deadline = c->clock + SPIN_PARK_MAX_NS;
		if (t->budget > c->clock && t->budget + 1 < c->park_deadline)
			c->park_deadline = t->budget + 1;	/* need_resched() turns true then */
		cpu_cancel(c);
		repark_deadline(c);
		sched_next(NULL);
		c = &eng.cpus[t->cpu];
	}
	c->clock += ns_round(eng.m.relax_ns);
	spin_reset(t);
}

/* ---- memory ---------------------------------------------------------------- */

void sim_mem(const volatile void *addr, enum sim_op op)
{
	struct task *t = eng.running;
	struct cpu *c;
	struct line *l;
	int ci;
	uint64_t now, start;
	double x;

	eng.st.mem++;
	sync_point(t);
	ci = t->cpu;
	c = &eng.cpus[ci];
	now = c->clock;
	if (op == SIM_FENCE) {
		c->clock += ns_round(eng.m.rmw_local_ns);
		return;
	}
	l = line_get(addr, ci);
	if (op == SIM_LOAD) {
		if (l->owner == ci || sharer(l, ci)) {
			c->clock = now + ns_round(eng.m.load_local_ns);
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
		double local = op == SIM_RMW ? eng.m.rmw_local_ns : eng.m.load_local_ns;
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
		memset(l->sharers, 0, (size_t)eng.nwords * 8);
		l->owner = ci;
		l->version++;
		if (l->watchers)
			wake_watchers(l, c->clock);
	}
}

/* ---- work, clocks ---------------------------------------------------------- */


void sim_work_ns(double ns)
{
	struct task *t = eng.running;
	uint64_t rem;

	eng.work_frac += ns;
	rem = (uint64_t)eng.work_frac;
	eng.work_frac -= (double)rem;
	t->simpure = 1;
	while (rem) {
		struct cpu *c;
		uint64_t start, end, irq0;
		int cut;

		sync_point(t);
		c = &eng.cpus[t->cpu];
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
		c = &eng.cpus[t->cpu];
		c->in_work = 0;
		/* Interrupt handlers that ran meanwhile did none of this work. */
		start += c->irq_ns - irq0;
		if (c->clock > start)
			rem -= c->clock - start < rem ? c->clock - start : rem;
	}
}


void sim_copy_bytes(size_t bytes)
{
	int s = eng.cpus[eng.running->cpu].socket;
	double bw = eng.m.bw_core_gbs, share;

	eng.copiers[s]++;
	share = eng.m.bw_socket_gbs / eng.copiers[s];
	if (share < bw)
		bw = share;
	sim_work_ns((double)bytes / bw);	/* GB/s = bytes/ns */
	eng.copiers[s]--;
}

void sim_mem_traffic(size_t bytes, double floor_ns)
{
	int s = eng.cpus[eng.running->cpu].socket;
	double ns;

	eng.copiers[s]++;
	ns = (double)bytes / (eng.m.bw_socket_gbs / eng.copiers[s]);
	sim_work_ns(ns > floor_ns ? ns : floor_ns);
	eng.copiers[s]--;
}

uint64_t sim_now(void)
{
	struct task *t = eng.running;

	t->sclock = 1;
	return eng.cpus[t->cpu].clock;
}

uint64_t sim_jiffies_ns(void)
{
	uint64_t j = 1000000000ull / (uint64_t)eng.m.hz;

	return sim_now() / j * j;
}

uint64_t sim_task_cpu_ns(void)
{
	struct task *t = eng.running;

	return t->cpu_ns + (eng.cpus[t->cpu].clock - t->run_start);
}

uint64_t sim_total_cpu_ns(void)
{
	uint64_t s = eng.total_cpu_ns;

	for (int i = 0; i < eng.ncpu; i++)
		if (eng.cpus[i].curr)
			s += eng.cpus[i].clock - eng.cpus[i].curr->run_start;
	return s;
}

uint64_t sim_elapsed_ns(void)
{
	uint64_t mx = 0;

	for (int i = 0; i < eng.ncpu; i++)
		mx = eng.cpus[i].clock > mx ? eng.cpus[i].clock : mx;
	return mx - 1000000000ull;
}

uint64_t sim_wake_early_count(void)
{
	return eng.st.wake_early;
}

uint64_t sim_ctxsw_count(int voluntary)
{
	return voluntary ? eng.nvcsw : eng.nivcsw;
}

uint64_t sim_task_ctxsw_count(int voluntary)
{
	return voluntary ? eng.running->nvcsw : eng.running->nivcsw;
}

int sim_need_resched(void)
{
	struct cpu *c = &eng.cpus[eng.running->cpu];

	return c->nrq && c->clock >= c->resched_at;
}

int sim_need_resched_by(uint64_t deadline)
{
	struct task *t = eng.running;

	t->budget = deadline;
	return sim_need_resched() || (deadline && eng.cpus[t->cpu].clock > deadline);
}

int sim_task_on_cpu(int id)
{
	return eng.tasks[id].state == T_RUN || eng.tasks[id].state == T_PARK;
}

void sim_set_oncpu_word(int *word)
{
	eng.running->oncpu_word = word;
	*word = 1;
}

int sim_current_cpu(void)
{
	return eng.running->cpu;
}

const struct sim_machine *sim_machine(void)
{
	return &eng.m;
}

uint64_t sim_seed(void)
{
	return eng.seed;
}

double sim_host_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - eng.host_t0.tv_sec) + (double)(ts.tv_nsec - eng.host_t0.tv_nsec) / 1e9;
}

/* ---- futex, sleep, yield ----------------------------------------------------- */


static size_t fbucket(const uint32_t *a)
{
	return (size_t)(((uintptr_t)a >> 2) * 0x9e3779b97f4a7c15ull >> 52) & (FUTEX_BUCKETS - 1);
}

static void futex_unqueue(struct task *t)
{
	struct task **pp = &eng.fq[fbucket(t->faddr)];

	while (*pp && *pp != t)
		pp = &(*pp)->fnext;
	if (*pp)
		*pp = t->fnext;
	t->faddr = NULL;
}

static void block_current(struct task *t, enum tstate st, int64_t timeout_ns)
{
	struct cpu *c = &eng.cpus[t->cpu];

	if (!preemptible(t))
		irq_bug("blocks with interrupts off or in an interrupt handler");
	t->tgen++;
	if (timeout_ns >= 0)
		heap_push(c->clock + (uint64_t)timeout_ns, EV_TIMER, t->id, t->tgen);
	eng.nvcsw++;
	t->nvcsw++;
	switch_out(t, st);
	sched_next(NULL);
}

int sim_futex_wait(uint32_t *uaddr, uint32_t val, int64_t timeout_ns)
{
	struct task *t = eng.running;
	struct task **pp;

	sim_work_ns(eng.m.futex_wait_ns);
	sim_mem(uaddr, SIM_LOAD);
	spin_reset(t);
	t->simpure = 1;
	if (__atomic_load_n(uaddr, __ATOMIC_RELAXED) != val)
		return 0;
	t->faddr = uaddr;
	t->fnext = NULL;
	t->fresult = 0;
	for (pp = &eng.fq[fbucket(uaddr)]; *pp; pp = &(*pp)->fnext)
		;
	*pp = t;
	block_current(t, T_BLOCK, timeout_ns);
	return t->fresult;
}

int sim_futex_wake(uint32_t *uaddr, int n)
{
	struct task *t = eng.running, **pp;
	int woke = 0;

	sim_work_ns(eng.m.futex_wake_ns);
	t->simpure = 1;
	for (pp = &eng.fq[fbucket(uaddr)]; *pp && woke < n;) {
		struct task *w = *pp;

		if (w->faddr != uaddr) {
			pp = &w->fnext;
			continue;
		}
		*pp = w->fnext;
		w->faddr = NULL;
		w->tgen++;	/* cancel its timeout */
		wake_task(w, eng.cpus[t->cpu].clock);
		woke++;
	}
	return woke;
}

void sim_sleep_ns(uint64_t ns)
{
	struct task *t = eng.running;

	sim_work_ns(eng.m.syscall_ns);
	t->simpure = 1;
	block_current(t, T_SLEEP, (int64_t)ns);
}

void sim_yield(void)
{
	struct task *t = eng.running;
	struct cpu *c;

	sim_work_ns(eng.m.syscall_ns);
	t->simpure = 1;
	c = &eng.cpus[t->cpu];
	if (c->nrq && preemptible(t)) {
		/* CFS yield: go behind the queue's leftmost task. */
		if (t->vruntime <= c->rq[0]->vruntime)
			t->vruntime = c->rq[0]->vruntime + 1;
		eng.nvcsw++;
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
	return 1000000000ull / (uint64_t)eng.m.hz;
}

static uint64_t fqs_ns(void)
{
	return (uint64_t)(1 + (eng.m.hz > 250) + (eng.m.hz > 500) + eng.ncpu / 256) * jiffy_ns();
}

static void rcu_rearm(uint64_t now)
{
	uint64_t j = jiffy_ns();

	eng.rcu.dormant = 0;
	eng.rcu.gen++;
	heap_push((now / j + 1) * j, EV_RCU_TICK, 0, eng.rcu.gen);
	/*
	 * A task waking does not postpone the scan already due (the kernel's
	 * FQS timer runs on): re-arming it at now + interval every time let a
	 * task that wakes more often than that (a 1 ms sleeper at HZ 1000)
	 * cancel every scan, so idle CPUs were never reported.
	 */
	if (eng.rcu.fqs_due <= now)
		eng.rcu.fqs_due = now + fqs_ns();
	heap_push(eng.rcu.fqs_due, EV_RCU_FQS, 0, eng.rcu.gen);
}

static int rcu_ticking(const struct cpu *c)
{
	return c->curr || c->rcu_cb_seq > eng.rcu.completed;
}

/*
 * No CPU runs a task: after this tick or scan nothing can report a quiescent
 * state until a task runs again (cpu_set_curr() re-arms them), so stop the
 * events; a GP held by a reader that never runs again is then a simulated
 * deadlock, reported, not an endless stream of ticks.
 */
static int rcu_all_idle(void)
{
	for (int i = 0; i < eng.ncpu; i++)
		if (eng.cpus[i].curr)
			return 0;
	return 1;
}

static void rcu_gp_start(uint64_t now)
{
	eng.rcu.active = 1;
	eng.rcu.start = now;
	eng.rcu.owing = eng.ncpu;
	eng.rcu.fqs_due = 0;	/* the first scan comes a full interval after the start */
	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		c->rcu_need = 1;
		c->rcu_noted = c->rcu_unlock_qs = 0;
		c->rcu_idle_seen = !c->curr;
	}
	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		struct task *t = &eng.tasks[i];

		if (t->rcu_nest > 0 && t->state != T_RUN && t->state != T_PARK && !t->rcu_blocked) {
			t->rcu_blocked = 1;
			eng.rcu.blocked++;
		}
	}
	rcu_rearm(now);
}

static void rcu_gp_end(uint64_t now)
{
	eng.rcu.active = 0;
	eng.rcu.dormant = 0;
	eng.rcu.completed++;
	eng.rcu.gen++;
	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		struct task *t = &eng.tasks[i];

		if (t->state == T_BLOCK && t->rcu_wait_seq && t->rcu_wait_seq <= eng.rcu.completed) {
			t->rcu_wait_seq = 0;
			wake_task(t, now);
		}
	}
	if (eng.rcu.requested > eng.rcu.completed)
		rcu_gp_start(now);
}

static void rcu_try_end(uint64_t now)
{
	if (eng.rcu.active && !eng.rcu.owing && !eng.rcu.blocked)
		rcu_gp_end(now);
}

static void rcu_report(struct cpu *c)
{
	c->rcu_need = 0;
	eng.rcu.owing--;
}

static void rcu_tick(uint64_t now)
{
	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		if (!c->rcu_need || !rcu_ticking(c))
			continue;	/* reported, or idle without a tick: the FQS scan's */
		if (!c->curr || c->rcu_noted || c->curr->rcu_nest == 0)
			rcu_report(c);
		else
			c->rcu_unlock_qs = 1;
	}
	rcu_try_end(now);
	if (eng.rcu.active && rcu_all_idle())
		eng.rcu.dormant = 1;
	else if (eng.rcu.active)
		heap_push(now + jiffy_ns(), EV_RCU_TICK, 0, eng.rcu.gen);
}

static void rcu_fqs(uint64_t now)
{
	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		if (c->rcu_need && (!c->curr || c->rcu_idle_seen))
			rcu_report(c);
	}
	rcu_try_end(now);
	if (eng.rcu.active && rcu_all_idle())
		eng.rcu.dormant = 1;
	else if (eng.rcu.active)
		heap_push(eng.rcu.fqs_due = now + fqs_ns(), EV_RCU_FQS, 0, eng.rcu.gen);
}

void sim_rcu_read_lock(void)
{
	sync_point(eng.running);
	eng.running->rcu_nest++;
}

void sim_rcu_read_unlock(void)
{
	struct task *t = eng.running;
	struct cpu *c;

	sync_point(t);
	c = &eng.cpus[t->cpu];
	if (--t->rcu_nest > 0)
		return;
	if (c->rcu_unlock_qs) {
		c->rcu_unlock_qs = 0;
		c->rcu_noted = 1;
	}
	if (t->rcu_blocked) {
		t->rcu_blocked = 0;
		eng.rcu.blocked--;
		rcu_try_end(c->clock);
	}
}

int sim_rcu_read_depth(void)
{
	return eng.running->rcu_nest;
}

uint64_t sim_rcu_gp_request(void)
{
	uint64_t need;

	sync_point(eng.running);
	need = eng.rcu.completed + 1 + (uint64_t)eng.rcu.active;
	if (need > eng.rcu.requested)
		eng.rcu.requested = need;
	eng.cpus[eng.running->cpu].rcu_cb_seq = need;
	if (!eng.rcu.active)
		rcu_gp_start(eng.cpus[eng.running->cpu].clock);
	return need;
}

uint64_t sim_rcu_gp_completed(void)
{
	return eng.rcu.completed;
}

void sim_rcu_gp_wait(uint64_t seq)
{
	struct task *t = eng.running;

	sync_point(t);
	t->simpure = 1;
	if (eng.rcu.completed >= seq)
		return;
	t->rcu_wait_seq = seq;
	block_current(t, T_BLOCK, -1);
}

/* ---- tasks ------------------------------------------------------------------ */


int sim_spawn_detached(void *(*fn)(void *), void *arg)
{
	eng.detach_next = 1;
	return sim_spawn(fn, arg);
}

void sim_delay_relax(unsigned long loops)
{
	/* +-1% jitter from the seed: PAUSE latency is not a constant */
	double j = 1.0 + ((double)(splitmix(&eng.rng) >> 11) / 9007199254740992.0 - 0.5) * 0.02;

	sim_work_ns((double)loops * eng.m.relax_ns * j);
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
		struct task *t = &eng.tasks[i];

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
		eng.live_tasks++;
		return i;
	}
	return -1;
}

int sim_spawn(void *(*fn)(void *), void *arg)
{
	struct task *p = eng.running;
	int id, detached = eng.detach_next;

	/* Charged first: the charge may yield, and another spawner must not take the same free slot. */
	eng.detach_next = 0;
	sim_work_ns(eng.m.syscall_ns);
	id = task_alloc(fn, arg, STACK_SIZE);
	if (id < 0)
		return -1;
	eng.tasks[id].detached = detached;
	eng.tasks[id].cpu = p->cpu;
	/* clone() inherits the CPU affinity; detached tasks are the engine's helpers (RCU callbacks). */
	eng.tasks[id].pin = eng.tasks[id].detached ? -1 : p->pin;
	eng.tasks[id].vruntime = eng.cpus[p->cpu].min_vruntime;
	eng.tasks[id].state = T_SLEEP;
	wake_task(&eng.tasks[id], eng.cpus[p->cpu].clock);
	return id;
}

void *sim_join(int id)
{
	struct task *t = &eng.tasks[id], *me = eng.running;
	void *r;

	while (t->state != T_DONE) {
		t->joiner = me->id;
		me->tgen++;
		eng.nvcsw++;
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
	struct task *t = eng.running;

	if (cpu >= eng.ncpu)
		return -1;
	t->pin = cpu;
	if (cpu >= 0 && t->cpu != cpu) {
		/* Migrate now: leave this CPU, queue on the pinned one. */
		struct cpu *from = &eng.cpus[t->cpu];

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
	eng.exit_hook = fn;
}

static void task_exit(struct task *t)
{
	struct cpu *c = &eng.cpus[t->cpu];

	if (eng.exit_hook)
		eng.exit_hook(t->id);
	rcu_note_switch(c, t);
	cpu_account(c, t);
	set_oncpu(t, 0, t->cpu);
	t->state = T_DONE;
	eng.live_tasks--;
	c->curr = NULL;
	cpu_pick_next(c);
	if (t->joiner >= 0 && eng.tasks[t->joiner].state == T_SLEEP)
		wake_task(&eng.tasks[t->joiner], c->clock);
	to_scheduler();
	abort();	/* never resumed */
}

/* ---- interrupts: IPIs (issue 11) ------------------------------------------------ */

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

static void irq_bug(const char *what)
{
	fprintf(stderr, "rwlab-sim: task %d %s\n", eng.running ? eng.running->id : -1, what);
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
	int ci = (int)(c - eng.cpus);

	for (;;) {
		sim_work_ns(eng.m.irq_ns);
		while (c->ipi_head && c->ipi_head->at <= c->clock) {
			sim_mem(&eng.irq.csq[ci].head, SIM_RMW);	/* llist_del_all */
			while (c->ipi_head && c->ipi_head->at <= c->clock) {
				struct sim_ipi *q = c->ipi_head;

				c->ipi_head = q->next;
				q->fn(q->arg);
				eng.st.ipi_handled++;
				q->next = eng.irq.pool;
				eng.irq.pool = q;
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
		eng.live_tasks--;		/* never ends; not a task of the run */
		c->irq = &eng.tasks[id];
		c->irq->is_irq = 1;
		c->irq->detached = 1;
		c->irq->cpu = c->irq->pin = (int)(c - eng.cpus);
	}
	eng.st.ipi_busy += c->curr != NULL;
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
		eng.st.ipi_deferred++;
		return;		/* sim_irq_enable() takes it */
	}
	if (c->clock < when)
		c->clock = when;
	irq_enter(c);
}

void sim_ipi_send(int cpu, void (*fn)(void *), void *arg)
{
	struct task *t = eng.running;
	struct cpu *c = &eng.cpus[cpu];
	struct sim_ipi *q, **pp;

	if (cpu == t->cpu) {
		/* Two CPU slots on one simulated CPU: the handler runs here at once. */
		eng.st.ipi_local++;
		fn(arg);
		return;
	}
	sim_mem(&eng.irq.csq[cpu].head, SIM_RMW);	/* llist_add on the target's queue */
	q = eng.irq.pool;
	if (q)
		eng.irq.pool = q->next;
	else
		q = eng_alloc(sizeof(*q));
	q->at = eng.cpus[t->cpu].clock + ns_round(eng.m.ipi_ns);
	q->fn = fn;
	q->arg = arg;
	for (pp = &c->ipi_head; *pp && (*pp)->at <= q->at; pp = &(*pp)->next)
		;
	q->next = *pp;
	*pp = q;
	eng.st.ipi_sent++;
	heap_push(q->at, EV_IPI, cpu, 0);
}

void sim_irq_disable(void)
{
	eng.running->irq_off++;
}

void sim_irq_enable(void)
{
	struct task *t = eng.running;
	struct cpu *c = &eng.cpus[t->cpu];

	if (--t->irq_off || c->in_irq || !c->ipi_head || c->ipi_head->at > c->clock)
		return;
	irq_enter(c);		/* what arrived while they were off */
	to_scheduler();
}

void sim_ipi_stats(uint64_t *sent, uint64_t *handled, uint64_t *interrupted, uint64_t *deferred)
{
	*sent = eng.st.ipi_sent;
	*handled = eng.st.ipi_handled;
	*interrupted = eng.st.ipi_busy;
	*deferred = eng.st.ipi_deferred;
}

int sim_task_cpu(int id)
{
	return eng.tasks[id].cpu;
}

/* ---- boot and run ------------------------------------------------------------- */

/* The one piece of engine state that outlives a boot (sim.h: per-boot state resets). */
static uint64_t boot_count;

struct engine eng;

uint64_t sim_boot_count(void)
{
	return boot_count;
}

int sim_boot(const struct sim_machine *m, uint64_t seed)
{
	boot_count++;
	memset(&eng, 0, sizeof(eng));
	eng.arena.base = mmap(NULL, ARENA_RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (eng.arena.base == MAP_FAILED)
		return -1;
	eng.m = *m;
	eng.ncpu = m->ncpus;
	eng.nwords = (eng.ncpu + 63) / 64;
	eng.sched_factor = sim_machine_sched_factor(m);
	eng.seed = seed;
	eng.rng = seed * 0x2545f4914f6cdd1dull + 0x632be59bd9b4e019ull;
	eng.dir.line_size = (sizeof(struct line) + (size_t)eng.nwords * 8 + 15) & ~(size_t)15;
	eng.cpus = eng_alloc((size_t)eng.ncpu * sizeof(*eng.cpus));
	for (int i = 0; i < eng.ncpu; i++) {
		struct sim_cpu_place p;

		sim_machine_place(m, i, &p);
		eng.cpus[i].socket = p.socket;
		eng.cpus[i].l3 = p.l3;
		eng.cpus[i].core = p.core;
		eng.place[i] = (struct place){ p.core, p.l3, p.socket };
		eng.cpus[i].resched_at = INF;
		eng.cpus[i].clock = 1000000000ull;	/* CLOCK_MONOTONIC starts at 1 s */
		eng.ev.cpos[i] = -1;
		eng.cpus[i].rq = eng_alloc(SIM_MAX_TASKS * sizeof(*eng.cpus[i].rq));
	}
	eng.dir.mask_core = eng_alloc((size_t)eng.ncpu * (size_t)eng.nwords * 8);
	eng.dir.mask_l3 = eng_alloc((size_t)eng.ncpu * (size_t)eng.nwords * 8);
	eng.dir.mask_socket = eng_alloc((size_t)eng.ncpu * (size_t)eng.nwords * 8);
	for (int a = 0; a < eng.ncpu; a++)
		for (int b = 0; b < eng.ncpu; b++) {
			struct cpu *x = &eng.cpus[a], *y = &eng.cpus[b];
			uint64_t bit = 1ull << (b & 63);
			size_t w = (size_t)a * eng.nwords + (size_t)(b >> 6);

			if (x->core == y->core)
				eng.dir.mask_core[w] |= bit;
			if (x->l3 == y->l3)
				eng.dir.mask_l3[w] |= bit;
			if (x->socket == y->socket)
				eng.dir.mask_socket[w] |= bit;
		}
	eng.irq.csq = eng_alloc((size_t)eng.ncpu * sizeof(*eng.irq.csq));
	eng.copiers = eng_alloc((size_t)m->sockets * sizeof(*eng.copiers));
	eng.rcu.gen = 1;
	clock_gettime(CLOCK_MONOTONIC, &eng.host_t0);
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
		(double)eng.cpus[0].clock / 1e9, (unsigned long long)eng.seed);
	for (int i = 0; i < SIM_MAX_TASKS && n < 8; i++)
		if (eng.tasks[i].state == T_BLOCK || eng.tasks[i].state == T_SLEEP || eng.tasks[i].state == T_PARK) {
			fprintf(stderr, " task %d %s", i, eng.tasks[i].state == T_BLOCK ? "futex" :
				eng.tasks[i].state == T_PARK ? "spinning" : "join");
			n++;
		}
	fprintf(stderr, "\n");
	if (getenv("RWLAB_SIM_DEBUG"))
		for (int i = 0; i < SIM_MAX_TASKS; i++)
			if (eng.tasks[i].state != T_FREE && eng.tasks[i].state != T_DONE)
			{
				fprintf(stderr, "rwlab-sim: task %d state %d cpu %d futex %p oncpu %p watches", i,
					(int)eng.tasks[i].state, eng.tasks[i].cpu, (void *)eng.tasks[i].faddr,
					(void *)eng.tasks[i].oncpu_word);
				for (int k = 0; k < eng.tasks[i].nwatch; k++)
					fprintf(stderr, " %#lx", (unsigned long)(eng.tasks[i].w[k].l->key << LINE_SHIFT));
				fprintf(stderr, "\n");
			}
}

int sim_run(int (*fn)(int, char **), int argc, char **argv)
{
	struct main_arg a = { fn, argc, argv, 0 };
	int id = task_alloc(main_task, &a, MAIN_STACK_SIZE);

	if (id < 0)
		return 1;
	eng.tasks[id].detached = 1;
#if SIM_TSAN
	eng.sched_fiber = __tsan_get_current_fiber();
#endif
	sim_active = 1;
	cpu_set_curr(&eng.cpus[0], &eng.tasks[id]);
	cpu_push(&eng.cpus[0], eng.cpus[0].clock);
	while (eng.tasks[id].state != T_FREE) {
		struct event e;
		int ci;

		if (heap_min() == INF) {
			print_deadlock();
			a.ret = 99;
			break;
		}
		ci = cpu_pop_next();
		if (ci >= 0) {
			struct task *t = cpu_event(&eng.cpus[ci]);

			if (t)
				run_task(t);
			continue;
		}
		heap_clean();
		e = heap_pop();
		if (e.kind == EV_TIMER) {
			timer_fire(&eng.tasks[e.idx], e.time);
			continue;
		}
		if (e.kind == EV_IPI) {
			ipi_arrive(&eng.cpus[e.idx], e.time);
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
			"%llu parks, %llu line-change wakes; %llu lines\n", (double)(eng.cpus[0].clock - 1000000000ull) / 1e9,
			sim_host_seconds(), (unsigned long long)eng.st.mem, (unsigned long long)eng.st.switches,
			(unsigned long long)eng.st.park, (unsigned long long)eng.st.unpark, (unsigned long long)eng.dir.count);
	if (s && *s == '1' && eng.st.ipi_sent + eng.st.ipi_local)
		fprintf(stderr, "rwlab-sim stats: %llu IPIs sent, %llu handled, %llu on a busy CPU, %llu deferred, "
			"%llu run by the sender (same CPU)\n", (unsigned long long)eng.st.ipi_sent,
			(unsigned long long)eng.st.ipi_handled, (unsigned long long)eng.st.ipi_busy,
			(unsigned long long)eng.st.ipi_deferred, (unsigned long long)eng.st.ipi_local);
	for (int i = 0; i < SIM_MAX_TASKS; i++)
		if (eng.tasks[i].stack) {
#if SIM_TSAN
			__tsan_destroy_fiber(eng.tasks[i].fiber);
#endif
			munmap(eng.tasks[i].stack, eng.tasks[i].stack_size);
		}
	munmap(eng.arena.base, ARENA_RESERVE);
}
