/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Regression: matrix files that are not text got misleading errors.
 *
 * - a NUL byte in a line was reported as "line longer than 4094
 *   characters" (fgets() stopped at the NUL, so no newline was seen);
 * - a directory given as --matrix was "empty matrix (expected 'key =
 *   value' lines)" (fopen() of a directory succeeds, reading it fails);
 * - other control bytes (a binary file) were copied raw into the message;
 * - a carriage return inside a line (not a CRLF line end) was too: found by
 *   tests/fuzz/fuzz_matrix.c, whose input is in its corpus (cr-mid-line).
 * Found by feeding `rwlab run --matrix` broken files. Fixed: each line is
 * checked for control bytes (the message names the byte and column), a
 * directory or a read error is "cannot read matrix", and a UTF-8 byte order
 * mark on line 1 is skipped.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix.h"

static char path[256];

static void write_bytes(const char *bytes, size_t len)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/rwlab-test-nottext-%d.matrix", (int)getpid());
	f = fopen(path, "w");
	cr_assert(f);
	cr_assert_eq(fwrite(bytes, 1, len, f), len);
	fclose(f);
}

static void expect_error(const char *bytes, size_t len, const char *want)
{
	struct lab_matrix m;
	char err[1024];

	write_bytes(bytes, len);
	cr_assert_eq(lab_matrix_load(path, &m, err, sizeof(err)), -1, "accepted");
	cr_expect(strstr(err, want), "got '%s', want '%s'", err, want);
	for (const char *p = err; *p; p++)
		cr_expect((unsigned char)*p >= 0x20, "control byte 0x%02x in the message '%s'", *p, err);
	unlink(path);
}

Test(regression, matrix_not_text)
{
	static const char nul[] = "locks = pthread\0junk\nthreads = 1\n";
	static const char ctl[] = "threads = 1\nlo\x01\x02ks = pthread\n";
	static const char bom[] = "\xef\xbb\xbflocks = pthread\n";
	static const char cr[] = "threads = 1\r\nabc\r\r\rdef\n";	/* CRLF is fine, a CR inside a line is not */
	static const char crlf[] = "locks = pthread\r\nthreads = 1\r";
	struct lab_matrix m;
	char dir[256], err[1024];

	expect_error(nul, sizeof(nul) - 1, ":1: control byte 0x00 at column 16: not a text matrix file");
	expect_error(ctl, sizeof(ctl) - 1, ":2: control byte 0x01 at column 3: not a text matrix file");
	expect_error(cr, sizeof(cr) - 1, ":2: control byte 0x0d at column 4: not a text matrix file");

	snprintf(dir, sizeof(dir), "/tmp/rwlab-test-dir-%d.matrix", (int)getpid());
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_expect_eq(lab_matrix_load(dir, &m, err, sizeof(err)), -1);
	cr_expect(strstr(err, "cannot read matrix") && strstr(err, "Is a directory"), "%s", err);
	rmdir(dir);

	write_bytes(bom, sizeof(bom) - 1);
	cr_assert_eq(lab_matrix_load(path, &m, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(m.n, 1);
	cr_expect_str_eq(m.kv[0].key, "locks");
	lab_matrix_free(&m);
	write_bytes(crlf, sizeof(crlf) - 1);
	cr_assert_eq(lab_matrix_load(path, &m, err, sizeof(err)), 0, "CRLF lines: %s", err);
	cr_expect_eq(m.n, 2);
	cr_expect_str_eq(lab_matrix_get(&m, "threads", NULL), "1");
	lab_matrix_free(&m);
	unlink(path);
}
