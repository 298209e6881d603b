/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * atomics - T threads on one cache line: the microbenchmark that calibrates
 * and validates the simulator's line arbitration, natively here
 * and under --sim on any machine file.
 *
 * Citations: the operations and the per-operation figure are those of Travis
 * Downs' "A Concurrency Cost Hierarchy" (2020; travisdowns/
 * concurrency-hierarchy-bench, bench.cpp: "atomic add" = fetch_add, "cas add" =
 * load then compare_exchange until it succeeds; Nanos/Op = the threads' summed
 * run time over their summed operations). The blind cmpxchg is the
 * down_read_trylock of Linux v5.15 (kernel/locking/rwsem.c: try_cmpxchg from
 * RWSEM_UNLOCKED_VALUE, then from the value it returned), the read-first loop
 * that of 14c24048841151548a3f4d9e218510c844c1b737 (v5.16), whose thread
 * (Muchun Song, LKML 2021-11) counted cmpxchg attempts per successful trylock
 * with bpftrace: 2.05 blind, 1.016 read-first on a 40-thread E5-2650
 * (docs/simulator.md §5).
 *
 * What a thread does until the window closes (op=):
 *   faa    atomic_fetch_add(line, 1)                        1 attempt
 *   xchg   atomic_xchg(line, id)                            1 attempt
 *   cas    blind: try_cmpxchg(line, &v, v + 1) with v = 0 first, then with
 *          the value each failure returned                  attempts counted
 *   rcas   read first: v = READ_ONCE(line), then try_cmpxchg(line, &v, v + 1)
 *          until it succeeds                                attempts counted
 *   store  WRITE_ONCE(line, id)                             1 attempt
 *   pingpong  the CAS ping-pong of nviennot/core-to-core-latency (its
 *          bench: the threads take turns, thread i waits for the value
 *          k * T + i and makes it k * T + i + 1 with cmpxchg, retrying
 *          without a pause): at T = 2, ns_per_success is that benchmark's
 *          figure (round trip / 2)                  attempts counted
 * then, with cs_ns > 0, cs_ns of work "inside" (for faa, cas and rcas the
 * count is a reader count: the critical section ends with
 * atomic_fetch_sub(line, 1), as up_read after a successful trylock; with
 * cs_ns > 0 the blind cas's first attempt therefore succeeds only when the
 * line reads 0, no reader inside: Muchun Song's setting); then think_ns of
 * work outside. Work is lab_busy_ns(): CPU time that touches no shared line.
 * The window is looked at every ATOMICS_BATCH (16) operations.
 *
 * Placement: by default the harness's --pin; stride=S > 0 puts worker i on
 * PU offset + i * S as the cell's bind_self() numbers PUs (natively hwloc's
 * logical index; under --sim the simulated CPU id in the machine file's
 * numbering, for linux the cores of socket 0, then of socket 1, then the
 * SMT siblings), so two threads can be put at one distance class. The line
 * is first touched by setup and prepare (the harness thread): under --sim
 * its home node is that thread's socket.
 *
 * Metrics per iteration: ops_per_s (successful operations per second, all
 * threads), ns_per_op (threads x window / successes: Travis Downs'
 * Nanos/Op), ns_per_success (window / successes: the line's interval
 * between two successes; the ping-pong's round trip / 2), attempts_per_success (cmpxchg attempts over successes; 1 for
 * faa, xchg, store) and its per-success distribution (attempts_p50,
 * attempts_p99, attempts_max), run_len (faa without cs_ns, from 2 threads:
 * successes per ownership run of the line), fairness (Jain's index over the
 * threads' successes, 1 = equal) and ops_min/ops_max, thread_ops.<id>.
 *
 * The lock variant (-l) is not used: run it with -l null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wait.h"
#include "workload.h"

enum { K_OP, K_THINK, K_CS, K_STRIDE, K_OFFSET };
enum { OP_FAA, OP_XCHG, OP_CAS, OP_RCAS, OP_STORE, OP_PINGPONG };

static const struct lab_knob atomics_knobs[] = {
	[K_OP] = { .name = "op", .type = LAB_KNOB_ENUM, .def = OP_FAA, .choices = "faa|xchg|cas|rcas|store|pingpong",
		   .positional = true,
		   .help = "faa fetch-add, xchg, cas blind cmpxchg loop (v5.15 trylock), rcas read-then-cmpxchg "
			   "loop (v5.16 trylock, Travis Downs' cas add), store plain store, pingpong the CAS "
			   "ping-pong of nviennot/core-to-core-latency (turns in thread order)" },
	[K_THINK] = { .name = "think_ns", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 100000000,
		      .help = "work between operations, ns of CPU time touching no shared line" },
	[K_CS] = { .name = "cs_ns", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 100000000,
		   .help = "work after each success, ns; faa/cas/rcas then undo with fetch_sub (a reader count)" },
	[K_STRIDE] = { .name = "stride", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 4096,
		       .help = "0: the harness's --pin; S: worker i on PU offset + i*S (natively hwloc's logical index, --sim the CPU id)" },
	[K_OFFSET] = { .name = "offset", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 4096,
		       .help = "with stride: the first worker's PU" },
	{ 0 }
};

/*
 * Operations between two looks at the window (Travis Downs' bench makes 1000
 * between clock reads): the look is a load of the cell's phase line, which
 * the simulator charges; one per 16 operations keeps it under 0.1 ns each.
 */
#define ATOMICS_BATCH 16

/* Attempts per success: 1..ATT_MAX-1 counted exactly, the rest in the last slot (max kept). */
#define ATT_MAX 64

struct atomics_stats {
	uint64_t attempts;
	uint64_t max;
	uint64_t runs;			/* faa: successes that began an ownership run */
	uint64_t hist[ATT_MAX];
};

struct atomics_thread {
	struct atomics_stats st;	/* zeroed when the window opens */
	long next;			/* pingpong: the value this thread waits for */
	long prev;			/* faa: the value this thread's last add returned */
} __lab_cacheline_aligned;

struct atomics {
	long line __lab_cacheline_aligned;	/* the one contended line */
	char pad[LAB_CACHELINE - sizeof(long)];
	int op, stride, offset, npus, nthreads;
	const uint32_t *phase;		/* the cell's phase: pingpong's spin stops with the window */
	uint64_t think_ns, cs_ns;
	struct atomics_thread *th;
};

static int atomics_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct atomics *a = aligned_alloc(LAB_CACHELINE, sizeof(*a));
	const long *k = cell->wl->knob;

	if (!a) {
		snprintf(err, errlen, "atomics: out of memory");
		return -1;
	}
	memset(a, 0, sizeof(*a));
	a->op = (int)k[K_OP];
	a->think_ns = (uint64_t)k[K_THINK];
	a->cs_ns = (uint64_t)k[K_CS];
	a->stride = (int)k[K_STRIDE];
	a->offset = (int)k[K_OFFSET];
	a->npus = cell->npus;
	a->nthreads = cell->nthreads;
	a->phase = &cell->phase;
	if (a->stride && a->offset + (cell->nthreads - 1) * a->stride >= cell->npus) {
		snprintf(err, errlen, "atomics: offset %d + (%d threads - 1) x stride %d is beyond the %d PUs",
			 a->offset, cell->nthreads, a->stride, cell->npus);
		free(a);
		return -1;
	}
	a->th = aligned_alloc(LAB_CACHELINE, (size_t)cell->nthreads * sizeof(*a->th));
	if (!a->th) {
		snprintf(err, errlen, "atomics: out of memory");
		free(a);
		return -1;
	}
	WRITE_ONCE(a->line, 0);		/* first touch: the line's home is the harness thread's node */
	*state = a;
	return 0;
}

static int atomics_prepare(void *state, const struct lab_cell *cell)
{
	struct atomics *a = state;

	memset(a->th, 0, (size_t)cell->nthreads * sizeof(*a->th));
	for (int i = 0; i < cell->nthreads; i++)
		a->th[i].next = i;
	WRITE_ONCE(a->line, 0);
	return 0;
}

/* One successful operation of thread @t (id @id, from 1); returns the attempts it took. */
static inline uint64_t atomics_op(struct atomics *a, struct atomics_thread *t, long id)
{
	uint64_t n = 1;
	long v;

	switch (a->op) {
	case OP_FAA:
		v = atomic_fetch_add(&a->line, 1);
		t->st.runs += v != t->prev + 1;	/* another add came between: a new run */
		t->prev = v;
		break;
	case OP_XCHG:
		atomic_xchg(&a->line, id);
		break;
	case OP_CAS:
		v = 0;		/* RWSEM_UNLOCKED_VALUE: the v5.15 trylock's guess */
		while (!atomic_try_cmpxchg(&a->line, &v, v + 1))
			n++;	/* v now holds what the line held */
		break;
	case OP_RCAS:
		v = READ_ONCE(a->line);
		while (!atomic_try_cmpxchg(&a->line, &v, v + 1))
			n++;
		break;
	case OP_STORE:
		WRITE_ONCE(a->line, id);
		break;
	default:	/* OP_PINGPONG: wait for my turn's value, no read, no pause */
		for (;;) {
			v = t->next;
			if (atomic_try_cmpxchg(&a->line, &v, t->next + 1))
				break;
			/* a partner that saw the window close never passes the turn */
			if (!(++n & 255) && READ_ONCE(*a->phase) == LAB_PHASE_STOP)
				return 0;
		}
		t->next += a->nthreads;
		break;
	}
	return n;
}

static void atomics_worker(void *state, struct lab_worker *w)
{
	struct atomics *a = state;
	struct atomics_thread *t = &a->th[w->id];
	struct atomics_stats *st = &t->st;
	bool undo = a->cs_ns && (a->op == OP_FAA || a->op == OP_CAS || a->op == OP_RCAS);
	uint32_t seen = LAB_PHASE_WARMUP;

	if (a->stride && w->cell->bind_self(a->offset + w->id * a->stride))
		lab_worker_fail(w, "atomics: cannot bind to the stride's PU");
	while (lab_worker_running(w)) {
		if (lab_unlikely(w->phase_seen != seen)) {
			seen = w->phase_seen;	/* the window opened: forget the warm-up */
			memset(st, 0, sizeof(*st));
		}
		for (int k = 0; k < ATOMICS_BATCH; k++) {
			uint64_t n = atomics_op(a, t, w->id + 1);

			if (!n)
				return;	/* pingpong: the window closed while waiting for a turn */
			st->attempts += n;
			st->hist[n < ATT_MAX ? n : ATT_MAX - 1]++;
			if (n > st->max)
				st->max = n;
			if (a->cs_ns)
				lab_busy_ns(a->cs_ns);
			if (undo)
				atomic_fetch_sub(&a->line, 1);
			w->ops++;
			if (a->think_ns)
				lab_busy_ns(a->think_ns);
		}
	}
}

/* The smallest attempt count that at least @q of the successes needed no more than. */
static uint64_t att_quantile(const uint64_t *hist, uint64_t total, uint64_t max, double q)
{
	uint64_t need = (uint64_t)(q * (double)total + 0.999999), acc = 0;

	for (int i = 1; i < ATT_MAX; i++) {
		acc += hist[i];
		if (acc >= need)
			return i == ATT_MAX - 1 ? max : (uint64_t)i;
	}
	return max;
}

static void atomics_metrics(void *state, const struct lab_iter *it, struct lab_sink *sink)
{
	struct atomics *a = state;
	uint64_t hist[ATT_MAX] = { 0 }, ops = 0, att = 0, max = 0, runs = 0, omin = UINT64_MAX, omax = 0;
	double sq = 0;

	for (int i = 0; i < it->nthreads; i++) {
		const struct atomics_stats *t = &a->th[i].st;
		uint64_t o = it->workers[i].ops;

		for (int b = 0; b < ATT_MAX; b++)
			hist[b] += t->hist[b];
		att += t->attempts;
		runs += t->runs;
		max = t->max > max ? t->max : max;
		ops += o;
		sq += (double)o * (double)o;
		omin = o < omin ? o : omin;
		omax = o > omax ? o : omax;
	}
	if (!ops) {
		lab_sink_fail(sink, "atomics: no operation succeeded in the window");
		return;
	}
	lab_emit(sink, "ops_per_s", (double)ops / it->wall_s, "op/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "ns_per_op", it->nthreads * it->wall_s * 1e9 / (double)ops, "ns", LAB_BETTER_LOWER);
	lab_emit(sink, "ns_per_success", it->wall_s * 1e9 / (double)ops, "ns", LAB_BETTER_LOWER);
	lab_emit(sink, "attempts_per_success", (double)att / (double)ops, "attempts", LAB_BETTER_LOWER);
	lab_emit(sink, "attempts_p50", (double)att_quantile(hist, ops, max, 0.50), "attempts", LAB_BETTER_LOWER);
	lab_emit(sink, "attempts_p99", (double)att_quantile(hist, ops, max, 0.99), "attempts", LAB_BETTER_LOWER);
	lab_emit(sink, "attempts_max", (double)max, "attempts", LAB_BETTER_LOWER);
	/*
	 * faa without cs_ns (no undo): successes per ownership run, a run being the
	 * adds a thread makes before another thread's add comes between (its add
	 * returned its own previous result + 1: Travis Downs' check, as
	 * rwlab-calibrate's faa_run_len): how many locked RMWs a line serves per
	 * hand-over at T threads.
	 */
	if (a->op == OP_FAA && !a->cs_ns && runs)
		lab_emit(sink, "run_len", (double)ops / (double)runs, "ops", LAB_BETTER_NONE);
	lab_emit(sink, "fairness", (double)ops * (double)ops / (it->nthreads * sq), "jain", LAB_BETTER_HIGHER);
	lab_emit(sink, "ops_min", (double)omin, "ops", LAB_BETTER_HIGHER);
	lab_emit(sink, "ops_max", (double)omax, "ops", LAB_BETTER_NONE);
	for (int i = 0; i < it->nthreads; i++) {
		char name[32];

		snprintf(name, sizeof(name), "thread_ops.%d", i);
		lab_emit(sink, name, (double)it->workers[i].ops, "ops", LAB_BETTER_NONE);
	}
}

static void atomics_teardown(void *state)
{
	struct atomics *a = state;

	free(a->th);
	free(a);
}

const struct lab_workload_ops lab_workload_atomics = {
	.name = "atomics",
	.simulated = true,
	.summary = "T threads on one line: fetch-add, xchg, blind or read-first cmpxchg loop, store; "
		   "successes/s, attempts per success, faa run length, fairness (-l null)",
	.cite = "Travis Downs, A Concurrency Cost Hierarchy (2020); Muchun Song, LKML 2021-11, "
		"commit 14c24048841151548a3f4d9e218510c844c1b737",
	.kind = LAB_WL_TIMED,
	.knobs = atomics_knobs,
	.headline = "ops_per_s",
	.setup = atomics_setup,
	.prepare = atomics_prepare,
	.worker = atomics_worker,
	.metrics = atomics_metrics,
	.teardown = atomics_teardown,
};
