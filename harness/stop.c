/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stop on SIGINT/SIGTERM and pass the signal on to the child in progress
 * (stop.h).
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stop.h"

static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t stop_passed;	/* lab_stop_fork() passed on the signal now pending */
static volatile pid_t stop_child;	/* the child the signals are passed on to; 0: none */
static struct sigaction stop_old_int, stop_old_term;

/*
 * A terminal's Ctrl-C (si_code SI_KERNEL) reached the whole foreground
 * process group, the child too: passed on again, a program that takes a
 * second Ctrl-C as "quit now" would quit without its clean-up.
 */
static void stop_on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	stop_sig = sig;
	if (stop_passed)
		stop_passed = 0;
	else if (stop_child > 0 && si->si_code != SI_KERNEL)
		kill(stop_child, sig);
	errno = saved;
}

int lab_stop_install(void)
{
	struct sigaction sa = { .sa_sigaction = stop_on_signal, .sa_flags = SA_SIGINFO };	/* no SA_RESTART */

	sigemptyset(&sa.sa_mask);
	stop_sig = 0;
	stop_passed = 0;
	stop_child = 0;
	if (sigaction(SIGINT, &sa, &stop_old_int))
		return -1;
	if (sigaction(SIGTERM, &sa, &stop_old_term)) {
		sigaction(SIGINT, &stop_old_int, NULL);
		return -1;
	}
	return 0;
}

void lab_stop_restore(void)
{
	sigaction(SIGINT, &stop_old_int, NULL);
	sigaction(SIGTERM, &stop_old_term, NULL);
}

int lab_stop_signal(void)
{
	return stop_sig;
}

pid_t lab_stop_fork(void)
{
	sigset_t both, old;
	pid_t pid;
	int e;

	sigemptyset(&both);
	sigaddset(&both, SIGINT);
	sigaddset(&both, SIGTERM);
	sigprocmask(SIG_BLOCK, &both, &old);
	pid = fork();
	e = errno;
	if (pid == 0) {		/* the default actions before the signals can come: one pending ends it here */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
	} else if (pid > 0) {
		sigset_t pend;

		stop_child = pid;
		if (stop_sig) {	/* it came before fork(): the child never had it */
			kill(pid, stop_sig);
		} else if (!sigpending(&pend) && (sigismember(&pend, SIGTERM) || sigismember(&pend, SIGINT))) {
			/* it came during fork(), perhaps before the child was: passed on here, not again by the handler */
			kill(pid, sigismember(&pend, SIGTERM) ? SIGTERM : SIGINT);
			stop_passed = 1;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return pid;
}

int lab_stop_wait(pid_t pid, int *status, struct rusage *ru)
{
	int r;

	while ((r = wait4(pid, status, 0, ru)) < 0 && errno == EINTR)
		;
	stop_child = 0;
	return r < 0 ? -1 : 0;
}
