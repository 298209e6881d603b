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

/*
 * An IPI that arrives while a task waits for a line (an RMW in flight: not
 * preemptible, one instruction) is taken after that access lands, at the
 * task's next seam, not inside the wait. On generic-8 CPU 7 owns a line;
 * CPU 1's RMW takes it (one 51.3 ns transfer), CPU 2's RMW 10 ns later is
 * queued right behind it, and an IPI reaches CPU 1 20 ns into its wait.
 * The RMWs must land in the order they were queued (CPU 1 sees the owner's
 * increment, CPU 2 sees CPU 1's), CPU 1's RMW takes its transfer and no
 * more (the handler's entry, 217 ns, is not on it), and the handler runs
 * after it. Taken inside the wait, the handler ran first and CPU 2's RMW,
 * served one transfer later, landed during it, before CPU 1's.
 */
static struct line64 queued;
static uint64_t q_begin, q_arrive, q_done, q_handler;
static uint64_t q_order[3];

#define Q_OWNER 7
#define Q_FIRST 1
#define Q_BEHIND 2
#define Q_SENDER 3

static void q_until(uint64_t at)
{
	uint64_t n;

	while ((n = sim_now()) < at)
		sim_work_ns((double)(at - n));
}

static void q_handler_fn(void *arg)
{
	(void)arg;
	q_handler = sim_now();
	seen.ran++;
}

static void *q_worker(void *arg)
{
	int i = (int)(intptr_t)arg;

	sim_pin(i == 0 ? Q_OWNER : i == 1 ? Q_FIRST : Q_BEHIND);
	q_until(i == 0 ? q_begin - 10000 : i == 1 ? q_begin : q_begin + 10);
	sim_mem(&queued.v, SIM_RMW);
	q_order[i] = queued.v++;
	if (i == 1) {
		q_done = sim_now();
		sim_work_ns(1000);	/* a seam: the interrupt is taken here */
	}
	return NULL;
}

static void *q_sender(void *arg)
{
	(void)arg;
	sim_pin(Q_SENDER);
	/* the send's queue RMW: the line's first touch, a fetch from local memory */
	q_until(q_begin + 20 - (uint64_t)mach.ipi_ns - (uint64_t)mach.mem_local_ns);
	sim_ipi_send(Q_FIRST, q_handler_fn, NULL);
	q_arrive = sim_now() + (uint64_t)mach.ipi_ns;
	return NULL;
}

static int q_scenario(int argc, char **argv)
{
	int id[4];

	(void)argc;
	(void)argv;
	sim_pin(0);
	q_begin = sim_now() + 2000000;	/* every task pinned and settled long before */
	for (int i = 0; i < 3; i++)
		id[i] = sim_spawn(q_worker, (void *)(intptr_t)i);
	id[3] = sim_spawn(q_sender, NULL);
	for (int i = 0; i < 4; i++)
		sim_join(id[i]);
	return 0;
}

Test(sim_ipi, an_ipi_during_a_line_wait_is_taken_after_the_access_lands)
{
	char err[512];

	memset(&seen, 0, sizeof(seen));
	memset(&queued, 0, sizeof(queued));
	cr_assert_eq(sim_machine_load(&mach, SIM_MACHINE_DIR, "generic-8", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sim_boot(&mach, 1), 0);
	cr_assert_eq(sim_run(q_scenario, 0, NULL), 0);
	cr_assert(q_arrive > q_begin && q_arrive < q_begin + (uint64_t)mach.c2c_l3_ns,
		  "the IPI reached CPU %d %lld ns after its RMW's request, not inside its %.1f ns wait", Q_FIRST,
		  (long long)(q_arrive - q_begin), mach.c2c_l3_ns);
	cr_expect_eq(seen.ran, 1, "handlers run: %d", seen.ran);
	cr_expect(q_order[0] == 0 && q_order[1] == 1 && q_order[2] == 2,
		  "RMWs landed out of their queue's order: the owner saw %llu, CPU %d %llu, CPU %d (queued behind) %llu",
		  (unsigned long long)q_order[0], Q_FIRST, (unsigned long long)q_order[1], Q_BEHIND,
		  (unsigned long long)q_order[2]);
	cr_expect(q_done - q_begin <= (uint64_t)mach.c2c_l3_ns + 1,
		  "CPU %d's RMW took %llu ns, one transfer is %.1f: the handler ran inside it", Q_FIRST,
		  (unsigned long long)(q_done - q_begin), mach.c2c_l3_ns);
	cr_expect(q_handler >= q_done, "the handler ran at %lld ns, before the RMW landed at %llu ns",
		  (long long)(q_handler - q_begin), (unsigned long long)(q_done - q_begin));
	sim_shutdown();
}

/*
 * A held IPI is taken at the next seam, even when the task's next access
 * waits for its line too: CPU 1 loads six lines, each last stored by
 * another CPU, back to back (a scan of per-CPU slots), and an IPI reaches
 * it during the first load's wait. The handler runs after the first load
 * has landed and before the second is made, not after the whole scan.
 */
#define SCAN_LINES 6
static struct line64 scan[SCAN_LINES];
static int scan_loaded, scan_seen;

static void scan_handler(void *arg)
{
	(void)arg;
	scan_seen = scan_loaded;
	seen.ran++;
}

static void *scan_writer(void *arg)
{
	int i = (int)(intptr_t)arg;

	sim_pin(2 + i);
	q_until(q_begin - 10000);
	sim_mem(&scan[i].v, SIM_STORE);
	scan[i].v = 1;
	return NULL;
}

static void *scanner(void *arg)
{
	(void)arg;
	sim_pin(Q_FIRST);
	q_until(q_begin);
	for (int i = 0; i < SCAN_LINES; i++) {
		sim_mem(&scan[i].v, SIM_LOAD);
		scan_loaded += (int)scan[i].v;
	}
	return NULL;
}

static void *scan_sender(void *arg)
{
	(void)arg;
	sim_pin(0);
	q_until(q_begin + 20 - (uint64_t)mach.ipi_ns - (uint64_t)mach.mem_local_ns);
	sim_ipi_send(Q_FIRST, scan_handler, NULL);
	q_arrive = sim_now() + (uint64_t)mach.ipi_ns;
	return NULL;
}

static int scan_scenario(int argc, char **argv)
{
	int id[SCAN_LINES + 2], n = 0;

	(void)argc;
	(void)argv;
	q_begin = sim_now() + 2000000;
	for (int i = 0; i < SCAN_LINES; i++)
		id[n++] = sim_spawn(scan_writer, (void *)(intptr_t)i);
	id[n++] = sim_spawn(scanner, NULL);
	id[n++] = sim_spawn(scan_sender, NULL);
	for (int i = 0; i < n; i++)
		sim_join(id[i]);
	return 0;
}

Test(sim_ipi, an_ipi_held_by_a_line_wait_is_taken_before_the_next_access)
{
	char err[512];

	memset(&seen, 0, sizeof(seen));
	memset(scan, 0, sizeof(scan));
	scan_loaded = 0;
	scan_seen = -1;
	cr_assert_eq(sim_machine_load(&mach, SIM_MACHINE_DIR, "generic-8", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sim_boot(&mach, 1), 0);
	cr_assert_eq(sim_run(scan_scenario, 0, NULL), 0);
	cr_assert(q_arrive > q_begin && q_arrive < q_begin + (uint64_t)mach.c2c_l3_ns,
		  "the IPI reached CPU %d %lld ns after its first load, not inside its %.1f ns wait", Q_FIRST,
		  (long long)(q_arrive - q_begin), mach.c2c_l3_ns);
	cr_expect_eq(scan_loaded, SCAN_LINES, "the scan saw %d of its %d stores", scan_loaded, SCAN_LINES);
	cr_expect_eq(seen.ran, 1, "handlers run: %d", seen.ran);
	cr_expect_eq(scan_seen, 1, "the handler ran after %d of the %d loads, want 1 (the one it arrived in)",
		     scan_seen, SCAN_LINES);
	sim_shutdown();
}
