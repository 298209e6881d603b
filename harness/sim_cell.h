/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Simulated cells that depend only on themselves.
 *
 * Under --sim a cell's values must be a function of (binary, machine,
 * variant, workload and knobs, threads, seed, iteration) alone, never of the
 * other cells of the run: the engine keys its cache lines by address, and
 * what a cell allocates, where, and what the engine has seen before (its
 * clocks, its caches, its event order) followed the cells that ran earlier
 * in the same process. So the run's process (the parent) runs no cell
 * itself: it starts a fresh rwlab-sim for each cell, with a command line
 * that names that cell alone and the run's settings in one fixed order
 * (lab_sim_cell_argv()), so that the same cell starts from the same
 * process image whether it runs alone or inside a matrix. The child writes
 * its rows to a pipe as a CSV; the parent takes them with its own run id,
 * shard and plan (lab_sim_cell_rows()) and appends them to the results
 * file. In the child the environment carries RWLAB_SIM_CELL=1 and its
 * runner runs its one cell as before (its `position` counts within the
 * cell).
 *
 * Threading: the runner's thread only.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "csv.h"

#define LAB_SIM_CELL_ENV "RWLAB_SIM_CELL"

/* Is this process one cell's child (LAB_SIM_CELL_ENV set)? */
bool lab_sim_cell_child(void);

/*
 * lab_sim_cell_spawn() - run @argv (argv[0] an executable path) with
 * LAB_SIM_CELL_ENV=1 added to the environment, standard input /dev/null,
 * standard output into @out (the child's CSV), standard error shared. Sets
 * *@status to the exit status (128 + N for a signal N). Returns 0, or -errno
 * when the child could not be started (nothing ran).
 */
int lab_sim_cell_spawn(char *const argv[], struct lab_buf *out, int *status);

/* What lab_sim_cell_rows() gives back besides the rows. */
struct lab_sim_cell_out {
	bool failed;			/* a row is a non-zero cell_failed */
	double v[1024];			/* the values of the headline metric asked for, in row order */
	int nv;
	bool higher;			/* its better column says higher */
};

/*
 * lab_sim_cell_rows() - the rows of a child's CSV (@csv, @len bytes, with
 * its header) into @rows with the run, shard and plan columns replaced by
 * @run_id, @shard and @plan (the parent's), and in @out whether the cell
 * failed and the values of metric @headline (for the per-cell line the
 * parent prints). Returns the number of rows, or -1 with why in @err (the
 * child's output is not a CSV of this schema).
 */
int lab_sim_cell_rows(const char *csv, size_t len, const char *run_id, const char *shard, const char *plan,
		      const char *headline, struct lab_buf *rows, struct lab_sim_cell_out *out, char *err,
		      size_t errlen);
