/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab_csv_parse(): the reader behind `rwlab report` and `run --resume`.
 * Promises: every row has the header's field count; row offsets increase
 * and lie within what was kept; a torn tail is only reported when the data
 * does not end with a newline; and writing the table back with the
 * writer's quoting (lab_buf_field) parses to the same table.
 */
#include "csv.h"
#include "fuzz.h"

static void serialize(const struct lab_csv_table *t, struct lab_buf *b)
{
	for (int r = -1; r < t->nrows; r++) {
		char **f = r < 0 ? t->header : t->rows[r];

		for (int c = 0; c < t->ncols; c++) {
			if (c)
				lab_buf_printf(b, ",");
			/* A lone empty field would read back as a blank line: quote it. */
			if (t->ncols == 1 && !f[c][0])
				lab_buf_printf(b, "\"\"");
			else
				lab_buf_field(b, f[c]);
		}
		lab_buf_printf(b, "\n");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lab_csv_table t, u;
	struct lab_buf b = { 0 };
	char err[1024];

	memset(err, 'x', sizeof(err));
	if (lab_csv_parse((const char *)data, size, "fuzz", &t, err, sizeof(err))) {
		fuzz_check_err(err, sizeof(err));
		FUZZ_CHECK(t.nrows == 0 && t.rows == NULL);
		return 0;
	}
	FUZZ_CHECK(t.ncols >= 1);
	FUZZ_CHECK(t.parsed_len <= size);
	FUZZ_CHECK(!t.torn_line || data[size - 1] != '\n');
	for (int r = 0; r < t.nrows; r++) {
		FUZZ_CHECK(t.offset[r] < t.parsed_len);
		FUZZ_CHECK(r == 0 || t.offset[r] > t.offset[r - 1]);
		FUZZ_CHECK(t.line[r] >= 2 && (r == 0 || t.line[r] > t.line[r - 1]));
		for (int c = 0; c < t.ncols; c++)
			FUZZ_CHECK(t.rows[r][c] != NULL);
	}
	FUZZ_CHECK(lab_csv_col(&t, t.header[0]) == 0);

	serialize(&t, &b);
	FUZZ_CHECK(lab_csv_parse(b.p, b.len, "again", &u, err, sizeof(err)) == 0);
	FUZZ_CHECK(u.ncols == t.ncols && u.nrows == t.nrows && u.torn_line == 0);
	for (int c = 0; c < t.ncols; c++)
		FUZZ_CHECK(!strcmp(u.header[c], t.header[c]));
	for (int r = 0; r < t.nrows; r++)
		for (int c = 0; c < t.ncols; c++)
			FUZZ_CHECK(!strcmp(u.rows[r][c], t.rows[r][c]));
	lab_csv_free(&u);
	lab_buf_free(&b);
	lab_csv_free(&t);
	return 0;
}
