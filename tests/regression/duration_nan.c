/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Regression: `rwlab run -d nan` ran for ~292 years.
 *
 * lab_parse_duration() used strtod(), which also accepts "nan", "inf",
 * "infinity" and hex floats. "nan" passed the `v < 0` and `v > 1e15`
 * checks (every comparison with NaN is false) and the cast of NaN to
 * unsigned long long is undefined; on x86 it gave 2^63 ns. Found by hand
 * while checking the README's bad-input table, and by the duration fuzzer
 * (UBSan: float-cast-overflow). Fixed: decimal input only, finite values.
 */
#include <criterion/criterion.h>

#include "threads.h"

Test(regression, duration_nan)
{
	static const char *bad[] = { "nan", "NaN", "nans", "inf", "infinity", "-inf", "0x10", "0x1p3s",
				     "1e400", "+1", " 1", ".", "e3", "1e", "1.5.2s" };
	unsigned long long ns = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(lab_parse_duration(bad[i], &ns), -1, "'%s' was accepted as %llu ns", bad[i], ns);
		ns = 7;
	}
	/* What stays valid. */
	cr_assert_eq(lab_parse_duration(".5s", &ns), 0);
	cr_expect_eq(ns, 500000000ull);
	cr_assert_eq(lab_parse_duration("1e-3s", &ns), 0);
	cr_expect_eq(ns, 1000000ull);
	cr_assert_eq(lab_parse_duration("2e3ms", &ns), 0);
	cr_expect_eq(ns, 2000000000ull);
	cr_assert_eq(lab_parse_duration("0", &ns), 0);
	cr_expect_eq(ns, 0ull);
}
