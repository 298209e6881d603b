/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The plan of `rwlab run` and its shards (`--list-cells`, `--shard I/N`).
 *
 * The plan is the runner's cell order: workload -> thread count -> variant.
 * A comparison block is one workload at one thread count with every variant
 * (lock variants, or lazy-mm schemes for lazy-mm workloads): the cells one
 * comparison table row puts side by side. Blocks are numbered 1.. in plan
 * order; a cell's id is "BLOCK.VARIANT" (both 1-based), stable for a given
 * set of run options. Shard I of N (1 <= I <= N) runs the blocks B with
 * (B - 1) % N == I - 1: round robin, so the slow high thread counts spread
 * over the shards, and every A/B comparison is measured on one host.
 *
 * Each row of a run's CSV carries "shard" (I/N, or "" when the whole plan
 * runs) and "plan": a fingerprint of the whole plan's cell list, e.g.
 *   fp=3f2a9c0e11d04b7a cells=24 blocks=6
 * The run settings (-d, --warmup, -n, --seed, --order) are in the "settings"
 * column beside them (csv.h). merge.h reads them back to check that shards
 * belong to one matrix.
 *
 * Threading: single-threaded (the harness thread).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct lab_context;
struct lab_run_opts;

struct lab_shard {
	int index;			/* 1-based */
	int count;			/* 0: no sharding, the whole plan */
};

/*
 * lab_shard_parse() - parse "I/N" (1 <= I <= N <= 100000). Returns 0, or -1
 * with "bad --shard 'x' (I/N with 1 <= I <= N, e.g. 2/4)" in @err.
 */
int lab_shard_parse(const char *s, struct lab_shard *sh, char *err, size_t errlen);

/*
 * Is variant @vi of workload @wi in the plan? Not a lock variant that claims
 * no exclusion (null) on a workload whose data the lock protects: the runner
 * leaves such cells out (runner.h), and so do the counts, --list-cells and
 * the fingerprint.
 */
bool lab_plan_runs(const struct lab_run_opts *o, int wi, int vi);
/* Comparison blocks of the plan: workloads x thread counts. */
int lab_plan_nblocks(const struct lab_run_opts *o);
/* Cells of the plan; with @shard_only, only those of o->shard. */
int lab_plan_ncells(const struct lab_run_opts *o, bool shard_only);
/* Does o->shard run block @wi x @ti (workload and thread count indexes)? */
bool lab_shard_has_block(const struct lab_run_opts *o, int wi, int ti);

/*
 * lab_shard_check() - refuse a shard count above the plan's blocks (a shard
 * would be empty). Returns 0, or -1 with a one-line reason in @err.
 */
int lab_shard_check(const struct lab_run_opts *o, char *err, size_t errlen);

/*
 * lab_plan_list() - `run --list-cells`: one line per cell of the plan (of
 * o->shard's part with --shard): "ID SHARD WORKLOAD THREADS VARIANT", after a
 * "#" header line. SHARD is "I/N", or "-" without --shard. Returns 0.
 */
int lab_plan_list(FILE *f, const struct lab_run_opts *o);

/* Fill ctx->shard and ctx->plan for the rows of this run. */
void lab_plan_context(struct lab_context *ctx, const struct lab_run_opts *o);
