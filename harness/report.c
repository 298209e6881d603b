/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab report`: loading, selection, the shared helpers, and the simple
 * formats (table, speedup, duration, csv, markdown). The mailing-list
 * layouts live in report_mmtests.c, report_lkp.c and report_locktest.c; the
 * comparison with a published table in report_ref.c.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "err.h"
#include "format.h"
#include "report_impl.h"
#include "report_ref.h"
#include "stats.h"
#include "workload.h"

static const char *const format_names[] = {
#define FORMAT_NAME(e, name) [LAB_FMT_##e] = #name,
	LAB_REPORT_FORMAT_LIST(FORMAT_NAME)
#undef FORMAT_NAME
	[LAB_FMT_NONE] = "none",
};

int lab_report_format_parse(const char *s, enum lab_report_format *f)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(s, format_names[i])) {
			*f = (enum lab_report_format)i;
			return 0;
		}
	return -1;
}

const char *lab_report_format_name(enum lab_report_format f)
{
	return (size_t)f < sizeof(format_names) / sizeof(format_names[0]) ? format_names[f] : "?";
}

int lab_report_era_parse(const char *s, enum lab_mmtests_era *era)
{
	if (!strcmp(s, "current"))
		*era = LAB_ERA_CURRENT;
	else if (!strcmp(s, "2019"))
		*era = LAB_ERA_2019;
	else
		return -1;
	return 0;
}

int lab_report_sig_parse(const char *s, enum lab_report_sig *sig)
{
	if (!strcmp(s, "ci"))
		*sig = LAB_SIG_CI;
	else if (!strcmp(s, "ttest"))
		*sig = LAB_SIG_TTEST;
	else if (!strcmp(s, "none"))
		*sig = LAB_SIG_NONE;
	else
		return -1;
	return 0;
}

/* ---- helpers ----------------------------------------------------------------- */

/* @m is in the comma-separated @list; the list "all" holds every name. */
bool rep_in_list(const char *list, const char *m)
{
	return (list && !strcmp(list, "all")) || lab_list_has(list, m);
}

/* The registered workload of a label ("pft:size_mb=64" -> pft), or NULL. */
static const struct lab_workload_ops *rep_workload(const char *workload)
{
	char name[64];

	return lab_workload_lookup(lab_workload_base(workload, name, sizeof(name)));
}

const char *rep_headline(const char *workload)
{
	const struct lab_workload_ops *w = rep_workload(workload);

	return w ? w->headline : NULL;
}

/* Has workload label @workload of @r a directed metric of its own, not one the harness emits for every workload? */
static bool directs_a_metric(const struct lab_results *r, const char *workload)
{
	for (int i = 0; i < r->ns; i++)
		if (r->s[i].better != LAB_BETTER_NONE && !rep_harness_metric(r->s[i].metric) &&
		    !strcmp(r->s[i].workload, workload))
			return true;
	return false;
}

const char *rep_headline_in(const struct lab_results *r, const char *workload)
{
	const char *head = rep_headline(workload);

	if (head || directs_a_metric(r, workload))
		return head;
	return LAB_REPORT_EXEC_METRICS "," LAB_REPORT_PRELOAD_METRICS;
}

const char *rep_count_unit(const char *workload)
{
	const struct lab_workload_ops *w = rep_workload(workload);

	return w && w->count_unit ? w->count_unit : "threads";
}

bool rep_harness_metric(const char *m)
{
	static const char *const fixed[] = { "wall_s", "user_s", "sys_s", "nvcsw", "nivcsw", NULL };

	for (int i = 0; fixed[i]; i++)
		if (!strcmp(m, fixed[i]))
			return true;
	return !strncmp(m, "event.", 6) || !strncmp(m, "thread_ops.", 11);
}

/* Does -w's entry @e keep workload label @workload ("all": every one)? */
static bool wl_keeps(const struct rep_wl *e, const char *workload)
{
	return !strcmp(e->typed, "all") || lab_results_workload_is(workload, e->typed, e->label);
}

bool rep_workload_kept(const struct lab_rctx *c, const char *workload)
{
	for (int i = 0; c->wl && i < c->nwl; i++)
		if (wl_keeps(&c->wl[i], workload))
			return true;
	return !c->wl;
}

bool rep_wanted(const struct lab_rctx *c, const struct lab_series *s)
{
	const char *head;

	if (!rep_workload_kept(c, s->workload))
		return false;
	if (c->o->metric)
		return rep_in_list(c->o->metric, s->metric);
	head = rep_headline_in(c->r, s->workload);
	if (head)
		return rep_in_list(head, s->metric);
	/* A workload this build does not know: every directed metric it emitted. */
	return s->better != LAB_BETTER_NONE && !rep_harness_metric(s->metric);
}

bool rep_metric_in_group(const struct lab_rctx *c, int ig, int im)
{
	const struct lab_results *r = c->r;

	for (int ic = 0; ic < r->ncolumns; ic++)
		for (int t = 0; t < r->nthreads; t++) {
			const struct lab_series *s = lab_results_find(r, ig, ic, im, r->threads[t]);

			if (s && rep_wanted(c, s))
				return true;
		}
	return false;
}

bool rep_higher(const struct lab_series *s)
{
	return s->better == LAB_BETTER_HIGHER;
}

double rep_mean(const struct lab_series *s)
{
	return rep_higher(s) ? lab_hmean(s->v, s->n) : lab_amean(s->v, s->n);
}

double rep_table_mean(const struct lab_series *s, bool *higher)
{
	double m = rep_mean(s);

	*higher = rep_higher(s) && !isnan(m);
	return isnan(m) ? lab_amean(s->v, s->n) : m;
}

double rep_spread(const struct lab_series *s, const char **name)
{
	return lab_fmt_spread(s->v, s->n, s->better, name);
}

double rep_spread_sd(const struct lab_series *s)
{
	const char *name;

	rep_spread(s, &name);
	return !strcmp(name, "HCoeffVar") ? lab_hstddev(s->v, s->n) : lab_stddev(s->v, s->n);
}

const char *rep_flag(const struct lab_series *s)
{
	return s ? lab_fmt_flag(s->v, s->n, rep_higher(s)) : NULL;
}

void rep_sign_line(FILE *f, bool lower)
{
	if (lower)
		fprintf(f, "change: positive = better (lower-is-better: 100 - new*100/base)\n");
}

/* Threads per count of workload label @workload: a context_switch pair is two. */
static int count_tasks(const char *workload)
{
	return !strcmp(rep_count_unit(workload), "pairs") ? 2 : 1;
}

bool rep_oversubscribed(const struct lab_series *s)
{
	return s->cpus > 0 && (long)s->threads * count_tasks(s->workload) > s->cpus;
}

/* Count CPU count @cpus in @o, the list kept distinct and ascending. */
static void oversub_cpus(struct rep_oversub *o, int cpus)
{
	int i = 0;

	while (i < o->ncpus && o->cpus[i] < cpus)
		i++;
	if (i < o->ncpus && o->cpus[i] == cpus)
		return;
	if (o->ncpus == 4) {
		o->more = true;
		if (i == 4)
			return;
		o->ncpus--;	/* the largest gives way */
	}
	memmove(o->cpus + i + 1, o->cpus + i, (size_t)(o->ncpus - i) * sizeof(*o->cpus));
	o->cpus[i] = cpus;
	o->ncpus++;
}

void rep_oversub_add(struct rep_oversub *o, const struct lab_series *s)
{
	o->pairs |= count_tasks(s->workload) > 1;
	oversub_cpus(o, s->cpus);
}

void rep_oversub_merge(struct rep_oversub *to, const struct rep_oversub *from)
{
	for (int i = 0; i < from->ncpus; i++)
		oversub_cpus(to, from->cpus[i]);
	to->more |= from->more;
	to->pairs |= from->pairs;
	to->partial |= from->partial;
}

void rep_oversub_core(const struct rep_oversub *o, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "more threads than CPUs (");

	for (int i = 0; i < o->ncpus && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%d", !i ? "" : i == o->ncpus - 1 && !o->more ? " or " :
								       ", ", o->cpus[i]);
	if (off < len)
		snprintf(buf + off, len - off, "%s CPU%s%s), sleeping vs spinning under preemption, not scaling",
			 o->more ? ", ..." : "", o->ncpus == 1 && o->cpus[0] == 1 ? "" : "s",
			 o->pairs ? "; a pair is two threads" : "");
}

void rep_oversub_note(const struct rep_oversub *o, char *buf, size_t len)
{
	int n;

	buf[0] = 0;
	if (!o->ncpus)
		return;
	n = snprintf(buf, len, "%s oversubscribed%s: ", REP_OVERSUB_MARK, o->partial ? " in some cells" : "");
	if (n > 0 && (size_t)n < len)
		rep_oversub_core(o, buf + n, len - (size_t)n);
}

void rep_mark(char *buf, size_t len)
{
	size_t lead = strspn(buf, " "), n = strlen(buf);

	if (lead && lead < n)
		buf[lead - 1] = LAB_FMT_FLAG_MARK;
	else if (n + 1 < len)
		buf[n] = LAB_FMT_FLAG_MARK, buf[n + 1] = 0;
}

bool rep_difference(const char *metric)
{
	return strstr(metric, "_over_") != NULL;	/* the loader's rule for a metric that may be negative */
}

bool rep_no_pct(const struct lab_series *s, double m, double b)
{
	return rep_difference(s->metric) || m < 0 || b < 0;
}

double rep_change(const struct lab_series *s, const struct lab_series *base)
{
	double m = rep_mean(s), b = rep_mean(base);

	if (isnan(m) || isnan(b) || rep_no_pct(s, m, b))
		return NAN;
	return s->better == LAB_BETTER_LOWER ? lab_pndiff(m, b) : lab_pdiff(m, b);
}

bool rep_sig_values(enum lab_report_sig sig, const double *a, int na, const double *b, int nb, bool higher)
{
	double ma = higher ? lab_hmean(a, na) : lab_amean(a, na);
	double mb = higher ? lab_hmean(b, nb) : lab_amean(b, nb), p;

	if (isnan(ma) || isnan(mb)) {	/* a value <= 0: no Hmean, judge the Amean */
		higher = false;
		ma = lab_amean(a, na);
		mb = lab_amean(b, nb);
	}
	switch (sig) {
	case LAB_SIG_CI:
		return higher ? lab_mmtests_ci_significant(ma, lab_hstddev(a, na), mb, lab_hstddev(b, nb)) :
				lab_mmtests_ci_significant(ma, lab_stddev(a, na), mb, lab_stddev(b, nb));
	case LAB_SIG_TTEST:
		p = lab_mmtests_ttest_p_means(ma, lab_stddev(a, na), na, mb, lab_stddev(b, nb), nb);
		return !isnan(p) && p < 0.10;
	default:
		return false;
	}
}

const char *rep_sig_name(enum lab_report_sig sig)
{
	return sig == LAB_SIG_CI ? "ci, alpha 0.05" : sig == LAB_SIG_TTEST ? "t-test, alpha 0.10" : "none";
}

bool rep_significant_by(enum lab_report_sig sig, const struct lab_series *s, const struct lab_series *base)
{
	if (!s || !base || s == base)
		return false;
	return rep_sig_values(sig, base->v, base->n, s->v, s->n, rep_higher(s));
}

bool rep_significant(const struct lab_rctx *c, const struct lab_series *s, const struct lab_series *base)
{
	return rep_significant_by(c->o->sig, s, base);
}

enum lab_report_sig rep_tools_sig(const struct lab_rctx *c)
{
	return lab_report_sig_resolve(c->asked, LAB_SIG_AUTO, NULL);
}

double rep_min_effect(const struct lab_rctx *c, const struct lab_series *s)
{
	struct rep_effects *fx = c->fx;
	const char *workload = s->workload;
	const struct lab_vmetric *judged = c->vt ? lab_vtab_metric(c->vt, s->workload, s->metric, &workload) : NULL;
	struct lab_vmetric vm;

	for (int i = 0; fx && i < fx->n; i++)
		if (fx->e[i].im == s->im && !strcmp(fx->e[i].workload, workload))
			return fx->e[i].min_effect;
	if (!judged) {
		lab_min_effect(c->r, s->workload, s->im, false, c->o->sig, lab_min_effect_floor(c->o), &vm);
		judged = &vm;
	}
	if (fx) {
		fx->e = realloc(fx->e, (size_t)(fx->n + 1) * sizeof(*fx->e));
		if (!fx->e)
			abort();
		fx->e[fx->n++] = (struct rep_effect){ workload, s->im, judged->min_effect };
	}
	return judged->min_effect;
}

bool rep_starred(const struct lab_rctx *c, const struct lab_series *s, const struct lab_series *base, double change)
{
	return !isnan(change) && rep_significant(c, s, base) && fabs(change) >= rep_min_effect(c, s);
}

void rep_star_rule(const struct lab_rctx *c, char *buf, size_t len)
{
	double floor = lab_min_effect_floor(c->o);
	size_t off;
	int k = 0;

	off = (size_t)snprintf(buf, len, "significant (%s) and at least %g%% (--min-effect)",
			       c->o->sig == LAB_SIG_CI ? "|difference of means| > 1.96 (sd_base + sd), sd = HStddev "
							 "for a Hmean, else Stddev" :
							 "t-test p < 0.10 on the means, df = n_base + n - 2", floor);
	for (int i = 0; c->fx && i < c->fx->n && off < len; i++) {
		const struct rep_effect *e = &c->fx->e[i];

		if (!(e->min_effect > floor))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s %s %.1f%%", k++ ? ", " :
					", or the run's noise where larger: ", e->workload, c->r->metrics[e->im],
					e->min_effect);
	}
}

void rep_split_name(const char *name, char *a, size_t alen, char *b, size_t blen)
{
	const char *dash = strchr(name, '-');

	if (dash && !strncmp(dash + 1, "rc", 2) && dash[3] >= '0' && dash[3] <= '9')
		dash = strchr(dash + 1, '-');
	if (!dash) {
		snprintf(a, alen, "%s", name);
		snprintf(b, blen, "%s", "");
		return;
	}
	snprintf(a, alen, "%.*s", (int)(dash - name), name);
	snprintf(b, blen, "%s", dash + 1);
}

void rep_thousands(double v, char *buf, size_t len)
{
	char digits[64];
	size_t n, off = 0;

	snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	n = strlen(digits);
	if (v < 0 && strcmp(digits, "0") && off + 1 < len)
		buf[off++] = '-';
	for (size_t i = 0; i < n && off + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[off++] = ',';
		buf[off++] = digits[i];
	}
	buf[off] = 0;
}

/* ---- speedup --------------------------------------------------------------------- */

/*
 * Say which groups a format that compares every column with the first
 * (lkp, speedup) leaves out: those with cells in other columns and none in
 * the baseline's. One line on stderr, so that a missing group is never silent.
 */
void rep_note_no_base(const struct lab_rctx *c, const char *format, const char *why)
{
	const struct lab_results *r = c->r;
	char names[512] = "";
	int k = 0;

	for (int g = 0; g < r->ngroups; g++) {
		bool base = false, other = false;

		for (int i = 0; i < r->ns; i++)
			if (r->s[i].ig == g && rep_workload_kept(c, r->s[i].workload)) {
				base |= r->s[i].ic == 0;
				other |= r->s[i].ic != 0;
			}
		if (other && !base && k++ < 4)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s'%s'", k > 1 ? ", " : "",
				 r->groups[g]);
	}
	if (k)
		fprintf(stderr, "rwlab report: %s: %d group%s without a cell in the baseline column '%s' not shown "
				"(%s): %s%s; choose another --baseline or --by\n",
			format, k, k > 1 ? "s" : "", r->columns[0], why, names, k > 4 ? ", ..." : "");
}


/* Has (group @g, metric @m) a baseline cell (kept by -w) at some thread count? */
static bool has_base(const struct lab_rctx *c, int g, int m)
{
	for (int ti = 0; ti < c->r->nthreads; ti++) {
		const struct lab_series *b = lab_results_find(c->r, g, 0, m, c->r->threads[ti]);

		if (b && rep_workload_kept(c, b->workload))
			return true;
	}
	return false;
}

/*
 * A speedup row's thread count, marked REP_OVERSUB_MARK where a cell of it
 * (the baseline's or a shown column's) ran on fewer CPUs than its threads,
 * those cells counted in @over for the note that closes the report.
 */
static void speedup_row_label(const struct lab_rctx *c, int g, int m, int ti, const bool *used,
			      struct rep_oversub *over)
{
	bool mark = false, within = false;

	for (int v = 0; v < c->r->ncolumns; v++) {
		const struct lab_series *s = lab_results_find(c->r, g, v, m, c->r->threads[ti]);

		if (!s || (v && !used[v]) || !rep_workload_kept(c, s->workload))
			continue;
		if (rep_oversubscribed(s))
			rep_oversub_add(over, s), mark = true;
		else
			within = true;
	}
	over->partial |= mark && within;
	fprintf(c->out, "%*d%s", mark ? 6 : 7, c->r->threads[ti], mark ? REP_OVERSUB_MARK : "");
}

int rep_speedup(struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	int printed = 0, w = 10, alone = 0;
	struct rep_oversub over = { 0 };
	char line[1024];
	bool flagged, *used = calloc((size_t)r->ncolumns + 1, sizeof(*used));
	/* per group: 1 a table only the baseline ran (left out), 2 a table shown */
	unsigned char *only_base = calloc((size_t)r->ngroups + 1, sizeof(*only_base));

	if (!used || !only_base)
		abort();

	for (int v = 1; v < r->ncolumns; v++)
		w = (int)strlen(r->columns[v]) + 2 > w ? (int)strlen(r->columns[v]) + 2 : w;
	for (int g = 0; g < r->ngroups; g++) {
		for (int m = 0; m < r->nmetrics; m++) {
			const struct lab_series *any = NULL;
			const char *unit;

			if (!rep_metric_in_group(c, g, m))
				continue;
			for (int i = 0; i < r->ns && !any; i++)
				if (r->s[i].ig == g && r->s[i].im == m)
					any = &r->s[i];
			if (any->better == LAB_BETTER_NONE || !has_base(c, g, m))
				continue;	/* no baseline cell: no change to show (rep_note_no_base() names it) */
			/* the columns with a cell here (a column of "-" is left out, as in the table) */
			used[0] = false;
			for (int v = 1; v < r->ncolumns; v++)
				used[0] |= used[v] = rep_column_used(c, g, m, v);
			if (!used[0]) {	/* only the baseline ran it: nothing to compare */
				only_base[g] |= 1;
				continue;
			}
			only_base[g] |= 2;
			fprintf(c->out, "\n%s  %s (%s): %s change vs %s, positive = better\n", r->groups[g],
				r->metrics[m], any->unit, rep_higher(any) ? "Hmean" : "Amean", r->columns[0]);
			unit = rep_count_unit(any->workload);
			fprintf(c->out, "%c%-6s", toupper((unsigned char)*unit), unit + 1);
			for (int v = 1; v < r->ncolumns; v++)
				if (used[v])
					fprintf(c->out, "%*s", w, r->columns[v]);
			fprintf(c->out, "\n");
			flagged = false;
			for (int ti = 0; ti < r->nthreads; ti++) {
				const struct lab_series *base = lab_results_find(r, g, 0, m, r->threads[ti]);

				if (!base || !rep_workload_kept(c, base->workload))
					continue;
				speedup_row_label(c, g, m, ti, used, &over);
				for (int v = 1; v < r->ncolumns; v++) {
					const struct lab_series *s = lab_results_find(r, g, v, m, r->threads[ti]);
					double ch = s ? rep_change(s, base) : NAN;
					char cell[32];

					if (!used[v])
						continue;
					if (isnan(ch))
						snprintf(cell, sizeof(cell), "-");
					else
						snprintf(cell, sizeof(cell), "%+.1f%%", ch);
					/* a change is as trustworthy as the less trustworthy of its two cells */
					if (s && (rep_flag(s) || rep_flag(base))) {
						rep_mark(cell, sizeof(cell));
						flagged = true;
					}
					fprintf(c->out, "%*s", w, cell);
				}
				fprintf(c->out, "\n");
				printed++;
			}
			if (flagged)
				fprintf(c->out, "%s (the column's or the baseline's cell)\n", LAB_FMT_FLAG_LEGEND);
			rep_sign_line(c->out, any->better == LAB_BETTER_LOWER);
		}
	}
	rep_oversub_note(&over, line, sizeof(line));
	if (*line)
		fprintf(c->out, "\n%s\n", line);
	rep_note_no_base(c, "speedup", "a change is against the baseline's cell");
	for (int g = 0; g < r->ngroups; g++)
		alone += only_base[g] == 1;
	if (alone) {
		fprintf(stderr, "rwlab report: speedup: %d group%s that only the baseline column '%s' ran not shown "
			"(nothing to compare):", alone, alone > 1 ? "s" : "", r->columns[0]);
		for (int g = 0, k = 0; g < r->ngroups; g++)
			if (only_base[g] == 1 && k++ < 4)
				fprintf(stderr, "%s '%s'", k > 1 ? "," : "", r->groups[g]);
		fprintf(stderr, "%s\n", alone > 4 ? ", ..." : "");
	}
	free(used);
	free(only_base);
	return printed;
}

/* ---- duration ------------------------------------------------------------------- */

int rep_duration(struct lab_rctx *c)
{
	static const char *const rows[][2] = { { "User", "user_s" }, { "System", "sys_s" }, { "Elapsed", "wall_s" } };
	const struct lab_results *r = c->r;
	int printed = 0, w = 12;
	char a[128], b[128];
	bool col[256];

	for (int v = 0; v < r->ncolumns; v++) {
		rep_split_name(r->columns[v], a, sizeof(a), b, sizeof(b));
		w = (int)strlen(a) + 1 > w ? (int)strlen(a) + 1 : w;
		w = (int)strlen(b) + 1 > w ? (int)strlen(b) + 1 : w;
	}
	for (int g = 0; g < r->ngroups; g++) {
		double sum[3][256] = { { 0 } };
		bool have = false, flag[3][256] = { { false } }, got[3][256] = { { false } }, flagged = false;

		for (int i = 0; i < r->ns; i++) {
			const struct lab_series *s = &r->s[i];

			if (s->ig != g || s->ic >= 256 || !rep_workload_kept(c, s->workload))
				continue;
			for (int k = 0; k < 3; k++)
				if (!strcmp(s->metric, rows[k][1])) {
					for (int j = 0; j < s->n; j++)
						sum[k][s->ic] += s->v[j];
					got[k][s->ic] = true;
					flag[k][s->ic] |= rep_flag(s) != NULL;
					flagged |= flag[k][s->ic];
					have = true;
				}
		}
		if (!have)
			continue;
		/* a column none of whose cells has a time: left out, not a column of "-" */
		for (int v = 0; v < r->ncolumns && v < 256; v++)
			col[v] = got[0][v] || got[1][v] || got[2][v];
		fprintf(c->out, "\n%s\n", r->groups[g]);
		for (int line = 0; line < 2; line++) {
			fprintf(c->out, "%8s", "");
			for (int v = 0; v < r->ncolumns && v < 256; v++) {
				if (!col[v])
					continue;
				rep_split_name(r->columns[v], a, sizeof(a), b, sizeof(b));
				fprintf(c->out, "%*s", w, line ? b : a);
			}
			fprintf(c->out, "\n");
		}
		for (int k = 0; k < 3; k++) {
			fprintf(c->out, "%-8s", rows[k][0]);
			for (int v = 0; v < r->ncolumns && v < 256; v++) {
				char num[64];

				if (!col[v])
					continue;
				if (got[k][v])
					snprintf(num, sizeof(num), "%*.2f", w, sum[k][v]);
				else	/* no cell of this column has the metric: not a zero */
					snprintf(num, sizeof(num), "%*s", w, "-");
				if (flag[k][v])
					rep_mark(num, sizeof(num));
				fputs(num, c->out);
			}
			fprintf(c->out, "\n");
		}
		if (flagged)
			fprintf(c->out, "%s (in some cell of the sum)\n", LAB_FMT_FLAG_LEGEND);
		printed++;
	}
	if (printed)
		fprintf(c->out, "\n(seconds summed over every cell and iteration of a column: measured windows; "
				"user and system are the whole process's)\n");
	return printed;
}

/* ---- csv and markdown ------------------------------------------------------------- */

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
	if (isnan(v))
		fputs(",", f);
	else
		fprintf(f, ",%.10g", v);
}

int rep_csv(struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	int printed = 0;

	fprintf(c->out, "group,column,workload,metric,unit,better,threads,n,stat,mean,spread_stat,stddev,coeffvar,min,"
			"max,change_pct,significant,welch_p,flag\n");
	for (int g = 0; g < r->ngroups; g++)
		for (int m = 0; m < r->nmetrics; m++)
			for (int ti = 0; ti < r->nthreads; ti++) {
				const struct lab_series *base = lab_results_find(r, g, 0, m, r->threads[ti]);

				for (int v = 0; v < r->ncolumns; v++) {
					const struct lab_series *s = lab_results_find(r, g, v, m, r->threads[ti]);
					const char *fields[4], *spread;

					if (!s || !rep_wanted(c, s))
						continue;
					fields[0] = s->group, fields[1] = s->column, fields[2] = s->workload;
					fields[3] = s->metric;
					for (int k = 0; k < 4; k++) {
						if (k)
							fputc(',', c->out);
						csv_field(c->out, fields[k]);
					}
					fputc(',', c->out);
					csv_field(c->out, s->unit);
					fprintf(c->out, ",%s,%d,%d,%s",
						s->better == LAB_BETTER_HIGHER ? "higher" :
						s->better == LAB_BETTER_LOWER ? "lower" : "none",
						s->threads, s->n, rep_higher(s) ? "hmean" : "amean");
					csv_num(c->out, rep_mean(s));
					rep_spread(s, &spread);	/* HCoeffVar or CoeffVar: stddev and coeffvar are its */
					fprintf(c->out, ",%s", spread);
					csv_num(c->out, rep_spread_sd(s));
					csv_num(c->out, rep_spread(s, NULL));
					csv_num(c->out, lab_min(s->v, s->n));
					csv_num(c->out, lab_max(s->v, s->n));
					csv_num(c->out, base && s != base ? rep_change(s, base) : NAN);	/* json's null */
					fprintf(c->out, ",%d", rep_significant(c, s, base) ? 1 : 0);
					csv_num(c->out, base && s != base ? lab_welch_p(base->v, base->n, s->v, s->n) : NAN);
					fputc(',', c->out);
					csv_field(c->out, rep_flag(s) ? rep_flag(s) : "");
					fputc('\n', c->out);
					printed++;
				}
			}
	return printed;
}

/* Is a cell of (@g, @m, @threads) in the @used columns oversubscribed? Counted in @over. */
static bool md_oversub(const struct lab_rctx *c, int g, int m, int threads, const bool *used, struct rep_oversub *over)
{
	bool any = false, within = false;

	for (int v = 0; v < c->r->ncolumns; v++) {
		const struct lab_series *s = used[v] ? lab_results_find(c->r, g, v, m, threads) : NULL;

		if (s && rep_oversubscribed(s))
			rep_oversub_add(over, s), any = true;
		else if (s)
			within = true;
	}
	over->partial |= any && within;
	return any;
}

int rep_markdown(struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	bool bold = false, *used = calloc((size_t)r->ncolumns + 1, sizeof(*used));
	struct rep_oversub over = { 0 };
	char rule[4096];
	int printed = 0;

	if (!used)
		abort();
	for (int g = 0; g < r->ngroups; g++) {
		bool header = false, flagged = false;

		for (int v = 0; v < r->ncolumns; v++) {	/* a column with no cell in the group's table: left out */
			used[v] = false;
			for (int m = 0; m < r->nmetrics && !used[v]; m++)
				used[v] = rep_metric_in_group(c, g, m) && rep_column_used(c, g, m, v);
		}
		for (int m = 0; m < r->nmetrics; m++) {
			if (!rep_metric_in_group(c, g, m))
				continue;
			for (int ti = 0; ti < r->nthreads; ti++) {
				const struct lab_series *base = lab_results_find(r, g, 0, m, r->threads[ti]), *any = base;

				for (int v = 1; v < r->ncolumns && !any; v++)
					any = lab_results_find(r, g, v, m, r->threads[ti]);
				if (!any || !rep_wanted(c, any))
					continue;
				if (!header) {
					fprintf(c->out, "\n### %s\n\n| op |", r->groups[g]);
					for (int v = 0; v < r->ncolumns; v++)
						if (used[v])
							fprintf(c->out, " %s |", r->columns[v]);
					fprintf(c->out, "\n|:---|");
					for (int v = 0; v < r->ncolumns; v++)
						if (used[v])
							fprintf(c->out, "---:|");
					fprintf(c->out, "\n");
					header = true;
				}
				fprintf(c->out, "| %s %s-%d%s |", rep_higher(any) ? "Hmean" : "Amean", r->metrics[m],
					r->threads[ti], md_oversub(c, g, m, r->threads[ti], used, &over) ? REP_OVERSUB_MARK : "");
				for (int v = 0; v < r->ncolumns; v++) {
					const struct lab_series *s = lab_results_find(r, g, v, m, r->threads[ti]);
					double mean, cv, ch;

					if (!used[v])
						continue;
					if (!s) {
						fprintf(c->out, " - |");
						continue;
					}
					mean = rep_mean(s);
					cv = rep_spread(s, NULL);
					fprintf(c->out, " %.2f", mean);
					if (!isnan(cv))
						fprintf(c->out, " ±%.2f%%", fabs(cv));
					if (rep_flag(s)) {	/* the spread printed here */
						fputc(LAB_FMT_FLAG_MARK, c->out);
						flagged = true;
					}
					if (v == 0 || !base) {
						fprintf(c->out, " |");
						continue;
					}
					ch = rep_change(s, base);
					if (isnan(ch))
						fprintf(c->out, " |");
					else if (rep_starred(c, s, base, ch) && (bold = true))
						fprintf(c->out, " (**%+.2f%%**) |", ch);
					else
						fprintf(c->out, " (%+.2f%%) |", ch);
				}
				fprintf(c->out, "\n");
				printed++;
			}
		}
		if (flagged)
			fprintf(c->out, "\n%s\n", LAB_FMT_FLAG_LEGEND);
	}
	free(used);
	if (bold)
		rep_star_rule(c, rule, sizeof(rule));
	if (printed)
		fprintf(c->out, "\nHmean ±HCoeffVar for higher-is-better metrics, Amean ±CoeffVar otherwise; change vs %s, "
			"positive = better (for a lower-is-better metric the gain, 100 - new*100/base; for an "
			"informational one, positive = higher)%s%s.\n",
			r->columns[0], bold ? "; **bold** = " : "", bold ? rule : "");
	rep_oversub_note(&over, rule, sizeof(rule));
	if (printed && over.ncpus)
		fprintf(c->out, "\n%s.\n", rule);
	return printed;
}

/* ---- entry ---------------------------------------------------------------------- */

static bool has_prefix(const struct lab_results *r, const char *prefix)
{
	for (int i = 0; i < r->nmetrics; i++)
		if (!strncmp(r->metrics[i], prefix, strlen(prefix)))
			return true;
	return false;
}

/* The metrics of @r, ", "-separated: the lock events as event.*, the per-thread counts left out. */
static void list_metrics(FILE *f, const struct lab_results *r)
{
	int k = 0;

	for (int i = 0; i < r->nmetrics; i++)
		if (strncmp(r->metrics[i], "event.", 6) && strncmp(r->metrics[i], "thread_ops.", 11))
			fprintf(f, "%s%s", k++ ? ", " : "", r->metrics[i]);
	if (has_prefix(r, "event."))
		fprintf(f, "%sevent.*", k ? ", " : "");
}

/*
 * "metric 'M' is not in FILE (metrics: ...)": @m may be "" (an empty -m list);
 * a lock event whose rows all are of variants that do not count it is said so.
 * Returns 2: an option naming what the file does not hold is a usage error.
 */
static int missing_metric(const struct lab_results *r, const char *m)
{
	char why[1024];

	if (lab_results_uncounted_why(r, m, why, sizeof(why))) {	/* its rows are there, but no figure */
		fprintf(stderr, "rwlab report: %s\n", why);
		return 2;
	}
	fprintf(stderr, "rwlab report: metric '%s'%s is not in %s (metrics: ", m, lab_results_blank_note(m), r->path);
	list_metrics(stderr, r);
	fprintf(stderr, ")\n");
	return 2;
}

/* "workload 'W' is not in FILE (workloads: ...)": @w may be "" (an empty -w list). Returns 2, as missing_metric(). */
static int missing_workload(const struct lab_results *r, const char *w)
{
	fprintf(stderr, "rwlab report: workload '%s'%s is not in %s (workloads:", w, lab_results_blank_note(w),
		r->path);
	for (int i = 0, k = 0; i < r->ns; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(r->s[j].workload, r->s[i].workload);
		if (!seen)
			fprintf(stderr, "%s %s", k++ ? "," : "", r->s[i].workload);
	}
	fprintf(stderr, ")\n");
	return 2;
}

/* Append to @buf, ", "-separated, each workload label of @r that -w keeps, once. */
static void kept_workloads(const struct lab_rctx *c, char *buf, size_t len)
{
	const struct lab_results *r = c->r;

	for (int i = 0; i < r->ns; i++) {
		bool seen = !rep_workload_kept(c, r->s[i].workload);

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(r->s[j].workload, r->s[i].workload);
		if (!seen)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", r->s[i].workload);
	}
}

/*
 * --by fault_path where no row kept has a fault path would print a table of
 * one column, "-": refused instead, naming the workloads that record one
 * (asked of lab_results_fault_path() itself, so the list follows the registry).
 * Returns 0, or 2: --by names a column the file holds no value of.
 */
static int check_fault_path(const struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	char base[LAB_SPEC_MAX], with[256] = "", here[512] = "";

	if (!c->o->by || !lab_list_has(c->o->by, LAB_RESULTS_FAULT_PATH))
		return 0;
	for (int i = 0; i < r->ns; i++)
		if (rep_workload_kept(c, r->s[i].workload) && lab_results_fault_path(r->s[i].workload, base, sizeof(base)))
			return 0;
	for (int i = 0; lab_workloads[i]; i++)
		if (lab_results_fault_path(lab_workloads[i]->name, base, sizeof(base)))
			snprintf(with + strlen(with), sizeof(with) - strlen(with), "%s%s", with[0] ? ", " : "",
				 lab_workloads[i]->name);
	kept_workloads(c, here, sizeof(here));
	fprintf(stderr, "rwlab report: --by %s: column %s has no values in %s (only workloads with an mm_lock "
		"knob record it: %s; the workloads here: %s)\n", c->o->by, LAB_RESULTS_FAULT_PATH, r->path, with,
		here[0] ? here : "none");
	return 2;
}

/* Are -m's metrics and -w's workloads in the file? Returns 0, or 2 naming the first that is not. */
static int check_names(const struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	const struct lab_report_opts *o = c->o;
	char *buf, *save = NULL;
	int n = 0, st = 0;

	if (o->metric && strcmp(o->metric, "all")) {
		size_t len = strlen(o->metric);

		/* "a,", ",a", "a,,b": refused as -w's list is (strtok_r() took them for "a" and "a,b") */
		if (len && (o->metric[0] == ',' || o->metric[len - 1] == ',' || strstr(o->metric, ",,"))) {
			fprintf(stderr, "%s: -m: empty entry in metric list '%s' (a comma with nothing on one side)\n",
				lab_prog(), o->metric);
			return 2;
		}
		/* the list whole (a 256-byte copy cut a long -m list inside a name, then refused that name) */
		if (!(buf = strdup(o->metric)))
			abort();
		for (char *m = strtok_r(buf, ",", &save); m && !st; m = strtok_r(NULL, ",", &save), n++)
			if (lab_results_metric(r, m) < 0)
				st = missing_metric(r, m);
		free(buf);
		if (st)
			return st;
		if (!n)	/* -m '': no metric at all, not "every metric" */
			return missing_metric(r, "");
	}
	for (int k = 0; k < c->nwl; k++) {
		bool found = false;

		for (int i = 0; i < r->ns && !found; i++)
			found = wl_keeps(&c->wl[k], r->s[i].workload);
		if (!found)
			return missing_workload(r, c->wl[k].typed);
	}
	return 0;
}

/* Add -w entry @spec (lab_spec_list_each()'s callback). */
static int wl_push(const char *spec, void *ctx, char *err, size_t errlen)
{
	struct lab_rctx *c = ctx;
	struct rep_wl *wl = realloc((void *)c->wl, (size_t)(c->nwl + 1) * sizeof(*wl));
	char buf[LAB_SPEC_MAX];

	(void)err, (void)errlen;
	if (!wl)
		abort();
	wl[c->nwl].typed = strdup(spec);
	wl[c->nwl].label = strdup(lab_results_workload_label(spec, buf, sizeof(buf)));
	if (!wl[c->nwl].typed || !wl[c->nwl].label)
		abort();
	c->wl = wl;
	c->nwl++;
	return 0;
}

/*
 * -w's list read as run reads -w (lab_spec_list_each(): knobs after ':'
 * belong to their label, "locktest:rpct=80,load=50" is one) into c->wl.
 * "" is one entry that names no workload. Returns 0, or 2 after one line.
 */
static int read_workloads(struct lab_rctx *c, const char *list)
{
	char err[512];

	if (!list || (!*list && !wl_push("", c, err, sizeof(err))) ||
	    !lab_spec_list_each(list, "workload", wl_push, c, err, sizeof(err)))
		return 0;
	fprintf(stderr, "rwlab report: -w: %s\n", err);
	return 2;
}

static void free_workloads(struct lab_rctx *c)
{
	for (int i = 0; i < c->nwl; i++) {
		free(c->wl[i].typed);
		free(c->wl[i].label);
	}
	free((void *)c->wl);
	c->wl = NULL;
	c->nwl = 0;
}

bool rep_several_fault_paths(const struct lab_results *r, rep_kept_fn kept, const void *arg)
{
	struct { const char *column, *workload, *title; char base[LAB_SPEC_MAX]; } seen[64];
	bool several = false, pathless = false;
	int n = 0;

	for (int i = 0; i < r->ns; i++) {
		char base[LAB_SPEC_MAX];
		const char *title = lab_results_fault_path(r->s[i].workload, base, sizeof(base));
		int k = 0;

		if (!kept(arg, r->s[i].workload))
			continue;
		if (!title) {
			pathless = true;
			continue;
		}
		while (k < n && (strcmp(seen[k].column, r->s[i].column) || strcmp(seen[k].workload, r->s[i].workload)))
			k++;
		if (k < n || n == (int)(sizeof(seen) / sizeof(seen[0])))
			continue;	/* a file of many workloads: the first ones decide */
		for (int j = 0; j < n; j++)
			several |= !strcmp(seen[j].column, r->s[i].column) && !strcmp(seen[j].base, base) &&
				   strcmp(seen[j].title, title);
		seen[n].column = r->s[i].column;
		seen[n].workload = r->s[i].workload;
		seen[n].title = title;
		snprintf(seen[n].base, sizeof(seen[n].base), "%s", base);
		n++;
	}
	return several && (!pathless || r->ncolumns == 1);
}

/* The columns of @r, "a, b, c", into @buf. */
static void column_list(const struct lab_results *r, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < r->ncolumns && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", r->columns[i]);
}

/* The unknown baseline's message @err ("... (valid: PATHS)") naming the variants @variants too. */
static void both_kinds(char *err, size_t len, const char *variants)
{
	char *v = strstr(err, "(valid: "), paths[1024];

	if (!v)
		return;
	snprintf(paths, sizeof(paths), "%s", v + strlen("(valid: "));
	snprintf(v, len - (size_t)(v - err), "(valid: %s; or a fault path, compared side by side: %s", variants, paths);
}

/*
 * -b @lo->baseline named a variant of @r (loaded by variant), which compares the variants: one note when it
 * names a fault path too, of a variant that ran several (rep_several_fault_paths()), which are then no
 * longer side by side.
 */
static void baseline_both(const struct lab_results *r, const struct rep_load_opts *lo)
{
	char base[LAB_SPEC_MAX];
	bool path = false;

	for (int i = 0; i < r->ns && !path; i++) {
		const char *title = lab_results_fault_path(r->s[i].workload, base, sizeof(base));

		path = title && !strcmp(title, lo->baseline) && lo->kept(lo->arg, r->s[i].workload);
	}
	if (path && rep_several_fault_paths(r, lo->kept, lo->arg))
		fprintf(stderr, "%s: note: -b %s names a variant and a fault path: the variants are compared "
			"(--by fault_path -b %s compares the fault paths side by side)\n", lab_prog(), lo->baseline,
			lo->baseline);
}

int rep_load(struct lab_results *r, const char *const *paths, int npaths, const struct rep_load_opts *lo,
	     const char **by_used, char *err, size_t errlen)
{
	int st = lab_results_load_many(r, paths, npaths, lo->by, lo->baseline, lo->flags, err, errlen);
	unsigned quiet = lo->flags | LAB_RESULTS_QUIET;
	char variants[1024] = "", why[2048];

	*by_used = lo->by;
	if (!st && lo->baseline && !lo->by && !lo->no_paths)
		baseline_both(r, lo);
	if (lo->by || lo->no_paths || (st && st != LAB_RESULTS_BAD_BASELINE) || (!st && lo->baseline))
		return st;	/* a baseline that names a variant compares the variants */
	if (st) {	/* or does it name a fault path? */
		if (lab_results_load_many(r, paths, npaths, NULL, NULL, quiet, why, sizeof(why)))
			return st;
		column_list(r, variants, sizeof(variants));
	}
	if (!rep_several_fault_paths(r, lo->kept, lo->arg)) {
		if (st)
			lab_results_free(r);
		return st;
	}
	lab_results_free(r);	/* stdin or a FIFO: read again from the reader's copy */
	st = lab_results_load_many(r, paths, npaths, LAB_RESULTS_FAULT_PATH, lo->baseline, quiet, err, errlen);
	if (st == LAB_RESULTS_BAD_BASELINE)
		both_kinds(err, errlen, variants);
	if (!st)
		*by_used = LAB_RESULTS_FAULT_PATH;
	return st;
}

/* rep_several_fault_paths() of the rows -w keeps (rep_kept_fn for rep_workload_kept()). */
static bool kept_by_w(const void *c, const char *workload)
{
	return rep_workload_kept(c, workload);
}


/*
 * Context column @col over the rows of one kind (@sim, as
 * lab_results_distinct_kind() takes it), into @buf: its value where the
 * rows have one ("" where none), else "N NOUNs (a; b; c and M more)";
 * returns how many values the rows have. A
 * simulated machine's cpu_model is named by its machine ("sim NAME: ..."
 * gives NAME).
 */
int rep_ctx_values(const struct lab_results *r, const char *col, int sim, const char *noun, char *buf, size_t len)
{
	const char *v[3];
	int n = lab_results_distinct_kind(r, col, sim, v, 3);
	bool machine = sim == 1 && !strcmp(col, LAB_CSV_NAME(cpu_model));
	size_t off = 0;

	if (n > 1)
		off += (size_t)snprintf(buf, len, "%d %ss (", n, noun);
	for (int i = 0; i < n && i < 3; i++) {
		const char *x = machine ? v[i] + 4 : v[i];

		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%.*s", i ? "; " : "",
					machine ? (int)strcspn(x, ":") : (int)strlen(x), x);
	}
	if (n > 3)
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, " and %d more", n - 3);
	if (n > 1)
		snprintf(buf + off, off < len ? len - off : 0, ")");
	if (!n)
		buf[0] = 0;
	return n;
}

bool rep_ctx_recorded(const struct lab_results *r, const char *const *cols, int n)
{
	for (int i = 0; i < n; i++)
		if (lab_results_distinct(r, cols[i], NULL, 0) > 0)
			return true;
	return false;
}

/* Are kernel values @a and @b of one model (lab_results_sim_model_len(): rows the loader pools)? */
static bool same_model(const char *a, const char *b)
{
	int n = lab_results_sim_model_len(a);

	return lab_results_sim_model_len(b) == n && !strncmp(a, b, (size_t)n);
}

/* Is @v[@m] the first of its model's values in @v? */
static bool first_of_model(const char *const *v, int m)
{
	for (int i = 0; i < m; i++)
		if (same_model(v[i], v[m]))
			return false;
	return true;
}

/*
 * The model of @v[@m] (its first value of @n) into @f, its first @skip
 * characters left out (an engine the banner named already): a model of one
 * value is that value; of several (seeds of one model, repeated runs that
 * report pools), the model once and its seeds, "... machine 5e68bba4 seeds
 * 1, 2 and 3", a value with no " seed N" named as rows with no seed.
 */
static void model_seeds(FILE *f, const char *const *v, int n, int m, int skip)
{
	int ml = lab_results_sim_model_len(v[m]), nv = 0, ns = 0;

	for (int i = m; i < n; i++)
		if (same_model(v[m], v[i]))
			nv++, ns += v[i][ml] != 0;
	if (nv == 1) {
		fputs(v[m] + skip, f);
		return;
	}
	fprintf(f, "%.*s seed%s ", ml - skip, v[m] + skip, ns > 1 ? "s" : "");
	for (int i = m, k = 0; i < n; i++)
		if (same_model(v[m], v[i]) && v[i][ml] && k++ < 4)
			fprintf(f, "%s%s", k == 1 ? "" : k == ns ? " and " : ", ", v[i] + ml + 6);
	if (ns > 4)
		fprintf(f, " and %d more", ns - 4);
	if (nv > ns)
		fprintf(f, "%s and rows with no seed", ns > 1 ? "," : "");
}

/*
 * What made the simulated rows, by model as the loader tells them apart
 * (their kernel field up to " seed N"): one model as model_seeds() names
 * it; several (compared with --by kernel), "N engines (a; b; c and M
 * more)" or "N models (...)", as they differ (lab_results_sim_differ()).
 * Models of one engine that differ in their machine files alone name the
 * engine once, then each machine file's part: "rwlab-sim sim-16 engine
 * ef96dbfe248d (machine 5e68bba4 seed 1; machine 5e68bfa4 seed 1)" (the
 * banner counts the machines before it, by name).
 */
void rep_sim_models(FILE *f, const struct lab_results *r)
{
	int n = lab_results_distinct_kind(r, LAB_CSV_NAME(kernel), 1, NULL, 0), models = 0, skip = 0;
	const char **v = calloc((size_t)n + 1, sizeof(*v)), *differ;

	if (!v)
		abort();
	lab_results_distinct_kind(r, LAB_CSV_NAME(kernel), 1, v, n);
	for (int i = 0; i < n; i++)
		models += first_of_model(v, i);
	differ = lab_results_sim_differ(v, n);
	if (models > 1 && !strcmp(differ, "machines")) {
		skip = (int)(strstr(v[0], " machine ") - v[0]);	/* the engine, which they share */
		fprintf(f, "%.*s (", skip++, v[0]);
	} else if (models > 1) {
		fprintf(f, "%d %s (", models, differ);
	}
	for (int i = 0, k = 0; i < n && k < 3; i++)
		if (first_of_model(v, i)) {
			fputs(k++ ? "; " : "", f);
			model_seeds(f, v, n, i, skip);
		}
	if (models > 3)
		fprintf(f, " and %d more", models - 3);
	if (models > 1)
		fputc(')', f);
	free(v);
}

/* The banner's line for the simulated rows (@sim 1) or the measured ones (0); none where there are none. */
static void banner_line(const struct lab_rctx *c, int sim)
{
	const struct lab_results *r = c->r;
	char host[512], cpus[256], ncpus[300], model[1024], kernel[1024], build[256];
	int nh, nc, nb;

	if (!rep_ctx_values(r, LAB_CSV_NAME(cpu_model), sim, sim ? "machine" : "CPU model", model, sizeof(model)))
		return;	/* none of this kind, or a file from before the context columns: nothing to name */
	if (sim) {
		fprintf(c->out, "simulated: %s on ", model);
		rep_sim_models(c->out, r);
		fputs(" (the model's figures, not this host's)\n", c->out);
		return;
	}
	rep_ctx_values(r, LAB_CSV_NAME(kernel), 0, "kernel", kernel, sizeof(kernel));
	nh = rep_ctx_values(r, LAB_CSV_NAME(host), 0, "host", host, sizeof(host));
	nc = rep_ctx_values(r, LAB_CSV_NAME(cpus), 0, "CPU count", cpus, sizeof(cpus));
	nb = rep_ctx_values(r, LAB_CSV_NAME(build_type), 0, "build", build, sizeof(build));
	fprintf(c->out, "measured: %s%s, %s%s%s%s%s%s%s%s\n", nh > 1 ? "on " : "host ", nh ? host : "(unnamed)",
		nc == 1 ? lab_fmt_cpus(cpus, ncpus, sizeof(ncpus)) : cpus, nc > 1 ? ", " : nc ? " " : "", model,
		*kernel ? ", " : "", kernel, nb ? ", " : "", build, nb == 1 ? " build" : "");
}

/*
 * Every text format that does not print the machine itself (email and lkp
 * print cpu_model, "sim NAME: ..."; csv and json carry it in their fields)
 * says above its tables where the figures come from. Simulated rows: the
 * machine and the engine. Measured ones: the host, its CPUs and kernel, and
 * the build. A column with several values says how many and which (hosts
 * of a merged file, kernels compared with --by kernel); a file with both
 * kinds of rows has both lines, the first row's kind first.
 */
static void machine_banner(const struct lab_rctx *c, enum lab_report_format f)
{
	int sim_first = !strncmp(lab_results_ctx(c->r, LAB_CSV_NAME(cpu_model)), "sim ", 4);

	switch (f) {	/* the text formats that would not say it */
	case LAB_FMT_TABLE:
	case LAB_FMT_MMTESTS:
	case LAB_FMT_LOCKTEST:
	case LAB_FMT_SPEEDUP:
	case LAB_FMT_DURATION:
	case LAB_FMT_MARKDOWN:
		break;
	default:
		return;
	}
	banner_line(c, sim_first);
	banner_line(c, !sim_first);
}

static int (*const format_fn[])(struct lab_rctx *) = {
#define FORMAT_PRINTER(e, name) [LAB_FMT_##e] = rep_##name,
	LAB_REPORT_FORMAT_LIST(FORMAT_PRINTER)
#undef FORMAT_PRINTER
};

/* Is some series of c->r selected (rep_wanted())? */
static bool any_wanted(const struct lab_rctx *c)
{
	for (int i = 0; i < c->r->ns; i++)
		if (rep_wanted(c, &c->r->s[i]))
			return true;
	return false;
}

/*
 * No -m, and no metric of the file is a headline (rep_headline_in(): none
 * of a registered workload's, none that says which way is better, none of a
 * program's): the line that says so names the metrics to choose from.
 */
static void no_headline(const struct lab_rctx *c, FILE *note, enum lab_report_format f)
{
	fprintf(note, "%s: no rows to report in the %s format: no metric here is a headline (its workload's, or "
		"one that says which way is better); choose with -m (metrics: ", c->r->path, format_names[f]);
	list_metrics(note, c->r);
	fprintf(note, "; or -m all)\n");
}

int rep_print(struct lab_rctx *c, enum lab_report_format f)
{
	const struct lab_report_opts *o = c->o;
	/* csv's output is the CSV alone (a tool reads it): its notes go to stderr, named as errors are */
	FILE *note = f == LAB_FMT_CSV ? stderr : c->out;
	int st = 0, n;

	machine_banner(c, f);	/* also where the html page embeds a text report */
	n = f == LAB_FMT_NONE ? 1 : format_fn[f](c);

	if (!n && note == stderr)
		fprintf(stderr, "%s: ", lab_prog());
	if (n < 0)
		st = 1;	/* html: a graph failed, the error is on stderr */
	else if (!n && f != LAB_FMT_LOCKTEST && !o->metric && !any_wanted(c))
		no_headline(c, note, f);
	else if (!n)
		fprintf(note, "%s: no rows to report in the %s format%s\n", o->path, format_names[f],
			f == LAB_FMT_LOCKTEST ? " (no locktest rows)" : o->metric ? " for that metric" : "");
	if (o->reference && !o->verdicts_unprinted && f != LAB_FMT_JSON && f != LAB_FMT_HTML && f != LAB_FMT_CSV)
		rep_reference(c);	/* csv: csv_verdicts(), on stderr */
	return st;
}

/*
 * A copy of the matrix's mapping @map (NULL: none) with its labels as the
 * loader keys @r's rows: each map.column's rwlab column as @r spells it
 * (lab_results_column_key()), each map.metric's workload label as run
 * writes it (a workload's name stays a name). Free it with free().
 */
static struct lab_refmap *keyed_map(const struct lab_results *r, const struct lab_refmap *map)
{
	struct lab_refmap *m = map ? malloc(sizeof(*m)) : NULL;
	char buf[LAB_SPEC_MAX];

	if (!map)
		return NULL;
	if (!m)
		abort();
	*m = *map;
	for (int k = 0; k < m->ncol; k++) {
		int ic = lab_results_column_key(r, map->col[k].ours);

		if (ic >= 0)
			snprintf(m->col[k].ours, sizeof(m->col[k].ours), "%s", r->columns[ic]);
	}
	for (int k = 0; k < m->nmet; k++)	/* a name ("vmscale") stays one: every label of it */
		if (strchr(map->met[k].workload, ':'))
			snprintf(m->met[k].workload, sizeof(m->met[k].workload), "%s",
				 lab_results_workload_label(map->met[k].workload, buf, sizeof(buf)));
	return m;
}

/*
 * -b NAME where the rows kept (-m, -w) hold no column but the baseline: a
 * table of the baseline against nothing. Said instead, in one line on
 * stderr naming the columns the file holds; nothing to compare is no error
 * (speedup's tables that only the baseline ran are left out with a note,
 * exit 0 too). Returns whether it said so.
 */
static bool baseline_alone(const struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	const char *by = c->o->by && *c->o->by ? c->o->by : "variant";
	char noun[1100], held[2048] = "";

	/* json and csv, which a tool reads, carry the baseline's own series (its change empty) */
	if (!c->o->baseline_given || c->o->reference || c->o->format == LAB_FMT_JSON || c->o->format == LAB_FMT_CSV)
		return false;
	for (int i = 0; i < r->ns; i++)
		if (r->s[i].ic != 0 && rep_wanted(c, &r->s[i]))
			return false;
	if (!strcmp(by, "variant"))
		snprintf(noun, sizeof(noun), "variant");
	else
		snprintf(noun, sizeof(noun), "column (--by %s)", by);
	for (int v = 0; v < r->ncolumns; v++)
		snprintf(held + strlen(held), sizeof(held) - strlen(held), "%s%s", v ? ", " : "", r->columns[v]);
	if (r->ncolumns == 1)
		fprintf(stderr, "%s: -b %s: %s holds one %s, %s: nothing to compare it with (without -b, "
			"its table)\n", lab_prog(), c->o->baseline, r->path, noun, held);
	else
		fprintf(stderr, "%s: -b %s: the rows -m and -w keep hold one %s, %s: nothing to compare it with "
			"(%s holds %s)\n", lab_prog(), c->o->baseline, noun, r->columns[0], r->path, held);
	return true;
}

/* The loader's flags for report's options (report takes --include-failed and --allow-duplicates). */
static unsigned load_flags(const struct lab_report_opts *o)
{
	return (o->include_failed ? LAB_RESULTS_INCLUDE_FAILED : 0) |
	       (o->allow_duplicates ? LAB_RESULTS_ALLOW_DUPLICATES : 0) | LAB_RESULTS_OPTIONS;
}

/*
 * The verdicts of --reference, before any table (*@vt, NULL without one),
 * and the rule the stars follow (@ro->sig): theirs, lab_report_sig_resolve(),
 * so a table's star and the verdict on the same cell never judge it apart.
 * Returns 0, or 2 with the error on stderr and nothing printed (a published
 * table that cannot be used is bad input); verdicts that are not printed
 * (run's table) and fail leave the stars to each cell's noise instead, said
 * in one more line.
 */
static int verdicts_first(struct lab_rctx *c, struct lab_report_opts *ro, struct lab_vtab **vt)
{
	int st;

	ro->sig = lab_report_sig_resolve(c->asked, LAB_SIG_AUTO, NULL);
	if (!ro->reference)
		return 0;
	*vt = malloc(sizeof(**vt));
	if (!*vt)
		abort();
	if ((st = lab_vtab_compute(c->asked, c->r, *vt))) {
		if (!ro->verdicts_unprinted)
			return st;
		fprintf(stderr, "%s: the table's stars judge each cell by its own noise, not by the verdicts "
			"against %s\n", lab_prog(), ro->reference);
		return 0;
	}
	ro->sig = (*vt)->sig;
	c->vt = *vt;
	return 0;
}

/*
 * -f csv with --reference: the output stays one CSV (a tool reads it), so the
 * verdict table goes to stderr, after a line that says so.
 */
static void csv_verdicts(struct lab_rctx *c)
{
	FILE *out = c->out;

	fprintf(stderr, "%s: the verdicts against %s follow on stderr: -f csv writes the series alone (-f json "
		"carries both)\n", lab_prog(), c->o->reference);
	c->out = stderr;
	rep_reference(c);
	c->out = out;
}

int lab_report_print(FILE *out, const struct lab_report_opts *o)
{
	struct lab_report_opts ro = *o, asked = *o;
	struct lab_results r;
	struct rep_effects fx = { 0 };
	struct lab_rctx c = { out, &ro, &r, &asked, &fx, NULL, 0, NULL };
	struct lab_refmap *map;
	struct lab_vtab *vt = NULL;
	char err[2048];
	int st;

	o = &ro;
	if (read_workloads(&c, o->workload)) {
		free_workloads(&c);
		return 2;
	}
	/* with a matrix's mapping its columns are compared, not the fault paths */
	st = rep_load(&r, o->npaths ? o->paths : &o->path, o->npaths ? o->npaths : 1,
		      &(struct rep_load_opts){ o->by, o->baseline, load_flags(o), o->map != NULL, kept_by_w, &c }, &ro.by,
		      err, sizeof(err));
	if (st) {
		free_workloads(&c);
		fprintf(stderr, "rwlab report: %s\n", err);
		/* a --by or --baseline that names nothing in the file, or a file of no results, is a usage error */
		return st == LAB_RESULTS_BAD_BY || st == LAB_RESULTS_BAD_BASELINE || st == LAB_RESULTS_NOT_RESULTS ? 2 : 1;
	}
	if (!r.ns && o->format != LAB_FMT_JSON) {	/* json: a whole document with no series */
		if (r.nleft_out)	/* the lines above named each */
			fprintf(stderr, "%s: %s: every cell was left out (failed or unfinished): nothing to report; "
				"--include-failed compares the failed ones\n", lab_prog(), r.path);
		else
			fprintf(stderr, "%s: %s holds no rows\n", lab_prog(), r.path);	/* run and exec print it too */
		free_workloads(&c);
		lab_results_free(&r);
		return 1;
	}
	map = keyed_map(&r, o->map);
	ro.map = asked.map = map;
	if (!(st = check_names(&c)) && !(st = check_fault_path(&c)) && !baseline_alone(&c)) {
		lab_results_order_metrics(&r, o->metric);	/* -m a,b: a's tables first */
		if (!(st = verdicts_first(&c, &ro, &vt)))
			st = rep_print(&c, o->format);
		if (!st && c.vt && !o->verdicts_unprinted && o->format == LAB_FMT_CSV)
			csv_verdicts(&c);
	}
	if (vt)
		lab_vtab_free(vt);
	free(vt);
	free(map);
	free(fx.e);
	free_workloads(&c);
	lab_results_free(&r);
	return st;
}

int lab_report_by_check(const struct lab_report_opts *o)
{
	const char *const *paths = o->npaths ? o->paths : &o->path;
	struct lab_results r;
	char err[2048];
	int st = lab_results_load_many(&r, paths, o->npaths ? o->npaths : 1, o->by, NULL, LAB_RESULTS_HEADER, err,
				       sizeof(err));

	if (st != LAB_RESULTS_BAD_BY && st != LAB_RESULTS_NOT_RESULTS)
		return 0;
	fprintf(stderr, "rwlab report: %s\n", err);
	return 2;
}

/* Is @path an existing file that is not a regular file nor a directory (/dev/null, a FIFO)? */
static bool out_special(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int lab_report_out_check(const char *prog, const char *path)
{
	char dir[4200];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!*path) {
		fprintf(stderr, "%s: -o: an empty file name (give FILE, or - for stdout)\n", prog);
		return 2;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: -o %s: is a directory (give a file name)\n", prog, path);
		return 2;
	}
	if (out_special(path))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "%s: -o %s: cannot write in %s: %s\n", prog, path, dir, strerror(errno));
		return 2;
	}
	return 0;
}

int rep_out_open(struct rep_out *o, const char *prog, const char *path)
{
	*o = (struct rep_out){ .prog = prog, .path = path };
	if (lab_report_out_check(prog, path))
		return 2;
	/* a device or FIFO is written in place: renaming a file over it would replace it */
	if (!out_special(path) && (size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.tmp", path) >= sizeof(o->tmp)) {
		fprintf(stderr, "%s: output path too long: %s\n", prog, path);
		return 2;
	}
	o->f = fopen(o->tmp[0] ? o->tmp : path, "w");
	if (!o->f) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", prog, o->tmp[0] ? o->tmp : path, strerror(errno));
		return 2;
	}
	return 0;
}

int rep_out_close(struct rep_out *o, int st)
{
	const char *w = o->tmp[0] ? o->tmp : o->path;

	if (fclose(o->f) && !st) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", o->prog, w, strerror(errno));
		st = 1;
	}
	if (!st && o->tmp[0] && rename(o->tmp, o->path)) {
		fprintf(stderr, "%s: cannot rename '%s' to '%s': %s\n", o->prog, o->tmp, o->path, strerror(errno));
		st = 1;
	}
	if (st && o->tmp[0])
		unlink(o->tmp);
	return st ? 1 : 0;
}

int lab_report_write(const struct lab_report_opts *o, const char *path)
{
	struct rep_out out;
	int st;

	if ((st = rep_out_open(&out, "rwlab report", path)))
		return st;	/* 2: -o refused before any input is read */
	if (o->description && o->reference && o->title && o->format != LAB_FMT_JSON && o->format != LAB_FMT_HTML &&
	    o->format != LAB_FMT_CSV)
		fprintf(out.f, "%s: %s\n", o->title, o->description);
	st = lab_report_print(out.f, o);
	/* nothing written (baseline_alone()): an existing FILE stays as it was; -f none's FILE is its report, empty
	   without --reference */
	if (!st && !ftell(out.f) && o->format != LAB_FMT_NONE)
		return rep_out_close(&out, -1), 0;
	return rep_out_close(&out, st) && !st ? 1 : st;	/* a usage error's 2 stays 2 with -o */
}
