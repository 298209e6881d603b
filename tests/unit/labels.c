/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Labels are cell keys (CSV, report, --resume): never truncated, distinct
 * for distinct configurations, and parsed back to the same knob values.
 * For every variant, scheme and workload with knobs: A = every knob set to a
 * value other than its default, B_k = A with knob k back at its default.
 * A and all B_k must parse, have n + 1 distinct labels, and each label must
 * parse back to its own values. Before the one registry
 * rwsem-rspin with its six knobs lost spin_budget_us from the label.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lazy_mm.h"
#include "plugin.h"
#include "rwsem.h"
#include "workload.h"

/* A value for knob @k of @p other than its default, as text; false if none parses. */
static bool other_value(const struct lab_registry *r, const struct lab_plugin *p, const struct lab_knob *k,
			char *out, size_t len)
{
	char cand[64][64], spec[LAB_SPEC_MAX], err[1024];
	struct lab_plugin q;
	int n = 0;

	if (k->type == LAB_KNOB_INT) {
		snprintf(cand[n++], 64, "%ld", k->max);
		snprintf(cand[n++], 64, "%ld", k->min);
		snprintf(cand[n++], 64, "%ld", k->def * 2);
		snprintf(cand[n++], 64, "%ld", k->def / 2);
	} else if (k->type == LAB_KNOB_BOOL) {
		snprintf(cand[n++], 64, "%d", !k->def);
	} else if (k->type == LAB_KNOB_ENUM) {
		char choices[512], *save = NULL;

		snprintf(choices, sizeof(choices), "%s", k->choices);
		for (char *t = strtok_r(choices, "|", &save); t && n < 64; t = strtok_r(NULL, "|", &save))
			snprintf(cand[n++], 64, "%s", t);
	} else {
		for (int i = 0; lab_rwsem_registry.describe(i, &q) && n < 64; i++)
			snprintf(cand[n++], 64, "%s", q.name);
	}
	for (int i = 0; i < n; i++) {
		struct lab_spec s;
		int ki = (int)(k - p->knobs);

		snprintf(spec, sizeof(spec), "%.64s:%.64s=%.63s", p->name, k->name, cand[i]);
		if (!lab_registry_parse(r, spec, &s, err, sizeof(err)) && s.knob[ki] != k->def) {
			snprintf(out, len, "%.63s", cand[i]);
			return true;
		}
	}
	return false;
}

/* "name:k1=v1,...": every knob at its other value, except @skip (-1: none). */
static void build_spec(const struct lab_plugin *p, char vals[][64], int nk, int skip, char *spec, size_t len)
{
	size_t off = (size_t)snprintf(spec, len, "%s", p->name);

	for (int i = 0; i < nk; i++)
		if (i != skip)
			off += (size_t)snprintf(spec + off, len - off, "%s%s=%s", off == strlen(p->name) ? ":" : ",",
						p->knobs[i].name, vals[i]);
	cr_assert_lt(off, len, "spec of %s too long for the test", p->name);
}

static void check_registry(const struct lab_registry *r)
{
	struct lab_plugin p;
	int checked = 0;

	for (int e = 0; r->describe(e, &p); e++) {
		int nk = (int)lab_knobs_count(p.knobs);
		static char vals[LAB_KNOBS_MAX][64], spec[LAB_SPEC_MAX];
		static struct lab_spec s[LAB_KNOBS_MAX + 1], back;
		char err[1024];

		if (!nk)
			continue;
		for (int k = 0; k < nk; k++)
			cr_assert(other_value(r, &p, &p.knobs[k], vals[k], sizeof(vals[k])),
				  "%s: no non-default value parses for knob %s", p.name, p.knobs[k].name);
		for (int skip = -1; skip < nk; skip++) {
			struct lab_spec *cur = &s[skip + 1];

			build_spec(&p, vals, nk, skip, spec, sizeof(spec));
			cr_assert_eq(lab_registry_parse(r, spec, cur, err, sizeof(err)), 0, "%s: %s", spec, err);
			cr_assert_eq(lab_registry_parse(r, cur->label, &back, err, sizeof(err)), 0,
				     "label '%s' does not parse back: %s", cur->label, err);
			cr_assert(!memcmp(back.knob, cur->knob, sizeof(back.knob)),
				  "label '%s' parses back to other knob values", cur->label);
			for (int o = 0; o < skip + 1; o++)
				cr_assert_str_neq(s[o].label, cur->label, "%s: two configurations share label '%s'",
						  p.name, cur->label);
		}
		checked++;
	}
	cr_assert_gt(checked, 0, "no %s has knobs", r->what);
}

Test(labels, variants_all_knobs_distinct)
{
	check_registry(&lab_rwsem_registry);
}

Test(labels, schemes_all_knobs_distinct)
{
	check_registry(&lab_lazy_mm_registry);
}

Test(labels, workloads_all_knobs_distinct)
{
	check_registry(&lab_workload_registry);
}

/* The case the issue found: six rwsem-rspin knobs, spin_budget_us last. */
Test(labels, rspin_spin_budget_kept)
{
	struct lab_rwsem_conf a, b;
	char err[1024];
	const char *base = "rwsem-rspin:handoff_timeout_us=10000000,rspin=0,wspin=0,max_readers_wakeup=1048576,"
			   "rspin_threshold_us=1000000,spin_budget_us=";
	char spec[LAB_SPEC_MAX];

	snprintf(spec, sizeof(spec), "%s%s", base, "1000000");
	cr_assert_eq(lab_rwsem_parse(spec, &a, err, sizeof(err)), 0, "%s", err);
	snprintf(spec, sizeof(spec), "%s%s", base, "999999");
	cr_assert_eq(lab_rwsem_parse(spec, &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_neq(a.label, b.label);
	cr_assert(strstr(a.label, "spin_budget_us=1000000"), "label '%s'", a.label);
}

/* A label that cannot be represented is an error naming it, not a truncation. */
Test(labels, too_long_is_an_error)
{
	struct lab_spec s;
	long knob[LAB_KNOBS_MAX] = { 0 };
	char label[24], err[1024];
	int i = lab_registry_index(&lab_rwsem_registry, "rwsem-rspin");
	struct lab_plugin p;

	cr_assert_geq(i, 0);
	lab_rwsem_registry.describe(i, &p);
	for (int k = 0; p.knobs[k].name; k++)
		knob[k] = p.knobs[k].type == LAB_KNOB_INT ? p.knobs[k].max : !p.knobs[k].def;
	cr_assert_eq(lab_registry_label(&lab_rwsem_registry, i, knob, label, sizeof(label), err, sizeof(err)), -1);
	cr_assert(strstr(err, "rwsem-rspin:handoff_timeout_us="), "error does not name the label: %s", err);
	cr_assert(strstr(err, "too long"), "%s", err);
	(void)s;
}

/* 'all' works for every list: -l, -m and -w. */
Test(labels, all_in_every_list)
{
	static struct lab_rwsem_conf l[64];
	static struct lab_lazy_mm_conf m[32];
	static struct lab_workload_conf w[32];
	char err[1024];
	int nl = 0, nm = 0, nw = 0, want = 0;

	cr_assert_eq(lab_rwsem_parse_list("all", l, 64, &nl, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_lazy_mm_parse_list("all", m, 32, &nm, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_workload_parse_list("all", w, 32, &nw, err, sizeof(err)), 0, "%s", err);
	while (lab_workloads[want])
		want++;
	cr_expect_eq(nw, want, "-w all gave %d of %d workloads", nw, want);
	cr_expect_gt(nl, 5);
	cr_expect_gt(nm, 3);
}
