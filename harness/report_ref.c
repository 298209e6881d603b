/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The published figures next to rwlab's, row by row, with a verdict that
 * judges both sides' significance and the size of the change (report_ref.h,
 * README "Reports and verdicts"). This file computes struct lab_vtab and
 * prints it as text or as the json format's "reference" member.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "err.h"
#include "format.h"
#include "report_impl.h"
#include "report_ref.h"
#include "stats.h"
#include "threads.h"
#include "workload.h"

enum { R_BENCH, R_STAT, R_METRIC, R_CLIENTS, R_VARIANT, R_VALUE, R_NR };

struct ref {
	struct lab_csv_table t;
	int col[R_NR];
	int mark, rule;			/* optional columns: -1 when the table has none */
};

static const char *rf(const struct ref *ref, int row, int c)
{
	return ref->t.rows[row][ref->col[c]];
}

static const char *ref_opt(const struct ref *ref, int row, int col)
{
	return row >= 0 && col >= 0 ? ref->t.rows[row][col] : "";
}

static bool in_strs(const char **a, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(a[i], s))
			return true;
	return false;
}

/* ---- the verdict itself ------------------------------------------------------------ */

static const char *const verdict_names[] = {
	[LAB_V_AGREE] = "agree",		[LAB_V_AGREE_DIRECTION] = "agree-direction",
	[LAB_V_DISAGREE] = "disagree",		[LAB_V_INCONCLUSIVE] = "inconclusive",
	[LAB_V_PUBLISHED_FLAT] = "published-flat", [LAB_V_NOT_COMPARABLE] = "not-comparable",
	[LAB_V_SCALE_GAP] = "scale-gap",	[LAB_V_NA] = "n/a",
};

const char *lab_verdict_name(enum lab_verdict v)
{
	return v >= 0 && v < LAB_V_NR ? verdict_names[v] : "?";
}

const char *lab_pub_sig_name(enum lab_pub_sig s)
{
	return s == LAB_PUB_SIGNIFICANT ? "significant" : s == LAB_PUB_NOT_SIGNIFICANT ? "not significant" : "unmarked";
}

const char *lab_verdict_ratio_str(double q, char *buf, size_t len)
{
	snprintf(buf, len, q < 9.995 ? "%.2fx" : "%.0fx", q);
	return buf;
}

enum lab_verdict lab_verdict_judge(double pch, enum lab_pub_sig pub, double och, bool our_sig, double *ratio)
{
	double q = NAN;
	enum lab_verdict v;

	if (pub == LAB_PUB_NOT_SIGNIFICANT || pch == 0)
		v = LAB_V_PUBLISHED_FLAT;
	else if (!our_sig || och == 0)
		v = LAB_V_INCONCLUSIVE;
	else if ((och > 0) != (pch > 0))
		v = LAB_V_DISAGREE;
	else {
		q = och / pch;
		v = pub == LAB_PUB_SIGNIFICANT && q <= LAB_VERDICT_SIZE_FACTOR && q >= 1 / LAB_VERDICT_SIZE_FACTOR ?
			    LAB_V_AGREE : LAB_V_AGREE_DIRECTION;
	}
	if (ratio)
		*ratio = q;
	return v;
}

/* ---- rwlab's side ------------------------------------------------------------------- */

/* Does workload label @label match the map's @want (an exact label, a spec normalised by the registry, or a name)? */
static bool workload_matches(const char *label, const char *want)
{
	struct lab_workload_conf wc;
	char name[64], err[256];

	if (!strcmp(label, want))
		return true;
	if (!strchr(want, ':'))
		return !strcmp(lab_workload_base(label, name, sizeof(name)), want);
	return !lab_workload_parse(want, &wc, err, sizeof(err)) && !strcmp(wc.label, label);
}

static const char *our_metric(const char *workload, const char *metric, char *buf, size_t len)
{
	const char *head;

	if (strcmp(metric, "headline"))
		return metric;
	head = rep_headline(workload);
	if (!head)
		return NULL;
	snprintf(buf, len, "%.*s", (int)strcspn(head, ","), head);
	return buf;
}

/*
 * rwlab's figure for one side: the series of column @ic, workload @wl, metric
 * @im at @threads (0 = every thread count pooled), pooled into *@vals (owned
 * by the caller, *@n values) and summarised. Returns NaN if absent.
 */
static double our_value(const struct lab_results *r, int ic, const char *wl, int im, int threads, bool sum,
			double **vals, int *n_out, bool *higher)
{
	double *v = NULL;
	int n = 0;

	*higher = false;
	for (int i = 0; i < r->ns; i++) {
		const struct lab_series *s = &r->s[i];

		if (s->ic != ic || s->im != im || (threads && s->threads != threads) || !workload_matches(s->workload, wl))
			continue;
		v = realloc(v, (size_t)(n + s->n) * sizeof(*v));
		if (!v)
			abort();
		memcpy(v + n, s->v, (size_t)s->n * sizeof(*v));
		n += s->n;
		*higher = rep_higher(s);
	}
	*vals = v;
	*n_out = n;
	if (!n)
		return NAN;
	if (sum)
		return lab_amean(v, n) * n;
	return *higher && !isnan(lab_hmean(v, n)) ? lab_hmean(v, n) : lab_amean(v, n);
}

double lab_min_effect_floor(const struct lab_report_opts *o)
{
	return o->min_effect_set ? o->min_effect_pct : LAB_VERDICT_MIN_EFFECT;
}

void lab_min_effect(const struct lab_results *r, const char *workload, int im, bool sum, enum lab_report_sig sig,
		    double floor_opt, struct lab_vmetric *vm)
{
	double *cv = malloc((size_t)(r->ns ? r->ns : 1) * sizeof(*cv));
	int *ns = malloc((size_t)(r->ns ? r->ns : 1) * sizeof(*ns)), n = 0;

	if (!cv || !ns)
		abort();
	memset(vm, 0, sizeof(*vm));
	for (int i = 0; i < r->ns && im >= 0; i++) {
		const struct lab_series *s = &r->s[i];
		double c;

		if (s->im != im || s->n < 2 || !workload_matches(s->workload, workload))
			continue;
		c = lab_fmt_spread(s->v, s->n, sum ? LAB_BETTER_LOWER : s->better, NULL);
		if (isnan(c))
			continue;
		ns[n] = s->n;
		cv[n++] = c;
	}
	vm->cells = n;
	vm->floor_pct = n ? lab_median(cv, n) : NAN;
	if (n) {
		double *d = malloc((size_t)n * sizeof(*d));

		if (!d)
			abort();
		for (int i = 0; i < n; i++)
			d[i] = ns[i];
		vm->n = (int)floor(lab_median(d, n));
		free(d);
	}
	if (!n || sig == LAB_SIG_NONE)
		vm->noise_pct = NAN;
	else if (sig == LAB_SIG_TTEST)
		vm->noise_pct = lab_student_t_crit2(0.10, 2.0 * vm->n - 2) * sqrt(2.0 / vm->n) * vm->floor_pct;
	else
		vm->noise_pct = 2 * LAB_QNORM_975 * vm->floor_pct;
	vm->min_effect = isnan(vm->noise_pct) || vm->noise_pct < floor_opt ? floor_opt : vm->noise_pct;
	free(cv);
	free(ns);
}

/* rwlab's figures of one row. */
static void rwlab_row(const struct lab_results *r, const struct lab_refmap *map, int im, enum lab_report_sig sig,
		      const struct lab_vmetric *vm, struct lab_vrow *row)
{
	int base_ic = lab_results_column(r, map->col[0].ours), ic = lab_results_column(r, map->col[row->col].ours);
	bool sum = map->met[row->k].sum, higher = false, hn;
	double *vb = NULL, *vn = NULL;

	row->ob = row->on = row->och = row->sb = row->sn = NAN;
	row->sig = row->rule_sig = false;
	if (row->th < 0 || im < 0 || base_ic < 0 || ic < 0)
		return;
	row->ob = our_value(r, base_ic, map->met[row->k].workload, im, row->th, sum, &vb, &row->nb, &higher);
	row->on = our_value(r, ic, map->met[row->k].workload, im, row->th, sum, &vn, &row->nn, &hn);
	if (!isnan(row->ob) && row->ob != 0 && !isnan(row->on))
		row->och = 100 * (row->on / row->ob - 1);
	if (row->nb && row->nn) {
		enum lab_better b = higher && !sum ? LAB_BETTER_HIGHER : LAB_BETTER_LOWER;

		row->rule_sig = rep_sig_values(sig, vb, row->nb, vn, row->nn, higher && !sum);
		row->sb = lab_fmt_spread(vb, row->nb, b, NULL);
		row->sn = lab_fmt_spread(vn, row->nn, b, NULL);
	}
	row->sig = row->rule_sig && !isnan(row->och) && fabs(row->och) >= vm->min_effect;
	free(vb);
	free(vn);
}

/* ---- the published side --------------------------------------------------------------- */

/* The row of the published cell (@stat, @clients, @variant) of map.metric @k, or -1. */
static int ref_cell(const struct ref *ref, const struct lab_refmap *map, int k, const char *stat, const char *clients,
		    const char *variant)
{
	for (int i = 0; i < ref->t.nrows; i++)
		if (!strcmp(rf(ref, i, R_BENCH), map->met[k].bench) && !strcmp(rf(ref, i, R_METRIC), map->met[k].metric) &&
		    !strcasecmp(rf(ref, i, R_STAT), stat) && !strcmp(rf(ref, i, R_CLIENTS), clients) &&
		    !strcmp(rf(ref, i, R_VARIANT), variant))
			return i;
	return -1;
}

/* The published standard deviation of a cell: its stddev row, or its coeffvar row x @mean (NaN: none). */
static double published_sd(const struct ref *ref, const struct lab_refmap *map, int k, const char *clients,
			   const char *variant, double mean)
{
	int i = ref_cell(ref, map, k, "stddev", clients, variant);

	if (i >= 0)
		return strtod(rf(ref, i, R_VALUE), NULL);
	i = ref_cell(ref, map, k, "coeffvar", clients, variant);
	return i >= 0 && !isnan(mean) ? strtod(rf(ref, i, R_VALUE), NULL) * fabs(mean) / 100 : NAN;
}

static bool is_spread_stat(const char *st)
{
	return !strcasecmp(st, "stddev") || !strcasecmp(st, "coeffvar");
}

/* Does a matrix line (BENCH | METRIC | CLIENTS|*) name row @row? */
static bool map_names(const char *bench, const char *metric, const char *clients, const struct lab_vrow *row)
{
	return !strcmp(bench, row->bench) && !strcmp(metric, row->metric) &&
	       (!strcmp(clients, "*") || !strcmp(clients, row->clients));
}

/* LKP's %stddev of a cell as printed: "±N%" -> N; none printed -> its 2% bound. */
static double lkp_pct(const char *mark)
{
	return !strncmp(mark, "±", strlen("±")) ? atof(mark + strlen("±")) : 2.0;
}

/*
 * LKP's changed-stat rule as far as the printed figures allow
 * (lib/changed_stat.rb, docs/workloads.md §3.3): the ratio of the two
 * means above 1.01 for the benchmark's own stats (vm-scalability.* under
 * vm-scalability) and 1.05 for the others, and the printed spreads apart:
 * |diff| > 1.96 (sd_base + sd_new).
 */
static void lkp_sig(const char *mark_b, const char *mark_n, struct lab_vrow *row)
{
	size_t own = strcspn(row->bench, " ");
	bool mine = !strncmp(row->metric, row->bench, own) && row->metric[own] == '.';
	double floor = mine ? 1.01 : 1.05, lo = fmin(row->pb, row->pn), hi = fmax(row->pb, row->pn);
	double ratio = lo > 0 ? hi / lo : INFINITY;
	double sd_b = fabs(row->pb) * lkp_pct(mark_b) / 100, sd_n = fabs(row->pn) * lkp_pct(mark_n) / 100;
	double lim = LAB_QNORM_975 * (sd_b + sd_n);
	char d[32], l[32];

	row->pub = ratio > floor && fabs(row->pn - row->pb) > lim ? LAB_PUB_SIGNIFICANT : LAB_PUB_NOT_SIGNIFICANT;
	lab_fmt_num(fabs(row->pn - row->pb), d, sizeof(d));
	lab_fmt_num(lim, l, sizeof(l));
	snprintf(row->pub_why, sizeof(row->pub_why), "LKP: ratio %.3g %s %.2f%s, |diff| %s %s 1.96 x (%.0f%% + %.0f%%) = %s",
		 ratio, ratio > floor ? ">" : "<=", floor, mine ? "" : " (not the benchmark's own stat)", d,
		 fabs(row->pn - row->pb) > lim ? ">" : "<=", lkp_pct(mark_b), lkp_pct(mark_n), l);
}

#define THREAD_WHY "the thread: "
_Static_assert(sizeof(((struct lab_vrow *)0)->pub_why) >=
	       sizeof(THREAD_WHY) - 1 + sizeof(((struct lab_refmap *)0)->flat[0].words),
	       "a row's pub_why holds the thread's words whole after THREAD_WHY");

/* The published side's significance of @row, as its table marks it (report_ref.h). */
static void published_sig(const struct ref *ref, const struct lab_refmap *map, double flat, int ib, int in,
			  struct lab_vrow *row)
{
	const char *rule = ref_opt(ref, in, ref->rule), *mark = ref_opt(ref, in, ref->mark);

	snprintf(row->mark, sizeof(row->mark), "%s", mark);
	row->rule = *rule ? rule : "none";
	if (!strncmp(rule, "mmtests", 7) && *mark) {
		row->pub = !strcmp(mark, "*") ? LAB_PUB_SIGNIFICANT : LAB_PUB_NOT_SIGNIFICANT;
		snprintf(row->pub_why, sizeof(row->pub_why), "its table marks it '%s' (%s)", mark, rule);
		return;
	}
	if (!strcmp(rule, "lkp")) {
		lkp_sig(ref_opt(ref, ib, ref->mark), mark, row);
		return;
	}
	if (!isnan(row->psb) && !isnan(row->psn)) {
		double lim = LAB_QNORM_975 * (row->psb + row->psn);
		char d[48], sb[48], sn[48];

		row->pub = fabs(row->pn - row->pb) > lim ? LAB_PUB_SIGNIFICANT : LAB_PUB_NOT_SIGNIFICANT;
		lab_fmt_num(fabs(row->pn - row->pb), d, sizeof(d));
		lab_fmt_num(row->psb, sb, sizeof(sb));
		lab_fmt_num(row->psn, sn, sizeof(sn));
		snprintf(row->pub_why, sizeof(row->pub_why), "published |diff| %s %s 1.96 (sd %s + %s)", d,
			 row->pub == LAB_PUB_SIGNIFICANT ? ">" : "<=", sb, sn);
		return;
	}
	for (int i = 0; i < map->nflat; i++)
		if (map_names(map->flat[i].bench, map->flat[i].metric, map->flat[i].clients, row)) {
			row->pub = LAB_PUB_NOT_SIGNIFICANT;
			snprintf(row->pub_why, sizeof(row->pub_why), THREAD_WHY "%s", map->flat[i].words);
			return;
		}
	if (fabs(row->pch) < flat) {
		row->pub = LAB_PUB_NOT_SIGNIFICANT;
		snprintf(row->pub_why, sizeof(row->pub_why), "unmarked and |change| < %.2g%% (--flat)", flat);
		return;
	}
	row->pub = LAB_PUB_UNMARKED;
	snprintf(row->pub_why, sizeof(row->pub_why), "the table prints no significance for it");
}

/* The published figures of one row. */
static void published_row(const struct ref *ref, const struct lab_refmap *map, const char *stat, double flat,
			  struct lab_vrow *row)
{
	int ib = ref_cell(ref, map, row->k, stat, row->clients, map->col[0].ref);
	int in = ref_cell(ref, map, row->k, stat, row->clients, map->col[row->col].ref);

	row->pb = ib >= 0 ? strtod(rf(ref, ib, R_VALUE), NULL) : NAN;
	row->pn = in >= 0 ? strtod(rf(ref, in, R_VALUE), NULL) : NAN;
	if (!isnan(row->pb) && row->pb != 0)
		row->pch = 100 * (row->pn / row->pb - 1);
	else if (isnan(row->pb) && strstr(stat, "percent"))
		row->pch = row->pn;	/* the published figure is the change itself */
	else
		row->pch = NAN;
	row->psb = published_sd(ref, map, row->k, row->clients, map->col[0].ref, row->pb);
	row->psn = published_sd(ref, map, row->k, row->clients, map->col[row->col].ref, row->pn);
	if (!isnan(row->pch))
		published_sig(ref, map, flat, ib, in, row);
}

/* ---- the mapping -------------------------------------------------------------------- */

/* An identity map: published names equal to rwlab's column keys and (workload name, metric). */
static int identity_map(const struct lab_results *r, const struct ref *ref, struct lab_refmap *map)
{
	memset(map, 0, sizeof(*map));
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < ref->t.nrows; i++) {
			const char *v = rf(ref, i, R_VARIANT);
			int ic = lab_results_column(r, v);
			bool dup = false;

			if (ic < 0 || (pass == 0) != (ic == 0) || map->ncol == LAB_REFMAP_COLS)
				continue;
			for (int k = 0; k < map->ncol; k++)
				dup |= !strcmp(map->col[k].ref, v);
			if (dup)
				continue;
			snprintf(map->col[map->ncol].ref, sizeof(map->col[0].ref), "%s", v);
			snprintf(map->col[map->ncol++].ours, sizeof(map->col[0].ours), "%s", v);
		}
	for (int i = 0; i < ref->t.nrows && map->nmet < LAB_REFMAP_METRICS; i++) {
		const char *b = rf(ref, i, R_BENCH), *m = rf(ref, i, R_METRIC);
		bool dup = false, have = false;

		for (int k = 0; k < map->nmet; k++)
			dup |= !strcmp(map->met[k].bench, b) && !strcmp(map->met[k].metric, m);
		for (int k = 0; k < r->ns && !dup && !have; k++)
			have = !strcmp(r->s[k].metric, m) && workload_matches(r->s[k].workload, b);
		if (dup || !have)
			continue;
		snprintf(map->met[map->nmet].bench, sizeof(map->met[0].bench), "%s", b);
		snprintf(map->met[map->nmet].metric, sizeof(map->met[0].metric), "%s", m);
		snprintf(map->met[map->nmet].workload, sizeof(map->met[0].workload), "%s", b);
		snprintf(map->met[map->nmet++].ours, sizeof(map->met[0].ours), "%s", m);
	}
	return map->ncol >= 2 && map->nmet ? 0 : -1;
}

/* rwlab thread count for published @clients: 0 = pooled, -1 = none. */
static int map_threads(const struct lab_refmap *map, const char *clients, int ncpus)
{
	char buf[64], err[128];

	for (int i = 0; i < map->nthr; i++) {
		if (strcmp(map->thr[i].ref, clients))
			continue;
		if (!strcmp(map->thr[i].ours, "*"))
			return 0;
		if (lab_eval_threads(map->thr[i].ours, ncpus, buf, sizeof(buf), err, sizeof(err)))
			return -1;
		return atoi(buf) > 0 ? atoi(buf) : -1;
	}
	if (map->nthr)
		return -1;	/* a map lists the comparable counts; the others are not compared */
	if (!strcmp(clients, "all"))
		return 0;
	return atoi(clients) > 0 ? atoi(clients) : -1;
}

/* Scale gap between the published client count and rwlab's thread count; says why into row->why. */
static bool scale_gap(const struct lab_refmap *map, int ncpus, struct lab_vrow *row)
{
	int C = !strcmp(row->clients, "all") ? map->cpus : atoi(row->clients), T = row->th;
	double ratio;

	if (T <= 0 || C <= 0)
		return false;
	ratio = C > T ? (double)C / T : (double)T / C;
	if (ratio > 4) {
		snprintf(row->why, sizeof(row->why), "published %d clients vs rwlab %d threads (%.0fx apart)", C, T, ratio);
		return true;
	}
	if (ncpus > 0 && T > ncpus && map->cpus > 0 && C <= map->cpus) {
		char ours[32], theirs[32];

		snprintf(row->why, sizeof(row->why), "rwlab %d threads on %s (oversubscribed) vs published %d clients on %s",
			 T, lab_fmt_ncpus(ncpus, ours, sizeof(ours)), C, lab_fmt_ncpus(map->cpus, theirs, sizeof(theirs)));
		return true;
	}
	return false;
}

/* Is a smaller published count mapped to the same rwlab thread count? Says which into row->why. */
static bool collapsed(const struct lab_refmap *map, const char **clients, int nclients, int ncpus,
		      struct lab_vrow *row)
{
	for (int cj = 0; cj < nclients && row->th > 0; cj++) {
		if (atoi(clients[cj]) >= atoi(row->clients) || map_threads(map, clients[cj], ncpus) != row->th)
			continue;
		snprintf(row->why, sizeof(row->why), "same rwlab threads as clients %s", clients[cj]);
		return true;
	}
	return false;
}

/* Does the matrix call @row not comparable (map.not_comparable)? Says why into row->why. */
static bool not_comparable(const struct lab_refmap *map, struct lab_vrow *row)
{
	for (int i = 0; i < map->nnc; i++)
		if (map_names(map->nc[i].bench, map->nc[i].metric, map->nc[i].clients, row)) {
			snprintf(row->why, sizeof(row->why), "%s", map->nc[i].words);
			return true;
		}
	return false;
}

/* Why the row has its class (the classes that are not decided before lab_verdict_judge()). */
static void judged_why(const struct lab_vtab *vt, struct lab_vrow *row)
{
	char o[32], m[32], q[32];

	lab_fmt_pct(row->och, o, sizeof(o));
	lab_verdict_ratio_str(row->ratio, q, sizeof(q));
	switch (row->v) {
	case LAB_V_PUBLISHED_FLAT:
		/*
		 * Both columns' mean and spread equal to the last bit: the same figures
		 * (under --sim, one modelled path for both): a flat change by construction.
		 */
		snprintf(row->why, sizeof(row->why), "%s; rwlab %s", row->pch == 0 ? "published change 0" : row->pub_why,
			 row->sig ? "significant" : row->ob == row->on && row->sb == row->sn ?
			 "not significant either, but its two columns hold the same figures (mean and spread to the last "
			 "bit): equal by construction" : "not significant either");
		break;
	case LAB_V_INCONCLUSIVE:
		snprintf(m, sizeof(m), "%.2g%%", vt->met[row->k].min_effect);
		if (row->rule_sig)
			snprintf(row->why, sizeof(row->why), "rwlab's %s is below the minimum effect %s", o, m);
		else
			snprintf(row->why, sizeof(row->why), "rwlab's %s is not significant (%s)", o, rep_sig_name(vt->sig));
		break;
	case LAB_V_DISAGREE:
		snprintf(row->why, sizeof(row->why), "rwlab %s against the published change: opposite directions; published: %s",
			 o, row->pub_why);
		break;
	case LAB_V_AGREE_DIRECTION:
		if (row->pub == LAB_PUB_UNMARKED)
			snprintf(row->why, sizeof(row->why), "%s the published change; not agree: %s", q, row->pub_why);
		else
			snprintf(row->why, sizeof(row->why), "%s the published change: outside %gx", q,
				 LAB_VERDICT_SIZE_FACTOR);
		break;
	default:
		row->why[0] = 0;
	}
}

static void classify(const struct lab_vtab *vt, int ncpus, bool collapsed_row, struct lab_vrow *row)
{
	row->ratio = NAN;
	if (isnan(row->pch) || isnan(row->och)) {
		row->v = LAB_V_NA;
		snprintf(row->why, sizeof(row->why), "%s",
			 isnan(row->pch) ? "no published change" :
			 row->th < 0 ? "no rwlab thread count for these clients (map.threads)" : "not in rwlab's results");
	} else if (collapsed_row) {
		row->v = LAB_V_NA;
	} else if (not_comparable(vt->map, row)) {
		row->v = LAB_V_NOT_COMPARABLE;
	} else if (scale_gap(vt->map, ncpus, row)) {
		row->v = LAB_V_SCALE_GAP;
	} else {
		row->v = lab_verdict_judge(row->pch, row->pub, row->och, row->sig, &row->ratio);
		judged_why(vt, row);
	}
}

/* The headline stat of map.metric @k ("hmean", "mean", ...: not a spread row) and its client counts. */
static const char *metric_rows(const struct ref *ref, const struct lab_refmap *map, int k, const char **clients,
			       int *nclients)
{
	const char *stat = NULL;

	*nclients = 0;
	for (int i = 0; i < ref->t.nrows; i++) {
		if (strcmp(rf(ref, i, R_BENCH), map->met[k].bench) || strcmp(rf(ref, i, R_METRIC), map->met[k].metric))
			continue;
		if (!stat && !is_spread_stat(rf(ref, i, R_STAT)))
			stat = rf(ref, i, R_STAT);
		if (!in_strs(clients, *nclients, rf(ref, i, R_CLIENTS)) && *nclients < 256)
			clients[(*nclients)++] = rf(ref, i, R_CLIENTS);
	}
	return stat;
}

/* rwlab's rule: --significance, else the one the published marks were drawn with, else the era's. */
enum lab_report_sig lab_report_sig_resolve(const struct lab_report_opts *o, enum lab_report_sig marks,
					   const char **from)
{
	const char *why;
	enum lab_report_sig sig;

	if (marks != LAB_SIG_AUTO && (o->sig == LAB_SIG_AUTO || o->sig == marks)) {
		why = marks == LAB_SIG_TTEST ?
			      "the table's own rule: its marks are mmtests' t-test stars (2018-10..2024-11)" :
			      "the table's own rule: its marks are mmtests' interval stars";
		sig = marks;
	} else if (o->sig != LAB_SIG_AUTO) {
		why = marks == LAB_SIG_AUTO ? "--significance" : "--significance, not the rule of the table's marks";
		sig = o->sig;
	} else {
		why = o->era == LAB_ERA_2019 ? "--mmtests-era 2019" : "the report's default";
		sig = o->era == LAB_ERA_2019 ? LAB_SIG_TTEST : LAB_SIG_CI;
	}
	if (from)
		*from = why;
	return sig;
}

/* The rule of the published table's marks (mmtests-ttest, mmtests-ci), LAB_SIG_AUTO when it prints neither. */
static enum lab_report_sig marks_sig(const struct ref *ref)
{
	enum lab_report_sig table = LAB_SIG_AUTO;

	for (int i = 0; i < ref->t.nrows && table == LAB_SIG_AUTO; i++) {
		const char *rule = ref_opt(ref, i, ref->rule);

		table = !strcmp(rule, "mmtests-ttest") ? LAB_SIG_TTEST : !strcmp(rule, "mmtests-ci") ? LAB_SIG_CI :
											       LAB_SIG_AUTO;
	}
	return table;
}

/* Read the published table @path into @ref: 0, or -1 with a one-line why in @err. */
static int ref_read(const char *path, struct ref *ref, char *err, size_t len)
{
	static const char *const need[R_NR] = { "benchmark", "stat", "metric", "clients", "variant", "value" };
	char why[1024];

	if (lab_csv_read(path, &ref->t, why, sizeof(why))) {
		snprintf(err, len, "published table: %s", why);
		return -1;
	}
	for (int i = 0; i < R_NR; i++)
		if ((ref->col[i] = lab_csv_col(&ref->t, need[i])) < 0) {
			snprintf(err, len, "%s: no column '%s' (a published table has benchmark, stat, metric, "
				 "clients, variant, value, and optionally mark and rule)", path, need[i]);
			return -1;
		}
	ref->mark = lab_csv_col(&ref->t, "mark");
	ref->rule = lab_csv_col(&ref->t, "rule");
	/* a published figure that is not a number would be read as 0 and judged */
	for (int i = 0; i < ref->t.nrows; i++) {
		const char *v = ref->t.rows[i][ref->col[R_VALUE]], *bad;
		double x;

		if (lab_value_parse(v, &x, &bad)) {
			snprintf(err, len, "%s:%d: value '%s' is %s (a published table's values are decimal numbers)",
				 path, ref->t.line[i], v, bad);
			return -1;
		}
	}
	return 0;
}

/* Load the published table. Returns 0 or 2 (error on stderr): a table that cannot be read is bad input. */
static int load_ref(const char *path, struct ref *ref)
{
	char err[2048];

	if (!ref_read(path, ref, err, sizeof(err)))
		return 0;
	fprintf(stderr, "%s: %s\n", lab_prog(), err);
	return 2;
}

int lab_ref_check(const char *path, char *err, size_t len)
{
	struct ref ref = { 0 };
	int r = ref_read(path, &ref, err, len);

	lab_csv_free(&ref.t);
	return r;
}

static struct lab_vrow *new_row(struct lab_vtab *vt)
{
	vt->row = realloc(vt->row, (size_t)(vt->n + 1) * sizeof(*vt->row));
	if (!vt->row)
		abort();
	memset(&vt->row[vt->n], 0, sizeof(vt->row[0]));
	return &vt->row[vt->n++];
}

/* Every row of map.metric @k. Returns 0 or 2 (error on stderr). */
static int metric_block(const struct lab_report_opts *o, const struct lab_results *r, const struct ref *ref, int k,
			struct lab_vtab *vt)
{
	const struct lab_refmap *map = vt->map;
	const char *clients[256], *stat;
	char mbuf[96];
	const char *metric = our_metric(map->met[k].workload, map->met[k].ours, mbuf, sizeof(mbuf));
	int im = metric ? lab_results_metric(r, metric) : -1, nclients, ncpus = atoi(lab_results_ctx(r, LAB_CSV_NAME(cpus)));
	double flat = o->flat_pct > 0 ? o->flat_pct : 1.0;

	stat = metric_rows(ref, map, k, clients, &nclients);
	if (!stat) {
		fprintf(stderr, "%s: %s has no rows for '%s | %s' (map.metric)\n", lab_prog(), o->reference,
			map->met[k].bench, map->met[k].metric);
		return 2;
	}
	lab_min_effect(r, map->met[k].workload, im, map->met[k].sum, vt->sig, vt->min_floor, &vt->met[k]);
	snprintf(vt->met[k].metric, sizeof(vt->met[k].metric), "%s", metric ? metric : "");
	for (int col = 1; col < map->ncol; col++)
		for (int ci = 0; ci < nclients; ci++) {
			struct lab_vrow *row = new_row(vt);

			row->k = k, row->col = col, row->clients = clients[ci];
			row->bench = map->met[k].bench, row->metric = map->met[k].metric;
			row->variant = map->col[col].ref;
			row->th = map_threads(map, clients[ci], ncpus);
			published_row(ref, map, stat, flat, row);
			rwlab_row(r, map, im, vt->sig, &vt->met[k], row);
			classify(vt, ncpus, collapsed(map, clients, nclients, ncpus, row), row);
			vt->count[row->v]++;
			vt->flat_quiet += row->v == LAB_V_PUBLISHED_FLAT && !row->sig;
		}
	return 0;
}

int lab_vtab_compute(const struct lab_report_opts *o, const struct lab_results *r, struct lab_vtab *vt)
{
	struct ref *ref = calloc(1, sizeof(*ref));

	if (!ref)
		abort();
	memset(vt, 0, sizeof(*vt));
	vt->ref = ref;
	if (load_ref(o->reference, ref))
		return 2;
	vt->map = o->map;
	if (!vt->map) {
		if (identity_map(r, ref, &vt->idmap)) {
			fprintf(stderr, "%s: %s and %s share no variants and metrics by name; "
					"give a matrix with map.column and map.metric (rwlab report --matrix NAME)\n",
				lab_prog(), o->reference, r->path);
			return 2;
		}
		vt->map = &vt->idmap;
	}
	vt->sig = lab_report_sig_resolve(o, marks_sig(ref), &vt->sig_from);
	vt->min_floor = lab_min_effect_floor(o);
	for (int k = 0; k < vt->map->nmet; k++)
		if (metric_block(o, r, ref, k, vt))
			return 2;
	return 0;
}

void lab_vtab_free(struct lab_vtab *vt)
{
	struct ref *ref = vt->ref;

	if (ref)
		lab_csv_free(&ref->t);
	free(ref);
	free(vt->row);
	memset(vt, 0, sizeof(*vt));
}

const struct lab_vmetric *lab_vtab_metric(const struct lab_vtab *vt, const char *label, const char *metric,
					  const char **workload)
{
	for (int k = 0; k < vt->map->nmet; k++)
		if (vt->met[k].metric[0] && !strcmp(vt->met[k].metric, metric) &&
		    workload_matches(label, vt->map->met[k].workload)) {
			*workload = vt->map->met[k].workload;
			return &vt->met[k];
		}
	return NULL;
}

int lab_vtab_counted(const struct lab_vtab *vt)
{
	int n = 0;

	for (int v = 0; v < LAB_V_NR; v++)
		n += v != LAB_V_NA && v != LAB_V_NOT_COMPARABLE ? vt->count[v] : 0;
	return n;
}

