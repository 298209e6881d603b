/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared bits of the libFuzzer targets (tools/fuzz builds and runs them).
 * Each target feeds the input to one parser and then checks what the
 * parser promises (ranges, termination, round trips): a broken promise
 * aborts, so libFuzzer reports it like a crash, with the input saved.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                        \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                \
		}                                                                               \
	} while (0)

/* The input as a C string (stops at the first NUL, as argv would). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* An error message must be a non-empty, terminated string within its buffer. */
static inline void fuzz_check_err(const char *err, size_t len)
{
	FUZZ_CHECK(memchr(err, 0, len) != NULL);
	FUZZ_CHECK(err[0] != 0);
}
