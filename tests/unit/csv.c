/* SPDX-License-Identifier: GPL-2.0-only */
/* CSV: rows written by the writer read back field for field; malformed input is refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
	lab_csv_row_prefix(&b, "run1", "rwsem:wspin=0,rspin=1", "locktest:rpct=90", 4, 2);
	lab_buf_printf(&b, "total_rate,%.17g,op/s,higher", 1234.5);
	lab_csv_row_suffix(&b, &ctx, "compact");
	lab_buf_printf(&b, "\n");
	cr_assert_eq(lab_csv_append(&w, b.p, b.len), 0);
	lab_csv_close(&w);
	lab_buf_free(&b);

	cr_assert_eq(lab_csv_read(path, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.nrows, 1);
	for (int i = 0; lab_csv_columns[i]; i++)
		cr_expect_geq(lab_csv_col(&t, lab_csv_columns[i]), 0, "missing %s", lab_csv_columns[i]);
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "variant")], "rwsem:wspin=0,rspin=1");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "workload")], "locktest:rpct=90");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "threads")], "4");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "iteration")], "2");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "value")], "1234.5");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "cpu_model")], "CPU, with \"quotes\"");
	cr_expect_str_eq(t.rows[0][lab_csv_col(&t, "pin")], "compact");
	lab_csv_free(&t);
	unlink(path);
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
