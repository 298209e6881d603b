/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workloads/mm.h - a user-space model of a process address space (struct mm_struct).
 *
 * Sources: docs/kernel.md §6 (per-VMA locks v6.4 and v6.15+), mm/memory.c
 * handle_mm_fault and arch/x86/mm/fault.c do_user_addr_fault as described there.
 *
 * What is modelled:
 * - VMAs [vm_start, vm_end) with flags, optionally backed by a file object.
 *   The VMA set is a sorted array published under RCU (liburcu, urcu-memb):
 *   writers copy it, change the copy and publish it while holding mmap_lock
 *   for write; lockless readers binary-search the published array under
 *   rcu_read_lock(). This plays the role of the kernel's maple tree.
 * - mmap, munmap (splitting VMAs at the ends), mprotect (split + merge), brk
 *   (expand and shrink the heap VMA in place), madvise(MADV_PAGEOUT)-like
 *   pageout, fork's dup_mmap (copy-on-write sharing of anonymous pages) and
 *   exit_mmap.
 * - A page table per VMA: one slot per page holding the host address of a real
 *   4 KiB page plus state bits (swapped, write-protected, file page). Anonymous
 *   pages come from a page allocator with a per-page reference count; the
 *   fault path clears them (clear_page: a real memset), copies them on a COW
 *   write fault and frees them on unmap.
 * - The fault path, in one of three modes (--mm-lock):
 *     mmap        mmap_lock held for read + find_vma (pre-6.4);
 *     vma         per-VMA locks as merged in v6.4: lock_vma_under_rcu, the
 *                 per-VMA lock is an instance of the variant under test taken
 *                 with down_read_trylock, VMA write-locked state = (vm_lock_seq
 *                 == mm_lock_seq), mmap_write_unlock bumps mm_lock_seq (in
 *                 the mm_struct image: lab_mm_lock_seq); the lock where the
 *                 kernel= has it (lab_mm_set_vma_lock_place);
 *     vma-refcnt  the v6.15+ vm_refcnt scheme: VMA_LOCK_OFFSET writer bit,
 *                 limited increment for readers, the writer waits for
 *                 VMA_LOCK_OFFSET + 1, VMAs are type-stable (reused without
 *                 an RCU grace period, as SLAB_TYPESAFE_BY_RCU).
 *   Any per-VMA failure falls back to mmap_lock, as in the kernel.
 *   Counters vma_lock_success/abort/retry/miss are kept per thread.
 *
 * Model addresses are numbers, not host pointers. Pages are host memory.
 *
 * Threading:
 * - Every thread that calls into this file must be an RCU reader thread; the
 *   calls register it on first use (lab_rcu_thread_online(), locks/rcu.h,
 *   shared with every other RCU user in the thread) and it is unregistered
 *   when the thread exits.
 * - lab_mm_fault()/lab_mm_access()/lab_mm_pageout() run concurrently with
 *   each other and with the mmap_lock writers (mmap, munmap, mprotect, brk,
 *   dup). lab_mm_destroy() needs that nobody else uses the mm.
 * - Each thread passes its own struct lab_mm_thread (page cache + counters).
 * - A page returned by a fault stays valid until its range is unmapped or the
 *   mm is destroyed; a caller that keeps page pointers must not race its own
 *   unmaps (like user code that munmaps memory another thread still uses).
 *
 * What is not modelled: THP, NUMA, the zero page (read faults allocate a page),
 * userfaultfd, stack expansion, reclaim other than explicit pageout.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* (LAB_SIM tested without compiler.h: included first, it would change urcu's own macros.) */
#if defined(LAB_SIM) && LAB_SIM
#include "rcu_sim.h"	/* the engine's RCU: see locks/rcu_sim.h */
#else
#include <urcu/urcu-memb.h>
#endif

#include "kmm.h"
#include "rwsem.h"

#define LAB_PAGE_SHIFT	12
#define LAB_PAGE_SIZE	(1ul << LAB_PAGE_SHIFT)
#define LAB_PAGE_ALIGN(x)	(((x) + LAB_PAGE_SIZE - 1) & ~(LAB_PAGE_SIZE - 1))

/* vm_flags (the kernel's values for the first four). */
#define LAB_VM_READ	0x1ul
#define LAB_VM_WRITE	0x2ul
#define LAB_VM_EXEC	0x4ul
#define LAB_VM_SHARED	0x8ul

/* RCU reader registration: lab_rcu_thread_online() from locks/rcu.h. */
#include "rcu.h"

/* ---- page allocator ---------------------------------------------------------
 *
 * The modelled kernel's page allocator, LRU, memcg and statistics (kmm.h:
 * per-CPU pcp lists refilled in batches under zone->lock, the LRU folio batch,
 * the memcg stock, vmstat diffs), fed with host memory: 2 MiB-aligned chunks
 * of pre-faulted pages whose first 8 pages hold the other 504 pages' struct
 * pages (struct lab_kpage, 64 bytes each), mapped when a zone runs empty.
 */
struct lab_page_alloc {
	pthread_mutex_t lock;		/* chunk growth (no seam call under it) */
	void **chunks;			/* chunk bases, for destroy */
	size_t nchunks, cap_chunks;
	size_t max_chunks;		/* 0 = no limit */
	struct lab_kmm k;		/* the kernel's state over these pages */
	bool k_ok;
};

/* Limit @max_mb MiB of pages (0 = none); the kernel state is LAB_KMM_DEFAULT's. Returns 0 or -errno. */
int lab_page_alloc_init(struct lab_page_alloc *pa, size_t max_mb);
/* lab_meminfo() - the host's /proc/meminfo field @name ("MemAvailable") in bytes, or 0 where it is not there. */
size_t lab_meminfo(const char *name);
/*
 * lab_page_alloc_kernel() - model kernel @ver with the tasks' memcg @memcg_depth
 * levels below the root (kmm.h). Before any page is supplied. Returns 0,
 * -EBUSY (pages exist) or -ENOMEM.
 */
int lab_page_alloc_kernel(struct lab_page_alloc *pa, enum lab_kmm_ver ver, int memcg_depth);
/* Make sure @npages pages are free (pre-faulted), spread over the nodes, growing now. Returns 0 or -ENOMEM. */
int lab_page_alloc_reserve(struct lab_page_alloc *pa, size_t npages);
/* Unmap every chunk. No page may be in use. */
void lab_page_alloc_destroy(struct lab_page_alloc *pa);
/* Host memory held, in pages (for reports). */
size_t lab_page_alloc_pages(struct lab_page_alloc *pa);
/* Free pages in the zones (for tests; not counting per-CPU lists). */
size_t lab_page_alloc_free(struct lab_page_alloc *pa);
/* lru_add_drain_all() and the pcp lists back to the zones (teardown, tests). Nothing else may run. */
void lab_page_alloc_drain(struct lab_page_alloc *pa);

/* ---- per-thread state ------------------------------------------------------ */

#define LAB_MM_EVENTS(X)						\
	X(vma_lock_success)	/* fault handled under the per-VMA lock */	\
	X(vma_lock_abort)	/* per-VMA lock not taken: fell back */		\
	X(vma_lock_retry)	/* handled under it, needed mmap_lock: fell back */ \
	X(vma_lock_miss)	/* found a detached VMA: walked again */	\
	X(fault_mmap)		/* faults completed under mmap_lock */		\
	X(fault_segv)		/* faults with no VMA or a bad access */	\
	X(fault_cow)		/* write faults that copied a shared page */	\
	X(fault_swapin)		/* faults that read a swapped page back */	\
	X(fault_file)		/* faults that read a file page in */

enum lab_mm_event {
#define LAB_MM_EV_ENUM(n) LAB_MM_EV_##n,
	LAB_MM_EVENTS(LAB_MM_EV_ENUM)
#undef LAB_MM_EV_ENUM
	LAB_MM_EV_NR
};

extern const char *const lab_mm_event_names[LAB_MM_EV_NR];

/* Slack a reservation should leave per thread: what per-CPU lists may hold. */
#define LAB_MM_CACHE_BATCH 63

struct lab_mm;

struct lab_mm_thread {
	struct lab_page_alloc *pa;
	struct lab_mm *rss_mm;		/* v5.x: the mm whose rss this task caches (task->mm) */
	struct lab_ktask kt;		/* v5.x: task->rss_stat */
	uint64_t ev[LAB_MM_EV_NR];
};

void lab_mm_thread_init(struct lab_mm_thread *t, struct lab_page_alloc *pa);
/* The task exits: its rss cache goes to its mm (sync_mm_rss; counters are kept). */
void lab_mm_thread_drain(struct lab_mm_thread *t);

/* ---- files (the page cache) ----------------------------------------------- */

/*
 * A file object whose pages are read in on first use. With @fill NULL it is
 * shmem-like (a missing page is a fresh zeroed page, no I/O); otherwise a
 * missing page needs "I/O": @fill(arg, pgoff, page) writes its contents. A
 * fault under a per-VMA lock never does I/O: it returns VM_FAULT_RETRY and
 * the mmap_lock path reads the page.
 */
struct lab_vma;

struct lab_mm_file {
	size_t npages;
	uintptr_t *page;		/* host page per offset, 0 until read in */
	void (*fill)(void *arg, size_t pgoff, void *page);
	void *arg;
	struct lab_page_alloc *pa;
	/* address_space->i_mmap and i_mmap_rwsem, once lab_mm_file_i_mmap() gave it a lock */
	struct lab_lock i_mmap_rwsem;
	bool i_mmap_ok;
	struct lab_vma *i_mmap;		/* the VMAs that map the file (a list here, an interval tree there) */
	long i_mmap_count;		/* their number, under i_mmap_rwsem */
	/*
	 * References, as struct file's f_count: the creator's, and one per
	 * mapping linked into i_mmap (get_file in mmap_region / dup_mmap, fput
	 * in remove_vma). Not a modelled access under --sim (see mm.c).
	 */
	long refs;
	bool dynamic;			/* from lab_mm_file_new(): freed with its last reference */
};

int lab_mm_file_init(struct lab_mm_file *f, size_t npages, struct lab_page_alloc *pa,
		     void (*fill)(void *arg, size_t pgoff, void *page), void *arg);
/*
 * lab_mm_file_i_mmap() - give @f an i_mmap_rwsem of variant @conf. From then
 * on, as in the kernel (v6.x mm/vma.c, mm/mmap.c: vma_link_file,
 * unlink_file_vma, dup_mmap), every mapping of the file is linked into and
 * unlinked from its i_mmap under down_write(i_mmap_rwsem): on mmap, on munmap
 * and mprotect (the VMAs they replace and create: one lock round each, where
 * the kernel takes one for the whole split), on fork (each file VMA of the
 * copy) and on exit (each file VMA). Without it no lock is taken (pft, the
 * tests). Returns 0 or the lock's init error. Call before the first mapping.
 */
int lab_mm_file_i_mmap(struct lab_mm_file *f, const struct lab_rwsem_conf *conf);
/*
 * lab_mm_file_new() - lab_mm_file_init() of a file on the heap, for one that
 * may outlive its creator's frame: a mapping copied by another thread's fork
 * keeps it (as the copy's VMA holds the struct file) until that mapping goes.
 * Returns NULL when out of memory.
 */
struct lab_mm_file *lab_mm_file_new(size_t npages, struct lab_page_alloc *pa,
				    void (*fill)(void *arg, size_t pgoff, void *page), void *arg);
/*
 * lab_mm_file_destroy() - drop the creator's reference (shmctl(IPC_RMID),
 * close): the page cache is freed now, or for a file of lab_mm_file_new()
 * with its last i_mmap mapping (returned through that unmapper's thread).
 * A file embedded in the caller's memory must have no mapping left: one that
 * has prints a line and aborts (its memory is about to go). Any thread.
 */
void lab_mm_file_destroy(struct lab_mm_file *f, struct lab_mm_thread *t);

/* ---- VMAs and the mm -------------------------------------------------------- */

/* PMD pages an mm can have: 1 GiB of address space each (64 GiB mapped at most). */
#define LAB_MM_PMD_SLOTS 64

/*
 * The fault paths (the mm_lock knob's values, run's --mm-lock), in knob
 * order: X(ENUM, "name", "title"), SEP between two entries (so that a list
 * of the names is one string literal: SEP "|" for a knob's choices). The
 * title is what a table comparing the paths calls each, as the kernel's
 * threads do: mmap_lock (read, then find_vma), per-VMA (v6.4's vma read
 * lock, vm_lock_seq), vm_refcnt (v6.15).
 */
#define LAB_MM_LOCK_MODES(X, SEP) \
	X(MMAP, "mmap", "mmap_lock") SEP \
	X(VMA, "vma", "per-VMA") SEP \
	X(VMA_REFCNT, "vma-refcnt", "vm_refcnt")

enum lab_mm_lock_mode {
#define LAB_MM_LOCK_ENUM_(e, name, title) LAB_MM_LOCK_##e,
	LAB_MM_LOCK_MODES(LAB_MM_LOCK_ENUM_, )
#undef LAB_MM_LOCK_ENUM_
};
#define LAB_MM_LOCK_ONE_(e, name, title) + 1
enum { LAB_MM_LOCK_NR = 0 LAB_MM_LOCK_MODES(LAB_MM_LOCK_ONE_, ) };	/* outside the enum: switches stay exhaustive */
#undef LAB_MM_LOCK_ONE_
#define LAB_MM_LOCK_NAME_(e, name, title) name
#define LAB_MM_LOCK_CHOICES LAB_MM_LOCK_MODES(LAB_MM_LOCK_NAME_, "|")	/* "mmap|vma|vma-refcnt" */
#define LAB_MM_LOCK_WORDS LAB_MM_LOCK_MODES(LAB_MM_LOCK_NAME_, " ")	/* "mmap vma vma-refcnt" */
#define LAB_MM_LOCK_LIST LAB_MM_LOCK_MODES(LAB_MM_LOCK_NAME_, ", ")	/* "mmap, vma, vma-refcnt" */
extern const char *const lab_mm_lock_mode_names[LAB_MM_LOCK_NR];
extern const char *const lab_mm_lock_mode_titles[LAB_MM_LOCK_NR];	/* "mmap_lock", "per-VMA", "vm_refcnt" */
/* The name of @m ("mmap" for a value out of range). */
const char *lab_mm_lock_mode_name(enum lab_mm_lock_mode m);

/* v6.15+ vm_refcnt (include/linux/mm_types.h). */
#define VMA_LOCK_OFFSET	0x40000000u
#define VMA_REF_LIMIT	(VMA_LOCK_OFFSET - 1)

/* Page-table entry bits (the low bits of a page address). */
#define LAB_PTE_SWP	0x1ul		/* swapped out: the page holds the swap copy */
#define LAB_PTE_WP	0x2ul		/* write-protected: a write copies (COW) */
#define LAB_PTE_FILE	0x4ul		/* a page-cache page: not refcounted by the mapping */
#define LAB_PTE_FLAGS	0x7ul

/* Room for a per-VMA lock inside the VMA (pvl-v2): the largest LAB_CAP_EMBED variant's state. */
#define LAB_VMA_LOCK_ROOM	256

struct lab_vma {
	/*
	 * The first line is what every fault reads, as v6.2's vm_area_struct
	 * starts (vm_start, vm_end, vm_mm, vm_page_prot, vm_flags), with
	 * vm_lock_seq. The pvl-v2 series put the per-VMA rw_semaphore "on the
	 * cache line boundary so that its 'count' field falls into the first
	 * cache line while the rest of the fields fall into the second" (its
	 * "mm: add per-VMA lock and helper functions to control it"; v4's
	 * 20230227173632.3292573-34-surenb moved it out for the bouncing this
	 * caused): with vma_lock_embed the lock lives in vm_lock_image, count
	 * @56 on this line, owner @64 on the next.
	 */
	uintptr_t vm_start, vm_end;	/* written under mmap_lock(w) + VMA write lock; READ_ONCE elsewhere */
	struct lab_mm *vm_mm;
	unsigned long vm_flags;		/* also stands for vm_page_prot, on this line in the kernel */
	uint32_t vm_lock_seq;		/* == mm->mm_lock_seq: write-locked */
	uint32_t detached;
	/* vma: the variant's lock, in vm_lock_image (v6.2, pvl-v2) or allocated apart (v6.4) */
	struct lab_lock *vm_lock;
	unsigned long vm_pad;
	unsigned char vm_lock_image[LAB_VMA_LOCK_ROOM] __attribute__((aligned(8)));
	struct lab_mm_file *vm_file;	/* NULL = anonymous */
	size_t vm_pgoff;		/* file offset of vm_start, in pages */
	uintptr_t *pte;			/* one entry per page; capacity pte_cap */
	size_t pte_cap;
	uint32_t anon_vma;		/* 1 once anon_vma_prepare() ran (v6.4 needs it) */
	/* vma-refcnt (v6.15+): 0 detached, 1 attached, 1+k readers, OFFSET bit writer */
	uint32_t vm_refcnt __attribute__((aligned(64)));
	struct rcu_head vm_rcu;
	struct lab_vma *free_next;	/* type-stable cache link */
	struct lab_vma *i_mmap_next, *i_mmap_prev;	/* vm_file->i_mmap, under its i_mmap_rwsem */
};
_Static_assert(__builtin_offsetof(struct lab_vma, vm_lock_image) == 56,
	       "pvl-v2: the lock's count is the first line's last word");

/* The RCU-published VMA set: sorted by vm_start, non-overlapping. */
struct lab_vma_tree {
	struct rcu_head rcu;
	int n;
	struct lab_vma *v[];
};

/* A program break: [start_brk, brk) is the heap VMA, growing up to start_brk + max. */
struct lab_brk {
	uintptr_t start_brk, brk, max;
};

struct lab_mm {
	struct lab_lock mmap_lock;
	enum lab_mm_lock_mode mode;
	const struct lab_rwsem_conf *lock_conf;	/* the variant, for per-VMA locks */
	struct lab_page_alloc *pa;
	struct lab_vma_tree *mt;	/* RCU-published */
	uint32_t mm_lock_seq;		/* vma: +1 per write unlock; vma-refcnt: odd while write-locked */
	uint8_t vma_lock_place;		/* vma: enum lab_vma_lock_place of new VMAs' locks (never KERNEL) */
	bool mm_lock_seq_in_image;	/* vma: mm_lock_seq is the image's (lab_mm_lock_seq()), not the field above */
	struct lab_kmm_rss rss;		/* the mm_struct image: rss_stat, pgtables_bytes, page_table_lock */
	struct lab_kpage *pmd[LAB_MM_PMD_SLOTS];	/* PMD pages by 1 GiB region (the PUD level, hashed) */
	uint32_t tlb_gen;		/* bumped when translations are revoked (utlb shootdown) */
	uintptr_t mmap_base;		/* next unmapped address for mmap (bump, never reused) */
	uintptr_t brk_base;		/* next address for a new program break reservation */
	struct lab_brk brk;		/* the mm's own break (lab_mm_brk with NULL) */
};

/*
 * lab_mm_lock_seq() - the mm's mm_lock_seq. In vma mode on a kernel that has
 * it in struct mm_struct at a known offset, it is that word of the mm_struct
 * image (kmm.c's profiles), so per-VMA readers read it from the line the
 * kernel has it on:
 *   v6.4 (6.4.6 tree, kmm.c): include/linux/mm_types.h:674-683 mmap_lock,
 *     mmlist, then int mm_lock_seq: @184, on the line of mmap_lock's count
 *     @128 and owner @136; include/linux/mm.h:642-662 vma_start_read reads it
 *     twice, include/linux/mmap_lock.h:76-81 vma_end_write_all (from
 *     mmap_write_unlock :125-129, mmap_write_downgrade :132-136) adds 1;
 *     kernel/fork.c:1269 mm_init sets 0;
 *   v6.2 with the pvl-v2 series (the per-VMA table's kernel): its "[PATCH v2
 *     11/33] mm: add per-VMA lock and helper functions to control it"
 *     (20230127194110.533103-12-surenb@google.com) adds int mm_lock_seq to
 *     mm_struct right after mmlist (its mm_types.h hunk @@ -633,6 +638,9 @@),
 *     which follows mmap_lock @112: @168, on the line after the count's, with
 *     the rest of mmap_lock (osq, wait_lock, wait_list) and mmlist.
 * Otherwise the field mm->mm_lock_seq: the mmap and vma-refcnt modes (the
 * v6.15 layout is not modelled), v5.x (no per-VMA locks), and an embedded
 * mmap_lock whose variant keeps its own fields on that word (rwsem-rspin:
 * lab_lock_embed_free()).
 */
static inline uint32_t *lab_mm_lock_seq(struct lab_mm *mm)
{
	if (mm->mm_lock_seq_in_image)
		return (uint32_t *)(mm->rss.image + mm->pa->k.p->mm_lock_seq);
	return &mm->mm_lock_seq;
}

/*
 * lab_mm_init() - an empty mm whose mmap_lock (and, in vma mode, every per-VMA
 * lock) is a lock of @lock, faulting in @mode, taking pages from @pa.
 * Returns 0, -EINVAL if vma mode is asked of a variant without
 * down_read_trylock, or -ENOMEM.
 */
int lab_mm_init(struct lab_mm *mm, const struct lab_rwsem_conf *lock, enum lab_mm_lock_mode mode,
		struct lab_page_alloc *pa);
/*
 * Where vma mode's per-VMA locks live: the modelled kernel's place by default
 * (lab_kmm_profile: v6.2 runs the pvl-v2 series, the lock inside the VMA with
 * its count on the VMA's first line; v6.4 a struct vma_lock from a kmem_cache
 * without SLAB_HWCACHE_ALIGN, 40-byte objects packed in slab pages, so
 * neighbouring VMAs' locks share lines (vma_lock.c); v5.x apart), or as
 * @place says: inside; apart, a line-aligned object of the variant's own;
 * slab, v6.4's. Only a variant with LAB_CAP_EMBED can be inside and one with
 * LAB_CAP_PACKED in the slab; another stays apart. Call after lab_mm_init,
 * before the first mmap (VMAs keep the place they were made with). Not
 * thread-safe.
 */
enum lab_vma_lock_place { LAB_VMA_LOCK_KERNEL, LAB_VMA_LOCK_INSIDE, LAB_VMA_LOCK_APART, LAB_VMA_LOCK_SLAB };
#define LAB_VMA_LOCK_CHOICES "kernel|inside|apart|slab"
void lab_mm_set_vma_lock_place(struct lab_mm *mm, enum lab_vma_lock_place place);
/* exit_mmap: unmap everything (pages back through @t) and free the mm's state. */
void lab_mm_destroy(struct lab_mm *mm, struct lab_mm_thread *t);
/*
 * lab_mm_dup() - fork's dup_mmap: @child (fresh from lab_mm_init) gets a copy
 * of every VMA of @parent; private anonymous pages become shared and
 * write-protected in both (copy on write). Takes @parent's mmap_lock for
 * write and write-locks each of its VMAs. Returns 0 or -ENOMEM.
 */
int lab_mm_dup(struct lab_mm *child, struct lab_mm *parent, struct lab_mm_thread *t);

/* Wait until every VMA freed so far through RCU is gone (rcu_barrier). Not from a reader section. */
void lab_mm_rcu_barrier(void);

/*
 * lab_mm_mmap() - map @len bytes (rounded up to pages) at a fresh address.
 * @file/@pgoff: backing file and offset in pages, or NULL for anonymous.
 * Returns the address, or 0 on failure (out of memory, bad arguments).
 */
uintptr_t lab_mm_mmap(struct lab_mm *mm, size_t len, unsigned long flags, struct lab_mm_file *file,
		      size_t pgoff);
/* Unmap [start, start + len) (page aligned); VMAs partly inside are split. Returns 0 or -EINVAL. */
int lab_mm_munmap(struct lab_mm *mm, uintptr_t start, size_t len, struct lab_mm_thread *t);
/*
 * lab_mm_mprotect() - set the READ/WRITE/EXEC bits of every VMA in the range
 * (splitting at the ends, merging equal neighbours). Returns 0, -EINVAL, or
 * -ENOMEM when part of the range is not mapped (as mprotect(2)).
 */
int lab_mm_mprotect(struct lab_mm *mm, uintptr_t start, size_t len, unsigned long prot);

/*
 * lab_mm_brk_reserve() - give @b its own address range of @max bytes, for a
 * per-thread program break (glibc's per-thread heaps); lab_mm_init() sets up
 * mm->brk the same way.
 */
int lab_mm_brk_reserve(struct lab_mm *mm, struct lab_brk *b, size_t max);
/*
 * lab_mm_brk() - sys_brk on @b (NULL = the mm's own): move the break to
 * @newbrk, growing or shrinking the heap VMA in place. Returns the new break,
 * or the old one if @newbrk is out of range (as brk(2)).
 */
uintptr_t lab_mm_brk(struct lab_mm *mm, struct lab_brk *b, uintptr_t newbrk, struct lab_mm_thread *t);

/* madvise(MADV_PAGEOUT)-like: mark the present anonymous pages of the range swapped. Returns pages. */
size_t lab_mm_pageout(struct lab_mm *mm, uintptr_t start, size_t len);

/* ---- faults ------------------------------------------------------------------ */

#define LAB_FAULT_WRITE 0x1u

struct lab_fault {
	uintptr_t addr;
	unsigned flags;			/* LAB_FAULT_WRITE */
	/* optional access performed while the fault still holds its lock */
	void *buf;
	size_t len;			/* bytes at addr (within one page) copied to/from buf */
	/* out */
	char *page;			/* host address of the page */
	bool writable;			/* the mapping allows writes without another fault */
};

/*
 * lab_mm_fault() - handle a user fault at f->addr. Returns 0 with f->page set;
 * -EFAULT if no VMA covers the address or the access is not allowed (SIGSEGV);
 * -ENOMEM if no page could be allocated. If f->buf is set, f->len bytes are
 * written from it (LAB_FAULT_WRITE) or read into it under the fault's lock,
 * with the page pinned (the fault's lock is a read lock: another thread's COW
 * may replace the page meanwhile, and its last other owner free it).
 */
int lab_mm_fault(struct lab_mm *mm, struct lab_fault *f, struct lab_mm_thread *t);

/* Copy to/from model memory, faulting as needed, each page under its fault's lock. */
int lab_mm_access(struct lab_mm *mm, uintptr_t addr, void *buf, size_t len, bool write,
		  struct lab_mm_thread *t);

/* Caller holds mmap_lock (read or write): the VMA containing @addr, else the next one, else NULL. */
struct lab_vma *lab_mm_find_vma(struct lab_mm *mm, uintptr_t addr);

void lab_mmap_read_lock(struct lab_mm *mm);
int lab_mmap_read_trylock(struct lab_mm *mm);
void lab_mmap_read_unlock(struct lab_mm *mm);
void lab_mmap_write_lock(struct lab_mm *mm);
/* Also releases every VMA write lock taken in this session (bumps mm_lock_seq). */
void lab_mmap_write_unlock(struct lab_mm *mm);

/*
 * lab_mm_check() - verify the structure: sorted, non-overlapping, page
 * aligned VMAs of this mm, attached, with consistent page tables. Caller holds
 * mmap_lock for write (or nobody else uses the mm). Returns 0 or -1 with a
 * message in @err.
 */
int lab_mm_check(struct lab_mm *mm, char *err, size_t errlen);
/* Number of VMAs (caller holds mmap_lock). */
int lab_mm_map_count(struct lab_mm *mm);

/*
 * Test seam: when set, lock_vma_under_rcu() calls it between the lockless
 * lookup and vma_start_read(), inside the RCU read-side section, so a test can
 * change the address space at exactly that point. NULL in normal runs.
 */
extern void (*lab_mm_walk_hook)(struct lab_mm *mm, struct lab_vma *vma, uintptr_t addr);

/*
 * Test seam: when set, a fault that copies to or from its page (f->buf set:
 * lab_mm_access) calls it after it picked @page from the page-table entry and
 * before it pins and touches the page, still under the fault's lock (the
 * per-VMA lock or mmap_lock, for read), so a test can change the page tables
 * at exactly that point. NULL in normal runs.
 */
extern void (*lab_mm_access_hook)(struct lab_mm *mm, uintptr_t addr, void *page);

/* ---- a software TLB for workloads that touch model memory ------------------
 *
 * Translations cached by one thread; dropped when the mm's tlb_gen moves
 * (unmap, write-protect, pageout), a lazy stand-in for TLB shootdown.
 */
#define LAB_UTLB_SIZE 64

struct lab_utlb {
	uint32_t gen;
	struct {
		uintptr_t vpn;		/* page number + 1; 0 = empty */
		char *page;
		bool writable;
	} e[LAB_UTLB_SIZE];
};

void lab_utlb_flush(struct lab_utlb *tlb);
/* Host address backing @addr for a read or write, faulting if needed; NULL on SIGSEGV/OOM. */
char *lab_utlb_get(struct lab_mm *mm, struct lab_utlb *tlb, uintptr_t addr, bool write,
		   struct lab_mm_thread *t);
/* memcpy/memset into model memory through @tlb. Return 0 or -EFAULT. */
int lab_uwrite(struct lab_mm *mm, struct lab_utlb *tlb, uintptr_t addr, const void *src, size_t len,
	       struct lab_mm_thread *t);
int lab_uread(struct lab_mm *mm, struct lab_utlb *tlb, uintptr_t addr, void *dst, size_t len,
	      struct lab_mm_thread *t);
int lab_umemset(struct lab_mm *mm, struct lab_utlb *tlb, uintptr_t addr, int c, size_t len,
		struct lab_mm_thread *t);
