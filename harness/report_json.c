/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab report --format json`: one JSON object with the results' context,
 * the significance rule, every selected series (one per group, column,
 * metric and thread count) and, with --reference, the verdict rows and
 * their summary (report_ref.c). Numbers that are undefined (a Hmean over a
 * value <= 0, a spread of one value; the baseline's change and Welch p
 * against itself) are null. A series has the fields of a row of -f csv,
 * under the same names but mean_kind (csv: stat) and coeffvar_pct (csv:
 * coeffvar), and its values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"
#include "stats.h"

void rep_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void rep_json_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.10g", v);
}

static void num(FILE *f, const char *key, double v)
{
	fprintf(f, ", \"%s\": ", key);
	rep_json_num(f, v);
}

static void str(FILE *f, const char *key, const char *v, bool first)
{
	fprintf(f, "%s\"%s\": ", first ? "" : ", ", key);
	rep_json_str(f, v);
}

static void series(const struct lab_rctx *c, const struct lab_series *s, const struct lab_series *base)
{
	FILE *f = c->out;
	bool h = rep_higher(s);
	const char *spread;

	fputs("{", f);
	str(f, "group", s->group, true);
	str(f, "column", s->column, false);
	str(f, "workload", s->workload, false);
	str(f, "metric", s->metric, false);
	str(f, "unit", s->unit, false);
	str(f, "better", s->better == LAB_BETTER_HIGHER ? "higher" : s->better == LAB_BETTER_LOWER ? "lower" : "none",
	    false);
	fprintf(f, ", \"threads\": %d, \"n\": %d", s->threads, s->n);
	str(f, "mean_kind", h ? "hmean" : "amean", false);
	num(f, "mean", rep_mean(s));
	rep_spread(s, &spread);
	str(f, "spread_stat", spread, false);
	num(f, "stddev", rep_spread_sd(s));
	num(f, "coeffvar_pct", rep_spread(s, NULL));
	num(f, "min", lab_min(s->v, s->n));
	num(f, "max", lab_max(s->v, s->n));
	num(f, "change_pct", base && s != base ? rep_change(s, base) : NAN);
	fputs(", \"flag\": ", f);
	if (rep_flag(s))
		rep_json_str(f, rep_flag(s));
	else
		fputs("null", f);
	fprintf(f, ", \"significant\": %s", rep_significant(c, s, base) ? "true" : "false");
	num(f, "welch_p", base && s != base ? lab_welch_p(base->v, base->n, s->v, s->n) : NAN);
	fputs(", \"values\": [", f);
	for (int i = 0; i < s->n; i++)
		fprintf(f, "%s%.10g", i ? ", " : "", s->v[i]);
	fputs("]}", f);
}

int rep_json(struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	FILE *f = c->out;
	int printed = 0;

	fputs("{\n  ", f);
	str(f, "file", r->path, true);
	fputs(",\n  \"context\": {", f);
	for (int i = 0, first = 1; i < LAB_CSV_NCOLS; i++) {	/* csv.h's LAB_CSV_JSON columns */
		const char *name = lab_csv_schema[i].name, *v;
		char *end;
		long n;

		if (i < LAB_CSV_FIRST_CONTEXT || !(lab_csv_schema[i].readers & LAB_CSV_JSON))
			continue;
		v = lab_results_ctx(r, name);
		n = v ? strtol(v, &end, 10) : 0;
		if (i == LAB_CSV_COL_cpus && v && *v && !*end && n > 0)	/* a count is a JSON number */
			fprintf(f, "%s\"%s\": %ld", first ? "" : ", ", name, n);
		else
			str(f, name, v, first);
		first = 0;
	}
	fputs("},\n  ", f);
	if (r->ncolumns)
		str(f, "baseline", r->columns[0], true);
	else
		fputs("\"baseline\": null", f);	/* a header and no row: no column to compare against */
	fputs(", ", f);
	str(f, "significance", rep_sig_name(c->o->sig), true);
	fputs(",\n  \"series\": [", f);
	for (int g = 0; g < r->ngroups; g++)
		for (int m = 0; m < r->nmetrics; m++)
			for (int ti = 0; ti < r->nthreads; ti++) {
				const struct lab_series *base = lab_results_find(r, g, 0, m, r->threads[ti]);

				for (int v = 0; v < r->ncolumns; v++) {
					const struct lab_series *s = lab_results_find(r, g, v, m, r->threads[ti]);

					if (!s || !rep_wanted(c, s))
						continue;
					fputs(printed++ ? ",\n    " : "\n    ", f);
					series(c, s, base);
				}
			}
	fputs("\n  ]", f);
	if (c->vt && !c->o->verdicts_unprinted)
		rep_reference_json(c);
	fputs("\n}\n", f);
	return printed ? printed : 1;	/* an empty series list is still a complete document */
}
