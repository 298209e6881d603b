/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals shared by the report formats (harness/report*.c). Not a public
 * interface: the formats are reached through lab_report_print().
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "report.h"
#include "results.h"

/* The minimum effects rep_min_effect() looked up, once per (workload, metric): the rule line names them. */
struct rep_effects {
	struct rep_effect {
		const char *workload;
		int im;
		double min_effect;	/* lab_min_effect()'s, percent */
	} *e;
	int n;
};

/* One entry of -w: as typed, and as run writes it (lab_results_workload_label()). */
struct rep_wl {
	char *typed, *label;
};

struct lab_vtab;

struct lab_rctx {
	FILE *out;
	const struct lab_report_opts *o;	/* the options, the significance rule resolved (the verdicts') */
	struct lab_results *r;
	const struct lab_report_opts *asked;	/* as the caller gave them (LAB_SIG_AUTO kept: the verdicts' default) */
	struct rep_effects *fx;			/* NULL: each looked up anew, none named */
	const struct rep_wl *wl;		/* o->workload read as run reads -w; NULL: every workload */
	int nwl;				/* how many entries */
	const struct lab_vtab *vt;		/* o->reference's verdicts, computed before any table; NULL: none */
};

/* Is the series selected by --metric (or the workload's headline) and --workload? */
bool rep_wanted(const struct lab_rctx *c, const struct lab_series *s);
/* Is the series' workload kept by --workload? */
bool rep_workload_kept(const struct lab_rctx *c, const char *workload);
/*
 * rep_several_fault_paths() - does one variant run one workload over two or
 * more fault paths (the mm_lock modes, run --mm-lock), and has every row
 * @kept keeps a fault path? Then report and plot compare the paths side by
 * side (--by fault_path), named as the kernel's threads name them, unless
 * --by, a --baseline that names a variant or a matrix's mapping says
 * otherwise (rep_load()). A row without one
 * (locktest beside pft) keeps the variants side by side: under fault_path it
 * would stand alone, a table per variant of one column, "no fault path".
 * With one variant in the file the paths are still compared: by variant
 * nothing would be.
 */
typedef bool (*rep_kept_fn)(const void *arg, const char *workload);
bool rep_several_fault_paths(const struct lab_results *r, rep_kept_fn kept, const void *arg);
/*
 * rep_load() - @r read from @paths as report and plot group it: by lo->by
 * where given; else by variant, or by fault path where one variant ran
 * several (rep_several_fault_paths() of the rows lo->kept keeps), unless
 * lo->no_paths (a matrix's mapping names the columns). lo->baseline may name
 * a column of either: a variant compares the variants, a fault path keeps
 * the paths side by side; a name that is both is taken as the variant, said
 * in one note on stderr; a name that is neither gets a message naming both
 * kinds. *@by_used: the grouping taken (lo->by, NULL or
 * LAB_RESULTS_FAULT_PATH). Returns lab_results_load_many()'s status, with
 * its message in @err.
 */
struct rep_load_opts {
	const char *by, *baseline;
	unsigned flags;			/* lab_results_load_many()'s */
	bool no_paths;
	rep_kept_fn kept;
	const void *arg;
};
int rep_load(struct lab_results *r, const char *const *paths, int npaths, const struct rep_load_opts *lo,
	     const char **by_used, char *err, size_t errlen);
/* Does group @ig hold a wanted series of metric @im (any column, any thread count)? */
bool rep_metric_in_group(const struct lab_rctx *c, int ig, int im);
/* The comma-separated headline metrics of a workload label, or NULL if it is not registered. */
const char *rep_headline(const char *workload);
/*
 * rep_headline_in() - the headline of workload label @workload among @r's
 * rows: rep_headline()'s; for a workload this build does not register, NULL
 * when it has a directed metric of its own (each such metric is a headline),
 * else a program's (LAB_REPORT_EXEC_METRICS, then LAB_REPORT_PRELOAD_METRICS:
 * rows of exec or of the preload).
 */
const char *rep_headline_in(const struct lab_results *r, const char *workload);
/* What -t counts for a workload label ("pairs" for context_switch), "threads" by default. */
const char *rep_count_unit(const char *workload);
/* Is @m one of the comma-separated names in @list? */
bool rep_in_list(const char *list, const char *m);
/* Metrics the harness emits for every workload (time, context switches, lock events, per-thread). */
bool rep_harness_metric(const char *m);

/* The table mean: Hmean for higher-is-better series, Amean otherwise (NaN if undefined). */
double rep_mean(const struct lab_series *s);
bool rep_higher(const struct lab_series *s);
/*
 * The default table's mean, which its graphs draw too: rep_mean(), falling
 * back to Amean where a Hmean is undefined (a value <= 0). *@higher: whether
 * it is the Hmean of a higher-is-better series.
 */
double rep_table_mean(const struct lab_series *s, bool *higher);
/*
 * One spread and one flag per cell, in every format (mmtests' and LKP's own
 * spread rows aside, which follow their tools): rep_spread() is
 * lab_fmt_spread(), HCoeffVar beside a Hmean, CoeffVar beside an Amean, in
 * percent (*@name, may be NULL, gets the statistic's name); rep_spread_sd()
 * its standard deviation (HStddev or the sample Stddev); rep_flag() is
 * lab_fmt_flag() on that spread (NULL: not flagged, or no series).
 */
double rep_spread(const struct lab_series *s, const char **name);
double rep_spread_sd(const struct lab_series *s);
const char *rep_flag(const struct lab_series *s);
/*
 * Oversubscription: a cell whose threads (a context_switch pair is two) are
 * more than the CPUs its rows ran on (lab_series.cpus: the CSV's cpus, under
 * --sim the simulated machine's) measures sleeping vs spinning under
 * preemption, not scaling. The readable tables mark its thread count with
 * REP_OVERSUB_MARK and close with rep_oversub_note(); the tools' layouts
 * (mmtests, lkp, locktest) print one line after the table with
 * rep_oversub_core().
 */
#define REP_OVERSUB_MARK "†"	/* a dagger, the footnote mark after the star */
bool rep_oversubscribed(const struct lab_series *s);
/* The oversubscribed cells a table or a report printed: what its note says. */
struct rep_oversub {
	int cpus[4], ncpus;		/* their CPU counts, distinct, ascending (the first four) */
	bool more;			/* more distinct CPU counts than those */
	bool pairs;			/* some is a count of pairs */
	bool partial;			/* some marked thread count has cells within their CPUs too */
};
/* Count oversubscribed cell @s in @o; merge @from into @to. */
void rep_oversub_add(struct rep_oversub *o, const struct lab_series *s);
void rep_oversub_merge(struct rep_oversub *to, const struct rep_oversub *from);
/* "more threads than CPUs (2 CPUs), sleeping vs spinning under preemption, not scaling", into @buf. */
void rep_oversub_core(const struct rep_oversub *o, char *buf, size_t len);
/* The line that says what the mark means ("" when @o counted no cell), into @buf. */
void rep_oversub_note(const struct rep_oversub *o, char *buf, size_t len);

/*
 * rep_sign_line() - the line under a table whose changes are mmtests'
 * (positive = better) saying what the sign means for a lower-is-better
 * metric; nothing when @lower is false.
 */
void rep_sign_line(FILE *f, bool lower);
/*
 * Mark the right-aligned figure in @buf as flagged: the blank just before
 * it becomes LAB_FMT_FLAG_MARK, so that columns stay aligned; without a
 * leading blank the mark is appended (within @len).
 */
void rep_mark(char *buf, size_t len);
/*
 * The change of @s against @base on the table mean: for a lower-is-better
 * metric the gain, pndiff (100 - new*100/base: positive = lower = better, as
 * mmtests); else pdiff, the value's own change (positive = higher: better
 * for a higher-is-better metric, just higher for an informational one).
 * NAN where rep_no_pct() says a percentage would mean nothing.
 */
double rep_change(const struct lab_series *s, const struct lab_series *base);
/*
 * rep_no_pct() - would a percent change of @s's mean @m against the
 * baseline's @b mean nothing? So it is for a difference (a metric named
 * X_over_Y, as bench-lazy's X_over_none: the column's figure less the
 * reference's, signed, and 0 for the reference itself) and for a negative
 * mean. REP_DIFFERENCE_NOTE goes under a table of a difference, for which
 * no format shows a change.
 */
bool rep_no_pct(const struct lab_series *s, double m, double b);
bool rep_difference(const char *metric);
#define REP_DIFFERENCE_NOTE "no change shown: the metric is a difference (signed, 0 for the reference)"
/*
 * Significance of set @b against base set @a under @sig (LAB_SIG_CI or
 * LAB_SIG_TTEST; anything else: false), on the table mean (Hmean when
 * @higher and defined, else Amean) and its spread (HStddev with the Hmean
 * under ci; the sample Stddev otherwise).
 */
bool rep_sig_values(enum lab_report_sig sig, const double *a, int na, const double *b, int nb, bool higher);
/* "ci, alpha 0.05", "t-test, alpha 0.10" or "none". */
const char *rep_sig_name(enum lab_report_sig sig);
/* Significance of @s against @base under o->sig (false for the baseline itself): the test alone. */
bool rep_significant(const struct lab_rctx *c, const struct lab_series *s, const struct lab_series *base);
/* The same under rule @sig. */
bool rep_significant_by(enum lab_report_sig sig, const struct lab_series *s, const struct lab_series *base);
/*
 * The rule of the tools' own marks (mmtests' stars): --significance where
 * given, else the --mmtests-era's; never the published table's, which only
 * rwlab's stars and verdicts follow.
 */
enum lab_report_sig rep_tools_sig(const struct lab_rctx *c);
/*
 * The minimum effect of a change of @s, percent, as the verdicts judge it
 * (report_ref.h): the figure of the map.metric that judges its workload and
 * metric (lab_vtab_metric()), else lab_min_effect() of its workload label and
 * metric under o->sig, with --min-effect's floor; looked up once, kept in
 * c->fx under the workload it was taken over.
 */
double rep_min_effect(const struct lab_rctx *c, const struct lab_series *s);
/*
 * Is the change @change (percent, as printed) of @s against @base starred in
 * the readable tables: significant (rep_significant()) and at least the
 * minimum effect (rep_min_effect()), the verdicts' rule for rwlab's side?
 * mmtests and LKP keep their tools' own marks; json and csv's "significant"
 * is the test alone.
 */
bool rep_starred(const struct lab_rctx *c, const struct lab_series *s, const struct lab_series *base, double change);
/*
 * What a star means, into @buf: "significant (RULE) and at least 1%
 * (--min-effect)", then the minimum effects c->fx holds above that floor
 * (", or the run's noise where larger ...: locktest total_rate 9.2%").
 */
void rep_star_rule(const struct lab_rctx *c, char *buf, size_t len);

/*
 * rep_ctx_values() - context column @col over the rows of kind @sim (1:
 * simulated, 0: measured, -1: any) into @buf: its value where they have
 * one, else "N NOUNs (a; b; c and M more)", a simulated machine's cpu_model
 * by its name; returns how many values (0: none, @buf ""). The tables'
 * opening lines and email's header name the machine with it.
 */
int rep_ctx_values(const struct lab_results *r, const char *col, int sim, const char *noun, char *buf, size_t len);
/*
 * rep_ctx_recorded() - does some row of @r hold a value in one of the @n
 * context columns @cols? A file with no context (an old schema's, a
 * hand-made one) holds none: email's header and lkp's axes say so.
 */
bool rep_ctx_recorded(const struct lab_results *r, const char *const *cols, int n);
/* What made the simulated rows, by model: "ENGINE seed 1", "ENGINE seeds 1 and 2", "2 engines (...)". */
void rep_sim_models(FILE *f, const struct lab_results *r);

/*
 * mmtests' two-line column header: split @name at its first '-', keeping a
 * following "-rcN" in the first part ("v4.15-rc8-range-mmap_lock-v1" ->
 * "v4.15-rc8" / "range-mmap_lock-v1").
 */
void rep_split_name(const char *name, char *a, size_t alen, char *b, size_t blen);
/* @v rounded to an integer with thousands separators: 74506.4 -> "74,506". */
void rep_thousands(double v, char *buf, size_t len);

/*
 * The default table of one (group, metric), as rep_table() prints it and
 * the HTML page shows it: thread counts as rows (rlab, "4 threads", followed
 * by REP_OVERSUB_MARK where a cell of the row is oversubscribed),
 * columns as columns (clab), each cell three strings: the labelled
 * aggregate, its spread ("±3.6%", followed by LAB_FMT_FLAG_MARK when
 * flagged) and the change against the baseline ("-14.2%", "*" appended
 * when rep_starred()); "" for a part not printed, "-" for a missing cell.
 */
#define REP_GRID_PARTS 3
struct rep_grid {
	int nr, nc;			/* thread counts x columns, before any transposition */
	const char *corner[2];		/* header of the label column: normal, transposed */
	char **rlab, **clab;
	char (*cell)[REP_GRID_PARTS][48];	/* nr * nc */
	bool flagged;			/* some cell carries LAB_FMT_FLAG_MARK */
	bool uncounted;			/* a column's "-" is a lock event its variant does not count: REP_UNCOUNTED_LEGEND */
	struct rep_oversub over;	/* the oversubscribed cells: their rows' labels carry REP_OVERSUB_MARK */
	bool starred;			/* some change is starred significant: rep_sig_footnote() goes under */
	bool lower;			/* the metric is lower-is-better: rep_sign_line() goes under it */
	bool difference;		/* the metric is a difference (rep_difference()): no change, REP_DIFFERENCE_NOTE */
};
/*
 * Has column @v a cell of (group @g, metric @m) kept by -w, at some thread
 * count? A format leaves out a column without one in its table (a variant or
 * fault path that did not run this workload: `report --by fault_path` over
 * pft and locktest, two CSVs of different workloads), where it stood all "-".
 * A lock event (event.*) that the column's variant does not count has no
 * cell (results.c reads no figure for it, not even an older file's 0): such
 * a column stands, all "-", when it has a cell of another metric in @g
 * (rep_column_counts() tells the two apart).
 */
bool rep_column_used(const struct lab_rctx *c, int g, int m, int v);
/* Has column @v a cell of (group @g, metric @m) kept by -w, at some thread count (for an event: counts it)? */
bool rep_column_counts(const struct lab_rctx *c, int g, int m, int v);
/* Under a table whose "-" stands for a lock event a column's variant does not count. */
#define REP_UNCOUNTED_LEGEND "- : a lock event that variant does not count (no figure, not a 0)"
/* One stderr line naming the groups @format leaves out for want of a baseline cell (@why: its rule); none: silent. */
void rep_note_no_base(const struct lab_rctx *c, const char *format, const char *why);
/* Build the grid of (group @g, metric @m); @compact: email's narrower figures. Returns its rows. */
int rep_grid_build(const struct lab_rctx *c, int g, int m, bool compact, struct rep_grid *gr);
void rep_grid_free(struct rep_grid *gr);
/* Does the text table print @gr transposed (columns as rows) within @width columns? */
bool rep_grid_transposed(const struct rep_grid *gr, int width);
/* The line above the table of (group @g, metric @m): "pft: faults/sec (faults/s, higher is better), ...". */
void rep_grid_title(const struct lab_rctx *c, int g, int m, char *buf, size_t len);
/* The line under the tables that says what a star means (printed where one is, or with no rule), into @buf. */
void rep_sig_footnote(const struct lab_rctx *c, char *buf, size_t len);

/*
 * Print format @f for c->r into c->out, then (but for json and html) the
 * reference comparison: what `rwlab report` prints. Returns 0 or 1.
 */
int rep_print(struct lab_rctx *c, enum lab_report_format f);

/*
 * The printers, one per report.h's LAB_REPORT_FORMAT_LIST entry: rep_NAME()
 * prints format NAME; returns the number of tables (or series) printed, 0
 * when nothing matched, -1 after an error on stderr (html: a graph failed).
 * rep_json() also prints, with o->reference, the verdict rows
 * (rep_reference_json()) in the same object.
 */
#define REP_PRINTER_DECLARE(e, name) int rep_##name(struct lab_rctx *c);
LAB_REPORT_FORMAT_LIST(REP_PRINTER_DECLARE)
#undef REP_PRINTER_DECLARE
/* The reference comparison (c->vt) as a JSON member ("reference": {...}). */
void rep_reference_json(struct lab_rctx *c);
/* Print @s as a JSON string literal; @v as a JSON number, null when NaN or infinite. */
void rep_json_str(FILE *f, const char *s);
void rep_json_num(FILE *f, double v);
/* The reference comparison (c->vt, which lab_report_print() computed before any table). */
void rep_reference(struct lab_rctx *c);

/*
 * The verdict table's text pieces (report_ref_print.c), shared by the text
 * comparison and the HTML page so that both show the same strings.
 */
struct lab_vtab;
struct lab_vrow;
/* The title line: "NAME: published FILE, MACHINE vs rwlab CSV (N CPUs, MODEL)". */
void rep_vtab_title(const struct lab_rctx *c, const struct lab_vtab *vt, char *buf, size_t len);
/* The two lines above the rows of @row's block (map.metric and column): what is compared, and the columns. */
void rep_vblock_heading(const struct lab_vtab *vt, const struct lab_vrow *row, char *what, size_t wlen, char *cols,
			size_t clen);
/*
 * The printed strings of @row: clients, published base, new, change (marked
 * "*", "( )" or "?"), rwlab threads, base, new, change (marked), and the
 * verdict ("agree (0.92x)").
 */
#define REP_VROW_CELLS 9
void rep_vrow_cells(const struct lab_vrow *row, char cells[REP_VROW_CELLS][64]);
/* What follows the rows: the summary of every row, the published-flat line and the rule. */
void rep_vtab_print_tail(const struct lab_rctx *c, const struct lab_vtab *vt);

/*
 * A report file written whole or not at all (lab_report_write(), the ladder's
 * page): rep_out_open() checks @path (lab_report_out_check()) and opens
 * PATH.tmp, or @path itself where it is a device or FIFO (/dev/stdout,
 * /dev/null: renaming over one would replace it); rep_out_close() closes it
 * and, when @st is 0 and every byte was written, renames PATH.tmp into
 * place, else removes it. Errors: one line on stderr prefixed @prog;
 * rep_out_open() returns 0 or 2 (nothing written yet: @path is bad input),
 * rep_out_close() 0 or 1.
 */
struct rep_out {
	FILE *f;
	const char *prog, *path;
	char tmp[4200];		/* "" when @path is written in place */
};
int rep_out_open(struct rep_out *o, const char *prog, const char *path);
int rep_out_close(struct rep_out *o, int st);
