/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DEBUG_RWSEMS_WARN_ON reporting for the kernel ports (rwsem.h, debug.h).
 */
#include <stdio.h>

#include "atomic.h"
#include "debug.h"

int lab_rwsem_checks = LAB_DEBUG_CHECKS;
unsigned long lab_rwsem_warnings;

void lab_rwsem_warn(const char *variant, const char *what, long count, const char *file, int line)
{
	/* Fully ordered: a reader of the counter after a run sees every warning of it. */
	unsigned long n = atomic_fetch_add(&lab_rwsem_warnings, 1UL);

	if (n < 20)
		fprintf(stderr, "rwlab: DEBUG_RWSEMS_WARN_ON(%s): %s: count %#lx (%s:%d)\n", what, variant,
			(unsigned long)count, file, line);
}
