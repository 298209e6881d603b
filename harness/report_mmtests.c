/* SPDX-License-Identifier: MIT */
/*
 * The mmtests compare layout (compare-mmtests.pl, research/workloads.md §2.d):
 *
 *                                      rwsem                  rwsem
 *                                       xadd                  rspin
 *   Min       faults/cpu-1    629011.4218 (   0.00%)   601523.2875 (  -4.37%)
 *   Hmean     faults/cpu-1    ...          (   0.00%)   ...          *  -9.86%*
 *
 * Rows are blocks of one statistic over every operation ("metric-threads"):
 * Min, Hmean|Amean, Stddev, CoeffVar, Max, BHmean-95|BAmean-95. Hmean for
 * higher-is-better metrics, Amean otherwise. The percentage is mmtests'
 * pdiff/pndiff (positive = better; Stddev and CoeffVar always pndiff); only
 * the mean row is starred, under the chosen significance rule. Value fields
 * are %{F}.{P}f with mmtests' per-benchmark F/P (pft 14/4, otherwise 12/2),
 * widened when a value or a header part would not fit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"
#include "stats.h"

enum { ST_MIN, ST_MEAN, ST_STDDEV, ST_COEFFVAR, ST_MAX, ST_BMEAN95, ST_NR };

struct op {
	int im, threads;
	bool higher;
	char name[160];
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
	if (rep_higher(s)) {
		m = lab_hmean(v, k);
	} else {
		/* lower is better: the best are the smallest, at the end of the descending order */
		m = lab_amean(v + s->n - k, k);
	}
	free(v);
	return m;
}

static double stat_value(const struct lab_series *s, int st)
{
	switch (st) {
	case ST_MIN:
		return lab_min(s->v, s->n);
	case ST_MEAN:
		return rep_mean(s);
	case ST_STDDEV:
		return lab_stddev(s->v, s->n);
	case ST_COEFFVAR:
		return lab_coeffvar(s->v, s->n);
	case ST_MAX:
		return lab_max(s->v, s->n);
	default:
		return best_mean(s, 95);
	}
}

static const char *stat_name(int st, bool higher)
{
	static const char *const names[ST_NR][2] = {
		{ "Min", "Min" },	{ "Amean", "Hmean" }, { "Stddev", "Stddev" },
		{ "CoeffVar", "CoeffVar" }, { "Max", "Max" }, { "BAmean-95", "BHmean-95" },
	};

	return names[st][higher];
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

int rep_mmtests(struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	int printed = 0;

	for (int g = 0; g < r->ngroups; g++) {
		struct op *ops = NULL;
		int nops = 0, M = 0, F = 12, P = 2, L = 9;
		bool sized = false;
		char a[160], b[160];

		for (int m = 0; m < r->nmetrics; m++) {
			if (!rep_metric_in_group(c, g, m))
				continue;
			for (int t = 0; t < r->nthreads; t++) {
				const struct lab_series *s = NULL;

				for (int v = 0; v < r->ncolumns && !s; v++) {
					s = lab_results_find(r, g, v, m, r->threads[t]);
					if (s && !rep_wanted(c, s))
						s = NULL;
				}
				if (!s)
					continue;
				if (!sized) {
					field_for(s->workload, &F, &P);
					sized = true;
				}
				ops = realloc(ops, (size_t)(nops + 1) * sizeof(*ops));
				if (!ops)
					abort();
				ops[nops].im = m;
				ops[nops].threads = r->threads[t];
				ops[nops].higher = rep_higher(s);
				snprintf(ops[nops].name, sizeof(ops[nops].name), "%s-%d", r->metrics[m], r->threads[t]);
				M = (int)strlen(ops[nops].name) > M ? (int)strlen(ops[nops].name) : M;
				nops++;
			}
		}
		if (!nops) {
			free(ops);
			continue;
		}
		/* Widen the value field where a value or a header part would not fit. */
		for (int i = 0; i < nops; i++)
			for (int v = 0; v < r->ncolumns; v++) {
				const struct lab_series *s = lab_results_find(r, g, v, ops[i].im, ops[i].threads);

				for (int st = 0; s && st < ST_NR; st++) {
					char buf[64];
					int len = snprintf(buf, sizeof(buf), "%.*f", P, stat_value(s, st));

					F = len + 1 > F ? len + 1 : F;
				}
			}
		for (int v = 0; v < r->ncolumns; v++) {
			rep_split_name(r->columns[v], a, sizeof(a), b, sizeof(b));
			F = (int)strlen(a) + 1 - 11 > F ? (int)strlen(a) + 1 - 11 : F;
			F = (int)strlen(b) + 1 - 11 > F ? (int)strlen(b) + 1 - 11 : F;
		}

		fprintf(c->out, "%s%s\n", printed ? "\n" : "", r->groups[g]);
		for (int line = 0; line < 2; line++) {
			fprintf(c->out, "%*s", L + M + 1, "");
			for (int v = 0; v < r->ncolumns; v++) {
				rep_split_name(r->columns[v], a, sizeof(a), b, sizeof(b));
				fprintf(c->out, "%*s", F + 11, line ? b : a);
			}
			fprintf(c->out, "\n");
		}
		for (int st = 0; st < ST_NR; st++)
			for (int i = 0; i < nops; i++) {
				const struct lab_series *base = lab_results_find(r, g, 0, ops[i].im, ops[i].threads);
				double bv = base ? stat_value(base, st) : NAN;

				fprintf(c->out, "%-*s %-*s", L, stat_name(st, ops[i].higher), M, ops[i].name);
				for (int v = 0; v < r->ncolumns; v++) {
					const struct lab_series *s = lab_results_find(r, g, v, ops[i].im, ops[i].threads);
					double val = s ? stat_value(s, st) : NAN, pct;
					bool star;

					if (isnan(val)) {
						fprintf(c->out, "%*s%11s", F, "-", "");
						continue;
					}
					fprintf(c->out, "%*.*f", F, P, val);
					if (v == 0) {
						fprintf(c->out, " (%7.2f%%)", 0.0);
						continue;
					}
					if (isnan(bv)) {
						fprintf(c->out, "%11s", "");
						continue;
					}
					pct = st == ST_STDDEV || st == ST_COEFFVAR || !ops[i].higher ? lab_pndiff(val, bv) :
												       lab_pdiff(val, bv);
					star = st == ST_MEAN && rep_significant(c, s, base);
					fprintf(c->out, " %c%7.2f%%%c", star ? '*' : '(', pct, star ? '*' : ')');
				}
				fprintf(c->out, "\n");
			}
		printed++;
		free(ops);
	}
	return printed;
}
