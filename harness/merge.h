/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Merging the CSVs of a sharded run (`rwlab merge`, `rwlab report A.csv B.csv
 * ...`): shard.h explains shards and the shard and plan columns.
 *
 * Checks, with one line each on stderr:
 * - refused (status 2): unreadable or malformed files, files of two CSV
 *   schemas, files of two plans (another matrix, other run options: the
 *   plan fingerprints differ), two shard counts, one shard in two files, and
 *   one cell (variant, workload, threads) in two files or measured on two
 *   hosts: a cell is never pooled across hosts or shards.
 * - warned: the hosts differ in cpu_model, cpus or kernel, the builds in
 *   compiler, build_type, allocator, event_counts, git_rev or pin, or the
 *   shards in a run setting of the plan column (n, d, warmup, seed). Each
 *   warning names the column, the files (FILE:LINE, shard, host) and both
 *   values.
 * - incomplete (status 1): shards no file holds (named, with their
 *   comparison blocks), cells missing from the grid the files span
 *   (workloads x thread counts x each workload's variants), and fewer cells
 *   than the plan's count.
 *
 * Threading: single-threaded. Memory: everything is freed before returning.
 */
#pragma once

#include <stdbool.h>

struct lab_merge_opts {
	const char *const *paths;	/* shard CSVs, in any order */
	int npaths;
	const char *out;		/* merged CSV (an existing one is kept as OUT.N), or NULL: check only */
	bool quiet;			/* no summary line; an unreadable or malformed file: status 0,
					 * silently (the caller reads it and says why) */
};

/*
 * lab_merge() - check @o->paths and write their rows, in the order given,
 * to @o->out. Returns 0 (complete), 1 (incomplete: @o->out is still written)
 * or 2 (refused: nothing written).
 */
int lab_merge(const struct lab_merge_opts *o);

/* `rwlab merge [-o OUT.csv] FILE.csv...`: argv[0] is the program name. Returns the exit status. */
int lab_merge_cmd(int argc, char **argv);

/*
 * lab_report_merge() - `rwlab report` over @n files: with one, check it
 * (a cell pooled across hosts is refused; warnings as above); with several,
 * merge them into a temporary file whose name goes to @tmp (the caller
 * unlinks it) and *@path. Returns 0, or -1 when the merge refused the files
 * (the reason is on stderr).
 */
int lab_report_merge(const char *const *paths, int n, const char **path, char *tmp, unsigned long len);
