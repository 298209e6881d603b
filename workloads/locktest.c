/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locktest - Waiman Long's rwsem locking microbenchmark, re-implemented.
 *
 * Citation: the "locktest" runs quoted in Waiman Long's rwsem threads on LKML
 * (e.g. the 2023-02-27 direct-handoff thread: "Running locktest with rwsem
 * [runtime = 15s, r% = 50%, load = 100]", then "Threads = N, Min/Mean/Max =
 * a/b/c" and "Total Rate = x op/s; Percpu Rate = y op/s"), and the v5.11
 * "CS Load" = 1/20/100 pause instructions evaluation; docs/workloads.md §5.
 *
 * What a thread does, until the window closes:
 *   pick read (probability rpct%) or write at random, per operation (or,
 *   with writers=N, threads 0..N-1 always write and the others always read:
 *   the "readers streaming, one writer" starvation scenario);
 *   down_read/down_write; lab_delay(load); up_read/up_write;
 *   lab_delay(think)                        (the between-sections load)
 * Units of load/think: cpu_relax() (PAUSE) iterations.
 *
 * Metrics per iteration: per-thread operations over the window as
 * ops_min/ops_mean/ops_max (the Min/Mean/Max line), total_rate (op/s),
 * percpu_rate (op/s per thread), the read and write counts, and (lat=1,
 * the default) the acquisition latency of reads and writes, p50/p99/max in
 * ns, from per-thread histograms (workloads/latency.h). Timing costs two
 * clock reads per operation; lat=0 turns it off.
 * percpu_rate (op/s per thread), the read and write counts, and each
 * thread's operations as thread_ops.<id> (for `rwlab plot --fairness`).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "latency.h"
#include "wait.h"
#include "workload.h"

enum { K_RPCT, K_LOAD, K_THINK, K_LAT, K_WRITERS };

static const struct lab_knob locktest_knobs[] = {
	[K_RPCT] = { .name = "rpct", .type = LAB_KNOB_INT, .def = 50, .min = 0, .max = 100,
		     .help = "percent of operations that are reads (r%)" },
	[K_LOAD] = { .name = "load", .type = LAB_KNOB_INT, .def = 100, .min = 0, .max = 1000000,
		     .help = "critical-section load, cpu_relax() iterations (locktest 'load')" },
	[K_THINK] = { .name = "think", .type = LAB_KNOB_INT, .def = 100, .min = 0, .max = 1000000,
		      .help = "between-sections load, cpu_relax() iterations" },
	[K_LAT] = { .name = "lat", .type = LAB_KNOB_BOOL, .def = 1,
		    .help = "time every acquisition (2 clock reads per op) for p50/p99/max latency" },
	[K_WRITERS] = { .name = "writers", .type = LAB_KNOB_INT, .def = -1, .min = -1, .max = 1024,
			.help = "-1: every op picks read/write by rpct; N >= 0: threads 0..N-1 only write, the rest only read" },
	{ 0 }
};

struct locktest_lat {
	struct lab_hist rd, wr;		/* acquisition latency, ns */
} __lab_cacheline_aligned;

struct locktest {
	struct lab_lock lock;
	unsigned rthresh;	/* read if (rand % 100) < rthresh */
	int writers;		/* fixed roles: threads below this id only write (-1: mixed) */
	unsigned long load, think;
	bool lat;
	struct locktest_lat *hist;	/* one per thread */
};

static int locktest_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct locktest *lt = calloc(1, sizeof(*lt));
	int r;

	if (!lt) {
		snprintf(err, errlen, "locktest: out of memory");
		return -1;
	}
	r = lab_lock_init(&lt->lock, cell->lock);
	if (r) {
		snprintf(err, errlen, "locktest: cannot init %s: error %d", cell->lock->label, r);
		free(lt);
		return -1;
	}
	lt->rthresh = (unsigned)cell->wl->knob[K_RPCT];
	lt->writers = (int)cell->wl->knob[K_WRITERS];
	lt->load = (unsigned long)cell->wl->knob[K_LOAD];
	lt->think = (unsigned long)cell->wl->knob[K_THINK];
	lt->lat = cell->wl->knob[K_LAT] != 0;
	if (lt->lat) {
		lt->hist = aligned_alloc(LAB_CACHELINE, (size_t)cell->nthreads * sizeof(*lt->hist));
		if (!lt->hist) {
			snprintf(err, errlen, "locktest: out of memory");
			lab_lock_destroy(&lt->lock);
			free(lt);
			return -1;
		}
	}
	*state = lt;
	return 0;
}

static void locktest_worker(void *state, struct lab_worker *w)
{
	struct locktest *lt = state;
	const struct lab_lock *l = &lt->lock;
	struct locktest_lat *h = lt->lat ? &lt->hist[w->id] : NULL;
	uint32_t seen = LAB_PHASE_WARMUP;
	/* Fixed roles: a writer thread never reads, a reader thread never writes. */
	unsigned rthresh = lt->writers < 0 ? lt->rthresh : w->id < lt->writers ? 0 : 100;

	if (h) {
		lab_hist_reset(&h->rd);
		lab_hist_reset(&h->wr);
	}
	while (lab_worker_running(w)) {
		uint64_t t0 = 0;

		if (h && lab_unlikely(w->phase_seen != seen)) {
			/* The window just opened: forget the warm-up's latencies. */
			seen = w->phase_seen;
			lab_hist_reset(&h->rd);
			lab_hist_reset(&h->wr);
		}
		if (h)
			t0 = lab_clock_ns();
		if (lab_worker_rand(w) % 100 < rthresh) {
			lab_down_read(l);
			if (h)
				lab_hist_add(&h->rd, lab_clock_ns() - t0);
			lab_delay(lt->load);
			lab_up_read(l);
			w->reads++;
		} else {
			lab_down_write(l);
			if (h)
				lab_hist_add(&h->wr, lab_clock_ns() - t0);
			lab_delay(lt->load);
			lab_up_write(l);
			w->writes++;
		}
		w->ops++;
		lab_delay(lt->think);
	}
}

static void locktest_metrics(void *state, const struct lab_iter *it, struct lab_sink *sink)
{
	struct locktest *lt = state;
	uint64_t min = UINT64_MAX, max = 0, sum = 0, rd = 0, wr = 0;

	for (int i = 0; i < it->nthreads; i++) {
		const struct lab_worker *w = &it->workers[i];

		min = w->ops < min ? w->ops : min;
		max = w->ops > max ? w->ops : max;
		sum += w->ops;
		rd += w->reads;
		wr += w->writes;
	}
	lab_emit(sink, "ops_min", (double)min, "ops", LAB_BETTER_HIGHER);
	lab_emit(sink, "ops_mean", (double)sum / it->nthreads, "ops", LAB_BETTER_HIGHER);
	lab_emit(sink, "ops_max", (double)max, "ops", LAB_BETTER_HIGHER);
	lab_emit(sink, "total_rate", (double)sum / it->wall_s, "op/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "percpu_rate", (double)sum / it->wall_s / it->nthreads, "op/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "reads", (double)rd, "ops", LAB_BETTER_NONE);
	lab_emit(sink, "writes", (double)wr, "ops", LAB_BETTER_NONE);
	for (int i = 0; i < it->nthreads; i++) {
		char name[32];

		snprintf(name, sizeof(name), "thread_ops.%d", i);
		lab_emit(sink, name, (double)it->workers[i].ops, "ops", LAB_BETTER_NONE);
	}
	if (lt->lat) {
		struct lab_hist *rh = calloc(2, sizeof(*rh)), *wh = rh ? rh + 1 : NULL;

		if (!rh)
			return;
		for (int i = 0; i < it->nthreads; i++) {
			lab_hist_merge(rh, &lt->hist[i].rd);
			lab_hist_merge(wh, &lt->hist[i].wr);
		}
		/* Acquisition latency: from calling down_* to holding the lock. */
		lab_emit(sink, "read_lat_p50_ns", (double)lab_hist_quantile(rh, 0.50), "ns", LAB_BETTER_LOWER);
		lab_emit(sink, "read_lat_p99_ns", (double)lab_hist_quantile(rh, 0.99), "ns", LAB_BETTER_LOWER);
		lab_emit(sink, "read_lat_max_ns", (double)rh->max, "ns", LAB_BETTER_LOWER);
		lab_emit(sink, "write_lat_p50_ns", (double)lab_hist_quantile(wh, 0.50), "ns", LAB_BETTER_LOWER);
		lab_emit(sink, "write_lat_p99_ns", (double)lab_hist_quantile(wh, 0.99), "ns", LAB_BETTER_LOWER);
		lab_emit(sink, "write_lat_max_ns", (double)wh->max, "ns", LAB_BETTER_LOWER);
		free(rh);
	}
}

static void locktest_teardown(void *state)
{
	struct locktest *lt = state;

	lab_lock_destroy(&lt->lock);
	free(lt->hist);
	free(lt);
}

const struct lab_workload_ops lab_workload_locktest = {
	.name = "locktest",
	.simulated = true,
	.summary = "Waiman Long's rwsem microbenchmark: r% reads, CS load, think load; Min/Mean/Max ops",
	.cite = "Waiman Long's locktest, LKML rwsem threads 2019-2023 (docs/workloads.md §5)",
	.kind = LAB_WL_TIMED,
	.knobs = locktest_knobs,
	.headline = "total_rate",
	.setup = locktest_setup,
	.worker = locktest_worker,
	.metrics = locktest_metrics,
	.teardown = locktest_teardown,
};
