/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mm model (workloads/mm.c, vma_lock.c): VMA operations keep the
 * structure valid and the data where it belongs, copy-on-write after dup,
 * and every per-VMA lock fallback path of lab_mm_fault() is taken when it
 * should be, counted as the kernel counts it (vma_lock_success / abort /
 * retry / miss), in both per-VMA lock schemes.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "common.h"
#include "mm.h"
#include "vma_lock.h"

#define PG LAB_PAGE_SIZE

struct env {
	struct lab_rwsem_conf conf;
	struct lab_page_alloc pa;
	struct lab_mm mm;
	struct lab_mm_thread t;
};

static void env_init(struct env *e, enum lab_mm_lock_mode mode)
{
	char err[256];

	memset(e, 0, sizeof(*e));
	cr_assert_eq(lab_rwsem_parse("pthread", &e->conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_page_alloc_init(&e->pa, 64), 0);
	lab_mm_thread_init(&e->t, &e->pa);
	cr_assert_eq(lab_mm_init(&e->mm, &e->conf, mode, &e->pa), 0);
}

static void env_fini(struct env *e)
{
	lab_mm_destroy(&e->mm, &e->t);
	lab_mm_rcu_barrier();
	lab_mm_thread_drain(&e->t);
	lab_page_alloc_destroy(&e->pa);
}

static void check(struct env *e)
{
	char err[256] = "";

	lab_mmap_write_lock(&e->mm);
	cr_assert_eq(lab_mm_check(&e->mm, err, sizeof(err)), 0, "invariant broken: %s", err);
	lab_mmap_write_unlock(&e->mm);
}

static int count(struct env *e)
{
	int n;

	lab_mmap_read_lock(&e->mm);
	n = lab_mm_map_count(&e->mm);
	lab_mmap_read_unlock(&e->mm);
	return n;
}

static int put64(struct env *e, uintptr_t a, uint64_t v)
{
	return lab_mm_access(&e->mm, a, &v, sizeof(v), true, &e->t);
}

static int get64(struct env *e, uintptr_t a, uint64_t *v)
{
	return lab_mm_access(&e->mm, a, v, sizeof(*v), false, &e->t);
}

static uint64_t ev(struct env *e, enum lab_mm_event i)
{
	return e->t.ev[i];
}

static const enum lab_mm_lock_mode all_modes[] = { LAB_MM_LOCK_MMAP, LAB_MM_LOCK_VMA, LAB_MM_LOCK_VMA_REFCNT };

/* ---- structure and data ---------------------------------------------------------------- */

Test(mm, munmap_splits_and_keeps_data, .timeout = 30)
{
	for (size_t m = 0; m < 3; m++) {
		struct env e;
		uintptr_t a;
		uint64_t v;

		env_init(&e, all_modes[m]);
		a = lab_mm_mmap(&e.mm, 16 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
		cr_assert_neq(a, 0);
		for (int i = 0; i < 16; i++)
			cr_assert_eq(put64(&e, a + (uintptr_t)i * PG, a + (uintptr_t)i * PG), 0);
		cr_assert_eq(lab_mm_munmap(&e.mm, a + 6 * PG, 4 * PG, &e.t), 0);
		check(&e);
		cr_expect_eq(count(&e), 2, "a hole in the middle leaves two VMAs");
		for (int i = 0; i < 16; i++) {
			int r = get64(&e, a + (uintptr_t)i * PG, &v);

			if (i >= 6 && i < 10) {
				cr_expect_eq(r, -EFAULT, "page %d was unmapped", i);
			} else {
				cr_expect_eq(r, 0);
				cr_expect_eq(v, a + (uintptr_t)i * PG, "page %d lost its data in the split", i);
			}
		}
		/* across both remaining VMAs and the hole */
		cr_assert_eq(lab_mm_munmap(&e.mm, a + 2 * PG, 12 * PG, &e.t), 0);
		check(&e);
		cr_expect_eq(count(&e), 2);
		cr_assert_eq(lab_mm_munmap(&e.mm, a, 16 * PG, &e.t), 0);
		cr_expect_eq(count(&e), 0);
		cr_expect_eq(lab_mm_munmap(&e.mm, a + 1, PG, &e.t), -EINVAL);
		env_fini(&e);
	}
}

Test(mm, mprotect_splits_then_merges, .timeout = 30)
{
	for (size_t m = 0; m < 3; m++) {
		struct env e;
		uintptr_t a;
		uint64_t v = 0;

		env_init(&e, all_modes[m]);
		a = lab_mm_mmap(&e.mm, 8 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
		for (int i = 0; i < 8; i++)
			cr_assert_eq(put64(&e, a + (uintptr_t)i * PG, 100u + (unsigned)i), 0);
		cr_assert_eq(lab_mm_mprotect(&e.mm, a + 2 * PG, 2 * PG, LAB_VM_READ), 0);
		check(&e);
		cr_expect_eq(count(&e), 3);
		cr_expect_eq(put64(&e, a + 2 * PG, 1), -EFAULT, "write to a read-only VMA succeeded");
		cr_expect_eq(get64(&e, a + 3 * PG, &v), 0);
		cr_expect_eq(v, 103u);
		cr_expect_eq(put64(&e, a + 4 * PG, 104), 0);
		cr_assert_eq(lab_mm_mprotect(&e.mm, a + 2 * PG, 2 * PG, LAB_VM_READ | LAB_VM_WRITE), 0);
		check(&e);
		cr_expect_eq(count(&e), 1, "equal neighbours did not merge back");
		for (int i = 0; i < 8; i++) {
			cr_expect_eq(get64(&e, a + (uintptr_t)i * PG, &v), 0);
			cr_expect_eq(v, 100u + (unsigned)i);
		}
		cr_expect_eq(lab_mm_mprotect(&e.mm, a + 6 * PG, 4 * PG, LAB_VM_READ), -ENOMEM,
			     "a range past the end of the mapping must fail");
		cr_expect_eq(count(&e), 1);
		env_fini(&e);
	}
}

Test(mm, brk_grows_and_shrinks_in_place, .timeout = 30)
{
	for (size_t m = 0; m < 3; m++) {
		struct env e;
		uintptr_t b0, b;
		uint64_t v = 0;

		env_init(&e, all_modes[m]);
		b0 = e.mm.brk.start_brk;
		b = lab_mm_brk(&e.mm, NULL, b0 + 3 * PG + 5, &e.t);
		cr_assert_eq(b, b0 + 3 * PG + 5);
		cr_expect_eq(count(&e), 1);
		for (int i = 0; i < 4; i++)
			cr_assert_eq(put64(&e, b0 + (uintptr_t)i * PG, 7u + (unsigned)i), 0);
		cr_assert_eq(lab_mm_brk(&e.mm, NULL, b0 + 2 * PG, &e.t), b0 + 2 * PG);
		check(&e);
		cr_expect_eq(put64(&e, b0 + 2 * PG, 1), -EFAULT, "page above the break is still mapped");
		cr_expect_eq(get64(&e, b0 + PG, &v), 0);
		cr_expect_eq(v, 8u);
		cr_assert_eq(lab_mm_brk(&e.mm, NULL, b0 + 4 * PG, &e.t), b0 + 4 * PG);
		cr_expect_eq(get64(&e, b0 + 2 * PG, &v), 0);
		cr_expect_eq(v, 0u, "a page given back by brk came back with old contents");
		cr_expect_eq(count(&e), 1);
		cr_expect_eq(lab_mm_brk(&e.mm, NULL, b0 - PG, &e.t), b0 + 4 * PG, "brk below start_brk moved");
		cr_expect_eq(lab_mm_brk(&e.mm, NULL, b0, &e.t), b0);
		cr_expect_eq(count(&e), 0);
		check(&e);
		env_fini(&e);
	}
}

Test(mm, dup_is_copy_on_write, .timeout = 30)
{
	for (size_t m = 0; m < 3; m++) {
		struct env e;
		struct lab_mm child;
		struct lab_mm_thread ct;
		uintptr_t a;
		uint64_t v = 0;

		env_init(&e, all_modes[m]);
		lab_mm_thread_init(&ct, &e.pa);
		a = lab_mm_mmap(&e.mm, 4 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
		for (int i = 0; i < 4; i++)
			cr_assert_eq(put64(&e, a + (uintptr_t)i * PG, 50u + (unsigned)i), 0);
		cr_assert_eq(lab_mm_init(&child, &e.conf, all_modes[m], &e.pa), 0);
		cr_assert_eq(lab_mm_dup(&child, &e.mm, &e.t), 0);
		cr_expect_eq(lab_mm_access(&child, a + PG, &v, sizeof(v), false, &ct), 0);
		cr_expect_eq(v, 51u, "the child does not see the parent's data");
		v = 999;
		cr_expect_eq(lab_mm_access(&child, a + PG, &v, sizeof(v), true, &ct), 0);
		cr_expect_eq(ct.ev[LAB_MM_EV_fault_cow], 1u, "the child's first write did not copy");
		cr_expect_eq(get64(&e, a + PG, &v), 0);
		cr_expect_eq(v, 51u, "the child's write reached the parent's page");
		lab_mm_destroy(&child, &ct);
		/* Now exclusive again: the parent's write reuses the page instead of copying. */
		cr_expect_eq(put64(&e, a + 2 * PG, 77), 0);
		cr_expect_eq(ev(&e, LAB_MM_EV_fault_cow), 0u, "an exclusive page was copied");
		check(&e);
		lab_mm_thread_drain(&ct);
		env_fini(&e);
	}
}

/* Walk the file's i_mmap: its length, and every member a VMA of @f. */
static long i_mmap_len(struct lab_mm_file *f)
{
	long n = 0;

	for (struct lab_vma *v = f->i_mmap; v; v = v->i_mmap_next, n++)
		cr_assert_eq(v->vm_file, f, "a VMA of another file in the i_mmap");
	cr_assert_eq(n, f->i_mmap_count, "i_mmap list (%ld) and count (%ld) disagree", n, f->i_mmap_count);
	return n;
}

Test(mm, i_mmap_follows_mmap_munmap_fork_exit, .timeout = 30)
{
	struct env e;
	struct lab_mm child;
	struct lab_mm_file f;
	uintptr_t a, b;

	env_init(&e, LAB_MM_LOCK_MMAP);
	cr_assert_eq(lab_mm_file_init(&f, 64, &e.pa, NULL, NULL), 0);
	cr_assert_eq(lab_mm_file_i_mmap(&f, &e.conf), 0);
	a = lab_mm_mmap(&e.mm, 16 * PG, LAB_VM_READ | LAB_VM_EXEC, &f, 0);
	b = lab_mm_mmap(&e.mm, 8 * PG, LAB_VM_READ | LAB_VM_WRITE, &f, 16);
	cr_assert(a && b);
	lab_mm_mmap(&e.mm, 4 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);	/* anonymous: not in any i_mmap */
	cr_expect_eq(i_mmap_len(&f), 2, "mmap links each mapping");
	cr_assert_eq(lab_mm_munmap(&e.mm, a + 4 * PG, 4 * PG, &e.t), 0);
	cr_expect_eq(i_mmap_len(&f), 3, "a hole splits the text mapping in two");
	cr_assert_eq(lab_mm_mprotect(&e.mm, b, 4 * PG, LAB_VM_READ), 0);
	cr_expect_eq(i_mmap_len(&f), 4, "mprotect of half of the data mapping splits it");
	cr_assert_eq(lab_mm_init(&child, &e.conf, LAB_MM_LOCK_MMAP, &e.pa), 0);
	cr_assert_eq(lab_mm_dup(&child, &e.mm, &e.t), 0);
	cr_expect_eq(i_mmap_len(&f), 8, "fork links the copy's file mappings");
	lab_mm_destroy(&child, &e.t);
	cr_expect_eq(i_mmap_len(&f), 4, "exit unlinks them");
	cr_assert_eq(lab_mm_munmap(&e.mm, b, 8 * PG, &e.t), 0);
	cr_expect_eq(i_mmap_len(&f), 2);
	check(&e);
	env_fini(&e);
	cr_expect_eq(i_mmap_len(&f), 0, "exit of the last mm left mappings in the i_mmap");
	cr_expect_null(f.i_mmap);
	lab_mm_file_destroy(&f, NULL);
}

/*
 * A shmem segment mapped, copied by a fork, then detached and removed by its
 * creator (reaim's shared_memory with mm=shared while another child forks):
 * the copy's mapping keeps the file, as a VMA holds its struct file, and the
 * copy's exit frees it (ASan: nothing touches it after).
 */
Test(mm, file_outlives_its_creator_in_a_fork_copy, .timeout = 30)
{
	struct env e;
	struct lab_mm child;
	struct lab_mm_file *seg;
	uintptr_t a;
	uint64_t v = 0;

	env_init(&e, LAB_MM_LOCK_MMAP);
	seg = lab_mm_file_new(4, &e.pa, NULL, NULL);
	cr_assert_not_null(seg);
	cr_assert_eq(lab_mm_file_i_mmap(seg, &e.conf), 0);
	a = lab_mm_mmap(&e.mm, 4 * PG, LAB_VM_READ | LAB_VM_WRITE | LAB_VM_SHARED, seg, 0);
	cr_assert(a);
	cr_assert_eq(put64(&e, a + PG, 0xfeed), 0);
	cr_assert_eq(lab_mm_init(&child, &e.conf, LAB_MM_LOCK_MMAP, &e.pa), 0);
	cr_assert_eq(lab_mm_dup(&child, &e.mm, &e.t), 0);
	cr_expect_eq(seg->refs, 3, "the creator and two mappings");
	cr_assert_eq(lab_mm_munmap(&e.mm, a, 4 * PG, &e.t), 0);
	lab_mm_file_destroy(seg, &e.t);
	cr_expect_eq(seg->refs, 1, "the copy's mapping holds the file");
	cr_expect_eq(i_mmap_len(seg), 1);
	cr_assert_eq(lab_mm_access(&child, a + PG, &v, sizeof(v), false, &e.t), 0);
	cr_expect_eq(v, 0xfeedu, "the segment's page went with its creator");
	lab_mm_destroy(&child, &e.t);	/* the last reference: the file and its pages go */
	check(&e);
	env_fini(&e);
}

/* A file in the caller's memory destroyed while still mapped: one line, abort (not a use after free). */
Test(mm, embedded_file_destroyed_while_mapped_aborts, .signal = SIGABRT, .timeout = 30)
{
	struct env e;
	struct lab_mm_file f;

	env_init(&e, LAB_MM_LOCK_MMAP);
	cr_assert_eq(lab_mm_file_init(&f, 4, &e.pa, NULL, NULL), 0);
	cr_assert_eq(lab_mm_file_i_mmap(&f, &e.conf), 0);
	cr_assert(lab_mm_mmap(&e.mm, 4 * PG, LAB_VM_READ, &f, 0));
	lab_mm_file_destroy(&f, &e.t);
}

Test(mm, vma_mode_needs_read_trylock)
{
	struct lab_rwsem_conf c;
	struct lab_page_alloc pa;
	struct lab_mm mm;
	char err[256];

	cr_assert_eq(lab_rwsem_parse("ck-pflock", &c, err, sizeof(err)), 0, "%s", err);
	lab_page_alloc_init(&pa, 0);
	cr_expect_eq(lab_mm_init(&mm, &c, LAB_MM_LOCK_VMA, &pa), -EINVAL);
	lab_page_alloc_destroy(&pa);
}

/* ---- per-VMA fallback paths ------------------------------------------------------------ */

static const enum lab_mm_lock_mode vma_modes[] = { LAB_MM_LOCK_VMA, LAB_MM_LOCK_VMA_REFCNT };

#define SNAP(e, s) memcpy((s), (e)->t.ev, sizeof(s))
#define DELTA(e, s, name) ((e)->t.ev[LAB_MM_EV_##name] - (s)[LAB_MM_EV_##name])

Test(vma_fallback, success_and_no_vma, .timeout = 30)
{
	for (size_t m = 0; m < 2; m++) {
		struct env e;
		uint64_t s[LAB_MM_EV_NR];
		uintptr_t a;

		env_init(&e, vma_modes[m]);
		a = lab_mm_mmap(&e.mm, 4 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
		SNAP(&e, s);
		cr_assert_eq(put64(&e, a, 1), 0);
		if (vma_modes[m] == LAB_MM_LOCK_VMA) {
			/* v6.4: no anon_vma yet -> abort; the mmap_lock path prepares it */
			cr_expect_eq(DELTA(&e, s, vma_lock_abort), 1u);
			cr_expect_eq(DELTA(&e, s, fault_mmap), 1u);
		} else {
			/* v6.15: prepared under the VMA lock with mmap_read_trylock */
			cr_expect_eq(DELTA(&e, s, vma_lock_success), 1u);
		}
		SNAP(&e, s);
		cr_assert_eq(put64(&e, a + PG, 2), 0);
		cr_expect_eq(DELTA(&e, s, vma_lock_success), 1u, "second fault not handled under the VMA lock");
		cr_expect_eq(DELTA(&e, s, fault_mmap), 0u);
		SNAP(&e, s);
		cr_expect_eq(put64(&e, a + 8 * PG, 1), -EFAULT);
		cr_expect_eq(DELTA(&e, s, vma_lock_abort), 1u, "no VMA: must abort");
		cr_expect_eq(DELTA(&e, s, fault_segv), 1u);
		env_fini(&e);
	}
}

Test(vma_fallback, access_error_goes_to_mmap_lock, .timeout = 30)
{
	for (size_t m = 0; m < 2; m++) {
		struct env e;
		uint64_t s[LAB_MM_EV_NR];
		uintptr_t a;

		env_init(&e, vma_modes[m]);
		a = lab_mm_mmap(&e.mm, 2 * PG, LAB_VM_READ, NULL, 0);
		cr_assert_eq(lab_mm_access(&e.mm, a, &(uint64_t){ 0 }, 8, false, &e.t), 0);
		SNAP(&e, s);
		cr_expect_eq(put64(&e, a, 1), -EFAULT);
		cr_expect_eq(DELTA(&e, s, vma_lock_success) + DELTA(&e, s, vma_lock_retry), 0u);
		cr_expect_eq(DELTA(&e, s, fault_segv), 1u, "the mmap_lock path did not report the bad access");
		env_fini(&e);
	}
}

static void fill_pattern(void *arg, size_t pgoff, void *page)
{
	(void)arg;
	memset(page, (int)(0x40 + pgoff), LAB_PAGE_SIZE);
}

Test(vma_fallback, file_pages, .timeout = 30)
{
	for (size_t m = 0; m < 2; m++) {
		struct env e;
		struct lab_mm_file f, shm;
		uint64_t s[LAB_MM_EV_NR];
		uintptr_t a, b;
		unsigned char c = 0;

		env_init(&e, vma_modes[m]);
		cr_assert_eq(lab_mm_file_init(&f, 4, &e.pa, fill_pattern, NULL), 0);
		cr_assert_eq(lab_mm_file_init(&shm, 2, &e.pa, NULL, NULL), 0);
		a = lab_mm_mmap(&e.mm, 4 * PG, LAB_VM_READ, &f, 0);
		b = lab_mm_mmap(&e.mm, 2 * PG, LAB_VM_READ | LAB_VM_WRITE | LAB_VM_SHARED, &shm, 0);
		SNAP(&e, s);
		cr_assert_eq(lab_mm_access(&e.mm, a + PG, &c, 1, false, &e.t), 0);
		cr_expect_eq(c, 0x41, "file contents not read in");
		if (vma_modes[m] == LAB_MM_LOCK_VMA) {
			cr_expect_eq(DELTA(&e, s, vma_lock_abort), 1u, "v6.4 handles only anonymous VMAs");
		} else {
			cr_expect_eq(DELTA(&e, s, vma_lock_retry), 1u, "I/O must be retried under mmap_lock");
			cr_expect_eq(DELTA(&e, s, fault_file), 1u);
		}
		/* Cached now: another mapping of the same page needs no I/O. */
		a = lab_mm_mmap(&e.mm, 4 * PG, LAB_VM_READ, &f, 0);
		SNAP(&e, s);
		cr_assert_eq(lab_mm_access(&e.mm, a + PG, &c, 1, false, &e.t), 0);
		if (vma_modes[m] == LAB_MM_LOCK_VMA_REFCNT)
			cr_expect_eq(DELTA(&e, s, vma_lock_success), 1u);
		/* shmem: no I/O, written through the shared mapping */
		SNAP(&e, s);
		cr_assert_eq(put64(&e, b, 0x1234), 0);
		if (vma_modes[m] == LAB_MM_LOCK_VMA_REFCNT)
			cr_expect_eq(DELTA(&e, s, vma_lock_success), 1u);
		cr_expect_eq(*(uint64_t *)shm.page[0], 0x1234u, "shared write did not reach the shmem page");
		cr_assert_eq(lab_mm_munmap(&e.mm, b, 2 * PG, &e.t), 0);
		lab_mm_destroy(&e.mm, &e.t);
		lab_mm_file_destroy(&f, &e.t);
		lab_mm_file_destroy(&shm, &e.t);
		cr_assert_eq(lab_mm_init(&e.mm, &e.conf, vma_modes[m], &e.pa), 0);
		env_fini(&e);
	}
}

Test(vma_fallback, swapped_page_retries, .timeout = 30)
{
	for (size_t m = 0; m < 2; m++) {
		struct env e;
		uint64_t s[LAB_MM_EV_NR], v = 0;
		uintptr_t a;

		env_init(&e, vma_modes[m]);
		a = lab_mm_mmap(&e.mm, 2 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
		cr_assert_eq(put64(&e, a, 0xabc), 0);
		cr_assert_eq(lab_mm_pageout(&e.mm, a, 2 * PG), 1u);
		SNAP(&e, s);
		cr_assert_eq(get64(&e, a, &v), 0);
		cr_expect_eq(v, 0xabcu, "contents lost across pageout");
		cr_expect_eq(DELTA(&e, s, vma_lock_retry), 1u, "swap-in must retry under mmap_lock");
		cr_expect_eq(DELTA(&e, s, fault_swapin), 1u);
		cr_expect_eq(DELTA(&e, s, fault_mmap), 1u);
		env_fini(&e);
	}
}

struct blocked_fault {
	struct env *e;
	struct lab_mm_thread t;
	uintptr_t addr;
	int done, r;
};

static void *blocked_fault_main(void *arg)
{
	struct blocked_fault *b = arg;
	uint64_t v = 5;

	lab_mm_thread_init(&b->t, &b->e->pa);
	b->r = lab_mm_access(&b->e->mm, b->addr, &v, sizeof(v), true, &b->t);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	lab_mm_thread_drain(&b->t);
	return NULL;
}

Test(vma_fallback, write_locked_vma_aborts_and_waits, .timeout = 30)
{
	for (size_t m = 0; m < 2; m++) {
		struct env e;
		struct blocked_fault b = { 0 };
		pthread_t tid;
		uintptr_t a;

		env_init(&e, vma_modes[m]);
		a = lab_mm_mmap(&e.mm, 2 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
		cr_assert_eq(put64(&e, a, 1), 0);	/* anon_vma prepared */
		b.e = &e;
		b.addr = a + PG;
		lab_mmap_write_lock(&e.mm);
		lab_vma_start_write(&e.mm, lab_mm_find_vma(&e.mm, a));
		cr_assert_eq(pthread_create(&tid, NULL, blocked_fault_main, &b), 0);
		lab_sleep_ns(50000000);
		cr_expect_eq(__atomic_load_n(&b.done, __ATOMIC_ACQUIRE), 0,
			     "a fault went through a write-locked VMA");
		lab_mmap_write_unlock(&e.mm);
		pthread_join(tid, NULL);
		cr_expect_eq(b.r, 0);
		cr_expect_eq(b.t.ev[LAB_MM_EV_vma_lock_abort], 1u, "write-locked VMA: must abort");
		cr_expect_eq(b.t.ev[LAB_MM_EV_fault_mmap], 1u, "and fall back to mmap_lock");
		env_fini(&e);
	}
}

Test(vma_fallback, contended_vma_lock_aborts, .timeout = 30)
{
	for (size_t m = 0; m < 2; m++) {
		struct env e;
		struct lab_vma *vma;
		uint64_t s[LAB_MM_EV_NR];
		uintptr_t a;

		env_init(&e, vma_modes[m]);
		a = lab_mm_mmap(&e.mm, 2 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
		cr_assert_eq(put64(&e, a, 1), 0);
		lab_mmap_read_lock(&e.mm);
		vma = lab_mm_find_vma(&e.mm, a);
		lab_mmap_read_unlock(&e.mm);
		/* A writer in the middle of vma_start_write: holding the rwsem / the OFFSET bit. */
		if (vma_modes[m] == LAB_MM_LOCK_VMA)
			lab_down_write(vma->vm_lock);
		else
			__atomic_fetch_add(&vma->vm_refcnt, VMA_LOCK_OFFSET, __ATOMIC_SEQ_CST);
		SNAP(&e, s);
		cr_assert_eq(put64(&e, a + PG, 2), 0);
		cr_expect_eq(DELTA(&e, s, vma_lock_abort), 1u, "read trylock against a writer must fail");
		cr_expect_eq(DELTA(&e, s, fault_mmap), 1u);
		if (vma_modes[m] == LAB_MM_LOCK_VMA)
			lab_up_write(vma->vm_lock);
		else
			__atomic_fetch_sub(&vma->vm_refcnt, VMA_LOCK_OFFSET, __ATOMIC_SEQ_CST);
		env_fini(&e);
	}
}

/* Hooks run inside lock_vma_under_rcu between the walk and vma_start_read. */
static struct env *hook_env;
static struct lab_mm *hook_mm2;
static struct lab_vma *hook_seen;
static int hook_what;

static void hook(struct lab_mm *mm, struct lab_vma *vma, uintptr_t addr)
{
	struct env *e = hook_env;

	(void)addr;
	lab_mm_walk_hook = NULL;	/* once */
	hook_seen = vma;
	if (hook_what == 0) {
		lab_mm_munmap(mm, vma->vm_start, vma->vm_end - vma->vm_start, &e->t);
	} else if (hook_what == 1) {
		lab_mm_brk(mm, NULL, mm->brk.start_brk + PG, &e->t);
	} else {
		lab_mm_munmap(mm, vma->vm_start, vma->vm_end - vma->vm_start, &e->t);
		lab_mm_mmap(hook_mm2, 2 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	}
}

Test(vma_fallback, detached_vma_is_a_miss, .timeout = 30)
{
	for (size_t m = 0; m < 2; m++) {
		struct env e;
		uint64_t s[LAB_MM_EV_NR];
		uintptr_t a;

		env_init(&e, vma_modes[m]);
		a = lab_mm_mmap(&e.mm, 2 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
		cr_assert_eq(put64(&e, a, 1), 0);
		hook_env = &e;
		hook_what = 0;
		lab_mm_walk_hook = hook;
		SNAP(&e, s);
		cr_expect_eq(put64(&e, a + PG, 2), -EFAULT, "a fault on an unmapped VMA succeeded");
		cr_expect_eq(DELTA(&e, s, vma_lock_miss), 1u, "the detached VMA was not counted as a miss");
		cr_expect_eq(DELTA(&e, s, vma_lock_abort), 1u, "the second walk finds nothing: abort");
		cr_expect_eq(DELTA(&e, s, fault_segv), 1u);
		lab_mm_walk_hook = NULL;
		env_fini(&e);
	}
}

Test(vma_fallback, shrunk_vma_aborts, .timeout = 30)
{
	for (size_t m = 0; m < 2; m++) {
		struct env e;
		uint64_t s[LAB_MM_EV_NR];
		uintptr_t b0;

		env_init(&e, vma_modes[m]);
		b0 = e.mm.brk.start_brk;
		cr_assert_eq(lab_mm_brk(&e.mm, NULL, b0 + 4 * PG, &e.t), b0 + 4 * PG);
		cr_assert_eq(put64(&e, b0, 1), 0);
		hook_env = &e;
		hook_what = 1;
		lab_mm_walk_hook = hook;
		SNAP(&e, s);
		cr_expect_eq(put64(&e, b0 + 3 * PG, 2), -EFAULT);
		cr_expect_eq(DELTA(&e, s, vma_lock_abort), 1u, "address outside the shrunk VMA: abort");
		cr_expect_eq(DELTA(&e, s, vma_lock_miss), 0u);
		lab_mm_walk_hook = NULL;
		env_fini(&e);
	}
}

Test(vma_fallback, reused_vma_of_another_mm_aborts, .timeout = 30)
{
	struct env e;
	struct lab_mm mm2;
	struct lab_vma *before;
	uint64_t s[LAB_MM_EV_NR];
	uintptr_t a;

	env_init(&e, LAB_MM_LOCK_VMA_REFCNT);
	cr_assert_eq(lab_mm_init(&mm2, &e.conf, LAB_MM_LOCK_VMA_REFCNT, &e.pa), 0);
	a = lab_mm_mmap(&e.mm, 2 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	cr_assert_eq(put64(&e, a, 1), 0);
	lab_mmap_read_lock(&e.mm);
	before = lab_mm_find_vma(&e.mm, a);
	lab_mmap_read_unlock(&e.mm);
	hook_env = &e;
	hook_mm2 = &mm2;
	hook_what = 2;
	lab_mm_walk_hook = hook;
	SNAP(&e, s);
	cr_expect_eq(put64(&e, a + PG, 2), -EFAULT);
	cr_assert_eq(hook_seen, before);
	lab_mmap_read_lock(&mm2);
	cr_assert_eq(lab_mm_find_vma(&mm2, 0), before, "the freed VMA object was not reused by mm2");
	lab_mmap_read_unlock(&mm2);
	cr_expect_eq(DELTA(&e, s, vma_lock_abort), 1u, "a VMA reused by another mm must abort");
	cr_expect_eq(DELTA(&e, s, vma_lock_miss), 0u);
	cr_expect_eq(__atomic_load_n(&before->vm_refcnt, __ATOMIC_SEQ_CST), 1u, "the reader leaked a reference");
	lab_mm_walk_hook = NULL;
	lab_mm_destroy(&mm2, &e.t);
	env_fini(&e);
}

struct writer_hold {
	struct env *e;
	int hold_ms, locked;
};

static void *hold_mmap_write(void *arg)
{
	struct writer_hold *h = arg;

	lab_mmap_write_lock(&h->e->mm);
	__atomic_store_n(&h->locked, 1, __ATOMIC_RELEASE);
	lab_sleep_ns((uint64_t)h->hold_ms * 1000000);
	lab_mmap_write_unlock(&h->e->mm);
	return NULL;
}

/* v6.15: anon_vma is prepared under the VMA lock only if mmap_lock can be read-trylocked. */
Test(vma_fallback, anon_prepare_needs_mmap_lock, .timeout = 30)
{
	struct env e;
	struct writer_hold h = { &e, 50, 0 };
	uint64_t s[LAB_MM_EV_NR];
	pthread_t tid;
	uintptr_t a;

	env_init(&e, LAB_MM_LOCK_VMA_REFCNT);
	a = lab_mm_mmap(&e.mm, 2 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	cr_assert_eq(pthread_create(&tid, NULL, hold_mmap_write, &h), 0);
	while (!__atomic_load_n(&h.locked, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	SNAP(&e, s);
	cr_assert_eq(put64(&e, a, 1), 0);	/* waits for the writer in the fallback */
	pthread_join(tid, NULL);
	cr_expect_eq(DELTA(&e, s, vma_lock_retry), 1u, "no anon_vma and mmap_lock busy: VM_FAULT_RETRY");
	cr_expect_eq(DELTA(&e, s, fault_mmap), 1u);
	SNAP(&e, s);
	cr_assert_eq(put64(&e, a + PG, 2), 0);
	cr_expect_eq(DELTA(&e, s, vma_lock_success), 1u, "anon_vma is there now");
	env_fini(&e);
}
