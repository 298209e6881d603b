/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab plot`: figures from a results CSV, drawn by gnuplot.
 *
 * - scaling plot: one metric against the thread count, one line per column
 *   (variant), the table mean (Hmean or Amean) with +-1 sample standard
 *   deviation error bars; a dashed line marks the machine's CPU count
 *   (beyond it the machine is oversubscribed, not scaling).
 * - fairness plot (--fairness, locktest): each thread's operations in the
 *   window, sorted from most to least in every iteration and averaged rank
 *   by rank, one line per column, at one thread count; the legend gives
 *   Jain's fairness index (mean over iterations).
 *
 * The output format follows the file name: .png (pngcairo, or gnuplot's
 * libgd png terminal where cairo is missing) or .svg. A "%w" in the name
 * draws one figure per group (workload), "%w" replaced by its label. gnuplot is found in
 * $RWLAB_GNUPLOT or on PATH. The gnuplot script and data are written next
 * to the output as OUT.gp and OUT.dat when --keep-script is given.
 */
#pragma once

#include <stdbool.h>

struct lab_plot_opts {
	const char *path;		/* results CSV */
	const char *out;		/* .png or .svg */
	const char *metric;		/* NULL: the workload's first headline metric */
	const char *workload;		/* workload label or name; NULL: the only one in the file */
	const char *by;			/* column key (as in report); NULL: variant */
	const char *baseline;		/* first column; NULL: file order */
	bool fairness;			/* per-thread locktest plot */
	int threads;			/* fairness: thread count (0 = the largest with per-thread rows) */
	bool keep_script;
};

/* Returns 0, or 1 with a one-line error on stderr. */
int lab_plot(const struct lab_plot_opts *o);
