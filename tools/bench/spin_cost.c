/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spin-cost - what one sample of the spinner's real signals costs
 * (locks/wait.h): reading another thread's CPU clock (owner_on_cpu(), while
 * that thread runs and while it sleeps), getrusage(RUSAGE_THREAD) for
 * need_resched(), CLOCK_MONOTONIC (the budget ablation's clock), and one
 * cpu_relax() (a poll). A spinner pays one owner sample per
 * LAB_SPIN_SAMPLE_POLLS polls and one need_resched sample per
 * LAB_RESCHED_SAMPLE_POLLS polls; the last lines say what that adds per poll
 * and how long an owner sampling interval lasts.
 *
 * Usage: spin-cost [N]  (N samples per figure, default 200000; best of 5)
 * Threading: the measuring thread plus one owner thread that spins or sleeps.
 * Errors: a bad N prints one line and exits 2.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wait.h"

static int owner_mode;		/* 0: burn CPU, 1: sleep in nanosleep, 2: exit */
static clockid_t owner_clock;
static int owner_ready;

static void *owner_main(void *arg)
{
	(void)arg;
	if (pthread_getcpuclockid(pthread_self(), &owner_clock))
		abort();
	__atomic_store_n(&owner_ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		int m = __atomic_load_n(&owner_mode, __ATOMIC_RELAXED);

		if (m == 2)
			return NULL;
		if (m == 1)
			lab_sleep_ns(1000000);
		else
			cpu_relax();
	}
}

typedef void (*op_fn)(void);

static void op_owner_clock(void)
{
	struct timespec ts;

	clock_gettime(owner_clock, &ts);
}

static void op_nivcsw(void)
{
	(void)lab_task_nivcsw();
}

static void op_monotonic(void)
{
	(void)lab_clock_ns();
}

static void op_relax(void)
{
	cpu_relax();
}

static double best_ns(op_fn fn, long n)
{
	double best = 1e300;

	for (int r = 0; r < 5; r++) {
		uint64_t t0 = lab_clock_ns();

		for (long i = 0; i < n; i++)
			fn();
		double v = (double)(lab_clock_ns() - t0) / (double)n;

		best = v < best ? v : best;
	}
	return best;
}

int main(int argc, char **argv)
{
	long n = 200000;
	pthread_t tid;
	double run, slp, ru, mono, relax;

	if (argc > 1) {
		char *end;

		n = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end || n < 1 || n > 100000000) {
			fprintf(stderr, "spin-cost: bad N '%s' (an integer in 1..100000000)\n", argv[1]);
			return 2;
		}
	}
	if (pthread_create(&tid, NULL, owner_main, NULL))
		return 1;
	while (!__atomic_load_n(&owner_ready, __ATOMIC_ACQUIRE))
		;
	run = best_ns(op_owner_clock, n);
	__atomic_store_n(&owner_mode, 1, __ATOMIC_RELAXED);
	lab_sleep_ns(5000000);
	slp = best_ns(op_owner_clock, n);
	__atomic_store_n(&owner_mode, 2, __ATOMIC_RELAXED);
	pthread_join(tid, NULL);
	ru = best_ns(op_nivcsw, n);
	mono = best_ns(op_monotonic, n);
	relax = best_ns(op_relax, n);

	printf("spinner signal costs, best of 5 x %ld calls (ns per call)\n", n);
	printf("%-44s %10.1f\n", "owner CPU clock, owner running", run);
	printf("%-44s %10.1f\n", "owner CPU clock, owner sleeping", slp);
	printf("%-44s %10.1f\n", "getrusage(RUSAGE_THREAD) (need_resched)", ru);
	printf("%-44s %10.1f\n", "CLOCK_MONOTONIC (budget ablation)", mono);
	printf("%-44s %10.1f\n", "cpu_relax() (one poll)", relax);
	double per_poll = run / LAB_SPIN_SAMPLE_POLLS + ru / LAB_RESCHED_SAMPLE_POLLS;

	printf("%-44s %10d\n", "polls per owner sample", LAB_SPIN_SAMPLE_POLLS);
	printf("%-44s %10d\n", "polls per need_resched sample", LAB_RESCHED_SAMPLE_POLLS);
	printf("%-44s %10.1f\n", "owner sampling interval, ns",
	       LAB_SPIN_SAMPLE_POLLS * (relax + per_poll));
	printf("%-44s %10.1f\n", "added per poll vs the budget ablation, ns",
	       per_poll - mono / LAB_SPIN_SAMPLE_POLLS);
	printf("%-44s %9.0f%%\n", "share of a spinner's time spent sampling",
	       100.0 * per_poll / (relax + per_poll));
	return 0;
}
