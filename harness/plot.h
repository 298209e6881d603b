/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab plot`: figures from a results CSV, drawn by gnuplot.
 *
 * - scaling plot: one metric against the thread count, one line per column
 *   (variant), the table mean (Hmean or Amean) with +-1 sample standard
 *   deviation error bars; the x axis is log-scaled where the thread counts
 *   grow geometrically (the largest at least 8 times the smallest), with a
 *   tic at each count; a dashed line marks the machine's CPU count where it
 *   falls within the axis (beyond it the machine is oversubscribed, not
 *   scaling).
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

#include "results.h"

struct lab_plot_opts {
	const char *path;		/* results CSV */
	const char *out;		/* .png or .svg */
	const char *metric;		/* NULL: the workload's first headline metric */
	const char *workload;		/* workload label or name; NULL: the only one in the file */
	const char *by;			/* column key (as in report); NULL: report's (variant, or fault_path) */
	const char *baseline;		/* first column; NULL: file order */
	bool fairness;			/* per-thread locktest plot */
	int threads;			/* fairness: thread count (0 = the largest with per-thread rows) */
	bool keep_script;
};

/*
 * Returns 0, or 1 with a one-line error on stderr, or 2 with one for an
 * option that names what the file does not hold (-m, -w, --by, -b: a usage
 * error; the line names the valid ones).
 */
int lab_plot(const struct lab_plot_opts *o);

/*
 * Figures: the one path from data to gnuplot, shared by `rwlab plot` and the
 * HTML report's graphs (harness/report_html.c). A figure is prepared as
 * lines of points, then drawn by lab_plot_render(); the axes follow from the
 * points (log x where they grow geometrically, a tic at each x, the CPU
 * counts marked where they fall within the axis). Single-threaded; a
 * figure owns its points (lab_plot_fig_free()).
 */
#define LAB_PLOT_MAX_LINES 64

struct lab_plot_point {
	double x, y;
	double err;			/* +-err drawn as an error bar (0: none) */
	char label[24];			/* drawn above the point ("": none) */
};

struct lab_plot_line {
	char title[192];		/* the key entry */
	int like;			/* >= 0: a published curve, drawn dashed with open markers in line
					   @like's colour; -1: a line of its own */
	int n;
	struct lab_plot_point *p;
};

struct lab_plot_fig {
	char title[1024], xlabel[128], ylabel[256];	/* title: room for report_html.c's change figure */
	bool ratio;			/* y is new/base: log scale, tics labelled as the change they mean, a
					   line at 1; otherwise y starts at 0 with SI-prefixed tics */
	int cpus;			/* the results' CPU count (0: not marked) */
	int ref_cpus;			/* the published machine's, marked too where it differs (0: none) */
	int per_x;			/* tasks per unit of x (2 for pairs): the CPUs are marked at cpus / per_x;
					   0 or 1: x counts threads */
	double div;			/* lab_plot_fig_scaling(): the metric's values were divided by this */
	const char *const *xnames;	/* non-NULL: x is 1..nxnames, each tic named (a category axis) */
	int nxnames;
	int nline;
	int left_out;			/* lines refused by a full figure: the title says how many */
	struct lab_plot_line line[LAB_PLOT_MAX_LINES];
};

/*
 * lab_plot_fig_scaling() - prepare the scaling plot of (group @g, metric
 * index @im) of @r into @f (cleared first): one line per column, the table
 * mean (Hmean or Amean) and +-1 sample stddev per thread count, times shown
 * in ms below one second and s above (f->div). Returns the number of lines.
 */
int lab_plot_fig_scaling(struct lab_plot_fig *f, const struct lab_results *r, int g, int im);
/*
 * Add a line titled @title (see struct lab_plot_line for @like); NULL when the
 * figure is full (LAB_PLOT_MAX_LINES), counted in f->left_out, which the
 * drawn figure's title states.
 */
struct lab_plot_line *lab_plot_fig_line(struct lab_plot_fig *f, const char *title, int like);
/*
 * Append a point; @err NaN draws no bar, @label NULL none. A point whose @x or
 * @y is not finite is left out (a line with no point is not drawn). Aborts
 * when out of memory.
 */
void lab_plot_line_add(struct lab_plot_line *l, double x, double y, double err, const char *label);
/*
 * lab_plot_render() - draw @f into @out (.png or .svg, by its name) with
 * gnuplot; @keep_script leaves OUT.gp and OUT.dat beside it. Returns 0, or
 * 1 with a one-line error on stderr (nothing is left at @out then).
 */
int lab_plot_render(const struct lab_plot_fig *f, const char *out, bool keep_script);
void lab_plot_fig_free(struct lab_plot_fig *f);
