/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lazy-mm schemes, deterministically, through the registry:
 * - the registry and -m parser (all excludes none; knobs; the --unsafe gate);
 * - release of an mm no CPU uses frees it inside release;
 * - release of an mm a CPU borrows lazily: each scheme's documented outcome
 *   (shot down by IPI, or left to the last lazy drop), and in
 *   every case the mm is not freed while the CPU still has it loaded;
 * - hpref's emergency slot promotes to mm_count;
 * - freed mms are poisoned, and a use after free aborts (ASan reports it in
 *   an ASan build: both abort, see lazy_common.h);
 * - the TLB flush reaches every CPU that has the mm, lazy ones included;
 * - an IPI to an offline slot runs on the sender.
 *
 * Sanitizer builds (see also tests/meson.build):
 *   meson setup build-asan -Db_sanitize=address,undefined -Dallocator=system
 *   meson test -C build-asan --suite unit --suite stress
 * In the ASan build a freed mm goes back to the allocator at once and the
 * use-after-free death tests die of AddressSanitizer's report (abort_on_error,
 * lazy_common.h) instead of the canary; freed_mm_is_poisoned is skipped there.
 */
#include <signal.h>

#include "lazy_common.h"


/* ---- registry ------------------------------------------------------------------- */

Test(lazy_mm, registry_complete)
{
	int n = 0;

	for (; lab_lazy_mm_schemes[n]; n++) {
		const struct lab_lazy_mm_ops *ops = lab_lazy_mm_schemes[n];

		cr_expect(ops->name && ops->summary && ops->cite && *ops->cite, "scheme %d lacks name/summary/cite", n);
		cr_expect(ops->init && ops->grab && ops->drop && ops->release, "%s lacks a verb", ops->name);
		cr_expect_eq(lab_lazy_mm_lookup(ops->name), ops, "%s: lookup", ops->name);
		cr_expect_eq(!!(ops->flags & LAB_LAZY_UNSAFE), !!(ops->flags & LAB_LAZY_NOT_IN_ALL),
			     "%s: unsafe schemes must stay out of all", ops->name);
	}
	cr_expect_eq(n, 6, "the issue asks for six schemes, found %d", n);
}

Test(lazy_mm, parse_all_excludes_none)
{
	struct lab_lazy_mm_conf c[16];
	char err[512];
	int n = 0;

	cr_assert_eq(lab_lazy_mm_parse_list("all", c, 16, &n, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(n, 5);
	for (int i = 0; i < n; i++)
		cr_expect_str_neq(c[i].label, "none");
	n = 0;
	cr_assert_eq(lab_lazy_mm_parse_list("refcount,hpref:reserved=7,none", c, 16, &n, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(n, 3);
	cr_expect_str_eq(c[1].label, "hpref:reserved=7");
	cr_expect_eq(c[1].knob[0], 7);
	cr_expect_str_eq(c[2].label, "none");
	n = 0;
	cr_expect_neq(lab_lazy_mm_parse_list("hpref:reserved=8", c, 16, &n, err, sizeof(err)), 0);
	cr_expect_neq(lab_lazy_mm_parse_list("rcu", c, 16, &n, err, sizeof(err)), 0);
	cr_expect(strstr(err, "hazptr") != NULL, "error does not list the schemes: %s", err);
}

Test(lazy_mm, unsafe_gate)
{
	struct lab_lazy_mm_conf none, hz;
	char err[512];

	cr_assert_eq(lab_lazy_mm_parse("none", &none, err, sizeof(err)), 0);
	cr_assert_eq(lab_lazy_mm_parse("hazptr", &hz, err, sizeof(err)), 0);
	cr_expect_neq(lab_lazy_mm_allowed(&none, true, false, err, sizeof(err)), 0, "none accepted under release load");
	cr_expect(strstr(err, "--unsafe") != NULL, "%s", err);
	cr_expect_eq(lab_lazy_mm_allowed(&none, true, true, err, sizeof(err)), 0);
	cr_expect_eq(lab_lazy_mm_allowed(&none, false, false, err, sizeof(err)), 0, "none refused as a floor");
	cr_expect_eq(lab_lazy_mm_allowed(&hz, true, false, err, sizeof(err)), 0);
}

/* ---- release without lazy users -------------------------------------------------------- */

ParameterizedTestParameters(lazy_mm, release_unused_frees)
{
	size_t n;
	struct lab_test_scheme *v = lab_test_schemes(true, NULL, &n);

	return cr_make_param_array(struct lab_test_scheme, v, n);
}

ParameterizedTest(struct lab_test_scheme *s, lazy_mm, release_unused_frees, .timeout = 30)
{
	struct lab_lazy_domain *d = lab_test_domain(s->spec, 2);
	struct lab_lazy_mm *mm = lab_lazy_mm_alloc(d);
	struct lab_test_cpu c;

	cr_assert_not_null(mm);
	/* A CPU that ran the mm and went back to user mode on it several times holds nothing. */
	lab_test_cpu_start(&c, d, 1, mm);
	c.next = mm;
	for (int i = 0; i < 3; i++) {
		lab_test_cpu_do(&c, CPU_TO_KTHREAD);
		lab_test_cpu_do(&c, CPU_TO_USER);
	}
	lab_test_cpu_stop(&c);
	lab_lazy_release(d, mm);
	cr_expect_eq(READ_ONCE(d->frees), 1, "%s: an unused mm was not freed by release", s->spec);
	cr_expect_eq(READ_ONCE(d->deferred_frees), 0, "%s", s->spec);
	lab_lazy_domain_destroy(d);
}

/* ---- release while a CPU borrows the mm ---------------------------------------------------- */

enum outcome { SHOOTS, DEFERS };

static enum outcome expected_outcome(const char *spec)
{
	if (!strcmp(spec, "shootdown") || !strcmp(spec, "hazptr") || !strcmp(spec, "hpref"))
		return SHOOTS;		/* release IPIs the lazy CPU to init_mm, then frees */
	return DEFERS;			/* refcount, percpu-ref, hpref:reserved=7: the last drop frees */
}

struct releaser {
	pthread_t tid;
	struct lab_lazy_domain *d;
	struct lab_lazy_mm *mm;
	uint32_t returned;
	struct lab_lazy_mm *active_at_return;	/* what CPU 0 had loaded when release returned */
	uint64_t frees_at_return;
	struct lab_events events;
};

/* @e counts no lock event outside scheme @spec's events list: `rwlab run` writes no row for one. */
static void expect_declared(const char *spec, const struct lab_events *e)
{
	struct lab_event_set set;

	cr_assert_eq(lab_event_set_of_label(spec, &set), 0, "%s: not a scheme's label", spec);
	for (int i = 0; i < LAB_EV_NR; i++)
		cr_expect(set.has[i] || !e->count[i], "%s counted %s %lu times, which its ops' events leave out",
			  spec, lab_event_names[i], (unsigned long)e->count[i]);
}

static void *releaser_main(void *arg)
{
	struct releaser *r = arg;

	lab_events_reset();
	lab_lazy_release(r->d, r->mm);
	r->active_at_return = lab_lazy_cpu_active_mm(r->d, 0);
	r->frees_at_return = READ_ONCE(r->d->frees);
	lab_events_snapshot(&r->events);
	__atomic_store_n(&r->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool releaser_wait(struct releaser *r, int ms)
{
	for (int i = 0; i < ms; i++) {
		if (__atomic_load_n(&r->returned, __ATOMIC_ACQUIRE))
			return true;
		lab_sleep_ns(1000000);
	}
	return __atomic_load_n(&r->returned, __ATOMIC_ACQUIRE);
}

ParameterizedTestParameters(lazy_mm, release_lazy_user)
{
	static const char *const extra[] = { "hpref:reserved=7", NULL };
	size_t n;
	struct lab_test_scheme *v = lab_test_schemes(false, extra, &n);

	return cr_make_param_array(struct lab_test_scheme, v, n);
}

ParameterizedTest(struct lab_test_scheme *s, lazy_mm, release_lazy_user, .timeout = 30)
{
	struct lab_lazy_domain *d = lab_test_domain(s->spec, 1);
	struct lab_lazy_mm *a = lab_lazy_mm_alloc(d), *b = lab_lazy_mm_alloc(d);
	enum outcome want = expected_outcome(s->spec);
	struct releaser r = { .d = d, .mm = a };
	struct lab_test_cpu c;

	/* CPU 0 runs a task of a, switches to a kernel thread (borrows a), the task moves to b. */
	lab_test_cpu_start(&c, d, 0, a);
	lab_test_cpu_do(&c, CPU_TO_KTHREAD);
	cr_assert_eq(lab_lazy_cpu_active_mm(d, 0), a);
	c.next = b;
	/* a has no user left: the owner releases it while CPU 0 still borrows it. */
	cr_assert_eq(pthread_create(&r.tid, NULL, releaser_main, &r), 0);

	if (want == SHOOTS) {
		cr_assert(releaser_wait(&r, 10000), "%s: release did not return", s->spec);
		cr_expect_eq(r.active_at_return, d->init_mm, "%s: the lazy CPU was not switched to init_mm", s->spec);
		cr_expect_eq(r.frees_at_return, 1, "%s: release returned without freeing", s->spec);
		if (LAB_EVENT_COUNTS) {
			cr_expect_eq(r.events.count[LAB_EV_lazy_tlb_ipi], 1, "%s: IPIs sent", s->spec);
			cr_expect_eq(r.events.count[LAB_EV_lazy_tlb_shoot], 1, "%s: CPUs shot down", s->spec);
		}
		lab_test_cpu_do(&c, CPU_TO_USER);	/* from init_mm: nothing to drop */
		cr_expect_eq(READ_ONCE(d->frees), 1);
	} else {
		cr_assert(releaser_wait(&r, 10000), "%s: release did not return", s->spec);
		cr_expect_eq(r.frees_at_return, 0, "%s: release freed an mm CPU 0 still borrows", s->spec);
		cr_expect_eq(r.active_at_return, a, "%s: the lazy CPU was disturbed", s->spec);
		lab_lazy_mm_check(a, "test: still borrowed");
		lab_test_cpu_do(&c, CPU_TO_USER);	/* the last lazy reference: this drop frees */
		cr_expect_eq(READ_ONCE(d->frees), 1, "%s: the last lazy drop did not free", s->spec);
		cr_expect_eq(READ_ONCE(d->deferred_frees), 1, "%s", s->spec);
	}
	pthread_join(r.tid, NULL);
	lab_test_cpu_stop(&c);
	if (LAB_EVENT_COUNTS && !strcmp(s->spec, "percpu-ref"))
		cr_expect_eq(r.events.count[LAB_EV_percpu_ref_atomic], 1, "percpu-ref: no switch to atomic mode");
	if (LAB_EVENT_COUNTS && want == DEFERS)
		cr_expect_eq(c.events.count[LAB_EV_lazy_tlb_defer_free], 1, "%s: deferred free not counted", s->spec);
	expect_declared(s->spec, &r.events);
	expect_declared(s->spec, &c.events);
	lab_lazy_release(d, b);
	cr_expect_eq(READ_ONCE(d->allocs), READ_ONCE(d->frees), "%s: leaked an mm", s->spec);
	lab_lazy_domain_destroy(d);
}

/* ---- hpref promotion --------------------------------------------------------------------- */

Test(lazy_mm, hpref_emergency_slot_promotes, .timeout = 30)
{
	struct lab_lazy_domain *d = lab_test_domain("hpref:reserved=7", 1);
	struct lab_lazy_domain *d0 = lab_test_domain("hpref", 1);
	struct lab_lazy_mm *a = lab_lazy_mm_alloc(d), *a0 = lab_lazy_mm_alloc(d0);
	struct lab_test_cpu c, c0;

	lab_test_cpu_start(&c, d, 0, a);
	lab_test_cpu_start(&c0, d0, 0, a0);
	lab_test_cpu_do(&c, CPU_TO_KTHREAD);
	lab_test_cpu_do(&c0, CPU_TO_KTHREAD);
	cr_expect_eq(READ_ONCE(a->mm_count), 2, "reserved=7: the lazy grab did not take a reference");
	cr_expect_eq(READ_ONCE(a0->mm_count), 1, "reserved=0: a hazard pointer must not touch mm_count");
	c.next = a;
	c0.next = a0;
	lab_test_cpu_do(&c, CPU_TO_USER);
	lab_test_cpu_do(&c0, CPU_TO_USER);
	cr_expect_eq(READ_ONCE(a->mm_count), 1, "the promoted reference was not dropped");
	lab_test_cpu_stop(&c);
	lab_test_cpu_stop(&c0);
	if (LAB_EVENT_COUNTS) {
		cr_expect_eq(c.events.count[LAB_EV_hpref_promote], 1);
		cr_expect_eq(c0.events.count[LAB_EV_hpref_promote], 0);
	}
	lab_lazy_release(d, a);
	lab_lazy_release(d0, a0);
	cr_expect_eq(READ_ONCE(d->frees), 1);
	cr_expect_eq(READ_ONCE(d0->frees), 1);
	lab_lazy_domain_destroy(d);
	lab_lazy_domain_destroy(d0);
}

/* ---- poison and use after free ------------------------------------------------------------ */

#if defined(__SANITIZE_ADDRESS__)
#define ASAN_BUILD 1
#else
#define ASAN_BUILD 0
#endif

Test(lazy_mm, freed_mm_is_poisoned)
{
	struct lab_lazy_domain *d = lab_test_domain("refcount", 1);
	struct lab_lazy_mm *mm = lab_lazy_mm_alloc(d);
	size_t size = d->mm_size, bad = 0;
	const unsigned char *p = (const unsigned char *)mm;

	if (ASAN_BUILD) {
		lab_lazy_release(d, mm);
		lab_lazy_domain_destroy(d);
		cr_skip_test("ASan build: freed memory is ASan's, the use-after-free test covers it");
	}
	lab_lazy_release(d, mm);
	/* The quarantine keeps the memory mapped: every byte must be POISON_FREE. */
	for (size_t i = 0; i < size; i++)
		bad += __atomic_load_n(&p[i], __ATOMIC_RELAXED) != LAB_LAZY_POISON_FREE;
	cr_expect_eq(bad, 0, "%zu of %zu bytes of a freed mm are not 0x6b", bad, size);
	lab_lazy_domain_destroy(d);
}

/* A use of a freed mm aborts: the canary check (normal build) or AddressSanitizer. */
Test(lazy_mm, use_after_free_aborts, .signal = SIGABRT)
{
	struct lab_lazy_domain *d = lab_test_domain("refcount", 1);
	struct lab_lazy_mm *mm = lab_lazy_mm_alloc(d);

	lab_lazy_release(d, mm);
	lab_lazy_mm_check(mm, "test: use after free");
}

/* none frees at once: the borrowing CPU's switch back to user mode uses freed memory and aborts. */
Test(lazy_mm, none_lazy_user_aborts, .signal = SIGABRT)
{
	struct lab_lazy_domain *d = lab_test_domain("none", 1);
	struct lab_lazy_mm *a = lab_lazy_mm_alloc(d), *b = lab_lazy_mm_alloc(d);

	cr_assert_eq(lab_lazy_cpu_online(d, 0, a), 0);
	lab_lazy_switch_to_kthread(d, 0);
	lab_lazy_release(d, a);
	lab_lazy_switch_to_user(d, 0, b);
}

/* ---- TLB flush ------------------------------------------------------------------------------ */

ParameterizedTestParameters(lazy_mm, flush_reaches_every_cpu)
{
	size_t n;
	struct lab_test_scheme *v = lab_test_schemes(true, NULL, &n);

	return cr_make_param_array(struct lab_test_scheme, v, n);
}

ParameterizedTest(struct lab_test_scheme *s, lazy_mm, flush_reaches_every_cpu, .timeout = 30)
{
	struct lab_lazy_domain *d = lab_test_domain(s->spec, 4);
	struct lab_lazy_mm *mm = lab_lazy_mm_alloc(d), *other = lab_lazy_mm_alloc(d);
	struct lab_test_cpu c[3];
	int ipis;

	/* CPUs 1 and 2 run mm (2 lazily), CPU 3 runs another mm; the test thread is CPU 0. */
	cr_assert_eq(lab_lazy_cpu_online(d, 0, mm), 0);
	lab_test_cpu_start(&c[0], d, 1, mm);
	lab_test_cpu_start(&c[1], d, 2, mm);
	lab_test_cpu_start(&c[2], d, 3, other);
	lab_test_cpu_do(&c[1], CPU_TO_KTHREAD);
	lab_events_reset();
	ipis = lab_lazy_flush_mm(d, 0, mm);
	cr_expect_eq(ipis, 2, "%s: %d IPIs, want CPUs 1 and 2", s->spec, ipis);
	if (LAB_EVENT_COUNTS)
		cr_expect_eq(lab_events_tls.count[LAB_EV_lazy_tlb_ipi], 2);
	for (int cpu = 0; cpu < 3; cpu++)
		cr_expect_eq(READ_ONCE(d->cpu[cpu].tlb_gen), READ_ONCE(mm->tlb_gen), "%s: CPU %d missed the flush",
			     s->spec, cpu);
	cr_expect_neq(READ_ONCE(d->cpu[3].tlb_gen), READ_ONCE(mm->tlb_gen), "%s: CPU 3 runs another mm", s->spec);
	c[1].next = mm;
	lab_test_cpu_do(&c[1], CPU_TO_USER);
	for (int i = 0; i < 3; i++)
		lab_test_cpu_stop(&c[i]);
	lab_lazy_cpu_offline(d, 0);
	lab_lazy_release(d, mm);
	lab_lazy_release(d, other);
	lab_lazy_domain_destroy(d);
}

/* ---- IPI plumbing ---------------------------------------------------------------------------- */

static int record_thread(struct lab_lazy_domain *d, int cpu, void *arg)
{
	(void)d;
	(void)cpu;
	*(pthread_t *)arg = pthread_self();
	return 7;
}

Test(lazy_mm, ipi_runs_on_the_target_or_sender)
{
	struct lab_lazy_domain *d = lab_test_domain("refcount", 2);
	struct lab_lazy_mm *mm = lab_lazy_mm_alloc(d);
	struct lab_test_cpu c;
	pthread_t ran = pthread_self();

	/* CPU 1 offline: the handler runs on the sender. */
	cr_expect_eq(lab_lazy_ipi(d, 1, record_thread, &ran), 7);
	cr_expect(pthread_equal(ran, pthread_self()), "offline CPU: the handler did not run on the sender");
	/* CPU 1 online: the handler runs in its interrupt thread, neither the sender nor the CPU's thread. */
	lab_test_cpu_start(&c, d, 1, mm);
	cr_expect_eq(lab_lazy_ipi(d, 1, record_thread, &ran), 7);
	cr_expect_not(pthread_equal(ran, pthread_self()), "online CPU: the handler ran on the sender");
	cr_expect_not(pthread_equal(ran, c.tid), "online CPU: the handler ran on the CPU's own thread");
	lab_test_cpu_stop(&c);
	lab_lazy_release(d, mm);
	lab_lazy_domain_destroy(d);
}
