/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mmtests compare layout (compare-mmtests.pl, docs/workloads.md §2.d):
 *
 *                                      rwsem                  rwsem
 *                                       xadd                  rspin
 *   Min       faults/cpu-1    629011.4218 (   0.00%)   601523.2875 (  -4.37%)
 *   Hmean     faults/cpu-1    ...          (   0.00%)   ...          *  -9.86%*
 *
 * Rows are blocks of one statistic over every operation ("metric-threads"),
 * as the --mmtests-era prints them (docs/workloads.md §2.d):
 *   current  Min, Hmean, HStddev, HCoeffVar, Max, BHmean.95 (higher is
 *            better); Min, Amean, Stddev, CoeffVar, Max, BAmean.95 otherwise
 *   2019     Min, Hmean|Amean, Stddev, CoeffVar, Max, B{H,A}mean-50, -95, -99
 * HStddev is the harmonic standard deviation around the Hmean, Stddev the
 * sample one around the Amean. The percentage is mmtests' pdiff/pndiff
 * (positive = better; the spread rows always pndiff); only the mean row is
 * starred, under the significance rule (by default the era's: the
 * confidence-interval rule on the mean and its (H)Stddev now, the t-test on
 * the Hmean and Stddev in 2019). Value fields are %{F}.{P}f with mmtests'
 * per-benchmark F/P (pft 14/4, otherwise 12/2), widened when a value or a
 * header part would not fit.
 *
 * reaim is one table, as mmtests extracts it: the job mixes of one
 * configuration side by side, operations named after the workfile and the
 * client count (compute-1, new_dbase-21, shared-41).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report_impl.h"
#include "stats.h"

enum { ST_MIN, ST_MEAN, ST_STDDEV, ST_COEFFVAR, ST_MAX, ST_B50, ST_B95, ST_B99, ST_NR };

struct op {
	int ig, im, threads;
	bool higher;
	char name[200];
};

struct table {
	char key[200];
	int *g, ng;
};

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

/* mmtests' B{H,A}mean-P: the same mean over the best int(n * P / 100) samples (at least one). */
static double best_mean(const struct lab_series *s, int pct)
{
	double *v = malloc((size_t)s->n * sizeof(*v)), m;
	int k = s->n * pct / 100;

	if (!v)
		abort();
	memcpy(v, s->v, (size_t)s->n * sizeof(*v));
	qsort(v, (size_t)s->n, sizeof(*v), cmp_desc);
	if (k < 1)
		k = 1;
	if (rep_higher(s))
		m = lab_hmean(v, k);
	else	/* lower is better: the best are the smallest, at the end of the descending order */
		m = lab_amean(v + s->n - k, k);
	free(v);
	return m;
}

/* The era's rows, in print order. */
static const int *era_rows(enum lab_mmtests_era era, int *n)
{
	static const int current[] = { ST_MIN, ST_MEAN, ST_STDDEV, ST_COEFFVAR, ST_MAX, ST_B95 };
	static const int y2019[] = { ST_MIN, ST_MEAN, ST_STDDEV, ST_COEFFVAR, ST_MAX, ST_B50, ST_B95, ST_B99 };

	*n = era == LAB_ERA_2019 ? 8 : 6;
	return era == LAB_ERA_2019 ? y2019 : current;
}

static double stat_value(const struct lab_series *s, int st, enum lab_mmtests_era era)
{
	bool h = rep_higher(s) && era == LAB_ERA_CURRENT;

	switch (st) {
	case ST_MIN:
		return lab_min(s->v, s->n);
	case ST_MEAN:
		return rep_mean(s);
	case ST_STDDEV:
		return h ? lab_hstddev(s->v, s->n) : lab_stddev(s->v, s->n);
	case ST_COEFFVAR:
		return h ? lab_hcoeffvar(s->v, s->n) : lab_coeffvar(s->v, s->n);
	case ST_MAX:
		return lab_max(s->v, s->n);
	case ST_B50:
		return best_mean(s, 50);
	case ST_B95:
		return best_mean(s, 95);
	default:
		return best_mean(s, 99);
	}
}

static void stat_name(int st, bool higher, enum lab_mmtests_era era, char *buf, size_t len)
{
	static const char *const names[] = { "Min", "mean", "Stddev", "CoeffVar", "Max" };
	static const int pct[] = { [ST_B50] = 50, [ST_B95] = 95, [ST_B99] = 99 };

	if (st == ST_MEAN)
		snprintf(buf, len, "%s", higher ? "Hmean" : "Amean");
	else if (st < ST_B50)
		snprintf(buf, len, "%s%s", higher && era == LAB_ERA_CURRENT && (st == ST_STDDEV || st == ST_COEFFVAR) ?
				   "H" : "", names[st]);
	else	/* "BHmean-95" until mmtests fa1c230f (2026-04), "BHmean.95" since */
		snprintf(buf, len, "B%smean%c%d", higher ? "H" : "A", era == LAB_ERA_CURRENT ? '.' : '-', pct[st]);
}

/* Field length and precision mmtests uses for the benchmark (ExtractPft: 14/4; default 12/2). */
static void field_for(const char *workload, int *f, int *p)
{
	char name[64];

	lab_workload_base(workload, name, sizeof(name));
	if (!strcmp(name, "pft")) {
		*f = 14;
		*p = 4;
	} else {
		*f = 12;
		*p = 2;
	}
}

/*
 * reaim labels: "reaim:new_dbase,jobs=50" -> table "reaim:jobs=50", mix
 * "new_dbase" (the positional workfile knob; compute when absent). Returns
 * false for other workloads.
 */
static bool reaim_split(const char *label, char *table, size_t tl, char *mix, size_t ml)
{
	char buf[256], *save = NULL, rest[256] = "";
	const char *colon = strchr(label, ':');

	if (strncmp(label, "reaim", 5) || (label[5] && label[5] != ':'))
		return false;
	snprintf(mix, ml, "compute");
	snprintf(buf, sizeof(buf), "%s", colon ? colon + 1 : "");
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strchr(t, '=') || !strncmp(t, "workfile=", 9))
			snprintf(mix, ml, "%s", strchr(t, '=') ? t + 9 : t);
		else
			snprintf(rest + strlen(rest), sizeof(rest) - strlen(rest), "%s%s", rest[0] ? "," : "", t);
	}
	snprintf(table, tl, "reaim%s%s", rest[0] ? ":" : "", rest);
	return true;
}

/* The first wanted series of group @g, or NULL. */
static const struct lab_series *group_series(const struct lab_rctx *c, int g)
{
	for (int i = 0; i < c->r->ns; i++)
		if (c->r->s[i].ig == g && rep_wanted(c, &c->r->s[i]))
			return &c->r->s[i];
	return NULL;
}

/* Groups into tables: one per group, except reaim's job mixes of one configuration, merged. */
static int make_tables(const struct lab_rctx *c, struct table **out)
{
	const struct lab_results *r = c->r;
	struct table *t = calloc((size_t)r->ngroups + 1, sizeof(*t));
	int n = 0;

	if (!t)
		abort();
	for (int g = 0; g < r->ngroups; g++) {
		const struct lab_series *s = group_series(c, g);
		char key[200], mix[64];
		int k;

		if (!s)
			continue;
		if (strcmp(r->groups[g], s->workload) || !reaim_split(s->workload, key, sizeof(key), mix, sizeof(mix)))
			snprintf(key, sizeof(key), "%s", r->groups[g]);
		for (k = 0; k < n && strcmp(t[k].key, key); k++)
			;
		if (k == n)
			snprintf(t[n++].key, sizeof(t[0].key), "%s", key);
		t[k].g = realloc(t[k].g, (size_t)(t[k].ng + 1) * sizeof(*t[k].g));
		if (!t[k].g)
			abort();
		t[k].g[t[k].ng++] = g;
	}
	*out = t;
	return n;
}

/* The operations of table @t, in extraction order: group, metric, thread count. */
static int make_ops(const struct lab_rctx *c, const struct table *t, struct op **out, int *F, int *P)
{
	const struct lab_results *r = c->r;
	struct op *ops = NULL;
	int nops = 0;
	bool sized = false;

	for (int gi = 0; gi < t->ng; gi++) {
		int g = t->g[gi];

		for (int m = 0; m < r->nmetrics; m++)
			for (int ti = 0; ti < r->nthreads; ti++) {
				const struct lab_series *s = NULL;
				const char *head;
				char tbl[200], mix[64];
				bool is_head;

				for (int v = 0; v < r->ncolumns && !s; v++) {
					s = lab_results_find(r, g, v, m, r->threads[ti]);
					s = s && rep_wanted(c, s) ? s : NULL;
				}
				if (!s)
					continue;
				if (!sized)
					field_for(s->workload, F, P);
				sized = true;
				ops = realloc(ops, (size_t)(nops + 1) * sizeof(*ops));
				if (!ops)
					abort();
				ops[nops] = (struct op){ .ig = g, .im = m, .threads = r->threads[ti], .higher = rep_higher(s) };
				head = rep_headline(s->workload);
				is_head = head && strlen(r->metrics[m]) == strcspn(head, ",") &&
					  !strncmp(head, r->metrics[m], strcspn(head, ","));
				if (t->ng > 1 && reaim_split(s->workload, tbl, sizeof(tbl), mix, sizeof(mix)))
					/* compute-21 for the mix's JPM, compute-JTI-21 for another metric */
					snprintf(ops[nops].name, sizeof(ops[0].name), "%s%s%s-%d", mix, is_head ? "" : "-",
						 is_head ? "" : r->metrics[m], r->threads[ti]);
				else
					snprintf(ops[nops].name, sizeof(ops[0].name), "%s-%d", r->metrics[m],
						 r->threads[ti]);
				nops++;
			}
	}
	*out = ops;
	return nops;
}

/*
 * One cell of row @st; on the mean row a cell lab_fmt_flag() flags (on the
 * era's CoeffVar row: HCoeffVar now, CoeffVar in 2019) has LAB_FMT_FLAG_MARK
 * just before its value. Returns whether it did.
 */
static bool print_cell(const struct lab_rctx *c, const struct op *op, int st, int v, int F, int P)
{
	const struct lab_results *r = c->r;
	const struct lab_series *s = lab_results_find(r, op->ig, v, op->im, op->threads);
	const struct lab_series *base = lab_results_find(r, op->ig, 0, op->im, op->threads);
	double val = s ? stat_value(s, st, c->o->era) : NAN, bv = base ? stat_value(base, st, c->o->era) : NAN, pct;
	bool star, flagged = st == ST_MEAN && rep_flag(s);
	char num[96];

	if (isnan(val)) {
		fprintf(c->out, "%*s%11s", F, "-", "");
		return false;
	}
	snprintf(num, sizeof(num), "%*.*f", F, P, val);
	if (flagged)
		rep_mark(num, sizeof(num));
	fputs(num, c->out);
	if (rep_difference(r->metrics[op->im])) {	/* no percent change of a difference: REP_DIFFERENCE_NOTE */
		fprintf(c->out, "%11s", "");
		return flagged;
	}
	if (v == 0) {
		fprintf(c->out, " (%7.2f%%)", 0.0);
		return flagged;
	}
	if (isnan(bv)) {
		fprintf(c->out, "%11s", "");
		return flagged;
	}
	pct = st == ST_STDDEV || st == ST_COEFFVAR || !op->higher ? lab_pndiff(val, bv) : lab_pdiff(val, bv);
	star = st == ST_MEAN && rep_significant_by(rep_tools_sig(c), s, base);
	fprintf(c->out, " %c%7.2f%%%c", star ? '*' : '(', pct, star ? '*' : ')');
	return flagged;
}

/* An oversubscribed cell of the operations of @ops at @threads, counted in @over; NULL if none is. */
static const struct lab_series *oversub_at(const struct lab_rctx *c, const struct op *ops, int nops, int threads,
					   struct rep_oversub *over)
{
	const struct lab_series *hit = NULL;

	for (int i = 0; i < nops; i++)
		for (int v = 0; v < c->r->ncolumns && ops[i].threads == threads; v++) {
			const struct lab_series *s = lab_results_find(c->r, ops[i].ig, v, ops[i].im, threads);

			if (s && rep_oversubscribed(s)) {
				rep_oversub_add(over, s);
				hit = s;
			}
		}
	return hit;
}

/*
 * The line after the table naming the thread counts of its oversubscribed
 * operations, those with a cell whose threads are more than its CPUs: "ops
 * at 4 and 8 threads: oversubscribed, more threads than CPUs (2 CPUs), ...".
 */
static void oversub_line(const struct lab_rctx *c, const struct op *ops, int nops)
{
	const struct lab_results *r = c->r;
	const struct lab_series *any = NULL;
	struct rep_oversub over = { 0 };
	char core[512];
	int n = 0, k = 0;

	for (int ti = 0; ti < r->nthreads; ti++) {
		const struct lab_series *s = oversub_at(c, ops, nops, r->threads[ti], &over);

		n += s != NULL;
		any = any ? any : s;
	}
	if (!n)
		return;
	fprintf(c->out, "ops at ");
	for (int ti = 0; ti < r->nthreads; ti++)
		if (oversub_at(c, ops, nops, r->threads[ti], &over))
			fprintf(c->out, "%s%d", !k++ ? "" : k == n ? " and " : ", ", r->threads[ti]);
	rep_oversub_core(&over, core, sizeof(core));
	fprintf(c->out, " %s: oversubscribed, %s\n", rep_count_unit(any->workload), core);
}

static void print_table(struct lab_rctx *c, const struct table *t, const struct op *ops, int nops, int F, int P)
{
	const struct lab_results *r = c->r;
	int nrows, M = 0, L = 0;
	const int *rows = era_rows(c->o->era, &nrows);
	char a[160], b[160];
	bool flagged = false, lower = false, diff = false, pct = false;
	bool *used = calloc((size_t)r->ncolumns + 1, sizeof(*used));

	if (!used)
		abort();
	for (int i = 0; i < nops; i++) {
		for (int v = 0; v < r->ncolumns; v++)	/* a column with no cell in the table: left out */
			used[v] |= rep_column_used(c, ops[i].ig, ops[i].im, v);
		if (rep_difference(r->metrics[ops[i].im]))
			diff = true;
		else
			pct = true, lower |= !ops[i].higher;
		M = (int)strlen(ops[i].name) > M ? (int)strlen(ops[i].name) : M;
		for (int k = 0; k < nrows; k++) {
			stat_name(rows[k], ops[i].higher, c->o->era, a, sizeof(a));
			L = (int)strlen(a) > L ? (int)strlen(a) : L;
		}
	}
	/* Widen the value field where a value or a header part would not fit. */
	for (int i = 0; i < nops; i++)
		for (int v = 0; v < r->ncolumns; v++) {
			const struct lab_series *s = lab_results_find(r, ops[i].ig, v, ops[i].im, ops[i].threads);

			for (int k = 0; s && k < nrows; k++) {
				int len = snprintf(a, sizeof(a), "%.*f", P, stat_value(s, rows[k], c->o->era));

				F = len + 1 > F ? len + 1 : F;
			}
		}
	for (int v = 0; v < r->ncolumns; v++) {
		if (!used[v])
			continue;
		rep_split_name(r->columns[v], a, sizeof(a), b, sizeof(b));
		F = (int)strlen(a) + 1 - 11 > F ? (int)strlen(a) + 1 - 11 : F;
		F = (int)strlen(b) + 1 - 11 > F ? (int)strlen(b) + 1 - 11 : F;
	}
	fprintf(c->out, "%s\n", t->key);
	for (int line = 0; line < 2; line++) {
		fprintf(c->out, "%*s", L + M + 1, "");
		for (int v = 0; v < r->ncolumns; v++) {
			if (!used[v])
				continue;
			rep_split_name(r->columns[v], a, sizeof(a), b, sizeof(b));
			fprintf(c->out, "%*s", F + 11, line ? b : a);
		}
		fprintf(c->out, "\n");
	}
	for (int k = 0; k < nrows; k++)
		for (int i = 0; i < nops; i++) {
			stat_name(rows[k], ops[i].higher, c->o->era, a, sizeof(a));
			fprintf(c->out, "%-*s %-*s", L, a, M, ops[i].name);
			for (int v = 0; v < r->ncolumns; v++)
				if (used[v])
					flagged |= print_cell(c, &ops[i], rows[k], v, F, P);
			fprintf(c->out, "\n");
		}
	if (flagged)
		fprintf(c->out, "%s\n", LAB_FMT_FLAG_LEGEND);
	if (pct)
		rep_sign_line(c->out, lower);
	if (diff)
		fprintf(c->out, "%s\n", REP_DIFFERENCE_NOTE);
	oversub_line(c, ops, nops);
	free(used);
}

int rep_mmtests(struct lab_rctx *c)
{
	struct table *t;
	int nt = make_tables(c, &t), printed = 0;

	for (int k = 0; k < nt; k++) {
		struct op *ops;
		int F = 12, P = 2, nops = make_ops(c, &t[k], &ops, &F, &P);

		if (nops) {
			if (printed++)
				fputc('\n', c->out);
			print_table(c, &t[k], ops, nops, F, P);
		}
		free(ops);
		free(t[k].g);
	}
	free(t);
	return printed;
}
