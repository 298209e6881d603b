/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The modelled kernel's fault-path state (workloads/kmm.h) counts what each
 * version does: one thread pinned to one CPU faults N pages of a fresh
 * anonymous mapping, and the model's events must be the cited code's
 * arithmetic: a pcp refill per `batch` (63) pages allocated, an LRU batch
 * moved per 15 pages (PAGEVEC_SIZE), a page_counter charge per
 * MEMCG_CHARGE_BATCH pages (v5.0: 32, v6.2: 64; none in the root memcg), rss
 * folded every percpu_counter_batch faults (v6.2) or synced every 66 (v5.0's
 * task cache), a PTE page per 2 MiB; the rss sum exact; and after munmap and
 * the drains every page back in the zones.
 */

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "kmm.h"
#include "mm.h"
#include "vma_lock.h"

#define PG LAB_PAGE_SIZE
#define NPAGES 1000

struct env {
	struct lab_rwsem_conf conf;
	struct lab_page_alloc pa;
	struct lab_mm mm;
	struct lab_mm_thread t;
	uint64_t ev[LAB_KMM_EV_NR];
};

static void pin_cpu0(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(0, &s);
	cr_assert_eq(sched_setaffinity(0, sizeof(s), &s), 0, "cannot pin the test thread to CPU 0");
}

/* An mm of @variant's lock in @mode over a page allocator of kernel @v (memcg @memcg_depth deep). */
static void env_init(struct env *e, const char *variant, enum lab_kmm_ver v, int memcg_depth,
		     enum lab_mm_lock_mode mode)
{
	char err[256];

	cr_assert_eq(lab_rwsem_parse(variant, &e->conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_page_alloc_init(&e->pa, 64), 0);
	cr_assert_eq(lab_page_alloc_kernel(&e->pa, v, memcg_depth), 0);
	lab_mm_thread_init(&e->t, &e->pa);
	cr_assert_eq(lab_mm_init(&e->mm, &e->conf, mode, &e->pa), 0);
}

static uintptr_t fault_pages(struct env *e, enum lab_kmm_ver v, int memcg_depth)
{
	uintptr_t a;

	pin_cpu0();
	memset(e, 0, sizeof(*e));
	env_init(e, "pthread", v, memcg_depth, LAB_MM_LOCK_MMAP);
	/* 2 MiB-aligned start: NPAGES pages need ceil(NPAGES / 512) PTE pages */
	a = lab_mm_mmap(&e->mm, (NPAGES + 512) * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	cr_assert_neq(a, 0);
	a = (a + (2ul << 20) - 1) & ~((2ul << 20) - 1);
	for (size_t i = 0; i < NPAGES; i++) {
		struct lab_fault f = { .addr = a + i * PG, .flags = LAB_FAULT_WRITE };

		cr_assert_eq(lab_mm_fault(&e->mm, &f, &e->t), 0);
	}
	lab_kmm_events(&e->pa.k, e->ev);
	return a;
}

static void fini(struct env *e)
{
	lab_mm_destroy(&e->mm, &e->t);
	lab_mm_rcu_barrier();
	lab_mm_thread_drain(&e->t);
	lab_page_alloc_drain(&e->pa);
	cr_expect_eq(lab_page_alloc_free(&e->pa), lab_page_alloc_pages(&e->pa),
		     "pages not back in the zones after exit: %zu of %zu", lab_page_alloc_free(&e->pa),
		     lab_page_alloc_pages(&e->pa));
	lab_page_alloc_destroy(&e->pa);
}

/* Pages allocated: the NPAGES, their PTE pages, one PMD page. */
#define PT_PAGES ((NPAGES + 511) / 512 + 1)

static void check_common(struct env *e, unsigned charge_batch, int memcg_depth)
{
	uint64_t alloc = NPAGES + PT_PAGES, charged = alloc;

	cr_expect_eq(e->ev[LAB_KMM_EV_pages_alloc], alloc, "pages allocated %lu, want %lu",
		     (unsigned long)e->ev[LAB_KMM_EV_pages_alloc], (unsigned long)alloc);
	cr_expect_eq(e->ev[LAB_KMM_EV_pte_page], PT_PAGES);
	/* rmqueue_bulk takes `batch` pages each time the pcp list is empty */
	cr_expect_eq(e->ev[LAB_KMM_EV_pcp_refill], (alloc + 62) / 63, "pcp refills %lu, want %lu",
		     (unsigned long)e->ev[LAB_KMM_EV_pcp_refill], (unsigned long)((alloc + 62) / 63));
	/* folio_batch_move_lru for every 15 anonymous pages (page-table pages are not on the LRU) */
	cr_expect_eq(e->ev[LAB_KMM_EV_lru_drain], NPAGES / LAB_KMM_LRU_BATCH);
	/* page_counter_try_charge of a batch whenever the stock runs dry */
	cr_expect_eq(e->ev[LAB_KMM_EV_charge_refill], memcg_depth ? (charged + charge_batch - 1) / charge_batch : 0,
		     "charge refills %lu", (unsigned long)e->ev[LAB_KMM_EV_charge_refill]);
	cr_expect_eq(lab_kmm_rss_read(&e->pa.k, &e->mm.rss, &e->t.kt, 1), NPAGES, "rss %ld",
		     lab_kmm_rss_read(&e->pa.k, &e->mm.rss, &e->t.kt, 1));
	if (memcg_depth) {
		/* every level carries what was charged (the stock's remainder included) */
		long usage = *(long *)e->pa.k.memcg[memcg_depth].pc;

		cr_expect_eq(usage, (long)(((charged + charge_batch - 1) / charge_batch) * charge_batch),
			     "root page_counter usage %ld", usage);
	}
}

Test(kmm, v6_2_counts)
{
	struct env e;

	fault_pages(&e, LAB_KMM_V6_2, LAB_KMM_MEMCG_DEPTH);
	check_common(&e, 64, LAB_KMM_MEMCG_DEPTH);
	/* percpu_counter_add_batch folds at max(32, 2 * CPUs) */
	cr_expect_eq(e.ev[LAB_KMM_EV_rss_spill], (uint64_t)(NPAGES / e.pa.k.rss_batch));
	fini(&e);
}

Test(kmm, v5_0_counts)
{
	struct env e;

	fault_pages(&e, LAB_KMM_V5_0, LAB_KMM_MEMCG_DEPTH);
	check_common(&e, 32, LAB_KMM_MEMCG_DEPTH);
	/* check_sync_rss_stat: events++ > 64 syncs, so once per 66 faults */
	cr_expect_eq(e.ev[LAB_KMM_EV_rss_spill], (uint64_t)(NPAGES / 66));
	fini(&e);
}

Test(kmm, root_memcg_is_not_charged)
{
	struct env e;

	fault_pages(&e, LAB_KMM_V6_2, 0);
	check_common(&e, 64, 0);
	fini(&e);
}

Test(kmm, munmap_returns_pages)
{
	struct env e;
	uintptr_t a = fault_pages(&e, LAB_KMM_V6_2, LAB_KMM_MEMCG_DEPTH);
	uint64_t ev[LAB_KMM_EV_NR];

	(void)a;
	lab_page_alloc_drain(&e.pa);	/* the LRU batch's references first */
	cr_assert_eq(lab_mm_munmap(&e.mm, a & ~((1ul << 30) - 1), 1ul << 30, &e.t), 0);
	lab_kmm_events(&e.pa.k, ev);
	cr_expect_eq(ev[LAB_KMM_EV_pages_free] - e.ev[LAB_KMM_EV_pages_free], NPAGES + (NPAGES + 511) / 512,
		     "pages freed by munmap %lu", (unsigned long)(ev[LAB_KMM_EV_pages_free] - e.ev[LAB_KMM_EV_pages_free]));
	cr_expect_eq(ev[LAB_KMM_EV_lru_del] - e.ev[LAB_KMM_EV_lru_del], NPAGES);
	cr_expect_eq(lab_kmm_rss_read(&e.pa.k, &e.mm.rss, &e.t.kt, 1), 0);
	fini(&e);
}

/*
 * pcp->high and the bulk free past it. v6.2 zone_highsize(): the zone's low
 * watermark over its node's CPUs, at least 4 * batch; the model's node is
 * 64 GiB (16,777,216 pages), so with one node min_free_kbytes =
 * int_sqrt(64 GiB in KiB * 16) = 32,768 (8,192 pages), low = 8,192 +
 * max(8,192 / 4, 16,777,216 * 10 / 10000) = 24,969. v5.0: 6 * batch.
 */
Test(kmm, pcp_high)
{
	struct env e;
	int cpus = 0;

	fault_pages(&e, LAB_KMM_V6_2, LAB_KMM_MEMCG_DEPTH);
	for (int c = 0; c < lab_nr_cpus(); c++)
		cpus += lab_cpu_node(c) == 0;
	if (lab_nr_nodes() == 1)
		cr_expect_eq(e.pa.k.zone[0].high, 24969 / cpus > 4 * 63 ? 24969 / cpus : 4 * 63, "v6.2 high %d, %d CPUs",
			     e.pa.k.zone[0].high, cpus);
	cr_expect_geq(e.pa.k.zone[0].high, 4 * e.pa.k.zone[0].batch);
	fini(&e);
	fault_pages(&e, LAB_KMM_V5_0, LAB_KMM_MEMCG_DEPTH);
	cr_expect_eq(e.pa.k.zone[0].high, 6 * 63);
	fini(&e);
}

/*
 * v6.2 nr_pcp_free(): frees with no allocation between them send back batch,
 * 2 * batch, 4 * batch, ... pages, at most high - batch; v5.0 always batch.
 * munmap frees NPAGES pages and the PTE pages from CPU 0's list, whose high is
 * set to 4 * batch here so that it is passed many times.
 */
static void check_bulk_frees(enum lab_kmm_ver v)
{
	struct env e;
	uintptr_t a = fault_pages(&e, v, LAB_KMM_MEMCG_DEPTH);
	struct lab_kzone *z = &e.pa.k.zone[e.pa.k.cpu[0].node];
	int high = 4 * z->batch, count, ff = 0, frees = 0;
	uint64_t ev[LAB_KMM_EV_NR];

	lab_page_alloc_drain(&e.pa);
	z->high = high;
	count = e.pa.k.cpu[0].pcp_count;
	for (int i = 0; i < NPAGES + (NPAGES + 511) / 512; i++)
		if (++count >= high) {
			int n = z->batch;

			if (v != LAB_KMM_V5_0) {
				n = z->batch << ff;
				if (n < high - z->batch)
					ff++;
				n = n < z->batch ? z->batch : n > high - z->batch ? high - z->batch : n;
			}
			count -= n;
			frees++;
		}
	cr_assert_eq(lab_mm_munmap(&e.mm, a & ~((1ul << 30) - 1), 1ul << 30, &e.t), 0);
	lab_kmm_events(&e.pa.k, ev);
	cr_expect_eq(ev[LAB_KMM_EV_pcp_bulk_free] - e.ev[LAB_KMM_EV_pcp_bulk_free], (uint64_t)frees, "%s: %lu bulk frees",
		     lab_kmm_ver_name(v), (unsigned long)(ev[LAB_KMM_EV_pcp_bulk_free] - e.ev[LAB_KMM_EV_pcp_bulk_free]));
	cr_expect_eq(e.pa.k.cpu[0].pcp_count, count, "%s: %d pages left on the list", lab_kmm_ver_name(v),
		     e.pa.k.cpu[0].pcp_count);
	fini(&e);
}

Test(kmm, bulk_free_doubles_v6_2)
{
	check_bulk_frees(LAB_KMM_V6_2);
}

Test(kmm, bulk_free_batch_v5_0)
{
	check_bulk_frees(LAB_KMM_V5_0);
}

/* One write fault on each of the @n pages from @a, each must succeed. */
static void write_fault_pages(struct env *e, uintptr_t a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct lab_fault f = { .addr = a + i * PG, .flags = LAB_FAULT_WRITE };

		cr_assert_eq(lab_mm_fault(&e->mm, &f, &e->t), 0);
	}
}

/*
 * The mmap_lock lives where the cited kernel has it: inside the mm_struct
 * image at the profile's offset, for a variant with the kernel's layout
 * (LAB_CAP_EMBED); its count shares a line with mm->pgd in v5.0 and v6.2
 * (mmap_lock @112) and not in v5.12 and v6.4 (@128); a variant without the
 * layout keeps an object of its own. The lock works in place, and faults
 * (which read mm->pgd under it) still fault.
 */
static void mmap_lock_placed(enum lab_kmm_ver v, const char *variant, bool embedded, bool pgd_line)
{
	struct env *e = calloc(1, sizeof(*e));
	const struct lab_kmm_profile *p = &lab_kmm_profiles[v];
	uintptr_t a, sem, pgd;

	cr_assert_not_null(e);
	env_init(e, variant, v, 0, LAB_MM_LOCK_MMAP);
	sem = (uintptr_t)e->mm.mmap_lock.sem;
	pgd = (uintptr_t)e->mm.rss.image + p->mm_pgd;
	cr_expect_eq(sem == (uintptr_t)e->mm.rss.image + p->mm_mmap_lock, embedded,
		     "%s %s: mmap_lock at image + %ld", p->name, variant, (long)(sem - (uintptr_t)e->mm.rss.image));
	if (embedded)
		cr_expect_eq(sem / LAB_CACHELINE == pgd / LAB_CACHELINE, pgd_line,
			     "%s: count @%u and pgd @%u on %s line", p->name, p->mm_mmap_lock, p->mm_pgd,
			     pgd_line ? "another" : "the same");
	a = lab_mm_mmap(&e->mm, 8 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	cr_assert_neq(a, 0);
	write_fault_pages(e, a, 8);
	lab_mmap_write_lock(&e->mm);
	lab_mmap_write_unlock(&e->mm);
	fini(e);
	free(e);
}

Test(kmm, mmap_lock_in_the_mm_struct)
{
	mmap_lock_placed(LAB_KMM_V5_0, "rwsem-xadd", true, true);
	mmap_lock_placed(LAB_KMM_V5_0, "rwsem-rspin", true, true);
	mmap_lock_placed(LAB_KMM_V5_12, "rwsem", true, false);
	mmap_lock_placed(LAB_KMM_V6_2, "rwsem", true, true);
	mmap_lock_placed(LAB_KMM_V6_4, "rwsem", true, false);
	mmap_lock_placed(LAB_KMM_V6_2, "pthread", false, false);
}

/*
 * mm_lock_seq where the kernel has it (vma mode): v6.4 @184, on the line of
 * mmap_lock's count @128; the pvl-v2 series on v6.2 @168, right after mmlist,
 * on the line after the count's (@112). A write unlock adds one there, and a
 * VMA write-locked in that session is read-locked by nobody until then.
 * Elsewhere (mmap mode, v5.x, rwsem-rspin whose knobs cover the word) the
 * field of struct lab_mm.
 */
static void mm_lock_seq_placed(enum lab_kmm_ver v, const char *variant, enum lab_mm_lock_mode mode,
			       bool in_image, bool count_line)
{
	struct env *e = calloc(1, sizeof(*e));
	const struct lab_kmm_profile *p = &lab_kmm_profiles[v];
	uintptr_t seq, count, a;
	struct lab_vma *vma;

	cr_assert_not_null(e);
	env_init(e, variant, v, 0, mode);
	seq = (uintptr_t)lab_mm_lock_seq(&e->mm);
	count = (uintptr_t)e->mm.rss.image + p->mm_mmap_lock;
	cr_expect_eq(seq == (uintptr_t)e->mm.rss.image + p->mm_lock_seq && p->mm_lock_seq, in_image,
		     "%s %s: mm_lock_seq %s the image", p->name, variant, in_image ? "not in" : "in");
	cr_expect_eq(seq == (uintptr_t)&e->mm.mm_lock_seq, !in_image);
	if (in_image)
		cr_expect_eq(seq / LAB_CACHELINE == count / LAB_CACHELINE, count_line,
			     "%s: mm_lock_seq @%u %s count's line @%u", p->name, p->mm_lock_seq,
			     count_line ? "not on" : "on", p->mm_mmap_lock);
	a = lab_mm_mmap(&e->mm, 8 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	cr_assert_neq(a, 0);
	write_fault_pages(e, a, 8);
	lab_mmap_write_lock(&e->mm);
	vma = lab_mm_find_vma(&e->mm, a);
	lab_vma_start_write(&e->mm, vma);
	if (mode == LAB_MM_LOCK_VMA)
		cr_expect_eq(lab_vma_start_read(&e->mm, vma), -EBUSY, "a write-locked VMA was read-locked");
	a = *(uint32_t *)seq;
	lab_mmap_write_unlock(&e->mm);
	cr_expect_eq(*(uint32_t *)seq, a + (mode != LAB_MM_LOCK_MMAP), "the write unlock did not add one");
	if (mode == LAB_MM_LOCK_VMA) {
		cr_expect_eq(lab_vma_start_read(&e->mm, vma), 0, "the VMA stayed write-locked");
		lab_vma_end_read(&e->mm, vma);
	}
	fini(e);
	free(e);
}

Test(kmm, mm_lock_seq_in_the_mm_struct)
{
	mm_lock_seq_placed(LAB_KMM_V6_4, "rwsem", LAB_MM_LOCK_VMA, true, true);
	mm_lock_seq_placed(LAB_KMM_V6_4, "rwsem-xadd", LAB_MM_LOCK_VMA, true, true);
	mm_lock_seq_placed(LAB_KMM_V6_4, "percpu-rwsem", LAB_MM_LOCK_VMA, true, true);
	mm_lock_seq_placed(LAB_KMM_V6_2, "rwsem", LAB_MM_LOCK_VMA, true, false);
	mm_lock_seq_placed(LAB_KMM_V6_4, "rwsem-rspin", LAB_MM_LOCK_VMA, false, false);
	mm_lock_seq_placed(LAB_KMM_V6_4, "rwsem", LAB_MM_LOCK_VMA_REFCNT, false, false);
	mm_lock_seq_placed(LAB_KMM_V6_4, "rwsem", LAB_MM_LOCK_MMAP, false, false);
	mm_lock_seq_placed(LAB_KMM_V5_12, "rwsem", LAB_MM_LOCK_VMA, false, false);
}

/* lab_lock_init_at refuses what it cannot do, and writes only the variant's state. */
Test(kmm, lock_init_at_checks)
{
	struct lab_rwsem_conf rw, pt;
	struct lab_lock l;
	char err[256];
	_Alignas(64) unsigned char buf[512];
	size_t size;

	cr_assert_eq(lab_rwsem_parse("rwsem", &rw, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_rwsem_parse("pthread", &pt, err, sizeof(err)), 0, "%s", err);
	size = rw.ops->size;
	cr_assert_lt(size + 16, sizeof(buf));
	cr_expect_eq(lab_lock_init_at(&l, &pt, buf, sizeof(buf)), -EINVAL, "no LAB_CAP_EMBED");
	cr_expect_eq(lab_lock_init_at(&l, &rw, buf + 4, sizeof(buf) - 4), -EINVAL, "misaligned");
	cr_expect_eq(lab_lock_init_at(&l, &rw, buf, size - 1), -ENOSPC, "no room");
	memset(buf, 0xa5, sizeof(buf));
	cr_assert_eq(lab_lock_init_at(&l, &rw, buf + 8, size), 0);
	cr_expect_eq(buf[7], 0xa5, "a byte before the state written");
	cr_expect_eq(buf[8 + size], 0xa5, "a byte after the state written");
	lab_down_write(&l);
	cr_expect_eq(lab_down_read_trylock(&l), 0, "read trylock succeeded under a writer");
	lab_up_write(&l);
	cr_expect_eq(lab_down_read_trylock(&l), 1);
	lab_up_read(&l);
	lab_lock_destroy_at(&l);
	cr_expect_null(l.sem);
}

/*
 * The per-VMA lock lives where the modelled kernel has it: inside the VMA on
 * v6.2 (the pvl-v2 series the per-VMA table ran: count the last word of the
 * VMA's first line, with vm_start..vm_flags and vm_lock_seq; owner on the
 * next line), apart on v6.4 (struct vma_lock, a separate object); pft's
 * vma_lock knob overrides it; a variant without the kernel's layout is always
 * apart. Faults take the lock in place and an munmap frees it (through RCU).
 */
static void vma_lock_placed(enum lab_kmm_ver v, const char *variant, enum lab_vma_lock_place place, bool inside)
{
	struct env *e = calloc(1, sizeof(*e));
	const struct lab_kmm_profile *p = &lab_kmm_profiles[v];
	struct lab_vma *vma;
	uintptr_t a, sem;

	cr_assert_not_null(e);
	env_init(e, variant, v, 0, LAB_MM_LOCK_VMA);
	lab_mm_set_vma_lock_place(&e->mm, place);
	a = lab_mm_mmap(&e->mm, 8 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	cr_assert_neq(a, 0);
	vma = lab_mm_find_vma(&e->mm, a);
	cr_assert_not_null(vma);
	sem = (uintptr_t)vma->vm_lock->sem;
	cr_expect_eq(sem == (uintptr_t)vma->vm_lock_image, inside, "%s %s place %d: lock %s the VMA", p->name,
		     variant, (int)place, inside ? "not inside" : "inside");
	if (inside) {
		cr_expect_eq(sem / LAB_CACHELINE, (uintptr_t)&vma->vm_flags / LAB_CACHELINE,
			     "count not on the line of vm_flags");
		cr_expect_eq(sem / LAB_CACHELINE, (uintptr_t)&vma->vm_lock_seq / LAB_CACHELINE,
			     "count not on the line of vm_lock_seq");
		cr_expect_eq((sem + 8) / LAB_CACHELINE, sem / LAB_CACHELINE + 1, "owner not on the next line");
	}
	write_fault_pages(e, a, 8);
	cr_expect_geq(e->t.ev[LAB_MM_EV_vma_lock_success], 1, "no fault took the per-VMA lock");
	cr_assert_eq(lab_mm_munmap(&e->mm, a, 8 * PG, &e->t), 0);
	fini(e);
	free(e);
}

Test(kmm, vma_lock_where_the_kernel_has_it)
{
	static const char *const inside[] = { "rwsem", "rwsem-dhandoff", "rwsem-xadd", "rwsem-rspin" };
	struct lab_rwsem_conf conf;
	char err[256];

	for (size_t i = 0; i < sizeof(inside) / sizeof(inside[0]); i++) {
		cr_assert_eq(lab_rwsem_parse(inside[i], &conf, err, sizeof(err)), 0, "%s", err);
		cr_expect(lab_vma_lock_fits_inside(&conf), "%s (%zu bytes) does not fit the VMA's %d", inside[i],
			  conf.ops->size, LAB_VMA_LOCK_ROOM);
	}
	cr_assert_eq(lab_rwsem_parse("percpu-rwsem", &conf, err, sizeof(err)), 0, "%s", err);
	cr_expect(!lab_vma_lock_fits_inside(&conf), "percpu-rwsem has no kernel rw_semaphore layout");
	vma_lock_placed(LAB_KMM_V6_2, "rwsem", LAB_VMA_LOCK_KERNEL, true);
	vma_lock_placed(LAB_KMM_V6_4, "rwsem", LAB_VMA_LOCK_KERNEL, false);
	vma_lock_placed(LAB_KMM_V6_4, "rwsem", LAB_VMA_LOCK_APART, false);
	vma_lock_placed(LAB_KMM_V6_4, "rwsem-xadd", LAB_VMA_LOCK_KERNEL, false);
	vma_lock_placed(LAB_KMM_V6_2, "rwsem", LAB_VMA_LOCK_APART, false);
	vma_lock_placed(LAB_KMM_V6_4, "rwsem-xadd", LAB_VMA_LOCK_INSIDE, true);
	vma_lock_placed(LAB_KMM_V6_2, "pthread", LAB_VMA_LOCK_KERNEL, false);
}

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define KMM_ASAN 1
#else
#define KMM_ASAN 0
#define __asan_address_is_poisoned(p) ((void)(p), 0)
#endif

/*
 * SLUB's layout of a 40-byte cache without SLAB_HWCACHE_ALIGN: objects at a
 * 40-byte stride from the slab page's start, 102 to a 4 KiB page, the free
 * pointer at offset 16, the last freed object handed out first.
 */
Test(kmm, kmem_cache_packs_40_byte_objects)
{
	struct lab_kmem_cache c;
	char *o[103];

	cr_assert_eq(lab_kmem_cache_create(&c, 40, 8, 2), 0);
	cr_expect_eq(c.size, 40);
	cr_expect_eq(c.objects, 102);
	cr_expect_eq(c.offset, 16);
	for (int i = 0; i < 103; i++)
		cr_assert_not_null(o[i] = lab_kmem_cache_alloc(&c));
	cr_expect_eq((uintptr_t)o[0] % 4096, 0, "the first object starts the page");
	cr_expect_eq(o[1] - o[0], 40);
	cr_expect_eq((uintptr_t)(o[0] + 39) / LAB_CACHELINE, (uintptr_t)o[1] / LAB_CACHELINE,
		     "objects 0 and 1 share no line");
	cr_expect_eq(o[101] - o[0], 101 * 40);
	cr_expect_eq(o[102] - o[0], 4096, "object 102 not at the next page's start");
	lab_kmem_cache_free(&c, o[5]);
	lab_kmem_cache_free(&c, o[7]);
	cr_expect_eq(lab_kmem_cache_alloc(&c), o[7]);
	cr_expect_eq(lab_kmem_cache_alloc(&c), o[5]);
	cr_expect(lab_kmem_cache_owns(&c, o[102]) && !lab_kmem_cache_owns(&c, &c));
	lab_kmem_cache_destroy(&c);
	cr_expect(!lab_kmem_cache_owns(&c, o[0]), "a destroyed cache still owns its objects");
}

/*
 * Under AddressSanitizer a freed object is poisoned, whole (a stale reader's
 * down_read_trylock on a freed struct vma_lock is reported, not run on the
 * lock of whichever VMA gets the object next), and unpoisoned again when it is
 * handed out; never-used objects are poisoned too.
 */
Test(kmm, kmem_cache_freed_object_poisoned)
{
	struct lab_kmem_cache c;
	char *o, *p;

	if (!KMM_ASAN)
		cr_skip_test("not an AddressSanitizer build: no shadow memory to poison");
	cr_assert_eq(lab_kmem_cache_create(&c, 40, 8, 1), 0);
	cr_expect(__asan_address_is_poisoned(c.base), "a never-used object is not poisoned");
	o = lab_kmem_cache_alloc(&c);
	p = lab_kmem_cache_alloc(&c);
	cr_assert(o && p);
	for (int i = 0; i < 40; i++)
		cr_expect(!__asan_address_is_poisoned(o + i), "byte %d of a live object is poisoned", i);
	cr_expect(__asan_address_is_poisoned(p + 40), "the object after the last handed out is not poisoned");
	lab_kmem_cache_free(&c, o);
	for (int i = 0; i < 40; i++)
		cr_expect(__asan_address_is_poisoned(o + i), "byte %d of a freed object is not poisoned", i);
	cr_expect(!__asan_address_is_poisoned(p), "freeing one object poisoned its neighbour");
	cr_expect_eq(lab_kmem_cache_alloc(&c), o, "the freed object is not handed out first");
	for (int i = 0; i < 40; i++)
		cr_expect(!__asan_address_is_poisoned(o + i), "byte %d of a reused object is poisoned", i);
	lab_kmem_cache_destroy(&c);
}


/*
 * v6.4's per-VMA locks are struct vma_locks of one kmem_cache: two VMAs made
 * one after the other get locks 40 bytes apart, the second's count on the
 * first's last line. Faults read-lock them in place (the knobs in the side
 * record), and an munmap gives the lock back after the grace period: the
 * next VMA gets it.
 */
Test(kmm, vma_locks_share_a_slab_line)
{
	struct env *e = calloc(1, sizeof(*e));
	uintptr_t a, b, la, lb;
	struct lab_vma *va;

	cr_assert_not_null(e);
	env_init(e, "rwsem", LAB_KMM_V6_4, 0, LAB_MM_LOCK_VMA);
	cr_assert(lab_vma_lock_fits_slab(&e->conf));
	a = lab_mm_mmap(&e->mm, 8 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	b = lab_mm_mmap(&e->mm, 8 * PG, LAB_VM_READ | LAB_VM_EXEC, NULL, 0);
	cr_assert(a && b);
	va = lab_mm_find_vma(&e->mm, a);
	la = (uintptr_t)va->vm_lock->sem;
	lb = (uintptr_t)lab_mm_find_vma(&e->mm, b)->vm_lock->sem;
	cr_expect(lab_lock_is_packed((void *)la) && lab_lock_is_packed((void *)lb), "a lock not in the slab");
	cr_expect_eq(lb - la, 40, "locks %#lx and %#lx not packed", (unsigned long)la, (unsigned long)lb);
	cr_expect_eq((la + 39) / LAB_CACHELINE, lb / LAB_CACHELINE, "the two locks share no line");
	cr_expect_neq(lab_lock_side((void *)la), NULL, "no side record for the knobs");
	write_fault_pages(e, a, 8);
	cr_expect_geq(e->t.ev[LAB_MM_EV_vma_lock_success], 7, "faults did not take the packed lock");
	cr_assert_eq(lab_mm_munmap(&e->mm, a, 8 * PG, &e->t), 0);
	lab_mm_rcu_barrier();
	a = lab_mm_mmap(&e->mm, 8 * PG, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	cr_assert_neq(a, 0);
	cr_expect_eq((uintptr_t)lab_mm_find_vma(&e->mm, a)->vm_lock->sem, la, "the freed lock was not reused");
	fini(e);
	free(e);
}

/*
 * A packed lock (LAB_CAP_PACKED) owns its object's 40 bytes and nothing more:
 * the neighbours in the slab, filled with a pattern, are untouched by init,
 * every verb, and a re-init of the same object with other knobs; the side
 * record the lock reads its knobs from is the object's own.
 */
Test(kmm, packed_lock_keeps_to_its_40_bytes)
{
	static const char *const variants[] = { "rwsem", "rwsem-dhandoff", "rwsem:max_readers_wakeup=16" };
	struct lab_kmem_cache c;
	char *o[3], err[256];

	cr_assert_eq(lab_kmem_cache_create(&c, LAB_RWSEM_KERNEL_SIZE, 8, 1), 0);
	cr_assert_eq(lab_lock_packed_area(c.base, c.len), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_not_null(o[i] = lab_kmem_cache_alloc(&c));
	cr_assert_eq(o[1] - o[0], LAB_RWSEM_KERNEL_SIZE);
	memset(o[0], 0xa5, LAB_RWSEM_KERNEL_SIZE);
	memset(o[2], 0x5a, LAB_RWSEM_KERNEL_SIZE);
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		struct lab_rwsem_conf conf;
		struct lab_lock l;

		cr_assert_eq(lab_rwsem_parse(variants[v], &conf, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(lab_lock_init_packed(&l, &conf, o[1]), 0, "%s: not packed", variants[v]);
		cr_expect_eq((char *)l.sem, o[1]);
		cr_expect_not_null(lab_lock_side(o[1]), "%s: no side record", variants[v]);
		cr_expect_null(lab_lock_side(&l), "a pointer outside the area has a side record");
		lab_down_read(&l);
		cr_expect(lab_down_read_trylock(&l));
		lab_up_read(&l);
		lab_up_read(&l);
		lab_down_write(&l);
		lab_downgrade_write(&l);
		lab_up_read(&l);
		cr_expect(lab_down_write_trylock(&l));
		lab_up_write(&l);
		lab_lock_destroy_at(&l);
		for (int b = 0; b < LAB_RWSEM_KERNEL_SIZE; b++) {
			cr_expect_eq((unsigned char)o[0][b], 0xa5, "%s wrote byte %d of the object before it", variants[v], b);
			cr_expect_eq((unsigned char)o[2][b], 0x5a, "%s wrote byte %d of the object after it", variants[v], b);
		}
	}
	lab_kmem_cache_destroy(&c);
}
