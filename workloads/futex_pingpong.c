/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * futex_pingpong - pairs of threads hand a turn back and forth through a
 * futex: the sleep/wake path of the simulator (cost.futex_wait_ns,
 * cost.futex_wake_ns, cost.wakeup_ns, cost.ctxsw_ns and the scheduler)
 * against the same exchange run natively (the "this machine" rung of the
 * validation ladder, docs/simulator.md §4).
 *
 * Citation: the FUTEX_WAIT/FUTEX_WAKE protocol of futex(2) (a waiter sleeps
 * only while the word still holds the value it read; a waker changes the
 * word, then wakes), as in Ulrich Drepper's "Futexes Are Tricky" (2011) and
 * will-it-scale's futex tests' wait/wake pairs.
 *
 * What runs: -t N threads, N even; workers 2k and 2k+1 are a pair sharing
 * one turn word on its own line (0: worker 2k's turn, 1: its partner's).
 * A worker waits until the word holds its side (FUTEX_WAIT on the other
 * side's value, re-checked in a loop), hands the turn over (a store) and
 * wakes the partner (FUTEX_WAKE, always: the naive protocol, one system call
 * per hand-off). Worker 2k counts a round trip each time the turn comes
 * back. When the window closes a worker sets the word to STOP and wakes its
 * partner, so no one sleeps for ever. Each thread runs on its own PU by the
 * harness's --pin (compact by default: a pair on two neighbouring PUs).
 *
 * Metrics per iteration: round_trips_per_s (all pairs), ns_per_handoff
 * (window / hand-offs of one pair, averaged over the pairs), round_trips.
 * The lock variant (-l) is not used: run it with -l null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wait.h"
#include "workload.h"

#define PP_STOP 2u

struct pp_pair {
	uint32_t turn __lab_cacheline_aligned;
	char pad[LAB_CACHELINE - sizeof(uint32_t)];
};

struct pingpong {
	struct pp_pair *pair;
	int npairs;
};

static int pp_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct pingpong *p;

	if (cell->nthreads < 2 || cell->nthreads % 2) {
		snprintf(err, errlen, "futex_pingpong: -t %d: needs an even thread count (pairs), e.g. -t 2",
			 cell->nthreads);
		return -1;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "futex_pingpong: out of memory");
		return -1;
	}
	p->npairs = cell->nthreads / 2;
	p->pair = aligned_alloc(LAB_CACHELINE, (size_t)p->npairs * sizeof(*p->pair));
	if (!p->pair) {
		snprintf(err, errlen, "futex_pingpong: out of memory");
		free(p);
		return -1;
	}
	*state = p;
	return 0;
}

static int pp_prepare(void *state, const struct lab_cell *cell)
{
	struct pingpong *p = state;

	(void)cell;
	for (int i = 0; i < p->npairs; i++)
		WRITE_ONCE(p->pair[i].turn, 0u);
	return 0;
}

static void pp_worker(void *state, struct lab_worker *w)
{
	struct pingpong *p = state;
	uint32_t *turn = &p->pair[w->id / 2].turn;
	uint32_t me = (uint32_t)(w->id & 1), other = me ^ 1;

	for (;;) {
		uint32_t v = smp_load_acquire(turn);

		if (v == PP_STOP)
			break;
		if (v != me) {
			/* a bounded sleep: a lost wake-up costs 10 ms, never a hang */
			lab_futex_wait(turn, v, 10000000);
			continue;
		}
		if (!lab_worker_running(w)) {
			smp_store_release(turn, PP_STOP);
			lab_futex_wake(turn, 1);
			break;
		}
		if (!me)
			w->ops++;	/* the turn came back: one round trip */
		smp_store_release(turn, other);
		lab_futex_wake(turn, 1);
	}
}

static void pp_metrics(void *state, const struct lab_iter *it, struct lab_sink *sink)
{
	struct pingpong *p = state;
	uint64_t rt = 0;

	for (int i = 0; i < it->nthreads; i += 2)
		rt += it->workers[i].ops;
	if (!rt) {
		lab_sink_fail(sink, "futex_pingpong: no round trip in the window");
		return;
	}
	lab_emit(sink, "round_trips_per_s", (double)rt / it->wall_s, "round trips/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "ns_per_handoff", it->wall_s * 1e9 * p->npairs / (2.0 * (double)rt), "ns", LAB_BETTER_LOWER);
	lab_emit(sink, "round_trips", (double)rt, "round trips", LAB_BETTER_NONE);
}

static void pp_teardown(void *state)
{
	struct pingpong *p = state;

	free(p->pair);
	free(p);
}

const struct lab_workload_ops lab_workload_futex_pingpong = {
	.name = "futex_pingpong",
	.simulated = true,
	.summary = "pairs hand a turn back and forth through FUTEX_WAIT/FUTEX_WAKE; round trips/s (-l null, even -t)",
	.cite = "futex(2) wait/wake protocol (Drepper, Futexes Are Tricky, 2011)",
	.kind = LAB_WL_TIMED,
	.headline = "round_trips_per_s",
	.setup = pp_setup,
	.prepare = pp_prepare,
	.worker = pp_worker,
	.metrics = pp_metrics,
	.teardown = pp_teardown,
};
