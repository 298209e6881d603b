/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The address-space model: see mm.h (what is modelled) and vma_lock.h (the
 * per-VMA lock schemes). Sources: docs/kernel.md §6.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "atomic.h"
#include "compiler.h"
#include "err.h"
#include "vma_lock.h"
#include "wait.h"

const char *const lab_mm_event_names[LAB_MM_EV_NR] = {
#define LAB_MM_EV_NAME(n) #n,
	LAB_MM_EVENTS(LAB_MM_EV_NAME)
#undef LAB_MM_EV_NAME
};

const char *const lab_mm_lock_mode_names[LAB_MM_LOCK_NR] = {
#define MODE_NAME(e, name, title) [LAB_MM_LOCK_##e] = name,
	LAB_MM_LOCK_MODES(MODE_NAME, )
#undef MODE_NAME
};

const char *const lab_mm_lock_mode_titles[LAB_MM_LOCK_NR] = {
#define MODE_TITLE(e, name, title) [LAB_MM_LOCK_##e] = title,
	LAB_MM_LOCK_MODES(MODE_TITLE, )
#undef MODE_TITLE
};

const char *lab_mm_lock_mode_name(enum lab_mm_lock_mode m)
{
	return (unsigned)m < LAB_MM_LOCK_NR ? lab_mm_lock_mode_names[m] : lab_mm_lock_mode_names[LAB_MM_LOCK_MMAP];
}

void lab_mm_rcu_barrier(void)
{
	lab_rcu_thread_online();
	urcu_memb_barrier();
	lab_vma_graveyard_drain();
}

/* ---- page allocator: the modelled kernel's (kmm.c), fed with host memory --------------- */

#define CHUNK_SHIFT	21
#define CHUNK_SIZE	(1ul << CHUNK_SHIFT)
#define CHUNK_PAGES	(CHUNK_SIZE >> LAB_PAGE_SHIFT)
#define CHUNK_META	8		/* pages holding the chunk's 512 struct pages (64 bytes each) */

/* The struct page of a page: slot i of its chunk's vmemmap for page i. */
static inline struct lab_kpage *kpage(const void *page)
{
	uintptr_t chunk = (uintptr_t)page & ~(CHUNK_SIZE - 1);

	return (struct lab_kpage *)chunk + (((uintptr_t)page - chunk) >> LAB_PAGE_SHIFT);
}

static inline void *kpage_addr(const struct lab_kpage *pg)
{
	uintptr_t chunk = (uintptr_t)pg & ~(CHUNK_SIZE - 1);

	return (char *)chunk + ((size_t)(pg - (const struct lab_kpage *)chunk) << LAB_PAGE_SHIFT);
}

/* Reference count of a page: _refcount in its struct page. */
static inline uint32_t *page_ref(const void *page)
{
	return &kpage(page)->refcount;
}

int lab_page_alloc_init(struct lab_page_alloc *pa, size_t max_mb)
{
	int r;

	memset(pa, 0, sizeof(*pa));
	pa->max_chunks = max_mb ? (max_mb << 20) / CHUNK_SIZE + 1 : 0;
	r = pthread_mutex_init(&pa->lock, NULL);
	if (r)
		return -r;
	r = lab_kmm_init(&pa->k, LAB_KMM_DEFAULT, LAB_KMM_MEMCG_DEPTH);
	pa->k_ok = !r;
	/* the limit leaves room for what per-CPU lists may hold (pcp->high pages per CPU) */
	if (!r && pa->max_chunks)
		pa->max_chunks += ((size_t)pa->k.ncpus * (size_t)pa->k.zone[0].high + CHUNK_PAGES - CHUNK_META - 1) /
				  (CHUNK_PAGES - CHUNK_META);
	return r;
}

int lab_page_alloc_kernel(struct lab_page_alloc *pa, enum lab_kmm_ver ver, int memcg_depth)
{
	int r;

	if (pa->nchunks)
		return -EBUSY;
	if (pa->k_ok)
		lab_kmm_destroy(&pa->k);
	r = lab_kmm_init(&pa->k, ver, memcg_depth);
	pa->k_ok = !r;
	return r;
}

/* Map one more chunk for node @node; its pages (linked through next) in *@list. Caller holds pa->lock. */
static int page_alloc_grow(struct lab_page_alloc *pa, struct lab_kpage **list)
{
	char *raw, *chunk;
	size_t lead;

	if (pa->max_chunks && pa->nchunks >= pa->max_chunks)
		return -ENOMEM;
	if (pa->nchunks == pa->cap_chunks) {
		size_t cap = pa->cap_chunks ? 2 * pa->cap_chunks : 16;
		void **c = realloc(pa->chunks, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		pa->chunks = c;
		pa->cap_chunks = cap;
	}
	raw = mmap(NULL, 2 * CHUNK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return -ENOMEM;
	chunk = (char *)(((uintptr_t)raw + CHUNK_SIZE - 1) & ~(CHUNK_SIZE - 1));
	lead = (size_t)(chunk - raw);
	if (lead)
		munmap(raw, lead);
	munmap(chunk + CHUNK_SIZE, CHUNK_SIZE - lead);
	/* Pre-fault every page (the host's faults are not part of what we measure). */
	for (size_t i = 0; i < CHUNK_PAGES; i++)
		chunk[i << LAB_PAGE_SHIFT] = 0;
	*list = NULL;
	for (size_t i = CHUNK_PAGES - 1; i >= CHUNK_META; i--) {
		struct lab_kpage *pg = (struct lab_kpage *)chunk + i;

		memset(pg, 0, sizeof(*pg));
		pg->next = *list;
		*list = pg;
	}
	pa->chunks[pa->nchunks++] = chunk;
	return 0;
}

/* One more chunk of free pages for node @node's zone (no seam call under the mutex). */
static int page_alloc_supply(struct lab_page_alloc *pa, int node)
{
	struct lab_kpage *list, *arr[CHUNK_PAGES];
	size_t n = 0;
	int r;

	pthread_mutex_lock(&pa->lock);
	r = page_alloc_grow(pa, &list);
	pthread_mutex_unlock(&pa->lock);
	if (r)
		return r;
	for (; list; list = list->next)
		arr[n++] = list;
	lab_kmm_zone_add(&pa->k, node, arr, n);
	return 0;
}

int lab_page_alloc_reserve(struct lab_page_alloc *pa, size_t npages)
{
	size_t have = lab_page_alloc_free(pa);
	int r = 0;

	for (int node = 0; have < npages && !r; node = (node + 1) % pa->k.nnodes) {
		r = page_alloc_supply(pa, node);
		have += CHUNK_PAGES - CHUNK_META;
	}
	return r;
}

void lab_page_alloc_destroy(struct lab_page_alloc *pa)
{
	for (size_t i = 0; i < pa->nchunks; i++)
		munmap(pa->chunks[i], CHUNK_SIZE);
	free(pa->chunks);
	if (pa->k_ok)
		lab_kmm_destroy(&pa->k);
	pthread_mutex_destroy(&pa->lock);
	memset(pa, 0, sizeof(*pa));
}

size_t lab_page_alloc_pages(struct lab_page_alloc *pa)
{
	size_t n;

	pthread_mutex_lock(&pa->lock);
	n = pa->nchunks * (CHUNK_PAGES - CHUNK_META);
	pthread_mutex_unlock(&pa->lock);
	return n;
}

size_t lab_page_alloc_free(struct lab_page_alloc *pa)
{
	size_t n = 0;

	for (int i = 0; i < pa->k.nnodes; i++)
		n += (size_t)READ_ONCE(pa->k.zone[i].nr_free);
	return n;
}

void lab_page_alloc_drain(struct lab_page_alloc *pa)
{
	struct lab_kmm *k = &pa->k;

	for (int i = 0; i < k->ncpus; i++) {
		struct lab_kcpu *c = &k->cpu[i];

		lab_kmm_lru_drain(k, c);
		while (c->pcp_count) {
			int n = c->pcp_count;

			/* free_pcppages_bulk through pcp_free's high: push the list back one page at a time */
			struct lab_kpage *pg = c->pcp.prev, *hp = (struct lab_kpage *)&c->pcp;
			struct lab_kzone *z = &k->zone[pg->node % (uint32_t)k->nnodes];

			if (pg->prev == hp)	/* the head is a struct lab_klist, not a page: no page member through it */
				c->pcp.next = hp;
			else
				pg->prev->next = hp;
			c->pcp.prev = pg->prev;
			c->pcp_count = n - 1;
			pg->next = z->free.next;
			pg->prev = (struct lab_kpage *)&z->free;
			if (z->free.next == (struct lab_kpage *)&z->free)
				z->free.prev = pg;
			else
				z->free.next->prev = pg;
			z->free.next = pg;
			z->nr_free++;
		}
	}
}

void lab_mm_thread_init(struct lab_mm_thread *t, struct lab_page_alloc *pa)
{
	memset(t, 0, sizeof(*t));
	t->pa = pa;
}

static void rss_task_sync(struct lab_mm_thread *t);

void lab_mm_thread_drain(struct lab_mm_thread *t)
{
	rss_task_sync(t);
}

/*
 * A free page from the CPU's pcp list (rmqueue_pcplist and its refill under
 * zone->lock), with one reference; its zone grows by a chunk when empty.
 */
static void *page_alloc(struct lab_mm_thread *t)
{
	struct lab_page_alloc *pa = t->pa;
	struct lab_kmm *k = &pa->k;

	for (;;) {
		struct lab_kcpu *c = lab_kcpu_get(k);
		struct lab_kpage *pg = lab_kmm_pcp_alloc(k, c);
		int node = c->node;

		lab_kcpu_put(k, c);
		if (pg) {
			pg->flags = 0;
			pg->charged = 0;
			/*
			 * Release: whatever happened before the page was freed (the entry
			 * that stopped mapping it, its last page_put) happens before a reuse
			 * that page_try_pin()'s fully ordered increment can observe; the
			 * pinner's re-check of its entry then sees that the entry moved on.
			 */
			smp_store_release(&pg->refcount, 1u);
			return kpage_addr(pg);
		}
		if (page_alloc_supply(pa, node))
			return NULL;
	}
}

/* The last reference is gone: off the LRU, uncharged, onto this CPU's pcp list. */
static void page_free(struct lab_mm_thread *t, void *page)
{
	struct lab_kmm *k = &t->pa->k;
	struct lab_kcpu *c = lab_kcpu_get(k);

	lab_kmm_page_release(k, c, kpage(page));
	lab_kcpu_put(k, c);
}

static inline void page_get(void *page)
{
	atomic_fetch_add_relaxed(page_ref(page), 1u);
}

static void page_put(struct lab_mm_thread *t, void *page)
{
	/* Release/acquire: every user's accesses happen before the page is reused. */
	if (atomic_sub_return_release(page_ref(page), 1u) == 0) {
		smp_acquire__after_ctrl_dep();
		page_free(t, page);
	}
}

/* ---- the pieces of v6.2's do_anonymous_page (mm/memory.c:4024-4133) --------------------- */

/* mem_cgroup_charge() of a new page (memcontrol.c:6921): the stock, the page_counters, the stats. */
static void page_charge(struct lab_kmm *k, void *page)
{
	struct lab_kcpu *c = lab_kcpu_get(k);

	lab_kpath_charge(KP_CHARGE, 1);
	lab_kmm_charge(k, c, 1);
	lab_kmm_memcg_stat(k, c, MSTAT_PGPGIN, 1);	/* mem_cgroup_charge_statistics */
	kpage(page)->charged = 1;
	lab_kcpu_put(k, c);
}

/* A new page for a mapping: allocated, zeroed (clear_page) or filled by the caller, charged. */
static void *page_new(struct lab_mm_thread *t, bool zero)
{
	void *p = page_alloc(t);

	if (!p)
		return NULL;
	if (zero) {
		memset(p, 0, LAB_PAGE_SIZE);
		lab_kernel_work(LAB_KWORK_CLEAR_PAGE);
	}
	page_charge(&t->pa->k, p);
	return p;
}

/* v5.x rss cache of the task's own mm (task->rss_stat), synced to it at exit (sync_mm_rss). */
static void rss_task_sync(struct lab_mm_thread *t)
{
	if (t->rss_mm && t->kt.rss) {
		lab_kmm_rss_add(&t->pa->k, NULL, &t->rss_mm->rss, NULL, t->kt.rss);
		t->kt.rss = 0;
	}
}

/* add_mm_counter_fast(mm, MM_ANONPAGES, delta) by the profile (v5.x task cache, v6.2 percpu_counter). */
static void rss_add(struct lab_mm *mm, struct lab_kcpu *c, struct lab_mm_thread *t, long delta)
{
	struct lab_kmm *k = &mm->pa->k;

	if (t && !t->rss_mm)
		t->rss_mm = mm;		/* its first mm is its own */
	lab_kmm_rss_add(k, c, &mm->rss, t && t->rss_mm == mm ? &t->kt : NULL, delta);
}

/* The mapped half, under the PTE lock: rss, page_add_new_anon_rmap, lru_cache_add (4115-4117). */
static void anon_page_mapped(struct lab_mm *mm, void *page, struct lab_mm_thread *t)
{
	struct lab_kmm *k = &mm->pa->k;
	struct lab_kcpu *c = lab_kcpu_get(k);
	struct lab_kpage *pg = kpage(page);

	rss_add(mm, c, t, 1);
	lab_kpath_charge(KP_RMAP, 1);
	WRITE_ONCE(pg->flags, pg->flags | LAB_KPG_ANON);
	lab_kmm_vmstat(k, c, KSTAT_ANON, 1);		/* __lruvec_stat_mod_folio(NR_ANON_MAPPED) */
	lab_kmm_memcg_stat(k, c, MSTAT_ANON, 1);
	lab_kpath_charge(KP_LRU_ADD, 1);
	lab_kmm_lru_add(k, c, pg);
	lab_kcpu_put(k, c);
}

/* ---- page tables: the PMD pages (split PMD locks) and PTE pages (split PTE locks) ---------- */

static inline raw_spinlock_t *mm_page_table_lock(struct lab_mm *mm)
{
	return (raw_spinlock_t *)(mm->rss.image + mm->pa->k.p->mm_ptl);
}

static inline long *mm_pgtables_bytes(struct lab_mm *mm)
{
	return (long *)(mm->rss.image + mm->pa->k.p->mm_pgtables);
}

/* A page-table page: allocated, zeroed and charged (__GFP_ACCOUNT), counted. */
static struct lab_kpage *pt_page_new(struct lab_mm *mm, struct lab_mm_thread *t)
{
	struct lab_kmm *k = &mm->pa->k;
	void *p = page_new(t, true);
	struct lab_kcpu *c;

	if (!p)
		return NULL;
	c = lab_kcpu_get(k);
	lab_kmm_vmstat(k, c, KSTAT_PAGETABLE, 1);
	lab_kmm_event(k, c, LAB_KMM_EV_pte_page, 1);
	lab_kcpu_put(k, c);
	raw_spin_lock_init(&kpage(p)->ptl);
	return kpage(p);
}

static void pt_page_free(struct lab_mm *mm, struct lab_kpage *pg, struct lab_mm_thread *t)
{
	struct lab_kmm *k = &mm->pa->k;
	struct lab_kcpu *c = lab_kcpu_get(k);

	lab_kmm_vmstat(k, c, KSTAT_PAGETABLE, -1);
	lab_kcpu_put(k, c);
	atomic_fetch_sub_relaxed(mm_pgtables_bytes(mm), (long)LAB_PAGE_SIZE);
	page_put(t, kpage_addr(pg));
}

/*
 * The PMD page of @addr's 1 GiB region, allocated under page_table_lock when
 * missing (__pmd_alloc: pud_lock is mm->page_table_lock, include/linux/mm.h:2614).
 */
static struct lab_kpage *pmd_page(struct lab_mm *mm, uintptr_t addr, struct lab_mm_thread *t)
{
	uint64_t key = (addr >> 30) + 1;
	unsigned h = (unsigned)(key * 0x9e3779b97f4a7c15ull >> 58);
	struct lab_kpage *pg, *np = NULL;

	for (unsigned i = 0; i < LAB_MM_PMD_SLOTS; i++) {
		unsigned s = (h + i) % LAB_MM_PMD_SLOTS;

		pg = smp_load_acquire(&mm->pmd[s]);
		if (pg && READ_ONCE(pg->pt_key) == key)
			goto out;
		if (pg)
			continue;
		/* free slot: allocate, then install under page_table_lock (it may be taken meanwhile) */
		if (!np && !(np = pt_page_new(mm, t)))
			return NULL;
		np->pt_key = key;
		raw_spin_lock(mm_page_table_lock(mm));
		pg = READ_ONCE(mm->pmd[s]);
		if (!pg) {
			atomic_fetch_add_relaxed(mm_pgtables_bytes(mm), (long)LAB_PAGE_SIZE);	/* mm_inc_nr_pmds */
			smp_store_release(&mm->pmd[s], np);
			pg = np;
			np = NULL;
		}
		raw_spin_unlock(mm_page_table_lock(mm));
		if (READ_ONCE(pg->pt_key) == key)
			goto out;
	}
	abort();	/* more than LAB_MM_PMD_SLOTS GiB of address space faulted: raise the limit */
out:
	if (np)
		pt_page_free(mm, np, t);
	return pg;
}

/*
 * pte_offset_map_lock(): the PTE page mapping @addr, allocated when missing
 * (__pte_alloc + pmd_install under the split PMD lock, mm/memory.c:393-429:
 * pgtables_bytes goes up), returned locked (its split PTE lock).
 */
static struct lab_kpage *pte_lock(struct lab_mm *mm, uintptr_t addr, struct lab_mm_thread *t)
{
	struct lab_kpage *pmd = pmd_page(mm, addr, t), *pte, *np;
	struct lab_kpage **entry;

	if (!pmd)
		return NULL;
	entry = (struct lab_kpage **)kpage_addr(pmd) + ((addr >> 21) & 511);
	pte = smp_load_acquire(entry);
	if (!pte) {
		lab_kpath_charge(KP_PTE_ALLOC, 1);
		if (!(np = pt_page_new(mm, t)))
			return NULL;
		raw_spin_lock(&pmd->ptl);
		pte = READ_ONCE(*entry);
		if (!pte) {
			atomic_fetch_add_relaxed(mm_pgtables_bytes(mm), (long)LAB_PAGE_SIZE);	/* mm_inc_nr_ptes */
			smp_store_release(entry, np);			/* pmd_populate */
			pte = np;
			np = NULL;
		}
		raw_spin_unlock(&pmd->ptl);
		if (np)
			pt_page_free(mm, np, t);
	}
	lab_kpath_charge(KP_PTL, 1);
	raw_spin_lock(&pte->ptl);
	return pte;
}

/* Every page-table page of @mm (exit_mmap's free_pgtables). Nobody else uses the mm. */
static void pt_free_all(struct lab_mm *mm, struct lab_mm_thread *t)
{
	for (int s = 0; s < LAB_MM_PMD_SLOTS; s++) {
		struct lab_kpage *pmd = mm->pmd[s];

		if (!pmd)
			continue;
		for (int i = 0; i < 512; i++) {
			struct lab_kpage *pte = ((struct lab_kpage **)kpage_addr(pmd))[i];

			if (pte)
				pt_page_free(mm, pte, t);
		}
		pt_page_free(mm, pmd, t);
		mm->pmd[s] = NULL;
	}
}

/*
 * free_pgtables() for [start, end): the PTE pages of 2 MiB regions entirely
 * inside it (no VMA maps them any more). Caller holds mmap_lock for write.
 */
static void pt_free_range(struct lab_mm *mm, uintptr_t start, uintptr_t end, struct lab_mm_thread *t)
{
	uintptr_t a = (start + (1ul << 21) - 1) & ~((1ul << 21) - 1);

	for (; a + (1ul << 21) <= end; a += 1ul << 21) {
		uint64_t key = (a >> 30) + 1;
		unsigned h = (unsigned)(key * 0x9e3779b97f4a7c15ull >> 58);

		for (unsigned i = 0; i < LAB_MM_PMD_SLOTS; i++) {
			struct lab_kpage *pmd = READ_ONCE(mm->pmd[(h + i) % LAB_MM_PMD_SLOTS]);
			struct lab_kpage **entry, *pte;

			if (!pmd)
				break;
			if (READ_ONCE(pmd->pt_key) != key)
				continue;
			entry = (struct lab_kpage **)kpage_addr(pmd) + ((a >> 21) & 511);
			raw_spin_lock(&pmd->ptl);
			pte = READ_ONCE(*entry);
			WRITE_ONCE(*entry, (struct lab_kpage *)NULL);
			raw_spin_unlock(&pmd->ptl);
			if (pte)
				pt_page_free(mm, pte, t);
			break;
		}
	}
}

/*
 * page_try_pin() - take a reference on the page that entry @e of @slot
 * mapped when the fault path picked it, so it cannot be freed while we use it.
 * This is GUP-fast's pin (mm/gup.c, gup_fast_pte_range: try_grab_folio_fast,
 * i.e. get_page_unless_zero, then compare the PTE with what it read):
 *  - holding the VMA lock or mmap_lock for *read* does not keep the entry:
 *    another thread's write fault may copy-on-write the page, installing a
 *    copy and dropping this mm's reference, and the last other owner (a
 *    forked child exiting) may then free it, or write into it in place;
 *  - so take a reference only if the count is not already zero (a freed
 *    page's refcount word stays readable: chunks live as long as the
 *    allocator, the way struct page outlives the page's use), then check that
 *    the entry still maps the page: if not, the reference may be on a page
 *    that was freed and reused since, or on our old copy-on-write page; drop
 *    it and let the caller fault again.
 * Returns true with a reference held (page_put() when done with the page).
 */
static bool page_try_pin(uintptr_t *slot, uintptr_t e, struct lab_mm_thread *t)
{
	void *page = (void *)(e & ~LAB_PTE_FLAGS);

	/* Fully ordered: the increment before the re-read of the entry (pairs with page_alloc()'s release). */
	if (!atomic_inc_not_zero(page_ref(page)))
		return false;
	if (lab_likely(READ_ONCE(*slot) == e))
		return true;
	page_put(t, page);
	return false;
}

/* ---- files ---------------------------------------------------------------------------- */

int lab_mm_file_init(struct lab_mm_file *f, size_t npages, struct lab_page_alloc *pa,
		     void (*fill)(void *arg, size_t pgoff, void *page), void *arg)
{
	memset(f, 0, sizeof(*f));
	f->page = calloc(npages ? npages : 1, sizeof(*f->page));
	if (!f->page)
		return -ENOMEM;
	f->npages = npages;
	f->fill = fill;
	f->arg = arg;
	f->pa = pa;
	f->refs = 1;
	return 0;
}

struct lab_mm_file *lab_mm_file_new(size_t npages, struct lab_page_alloc *pa,
				    void (*fill)(void *arg, size_t pgoff, void *page), void *arg)
{
	/* a line of its own: no simulated false sharing with its neighbours on the heap */
	size_t sz = (sizeof(struct lab_mm_file) + 63) & ~(size_t)63;
	struct lab_mm_file *f = aligned_alloc(64, sz);

	if (!f)
		return NULL;
	if (lab_mm_file_init(f, npages, pa, fill, arg)) {
		free(f);
		return NULL;
	}
	f->dynamic = true;
	return f;
}

int lab_mm_file_i_mmap(struct lab_mm_file *f, const struct lab_rwsem_conf *conf)
{
	int r = lab_lock_init(&f->i_mmap_rwsem, conf);

	f->i_mmap_ok = !r;
	return r;
}

/* The last reference went: free the page cache (and the file, if lab_mm_file_new() made it). */
static void file_release(struct lab_mm_file *f, struct lab_mm_thread *t)
{
	bool dynamic = f->dynamic;

	if (f->i_mmap_ok)
		lab_lock_destroy(&f->i_mmap_rwsem);
	for (size_t i = 0; f->page && i < f->npages; i++)
		if (f->page[i])
			page_put(t, (void *)f->page[i]);
	free(f->page);
	memset(f, 0, sizeof(*f));
	if (dynamic)
		free(f);
}

/*
 * fput(). The count is the file's own bookkeeping, made with plain host
 * atomics: under --sim it is not a modelled access (the kernel's f_count
 * atomic per fork and exit of a file mapping is a gap of the mm model, as is
 * the struct file line it bounces).
 */
static void file_put(struct lab_mm_file *f, struct lab_mm_thread *t)
{
	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0)
		file_release(f, t);
}

void lab_mm_file_destroy(struct lab_mm_file *f, struct lab_mm_thread *t)
{
	if (!f->dynamic && __atomic_load_n(&f->refs, __ATOMIC_ACQUIRE) != 1) {
		lab_err("mm model: a file of %zu pages destroyed with %ld mappings left", f->npages,
			__atomic_load_n(&f->refs, __ATOMIC_ACQUIRE) - 1);
		abort();
	}
	file_put(f, t);
}

/* ---- the VMA set ---------------------------------------------------------------------- */

static inline size_t vma_pages(const struct lab_vma *vma)
{
	return (vma->vm_end - vma->vm_start) >> LAB_PAGE_SHIFT;
}

static struct lab_vma_tree *tree_alloc(int n)
{
	struct lab_vma_tree *t = malloc(sizeof(*t) + (size_t)(n ? n : 1) * sizeof(t->v[0]));

	if (t)
		t->n = n;
	return t;
}

static void tree_free_rcu(struct rcu_head *head)
{
	free(lab_container_of(head, struct lab_vma_tree, rcu));
}

/* Index of the first VMA with vm_end > addr in @mt (writer side: no concurrent change). */
static int tree_index(const struct lab_vma_tree *mt, uintptr_t addr)
{
	int lo = 0, hi = mt->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (mt->v[mid]->vm_end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int vma_cmp(const void *a, const void *b)
{
	const struct lab_vma *x = *(struct lab_vma *const *)a, *y = *(struct lab_vma *const *)b;

	return x->vm_start < y->vm_start ? -1 : x->vm_start > y->vm_start;
}

/*
 * Publish a new VMA set: the current one minus @old plus @add. Caller holds
 * mmap_lock for write; the old array is freed after a grace period (lockless
 * walkers may still be searching it). Returns 0 or -ENOMEM (nothing changed).
 */
static int tree_replace(struct lab_mm *mm, struct lab_vma **old, int nold, struct lab_vma **add, int nadd)
{
	struct lab_vma_tree *cur = mm->mt, *nt = tree_alloc(cur->n - nold + nadd);
	int k = 0;

	if (!nt)
		return -ENOMEM;
	for (int i = 0; i < cur->n; i++) {
		bool gone = false;

		for (int j = 0; j < nold && !gone; j++)
			gone = cur->v[i] == old[j];
		if (!gone)
			nt->v[k++] = cur->v[i];
	}
	for (int j = 0; j < nadd; j++)
		nt->v[k++] = add[j];
	qsort(nt->v, (size_t)k, sizeof(nt->v[0]), vma_cmp);
	/* rcu_assign_pointer: the array's contents before the pointer (pairs with lab_vma_lookup). */
	smp_store_release(&mm->mt, nt);
	if (mm->mode == LAB_MM_LOCK_MMAP)
		free(cur);		/* only mmap_lock holders read it */
	else
		urcu_memb_call_rcu(&cur->rcu, tree_free_rcu);
	return 0;
}

struct lab_vma *lab_mm_find_vma(struct lab_mm *mm, uintptr_t addr)
{
	struct lab_vma_tree *mt = mm->mt;
	int i = tree_index(mt, addr);

	return i < mt->n ? mt->v[i] : NULL;
}

int lab_mm_map_count(struct lab_mm *mm)
{
	return mm->mt->n;
}

/* ---- VMA objects ------------------------------------------------------------------------ */

/* Grow @vma's page table to at least @pages entries (new entries empty). */
static int pte_reserve(struct lab_vma *vma, size_t pages)
{
	size_t cap = vma->pte_cap;
	uintptr_t *p;

	if (pages <= cap)
		return 0;
	cap = cap * 2 > pages ? cap * 2 : pages;
	p = realloc(vma->pte, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + vma->pte_cap, 0, (cap - vma->pte_cap) * sizeof(*p));
	vma->pte = p;
	vma->pte_cap = cap;
	return 0;
}

/*
 * A new VMA, write-locked in the current mmap_lock session (readers cannot
 * use it before mmap_write_unlock), not yet attached. Caller holds mmap_lock
 * for write.
 */
static struct lab_vma *vma_new(struct lab_mm *mm, uintptr_t start, uintptr_t end, unsigned long flags,
			       struct lab_mm_file *file, size_t pgoff)
{
	struct lab_vma *vma = lab_vma_obj_alloc(mm);

	if (!vma)
		return NULL;
	if (pte_reserve(vma, (end - start) >> LAB_PAGE_SHIFT)) {
		lab_vma_obj_free(mm, vma, false);
		return NULL;
	}
	vma->vm_flags = flags;
	vma->vm_file = file;
	vma->vm_pgoff = pgoff;
	WRITE_ONCE(vma->vm_start, start);
	WRITE_ONCE(vma->vm_end, end);
	WRITE_ONCE(vma->vm_lock_seq, *lab_mm_lock_seq(mm));
	return vma;
}

/*
 * A copy of [start, end) of @src with @flags; the page-table entries of that
 * range move to the copy (src keeps zeroes there). Caller holds mmap_lock for
 * write and has write-locked @src.
 */
static struct lab_vma *vma_carve(struct lab_mm *mm, struct lab_vma *src, uintptr_t start, uintptr_t end,
				 unsigned long flags)
{
	size_t off = (start - src->vm_start) >> LAB_PAGE_SHIFT;
	struct lab_vma *vma = vma_new(mm, start, end, flags, src->vm_file,
				      src->vm_file ? src->vm_pgoff + off : 0);

	if (!vma)
		return NULL;
	vma->anon_vma = src->anon_vma;
	memcpy(vma->pte, src->pte + off, vma_pages(vma) * sizeof(uintptr_t));
	memset(src->pte + off, 0, vma_pages(vma) * sizeof(uintptr_t));
	return vma;
}

/* Undo vma_carve() (allocation failed later): entries go back to @src. */
static void vma_uncarve(struct lab_mm *mm, struct lab_vma *src, struct lab_vma *vma)
{
	size_t off = (vma->vm_start - src->vm_start) >> LAB_PAGE_SHIFT;

	memcpy(src->pte + off, vma->pte, vma_pages(vma) * sizeof(uintptr_t));
	lab_vma_obj_free(mm, vma, false);
}

/* tlb_finish_mmu()'s release_pages(): a gathered batch off the LRU, uncharged once, freed. */
static void release_batch(struct lab_kmm *k, struct lab_kpage **pg, int n)
{
	struct lab_kcpu *c;
	unsigned long charged = 0;

	if (!n)
		return;
	c = lab_kcpu_get(k);
	lab_kmm_lru_del(k, c, pg, n);
	for (int i = 0; i < n; i++) {
		charged += pg[i]->charged;
		pg[i]->charged = 0;
		WRITE_ONCE(pg[i]->flags, 0u);
	}
	lab_kpath_charge(KP_UNCHARGE, (double)charged);
	lab_kmm_uncharge(k, charged);		/* uncharge_batch: one page_counter_uncharge */
	for (int i = 0; i < n; i++) {
		lab_kpath_charge(KP_FREE, 1);
		lab_kmm_pcp_free(k, c, pg[i]);
	}
	lab_kcpu_put(k, c);
}

#define ZAP_BATCH 512

/*
 * Clear [start, end) of @vma's page table and drop the pages (zap_pte_range:
 * page_remove_rmap, the rss update once per range, the freed pages gathered and
 * released in batches). No fault may run on it.
 */
static void zap_range(struct lab_vma *vma, uintptr_t start, uintptr_t end, struct lab_mm_thread *t)
{
	struct lab_mm *mm = vma->vm_mm;
	struct lab_kmm *k = &mm->pa->k;
	struct lab_kpage *batch[ZAP_BATCH];
	int n = 0;
	long anon = 0;

	for (uintptr_t a = start; a < end; a += LAB_PAGE_SIZE) {
		uintptr_t *slot = &vma->pte[(a - vma->vm_start) >> LAB_PAGE_SHIFT];
		uintptr_t e = atomic_xchg_relaxed(slot, (uintptr_t)0);
		void *page;

		if (!e)
			continue;
		lab_kpath_charge(KP_ZAP, 1);
		if (e & LAB_PTE_FILE)
			continue;
		anon++;
		page = (void *)(e & ~LAB_PTE_FLAGS);
		if (atomic_sub_return_release(page_ref(page), 1u) == 0) {
			smp_acquire__after_ctrl_dep();
			batch[n++] = kpage(page);
			if (n == ZAP_BATCH) {
				release_batch(k, batch, n);
				n = 0;
			}
		}
	}
	if (anon) {
		struct lab_kcpu *c = lab_kcpu_get(k);

		rss_add(mm, c, NULL, -anon);		/* add_mm_rss_vec */
		lab_kmm_vmstat(k, c, KSTAT_ANON, -anon);
		lab_kmm_memcg_stat(k, c, MSTAT_ANON, -anon);
		lab_kcpu_put(k, c);
	}
	release_batch(k, batch, n);
	(void)t;
}

/* vma_link_file / dup_mmap: the new mapping goes into its file's i_mmap under i_mmap_rwsem for write. */
static void i_mmap_link(struct lab_vma *vma)
{
	struct lab_mm_file *f = vma->vm_file;

	if (!f || !f->i_mmap_ok)
		return;
	lab_down_write(&f->i_mmap_rwsem);
	vma->i_mmap_prev = NULL;
	vma->i_mmap_next = f->i_mmap;
	if (f->i_mmap)
		f->i_mmap->i_mmap_prev = vma;
	f->i_mmap = vma;
	f->i_mmap_count++;
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);	/* get_file(): the caller holds one */
	lab_up_write(&f->i_mmap_rwsem);
}

/*
 * unlink_file_vma: out of its file's i_mmap under i_mmap_rwsem for write;
 * then remove_vma's fput(), which frees the file if it was the last
 * reference (its pages through @t: NULL only where another reference is
 * sure to remain, as mprotect's, whose new pieces were linked first).
 */
static void i_mmap_unlink(struct lab_vma *vma, struct lab_mm_thread *t)
{
	struct lab_mm_file *f = vma->vm_file;

	if (!f || !f->i_mmap_ok)
		return;
	lab_down_write(&f->i_mmap_rwsem);
	if (vma->i_mmap_prev)
		vma->i_mmap_prev->i_mmap_next = vma->i_mmap_next;
	else
		f->i_mmap = vma->i_mmap_next;
	if (vma->i_mmap_next)
		vma->i_mmap_next->i_mmap_prev = vma->i_mmap_prev;
	f->i_mmap_count--;
	lab_up_write(&f->i_mmap_rwsem);
	file_put(f, t);
}

/* A new VMA goes live: in the tree (done by the caller), attached, in its file's i_mmap. */
static void vma_attach(struct lab_mm *mm, struct lab_vma *vma)
{
	lab_vma_mark_attached(mm, vma);
	i_mmap_link(vma);
}

/* Take a write-locked VMA out of service: detach it, then free it (RCU-deferred where readers may look). */
static void vma_retire(struct lab_mm *mm, struct lab_vma *vma, struct lab_mm_thread *t)
{
	i_mmap_unlink(vma, t);
	lab_vma_mark_detached(mm, vma);
	lab_vma_obj_free(mm, vma, true);
}

static inline void tlb_flush_mm(struct lab_mm *mm)
{
	/* Release: page-table changes before the generation other threads' utlbs compare. */
	atomic_fetch_add_release(&mm->tlb_gen, 1u);
}

/* ---- mm lifetime ---------------------------------------------------------------------------- */

#define LAB_MMAP_BASE	0x7f0000000000ul	/* mmap area, grows up, addresses never reused */
#define LAB_BRK_BASE	0x000010000000ul	/* program break reservations, grow up */
#define LAB_BRK_MAX	(1ul << 30)		/* the mm's own break may grow 1 GiB */

/*
 * The mmap_lock where the cited kernel has it: inside the mm_struct image at
 * the profile's offset (kmm.c), so its count shares a line with what the
 * kernel puts beside it -- v5.0 and v6.2: pgd, mm_users, mm_count,
 * pgtables_bytes, page_table_lock (count @112 on the line from 64); v5.12
 * and v6.4: count @128, a line of its own with mmlist and (v6.4, in vma mode:
 * lab_mm_lock_seq()) mm_lock_seq.
 * A variant whose state is not the kernel's rw_semaphore layout
 * (no LAB_CAP_EMBED) gets a line-aligned object of its own, as before.
 */
static int mmap_lock_init(struct lab_mm *mm, const struct lab_rwsem_conf *lock)
{
	const struct lab_kmm_profile *p = mm->pa->k.p;

	if (!(lock->ops->caps & LAB_CAP_EMBED) || lock->ops->size > p->mm_rss - p->mm_mmap_lock)
		return lab_lock_init(&mm->mmap_lock, lock);
	return lab_lock_init_at(&mm->mmap_lock, lock, mm->rss.image + p->mm_mmap_lock,
				p->mm_rss - p->mm_mmap_lock);
}

static bool mmap_lock_embedded(const struct lab_mm *mm)
{
	return (char *)mm->mmap_lock.sem == mm->rss.image + mm->pa->k.p->mm_mmap_lock;
}

/* Does mm_lock_seq live in the image (lab_mm_lock_seq())? After mmap_lock_init(). */
static bool mm_lock_seq_in_image(const struct lab_mm *mm)
{
	const struct lab_kmm_profile *p = mm->pa->k.p;

	if (mm->mode != LAB_MM_LOCK_VMA || !p->mm_lock_seq)
		return false;
	return !mmap_lock_embedded(mm) ||
	       lab_lock_embed_free(mm->mmap_lock.ops, p->mm_lock_seq - p->mm_mmap_lock, sizeof(uint32_t));
}

int lab_mm_init(struct lab_mm *mm, const struct lab_rwsem_conf *lock, enum lab_mm_lock_mode mode,
		struct lab_page_alloc *pa)
{
	int r;

	lab_rcu_thread_online();
	memset(mm, 0, sizeof(*mm));
	if (mode == LAB_MM_LOCK_VMA && !lock->ops->down_read_trylock)
		return -EINVAL;		/* v6.4 per-VMA locks are taken with down_read_trylock */
	mm->mode = mode;
	mm->lock_conf = lock;
	mm->pa = pa;
	lab_mm_set_vma_lock_place(mm, LAB_VMA_LOCK_KERNEL);
	mm->mmap_base = LAB_MMAP_BASE;
	mm->brk_base = LAB_BRK_BASE;
	mm->mt = tree_alloc(0);
	if (!mm->mt)
		return -ENOMEM;
	r = lab_kmm_rss_init(&pa->k, &mm->rss);
	if (r) {
		free(mm->mt);
		return r;
	}
	r = mmap_lock_init(mm, lock);
	if (r) {
		lab_kmm_rss_destroy(&mm->rss);
		free(mm->mt);
		return r;
	}
	raw_spin_lock_init(mm_page_table_lock(mm));
	mm->mm_lock_seq_in_image = mm_lock_seq_in_image(mm);
	*lab_mm_lock_seq(mm) = 0;	/* mm_init() */
	lab_mm_brk_reserve(mm, &mm->brk, LAB_BRK_MAX);
	return 0;
}

void lab_mm_set_vma_lock_place(struct lab_mm *mm, enum lab_vma_lock_place place)
{
	const struct lab_kmm_profile *p = mm->pa->k.p;

	if (place == LAB_VMA_LOCK_KERNEL)
		place = p->vma_lock_embed ? LAB_VMA_LOCK_INSIDE : p->vma_lock_slab ? LAB_VMA_LOCK_SLAB
										  : LAB_VMA_LOCK_APART;
	mm->vma_lock_place = (uint8_t)place;
}

void lab_mm_destroy(struct lab_mm *mm, struct lab_mm_thread *t)
{
	struct lab_vma_tree *mt = mm->mt;

	if (!mt)
		return;
	lab_rcu_thread_online();
	lab_mmap_write_lock(mm);
	for (int i = 0; i < mt->n; i++) {
		struct lab_vma *vma = mt->v[i];

		lab_vma_start_write(mm, vma);
		zap_range(vma, vma->vm_start, vma->vm_end, t);
		i_mmap_unlink(vma, t);		/* exit_mmap -> free_pgtables -> unlink_file_vma */
		lab_vma_mark_detached(mm, vma);
		/* Nobody walks this mm any more; refcnt VMAs still go back to the type-stable cache. */
		lab_vma_obj_free(mm, vma, false);
	}
	mm->mt = NULL;
	if (t->rss_mm == mm) {		/* the exiting task's rss cache (sync_mm_rss in exit_mm) */
		rss_task_sync(t);
		t->rss_mm = NULL;
	}
	pt_free_all(mm, t);
	lab_mmap_write_unlock(mm);
	free(mt);
	if (mmap_lock_embedded(mm))
		lab_lock_destroy_at(&mm->mmap_lock);
	else
		lab_lock_destroy(&mm->mmap_lock);
	lab_kmm_rss_destroy(&mm->rss);
}

int lab_mm_dup(struct lab_mm *child, struct lab_mm *parent, struct lab_mm_thread *t)
{
	struct lab_vma_tree *pt, *ct;
	int n, made = 0;
	long anon = 0;
	uintptr_t region;

	lab_rcu_thread_online();
	lab_mmap_write_lock(parent);
	lab_mmap_write_lock(child);	/* new VMAs are write-locked until the child's unlock */
	pt = parent->mt;
	n = pt->n;
	ct = tree_alloc(n);
	if (!ct)
		goto nomem;
	for (; made < n; made++) {
		struct lab_vma *pv = pt->v[made], *cv;
		bool cow = !(pv->vm_flags & LAB_VM_SHARED);

		lab_vma_start_write(parent, pv);
		cv = vma_new(child, pv->vm_start, pv->vm_end, pv->vm_flags, pv->vm_file, pv->vm_pgoff);
		if (!cv)
			goto nomem;
		cv->anon_vma = pv->anon_vma;
		region = UINTPTR_MAX;
		for (size_t i = 0; i < vma_pages(pv); i++) {
			uintptr_t e = pv->pte[i], a = pv->vm_start + (i << LAB_PAGE_SHIFT);

			if (!e)
				continue;
			/* copy_pte_range: the child's PTE page for each 2 MiB with entries */
			if (a >> 21 != region) {
				region = a >> 21;
				struct lab_kpage *ptl = pte_lock(child, a, t);

				if (!ptl)
					goto nomem;
				raw_spin_unlock(&ptl->ptl);
			}
			if (!(e & LAB_PTE_FILE)) {
				page_get((void *)(e & ~LAB_PTE_FLAGS));
				anon++;
				if (cow && !(e & LAB_PTE_WP)) {
					e |= LAB_PTE_WP;
					WRITE_ONCE(pv->pte[i], e);
				}
			}
			cv->pte[i] = e;
		}
		ct->v[made] = cv;
	}
	free(child->mt);
	child->mt = ct;
	if (anon) {	/* add_mm_rss_vec(dst_mm, rss) */
		struct lab_kcpu *c = lab_kcpu_get(&child->pa->k);

		rss_add(child, c, NULL, anon);
		lab_kcpu_put(&child->pa->k, c);
	}
	for (int i = 0; i < n; i++)
		vma_attach(child, ct->v[i]);	/* dup_mmap: the copy joins the file's i_mmap */
	child->mmap_base = parent->mmap_base;
	child->brk_base = parent->brk_base;
	child->brk = parent->brk;
	tlb_flush_mm(parent);		/* parent translations lost their write permission */
	lab_mmap_write_unlock(child);
	lab_mmap_write_unlock(parent);
	return 0;
nomem:
	for (int i = 0; i < made; i++) {
		zap_range(ct->v[i], ct->v[i]->vm_start, ct->v[i]->vm_end, t);
		lab_vma_obj_free(child, ct->v[i], false);
	}
	free(ct);
	lab_mmap_write_unlock(child);
	lab_mmap_write_unlock(parent);
	return -ENOMEM;
}

/* ---- mapping changes ----------------------------------------------------------------------- */

uintptr_t lab_mm_mmap(struct lab_mm *mm, size_t len, unsigned long flags, struct lab_mm_file *file,
		      size_t pgoff)
{
	size_t pages = LAB_PAGE_ALIGN(len) >> LAB_PAGE_SHIFT;
	struct lab_vma *vma;
	uintptr_t start;

	if (!pages || (file && pgoff + pages > file->npages) || (!file && (flags & LAB_VM_SHARED)))
		return 0;
	lab_rcu_thread_online();
	lab_mmap_write_lock(mm);
	start = mm->mmap_base;
	vma = vma_new(mm, start, start + (pages << LAB_PAGE_SHIFT), flags, file, pgoff);
	if (!vma || tree_replace(mm, NULL, 0, &vma, 1)) {
		if (vma)
			lab_vma_obj_free(mm, vma, false);
		lab_mmap_write_unlock(mm);
		return 0;
	}
	vma_attach(mm, vma);
	mm->mmap_base = vma->vm_end + LAB_PAGE_SIZE;	/* a guard gap: mappings never merge */
	lab_mmap_write_unlock(mm);
	return start;
}

/* Caller holds mmap_lock for write. */
static int do_munmap(struct lab_mm *mm, uintptr_t start, uintptr_t end, struct lab_mm_thread *t)
{
	struct lab_vma_tree *mt = mm->mt;
	struct lab_vma **old, *add[2], *src[2];
	int first = tree_index(mt, start), nold = 0, nadd = 0, r = -ENOMEM;

	while (first + nold < mt->n && mt->v[first + nold]->vm_start < end)
		nold++;
	if (!nold)
		return 0;
	old = malloc((size_t)nold * sizeof(*old));
	if (!old)
		return -ENOMEM;
	for (int i = 0; i < nold; i++) {
		old[i] = mt->v[first + i];
		lab_vma_start_write(mm, old[i]);
	}
	/* Only the first and the last VMA can stick out of the range. */
	if (old[0]->vm_start < start) {
		src[nadd] = old[0];
		add[nadd] = vma_carve(mm, old[0], old[0]->vm_start, start, old[0]->vm_flags);
		if (!add[nadd])
			goto undo;
		nadd++;
	}
	if (old[nold - 1]->vm_end > end) {
		src[nadd] = old[nold - 1];
		add[nadd] = vma_carve(mm, old[nold - 1], end, old[nold - 1]->vm_end, old[nold - 1]->vm_flags);
		if (!add[nadd])
			goto undo;
		nadd++;
	}
	if (tree_replace(mm, old, nold, add, nadd))
		goto undo;
	for (int i = 0; i < nadd; i++)
		vma_attach(mm, add[i]);
	for (int i = 0; i < nold; i++) {
		zap_range(old[i], old[i]->vm_start, old[i]->vm_end, t);	/* carved parts are already empty */
		vma_retire(mm, old[i], t);
	}
	pt_free_range(mm, start, end, t);
	tlb_flush_mm(mm);
	free(old);
	return 0;
undo:
	while (nadd--)
		vma_uncarve(mm, src[nadd], add[nadd]);
	free(old);
	return r;
}

int lab_mm_munmap(struct lab_mm *mm, uintptr_t start, size_t len, struct lab_mm_thread *t)
{
	int r;

	if ((start & (LAB_PAGE_SIZE - 1)) || !len)
		return -EINVAL;
	lab_rcu_thread_online();
	lab_mmap_write_lock(mm);
	r = do_munmap(mm, start, start + LAB_PAGE_ALIGN(len), t);
	lab_mmap_write_unlock(mm);
	return r;
}

/* One piece of the layout mprotect builds: [start, end) of @src, to get @flags. */
struct piece {
	struct lab_vma *src;
	uintptr_t start, end;
	unsigned long flags;
};

/* Can @b continue the VMA that ends with @a? (vma_merge's conditions, simplified) */
static bool pieces_mergeable(const struct piece *a, const struct piece *b)
{
	if (a->end != b->start || a->flags != b->flags || a->src->vm_file != b->src->vm_file)
		return false;
	if (!a->src->vm_file)
		return true;
	/* file-backed: the file offsets must continue */
	return a->src->vm_pgoff + ((a->end - a->src->vm_start) >> LAB_PAGE_SHIFT) ==
	       b->src->vm_pgoff + ((b->start - b->src->vm_start) >> LAB_PAGE_SHIFT);
}

/* Move the entries of pieces [i, j) into @vma (which spans them) or, with @back, return them. */
static void pieces_move(const struct piece *pc, int i, int j, struct lab_vma *vma, bool back)
{
	for (int k = i; k < j; k++) {
		uintptr_t *sp = pc[k].src->pte + ((pc[k].start - pc[k].src->vm_start) >> LAB_PAGE_SHIFT);
		uintptr_t *dp = vma->pte + ((pc[k].start - vma->vm_start) >> LAB_PAGE_SHIFT);
		size_t n = (pc[k].end - pc[k].start) >> LAB_PAGE_SHIFT;

		if (back) {
			memcpy(sp, dp, n * sizeof(*sp));
		} else {
			memcpy(dp, sp, n * sizeof(*sp));
			memset(sp, 0, n * sizeof(*sp));
			vma->anon_vma |= pc[k].src->anon_vma;
		}
	}
}

int lab_mm_mprotect(struct lab_mm *mm, uintptr_t start, size_t len, unsigned long prot)
{
	const unsigned long pmask = LAB_VM_READ | LAB_VM_WRITE | LAB_VM_EXEC;
	uintptr_t end = start + LAB_PAGE_ALIGN(len);
	struct lab_vma_tree *mt;
	struct piece *pc = NULL;
	struct lab_vma **old = NULL, **add = NULL;
	int *grp = NULL;
	int first, last, n, np = 0, ng = 0, nold = 0, nadd = 0, r = -ENOMEM;
	bool revoke = false;

	if ((start & (LAB_PAGE_SIZE - 1)) || !len || (prot & ~pmask))
		return -EINVAL;
	lab_rcu_thread_online();
	lab_mmap_write_lock(mm);
	mt = mm->mt;
	first = tree_index(mt, start);
	for (last = first; last < mt->n && mt->v[last]->vm_start < end; last++) {
		uintptr_t expect = last == first ? start : mt->v[last - 1]->vm_end;

		if (mt->v[last]->vm_start > expect)
			goto out;		/* a hole: -ENOMEM, nothing changed */
	}
	if (last == first || mt->v[last - 1]->vm_end < end)
		goto out;
	n = last - first;
	pc = calloc((size_t)(3 * n + 2), sizeof(*pc));
	grp = calloc((size_t)(3 * n + 3), sizeof(*grp));
	old = calloc((size_t)(n + 2), sizeof(*old));
	add = calloc((size_t)(3 * n + 2), sizeof(*add));
	if (!pc || !grp || !old || !add)
		goto out;
	/* The neighbours, whole: they are replaced only if they merge. */
	if (first > 0) {
		struct lab_vma *prev = mt->v[first - 1];

		pc[np++] = (struct piece){ prev, prev->vm_start, prev->vm_end, prev->vm_flags };
	}
	for (int i = first; i < last; i++) {
		struct lab_vma *v = mt->v[i];
		unsigned long nf = (v->vm_flags & ~pmask) | prot;
		uintptr_t s = v->vm_start > start ? v->vm_start : start;
		uintptr_t e = v->vm_end < end ? v->vm_end : end;

		if ((v->vm_flags & LAB_VM_WRITE) && !(prot & LAB_VM_WRITE))
			revoke = true;
		if (v->vm_start < s)
			pc[np++] = (struct piece){ v, v->vm_start, s, v->vm_flags };
		pc[np++] = (struct piece){ v, s, e, nf };
		if (e < v->vm_end)
			pc[np++] = (struct piece){ v, e, v->vm_end, v->vm_flags };
	}
	if (last < mt->n) {
		struct lab_vma *next = mt->v[last];

		pc[np++] = (struct piece){ next, next->vm_start, next->vm_end, next->vm_flags };
	}
	/* Groups of mergeable pieces become one VMA each: grp[g] is the first piece of group g. */
	for (int i = 0; i < np; i++)
		if (i == 0 || !pieces_mergeable(&pc[i - 1], &pc[i]))
			grp[ng++] = i;
	grp[ng] = np;
	/* An unmerged neighbour stays as it is. */
	if (first > 0 && grp[1] == 1) {
		memmove(grp, grp + 1, (size_t)ng * sizeof(*grp));
		ng--;
	}
	if (last < mt->n && grp[ng - 1] == np - 1) {
		ng--;
		grp[ng] = np - 1;
	}
	/* Every VMA a group takes entries from is replaced. */
	for (int g = 0; g < ng; g++) {
		for (int k = grp[g]; k < grp[g + 1]; k++) {
			bool seen = false;

			for (int q = 0; q < nold; q++)
				seen |= old[q] == pc[k].src;
			if (!seen) {
				lab_vma_start_write(mm, pc[k].src);
				old[nold++] = pc[k].src;
			}
		}
	}
	for (nadd = 0; nadd < ng; nadd++) {
		const struct piece *p0 = &pc[grp[nadd]], *p1 = &pc[grp[nadd + 1] - 1];
		struct lab_vma *src = p0->src;

		add[nadd] = vma_new(mm, p0->start, p1->end, p0->flags, src->vm_file,
				    src->vm_file ? src->vm_pgoff + ((p0->start - src->vm_start) >> LAB_PAGE_SHIFT) : 0);
		if (!add[nadd])
			goto undo;
		pieces_move(pc, grp[nadd], grp[nadd + 1], add[nadd], false);
	}
	if (tree_replace(mm, old, nold, add, nadd))
		goto undo;
	for (int i = 0; i < nadd; i++)
		vma_attach(mm, add[i]);
	for (int i = 0; i < nold; i++)
		vma_retire(mm, old[i], NULL);	/* the new pieces hold the file */
	if (revoke)
		tlb_flush_mm(mm);
	r = 0;
	goto out;
undo:
	while (nadd--) {
		pieces_move(pc, grp[nadd], grp[nadd + 1], add[nadd], true);
		lab_vma_obj_free(mm, add[nadd], false);
	}
out:
	lab_mmap_write_unlock(mm);
	free(pc);
	free(grp);
	free(old);
	free(add);
	return r;
}

int lab_mm_brk_reserve(struct lab_mm *mm, struct lab_brk *b, size_t max)
{
	lab_rcu_thread_online();
	lab_mmap_write_lock(mm);
	b->start_brk = b->brk = mm->brk_base;
	b->max = LAB_PAGE_ALIGN(max);
	mm->brk_base += b->max + LAB_PAGE_SIZE;
	lab_mmap_write_unlock(mm);
	return mm->brk_base >= LAB_MMAP_BASE ? -ENOMEM : 0;
}

uintptr_t lab_mm_brk(struct lab_mm *mm, struct lab_brk *b, uintptr_t newbrk, struct lab_mm_thread *t)
{
	uintptr_t oldend, newend;
	struct lab_vma *vma = NULL;

	if (!b)
		b = &mm->brk;
	lab_rcu_thread_online();
	lab_mmap_write_lock(mm);
	if (newbrk < b->start_brk || newbrk > b->start_brk + b->max)
		goto out;
	oldend = LAB_PAGE_ALIGN(b->brk);
	newend = LAB_PAGE_ALIGN(newbrk);
	if (oldend > b->start_brk) {
		vma = lab_mm_find_vma(mm, b->start_brk);
		if (vma && (vma->vm_start != b->start_brk || vma->vm_end != oldend))
			vma = NULL;		/* the heap was split by someone: use the generic paths */
	}
	if (newend > oldend) {
		if (!vma && oldend > b->start_brk) {
			/* split heap: map the extension as its own VMA */
			struct lab_vma *v = vma_new(mm, oldend, newend, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);

			if (!v || tree_replace(mm, NULL, 0, &v, 1)) {
				if (v)
					lab_vma_obj_free(mm, v, false);
				goto out;
			}
			lab_vma_mark_attached(mm, v);
		} else if (!vma) {
			vma = vma_new(mm, b->start_brk, newend, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
			if (!vma || tree_replace(mm, NULL, 0, &vma, 1)) {
				if (vma)
					lab_vma_obj_free(mm, vma, false);
				goto out;
			}
			lab_vma_mark_attached(mm, vma);
		} else {
			/* expand in place (do_brk_flags: vma_start_write, then the new end) */
			lab_vma_start_write(mm, vma);
			if (pte_reserve(vma, (newend - vma->vm_start) >> LAB_PAGE_SHIFT))
				goto out;
			WRITE_ONCE(vma->vm_end, newend);
		}
	} else if (newend < oldend) {
		if (vma && newend > b->start_brk) {
			/* shrink in place */
			lab_vma_start_write(mm, vma);
			zap_range(vma, newend, oldend, t);
			WRITE_ONCE(vma->vm_end, newend);
			tlb_flush_mm(mm);
		} else if (do_munmap(mm, newend, oldend, t)) {
			goto out;
		}
	}
	b->brk = newbrk;
out:
	newbrk = b->brk;
	lab_mmap_write_unlock(mm);
	return newbrk;
}

size_t lab_mm_pageout(struct lab_mm *mm, uintptr_t start, size_t len)
{
	uintptr_t end = start + LAB_PAGE_ALIGN(len);
	struct lab_vma_tree *mt;
	size_t n = 0;

	lab_rcu_thread_online();
	lab_mmap_read_lock(mm);
	{	/* madvise_pageout: lru_add_drain() first (this CPU's batch) */
		struct lab_kcpu *c = lab_kcpu_get(&mm->pa->k);

		lab_kmm_lru_drain(&mm->pa->k, c);
		lab_kcpu_put(&mm->pa->k, c);
	}
	mt = mm->mt;
	for (int i = tree_index(mt, start); i < mt->n && mt->v[i]->vm_start < end; i++) {
		struct lab_vma *v = mt->v[i];
		uintptr_t s = v->vm_start > start ? v->vm_start : start;
		uintptr_t e = v->vm_end < end ? v->vm_end : end;

		if (v->vm_file)
			continue;
		for (uintptr_t a = s; a < e; a += LAB_PAGE_SIZE) {
			uintptr_t *slot = &v->pte[(a - v->vm_start) >> LAB_PAGE_SHIFT];
			uintptr_t pte = smp_load_acquire(slot);

			if (!pte || (pte & (LAB_PTE_SWP | LAB_PTE_FILE)) ||
			    READ_ONCE(*page_ref((void *)(pte & ~LAB_PTE_FLAGS))) != 1)
				continue;
			if (atomic_try_cmpxchg_release(slot, &pte, pte | LAB_PTE_SWP))
				n++;
		}
	}
	tlb_flush_mm(mm);
	lab_mmap_read_unlock(mm);
	return n;
}

/* ---- the fault path ---------------------------------------------------------------------- */

void (*lab_mm_access_hook)(struct lab_mm *mm, uintptr_t addr, void *page);

/* arch/x86/mm/fault.c access_error(): vma->vm_flags, on the VMA's first line */
static bool access_error(const struct lab_vma *vma, const struct lab_fault *f)
{
	unsigned long flags = READ_ONCE(vma->vm_flags);

	if (f->flags & LAB_FAULT_WRITE)
		return !(flags & LAB_VM_WRITE);
	return !(flags & (LAB_VM_READ | LAB_VM_WRITE | LAB_VM_EXEC));
}

/*
 * anon_vma_prepare(). Under a per-VMA lock it needs mmap_lock as well (as
 * later kernels' vmf_anon_prepare: trylock, else VM_FAULT_RETRY).
 */
static int anon_prepare(struct lab_mm *mm, struct lab_vma *vma, bool vma_locked)
{
	if (lab_likely(READ_ONCE(vma->anon_vma)))
		return 0;
	if (vma_locked) {
		if (!lab_mmap_read_trylock(mm))
			return LAB_FAULT_RETRY;
		WRITE_ONCE(vma->anon_vma, 1u);
		lab_mmap_read_unlock(mm);
		return 0;
	}
	WRITE_ONCE(vma->anon_vma, 1u);
	return 0;
}

/*
 * Install @np in place of @e at @slot under the PTE lock (pte_offset_map_lock,
 * the pte_none/pte_same check, set_pte_at), with the new page's rss, rmap and
 * LRU work when it is anonymous. Returns 0 (installed, or lost a race: the
 * caller looks at the entry again) or -ENOMEM.
 */
static int pte_install(struct lab_mm *mm, uintptr_t addr, uintptr_t *slot, uintptr_t e, uintptr_t np,
		       struct lab_mm_thread *t)
{
	struct lab_kpage *ptl = pte_lock(mm, addr, t);
	bool file = np & LAB_PTE_FILE;

	if (!ptl) {
		if (!file)
			page_put(t, (void *)np);
		return -ENOMEM;
	}
	/* Release: the page's contents before the entry (pairs with the fault path's acquire). */
	if (!atomic_try_cmpxchg_release(slot, &e, np)) {
		raw_spin_unlock(&ptl->ptl);
		if (!file)
			page_put(t, (void *)(np & ~LAB_PTE_FLAGS));	/* lost a race: retry */
		return 0;
	}
	if (!file)
		anon_page_mapped(mm, (void *)np, t);
	raw_spin_unlock(&ptl->ptl);
	return 0;
}

/* An anonymous page's mapping is gone (page_remove_rmap, rss): then its reference. */
static void anon_page_unmapped(struct lab_mm *mm, struct lab_mm_thread *t, void *page)
{
	struct lab_kmm *k = &mm->pa->k;
	struct lab_kcpu *c = lab_kcpu_get(k);

	rss_add(mm, c, t, -1);
	lab_kmm_vmstat(k, c, KSTAT_ANON, -1);
	lab_kmm_memcg_stat(k, c, MSTAT_ANON, -1);
	lab_kcpu_put(k, c);
	page_put(t, page);
}

/*
 * wp_can_reuse_anon_folio() (v6.x): only the mapping holds @page. A page not on
 * the LRU may sit in this CPU's LRU batch with the batch's reference: drain the
 * batch (lru_add_drain) and look again.
 */
static bool page_exclusive(struct lab_kmm *k, void *page)
{
	struct lab_kpage *pg = kpage(page);

	if (smp_load_acquire(&pg->refcount) == 1)
		return true;
	if (!(READ_ONCE(pg->flags) & LAB_KPG_LRU)) {
		struct lab_kcpu *c = lab_kcpu_get(k);

		lab_kmm_lru_drain(k, c);
		lab_kcpu_put(k, c);
	}
	return smp_load_acquire(&pg->refcount) == 1;
}

/* A page-cache page of @vma's file at page @idx of the VMA, read in if needed. */
static int file_page(struct lab_vma *vma, size_t idx, bool vma_locked, struct lab_mm_thread *t,
		     uintptr_t *pagep)
{
	struct lab_mm_file *f = vma->vm_file;
	size_t pgoff = vma->vm_pgoff + idx;
	uintptr_t p, np;

	if (pgoff >= f->npages)
		return -EFAULT;		/* SIGBUS beyond the end of the file */
	p = smp_load_acquire(&f->page[pgoff]);
	if (p) {
		*pagep = p;
		return 0;
	}
	if (f->fill && vma_locked)
		return LAB_FAULT_RETRY;	/* I/O is done with mmap_lock held, not under the VMA lock */
	/* filemap_add_folio(): a new page-cache page, charged, on the LRU */
	np = (uintptr_t)page_new(t, !f->fill);
	if (!np)
		return -ENOMEM;
	if (f->fill)
		f->fill(f->arg, pgoff, (void *)np);
	t->ev[LAB_MM_EV_fault_file]++;
	/* Release: the contents before the page-cache entry (pairs with the acquire above). */
	if (!atomic_try_cmpxchg_release(&f->page[pgoff], &p, np)) {
		page_put(t, (void *)np);	/* someone else read it in: use theirs (p) */
	} else {
		struct lab_kmm *k = &t->pa->k;
		struct lab_kcpu *c = lab_kcpu_get(k);

		lab_kmm_lru_add(k, c, kpage((void *)np));
		lab_kcpu_put(k, c);
		p = np;
	}
	*pagep = p;
	return 0;
}

/*
 * handle_mm_fault(): make the entry for f->addr present (and writable for a
 * write fault). Returns 0, LAB_FAULT_RETRY (only when @vma_locked), -EFAULT
 * or -ENOMEM.
 */
static int handle_mm_fault(struct lab_mm *mm, struct lab_vma *vma, struct lab_fault *f, bool vma_locked,
			   struct lab_mm_thread *t)
{
	bool write = f->flags & LAB_FAULT_WRITE;
	size_t idx = (f->addr - vma->vm_start) >> LAB_PAGE_SHIFT;
	uintptr_t *slot = &vma->pte[idx];
	uintptr_t e, np;
	void *page;
	int r;

	/*
	 * __handle_mm_fault(): vma->vm_mm and vma->vm_flags (the VMA's first line),
	 * then pgd_offset(mm, address) reads mm->pgd (the walk below it is mm->pmd[]).
	 */
	(void)READ_ONCE(vma->vm_flags);
	(void)READ_ONCE(*(const unsigned long *)(mm->rss.image + mm->pa->k.p->mm_pgd));
	for (;;) {
		e = smp_load_acquire(slot);
		if (!e) {
			if (vma->vm_file) {
				uintptr_t p;

				r = file_page(vma, idx, vma_locked, t, &p);
				if (r)
					return r;
				if (!(vma->vm_flags & LAB_VM_SHARED) && write) {
					/* private file mapping written: copy into an anonymous page */
					r = anon_prepare(mm, vma, vma_locked);
					if (r)
						return r;
					np = (uintptr_t)page_new(t, false);
					if (!np)
						return -ENOMEM;
					memcpy((void *)np, (void *)p, LAB_PAGE_SIZE);
					t->ev[LAB_MM_EV_fault_cow]++;
				} else {
					np = p | LAB_PTE_FILE |
					     (vma->vm_flags & LAB_VM_SHARED ? 0 : LAB_PTE_WP);
				}
			} else {
				r = anon_prepare(mm, vma, vma_locked);
				if (r)
					return r;
				/* alloc_zeroed_user_highpage_movable + mem_cgroup_charge (memory.c:4077-4082) */
				np = (uintptr_t)page_new(t, true);
				if (!np)
					return -ENOMEM;
				/* mk_pte(page, vma->vm_page_prot), vm_flags & VM_WRITE: the first line again */
				(void)READ_ONCE(vma->vm_flags);
			}
			r = pte_install(mm, f->addr, slot, e, np, t);
			if (r)
				return r;
			continue;
		}
		page = (void *)(e & ~LAB_PTE_FLAGS);
		if (e & LAB_PTE_SWP) {
			if (vma_locked)
				return LAB_FAULT_RETRY;	/* v6.4 do_swap_page under the VMA lock */
			if (atomic_try_cmpxchg_release(slot, &e, e & ~LAB_PTE_SWP))
				t->ev[LAB_MM_EV_fault_swapin]++;
			continue;
		}
		if (write && (e & LAB_PTE_WP)) {
			/* do_wp_page: reuse an exclusive anonymous page, else copy it (wp_page_copy) */
			if (!(e & LAB_PTE_FILE) && page_exclusive(&t->pa->k, page)) {
				atomic_try_cmpxchg_relaxed(slot, &e, e & ~LAB_PTE_WP);
				continue;
			}
			np = (uintptr_t)page_new(t, false);
			if (!np)
				return -ENOMEM;
			memcpy((void *)np, page, LAB_PAGE_SIZE);
			r = pte_install(mm, f->addr, slot, e, np, t);
			if (r)
				return r;
			if (READ_ONCE(*slot) == np) {
				t->ev[LAB_MM_EV_fault_cow]++;
				if (!(e & LAB_PTE_FILE))
					anon_page_unmapped(mm, t, page);	/* page_remove_rmap + put */
			}
			continue;
		}
		if (!f->buf)
			break;
		if (lab_unlikely(lab_mm_access_hook))
			lab_mm_access_hook(mm, f->addr, page);
		if (page_try_pin(slot, e, t))
			break;
		/* the entry moved on (a COW, a pageout) since we read it: look again */
	}
	f->page = page;
	f->writable = (vma->vm_flags & LAB_VM_WRITE) && !(e & LAB_PTE_WP);
	if (f->buf) {
		char *p = (char *)page + (f->addr & (LAB_PAGE_SIZE - 1));

		if (write)
			memcpy(p, f->buf, f->len);
		else
			memcpy(f->buf, p, f->len);
		page_put(t, page);	/* page_try_pin()'s reference */
	}
	return 0;
}

/*
 * The fault's accounting before the work, after the lock and the VMA lookup
 * and before __handle_mm_fault reads mm->pgd (v6.2 mm/memory.c handle_mm_fault:
 * count_vm_event and count_memcg_event_mm PGFAULT; v5.x __handle_mm_fault:
 * check_sync_rss_stat). Its own code is cost.kpath.fault_account_ns.
 */
static void fault_account(struct lab_mm *mm, struct lab_mm_thread *t)
{
	struct lab_kmm *k = &mm->pa->k;
	struct lab_kcpu *c;

	lab_kpath_charge(KP_ACCOUNT, 1);
	c = lab_kcpu_get(k);
	lab_kmm_memcg_stat(k, c, MSTAT_PGFAULT, 1);
	lab_kcpu_put(k, c);
	if (!t->rss_mm)
		t->rss_mm = mm;
	if (t->rss_mm == mm)
		lab_kmm_rss_fault(k, &mm->rss, &t->kt);
}

/*
 * do_user_addr_fault() (v6.2 arch/x86/mm/fault.c; v6.4 adds the per-VMA lock
 * first): exception entry and exit are one cost (cost.kpath.fault_entry_ns),
 * the VMA lookup another; mmap_lock is taken with down_read_trylock first and
 * down_read only when that fails, as x86 does.
 */
int lab_mm_fault(struct lab_mm *mm, struct lab_fault *f, struct lab_mm_thread *t)
{
	struct lab_vma *vma;
	int r;

	lab_rcu_thread_online();
	lab_kpath_charge(KP_ENTRY, 1);		/* entry and exit, charged once */
	if (mm->mode != LAB_MM_LOCK_MMAP) {
		lab_kpath_charge(KP_LOOKUP, 1);
		vma = lab_lock_vma_under_rcu(mm, f->addr, t);
		if (vma) {
			if (access_error(vma, f)) {
				lab_vma_end_read(mm, vma);
				goto lock_mmap;
			}
			fault_account(mm, t);
			r = handle_mm_fault(mm, vma, f, true, t);
			lab_vma_end_read(mm, vma);
			if (r != LAB_FAULT_RETRY) {
				t->ev[LAB_MM_EV_vma_lock_success]++;
				return r;
			}
			t->ev[LAB_MM_EV_vma_lock_retry]++;
		}
	}
lock_mmap:
	if (!lab_mmap_read_trylock(mm))
		lab_mmap_read_lock(mm);
	lab_kpath_charge(KP_LOOKUP, 1);
	vma = lab_mm_find_vma(mm, f->addr);
	if (!vma || f->addr < vma->vm_start || access_error(vma, f)) {
		lab_mmap_read_unlock(mm);
		t->ev[LAB_MM_EV_fault_segv]++;
		return -EFAULT;
	}
	fault_account(mm, t);
	r = handle_mm_fault(mm, vma, f, false, t);
	lab_mmap_read_unlock(mm);
	t->ev[LAB_MM_EV_fault_mmap]++;
	return r;
}

int lab_mm_access(struct lab_mm *mm, uintptr_t addr, void *buf, size_t len, bool write,
		  struct lab_mm_thread *t)
{
	while (len) {
		size_t chunk = LAB_PAGE_SIZE - (addr & (LAB_PAGE_SIZE - 1));
		struct lab_fault f = { .addr = addr, .flags = write ? LAB_FAULT_WRITE : 0, .buf = buf };
		int r;

		f.len = chunk < len ? chunk : len;
		r = lab_mm_fault(mm, &f, t);
		if (r)
			return r;
		addr += f.len;
		buf = (char *)buf + f.len;
		len -= f.len;
	}
	return 0;
}

/* ---- the software TLB ----------------------------------------------------------------------- */

void lab_utlb_flush(struct lab_utlb *tlb)
{
	memset(tlb->e, 0, sizeof(tlb->e));
}

char *lab_utlb_get(struct lab_mm *mm, struct lab_utlb *tlb, uintptr_t addr, bool write,
		   struct lab_mm_thread *t)
{
	/*
	 * Not a modelled access: a translation that hits in a CPU's TLB touches
	 * no cache line, and the generation check is this emulator's stand-in
	 * for the shootdown IPI, so under --sim the engine does not see it (as
	 * a READ_ONCE it was a load of the mm's line per user access: 30% of a
	 * reaim compute run's accesses, and a transfer after every munmap by a
	 * thread of a shared mm). Safe there: a flush made at an earlier
	 * simulated time is already in host memory; one from a later time only
	 * drops translations early, and the re-fault goes through the engine.
	 * Natively the acquire pairs with tlb_flush_mm()'s release.
	 */
	uint32_t gen = __atomic_load_n(&mm->tlb_gen, __ATOMIC_ACQUIRE);
	uintptr_t vpn = addr >> LAB_PAGE_SHIFT;
	struct lab_fault f = { .addr = addr, .flags = write ? LAB_FAULT_WRITE : 0 };
	__typeof__(tlb->e[0]) *e = &tlb->e[vpn % LAB_UTLB_SIZE];

	if (gen != tlb->gen) {
		lab_utlb_flush(tlb);
		tlb->gen = gen;
	}
	if (e->vpn == vpn + 1 && (!write || e->writable))
		return e->page + (addr & (LAB_PAGE_SIZE - 1));
	if (lab_mm_fault(mm, &f, t))
		return NULL;
	e->vpn = vpn + 1;
	e->page = f.page;
	e->writable = f.writable;
	return f.page + (addr & (LAB_PAGE_SIZE - 1));
}

/* Walk [addr, addr + len) page by page through the TLB. */
#define UTLB_FOR_EACH(mm, tlb, addr, len, write, t, p, n, body)				\
	do {										\
		while (len) {								\
			size_t n = LAB_PAGE_SIZE - ((addr) & (LAB_PAGE_SIZE - 1));	\
			char *p = lab_utlb_get((mm), (tlb), (addr), (write), (t));	\
											\
			if (!p)								\
				return -EFAULT;						\
			if (n > len)							\
				n = len;						\
			body;								\
			addr += n;							\
			len -= n;							\
		}									\
	} while (0)

int lab_uwrite(struct lab_mm *mm, struct lab_utlb *tlb, uintptr_t addr, const void *src, size_t len,
	       struct lab_mm_thread *t)
{
	const char *s = src;

	UTLB_FOR_EACH(mm, tlb, addr, len, true, t, p, n, { memcpy(p, s, n); s += n; });
	return 0;
}

int lab_uread(struct lab_mm *mm, struct lab_utlb *tlb, uintptr_t addr, void *dst, size_t len,
	      struct lab_mm_thread *t)
{
	char *d = dst;

	UTLB_FOR_EACH(mm, tlb, addr, len, false, t, p, n, { memcpy(d, p, n); d += n; });
	return 0;
}

int lab_umemset(struct lab_mm *mm, struct lab_utlb *tlb, uintptr_t addr, int c, size_t len,
		struct lab_mm_thread *t)
{
	UTLB_FOR_EACH(mm, tlb, addr, len, true, t, p, n, memset(p, c, n));
	return 0;
}

/* ---- invariants -------------------------------------------------------------------------------- */

int lab_mm_check(struct lab_mm *mm, char *err, size_t errlen)
{
	struct lab_vma_tree *mt = mm->mt;

	for (int i = 0; i < mt->n; i++) {
		const struct lab_vma *v = mt->v[i];

		if (!v || v->vm_mm != mm) {
			snprintf(err, errlen, "vma %d: missing or of another mm", i);
			return -1;
		}
		if (v->vm_start >= v->vm_end || (v->vm_start | v->vm_end) & (LAB_PAGE_SIZE - 1)) {
			snprintf(err, errlen, "vma %d: bad range [%#lx, %#lx)", i, (unsigned long)v->vm_start,
				 (unsigned long)v->vm_end);
			return -1;
		}
		if (i && mt->v[i - 1]->vm_end > v->vm_start) {
			snprintf(err, errlen, "vma %d [%#lx, %#lx) overlaps or precedes vma %d ending at %#lx", i,
				 (unsigned long)v->vm_start, (unsigned long)v->vm_end, i - 1,
				 (unsigned long)mt->v[i - 1]->vm_end);
			return -1;
		}
		if (v->pte_cap < vma_pages(v)) {
			snprintf(err, errlen, "vma %d: page table of %zu entries for %zu pages", i, v->pte_cap,
				 vma_pages(v));
			return -1;
		}
		if ((mm->mode == LAB_MM_LOCK_VMA && READ_ONCE(v->detached)) ||
		    (mm->mode == LAB_MM_LOCK_VMA_REFCNT && (READ_ONCE(v->vm_refcnt) == 0 ||
							     READ_ONCE(v->vm_refcnt) >= VMA_LOCK_OFFSET))) {
			snprintf(err, errlen, "vma %d: published but detached (refcnt %u)", i,
				 READ_ONCE(v->vm_refcnt));
			return -1;
		}
		if (v->vm_file && v->vm_pgoff + vma_pages(v) > v->vm_file->npages) {
			snprintf(err, errlen, "vma %d: maps beyond the end of its file", i);
			return -1;
		}
		for (size_t k = 0; k < vma_pages(v); k++) {
			uintptr_t e = READ_ONCE(v->pte[k]);

			if (!e)
				continue;
			if ((e & LAB_PTE_FILE) && !v->vm_file) {
				snprintf(err, errlen, "vma %d page %zu: file page in an anonymous VMA", i, k);
				return -1;
			}
			if (!(e & LAB_PTE_FILE) && READ_ONCE(*page_ref((void *)(e & ~LAB_PTE_FLAGS))) == 0) {
				snprintf(err, errlen, "vma %d page %zu: maps a free page", i, k);
				return -1;
			}
		}
	}
	return 0;
}

size_t lab_meminfo(const char *name)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	size_t len = strlen(name), kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			kb = strtoull(line + len + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return kb << 10;
}
