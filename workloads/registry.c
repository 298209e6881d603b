/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const struct lab_workload_ops *lab_workload_lookup(const char *name)
{
	for (int i = 0; lab_workloads[i]; i++)
		if (!strcmp(lab_workloads[i]->name, name))
			return lab_workloads[i];
	return NULL;
}

void lab_workload_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; lab_workloads[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", lab_workloads[i]->name);
}

/* "name" or "name:key=val,..." with the knobs that differ from their defaults. */
static void workload_label(struct lab_workload_conf *conf)
{
	char kvs[LAB_SPEC_MAX];

	lab_knobs_format(conf->ops->knobs, conf->knob, kvs, sizeof(kvs));
	snprintf(conf->label, sizeof(conf->label), "%.60s%s%.98s", conf->ops->name, kvs[0] ? ":" : "", kvs);
}

int lab_workload_parse(const char *spec, struct lab_workload_conf *conf, char *err, size_t errlen)
{
	char name[64];
	const char *kv;

	memset(conf, 0, sizeof(*conf));
	if (lab_spec_split(spec, name, sizeof(name), &kv)) {
		snprintf(err, errlen, "bad workload spec '%s' (expected NAME or NAME:key=val,...)", spec);
		return -1;
	}
	conf->ops = lab_workload_lookup(name);
	if (!conf->ops) {
		char names[512];

		lab_workload_names(names, sizeof(names));
		snprintf(err, errlen, "unknown workload '%s' (valid: %s)", name, names);
		return -1;
	}
	/*
	 * The simulated build runs the workloads whose every shared access and
	 * every wait goes through the locks/ seams: locktest. The mm workloads
	 * (their address-space model, page zeroing, RCU lookups) and the lazy-mm
	 * ones (pipes, IPIs) are issue 11.
	 */
	if (LAB_SIM && strcmp(conf->ops->name, "locktest")) {
		snprintf(err, errlen, "workload '%s' cannot run under --sim yet: it uses pipes, syscalls or the mm "
			 "model outside the simulator's seams (valid under --sim: locktest)", name);
		return -1;
	}
	if (lab_knobs_parse(conf->ops->name, conf->ops->knobs, kv, conf->knob, err, errlen))
		return -1;
	workload_label(conf);
	return 0;
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
			if (lab_knobs_parse(confs[i].ops->name, defs, kv, vals, err, errlen)) {
				free(out);
				return -1;
			}
			if (k == max)
				goto too_many;
			out[k] = confs[i];
			out[k].knob[idx] = vals[idx];
			workload_label(&out[k]);
			k++;
		}
	}
	if (!hits) {
		snprintf(err, errlen, "none of the workloads has a knob '%s' to vary", key);
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

static int workload_list_push(const char *spec, void *arg, char *err, size_t errlen)
{
	struct workload_list *l = arg;

	if (*l->n >= l->max) {
		snprintf(err, errlen, "too many workloads (max %d)", l->max);
		return -1;
	}
	if (lab_workload_parse(spec, &l->confs[*l->n], err, errlen))
		return -1;
	(*l->n)++;
	return 0;
}

int lab_workload_parse_list(const char *arg, struct lab_workload_conf *confs, int max, int *n,
			    char *err, size_t errlen)
{
	struct workload_list l = { confs, max, n };

	return lab_spec_list_each(arg, "workload", workload_list_push, &l, err, errlen);
}
