/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab exec`: a real program as a workload of the matrix.
 *
 *   rwlab exec -l VARIANTS [-n N] [--metric [NAME[:higher|:lower]=]REGEX]...
 *              [-t N] [-w LABEL] [-o FILE.csv] [-q] [--no-report] -- CMD [ARGS...]
 *
 * Runs CMD once per variant and iteration, interleaved (iteration 0 on every
 * variant, then iteration 1, ...), each time with build/librwlab-preload.so
 * in LD_PRELOAD and RWLAB_LOCK set to the variant (or "passthrough": glibc's
 * own lock, observed). Per run it records, as rwlab CSV rows:
 *   wall_s, user_s, sys_s (s; wait4 rusage of CMD and its children),
 *   nvcsw, nivcsw (voluntary / involuntary context switches), exit_status,
 *   the preload's statistics (preload.*, event.*, site.*: summed over every
 *   process CMD started; the wait percentiles and maximum take the largest),
 *   and one metric per --metric: the first parenthesised group of the last
 *   match of REGEX (POSIX extended) in CMD's standard output, as a number.
 * Then prints the comparison table (report's table format).
 *
 * Threading: single-threaded; blocks until every run has finished.
 */
#pragma once

/* The subcommand; argv[0] is the program name. Returns the exit status. */
int lab_exec_cmd(int argc, char **argv);
