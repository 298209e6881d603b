/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The 0-day robot's comparison layout (intel/lkp-tests lib/compare.rb,
 * docs/workloads.md §3.1-3.3), one section per (group, thread count):
 *
 *   =========================================================================================
 *   compiler/cpus/build_type/allocator/kernel/pin/nr_threads/testcase:
 *     gcc-13.3.0/2/release/jemalloc/Linux-6.8.0/compact/2/locktest
 *
 *   commit: 
 *     pthread
 *     ck-rwlock
 *
 *            pthread                   ck-rwlock
 *   ---------------- ---------------------------
 *            %stddev     %change         %stddev
 *                \          |                \
 *     1234567 ±  3%      -7.1%    1146889        locktest.total_rate
 *
 * The axes are the context columns the file records (one no row has a
 * value of is left out, not printed empty); a file with no context (an old
 * schema's, a hand-made one) says so in a line above the first section.
 *
 * LKP's widths, 16 for the baseline and 27 for each other column, are a
 * minimum: a longer name widens its column (the fields under it move right
 * with it), so no name is cut.
 *
 * Values are arithmetic means with the population standard deviation
 * (" ±%3d%%" only above 2%); %change is 100 (avg - avg_base) / avg_base, or
 * the plain difference for stats whose name ends in '%'. As in LKP, a zero
 * base is replaced by 1e-100, so a counter that only fires in the new
 * column shows a huge change such as "+1.2e+103%". A stat is shown when
 * it is the workload's headline, was asked for with --metric, or passes LKP's
 * changed-stat test against the baseline in some column (ratio above 1.01
 * for the workload's own metrics, 1.05 for the harness's time, context-switch
 * and lock-event stats, as LKP treats its non-perf stats). -m all shows every
 * stat but a lock event that only the baseline counts (no comparison).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report_impl.h"
#include "stats.h"

/* LKP's stat name: workload.metric, time.* for the harness's rusage figures, lock_events.* for events. */
static void lkp_name(const struct lab_series *s, char *buf, size_t len)
{
	static const char *const time_names[][2] = {
		{ "wall_s", "time.elapsed_time" },
		{ "user_s", "time.user_time" },
		{ "sys_s", "time.system_time" },
		{ "nvcsw", "time.voluntary_context_switches" },
		{ "nivcsw", "time.involuntary_context_switches" },
	};
	char wl[64];

	for (size_t i = 0; i < sizeof(time_names) / sizeof(time_names[0]); i++)
		if (!strcmp(s->metric, time_names[i][0])) {
			snprintf(buf, len, "%s", time_names[i][1]);
			return;
		}
	if (!strncmp(s->metric, "event.", 6)) {
		snprintf(buf, len, "lock_events.%s", s->metric + 6);
		return;
	}
	/* a metric named as LKP names it ("vm-scalability.throughput", "time.*") keeps its name */
	if (strchr(s->metric, '.'))
		snprintf(buf, len, "%s", s->metric);
	else
		snprintf(buf, len, "%s.%s", lab_workload_base(s->workload, wl, sizeof(wl)), s->metric);
}

/*
 * Is harness metric @m of group @g at @threads shadowed by a metric the
 * workload emits under the same LKP name (vmscale's own time.* figures are
 * its workers'; the harness's are the whole process's)?
 */
static bool shadowed(const struct lab_rctx *c, int g, int m, int threads)
{
	const struct lab_results *r = c->r;
	const struct lab_series *h = lab_results_find(r, g, 0, m, threads);
	char hn[256], wn[256];

	if (!h || !rep_harness_metric(h->metric))
		return false;
	lkp_name(h, hn, sizeof(hn));
	for (int k = 0; k < r->nmetrics; k++) {
		const struct lab_series *w = lab_results_find(r, g, 0, k, threads);

		if (k == m || !w || rep_harness_metric(w->metric))
			continue;
		lkp_name(w, wn, sizeof(wn));
		if (!strcmp(hn, wn))
			return true;
	}
	return false;
}

/* The mean @avg of @s, with LAB_FMT_FLAG_MARK before it when lab_fmt_flag() flags @s; returns whether it did. */
static bool lkp_value(FILE *f, const struct lab_series *s, double avg)
{
	bool flagged = rep_flag(s);	/* the cell's one flag, as in every format */
	char buf[64];

	if (fabs(avg) < 1000)
		snprintf(buf, sizeof(buf), "%10.2f", avg);
	else if (fabs(avg) > 1e8)
		snprintf(buf, sizeof(buf), "%10.4g", avg);
	else
		snprintf(buf, sizeof(buf), "%10lld", (long long)avg);
	if (flagged)
		rep_mark(buf, sizeof(buf));
	fputs(buf, f);
	return flagged;
}

static void lkp_stddev(FILE *f, const struct lab_series *s, double avg)
{
	double pct = s->n > 1 && avg != 0 ? 100 * lab_stddev_pop(s->v, s->n) / fabs(avg) : -1;

	if (pct > 2)
		fprintf(f, " ±%3d%%", (int)pct);
	else
		fprintf(f, "%6s", "");
}

static void axis_value(FILE *f, const char *v)
{
	for (; *v; v++)
		fputc(*v == ' ' ? '-' : *v, f);
}

/*
 * Context axis @col as the rows record it: its values joined by '+' where
 * the runs differ (two kernels pooled are not one), a run that records none
 * left out (an empty value would print a bare '/').
 */
static void axis_values(FILE *f, const struct lab_results *r, const char *col)
{
	int n = lab_results_distinct(r, col, NULL, 0);
	const char **v = calloc((size_t)n + 1, sizeof(*v));

	if (!v)
		abort();
	lab_results_distinct(r, col, v, n);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc('+', f);
		axis_value(f, v[i]);
	}
	free(v);
}

/*
 * Is metric @m a lock event that no column after the baseline counts in
 * (@g, @threads), though one ran there? LKP compares each column with the
 * baseline, so such an event has no row, -m all's view included, as it has
 * none among the changed stats: a row of "-" would be no comparison.
 */
static bool baseline_only_event(const struct lab_rctx *c, int g, int m, int threads)
{
	const struct lab_results *r = c->r;
	bool ran = false;

	if (strncmp(r->metrics[m], "event.", 6))
		return false;
	for (int v = 1; v < r->ncolumns; v++)
		for (int k = 0; k < r->nmetrics; k++) {
			const struct lab_series *s = lab_results_find(r, g, v, k, threads);

			if (s && k == m)
				return false;
			ran |= s != NULL;
		}
	return ran;
}

static bool shown(const struct lab_rctx *c, int g, int m, int threads)
{
	const struct lab_results *r = c->r;
	const struct lab_series *base = lab_results_find(r, g, 0, m, threads);
	const char *head;

	if (!base || !rep_workload_kept(c, base->workload) || !strncmp(base->metric, "thread_ops.", 11) ||
	    shadowed(c, g, m, threads))
		return false;
	if (c->o->metric)
		return rep_in_list(c->o->metric, base->metric) &&
		       !(!strcmp(c->o->metric, "all") && baseline_only_event(c, g, m, threads));
	head = rep_headline_in(r, base->workload);
	if (head ? rep_in_list(head, base->metric) : base->better != LAB_BETTER_NONE)
		return true;
	for (int v = 1; v < r->ncolumns; v++) {
		const struct lab_series *s = lab_results_find(r, g, v, m, threads);

		if (s && lab_lkp_changed(base->v, base->n, s->v, s->n, rep_harness_metric(base->metric) ? 1.05 : 1.01))
			return true;
	}
	return false;
}

/*
 * The columns after the baseline with a cell among the rows shown for
 * (@g, @threads) into @used. One none of the rows has is left out, not
 * printed as a column of "-".
 */
static void lkp_columns_used(const struct lab_rctx *c, int g, int threads, bool *used)
{
	const struct lab_results *r = c->r;

	for (int v = 1; v < r->ncolumns; v++) {
		used[v] = false;
		for (int m = 0; m < r->nmetrics && !used[v]; m++) {
			const struct lab_series *s = lab_results_find(r, g, v, m, threads);

			used[v] = s && rep_workload_kept(c, s->workload) && shown(c, g, m, threads);
		}
	}
}

/* LKP's column widths: the baseline's and each other column's; a longer name widens its column. */
#define LKP_BASE_W 16
#define LKP_COL_W 27

/* How many blanks column @v needs before its fields so that its name, printed whole, stands above them. */
static int lkp_extra(const struct lab_results *r, int v)
{
	int w = v ? LKP_COL_W : LKP_BASE_W, n = (int)strlen(r->columns[v]);

	return n > w ? n - w : 0;
}

static void lkp_pad(FILE *f, int n)
{
	if (n > 0)
		fprintf(f, "%*s", n, "");
}

/* The rule under a column's name: @n dashes and the blank after them. */
static void lkp_dashes(FILE *f, int n)
{
	for (int i = 0; i < n; i++)
		fputc('-', f);
	fputc(' ', f);
}

/* LKP's result-path axes, its order; context columns all */
#define LKP_AXES { LAB_CSV_NAME(compiler), LAB_CSV_NAME(cpus), LAB_CSV_NAME(build_type), \
		   LAB_CSV_NAME(allocator), LAB_CSV_NAME(kernel), LAB_CSV_NAME(pin) }
#define LKP_NAXES 6

/*
 * The section's head: the result-path axes (those the file records: an
 * axis no row has a value of is left out, not printed empty), the commit
 * list and the column headers.
 */
static void lkp_head(const struct lab_rctx *c, int g, int threads, const bool *used, bool first)
{
	const char *const axes[LKP_NAXES] = LKP_AXES;
	const struct lab_results *r = c->r;
	bool rec[LKP_NAXES];

	fprintf(c->out, "%s=========================================================================================\n",
		first ? "" : "\n");
	for (int i = 0; i < LKP_NAXES; i++)
		if ((rec[i] = rep_ctx_recorded(r, &axes[i], 1)))
			fprintf(c->out, "%s/", axes[i]);
	fprintf(c->out, "nr_threads/testcase:\n  ");
	for (int i = 0; i < LKP_NAXES; i++)
		if (rec[i]) {
			axis_values(c->out, r, axes[i]);
			fputc('/', c->out);
		}
	fprintf(c->out, "%d/", threads);
	axis_value(c->out, r->groups[g]);
	fprintf(c->out, "\n\ncommit: \n  %s\n", r->columns[0]);
	for (int v = 1; v < r->ncolumns; v++)
		if (used[v])
			fprintf(c->out, "  %s\n", r->columns[v]);
	/* LKP's widths, each column widened to its name (the fields under it move right with it) */
	fprintf(c->out, "\n%*s ", LKP_BASE_W + lkp_extra(r, 0), r->columns[0]);
	for (int v = 1; v < r->ncolumns; v++)
		if (used[v])
			fprintf(c->out, "%*s ", LKP_COL_W + lkp_extra(r, v), r->columns[v]);
	fputc('\n', c->out);
	lkp_dashes(c->out, LKP_BASE_W + lkp_extra(r, 0));
	for (int v = 1; v < r->ncolumns; v++)
		if (used[v])
			lkp_dashes(c->out, LKP_COL_W + lkp_extra(r, v));
	fprintf(c->out, "\n%*s%%stddev", 9 + lkp_extra(r, 0), "");
	for (int v = 1; v < r->ncolumns; v++)
		if (used[v]) {
			lkp_pad(c->out, lkp_extra(r, v));
			fprintf(c->out, "     %%change         %%stddev");
		}
	fprintf(c->out, "\n%*s\\  ", 13 + lkp_extra(r, 0), "");
	for (int v = 1; v < r->ncolumns; v++)
		if (used[v]) {
			lkp_pad(c->out, lkp_extra(r, v));
			fprintf(c->out, "        |                \\  ");
		}
	fprintf(c->out, "\n");
}

/*
 * One stat's row: the baseline's mean and spread, then each column's
 * %change, mean and spread; its oversubscribed cells counted in @over.
 * Returns whether a cell is flagged.
 */
static bool lkp_row(const struct lab_rctx *c, int g, int m, int threads, const bool *used, bool *lower,
		    struct rep_oversub *over)
{
	const struct lab_results *r = c->r;
	const struct lab_series *base = lab_results_find(r, g, 0, m, threads);
	double b = lab_amean(base->v, base->n);
	bool flagged, absolute;
	char name[256];

	lkp_name(base, name, sizeof(name));
	/* a percent stat's change is in points, as LKP's; a difference's (X_over_Y) too: its base can be 0 or signed */
	absolute = name[strlen(name) - 1] == '%' || rep_difference(base->metric);
	*lower |= base->better == LAB_BETTER_LOWER;
	if (rep_oversubscribed(base))
		rep_oversub_add(over, base);
	lkp_pad(c->out, lkp_extra(r, 0));
	flagged = lkp_value(c->out, base, b);
	lkp_stddev(c->out, base, b);
	for (int v = 1; v < r->ncolumns; v++) {
		const struct lab_series *s = lab_results_find(r, g, v, m, threads);
		double avg, ch;

		if (!used[v])
			continue;
		lkp_pad(c->out, lkp_extra(r, v));
		if (!s) {
			fprintf(c->out, "%12s%10s%6s", "", "-", "");
			continue;
		}
		if (rep_oversubscribed(s))
			rep_oversub_add(over, s);
		avg = lab_amean(s->v, s->n);
		ch = absolute ? avg - b : 100 * (avg - b) / (b != 0 ? b : 1e-100);
		if (fabs(ch) >= 100000)
			fprintf(c->out, absolute ? "%+10.2g  " : "%+10.2g%% ", ch);
		else
			fprintf(c->out, absolute ? "%+10.1f  " : "%+10.1f%% ", ch);
		flagged |= lkp_value(c->out, s, avg);
		lkp_stddev(c->out, s, avg);
	}
	fprintf(c->out, "  %s\n", name);
	return flagged;
}

int rep_lkp(struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	int printed = 0;
	bool *used = calloc((size_t)r->ncolumns + 1, sizeof(*used));

	const char *const axes[LKP_NAXES] = LKP_AXES;

	if (!used)
		abort();
	if (!rep_ctx_recorded(r, axes, LKP_NAXES))	/* an old schema's file, a hand-made one */
		fprintf(c->out, "%s records no context (compiler, cpus, build type, allocator, kernel and pin "
				"unknown): the axes are nr_threads/testcase alone\n", r->path);
	for (int g = 0; g < r->ngroups; g++)
		for (int t = 0; t < r->nthreads; t++) {
			struct rep_oversub over = { 0 };
			int rows = 0;
			bool flagged = false, lower = false;
			char core[512];

			lkp_columns_used(c, g, r->threads[t], used);
			for (int m = 0; m < r->nmetrics; m++) {
				if (!shown(c, g, m, r->threads[t]))
					continue;
				if (!rows++)
					lkp_head(c, g, r->threads[t], used, !printed);
				flagged |= lkp_row(c, g, m, r->threads[t], used, &lower, &over);
			}
			if (flagged)
				fprintf(c->out, "%s\n", LAB_FMT_FLAG_LEGEND);
			if (lower)	/* LKP's %change is 100 (new - base) / base, whichever way is better */
				fprintf(c->out, "%%change = 100 (new - base) / base: for lower-is-better stats a negative "
						"%%change is an improvement\n");
			if (over.ncpus) {	/* nr_threads, the section's axis, above the CPUs */
				rep_oversub_core(&over, core, sizeof(core));
				fprintf(c->out, "nr_threads %d: oversubscribed, %s\n", r->threads[t], core);
			}
			printed += rows > 0;
		}
	rep_note_no_base(c, "lkp", "LKP compares each column with the first");
	free(used);
	return printed;
}
