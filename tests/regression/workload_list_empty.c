/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Regression: `rwlab run -w ,` silently ran the default workload.
 *
 * lab_workload_parse_list() returned success with no workload when the list
 * held only separators (",", ",,"): strtok_r() found no token, so nothing
 * was parsed and nothing was reported, and `run` then fell back to its
 * default, locktest. The lock list already refused this. Found by the
 * workloadspec fuzz target (input ","). Fixed: an empty list is an error,
 * and so is any empty entry ("locktest,").
 */
#include <criterion/criterion.h>

#include "workload.h"

Test(regression, workload_list_empty)
{
	static const char *bad[] = { ",", ",,", ",,,," };
	struct lab_workload_conf confs[4];
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int n = 0;

		err[0] = 0;
		cr_expect_eq(lab_workload_parse_list(bad[i], confs, 4, &n, err, sizeof(err)), -1,
			     "'%s' parsed as %d workloads", bad[i], n);
		cr_expect_eq(n, 0);
		cr_expect(strstr(err, "empty entry in workload list") != NULL, "'%s': %s", bad[i], err);
	}
	/* An empty entry beside real ones is refused too, as for -l and -t. */
	{
		static const char *edge[] = { ",locktest", "locktest,", "locktest,,pft" };

		for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
			int n = 0;

			cr_expect_eq(lab_workload_parse_list(edge[i], confs, 4, &n, err, sizeof(err)), -1,
				     "'%s' accepted", edge[i]);
			cr_expect(strstr(err, "empty entry") != NULL, "'%s': %s", edge[i], err);
		}
	}
}
