/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab report`: comparison tables read only from a results CSV, in the
 * layouts the mailing-list threads use (research/workloads.md §2.d, §3;
 * research/peers.md §14):
 *
 *   table     (default) the labelled aggregate (Hmean or Amean, ±(H)CoeffVar)
 *             and the change against the baseline, 4 significant digits,
 *             thread counts as rows and columns side by side, or transposed
 *             (columns as rows) when that fits 100 columns and the other
 *             does not; wider still, the table is cut into column blocks
 *   mmtests   compare-mmtests.pl as of the --mmtests-era: Min, Hmean|Amean,
 *             HStddev|Stddev, HCoeffVar|CoeffVar, Max, BHmean.95 (today) or
 *             the 2019 rows; metric-threads ops (reaim: mix-clients, one
 *             table), "(   0.00%)" for the baseline, "*  -9.86%*" where
 *             significant, positive = better
 *   lkp       0-day robot: "%stddev %change %stddev", " ±  N%" where the
 *             population stddev is above 2%, only changed stats (plus the
 *             workload's headline)
 *   locktest  Waiman Long's locktest lines: Min/Mean/Max, Total Rate,
 *             Percpu Rate, then the lock events that fired
 *   speedup   percent change against the baseline per thread count
 *   duration  User/System/Elapsed seconds summed over a column's cells
 *   csv       the comparison as tidy CSV (one row per series)
 *   markdown  the comparison as Markdown tables
 *   email     the default table within 80 columns, with the machine, for a mail
 *   json      every selected series (mean, spread, change, significance) and,
 *             with a reference, the verdict rows, as one JSON object
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

enum lab_report_format {
	LAB_FMT_TABLE,
	LAB_FMT_MMTESTS,
	LAB_FMT_LKP,
	LAB_FMT_LOCKTEST,
	LAB_FMT_SPEEDUP,
	LAB_FMT_DURATION,
	LAB_FMT_CSV,
	LAB_FMT_MARKDOWN,
	LAB_FMT_EMAIL,			/* the readable table, 80 columns, for a mail */
	LAB_FMT_JSON,			/* every series and the reference verdicts as one JSON object */
	LAB_FMT_NONE,			/* only the reference comparison */
};

/*
 * Which mmtests the mmtests format (and the significance rule by default)
 * follows (research/workloads.md §2.d):
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
 * (evaluated with the results' CPU count, see lab_matrix_eval_threads()).
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
	const char *baseline;		/* column key; NULL: the first column in the file */
	const char *by;			/* CSV columns forming the column key; NULL: "variant" */
	enum lab_report_sig sig;
	const char *reference;		/* published CSV to compare against, or NULL */
	const struct lab_refmap *map;	/* NULL: identity (same names, same thread counts) */
	double flat_pct;		/* a published |change| below this, with no published spread, is flat (default 1) */
	bool min_effect_set;		/* min_effect_pct given; otherwise LAB_VERDICT_MIN_EFFECT (report_ref.h) */
	double min_effect_pct;		/* the floor of the verdicts' minimum effect, percent */
	const char *title;		/* reference comparison title (matrix name), or NULL */
	enum lab_mmtests_era era;	/* mmtests format and default significance rule */
};

/* Parse a --format name. Returns 0, or -1 (the caller prints LAB_REPORT_FORMATS). */
int lab_report_format_parse(const char *s, enum lab_report_format *f);
#define LAB_REPORT_FORMATS "table, mmtests, lkp, locktest, speedup, duration, csv, markdown, email, json, none"
int lab_report_sig_parse(const char *s, enum lab_report_sig *sig);
#define LAB_REPORT_SIGS "ci, ttest, none"

/*
 * lab_report_print() - print @o->format for @o->path, then, with
 * @o->reference, the published figures and rwlab's side by side.
 * Returns 0, or 1 with a one-line error on stderr (unreadable or malformed
 * CSV, missing columns, non-numeric values, unknown metric, workload,
 * baseline or column).
 */
int lab_report_print(FILE *out, const struct lab_report_opts *o);
