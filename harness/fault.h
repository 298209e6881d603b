/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fault injection for the harness's failure paths, in the spirit of the
 * kernel's fault-injection framework (failslab, fail_futex): a test makes a
 * call that cannot fail on demand fail, and checks that the failure is
 * reported.
 *
 *   RWLAB_FAULT_INJECT=SITE[=VARIANT][,SITE[=VARIANT]...]
 *
 * SITE is a named injection point: pthread_create (the runner's last worker
 * of an iteration fails to start with EAGAIN) or prepare (a workload's
 * prepare() fails with EIO) worker (worker 0 calls lab_worker_fail()
 * instead of running the workload) or must_be_zero (each iteration gets an
 * extra "errors" row of 1, a must-be-zero count that is not) or loadavg (each cell
 * starts with the load average seen as the CPU count plus one and as many
 * other tasks runnable: the loaded machine's warnings; RWLAB_FAULT_LOADAVG=X
 * gives X instead of that load) or loadavg_only (the
 * same load average, the other runnable tasks counted as they are: a warning
 * only when some compete for the run's CPUs) or killed_mid_rows (a cell writing
 * its rows to a stream, as a simulated cell's own process writes them to its
 * parent, kills itself with SIGKILL halfway through them). With =VARIANT only the cells of that variant
 * label fail. Unset (the normal case): nothing is injected.
 *
 * Threading: read-only; call from the harness thread.
 */
#pragma once

#include <stdbool.h>

/* lab_fault_inject() - true when RWLAB_FAULT_INJECT names @site for @variant (NULL: any). */
bool lab_fault_inject(const char *site, const char *variant);
/*
 * lab_fault_loadavg() - the load average the loadavg sites give a cell:
 * RWLAB_FAULT_LOADAVG (a number, at least 0), else @dflt.
 */
double lab_fault_loadavg(double dflt);
