/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/err.h - the error lines of the libraries beneath the subcommands
 * (locks/, workloads/, rwlab-sim's own) begin with the subcommand that runs
 * them, as that subcommand's own lines do: "rwlab run: bravo: ...",
 * "rwlab torture: lazy-mm: use after free ...". One process-wide name, set
 * once by the entry that knows it (main() before it dispatches to a
 * subcommand; rwlab-sim once it has read which command the front started),
 * read by lab_err() and lab_prog(); no function takes it as a parameter.
 */
#pragma once

#include <stdarg.h>

/*
 * lab_prog_set() - what the libraries' error lines begin with from now on:
 * "rwlab run", "rwlab torture" (copied, cut to 63 bytes). Until it is
 * called, "rwlab". Call it before any thread starts: not thread-safe.
 */
void lab_prog_set(const char *prog);

/* The name lab_prog_set() set, or "rwlab". Any thread. */
const char *lab_prog(void);

/*
 * lab_err() - "PROG: " (lab_prog()), @fmt formatted and a newline on stderr
 * in one write(2) (lab_vwrite_line()). Any thread; not async-signal-safe.
 */
void lab_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * lab_vwrite_line() - write "@prefix" followed by @fmt formatted with @ap and
 * a newline to @fd in one write(2) call, cut to 511 bytes. For failure lines
 * of threads that may fail at the same moment and then abort or _exit(): a
 * line written in pieces can be cut short by another thread's exit, and
 * whatever is printed next then does not start a line of its own.
 * Any thread; not async-signal-safe (vsnprintf). Write errors are ignored.
 */
void lab_vwrite_line(int fd, const char *prefix, const char *fmt, va_list ap);
