/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's idle path (sim/idle.c) on machine files that list cpuidle
 * states: a task woken onto a CPU idle for long runs after the deepest
 * state's exit latency and a switch from the idle task (and an IPI first
 * where that state does not poll: EPYC's I/O-port C2); a CPU whose idle
 * periods are short enters a shallow state (the menu governor's typical
 * interval), woken without an IPI; a file without states keeps
 * cost.wakeup_ns; sim_pin_core() lets a core's two tasks run on its two
 * siblings. Every expected time comes from the machine file (within the
 * engine's +-1% jitter on the kernel-path costs; exit latencies are exact).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

static struct sim_machine mach;
static uint32_t word;
static uint64_t woke_at, run_at;
static int sleeper_cpu;

static double num(const char *key)
{
	double v;

	cr_assert_eq(sim_machine_number(&mach, key, &v), 0, "%s: no %s", mach.name, key);
	return v;
}

/* @got within the engine's +-1% cost jitter on @jittered ns of @want (plus rounding). */
static int near(double got, double want, double jittered)
{
	double tol = 0.0101 * jittered + 1;

	return got >= want - tol && got <= want + tol;
}

static int nstates(void)
{
	int n = 1;
	char key[48];
	double v;

	for (;; n++) {
		snprintf(key, sizeof(key), "cost.idle.%d.exit_ns", n);
		if (sim_machine_number(&mach, key, &v))
			return n;
	}
}

static void *sleeper(void *arg)
{
	(void)arg;
	sim_pin(1);
	while (__atomic_load_n(&word, __ATOMIC_RELAXED) == 0)
		sim_futex_wait(&word, 0, -1);
	run_at = sim_now();
	sleeper_cpu = sim_current_cpu();
	return NULL;
}

/* CPU 1 idle for 20 ms, then one wake-up: when does the sleeper run? */
static int long_idle(int argc, char **argv)
{
	int id;

	(void)argc;
	(void)argv;
	sim_pin(0);
	id = sim_spawn(sleeper, NULL);
	sim_sleep_ns(20000000);
	__atomic_store_n(&word, 1, __ATOMIC_RELAXED);
	sim_mem(&word, SIM_STORE);
	sim_futex_wake(&word, 1);
	woke_at = sim_now();
	sim_join(id);
	return 0;
}

static void boot_run(const char *name, int (*fn)(int, char **))
{
	char err[512];

	cr_assert_eq(sim_machine_load(&mach, SIM_MACHINE_DIR, name, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sim_boot(&mach, 1), 0);
	word = 0;
	cr_assert_eq(sim_run(fn, 0, NULL), 0);
}

Test(sim_idle, long_idle_pays_the_deepest_mwait_exit_without_ipi)
{
	uint64_t enter[10], ipi, poll;
	char key[48];
	double want;
	int n;

	boot_run("skx-8180-2s112", long_idle);
	n = nstates();
	snprintf(key, sizeof(key), "cost.idle.%d.exit_ns", n - 1);
	want = num(key) + mach.ctxsw_ns;
	cr_assert_eq(sim_idle_stats(enter, 10, &ipi, &poll), n);
	cr_assert_eq(sleeper_cpu, 1);
	cr_assert(run_at >= woke_at && near((double)(run_at - woke_at), want, mach.ctxsw_ns),
		  "woken at %llu, ran at %llu: %.0f ns, want %.0f (C6 exit + switch)", (unsigned long long)woke_at,
		  (unsigned long long)run_at, (double)(run_at - woke_at), want);
	cr_assert_eq(ipi, 0, "MWAIT states poll: no IPI");
	cr_assert(poll >= 1);
	sim_shutdown();
}

Test(sim_idle, long_idle_in_an_io_port_state_takes_an_ipi)
{
	uint64_t enter[10], ipi, poll;
	char key[48];
	double want;
	int n;

	boot_run("epyc9654-2s384", long_idle);
	n = nstates();
	snprintf(key, sizeof(key), "cost.idle.%d.exit_ns", n - 1);
	want = mach.ipi_ns + mach.irq_ns + num(key) + mach.ctxsw_ns;
	cr_assert_eq(sim_idle_stats(enter, 10, &ipi, &poll), n);
	cr_assert(near((double)(run_at - woke_at), want, mach.ipi_ns + mach.irq_ns + mach.ctxsw_ns),
		  "%.0f ns from wake to run, want %.0f (IPI + C2 exit + switch)", (double)(run_at - woke_at), want);
	cr_assert_geq(ipi, 1);
	sim_shutdown();
}

Test(sim_idle, a_file_without_states_keeps_wakeup_ns)
{
	uint64_t enter[10], ipi, poll;
	double want;

	boot_run("generic-8", long_idle);
	want = mach.wakeup_ns;
	cr_assert_eq(sim_idle_stats(enter, 10, &ipi, &poll), 0);
	cr_assert(near((double)(run_at - woke_at), want, want),
		  "%.0f ns from wake to run, want cost.wakeup_ns %.0f", (double)(run_at - woke_at), want);
	sim_shutdown();
}

/* Ping-pong between two tasks bound to core 0: each on its own sibling, idle in between. */
static uint32_t ping, pong;
static int cpu_a, cpu_b;
#define ROUNDS 2000

static void *partner(void *arg)
{
	(void)arg;
	cpu_b = -1;
	for (uint32_t i = 1; i <= ROUNDS; i++) {
		while (__atomic_load_n(&ping, __ATOMIC_RELAXED) < i)
			sim_futex_wait(&ping, i - 1, -1);
		if (cpu_b < 0)
			cpu_b = sim_current_cpu();
		else if (cpu_b != sim_current_cpu())
			cpu_b = -2;
		__atomic_store_n(&pong, i, __ATOMIC_RELAXED);
		sim_mem(&pong, SIM_STORE);
		sim_futex_wake(&pong, 1);
	}
	return NULL;
}

static int pingpong(int argc, char **argv)
{
	int id;

	(void)argc;
	(void)argv;
	cr_assert_eq(sim_pin_core(0), 0);
	ping = pong = 0;
	id = sim_spawn(partner, NULL);
	cpu_a = sim_current_cpu();
	for (uint32_t i = 1; i <= ROUNDS; i++) {
		__atomic_store_n(&ping, i, __ATOMIC_RELAXED);
		sim_mem(&ping, SIM_STORE);
		sim_futex_wake(&ping, 1);
		while (__atomic_load_n(&pong, __ATOMIC_RELAXED) < i)
			sim_futex_wait(&pong, i - 1, -1);
		if (sim_current_cpu() != cpu_a)
			cpu_a = -2;
	}
	sim_join(id);
	return 0;
}

Test(sim_idle, core_bound_pair_alternates_through_shallow_idle_on_two_siblings)
{
	uint64_t enter[10], ipi, poll, shallow = 0, deep = 0;
	int n;

	boot_run("skx-8180-2s112", pingpong);
	n = sim_idle_stats(enter, 10, &ipi, &poll);
	cr_assert(cpu_a >= 0 && cpu_b >= 0 && cpu_a != cpu_b, "the pair stays on two CPUs (%d, %d)", cpu_a, cpu_b);
	{
		struct sim_cpu_place pa, pb;

		sim_machine_place(&mach, cpu_a, &pa);
		sim_machine_place(&mach, cpu_b, &pb);
		cr_assert(pa.core == 0 && pb.core == 0, "both on core 0");
	}
	for (int i = 0; i < n; i++)
		*(i <= 1 ? &shallow : &deep) += enter[i];
	/* POLL or C1 for the ping-pong's sub-microsecond to microsecond idle periods */
	cr_assert_gt(shallow, 2 * ROUNDS * 9 / 10, "shallow %llu, deeper %llu, cpus %d %d, %llu switches",
		     (unsigned long long)shallow, (unsigned long long)deep, cpu_a, cpu_b,
		     (unsigned long long)sim_ctxsw_count(1));
	cr_assert_eq(ipi, 0);
	sim_shutdown();
}
