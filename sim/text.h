/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/text.h - text helpers of rwlab's "key = value" file parsers: machine
 * files (machine.c) and, from above, matrix files (harness/matrix.c). Here,
 * in the lowest layer, because both see it. Header only. Threading: pure.
 */
#pragma once

#include <ctype.h>
#include <string.h>

/* @s without its leading and trailing white space: the end is cut in place. */
static inline char *lab_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}
