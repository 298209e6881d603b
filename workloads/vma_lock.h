/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workloads/vma_lock.h - per-VMA locking for the mm model (internal to mm.c,
 * vma_lock.c and the tests).
 *
 * Two schemes, chosen by mm->mode (docs/kernel.md §6):
 *
 * vma (v6.4, include/linux/mm.h + mm/memory.c):
 *   vm_lock      a lock of the variant under test, allocated apart from the VMA:
 *                v6.4's place is a 40-byte struct vma_lock of one kmem_cache
 *                (vma_lock.c), the variant's knobs in a side record
 *   vm_lock_seq  == mm->mm_lock_seq  <=>  the VMA is write-locked
 *   reader       seq check, down_read_trylock(vm_lock), seq re-check
 *   writer       (mmap_lock held for write) down_write + vm_lock_seq = mm_lock_seq
 *                + up_write: the rwsem only drains readers; the seq is the lock
 *   unlock all   mmap_write_unlock: mm_lock_seq + 1
 *   detach       `detached` flag; the VMA is freed after an RCU grace period
 *
 * vma-refcnt (v6.15+, vm_refcnt):
 *
 *      31 30 29                                   0
 *     +--+--+--------------------------------------+
 *     | 0|W |        1 (attached) + readers        |     vm_refcnt
 *     +--+--+--------------------------------------+
 *          W = VMA_LOCK_OFFSET (0x40000000): a writer is draining readers
 *     0 = detached, 1 = attached and idle, 1+k = k readers,
 *     OFFSET+1 = writer alone, OFFSET = detaching writer alone.
 *
 *   reader  seq check; increment unless 0 or >= VMA_REF_LIMIT (so never while
 *           W is set); vm_mm check (the object may have been reused); seq
 *           re-check with acquire
 *   writer  add OFFSET unless detached, sleep until refcnt == OFFSET+1,
 *           vm_lock_seq = mm_lock_seq, drop OFFSET
 *   mm_lock_seq is a seqcount: odd while mmap_lock is held for write
 *   VMAs are type-stable: a freed VMA goes to a cache and may be reused at
 *   once, by any mm, while stale RCU readers still look at it.
 *   Deviation: the kernel sleeps on mm->vma_writer_wait (rcuwait); here the
 *   writer sleeps on a futex on vm_refcnt itself, which is safe because the
 *   memory is type-stable (a wake on a reused VMA is only spurious).
 */
#pragma once

#include "mm.h"

/* Handled under the VMA lock but needs mmap_lock (VM_FAULT_RETRY). */
#define LAB_FAULT_RETRY 1

/* VMA objects: allocation and release per mode (vma: RCU-deferred; refcnt: type-stable cache). */
struct lab_vma *lab_vma_obj_alloc(struct lab_mm *mm);
/* Can a lock of @conf live inside the VMA (LAB_CAP_EMBED, and its state fits vm_lock_image)? */
bool lab_vma_lock_fits_inside(const struct lab_rwsem_conf *conf);
/* Can a lock of @conf be a 40-byte struct vma_lock of v6.4's kmem_cache (LAB_CAP_PACKED)? */
bool lab_vma_lock_fits_slab(const struct lab_rwsem_conf *conf);
/* Release a detached VMA. @defer: through RCU if readers may still see it (vma mode). */
void lab_vma_obj_free(struct lab_mm *mm, struct lab_vma *vma, bool defer);
/*
 * Free the VMAs (and destroy their locks) whose RCU-deferred release has passed
 * its grace period: the callback only queues them, a workload thread frees them
 * here (called by lab_vma_obj_free's deferred path and by lab_mm_rcu_barrier
 * after its barrier). Threading: any registered thread outside an RCU read-side
 * critical section; no lock held that an RCU callback takes.
 */
void lab_vma_graveyard_drain(void);

/* Make a new VMA visible to readers (refcnt: 0 -> 1, release). */
void lab_vma_mark_attached(struct lab_mm *mm, struct lab_vma *vma);
/* Unlink a write-locked VMA from readers (v6.4: flag; refcnt: drop to 0, waiting for transient readers). */
void lab_vma_mark_detached(struct lab_mm *mm, struct lab_vma *vma);

/* vma_start_write(): caller holds mmap_lock for write. */
void lab_vma_start_write(struct lab_mm *mm, struct lab_vma *vma);
/* vma_start_read(): 0 = read-locked; -EBUSY = cannot (write-locked, contended); -EAGAIN = detached. */
int lab_vma_start_read(struct lab_mm *mm, struct lab_vma *vma);
void lab_vma_end_read(struct lab_mm *mm, struct lab_vma *vma);

/* The published VMA containing @addr, or NULL. Caller is in an RCU read-side section (or holds mmap_lock). */
struct lab_vma *lab_vma_lookup(struct lab_mm *mm, uintptr_t addr);

/*
 * lock_vma_under_rcu(): the VMA containing @addr, read-locked, or NULL (the
 * caller falls back to mmap_lock). Counts vma_lock_abort and vma_lock_miss.
 */
struct lab_vma *lab_lock_vma_under_rcu(struct lab_mm *mm, uintptr_t addr, struct lab_mm_thread *t);
