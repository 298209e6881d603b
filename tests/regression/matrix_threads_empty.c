/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Regression: an empty entry in a matrix's threads list.
 *
 * The CPU-expression rewriter of `threads =` (then lab_matrix_eval_threads
 * in matrix.c) copied each entry into a token only when the entry had bytes,
 * so for an empty entry it kept whatever the token held: "threads = ,2" read
 * an uninitialised buffer, and "1,,2" reused the previous entry's "1", which
 * the duplicate rule then dropped: the matrix ran 1 and 2 as if it were
 * valid. A trailing comma ("1,") was dropped silently too. Found in a review
 * of matrix.c. Fixed (lab_eval_threads, threads.c): an empty entry is refused
 * with one line, as `-t 1,,2` is on the command line, and the matrix names
 * FILE:LINE.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"
#include "threads.h"

static void expect_empty_entry(const char *expr)
{
	char out[256], err[512];

	memset(out, 'x', sizeof(out));
	cr_expect_eq(lab_eval_threads(expr, 8, out, sizeof(out), err, sizeof(err)), -1, "'%s' accepted as '%s'",
		     expr, out);
	cr_expect(strstr(err, "empty entry"), "'%s': got '%s'", expr, err);
}

Test(regression, matrix_threads_empty_entry)
{
	static const char *const bad[] = { ",2", "1,,2", "1,", ",", "", "cpus,,cpus/2", "2*cpus," };
	char out[256], err[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_empty_entry(bad[i]);
	/* Entries that are there still evaluate as before. */
	cr_assert_eq(lab_eval_threads("1,cpus/2,cpus,2*cpus", 8, out, sizeof(out), err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(out, "1,4,8,16");
	cr_assert_eq(lab_eval_threads("1,cpus/2", 2, out, sizeof(out), err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(out, "1", "cpus/2 is 1 on 2 CPUs: the duplicate is dropped");
}

/* Through a matrix file: the run arguments are refused with FILE:LINE. */
Test(regression, matrix_threads_empty_entry_in_a_file)
{
	struct lab_matrix m;
	char path[256], err[1024], *argv[64];
	int lines[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/rwlab-test-threads-%d.matrix", (int)getpid());
	f = fopen(path, "w");
	cr_assert(f);
	fputs("# an empty entry\nlocks = pthread\nthreads = 1,,2\n", f);
	fclose(f);
	cr_assert_eq(lab_matrix_load(path, &m, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(lab_matrix_run_args(&m, 2, argv, lines, 64, err, sizeof(err)), -1, "1,,2 accepted");
	cr_expect(strstr(err, ":3: bad thread list '1,,2': empty entry"), "got '%s'", err);
	lab_matrix_free(&m);
	unlink(path);
}
