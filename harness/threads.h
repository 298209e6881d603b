/* SPDX-License-Identifier: GPL-2.0-only */
#pragma once

#include <stddef.h>

/*
 * Largest thread count accepted in -t: LAB_MAX_TASKS (locks/wait.h) less the
 * harness's own LAB_HARNESS_TASKS (workloads/workload.h), checked where both
 * are seen (cmd_run.c). A workload whose threads bring helpers has a lower
 * limit of its own (lab_workload_max_threads), checked by run before any cell.
 */
#define LAB_THREADS_MAX 1023
#define LAB_THREAD_LIST_MAX 256	/* entries in one -t list */

/*
 * lab_mmtests_stride() - mmtests' threads_large_stride pattern from 1 to @max
 * (bin/generate-stride-range --stride-large, docs/workloads.md §2.e):
 *   max > 32:      1 4 7 | 12 21 30 | 48 79 110 ... | max
 *   8 < max <= 32: 1 3 5 7 | 12 18 24 30 | max
 *   max <= 8:      1 3 5 7 | max
 * @max itself is appended when the sequence does not end on it.
 * Returns the count written to @out (capacity @cap).
 */
int lab_mmtests_stride(int max, int *out, int cap);

/*
 * lab_reaim_clients() - the client counts of mmtests' reaim configs for a
 * machine of @ncpus CPUs: 1, then steps of ncpus/2 (at least 1) while
 * <= ncpus*4 + ncpus/2 (docs/workloads.md §2.b; 40 CPUs: 1, 21, ..., 161).
 * Returns the count written to @out (capacity @cap).
 */
int lab_reaim_clients(int ncpus, int *out, int cap);

/*
 * lab_parse_threads() - parse a -t list: comma-separated N, A-B (inclusive),
 * A-B:STEP, "mmtests" (stride up to @ncpus), "mmtests:MAX", "reaim" (the
 * reaim client counts for @ncpus) or "reaim:NCPUS".
 * Every count must be in 1..LAB_THREADS_MAX. Duplicates are kept in order.
 * Returns the number of counts written to @out (capacity @cap), or -1 with a
 * one-line message naming the problem and the valid forms in @err.
 */
int lab_parse_threads(const char *arg, int ncpus, int *out, int cap, char *err, size_t errlen);

/*
 * lab_eval_threads() - a -t list with CPU expressions, as a matrix's threads
 * key and a published table's map.threads write it: every "cpus", "N*cpus"
 * and "cpus/D" in an entry becomes the number for @ncpus (at least 1), and a
 * plain number already in the list is dropped (cpus/2 is 1 on 2 CPUs).
 * Writes the plain -t list for lab_parse_threads() to @out (@len bytes).
 * Returns 0, or -1 with a one-line message in @err: an empty entry (",2",
 * "1,,2", "1,"), a malformed expression, or an entry or result too long.
 * Threading: pure.
 */
int lab_eval_threads(const char *expr, int ncpus, char *out, size_t len, char *err, size_t errlen);

/*
 * lab_parse_duration() - "2s", "500ms", "250us", "100ns", "1m" into
 * nanoseconds (decimals and exponents allowed, hex, nan and inf not). A
 * number needs its unit; only "0" may go without. At most 1e15 ns.
 * Returns 0 or -1.
 */
int lab_parse_duration(const char *arg, unsigned long long *ns);

/*
 * Command-line option values, for every subcommand: on a bad value print one
 * line "PROG: bad value 'ARG' for OPT (...)" naming the valid range and
 * return -1. lab_opt_count: a decimal integer in [min, max].
 * lab_opt_duration: lab_parse_duration(), and not 0 unless @allow_zero.
 */
int lab_opt_count(const char *prog, const char *opt, const char *arg, long min, long max, long *out);
int lab_opt_duration(const char *prog, const char *opt, const char *arg, int allow_zero,
		     unsigned long long *ns);
