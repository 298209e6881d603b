/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DEBUG_RWSEMS_WARN_ON reporting for the kernel ports (rwsem.h, debug.h).
 */
#include "atomic.h"
#include "debug.h"
#include "err.h"
#include "wait.h"

int lab_rwsem_checks = LAB_DEBUG_CHECKS;
unsigned long lab_rwsem_warnings;

/* The window's first warning (rwsem.h lab_rwsem_warn_log_start()). */
static unsigned long warn_log_base;
static struct {
	const char *variant, *what;
	long count;
	uint64_t ns;		/* lab_clock_ns() then */
} warn_log_first;

void lab_rwsem_warn_log_start(void)
{
	warn_log_base = atomic_fetch_add(&lab_rwsem_warnings, 0UL);
	warn_log_first.variant = warn_log_first.what = NULL;
}

int lab_rwsem_warn_log_first(const char **variant, const char **what, long *count, uint64_t *ns)
{
	if (!warn_log_first.what)
		return 0;
	*ns = warn_log_first.ns;
	*variant = warn_log_first.variant;
	*what = warn_log_first.what;
	*count = warn_log_first.count;
	return 1;
}

void lab_rwsem_warn(const char *variant, const char *what, long count, const char *file, int line)
{
	/* Fully ordered: a reader of the counter after a run sees every warning of it. */
	unsigned long n = atomic_fetch_add(&lab_rwsem_warnings, 1UL);

	/* Only the window's first warning writes here: the reader reads it after joining the writers. */
	if (n == warn_log_base) {
		warn_log_first.variant = variant;
		warn_log_first.count = count;
		warn_log_first.ns = lab_clock_ns();
		warn_log_first.what = what;
	}

	if (n < 20)
		lab_err("DEBUG_RWSEMS_WARN_ON(%s): %s: count %#lx (%s:%d)", what, variant, (unsigned long)count, file,
			line);
}
