/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/futex.c - futexes, sleeps and sched_yield, and their timers.
 *
 * FIFO queues per address (FUTEX_WAIT/WAKE_PRIVATE as locks/wait.h uses
 * them): cost.futex_wait_ns and cost.futex_wake_ns charged to the caller,
 * timeouts as timer events (cancelled by the task's generation). Sleeps are
 * timers (cost.syscall_ns charged); sched_yield puts the caller behind the
 * leftmost queued task, as CFS does. block_current() is how any task blocks.
 */
#include <errno.h>

#include "engine.h"

static size_t fbucket(const uint32_t *a)
{
	return (size_t)(((uintptr_t)a >> 2) * 0x9e3779b97f4a7c15ull >> 52) & (FUTEX_BUCKETS - 1);
}

static void futex_unqueue(struct task *t)
{
	struct task **pp = &eng.fq[fbucket(t->faddr)];

	while (*pp && *pp != t)
		pp = &(*pp)->fnext;
	if (*pp)
		*pp = t->fnext;
	t->faddr = NULL;
}

void block_current(struct task *t, enum tstate st, int64_t timeout_ps)
{
	struct cpu *c = &eng.cpus[t->cpu];

	if (!preemptible(t))
		irq_bug("blocks with interrupts or preemption off or in an interrupt handler");
	t->tgen++;
	if (timeout_ps >= 0)
		heap_push(c->clock + (uint64_t)timeout_ps, EV_TIMER, t->id, t->tgen);
	eng.nvcsw++;
	t->nvcsw++;
	switch_out(t, st);
	sched_next(NULL);
}

int sim_futex_wait(uint32_t *uaddr, uint32_t val, int64_t timeout_ns)
{
	struct task *t = eng.running;
	struct task **pp;

	sim_prof_tag("cost.futex_wait_ns");
	sim_cost_ns(eng.m.futex_wait_ns);
	sim_sb_drain();		/* the hash bucket's spinlock (coherence.c rule 8) */
	sim_mem(uaddr, SIM_LOAD);
	spin_reset(t);
	t->simpure = 1;
	if (__atomic_load_n(uaddr, __ATOMIC_RELAXED) != val)
		return 0;
	t->faddr = uaddr;
	t->fnext = NULL;
	t->fresult = 0;
	for (pp = &eng.fq[fbucket(uaddr)]; *pp; pp = &(*pp)->fnext)
		;
	*pp = t;
	block_current(t, T_BLOCK, timeout_ns < 0 ? -1 : timeout_ns * (int64_t)PS_PER_NS);
	return t->fresult;
}

int sim_futex_wake(uint32_t *uaddr, int n)
{
	struct task *t = eng.running, **pp;
	int woke = 0;

	sim_prof_tag("cost.futex_wake_ns");
	sim_cost_ns(eng.m.futex_wake_ns);
	sim_sb_drain();		/* the hash bucket's spinlock (coherence.c rule 8) */
	t->simpure = 1;
	for (pp = &eng.fq[fbucket(uaddr)]; *pp && woke < n;) {
		struct task *w = *pp;

		if (w->faddr != uaddr) {
			pp = &w->fnext;
			continue;
		}
		*pp = w->fnext;
		w->faddr = NULL;
		w->tgen++;	/* cancel its timeout */
		wake_task(w, eng.cpus[t->cpu].clock);
		woke++;
	}
	return woke;
}

void sim_sleep_ns(uint64_t ns)
{
	struct task *t = eng.running;

	sim_prof_tag("cost.syscall_ns");
	sim_cost_ns(eng.m.syscall_ns);
	t->simpure = 1;
	block_current(t, T_SLEEP, (int64_t)(ns * PS_PER_NS));
}

void sim_yield(void)
{
	struct task *t = eng.running;
	struct cpu *c;

	sim_prof_tag("cost.syscall_ns");
	sim_cost_ns(eng.m.syscall_ns);
	t->simpure = 1;
	c = &eng.cpus[t->cpu];
	if (c->nrq && preemptible(t)) {
		sched_yield_place(c, t);
		eng.nvcsw++;
		t->nvcsw++;
		switch_out(t, T_READY);
		sched_next(NULL);
	}
}

void timer_fire(struct task *t, uint64_t now)
{
	if (t->state == T_BLOCK) {
		futex_unqueue(t);
		t->fresult = -ETIMEDOUT;
	} else if (t->state != T_SLEEP) {
		return;
	}
	wake_task(t, now);
}
