/* SPDX-License-Identifier: GPL-2.0-only */
#pragma once

#include "rwsem.h"

struct lab_bench_opts {
	const struct lab_rwsem_conf *locks;
	int nlocks;
	unsigned long pairs;		/* lock/unlock pairs per repetition */
	int reps;			/* repetitions; the minimum is reported */
	const char *csv_path;		/* NULL: table only */
};

/*
 * `rwlab bench`: uncontended cost, in ns per down_read+up_read pair and per
 * down_write+up_write pair, for every variant through the ops table; for null
 * also by direct (inlined) call, so the dispatch cost is known; and the
 * locktest loop's own cost per operation with null (the harness overhead).
 * Single thread, pinned to the first PU. Returns an exit status: 0, 1 a
 * variant failed, 2 -o cannot be written (refused before anything is measured).
 */
int lab_bench_run(const struct lab_bench_opts *o);
