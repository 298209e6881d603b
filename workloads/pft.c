/* SPDX-License-Identifier: MIT */
/*
 * pft - the page fault test (mmtests pft-threads), on the user-space mm model.
 *
 * Citation: Christoph Lameter's page fault test (LKML 2006-08-29), as
 * modified by Lee Schermerhorn and packaged in gormanm/pft (v0.12x), run by
 * mmtests as pft-threads (`pft -m <bytes> -t <nthreads>`);
 * research/workloads.md §2.a.
 *
 * One iteration = one pft run:
 * - the region of size_mb MiB is rounded as pft does: pages = ceil(bytes /
 *   4 KiB), pages_per_thread = ceil(pages / N), pages = pages_per_thread * N;
 *   it is one VMA of one shared mm, carved into N contiguous slices;
 * - every thread faults each page of its slice once: the model's fault path
 *   takes the mm's mmap_lock for read (the variant under test), finds the VMA,
 *   clears a real 4 KiB page from a pre-faulted pool and installs it; then the
 *   thread writes 'r' at `cachelines` offsets of the page, one cache line
 *   apart (pft -c);
 * - touch=fresh also writes to a real, freshly madvise(MADV_DONTNEED)'d
 *   anonymous region, so the host kernel's own page faults happen as well;
 * - before every iteration the model's page table is cleared (and, for
 *   touch=fresh, the host region is dropped), so every page faults again.
 *
 * Metrics (pft's definitions): faults/sec = pages / wall seconds (barrier
 * release to the last thread's end), faults/cpu = pages / (user + system
 * seconds of the process over that window).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mm.h"
#include "workload.h"

enum { K_SIZE_MB, K_CACHELINES, K_TOUCH };
enum { TOUCH_POOL, TOUCH_FRESH };

static const struct lab_knob pft_knobs[] = {
	[K_SIZE_MB] = { .name = "size_mb", .type = LAB_KNOB_INT, .def = 256, .min = 1, .max = 65536,
			.help = "region size in MiB, split across the threads (pft -m)" },
	[K_CACHELINES] = { .name = "cachelines", .type = LAB_KNOB_INT, .def = 1, .min = 1, .max = 64,
			   .help = "cache lines written per page (pft -c)" },
	[K_TOUCH] = { .name = "touch", .type = LAB_KNOB_ENUM, .def = TOUCH_POOL, .choices = "pool|fresh",
		      .help = "pool: model faults only; fresh: also touch real anonymous memory" },
	{ 0 }
};

struct pft_slice {
	struct lab_page_pool pool;
} __lab_cacheline_aligned;

struct pft {
	struct lab_mm mm;
	struct lab_vma *vma;
	size_t pages, pages_per_thread, cls;
	int cachelines, touch, nthreads;
	char *pool_mem;			/* pre-faulted pages, pages * 4 KiB */
	char *fresh;			/* touch=fresh: host region */
	struct pft_slice *slice;
};

static void pft_free(struct pft *p)
{
	if (p->pool_mem)
		munmap(p->pool_mem, p->pages << LAB_PAGE_SHIFT);
	if (p->fresh)
		munmap(p->fresh, p->pages << LAB_PAGE_SHIFT);
	if (p->mm.mmap_lock.sem)
		lab_mm_destroy(&p->mm);
	free(p->slice);
	free(p);
}

static int pft_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct pft *p = calloc(1, sizeof(*p));
	size_t bytes = (size_t)cell->wl->knob[K_SIZE_MB] << 20;
	size_t len;
	long cls = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	int r;

	if (!p)
		goto nomem;
	p->nthreads = cell->nthreads;
	p->pages = (bytes + LAB_PAGE_SIZE - 1) >> LAB_PAGE_SHIFT;
	p->pages_per_thread = (p->pages + (size_t)p->nthreads - 1) / (size_t)p->nthreads;
	p->pages = p->pages_per_thread * (size_t)p->nthreads;
	p->cls = cls > 0 ? (size_t)cls : 128;	/* pft's default when sysconf can't tell */
	p->cachelines = (int)cell->wl->knob[K_CACHELINES];
	p->touch = (int)cell->wl->knob[K_TOUCH];
	if ((size_t)p->cachelines * p->cls > LAB_PAGE_SIZE)
		p->cachelines = (int)(LAB_PAGE_SIZE / p->cls);
	len = p->pages << LAB_PAGE_SHIFT;

	r = lab_mm_init(&p->mm, cell->lock);
	if (r) {
		snprintf(err, errlen, "pft: cannot init %s: error %d", cell->lock->label, r);
		free(p);
		return -1;
	}
	p->vma = lab_mm_mmap(&p->mm, len, LAB_VM_READ | LAB_VM_WRITE);
	/* Cache-line aligned type: calloc() only guarantees 16 bytes (UBSan caught it). */
	p->slice = aligned_alloc(LAB_CACHELINE, (size_t)p->nthreads * sizeof(*p->slice));
	if (p->slice)
		memset(p->slice, 0, (size_t)p->nthreads * sizeof(*p->slice));
	p->pool_mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
			   -1, 0);
	if (p->pool_mem == MAP_FAILED)
		p->pool_mem = NULL;
	if (p->touch == TOUCH_FRESH) {
		p->fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->fresh == MAP_FAILED)
			p->fresh = NULL;
	}
	if (!p->vma || !p->slice || !p->pool_mem || (p->touch == TOUCH_FRESH && !p->fresh)) {
		pft_free(p);
		goto nomem;
	}
	*state = p;
	return 0;
nomem:
	snprintf(err, errlen, "pft: cannot allocate a %zu MiB region", bytes >> 20);
	return -1;
}

static int pft_prepare(void *state, const struct lab_cell *cell)
{
	struct pft *p = state;

	(void)cell;
	lab_mm_unpopulate(p->vma);
	for (int i = 0; i < p->nthreads; i++) {
		p->slice[i].pool.base = p->pool_mem + (((size_t)i * p->pages_per_thread) << LAB_PAGE_SHIFT);
		p->slice[i].pool.npages = p->pages_per_thread;
		p->slice[i].pool.next = 0;
	}
	if (p->fresh && madvise(p->fresh, p->pages << LAB_PAGE_SHIFT, MADV_DONTNEED))
		return -errno;
	return 0;
}

static void pft_worker(void *state, struct lab_worker *w)
{
	struct pft *p = state;
	struct lab_page_pool *pool = &p->slice[w->id].pool;
	size_t first = (size_t)w->id * p->pages_per_thread;

	for (size_t i = first; i < first + p->pages_per_thread; i++) {
		uintptr_t addr = p->vma->vm_start + (i << LAB_PAGE_SHIFT);
		char *page;

		if (lab_mm_fault(&p->mm, addr, pool, &page)) {
			w->count[0]++;		/* failed faults: must stay 0 */
			continue;
		}
		for (int c = 0; c < p->cachelines; c++)
			page[(size_t)c * p->cls] = 'r';
		if (p->fresh) {
			char *host = p->fresh + (i << LAB_PAGE_SHIFT);

			for (int c = 0; c < p->cachelines; c++)
				host[(size_t)c * p->cls] = 'r';
		}
		w->ops++;
	}
}

static void pft_metrics(void *state, const struct lab_iter *it, struct lab_sink *sink)
{
	struct pft *p = state;
	uint64_t faults = 0, failed = 0;
	double cpu = it->user_s + it->sys_s;

	for (int i = 0; i < it->nthreads; i++) {
		faults += it->workers[i].ops;
		failed += it->workers[i].count[0];
	}
	lab_emit(sink, "faults/cpu", cpu > 0 ? (double)faults / cpu : 0, "faults/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "faults/sec", (double)faults / it->wall_s, "faults/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "pages", (double)faults, "pages", LAB_BETTER_NONE);
	lab_emit(sink, "failed_faults", (double)failed, "faults", LAB_BETTER_NONE);
	lab_emit(sink, "region_mb", (double)(p->pages << LAB_PAGE_SHIFT) / (1 << 20), "MiB", LAB_BETTER_NONE);
}

static void pft_teardown(void *state)
{
	pft_free(state);
}

const struct lab_workload_ops lab_workload_pft = {
	.name = "pft",
	.summary = "page fault test (pft-threads): N threads fault one shared region through the mm model",
	.cite = "gormanm/pft 0.12x (Lameter 2006, Schermerhorn); mmtests pft-threads (workloads.md §2.a)",
	.kind = LAB_WL_WORK,
	.knobs = pft_knobs,
	.headline = "faults/cpu,faults/sec",
	.setup = pft_setup,
	.prepare = pft_prepare,
	.worker = pft_worker,
	.metrics = pft_metrics,
	.teardown = pft_teardown,
};
