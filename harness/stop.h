/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/stop.h - stop on SIGINT/SIGTERM and pass the signal on to the
 * child process in progress: what `rwlab exec` and `rwlab sim validate`,
 * which run their children one at a time, do on Ctrl-C or a SIGTERM.
 *
 *   lab_stop_install()   catch SIGINT and SIGTERM (no SA_RESTART: a blocking
 *                        read or wait returns EINTR); clears the flag
 *   lab_stop_signal()    0, or the last of the two received since then
 *   lab_stop_fork()      fork() a child the signals are passed on to
 *   lab_stop_wait()      wait4() for it, through EINTR; no longer passed on
 *   lab_stop_restore()   the actions lab_stop_install() found, back
 *
 * A signal received while a child is in progress is sent to it too, the
 * same signal, unless it came from the terminal (si_code SI_KERNEL: a
 * Ctrl-C reaches the whole foreground process group, the child once; a
 * signal to this process alone reaches the child this way). One received
 * before the child's pid is known, during fork() itself included, is sent
 * to it as soon as it is: lab_stop_fork() blocks both signals around fork()
 * and tells the child last. The child starts with both at their default
 * actions, and one passed on before it returns from lab_stop_fork() ends it
 * there, before it runs anything (the handler copied into it would swallow
 * it otherwise). The child stays in this process's group: a terminal's
 * signal, or one sent to the group, reaches every process it starts (a
 * shell command's own children), and job control (fg, a terminal read)
 * works on them as on this process; one sent to this process alone reaches
 * the child only (a group of its own would take it off the terminal's
 * foreground).
 *
 * Errors: lab_stop_install() and lab_stop_fork() return -1 with errno set
 * (sigaction's, fork's); lab_stop_wait() returns -1 with wait4's errno. The
 * flag stays set until the next lab_stop_install().
 *
 * Threading: for a single-threaded caller, which installs, forks and waits,
 * one child at a time. The handler only stores the signal, reads the pid
 * and calls kill() (async-signal-safe; it keeps errno).
 */
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

int lab_stop_install(void);
void lab_stop_restore(void);
int lab_stop_signal(void);
pid_t lab_stop_fork(void);
int lab_stop_wait(pid_t pid, int *status, struct rusage *ru);
