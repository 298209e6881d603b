/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Misuse under librwlab-preload.so: destroying a held lock, unlocking one the
 * thread does not hold, forking while holding locks (and, last, SIGUSR2's
 * statistics). Under the preload each misuse is refused or survived with one
 * diagnostic line on stderr (the test script checks them); glibc alone
 * returns 0 from the first two and corrupts the lock, so this program runs
 * only under the preload.
 * Exits 0 when every call returned what the preload documents.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
static pthread_rwlock_t held_by_other = PTHREAD_RWLOCK_INITIALIZER;
static volatile int taken, release_it;

#define CHECK(expr, want)                                                                      \
	do {                                                                                   \
		int r_ = (expr);                                                               \
		if (r_ != (want)) {                                                            \
			printf("FAIL line %d: %s = %d (%s), want %d\n", __LINE__, #expr, r_,     \
			       strerror(r_), (want));                                          \
			failures++;                                                            \
		}                                                                              \
	} while (0)

static void *reader(void *arg)
{
	(void)arg;
	pthread_rwlock_rdlock(&held_by_other);
	__atomic_store_n(&taken, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&release_it, __ATOMIC_ACQUIRE))
		usleep(1000);
	pthread_rwlock_unlock(&held_by_other);
	return NULL;
}

int main(void)
{
	pthread_rwlock_t a, b, c;
	pthread_t t;
	pid_t pid;
	int st;

	/* 1. destroy a held lock: EBUSY, and the lock still works. */
	CHECK(pthread_rwlock_init(&a, NULL), 0);
	CHECK(pthread_rwlock_wrlock(&a), 0);
	CHECK(pthread_rwlock_destroy(&a), EBUSY);
	CHECK(pthread_rwlock_unlock(&a), 0);
	CHECK(pthread_rwlock_rdlock(&a), 0);
	CHECK(pthread_rwlock_destroy(&a), EBUSY);
	CHECK(pthread_rwlock_unlock(&a), 0);
	CHECK(pthread_rwlock_destroy(&a), 0);

	/* 2. unlock a lock this thread does not hold: EPERM, lock unchanged. */
	CHECK(pthread_rwlock_init(&b, NULL), 0);
	CHECK(pthread_rwlock_unlock(&b), EPERM);
	CHECK(pthread_rwlock_wrlock(&b), 0);
	CHECK(pthread_rwlock_unlock(&b), 0);
	CHECK(pthread_rwlock_unlock(&b), EPERM);
	CHECK(pthread_rwlock_trywrlock(&b), 0);
	CHECK(pthread_rwlock_unlock(&b), 0);
	CHECK(pthread_rwlock_destroy(&b), 0);

	/* 3. fork while this thread holds c for write and another thread holds a read. */
	CHECK(pthread_rwlock_init(&c, NULL), 0);
	pthread_create(&t, NULL, reader, NULL);
	while (!__atomic_load_n(&taken, __ATOMIC_ACQUIRE))
		usleep(1000);
	CHECK(pthread_rwlock_wrlock(&c), 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* The child's only thread holds c (as with glibc); the reader's hold is orphaned. */
		const char *v = getenv("RWLAB_LOCK");

		CHECK(pthread_rwlock_trywrlock(&c), EBUSY);
		/*
		 * glibc's unlock tells a write unlock by the owner's thread id,
		 * which the child's thread does not have: there (passthrough,
		 * and the pthread variants built on glibc) the child cannot
		 * release c, with or without the preload.
		 */
		if (v && strcmp(v, "passthrough") && strncmp(v, "pthread", 7)) {
			CHECK(pthread_rwlock_unlock(&c), 0);
			CHECK(pthread_rwlock_wrlock(&c), 0);
			CHECK(pthread_rwlock_unlock(&c), 0);
		}
		CHECK(pthread_rwlock_trywrlock(&held_by_other), EBUSY);
		CHECK(pthread_rwlock_tryrdlock(&held_by_other), 0);
		CHECK(pthread_rwlock_unlock(&held_by_other), 0);
		printf("misuse child: %s\n", failures ? "FAILED" : "ok");
		fflush(stdout);
		_exit(failures ? 1 : 0);
	}
	CHECK(pthread_rwlock_unlock(&c), 0);
	__atomic_store_n(&release_it, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("FAIL: the child did not exit 0\n");
		failures++;
	}
	CHECK(pthread_rwlock_destroy(&c), 0);

	/* 4. SIGUSR2: the statistics so far, on stderr, at the next rwlock call. */
	raise(SIGUSR2);
	CHECK(pthread_rwlock_rdlock(&held_by_other), 0);
	CHECK(pthread_rwlock_unlock(&held_by_other), 0);
	printf("misuse: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
