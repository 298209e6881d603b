/* SPDX-License-Identifier: GPL-2.0-only */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "context.h"
#include "csv.h"
#include "null_impl.h"
#include "topology.h"
#include "wait.h"

#define PROG "rwlab bench"	/* what its error lines begin with (cmd_bench.c's) */
#include "workload.h"

static double ns_per(uint64_t t0, uint64_t t1, unsigned long n)
{
	return (double)(t1 - t0) / (double)n;
}

static double bench_read(const struct lab_lock *l, unsigned long pairs)
{
	const struct lab_rwsem_ops *ops = l->ops;
	struct lab_rwsem *sem = l->sem;
	uint64_t t0 = lab_clock_ns();

	for (unsigned long i = 0; i < pairs; i++) {
		ops->down_read(sem);
		ops->up_read(sem);
	}
	return ns_per(t0, lab_clock_ns(), pairs);
}

static double bench_write(const struct lab_lock *l, unsigned long pairs)
{
	const struct lab_rwsem_ops *ops = l->ops;
	struct lab_rwsem *sem = l->sem;
	uint64_t t0 = lab_clock_ns();

	for (unsigned long i = 0; i < pairs; i++) {
		ops->down_write(sem);
		ops->up_write(sem);
	}
	return ns_per(t0, lab_clock_ns(), pairs);
}

static double bench_null_direct_read(struct lab_rwsem *sem, unsigned long pairs)
{
	uint64_t t0 = lab_clock_ns();

	for (unsigned long i = 0; i < pairs; i++) {
		null_down_read(sem);
		null_up_read(sem);
	}
	return ns_per(t0, lab_clock_ns(), pairs);
}

static double bench_null_direct_write(struct lab_rwsem *sem, unsigned long pairs)
{
	uint64_t t0 = lab_clock_ns();

	for (unsigned long i = 0; i < pairs; i++) {
		null_down_write(sem);
		null_up_write(sem);
	}
	return ns_per(t0, lab_clock_ns(), pairs);
}

/* The locktest worker loop (poll, random choice, dispatch, count) with null and no load. */
static double bench_harness_loop(const struct lab_lock *l, unsigned long ops)
{
	struct lab_cell *cell = aligned_alloc(LAB_CACHELINE, sizeof(*cell));
	struct lab_worker *w = aligned_alloc(LAB_CACHELINE, sizeof(*w));
	uint64_t t0;
	double r;

	if (!cell || !w) {	/* NAN: the caller reports it */
		free(cell);
		free(w);
		return NAN;
	}
	memset(cell, 0, sizeof(*cell));
	memset(w, 0, sizeof(*w));
	cell->phase = LAB_PHASE_MEASURE;
	w->cell = cell;
	w->rng = 88172645463325252ull;
	w->phase_seen = LAB_PHASE_MEASURE;
	t0 = lab_clock_ns();
	while (lab_worker_running(w) && w->ops < ops) {
		if (lab_worker_rand(w) % 100 < 50) {
			lab_down_read(l);
			lab_delay(0);
			lab_up_read(l);
			w->reads++;
		} else {
			lab_down_write(l);
			lab_delay(0);
			lab_up_write(l);
			w->writes++;
		}
		w->ops++;
		lab_delay(0);
	}
	r = ns_per(t0, lab_clock_ns(), ops);
	free(cell);
	free(w);
	return r;
}

typedef double (*bench_fn)(const struct lab_lock *, unsigned long);

static double best_of(bench_fn fn, const struct lab_lock *l, unsigned long pairs, int reps)
{
	double best = 1e300;

	fn(l, pairs / 10 + 1);	/* warm up caches and branch predictors */
	for (int i = 0; i < reps; i++) {
		double v = fn(l, pairs);

		if (isnan(v))
			return v;
		best = v < best ? v : best;
	}
	return best;
}

static void add_row(struct lab_buf *rows, const char *run_id, const char *variant, const char *metric,
		    double v, const char *host)
{
	lab_csv_row_prefix(rows, run_id, variant, "bench:uncontended", 1, 0);
	lab_csv_row_rest(rows, metric, v, "ns", host, "lower");
}

int lab_bench_run(const struct lab_bench_opts *o)
{
	struct lab_context ctx;
	struct lab_csv_writer csv = { .fd = -1, .prog = PROG };
	struct lab_buf rows = { 0 };
	char err[1024], run_id[64], why[256];
	/* -o -: stdout is the CSV (for 'rwlab report -'), so the table goes to stderr */
	FILE *tab = o->csv_path && !strcmp(o->csv_path, "-") ? stderr : stdout;
	int status = 0, ret;

	lab_context_get(&ctx);
	if (o->csv_path && lab_csv_open(&csv, o->csv_path, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;	/* bad input, refused before anything is measured (as run refuses it) */
	}
	if (lab_context_untrusted(&ctx, why, sizeof(why)))
		fprintf(stderr, "WARNING: %s\n", why);
	lab_topology_init();
	if (lab_topology_bind_self(0))
		fprintf(stderr, "WARNING: could not pin the benchmark thread\n");
	lab_csv_run_id(run_id, sizeof(run_id));
	if (o->csv_path)
		lab_csv_set_context(&csv, run_id, &ctx, "compact");

	fprintf(tab, "uncontended lock+unlock pairs, 1 thread, best of %d x %lu pair%s (ns per pair)\n", o->reps,
		o->pairs, o->pairs == 1 ? "" : "s");
	fprintf(tab, "%-28s %14s %14s\n", "variant", "read pair", "write pair");
	for (int i = 0; i < o->nlocks; i++) {
		struct lab_lock l;
		double rd, wr;

		if (lab_lock_init(&l, &o->locks[i])) {
			fprintf(stderr, PROG ": cannot init %s\n", o->locks[i].label);
			status = 1;
			continue;
		}
		rd = best_of(bench_read, &l, o->pairs, o->reps);
		wr = best_of(bench_write, &l, o->pairs, o->reps);
		fprintf(tab, "%-28s %14.2f %14.2f\n", o->locks[i].label, rd, wr);
		add_row(&rows, run_id, o->locks[i].label, "read_pair_ns", rd, ctx.host);
		add_row(&rows, run_id, o->locks[i].label, "write_pair_ns", wr, ctx.host);
		if (o->locks[i].ops == &lab_rwsem_null_ops) {
			double drd = 1e300, dwr = 1e300, h;

			bench_null_direct_read(l.sem, o->pairs / 10 + 1);
			for (int r = 0; r < o->reps; r++) {
				double a = bench_null_direct_read(l.sem, o->pairs);
				double b = bench_null_direct_write(l.sem, o->pairs);

				drd = a < drd ? a : drd;
				dwr = b < dwr ? b : dwr;
			}
			h = best_of(bench_harness_loop, &l, o->pairs, o->reps);
			if (isnan(h)) {
				fprintf(stderr, PROG ": out of memory for the harness-loop benchmark\n");
				status = 1;
				lab_lock_destroy(&l);
				continue;
			}
			fprintf(tab, "%-28s %14.2f %14.2f\n", "null (direct call)", drd, dwr);
			fprintf(tab, "%-28s %14.2f ns per operation (locktest loop, load=0 think=0)\n",
			       "null harness overhead", h);
			add_row(&rows, run_id, "null-direct", "read_pair_ns", drd, ctx.host);
			add_row(&rows, run_id, "null-direct", "write_pair_ns", dwr, ctx.host);
			add_row(&rows, run_id, "null", "harness_op_ns", h, ctx.host);
		}
		lab_lock_destroy(&l);
	}
	if (csv.fd >= 0) {
		if ((ret = lab_csv_append(&csv, rows.p, rows.len))) {
			fprintf(stderr, PROG ": writing %s failed: %s\n", csv.path, lab_csv_append_why(ret));
			status = 1;
		}
		lab_csv_close(&csv);
	}
	lab_buf_free(&rows);
	return status;
}
