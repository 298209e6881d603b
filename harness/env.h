/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/env.h - every environment variable rwlab, its preload, its
 * simulator and its tools read: X(NAME, READ_BY, MEANING). The man page's
 * ENVIRONMENT section is made from this list (cli.c), and the test 'env-doc'
 * fails when the sources read an RWLAB_* variable that is not in it.
 * Adding a variable: one X() here, in the order the man page shows them.
 */
#pragma once

#include <stdlib.h>

#define LAB_ENV_VARS(X) \
	X("RWLAB_LOCK", "the preload", \
	  "the variant every pthread_rwlock_t runs on, NAME[:key=val,...]; unset or passthrough: glibc's own " \
	  "lock, observed. A bad value prints one line and exits 2 before the program runs") \
	X("RWLAB_CSV", "the preload", \
	  "at exit, append the statistics as rwlab CSV rows to this file (unset: a summary on standard error)") \
	X("RWLAB_CSV_FOUND", "the preload", \
	  "set by the preload for the processes a program starts when RWLAB_CSV's file was there at its start: " \
	  "they only append to it, and one that outlives the run (its file removed) writes nothing") \
	X("RWLAB_WORKLOAD", "the preload", "the workload column of those rows (default: the program's name)") \
	X("RWLAB_THREADS", "the preload", \
	  "the threads column (default: the most threads that used locks at once)") \
	X("RWLAB_ITERATION", "the preload", "the iteration column (default 0)") \
	X("RWLAB_RUN", "the preload", "the run column (default: a new run id)") \
	X("RWLAB_TOP", "the preload", "how many lock creation sites to list (default 5)") \
	X("RWLAB_TABLE_BITS", "the preload", \
	  "the side table's size, 2^B slots (default 16, 4..26); locks beyond it use a slower overflow list") \
	X("RWLAB_QUIET", "the preload", "1: no start-up notes") \
	X("RWLAB_PRELOAD", "rwlab exec", \
	  "the preload library (default: librwlab-preload.so beside rwlab, else in the installed libdir)") \
	X("RWLAB_MATRIX_DIR", "run, report, slurm --matrix", \
	  "a directory searched first for NAME.matrix (then share/rwlab/matrices, then the source tree's " \
	  "tools/matrices)") \
	X("RWLAB_SIM_MACHINES", "--sim, rwlab sim", \
	  "the directory of the machine files (default share/rwlab/machines, then the source tree's sim/machines)") \
	X("RWLAB_SIM_STATS", "rwlab-sim", \
	  "1: print the engine's host-side statistics when a simulation ends; 2: also its profile (CPU time by code address and cost key, the hottest lines; tools/sim-prof names the addresses)") \
	X("RWLAB_SIM_CELL_STATS", "rwlab-sim (internal)", \
	  "RWLAB_SIM_STATS as rwlab run --sim hands it to the simulated run's process, which runs no cell and so " \
	  "prints no statistics of its own: each cell's rwlab-sim gets RWLAB_SIM_STATS back, and the run prints " \
	  "that cell's standard error whole, under the cell's name, in cell order (harness/sim_cell.h)") \
	X("RWLAB_SIM_DEBUG", "rwlab-sim", "set: when a simulation is stuck, print every live task's state") \
	X("RWLAB_SIM_CELL", "rwlab-sim (internal)", \
	  "set by a simulated run for each cell's own rwlab-sim, to the run's process id: that process runs its " \
	  "one cell, and ends (SIGTERM) when the run's process dies (harness/sim_cell.h)") \
	X("RWLAB_SIM_QUIET", "rwlab-sim (internal)", \
	  "set to 1 by a quiet simulated run (-q) for each cell's own rwlab-sim, and by torture --seeds for each " \
	  "seed's: it prints no host-time line (harness/sim_cell.h)") \
	X("RWLAB_SWITCH_RINGS", "the kernel ports (locks/wait.h)", \
	  "0: open no perf context-switch rings; owner_on_cpu() then samples the owner's CPU clock " \
	  "(oncpu=clock) and need_resched() reads getrusage (to measure what the rings cost a context switch)") \
	X("RWLAB_GNUPLOT", "rwlab plot", "the gnuplot to run (default: gnuplot on PATH)") \
	X("RWLAB_RESULTS_DIR", "tools/reproduce", "where its runs go (default: the source tree's results/)") \
	X("RWLAB_FAULT_INJECT", "run (tests)", \
	  "SITE[=VARIANT],...: make a call that cannot fail fail, to test the failure paths: pthread_create, " \
	  "prepare, worker, must_be_zero, loadavg, loadavg_only, killed_mid_rows (harness/fault.h)") \
	X("RWLAB_FAULT_LOADAVG", "run (tests)", \
	  "the load average RWLAB_FAULT_INJECT=loadavg or loadavg_only gives each cell (default: the CPU count " \
	  "plus one)") \
	X("TMPDIR", "exec, report, plot, merge, slurm, sim validate", \
	  "the directory of temporary files (default /tmp): exec's per-run statistics, the copy of stdin or a " \
	  "FIFO that report, plot and merge read more than once (kept in memory where none can be made there), " \
	  "plot's and report -f html's gnuplot scripts, the lines of slurm's rwlab run --list-cells, sim " \
	  "validate's runs")

/* lab_tmpdir() - where temporary files go: $TMPDIR when it is set and not empty, else /tmp. */
static inline const char *lab_tmpdir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}
