/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Regression: `rwlab report` overflowed a stack buffer on a wide table.
 *
 * Each table line was built in char line[8192] with
 * `off += snprintf(line + off, sizeof(line) - off, ...)`, 33 bytes per
 * variant column. With 249 or more variants (report accepts 256) `off`
 * passed the end, `sizeof(line) - off` wrapped to a huge size and snprintf
 * wrote past the buffer (ASan: stack-buffer-overflow in lab_report_print;
 * a plain build may abort with "stack smashing detected"). Found by reading
 * report.c while writing its fuzz target (random inputs seldom hold 249
 * distinct variants) and confirmed with ASan. Fixed: the line is a growable
 * lab_buf. The table is now built from cells (report_table.c) and
 * transposed when wide; the test keeps the 256 variants.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

#define NVARIANTS 256

Test(regression, report_wide_table, .timeout = 60)
{
	char path[] = "/tmp/rwlab-wide-XXXXXX";
	int fd = mkstemp(path);
	FILE *f, *out;
	char *text = NULL, *line;
	size_t len = 0;
	struct lab_report_opts o = { .path = path };
	int r;

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fprintf(f, "schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better\n");
	for (int i = 0; i < NVARIANTS; i++)
		fprintf(f, "1,r,t,v%03d,locktest,2,0,total_rate,%d,op/s,higher\n", i, 1000 + i);
	fclose(f);

	out = open_memstream(&text, &len);
	r = lab_report_print(out, &o);
	fclose(out);
	unlink(path);
	cr_assert_eq(r, 0);
	/*
	 * The table is transposed now (variants as rows, within 100 columns):
	 * every variant has its line, the last one +25.5% over v000.
	 */
	line = strstr(text, "\nv255 ");
	cr_assert_not_null(line, "no row for v255:\n%s", text);
	cr_expect_not_null(strstr(line, "+25.5%"), "%.200s", line);
	for (int i = 0; i < NVARIANTS; i++) {
		char want[16];

		snprintf(want, sizeof(want), "\nv%03d ", i);
		cr_expect_not_null(strstr(text, want), "no row for v%03d", i);
	}
	free(text);
}
