/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spin-cost - what one sample of the spinner's real signals costs
 * (locks/wait.h): owner_on_cpu() and need_resched() from the context-switch
 * rings (oncpu=switch: plain loads, every poll), reading another thread's
 * CPU clock (oncpu=clock, while that thread runs and while it sleeps),
 * getrusage(RUSAGE_THREAD) (need_resched() without a ring),
 * CLOCK_MONOTONIC (the time base of the sampling), and one cpu_relax() (a
 * poll). oncpu=clock reads the owner's clock once per
 * LAB_OWNER_CLOCK_SAMPLE_NS; the last lines say what each signal costs a
 * spinner as a share of its time. The rings' own cost falls on every
 * context switch of a thread that has one (the kernel writes a record): a
 * futex ping-pong of two threads on one CPU, without rings and with them,
 * says how much.
 *
 * Usage: spin-cost [N]  (N samples per figure, default 200000; best of 5)
 * Threading: the measuring thread plus one owner thread that spins or sleeps.
 * Errors: a bad N prints one line and exits 2.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wait.h"

static int owner_mode;		/* 0: burn CPU, 1: sleep in nanosleep, 2: exit */
static clockid_t owner_clock;
static struct lab_task *owner_task;
static int owner_ready;

static void *owner_main(void *arg)
{
	(void)arg;
	if (pthread_getcpuclockid(pthread_self(), &owner_clock))
		abort();
	owner_task = lab_current();
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

/* ---- context switches with and without switch rings ---------------------- */

static uint32_t pp_word;
static int pp_rings;

static void pp_wait(uint32_t val)
{
	while (__atomic_load_n(&pp_word, __ATOMIC_ACQUIRE) == val)
		syscall(SYS_futex, &pp_word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void pp_set(uint32_t val)
{
	__atomic_store_n(&pp_word, val, __ATOMIC_RELEASE);
	syscall(SYS_futex, &pp_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static bool pp_pin0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

static long pp_n;

static void *pp_partner(void *arg)
{
	(void)arg;
	pp_pin0();
	if (pp_rings)
		(void)lab_current();
	for (long i = 0; i < pp_n; i++) {
		pp_wait(0);	/* wait for 1 */
		pp_set(0);
	}
	return NULL;
}

struct pp_trial {
	bool rings;
	double ns;
};

/* A driver thread: ping-pong pp_n round trips with a new partner, both on CPU 0. */
static void *pp_driver(void *arg)
{
	struct pp_trial *tr = arg;
	pthread_t t;
	uint64_t t0;

	pp_pin0();
	pp_rings = tr->rings;
	if (tr->rings)
		(void)lab_current();
	pp_word = 0;
	if (pthread_create(&t, NULL, pp_partner, NULL))
		abort();
	t0 = lab_clock_ns();
	for (long i = 0; i < pp_n; i++) {
		pp_set(1);
		pp_wait(1);	/* wait for 0 */
	}
	tr->ns = (double)(lab_clock_ns() - t0) / (double)pp_n;
	pthread_join(t, NULL);
	return NULL;
}

/*
 * ns per round trip (two switches each way) of a futex ping-pong on CPU 0,
 * without rings (out[0]) and with them (out[1]): 10 trials each, taking
 * turns on new threads, the best of each (load on a shared host inflates
 * some trials of both).
 */
static void pingpong(double *out)
{
	out[0] = out[1] = 1e300;
	for (int r = 0; r < 20; r++) {
		struct pp_trial tr = { .rings = r & 1 };
		pthread_t t;

		if (pthread_create(&t, NULL, pp_driver, &tr))
			abort();
		pthread_join(t, NULL);
		out[tr.rings] = tr.ns < out[tr.rings] ? tr.ns : out[tr.rings];
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

static int sink;

static void op_owner_switch(void)
{
	sink += owner_on_cpu(owner_task);
}

static void op_resched(void)
{
	sink += need_resched();
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
	double run, slp, ru, mono, relax, sw_run, sw_slp, resched, pp[2];
	int off;

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
	lab_spin_start(0, LAB_ONCPU_SWITCH);
	if (lab_switch_ring_status())
		printf("no switch rings (%s): the switch lines measure the clock fallback\n",
		       lab_switch_ring_status());
	run = best_ns(op_owner_clock, n);
	sw_run = best_ns(op_owner_switch, n);
	resched = best_ns(op_resched, n);
	__atomic_store_n(&owner_mode, 1, __ATOMIC_RELAXED);
	lab_sleep_ns(5000000);
	slp = best_ns(op_owner_clock, n);
	sw_slp = best_ns(op_owner_switch, n);
	off = !owner_on_cpu(owner_task);
	__atomic_store_n(&owner_mode, 2, __ATOMIC_RELAXED);
	pthread_join(tid, NULL);
	ru = best_ns(op_nivcsw, n);
	mono = best_ns(op_monotonic, n);
	relax = best_ns(op_relax, n);

	/* The ping-pong first, on threads that have no ring until it says so. */
	pp_n = n / 10 ? n / 10 : 1;
	pingpong(pp);
	printf("spinner signal costs, best of 5 x %ld calls (ns per call)\n", n);
	printf("%-44s %10.1f\n", "owner CPU clock, owner running", run);
	printf("%-44s %10.1f\n", "owner CPU clock, owner sleeping", slp);
	printf("%-44s %10.1f\n", "getrusage(RUSAGE_THREAD) (need_resched)", ru);
	printf("%-44s %10.1f\n", "CLOCK_MONOTONIC (budget ablation)", mono);
	printf("%-44s %10.1f\n", "cpu_relax() (one poll)", relax);
	printf("%-44s %10.1f\n", "owner_on_cpu() switch ring, owner running", sw_run);
	printf("%-44s %10.1f\n", "owner_on_cpu() switch ring, owner sleeping", sw_slp);
	printf("%-44s %10.1f\n", "need_resched() own switch ring", resched);
	printf("%-44s %10s\n", "sleeping owner read as", off ? "off CPU" : "ON CPU (wrong)");
	/* oncpu=clock: one clock read per LAB_OWNER_CLOCK_SAMPLE_NS, a CLOCK_MONOTONIC read per 8 polls. */
	printf("%-44s %9.1f%%\n", "oncpu=clock: share of spin time sampling",
	       100.0 * (run / LAB_OWNER_CLOCK_SAMPLE_NS + mono / 8 / (relax + mono / 8)));
	printf("%-44s %9.1f%%\n", "oncpu=switch: share of spin time sampling",
	       100.0 * (sw_run + resched) / (relax + sw_run + resched));
	printf("%-44s %10.1f\n", "futex ping-pong round trip, no rings", pp[0]);
	printf("%-44s %10.1f\n", "futex ping-pong round trip, both with rings", pp[1]);
	/* A round trip is two context switches, each writing two records (the switch-out and the switch-in). */
	printf("%-44s %10.1f\n", "ring cost per context switch (2 per trip)", (pp[1] - pp[0]) / 2);
	return sink == -1;
}
