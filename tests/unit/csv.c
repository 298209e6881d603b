/* SPDX-License-Identifier: GPL-2.0-only */
/* CSV: rows written by the writer read back field for field; malformed input is refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "csv.h"
#include "stats.h"

static void tmpname(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "/tmp/rwlab-test-%s-%d.csv", tag, (int)getpid());
}

Test(csv, round_trip)
{
	struct lab_csv_writer w;
	struct lab_csv_table t;
	struct lab_context ctx;
	struct lab_buf b = { 0 };
	char path[256], err[512];

	tmpname(path, sizeof(path), "rt");
	lab_context_get(&ctx);
	snprintf(ctx.cpu_model, sizeof(ctx.cpu_model), "CPU, with \"quotes\"");
	cr_assert_eq(lab_csv_open(&w, path, err, sizeof(err)), 0, "%s", err);
	lab_csv_set_context(&w, "run1", &ctx, "compact");
	lab_csv_row_prefix(&b, "run1", "rwsem:wspin=0,rspin=1", "locktest:rpct=90", 4, 2);
	lab_csv_row_rest(&b, "total_rate", 1234.5, "op/s", ctx.host, "higher");
	cr_assert_eq(lab_csv_append(&w, b.p, b.len), 0);
	cr_assert_eq(lab_csv_append(&w, b.p, b.len), 0);	/* the context line goes with the first rows only */
	lab_csv_close(&w);
	lab_buf_free(&b);

	cr_assert_eq(lab_csv_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.nrows, 2);
	cr_expect(t.context);
	cr_expect_eq(t.line[0], 3, "the header, the context line, then the rows");
	for (int i = 0; lab_csv_columns[i]; i++)
		cr_expect_geq(lab_csv_col(&t, lab_csv_columns[i]), 0, "missing %s", lab_csv_columns[i]);
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "variant")], "rwsem:wspin=0,rspin=1");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "workload")], "locktest:rpct=90");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "threads")], "4");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "iteration")], "2");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "value")], "1234.5");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "cpu_model")], "CPU, with \"quotes\"");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "pin")], "compact");
	cr_expect_str_eq(t.rows[1][lab_csv_col(&t, "host")], ctx.host);
	cr_expect_str_eq(t.rows[1][lab_csv_col(&t, "cmdline")], ctx.cmdline);
	cr_expect_str_eq(t.rows[1][lab_csv_col(&t, "better")], "higher");
	lab_csv_free(&t);
	unlink(path);
}

/* A writer whose bytes lab_csv_open() does not own were left as anything: a new file still gets LF rows, no CR. */
Test(csv, new_file_lf_whatever_the_writer_held)
{
	struct lab_csv_writer w;
	struct lab_context ctx;
	struct lab_buf b = { 0 };
	char path[256], err[512], text[8192];
	FILE *f;
	size_t n;

	memset(&w, 0xff, sizeof(w));
	w.stop = NULL;	/* the caller's own field (csv.h): not lab_csv_open()'s to set */
	tmpname(path, sizeof(path), "lf");
	lab_context_get(&ctx);
	cr_assert_eq(lab_csv_open(&w, path, err, sizeof(err)), 0, "%s", err);
	lab_csv_set_context(&w, "run1", &ctx, "compact");
	lab_csv_row_prefix(&b, "run1", "pthread", "locktest", 1, 0);
	lab_csv_row_rest(&b, "total_rate", 1.0, "op/s", ctx.host, "higher");
	cr_assert_eq(lab_csv_append(&w, b.p, b.len), 0);
	lab_csv_close(&w);
	lab_buf_free(&b);
	cr_assert(f = fopen(path, "r"));
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	cr_expect(n > 0 && !strchr(text, '\r'), "a new file got a CR: %zu bytes", n);
	unlink(path);
}

/*
 * The schema is one list (csv.h's X-macros): the header, the writer and the
 * column enum agree, and every context column carries its own value in its
 * own place. Each string context field gets "v-NAME", each integer a number.
 */
Test(csv, one_column_list)
{
	struct lab_context c = { 0 }, *ctx = &c;
	struct lab_csv_table t;
	struct lab_buf b = { 0 };
	char pin[16], err[512], want[64];
	int n = 0;

#define FILL_STR(lv, name) snprintf(lv, sizeof(lv), "v-%s", #name)
#define FILL_INT(lv, name) (lv) = 1
#define FILL(name, kind, readers, type, value, doc) FILL_##type(value, name);
	LAB_CSV_CONTEXT_COLUMNS(FILL)
#undef FILL
	while (lab_csv_columns[n])
		n++;
	cr_assert_eq(n, LAB_CSV_NCOLS);
	for (int i = 0; i < n; i++) {
		cr_expect_str_eq(lab_csv_schema[i].name, lab_csv_columns[i]);
		for (int j = 0; j < i; j++)
			cr_expect_str_neq(lab_csv_columns[i], lab_csv_columns[j], "column %s twice", lab_csv_columns[i]);
	}
	cr_expect_str_eq(lab_csv_columns[LAB_CSV_COL_variant], "variant");
	cr_expect_str_eq(lab_csv_columns[LAB_CSV_FIRST_CONTEXT], "pin");
	lab_csv_header(&b);
	lab_csv_context_line(&b, "run1", ctx, pin);
	lab_csv_row_prefix(&b, "run1", "rwsem", "locktest", 4, 2);
	lab_csv_row_rest(&b, "total_rate", 1, "op/s", ctx->host, "higher");
	cr_assert_eq(lab_csv_parse(b.p, b.len, "row", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.ncols, LAB_CSV_NCOLS);
	cr_assert_eq(t.nrows, 1);
	for (int i = 0; i < LAB_CSV_NCOLS; i++) {
		cr_expect_str_eq(t.header[i], lab_csv_columns[i]);
		if (i < LAB_CSV_FIRST_CONTEXT)
			continue;
		snprintf(want, sizeof(want), "v-%s", lab_csv_columns[i]);
		if (strncmp(t.rows[0][i], "v-", 2))
			snprintf(want, sizeof(want), "1");	/* an INT column */
		cr_expect_str_eq(t.rows[0][i], want, "column %s", lab_csv_columns[i]);
	}
	cr_expect_str_eq(t.rows[0][LAB_CSV_COL_threads], "4");
	lab_csv_free(&t);
	lab_buf_free(&b);
}

/* The backquoted column names in @text's first span from @from to @to, as " a b c ", into @out. */
static void columns_in(const char *text, const char *from, const char *to, char *out, size_t len)
{
	const char *a = strstr(text, from), *z = a ? strstr(a, to) : NULL;
	size_t off = 0;

	cr_assert(a && z, "README: no text from '%s' to '%s'", from, to);
	out[off++] = ' ';
	for (int i = 0; i < LAB_CSV_NCOLS; i++) {
		char q[64];
		const char *p;

		snprintf(q, sizeof(q), "`%s`", lab_csv_columns[i]);
		if ((p = strstr(a, q)) && p < z)
			off += (size_t)snprintf(out + off, len - off, "%s ", lab_csv_columns[i]);
	}
	out[off] = 0;
}

/* @readers' context columns as " a b c ". */
static void columns_read_by(unsigned readers, char *out, size_t len)
{
	size_t off = 0;

	out[off++] = ' ';
	for (int i = LAB_CSV_FIRST_CONTEXT; i < LAB_CSV_NCOLS; i++)
		if (lab_csv_schema[i].readers & readers)
			off += (size_t)snprintf(out + off, len - off, "%s ", lab_csv_columns[i]);
	out[off] = 0;
}

/*
 * The README says the same: its schema table names every column in order,
 * its --resume paragraph the LAB_CSV_RESUME columns, its merge paragraph the
 * LAB_CSV_MERGE ones. A column added in csv.h but not in the README (or the
 * other way round) fails here.
 */
Test(csv, readme_says_the_schema)
{
	FILE *f = fopen(LAB_SOURCE_ROOT "/README.md", "r");
	static char text[1 << 20];
	char got[2048] = " ", want[2048];
	size_t len, off = 1;
	const char *p;

	cr_assert(f, "cannot read README.md");
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	p = strstr(text, "| column | meaning |\n|---|---|\n");
	cr_assert(p, "README: no CSV schema table");
	p += strlen("| column | meaning |\n|---|---|\n");
	while (*p == '|') {	/* "| a, b, c | meaning |": the names before the second bar */
		const char *e = strchr(p + 1, '|');

		for (const char *q = p + 1; q < e; q++)
			if (*q != ' ')
				got[off++] = *q == ',' ? ' ' : *q;
			else if (got[off - 1] != ' ')
				got[off++] = ' ';
		if (got[off - 1] != ' ')
			got[off++] = ' ';
		p = strchr(p, '\n') + 1;
	}
	got[off] = 0;
	off = 0;
	want[off++] = ' ';
	for (int i = 0; i < LAB_CSV_NCOLS; i++)
		off += (size_t)snprintf(want + off, sizeof(want) - off, "%s ", lab_csv_columns[i]);
	cr_expect_str_eq(got, want, "README's CSV table lists%s, csv.h%s", got, want);

	columns_in(text, "To carry on, run the", "A test kills", got, sizeof(got));
	columns_read_by(LAB_CSV_RESUME, want, sizeof(want));
	cr_expect_str_eq(got, want, "README's --resume paragraph names%s, csv.h's LAB_CSV_RESUME columns are%s", got,
			 want);
	columns_in(text, "when the hosts differ in", "or the shards'", got, sizeof(got));
	columns_read_by(LAB_CSV_MERGE, want, sizeof(want));
	cr_expect_str_eq(got, want, "README's merge paragraph names%s, csv.h's LAB_CSV_MERGE columns are%s", got,
			 want);
}

static int read_text(const char *text, char *err)
{
	char path[256];
	struct lab_csv_table t;
	FILE *f;
	int r;

	tmpname(path, sizeof(path), "bad");
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	r = lab_csv_read(path, &t, err, 512);
	if (!r)
		lab_csv_free(&t);
	unlink(path);
	return r;
}

Test(csv, malformed)
{
	char err[512];

	cr_expect_eq(read_text("", err), -1);
	cr_expect_eq(read_text("a,b\n1,2,3\n", err), -1);
	cr_expect(strstr(err, ":2:") != NULL, "no line number: %s", err);
	cr_expect_eq(read_text("a,b\n\"1,2\n", err), -1);
	cr_expect_eq(read_text("a,b\n1\"x,2\n", err), -1);
	cr_expect_eq(read_text("a,b\n\"x\"y,2\n", err), -1);
	cr_expect_eq(read_text("a,b\n1,2\n\n3,4\n", err), 0, "blank lines are allowed");
}

/*
 * Blank lines before the header are skipped as between rows, the lines
 * counted (a CRLF one once); a file of nothing else has no header, said so
 * (its one empty field was the header: "no column 'variant' (columns: )").
 */
Test(csv, blank_lines_before_the_header)
{
	struct lab_csv_table t;
	char err[512];

	cr_expect_eq(lab_csv_parse("\n\r\n\n", 4, "blank.csv", &t, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "blank.csv: no header line: the file holds only blank lines (expected a CSV header)");
	cr_assert_eq(lab_csv_parse("\n\r\na,b\n1,2\n", 12, "t", &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.ncols, 2);
	cr_expect_str_eq(t.header[0], "a");
	cr_expect_eq(t.nrows, 1);
	cr_expect_eq(t.line[0], 4);
	cr_expect_eq(t.offset[0], 7);
	lab_csv_free(&t);
}

/* The tail of an interrupted write is left out, and only that. */
Test(csv, torn_tail)
{
	struct lab_csv_table t;
	char err[512];
	const char *ok[] = { "a,b\n1,2\n3", "a,b\n1,2\n\"3", "a,b\n1,2\n3,\"x" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_assert_eq(lab_csv_parse(ok[i], strlen(ok[i]), "t", &t, err, sizeof(err)), 0, "%s: %s", ok[i], err);
		cr_expect_eq(t.nrows, 1, "%s", ok[i]);
		cr_expect_eq(t.torn_line, 3, "%s", ok[i]);
		cr_expect_eq(t.parsed_len, 8, "%s", ok[i]);
		cr_expect_eq(t.offset[0], 4);
		cr_expect_eq(t.line[0], 2);
		lab_csv_free(&t);
	}
	/* A whole last record without a newline is a record, not a torn one. */
	cr_assert_eq(lab_csv_parse("a,b\n1,2\n3,4", 11, "t", &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.nrows, 2);
	cr_expect_eq(t.torn_line, 0);
	lab_csv_free(&t);
	/* Too many fields, or a short line that ends with a newline, are errors. */
	cr_expect_eq(lab_csv_parse("a,b\n1,2\n3,4,5", 13, "t", &t, err, sizeof(err)), -1);
	cr_expect_eq(lab_csv_parse("a,b\n1\n3,4\n", 10, "t", &t, err, sizeof(err)), -1);
	cr_expect(strstr(err, "t:2:") != NULL, "%s", err);
	/* A short line in the middle is an error even when the file ends torn. */
	cr_expect_eq(lab_csv_parse("a,b\n1\n3", 7, "t", &t, err, sizeof(err)), -1);
}

Test(csv, unwritable)
{
	struct lab_csv_writer w;
	char err[512];

	cr_expect_eq(lab_csv_open(&w, "/nonexistent-dir/x.csv", err, sizeof(err)), -1);
	cr_expect(strstr(err, "/nonexistent-dir/x.csv") != NULL, "%s", err);
}

/* @path holds exactly @want. */
static void expect_file(const char *path, const char *want)
{
	char text[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert(f, "%s is missing", path);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	cr_expect_str_eq(text, want, "%s", path);
}

/*
 * lab_csv_open_later(): an existing file is left as it was (not kept as .1, no header) until
 * lab_csv_open_now() at the first rows, which keeps it as .1 and writes the header, the context line
 * given before and the rows; what lab_csv_open() refuses is refused at once.
 */
Test(csv, open_later)
{
	struct lab_csv_writer w = { .fd = -1 };
	struct lab_csv_table t;
	struct lab_context ctx;
	struct lab_buf b = { 0 };
	char path[256], old[300], err[512];
	FILE *f;

	tmpname(path, sizeof(path), "later");
	snprintf(old, sizeof(old), "%s.1", path);
	unlink(old);
	cr_assert(f = fopen(path, "w"));
	fputs("measured earlier\n", f);
	fclose(f);
	cr_assert_eq(lab_csv_open_later(&w, path, err, sizeof(err)), 0, "%s", err);
	cr_expect(w.later);
	lab_csv_close(&w);	/* nothing measured */
	expect_file(path, "measured earlier\n");
	cr_expect_neq(access(old, F_OK), 0, "%s made", old);

	lab_context_get(&ctx);
	cr_assert_eq(lab_csv_open_later(&w, path, err, sizeof(err)), 0, "%s", err);
	lab_csv_set_context(&w, "run1", &ctx, "none");
	cr_assert_eq(lab_csv_open_now(&w, err, sizeof(err)), 0, "%s", err);
	cr_expect(!w.later);
	lab_csv_row_prefix(&b, "run1", "none", "true", 1, 0);
	lab_csv_row_rest(&b, "wall_s", 1.0, "s", ctx.host, "lower");
	cr_assert_eq(lab_csv_append(&w, b.p, b.len), 0);
	lab_csv_close(&w);
	lab_buf_free(&b);
	expect_file(old, "measured earlier\n");
	cr_assert_eq(lab_csv_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.nrows, 1);
	cr_expect(t.context);
	lab_csv_free(&t);
	unlink(path);
	unlink(old);

	cr_expect_eq(lab_csv_open_later(&w, "/nonexistent-dir/x.csv", err, sizeof(err)), -1);
	cr_expect_str_eq(err, "cannot write results to '/nonexistent-dir/x.csv': No such file or directory");
}

/*
 * lab_csv_open_later() refuses at once, in lab_csv_open()'s line, an existing file that could not be
 * kept as PATH.N at the first rows (.1 .. .9999 taken), and leaves it as it was.
 */
Test(csv, open_later_names_taken)
{
	struct lab_csv_writer w = { .fd = -1 };
	char dir[] = "/tmp/rwlab-test-taken-XXXXXX", path[64], old[80], err[512], want[512];
	FILE *f;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.csv", dir);
	cr_assert(f = fopen(path, "w"));
	fputs("measured earlier\n", f);
	fclose(f);
	for (int n = 1; n < 10000; n++) {
		snprintf(old, sizeof(old), "%s.%d", path, n);
		cr_assert(f = fopen(old, "w"));
		fclose(f);
	}
	cr_expect_eq(lab_csv_open(&w, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s", err);
	cr_expect_eq(lab_csv_open_later(&w, path, err, sizeof(err)), -1);
	cr_expect(!w.later);
	cr_expect_str_eq(err, want);
	snprintf(want, sizeof(want), "'%s' exists and %s.1 .. %s.9999 are taken: remove some", path, path, path);
	cr_expect_str_eq(err, want);
	lab_csv_close(&w);
	expect_file(path, "measured earlier\n");
	for (int n = 1; n < 10000; n++) {
		snprintf(old, sizeof(old), "%s.%d", path, n);
		unlink(old);
	}
	unlink(path);
	rmdir(dir);
}

Test(stats, hand_computed)
{
	double v[] = { 1, 2, 4 };

	cr_expect_float_eq(lab_amean(v, 3), 7.0 / 3, 1e-12);
	cr_expect_float_eq(lab_hmean(v, 3), 3.0 / (1 + 0.5 + 0.25), 1e-12);
	cr_expect_float_eq(lab_gmean(v, 3), 2.0, 1e-12);
	cr_expect_float_eq(lab_stddev(v, 3), 1.5275252316519468, 1e-12);
	cr_expect_float_eq(lab_min(v, 3), 1.0, 0);
	cr_expect_float_eq(lab_max(v, 3), 4.0, 0);
}

/* Schema 4: each run's context line fills its rows' context columns; comments and a repeated header are skipped. */
Test(csv, context_lines)
{
	struct lab_csv_table t;
	struct lab_context a = { 0 }, b = { 0 };
	struct lab_buf d = { 0 };
	char err[512];

	snprintf(a.cpu_model, sizeof(a.cpu_model), "CPU A, \"fast\"");
	snprintf(a.host, sizeof(a.host), "ha");
	snprintf(b.cpu_model, sizeof(b.cpu_model), "CPU B");
	snprintf(b.host, sizeof(b.host), "hb");
	snprintf(b.cmdline, sizeof(b.cmdline), "ro quiet, \"x\"\nnext");
	lab_csv_header(&d);
	lab_csv_context_line(&d, "runA", &a, "compact");
	lab_csv_row_prefix(&d, "runA", "rwsem", "locktest", 2, 0);
	lab_csv_row_rest(&d, "total_rate", 1, "op/s", a.host, "higher");
	lab_buf_printf(&d, "# a comment\n");
	lab_csv_context_line(&d, "runB", &b, "none");
	lab_csv_row_prefix(&d, "runB", "pthread", "pft", 4, 1);
	lab_csv_row_rest(&d, "faults/sec", 2, "faults/s", b.host, "higher");
	lab_csv_header(&d);	/* files joined with cat: the header and runA's context again */
	lab_csv_context_line(&d, "runA", &a, "compact");
	lab_csv_row_prefix(&d, "runA", "rwsem", "locktest", 2, 1);
	lab_csv_row_rest(&d, "total_rate", 3, "op/s", a.host, "higher");
	cr_assert_eq(lab_csv_parse(d.p, d.len, "ctx", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(t.context);
	cr_assert_eq(t.ncols, LAB_CSV_NCOLS);
	cr_assert_eq(t.nrows, 3);
	cr_expect_str_eq(t.rows[0][LAB_CSV_COL_cpu_model], "CPU A, \"fast\"");
	cr_expect_str_eq(t.rows[0][LAB_CSV_COL_pin], "compact");
	cr_expect_str_eq(t.rows[1][LAB_CSV_COL_cpu_model], "CPU B");
	cr_expect_str_eq(t.rows[1][LAB_CSV_COL_cmdline], "ro quiet, \"x\"\nnext");
	cr_expect_str_eq(t.rows[1][LAB_CSV_COL_host], "hb");
	cr_expect_str_eq(t.rows[1][LAB_CSV_COL_pin], "none");
	cr_expect_str_eq(t.rows[2][LAB_CSV_COL_cpu_model], "CPU A, \"fast\"");
	cr_expect_str_eq(t.rows[2][LAB_CSV_COL_value], "3");
	cr_expect_eq(t.line[0], 3);
	cr_expect_eq(t.line[1], 7);	/* runB's context line takes lines 5 and 6 (its cmdline holds a newline) */
	lab_csv_free(&t);
	lab_buf_free(&d);
}

/* A row whose run has no context line before it, and a run with two contexts: refused, with FILE:LINE. */
Test(csv, context_lines_refused)
{
	struct lab_csv_table t;
	struct lab_context a = { 0 }, b = { 0 };
	struct lab_buf d = { 0 };
	char err[512];

	snprintf(a.kernel, sizeof(a.kernel), "Linux 6.1");
	snprintf(b.kernel, sizeof(b.kernel), "Linux 6.2");
	lab_csv_header(&d);
	lab_csv_row_prefix(&d, "runA", "rwsem", "locktest", 2, 0);
	lab_csv_row_rest(&d, "total_rate", 1, "op/s", "h", "higher");
	cr_expect_eq(lab_csv_parse(d.p, d.len, "noctx", &t, err, sizeof(err)), -1);
	cr_expect(strstr(err, "noctx:2: run runA has no '# context' line before its rows") != NULL, "%s", err);
	d.len = 0;
	lab_csv_header(&d);
	lab_csv_context_line(&d, "runA", &a, "compact");
	lab_csv_context_line(&d, "runA", &b, "compact");
	cr_expect_eq(lab_csv_parse(d.p, d.len, "two", &t, err, sizeof(err)), -1);
	cr_expect(strstr(err, "two:3: a second context line of run runA differs in kernel ('Linux 6.1' before, 'Linux 6.2' here)") !=
		  NULL, "%s", err);
	lab_buf_free(&d);
}

/* Schema 4's torn tail: a last row cut inside better, or a context line cut before its plan is whole. */
Test(csv, context_torn_tail)
{
	struct lab_csv_table t;
	struct lab_context a = { 0 };
	struct lab_buf d = { 0 };
	size_t whole;
	char err[512];

	snprintf(a.plan, sizeof(a.plan), "fp=0123456789abcdef cells=4 blocks=2");
	lab_csv_header(&d);
	lab_csv_context_line(&d, "runA", &a, "compact");
	lab_csv_row_prefix(&d, "runA", "rwsem", "locktest", 2, 0);
	lab_csv_row_rest(&d, "total_rate", 1, "op/s", "h", "higher");
	whole = d.len;
	lab_csv_row_prefix(&d, "runA", "rwsem", "locktest", 2, 1);
	lab_csv_row_rest(&d, "total_rate", 2, "op/s", "h", "lower");
	/* "lower\n" cut to "low": every field there, the last one not whole */
	cr_assert_eq(lab_csv_parse(d.p, d.len - 3, "t", &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.nrows, 1);
	cr_expect_eq(t.torn_line, 4);
	cr_expect_eq(t.parsed_len, whole);
	lab_csv_free(&t);
	/* "lower" whole, only the newline lost: a row */
	cr_assert_eq(lab_csv_parse(d.p, d.len - 1, "t", &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.nrows, 2);
	cr_expect(t.unterminated);
	cr_expect_eq(t.torn_line, 0);
	lab_csv_free(&t);
	/* a second run's context line cut inside its plan */
	d.len = whole;
	lab_csv_context_line(&d, "runB", &a, "compact");
	cr_assert_eq(lab_csv_parse(d.p, d.len - 8, "t", &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.nrows, 1);
	cr_expect_eq(t.torn_line, 4);
	cr_expect_eq(t.parsed_len, whole);
	lab_csv_free(&t);
	lab_buf_free(&d);
}

/*
 * The streaming reader (a file, read in 256 KiB pieces) and the one over memory agree on
 * every record, whatever falls on a piece's edge: quoted fields with commas, quotes, CRLF
 * and newlines, blank lines, long fields.
 */
Test(csv, streaming_equals_memory)
{
	struct lab_csv_table t, u;
	struct lab_buf d = { 0 };
	char path[256], err[512];
	unsigned x = 12345;
	FILE *f;

	lab_buf_printf(&d, "a,b,c\r\n");
	for (int r = 0; d.len < (3u << 20); r++) {
		for (int c = 0; c < 3; c++) {
			x = x * 1103515245u + 12345u;
			switch (x >> 28) {
			case 0: lab_buf_printf(&d, "\"q,%d\"\"x\"\"\ny\"", r); break;
			case 1: lab_buf_printf(&d, "%0*d", (int)(x >> 16 & 4095), 7); break;
			case 2: lab_buf_printf(&d, "\"\""); break;
			default: lab_buf_printf(&d, "v%u", x >> 8); break;
			}
			lab_buf_printf(&d, c < 2 ? "," : (x & 1) ? "\r\n" : "\n");
		}
		if (!(r % 97))
			lab_buf_printf(&d, "\n");
	}
	tmpname(path, sizeof(path), "stream");
	f = fopen(path, "w");
	cr_assert(f);
	cr_assert_eq(fwrite(d.p, 1, d.len, f), d.len);
	fclose(f);
	cr_assert_eq(lab_csv_parse(d.p, d.len, path, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_csv_read(path, &u, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.nrows, u.nrows);
	cr_assert_gt(t.nrows, 1000);
	for (int r = 0; r < t.nrows; r++) {
		cr_assert_eq(t.line[r], u.line[r], "row %d", r);
		cr_assert_eq(t.offset[r], u.offset[r], "row %d", r);
		for (int c = 0; c < 3; c++)
			cr_assert_str_eq(t.rows[r][c], u.rows[r][c], "row %d col %d", r, c);
	}
	cr_expect_eq(t.parsed_len, u.parsed_len);
	lab_csv_free(&t);
	lab_csv_free(&u);
	lab_buf_free(&d);
	unlink(path);
}
