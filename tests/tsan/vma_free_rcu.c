/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vma_free_rcu - a VMA read by a lockless walker and then freed after a grace
 * period must not be reported by ThreadSanitizer. A reader thread looks the
 * VMA up under rcu_read_lock (lab_vma_lookup's loads of vm_start/vm_end) and
 * says so through a relaxed flag (no happens-before TSan could use); the main
 * thread unmaps the VMA and runs lab_mm_rcu_barrier, whose graveyard drain
 * frees it. liburcu's grace period orders the two, which TSan cannot see:
 * tests/tsan.supp says so for lab_vma_graveyard_drain. Without that line TSan
 * reports the free (exit 66). Deterministic: the lookup always precedes the free.
 */
#include <stdio.h>
#include <pthread.h>
#include <urcu/urcu-memb.h>

#include "mm.h"
#include "rcu.h"
#include "vma_lock.h"

static struct lab_mm mm;
static uintptr_t addr;
static int looked, stop;

static void *walker(void *arg)
{
	struct lab_vma *vma;

	(void)arg;
	lab_rcu_thread_online();
	urcu_memb_read_lock();
	vma = lab_vma_lookup(&mm, addr);
	urcu_memb_read_unlock();
	__atomic_store_n(&looked, vma ? 1 : -1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		sched_yield();
	return NULL;
}

int main(void)
{
	struct lab_rwsem_conf conf;
	struct lab_page_alloc pa;
	struct lab_mm_thread t;
	char err[256];
	pthread_t tid;
	int r;

	if (lab_rwsem_parse("rwsem", &conf, err, sizeof(err)) || lab_page_alloc_init(&pa, 64) ||
	    lab_mm_init(&mm, &conf, LAB_MM_LOCK_VMA, &pa)) {
		fprintf(stderr, "vma_free_rcu: setup failed %s\n", err);
		return 2;
	}
	lab_mm_thread_init(&t, &pa);
	addr = lab_mm_mmap(&mm, 4 * LAB_PAGE_SIZE, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	if (!addr || pthread_create(&tid, NULL, walker, NULL))
		return 2;
	while (!(r = __atomic_load_n(&looked, __ATOMIC_RELAXED)))
		sched_yield();
	if (r < 0) {
		fprintf(stderr, "vma_free_rcu: the walker did not find the VMA\n");
		return 1;
	}
	if (lab_mm_munmap(&mm, addr, 4 * LAB_PAGE_SIZE, &t))
		return 1;
	lab_mm_rcu_barrier();		/* the grace period; the graveyard drain frees the VMA */
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(tid, NULL);
	lab_mm_destroy(&mm, &t);
	lab_mm_rcu_barrier();
	lab_mm_thread_drain(&t);
	lab_page_alloc_destroy(&pa);
	printf("vma_free_rcu: the VMA was read under RCU and freed after a grace period\n");
	return 0;
}
