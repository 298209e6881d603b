/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pft - the page fault test (mmtests pft-threads), on the user-space mm model.
 *
 * Citation: Christoph Lameter's page fault test (LKML 2006-08-29), as
 * modified by Lee Schermerhorn and packaged in gormanm/pft (v0.12x), run by
 * mmtests as pft-threads (`pft -m <bytes> -t <nthreads>`);
 * docs/workloads.md §2.a.
 *
 * One iteration = one pft run (mmtests runs 30 per client count:
 * PFT_ITERATIONS=30, i.e. -n 30):
 * - the region is MemTotal / 5 by default, as mmtests' PFT_MAPPING_SIZE, but
 *   never more than half of MemAvailable when the block is set up (its pages
 *   are real host memory: on a shared or small machine the region is
 *   what memory allows; the region_mb metric says what it was; under --sim
 *   256 MiB); size_mb=N
 *   sets it. It is rounded as pft does: pages = ceil(bytes /
 *   4 KiB), pages_per_thread = ceil(pages / N), pages = pages_per_thread * N;
 *   it is one fresh anonymous VMA of one shared mm (unmapped and mapped again
 *   before every iteration, as every pft run is a new process), carved into N
 *   contiguous slices;
 * - every thread write-faults each page of its slice once through the mm
 *   model's fault path in the mm_lock mode (mmap_lock read + find_vma, or the
 *   v6.4 / v6.15 per-VMA locks with their fallbacks), which clears a real
 *   4 KiB page taken from the page allocator and installs it; then the thread
 *   writes 'r' at `cachelines` offsets of the page, one cache line apart (pft -c);
 *   each fault takes the modelled kernel's path (kernel=v5.0|v5.12|v6.2|v6.4,
 *   workloads/kmm.h: the pcp lists and zone->lock, the LRU batch and lru_lock,
 *   the memcg stock and page_counters of memcg_depth levels, rss, page tables);
 * - touch=fresh also writes to a real, freshly madvise(MADV_DONTNEED)'d
 *   anonymous region, so the host kernel's own page faults happen as well.
 *
 * Memory: the region's pages are real host memory. A comparison block's
 * cells (this workload at one thread count, each variant) share one page
 * allocator and its pages (share()); only one cell runs at a time, and each
 * gives its region back after every iteration (release(): the munmap a pft
 * process's exit does), so a block holds one region, not one per variant.
 * The page allocator's kernel model (pcp lists, LRU, memcg) is the block's:
 * what one variant's run leaves there, the next one finds, as one machine's
 * page allocator does between processes.
 *
 * Metrics (pft's definitions): faults/sec = pages / wall seconds (barrier
 * release to the last thread's end), faults/cpu = pages / (user + system
 * seconds of the process over that window); plus the per-VMA lock counters
 * vma_lock_success/abort/retry/miss and fault_mmap (faults under mmap_lock),
 * and the kernel model's events (kmm_pcp_refill, kmm_lru_drain, ...: kmm.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mm.h"
#include "vma_lock.h"
#include "workload.h"

enum { K_SIZE_MB, K_CACHELINES, K_TOUCH, K_MM_LOCK, K_KERNEL, K_MEMCG, K_VMA_LOCK };
enum { TOUCH_POOL, TOUCH_FRESH };

static const struct lab_knob pft_knobs[] = {
	[K_SIZE_MB] = { .name = "size_mb", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 1 << 20,
			.help = "region size in MiB, split across the threads (pft -m); 0: MemTotal/5 as mmtests, "
				"at most half of MemAvailable" },
	[K_CACHELINES] = { .name = "cachelines", .type = LAB_KNOB_INT, .def = 1, .min = 1, .max = 64,
			   .help = "cache lines written per page (pft -c)" },
	[K_TOUCH] = { .name = "touch", .type = LAB_KNOB_ENUM, .def = TOUCH_POOL, .choices = "pool|fresh",
		      .help = "pool: model faults only; fresh: also touch real anonymous memory" },
	[K_MM_LOCK] = { .name = "mm_lock", .type = LAB_KNOB_ENUM, .def = LAB_MM_LOCK_MMAP,
			.choices = LAB_MM_LOCK_CHOICES,
			.help = "fault path: mmap_lock, v6.4 per-VMA locks, v6.15 vm_refcnt (--mm-lock)" },
	[K_KERNEL] = { .name = "kernel", .type = LAB_KNOB_ENUM, .def = LAB_KMM_DEFAULT, .choices = LAB_KMM_CHOICES,
		       .help = "the kernel whose fault path is modelled: page allocator, LRU, memcg, rss, layout (workloads/kmm.h)" },
	[K_MEMCG] = { .name = "memcg_depth", .type = LAB_KNOB_INT, .def = LAB_KMM_MEMCG_DEPTH, .min = 0, .max = 8,
		      .help = "memcg levels above the root the faulting task is charged through (0: the root memcg, "
			      "not charged; 3: a systemd login session)" },
	[K_VMA_LOCK] = { .name = "vma_lock", .type = LAB_KNOB_ENUM, .def = LAB_VMA_LOCK_KERNEL,
			 .choices = LAB_VMA_LOCK_CHOICES,
			 .help = "where mm_lock=vma's per-VMA lock lives: kernel: as kernel= has it (v6.2: the pvl-v2 "
				 "series, inside; v6.4: slab; v5.0 and v5.12, which had no per-VMA locks: apart); "
				 "inside: in the VMA, its count on the VMA's first line with vm_start..vm_flags, the "
				 "owner on the next (needs a variant with the kernel's rw_semaphore layout: rwsem, "
				 "rwsem-dhandoff, rwsem-xadd, rwsem-rspin); apart: a line-aligned object of its own; "
				 "slab: v6.4's struct vma_lock, a 40-byte object of a kmem_cache without "
				 "SLAB_HWCACHE_ALIGN, neighbouring VMAs' locks sharing lines (needs rwsem or "
				 "rwsem-dhandoff; on kernel=v6.4 another variant is apart). "
				 "No effect on mm_lock=mmap|vma-refcnt" },
	{ 0 }
};

struct pft_slice {
	struct lab_mm_thread t;
} __lab_cacheline_aligned;

/* What a block's cells share: the page allocator (first: tests/unit/workload_metrics.c reads it) and the region's pages. */
struct pft_shared {
	struct lab_page_alloc pa;
	size_t pages;			/* the region's, as the cells round it */
};

struct pft {
	struct lab_page_alloc own_pa, *pa;	/* pa: the block's (cell->shared) or own_pa */
	struct lab_mm mm;
	struct lab_mm_thread main_t;	/* the harness thread's (munmap in prepare) */
	uintptr_t region;
	size_t pages, pages_per_thread, cls;
	int cachelines, nthreads;
	bool mm_ok, pa_ok;
	char *fresh;			/* touch=fresh: host region */
	uint64_t kev0[LAB_KMM_EV_NR];	/* the kernel model's events before the iteration */
	struct pft_slice *slice;
};

static void pft_free(struct pft *p)
{
	if (p->fresh)
		munmap(p->fresh, p->pages << LAB_PAGE_SHIFT);
	if (p->mm_ok)
		lab_mm_destroy(&p->mm, &p->main_t);
	lab_mm_rcu_barrier();		/* VMAs freed through RCU are gone before their locks' variant is */
	free(p->slice);
	if (p->pa_ok)
		lab_page_alloc_destroy(&p->own_pa);
	free(p);
}

/*
 * mmtests' PFT_MAPPING_SIZE = MemTotal / 5, capped at MemAvailable / 2; at
 * least 1 MiB. Simulated: 256 MiB (the simulated machine's memory is not
 * the host's, and every page is a real host page and a simulated fault).
 */
static size_t default_bytes(void)
{
	if (LAB_SIM)
		return 256ul << 20;

	size_t total = lab_meminfo("MemTotal"), avail = lab_meminfo("MemAvailable"), b = total / 5;

	if (!total)
		total = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE), b = total / 5;
	if (avail && b > avail / 2)
		b = avail / 2;
	b &= ~(size_t)((1 << 20) - 1);
	return b ? b : 1 << 20;
}

/* The region in pages, as pft rounds it: ceil(bytes / 4 KiB), then a whole slice per thread. */
static size_t region_pages(const struct lab_workload_conf *wl, int nthreads)
{
	size_t bytes = wl->knob[K_SIZE_MB] ? (size_t)wl->knob[K_SIZE_MB] << 20 : default_bytes();
	size_t pages = (bytes + LAB_PAGE_SIZE - 1) >> LAB_PAGE_SHIFT;

	return (pages + (size_t)nthreads - 1) / (size_t)nthreads * (size_t)nthreads;
}

/* The free pages a region of @pages needs: its own and two batches of each thread's pcp list. */
static size_t reserve_pages(size_t pages, int nthreads)
{
	return pages + 2 * LAB_MM_CACHE_BATCH * (size_t)nthreads;
}

/* A page allocator of @cell's kernel model holding the region's pages (prefaulted). Returns 0 or -1. */
static int pa_make(struct lab_page_alloc *pa, const struct lab_cell *cell, size_t pages)
{
	if (lab_page_alloc_init(pa, 0))
		return -1;
	if (lab_page_alloc_kernel(pa, (enum lab_kmm_ver)cell->wl->knob[K_KERNEL], (int)cell->wl->knob[K_MEMCG]) ||
	    lab_page_alloc_reserve(pa, reserve_pages(pages, cell->nthreads))) {
		lab_page_alloc_destroy(pa);
		return -1;
	}
	return 0;
}

static int pft_share(void **shared, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct pft_shared *sh = calloc(1, sizeof(*sh));

	if (sh)
		sh->pages = region_pages(cell->wl, cell->nthreads);
	if (!sh || pa_make(&sh->pa, cell, sh->pages)) {
		snprintf(err, errlen, "pft: cannot allocate a %zu MiB region", sh ? sh->pages >> (20 - LAB_PAGE_SHIFT) : 0);
		free(sh);
		return -1;
	}
	*shared = sh;
	return 0;
}

static void pft_unshare(void *shared)
{
	struct pft_shared *sh = shared;

	lab_page_alloc_destroy(&sh->pa);
	free(sh);
}

static int pft_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct pft *p = calloc(1, sizeof(*p));
	struct pft_shared *sh = cell->shared;
	long cls = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	size_t bytes = 0;
	int r;

	if (!p)
		goto nomem;
	p->nthreads = cell->nthreads;
	p->pages = sh ? sh->pages : region_pages(cell->wl, cell->nthreads);
	p->pages_per_thread = p->pages / (size_t)p->nthreads;
	bytes = p->pages << LAB_PAGE_SHIFT;
	p->cls = cls > 0 ? (size_t)cls : 128;	/* pft's default when sysconf can't tell */
	p->cachelines = (int)cell->wl->knob[K_CACHELINES];
	if ((size_t)p->cachelines * p->cls > LAB_PAGE_SIZE)
		p->cachelines = (int)(LAB_PAGE_SIZE / p->cls);

	if (LAB_SIM && lab_kpath_check()) {
		snprintf(err, errlen, "pft: the machine file has no %s (the fault path's cost model, workloads/kmm.h)",
			 lab_kpath_check());
		free(p);
		return -1;
	}
	if (sh) {
		p->pa = &sh->pa;	/* the block's pages */
	} else {
		if (pa_make(&p->own_pa, cell, p->pages))
			goto nomem_free;
		p->pa_ok = true;
		p->pa = &p->own_pa;
	}
	lab_mm_thread_init(&p->main_t, p->pa);
	r = lab_mm_init(&p->mm, cell->lock, (enum lab_mm_lock_mode)cell->wl->knob[K_MM_LOCK], p->pa);
	if (r) {
		snprintf(err, errlen, "pft: cannot build an mm on %s in mm_lock=%s mode: %s", cell->lock->label,
			 lab_mm_lock_mode_name((enum lab_mm_lock_mode)cell->wl->knob[K_MM_LOCK]),
			 r == -EINVAL ? "per-VMA locks need down_read_trylock" : strerror(-r));
		pft_free(p);
		return -1;
	}
	p->mm_ok = true;
	if (cell->wl->knob[K_VMA_LOCK] == LAB_VMA_LOCK_INSIDE && cell->wl->knob[K_MM_LOCK] == LAB_MM_LOCK_VMA &&
	    !lab_vma_lock_fits_inside(cell->lock)) {
		snprintf(err, errlen, "pft: vma_lock=inside needs a variant with the kernel's rw_semaphore layout "
			 "(rwsem, rwsem-dhandoff, rwsem-xadd, rwsem-rspin); %s has its own", cell->lock->label);
		pft_free(p);
		return -1;
	}
	if (cell->wl->knob[K_VMA_LOCK] == LAB_VMA_LOCK_SLAB && cell->wl->knob[K_MM_LOCK] == LAB_MM_LOCK_VMA &&
	    !lab_vma_lock_fits_slab(cell->lock)) {
		snprintf(err, errlen, "pft: vma_lock=slab needs a variant whose state packs into the kernel's "
			 "40-byte rw_semaphore (rwsem, rwsem-dhandoff); %s has its own", cell->lock->label);
		pft_free(p);
		return -1;
	}
	lab_mm_set_vma_lock_place(&p->mm, (enum lab_vma_lock_place)cell->wl->knob[K_VMA_LOCK]);
	p->slice = aligned_alloc(LAB_CACHELINE, (size_t)p->nthreads * sizeof(*p->slice));
	if (!p->slice)
		goto nomem_free;
	for (int i = 0; i < p->nthreads; i++)
		lab_mm_thread_init(&p->slice[i].t, p->pa);
	if (cell->wl->knob[K_TOUCH] == TOUCH_FRESH) {
		p->fresh = mmap(NULL, p->pages << LAB_PAGE_SHIFT, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->fresh == MAP_FAILED) {
			p->fresh = NULL;
			goto nomem_free;
		}
	}
	*state = p;
	return 0;
nomem_free:
	pft_free(p);
nomem:
	snprintf(err, errlen, "pft: cannot allocate a %zu MiB region", bytes >> 20);
	return -1;
}

static int pft_prepare(void *state, const struct lab_cell *cell)
{
	struct pft *p = state;

	/* A new pft process: a fresh, untouched mapping (the previous run's pages are freed). */
	if (p->region && lab_mm_munmap(&p->mm, p->region, p->pages << LAB_PAGE_SHIFT, &p->main_t))
		return -EINVAL;
	/*
	 * Natively, the zone is topped up here, outside the timed window: the
	 * last iteration's munmap left up to the modelled pcp->high (the 64 GiB
	 * node's, v6.2 zone_highsize()) on the freeing thread's pcp list, and a
	 * zone short of the region grew in the next iteration's faults, each new
	 * chunk prefaulted by the host (12,474 pages at size_mb=64: that
	 * iteration took 43 ms where the others took 4-8 ms). Under --sim the
	 * growth stays where it was: it moves no simulated value that way.
	 */
	if (!LAB_SIM && lab_page_alloc_reserve(p->pa, reserve_pages(p->pages, cell->nthreads)))
		return -ENOMEM;
	p->region = lab_mm_mmap(&p->mm, p->pages << LAB_PAGE_SHIFT, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	if (!p->region)
		return -ENOMEM;
	for (int i = 0; i < p->nthreads; i++)
		memset(p->slice[i].t.ev, 0, sizeof(p->slice[i].t.ev));
	lab_kmm_events(&p->pa->k, p->kev0);
	if (p->fresh && madvise(p->fresh, p->pages << LAB_PAGE_SHIFT, MADV_DONTNEED))
		return -errno;
	return 0;
}

static void pft_worker(void *state, struct lab_worker *w)
{
	struct pft *p = state;
	struct lab_mm_thread *t = &p->slice[w->id].t;
	size_t first = (size_t)w->id * p->pages_per_thread;

	lab_rcu_thread_online();
	for (size_t i = first; i < first + p->pages_per_thread; i++) {
		struct lab_fault f = { .addr = p->region + (i << LAB_PAGE_SHIFT), .flags = LAB_FAULT_WRITE };

		if (lab_mm_fault(&p->mm, &f, t)) {
			w->count[0]++;		/* failed faults: must stay 0 */
			continue;
		}
		for (int c = 0; c < p->cachelines; c++)
			f.page[(size_t)c * p->cls] = 'r';
		lab_kpath_charge(KP_USER_TOUCH, 1);	/* the store that faulted, again, and the loop */
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
	uint64_t faults = 0, failed = 0, ev[LAB_MM_EV_NR] = { 0 };
	double cpu = it->user_s + it->sys_s;

	for (int i = 0; i < it->nthreads; i++) {
		faults += it->workers[i].ops;
		failed += it->workers[i].count[0];
		for (int e = 0; e < LAB_MM_EV_NR && i < p->nthreads; e++)
			ev[e] += p->slice[i].t.ev[e];
	}
	lab_emit(sink, "faults/cpu", cpu > 0 ? (double)faults / cpu : 0, "faults/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "faults/sec", it->wall_s > 0 ? (double)faults / it->wall_s : 0, "faults/s",
		 LAB_BETTER_HIGHER);
	lab_emit(sink, "pages", (double)faults, "pages", LAB_BETTER_NONE);
	lab_emit(sink, "failed_faults", (double)failed, "faults", LAB_BETTER_NONE);
	lab_emit(sink, "region_mb", (double)(p->pages << LAB_PAGE_SHIFT) / (1 << 20), "MiB", LAB_BETTER_NONE);
	for (int e = LAB_MM_EV_vma_lock_success; e <= LAB_MM_EV_fault_mmap; e++)
		lab_emit(sink, lab_mm_event_names[e], (double)ev[e], "count", LAB_BETTER_NONE);
	/* the modelled kernel's events over the iteration (zone->lock rounds, LRU drains, charges, ...) */
	{
		uint64_t kev[LAB_KMM_EV_NR];

		lab_kmm_events(&p->pa->k, kev);
		for (int e = 0; e < LAB_KMM_EV_NR; e++) {
			char name[64];

			snprintf(name, sizeof(name), "kmm_%s", lab_kmm_event_names[e]);
			lab_emit(sink, name, (double)(kev[e] - p->kev0[e]), "count", LAB_BETTER_NONE);
		}
	}
}

/* After the iteration: its region goes back (the exit of a pft process), so the block's next cell has the pages. */
static void pft_release(void *state, const struct lab_cell *cell)
{
	struct pft *p = state;

	(void)cell;
	if (p->region && !lab_mm_munmap(&p->mm, p->region, p->pages << LAB_PAGE_SHIFT, &p->main_t))
		p->region = 0;
	if (p->fresh)
		madvise(p->fresh, p->pages << LAB_PAGE_SHIFT, MADV_DONTNEED);
}

/*
 * Shared by the block: the region's pages, their struct pages (8 of a 2 MiB
 * chunk's 512 pages) and the page tables that map them (a page per 2 MiB,
 * from the same allocator, freed with the region), and with touch=fresh the
 * host region a cell touches while an iteration runs (released after it: one
 * at a time). Per cell: its mm and slices.
 * Measured: pft:size_mb=64 t=1, one cell, 72.8 MB peak RSS with 5.4 MB of it
 * rwlab's own (results/harness/README.md).
 */
static void pft_footprint(const struct lab_workload_conf *wl, int nthreads, size_t *per_cell, size_t *shared)
{
	size_t bytes = region_pages(wl, nthreads) << LAB_PAGE_SHIFT;

	*shared = bytes + bytes / 64 + bytes / 512 + 2 * LAB_MM_CACHE_BATCH * (size_t)nthreads * LAB_PAGE_SIZE;
	if (wl->knob[K_TOUCH] == TOUCH_FRESH)
		*shared += bytes;
	*per_cell = (1u << 20) + (size_t)nthreads * (64u << 10);
}

static void pft_teardown(void *state)
{
	pft_free(state);
}

const struct lab_workload_ops lab_workload_pft = {
	.name = "pft",
	.simulated = true,
	.summary = "page fault test (pft-threads): N threads fault one shared region through the mm model",
	.cite = "gormanm/pft 0.12x (Lameter 2006, Schermerhorn); mmtests pft-threads (docs/workloads.md §2.a)",
	.kind = LAB_WL_WORK,
	.work_split = true,
	.knobs = pft_knobs,
	.headline = "faults/cpu,faults/sec",
	.setup = pft_setup,
	.prepare = pft_prepare,
	.worker = pft_worker,
	.metrics = pft_metrics,
	.teardown = pft_teardown,
	.share = pft_share,
	.unshare = pft_unshare,
	.release = pft_release,
	.footprint = pft_footprint,
	.size_knob = "size_mb",
};
