/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Summary statistics over the iterations of one cell, and the significance
 * rules of the report formats (docs/workloads.md §2.d and §3.3).
 *
 * All functions take @n >= 1 values; they return NaN where a statistic is
 * undefined (harmonic or geometric mean with a value <= 0, a standard
 * deviation of one value). Nothing here allocates except lab_median() and
 * lab_lkp_changed(), which sort copies on the heap (abort() on ENOMEM).
 */
#pragma once

#include <stdbool.h>

double lab_amean(const double *v, int n);
/* Harmonic mean: mmtests' Hmean, for higher-is-better rates. */
double lab_hmean(const double *v, int n);
double lab_gmean(const double *v, int n);
/* Sample standard deviation (n - 1). */
double lab_stddev(const double *v, int n);
/* Population standard deviation (n): the one LKP prints (lib/statistics.rb). */
double lab_stddev_pop(const double *v, int n);
/*
 * mmtests' harmonic standard deviation (HStddev, 2024-11,
 * docs/workloads.md §2.d): sqrt(sum((1/x_i - 1/H)^2) * H^4 / n) around the Hmean
 * H, the delta-method spread of a harmonic mean; NaN for n < 2 (mmtests
 * prints 0 for one sample; rwlab judges nothing from one sample) or a value
 * <= 0. lab_hcoeffvar() is 100 * HStddev / H (HCoeffVar, percent).
 */
double lab_hstddev(const double *v, int n);
double lab_hcoeffvar(const double *v, int n);
/* mmtests CoeffVar: 100 * sample stddev / arithmetic mean (percent). */
double lab_coeffvar(const double *v, int n);
double lab_min(const double *v, int n);
double lab_max(const double *v, int n);
/* Median: the middle value, or the mean of the two middle values for even n. */
double lab_median(const double *v, int n);

/*
 * lab_student_t_sf2() - two-sided tail probability P(|T| > |t|) of Student's
 * t distribution with @df (> 0, need not be an integer) degrees of freedom,
 * through the regularised incomplete beta function: I_{df/(df+t^2)}(df/2, 1/2).
 */
double lab_student_t_sf2(double t, double df);

/*
 * lab_student_t_crit2() - the t with P(|T| > t) = @p (0 < p < 1) for @df
 * degrees of freedom: the critical value of a two-sided test at level @p
 * (p 0.10, df 8: 1.8595). Found by bisection on lab_student_t_sf2().
 */
double lab_student_t_crit2(double p, double df);

/*
 * lab_welch_p() - two-sided p-value of Welch's unequal-variance t-test:
 * t = (mean_a - mean_b) / sqrt(s_a^2/n_a + s_b^2/n_b), Welch-Satterthwaite
 * degrees of freedom. Needs n_a, n_b >= 2 (NaN otherwise). When both
 * variances are zero the p-value is 1 if the means are equal, else 0.
 */
double lab_welch_p(const double *a, int na, const double *b, int nb);

/*
 * lab_mmtests_ttest_p() - the t-test mmtests used for its stars from 2018-10
 * to 2024-11 (Compare::_significanceTest, commit f0b33946): the same unpooled
 * standard error as Welch, but df = n_a + n_b - 2. Same edge cases as
 * lab_welch_p(). mmtests starred a cell when this is below 0.10.
 */
double lab_mmtests_ttest_p(const double *a, int na, const double *b, int nb);

/*
 * lab_mmtests_ttest_p_means() - the same t-test from summary figures, as
 * mmtests' compare code computed it on the table's own rows: @mean_a/@mean_b
 * are the mean row (the Hmean for higher-is-better operations, which is how
 * mmtests 2018-10..2024-11 fed it), @sd_a/@sd_b the Stddev row (sample,
 * arithmetic), df = n_a + n_b - 2. NaN for n < 2; a zero standard error
 * gives 1 if the means are equal, else 0.
 */
double lab_mmtests_ttest_p_means(double mean_a, double sd_a, int na, double mean_b, double sd_b, int nb);

/* The two-sided 95% normal quantile mmtests uses: qnorm(0.975). */
#define LAB_QNORM_975 1.959963984540054

/*
 * lab_mmtests_ci_significant() - mmtests' current rule (2024-11, 8cd087ae):
 * the cell is significant when |mean_b - mean_a| > qnorm(0.975) * (sd_a + sd_b),
 * i.e. the two mean +- 1.96 sd intervals do not overlap. A NaN standard
 * deviation (one sample) makes the cell not significant: nothing to judge.
 */
bool lab_mmtests_ci_significant(double mean_a, double sd_a, double mean_b, double sd_b);

/*
 * lab_lkp_changed() - LKP's "changed stat" test (lib/stats.rb,
 * docs/workloads.md §3.3), base set @a against set @b:
 * - at least 3 samples in one of the sets, else false;
 * - each set is sorted and min(n >> 5, 3) samples are dropped from each end;
 * - changed if the median of each set lies outside the other's range:
 *   (min_b > med_a && med_b > max_a) || (min_a > med_b && med_a > max_b);
 * - and the ratio of the higher median to the lower exceeds @min_ratio
 *   (LKP: 1.01 for the test's own stats, 1.05 for other stats). A lower
 *   median <= 0 with a higher one above it counts as an unbounded ratio.
 * "Median" here is LKP's a[n/2] (the upper middle for even n).
 */
bool lab_lkp_changed(const double *a, int na, const double *b, int nb, double min_ratio);

/*
 * mmtests' percentage columns (Compare.pm), positive always meaning better:
 * lab_pdiff() for higher-is-better stats, new*100/base - 100 (0 when equal
 * or new == 0, 100 when base == 0); lab_pndiff() for lower-is-better stats
 * and for Stddev/CoeffVar, 100 - new*100/base (0 when equal, 100 when
 * new == 0, -99 when base == 0).
 */
double lab_pdiff(double new_, double base);
double lab_pndiff(double new_, double base);

/*
 * lab_jain_fairness() - Jain's fairness index (sum x)^2 / (n sum x^2): 1 when
 * every thread got the same share, 1/n when one got everything (Jain, Chiu
 * and Hawe, DEC-TR-301, 1984). NaN when every value is 0.
 */
double lab_jain_fairness(const double *v, int n);
