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
 * its rows to a pipe as a CSV; the parent takes them with its own run id
 * and context line (lab_sim_cell_rows()) and appends them to the results
 * file. In the child the environment carries RWLAB_SIM_CELL=<the run's
 * process id> (lab_sim_cell_watch_parent()) and its
 * runner runs its one cell as before (its `position` counts within the
 * cell). Cells run in several processes at once (run -j N) the same:
 * each is its own process either way, and the parent writes their rows in
 * the plan's order (lab_sim_cells_run()).
 *
 * Threading: the runner's thread only.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "csv.h"

#define LAB_SIM_CELL_ENV "RWLAB_SIM_CELL"
/* Set (to 1) in a cell's environment when its run is quiet (-q): rwlab-sim then prints no host-time line. */
#define LAB_SIM_QUIET_ENV "RWLAB_SIM_QUIET"

/*
 * RWLAB_SIM_STATS as the front (lab_sim_exec()) hands it to a simulated
 * run's process: that process runs no cell, so its engine has no statistics
 * to print; each cell's rwlab-sim gets RWLAB_SIM_STATS back (cell_env()).
 */
#define LAB_SIM_CELL_STATS_ENV "RWLAB_SIM_CELL_STATS"

/*
 * Are the engine's statistics asked for (RWLAB_SIM_STATS, or
 * LAB_SIM_CELL_STATS_ENV, 1 or 2)? Then a run's cells' standard error is
 * taken apart (lab_sim_cells_ops.err_apart) and printed whole, under the
 * cell's name, in cell order, so that -j's cells do not interleave.
 */
bool lab_sim_cell_stats(void);

/* Is this process one cell's child (LAB_SIM_CELL_ENV set)? */
bool lab_sim_cell_child(void);
/* Is it a cell of a quiet run (LAB_SIM_QUIET_ENV set)? */
bool lab_sim_cell_quiet(void);

/*
 * lab_sim_cell_watch_parent() - in a cell's child (LAB_SIM_CELL_ENV holds
 * the run's process id), get SIGTERM when the run's process dies, so that
 * a run killed with SIGKILL leaves no cell burning a CPU to its end; a
 * no-op elsewhere. Call it first thing in rwlab-sim's main().
 */
void lab_sim_cell_watch_parent(void);

/* Room for one cell's command line (lab_sim_cells_ops.argv fills it). */
#define LAB_SIM_ARGV_MAX 1024
struct lab_sim_argv {
	char *av[LAB_SIM_ARGV_MAX];	/* av[0] an executable path; NULL-terminated */
	char num[8][64];		/* the numbers it names */
	char exe[4096];			/* the executable's path */
};

/* One cell's process, as lab_sim_cells_run() hands it over. */
struct lab_sim_proc {
	pid_t pid;			/* 0: never started */
	int fd;				/* its standard output's pipe; -1 once at its end */
	struct lab_buf out;		/* what it wrote there: its CSV */
	int errfd;			/* its standard error's pipe (err_apart); -1 without or once at its end */
	struct lab_buf errout;		/* what it wrote there */
	int status;			/* exit status, 128 + N for a signal N */
	int err;			/* -errno: it could not be started (nothing ran) */
	bool finished;
};

/* What lab_sim_cells_run() asks of its caller. */
struct lab_sim_cells_ops {
	/* Cell @i's command line into @a. */
	void (*argv)(void *arg, int i, struct lab_sim_argv *a);
	/* Cell @i has finished, and so have all before it: called once per cell started, in cell order. */
	void (*done)(void *arg, int i, const struct lab_sim_proc *p);
	/* After each cell that finishes (in any order): @finished of the cells so far, @running now. May be NULL. */
	void (*progress)(void *arg, int finished, int running);
	/* The process's standard error into the pipe too (else it is shared with the caller's). */
	bool err_too;
	/* The process's standard error into a pipe of its own, handed to done() as p->errout. */
	bool err_apart;
	/* LAB_SIM_QUIET_ENV=1 in its environment: the run is quiet. */
	bool quiet;
};

/* -j's largest N: processes at once (each holds a pipe and its output in memory). */
#define LAB_SIM_JOBS_MAX 1024

/* Cells that may finish ahead of the oldest one not yet handed over, beyond the @jobs running. */
#define LAB_SIM_CELLS_AHEAD 256

/*
 * lab_sim_cells_run() - run cells 0..@n-1, each in a process of its own
 * (@ops->argv's command line, with LAB_SIM_CELL_ENV=<this process's id>
 * added to the environment and LAB_SIM_QUIET_ENV=1 with @ops->quiet, standard input /dev/null, standard output into
 * a pipe, standard error shared unless @ops->err_too or @ops->err_apart), at most @jobs (>= 1)
 * at once, started in cell order, and hand each to @ops->done in cell
 * order, as soon as it and every cell before it have finished: what done()
 * writes does not depend on @jobs, only the wall time does. A cell's output
 * waits in memory until its turn: only running processes count against
 * @jobs, so behind one long cell later cells may start, finish and wait, up
 * to LAB_SIM_CELLS_AHEAD of them (then no further cell starts until the
 * long one ends).
 * Signals: SIGINT and SIGTERM are blocked while it runs but in its wait
 * (ppoll()), so a signal handler of the caller's that sets *@stop ends the
 * wait whenever the signal comes; the cells' processes start with the
 * caller's own mask. When *@stop becomes non-zero, no further cell starts,
 * the processes in flight get SIGTERM (they end their cells unwritten:
 * exit 130), and every cell started is still handed to done() with its
 * status.
 * Threading: the caller's thread only; single-threaded (ppoll() on the
 * pipes, waitpid() on a pipe's end). Errors: a cell that cannot be started
 * is handed over with p->err set; out of memory aborts.
 */
void lab_sim_cells_run(int n, int jobs, const struct lab_sim_cells_ops *ops, void *arg,
		       volatile sig_atomic_t *stop);

/* lab_sim_host_cpus() - the host CPUs this process may run on (sched_getaffinity), at least 1: run -j's default. */
int lab_sim_host_cpus(void);

/*
 * lab_sim_cells_fit() - how many cells' processes may run at once within
 * @avail bytes of memory (MemAvailable): the @n cells' footprints @f (bytes
 * each: a cell's process, its workload's shared part and its own; put in
 * order largest first here) taken largest first beside @base (the run's
 * own process) while the sum fits, at most @want (-j). 0: not even the
 * largest fits. The peak of any @want cells at once is at most that of
 * the @want largest. Threading: any. Errors: none.
 */
int lab_sim_cells_fit(size_t *f, int n, int want, size_t base, size_t avail);

/* What lab_sim_cell_rows() gives back besides the rows. */
struct lab_sim_cell_out {
	bool failed;			/* a row is a non-zero cell_failed */
	double v[1024];			/* the values of the headline metric asked for, in row order */
	int nv;
	bool higher;			/* its better column says higher */
};

/*
 * lab_sim_cell_rows() - the rows of a child's CSV (@csv, @len bytes, with
 * its header and its context line) into @rows with the run column replaced
 * by @run_id, the parent's: the parent's context line (its context @ctx and
 * @pin, its shard and plan) is theirs, and each row's context must be the
 * parent's but for the shard and the plan. In @out whether the cell failed
 * and the values of metric @headline (for the per-cell line the parent
 * prints). Returns the number of rows, or -1 with why in @err (the child's
 * output is not a CSV of this schema, or its context is not the run's).
 */
int lab_sim_cell_rows(const char *csv, size_t len, const char *run_id, const struct lab_context *ctx, const char *pin,
		      const char *headline, struct lab_buf *rows, struct lab_sim_cell_out *out, char *err,
		      size_t errlen);
