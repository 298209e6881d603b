/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Statistics of the report formats against values computed by hand (or, for
 * the t-distribution tails, by numerical integration of the Student t
 * density with mpmath at 30 digits, and textbook critical values).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "stats.h"

static const double one_to_five[] = { 1, 2, 3, 4, 5 };

Test(stats, means_of_one_to_five)
{
	/* 5 / (1 + 1/2 + 1/3 + 1/4 + 1/5) = 5 / (137/60) = 300/137 */
	cr_expect_float_eq(lab_amean(one_to_five, 5), 3.0, 1e-12);
	cr_expect_float_eq(lab_hmean(one_to_five, 5), 300.0 / 137.0, 1e-12);
	/* 120^(1/5) */
	cr_expect_float_eq(lab_gmean(one_to_five, 5), 2.6051710846973517, 1e-12);
}

Test(stats, spread_of_one_to_five)
{
	/* squared deviations 4+1+0+1+4 = 10: sample 10/4, population 10/5 */
	cr_expect_float_eq(lab_stddev(one_to_five, 5), sqrt(2.5), 1e-12);
	cr_expect_float_eq(lab_stddev_pop(one_to_five, 5), sqrt(2.0), 1e-12);
	cr_expect_float_eq(lab_coeffvar(one_to_five, 5), 100 * sqrt(2.5) / 3, 1e-12);
	cr_expect_eq(lab_min(one_to_five, 5), 1.0);
	cr_expect_eq(lab_max(one_to_five, 5), 5.0);
	cr_expect_eq(lab_median(one_to_five, 5), 3.0);
}

Test(stats, median_even_and_unsorted)
{
	const double v[] = { 4, 1, 3, 2 };

	cr_expect_eq(lab_median(v, 4), 2.5);
}

Test(stats, undefined_cases_are_nan)
{
	const double one[] = { 7 }, zero[] = { 1, 0, 2 };

	cr_expect(isnan(lab_stddev(one, 1)));
	cr_expect(isnan(lab_hmean(zero, 3)));
	cr_expect(isnan(lab_gmean(zero, 3)));
	cr_expect_eq(lab_stddev_pop(one, 1), 0.0);
}

Test(stats, student_t_textbook_critical_values)
{
	/* two-sided 5% points: t(10) = 2.228138852, t(1) = 12.7062047 */
	cr_expect_float_eq(lab_student_t_sf2(2.228138852, 10), 0.05, 1e-8);
	cr_expect_float_eq(lab_student_t_sf2(-2.228138852, 10), 0.05, 1e-8);
	cr_expect_float_eq(lab_student_t_sf2(12.7062047, 1), 0.05, 1e-7);
	/* a huge df tends to the normal: 1.959963985 -> 0.05 */
	cr_expect_float_eq(lab_student_t_sf2(1.959963985, 1e7), 0.05, 1e-6);
	cr_expect_eq(lab_student_t_sf2(0, 5), 1.0);
}

Test(stats, welch_equal_variances)
{
	/* means 3 and 8, variances 2.5 each, n = 5: se = 1, t = -5, df = 8; p = 0.00105282579... */
	const double b[] = { 6, 7, 8, 9, 10 };

	cr_expect_float_eq(lab_welch_p(one_to_five, 5, b, 5), 0.0010528257933665393, 1e-12);
	cr_expect_float_eq(lab_mmtests_ttest_p(one_to_five, 5, b, 5), 0.0010528257933665393, 1e-12);
}

Test(stats, welch_and_mmtests_df_differ)
{
	/*
	 * a = {1,2,3}: var 1; b = {2,4,6,8,10}: var 10. se^2 = 1/3 + 2, t = -4/sqrt(7/3)
	 * = -2.6186146828; Welch df = (7/3)^2 / ((1/3)^2/2 + 2^2/4) = 5.1578947368,
	 * p = 0.0457758284; mmtests df = 3 + 5 - 2 = 6, p = 0.0396597825.
	 */
	const double a[] = { 1, 2, 3 }, b[] = { 2, 4, 6, 8, 10 };

	cr_expect_float_eq(lab_welch_p(a, 3, b, 5), 0.04577582843879490, 1e-10);
	cr_expect_float_eq(lab_mmtests_ttest_p(a, 3, b, 5), 0.03965978250760875, 1e-10);
}

Test(stats, ttest_degenerate_and_small)
{
	const double c1[] = { 5, 5, 5 }, c2[] = { 5, 5, 5 }, c3[] = { 6, 6, 6 }, one[] = { 1 };

	cr_expect_eq(lab_welch_p(c1, 3, c2, 3), 1.0);		/* no variance, same means */
	cr_expect_eq(lab_welch_p(c1, 3, c3, 3), 0.0);		/* no variance, different means */
	cr_expect(isnan(lab_welch_p(one, 1, c1, 3)));		/* one sample: undefined */
}

Test(stats, mmtests_ci_rule)
{
	/* 1.959963985 x (5 + 5) = 19.6: a difference of 20 is significant, 19 is not */
	cr_expect(lab_mmtests_ci_significant(100, 5, 120, 5));
	cr_expect(lab_mmtests_ci_significant(120, 5, 100, 5));
	cr_expect_not(lab_mmtests_ci_significant(100, 5, 119, 5));
	cr_expect_not(lab_mmtests_ci_significant(100, NAN, 200, 5));
	cr_expect(lab_mmtests_ci_significant(100, 0, 100.5, 0));
}

Test(stats, lkp_changed_rule)
{
	const double a[] = { 100, 101, 102 };
	const double up[] = { 103, 104, 105 };		/* min 103 > median 101, median 104 > max 102 */
	const double edge[] = { 101.5, 104, 105 };	/* min 101.5 > 101 still */
	const double overlap[] = { 100.5, 104, 105 };	/* min 100.5 < median 101 */
	const double big[] = { 1000, 1001, 1002 }, big_up[] = { 1003, 1004, 1005 };
	const double two_a[] = { 1, 2 }, two_b[] = { 5, 6 };

	cr_expect(lab_lkp_changed(a, 3, up, 3, 1.01));		/* ratio 104/101 = 1.0297 */
	cr_expect(lab_lkp_changed(up, 3, a, 3, 1.01));		/* either direction */
	cr_expect_not(lab_lkp_changed(a, 3, up, 3, 1.05));	/* but not above 1.05 */
	cr_expect(lab_lkp_changed(a, 3, edge, 3, 1.01));
	cr_expect_not(lab_lkp_changed(a, 3, overlap, 3, 1.01));
	cr_expect_not(lab_lkp_changed(big, 3, big_up, 3, 1.01));	/* separated, ratio 1.003 */
	cr_expect_not(lab_lkp_changed(two_a, 2, two_b, 2, 1.01));	/* fewer than 3 samples */
}

Test(stats, lkp_trims_outliers_from_32_samples)
{
	/* n = 32: n >> 5 = 1 sample dropped at each end, so the low outlier 50 in b goes */
	double a[32], b[32];

	for (int i = 0; i < 32; i++) {
		a[i] = 100;
		b[i] = 110;
	}
	a[0] = 0;
	a[1] = 1000;
	b[5] = 50;
	cr_expect(lab_lkp_changed(a, 32, b, 32, 1.01));
	/* with 31 samples nothing is dropped and 50 < median 100 keeps it unchanged */
	cr_expect_not(lab_lkp_changed(a + 1, 31, b, 31, 1.01));
}

Test(stats, mmtests_percentages)
{
	cr_expect_float_eq(lab_pdiff(110, 100), 10.0, 1e-12);
	cr_expect_float_eq(lab_pdiff(90, 100), -10.0, 1e-12);
	cr_expect_float_eq(lab_pndiff(90, 100), 10.0, 1e-12);	/* lower is better: 90 s is 10% better */
	cr_expect_float_eq(lab_pndiff(110, 100), -10.0, 1e-12);
	cr_expect_eq(lab_pdiff(0, 100), 0.0);
	cr_expect_eq(lab_pdiff(5, 0), 100.0);
	cr_expect_eq(lab_pndiff(0, 100), 100.0);
	cr_expect_eq(lab_pndiff(5, 0), -99.0);
	cr_expect_eq(lab_pndiff(7, 7), 0.0);
}

Test(stats, jain_fairness)
{
	const double fair[] = { 3, 3, 3, 3 }, hog[] = { 1, 0, 0, 0 }, mixed[] = { 1, 2, 3 };

	cr_expect_float_eq(lab_jain_fairness(fair, 4), 1.0, 1e-12);
	cr_expect_float_eq(lab_jain_fairness(hog, 4), 0.25, 1e-12);
	cr_expect_float_eq(lab_jain_fairness(mixed, 3), 36.0 / 42.0, 1e-12);	/* 6^2 / (3 x 14) */
}

/*
 * HStddev of 100, 110, 120: H = 109.3923, sum((1/x - 1/H)^2) = 1.39255e-6,
 * times H^4 = 1.43205e8 -> 199.42, / 3 -> 66.47, sqrt -> 8.153 (HCoeffVar 7.45%).
 */
Test(stats, harmonic_stddev)
{
	const double v[] = { 100, 110, 120 }, same[] = { 5, 5, 5 }, neg[] = { 1, -1 };

	cr_expect(fabs(lab_hstddev(v, 3) - 8.153) < 0.001, "%.6f", lab_hstddev(v, 3));
	cr_expect(fabs(lab_hcoeffvar(v, 3) - 7.453) < 0.001, "%.6f", lab_hcoeffvar(v, 3));
	cr_expect(lab_hstddev(same, 3) < 1e-9);
	cr_expect(isnan(lab_hstddev(v, 1)));
	cr_expect(isnan(lab_hstddev(neg, 2)));
}

/* The 2019 t-test from summary rows: means 11 and 8.5, sd 1 and 0.5, n 3: t = 3.873, df 4, p = 0.0179. */
Test(stats, ttest_from_means)
{
	double p = lab_mmtests_ttest_p_means(11, 1, 3, 8.5, 0.5, 3);

	cr_expect(fabs(p - 0.0179) < 0.0005, "%.6f", p);
	cr_expect_eq(lab_mmtests_ttest_p_means(5, 0, 3, 5, 0, 3), 1);
	cr_expect_eq(lab_mmtests_ttest_p_means(5, 0, 3, 6, 0, 3), 0);
	cr_expect(isnan(lab_mmtests_ttest_p_means(5, 1, 1, 6, 1, 3)));
}

Test(stats, readable_numbers)
{
	static const struct { double v; const char *want; } cases[] = {
		{ 1567072.1, "1,567,000" }, { 163246.5, "163,200" }, { 5879.28, "5,879" }, { 999.96, "1,000" },
		{ 163.246, "163.2" }, { 16.664, "16.66" }, { 0.22047, "0.2205" }, { 0.0012347, "0.001235" },
		{ -74506.4, "-74,510" }, { 0, "0" }, { 9.99951, "10.00" }, { 1e12, "1,000,000,000,000" },
		{ 0.099996, "0.1000" }, { NAN, "-" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lab_fmt_num(cases[i].v, buf, sizeof(buf));
		cr_expect_str_eq(buf, cases[i].want, "%g", cases[i].v);
	}
	lab_fmt_pct(3.04, buf, sizeof(buf));
	cr_expect_str_eq(buf, "+3.0%");
	lab_fmt_pct(-14.21, buf, sizeof(buf));
	cr_expect_str_eq(buf, "-14.2%");
	lab_fmt_pct(1895.1, buf, sizeof(buf));
	cr_expect_str_eq(buf, "+1,895%");
	lab_fmt_pct(-0.01, buf, sizeof(buf));
	cr_expect_str_eq(buf, "-0.010%");	/* the sign of a small change is never rounded away */
	lab_fmt_pct(-0.022, buf, sizeof(buf));
	cr_expect_str_eq(buf, "-0.022%");
	lab_fmt_pct(0.094, buf, sizeof(buf));
	cr_expect_str_eq(buf, "+0.094%");
	lab_fmt_pct(0.3, buf, sizeof(buf));
	cr_expect_str_eq(buf, "+0.3%");
	lab_fmt_pct(0, buf, sizeof(buf));
	cr_expect_str_eq(buf, "+0.0%");
	lab_fmt_aggregate((const double[]){ 100, 110, 120 }, 3, LAB_BETTER_HIGHER, buf, sizeof(buf));
	cr_expect_str_eq(buf, "Hmean 109.4 ±7.5%");
	lab_fmt_aggregate((const double[]){ 10, 11, 12 }, 3, LAB_BETTER_LOWER, buf, sizeof(buf));
	cr_expect_str_eq(buf, "Amean 11.00 ±9.1%");
}

/* A CPU count and its noun, one rule for every line that prints one. */
Test(stats, cpu_counts)
{
	char buf[32];

	cr_expect_str_eq(lab_fmt_cpus("1", buf, sizeof(buf)), "1 CPU");
	cr_expect_str_eq(lab_fmt_cpus("2", buf, sizeof(buf)), "2 CPUs");
	cr_expect_str_eq(lab_fmt_cpus("11", buf, sizeof(buf)), "11 CPUs");
	cr_expect_str_eq(lab_fmt_ncpus(1, buf, sizeof(buf)), "1 CPU");
	cr_expect_str_eq(lab_fmt_ncpus(0, buf, sizeof(buf)), "0 CPUs");
	cr_expect_str_eq(lab_fmt_ncpus(512, buf, sizeof(buf)), "512 CPUs");
	cr_expect_eq(lab_fmt_ncpus(2, buf, sizeof(buf)), buf);
}

/* The runner's per-cell line: the table's aggregate, then a flag for few iterations or a wide spread. */
static void cell_line(const double *v, int n, enum lab_better better, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	cr_assert(f);
	lab_fmt_cell_line(f, "pthread", "locktest", 2, "total_rate,ops_mean", v, n, better, NULL);
	fclose(f);
}

Test(stats, cell_line_flags)
{
	char buf[256];

	cell_line((const double[]){ 100, 110, 120 }, 3, LAB_BETTER_HIGHER, buf, sizeof(buf));
	cr_expect_str_eq(buf, "pthread                      locktest                 t=2    total_rate     Hmean 109.4 ±7.5%\n");
	cell_line((const double[]){ 100, 110 }, 2, LAB_BETTER_HIGHER, buf, sizeof(buf));
	cr_expect(strstr(buf, "  [fewer than 3 iterations]\n"), "%s", buf);
	{	/* a simulated run's line names its machine, before the flag */
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		cr_assert(f);
		lab_fmt_cell_line(f, "rwsem", "locktest", 2, "total_rate", (const double[]){ 100, 110 }, 2,
				  LAB_BETTER_HIGHER, "generic-8");
		fclose(f);
		cr_expect(strstr(buf, "  [sim generic-8]  [fewer than 3 iterations]\n"), "%s", buf);
	}
	/* 100, 200, 300: HCoeffVar well above 10%, printed and flagged by that name */
	cell_line((const double[]){ 100, 200, 300 }, 3, LAB_BETTER_HIGHER, buf, sizeof(buf));
	cr_expect(strstr(buf, "Hmean ") && strstr(buf, "%  [HCoeffVar > 10%]\n"), "%s", buf);
	/* lower is better: Amean 20 ±50.0% (sample stddev 10), flagged as CoeffVar */
	cell_line((const double[]){ 10, 20, 30 }, 3, LAB_BETTER_LOWER, buf, sizeof(buf));
	cr_expect(strstr(buf, "Amean 20.00 ±50.0%  [CoeffVar > 10%]\n"), "%s", buf);
	/* 9.1% stays unflagged */
	cell_line((const double[]){ 10, 11, 12 }, 3, LAB_BETTER_LOWER, buf, sizeof(buf));
	cr_expect(strstr(buf, "Amean 11.00 ±9.1%\n"), "%s", buf);
}

/* The one rule every report format flags cells by: n < 3, else the printed spread above 10%. */
Test(stats, cell_flag_rule)
{
	const double wide[] = { 89, 100, 111 };	/* CoeffVar 11.0%, HCoeffVar 9.2%: depends on the spread printed */

	cr_expect_str_eq(lab_fmt_flag(wide, 2, true), "fewer than 3 iterations");
	cr_expect_str_eq(lab_fmt_flag(wide, 1, false), "fewer than 3 iterations");
	cr_expect_str_eq(lab_fmt_flag(wide, 3, false), "CoeffVar > 10%");
	cr_expect_null(lab_fmt_flag(wide, 3, true));
	cr_expect_str_eq(lab_fmt_flag((const double[]){ 800, 1000, 1200 }, 3, true), "HCoeffVar > 10%");
	/* a value <= 0 has no Hmean: the Amean's CoeffVar is what is printed and judged */
	cr_expect_str_eq(lab_fmt_flag((const double[]){ 0, 10, 20 }, 3, true), "CoeffVar > 10%");
	cr_expect_null(lab_fmt_flag((const double[]){ 100, 101, 99 }, 3, true));
}
