/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knob.h"
#include "mm.h"
#include "results.h"
#include "workload.h"

#define MAX_BY 8

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

static int str_index(const char **arr, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arr[i], s))
			return i;
	return -1;
}

/* Grow an array of @n elements of @size to take one more: capacities 1, 2, 4, 8, ... */
static void *grow(void *p, int n, size_t size)
{
	return n && (n & (n - 1)) ? p : xrealloc(p, (size_t)(n ? 2 * n : 1) * size);
}

/* Append @s to a string list if absent; returns its index. */
static int str_add(const char ***arr, int *n, const char *s)
{
	int i = str_index(*arr, *n, s);

	if (i >= 0)
		return i;
	*arr = grow(*arr, *n, sizeof(**arr));
	(*arr)[*n] = s;
	return (*n)++;
}

static uint64_t key_hash(int ig, int ic, int im, int threads)
{
	uint64_t h = 0xcbf29ce484222325ull;
	int k[4] = { ig, ic, im, threads };

	for (int i = 0; i < 4; i++) {
		h ^= (uint64_t)(uint32_t)k[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

static int *slot(const struct lab_results *r, int ig, int ic, int im, int threads)
{
	uint64_t h = key_hash(ig, ic, im, threads);

	for (int i = (int)(h & (uint64_t)(r->hcap - 1));; i = (i + 1) & (r->hcap - 1)) {
		const struct lab_series *s;

		if (r->hash[i] < 0)
			return &r->hash[i];
		s = &r->s[r->hash[i]];
		if (s->ig == ig && s->ic == ic && s->im == im && s->threads == threads)
			return &r->hash[i];
	}
}

static void rehash(struct lab_results *r)
{
	r->hcap = r->hcap ? 2 * r->hcap : 1024;
	r->hash = xrealloc(r->hash, (size_t)r->hcap * sizeof(int));
	memset(r->hash, 0xff, (size_t)r->hcap * sizeof(int));
	for (int i = 0; i < r->ns; i++)
		*slot(r, r->s[i].ig, r->s[i].ic, r->s[i].im, r->s[i].threads) = i;
}

const struct lab_series *lab_results_find(const struct lab_results *r, int ig, int ic, int im, int threads)
{
	int *p;

	if (!r->hcap)
		return NULL;
	p = slot(r, ig, ic, im, threads);
	return *p < 0 ? NULL : &r->s[*p];
}

int lab_results_metric(const struct lab_results *r, const char *name)
{
	return str_index(r->metrics, r->nmetrics, name);
}

int lab_results_column(const struct lab_results *r, const char *name)
{
	return str_index(r->columns, r->ncolumns, name);
}

const char *lab_results_ctx(const struct lab_results *r, const char *col)
{
	int c = lab_csv_col(&r->t, col);

	return c < 0 || !r->t.nrows ? "" : r->t.rows[0][c];
}

const char *lab_workload_base(const char *label, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(label, ":"), label);
	return buf;
}

/*
 * The key of @row over fields @cols, joined by a space, interned in the
 * string list @list/@n: equal keys share one pointer. Returns its index.
 */
static int key_index(struct lab_results *r, const char ***list, int *n, char **row, const int *cols,
		     int ncols)
{
	size_t len = 0;
	char *k;
	int i;

	if (ncols == 1)
		return str_add(list, n, row[cols[0]]);
	for (i = 0; i < ncols; i++)
		len += strlen(row[cols[i]]) + 1;
	k = xrealloc(NULL, len + 1);
	k[0] = 0;
	for (i = 0; i < ncols; i++) {
		if (i)
			strcat(k, " ");
		strcat(k, row[cols[i]]);
	}
	i = str_index(*list, *n, k);
	if (i >= 0) {
		free(k);
		return i;
	}
	r->owned = grow(r->owned, r->nowned, sizeof(char *));
	r->owned[r->nowned++] = k;
	return str_add(list, n, k);
}

static void add_threads(struct lab_results *r, int th)
{
	for (int k = 0; k < r->nthreads; k++)
		if (r->threads[k] == th)
			return;
	r->threads = grow(r->threads, r->nthreads, sizeof(int));
	r->threads[r->nthreads++] = th;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static enum lab_better parse_better(const char *s)
{
	return !strcmp(s, "higher") ? LAB_BETTER_HIGHER : !strcmp(s, "lower") ? LAB_BETTER_LOWER :
									       LAB_BETTER_NONE;
}

static void fail_cols(const struct lab_csv_table *t, const char *path, const char *name, char *err,
		      size_t errlen)
{
	size_t off = (size_t)snprintf(err, errlen, "%s: no column '%s' (columns:", path, name);

	for (int i = 0; i < t->ncols && off < errlen; i++)
		off += (size_t)snprintf(err + off, errlen - off, "%s %s", i ? "," : "", t->header[i]);
	if (off < errlen)
		snprintf(err + off, errlen - off, ")");
}

/* True when @path's first line is not empty and is not an rwlab header ("schema,run,..."). */
static bool not_rwlab(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : NULL;
	char line[64] = "";
	bool r;

	if (!f)
		return false;
	r = fgets(line, sizeof(line), f) && line[0] != '\n' && strncmp(line, "schema,run,", 11);
	fclose(f);
	return r;
}

/* Read one CSV into @t, saying so when its last line was torn. */
static int read_one(const char *path, struct lab_csv_table *t, char *err, size_t errlen)
{
	if (lab_csv_read(path, t, err, errlen)) {
		if (not_rwlab(path))	/* a parse error in a file that is not ours: say that instead */
			snprintf(err, errlen, "%s: not an rwlab results CSV (its first line is not the header "
				 "'schema,run,timestamp,...')", path);
		return -1;
	}
	lab_csv_torn_tail(t);
	if (t->torn_line)
		fprintf(stderr, "rwlab report: %s:%d: the last line is incomplete (an interrupted write); left out\n",
			path, t->torn_line);
	return 0;
}

/* Move the rows of @add (same header as @t) to the end of @t. */
static void append_rows(struct lab_csv_table *t, struct lab_csv_table *add)
{
	int n = t->nrows + add->nrows;

	t->rows = realloc(t->rows, (size_t)n * sizeof(*t->rows));
	t->offset = realloc(t->offset, (size_t)n * sizeof(*t->offset));
	t->line = realloc(t->line, (size_t)n * sizeof(*t->line));
	if (!t->rows || !t->offset || !t->line)
		abort();
	memcpy(t->rows + t->nrows, add->rows, (size_t)add->nrows * sizeof(*t->rows));
	memcpy(t->offset + t->nrows, add->offset, (size_t)add->nrows * sizeof(*t->offset));
	memcpy(t->line + t->nrows, add->line, (size_t)add->nrows * sizeof(*t->line));
	t->nrows = n;
	add->nrows = 0;		/* the rows are t's now */
	lab_csv_free(add);
}

/* Rows [@from, r->t.nrows) came from input @i. */
static void note_src(struct lab_results *r, int from, int i)
{
	r->src = xrealloc(r->src, (size_t)r->t.nrows * sizeof(*r->src));
	for (int k = from; k < r->t.nrows; k++)
		r->src[k] = i;
}

/* Every input into r->t (the same header in each); r->path names them ("a.csv + b.csv"). */
static int read_inputs(struct lab_results *r, const char *const *paths, int npaths, char *err, size_t errlen)
{
	size_t off = 0;

	for (int i = 0; i < npaths; i++)
		off += (size_t)snprintf(r->path_buf + off, off < sizeof(r->path_buf) ? sizeof(r->path_buf) - off : 0,
					"%s%s", i ? " + " : "", strcmp(paths[i], "-") ? paths[i] : "stdin");
	r->path = r->path_buf;
	r->src_names = paths;
	if (read_one(paths[0], &r->t, err, errlen))
		return -1;
	note_src(r, 0, 0);
	for (int i = 1; i < npaths; i++) {
		struct lab_csv_table t;
		int from = r->t.nrows;
		bool same;

		if (read_one(paths[i], &t, err, errlen)) {
			lab_csv_free(&r->t);
			return -1;
		}
		same = t.ncols == r->t.ncols;
		for (int c = 0; same && c < t.ncols; c++)
			same = !strcmp(t.header[c], r->t.header[c]);
		if (!same) {
			snprintf(err, errlen, "%s: its columns differ from %s's: not CSVs of one rwlab schema", paths[i],
				 paths[0]);
			lab_csv_free(&t);
			lab_csv_free(&r->t);
			return -1;
		}
		append_rows(&r->t, &t);
		note_src(r, from, i);
	}
	return 0;
}

/* "FILE:LINE" of row @row, into @buf. */
static const char *where(const struct lab_results *r, int row, char *buf, size_t len)
{
	const char *name = r->src_names[r->src[row]];

	snprintf(buf, len, "%s:%d", strcmp(name, "-") ? name : "stdin", r->t.line[row]);
	return buf;
}

/* Drop the rows whose @drop[] is set (freed), keeping the others in order. */
static void drop_rows(struct lab_results *r, const bool *drop)
{
	int k = 0;

	for (int i = 0; i < r->t.nrows; i++) {
		char **row = r->t.rows[i];

		if (drop[i]) {
			for (int c = 0; c < r->t.ncols; c++)
				free(row[c]);
			free(row);
			continue;
		}
		r->t.rows[k] = row;
		r->t.offset[k] = r->t.offset[i];
		r->t.line[k] = r->t.line[i];
		r->src[k++] = r->src[i];
	}
	r->t.nrows = k;
}

static bool *drop_mask(const struct lab_results *r)
{
	bool *d = calloc((size_t)(r->t.nrows ? r->t.nrows : 1), sizeof(*d));

	if (!d)
		abort();
	return d;
}

struct host_cols {
	const struct lab_csv_table *t;
	int v, w, th, host;
};

static int cell_host_cmp(const void *a, const void *b, void *arg)
{
	const struct host_cols *h = arg;
	char **x = h->t->rows[*(const int *)a], **y = h->t->rows[*(const int *)b];
	int c;

	if ((c = strcmp(x[h->v], y[h->v])) || (c = strcmp(x[h->w], y[h->w])) || (c = strcmp(x[h->th], y[h->th])))
		return c;
	return strcmp(x[h->host], y[h->host]);
}

/*
 * One cell (variant, workload, threads) measured on two hosts would be
 * pooled into one mean: refuse unless the hosts are compared side by side
 * (--by with host).
 */
static int check_hosts(const struct lab_results *r, const char *by, char *err, size_t errlen)
{
	struct host_cols h = { &r->t, lab_csv_col(&r->t, LAB_CSV_NAME(variant)), lab_csv_col(&r->t, LAB_CSV_NAME(workload)),
			       lab_csv_col(&r->t, LAB_CSV_NAME(threads)), lab_csv_col(&r->t, LAB_CSV_NAME(host)) };
	int *idx, ret = 0;

	if (h.host < 0 || h.v < 0 || h.w < 0 || h.th < 0 || (by && strstr(by, "host")) || r->t.nrows < 2)
		return 0;
	idx = malloc((size_t)r->t.nrows * sizeof(*idx));
	if (!idx)
		abort();
	for (int i = 0; i < r->t.nrows; i++)
		idx[i] = i;
	qsort_r(idx, (size_t)r->t.nrows, sizeof(*idx), cell_host_cmp, &h);
	for (int i = 1; i < r->t.nrows && !ret; i++) {
		char **a = r->t.rows[idx[i - 1]], **b = r->t.rows[idx[i]];

		if (!strcmp(a[h.v], b[h.v]) && !strcmp(a[h.w], b[h.w]) && !strcmp(a[h.th], b[h.th]) &&
		    strcmp(a[h.host], b[h.host])) {
			snprintf(err, errlen, "%s: cell %s %s t=%s was measured on hosts '%s' and '%s': give --by "
				 "variant,host to compare them side by side (not pooled)", r->path, a[h.v], a[h.w],
				 a[h.th], a[h.host], b[h.host]);
			ret = -1;
		}
	}
	free(idx);
	return ret;
}

/* Does @row belong to the cell (variant, workload, threads) @key, columns @col? */
static bool same_cell(char **row, char *const *key, const int *col)
{
	return !strcmp(row[col[0]], key[0]) && !strcmp(row[col[1]], key[1]) && !strcmp(row[col[2]], key[2]);
}

/* Drop every row of cell @key from r->t. */
static void drop_cell(struct lab_results *r, char *const *key, const int *col)
{
	bool *d = drop_mask(r);

	for (int i = 0; i < r->t.nrows; i++)
		d[i] = same_cell(r->t.rows[i], key, col);
	drop_rows(r, d);
	free(d);
}

/*
 * Cells the runner marked cell_failed (a must-be-zero count was not): their
 * numbers are not measurements of a correct run. Left out, named on stderr,
 * unless @include (report --include-failed), which names them and keeps them.
 */
static void failed_cells(struct lab_results *r, bool include)
{
	int col[3] = { lab_csv_col(&r->t, LAB_CSV_NAME(variant)), lab_csv_col(&r->t, LAB_CSV_NAME(workload)), lab_csv_col(&r->t, LAB_CSV_NAME(threads)) };
	int cm = lab_csv_col(&r->t, LAB_CSV_NAME(metric)), cv = lab_csv_col(&r->t, LAB_CSV_NAME(value));

	if (cm < 0 || cv < 0 || col[0] < 0 || col[1] < 0 || col[2] < 0)
		return;
	for (int i = 0; i < r->t.nrows; i++) {
		char **row = r->t.rows[i], *key[3];

		if (strcmp(row[cm], "cell_failed") || atof(row[cv]) == 0)
			continue;
		for (int k = 0; k < 3; k++)
			key[k] = strdup(row[col[k]]);
		fprintf(stderr, "rwlab report: %s: cell %s %s t=%s failed (a count that must be 0 was not): %s\n",
			r->path, key[0], key[1], key[2],
			include ? "compared as --include-failed asks" : "left out (--include-failed compares it)");
		if (include) {	/* keep the rows; say it once per cell */
			for (int j = i; j < r->t.nrows; j++)
				if (!strcmp(r->t.rows[j][cm], "cell_failed") && same_cell(r->t.rows[j], key, col))
					r->t.rows[j][cm][4] = '-';	/* "cell-failed": still in the CSV's words */
		} else {
			drop_cell(r, key, col);
			i = -1;		/* rows moved: look again from the start */
		}
		for (int k = 0; k < 3; k++)
			free(key[k]);
	}
}

/* ---- integrity ------------------------------------------------------------------ */

bool lab_value_may_be_negative(const char *metric, const char *unit)
{
	return !lab_unit_nonnegative(unit) || strstr(metric, "_over_");	/* a difference: X_over_none */
}

bool lab_unit_nonnegative(const char *unit)
{
	static const char *const units[] = { "count", "ops", "op/s", "s", "ms", "us", "ns", "%", "jobs", "jobs/min",
					     "files", "dirs", "pages", "MiB", "KB/s", "faults", "faults/s", "bytes",
					     "load", "index", NULL };

	for (int i = 0; units[i]; i++)
		if (!strcmp(unit, units[i]))
			return true;
	return false;
}

int lab_value_parse(const char *s, double *v, const char **why)
{
	const char *p = s + (*s == '+' || *s == '-');
	size_t digits = strspn(p, "0123456789");

	p += digits;
	if (*p == '.') {
		size_t frac = strspn(p + 1, "0123456789");

		digits += frac;
		p += 1 + frac;
	}
	if (digits && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1 + (p[1] == '+' || p[1] == '-');

		p = strspn(q, "0123456789") ? q + strspn(q, "0123456789") : p;
	}
	if (!digits || *p) {
		*why = strcasestr(s, "inf") || strcasestr(s, "nan") ? "not a finite number" :
		       strpbrk(s, "xX") ? "hexadecimal, not a decimal number" : "not a number";
		return -1;
	}
	errno = 0;
	*v = strtod(s, NULL);
	if (errno == ERANGE && fabs(*v) > 1) {	/* overflow: +-HUGE_VAL; an underflow (denormal, 0) is kept */
		*why = "not a finite number (beyond the largest double)";
		return -1;
	}
	return 0;
}

/* Every value a finite decimal, and not negative where its unit cannot be. Returns 0 or -1 (FILE:LINE in @err). */
static int check_values(const struct lab_results *r, int cv, int cu, int cm, char *err, size_t errlen)
{
	for (int i = 0; i < r->t.nrows; i++) {
		char **f = r->t.rows[i], at[1100];
		const char *why;
		double v;

		if (lab_value_parse(f[cv], &v, &why)) {
			snprintf(err, errlen, "%s: value '%s' is %s", where(r, i, at, sizeof(at)), f[cv], why);
			return -1;
		}
		if (v < 0 && !lab_value_may_be_negative(f[cm], f[cu])) {
			snprintf(err, errlen, "%s: value %s of metric '%s' is negative, which its unit '%s' cannot be",
				 where(r, i, at, sizeof(at)), f[cv], f[cm], f[cu]);
			return -1;
		}
	}
	return 0;
}

/* The runner's -n from a settings field ("d=2s warmup=0.5s n=5 ..."), or 0 when it names none. */
static int settings_n(const char *settings)
{
	const char *p = strstr(settings, "n=");

	while (p && p != settings && p[-1] != ' ')
		p = strstr(p + 1, "n=");
	return p ? atoi(p + 2) : 0;
}

/* Are rows @x and @y of one cell (variant, workload, threads at @col[0..2])? */
static bool same_row_cell(char **x, char **y, const int *col)
{
	return !strcmp(x[col[0]], y[col[0]]) && !strcmp(x[col[1]], y[col[1]]) && !strcmp(x[col[2]], y[col[2]]);
}

/* Is the cell in rows [@a, @b] complete: iterations 0..@n-1, each with as many rows as iteration 0? */
static bool cell_complete(const struct lab_results *r, int a, int b, int ci, int n)
{
	int *count = calloc((size_t)n, sizeof(*count));
	bool ok = true;

	if (!count)
		abort();
	for (int i = a; i <= b; i++) {
		int it = atoi(r->t.rows[i][ci]);

		if (it < 0 || it >= n) {	/* not one run's -n: a file put together by hand, not judged */
			free(count);
			return true;
		}
		count[it]++;
	}
	for (int it = 0; it < n && ok; it++)
		ok = count[it] && count[it] == count[0];
	free(count);
	return ok;
}

/*
 * The last cell of each file the runner wrote, when it is not complete: the
 * tail of an interrupted write (a kill, a full disk before rwlab cut it
 * back). Left out and named, unless @include.
 */
static void unfinished_cells(struct lab_results *r, const int *col, int ci, int cs, bool include)
{
	bool *d = drop_mask(r);

	for (int i = r->t.nrows - 1; i >= 0 && ci >= 0 && cs >= 0; i--) {
		int a = i, n;
		char at[1100];

		if (i + 1 < r->t.nrows && r->src[i + 1] == r->src[i])
			continue;	/* not the last row of its file */
		while (a > 0 && r->src[a - 1] == r->src[i] && same_row_cell(r->t.rows[a - 1], r->t.rows[i], col) &&
		       !strcmp(r->t.rows[a - 1][cs], r->t.rows[i][cs]))
			a--;
		n = settings_n(r->t.rows[i][cs]);
		if (n <= 0 || cell_complete(r, a, i, ci, n))
			continue;
		fprintf(stderr, "rwlab report: %s: cell %s %s t=%s is unfinished (not iterations 0..%d with as many rows "
				"each: an interrupted write): %s\n",
			where(r, a, at, sizeof(at)), r->t.rows[i][col[0]], r->t.rows[i][col[1]], r->t.rows[i][col[2]],
			n - 1, include ? "compared as --include-failed asks" : "left out (--include-failed compares it)");
		for (int k = a; k <= i && !include; k++)
			d[k] = true;
	}
	drop_rows(r, d);
	free(d);
}

struct dup_cols {
	const struct lab_csv_table *t;
	int c[7];			/* run, variant, workload, threads, iteration, metric, host */
};

static int dup_cmp(const void *a, const void *b, void *arg)
{
	const struct dup_cols *h = arg;
	char **x = h->t->rows[*(const int *)a], **y = h->t->rows[*(const int *)b];
	int c;

	for (int k = 0; k < 7; k++)
		if (h->c[k] >= 0 && (c = strcmp(x[h->c[k]], y[h->c[k]])))
			return c;
	return *(const int *)a - *(const int *)b;	/* file order among equals */
}

/*
 * Rows with the same (run, variant, workload, threads, iteration, metric) of
 * one host: refused, naming the first such row in file order and the row it
 * repeats, or with @allow each counted once (the first in file order).
 * Returns 0, or -1 in @err.
 */
static int duplicates(struct lab_results *r, bool allow, char *err, size_t errlen)
{
	static const char *const names[7] = { "run", "variant", "workload", "threads", "iteration", "metric", "host" };
	struct dup_cols h = { &r->t, { 0 } };
	int *idx = malloc((size_t)(r->t.nrows ? r->t.nrows : 1) * sizeof(*idx)), ndup = 0, first = -1, orig = -1;
	bool *d = drop_mask(r);

	if (!idx)
		abort();
	for (int k = 0; k < 7; k++)
		h.c[k] = lab_csv_col(&r->t, names[k]);
	for (int i = 0; i < r->t.nrows; i++)
		idx[i] = i;
	qsort_r(idx, (size_t)r->t.nrows, sizeof(*idx), dup_cmp, &h);
	for (int i = 1; i < r->t.nrows; i++) {
		char **a = r->t.rows[idx[i - 1]], **b = r->t.rows[idx[i]];
		bool same = true;

		for (int k = 0; k < 7 && same; k++)
			same = h.c[k] < 0 || !strcmp(a[h.c[k]], b[h.c[k]]);
		if (!same)
			continue;
		d[idx[i]] = true;
		ndup++;
		if (first < 0 || idx[i] < first)
			first = idx[i], orig = idx[i - 1];
		idx[i] = idx[i - 1];	/* later copies compare with the first */
	}
	if (ndup && !allow) {
		char **a = r->t.rows[orig], at[1100], bt[1100];

		snprintf(err, errlen, "%s: the row repeats %s (run %s, cell %s %s t=%s, iteration %s, metric %s): %s; "
			 "give --allow-duplicates to count each such row once", where(r, first, bt, sizeof(bt)),
			 where(r, orig, at, sizeof(at)), h.c[0] >= 0 ? a[h.c[0]] : "-", a[h.c[1]], a[h.c[2]], a[h.c[3]],
			 h.c[4] >= 0 ? a[h.c[4]] : "-", a[h.c[5]],
			 r->src[first] != r->src[orig] ? "the same run in two files (a file given twice?)" :
							 "a row written twice, which no rwlab run does");
	} else if (ndup) {
		fprintf(stderr, "rwlab report: %s: %d rows repeat an earlier row's run, cell, iteration and metric: left "
				"out (--allow-duplicates counts each once)\n", r->path, ndup);
		drop_rows(r, d);
	}
	free(d);
	free(idx);
	return ndup && !allow ? -1 : 0;
}

int lab_results_load(struct lab_results *r, const char *path, const char *by, const char *baseline,
		     char *err, size_t errlen)
{
	return lab_results_load_many(r, &path, 1, by, baseline, 0, err, errlen);
}

/* The columns lab_results_load_many() needs, in need[] order. */
enum { C_VARIANT, C_WORKLOAD, C_THREADS, C_METRIC, C_VALUE, C_BETTER, C_UNIT, C_NR };

/* Value @v of row @f into its series (group @ig, column @ic, metric @im, @th threads). */
static void add_value(struct lab_results *r, char **f, const int *col, int ig, int ic, int im, int th, double v)
{
	struct lab_series *s;
	int *p;

	if (r->ns * 2 >= r->hcap)
		rehash(r);
	p = slot(r, ig, ic, im, th);
	if (*p < 0) {
		if (r->ns == r->scap) {
			r->scap = r->scap ? 2 * r->scap : 256;
			r->s = xrealloc(r->s, (size_t)r->scap * sizeof(*r->s));
		}
		s = &r->s[r->ns];
		memset(s, 0, sizeof(*s));
		s->group = r->groups[ig];
		s->column = r->columns[ic];
		s->workload = f[col[C_WORKLOAD]];
		s->metric = r->metrics[im];
		s->unit = f[col[C_UNIT]];
		s->better = parse_better(f[col[C_BETTER]]);
		s->threads = th;
		s->ig = ig, s->ic = ic, s->im = im;
		*p = r->ns++;
		add_threads(r, th);
	}
	s = &r->s[*p];
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = xrealloc(s->v, (size_t)s->cap * sizeof(double));
	}
	s->v[s->n++] = v;
}

/* Move column @baseline (NULL: keep the first) to columns[0]. Returns 0, or -1 naming the valid ones. */
static int set_baseline(struct lab_results *r, const char *baseline, const char *path, char *err, size_t errlen)
{
	r->base = 0;
	if (baseline) {
		r->base = lab_results_column(r, baseline);
		if (r->base < 0) {
			size_t off = (size_t)snprintf(err, errlen, "baseline '%s' is not in %s (valid:", baseline, path);

			for (int i = 0; i < r->ncolumns && off < errlen; i++)
				off += (size_t)snprintf(err + off, errlen - off, "%s %s", i ? "," : "", r->columns[i]);
			if (off < errlen)
				snprintf(err + off, errlen - off, ")");
			return -1;
		}
	}
	if (r->base > 0) {
		/* Move the baseline to the front, keeping the others in order, and renumber. */
		const char *b = r->columns[r->base];
		int old = r->base;

		memmove(&r->columns[1], &r->columns[0], (size_t)old * sizeof(*r->columns));
		r->columns[0] = b;
		for (int i = 0; i < r->ns; i++)
			r->s[i].ic = r->s[i].ic == old ? 0 : r->s[i].ic < old ? r->s[i].ic + 1 : r->s[i].ic;
		r->base = 0;
		rehash(r);
	}
	return 0;
}

/* The index of @k in @list, adding an owned copy when it is new. */
static int key_str(struct lab_results *r, const char ***list, int *n, const char *k)
{
	int i = str_index(*list, *n, k);
	char *c;

	if (i >= 0)
		return i;
	c = xrealloc(NULL, strlen(k) + 1);
	strcpy(c, k);
	r->owned = grow(r->owned, r->nowned, sizeof(char *));
	r->owned[r->nowned++] = c;
	return str_add(list, n, c);
}

const char *lab_results_fault_path(const char *workload, char *base, size_t len)
{
	char name[64];
	const struct lab_workload_ops *ops = lab_workload_lookup(lab_workload_base(workload, name, sizeof(name)));
	const struct lab_knob *k = NULL;
	const char *colon = strchr(workload, ':'), *kv = colon ? colon + 1 : "";
	long mode;

	snprintf(base, len, "%s", workload);
	for (const struct lab_knob *p = ops ? ops->knobs : NULL; p && p->name && !k; p++)
		if (!strcmp(p->name, "mm_lock"))
			k = p;
	if (!k)
		return NULL;
	mode = k->def;
	/* base: the label without its mm_lock=VALUE entry (and without ':' when nothing is left) */
	snprintf(base, len, "%s", name);
	for (const char *p = kv; *p;) {
		size_t l = strcspn(p, ",");

		if (l > 8 && !strncmp(p, "mm_lock=", 8)) {
			for (int m = 0; m < LAB_MM_LOCK_NR; m++)
				if (strlen(lab_mm_lock_mode_names[m]) == l - 8 && !strncmp(p + 8, lab_mm_lock_mode_names[m], l - 8))
					mode = m;
		} else {
			snprintf(base + strlen(base), len - strlen(base), "%c%.*s", strchr(base, ':') ? ',' : ':', (int)l, p);
		}
		p += l + (p[l] == ',');
	}
	return lab_mm_lock_mode_titles[mode >= 0 && mode < LAB_MM_LOCK_NR ? mode : 0];
}

/*
 * The group and column of a row under --by with fault_path: the workload
 * label stands without its mm_lock knob, and fault_path is its title.
 */
static void fault_path_keys(struct lab_results *r, char **f, const int *col, const int *bycol, int nby, int *ig,
			    int *ic)
{
	char base[LAB_SPEC_MAX], key[1024] = "";
	const char *title = lab_results_fault_path(f[col[C_WORKLOAD]], base, sizeof(base));
	static const int ident[2] = { C_VARIANT, C_WORKLOAD };

	for (int i = 0; i < 2; i++) {	/* the group: variant and base workload, unless in --by */
		bool used = false;

		for (int k = 0; k < nby; k++)
			used |= bycol[k] == col[ident[i]];
		if (!used)
			snprintf(key + strlen(key), sizeof(key) - strlen(key), "%s%s", key[0] ? " " : "",
				 ident[i] == C_WORKLOAD ? base : f[col[ident[i]]]);
	}
	*ig = key_str(r, &r->groups, &r->ngroups, key);
	key[0] = 0;
	for (int k = 0; k < nby; k++)
		snprintf(key + strlen(key), sizeof(key) - strlen(key), "%s%s", k ? " " : "",
			 bycol[k] < 0 ? (title ? title : "-") : bycol[k] == col[C_WORKLOAD] ? base : f[bycol[k]]);
	*ic = key_str(r, &r->columns, &r->ncolumns, key);
}

int lab_results_load_many(struct lab_results *r, const char *const *paths, int npaths, const char *by,
			  const char *baseline, unsigned flags, char *err, size_t errlen)
{
	const char *path;
	static const char *need[] = { "variant", "workload", "threads", "metric", "value", "better", "unit" };
	int col[C_NR], bycol[MAX_BY], nby = 0, grcol[2], ngr = 0;
	char bybuf[256], *save = NULL;
	bool fault_path = false;

	memset(r, 0, sizeof(*r));
	if (read_inputs(r, paths, npaths, err, errlen))
		return -1;
	path = r->path;
	for (int i = 0; i < C_NR; i++) {
		col[i] = lab_csv_col(&r->t, need[i]);
		if (col[i] < 0) {
			fail_cols(&r->t, path, need[i], err, errlen);
			goto fail;
		}
	}
	if (check_values(r, col[C_VALUE], col[C_UNIT], col[C_METRIC], err, errlen) ||
	    duplicates(r, flags & LAB_RESULTS_ALLOW_DUPLICATES, err, errlen))
		goto fail;
	unfinished_cells(r, col, lab_csv_col(&r->t, LAB_CSV_NAME(iteration)),
			 lab_csv_col(&r->t, LAB_CSV_NAME(settings)),
			 flags & LAB_RESULTS_INCLUDE_FAILED);
	failed_cells(r, flags & LAB_RESULTS_INCLUDE_FAILED);
	if (check_hosts(r, by, err, errlen))
		goto fail;
	snprintf(bybuf, sizeof(bybuf), "%s", by && *by ? by : "variant");
	for (char *tok = strtok_r(bybuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = strcmp(tok, LAB_RESULTS_FAULT_PATH) ? lab_csv_col(&r->t, tok) : -1;

		fault_path |= c < 0 && !strcmp(tok, LAB_RESULTS_FAULT_PATH);
		if (c < 0 && strcmp(tok, LAB_RESULTS_FAULT_PATH)) {
			fail_cols(&r->t, path, tok, err, errlen);
			goto fail;
		}
		if (nby == MAX_BY) {
			snprintf(err, errlen, "--by: at most %d columns", MAX_BY);
			goto fail;
		}
		bycol[nby++] = c;
	}
	if (!nby) {
		snprintf(err, errlen, "--by: empty column list");
		goto fail;
	}
	/* The group is the part of the identity (variant, workload) not in the column key. */
	for (int i = 0; i < 2; i++) {
		bool used = false;

		for (int k = 0; k < nby; k++)
			used |= bycol[k] == col[i];
		if (!used)
			grcol[ngr++] = col[i];
	}

	for (int row = 0; row < r->t.nrows; row++) {
		char **f = r->t.rows[row];
		char *end;
		long th;
		double v;
		int ig, ic, im;

		errno = 0;
		th = strtol(f[col[C_THREADS]], &end, 10);
		if (!*f[col[C_THREADS]] || *end || errno || th < 1 || th > 1 << 20) {
			char at[1100];

			snprintf(err, errlen, "%s: threads '%s' is not a positive integer", where(r, row, at, sizeof(at)),
				 f[col[C_THREADS]]);
			goto fail;
		}
		v = strtod(f[col[C_VALUE]], NULL);	/* checked by check_values() */
		if (fault_path) {
			fault_path_keys(r, f, col, bycol, nby, &ig, &ic);
		} else {
			ig = ngr ? key_index(r, &r->groups, &r->ngroups, f, grcol, ngr) :
				   str_add(&r->groups, &r->ngroups, "");
			ic = key_index(r, &r->columns, &r->ncolumns, f, bycol, nby);
		}
		im = str_add(&r->metrics, &r->nmetrics, f[col[C_METRIC]]);
		add_value(r, f, col, ig, ic, im, (int)th, v);
	}
	if (r->nthreads)	/* no rows (every cell failed): no array to sort */
		qsort(r->threads, (size_t)r->nthreads, sizeof(int), cmp_int);

	if (set_baseline(r, baseline, path, err, errlen))
		goto fail;
	return 0;
fail:
	lab_results_free(r);
	return -1;
}

void lab_results_free(struct lab_results *r)
{
	for (int i = 0; i < r->ns; i++)
		free(r->s[i].v);
	for (int i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->s);
	free(r->hash);
	free(r->groups);
	free(r->columns);
	free(r->metrics);
	free(r->threads);
	free(r->src);
	lab_csv_free(&r->t);
	memset(r, 0, sizeof(*r));
}
