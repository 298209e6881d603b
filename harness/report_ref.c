/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The published figures next to rwlab's, row by row, with a verdict that
 * takes noise into account on both sides (README "Verdicts").
 *
 * For every mapped metric and every non-baseline published variant, one row
 * per published client count: the published baseline and variant values and
 * their change, the rwlab thread count it maps to, rwlab's baseline and
 * column values (the table mean, or the total over iterations for "sum"
 * metrics) and their change. Changes are plain value changes, 100 (new/base
 * - 1), for both sides (published "speedup-percent" rows are that change
 * already). Each row is one of, checked in this order:
 *
 *   n/a             a side is missing, or a smaller published count maps to
 *                   the same rwlab thread count (not counted)
 *   scale-gap       rwlab's thread count is more than 4 times away from the
 *                   published client count either way, or rwlab runs more
 *                   threads than its CPUs where the published count did not
 *                   exceed the published machine's CPUs (published_cpus)
 *   published-flat  the published change is within its own noise: the
 *                   table's stddev (or coeffvar) rows fail the same 95%
 *                   interval rule mmtests stars with (|diff| <= 1.96 (sd_a +
 *                   sd_b)), or the thread's words say so (map.flat), or,
 *                   with neither, |change| < --flat (default 1%). rwlab
 *                   agrees there only if its own change is not significant.
 *   inconclusive    rwlab's change is not significant (--significance)
 *   agree/disagree  rwlab's change is significant and in the published
 *                   direction / the opposite one
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format.h"
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

static const char *const verdict_names[] = { "agree", "disagree", "inconclusive", "published-flat", "scale-gap",
					       "n/a" };
enum verdict { V_AGREE, V_DISAGREE, V_INCONCLUSIVE, V_PUBFLAT, V_SCALEGAP, V_NA, V_NR };

struct vrow {
	int k, col;			/* map.metric and map.column indexes */
	const char *clients;
	double pb, pn, pch;		/* published baseline, variant, change (%) */
	double psb, psn;		/* their published standard deviations (NaN: none) */
	int th;				/* rwlab threads: -1 none, 0 every count pooled */
	double ob, on, och;		/* rwlab's */
	int nb, nn;			/* rwlab iterations behind ob and on */
	bool sig;			/* rwlab's change significant */
	enum verdict v;
	char why[320];			/* the reason for n/a, scale-gap and published-flat */
};

struct vtab {
	struct vrow *row;
	int n;
	int count[V_NR];
	int flat_quiet;			/* published-flat rows where rwlab's change is not significant either */
};

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

/* The published standard deviation of (@bench, @metric, @clients, @variant): stddev rows, or coeffvar x mean. */
static double published_sd(const struct ref *ref, const char *bench, const char *metric, const char *clients,
			   const char *variant, double mean)
{
	for (int i = 0; i < ref->t.nrows; i++) {
		const char *st = rf(ref, i, R_STAT);

		if (strcmp(rf(ref, i, R_BENCH), bench) || strcmp(rf(ref, i, R_METRIC), metric) ||
		    strcmp(rf(ref, i, R_CLIENTS), clients) || strcmp(rf(ref, i, R_VARIANT), variant))
			continue;
		if (!strcasecmp(st, "stddev"))
			return strtod(rf(ref, i, R_VALUE), NULL);
		if (!strcasecmp(st, "coeffvar") && !isnan(mean))
			return strtod(rf(ref, i, R_VALUE), NULL) * fabs(mean) / 100;
	}
	return NAN;
}

static bool is_spread_stat(const char *st)
{
	return !strcasecmp(st, "stddev") || !strcasecmp(st, "coeffvar");
}

/* Is the published change of @row noise? Says why into row->why. */
static bool published_flat(const struct lab_refmap *map, const struct lab_report_opts *o, int k, struct vrow *row)
{
	double flat = o->flat_pct > 0 ? o->flat_pct : 1.0;

	if (!isnan(row->psb) && !isnan(row->psn)) {
		double lim = LAB_QNORM_975 * (row->psb + row->psn);

		if (fabs(row->pn - row->pb) > lim)
			return false;
		char d[48], sb[48], sn[48];

		lab_fmt_num(fabs(row->pn - row->pb), d, sizeof(d));
		lab_fmt_num(row->psb, sb, sizeof(sb));
		lab_fmt_num(row->psn, sn, sizeof(sn));
		snprintf(row->why, sizeof(row->why), "published |diff| %s <= 1.96 (sd %s + %s)", d, sb, sn);
		return true;
	}
	for (int i = 0; i < map->nflat; i++)
		if (!strcmp(map->flat[i].bench, map->met[k].bench) && !strcmp(map->flat[i].metric, map->met[k].metric) &&
		    (!strcmp(map->flat[i].clients, "*") || !strcmp(map->flat[i].clients, row->clients))) {
			snprintf(row->why, sizeof(row->why), "the thread: %s", map->flat[i].words);
			return true;
		}
	if (fabs(row->pch) < flat) {
		snprintf(row->why, sizeof(row->why), "published |change| < %.2g%% (--flat; no published spread)", flat);
		return true;
	}
	return false;
}

/* Scale gap between the published client count and rwlab's thread count; says why into row->why. */
static bool scale_gap(const struct lab_refmap *map, int ncpus, struct vrow *row)
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
		snprintf(row->why, sizeof(row->why),
			 "rwlab %d threads on %d CPUs (oversubscribed) vs published %d clients on %d CPUs", T, ncpus, C,
			 map->cpus);
		return true;
	}
	return false;
}

static void classify(const struct lab_rctx *c, const struct lab_refmap *map, int ncpus, bool collapsed,
		     struct vrow *row)
{
	if (isnan(row->pch) || isnan(row->och)) {
		row->v = V_NA;
		snprintf(row->why, sizeof(row->why), "%s",
			 isnan(row->pch) ? "no published change" :
			 row->th < 0 ? "no rwlab thread count for these clients (map.threads)" : "not in rwlab's results");
	} else if (collapsed) {
		row->v = V_NA;
	} else if (scale_gap(map, ncpus, row)) {
		row->v = V_SCALEGAP;
	} else if (published_flat(map, c->o, row->k, row)) {
		row->v = V_PUBFLAT;
	} else if (!row->sig) {
		row->v = V_INCONCLUSIVE;
	} else {
		row->v = (row->och > 0) == (row->pch > 0) ? V_AGREE : V_DISAGREE;
	}
}

/* The published figures of one row. */
static void published_row(const struct ref *ref, const struct lab_refmap *map, const char *stat, struct vrow *row)
{
	const char *bench = map->met[row->k].bench, *metric = map->met[row->k].metric;

	row->pb = row->pn = NAN;
	for (int i = 0; i < ref->t.nrows; i++) {
		if (strcmp(rf(ref, i, R_BENCH), bench) || strcmp(rf(ref, i, R_METRIC), metric) ||
		    strcmp(rf(ref, i, R_STAT), stat) || strcmp(rf(ref, i, R_CLIENTS), row->clients))
			continue;
		if (!strcmp(rf(ref, i, R_VARIANT), map->col[0].ref))
			row->pb = strtod(rf(ref, i, R_VALUE), NULL);
		else if (!strcmp(rf(ref, i, R_VARIANT), map->col[row->col].ref))
			row->pn = strtod(rf(ref, i, R_VALUE), NULL);
	}
	if (!isnan(row->pb) && row->pb != 0)
		row->pch = 100 * (row->pn / row->pb - 1);
	else if (isnan(row->pb) && strstr(stat, "percent"))
		row->pch = row->pn;	/* the published figure is the change itself */
	else
		row->pch = NAN;
	row->psb = published_sd(ref, bench, metric, row->clients, map->col[0].ref, row->pb);
	row->psn = published_sd(ref, bench, metric, row->clients, map->col[row->col].ref, row->pn);
}

/* rwlab's figures of one row. */
static void rwlab_row(const struct lab_rctx *c, const struct lab_refmap *map, int im, struct vrow *row)
{
	const struct lab_results *r = c->r;
	int base_ic = lab_results_column(r, map->col[0].ours), ic = lab_results_column(r, map->col[row->col].ours);
	double *vb = NULL, *vn = NULL;
	bool higher = false, hn;

	row->ob = row->on = row->och = NAN;
	row->sig = false;
	if (row->th < 0 || im < 0 || base_ic < 0 || ic < 0)
		return;
	row->ob = our_value(r, base_ic, map->met[row->k].workload, im, row->th, map->met[row->k].sum, &vb, &row->nb,
			    &higher);
	row->on = our_value(r, ic, map->met[row->k].workload, im, row->th, map->met[row->k].sum, &vn, &row->nn, &hn);
	if (!isnan(row->ob) && row->ob != 0 && !isnan(row->on))
		row->och = 100 * (row->on / row->ob - 1);
	if (row->nb && row->nn)
		row->sig = rep_sig_values(c->o->sig, vb, row->nb, vn, row->nn, higher && !map->met[row->k].sum);
	free(vb);
	free(vn);
}

/* Is a smaller published count mapped to the same rwlab thread count? Says which into row->why. */
static bool collapsed(const struct lab_refmap *map, const char **clients, int nclients, int ncpus, struct vrow *row)
{
	for (int cj = 0; cj < nclients && row->th > 0; cj++) {
		if (atoi(clients[cj]) >= atoi(row->clients) || map_threads(map, clients[cj], ncpus) != row->th)
			continue;
		snprintf(row->why, sizeof(row->why), "same rwlab threads as clients %s", clients[cj]);
		return true;
	}
	return false;
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

/* Compute every row. Returns 0, or 1 with an error on stderr. */
static int compute(const struct lab_rctx *c, const struct ref *ref, const struct lab_refmap *map, struct vtab *vt)
{
	const struct lab_results *r = c->r;
	int ncpus = atoi(lab_results_ctx(r, LAB_CSV_NAME(cpus)));

	memset(vt, 0, sizeof(*vt));
	for (int k = 0; k < map->nmet; k++) {
		const char *clients[256], *stat;
		char mbuf[96];
		const char *metric = our_metric(map->met[k].workload, map->met[k].ours, mbuf, sizeof(mbuf));
		int im = metric ? lab_results_metric(r, metric) : -1, nclients;

		stat = metric_rows(ref, map, k, clients, &nclients);
		if (!stat) {
			fprintf(stderr, "rwlab report: %s has no rows for '%s | %s' (map.metric)\n", c->o->reference,
				map->met[k].bench, map->met[k].metric);
			return 1;
		}
		for (int col = 1; col < map->ncol; col++)
			for (int ci = 0; ci < nclients; ci++) {
				struct vrow *row;

				vt->row = realloc(vt->row, (size_t)(vt->n + 1) * sizeof(*vt->row));
				if (!vt->row)
					abort();
				row = &vt->row[vt->n++];
				memset(row, 0, sizeof(*row));
				row->k = k, row->col = col, row->clients = clients[ci];
				row->th = map_threads(map, clients[ci], ncpus);
				published_row(ref, map, stat, row);
				rwlab_row(c, map, im, row);
				classify(c, map, ncpus, collapsed(map, clients, nclients, ncpus, row), row);
				vt->count[row->v]++;
				vt->flat_quiet += row->v == V_PUBFLAT && !row->sig;
			}
	}
	return 0;
}

static void threads_str(int th, char *buf, size_t len)
{
	if (th < 0)
		snprintf(buf, len, "-");
	else if (th == 0)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%d", th);
}

static void print_row(FILE *f, const struct vrow *row)
{
	char b[6][48], ths[16];

	lab_fmt_num(row->pb, b[0], sizeof(b[0]));
	lab_fmt_num(row->pn, b[1], sizeof(b[1]));
	lab_fmt_pct(row->pch, b[2], sizeof(b[2]));
	lab_fmt_num(row->ob, b[3], sizeof(b[3]));
	lab_fmt_num(row->on, b[4], sizeof(b[4]));
	lab_fmt_pct(row->och, b[5], sizeof(b[5]) - 1);
	if (row->sig && !isnan(row->och))
		strcat(b[5], "*");
	threads_str(row->th, ths, sizeof(ths));
	fprintf(f, "%-7s %10s %10s %8s | %7s %10s %10s %8s | %s", row->clients, b[0], b[1], b[2], ths, b[3], b[4], b[5],
		verdict_names[row->v]);
	if (row->v == V_PUBFLAT)
		fprintf(f, ", rwlab %s", row->sig ? "significant" : "not significant either");
	fputc('\n', f);
	if (row->why[0] && row->v != V_INCONCLUSIVE)
		fprintf(f, "%8s(%s)\n", "", row->why);
}

static void print_text(const struct lab_rctx *c, const struct ref *ref, const struct lab_refmap *map,
		       const struct vtab *vt)
{
	const struct lab_results *r = c->r;
	const struct lab_report_opts *o = c->o;
	int counted = 0;

	fprintf(c->out, "\n%s%spublished %s%s%s vs rwlab %s (%s CPUs, %s)\n", o->title ? o->title : "",
		o->title ? ": " : "", o->reference, map->machine[0] ? ", " : "", map->machine, r->path,
		lab_results_ctx(r, LAB_CSV_NAME(cpus)), lab_results_ctx(r, LAB_CSV_NAME(cpu_model)));
	for (int i = 0; i < vt->n; i++) {
		const struct vrow *row = &vt->row[i];
		int k = row->k;

		if (!i || row->k != vt->row[i - 1].k || row->col != vt->row[i - 1].col) {
			const char *clients[256], *stat;
			int nclients;
			char mbuf[96];
			const char *metric = our_metric(map->met[k].workload, map->met[k].ours, mbuf, sizeof(mbuf));

			stat = metric_rows(ref, map, k, clients, &nclients);
			fprintf(c->out, "\n%s | %s (published %s)  <->  rwlab %s %s (%s)\n", map->met[k].bench,
				map->met[k].metric, stat, map->met[k].workload, metric ? metric : map->met[k].ours,
				map->met[k].sum ? "total over iterations" : "Hmean or Amean of iterations");
			fprintf(c->out, "published: base %s, new %s; rwlab: base %s, new %s\n", map->col[0].ref,
				map->col[row->col].ref, map->col[0].ours, map->col[row->col].ours);
			fprintf(c->out, "%-7s %10s %10s %8s | %7s %10s %10s %8s | verdict\n", "clients", "base", "new",
				"change", rep_count_unit(map->met[k].workload), "base", "new", "change");
		}
		print_row(c->out, row);
	}
	for (int v = 0; v < V_NA; v++)
		counted += vt->count[v];
	fprintf(c->out, "\nagree %d, disagree %d, inconclusive %d, published-flat %d, scale-gap %d of %d rows (%s)\n",
		vt->count[V_AGREE], vt->count[V_DISAGREE], vt->count[V_INCONCLUSIVE], vt->count[V_PUBFLAT],
		vt->count[V_SCALEGAP], counted, rep_sig_name(o->sig));
	fprintf(c->out, "(published-flat rows where rwlab's change is not significant either: %d of %d; "
			"%d rows not compared; change = 100 (new/base - 1); * = rwlab change significant)\n",
		vt->flat_quiet, vt->count[V_PUBFLAT], vt->count[V_NA]);
}

static void print_json(const struct lab_rctx *c, const struct lab_refmap *map, const struct vtab *vt)
{
	FILE *f = c->out;
	int counted = 0;

	fputs(",\n  \"reference\": {\n    \"published\": ", f);
	rep_json_str(f, c->o->reference);
	fputs(",\n    \"machine\": ", f);
	rep_json_str(f, map->machine);
	fprintf(f, ",\n    \"published_cpus\": %d,\n    \"test\": ", map->cpus);
	rep_json_str(f, rep_sig_name(c->o->sig));
	fputs(",\n    \"rows\": [", f);
	for (int i = 0; i < vt->n; i++) {
		const struct vrow *row = &vt->row[i];
		const double nums[] = { row->pb, row->pn, row->pch, row->psb, row->psn, row->ob, row->on, row->och };
		static const char *const keys[] = { "published_base", "published_new", "published_change_pct",
						    "published_base_sd", "published_new_sd", "rwlab_base", "rwlab_new",
						    "rwlab_change_pct" };

		fputs(i ? ",\n      {" : "\n      {", f);
		fputs("\"benchmark\": ", f);
		rep_json_str(f, map->met[row->k].bench);
		fputs(", \"metric\": ", f);
		rep_json_str(f, map->met[row->k].metric);
		fputs(", \"variant\": ", f);
		rep_json_str(f, map->col[row->col].ref);
		fputs(", \"clients\": ", f);
		rep_json_str(f, row->clients);
		fprintf(f, ", \"threads\": %d", row->th);
		for (size_t j = 0; j < sizeof(nums) / sizeof(nums[0]); j++) {
			fprintf(f, ", \"%s\": ", keys[j]);
			rep_json_num(f, nums[j]);
		}
		fprintf(f, ", \"rwlab_significant\": %s, \"verdict\": ", row->sig ? "true" : "false");
		rep_json_str(f, verdict_names[row->v]);
		fputs(", \"why\": ", f);
		rep_json_str(f, row->why);
		fputc('}', f);
	}
	for (int v = 0; v < V_NA; v++)
		counted += vt->count[v];
	fprintf(f, "\n    ],\n    \"summary\": {\"agree\": %d, \"disagree\": %d, \"inconclusive\": %d, "
		   "\"published_flat\": %d, \"scale_gap\": %d, \"rows\": %d, \"not_compared\": %d, "
		   "\"published_flat_rwlab_not_significant\": %d}\n  }",
		vt->count[V_AGREE], vt->count[V_DISAGREE], vt->count[V_INCONCLUSIVE], vt->count[V_PUBFLAT],
		vt->count[V_SCALEGAP], counted, vt->count[V_NA], vt->flat_quiet);
}

/* Load the published table and the map (the identity when none is given). Returns 0 or 1. */
static int load(const struct lab_rctx *c, struct ref *ref, struct lab_refmap *idmap, const struct lab_refmap **map)
{
	static const char *const need[R_NR] = { "benchmark", "stat", "metric", "clients", "variant", "value" };
	const struct lab_report_opts *o = c->o;
	char err[1024];

	if (lab_csv_read(o->reference, &ref->t, err, sizeof(err))) {
		fprintf(stderr, "rwlab report: %s\n", err);
		return 1;
	}
	for (int i = 0; i < R_NR; i++)
		if ((ref->col[i] = lab_csv_col(&ref->t, need[i])) < 0) {
			fprintf(stderr, "rwlab report: %s: no column '%s' (a published table has benchmark, stat, "
					"metric, clients, variant, value)\n", o->reference, need[i]);
			lab_csv_free(&ref->t);
			return 1;
		}
	*map = o->map;
	if (!*map) {
		if (identity_map(c->r, ref, idmap)) {
			fprintf(stderr, "rwlab report: %s and %s share no variants and metrics by name; "
					"give a matrix with map.column and map.metric (rwlab report --matrix NAME)\n",
				o->reference, c->r->path);
			lab_csv_free(&ref->t);
			return 1;
		}
		*map = idmap;
	}
	return 0;
}

static int reference(struct lab_rctx *c, bool json)
{
	const struct lab_refmap *map;
	struct lab_refmap idmap;
	struct ref ref;
	struct vtab vt;
	int st;

	if (load(c, &ref, &idmap, &map))
		return 1;
	st = compute(c, &ref, map, &vt);
	if (!st && json)
		print_json(c, map, &vt);
	else if (!st)
		print_text(c, &ref, map, &vt);
	free(vt.row);
	lab_csv_free(&ref.t);
	return st;
}

int rep_reference(struct lab_rctx *c)
{
	return reference(c, false);
}

int rep_reference_json(struct lab_rctx *c)
{
	return reference(c, true);
}
