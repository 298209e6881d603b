/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shards (shard.h): I/N parsing, every comparison block in exactly one shard, the plan column; merge's
 * cells keyed by their labels as run writes them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "merge.h"
#include "runner.h"
#include "shard.h"

Test(shard, parse)
{
	struct lab_shard s;
	char err[256];
	static const char *const bad[] = { "", "3", "0/4", "5/4", "2/0", "-1/4", "1/4x", "a/b", "1/", "/4",
					   "1/100001", NULL };

	cr_assert_eq(lab_shard_parse("2/4", &s, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(s.index, 2);
	cr_expect_eq(s.count, 4);
	cr_assert_eq(lab_shard_parse("1/1", &s, err, sizeof(err)), 0, "%s", err);
	for (int i = 0; bad[i]; i++) {
		char want[128];

		cr_expect_eq(lab_shard_parse(bad[i], &s, err, sizeof(err)), -1, "accepted '%s'", bad[i]);
		snprintf(want, sizeof(want), "bad --shard '%s' (I/N with 1 <= I <= N, e.g. 2/4)", bad[i]);
		cr_expect_str_eq(err, want);
	}
}

/* A plan of 3 workloads x 5 thread counts x 4 variants, without running anything. */
static void plan(struct lab_run_opts *o, struct lab_workload_conf *wls, struct lab_rwsem_conf *locks, int *threads)
{
	char err[256];
	int n = 0;

	cr_assert_eq(lab_workload_parse_list("locktest,locktest:rpct=90,pft", wls, 8, &n, err, sizeof(err)), 0, "%s",
		     err);
	n = 0;
	cr_assert_eq(lab_rwsem_parse_list("pthread,ck-rwlock,rwsem,rwsem-xadd", locks, 8, &n, err, sizeof(err)), 0,
		     "%s", err);
	for (int i = 0; i < 5; i++)
		threads[i] = 1 << i;
	memset(o, 0, sizeof(*o));
	o->wls = wls;
	o->nwls = 3;
	o->locks = locks;
	o->nlocks = 4;
	o->threads = threads;
	o->nthreads = 5;
	o->iterations = 5;
	o->settings.duration_ns = 2000000000ull;
	o->settings.warmup_ns = 500000000ull;
	o->settings.seed = 1;
}

Test(shard, blocks_partition_the_plan)
{
	static struct lab_workload_conf wls[8];
	static struct lab_rwsem_conf locks[8];
	struct lab_run_opts o;
	int threads[5];
	char err[256];

	plan(&o, wls, locks, threads);
	cr_expect_eq(lab_plan_nblocks(&o), 15);
	cr_expect_eq(lab_plan_ncells(&o, false), 60);
	for (int n = 1; n <= 15; n++) {
		int cells = 0;

		for (int wi = 0; wi < 3; wi++)
			for (int ti = 0; ti < 5; ti++) {
				int owners = 0;

				for (int i = 1; i <= n; i++) {
					o.shard = (struct lab_shard){ i, n };
					owners += lab_shard_has_block(&o, wi, ti);
				}
				cr_expect_eq(owners, 1, "N=%d: block %d/%d in %d shards", n, wi, ti, owners);
			}
		for (int i = 1; i <= n; i++) {
			o.shard = (struct lab_shard){ i, n };
			cells += lab_plan_ncells(&o, true);
			cr_expect_eq(lab_shard_check(&o, err, sizeof(err)), 0, "%s", err);
		}
		cr_expect_eq(cells, 60, "N=%d: the shards hold %d cells", n, cells);
	}
	o.shard = (struct lab_shard){ 1, 16 };
	cr_expect_eq(lab_shard_check(&o, err, sizeof(err)), -1);
}

Test(shard, plan_column)
{
	static struct lab_workload_conf wls[8];
	static struct lab_rwsem_conf locks[8];
	struct lab_run_opts o;
	struct lab_context a = { 0 }, b = { 0 };
	int threads[5];
	char fa[32], fb[32];

	plan(&o, wls, locks, threads);
	o.shard = (struct lab_shard){ 2, 4 };
	lab_plan_context(&a, &o);
	cr_expect_str_eq(a.shard, "2/4");
	cr_expect(strstr(a.plan, " cells=60 blocks=15") && !strstr(a.plan, "seed"), "plan '%s'", a.plan);
	/* Another shard or seed: the same fingerprint; another thread list: another one. */
	o.shard = (struct lab_shard){ 3, 4 };
	o.settings.seed = 7;
	lab_plan_context(&b, &o);
	snprintf(fa, sizeof(fa), "%.19s", a.plan);
	snprintf(fb, sizeof(fb), "%.19s", b.plan);
	cr_expect_str_eq(fa, fb);
	cr_expect_str_eq(a.plan, b.plan);	/* the settings are the settings column's (csv.h) */
	threads[4] = 32;
	lab_plan_context(&b, &o);
	snprintf(fb, sizeof(fb), "%.19s", b.plan);
	cr_expect_str_neq(fa, fb);
}

/* A results file of one cell of @variant on @workload (t=2) at @path (a mkstemp template). */
static void one_cell(char *path, const char *variant, const char *workload)
{
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	cr_assert(f);
	fprintf(f, "schema,run,timestamp,variant,workload,threads,iteration,metric,value,unit,better\n"
		   "1,r,t,\"%s\",\"%s\",2,0,total_rate,5,op/s,higher\n", variant, workload);
	fclose(f);
}

/*
 * merge keys a cell by its labels as run writes them (knobs in their
 * declared order, defaults left out), as report does: one cell spelt two
 * ways in two files is one cell in two files, refused (it was two cells,
 * which report then pooled); two configurations stay two cells.
 */
Test(shard, merge_keys_cells_by_their_labels_as_run_writes_them)
{
	char a[] = "/tmp/rwlab-mlabel-XXXXXX", b[] = "/tmp/rwlab-mlabel-XXXXXX", c[] = "/tmp/rwlab-mlabel-XXXXXX";
	const char *same[] = { a, b }, *other[] = { a, c };
	struct lab_merge_opts o = { .paths = same, .npaths = 2, .quiet = true };

	one_cell(a, "rwsem:wspin=0,rsteal=0", "locktest:load=10");
	one_cell(b, "rwsem:rsteal=0,wspin=0", "locktest:rpct=50,load=10");
	one_cell(c, "rwsem:rsteal=0,wspin=1", "locktest:load=10");
	cr_expect_eq(lab_merge(&o), 2, "one cell spelt two ways in two files was not refused");
	o.paths = other;
	cr_expect_eq(lab_merge(&o), 0, "two configurations refused as one cell");
	unlink(a);
	unlink(b);
	unlink(c);
}

/*
 * The --sim ETA weighs the cells still to run by their work: a plan of one
 * workload at 24, 48, 96, 128 and 192 threads (tools/reproduce lazy-mm-hazptr's
 * context_switch piece), its first cell done in 1 s, has 464/24 of that left,
 * not 4 s (four cells more of the first one's size: it said ETA 0m04s for
 * 35 s). A work workload's warm-up pass counts as an iteration.
 */
Test(shard, eta_weighs_cells_by_work)
{
	static struct lab_workload_conf wls[8];
	static struct lab_rwsem_conf locks[8];
	static const int t[] = { 24, 48, 96, 128, 192 };
	struct lab_run_opts o;
	int threads[5];
	double done, left = 0;

	plan(&o, wls, locks, threads);
	done = lab_cell_work(&o, &wls[0], t[0]);
	for (int i = 1; i < 5; i++)
		left += lab_cell_work(&o, &wls[0], t[i]);
	cr_expect_float_eq(lab_eta_left(1.0, done, left), 464.0 / 24, 1e-9);
	cr_expect_float_eq(lab_cell_work(&o, &wls[0], 192) / lab_cell_work(&o, &wls[0], 24), 8.0, 1e-12);
	cr_expect_float_eq(lab_cell_work(&o, &wls[2], 4), 6.0, 1e-12, "pft: 5 iterations and its warm-up pass");
	cr_expect_float_eq(lab_cell_work(&o, &wls[0], 4), 4.0 * 5, 1e-12, "locktest: its 5 timed iterations");
	cr_expect_lt(lab_eta_left(3.0, 0, left), 0, "no cell finished: unknown");
}

/*
 * pft splits one region among its threads: the same faults at every -t, so
 * a cell's host time hardly grows with its threads. Measured (per-vma-locks'
 * pft on icx-8336c-2s128, -j 1): 1.35 s at 1 thread, 3.6 s at 16, 4.0 s at 64
 * and at 128. Weighed by threads, the first cell said 280 s were left (the
 * full matrix's read 1h23m for 90 s); by iterations, within 4x of 11.6 s.
 */
Test(shard, eta_of_split_work_is_sane_from_the_first_cell)
{
	static struct lab_workload_conf wls[8];
	static struct lab_rwsem_conf locks[8];
	static const int t[] = { 1, 16, 64, 128 };
	static const double host_s[] = { 1.35, 3.6, 4.0, 4.0 };
	struct lab_run_opts o;
	int threads[5];
	double done, left = 0, actual = 0, eta;

	plan(&o, wls, locks, threads);
	done = lab_cell_work(&o, &wls[2], t[0]);
	for (int i = 1; i < 4; i++) {
		left += lab_cell_work(&o, &wls[2], t[i]);
		actual += host_s[i];
	}
	eta = lab_eta_left(host_s[0], done, left);
	cr_expect(eta >= actual / 4 && eta <= actual * 4, "ETA %.1f s after the 1-thread cell, %.1f s left", eta, actual);
	cr_expect_float_eq(lab_cell_work(&o, &wls[2], 128), lab_cell_work(&o, &wls[2], 1), 1e-12);
}
