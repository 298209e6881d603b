/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the preload adds to an uncontended pthread_rwlock pair: one thread,
 * N rdlock/unlock pairs then N wrlock/unlock pairs on one lock.
 *
 *   preload_uncontended [N]       (default 5000000)
 *
 * Prints "read_pair_ns: X" and "write_pair_ns: Y" (ns per pair). Run it
 * natively and under the preload (results/preload/README.md, overhead).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	long n = argc > 1 ? atol(argv[1]) : 5000000;
	double t0, t1, t2;

	if (n < 1) {
		fprintf(stderr, "preload_uncontended: N must be a positive integer\n");
		return 2;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		pthread_rwlock_rdlock(&l);
		pthread_rwlock_unlock(&l);
	}
	t1 = now_ns();
	for (long i = 0; i < n; i++) {
		pthread_rwlock_wrlock(&l);
		pthread_rwlock_unlock(&l);
	}
	t2 = now_ns();
	printf("read_pair_ns: %.1f\nwrite_pair_ns: %.1f\n", (t1 - t0) / (double)n, (t2 - t1) / (double)n);
	return 0;
}
