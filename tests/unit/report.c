/* SPDX-License-Identifier: GPL-2.0-only */
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
 *   event.fixture_sleeps: 0 for pthread, 10/12/14 for ck-rwlock at t=1 (a lock event
 *   this build does not know, so its rows are read as they are: the rows of an
 *   event it knows and the variant does not count would be read as none).
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
#include <unistd.h>

#include <math.h>

#include "config.h"
#include "matrix.h"
#include "report.h"
#include "report_impl.h"
#include "report_ref.h"
#include "results.h"

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

/* The report of @o holds @line as a whole line. */
static void expect_report_line(const struct lab_report_opts *o, const char *line)
{
	int rc;
	char *out = report(o, &rc);

	expect_line(out, line);
	free(out);
}

/*
 * The formats are one list (report.h's LAB_REPORT_FORMAT_LIST): each name
 * parses to its own enum, prints the fixture, and is named in the README's
 * sentence on `report --format`; a format added to the list alone fails here.
 */
Test(report, every_format_of_the_list)
{
	static const struct {
		enum lab_report_format f;
		const char *name;
	} list[] = {
#define FORMAT_ENTRY(e, n) { LAB_FMT_##e, #n },
		LAB_REPORT_FORMAT_LIST(FORMAT_ENTRY)
#undef FORMAT_ENTRY
		{ LAB_FMT_NONE, "none" },
	};
	static char readme[1 << 20];
	FILE *f = fopen(LAB_SOURCE_ROOT "/README.md", "r");
	const char *from, *to;
	size_t len;

	cr_assert(f, "cannot read README.md");
	len = fread(readme, 1, sizeof(readme) - 1, f);
	fclose(f);
	readme[len] = 0;
	from = strstr(readme, "`report --format`");
	to = from ? strstr(from, "`--by workload`") : NULL;
	cr_assert(from && to, "README: no sentence from `report --format` to `--by workload`");
	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		enum lab_report_format got = LAB_FMT_NONE;
		char q[64], *out;
		const char *p;

		cr_expect_eq(lab_report_format_parse(list[i].name, &got), 0, "%s does not parse", list[i].name);
		cr_expect_eq(got, list[i].f, "%s parses to %d, not %d", list[i].name, got, list[i].f);
		cr_expect_str_eq(lab_report_format_name(list[i].f), list[i].name);
		cr_expect(strstr(LAB_REPORT_FORMATS, list[i].name), "%s not in LAB_REPORT_FORMATS", list[i].name);
		snprintf(q, sizeof(q), "`%s`", list[i].name);
		p = strstr(from, q);
		cr_expect(p && p < to, "README's `report --format` sentence does not name %s", q);
		if (list[i].f == LAB_FMT_NONE)
			continue;
		out = report_fmt(list[i].f, "locktest");
		cr_expect(out && strlen(out) > 20 && !strstr(out, "no rows to report"), "%s printed:\n%s", list[i].name,
			  out);
		free(out);
	}
}

/*
 * mmtests today (the default era): HStddev = sqrt(sum((1/x - 1/H)^2) H^4 / n):
 * pthread t=1 8.153, HCoeffVar 7.45%; ck-rwlock 8.16, 3.89%. One BHmean row, named
 * BHmean.95. Stars by the interval rule on Hmean and HStddev: 100.3 > 1.96 x 16.3.
 */
Test(report, mmtests_current_layout_and_stars)
{
	char *out = report_fmt(LAB_FMT_MMTESTS, "locktest");

	expect_line(out, "Hmean     total_rate-1      109.39 (   0.00%)      209.68 *  91.68%*");
	expect_line(out, "Hmean     total_rate-2      100.00 (   0.00%)       99.99 (  -0.01%)");
	expect_line(out, "HStddev   total_rate-1        8.15 (   0.00%)        8.16 (  -0.10%)");
	expect_line(out, "HCoeffVar total_rate-1        7.45 (   0.00%)        3.89 (  47.78%)");
	expect_line(out, "BHmean.95 total_rate-1      114.78 (   0.00%)      214.88 (  87.21%)");
	expect_no(out, "BHmean-");
	expect_no(out, "\nStddev");
	free(out);
}

/* mmtests as of 2019 (--mmtests-era 2019): Stddev/CoeffVar of the samples, three BHmean rows, t-test stars on the Hmean */
Test(report, mmtests_2019_layout_and_stars)
{
	struct lab_report_opts o = { .path = FIXTURE, .format = LAB_FMT_MMTESTS, .workload = "locktest",
				     .era = LAB_ERA_2019 };
	int rc;
	char *out = report(&o, &rc);

	cr_assert_eq(rc, 0);

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
	/* best int(3 x 0.95) = 2 samples: 2/(1/110+1/120) = 114.78; best int(3 x 0.5) = 1: 120 */
	expect_line(out, "BHmean-50 total_rate-1      120.00 (   0.00%)      220.00 (  83.33%)");
	expect_line(out, "BHmean-99 total_rate-1      114.78 (   0.00%)      214.88 (  87.21%)");
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
	expect_line(out, "Stddev    elapsed-1        1.00 (   0.00%)        0.50 (  50.00%)");
	expect_line(out, "BAmean.95 elapsed-1       10.50 (   0.00%)        8.25 (  21.43%)");
	free(out);
	o.sig = LAB_SIG_TTEST;
	expect_report_line(&o, "Amean     elapsed-1       11.00 (   0.00%)        8.50 *  22.73%*");
	o.sig = LAB_SIG_NONE;
	o.workload = "locktest";
	expect_report_line(&o, "Hmean     total_rate-1      109.39 (   0.00%)      209.68 (  91.68%)");
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
	cr_expect(strstr(out, "lock_events.fixture_sleeps"));
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
	expect_line(out, "  fixture_sleeps = 12");
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

	expect_line(out, "group,column,workload,metric,unit,better,threads,n,stat,mean,spread_stat,stddev,coeffvar,min,"
			 "max,change_pct,significant,welch_p,flag");
	/*
	 * The spread every format shows: HStddev 8.1619 and HCoeffVar 3.89% around the Hmean (the
	 * table's ±3.9%), not the plain Stddev 10 and CoeffVar 4.76%.
	 * Welch: t = -100 / sqrt(200/3), df = 4: p = 0.000255216749 (mpmath)
	 */
	expect_line(out, "locktest,ck-rwlock,locktest,total_rate,op/s,higher,1,3,hmean,209.6822995,HCoeffVar,8.1618631,"
			 "3.892490266,200,220,91.67927383,1,0.0002552167494,");
	/* the baseline: no change against itself (json's null; it was 0), no p */
	expect_line(out, "locktest,pthread,locktest,total_rate,op/s,higher,1,3,hmean,109.3922652,HCoeffVar,8.153493598,"
			 "7.453446168,100,120,,0,,");
	free(out);
}

Test(report, markdown_table)
{
	char *out = report_fmt(LAB_FMT_MARKDOWN, "locktest");

	expect_line(out, "### locktest");
	expect_line(out, "| op | pthread | ck-rwlock |");
	expect_line(out, "|:---|---:|---:|");
	expect_line(out, "| Hmean total_rate-1 | 109.39 ±7.45% | 209.68 ±3.89% (**+91.68%**) |");
	expect_line(out, "| Hmean total_rate-2 | 100.00 ±0.00% | 99.99 ±0.82% (-0.01%) |");
	free(out);
}

/*
 * The line that says what a star (markdown: bold) means comes only under
 * tables where a change carries one: locktest's +91.7% at 1 thread; none of
 * fixture-time's under ci (+22.7%: 2.5 < 1.96 x 1.5), its +22.7% under the
 * t-test (p = 0.018). With no rule at all the note says so.
 */
Test(report, sig_legend_only_under_a_star)
{
	static const struct {
		enum lab_report_format f;
		const char *legend, *none;
	} fmt[] = {
		{ LAB_FMT_TABLE, "* significant (", "(no significance test)" },
		{ LAB_FMT_EMAIL, "* significant (", "(no significance test)" },
		{ LAB_FMT_MARKDOWN, "**bold** = significant", NULL },
		{ LAB_FMT_HTML, "* significant (", "(no significance test)" },
	};

	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		struct lab_report_opts o = { .path = FIXTURE, .format = fmt[i].f, .workload = "locktest" };
		const char *name = lab_report_format_name(fmt[i].f);
		char *out;
		int rc;

		out = report(&o, &rc);
		cr_expect(rc == 0 && strstr(out, fmt[i].legend), "%s, a starred change: no '%s' in\n%s", name,
			  fmt[i].legend, out);
		free(out);
		o.workload = "fixture-time";
		out = report(&o, &rc);
		cr_expect(rc == 0 && !strstr(out, fmt[i].legend), "%s, no starred change: '%s' in\n%s", name,
			  fmt[i].legend, out);
		free(out);
		o.sig = LAB_SIG_TTEST;
		out = report(&o, &rc);
		cr_expect(rc == 0 && strstr(out, fmt[i].legend), "%s, starred by the t-test: no '%s' in\n%s", name,
			  fmt[i].legend, out);
		free(out);
		o.sig = LAB_SIG_NONE;
		out = report(&o, &rc);
		cr_expect(rc == 0 && !strstr(out, fmt[i].legend), "%s, no rule: '%s' in\n%s", name, fmt[i].legend, out);
		cr_expect(!fmt[i].none || strstr(out, fmt[i].none), "%s, no rule: no '%s' in\n%s", name,
			  fmt[i].none ? fmt[i].none : "", out);
		free(out);
	}
}

Test(report, default_table_readable)
{
	char *out = report_fmt(LAB_FMT_TABLE, "locktest");

	expect_line(out, "locktest: total_rate (op/s, higher is better), Hmean ±HCoeffVar, change vs pthread");
	/*
	 * Hmean 109.3923 -> "109.4"; HCoeffVar = sqrt(sum((1/x - 1/H)^2) H^4 / 3) / H
	 * = 8.153 / 109.39 = 7.5%; ck-rwlock 209.68, 8.16 / 209.68 = 3.9%, +91.7%,
	 * significant under ci with HStddev (100.3 > 1.96 (8.15 + 8.16)).
	 */
	expect_line(out, "1 thread   109.4 ±7.5%  209.7 ±3.9%  +91.7%*");
	expect_line(out, "2 threads  100.0 ±0.0%  99.99 ±0.8% -0.0067%");	/* -0.0067%: the sign is kept */
	expect_no(out, "e+");
	free(out);
}

/* Every line of @text fits in @width display columns (UTF-8 code points). */
static void expect_width(const char *text, int width)
{
	int col = 0, line = 1;

	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			col = 0;
			line++;
			continue;
		}
		col += ((unsigned char)*p & 0xc0) != 0x80;
		cr_expect(col <= width, "line %d is wider than %d columns:\n%s", line, width, text);
		if (col > width)
			return;
	}
}

Test(report, email_fits_80_columns)
{
	char *out = report_fmt(LAB_FMT_EMAIL, NULL);

	expect_width(out, 80);
	expect_line(out, "rwlab abc123, 2 CPUs (Test CPU),");
	expect_line(out, "  Linux 6.1.0, gcc 12.2.0 release, jemalloc, up to 3 iterations");
	/* whole percents for the spread and for changes of 10% or more, as LKP's "±  7%" */
	expect_line(out, "1 thread   109.4 ±7%  209.7 ±4%    +92%*");
	expect_line(out, "2 threads  100.0 ±0%  99.99 ±1% -0.0067%");
	expect_no(out, " \n");
	free(out);
}

/* 256 variants at one thread count: the default table turns them into rows, within 100 columns. */
Test(report, table_transposed_when_wide)
{
	char path[] = "/tmp/rwlab-many-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct lab_report_opts o = { .path = path };
	int rc, rows = 0;
	char *out;

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fprintf(f, "schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better\n");
	for (int i = 0; i < 40; i++)
		for (int t = 1; t <= 4; t *= 2)
			fprintf(f, "1,r,t,a-long-variant-name-%02d,locktest,%d,0,total_rate,%d,op/s,higher\n", i, t,
				1000 + i);
	fclose(f);
	out = report(&o, &rc);
	unlink(path);
	cr_assert_eq(rc, 0);
	expect_width(out, 100);
	/* names whole, one row each; 1039 over 1000 = +3.9%; one iteration: flagged */
	for (const char *p = out; (p = strstr(p, "\na-long-variant-name-")); p++)
		rows++;
	cr_expect_eq(rows, 40, "%s", out);
	cr_expect(strstr(out, "a-long-variant-name-39  1,039 ! +3.9%  1,039 ! +3.9%  1,039 ! +3.9%"), "%s", out);
	free(out);
}

/*
 * An option that names what the file does not hold is a usage error, 2,
 * whichever option it is (baseline, metric and workload returned 1 while
 * --by returned 2); a file that cannot be read is 1.
 */
Test(report, a_name_the_file_lacks_is_a_usage_error)
{
	struct lab_report_opts o = { .path = FIXTURE };
	int rc;

	o.baseline = "no-such-variant";
	free(report(&o, &rc));
	cr_expect_eq(rc, 2, "--baseline");
	o.baseline = NULL;
	o.metric = "no_such_metric";
	free(report(&o, &rc));
	cr_expect_eq(rc, 2, "-m");
	o.metric = NULL;
	o.workload = "no-such-workload";
	free(report(&o, &rc));
	cr_expect_eq(rc, 2, "-w");
	o.workload = NULL;
	o.by = LAB_RESULTS_FAULT_PATH;	/* the fixture is locktest's: no row has a fault path */
	free(report(&o, &rc));
	cr_expect_eq(rc, 2, "--by fault_path");
	o.by = "no_such_column";	/* --by's words are the CSV schema's */
	free(report(&o, &rc));
	cr_expect_eq(rc, 2, "--by");
	o.by = NULL;
	o.path = LAB_TEST_DATA "/does-not-exist.csv";
	free(report(&o, &rc));
	cr_expect_eq(rc, 1, "a missing file");
}

/*
 * The banner above the text tables names every value a column has over the
 * rows: two kernels compared with --by kernel are both named (it named the
 * first row's alone, as if every row were measured on it); a file with
 * measured and simulated rows has a line for each kind (it had the first
 * row's kind alone: "measured: ..." above the model's figures).
 */
Test(report, banner_names_every_kernel_and_both_kinds_of_rows)
{
	const char *kernels[] = { LAB_TEST_DATA "/good.csv", LAB_TEST_DATA "/other-kernel.csv" };
	const char *mixed[] = { LAB_TEST_DATA "/good.csv", LAB_TEST_DATA "/simulated.csv" };
	struct lab_report_opts o = { .path = kernels[0], .paths = kernels, .npaths = 2, .by = "variant,kernel" };
	int rc;
	char *out = report(&o, &rc);

	cr_expect_eq(rc, 0);
	cr_expect(strstr(out, "measured: host host, 2 CPUs cpu, 2 kernels (Linux 6.1; Linux 6.6), release build\n") == out,
		  "%s", out);
	free(out);
	o.path = mixed[0];
	o.paths = mixed;
	out = report(&o, &rc);
	cr_expect_eq(rc, 0);
	cr_expect(strstr(out, "measured: host host, 2 CPUs cpu, Linux 6.1, release build\nsimulated: generic-8 on rwlab-sim "
			      "sim-13 engine 0123456789ab machine 6867c6e3 seed 1 (the model's figures, not this host's)\n") == out,
		  "%s", out);
	free(out);
}

/* One cell's measured and simulated rows are not pooled into one mean: refused unless --by tells them apart. */
Test(report, a_cell_of_measured_and_simulated_rows_is_refused)
{
	const char *mixed[] = { LAB_TEST_DATA "/good.csv", LAB_TEST_DATA "/simulated.csv" };
	struct lab_report_opts o = { .path = mixed[0], .paths = mixed, .npaths = 2 };
	int rc;

	free(report(&o, &rc));
	cr_expect_eq(rc, 1, "pooled: exit %d", rc);
	o.by = "variant,cpu_model";
	free(report(&o, &rc));
	cr_expect_eq(rc, 0, "--by variant,cpu_model: exit %d", rc);
}

static char *verdicts_of(const char *matrix, enum lab_report_format fmt, enum lab_report_sig sig)
{
	static struct lab_matrix m;
	static struct lab_refmap map;
	struct lab_report_opts o = { .path = LAB_TEST_DATA "/verdict.csv", .format = fmt, .map = &map, .sig = sig };
	char err[1024], ref[4200], *out;
	int rc;

	cr_assert_eq(lab_matrix_load(matrix, &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_reference(&m, ref, sizeof(ref)), 0);
	cr_assert_eq(map.cpus, 16);
	o.reference = ref;
	out = report(&o, &rc);
	cr_assert_eq(rc, 0);
	lab_matrix_free(&m);
	return out;
}

static char *verdicts(enum lab_report_format fmt, enum lab_report_sig sig)
{
	return verdicts_of(LAB_TEST_DATA "/verdict.matrix", fmt, sig);
}

/*
 * A row: the published clients at the start of a line (of the block whose
 * header line starts with @block) and the verdict text after the last '|'.
 */
static void expect_verdict_in(const char *out, const char *block, const char *clients, const char *verdict)
{
	char want[64];
	const char *p = block ? strstr(out, block) : out;

	cr_assert(p, "no block '%s' in\n%s", block, out);
	snprintf(want, sizeof(want), "\n%s ", clients);
	p = strstr(p, want);
	cr_assert(p, "no row for clients %s in\n%s", clients, out);
	p = strchr(p + 1, '\n');
	while (p > out && p[-1] != '|')
		p--;
	cr_expect(!strncmp(p + 1, verdict, strlen(verdict)) && p[1 + strlen(verdict)] == '\n',
		  "clients %s: want '%s' in\n%s", clients, verdict, out);
}

#define expect_verdict(out, clients, verdict) expect_verdict_in(out, NULL, clients, verdict)

/*
 * tests/data/verdict.csv (rwlab, 8 CPUs, 3 iterations per cell) against
 * verdict-published.csv (published_cpus 16), a table that prints no marks:
 * its significance comes from its stddev rows (the 95% interval rule), the
 * thread's words (map.flat), or |change| < --flat. One client count per class:
 *   1   published 100 -> 80 (sd 1, 1); rwlab 100/101/99 -> 80/81/79: -20%, significant,
 *       1.00x the published change: agree
 *   2   published 100 -> 80; rwlab -> 120/121/119, significant the other way: disagree
 *   3   published +20%; rwlab 100/130/70 -> 110/140/80: |diff| 10.6 < 1.96 (24 + 23): inconclusive
 *   4   published 100 -> 102 with sd 5, 5: 2 <= 19.6, published-flat; rwlab +0.3% n.s. too
 *   5   published +10%, no spread rows, map.flat quotes the thread: published-flat; rwlab +20% significant
 *   64  mapped to 6 threads: 64 / 6 = 10.7 > 4: scale-gap
 *   8   mapped to 10 threads on 8 CPUs, published 8 clients on 16 CPUs: scale-gap (oversubscribed)
 *   7   published +0.5%, no spread, no words: below --flat 1%, published-flat; rwlab n.s.
 *   99  not mapped: n/a, not counted
 * and benchmark fx2 (workload fixture-rate2):
 *   1   published -10% (sd 1, 1); rwlab -50%: 5x the published change: agree-direction (5.00x)
 *   2   published +20% with no spread and no words: unmarked; rwlab +20%: agree-direction, never agree
 *   3   map.not_comparable: shown, not counted
 *   4   published -5% significant; rwlab 100/100.001/99.999 -> 99.5/99.501/99.499: -0.5%, which the
 *       interval rule alone calls significant (|diff| 0.5 > 1.96 (0.001 + 0.001)), but the minimum
 *       effect is the rule at the run's median spread, 0.817% (HCoeffVar of 100/101/99 and its kin):
 *       3.92 x 0.817% = 3.2% > 0.5%: inconclusive
 */
Test(report, verdict_classes)
{
	char *out = verdicts(LAB_FMT_NONE, LAB_SIG_AUTO);

	expect_verdict(out, "1", "agree (1.00x)");
	expect_verdict(out, "2", "disagree");
	expect_verdict(out, "3", "inconclusive");
	expect_verdict(out, "4", "published-flat");
	expect_verdict(out, "5", "published-flat");
	expect_verdict(out, "64", "scale-gap");
	expect_verdict(out, "8", "scale-gap");
	expect_verdict(out, "7", "published-flat");
	expect_verdict(out, "99", "n/a");
	expect_verdict_in(out, "fx2 | rate", "1", "agree-direction (5.00x)");
	expect_verdict_in(out, "fx2 | rate", "2", "agree-direction (1.00x)");
	expect_verdict_in(out, "fx2 | rate", "3", "not-comparable");
	expect_verdict_in(out, "fx2 | rate", "4", "inconclusive");
	cr_expect(strstr(out, "(published |diff| 2.000 <= 1.96 (sd 5.000 + 5.000); rwlab not significant either)"), "%s", out);
	cr_expect(strstr(out, "(the thread: \"the +10% at 5 clients is noise\" (fixture, not a real thread); rwlab significant)"),
		  "%s", out);
	cr_expect(strstr(out, "(published 64 clients vs rwlab 6 threads (11x apart))"), "%s", out);
	cr_expect(strstr(out, "(5.00x the published change: outside 2x)"), "%s", out);
	cr_expect(strstr(out, "(1.00x the published change; not agree: the table prints no significance for it)"), "%s", out);
	cr_expect(strstr(out, "(the fixture says so (in a real table: a device-bound metric))"), "%s", out);
	cr_expect(strstr(out, "(rwlab's -0.5% is below the minimum effect 3.2%)"), "%s", out);
	/* the marks printed beside each change: * significant, ( ) not, ? unmarked */
	cr_expect(strstr(out, "100.0      120.0   +20.0%? |"), "%s", out);
	cr_expect(strstr(out, "100.0      95.00    -5.0%* |       4      100.0      99.50   (-0.5%) |"), "%s", out);
	cr_expect(strstr(out, "100.0      102.0   (+2.0%) |       4      99.99      100.3   (+0.3%) | published-flat"), "%s", out);
	expect_line(out, "agree 1, agree-direction 2, disagree 1, inconclusive 2, published-flat 3, scale-gap 2 of 11 rows "
			 "(ci, alpha 0.05); not counted: not-comparable 1, n/a 1");
	expect_line(out, "direction: same 3, opposite 1 (both significant); rwlab not significant 2; published not "
			 "significant 3 (rwlab significant there: 1)");
	expect_line(out, "size (rwlab / published change, same-direction rows): within 2x 2, outside 1; 1.00x to 5.00x, "
			 "median 1.00x");
	/* per block too */
	expect_line(out, "  agree 0, agree-direction 2, disagree 0, inconclusive 1, published-flat 0, scale-gap 0 of 3 rows "
			 "(ci, alpha 0.05); not counted: not-comparable 1, n/a 0");
	/* the rule and its thresholds under the table */
	expect_line(out, "minimum effect, fx | rate: 3.2% = max(the rule at the median spread 0.817% of 16 cells (n 3): 3.2%; "
			 "floor 1%, --min-effect)");
	cr_expect(strstr(out, "\nrule: published significance as its table marks it"), "%s", out);
	cr_expect(strstr(out, "\nchange = 100 (new/base - 1) on both sides: for lower-is-better metrics"), "%s", out);
	free(out);
	/* the 2019 t-test (p < 0.10) judges the same rows alike here, and says so */
	out = verdicts(LAB_FMT_NONE, LAB_SIG_TTEST);
	expect_line(out, "agree 1, agree-direction 2, disagree 1, inconclusive 2, published-flat 3, scale-gap 2 of 11 rows "
			 "(t-test, alpha 0.10); not counted: not-comparable 1, n/a 1");
	free(out);
	/* no test: nothing rwlab measured is significant, so no row can agree */
	out = verdicts(LAB_FMT_NONE, LAB_SIG_NONE);
	expect_line(out, "agree 0, agree-direction 0, disagree 0, inconclusive 6, published-flat 3, scale-gap 2 of 11 rows "
			 "(none); not counted: not-comparable 1, n/a 1");
	free(out);
}

/*
 * The published side as its table prints it (verdict-marks.csv, the same
 * rwlab cells):
 *   fx 1  mmtests '*' on -20%: significant; rwlab -20%: agree
 *   fx 2  mmtests '( )' on -20%, although its stddev rows (1, 1) would call it
 *         significant: the mark wins, published-flat
 *   fx 4  mmtests '*' on +2%, although its stddev rows (5, 5) would not: the mark
 *         wins; rwlab +0.3% is not significant: inconclusive
 *   lk 1  LKP, no "±" on either side (each under 2%): ratio 1.25 > 1.01 and
 *         |diff| 20 > 1.96 (2 + 1.6): significant; rwlab -20%: agree
 *   lk 3  LKP ±10% and ±12%: |diff| 10 <= 1.96 (10 + 13.2): published-flat
 *   lk time.rate 1  -4%: not the benchmark's own stat, ratio 1.04 <= 1.05: published-flat
 * The table's marks are mmtests' t-test stars, so rwlab's rule is the t-test
 * unless --significance says otherwise.
 */
Test(report, verdict_published_marks)
{
	char *out = verdicts_of(LAB_TEST_DATA "/verdict-marks.matrix", LAB_FMT_NONE, LAB_SIG_AUTO);

	expect_verdict_in(out, "fx | rate", "1", "agree (1.00x)");
	expect_verdict_in(out, "fx | rate", "2", "published-flat");
	expect_verdict_in(out, "fx | rate", "4", "inconclusive");
	expect_verdict_in(out, "lk | lk.rate", "1", "agree (1.00x)");
	expect_verdict_in(out, "lk | lk.rate", "3", "published-flat");
	expect_verdict_in(out, "lk | time.rate", "1", "published-flat");
	cr_expect(strstr(out, "(its table marks it '( )' (mmtests-ttest); rwlab significant)"), "%s", out);
	cr_expect(strstr(out, "LKP: ratio 1.1 > 1.01, |diff| 10.00 <= 1.96 x (10% + 12%) = 45.47"), "%s", out);
	cr_expect(strstr(out, "ratio 1.04 <= 1.05 (not the benchmark's own stat)"), "%s", out);
	cr_expect(strstr(out, "rwlab significant = t-test, alpha 0.10 (the table's own rule: its marks are mmtests' t-test "
			      "stars (2018-10..2024-11))"), "%s", out);
	free(out);
	/* --significance overrides the table's rule */
	out = verdicts_of(LAB_TEST_DATA "/verdict-marks.matrix", LAB_FMT_NONE, LAB_SIG_CI);
	cr_expect(strstr(out, "rwlab significant = ci, alpha 0.05 (--significance, not the rule of the table's marks)"),
		  "%s", out);
	free(out);
}

/*
 * A published-flat row whose two rwlab columns hold the same figures (under
 * --sim a fix that takes its parent's path, hugetlb-vmemmap's c2a967f6 with
 * HVO off): "not significant either" would read as a test passed; the line
 * says the figures are equal by construction. verdict.csv's pthread rows at
 * 1 thread, copied as ck-rwlock's; the published change (+0.5%, '( )') flat.
 */
Test(report, published_flat_identical_columns_said)
{
	char dir[] = "/tmp/rwlab-vsame-XXXXXX", csv[128], pub[128], mx[128], err[1024], ref[4200], line[512], *out;
	struct lab_matrix m;
	struct lab_refmap map;
	FILE *in, *f;
	int rc;

	cr_assert(mkdtemp(dir));
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(pub, sizeof(pub), "%s/p.csv", dir);
	snprintf(mx, sizeof(mx), "%s/m.matrix", dir);
	in = fopen(LAB_TEST_DATA "/verdict.csv", "r");
	f = fopen(csv, "w");
	cr_assert(in && f);
	for (int n = 0; fgets(line, sizeof(line), in); n++) {
		if (!n || strstr(line, ",pthread,fixture-rate,1,"))
			fputs(line, f);
		if (n && strstr(line, ",pthread,fixture-rate,1,")) {
			char *p = strstr(line, ",pthread,");

			fprintf(f, "%.*s,ck-rwlock,%s", (int)(p - line), line, p + strlen(",pthread,"));
		}
	}
	fclose(in);
	fclose(f);
	f = fopen(pub, "w");
	cr_assert(f);
	fputs("benchmark,stat,metric,clients,variant,value,mark,rule\nfx,hmean,rate,1,old,100,( ),mmtests-ttest\n"
	      "fx,hmean,rate,1,new,100.5,( ),mmtests-ttest\n", f);
	fclose(f);
	f = fopen(mx, "w");
	cr_assert(f);
	fputs("locks = pthread, ck-rwlock\nworkloads = locktest\nthreads = 1\nreference = p.csv\n"
	      "machine = an imaginary 16-CPU machine\npublished_cpus = 16\nmap.column = old -> pthread\n"
	      "map.column = new -> ck-rwlock\nmap.metric = fx | rate -> fixture-rate | rate\n", f);
	fclose(f);
	cr_assert_eq(lab_matrix_load(mx, &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_reference(&m, ref, sizeof(ref)), 0);
	{
		struct lab_report_opts o = { .path = csv, .format = LAB_FMT_NONE, .map = &map, .sig = LAB_SIG_CI,
					     .reference = ref };

		out = report(&o, &rc);
	}
	cr_expect_eq(rc, 0);
	expect_verdict_in(out, "fx | rate", "1", "published-flat");
	cr_expect(strstr(out, "rwlab not significant either, but its two columns hold the same figures (mean and "
			      "spread to the last bit): equal by construction)"), "%s", out);
	free(out);
	lab_matrix_free(&m);
	unlink(csv);
	unlink(pub);
	unlink(mx);
	rmdir(dir);
}

/*
 * A published figure that is the change itself (lazy-mm-hazard-pointers.csv:
 * "ops/sec change vs refcount", the baseline '-', the column +3.0): the table
 * shows it as the change alone, not as a value of the new column ("3.000").
 */
Test(report, published_change_figure_not_a_value)
{
	struct lab_vrow row = { .clients = "24", .pb = NAN, .pn = 3, .pch = 3, .pub = LAB_PUB_UNMARKED, .th = 24,
				.ob = 100, .on = 114, .och = 14, .ratio = NAN, .v = LAB_V_INCONCLUSIVE };
	char cells[REP_VROW_CELLS][64];

	rep_vrow_cells(&row, cells);
	cr_expect_str_eq(cells[1], "-");
	cr_expect_str_eq(cells[2], "-");
	cr_expect_str_eq(cells[3], "+3.0%?");
	row.pb = 100;	/* a value and its change: both shown */
	row.pn = 103;
	rep_vrow_cells(&row, cells);
	cr_expect_str_neq(cells[2], "-");
}

/* The classes from their inputs alone: what "agree" claims. */
Test(report, verdict_judge)
{
	double q;

	cr_expect_eq(lab_verdict_judge(-10, LAB_PUB_SIGNIFICANT, -15, true, &q), LAB_V_AGREE);
	cr_expect_float_eq(q, 1.5, 1e-12);
	cr_expect_eq(lab_verdict_judge(-10, LAB_PUB_SIGNIFICANT, -20, true, &q), LAB_V_AGREE);	/* 2x: within */
	cr_expect_eq(lab_verdict_judge(-10, LAB_PUB_SIGNIFICANT, -5, true, &q), LAB_V_AGREE);	/* 0.5x: within */
	cr_expect_eq(lab_verdict_judge(-10, LAB_PUB_SIGNIFICANT, -20.1, true, &q), LAB_V_AGREE_DIRECTION);
	cr_expect_eq(lab_verdict_judge(-10, LAB_PUB_SIGNIFICANT, -4.9, true, &q), LAB_V_AGREE_DIRECTION);
	cr_expect_eq(lab_verdict_judge(3, LAB_PUB_UNMARKED, 3, true, &q), LAB_V_AGREE_DIRECTION);	/* no mark: no agree */
	cr_expect_eq(lab_verdict_judge(-10, LAB_PUB_SIGNIFICANT, 10, true, &q), LAB_V_DISAGREE);
	cr_expect(isnan(q));
	cr_expect_eq(lab_verdict_judge(-10, LAB_PUB_SIGNIFICANT, -10, false, &q), LAB_V_INCONCLUSIVE);
	cr_expect_eq(lab_verdict_judge(-10, LAB_PUB_NOT_SIGNIFICANT, -10, true, &q), LAB_V_PUBLISHED_FLAT);
	cr_expect_eq(lab_verdict_judge(-10, LAB_PUB_UNMARKED, 10, true, NULL), LAB_V_DISAGREE);
	cr_expect_str_eq(lab_verdict_name(LAB_V_AGREE_DIRECTION), "agree-direction");
	cr_expect_str_eq(lab_verdict_name(LAB_V_NOT_COMPARABLE), "not-comparable");
}

/* The minimum effect is a floor under the run's noise: --min-effect 0 leaves the noise term alone. */
Test(report, verdict_min_effect)
{
	static struct lab_matrix m;
	static struct lab_refmap map;
	struct lab_report_opts o = { .path = LAB_TEST_DATA "/verdict.csv", .format = LAB_FMT_NONE, .map = &map,
				     .min_effect_set = true, .min_effect_pct = 5 };
	char err[1024], ref[4200], *out;
	int rc;

	cr_assert_eq(lab_matrix_load(LAB_TEST_DATA "/verdict.matrix", &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_reference(&m, ref, sizeof(ref)), 0);
	o.reference = ref;
	out = report(&o, &rc);
	cr_assert_eq(rc, 0);
	expect_line(out, "minimum effect, fx | rate: 5% = max(the rule at the median spread 0.817% of 16 cells (n 3): 3.2%; "
			 "floor 5%, --min-effect)");
	free(out);
	lab_matrix_free(&m);
}

Test(report, verdicts_in_json)
{
	char *out = verdicts(LAB_FMT_JSON, LAB_SIG_AUTO);

	cr_expect(strstr(out, "\"clients\": \"1\", \"published_mark\": \"\", \"published_rule\": \"none\", "
			      "\"published_significance\": \"significant\""), "%s", out);
	cr_expect(strstr(out, "\"rwlab_rule_significant\": true, \"rwlab_significant\": true, \"verdict\": \"agree\""), "%s", out);
	cr_expect(strstr(out, "\"verdict\": \"not-comparable\""), "%s", out);
	cr_expect(strstr(out, "\"summary\": {\"agree\": 1, \"agree_direction\": 2, \"disagree\": 1, \"inconclusive\": 2, "
			      "\"published_flat\": 3, \"scale_gap\": 2, \"rows\": 11, \"not_comparable\": 1, \"not_compared\": 1"),
		  "%s", out);
	cr_expect(strstr(out, "\"series\": [\n    {\"group\": \"fixture-rate\", \"column\": \"pthread\""), "%s", out);
	free(out);
}

#define TTEST_STAR_RULE "* significant (t-test p < 0.10 on the means, df = n_base + n - 2) and at least 1% (--min-effect)"

/* The report of tests/data/verdict-stars.csv under its matrix, whose significance key is taken when @matrix_sig. */
static char *stars_and_verdicts(enum lab_report_format fmt, bool matrix_sig)
{
	static struct lab_matrix m;
	static struct lab_refmap map;
	struct lab_report_opts o = { .path = LAB_TEST_DATA "/verdict-stars.csv", .format = fmt, .map = &map };
	char err[1024], ref[4200], *out;
	int rc;

	cr_assert_eq(lab_matrix_load(LAB_TEST_DATA "/verdict-stars.matrix", &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_reference(&m, ref, sizeof(ref)), 0);
	o.reference = ref;
	o.by = lab_matrix_get(&m, "by", NULL);
	o.baseline = lab_matrix_get(&m, "baseline", NULL);
	if (matrix_sig)	/* as report --matrix takes it: as --significance */
		cr_assert_eq(lab_report_sig_parse(lab_matrix_get(&m, "significance", NULL), &o.sig), 0);
	out = report(&o, &rc);
	cr_assert_eq(rc, 0, "%s", out);
	lab_matrix_free(&m);
	return out;
}

/*
 * A readable table's star and the verdict judge the same cell by one rule
 * (tests/data/verdict-stars.*: fixture-rate's two labels compared side by
 * side, by = workload, as the simulated per-vma-locks run compares pft and
 * pft:mm_lock=vma). fixture-rate:mode=b against fixture-rate:
 *   1 thread   985.9/986/986.1 vs 999.9/1000/1000.1: -1.4%, both rules pass
 *   2 threads  900/1000/1100 vs the same 1000s: -0.7%, spread 8.2%
 *   3 threads  960/970/980 vs 990/1000/1010: -3.0%, t = 3.67, df 4, p 0.02:
 *              the t-test passes; |diff| 30 <= 1.96 (10 + 10): the interval rule fails
 * The verdicts' noise term is of the map.metric's workload, every label of
 * fixture-rate: the t-test's change at the median spread of its 6 cells
 * (0.41%) is 0.72%, under the 1% floor. The table took it of the cell's
 * label alone (1.5%), so under the matrix's ttest the verdict starred -1.4%
 * and the table did not. Without the key the verdicts take the rule of the
 * published marks (mmtests-ttest) and the table took the era's interval
 * rule: -3.0% starred in the verdicts only, and the line under the table
 * named the interval rule. mmtests' own stars keep the era's rule.
 */
Test(report, stars_judged_as_the_verdicts)
{
	char *out = stars_and_verdicts(LAB_FMT_TABLE, true);

	expect_line(out, "1 thread    1,000 ±0.0%   986.0 ±0.0% -1.4%*");
	expect_verdict_in(out, "fx | rate", "1", "agree (1.00x)");
	expect_line(out, TTEST_STAR_RULE);
	free(out);
	out = stars_and_verdicts(LAB_FMT_TABLE, false);
	expect_line(out, "3 threads   999.9 ±0.8%   969.9 ±0.8% -3.0%*");
	expect_verdict_in(out, "fx | rate", "3", "agree (1.00x)");
	expect_line(out, TTEST_STAR_RULE);
	free(out);
	out = stars_and_verdicts(LAB_FMT_MMTESTS, false);
	expect_line(out, "Hmean     rate-3      999.93 (   0.00%)      969.93 (  -3.00%)");
	free(out);
}

/*
 * The verdicts come before any table: a published table that does not load stops the report with nothing printed,
 * exit 2 (bad input: an option's file, as a results CSV that is none).
 */
Test(report, a_bad_reference_prints_no_table)
{
	struct lab_report_opts o = { .path = FIXTURE, .reference = FIXTURE };
	int rc;
	char *out = report(&o, &rc);

	cr_expect_eq(rc, 2);
	cr_expect_str_empty(out, "printed before the error:\n%s", out);
	free(out);
}

Test(report, json_series)
{
	char *out = report_fmt(LAB_FMT_JSON, "locktest");

	cr_expect(out[0] == '{' && strstr(out, "\n}\n"), "%s", out);
	cr_expect(strstr(out, "\"significance\": \"ci, alpha 0.05\""), "%s", out);
	/* t=1 ck-rwlock: Hmean 209.6823, +91.68%, significant, its three values */
	cr_expect(strstr(out, "\"column\": \"ck-rwlock\", \"workload\": \"locktest\", \"metric\": \"total_rate\", "
			      "\"unit\": \"op/s\", \"better\": \"higher\", \"threads\": 1, \"n\": 3, \"mean_kind\": \"hmean\", "
			      "\"mean\": 209.682"), "%s", out);
	cr_expect(strstr(out, "\"change_pct\": 91.67927383, \"flag\": null, \"significant\": true, "
			      "\"welch_p\": 0.0002552167494, \"values\": [200, 210, 220]}"), "%s", out);
	/* the baseline's change and Welch p against itself are null, as csv's empty fields */
	cr_expect(strstr(out, "\"column\": \"pthread\", \"workload\": \"locktest\", \"metric\": \"total_rate\", "
			      "\"unit\": \"op/s\", \"better\": \"higher\", \"threads\": 1, "), "%s", out);
	cr_expect(strstr(out, "\"max\": 120, \"change_pct\": null, \"flag\": null, \"significant\": false, "
			      "\"welch_p\": null, \"values\": [100, 110, 120]}"), "%s", out);
	free(out);
}

Test(report, reference_identity_map_needs_shared_names)
{
	struct lab_report_opts o = { .path = FIXTURE, .format = LAB_FMT_NONE, .reference = LAB_TEST_DATA "/published.csv" };
	int rc;

	free(report(&o, &rc));
	cr_expect_eq(rc, 2);	/* old/new are not rwlab columns: a map is needed (bad input) */
}

/* Write @text into a new file at the mkstemp() template @path (caller unlinks). */
static void write_file(char *path, const char *text)
{
	int fd = mkstemp(path);
	FILE *f;

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
}

/* Write a small results CSV; returns its path (caller unlinks). */
static void write_csv(char *path, const char *rows)
{
	char *text;

	cr_assert_gt(asprintf(&text, "schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better\n%s",
			      rows), 0);
	write_file(path, text);
	free(text);
}

/* reaim's job mixes make one mmtests table, operations named WORKFILE-CLIENTS as ExtractReaim names them. */
Test(report, mmtests_reaim_one_table)
{
	char path[] = "/tmp/rwlab-reaim-XXXXXX";
	struct lab_report_opts o = { .path = path, .format = LAB_FMT_MMTESTS };
	int rc;
	char *out;

	write_csv(path, "1,r,t,a,reaim:compute,1,0,JPM,100,jobs/min,higher\n"
			"1,r,t,b,reaim:compute,1,0,JPM,110,jobs/min,higher\n"
			"1,r,t,a,reaim:shared,1,0,JPM,200,jobs/min,higher\n"
			"1,r,t,b,reaim:shared,1,0,JPM,180,jobs/min,higher\n"
			"1,r,t,a,reaim:shared,4,0,JPM,300,jobs/min,higher\n"
			"1,r,t,b,reaim:shared,4,0,JPM,330,jobs/min,higher\n");
	out = report(&o, &rc);
	unlink(path);
	cr_assert_eq(rc, 0);
	expect_line(out, "reaim");
	/* one iteration each: every mean flagged (fewer than 3 iterations) */
	expect_line(out, "Hmean     compute-1     !100.00 (   0.00%)     !110.00 (  10.00%)");
	expect_line(out, "Hmean     shared-1      !200.00 (   0.00%)     !180.00 ( -10.00%)");
	expect_line(out, "Hmean     shared-4      !300.00 (   0.00%)     !330.00 (  10.00%)");
	expect_no(out, "reaim:compute");
	expect_no(out, "JPM-");
	free(out);
}

/* LKP: names already in LKP's form are kept whole, the harness's duplicate is left out, "commit:" heads the columns. */
Test(report, lkp_names_and_commit_line)
{
	char path[] = "/tmp/rwlab-lkp-XXXXXX";
	struct lab_report_opts o = { .path = path, .format = LAB_FMT_LKP,
				     .metric = "vm-scalability.throughput,time.voluntary_context_switches,nvcsw" };
	int rc;
	char *out;

	write_csv(path, "1,r,t,a,vmscale,2,0,vm-scalability.throughput,100,KB/s,higher\n"
			"1,r,t,b,vmscale,2,0,vm-scalability.throughput,90,KB/s,higher\n"
			"1,r,t,a,vmscale,2,0,time.voluntary_context_switches,10,count,lower\n"
			"1,r,t,b,vmscale,2,0,time.voluntary_context_switches,500,count,lower\n"
			"1,r,t,a,vmscale,2,0,nvcsw,7,count,none\n"
			"1,r,t,b,vmscale,2,0,nvcsw,900,count,none\n");
	out = report(&o, &rc);
	unlink(path);
	cr_assert_eq(rc, 0);
	expect_line(out, "commit: ");
	cr_expect(strstr(out, "  vm-scalability.throughput\n"), "%s", out);
	expect_no(out, "vmscale.vm-scalability");
	/* one time.voluntary_context_switches row: the workload's (10 -> 500), not the harness's nvcsw */
	cr_expect(strstr(out, "+4900.0%"), "%s", out);
	expect_no(out, "+12757.1%");
	free(out);
}

/*
 * LKP's widths (16 for the baseline, 27 for the others) are a minimum: a
 * longer name widens its column, the fields under it moved right with it,
 * so that three variants of one knob can be told apart (they were cut to
 * "rwsem:handoff_ti" and twice "rwsem:handoff_timeout_us=10").
 */
Test(report, lkp_long_names_whole)
{
	char path[] = "/tmp/rwlab-lkp-XXXXXX";
	struct lab_report_opts o = { .path = path, .format = LAB_FMT_LKP };
	char rows[1024] = "", *out;
	int rc;

	for (int it = 0; it < 3; it++)	/* three iterations, no spread: no flag */
		snprintf(rows + strlen(rows), sizeof(rows) - strlen(rows),
			 "1,r,t,rwsem:handoff_timeout_us=1000,locktest,2,%d,total_rate,100,op/s,higher\n"
			 "1,r,t,rwsem:handoff_timeout_us=10000,locktest,2,%d,total_rate,120,op/s,higher\n"
			 "1,r,t,rwsem:handoff_timeout_us=100000,locktest,2,%d,total_rate,90,op/s,higher\n", it, it, it);
	write_csv(path, rows);
	out = report(&o, &rc);
	unlink(path);
	cr_assert_eq(rc, 0);
	expect_line(out, "rwsem:handoff_timeout_us=1000 rwsem:handoff_timeout_us=10000 rwsem:handoff_timeout_us=100000 ");
	expect_line(out, "----------------------------- ------------------------------ ------------------------------- ");
	expect_line(out, "                      %stddev        %change         %stddev         %change         %stddev");
	expect_line(out, "                          \\             |                \\              |                \\  ");
	/* each column's fields end under its name's last character, as LKP's under its widths */
	expect_line(out, "                 100.00              +20.0%     120.00               -10.0%      90.00        "
			 "locktest.total_rate");
	free(out);
}

/*
 * A program's rows (RWLAB_CSV's, of a workload no build registers, whose
 * metrics say no direction) are reported by the preload's own figures, as
 * exec's table shows them (it printed "no rows to report", naming neither
 * -m nor a metric); a file with no headline at all says how to choose one.
 */
Test(report, a_programs_rows_by_the_preloads_figures)
{
	struct lab_report_opts o = { .path = LAB_TEST_DATA "/preload.csv" };
	char path[] = "/tmp/rwlab-nohead-XXXXXX", *out;
	int rc;

	out = report(&o, &rc);
	cr_expect_eq(rc, 0);
	cr_expect(strstr(out, "\nglib_driver: preload.acquisitions (count, informational)"), "%s", out);
	cr_expect(strstr(out, "\nglib_driver: preload.contended (count, informational)"), "%s", out);
	cr_expect(strstr(out, "\nglib_driver: preload.wait_p99 (ns, informational)"), "%s", out);
	expect_no(out, "preload.locks");
	expect_no(out, "no rows to report");
	free(out);
	write_csv(path, "1,r,t,a,myprog,2,0,things,5,count,none\n1,r,t,a,myprog,2,0,event.x,5,count,none\n");
	o.path = path;
	out = report(&o, &rc);
	unlink(path);
	cr_expect_eq(rc, 0);
	cr_expect(strstr(out, ": no rows to report in the table format: no metric here is a headline (its workload's, or "
			      "one that says which way is better); choose with -m (metrics: things, event.*; or -m all)\n"),
		  "%s", out);
	free(out);
}

/* @n iterations of @variant at @threads: @v[0..n-1], as CSV rows of locktest total_rate into @buf. */
static void cell_rows(char *buf, size_t len, const char *variant, int threads, const double *v, int n)
{
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "1,r,t,%s,locktest,%d,%d,total_rate,%g,op/s,higher\n",
			 variant, threads, i, v[i]);
}

/*
 * A star needs the significance rule and the minimum effect, the verdicts'
 * rule: +0.5% between near-identical iterations passes the interval rule
 * (|diff| 5 > 1.96 (0.08 + 0.08)) but not --min-effect's 1% (it was
 * starred); --min-effect 0.1 stars it, and the rule line says the floor.
 * Where the run's noise is above the floor (cells of 8.2% spread: 3.92 x the
 * median spread), +3.0% with tiny spreads is not starred either, and the
 * rule line names that figure. markdown's bold follows; csv's significant
 * stays the test alone.
 */
Test(report, stars_need_the_minimum_effect)
{
	static const double a[] = { 1000, 1000.1, 999.9 }, b[] = { 1005, 1005.1, 1004.9 }, b3[] = { 1030, 1030.1, 1029.9 },
			    w[] = { 1000, 1100, 900 }, w3[] = { 3000, 3300, 2700 };
	char path[] = "/tmp/rwlab-effect-XXXXXX", rows[4096] = "", *out;
	struct lab_report_opts o = { .path = path };
	int rc;

	cell_rows(rows, sizeof(rows), "a", 1, a, 3);
	cell_rows(rows, sizeof(rows), "b", 1, b, 3);
	write_csv(path, rows);
	out = report(&o, &rc);
	expect_line(out, "1 thread  1,000 ±0.0%  1,005 ±0.0% +0.5%");
	expect_no(out, "* significant");
	free(out);
	o.format = LAB_FMT_MARKDOWN;
	expect_report_line(&o, "| Hmean total_rate-1 | 1000.00 ±0.01% | 1005.00 ±0.01% (+0.50%) |");
	o.format = LAB_FMT_CSV;
	out = report(&o, &rc);
	cr_expect(strstr(out, ",0.5000000067,1,"), "csv: significant is the test alone:\n%s", out);
	free(out);
	o.format = LAB_FMT_TABLE;
	o.min_effect_set = true;
	o.min_effect_pct = 0.1;
	out = report(&o, &rc);
	expect_line(out, "1 thread  1,000 ±0.0%  1,005 ±0.0% +0.5%*");
	cr_expect(strstr(out, "\n* significant (|difference of means| > 1.96 (sd_base + sd), sd = HStddev for a Hmean,\n"
			      "  else Stddev) and at least 0.1% (--min-effect)\n"), "%s", out);
	free(out);
	unlink(path);

	strcpy(path, "/tmp/rwlab-effect-XXXXXX");
	rows[0] = 0;
	cell_rows(rows, sizeof(rows), "a", 1, a, 3);
	cell_rows(rows, sizeof(rows), "b", 1, b3, 3);
	cell_rows(rows, sizeof(rows), "a", 2, w, 3);
	cell_rows(rows, sizeof(rows), "b", 2, w, 3);
	cell_rows(rows, sizeof(rows), "a", 3, w, 3);
	cell_rows(rows, sizeof(rows), "b", 3, w3, 3);
	write_csv(path, rows);
	o.min_effect_set = false;
	out = report(&o, &rc);
	unlink(path);
	expect_line(out, "1 thread   1,000 ±0.0%  1,030 ±0.0%  +3.0%");
	expect_line(out, "3 threads  993.3 ±8.2%  2,980 ±8.2% +200%*");
	cr_expect(strstr(out, "and at least 1% (--min-effect),\n  or the run's noise where larger: locktest total_rate 32."),
		  "%s", out);
	free(out);
}

#define CPUS_HEAD "schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better,cpus,host\n"

/* Rows of @variant on @host with @cpus CPUs at 1, 2 and 4 threads, three iterations of @workload's @metric each. */
static void cpus_rows(char *buf, size_t len, const char *variant, const char *host, int cpus, const char *workload,
		      const char *metric)
{
	for (int t = 1; t <= 4; t *= 2)
		for (int i = 0; i < 3; i++)
			snprintf(buf + strlen(buf), len - strlen(buf), "1,r,t,%s,%s,%d,%d,%s,%d,op/s,higher,%d,%s\n",
				 variant, workload, t, i, metric, 1000 * t + 10 * i + (int)strlen(variant), cpus, host);
}

/*
 * A thread count above the CPUs the rows ran on is marked in the readable
 * tables (row label, markdown's op), and a line closes them saying what the
 * mark means; mmtests, LKP and locktest keep their look and say it in one
 * line after the table (nothing marked it: "4 threads" on 2 CPUs read as
 * scaling). A row whose cells ran on different CPU counts is "in some
 * cells"; a context_switch pair is two threads.
 */
Test(report, oversubscribed_thread_counts_marked, .timeout = 60)
{
	static const struct {
		enum lab_report_format f;
		const char *line;
	} fmt[] = {
		{ LAB_FMT_TABLE, "† oversubscribed: more threads than CPUs (2 CPUs), sleeping vs spinning under preemption," },
		{ LAB_FMT_EMAIL, "† oversubscribed: more threads than CPUs (2 CPUs)," },
		{ LAB_FMT_MARKDOWN, "† oversubscribed: more threads than CPUs (2 CPUs), sleeping vs spinning under "
				    "preemption, not scaling." },
		{ LAB_FMT_MMTESTS, "ops at 4 threads: oversubscribed, more threads than CPUs (2 CPUs), sleeping vs "
				   "spinning under preemption, not scaling" },
		{ LAB_FMT_LKP, "nr_threads 4: oversubscribed, more threads than CPUs (2 CPUs), sleeping vs spinning under "
			       "preemption, not scaling" },
		{ LAB_FMT_LOCKTEST, "Threads = 4: oversubscribed, more threads than CPUs (2 CPUs), sleeping vs spinning "
				    "under preemption, not scaling" },
		{ LAB_FMT_SPEEDUP, "† oversubscribed: more threads than CPUs (2 CPUs), sleeping vs spinning under "
				   "preemption, not scaling" },
	};
	char path[] = "/tmp/rwlab-over-XXXXXX", rows[8192] = CPUS_HEAD, *out;
	struct lab_report_opts o = { .path = path };
	int rc;

	cpus_rows(rows, sizeof(rows), "a", "h1", 2, "locktest", "total_rate");
	cpus_rows(rows, sizeof(rows), "bb", "h1", 2, "locktest", "total_rate");
	write_file(path, rows);
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		o.format = fmt[i].f;
		out = report(&o, &rc);
		cr_expect_eq(rc, 0);
		expect_line(out, fmt[i].line);
		free(out);
	}
	o.format = LAB_FMT_TABLE;
	out = report(&o, &rc);
	cr_expect(strstr(out, "\n4 threads†  ") && strstr(out, "\n2 threads   "), "%s", out);
	expect_line(out, "  not scaling");
	free(out);
	o.format = LAB_FMT_SPEEDUP;
	out = report(&o, &rc);
	cr_expect(strstr(out, "\n     4†") && strstr(out, "\n      2 "), "speedup:\n%s", out);
	free(out);
	o.format = LAB_FMT_MARKDOWN;
	out = report(&o, &rc);
	cr_expect(strstr(out, "| Hmean total_rate-4† |") && strstr(out, "| Hmean total_rate-2 |"), "%s", out);
	free(out);
	o.format = LAB_FMT_HTML;
	out = report(&o, &rc);
	cr_expect(strstr(out, "<th>4 threads†</th>") && strstr(out, "<p class=\"note\">† oversubscribed: more threads"),
		  "html: no mark or no note");
	free(out);
	unlink(path);

	/* a third column of the same thread counts on 8 CPUs: the 4-thread row is oversubscribed in some cells */
	strcpy(path, "/tmp/rwlab-over-XXXXXX");
	cpus_rows(rows, sizeof(rows), "ccc", "h2", 8, "locktest", "total_rate");
	write_file(path, rows);
	o.format = LAB_FMT_TABLE;
	out = report(&o, &rc);
	cr_expect(strstr(out, "\n4 threads†  "), "%s", out);
	expect_line(out, "† oversubscribed in some cells: more threads than CPUs (2 CPUs),");
	free(out);
	unlink(path);

	/* pairs: 2 pairs are 4 threads on 2 CPUs */
	strcpy(path, "/tmp/rwlab-over-XXXXXX");
	strcpy(rows, CPUS_HEAD);
	cpus_rows(rows, sizeof(rows), "a", "h1", 2, "context_switch", "ops_per_s");
	cpus_rows(rows, sizeof(rows), "bb", "h1", 2, "context_switch", "ops_per_s");
	write_file(path, rows);
	out = report(&o, &rc);
	unlink(path);
	cr_expect(strstr(out, "\n2 pairs†  ") && strstr(out, "\n1 pair   "), "%s", out);
	cr_expect(strstr(out, "† oversubscribed: more threads than CPUs (2 CPUs; a pair is two threads),"), "%s", out);
	free(out);
}

/* The email header of the file of rows @rows (their context fields and host after "better"): its lines (those
 * before the first empty one) counted, the header itself into @head. */
static int email_header_of(const char *rows, char *head, size_t len)
{
	char path[] = "/tmp/rwlab-email-head-XXXXXX", *text, *out, *end;
	struct lab_report_opts o = { .path = path, .format = LAB_FMT_EMAIL };
	int rc, n = 0;

	cr_assert_gt(asprintf(&text, "schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better,"
			      "pin,cpus,cpu_model,kernel,compiler,build_type,allocator,event_counts,git_rev,host\n%s", rows),
		     0);
	write_file(path, text);
	free(text);
	out = report(&o, &rc);
	unlink(path);
	cr_assert_eq(rc, 0, "%s", out);
	end = strstr(out, "\n\n");
	cr_assert(end, "%s", out);
	snprintf(head, len, "%.*s", (int)(end - out + 1), out);
	for (const char *p = out; p < end + 1; p++)
		n += *p == '\n';
	free(out);
	return n;
}

/* The email header of a file of two rows with the context fields @context (email_header_of()). */
static int email_header_lines(const char *context, char *head, size_t len)
{
	char *rows;
	int n;

	cr_assert_gt(asprintf(&rows, "1,r,t,a,w,1,0,lat,90,ns,lower,%s,h\n1,r,t,a,w,1,1,lat,91,ns,lower,%s,h\n", context,
			      context), 0);
	n = email_header_of(rows, head, len);
	free(rows);
	return n;
}

/* The same of a file of two runs: variant a's under the context fields @ctx_a, then b's under @ctx_b. */
static int email_header_two(const char *ctx_a, const char *ctx_b, char *head, size_t len)
{
	char *rows;
	int n;

	cr_assert_gt(asprintf(&rows, "1,r1,t,a,w,1,0,lat,90,ns,lower,%s,h\n1,r1,t,a,w,1,1,lat,91,ns,lower,%s,h\n"
			      "1,r2,t,b,w,1,0,lat,92,ns,lower,%s,h\n1,r2,t,b,w,1,1,lat,93,ns,lower,%s,h\n", ctx_a, ctx_a,
			      ctx_b, ctx_b), 0);
	n = email_header_of(rows, head, len);
	free(rows);
	return n;
}

/*
 * README's email header: two lines for a measured run (the machine; the kernel and the build),
 * three for a simulated one (the machine by its name; the engine; the build), within 80 columns.
 * The lab's own guest ran to three lines (its CPU model and kernel), a simulated machine's
 * description to four or five.
 */
Test(report, email_header_lines)
{
	char head[1024];

	cr_expect_eq(email_header_lines("compact,16,Intel(R) Xeon(R) Processor,Linux 6.18.44-fc-v657-gpu,gcc 12.2.0,"
					"release,jemalloc,1,1305f6187717-dirty", head, sizeof(head)), 2, "%s", head);
	cr_expect_str_eq(head, "rwlab 1305f6187717-dirty, 16 CPUs (Intel(R) Xeon(R) Processor),\n"
			       "  Linux 6.18.44-fc-v657-gpu, gcc 12.2.0 release, jemalloc, up to 2 iterations\n");
	cr_expect_eq(email_header_lines("compact,128,\"sim icx-8336c-2s128: 2 x Intel Xeon Platinum 8336C (Ice Lake-SP), "
					"2 sockets x 32 cores x 2 threads: 128 CPUs\",rwlab-sim sim-10 engine 457961429e99 "
					"machine e03c3a20 seed 1,gcc 12.2.0,release,jemalloc,1,af91ca4143ca-dirty", head,
					sizeof(head)), 3, "%s", head);
	cr_expect_str_eq(head, "rwlab af91ca4143ca-dirty, 128 CPUs (sim icx-8336c-2s128),\n"
			       "  rwlab-sim sim-10 engine 457961429e99 machine e03c3a20 seed 1,\n"
			       "  gcc 12.2.0 release, jemalloc, up to 2 iterations\n");
}

/*
 * The header leaves out what the file does not record, and no more: a compiler without a build type, or a
 * build type without a compiler, is the one recorded ("gcc 12.2.0 , jemalloc" and "Linux 6.1,  release"
 * had a space too many).
 */
Test(report, email_header_compiler_or_build_type_alone)
{
	char head[1024];

	email_header_lines("compact,2,cpu,Linux 6.1,,release,jemalloc,1,abc", head, sizeof(head));
	cr_expect_str_eq(head, "rwlab abc, 2 CPUs (cpu),\n  Linux 6.1, release, jemalloc, up to 2 iterations\n");
	email_header_lines("compact,2,cpu,Linux 6.1,gcc 12.2.0,,jemalloc,1,abc", head, sizeof(head));
	cr_expect_str_eq(head, "rwlab abc, 2 CPUs (cpu),\n  Linux 6.1, gcc 12.2.0, jemalloc, up to 2 iterations\n");
}

#define EMAIL_SIM_CTX "compact,8,sim generic-8: 8 CPUs,rwlab-sim sim-13 engine 0123456789ab machine 6867c6e3 seed 1," \
		      "gcc 12.2.0,release,jemalloc,1,abc"
#define EMAIL_CPU_CTX "compact,2,cpu,Linux 6.1,gcc 12.2.0,release,jemalloc,1,abc"

/*
 * A file of simulated and measured rows (of different cells) has both headers, the first row's kind first,
 * as the tables' opening lines name both; a part whose rows hold several values names how many and which,
 * as those lines do. The header named the first row's machine alone: a measured column under "8 CPUs (sim
 * generic-8)", two CPU models or two engines (results/sim/rwsem-rework/reproduce-sim9-20261202) under
 * the first.
 */
Test(report, email_header_of_several_machines)
{
	char head[1024];

	cr_expect_eq(email_header_two(EMAIL_SIM_CTX, EMAIL_CPU_CTX, head, sizeof(head)), 5, "%s", head);
	cr_expect_str_eq(head, "rwlab abc, 8 CPUs (sim generic-8),\n"
			       "  rwlab-sim sim-13 engine 0123456789ab machine 6867c6e3 seed 1,\n"
			       "  gcc 12.2.0 release, jemalloc,\n"
			       "rwlab abc, 2 CPUs (cpu),\n"
			       "  Linux 6.1, gcc 12.2.0 release, jemalloc, up to 2 iterations\n");
	cr_expect_eq(email_header_two(EMAIL_CPU_CTX, EMAIL_SIM_CTX, head, sizeof(head)), 5, "%s", head);
	cr_expect(!strncmp(head, "rwlab abc, 2 CPUs (cpu),\n", 25), "%s", head);
	email_header_two(EMAIL_CPU_CTX, "compact,2,EPYC,Linux 6.6,gcc 12.2.0,release,jemalloc,1,abc", head,
			 sizeof(head));
	cr_expect_str_eq(head, "rwlab abc, 2 CPUs, 2 CPU models (cpu; EPYC),\n"
			       "  2 kernels (Linux 6.1; Linux 6.6), gcc 12.2.0 release, jemalloc,\n"
			       "  up to 2 iterations\n");
	/* two engines' rows: both named, the list broken between its values to keep within 80 columns */
	email_header_two(EMAIL_SIM_CTX, "compact,8,sim generic-8: 8 CPUs,rwlab-sim sim-13 engine 89abcdef0123 machine "
			 "6867c6e3 seed 1,gcc 12.2.0,release,jemalloc,1,abc", head, sizeof(head));
	cr_expect_str_eq(head, "rwlab abc, 8 CPUs (sim generic-8),\n"
			       "  2 engines (rwlab-sim sim-13 engine 0123456789ab machine 6867c6e3 seed 1;\n"
			       "  rwlab-sim sim-13 engine 89abcdef0123 machine 6867c6e3 seed 1),\n"
			       "  gcc 12.2.0 release, jemalloc, up to 2 iterations\n");
}

/* email rounds the spread to whole percents, but a CoeffVar of 9.5% to 10% keeps its decimal: an
 * unflagged "±10%" would contradict the 10% flag rule; 10.4% is flagged. */
Test(report, email_spread_below_flag_threshold)
{
	char path[] = "/tmp/rwlab-email-XXXXXX";
	struct lab_report_opts o = { .path = path, .format = LAB_FMT_EMAIL };
	int rc;
	char *out;

	write_csv(path, "1,r,t,a,w,1,0,lat,90.2,ns,lower\n"
			"1,r,t,a,w,1,1,lat,100,ns,lower\n"
			"1,r,t,a,w,1,2,lat,109.8,ns,lower\n"
			"1,r,t,b,w,1,0,lat,89.6,ns,lower\n"
			"1,r,t,b,w,1,1,lat,100,ns,lower\n"
			"1,r,t,b,w,1,2,lat,110.4,ns,lower\n");
	out = report(&o, &rc);
	unlink(path);
	cr_assert_eq(rc, 0);
	expect_line(out, "1 thread  100.0 ±9.8%  100.0 ±10%! +0.0%");
	free(out);
}

/* A CoeffVar from 9.95% to 10% (not flagged) prints with two decimals in every layout: rounded to one it
 * read "±10.0%", a spread the 10% rule would have flagged. */
Test(report, spread_just_below_flag_threshold)
{
	static const enum lab_report_format fmt[] = { LAB_FMT_TABLE, LAB_FMT_EMAIL };
	char path[] = "/tmp/rwlab-spread-XXXXXX";
	int rc;
	char *out;

	write_csv(path, "1,r,t,a,w,1,0,lat,90.03,ns,lower\n"
			"1,r,t,a,w,1,1,lat,100,ns,lower\n"
			"1,r,t,a,w,1,2,lat,109.97,ns,lower\n");
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		struct lab_report_opts o = { .path = path, .format = fmt[i] };

		out = report(&o, &rc);
		cr_expect_eq(rc, 0);
		cr_expect(strstr(out, "±9.97%") && !strstr(out, "±10.0%") && !strstr(out, "±10%"), "format %d: %s",
			  (int)fmt[i], out);
		free(out);
	}
	unlink(path);
}

/* The value field: plain finite decimals only; denormals are numbers. */
Test(report, value_parse)
{
	static const struct {
		const char *s;
		int ok;
		const char *why;
	} cases[] = {
		{ "1000", 1, NULL },	    { "-2.5e-3", 1, NULL }, { "1.", 1, NULL },	 { ".5", 1, NULL },
		{ "+3", 1, NULL },	    { "4.9e-324", 1, NULL },   { "2.2250738585072014e-308", 1, NULL },
		{ "inf", 0, "not a finite number" },		       { "-Infinity", 0, "not a finite number" },
		{ "nan", 0, "not a finite number" },		       { "1e999", 0, "not a finite number (beyond the largest double)" },
		{ "0x10", 0, "hexadecimal, not a decimal number" },  { "0x1p3", 0, "hexadecimal, not a decimal number" },
		{ "", 0, "not a number" },			       { "-", 0, "not a number" },
		{ "1e", 0, "not a number" },			       { "fast", 0, "not a number" },
		{ "1,5", 0, "not a number" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = NULL;
		double v;
		int ok = !lab_value_parse(cases[i].s, &v, &why);

		cr_expect_eq(ok, cases[i].ok, "'%s'", cases[i].s);
		if (!ok && cases[i].why)
			cr_expect_str_eq(why, cases[i].why, "'%s'", cases[i].s);
	}
	cr_expect(lab_unit_nonnegative("op/s") && lab_unit_nonnegative("count") && !lab_unit_nonnegative("diff"));
	cr_expect(lab_value_may_be_negative("round_trip_ns_over_none", "ns") && !lab_value_may_be_negative("wall_s", "s"));
}

/* ---- simulated models: --by, the pooling check and the banner ------------------------------ */

#define SIM_HEAD "schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better,cpu_model,kernel\n"
#define SIM_ROW(run, it, value, machine, kernel) \
	"1," run ",t,pthread,locktest,2," it ",total_rate," value ",op/s,higher,sim " machine ": 8 CPUs," kernel "\n"
#define MODEL_A "rwlab-sim sim-13 engine 0123456789ab machine 6867c6e3"
#define MODEL_B "rwlab-sim sim-13 engine 89abcdef0123 machine 6867c6e3"
#define MODEL_G4 "rwlab-sim sim-13 engine 0123456789ab machine 5e68bba4"

/* lab_results_load_many() of @n files with @by: its return, the message in @err. */
static int load(const char *const *paths, int n, const char *by, char *err, size_t len)
{
	struct lab_results r;
	int rc = lab_results_load_many(&r, paths, n, by, NULL, LAB_RESULTS_QUIET, err, len);

	if (!rc)
		lab_results_free(&r);
	return rc;
}

/*
 * A --by column the file does not have is a usage error said first, naming
 * the columns --by takes, whatever the rows hold: two engines in one cell,
 * a value that is no number, a repeated row (each was said instead of it).
 */
Test(report, a_wrong_by_is_said_before_the_rows)
{
	const char *engines[] = { LAB_TEST_DATA "/simulated.csv", LAB_TEST_DATA "/other-engine.csv" };
	const char *bad_value[] = { LAB_TEST_DATA "/bad-value.csv" }, *dup[] = { LAB_TEST_DATA "/dup-row.csv" };
	const char *const *files[] = { engines, bad_value, dup };
	int nfiles[] = { 2, 1, 1 };
	char err[2048];

	for (int i = 0; i < 3; i++) {
		cr_expect_eq(load(files[i], nfiles[i], "kern", err, sizeof(err)), LAB_RESULTS_BAD_BY, "%s: %s",
			     files[i][0], err);
		cr_expect(strstr(err, "--by 'kern': no column 'kern' in ") == err && strstr(err, "(valid: run, variant, ") &&
			  strstr(err, ", kernel, ") && strstr(err, ", fault_path)"), "%s: %s", files[i][0], err);
	}
}

/*
 * Two models' rows are refused where they would pool: in one cell under one
 * --by key. A --by that keeps them apart takes them: run (each run is one
 * model), kernel, or cpu_model where the machines differ by name; cpu_model
 * over two engines on one machine does not, nor run where one run's rows
 * are of two models.
 */
Test(report, two_models_refused_only_where_they_pool)
{
	const char *engines[] = { LAB_TEST_DATA "/simulated.csv", LAB_TEST_DATA "/other-engine.csv" };
	char one_run[] = "/tmp/rwlab-models-XXXXXX", machines[] = "/tmp/rwlab-models-XXXXXX", err[2048];
	const char *one_run_p[] = { one_run }, *machines_p[] = { machines };

	cr_expect_eq(load(engines, 2, "run", err, sizeof(err)), 0, "--by run: %s", err);
	cr_expect_eq(load(engines, 2, "variant,kernel", err, sizeof(err)), 0, "--by variant,kernel: %s", err);
	cr_expect_eq(load(engines, 2, "variant", err, sizeof(err)), -1, "--by variant pooled two engines");
	cr_expect(strstr(err, "cell pthread locktest t=2 was simulated by two engines"), "%s", err);
	cr_expect_eq(load(engines, 2, "variant,cpu_model", err, sizeof(err)), -1, "--by cpu_model, one machine: pooled");
	write_file(one_run, SIM_HEAD SIM_ROW("r1", "0", "5000", "generic-8", MODEL_A " seed 1")
				SIM_ROW("r1", "1", "5100", "generic-8", MODEL_B " seed 1"));
	cr_expect_eq(load(one_run_p, 1, "run", err, sizeof(err)), -1, "--by run, two models in one run: pooled");
	write_file(machines, SIM_HEAD SIM_ROW("r1", "0", "5000", "generic-8", MODEL_A " seed 1")
				 SIM_ROW("r1", "1", "5100", "generic-4", MODEL_G4 " seed 1"));
	cr_expect_eq(load(machines_p, 1, "variant,cpu_model", err, sizeof(err)), 0, "--by cpu_model, two machines: %s",
		     err);
	cr_expect_eq(load(machines_p, 1, "variant", err, sizeof(err)), -1, "--by variant pooled two machines");
	cr_expect(strstr(err, "was simulated by two machines (generic-8 and generic-4: "), "%s", err);
	unlink(one_run);
	unlink(machines);
}

#define HOST_HEAD \
	"schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better,cpu_model,kernel,host\n"
#define HOST_ROW(run, it, cpu_model, kernel, host) \
	"1," run ",t,pthread,locktest,2," it ",total_rate,1000,op/s,higher," cpu_model "," kernel "," host "\n"
#define SIM_CPU "sim generic-8: 8 CPUs"

/*
 * Rows of two hosts, or simulated and measured rows, in one cell are
 * refused where they would pool: under one --by key. --by run keeps them
 * apart where each run is one host's and of one kind (both were refused
 * whatever the runs), and so does any column whose values differ between
 * them (kernel over two hosts of two kernels); a run whose rows are of two
 * hosts or of both kinds (a file put together by hand) still pools.
 */
Test(report, two_hosts_or_kinds_refused_only_where_they_pool)
{
	const char *mixed[] = { LAB_TEST_DATA "/good.csv", LAB_TEST_DATA "/simulated.csv" };
	const char *hosts[] = { LAB_TEST_DATA "/good.csv", LAB_TEST_DATA "/other-host.csv" };
	char runs[] = "/tmp/rwlab-hosts-XXXXXX", one_run[] = "/tmp/rwlab-hosts-XXXXXX", err[2048];
	const char *runs_p[] = { runs }, *one_run_p[] = { one_run };

	cr_expect_eq(load(mixed, 2, "run", err, sizeof(err)), 0, "--by run, measured and simulated runs: %s", err);
	cr_expect_eq(load(mixed, 2, "variant,host", err, sizeof(err)), -1, "--by host, one host: pooled");
	cr_expect(strstr(err, "cell pthread locktest t=2 has simulated rows (sim generic-8) and measured ones (cpu)"),
		  "%s", err);
	cr_expect_eq(load(hosts, 2, "run", err, sizeof(err)), -1, "--by run, one run on two hosts: pooled");
	cr_expect(strstr(err, "cell pthread locktest t=2 was measured on hosts 'host' and 'host2'"), "%s", err);
	write_file(runs, HOST_HEAD HOST_ROW("r1", "0", "cpu", "Linux 6.1", "host")
			 HOST_ROW("r2", "0", "cpu", "Linux 6.6", "host2")
			 HOST_ROW("r3", "0", SIM_CPU, MODEL_A " seed 1", "host"));
	cr_expect_eq(load(runs_p, 1, "run", err, sizeof(err)), 0, "--by run, a run per host and kind: %s", err);
	cr_expect_eq(load(runs_p, 1, "variant,kernel", err, sizeof(err)), 0, "--by kernel, a kernel per host: %s", err);
	cr_expect_eq(load(runs_p, 1, "variant", err, sizeof(err)), -1, "--by variant pooled two hosts");
	cr_expect_eq(load(runs_p, 1, "variant,host", err, sizeof(err)), -1, "--by host pooled two kinds");
	write_file(one_run, HOST_HEAD HOST_ROW("r1", "0", "cpu", "Linux 6.1", "host")
			    HOST_ROW("r1", "1", SIM_CPU, MODEL_A " seed 1", "host"));
	cr_expect_eq(load(one_run_p, 1, "run", err, sizeof(err)), -1, "--by run, a run of both kinds: pooled");
	cr_expect(strstr(err, "has simulated rows (sim generic-8) and measured ones (cpu)"), "%s", err);
	unlink(runs);
	unlink(one_run);
}

#define PFT_ROW(run, knobs, kernel) \
	"1," run ",t,pthread,\"pft:" knobs "\",2,0,total_rate,5000,op/s,higher,sim generic-8: 8 CPUs," kernel "\n"

/*
 * A workload label names one workload whatever the order of its knobs or a
 * default given: the loader keys a cell by the label as run writes it
 * (knobs in their declared order, defaults left out). Under --by fault_path
 * two spellings of pft:size_mb=64,mm_lock=vma pooled into one table cell
 * that the two-models check took for two cells (two engines' rows were
 * averaged); under --by variant they were three tables of one workload,
 * and one row given twice so was counted twice.
 */
Test(report, a_workload_is_one_cell_whatever_its_knobs_order)
{
	char engines[] = "/tmp/rwlab-knobs-XXXXXX", one[] = "/tmp/rwlab-knobs-XXXXXX", err[2048];
	const char *engines_p[] = { engines }, *one_p[] = { one };
	struct lab_results r;

	write_file(engines, SIM_HEAD PFT_ROW("r1", "size_mb=64,mm_lock=vma", MODEL_A " seed 1")
				PFT_ROW("r2", "mm_lock=vma,size_mb=64", MODEL_B " seed 1"));
	cr_expect_eq(load(engines_p, 1, LAB_RESULTS_FAULT_PATH, err, sizeof(err)), -1, "--by fault_path pooled two engines");
	cr_expect(strstr(err, "cell pthread pft:size_mb=64,mm_lock=vma t=2 was simulated by two engines"), "%s", err);
	write_file(one, SIM_HEAD PFT_ROW("r1", "size_mb=64,mm_lock=vma", MODEL_A " seed 1")
			PFT_ROW("r2", "mm_lock=vma,size_mb=64", MODEL_A " seed 1")
			PFT_ROW("r3", "touch=pool,mm_lock=vma,size_mb=64", MODEL_A " seed 1"));
	cr_assert_eq(lab_results_load_many(&r, one_p, 1, "variant", NULL, LAB_RESULTS_QUIET, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_eq(r.ns, 1, "%d series of one workload", r.ns);
	cr_expect_str_eq(r.s[0].workload, "pft:size_mb=64,mm_lock=vma");
	cr_expect_eq(r.s[0].n, 3);
	lab_results_free(&r);
	unlink(one);
	strcpy(one, "/tmp/rwlab-knobs-XXXXXX");
	write_file(one, SIM_HEAD PFT_ROW("r1", "mm_lock=vma,size_mb=64", MODEL_A " seed 1")
			PFT_ROW("r1", "size_mb=64,mm_lock=vma", MODEL_A " seed 1"));
	cr_expect_eq(load(one_p, 1, "variant", err, sizeof(err)), -1, "a row given twice, spelt two ways, counted twice");
	cr_expect(strstr(err, ":3: the row repeats ") && strstr(err, ":2 (run r1, cell pthread pft:size_mb=64,mm_lock=vma "
								  "t=2, iteration 0, metric total_rate)"), "%s", err);
	unlink(engines);
	unlink(one);
}

#define LABEL_ROW(run, it, variant, workload, value) \
	"1," run ",t,\"" variant "\"," workload ",2," it ",total_rate," value ",op/s,higher\n"

/*
 * A variant label names one variant whatever the order of its knobs or a
 * default given, as a workload label does: rwsem:wspin=0,rsteal=0 spelt
 * rsteal first, or with max_readers_wakeup=256 (its default), was a cell
 * of its own, a column of its own in the table; so was hpref:reserved=0 (a
 * lazy-mm scheme's default, on context_switch) beside hpref. A label no
 * registry parses stands as it is, and a row given twice spelt two ways is
 * the same row.
 */
Test(report, a_variant_is_one_cell_whatever_its_knobs_order)
{
	char path[] = "/tmp/rwlab-vknobs-XXXXXX", err[2048];
	const char *paths[] = { path };
	struct lab_results r;

	write_csv(path, LABEL_ROW("r1", "0", "rwsem:wspin=0,rsteal=0", "locktest", "100")
			LABEL_ROW("r2", "0", "rwsem:rsteal=0,wspin=0", "locktest", "110")
			LABEL_ROW("r3", "0", "rwsem:max_readers_wakeup=256,rsteal=0,wspin=0", "locktest", "120")
			LABEL_ROW("r1", "0", "hpref:reserved=0", "context_switch", "7")
			LABEL_ROW("r2", "0", "hpref", "context_switch", "8")
			LABEL_ROW("r1", "0", "mine:b=1,a=2", "locktest", "9"));
	cr_assert_eq(lab_results_load_many(&r, paths, 1, "variant", NULL, LAB_RESULTS_QUIET, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(r.ncolumns, 3, "%d columns", r.ncolumns);
	cr_expect_str_eq(r.columns[0], "rwsem:wspin=0,rsteal=0");
	cr_expect_str_eq(r.columns[1], "hpref");
	cr_expect_str_eq(r.columns[2], "mine:b=1,a=2");
	cr_expect_eq(r.ns, 3);
	cr_expect_eq(r.s[0].n, 3);
	cr_expect_eq(r.s[1].n, 2);
	lab_results_free(&r);
	unlink(path);
	strcpy(path, "/tmp/rwlab-vknobs-XXXXXX");
	write_csv(path, LABEL_ROW("r1", "0", "rwsem:rsteal=0,wspin=0", "locktest", "100")
			LABEL_ROW("r1", "0", "rwsem:wspin=0,rsteal=0", "locktest", "100"));
	cr_expect_eq(load(paths, 1, "variant", err, sizeof(err)), -1, "a row given twice, spelt two ways: counted twice");
	cr_expect(strstr(err, ":3: the row repeats ") && strstr(err, ":2 (run r1, cell rwsem:wspin=0,rsteal=0 locktest "
								  "t=2, iteration 0, metric total_rate)"), "%s", err);
	unlink(path);
}

/* The first line of what report prints for @path with @by. */
static char *banner(const char *path, const char *by)
{
	struct lab_report_opts o = { .path = path, .by = by };
	int rc;
	char *out = report(&o, &rc);

	cr_assert_eq(rc, 0, "%s", out);
	out[strcspn(out, "\n")] = 0;
	return out;
}

/* The banner of a file of @rows under --by @by is @want. */
static void expect_banner(const char *rows, const char *by, const char *want)
{
	char path[] = "/tmp/rwlab-models-XXXXXX";
	char *out;

	write_file(path, rows);
	out = banner(path, by);
	cr_expect_str_eq(out, want);
	free(out);
	unlink(path);
}

/*
 * The banner counts models as the loader pools them: a kernel field without
 * " seed N" beside " seed 1" of one model is that model, once, with its seed
 * and its rows with no seed (it said "2 engines"); under --by kernel two
 * models of three fields are two engines, the first with its two seeds.
 */
Test(report, banner_counts_models_as_the_loader_does)
{
	expect_banner(SIM_HEAD SIM_ROW("r1", "0", "5000", "generic-8", MODEL_A)
		      SIM_ROW("r2", "0", "5100", "generic-8", MODEL_A " seed 1"), NULL,
		      "simulated: generic-8 on " MODEL_A " seed 1 and rows with no seed (the model's figures, "
		      "not this host's)");
	expect_banner(SIM_HEAD SIM_ROW("r1", "0", "5000", "generic-8", MODEL_A " seed 1")
		      SIM_ROW("r2", "0", "5100", "generic-8", MODEL_A " seed 2")
		      SIM_ROW("r3", "0", "5200", "generic-8", MODEL_B " seed 1"), "variant,kernel",
		      "simulated: generic-8 on 2 engines (" MODEL_A " seeds 1 and 2; " MODEL_B " seed 1) (the "
		      "model's figures, not this host's)");
}

/*
 * Models that differ only in their machine file share their engine, which
 * the banner names once, then each machine file's part (it said "2 engines"
 * whatever differed, then "on 2 machines (...)" after the machines' names,
 * each kernel field whole); models that differ in both are two models; the
 * refusal of a cell that pools them says what differs.
 */
Test(report, banner_says_what_the_models_differ_in)
{
	char path[] = "/tmp/rwlab-models-XXXXXX", err[2048];
	const char *paths[] = { path };
	char *out;

	expect_banner(SIM_HEAD SIM_ROW("r1", "0", "5000", "generic-8", MODEL_A " seed 1")
		      SIM_ROW("r2", "0", "5100", "generic-8", MODEL_G4 " seed 1"), "variant,kernel",
		      "simulated: generic-8 on rwlab-sim sim-13 engine 0123456789ab (machine 6867c6e3 seed 1; "
		      "machine 5e68bba4 seed 1) (the model's figures, not this host's)");
	/* two machines' rows (run --sim generic-8 and --sim generic-4): each named once, the engine once */
	expect_banner(SIM_HEAD SIM_ROW("r1", "0", "5000", "generic-8", MODEL_A " seed 1")
		      SIM_ROW("r2", "0", "5050", "generic-8", MODEL_A " seed 2")
		      SIM_ROW("r3", "0", "5100", "generic-4", MODEL_G4 " seed 1"), "variant,kernel",
		      "simulated: 2 machines (generic-8; generic-4) on rwlab-sim sim-13 engine 0123456789ab "
		      "(machine 6867c6e3 seeds 1 and 2; machine 5e68bba4 seed 1) (the model's figures, not this "
		      "host's)");
	write_file(path, SIM_HEAD SIM_ROW("r1", "0", "5000", "generic-8", MODEL_B " seed 1")
			 SIM_ROW("r2", "0", "5100", "generic-8", MODEL_G4 " seed 1"));
	out = banner(path, "variant,kernel");
	cr_expect_str_eq(out, "simulated: generic-8 on 2 models (" MODEL_B " seed 1; " MODEL_G4 " seed 1) (the "
			      "model's figures, not this host's)");
	free(out);
	cr_expect_eq(load(paths, 1, "variant", err, sizeof(err)), -1, "--by variant pooled two models");
	cr_expect(strstr(err, "cell pthread locktest t=2 was simulated by two models ('" MODEL_B "' and '" MODEL_G4
			 "')"), "%s", err);
	unlink(path);
}

/* ---- html: text escaped, titles whole --------------------------------------------------------- */

/* Is every '<' of @html a tag's (or a comment's) and every '&' an entity's? The first that is not, or NULL. */
static const char *bare_markup(const char *html)
{
	for (const char *p = html; *p; p++) {
		size_t n = *p == '&' ? strspn(p + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789#") : 0;

		if (*p == '<' && !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/!?", p[1] ? p[1] : ' '))
			return p;
		if (*p == '&' && (!n || p[1 + n] != ';'))
			return p;
	}
	return NULL;
}

/*
 * Text in the html page is escaped wherever it is written: the t-test's note
 * under the tables ("p < 0.10", written bare), and names from the CSV, a
 * variant "ck<1&rw>" and a workload knob "note=a<2&b".
 */
Test(report, html_escapes_its_text, .timeout = 60)
{
	char path[] = "/tmp/rwlab-html-XXXXXX";
	struct lab_report_opts o = { .path = path, .format = LAB_FMT_HTML, .sig = LAB_SIG_TTEST };
	const char *bare;
	char *out;
	int rc;

	write_csv(path, "1,r,t,pthread,locktest:note=a<2&b,1,0,total_rate,100,op/s,higher\n"
			"1,r,t,pthread,locktest:note=a<2&b,1,1,total_rate,110,op/s,higher\n"
			"1,r,t,pthread,locktest:note=a<2&b,1,2,total_rate,120,op/s,higher\n"
			"1,r,t,ck<1&rw>,locktest:note=a<2&b,1,0,total_rate,200,op/s,higher\n"
			"1,r,t,ck<1&rw>,locktest:note=a<2&b,1,1,total_rate,210,op/s,higher\n"
			"1,r,t,ck<1&rw>,locktest:note=a<2&b,1,2,total_rate,220,op/s,higher\n");
	out = report(&o, &rc);
	unlink(path);
	cr_assert_eq(rc, 0, "html: exit %d", rc);
	bare = bare_markup(out);
	cr_expect(!bare, "text written as markup: ...%.60s", bare ? bare : "");
	cr_expect(strstr(out, "<p class=\"note\">* significant (t-test p &lt; 0.10 on the means"), "no escaped note");
	cr_expect(strstr(out, "ck&lt;1&amp;rw&gt;") && strstr(out, "note=a&lt;2&amp;b"), "the names, escaped: not found");
	free(out);
}

/*
 * A CSV of schema 1 records no machine settings nor run settings: the page's
 * context leaves the settings row out and the run settings open with the
 * iterations (it printed "governor , SMT , boost , THP " and "; up to 3").
 */
Test(report, html_context_without_settings, .timeout = 60)
{
	char path[] = "/tmp/rwlab-html-XXXXXX";
	struct lab_report_opts o = { .path = path, .format = LAB_FMT_HTML };
	char *out;
	int rc;

	write_csv(path, "1,r,t,pthread,locktest,1,0,total_rate,100,op/s,higher\n"
			"1,r,t,pthread,locktest,1,1,total_rate,110,op/s,higher\n"
			"1,r,t,pthread,locktest,1,2,total_rate,120,op/s,higher\n");
	out = report(&o, &rc);
	unlink(path);
	cr_assert_eq(rc, 0, "html: exit %d", rc);
	cr_expect(!strstr(out, "Machine settings"), "a settings row with nothing in it:\n%.300s",
		  strstr(out, "Machine settings"));
	cr_expect(strstr(out, "<th>Run settings</th><td>up to 3 iterations per cell</td>"), "run settings:\n%.300s",
		  strstr(out, "Run settings"));
	free(out);
}

/* @len characters: @prefix, then @fill. */
static void long_name(char *buf, size_t len, const char *prefix, char fill)
{
	memset(buf, fill, len);
	memcpy(buf, prefix, strlen(prefix));
	buf[len] = 0;
}

/*
 * The html page's change figure is titled with the benchmark, the metric and
 * both sides' columns, published and rwlab's: with every name as long as the
 * mapping holds (95 and 159 characters), the title ends whole, "rwlab NEW vs
 * OLD" (it was cut at 511 bytes, the rwlab names lost).
 */
Test(report, html_change_figure_title_whole, .timeout = 60)
{
	static struct lab_refmap map;
	char pub[] = "/tmp/rwlab-pub-XXXXXX", csv[] = "/tmp/rwlab-long-XXXXXX", want[512], *text, *out;
	struct lab_report_opts o = { .path = csv, .format = LAB_FMT_HTML, .map = &map, .reference = pub };
	size_t ref = sizeof(map.col[0].ref) - 1, ours = sizeof(map.col[0].ours) - 1;
	int rc;

	long_name(map.col[0].ref, ref, "old-", 'o');
	long_name(map.col[1].ref, ref, "new-", 'n');
	long_name(map.col[0].ours, ours, "pthread-", 'p');
	long_name(map.col[1].ours, ours, "ck-rwlock-", 'c');
	map.ncol = 2;
	strcpy(map.met[0].bench, "fx");
	strcpy(map.met[0].metric, "rate");
	strcpy(map.met[0].workload, "fixture-rate");
	strcpy(map.met[0].ours, "rate");
	map.nmet = 1;
	strcpy(map.thr[0].ref, "1");
	strcpy(map.thr[0].ours, "1");
	map.nthr = 1;
	cr_assert_gt(asprintf(&text, "benchmark,stat,metric,clients,variant,value\nfx,hmean,rate,1,%s,100\n"
			      "fx,hmean,rate,1,%s,80\n", map.col[0].ref, map.col[1].ref), 0);
	write_file(pub, text);
	free(text);
	cr_assert_gt(asprintf(&text, "1,r,t,%s,fixture-rate,1,0,rate,100,op/s,higher\n1,r,t,%s,fixture-rate,1,1,rate,"
			      "101,op/s,higher\n1,r,t,%s,fixture-rate,1,0,rate,80,op/s,higher\n1,r,t,%s,fixture-rate,"
			      "1,1,rate,81,op/s,higher\n", map.col[0].ours, map.col[0].ours, map.col[1].ours,
			      map.col[1].ours), 0);
	write_csv(csv, text);
	free(text);
	out = report(&o, &rc);
	unlink(pub);
	unlink(csv);
	cr_assert_eq(rc, 0, "html with the published table: exit %d", rc);
	snprintf(want, sizeof(want), "\nrwlab %s vs %s\"", map.col[1].ours, map.col[0].ours);
	cr_expect(strstr(out, "aria-label=\"fx | rate: the change per row\npublished new-") && strstr(out, want),
		  "the change figure's title is not whole:\n%.2000s", strstr(out, "the change per row"));
	free(out);
}

/*
 * The thread's words calling a change noise (map.flat, up to 255
 * characters) are quoted whole in the verdict's reason, after "the thread: "
 * (the published side's reason held 255 bytes: the words' last 12
 * characters were cut).
 */
Test(report, the_threads_words_whole, .timeout = 60)
{
	static struct lab_matrix m;
	static struct lab_refmap map;
	struct lab_report_opts o = { .path = LAB_TEST_DATA "/verdict.csv", .format = LAB_FMT_NONE, .map = &map };
	size_t len = sizeof(map.flat[0].words) - 1;
	char err[1024], ref[4200], want[320], *out;
	int rc;

	cr_assert_eq(lab_matrix_load(LAB_TEST_DATA "/verdict.matrix", &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_reference(&m, ref, sizeof(ref)), 0);
	cr_assert_eq(map.nflat, 1);
	long_name(map.flat[0].words, len, "\"noise\" (", 'w');
	memcpy(map.flat[0].words + len - 5, " end)", 5);
	o.reference = ref;
	out = report(&o, &rc);
	lab_matrix_free(&m);
	cr_assert_eq(rc, 0);
	snprintf(want, sizeof(want), "(the thread: %s; rwlab significant)\n", map.flat[0].words);
	cr_expect(strstr(out, want), "the thread's %zu characters are not whole:\n%.600s", len,
		  strstr(out, "(the thread: ") ? strstr(out, "(the thread: ") : out);
	free(out);
}
