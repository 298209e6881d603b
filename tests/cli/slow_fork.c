/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An LD_PRELOAD shim for stop.sh: the Nth fork() a process makes while it
 * catches SIGTERM returns a second late, in the parent or in the child
 * (SLOW_FORK=parent:N or child:N), once it has created the file
 * SLOW_FORK_MARK. A signal the test sends when that file appears comes
 * between fork() and what its caller does next, every time. The programs
 * the process starts get neither the shim (LD_PRELOAD) nor its variables.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char side[8], mark[4096];
static int nth;

__attribute__((constructor)) static void slow_fork_init(void)
{
	const char *s = getenv("SLOW_FORK"), *m = getenv("SLOW_FORK_MARK");

	if (s && m && sscanf(s, "%7[a-z]:%d", side, &nth) == 2)
		snprintf(mark, sizeof(mark), "%s", m);
	unsetenv("SLOW_FORK");
	unsetenv("SLOW_FORK_MARK");
	unsetenv("LD_PRELOAD");
}

pid_t fork(void)
{
	void *sym = dlsym(RTLD_NEXT, "fork");
	pid_t (*real)(void);
	struct timespec left = { 1, 0 };
	struct sigaction sa;
	pid_t pid;
	int slow;

	memcpy(&real, &sym, sizeof(real));	/* ISO C has no cast from void * to a function pointer */
	sigaction(SIGTERM, NULL, &sa);
	slow = nth > 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN && --nth == 0;
	pid = real();
	if (slow && (pid == 0) == !strcmp(side, "child")) {
		int fd = open(mark, O_WRONLY | O_CREAT, 0644);

		if (fd >= 0)
			close(fd);
		while (nanosleep(&left, &left) && errno == EINTR)
			;
	}
	return pid;
}
