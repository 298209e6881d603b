/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Number formatting shared by the readable report formats (table, email)
 * and the runner's per-cell progress line, so that one cell shows one
 * figure wherever it is printed; and a CPU count with its noun.
 *
 * Every function writes a NUL-terminated string of at most @len - 1 bytes
 * into @buf and never allocates; it is safe from any thread. NaN prints "-".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "workload.h"

/*
 * lab_fmt_num() - @v with 4 significant digits (3 once rounding carries into
 * a fifth), thousands separators and never e-notation: 1567072 -> "1,567,000",
 * 163246.5 -> "163,200", 5879.3 -> "5,879", 16.664 -> "16.66", 0.2204 ->
 * "0.2204". Magnitudes below 1e-9 print "0".
 */
void lab_fmt_num(double v, char *buf, size_t len);

/*
 * lab_fmt_pct() - a signed percentage change: "+3.0%", "-14.2%", "+102%",
 * "+1,895%" (one decimal below 100%, none above, thousands separators);
 * a change that one decimal would show as 0.0 keeps two significant digits
 * and its sign: "-0.022%", "+0.0031%" (only an exact 0 is "+0.0%").
 */
void lab_fmt_pct(double pct, char *buf, size_t len);

/*
 * lab_fmt_cpus() - a CPU count with its noun, "1 CPU", "2 CPUs": @n as text
 * (the results' cpus column), singular for exactly "1". lab_fmt_ncpus() is
 * the same of an integer. Every line that names a CPU count says it so.
 * Return @buf.
 */
const char *lab_fmt_cpus(const char *n, char *buf, size_t len);
const char *lab_fmt_ncpus(long n, char *buf, size_t len);

/* The aggregate the tables print for a series: "Hmean" for higher-is-better, else "Amean". */
const char *lab_fmt_mean_name(enum lab_better better);

/*
 * lab_fmt_aggregate() - the labelled aggregate of @n iteration values, as
 * the default report table prints it: "Hmean 163,200 ±3.6%" (Hmean and
 * HCoeffVar for higher-is-better values, Amean and CoeffVar otherwise;
 * the spread is left out for one value). A higher-is-better set with a
 * value <= 0 has no Hmean: its Amean is printed, labelled so.
 */
void lab_fmt_aggregate(const double *v, int n, enum lab_better better, char *buf, size_t len);

/*
 * lab_fmt_spread() - the one spread every format prints for a cell, in
 * percent: HCoeffVar (100 HStddev / Hmean) for higher-is-better values that
 * have a Hmean (every value > 0), else CoeffVar (100 sample Stddev / Amean);
 * NaN for fewer than 2 values. @name (may be NULL) gets "HCoeffVar" or
 * "CoeffVar", the statistic's name for a header.
 */
double lab_fmt_spread(const double *v, int n, enum lab_better better, const char **name);

/*
 * lab_fmt_flag() - why a cell's aggregate is not to be taken at face value,
 * or NULL: "fewer than 3 iterations" when @n < 3, else "HCoeffVar > 10%"
 * (@harmonic: the format prints HCoeffVar beside a Hmean, and the Hmean is
 * defined) or "CoeffVar > 10%" when that spread, in percent, is above 10.
 * Every report format and the runner's per-cell line decide with this one
 * rule; they mark a flagged cell with LAB_FMT_FLAG_MARK and explain the mark
 * with LAB_FMT_FLAG_LEGEND (under 80 columns).
 */
const char *lab_fmt_flag(const double *v, int n, bool harmonic);
#define LAB_FMT_FLAG_MARK '!'
#define LAB_FMT_FLAG_LEGEND "! flagged: fewer than 3 iterations, or (H)CoeffVar above 10%"

/*
 * lab_fmt_cell_line() - the runner's line for a finished cell: variant,
 * workload, threads, the headline metric (the first of the comma-separated
 * @headline) and lab_fmt_aggregate() of its @n iteration values, e.g.
 * "pthread   locktest   t=2    total_rate  Hmean 157,700 ±3.8%". The
 * figure is the one the default report table prints for the cell. A cell
 * with fewer than 3 values is flagged "[fewer than 3 iterations]", one whose
 * printed spread is above 10% "[HCoeffVar > 10%]" (or "[CoeffVar > 10%]").
 * @machine (a simulated run's machine, NULL natively) marks the line
 * "[sim MACHINE]" before any flag, so a simulated figure never reads as native.
 */
void lab_fmt_cell_line(FILE *f, const char *variant, const char *workload, int threads, const char *headline,
		       const double *v, int n, enum lab_better better, const char *machine);
