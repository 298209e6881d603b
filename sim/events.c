/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/events.c - the event queues.
 *
 * The CPUs' events in a winner tree over the CPUs (engine.h: at most one
 * event per CPU, replayed in place when it changes), and timers and RCU
 * events in a binary heap ordered by (time, tie) (stale ones dropped
 * lazily by generation). Tie keys come from the seed's stream, drawn at
 * each push in the same order as ever; they are distinct (splitmix64 is a
 * bijection of its counter), so (time, tie) is a strict total order and
 * the next event does not depend on how it is stored: the tree took the
 * CPU heap's place with every simulated value unchanged. heap_min()
 * (engine.h) is the earliest pending event's time; the run loop (boot.c)
 * and sched_next() (sched.c) take them in order.
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

/* Drop stale timer and RCU entries at the top so heap[0] is a real event. */
void heap_clean(void)
{
	while (eng.ev.heap_n && !event_valid(&eng.ev.heap[0]))
		heap_pop();
}

/* The CPU's one event is now at @t (replacing any it had). */
void cpu_push(struct cpu *c, uint64_t t)
{
	int ci = (int)(c - eng.cpus);

	eng.ev.cev_time[ci] = t;
	ctree_set((unsigned int)eng.ev.cleaf_of[ci], ev_key(t, splitmix(&eng.rng)));
}

void cpu_cancel(struct cpu *c)
{
	unsigned int leaf = (unsigned int)eng.ev.cleaf_of[c - eng.cpus];

	if (eng.ev.ckey[leaf] != CEV_NONE)
		ctree_set(leaf, CEV_NONE);
}

/* No CPU has an event; CPU i owns leaf cleaf + i. */
void cpu_events_boot(void)
{
	int n = 1;

	while (n < eng.ncpu)
		n *= 2;
	eng.ev.cleaf = n;
	for (int i = 1; i < 2 * n; i++)
		eng.ev.ckey[i] = CEV_NONE;
	for (int i = 0; i < n; i++) {
		eng.ev.cwin[n + i] = (int16_t)i;
		if (i < eng.ncpu)
			eng.ev.cleaf_of[i] = (int16_t)(n + i);
	}
}
