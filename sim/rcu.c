/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/rcu.c - Tree RCU in virtual time, as v6.2-v6.11 run it.
 *
 * Citations: kernel/rcu/tree.c and tree.h of v6.2.1 (daniellucs2002/
 * linux-6.2.1-customized @52c70098c) and v6.4.6 (lewisevans2007/linux-6.4),
 * unchanged in what follows up to v6.11 (synchronize_rcu()'s 6.9 fast path,
 * rcu_normal_wake_from_gp, is off by default):
 *   tree.h:277-281    RCU_JIFFIES_TILL_FORCE_QS = 1 + (HZ > 250) + (HZ > 500),
 *                     RCU_JIFFIES_FQS_DIV 256
 *   tree.c:4676-4684  jiffies_till_first_fqs = jiffies_till_next_fqs =
 *                     RCU_JIFFIES_TILL_FORCE_QS + nr_cpu_ids / RCU_JIFFIES_FQS_DIV
 *   tree.c:1829       rcu_gp_kthread(): waits for a request (RCU_GP_WAIT_GPS),
 *                     rcu_gp_init(), rcu_gp_fqs_loop(), rcu_gp_cleanup()
 *   tree.c:1619-1690  rcu_gp_fqs_loop(): sleeps jiffies_till_first_fqs
 *                     (swait_event_idle_timeout_exclusive, woken early when the
 *                     last quiescent state is reported), then scans: the first
 *                     scan (dyntick_save_progress_counter) reports the CPUs idle
 *                     at that moment, later ones (rcu_implicit_dynticks_qs) those
 *                     idle now or since the snapshot; every jiffies_till_next_fqs
 *   tree.c:1061       rcu_gp_kthread_wake(): a request or the last report wakes it
 *   tree.c:2321       rcu_sched_clock_irq(): the tick's rcu_qs() in user mode or
 *                     idle, then rcu_pending() -> rcu_core softirq, which first
 *                     notes a new grace period (__note_gp_changes: the CPU now
 *                     needs a quiescent state *after* it noticed) and reports one
 *                     noted since (rcu_check_quiescent_state), and runs the
 *                     callbacks whose grace period has completed (rcu_do_batch)
 *   tree.c:3532       synchronize_rcu() -> wait_rcu_gp(): a callback on the
 *                     caller's CPU (call_rcu) and wait_for_completion(): the
 *                     caller sleeps (a voluntary switch) until the callback, run
 *                     by that CPU's RCU softirq after the grace period, wakes it
 *   tree_plugin.h:310 rcu_note_context_switch(): a context switch is a quiescent
 *                     state; a task preempted inside a read-side section blocks
 *                     the grace period until it leaves the section (preemptible
 *                     RCU)
 * Callback batching: a callback registered while a grace period runs waits for
 * the next one (rcu_accelerate_cbs: rcu_seq_snap), so requests share grace
 * periods and one may wait almost two.
 *
 * The model: the GP kthread is an engine task (unbound, SCHED_OTHER: the
 * default kthread_prio is 0 without CONFIG_RCU_BOOST), so it is woken, waits
 * for a CPU and competes under the machine's scheduler. Each CPU's tick (every
 * 1/HZ, aligned) runs while it has a task or RCU callbacks (rcu_needs_cpu());
 * NO_HZ idle: an idle CPU without callbacks has none, its extended quiescent
 * state is the FQS scan's to report. A busy CPU notices a new grace period at
 * its first tick and reports at the next (or the first tick after a context
 * switch that followed the noticing). The kthread's own CPU notices at once
 * (rcu_gp_init calls __note_gp_changes for it). The work of rcu_gp_init, the
 * scans and rcu_gp_cleanup is charged nothing: no figure was found (the
 * kthread's switches are charged as any task's). Not modelled: expedited grace
 * periods, rcu_nocbs offloading, callback-overload acceleration (cbovld),
 * jiffies_till_sched_qs forcing of CPUs that never reach a tick (every busy CPU
 * here has a tick), RCU priority boosting.
 */
#include "engine.h"

static uint64_t jiffy_ps(void)
{
	return 1000000000ull * PS_PER_NS / (uint64_t)eng.m.hz;
}

/* jiffies_till_first_fqs = jiffies_till_next_fqs (tree.c:4680) */
static uint64_t fqs_jiffies(void)
{
	return (uint64_t)(1 + (eng.m.hz > 250) + (eng.m.hz > 500) + eng.ncpu / 256);
}

/* rcu_needs_cpu(): a CPU keeps its tick while it runs a task or holds callbacks not yet invoked. */
static int rcu_ticking(const struct cpu *c)
{
	return c->curr || c->rcu_cb_max > eng.rcu.completed || c->rcu_cb_head >= 0;
}

/* The tick at the next jiffy boundary after @now (ticks are aligned across CPUs). */
static uint64_t next_tick(uint64_t now)
{
	uint64_t j = jiffy_ps();

	return (now / j + 1) * j;
}

void rcu_rearm(uint64_t now)
{
	eng.rcu.dormant = 0;
	eng.rcu.gen++;
	heap_push(next_tick(now), EV_RCU_TICK, 0, eng.rcu.gen);
}

static int rcu_all_idle(void)
{
	for (int i = 0; i < eng.ncpu; i++)
		if (eng.cpus[i].curr)
			return 0;
	return 1;
}

static int rcu_gp_done(void)
{
	return eng.rcu.active && !eng.rcu.owing && !eng.rcu.blocked;
}

/* rcu_report_qs_rsp() -> rcu_gp_kthread_wake(): the last quiescent state wakes the kthread's FQS wait. */
static void rcu_kthread_wake(uint64_t now)
{
	struct task *k;

	if (eng.rcu.kthread < 0 || !eng.rcu.kthread_waiting)
		return;
	k = &eng.tasks[eng.rcu.kthread];
	if (k->state == T_BLOCK) {
		eng.rcu.kthread_waiting = 0;
		wake_task(k, now);
	}
}

static void rcu_report(struct cpu *c, uint64_t now)
{
	c->rcu_need = 0;
	eng.rcu.owing--;
	if (rcu_gp_done())
		rcu_kthread_wake(now);
}

/* A context switch on @c is a quiescent state once the CPU knows the GP; a reader switched out blocks it. */
void rcu_note_switch(struct cpu *c, struct task *t)
{
	if (!eng.rcu.active)
		return;
	if (c->rcu_need && c->rcu_seen)
		c->rcu_noted = 1;
	if (t->rcu_nest > 0 && !t->rcu_blocked) {
		t->rcu_blocked = 1;
		eng.rcu.blocked++;
	}
}

/* @c enters the idle loop (ct_idle_enter): a later FQS scan sees the extended quiescent state. */
void rcu_note_idle(struct cpu *c)
{
	if (eng.rcu.active && c->rcu_snap)
		c->rcu_idle_seen = 1;
}

/* rcu_gp_init(): every CPU owes a quiescent state; readers preempted inside a section block the GP. */
static void rcu_gp_init(uint64_t now, const struct cpu *self)
{
	/* rcu_gp_init()'s WARN_ON_ONCE(rcu_gp_in_progress()): a second init means a second GP kthread */
	if (eng.rcu.active)
		irq_bug("starts a grace period while one is active (a second GP kthread?)");
	eng.rcu.active = 1;
	eng.rcu.start = now;
	eng.rcu.owing = eng.ncpu;
	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		c->rcu_need = 1;
		c->rcu_seen = c == self;	/* rcu_gp_init's __note_gp_changes for the kthread's own CPU */
		c->rcu_noted = c->rcu_unlock_qs = c->rcu_snap = c->rcu_idle_seen = 0;
	}
	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		struct task *t = &eng.tasks[i];

		if (t->rcu_nest > 0 && t->state != T_RUN && t->state != T_PARK && !t->rcu_blocked) {
			t->rcu_blocked = 1;
			eng.rcu.blocked++;
		}
	}
	eng.rcu.gps++;
	rcu_rearm(now);
}

/*
 * rcu_gp_fqs(): the first scan (dyntick_save_progress_counter) reports the CPUs
 * idle at that moment and snapshots the others; later scans
 * (rcu_implicit_dynticks_qs) report those idle now or idle since the snapshot.
 */
static void rcu_gp_fqs(int first, uint64_t now)
{
	for (int i = 0; i < eng.ncpu && eng.rcu.owing; i++) {
		struct cpu *c = &eng.cpus[i];

		if (!c->rcu_need)
			continue;
		if (!c->curr || (!first && c->rcu_idle_seen))
			rcu_report(c, now);
		else
			c->rcu_snap = 1;
	}
	eng.rcu.fqs_scans++;
}

/*
 * The GP kthread (rcu_gp_kthread, tree.c:1829): wait for a request, init, the
 * FQS loop (rcu_gp_fqs_loop: sleep until jiffies + jiffies_till_first_fqs,
 * woken early by the last quiescent state; scan; then every
 * jiffies_till_next_fqs), cleanup; a request made during the grace period
 * starts the next one at once (rcu_gp_cleanup sets RCU_GP_FLAG_INIT).
 */
static void *rcu_gp_kthread(void *arg)
{
	struct task *me = eng.running;

	(void)arg;
	for (;;) {
		uint64_t now, deadline;
		int first = 1;

		while (eng.rcu.requested <= eng.rcu.completed) {
			eng.rcu.kthread_idle = 1;	/* RCU_GP_WAIT_GPS */
			block_current(me, T_BLOCK, -1);
		}
		eng.rcu.kthread_idle = 0;
		sync_point(me);
		now = eng.cpus[me->cpu].clock;
		rcu_gp_init(now, &eng.cpus[me->cpu]);
		/* swait_event_idle_timeout_exclusive(.., j): the timer fires at the tick that makes jiffies + j */
		deadline = (now / jiffy_ps() + fqs_jiffies()) * jiffy_ps();
		while (!rcu_gp_done()) {
			/*
			 * Every CPU reported and only readers preempted in a section hold
			 * the GP: no scan helps, sleep until the last one leaves (a reader
			 * that never runs again is then a reported simulated deadlock).
			 */
			int only_readers = !eng.rcu.owing && eng.rcu.blocked;

			eng.rcu.kthread_waiting = 1;
			block_current(me, T_BLOCK, only_readers ? -1 : (int64_t)(deadline - eng.cpus[me->cpu].clock));
			eng.rcu.kthread_waiting = 0;
			sync_point(me);
			now = eng.cpus[me->cpu].clock;
			if (rcu_gp_done())
				break;
			if (now >= deadline) {
				rcu_gp_fqs(first, now);
				first = 0;
				deadline = (now / jiffy_ps() + fqs_jiffies()) * jiffy_ps();
			}
		}
		/* rcu_gp_cleanup(): the GP ends; callbacks become due at their CPUs' next ticks */
		eng.rcu.active = 0;
		eng.rcu.completed++;
		eng.st.rcu_gp_ps += now - eng.rcu.start;	/* counted only (RWLAB_SIM_STATS) */
	}
	return NULL;
}

#define RCU_KTHREAD_SPAWNING (-2)	/* eng.rcu.kthread while the first request spawns it */

/* rcu_start_this_gp -> rcu_gp_kthread_wake: a request wakes the kthread waiting for one (made at the first). */
static void rcu_kthread_kick(uint64_t now)
{
	if (eng.rcu.kthread == RCU_KTHREAD_SPAWNING)
		return;		/* it starts soon and finds the request */
	if (eng.rcu.kthread < 0) {
		/*
		 * sim_spawn() charges its cost first and may yield: a second
		 * request meanwhile must not spawn a second kthread (two would
		 * each start a grace period, and one would wait in its FQS loop
		 * for a grace period the other had ended).
		 */
		eng.rcu.kthread = RCU_KTHREAD_SPAWNING;
		eng.detach_next = 1;
		eng.rcu.kthread = sim_spawn(rcu_gp_kthread, NULL);	/* unbound, detached: the engine's helper */
		if (eng.rcu.kthread < 0)
			irq_bug("no task slot for the RCU grace-period kthread");
		return;
	}
	if (eng.rcu.kthread_idle && eng.tasks[eng.rcu.kthread].state == T_BLOCK) {
		eng.rcu.kthread_idle = 0;
		wake_task(&eng.tasks[eng.rcu.kthread], now);
	}
}

/* rcu_do_batch on CPU @ci: wake its synchronize_rcu() callers whose grace period has completed. */
static void rcu_do_batch(int ci, uint64_t now)
{
	struct cpu *c = &eng.cpus[ci];
	int *pp = &c->rcu_cb_head;

	while (*pp >= 0) {
		struct task *t = &eng.tasks[*pp];

		if (t->rcu_wait_seq <= eng.rcu.completed) {
			*pp = t->rcu_next;
			t->rcu_next = -1;
			t->rcu_wait_seq = 0;
			if (t->state == T_BLOCK)
				wake_task(t, now);
		} else {
			pp = &t->rcu_next;
		}
	}
}

/*
 * The tick on every CPU that has one (rcu_sched_clock_irq and the RCU
 * softirq): note a new grace period, else report a quiescent state (the task
 * outside a read-side section, idle, or a switch noted since); run the
 * callbacks whose grace period has completed.
 */
void rcu_tick(uint64_t now)
{
	int useful = 0;

	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		if (!rcu_ticking(c))
			continue;
		if (eng.rcu.active && c->rcu_need) {
			if (!c->rcu_seen) {
				c->rcu_seen = 1;	/* __note_gp_changes: a QS from now on counts */
				c->rcu_noted = 0;
			} else if (!c->curr || c->rcu_noted || c->curr->rcu_nest == 0) {
				rcu_report(c, now);
			} else {
				c->rcu_unlock_qs = 1;
			}
		}
		if (c->rcu_cb_head >= 0)
			rcu_do_batch(i, now);
		/* what the next tick can still do here: report this CPU, run a due callback */
		useful |= (eng.rcu.active && c->rcu_need) || (c->rcu_cb_max > eng.rcu.completed && c->rcu_cb_head < 0) ||
			  c->rcu_cb_head >= 0;
	}
	/*
	 * Every CPU idle and no tick can report or run anything more: stop until a
	 * task runs again (cpu_set_curr re-arms) or RCU is called. Ticks of idle
	 * CPUs that hold only callbacks of a grace period held by a reader that
	 * never runs again would go on for ever: that is then a reported
	 * simulated deadlock.
	 */
	if (rcu_all_idle() && (!useful || (eng.rcu.active && !eng.rcu.owing)))
		eng.rcu.dormant = 1;
	else
		heap_push(now + jiffy_ps(), EV_RCU_TICK, 0, eng.rcu.gen);
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
		if (rcu_gp_done())
			rcu_kthread_wake(c->clock);
	}
}

int sim_rcu_read_depth(void)
{
	return eng.running->rcu_nest;
}

/* call_rcu(): the grace period its callback waits for, the next to start after now (rcu_seq_snap). */
uint64_t sim_rcu_gp_request(void)
{
	struct task *t = eng.running;
	struct cpu *c;
	uint64_t need;

	sync_point(t);
	c = &eng.cpus[t->cpu];
	need = eng.rcu.completed + 1 + (uint64_t)eng.rcu.active;
	if (need > eng.rcu.requested)
		eng.rcu.requested = need;
	if (need > c->rcu_cb_max)
		c->rcu_cb_max = need;	/* the callback sits on this CPU: its tick runs till then */
	if (eng.rcu.dormant)
		rcu_rearm(c->clock);
	if (!eng.rcu.active)
		rcu_kthread_kick(c->clock);
	return need;
}

uint64_t sim_rcu_gp_completed(void)
{
	return eng.rcu.completed;
}

/*
 * wait_for_completion() of synchronize_rcu(): sleep on this CPU's callback list
 * until the softirq of a tick after grace period @seq runs the callback.
 */
void sim_rcu_gp_wait(uint64_t seq)
{
	struct task *t = eng.running;
	struct cpu *c;
	uint64_t t0;

	sync_point(t);
	t->simpure = 1;
	if (eng.rcu.completed >= seq)
		return;
	c = &eng.cpus[t->cpu];
	t->rcu_wait_seq = seq;
	t->rcu_next = c->rcu_cb_head;
	c->rcu_cb_head = t->id;
	if (seq > c->rcu_cb_max)
		c->rcu_cb_max = seq;
	if (eng.rcu.dormant)
		rcu_rearm(c->clock);
	t0 = c->clock;
	block_current(t, T_BLOCK, -1);
	eng.st.rcu_waits++;	/* counted only (RWLAB_SIM_STATS) */
	eng.st.rcu_wait_ps += eng.cpus[t->cpu].clock - t0;
}

void sim_rcu_stats(uint64_t *gps, uint64_t *fqs_scans)
{
	*gps = eng.rcu.gps;
	*fqs_scans = eng.rcu.fqs_scans;
}
