/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/sched.c - the scheduler: per-CPU run queues, wake-up, preemption.
 *
 * CFS as of v6.5 (sim/README.md): run queues ordered by vruntime; slice =
 * max(latency / nr_running, min_granularity), both scaled as the kernel
 * scales them; a woken task preempts when its vruntime is more than the
 * scaled wakeup granularity behind (sleepers get at most half a latency
 * period of credit); cost.ctxsw_ns per switch, cost.wakeup_ns onto an idle
 * CPU (the idle path's costs when the machine file lists its cpuidle
 * states: idle.c). Wake-up CPU choice: the pin; within a core binding
 * (sim_pin_core) the previous CPU if idle, else an idle sibling; else the
 * previous CPU if idle; else an idle CPU in the same L3, socket, anywhere;
 * else the previous CPU. A CPU going idle pulls the leftmost task allowed on
 * it of the longest queue.
 * sync_point() is where a running task meets a seam: preempted if due,
 * then earlier CPUs go first (sched_next()).
 */
#include <string.h>

#include "engine.h"

static uint64_t slice_ns(struct cpu *c)
{
	int nr = c->nrq + (c->curr != NULL);
	double lat = eng.m.sched_latency_ns * eng.sched_factor, gran = eng.m.sched_min_granularity_ns * eng.sched_factor;
	double s = nr > 0 ? lat / nr : lat;

	return ns_round(s > gran ? s : gran);
}

static void update_resched(struct cpu *c)
{
	if (!c->curr || !c->nrq) {
		c->resched_at = INF;
		return;
	}
	{
		uint64_t end = c->curr->run_start + slice_ns(c);

		if (end < c->resched_at)
			c->resched_at = end;
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
	c->resched_at = INF;
	update_resched(c);
	set_oncpu(t, 1, t->cpu);
}

void cpu_account(struct cpu *c, struct task *t)
{
	uint64_t d = c->clock > t->run_start ? c->clock - t->run_start : 0;

	t->cpu_ns += d;
	eng.total_cpu_ns += d;
	t->vruntime += (int64_t)d;
	t->run_start = c->clock;
	if (t->vruntime > c->min_vruntime && (!c->nrq || c->rq[0]->vruntime > c->min_vruntime))
		c->min_vruntime = c->nrq && c->rq[0]->vruntime < t->vruntime ? c->rq[0]->vruntime : t->vruntime;
}

static void rq_insert(struct cpu *c, struct task *t)
{
	int i = c->nrq++;

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
			struct task *t = rq_take(&eng.cpus[best], i);

			update_resched(&eng.cpus[best]);
			migrate_vruntime(t, &eng.cpus[best], c);
			return t;
		}
	return NULL;
}

/* The CPU's current task has left it (blocked, slept, ended, preempted). */
void cpu_pick_next(struct cpu *c)
{
	struct task *n = c->nrq ? rq_take(c, 0) : steal(c);

	c->curr = NULL;
	if (!n) {
		rcu_note_idle(c);	/* an extended quiescent state */
		c->resched_at = INF;
		cpu_cancel(c);
		idle_enter(c);		/* the idle task: a cpuidle state (idle.c) */
		return;
	}
	c->clock += ns_round(eng.m.ctxsw_ns);
	cpu_set_curr(c, n);
	cpu_push(c, c->clock);
}

void switch_out(struct task *t, enum tstate st)
{
	struct cpu *c = &eng.cpus[t->cpu];

	rcu_note_switch(c, t);
	cpu_account(c, t);
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
	int64_t floor_vr;

	if (from != c)
		migrate_vruntime(t, from, c);
	t->ready_at = now;
	/* Sleeper credit: at most half a latency period behind min_vruntime. */
	floor_vr = c->min_vruntime - (int64_t)(eng.m.sched_latency_ns * eng.sched_factor / 2);
	if (t->vruntime < floor_vr)
		t->vruntime = floor_vr;
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
	{
		struct task *cur = c->curr;
		int64_t cur_vr = cur->vruntime + (int64_t)(now > cur->run_start ? now - cur->run_start : 0);

		if (cur_vr - t->vruntime > (int64_t)(eng.m.sched_wakeup_granularity_ns * eng.sched_factor))
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
 * CPU @c's event (just taken) is due: its clock catches up; the task to
 * resume, if any (its interrupt context while a handler runs there).
 */
struct task *cpu_event(struct cpu *c)
{
	struct task *t = c->in_irq ? c->irq : c->curr;
	uint64_t time = eng.ev.cev_time[c - eng.cpus];

	if (time > c->clock)
		c->clock = time;
	if (t && t->state == T_PARK) {
		watch_detach(t);
		t->state = T_RUN;
	}
	return t;
}

/*
 * Leave the running task (its state, and its CPU's event if it has one,
 * already set) for the next event, as the scheduler loop would take it:
 * a CPU's event resumes that CPU's task straight from this one; a timer
 * or RCU event first, or none pending, goes through the loop. @yield: the
 * running task's CPU, queued at its clock first (cpu_push_pop).
 */
void sched_next(struct cpu *yield)
{
	int ci = yield ? cpu_push_pop(yield) : cpu_pop_next();

	for (;;) {
		struct task *t;

		if (ci < 0) {
			to_scheduler();
			return;
		}
		t = cpu_event(&eng.cpus[ci]);
		if (t == eng.running)
			return;
		if (t) {
			switch_to(t);
			return;
		}
		ci = cpu_pop_next();
	}
}

/* A running task meets a seam: preempt it if due, then let earlier CPUs go first. */
void sync_point(struct task *t)
{
	struct cpu *c = &eng.cpus[t->cpu];

	if (c->clock >= c->resched_at && c->nrq && preemptible(t)) {
		eng.nivcsw++;
		t->nivcsw++;
		switch_out(t, T_READY);
		sched_next(NULL);
		c = &eng.cpus[t->cpu];
	}
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

	t->budget = deadline;
	return sim_need_resched() || (deadline && eng.cpus[t->cpu].clock > deadline);
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

int sim_current_cpu(void)
{
	return eng.running->cpu;
}

int sim_task_cpu(int id)
{
	return eng.tasks[id].cpu;
}
