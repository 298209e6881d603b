/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/spin.c - spin parking: cpu_relax() without a host cost per iteration.
 *
 * The engine records the lines a task reads between two cpu_relax() calls.
 * If the iteration only read (no store, RMW, futex, sleep, yield or work)
 * and none of those lines has changed since, sim_relax() parks the task:
 * its CPU stays busy, and it resumes when one of the lines is written
 * (wake_watchers(), from the directory), when the scheduler wants the CPU
 * (repark_deadline()), or after SPIN_PARK_MAX_NS. A spin that read a clock
 * in its last SPIN_CLOCK_MEMORY polls is never parked (engine.h says why).
 */
#include "engine.h"

void watch_detach(struct task *t)
{
	for (int i = 0; i < t->nwatch; i++) {
		struct watch *w = &t->w[i];

		*w->pprev = w->next;
		if (w->next)
			w->next->pprev = w->pprev;
	}
	t->nwatch = 0;
}

void unpark(struct task *t, uint64_t when)
{
	struct cpu *c = &eng.cpus[t->cpu];

	watch_detach(t);
	t->state = T_RUN;
	eng.st.unpark++;
	if (!c->in_irq)		/* else the handler's exit resumes it */
		cpu_push(c, c->clock > when ? c->clock : when);
}

void wake_watchers(struct line *l, uint64_t when)
{
	while (l->watchers)
		unpark(l->watchers->t, when);
}

void repark_deadline(struct cpu *c)
{
	uint64_t d;

	if (!c->curr || c->in_irq)
		return;
	if (c->curr->state == T_PARK) {
		d = c->park_deadline;
		/*
		 * need_resched() ends the park, unless preemption is off: the one
		 * spin there (qspinlock.h) does not ask, and waking it each poll
		 * would only cost host time.
		 */
		if (c->nrq && c->resched_at < d && !c->curr->preempt_off)
			d = c->resched_at > c->clock ? c->resched_at : c->clock;
		if (d != INF)
			cpu_push(c, d);
	} else if (c->in_work && c->nrq && c->resched_at < c->work_end) {
		/* Cut a work chunk short: the scheduler wants the CPU back. */
		cpu_push(c, c->resched_at > c->clock ? c->resched_at : c->clock);
	}
}

void sim_relax(void)
{
	struct task *t = eng.running;
	struct cpu *c;
	uint64_t t0;
	int park;

	sync_point(t);
	c = &eng.cpus[t->cpu];
	t0 = c->clock;
	if (t->sclock)
		t->relax_since_clock = 0;
	else if (t->relax_since_clock < SPIN_CLOCK_MEMORY)
		t->relax_since_clock++;
	park = !t->simpure && !t->sov && t->sn > 0 && t->relax_since_clock >= SPIN_CLOCK_MEMORY && !t->is_irq;
	for (int i = 0; park && i < t->sn; i++)
		if (t->w[i].l->version != t->w[i].ver)
			park = 0;
	if (park) {
		t->nwatch = t->sn;
		for (int i = 0; i < t->sn; i++) {
			struct watch *w = &t->w[i];

			w->t = t;
			w->next = w->l->watchers;
			if (w->next)
				w->next->pprev = &w->next;
			w->pprev = &w->l->watchers;
			w->l->watchers = w;
		}
		t->state = T_PARK;
		eng.st.park++;
		c->park_deadline = c->clock + SPIN_PARK_MAX_NS * PS_PER_NS;
		if (t->budget > c->clock && t->budget + 1 < c->park_deadline)
			c->park_deadline = t->budget + 1;	/* need_resched() turns true then */
		cpu_cancel(c);
		repark_deadline(c);
		sched_next(NULL);
		c = &eng.cpus[t->cpu];
	}
	c->clock += eng.dir.relax_ps;
	spin_reset(t);
	if (__builtin_expect(eng.prof != NULL, 0))
		prof_pc(__builtin_return_address(0), PROF_RELAX, c->clock - t0);
}
