/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's store buffer (sim/coherence.c rule 8), on generic-8 with the
 * machine's sb.entries set here:
 * - a plain store to a line another CPU owns costs its CPU a local access,
 *   not the transfer; without a store buffer it waits for the line;
 * - a locked RMW after it waits until the store has landed (one transfer
 *   after the store was made, at least);
 * - another CPU that reads the line just after the store was made gets it
 *   no earlier than the store's landing plus a transfer: nobody reads the
 *   new value before it lands;
 * - with one entry, a second store to another missing line waits for the
 *   first to land;
 * - an interrupt taken while an RMW waits for the buffer returns only once
 *   the handler's own stores have landed (IRET is serializing);
 * - a task that ends with a store buffered wakes its joiner no earlier than
 *   one that ends with a fence (the exit drains the buffer as a switch does);
 * - an IPI that arrives while the interrupt context drains is still handled.
 * The bounds use the machine's smallest transfer figure less 1 ns (sim_now()
 * truncates to whole ns), so they hold for any pair of CPUs.
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
static struct line64 x, y, priv;
static uint64_t t0, t_store, t_store2, t_rmw, t_read;
static int second_store;

#define OWNER_CPU 4
#define STORER_CPU 0
#define READER_CPU 2
#define SETTLE_NS 10000.0	/* the owner has taken both lines long before */

static void *owner(void *arg)
{
	(void)arg;
	sim_pin(OWNER_CPU);
	sim_mem(&x.v, SIM_STORE);
	x.v = 1;
	sim_mem(&y.v, SIM_STORE);
	y.v = 1;
	return NULL;
}

static void *storer(void *arg)
{
	(void)arg;
	sim_pin(STORER_CPU);
	sim_mem(&priv.v, SIM_RMW);	/* its own line from now on: the RMW below is local */
	priv.v++;
	sim_work_ns(SETTLE_NS);
	t0 = sim_now();
	sim_mem(&x.v, SIM_STORE);
	x.v = 2;
	t_store = sim_now();
	if (second_store) {
		sim_mem(&y.v, SIM_STORE);
		y.v = 2;
		t_store2 = sim_now();
	}
	sim_mem(&priv.v, SIM_RMW);
	priv.v++;
	t_rmw = sim_now();
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	sim_pin(READER_CPU);
	sim_work_ns(SETTLE_NS + 5.0);	/* just after the store was made, long before it lands */
	sim_mem(&x.v, SIM_LOAD);
	cr_expect_eq(x.v, 2, "the reader saw %lu", (unsigned long)x.v);
	t_read = sim_now();
	return NULL;
}

static int scenario(int argc, char **argv)
{
	int id[3];

	(void)argc;
	(void)argv;
	id[0] = sim_spawn(owner, NULL);
	id[1] = sim_spawn(storer, NULL);
	id[2] = sim_spawn(reader, NULL);
	for (int i = 0; i < 3; i++)
		sim_join(id[i]);
	return 0;
}

/*
 * Boot generic-8 with @entries store-buffer entries (-1: the machine file's,
 * which gives 72 from sim-11),
 * run @scen to its end and shut the engine down.
 */
static void boot_run(int entries, int (*scen)(int, char **))
{
	char err[512];

	cr_assert_eq(sim_machine_load(&mach, SIM_MACHINE_DIR, "generic-8", err, sizeof(err)), 0, "%s", err);
	if (entries >= 0)
		mach.sb_entries = entries;
	cr_assert_eq(sim_boot(&mach, 1), 0);
	cr_assert_eq(sim_run(scen, 0, NULL), 0);
	sim_shutdown();
}

static void run(int entries, int two)
{
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	memset(&priv, 0, sizeof(priv));
	second_store = two;
	boot_run(entries, scenario);
}

static double min_transfer_ns(void)
{
	double m = mach.c2c_l3_ns;

	if (mach.c2c_socket_ns < m)
		m = mach.c2c_socket_ns;
	if (mach.c2c_remote_ns < m)
		m = mach.c2c_remote_ns;
	return m - 1.0;	/* sim_now() truncates to whole ns */
}

Test(sim_sb, a_store_goes_on_and_the_rmw_after_it_waits)
{
	double xfer;

	run(32, 0);
	xfer = min_transfer_ns();
	cr_expect_lt((double)(t_store - t0), xfer / 4,
		     "the buffered store took %lu ns (a transfer is %.1f ns)", (unsigned long)(t_store - t0), xfer);
	cr_expect_geq((double)(t_rmw - t0), xfer,
		      "the RMW after it ended %lu ns after the store: it did not wait for the landing",
		      (unsigned long)(t_rmw - t0));
	cr_expect_geq((double)(t_read - t0), 2 * xfer,
		      "the reader had the new value %lu ns after the store was made: before it landed and moved",
		      (unsigned long)(t_read - t0));
}

Test(sim_sb, without_a_store_buffer_the_store_waits_for_its_line)
{
	run(0, 0);
	cr_expect_geq((double)(t_store - t0), min_transfer_ns(),
		      "the unbuffered store took %lu ns", (unsigned long)(t_store - t0));
}

Test(sim_sb, a_full_buffer_waits_for_its_oldest_store)
{
	double xfer;

	run(1, 1);
	xfer = min_transfer_ns();
	cr_expect_lt((double)(t_store - t0), xfer / 4, "the first store took %lu ns", (unsigned long)(t_store - t0));
	cr_expect_geq((double)(t_store2 - t0), xfer,
		      "the second store went on after %lu ns with the one entry taken", (unsigned long)(t_store2 - t0));
	run(2, 1);
	cr_expect_lt((double)(t_store2 - t0), xfer / 4,
		     "with two entries the second store took %lu ns", (unsigned long)(t_store2 - t0));
}

/*
 * An interrupt taken while a locked RMW waits for the buffered stores: the
 * handler's own store must land before the interrupted RMW goes on (IRET is
 * serializing), or the RMW completes with a store of its CPU still buffered.
 * The storer's store joins a queue of buffered stores to x (one per queuer),
 * so its RMW waits several transfers; the IPI arrives inside that wait
 * whatever the machine's IPI cost, as the sender aims at it by sim_now().
 */
#define QUEUERS 5
#define IPI_INTO_WAIT_NS 60	/* after the store, well before the queue drains */

static struct line64 z;
static uint64_t t_begin, t_handler;

static void until(uint64_t at)
{
	uint64_t n;

	while ((n = sim_now()) < at)
		sim_work_ns((double)(at - n));
}

static void handler(void *arg)
{
	(void)arg;
	t_handler = sim_now();
	sim_mem(&z.v, SIM_STORE);
	z.v = 2;
}

static void *z_owner(void *arg)
{
	(void)arg;
	sim_pin(7);
	sim_mem(&z.v, SIM_STORE);
	z.v = 1;
	return NULL;
}

static void *queuer(void *arg)
{
	sim_pin((int)(intptr_t)arg);
	until(t_begin - 1);
	sim_mem(&x.v, SIM_STORE);
	x.v = 3;
	return NULL;
}

static void *irq_storer(void *arg)
{
	(void)arg;
	sim_pin(STORER_CPU);
	sim_mem(&priv.v, SIM_RMW);
	priv.v++;
	until(t_begin);
	t0 = sim_now();
	sim_mem(&x.v, SIM_STORE);
	x.v = 2;
	sim_mem(&priv.v, SIM_RMW);	/* waits for x: the interrupt comes meanwhile */
	priv.v++;
	t_rmw = sim_now();
	return NULL;
}

static void *irq_sender(void *arg)
{
	(void)arg;
	sim_pin(1);
	until(t_begin + IPI_INTO_WAIT_NS - (uint64_t)mach.ipi_ns);
	sim_ipi_send(STORER_CPU, handler, NULL);
	return NULL;
}

static int irq_scenario(int argc, char **argv)
{
	int id[3 + QUEUERS], n = 0;

	(void)argc;
	(void)argv;
	t_begin = sim_now() + 5000000;	/* every task pinned and settled long before */
	id[n++] = sim_spawn(z_owner, NULL);
	id[n++] = sim_spawn(irq_storer, NULL);
	id[n++] = sim_spawn(irq_sender, NULL);
	for (int i = 0; i < QUEUERS; i++)
		id[n++] = sim_spawn(queuer, (void *)(intptr_t)(2 + i));
	for (int i = 0; i < n; i++)
		sim_join(id[i]);
	return 0;
}

Test(sim_sb, an_interrupt_in_the_rmw_wait_drains_its_stores_before_the_rmw_goes_on)
{
	memset(&x, 0, sizeof(x));
	memset(&z, 0, sizeof(z));
	memset(&priv, 0, sizeof(priv));
	boot_run(32, irq_scenario);
	cr_assert(t_handler > t0 && t_handler < t_rmw,
		  "the handler ran at %ld ns, not inside the RMW's wait (store at 0, RMW done at %ld)",
		  (long)(t_handler - t0), (long)(t_rmw - t0));
	cr_expect_geq((double)(t_rmw - t_handler), min_transfer_ns(),
		      "the RMW went on %lu ns after the handler's store: before that store landed",
		      (unsigned long)(t_rmw - t_handler));
}

/*
 * A task's last store: exit drains it (do_exit takes locks and wakes the
 * joiner through a futex), so ending on a plain store wakes the joiner no
 * earlier than ending on a fence would, less the fence's own cost.
 */
static int exit_fence;
static uint64_t t_joined;

static void *exit_worker(void *arg)
{
	(void)arg;
	sim_pin(STORER_CPU);
	until(t_begin);
	sim_mem(&x.v, SIM_STORE);
	x.v = 2;
	if (exit_fence)
		sim_mem(&x.v, SIM_FENCE);
	return NULL;
}

static void *x_owner(void *arg)
{
	(void)arg;
	sim_pin(OWNER_CPU);
	sim_mem(&x.v, SIM_STORE);
	x.v = 1;
	return NULL;
}

static int exit_scenario(int argc, char **argv)
{
	int id;

	(void)argc;
	(void)argv;
	sim_pin(1);
	t_begin = sim_now() + 5000000;
	sim_join(sim_spawn(x_owner, NULL));
	id = sim_spawn(exit_worker, NULL);
	sim_join(id);
	t_joined = sim_now();
	return 0;
}

static uint64_t exit_run(int fence)
{
	memset(&x, 0, sizeof(x));
	exit_fence = fence;
	boot_run(32, exit_scenario);
	return t_joined - t_begin;
}

Test(sim_sb, a_task_that_ends_on_a_buffered_store_wakes_its_joiner_after_it_lands)
{
	uint64_t plain = exit_run(0), fenced = exit_run(1);

	cr_expect_geq((double)plain + min_transfer_ns() / 2, (double)fenced,
		      "the joiner was back %lu ns after the last store, %lu ns with a fence: the exit did not wait for it",
		      (unsigned long)plain, (unsigned long)fenced);
}

/*
 * The first handler's store joins a queue of buffered stores to z, so the
 * interrupt context's drain lasts several transfers; a second IPI arrives
 * inside it. ipi_arrive() leaves an IPI to a running interrupt context, so
 * that context must look again after its drain (a drain after the handler
 * loop lost it: the sender's csd_lock_wait() would spin forever).
 */
static int handled;

static void first_handler(void *arg)
{
	(void)arg;
	handled++;
	sim_mem(&z.v, SIM_STORE);
	z.v = 9;
}

static void second_handler(void *arg)
{
	(void)arg;
	handled++;
}

static void *z_queuer(void *arg)
{
	sim_pin((int)(intptr_t)arg);
	until(t_begin);
	sim_mem(&z.v, SIM_STORE);
	z.v++;
	return NULL;
}

static void *interrupted(void *arg)
{
	(void)arg;
	sim_pin(STORER_CPU);
	until(t_begin + 20000);
	return NULL;
}

static void *sender(void *arg)
{
	int second = arg != NULL;

	sim_pin(second ? 7 : 1);
	/*
	 * The first handler runs about 200 ns after t_begin; the second IPI
	 * lands in its drain (225: the middle of that window on generic-8).
	 */
	until(t_begin - (uint64_t)mach.ipi_ns + (second ? 225 : -200));
	sim_ipi_send(STORER_CPU, second ? second_handler : first_handler, NULL);
	return NULL;
}

static int drain_scenario(int argc, char **argv)
{
	int id[7], n = 0;

	(void)argc;
	(void)argv;
	t_begin = sim_now() + 5000000;
	id[n++] = sim_spawn(interrupted, NULL);
	id[n++] = sim_spawn(sender, NULL);
	id[n++] = sim_spawn(sender, (void *)1);
	for (int i = 0; i < 4; i++)
		id[n++] = sim_spawn(z_queuer, (void *)(intptr_t)(2 + i));
	for (int i = 0; i < n; i++)
		sim_join(id[i]);
	return 0;
}

Test(sim_sb, an_ipi_arriving_during_the_interrupt_contexts_drain_is_handled)
{
	memset(&z, 0, sizeof(z));
	handled = 0;
	boot_run(32, drain_scenario);
	cr_expect_eq(handled, 2, "%d of the 2 IPIs handled", handled);
}

/*
 * sim_boot() takes sb.entries in the machine file's range only: with -1 a
 * store waited for an entry that was never made (the CPU's clock set to 0,
 * a second back), above SIM_SB_MAX the ring overwrote its oldest entries.
 */
Test(sim_sb, sim_boot_refuses_entries_outside_the_machine_files_range)
{
	char err[512];

	cr_assert_eq(sim_machine_load(&mach, SIM_MACHINE_DIR, "generic-8", err, sizeof(err)), 0, "%s", err);
	mach.sb_entries = -1;
	cr_expect_eq(sim_boot(&mach, 1), -1, "sim_boot() took sb_entries = -1");
	mach.sb_entries = SIM_SB_MAX + 1;
	cr_expect_eq(sim_boot(&mach, 1), -1, "sim_boot() took sb_entries = %d", SIM_SB_MAX + 1);
	mach.sb_entries = SIM_SB_MAX;
	cr_expect_eq(sim_boot(&mach, 1), 0, "sim_boot() refused sb_entries = %d", SIM_SB_MAX);
	sim_shutdown();
}

/*
 * Program order: a store that waits for its line (another CPU's read of it
 * is on its way) still lands after the CPU's earlier buffered store. The
 * storer buffers a store to x (queued behind three other CPUs' stores to x),
 * then stores to l while a reader's read of l is in flight. An observer that
 * sees the new l must find x landed: its read of x then takes one transfer at
 * most. Before the fix the l store landed at its line's arrival, and the
 * observer waited another 167 ns for x (generic-8).
 */
static struct line64 l_word;
static uint64_t t_obs_l, t_obs_x;

static void *l_owner(void *arg)
{
	(void)arg;
	sim_pin(7);
	sim_mem(&l_word.v, SIM_STORE);
	l_word.v = 1;
	return NULL;
}

static void *l_reader(void *arg)
{
	(void)arg;
	sim_pin(1);
	until(t_begin - 1);
	sim_mem(&l_word.v, SIM_LOAD);
	return NULL;
}

static void *order_storer(void *arg)
{
	(void)arg;
	sim_pin(0);
	until(t_begin);
	sim_mem(&x.v, SIM_STORE);
	x.v = 100;
	sim_mem(&l_word.v, SIM_STORE);
	l_word.v = 100;
	return NULL;
}

static void *observer(void *arg)
{
	(void)arg;
	sim_pin(5);
	until(t_begin + 120);
	sim_mem(&l_word.v, SIM_LOAD);
	cr_expect_eq(l_word.v, 100, "the observer read l = %lu", (unsigned long)l_word.v);
	t_obs_l = sim_now();
	sim_mem(&x.v, SIM_LOAD);
	cr_expect_eq(x.v, 100, "the observer read x = %lu after the new l", (unsigned long)x.v);
	t_obs_x = sim_now();
	return NULL;
}

static int order_scenario(int argc, char **argv)
{
	int id[7], n = 0;

	(void)argc;
	(void)argv;
	t_begin = sim_now() + 5000000;
	id[n++] = sim_spawn(l_owner, NULL);
	id[n++] = sim_spawn(order_storer, NULL);
	id[n++] = sim_spawn(l_reader, NULL);
	id[n++] = sim_spawn(observer, NULL);
	for (int i = 0; i < 3; i++)
		id[n++] = sim_spawn(queuer, (void *)(intptr_t)(2 + i));
	for (int i = 0; i < n; i++)
		sim_join(id[i]);
	return 0;
}

Test(sim_sb, a_store_that_waited_for_its_line_lands_after_the_earlier_buffered_one)
{
	memset(&x, 0, sizeof(x));
	memset(&l_word, 0, sizeof(l_word));
	boot_run(32, order_scenario);
	cr_expect_leq((double)(t_obs_x - t_obs_l), mach.c2c_remote_ns + 1.0,
		      "after the new l the observer waited %lu ns for x: l landed before the earlier x",
		      (unsigned long)(t_obs_x - t_obs_l));
}
