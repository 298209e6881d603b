/* SPDX-License-Identifier: MIT */
/*
 * locktorture-style stress of every variant (write_held flag and read_held
 * count checked in every critical section, trylock and downgrade mixed in),
 * and the negative control: the same checker must catch busted.
 */
#include <stdio.h>

#include "common.h"
#include "torture.h"

static void torture(const char *spec, int readers, int writers, struct lab_torture_result *r)
{
	struct lab_rwsem_conf conf;
	struct lab_torture_opts o = {
		.lock = &conf,
		.readers = readers,
		.writers = writers,
		.duration_ns = (uint64_t)(400e6 * lab_test_scale()),
		.hold_loops = 20,
		.think_loops = 20,
		.trylock = true,
		.downgrade = true,
	};
	char err[512];

	cr_assert_eq(lab_rwsem_parse(spec, &conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_torture_run(&o, r), 0);
	printf("%-14s Writes: Total: %lu Max/Min: %lu/%lu Fail: %lu  Reads: Total: %lu Max/Min: %lu/%lu "
	       "Fail: %lu  downgrades %lu\n",
	       spec, r->wr_total, r->wr_max, r->wr_min, r->wr_fail, r->rd_total, r->rd_max, r->rd_min,
	       r->rd_fail, r->downgrades);
}

ParameterizedTestParameters(stress, torture)
{
	size_t n;
	struct lab_test_variant *v = lab_test_variants(LAB_CAP_EXCLUSION, LAB_CAP_NOT_IN_ALL, &n);

	return cr_make_param_array(struct lab_test_variant, v, n);
}

ParameterizedTest(struct lab_test_variant *v, stress, torture, .timeout = 120)
{
	struct lab_torture_result r;

	torture(v->name, 2, 2, &r);
	cr_expect_eq(r.wr_fail, 0, "%s: %lu write-side exclusion failures", v->name, r.wr_fail);
	cr_expect_eq(r.rd_fail, 0, "%s: %lu read-side exclusion failures", v->name, r.rd_fail);
	cr_expect_gt(r.wr_total, 0, "%s: no writer ever got the lock", v->name);
	cr_expect_gt(r.rd_total, 0, "%s: no reader ever got the lock", v->name);
}

/* The expected failure: the checker must be able to fail. */
Test(stress, busted_is_caught, .timeout = 120)
{
	struct lab_torture_result r;

	torture("busted", 2, 2, &r);
	cr_expect_gt(r.wr_fail + r.rd_fail, 0, "the torture checker did not catch busted");
}
