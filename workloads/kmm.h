/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workloads/kmm.h - the kernel's memory-management state under the anonymous
 * fault path, modelled as the shared state each cited kernel touches
 * (internal to mm.c, kmm.c and the tests).
 *
 * Citations (file:line of the version each profile follows; the trees read are
 * named in kmm.c's header):
 *   v6.2  mm/memory.c:4024-4133 do_anonymous_page; mm/page_alloc.c:3116-3160
 *         rmqueue_bulk, 3731-3769 __rmqueue_pcplist, 3771-3808 rmqueue_pcplist,
 *         3377-3450 nr_pcp_free/nr_pcp_high/free_unref_page_commit, 3793 free_factor
 *         halved per allocation, 7057-7103 zone_batchsize, 7105-7140 zone_highsize,
 *         8712-8760 __setup_per_zone_wmarks, 8823-8836 calculate_min_free_kbytes; mm/swap.c:233-256
 *         folio_batch_move_lru, 531-549 folio_add_lru; include/linux/pagevec.h:15
 *         PAGEVEC_SIZE; mm/memcontrol.c:607-625 memcg_rstat_updated, 2227-2249
 *         consume_stock, 2297-2320 refill_stock, 2631-2660 try_charge_memcg,
 *         2821-2827 try_charge, 6900-6930 charge_memcg; include/linux/memcontrol.h:336
 *         MEMCG_CHARGE_BATCH 64; mm/page_counter.c:97-146 page_counter_try_charge;
 *         include/linux/page_counter.h (usage on its own line); lib/percpu_counter.c:82-98
 *         percpu_counter_add_batch, 201-210 percpu_counter_batch = max(32, 2 * nr);
 *         include/linux/mm.h:2186-2198 add/inc_mm_counter; mm/memory.c:393-429
 *         pmd_install/__pte_alloc; include/linux/mm.h:2548-2590 split pmd lock;
 *         mm/vmstat.c:222-267 calculate_normal_threshold, 342-369 __mod_zone_page_state;
 *         include/linux/mm_types.h struct mm_struct (offsets below).
 *   v6.4  as v6.2, plus the per-VMA lock merged (vma_lock.c: its struct vma_lock from a
 *         kmem_cache, kmem_cache.c; mm_lock_seq in the image, mm.h lab_mm_lock_seq) and
 *         CONFIG_SCHED_MM_CID's two words after mm_users (offsets below).
 *   v5.12 include/linux/memcontrol.h:346 MEMCG_CHARGE_BATCH 32; mm/memcontrol.c:765-789
 *         __mod_memcg_state (per-CPU, spilled to every ancestor's atomic);
 *         mm/memory.c:176-215 SPLIT_RSS_COUNTING; include/linux/mmzone.h:298 lruvec->lru_lock.
 *   v5.0  include/linux/memcontrol.h:322 MEMCG_CHARGE_BATCH 32, 577-591 __mod_memcg_state
 *         (spilled to the memcg's own atomic); mm/memory.c:140-190 SPLIT_RSS_COUNTING,
 *         TASK_RSS_EVENTS_THRESH 64; include/linux/mmzone.h:692 pgdat->lru_lock;
 *         mm/page_alloc.c:3049-3070 rmqueue_pcplist under local_irq_save, 5885-5888
 *         pcp high = 6 * batch (v5.12.9 mm/page_alloc.c:6484 the same; a bulk free
 *         of `batch` pages past it, :3245-3246).
 *
 * What one anonymous write fault touches, in the order of v6.2's do_anonymous_page
 * (lab_kmm_anon_fault() in mm.c calls these in that order):
 *   per-CPU, free of sharing: the pcp list, the LRU folio batch, the memcg stock,
 *     the vmstat and memcg stat diffs, the rss percpu counter slot (v6.2) or the
 *     task's rss cache (v5.x);
 *   shared, through atomic.h so the engine charges every line:
 *     zone->lock + the free list (every `batch` allocations: the pcp refill, and
 *       the frees beyond `high`), zone->vm_stat[NR_FREE_PAGES] (read by the watermark
 *       check of every allocation, added to when a CPU's diff passes the threshold),
 *       the global vm_zone_stat / vm_node_stat;
 *     lruvec->lru_lock + its list head and the previous first folio's struct page
 *       (every PAGEVEC_SIZE = 15 faults);
 *     the memcg page_counter of each level: usage (atomic add), watermark, max
 *       (every MEMCG_CHARGE_BATCH pages);
 *     memcg stats: v5.0 the memcg's atomic, v5.12 every ancestor's, v6.2 the global
 *       stats_flush_threshold (every MEMCG_CHARGE_BATCH updates of a CPU);
 *     the mm: its mmap_lock inside the mm_struct image at the version's offset
 *       (v5.0 and v6.2 @112: count on the line of pgd, mm_users, mm_count,
 *       pgtables_bytes and page_table_lock, v5.0's owner @144 on the next line;
 *       v5.12 and v6.4 @128: a line from count to mm_lock_seq), for variants with
 *       the kernel's rw_semaphore layout (LAB_CAP_EMBED); mm->pgd, read by every
 *       fault (__handle_mm_fault's pgd_offset, under the mmap_lock or the VMA lock);
 *       rss_stat (v6.2: the percpu_counter's lock and count every
 *       percpu_counter_batch faults of a CPU; v5.x: the atomic count every 66 faults of
 *       a task), pgtables_bytes (every new PTE page);
 *     the split PMD lock of the 1 GiB region (every new PTE page), the PTE page's lock
 *       (every fault; per 2 MiB);
 *     the pages' struct page (refcount, list links): neighbours on the free, pcp
 *       and LRU lists.
 *
 * Costs between those accesses (simulated build): cost.kpath.*_ns of the machine
 * file, one per part, measured here by tools/calibrate-kpath (a perf profile of the
 * fault and unmap paths on this machine), proxies elsewhere; see kmm.c.
 *
 * What is not modelled: NUMA policies other than local allocation, watermarks and
 * reclaim (zones never run low), the buddy allocator's splitting and merging (a
 * free list per zone: one struct page per page moved), compound pages, MGLRU,
 * memcg v1 soft limits and memsw, THP. At munmap, free_pgtables frees only the
 * PTE pages of 2 MiB regions the range covers whole (mm.c pt_free_range); the
 * PMD pages, and PTE pages partly unmapped, are freed with the mm. mm_lock_seq is the image's word in vma mode
 * on v6.2 (pvl-v2: @168, after mmlist) and v6.4 (@184, on the line of
 * mmap_lock's count and owner) (lab_mm_lock_seq() in mm.h, with the
 * citations), except under rwsem-rspin, whose knobs lie over that word, which
 * keeps struct lab_mm's field. The per-VMA lock of v6.2 (the pvl-v2 series the
 * per-VMA table ran) is inside the VMA (vma_lock_embed; struct lab_vma in
 * mm.h); v6.4's is a 40-byte struct vma_lock of one kmem_cache for the run,
 * packed in 4 KiB slab pages in allocation order, the last freed first
 * (vma_lock_slab; vma_lock.c and kmem_cache.c, with the citations), for the
 * variants whose state packs into the kernel's 40 bytes (rwsem,
 * rwsem-dhandoff: LAB_CAP_PACKED); the other variants' lock is a
 * line-aligned object. Of SLUB, the per-CPU slabs (locks made on several CPUs
 * in pages of their own), CONFIG_SLAB_FREELIST_RANDOM, merging with another
 * 40-byte cache and SLAB_ACCOUNT's memcg charge are not modelled.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "spinlock.h"

enum lab_kmm_ver { LAB_KMM_V5_0, LAB_KMM_V5_12, LAB_KMM_V6_2, LAB_KMM_V6_4, LAB_KMM_NVER };
#define LAB_KMM_CHOICES "v5.0|v5.12|v6.2|v6.4"
#define LAB_KMM_DEFAULT LAB_KMM_V6_2

enum lab_kmm_memcg_stat { LAB_MEMCG_STAT_FLAT, LAB_MEMCG_STAT_HIER, LAB_MEMCG_STAT_RSTAT };

struct lab_kmm_profile {
	const char *name;
	const char *cite;
	bool pcp_spinlock;		/* pcp->lock (v6.0+); before: local_irq_save */
	bool pcp_wmark_high;		/* pcp->high from the low watermark, free_factor (v5.14+); before: 6 * batch */
	bool lru_per_memcg;		/* lruvec->lru_lock (v5.11+); before: pgdat->lru_lock */
	bool vma_lock_embed;		/* per-VMA lock inside the vm_area_struct (pvl-v2), count on its first line */
	bool vma_lock_slab;		/* per-VMA lock a struct vma_lock of a kmem_cache (v6.4), packed at 40 bytes */
	bool rss_percpu;		/* mm->rss_stat percpu_counter (v6.2+); before: task cache */
	unsigned charge_batch;		/* MEMCG_CHARGE_BATCH */
	enum lab_kmm_memcg_stat memcg_stat;
	/* struct mm_struct offsets (x86-64, no debug options), bytes */
	unsigned mm_pgd, mm_users, mm_count, mm_pgtables, mm_ptl, mm_mmap_lock, mm_lock_seq, mm_rss,
		 mm_rss_stride, mm_size;
	/* struct page_counter offsets */
	unsigned pc_max, pc_watermark, pc_size;
};

extern const struct lab_kmm_profile lab_kmm_profiles[LAB_KMM_NVER];
const char *lab_kmm_ver_name(enum lab_kmm_ver v);

#define LAB_KMM_LRU_BATCH	15	/* PAGEVEC_SIZE */
#define LAB_KMM_TASK_RSS_THRESH	64	/* TASK_RSS_EVENTS_THRESH */
#define LAB_KMM_MEMCG_DEPTH	3	/* user.slice/user-UID.slice/session-N.scope (systemd.special(7)) */

/* struct page: one per 4 KiB page, 64 bytes, in its chunk's vmemmap. */
struct lab_kpage {
	struct lab_kpage *next, *prev;	/* free, pcp and LRU list links (first: a list head is one too) */
	uint32_t refcount;		/* _refcount */
	uint32_t flags;			/* LAB_KPG_* */
	uint32_t node;
	uint32_t charged;		/* memcg_data: charged to the memcg */
	raw_spinlock_t ptl;		/* page-table pages: the split page-table lock (ptl) */
	uint32_t pad0;
	uint64_t pt_key;		/* PMD pages: the 1 GiB region they map + 1 */
	uint64_t pad[2];
} __lab_cacheline_aligned;

#define LAB_KPG_LRU	0x1u
#define LAB_KPG_ANON	0x2u

/*
 * The kernel's spinlock_t (qspinlock on x86) where the model contends it:
 * zone->lock, lruvec->lru_lock, the rss percpu_counter's lock. A waiter
 * queues and spins on its own node (the MCS queue of qspinlock's slow path,
 * kernel/locking/qspinlock.c, v5.0..v6.x: per-CPU mcs nodes, one per nesting
 * context, MAX_NODES 4), so the holder's and the queue's lines stay apart;
 * the pending-bit shortcut for a single waiter is not modelled (a queued
 * waiter instead). Lock word: the tail of the queue (NULL: free). Native
 * waiters also sched_yield() every 128 polls (user space can be preempted
 * while queued: the kernel cannot).
 */
struct lab_qnode {
	struct lab_qnode *next;
	uint32_t locked;
} __lab_cacheline_aligned;

typedef struct lab_qspinlock {
	struct lab_qnode *tail;
} lab_qspinlock_t;

#define LAB_QNODES 4	/* MAX_NODES: task, softirq, hardirq, NMI nesting */

/* A doubly linked circular list head (struct list_head): the links of a struct lab_kpage. */
struct lab_klist {
	struct lab_kpage *next, *prev;
};

/*
 * A zone (one per node). The kernel's lock follows free_area[] (the buddy
 * lists, v6.2 include/linux/mmzone.h:725-735 between CACHELINE_PADDINGs): at
 * x86-64 offsets its line holds free_area[10].nr_free and zone->flags, the
 * order-0 lists are lines of their own; here one free list and its count
 * stand for the buddy lists, on a line apart from the lock. vm_stat[] starts a
 * line of its own (CACHELINE_PADDING(_pad3_)): NR_FREE_PAGES and
 * NR_ZONE_INACTIVE_ANON are its first two items.
 */
struct lab_kzone {
	lab_qspinlock_t lock;		/* zone->lock (with flags and free_area[10]'s tail: rarely written) */
	long nr_free __lab_cacheline_aligned;	/* free_area's nr_free */
	struct lab_klist free;		/* the free list (the buddy lists' stand-in), a line of its own */
	long vm_free_pages __lab_cacheline_aligned;	/* zone->vm_stat[NR_FREE_PAGES] */
	long vm_lru;			/* zone->vm_stat[NR_ZONE_INACTIVE_ANON] */
	int batch, high;		/* pcp->batch, pcp->high of this zone's pagesets (read-mostly) */
	int threshold;			/* stat_threshold of its CPUs' diffs */
} __lab_cacheline_aligned;

/*
 * A node: the lruvec of the modelled memcg (v5.11+) or pgdat (before), node
 * vm_stat. struct lruvec (v6.2) starts with lists[NR_LRU_LISTS] (80 bytes), then
 * lru_lock: lists[LRU_INACTIVE_ANON] on the first line, the lock on the next.
 */
struct lab_knode {
	struct lab_klist lru;		/* lists[LRU_INACTIVE_ANON] */
	long lru_count;			/* lru_zone_size / the LRU's size */
	lab_qspinlock_t lru_lock __lab_cacheline_aligned;
	long vm_anon __lab_cacheline_aligned;	/* node vm_stat: NR_ANON_MAPPED */
	long vm_lru, vm_pagetable;	/* NR_INACTIVE_ANON, NR_PAGETABLE */
} __lab_cacheline_aligned;

/* Per-CPU state: used by the CPU that owns it, under lab_kcpu_lock(). */
enum { KSTAT_FREE, KSTAT_ZONE_LRU, KSTAT_ANON, KSTAT_LRU, KSTAT_PAGETABLE, KSTAT_NR };
enum { MSTAT_PGFAULT, MSTAT_PGPGIN, MSTAT_ANON, MSTAT_LRU, MSTAT_NR };

struct lab_kcpu {
	raw_spinlock_t local;		/* native: stands for irqs/preemption off (see kmm.c) */
	int nqnode;			/* qnodes in use (nesting) */
	struct lab_qnode *qnode;	/* [LAB_QNODES], each a line of its own */
	raw_spinlock_t pcp_lock;	/* pcp->lock (v6.0+), a real spinlock there too */
	int pcp_count;
	struct lab_klist pcp;		/* pcp->lists[MIGRATE_MOVABLE] */
	int nlru;
	int free_factor;		/* pcp->free_factor (v5.14+): doubles the bulk free, halved per allocation */
	struct lab_kpage *lru[LAB_KMM_LRU_BATCH];	/* cpu_fbatches.lru_add */
	unsigned stock;			/* memcg_stock.nr_pages (cached = the modelled memcg) */
	long vm_diff[KSTAT_NR];		/* vm_stat_diff */
	long memcg_diff[MSTAT_NR];	/* memcg vmstats_percpu (v5.x) */
	unsigned stats_updates;		/* memcg rstat (v6.2) */
	int node;
} __lab_cacheline_aligned;

/* One level of the memcg hierarchy: its page_counter and (v5.x) stat atomics. */
struct lab_kmemcg {
	char *pc;			/* page_counter image (profile offsets), line-aligned */
	long stat[MSTAT_NR] __lab_cacheline_aligned;
};

struct lab_kmm;

/* The rss counter of one mm (v6.2: percpu_counter; v5.x: the mm's atomic). */
struct lab_kmm_rss {
	char *image;			/* the mm_struct image (profile offsets), line-aligned */
	int32_t *pcpu;			/* v6.2: one slot per CPU, a line apart */
};

/* Per-task state the v5.x rss cache needs (task->rss_stat). */
struct lab_ktask {
	long rss;
	unsigned events;
};

/* Model event counters (per CPU, summed by lab_kmm_events()): what the explanations cite. */
#define LAB_KMM_EVENTS(X)							\
	X(pcp_refill)		/* rmqueue_bulk: a batch under zone->lock */	\
	X(pcp_bulk_free)	/* free_pcppages_bulk under zone->lock */	\
	X(lru_drain)		/* folio_batch_move_lru under lru_lock */	\
	X(lru_del)		/* pages taken off the LRU under lru_lock */	\
	X(charge_refill)	/* page_counter_try_charge of a batch */	\
	X(uncharge)		/* page_counter_uncharge calls */		\
	X(vmstat_spill)		/* a per-CPU vmstat diff added to the atomics */\
	X(memcg_stat_spill)	/* a memcg stat diff added to shared counters */\
	X(rss_spill)		/* rss: percpu_counter fold or task cache sync */\
	X(pte_page)		/* page-table pages allocated */		\
	X(pages_alloc)		/* pages allocated */				\
	X(pages_free)		/* pages freed */				\
	X(zone_lock_queued)	/* zone->lock found taken: queued */		\
	X(lru_lock_queued)	/* lru_lock found taken: queued */		\
	X(rss_lock_queued)	/* the rss percpu_counter's lock found taken */

enum lab_kmm_event {
#define LAB_KMM_EV_ENUM(n) LAB_KMM_EV_##n,
	LAB_KMM_EVENTS(LAB_KMM_EV_ENUM)
#undef LAB_KMM_EV_ENUM
	LAB_KMM_EV_NR
};
extern const char *const lab_kmm_event_names[LAB_KMM_EV_NR];

/*
 * The modelled kernel's memory state: every zone, node, CPU and memcg level,
 * shared by all the mms of one workload instance (one machine).
 */
struct lab_kmm {
	const struct lab_kmm_profile *p;
	enum lab_kmm_ver ver;
	int ncpus, nnodes, memcg_depth;
	struct lab_kzone *zone;		/* [nnodes] */
	struct lab_knode *node;		/* [nnodes] */
	struct lab_kcpu *cpu;		/* [ncpus] */
	struct lab_kmemcg *memcg;	/* [memcg_depth + 1]: [0] the task's memcg ... [depth] root */
	long *vm_zone_stat;		/* global vm_zone_stat[] (own line) */
	long *vm_node_stat;		/* global vm_node_stat[] (own line) */
	long *stats_flush_threshold;	/* v6.2 memcg rstat (own line) */
	int rss_batch;			/* percpu_counter_batch */
	uint64_t (*ev)[LAB_KMM_EV_NR];	/* [ncpus] of counters, a line apart */
	struct lab_qnode *qnodes;	/* [ncpus * LAB_QNODES] */
};

/*
 * lab_kmm_init() - the kernel state of version @v with the task's memcg
 * @memcg_depth levels below the root (0: the root memcg, which try_charge
 * skips; LAB_KMM_MEMCG_DEPTH: a systemd login session). Sizes its CPUs and
 * nodes from the simulated machine, or this host (one node). Returns 0 or -ENOMEM.
 */
int lab_kmm_init(struct lab_kmm *k, enum lab_kmm_ver v, int memcg_depth);
void lab_kmm_destroy(struct lab_kmm *k);
/* Count @n events @e on CPU state @c (held). */
static inline void lab_kmm_event(struct lab_kmm *k, struct lab_kcpu *c, enum lab_kmm_event e, uint64_t n)
{
	k->ev[c - k->cpu][e] += n;
}

/* Sum of the per-CPU event counters into @out. */
void lab_kmm_events(const struct lab_kmm *k, uint64_t out[LAB_KMM_EV_NR]);

/*
 * Per-CPU sections (the kernel's local_lock_irqsave / preempt_disable): the
 * caller's CPU state, held until lab_kcpu_put(). Simulated: interrupts off on
 * the simulated CPU (no preemption, exact); native: that CPU's `local` spinlock
 * (a thread may be preempted or migrate; the lock keeps the state consistent).
 */
struct lab_kcpu *lab_kcpu_get(struct lab_kmm *k);
void lab_kcpu_put(struct lab_kmm *k, struct lab_kcpu *c);

/* Per-CPU vmstat item @item += @delta (__mod_zone_page_state / __mod_node_page_state). */
void lab_kmm_vmstat(struct lab_kmm *k, struct lab_kcpu *c, int item, long delta);
/* memcg statistic @item += @delta by the profile's scheme. */
void lab_kmm_memcg_stat(struct lab_kmm *k, struct lab_kcpu *c, int item, long delta);
/* Charge/uncharge @nr pages to the memcg (try_charge / uncharge_batch). */
void lab_kmm_charge(struct lab_kmm *k, struct lab_kcpu *c, unsigned nr);
void lab_kmm_uncharge(struct lab_kmm *k, unsigned long nr);
/* folio_add_lru(): into the CPU's batch; a full batch moves under lru_lock. */
void lab_kmm_lru_add(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kpage *pg);
/* Drain the CPU's LRU batch (lru_add_drain). */
void lab_kmm_lru_drain(struct lab_kmm *k, struct lab_kcpu *c);
/* release_pages()'s LRU part: take @n pages off their LRU under the lock (once per lruvec run). */
void lab_kmm_lru_del(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kpage **pg, int n);
/* The last reference is gone (__folio_put): off the LRU, uncharged, onto the pcp list. */
void lab_kmm_page_release(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kpage *pg);

/* Take a page from the CPU's pcp list, refilling it from the zone (rmqueue_pcplist). NULL: empty zone. */
struct lab_kpage *lab_kmm_pcp_alloc(struct lab_kmm *k, struct lab_kcpu *c);
/* free_unref_page(): onto the CPU's pcp list; beyond pcp->high a batch goes back under zone->lock. */
void lab_kmm_pcp_free(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kpage *pg);
/*
 * Give @n fresh free pages to node @node's zone: the page supply (host memory
 * mapped on demand), which the kernel had from boot. The list is linked with
 * plain stores (the engine charges only zone->lock): the pages' struct pages are
 * first touched, cold, when an allocation takes them.
 */
void lab_kmm_zone_add(struct lab_kmm *k, int node, struct lab_kpage **pg, size_t n);

/* rss counting of one mm (MM_ANONPAGES): the mm_struct image and, v6.2, the per-CPU slots. */
int lab_kmm_rss_init(struct lab_kmm *k, struct lab_kmm_rss *r);
void lab_kmm_rss_destroy(struct lab_kmm_rss *r);
/* add_mm_counter_fast()/add_mm_counter() by the profile; @t: the calling task's cache (v5.x). */
void lab_kmm_rss_add(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kmm_rss *r, struct lab_ktask *t, long delta);
/* The fault's check_sync_rss_stat() (v5.x): sync the task's cache every 66 faults. */
void lab_kmm_rss_fault(struct lab_kmm *k, struct lab_kmm_rss *r, struct lab_ktask *t);
/* Current MM_ANONPAGES value (exact sum; for tests). */
long lab_kmm_rss_read(const struct lab_kmm *k, const struct lab_kmm_rss *r, const struct lab_ktask *tasks, int ntasks);

/*
 * A kmem_cache as SLUB lays it out (kmem_cache.c, with the citations):
 * objects of `size` bytes packed from each 4 KiB slab page's start, the free
 * pointer inside a free object, the last freed object allocated first, else
 * the next never-used one in address order. One area of pages, reserved at
 * creation and kept. Thread-safe (a mutex; no seam call under it).
 */
struct lab_kmem_cache {
	pthread_mutex_t lock;
	char *base;			/* the area: max_pages slab pages */
	size_t len;			/* its bytes */
	unsigned object_size, size;	/* s->object_size, s->size (the stride) */
	unsigned offset;		/* s->offset: the free pointer in a free object */
	unsigned objects;		/* per slab page (oo_objects) */
	size_t max_objects, used;	/* objects of the area; never-used ones start at `used` */
	void *freelist;			/* the last freed object */
};

/* KMEM_CACHE() without SLAB_HWCACHE_ALIGN: @align is __alignof__. Returns 0, -EINVAL (an object of 0 or
 * over 4096 bytes, no pages, an area too large) or -ENOMEM. Not thread-safe (before the cache is shared). */
int lab_kmem_cache_create(struct lab_kmem_cache *c, unsigned object_size, unsigned align, size_t max_pages);
/* An object, or NULL when the area is used up. Thread-safe. */
void *lab_kmem_cache_alloc(struct lab_kmem_cache *c);
/* kmem_cache_free(): @obj (from @c, not in use) heads the freelist. Thread-safe. */
void lab_kmem_cache_free(struct lab_kmem_cache *c, void *obj);
/* Is @obj in @c's area? */
bool lab_kmem_cache_owns(const struct lab_kmem_cache *c, const void *obj);
/* kmem_cache_destroy(): the area goes back; no object of @c may be in use or used after. */
void lab_kmem_cache_destroy(struct lab_kmem_cache *c);

/*
 * The cost model (simulated build): the machine file's cost.kpath.NAME_ns,
 * looked up once. lab_kpath_check() says which key a machine lacks (or NULL);
 * lab_kpath_charge() charges @units of part @part to the caller. Natively
 * both do nothing: the host does the work.
 */
enum lab_kpath_part {
	KP_ENTRY, KP_LOOKUP, KP_ACCOUNT, KP_ALLOC, KP_REFILL, KP_CHARGE, KP_RMAP, KP_LRU_ADD, KP_LRU_MOVE,
	KP_PTE_ALLOC, KP_PTL, KP_USER_TOUCH, KP_ZAP, KP_FREE, KP_UNCHARGE, KP_NR
};
const char *lab_kpath_check(void);
void lab_kpath_charge(enum lab_kpath_part part, double units);
