/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwlab-gp-latency: how long synchronize_rcu() takes on the simulated
 * machines, idle and busy, beside the kernel's documented intervals (issue
 * 23): the engine's Tree RCU (sim/rcu.c) through locks/rcu_sim.h.
 *
 * Per machine, one task on CPU 0 calls synchronize_rcu() 64 times, each after
 * a seeded random pause of up to two jiffies (so the calls fall at every phase
 * of the tick):
 *   idle  no other task: every other CPU is in dyntick-idle, so the grace period
 *         waits for the GP kthread's first force-quiescent-state scan,
 *         jiffies_till_first_fqs (RCU_JIFFIES_TILL_FORCE_QS + nr_cpu_ids /
 *         RCU_JIFFIES_FQS_DIV = 1 + (HZ > 250) + (HZ > 500) + ncpus / 256)
 *         after it starts; that scan cannot report the CPU the kthread runs on
 *         (it is not idle while it scans: dyntick_save_progress_counter), which
 *         reports at its own tick if it holds the caller's callback, else at the
 *         next scan; the callback then waits for the caller's CPU's tick;
 *   busy  a task on every other CPU computes outside any read-side section:
 *         each CPU notices the grace period at a tick and reports a quiescent
 *         state at the next, and the callback waits for one more.
 * The bounds (--check; exit 1 when a latency falls outside, printing it) follow
 * from those documented rules with J = 1/HZ and F = jiffies_till_first_fqs:
 *   idle: (F - 1) J  <=  latency  <=  (2 F + 1) J + slack
 *   busy:      2 J   <=  latency  <=       3 J + slack
 * slack: 8 x (W + cost.ctxsw_ns) + 200 us (the kthread's and the caller's
 * wake-ups and switches, the futex path), W the wake-up of an idle CPU:
 * cost.wakeup_ns, or where the file lists cpuidle states (sim/idle.c) the
 * deepest state's exit latency + cost.ipi_ns + cost.irq_ns + cost.ctxsw_ns.
 *
 * Usage: rwlab-gp-latency [--check] [--dir MACHINEDIR] MACHINE...
 * Output: one line per machine and load: machine, HZ, CPUs, F (jiffies and ms),
 * latency mean/min/max in ms, and the bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcu_sim.h"
#include "sim.h"
#include "wait.h"

#define CALLS 64

static int busy;
static uint32_t stop;
static uint64_t lat[CALLS];

static void *hog(void *arg)
{
	sim_pin((int)(intptr_t)arg);
	while (!READ_ONCE(stop))
		sim_work_ns(50000);
	return NULL;
}

static int scenario(int argc, char **argv)
{
	int ncpu = sim_machine()->ncpus;
	pthread_t *h = calloc((size_t)ncpu, sizeof(*h));
	uint64_t jiffy = 1000000000ull / (uint64_t)sim_machine()->hz;

	(void)argc;
	(void)argv;
	if (!h)
		return 1;
	sim_pin(0);
	stop = 0;
	for (int c = 1; busy && c < ncpu; c++)
		if (lab_thread_create(&h[c], hog, (void *)(intptr_t)c))
			return 1;
	for (int i = 0; i < CALLS; i++) {
		uint64_t t0;

		sim_sleep_ns(sim_random() % (2 * jiffy));
		t0 = sim_now();
		lab_sim_synchronize_rcu();
		lat[i] = sim_now() - t0;
	}
	WRITE_ONCE(stop, 1u);
	for (int c = 1; busy && c < ncpu; c++)
		lab_thread_join(h[c], NULL);
	free(h);
	return 0;
}

static int measure(const char *dir, const char *name, int check)
{
	struct sim_machine m;
	char err[512];
	int bad = 0;

	if (sim_machine_load(&m, dir, name, err, sizeof(err))) {
		fprintf(stderr, "rwlab-gp-latency: %s\n", err);
		return 2;
	}
	for (busy = 0; busy <= 1; busy++) {
		double j = 1e9 / m.hz, f = 1 + (m.hz > 250) + (m.hz > 500) + m.ncpus / 256;
		double wake = m.wakeup_ns, slack, lo, hi, sum = 0, mn = 1e30, mx = 0;

		for (int st = 1; st < 10; st++) {
			char key[48];
			double e;

			snprintf(key, sizeof(key), "cost.idle.%d.exit_ns", st);
			if (sim_machine_number(&m, key, &e))
				break;
			if (e + m.ipi_ns + m.irq_ns + m.ctxsw_ns > wake)
				wake = e + m.ipi_ns + m.irq_ns + m.ctxsw_ns;
		}
		slack = 8 * (wake + m.ctxsw_ns) + 200000;

		if (sim_boot(&m, 23) || sim_run(scenario, 0, NULL)) {
			fprintf(stderr, "rwlab-gp-latency: %s: the simulated run failed\n", name);
			sim_shutdown();
			return 2;
		}
		sim_shutdown();
		lo = busy ? 2 * j : (f - 1) * j;
		hi = busy ? 3 * j + slack : (2 * f + 1) * j + slack;
		for (int i = 0; i < CALLS; i++) {
			double v = (double)lat[i];

			sum += v;
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
			if (check && (v < lo || v > hi)) {
				printf("FAIL: %s %s call %d: %.3f ms outside [%.3f, %.3f] ms\n", name, busy ? "busy" : "idle",
				       i, v / 1e6, lo / 1e6, hi / 1e6);
				bad = 1;
			}
		}
		printf("%-18s %5d %4d  F=%.0f (%.1f ms)  %s  mean %7.3f  min %7.3f  max %7.3f ms  bounds [%.3f, %.3f] ms\n",
		       name, m.hz, m.ncpus, f, f * j / 1e6, busy ? "busy" : "idle", sum / CALLS / 1e6, mn / 1e6, mx / 1e6,
		       lo / 1e6, hi / 1e6);
	}
	return bad;
}

int main(int argc, char **argv)
{
	const char *dir = SIM_MACHINE_DIR;
	int check = 0, rc = 0, n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check")) {
			check = 1;
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "rwlab-gp-latency: unknown option '%s' (valid: --check, --dir DIR)\n", argv[i]);
			return 2;
		} else {
			int r = measure(dir, argv[i], check);

			rc = r > rc ? r : rc;
			n++;
		}
	}
	if (!n) {
		fprintf(stderr, "usage: rwlab-gp-latency [--check] [--dir MACHINEDIR] MACHINE...\n");
		return 2;
	}
	return rc;
}
