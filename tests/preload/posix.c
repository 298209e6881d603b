/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * POSIX pthread_rwlock semantics, run natively (glibc) and under
 * librwlab-preload.so on every variant: the same answers from both.
 * Error codes per POSIX.1-2017 and glibc: EBUSY (try*), ETIMEDOUT, EDEADLK
 * (a lock the thread holds for write), EINVAL (bad clock or tv_nsec).
 * Prints one line per failed check and exits 1; "posix: ok" and 0 otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;
static pthread_rwlock_t stat_lock = PTHREAD_RWLOCK_INITIALIZER;

#define CHECK(expr, want)                                                                      \
	do {                                                                                   \
		int r_ = (expr);                                                               \
		if (r_ != (want)) {                                                            \
			printf("FAIL line %d: %s = %d (%s), want %d\n", __LINE__, #expr, r_,     \
			       strerror(r_), (want));                                          \
			failures++;                                                            \
		}                                                                              \
	} while (0)

static struct timespec from_now(clockid_t c, long ms)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	} else if (ts.tv_nsec < 0) {	/* a deadline in the past */
		ts.tv_sec--;
		ts.tv_nsec += 1000000000L;
	}
	return ts;
}

static double ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

/*
 * A helper thread that holds @l in @mode ('r'/'w') until told to release it:
 * the timed calls below must time out against a holder that is certainly
 * still there, however late a loaded machine runs them (a holder with a
 * fixed hold time once left first, the "timed-out" read got the lock, and
 * the test deadlocked on the read hold it did not know it had).
 */
struct holder {
	pthread_rwlock_t *l;
	char mode;
	pthread_t t;
	volatile int taken, release;
};

static void *hold(void *arg)
{
	struct holder *h = arg;

	if (h->mode == 'w')
		pthread_rwlock_wrlock(h->l);
	else
		pthread_rwlock_rdlock(h->l);
	__atomic_store_n(&h->taken, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
		usleep(1000);
	pthread_rwlock_unlock(h->l);
	return NULL;
}

static void hold_start(struct holder *h, pthread_rwlock_t *l, char mode)
{
	h->l = l;
	h->mode = mode;
	h->taken = 0;
	h->release = 0;
	pthread_create(&h->t, NULL, hold, h);
	while (!__atomic_load_n(&h->taken, __ATOMIC_ACQUIRE))
		usleep(100);
}

/*
 * Host threads the preload did not see start: a pthread key destructor that
 * locks after the preload's own per-thread destructors have run, and more
 * threads over the run than rwlab's task table has ids (1024), so ids must
 * be handed back at thread exit and taken again by late destructors.
 */
static pthread_key_t late_key;
static int late_runs;

static void late_destructor(void *arg)
{
	(void)arg;
	if (pthread_rwlock_rdlock(&stat_lock) == 0 && pthread_rwlock_unlock(&stat_lock) == 0)
		__atomic_fetch_add(&late_runs, 1, __ATOMIC_RELAXED);
}

static void *short_thread(void *arg)
{
	pthread_rwlock_wrlock(&stat_lock);
	pthread_rwlock_unlock(&stat_lock);
	pthread_setspecific(late_key, arg);
	return NULL;
}

/* At exit (atexit runs before the preload's destructor dumps statistics). */
static void at_exit_locks(void)
{
	if (pthread_rwlock_wrlock(&stat_lock) || pthread_rwlock_unlock(&stat_lock)) {
		printf("FAIL: wrlock/unlock in an atexit handler\n");
		fflush(stdout);
		_exit(1);
	}
}

/* A writer that queues on @arg and says when it got the lock. */
static volatile int writer_got;

static void *queued_writer(void *arg)
{
	pthread_rwlock_wrlock(arg);
	__atomic_store_n(&writer_got, 1, __ATOMIC_RELEASE);
	pthread_rwlock_unlock(arg);
	return NULL;
}

static long counter, shadow;

static void *incr(void *arg)
{
	pthread_rwlock_t *l = arg;

	for (int i = 0; i < 4000; i++) {
		if (i % 4) {
			pthread_rwlock_rdlock(l);
			if (__atomic_load_n(&counter, __ATOMIC_RELAXED) != __atomic_load_n(&shadow, __ATOMIC_RELAXED))
				__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
			pthread_rwlock_unlock(l);
		} else {
			pthread_rwlock_wrlock(l);
			__atomic_store_n(&counter, __atomic_load_n(&counter, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
			__atomic_store_n(&shadow, __atomic_load_n(&shadow, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
			pthread_rwlock_unlock(l);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_rwlock_t l;
	struct holder h;
	struct timespec ts, t0;
	pthread_t t[4];

	setvbuf(stdout, NULL, _IOLBF, 0);	/* FAIL lines survive a watchdog's kill */
	/* A statically initialised lock, first seen at its first use. */
	CHECK(pthread_rwlock_rdlock(&stat_lock), 0);
	CHECK(pthread_rwlock_rdlock(&stat_lock), 0);	/* recursive read */
	CHECK(pthread_rwlock_unlock(&stat_lock), 0);
	CHECK(pthread_rwlock_unlock(&stat_lock), 0);
	CHECK(pthread_rwlock_wrlock(&stat_lock), 0);
	CHECK(pthread_rwlock_wrlock(&stat_lock), EDEADLK);
	CHECK(pthread_rwlock_rdlock(&stat_lock), EDEADLK);
	CHECK(pthread_rwlock_trywrlock(&stat_lock), EBUSY);
	CHECK(pthread_rwlock_tryrdlock(&stat_lock), EBUSY);
	CHECK(pthread_rwlock_unlock(&stat_lock), 0);

	CHECK(pthread_rwlock_init(&l, NULL), 0);
	/* Held for read elsewhere: tryrdlock succeeds, trywrlock is EBUSY, a timed write times out. */
	hold_start(&h, &l, 'r');
	CHECK(pthread_rwlock_tryrdlock(&l), 0);
	CHECK(pthread_rwlock_unlock(&l), 0);
	CHECK(pthread_rwlock_trywrlock(&l), EBUSY);
	ts = from_now(CLOCK_REALTIME, -10);
	CHECK(pthread_rwlock_timedwrlock(&l, &ts), ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ts = from_now(CLOCK_MONOTONIC, 50);
	CHECK(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &ts), ETIMEDOUT);
	if (ms_since(&t0) < 45 || ms_since(&t0) > 2000) {
		printf("FAIL: clockwrlock timed out after %.1f ms, want about 50\n", ms_since(&t0));
		failures++;
	}
	__atomic_store_n(&h.release, 1, __ATOMIC_RELEASE);
	pthread_join(h.t, NULL);

	/* Held for write elsewhere: a timed read times out; released, a 5 s timed read gets it. */
	hold_start(&h, &l, 'w');
	CHECK(pthread_rwlock_tryrdlock(&l), EBUSY);
	ts = from_now(CLOCK_MONOTONIC, 10);
	CHECK(pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &ts), ETIMEDOUT);
	__atomic_store_n(&h.release, 1, __ATOMIC_RELEASE);
	ts = from_now(CLOCK_REALTIME, 5000);
	CHECK(pthread_rwlock_timedrdlock(&l, &ts), 0);
	CHECK(pthread_rwlock_unlock(&l), 0);
	pthread_join(h.t, NULL);

	/*
	 * A recursive read behind a queued writer: POSIX grants it (glibc's
	 * default kind does); writer-preferring variants would deadlock, so the
	 * preload must absorb it.
	 */
	CHECK(pthread_rwlock_rdlock(&l), 0);
	pthread_create(&h.t, NULL, queued_writer, &l);
	usleep(20000);		/* the writer is queued (or spinning) by now */
	CHECK(pthread_rwlock_rdlock(&l), 0);
	CHECK(__atomic_load_n(&writer_got, __ATOMIC_ACQUIRE), 0);
	CHECK(pthread_rwlock_unlock(&l), 0);
	CHECK(pthread_rwlock_unlock(&l), 0);
	pthread_join(h.t, NULL);
	CHECK(writer_got, 1);

	/* More read-held locks than the preload tracks per thread (16): still POSIX. */
	{
		pthread_rwlock_t many[20];

		for (int i = 0; i < 20; i++) {
			CHECK(pthread_rwlock_init(&many[i], NULL), 0);
			CHECK(pthread_rwlock_rdlock(&many[i]), 0);
		}
		CHECK(pthread_rwlock_trywrlock(&many[19]), EBUSY);
		for (int i = 19; i >= 0; i--)
			CHECK(pthread_rwlock_unlock(&many[i]), 0);
		for (int i = 0; i < 20; i++) {
			CHECK(pthread_rwlock_trywrlock(&many[i]), 0);
			CHECK(pthread_rwlock_unlock(&many[i]), 0);
			CHECK(pthread_rwlock_destroy(&many[i]), 0);
		}
	}

	/* Bad arguments. */
	ts = from_now(CLOCK_REALTIME, 100);
	ts.tv_nsec = 1000000000L;
	CHECK(pthread_rwlock_timedrdlock(&l, &ts), EINVAL);
	ts.tv_nsec = 0;
	CHECK(pthread_rwlock_clockrdlock(&l, CLOCK_PROCESS_CPUTIME_ID, &ts), EINVAL);
	CHECK(pthread_rwlock_clockwrlock(&l, CLOCK_THREAD_CPUTIME_ID, &ts), EINVAL);
	ts = from_now(CLOCK_MONOTONIC, 100);
	CHECK(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &ts), 0);
	CHECK(pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &ts), EDEADLK);
	CHECK(pthread_rwlock_unlock(&l), 0);
	CHECK(pthread_rwlock_destroy(&l), 0);

	/* Exclusion on a lock made and destroyed many times at fresh addresses. */
	for (int round = 0; round < 200; round++) {
		pthread_rwlock_t *m = malloc(sizeof(*m) * (size_t)(1 + round % 7));

		CHECK(pthread_rwlock_init(m, NULL), 0);
		CHECK(pthread_rwlock_wrlock(m), 0);
		CHECK(pthread_rwlock_unlock(m), 0);
		if (round % 50 == 0) {
			counter = shadow = 0;
			for (int i = 0; i < 4; i++)
				pthread_create(&t[i], NULL, incr, m);
			for (int i = 0; i < 4; i++)
				pthread_join(t[i], NULL);
			CHECK((int)counter, 4 * 1000);
		}
		CHECK(pthread_rwlock_destroy(m), 0);
		free(m);
	}
	/* 1100 threads, one at a time, each with a locking key destructor. */
	pthread_key_create(&late_key, late_destructor);
	for (int i = 0; i < 1100; i++) {
		pthread_create(&t[0], NULL, short_thread, &late_key);
		pthread_join(t[0], NULL);
	}
	CHECK(late_runs, 1100);
	atexit(at_exit_locks);
	if (failures) {
		printf("posix: %d failures\n", failures);
		return 1;
	}
	printf("posix: ok\n");
	return 0;
}
