/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workloads/workload.h - the interface every workload implements.
 *
 * A workload is one file workloads/<name>.c exporting one
 * `const struct lab_workload_ops`. The harness runs it as a matrix of cells
 * (lock variant x workload x thread count), each cell for -n iterations:
 *
 *   setup(cell)                  once per cell: allocate, create locks
 *   for each iteration:
 *     prepare(iteration)         unmeasured (pft unpopulates its region here)
 *     N x worker(w)              on N pinned threads released by one barrier
 *     metrics(iteration)         emit the workload's metrics for the window
 *   teardown()
 *
 * Two kinds:
 * - LAB_WL_TIMED (locktest): workers loop `while (lab_worker_running(w))`;
 *   the harness opens the measurement window after --warmup and closes it
 *   after --duration. Counters in struct lab_worker are zeroed by the worker
 *   itself when it first sees the window open.
 * - LAB_WL_WORK (pft): each worker does a fixed amount of work and returns;
 *   the window runs from the barrier release to the last worker's return.
 *   --warmup > 0 runs one unrecorded pass first.
 *
 * Threading: setup/prepare/metrics/teardown run on the harness thread with no
 * worker running; worker() runs concurrently on every worker thread and
 * writes only its own struct lab_worker (cache-line aligned).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "events.h"
#include "knob.h"
#include "rwsem.h"

enum lab_phase { LAB_PHASE_WARMUP = 0, LAB_PHASE_MEASURE = 1, LAB_PHASE_STOP = 2 };
enum lab_better { LAB_BETTER_NONE = 0, LAB_BETTER_HIGHER, LAB_BETTER_LOWER };

struct lab_workload_ops;
struct lab_lazy_mm_conf;		/* locks/lazy_mm.h */

struct lab_workload_conf {
	const struct lab_workload_ops *ops;
	long knob[LAB_KNOBS_MAX];
	char label[LAB_SPEC_MAX];	/* "name" or "name:key=val,..." (non-default knobs) */
};

/* Run-wide settings a workload may read (filled from the command line). */
struct lab_run_settings {
	uint64_t duration_ns;		/* -d: measurement window of TIMED workloads */
	uint64_t warmup_ns;		/* --warmup */
	uint64_t seed;			/* --seed */
	bool allow_unsafe;		/* --unsafe: accept LAB_LAZY_UNSAFE schemes under release load */
	const char *repo;		/* --repo: git tree for gitcheckout (NULL: the git/git releases shipped in rwlab) */
	const char *commits;		/* --commits: commits, shipped releases or manifest files (NULL: default) */
};

/* One cell, as a workload sees it. */
struct lab_cell {
	const struct lab_rwsem_conf *lock;
	const struct lab_workload_conf *wl;
	const struct lab_run_settings *run;
	const struct lab_lazy_mm_conf *lazy_mm;	/* the scheme, for uses_lazy_mm workloads (lock is NULL) */
	int nthreads;
	int iteration;			/* 0-based; -1 for a warm-up pass */
	/*
	 * CPU placement, from the harness (which owns the topology): the
	 * number of PUs the process may run on, and a call that binds the
	 * calling thread to PU 0..npus-1 (returns 0 or -1). A workload that
	 * places helper threads of its own uses these, not a harness header.
	 */
	int npus;
	int (*bind_self)(int pu);
	void *shared;			/* what the cells of its block share (ops->share), or NULL */
	uint32_t phase __lab_cacheline_aligned;	/* enum lab_phase; read by every worker every op */
	char pad[LAB_CACHELINE - sizeof(uint32_t)];
};

#define LAB_WORKER_COUNTS 6

struct lab_worker {
	/* set by the harness before the barrier */
	int id;				/* 0..nthreads-1 */
	int cpu;			/* PU it is pinned to, -1 if unpinned */
	uint64_t rng;			/* per-thread PRNG state (lab_worker_rand) */
	const struct lab_cell *cell;
	uint32_t phase_seen;
	/* measured: zeroed when the window opens */
	uint64_t ops;			/* the workload's unit of work (lock ops, faults, ...) */
	uint64_t reads, writes;
	uint64_t count[LAB_WORKER_COUNTS];	/* workload-defined */
	uint64_t t_start, t_end;	/* ns (CLOCK_MONOTONIC), set by the harness */
	struct lab_events events;	/* the thread's lock events over the window */
	const char *failed;		/* set by lab_worker_fail(): the iteration failed */
} __lab_cacheline_aligned;

/*
 * lab_worker_fail() - the worker could not do its work (an allocation, a
 * system call, wrong data): the cell fails, named with @why (a string that
 * outlives the iteration, e.g. a literal), and its rows are not written.
 * The worker should return soon after.
 */
static inline void lab_worker_fail(struct lab_worker *w, const char *why)
{
	if (!w->failed)
		w->failed = why;
}

static inline void lab_worker_reset(struct lab_worker *w)
{
	w->ops = w->reads = w->writes = 0;
	for (int i = 0; i < LAB_WORKER_COUNTS; i++)
		w->count[i] = 0;
	lab_events_reset();
}

/*
 * lab_worker_running() - poll the cell's phase once per operation. Returns
 * false once the window has closed. Zeroes the worker's counters (and its
 * lock events) when it first observes the window open.
 */
static inline bool lab_worker_running(struct lab_worker *w)
{
	uint32_t ph = READ_ONCE(w->cell->phase);

	if (lab_unlikely(ph != w->phase_seen)) {
		if (ph == LAB_PHASE_MEASURE)
			lab_worker_reset(w);
		w->phase_seen = ph;
	}
	return ph != LAB_PHASE_STOP;
}

/* xorshift64* (Vigna 2016): per-thread, never shared. */
static inline uint64_t lab_worker_rand(struct lab_worker *w)
{
	uint64_t x = w->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	w->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* What a workload's metrics() sees for one iteration. */
struct lab_iter {
	const struct lab_cell *cell;
	const struct lab_worker *workers;
	int nthreads;
	double wall_s;			/* window length */
	double user_s, sys_s;		/* getrusage(RUSAGE_SELF) deltas over the window */
};

struct lab_sink {
	void (*emit)(void *ctx, const char *metric, double value, const char *unit,
		     enum lab_better better);
	void *ctx;
	void (*fail)(void *ctx, const char *why);	/* may be NULL: failures are ignored */
};

/*
 * lab_sink_fail() - metrics() found the iteration's data wrong: the cell
 * fails with @why (copied) and its rows are not written. Metrics that must
 * be zero (errors, tree_mismatch, task_errors, ...) need not call this: the
 * harness fails a cell whose such metric is not zero.
 */
static inline void lab_sink_fail(struct lab_sink *s, const char *why)
{
	if (s->fail)
		s->fail(s->ctx, why);
}

static inline void lab_emit(struct lab_sink *s, const char *metric, double value, const char *unit,
			    enum lab_better better)
{
	s->emit(s->ctx, metric, value, unit, better);
}

/*
 * lab_emit_rates() - will-it-scale's per-thread view of an iteration of a
 * TIMED workload: ops_per_s (every thread's w->ops over the window),
 * ops_per_s_min and ops_per_s_max (the slowest and the fastest thread's
 * rate), in that order. Returns the operations summed over the threads.
 */
static inline double lab_emit_rates(struct lab_sink *sink, const struct lab_iter *it)
{
	double min = 1e300, max = 0, sum = 0;

	for (int i = 0; i < it->nthreads; i++) {
		double rate = (double)it->workers[i].ops / it->wall_s;

		min = rate < min ? rate : min;
		max = rate > max ? rate : max;
		sum += (double)it->workers[i].ops;
	}
	lab_emit(sink, "ops_per_s", sum / it->wall_s, "op/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "ops_per_s_min", min, "op/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "ops_per_s_max", max, "op/s", LAB_BETTER_HIGHER);
	return sum;
}

enum lab_wl_kind { LAB_WL_TIMED, LAB_WL_WORK };

struct lab_workload_ops {
	const char *name;
	const char *summary;
	const char *cite;
	enum lab_wl_kind kind;
	bool work_split;		/* LAB_WL_WORK: an iteration's work is the same at every -t, split
					 * among the threads (pft's region, vmscale's unit_mb, gitcheckout's
					 * checkouts); a --sim run's ETA then weighs its cells by iterations
					 * alone (lab_cell_work()) */
	const struct lab_knob *knobs;
	const char *headline;		/* metric shown in run's summary table */
	bool uses_lazy_mm;		/* cells iterate over -m lazy-mm schemes instead of -l locks */
	const char *count_unit;		/* what -t counts, as reports name it; NULL: "threads" */
	bool simulated;			/* runs under --sim: every shared access and wait goes through
					 * the locks/ seams and its kernel and user work is charged
					 * from the machine file (sim/README.md) */
	bool needs_exclusion;		/* its data is protected by the cell's lock: a variant without
					 * LAB_CAP_EXCLUSION (null) would corrupt it, so runs skip it */
	/*
	 * The largest -t this workload runs when @tasks task ids (locks/wait.h)
	 * are free for it: its workers and helper threads (partners, interrupt
	 * threads, walkers) use locks/ at once. NULL: one task per -t, so @tasks.
	 */
	int (*max_threads)(const struct lab_workload_conf *wl, int tasks);

	/* Returns 0, or -1 with a one-line message in err. */
	int (*setup)(void **state, const struct lab_cell *cell, char *err, size_t errlen);
	int (*prepare)(void *state, const struct lab_cell *cell);	/* may be NULL; 0 or -errno */
	void (*worker)(void *state, struct lab_worker *w);	/* fails with lab_worker_fail() */
	void (*metrics)(void *state, const struct lab_iter *it, struct lab_sink *sink);	/* lab_sink_fail() */
	void (*teardown)(void *state);

	/*
	 * The memory budget (README "Memory"), all optional. A comparison block
	 * (this workload at one thread count, each variant) runs one cell at a
	 * time, so what its cells hold in turn can be one thing: share() makes
	 * it once, before the cells' setup() (its cell has no lock: lock NULL),
	 * each cell finds it in cell->shared, and unshare() frees it after their
	 * teardown(). release() runs after every iteration's metrics() (the
	 * warm-up pass's too): what the iteration holds of the shared memory goes
	 * back, for the next cell (0 or -errno like prepare()).
	 * footprint() says, before a run, the host memory in bytes a cell of @wl
	 * with @nthreads threads holds at its peak (*per_cell) and what its block
	 * shares (*shared); size_knob names the knob that sizes it ("size_mb"),
	 * for the line that refuses a plan that does not fit. A workload without
	 * footprint() counts LAB_FOOTPRINT_CELL per cell and LAB_FOOTPRINT_THREAD
	 * per thread.
	 */
	int (*share)(void **shared, const struct lab_cell *cell, char *err, size_t errlen);
	void (*unshare)(void *shared);
	void (*release)(void *state, const struct lab_cell *cell);
	void (*footprint)(const struct lab_workload_conf *wl, int nthreads, size_t *per_cell, size_t *shared);
	const char *size_knob;
};

/*
 * The host memory a workload without footprint() is counted to hold: per cell
 * and per worker thread (its stack's touched pages, its struct lab_worker).
 * Measured: locktest, context_switch, tlb_flush, atomics and futex_pingpong at
 * 1 and 2 threads peak at 5.3-6.0 MB of RSS with rwlab's own 5.3 MB in it;
 * reaim at 12-14 MB (results/harness/README.md).
 */
#define LAB_FOOTPRINT_CELL (1ul << 20)
#define LAB_FOOTPRINT_THREAD (256ul << 10)

/*
 * lab_workload_footprint() - what a cell of @wl at @nthreads holds at its
 * peak and its block shares, in bytes (ops->footprint(), or the defaults
 * above). Threading: pure.
 */
void lab_workload_footprint(const struct lab_workload_conf *wl, int nthreads, size_t *per_cell, size_t *shared);

/*
 * Task ids (LAB_MAX_TASKS, locks/wait.h) the harness keeps for itself: its own
 * thread, which makes the cell's locks and may take them. The rest are the
 * workload's (.max_threads).
 */
#define LAB_HARNESS_TASKS 1

/* ---- registry (workloads/registry.c) ---------------------------------- */

extern const struct lab_workload_ops *const lab_workloads[];
struct lab_registry;
/* The workloads as a plugin registry (locks/plugin.h). */
extern const struct lab_registry lab_workload_registry;
const struct lab_workload_ops *lab_workload_lookup(const char *name);
void lab_workload_names(char *buf, size_t len);
/* Parse "-w" lists: "locktest,pft:size_mb=64,locktest:rpct=90". Same rules as lab_rwsem_parse_list. */
int lab_workload_parse(const char *spec, struct lab_workload_conf *conf, char *err, size_t errlen);
int lab_workload_parse_list(const char *arg, struct lab_workload_conf *confs, int max, int *n,
			    char *err, size_t errlen);
/*
 * lab_workload_max_threads() - the largest thread count (-t) a cell of @wl
 * can run: what its .max_threads allows within LAB_MAX_TASKS less the
 * harness's LAB_HARNESS_TASKS. The one limit, natively and simulated alike:
 * run checks every -t against it before the first cell, setup() again.
 */
int lab_workload_max_threads(const struct lab_workload_conf *wl);
/*
 * lab_workload_expand_knob() - give every workload in confs[0..*n) that has a
 * knob named @key one copy per value of the comma-separated @values (in that
 * order; workloads without the knob stay as they are), e.g. --mm-lock
 * mmap,vma turns "pft" into "pft" and "pft:mm_lock=vma". Returns 0, or -1 with
 * a message if a value is invalid, no workload has the knob or more than @max
 * would result.
 */
int lab_workload_expand_knob(struct lab_workload_conf *confs, int max, int *n, const char *key,
			     const char *values, char *err, size_t errlen);
