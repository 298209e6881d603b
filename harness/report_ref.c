/* SPDX-License-Identifier: MIT */
/*
 * The published figures next to rwlab's, row by row, with whether the
 * direction of the change agrees.
 *
 * For every mapped metric and every non-baseline published variant, one row
 * per published client count: the published baseline and variant values and
 * their change, the rwlab thread count it maps to, rwlab's baseline and
 * column values (the table mean, or the total over iterations for "sum"
 * metrics) and their change. Changes are plain value changes, 100 (new/base
 * - 1), for both sides (published "speedup-percent" rows are that change
 * already). A direction is "+", "-" or "=" (|change| below the flat
 * threshold); rows where either side is missing are shown but not counted.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "report_impl.h"
#include "stats.h"
#include "workload.h"

enum { R_BENCH, R_STAT, R_METRIC, R_CLIENTS, R_VARIANT, R_VALUE, R_NR };

struct ref {
	struct lab_csv_table t;
	int col[R_NR];
};

static const char *rf(const struct ref *ref, int row, int c)
{
	return ref->t.rows[row][ref->col[c]];
}

static bool in_strs(const char **a, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(a[i], s))
			return true;
	return false;
}

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
 * @im at @threads (0 = every thread count pooled). Returns NaN if absent.
 */
static double our_value(const struct lab_results *r, int ic, const char *wl, int im, int threads, bool sum,
			int *n_out, const struct lab_series **one)
{
	double *v = NULL, out;
	int n = 0, found = 0;
	bool higher = false;

	*one = NULL;
	for (int i = 0; i < r->ns; i++) {
		const struct lab_series *s = &r->s[i];

		if (s->ic != ic || s->im != im || (threads && s->threads != threads) || !workload_matches(s->workload, wl))
			continue;
		v = realloc(v, (size_t)(n + s->n) * sizeof(*v));
		if (!v)
			abort();
		memcpy(v + n, s->v, (size_t)s->n * sizeof(*v));
		n += s->n;
		higher = rep_higher(s);
		*one = found++ ? NULL : s;
	}
	*n_out = n;
	if (!n)
		out = NAN;
	else if (sum)
		out = lab_amean(v, n) * n;
	else
		out = higher ? lab_hmean(v, n) : lab_amean(v, n);
	free(v);
	return out;
}

static void fmt_val(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e8)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%.2f", v);
}

static void fmt_pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.2f%%", v);
}

static char direction(double ch, double flat)
{
	return isnan(ch) ? '?' : ch > flat ? '+' : ch < -flat ? '-' : '=';
}

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
		if (lab_matrix_eval_threads(map->thr[i].ours, ncpus, buf, sizeof(buf), err, sizeof(err)))
			return -1;
		return atoi(buf) > 0 ? atoi(buf) : -1;
	}
	if (map->nthr)
		return -1;	/* a map lists the comparable counts; the others are not compared */
	if (!strcmp(clients, "all"))
		return 0;
	return atoi(clients) > 0 ? atoi(clients) : -1;
}

int rep_reference(struct lab_rctx *c)
{
	static const char *const need[R_NR] = { "benchmark", "stat", "metric", "clients", "variant", "value" };
	const struct lab_results *r = c->r;
	const struct lab_report_opts *o = c->o;
	const struct lab_refmap *map = o->map;
	struct lab_refmap idmap;
	struct ref ref;
	char err[1024];
	int ncpus = atoi(lab_results_ctx(r, "cpus")), agree = 0, counted = 0, shown = 0;
	double flat = o->flat_pct > 0 ? o->flat_pct : 1.0;

	if (lab_csv_read(o->reference, &ref.t, err, sizeof(err))) {
		fprintf(stderr, "rwlab report: %s\n", err);
		return 1;
	}
	for (int i = 0; i < R_NR; i++)
		if ((ref.col[i] = lab_csv_col(&ref.t, need[i])) < 0) {
			fprintf(stderr, "rwlab report: %s: no column '%s' (a published table has benchmark, stat, "
					"metric, clients, variant, value)\n", o->reference, need[i]);
			lab_csv_free(&ref.t);
			return 1;
		}
	if (!map) {
		if (identity_map(r, &ref, &idmap)) {
			fprintf(stderr, "rwlab report: %s and %s share no variants and metrics by name; "
					"give a matrix with map.column and map.metric (rwlab report --matrix NAME)\n",
				o->reference, r->path);
			lab_csv_free(&ref.t);
			return 1;
		}
		map = &idmap;
	}

	fprintf(c->out, "\n%s%spublished %s%s%s vs rwlab %s (%s CPUs, %s)\n", o->title ? o->title : "",
		o->title ? ": " : "", o->reference, map->machine[0] ? ", " : "", map->machine, r->path,
		lab_results_ctx(r, "cpus"), lab_results_ctx(r, "cpu_model"));
	for (int k = 0; k < map->nmet; k++) {
		const char *stat = NULL, *clients[256];
		char mbuf[96];
		const char *metric = our_metric(map->met[k].workload, map->met[k].ours, mbuf, sizeof(mbuf));
		int im = metric ? lab_results_metric(r, metric) : -1, nclients = 0;
		int base_ic = lab_results_column(r, map->col[0].ours);

		for (int i = 0; i < ref.t.nrows; i++) {
			if (strcmp(rf(&ref, i, R_BENCH), map->met[k].bench) || strcmp(rf(&ref, i, R_METRIC), map->met[k].metric))
				continue;
			if (!stat && strcmp(rf(&ref, i, R_STAT), "stddev"))
				stat = rf(&ref, i, R_STAT);
			if (!in_strs(clients, nclients, rf(&ref, i, R_CLIENTS)) && nclients < 256)
				clients[nclients++] = rf(&ref, i, R_CLIENTS);
		}
		if (!stat) {
			fprintf(stderr, "rwlab report: %s has no rows for '%s | %s' (map.metric)\n", o->reference,
				map->met[k].bench, map->met[k].metric);
			lab_csv_free(&ref.t);
			return 1;
		}
		for (int col = 1; col < map->ncol; col++) {
			int ic = lab_results_column(r, map->col[col].ours);
			const char *how = "total over iterations";

			if (!map->met[k].sum) {
				how = "not in the results";
				for (int i = 0; i < r->ns; i++)
					if (r->s[i].im == im && workload_matches(r->s[i].workload, map->met[k].workload)) {
						how = rep_higher(&r->s[i]) ? "Hmean of iterations" : "Amean of iterations";
						break;
					}
			}
			fprintf(c->out, "\n%s | %s (published %s)  <->  rwlab %s %s (%s)\n", map->met[k].bench,
				map->met[k].metric, stat, map->met[k].workload, metric ? metric : map->met[k].ours, how);
			fprintf(c->out, "%-8s %13.13s %13.13s %9s | %7s %13.13s %13.13s %9s | %s\n", "clients",
				map->col[0].ref, map->col[col].ref, "%change", "threads", map->col[0].ours,
				map->col[col].ours, "%change", "direction");
			for (int ci = 0; ci < nclients; ci++) {
				double pb = NAN, pn = NAN, pch, ob, on, och;
				int th = map_threads(map, clients[ci], ncpus), nb = 0, nn = 0;
				const struct lab_series *sb = NULL, *sn = NULL;
				char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], ths[16], collapsed[96], dp, dr;
				const char *verdict;

				for (int i = 0; i < ref.t.nrows; i++) {
					if (strcmp(rf(&ref, i, R_BENCH), map->met[k].bench) ||
					    strcmp(rf(&ref, i, R_METRIC), map->met[k].metric) ||
					    strcmp(rf(&ref, i, R_STAT), stat) || strcmp(rf(&ref, i, R_CLIENTS), clients[ci]))
						continue;
					if (!strcmp(rf(&ref, i, R_VARIANT), map->col[0].ref))
						pb = strtod(rf(&ref, i, R_VALUE), NULL);
					else if (!strcmp(rf(&ref, i, R_VARIANT), map->col[col].ref))
						pn = strtod(rf(&ref, i, R_VALUE), NULL);
				}
				if (!isnan(pb) && pb != 0)
					pch = 100 * (pn / pb - 1);
				else if (isnan(pb) && strstr(stat, "percent"))
					pch = pn;	/* the published figure is the change itself */
				else
					pch = NAN;
				ob = on = och = NAN;
				if (th >= 0 && im >= 0 && base_ic >= 0 && ic >= 0) {
					ob = our_value(r, base_ic, map->met[k].workload, im, th, map->met[k].sum, &nb, &sb);
					on = our_value(r, ic, map->met[k].workload, im, th, map->met[k].sum, &nn, &sn);
					if (!isnan(ob) && ob != 0 && !isnan(on))
						och = 100 * (on / ob - 1);
				}
				dp = direction(pch, flat);
				dr = direction(och, flat);
				verdict = dp == '?' || dr == '?' ? "n/a" : dp == dr ? "agree" : "DISAGREE";
				/*
				 * On a small machine two published counts can scale to the same
				 * thread count (cpus/4 and cpus/2 are both 1 on 2 CPUs): only the
				 * smallest published count is compared there.
				 */
				for (int cj = 0; cj < nclients && th > 0; cj++) {
					if (cj == ci || atoi(clients[cj]) >= atoi(clients[ci]) ||
					    map_threads(map, clients[cj], ncpus) != th)
						continue;
					snprintf(collapsed, sizeof(collapsed), "n/a (same threads as clients %s)", clients[cj]);
					verdict = collapsed;
					break;
				}
				if (verdict != collapsed && dp != '?' && dr != '?') {
					counted++;
					agree += dp == dr;
				}
				fmt_val(b1, sizeof(b1), pb);
				fmt_val(b2, sizeof(b2), pn);
				fmt_pct(b3, sizeof(b3), pch);
				fmt_val(b4, sizeof(b4), ob);
				fmt_val(b5, sizeof(b5), on);
				fmt_pct(b6, sizeof(b6), och);
				if (th < 0)
					snprintf(ths, sizeof(ths), "-");
				else if (th == 0)
					snprintf(ths, sizeof(ths), "all");
				else
					snprintf(ths, sizeof(ths), "%d", th);
				fprintf(c->out, "%-8s %13s %13s %9s | %7s %13s %13s %8s%c | %c %c  %s\n", clients[ci], b1, b2,
					b3, ths, b4, b5, b6, rep_significant(c, sn, sb) ? '*' : ' ', dp, dr, verdict);
				shown++;
			}
		}
	}
	fprintf(c->out, "\ndirection agrees in %d of %d rows (%d shown; '=' when |change| < %.2g%%; "
			"change = 100 (new/base - 1); * = rwlab change significant)\n",
		agree, counted, shown, flat);
	lab_csv_free(&ref.t);
	return 0;
}
