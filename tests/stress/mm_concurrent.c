/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mm model under concurrent change, in each fault mode: two mutator
 * threads mmap, munmap (whole and partial), mprotect, brk, pageout and fork
 * (dup + exit) while two faulting threads read and write random pages near
 * the top of the address space and a checker thread validates the VMA
 * structure under mmap_lock. Every page's first word is either 0 (never
 * written) or its own address: any other value means a page was freed or
 * reused while still mapped. Run in the ASan build it also proves that no VMA
 * (nor its lock or page table) is used after it is freed.
 */
#include <errno.h>
#include <pthread.h>

#include "common.h"
#include "mm.h"
#include "vma_lock.h"

#define PG LAB_PAGE_SIZE
#define SPAN_PAGES 384		/* faulters aim at this many pages below mmap_base */

struct stress {
	struct lab_rwsem_conf conf;
	struct lab_page_alloc pa;
	struct lab_mm mm;
	int stop;
	uint64_t bad_data, bad_struct, faults_ok, forks;
	uint64_t ev[LAB_MM_EV_NR];
	pthread_mutex_t ev_lock;
	char msg[256];
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void add_events(struct stress *st, struct lab_mm_thread *t)
{
	pthread_mutex_lock(&st->ev_lock);
	for (int i = 0; i < LAB_MM_EV_NR; i++)
		st->ev[i] += t->ev[i];
	pthread_mutex_unlock(&st->ev_lock);
	lab_mm_thread_drain(t);
}

struct region {
	uintptr_t start;
	size_t pages;
};

static void *mutator(void *arg)
{
	struct stress *st = arg;
	struct lab_mm_thread t;
	struct region live[48];
	struct lab_brk brk;
	uint64_t s = (uint64_t)(uintptr_t)&t | 1;
	int n = 0;

	lab_rcu_thread_online();
	lab_mm_thread_init(&t, &st->pa);
	lab_mm_brk_reserve(&st->mm, &brk, 64 * PG);
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		unsigned op = (unsigned)(rnd(&s) % 100);

		if (op < 40 || n == 0) {
			size_t pages = 1 + rnd(&s) % 12;
			uintptr_t a = lab_mm_mmap(&st->mm, pages * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);

			if (a && n < 48)
				live[n++] = (struct region){ a, pages };
			else if (a)
				lab_mm_munmap(&st->mm, a, pages * PG, &t);
		} else if (op < 70) {
			/* unmap a random part (splitting) of a random region */
			int i = (int)(rnd(&s) % (uint64_t)n);
			size_t off = rnd(&s) % live[i].pages, len = 1 + rnd(&s) % (live[i].pages - off);

			lab_mm_munmap(&st->mm, live[i].start + off * PG, len * PG, &t);
			live[i] = live[--n];	/* forget the remainders: they stay mapped until exit */
		} else if (op < 82) {
			int i = (int)(rnd(&s) % (uint64_t)n);
			size_t off = rnd(&s) % live[i].pages;
			unsigned long prot = rnd(&s) & 1 ? LAB_VM_READ : LAB_VM_READ | LAB_VM_WRITE;

			lab_mm_mprotect(&st->mm, live[i].start + off * PG, PG, prot);
		} else if (op < 92) {
			lab_mm_brk(&st->mm, &brk, brk.start_brk + (rnd(&s) % 64) * PG, &t);
		} else if (op < 96) {
			int i = (int)(rnd(&s) % (uint64_t)n);

			lab_mm_pageout(&st->mm, live[i].start, live[i].pages * PG);
		} else {
			struct lab_mm child;

			if (!lab_mm_init(&child, &st->conf, st->mm.mode, &st->pa) && !lab_mm_dup(&child, &st->mm, &t)) {
				__atomic_fetch_add(&st->forks, 1, __ATOMIC_RELAXED);
				lab_mm_destroy(&child, &t);
			}
		}
		/* Think time: with none, a writer-preferring spinning rwsem never lets a reader in. */
		lab_delay(2000);
	}
	add_events(st, &t);
	return NULL;
}

static void *faulter(void *arg)
{
	struct stress *st = arg;
	struct lab_mm_thread t;
	uint64_t s = (uint64_t)(uintptr_t)&t | 3, ok = 0;

	lab_rcu_thread_online();
	lab_mm_thread_init(&t, &st->pa);
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		uintptr_t top = __atomic_load_n(&st->mm.mmap_base, __ATOMIC_RELAXED);
		uintptr_t a = top - (1 + rnd(&s) % SPAN_PAGES) * PG;
		uint64_t v = 0;

		if (rnd(&s) % 8 == 0)	/* sometimes the brk areas instead */
			a = st->mm.brk.start_brk + (1 + rnd(&s) % 512) * PG;
		if (rnd(&s) & 1) {
			v = a;
			if (!lab_mm_access(&st->mm, a, &v, sizeof(v), true, &t))
				ok++;
		} else if (!lab_mm_access(&st->mm, a, &v, sizeof(v), false, &t)) {
			ok++;
			if (v != 0 && v != a) {
				__atomic_fetch_add(&st->bad_data, 1, __ATOMIC_RELAXED);
				snprintf(st->msg, sizeof(st->msg), "page %#lx holds %#lx", (unsigned long)a,
					 (unsigned long)v);
			}
		}
	}
	__atomic_fetch_add(&st->faults_ok, ok, __ATOMIC_RELAXED);
	add_events(st, &t);
	return NULL;
}

static void *checker(void *arg)
{
	struct stress *st = arg;
	char err[256];

	lab_rcu_thread_online();
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		lab_mmap_write_lock(&st->mm);
		if (lab_mm_check(&st->mm, err, sizeof(err))) {
			__atomic_fetch_add(&st->bad_struct, 1, __ATOMIC_RELAXED);
			snprintf(st->msg, sizeof(st->msg), "%s", err);
		}
		lab_mmap_write_unlock(&st->mm);
		lab_sleep_ns(2000000);
	}
	return NULL;
}

static void run_on(enum lab_mm_lock_mode mode, const char *variant, int kernel)
{
	struct stress st;
	pthread_t tid[5];
	struct lab_mm_thread t;
	char err[256];

	memset(&st, 0, sizeof(st));
	pthread_mutex_init(&st.ev_lock, NULL);
	cr_assert_eq(lab_rwsem_parse(variant, &st.conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_page_alloc_init(&st.pa, 256), 0);
	if (kernel >= 0)
		cr_assert_eq(lab_page_alloc_kernel(&st.pa, (enum lab_kmm_ver)kernel, 0), 0);
	cr_assert_eq(lab_mm_init(&st.mm, &st.conf, mode, &st.pa), 0);
	if (kernel == LAB_KMM_V6_4 && mode == LAB_MM_LOCK_VMA && lab_vma_lock_fits_slab(&st.conf)) {
		/* the VMAs' locks are the kmem_cache's (else this runs the line-aligned place again) */
		uintptr_t a = lab_mm_mmap(&st.mm, 4 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);

		cr_assert_neq(a, 0);
		cr_assert(lab_lock_is_packed(lab_mm_find_vma(&st.mm, a)->vm_lock->sem), "%s's lock not in the slab",
			  variant);
	}
	cr_assert_eq(pthread_create(&tid[0], NULL, mutator, &st), 0);
	cr_assert_eq(pthread_create(&tid[1], NULL, mutator, &st), 0);
	cr_assert_eq(pthread_create(&tid[2], NULL, faulter, &st), 0);
	cr_assert_eq(pthread_create(&tid[3], NULL, faulter, &st), 0);
	cr_assert_eq(pthread_create(&tid[4], NULL, checker, &st), 0);
	lab_sleep_ns((uint64_t)(700e6 * lab_test_scale()));
	/* ... and on until a fork has run (at most 10 s more): at load 12 with debug-yield's sleeps, the
	 * mutators (writers) got no fork in 700 ms beside the faulters (readers) of a reader-preferring lock. */
	for (int ms = 0; ms < 10000 && !__atomic_load_n(&st.forks, __ATOMIC_RELAXED); ms += 10)
		lab_sleep_ns(10000000);
	__atomic_store_n(&st.stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 5; i++)
		pthread_join(tid[i], NULL);

	lab_mm_thread_init(&t, &st.pa);
	lab_mmap_write_lock(&st.mm);
	if (lab_mm_check(&st.mm, err, sizeof(err)))
		st.bad_struct++;
	lab_mmap_write_unlock(&st.mm);
	lab_mm_destroy(&st.mm, &t);
	lab_mm_rcu_barrier();
	lab_mm_thread_drain(&t);
	lab_page_alloc_destroy(&st.pa);

	printf("%-10s %-9s faults ok %lu, forks %lu; success %lu abort %lu retry %lu miss %lu mmap %lu cow %lu\n",
	       lab_mm_lock_mode_name(mode), variant, st.faults_ok, st.forks, st.ev[LAB_MM_EV_vma_lock_success],
	       st.ev[LAB_MM_EV_vma_lock_abort], st.ev[LAB_MM_EV_vma_lock_retry], st.ev[LAB_MM_EV_vma_lock_miss],
	       st.ev[LAB_MM_EV_fault_mmap], st.ev[LAB_MM_EV_fault_cow]);
	cr_expect_eq(st.bad_struct, 0, "%s: VMA structure broken: %s", lab_mm_lock_mode_name(mode), st.msg);
	cr_expect_eq(st.bad_data, 0, "%s: %lu wrong page contents (%s)", lab_mm_lock_mode_name(mode),
		     st.bad_data, st.msg);
	cr_expect_gt(st.faults_ok, 100, "too few faults succeeded to mean anything");
	cr_expect_gt(st.forks, 0, "no fork ran");
	if (mode != LAB_MM_LOCK_MMAP)
		cr_expect_gt(st.ev[LAB_MM_EV_vma_lock_success], 0, "the per-VMA path never ran");
	pthread_mutex_destroy(&st.ev_lock);
}

static void run(enum lab_mm_lock_mode mode, const char *variant)
{
	run_on(mode, variant, -1);
}

Test(mm_stress, mmap_lock, .timeout = 120)
{
	run(LAB_MM_LOCK_MMAP, "pthread");
}

Test(mm_stress, vma_v6_4, .timeout = 120)
{
	run(LAB_MM_LOCK_VMA, "pthread");
}

Test(mm_stress, vma_v6_4_spinning_rwsem, .timeout = 120)
{
	run(LAB_MM_LOCK_VMA, "ck-rwlock");
}

/*
 * v6.4's own place for the lock: a packed variant's lock is a struct vma_lock
 * of the kmem_cache, given back at the VMA's RCU-deferred free and handed to
 * the next VMA made (kmem_cache.c). In the ASan build a freed object is
 * poisoned, so a reader still at a freed VMA's lock is reported.
 */
Test(mm_stress, vma_v6_4_slab, .timeout = 120)
{
	run_on(LAB_MM_LOCK_VMA, "rwsem", LAB_KMM_V6_4);
}

Test(mm_stress, vma_refcnt, .timeout = 120)
{
	run(LAB_MM_LOCK_VMA_REFCNT, "pthread");
}
