/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lazy-mm release-vs-switch race, shared by the Criterion stress suite
 * (tests/stress/lazy_mm_race.c), `rwlab torture -m` (harness/torture_cmd.c)
 * and the plain driver that runs it under
 * ThreadSanitizer (tests/tsan/lazy_mm_race.c; Criterion itself cannot start
 * under TSan, Snaipe/Criterion#274).
 *
 * NCPUS CPU threads switch between their user task and a kernel thread as
 * fast as they can (one switch in eight sleeps 20-50 us while lazy), moving
 * their user reference when the mm changes; the owner keeps publishing a new
 * mm, waiting for the users to leave the old one, and releasing it while CPUs
 * may still borrow it. The includer may define LAZY_CHECK(cond, fmt, ...): a
 * fatal check with a printf-style message (default: print it and abort).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "events.h"
#include "lazy_mm.h"
#include "wait.h"

#ifndef LAZY_CHECK
#define LAZY_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)
#endif

#define NCPUS 3

struct race {
	struct lab_lazy_domain *d;
	struct lab_lazy_mm *cur;		/* the process's mm */
	struct lab_lazy_mm *user[NCPUS];	/* each task's user reference */
	struct lab_start start;			/* ready, go and stop (barrier.h) */
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
	LAZY_CHECK(lab_lazy_cpu_online(r->d, cpu, user_get(r, cpu)) == 0, "CPU %d: online failed", cpu);
	lab_start_arrive(&r->start);
	while (!lab_start_must_stop(&r->start)) {
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

/* Does @spec free inside release (so no CPU may have the mm loaded when it returns)? */
static inline bool race_sync_free(const char *spec)
{
	const struct lab_lazy_mm_ops *ops;
	char name[64];
	const char *kv;

	if (lab_spec_split(spec, name, sizeof(name), &kv) || !(ops = lab_lazy_mm_lookup(name)))
		return false;
	if (!strcmp(name, "hpref"))
		return !kv || !strstr(kv, "reserved=7");
	return !(ops->flags & LAB_LAZY_MAY_DEFER);
}

/* The owner: replace the mm and release the old one, checking the slots after each release. */
static void race_owner(struct race *r, bool sync_free)
{
	uint64_t end = lab_clock_ns() + r->duration_ns;

	lab_events_reset();
	while (lab_clock_ns() < end) {
		struct lab_lazy_mm *old = r->cur, *mm = lab_lazy_mm_alloc(r->d);
		bool lazy = false;

		LAZY_CHECK(mm != NULL, "out of memory");
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
				LAZY_CHECK(false, "release of mm %p returned while CPU %d still has it loaded", (void *)old, i);
		}
	}
	lab_events_snapshot(&r->owner_events);
}

static void race_run(const char *spec, struct race *r, bool sync_free, uint64_t duration_ns)
{
	struct race_cpu cpus[NCPUS];

	struct lab_lazy_mm_conf conf;
	char err[512];

	memset(r, 0, sizeof(*r));
	lab_start_init(&r->start);
	LAZY_CHECK(lab_lazy_mm_parse(spec, &conf, err, sizeof(err)) == 0, "%s", err);
	LAZY_CHECK(lab_lazy_domain_create(&r->d, &conf, NCPUS, err, sizeof(err)) == 0, "%s", err);
	r->cur = lab_lazy_mm_alloc(r->d);
	r->duration_ns = duration_ns;
	for (int i = 0; i < NCPUS; i++) {
		cpus[i].r = r;
		cpus[i].cpu = i;
		LAZY_CHECK(pthread_create(&cpus[i].tid, NULL, race_cpu_main, &cpus[i]) == 0, "pthread_create");
	}
	lab_start_wait_ready(&r->start, NCPUS, -1);
	lab_start_release(&r->start, false);
	race_owner(r, sync_free);
	lab_start_stop(&r->start);
	for (int i = 0; i < NCPUS; i++)
		pthread_join(cpus[i].tid, NULL);
	lab_lazy_release(r->d, r->cur);
	printf("%-18s releases %4lu  lazy at release %4lu  still loaded after %4lu  shot %4lu  ipis %4lu  "
	       "deferred frees %4lu  switches %lu/%lu/%lu\n",
	       spec, r->releases, r->lazy_at_release, r->still_loaded_after_release,
	       r->owner_events.count[LAB_EV_lazy_tlb_shoot], r->owner_events.count[LAB_EV_lazy_tlb_ipi],
	       READ_ONCE(r->d->deferred_frees), r->switches[0], r->switches[1], r->switches[2]);
}


/*
 * The verdict on one run of @spec: enough releases, some of them met a lazy
 * CPU, no mm leaked, synchronous schemes never returned with the mm loaded
 * and never deferred a free, and the scheme's mechanism fired (shootdowns
 * for IPI schemes, promotions exactly for hpref:reserved=7).
 */
static void race_verify(const char *spec, struct race *r)
{
	struct lab_lazy_mm_conf conf;
	const struct lab_lazy_mm_ops *ops;
	char err[256];
	bool promoted, sync_free;
	uint64_t promotes = 0;

	LAZY_CHECK(lab_lazy_mm_parse(spec, &conf, err, sizeof(err)) == 0, "%s", err);
	ops = conf.ops;
	promoted = !strcmp(spec, "hpref:reserved=7");
	sync_free = race_sync_free(spec);
	LAZY_CHECK(r->releases > 10, "%s: only %lu releases", spec, r->releases);
	LAZY_CHECK(r->lazy_at_release > 0, "%s: no release ever met a lazy CPU: the race was not exercised", spec);
	LAZY_CHECK(READ_ONCE(r->d->allocs) == READ_ONCE(r->d->frees), "%s: %lu mms allocated, %lu freed", spec,
		   READ_ONCE(r->d->allocs), READ_ONCE(r->d->frees));
	if (sync_free) {
		LAZY_CHECK(r->still_loaded_after_release == 0, "%s: loaded after release", spec);
		LAZY_CHECK(READ_ONCE(r->d->deferred_frees) == 0, "%s: frees outside release", spec);
	}
	for (int i = 0; i < NCPUS; i++)
		promotes += r->cpu_events[i].count[LAB_EV_hpref_promote];
	if (LAB_EVENT_COUNTS) {
		/* hpref:reserved=7 holds every lazy mm by a promoted reference: no slot to shoot. */
		if ((ops->flags & LAB_LAZY_IPI) && !promoted)
			LAZY_CHECK(r->owner_events.count[LAB_EV_lazy_tlb_shoot] > 0, "%s: no CPU was ever shot down",
				   spec);
		if (promoted)
			LAZY_CHECK(r->owner_events.count[LAB_EV_lazy_tlb_shoot] == 0, "%s: shot a promoted CPU", spec);
		if (promoted)
			LAZY_CHECK(promotes > 0, "hpref:reserved=7 never promoted");
		else
			LAZY_CHECK(promotes == 0, "%s promoted", spec);
	}
}
