/* SPDX-License-Identifier: MIT */
/* The address-space model: see mm.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "mm.h"

int lab_mm_init(struct lab_mm *mm, const struct lab_rwsem_conf *lock)
{
	memset(mm, 0, sizeof(*mm));
	mm->mmap_base = 0x10000000ul;
	return lab_lock_init(&mm->mmap_lock, lock);
}

void lab_mm_destroy(struct lab_mm *mm)
{
	for (int i = 0; i < mm->nr_vmas; i++) {
		free(mm->vmas[i]->pte);
		free(mm->vmas[i]);
	}
	free(mm->vmas);
	lab_lock_destroy(&mm->mmap_lock);
	memset(mm, 0, sizeof(*mm));
}

struct lab_vma *lab_mm_mmap(struct lab_mm *mm, size_t len, unsigned long flags)
{
	size_t pages = (len + LAB_PAGE_SIZE - 1) >> LAB_PAGE_SHIFT;
	struct lab_vma *vma = calloc(1, sizeof(*vma));

	if (!vma || !pages)
		goto fail;
	vma->pte = calloc(pages, sizeof(void *));
	if (!vma->pte)
		goto fail;
	vma->vm_flags = flags;

	lab_down_write(&mm->mmap_lock);
	if (mm->nr_vmas == mm->cap) {
		int cap = mm->cap ? 2 * mm->cap : 8;
		struct lab_vma **v = realloc(mm->vmas, (size_t)cap * sizeof(*v));

		if (!v) {
			lab_up_write(&mm->mmap_lock);
			goto fail;
		}
		mm->vmas = v;
		mm->cap = cap;
	}
	vma->vm_start = mm->mmap_base;
	vma->vm_end = vma->vm_start + (pages << LAB_PAGE_SHIFT);
	mm->mmap_base = vma->vm_end + LAB_PAGE_SIZE;	/* a guard gap between VMAs */
	mm->vmas[mm->nr_vmas++] = vma;			/* bump allocator: stays sorted */
	lab_up_write(&mm->mmap_lock);
	return vma;
fail:
	if (vma)
		free(vma->pte);
	free(vma);
	return NULL;
}

int lab_mm_munmap(struct lab_mm *mm, uintptr_t start)
{
	struct lab_vma *vma = NULL;

	lab_down_write(&mm->mmap_lock);
	for (int i = 0; i < mm->nr_vmas; i++) {
		if (mm->vmas[i]->vm_start == start) {
			vma = mm->vmas[i];
			memmove(&mm->vmas[i], &mm->vmas[i + 1], (size_t)(mm->nr_vmas - i - 1) * sizeof(vma));
			mm->nr_vmas--;
			break;
		}
	}
	lab_up_write(&mm->mmap_lock);
	if (!vma)
		return -EINVAL;
	free(vma->pte);
	free(vma);
	return 0;
}

struct lab_vma *lab_mm_find_vma(struct lab_mm *mm, uintptr_t addr)
{
	int lo = 0, hi = mm->nr_vmas;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (mm->vmas[mid]->vm_end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < mm->nr_vmas ? mm->vmas[lo] : NULL;
}

int lab_mm_fault(struct lab_mm *mm, uintptr_t addr, struct lab_page_pool *pool, char **pagep)
{
	struct lab_vma *vma;
	char *page, *old;
	void **slot;

	lab_down_read(&mm->mmap_lock);
	vma = lab_mm_find_vma(mm, addr);
	if (!vma || addr < vma->vm_start) {
		lab_up_read(&mm->mmap_lock);
		return -EFAULT;
	}
	slot = &vma->pte[(addr - vma->vm_start) >> LAB_PAGE_SHIFT];
	page = smp_load_acquire(slot);
	if (!page) {
		if (pool->next >= pool->npages) {
			lab_up_read(&mm->mmap_lock);
			return -ENOMEM;
		}
		page = pool->base + (pool->next++ << LAB_PAGE_SHIFT);
		memset(page, 0, LAB_PAGE_SIZE);		/* clear_page */
		old = NULL;
		/* Release: the zeroed page is visible before its pte (pairs with the acquire above). */
		if (!atomic_try_cmpxchg_release(slot, (void **)&old, page)) {
			pool->next--;			/* lost the race: give the page back */
			page = old;
		}
	}
	lab_up_read(&mm->mmap_lock);
	*pagep = page;
	return 0;
}

void lab_mm_unpopulate(struct lab_vma *vma)
{
	memset(vma->pte, 0, ((vma->vm_end - vma->vm_start) >> LAB_PAGE_SHIFT) * sizeof(void *));
}
