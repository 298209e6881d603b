/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/rcu.c - RCU in virtual time: grace periods from quiescent states.
 *
 * In outline as tree RCU (kernel/rcu/tree.c, tree_plugin.h; preemptible
 * flavour): a grace period (GP) ends once every CPU has reported a
 * quiescent state (QS) after its start and every task switched out inside
 * a read-side section has left it. A CPU notes a QS at a context switch; a
 * scheduler tick (aligned across CPUs, every 1/HZ) reports it, or reports
 * one itself when the CPU's task is outside a section (a tick inside one
 * makes the outermost unlock note it). An idle CPU's tick keeps running
 * while a GP it asked for (synchronize_rcu, call_rcu) is pending, as
 * rcu_needs_cpu() keeps it, and reports its idle QS; other idle CPUs are in
 * an extended QS that the GP kthread's force-quiescent-state scans report, jiffies_till_first_fqs
 * after the start and every jiffies_till_next_fqs after that (both
 * RCU_JIFFIES_TILL_FORCE_QS + nr_cpu_ids / RCU_JIFFIES_FQS_DIV jiffies).
 * The last blocked reader's unlock reports at once. Not modelled: the tick
 * on which a CPU first notices a new GP (the kernel may need a second
 * tick), the GP kthread's own wake-up and run time, callback batching.
 */
#include "engine.h"

static uint64_t jiffy_ps(void)
{
	return 1000000000ull * PS_PER_NS / (uint64_t)eng.m.hz;
}

static uint64_t fqs_ps(void)
{
	return (uint64_t)(1 + (eng.m.hz > 250) + (eng.m.hz > 500) + eng.ncpu / 256) * jiffy_ps();
}

void rcu_rearm(uint64_t now)
{
	uint64_t j = jiffy_ps();

	eng.rcu.dormant = 0;
	eng.rcu.gen++;
	heap_push((now / j + 1) * j, EV_RCU_TICK, 0, eng.rcu.gen);
	/*
	 * A task waking does not postpone the scan already due (the kernel's
	 * FQS timer runs on): re-arming it at now + interval every time let a
	 * task that wakes more often than that (a 1 ms sleeper at HZ 1000)
	 * cancel every scan, so idle CPUs were never reported.
	 */
	if (eng.rcu.fqs_due <= now)
		eng.rcu.fqs_due = now + fqs_ps();
	heap_push(eng.rcu.fqs_due, EV_RCU_FQS, 0, eng.rcu.gen);
}

static int rcu_ticking(const struct cpu *c)
{
	return c->curr || c->rcu_cb_seq > eng.rcu.completed;
}

/*
 * No CPU runs a task: after this tick or scan nothing can report a quiescent
 * state until a task runs again (cpu_set_curr() re-arms them), so stop the
 * events; a GP held by a reader that never runs again is then a simulated
 * deadlock, reported, not an endless stream of ticks.
 */
static int rcu_all_idle(void)
{
	for (int i = 0; i < eng.ncpu; i++)
		if (eng.cpus[i].curr)
			return 0;
	return 1;
}

static void rcu_gp_start(uint64_t now)
{
	eng.rcu.active = 1;
	eng.rcu.start = now;
	eng.rcu.owing = eng.ncpu;
	eng.rcu.fqs_due = 0;	/* the first scan comes a full interval after the start */
	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		c->rcu_need = 1;
		c->rcu_noted = c->rcu_unlock_qs = 0;
		c->rcu_idle_seen = !c->curr;
	}
	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		struct task *t = &eng.tasks[i];

		if (t->rcu_nest > 0 && t->state != T_RUN && t->state != T_PARK && !t->rcu_blocked) {
			t->rcu_blocked = 1;
			eng.rcu.blocked++;
		}
	}
	rcu_rearm(now);
}

static void rcu_gp_end(uint64_t now)
{
	eng.rcu.active = 0;
	eng.rcu.dormant = 0;
	eng.rcu.completed++;
	eng.rcu.gen++;
	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		struct task *t = &eng.tasks[i];

		if (t->state == T_BLOCK && t->rcu_wait_seq && t->rcu_wait_seq <= eng.rcu.completed) {
			t->rcu_wait_seq = 0;
			wake_task(t, now);
		}
	}
	if (eng.rcu.requested > eng.rcu.completed)
		rcu_gp_start(now);
}

static void rcu_try_end(uint64_t now)
{
	if (eng.rcu.active && !eng.rcu.owing && !eng.rcu.blocked)
		rcu_gp_end(now);
}

static void rcu_report(struct cpu *c)
{
	c->rcu_need = 0;
	eng.rcu.owing--;
}

/* A context switch on @c is a quiescent state; a reader switched out blocks the GP. */
void rcu_note_switch(struct cpu *c, struct task *t)
{
	if (!eng.rcu.active)
		return;
	if (c->rcu_need)
		c->rcu_noted = 1;
	if (t->rcu_nest > 0 && !t->rcu_blocked) {
		t->rcu_blocked = 1;
		eng.rcu.blocked++;
	}
}

void rcu_tick(uint64_t now)
{
	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		if (!c->rcu_need || !rcu_ticking(c))
			continue;	/* reported, or idle without a tick: the FQS scan's */
		if (!c->curr || c->rcu_noted || c->curr->rcu_nest == 0)
			rcu_report(c);
		else
			c->rcu_unlock_qs = 1;
	}
	rcu_try_end(now);
	if (eng.rcu.active && rcu_all_idle())
		eng.rcu.dormant = 1;
	else if (eng.rcu.active)
		heap_push(now + jiffy_ps(), EV_RCU_TICK, 0, eng.rcu.gen);
}

void rcu_fqs(uint64_t now)
{
	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		if (c->rcu_need && (!c->curr || c->rcu_idle_seen))
			rcu_report(c);
	}
	rcu_try_end(now);
	if (eng.rcu.active && rcu_all_idle())
		eng.rcu.dormant = 1;
	else if (eng.rcu.active)
		heap_push(eng.rcu.fqs_due = now + fqs_ps(), EV_RCU_FQS, 0, eng.rcu.gen);
}

void sim_rcu_read_lock(void)
{
	sync_point(eng.running);
	eng.running->rcu_nest++;
}

void sim_rcu_read_unlock(void)
{
	struct task *t = eng.running;
	struct cpu *c;

	sync_point(t);
	c = &eng.cpus[t->cpu];
	if (--t->rcu_nest > 0)
		return;
	if (c->rcu_unlock_qs) {
		c->rcu_unlock_qs = 0;
		c->rcu_noted = 1;
	}
	if (t->rcu_blocked) {
		t->rcu_blocked = 0;
		eng.rcu.blocked--;
		rcu_try_end(c->clock);
	}
}

int sim_rcu_read_depth(void)
{
	return eng.running->rcu_nest;
}

uint64_t sim_rcu_gp_request(void)
{
	uint64_t need;

	sync_point(eng.running);
	need = eng.rcu.completed + 1 + (uint64_t)eng.rcu.active;
	if (need > eng.rcu.requested)
		eng.rcu.requested = need;
	eng.cpus[eng.running->cpu].rcu_cb_seq = need;
	if (!eng.rcu.active)
		rcu_gp_start(eng.cpus[eng.running->cpu].clock);
	return need;
}

uint64_t sim_rcu_gp_completed(void)
{
	return eng.rcu.completed;
}

void sim_rcu_gp_wait(uint64_t seq)
{
	struct task *t = eng.running;

	sync_point(t);
	t->simpure = 1;
	if (eng.rcu.completed >= seq)
		return;
	t->rcu_wait_seq = seq;
	block_current(t, T_BLOCK, -1);
}
