/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The results CSVs as series, read in one pass in bounded memory. Each row
 * goes, as it is read, into
 *   - its series' values (8 bytes a value: what the statistics need),
 *   - its cell (variant, workload, threads, host): the first row, the
 *     contexts, the timestamps, the cell_failed mark, and
 *   - the duplicate check: per (cell, run, iteration) one bit for each metric
 *     the cell has had (struct seen: 48 bytes per cell iteration, under a
 *     byte a row at rwlab's 40-100 metrics an iteration).
 * The rows of the cell a file is in the middle of wait (pending) until that
 * cell's rows end, so that a file's last cell can be judged whole (or the
 * tail of an interrupted write) before its rows count. What the checks name
 * (FILE:LINE of a repeated row's first copy) is found in a second pass over
 * the inputs, on that error only (stdin and FIFOs read from the copy the
 * reader keeps: csv.h, lab_csv_reader_open()).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "events.h"
#include "knob.h"
#include "lazy_mm.h"
#include "mm.h"
#include "plugin.h"
#include "results.h"
#include "rwsem.h"
#include "workload.h"

#define MAX_BY 8

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* Grow an array of @n elements of @size to take one more: capacities 1, 2, 4, 8, ... */
static void *grow(void *p, int n, size_t size)
{
	return n && (n & (n - 1)) ? p : xrealloc(p, (size_t)(n ? 2 * n : 1) * size);
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ h >> 29;
}

/* ---- interned strings ---------------------------------------------------------- */

struct strtab {
	char **s;
	int n;
	int *h, hcap;			/* open addressing, -1 empty */
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return mix(h);
}

static int *str_slot(const struct strtab *t, const char *s)
{
	for (int i = (int)(str_hash(s) & (uint64_t)(t->hcap - 1));; i = (i + 1) & (t->hcap - 1))
		if (t->h[i] < 0 || !strcmp(t->s[t->h[i]], s))
			return &t->h[i];
}

/* The id of @s, added if new: ids count from 0 in order of first use; the strings never move. */
static int intern(struct strtab *t, const char *s)
{
	int *slot;

	if (2 * (t->n + 1) > t->hcap) {
		t->hcap = t->hcap ? 2 * t->hcap : 256;
		t->h = xrealloc(t->h, (size_t)t->hcap * sizeof(int));
		memset(t->h, 0xff, (size_t)t->hcap * sizeof(int));
		for (int i = 0; i < t->n; i++)
			*str_slot(t, t->s[i]) = i;
	}
	slot = str_slot(t, s);
	if (*slot < 0) {
		t->s = grow(t->s, t->n, sizeof(char *));
		t->s[t->n] = strdup(s);
		if (!t->s[t->n])
			abort();
		*slot = t->n++;
	}
	return *slot;
}

/* The interned copy of @s. */
static const char *istr(struct strtab *t, const char *s)
{
	int id = intern(t, s);	/* first: it may move t->s */

	return t->s[id];
}

static void strtab_free(struct strtab *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->h);
	memset(t, 0, sizeof(*t));
}

/* ---- maps from up to four ints ------------------------------------------------- */

struct imap {
	struct islot {
		int k[4];
		int v;			/* -1: empty */
	} *slot;
	int n, cap;
};

static uint64_t ikey_hash(const int *k)
{
	uint64_t h = 0;

	for (int i = 0; i < 4; i++)
		h = mix(h ^ (uint32_t)k[i]) + (uint64_t)i;
	return h;
}

static struct islot *islot(const struct imap *m, const int *k)
{
	for (int i = (int)(ikey_hash(k) & (uint64_t)(m->cap - 1));; i = (i + 1) & (m->cap - 1))
		if (m->slot[i].v < 0 || !memcmp(m->slot[i].k, k, sizeof(m->slot[i].k)))
			return &m->slot[i];
}

/* The value of key (a, b, c, d), or -1. */
static int imap_get(const struct imap *m, int a, int b, int c, int d)
{
	int k[4] = { a, b, c, d };

	return m->cap ? islot(m, k)->v : -1;
}

/* Set key (a, b, c, d) to @v (>= 0). */
static void imap_put(struct imap *m, int a, int b, int c, int d, int v)
{
	int k[4] = { a, b, c, d };
	struct islot *s;

	if (2 * (m->n + 1) > m->cap) {
		struct islot *old = m->slot;
		int ocap = m->cap;

		m->cap = m->cap ? 2 * m->cap : 256;
		m->slot = xrealloc(NULL, (size_t)m->cap * sizeof(*m->slot));
		for (int i = 0; i < m->cap; i++)
			m->slot[i].v = -1;
		for (int i = 0; i < ocap; i++)
			if (old[i].v >= 0)
				*islot(m, old[i].k) = old[i];
		free(old);
	}
	s = islot(m, k);
	if (s->v < 0)
		m->n++;
	memcpy(s->k, k, sizeof(k));
	s->v = v;
}

static void imap_free(struct imap *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

/* ---- the store ------------------------------------------------------------------- */

/* A cell: (variant, workload, threads, host), the strings' ids. */
struct cell {
	int v, w, th, host;
	long long first_seq;		/* its first row that counts, -1: none yet */
	int first_src, first_line, first_ctx;
	int ts_lo, ts_hi;		/* timestamp ids, -1: none */
	bool bad_threads;		/* its threads field is not a positive integer */
	bool failed;			/* a cell_failed row with a non-zero count counted */
	bool exited;			/* a non-zero exit_status counted (rwlab exec's run that failed) */
	long long fail_seq;
	struct cell_ctx {
		int ctx;
		int col;		/* the --by key of its rows there: rows of one key pool */
		long long seq;		/* its first row with that context and key */
	} *ctx;
	int nctx;
};

/* The metrics (bits, by the cell's own numbering) seen in one (cell, run, iteration). */
struct seen {
	uint64_t w[2];
	uint64_t *more;			/* beyond 128 metrics */
	int nmore;
};

/* A row read, waiting for the end of its cell's rows in its file. */
struct prow {
	double v;
	long long seq;
	int series;			/* -1: the threads field is not a number */
	int cell, ctx, col, ts, unit, line, it;
	signed char better;
	bool failmark;			/* cell_failed with a non-zero count */
	bool exitmark;			/* exit_status, not 0 */
};

struct lab_results_store {
	struct strtab str;		/* every label, run, metric, unit, timestamp, key */
	struct imap cells_map, seen_map, series_map;
	struct strtab met;		/* the metrics: dense ids (struct seen's bits, the series' im) */
	struct cell *cells;
	int ncells;
	struct seen *seen;
	int nseen;
	struct lab_series *s;		/* while reading: by id, in order of creation */
	long long *s_first;		/* their first rows that count */
	int *s_vwt[3];			/* their variant, workload, threads ids */
	int ns;
	/* the contexts: tuples of the context columns, global over the inputs */
	int nccols;
	char **ccol;			/* their names */
	struct strtab ctx_keys;		/* a tuple joined by \x1f: its id */
	char ***ctxv;			/* [id][col] */
	int *ctx_cpus;			/* [id]: its cpus column as a number, 0 where it has none */
	int nctx;
	int first_ctx;			/* the context of the first row that counts, -1 none */
	int *ctx_order;			/* the contexts in order of first use by rows that count */
	int nctx_order;
	const char *ts_first, *ts_last;
	/* pending: the current cell's rows of the file being read */
	struct prow *pend;
	int npend, cappend;
	int seg[4];			/* variant, workload, threads, settings ids of the pending rows */
	int seg_src;
	/* the checks */
	int ndup;
	struct { int src, line; char *key[7]; } dup;	/* the first repeated row (key: dup_names) */
	struct imap unc_map;		/* (metric id, variant id) of rows of events their variant does not count */
	int (*unc)[2];			/* those pairs, in order of first reading */
	int nunc;
	int nuncounted;			/* rows of events their variant does not count, with a value other than 0 */
	char uncounted[192];		/* the first of them: "FILE:LINE: VARIANT METRIC VALUE" */
	struct lab_buf unfinished;	/* the messages, one per file, to print last file first */
	int *unfinished_at;		/* where each message starts */
	int nunfinished;
	const char *const *paths;	/* the inputs as given ("-": stdin) */
	const char **head;		/* the first input's columns */
	int nhead;
	/* the column key's parts (--by): which are variant labels and which workload labels, as keyed */
	enum { KEY_OTHER, KEY_VARIANT, KEY_WORKLOAD } key_part[MAX_BY];
	int nkey_parts;			/* 0: keys not split (--by fault_path: titles of several words) */
	/* the lock events each variant label counts (counted()): by the label's id, an index into evsets */
	struct imap evset_map;
	struct evset {
		bool known;		/* the label names a variant or scheme of this build */
		struct lab_event_set set;
	} *evsets;
	int nevsets;
};

static const char *S(const struct lab_results_store *st, int id)
{
	return id < 0 ? "" : st->str.s[id];
}

/* ---- the API over the arrays -------------------------------------------------------- */

static int *series_slot_final(const struct lab_results *r, int ig, int ic, int im, int threads);

const struct lab_series *lab_results_find(const struct lab_results *r, int ig, int ic, int im, int threads)
{
	int *p;

	if (!r->st || !r->ns)
		return NULL;
	p = series_slot_final(r, ig, ic, im, threads);
	return *p < 0 ? NULL : &r->s[*p];
}

static int str_index(const char *const *arr, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arr[i], s))
			return i;
	return -1;
}

int lab_results_metric(const struct lab_results *r, const char *name)
{
	return str_index(r->metrics, r->nmetrics, name);
}

int lab_results_column(const struct lab_results *r, const char *name)
{
	return str_index(r->columns, r->ncolumns, name);
}

/*
 * Column key @key with each of its parts (one per --by column, joined by a
 * space) that is a variant or workload label spelt as the loader keys the
 * rows' (read_row(): as run writes it) into @buf. Returns @buf, or @key when
 * its parts are not the key's.
 */
static const char *canonical_key(const struct lab_results_store *st, const char *key, char *buf, size_t len)
{
	char part[LAB_SPEC_MAX], lab[LAB_SPEC_MAX];
	const char *p = key;
	size_t off = 0;

	for (int k = 0; k < st->nkey_parts; k++) {
		size_t l = k == st->nkey_parts - 1 ? strlen(p) : strcspn(p, " ");

		if (k < st->nkey_parts - 1 && !p[l])
			return key;
		snprintf(part, sizeof(part), "%.*s", (int)l, p);
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", k ? " " : "",
					st->key_part[k] == KEY_VARIANT ?
						lab_results_variant_label(part, "", lab, sizeof(lab)) :
					st->key_part[k] == KEY_WORKLOAD ?
						lab_results_workload_label(part, lab, sizeof(lab)) : part);
		p += l + (p[l] == ' ');
	}
	return st->nkey_parts && off < len ? buf : key;
}

int lab_results_column_key(const struct lab_results *r, const char *key)
{
	char buf[1024];
	int c = lab_results_column(r, key);

	return c >= 0 || !r->st ? c : lab_results_column(r, canonical_key(r->st, key, buf, sizeof(buf)));
}

static int ctx_col(const struct lab_results_store *st, const char *col)
{
	for (int i = 0; i < st->nccols; i++)
		if (!strcmp(st->ccol[i], col))
			return i;
	return -1;
}

int lab_results_uncounted(const struct lab_results *r, const char *metric, char *buf, size_t len)
{
	const struct lab_results_store *st = r->st;
	int id = st && st->met.hcap ? *str_slot(&st->met, metric) : -1, n = 0;
	size_t off = 0;

	if (len)
		buf[0] = 0;
	for (int i = 0; id >= 0 && i < st->nunc; i++)
		if (st->unc[i][0] == id)
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", n++ ? ", " : "",
						S(st, st->unc[i][1]));
	return n;
}

bool lab_results_uncounted_why(const struct lab_results *r, const char *metric, char *buf, size_t len)
{
	char v[512];
	int n = lab_results_uncounted(r, metric, v, sizeof(v));

	if (n)
		snprintf(buf, len, "metric '%s' has no figure in %s: its rows are of %s, which do%s not count that "
			 "lock event (left out: README \"Lock events\")", metric, r->path, v, n == 1 ? "es" : "");
	return n > 0;
}

const char *lab_results_ctx(const struct lab_results *r, const char *col)
{
	const struct lab_results_store *st = r->st;
	int c = st ? ctx_col(st, col) : -1;

	return c < 0 || st->first_ctx < 0 ? "" : st->ctxv[st->first_ctx][c];
}

/* Is context @ctx one of @sim's kind (1: a simulated machine's cpu_model, 0: not; -1: any)? */
static bool ctx_kind(const struct lab_results_store *st, int mc, int ctx, int sim)
{
	return sim < 0 || (mc >= 0 && !strncmp(st->ctxv[ctx][mc], "sim ", 4)) == (sim == 1);
}

int lab_results_distinct_kind(const struct lab_results *r, const char *col, int sim, const char **out, int max)
{
	const struct lab_results_store *st = r->st;
	int c = st ? ctx_col(st, col) : -1, mc = st ? ctx_col(st, LAB_CSV_NAME(cpu_model)) : -1, n = 0;

	for (int i = 0; c >= 0 && i < st->nctx_order; i++) {
		const char *v = st->ctxv[st->ctx_order[i]][c];
		bool seen = false;

		if (!ctx_kind(st, mc, st->ctx_order[i], sim))
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = ctx_kind(st, mc, st->ctx_order[j], sim) && !strcmp(st->ctxv[st->ctx_order[j]][c], v);
		if (seen || !*v)
			continue;
		if (n < max)
			out[n] = v;
		n++;
	}
	return n;
}

int lab_results_distinct(const struct lab_results *r, const char *col, const char **out, int max)
{
	return lab_results_distinct_kind(r, col, -1, out, max);
}

void lab_results_timespan(const struct lab_results *r, const char **first, const char **last)
{
	*first = r->st ? r->st->ts_first : NULL;
	*last = r->st ? r->st->ts_last : NULL;
}

const char *lab_workload_base(const char *label, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(label, ":"), label);
	return buf;
}

bool lab_results_workload_is(const char *label, const char *want, const char *canon)
{
	char name[64];

	return !strcmp(label, canon) || !strcmp(label, want) ||
	       (!strchr(want, ':') && !strcmp(lab_workload_base(label, name, sizeof(name)), want));
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

/* The runner's -n from a settings field ("d=2s warmup=0.5s n=5 ..."), or 0 when it names none. */
static int settings_n(const char *settings)
{
	const char *p = strstr(settings, "n=");

	while (p && p != settings && p[-1] != ' ')
		p = strstr(p + 1, "n=");
	return p ? atoi(p + 2) : 0;
}

static enum lab_better parse_better(const char *s)
{
	return !strcmp(s, "higher") ? LAB_BETTER_HIGHER : !strcmp(s, "lower") ? LAB_BETTER_LOWER :
									       LAB_BETTER_NONE;
}

/* ---- reading --------------------------------------------------------------------- */

/* The logical columns of the inputs that loading uses. */
enum {
	C_VARIANT, C_WORKLOAD, C_THREADS, C_METRIC, C_VALUE, C_BETTER, C_UNIT,	/* every results CSV's */
	C_RUN, C_ITERATION, C_HOST, C_SETTINGS, C_TIMESTAMP, C_NR
};
static const char *const col_names[C_NR] = { "variant", "workload", "threads", "metric", "value", "better", "unit",
					     "run", "iteration", "host", "settings", "timestamp" };

/* The duplicate key, in the order the message names it. */
static const char *const dup_names[7] = { "run", "variant", "workload", "threads", "iteration", "metric", "host" };
enum { DUP_VARIANT = 1, DUP_WORKLOAD = 2 };	/* the labels in it */

struct loader {
	struct lab_results *r;
	struct lab_results_store *st;
	unsigned flags;
	int col[C_NR];
	int bycol[MAX_BY], nby, grcol[2], ngr;
	bool fault_path;		/* --by fault_path (LAB_RESULTS_FAULT_PATH): a column of -1 in bycol */
	char by_err[1024];		/* a --by problem (a usage error), said before anything about the rows */
	bool not_results;		/* an input's header lacks a column every results CSV has (a usage error) */
	int src;			/* the input being read */
	int *ctx_map, nctx_map;		/* its reader's contexts -> the store's */
	long long seq;			/* rows read */
	const char **row;		/* the row being read, its variant and workload labels as run writes them */
	struct imap wl_map;		/* a workload label's id -> its id as run writes it */
	struct imap vl_map;		/* a variant label's id and its rows' workload's -> its id as run writes it */
	char key[8192];
};

/*
 * Columns that identify a row within a cell or are the measurement itself:
 * comparing side by side by one of them would make every row its own column
 * (value, iteration, timestamp) or split a row's own key (threads, metric).
 */
static const char *const by_refused[] = { "value", "iteration", "timestamp", "threads", "metric", "unit", "better",
					   "schema" };

static bool by_is_refused(const char *name)
{
	for (size_t i = 0; i < sizeof(by_refused) / sizeof(by_refused[0]); i++)
		if (!strcmp(name, by_refused[i]))
			return true;
	return false;
}

/*
 * "--by 'NAME': no column 'NAME' in FILE (valid: ...)": the valid names are
 * what setup_columns() accepts, the file's columns less by_refused[] and the
 * fault_path pseudo-column, so the list cannot drift from the check.
 */
static void by_unknown(const struct lab_csv_reader *rd, const char *path, const char *name, char *err,
		       size_t errlen)
{
	size_t off = (size_t)snprintf(err, errlen, "--by '%s': no column '%s'%s in %s (valid:", name, name,
				      lab_results_blank_note(name), path);

	for (int i = 0, n = 0; i < rd->ncols && off < errlen; i++)
		if (!by_is_refused(rd->header[i]))
			off += (size_t)snprintf(err + off, errlen - off, "%s %s", n++ ? "," : "", rd->header[i]);
	if (off < errlen)
		snprintf(err + off, errlen - off, ", %s)", LAB_RESULTS_FAULT_PATH);
}

/* True when @path's first line is not empty and is not an rwlab header ("schema,run,..."). */
static bool not_rwlab(const char *path)
{
	char line[64];

	return *lab_csv_first_line(path, line, sizeof(line)) && strncmp(line, "schema,run,", 11);
}

static const char *src_name(const struct lab_results_store *st, int src);

/* Open input @i: a results CSV (L->not_results set when it is none). Returns 0 or -1. */
static int open_input(struct loader *L, int i, struct lab_csv_reader *rd, char *err, size_t errlen)
{
	int r = lab_csv_reader_open_results(rd, L->st->paths[i], err, errlen);

	L->not_results = r == LAB_CSV_NOT_RESULTS;
	if (r && !L->not_results && not_rwlab(L->st->paths[i]))	/* a parse error in a file that is not ours */
		snprintf(err, errlen, "%s: not an rwlab results CSV (its first line is not the header "
			 "'schema,run,timestamp,...')", src_name(L->st, i));
	return r;
}

/* The key of row @f over the fields @cols, joined by a space, interned. */
static int key_id(struct loader *L, const char *const *f, const int *cols, int ncols)
{
	size_t off = 0;

	if (ncols == 1)
		return intern(&L->st->str, cols[0] >= 0 ? f[cols[0]] : "");
	for (int i = 0; i < ncols; i++)
		off += (size_t)snprintf(L->key + off, off < sizeof(L->key) ? sizeof(L->key) - off : 0, "%s%s",
					i ? " " : "", cols[i] >= 0 ? f[cols[i]] : "");
	return intern(&L->st->str, L->key);
}

/* @label as @s->label, when @r parses it, into @buf. Returns @buf, or NULL. */
static const char *parsed_label(const struct lab_registry *r, const char *label, char *buf, size_t len)
{
	struct lab_spec s;
	char err[512];

	if (lab_registry_parse(r, label, &s, err, sizeof(err)) || (size_t)snprintf(buf, len, "%s", s.label) >= len)
		return NULL;
	return buf;
}

const char *lab_results_workload_label(const char *label, char *buf, size_t len)
{
	const char *l = parsed_label(&lab_workload_registry, label, buf, len);

	return l ? l : label;
}

const char *lab_results_variant_label(const char *label, const char *workload, char *buf, size_t len)
{
	char name[64];
	const struct lab_workload_ops *ops = lab_workload_lookup(lab_workload_base(workload, name, sizeof(name)));
	const char *l = NULL;

	if (!ops || !ops->uses_lazy_mm)
		l = parsed_label(&lab_rwsem_registry, label, buf, len);
	if (!l && (!ops || ops->uses_lazy_mm))
		l = parsed_label(&lab_lazy_mm_registry, label, buf, len);
	return l ? l : label;
}

/*
 * The id of workload label @label as run writes it (lab_results_workload_label()),
 * so the same knobs in another order are one workload, one cell.
 */
static int workload_id(struct loader *L, const char *label)
{
	int raw = intern(&L->st->str, label), id = imap_get(&L->wl_map, raw, 0, 0, 0);
	char buf[LAB_SPEC_MAX];

	if (id < 0) {
		id = intern(&L->st->str, lab_results_workload_label(label, buf, sizeof(buf)));
		imap_put(&L->wl_map, raw, 0, 0, 0, id);
	}
	return id;
}

/* The id of variant label @label of rows of workload @w (an id) as run writes it (lab_results_variant_label()). */
static int variant_id(struct loader *L, const char *label, int w)
{
	int raw = intern(&L->st->str, label), id = imap_get(&L->vl_map, raw, w, 0, 0);
	char buf[LAB_SPEC_MAX];

	if (id < 0) {
		id = intern(&L->st->str, lab_results_variant_label(label, S(L->st, w), buf, sizeof(buf)));
		imap_put(&L->vl_map, raw, w, 0, 0, id);
	}
	return id;
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
 * The group and column of row @f under --by with fault_path: the workload
 * label stands without its mm_lock knob, and fault_path is its title.
 */
static void fault_path_keys(struct loader *L, const char *const *f, int *ig, int *ic)
{
	char base[LAB_SPEC_MAX], key[1024] = "";
	const char *title = lab_results_fault_path(f[L->col[C_WORKLOAD]], base, sizeof(base));
	static const int ident[2] = { C_VARIANT, C_WORKLOAD };

	for (int i = 0; i < 2; i++) {	/* the group: variant and base workload, unless in --by */
		bool used = false;

		for (int k = 0; k < L->nby; k++)
			used |= L->bycol[k] == L->col[ident[i]];
		if (!used)
			snprintf(key + strlen(key), sizeof(key) - strlen(key), "%s%s", key[0] ? " " : "",
				 ident[i] == C_WORKLOAD ? base : f[L->col[ident[i]]]);
	}
	*ig = intern(&L->st->str, key);
	key[0] = 0;
	for (int k = 0; k < L->nby; k++)
		snprintf(key + strlen(key), sizeof(key) - strlen(key), "%s%s", k ? " " : "",
			 L->bycol[k] < 0 ? (title ? title : "no fault path") : L->bycol[k] == L->col[C_WORKLOAD] ? base :
										 f[L->bycol[k]]);
	*ic = intern(&L->st->str, key);
}

/* The store's id of the reader's context @id (copied on first use). */
static int global_ctx(struct loader *L, const struct lab_csv_reader *rd, int id)
{
	struct lab_results_store *st = L->st;

	while (L->nctx_map <= id) {
		int k = L->nctx_map, g;
		size_t off = 0;

		for (int c = 0; c < st->nccols; c++)
			off += (size_t)snprintf(L->key + off, off < sizeof(L->key) ? sizeof(L->key) - off : 0, "%s\x1f",
						lab_csv_reader_ctx(rd, k, lab_csv_reader_col(rd, st->ccol[c])));
		g = intern(&st->ctx_keys, L->key);
		if (g == st->nctx) {
			st->ctxv = grow(st->ctxv, st->nctx, sizeof(*st->ctxv));
			st->ctxv[g] = xrealloc(NULL, (size_t)(st->nccols ? st->nccols : 1) * sizeof(char *));
			for (int c = 0; c < st->nccols; c++)
				st->ctxv[g][c] = (char *)istr(&st->str, lab_csv_reader_ctx(rd, k,
								lab_csv_reader_col(rd, st->ccol[c])));
			st->ctx_cpus = grow(st->ctx_cpus, st->nctx, sizeof(*st->ctx_cpus));
			st->ctx_cpus[g] = ctx_col(st, LAB_CSV_NAME(cpus)) < 0 ? 0 :
					  atoi(st->ctxv[g][ctx_col(st, LAB_CSV_NAME(cpus))]);
			st->nctx++;
		}
		L->ctx_map = grow(L->ctx_map, L->nctx_map, sizeof(int));
		L->ctx_map[L->nctx_map++] = g;
	}
	return L->ctx_map[id];
}

static int cell_id(struct lab_results_store *st, int v, int w, int th, int host)
{
	int id = imap_get(&st->cells_map, v, w, th, host);

	if (id >= 0)
		return id;
	st->cells = grow(st->cells, st->ncells, sizeof(*st->cells));
	st->cells[st->ncells] = (struct cell){ .v = v, .w = w, .th = th, .host = host, .first_seq = -1, .ts_lo = -1,
					       .ts_hi = -1, .fail_seq = -1 };
	imap_put(&st->cells_map, v, w, th, host, st->ncells);
	return st->ncells++;
}

/* An iteration as a key: a canonical decimal as itself, any other text as -1 - its string id. */
static int iteration_key(struct lab_results_store *st, const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (n && n <= 9 && !s[n] && (s[0] != '0' || n == 1))
		return atoi(s);
	return -1 - intern(&st->str, s);
}

/* Has (@cell, @run, @it) had metric @lm (its id among the metrics) already? Marks it. */
static bool seen_before(struct lab_results_store *st, int cell, int run, int it, int lm)
{
	int id = imap_get(&st->seen_map, cell, run, it, 0);
	struct seen *s;
	uint64_t *w, bit;

	if (id < 0) {
		st->seen = grow(st->seen, st->nseen, sizeof(*st->seen));
		memset(&st->seen[st->nseen], 0, sizeof(*st->seen));
		imap_put(&st->seen_map, cell, run, it, 0, st->nseen);
		id = st->nseen++;
	}
	s = &st->seen[id];
	if (lm >= 128 && (lm - 128) / 64 >= s->nmore) {
		int n = (lm - 128) / 64 + 1;

		s->more = xrealloc(s->more, (size_t)n * sizeof(uint64_t));
		memset(s->more + s->nmore, 0, (size_t)(n - s->nmore) * sizeof(uint64_t));
		s->nmore = n;
	}
	w = lm < 128 ? &s->w[lm / 64] : &s->more[(lm - 128) / 64];
	bit = 1ull << (lm % 64);
	if (*w & bit)
		return true;
	*w |= bit;
	return false;
}

static int series_id(struct loader *L, int ig, int ic, int im, int th, const int *vwt)
{
	struct lab_results_store *st = L->st;
	int id = imap_get(&st->series_map, ig, ic, im, th);

	if (id >= 0)
		return id;
	st->s = grow(st->s, st->ns, sizeof(*st->s));
	st->s_first = grow(st->s_first, st->ns, sizeof(*st->s_first));
	for (int k = 0; k < 3; k++)
		st->s_vwt[k] = grow(st->s_vwt[k], st->ns, sizeof(int));
	memset(&st->s[st->ns], 0, sizeof(*st->s));
	st->s[st->ns].ig = ig;
	st->s[st->ns].ic = ic;
	st->s[st->ns].im = im;
	st->s[st->ns].threads = th;
	st->s[st->ns].workload = S(st, vwt[1]);
	st->s[st->ns].variant = S(st, vwt[0]);
	st->s_first[st->ns] = -1;
	for (int k = 0; k < 3; k++)
		st->s_vwt[k][st->ns] = vwt[k];
	imap_put(&st->series_map, ig, ic, im, th, st->ns);
	return st->ns++;
}

/* Count pending row @p: its value, its cell's first row, context, timestamps and mark. */
static void commit_row(struct loader *L, const struct prow *p)
{
	struct lab_results_store *st = L->st;
	struct cell *c = &st->cells[p->cell];

	if (c->first_seq < 0) {
		c->first_seq = p->seq;
		c->first_src = L->src;
		c->first_line = p->line;
		c->first_ctx = p->ctx;
	}
	if (p->ts >= 0 && *S(st, p->ts)) {
		if (c->ts_lo < 0 || strcmp(S(st, p->ts), S(st, c->ts_lo)) < 0)
			c->ts_lo = p->ts;
		if (c->ts_hi < 0 || strcmp(S(st, p->ts), S(st, c->ts_hi)) > 0)
			c->ts_hi = p->ts;
	}
	if (!c->nctx || c->ctx[c->nctx - 1].ctx != p->ctx || c->ctx[c->nctx - 1].col != p->col) {
		bool known = false;

		for (int i = 0; i < c->nctx && !known; i++)
			known = c->ctx[i].ctx == p->ctx && c->ctx[i].col == p->col;
		if (!known) {
			c->ctx = grow(c->ctx, c->nctx, sizeof(*c->ctx));
			c->ctx[c->nctx++] = (struct cell_ctx){ p->ctx, p->col, p->seq };
		}
	}
	if (p->failmark && !c->failed) {
		c->failed = true;
		c->fail_seq = p->seq;
	}
	c->exited |= p->exitmark;
	if (p->series >= 0) {
		struct lab_series *s = &st->s[p->series];

		if (!s->n) {
			st->s_first[p->series] = p->seq;
			s->unit = S(st, p->unit);
			s->better = (enum lab_better)p->better;
		}
		if (st->ctx_cpus[p->ctx] > 0 && (!s->cpus || st->ctx_cpus[p->ctx] < s->cpus))
			s->cpus = st->ctx_cpus[p->ctx];
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap + s->cap / 2 + 8 : 8;
			s->v = xrealloc(s->v, (size_t)s->cap * sizeof(double));
		}
		s->v[s->n++] = p->v;
	}
}

static void commit_pending(struct loader *L)
{
	for (int i = 0; i < L->st->npend; i++)
		commit_row(L, &L->st->pend[i]);
	L->st->npend = 0;
}

/* Are the pending rows (one cell's, the last of the file) iterations 0..@n-1 with as many rows each? */
static bool pending_complete(const struct lab_results_store *st, int n)
{
	int *count = calloc((size_t)n, sizeof(*count));
	bool ok = true;

	if (!count)
		abort();
	for (int i = 0; i < st->npend; i++) {
		int it = st->pend[i].it;

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

/* What becomes of a failed or unfinished cell, as the lines about them say it. */
static const char *failed_fate(const struct loader *L)
{
	if (L->flags & LAB_RESULTS_INCLUDE_FAILED)
		return "compared as --include-failed asks";
	return L->flags & LAB_RESULTS_OPTIONS ? "left out (--include-failed compares it)" : "left out";
}

/*
 * The end of input @src: its last cell's rows, when they are not complete,
 * are the tail of an interrupted write (a kill, a full disk before rwlab cut
 * it back): left out and named, unless --include-failed.
 */
static void end_of_input(struct loader *L, const char *name)
{
	struct lab_results_store *st = L->st;
	int n = st->npend && st->seg[3] >= 0 ? settings_n(S(st, st->seg[3])) : 0;

	if (n > 0 && L->col[C_ITERATION] >= 0 && !pending_complete(st, n)) {
		const struct cell *c = &st->cells[st->pend[0].cell];

		st->unfinished_at = grow(st->unfinished_at, st->nunfinished, sizeof(int));
		st->unfinished_at[st->nunfinished++] = (int)st->unfinished.len;
		lab_buf_printf(&st->unfinished, "%s: %s:%d: cell %s %s t=%s is unfinished (not iterations 0..%d with "
			       "as many rows each: an interrupted write): %s\n", lab_prog(), name, st->pend[0].line,
			       S(st, c->v), S(st, c->w), S(st, c->th), n - 1, failed_fate(L));
		if (!(L->flags & LAB_RESULTS_INCLUDE_FAILED)) {
			st->npend = 0;
			L->r->nleft_out++;
		}
	}
	commit_pending(L);
	st->seg[0] = st->seg[1] = st->seg[2] = st->seg[3] = -1;
}

/*
 * Does the variant of label id @v count metric @m? Every metric but a lock
 * event its variant, known to this build, does not count (events.h): such a
 * row (a 0 that older runs wrote for every event) is read as no figure at
 * all, so no column shows a 0 for an event it never counts.
 */
static bool counted(struct lab_results_store *st, int v, const char *m)
{
	int e = strncmp(m, "event.", 6) ? -1 : lab_event_index(m + 6), k;

	if (e < 0)
		return true;
	k = imap_get(&st->evset_map, v, 0, 0, 0);
	if (k < 0) {
		st->evsets = grow(st->evsets, st->nevsets, sizeof(*st->evsets));
		st->evsets[st->nevsets].known = !lab_event_set_of_label(S(st, v), &st->evsets[st->nevsets].set);
		imap_put(&st->evset_map, v, 0, 0, 0, k = st->nevsets++);
	}
	return !st->evsets[k].known || st->evsets[k].set.has[e];
}

/* Parse a threads field: 1 .. 2^20, or -1. */
static int parse_threads(const char *s)
{
	char *end;
	long th;

	errno = 0;
	th = strtol(s, &end, 10);
	return !*s || *end || errno || th < 1 || th > 1 << 20 ? -1 : (int)th;
}

/* One row (@f, at @line of the input @name). Returns 0 or -1 (a value the file cannot hold). */
static int read_row(struct loader *L, const struct lab_csv_reader *rd, const char *name, char *err, size_t errlen)
{
	struct lab_results_store *st = L->st;
	const char *const *f = L->row, *why;
	const int *col = L->col;
	struct prow p = { .line = rd->line, .seq = L->seq++ };
	int v, w, th, host, run, it, im, seg[4], nt, ig;

	memcpy(L->row, rd->row, (size_t)rd->ncols * sizeof(*L->row));
	w = workload_id(L, f[col[C_WORKLOAD]]);
	v = variant_id(L, f[col[C_VARIANT]], w);
	L->row[col[C_WORKLOAD]] = S(st, w);
	L->row[col[C_VARIANT]] = S(st, v);

	if (lab_value_parse(f[col[C_VALUE]], &p.v, &why)) {
		snprintf(err, errlen, "%s:%d: value '%s' is %s", name, rd->line, f[col[C_VALUE]], why);
		return -1;
	}
	if (p.v < 0 && !lab_value_may_be_negative(f[col[C_METRIC]], f[col[C_UNIT]])) {
		snprintf(err, errlen, "%s:%d: value %s of metric '%s' is negative, which its unit '%s' cannot be", name,
			 rd->line, f[col[C_VALUE]], f[col[C_METRIC]], f[col[C_UNIT]]);
		return -1;
	}
	th = intern(&st->str, f[col[C_THREADS]]);
	host = col[C_HOST] >= 0 ? intern(&st->str, f[col[C_HOST]]) : -1;
	run = col[C_RUN] >= 0 ? intern(&st->str, f[col[C_RUN]]) : -1;
	it = col[C_ITERATION] >= 0 ? iteration_key(st, f[col[C_ITERATION]]) : 0;
	im = intern(&st->met, f[col[C_METRIC]]);
	p.cell = cell_id(st, v, w, th, host);
	if (seen_before(st, p.cell, run, it, im)) {
		if (!st->ndup++ && !(L->flags & LAB_RESULTS_ALLOW_DUPLICATES)) {
			st->dup.src = L->src;
			st->dup.line = rd->line;
			for (int k = 0; k < 7; k++) {
				int c = lab_csv_reader_col(rd, dup_names[k]);

				st->dup.key[k] = strdup(c >= 0 ? f[c] : "-");
			}
		}
		return 0;	/* counted once, by its first copy */
	}
	/* the rows of one cell, contiguous in one input: pending until they end */
	seg[0] = v, seg[1] = w, seg[2] = th;
	seg[3] = col[C_SETTINGS] >= 0 ? intern(&st->str, f[col[C_SETTINGS]]) : -1;
	if (memcmp(seg, st->seg, sizeof(seg))) {
		commit_pending(L);
		memcpy(st->seg, seg, sizeof(seg));
	}
	if (L->fault_path) {
		fault_path_keys(L, f, &ig, &p.col);
	} else {
		ig = L->ngr ? key_id(L, f, L->grcol, L->ngr) : intern(&st->str, "");
		p.col = key_id(L, f, L->bycol, L->nby);
	}
	nt = parse_threads(f[col[C_THREADS]]);
	if (nt < 0)
		st->cells[p.cell].bad_threads = true;
	/* a row the cell holds (its iterations stay alike) but no series: an event not counted */
	if (!counted(st, v, f[col[C_METRIC]])) {
		p.series = -1;
		if (imap_get(&st->unc_map, im, v, 0, 0) < 0) {
			imap_put(&st->unc_map, im, v, 0, 0, st->nunc);
			st->unc = grow(st->unc, st->nunc, sizeof(*st->unc));
			st->unc[st->nunc][0] = im, st->unc[st->nunc++][1] = v;
		}
		if (p.v != 0 && !st->nuncounted++)
			snprintf(st->uncounted, sizeof(st->uncounted), "%s:%d: %s %s %s", name, rd->line,
				 f[col[C_VARIANT]], f[col[C_METRIC]], f[col[C_VALUE]]);
	} else {
		p.series = nt < 0 ? -1 : series_id(L, ig, p.col, im, nt, seg);
	}
	p.ctx = global_ctx(L, rd, rd->ctx);
	p.ts = col[C_TIMESTAMP] >= 0 ? intern(&st->str, f[col[C_TIMESTAMP]]) : -1;
	p.unit = intern(&st->str, f[col[C_UNIT]]);
	p.better = (signed char)parse_better(f[col[C_BETTER]]);
	p.it = col[C_ITERATION] >= 0 ? atoi(f[col[C_ITERATION]]) : 0;
	p.failmark = !strcmp(f[col[C_METRIC]], "cell_failed") && p.v != 0;
	p.exitmark = !strcmp(f[col[C_METRIC]], "exit_status") && p.v != 0;
	if (st->npend == st->cappend) {
		st->cappend = st->cappend ? 2 * st->cappend : 256;
		st->pend = xrealloc(st->pend, (size_t)st->cappend * sizeof(*st->pend));
	}
	st->pend[st->npend++] = p;
	return 0;
}

/*
 * The columns of the first input (@rd): the ones loading needs (there: the
 * reader checked them, lab_csv_reader_open_results()), --by's, the groups'.
 */
static void setup_columns(struct loader *L, const struct lab_csv_reader *rd, const char *by)
{
	char bybuf[256], *save = NULL;

	for (int i = 0; i < C_NR; i++)
		L->col[i] = lab_csv_reader_col(rd, col_names[i]);
	L->row = xrealloc(NULL, (size_t)rd->ncols * sizeof(*L->row));	/* the other inputs have these columns */
	L->st->nccols = 0;
	L->st->ccol = xrealloc(NULL, (size_t)rd->ncols * sizeof(char *));
	for (int c = 0; c < rd->ncols; c++)	/* the run and the context columns (csv.h: the reader's contexts) */
		for (int k = LAB_CSV_FIRST_CONTEXT - 1; k < LAB_CSV_NCOLS; k++)
			if (!strcmp(rd->header[c], k < LAB_CSV_FIRST_CONTEXT ? LAB_CSV_NAME(run) : lab_csv_columns[k]))
				L->st->ccol[L->st->nccols++] = (char *)istr(&L->st->str, rd->header[c]);
	if (by && (!*by || *by == ',' || strstr(by, ",,") || by[strlen(by) - 1] == ','))
		snprintf(L->by_err, sizeof(L->by_err), "--by '%s': an empty column name (columns separated by single "
			 "commas, e.g. variant,host)", by);
	snprintf(bybuf, sizeof(bybuf), "%s", by && *by ? by : "variant");
	for (char *tok = strtok_r(bybuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = strcmp(tok, LAB_RESULTS_FAULT_PATH) ? lab_csv_reader_col(rd, tok) : -1;

		L->fault_path |= c < 0 && !strcmp(tok, LAB_RESULTS_FAULT_PATH);
		if (c < 0 && strcmp(tok, LAB_RESULTS_FAULT_PATH) && !L->by_err[0])
			by_unknown(rd, L->r->path, tok, L->by_err, sizeof(L->by_err));
		if (c >= 0 && by_is_refused(tok) && !L->by_err[0])
			snprintf(L->by_err, sizeof(L->by_err), "--by '%s': a row's own key or measurement, not a column "
				 "to compare side by side (e.g. variant, workload, host, run, kernel, or %s)", tok,
				 LAB_RESULTS_FAULT_PATH);
		for (int k = 0; k < L->nby && !L->by_err[0]; k++)
			if (L->bycol[k] == c)	/* a column twice (fault_path's is -1): its table twice over */
				snprintf(L->by_err, sizeof(L->by_err), "column '%s' given twice in --by (each column is "
					 "compared once)", tok);
		if (L->nby == MAX_BY) {
			if (!L->by_err[0])
				snprintf(L->by_err, sizeof(L->by_err), "--by: at most %d columns", MAX_BY);
			break;
		}
		L->bycol[L->nby++] = c;
	}
	if (!L->nby) {
		if (!L->by_err[0])
			snprintf(L->by_err, sizeof(L->by_err), "--by: empty column list");
		L->bycol[L->nby++] = L->col[C_VARIANT];
	}
	/* The group is the part of the identity (variant, workload) not in the column key. */
	for (int i = 0; i < 2; i++) {
		bool used = false;

		for (int k = 0; k < L->nby; k++)
			used |= L->bycol[k] == L->col[i];
		if (!used)
			L->grcol[L->ngr++] = L->col[i];
	}
	for (int k = 0; k < L->nby && !L->fault_path; k++)
		L->st->key_part[L->st->nkey_parts++] = L->bycol[k] == L->col[C_VARIANT] ? KEY_VARIANT :
						       L->bycol[k] == L->col[C_WORKLOAD] ? KEY_WORKLOAD : KEY_OTHER;
}

/* Input @i's header: the first sets the columns up, the others must have its columns. Returns 0 or -1. */
static int check_header(struct loader *L, int i, const struct lab_csv_reader *rd, const char *by, char *err,
			size_t errlen)
{
	struct lab_results_store *st = L->st;
	bool same;

	if (!i) {
		st->nhead = rd->ncols;
		st->head = xrealloc(NULL, (size_t)(st->nhead + 1) * sizeof(char *));
		for (int c = 0; c < st->nhead; c++)
			st->head[c] = istr(&st->str, rd->header[c]);
		setup_columns(L, rd, by);
		return 0;
	}
	same = rd->ncols == st->nhead;
	for (int c = 0; same && c < st->nhead; c++)
		same = !strcmp(rd->header[c], st->head[c]);
	if (same)
		return 0;
	snprintf(err, errlen, "%s: its columns differ from %s's: not CSVs of one rwlab schema", st->paths[i],
		 st->paths[0]);
	return -1;
}

/* ---- after reading ---------------------------------------------------------------- */

/* The first row of the inputs with the duplicate's key: "FILE:LINE" of the row it repeats. */
static void find_original(struct loader *L, int npaths, int *src, int *line)
{
	struct lab_results_store *st = L->st;
	char err[512];

	*src = -1, *line = 0;
	for (int i = 0; i < npaths && *src < 0; i++) {
		struct lab_csv_reader rd;
		int c[7], r = -1;

		if (lab_csv_reader_open(&rd, st->paths[i], err, sizeof(err))) {
			lab_csv_reader_close(&rd);
			continue;
		}
		for (int k = 0; k < 7; k++)
			c[k] = lab_csv_reader_col(&rd, dup_names[k]);
		while (*src < 0 && (r = lab_csv_reader_next(&rd, err, sizeof(err))) > 0) {
			bool same = true;
			int w = c[DUP_WORKLOAD] >= 0 ? workload_id(L, rd.row[c[DUP_WORKLOAD]]) : -1;

			for (int k = 0; k < 7 && same; k++) {
				const char *v = c[k] < 0 ? "-" : rd.row[c[k]];

				if (c[k] >= 0 && k == DUP_WORKLOAD)	/* the labels as read_row() keys them */
					v = S(st, w);
				if (c[k] >= 0 && k == DUP_VARIANT)
					v = S(st, variant_id(L, v, w));
				same = !strcmp(v, st->dup.key[k]);
			}
			if (same)
				*src = i, *line = rd.line;
		}
		lab_csv_reader_close(&rd);
	}
}

static const char *src_name(const struct lab_results_store *st, int src)
{
	return src < 0 ? "?" : strcmp(st->paths[src], "-") ? st->paths[src] : "stdin";
}

/* Repeated rows: refused, naming the first and the row it repeats; or, allowed, said. Returns 0 or -1. */
static int duplicates(struct loader *L, int npaths, char *err, size_t errlen)
{
	struct lab_results_store *st = L->st;
	char *const *k = st->dup.key;
	int src, line;

	if (!st->ndup)
		return 0;
	if (L->flags & LAB_RESULTS_ALLOW_DUPLICATES) {
		if (!(L->flags & LAB_RESULTS_QUIET))
			fprintf(stderr, "%s: %s: %d rows repeat an earlier row's run, cell, iteration and metric: left "
				"out (--allow-duplicates counts each once)\n", lab_prog(), L->r->path, st->ndup);
		return 0;
	}
	find_original(L, npaths, &src, &line);
	snprintf(err, errlen, "%s:%d: the row repeats %s:%d (run %s, cell %s %s t=%s, iteration %s, metric %s): %s%s",
		 src_name(st, st->dup.src), st->dup.line, src_name(st, src), line, k[0], k[1], k[2], k[3], k[4], k[5],
		 src != st->dup.src ? "the same run in two files (a file given twice?)" :
				      "a row written twice, which no rwlab run does",
		 L->flags & LAB_RESULTS_OPTIONS ? "; give --allow-duplicates to count each such row once" : "");
	return -1;
}

static int cmp_cell_key(const void *a, const void *b, void *arg)
{
	const struct lab_results_store *st = arg;
	const struct cell *x = &st->cells[*(const int *)a], *y = &st->cells[*(const int *)b];
	int c;

	if ((c = strcmp(S(st, x->v), S(st, y->v))) || (c = strcmp(S(st, x->w), S(st, y->w))) ||
	    (c = strcmp(S(st, x->th), S(st, y->th))))
		return c;
	return strcmp(S(st, x->host), S(st, y->host));
}

static int cmp_seq(const void *a, const void *b, void *arg)
{
	const long long *seq = arg, x = seq[*(const int *)a], y = seq[*(const int *)b];

	return (x > y) - (x < y);
}

/*
 * The cells that count: not failed (a cell_failed row with a non-zero count
 * in any cell of the same variant, workload and threads; named on stderr,
 * kept with --include-failed), with rows. Sets @keep[cell], and
 * @vwt_failed[cell] (the cell's variant, workload and threads failed).
 */
static void failed_cells(struct loader *L, bool *keep, bool *vwt_failed)
{
	struct lab_results_store *st = L->st;
	bool include = L->flags & LAB_RESULTS_INCLUDE_FAILED;
	struct imap vwt = { 0 };
	long long *fseq = xrealloc(NULL, (size_t)(st->ncells + 1) * sizeof(long long));
	int *order = xrealloc(NULL, (size_t)(st->ncells + 1) * sizeof(int)), n = 0;
	bool *exited = xrealloc(NULL, (size_t)(st->ncells + 1) * sizeof(bool));

	for (int i = 0; i < st->ncells; i++) {	/* each (variant, workload, threads): its first cell_failed mark */
		const struct cell *c = &st->cells[i];
		int k = imap_get(&vwt, c->v, c->w, c->th, 0);

		if (k < 0) {
			imap_put(&vwt, c->v, c->w, c->th, 0, k = i);
			fseq[k] = -1;
			exited[k] = false;
		}
		if (c->failed && (fseq[k] < 0 || c->fail_seq < fseq[k]))
			fseq[k] = c->fail_seq;
		exited[k] |= c->failed && c->exited;
	}
	for (int i = 0; i < st->ncells; i++) {
		int k = imap_get(&vwt, st->cells[i].v, st->cells[i].w, st->cells[i].th, 0);

		vwt_failed[i] = fseq[k] >= 0;
		keep[i] = st->cells[i].first_seq >= 0 && (!vwt_failed[i] || include);
		L->r->nleft_out += st->cells[i].first_seq >= 0 && !keep[i];
		if (k == i && fseq[k] >= 0)
			order[n++] = i;
	}
	qsort_r(order, (size_t)n, sizeof(int), cmp_seq, fseq);
	for (int j = 0; j < n && !(L->flags & LAB_RESULTS_QUIET); j++) {
		const struct cell *c = &st->cells[order[j]];

		fprintf(stderr, "%s: %s: cell %s %s t=%s failed (%s): %s\n", lab_prog(), L->r->path, S(st, c->v),
			S(st, c->w), S(st, c->th), exited[order[j]] ? "a run's exit_status was not 0" :
			"a count that must be 0 was not", failed_fate(L));
	}
	imap_free(&vwt);
	free(exited);
	free(fseq);
	free(order);
}

/* Does one --by key hold rows of both cells @a and @b, which then pool into one mean? */
static bool pool_together(const struct cell *a, const struct cell *b)
{
	for (int j = 0; j < a->nctx; j++)
		for (int k = 0; k < b->nctx; k++)
			if (a->ctx[j].col == b->ctx[k].col)
				return true;
	return false;
}

/*
 * One cell (variant, workload, threads) measured on two hosts would be
 * pooled into one mean: refused where one --by key holds rows of both
 * hosts, unless --by keeps them apart (host, run: each run is one host's,
 * or any column whose values differ between the hosts' rows). Returns 0 or -1.
 */
static int check_hosts(struct loader *L, const bool *keep, char *err, size_t errlen)
{
	struct lab_results_store *st = L->st;
	int *idx, n = 0, ret = 0;

	if (L->col[C_HOST] < 0)
		return 0;
	idx = xrealloc(NULL, (size_t)(st->ncells + 1) * sizeof(int));
	for (int i = 0; i < st->ncells; i++)
		if (keep[i])
			idx[n++] = i;
	qsort_r(idx, (size_t)n, sizeof(int), cmp_cell_key, st);	/* a cell's hosts side by side */
	for (int i = 0; i < n && !ret; i++) {
		const struct cell *a = &st->cells[idx[i]], *b;

		for (int j = i + 1; j < n && !ret; j++) {
			b = &st->cells[idx[j]];
			if (a->v != b->v || a->w != b->w || a->th != b->th)
				break;
			if (pool_together(a, b)) {
				snprintf(err, errlen, "%s: cell %s %s t=%s was measured on hosts '%s' and '%s': give "
					 "--by variant,host to compare them side by side (not pooled)", L->r->path,
					 S(st, a->v), S(st, a->w), S(st, a->th), S(st, a->host), S(st, b->host));
				ret = -1;
			}
		}
	}
	free(idx);
	return ret;
}

/*
 * Two contexts of cell @c under one --by key, one of simulated rows
 * (cpu_model "sim NAME: ...") and one of measured ones, into @sim and
 * @native (indexes into c->ctx). Returns whether there are.
 */
static bool sim_and_measured(const struct lab_results_store *st, const struct cell *c, int mc, int *sim, int *native)
{
	for (int j = 0; j < c->nctx; j++)
		for (int k = 0; k < c->nctx; k++)
			if (c->ctx[j].col == c->ctx[k].col && !strncmp(st->ctxv[c->ctx[j].ctx][mc], "sim ", 4) &&
			    strncmp(st->ctxv[c->ctx[k].ctx][mc], "sim ", 4)) {
				*sim = j;
				*native = k;
				return true;
			}
	return false;
}

/*
 * One cell with simulated rows (rwlab-sim's model) and measured ones would
 * pool the model's figures with a machine's into one mean (both name the
 * host they were made on): refused where one --by key holds rows of both,
 * unless --by keeps them apart (kernel or cpu_model, which tell them apart,
 * or run: each run is of one kind). Returns 0 or -1.
 */
static int check_sim_mix(struct loader *L, const bool *keep, char *err, size_t errlen)
{
	const struct lab_results_store *st = L->st;
	int mc = ctx_col(st, LAB_CSV_NAME(cpu_model)), j, k;

	for (int i = 0; i < st->ncells && mc >= 0; i++) {
		const struct cell *c = &st->cells[i];

		if (keep[i] && sim_and_measured(st, c, mc, &j, &k)) {
			const char *sim = st->ctxv[c->ctx[j].ctx][mc], *native = st->ctxv[c->ctx[k].ctx][mc];

			snprintf(err, errlen, "%s: cell %s %s t=%s has simulated rows (%.*s) and measured ones (%s): give "
				 "--by variant,kernel to compare them side by side (not pooled)", L->r->path, S(st, c->v),
				 S(st, c->w), S(st, c->th), (int)strcspn(sim, ":"), sim, *native ? native : "no cpu_model");
			return -1;
		}
	}
	return 0;
}

int lab_results_sim_model_len(const char *kernel)
{
	const char *s = strstr(kernel, " seed ");

	return s ? (int)(s - kernel) : (int)strlen(kernel);
}

/* Where the machine part of simulated kernel field @k begins (" machine HASH"), or -1 where it has none. */
static int sim_machine_at(const char *k)
{
	const char *m = strstr(k, " machine ");

	return m && m - k < lab_results_sim_model_len(k) ? (int)(m - k) : -1;
}

const char *lab_results_sim_differ(const char *const *kernel, int n)
{
	bool engines = false, machines = false;
	int m0 = n ? sim_machine_at(kernel[0]) : -1, l0 = n ? lab_results_sim_model_len(kernel[0]) : 0;

	for (int i = 1; i < n; i++) {
		int m = sim_machine_at(kernel[i]), l = lab_results_sim_model_len(kernel[i]);

		if (m < 0 || m0 < 0)
			return "models";
		engines |= m != m0 || strncmp(kernel[i], kernel[0], (size_t)m);
		machines |= l - m != l0 - m0 || strncmp(kernel[i] + m, kernel[0] + m0, (size_t)(l - m));
	}
	return engines == machines ? "models" : engines ? "engines" : "machines";
}

/*
 * Two contexts of cell @c whose simulated rows pool (one --by key) but are of
 * two models (the kernel field "rwlab-sim VERSION engine HASH machine HASH
 * seed N" differing in more than its seed), the first such pair into @a and
 * @b (indexes into c->ctx). Returns whether there is one.
 */
static bool two_models(const struct lab_results_store *st, const struct cell *c, int mc, int kc, int *a, int *b)
{
	for (int k = 0; k < c->nctx; k++) {
		char *const *y = st->ctxv[c->ctx[k].ctx];
		int j = 0, ny = lab_results_sim_model_len(y[kc]);

		if (strncmp(y[mc], "sim ", 4))
			continue;	/* measured: check_sim_mix() */
		while (c->ctx[j].col != c->ctx[k].col || strncmp(st->ctxv[c->ctx[j].ctx][mc], "sim ", 4))
			j++;	/* the first simulated context of that key: k itself at worst */
		if (lab_results_sim_model_len(st->ctxv[c->ctx[j].ctx][kc]) != ny ||
		    strncmp(st->ctxv[c->ctx[j].ctx][kc], y[kc], (size_t)ny)) {
			*a = j;
			*b = k;
			return true;
		}
	}
	return false;
}

/* The refusal of cell @c's contexts @j and @k (two_models()), into @err. */
static void two_models_err(struct loader *L, const struct cell *c, int j, int k, int mc, int kc, char *err,
			   size_t errlen)
{
	const struct lab_results_store *st = L->st;
	const char *a = st->ctxv[c->ctx[j].ctx][kc], *b = st->ctxv[c->ctx[k].ctx][kc], *const ab[2] = { a, b };
	/* the machines by the names given to --sim (cpu_model "sim NAME: ..."), where they differ */
	const char *name_a = st->ctxv[c->ctx[j].ctx][mc] + 4, *name_b = st->ctxv[c->ctx[k].ctx][mc] + 4;
	int la = (int)strcspn(name_a, ":"), lb = (int)strcspn(name_b, ":");
	char names[160] = "";

	if (la != lb || strncmp(name_a, name_b, (size_t)la))
		snprintf(names, sizeof(names), "%.*s and %.*s: ", la, name_a, lb, name_b);
	snprintf(err, errlen, "%s: cell %s %s t=%s was simulated by two %s (%s'%.*s' and '%.*s'): two "
		 "models' figures are never pooled; give --by variant,kernel to compare them side by "
		 "side, or report each model's file alone", L->r->path, S(st, c->v), S(st, c->w),
		 S(st, c->th), lab_results_sim_differ(ab, 2), names, lab_results_sim_model_len(a), a,
		 lab_results_sim_model_len(b), b);
}

/*
 * One cell with simulated rows of two models would pool two engines' or two
 * machines' figures into one mean: refused unless --by keeps them apart
 * (kernel, or any column whose values differ between the models' rows, run
 * for one: no --by key of the cell then holds rows of both). Seeds of one
 * model are repeated runs of it and pool. Returns 0 or -1.
 */
static int check_sim_models(struct loader *L, const bool *keep, char *err, size_t errlen)
{
	const struct lab_results_store *st = L->st;
	int mc = ctx_col(st, LAB_CSV_NAME(cpu_model)), kc = ctx_col(st, LAB_CSV_NAME(kernel)), j, k;

	for (int i = 0; i < st->ncells && mc >= 0 && kc >= 0; i++)
		if (keep[i] && two_models(st, &st->cells[i], mc, kc, &j, &k)) {
			two_models_err(L, &st->cells[i], j, k, mc, kc, err, errlen);
			return -1;
		}
	return 0;
}

/* A cell that counts whose threads field is not a positive integer: the first such row. Returns 0 or -1. */
static int check_threads(struct loader *L, const bool *keep, char *err, size_t errlen)
{
	const struct lab_results_store *st = L->st;
	const struct cell *bad = NULL;

	for (int i = 0; i < st->ncells; i++)
		if (keep[i] && st->cells[i].bad_threads && (!bad || st->cells[i].first_seq < bad->first_seq))
			bad = &st->cells[i];
	if (!bad)
		return 0;
	snprintf(err, errlen, "%s:%d: threads '%s' is not a positive integer", src_name(st, bad->first_src),
		 bad->first_line, S(st, bad->th));
	return -1;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* ---- the final arrays ------------------------------------------------------------------ */

static int *series_slot_final(const struct lab_results *r, int ig, int ic, int im, int threads)
{
	static int none = -1;
	const struct imap *m = &r->st->series_map;
	int k[4] = { ig, ic, im, threads };

	return m->cap ? &islot(m, k)->v : &none;
}

static void rehash_final(struct lab_results *r)
{
	imap_free(&r->st->series_map);
	for (int i = 0; i < r->ns; i++)
		imap_put(&r->st->series_map, r->s[i].ig, r->s[i].ic, r->s[i].im, r->s[i].threads, i);
}

/* Renumber the ids in @ids[] (strings of @t) by first use: the list of their strings, into @out. */
static int renumber(const struct strtab *t, int *ids, int n, const char ***out)
{
	struct imap m = { 0 };
	int k = 0;

	*out = NULL;
	for (int i = 0; i < n; i++) {
		int v = imap_get(&m, ids[i], 0, 0, 0);

		if (v < 0) {
			imap_put(&m, ids[i], 0, 0, 0, v = k);
			*out = grow((void *)*out, k, sizeof(char *));
			(*out)[k++] = t->s[ids[i]];
		}
		ids[i] = v;
	}
	imap_free(&m);
	return k;
}

/*
 * The series that count (not of a failed cell unless --include-failed; its cell_failed
 * rows renamed cell-failed when kept), in order of first appearance, and
 * the groups, columns, metrics and threads as their rows first name them.
 */
static void final_series(struct loader *L, const bool *vwt_failed)
{
	struct lab_results_store *st = L->st;
	struct lab_results *r = L->r;
	int *order = xrealloc(NULL, (size_t)(st->ns + 1) * sizeof(int)), n = 0, renamed = -1;
	int *ig, *ic, *im;
	struct imap vwt_cell = { 0 };

	for (int i = 0; i < st->ncells; i++)
		if (imap_get(&vwt_cell, st->cells[i].v, st->cells[i].w, st->cells[i].th, 0) < 0)
			imap_put(&vwt_cell, st->cells[i].v, st->cells[i].w, st->cells[i].th, 0, i);
	for (int i = 0; i < st->ns; i++) {
		int c = imap_get(&vwt_cell, st->s_vwt[0][i], st->s_vwt[1][i], st->s_vwt[2][i], 0), to;
		struct lab_series *t;

		if (!st->s[i].n || c < 0 || !vwt_failed[c] || strcmp(st->met.s[st->s[i].im], "cell_failed"))
			continue;
		/* a failed cell compared (--include-failed): its marks in the CSV's words */
		if (renamed < 0)
			renamed = intern(&st->met, "cell-failed");
		to = imap_get(&st->series_map, st->s[i].ig, st->s[i].ic, renamed, st->s[i].threads);
		if (to < 0 || to == i) {
			st->s[i].im = renamed;
			imap_put(&st->series_map, st->s[i].ig, st->s[i].ic, renamed, st->s[i].threads, i);
			continue;
		}
		t = &st->s[to];	/* a cell-failed series already: one series */
		t->v = xrealloc(t->v, (size_t)(t->n + st->s[i].n) * sizeof(double));
		memcpy(t->v + t->n, st->s[i].v, (size_t)st->s[i].n * sizeof(double));
		t->n += st->s[i].n;
		t->cap = t->n;
		t->cpus = !t->cpus || (st->s[i].cpus && st->s[i].cpus < t->cpus) ? st->s[i].cpus : t->cpus;
		st->s_first[to] = st->s_first[i] < st->s_first[to] ? st->s_first[i] : st->s_first[to];
		st->s[i].n = 0;
	}
	for (int i = 0; i < st->ns; i++) {
		int c = imap_get(&vwt_cell, st->s_vwt[0][i], st->s_vwt[1][i], st->s_vwt[2][i], 0);

		if (st->s[i].n && (c < 0 || !vwt_failed[c] || (L->flags & LAB_RESULTS_INCLUDE_FAILED)))
			order[n++] = i;
	}
	qsort_r(order, (size_t)n, sizeof(int), cmp_seq, st->s_first);
	r->s = xrealloc(NULL, (size_t)(n + 1) * sizeof(*r->s));
	ig = xrealloc(NULL, (size_t)(n + 1) * sizeof(int));
	ic = xrealloc(NULL, (size_t)(n + 1) * sizeof(int));
	im = xrealloc(NULL, (size_t)(n + 1) * sizeof(int));
	for (int i = 0; i < n; i++) {
		r->s[i] = st->s[order[i]];
		st->s[order[i]].v = NULL;	/* r->s owns the values now */
		ig[i] = r->s[i].ig, ic[i] = r->s[i].ic, im[i] = r->s[i].im;
	}
	r->ns = n;
	for (int i = 0; i < st->ns; i++)	/* the ones left out */
		free(st->s[i].v);
	free(st->s);
	st->s = NULL;
	st->ns = 0;
	r->ngroups = renumber(&st->str, ig, n, &r->groups);
	r->ncolumns = renumber(&st->str, ic, n, &r->columns);
	r->nmetrics = renumber(&st->met, im, n, &r->metrics);
	for (int i = 0; i < n; i++) {
		struct lab_series *s = &r->s[i];
		bool known = false;

		s->ig = ig[i], s->ic = ic[i], s->im = im[i];
		s->group = r->groups[s->ig];
		s->column = r->columns[s->ic];
		s->metric = r->metrics[s->im];
		for (int k = 0; k < r->nthreads && !known; k++)
			known = r->threads[k] == s->threads;
		if (!known) {
			r->threads = grow(r->threads, r->nthreads, sizeof(int));
			r->threads[r->nthreads++] = s->threads;
		}
	}
	if (r->nthreads)
		qsort(r->threads, (size_t)r->nthreads, sizeof(int), cmp_int);
	rehash_final(r);
	imap_free(&vwt_cell);
	free(order);
	free(ig);
	free(ic);
	free(im);
}

/* The contexts and timestamps of the cells that count: lab_results_ctx(), _distinct(), _timespan(). */
static void final_contexts(struct lab_results_store *st, const bool *keep)
{
	long long *first = xrealloc(NULL, (size_t)(st->nctx + 1) * sizeof(long long)), best = -1;

	st->first_ctx = -1;
	for (int i = 0; i < st->nctx; i++)
		first[i] = -1;
	for (int i = 0; i < st->ncells; i++) {
		const struct cell *c = &st->cells[i];

		if (!keep[i])
			continue;
		if (best < 0 || c->first_seq < best)
			best = c->first_seq, st->first_ctx = c->first_ctx;
		for (int k = 0; k < c->nctx; k++)
			if (first[c->ctx[k].ctx] < 0 || c->ctx[k].seq < first[c->ctx[k].ctx])
				first[c->ctx[k].ctx] = c->ctx[k].seq;
		if (c->ts_lo >= 0 && (!st->ts_first || strcmp(S(st, c->ts_lo), st->ts_first) < 0))
			st->ts_first = S(st, c->ts_lo);
		if (c->ts_hi >= 0 && (!st->ts_last || strcmp(S(st, c->ts_hi), st->ts_last) > 0))
			st->ts_last = S(st, c->ts_hi);
	}
	st->ctx_order = xrealloc(NULL, (size_t)(st->nctx + 1) * sizeof(int));
	for (int i = 0; i < st->nctx; i++)
		if (first[i] >= 0)
			st->ctx_order[st->nctx_order++] = i;
	qsort_r(st->ctx_order, (size_t)st->nctx_order, sizeof(int), cmp_seq, first);
	free(first);
}

/*
 * Move column @baseline (NULL: keep the first) to columns[0]. Returns 0, or
 * LAB_RESULTS_BAD_BASELINE with a message naming the valid ones.
 */
static int set_baseline(struct lab_results *r, const char *baseline, const char *path, char *err, size_t errlen)
{
	r->base = 0;
	if (baseline) {
		r->base = lab_results_column_key(r, baseline);
		if (r->base < 0) {
			size_t off = (size_t)snprintf(err, errlen, "baseline '%s'%s is not in %s (valid:", baseline,
						      lab_results_blank_note(baseline), path);

			for (int i = 0; i < r->ncolumns && off < errlen; i++)
				off += (size_t)snprintf(err + off, errlen - off, "%s %s", i ? "," : "", r->columns[i]);
			if (off < errlen)
				snprintf(err + off, errlen - off, ")");
			return LAB_RESULTS_BAD_BASELINE;
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
		rehash_final(r);
	}
	return 0;
}

/* The baseline=NAME settings field @settings records into @buf, or NULL where it records none. */
static const char *settings_baseline(const char *settings, char *buf, size_t len)
{
	const char *p = strstr(settings, "baseline=");

	while (p && p != settings && p[-1] != ' ')
		p = strstr(p + 1, "baseline=");
	if (!p)
		return NULL;
	p += strlen("baseline=");
	snprintf(buf, len, "%.*s", (int)strcspn(p, " "), p);
	return buf;
}

/* Does some settings field of @v[0..@n) record the baseline @name? */
static bool recorded_before(const char *const *v, int n, const char *name)
{
	char other[640];

	for (int j = 0; j < n; j++)
		if (settings_baseline(v[j], other, sizeof(other)) && !strcmp(other, name))
			return true;
	return false;
}

/*
 * The distinct baselines the runs recorded in their settings (rwlab exec's
 * rule, "baseline=none"), ", "-separated into @buf. Returns how many.
 */
static int recorded_baselines(const struct lab_results *r, char *buf, size_t len)
{
	int n = lab_results_distinct(r, LAB_CSV_NAME(settings), NULL, 0), k = 0;
	const char **v = calloc((size_t)n + 1, sizeof(*v));
	char name[640];
	size_t off = 0;

	if (!v)
		abort();
	lab_results_distinct(r, LAB_CSV_NAME(settings), v, n);
	buf[0] = 0;
	for (int i = 0; i < n; i++)
		if (settings_baseline(v[i], name, sizeof(name)) && !recorded_before(v, i, name))
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", k++ ? ", " : "", name);
	free(v);
	return k;
}

/*
 * The baseline the runs recorded, when every run that records one names the
 * same and it is a column of the table (variant columns only: --by variant,
 * or no --by); NULL otherwise, and where some run recorded one, one note
 * says so and that the first column is the baseline instead.
 */
static const char *recorded_baseline(const struct loader *L, const char *by)
{
	const struct lab_results *r = L->r;
	char names[1024];
	int n = by && strcmp(by, "variant") ? 0 : recorded_baselines(r, names, sizeof(names)), c;

	if (n == 1 && (c = lab_results_column_key(r, names)) >= 0)
		return r->columns[c];
	if (n && r->ncolumns && !(L->flags & LAB_RESULTS_QUIET))
		fprintf(stderr, "%s: note: the runs recorded %s (%s)%s: the changes are against the first column, %s "
			"(-b chooses another)\n", lab_prog(), n > 1 ? "different baselines" : "the baseline", names,
			n > 1 ? "" : ", not a column here", r->columns[0]);
	return NULL;
}

void lab_results_order_metrics(struct lab_results *r, const char *list)
{
	const char **m;
	int *to, k = 0;

	if (!list || !strcmp(list, "all") || r->nmetrics < 2)
		return;
	m = xrealloc(NULL, (size_t)r->nmetrics * sizeof(*m));
	to = xrealloc(NULL, (size_t)r->nmetrics * sizeof(*to));
	for (int i = 0; i < r->nmetrics; i++)
		to[i] = -1;
	for (const char *p = list; *p; p += *p == ',') {	/* the asked ones, in the list's order */
		size_t l = strcspn(p, ",");

		for (int i = 0; i < r->nmetrics; i++)
			if (to[i] < 0 && strlen(r->metrics[i]) == l && !strncmp(r->metrics[i], p, l))
				m[to[i] = k++] = r->metrics[i];
		p += l;
	}
	for (int i = 0; i < r->nmetrics; i++)	/* the rest, in their order */
		if (to[i] < 0)
			m[to[i] = k++] = r->metrics[i];
	memcpy(r->metrics, m, (size_t)r->nmetrics * sizeof(*m));
	for (int i = 0; i < r->ns; i++)
		r->s[i].im = to[r->s[i].im];
	free(m);
	free(to);
	rehash_final(r);
}

/* ---- loading ---------------------------------------------------------------------- */

/* Stream input @i into the store. Returns 0 or -1. */
static int read_input(struct loader *L, int i, const char *by, char *err, size_t errlen)
{
	struct lab_csv_reader rd;
	const char *name = src_name(L->st, i);
	int r;

	if (open_input(L, i, &rd, err, errlen)) {
		lab_csv_reader_close(&rd);
		return -1;
	}
	if (check_header(L, i, &rd, by, err, errlen)) {
		char e2[512];

		while ((r = lab_csv_reader_next(&rd, e2, sizeof(e2))) > 0)
			;
		if (r < 0 && not_rwlab(L->st->paths[i]))	/* not even CSV, and not ours: say that */
			snprintf(err, errlen, "%s: not an rwlab results CSV (its first line is not the header "
				 "'schema,run,timestamp,...')", name);
		lab_csv_reader_close(&rd);
		return -1;
	}
	if (L->by_err[0] || (L->flags & LAB_RESULTS_HEADER)) {	/* a wrong --by before anything the rows hold */
		lab_csv_reader_close(&rd);
		return L->by_err[0] ? -1 : 0;
	}
	L->src = i;
	L->nctx_map = 0;
	while ((r = lab_csv_reader_next(&rd, err, errlen)) > 0)
		if (read_row(L, &rd, name, err, errlen)) {
			r = -1;
			break;
		}
	if (!r && rd.torn_line && !(L->flags & LAB_RESULTS_QUIET))
		fprintf(stderr, "%s: %s:%d: the last line is incomplete (an interrupted write); left out\n", lab_prog(),
			name, rd.torn_line);
	if (!r)
		end_of_input(L, name);
	lab_csv_reader_close(&rd);
	return r;
}

int lab_results_load(struct lab_results *r, const char *path, const char *by, const char *baseline,
		     char *err, size_t errlen)
{
	return lab_results_load_many(r, &path, 1, by, baseline, 0, err, errlen);
}

int lab_results_load_many(struct lab_results *r, const char *const *paths, int npaths, const char *by,
			  const char *baseline, unsigned flags, char *err, size_t errlen)
{
	struct loader L = { .r = r, .flags = flags };
	bool *keep = NULL, *vwt_failed = NULL;
	size_t off = 0;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->st = L.st = calloc(1, sizeof(*r->st));
	if (!r->st)
		abort();
	L.st->paths = paths;
	L.st->first_ctx = -1;
	memset(L.st->seg, 0xff, sizeof(L.st->seg));
	for (int i = 0; i < npaths; i++)
		off += (size_t)snprintf(r->path_buf + off, off < sizeof(r->path_buf) ? sizeof(r->path_buf) - off : 0,
					"%s%s", i ? " + " : "", strcmp(paths[i], "-") ? paths[i] : "stdin");
	r->path = r->path_buf;
	for (int i = 0; i < npaths; i++) {
		if (read_input(&L, i, by, err, errlen)) {
			if (L.by_err[0]) {
				snprintf(err, errlen, "%s", L.by_err);
				ret = LAB_RESULTS_BAD_BY;
			}
			if (L.not_results)
				ret = LAB_RESULTS_NOT_RESULTS;
			goto out;
		}
		if ((flags & LAB_RESULTS_HEADER) && i == npaths - 1) {
			ret = 0;
			goto out;
		}
	}
	if (duplicates(&L, npaths, err, errlen))
		goto out;
	if (L.st->nuncounted && !(flags & LAB_RESULTS_QUIET))	/* left out, as every such row is, but not silently */
		fprintf(stderr, "%s: note: %d row%s of lock events the variant does not count hold a value "
			"other than 0 (the first, %s), left out: counters of an older rwlab, whose events meant "
			"otherwise (README \"Lock events\")\n", lab_prog(), L.st->nuncounted,
			L.st->nuncounted == 1 ? "" : "s", L.st->uncounted);
	for (int i = L.st->nunfinished - 1; i >= 0 && !(flags & LAB_RESULTS_QUIET); i--) {	/* the last file's first */
		fputs(L.st->unfinished.p + L.st->unfinished_at[i], stderr);
		L.st->unfinished.p[L.st->unfinished_at[i]] = 0;	/* the one before ends here */
	}
	keep = xrealloc(NULL, (size_t)(L.st->ncells + 1) * sizeof(bool));
	vwt_failed = xrealloc(NULL, (size_t)(L.st->ncells + 1) * sizeof(bool));
	failed_cells(&L, keep, vwt_failed);
	if (check_hosts(&L, keep, err, errlen) || check_sim_mix(&L, keep, err, errlen) ||
	    check_sim_models(&L, keep, err, errlen))
		goto out;
	if (check_threads(&L, keep, err, errlen))
		goto out;
	final_series(&L, vwt_failed);
	final_contexts(L.st, keep);
	ret = set_baseline(r, baseline ? baseline : recorded_baseline(&L, by), r->path, err, errlen);
out:
	free(keep);
	free(vwt_failed);
	free(L.ctx_map);
	free(L.row);
	imap_free(&L.wl_map);
	imap_free(&L.vl_map);
	if (ret || (flags & LAB_RESULTS_HEADER))
		lab_results_free(r);
	return ret;
}

void lab_results_free(struct lab_results *r)
{
	struct lab_results_store *st = r->st;

	for (int i = 0; i < r->ns; i++)
		free(r->s[i].v);
	free(r->s);
	free(r->groups);
	free(r->columns);
	free(r->metrics);
	free(r->threads);
	if (st) {
		for (int i = 0; i < st->ns; i++)
			free(st->s[i].v);
		free(st->s);
		free(st->s_first);
		for (int k = 0; k < 3; k++)
			free(st->s_vwt[k]);
		for (int i = 0; i < st->ncells; i++)
			free(st->cells[i].ctx);
		free(st->cells);
		for (int i = 0; i < st->nseen; i++)
			free(st->seen[i].more);
		free(st->seen);
		for (int i = 0; i < st->nctx; i++)
			free(st->ctxv[i]);
		free(st->ctxv);
		free(st->ctx_cpus);
		free(st->ccol);
		free(st->head);
		free(st->ctx_order);
		free(st->pend);
		for (int k = 0; k < 7; k++)
			free(st->dup.key[k]);
		lab_buf_free(&st->unfinished);
		free(st->unfinished_at);
		imap_free(&st->cells_map);
		imap_free(&st->seen_map);
		imap_free(&st->series_map);
		imap_free(&st->evset_map);
		imap_free(&st->unc_map);
		free(st->unc);
		free(st->evsets);
		strtab_free(&st->ctx_keys);
		strtab_free(&st->met);
		strtab_free(&st->str);
		free(st);
	}
	memset(r, 0, sizeof(*r));
}
