/* SPDX-License-Identifier: GPL-2.0-only */
/* Matrix files: keys, run arguments, thread expressions, errors with FILE:LINE. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"
#include "threads.h"

static char path[256];

static void write_matrix(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/rwlab-test-%d.matrix", (int)getpid());
	f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static void expect_error(const char *text, const char *want)
{
	struct lab_matrix m;
	char err[1024], full[1200];

	write_matrix(text);
	cr_assert_eq(lab_matrix_load(path, &m, err, sizeof(err)), -1, "accepted:\n%s", text);
	snprintf(full, sizeof(full), "%s:%s", path, want);
	cr_expect(!strncmp(err, full, strlen(full)), "got '%s', want prefix '%s'", err, full);
	unlink(path);
}

Test(matrix, run_arguments)
{
	struct lab_matrix m;
	char err[1024], *argv[64];
	int lines[64], n;

	write_matrix("# comment line\n"
		     "locks = pthread, ck-rwlock   # trailing comment\n"
		     "\n"
		     "workloads = locktest:rpct=90\n"
		     "threads = 1,cpus/2,cpus,2*cpus\n"
		     "iterations = 3\n"
		     "duration = 250ms\n"
		     "options = --pin none -q\n");
	cr_assert_eq(lab_matrix_load(path, &m, err, sizeof(err)), 0, "%s", err);
	n = lab_matrix_run_args(&m, 16, argv, lines, 64, err, sizeof(err));
	cr_assert_eq(n, 13, "%s", err);	/* 5 keys x 2 + "--pin none -q" */
	cr_expect_str_eq(argv[0], "--lock");
	cr_expect_str_eq(argv[1], "pthread,ck-rwlock");	/* spaces around commas dropped */
	cr_expect_eq(lines[1], 2);
	cr_expect_str_eq(argv[3], "locktest:rpct=90");
	cr_expect_eq(lines[3], 4);
	cr_expect_str_eq(argv[4], "--threads");
	cr_expect_str_eq(argv[5], "1,8,16,32");
	cr_expect_str_eq(argv[9], "250ms");
	cr_expect_str_eq(argv[10], "--pin");
	cr_expect_str_eq(argv[12], "-q");
	cr_expect_eq(lines[12], 8);
	lab_matrix_free(&m);
	unlink(path);
}

Test(matrix, thread_expressions)
{
	char out[256], err[256];

	cr_assert_eq(lab_eval_threads("1,cpus/2,cpus,2*cpus", 2, out, sizeof(out), err, sizeof(err)), 0);
	cr_expect_str_eq(out, "1,2,4");	/* cpus/2 = 1 is a duplicate and dropped */
	cr_assert_eq(lab_eval_threads("mmtests:4*cpus", 2, out, sizeof(out), err, sizeof(err)), 0);
	cr_expect_str_eq(out, "mmtests:8");
	cr_assert_eq(lab_eval_threads("1-cpus", 16, out, sizeof(out), err, sizeof(err)), 0);
	cr_expect_str_eq(out, "1-16");
	cr_assert_eq(lab_eval_threads("cpus/4", 2, out, sizeof(out), err, sizeof(err)), 0);
	cr_expect_str_eq(out, "1");		/* at least one thread */
	cr_expect_eq(lab_eval_threads("x*cpus", 2, out, sizeof(out), err, sizeof(err)), -1);
	cr_expect_eq(lab_eval_threads("cpus/0", 2, out, sizeof(out), err, sizeof(err)), -1);
}

Test(matrix, errors_name_file_and_line)
{
	expect_error("locks = pthread\nlock = ck-rwlock\n", "2: unknown key 'lock' (valid:");
	expect_error("locks = pthread\n\nthreads 1,2\n", "3: expected 'key = value'");
	expect_error("iterations = 3\nlocks = a\niterations = 4\n", "3: 'iterations' given twice (first on line 1)");
	expect_error("report = mmtest\n", "1: unknown report format 'mmtest' (valid: table, mmtests");
	expect_error("significance = maybe\n", "1: unknown significance rule 'maybe'");
	expect_error("map.column = v5.0 rwsem-xadd\n", "1: map.column: expected 'PUBLISHED -> RWLAB'");
	expect_error("map.metric = pft faults/cpu -> pft | faults/cpu\n", "1: map.metric: expected");
	expect_error("map.metric = pft | a -> pft | a | median\n", "1: map.metric: aggregate 'median'");
	expect_error("locks = pthread\nmap.threads = 1 -> 1, 40\n", "2: map.threads: '40' is not CLIENTS -> THREADS");
	expect_error("flat = -3\n", "1: flat:");
	expect_error("locks =\n", "1: empty value for 'locks'");
}

Test(matrix, empty_and_missing)
{
	struct lab_matrix m;
	char err[1024];

	write_matrix("# nothing but comments\n\n");
	cr_expect_eq(lab_matrix_load(path, &m, err, sizeof(err)), -1);
	cr_expect(strstr(err, "empty matrix"), "%s", err);
	unlink(path);
	cr_expect_eq(lab_matrix_load("no-such-matrix-name", &m, err, sizeof(err)), -1);
	cr_expect(strstr(err, "no matrix 'no-such-matrix-name'"), "%s", err);
}

Test(matrix, refmap)
{
	struct lab_matrix m;
	struct lab_refmap map;
	char err[1024], ref[4200];

	write_matrix("reference = ../x/published.csv\n"
		     "map.column = v5.0-rc6 -> rwsem-xadd\n"
		     "map.column = rwsem-rework -> rwsem-rspin\n"
		     "map.metric = reaim | compute (jobs/min) -> reaim:compute | headline\n"
		     "map.metric = gitcheckout | user-seconds -> gitcheckout | user_s | sum\n"
		     "map.threads = 1 -> 1, 21 -> cpus/2\n"
		     "map.threads = all -> *\n");
	cr_assert_eq(lab_matrix_load(path, &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(map.ncol, 2);
	cr_expect_str_eq(map.col[0].ref, "v5.0-rc6");
	cr_expect_str_eq(map.col[1].ours, "rwsem-rspin");
	cr_expect_eq(map.nmet, 2);
	cr_expect_str_eq(map.met[0].metric, "compute (jobs/min)");
	cr_expect_str_eq(map.met[0].workload, "reaim:compute");
	cr_expect_str_eq(map.met[0].ours, "headline");
	cr_expect(!map.met[0].sum);
	cr_expect(map.met[1].sum);
	cr_expect_eq(map.nthr, 3);
	cr_expect_str_eq(map.thr[1].ref, "21");
	cr_expect_str_eq(map.thr[1].ours, "cpus/2");
	cr_expect_str_eq(map.thr[2].ours, "*");
	cr_assert_eq(lab_matrix_reference(&m, ref, sizeof(ref)), 0);
	cr_expect_str_eq(ref, "/tmp/../x/published.csv");
	lab_matrix_free(&m);
	unlink(path);
}

Test(matrix, shipped_matrices_parse)
{
	static const char *const names[] = { "quick", "per-vma-locks", "rwsem-rework", "lazy-mm-hazptr",
					     "hugetlb-vmemmap" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct lab_matrix m;
		struct lab_refmap map;
		char err[1024], *argv[64];
		int lines[64];

		cr_assert_eq(lab_matrix_load(names[i], &m, err, sizeof(err)), 0, "%s", err);
		cr_expect_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), 0, "%s", err);
		cr_expect_gt(lab_matrix_run_args(&m, 2, argv, lines, 64, err, sizeof(err)), 0, "%s", err);
		cr_expect(lab_matrix_get(&m, "locks", NULL), "%s has no locks", names[i]);
		lab_matrix_free(&m);
	}
}

/* published_cpus and map.flat (the verdicts' scale-gap and published-flat inputs) */
Test(matrix, refmap_flat_and_published_cpus)
{
	struct lab_matrix m;
	struct lab_refmap map;
	char err[1024];

	write_matrix("published_cpus = 40\n"
		     "map.flat = reaim | shared (jobs/min) | 41 -> \"within the noise\" (a thread)\n"
		     "map.flat = pft | faults/cpu | * -> \"noise\" (another)\n");
	cr_assert_eq(lab_matrix_load(path, &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(map.cpus, 40);
	cr_expect_eq(map.nflat, 2);
	cr_expect_str_eq(map.flat[0].bench, "reaim");
	cr_expect_str_eq(map.flat[0].metric, "shared (jobs/min)");
	cr_expect_str_eq(map.flat[0].clients, "41");
	cr_expect_str_eq(map.flat[0].words, "\"within the noise\" (a thread)");
	cr_expect_str_eq(map.flat[1].clients, "*");
	lab_matrix_free(&m);
	unlink(path);
	expect_error("map.flat = reaim | shared -> noise\n", "1: map.flat: expected 'BENCHMARK | METRIC | CLIENTS|* -> ");
	write_matrix("published_cpus = many\n");
	cr_assert_eq(lab_matrix_load(path, &m, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(lab_matrix_refmap(&m, &map, err, sizeof(err)), -1);
	cr_expect(strstr(err, "published_cpus 'many' is not a positive number"), "%s", err);
	lab_matrix_free(&m);
	unlink(path);
}
