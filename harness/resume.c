/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "results.h"
#include "resume.h"

/* A run of consecutive rows of one cell. */
struct group {
	int first, last;		/* row indices, inclusive */
	int threads;
	bool last_group;		/* the last cell in the file */
};

static int parse_int(const char *s, int *v)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(s, &end, 10);
	if (!*s || *end || errno || x < 0 || x > 1 << 30)
		return -1;
	*v = (int)x;
	return 0;
}

static bool same_key(char **a, char **b, const int *col)
{
	return !strcmp(a[col[0]], b[col[0]]) && !strcmp(a[col[1]], b[col[1]]) && !strcmp(a[col[2]], b[col[2]]);
}

/*
 * Is the group a finished cell of @n iterations? Returns 1 yes, 0 no (an
 * unfinished cell), -1 when it cannot be one this run would write (@err says
 * why). A cell_failed row (runner.c: a must-be-zero count was not 0) is in
 * the iterations that failed only: it is not one of the rows each iteration
 * repeats, and its cell, every iteration run, is finished.
 */
static int group_finished(const struct lab_csv_table *t, const struct group *g, int n, const int *col,
			  const char *path, char *err, size_t errlen)
{
	int rows = g->last - g->first + 1, per, ret = 1;
	int *iter = calloc((size_t)rows, sizeof(int)), *count = calloc((size_t)n, sizeof(int));
	int **byit = calloc((size_t)n, sizeof(int *));
	char **key = t->rows[g->first];

	if (!iter || !count || !byit)
		abort();
	for (int i = 0; i < rows; i++) {
		const char *s = t->rows[g->first + i][col[3]];

		if (parse_int(s, &iter[i])) {
			snprintf(err, errlen, "--resume: %s:%d: iteration '%s' is not a number", path,
				 t->line[g->first + i], s);
			ret = -1;
			goto out;
		}
		if (iter[i] >= n) {
			snprintf(err, errlen, "--resume: %s:%d: cell %s %s t=%s has iteration %d, but this run asks "
				 "for -n %d: resume with the -n of the first run", path, t->line[g->first + i],
				 key[col[0]], key[col[1]], key[col[2]], iter[i], n);
			ret = -1;
			goto out;
		}
		if (strcmp(t->rows[g->first + i][col[4]], "cell_failed"))
			count[iter[i]]++;
		else
			iter[i] = -1;	/* the mark of a must-be-zero count: only in the iterations it failed */
	}
	per = count[0];
	for (int it = 0; it < n; it++)
		if (count[it] != per || !per)
			ret = 0;
	if (ret != 1) {
		/* Whole iterations 0..m-1 of a cell that is not last: it was run with -n m. */
		int m = 0;

		while (m < n && count[m] == per && per)
			m++;
		for (int it = m; it < n && m; it++)
			if (count[it])
				m = 0;
		if (m && !g->last_group) {
			snprintf(err, errlen, "--resume: %s:%d: cell %s %s t=%s has %d iterations, but this run asks "
				 "for -n %d: resume with the -n of the first run", path, t->line[g->first],
				 key[col[0]], key[col[1]], key[col[2]], m, n);
			ret = -1;
		}
		goto out;
	}
	/* Each iteration's rows, in file order. */
	for (int it = 0; it < n; it++) {
		int k = 0;

		byit[it] = calloc((size_t)per, sizeof(int));
		if (!byit[it])
			abort();
		for (int i = 0; i < rows; i++)
			if (iter[i] == it)
				byit[it][k++] = g->first + i;
	}
	/* Iteration 0 names each metric once... */
	for (int k = 0; k < per; k++) {
		const char *m = t->rows[byit[0][k]][col[4]];

		for (int j = 0; j < k; j++) {
			if (!strcmp(t->rows[byit[0][j]][col[4]], m)) {
				snprintf(err, errlen, "--resume: %s:%d: cell %s %s t=%s has metric '%s' twice in one "
					 "iteration: not a file rwlab wrote", path, t->line[byit[0][k]],
					 key[col[0]], key[col[1]], key[col[2]], m);
				ret = -1;
				goto out;
			}
		}
	}
	/* ...and every other iteration the same metrics in the same order. */
	for (int it = 1; it < n; it++)
		for (int k = 0; k < per; k++)
			if (strcmp(t->rows[byit[it][k]][col[4]], t->rows[byit[0][k]][col[4]]))
				ret = 0;
out:
	for (int it = 0; it < n; it++)
		free(byit[it]);
	free(byit);
	free(iter);
	free(count);
	return ret;
}

/* Does the first line of @path end in CRLF? (The style its rows follow; a file of mixed ends, its header's.) */
static bool header_crlf(const char *path)
{
	FILE *f = fopen(path, "r");
	int c, prev = 0;

	while (f && (c = getc(f)) != EOF && c != '\n')
		prev = c;
	if (f)
		fclose(f);
	return prev == '\r';
}

int lab_resume_load(struct lab_resume *r, const char *path, int iterations, const struct lab_context *ctx,
		    const char *pin, char *err, size_t errlen)
{
	char want[LAB_CSV_NCOLS][sizeof(ctx->cmdline) + 64];
	int col[5], ngroups = 0, gcap = 0;
	struct lab_csv_table t;
	struct group *g = NULL;
	struct stat st;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (stat(path, &st)) {
		r->missing = errno == ENOENT;
		if (r->missing)
			return 0;
		snprintf(err, errlen, "--resume: cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	if (st.st_size == 0)
		return 0;
	if (lab_csv_read(path, &t, err, errlen))	/* a torn last row is left out (csv.h) */
		return -1;
	r->exists = true;
	r->crlf = header_crlf(path);

	/* The schema: exactly this header. */
	for (int i = 0; lab_csv_columns[i] || i < t.ncols; i++) {
		if (!lab_csv_columns[i] || i >= t.ncols || strcmp(lab_csv_columns[i], t.header[i])) {
			snprintf(err, errlen, "--resume: %s: the header differs from this rwlab's CSV schema %d at "
				 "column %d ('%s', expected '%s'): not a results file of this version",
				 path, LAB_CSV_SCHEMA, i + 1, i < t.ncols ? t.header[i] : "(none)",
				 lab_csv_columns[i] ? lab_csv_columns[i] : "(none)");
			goto out;
		}
	}
	if (!t.context) {	/* schema 3's header, every column in every row: rows of this one would not fit */
		snprintf(err, errlen, "--resume: %s is a results file of an older rwlab (the context in every row, "
			 "not CSV schema %d's context lines): start a new file", path, LAB_CSV_SCHEMA);
		goto out;
	}
	/* The header is the schema: its columns are at their enum lab_csv_col indexes. */
	col[0] = LAB_CSV_COL_variant;
	col[1] = LAB_CSV_COL_workload;
	col[2] = LAB_CSV_COL_threads;
	col[3] = LAB_CSV_COL_iteration;
	col[4] = LAB_CSV_COL_metric;

	/* The run-wide settings the rows record must be this run's (the LAB_CSV_RESUME columns). */
	for (int c = LAB_CSV_FIRST_CONTEXT; c < LAB_CSV_NCOLS; c++)
		lab_csv_context_value((enum lab_csv_col)c, ctx, pin, want[c], sizeof(want[c]));
	for (int row = 0; row < t.nrows; row++) {
		char **f = t.rows[row];

		const char *schema = f[LAB_CSV_COL_schema];

		if (atoi(schema) != LAB_CSV_SCHEMA || strspn(schema, "0123456789") != strlen(schema)) {
			snprintf(err, errlen, "--resume: %s:%d: schema '%s', expected %d", path, t.line[row], schema,
				 LAB_CSV_SCHEMA);
			goto out;
		}
		for (int c = LAB_CSV_FIRST_CONTEXT; c < LAB_CSV_NCOLS; c++) {
			const struct lab_csv_column *cc = &lab_csv_schema[c];

			if ((cc->readers & LAB_CSV_RESUME) && strcmp(f[c], want[c])) {
				snprintf(err, errlen, "--resume: %s:%d: %s is '%s' there but '%s' in this run: the "
					 "results would mix two %s; start a new file%s", path, t.line[row], cc->name,
					 f[c], want[c], lab_csv_kind_mix(cc->kind), c == LAB_CSV_COL_cpus ?
					 ", or resume under the CPU binding it was started with (taskset, a cpuset)" : "");
				goto out;
			}
		}
		if (!row || !same_key(f, t.rows[row - 1], col)) {
			int th;

			if (parse_int(f[col[2]], &th) || th < 1) {
				snprintf(err, errlen, "--resume: %s:%d: threads '%s' is not a positive integer", path,
					 t.line[row], f[col[2]]);
				goto out;
			}
			if (ngroups == gcap) {
				gcap = gcap ? 2 * gcap : 64;
				g = realloc(g, (size_t)gcap * sizeof(*g));
				if (!g)
					abort();
			}
			g[ngroups].first = row;
			g[ngroups].threads = th;
			ngroups++;
		}
		g[ngroups - 1].last = row;
	}

	r->keep_len = t.parsed_len;
	r->torn_line = t.torn_line;
	r->cells = calloc((size_t)(ngroups ? ngroups : 1), sizeof(*r->cells));
	if (!r->cells)
		abort();
	for (int i = 0; i < ngroups; i++) {
		char **f = t.rows[g[i].first], wl[LAB_SPEC_MAX], vl[LAB_SPEC_MAX];
		const char *w;
		int fin;

		for (int j = 0; j < i; j++) {
			if (same_key(t.rows[g[j].first], f, col)) {
				snprintf(err, errlen, "--resume: %s:%d: cell %s %s t=%s is there twice (also at line "
					 "%d): not a file one rwlab run writes", path, t.line[g[i].first], f[col[0]],
					 f[col[1]], f[col[2]], t.line[g[j].first]);
				goto out;
			}
		}
		g[i].last_group = i == ngroups - 1;
		fin = group_finished(&t, &g[i], iterations, col, path, err, errlen);
		if (fin < 0)
			goto out;
		if (!fin && i != ngroups - 1) {
			snprintf(err, errlen, "--resume: %s:%d: cell %s %s t=%s is unfinished but other cells follow "
				 "it: not what an interrupted run leaves", path, t.line[g[i].first], f[col[0]],
				 f[col[1]], f[col[2]]);
			goto out;
		}
		if (!fin) {
			r->keep_len = t.offset[g[i].first];
			r->dropped_rows = g[i].last - g[i].first + 1;
			continue;
		}
		/* the labels as run writes them, which lab_resume_has() is asked about */
		w = lab_results_workload_label(f[col[1]], wl, sizeof(wl));
		r->cells[r->ncells].workload = strdup(w);
		r->cells[r->ncells].variant = strdup(lab_results_variant_label(f[col[0]], w, vl, sizeof(vl)));
		r->cells[r->ncells].threads = g[i].threads;
		if (!r->cells[r->ncells].variant || !r->cells[r->ncells].workload)
			abort();
		r->ncells++;
	}
	ret = 0;
out:
	free(g);
	lab_csv_free(&t);
	if (ret)
		lab_resume_free(r);
	return ret;
}

bool lab_resume_has(const struct lab_resume *r, const char *variant, const char *workload, int threads)
{
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].threads == threads && !strcmp(r->cells[i].variant, variant) &&
		    !strcmp(r->cells[i].workload, workload))
			return true;
	return false;
}

void lab_resume_free(struct lab_resume *r)
{
	for (int i = 0; i < r->ncells; i++) {
		free(r->cells[i].variant);
		free(r->cells[i].workload);
	}
	free(r->cells);
	memset(r, 0, sizeof(*r));
}
