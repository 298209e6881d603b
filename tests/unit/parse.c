/* SPDX-License-Identifier: GPL-2.0-only */
/* Thread lists, durations, knobs and lock/workload specs: valid and invalid input. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "threads.h"
#include "rwsem.h"
#include "workload.h"

static int parse(const char *s, int *out, char *err)
{
	return lab_parse_threads(s, 2, out, LAB_THREAD_LIST_MAX, err, 512);
}

Test(threads, lists_and_ranges)
{
	int t[LAB_THREAD_LIST_MAX];
	char err[512];

	cr_assert_eq(parse("1,2,4", t, err), 3);
	cr_expect(t[0] == 1 && t[1] == 2 && t[2] == 4);
	cr_assert_eq(parse("1-4", t, err), 4);
	cr_expect(t[0] == 1 && t[3] == 4);
	cr_assert_eq(parse("2-16:7", t, err), 3);
	cr_expect(t[0] == 2 && t[1] == 9 && t[2] == 16);
	cr_assert_eq(parse("8,1-2", t, err), 3);
	cr_expect(t[0] == 8 && t[1] == 1 && t[2] == 2);
	cr_assert_eq(parse("1023", t, err), 1);	/* LAB_THREADS_MAX: the task table less the harness */
	cr_assert_eq(parse("1024", t, err), -1);
}

Test(threads, mmtests_stride)
{
	int t[LAB_THREAD_LIST_MAX];
	char err[512];
	static const int s128[] = { 1, 4, 7, 12, 21, 30, 48, 79, 110, 128 };
	static const int s40[] = { 1, 4, 7, 12, 21, 30, 40 };
	static const int s16[] = { 1, 3, 5, 7, 12, 16 };
	int n;

	n = parse("mmtests:128", t, err);
	cr_assert_eq(n, 10, "%s", err);
	cr_expect_arr_eq(t, s128, sizeof(s128));
	n = parse("mmtests:40", t, err);
	cr_assert_eq(n, 7);
	cr_expect_arr_eq(t, s40, sizeof(s40));
	n = parse("mmtests:16", t, err);
	cr_assert_eq(n, 6);
	cr_expect_arr_eq(t, s16, sizeof(s16));
	n = parse("mmtests", t, err);	/* ncpus = 2 */
	cr_assert_eq(n, 2);
	cr_expect(t[0] == 1 && t[1] == 2);
}

/* "1,3,5,7,12,16" at @p (its lines may break after a comma) into @out; returns how many. */
static int readme_list(const char *p, int *out, int cap)
{
	int n = 0;

	while (n < cap && isdigit((unsigned char)*p)) {
		char *end;

		out[n++] = (int)strtol(p, &end, 10);
		p = end;
		if (*p != ',' || !isdigit((unsigned char)p[1 + strspn(p + 1, " \n")]))
			break;
		p += 1 + strspn(p + 1, " \n");
	}
	return n;
}

/*
 * README's -t sentence gives mmtests:MAX examples ("`mmtests:16` is 1,3,5,7,12,16"): each is what
 * -t makes of it, and they cover the stride's three regimes (MAX above 32, 9 to 32, up to 8). It
 * said "the mmtests stride 1,4,7,12,21,30,48,79,110,..." for every MAX, the first regime's.
 */
Test(threads, mmtests_readme)
{
	FILE *f = fopen(LAB_SOURCE_ROOT "/README.md", "r");
	char *text = NULL;
	size_t cap = 0;
	unsigned regimes = 0;

	cr_assert(f, "cannot read README.md");
	cr_assert(getdelim(&text, &cap, 0, f) > 0);
	fclose(f);
	for (const char *p = text; (p = strstr(p, "`mmtests:")); p++) {
		int max, want[LAB_THREAD_LIST_MAX], got[LAB_THREAD_LIST_MAX], nw, ng, at = 0;

		if (sscanf(p, "`mmtests:%d` is%n", &max, &at) != 1 || !at)
			continue;
		nw = lab_mmtests_stride(max, want, LAB_THREAD_LIST_MAX);
		ng = readme_list(p + at + strspn(p + at, " \n"), got, LAB_THREAD_LIST_MAX);
		cr_expect(ng == nw && !memcmp(got, want, (size_t)nw * sizeof(int)),
			  "README: `mmtests:%d` is not the list -t mmtests:%d makes (README: %d entries, -t: %d)",
			  max, max, ng, nw);
		regimes |= max > 32 ? 1u : max > 8 ? 2u : 4u;
	}
	free(text);
	cr_expect_eq(regimes, 7u, "README's -t sentence gives no `mmtests:MAX` example%s%s%s", regimes & 1 ? "" :
		     " above 32", regimes & 2 ? "" : " from 9 to 32", regimes & 4 ? "" : " up to 8");
}

Test(threads, invalid)
{
	static const char *bad[] = { "", "0", "-1", "x", "0,x", "1,,2", ",1", "1,", "4-2", "1-", "-",
				     "1025", "99999999999999999999", "1.5", "2-4:0", "mmtests:0",
				     "mmtests:x", "1:2", " 1", "+3" };
	int t[LAB_THREAD_LIST_MAX];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[512] = "";

		cr_expect_eq(parse(bad[i], t, err), -1, "'%s' was accepted", bad[i]);
		cr_expect(strstr(err, "valid:") != NULL, "'%s': message lacks the valid forms: %s", bad[i], err);
		cr_expect(strchr(err, '\n') == NULL, "message is not one line");
	}
}

Test(threads, zero_step_named)
{
	int t[LAB_THREAD_LIST_MAX];
	char err[512] = "";

	cr_assert_eq(parse("2-4:0", t, err), -1);
	cr_expect(strstr(err, "has a step of 0") != NULL, "a zero step is not named: %s", err);
}

Test(threads, huge_step)
{
	int t[LAB_THREAD_LIST_MAX];
	char err[512] = "";

	/* v += step overflowed: 1-4:LONG_MAX gave 1, 0 (and -1 ...), each a cell */
	cr_assert_eq(parse("1-4:9223372036854775807", t, err), 1, "%s", err);
	cr_expect_eq(t[0], 1);
	cr_assert_eq(parse("2-1023:4611686018427387904", t, err), 1, "%s", err);
	cr_expect_eq(t[0], 2);
	cr_assert_eq(parse("1-1023:1022", t, err), 2, "%s", err);
	cr_expect(t[0] == 1 && t[1] == 1023);
	cr_assert_eq(parse("1-4:3", t, err), 2, "%s", err);
	cr_expect(t[0] == 1 && t[1] == 4);
}

Test(threads, too_many_entries)
{
	int t[4];
	char err[512];

	cr_expect_eq(lab_parse_threads("1-5", 2, t, 4, err, sizeof(err)), -1);
}

Test(duration, units)
{
	unsigned long long ns;

	cr_expect_eq(lab_parse_duration("2", &ns), -1, "a unitless duration must be refused");
	cr_assert_eq(lab_parse_duration("0", &ns), 0);
	cr_expect_eq(ns, 0);
	cr_assert_eq(lab_parse_duration("2s", &ns), 0);
	cr_expect_eq(ns, 2000000000ull);
	cr_assert_eq(lab_parse_duration("500ms", &ns), 0);
	cr_expect_eq(ns, 500000000ull);
	cr_assert_eq(lab_parse_duration("1.5s", &ns), 0);
	cr_expect_eq(ns, 1500000000ull);
	cr_assert_eq(lab_parse_duration("250us", &ns), 0);
	cr_expect_eq(ns, 250000ull);
	cr_assert_eq(lab_parse_duration("1m", &ns), 0);
	cr_expect_eq(ns, 60000000000ull);
	cr_expect_eq(lab_parse_duration("", &ns), -1);
	cr_expect_eq(lab_parse_duration("-1", &ns), -1);
	cr_expect_eq(lab_parse_duration("3h", &ns), -1);
	cr_expect_eq(lab_parse_duration("x", &ns), -1);
}

Test(lockspec, unknown_variant_names_choices)
{
	struct lab_rwsem_conf c;
	char err[1024];

	cr_assert_eq(lab_rwsem_parse("nosuchlock", &c, err, sizeof(err)), -1);
	cr_expect(strstr(err, "nosuchlock") && strstr(err, "pthread") && strstr(err, "valid"), "%s", err);
}

Test(lockspec, list_with_knob_continuation)
{
	struct lab_rwsem_conf c[8];
	char err[1024];
	int n = 0;

	cr_assert_eq(lab_rwsem_parse_list("pthread,null,ck-rwlock", c, 8, &n, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(n, 3);
	cr_expect_str_eq(c[2].label, "ck-rwlock");
	n = 0;
	cr_expect_eq(lab_rwsem_parse_list("pthread:bogus=1", c, 8, &n, err, sizeof(err)), -1);
	cr_expect(strstr(err, "unknown knob 'bogus'") != NULL, "%s", err);
	/* a variant without knobs says so: "valid keys: none" read as a key named none */
	cr_expect_str_eq(err, "pthread: unknown knob 'bogus' (it takes no knobs)");
	n = 0;
	cr_expect_eq(lab_rwsem_parse_list("rwsem:bogus=1", c, 8, &n, err, sizeof(err)), -1);
	cr_expect(strstr(err, "(valid keys: ") != NULL, "%s", err);
	n = 0;
	cr_expect_eq(lab_rwsem_parse_list("x=1,pthread", c, 8, &n, err, sizeof(err)), -1);
}

Test(workloadspec, knobs)
{
	struct lab_workload_conf w[4];
	char err[1024];
	int n = 0;

	cr_assert_eq(lab_workload_parse_list("locktest:rpct=90,load=20,pft", w, 4, &n, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(n, 2);
	cr_expect_eq(w[0].knob[0], 90);
	cr_expect_eq(w[0].knob[1], 20);
	cr_expect_str_eq(w[0].label, "locktest:rpct=90,load=20");
	cr_expect_str_eq(w[1].label, "pft");
	n = 0;
	cr_expect_eq(lab_workload_parse_list("locktest:rpct=101", w, 4, &n, err, sizeof(err)), -1);
	cr_expect(strstr(err, "0..100") != NULL, "%s", err);
	n = 0;
	cr_expect_eq(lab_workload_parse_list("pft:touch=maybe", w, 4, &n, err, sizeof(err)), -1);
	cr_expect(strstr(err, "pool|fresh") != NULL, "%s", err);
	n = 0;
	cr_expect_eq(lab_workload_parse_list("nosuch", w, 4, &n, err, sizeof(err)), -1);
	cr_expect(strstr(err, "locktest") != NULL, "%s", err);
	n = 0;
	cr_expect_eq(lab_workload_parse_list("locktest:rpct=5,rpct=6", w, 4, &n, err, sizeof(err)), -1);
}
