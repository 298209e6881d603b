/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Regression: a SIGTERM to a `run -j` parent (or `torture --sim --seeds -j`)
 * that came between lab_sim_cells_run()'s look at its stop flag and its
 * poll() was noticed only when the next cell's process ended: the handler
 * set the flag, and poll() slept on, so the run went on for the length of a
 * cell. Fix (harness/sim_cell.c): SIGINT and SIGTERM are blocked but inside
 * ppoll(), so a signal that came meanwhile ends the wait at once.
 *
 * The window is made certain here: the done() callback of the first cell,
 * which runs after the stop check and before the wait, sends the SIGTERM
 * itself, while the second cell (sleep 60) is still running. The run must
 * end at once, with the second cell stopped by its SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "sim_cell.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

struct seen {
	int status[2];
	int handed;
};

static void cells_argv(void *arg, int i, struct lab_sim_argv *a)
{
	(void)arg;
	if (i == 0) {
		snprintf(a->exe, sizeof(a->exe), "/bin/true");
		a->av[0] = a->exe;
	} else {
		snprintf(a->exe, sizeof(a->exe), "/bin/sleep");
		a->av[0] = a->exe;
		a->av[1] = "60";
	}
}

static void cells_done(void *arg, int i, const struct lab_sim_proc *p)
{
	struct seen *s = arg;

	s->status[i] = p->err ? -1 : p->status;
	s->handed++;
	if (i == 0)
		kill(getpid(), SIGTERM);	/* after the stop check, before the wait */
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

Test(sim_cells_stop, sigterm_before_the_wait_ends_it_at_once)
{
	static const struct lab_sim_cells_ops ops = { .argv = cells_argv, .done = cells_done };
	struct sigaction sa = { .sa_handler = on_term }, old;
	struct seen s = { { -2, -2 }, 0 };
	sigset_t mask;
	double t0, dt;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old);
	t0 = now_s();
	lab_sim_cells_run(2, 2, &ops, &s, &stop);
	dt = now_s() - t0;
	sigaction(SIGTERM, &old, NULL);
	cr_assert_eq(stop, 1, "the SIGTERM never reached the handler");
	cr_assert_eq(s.handed, 2, "cells handed over: %d of 2", s.handed);
	cr_assert_eq(s.status[0], 0, "/bin/true: status %d", s.status[0]);
	/* (a cell started with the blocked mask would ignore it and sleep on: exit 0 after 60 s) */
	cr_assert_eq(s.status[1], 128 + SIGTERM, "the running cell was not stopped by SIGTERM: status %d",
		     s.status[1]);
	/* the cell sleeps 60 s: the run waited for it if it took anywhere near that long */
	cr_assert_lt(dt, 30.0, "the run went on for %.1f s after its SIGTERM (the cell's length)", dt);
	/* and the caller's signal mask is its own again */
	sigprocmask(SIG_BLOCK, NULL, &mask);
	cr_assert(!sigismember(&mask, SIGTERM) && !sigismember(&mask, SIGINT), "SIGINT/SIGTERM left blocked");
}

