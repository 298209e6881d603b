/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The matrix runner behind `rwlab run`.
 *
 * Cells are planned in the order workload -> thread count -> variant. The
 * cells of one workload and thread count form a comparison block: all set
 * up, then run round by round, one iteration of each per round in an order
 * shuffled from --seed (--order sequential: cell by cell), each iteration on
 * freshly created, pinned threads that start on one barrier. Each row of an
 * iteration carries its place in the run (metric "position"). A workload
 * with uses_lazy_mm iterates over the lazy-mm schemes instead of the lock
 * variants (the CSV variant column carries the scheme's label). The
 * measurement window is timed with CLOCK_MONOTONIC and charged with
 * getrusage(RUSAGE_SELF) deltas. After a cell's last iteration its rows are
 * written to the CSV in one write and fsync'd; SIGINT/SIGTERM abandons the
 * block in flight, keeps every finished cell and returns 130.
 *
 * Under --sim the run's process runs no cell itself: each cell runs in an
 * rwlab-sim of its own (sim_cell.h), up to -j at once, and its rows are
 * written in plan order when it and every cell before it have finished, so
 * the CSV is the same whatever -j (but the run's id and the timestamps).
 * SIGINT/SIGTERM reaches the cells in flight (their rows are not written);
 * the cells that had finished are written, in plan order.
 */
#pragma once

#include <stdbool.h>

#include "lazy_mm.h"
#include "rwsem.h"
#include "shard.h"
#include "topology.h"
#include "workload.h"

/* Run order of the iterations of a comparison block (one workload, one thread count, every variant). */
enum lab_order {
	LAB_ORDER_INTERLEAVED,	/* A1 B1 C1, then A2 B2 C2 in an order shuffled per round from --seed */
	LAB_ORDER_SEQUENTIAL,	/* every iteration of A, then of B, ... (one cell set up at a time) */
};

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
	enum lab_order order;		/* --order */
	struct lab_shard shard;		/* --shard I/N: only these comparison blocks (shard.h) */
	int jobs;			/* -j: under --sim, cells whose processes run at once (0: the host CPUs this
					 * process may use); the CSV is the same whatever it is. Natively 1. */
	/*
	 * The command line as given (after "rwlab run"): an interrupted run's
	 * line gives it again, with -o FILE unless @csv_given and --resume, as
	 * the command that carries the run on. NULL: it gives none.
	 */
	int argc;
	char *const *argv;
	bool csv_given;			/* -o FILE was given (else csv_path is the default name) */
};

/*
 * lab_run() - run the matrix and write the CSV (runner.c: plan the cells ->
 * run a cell -> run an iteration -> emit rows).
 * A cell fails when its setup or prepare() fails, a worker thread cannot be
 * created, a worker calls lab_worker_fail(), metrics() calls lab_sink_fail(),
 * a must-be-zero metric (errors, tree_mismatch, ...) is not zero, or its rows
 * cannot be written: it is named on stderr and the other cells still run. Its
 * rows are not written, except after a must-be-zero count: then they are,
 * with a cell_failed row in each bad iteration (report leaves the cell out).
 * Lock variants that claim no exclusion are not run on workloads that
 * need_exclusion (one line says so; nothing left to run: 2).
 * Returns the process exit status: 0 when every cell succeeded, 1 if any cell
 * failed (the last line names them all) or -o could not be made at the
 * first rows (a new file is made then: lab_csv_open_later()), 2 if nothing
 * was run because the CSV could not be opened or --resume refused it, 130
 * if interrupted (finished cells are kept; stopped before any rows, a new
 * -o is not made, an existing one left as it was).
 */
int lab_run(const struct lab_run_opts *o);

/*
 * lab_cell_work() - what a cell of @wl at @nthreads threads weighs in the
 * ETA of a --sim run's progress line: threads x iterations (and a work
 * workload's warm-up pass, as the native ETA counts it). A simulated cell's
 * host time grows with its simulated tasks' work, so with its threads; -d
 * and --warmup are the run's, the same for each of its cells. A workload
 * whose work is split among its threads (ops->work_split: pft's one region)
 * does the same work at every -t: its cells weigh their iterations alone
 * (weighed by threads, pft's 1-thread cell made a 90 s per-vma-locks run
 * read ETA 1h23m).
 */
double lab_cell_work(const struct lab_run_opts *o, const struct lab_workload_conf *wl, int nthreads);

/*
 * lab_eta_left() - the host seconds left when cells of work @done took
 * @elapsed seconds and cells of work @left remain, at the rate so far;
 * -1 (unknown) before any work is done.
 */
double lab_eta_left(double elapsed, double done, double left);
