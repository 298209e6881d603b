/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * percpu-rwsem mechanisms (locks/percpu_rwsem.c, kernel v5.8+ design):
 * - a writer waits for every reader, and readers that arrive during a write
 *   wait until up_write (they take the slow path and sleep in the queue);
 * - the first writer waits one grace period (rcu_sync_gp), a writer that
 *   arrives while another holds the lock waits none, and after the last
 *   writer readers return to the fast path;
 * - up_write's wakeup grants queued readers in FIFO order until it has
 *   granted one writer;
 * - rcu_sync=0 keeps every reader on the slow path and writers off grace
 *   periods.
 * Event counters are per thread: each thread snapshots its own.
 */
#include "config.h"
#include "actor.h"

#define BLOCK_MS 150	/* "does not get the lock" = not within this long */
#define WAKE_MS 5000	/* "gets the lock" = within this long */

static void need_events(void)
{
	if (!LAB_EVENT_COUNTS)
		cr_skip_test("built with -Devent_counts=false");
}

Test(percpu_rwsem, writer_waits_for_every_reader, .timeout = 60)
{
	struct lab_lock l;
	struct actor r1, r2, r3, w;

	need_events();
	lab_test_lock(&l, "percpu-rwsem");
	actor_start(&r1, &l, false);
	actor_start(&r2, &l, false);
	cr_assert(actor_wait(&r1, WAKE_MS) && actor_wait(&r2, WAKE_MS), "two readers did not get in");

	actor_start(&w, &l, true);
	cr_expect_not(actor_wait(&w, BLOCK_MS), "the writer got in past two readers");
	actor_finish(&r1);
	cr_expect_not(actor_wait(&w, BLOCK_MS), "the writer got in past the second reader");
	actor_finish(&r2);
	cr_assert(actor_wait(&w, WAKE_MS), "the writer never got in after the readers left");

	/* A reader arriving during the write waits for up_write. */
	actor_start(&r3, &l, false);
	cr_expect_not(actor_wait(&r3, BLOCK_MS), "a reader got in while write-held");
	actor_finish(&w);
	cr_expect(actor_wait(&r3, WAKE_MS), "the reader never got in after up_write");
	actor_finish(&r3);

	/* The lock was fresh: the first two readers went the fast way. */
	cr_expect_eq(EV(&r1.ev, percpu_rwsem_slow_read) + EV(&r2.ev, percpu_rwsem_slow_read), 0,
		     "readers of an idle lock took the slow path");
	cr_expect_eq(EV(&w.ev, rcu_sync_gp), 1, "the first writer waited %lu grace periods, not 1",
		     (unsigned long)EV(&w.ev, rcu_sync_gp));
	cr_expect_geq(EV(&w.ev, percpu_rwsem_drain_wait), 1, "the writer never slept waiting for readers");
	cr_expect_geq(EV(&w.ev, percpu_rwsem_wake_reader), 1, "up_write granted no waiting reader");
	cr_expect_geq(EV(&r3.ev, percpu_rwsem_slow_read), 1, "the reader during the write was not slow");
	cr_expect_geq(EV(&r3.ev, percpu_rwsem_queue_reader), 1, "the reader during the write did not queue");
	lab_lock_destroy(&l);
}

Test(percpu_rwsem, readers_return_to_fast_path, .timeout = 60)
{
	struct lab_lock l;
	struct lab_events before;
	uint64_t deadline, batches = 0, slow = 1;

	need_events();
	lab_test_lock(&l, "percpu-rwsem");
	lab_events_snapshot(&before);
	lab_down_write(&l);
	cr_expect_eq(ev_delta(&before, LAB_EV_rcu_sync_gp), 1, "first writer: no grace period");
	lab_up_write(&l);

	/* Batches of reads until one batch is all fast (the call_rcu callback ran). */
	deadline = lab_clock_ns() + 10ull * 1000000000ull;
	while (slow && lab_clock_ns() < deadline) {
		lab_events_snapshot(&before);
		for (int i = 0; i < 100; i++) {
			lab_down_read(&l);
			lab_up_read(&l);
		}
		slow = ev_delta(&before, LAB_EV_percpu_rwsem_slow_read);
		batches++;
		if (slow)
			lab_sleep_ns(1000000);
	}
	cr_expect_eq(slow, 0, "readers still took the slow path 10 s after the last writer");

	/* Fast again, so the next writer waits a grace period again. */
	lab_events_snapshot(&before);
	lab_down_write(&l);
	lab_up_write(&l);
	cr_expect_eq(ev_delta(&before, LAB_EV_rcu_sync_gp), 1, "writer after the return to idle: no grace period");
	printf("percpu-rwsem: fast path back after %lu batches of 100 reads\n", (unsigned long)batches);
	lab_lock_destroy(&l);
}

Test(percpu_rwsem, back_to_back_writers_share_one_grace_period, .timeout = 60)
{
	struct lab_lock l;
	struct lab_events before;
	struct actor w2;

	need_events();
	lab_test_lock(&l, "percpu-rwsem");
	lab_events_snapshot(&before);
	lab_down_write(&l);
	actor_start(&w2, &l, true);
	cr_expect_not(actor_wait(&w2, BLOCK_MS), "a second writer got in");
	lab_up_write(&l);
	cr_assert(actor_wait(&w2, WAKE_MS), "the second writer never got in");
	actor_finish(&w2);

	cr_expect_eq(ev_delta(&before, LAB_EV_rcu_sync_gp), 1, "the first writer: no grace period");
	cr_expect_eq(ev_delta(&before, LAB_EV_percpu_rwsem_wake_writer), 1, "up_write did not grant the queued writer");
	cr_expect_eq(EV(&w2.ev, rcu_sync_gp), 0, "the second writer waited for a grace period (GP_PASSED skips it)");
	cr_expect_geq(EV(&w2.ev, percpu_rwsem_queue_writer), 1, "the second writer never queued");
	lab_lock_destroy(&l);
}

Test(percpu_rwsem, wakeup_grants_readers_until_a_writer, .timeout = 60)
{
	struct lab_lock l;
	struct lab_events before;
	struct actor r1, r2, w2, r3;

	need_events();
	lab_test_lock(&l, "percpu-rwsem");
	lab_down_write(&l);
	/* Queue R1, R2, W2, R3 in this order (each gets time to queue up). */
	actor_start(&r1, &l, false);
	cr_expect_not(actor_wait(&r1, 2 * BLOCK_MS), "reader 1 got in while write-held");
	actor_start(&r2, &l, false);
	cr_expect_not(actor_wait(&r2, 2 * BLOCK_MS), "reader 2 got in while write-held");
	actor_start(&w2, &l, true);
	cr_expect_not(actor_wait(&w2, 2 * BLOCK_MS), "writer 2 got in while write-held");
	actor_start(&r3, &l, false);
	cr_expect_not(actor_wait(&r3, 2 * BLOCK_MS), "reader 3 got in while write-held");

	lab_events_snapshot(&before);
	lab_up_write(&l);
	cr_expect_eq(ev_delta(&before, LAB_EV_percpu_rwsem_wake_reader), 2, "up_write did not grant exactly R1 and R2");
	cr_expect_eq(ev_delta(&before, LAB_EV_percpu_rwsem_wake_writer), 1, "up_write did not grant W2");
	cr_expect(actor_wait(&r1, WAKE_MS) && actor_wait(&r2, WAKE_MS), "granted readers did not run");
	/* W2 owns block now and waits for R1 and R2; R3 stays queued behind it. */
	cr_expect_not(actor_wait(&w2, BLOCK_MS), "writer 2 got in past two readers");
	cr_expect_not(actor_wait(&r3, 1), "reader 3 passed writer 2");
	actor_finish(&r1);
	actor_finish(&r2);
	cr_expect(actor_wait(&w2, WAKE_MS), "writer 2 never got in");
	cr_expect_not(actor_wait(&r3, BLOCK_MS), "reader 3 got in while writer 2 holds");
	actor_finish(&w2);
	cr_expect(actor_wait(&r3, WAKE_MS), "reader 3 never got in");
	actor_finish(&r3);
	cr_expect_eq(EV(&w2.ev, percpu_rwsem_wake_reader), 1, "writer 2's up_write did not grant reader 3");
	lab_lock_destroy(&l);
}

Test(percpu_rwsem, rcu_sync_off_keeps_readers_slow, .timeout = 60)
{
	struct lab_lock l;
	struct lab_events before;

	need_events();
	lab_test_lock(&l, "percpu-rwsem:rcu_sync=0");
	lab_events_snapshot(&before);
	for (int i = 0; i < 50; i++) {
		lab_down_read(&l);
		lab_up_read(&l);
	}
	cr_expect_eq(ev_delta(&before, LAB_EV_percpu_rwsem_slow_read), 50, "rcu_sync=0: a reader went fast");
	lab_down_write(&l);
	lab_up_write(&l);
	cr_expect_eq(ev_delta(&before, LAB_EV_rcu_sync_gp), 0, "rcu_sync=0: a writer waited for a grace period");
	cr_expect_eq(lab_down_read_trylock(&l), 1, "rcu_sync=0: read trylock on a free lock");
	lab_up_read(&l);
	cr_expect_eq(ev_delta(&before, LAB_EV_percpu_rwsem_slow_read), 51, "rcu_sync=0: the trylock went fast");
	lab_lock_destroy(&l);
}
