/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Verdicts: a published table's rows against rwlab's results, one claim per
 * row (README "Reports and verdicts"). The one place verdicts are computed;
 * every format that shows them (the text comparison, json, html) reads the
 * rows and the summary from struct lab_vtab.
 *
 * A row is one published (benchmark, metric, variant, client count) against
 * the rwlab cells its map points at. Both changes are 100 (new/base - 1).
 * Each side has a significance:
 *
 *   published  as its table printed it (results/reference/ tables, columns
 *              mark and rule): mmtests "*" significant, "( )" not (rule
 *              mmtests-ttest or mmtests-ci); LKP "±N%" is its %stddev, shown
 *              only above 2% (rule lkp: significant when the change passes
 *              LKP's ratio floor, 1.01 for the benchmark's own stats and
 *              1.05 for the others, lib/changed_stat.rb, and the printed
 *              spreads, unprinted ones taken at their 2% bound, do not
 *              overlap at 1.96 sd); with no rule (none printed) the table's
 *              stddev/coeffvar rows under the interval rule, else the thread's
 *              own words (map.flat), else "unmarked" (|change| below --flat:
 *              flat).
 *   rwlab      the significance rule (--significance; by default the rule
 *              the published marks were drawn with: the t-test, p < 0.10,
 *              for mmtests-ttest tables, the interval rule otherwise) AND
 *              |change| at least the minimum effect: the larger of --min-effect
 *              (default 1%: LKP's floor for reporting a change in a
 *              benchmark's own metric, lib/changed_stat.rb) and the run's
 *              noise term, the change the same rule would need between two
 *              cells with the median spread of the run's cells of that metric
 *              (ci: 1.96 x 2 x median CoeffVar; ttest: t(0.95, 2n-2) x
 *              sqrt(2/n) x median CoeffVar, n the median iterations).
 *
 * Classes, checked in this order (enum lab_verdict):
 *   n/a             a side is missing, or a smaller published count maps to the
 *                   same rwlab thread count (not counted)
 *   not-comparable  the matrix says why (map.not_comparable; not counted)
 *   scale-gap       rwlab's threads more than 4x away from the published
 *                   clients, or oversubscribed where the published were not
 *   published-flat  the published change is not significant by its own mark
 *   inconclusive    rwlab's change is not significant (the rule, or below the
 *                   minimum effect)
 *   disagree        both significant, opposite directions
 *   agree           both significant (the published by its mark), same
 *                   direction, rwlab's change within 2x of the published one
 *   agree-direction same direction, but the size is outside 2x (the ratio is
 *                   printed), or the published change carries no mark
 *
 * Threading: none; everything is owned by the struct lab_vtab.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report.h"
#include "results.h"

enum lab_verdict {
	LAB_V_AGREE,
	LAB_V_AGREE_DIRECTION,
	LAB_V_DISAGREE,
	LAB_V_INCONCLUSIVE,
	LAB_V_PUBLISHED_FLAT,
	LAB_V_NOT_COMPARABLE,
	LAB_V_SCALE_GAP,
	LAB_V_NA,
	LAB_V_NR
};

/* "agree", "agree-direction", ... "n/a". */
const char *lab_verdict_name(enum lab_verdict v);

/* The published side's significance, as its table printed it. */
enum lab_pub_sig {
	LAB_PUB_SIGNIFICANT,		/* marked significant (or its rule says so from printed spreads) */
	LAB_PUB_NOT_SIGNIFICANT,	/* marked not significant, or the thread's words call it noise */
	LAB_PUB_UNMARKED,		/* the table prints no significance for it */
};
const char *lab_pub_sig_name(enum lab_pub_sig s);	/* "significant", "not significant", "unmarked" */

/* Within this factor of the published change (either way) a same-direction change "agrees" in size. */
#define LAB_VERDICT_SIZE_FACTOR 2.0
/* The default floor of the minimum effect, percent (LKP lib/changed_stat.rb: ratio > 1.01). */
#define LAB_VERDICT_MIN_EFFECT 1.0

/*
 * lab_verdict_judge() - the class of a compared row from its two changes
 * (percent, same sign convention), the published significance, and whether
 * rwlab's change passed its rule and the minimum effect. Only the last five
 * classes come from here (n/a, not-comparable and scale-gap are decided
 * before). @ratio (may be NULL) gets och / pch for same-direction rows, NaN
 * otherwise.
 */
enum lab_verdict lab_verdict_judge(double pch, enum lab_pub_sig pub, double och, bool our_sig, double *ratio);
/* A size ratio as the tables print it: "0.33x", "2.90x", "25x" (into @buf; returns it). */
const char *lab_verdict_ratio_str(double q, char *buf, size_t len);

struct lab_vrow {
	int k, col;			/* map.metric and map.column indexes */
	const char *bench, *metric;	/* published benchmark and metric (the map's strings) */
	const char *variant;		/* published variant of the column */
	const char *clients;		/* published clients */
	double pb, pn, pch;		/* published baseline, variant, change (%) */
	double psb, psn;		/* published standard deviations (NaN: none printed) */
	char mark[16];			/* the published mark of the variant's cell as printed ("*", "( )", "±3%", "") */
	const char *rule;		/* the mark's rule: mmtests-ttest, mmtests-ci, lkp, none */
	enum lab_pub_sig pub;
	char pub_why[320];		/* how the published significance was read (the thread's words whole) */
	int th;				/* rwlab threads: -1 none, 0 every count pooled */
	double ob, on, och;		/* rwlab's baseline, column, change (%) */
	int nb, nn;			/* rwlab iterations behind ob and on */
	double sb, sn;			/* rwlab's spread of each cell (the spread statistic, %) */
	bool rule_sig;			/* rwlab's change passes the significance rule */
	bool sig;			/* ... and is at least the minimum effect: significant */
	double ratio;			/* och / pch on same-direction rows, else NaN */
	enum lab_verdict v;
	char why[512];			/* the reason, for every class but agree */
};

struct lab_vmetric {
	char metric[96];		/* rwlab's metric ("headline" resolved), "" when the workload is unknown */
	double floor_pct;		/* the run's noise floor: median spread (%) of its cells of the metric */
	int cells;			/* how many cells (n >= 2) it is the median of */
	int n;				/* the median iterations per cell */
	double noise_pct;		/* the rule's change for two cells at that spread */
	double min_effect;		/* max(noise_pct, the floor option): no smaller change is significant */
};

struct lab_vtab {
	struct lab_vrow *row;
	int n;
	int count[LAB_V_NR];
	int flat_quiet;			/* published-flat rows where rwlab's change is not significant either */
	enum lab_report_sig sig;	/* rwlab's rule as applied */
	const char *sig_from;		/* why that rule: "--significance", "the table's marks (mmtests-ttest)", ... */
	double min_floor;		/* --min-effect */
	struct lab_vmetric met[LAB_REFMAP_METRICS];	/* per map.metric */
	const struct lab_refmap *map;	/* the map used (o->map, or the identity map held in idmap) */
	struct lab_refmap idmap;
	void *ref;			/* the published table (internal) */
};

/*
 * lab_min_effect() - the minimum effect of metric @im of workload @workload
 * (a label, a spec the registry normalises, or a name: every label of it)
 * among @r's cells under rule @sig, into @vm: the run's noise floor (the
 * median spread of the cells of that workload and metric with two or more
 * iterations; @sum: of their totals, a CoeffVar), the change @sig needs
 * between two cells of that spread (the noise term; NaN under
 * LAB_SIG_NONE or without such a cell), and the larger of it and
 * @floor_pct: no smaller change is significant. The verdicts take it per
 * map.metric; the readable tables' stars take the verdicts' figure where a
 * map.metric judges the cell's workload and metric (lab_vtab_metric()), else
 * this of the cell's workload label and metric. Threading: pure.
 */
void lab_min_effect(const struct lab_results *r, const char *workload, int im, bool sum, enum lab_report_sig sig,
		    double floor_pct, struct lab_vmetric *vm);
/* The floor of the minimum effect, percent: @o's --min-effect, else LAB_VERDICT_MIN_EFFECT. */
double lab_min_effect_floor(const struct lab_report_opts *o);

/*
 * lab_report_sig_resolve() - the significance rule of rwlab's side, the
 * verdicts' and the readable tables' stars alike: @o->sig where given
 * (--significance, or the matrix's significance key), else @marks, the rule
 * the published table's marks were drawn with (LAB_SIG_AUTO: none, or no
 * table), else @o->era's (ttest for 2019), else ci. *@from (when not NULL)
 * says which, in words. Threading: pure.
 */
enum lab_report_sig lab_report_sig_resolve(const struct lab_report_opts *o, enum lab_report_sig marks,
					   const char **from);

/*
 * lab_ref_check() - @path is a published table lab_vtab_compute() can read (a CSV with its columns and
 * numeric values): 0, or -1 with a one-line why in @err.
 */
int lab_ref_check(const char *path, char *err, size_t len);

/*
 * lab_vtab_compute() - every verdict row of @o->reference against @r, with
 * @o->map (NULL: identity by names). @o->sig LAB_SIG_AUTO takes the rule the
 * published marks were drawn with. Returns 0, or 2 with a one-line error on
 * stderr (bad input: a table that cannot be read, is empty, lacks a column
 * or holds a value that is no number, a map.metric with no rows, no mapping
 * and no name shared). Free with lab_vtab_free() in both cases.
 */
int lab_vtab_compute(const struct lab_report_opts *o, const struct lab_results *r, struct lab_vtab *vt);
void lab_vtab_free(struct lab_vtab *vt);

/*
 * lab_vtab_metric() - the minimum effect the verdicts judge metric @metric of
 * workload label @label by: that of the first map.metric whose workload
 * (a label, or a name: each label of it) and rwlab metric match, its
 * workload into *@workload; NULL when no map.metric judges it.
 */
const struct lab_vmetric *lab_vtab_metric(const struct lab_vtab *vt, const char *label, const char *metric,
					  const char **workload);

/* Rows counted in the summary (every class but n/a and not-comparable). */
int lab_vtab_counted(const struct lab_vtab *vt);

/*
 * lab_vtab_print_summary() - the summary lines of rows [@from, @to): the
 * classes, then "direction: ..." and "size: ..." (see README). @indent is
 * printed before each line.
 */
void lab_vtab_print_summary(FILE *f, const struct lab_vtab *vt, int from, int to, const char *indent);
/* lab_vtab_print_rule() - the rule and its thresholds, as printed under every verdict table. */
void lab_vtab_print_rule(FILE *f, const struct lab_vtab *vt);
