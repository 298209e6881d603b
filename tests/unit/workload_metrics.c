/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mm workloads (pft, reaim, gitcheckout, vmscale) end to end through
 * their ops tables, without the harness: each metric's arithmetic against
 * values computed by hand from fabricated worker records, the reaim job
 * lists against the counts in docs/workloads.md §2.b, the reaim client
 * counts, the checkout plans against hand-made manifests and the real git
 * trees, and the vmscale policies' grace-period counts. Also the knob
 * plumbing these workloads rely on (positional labels, --mm-lock expansion).
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "mm.h"
#include "reaim.h"
#include "threads.h"
#include "workload.h"

/* ---- a recording sink and a hand-built cell -------------------------------------------- */

static struct {
	char name[96];
	double v;
} recs[256];
static int nrec;

static void rec_emit(void *ctx, const char *metric, double value, const char *unit, enum lab_better better)
{
	(void)ctx;
	(void)unit;
	(void)better;
	if (nrec < 256) {
		snprintf(recs[nrec].name, sizeof(recs[nrec].name), "%s", metric);
		recs[nrec++].v = value;
	}
}

static double val(const char *metric)
{
	for (int i = 0; i < nrec; i++)
		if (!strcmp(recs[i].name, metric))
			return recs[i].v;
	cr_assert_fail("metric %s was not emitted", metric);
	return NAN;
}

struct rig {
	struct lab_rwsem_conf lock;
	struct lab_workload_conf wl;
	struct lab_run_settings run;
	struct lab_cell *cell;
	struct lab_worker *w;
	void *state;
};

static void rig_setup(struct rig *r, const char *spec, int nthreads)
{
	char err[512];

	memset(r, 0, sizeof(*r));
	cr_assert_eq(lab_rwsem_parse("pthread", &r->lock, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_workload_parse(spec, &r->wl, err, sizeof(err)), 0, "%s", err);
	r->cell = aligned_alloc(LAB_CACHELINE, sizeof(*r->cell));
	r->w = aligned_alloc(LAB_CACHELINE, (size_t)nthreads * sizeof(*r->w));
	memset(r->cell, 0, sizeof(*r->cell));
	memset(r->w, 0, (size_t)nthreads * sizeof(*r->w));
	r->cell->lock = &r->lock;
	r->cell->wl = &r->wl;
	r->cell->run = &r->run;
	r->cell->nthreads = nthreads;
	r->cell->npus = 2;	/* as the harness sets it (hwloc's allowed PUs); vmscale refuses a cell without it */
	for (int i = 0; i < nthreads; i++) {
		r->w[i].id = i;
		r->w[i].cell = r->cell;
		r->w[i].rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
	}
}

static int rig_open(struct rig *r, char *err, size_t errlen)
{
	return r->wl.ops->setup(&r->state, r->cell, err, errlen);
}

static void rig_metrics(struct rig *r, double wall, double user, double sys)
{
	struct lab_iter it = { r->cell, r->w, r->cell->nthreads, wall, user, sys };
	struct lab_sink sink = { rec_emit, NULL, NULL };

	nrec = 0;
	r->wl.ops->metrics(r->state, &it, &sink);
}

static void rig_close(struct rig *r)
{
	r->wl.ops->teardown(r->state);
	free(r->cell);
	free(r->w);
}

struct run_arg {
	struct rig *r;
	int i;
};

static void *run_one(void *arg)
{
	struct run_arg *a = arg;

	a->r->w[a->i].t_start = lab_clock_ns();
	a->r->wl.ops->worker(a->r->state, &a->r->w[a->i]);
	a->r->w[a->i].t_end = lab_clock_ns();
	return NULL;
}

/* The workers of one iteration on real threads, prepared already, as the harness runs them. Returns the wall seconds. */
static double rig_run(struct rig *r)
{
	int n = r->cell->nthreads;
	pthread_t tid[8];
	struct run_arg a[8];
	uint64_t t0, t1 = 0;

	cr_assert(n <= 8);
	t0 = lab_clock_ns();
	for (int i = 0; i < n; i++) {
		memset(&r->w[i].ops, 0, sizeof(r->w[i]) - offsetof(struct lab_worker, ops));
		a[i] = (struct run_arg){ r, i };
		cr_assert_eq(pthread_create(&tid[i], NULL, run_one, &a[i]), 0);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		t1 = r->w[i].t_end > t1 ? r->w[i].t_end : t1;
	}
	return (double)(t1 - t0) / 1e9;
}

/* prepare() and one iteration. Returns the wall seconds. */
static double rig_iterate(struct rig *r)
{
	if (r->wl.ops->prepare)
		cr_assert_eq(r->wl.ops->prepare(r->state, r->cell), 0);
	return rig_run(r);
}

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (fabs(b) + 1))

/* ---- pft ----------------------------------------------------------------------------------- */

Test(pft, metric_arithmetic, .timeout = 30)
{
	struct rig r;
	char err[256];

	rig_setup(&r, "pft:size_mb=1", 2);
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	r.w[0].ops = 100;
	r.w[1].ops = 156;
	rig_metrics(&r, 0.5, 0.3, 0.1);
	cr_expect(NEAR(val("faults/sec"), 512.0), "256 faults / 0.5 s");
	cr_expect(NEAR(val("faults/cpu"), 640.0), "256 faults / (0.3 + 0.1) s");
	cr_expect(NEAR(val("pages"), 256.0));
	cr_expect(NEAR(val("region_mb"), 1.0), "256 pages of 4 KiB");
	rig_close(&r);
}

Test(pft, per_vma_run_counts_every_fault, .timeout = 30)
{
	struct rig r;
	char err[256];

	/* 1 MiB over 3 threads: ceil(256 / 3) = 86 pages each, 258 pages (pft's rounding) */
	rig_setup(&r, "pft:size_mb=1,mm_lock=vma", 3);
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	rig_iterate(&r);
	rig_metrics(&r, 1, 1, 0);
	cr_expect(NEAR(val("pages"), 258.0));
	cr_expect(NEAR(val("failed_faults"), 0.0));
	/* v6.4: the first fault finds no anon_vma and goes to mmap_lock, every other one is a success */
	cr_expect(NEAR(val("vma_lock_success") + val("fault_mmap"), 258.0));
	cr_expect_geq(val("vma_lock_abort"), 1.0);
	cr_expect_gt(val("vma_lock_success"), 200.0, "the per-VMA path did not carry the faults");
	rig_close(&r);
}

/*
 * A comparison block's pft cells share one page allocator (share()): each
 * iteration's region goes back after its metrics (release()), so the next
 * variant faults the same pages and the pool holds one region, not one per
 * variant. Without the release, the second cell's faults would grow it by a
 * whole region. The pages a CPU's pcp list keeps after the free (up to v6.2's
 * pcp->high) are not the zone's: they are left out of the bound.
 */
Test(pft, block_shares_one_region, .timeout = 60)
{
	struct rig r[2];
	struct lab_page_alloc *pa;
	void *shared = NULL;
	size_t pages, parked;
	char err[256];

	rig_setup(&r[0], "pft:size_mb=8", 2);
	rig_setup(&r[1], "pft:size_mb=8", 2);
	cr_assert_eq(lab_rwsem_parse("rwsem", &r[1].lock, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r[0].wl.ops->share(&shared, r[0].cell, err, sizeof(err)), 0, "%s", err);
	pa = shared;	/* struct pft_shared begins with its page allocator */
	for (int i = 0; i < 2; i++) {
		r[i].cell->shared = shared;
		cr_assert_eq(rig_open(&r[i], err, sizeof(err)), 0, "%s", err);
	}
	pages = lab_page_alloc_pages(pa);
	cr_assert_geq(pages, 2048, "8 MiB is 2048 pages; the pool holds %zu", pages);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 2; i++) {
			rig_iterate(&r[i]);
			rig_metrics(&r[i], 1, 1, 0);
			cr_expect(NEAR(val("pages"), 2048.0), "round %d cell %d: %g pages", round, i, val("pages"));
			cr_expect(NEAR(val("failed_faults"), 0.0));
			r[i].wl.ops->release(r[i].state, r[i].cell);
			/* less the pages the CPUs' pcp lists keep below pcp->high, as the kernel keeps them */
			parked = 0;
			for (int c = 0; c < pa->k.ncpus; c++)
				parked += (size_t)pa->k.cpu[c].pcp_count;
			cr_expect_lt(lab_page_alloc_pages(pa) - parked, pages + pages / 8,
				     "round %d cell %d: the pool grew from %zu to %zu pages, %zu of them on pcp lists",
				     round, i, pages, lab_page_alloc_pages(pa), parked);
		}
	for (int i = 0; i < 2; i++)
		rig_close(&r[i]);
	r[0].wl.ops->unshare(shared);
}

/*
 * Natively the page pool never grows inside an iteration's timed window: a
 * grown chunk is prefaulted by the host, and the iteration after the first
 * took 43 ms instead of 4-8 ms at size_mb=64 (its pages were on the freeing
 * thread's pcp list, up to v6.2's pcp->high of a 64 GiB node). prepare()
 * tops the zone up first.
 */
static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	cr_assert_eq(sched_setaffinity(0, sizeof(set), &set), 0, "cannot pin to CPU %d", cpu);
}

Test(pft, no_growth_inside_an_iteration, .timeout = 60)
{
	struct rig r;
	struct lab_page_alloc *pa;
	void *shared = NULL;
	cpu_set_t all;
	char err[256];

	/* the harness's way: the worker on one CPU, the munmap and the next prepare on another */
	cr_assert_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	if (CPU_COUNT(&all) < 2 || !CPU_ISSET(0, &all) || !CPU_ISSET(1, &all))
		cr_skip_test("needs CPUs 0 and 1");
	rig_setup(&r, "pft:size_mb=8,kernel=v6.2", 1);
	cr_assert_eq(r.wl.ops->share(&shared, r.cell, err, sizeof(err)), 0, "%s", err);
	pa = shared;	/* struct pft_shared begins with its page allocator */
	r.cell->shared = shared;
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	for (int it = 0; it < 3; it++) {
		size_t held;

		pin_self(0);
		cr_assert_eq(r.wl.ops->prepare(r.state, r.cell), 0);
		held = lab_page_alloc_pages(pa);
		pin_self(1);	/* the worker inherits it */
		rig_run(&r);
		pin_self(0);
		rig_metrics(&r, 1, 1, 0);
		cr_expect(NEAR(val("pages"), 2048.0), "iteration %d: %g pages", it, val("pages"));
		cr_expect_eq(lab_page_alloc_pages(pa), held, "iteration %d's faults grew the pool from %zu to %zu "
			     "pages (host faults in the timed window)", it, held, lab_page_alloc_pages(pa));
		r.wl.ops->release(r.state, r.cell);
	}
	rig_close(&r);
	r.wl.ops->unshare(shared);
	sched_setaffinity(0, sizeof(all), &all);
}

/* The memory budget's numbers: a pft block shares its region, vmscale its unit, locktest holds little. */
Test(footprint, per_cell_and_shared)
{
	struct lab_workload_conf wl;
	size_t per, sh;
	char err[256];

	cr_assert_eq(lab_workload_parse("pft:size_mb=64", &wl, err, sizeof(err)), 0, "%s", err);
	lab_workload_footprint(&wl, 2, &per, &sh);
	cr_expect(sh >= (64ul << 20) && sh < (64ul << 20) / 10 * 11, "pft:size_mb=64 shares %zu bytes", sh);
	cr_expect(per < (4ul << 20), "a pft cell's own: %zu bytes", per);
	cr_assert_eq(lab_workload_parse("pft:size_mb=64,touch=fresh", &wl, err, sizeof(err)), 0, "%s", err);
	lab_workload_footprint(&wl, 2, &per, &sh);
	cr_expect(sh >= (128ul << 20), "touch=fresh touches a host region too: %zu", sh);
	cr_assert_eq(lab_workload_parse("vmscale:unit_mb=64", &wl, err, sizeof(err)), 0, "%s", err);
	lab_workload_footprint(&wl, 3, &per, &sh);
	cr_expect_eq(sh, 64ul << 20, "vmscale: 3 workers + the parent, 8 huge pages each: %zu", sh);
	cr_assert_eq(lab_workload_parse("locktest", &wl, err, sizeof(err)), 0, "%s", err);
	lab_workload_footprint(&wl, 4, &per, &sh);
	cr_expect_eq(sh, 0);
	cr_expect_eq(per, LAB_FOOTPRINT_CELL + 4 * LAB_FOOTPRINT_THREAD);
}

/* ---- reaim ---------------------------------------------------------------------------------- */

static int count_of(const struct lab_reaim_count *c, int n, const char *test)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].test, test))
			return c[i].count;
	return -1;
}

Test(reaim, jobs_per_child_as_in_the_notes)
{
	struct lab_reaim_count c[64];
	int per, n;
	/* docs/workloads.md §2.b: the job-list rule on the workfiles, jobs = 100 */
	static const struct {
		const char *t;
		int n;
	} compute[] = { { "add_double", 6 }, { "add_int", 4 }, { "add_long", 4 }, { "array_rtns", 1 },
			{ "disk_cp", 1 }, { "disk_rd", 4 }, { "disk_src", 1 }, { "disk_wrt", 2 },
			{ "div_double", 5 }, { "div_int", 4 }, { "matrix_rtns", 6 }, { "mem_rtns_1", 5 },
			{ "mem_rtns_2", 5 }, { "mul_double", 6 }, { "mul_int", 4 }, { "mul_long", 4 },
			{ "new_raph", 5 }, { "num_rtns_1", 5 }, { "page_test", 6 }, { "series_1", 5 },
			{ "shared_memory", 1 }, { "sieve", 4 }, { "stream_pipe", 2 }, { "string_rtns", 4 },
			{ "trig_rtns", 5 }, { "udp_test", 2 } },
	  new_dbase[] = { { "add_int", 4 }, { "add_long", 4 }, { "add_short", 4 }, { "disk_rd", 7 },
			  { "disk_rr", 7 }, { "div_int", 2 }, { "div_long", 2 }, { "div_short", 2 },
			  { "jmp_test", 2 }, { "mem_rtns_1", 7 }, { "mem_rtns_2", 7 }, { "mul_int", 2 },
			  { "mul_long", 2 }, { "mul_short", 2 }, { "page_test", 7 }, { "ram_copy", 4 },
			  { "shared_memory", 7 }, { "sieve", 5 }, { "sort_rtns_1", 5 }, { "stream_pipe", 2 },
			  { "string_rtns", 5 }, { "sync_disk_rw", 2 }, { "sync_disk_update", 2 },
			  { "disk_brw", 5 }, { "disk_bcp", 5 } };

	n = lab_reaim_job_counts(0, 100, c, 64, &per);
	cr_expect_eq(per, 101, "compute: %d jobs per child", per);
	cr_expect_eq(n, 26);
	for (size_t i = 0; i < LAB_ARRAY_SIZE(compute); i++)
		cr_expect_eq(count_of(c, n, compute[i].t), compute[i].n, "compute %s", compute[i].t);
	n = lab_reaim_job_counts(1, 100, c, 64, &per);
	cr_expect_eq(per, 103, "new_dbase: %d jobs per child", per);
	cr_expect_eq(n, 25);
	for (size_t i = 0; i < LAB_ARRAY_SIZE(new_dbase); i++)
		cr_expect_eq(count_of(c, n, new_dbase[i].t), new_dbase[i].n, "new_dbase %s", new_dbase[i].t);
	n = lab_reaim_job_counts(2, 100, c, 64, &per);
	cr_expect_eq(per, 96, "shared without signal_test: %d jobs per child", per);
	cr_expect_eq(n, 52);
	cr_expect_eq(count_of(c, n, "signal_test"), -1, "mmtests excludes signal_test");
	for (int i = 0; i < n; i++)	/* 30-hit tests -> 4, 20-hit -> 3, 10-hit -> 1 */
		cr_expect_eq(c[i].count, c[i].hits == 30 ? 4 : c[i].hits == 20 ? 3 : 1, "shared %s", c[i].test);
}

Test(reaim, client_counts)
{
	int t[64];
	char err[256];
	static const int c40[] = { 1, 21, 41, 61, 81, 101, 121, 141, 161 };

	cr_assert_eq(lab_parse_threads("reaim:40", 2, t, 64, err, sizeof(err)), 9, "%s", err);
	cr_expect_arr_eq(t, c40, sizeof(c40), "the LKML rows compute-1 ... compute-161");
	cr_assert_eq(lab_parse_threads("reaim", 2, t, 64, err, sizeof(err)), 9);	/* 1..9 step 1 */
	cr_expect(t[0] == 1 && t[1] == 2 && t[8] == 9);
	cr_expect_eq(lab_parse_threads("reaim:0", 2, t, 64, err, sizeof(err)), -1);
}

Test(reaim, metric_arithmetic, .timeout = 30)
{
	struct rig r;
	char err[256];

	rig_setup(&r, "reaim:compute", 2);
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	r.w[0].t_start = 0;
	r.w[0].t_end = 2000000000;	/* 2 s */
	r.w[1].t_start = 0;
	r.w[1].t_end = 3000000000;	/* 3 s */
	r.w[0].ops = r.w[1].ops = 101;
	rig_metrics(&r, 3.0, 4.0, 0.5);
	cr_expect(NEAR(val("JPM"), 4040.0), "101 / 3 s * 60 * 2 children");
	cr_expect(NEAR(val("JPM_C"), 2020.0));
	cr_expect(NEAR(val("std_dev_time"), 0.5), "population stddev of 2 s and 3 s");
	cr_expect(NEAR(val("std_dev_pct"), 20.0), "0.5 / 2.5");
	cr_expect(NEAR(val("JTI"), 80.0), "(1 - 0.2) * 100");
	cr_expect(NEAR(val("parent_time"), 3.0));
	cr_expect(NEAR(val("child_utime"), 4.0));
	cr_expect(NEAR(val("child_systime"), 0.5));
	cr_expect(NEAR(val("jobs_per_child"), 101.0));
	rig_close(&r);
}

/* Every task of every workfile, once (jobs=1 gives each test one job), on real threads. */
static void reaim_every_task(const char *spec, int children, double want_jobs)
{
	struct rig r;
	char err[256];

	rig_setup(&r, spec, children);
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	rig_iterate(&r);
	rig_metrics(&r, 1, 1, 0);
	cr_expect(NEAR(val("jobs"), want_jobs * children), "%s: jobs run", spec);
	cr_expect(NEAR(val("task_errors"), 0.0), "%s: %g tasks failed", spec, val("task_errors"));
	cr_expect_gt(val("fault_mmap") + val("vma_lock_success"), 0.0, "%s: no fault reached the mm model", spec);
	rig_close(&r);
}

Test(reaim, every_task_runs, .timeout = 120)
{
	/* forked children (the default) and, for new_dbase, threads of one mm */
	reaim_every_task("reaim:shared,jobs=1", 2, 52);
	reaim_every_task("reaim:new_dbase,jobs=1,mm=shared,mm_lock=vma", 2, 25);
	reaim_every_task("reaim:compute,jobs=1,mm_lock=vma-refcnt", 2, 26);
}

/* ---- gitcheckout ------------------------------------------------------------------------------ */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

Test(gitcheckout, plan_and_duration_arithmetic, .timeout = 60)
{
	char dir[] = "/tmp/rwlab-gc-XXXXXX", a[64], b[64], commits[160], err[512];
	struct rig r;

	cr_assert(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/A.tsv", dir);
	snprintf(b, sizeof(b), "%s/B.tsv", dir);
	write_file(a, "100644\t10\ta/x\n100644\t5\ta/y\n100644\t7\tb/z\n");
	write_file(b, "100644\t10\ta/x\n100644\t6\ta/y\n100755\t3\tc/w\n");
	snprintf(commits, sizeof(commits), "%s,%s", a, b);
	rig_setup(&r, "gitcheckout:pack_mb=1", 2);
	r.run.commits = commits;
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	rig_iterate(&r);
	rig_metrics(&r, 2.0, 9.0, 1.0);
	/*
	 * Starting from B: B->A removes a/y (changed) and c/w, writes a/y (5) and b/z (7),
	 * removes directory c; A->B removes a/y and b/z, writes a/y (6) and c/w (3), removes b.
	 */
	cr_expect(NEAR(val("checkouts"), 2.0));
	cr_expect(NEAR(val("files_written"), 4.0));
	cr_expect(NEAR(val("files_removed"), 4.0));
	cr_expect(NEAR(val("dirs_removed"), 2.0));
	cr_expect(NEAR(val("bytes_written"), 21.0), "5 + 7 + 6 + 3 bytes");
	cr_expect(NEAR(val("errors"), 0.0));
	cr_expect(NEAR(val("tree_files"), 4.0), "a/x a/y c/w and the index");
	cr_expect(NEAR(val("tree_dirs"), 3.0), "root, a, c");
	cr_expect(NEAR(val("tree_mismatch"), 0.0));
	cr_expect(NEAR(val("elapsed"), 2.0));
	cr_expect(NEAR(val("user") + val("system"), 10.0), "user + system = the process CPU time");
	cr_expect_gt(val("fault_mmap"), 0.0, "object data was not read through faults");
	rig_close(&r);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

Test(gitcheckout, real_git_trees, .timeout = 120)
{
	const char *d = getenv("LAB_GIT_TREE_DIR");
	char commits[1024], probe[512], err[512];
	struct stat st;
	struct rig r;

	snprintf(probe, sizeof(probe), "%s/git-v2.47.0.tsv", d ? d : "");
	if (!d || stat(probe, &st))
		cr_skip_test("the git-tree manifests are not there (LAB_GIT_TREE_DIR=%s)", d ? d : "unset");
	snprintf(commits, sizeof(commits), "%s/git-v2.47.0.tsv,%s/git-v2.20.0.tsv", d, d);
	rig_setup(&r, "gitcheckout:mm_lock=vma-refcnt", 2);
	r.run.commits = commits;
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	rig_iterate(&r);
	rig_metrics(&r, 1, 1, 0);
	cr_expect(NEAR(val("tree_mismatch"), 0.0), "the tree is not v2.20.0's after the pass");
	cr_expect(NEAR(val("errors"), 0.0));
	/* v2.20.0: 3523 entries, one of them a submodule (a directory), plus the index */
	cr_expect(NEAR(val("tree_files"), 3523.0));
	cr_expect_gt(val("files_written"), 1000.0);
	cr_expect_gt(val("vma_lock_success"), 0.0, "pack faults never used the per-VMA lock");
	rig_close(&r);
}

Test(gitcheckout, shipped_trees_by_default, .timeout = 60)
{
	struct rig r;
	char err[512];
	double wall;

	/* no --repo, no --commits: git v2.47.0 -> v2.20.0 -> v2.40.0 from the binary's own table */
	rig_setup(&r, "gitcheckout", 1);
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	wall = rig_iterate(&r);
	rig_metrics(&r, wall, wall, 0);
	cr_expect(NEAR(val("checkouts"), 3.0));
	cr_expect(NEAR(val("tree_mismatch"), 0.0));
	cr_expect(NEAR(val("errors"), 0.0));
	/* v2.40.0: 4340 paths, one of them a submodule (a directory), plus the index */
	cr_expect(NEAR(val("tree_files"), 4340.0), "tree_files %g", val("tree_files"));
	/* tens of milliseconds of modelled kernel work: some 1 ms CPU-clock ticks must land there */
	cr_expect_gt(val("system"), 0.0, "no tick was charged to the modelled kernel");
	cr_expect_lt(val("system"), wall, "more system time than the pass lasted");
	rig_close(&r);
}

Test(gitcheckout, unknown_release_is_one_line, .timeout = 30)
{
	struct rig r;
	char err[512];

	rig_setup(&r, "gitcheckout", 1);
	r.run.commits = "v2.47.0,v9.9";
	cr_assert_neq(rig_open(&r, err, sizeof(err)), 0);
	cr_expect(strstr(err, "v9.9") && strstr(err, "shipped: v2.20.0 v2.30.0 v2.40.0 v2.47.0") && !strchr(err, '\n'),
		  "%s", err);
	free(r.cell);
	free(r.w);
}

/* ---- vmscale ---------------------------------------------------------------------------------- */

Test(vmscale, metric_arithmetic, .timeout = 30)
{
	struct rig r;
	char err[256];
	double ncpus = (double)sysconf(_SC_NPROCESSORS_ONLN);

	/* unit 12 MiB over 2 workers + parent: 4 MiB = 2 huge pages per process */
	rig_setup(&r, "vmscale:batch,unit_mb=12,walkers=0", 2);
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	r.w[0].t_start = 0;
	r.w[0].t_end = 1000000000;	/* 1 s */
	r.w[0].ops = 1000000;
	r.w[1].t_start = 0;
	r.w[1].t_end = 2000000000;	/* 2 s */
	r.w[1].ops = 3000000;
	r.w[0].count[1] = 5;		/* voluntary switches */
	r.w[1].count[1] = 7;
	r.w[0].count[4] = 900000;	/* user us */
	r.w[1].count[4] = 1500000;
	r.w[0].count[5] = 100000;	/* system us */
	rig_metrics(&r, 2.0, 2.4, 0.1);
	/*
	 * bytes = 4 MiB / 8 + 8 * writes: 8524288 and 24524288;
	 * KB/s = (bytes * 1000000 >> 10) / usecs: 8324500000 / 1000000 = 8324,
	 * 23949500000 / 2000000 = 11974 (integer division, as usemem).
	 */
	cr_expect(NEAR(val("region_mb"), 4.0));
	cr_expect(NEAR(val("vm-scalability.throughput"), 8324.0 + 11974.0));
	cr_expect(NEAR(val("vm-scalability.median"), (8324.0 + 11974.0) / 2));
	cr_expect(NEAR(val("time.voluntary_context_switches"), 12.0));
	cr_expect(NEAR(val("time.user_time"), 2.4));
	cr_expect(NEAR(val("time.system_time"), 0.1));
	cr_expect(NEAR(val("time.elapsed_time"), 2.0));
	cr_expect(NEAR(val("time.percent_of_cpu_this_job_got"), 125.0), "2.5 s of CPU in 2 s");
	cr_expect(NEAR(val("idle%"), 100.0 - 125.0 / ncpus));
	rig_close(&r);
}

static void vmscale_policy(const char *spec, int gps_per_worker)
{
	struct rig r;
	char err[256];

	/* 24 MiB / 3 = 8 MiB: 4 huge pages per process */
	rig_setup(&r, spec, 2);
	cr_assert_eq(rig_open(&r, err, sizeof(err)), 0, "%s", err);
	rig_iterate(&r);
	rig_metrics(&r, 1, 1, 0);
	cr_expect(NEAR(val("cow_copies"), 8.0), "%s: every worker copies every page once", spec);
	cr_expect(NEAR(val("alloc_failures"), 0.0));
	cr_expect(NEAR(val("grace_periods"), 2.0 * gps_per_worker), "%s: %g grace periods", spec,
		  val("grace_periods"));
	cr_expect_gt(val("walker_sections"), 0.0, "%s: the walker never ran", spec);
	rig_close(&r);
}

Test(vmscale, policies, .timeout = 60)
{
	vmscale_policy("vmscale:sync,unit_mb=24,walk_pause_us=50", 4);		/* one per page */
	vmscale_policy("vmscale:batch,unit_mb=24,batch=3,walk_pause_us=50", 2);	/* 3 + the last 1 */
	vmscale_policy("vmscale:hazptr,unit_mb=24,walk_pause_us=50", 0);
}

/* ---- knob plumbing --------------------------------------------------------------------------- */

Test(knobs, positional_label_and_mm_lock_expansion)
{
	struct lab_workload_conf c[8];
	char err[256];
	int n = 0;

	cr_assert_eq(lab_workload_parse_list("reaim:compute,reaim:shared,jobs=50", c, 8, &n, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(c[0].label, "reaim:compute", "the positional knob shows even at its default");
	cr_expect_str_eq(c[1].label, "reaim:shared,jobs=50");
	n = 0;
	cr_assert_eq(lab_workload_parse_list("pft,locktest", c, 8, &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_workload_expand_knob(c, 8, &n, "mm_lock", "mmap,vma,vma-refcnt", err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(n, 4);
	cr_expect_str_eq(c[0].label, "pft");
	cr_expect_str_eq(c[1].label, "pft:mm_lock=vma");
	cr_expect_str_eq(c[2].label, "pft:mm_lock=vma-refcnt");
	cr_expect_str_eq(c[3].label, "locktest", "a workload without the knob is kept once");
	cr_expect_eq(lab_workload_expand_knob(c, 8, &n, "mm_lock", "rcu", err, sizeof(err)), -1);
	n = 0;
	lab_workload_parse_list("locktest", c, 8, &n, err, sizeof(err));
	cr_expect_eq(lab_workload_expand_knob(c, 8, &n, "mm_lock", "vma", err, sizeof(err)), -1,
		     "no workload has the knob: must be an error");
}

/*
 * The fault paths are one list (mm.h's LAB_MM_LOCK_MODES): every workload
 * with an mm_lock knob offers exactly its names, in its order, and each name
 * sets the knob to its own enum value.
 */
Test(workloads, mm_lock_modes_one_list)
{
	int with = 0;

	cr_expect_str_eq(LAB_MM_LOCK_CHOICES, "mmap|vma|vma-refcnt");
	for (int i = 0; lab_workloads[i]; i++) {
		const struct lab_knob *k = lab_workloads[i]->knobs;
		int ki = 0;

		while (k && k[ki].name && strcmp(k[ki].name, "mm_lock"))
			ki++;
		if (!k || !k[ki].name)
			continue;
		with++;
		cr_expect_str_eq(k[ki].choices, LAB_MM_LOCK_CHOICES, "%s's mm_lock", lab_workloads[i]->name);
		for (int m = 0; m < LAB_MM_LOCK_NR; m++) {
			struct lab_workload_conf c[1];
			char spec[96], err[256];
			int n = 0;

			snprintf(spec, sizeof(spec), "%s:mm_lock=%s", lab_workloads[i]->name, lab_mm_lock_mode_names[m]);
			cr_assert_eq(lab_workload_parse_list(spec, c, 1, &n, err, sizeof(err)), 0, "%s: %s", spec, err);
			cr_expect_eq(c[0].knob[ki], m, "%s sets mm_lock to %ld", spec, c[0].knob[ki]);
			cr_expect_str_eq(lab_mm_lock_mode_name((enum lab_mm_lock_mode)m), lab_mm_lock_mode_names[m]);
		}
	}
	cr_expect_geq(with, 3, "pft, reaim and gitcheckout have the knob; found %d", with);
}
