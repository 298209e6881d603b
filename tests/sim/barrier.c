/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/barrier.h on the simulator (-DLAB_SIM=1: every access and futex
 * call goes through the engine, sim/sim.h), with more simulated threads
 * than simulated CPUs so that parties really sleep and are woken:
 * - lab_barrier_wait(), 256 tasks x 200 rounds on generic-64: no party
 *   returns from a round before all arrived in it, one serial party a round;
 * - lab_start: 256 sleeping (and 32 spinning) workers stay at the start line
 *   until the release and then see the controller's write; waiting for one
 *   worker more than came ends in -ETIMEDOUT at the (virtual) deadline, and
 *   the abort release returns every worker false.
 * A simulated deadlock (every task asleep, sim_run() == 99) fails the test.
 * Results are recorded inside the simulation and asserted after sim_run().
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "atomic.h"
#include "barrier.h"
#include "wait.h"

#define PARTIES 256
#define ROUNDS 200

static struct sim_machine mach;
static struct lab_barrier bar;
static uint32_t arrived[ROUNDS], serial[ROUNDS];
static uint32_t early, early_round = UINT32_MAX, early_seen;

static void boot(void)
{
	char err[512];

	cr_assert_eq(sim_machine_load(&mach, SIM_MACHINE_DIR, "generic-64", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sim_boot(&mach, 1), 0);
}

static void *barrier_party(void *arg)
{
	(void)arg;
	for (uint32_t k = 0; k < ROUNDS; k++) {
		uint32_t seen;

		atomic_fetch_add(&arrived[k], 1u);
		if (lab_barrier_wait(&bar))
			atomic_fetch_add(&serial[k], 1u);
		seen = READ_ONCE(arrived[k]);
		if (seen != PARTIES && atomic_fetch_add(&early, 1u) == 0) {
			early_seen = seen;
			early_round = k;
		}
	}
	return NULL;
}

static int barrier_scenario(int argc, char **argv)
{
	pthread_t tid[PARTIES];

	(void)argc;
	(void)argv;
	lab_barrier_init(&bar, PARTIES);
	for (int i = 0; i < PARTIES; i++)
		if (lab_thread_create(&tid[i], barrier_party, NULL))
			return 1;
	for (int i = 0; i < PARTIES; i++)
		lab_thread_join(tid[i], NULL);
	return 0;
}

Test(sim_barrier, rounds_wait_for_all_parties)
{
	boot();
	cr_assert_eq(sim_run(barrier_scenario, 0, NULL), 0, "the simulated run failed or deadlocked");
	sim_shutdown();
	cr_assert_eq(early, 0, "%u returns before all %d parties arrived; first: round %u saw %u arrived",
		     early, PARTIES, early_round, early_seen);
	for (int k = 0; k < ROUNDS; k++)
		cr_assert_eq(serial[k], 1, "round %d had %u serial parties, not 1", k, serial[k]);
	cr_assert_eq(bar.gen, ROUNDS, "%u generations for %d rounds", bar.gen, ROUNDS);
}

/* ---- start/stop protocol ------------------------------------------------------ */

static struct lab_start st;
static int nworkers;
static bool spin;
static int ctl;
static uint32_t passed, ran, bad_ctl, before[PARTIES];
static uint32_t passed_early, timed_out;
static uint64_t waited_ns;

static void *start_worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	bool run;

	WRITE_ONCE(before[i], 1u);
	run = spin ? lab_start_arrive_spin(&st) : lab_start_arrive(&st);
	atomic_fetch_add(&passed, 1u);
	if (!run)
		return NULL;
	atomic_fetch_add(&ran, 1u);
	if (ctl != 42)
		atomic_fetch_add(&bad_ctl, 1u);
	while (!lab_start_must_stop(&st))
		lab_sleep_ns(10000);
	return NULL;
}

/* Release normally, or (@abort) time out waiting for one worker too many and abort. */
static int start_scenario(bool abort)
{
	pthread_t tid[PARTIES];
	uint64_t t0;

	lab_start_init(&st);
	for (int i = 0; i < nworkers; i++)
		if (lab_thread_create(&tid[i], start_worker, (void *)(intptr_t)i))
			return 1;
	if (lab_start_wait_ready(&st, (unsigned int)nworkers, -1))
		return 2;
	for (int i = 0; i < nworkers; i++)
		if (!READ_ONCE(before[i]))
			return 3;
	t0 = lab_clock_ns();
	timed_out = lab_start_wait_ready(&st, (unsigned int)nworkers + abort, abort ? 1000000 : 0) == -ETIMEDOUT;
	waited_ns = lab_clock_ns() - t0;
	lab_sleep_ns(1000000);
	passed_early = READ_ONCE(passed);
	ctl = 42;
	lab_start_release(&st, abort);
	lab_sleep_ns(200000);
	lab_start_stop(&st);
	for (int i = 0; i < nworkers; i++)
		lab_thread_join(tid[i], NULL);
	return 0;
}

static int start_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return start_scenario(false);
}

static int start_abort(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return start_scenario(true);
}

static void start_check(int n, bool sp, bool abort)
{
	nworkers = n;
	spin = sp;
	boot();
	cr_assert_eq(sim_run(abort ? start_abort : start_run, 0, NULL), 0,
		     "the simulated run failed or deadlocked (99)");
	sim_shutdown();
	cr_assert_eq(passed_early, 0, "%u workers passed the start line before the release", passed_early);
	cr_assert_eq(passed, (uint32_t)n, "%u of %d workers returned from the start line", passed, n);
	if (abort) {
		cr_assert(timed_out, "waiting for %d of %d workers did not time out", n + 1, n);
		cr_assert_geq(waited_ns, 1000000, "gave up after %lu ns, before the 1 ms timeout",
			      (unsigned long)waited_ns);
		cr_assert_eq(ran, 0, "%u workers ran after an abort release", ran);
		return;
	}
	cr_assert_eq(ran, (uint32_t)n, "%u of %d workers ran", ran, n);
	cr_assert_eq(bad_ctl, 0, "%u workers did not see the controller's write", bad_ctl);
}

Test(sim_barrier, start_holds_until_release)
{
	start_check(PARTIES, false, false);
}

Test(sim_barrier, start_spin_holds_until_release)
{
	start_check(32, true, false);
}

Test(sim_barrier, start_timeout_then_abort)
{
	start_check(PARTIES, false, true);
}
