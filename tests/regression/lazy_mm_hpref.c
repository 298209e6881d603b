/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Regression: hpref's final release must not wait on a CPU
 * that sits idle with the mm loaded lazily. Before the fix, release
 * busy-waited on the CPU's hazard slot until the CPU switched back to a user
 * task: with the CPU idling IDLE_MS, the release took IDLE_MS of wall and CPU
 * time. Now release IPIs the holder (hpref_shoot), which switches it to
 * init_mm, and frees at once.
 *
 * The test prints the measured release latency (the figure quoted in
 * results/kernel/README-kernel-b.md): `build/regression_lazy_mm_hpref --verbose`.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <pthread.h>

#include "lazy_common.h"

#define IDLE_MS 30	/* how long the lazy CPU idles before its next user task (the 30 ms) */

struct rel {
	struct lab_lazy_domain *d;
	struct lab_lazy_mm *mm;
	uint64_t start_ns, end_ns;
	uint32_t returned;
};

static void *rel_main(void *arg)
{
	struct rel *r = arg;

	r->start_ns = lab_clock_ns();
	lab_lazy_release(r->d, r->mm);
	r->end_ns = lab_clock_ns();
	__atomic_store_n(&r->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

Test(lazy_mm_hpref, release_does_not_wait_for_idle_lazy_cpu, .timeout = 30)
{
	struct lab_lazy_domain *d = lab_test_domain("hpref", 1);
	struct lab_lazy_mm *a = lab_lazy_mm_alloc(d), *b = lab_lazy_mm_alloc(d);
	struct rel r = { .d = d, .mm = a };
	struct lab_test_cpu c;
	pthread_t tid;
	double us;

	lab_test_cpu_start(&c, d, 0, a);
	lab_test_cpu_do(&c, CPU_TO_KTHREAD);	/* CPU 0 idles, borrowing a */
	c.next = b;
	cr_assert_eq(pthread_create(&tid, NULL, rel_main, &r), 0);
	/* The CPU idles IDLE_MS, then runs a task of b. */
	lab_sleep_ns((uint64_t)IDLE_MS * 1000000);
	lab_test_cpu_do(&c, CPU_TO_USER);
	pthread_join(tid, NULL);
	us = (double)(r.end_ns - r.start_ns) / 1e3;
	cr_log_info("hpref release latency with CPU 0 idling lazily on the mm for %d ms: %.1f us\n",
		    IDLE_MS, us);
	fprintf(stderr, "hpref release latency (CPU idles lazily %d ms): %.1f us\n", IDLE_MS, us);
	/* Half the idle time: a release that waited for the switch takes all of it. */
	cr_expect_lt(us, IDLE_MS * 1000.0 / 2, "release waited %.1f us for the idle lazy CPU", us);
	cr_expect_eq(READ_ONCE(d->frees), 1, "release did not free the mm");
	cr_expect_eq(READ_ONCE(d->deferred_frees), 0);
	lab_test_cpu_stop(&c);
	lab_lazy_release(d, b);
	lab_lazy_domain_destroy(d);
}
