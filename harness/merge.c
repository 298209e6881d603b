/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "csv.h"
#include "inventory.h"
#include "merge.h"
#include "report.h"
#include "results.h"

/*
 * Context columns every cell of a merge should share (csv.h's LAB_CSV_MERGE
 * columns): the hosts' (kind LAB_CSV_MACHINE), then the builds' (the rest).
 */
static bool merge_col(int c, bool host)
{
	const struct lab_csv_column *cc = &lab_csv_schema[c];

	return (cc->readers & LAB_CSV_MERGE) && (cc->kind == LAB_CSV_MACHINE) == host;
}
/*
 * Run settings: tokens of the settings column (schema 2 on: "d=2s warmup=0.5s
 * n=5 seed=1 order=interleaved"); schema 1 files kept them in the plan column.
 */
static const char *const setting_keys[] = { "n", "d", "warmup", "seed", "order", NULL };

/*
 * The files are read twice, a row at a time (the second time only to write
 * the merged file): what the checks need is per context (a distinct
 * combination of the context columns a file's rows have, with its first
 * row) and per cell of a file, never per row.
 */
#define NCTXCOL (LAB_CSV_NCOLS - LAB_CSV_FIRST_CONTEXT)

/* A context of one file: the values of the context columns, and its first row. */
struct mctx {
	char *v[NCTXCOL];		/* by schema column - LAB_CSV_FIRST_CONTEXT; "" where the file has none */
	const char *settings;		/* the settings column, or plan in a schema 1 file */
	int line;
};

/* A row of a file, as the messages name it: FILE:LINE and its context. */
struct mref {
	int line, ctx;
};

/* A cell (variant, workload, threads) of one file. */
struct mcell {
	char *key;			/* variant \x1f workload \x1f threads, the labels as run writes them */
	int file;
	struct mref first, last;	/* its first and last rows */
	struct mref host_a, host_b;	/* two rows in a row of it on two hosts (host_b.line 0: none) */
	bool unfinished;		/* its file's last cell, cut short (an interrupted write): left out */
};

struct mfile {
	const char *path;
	int nrows;
	int torn_line;			/* 0, or the line of a torn last row (an interrupted write), left out */
	struct mctx *ctx;
	int nctx;
	int ncols;
	char **header;			/* the logical columns */
	int c_variant, c_workload, c_threads, c_iteration;
	/* the rows of the cell read last, from line tail_line: tail_rows, of which it_rows[I] of iteration I */
	int tail_cell, tail_line, tail_rows, *it_rows, nit;
	bool it_odd;			/* an iteration no run's -n writes: the cell is not judged */
	int cut_line;			/* 0, or the first row of an unfinished last cell, left out from there */
};

/* A label as run writes it (lab_results_*_label()), kept for the rows after it: a cell's rows follow one another. */
struct label_memo {
	char *raw;			/* as read */
	char *workload;			/* its rows' workload as run writes it (a variant label's), or "" */
	char *label;			/* as run writes it */
};

struct merge {
	const struct lab_merge_opts *o;
	struct label_memo variant, workload;
	const char *prog;		/* what its lines begin with: o->prog, or "rwlab merge" */
	struct mfile *f;
	int nf;
	struct mcell *cells;		/* in order of first appearance, then sorted by cmp_cell */
	int ncells_rec;
	int *hash;			/* (file, cell) -> cells[] index, -1 empty */
	size_t hcap;
	int nshards;			/* N of the files' shards, 0 if none is one */
	int *shard_file;		/* [1..N]: 1 + the file holding shard I, 0 if none */
};

static const char *cval(const struct mfile *f, int ctx, int col)
{
	return f->ctx[ctx].v[col - LAB_CSV_FIRST_CONTEXT];
}

/* "FILE:LINE (shard I/N, host H)" */
static const char *where(const struct mfile *f, struct mref r, char *buf, size_t len)
{
	const char *sh = cval(f, r.ctx, LAB_CSV_COL_shard), *host = cval(f, r.ctx, LAB_CSV_COL_host);

	snprintf(buf, len, "%s:%d (shard %s, host %s)", f->path, r.line, *sh ? sh : "-", *host ? host : "?");
	return buf;
}

/* The first row of context @c of @f. */
static struct mref ctx_ref(int c, const struct mfile *f)
{
	return (struct mref){ f->ctx[c].line, c };
}

/* Value of token @key in a plan string ("fp=... seed=1"), into @buf; "" if absent. */
static const char *plan_token(const char *plan, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	buf[0] = 0;
	for (const char *p = plan; p && *p;) {
		size_t tl = strcspn(p, " ");

		if (tl > kl && !strncmp(p, key, kl) && p[kl] == '=')
			snprintf(buf, len, "%.*s", (int)(tl - kl - 1), p + kl + 1);
		p += tl;
		p += strspn(p, " ");
	}
	return buf;
}

/* The file's context @id of reader @rd, copied on first use (with its first row @line). */
static int file_ctx(struct mfile *f, const struct lab_csv_reader *rd, int id, int line)
{
	bool settings = lab_csv_reader_col(rd, LAB_CSV_NAME(settings)) >= 0;

	while (f->nctx <= id) {
		struct mctx *c;

		f->ctx = realloc(f->ctx, (size_t)(f->nctx + 1) * sizeof(*f->ctx));
		if (!f->ctx)
			abort();
		c = &f->ctx[f->nctx];
		for (int k = 0; k < NCTXCOL; k++) {
			int col = lab_csv_reader_col(rd, lab_csv_schema[LAB_CSV_FIRST_CONTEXT + k].name);

			c->v[k] = strdup(col >= 0 ? lab_csv_reader_ctx(rd, f->nctx, col) : "");
			if (!c->v[k])
				abort();
		}
		c->settings = c->v[(settings ? LAB_CSV_COL_settings : LAB_CSV_COL_plan) - LAB_CSV_FIRST_CONTEXT];
		c->line = line;
		f->nctx++;
	}
	return id;
}

static uint64_t cell_hash(int file, const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)(unsigned)file;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 0x100000001b3ull;
	return h ^ h >> 31;
}

/* The slot of file @file's cell @key in m->hash: its index, or -1 where it would go. */
static int *cell_slot(const struct merge *m, int file, const char *key)
{
	for (size_t i = cell_hash(file, key) & (m->hcap - 1);; i = (i + 1) & (m->hcap - 1))
		if (m->hash[i] < 0 || (m->cells[m->hash[i]].file == file && !strcmp(m->cells[m->hash[i]].key, key)))
			return &m->hash[i];
}

static int cell_find(const struct merge *m, int file, const char *key)
{
	return m->hcap ? *cell_slot(m, file, key) : -1;
}

static void cell_add(struct merge *m, int id)
{
	if (2 * (size_t)(id + 1) > m->hcap) {
		m->hcap = m->hcap ? 2 * m->hcap : 1024;
		free(m->hash);
		m->hash = malloc(m->hcap * sizeof(int));
		if (!m->hash)
			abort();
		memset(m->hash, 0xff, m->hcap * sizeof(int));
		for (int i = 0; i < id; i++)
			*cell_slot(m, m->cells[i].file, m->cells[i].key) = i;
	}
	*cell_slot(m, m->cells[id].file, m->cells[id].key) = id;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		abort();
	return d;
}

/* Label @raw of rows of workload @workload (NULL: @raw is a workload label) as run writes it. */
static const char *label_as_run(struct label_memo *lm, const char *raw, const char *workload)
{
	char buf[LAB_SPEC_MAX];

	if (lm->raw && !strcmp(lm->raw, raw) && !strcmp(lm->workload, workload ? workload : ""))
		return lm->label;
	free(lm->raw);
	free(lm->workload);
	free(lm->label);
	lm->raw = xstrdup(raw);
	lm->workload = xstrdup(workload ? workload : "");
	lm->label = xstrdup(workload ? lab_results_variant_label(raw, workload, buf, sizeof(buf)) :
				       lab_results_workload_label(raw, buf, sizeof(buf)));
	return lm->label;
}

static void label_memo_free(struct label_memo *lm)
{
	free(lm->raw);
	free(lm->workload);
	free(lm->label);
}

/* Row @rd of cell @cell of @f: the rows per iteration of the cell read last. */
static void count_iteration(struct mfile *f, int cell, const struct lab_csv_reader *rd)
{
	const char *s = f->c_iteration >= 0 ? rd->row[f->c_iteration] : "";
	char *end;
	long it = strtol(s, &end, 10);

	if (cell != f->tail_cell) {	/* a cell's rows follow one another: a new cell */
		f->tail_cell = cell, f->tail_line = rd->line, f->tail_rows = 0, f->it_odd = false;
		if (f->nit)	/* it_rows is NULL until a first iteration (memset's pointer must not be) */
			memset(f->it_rows, 0, (size_t)f->nit * sizeof(int));
	}
	f->tail_rows++;
	if (!*s || *end || it < 0 || it >= 100000) {
		f->it_odd = true;
		return;
	}
	if (it >= f->nit) {
		f->it_rows = realloc(f->it_rows, (size_t)(it + 1) * sizeof(int));
		if (!f->it_rows)
			abort();
		memset(f->it_rows + f->nit, 0, (size_t)(it + 1 - f->nit) * sizeof(int));
		f->nit = (int)it + 1;
	}
	f->it_rows[it]++;
}

/* Row @rd of file @fi: its context, and its cell's rows (a new cell of the file, or the current one). */
static void note_row(struct merge *m, int fi, const struct lab_csv_reader *rd, char **key, size_t *keylen)
{
	struct mfile *f = &m->f[fi];
	struct mref ref = { rd->line, file_ctx(f, rd, rd->ctx, rd->line) };
	const char *w = label_as_run(&m->workload, rd->row[f->c_workload], NULL);
	const char *v = label_as_run(&m->variant, rd->row[f->c_variant], w), *t = rd->row[f->c_threads];
	struct mcell *c = NULL;
	size_t need = strlen(v) + strlen(w) + strlen(t) + 3;

	f->nrows++;
	if (need > *keylen) {
		*keylen = 2 * need;
		*key = realloc(*key, *keylen);
		if (!*key)
			abort();
	}
	snprintf(*key, *keylen, "%s\x1f%s\x1f%s", v, w, t);
	{
		int id = cell_find(m, fi, *key);

		c = id >= 0 ? &m->cells[id] : NULL;
	}
	if (!c) {
		if (!(m->ncells_rec & (m->ncells_rec - 1)) &&
		    !(m->cells = realloc(m->cells, (size_t)(m->ncells_rec ? 2 * m->ncells_rec : 1) * sizeof(*m->cells))))
			abort();
		c = &m->cells[m->ncells_rec];
		*c = (struct mcell){ .key = strdup(*key), .file = fi, .first = ref, .last = ref };
		if (!c->key)
			abort();
		cell_add(m, m->ncells_rec++);
		count_iteration(f, (int)(c - m->cells), rd);
		return;
	}
	count_iteration(f, (int)(c - m->cells), rd);
	if (!c->host_b.line && strcmp(cval(f, c->last.ctx, LAB_CSV_COL_host), cval(f, ref.ctx, LAB_CSV_COL_host)))
		c->host_a = c->last, c->host_b = ref;
	c->last = ref;
}

/* "V W t=T" of cell key @key, into @buf. */
static const char *cell_name(const char *key, char *buf, size_t len)
{
	const char *w = strchr(key, '\x1f'), *t = strchr(w + 1, '\x1f');

	snprintf(buf, len, "%.*s %.*s t=%s", (int)(w - key), key, (int)(t - w - 1), w + 1, t + 1);
	return buf;
}

/*
 * The last cell of @f, judged as report judges it: without iterations
 * 0..N-1 (N: its -n) and as many rows each, it is the tail of an interrupted
 * write, left out of the merge whole. Returns its N where it is, else 0.
 */
static int cut_tail(struct merge *m, struct mfile *f)
{
	char tok[64];
	struct mcell *c;
	int n;

	if (f->tail_cell < 0 || f->it_odd)
		return 0;
	c = &m->cells[f->tail_cell];
	n = atoi(plan_token(f->ctx[c->last.ctx].settings, "n", tok, sizeof(tok)));
	if (n <= 0 || f->nit > n)
		return 0;	/* no -n, or not one run's: not judged */
	for (int it = 0; it < n; it++)
		if (it >= f->nit || !f->it_rows[it] || f->it_rows[it] != f->it_rows[0]) {
			c->unfinished = true;
			f->cut_line = f->tail_line;
			return n;
		}
	return 0;
}

/* What an interrupted write left at the end of @f (a torn line, an unfinished cell of -n @n), left out: one line. */
static void say_cut(const struct merge *m, const struct mfile *f, int n)
{
	char name[3 * LAB_SPEC_MAX];
	int rows = f->tail_rows;

	if (f->cut_line)
		cell_name(m->cells[f->tail_cell].key, name, sizeof(name));
	if (f->torn_line && !f->cut_line)
		fprintf(stderr, "%s: %s:%d: the last line is incomplete (an interrupted write); left out\n", m->prog,
			f->path, f->torn_line);
	else if (f->torn_line)
		fprintf(stderr, "%s: %s:%d: the last line is incomplete (an interrupted write); left out, and with it "
			"the %d row%s of unfinished cell %s from line %d (not iterations 0..%d with as many rows "
			"each)\n", m->prog, f->path, f->torn_line, rows, rows == 1 ? "" : "s", name, f->cut_line,
			n - 1);
	else if (f->cut_line)
		fprintf(stderr, "%s: %s:%d: cell %s is unfinished (not iterations 0..%d with as many rows each: an "
			"interrupted write); its %d row%s left out\n", m->prog, f->path, f->cut_line, name, n - 1,
			rows, rows == 1 ? "" : "s");
}

static int load(struct merge *m)
{
	char err[4200], *key = NULL;
	size_t keylen = 0;
	int ret = 0;

	for (int i = 0; i < m->nf && !ret; i++) {
		struct mfile *f = &m->f[i];
		struct lab_csv_reader rd;
		int r, n;

		f->path = strcmp(m->o->paths[i], "-") ? m->o->paths[i] : "stdin";	/* as messages name it */
		/* a header that is no results CSV's is refused there: stdin or a FIFO is read no further */
		if (lab_csv_reader_open_results(&rd, m->o->paths[i], err, sizeof(err))) {
			if (!m->o->quiet)	/* quiet: the caller reads the file and says why */
				fprintf(stderr, "%s: %s\n", m->prog, err);
			lab_csv_reader_close(&rd);
			ret = -1;
			break;
		}
		f->ncols = rd.ncols;
		f->header = calloc((size_t)rd.ncols, sizeof(char *));
		if (!f->header)
			abort();
		for (int c = 0; c < rd.ncols; c++)
			if (!(f->header[c] = strdup(rd.header[c])))
				abort();
		f->c_variant = lab_csv_reader_col(&rd, LAB_CSV_NAME(variant));
		f->c_workload = lab_csv_reader_col(&rd, LAB_CSV_NAME(workload));
		f->c_threads = lab_csv_reader_col(&rd, LAB_CSV_NAME(threads));
		f->c_iteration = lab_csv_reader_col(&rd, LAB_CSV_NAME(iteration));
		f->tail_cell = -1;
		if (i && f->ncols != m->f[0].ncols) {
			if (!m->o->quiet)	/* quiet: the caller's loader says it, in its one line */
				fprintf(stderr, "%s: %s has %d columns, %s %d: files of two rwlab CSV "
					"schemas\n", m->prog, f->path, f->ncols, m->f[0].path, m->f[0].ncols);
			ret = -1;
		}
		for (int c = 0; !ret && i && c < f->ncols; c++)
			if (strcmp(f->header[c], m->f[0].header[c])) {
				if (!m->o->quiet)
					fprintf(stderr, "%s: column %d is '%s' in %s but '%s' in %s: files of "
						"two rwlab CSV schemas\n", m->prog, c + 1, f->header[c], f->path,
						m->f[0].header[c], m->f[0].path);
				ret = -1;
			}
		while (!ret && (r = lab_csv_reader_next(&rd, err, sizeof(err))) > 0)
			note_row(m, i, &rd, &key, &keylen);
		if (!ret && r < 0) {
			if (!m->o->quiet)
				fprintf(stderr, "%s: %s\n", m->prog, err);
			ret = -1;
		}
		f->torn_line = rd.torn_line;
		n = cut_tail(m, f);
		if (!ret && !m->o->quiet)	/* report says it itself, as report */
			say_cut(m, f, n);
		lab_csv_reader_close(&rd);
		if (!ret && !f->nrows && !m->o->quiet)	/* report says it itself, as report */
			fprintf(stderr, "%s: WARNING: %s holds no results\n", m->prog, f->path);
	}
	free(key);
	return ret;
}

/* Shard ids and plans: one plan, one shard count, each shard in one file. */
static int check_plans(struct merge *m)
{
	const char *plan0 = NULL;
	char fp0[64] = "", fp[64], a[64], b[64], w0[512], w1[512];
	struct mref ref0 = { 0 }, sref = { 0 }, nref = { 0 };
	int f0 = -1, sf = -1, nf = -1;

	for (int i = 0; i < m->nf; i++) {
		const struct mfile *f = &m->f[i];

		for (int c = 0; c < f->nctx; c++) {	/* each context at its first row, in file order */
			const char *sh = cval(f, c, LAB_CSV_COL_shard), *plan = cval(f, c, LAB_CSV_COL_plan);
			struct mref r = ctx_ref(c, f);
			int si = 0, sn = 0;

			if (*sh && (sscanf(sh, "%d/%d", &si, &sn) != 2 || si < 1 || si > sn || sn > 100000)) {
				fprintf(stderr, "%s: %s:%d: shard '%s' is not I/N\n", m->prog, f->path, r.line, sh);
				return -1;
			}
			if (sn && !m->nshards) {
				m->nshards = sn;
				m->shard_file = calloc((size_t)sn + 1, sizeof(int));
				if (!m->shard_file)
					abort();
				sf = i, sref = r;
			}
			if (sn && sn != m->nshards) {
				fprintf(stderr, "%s: %s is shard %s but %s shard of %d: two shard counts\n", m->prog,
					where(f, r, w1, sizeof(w1)), sh, where(&m->f[sf], sref, w0, sizeof(w0)), m->nshards);
				return -1;
			}
			if (si && m->shard_file[si] && m->shard_file[si] != i + 1) {
				fprintf(stderr, "%s: shard %s is in both %s and %s: give one of them\n", m->prog, sh,
					m->f[m->shard_file[si] - 1].path, f->path);
				return -1;
			}
			if (si)
				m->shard_file[si] = i + 1;
			if (!*plan_token(plan, "fp", fp, sizeof(fp))) {
				if (nf < 0)	/* not a run's (bench-lazy's, an older rwlab's): no plan */
					nf = i, nref = r;
				continue;
			}
			if (!plan0) {
				plan0 = plan, ref0 = r, f0 = i;
				snprintf(fp0, sizeof(fp0), "%s", fp);
				continue;
			}
			if (strcmp(fp, fp0)) {
				fprintf(stderr, "%s: %s and %s are not shards of one plan (fingerprint %s, "
					"%s cells vs %s, %s cells): another matrix or other run options\n", m->prog,
					where(&m->f[f0], ref0, w0, sizeof(w0)), where(f, r, w1, sizeof(w1)), fp0,
					plan_token(plan0, "cells", a, sizeof(a)), fp,
					plan_token(plan, "cells", b, sizeof(b)));
				return -1;
			}
		}
	}
	if (plan0 && nf >= 0) {
		fprintf(stderr, "%s: %s is not a shard of the run of %s: its rows record no plan (not written by "
			"rwlab run); merge takes the shards of one run's plan\n", m->prog,
			where(&m->f[nf], nref, w1, sizeof(w1)), where(&m->f[f0], ref0, w0, sizeof(w0)));
		return -1;
	}
	return 0;
}

/* Context column @c (kind 0: a host's, 1: a build's) or settings token (kind 2) of context @ctx of @f. */
static const char *context_value(const struct mfile *f, int ctx, int kind, int c, char *buf, size_t len)
{
	if (kind == 2)
		return plan_token(f->ctx[ctx].settings, setting_keys[c], buf, len);
	snprintf(buf, len, "%s", cval(f, ctx, c));
	return buf;
}

static bool has_col(const struct mfile *f, const char *name)
{
	for (int c = 0; c < f->ncols; c++)
		if (!strcmp(f->header[c], name))
			return true;
	return false;
}

/* Warn once per (column, distinct value) that differs from the first row's. */
static void check_context(struct merge *m)
{
	const struct mfile *ref = NULL;

	for (int i = 0; i < m->nf && !ref; i++)
		if (m->f[i].nrows)
			ref = &m->f[i];
	if (!ref)
		return;
	for (int kind = 0; kind < 3; kind++) {
		int ncols = kind == 2 ? (int)(sizeof(setting_keys) / sizeof(setting_keys[0])) - 1 : LAB_CSV_NCOLS;

		for (int c = 0; c < ncols; c++) {
			const char *name = kind == 2 ? setting_keys[c] : lab_csv_schema[c].name;
			char seen[8][256];
			int nseen = 0;
			char v0[256], v[256], w0[512], w1[512];

			if (kind < 2 && !merge_col(c, kind == 0))
				continue;
			if (kind < 2 && !has_col(ref, name))
				continue;	/* an older file's: not there */
			context_value(ref, 0, kind, c, v0, sizeof(v0));
			for (int i = 0; i < m->nf; i++) {
				const struct mfile *f = &m->f[i];

				for (int k = 0; k < f->nctx && nseen < 8; k++) {
					bool dup = false;

					if (!strcmp(context_value(f, k, kind, c, v, sizeof(v)), v0))
						continue;
					for (int j = 0; j < nseen; j++)
						dup |= !strcmp(seen[j], v);
					if (dup)
						continue;
					snprintf(seen[nseen++], sizeof(seen[0]), "%s", v);
					fprintf(stderr, "%s: WARNING: the %s differ in %s: %s has '%s', %s has "
						"'%s'%s\n", m->prog,
						kind == 0 ? "hosts" : kind == 1 ? "builds" : "shards' settings",
						name, where(ref, ctx_ref(0, ref), w0, sizeof(w0)), v0,
						where(f, ctx_ref(k, f), w1, sizeof(w1)), v,
						kind == 0 ? ": each comparison stays on one host, but the tables mix machines"
							  : "");
				}
			}
		}
	}
}

static int cmp_cell(const void *a, const void *b)
{
	const struct mcell *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->file != y->file ? x->file - y->file : x->first.line - y->first.line;
}

static const char *mhost(const struct merge *m, const struct mcell *c, struct mref r)
{
	return cval(&m->f[c->file], r.ctx, LAB_CSV_COL_host);
}

/* Two rows of one cell, @a then @b in (cell, file, row) order: not from two files or hosts. Returns 0 or -1. */
static int same_source(const struct merge *m, const struct mcell *ca, struct mref a, const struct mcell *cb,
		       struct mref b)
{
	const struct mfile *fa = &m->f[ca->file], *fb = &m->f[cb->file];
	char w0[512], w1[512], *v = cb->key, *w, *t;

	if (m->o->by_host && strcmp(mhost(m, ca, a), mhost(m, cb, b)))
		return 0;	/* compared side by side, not pooled */
	if (ca->file == cb->file && !strcmp(mhost(m, ca, a), mhost(m, cb, b)))
		return 0;
	w = strchr(v, '\x1f');
	t = strchr(w + 1, '\x1f');
	fprintf(stderr, "%s: cell %.*s %.*s t=%s is in %s and in %s: a cell is never pooled across files "
		"or hosts; drop one of them\n", m->prog, (int)(w - v), v, (int)(t - w - 1), w + 1, t + 1,
		where(fa, a, w0, sizeof(w0)), where(fb, b, w1, sizeof(w1)));
	return -1;
}

/* A cell (variant, workload, threads) comes from one file and one host. Returns the distinct cells or -1. */
static int check_cells(struct merge *m)
{
	const struct mcell *p = NULL;
	int ncells = 0;

	qsort(m->cells, (size_t)m->ncells_rec, sizeof(*m->cells), cmp_cell);
	for (int i = 0; i < m->ncells_rec; i++) {
		const struct mcell *c = &m->cells[i];

		if (c->unfinished)
			continue;	/* left out: not a cell of the merge */
		if (!p || strcmp(p->key, c->key))
			ncells++;
		else if (same_source(m, p, p->last, c, c->first))
			return -1;
		if (c->host_b.line && same_source(m, c, c->host_a, c, c->host_b))
			return -1;
		p = c;
	}
	return ncells;
}

static int strs_index(const char **v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return i;
	return -1;
}

/* Is cell @key in the merge (a file's unfinished last cell is not)? */
static bool has_cell(const struct merge *m, const char *key)
{
	int lo = 0, hi = m->ncells_rec;

	while (lo < hi) {	/* the first of the cells sorted by key that is not before @key */
		int mid = (lo + hi) / 2;

		if (strcmp(m->cells[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->ncells_rec && !strcmp(m->cells[lo].key, key); lo++)
		if (!m->cells[lo].unfinished)
			return true;
	return false;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int cmp_first(const void *a, const void *b, void *arg)
{
	const struct mcell *cells = arg, *x = &cells[*(const int *)a], *y = &cells[*(const int *)b];

	return x->file != y->file ? x->file - y->file : x->first.line - y->first.line;
}

/* Missing shards and cells of sharded files. Returns the number of problems found. */
static int check_missing(struct merge *m, int ncells)
{
	int n = m->ncells_rec;
	const char **wls = calloc((size_t)n + 1, sizeof(char *)), **vars = calloc((size_t)n + 1, sizeof(char *));
	int *vwl = calloc((size_t)n + 1, sizeof(int)), *thr = calloc((size_t)n + 1, sizeof(int));
	int *order = calloc((size_t)n + 1, sizeof(int));
	int nw = 0, nv = 0, nt = 0, problems = 0, printed = 0, nshards = m->nshards, blocks = 0, plan_cells = 0;
	char tok[64];

	if (!wls || !vars || !vwl || !thr || !order)
		abort();
	for (int i = 0; i < m->nf && !plan_cells; i++)
		if (m->f[i].nrows) {
			plan_cells = atoi(plan_token(cval(&m->f[i], 0, LAB_CSV_COL_plan), "cells", tok, sizeof(tok)));
			blocks = atoi(plan_token(cval(&m->f[i], 0, LAB_CSV_COL_plan), "blocks", tok, sizeof(tok)));
		}
	if (!plan_cells)
		goto out;	/* not written by a run that records its plan: nothing to compare with */
	for (int s = 1; s <= nshards; s++) {
		char bl[256] = "";

		if (m->shard_file[s])
			continue;
		for (int b = s; b <= blocks; b += nshards)
			snprintf(bl + strlen(bl), sizeof(bl) - strlen(bl), "%s%d", *bl ? ", " : "", b);
		fprintf(stderr, "%s: missing shard %d/%d (comparison block%s %s): no file holds it\n", m->prog, s,
			nshards, strchr(bl, ',') ? "s" : "", bl);
		problems++;
	}
	/* The grid the files span: workloads x threads x each workload's variants, as the rows first name them. */
	for (int i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, (size_t)n, sizeof(int), cmp_first, m->cells);
	for (int k = 0; k < n; k++) {
		const struct mcell *c = &m->cells[order[k]];
		const char *v = c->key, *w = strchr(v, '\x1f') + 1, *t = strchr(w, '\x1f') + 1;
		char *vs, *ws;
		int wi, known = 0, th = atoi(t);

		if (asprintf(&vs, "%.*s", (int)(w - 1 - v), v) < 0 || asprintf(&ws, "%.*s", (int)(t - 1 - w), w) < 0)
			abort();
		wi = strs_index(wls, nw, ws);
		if (wi < 0)
			wls[wi = nw++] = ws;
		else
			free(ws);
		for (int j = 0; j < nv; j++)
			known |= vwl[j] == wi && !strcmp(vars[j], vs);
		if (!known) {
			vars[nv] = vs;
			vwl[nv++] = wi;
		} else {
			free(vs);
		}
		known = 0;
		for (int j = 0; j < nt; j++)
			known |= thr[j] == th;
		if (!known)
			thr[nt++] = th;
	}
	qsort(thr, (size_t)nt, sizeof(int), cmp_int);
	for (int wi = 0; wi < nw; wi++)
		for (int ti = 0; ti < nt; ti++)
			for (int k = 0; k < nv; k++) {
				char key[1024];

				if (vwl[k] != wi)
					continue;
				snprintf(key, sizeof(key), "%s\x1f%s\x1f%d", vars[k], wls[wi], thr[ti]);
				if (has_cell(m, key))
					continue;
				problems++;
				if (printed++ < 20)
					fprintf(stderr, "%s: missing cell %s %s t=%d (failed or interrupted)\n", m->prog,
						vars[k], wls[wi], thr[ti]);
			}
	if (printed > 20)
		fprintf(stderr, "%s: ... and %d more missing cells\n", m->prog, printed - 20);
	if (ncells < plan_cells) {
		fprintf(stderr, "%s: %d of the plan's %d cell%s present\n", m->prog, ncells, plan_cells,
			plan_cells == 1 ? "" : "s");
		problems += !problems;
	}
out:
	for (int i = 0; i < nw; i++)
		free((char *)wls[i]);
	for (int i = 0; i < nv; i++)
		free((char *)vars[i]);
	free(wls);
	free(vars);
	free(vwl);
	free(thr);
	free(order);
	return problems;
}

/* The runs whose context line the merged file has: run id and line. */
struct runs_written {
	char **run, **line;
	int n;
};

/*
 * Run @run's context line from reader @rd's row into @b, unless the merged
 * file has it: then it must be the same (an older file keeps the context in
 * every row, and one run's rows have one). Returns 0, or -1 said on stderr.
 */
static int merge_context_line(const struct lab_csv_reader *rd, const char *run, struct lab_buf *b,
			      struct runs_written *known, const char *prog)
{
	const char *v[LAB_CSV_NCOLS] = { 0 };
	struct lab_buf line = { 0 };

	for (int c = LAB_CSV_FIRST_CONTEXT; c < LAB_CSV_NCOLS; c++)
		v[c] = lab_csv_reader_ctx(rd, rd->ctx, lab_csv_reader_col(rd, lab_csv_schema[c].name));
	lab_csv_context_line_of(&line, run, v);
	for (int i = known->n - 1; i >= 0; i--) {
		if (strcmp(known->run[i], run))
			continue;
		if (strcmp(known->line[i], line.p)) {
			fprintf(stderr, "%s: %s:%d: run %s's rows have two contexts (machine, build or "
				"settings): not one run's rows; the merged file cannot give the run one context line\n",
				prog, rd->name, rd->line, run);
			lab_buf_free(&line);
			return -1;
		}
		lab_buf_free(&line);
		return 0;
	}
	if (!(known->n & (known->n - 1)) &&
	    (!(known->run = realloc(known->run, (size_t)(known->n ? 2 * known->n : 1) * sizeof(char *))) ||
	     !(known->line = realloc(known->line, (size_t)(known->n ? 2 * known->n : 1) * sizeof(char *)))))
		abort();
	known->run[known->n] = strdup(run);
	known->line[known->n++] = line.p;
	if (!known->run[known->n - 1])
		abort();
	lab_buf_printf(b, "%s", line.p);
	return 0;
}

/* The row in reader @rd as a row of this schema into @b (an older file's schema column says this one's). */
static void merge_row(const struct lab_csv_reader *rd, struct lab_buf *b)
{
	for (int i = 0; i < lab_csv_file_ncols; i++) {
		enum lab_csv_col c = lab_csv_file_row[i];
		int col = lab_csv_reader_col(rd, lab_csv_schema[c].name);

		if (i)
			lab_buf_printf(b, ",");
		if (c == LAB_CSV_COL_schema)
			lab_buf_printf(b, "%d", LAB_CSV_SCHEMA);
		else
			lab_buf_field(b, col >= 0 ? rd->row[col] : "");
	}
	lab_buf_printf(b, "\n");
}

/* The merged file, a row at a time: the header, each run's context line before its first row, the rows. */
static int write_rows(const struct merge *m, FILE *fp)
{
	struct lab_buf b = { 0 };
	struct runs_written known = { 0 };
	char err[4200];
	int ret = 0;

	lab_csv_header(&b);
	for (int i = 0; i < m->nf && !ret; i++) {
		struct lab_csv_reader rd;
		int r, crun, last_ctx = -1;

		if (lab_csv_reader_open(&rd, m->o->paths[i], err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", m->prog, err);
			lab_csv_reader_close(&rd);
			ret = -1;
			break;
		}
		crun = lab_csv_reader_col(&rd, LAB_CSV_NAME(run));
		while ((r = lab_csv_reader_next(&rd, err, sizeof(err))) > 0) {
			const char *run = crun >= 0 ? rd.row[crun] : "";

			if (m->f[i].cut_line && rd.line >= m->f[i].cut_line)
				continue;	/* an unfinished last cell: left out whole */
			if (rd.ctx != last_ctx) {	/* a run's context line, once per run in the merged file */
				if (merge_context_line(&rd, run, &b, &known, m->prog)) {
					ret = -1;
					break;
				}
				last_ctx = rd.ctx;
			}
			merge_row(&rd, &b);
			if (b.len > (1u << 20)) {
				if (fwrite(b.p, 1, b.len, fp) != b.len)
					ret = -1;
				b.len = 0;
			}
		}
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", m->prog, err);
			ret = -1;
		}
		lab_csv_reader_close(&rd);
	}
	if (!ret && b.len && fwrite(b.p, 1, b.len, fp) != b.len)
		ret = -1;
	lab_buf_free(&b);
	for (int i = 0; i < known.n; i++) {
		free(known.run[i]);
		free(known.line[i]);
	}
	free(known.run);
	free(known.line);
	return ret;
}

static int write_out(const struct merge *m, const char *out)
{
	char err[4200], tmp[4200];
	FILE *fp;
	int ret;

	if (!strcmp(out, "-")) {	/* stdout, as run's and report's -o - */
		ret = write_rows(m, stdout);
		if (fflush(stdout) || ret) {
			if (ret >= 0 && errno)
				fprintf(stderr, "%s: writing to stdout failed: %s\n", m->prog, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (lab_csv_keep_old(m->prog, out, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", m->prog, err);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.partial", out);
	fp = fopen(tmp, "w");
	if (!fp) {	/* named as given: OUT.partial, written first and renamed, is ours */
		fprintf(stderr, "%s: cannot write '%s': %s\n", m->prog, out, strerror(errno));
		return -1;
	}
	ret = write_rows(m, fp);
	if (fclose(fp) || ret) {
		if (ret >= 0 && errno)
			fprintf(stderr, "%s: writing '%s' failed: %s\n", m->prog, out, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, out)) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", m->prog, out, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Does any row of the loaded files carry a shard? */
static bool any_shard(const struct merge *m)
{
	for (int i = 0; i < m->nf; i++)
		for (int c = 0; c < m->f[i].nctx; c++)
			if (*cval(&m->f[i], c, LAB_CSV_COL_shard))
				return true;
	return false;
}

/*
 * The hosts the files' rows name: one, or --mixed-hosts (a lab of identical
 * servers, each shard on its own: said once, and check_context() warns where
 * they differ). Returns 0, or -1 when refused (one line on stderr).
 */
static int check_hosts(const struct merge *m)
{
	const struct mfile *f0 = NULL;
	int c0 = 0;
	bool mixed = false;
	char w0[512], w1[512];

	for (int i = 0; i < m->nf; i++) {
		const struct mfile *f = &m->f[i];

		for (int c = 0; c < f->nctx; c++) {
			if (!f0) {
				f0 = f, c0 = c;
				continue;
			}
			if (!strcmp(cval(f, c, LAB_CSV_COL_host), cval(f0, c0, LAB_CSV_COL_host)))
				continue;
			if (!m->o->mixed_hosts) {
				fprintf(stderr, "%s: %s and %s were measured on two hosts ('%s', '%s'): one run's "
					"shards mix machines there; give --mixed-hosts when they are identical servers "
					"(their differences are then warned about)\n", m->prog,
					where(f0, ctx_ref(c0, f0), w0, sizeof(w0)),
					where(f, ctx_ref(c, f), w1, sizeof(w1)), cval(f0, c0, LAB_CSV_COL_host),
					cval(f, c, LAB_CSV_COL_host));
				return -1;
			}
			mixed = true;
			f0 = f, c0 = c;
		}
	}
	if (mixed && !m->o->quiet)
		fprintf(stderr, "%s: WARNING: the files' rows name more than one host (--mixed-hosts): "
			"each comparison stays on one host, but the tables mix machines\n", m->prog);
	return 0;
}

static void merge_free(struct merge *m)
{
	for (int i = 0; i < m->ncells_rec; i++)
		free(m->cells[i].key);
	free(m->cells);
	free(m->hash);
	for (int i = 0; i < m->nf; i++) {
		struct mfile *f = &m->f[i];

		for (int c = 0; c < f->nctx; c++)
			for (int k = 0; k < NCTXCOL; k++)
				free(f->ctx[c].v[k]);
		free(f->ctx);
		for (int c = 0; c < f->ncols && f->header; c++)
			free(f->header[c]);
		free(f->header);
		free(f->it_rows);
	}
	free(m->f);
	free(m->shard_file);
	label_memo_free(&m->variant);
	label_memo_free(&m->workload);
}

int lab_merge(const struct lab_merge_opts *o)
{
	struct merge m = { .o = o, .prog = o->prog ? o->prog : LAB_PROG " merge", .nf = o->npaths };
	int ncells, problems, st = 2;

	m.f = calloc((size_t)o->npaths, sizeof(*m.f));
	if (!m.f)
		abort();
	if (load(&m)) {
		st = o->quiet ? 0 : 2;
		goto out;
	}
	if (o->only_shards && !any_shard(&m)) {
		st = 0;		/* not a sharded run's files: nothing to check */
		goto out;
	}
	if (check_plans(&m))
		goto out;
	ncells = check_cells(&m);
	if (ncells < 0 || check_hosts(&m))
		goto out;
	check_context(&m);
	lab_inventory_check(m.prog, o->paths, o->npaths);	/* the hosts' inventories, where beside the files */
	problems = check_missing(&m, ncells);
	for (int i = 0; i < m.nf; i++)
		problems += m.f[i].torn_line || m.f[i].cut_line;	/* a shard's run was interrupted in a cell */
	if (o->out && write_out(&m, o->out))
		goto out;
	st = problems ? 1 : 0;
	if (!o->quiet)
		fprintf(stderr, "%s: %d file%s, %d cell%s%s%s%s\n", m.prog, o->npaths, o->npaths == 1 ? "" : "s",
			ncells, ncells == 1 ? "" : "s", problems ? ", INCOMPLETE" : ", complete", o->out ? ": " : "",
			!o->out ? " (checked only: -o OUT.csv writes the merged file)" : strcmp(o->out, "-") ? o->out :
			"stdout");
out:
	merge_free(&m);
	return st;
}

/* Adding an option: one entry here and one case in cmd_merge()'s switch. */
static const struct lab_opt merge_opts[] = {
	{ "csv", 'o', 'o', "OUT.csv", "write the merged rows there (an existing file is kept as OUT.csv.N; - for stdout)",
	  "none: check only", NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ "mixed-hosts", 0, 'M', NULL, "accept files measured on different hosts (identical servers), warning "
	  "where their machines, builds or settings differ; refused otherwise", NULL, NULL, 0, NULL, 0, 0 },
	{ 0 }
};

static int cmd_merge(int argc, char **argv)
{
	struct lab_merge_opts o = { 0 };
	struct lab_cli cli;
	int c;

	if (lab_cli_begin(&cli, &lab_merge_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1) {
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case 'M':
			o.mixed_hosts = true;
			break;
		default:	/* getopt_long said what was wrong */
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "rwlab merge: no shard CSV given (rwlab merge [-o OUT.csv] FILE.csv...)\n");
		return 2;
	}
	if (o.out && (c = lab_report_out_check("rwlab merge", o.out)))
		return c;	/* a directory or an unwritable place: before any file is read */
	o.paths = (const char *const *)argv + optind;
	o.npaths = argc - optind;
	return lab_merge(&o);
}

int lab_report_merge(const char *const *paths, int n, bool by_host)
{
	/* report's lines; cells, not files, by host */
	struct lab_merge_opts o = { .paths = paths, .npaths = n, .prog = LAB_PROG " report", .quiet = true,
				    .only_shards = true, .by_host = by_host, .mixed_hosts = true };

	return lab_merge(&o) == 2 ? -1 : 0;
}

const struct lab_cmd lab_merge_cmd = {
	.name = "merge",
	.synopsis = "[-o OUT.csv] FILE.csv...",
	.summary = "check and merge the CSVs of a run's shards (run --shard I/N)",
	.opts = merge_opts,
	.fn = cmd_merge,
	.more = "Refuses (exit 2) files of two plans or schemas, a file of no plan beside a\n"
		"run's, two shard counts, one shard in two files, one cell in two files or\n"
		"on two hosts, and files of two hosts unless --mixed-hosts (then warned);\n"
		"warns where hosts, builds or settings differ; exit 1 when shards or cells\n"
		"are missing or a file's last cell is unfinished or its last line torn (an\n"
		"interrupted write: left out; OUT is still written), 0 when complete.\n",
	.operands = LAB_COMP_CSV,
};
