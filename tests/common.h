/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the Criterion suites: variant lists for parameterised
 * tests, a helper thread that runs one lock verb and reports when it
 * returned, and the LAB_DURATION_SCALE knob.
 */
#pragma once

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rwsem.h"
#include "wait.h"

/* Run times in tests are multiplied by $LAB_DURATION_SCALE (default 1). */
static inline double lab_test_scale(void)
{
	const char *s = getenv("LAB_DURATION_SCALE");
	double v = s ? atof(s) : 1.0;

	return v > 0 ? v : 1.0;
}

/* Init a lock of variant @name with default knobs; asserts on failure. */
static inline void lab_test_lock(struct lab_lock *l, const char *spec)
{
	static struct lab_rwsem_conf conf;	/* conf must outlive init only */
	char err[512];

	cr_assert_eq(lab_rwsem_parse(spec, &conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_lock_init(l, &conf), 0, "init %s", spec);
}

/*
 * Pin the calling thread to the @nth CPU it may run on (0-based); false when
 * it may run on fewer. For a test whose two threads must run at once (a
 * spinner and the owner it watches): on one runqueue they never do, and on
 * this loaded 2-CPU host the scheduler can keep them there for seconds.
 */
static inline bool lab_test_pin_nth_allowed(int nth)
{
	cpu_set_t set, one;

	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set) || nth--)
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		return sched_setaffinity(0, sizeof(one), &one) == 0;
	}
	return false;
}

enum lab_verb { V_DOWN_READ, V_DOWN_WRITE, V_READ_TRYLOCK, V_WRITE_TRYLOCK };

/* A helper thread that performs one verb, records the result, then waits to be told to release. */
struct lab_helper {
	pthread_t tid;
	const struct lab_lock *lock;
	enum lab_verb verb;
	int done;		/* 1 once the verb returned */
	int result;		/* trylock result (1 for blocking verbs) */
	int release;		/* set by the test: unlock and exit */
};

static void *lab_helper_main(void *arg)
{
	struct lab_helper *h = arg;
	int got = 1;

	switch (h->verb) {
	case V_DOWN_READ: lab_down_read(h->lock); break;
	case V_DOWN_WRITE: lab_down_write(h->lock); break;
	case V_READ_TRYLOCK: got = lab_down_read_trylock(h->lock); break;
	case V_WRITE_TRYLOCK: got = lab_down_write_trylock(h->lock); break;
	}
	h->result = got;
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	if (got) {
		if (h->verb == V_DOWN_READ || h->verb == V_READ_TRYLOCK)
			lab_up_read(h->lock);
		else
			lab_up_write(h->lock);
	}
	return NULL;
}

static inline void lab_helper_start(struct lab_helper *h, const struct lab_lock *l, enum lab_verb v)
{
	memset(h, 0, sizeof(*h));
	h->lock = l;
	h->verb = v;
	cr_assert_eq(pthread_create(&h->tid, NULL, lab_helper_main, h), 0);
}

/* Wait up to @ms for the helper's verb to return. Returns 1 if it did. */
static inline int lab_helper_wait(struct lab_helper *h, int ms)
{
	for (int i = 0; i < ms; i++) {
		if (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE))
			return 1;
		lab_sleep_ns(1000000);
	}
	return __atomic_load_n(&h->done, __ATOMIC_ACQUIRE);
}

/* Tell the helper to unlock (if it holds the lock) and join it. */
static inline void lab_helper_finish(struct lab_helper *h)
{
	__atomic_store_n(&h->release, 1, __ATOMIC_RELEASE);
	pthread_join(h->tid, NULL);
}

/* The variants a parameterised test runs over (names, for readable reports). */
struct lab_test_variant {
	char name[64];
};

/*
 * Fill a Criterion-owned array with every registered variant that has all
 * caps in @need and none in @skip.
 */
static inline struct lab_test_variant *lab_test_variants(unsigned need, unsigned skip, size_t *n)
{
	size_t k = 0, cnt = 0;
	struct lab_test_variant *v;

	while (lab_rwsem_variants[cnt])
		cnt++;
	v = cr_malloc(sizeof(*v) * (cnt ? cnt : 1));
	for (size_t i = 0; i < cnt; i++) {
		unsigned caps = lab_rwsem_variants[i]->caps;

		if ((caps & need) != need || (caps & skip))
			continue;
		snprintf(v[k].name, sizeof(v[k].name), "%s", lab_rwsem_variants[i]->name);
		k++;
	}
	*n = k;
	return v;
}
