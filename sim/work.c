/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/work.c - work charges and clocks.
 *
 * sim_work_ns() is busy time on the CPU, in chunks the scheduler may cut
 * (its resched point) and interrupts may stretch (handler time deducted);
 * bulk copies and memory traffic are charged at the per-core bandwidth or
 * the socket's share among its current copiers; lab_delay() is relax_ns
 * per loop. sim_cost_ns() is a modelled path's cost: sim_work_ns() with
 * +-1% seeded jitter (jitter(), engine.h). The clocks: CLOCK_MONOTONIC (the CPU's
 * virtual clock, starting at 1 s), jiffies, task and total CPU time.
 */
#include <math.h>

#include "engine.h"

/*
 * What-if, off unless a machine file sets smt.exec_yield (none does: no
 * figure for the modelled parts' fault or syscall paths was found, and
 * neither host here has SMT to measure one): a core's two hardware threads
 * share its execution resources, so with its sibling running (a task or a
 * handler, spinning included) a thread does work at yield / 2 of a core's
 * rate. Sampled when each chunk starts and again whenever the sibling
 * becomes busy or idle (smt_sibling_changed() cuts the chunk there); line
 * transfers, copies, memory traffic and PAUSE loops (latencies and
 * bandwidth) are not stretched.
 * Unset, each thread works at a whole core's rate, as every engine so far.
 */
static inline double smt_stretch(const struct cpu *c)
{
	const struct cpu *s;

	if (c->sibling < 0)
		return 1;
	s = &eng.cpus[c->sibling];
	return s->curr || s->in_irq ? 2 / eng.m.smt_exec_yield : 1;
}

/*
 * @c's busy state (a task or a handler) may have changed: its sibling's work
 * chunk, if it runs at a rate the new state does not give, is cut at @c's
 * clock, so that it goes on at the rate from then (work_charge() samples
 * again). Without it a chunk kept the rate it started at, a whole core's
 * beside a sibling that began later (the core doing more than its yield), or
 * a shared one beside a sibling gone idle. Only with smt.exec_yield set.
 */
void smt_sibling_changed_slow(const struct cpu *c)
{
	struct cpu *s;
	uint64_t at;
	int si;

	if (c->sibling < 0)
		return;
	si = c->sibling;
	s = &eng.cpus[si];
	if (s->in_work != 2 || s->work_k == smt_stretch(s))
		return;
	at = c->clock > s->clock ? c->clock : s->clock;
	/* its one event: the chunk's end or an earlier cut; never moved later */
	if (eng.ev.ckey[eng.ev.cleaf_of[si]] != CEV_NONE && eng.ev.cev_time[si] > at)
		cpu_push(s, at);
}

/*
 * @ns of busy time on the running task's CPU; @shared (a constant at each
 * call, only with smt.exec_yield set): stretched by smt_stretch(). With
 * @shared 0 this is the engine's work charge as it was before the what-if.
 */
static inline __attribute__((always_inline)) void work_charge(double ns, const int shared)
{
	struct task *t = eng.running;
	uint64_t rem;

	if (__builtin_expect(eng.prof != NULL, 0))
		prof_work(ns);
	eng.work_frac += ns * (double)PS_PER_NS;
	rem = (uint64_t)eng.work_frac;
	eng.work_frac -= (double)rem;
	t->simpure = 1;
	while (rem) {
		struct cpu *c;
		uint64_t start, end, irq0, dur;
		double k;
		int cut;

		/*
		 * The preemption check of sync_point() only (sim-17): the chunk's
		 * own hand-over below lets earlier CPUs go first, up to its end.
		 */
		c = &eng.cpus[t->cpu];
		if (__builtin_expect(c->clock >= c->resched_at, 0)) {
			sync_preempt(t);
			c = &eng.cpus[t->cpu];
		}
		start = c->clock;
		k = shared ? smt_stretch(c) : 1;
		dur = shared && k != 1 ? (uint64_t)ceil((double)rem * k) : rem;
		end = start + dur;
		/*
		 * The scheduler cuts the chunk at its resched point, unless
		 * sync_point() would not preempt there: an interrupt context
		 * or interrupts off run to the end (else the chunk would be
		 * cut at the same clock for ever).
		 */
		cut = c->nrq && c->resched_at < end && preemptible(t);
		if (end <= heap_min() && !cut) {
			c->clock = end;	/* nothing can happen before it ends */
			return;
		}
		c->in_work = 1 + shared;	/* 2: a rate smt_sibling_changed() may change */
		c->work_end = end;
		if (shared)
			c->work_k = k;
		irq0 = c->irq_ps;
		sched_next_at(c, cut ? (c->resched_at > start ? c->resched_at : start) : end);
		c = &eng.cpus[t->cpu];
		c->in_work = 0;
		/* Interrupt handlers that ran meanwhile did none of this work. */
		start += c->irq_ps - irq0;
		if (c->clock > start) {
			uint64_t done = c->clock - start;

			if (shared && k != 1)	/* the work done in that time at the stretched rate */
				done = done >= dur ? rem : (uint64_t)((double)done / k);
			rem -= done < rem ? done : rem;
		}
	}
}

void sim_work_ns(double ns)
{
	if (__builtin_expect(eng.m.smt_exec_yield != 0, 0))
		work_charge(ns, 1);
	else
		work_charge(ns, 0);
}

void sim_cost_ns(double ns)
{
	sim_work_ns(ns * jitter());
}

void sim_copy_bytes(size_t bytes)
{
	int s = eng.cpus[eng.running->cpu].socket;
	double bw = eng.m.bw_core_gbs, share;

	eng.copiers[s]++;
	share = eng.m.bw_socket_gbs / eng.copiers[s];
	if (share < bw)
		bw = share;
	work_charge((double)bytes / bw, 0);	/* GB/s = bytes/ns */
	eng.copiers[s]--;
}

void sim_mem_traffic(size_t bytes, double floor_ns)
{
	int s = eng.cpus[eng.running->cpu].socket;
	double ns;

	eng.copiers[s]++;
	ns = (double)bytes / (eng.m.bw_socket_gbs / eng.copiers[s]);
	work_charge(ns > floor_ns ? ns : floor_ns, 0);
	eng.copiers[s]--;
}

void sim_delay_relax(unsigned long loops)
{
	sim_prof_tag("lab_delay (relax_ns)");
	/* PAUSE latency is not a constant (jitter); a latency, not a share of the core */
	work_charge((double)loops * eng.m.relax_ns * jitter(), 0);
}

uint64_t sim_now(void)
{
	struct task *t = eng.running;

	t->sclock = 1;
	return eng.cpus[t->cpu].clock / PS_PER_NS;
}

uint64_t sim_jiffies_ns(void)
{
	uint64_t j = 1000000000ull / (uint64_t)eng.m.hz;

	return sim_now() / j * j;
}

uint64_t sim_task_cpu_ns(void)
{
	struct task *t = eng.running;

	return (t->cpu_ps + (eng.cpus[t->cpu].clock - t->run_start)) / PS_PER_NS;
}

uint64_t sim_total_cpu_ns(void)
{
	uint64_t s = eng.total_cpu_ps;

	for (int i = 0; i < eng.ncpu; i++)
		if (eng.cpus[i].curr)
			s += eng.cpus[i].clock - eng.cpus[i].curr->run_start;
	return s / PS_PER_NS;
}

uint64_t sim_elapsed_ns(void)
{
	uint64_t mx = 0;

	for (int i = 0; i < eng.ncpu; i++)
		mx = eng.cpus[i].clock > mx ? eng.cpus[i].clock : mx;
	return (mx - 1000000000ull * PS_PER_NS) / PS_PER_NS;
}
