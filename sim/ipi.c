/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/ipi.c - interrupts: IPIs and the CPUs' interrupt contexts.
 *
 * An IPI as the x86 kernel's smp_call_function_many() sends it: the sender
 * queues a request on the target's call_single_queue (an RMW on that line:
 * llist_add) and signals the target's APIC; the interrupt arrives
 * cost.ipi_ns later. The target CPU then takes it at once, whatever runs
 * there (a task mid-work, a parked spinner, nothing; a task whose access
 * waits for its line's transfer, one instruction in flight, once that access
 * has landed, at its next seam): it spends
 * cost.irq_ns on interrupt entry and exit, takes the whole queue (an RMW on
 * the same line: llist_del_all) and runs every handler that has arrived, in
 * its interrupt context (a per-CPU engine task), then resumes the task it
 * interrupted. That task stays current meanwhile: no context switch is
 * charged or counted, on_cpu stays 1, and a work chunk it was in takes the
 * handler's time on top. A task with interrupts off (sim_irq_disable) gets
 * the IPI when it turns them on again, and is never preempted meanwhile.
 * The sender does not wait here: native code that waits (the kernel's
 * wait=1) spins on its request's flag, as the kernel's csd_lock_wait() does.
 * Not modelled: the APIC's ICR write cost (no published figure; the send
 * costs the sender only the queue RMW), x2APIC cluster multicast.
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"

void irq_bug(const char *what)
{
	fprintf(stderr, "rwlab-sim: task %d %s\n", eng.running ? eng.running->id : -1, what);
	abort();
}

static void irq_exit(struct cpu *c)
{
	struct task *p = c->curr;

	c->in_irq = 0;
	c->in_work = c->saved_in_work;
	c->work_end = c->saved_work_end;
	c->irq_ps += c->clock - c->irq_t0;
	if (!p) {
		if (c->nrq) {
			cpu_pick_next(c);	/* a task woken onto this idle CPU meanwhile */
		} else {
			cpu_cancel(c);
			smt_sibling_changed(c);	/* the handler is done: idle again */
			idle_enter(c);		/* back to the idle loop: a state chosen again */
		}
		return;
	}
	if (p->state == T_PARK) {
		cpu_cancel(c);
		repark_deadline(c);
	} else {
		cpu_push(c, c->clock);	/* resume it: a work chunk deducts the handler's time */
	}
}

/* The interrupt context of CPU @arg: runs every arrived handler, then gives the CPU back. */
static void *irq_main(void *arg)
{
	struct cpu *c = arg;
	int ci = (int)(c - eng.cpus);

	for (;;) {
		sim_prof_tag("cost.irq_ns");
		sim_work_ns(eng.m.irq_ns);
		while (c->ipi_head && c->ipi_head->at <= c->clock) {
			sim_mem(&eng.irq.csq[ci].head, SIM_RMW);	/* llist_del_all */
			while (c->ipi_head && c->ipi_head->at <= c->clock) {
				struct sim_ipi *q = c->ipi_head;

				c->ipi_head = q->next;
				q->fn(q->arg);
				eng.st.ipi_handled++;
				q->next = eng.irq.pool;
				eng.irq.pool = q;
			}
			/*
			 * IRET is serializing (Intel SDM vol. 3A, "Serializing
			 * Instructions"): the handlers' buffered stores land
			 * before the interrupted code goes on, else a store or
			 * RMW interrupted in its wait for the buffer (coherence.c
			 * rule 8) resumes past them unwaited. Inside the loop: an
			 * IPI that arrives meanwhile is taken here, as
			 * ipi_arrive() leaves it to this context.
			 */
			sim_sb_drain();
		}
		irq_exit(c);
		to_scheduler();
	}
	return NULL;
}

/* Enter CPU @c's interrupt context at its clock; the caller returns to the scheduler. */
static void irq_enter(struct cpu *c)
{
	if (!c->irq) {
		int id = task_alloc(irq_main, c, STACK_SIZE);

		if (id < 0)
			irq_bug("finds no task slot for an interrupt context");
		eng.live_tasks--;		/* never ends; not a task of the run */
		c->irq = &eng.tasks[id];
		c->irq->is_irq = 1;
		c->irq->detached = 1;
		c->irq->cpu = c->irq->pin = (int)(c - eng.cpus);
		c->irq->pin_core = -1;
	}
	eng.st.ipi_busy += c->curr != NULL;
	c->in_irq = 1;
	c->irq->state = T_RUN;
	c->irq_t0 = c->clock;
	c->saved_in_work = c->in_work;
	c->saved_work_end = c->work_end;
	c->in_work = 0;
	smt_sibling_changed(c);	/* an idle CPU's handler runs */
	cpu_push(c, c->clock);	/* cancels the interrupted task's event */
}

/* EV_IPI: an IPI reaches CPU @c at @when. */
void ipi_arrive(struct cpu *c, uint64_t when)
{
	if (c->in_irq || !c->ipi_head || c->ipi_head->at > when)
		return;		/* being handled, or handled already */
	if (c->curr && c->curr->irq_off) {
		eng.st.ipi_deferred++;
		return;		/* sim_irq_enable() takes it */
	}
	if (c->line_wait) {
		c->ipi_held = 1;	/* an access in flight lands first (coherence.c line_wait) */
		return;
	}
	if (c->clock < when)
		c->clock = when;
	if (!c->curr)
		idle_irq(c, when);	/* out of its idle state first: the exit latency */
	irq_enter(c);
}

void sim_ipi_send(int cpu, void (*fn)(void *), void *arg)
{
	struct task *t = eng.running;
	struct cpu *c = &eng.cpus[cpu];
	struct sim_ipi *q, **pp;

	if (cpu == t->cpu) {
		/* Two CPU slots on one simulated CPU: the handler runs here at once. */
		eng.st.ipi_local++;
		fn(arg);
		return;
	}
	sim_mem(&eng.irq.csq[cpu].head, SIM_RMW);	/* llist_add on the target's queue */
	q = eng.irq.pool;
	if (q)
		eng.irq.pool = q->next;
	else
		q = eng_alloc(sizeof(*q));
	q->at = eng.cpus[t->cpu].clock + ps_of(eng.m.ipi_ns);
	q->fn = fn;
	q->arg = arg;
	for (pp = &c->ipi_head; *pp && (*pp)->at <= q->at; pp = &(*pp)->next)
		;
	q->next = *pp;
	*pp = q;
	eng.st.ipi_sent++;
	heap_push(q->at, EV_IPI, cpu, 0);
}

void sim_irq_disable(void)
{
	eng.running->irq_off++;
}

void sim_irq_enable(void)
{
	struct task *t = eng.running;
	struct cpu *c = &eng.cpus[t->cpu];

	if (--t->irq_off || c->in_irq || !c->ipi_head || c->ipi_head->at > c->clock)
		return;
	irq_enter(c);		/* what arrived while they were off */
	to_scheduler();
}
