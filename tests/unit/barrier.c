/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/barrier.h on host threads:
 * - lab_barrier_wait(), 8 threads x 2000 rounds: no party returns from a
 *   round before all 8 arrived in it, and exactly one party per round is
 *   told it is the serial one; a one-party barrier never sleeps;
 * - lab_start: workers do not pass the start line before the release; the
 *   controller sees what each worker wrote before arriving, and the workers
 *   what the controller wrote before releasing (sleeping and spinning
 *   arrivals); a controller that waits for more workers than came gets
 *   -ETIMEDOUT at its deadline, and an abort release makes every worker
 *   return false; lab_start_stop() ends the workers' loops.
 * tests/sim/barrier.c runs the same checks on simulated tasks (rwlab-sim).
 */
#include <criterion/criterion.h>
#include <pthread.h>

#include "atomic.h"
#include "barrier.h"
#include "wait.h"

#define PARTIES 8
#define ROUNDS 2000

static struct lab_barrier bar;
static uint32_t arrived[ROUNDS];	/* parties counted into round k before they waited */
static uint32_t serial[ROUNDS];		/* parties told "serial" in round k */
static uint32_t early;			/* returns that saw fewer than PARTIES arrived */
static uint32_t early_round = UINT32_MAX, early_seen;	/* the first such return */

static void *barrier_party(void *arg)
{
	(void)arg;
	for (uint32_t k = 0; k < ROUNDS; k++) {
		uint32_t seen;

		atomic_fetch_add(&arrived[k], 1u);
		if (lab_barrier_wait(&bar))
			atomic_fetch_add(&serial[k], 1u);
		seen = READ_ONCE(arrived[k]);
		if (seen != PARTIES && atomic_fetch_add(&early, 1u) == 0) {
			WRITE_ONCE(early_seen, seen);
			WRITE_ONCE(early_round, k);
		}
	}
	return NULL;
}

Test(barrier, rounds_wait_for_all_parties, .timeout = 60)
{
	pthread_t tid[PARTIES];

	lab_barrier_init(&bar, PARTIES);
	for (int i = 0; i < PARTIES; i++)
		cr_assert_eq(pthread_create(&tid[i], NULL, barrier_party, NULL), 0);
	for (int i = 0; i < PARTIES; i++)
		pthread_join(tid[i], NULL);
	cr_assert_eq(early, 0, "%u returns before all %d parties arrived; first: round %u saw %u arrived",
		     early, PARTIES, early_round, early_seen);
	for (int k = 0; k < ROUNDS; k++)
		cr_assert_eq(serial[k], 1, "round %d had %u serial parties, not 1", k, serial[k]);
	cr_assert_eq(bar.count, 0, "barrier left with %u parties counted", bar.count);
	cr_assert_eq(bar.gen, ROUNDS, "%u generations for %d rounds", bar.gen, ROUNDS);
}

Test(barrier, one_party_is_always_serial)
{
	struct lab_barrier b;

	lab_barrier_init(&b, 1);
	for (int k = 0; k < 10; k++)
		cr_assert(lab_barrier_wait(&b), "round %d: the only party was not serial", k);
}

/* ---- start/stop protocol ------------------------------------------------------ */

#define WORKERS 6

struct start_test {
	struct lab_start s;
	bool spin;
	int before[WORKERS];		/* written by worker i before it arrives */
	int ctl;			/* written by the controller before it releases */
	uint32_t passed;		/* workers past the start line */
	uint32_t ran;			/* ... told to run (lab_start_arrive() true) */
	uint32_t bad_ctl;		/* ... that did not see ctl */
	uint32_t loops;			/* loop iterations before the stop */
};

struct start_arg {
	struct start_test *t;
	int i;
};

static void *start_worker(void *arg)
{
	struct start_arg *a = arg;
	struct start_test *t = a->t;
	bool run;

	t->before[a->i] = a->i + 1;
	run = t->spin ? lab_start_arrive_spin(&t->s) : lab_start_arrive(&t->s);
	atomic_fetch_add(&t->passed, 1u);
	if (!run)
		return NULL;
	atomic_fetch_add(&t->ran, 1u);
	if (t->ctl != 42)
		atomic_fetch_add(&t->bad_ctl, 1u);
	while (!lab_start_must_stop(&t->s)) {
		atomic_fetch_add(&t->loops, 1u);
		lab_sleep_ns(100000);
	}
	return NULL;
}

static void start_spawn(struct start_test *t, struct start_arg *args, pthread_t *tid, int n)
{
	for (int i = 0; i < n; i++) {
		args[i] = (struct start_arg){ t, i };
		cr_assert_eq(pthread_create(&tid[i], NULL, start_worker, &args[i]), 0);
	}
}

/* Workers wait at the start line; then they run, see ctl, and stop when told. */
static void start_release_run(bool spin, int n)
{
	static struct start_test t;
	struct start_arg args[WORKERS];
	pthread_t tid[WORKERS];

	memset(&t, 0, sizeof(t));
	lab_start_init(&t.s);
	t.spin = spin;
	start_spawn(&t, args, tid, n);
	cr_assert_eq(lab_start_wait_ready(&t.s, (unsigned int)n, -1), 0);
	for (int i = 0; i < n; i++)
		cr_assert_eq(t.before[i], i + 1, "worker %d's write before arriving is not visible", i);
	lab_sleep_ns(20000000);
	cr_assert_eq(READ_ONCE(t.passed), 0, "%u workers passed the start line before the release",
		     READ_ONCE(t.passed));
	t.ctl = 42;
	lab_start_release(&t.s, false);
	cr_assert(!lab_start_aborted(&t.s));
	/* Until a worker has looped (at most 5 s): a fixed 5 ms let none be scheduled on a loaded machine. */
	for (int ms = 0; ms < 5000 && !READ_ONCE(t.loops); ms++)
		lab_sleep_ns(1000000);
	lab_start_stop(&t.s);
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	cr_assert_eq(t.ran, (uint32_t)n, "%u of %d workers ran", t.ran, n);
	cr_assert_eq(t.bad_ctl, 0, "%u workers did not see the controller's write", t.bad_ctl);
	cr_assert_gt(t.loops, 0, "no worker looped before the stop");
}

Test(barrier, start_holds_until_release)
{
	start_release_run(false, WORKERS);
}

Test(barrier, start_spin_holds_until_release)
{
	start_release_run(true, 2);	/* spinners: no more than this machine's CPUs */
}

/* Waiting for one worker more than were created: -ETIMEDOUT at the deadline; abort releases the rest. */
Test(barrier, start_timeout_then_abort)
{
	static struct start_test t;
	struct start_arg args[WORKERS];
	pthread_t tid[WORKERS];
	uint64_t t0, waited;

	memset(&t, 0, sizeof(t));
	lab_start_init(&t.s);
	start_spawn(&t, args, tid, WORKERS);
	cr_assert_eq(lab_start_wait_ready(&t.s, WORKERS, -1), 0);
	t0 = lab_clock_ns();
	cr_assert_eq(lab_start_wait_ready(&t.s, WORKERS + 1, 30000000), -ETIMEDOUT);
	waited = lab_clock_ns() - t0;
	cr_assert_geq(waited, 30000000, "gave up after %lu ns, before the 30 ms timeout", (unsigned long)waited);
	cr_assert_eq(READ_ONCE(t.passed), 0);
	lab_start_release(&t.s, true);
	cr_assert(lab_start_aborted(&t.s));
	for (int i = 0; i < WORKERS; i++)
		pthread_join(tid[i], NULL);
	cr_assert_eq(t.passed, WORKERS, "%u of %d workers returned", t.passed, WORKERS);
	cr_assert_eq(t.ran, 0, "%u workers ran after an abort release", t.ran);
}
