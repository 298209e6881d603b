/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulated RCU through locks/rcu_sim.h, on generic-8
 * (HZ 250: a 4 ms tick; the first force-quiescent-state scan 1 jiffy after a
 * grace period starts):
 * - a reader inside its section across synchronize_rcu() delays it until it
 *   leaves, also when the scheduler preempts it inside the section;
 * - with every CPU busy outside sections (Tree RCU, sim/rcu.c): each CPU
 *   notices the grace period at a tick and reports at the next, the GP
 *   kthread ends it, and the caller's callback runs at its CPU's next tick:
 *   two to three ticks, about two and a half on average over requests at
 *   seeded random phases;
 * - with every other CPU idle the GP kthread's first FQS scan (one jiffy at
 *   HZ 250) reports them, but not the CPU it runs on, which reports at its
 *   own tick or the next scan: at most 2F + 1 jiffies, F = 1 here;
 * - a call_rcu() callback never runs while a reader that could see the
 *   object is still inside its section, and every callback runs before
 *   rcu_barrier() returns;
 * - a reader that blocks for ever inside its section makes synchronize_rcu()
 *   a reported simulated deadlock, not an endless run of ticks;
 * - every CPU making the first request at the same moment spawns one GP
 *   kthread, not one per request (the spawn may yield; a second kthread
 *   would start a second grace period, which rcu_gp_init() refuses);
 * - causality: a task woken onto a CPU busy with a long-running task never
 *   runs before the wake-up (its clock is at least the waker's), also
 *   checked inside the engine for every switch-in (sim_wake_early_count()).
 * Results are recorded inside the simulation and asserted after sim_run().
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "atomic.h"
#include "rcu_sim.h"
#include "sim.h"
#include "wait.h"

#define JIFFY 4000000ull	/* generic.machine: hz = 250 */
#define SLACK 20000ull		/* wake-up (2 us), context switches, futex and syscall costs */

static struct sim_machine mach;

static void boot(void)
{
	char err[512];

	cr_assert_eq(sim_machine_load(&mach, SIM_MACHINE_DIR, "generic-8", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(mach.hz, 250, "the test's JIFFY assumes HZ 250");
	cr_assert_eq(sim_boot(&mach, 7), 0);
}

static uint64_t wake_early;

static void finish(int (*scenario)(int, char **))
{
	boot();
	cr_assert_eq(sim_run(scenario, 0, NULL), 0, "the simulated run failed or deadlocked");
	wake_early = sim_wake_early_count();
	sim_shutdown();
}

static void check_causality(void)
{
	cr_assert_eq(wake_early, 0, "%llu switch-ins before the task was made runnable",
		     (unsigned long long)wake_early);
}

/* ---- a reader across synchronize_rcu ----------------------------------------- */

static uint32_t inside, stop_hog;
static uint64_t reader_left, sync_began, sync_ended, preempted_inside;
static int preempt_reader;

static void *hog(void *arg)
{
	sim_pin((int)(intptr_t)arg);
	while (!READ_ONCE(stop_hog))
		sim_work_ns(100000);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	sim_pin(1);
	uint64_t iv;

	lab_sim_rcu_read_lock();
	WRITE_ONCE(inside, 1u);
	lab_futex_wake(&inside, 1);
	iv = sim_ctxsw_count(0);
	for (int i = 0; i < 200; i++)
		sim_work_ns(100000);	/* 20 ms inside, in 100 us pieces */
	preempted_inside = sim_ctxsw_count(0) - iv;
	reader_left = sim_now();
	lab_sim_rcu_read_unlock();
	return NULL;
}

static int reader_scenario(int argc, char **argv)
{
	pthread_t r, h = 0;

	(void)argc;
	(void)argv;
	sim_pin(0);
	inside = stop_hog = 0;
	if (preempt_reader && lab_thread_create(&h, hog, (void *)(intptr_t)1))
		return 1;
	if (lab_thread_create(&r, reader, NULL))
		return 1;
	while (!READ_ONCE(inside))
		lab_futex_wait(&inside, 0u, -1);
	sync_began = sim_now();
	lab_sim_synchronize_rcu();
	sync_ended = sim_now();
	lab_thread_join(r, NULL);
	WRITE_ONCE(stop_hog, 1u);
	if (preempt_reader)
		lab_thread_join(h, NULL);
	return 0;
}

static void check_reader(void)
{
	check_causality();
	cr_assert_gt(reader_left, sync_began + 19000000, "the reader left %llu ns after the request",
		     (unsigned long long)(reader_left - sync_began));
	cr_assert_geq(sync_ended, reader_left, "synchronize_rcu returned %llu ns before the reader left",
		      (unsigned long long)(reader_left - sync_ended));
	/* its CPU reports at its next tick; the callback runs at the caller's next tick after the GP ends */
	cr_assert_leq(sync_ended - reader_left, 2 * JIFFY + SLACK,
		      "synchronize_rcu returned %llu ns after the reader left (at most two ticks)",
		      (unsigned long long)(sync_ended - reader_left));
}

Test(sim_rcu, a_reader_inside_delays_the_grace_period_until_it_leaves)
{
	preempt_reader = 0;
	finish(reader_scenario);
	check_reader();
}

Test(sim_rcu, a_reader_preempted_inside_delays_it_too)
{
	preempt_reader = 1;	/* a hog pinned beside it: CFS switches them every slice */
	finish(reader_scenario);
	check_reader();
	cr_assert_gt(preempted_inside, 0, "the reader was never preempted inside its section");
}

/* ---- busy CPUs, idle CPUs ------------------------------------------------------- */

#define NGP 24
static uint64_t gp_len[NGP];
static int nhogs;

static int gp_scenario(int argc, char **argv)
{
	pthread_t h[8];

	(void)argc;
	(void)argv;
	sim_pin(0);
	stop_hog = 0;
	for (int i = 0; i < nhogs; i++)
		if (lab_thread_create(&h[i], hog, (void *)(intptr_t)(i + 1)))
			return 1;
	lab_sleep_ns(1000000);
	for (int k = 0; k < NGP; k++) {
		uint64_t t0;

		sim_work_ns((double)(sim_random() % JIFFY));	/* a seeded phase against the tick */
		t0 = sim_now();
		lab_sim_synchronize_rcu();
		gp_len[k] = sim_now() - t0;
	}
	WRITE_ONCE(stop_hog, 1u);
	for (int i = 0; i < nhogs; i++)
		lab_thread_join(h[i], NULL);
	return 0;
}

Test(sim_rcu, all_cpus_busy_the_grace_period_takes_two_to_three_ticks)
{
	double mean = 0;

	nhogs = 7;	/* with the caller: every CPU of generic-8 */
	finish(gp_scenario);
	for (int k = 0; k < NGP; k++) {
		cr_assert_geq(gp_len[k], 2 * JIFFY, "grace period %d took %llu ns (< two ticks)", k,
			      (unsigned long long)gp_len[k]);
		cr_assert_leq(gp_len[k], 3 * JIFFY + SLACK, "grace period %d took %llu ns (> three ticks)", k,
			      (unsigned long long)gp_len[k]);
		mean += (double)gp_len[k] / NGP;
	}
	check_causality();
	cr_log_info("busy: %d grace periods, mean %.0f ns (tick %llu ns)", NGP, mean, JIFFY);
	cr_assert(mean > 2.2 * JIFFY && mean < 2.8 * JIFFY,
		  "mean grace period %.0f ns: requests at random phases should average about two and a half ticks", mean);
}

Test(sim_rcu, other_cpus_idle_the_grace_period_waits_for_an_fqs_scan)
{
	uint64_t mx = 0;
	double mean = 0;

	nhogs = 0;
	finish(gp_scenario);
	check_causality();
	for (int k = 0; k < NGP; k++) {
		mx = gp_len[k] > mx ? gp_len[k] : mx;
		mean += (double)gp_len[k] / NGP;
	}
	cr_log_info("idle: %d grace periods, mean %.0f, longest %llu ns (one FQS interval: %llu ns)", NGP, mean,
		    (unsigned long long)mx, JIFFY);
	for (int k = 0; k < NGP; k++)
		cr_assert_leq(gp_len[k], 3 * JIFFY + SLACK, "grace period %d took %llu ns (> 2F + 1 jiffies)", k,
			      (unsigned long long)gp_len[k]);
	cr_assert(mean >= JIFFY, "mean grace period %.0f ns: shorter than the first FQS interval", mean);
}

/* ---- call_rcu: never before its grace period ---------------------------------- */

#define NREADERS 6
#define NREPLACE 200

struct obj {
	struct rcu_head rh;
	uint32_t live;
};

static struct obj objs[NREPLACE + 1];
static struct obj *cur;
static uint32_t freed, bad_reads, reads, stop_readers;

static void obj_free(struct rcu_head *h)
{
	struct obj *o = (struct obj *)h;

	WRITE_ONCE(o->live, 0u);
	freed++;
}

static void *cb_reader(void *arg)
{
	(void)arg;
	while (!READ_ONCE(stop_readers)) {
		struct obj *o;

		lab_sim_rcu_read_lock();
		o = READ_ONCE(cur);
		sim_work_ns((double)(sim_random() % 300000));	/* up to 300 us inside */
		if (!READ_ONCE(o->live))
			bad_reads++;
		reads++;
		lab_sim_rcu_read_unlock();
		sim_work_ns((double)(sim_random() % 50000));
	}
	return NULL;
}

static int cb_scenario(int argc, char **argv)
{
	pthread_t r[NREADERS];

	(void)argc;
	(void)argv;
	freed = bad_reads = reads = stop_readers = 0;
	objs[0].live = 1;
	cur = &objs[0];
	for (int i = 0; i < NREADERS; i++)
		if (lab_thread_create(&r[i], cb_reader, NULL))
			return 1;
	for (int k = 1; k <= NREPLACE; k++) {
		struct obj *old = cur;

		objs[k].live = 1;
		WRITE_ONCE(cur, &objs[k]);
		lab_sim_call_rcu(&old->rh, obj_free);
		sim_work_ns((double)(sim_random() % 200000));
	}
	lab_sim_rcu_barrier();
	WRITE_ONCE(stop_readers, 1u);
	for (int i = 0; i < NREADERS; i++)
		lab_thread_join(r[i], NULL);
	return 0;
}

Test(sim_rcu, a_callback_never_runs_before_its_grace_period)
{
	finish(cb_scenario);
	check_causality();
	cr_assert_eq(bad_reads, 0, "%u reads saw an object freed while they were inside their section", bad_reads);
	cr_assert_eq(freed, NREPLACE, "rcu_barrier returned with %u of %d callbacks run", freed, NREPLACE);
	cr_assert_gt(reads, 1000, "only %u reads: the check saw too little", reads);
}

/* ---- causality: woken onto a busy CPU --------------------------------------------- */

#define NWAKE 50
static uint32_t wake_word;
static uint64_t woken_at[NWAKE], waked_at[NWAKE];
static int nwoken, waited[NWAKE];

static void *sleeper(void *arg)
{
	(void)arg;
	sim_pin(1);
	for (int k = 0; k < NWAKE; k++) {
		/* The clock straight after the wait: before any access that could wait for the waker's line. */
		while (READ_ONCE(wake_word) == (uint32_t)k) {
			lab_futex_wait(&wake_word, (uint32_t)k, -1);
			woken_at[k] = sim_now();
			waited[k] = 1;
		}
		nwoken = k + 1;
	}
	return NULL;
}

static int wake_scenario(int argc, char **argv)
{
	pthread_t h, s;

	(void)argc;
	(void)argv;
	sim_pin(0);
	wake_word = stop_hog = 0;
	nwoken = 0;
	memset(waited, 0, sizeof(waited));
	if (lab_thread_create(&h, hog, (void *)(intptr_t)1) || lab_thread_create(&s, sleeper, NULL))
		return 1;
	for (int k = 0; k < NWAKE; k++) {
		lab_sleep_ns(2000000 + sim_random() % 20000000);	/* the hog's slice long over */
		waked_at[k] = sim_now();
		WRITE_ONCE(wake_word, (uint32_t)k + 1);
		lab_futex_wake(&wake_word, 1);
	}
	lab_thread_join(s, NULL);
	WRITE_ONCE(stop_hog, 1u);
	lab_thread_join(h, NULL);
	return 0;
}

Test(sim_engine_causality, a_task_woken_onto_a_busy_cpu_never_runs_before_its_wake_up)
{
	finish(wake_scenario);
	int n = 0;

	cr_assert_eq(nwoken, NWAKE);
	for (int k = 0; k < NWAKE; k++)
		n += waited[k];
	cr_assert_geq(n, NWAKE / 2, "only %d of %d wake-ups found the sleeper asleep", n, NWAKE);
	for (int k = 0; k < NWAKE; k++)
		cr_assert(!waited[k] || woken_at[k] >= waked_at[k], "wake-up %d: ran at %llu, woken at %llu (%llu ns early)", k,
			      (unsigned long long)woken_at[k], (unsigned long long)waked_at[k],
			      (unsigned long long)(waked_at[k] - woken_at[k]));
	check_causality();
}

/* ---- a reader that never leaves -------------------------------------------------- */

static uint32_t never;

static void *stuck_reader(void *arg)
{
	(void)arg;
	lab_sim_rcu_read_lock();
	WRITE_ONCE(inside, 1u);
	lab_futex_wake(&inside, 1);
	lab_futex_wait(&never, 0u, -1);	/* nobody wakes it */
	lab_sim_rcu_read_unlock();
	return NULL;
}

static int stuck_scenario(int argc, char **argv)
{
	pthread_t r;

	(void)argc;
	(void)argv;
	inside = 0;
	if (lab_thread_create(&r, stuck_reader, NULL))
		return 1;
	while (!READ_ONCE(inside))
		lab_futex_wait(&inside, 0u, -1);
	lab_sim_synchronize_rcu();
	return 0;
}

Test(sim_rcu, a_reader_blocked_for_ever_is_a_reported_deadlock)
{
	boot();
	cr_assert_eq(sim_run(stuck_scenario, 0, NULL), 99, "synchronize_rcu behind a reader that never runs "
		     "again must end in the simulated-deadlock report");
	sim_shutdown();
}

/* ---- the first requests, made together: one GP kthread ------------------------ */

/*
 * Regression (123859e): the first synchronize_rcu() spawns the GP kthread, and
 * the spawn charges its cost first and may yield. A second first request made
 * in that window spawned a second kthread; the two each started a grace period
 * (rcu_gp_init() now refuses that, as the kernel's WARN_ON_ONCE does) and one
 * slept in its FQS loop for ever. Every CPU of generic-8 requests at the same
 * simulated moment, before any kthread exists.
 */
#define FIRST_AT 2000000ull	/* 2 ms: every requester has started and waits for this moment */

static uint64_t first_base, first_done[8];

static void *first_requester(void *arg)
{
	int i = (int)(intptr_t)arg;

	sim_pin(i);
	sim_work_ns((double)(first_base + FIRST_AT - sim_now()));
	lab_sim_synchronize_rcu();
	first_done[i] = sim_now() - first_base;
	return NULL;
}

static int first_scenario(int argc, char **argv)
{
	pthread_t h[8];

	(void)argc;
	(void)argv;
	first_base = sim_now();
	for (int i = 0; i < 8; i++)
		if (lab_thread_create(&h[i], first_requester, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < 8; i++)
		lab_thread_join(h[i], NULL);
	return 0;
}

Test(sim_rcu, first_requests_made_together_spawn_one_gp_kthread)
{
	finish(first_scenario);
	check_causality();
	for (int i = 0; i < 8; i++) {
		cr_assert_geq(first_done[i], FIRST_AT, "requester %d returned before it asked", i);
		cr_assert_leq(first_done[i], FIRST_AT + 3 * JIFFY + SLACK,
			      "requester %d waited %llu ns (> three ticks)", i,
			      (unsigned long long)(first_done[i] - FIRST_AT));
	}
}
