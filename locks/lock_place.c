// SPDX-License-Identifier: GPL-2.0-only
/*
 * Locks placed inside other structures (rwsem.h): which bytes an embedded
 * lock leaves to the structure around it, and the packed area, objects of
 * just the kernel's struct rw_semaphore with the variant's own fields in a
 * side record (v6.4's struct vma_lock, workloads/vma_lock.c). Apart from
 * registry.c, which names every variant, so that the variants can use it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rwsem.h"

bool lab_lock_embed_free(const struct lab_rwsem_ops *ops, size_t off, size_t len)
{
	size_t own = ops->own_off ? ops->own_off : LAB_RWSEM_KERNEL_SIZE;

	return off >= ops->size || (off >= LAB_RWSEM_KERNEL_SIZE && off + len <= own);
}

struct lab_lock_packed_area lab_lock_packed;

int lab_lock_packed_area(void *base, size_t len)
{
	if (lab_lock_packed.len)
		return (uintptr_t)base == lab_lock_packed.base && len == lab_lock_packed.len ? 0 : -EBUSY;
	lab_lock_packed.side = calloc(len / LAB_RWSEM_KERNEL_SIZE, sizeof(void *));
	if (!lab_lock_packed.side)
		return -ENOMEM;
	lab_lock_packed.base = (uintptr_t)base;
	lab_lock_packed.len = len - len % LAB_RWSEM_KERNEL_SIZE;
	return 0;
}

bool lab_lock_is_packed(const void *sem)
{
	return (uintptr_t)sem - lab_lock_packed.base < lab_lock_packed.len;
}

/* The side record of object @i: the largest LAB_CAP_PACKED state fits (checked at init). */
#define LAB_LOCK_SIDE_SIZE 256

int lab_lock_init_packed(struct lab_lock *l, const struct lab_rwsem_conf *conf, void *obj)
{
	const struct lab_rwsem_ops *ops = conf->ops;
	void **side;
	int r;

	l->ops = ops;
	l->sem = NULL;
	if (!(ops->caps & LAB_CAP_PACKED) || ops->size > LAB_LOCK_SIDE_SIZE || !lab_lock_is_packed(obj))
		return -EINVAL;
	side = &lab_lock_packed.side[((uintptr_t)obj - lab_lock_packed.base) / LAB_RWSEM_KERNEL_SIZE];
	/* line-aligned: a side record shares no line with what the workload writes */
	if (!*side && !(*side = aligned_alloc(LAB_CACHELINE, LAB_LOCK_SIDE_SIZE)))
		return -ENOMEM;
	memset(*side, 0, LAB_LOCK_SIDE_SIZE);
	memset(obj, 0, LAB_RWSEM_KERNEL_SIZE);
	r = ops->init((struct lab_rwsem *)obj, conf);
	if (r)
		return r;
	l->sem = (struct lab_rwsem *)obj;
	return 0;
}
