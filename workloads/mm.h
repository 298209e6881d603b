/* SPDX-License-Identifier: MIT */
/*
 * workloads/mm.h - a user-space model of a process address space (struct mm_struct).
 *
 * What is modelled (first version: the mmap_lock fault path):
 * - VMAs [vm_start, vm_end) with flags, kept sorted in an array that writers
 *   change under mmap_lock held for write and readers search under mmap_lock
 *   held for read (find_vma: the first VMA with vm_end > addr);
 * - a page table: one slot per page of each VMA, holding the address of a
 *   real 4 KiB page of memory, installed by the fault path;
 * - the fault path: down_read(mmap_lock), find_vma, take a page from the
 *   faulting thread's pre-faulted pool, clear it (clear_page: a real 4 KiB
 *   memset), install it, up_read(mmap_lock);
 * - the mmap_lock is a struct lab_lock of the variant under test, so the lock
 *   being measured is rwlab's, not the host kernel's.
 *
 * Model addresses are numbers, not host pointers: a VMA at 0x10000000 in the
 * model maps nothing in the host. Pages are host memory.
 *
 * Threading: lab_mm_fault() may run on any number of threads at once;
 * lab_mm_mmap()/lab_mm_munmap() take mmap_lock for write; lab_mm_unpopulate()
 * requires that no fault runs on that VMA.
 * Source: mm/memory.c handle_mm_fault and arch/x86/mm/fault.c
 * do_user_addr_fault (v6.3: mmap_read_lock + find_vma), research/kernel.md §6.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "rwsem.h"

#define LAB_PAGE_SHIFT	12
#define LAB_PAGE_SIZE	(1ul << LAB_PAGE_SHIFT)

#define LAB_VM_READ	0x1ul
#define LAB_VM_WRITE	0x2ul

struct lab_vma {
	uintptr_t vm_start, vm_end;	/* model addresses, page aligned */
	unsigned long vm_flags;
	void **pte;			/* one slot per page; NULL = not present */
};

struct lab_mm {
	struct lab_lock mmap_lock;
	struct lab_vma **vmas;		/* sorted by vm_start; under mmap_lock */
	int nr_vmas, cap;
	uintptr_t mmap_base;		/* next free model address (bump allocator) */
};

/* A thread's supply of pre-faulted pages (the page allocator's per-CPU list). */
struct lab_page_pool {
	char *base;
	size_t npages, next;
};

/* Init an empty mm whose mmap_lock is a new lock of @lock. Returns 0 or -errno. */
int lab_mm_init(struct lab_mm *mm, const struct lab_rwsem_conf *lock);
/* Free every VMA and the lock. No other thread may use @mm. */
void lab_mm_destroy(struct lab_mm *mm);

/* Map @len bytes (rounded up to pages) at a fresh model address. Takes mmap_lock for write. */
struct lab_vma *lab_mm_mmap(struct lab_mm *mm, size_t len, unsigned long flags);
/* Unmap the VMA that starts at @start. Takes mmap_lock for write. Returns 0 or -EINVAL. */
int lab_mm_munmap(struct lab_mm *mm, uintptr_t start);

/* The first VMA with vm_end > addr, or NULL. Caller holds mmap_lock (read or write). */
struct lab_vma *lab_mm_find_vma(struct lab_mm *mm, uintptr_t addr);

/*
 * lab_mm_fault() - fault in the page at model address @addr.
 * Takes mmap_lock for read. On success stores the host address of the page in
 * *@page and returns 0; -EFAULT if no VMA covers @addr (SIGSEGV);
 * -ENOMEM if @pool is empty.
 */
int lab_mm_fault(struct lab_mm *mm, uintptr_t addr, struct lab_page_pool *pool, char **page);

/* Clear every page-table slot of @vma (zap_page_range). No fault may run on it. */
void lab_mm_unpopulate(struct lab_vma *vma);
