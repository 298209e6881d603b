/* SPDX-License-Identifier: MIT */
/*
 * Every report format on tests/data/two-variants.csv, a fixture whose
 * figures were computed by hand:
 *
 * locktest total_rate (op/s, higher is better), 3 iterations:
 *   t=1  pthread 100, 110, 120: Hmean 3/(1/100+1/110+1/120) = 109.3923, sd 10
 *        ck-rwlock 200, 210, 220: Hmean 209.6823, sd 10
 *        pdiff = 209.6823/109.3923 x 100 - 100 = +91.68%; |diff| 100.3 > 1.96 x 20:
 *        significant. LKP: amean 110 and 210, population sd 8.165 = 7.4% and 3.9%.
 *   t=2  pthread 100, 100, 100; ck-rwlock 101, 99, 100: Hmean 99.99, -0.01%, not
 *        significant.
 *   event.rwsem_sleep_reader: 0 for pthread, 10/12/14 for ck-rwlock at t=1.
 *   per iteration wall 2 s, user 1.5 s, sys 0.25 s (duration: 6 cells x ...).
 * fixture-time elapsed (s, lower is better; a workload no build registers):
 *   t=1  pthread 10, 11, 12 (Amean 11, sd 1); ck-rwlock 8, 8.5, 9 (Amean 8.5, sd 0.5)
 *        pndiff = 100 - 8.5 x 100 / 11 = 22.73%; CI rule: 2.5 < 1.96 x 1.5, not
 *        significant; mmtests t-test: t = 3.873, df 4, p = 0.018 < 0.10, significant.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "report.h"

#define FIXTURE LAB_TEST_DATA "/two-variants.csv"

static char *report(const struct lab_report_opts *o, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	*rc = lab_report_print(f, o);
	fclose(f);
	return buf;
}

static char *report_fmt(enum lab_report_format fmt, const char *workload)
{
	struct lab_report_opts o = { .path = FIXTURE, .format = fmt, .workload = workload };
	int rc;
	char *out = report(&o, &rc);

	cr_assert_eq(rc, 0);
	return out;
}

/* Is @line a whole line of @text? */
static int has_line(const char *text, const char *line)
{
	size_t l = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[l] == '\n' || p[l] == 0))
			return 1;
	return 0;
}

#define expect_line(text, line) cr_expect(has_line(text, line), "missing line\n[%s]\nin\n%s", line, text)
#define expect_no(text, s) cr_expect(!strstr(text, s), "unexpected '%s' in\n%s", s, text)

Test(report, mmtests_layout_and_stars)
{
	char *out = report_fmt(LAB_FMT_MMTESTS, "locktest");

	expect_line(out, "locktest");
	/* header: stat (9) + ' ' + op (12) + ' ' = 22, then %23s per column, split at '-' */
	expect_line(out, "                                      pthread                     ck");
	expect_line(out, "                                                              rwlock");
	expect_line(out, "Hmean     total_rate-1      109.39 (   0.00%)      209.68 *  91.68%*");
	expect_line(out, "Hmean     total_rate-2      100.00 (   0.00%)       99.99 (  -0.01%)");
	expect_line(out, "Min       total_rate-1      100.00 (   0.00%)      200.00 ( 100.00%)");
	expect_line(out, "Stddev    total_rate-1       10.00 (   0.00%)       10.00 (   0.00%)");
	/* pndiff with a zero base: -99 (mmtests) */
	expect_line(out, "Stddev    total_rate-2        0.00 (   0.00%)        1.00 ( -99.00%)");
	expect_line(out, "CoeffVar  total_rate-1        9.09 (   0.00%)        4.76 (  47.62%)");
	expect_line(out, "Max       total_rate-1      120.00 (   0.00%)      220.00 (  83.33%)");
	/* best int(3 x 0.95) = 2 samples: 2/(1/110+1/120) = 114.78 */
	expect_line(out, "BHmean-95 total_rate-1      114.78 (   0.00%)      214.88 (  87.21%)");
	/* stat blocks in mmtests order: all Min rows, then all Hmean rows, ... */
	cr_expect(strstr(out, "Min       total_rate-2") < strstr(out, "Hmean     total_rate-1"));
	free(out);
}

Test(report, mmtests_lower_is_better_and_rules)
{
	struct lab_report_opts o = { .path = FIXTURE, .format = LAB_FMT_MMTESTS, .workload = "fixture-time" };
	char *out;
	int rc;

	out = report(&o, &rc);
	cr_assert_eq(rc, 0);
	expect_line(out, "Amean     elapsed-1       11.00 (   0.00%)        8.50 (  22.73%)");
	expect_line(out, "BAmean-95 elapsed-1       10.50 (   0.00%)        8.25 (  21.43%)");
	free(out);
	o.sig = LAB_SIG_TTEST;
	out = report(&o, &rc);
	expect_line(out, "Amean     elapsed-1       11.00 (   0.00%)        8.50 *  22.73%*");
	free(out);
	o.sig = LAB_SIG_NONE;
	o.workload = "locktest";
	out = report(&o, &rc);
	expect_line(out, "Hmean     total_rate-1      109.39 (   0.00%)      209.68 (  91.68%)");
	free(out);
}

Test(report, mmtests_baseline_moves_first)
{
	struct lab_report_opts o = { .path = FIXTURE, .format = LAB_FMT_MMTESTS, .workload = "locktest",
				     .baseline = "ck-rwlock" };
	int rc;
	char *out = report(&o, &rc);

	cr_assert_eq(rc, 0);
	/* 109.3923 / 209.6823 x 100 - 100 = -47.83 */
	expect_line(out, "Hmean     total_rate-1      209.68 (   0.00%)      109.39 * -47.83%*");
	free(out);
}

Test(report, mmtests_by_workload)
{
	struct lab_report_opts o = { .path = FIXTURE, .format = LAB_FMT_MMTESTS, .by = "workload", .metric = "wall_s" };
	int rc;
	char *out = report(&o, &rc);

	cr_assert_eq(rc, 0);
	expect_line(out, "pthread");
	/* wall_s has no direction: Amean and pndiff, 100 - 11 x 100 / 2 = -450 */
	expect_line(out, "Amean     wall_s-1        2.00 (   0.00%)       11.00 *-450.00%*");
	free(out);
}

Test(report, lkp_layout)
{
	char *out = report_fmt(LAB_FMT_LKP, "locktest");

	expect_line(out, "=========================================================================================");
	expect_line(out, "compiler/cpus/build_type/allocator/kernel/pin/nr_threads/testcase:");
	expect_line(out, "  gcc-12.2.0/2/release/jemalloc/Linux-6.1.0/compact/1/locktest");
	expect_line(out, "         pthread                   ck-rwlock ");
	expect_line(out, "---------------- --------------------------- ");
	expect_line(out, "         %stddev     %change         %stddev");
	expect_line(out, "             \\          |                \\  ");
	expect_line(out, "    110.00 ±  7%     +90.9%     210.00 ±  3%  locktest.total_rate");
	/* t=2: the headline is shown although unchanged; stddev below 2% prints no ± */
	expect_line(out, "    100.00            +0.0%     100.00        locktest.total_rate");
	/* changed at t=1 (medians 0 and 12), never at t=2 (all zero) */
	cr_expect(strstr(out, "lock_events.rwsem_sleep_reader"));
	cr_expect(strstr(strstr(out, "/compact/2/locktest"), "lock_events") == NULL);
	expect_no(out, "thread_ops");
	free(out);
}

Test(report, locktest_lines)
{
	char *out = report_fmt(LAB_FMT_LOCKTEST, NULL);

	expect_line(out, "Running locktest with pthread [runtime = 2s, r% = 50%, load = 100]");
	expect_line(out, "Threads = 1, Min/Mean/Max = 220/220/220");
	expect_line(out, "Threads = 1, Total Rate = 110 op/s; Percpu Rate = 110 op/s");
	expect_line(out, "Threads = 2, Min/Mean/Max = 50/100/150");
	expect_line(out, "Threads = 2, Total Rate = 100 op/s; Percpu Rate = 50 op/s");
	expect_line(out, "lock events (mean per iteration):");
	expect_line(out, "  rwsem_sleep_reader = 12");
	expect_line(out, "lock events: none fired");
	expect_no(out, "fixture-time");
	free(out);
}

Test(report, speedup_table)
{
	char *out = report_fmt(LAB_FMT_SPEEDUP, NULL);

	expect_line(out, "locktest  total_rate (op/s): Hmean change vs pthread, positive = better");
	expect_line(out, "Threads  ck-rwlock");
	expect_line(out, "      1     +91.7%");
	expect_line(out, "      2      -0.0%");
	expect_line(out, "fixture-time  elapsed (s): Amean change vs pthread, positive = better");
	expect_line(out, "      1     +22.7%");
	free(out);
}

Test(report, duration_sums)
{
	char *out = report_fmt(LAB_FMT_DURATION, NULL);

	/* locktest: 2 thread counts x 3 iterations x (1.5, 0.25, 2) s per column */
	expect_line(out, "User            9.00        9.00");
	expect_line(out, "System          1.50        1.50");
	expect_line(out, "Elapsed        12.00       12.00");
	/* fixture-time wall: 10+11+12+10+10+10.3 = 63.3 and 8+8.5+9+10.05+10.2+10.25 = 56 */
	expect_line(out, "Elapsed        63.30       56.00");
	free(out);
}

Test(report, csv_rows)
{
	char *out = report_fmt(LAB_FMT_CSV, "locktest");

	expect_line(out, "group,column,workload,metric,unit,better,threads,n,stat,mean,stddev,coeffvar,min,max,"
			 "change_pct,significant,welch_p");
	/* Welch: t = -100 / sqrt(200/3), df = 4: p = 0.000255216749 (mpmath) */
	expect_line(out, "locktest,ck-rwlock,locktest,total_rate,op/s,higher,1,3,hmean,209.6822995,10,4.761904762,"
			 "200,220,91.67927383,1,0.0002552167494");
	expect_line(out, "locktest,pthread,locktest,total_rate,op/s,higher,1,3,hmean,109.3922652,10,9.090909091,"
			 "100,120,0,0,");
	free(out);
}

Test(report, markdown_table)
{
	char *out = report_fmt(LAB_FMT_MARKDOWN, "locktest");

	expect_line(out, "### locktest");
	expect_line(out, "| op | pthread | ck-rwlock |");
	expect_line(out, "|:---|---:|---:|");
	expect_line(out, "| Hmean total_rate-1 | 109.39 ±9.09% | 209.68 ±4.76% (**+91.68%**) |");
	expect_line(out, "| Hmean total_rate-2 | 100.00 ±0.00% | 99.99 ±1.00% (-0.01%) |");
	free(out);
}

Test(report, default_table_kept)
{
	char *out = report_fmt(LAB_FMT_TABLE, "locktest");

	expect_line(out, "locktest  total_rate  (higher is better; Hmean of iterations, +-stddev%, change vs pthread)");
	cr_expect(strstr(out, "109.4 +- 9.1% (base)"), "%s", out);
	cr_expect(strstr(out, "209.7 +- 4.8% ( +91.7%*)"), "%s", out);
	free(out);
}

Test(report, errors_return_1)
{
	struct lab_report_opts o = { .path = FIXTURE };
	int rc;

	o.baseline = "no-such-variant";
	free(report(&o, &rc));
	cr_expect_eq(rc, 1);
	o.baseline = NULL;
	o.metric = "no_such_metric";
	free(report(&o, &rc));
	cr_expect_eq(rc, 1);
	o.metric = NULL;
	o.workload = "no-such-workload";
	free(report(&o, &rc));
	cr_expect_eq(rc, 1);
	o.workload = NULL;
	o.by = "no_such_column";
	free(report(&o, &rc));
	cr_expect_eq(rc, 1);
	o.by = NULL;
	o.path = LAB_TEST_DATA "/does-not-exist.csv";
	free(report(&o, &rc));
	cr_expect_eq(rc, 1);
}

Test(report, reference_side_by_side)
{
	struct lab_matrix m;
	struct lab_refmap map;
	struct lab_report_opts o = { .path = FIXTURE, .format = LAB_FMT_NONE, .map = &map, .title = "fixture" };
	char err[1024], ref[4200];
	int rc;
	char *out;

	cr_assert_eq(lab_matrix_load(LAB_TEST_DATA "/fixture.matrix", &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_reference(&m, ref, sizeof(ref)), 0);
	o.reference = ref;
	out = report(&o, &rc);
	cr_assert_eq(rc, 0);
	/* published 100 -> 80 (-20%), rwlab Amean 11 -> 8.5 (-22.73%): both '-' */
	cr_expect(strstr(out, "1               100.00         80.00   -20.00% |       1         11.00          8.50  -22.73%  | - -  agree"),
		  "%s", out);
	/* published +10% at 8 clients -> cpus = 2 threads: rwlab 10.10 -> 10.17 = +0.66%, flat */
	cr_expect(strstr(out, "| + =  DISAGREE"), "%s", out);
	/* 99 clients: no such thread count in the results, not counted */
	cr_expect(strstr(out, "| = ?  n/a"), "%s", out);
	/* speedup-percent rows are the change itself: +12% against rwlab's -0.01% at 2*cpus/2 = 2 */
	cr_expect(strstr(out, "4                    -         12.00   +12.00% |       2        100.00         99.99   -0.01%"),
		  "%s", out);
	expect_line(out, "direction agrees in 1 of 3 rows (4 shown; '=' when |change| < 1%; change = 100 (new/base - 1); "
			 "* = rwlab change significant)");
	free(out);
	lab_matrix_free(&m);
}

Test(report, reference_identity_map_needs_shared_names)
{
	struct lab_report_opts o = { .path = FIXTURE, .format = LAB_FMT_NONE, .reference = LAB_TEST_DATA "/published.csv" };
	int rc;

	free(report(&o, &rc));
	cr_expect_eq(rc, 1);	/* old/new are not rwlab columns: a map is needed */
}
