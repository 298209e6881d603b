/* SPDX-License-Identifier: GPL-2.0-only */
/* What the libraries' error lines begin with, and the one-write line they are written as (err.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

static char prog[64] = "rwlab";

void lab_prog_set(const char *name)
{
	snprintf(prog, sizeof(prog), "%s", name);
}

const char *lab_prog(void)
{
	return prog;
}

void lab_err(const char *fmt, ...)
{
	char prefix[sizeof(prog) + 2];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: ", prog);
	va_start(ap, fmt);
	lab_vwrite_line(STDERR_FILENO, prefix, fmt, ap);
	va_end(ap);
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
