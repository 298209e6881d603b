/* SPDX-License-Identifier: GPL-2.0-only */
#pragma once

#include "lazy_mm.h"

struct lab_bench_lazy_opts {
	const struct lab_lazy_mm_conf *schemes;	/* none is added if missing: it is the reference */
	int nschemes;
	unsigned long round_trips;	/* pipe round trips per measurement */
	unsigned long switches;		/* switch pairs per measurement of the switch path alone */
	int reps;			/* repetitions, interleaved over the variants */
	const char *csv_path;		/* NULL: table only */
};

/*
 * `rwlab bench-lazy`: the cost of each lazy-mm scheme at one pair, relative
 * to none, measured in the same run as the plain pipe round trip.
 *
 * 1. Switch path alone: one thread on PU 0 as CPU slot 0, repeating
 *    lab_lazy_switch_to_kthread + lab_lazy_switch_to_user on one mm (no
 *    syscall): ns per kernel-thread round (grab + drop + the irq_lock stand-in).
 *    Contended: the same loop on one slot per PU (all PUs), every slot on
 *    the same mm: where refcount's shared mm_count line bounces.
 * 2. One context_switch pair on PU 0 (both threads, will-it-scale's
 *    placement): "pipe" = the bare ping-pong (write, read; no lazy-mm calls),
 *    then each scheme with the lazy switch around every read: ns per round
 *    trip, and the difference to none. A round trip has two blocks, so a
 *    scheme adds about twice its switch-path cost (1.) per round trip.
 * Variants are interleaved within each repetition so that drift on a shared
 * machine hits all of them alike; the table gives the switch path's best
 * repetition (as `rwlab bench`), the round trip's median and best. The CSV
 * has one row per repetition (iteration) and metric, as run has one per
 * iteration, appended as each repetition ends: every figure and its
 * difference to none's in the same repetition (X_over_none); its settings
 * record the reference (baseline=none, which report compares against),
 * reps=, round-trips= and switches= (not run's n=: the rows of the
 * repetitions interleave the variants, and an interrupted run keeps fewer).
 * SIGINT or SIGTERM stops it between two measurements: the repetitions that
 * ended stay (in the table and the CSV), one line says how many.
 * Returns an exit status: 0, 1 a measurement or a write failed, 2 -o cannot
 * be written (refused before anything is measured), 130 interrupted.
 */
int lab_bench_lazy_run(const struct lab_bench_lazy_opts *o);
