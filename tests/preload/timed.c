/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tests/preload/timed.c - pthread_rwlock_clock{rd,wr}lock under
 * librwlab-preload.so: a timed wait that expires and one that succeeds, and
 * whether the timed waiter queued on the variant (its down_*_timed, rwsem.h)
 * or polled its trylock (the fallback).
 *
 *   preload_timed queued   a kernel port (writer-preferring FIFO queue): a
 *                          timed writer waiting behind readers blocks new
 *                          readers (trylock EBUSY, a blocking reader queues
 *                          behind it) until it times out; its cancellation
 *                          path then wakes the reader queued behind it
 *   preload_timed polled   a variant without down_*_timed: the timed writer
 *                          does not queue, new readers pass it
 *
 * Both: the writer times out after its deadline (not before, not long
 * after), a timed writer gets the lock once the readers leave, a timed
 * reader behind a writer times out, and the lock works afterwards.
 * Prints "timed: ok" and exits 0, or FAIL lines and exits 1.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;

#define CHECK(expr, want)                                                                      \
	do {                                                                                   \
		int r_ = (expr);                                                               \
		if (r_ != (want)) {                                                            \
			printf("FAIL line %d: %s = %d (%s), want %d\n", __LINE__, #expr, r_,     \
			       strerror(r_), (want));                                          \
			failures++;                                                            \
		}                                                                              \
	} while (0)

#define CHECK_MS(what, ms, lo, hi)                                                             \
	do {                                                                                   \
		if ((ms) < (lo) || (ms) > (hi)) {                                              \
			printf("FAIL: %s after %.1f ms, want %d..%d\n", what, ms, lo, hi);      \
			failures++;                                                            \
		}                                                                              \
	} while (0)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static struct timespec deadline_in(long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static pthread_rwlock_t l;

/* A thread that takes l ('r', 'w', timed 'W' with .ms, or timed 'R') and records when. */
struct taker {
	char mode;
	long ms;		/* timed: the deadline, from the start */
	int release;		/* set by main: unlock now */
	int r;			/* the call's answer */
	double start, done;	/* now_ms() */
	int started;		/* the thread runs (start is set) */
	int finished;		/* the call returned (done and r are set) */
	pthread_t t;
};

static void *take(void *arg)
{
	struct taker *k = arg;
	struct timespec ts = deadline_in(k->ms);

	k->start = now_ms();
	__atomic_store_n(&k->started, 1, __ATOMIC_RELEASE);
	switch (k->mode) {
	case 'r': k->r = pthread_rwlock_rdlock(&l); break;
	case 'w': k->r = pthread_rwlock_wrlock(&l); break;
	case 'R': k->r = pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &ts); break;
	default: k->r = pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &ts); break;
	}
	k->done = now_ms();
	__atomic_store_n(&k->finished, 1, __ATOMIC_RELEASE);
	if (k->r == 0) {
		while (!__atomic_load_n(&k->release, __ATOMIC_ACQUIRE))
			usleep(1000);
		pthread_rwlock_unlock(&l);
	}
	return NULL;
}

static void start(struct taker *k, char mode, long ms)
{
	memset(k, 0, sizeof(*k));
	k->mode = mode;
	k->ms = ms;
	pthread_create(&k->t, NULL, take, k);
}

static void stop(struct taker *k)
{
	__atomic_store_n(&k->release, 1, __ATOMIC_RELEASE);
	pthread_join(k->t, NULL);
}

static int taken(struct taker *k)
{
	return __atomic_load_n(&k->finished, __ATOMIC_ACQUIRE) && k->r == 0;
}

int main(int argc, char **argv)
{
	/*
	 * queued-spin: v5.3's rwsem (rwsem-rspin) queues its timed writer, but
	 * a reader that may optimistically spin takes a reader-owned lock past
	 * it: rwsem_try_read_lock_unqueued() looks at WRITER_MASK and HANDOFF,
	 * not at FLAG_WAITERS (kernel/locking/rwsem.c, v5.3), and readers may
	 * spin while RD_NONSPINNABLE is clear (a writer that queued without
	 * spinning, e.g. at need_resched(), leaves it clear: seen once in CI on
	 * a loaded machine). A late reader that passed is then allowed.
	 */
	int spin_pass = argc > 1 && !strcmp(argv[1], "queued-spin");
	int queued = spin_pass || (argc > 1 && !strcmp(argv[1], "queued"));
	int passed = 0;
	struct taker reader, writer, late;
	double t0;

	if (argc != 2 || (!queued && strcmp(argv[1], "polled"))) {
		fprintf(stderr, "usage: preload_timed queued|queued-spin|polled\n");
		return 2;
	}
	CHECK(pthread_rwlock_init(&l, NULL), 0);

	/* 1. A timed writer behind a reader expires; what it did to readers meanwhile. */
	start(&reader, 'r', 0);
	while (!taken(&reader))
		usleep(1000);
	/*
	 * The deadline leaves room for a loaded machine: the checks below run
	 * 150 ms after the writer started, well inside its 1 s.
	 */
	start(&writer, 'W', 1000);
	while (!__atomic_load_n(&writer.started, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(150 * 1000);	/* past any optimistic spinning: the writer sleeps (or polls) */
	if (queued) {
		int r = pthread_rwlock_tryrdlock(&l);	/* a queued writer blocks new readers */

		CHECK(r, EBUSY);
		if (r == 0)
			CHECK(pthread_rwlock_unlock(&l), 0);
	} else {
		/* a polling writer does not (a failed trywrlock may flag the lock for an instant) */
		int r = EBUSY;

		for (int i = 0; i < 3 && r == EBUSY; i++)
			r = pthread_rwlock_tryrdlock(&l);
		CHECK(r, 0);
		if (r == 0)
			CHECK(pthread_rwlock_unlock(&l), 0);
	}
	start(&late, 'r', 0);	/* a blocking reader arriving while the writer waits */
	usleep(50 * 1000);
	if (queued && taken(&late)) {
		passed = 1;
		if (spin_pass) {
			printf("note: a spinning reader passed the queued timed writer (v5.3 allows it)\n");
		} else {
			printf("FAIL: a reader passed the queued timed writer\n");
			failures++;
		}
	}
	pthread_join(writer.t, NULL);
	CHECK(writer.r, ETIMEDOUT);
	CHECK_MS("the timed writer gave up", writer.done - writer.start, 995, 3000);
	t0 = now_ms();
	while (!taken(&late) && now_ms() - t0 < 2000)
		usleep(1000);
	if (!taken(&late)) {
		printf("FAIL: the reader behind the timed-out writer was not woken\n");
		failures++;
	} else if (queued && !passed) {
		/* woken by the writer's cancellation path, not before it */
		CHECK_MS("the reader behind the writer got the lock", late.done - writer.start, 995, 3000);
	}
	if (taken(&late)) {
		CHECK(pthread_rwlock_tryrdlock(&l), 0);		/* nothing queued any more */
		CHECK(pthread_rwlock_unlock(&l), 0);
	}
	stop(&reader);		/* first: a reader left queued needs the lock free */
	stop(&late);

	/* 2. A timed writer gets the lock when the reader leaves, well before its deadline. */
	start(&reader, 'r', 0);
	while (!taken(&reader))
		usleep(1000);
	start(&writer, 'W', 5000);
	usleep(100 * 1000);
	t0 = now_ms();
	stop(&reader);
	while (!__atomic_load_n(&writer.finished, __ATOMIC_ACQUIRE) && now_ms() - t0 < 6000)
		usleep(1000);
	CHECK(writer.r, 0);
	CHECK_MS("the timed writer got the lock after the reader left", writer.done - t0, 0, 1000);

	/* 3. A timed reader behind that writer expires; the lock works afterwards. */
	start(&late, 'R', 100);
	pthread_join(late.t, NULL);
	CHECK(late.r, ETIMEDOUT);
	CHECK_MS("the timed reader gave up", late.done - late.start, 95, 2000);
	stop(&writer);
	CHECK(pthread_rwlock_wrlock(&l), 0);
	CHECK(pthread_rwlock_unlock(&l), 0);
	CHECK(pthread_rwlock_rdlock(&l), 0);
	CHECK(pthread_rwlock_unlock(&l), 0);
	CHECK(pthread_rwlock_destroy(&l), 0);

	if (failures)
		return 1;
	printf("timed: ok\n");
	return 0;
}
