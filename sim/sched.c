/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/sched.c - the scheduler: per-CPU run queues, wake-up, preemption.
 *
 * The machine file names the kernel's scheduler (sim/README.md):
 * CFS (v6.5 and before: kernel/sched/fair.c of v4.20-v6.5): run queues
 * ordered by vruntime; slice = max(latency / nr_running, min_granularity),
 * both scaled as the kernel scales them; a woken task preempts when its
 * vruntime is more than the scaled wakeup granularity behind (sleepers get
 * at most half a latency period of credit).
 * EEVDF (v6.6 on: 147f3efaa241 and its follow-ups in fair.c and features.h;
 * every task nice 0, so weights are equal): a task is eligible when its
 * vruntime is at most the queue's average (its lag is >= 0); the CPU runs
 * the eligible task with the earliest virtual deadline (pick_eevdf), and
 * RUN_TO_PARITY keeps the picked one running while it stays eligible and
 * until its deadline (vruntime + base_slice, scaled as above) is renewed;
 * a task that sleeps keeps its lag (PLACE_LAG: limited to max(2 slices, a
 * tick), scaled by (n + 1) / n when it is placed among n) and a new task
 * starts with half a slice (PLACE_DEADLINE_INITIAL); a wake-up preempts
 * only when pick_eevdf() picks the woken task; sched_yield() pushes the
 * deadline back a slice. Left out: DELAY_DEQUEUE (v6.12), PREEMPT_SHORT
 * (every task has the default slice here), RUN_TO_PARITY's v6.17 limit.
 * Both: cost.ctxsw_ns per switch; a task woken onto an idle CPU runs after
 * the idle path (idle.c: the cpuidle state's exit latency, an IPI where it
 * does not poll; cost.wakeup_ns where the machine file lists no states).
 * Wake-up CPU choice: the pin; within a core binding (sim_pin_core) the
 * previous CPU if idle, else an idle sibling; else the previous CPU if idle;
 * else an idle CPU in the same L3, socket, anywhere; else the previous CPU.
 * A CPU going idle pulls the leftmost task allowed on it of the longest
 * queue.
 * sync_point() is where a running task meets a seam: preempted if due,
 * then earlier CPUs go first (sched_next()); a work charge takes only the
 * first half (sync_preempt()) and lets earlier CPUs go at its chunk's end.
 */
#include <string.h>

#include "engine.h"

static uint64_t slice_ps(struct cpu *c)
{
	int nr = c->nrq + (c->curr != NULL);
	double lat = eng.m.sched_latency_ns * eng.sched_factor, gran = eng.m.sched_min_granularity_ns * eng.sched_factor;
	double s = nr > 0 ? lat / nr : lat;

	return ps_of(s > gran ? s : gran);
}

/* ---- EEVDF (the machine's sched = eevdf) ---------------------------------------------- */

static int64_t eevdf_slice(void)
{
	return (int64_t)ps_of(eng.m.sched_base_slice_ns * eng.sched_factor);
}

/* The running task's vruntime, its current run included. */
static int64_t curr_vr(const struct cpu *c)
{
	const struct task *t = c->curr;

	return t->vruntime + (int64_t)(c->clock > t->run_start ? c->clock - t->run_start : 0);
}

/* The queue's vruntime sum and count, the running task included (avg_vruntime; equal weights). */
static int queue_sum(const struct cpu *c, int64_t *sum)
{
	int n = 0;

	*sum = 0;
	if (c->curr && c->curr->state == T_RUN && !c->curr->is_irq) {
		*sum += curr_vr(c);
		n++;
	}
	for (int i = 0; i < c->nrq; i++) {
		*sum += c->rq[i]->vruntime;
		n++;
	}
	return n;
}

__extension__ typedef __int128 wide;

/* entity_eligible(): lag >= 0, that is vruntime * n <= sum. */
static int eligible(int64_t vr, int64_t sum, int n)
{
	return (wide)vr * n <= (wide)sum;
}

/*
 * pick_eevdf(): with @cur (the running task, or NULL), the task to run:
 * RUN_TO_PARITY keeps @cur while it is eligible and protected; else the
 * eligible task with the earliest deadline (the one with the smallest
 * vruntime when none is: cannot happen with exact sums, kept as a guard).
 * Returns the index in the run queue, or -1 for @cur.
 */
static int pick_eevdf(const struct cpu *c, const struct task *cur)
{
	int64_t sum, cur_v = cur ? curr_vr(c) : 0;
	int n = queue_sum(c, &sum), best = -2, low = -1;

	if (!cur && c->curr && c->curr->state == T_RUN) {
		sum -= curr_vr(c);	/* the running task is leaving: not a candidate, not in V */
		n--;
	}
	if (cur && eligible(cur_v, sum, n)) {
		if (cur->protect)
			return -1;
		best = -1;
	}
	for (int i = 0; i < c->nrq; i++) {
		const struct task *t = c->rq[i];
		int64_t bd = best == -1 ? cur->deadline : best >= 0 ? c->rq[best]->deadline : 0;

		if (low < 0 || t->vruntime < c->rq[low]->vruntime)
			low = i;
		if (eligible(t->vruntime, sum, n) && (best == -2 || t->deadline < bd))
			best = i;
	}
	return best == -2 ? (low >= 0 ? low : -1) : best;
}

/* update_deadline(): the running task reached its deadline: a new slice, no longer protected. */
static void eevdf_renew(struct cpu *c)
{
	struct task *t = c->curr;
	int64_t v = curr_vr(c);

	if (v >= t->deadline) {
		t->deadline = v + eevdf_slice();
		t->protect = 0;
	}
}

/*
 * place_entity() with PLACE_LAG and PLACE_DEADLINE_INITIAL: @t joins @c's
 * queue at the queue's average vruntime less its lag.
 */
static void eevdf_place(struct cpu *c, struct task *t)
{
	int64_t sum, lag = t->vlag, slice = eevdf_slice();
	int n = queue_sum(c, &sum);

	if (t->fresh) {
		lag = 0;
		t->fresh = 0;
		t->vruntime = n ? sum / n : c->min_vruntime;
		t->deadline = t->vruntime + slice / 2;
		return;
	}
	if (n)
		lag = lag * (n + 1) / n;
	t->vruntime = (n ? sum / n : c->min_vruntime) - lag;
	t->deadline = t->vruntime + slice;
}

/* update_entity_lag() at dequeue: vlag = V - v, limited to max(2 slices, a tick). */
static void eevdf_save_lag(struct cpu *c, struct task *t)
{
	int64_t sum, limit = 2 * eevdf_slice(), tick = (int64_t)(1000000000ull * PS_PER_NS / (uint64_t)eng.m.hz);
	int n = queue_sum(c, &sum);

	if (tick > limit)
		limit = tick;
	/* @t has just been accounted and is still counted in queue_sum as curr or queued */
	t->vlag = n ? sum / n - t->vruntime : 0;
	if (t->vlag > limit)
		t->vlag = limit;
	if (t->vlag < -limit)
		t->vlag = -limit;
}

static void update_resched(struct cpu *c)
{
	uint64_t end;

	if (!c->curr || !c->nrq) {
		c->resched_at = INF;
		return;
	}
	if (eng.m.sched_eevdf) {
		/* the running task's vruntime reaches its deadline (accounted at run_start) */
		int64_t left = c->curr->deadline - c->curr->vruntime;

		end = c->curr->run_start + (uint64_t)(left > 0 ? left : 0);
	} else {
		end = c->curr->run_start + slice_ps(c);
	}
	/*
	 * The slice's end is noticed at the next scheduler tick (CFS's
	 * check_preempt_tick, EEVDF's update_curr from task_tick_fair; HRTICK
	 * is off by default in features.h); ticks fall on whole jiffies.
	 */
	{
		uint64_t j = 1000000000ull * PS_PER_NS / (uint64_t)eng.m.hz;

		end = (end + j - 1) / j * j;
	}
	if (end < c->resched_at)
		c->resched_at = end;
}

/*
 * EEVDF at a resched point: renew the running task's deadline if it reached
 * it, and keep it running if pick_eevdf() still picks it (no switch).
 */
static int eevdf_keeps(struct cpu *c)
{
	struct task *t = c->curr;

	cpu_account(c, t);
	eevdf_renew(c);
	if (pick_eevdf(c, t) != -1)
		return 0;
	t->protect = 1;		/* picked again: set_next_entity's RUN_TO_PARITY mark */
	c->resched_at = INF;
	update_resched(c);
	return 1;
}

void sched_yield_place(struct cpu *c, struct task *t)
{
	if (eng.m.sched_eevdf) {
		t->deadline += eevdf_slice();	/* yield_task_fair(): a slice later */
		t->protect = 0;
	} else if (t->vruntime <= c->rq[0]->vruntime) {
		t->vruntime = c->rq[0]->vruntime + 1;	/* CFS: behind the queue's leftmost task */
	}
}

void set_oncpu(struct task *t, int v, int c)
{
	if (t->oncpu_word) {
		*t->oncpu_word = v;
		line_touch_store(t->oncpu_word, c);
	}
}

void cpu_set_curr(struct cpu *c, struct task *t)
{
	if (c->clock < t->ready_at)
		eng.st.wake_early++;	/* it would run before it was made runnable */
	if (eng.rcu.dormant)
		rcu_rearm(c->clock);
	c->curr = t;
	t->cpu = (int)(c - eng.cpus);
	t->state = T_RUN;
	t->run_start = c->clock;
	t->sn = 0;
	t->simpure = 1;
	t->protect = 1;		/* EEVDF: picked (RUN_TO_PARITY) */
	c->resched_at = INF;
	update_resched(c);
	set_oncpu(t, 1, t->cpu);
	smt_sibling_changed(c);
}

void cpu_account(struct cpu *c, struct task *t)
{
	uint64_t d = c->clock > t->run_start ? c->clock - t->run_start : 0;

	t->cpu_ps += d;
	eng.total_cpu_ps += d;
	t->vruntime += (int64_t)d;
	t->run_start = c->clock;
	if (t->vruntime > c->min_vruntime && (!c->nrq || c->rq[0]->vruntime > c->min_vruntime))
		c->min_vruntime = c->nrq && c->rq[0]->vruntime < t->vruntime ? c->rq[0]->vruntime : t->vruntime;
}

static void rq_insert(struct cpu *c, struct task *t)
{
	int i = c->nrq++;

	eng.nr_queued++;
	if (t->pin < 0 && !eng.lb_armed)
		lb_arm(c->clock);

	while (i > 0 && (c->rq[i - 1]->vruntime > t->vruntime ||
			 (c->rq[i - 1]->vruntime == t->vruntime && c->rq[i - 1]->id > t->id))) {
		c->rq[i] = c->rq[i - 1];
		i--;
	}
	c->rq[i] = t;
	t->cpu = (int)(c - eng.cpus);
	t->state = T_READY;
}

static struct task *rq_take(struct cpu *c, int i)
{
	struct task *t = c->rq[i];

	memmove(&c->rq[i], &c->rq[i + 1], (size_t)(c->nrq - i - 1) * sizeof(*c->rq));
	c->nrq--;
	eng.nr_queued--;
	return t;
}

static void migrate_vruntime(struct task *t, struct cpu *from, struct cpu *to)
{
	t->vruntime += to->min_vruntime - from->min_vruntime;
}

/* Newly idle balance: pull the leftmost movable task of the busiest queue. */
static struct task *steal(struct cpu *c)
{
	int best = -1, bestn = 0, me = (int)(c - eng.cpus);

	if (!eng.nr_queued)
		return NULL;	/* no queue to pull from (the scan below would find none) */
	for (int k = 1; k < eng.ncpu; k++) {
		struct cpu *o = &eng.cpus[(me + k) % eng.ncpu];

		if (o->nrq > bestn) {
			for (int i = 0; i < o->nrq; i++)
				if (task_allowed(o->rq[i], me)) {
					best = (me + k) % eng.ncpu;
					bestn = o->nrq;
					break;
				}
		}
	}
	if (best < 0)
		return NULL;
	for (int i = 0; i < eng.cpus[best].nrq; i++)
		if (task_allowed(eng.cpus[best].rq[i], me)) {
			struct task *t;

			if (eng.m.sched_eevdf)
				eevdf_save_lag(&eng.cpus[best], eng.cpus[best].rq[i]);
			t = rq_take(&eng.cpus[best], i);
			update_resched(&eng.cpus[best]);
			if (eng.m.sched_eevdf)
				eevdf_place(c, t);
			else
				migrate_vruntime(t, &eng.cpus[best], c);
			return t;
		}
	return NULL;
}

/* ---- periodic load balancing -------------------------------------------------------- */

/*
 * The kernel's periodic balancing (kernel/sched/fair.c rebalance_domains,
 * kernel/sched/topology.c sd_init): at the scheduler tick each CPU balances
 * each of its domains (here SMT core, LLC, package, machine) once its
 * interval has passed: balance_interval = the domain's CPU count in ms,
 * times busy_factor on a busy CPU (the machine file's sched.lb_busy_factor),
 * at most HZ x CPUs / 10 jiffies (max_load_balance_interval); idle CPUs are
 * balanced as the NOHZ idle balancer does, at the idle interval. A balance
 * pulls one unpinned queued task from the domain's busiest CPU when that
 * one runs at least two more tasks than this one (an imbalance a move
 * reduces). Left out: load (PELT) rather than task counts, the domain's
 * interval doubling when it finds nothing, the imbalance_pct margin,
 * migration cost (cache hotness), active balancing of running tasks.
 */
static int nr_running(const struct cpu *c)
{
	return c->nrq + (c->curr != NULL);
}

static int in_domain(int a, int b, int level)
{
	const struct place *x = &eng.place[a], *y = &eng.place[b];

	return level == 0 ? x->core == y->core : level == 1 ? x->l3 == y->l3 :
	       level == 2 ? x->socket == y->socket : 1;
}

static int unpinned_queued(const struct cpu *c)
{
	for (int i = 0; i < c->nrq; i++)
		if (c->rq[i]->pin < 0)
			return i;
	return -1;
}

/* The first task queued on @c that may run on CPU @to (its pin, its core binding), or -1. */
static int movable_queued(const struct cpu *c, int to)
{
	for (int i = 0; i < c->nrq; i++)
		if (task_allowed(c->rq[i], to))
			return i;
	return -1;
}

/* Pull one unpinned queued task of @from onto @c at @now. */
static void lb_pull(struct cpu *c, struct cpu *from, int i, uint64_t now)
{
	struct task *t;

	if (eng.m.sched_eevdf)
		eevdf_save_lag(from, from->rq[i]);
	t = rq_take(from, i);
	update_resched(from);
	if (eng.m.sched_eevdf)
		eevdf_place(c, t);
	else
		migrate_vruntime(t, from, c);
	if (!c->curr && !c->in_irq) {
		if (eng.idle.n) {
			/* the NOHZ idle balancer's kick wakes it: the idle path (idle.c) */
			uint64_t at = idle_wake(c, now);

			c->clock = c->clock > at ? c->clock : at;
		} else {
			c->clock = c->clock > now ? c->clock : now;
			c->clock += ps_of(eng.m.ctxsw_ns * jitter());
		}
		cpu_set_curr(c, t);
		cpu_push(c, c->clock);
	} else {
		rq_insert(c, t);
		update_resched(c);
	}
}

static void lb_domain(struct cpu *c, int level, uint64_t now)
{
	int me = (int)(c - eng.cpus), best = -1, bestn = nr_running(c) + 1;

	for (int o = 0; o < eng.ncpu; o++)
		if (o != me && in_domain(me, o, level) && nr_running(&eng.cpus[o]) > bestn &&
		    movable_queued(&eng.cpus[o], me) >= 0) {
			best = o;
			bestn = nr_running(&eng.cpus[o]);
		}
	if (best >= 0)
		lb_pull(c, &eng.cpus[best], movable_queued(&eng.cpus[best], me), now);
}

static int domain_weight(int cpu, int level)
{
	int *w = &eng.cpus[cpu].lb_weight[level];

	if (!*w)
		for (int o = 0; o < eng.ncpu; o++)
			*w += in_domain(cpu, o, level);
	return *w;
}

void lb_tick(uint64_t now)
{
	uint64_t j = 1000000000ull * PS_PER_NS / (uint64_t)eng.m.hz;
	uint64_t cap = (uint64_t)eng.m.hz * (uint64_t)eng.ncpu / 10 * j;
	int queued = 0;

	eng.lb_armed = 0;
	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		for (int level = 0; level < LB_LEVELS; level++) {
			uint64_t iv;

			if (now < c->next_lb[level])
				continue;
			iv = (uint64_t)domain_weight(i, level) * 1000000ull * PS_PER_NS;
			if (c->curr)
				iv *= (uint64_t)eng.m.sched_lb_busy_factor;
			iv = iv < j ? j : iv > cap ? cap : iv;
			c->next_lb[level] = now + iv;
			lb_domain(c, level, now);
		}
	}
	for (int i = 0; i < eng.ncpu; i++)
		queued |= unpinned_queued(&eng.cpus[i]) >= 0;
	if (queued)
		lb_arm(now);
}

/* Keep the balancing tick running while an unpinned task waits in a queue. */
void lb_arm(uint64_t now)
{
	uint64_t j = 1000000000ull * PS_PER_NS / (uint64_t)eng.m.hz;

	if (eng.lb_armed)
		return;
	eng.lb_armed = 1;
	heap_push((now / j + 1) * j, EV_LB, 0, ++eng.lb_gen);
}

/* The CPU's current task has left it (blocked, slept, ended, preempted). */
void cpu_pick_next(struct cpu *c)
{
	struct task *n = !c->nrq ? steal(c) : rq_take(c, eng.m.sched_eevdf ? pick_eevdf(c, NULL) : 0);

	c->curr = NULL;
	if (!n) {
		rcu_note_idle(c);	/* an extended quiescent state */
		c->resched_at = INF;
		cpu_cancel(c);
		smt_sibling_changed(c);
		idle_enter(c);		/* the idle task: a cpuidle state (idle.c) */
		return;
	}
	c->clock += ps_of(eng.m.ctxsw_ns * jitter());
	cpu_set_curr(c, n);
	cpu_push(c, c->clock);
}

/* The runqueue lock's RMW waits for the buffered stores (coherence.c rule 8). */
void switch_sb_drain(struct cpu *c)
{
	if (c->sb_last > c->clock) {
		eng.st.sb_drain_wait++;
		c->clock = c->sb_last;
	}
	c->sb_n = 0;
}

void switch_out(struct task *t, enum tstate st)
{
	struct cpu *c = &eng.cpus[t->cpu];

	switch_sb_drain(c);
	rcu_note_switch(c, t);
	cpu_account(c, t);
	if (eng.m.sched_eevdf && st != T_READY)
		eevdf_save_lag(c, t);	/* dequeued: its lag is kept for its wake-up */
	set_oncpu(t, 0, t->cpu);
	t->state = st;
	c->curr = NULL;
	t->ready_at = c->clock;
	if (st == T_READY)
		rq_insert(c, t);
	cpu_pick_next(c);
}

static int select_cpu(struct task *t)
{
	int prev = t->cpu;

	if (t->pin >= 0)
		return t->pin;
	if (t->pin_core >= 0) {
		/*
		 * Bound to one core's CPUs (will-it-scale's hwloc core cpuset):
		 * select_idle_sibling() within it: the previous CPU if idle, else
		 * an idle sibling, else the previous CPU (kept in the core).
		 */
		int first = -1;

		if (eng.place[prev].core == t->pin_core && !eng.cpus[prev].curr)
			return prev;
		for (int o = 0; o < eng.ncpu; o++)
			if (eng.place[o].core == t->pin_core) {
				if (!eng.cpus[o].curr)
					return o;
				if (first < 0)
					first = o;
			}
		return eng.place[prev].core == t->pin_core ? prev : first;
	}
	if (!eng.cpus[prev].curr)
		return prev;
	for (int pass = 0; pass < 3; pass++)
		for (int k = 1; k < eng.ncpu; k++) {
			int o = (prev + k) % eng.ncpu;

			if (eng.cpus[o].curr)
				continue;
			if (pass == 0 && eng.cpus[o].l3 != eng.cpus[prev].l3)
				continue;
			if (pass == 1 && eng.cpus[o].socket != eng.cpus[prev].socket)
				continue;
			return o;
		}
	return prev;
}

/* Make @t runnable at @now (a futex wake, a timer). */
void wake_task(struct task *t, uint64_t now)
{
	int ci = select_cpu(t);
	struct cpu *c = &eng.cpus[ci], *from = &eng.cpus[t->cpu];

	t->ready_at = now;
	if (eng.m.sched_eevdf) {
		eevdf_place(c, t);	/* PLACE_LAG: its lag from its dequeue, on any CPU */
	} else {
		/* Sleeper credit: at most half a latency period behind min_vruntime. */
		int64_t floor_vr = c->min_vruntime - (int64_t)ps_of(eng.m.sched_latency_ns * eng.sched_factor / 2);

		if (from != c)
			migrate_vruntime(t, from, c);
		if (t->vruntime < floor_vr)
			t->vruntime = floor_vr;
	}
	if (!c->curr && c->in_irq) {
		rq_insert(c, t);	/* an idle CPU in a handler: picked at its exit */
		return;
	}
	if (!c->curr) {
		uint64_t at = idle_wake(c, now);	/* out of its idle state (idle.c) */

		c->clock = c->clock > at ? c->clock : at;
		cpu_set_curr(c, t);
		cpu_push(c, c->clock);
		return;
	}
	rq_insert(c, t);
	if (eng.m.sched_eevdf) {
		/* check_preempt_wakeup_fair(): preempt only if pick_eevdf() picks the woken task */
		int i = c->curr->is_irq ? -1 : pick_eevdf(c, c->curr);

		if (i >= 0 && c->rq[i] == t)
			c->resched_at = now;
	} else {
		struct task *cur = c->curr;
		int64_t cur_vr = cur->vruntime + (int64_t)(now > cur->run_start ? now - cur->run_start : 0);

		if (cur_vr - t->vruntime > (int64_t)ps_of(eng.m.sched_wakeup_granularity_ns * eng.sched_factor))
			c->resched_at = now;
	}
	update_resched(c);
	/*
	 * The current task's slice may have ended long before @now, while it
	 * ran alone; the preemption it is due can come no earlier than this
	 * wake-up. (Pushing the CPU's event at the old slice end ran the woken
	 * task before the time it was woken: a CPU parked or inside a work
	 * chunk has its clock behind @now.)
	 */
	if (c->resched_at < now)
		c->resched_at = now;
	repark_deadline(c);
}

/*
 * Go on from the event just taken, CPU @ci's (-1: a timer or RCU event
 * comes first, or none is pending), as the scheduler loop would: a CPU's
 * event resumes that CPU's task straight from this one; an idle CPU's is
 * passed over for the next one; -1 goes through the loop.
 */
static void sched_resume(int ci)
{
	for (;;) {
		struct task *t;

		if (ci < 0) {
			to_scheduler();
			return;
		}
		t = cpu_event(ci);
		if (t == eng.running)
			return;
		if (t) {
			switch_to(t);
			return;
		}
		ci = cpu_pop_next();
	}
}

/*
 * Leave the running task (its state, and its CPU's event if it has one,
 * already set) for the next event. @yield: the running task's CPU, queued
 * at its clock first (cpu_push_pop).
 */
void sched_next(struct cpu *yield)
{
	sched_resume(yield ? cpu_push_pop(yield, yield->clock) : cpu_pop_next());
}

/*
 * The running task's CPU @c has its next event at @time (a work chunk's
 * end or cut): one replay in the CPU tree where cpu_push() and then
 * sched_next(NULL) took two (an insert and a removal).
 */
void sched_next_at(struct cpu *c, uint64_t time)
{
	sched_resume(cpu_push_pop(c, time));
}

/* @t's CPU has reached its resched point: preempt @t if the scheduler wants the CPU. */
void sync_preempt(struct task *t)
{
	struct cpu *c = &eng.cpus[t->cpu];

	if (c->nrq && preemptible(t) && !(eng.m.sched_eevdf && eevdf_keeps(c))) {
		eng.nivcsw++;
		t->nivcsw++;
		switch_out(t, T_READY);
		sched_next(NULL);
	}
}

/* sync_point() (engine.h) at or after the resched point: preempt if due, then let earlier CPUs go first. */
void sync_point_due(struct task *t)
{
	struct cpu *c;

	sync_preempt(t);
	c = &eng.cpus[t->cpu];
	if (c->clock > heap_min())
		sched_next(c);
}

int sim_pin(int cpu)
{
	struct task *t = eng.running;

	if (cpu >= eng.ncpu)
		return -1;
	t->pin = cpu;
	t->pin_core = -1;
	if (cpu >= 0 && t->cpu != cpu) {
		/* Migrate now: leave this CPU, queue on the pinned one. */
		struct cpu *from = &eng.cpus[t->cpu];

		switch_out(t, T_SLEEP);
		wake_task(t, from->clock);
		sched_next(NULL);
	}
	return 0;
}

int sim_pin_core(int core)
{
	struct task *t = eng.running;
	int ncores = 0;

	for (int o = 0; o < eng.ncpu; o++)
		ncores = eng.place[o].core >= ncores ? eng.place[o].core + 1 : ncores;
	if (core >= ncores)
		return -1;
	t->pin = -1;
	t->pin_core = core;
	if (core >= 0 && eng.place[t->cpu].core != core) {
		struct cpu *from = &eng.cpus[t->cpu];

		switch_out(t, T_SLEEP);
		wake_task(t, from->clock);
		sched_next(NULL);
	}
	return 0;
}

int sim_need_resched(void)
{
	struct cpu *c = &eng.cpus[eng.running->cpu];

	return c->nrq && c->clock >= c->resched_at;
}

int sim_need_resched_by(uint64_t deadline)
{
	struct task *t = eng.running;

	t->budget = deadline * PS_PER_NS;
	return sim_need_resched() || (deadline && eng.cpus[t->cpu].clock > t->budget);
}

int sim_task_on_cpu(int id)
{
	return eng.tasks[id].state == T_RUN || eng.tasks[id].state == T_PARK;
}

void sim_set_oncpu_word(int *word)
{
	eng.running->oncpu_word = word;
	*word = 1;
}

void sim_preempt_disable(void)
{
	eng.running->preempt_off++;
}

void sim_preempt_enable(void)
{
	if (--eng.running->preempt_off < 0)
		irq_bug("enables preemption it had not disabled");
}

int sim_current_cpu(void)
{
	return eng.running->cpu;
}

int sim_task_cpu(int id)
{
	return eng.tasks[id].cpu;
}
