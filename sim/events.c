/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/events.c - the event queues.
 *
 * Two binary heaps ordered by (time, tie): the CPUs' events in an indexed
 * heap (at most one entry per CPU, moved in place when the CPU's event
 * changes: no stale entries), and timers and RCU events in a plain heap
 * (stale ones dropped lazily by generation). Tie keys come from the seed's
 * stream, drawn at each push in the same order as ever; they are distinct
 * (splitmix64 is a bijection of its counter), so (time, tie) is a strict
 * total order and the next event does not depend on how it is stored.
 * heap_min() (engine.h) is the earliest pending event's time; the run loop
 * (boot.c) and sched_next() (sched.c) take them in order.
 */
#include <string.h>

#include "engine.h"

static int ev_less(const struct event *a, const struct event *b)
{
	return a->time < b->time || (a->time == b->time && a->tie < b->tie);
}

void heap_push(uint64_t time, int kind, int idx, uint32_t gen)
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
	eng.ev.tmin = eng.ev.heap[0].time;
}

struct event heap_pop(void)
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
	eng.ev.tmin = eng.ev.heap_n ? eng.ev.heap[0].time : INF;
	return top;
}

static int event_valid(const struct event *e)
{
	if (e->kind == EV_RCU_TICK)
		return e->gen == eng.rcu.gen;
	if (e->kind == EV_IPI)
		return 1;	/* ipi_arrive() finds what is still pending */
	if (e->kind == EV_LB)
		return e->gen == eng.lb_gen;
	return e->gen == eng.tasks[e->idx].tgen;
}

/*
 * The sift functions index the heap and cpos[] from local pointers: with
 * the arrays inside struct engine, GCC otherwise re-derives each element's
 * address from the struct's (one more instruction per step of the engine's
 * hottest loop, measured).
 */
void cheap_up(int i)
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

void cheap_down(int i)
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

void cheap_remove(int ci)
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
void heap_clean(void)
{
	while (eng.ev.heap_n && !event_valid(&eng.ev.heap[0]))
		heap_pop();
}

/* The CPU's one event is now at @t (replacing any it had). */
void cpu_push(struct cpu *c, uint64_t t)
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

void cpu_cancel(struct cpu *c)
{
	if (eng.ev.cpos[c - eng.cpus] >= 0)
		cheap_remove((int)(c - eng.cpus));
}

