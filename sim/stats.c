/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/stats.c - the engine's counters.
 *
 * The public ones (sim.h): context switches, IPIs, the causality check;
 * and, with RWLAB_SIM_STATS=1, the host-side ones printed at shutdown
 * (accesses, task switches, parks, line-change wakes, lines, IPIs, idle
 * periods by state and how idle CPUs were woken).
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"

uint64_t sim_wake_early_count(void)
{
	return eng.st.wake_early;
}

uint64_t sim_ctxsw_count(int voluntary)
{
	return voluntary ? eng.nvcsw : eng.nivcsw;
}

uint64_t sim_task_ctxsw_count(int voluntary)
{
	return voluntary ? eng.running->nvcsw : eng.running->nivcsw;
}

void sim_ipi_stats(uint64_t *sent, uint64_t *handled, uint64_t *interrupted, uint64_t *deferred)
{
	*sent = eng.st.ipi_sent;
	*handled = eng.st.ipi_handled;
	*interrupted = eng.st.ipi_busy;
	*deferred = eng.st.ipi_deferred;
}

void stats_print(void)
{
	const char *s = getenv("RWLAB_SIM_STATS");

	if (s && *s == '1')
		fprintf(stderr, "rwlab-sim stats: %.3f s virtual (cpu 0), %.3f s host; %llu accesses, %llu task switches, "
			"%llu parks, %llu line-change wakes; %llu lines\n", (double)(eng.cpus[0].clock - 1000000000ull * PS_PER_NS) / 1e12,
			sim_host_seconds(), (unsigned long long)eng.st.mem, (unsigned long long)eng.st.switches,
			(unsigned long long)eng.st.park, (unsigned long long)eng.st.unpark, (unsigned long long)eng.dir.count);
	if (s && *s == '1' && eng.st.ipi_sent + eng.st.ipi_local)
		fprintf(stderr, "rwlab-sim stats: %llu IPIs sent, %llu handled, %llu on a busy CPU, %llu deferred, "
			"%llu run by the sender (same CPU)\n", (unsigned long long)eng.st.ipi_sent,
			(unsigned long long)eng.st.ipi_handled, (unsigned long long)eng.st.ipi_busy,
			(unsigned long long)eng.st.ipi_deferred, (unsigned long long)eng.st.ipi_local);
	if (s && *s == '1' && eng.idle.n) {
		fprintf(stderr, "rwlab-sim stats: idle periods by state");
		for (int i = 0; i < eng.idle.n; i++)
			fprintf(stderr, " %d:%llu", i, (unsigned long long)eng.st.idle_enter[i]);
		fprintf(stderr, "; idle CPUs woken by IPI %llu, by their polled flag %llu\n",
			(unsigned long long)eng.st.idle_wake_ipi, (unsigned long long)eng.st.idle_wake_poll);
	}
}
