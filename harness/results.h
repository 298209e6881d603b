/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The results CSV as the report formats see it: values grouped into series,
 * one series per (group, column, metric, thread count), in iteration order.
 *
 * Columns are what a comparison table puts side by side (by default the lock
 * variant label; `--by workload` compares workload settings such as
 * pft:touch=pool vs pft:touch=fresh; any CSV column names may be joined,
 * e.g. "variant,mm_lock"). Groups are the rest of the identity (variant and
 * workload labels not used as the column key, joined by a space): one table
 * per group.
 *
 * Threading: single-threaded; everything is owned by struct lab_results and
 * freed by lab_results_free().
 */
#pragma once

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "csv.h"
#include "workload.h"

struct lab_series {
	const char *group;		/* group key */
	const char *column;		/* column key */
	const char *workload;		/* workload label of the rows */
	const char *variant;		/* variant label of the rows (in the column key or the group) */
	const char *metric;
	const char *unit;
	enum lab_better better;
	int threads;
	int cpus;			/* the fewest CPUs (context column cpus) its rows ran on; 0: unknown */
	int ig, ic, im;			/* indexes into groups[], columns[], metrics[] */
	double *v;			/* values, in file order */
	int n, cap;
};

struct lab_results_store;	/* results.c: the strings, cells and contexts behind the arrays */

struct lab_results {
	const char *path;
	struct lab_series *s;		/* in order of first appearance */
	int ns;
	const char **groups, **columns, **metrics;	/* in order of first appearance */
	int ngroups, ncolumns, nmetrics;
	int *threads;			/* distinct thread counts, ascending */
	int nthreads;
	int base;			/* index of the baseline column (moved to columns[0]) */
	int nleft_out;			/* cells left out, failed or unfinished (without --include-failed) */
	char path_buf[1024];		/* the input names, "a.csv + b.csv" */
	struct lab_results_store *st;
};

/*
 * lab_results_load() - read @path and group its rows, streaming: memory
 * grows with the series' values (8 bytes a row) and the distinct cells,
 * runs and contexts, not with the file (README "Results: the CSV schema").
 * @by: comma-separated CSV column names forming the column key (NULL or ""
 * = "variant"), or LAB_RESULTS_FAULT_PATH: the fault path of workloads
 * with an mm_lock knob, by its title (lab_results_fault_path()), the
 * workload standing without that knob in the group. @baseline: column key of the baseline
 * (lab_results_column_key(); NULL = the one the runs recorded in their settings, "baseline=NAME" as
 * rwlab exec writes, when the columns are variants, every run that records one names the same and it
 * is one of them; else the first column seen, said in one note where runs recorded one); the baseline
 * is moved to columns[0].
 * Returns 0, or -1 with a one-line message in @err: unreadable or malformed
 * CSV, a non-numeric value or
 * thread count ("FILE:LINE: ..."); LAB_RESULTS_BAD_BASELINE with the message
 * for an unknown baseline (naming the valid ones); or LAB_RESULTS_BAD_BY with
 * it when @by names no column of the file (naming them and fault_path), is
 * empty or too long, said as soon as the first header is read, before
 * anything about the rows; or LAB_RESULTS_NOT_RESULTS when an input is
 * empty, holds only blank lines, or has a header that lacks a column every
 * results CSV has (a stream refused at its header,
 * lab_csv_reader_open_results()). The three are the command's mistakes
 * (usage errors: bad input), not a file's damage.
 */
int lab_results_load(struct lab_results *r, const char *path, const char *by, const char *baseline,
		     char *err, size_t errlen);

#define LAB_RESULTS_FAULT_PATH "fault_path"	/* the --by pseudo-column of the mm_lock modes */
#define LAB_RESULTS_BAD_BY (-2)			/* lab_results_load*(): @by is wrong, not the file */
#define LAB_RESULTS_BAD_BASELINE (-3)		/* lab_results_load*(): @baseline names no column of the file */
#define LAB_RESULTS_NOT_RESULTS (-4)		/* lab_results_load*(): an input is no results CSV (empty, or its header) */

/*
 * lab_results_fault_path() - the fault path of a workload label, by its
 * title ("mmap_lock", "per-VMA", "vm_refcnt": workloads/mm.h), the knob's
 * default when the label does not set it; @base gets the label without its
 * mm_lock knob ("pft:size_mb=8,mm_lock=vma" -> "pft:size_mb=8"). NULL (and
 * @base the label) for a workload without the knob.
 */
const char *lab_results_fault_path(const char *workload, char *base, size_t len);
/*
 * lab_results_load_many() - the same for @npaths CSVs ("-" is stdin) with
 * one header, pooled; r->path names them all. A cell (variant, workload,
 * threads) measured on more than one host is refused (one line naming it
 * and the hosts) unless @by has the host column; one simulated by two models
 * (lab_results_sim_model_len()) unless no --by key of the cell holds rows of
 * both (@by has kernel, or run, or another column whose values tell them apart).
 *
 * Integrity: every value must be a finite decimal number ("FILE:LINE: value
 * 'inf' is not a finite number"; hexadecimal, nan and inf are refused;
 * denormals are accepted), not negative where its unit cannot be (counts,
 * rates, times, sizes: lab_unit_nonnegative()); two rows with the same (run,
 * variant, workload, threads, iteration, metric) are refused, naming both
 * FILE:LINEs (a file given twice, a row copied), unless
 * LAB_RESULTS_ALLOW_DUPLICATES: then each is counted once and the others
 * are left out, said on stderr. The last cell of a file that rwlab's runner
 * wrote (its settings say n=N) and that does not hold iterations 0..N-1
 * with as many rows each is the tail of an interrupted write: left out and
 * named, unless LAB_RESULTS_INCLUDE_FAILED.
 */
int lab_results_load_many(struct lab_results *r, const char *const *paths, int npaths, const char *by,
			  const char *baseline, unsigned flags, char *err, size_t errlen);
/*
 * @flags for lab_results_load_many(). Cells the runner marked cell_failed
 * (a must-be-zero count was not zero) are left out, each named on stderr,
 * unless LAB_RESULTS_INCLUDE_FAILED.
 */
#define LAB_RESULTS_INCLUDE_FAILED 1u
/* Count rows that repeat an earlier (run, cell, iteration, metric) once instead of refusing them. */
#define LAB_RESULTS_ALLOW_DUPLICATES 2u
/* Print nothing on stderr about the rows (torn, unfinished, failed, repeated): a second load says it twice. */
#define LAB_RESULTS_QUIET 4u
/*
 * Read the inputs' headers alone, to check @by (against the first) and that each is a results CSV before
 * anything else reads the rows; @r is left empty.
 */
#define LAB_RESULTS_HEADER 8u
/*
 * The caller takes --include-failed and --allow-duplicates (report): the lines about failed,
 * unfinished and repeated rows name them; without it (plot, sim validate) they name no option.
 * Every line the loader prints begins with the command's name (lab_prog(): "rwlab plot: ...").
 */
#define LAB_RESULTS_OPTIONS 16u

/* Can a value in @unit be negative? false for the units rwlab writes (counts, op/s, s, ns, %, ...). */
bool lab_unit_nonnegative(const char *unit);
/* May metric @metric in @unit be negative: a unit that can, or a difference (bench-lazy's X_over_none)? */
bool lab_value_may_be_negative(const char *metric, const char *unit);
/*
 * lab_value_parse() - the value field @s as a number: a plain decimal
 * ([+-]digits[.digits][e[+-]digits]), finite; denormals are accepted.
 * Returns 0, or -1 with why in @why ("not a number", "not a finite number",
 * "hexadecimal, not a decimal number").
 */
int lab_value_parse(const char *s, double *v, const char **why);
void lab_results_free(struct lab_results *r);

/* The series of (group, column, metric, threads), or NULL. Indexes as in the arrays. */
const struct lab_series *lab_results_find(const struct lab_results *r, int ig, int ic, int im, int threads);
/*
 * lab_results_order_metrics() - put metrics[] in the order of the
 * comma-separated @list (report -m: its tables come in the order asked),
 * those not in it after, in their order; the series' im follow. NULL @list
 * or "all": unchanged. Threading: the caller owns @r. Errors: none.
 */
void lab_results_order_metrics(struct lab_results *r, const char *list);
/* Index of @name in metrics[] / columns[] / groups[], or -1. */
int lab_results_metric(const struct lab_results *r, const char *name);
int lab_results_column(const struct lab_results *r, const char *name);
/*
 * lab_results_column_key() - the column that @key, as a user or a matrix
 * spells it, names: @key itself, or with its variant and workload labels
 * spelt as the loader keys the rows' (lab_results_variant_label(),
 * lab_results_workload_label()): -b rwsem:rsteal=0,wspin=0 names the column
 * rwsem:wspin=0,rsteal=0. Returns its index, or -1.
 */
int lab_results_column_key(const struct lab_results *r, const char *key);
/*
 * lab_results_uncounted() - the variant labels (", "-separated, into @buf)
 * of the rows of metric @metric read as no figure: a lock event that their
 * variant does not count (not even an older file's 0 is one). Returns how
 * many variants, 0 where no such row was read.
 */
int lab_results_uncounted(const struct lab_results *r, const char *metric, char *buf, size_t len);
/*
 * lab_results_uncounted_why() - where -m names a metric whose rows are all
 * such, the line that says so into @buf ("metric 'M' has no figure in FILE:
 * its rows are of V, which does not count that lock event ..."), for the
 * caller's prefix. Returns whether there is one.
 */
bool lab_results_uncounted_why(const struct lab_results *r, const char *metric, char *buf, size_t len);
/* Context column @col of the first row ("" when the column or the rows are absent): the context. */
const char *lab_results_ctx(const struct lab_results *r, const char *col);
/*
 * lab_results_distinct() - the distinct non-empty values of context column
 * @col over the rows, in order of first appearance: the first @max into
 * @out. Returns how many there are in all.
 */
int lab_results_distinct(const struct lab_results *r, const char *col, const char **out, int max);
/*
 * lab_results_distinct_kind() - as lab_results_distinct(), over the rows of
 * simulated machines (@sim 1: cpu_model "sim NAME: ...") or of the others
 * (@sim 0); -1, every row.
 */
int lab_results_distinct_kind(const struct lab_results *r, const char *col, int sim, const char **out, int max);

/*
 * lab_results_sim_model_len() - how much of a simulated row's kernel field
 * ("rwlab-sim sim-16 engine HASH machine HASH seed N") names its model: all
 * but the " seed N" that ends it (the whole field where none does). Two
 * rows of one model are repeated runs of it and pool; of two, never.
 */
int lab_results_sim_model_len(const char *kernel);
/*
 * lab_results_sim_differ() - what the simulated models of kernel fields
 * @kernel[0..@n-1] differ in: "engines" where only the engine (the field
 * up to " machine HASH": version and engine hash) does, "machines" where
 * only the machine file's hash does, else "models" (both, or a field
 * without a machine hash). Seeds are not compared. Threading: pure.
 */
const char *lab_results_sim_differ(const char *const *kernel, int n);
/* The earliest and latest timestamp of the rows (ISO 8601 compares as text); NULL, NULL without rows. */
void lab_results_timespan(const struct lab_results *r, const char **first, const char **last);
/*
 * lab_results_workload_label() - workload label @label as run writes it:
 * one this build's registry parses is spelt as run spells it (its knobs in
 * their declared order, defaults left out) into @buf, so the same knobs in
 * another order, or a default given, are one workload; any other label
 * stands as it is. Returns @buf, or @label.
 * lab_results_variant_label() - the same for variant label @label of rows of
 * workload @workload: a lock variant's, or a lazy-mm scheme's where the
 * workload iterates over schemes (either where this build has no such
 * workload: bench-lazy's rows). The loader keys cells by both, and so do
 * merge and --resume. Threading: pure.
 */
const char *lab_results_workload_label(const char *label, char *buf, size_t len);
const char *lab_results_variant_label(const char *label, const char *workload, char *buf, size_t len);
/*
 * lab_results_workload_is() - does workload label @label (as the loader
 * keys it) answer to @want, a workload option's entry as the user or a
 * matrix typed it (-w, map.metric): @label is @want spelt as run writes it
 * (@canon: lab_results_workload_label() of @want), so knobs in another
 * order or a default spelt out name it; or @want sets no knob (no ':') and
 * is @label's workload name, which stands for every label of it.
 */
bool lab_results_workload_is(const char *label, const char *want, const char *canon);
/* Workload name of a label: "pft:size_mb=64" -> "pft" (into @buf). */
const char *lab_workload_base(const char *label, char *buf, size_t len);

/*
 * lab_results_blank_note() - what an error line adds after a name it quotes
 * from the command line (-m, -w, -b, --by: each taken exactly, no blank
 * trimmed) where that name begins or ends with a blank, so that ' total_rate'
 * is not read as total_rate beside the valid names: " (with a leading
 * blank)", " (with a trailing blank)", " (with leading and trailing
 * blanks)", " (blanks only)"; "" for any other name. Threading: pure.
 */
static inline const char *lab_results_blank_note(const char *s)
{
	size_t n = strlen(s);
	bool lead = n && isspace((unsigned char)s[0]), trail = n && isspace((unsigned char)s[n - 1]);

	if (n && strspn(s, " \t\n\v\f\r") == n)
		return " (blanks only)";
	return lead && trail ? " (with leading and trailing blanks)" : lead ? " (with a leading blank)" :
	       trail ? " (with a trailing blank)" : "";
}
