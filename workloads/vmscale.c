/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vmscale - vm-scalability anon-cow-rand-hugetlb, with the release of page
 * metadata that speculative walkers may be reading done under a chosen
 * reclamation policy.
 *
 * Citation: vm-scalability case-anon-cow-rand-hugetlb (`usemem -n N
 * --prealloc --prefault --random -O -U unit_size/(N+1)`) and usemem's
 * throughput arithmetic, LKP's vm-scalability stats (docs/workloads.md
 * §3.4, §4); the published table is results/reference/hugetlb-vmemmap-sync-rcu.csv:
 * a synchronous RCU grace period per huge page in the fault path cost 36.6%
 * of the throughput and multiplied voluntary context switches by 54, and
 * batching the grace periods undid it.
 *
 * The model:
 * - a region of unit_mb / (T + 1) MiB of 2 MiB pages is pre-faulted by the
 *   "parent" (prepare: not timed) and shared copy-on-write by T workers;
 * - each worker does region / 8 random 8-byte writes (usemem --random, one
 *   pass); the first write to a page it has not copied yet takes a fresh huge
 *   page from its pool, copies the 2 MiB (a real memcpy), maps it and drops its
 *   reference on the shared page;
 * - every huge page has a metadata block, the 512 struct pages of its vmemmap
 *   (32 KiB), reached through a per-PFN pointer that speculative PFN walkers
 *   read without holding a reference (like compaction or memory-failure
 *   scanners); giving a fresh page to its new owner rewrites its metadata: a
 *   new block is published and the old one is released, which is only safe
 *   once no walker can still be reading it. The policy (positional knob):
 *     sync    synchronize_rcu() per page, in the fault path (the regression);
 *     batch   the retired blocks are queued and one synchronize_rcu() frees a
 *             batch of them (the fix);
 *     hazptr  walkers publish the block they read in a hazard-pointer slot
 *             (one per walker, as one per CPU in the kernel hazptr RFC);
 *             release scans the slots, waits while one holds the block, frees.
 *   RCU is liburcu's urcu-memb; walkers read under urcu_memb_read_lock().
 *   Or the kernels of the LKP table, each one's synchronize_rcu()
 *   where it has it (see "the kernels of the LKP table" below): parent (none),
 *   bd225530 (one per surplus page allocation: the parent's prefault and every
 *   COW), c2a967f6 (only with hvo=1: per allocation and per free); their
 *   metadata blocks are recycled at once (the kernel's walkers are not this
 *   benchmark's: run them with walkers=0).
 * - usemem's timing: worker 0 is also the parent, whose prefault of the region
 *   (a surplus allocation and a 2 MiB clear per page) runs inside the window
 *   while the other workers wait, since usemem takes its start time before it;
 *   each worker's KB/s ends at its last write; then it "exits": its copies are
 *   freed (and, last, worker 0 frees the parent's pages), all inside the
 *   worker's rusage and the job's elapsed time, outside every KB/s.
 * - walker threads sweep all PFNs, walk_batch PFNs per read-side section,
 *   pausing walk_pause_us between sweeps, while the workers run.
 *
 * Metrics (LKP's names): throughput = sum over workers of usemem's KB/s =
 * (bytes * 1000000 >> 10) / usecs with bytes = region / 8 + 8 * writes and
 * usecs the worker's time from the start barrier (usemem also counts the
 * parent's prefault and the forks, which are untimed here); median = the
 * median worker KB/s; voluntary / involuntary context switches of workers and
 * walkers (RUSAGE_THREAD); user, system and elapsed time; percent of CPU =
 * 100 * (user + system) / elapsed; idle% = 100 - that / online CPUs (the
 * share of the machine this job left idle: the machine is shared, so the
 * system-wide figure would not be this job's).
 *
 * What it does not model: the hugetlb pool, NUMA, the kernel's grace-period
 * latency (liburcu's is different; the shape of a grace period in the hot
 * path is what is compared). The lazy-mm interface (locks/lazy_mm.h) was not
 * in the tree when this was written; the three policies live here.
 *
 * Under --sim: RCU is the engine's (locks/rcu_sim.h), whose
 * scheduler tick at the machine's HZ reports a worker's quiescent state, so
 * tick_us is not used and the workers hold no read-side section of their
 * own; walkers are simulated tasks; a COW is charged a fault
 * (cost.fault_ns), a huge-page allocation (cost.hpage_alloc_ns) and a 2 MiB
 * copy (the machine's bandwidth); the random stores are charged per 1024 as
 * memory traffic (lab_random_stores()); voluntary switches are the engine's
 * per-task counts (RUSAGE_THREAD). Nothing reads the pages' contents, so
 * under --sim the region is address space only (sim_region()): the
 * prefault, the copy and the stores are not made on the host, and once a
 * worker has copied every page its remaining stores are only charged. A
 * simulated huge page then costs the host its 32 KiB metadata block, not
 * 2 MiB, and a store a loop step per 1024.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#if !(defined(LAB_SIM) && LAB_SIM)
#include <urcu/urcu-memb.h>	/* the simulated build's RCU comes through mm.h */
#endif

#include "atomic.h"
#include "mm.h"
#include "wait.h"
#include "workload.h"

enum { K_POLICY, K_UNIT_MB, K_WALKERS, K_WALK_BATCH, K_WALK_PAUSE, K_BATCH, K_TICK, K_HVO };
enum { POL_SYNC, POL_BATCH, POL_HAZPTR, POL_PARENT, POL_BD225530, POL_C2A967F6 };

static const struct lab_knob vms_knobs[] = {
	[K_POLICY] = { .name = "policy", .type = LAB_KNOB_ENUM, .def = POL_SYNC,
		       .choices = "sync|batch|hazptr|parent|bd225530|c2a967f6", .positional = true,
		       .help = "release of page metadata: grace period per page, per batch, hazard pointers (lab schemes); "
			       "or the kernels of the LKP table: parent (no grace period), bd225530 (one per surplus "
			       "page allocation), c2a967f6 (only with HVO)" },
	[K_UNIT_MB] = { .name = "unit_mb", .type = LAB_KNOB_INT, .def = 512, .min = 4, .max = 1 << 20,
			.help = "memory of the case (unit_size); each process maps unit/(workers+1)" },
	[K_WALKERS] = { .name = "walkers", .type = LAB_KNOB_INT, .def = 1, .min = 0, .max = 64,
			.help = "speculative PFN walker threads" },
	[K_WALK_BATCH] = { .name = "walk_batch", .type = LAB_KNOB_INT, .def = 512, .min = 1, .max = 1 << 20,
			   .help = "PFNs a walker reads per read-side section" },
	[K_WALK_PAUSE] = { .name = "walk_pause_us", .type = LAB_KNOB_INT, .def = 1000, .min = 0, .max = 1000000,
			   .help = "walker pause between sweeps, microseconds" },
	[K_BATCH] = { .name = "batch", .type = LAB_KNOB_INT, .def = 64, .min = 1, .max = 1 << 20,
		      .help = "batch policy: releases per grace period" },
	[K_TICK] = { .name = "tick_us", .type = LAB_KNOB_INT, .def = 1000, .min = 0, .max = 1000000,
		     .help = "workers report RCU quiescent states at this tick (HZ=1000); 0 = at once" },
	[K_HVO] = { .name = "hvo", .type = LAB_KNOB_BOOL, .def = 0,
		    .help = "HugeTLB Vmemmap Optimization on (hugetlb_optimize_vmemmap): the kernels' grace periods "
			    "on the optimize (allocation) and restore (free) paths" },
	{ 0 }
};

#define HPAGE_SHIFT	21
#define HPAGE_SIZE	(1ul << HPAGE_SHIFT)
#define HPAGE_WORDS	(HPAGE_SIZE / sizeof(uint64_t))
#define SUBPAGES	512		/* struct pages per huge page */

/* One struct page of the vmemmap (64 bytes). */
struct subpage {
	uint64_t flags;
	uint32_t refcount, mapcount;
	uint64_t pad[6];
};

/* A huge page's metadata block: what walkers read speculatively. */
struct hmeta {
	struct subpage sub[SUBPAGES];
};

struct hp_slot {
	struct hmeta *p;
} __lab_cacheline_aligned;

struct vworker {
	uint64_t **pt;			/* this worker's mapping of each page */
	uint8_t *copied;
	size_t pool_next;		/* next pfn of its pool */
	struct hmeta **retired;		/* batch: waiting for a grace period */
	size_t nretired;
	struct hmeta **spare;		/* free blocks (allocated at setup: no malloc in the fault path) */
	size_t nspare;
	bool in_rcu;			/* between ticks: its quiescent state is not reported yet */
	uint64_t cows, gps, hp_waits;
	uint64_t own_end;		/* ns: its writes done (usemem's report; the exit comes after) */
} __lab_cacheline_aligned;

struct walker {
	pthread_t tid;
	struct vms *v;
	int id;
	uint64_t sections, retries, sink;
	long nvcsw, nivcsw;		/* over the last active period */
} __lab_cacheline_aligned;

/*
 * What a comparison block's cells share: the huge pages' memory (the parent's
 * pages and every worker's pool), prefaulted once. Nothing reads what the
 * pages hold (the copies only move bytes), and one cell runs at a time, so a
 * block holds one unit_mb region, not one per variant.
 */
struct vms_shared {
	char *mem;
	size_t npfn;
};

struct vms {
	int policy, nworkers, nwalkers;
	bool shared_mem;		/* mem is the block's (cell->shared) */
	bool hvo;			/* hugetlb_optimize_vmemmap */
	uint32_t forked;		/* the parent's prefault is done: the children run (futex) */
	uint32_t exited;		/* children whose exit is done (futex) */
	size_t pages;			/* per process */
	size_t npfn;			/* parent pages + every worker's pool */
	size_t walk_batch, batch;
	uint64_t walk_pause_ns, tick_ns;
	char *mem;			/* npfn huge pages, pfn-major */
	struct hmeta **meta;		/* per PFN, RCU / hazard-pointer protected */
	struct vworker *w;
	struct walker *wk;
	struct hp_slot *hp;		/* one per walker */
	/* walker control */
	uint32_t gen;			/* bumped to start a walk period; futex */
	uint32_t walking;		/* 1 while workers run */
	uint32_t parked;		/* walkers parked since the last period; futex */
	uint32_t quit;
	uint32_t workers_left;
	int ncpus;
	long proc_nv0;			/* RUSAGE_SELF voluntary switches when the walkers started */
};

static inline char *pfn_addr(struct vms *v, size_t pfn)
{
	return v->mem + (pfn << HPAGE_SHIFT);
}

/*
 * The pages' contents under --sim: nothing reads them (the copies and stores
 * are charged from the machine file), so the region is address space that is
 * never touched: PROT_NONE, MAP_NORESERVE, no host memory. Natively it is a
 * real region that the workers copy and write (posix_memalign in vms_setup()).
 */
static char *sim_region(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void region_free(char *p, size_t bytes)
{
	if (!LAB_SIM)
		free(p);
	else if (p)
		munmap(p, bytes);
}

/* Initialise the 512 struct pages of a block for @pfn (prep_new_hugetlb_folio's work). */
static struct hmeta *meta_init(struct hmeta *m, size_t pfn, uint32_t owner)
{
	if (!m)
		return NULL;
	for (int i = 0; i < SUBPAGES; i++) {
		m->sub[i].flags = (uint64_t)pfn << 16 | (i ? 0x2 : 0x1);	/* head / tail */
		m->sub[i].refcount = i ? 0 : 1;
		m->sub[i].mapcount = owner;
	}
	return m;
}

/* ---- the reclamation policies ---------------------------------------------------------- */

/*
 * synchronize_rcu() from a worker. A worker that waits is quiescent (the
 * kernel's caller sleeps), so it first reports its quiescent state.
 */
static void worker_synchronize_rcu(struct vworker *w)
{
	if (w->in_rcu)
		urcu_memb_read_unlock();
	urcu_memb_synchronize_rcu();
	if (w->in_rcu)
		urcu_memb_read_lock();
	w->gps++;
}

static void release_sync(struct vworker *w, struct hmeta *old)
{
	worker_synchronize_rcu(w);	/* a full grace period, in the fault path */
	w->spare[w->nspare++] = old;
}

static void batch_flush(struct vworker *w)
{
	if (!w->nretired)
		return;
	worker_synchronize_rcu(w);	/* one grace period for the whole batch */
	for (size_t i = 0; i < w->nretired; i++)
		w->spare[w->nspare++] = w->retired[i];
	w->nretired = 0;
}

static void release_batch(struct vms *v, struct vworker *w, struct hmeta *old)
{
	w->retired[w->nretired++] = old;
	if (w->nretired >= v->batch)
		batch_flush(w);
}

static void release_hazptr(struct vms *v, struct vworker *w, struct hmeta *old)
{
	/* Store A (the unpublish, done by the caller) before load B (the slots). */
	smp_mb();
	for (int i = 0; i < v->nwalkers; i++) {
		if (smp_load_acquire(&v->hp[i].p) != old)
			continue;
		w->hp_waits++;
		while (smp_load_acquire(&v->hp[i].p) == old)
			cpu_relax();
	}
	w->spare[w->nspare++] = old;
}

/* ---- the kernels of the LKP table ---------------------------------------------------------------
 *
 * What the three compared kernels do per surplus huge page (the case's pages are
 * all surplus: setup_hugetlb sets only nr_overcommit_hugepages):
 * - its allocation (alloc_surplus_hugetlb_folio -> alloc_fresh_hugetlb_folio ->
 *   __prep_new_hugetlb_folio) calls hugetlb_vmemmap_optimize_folio(); bd225530
 *   ("mm/hugetlb_vmemmap: fix race with speculative PFN walkers") put
 *   synchronize_rcu() in that wrapper, before the check whether HVO applies, so
 *   every allocation waits a grace period; c2a967f6ab0e ("mm/hugetlb_vmemmap:
 *   don't synchronize_rcu() without HVO", its commit message: "they should not
 *   call synchronize_rcu(). Otherwise, it regresses use cases not enabling HVO")
 *   moved it into __hugetlb_vmemmap_optimize_folio() after that check: a grace
 *   period only when HVO optimizes the page (once per batch on the bulk paths,
 *   which the fault path does not take);
 * - its free (__update_and_free_hugetlb_folio) restores the vmemmap only of a
 *   folio HVO optimized (clear_flag), so neither kernel waits there without HVO;
 * - the parent (5a4d8944d6b1e) has no grace period on either path.
 * The LKP run had HVO off (the fix closes its report), so hvo defaults to 0.
 */
static bool kernel_policy(const struct vms *v)
{
	return v->policy >= POL_PARENT;
}

static bool gp_on_alloc(const struct vms *v)
{
	return v->policy == POL_BD225530 || (v->policy == POL_C2A967F6 && v->hvo);
}

static bool gp_on_free(const struct vms *v)
{
	return (v->policy == POL_BD225530 || v->policy == POL_C2A967F6) && v->hvo;
}

/* A surplus huge page from the buddy allocator, prepared (cost.hpage_alloc_ns), and the kernel's grace period. */
static void hpage_alloc(struct vms *v, struct vworker *w)
{
	lab_kernel_work(LAB_KWORK_HPAGE_ALLOC);
	if (gp_on_alloc(v))
		worker_synchronize_rcu(w);
}

/* A surplus huge page back to the buddy allocator (its freeing work is not charged: no figure). */
static void hpage_free(struct vms *v, struct vworker *w)
{
	if (gp_on_free(v))
		worker_synchronize_rcu(w);
}

/*
 * usemem --prealloc --prefault: the parent maps the region with MAP_POPULATE
 * before it forks, after usemem took its start time: each page a hugetlb
 * no-page fault (a surplus allocation, clear_huge_page). Done by worker 0
 * while the others wait, so every child's time includes it, as usemem's does.
 */
static void parent_prefault(struct vms *v, struct vworker *w)
{
	for (size_t k = 0; k < v->pages; k++) {
		lab_kernel_work(LAB_KWORK_FAULT);
		hpage_alloc(v, w);
		if (!LAB_SIM)
			memset(pfn_addr(v, k), 0x11, HPAGE_SIZE);
		lab_kernel_work(LAB_KWORK_HPAGE_COPY);	/* clear_huge_page: 2 MiB at the copy bandwidth */
	}
}

/* ---- workers ------------------------------------------------------------------------------ */

/*
 * The first write of worker @wi to page @i: copy it into a fresh page of the
 * pool, give that page new metadata, release the old metadata, map it.
 */
static int cow(struct vms *v, int wi, size_t i)
{
	struct vworker *w = &v->w[wi];
	size_t pfn = v->pages * (size_t)(1 + wi) + w->pool_next++;
	uint64_t *src = w->pt[i], *dst = (uint64_t *)pfn_addr(v, pfn);
	struct hmeta *nm = w->nspare ? meta_init(w->spare[--w->nspare], pfn, (uint32_t)wi + 1) : NULL, *old;

	if (!nm)
		return -ENOMEM;
	lab_kernel_work(LAB_KWORK_FAULT);
	hpage_alloc(v, w);		/* hugetlb_wp -> alloc_hugetlb_folio -> alloc_surplus_hugetlb_folio */
	if (!LAB_SIM)	/* simulated: charged, the region is never touched */
		memcpy(dst, src, HPAGE_SIZE);
	lab_kernel_work(LAB_KWORK_HPAGE_COPY);
	/* rcu_assign_pointer: the new block's contents before its pointer (walkers load-acquire). */
	old = atomic_xchg_release(&v->meta[pfn], nm);
	switch (v->policy) {
	case POL_SYNC:
		release_sync(w, old);
		break;
	case POL_BATCH:
		release_batch(v, w, old);
		break;
	case POL_HAZPTR:
		release_hazptr(v, w, old);
		break;
	default:
		w->spare[w->nspare++] = old;	/* the kernels: no release protocol of the lab's */
		break;
	}
	/* put_page() on the shared page: walkers read this count. */
	atomic_fetch_sub_relaxed(&v->meta[i]->sub[0].refcount, 1u);
	w->pt[i] = dst;
	w->copied[i] = 1;
	w->cows++;
	return 0;
}

struct tusage {
	long nv, niv;
	uint64_t utime_us, stime_us;
};

static void rusage_thread(struct tusage *u)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	u->nv = ru.ru_nvcsw;
	u->niv = ru.ru_nivcsw;
	u->utime_us = (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec;
	u->stime_us = (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec;
}

/*
 * A worker (a usemem child). With tick_us > 0 it stands for a CPU running
 * user code under the kernel's RCU: such a CPU is quiescent all along, but
 * the grace-period machinery learns it only at the next scheduling-clock
 * tick; so the worker stays inside a read-side section and leaves it (reports
 * the quiescent state) once per tick, and a grace period has to wait for
 * every other worker's next tick, as in the kernel.
 */
static void vms_worker(void *state, struct lab_worker *lw)
{
	struct vms *v = state;
	struct vworker *w = &v->w[lw->id];
	uint64_t words = v->pages * HPAGE_WORDS, n = words, rng = lab_worker_rand(lw) | 1;
	uint64_t next_tick = lab_clock_ns() + v->tick_ns;
	struct tusage u0, u1;

	lab_rcu_thread_online();
	/* usemem: the parent prefaults, then forks; the children start after it (and exist only then) */
	if (lw->id == 0) {
		rusage_thread(&u0);
		parent_prefault(v, w);
		smp_store_release(&v->forked, 1u);
		lab_futex_wake(&v->forked, INT32_MAX);
	} else {
		while (!smp_load_acquire(&v->forked))
			lab_futex_wait(&v->forked, 0u, -1);
		rusage_thread(&u0);
	}
	/* Simulated: the engine's tick reports the quiescent states. */
	w->in_rcu = !LAB_SIM && v->tick_ns && v->policy != POL_HAZPTR && !kernel_policy(v);
	if (w->in_rcu)
		urcu_memb_read_lock();
	for (uint64_t k = 0; k < n; k++) {
		uint64_t idx, pg;

		if (LAB_SIM && !(k & 1023)) {	/* simulated: the stores cost nothing otherwise */
			lab_random_stores(n - k < 1024 ? n - k : 1024);
			if (w->cows == v->pages) {	/* every page copied: the rest only charge */
				for (k += 1024; k < n; k += 1024)
					lab_random_stores(n - k < 1024 ? n - k : 1024);
				break;
			}
		}
		if (w->in_rcu && !(k & 1023)) {
			uint64_t now = lab_clock_ns();

			if (now >= next_tick) {		/* the tick: report the quiescent state */
				urcu_memb_read_unlock();
				urcu_memb_read_lock();
				next_tick = now + v->tick_ns;
			}
		}
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		idx = (uint64_t)((__extension__(unsigned __int128)rng * words) >> 64);	/* in [0, words) */
		pg = idx >> (HPAGE_SHIFT - 3);
		if (lab_unlikely(!w->copied[pg]) && cow(v, lw->id, pg)) {
			lw->count[3]++;		/* allocation failures: must stay 0 */
			continue;
		}
		if (!LAB_SIM)
			w->pt[pg][idx & (HPAGE_WORDS - 1)] = idx;
	}
	if (w->in_rcu)
		urcu_memb_read_unlock();
	w->in_rcu = false;
	if (v->policy == POL_BATCH)
		batch_flush(w);
	w->own_end = lab_clock_ns();	/* usemem prints its KB/s here, then exits */
	/* exit_mmap: its copies go back (the kernels' restore path); the parent's pages after every child */
	for (uint64_t i = 0; i < w->cows; i++)
		hpage_free(v, w);
	if (lw->id == 0) {
		uint32_t e;

		while ((e = smp_load_acquire(&v->exited)) < (uint32_t)v->nworkers - 1)
			lab_futex_wait(&v->exited, e, -1);
		for (size_t k = 0; k < v->pages; k++)
			hpage_free(v, w);
	} else {
		atomic_fetch_add_release(&v->exited, 1u);
		lab_futex_wake(&v->exited, 1);
	}
	rusage_thread(&u1);
	lw->ops = n;
	lw->count[0] = w->cows;
	lw->count[1] = (uint64_t)(u1.nv - u0.nv);
	lw->count[2] = (uint64_t)(u1.niv - u0.niv);
	lw->count[4] = u1.utime_us - u0.utime_us;
	lw->count[5] = u1.stime_us - u0.stime_us;
	/* The last worker ends the walkers' period. */
	if (atomic_sub_return(&v->workers_left, 1u) == 0)
		smp_store_release(&v->walking, 0u);
}

/* ---- walkers ------------------------------------------------------------------------------ */

/* Read a block like a PFN walker: head flags and count, one tail's flags. */
static inline uint64_t peek(const struct hmeta *m, size_t pfn)
{
	return READ_ONCE(m->sub[0].flags) + READ_ONCE(m->sub[0].refcount) + READ_ONCE(m->sub[pfn % SUBPAGES].flags);
}

static void walk_rcu(struct vms *v, struct walker *wk)
{
	for (size_t pfn = 0; pfn < v->npfn;) {
		size_t end = pfn + v->walk_batch < v->npfn ? pfn + v->walk_batch : v->npfn;

		urcu_memb_read_lock();
		for (; pfn < end; pfn++)
			wk->sink += peek(smp_load_acquire(&v->meta[pfn]), pfn);
		urcu_memb_read_unlock();
		wk->sections++;
	}
}

static void walk_hazptr(struct vms *v, struct walker *wk)
{
	struct hp_slot *slot = &v->hp[wk->id];

	for (size_t pfn = 0; pfn < v->npfn; pfn++) {
		struct hmeta *m = READ_ONCE(v->meta[pfn]), *m2;

		for (;;) {
			WRITE_ONCE(slot->p, m);
			smp_mb();	/* store B (the slot) before load A (the pointer again) */
			m2 = smp_load_acquire(&v->meta[pfn]);
			if (m2 == m)
				break;
			m = m2;		/* replaced meanwhile: protect the new one */
			wk->retries++;
		}
		wk->sink += peek(m, pfn);
		smp_store_release(&slot->p, (struct hmeta *)NULL);	/* done reading */
		wk->sections++;
	}
}

static void *walker_main(void *arg)
{
	struct walker *wk = arg;
	struct vms *v = wk->v;
	uint32_t seen = 0;

	lab_rcu_thread_online();
	for (;;) {
		uint32_t g;
		struct tusage u0, u1;

		/* Park until the next period (or quit). */
		atomic_fetch_add_release(&v->parked, 1u);
		lab_futex_wake(&v->parked, 1);
		while ((g = smp_load_acquire(&v->gen)) == seen && !READ_ONCE(v->quit))
			lab_futex_wait(&v->gen, g, -1);
		if (READ_ONCE(v->quit))
			break;
		seen = g;
		rusage_thread(&u0);
		while (smp_load_acquire(&v->walking)) {
			if (v->policy == POL_HAZPTR)
				walk_hazptr(v, wk);
			else
				walk_rcu(v, wk);
			if (v->walk_pause_ns)
				lab_sleep_ns(v->walk_pause_ns);
		}
		rusage_thread(&u1);
		wk->nvcsw = u1.nv - u0.nv;
		wk->nivcsw = u1.niv - u0.niv;
	}
	return NULL;
}

/* Wait until every walker is parked (its counters are final). */
static void walkers_park(struct vms *v)
{
	uint32_t p;

	while ((p = smp_load_acquire(&v->parked)) < (uint32_t)v->nwalkers)
		lab_futex_wait(&v->parked, p, 10000000);
}

/* ---- ops ------------------------------------------------------------------------------------ */

static void vms_free(struct vms *v)
{
	if (v->wk) {
		WRITE_ONCE(v->quit, 1u);
		atomic_fetch_add_release(&v->gen, 1u);
		lab_futex_wake(&v->gen, v->nwalkers + 1);
		for (int i = 0; i < v->nwalkers; i++)
			if (v->wk[i].tid)
				lab_thread_join(v->wk[i].tid, NULL);
	}
	for (size_t i = 0; v->meta && i < v->npfn; i++)
		free(v->meta[i]);
	for (int i = 0; v->w && i < v->nworkers; i++) {
		free(v->w[i].pt);
		free(v->w[i].copied);
		for (size_t k = 0; k < v->w[i].nretired; k++)
			free(v->w[i].retired[k]);
		for (size_t k = 0; k < v->w[i].nspare; k++)
			free(v->w[i].spare[k]);
		free(v->w[i].retired);
		free(v->w[i].spare);
	}
	if (!v->shared_mem)
		region_free(v->mem, v->npfn * HPAGE_SIZE);
	free(v->meta);
	free(v->w);
	free(v->wk);
	free(v->hp);
	free(v);
}

/* usemem's region per process: unit_size / (nr_task + 1), in whole huge pages (at least one). */
static size_t process_pages(const struct lab_workload_conf *wl, int nworkers)
{
	size_t pages = ((size_t)wl->knob[K_UNIT_MB] << 20) / (size_t)(nworkers + 1) / HPAGE_SIZE;

	return pages ? pages : 1;
}

/* @npfn huge pages of memory: natively prefaulted (the parent's --prealloc --prefault, every pool page once). */
static char *region_alloc(size_t npfn)
{
	char *mem = NULL;

	if (LAB_SIM)
		return sim_region(npfn * HPAGE_SIZE);
	if (posix_memalign((void **)&mem, HPAGE_SIZE, npfn * HPAGE_SIZE))
		return NULL;
	memset(mem, 0x11, npfn * HPAGE_SIZE);
	return mem;
}

static int vms_share(void **shared, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct vms_shared *sh = calloc(1, sizeof(*sh));

	if (sh) {
		sh->npfn = process_pages(cell->wl, cell->nthreads) * (size_t)(cell->nthreads + 1);
		sh->mem = region_alloc(sh->npfn);
	}
	if (!sh || !sh->mem) {
		snprintf(err, errlen, "vmscale: cannot allocate %ld MiB", (long)cell->wl->knob[K_UNIT_MB]);
		free(sh);
		return -1;
	}
	*shared = sh;
	return 0;
}

static void vms_unshare(void *shared)
{
	struct vms_shared *sh = shared;

	region_free(sh->mem, sh->npfn * HPAGE_SIZE);
	free(sh);
}

/*
 * The region (shared by the block; address space only under --sim); per cell
 * the huge pages' metadata (512 struct pages of 64 bytes each, 32 KiB a huge
 * page), every worker's mapping and its batch of spare metadata.
 */
static void vms_footprint(const struct lab_workload_conf *wl, int nthreads, size_t *per_cell, size_t *shared)
{
	size_t pages = process_pages(wl, nthreads), npfn = pages * (size_t)(nthreads + 1);

	*shared = LAB_SIM ? 0 : npfn * HPAGE_SIZE;
	*per_cell = (1u << 20) + npfn * sizeof(struct hmeta) +
		    (size_t)nthreads * (pages * 9 + ((size_t)wl->knob[K_BATCH] + 2) * sizeof(struct hmeta));
}

static int vms_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct vms *v;

	if (cell->npus < 1) {	/* the tick helper places itself on the cell's PUs */
		snprintf(err, errlen, "vmscale: the cell carries no CPU count (npus %d)", cell->npus);
		return -EINVAL;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		goto nomem;
	v->policy = (int)cell->wl->knob[K_POLICY];
	v->nworkers = cell->nthreads;
	v->nwalkers = (int)cell->wl->knob[K_WALKERS];
	v->walk_batch = (size_t)cell->wl->knob[K_WALK_BATCH];
	v->walk_pause_ns = (uint64_t)cell->wl->knob[K_WALK_PAUSE] * 1000;
	v->batch = (size_t)cell->wl->knob[K_BATCH];
	v->tick_ns = (uint64_t)cell->wl->knob[K_TICK] * 1000;
	v->hvo = cell->wl->knob[K_HVO] != 0;
	v->ncpus = cell->npus;	/* the harness's one CPU count: hwloc's allowed PUs */
	v->pages = process_pages(cell->wl, v->nworkers);
	v->npfn = v->pages * (size_t)(v->nworkers + 1);
	if (cell->shared) {
		v->mem = ((struct vms_shared *)cell->shared)->mem;
		v->shared_mem = true;
	} else if (!(v->mem = region_alloc(v->npfn))) {
		goto nomem_free;
	}
	v->meta = calloc(v->npfn, sizeof(*v->meta));
	v->w = aligned_alloc(LAB_CACHELINE, (size_t)v->nworkers * sizeof(*v->w));
	if (v->w)	/* vms_free() looks at the arrays */
		memset(v->w, 0, (size_t)v->nworkers * sizeof(*v->w));
	v->wk = aligned_alloc(LAB_CACHELINE, (size_t)(v->nwalkers ? v->nwalkers : 1) * sizeof(*v->wk));
	if (v->wk)	/* vms_free() looks at the thread ids */
		memset(v->wk, 0, (size_t)(v->nwalkers ? v->nwalkers : 1) * sizeof(*v->wk));
	v->hp = aligned_alloc(LAB_CACHELINE, (size_t)(v->nwalkers ? v->nwalkers : 1) * sizeof(*v->hp));
	if (!v->meta || !v->w || !v->wk || !v->hp)
		goto nomem_free;
	memset(v->w, 0, (size_t)v->nworkers * sizeof(*v->w));
	memset(v->hp, 0, (size_t)(v->nwalkers ? v->nwalkers : 1) * sizeof(*v->hp));
	for (size_t pfn = 0; pfn < v->npfn; pfn++)
		if (!(v->meta[pfn] = meta_init(malloc(sizeof(struct hmeta)), pfn, 0)))
			goto nomem_free;
	for (int i = 0; i < v->nworkers; i++) {
		v->w[i].pt = calloc(v->pages, sizeof(*v->w[i].pt));
		v->w[i].copied = calloc(v->pages, 1);
		v->w[i].retired = calloc(v->batch, sizeof(*v->w[i].retired));
		v->w[i].spare = calloc(v->batch + 2, sizeof(*v->w[i].spare));
		if (!v->w[i].pt || !v->w[i].copied || !v->w[i].retired || !v->w[i].spare)
			goto nomem_free;
		for (size_t k = 0; k < v->batch + 1; k++)
			if (!(v->w[i].spare[v->w[i].nspare++] = malloc(sizeof(struct hmeta))))
				goto nomem_free;
	}
	for (int i = 0; i < v->nwalkers; i++) {
		v->wk[i].v = v;
		v->wk[i].id = i;
		if (lab_thread_create(&v->wk[i].tid, walker_main, &v->wk[i])) {
			v->wk[i].tid = 0;
			snprintf(err, errlen, "vmscale: cannot start walker threads");
			vms_free(v);
			return -1;
		}
	}
	*state = v;
	return 0;
nomem_free:
	vms_free(v);
nomem:
	snprintf(err, errlen, "vmscale: cannot allocate %ld MiB", (long)cell->wl->knob[K_UNIT_MB]);
	return -1;
}

static int vms_prepare(void *state, const struct lab_cell *cell)
{
	struct vms *v = state;

	(void)cell;
	walkers_park(v);
	/* A fresh fork: every worker maps the parent's pages again. */
	for (int i = 0; i < v->nworkers; i++) {
		struct vworker *w = &v->w[i];

		for (size_t k = 0; k < v->pages; k++)
			w->pt[k] = (uint64_t *)pfn_addr(v, k);
		memset(w->copied, 0, v->pages);
		w->pool_next = 0;
		w->cows = w->gps = w->hp_waits = 0;
		w->own_end = 0;
	}
	for (size_t k = 0; k < v->pages; k++)
		WRITE_ONCE(v->meta[k]->sub[0].refcount, (uint32_t)v->nworkers + 1);
	for (int i = 0; i < v->nwalkers; i++)
		v->wk[i].sections = v->wk[i].retries = 0;
	WRITE_ONCE(v->forked, 0u);
	WRITE_ONCE(v->exited, 0u);
	/* Start the walkers now: they run from before the barrier until the last worker ends. */
	WRITE_ONCE(v->workers_left, (uint32_t)v->nworkers);
	WRITE_ONCE(v->parked, 0u);
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		v->proc_nv0 = ru.ru_nvcsw;
	}
	smp_store_release(&v->walking, 1u);
	atomic_fetch_add_release(&v->gen, 1u);
	lab_futex_wake(&v->gen, v->nwalkers);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void vms_metrics(void *state, const struct lab_iter *it, struct lab_sink *sink)
{
	struct vms *v = state;
	double *kbs = calloc((size_t)it->nthreads, sizeof(double)), sum = 0, median = 0, job_cpu, proc_cpu;
	uint64_t cows = 0, gps = 0, hpw = 0, fails = 0, sections = 0, retries = 0, ut = 0, st = 0;
	uint64_t nv = 0, niv = 0, wnv = 0, wniv = 0;
	long pnv;
	int n = it->nthreads;

	walkers_park(v);
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		pnv = ru.ru_nvcsw - v->proc_nv0;
	}
	for (int i = 0; i < n; i++) {
		const struct lab_worker *w = &it->workers[i];
		/* usemem: from its start (before the parent's prefault) to the child's report */
		uint64_t end = i < v->nworkers && v->w[i].own_end ? v->w[i].own_end : w->t_end;
		uint64_t usecs = (end - w->t_start) / 1000;
		/* usemem: bytes = prealloc'd region / 8 + 8 per access; KB/s = (bytes * 1000000 >> 10) / usecs */
		uint64_t bytes = (v->pages * HPAGE_SIZE) / 8 + 8 * w->ops;
		uint64_t k = usecs ? ((bytes * 1000000) >> 10) / usecs : 0;

		if (kbs)
			kbs[i] = (double)k;
		sum += (double)k;
		cows += w->count[0];
		nv += w->count[1];
		niv += w->count[2];
		fails += w->count[3];
		ut += w->count[4];
		st += w->count[5];
		if (i < v->nworkers) {
			gps += v->w[i].gps;
			hpw += v->w[i].hp_waits;
		}
	}
	for (int i = 0; i < v->nwalkers; i++) {
		wnv += (uint64_t)v->wk[i].nvcsw;
		wniv += (uint64_t)v->wk[i].nivcsw;
		sections += v->wk[i].sections;
		retries += v->wk[i].retries;
	}
	if (kbs) {
		qsort(kbs, (size_t)n, sizeof(double), cmp_double);
		median = n % 2 ? kbs[n / 2] : (kbs[n / 2 - 1] + kbs[n / 2]) / 2;
	}
	free(kbs);
	/* The job is the workers (the walkers stand for kernel threads, outside time(1)'s view). */
	job_cpu = it->wall_s > 0 ? 100 * (double)(ut + st) / 1e6 / it->wall_s : 0;
	proc_cpu = it->wall_s > 0 ? 100 * (it->user_s + it->sys_s) / it->wall_s : 0;
	lab_emit(sink, "vm-scalability.throughput", sum, "KB/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "vm-scalability.median", median, "KB/s", LAB_BETTER_HIGHER);
	lab_emit(sink, "time.voluntary_context_switches", (double)nv, "count", LAB_BETTER_LOWER);
	lab_emit(sink, "time.involuntary_context_switches", (double)niv, "count", LAB_BETTER_NONE);
	lab_emit(sink, "time.user_time", (double)ut / 1e6, "s", LAB_BETTER_NONE);
	lab_emit(sink, "time.system_time", (double)st / 1e6, "s", LAB_BETTER_NONE);
	lab_emit(sink, "time.elapsed_time", it->wall_s, "s", LAB_BETTER_LOWER);
	lab_emit(sink, "time.percent_of_cpu_this_job_got", job_cpu, "%", LAB_BETTER_NONE);
	/* idle: the share of the machine's CPUs the whole model (job + walkers) left unused */
	lab_emit(sink, "idle%", v->ncpus > 0 ? 100 - proc_cpu / v->ncpus : 0, "%", LAB_BETTER_LOWER);
	lab_emit(sink, "walker_voluntary_context_switches", (double)wnv, "count", LAB_BETTER_NONE);
	/*
	 * time(1) in LKP counts the whole job; time.voluntary_context_switches
	 * above is the workers' own (RUSAGE_THREAD, as usemem's children). This is
	 * the whole process over the same window (workers, walkers, liburcu's
	 * grace-period waits and the harness thread): the two side by side say
	 * how much of the switching is the workers' own.
	 */
	lab_emit(sink, "process_voluntary_context_switches", (double)pnv, "count", LAB_BETTER_NONE);
	lab_emit(sink, "walker_involuntary_context_switches", (double)wniv, "count", LAB_BETTER_NONE);
	lab_emit(sink, "cow_copies", (double)cows, "pages", LAB_BETTER_NONE);
	lab_emit(sink, "grace_periods", (double)gps, "count", LAB_BETTER_NONE);
	lab_emit(sink, "hazptr_waits", (double)hpw, "count", LAB_BETTER_NONE);
	lab_emit(sink, "walker_sections", (double)sections, "count", LAB_BETTER_NONE);
	lab_emit(sink, "walker_retries", (double)retries, "count", LAB_BETTER_NONE);
	lab_emit(sink, "alloc_failures", (double)fails, "count", LAB_BETTER_NONE);
	lab_emit(sink, "region_mb", (double)(v->pages * HPAGE_SIZE >> 20), "MiB", LAB_BETTER_NONE);
}

static void vms_teardown(void *state)
{
	struct vms *v = state;

	walkers_park(v);
	vms_free(v);
}

/* The workers and the walker threads (the walkers knob). */
static int vms_max_threads(const struct lab_workload_conf *wl, int tasks)
{
	return tasks - (int)wl->knob[K_WALKERS];
}

const struct lab_workload_ops lab_workload_vmscale = {
	.name = "vmscale",
	.simulated = true,
	.summary = "vm-scalability anon-cow-rand-hugetlb: COW of 2 MiB pages, metadata released by sync/batch/hazptr",
	.cite = "vm-scalability case-anon-cow-rand-hugetlb + usemem, LKP (docs/workloads.md §3.4, §4); hugetlb-vmemmap-sync-rcu",
	.kind = LAB_WL_WORK,
	.work_split = true,
	.knobs = vms_knobs,
	.headline = "vm-scalability.throughput",
	.max_threads = vms_max_threads,
	.setup = vms_setup,
	.prepare = vms_prepare,
	.worker = vms_worker,
	.metrics = vms_metrics,
	.teardown = vms_teardown,
	.share = vms_share,
	.unshare = vms_unshare,
	.footprint = vms_footprint,
	.size_knob = "unit_mb",
};
