/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "csv.h"
#include "inventory.h"
#include "merge.h"

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

struct mfile {
	const char *path;
	struct lab_csv_table t;
	int c_variant, c_workload, c_threads, c_host, c_shard, c_plan;
	int c_settings;			/* the settings column, or c_plan in a schema 1 file */
};

struct mrow {
	const char *key;		/* variant \x1f workload \x1f threads */
	int file, row;
};

struct merge {
	const struct lab_merge_opts *o;
	struct mfile *f;
	int nf;
	int nshards;			/* N of the files' shards, 0 if none is one */
	int *shard_file;		/* [1..N]: 1 + the file holding shard I, 0 if none */
};

static const char *field(const struct mfile *f, int row, int col)
{
	return col >= 0 ? f->t.rows[row][col] : "";
}

static const char *col_field(const struct mfile *f, int row, const char *name)
{
	return field(f, row, lab_csv_col(&f->t, name));
}

/* "FILE:LINE (shard I/N, host H)" */
static const char *where(const struct mfile *f, int row, char *buf, size_t len)
{
	const char *sh = field(f, row, f->c_shard), *host = field(f, row, f->c_host);

	snprintf(buf, len, "%s:%d (shard %s, host %s)", f->path, f->t.line[row], *sh ? sh : "-", *host ? host : "?");
	return buf;
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

static int load(struct merge *m)
{
	char err[4200];

	for (int i = 0; i < m->nf; i++) {
		struct mfile *f = &m->f[i];

		f->path = m->o->paths[i];
		if (lab_csv_read(f->path, &f->t, err, sizeof(err))) {
			if (!m->o->quiet)	/* quiet: the caller reads the file and says why */
				fprintf(stderr, "rwlab: merge: %s\n", err);
			return -1;
		}
		f->c_variant = lab_csv_col(&f->t, LAB_CSV_NAME(variant));
		f->c_workload = lab_csv_col(&f->t, LAB_CSV_NAME(workload));
		f->c_threads = lab_csv_col(&f->t, LAB_CSV_NAME(threads));
		f->c_host = lab_csv_col(&f->t, LAB_CSV_NAME(host));
		f->c_shard = lab_csv_col(&f->t, LAB_CSV_NAME(shard));
		f->c_plan = lab_csv_col(&f->t, LAB_CSV_NAME(plan));
		f->c_settings = lab_csv_col(&f->t, LAB_CSV_NAME(settings));
		if (f->c_settings < 0)
			f->c_settings = f->c_plan;
		if (f->c_variant < 0 || f->c_workload < 0 || f->c_threads < 0) {
			fprintf(stderr, "rwlab: merge: %s has no variant, workload or threads column: not an rwlab "
				"results file\n", f->path);
			return -1;
		}
		if (i && f->t.ncols != m->f[0].t.ncols) {
			fprintf(stderr, "rwlab: merge: %s has %d columns, %s %d: files of two rwlab CSV schemas\n",
				f->path, f->t.ncols, m->f[0].path, m->f[0].t.ncols);
			return -1;
		}
		for (int c = 0; i && c < f->t.ncols; c++)
			if (strcmp(f->t.header[c], m->f[0].t.header[c])) {
				fprintf(stderr, "rwlab: merge: column %d is '%s' in %s but '%s' in %s: files of two "
					"rwlab CSV schemas\n", c + 1, f->t.header[c], f->path, m->f[0].t.header[c],
					m->f[0].path);
				return -1;
			}
		if (!f->t.nrows && !m->o->quiet)	/* report says it itself, as report */
			fprintf(stderr, "rwlab: merge: warning: %s holds no results\n", f->path);
	}
	return 0;
}

/* Shard ids and plans: one plan, one shard count, each shard in one file. */
static int check_plans(struct merge *m)
{
	const char *plan0 = NULL;
	char fp0[64] = "", fp[64], a[64], b[64], w0[512], w1[512];
	int row0 = 0, f0 = -1, sf = -1, sr = 0;

	for (int i = 0; i < m->nf; i++) {
		struct mfile *f = &m->f[i];

		for (int r = 0; r < f->t.nrows; r++) {
			const char *sh = field(f, r, f->c_shard), *plan = field(f, r, f->c_plan);
			int si = 0, sn = 0;

			if (*sh && (sscanf(sh, "%d/%d", &si, &sn) != 2 || si < 1 || si > sn || sn > 100000)) {
				fprintf(stderr, "rwlab: merge: %s:%d: shard '%s' is not I/N\n", f->path, f->t.line[r], sh);
				return -1;
			}
			if (sn && !m->nshards) {
				m->nshards = sn;
				m->shard_file = calloc((size_t)sn + 1, sizeof(int));
				if (!m->shard_file)
					abort();
				sf = i, sr = r;
			}
			if (sn && sn != m->nshards) {
				fprintf(stderr, "rwlab: merge: %s is shard %s but %s shard of %d: two shard counts\n",
					where(f, r, w1, sizeof(w1)), sh, where(&m->f[sf], sr, w0, sizeof(w0)), m->nshards);
				return -1;
			}
			if (si && m->shard_file[si] && m->shard_file[si] != i + 1) {
				fprintf(stderr, "rwlab: merge: shard %s is in both %s and %s: give one of them\n", sh,
					m->f[m->shard_file[si] - 1].path, f->path);
				return -1;
			}
			if (si)
				m->shard_file[si] = i + 1;
			if (!*plan)
				continue;
			plan_token(plan, "fp", fp, sizeof(fp));
			if (!plan0) {
				plan0 = plan, row0 = r, f0 = i;
				snprintf(fp0, sizeof(fp0), "%s", fp);
				continue;
			}
			if (strcmp(fp, fp0)) {
				fprintf(stderr, "rwlab: merge: %s and %s are not shards of one plan (fingerprint %s, "
					"%s cells vs %s, %s cells): another matrix or other run options\n",
					where(&m->f[f0], row0, w0, sizeof(w0)), where(f, r, w1, sizeof(w1)), fp0,
					plan_token(plan0, "cells", a, sizeof(a)), fp,
					plan_token(plan, "cells", b, sizeof(b)));
				return -1;
			}
		}
	}
	return 0;
}

/* Warn once per (column, distinct value) that differs from the first row's. */
static void check_context(struct merge *m)
{
	const struct mfile *ref = NULL;

	for (int i = 0; i < m->nf && !ref; i++)
		if (m->f[i].t.nrows)
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
			if (kind == 2)
				plan_token(field(ref, 0, ref->c_settings), name, v0, sizeof(v0));
			else
				snprintf(v0, sizeof(v0), "%s", col_field(ref, 0, name));
			for (int i = 0; i < m->nf; i++) {
				const struct mfile *f = &m->f[i];

				for (int r = 0; r < f->t.nrows && nseen < 8; r++) {
					bool dup = false;

					if (kind == 2)
						plan_token(field(f, r, f->c_settings), name, v, sizeof(v));
					else
						snprintf(v, sizeof(v), "%s", col_field(f, r, name));
					if (!strcmp(v, v0))
						continue;
					for (int k = 0; k < nseen; k++)
						dup |= !strcmp(seen[k], v);
					if (dup)
						continue;
					snprintf(seen[nseen++], sizeof(seen[0]), "%s", v);
					fprintf(stderr, "rwlab: merge: WARNING: the %s differ in %s: %s has '%s', %s has "
						"'%s'%s\n", kind == 0 ? "hosts" : kind == 1 ? "builds" : "shards' settings",
						name, where(ref, 0, w0, sizeof(w0)), v0, where(f, r, w1, sizeof(w1)), v,
						kind == 0 ? ": each comparison stays on one host, but the tables mix machines"
							  : "");
				}
			}
		}
	}
}

static int cmp_row(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->file != y->file ? x->file - y->file : x->row - y->row;
}

/* A cell (variant, workload, threads) comes from one file and one host. Returns the distinct cells or -1. */
static int check_cells(struct merge *m, struct mrow **rows_out, int *nrows_out)
{
	int n = 0, ncells = 0, k = 0;
	struct mrow *rows;

	for (int i = 0; i < m->nf; i++)
		n += m->f[i].t.nrows;
	rows = calloc((size_t)n + 1, sizeof(*rows));
	if (!rows)
		abort();
	for (int i = 0; i < m->nf; i++) {
		const struct mfile *f = &m->f[i];

		for (int r = 0; r < f->t.nrows; r++) {
			char *key;

			if (asprintf(&key, "%s\x1f%s\x1f%s", field(f, r, f->c_variant), field(f, r, f->c_workload),
				     field(f, r, f->c_threads)) < 0)
				abort();
			rows[k++] = (struct mrow){ key, i, r };
		}
	}
	qsort(rows, (size_t)n, sizeof(*rows), cmp_row);
	for (int i = 0; i < n; i++) {
		const struct mrow *a, *b = &rows[i];
		const struct mfile *fa, *fb = &m->f[b->file];
		char w0[512], w1[512];

		if (!i || strcmp(rows[i - 1].key, b->key)) {
			ncells++;
			continue;
		}
		a = &rows[i - 1];
		fa = &m->f[a->file];
		if (m->o->by_host && strcmp(field(fa, a->row, fa->c_host), field(fb, b->row, fb->c_host)))
			continue;	/* compared side by side, not pooled */
		if (a->file != b->file || strcmp(field(fa, a->row, fa->c_host), field(fb, b->row, fb->c_host))) {
			fprintf(stderr, "rwlab: merge: cell %s %s t=%s is in %s and in %s: a cell is never pooled "
				"across files or hosts; drop one of them\n", field(fb, b->row, fb->c_variant),
				field(fb, b->row, fb->c_workload), field(fb, b->row, fb->c_threads),
				where(fa, a->row, w0, sizeof(w0)), where(fb, b->row, w1, sizeof(w1)));
			ncells = -1;
			break;
		}
	}
	*rows_out = rows;
	*nrows_out = n;
	return ncells;
}

static int strs_index(const char **v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return i;
	return -1;
}

static bool has_cell(const struct mrow *rows, int n, const char *key)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(rows[mid].key, key);

		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Missing shards and cells of sharded files. Returns the number of problems found. */
static int check_missing(struct merge *m, const struct mrow *rows, int nrows, int ncells)
{
	const char **wls = calloc((size_t)nrows + 1, sizeof(char *)), **vars = calloc((size_t)nrows + 1, sizeof(char *));
	int *vwl = calloc((size_t)nrows + 1, sizeof(int)), *thr = calloc((size_t)nrows + 1, sizeof(int));
	int nw = 0, nv = 0, nt = 0, problems = 0, printed = 0, nshards = m->nshards, blocks = 0, plan_cells = 0;
	char tok[64];

	if (!wls || !vars || !vwl || !thr)
		abort();
	for (int i = 0; i < m->nf && !plan_cells; i++)
		if (m->f[i].t.nrows) {
			plan_cells = atoi(plan_token(field(&m->f[i], 0, m->f[i].c_plan), "cells", tok, sizeof(tok)));
			blocks = atoi(plan_token(field(&m->f[i], 0, m->f[i].c_plan), "blocks", tok, sizeof(tok)));
		}
	if (!plan_cells)
		goto out;	/* not written by a run that records its plan: nothing to compare with */
	for (int s = 1; s <= nshards; s++) {
		char bl[256] = "";

		if (m->shard_file[s])
			continue;
		for (int b = s; b <= blocks; b += nshards)
			snprintf(bl + strlen(bl), sizeof(bl) - strlen(bl), "%s%d", *bl ? ", " : "", b);
		fprintf(stderr, "rwlab: merge: missing shard %d/%d (comparison blocks %s): no file holds it\n", s,
			nshards, bl);
		problems++;
	}
	/* The grid the files span: workloads x threads x each workload's variants. */
	for (int i = 0; i < m->nf; i++) {
		const struct mfile *f = &m->f[i];

		for (int r = 0; r < f->t.nrows; r++) {
			const char *w = field(f, r, f->c_workload), *v = field(f, r, f->c_variant);
			int wi = strs_index(wls, nw, w), t = atoi(field(f, r, f->c_threads)), known = 0;

			if (wi < 0)
				wls[wi = nw++] = w;
			for (int k = 0; k < nv; k++)
				known |= vwl[k] == wi && !strcmp(vars[k], v);
			if (!known) {
				vars[nv] = v;
				vwl[nv++] = wi;
			}
			known = 0;
			for (int k = 0; k < nt; k++)
				known |= thr[k] == t;
			if (!known)
				thr[nt++] = t;
		}
	}
	qsort(thr, (size_t)nt, sizeof(int), cmp_int);
	for (int wi = 0; wi < nw; wi++)
		for (int ti = 0; ti < nt; ti++)
			for (int k = 0; k < nv; k++) {
				char key[1024];

				if (vwl[k] != wi)
					continue;
				snprintf(key, sizeof(key), "%s\x1f%s\x1f%d", vars[k], wls[wi], thr[ti]);
				if (has_cell(rows, nrows, key))
					continue;
				problems++;
				if (printed++ < 20)
					fprintf(stderr, "rwlab: merge: missing cell %s %s t=%d (failed or interrupted)\n",
						vars[k], wls[wi], thr[ti]);
			}
	if (printed > 20)
		fprintf(stderr, "rwlab: merge: ... and %d more missing cells\n", printed - 20);
	if (ncells < plan_cells) {
		fprintf(stderr, "rwlab: merge: %d of the plan's %d cells present\n", ncells, plan_cells);
		problems += !problems;
	}
out:
	free(wls);
	free(vars);
	free(vwl);
	free(thr);
	return problems;
}

static int write_out(const struct merge *m, const char *out)
{
	struct lab_buf b = { 0 };
	char err[4200];
	FILE *fp;
	int ret = 0;

	if (lab_csv_keep_old(out, err, sizeof(err))) {
		fprintf(stderr, "rwlab: merge: %s\n", err);
		return -1;
	}
	fp = fopen(out, "w");
	if (!fp) {
		fprintf(stderr, "rwlab: merge: cannot write '%s': %s\n", out, strerror(errno));
		return -1;
	}
	for (int c = 0; c < m->f[0].t.ncols; c++) {
		lab_buf_printf(&b, "%s", c ? "," : "");
		lab_buf_field(&b, m->f[0].t.header[c]);
	}
	lab_buf_printf(&b, "\n");
	for (int i = 0; i < m->nf; i++)
		for (int r = 0; r < m->f[i].t.nrows; r++) {
			for (int c = 0; c < m->f[i].t.ncols; c++) {
				lab_buf_printf(&b, "%s", c ? "," : "");
				lab_buf_field(&b, m->f[i].t.rows[r][c]);
			}
			lab_buf_printf(&b, "\n");
		}
	if (fwrite(b.p, 1, b.len, fp) != b.len)
		ret = -1;
	if (fclose(fp))
		ret = -1;
	if (ret)
		fprintf(stderr, "rwlab: merge: writing '%s' failed: %s\n", out, strerror(errno));
	lab_buf_free(&b);
	return ret;
}

/* Does any row of the loaded files carry a shard? */
static bool any_shard(const struct merge *m)
{
	for (int i = 0; i < m->nf; i++)
		for (int r = 0; r < m->f[i].t.nrows; r++)
			if (*field(&m->f[i], r, m->f[i].c_shard))
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
	int r0 = 0;
	bool mixed = false;
	char w0[512], w1[512];

	for (int i = 0; i < m->nf; i++) {
		const struct mfile *f = &m->f[i];

		for (int r = 0; r < f->t.nrows; r++) {
			if (!f0) {
				f0 = f, r0 = r;
				continue;
			}
			if (!strcmp(field(f, r, f->c_host), field(f0, r0, f0->c_host)))
				continue;
			if (!m->o->mixed_hosts) {
				fprintf(stderr, "rwlab: merge: %s and %s were measured on two hosts ('%s', '%s'): one run's "
					"shards mix machines there; give --mixed-hosts when they are identical servers "
					"(their differences are then warned about)\n", where(f0, r0, w0, sizeof(w0)),
					where(f, r, w1, sizeof(w1)), field(f0, r0, f0->c_host), field(f, r, f->c_host));
				return -1;
			}
			mixed = true;
			f0 = f, r0 = r;
		}
	}
	if (mixed && !m->o->quiet)
		fprintf(stderr, "rwlab: merge: WARNING: the files' rows name more than one host (--mixed-hosts): "
			"each comparison stays on one host, but the tables mix machines\n");
	return 0;
}

int lab_merge(const struct lab_merge_opts *o)
{
	struct merge m = { .o = o, .nf = o->npaths };
	struct mrow *rows = NULL;
	int nrows = 0, ncells, problems, st = 2;

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
	ncells = check_cells(&m, &rows, &nrows);
	if (ncells < 0 || check_hosts(&m))
		goto out;
	check_context(&m);
	lab_inventory_check("rwlab: merge", o->paths, o->npaths);	/* the hosts' inventories, where beside the files */
	problems = check_missing(&m, rows, nrows, ncells);
	if (o->out && write_out(&m, o->out))
		goto out;
	st = problems ? 1 : 0;
	if (!o->quiet)
		fprintf(stderr, "rwlab: merge: %d file%s, %d cells%s%s%s\n", o->npaths, o->npaths == 1 ? "" : "s",
			ncells, problems ? ", INCOMPLETE" : ", complete", o->out ? ": " : "",
			o->out ? o->out : " (checked only: -o OUT.csv writes the merged file)");
out:
	for (int i = 0; i < nrows; i++)
		free((char *)rows[i].key);
	free(rows);
	for (int i = 0; i < m.nf; i++)
		if (m.f[i].path)
			lab_csv_free(&m.f[i].t);
	free(m.f);
	free(m.shard_file);
	return st;
}

/* Adding an option: one entry here and one case in cmd_merge()'s switch. */
static const struct lab_opt merge_opts[] = {
	{ "csv", 'o', 'o', "OUT.csv", "write the merged rows there (an existing file is kept as OUT.csv.N)",
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
		fprintf(stderr, "rwlab: merge needs the shards' CSV files (rwlab merge [-o OUT.csv] FILE.csv...)\n");
		return 2;
	}
	o.paths = (const char *const *)argv + optind;
	o.npaths = argc - optind;
	return lab_merge(&o);
}

int lab_report_merge(const char *const *paths, int n, bool by_host)
{
	struct lab_merge_opts o = { .paths = paths, .npaths = n, .quiet = true, .only_shards = true,
				    .by_host = by_host, .mixed_hosts = true };	/* report: cells, not files, by host */

	for (int i = 0; i < n; i++)
		if (!strcmp(paths[i], "-"))
			return 0;	/* stdin is read once, by the report */
	return lab_merge(&o) == 2 ? -1 : 0;
}

const struct lab_cmd lab_merge_cmd = {
	.name = "merge",
	.synopsis = "[-o OUT.csv] FILE.csv...",
	.summary = "check and merge the CSVs of a run's shards (run --shard I/N)",
	.opts = merge_opts,
	.fn = cmd_merge,
	.more = "Refuses (exit 2) files of two plans or schemas, two shard counts, one shard in\n"
		"two files, one cell in two files or on two hosts, and files of two hosts\n"
		"unless --mixed-hosts (then warned); warns where hosts, builds or settings\n"
		"differ; exit 1 when shards or cells are missing (OUT is still written), 0\n"
		"when complete.\n",
	.operands = LAB_COMP_CSV,
};
