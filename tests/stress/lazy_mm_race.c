/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lazy-mm schemes under load (the race in harness/lazy_race.h): CPU threads
 * switch between their user task and a kernel thread as fast as they can
 * (sometimes sleeping while lazy), while an owner thread keeps replacing the
 * mm they run and releasing the old one.
 *
 * What is checked:
 * - no use after free: every grab and every switch away from a borrowed mm
 *   checks the mm's canary, and freed mms are poisoned (ASan in ASan builds);
 *   any hit aborts the test;
 * - release never returns while a CPU slot still has the mm loaded, for the
 *   schemes that free inside release (shootdown, hazptr, hpref without
 *   promotion); for the others the mm stays alive until the last lazy drop;
 * - every released mm is freed in the end (allocs == frees), and the
 *   mechanisms fired (releases met lazy CPUs; IPI schemes shot CPUs down;
 *   hpref:reserved=7 promoted);
 * - the negative control: none under the same load is caught (SIGABRT).
 */
#include <signal.h>

#include "lazy_common.h"

#define LAZY_CHECK(cond, ...) cr_assert(cond, __VA_ARGS__)
#include "lazy_race.h"

ParameterizedTestParameters(lazy_mm_stress, release_races_switches)
{
	static const char *const extra[] = { "hpref:reserved=7", NULL };
	size_t n;
	struct lab_test_scheme *v = lab_test_schemes(false, extra, &n);

	return cr_make_param_array(struct lab_test_scheme, v, n);
}

ParameterizedTest(struct lab_test_scheme *s, lazy_mm_stress, release_races_switches, .timeout = 120)
{
	struct race r;

	race_run(s->spec, &r, race_sync_free(s->spec), (uint64_t)(300e6 * lab_test_scale_lazy()));
	race_verify(s->spec, &r);
	lab_lazy_domain_destroy(r.d);
}

/* The negative control: without tracking, the same load must be caught using a freed mm. */
Test(lazy_mm_stress, none_is_caught, .signal = SIGABRT, .timeout = 120)
{
	struct race r;

	/* Normally caught within milliseconds; 10 s of survival means the checks do not work. */
	race_run("none", &r, false, 10000000000ull);
	cr_assert_fail("none survived %lu releases with %lu lazy CPUs at release", r.releases, r.lazy_at_release);
}
