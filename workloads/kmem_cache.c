// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kmem_cache as SLUB lays one out (kmm.h, struct lab_kmem_cache), for
 * objects the model must place where the kernel's slab places them: v6.4's
 * struct vma_lock (vma_lock.c). Citations: v6.4 (6.4.6 tree, kmm.c)
 *   include/linux/slab.h:191-193 KMEM_CACHE: align = __alignof__(struct),
 *     8 for struct vma_lock; :252 ARCH_SLAB_MINALIGN = __alignof__(unsigned
 *     long long) = 8;
 *   mm/slab_common.c:112-134 calculate_alignment: only SLAB_HWCACHE_ALIGN
 *     raises the alignment to the cache line; then max(align, 8);
 *   mm/slub.c:4349-4481 calculate_sizes: size = ALIGN(object_size, 8); the
 *     free pointer inside the object at ALIGN_DOWN(object_size / 2, 8) when
 *     there is no ctor, RCU or poisoning (:4416); no debug padding; size =
 *     ALIGN(size, align) (:4456): 40 for a 40-byte struct vma_lock;
 *   mm/slub.c:4114-4170 calculate_order, :4089-4112 calc_slab_order: order 0 for
 *     40-byte objects (min_objects = 4 * (fls(nr_cpus) + 1), 36 at 128 CPUs,
 *     need 1440 bytes; the 16 bytes left of a 4 KiB page are within 1/16):
 *     102 objects per 4 KiB slab;
 *   mm/slub.c:2020-2036 allocate_slab: without CONFIG_SLAB_FREELIST_RANDOM
 *     the new slab's freelist runs in address order from offset 0, "one
 *     object immediately after another" (:4451-4456); kmem_cache_free
 *     (:3802) pushes the object on the freelist it came from (do_slab_free
 *     :3707, the cpu slab's; __slab_free :3573 its slab's): LIFO.
 *
 * The model: one area of @max_pages pages (4 KiB-aligned), objects at
 * `size` stride from each page's start; a free object holds the freelist
 * link at SLUB's offset; allocation takes the last freed object, else the
 * next never-used one in address order. That is SLUB as one CPU sees it
 * (its cpu slab's freelist) with freelist randomisation off: the per-CPU
 * slabs of VMAs created on several CPUs, CONFIG_SLAB_FREELIST_RANDOM,
 * merging with another cache of the same size (find_mergeable) and
 * returning empty slabs are not modelled. Plain memory under a mutex: the
 * cache's own accesses are not charged under --sim (only the objects'
 * users' are); no seam call is made under the mutex.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kmm.h"

#define KSLAB_PAGE 4096u

/*
 * Under AddressSanitizer the area is poisoned but for the objects handed out
 * (as KASAN does a slab's): a use of a freed struct vma_lock -- a reader's
 * down_read_trylock after the VMA's grace period, a write after
 * vma_lock_free() -- is reported, where the plain area would let it land in
 * the next VMA's lock. The free pointer is read and written unpoisoned, under
 * the mutex.
 */
#if defined(__SANITIZE_ADDRESS__)
#define KSLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KSLAB_ASAN 1
#endif
#endif
#ifdef KSLAB_ASAN
#include <sanitizer/asan_interface.h>
#define kslab_poison(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define kslab_unpoison(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define kslab_poison(p, n) ((void)(p), (void)(n))
#define kslab_unpoison(p, n) ((void)(p), (void)(n))
#endif

int lab_kmem_cache_create(struct lab_kmem_cache *c, unsigned object_size, unsigned align, size_t max_pages)
{
	unsigned size;

	memset(c, 0, sizeof(*c));
	if (!object_size || object_size > KSLAB_PAGE || align > KSLAB_PAGE || !max_pages ||
	    max_pages > SIZE_MAX / KSLAB_PAGE)
		return -EINVAL;
	size = (object_size + 7u) & ~7u;
	if (align < 8)
		align = 8;		/* ARCH_SLAB_MINALIGN, then ALIGN(align, sizeof(void *)) */
	size = (size + align - 1) / align * align;
	if (size > KSLAB_PAGE)
		return -EINVAL;
	c->base = aligned_alloc(KSLAB_PAGE, max_pages * KSLAB_PAGE);
	if (!c->base)
		return -ENOMEM;
	kslab_poison(c->base, max_pages * KSLAB_PAGE);
	pthread_mutex_init(&c->lock, NULL);
	c->object_size = object_size;
	c->size = size;
	c->offset = object_size / 2 & ~7u;	/* the free pointer, inside the object */
	c->objects = KSLAB_PAGE / size;
	c->max_objects = max_pages * c->objects;
	c->len = max_pages * KSLAB_PAGE;
	return 0;
}

/* Object @i of the area: page i / objects, slot i % objects. */
static char *kslab_object(const struct lab_kmem_cache *c, size_t i)
{
	return c->base + i / c->objects * KSLAB_PAGE + i % c->objects * c->size;
}

void *lab_kmem_cache_alloc(struct lab_kmem_cache *c)
{
	char *obj = NULL;

	pthread_mutex_lock(&c->lock);
	if (c->freelist) {
		obj = c->freelist;
		kslab_unpoison(obj, c->object_size);
		memcpy(&c->freelist, obj + c->offset, sizeof(c->freelist));
	} else if (c->used < c->max_objects) {
		obj = kslab_object(c, c->used++);
		kslab_unpoison(obj, c->object_size);
	}
	pthread_mutex_unlock(&c->lock);
	return obj;
}

void lab_kmem_cache_free(struct lab_kmem_cache *c, void *obj)
{
	pthread_mutex_lock(&c->lock);
	memcpy((char *)obj + c->offset, &c->freelist, sizeof(c->freelist));
	c->freelist = obj;
	kslab_poison(obj, c->object_size);
	pthread_mutex_unlock(&c->lock);
}

bool lab_kmem_cache_owns(const struct lab_kmem_cache *c, const void *obj)
{
	return c->base && (uintptr_t)obj - (uintptr_t)c->base < c->len;
}

void lab_kmem_cache_destroy(struct lab_kmem_cache *c)
{
	kslab_unpoison(c->base, c->len);
	free(c->base);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof(*c));
}
