/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Semantics of every registered variant, through the ops table:
 * capability bits agree with the verbs; two readers coexist; a writer
 * excludes readers and writers; trylocks return the right values while the
 * lock is held; downgrade_write turns a write hold into a read hold.
 * busted is tested only in stress/ (it is meant to fail exclusion).
 */
#include "common.h"

#define BLOCK_MS 150		/* "does not complete" = not within this long */
#define WAKE_MS 5000		/* "completes" = within this long */

#define EXCL_VARIANTS(fn)								\
	ParameterizedTestParameters(rwsem, fn)						\
	{										\
		size_t n;								\
		struct lab_test_variant *v = lab_test_variants(LAB_CAP_EXCLUSION,	\
							       LAB_CAP_NOT_IN_ALL, &n);	\
		return cr_make_param_array(struct lab_test_variant, v, n);		\
	}

ParameterizedTestParameters(rwsem, caps_match_verbs)
{
	size_t n;
	struct lab_test_variant *v = lab_test_variants(0, 0, &n);

	return cr_make_param_array(struct lab_test_variant, v, n);
}

ParameterizedTest(struct lab_test_variant *v, rwsem, caps_match_verbs)
{
	const struct lab_rwsem_ops *ops = lab_rwsem_lookup(v->name);

	cr_assert_not_null(ops);
	cr_expect_eq(!!(ops->caps & LAB_CAP_READ_TRYLOCK), ops->down_read_trylock != NULL, "%s rtry", v->name);
	cr_expect_eq(!!(ops->caps & LAB_CAP_WRITE_TRYLOCK), ops->down_write_trylock != NULL, "%s wtry", v->name);
	cr_expect_eq(!!(ops->caps & LAB_CAP_DOWNGRADE), ops->downgrade_write != NULL, "%s downgrade", v->name);
	cr_expect(ops->init && ops->down_read && ops->up_read && ops->down_write && ops->up_write,
		  "%s lacks a mandatory verb", v->name);
	cr_expect(ops->name && ops->summary && ops->cite && *ops->cite, "%s lacks name/summary/cite", v->name);
	cr_expect(ops->size > 0 && ops->align > 0, "%s size/align", v->name);
}

EXCL_VARIANTS(readers_coexist)
ParameterizedTest(struct lab_test_variant *v, rwsem, readers_coexist, .timeout = 30)
{
	struct lab_lock l;
	struct lab_helper h;

	lab_test_lock(&l, v->name);
	lab_down_read(&l);
	lab_helper_start(&h, &l, V_DOWN_READ);
	cr_expect(lab_helper_wait(&h, WAKE_MS), "%s: a second reader blocked behind a reader", v->name);
	lab_up_read(&l);
	lab_helper_finish(&h);
	lab_lock_destroy(&l);
}

EXCL_VARIANTS(writer_excludes_reader)
ParameterizedTest(struct lab_test_variant *v, rwsem, writer_excludes_reader, .timeout = 30)
{
	struct lab_lock l;
	struct lab_helper h;

	lab_test_lock(&l, v->name);
	lab_down_write(&l);
	lab_helper_start(&h, &l, V_DOWN_READ);
	cr_expect_not(lab_helper_wait(&h, BLOCK_MS), "%s: a reader got in while write-held", v->name);
	lab_up_write(&l);
	cr_expect(lab_helper_wait(&h, WAKE_MS), "%s: the reader never got in after up_write", v->name);
	lab_helper_finish(&h);
	lab_lock_destroy(&l);
}

EXCL_VARIANTS(writer_excludes_writer)
ParameterizedTest(struct lab_test_variant *v, rwsem, writer_excludes_writer, .timeout = 30)
{
	struct lab_lock l;
	struct lab_helper h;

	lab_test_lock(&l, v->name);
	lab_down_write(&l);
	lab_helper_start(&h, &l, V_DOWN_WRITE);
	cr_expect_not(lab_helper_wait(&h, BLOCK_MS), "%s: a second writer got in", v->name);
	lab_up_write(&l);
	cr_expect(lab_helper_wait(&h, WAKE_MS), "%s: the writer never got in after up_write", v->name);
	lab_helper_finish(&h);
	lab_lock_destroy(&l);
}

EXCL_VARIANTS(reader_excludes_writer)
ParameterizedTest(struct lab_test_variant *v, rwsem, reader_excludes_writer, .timeout = 30)
{
	struct lab_lock l;
	struct lab_helper h;

	lab_test_lock(&l, v->name);
	lab_down_read(&l);
	lab_helper_start(&h, &l, V_DOWN_WRITE);
	cr_expect_not(lab_helper_wait(&h, BLOCK_MS), "%s: a writer got in while read-held", v->name);
	lab_up_read(&l);
	cr_expect(lab_helper_wait(&h, WAKE_MS), "%s: the writer never got in after up_read", v->name);
	lab_helper_finish(&h);
	lab_lock_destroy(&l);
}

EXCL_VARIANTS(trylock_values)
ParameterizedTest(struct lab_test_variant *v, rwsem, trylock_values, .timeout = 30)
{
	const struct lab_rwsem_ops *ops = lab_rwsem_lookup(v->name);
	struct lab_lock l;
	struct lab_helper h;

	if (!ops->down_read_trylock && !ops->down_write_trylock)
		cr_skip_test("%s has no trylock", v->name);
	lab_test_lock(&l, v->name);

	/* Free: both trylocks succeed (tested from this thread, released at once). */
	if (ops->down_write_trylock) {
		cr_expect_eq(lab_down_write_trylock(&l), 1, "%s: write_trylock on a free lock", v->name);
		lab_up_write(&l);
	}
	if (ops->down_read_trylock) {
		cr_expect_eq(lab_down_read_trylock(&l), 1, "%s: read_trylock on a free lock", v->name);
		lab_up_read(&l);
	}

	/* Write-held: both fail, from another thread. */
	lab_down_write(&l);
	if (ops->down_read_trylock) {
		lab_helper_start(&h, &l, V_READ_TRYLOCK);
		cr_assert(lab_helper_wait(&h, WAKE_MS), "%s: read_trylock blocked", v->name);
		cr_expect_eq(h.result, 0, "%s: read_trylock succeeded while write-held", v->name);
		lab_helper_finish(&h);
	}
	if (ops->down_write_trylock) {
		lab_helper_start(&h, &l, V_WRITE_TRYLOCK);
		cr_assert(lab_helper_wait(&h, WAKE_MS), "%s: write_trylock blocked", v->name);
		cr_expect_eq(h.result, 0, "%s: write_trylock succeeded while write-held", v->name);
		lab_helper_finish(&h);
	}
	lab_up_write(&l);

	/* Read-held: write_trylock fails, read_trylock succeeds. */
	lab_down_read(&l);
	if (ops->down_write_trylock) {
		lab_helper_start(&h, &l, V_WRITE_TRYLOCK);
		cr_assert(lab_helper_wait(&h, WAKE_MS), "%s: write_trylock blocked", v->name);
		cr_expect_eq(h.result, 0, "%s: write_trylock succeeded while read-held", v->name);
		lab_helper_finish(&h);
	}
	if (ops->down_read_trylock) {
		lab_helper_start(&h, &l, V_READ_TRYLOCK);
		cr_assert(lab_helper_wait(&h, WAKE_MS), "%s: read_trylock blocked", v->name);
		cr_expect_eq(h.result, 1, "%s: read_trylock failed while only read-held", v->name);
		lab_helper_finish(&h);
	}
	lab_up_read(&l);
	lab_lock_destroy(&l);
}

ParameterizedTestParameters(rwsem, downgrade)
{
	size_t n;
	struct lab_test_variant *v = lab_test_variants(LAB_CAP_EXCLUSION | LAB_CAP_DOWNGRADE,
						       LAB_CAP_NOT_IN_ALL, &n);

	return cr_make_param_array(struct lab_test_variant, v, n);
}

ParameterizedTest(struct lab_test_variant *v, rwsem, downgrade, .timeout = 30)
{
	struct lab_lock l;
	struct lab_helper rd, wr;

	lab_test_lock(&l, v->name);
	lab_down_write(&l);
	lab_downgrade_write(&l);
	/* Now read-held by us: another reader enters, a writer waits. */
	lab_helper_start(&rd, &l, V_DOWN_READ);
	cr_expect(lab_helper_wait(&rd, WAKE_MS), "%s: reader blocked after downgrade_write", v->name);
	lab_helper_start(&wr, &l, V_DOWN_WRITE);
	cr_expect_not(lab_helper_wait(&wr, BLOCK_MS), "%s: writer got in after downgrade_write", v->name);
	lab_up_read(&l);
	lab_helper_finish(&rd);		/* the helper reader drops its hold */
	cr_expect(lab_helper_wait(&wr, WAKE_MS), "%s: writer never got in after the readers left", v->name);
	lab_helper_finish(&wr);
	lab_lock_destroy(&l);
}

Test(rwsem, null_does_not_exclude, .timeout = 30)
{
	struct lab_lock l;
	struct lab_helper h;

	lab_test_lock(&l, "null");
	cr_expect_not(l.ops->caps & LAB_CAP_EXCLUSION);
	lab_down_write(&l);
	lab_helper_start(&h, &l, V_DOWN_WRITE);
	cr_expect(lab_helper_wait(&h, WAKE_MS), "null made a writer wait");
	lab_helper_finish(&h);
	lab_up_write(&l);
	lab_lock_destroy(&l);
}

Test(registry, lookup_and_all)
{
	struct lab_rwsem_conf confs[64];
	char err[512];
	int n = 0;

	cr_assert_not_null(lab_rwsem_lookup("pthread"));
	cr_assert_null(lab_rwsem_lookup("nosuchlock"));
	cr_assert_eq(lab_rwsem_parse_list("all", confs, 64, &n, err, sizeof(err)), 0, "%s", err);
	for (int i = 0; i < n; i++)
		cr_expect_str_neq(confs[i].ops->name, "busted", "busted must never be in 'all'");
	cr_expect_gt(n, 6);
}
