/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A test thread that takes a lock in one mode, says so, holds it until told
 * to let go, then snapshots its own lock event counters (they are
 * thread-local) for the test to read after joining it.
 */
#pragma once

#include "common.h"
#include "events.h"

struct actor {
	pthread_t tid;
	const struct lab_lock *lock;
	bool write;
	int acquired;		/* 1 once down_* returned */
	int release;		/* set by the test: unlock and exit */
	struct lab_events ev;	/* this thread's counters, from its start to its exit */
};

static void *actor_main(void *arg)
{
	struct actor *a = arg;

	lab_events_reset();
	if (a->write)
		lab_down_write(a->lock);
	else
		lab_down_read(a->lock);
	__atomic_store_n(&a->acquired, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&a->release, __ATOMIC_ACQUIRE))
		lab_sleep_ns(200000);
	if (a->write)
		lab_up_write(a->lock);
	else
		lab_up_read(a->lock);
	lab_events_snapshot(&a->ev);
	return NULL;
}

static inline void actor_start(struct actor *a, const struct lab_lock *l, bool write)
{
	memset(a, 0, sizeof(*a));
	a->lock = l;
	a->write = write;
	cr_assert_eq(pthread_create(&a->tid, NULL, actor_main, a), 0);
}

/* Wait up to @ms for the actor to hold the lock. Returns 1 if it does. */
static inline int actor_wait(struct actor *a, int ms)
{
	for (int i = 0; i < ms; i++) {
		if (__atomic_load_n(&a->acquired, __ATOMIC_ACQUIRE))
			return 1;
		lab_sleep_ns(1000000);
	}
	return __atomic_load_n(&a->acquired, __ATOMIC_ACQUIRE);
}

/* Let go of the lock and join; a->ev is valid afterwards. */
static inline void actor_finish(struct actor *a)
{
	__atomic_store_n(&a->release, 1, __ATOMIC_RELEASE);
	pthread_join(a->tid, NULL);
}

#define EV(e, name) ((e)->count[LAB_EV_##name])

/* Counters of the calling thread since @before. */
static inline uint64_t ev_delta(const struct lab_events *before, enum lab_event e)
{
	struct lab_events now;

	lab_events_snapshot(&now);
	return now.count[e] - before->count[e];
}
