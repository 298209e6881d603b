/* SPDX-License-Identifier: MIT */
/*
 * The matrix runner behind `rwlab run`.
 *
 * Cells are run in the order workload -> thread count -> variant, each for
 * `iterations` iterations on freshly created, pinned threads that start on one
 * barrier. A workload with uses_lazy_mm iterates over the lazy-mm schemes
 * instead of the lock variants (the CSV variant column carries the scheme's
 * label). The measurement window is timed with CLOCK_MONOTONIC and charged
 * with getrusage(RUSAGE_SELF) deltas. After each cell its rows are written to
 * the CSV in one write and fsync'd; SIGINT/SIGTERM abandons the cell in
 * flight, keeps every finished one and returns 130.
 */
#pragma once

#include <stdbool.h>

#include "lazy_mm.h"
#include "rwsem.h"
#include "shard.h"
#include "topology.h"
#include "workload.h"

struct lab_run_opts {
	const struct lab_rwsem_conf *locks;
	int nlocks;
	const struct lab_lazy_mm_conf *lazy;	/* -m schemes: the variants of uses_lazy_mm workloads */
	int nlazy;
	const struct lab_workload_conf *wls;
	int nwls;
	const int *threads;
	int nthreads;
	int iterations;
	struct lab_run_settings settings;
	enum lab_pin pin;
	const char *csv_path;
	bool quiet;			/* no progress line, no per-cell line */
	bool resume;			/* keep csv_path's finished cells, skip them, append (resume.h) */
	struct lab_shard shard;		/* --shard I/N: only these comparison blocks (shard.h) */
};

/*
 * lab_run() - run the matrix and write the CSV.
 * Returns the process exit status: 0 on success, 1 if a cell failed to set up
 * or writing a cell's rows failed (the other cells still run), 2 if nothing
 * was run because the CSV could not be opened or --resume refused it, 130 if
 * interrupted (finished cells are kept).
 */
int lab_run(const struct lab_run_opts *o);
