/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Merging the CSVs of a sharded run (`rwlab merge`, `rwlab report A.csv B.csv
 * ...`): shard.h explains shards and the shard and plan columns.
 *
 * Checks, with one line each on stderr:
 * - refused (status 2): unreadable or malformed files, files of two CSV
 *   schemas, files of two plans (another matrix, other run options: the
 *   plan fingerprints differ), a file of no plan beside a run's (not a
 *   shard of that run: bench-lazy's), two shard counts, one shard in two files,
 *   one cell (variant, workload, threads; the labels as run writes them,
 *   lab_results_variant_label()) in two files or measured on two
 *   hosts (a cell is never pooled across hosts or shards), and rows of two
 *   hosts at all unless mixed_hosts (rwlab merge --mixed-hosts; rwlab slurm
 *   and report pass it: their shards run on a lab's identical servers).
 * - warned: the hosts differ in cpu_model, cpus or kernel, the builds in
 *   compiler, build_type, allocator, event_counts, git_rev or pin, or the
 *   shards in a run setting of the plan column (n, d, warmup, seed). Each
 *   warning names the column, the files (FILE:LINE, shard, host) and both
 *   values.
 * - incomplete (status 1): shards no file holds (named, with their
 *   comparison blocks), cells missing from the grid the files span
 *   (workloads x thread counts x each workload's variants), fewer cells
 *   than the plan's count, and a file whose last cell is unfinished (not
 *   iterations 0..N-1 with as many rows each, as report judges it) or whose
 *   last line is torn (an interrupted write): the torn line and the
 *   unfinished cell, all its rows, are left out of the merged file.
 *
 * Threading: single-threaded. Memory: everything is freed before returning.
 */
#pragma once

#include <stdbool.h>

struct lab_merge_opts {
	const char *const *paths;	/* shard CSVs, in any order */
	int npaths;
	const char *out;		/* merged CSV (an existing one is kept as OUT.N), or NULL: check only */
	const char *prog;		/* its lines begin "@prog: " ("rwlab report"); NULL: "rwlab merge" */
	bool quiet;			/* no summary line; an unreadable or malformed file: status 0,
					 * silently (the caller reads it and says why) */
	bool only_shards;		/* check only when a row carries a shard (run --shard) */
	bool by_host;			/* one cell on two hosts is allowed (report --by host: side by
					 * side, not pooled); in two files of one host it is not */
	bool mixed_hosts;		/* files of two hosts are merged, with a warning; refused otherwise */
};

/*
 * lab_merge() - check @o->paths and write their rows, in the order given,
 * to @o->out. Returns 0 (complete), 1 (incomplete: @o->out is still written)
 * or 2 (refused: nothing written).
 */
int lab_merge(const struct lab_merge_opts *o);

/* `rwlab merge [-o OUT.csv] FILE.csv...` is lab_merge_cmd (cmds.h), at the end of merge.c. */

/*
 * lab_report_merge() - the shard checks of `rwlab report` over @n files
 * (report itself reads and pools them: results.h, lab_results_load_many(),
 * which also refuses a cell measured on two hosts unless --by has host).
 * When some row carries a shard, the files are checked as above without
 * writing anything: warnings and missing shards and cells on stderr, in
 * lines that begin "rwlab report: "; with
 * @by_host (report --by with host) a cell on two hosts is not refused.
 * stdin ("-") and FIFOs are checked too, from the copy lab_csv_reader_open()
 * keeps for the report. Returns 0, or -1 when the merge refused the files
 * (the reason is on stderr).
 */
int lab_report_merge(const char *const *paths, int n, bool by_host);
