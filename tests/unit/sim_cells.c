/* SPDX-License-Identifier: GPL-2.0-only */
/* How many simulated cells' processes run at once within MemAvailable (sim_cell.h lab_sim_cells_fit()). */
#include <criterion/criterion.h>

#include "sim_cell.h"

#define GiB (1ul << 30)

/* The largest first, whatever the plan's order: any -j cells at once then fit. */
Test(sim_cells, fit_takes_the_largest_first)
{
	size_t f[] = { 2 * GiB, 5 * GiB, 3 * GiB, 1 * GiB };

	cr_expect_eq(lab_sim_cells_fit(f, 4, 4, GiB, 10 * GiB), 2, "5 + 3 GiB beside 1 fit 10 GiB, + 2 does not");
	cr_expect_eq(f[0], 5 * GiB, "not put in order largest first");
	cr_expect_eq(f[3], 1 * GiB);
}

Test(sim_cells, fit_is_at_most_want_and_the_cells)
{
	size_t f[] = { GiB, GiB, GiB };

	cr_expect_eq(lab_sim_cells_fit(f, 3, 2, 0, 100 * GiB), 2, "more than -j");
	cr_expect_eq(lab_sim_cells_fit(f, 3, 8, 0, 100 * GiB), 3, "more than the cells");
	cr_expect_eq(lab_sim_cells_fit(f, 3, 3, 0, 3 * GiB), 3, "an exact fit is a fit");
	cr_expect_eq(lab_sim_cells_fit(f, 3, 3, 1, 3 * GiB), 2, "the base counts");
}

Test(sim_cells, fit_none)
{
	size_t f[] = { 4 * GiB, GiB };

	cr_expect_eq(lab_sim_cells_fit(f, 2, 2, GiB, 4 * GiB), 0, "the largest does not fit beside the base");
	cr_expect_eq(lab_sim_cells_fit(f, 2, 2, 5 * GiB, 4 * GiB), 0, "a base above what is available");
	cr_expect_eq(lab_sim_cells_fit(f, 0, 2, 0, 4 * GiB), 0, "no cell");
}
