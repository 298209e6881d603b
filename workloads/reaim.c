/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reaim - the re-aim-7 (OSDL AIM7) job mixes compute, new_dbase and shared.
 *
 * Citation: re-aim-7 7.0.1.13 as run by mmtests (configs reaim-io-*, driver
 * reaim-bench: `reaim -s1 -e.. -t -i.. -f workfile.X -r1`, FILESIZE 10k,
 * POOLSIZE 1m, signal_test excluded); workfile weights, the job-list rule and
 * the metrics from davidlohr/areaim osdl-aim-7 (docs/workloads.md §2.b).
 *
 * One iteration = one reaim step with N children (N = the thread count):
 * - the job list of the workfile has round(hits / total * jobs) entries per
 *   test (at least 1), jobs = 100: 101 jobs per child for compute, 103 for
 *   new_dbase, 96 for shared without signal_test;
 * - every child runs its own copy of the list in a random order;
 * - children are processes, as re-aim forks them: by default (mm=private)
 *   each step forks every child's mm from the parent's (dup_mmap, before the
 *   window, as reaim forks before its start signal) and each child exits at
 *   its end (exit_mmap, inside the window, as reaim's real_time runs to the
 *   last child's exit). mm=shared makes them threads of one mm instead, whose
 *   memory tasks then contend on one mmap_lock (or on per-VMA locks with
 *   mm_lock=vma|vma-refcnt);
 * - file mappings take the file's i_mmap_rwsem (a lock of the variant under
 *   test) for write on mmap, munmap, fork and exit, as the kernel does
 *   (workloads/mm.h lab_mm_file_i_mmap): the parent's mm maps the reaim
 *   image and libc (sizes ours: 64 and 512 pages), so every fork and exit of
 *   a child, and of fork_test's and exec_test's copies, links or unlinks
 *   them in those two files' i_mmap -- shared by all children, as the
 *   rwsem-rework thread names mmap_sem and i_mmap as what reaim exercises;
 *   exec maps the "true" image and libc, shared_memory its segment.
 *
 * Tasks do real work, in user space:
 * - arithmetic (add/mul/div of short, int, long, float, double): 12 dependent
 *   operations per loop iteration, with the workfile's loop counts;
 * - num/trig/series/matrix/array/string/sort routines, sieve (malloc of 1 MB:
 *   jemalloc in the rwlab binary), ram_copy, jmp_test, misc_rtns_1;
 * - through the mm model: page_test and brk_test (brk/sbrk on the child's
 *   program break, page_test touching every new page), mem_rtns_1 (malloc
 *   traffic on a model heap grown and trimmed by brk as glibc does:
 *   M_TOP_PAD and M_TRIM_THRESHOLD 128 KiB), mem_rtns_2 (the child's model
 *   stack), shared_memory (a 64 KiB shmem segment mapped with mmap, semaphores);
 * - fork_test / exec_test / shell_rtns_1: an mm copy (dup_mmap, taking the
 *   parent's mmap_lock for write) and its tear-down; exec builds a small new mm;
 * - disk tasks on in-memory files in one shared DISKDIR of the directory model
 *   (per-directory rwsems of the variant under test), 1 KiB buffers, file size
 *   FILESIZE + POOLSIZE / children KiB; sync variants write dirty pages to a
 *   per-child "device" buffer; creat_clo, link_test, dir_rtns_1, disk_src use
 *   the same tree;
 * - pipes and sockets (stream_pipe, dgram_pipe, pipe_cpy, tcp_test, udp_test):
 *   in-memory channels, written then read back by the same child.
 * Where the notes give no size (matrix, series, string routines...), the
 * sizes here are ours; they are marked "ours" below.
 *
 * Metrics (reaim's): JPM = jobs_per_child / real_time * 60 * children,
 * JPM_C = jobs_per_child / real_time * 60, JTI = (1 - cov) * 100 with cov =
 * population stddev / mean of the children's elapsed times, std_dev_time,
 * std_dev_pct, parent_time = real_time (barrier release to the last child's
 * end), child_utime / child_systime (process CPU over the window), plus the
 * mm model's counters.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dirtree.h"
#include "mm.h"
#include "rcu.h"
#include "reaim.h"
#include "wait.h"
#include "workload.h"

enum { K_WORKFILE, K_JOBS, K_MM, K_MM_LOCK, K_FILESIZE, K_POOLSIZE, K_KERNEL };
enum { WF_COMPUTE, WF_NEW_DBASE, WF_SHARED, WF_NR };

static const struct lab_knob reaim_knobs[] = {
	[K_WORKFILE] = { .name = "workfile", .type = LAB_KNOB_ENUM, .def = WF_COMPUTE,
			 .choices = LAB_REAIM_WORKFILES, .positional = true,
			 .help = "job mix (reaim -f data/workfile.X)" },
	[K_JOBS] = { .name = "jobs", .type = LAB_KNOB_INT, .def = 100, .min = 1, .max = 100000,
		     .help = "jobs per child before rounding (reaim -j, default 100)" },
	[K_MM] = { .name = "mm", .type = LAB_KNOB_ENUM, .def = 1, .choices = "shared|private",
		   .help = "private: children are forked processes with their own mm (reaim); shared: threads of one mm" },
	[K_MM_LOCK] = { .name = "mm_lock", .type = LAB_KNOB_ENUM, .def = LAB_MM_LOCK_MMAP,
			.choices = LAB_MM_LOCK_CHOICES, .help = "fault path of the mm model (--mm-lock)" },
	[K_FILESIZE] = { .name = "filesize_kb", .type = LAB_KNOB_INT, .def = 10, .min = 1, .max = 1 << 20,
			 .help = "FILESIZE of reaim.config, KiB (mmtests: 10k)" },
	[K_POOLSIZE] = { .name = "poolsize_kb", .type = LAB_KNOB_INT, .def = 1024, .min = 0, .max = 1 << 20,
			 .help = "POOLSIZE of reaim.config, KiB, shared among the children (mmtests: 1m)" },
	[K_KERNEL] = { .name = "kernel", .type = LAB_KNOB_ENUM, .def = LAB_KMM_DEFAULT, .choices = LAB_KMM_CHOICES,
		       .help = "the kernel whose fault path the mm model follows (workloads/kmm.h)" },
	{ 0 }
};

/* ---- workfiles (hits per test: docs/workloads.md §2.b) ------------------------------- */

struct wf_line {
	const char *test;
	int hits;
};

static const struct wf_line wf_compute[] = {
	{ "add_double", 50 }, { "add_int", 30 }, { "add_long", 30 }, { "array_rtns", 10 }, { "disk_cp", 10 },
	{ "disk_rd", 30 }, { "disk_src", 10 }, { "disk_wrt", 20 }, { "div_double", 40 }, { "div_int", 30 },
	{ "matrix_rtns", 50 }, { "mem_rtns_1", 40 }, { "mem_rtns_2", 40 }, { "mul_double", 50 },
	{ "mul_int", 30 }, { "mul_long", 30 }, { "new_raph", 40 }, { "num_rtns_1", 40 }, { "page_test", 50 },
	{ "series_1", 40 }, { "shared_memory", 10 }, { "sieve", 30 }, { "stream_pipe", 20 },
	{ "string_rtns", 30 }, { "trig_rtns", 40 }, { "udp_test", 20 }, { NULL, 0 }
};

static const struct wf_line wf_new_dbase[] = {
	{ "add_int", 20 }, { "add_long", 20 }, { "add_short", 20 }, { "disk_rd", 40 }, { "disk_rr", 40 },
	{ "div_int", 10 }, { "div_long", 10 }, { "div_short", 10 }, { "jmp_test", 10 }, { "mem_rtns_1", 40 },
	{ "mem_rtns_2", 40 }, { "mul_int", 10 }, { "mul_long", 10 }, { "mul_short", 10 }, { "page_test", 40 },
	{ "ram_copy", 20 }, { "shared_memory", 40 }, { "sieve", 30 }, { "sort_rtns_1", 30 },
	{ "stream_pipe", 10 }, { "string_rtns", 30 }, { "sync_disk_rw", 10 }, { "sync_disk_update", 10 },
	{ "disk_brw", 30 }, { "disk_bcp", 30 }, { NULL, 0 }
};

static const struct wf_line wf_shared[] = {
	{ "add_double", 30 }, { "add_float", 30 }, { "add_int", 30 }, { "add_long", 30 }, { "add_short", 30 },
	{ "array_rtns", 10 }, { "brk_test", 10 }, { "creat_clo", 10 }, { "dgram_pipe", 10 },
	{ "dir_rtns_1", 10 }, { "disk_cp", 20 }, { "disk_rd", 20 }, { "disk_rr", 20 }, { "disk_rw", 20 },
	{ "disk_src", 20 }, { "disk_wrt", 20 }, { "div_double", 10 }, { "div_float", 10 }, { "div_int", 10 },
	{ "div_long", 10 }, { "div_short", 10 }, { "exec_test", 20 }, { "fork_test", 10 }, { "jmp_test", 10 },
	{ "link_test", 10 }, { "matrix_rtns", 10 }, { "mem_rtns_1", 10 }, { "mem_rtns_2", 10 },
	{ "misc_rtns_1", 10 }, { "mul_double", 20 }, { "mul_float", 20 }, { "mul_int", 20 }, { "mul_long", 20 },
	{ "mul_short", 20 }, { "new_raph", 10 }, { "num_rtns_1", 10 }, { "page_test", 10 }, { "pipe_cpy", 10 },
	{ "ram_copy", 10 }, { "series_1", 10 }, { "shared_memory", 10 }, { "shell_rtns_1", 20 },
	{ "sieve", 10 }, { "signal_test", 10 }, { "sort_rtns_1", 10 }, { "stream_pipe", 10 },
	{ "string_rtns", 30 }, { "sync_disk_cp", 10 }, { "sync_disk_rw", 10 }, { "sync_disk_wrt", 10 },
	{ "tcp_test", 10 }, { "trig_rtns", 10 }, { "udp_test", 10 }, { NULL, 0 }
};

static const struct wf_line *const workfiles[WF_NR] = { wf_compute, wf_new_dbase, wf_shared };

/* mmtests' REAIM_EXCLUDE for every io config. */
static bool excluded(const char *test)
{
	return !strcmp(test, "signal_test");
}

int lab_reaim_job_counts(int wf, int jobs, struct lab_reaim_count *out, int max, int *per_child)
{
	const struct wf_line *l = wf >= 0 && wf < WF_NR ? workfiles[wf] : NULL;
	long total = 0;
	int n = 0;

	*per_child = 0;
	if (!l)
		return -1;
	for (int i = 0; l[i].test; i++)
		if (!excluded(l[i].test))
			total += l[i].hits;
	for (int i = 0; l[i].test; i++) {
		long scaled = (long)l[i].hits * jobs, cnt;

		if (excluded(l[i].test))
			continue;
		/* round(hits / total * jobs): +1 when the fraction is at least one half; at least 1 */
		cnt = scaled / total + (2 * (scaled % total) >= total ? 1 : 0);
		if (cnt < 1 && l[i].hits > 0)
			cnt = 1;
		if (n < max)
			out[n] = (struct lab_reaim_count){ l[i].test, l[i].hits, (int)cnt };
		*per_child += (int)cnt;
		n++;
	}
	return n;
}

/* ---- in-memory files ---------------------------------------------------------------------- */

#define NBUFSIZE 1024			/* reaim's disk buffer (suite.h) */

struct memfile {
	struct lab_lock i_rwsem;
	size_t size, npages;
	char **page;			/* 4 KiB host pages (jemalloc), NULL = hole */
	uint8_t *dirty;
};

static struct memfile *mf_new(const struct lab_rwsem_conf *conf)
{
	struct memfile *f = calloc(1, sizeof(*f));

	if (f && lab_lock_init(&f->i_rwsem, conf)) {
		free(f);
		f = NULL;
	}
	return f;
}

static void mf_truncate_locked(struct memfile *f)
{
	for (size_t i = 0; i < f->npages; i++)
		free(f->page[i]);
	free(f->page);
	free(f->dirty);
	f->page = NULL;
	f->dirty = NULL;
	f->npages = f->size = 0;
}

static void mf_release(void *data)
{
	struct memfile *f = data;

	mf_truncate_locked(f);
	lab_lock_destroy(&f->i_rwsem);
	free(f);
}

/* write(2): i_rwsem for write, page-cache pages allocated on demand. */
static int mf_write(struct memfile *f, size_t off, const void *buf, size_t len)
{
	size_t end = off + len, need = (end + LAB_PAGE_SIZE - 1) >> LAB_PAGE_SHIFT;
	int r = 0;

	lab_kernel_work(LAB_KWORK_SYSCALL);
	lab_copy_work(len);
	lab_down_write(&f->i_rwsem);
	if (need > f->npages) {
		char **p = realloc(f->page, need * sizeof(*p));
		uint8_t *d = p ? realloc(f->dirty, need) : NULL;

		if (p)
			f->page = p;
		if (!d) {
			r = -ENOMEM;
			goto out;
		}
		f->dirty = d;
		memset(f->page + f->npages, 0, (need - f->npages) * sizeof(*p));
		memset(f->dirty + f->npages, 0, need - f->npages);
		f->npages = need;
	}
	while (len) {
		size_t pg = off >> LAB_PAGE_SHIFT, po = off & (LAB_PAGE_SIZE - 1);
		size_t n = LAB_PAGE_SIZE - po < len ? LAB_PAGE_SIZE - po : len;

		if (!f->page[pg] && !(f->page[pg] = calloc(1, LAB_PAGE_SIZE))) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(f->page[pg] + po, buf, n);
		f->dirty[pg] = 1;
		buf = (const char *)buf + n;
		off += n;
		len -= n;
	}
	if (end > f->size)
		f->size = end;
out:
	lab_up_write(&f->i_rwsem);
	return r;
}

/* read(2): buffered reads take no i_rwsem (ext4); holes read as zeroes. */
static size_t mf_read(struct memfile *f, size_t off, void *buf, size_t len)
{
	size_t done = 0;

	lab_kernel_work(LAB_KWORK_SYSCALL);
	if (off >= f->size)
		return 0;
	if (len > f->size - off)
		len = f->size - off;
	lab_copy_work(len);
	while (done < len) {
		size_t pg = off >> LAB_PAGE_SHIFT, po = off & (LAB_PAGE_SIZE - 1);
		size_t n = LAB_PAGE_SIZE - po < len - done ? LAB_PAGE_SIZE - po : len - done;

		if (f->page[pg])
			memcpy((char *)buf + done, f->page[pg] + po, n);
		else
			memset((char *)buf + done, 0, n);
		off += n;
		done += n;
	}
	return done;
}

/* fsync(2): write every dirty page to the device (a copy into @dev, a 64 KiB ring). */
static void mf_fsync(struct memfile *f, char *dev, size_t *devpos)
{
	lab_kernel_work(LAB_KWORK_SYSCALL);
	lab_down_write(&f->i_rwsem);
	for (size_t i = 0; i < f->npages; i++) {
		if (!f->dirty[i] || !f->page[i])
			continue;
		memcpy(dev + *devpos, f->page[i], LAB_PAGE_SIZE);
		lab_copy_work(LAB_PAGE_SIZE);
		*devpos = (*devpos + LAB_PAGE_SIZE) % (16 * LAB_PAGE_SIZE);
		f->dirty[i] = 0;
	}
	lab_up_write(&f->i_rwsem);
}

/* ---- in-memory pipes and sockets ---------------------------------------------------------- */

#define CHAN_SIZE 65536			/* the default pipe buffer */

struct chan {
	char buf[CHAN_SIZE];
	size_t head, tail;		/* bytes written / read, modulo CHAN_SIZE */
	uint32_t lens[64];		/* datagram boundaries */
	unsigned lhead, ltail;
};

static void chan_put(struct chan *ch, const char *p, size_t n, bool dgram)
{
	lab_kernel_work(LAB_KWORK_SYSCALL);
	lab_copy_work(n);
	for (size_t i = 0; i < n;) {
		size_t at = ch->head % CHAN_SIZE, k = CHAN_SIZE - at < n - i ? CHAN_SIZE - at : n - i;

		memcpy(ch->buf + at, p + i, k);
		ch->head += k;
		i += k;
	}
	if (dgram)
		ch->lens[ch->lhead++ % 64] = (uint32_t)n;
}

static size_t chan_get(struct chan *ch, char *p, size_t n, bool dgram)
{
	size_t got;

	lab_kernel_work(LAB_KWORK_SYSCALL);
	if (dgram)
		n = ch->lens[ch->ltail++ % 64];	/* one whole datagram */
	lab_copy_work(n);
	for (got = 0; got < n && ch->tail < ch->head;) {
		size_t at = ch->tail % CHAN_SIZE, k = CHAN_SIZE - at < n - got ? CHAN_SIZE - at : n - got;

		if (k > ch->head - ch->tail)
			k = ch->head - ch->tail;
		memcpy(p + got, ch->buf + at, k);
		ch->tail += k;
		got += k;
	}
	return got;
}

/* ---- state ----------------------------------------------------------------------------------- */

struct reaim;

struct child {
	struct reaim *r;
	int id;
	struct lab_mm *mm;
	struct lab_mm own_mm;		/* mm=private */
	bool own_mm_ok;
	struct lab_mm_thread t;
	struct lab_utlb tlb;
	struct lab_brk brk_own;		/* shared mm: this thread's heap segment */
	struct lab_brk *brk;
	uintptr_t stack;		/* 64 KiB model stack */
	uint64_t rng;
	uint64_t seq;			/* temp-file names */
	struct lab_dentry *bcfile;	/* disk_brw/disk_bcp: the child's persistent file */
	char *dev;			/* the "disk": 64 KiB */
	size_t devpos;
	struct chan *chan;
	char *iobuf;			/* 64 KiB host scratch */
	int *jobs;			/* this iteration's order */
	double sink;			/* results, so the compiler keeps the work */
	uint64_t errors;
} __lab_cacheline_aligned;

struct reaim {
	const struct lab_rwsem_conf *conf;
	enum lab_mm_lock_mode mode;
	int workfile, nchildren, jobs_per_child, ntests;
	bool private_mm;
	size_t file_kb;			/* FILESIZE + POOLSIZE / children */
	struct lab_page_alloc pa;
	bool pa_ok, mm_ok, fs_ok, bin_ok;
	struct lab_mm mm;		/* the shared mm */
	struct lab_mm_thread main_t;
	struct lab_dirtree fs;
	struct lab_dentry *diskdir, *bindir, *fakeh;
	struct lab_mm_file bin;		/* the executable image exec maps (page cache) */
	struct lab_mm_file prog, libc;	/* the reaim image and libc, mapped by the parent's mm */
	bool prog_ok, libc_ok;
	int *joblist;			/* the template: task index per job */
	int work_key[64];		/* simulated: lab_work_key() of each computing task */
	struct child *child;
};

/* ---- the tasks -------------------------------------------------------------------------------- */

typedef int (*task_fn)(struct child *c);

static inline uint64_t crand(struct child *c)
{
	uint64_t x = c->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	c->rng = x;
	return x;
}

/* Keep a value opaque to the optimiser: its computation must happen. */
#define OPAQUE_I(x) __asm__ __volatile__("" : "+r"(x))
#if defined(__x86_64__)
#define OPAQUE_F(x) __asm__ __volatile__("" : "+x"(x))
#elif defined(__aarch64__)
#define OPAQUE_F(x) __asm__ __volatile__("" : "+w"(x))
#else
#define OPAQUE_F(x) __asm__ __volatile__("" : "+m"(x))
#endif

/*
 * 12 dependent operations per iteration on x with the operands a and b, as
 * AIM's arithmetic tests: add "3 -3 N" (x stays bounded), mul "1 1 N",
 * div "1 1 N". a and b are opaque each iteration so nothing is folded.
 */
#define ARITH(T, OPQ, OP, x0, a0, b0, n)						\
	do {										\
		T x_ = (T)(x0), a_ = (T)(a0), b_ = (T)(b0);				\
		for (long i_ = (n); i_ > 0; i_--) {					\
			OPQ(a_);							\
			OPQ(b_);							\
			x_ = x_ OP a_; x_ = x_ OP b_; x_ = x_ OP a_; x_ = x_ OP b_;	\
			x_ = x_ OP a_; x_ = x_ OP b_; x_ = x_ OP a_; x_ = x_ OP b_;	\
			x_ = x_ OP a_; x_ = x_ OP b_; x_ = x_ OP a_; x_ = x_ OP b_;	\
		}									\
		c->sink += (double)x_;							\
	} while (0)

#define ARITH_TASK(name, T, OPQ, OP, x0, a0, b0, n)	\
	enum { name##_n = (n) };			\
	static int name(struct child *c)		\
	{						\
		ARITH(T, OPQ, OP, x0, a0, b0, n);	\
		return 0;				\
	}

/* add: "3 -3 N" (add_double "3.14159 -3.14159 1500000", add_float 1000000) */
ARITH_TASK(t_add_short, short, OPAQUE_I, +, 1, 3, -3, 2000000)
ARITH_TASK(t_add_int, int, OPAQUE_I, +, 1, 3, -3, 5000000)
ARITH_TASK(t_add_long, long, OPAQUE_I, +, 1, 3, -3, 5000000)
ARITH_TASK(t_add_float, float, OPAQUE_F, +, 1, 3.14159, -3.14159, 1000000)
ARITH_TASK(t_add_double, double, OPAQUE_F, +, 1, 3.14159, -3.14159, 1500000)
/* mul: "1 1 N": long/int 20000, short 25000; float/double 20000 (ours: not in the notes) */
ARITH_TASK(t_mul_short, short, OPAQUE_I, *, 7, 1, 1, 25000)
ARITH_TASK(t_mul_int, int, OPAQUE_I, *, 7, 1, 1, 20000)
ARITH_TASK(t_mul_long, long, OPAQUE_I, *, 7, 1, 1, 20000)
ARITH_TASK(t_mul_float, float, OPAQUE_F, *, 7, 1, 1, 20000)
ARITH_TASK(t_mul_double, double, OPAQUE_F, *, 7, 1, 1, 20000)
/* div: "1 1 75000" */
ARITH_TASK(t_div_short, short, OPAQUE_I, /, 12345, 1, 1, 75000)
ARITH_TASK(t_div_int, int, OPAQUE_I, /, 123456789, 1, 1, 75000)
ARITH_TASK(t_div_long, long, OPAQUE_I, /, 123456789, 1, 1, 75000)
ARITH_TASK(t_div_float, float, OPAQUE_F, /, 12345.678, 1, 1, 75000)
ARITH_TASK(t_div_double, double, OPAQUE_F, /, 12345.678, 1, 1, 75000)

/* array_rtns "20": passes over an int array (fill, reverse, prefix sums, max); array size ours. */
static int t_array_rtns(struct child *c)
{
	int *a = (int *)c->iobuf, n = 65536 / (int)sizeof(int);
	long s = 0;

	for (int pass = 0; pass < 20; pass++) {
		int mx = 0;

		for (int i = 0; i < n; i++)
			a[i] = (int)((unsigned)i * 2654435761u >> 8) + pass;
		for (int i = 0, j = n - 1; i < j; i++, j--) {
			int t = a[i];

			a[i] = a[j];
			a[j] = t;
		}
		for (int i = 1; i < n; i++)
			a[i] += a[i - 1] & 0xff;
		for (int i = 0; i < n; i++)
			mx = a[i] > mx ? a[i] : mx;
		s += mx;
	}
	c->sink += (double)s;
	return 0;
}

/* matrix_rtns "100": 100 products of 24x24 double matrices (size ours). */
static int t_matrix_rtns(struct child *c)
{
	enum { N = 24 };
	double (*m)[N][N] = (double (*)[N][N])c->iobuf;	/* a, b, r: 3 x 4.6 KiB */

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			m[0][i][j] = (double)(i + j) / N;
			m[1][i][j] = (double)(i - j) / N;
		}
	for (int k = 0; k < 100; k++) {
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;

				for (int q = 0; q < N; q++)
					s += m[0][i][q] * m[1][q][j];
				m[2][i][j] = s;
			}
		m[0][k % N][k % N] += m[2][0][0] * 1e-9;
	}
	c->sink += m[2][N - 1][N - 1];
	return 0;
}

/* new_raph "200": Newton-Raphson square roots of 100 values per pass. */
static int t_new_raph(struct child *c)
{
	double s = 0;

	for (int pass = 0; pass < 200; pass++)
		for (int v = 1; v <= 100; v++) {
			double x = v, g = v / 2.0 + 1;

			for (int it = 0; it < 40 && fabs(g * g - x) > 1e-12 * x; it++)
				g = 0.5 * (g + x / g);
			s += g;
		}
	c->sink += s;
	return 0;
}

/* num_rtns_1 "100": integer and libm number functions over 1000 values per pass (mix ours). */
static int t_num_rtns_1(struct child *c)
{
	double s = 0;

	for (int pass = 0; pass < 100; pass++)
		for (long v = 1; v <= 1000; v++) {
			long a = v * 7919 + pass, b = v + 13;

			while (b) {
				long t = a % b;

				a = b;
				b = t;
			}
			s += (double)a + floor((double)v / 3.0) + fmod((double)v, 7.5) + pow((double)v, 0.25);
		}
	c->sink += s;
	return 0;
}

/* trig_rtns "100": sin, cos, tan, atan of 250 angles per pass. */
static int t_trig_rtns(struct child *c)
{
	double s = 0;

	for (int pass = 0; pass < 100; pass++)
		for (int i = 0; i < 250; i++) {
			double x = (i + pass) * 0.0123;

			s += sin(x) + cos(x) + tan(x * 0.5) + atan(x);
		}
	c->sink += s;
	return 0;
}

/* series_1 "100": series sums (exp by Taylor, the Leibniz series for pi), 1000 terms each. */
static int t_series_1(struct child *c)
{
	double s = 0;

	for (int pass = 0; pass < 100; pass++) {
		double term = 1, e = 1, pi = 0, x = 1.0 + pass * 1e-3;

		for (int k = 1; k < 1000; k++) {
			term *= x / k;
			e += term;
			pi += (k & 1 ? 4.0 : -4.0) / (2 * k - 1);
		}
		s += e + pi;
	}
	c->sink += s;
	return 0;
}

static const char *const words[] = { "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
				      "hotel", "india", "juliet", "kilo", "lima", "mike", "november",
				      "oscar", "papa", "quebec", "romeo", "sierra", "tango" };

/* string_rtns "100": copy, concatenate, compare, search and case-map strings (mix ours). */
static int t_string_rtns(struct child *c)
{
	char *b = c->iobuf;
	long s = 0;

	for (int pass = 0; pass < 100; pass++) {
		b[0] = 0;
		for (size_t i = 0; i < LAB_ARRAY_SIZE(words); i++) {
			strcat(b, words[(i + (size_t)pass) % LAB_ARRAY_SIZE(words)]);
			strcat(b, " ");
		}
		for (size_t i = 0; i < LAB_ARRAY_SIZE(words); i++) {
			const char *p = strstr(b, words[i]);

			s += p ? p - b : -1;
			s += strcmp(words[i], words[(i + 1) % LAB_ARRAY_SIZE(words)]);
			s += (long)strlen(b) + (strchr(b, 'q') ? 1 : 0);
		}
		for (char *p = b; *p; p++)
			*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		strcpy(b + 4096, b);
		s += memcmp(b, b + 4096, strlen(b));
	}
	c->sink += (double)s;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* sort_rtns_1 "10": qsort and bsearch on 10000 ints, 10 times. */
static int t_sort_rtns_1(struct child *c)
{
	int *a = (int *)c->iobuf;
	long found = 0;

	for (int pass = 0; pass < 10; pass++) {
		for (int i = 0; i < 10000; i++)
			a[i] = (int)(crand(c) % 1000000);
		qsort(a, 10000, sizeof(int), cmp_int);
		for (int i = 0; i < 10000; i++) {
			int key = (int)(crand(c) % 1000000);

			found += bsearch(&key, a, 10000, sizeof(int), cmp_int) != NULL;
		}
	}
	c->sink += (double)found;
	return 0;
}

/* misc_rtns_1 "10": small system services (getpid, clocks). */
static int t_misc_rtns_1(struct child *c)
{
	long s = 0;

	for (int pass = 0; pass < 10; pass++)
		for (int i = 0; i < 100; i++) {
			struct timespec ts;

			s += getpid();
			lab_kernel_work(LAB_KWORK_SYSCALL);
			clock_gettime(CLOCK_MONOTONIC, &ts);
			s += ts.tv_nsec & 1;
		}
	c->sink += (double)s;
	return 0;
}

/* jmp_test "1000": setjmp/longjmp round trips (10 per count: ours). */
static int t_jmp_test(struct child *c)
{
	jmp_buf env;
	volatile long n = 0;

	for (int i = 0; i < 10000; i++)
		if (!setjmp(env)) {
			n = n + 1;
			longjmp(env, 1);
		}
	c->sink += (double)n;
	return 0;
}

/* ram_copy "100": memcpy between two 64 KiB arrays, sizes from a table, varying alignment. */
static int t_ram_copy(struct child *c)
{
	static const size_t sizes[] = { 1, 7, 64, 511, 1024, 4096, 8191, 16384, 32768, 65536 };
	char *src = c->iobuf, *dst = c->iobuf + 65536;	/* iobuf holds 2 x 64 KiB + 64 */

	for (int i = 0; i < 100; i++) {
		size_t n = sizes[i % LAB_ARRAY_SIZE(sizes)], al = (size_t)i % 8;

		if (n > 65536 - 8)
			n = 65536 - 8;	/* both ranges stay inside their 64 KiB array */
		memcpy(dst + al, src + (7 - al), n);
		lab_copy_work(n);
		src[i] = dst[n / 2];
	}
	c->sink += src[0];
	return 0;
}

/* sieve "1000000 5": a 1 MB table from malloc, 5 sieve passes. */
static int t_sieve(struct child *c)
{
	enum { N = 1000000 };
	char *t = malloc(N);
	long primes = 0;

	if (!t)
		return -ENOMEM;
	for (int pass = 0; pass < 5; pass++) {
		memset(t, 1, N);
		t[0] = t[1] = 0;
		for (long i = 2; i * i < N; i++)
			if (t[i])
				for (long j = i * i; j < N; j += i)
					t[j] = 0;
		for (long i = 0; i < N; i++)
			primes += t[i];
	}
	free(t);
	c->sink += (double)primes;
	return 0;
}

/* ---- memory tasks through the mm model --------------------------------------------------------- */

static uintptr_t sbrk_m(struct child *c, long delta)
{
	uintptr_t old = c->brk->brk, want = (uintptr_t)((long)old + delta);

	lab_kernel_work(LAB_KWORK_SYSCALL);
	return lab_mm_brk(c->mm, c->brk, want, &c->t) == want ? old : 0;
}

/*
 * page_test "100": sbrk(+1 MiB); 100 x { sbrk(-64 KiB); 16 x { sbrk(+4 KiB),
 * write a byte every 128 bytes of it } }; brk back. brk_test: the same 1000
 * times without touching.
 */
static int brk_pattern(struct child *c, int loops, bool touch)
{
	uintptr_t start = c->brk->brk;
	int r = 0;

	if (!sbrk_m(c, 1 << 20))
		return -ENOMEM;
	for (int l = 0; l < loops && !r; l++) {
		if (!sbrk_m(c, -(64 << 10))) {
			r = -ENOMEM;
			break;
		}
		for (int k = 0; k < 16; k++) {
			uintptr_t p = sbrk_m(c, 4096);

			if (!p) {
				r = -ENOMEM;
				break;
			}
			for (int off = 0; touch && off < 4096; off += 128) {
				char *h = lab_utlb_get(c->mm, &c->tlb, p + (uintptr_t)off, true, &c->t);

				if (!h) {
					r = -EFAULT;
					break;
				}
				*h = (char)off;
			}
		}
	}
	lab_kernel_work(LAB_KWORK_SYSCALL);
	lab_mm_brk(c->mm, c->brk, start, &c->t);
	return r;
}

static int t_page_test(struct child *c)
{
	return brk_pattern(c, 100, true);
}

static int t_brk_test(struct child *c)
{
	return brk_pattern(c, 1000, false);
}

/*
 * A model heap on the child's break, shaped like glibc's main arena for this
 * pattern: the top grows by brk with M_TOP_PAD (128 KiB) to spare, and once
 * everything is freed a top larger than M_TRIM_THRESHOLD (128 KiB) is trimmed
 * back to the pad. (Allocation itself is a bump pointer: only the brk and
 * fault traffic is modelled.)
 */
#define HEAP_PAD	(128u << 10)
#define HEAP_TRIM	(128u << 10)

struct uheap {
	uintptr_t base, top, end;
};

static uintptr_t uh_alloc(struct child *c, struct uheap *h, size_t size)
{
	size_t chunk = (size + 16 + 15) & ~(size_t)15;	/* header + 16-byte alignment */
	uintptr_t p;

	if (h->top + chunk > h->end) {
		uintptr_t want = LAB_PAGE_ALIGN(h->top + chunk + HEAP_PAD);

		lab_kernel_work(LAB_KWORK_SYSCALL);
		if (lab_mm_brk(c->mm, c->brk, want, &c->t) != want)
			return 0;
		h->end = want;
	}
	p = h->top + 16;
	h->top += chunk;
	return p;
}

static void uh_free_all(struct child *c, struct uheap *h)
{
	h->top = h->base;
	if (h->end - h->base > HEAP_TRIM + HEAP_PAD) {
		h->end = LAB_PAGE_ALIGN(h->base + HEAP_PAD);
		lab_kernel_work(LAB_KWORK_SYSCALL);
		lab_mm_brk(c->mm, c->brk, h->end, &c->t);
	}
}

/* mem_rtns_1 "100": 100 x { 100 x { malloc(45)+strcpy, malloc(size), calloc(size) }; touch; free all }. */
static int t_mem_rtns_1(struct child *c)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 33, 65, 129, 1024, 1025, 1023, 8192, 4096, 4095 };
	static const char text[45] = "The quick brown fox jumps over the lazy dog.";
	struct uheap h = { c->brk->brk, c->brk->brk, c->brk->brk };
	int r = 0;

	for (int l = 0; l < 100 && !r; l++) {
		for (int i = 0; i < 100; i++) {
			size_t sz = sizes[(size_t)(l + i) % LAB_ARRAY_SIZE(sizes)];
			uintptr_t s = uh_alloc(c, &h, 45), m = uh_alloc(c, &h, sz), z = uh_alloc(c, &h, sz);

			if (!s || !m || !z) {
				r = -ENOMEM;
				break;
			}
			if (lab_uwrite(c->mm, &c->tlb, s, text, sizeof(text), &c->t) ||
			    lab_umemset(c->mm, &c->tlb, m, 0x5a, 1, &c->t) ||
			    lab_umemset(c->mm, &c->tlb, m + sz - 1, 0x5a, 1, &c->t) ||
			    lab_umemset(c->mm, &c->tlb, z, 0, sz, &c->t)) {
				r = -EFAULT;
				break;
			}
		}
		uh_free_all(c, &h);
	}
	lab_kernel_work(LAB_KWORK_SYSCALL);
	lab_mm_brk(c->mm, c->brk, h.base, &c->t);
	return r;
}

/* mem_rtns_2 "100": memset/memcpy/memmove/memcmp on two 8 KiB buffers on the (model) stack. */
static int t_mem_rtns_2(struct child *c)
{
	uintptr_t a = c->stack + 16384, b = c->stack + 32768;
	long s = 0;

	for (int i = 0; i < 100; i++) {
		size_t off = (size_t)i % 64;
		char *pa[2], *pb[2];

		for (int k = 0; k < 2; k++) {
			pa[k] = lab_utlb_get(c->mm, &c->tlb, a + (uintptr_t)k * 4096, true, &c->t);
			pb[k] = lab_utlb_get(c->mm, &c->tlb, b + (uintptr_t)k * 4096, true, &c->t);
			if (!pa[k] || !pb[k])
				return -EFAULT;
		}
		/* The two pages of a buffer are adjacent in the model, not on the host: work page by page. */
		for (int k = 0; k < 2; k++) {
			size_t len = 4096 - off;

			memset(pa[k] + off, i, len);
			memcpy(pb[k] + off, pa[k] + off, len);
			memmove(pb[k] + off + 1, pb[k] + off, len - 1);
			s += memcmp(pa[k] + off, pb[k] + off, len);
			lab_copy_work(4 * len);	/* four passes over @len bytes */
		}
	}
	c->sink += (double)s;
	return 0;
}

/* A SysV-like semaphore: atomic counter, futex sleep when 0. */
static void sem_down(uint32_t *v)
{
	for (;;) {
		uint32_t cur = __atomic_load_n(v, __ATOMIC_ACQUIRE);

		if (cur && __atomic_compare_exchange_n(v, &cur, cur - 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		if (!cur)
			lab_futex_wait(v, 0, -1);
	}
}

static void sem_up(uint32_t *v)
{
	__atomic_fetch_add(v, 1, __ATOMIC_RELEASE);
	lab_futex_wake(v, 1);
}

/*
 * shared_memory: a private 64 KiB shmem segment mapped (shmat = mmap shared)
 * and a semaphore set to 1; 100 x { P; copy in; V; P; copy out; V }; then
 * detach (munmap) and remove (the segment's pages are freed, or with the
 * last mapping: with mm=shared another child's fork may have copied it).
 */
static int t_shared_memory(struct child *c)
{
	static const size_t sizes[] = { 1, 16, 128, 512, 1024, 2048, 4096 };
	struct lab_mm_file *seg = lab_mm_file_new(16, &c->r->pa, NULL, NULL);
	uint32_t sem = 1;
	uintptr_t at;
	int r = 0;

	if (!seg)
		return -ENOMEM;
	if (lab_mm_file_i_mmap(seg, c->r->conf)) {
		lab_mm_file_destroy(seg, &c->t);
		return -ENOMEM;
	}
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* shmget */
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* shmat */
	at = lab_mm_mmap(c->mm, 64 << 10, LAB_VM_READ | LAB_VM_WRITE | LAB_VM_SHARED, seg, 0);
	if (!at) {
		lab_mm_file_destroy(seg, &c->t);
		return -ENOMEM;
	}
	for (int i = 0; i < 100 && !r; i++) {
		size_t n = sizes[(size_t)i % LAB_ARRAY_SIZE(sizes)];
		uintptr_t off = (uintptr_t)(i * 4096) % (60 << 10);

		sem_down(&sem);
		r = lab_uwrite(c->mm, &c->tlb, at + off, c->iobuf, n, &c->t);
		sem_up(&sem);
		sem_down(&sem);
		r = r ? r : lab_uread(c->mm, &c->tlb, at + off, c->iobuf + 8192, n, &c->t);
		sem_up(&sem);
		for (int k = 0; k < 4; k++)
			lab_kernel_work(LAB_KWORK_SYSCALL);	/* semop */
		lab_copy_work(2 * n);
	}
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* shmdt */
	lab_mm_munmap(c->mm, at, 64 << 10, &c->t);
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* shmctl(IPC_RMID) */
	lab_mm_file_destroy(seg, &c->t);
	return r;
}

/* ---- fork and exec ---------------------------------------------------------------------------- */

#define BIN_PAGES 64			/* the exec'd image: text and data of "true" (ours) */
#define PROG_PAGES 64			/* the reaim image: 48 text pages, 16 data (ours) */
#define PROG_TEXT 48
#define LIBC_PAGES 512			/* libc: 448 text pages, 64 data (ours; libc.so.6 is about 2 MB) */
#define LIBC_TEXT 448

/* ld.so's two mappings of an image: text (read, exec) and private data (read, write). */
static int map_image(struct lab_mm *mm, struct lab_mm_file *f, size_t text, size_t pages)
{
	if (!lab_mm_mmap(mm, text * LAB_PAGE_SIZE, LAB_VM_READ | LAB_VM_EXEC, f, 0) ||
	    !lab_mm_mmap(mm, (pages - text) * LAB_PAGE_SIZE, LAB_VM_READ | LAB_VM_WRITE, f, text))
		return -ENOMEM;
	return 0;
}

/* fork(): an mm copy (dup_mmap of the child's mm). */
static int do_fork(struct child *c, struct lab_mm *copy)
{
	int r;

	for (int k = 0; k < 3; k++)
		lab_kernel_work(LAB_KWORK_SYSCALL);	/* fork, the child's exit_group, wait4 */
	r = lab_mm_init(copy, c->r->conf, c->r->mode, &c->r->pa);

	if (r)
		return r;
	r = lab_mm_dup(copy, c->mm, &c->t);
	if (r)
		lab_mm_destroy(copy, &c->t);
	return r;
}

/*
 * execve() + running a tiny program + exit: a new mm with the image mapped
 * (12 text pages read, shared page cache), data, bss/brk and a stack written.
 */
static int do_exec_run(struct child *c)
{
	struct lab_mm nm;
	struct lab_utlb tlb = { 0 };
	uintptr_t text, data, stack;
	int r = lab_mm_init(&nm, c->r->conf, c->r->mode, &c->r->pa);

	if (r)
		return r;
	for (int k = 0; k < 6; k++)
		lab_kernel_work(LAB_KWORK_SYSCALL);	/* execve, ld.so's 4 mmaps, brk */
	text = lab_mm_mmap(&nm, 48 * LAB_PAGE_SIZE, LAB_VM_READ | LAB_VM_EXEC, &c->r->bin, 0);
	data = lab_mm_mmap(&nm, 16 * LAB_PAGE_SIZE, LAB_VM_READ | LAB_VM_WRITE, &c->r->bin, 48);
	stack = lab_mm_mmap(&nm, 32 * LAB_PAGE_SIZE, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	if (!text || !data || !stack || map_image(&nm, &c->r->libc, LIBC_TEXT, LIBC_PAGES)) {
		r = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < 12 && !r; i++)
		r = lab_utlb_get(&nm, &tlb, text + (uintptr_t)(i * 3 % 48) * LAB_PAGE_SIZE, false, &c->t) ? 0 : -EFAULT;
	for (int i = 0; i < 3 && !r; i++)
		r = lab_utlb_get(&nm, &tlb, data + (uintptr_t)i * LAB_PAGE_SIZE, true, &c->t) ? 0 : -EFAULT;
	for (int i = 0; i < 2 && !r; i++)
		r = lab_utlb_get(&nm, &tlb, stack + (uintptr_t)(31 - i) * LAB_PAGE_SIZE, true, &c->t) ? 0 : -EFAULT;
	if (!r && lab_mm_brk(&nm, NULL, nm.brk.start_brk + 8192, &c->t) != nm.brk.start_brk + 8192)
		r = -ENOMEM;
	if (!r)
		r = lab_utlb_get(&nm, &tlb, nm.brk.start_brk, true, &c->t) ? 0 : -EFAULT;
out:
	lab_mm_destroy(&nm, &c->t);
	return r;
}

/* fork_test "100": fork(); the child exits at once; wait. */
static int t_fork_test(struct child *c)
{
	for (int i = 0; i < 100; i++) {
		struct lab_mm copy;
		int r = do_fork(c, &copy);

		if (r)
			return r;
		lab_mm_destroy(&copy, &c->t);
	}
	return 0;
}

/* fork + exec + wait, @n times: the copy is torn down by exec, then the new program runs and exits. */
static int fork_exec(struct child *c, int n)
{
	for (int i = 0; i < n; i++) {
		struct lab_mm copy;
		int r = do_fork(c, &copy);

		if (r)
			return r;
		lab_mm_destroy(&copy, &c->t);
		r = do_exec_run(c);
		if (r)
			return r;
	}
	return 0;
}

/* exec_test "5": 5 x fork + execl(true) + wait. */
static int t_exec_test(struct child *c)
{
	return fork_exec(c, 5);
}

/* shell_rtns_1: fork + system("aim_1.sh"): a shell and the commands it runs (a shell + 3: ours). */
static int t_shell_rtns_1(struct child *c)
{
	return fork_exec(c, 4);
}

/* ---- files -------------------------------------------------------------------------------------- */

static size_t tmpname(struct child *c, char *buf, size_t len)
{
	return (size_t)snprintf(buf, len, "tmp.%d.%lu", c->id, (unsigned long)c->seq++);
}

/* creat() + fill the file with @kb KiB in 1 KiB writes; *@d = its dentry. */
static int make_file(struct child *c, const char *name, size_t kb, struct lab_dentry **d, bool sync)
{
	struct memfile *f;
	int r;

	lab_kernel_work(LAB_KWORK_SYSCALL);	/* creat */
	r = lab_dt_create(&c->r->fs, c->r->diskdir, name, strlen(name), false, 0100644, d);
	if (r)
		return r;
	f = mf_new(c->r->conf);
	if (!f)
		return -ENOMEM;
	(*d)->data = f;
	for (size_t i = 0; i < kb && !r; i++) {
		memset(c->iobuf, (int)(i & 0xff), NBUFSIZE);
		r = mf_write(f, i * NBUFSIZE, c->iobuf, NBUFSIZE);
		if (sync)
			mf_fsync(f, c->dev, &c->devpos);
	}
	return r;
}

static void rm_file(struct child *c, const char *name)
{
	lab_kernel_work(LAB_KWORK_SYSCALL);
	lab_dt_unlink(&c->r->fs, c->r->diskdir, name, strlen(name));
}

enum disk_op { D_WRT, D_RD, D_RR, D_RW, D_CP, D_SYNC_RW, D_SYNC_WRT, D_SYNC_CP, D_SYNC_UPDATE };

/* The disk tests: a temp file of FILESIZE + POOLSIZE/children KiB in DISKDIR, then the operation. */
static int disk_task(struct child *c, enum disk_op op)
{
	bool sync = op == D_SYNC_WRT;
	size_t kb = c->r->file_kb;
	struct lab_dentry *d, *d2;
	char name[64], name2[64];
	struct memfile *f;
	int r;

	tmpname(c, name, sizeof(name));
	r = make_file(c, name, kb, &d, sync);
	if (r)
		goto out;
	f = d->data;
	switch (op) {
	case D_WRT:
	case D_SYNC_WRT:
		break;
	case D_RD:
		for (size_t i = 0; i < kb; i++)
			c->sink += (double)mf_read(f, i * NBUFSIZE, c->iobuf, NBUFSIZE);
		break;
	case D_RR:
		for (size_t i = 0; i < kb; i++)
			c->sink += (double)mf_read(f, (crand(c) % kb) * NBUFSIZE, c->iobuf, NBUFSIZE);
		break;
	case D_RW:
	case D_SYNC_RW:
		for (size_t i = 0; i < kb && !r; i++) {
			r = mf_write(f, (crand(c) % kb) * NBUFSIZE, c->iobuf, NBUFSIZE);
			if (op == D_SYNC_RW)
				mf_fsync(f, c->dev, &c->devpos);
		}
		break;
	case D_SYNC_UPDATE:
		for (size_t i = 0; i < kb && !r; i++) {
			size_t off = (crand(c) % kb) * NBUFSIZE;

			mf_read(f, off, c->iobuf, NBUFSIZE);
			c->iobuf[0]++;
			r = mf_write(f, off, c->iobuf, NBUFSIZE);
			mf_fsync(f, c->dev, &c->devpos);
		}
		break;
	case D_CP:
	case D_SYNC_CP:
		tmpname(c, name2, sizeof(name2));
		lab_kernel_work(LAB_KWORK_SYSCALL);
		r = lab_dt_create(&c->r->fs, c->r->diskdir, name2, strlen(name2), false, 0100644, &d2);
		if (r)
			break;
		d2->data = mf_new(c->r->conf);
		if (!d2->data) {
			r = -ENOMEM;
		} else {
			for (size_t i = 0; i < kb && !r; i++) {
				mf_read(f, i * NBUFSIZE, c->iobuf, NBUFSIZE);
				r = mf_write(d2->data, i * NBUFSIZE, c->iobuf, NBUFSIZE);
				if (op == D_SYNC_CP)
					mf_fsync(d2->data, c->dev, &c->devpos);
			}
		}
		rm_file(c, name2);
		break;
	}
out:
	rm_file(c, name);
	return r;
}

static int t_disk_wrt(struct child *c) { return disk_task(c, D_WRT); }
static int t_disk_rd(struct child *c) { return disk_task(c, D_RD); }
static int t_disk_rr(struct child *c) { return disk_task(c, D_RR); }
static int t_disk_rw(struct child *c) { return disk_task(c, D_RW); }
static int t_disk_cp(struct child *c) { return disk_task(c, D_CP); }
static int t_sync_disk_rw(struct child *c) { return disk_task(c, D_SYNC_RW); }
static int t_sync_disk_wrt(struct child *c) { return disk_task(c, D_SYNC_WRT); }
static int t_sync_disk_cp(struct child *c) { return disk_task(c, D_SYNC_CP); }
static int t_sync_disk_update(struct child *c) { return disk_task(c, D_SYNC_UPDATE); }

/* disk_brw: random block reads and writes on the child's file that stays in the page cache. */
static int t_disk_brw(struct child *c)
{
	struct memfile *f = c->bcfile->data;
	size_t kb = c->r->file_kb;
	int r = 0;

	for (size_t i = 0; i < kb && !r; i++) {
		size_t off = (crand(c) % kb) * NBUFSIZE;

		if (i & 1)
			r = mf_write(f, off, c->iobuf, NBUFSIZE);
		else
			c->sink += (double)mf_read(f, off, c->iobuf, NBUFSIZE);
	}
	return r;
}

/* disk_bcp: copy of that file to a new one, removed again. */
static int t_disk_bcp(struct child *c)
{
	struct memfile *f = c->bcfile->data;
	struct lab_dentry *d;
	char name[64];
	int r;

	tmpname(c, name, sizeof(name));
	lab_kernel_work(LAB_KWORK_SYSCALL);
	r = lab_dt_create(&c->r->fs, c->r->diskdir, name, strlen(name), false, 0100644, &d);
	if (r)
		return r;
	d->data = mf_new(c->r->conf);
	if (!d->data)
		r = -ENOMEM;
	for (size_t i = 0; !r && i < c->r->file_kb; i++) {
		mf_read(f, i * NBUFSIZE, c->iobuf, NBUFSIZE);
		r = mf_write(d->data, i * NBUFSIZE, c->iobuf, NBUFSIZE);
	}
	rm_file(c, name);
	return r;
}

/* disk_src: directory search in the unpacked "fakeh" tree: path lookups and listings. */
static int t_disk_src(struct child *c)
{
	char path[64];
	long found = 0;

	for (int i = 0; i < 100; i++) {
		int n = snprintf(path, sizeof(path), "d%02d/sub%d/f%02d.h", (int)(crand(c) % 8), (int)(crand(c) % 2),
				 (int)(crand(c) % 20));

		lab_kernel_work(LAB_KWORK_SYSCALL);
		found += lab_dt_lookup(&c->r->fs, c->r->fakeh, path, (size_t)n) != NULL;
		if (i % 10 == 0)
			lab_kernel_work(LAB_KWORK_SYSCALL);
		if (i % 10 == 0)
			found += (long)lab_dt_readdir(&c->r->fs, c->r->fakeh, NULL, NULL);
	}
	c->sink += (double)found;
	return 0;
}

/* dir_rtns_1 "100": opendir("/bin"), readdir through it, rewind: 100 times. */
static void count_name(void *arg, const struct lab_dentry *e)
{
	*(long *)arg += e->namelen;
}

static int t_dir_rtns_1(struct child *c)
{
	long n = 0;

	for (int i = 0; i < 100; i++) {
		lab_kernel_work(LAB_KWORK_SYSCALL);
		lab_dt_readdir(&c->r->fs, c->r->bindir, count_name, &n);
	}
	c->sink += (double)n;
	return 0;
}

/* creat_clo: 1000 x creat() + close() of one temp name (O_CREAT locks DISKDIR for write), then unlink. */
static int t_creat_clo(struct child *c)
{
	char name[64];
	size_t len = tmpname(c, name, sizeof(name));
	int r = 0;

	for (int i = 0; i < 1000 && !r; i++) {
		struct lab_dentry *d;

		lab_kernel_work(LAB_KWORK_SYSCALL);	/* creat */
		lab_kernel_work(LAB_KWORK_SYSCALL);	/* close */
		r = lab_dt_create(&c->r->fs, c->r->diskdir, name, len, false, 0100644, &d);
		if (r == -EEXIST) {
			struct memfile *f = d->data;

			r = 0;
			lab_down_write(&f->i_rwsem);	/* O_TRUNC */
			mf_truncate_locked(f);
			lab_up_write(&f->i_rwsem);
		} else if (!r) {
			d->data = mf_new(c->r->conf);
			r = d->data ? 0 : -ENOMEM;
		}
	}
	rm_file(c, name);
	return r;
}

/* link_test: link() and unlink() pairs on a temp file (100 pairs: ours). */
static int t_link_test(struct child *c)
{
	char name[64], name2[64];
	struct lab_dentry *d;
	int r;

	tmpname(c, name, sizeof(name));
	tmpname(c, name2, sizeof(name2));
	r = make_file(c, name, 1, &d, false);
	for (int i = 0; i < 100 && !r; i++) {
		lab_kernel_work(LAB_KWORK_SYSCALL);
		r = lab_dt_link(&c->r->fs, c->r->diskdir, name, name2);
		lab_kernel_work(LAB_KWORK_SYSCALL);
		if (!r)
			r = lab_dt_unlink(&c->r->fs, c->r->diskdir, name2, strlen(name2));
	}
	rm_file(c, name);
	return r;
}

/* Pipes and sockets: 100 writes of sizes 1..4096 each read back by the same child. */
static int chan_task(struct child *c, bool dgram, int n)
{
	static const size_t sizes[] = { 1, 32, 256, 1024, 2048, 4096 };
	struct chan *ch = c->chan;

	ch->head = ch->tail = 0;
	ch->lhead = ch->ltail = 0;
	for (int i = 0; i < n; i++) {
		size_t sz = sizes[(size_t)i % LAB_ARRAY_SIZE(sizes)];

		chan_put(ch, c->iobuf, sz, dgram);
		if (chan_get(ch, c->iobuf + 8192, sz, dgram) != sz)
			return -EIO;
	}
	return 0;
}

static int t_stream_pipe(struct child *c) { return chan_task(c, false, 100); }
static int t_dgram_pipe(struct child *c) { return chan_task(c, true, 100); }
static int t_pipe_cpy(struct child *c) { return chan_task(c, false, 100); }
static int t_tcp_test(struct child *c) { return chan_task(c, false, 90); }
static int t_udp_test(struct child *c) { return chan_task(c, true, 100); }

/*
 * The tasks. @units: for a task that is user-space computation only, the
 * units of work one call does (loop iterations of 12 operations, elements,
 * table bytes per pass, string passes), the unit rwlab-work-cost measures.
 * The simulated build does not run those: it charges units x the machine
 * file's cost.work.reaim.NAME_ns (run_task()). 0: the task runs in both
 * builds, its system calls and copies charged where they happen.
 */
#define ARITH_ROW(name) { #name, t_##name, t_##name##_n }
static const struct {
	const char *name;
	task_fn fn;
	double units;
} tasks[] = {
	ARITH_ROW(add_short), ARITH_ROW(add_int), ARITH_ROW(add_long), ARITH_ROW(add_float), ARITH_ROW(add_double),
	ARITH_ROW(mul_short), ARITH_ROW(mul_int), ARITH_ROW(mul_long), ARITH_ROW(mul_float), ARITH_ROW(mul_double),
	ARITH_ROW(div_short), ARITH_ROW(div_int), ARITH_ROW(div_long), ARITH_ROW(div_float), ARITH_ROW(div_double),
	{ "array_rtns", t_array_rtns, 20 * 16384 }, { "matrix_rtns", t_matrix_rtns, 100 * 24 * 24 * 24 },
	{ "new_raph", t_new_raph, 200 * 100 }, { "num_rtns_1", t_num_rtns_1, 100 * 1000 },
	{ "trig_rtns", t_trig_rtns, 100 * 250 }, { "series_1", t_series_1, 100 * 999 },
	{ "string_rtns", t_string_rtns, 100 }, { "sort_rtns_1", t_sort_rtns_1, 10 * 10000 },
	{ "misc_rtns_1", t_misc_rtns_1, 0 }, { "jmp_test", t_jmp_test, 10000 },
	{ "ram_copy", t_ram_copy, 0 }, { "sieve", t_sieve, 5 * 1000000 },
	{ "page_test", t_page_test, 0 }, { "brk_test", t_brk_test, 0 }, { "mem_rtns_1", t_mem_rtns_1, 0 },
	{ "mem_rtns_2", t_mem_rtns_2, 0 }, { "shared_memory", t_shared_memory, 0 }, { "fork_test", t_fork_test, 0 },
	{ "exec_test", t_exec_test, 0 }, { "shell_rtns_1", t_shell_rtns_1, 0 }, { "disk_wrt", t_disk_wrt, 0 },
	{ "disk_rd", t_disk_rd, 0 }, { "disk_rr", t_disk_rr, 0 }, { "disk_rw", t_disk_rw, 0 },
	{ "disk_cp", t_disk_cp, 0 }, { "sync_disk_rw", t_sync_disk_rw, 0 }, { "sync_disk_wrt", t_sync_disk_wrt, 0 },
	{ "sync_disk_cp", t_sync_disk_cp, 0 }, { "sync_disk_update", t_sync_disk_update, 0 },
	{ "disk_brw", t_disk_brw, 0 }, { "disk_bcp", t_disk_bcp, 0 }, { "disk_src", t_disk_src, 0 },
	{ "dir_rtns_1", t_dir_rtns_1, 0 }, { "creat_clo", t_creat_clo, 0 }, { "link_test", t_link_test, 0 },
	{ "stream_pipe", t_stream_pipe, 0 }, { "dgram_pipe", t_dgram_pipe, 0 }, { "pipe_cpy", t_pipe_cpy, 0 },
	{ "tcp_test", t_tcp_test, 0 }, { "udp_test", t_udp_test, 0 },
};
#undef ARITH_ROW

/* One job: task @t, or in the simulated build its measured cost when it only computes. */
static int run_task(struct child *c, int t)
{
	if (LAB_SIM && tasks[t].units > 0) {
		lab_user_work(c->r->work_key[t], tasks[t].units);
		return 0;
	}
	return tasks[t].fn(c);
}

int lab_reaim_work_task(int i, const char **name, double *units)
{
	int k = 0;

	for (size_t t = 0; t < LAB_ARRAY_SIZE(tasks); t++)
		if (tasks[t].units > 0 && k++ == i) {
			*name = tasks[t].name;
			*units = tasks[t].units;
			return (int)t;
		}
	return -1;
}

int lab_reaim_work_call(int t)
{
	static struct child c;

	if (!c.iobuf) {
		c.iobuf = malloc(2 * 65536 + 64);
		if (!c.iobuf)
			return -ENOMEM;
		memset(c.iobuf, 0x33, 2 * 65536 + 64);
		c.rng = 0x9e3779b97f4a7c15ull;
	}
	return t >= 0 && (size_t)t < LAB_ARRAY_SIZE(tasks) ? tasks[t].fn(&c) : -EINVAL;
}

static int task_index(const char *name)
{
	for (size_t i = 0; i < LAB_ARRAY_SIZE(tasks); i++)
		if (!strcmp(tasks[i].name, name))
			return (int)i;
	return -1;
}

/* ---- setup and teardown ------------------------------------------------------------------------ */

static void bin_fill(void *arg, size_t pgoff, void *page)
{
	(void)arg;
	memset(page, (int)(pgoff * 37 + 1), LAB_PAGE_SIZE);
}

static void child_fini(struct reaim *r, struct child *c)
{
	if (c->own_mm_ok)
		lab_mm_destroy(&c->own_mm, &c->t);
	else if (c->stack && c->mm)
		lab_mm_munmap(c->mm, c->stack, 64 << 10, &c->t);
	if (c->t.pa)
		lab_mm_thread_drain(&c->t);
	free(c->dev);
	free(c->chan);
	free(c->iobuf);
	free(c->jobs);
	(void)r;
}

static void reaim_free(struct reaim *r)
{
	if (r->child)
		for (int i = 0; i < r->nchildren; i++)
			child_fini(r, &r->child[i]);
	if (r->fs_ok)
		lab_dirtree_destroy(&r->fs);
	if (r->mm_ok)
		lab_mm_destroy(&r->mm, &r->main_t);
	if (r->bin_ok)
		lab_mm_file_destroy(&r->bin, &r->main_t);
	if (r->prog_ok)
		lab_mm_file_destroy(&r->prog, &r->main_t);
	if (r->libc_ok)
		lab_mm_file_destroy(&r->libc, &r->main_t);
	lab_mm_rcu_barrier();
	if (r->pa_ok) {
		lab_mm_thread_drain(&r->main_t);
		lab_page_alloc_destroy(&r->pa);
	}
	free(r->child);
	free(r->joblist);
	free(r);
}

/* fork() of a reaim child: its mm is a copy of the parent's (dup_mmap), plus its stack. */
static int child_fork(struct reaim *r, struct child *c)
{
	if (lab_mm_init(&c->own_mm, r->conf, r->mode, &r->pa))
		return -ENOMEM;
	c->own_mm_ok = true;
	c->mm = &c->own_mm;
	c->brk = &c->own_mm.brk;
	if (lab_mm_dup(&c->own_mm, &r->mm, &r->main_t))
		return -ENOMEM;
	c->stack = lab_mm_mmap(c->mm, 64 << 10, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	return c->stack ? 0 : -ENOMEM;
}

/* exit() of a reaim child: exit_mmap. */
static void child_exit(struct child *c)
{
	if (c->own_mm_ok)
		lab_mm_destroy(&c->own_mm, &c->t);
	c->own_mm_ok = false;
	c->stack = 0;
}

static int child_init(struct reaim *r, struct child *c, int id)
{
	char name[32];

	c->r = r;
	c->id = id;
	lab_mm_thread_init(&c->t, &r->pa);
	c->dev = malloc(16 * LAB_PAGE_SIZE);
	c->chan = malloc(sizeof(*c->chan));
	c->iobuf = malloc(2 * 65536 + 64);
	c->jobs = malloc((size_t)r->jobs_per_child * sizeof(int));
	if (!c->dev || !c->chan || !c->iobuf || !c->jobs)
		return -ENOMEM;
	memset(c->iobuf, 0x33, 2 * 65536 + 64);
	if (!r->private_mm) {		/* threads of the parent's mm: a heap segment and a stack each */
		c->mm = &r->mm;
		c->brk = &c->brk_own;
		if (lab_mm_brk_reserve(c->mm, c->brk, 64 << 20))
			return -ENOMEM;
		c->stack = lab_mm_mmap(c->mm, 64 << 10, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
		if (!c->stack)
			return -ENOMEM;
	}	/* else each step forks the child's mm (child_fork) */
	snprintf(name, sizeof(name), "bc.%d", id);
	if (make_file(c, name, r->file_kb, &c->bcfile, false))
		return -ENOMEM;
	return 0;
}

static int reaim_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct reaim *r = calloc(1, sizeof(*r));
	struct lab_reaim_count counts[64];
	const char *what = "out of memory";
	int n, k = 0;

	if (!r) {
		snprintf(err, errlen, "reaim: out of memory");
		return -1;
	}
	r->conf = cell->lock;
	r->mode = (enum lab_mm_lock_mode)cell->wl->knob[K_MM_LOCK];
	r->workfile = (int)cell->wl->knob[K_WORKFILE];
	r->private_mm = cell->wl->knob[K_MM] == 1;
	r->nchildren = cell->nthreads;
	r->file_kb = (size_t)cell->wl->knob[K_FILESIZE] + (size_t)cell->wl->knob[K_POOLSIZE] / (size_t)r->nchildren;
	n = lab_reaim_job_counts(r->workfile, (int)cell->wl->knob[K_JOBS], counts, 64, &r->jobs_per_child);
	r->joblist = malloc((size_t)r->jobs_per_child * sizeof(int));
	if (n < 0 || n > 64 || !r->joblist)
		goto fail;
	for (int i = 0; i < n; i++) {
		int t = task_index(counts[i].test);

		if (t < 0) {
			what = "a workfile names an unknown task (internal error)";
			goto fail;
		}
		for (int j = 0; j < counts[i].count; j++)
			r->joblist[k++] = t;
	}
	r->ntests = n;
	for (size_t t = 0; t < LAB_ARRAY_SIZE(tasks); t++) {
		char key[48];

		snprintf(key, sizeof(key), "reaim.%s", tasks[t].name);
		r->work_key[t] = tasks[t].units > 0 ? lab_work_key(key) : 0;
		if (r->work_key[t] < 0) {
			snprintf(err, errlen, "reaim: the machine file has no cost.work.%s_ns "
				 "(rwlab-work-cost measures it: results/sim/calibration/)", key);
			reaim_free(r);
			return -1;
		}
	}
	/* A cap keeps a runaway task from eating the machine: the pages needed are a few MiB per child. */
	if (LAB_SIM && lab_kpath_check()) {
		snprintf(err, errlen, "reaim: the machine file has no %s (the fault path's cost model, workloads/kmm.h)",
			 lab_kpath_check());
		goto fail_quiet;
	}
	if (lab_page_alloc_init(&r->pa, 512))
		goto fail;
	r->pa_ok = true;
	if (lab_page_alloc_kernel(&r->pa, (enum lab_kmm_ver)cell->wl->knob[K_KERNEL], LAB_KMM_MEMCG_DEPTH))
		goto fail;
	lab_mm_thread_init(&r->main_t, &r->pa);
	if (lab_mm_init(&r->mm, r->conf, r->mode, &r->pa)) {
		what = r->mode == LAB_MM_LOCK_VMA ? "per-VMA locks need a variant with down_read_trylock"
						  : "cannot build the mm";
		goto fail;
	}
	r->mm_ok = true;
	if (lab_mm_file_init(&r->bin, BIN_PAGES, &r->pa, bin_fill, NULL))
		goto fail;
	r->bin_ok = true;
	if (lab_mm_file_init(&r->prog, PROG_PAGES, &r->pa, bin_fill, NULL))
		goto fail;
	r->prog_ok = true;
	if (lab_mm_file_init(&r->libc, LIBC_PAGES, &r->pa, bin_fill, NULL))
		goto fail;
	r->libc_ok = true;
	if (lab_mm_file_i_mmap(&r->bin, r->conf) || lab_mm_file_i_mmap(&r->prog, r->conf) ||
	    lab_mm_file_i_mmap(&r->libc, r->conf) || map_image(&r->mm, &r->prog, PROG_TEXT, PROG_PAGES) ||
	    map_image(&r->mm, &r->libc, LIBC_TEXT, LIBC_PAGES))
		goto fail;
	if (lab_dirtree_init(&r->fs, r->conf, mf_release))
		goto fail;
	r->fs_ok = true;
	if (lab_dt_create(&r->fs, r->fs.root, "diskdir", 7, true, 040000, &r->diskdir) ||
	    lab_dt_create(&r->fs, r->fs.root, "bin", 3, true, 040000, &r->bindir) ||
	    lab_dt_create(&r->fs, r->fs.root, "fakeh", 5, true, 040000, &r->fakeh))
		goto fail;
	for (int i = 0; i < 64; i++) {
		char name[16];

		snprintf(name, sizeof(name), "cmd%02d", i);
		lab_dt_create(&r->fs, r->bindir, name, strlen(name), false, 0100755, NULL);
	}
	for (int i = 0; i < 8; i++)
		for (int s = 0; s < 2; s++)
			for (int f = 0; f < 20; f++) {
				char path[48];
				struct lab_dentry *dir;
				int len = snprintf(path, sizeof(path), "fakeh/d%02d/sub%d/f%02d.h", i, s, f);

				if (lab_dt_mkdir_parents(&r->fs, path, (size_t)len, &dir) ||
				    lab_dt_create(&r->fs, dir, path + len - 5, 5, false, 0100644, NULL))
					goto fail;
			}
	r->child = aligned_alloc(LAB_CACHELINE, (size_t)r->nchildren * sizeof(*r->child));
	if (!r->child)
		goto fail;
	memset(r->child, 0, (size_t)r->nchildren * sizeof(*r->child));
	for (int i = 0; i < r->nchildren; i++)
		if (child_init(r, &r->child[i], i))
			goto fail;
	*state = r;
	return 0;
fail:
	snprintf(err, errlen, "reaim: %s", what);
fail_quiet:
	reaim_free(r);
	return -1;
}

static int reaim_prepare(void *state, const struct lab_cell *cell)
{
	struct reaim *r = state;

	(void)cell;
	for (int i = 0; i < r->nchildren; i++) {
		struct child *c = &r->child[i];

		memset(c->t.ev, 0, sizeof(c->t.ev));
		c->errors = 0;
		if (r->private_mm) {
			child_exit(c);	/* only after a failed step */
			if (child_fork(r, c))
				return -1;
		}
	}
	return 0;
}

static void reaim_worker(void *state, struct lab_worker *w)
{
	struct reaim *r = state;
	struct child *c = &r->child[w->id];
	int n = r->jobs_per_child;

	lab_rcu_thread_online();
	c->rng = lab_worker_rand(w) | 1;
	lab_utlb_flush(&c->tlb);
	/* reaim picks a random remaining job each time: a random permutation of the list. */
	memcpy(c->jobs, r->joblist, (size_t)n * sizeof(int));
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(crand(c) % (uint64_t)(i + 1)), t = c->jobs[i];

		c->jobs[i] = c->jobs[j];
		c->jobs[j] = t;
	}
	for (int i = 0; i < n; i++) {
		if (run_task(c, c->jobs[i]))
			c->errors++;	/* a failed task is not a finished job; task_errors fails the cell */
		else
			w->ops++;
	}
	if (r->private_mm)
		child_exit(c);
	w->count[0] = c->errors;
}

static void reaim_metrics(void *state, const struct lab_iter *it, struct lab_sink *sink)
{
	struct reaim *r = state;
	double real = it->wall_s, jpc = r->jobs_per_child, mean = 0, var = 0, cov;
	uint64_t errors = 0, jobs = 0, ev[LAB_MM_EV_NR] = { 0 };
	int n = it->nthreads;

	for (int i = 0; i < n; i++) {
		const struct lab_worker *w = &it->workers[i];

		mean += (double)(w->t_end - w->t_start) / 1e9;
		errors += w->count[0];
		jobs += w->ops;
		for (int e = 0; e < LAB_MM_EV_NR && i < r->nchildren; e++)
			ev[e] += r->child[i].t.ev[e];
	}
	mean /= n;
	for (int i = 0; i < n; i++) {
		double d = (double)(it->workers[i].t_end - it->workers[i].t_start) / 1e9 - mean;

		var += d * d;
	}
	cov = mean > 0 ? sqrt(var / n) / mean : 0;
	lab_emit(sink, "JPM", real > 0 ? jpc / real * 60 * n : 0, "jobs/min", LAB_BETTER_HIGHER);
	lab_emit(sink, "JPM_C", real > 0 ? jpc / real * 60 : 0, "jobs/min", LAB_BETTER_HIGHER);
	lab_emit(sink, "JTI", (1 - cov) * 100, "%", LAB_BETTER_HIGHER);
	lab_emit(sink, "std_dev_time", sqrt(var / n), "s", LAB_BETTER_NONE);
	lab_emit(sink, "std_dev_pct", cov * 100, "%", LAB_BETTER_NONE);
	lab_emit(sink, "parent_time", real, "s", LAB_BETTER_LOWER);
	lab_emit(sink, "child_utime", it->user_s, "s", LAB_BETTER_NONE);
	lab_emit(sink, "child_systime", it->sys_s, "s", LAB_BETTER_NONE);
	lab_emit(sink, "jobs_per_child", jpc, "jobs", LAB_BETTER_NONE);
	lab_emit(sink, "jobs", (double)jobs, "jobs", LAB_BETTER_NONE);
	lab_emit(sink, "task_errors", (double)errors, "jobs", LAB_BETTER_NONE);
	for (int e = 0; e < LAB_MM_EV_NR; e++)
		lab_emit(sink, lab_mm_event_names[e], (double)ev[e], "count", LAB_BETTER_NONE);
}

/*
 * Per cell: the parent's mm and files, and each child's own mm while it
 * runs. Measured at the defaults: 12.3 MB peak RSS at 1 thread, 14.0 MB at
 * 2, with rwlab's own 5.4 MB in it (results/harness/README.md).
 */
static void reaim_footprint(const struct lab_workload_conf *wl, int nthreads, size_t *per_cell, size_t *shared)
{
	(void)wl;
	*shared = 0;
	*per_cell = (6ul << 20) + (size_t)nthreads * (2ul << 20);
}

static void reaim_teardown(void *state)
{
	reaim_free(state);
}

const struct lab_workload_ops lab_workload_reaim = {
	.name = "reaim",
	.simulated = true,
	.summary = "re-aim-7 compute/new_dbase/shared mixes: forked children (own mm), memory tasks on the mm model; JPM",
	.cite = "re-aim-7 7.0.1.13 (OSDL AIM7) as run by mmtests reaim-io-*; docs/workloads.md §2.b",
	.kind = LAB_WL_WORK,
	.knobs = reaim_knobs,
	.headline = "JPM",
	.needs_exclusion = true,
	.setup = reaim_setup,
	.prepare = reaim_prepare,
	.worker = reaim_worker,
	.metrics = reaim_metrics,
	.teardown = reaim_teardown,
	.footprint = reaim_footprint,
};
