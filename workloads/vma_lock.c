/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-VMA locks for the mm model: the v6.4 scheme (a per-VMA rwsem of the
 * variant under test plus vm_lock_seq) and the v6.15+ vm_refcnt scheme.
 * Citation: docs/kernel.md §6.1 (v6.4 include/linux/mm.h, mm/memory.c
 * lock_vma_under_rcu) and §6.3 (v6.18 include/linux/mmap_lock.h,
 * mm/mmap_lock.c). The layout and protocol are summarised in vma_lock.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "compiler.h"
#include "err.h"
#include "kmm.h"
#include "vma_lock.h"
#include "wait.h"

void (*lab_mm_walk_hook)(struct lab_mm *mm, struct lab_vma *vma, uintptr_t addr);

/* ---- mmap_lock ---------------------------------------------------------------- */

void lab_mmap_read_lock(struct lab_mm *mm)
{
	lab_down_read(&mm->mmap_lock);
}

int lab_mmap_read_trylock(struct lab_mm *mm)
{
	if (!mm->mmap_lock.ops->down_read_trylock)
		return 0;
	return lab_down_read_trylock(&mm->mmap_lock);
}

void lab_mmap_read_unlock(struct lab_mm *mm)
{
	lab_up_read(&mm->mmap_lock);
}

void lab_mmap_write_lock(struct lab_mm *mm)
{
	uint32_t *seq = lab_mm_lock_seq(mm);

	lab_down_write(&mm->mmap_lock);
	if (mm->mode == LAB_MM_LOCK_VMA_REFCNT) {
		/* raw_write_seqcount_begin: odd from here; the fence orders it before the VMA changes. */
		WRITE_ONCE(*seq, *seq + 1);
		smp_wmb();
	}
}

void lab_mmap_write_unlock(struct lab_mm *mm)
{
	uint32_t *seq = lab_mm_lock_seq(mm);

	/*
	 * vma_end_write_all(): one increment ends every VMA write lock of this
	 * session. Release: a reader that sees the new value (acquire in
	 * lab_vma_start_read) also sees every change made to the VMAs.
	 */
	if (mm->mode != LAB_MM_LOCK_MMAP)
		smp_store_release(seq, *seq + 1);
	lab_up_write(&mm->mmap_lock);
}

/* ---- VMA objects ------------------------------------------------------------------ */

/* The type-stable cache of vma-refcnt VMAs: memory is never returned while the process runs. */
static struct {
	pthread_mutex_t lock;
	struct lab_vma *head;
} vma_cache = { PTHREAD_MUTEX_INITIALIZER, NULL };

/*
 * The per-VMA lock where the modelled kernel has it (lab_mm_set_vma_lock_place):
 * inside the VMA for v6.2 (pvl-v2: count on the VMA's first line, mm.h), for a variant
 * with the kernel's rw_semaphore layout (LAB_CAP_EMBED); for v6.4 a struct
 * vma_lock from vma_lock_cachep (below), for a variant whose state packs into
 * the kernel's 40 bytes (LAB_CAP_PACKED); else a line-aligned object of its own.
 */
bool lab_vma_lock_fits_inside(const struct lab_rwsem_conf *conf)
{
	return (conf->ops->caps & LAB_CAP_EMBED) && conf->ops->size <= LAB_VMA_LOCK_ROOM;
}

bool lab_vma_lock_fits_slab(const struct lab_rwsem_conf *conf)
{
	return conf->ops->caps & LAB_CAP_PACKED;
}

/*
 * v6.4's vma_lock_cachep (6.4.6 tree: kernel/fork.c:3305 KMEM_CACHE(vma_lock,
 * SLAB_PANIC|SLAB_ACCOUNT), no SLAB_HWCACHE_ALIGN; include/linux/mm_types.h:474-476
 * struct vma_lock { struct rw_semaphore lock; }, 40 bytes; kernel/fork.c:459-476
 * vma_lock_alloc/vma_lock_free, from vm_area_alloc/vm_area_dup :494/:516 and the
 * RCU-deferred __vm_area_free): one cache for the whole run, as the kernel has
 * one for every mm, its objects at a 40-byte stride from each slab page's start
 * (kmem_cache.c), so a VMA's lock shares its lines with the locks allocated
 * just before and after it. VMAs' locks come from it in the order their VMAs
 * are made; a freed lock is the next one handed out. The area is 1 MiB
 * (26,112 locks alive at once); past it a lock is a line-aligned object, and
 * the first such lock prints a warning (the run then mixes two layouts).
 */
#define VMA_LOCK_CACHE_PAGES 256

static struct lab_kmem_cache vma_lock_cachep;
static pthread_once_t vma_lock_cache_once = PTHREAD_ONCE_INIT;
static bool vma_lock_cache_ok;

static void vma_lock_cache_create(void)
{
	struct lab_kmem_cache *c = &vma_lock_cachep;

	if (lab_kmem_cache_create(c, LAB_RWSEM_KERNEL_SIZE, 8, VMA_LOCK_CACHE_PAGES))
		return;
	vma_lock_cache_ok = !lab_lock_packed_area(c->base, c->len);
}

/* A struct vma_lock of the cache with a lock of @conf in it; -ENOMEM when the cache has none. */
static int vma_lock_slab_init(struct lab_lock *l, const struct lab_rwsem_conf *conf)
{
	void *obj;
	int r;

	pthread_once(&vma_lock_cache_once, vma_lock_cache_create);
	obj = vma_lock_cache_ok ? lab_kmem_cache_alloc(&vma_lock_cachep) : NULL;
	if (!obj)
		return -ENOMEM;
	r = lab_lock_init_packed(l, conf, obj);
	if (r)
		lab_kmem_cache_free(&vma_lock_cachep, obj);
	return r;
}

static int vma_lock_init(struct lab_mm *mm, struct lab_vma *vma)
{
	const struct lab_rwsem_conf *conf = mm->lock_conf;

	if (mm->vma_lock_place == LAB_VMA_LOCK_INSIDE && lab_vma_lock_fits_inside(conf))
		return lab_lock_init_at(vma->vm_lock, conf, vma->vm_lock_image, sizeof(vma->vm_lock_image));
	if (mm->vma_lock_place == LAB_VMA_LOCK_SLAB && lab_vma_lock_fits_slab(conf)) {
		static int warned;	/* host bookkeeping, not a modelled access */
		int r = vma_lock_slab_init(vma->vm_lock, conf);

		if (!r)
			return 0;
		/* not silent: from here the run's VMA locks mix two layouts */
		if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			lab_err("WARNING: v6.4's vma_lock slab has no free object (%s; %d pages of %u locks); later "
				"VMAs get a line-aligned lock, not the kernel's packed layout", strerror(-r),
				VMA_LOCK_CACHE_PAGES, vma_lock_cachep.objects);
	}
	return lab_lock_init(vma->vm_lock, conf);
}

struct lab_vma *lab_vma_obj_alloc(struct lab_mm *mm)
{
	struct lab_vma *vma = NULL;

	if (mm->mode == LAB_MM_LOCK_VMA_REFCNT) {
		pthread_mutex_lock(&vma_cache.lock);
		vma = vma_cache.head;
		if (vma)
			vma_cache.head = vma->free_next;
		pthread_mutex_unlock(&vma_cache.lock);
		if (vma) {
			/*
			 * Stale readers may still load these fields (never vm_refcnt
			 * != 0: it stays 0 until attach), so they are stored whole.
			 */
			WRITE_ONCE(vma->vm_start, 0);
			WRITE_ONCE(vma->vm_end, 0);
			WRITE_ONCE(vma->vm_mm, mm);
			WRITE_ONCE(vma->vm_lock_seq, UINT32_MAX);
			vma->vm_flags = 0;
			vma->vm_file = NULL;
			vma->vm_pgoff = 0;
			vma->pte = NULL;
			vma->pte_cap = 0;
			WRITE_ONCE(vma->anon_vma, 0);
			return vma;
		}
	}
	if (posix_memalign((void **)&vma, 64, sizeof(*vma)))
		return NULL;
	memset(vma, 0, sizeof(*vma));
	vma->vm_mm = mm;
	vma->vm_lock_seq = UINT32_MAX;
	if (mm->mode == LAB_MM_LOCK_VMA) {
		vma->vm_lock = malloc(sizeof(*vma->vm_lock));
		if (!vma->vm_lock || vma_lock_init(mm, vma)) {
			free(vma->vm_lock);
			free(vma);
			return NULL;
		}
	}
	return vma;
}

static bool vma_lock_embedded(const struct lab_vma *vma)
{
	return (const void *)vma->vm_lock->sem == (const void *)vma->vm_lock_image;
}

static void vma_free_now(struct lab_vma *vma)
{
	struct lab_lock *l = vma->vm_lock;

	if (l) {
		void *sem = l->sem;

		if (vma_lock_embedded(vma)) {
			lab_lock_destroy_at(l);
		} else if (lab_kmem_cache_owns(&vma_lock_cachep, sem)) {
			lab_lock_destroy_at(l);
			lab_kmem_cache_free(&vma_lock_cachep, sem);	/* vma_lock_free() */
		} else {
			lab_lock_destroy(l);
		}
		free(l);
	}
	free(vma->pte);
	free(vma);
}

/*
 * VMAs whose grace period has ended, waiting to be freed by a thread of the
 * workload. The RCU callback does not free them itself: destroying the VMA's
 * lock may sleep (percpu-rwsem's percpu_free_rwsem waits in rcu_barrier, which
 * the kernel does not allow in a callback either) and would register liburcu's
 * call_rcu worker, which liburcu has registered already.
 */
static struct {
	pthread_mutex_t lock;
	struct lab_vma *head;
} vma_graveyard = { PTHREAD_MUTEX_INITIALIZER, NULL };

static void vma_free_rcu(struct rcu_head *head)
{
	struct lab_vma *vma = lab_container_of(head, struct lab_vma, vm_rcu);

	pthread_mutex_lock(&vma_graveyard.lock);
	vma->free_next = vma_graveyard.head;
	vma_graveyard.head = vma;
	pthread_mutex_unlock(&vma_graveyard.lock);
}

void lab_vma_graveyard_drain(void)
{
	struct lab_vma *vma;

	pthread_mutex_lock(&vma_graveyard.lock);
	vma = vma_graveyard.head;
	vma_graveyard.head = NULL;
	pthread_mutex_unlock(&vma_graveyard.lock);
	while (vma) {
		struct lab_vma *next = vma->free_next;

		vma_free_now(vma);
		vma = next;
	}
}

void lab_vma_obj_free(struct lab_mm *mm, struct lab_vma *vma, bool defer)
{
	switch (mm->mode) {
	case LAB_MM_LOCK_MMAP:
		vma_free_now(vma);
		break;
	case LAB_MM_LOCK_VMA:
		/* vm_rcu: lockless walkers may hold the pointer until a grace period ends. */
		if (defer) {
			lab_vma_graveyard_drain();	/* the earlier ones' grace periods */
			urcu_memb_call_rcu(&vma->vm_rcu, vma_free_rcu);
		}
		else
			vma_free_now(vma);
		break;
	case LAB_MM_LOCK_VMA_REFCNT:
		/* Detached (vm_refcnt == 0): nobody can take a reference, so the page table can go. */
		free(vma->pte);
		vma->pte = NULL;
		vma->pte_cap = 0;
		pthread_mutex_lock(&vma_cache.lock);
		vma->free_next = vma_cache.head;
		vma_cache.head = vma;
		pthread_mutex_unlock(&vma_cache.lock);
		break;
	}
}

/* ---- attach / detach --------------------------------------------------------------- */

void lab_vma_mark_attached(struct lab_mm *mm, struct lab_vma *vma)
{
	if (mm->mode == LAB_MM_LOCK_VMA_REFCNT)
		smp_store_release(&vma->vm_refcnt, 1u);	/* publishes the initialised VMA */
	else
		WRITE_ONCE(vma->detached, 0u);
}

/* Sleep until vm_refcnt == @want. Acquire: the readers' accesses happen before. */
static void refcnt_wait(struct lab_vma *vma, uint32_t want)
{
	uint32_t c;

	while ((c = smp_load_acquire(&vma->vm_refcnt)) != want)
		lab_futex_wait(&vma->vm_refcnt, c, -1);
}

void lab_vma_mark_detached(struct lab_mm *mm, struct lab_vma *vma)
{
	switch (mm->mode) {
	case LAB_MM_LOCK_MMAP:
		break;
	case LAB_MM_LOCK_VMA:
		WRITE_ONCE(vma->detached, 1u);
		break;
	case LAB_MM_LOCK_VMA_REFCNT:
		/*
		 * 1 -> 0 unless transient readers hold it (they got a reference,
		 * will see the write-locked seq and put it back). Then wait as a
		 * detaching writer: add OFFSET and sleep until only OFFSET is left.
		 */
		if (atomic_sub_return_release(&vma->vm_refcnt, 1u) != 0) {
			atomic_fetch_add_relaxed(&vma->vm_refcnt, VMA_LOCK_OFFSET);
			refcnt_wait(vma, VMA_LOCK_OFFSET);
			atomic_fetch_sub_relaxed(&vma->vm_refcnt, VMA_LOCK_OFFSET);
		}
		break;
	}
}

/* ---- write side ----------------------------------------------------------------------- */

void lab_vma_start_write(struct lab_mm *mm, struct lab_vma *vma)
{
	uint32_t seq = *lab_mm_lock_seq(mm), old;
	bool locked = false;

	if (mm->mode == LAB_MM_LOCK_MMAP || vma->vm_lock_seq == seq)
		return;		/* no per-VMA locks, or already write-locked in this session */
	if (mm->mode == LAB_MM_LOCK_VMA) {
		/* The rwsem only drains current readers; the seq equality is the lock. */
		lab_down_write(vma->vm_lock);
		WRITE_ONCE(vma->vm_lock_seq, seq);
		lab_up_write(vma->vm_lock);
		return;
	}
	/* refcount_add_not_zero(VMA_LOCK_OFFSET): a detached VMA has no readers to wait for. */
	old = READ_ONCE(vma->vm_refcnt);
	while (old) {
		if (atomic_try_cmpxchg_relaxed(&vma->vm_refcnt, &old, old + VMA_LOCK_OFFSET)) {
			locked = true;
			break;
		}
	}
	if (locked)
		refcnt_wait(vma, VMA_LOCK_OFFSET + 1);
	WRITE_ONCE(vma->vm_lock_seq, seq);
	/* Release: a reader whose increment sees OFFSET gone also sees vm_lock_seq == seq. */
	if (locked)
		atomic_fetch_sub_release(&vma->vm_refcnt, VMA_LOCK_OFFSET);
}

/* ---- read side ------------------------------------------------------------------------- */

/* Drop a reader reference; wake the writer if it is now alone (vma_refcount_put). */
static void refcnt_put(struct lab_vma *vma)
{
	/* Release: the reader's accesses to the VMA happen before the writer proceeds. */
	uint32_t left = atomic_sub_return_release(&vma->vm_refcnt, 1u);

	if ((left & VMA_LOCK_OFFSET) && left <= VMA_LOCK_OFFSET + 1)
		lab_futex_wake(&vma->vm_refcnt, 1);
}

int lab_vma_start_read(struct lab_mm *mm, struct lab_vma *vma)
{
	uint32_t *seq = lab_mm_lock_seq(mm), old;

	if (mm->mode == LAB_MM_LOCK_VMA) {
		if (READ_ONCE(vma->vm_lock_seq) == READ_ONCE(*seq))
			return -EBUSY;
		if (!lab_down_read_trylock(vma->vm_lock))
			return -EBUSY;		/* never sleeps: a writer holds or wants it */
		/* Re-check under the lock; acquire pairs with the release in mmap_write_unlock. */
		if (READ_ONCE(vma->vm_lock_seq) == smp_load_acquire(seq)) {
			lab_up_read(vma->vm_lock);
			return -EBUSY;
		}
		return 0;
	}
	/* vma-refcnt */
	if (READ_ONCE(vma->vm_lock_seq) == READ_ONCE(*seq))
		return -EBUSY;
	old = READ_ONCE(vma->vm_refcnt);
	do {
		if (old == 0)
			return -EAGAIN;		/* detached: walk the tree again */
		if (old >= VMA_REF_LIMIT)
			return -EBUSY;		/* the writer bit is set (or too many readers) */
	} while (!atomic_try_cmpxchg_acquire(&vma->vm_refcnt, &old, old + 1));
	if (READ_ONCE(vma->vm_mm) != mm) {
		refcnt_put(vma);		/* reused by another mm */
		return -EBUSY;
	}
	if (READ_ONCE(vma->vm_lock_seq) == smp_load_acquire(seq)) {
		refcnt_put(vma);
		return -EBUSY;
	}
	return 0;
}

void lab_vma_end_read(struct lab_mm *mm, struct lab_vma *vma)
{
	if (mm->mode == LAB_MM_LOCK_VMA) {
		/* RCU keeps the VMA (and its lock) alive until up_read has returned. */
		urcu_memb_read_lock();
		lab_up_read(vma->vm_lock);
		urcu_memb_read_unlock();
	} else {
		refcnt_put(vma);
	}
}

/* ---- lookup ------------------------------------------------------------------------------ */

struct lab_vma *lab_vma_lookup(struct lab_mm *mm, uintptr_t addr)
{
	/* rcu_dereference: acquire orders the array's contents after the pointer. */
	struct lab_vma_tree *mt = smp_load_acquire(&mm->mt);
	int lo = 0, hi = mt ? mt->n : 0;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (READ_ONCE(mt->v[mid]->vm_end) > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == (mt ? mt->n : 0) || READ_ONCE(mt->v[lo]->vm_start) > addr)
		return NULL;
	return mt->v[lo];
}

struct lab_vma *lab_lock_vma_under_rcu(struct lab_mm *mm, uintptr_t addr, struct lab_mm_thread *t)
{
	struct lab_vma *vma;
	int r;

	urcu_memb_read_lock();
retry:
	vma = lab_vma_lookup(mm, addr);
	if (!vma)
		goto inval;
	/* v6.4 handles only anonymous VMAs that already have an anon_vma. */
	if (mm->mode == LAB_MM_LOCK_VMA && (vma->vm_file || !READ_ONCE(vma->anon_vma)))
		goto inval;
	if (lab_unlikely(lab_mm_walk_hook))
		lab_mm_walk_hook(mm, vma, addr);
	r = lab_vma_start_read(mm, vma);
	if (r == -EAGAIN) {
		t->ev[LAB_MM_EV_vma_lock_miss]++;
		goto retry;
	}
	if (r)
		goto inval;
	/* The VMA may have shrunk (or, refcnt, been reused) since the walk. */
	if (addr < READ_ONCE(vma->vm_start) || addr >= READ_ONCE(vma->vm_end)) {
		lab_vma_end_read(mm, vma);
		goto inval;
	}
	if (mm->mode == LAB_MM_LOCK_VMA && READ_ONCE(vma->detached)) {
		lab_vma_end_read(mm, vma);
		t->ev[LAB_MM_EV_vma_lock_miss]++;
		goto retry;
	}
	urcu_memb_read_unlock();
	return vma;
inval:
	urcu_memb_read_unlock();
	t->ev[LAB_MM_EV_vma_lock_abort]++;
	return NULL;
}
