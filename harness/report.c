/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "report.h"
#include "stats.h"
#include "workload.h"

#define MAXK 256

struct strset {
	const char *s[MAXK];
	int n;
};

static int strset_add(struct strset *set, const char *s)
{
	for (int i = 0; i < set->n; i++)
		if (!strcmp(set->s[i], s))
			return i;
	if (set->n == MAXK)
		return -1;
	set->s[set->n] = s;
	return set->n++;
}

static int strset_find(const struct strset *set, const char *s)
{
	for (int i = 0; i < set->n; i++)
		if (!strcmp(set->s[i], s))
			return i;
	return -1;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Is @m one of the comma-separated names in @list? */
static bool in_list(const char *list, const char *m)
{
	size_t ml = strlen(m);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == ml && !strncmp(p, m, ml))
			return true;
		p += l;
		if (*p == ',')
			p++;
	}
	return false;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (!*s || *end || errno == ERANGE) ? -1 : 0;
}

int lab_report_print(FILE *out, const struct lab_report_opts *o)
{
	static const char *need[] = { "variant", "workload", "threads", "metric", "value", "better" };
	struct lab_csv_table t;
	struct strset wls = { 0 }, vars = { 0 }, mets = { 0 };
	int col[6], threads[MAXK], nthr = 0, base = 0, printed = 0;
	char err[1024];

	if (lab_csv_read(o->path, &t, err, sizeof(err))) {
		fprintf(stderr, "rwlab report: %s\n", err);
		return 1;
	}
	if (t.torn_line)
		fprintf(stderr, "rwlab report: %s:%d: the last line is incomplete (an interrupted write); left out\n",
			o->path, t.torn_line);
	for (int i = 0; i < 6; i++) {
		col[i] = lab_csv_col(&t, need[i]);
		if (col[i] < 0) {
			fprintf(stderr, "rwlab report: %s: missing column '%s' (need: variant, workload, threads, "
				"metric, value, better)\n", o->path, need[i]);
			lab_csv_free(&t);
			return 1;
		}
	}
	for (int r = 0; r < t.nrows; r++) {
		char **f = t.rows[r];
		double v;
		char *end;
		long th = strtol(f[col[2]], &end, 10);
		int k;

		if (!*f[col[2]] || *end || th < 1) {
			fprintf(stderr, "rwlab report: %s:%d: threads '%s' is not a positive integer\n",
				o->path, t.line[r], f[col[2]]);
			lab_csv_free(&t);
			return 1;
		}
		if (parse_double(f[col[4]], &v)) {
			fprintf(stderr, "rwlab report: %s:%d: value '%s' is not a number\n", o->path, t.line[r],
				f[col[4]]);
			lab_csv_free(&t);
			return 1;
		}
		if (strset_add(&wls, f[col[1]]) < 0 || strset_add(&vars, f[col[0]]) < 0 ||
		    strset_add(&mets, f[col[3]]) < 0) {
			fprintf(stderr, "rwlab report: %s: more than %d distinct workloads, variants or metrics\n",
				o->path, MAXK);
			lab_csv_free(&t);
			return 1;
		}
		for (k = 0; k < nthr && threads[k] != (int)th; k++)
			;
		if (k == nthr && nthr < MAXK)
			threads[nthr++] = (int)th;
	}
	qsort(threads, (size_t)nthr, sizeof(int), cmp_int);
	if (o->baseline) {
		base = strset_find(&vars, o->baseline);
		if (base < 0) {
			fprintf(stderr, "rwlab report: baseline '%s' is not in %s (variants: ", o->baseline, o->path);
			for (int i = 0; i < vars.n; i++)
				fprintf(stderr, "%s%s", i ? ", " : "", vars.s[i]);
			fprintf(stderr, ")\n");
			lab_csv_free(&t);
			return 1;
		}
	}
	if (o->metric && strset_find(&mets, o->metric) < 0) {
		fprintf(stderr, "rwlab report: metric '%s' is not in %s\n", o->metric, o->path);
		lab_csv_free(&t);
		return 1;
	}

	for (int w = 0; w < wls.n; w++) {
		char wname[64];
		const struct lab_workload_ops *wops;

		snprintf(wname, sizeof(wname), "%.*s", (int)strcspn(wls.s[w], ":"), wls.s[w]);
		wops = lab_workload_lookup(wname);
		for (int m = 0; m < mets.n; m++) {
			const char *better = NULL;
			bool higher;
			double *vals = NULL;
			int vcap = 0;

			if (o->metric ? strcmp(mets.s[m], o->metric) :
				  !(wops ? in_list(wops->headline, mets.s[m]) : false))
				continue;
			/* Find whether this (workload, metric) occurs and its direction. */
			for (int r = 0; r < t.nrows && !better; r++)
				if (!strcmp(t.rows[r][col[1]], wls.s[w]) && !strcmp(t.rows[r][col[3]], mets.s[m]))
					better = t.rows[r][col[5]];
			if (!better)
				continue;
			higher = strcmp(better, "lower") != 0;
			fprintf(out, "\n%s  %s  (%s; %s of iterations, +-stddev%%, change vs %s)\n", wls.s[w],
				mets.s[m], higher ? "higher is better" : "lower is better",
				higher ? "Hmean" : "Amean", vars.s[base]);
			fprintf(out, "%-8s", "threads");
			for (int v = 0; v < vars.n; v++)
				fprintf(out, " %32.32s", vars.s[v]);
			fprintf(out, "\n");
			for (int ti = 0; ti < nthr; ti++) {
				double basev = NAN;
				bool any = false;
				struct lab_buf line = { 0 };	/* one column per variant: no fixed width */

				lab_buf_printf(&line, "%-8d", threads[ti]);
				for (int v = 0; v < vars.n; v++) {
					int nv = 0;
					double c, sd;
					char cell[64];

					for (int r = 0; r < t.nrows; r++) {
						char **f = t.rows[r];

						if (strcmp(f[col[1]], wls.s[w]) || strcmp(f[col[3]], mets.s[m]) ||
						    strcmp(f[col[0]], vars.s[v]) || atoi(f[col[2]]) != threads[ti])
							continue;
						if (nv == vcap) {
							vcap = vcap ? 2 * vcap : 64;
							vals = realloc(vals, (size_t)vcap * sizeof(double));
							if (!vals)
								abort();
						}
						parse_double(f[col[4]], &vals[nv++]);
					}
					if (!nv) {
						lab_buf_printf(&line, " %32s", "-");
						continue;
					}
					any = true;
					c = higher ? lab_hmean(vals, nv) : lab_amean(vals, nv);
					if (isnan(c))
						c = lab_amean(vals, nv);
					sd = nv > 1 ? lab_stddev(vals, nv) : 0;
					if (v == base)
						basev = c;
					if (v == base || isnan(basev) || basev == 0)
						snprintf(cell, sizeof(cell), "%.4g +-%4.1f%% (%s)", c,
							 c ? 100 * sd / fabs(c) : 0, v == base ? "base" : "   -");
					else
						snprintf(cell, sizeof(cell), "%.4g +-%4.1f%% (%+6.1f%%)", c,
							 c ? 100 * sd / fabs(c) : 0,
							 100 * (higher ? c / basev - 1 : 1 - c / basev));
					lab_buf_printf(&line, " %32s", cell);
				}
				if (any) {
					fprintf(out, "%s\n", line.p);
					printed++;
				}
				lab_buf_free(&line);
			}
			free(vals);
		}
	}
	if (!printed)
		fprintf(out, "%s: no rows to report%s\n", o->path, o->metric ? " for that metric" : "");
	lab_csv_free(&t);
	return 0;
}
