/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * N threads that use a lock at once, for certain: each takes the read lock
 * and holds it until all N have it (a barrier), then lets go and exits. The
 * main thread takes no lock. So the preload's measure, the most threads
 * that used locks at once, is N on every variant (exec.sh: exec's threads
 * column without -t).
 *
 *   preload_at_once N       (1..64)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t all_in;

static void *reader(void *arg)
{
	(void)arg;
	pthread_rwlock_rdlock(&lock);
	pthread_barrier_wait(&all_in);
	pthread_rwlock_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t t[64];

	if (n < 1 || n > 64) {
		fprintf(stderr, "preload_at_once: N must be 1..64\n");
		return 2;
	}
	pthread_barrier_init(&all_in, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, reader, NULL)) {
			fprintf(stderr, "preload_at_once: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%d threads held the read lock at once\n", n);
	return 0;
}
