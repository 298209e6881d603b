/* SPDX-License-Identifier: GPL-2.0-only */
/* Latency histogram buckets and quantiles against hand-computed values. */
#include <criterion/criterion.h>

#include "latency.h"

Test(latency, bucket_edges)
{
	cr_expect_eq(lab_hist_index(0), 0);
	cr_expect_eq(lab_hist_index(15), 15);
	cr_expect_eq(lab_hist_index(16), 16);	/* 16..17 */
	cr_expect_eq(lab_hist_index(17), 16);
	cr_expect_eq(lab_hist_index(18), 17);
	cr_expect_eq(lab_hist_index(31), 23);
	cr_expect_eq(lab_hist_index(32), 24);	/* 32..35 */
	cr_expect_eq(lab_hist_index(50), 28);	/* 48..51 */
}

Test(latency, quantiles)
{
	struct lab_hist h;

	lab_hist_reset(&h);
	cr_expect_eq(lab_hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 100; v++)
		lab_hist_add(&h, v);
	cr_expect_eq(h.count, 100);
	cr_expect_eq(h.max, 100);
	/* The 50th value is 50, in bucket 48..51: reported as 51. */
	cr_expect_eq(lab_hist_quantile(&h, 0.50), 51);
	/* The 99th value is 99, in bucket 96..103: capped at the exact max, 100. */
	cr_expect_eq(lab_hist_quantile(&h, 0.99), 100);
	cr_expect_eq(lab_hist_quantile(&h, 0.01), 1);
}

Test(latency, merge)
{
	struct lab_hist a, b;

	lab_hist_reset(&a);
	lab_hist_reset(&b);
	lab_hist_add(&a, 5);
	lab_hist_add(&b, 1000000);
	lab_hist_merge(&a, &b);
	cr_expect_eq(a.count, 2);
	cr_expect_eq(a.max, 1000000);
	cr_expect_eq(lab_hist_quantile(&a, 0.5), 5);
}
