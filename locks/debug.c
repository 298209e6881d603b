/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DEBUG_RWSEMS_WARN_ON reporting for the kernel ports (rwsem.h, debug.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

void lab_vwrite_line(int fd, const char *prefix, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	/* At most 510 characters, so that the newline fits. */
	snprintf(line, sizeof(line) - 1, "%s", prefix);
	n = strlen(line);
	vsnprintf(line + n, sizeof(line) - 1 - n, fmt, ap);
	n = strlen(line);
	line[n++] = '\n';
	if (write(fd, line, n) < 0)
		return;		/* nowhere left to say it */
}
