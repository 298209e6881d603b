/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/barrier.h - the one barrier and the one start/stop protocol that
 * every multi-threaded user shares: the runner, the torture
 * tool, bench-lazy and the workloads that synchronise their own phases.
 *
 * Two objects, both built only on the seams (atomic.h for every shared
 * access, wait.h's lab_futex_wait()/lab_futex_wake() for every sleep), so
 * the simulated build (-DLAB_SIM=1, build/rwlab-sim) runs them unchanged
 * on simulated tasks, with every access and sleep charged to the engine:
 *
 * struct lab_barrier: a reusable barrier for a fixed number of parties,
 *   pthread_barrier_wait() semantics (POSIX.1-2017): lab_barrier_wait()
 *   returns once all @n parties of the current round have called it, and
 *   returns true to exactly one of them per round (the serial party; POSIX
 *   PTHREAD_BARRIER_SERIAL_THREAD). Rounds are told apart by a generation
 *   count, the futex word the other parties sleep on (the scheme of
 *   glibc's pre-2.23 futex barrier: count, then bump the generation).
 *
 * struct lab_start: the controller/worker start-and-stop handshake, the
 *   kernel's completion pattern twice over (include/linux/completion.h):
 *   each worker announces itself (complete() on `ready`) and sleeps until
 *   released (wait_for_completion() on `go`); the controller waits until
 *   every worker it created has arrived, then releases them all at once
 *   (complete_all()), optionally with `abort` set, meaning "return without
 *   running". `stop` ends the run: workers poll it, as locktorture's
 *   threads poll torture_must_stop() (kernel/torture.c).
 *
 * Units: counts of threads; timeouts in nanoseconds (relative, -1: none).
 *
 * Threading rules:
 * - lab_barrier_init()/lab_start_init() run before any party or worker can
 *   touch the object, and the object outlives the last of them.
 * - A barrier round has exactly @n parties; a thread calls
 *   lab_barrier_wait() once per round. More callers than @n in a round, or
 *   a party that never comes, is a caller bug (the others sleep forever).
 * - lab_start: any number of workers call lab_start_arrive() or
 *   lab_start_arrive_spin() once; one controller calls lab_start_wait_ready()
 *   (with the number of workers it actually created: when thread creation
 *   fails part-way it waits only for those), then lab_start_release() once,
 *   then lab_start_stop() whenever the run is over. The object is reusable
 *   after every worker has returned (joined): lab_start_init() again.
 *
 * Memory ordering:
 * - Barrier: everything a party did before lab_barrier_wait() happens
 *   before everything any party does after it returns in that round (each
 *   arrival is a fully ordered RMW; the serial party's release store of the
 *   generation pairs with the others' acquire loads).
 * - Start: a worker's writes before lab_start_arrive() happen before the
 *   controller's return from lab_start_wait_ready() (release add / acquire
 *   load of `ready`); the controller's writes before lab_start_release()
 *   happen before every worker's return from lab_start_arrive() (release
 *   store / acquire load of `go`), `abort` included.
 * - Stop: `stop` is a relaxed flag, as locktorture's: it only ends loops.
 *   Results travel back through thread join (or another release/acquire).
 */
#pragma once

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "wait.h"

/* ---- barrier ------------------------------------------------------------------ */

struct lab_barrier {
	uint32_t count;		/* parties arrived in the current round */
	uint32_t gen;		/* rounds completed (wraps); the futex word waiters sleep on */
	uint32_t n;		/* parties per round, >= 1 */
};

/* lab_barrier_init() - a barrier for @n >= 1 parties (pthread_barrier_init). */
static inline void lab_barrier_init(struct lab_barrier *b, unsigned int n)
{
	b->count = 0;
	b->gen = 0;
	b->n = n;
}

/*
 * lab_barrier_wait() - arrive and sleep until all parties of this round have
 * arrived. Returns true in exactly one party per round (the last to arrive,
 * which wakes the others), false in the rest.
 */
static inline bool lab_barrier_wait(struct lab_barrier *b)
{
	/* Read before arriving: once we have counted, the round may end at any time. */
	uint32_t gen = smp_load_acquire(&b->gen);

	if (atomic_add_return(&b->count, 1u) == b->n) {
		/* No party of the next round can count before it sees the new gen. */
		WRITE_ONCE(b->count, 0u);
		smp_store_release(&b->gen, gen + 1);
		lab_futex_wake(&b->gen, INT_MAX);
		return true;
	}
	while (smp_load_acquire(&b->gen) == gen)
		lab_futex_wait(&b->gen, gen, -1);	/* spurious or -EINTR: re-check */
	return false;
}

/* ---- start/stop protocol -------------------------------------------------------- */

/* How often lab_start_wait_ready() re-reads the count even without a wake (ns). */
#define LAB_START_POLL_NS 50000000

struct lab_start {
	uint32_t ready;		/* workers that have arrived; the controller's futex word */
	uint32_t go;		/* 0 until lab_start_release(); the workers' futex word */
	uint32_t abort;		/* 1: released without a run, workers return at once */
	uint32_t stop;		/* 1: the run is over (lab_start_stop()) */
};

/* lab_start_init() - a fresh handshake: nobody arrived, not released, not stopped. */
static inline void lab_start_init(struct lab_start *s)
{
	s->ready = 0;
	s->go = 0;
	s->abort = 0;
	s->stop = 0;
}

/* Worker: count this thread as arrived and wake the controller. */
static inline void __lab_start_announce(struct lab_start *s)
{
	atomic_fetch_add_release(&s->ready, 1u);
	lab_futex_wake(&s->ready, 1);
}

/*
 * lab_start_arrive() - worker: announce arrival, then sleep until released.
 * Returns true to run, false when the controller released with abort.
 */
static inline bool lab_start_arrive(struct lab_start *s)
{
	__lab_start_announce(s);
	while (!smp_load_acquire(&s->go))
		lab_futex_wait(&s->go, 0, -1);
	return !READ_ONCE(s->abort);
}

/*
 * lab_start_arrive_spin() - lab_start_arrive() that busy-waits (cpu_relax())
 * for the release instead of sleeping: for microbenchmarks whose threads
 * must leave the start line together, without one futex wake-up latency per
 * thread between the first and the last. Each waiter burns its CPU.
 */
static inline bool lab_start_arrive_spin(struct lab_start *s)
{
	__lab_start_announce(s);
	while (!smp_load_acquire(&s->go))
		cpu_relax();
	return !READ_ONCE(s->abort);
}

/*
 * lab_start_wait_ready() - controller: sleep until @created workers have
 * arrived, re-reading the count at least every LAB_START_POLL_NS.
 * @timeout_ns: give up after this long (relative ns), or -1 to wait for good.
 * Returns 0, or -ETIMEDOUT (fewer arrived; the caller decides: usually
 * lab_start_release(s, true) and join).
 */
static inline int lab_start_wait_ready(struct lab_start *s, unsigned int created, int64_t timeout_ns)
{
	uint64_t end = timeout_ns < 0 ? UINT64_MAX : lab_clock_ns() + (uint64_t)timeout_ns;

	for (uint32_t r; (r = smp_load_acquire(&s->ready)) < created;) {
		int64_t nap = LAB_START_POLL_NS;

		if (timeout_ns >= 0) {
			uint64_t now = lab_clock_ns();

			if (now >= end)
				return -ETIMEDOUT;
			if (end - now < (uint64_t)nap)
				nap = (int64_t)(end - now);
		}
		lab_futex_wait(&s->ready, r, nap);
	}
	return 0;
}

/*
 * lab_start_release() - controller: release every waiting worker at once;
 * with @abort they return false from lab_start_arrive*() and must not run.
 */
static inline void lab_start_release(struct lab_start *s, bool abort)
{
	if (abort)
		WRITE_ONCE(s->abort, 1u);
	smp_store_release(&s->go, 1u);
	lab_futex_wake(&s->go, INT_MAX);
}

/* lab_start_aborted() - controller: was the release an abort? */
static inline bool lab_start_aborted(struct lab_start *s)
{
	return READ_ONCE(s->abort);
}

/* lab_start_stop() - controller: tell the workers the run is over. */
static inline void lab_start_stop(struct lab_start *s)
{
	WRITE_ONCE(s->stop, 1u);
}

/* lab_start_must_stop() - worker: is the run over? (torture_must_stop()) */
static inline bool lab_start_must_stop(struct lab_start *s)
{
	return READ_ONCE(s->stop);
}
