/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Regression: a fault's copy (lab_mm_access) read a page that was no longer
 * the faulting mm's, or no longer anyone's (the flaky stress-mm_concurrent
 * failure in mm_stress::vma_v6_4: "page ... holds <a free-list link>").
 *
 * The fault path picks the page from the page-table entry while holding only
 * the per-VMA lock or mmap_lock for read, and copies afterwards. A write fault
 * of another thread, holding the same lock for read, may copy-on-write the
 * page in between: it installs a copy and drops the mm's reference to the old
 * page. Whether the old page still holds this mm's data then depends on who
 * else holds it:
 *  - exit:  the forked child exits and drops the last reference: the page is
 *           freed (page_free links it into a free list through its first
 *           word) while the reader is about to copy from it;
 *  - write: the child writes its copy, which it now owns alone, in place
 *           (do_wp_page reuse): the parent's reader would read the child's
 *           data.
 * The fix pins the page get_page_unless_zero-style and re-checks the entry,
 * as GUP-fast does, faulting again if the entry moved on.
 *
 * lab_mm_access_hook stops the reader between picking the page and touching
 * it; the hook runs the other thread's COW (and the child's exit or write) to
 * completion there, so the interleaving happens every time, in each --mm-lock
 * mode. The parent's word only ever held OLD_VAL then NEW_VAL: the read must
 * return one of them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>

#include "common.h"
#include "mm.h"

#define OLD_VAL		0x01d01d01d01d01d0ull
#define NEW_VAL		0x2e12e12e12e12e1ull
#define CHILD_VAL	0xc41dc41dc41dc41dull

enum cow_race { RACE_CHILD_EXIT, RACE_CHILD_WRITE };

struct cow_env {
	struct lab_rwsem_conf conf;
	struct lab_page_alloc pa;
	struct lab_mm parent, child;
	bool child_live;
	uintptr_t addr;
	enum cow_race race;
	struct lab_mm_thread t;		/* the reader's */
	/* what happened inside the hook */
	int hook_calls;
	void *picked;			/* the page the reader picked */
	uint64_t helper_cow;		/* COW faults the other thread made */
	int helper_err;
};

static struct cow_env *hook_env;

static int put64(struct lab_mm *mm, uintptr_t a, uint64_t v, struct lab_mm_thread *t)
{
	return lab_mm_access(mm, a, &v, sizeof(v), true, t);
}

/* The other thread of the parent: a COW write fault, then the child exits or writes. */
static void *helper_main(void *arg)
{
	struct cow_env *e = arg;
	struct lab_mm_thread ht;

	lab_mm_thread_init(&ht, &e->pa);
	e->helper_err = put64(&e->parent, e->addr, NEW_VAL, &ht);
	e->helper_cow = ht.ev[LAB_MM_EV_fault_cow];
	if (e->race == RACE_CHILD_EXIT) {
		lab_mm_destroy(&e->child, &ht);		/* drops the old page's last reference */
		e->child_live = false;
	} else if (!e->helper_err) {
		e->helper_err = put64(&e->child, e->addr, CHILD_VAL, &ht);
	}
	lab_mm_thread_drain(&ht);
	return NULL;
}

/* Runs in the reader, under its fault's lock, with the page picked but not yet read. */
static void access_hook(struct lab_mm *mm, uintptr_t addr, void *page)
{
	struct cow_env *e = hook_env;
	pthread_t tid;

	lab_mm_access_hook = NULL;	/* once: the helper's faults and a retry pass through */
	e->hook_calls++;
	if (mm != &e->parent || addr != e->addr)
		return;
	e->picked = page;
	if (pthread_create(&tid, NULL, helper_main, e)) {
		e->helper_err = -EAGAIN;
		return;
	}
	pthread_join(tid, NULL);
}

/* Every page back in the allocator (none leaked by a pin, none freed twice). */
static size_t pages_missing(struct cow_env *e)
{
	/* the per-CPU LRU batches and pcp lists back first (lru_add_drain_all, drain_all_pages) */
	lab_page_alloc_drain(&e->pa);
	return lab_page_alloc_pages(&e->pa) - lab_page_alloc_free(&e->pa);
}

static void run(enum lab_mm_lock_mode mode, enum cow_race race)
{
	const char *m = lab_mm_lock_mode_name(mode), *rn = race == RACE_CHILD_EXIT ? "exit" : "write";
	struct cow_env e = { .race = race };
	uint64_t before[LAB_MM_EV_NR], v = 0;
	char err[256];
	int r;

	cr_assert_eq(lab_rwsem_parse("pthread", &e.conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_page_alloc_init(&e.pa, 16), 0);
	cr_assert_eq(lab_mm_init(&e.parent, &e.conf, mode, &e.pa), 0);
	lab_mm_thread_init(&e.t, &e.pa);
	e.addr = lab_mm_mmap(&e.parent, LAB_PAGE_SIZE, LAB_VM_READ | LAB_VM_WRITE, NULL, 0);
	cr_assert_neq(e.addr, 0);
	cr_assert_eq(put64(&e.parent, e.addr, OLD_VAL, &e.t), 0);
	/* fork: the page is shared, write-protected in both mms */
	cr_assert_eq(lab_mm_init(&e.child, &e.conf, mode, &e.pa), 0);
	cr_assert_eq(lab_mm_dup(&e.child, &e.parent, &e.t), 0);
	e.child_live = true;

	memcpy(before, e.t.ev, sizeof(before));
	hook_env = &e;
	lab_mm_access_hook = access_hook;
	r = lab_mm_access(&e.parent, e.addr, &v, sizeof(v), false, &e.t);
	lab_mm_access_hook = NULL;

	/* The interleaving really happened, on the path this mode is about. */
	cr_assert_eq(r, 0, "%s/%s: the read failed: %d", m, rn, r);
	cr_assert_geq(e.hook_calls, 1, "%s/%s: the read never reached the hook", m, rn);
	cr_assert_not_null(e.picked, "%s/%s: the hook saw another mm or address", m, rn);
	cr_assert_eq(e.helper_err, 0, "%s/%s: the other thread's faults failed: %d", m, rn, e.helper_err);
	cr_assert_eq(e.helper_cow, 1, "%s/%s: the other thread's write did not copy the shared page", m, rn);
	if (mode == LAB_MM_LOCK_MMAP)
		cr_assert_eq(e.t.ev[LAB_MM_EV_fault_mmap] - before[LAB_MM_EV_fault_mmap], 1);
	else
		cr_assert_eq(e.t.ev[LAB_MM_EV_vma_lock_success] - before[LAB_MM_EV_vma_lock_success], 1,
			     "%s/%s: the read did not run under the per-VMA lock", m, rn);

	cr_expect(v == OLD_VAL || v == NEW_VAL,
		  "%s/%s: the parent read %#lx from its page (it only ever held %#llx, then %#llx)%s", m, rn,
		  (unsigned long)v, OLD_VAL, NEW_VAL,
		  v == CHILD_VAL ? ": the child's data" : race == RACE_CHILD_EXIT ? ": a freed page" : "");

	/* Afterwards each mm sees its own data and the tables are sound. */
	v = 0;
	cr_expect_eq(lab_mm_access(&e.parent, e.addr, &v, sizeof(v), false, &e.t), 0);
	cr_expect_eq(v, NEW_VAL, "%s/%s: parent reads %#lx afterwards", m, rn, (unsigned long)v);
	if (e.child_live) {
		v = 0;
		cr_expect_eq(lab_mm_access(&e.child, e.addr, &v, sizeof(v), false, &e.t), 0);
		cr_expect_eq(v, CHILD_VAL, "%s/%s: child reads %#lx afterwards", m, rn, (unsigned long)v);
		lab_mm_destroy(&e.child, &e.t);
	}
	lab_mmap_write_lock(&e.parent);
	cr_expect_eq(lab_mm_check(&e.parent, err, sizeof(err)), 0, "%s/%s: %s", m, rn, err);
	lab_mmap_write_unlock(&e.parent);
	lab_mm_destroy(&e.parent, &e.t);
	lab_mm_rcu_barrier();
	lab_mm_thread_drain(&e.t);
	cr_expect_eq(pages_missing(&e), 0, "%s/%s: pages not back in the allocator after exit", m, rn);
	lab_page_alloc_destroy(&e.pa);
}

/* Both races in every --mm-lock mode. */
struct cow_case {
	enum lab_mm_lock_mode mode;
	enum cow_race race;
};

ParameterizedTestParameters(mm_cow_access, pinned_copy)
{
	static struct cow_case cases[] = {
		{ LAB_MM_LOCK_MMAP, RACE_CHILD_EXIT },  { LAB_MM_LOCK_VMA, RACE_CHILD_EXIT },
		{ LAB_MM_LOCK_VMA_REFCNT, RACE_CHILD_EXIT }, { LAB_MM_LOCK_MMAP, RACE_CHILD_WRITE },
		{ LAB_MM_LOCK_VMA, RACE_CHILD_WRITE }, { LAB_MM_LOCK_VMA_REFCNT, RACE_CHILD_WRITE },
	};

	return cr_make_param_array(struct cow_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct cow_case *c, mm_cow_access, pinned_copy, .timeout = 30)
{
	run(c->mode, c->race);
}
