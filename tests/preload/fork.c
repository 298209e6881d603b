/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A program whose main thread forks before it takes any lock: the child's
 * one thread takes a read lock, the parent takes none. One thread used
 * locks at once, in any process: the preload's measure is 1 (exec.sh: exec's
 * threads column without -t; it was 2, the child counting its thread twice).
 *
 *   preload_fork
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

int main(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		perror("preload_fork: fork");
		return 1;
	}
	if (!pid) {
		pthread_rwlock_rdlock(&lock);
		pthread_rwlock_unlock(&lock);
		return 0;
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "preload_fork: the child failed\n");
		return 1;
	}
	printf("the child took a read lock, the parent none\n");
	return 0;
}
