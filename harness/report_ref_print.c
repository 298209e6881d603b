/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The verdict table as text (the comparison under every report with
 * --reference) and as the json format's "reference" member, from the rows
 * report_ref.c computes (report_ref.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report_impl.h"
#include "report_ref.h"
#include "stats.h"

/* ---- summaries ---------------------------------------------------------------------- */

struct vsum {
	int count[LAB_V_NR];
	int same, opposite, ours_ns, pub_ns, pub_ns_ours_sig;	/* direction */
	int within, outside;					/* size, over same-direction rows */
	double rmin, rmax, *ratios;
	int nratios;
};

static void summarise(const struct lab_vtab *vt, int from, int to, struct vsum *s)
{
	memset(s, 0, sizeof(*s));
	s->rmin = INFINITY, s->rmax = -INFINITY;
	s->ratios = malloc((size_t)(to > from ? to - from : 1) * sizeof(double));
	if (!s->ratios)
		abort();
	for (int i = from; i < to; i++) {
		const struct lab_vrow *row = &vt->row[i];

		s->count[row->v]++;
		switch (row->v) {
		case LAB_V_AGREE:
		case LAB_V_AGREE_DIRECTION:
			s->same++;
			if (row->ratio <= LAB_VERDICT_SIZE_FACTOR && row->ratio >= 1 / LAB_VERDICT_SIZE_FACTOR)
				s->within++;
			else
				s->outside++;
			s->rmin = fmin(s->rmin, row->ratio);
			s->rmax = fmax(s->rmax, row->ratio);
			s->ratios[s->nratios++] = row->ratio;
			break;
		case LAB_V_DISAGREE:
			s->opposite++;
			break;
		case LAB_V_INCONCLUSIVE:
			s->ours_ns++;
			break;
		case LAB_V_PUBLISHED_FLAT:
			s->pub_ns++;
			s->pub_ns_ours_sig += row->sig;
			break;
		default:
			break;
		}
	}
}

void lab_vtab_print_summary(FILE *f, const struct lab_vtab *vt, int from, int to, const char *indent)
{
	struct vsum s;
	int counted = 0;

	summarise(vt, from, to, &s);
	for (int v = 0; v < LAB_V_NR; v++)
		counted += v != LAB_V_NA && v != LAB_V_NOT_COMPARABLE ? s.count[v] : 0;
	fprintf(f, "%sagree %d, agree-direction %d, disagree %d, inconclusive %d, published-flat %d, scale-gap %d of %d "
		   "row%s (%s); not counted: not-comparable %d, n/a %d\n",
		indent, s.count[LAB_V_AGREE], s.count[LAB_V_AGREE_DIRECTION], s.count[LAB_V_DISAGREE],
		s.count[LAB_V_INCONCLUSIVE], s.count[LAB_V_PUBLISHED_FLAT], s.count[LAB_V_SCALE_GAP], counted,
		counted == 1 ? "" : "s", rep_sig_name(vt->sig), s.count[LAB_V_NOT_COMPARABLE], s.count[LAB_V_NA]);
	fprintf(f, "%sdirection: same %d, opposite %d (both significant); rwlab not significant %d; published not "
		   "significant %d (rwlab significant there: %d)\n",
		indent, s.same, s.opposite, s.ours_ns, s.pub_ns, s.pub_ns_ours_sig);
	if (s.nratios) {
		char lo[32], hi[32], med[32];

		fprintf(f, "%ssize (rwlab / published change, same-direction rows): within %gx %d, outside %d; %s to %s, "
			   "median %s\n",
			indent, LAB_VERDICT_SIZE_FACTOR, s.within, s.outside, lab_verdict_ratio_str(s.rmin, lo, sizeof(lo)),
			lab_verdict_ratio_str(s.rmax, hi, sizeof(hi)),
			lab_verdict_ratio_str(lab_median(s.ratios, s.nratios), med, sizeof(med)));
	} else {
		fprintf(f, "%ssize (rwlab / published change, same-direction rows): none to compare\n", indent);
	}
	free(s.ratios);
}

void lab_vtab_print_rule(FILE *f, const struct lab_vtab *vt)
{
	const struct lab_refmap *map = vt->map;

	fprintf(f, "rule: published significance as its table marks it (mmtests '*' yes, '( )' no; LKP from its "
		   "printed %%stddev and ratio floor; unmarked: '?'); rwlab significant = %s (%s) and |change| >= "
		   "the minimum effect\n",
		rep_sig_name(vt->sig), vt->sig_from);
	for (int k = 0; k < map->nmet; k++) {
		const struct lab_vmetric *m = &vt->met[k];
		char noise[160] = "no cell with 2+ iterations";

		if (!isnan(m->noise_pct))
			snprintf(noise, sizeof(noise), "the rule at the median spread %.3g%% of %d cells (n %d): %.3g%%",
				 m->floor_pct, m->cells, m->n, m->noise_pct);
		else if (m->cells)
			snprintf(noise, sizeof(noise), "median spread %.3g%% of %d cells; no rule", m->floor_pct, m->cells);
		fprintf(f, "minimum effect, %s | %s: %.3g%% = max(%s; floor %.3g%%, --min-effect)\n", map->met[k].bench,
			map->met[k].metric, m->min_effect, noise, vt->min_floor);
	}
	fprintf(f, "agree: both significant, same direction, rwlab's change within %gx of the published; agree-direction: "
		   "same direction, size outside %gx or the published change unmarked (ratio printed)\n",
		LAB_VERDICT_SIZE_FACTOR, LAB_VERDICT_SIZE_FACTOR);
	fprintf(f, "change = 100 (new/base - 1) on both sides: for lower-is-better metrics (seconds, switches) a negative "
		   "change is an improvement\n");
}

/* ---- text and json ------------------------------------------------------------------- */

static void threads_str(int th, char *buf, size_t len)
{
	if (th < 0)
		snprintf(buf, len, "-");
	else if (th == 0)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%d", th);
}

/* A change with its significance as the tables mark it: "-9.9%*", "(+0.8%)", "+3.0%?". */
static void marked_pct(double pct, int sig, char *buf, size_t len)
{
	char p[32];

	lab_fmt_pct(pct, p, sizeof(p));
	if (isnan(pct))
		snprintf(buf, len, "-");
	else if (sig == LAB_PUB_SIGNIFICANT)
		snprintf(buf, len, "%s*", p);
	else if (sig == LAB_PUB_NOT_SIGNIFICANT)
		snprintf(buf, len, "(%s)", p);
	else
		snprintf(buf, len, "%s?", p);
}

void rep_vrow_cells(const struct lab_vrow *row, char cells[REP_VROW_CELLS][64])
{
	char q[32];

	snprintf(cells[0], 64, "%s", row->clients);
	lab_fmt_num(row->pb, cells[1], 64);
	if (isnan(row->pb) && !isnan(row->pch))	/* the published figure is the change itself: not a value of new's */
		snprintf(cells[2], 64, "-");
	else
		lab_fmt_num(row->pn, cells[2], 64);
	marked_pct(row->pch, row->pub, cells[3], 64);
	threads_str(row->th, cells[4], 64);
	lab_fmt_num(row->ob, cells[5], 64);
	lab_fmt_num(row->on, cells[6], 64);
	marked_pct(row->och, row->sig ? LAB_PUB_SIGNIFICANT : LAB_PUB_NOT_SIGNIFICANT, cells[7], 64);
	if (row->v == LAB_V_AGREE || row->v == LAB_V_AGREE_DIRECTION)
		snprintf(cells[8], 64, "%s (%s)", lab_verdict_name(row->v), lab_verdict_ratio_str(row->ratio, q, sizeof(q)));
	else
		snprintf(cells[8], 64, "%s", lab_verdict_name(row->v));
}

static void print_row(FILE *f, const struct lab_vrow *row)
{
	char b[REP_VROW_CELLS][64];

	rep_vrow_cells(row, b);
	fprintf(f, "%-7s %10s %10s %9s | %7s %10s %10s %9s | %s\n", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
		b[8]);
	if (row->why[0])
		fprintf(f, "%8s(%s)\n", "", row->why);
}

void rep_vblock_heading(const struct lab_vtab *vt, const struct lab_vrow *row, char *what, size_t wlen, char *cols,
			size_t clen)
{
	const struct lab_refmap *map = vt->map;
	int k = row->k;
	const char *metric = vt->met[k].metric, *rule = NULL;

	/* the block's rule: its first row with a published change has one (report_ref.c published_sig()) */
	for (int i = 0; i < vt->n && !rule; i++)
		if (vt->row[i].k == k && vt->row[i].col == row->col)
			rule = vt->row[i].rule;
	snprintf(what, wlen, "%s | %s (published marks: %s)  <->  rwlab %s %s (%s)", map->met[k].bench,
		 map->met[k].metric, rule ? rule : "none", map->met[k].workload, *metric ? metric : map->met[k].ours,
		 map->met[k].sum ? "total over iterations" : "Hmean or Amean of iterations");
	snprintf(cols, clen, "published: base %s, new %s; rwlab: base %s, new %s", map->col[0].ref, map->col[row->col].ref,
		 map->col[0].ours, map->col[row->col].ours);
}

static void block_header(const struct lab_rctx *c, const struct lab_vtab *vt, const struct lab_vrow *row)
{
	char what[1024], cols[1024];

	rep_vblock_heading(vt, row, what, sizeof(what), cols, sizeof(cols));
	fprintf(c->out, "\n%s\n%s\n", what, cols);
	fprintf(c->out, "%-7s %10s %10s %9s | %7s %10s %10s %9s | verdict\n", "clients", "base", "new", "change",
		rep_count_unit(vt->map->met[row->k].workload), "base", "new", "change");
}

void rep_vtab_title(const struct lab_rctx *c, const struct lab_vtab *vt, char *buf, size_t len)
{
	const struct lab_results *r = c->r;
	const struct lab_report_opts *o = c->o;
	const struct lab_refmap *map = vt->map;
	char cpus[300];

	snprintf(buf, len, "%s%spublished %s%s%s vs rwlab %s (%s, %s)", o->title ? o->title : "",
		 o->title ? ": " : "", o->reference, map->machine[0] ? ", " : "", map->machine, r->path,
		 lab_fmt_cpus(lab_results_ctx(r, LAB_CSV_NAME(cpus)), cpus, sizeof(cpus)),
		 lab_results_ctx(r, LAB_CSV_NAME(cpu_model)));
}

void rep_vtab_print_tail(const struct lab_rctx *c, const struct lab_vtab *vt)
{
	lab_vtab_print_summary(c->out, vt, 0, vt->n, "");
	fprintf(c->out, "(published-flat rows where rwlab's change is not significant either: %d of %d; "
			"* significant, ( ) not, ? the table prints no significance)\n",
		vt->flat_quiet, vt->count[LAB_V_PUBLISHED_FLAT]);
	lab_vtab_print_rule(c->out, vt);
}

static void print_text(const struct lab_rctx *c, const struct lab_vtab *vt)
{
	char title[2048];
	int from = 0;

	rep_vtab_title(c, vt, title, sizeof(title));
	fprintf(c->out, "\n%s\n", title);
	for (int i = 0; i < vt->n; i++) {
		const struct lab_vrow *row = &vt->row[i];

		if (!i || row->k != vt->row[i - 1].k || row->col != vt->row[i - 1].col)
			block_header(c, vt, row), from = i;
		print_row(c->out, row);
		if (i + 1 == vt->n || vt->row[i + 1].k != row->k || vt->row[i + 1].col != row->col)
			lab_vtab_print_summary(c->out, vt, from, i + 1, "  ");
	}
	fputc('\n', c->out);
	rep_vtab_print_tail(c, vt);
}

static void json_row(FILE *f, const struct lab_vtab *vt, const struct lab_vrow *row)
{
	const double nums[] = { row->pb, row->pn, row->pch, row->psb, row->psn, row->ob, row->on, row->och, row->sb,
				row->sn, row->ratio, vt->met[row->k].min_effect };
	static const char *const keys[] = { "published_base", "published_new", "published_change_pct",
					    "published_base_sd", "published_new_sd", "rwlab_base", "rwlab_new",
					    "rwlab_change_pct", "rwlab_base_spread_pct", "rwlab_new_spread_pct",
					    "size_ratio", "min_effect_pct" };
	const char *strs[][2] = { { "benchmark", row->bench }, { "metric", row->metric }, { "variant", row->variant },
				  { "clients", row->clients }, { "published_mark", row->mark },
				  { "published_rule", row->rule }, { "published_significance", lab_pub_sig_name(row->pub) },
				  { "published_why", row->pub_why } };

	fputc('{', f);
	for (size_t j = 0; j < sizeof(strs) / sizeof(strs[0]); j++) {
		fprintf(f, "%s\"%s\": ", j ? ", " : "", strs[j][0]);
		rep_json_str(f, strs[j][1]);
	}
	fprintf(f, ", \"threads\": %d", row->th);
	for (size_t j = 0; j < sizeof(nums) / sizeof(nums[0]); j++) {
		fprintf(f, ", \"%s\": ", keys[j]);
		rep_json_num(f, nums[j]);
	}
	fprintf(f, ", \"rwlab_rule_significant\": %s, \"rwlab_significant\": %s, \"verdict\": ",
		row->rule_sig ? "true" : "false", row->sig ? "true" : "false");
	rep_json_str(f, lab_verdict_name(row->v));
	fputs(", \"why\": ", f);
	rep_json_str(f, row->why);
	fputc('}', f);
}

static void print_json(const struct lab_rctx *c, const struct lab_vtab *vt)
{
	const struct lab_refmap *map = vt->map;
	FILE *f = c->out;
	struct vsum s;

	fputs(",\n  \"reference\": {\n    \"published\": ", f);
	rep_json_str(f, c->o->reference);
	fputs(",\n    \"machine\": ", f);
	rep_json_str(f, map->machine);
	fprintf(f, ",\n    \"published_cpus\": %d,\n    \"test\": ", map->cpus);
	rep_json_str(f, rep_sig_name(vt->sig));
	fputs(",\n    \"test_from\": ", f);
	rep_json_str(f, vt->sig_from);
	fprintf(f, ",\n    \"size_factor\": %g,\n    \"min_effect_floor_pct\": %g,\n    \"metrics\": [",
		LAB_VERDICT_SIZE_FACTOR, vt->min_floor);
	for (int k = 0; k < map->nmet; k++) {
		fprintf(f, "%s{\"benchmark\": ", k ? ", " : "");
		rep_json_str(f, map->met[k].bench);
		fputs(", \"metric\": ", f);
		rep_json_str(f, map->met[k].metric);
		fputs(", \"noise_floor_pct\": ", f);
		rep_json_num(f, vt->met[k].floor_pct);
		fprintf(f, ", \"noise_cells\": %d, \"noise_iterations\": %d, \"noise_change_pct\": ", vt->met[k].cells,
			vt->met[k].n);
		rep_json_num(f, vt->met[k].noise_pct);
		fputs(", \"min_effect_pct\": ", f);
		rep_json_num(f, vt->met[k].min_effect);
		fputc('}', f);
	}
	fputs("],\n    \"rows\": [", f);
	for (int i = 0; i < vt->n; i++) {
		fputs(i ? ",\n      " : "\n      ", f);
		json_row(f, vt, &vt->row[i]);
	}
	summarise(vt, 0, vt->n, &s);
	fprintf(f, "\n    ],\n    \"summary\": {\"agree\": %d, \"agree_direction\": %d, \"disagree\": %d, "
		   "\"inconclusive\": %d, \"published_flat\": %d, \"scale_gap\": %d, \"rows\": %d, "
		   "\"not_comparable\": %d, \"not_compared\": %d, \"published_flat_rwlab_not_significant\": %d, "
		   "\"direction\": {\"same\": %d, \"opposite\": %d, \"rwlab_not_significant\": %d, "
		   "\"published_not_significant\": %d}, \"size\": {\"within\": %d, \"outside\": %d}}\n  }",
		vt->count[LAB_V_AGREE], vt->count[LAB_V_AGREE_DIRECTION], vt->count[LAB_V_DISAGREE],
		vt->count[LAB_V_INCONCLUSIVE], vt->count[LAB_V_PUBLISHED_FLAT], vt->count[LAB_V_SCALE_GAP],
		lab_vtab_counted(vt), vt->count[LAB_V_NOT_COMPARABLE], vt->count[LAB_V_NA], vt->flat_quiet, s.same,
		s.opposite, s.ours_ns, s.pub_ns, s.within, s.outside);
	free(s.ratios);
}

void rep_reference(struct lab_rctx *c)
{
	print_text(c, c->vt);
}

void rep_reference_json(struct lab_rctx *c)
{
	print_json(c, c->vt);
}
