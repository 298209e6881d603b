/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's interrupts (sim_ipi_send), on generic-8: an IPI
 * runs its handler on the target CPU cost.ipi_ns after the send and
 * cost.irq_ns of interrupt entry later (plus the queue RMW), whatever runs
 * there, without a context switch; the interrupted task keeps its CPU and
 * its work takes the handler's time on top; a task with interrupts off
 * takes the IPI when it turns them on; an idle CPU takes it too. Every
 * check compares against times computed from the machine file.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"

struct line64 {
	uint64_t v;
	char pad[56];
} __attribute__((aligned(64)));

static struct sim_machine mach;
static struct line64 flag;
static int victim_id;

/* What a handler saw, and when the victim task finished. */
static struct {
	uint64_t at;
	int cpu, victim_on_cpu, ran;
} seen;
static uint64_t victim_start, victim_end, victim_csw, send_at, enable_at;
static int scenario_kind;

enum { WORK, SPIN, IDLE, IRQ_OFF, CROWDED };

#define WORK_NS 100000ull
#define CROWD_NS 3000000ull	/* longer than a slice of generic-8 */

static uint64_t irqoff_start;

static void handler(void *arg)
{
	(void)arg;
	seen.at = sim_now();
	seen.cpu = sim_current_cpu();
	seen.victim_on_cpu = sim_task_on_cpu(victim_id);
	seen.ran++;
	if (scenario_kind == SPIN) {
		sim_mem(&flag.v, SIM_STORE);
		flag.v = 1;
	}
}

static void *victim(void *arg)
{
	(void)arg;
	sim_pin(1);
	victim_start = sim_now();
	if (scenario_kind == WORK) {
		sim_work_ns(WORK_NS);
	} else if (scenario_kind == SPIN) {
		for (;;) {
			sim_mem(&flag.v, SIM_LOAD);
			if (flag.v)
				break;
			sim_relax();
		}
	} else if (scenario_kind == IRQ_OFF || scenario_kind == CROWDED) {
		sim_irq_disable();
		irqoff_start = sim_now();
		sim_work_ns(scenario_kind == CROWDED ? CROWD_NS : WORK_NS);
		enable_at = sim_now();
		sim_irq_enable();
	}
	victim_end = sim_now();
	victim_csw = sim_task_ctxsw_count(0) + sim_task_ctxsw_count(1);
	return NULL;
}

/* CROWDED: a second task on the victim's CPU, runnable all along (a preemption is due). */
static void *hog(void *arg)
{
	(void)arg;
	sim_pin(1);
	sim_work_ns(CROWD_NS);
	return NULL;
}

static int scenario(int argc, char **argv)
{
	int target = scenario_kind == IDLE ? 5 : 1, hog_id = -1;

	(void)argc;
	(void)argv;
	sim_pin(0);
	victim_id = sim_spawn(victim, NULL);
	if (scenario_kind == CROWDED)
		hog_id = sim_spawn(hog, NULL);
	sim_sleep_ns(20000);	/* the victim is pinned and busy (or CPU 5 idle) by now */
	send_at = sim_now();
	sim_ipi_send(target, handler, NULL);
	sim_sleep_ns(20000);	/* the run ends with task 0: let the IPI land first */
	sim_join(victim_id);
	if (hog_id >= 0)
		sim_join(hog_id);
	return 0;
}

static void run(int kind)
{
	char err[512];

	memset(&seen, 0, sizeof(seen));
	memset(&flag, 0, sizeof(flag));
	scenario_kind = kind;
	cr_assert_eq(sim_machine_load(&mach, SIM_MACHINE_DIR, "generic-8", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sim_boot(&mach, 1), 0);
	cr_assert_eq(sim_run(scenario, 0, NULL), 0);
}

static void finish(void)
{
	uint64_t sent, handled, busy, deferred;

	sim_ipi_stats(&sent, &handled, &busy, &deferred);
	cr_expect_eq(sent, 1, "IPIs sent: %llu", (unsigned long long)sent);
	cr_expect_eq(handled, sent, "handlers run %llu, IPIs sent %llu", (unsigned long long)handled,
		     (unsigned long long)sent);
	sim_shutdown();
}

/*
 * The handler starts after the sender's queue RMW (the line's first touch:
 * a memory fetch), the delivery, the entry and the handler's queue RMW (one
 * transfer back).
 */
static void expect_handler_time(uint64_t from)
{
	double lo = (double)from + mach.ipi_ns + mach.irq_ns;
	double hi = lo + mach.mem_remote_ns + mach.c2c_remote_ns + 2 * mach.rmw_local_ns + 2;

	cr_expect(seen.at >= (uint64_t)lo && seen.at <= (uint64_t)hi,
		  "handler at +%.0f ns after %s, model [%.0f, %.0f]", (double)(seen.at - from),
		  from == send_at ? "the send" : "the enable", lo - (double)from, hi - (double)from);
}

Test(sim_ipi, handler_interrupts_a_working_task_without_a_switch)
{
	run(WORK);
	cr_expect_eq(seen.ran, 1);
	cr_expect_eq(seen.cpu, 1, "handler ran on CPU %d", seen.cpu);
	cr_expect(seen.victim_on_cpu, "the interrupted task is still on its CPU");
	expect_handler_time(send_at);
	cr_expect_eq(victim_csw, 0, "the interrupted task was switched %llu times", (unsigned long long)victim_csw);
	/* Its work is not done by the handler: it ends later by the handler's time, no more than 1 us. */
	cr_expect(victim_end - victim_start >= WORK_NS + (uint64_t)mach.irq_ns &&
		  victim_end - victim_start <= WORK_NS + (uint64_t)mach.irq_ns + 1000,
		  "work of %llu ns took %llu ns with one interrupt (irq_ns %.0f)", WORK_NS,
		  (unsigned long long)(victim_end - victim_start), mach.irq_ns);
	finish();
}

Test(sim_ipi, handler_preempts_a_parked_spinner_which_sees_its_store)
{
	run(SPIN);
	cr_expect_eq(seen.cpu, 1);
	cr_expect(seen.victim_on_cpu);
	expect_handler_time(send_at);
	/* The spinner resumes right after the handler, on the same CPU, and sees the flag. */
	cr_expect(victim_end >= seen.at && victim_end <= seen.at + 1000, "spinner ended %lld ns after the handler",
		  (long long)(victim_end - seen.at));
	cr_expect_eq(victim_csw, 0);
	finish();
}

Test(sim_ipi, idle_cpu_takes_it)
{
	run(IDLE);
	cr_expect_eq(seen.cpu, 5);
	expect_handler_time(send_at);
	finish();
}

Test(sim_ipi, irqs_off_defer_it_to_the_enable)
{
	run(IRQ_OFF);
	cr_expect_eq(seen.cpu, 1);
	cr_expect(send_at + (uint64_t)mach.ipi_ns < enable_at, "the IPI arrived before the enable");
	cr_expect(seen.at > enable_at, "handler at %llu, before the enable at %llu", (unsigned long long)seen.at,
		  (unsigned long long)enable_at);
	cr_expect(seen.at <= enable_at + (uint64_t)mach.irq_ns + (uint64_t)mach.c2c_remote_ns + 10,
		  "handler %llu ns after the enable", (unsigned long long)(seen.at - enable_at));
	cr_expect(victim_end - victim_start >= WORK_NS, "the work ran uninterrupted");
	cr_expect_eq(victim_csw, 0);
	finish();
}

/*
 * With another task runnable on the CPU, an interrupts-off section is not
 * cut at the slice end: its work runs in one piece, and the IPI that came
 * meanwhile is handled after the enable. (The handler-side hang fixed in
 * sim_work_ns is checked by tests/sim/sim_cli.sh's oversubscribed tlb_flush.)
 */
Test(sim_ipi, crowded_cpu_irqs_off_and_handler_run_through_a_due_preemption, .timeout = 20)
{
	run(CROWDED);
	cr_expect_eq(seen.ran, 1);
	cr_expect_eq(seen.cpu, 1);
	cr_expect_eq(enable_at - irqoff_start, CROWD_NS, "the interrupts-off work took %llu ns, want %llu",
		     (unsigned long long)(enable_at - irqoff_start), CROWD_NS);
	cr_expect(seen.at > enable_at, "handler before the enable");
	finish();
}

/*
 * On an oversubscribed CPU (two busy tasks pinned to CPU 1) the scheduler's
 * resched point falls inside a work chunk that cannot be preempted: one in
 * an interrupt handler, or one with interrupts off. The chunk must run to
 * its end, not be cut at the resched point again and again at the same
 * clock (the engine looped there, tlb_flush -t 3 -m all on generic-2).
 */
#define LONG_NS 20000000ull	/* 20 ms: longer than any CFS slice of generic-8 */

static uint64_t busy_end[2], busy_t0;

static void long_handler(void *arg)
{
	(void)arg;
	seen.at = sim_now();
	seen.cpu = sim_current_cpu();
	seen.ran++;
	sim_work_ns(LONG_NS);
}

static void *busy(void *arg)
{
	int i = (int)(intptr_t)arg;

	sim_pin(1);
	if (i == 0 && scenario_kind == IRQ_OFF)
		sim_irq_disable();
	sim_work_ns(LONG_NS);
	if (i == 0 && scenario_kind == IRQ_OFF)
		sim_irq_enable();
	busy_end[i] = sim_now();
	return NULL;
}

static int oversubscribed(int argc, char **argv)
{
	int id[2];

	(void)argc;
	(void)argv;
	sim_pin(0);
	busy_t0 = sim_now();
	for (int i = 0; i < 2; i++)
		id[i] = sim_spawn(busy, (void *)(intptr_t)i);
	sim_sleep_ns(1000000);	/* both queued on CPU 1 */
	send_at = sim_now();
	if (scenario_kind == WORK)
		sim_ipi_send(1, long_handler, NULL);
	for (int i = 0; i < 2; i++)
		sim_join(id[i]);
	return 0;
}

static void run_oversubscribed(int kind)
{
	char err[512];
	uint64_t last;

	memset(&seen, 0, sizeof(seen));
	memset(busy_end, 0, sizeof(busy_end));
	scenario_kind = kind;
	cr_assert_eq(sim_machine_load(&mach, SIM_MACHINE_DIR, "generic-8", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sim_boot(&mach, 1), 0);
	cr_assert_eq(sim_run(oversubscribed, 0, NULL), 0);
	last = (busy_end[0] > busy_end[1] ? busy_end[0] : busy_end[1]) - busy_t0;
	/* One CPU did both tasks' work (and the handler's): no less, and not much more. */
	cr_expect(last >= 2 * LONG_NS + (kind == WORK ? LONG_NS : 0),
		  "both tasks done %llu ns after the start", (unsigned long long)last);
	cr_expect(last <= 2 * LONG_NS + (kind == WORK ? LONG_NS : 0) + 2000000,
		  "both tasks done %llu ns after the start", (unsigned long long)last);
	sim_shutdown();
}

Test(sim_ipi, a_long_handler_on_an_oversubscribed_cpu_runs_to_its_end, .timeout = 30)
{
	run_oversubscribed(WORK);
	cr_expect_eq(seen.ran, 1);
	cr_expect_eq(seen.cpu, 1);
}

Test(sim_ipi, irqs_off_work_on_an_oversubscribed_cpu_runs_to_its_end, .timeout = 30)
{
	run_oversubscribed(IRQ_OFF);
	/* Not preempted while interrupts were off: task 0 ran its 20 ms in one go. */
	cr_expect(busy_end[0] < busy_end[1], "the irqs-off task ended at %llu, the other at %llu",
		  (unsigned long long)busy_end[0], (unsigned long long)busy_end[1]);
}
