/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab report`: comparison tables read only from a results CSV, in the
 * layouts the mailing-list threads use (LAB_REPORT_FORMAT_LIST below).
 *
 * Means: Hmean for higher-is-better metrics, Amean otherwise; spreads are
 * HStddev (harmonic, population) around a Hmean, the sample (n - 1) Stddev
 * around an Amean, except in the 2019 mmtests rows (Stddev always) and lkp
 * (population, as LKP). Significance and verdicts: README "Reports and
 * verdicts" (harness/report_ref.c).
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/*
 * The formats, in --format's order: X(ENUM, name). Format NAME is printed by
 * rep_NAME() (report_impl.h: the simple ones in report.c, the others in
 * report_NAME.c). "none" (LAB_FMT_NONE) follows them: only the reference
 * comparison. Adding a format: one X() line, its rep_NAME(), a report_NAME.c
 * in harness/meson.build if it is not small, and the README's sentence on
 * `report --format` (tests/unit/report.c checks every name against it).
 */
#define LAB_REPORT_FORMAT_LIST(X) \
	/* (default) the labelled aggregate (Hmean or Amean, +-(H)CoeffVar) and the change against the   \
	 * baseline, 4 significant digits, thread counts as rows and columns side by side, or transposed \
	 * (columns as rows) when that fits 100 columns and the other does not; wider still, the table   \
	 * is cut into column blocks */                                                                  \
	X(TABLE, table)                                                                                  \
	/* compare-mmtests.pl as of the --mmtests-era: Min, Hmean|Amean, HStddev|Stddev,                 \
	 * HCoeffVar|CoeffVar, Max, BHmean.95 (today) or the 2019 rows; metric-threads ops (reaim:       \
	 * mix-clients, one table), "(   0.00%)" for the baseline, "*  -9.86%*" where significant,      \
	 * positive = better */                                                                          \
	X(MMTESTS, mmtests)                                                                              \
	/* 0-day robot: "%stddev %change %stddev", " +-  N%" where the population stddev is above 2%,   \
	 * only changed stats (plus the workload's headline) */                                          \
	X(LKP, lkp)                                                                                      \
	/* Waiman Long's locktest lines: Min/Mean/Max, Total Rate, Percpu Rate, then the lock events     \
	 * that fired */                                                                                 \
	X(LOCKTEST, locktest)                                                                            \
	/* percent change against the baseline per thread count */                                       \
	X(SPEEDUP, speedup)                                                                              \
	/* User/System/Elapsed seconds summed over a column's cells */                                   \
	X(DURATION, duration)                                                                            \
	/* the comparison as tidy CSV (one row per series) */                                            \
	X(CSV, csv)                                                                                      \
	/* the comparison as Markdown tables */                                                          \
	X(MARKDOWN, markdown)                                                                            \
	/* the default table within 80 columns, with the machine, for a mail */                          \
	X(EMAIL, email)                                                                                  \
	/* every selected series (mean, spread, change, significance) and, with a reference, the         \
	 * verdict rows, as one JSON object */                                                           \
	X(JSON, json)                                                                                    \
	/* one self-contained page (report_html.c): the run's context, the default tables, a graph per   \
	 * metric with the published curves, the verdict rows with the change per row as a graph, and    \
	 * the text report as printed */                                                                 \
	X(HTML, html)

enum lab_report_format {
#define LAB_REPORT_FORMAT_ENUM(e, name) LAB_FMT_##e,
	LAB_REPORT_FORMAT_LIST(LAB_REPORT_FORMAT_ENUM)
#undef LAB_REPORT_FORMAT_ENUM
	LAB_FMT_NONE,			/* only the reference comparison */
};

/* Every --format name: "table, mmtests, ..., none" for messages, "table mmtests ... none" for completion. */
#define LAB_REPORT_FORMAT_COMMA_(e, name) #name ", "
#define LAB_REPORT_FORMAT_SPACE_(e, name) #name " "
#define LAB_REPORT_FORMATS LAB_REPORT_FORMAT_LIST(LAB_REPORT_FORMAT_COMMA_) "none"
#define LAB_REPORT_FORMAT_WORDS LAB_REPORT_FORMAT_LIST(LAB_REPORT_FORMAT_SPACE_) "none"

/* The --format name of @f ("none" for LAB_FMT_NONE). */
const char *lab_report_format_name(enum lab_report_format f);

/*
 * Which mmtests the mmtests format (and the significance rule by default)
 * follows (docs/workloads.md §2.d):
 *   current  (2024-11+) Min, Hmean, HStddev, HCoeffVar, Max, BHmean.95; the
 *            confidence-interval star rule on the mean and its (H)Stddev
 *   2019     (2019-04..2024-11) Min, Hmean, Stddev, CoeffVar, Max, BHmean-50,
 *            BHmean-95, BHmean-99; the t-test star rule on the Hmean
 */
enum lab_mmtests_era { LAB_ERA_CURRENT, LAB_ERA_2019 };
int lab_report_era_parse(const char *s, enum lab_mmtests_era *era);
#define LAB_REPORT_ERAS "current, 2019"

/* Which mmtests significance rule draws the stars. */
enum lab_report_sig {
	LAB_SIG_AUTO,			/* the --mmtests-era's rule: ci (current) or ttest (2019) */
	LAB_SIG_CI,			/* |mean_b - mean_a| > 1.96 (sd_a + sd_b)  (mmtests since 2024-11) */
	LAB_SIG_TTEST,			/* t-test p < 0.10, df = n_a + n_b - 2     (mmtests 2018-10..2024-11) */
	LAB_SIG_NONE,
};

#define LAB_REFMAP_COLS 16
#define LAB_REFMAP_METRICS 32
#define LAB_REFMAP_THREADS 64

/*
 * How a published table (results/reference/X.csv: benchmark, stat, metric,
 * clients, variant, value) lines up with rwlab's results. Usually read from
 * a matrix file (harness/matrix.h). Thread expressions may use "cpus"
 * (evaluated with the results' CPU count, see lab_eval_threads(), threads.h).
 */
struct lab_refmap {
	struct {
		char ref[96];		/* published variant (the first one is the baseline) */
		char ours[160];		/* rwlab column key */
	} col[LAB_REFMAP_COLS];
	int ncol;
	struct {
		char bench[96], metric[128];	/* published benchmark and metric */
		char workload[160];	/* rwlab workload label or name */
		char ours[96];		/* rwlab metric, or "headline" (the workload's first) */
		bool sum;		/* compare the total over iterations, not the mean */
	} met[LAB_REFMAP_METRICS];
	int nmet;
	struct {
		char ref[32];		/* published clients ("all" or a number) */
		char ours[32];		/* rwlab thread count expression; "*" = every count pooled */
	} thr[LAB_REFMAP_THREADS];
	int nthr;
	char machine[160];		/* the published machine, for the header */
	int cpus;			/* the published machine's CPUs (published_cpus); 0 = not given */
	struct {
		char bench[96], metric[128];	/* published benchmark and metric */
		char clients[32];	/* published clients, or "*" for every count */
		char words[256];	/* the thread's own words calling the change noise, with the source */
	} flat[LAB_REFMAP_METRICS];
	int nflat;
	struct {
		char bench[96], metric[128];	/* published benchmark and metric */
		char clients[32];	/* published clients, or "*" for every count */
		char words[256];	/* why rwlab's figure cannot be compared with it (map.not_comparable) */
	} nc[LAB_REFMAP_METRICS];
	int nnc;
};

struct lab_report_opts {
	const char *path;		/* results CSV; "-" is stdin */
	const char *const *paths;	/* several CSVs pooled (paths[0] == path), npaths of them; */
	int npaths;			/* 0: path alone. Cells from different hosts are refused unless by has host */
	bool include_failed;		/* compare cells marked cell_failed, or unfinished, too (left out otherwise) */
	bool allow_duplicates;		/* count rows that repeat a (run, cell, iteration, metric) once, not refuse them */
	enum lab_report_format format;
	const char *metric;		/* comma-separated metric names; NULL: each workload's headline */
	const char *workload;		/* comma-separated workload labels or names to keep; NULL: all */
	const char *baseline;		/* column key; NULL: the file's recorded one (exec's), else the first column */
	bool baseline_given;		/* baseline is report's -b: where the rows kept hold that column alone
					   there is nothing to compare, said in one line on stderr, no table */
	const char *by;			/* CSV columns forming the column key; NULL: "variant" */
	enum lab_report_sig sig;
	const char *reference;		/* published CSV to compare against, or NULL */
	bool verdicts_unprinted;	/* with reference: its verdicts judge the stars but are not printed, and one
					   that cannot be computed leaves the stars to each cell's noise (run's table) */
	const struct lab_refmap *map;	/* NULL: identity (same names, same thread counts) */
	double flat_pct;		/* a published |change| below this, with no published spread, is flat (default 1) */
	bool min_effect_set;		/* min_effect_pct given; otherwise LAB_VERDICT_MIN_EFFECT (report_ref.h) */
	double min_effect_pct;		/* the floor of the verdicts' minimum effect, percent */
	const char *title;		/* reference comparison title (matrix name), or NULL */
	enum lab_mmtests_era era;	/* mmtests format and default significance rule */
	/* html: */
	enum lab_report_format page_text;	/* the text format the page also carries verbatim (the matrix's
						   report format; LAB_FMT_TABLE: the tables alone) */
	const char *description;	/* the matrix's description line, or NULL */
	const char *command;		/* the command line that made the report, or NULL */
};

/*
 * A program's rows (rwlab exec's; the preload's, RWLAB_CSV): a workload this
 * build does not register, whose own metrics say no direction. exec's table
 * shows its rusage and the preload's statistics (after its --metric ones),
 * and report and plot take them as such rows' headline, in this order.
 */
#define LAB_REPORT_EXEC_METRICS "wall_s,user_s,sys_s,nvcsw,nivcsw"
#define LAB_REPORT_PRELOAD_METRICS "preload.acquisitions,preload.contended,preload.wait_p99"

/* Parse a --format name. Returns 0, or -1 (the caller prints LAB_REPORT_FORMATS). */
int lab_report_format_parse(const char *s, enum lab_report_format *f);
int lab_report_sig_parse(const char *s, enum lab_report_sig *sig);
#define LAB_REPORT_SIGS "ci, ttest, none"

/*
 * lab_report_print() - print @o->format for @o->path, then, with
 * @o->reference, the published figures and rwlab's side by side.
 * Returns 0, or 1 with a one-line error on stderr (unreadable or malformed
 * CSV, missing columns, non-numeric values), or 2 with one for an option
 * that names what the file does not hold, a usage error: a --by column it
 * does not have (or fault_path where no row has a fault path), a metric,
 * workload or baseline not in it (the line names the valid ones), or a
 * published table (@o->reference) that cannot be used (lab_vtab_compute()).
 */
int lab_report_print(FILE *out, const struct lab_report_opts *o);
/*
 * lab_report_by_check() - @o->by against the first CSV's header alone, and
 * every input's header a results CSV's, the checks lab_report_print() makes
 * first, for a caller that reads the files before it (report's merge
 * checks): a column the file does not have, or a file of no results, is the
 * command's mistake, said first whatever the rows hold (stdin and FIFOs
 * too: lab_csv_reader_open_results() keeps a copy for the print, or refuses
 * one at its header). Returns 0, or 2 with its one line on stderr.
 */
int lab_report_by_check(const struct lab_report_opts *o);

/*
 * lab_report_out_check() - can a report be written at @path (-o)? Refuses an
 * empty name, a directory, and a path whose directory is missing or not
 * writable, with one line "@prog: -o PATH: why" on stderr, before anything is
 * measured or computed. Returns 0 or 2 (bad input).
 */
int lab_report_out_check(const char *prog, const char *path);

/*
 * lab_report_write() - lab_report_print() into the file @path, written as
 * PATH.tmp and renamed into place once complete (a failed report leaves no
 * file, and an existing @path is replaced only by a whole one; a device or
 * FIFO such as /dev/stdout is written in place); a text
 * format with o->reference is headed by "TITLE: DESCRIPTION" as `rwlab
 * report --matrix` prints it. With o->format LAB_FMT_HTML this is the
 * self-contained page (report_html.c). Returns 0, or 1 with a one-line error
 * on stderr (2 where lab_report_print() returns 2, and where @path cannot be
 * written: refused before any input is read).
 */
int lab_report_write(const struct lab_report_opts *o, const char *path);

/* One rung of `rwlab sim validate`'s ladder, as its page shows it (lab_report_ladder_page()). */
struct lab_ladder_rung {
	const char *machine, *id, *kind;	/* kind: calibration or validation */
	const char *tol;		/* as the ladder states it: "x1.5" or "+-0.2" */
	const char *source, *run;	/* where the figure comes from; the run that simulates it */
	double figure, simulated, ratio;	/* ratio = simulated / figure */
	double lo, hi;			/* the tolerance as a band of that ratio */
	bool pass;
};

/*
 * lab_report_ladder_page() - the validation ladder as one self-contained
 * page at @path (written as PATH.tmp, renamed into place once complete):
 * the command and context, then per machine a graph of simulated / figure
 * per rung on a log axis with each rung's tolerance band, and the rungs'
 * table (the figures as the text prints them: %.4g, the ratio %.3f).
 * Returns 0, or 1 with a one-line error on stderr.
 */
int lab_report_ladder_page(const char *path, const char *command, const struct lab_ladder_rung *r, int n);
