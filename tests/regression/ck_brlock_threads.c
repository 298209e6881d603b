/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ck-brlock's per-thread cached record (locks/ck.c) with many threads:
 * - every thread read-locks two brlocks nested (released in the order they
 *   were taken) and alone in turn, so its one-lock cache misses on almost every call, while
 *   writers take each lock: no reader and writer inside one lock at once;
 * - a lock destroyed and initialised again at the same address while every
 *   thread still caches the old lock's record (freed by destroy): each thread
 *   must register a new record (ASan reports a stale one as a use after
 *   free) and a writer must still be excluded.
 */
#include <sched.h>

#include "common.h"
#include "config.h"
#include "events.h"

#define NREADERS 6
#define NLOCKS 2

static struct lab_lock locks[NLOCKS];
static int readers_in[NLOCKS], writer_in[NLOCKS];
static int violations, stop;
static pthread_barrier_t phase;

static void read_section(int i)
{
	__atomic_add_fetch(&readers_in[i], 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&writer_in[i], __ATOMIC_SEQ_CST))
		__atomic_add_fetch(&violations, 1, __ATOMIC_RELAXED);
}

static void read_leave(int i)
{
	__atomic_sub_fetch(&readers_in[i], 1, __ATOMIC_SEQ_CST);
}

static void *writer_main(void *arg)
{
	int i = (int)(intptr_t)arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		lab_down_write(&locks[i]);
		__atomic_store_n(&writer_in[i], 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&readers_in[i], __ATOMIC_SEQ_CST))
			__atomic_add_fetch(&violations, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&writer_in[i], 0, __ATOMIC_SEQ_CST);
		lab_up_write(&locks[i]);
		/*
		 * Off the CPU between two holds: a writer that retakes a spinning lock at
		 * once starves the spinning readers on an oversubscribed machine (8
		 * threads on 2 CPUs under a loaded CI ran past the 120 s timeout).
		 */
		sched_yield();
	}
	return NULL;
}

static void *thrash_main(void *arg)
{
	(void)arg;
	for (int n = 0; n < 3000; n++) {
		int c = n & 1;

		/* Nested, always A then B (writer-preferring: the other order can deadlock). */
		lab_down_read(&locks[0]);
		read_section(0);
		lab_down_read(&locks[1]);
		read_section(1);
		read_leave(0);
		lab_up_read(&locks[0]);	/* the cache holds B: a miss */
		read_leave(1);
		lab_up_read(&locks[1]);	/* and now holds A: a miss */
		/* Alone, alternately. */
		lab_down_read(&locks[c]);
		read_section(c);
		read_leave(c);
		lab_up_read(&locks[c]);
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *), int nwriters)
{
	pthread_t r[NREADERS], w[NLOCKS];

	stop = 0;
	for (int i = 0; i < nwriters; i++)
		cr_assert_eq(pthread_create(&w[i], NULL, writer_main, (void *)(intptr_t)i), 0);
	for (int i = 0; i < NREADERS; i++)
		cr_assert_eq(pthread_create(&r[i], NULL, fn, NULL), 0);
	for (int i = 0; i < NREADERS; i++)
		pthread_join(r[i], NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nwriters; i++)
		pthread_join(w[i], NULL);
}

Test(ck_brlock_threads, two_locks_alternately_read_by_every_thread, .timeout = 120)
{
	for (int i = 0; i < NLOCKS; i++)
		lab_test_lock(&locks[i], "ck-brlock");
	violations = 0;
	run_threads(thrash_main, NLOCKS);
	cr_expect_eq(violations, 0, "%d times a reader and a writer were inside one lock", violations);
	for (int i = 0; i < NLOCKS; i++) {
		cr_expect(lab_down_write_trylock(&locks[i]), "lock %d still read-held after every reader left", i);
		lab_up_write(&locks[i]);
		lab_lock_destroy(&locks[i]);
	}
}

#define ROUNDS 20

/* Read lock 0 once (caching its record), wait while it is re-initialised, again. */
static unsigned long registered;

static void *reinit_main(void *arg)
{
	struct lab_events before, after;

	(void)arg;
	lab_events_snapshot(&before);	/* per thread */
	for (int round = 0; round < ROUNDS; round++) {
		for (int n = 0; n < 200; n++) {
			lab_down_read(&locks[0]);
			read_section(0);
			read_leave(0);
			lab_up_read(&locks[0]);
		}
		pthread_barrier_wait(&phase);	/* main re-initialises lock 0 */
		pthread_barrier_wait(&phase);
	}
	lab_events_snapshot(&after);
	__atomic_add_fetch(&registered, after.count[LAB_EV_brlock_register] - before.count[LAB_EV_brlock_register],
			   __ATOMIC_RELAXED);
	return NULL;
}

static void *reinit_writer_main(void *arg)
{
	(void)arg;
	for (int round = 0; round < ROUNDS; round++) {
		for (int n = 0; n < 200; n++) {
			lab_down_write(&locks[0]);
			__atomic_store_n(&writer_in[0], 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&readers_in[0], __ATOMIC_SEQ_CST))
				__atomic_add_fetch(&violations, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&writer_in[0], 0, __ATOMIC_SEQ_CST);
			lab_up_write(&locks[0]);
		}
		pthread_barrier_wait(&phase);
		pthread_barrier_wait(&phase);
	}
	return NULL;
}

Test(ck_brlock_threads, reinit_while_every_thread_caches_the_old_record, .timeout = 120)
{
	struct lab_rwsem_conf conf;
	pthread_t r[NREADERS], w;
	char err[256];

	cr_assert_eq(lab_rwsem_parse("ck-brlock", &conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_lock_init(&locks[0], &conf), 0);
	cr_assert_eq(pthread_barrier_init(&phase, NULL, NREADERS + 2), 0);
	violations = 0;
	registered = 0;
	cr_assert_eq(pthread_create(&w, NULL, reinit_writer_main, NULL), 0);
	for (int i = 0; i < NREADERS; i++)
		cr_assert_eq(pthread_create(&r[i], NULL, reinit_main, NULL), 0);
	for (int round = 0; round < ROUNDS; round++) {
		pthread_barrier_wait(&phase);
		/* Same memory, a new lock; every reader's cache names the old one's freed record. */
		locks[0].ops->destroy(locks[0].sem);
		cr_assert_eq(locks[0].ops->init(locks[0].sem, &conf), 0);
		pthread_barrier_wait(&phase);
	}
	for (int i = 0; i < NREADERS; i++)
		pthread_join(r[i], NULL);
	pthread_join(w, NULL);
	if (LAB_EVENT_COUNTS)
		cr_expect_eq(registered, (unsigned long)NREADERS * ROUNDS,
			     "%lu reader records registered over %d inits by %d readers", registered, ROUNDS, NREADERS);
	cr_expect_eq(violations, 0, "%d times a reader and a writer were inside the lock", violations);
	cr_expect(lab_down_write_trylock(&locks[0]), "the lock stayed read-held");
	lab_up_write(&locks[0]);
	lab_lock_destroy(&locks[0]);
	pthread_barrier_destroy(&phase);
}
