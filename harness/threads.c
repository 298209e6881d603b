/* SPDX-License-Identifier: GPL-2.0-only */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "threads.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define THREADS_FORMS "valid: N, A-B, A-B:STEP, mmtests, mmtests:MAX, reaim, reaim:NCPUS; counts 1.." STR(LAB_THREADS_MAX)

static int push(int *out, int cap, int *n, int v)
{
	if (*n >= cap)
		return -1;
	out[(*n)++] = v;
	return 0;
}

int lab_mmtests_stride(int max, int *out, int cap)
{
	int n = 0, v;

	if (max < 1)
		return 0;
	if (max > 32) {
		for (v = 1; v <= 8 && v <= max; v += 3)
			push(out, cap, &n, v);
		for (v = 12; v <= 32; v += 9)
			push(out, cap, &n, v);
		for (v = 48; v <= max; v += 31)
			push(out, cap, &n, v);
	} else if (max > 8) {
		for (v = 1; v <= 8; v += 2)
			push(out, cap, &n, v);
		for (v = 12; v <= max; v += 6)
			push(out, cap, &n, v);
	} else {
		for (v = 1; v <= max; v += 2)
			push(out, cap, &n, v);
	}
	if (n == 0 || out[n - 1] != max)
		push(out, cap, &n, max);
	return n;
}

int lab_reaim_clients(int ncpus, int *out, int cap)
{
	int incr = ncpus / 2 > 0 ? ncpus / 2 : 1, end = ncpus * 4 + incr, n = 0;

	for (int v = 1; v <= end && v <= LAB_THREADS_MAX; v += incr)
		if (push(out, cap, &n, v))
			break;
	return n;
}

/*
 * One entry of lab_eval_threads(): @l bytes at @p, each [N*]cpus[/D] in it
 * replaced by its number for @ncpus, into @tok. Returns 0 or -1 with @err.
 */
static int eval_entry(const char *p, size_t l, int ncpus, char *tok, size_t toklen, char *err, size_t errlen)
{
	const char *q = p, *end = p + l;
	size_t o = 0;

	tok[0] = 0;
	while (q < end) {
		const char *c = strstr(q, "cpus"), *start, *after;
		long mul = 1, div = 1, val;
		char *endp;

		if (!c || c >= end) {
			snprintf(tok + o, toklen - o, "%.*s", (int)(end - q), q);
			return 0;
		}
		start = c;
		after = c + 4;
		if (start > q && start[-1] == '*') {
			const char *d = start - 1;

			while (d > q && isdigit((unsigned char)d[-1]))
				d--;
			if (d == start - 1) {
				snprintf(err, errlen, "bad thread expression '%.*s' (use N*cpus)", (int)l, p);
				return -1;
			}
			mul = strtol(d, NULL, 10);
			start = d;
		}
		if (*after == '/') {
			div = strtol(after + 1, &endp, 10);
			if (endp == after + 1 || div < 1) {
				snprintf(err, errlen, "bad thread expression '%.*s' (use cpus/D)", (int)l, p);
				return -1;
			}
			after = endp;
		}
		val = mul * ncpus / div;
		o += (size_t)snprintf(tok + o, toklen - o, "%.*s%ld", (int)(start - q), q, val < 1 ? 1 : val);
		if (o >= toklen) {
			snprintf(err, errlen, "thread list entry too long");
			return -1;
		}
		q = after;
	}
	return 0;
}

int lab_eval_threads(const char *expr, int ncpus, char *out, size_t len, char *err, size_t errlen)
{
	long seen[256];
	int nseen = 0;
	size_t off = 0;

	out[0] = 0;
	for (const char *p = expr;; p++) {
		size_t l = strcspn(p, ",");
		char tok[256], *endp;
		long v;

		if (l == 0) {	/* ",2", "1,,2", "1," or "": no entry to keep or drop */
			snprintf(err, errlen, "bad thread list '%s': empty entry (valid: N, A-B, A-B:STEP, "
				 "mmtests[:MAX], reaim[:NCPUS], with cpus, N*cpus or cpus/D for a count)", expr);
			return -1;
		}
		if (l >= sizeof(tok)) {
			snprintf(err, errlen, "thread list entry too long");
			return -1;
		}
		if (eval_entry(p, l, ncpus, tok, sizeof(tok), err, errlen))
			return -1;
		/* Drop a plain number already in the list (cpus/2 == 1 on a 2-CPU machine). */
		errno = 0;
		v = strtol(tok, &endp, 10);
		if (!*endp && !errno) {
			bool dup = false;

			for (int i = 0; i < nseen; i++)
				dup |= seen[i] == v;
			if (dup)
				goto next;
			if (nseen < 256)
				seen[nseen++] = v;
		}
		if (off + strlen(tok) + 2 >= len) {
			snprintf(err, errlen, "thread list too long");
			return -1;
		}
		off += (size_t)snprintf(out + off, len - off, "%s%s", off ? "," : "", tok);
next:
		p += l;
		if (!*p)
			return 0;
	}
}

static int parse_count(const char *s, const char *end, long *v)
{
	char buf[32], *e;
	size_t len = (size_t)(end - s);

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (buf[0] == '+' || buf[0] == '-' || buf[0] == ' ')
		return -1;
	errno = 0;
	*v = strtol(buf, &e, 10);
	if (errno || *e)
		return -1;
	return 0;
}

int lab_parse_threads(const char *arg, int ncpus, int *out, int cap, char *err, size_t errlen)
{
	char buf[1024];
	char *save = NULL, *tok;
	int n = 0;

	if (!arg || !*arg) {
		snprintf(err, errlen, "empty thread list (%s)", THREADS_FORMS);
		return -1;
	}
	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "thread list too long (%s)", THREADS_FORMS);
		return -1;
	}
	strcpy(buf, arg);
	if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,")) {
		snprintf(err, errlen, "bad thread list '%s': empty entry (%s)", arg, THREADS_FORMS);
		return -1;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long a, b, step = 1;
		char *dash, *colon;

		if (!strncmp(tok, "mmtests", 7) && (tok[7] == 0 || tok[7] == ':')) {
			long max = ncpus;
			int tmp[LAB_THREAD_LIST_MAX], k;

			if (tok[7] == ':' && (parse_count(tok + 8, tok + strlen(tok), &max) || max < 1 ||
					      max > LAB_THREADS_MAX)) {
				snprintf(err, errlen, "bad thread list '%s': '%s' needs MAX in 1..%d (%s)", arg,
					 tok, LAB_THREADS_MAX, THREADS_FORMS);
				return -1;
			}
			k = lab_mmtests_stride((int)max, tmp, LAB_THREAD_LIST_MAX);
			for (int i = 0; i < k; i++)
				if (push(out, cap, &n, tmp[i]))
					goto too_many;
			continue;
		}
		if (!strncmp(tok, "reaim", 5) && (tok[5] == 0 || tok[5] == ':')) {
			long cpus = ncpus;
			int tmp[LAB_THREAD_LIST_MAX], k;

			if (tok[5] == ':' && (parse_count(tok + 6, tok + strlen(tok), &cpus) || cpus < 1 ||
					      cpus > LAB_THREADS_MAX)) {
				snprintf(err, errlen, "bad thread list '%s': '%s' needs NCPUS in 1..%d (%s)", arg,
					 tok, LAB_THREADS_MAX, THREADS_FORMS);
				return -1;
			}
			k = lab_reaim_clients((int)cpus, tmp, LAB_THREAD_LIST_MAX);
			for (int i = 0; i < k; i++)
				if (push(out, cap, &n, tmp[i]))
					goto too_many;
			continue;
		}
		colon = strchr(tok, ':');
		dash = strchr(tok, '-');
		if (dash == tok)	/* "-3": a negative count */
			goto bad;
		if (dash) {
			if (parse_count(tok, dash, &a) ||
			    parse_count(dash + 1, colon ? colon : tok + strlen(tok), &b))
				goto bad;
			if (colon && parse_count(colon + 1, tok + strlen(tok), &step))
				goto bad;
			if (colon && step < 1) {
				snprintf(err, errlen, "bad thread list '%s': '%s' has a step of %ld (the step after ':' "
					 "is 1 or more; %s)", arg, tok, step, THREADS_FORMS);
				return -1;
			}
			if (a < 1 || b > LAB_THREADS_MAX || a > b)
				goto range;
		} else {
			if (colon || parse_count(tok, tok + strlen(tok), &a))
				goto bad;
			if (a < 1 || a > LAB_THREADS_MAX)
				goto range;
			b = a;
		}
		/* a step past the range gives A alone; v += step must not overflow (a step near LONG_MAX
		 * wrapped v negative: cells of 0 and -1 threads) */
		for (long v = a; v <= b; v = step > b - v ? b + 1 : v + step)
			if (push(out, cap, &n, (int)v))
				goto too_many;
		continue;
bad:
		snprintf(err, errlen, "bad thread list '%s': '%s' is not a thread count (%s)", arg, tok,
			 THREADS_FORMS);
		return -1;
range:
		snprintf(err, errlen, "bad thread list '%s': '%s' is out of range (%s)", arg, tok,
			 THREADS_FORMS);
		return -1;
	}
	return n;
too_many:
	snprintf(err, errlen, "bad thread list '%s': more than %d entries", arg, cap);
	return -1;
}

int lab_parse_duration(const char *arg, unsigned long long *ns)
{
	char *end;
	double v;

	/* Decimal only: strtod() would also take "nan", "inf" and hex ("0x10"). */
	if (!arg || !(isdigit((unsigned char)arg[0]) || (arg[0] == '.' && isdigit((unsigned char)arg[1]))) ||
	    strpbrk(arg, "xX"))
		return -1;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !isfinite(v) || v < 0)
		return -1;
	if (!*end && v != 0)
		return -1;	/* a unit is required: "2" could be s or ms (0 needs none) */
	if (!*end || !strcmp(end, "s"))
		v *= 1e9;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "ns"))
		;
	else if (!strcmp(end, "m"))
		v *= 60e9;
	else
		return -1;
	if (v > 1e15)
		return -1;
	*ns = (unsigned long long)v;
	return 0;
}

int lab_opt_count(const char *prog, const char *opt, const char *arg, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	/* strtol() skips leading blanks: ' 1' was taken for 1, where run's -t refuses it */
	if (!*arg || isspace((unsigned char)*arg) || *end || errno || *out < min || *out > max) {
		fprintf(stderr, "%s: bad value '%s'%s for %s (an integer in %ld..%ld)\n", prog, arg,
			lab_results_blank_note(arg), opt, min, max);
		return -1;
	}
	return 0;
}

int lab_opt_duration(const char *prog, const char *opt, const char *arg, int allow_zero,
		     unsigned long long *ns)
{
	if (lab_parse_duration(arg, ns) || (!allow_zero && *ns == 0)) {
		fprintf(stderr, "%s: bad duration '%s' for %s (a %snumber with unit s, ms, us or m, e.g. 2s)\n",
			prog, arg, opt, allow_zero ? "" : "positive ");
		return -1;
	}
	return 0;
}
