/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers for the lazy-mm suites: scheme lists for parameterised tests, a
 * domain constructor, and a "CPU" thread that can be told, step by step, to
 * come online, switch to a kernel thread, switch back and go offline.
 */
#pragma once

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "lazy_mm.h"
#include "wait.h"

/* Make AddressSanitizer abort (SIGABRT) on a report, so death tests see the same signal in every build. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "abort_on_error=1";
}

struct lab_test_scheme {
	char spec[64];
};

/* Every registered scheme (with @with_unsafe, none too), plus extra specs. */
static inline struct lab_test_scheme *lab_test_schemes(bool with_unsafe, const char *const *extra, size_t *n)
{
	size_t cnt = 0, k = 0, ne = 0;
	struct lab_test_scheme *v;

	while (lab_lazy_mm_schemes[cnt])
		cnt++;
	while (extra && extra[ne])
		ne++;
	v = cr_malloc(sizeof(*v) * (cnt + ne + 1));
	for (size_t i = 0; i < cnt; i++) {
		if (!with_unsafe && (lab_lazy_mm_schemes[i]->flags & LAB_LAZY_UNSAFE))
			continue;
		snprintf(v[k++].spec, sizeof(v->spec), "%s", lab_lazy_mm_schemes[i]->name);
	}
	for (size_t i = 0; i < ne; i++)
		snprintf(v[k++].spec, sizeof(v->spec), "%s", extra[i]);
	*n = k;
	return v;
}

static inline struct lab_lazy_domain *lab_test_domain(const char *spec, int ncpus)
{
	static struct lab_lazy_mm_conf conf;	/* only init reads it */
	struct lab_lazy_domain *d;
	char err[512];

	cr_assert_eq(lab_lazy_mm_parse(spec, &conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_lazy_domain_create(&d, &conf, ncpus, err, sizeof(err)), 0, "%s", err);
	return d;
}

/* ---- a CPU slot driven step by step ---------------------------------------- */

enum lab_cpu_cmd { CPU_IDLE, CPU_TO_KTHREAD, CPU_TO_USER, CPU_EXIT };

struct lab_test_cpu {
	pthread_t tid;
	struct lab_lazy_domain *d;
	int cpu;
	struct lab_lazy_mm *mm;		/* online on it; CPU_TO_USER loads next */
	struct lab_lazy_mm *next;
	uint32_t cmd;			/* enum lab_cpu_cmd, set by the test */
	uint32_t done;			/* commands completed */
	struct lab_events events;	/* the thread's events at exit */
};

static void *lab_test_cpu_main(void *arg)
{
	struct lab_test_cpu *c = arg;
	uint32_t seen = 0;

	lab_events_reset();
	cr_assert_eq(lab_lazy_cpu_online(c->d, c->cpu, c->mm), 0);
	__atomic_store_n(&c->done, ++seen, __ATOMIC_RELEASE);
	for (;;) {
		uint32_t cmd;

		while ((cmd = __atomic_load_n(&c->cmd, __ATOMIC_ACQUIRE)) == CPU_IDLE)
			lab_sleep_ns(100000);
		__atomic_store_n(&c->cmd, CPU_IDLE, __ATOMIC_RELAXED);
		if (cmd == CPU_EXIT)
			break;
		if (cmd == CPU_TO_KTHREAD)
			lab_lazy_switch_to_kthread(c->d, c->cpu);
		else
			lab_lazy_switch_to_user(c->d, c->cpu, c->next);
		__atomic_store_n(&c->done, ++seen, __ATOMIC_RELEASE);
	}
	lab_lazy_cpu_offline(c->d, c->cpu);
	lab_events_snapshot(&c->events);
	return NULL;
}

static inline void lab_test_cpu_wait(struct lab_test_cpu *c, uint32_t n)
{
	for (int i = 0; i < 10000 && __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) < n; i++)
		lab_sleep_ns(1000000);
	cr_assert_geq(__atomic_load_n(&c->done, __ATOMIC_ACQUIRE), n, "CPU %d did not finish step %u", c->cpu, n);
}

/* Start CPU @cpu online on @mm and wait until it is. */
static inline void lab_test_cpu_start(struct lab_test_cpu *c, struct lab_lazy_domain *d, int cpu,
				      struct lab_lazy_mm *mm)
{
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->cpu = cpu;
	c->mm = mm;
	cr_assert_eq(pthread_create(&c->tid, NULL, lab_test_cpu_main, c), 0);
	lab_test_cpu_wait(c, 1);
}

/* Run one command on the CPU and wait for it. */
static inline void lab_test_cpu_do(struct lab_test_cpu *c, enum lab_cpu_cmd cmd)
{
	uint32_t n = __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) + 1;

	__atomic_store_n(&c->cmd, cmd, __ATOMIC_RELEASE);
	lab_test_cpu_wait(c, n);
}

static inline void lab_test_cpu_stop(struct lab_test_cpu *c)
{
	__atomic_store_n(&c->cmd, CPU_EXIT, __ATOMIC_RELEASE);
	pthread_join(c->tid, NULL);
}

/* Run times are multiplied by $LAB_DURATION_SCALE (default 1), as in common.h. */
static inline double lab_test_scale_lazy(void)
{
	const char *s = getenv("LAB_DURATION_SCALE");
	double v = s ? atof(s) : 1.0;

	return v > 0 ? v : 1.0;
}
