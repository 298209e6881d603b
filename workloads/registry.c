/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "plugin.h"
#include "wait.h"
#include "workload.h"

#define LAB_WORKLOAD(sym) extern const struct lab_workload_ops sym;
#include "workloads.h"
#undef LAB_WORKLOAD

const struct lab_workload_ops *const lab_workloads[] = {
#define LAB_WORKLOAD(sym) &sym,
#include "workloads.h"
#undef LAB_WORKLOAD
	NULL
};

static bool workload_describe(int i, struct lab_plugin *p)
{
	const struct lab_workload_ops *ops = lab_workloads[i];

	if (!ops)
		return false;
	*p = (struct lab_plugin){ ops->name, ops->summary, ops->cite, ops->knobs, false, false };
	return true;
}

const struct lab_registry lab_workload_registry = { "workload", workload_describe, &lab_rwsem_knob_locks };

const struct lab_workload_ops *lab_workload_lookup(const char *name)
{
	int i = lab_registry_index(&lab_workload_registry, name);

	return i < 0 ? NULL : lab_workloads[i];
}

int lab_workload_max_threads(const struct lab_workload_conf *wl)
{
	int tasks = LAB_MAX_TASKS - LAB_HARNESS_TASKS;

	return wl->ops->max_threads ? wl->ops->max_threads(wl, tasks) : tasks;
}

void lab_workload_names(char *buf, size_t len)
{
	lab_registry_names(&lab_workload_registry, buf, len, true);
}

static void workload_fill(struct lab_workload_conf *conf, const struct lab_spec *s)
{
	conf->ops = lab_workloads[s->idx];
	memcpy(conf->knob, s->knob, sizeof(conf->knob));
	memcpy(conf->label, s->label, sizeof(conf->label));
}

/*
 * The simulated build runs the workloads marked .simulated (workload.h);
 * any other is refused with one line naming the ones that run (since
 * tlb_flush's IPIs became simulated interrupts, every workload runs).
 * Returns 0 (always natively) or -1 with @err.
 */
static int sim_check(const struct lab_workload_conf *conf, char *err, size_t errlen)
{
	const char *sep = " ";
	size_t n;

	if (!LAB_SIM || conf->ops->simulated)
		return 0;
	n = (size_t)snprintf(err, errlen, "workload '%s' is not modelled under --sim yet (valid under --sim:",
			     conf->ops->name);
	for (int i = 0; lab_workloads[i] && n < errlen; i++)
		if (lab_workloads[i]->simulated) {
			n += (size_t)snprintf(err + n, errlen - n, "%s%s", sep, lab_workloads[i]->name);
			sep = ", ";
		}
	if (n < errlen)
		snprintf(err + n, errlen - n, ")");
	return -1;
}

int lab_workload_parse(const char *spec, struct lab_workload_conf *conf, char *err, size_t errlen)
{
	struct lab_spec s;

	memset(conf, 0, sizeof(*conf));
	if (lab_registry_parse(&lab_workload_registry, spec, &s, err, errlen))
		return -1;
	workload_fill(conf, &s);
	return sim_check(conf, err, errlen);
}

int lab_workload_expand_knob(struct lab_workload_conf *confs, int max, int *n, const char *key,
			     const char *values, char *err, size_t errlen)
{
	struct lab_workload_conf *out = calloc((size_t)max, sizeof(*out));
	char buf[512];
	int k = 0, hits = 0;

	if (!out || !values || !*values || strlen(values) >= sizeof(buf)) {
		snprintf(err, errlen, "bad value list for knob %s", key);
		free(out);
		return -1;
	}
	for (int i = 0; i < *n; i++) {
		const struct lab_knob *defs = confs[i].ops->knobs;
		char *save = NULL, *tok;
		size_t idx = 0, nk = lab_knobs_count(defs);

		while (idx < nk && strcmp(defs[idx].name, key))
			idx++;
		if (idx == nk) {
			if (k == max)
				goto too_many;
			out[k++] = confs[i];
			continue;
		}
		hits++;
		strcpy(buf, values);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char kv[LAB_SPEC_MAX];
			long vals[LAB_KNOBS_MAX];

			snprintf(kv, sizeof(kv), "%s=%s", key, tok);
			if (lab_knobs_parse(confs[i].ops->name, defs, kv, lab_workload_registry.locks, vals, err, errlen)) {
				free(out);
				return -1;
			}
			if (k == max)
				goto too_many;
			out[k] = confs[i];
			out[k].knob[idx] = vals[idx];
			if (lab_registry_label(&lab_workload_registry, lab_registry_index(&lab_workload_registry, confs[i].ops->name),
					       out[k].knob, out[k].label, sizeof(out[k].label), err, errlen)) {
				free(out);
				return -1;
			}
			k++;
		}
	}
	if (!hits) {	/* name the workloads given and those that have the knob */
		char given[256] = "", have[256] = "";

		for (int i = 0; i < *n; i++)
			snprintf(given + strlen(given), sizeof(given) - strlen(given), "%s%s", i ? ", " : "",
				 confs[i].label);
		for (int i = 0; lab_workloads[i]; i++)
			for (const struct lab_knob *kn = lab_workloads[i]->knobs; kn && kn->name; kn++)
				if (!strcmp(kn->name, key))
					snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s",
						 have[0] ? ", " : "", lab_workloads[i]->name);
		snprintf(err, errlen, "%s%s has %s knob '%s' to vary (valid: -w with %s)", *n > 1 ? "none of " : "",
			 given, *n > 1 ? "a" : "no", key, have[0] ? have : "a workload that has it");
		free(out);
		return -1;
	}
	memcpy(confs, out, (size_t)k * sizeof(*out));
	*n = k;
	free(out);
	return 0;
too_many:
	snprintf(err, errlen, "varying %s: too many workloads (max %d)", key, max);
	free(out);
	return -1;
}

struct workload_list {
	struct lab_workload_conf *confs;
	int max, *n;
};

static int workload_list_add(void *arg, const struct lab_spec *s, char *err, size_t errlen)
{
	struct workload_list *l = arg;

	if (*l->n >= l->max) {
		snprintf(err, errlen, "too many workloads (max %d)", l->max);
		return -1;
	}
	workload_fill(&l->confs[*l->n], s);
	return sim_check(&l->confs[(*l->n)++], err, errlen);
}

int lab_workload_parse_list(const char *arg, struct lab_workload_conf *confs, int max, int *n,
			    char *err, size_t errlen)
{
	struct workload_list l = { confs, max, n };

	return lab_registry_parse_list(&lab_workload_registry, arg, workload_list_add, &l, err, errlen);
}

void lab_workload_footprint(const struct lab_workload_conf *wl, int nthreads, size_t *per_cell, size_t *shared)
{
	*per_cell = LAB_FOOTPRINT_CELL;
	*shared = 0;
	if (wl->ops->footprint)
		wl->ops->footprint(wl, nthreads, per_cell, shared);
	*per_cell += (size_t)nthreads * LAB_FOOTPRINT_THREAD;
}
