/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/idle.c - the idle task's path: the cpuidle state a CPU with nothing to
 * run enters, what leaving it costs, and whether waking it takes an IPI.
 *
 * Kernel: v6.11 (the lazy-mm table's v6.11.1; line numbers of
 * segzix/linux-6.11.11@323e1467a). A CPU whose last task leaves runs the
 * idle task: do_idle() sets TIF_POLLING_NRFLAG (kernel/sched/idle.c:270),
 * cpuidle_idle_call() asks the governor for a state (:223) and
 * call_cpuidle() clears the polling flag before entering it (:144);
 * MWAIT states set it again while they wait (mwait_idle_with_hints,
 * arch/x86/include/asm/mwait.h:117-138: "can obviate IPI to trigger checking
 * of need_resched"), as does the POLL state (drivers/cpuidle/poll_state.c:23);
 * an ACPI state entered by an I/O port read or HLT does not. A wake-up
 * onto an idle CPU goes through the wake list (ttwu_queue_cond() returns
 * true for an idle target, kernel/sched/core.c:3810) and
 * send_call_function_single_ipi() (kernel/smp.c:113) sends the IPI only
 * when set_nr_if_polling() finds the flag clear (kernel/sched/core.c:918,
 * :3709). The woken CPU pays the state's exit latency, then switches from
 * the idle task to the woken one (schedule_idle(), kernel/sched/idle.c:354).
 *
 * What the engine charges, from the machine file (cost.idle.N.exit_ns,
 * residency_ns and wake = poll|ipi for N = 1, 2, ...: the driver's table,
 * intel_idle's for the part or ACPI _CST through acpi_idle; state 0 is the
 * POLL state x86 always registers first, cpuidle_poll_state_init()): a task
 * woken at t onto an idle CPU runs at t + [cost.ipi_ns + cost.irq_ns when
 * the state needs an IPI] + the state's exit_ns + cost.ctxsw_ns. An IPI
 * handler reaching an idle CPU starts after the exit latency too. A file
 * without cost.idle.* keeps the lumped cost.wakeup_ns (the KVM guests and
 * generic-N: their idle path is the hypervisor's).
 *
 * The state chosen: the menu governor (drivers/cpuidle/governors/menu.c,
 * the default with NO_HZ: its rating 20 against teo's 19), ported:
 * get_typical_interval() (:164-247) over each CPU's last 8 idle durations;
 * when that prediction exceeds RESIDENCY_THRESHOLD_NS (15 us,
 * governors/gov.h:12) the next timer scaled by the bucket's correction
 * factor (:273-294); then the deepest state whose target residency and exit
 * latency fit the prediction, with a POLL choice promoted to the next state
 * (:342-398) and the tick-retention step down (:407-427); menu_update()
 * (:454-542) learns from each idle period's length.
 * Left out (said in sim/README.md): timers on idle CPUs (the engine keeps
 * none: the next timer is taken as MAX_INTERESTING, 50 ms, menu.c:27, the
 * governor's own "long"), the scheduler tick of an idle CPU and its wake-ups,
 * PM QoS latency limits (none set), iowait buckets (no task waits for I/O),
 * the switch to the idle task and the idle loop's own instructions (no
 * figure apart: cost.ctxsw_ns is a whole pipe hop of context_switch1, so it
 * is charged once per wake-up, for schedule_idle()'s switch), the waker's
 * RMW on the target's flag or wake-list line, and SMT: a sibling in a deep
 * state does not speed its partner up.
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"

/*
 * The governor works in nanoseconds, as the kernel's; the engine's clocks
 * are picoseconds (idle_t0, the wake-up times): ns_of() at the boundary.
 */
#define RESOLUTION	1024u		/* menu.c:25 */
#define DECAY		8u		/* menu.c:26 */
#define MAX_INTERESTING	50000000ull	/* menu.c:27, 50 ms */
#define RESIDENCY_THRESHOLD_NS 15000ull	/* governors/gov.h:12 */
#define NO_TIMER	((uint64_t)INT64_MAX)	/* KTIME_MAX */

static uint64_t ns_of(uint64_t ps)
{
	return ps / PS_PER_NS;
}

static int menu_select(struct cpu *c, int *stop_tick);

/* The machine file's text value of @key, or NULL. */
static const char *param_text(const char *key)
{
	for (int i = 0; i < eng.m.nparams; i++)
		if (!strcmp(eng.m.params[i].key, key))
			return eng.m.params[i].value;
	return NULL;
}

int idle_boot(void)
{
	struct idle *d = &eng.idle;

	/* state 0: POLL, which x86 always registers first (cpuidle_poll_state_init) */
	d->s[0] = (struct idle_state){ 0, 0, 0 };
	d->n = 0;
	for (int i = 1; i < IDLE_MAX_STATES; i++) {
		char k[48];
		double e, r;
		const char *w;
		int have;

		snprintf(k, sizeof(k), "cost.idle.%d.exit_ns", i);
		have = !sim_machine_number(&eng.m, k, &e);
		snprintf(k, sizeof(k), "cost.idle.%d.residency_ns", i);
		have += !sim_machine_number(&eng.m, k, &r);
		snprintf(k, sizeof(k), "cost.idle.%d.wake", i);
		w = param_text(k);
		have += w != NULL;
		if (!have)
			break;
		if (have != 3 || e <= 0 || r <= 0 || (strcmp(w, "poll") && strcmp(w, "ipi"))) {
			fprintf(stderr, "rwlab-sim: %s: cost.idle.%d: exit_ns, residency_ns (both > 0) and wake "
				"(poll or ipi) go together\n", eng.m.name, i);
			return -1;
		}
		d->s[i] = (struct idle_state){ (uint64_t)(e + 0.5), (uint64_t)(r + 0.5), !strcmp(w, "ipi") };
		d->n = i + 1;
	}
	for (int i = 0; i < eng.ncpu; i++) {
		struct cpu *c = &eng.cpus[i];

		for (int b = 0; b < IDLE_BUCKETS; b++)
			c->idle_corr[b] = RESOLUTION * DECAY;	/* menu_enable_device(): unity */
		c->idle_state = -1;
		if (i && d->n) {
			/* every CPU but the first (the run's main task) starts idle, long idle */
			c->idle_t0 = c->clock;
			c->idle_state = menu_select(c, &c->idle_stop_tick);
		}
	}
	return 0;
}

/* menu.c which_bucket() without the iowait half. */
static int which_bucket(uint64_t ns)
{
	int b = 0;

	for (uint64_t lim = 10000; b < IDLE_BUCKETS - 1 && ns >= lim; lim *= 10)
		b++;
	return b;
}

/* menu.c get_typical_interval(): the average of the recent idle periods if they agree, else UINT32_MAX. */
static uint32_t typical_us(const struct cpu *c)
{
	uint32_t thresh = UINT32_MAX;

	for (;;) {
		uint32_t max = 0, avg;
		uint64_t sum = 0, variance = 0;
		int divisor = 0;

		for (int i = 0; i < IDLE_INTERVALS; i++) {
			uint32_t v = c->idle_iv[i];

			if (v <= thresh) {
				sum += v;
				divisor++;
				max = v > max ? v : max;
			}
		}
		if (!max)
			return UINT32_MAX;
		avg = (uint32_t)(sum / (uint64_t)divisor);
		for (int i = 0; i < IDLE_INTERVALS; i++) {
			uint32_t v = c->idle_iv[i];

			if (v <= thresh) {
				int64_t diff = (int64_t)v - avg;

				variance += (uint64_t)(diff * diff);
			}
		}
		variance /= (uint64_t)divisor;
		if (variance <= UINT64_MAX / 36 &&
		    (((uint64_t)avg * avg > variance * 36 && divisor * 4 >= IDLE_INTERVALS * 3) || variance <= 400))
			return avg;
		if (divisor * 4 <= IDLE_INTERVALS * 3)
			return UINT32_MAX;
		thresh = max - 1;
	}
}

static uint64_t tick_ns(void)
{
	return 1000000000ull / (uint64_t)eng.m.hz;
}

/* The first tick after @t_ps, in ps (ticks fall on whole jiffies, on every CPU alike). */
static uint64_t next_tick(uint64_t t_ps)
{
	uint64_t j = tick_ns() * PS_PER_NS;

	return (t_ps / j + 1) * j;
}

/* menu_select(): the state CPU @c enters at its idle_t0; *@stop_tick as the governor decides it. */
static int menu_select(struct cpu *c, int *stop_tick)
{
	const struct idle *d = &eng.idle;
	uint64_t tick = tick_ns(), delta_tick;
	uint32_t typ = typical_us(c);
	uint64_t predicted = typ == UINT32_MAX ? UINT64_MAX : (uint64_t)typ * 1000, latency_req;
	int idx = -1;

	if (predicted > RESIDENCY_THRESHOLD_NS) {
		uint64_t timer;

		c->idle_next_timer = MAX_INTERESTING;	/* no timer known on an idle CPU (see the header) */
		c->idle_bucket = which_bucket(c->idle_next_timer);
		timer = ((uint64_t)RESOLUTION * DECAY * 1000 / 2 +
			 c->idle_next_timer * c->idle_corr[c->idle_bucket]) / ((uint64_t)RESOLUTION * DECAY * 1000);
		predicted = timer * 1000 < predicted ? timer * 1000 : predicted;
		delta_tick = ns_of(next_tick(c->idle_t0) - c->idle_t0);
	} else {
		/* "assume ... the closest tick will occur after 1/2 of the tick period" */
		c->idle_next_timer = NO_TIMER;
		c->idle_bucket = which_bucket(NO_TIMER);
		delta_tick = tick / 2;
	}
	latency_req = predicted;	/* interactivity_req: performance_multiplier() is 1 without iowaiters */
	if (c->idle_next_timer < d->s[1].residency_ns) {
		*stop_tick = 0;		/* state 0 polls: the tick is kept */
		return 0;
	}
	for (int i = 0; i < d->n; i++) {
		const struct idle_state *s = &d->s[i];

		if (idx == -1)
			idx = i;
		if (s->residency_ns > predicted) {
			/* a physical state, not busy polling, unless a timer comes soon enough */
			if (idx == 0 && s->exit_ns <= latency_req && s->residency_ns <= c->idle_next_timer) {
				predicted = s->residency_ns;
				idx = i;
			} else if (predicted >= tick) {
				predicted = d->s[idx].residency_ns;	/* the tick is kept: the shallow choice stands */
			}
			break;
		}
		if (s->exit_ns > latency_req)
			break;
		idx = i;
	}
	*stop_tick = 1;
	if (idx == 0 || predicted < tick) {
		*stop_tick = 0;
		if (idx > 0 && d->s[idx].residency_ns > delta_tick)
			for (int i = idx - 1; i >= 0; i--) {
				idx = i;
				if (d->s[i].residency_ns <= delta_tick)
					break;
			}
	}
	return idx;
}

/* menu_update(): learn from an idle period of @measured ns (already as menu_update() takes it). */
static void menu_update(struct cpu *c, uint64_t measured)
{
	uint32_t f = c->idle_corr[c->idle_bucket];

	if (measured > c->idle_next_timer)
		measured = c->idle_next_timer;
	f -= f / DECAY;
	if (c->idle_next_timer && measured < MAX_INTERESTING)
		f += (uint32_t)((double)RESOLUTION * (double)measured / (double)c->idle_next_timer);
	else
		f += RESOLUTION;
	c->idle_corr[c->idle_bucket] = f;
	c->idle_iv[c->idle_ivp++] = (uint32_t)(measured / 1000);	/* unsigned int, as the kernel stores it */
	if (c->idle_ivp >= IDLE_INTERVALS)
		c->idle_ivp = 0;
}

/* The idle task at @c's idle_t0 picks a state (cpuidle_idle_call). */
static void select_state(struct cpu *c)
{
	c->idle_state = menu_select(c, &c->idle_stop_tick);
	eng.st.idle_enter[c->idle_state]++;
}

/* poll_idle()'s time limit (cpuidle_poll_time, drivers/cpuidle/cpuidle.c:429-453). */
static uint64_t poll_limit(void)
{
	uint64_t lim = tick_ns() / 16;	/* CPUIDLE_POLL_MAX, :419 */

	for (int i = 1; i < eng.idle.n; i++)
		if (eng.idle.s[i].residency_ns >= 10000) {	/* CPUIDLE_POLL_MIN, :418 */
			lim = eng.idle.s[i].residency_ns < lim ? eng.idle.s[i].residency_ns : lim;
			break;
		}
	return lim;
}

/*
 * What happened on idle CPU @c before @at, which the engine does not run as
 * events: POLL gives up at its time limit (menu_update() then takes the next
 * timer as the idle length) and a kept tick wakes the CPU at the next jiffy
 * (tick_wakeup: 9/10 of MAX_INTERESTING when the timer was beyond the tick);
 * each time the governor picks again. Returns with the state @c is in at @at.
 */
static void catch_up(struct cpu *c, uint64_t at)
{
	for (int k = 0; k < 64; k++) {
		uint64_t ev, measured;

		if (c->idle_state == 0)
			ev = c->idle_t0 + poll_limit() * PS_PER_NS;
		else if (!c->idle_stop_tick)
			ev = next_tick(c->idle_t0);
		else
			return;
		if (ev >= at)
			return;
		if (c->idle_state == 0)
			measured = c->idle_next_timer;
		else
			measured = c->idle_next_timer > tick_ns() ? MAX_INTERESTING / 10 * 9 : ns_of(ev - c->idle_t0);
		menu_update(c, measured);
		c->idle_t0 = ev;
		select_state(c);
	}
}

void idle_enter(struct cpu *c)
{
	if (!eng.idle.n) {
		c->idle_t0 = c->clock;
		c->idle_state = -1;
		return;
	}
	c->idle_t0 = c->clock;	/* the switch to the idle task is not charged (see the header) */
	select_state(c);
}

/*
 * The wake-up's signal reaches idle @c at @at: its state then, whether the
 * signal came before the idle task entered one (no state: returns -1), and
 * the governor's lesson (menu_update: the measured idle length less the
 * exit latency it includes, that is up to the signal).
 */
static int reached(struct cpu *c, uint64_t at)
{
	int s;

	if (at <= c->idle_t0) {
		/* before cpuidle_idle_call(): the idle task sees need_resched, enters no state */
		eng.st.idle_enter[c->idle_state]--;
		c->idle_state = -1;
		return -1;
	}
	catch_up(c, at);
	s = c->idle_state;
	menu_update(c, ns_of(at - c->idle_t0));
	c->idle_state = -1;
	return s;
}

uint64_t idle_wake(struct cpu *c, uint64_t now)
{
	int s;

	if (!eng.idle.n || c->idle_state < 0)
		return now + ps_of(eng.m.wakeup_ns * jitter());
	if (now <= c->idle_t0) {
		reached(c, now);
		return c->idle_t0 + ps_of(eng.m.ctxsw_ns * jitter());
	}
	catch_up(c, now);
	if (eng.idle.s[c->idle_state].wake_ipi) {
		eng.st.idle_wake_ipi++;
		now += ps_of((eng.m.ipi_ns + eng.m.irq_ns) * jitter());
	} else {
		eng.st.idle_wake_poll++;
	}
	s = reached(c, now);
	/* the exit latency is the driver's figure, not jittered; the switch is a kernel path */
	return now + (s >= 0 ? eng.idle.s[s].exit_ns * PS_PER_NS : 0) + ps_of(eng.m.ctxsw_ns * jitter());
}

void idle_irq(struct cpu *c, uint64_t when)
{
	int s;

	if (!eng.idle.n || c->idle_state < 0)
		return;
	s = reached(c, when);
	if (s >= 0 && c->clock < when + eng.idle.s[s].exit_ns * PS_PER_NS)
		c->clock = when + eng.idle.s[s].exit_ns * PS_PER_NS;
}

int sim_idle_stats(uint64_t *enter, int max, uint64_t *wake_ipi, uint64_t *wake_poll)
{
	for (int i = 0; i < max; i++)
		enter[i] = i < IDLE_MAX_STATES ? eng.st.idle_enter[i] : 0;
	*wake_ipi = eng.st.idle_wake_ipi;
	*wake_poll = eng.st.idle_wake_poll;
	return eng.idle.n;
}
