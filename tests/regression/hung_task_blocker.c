/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwsem (mainline): v6.18's up_read under CONFIG_DETECT_HUNG_TASK_BLOCKER
 * clears an owner word that names the unlocking reader (knob
 * hung_task_blocker=1, the default); v6.3's (hung_task_blocker=0) leaves the
 * last reader in it as a stale hint. Either way READER_OWNED stays set, and
 * an owner word naming another reader is left alone.
 */
#include "common.h"
#include "rwsem_mainline.h"

#define READER_OWNED 1UL
#define FLAGS_MASK 3UL

struct holder {
	const struct lab_lock *lock;
	struct lab_task *task;
	int in, release;
};

static void *holder_main(void *arg)
{
	struct holder *h = arg;

	lab_down_read(h->lock);
	h->task = lab_current();
	__atomic_store_n(&h->in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	lab_up_read(h->lock);
	return NULL;
}

Test(hung_task_blocker, up_read_clears_own_owner)
{
	struct lab_lock l;
	unsigned long o;

	lab_test_lock(&l, "rwsem");
	lab_down_read(&l);
	o = rwsem_mainline_owner(l.sem);
	cr_expect_eq(o & ~FLAGS_MASK, (unsigned long)lab_current(), "down_read did not name us");
	lab_up_read(&l);
	o = rwsem_mainline_owner(l.sem);
	cr_expect_eq(o & ~FLAGS_MASK, 0, "up_read left us in the owner word (%#lx)", o);
	cr_expect(o & READER_OWNED, "up_read dropped READER_OWNED (%#lx)", o);
	lab_lock_destroy(&l);
}

Test(hung_task_blocker, v6_3_leaves_stale_reader)
{
	struct lab_lock l;
	unsigned long o;

	lab_test_lock(&l, "rwsem:hung_task_blocker=0");
	lab_down_read(&l);
	lab_up_read(&l);
	o = rwsem_mainline_owner(l.sem);
	cr_expect_eq(o & ~FLAGS_MASK, (unsigned long)lab_current(), "v6.3 up_read cleared the owner (%#lx)", o);
	lab_lock_destroy(&l);
}

Test(hung_task_blocker, other_reader_left_alone)
{
	struct holder h = { 0 };
	struct lab_lock l;
	pthread_t t;
	unsigned long o;

	lab_test_lock(&l, "rwsem");
	h.lock = &l;
	lab_down_read(&l);
	cr_assert_eq(pthread_create(&t, NULL, holder_main, &h), 0);
	while (!__atomic_load_n(&h.in, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	/* The word names the other reader now: our up_read must leave it. */
	lab_up_read(&l);
	o = rwsem_mainline_owner(l.sem);
	cr_expect_eq(o & ~FLAGS_MASK, (unsigned long)h.task, "our up_read cleared another reader's name (%#lx)", o);
	__atomic_store_n(&h.release, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	o = rwsem_mainline_owner(l.sem);
	cr_expect_eq(o & ~FLAGS_MASK, 0, "the named reader's up_read did not clear it (%#lx)", o);
	lab_lock_destroy(&l);
}
