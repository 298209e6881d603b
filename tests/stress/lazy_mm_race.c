/* SPDX-License-Identifier: MIT */
/*
 * Lazy-mm schemes under load: CPU threads switch between their user task and
 * a kernel thread as fast as they can (sometimes sleeping while lazy), while
 * an owner thread keeps replacing the mm they run and releasing the old one.
 *
 * What is checked:
 * - no use after free: every grab and every switch away from a borrowed mm
 *   checks the mm's canary, and freed mms are poisoned (ASan in ASan builds);
 *   any hit aborts the test;
 * - release never returns while a CPU slot still has the mm loaded, for the
 *   schemes that free inside release (shootdown, hazptr, hpref without
 *   promotion); for the others the mm stays alive until the last lazy drop;
 * - every released mm is freed in the end (allocs == frees), and the
 *   mechanisms fired (releases happened; IPI schemes shot CPUs down;
 *   hpref:reserved=7 promoted; counting schemes deferred frees);
 * - the negative control: none under the same load is caught (SIGABRT).
 */
#include <signal.h>

#include "lazy_common.h"

#define NCPUS 3

struct race {
	struct lab_lazy_domain *d;
	struct lab_lazy_mm *cur;		/* the process's mm */
	struct lab_lazy_mm *user[NCPUS];	/* each task's user reference */
	uint32_t stop, ready;
	uint64_t duration_ns;
	/* results */
	uint64_t releases, still_loaded_after_release, lazy_at_release;
	uint64_t switches[NCPUS];
	struct lab_events owner_events, cpu_events[NCPUS];
};

struct race_cpu {
	struct race *r;
	int cpu;
	pthread_t tid;
};

/* The task's user reference to the current mm (the context_switch handshake). */
static struct lab_lazy_mm *user_get(struct race *r, int cpu)
{
	struct lab_lazy_mm *m = smp_load_acquire(&r->cur);

	for (;;) {
		struct lab_lazy_mm *again;

		smp_store_release(&r->user[cpu], m);
		smp_mb();
		again = smp_load_acquire(&r->cur);
		if (again == m)
			return m;
		m = again;
	}
}

static void *race_cpu_main(void *arg)
{
	struct race_cpu *rc = arg;
	struct race *r = rc->r;
	int cpu = rc->cpu;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(cpu + 1), n = 0;

	lab_events_reset();
	cr_assert_eq(lab_lazy_cpu_online(r->d, cpu, user_get(r, cpu)), 0);
	__atomic_fetch_add(&r->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		lab_lazy_switch_to_kthread(r->d, cpu);
		if (READ_ONCE(r->cur) != r->user[cpu])
			user_get(r, cpu);	/* leave the old mm while this CPU still borrows it */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if ((x & 7) == 0)
			lab_sleep_ns(20000 + (x >> 40) % 30000);	/* idle for a while, lazily */
		else
			lab_delay((x >> 32) % 200);
		lab_lazy_switch_to_user(r->d, cpu, r->user[cpu]);
		n++;
	}
	lab_lazy_cpu_offline(r->d, cpu);
	smp_store_release(&r->user[cpu], NULL);
	r->switches[cpu] = n;
	lab_events_snapshot(&r->cpu_events[cpu]);
	return NULL;
}

/* The owner: replace the mm and release the old one, checking the slots after each release. */
static void race_owner(struct race *r, bool sync_free)
{
	uint64_t end = lab_clock_ns() + r->duration_ns;

	lab_events_reset();
	while (lab_clock_ns() < end) {
		struct lab_lazy_mm *old = r->cur, *mm = lab_lazy_mm_alloc(r->d);
		bool lazy = false;

		cr_assert_not_null(mm);
		smp_store_release(&r->cur, mm);
		smp_mb();
		for (int i = 0; i < NCPUS; i++)
			while (smp_load_acquire(&r->user[i]) == old)
				lab_sleep_ns(5000);
		for (int i = 0; i < NCPUS; i++)
			lazy |= lab_lazy_cpu_active_mm(r->d, i) == old;
		r->lazy_at_release += lazy;
		lab_lazy_release(r->d, old);
		r->releases++;
		/* No CPU may load old again (no user left): anything still loaded now was there at return. */
		for (int i = 0; i < NCPUS; i++) {
			if (lab_lazy_cpu_active_mm(r->d, i) != old)
				continue;
			r->still_loaded_after_release++;
			if (sync_free)
				cr_assert_fail("release of mm %p returned while CPU %d still has it loaded", (void *)old, i);
		}
	}
	lab_events_snapshot(&r->owner_events);
}

static void race_run(const char *spec, struct race *r, bool sync_free, uint64_t duration_ns)
{
	struct race_cpu cpus[NCPUS];

	memset(r, 0, sizeof(*r));
	r->d = lab_test_domain(spec, NCPUS);
	r->cur = lab_lazy_mm_alloc(r->d);
	r->duration_ns = duration_ns;
	for (int i = 0; i < NCPUS; i++) {
		cpus[i].r = r;
		cpus[i].cpu = i;
		cr_assert_eq(pthread_create(&cpus[i].tid, NULL, race_cpu_main, &cpus[i]), 0);
	}
	while (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) < NCPUS)
		lab_sleep_ns(100000);
	race_owner(r, sync_free);
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NCPUS; i++)
		pthread_join(cpus[i].tid, NULL);
	lab_lazy_release(r->d, r->cur);
	printf("%-18s releases %4lu  lazy at release %4lu  still loaded after %4lu  shot %4lu  ipis %4lu  "
	       "deferred frees %4lu  switches %lu/%lu/%lu\n",
	       spec, r->releases, r->lazy_at_release, r->still_loaded_after_release,
	       r->owner_events.count[LAB_EV_lazy_tlb_shoot], r->owner_events.count[LAB_EV_lazy_tlb_ipi],
	       READ_ONCE(r->d->deferred_frees), r->switches[0], r->switches[1], r->switches[2]);
}

ParameterizedTestParameters(lazy_mm_stress, release_races_switches)
{
	static const char *const extra[] = { "hpref:reserved=7", NULL };
	size_t n;
	struct lab_test_scheme *v = lab_test_schemes(false, extra, &n);

	return cr_make_param_array(struct lab_test_scheme, v, n);
}

ParameterizedTest(struct lab_test_scheme *s, lazy_mm_stress, release_races_switches, .timeout = 120)
{
	const struct lab_lazy_mm_ops *ops;
	struct lab_lazy_mm_conf conf;
	struct race r;
	char err[256];
	bool promoted, sync_free;
	uint64_t promotes = 0;

	cr_assert_eq(lab_lazy_mm_parse(s->spec, &conf, err, sizeof(err)), 0, "%s", err);
	ops = conf.ops;
	promoted = !strcmp(s->spec, "hpref:reserved=7");
	sync_free = !(ops->flags & LAB_LAZY_MAY_DEFER) || (!strcmp(ops->name, "hpref") && !promoted);
	race_run(s->spec, &r, sync_free, (uint64_t)(300e6 * lab_test_scale_lazy()));
	cr_expect_gt(r.releases, 10, "%s: only %lu releases", s->spec, r.releases);
	cr_expect_gt(r.lazy_at_release, 0, "%s: no release ever met a lazy CPU: the race was not exercised", s->spec);
	cr_expect_eq(READ_ONCE(r.d->allocs), READ_ONCE(r.d->frees), "%s: %lu mms allocated, %lu freed", s->spec,
		     READ_ONCE(r.d->allocs), READ_ONCE(r.d->frees));
	if (sync_free) {
		cr_expect_eq(r.still_loaded_after_release, 0);
		cr_expect_eq(READ_ONCE(r.d->deferred_frees), 0, "%s: frees outside release", s->spec);
	}
	for (int i = 0; i < NCPUS; i++)
		promotes += r.cpu_events[i].count[LAB_EV_hpref_promote];
	if (LAB_EVENT_COUNTS) {
		if (ops->flags & LAB_LAZY_IPI)
			cr_expect_gt(r.owner_events.count[LAB_EV_lazy_tlb_shoot], 0, "%s: no CPU was ever shot down",
				     s->spec);
		if (promoted)
			cr_expect_gt(promotes, 0, "hpref:reserved=7 never promoted");
		else
			cr_expect_eq(promotes, 0, "%s promoted", s->spec);
	}
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
