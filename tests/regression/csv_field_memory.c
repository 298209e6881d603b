/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Regression: `rwlab report` on a large results file ran out of memory.
 *
 * The CSV reader built every field in a growable buffer whose first
 * allocation is 4 KiB and kept that buffer as the field: 21 columns made
 * ~86 KiB per row, so 5,000 rows took 440 MB and 200,000 rows (a long
 * matrix run writes that many: variants x threads x iterations x ~60
 * metrics) did not finish in 20 s on a 2-CPU machine, swapping. Found by
 * feeding `rwlab report` generated CSVs. Fixed: every field is allocated at
 * its own length (quoted ones at most the quoted span).
 *
 * The check: parsing 5,000 short rows may raise the peak resident set by at
 * most 64 MiB (a few MiB now; ~430 MiB before). Criterion runs each test in
 * its own process, so the peak is this test's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "csv.h"

static long peak_kib(void)
{
	struct rusage ru;

	cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

Test(regression, csv_field_memory)
{
	enum { ROWS = 5000, COLS = 21 };
	struct lab_csv_table t;
	struct lab_buf b = { 0 };
	char err[256];
	long before, grown;

	for (int c = 0; c < COLS; c++)
		lab_buf_printf(&b, "%scol%d", c ? "," : "", c);
	lab_buf_printf(&b, "\n");
	for (int r = 0; r < ROWS; r++) {
		for (int c = 0; c < COLS; c++)
			lab_buf_printf(&b, c == 3 ? "%s\"v,%d\"" : "%s%d", c ? "," : "", r + c);
		lab_buf_printf(&b, "\n");
	}
	before = peak_kib();
	cr_assert_eq(lab_csv_parse(b.p, b.len, "generated", &t, err, sizeof(err)), 0, "%s", err);
	grown = peak_kib() - before;
	cr_expect_eq(t.nrows, ROWS);
	cr_expect_str_eq(t.rows[ROWS - 1][3], "v,5002");
	cr_expect_str_eq(t.rows[ROWS - 1][20], "5019");
	cr_expect_lt(grown, 64 * 1024, "parsing %d rows of %d short fields raised the peak RSS by %ld KiB",
		     ROWS, COLS, grown);
	lab_csv_free(&t);
	lab_buf_free(&b);
}
