/* SPDX-License-Identifier: MIT */
#include <stdio.h>
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

int lab_workload_parse(const char *spec, struct lab_workload_conf *conf, char *err, size_t errlen)
{
	char name[64], kvs[LAB_SPEC_MAX];
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
	if (lab_knobs_parse(conf->ops->name, conf->ops->knobs, kv, conf->knob, err, errlen))
		return -1;
	lab_knobs_format(conf->ops->knobs, conf->knob, kvs, sizeof(kvs));
	snprintf(conf->label, sizeof(conf->label), "%.60s%s%.98s", conf->ops->name, kvs[0] ? ":" : "", kvs);
	return 0;
}

int lab_workload_parse_list(const char *arg, struct lab_workload_conf *confs, int max, int *n,
			    char *err, size_t errlen)
{
	char buf[1024], spec[LAB_SPEC_MAX];
	char *save = NULL, *tok;
	bool have = false;

	if (!arg || !*arg || strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "empty or too long workload list");
		return -1;
	}
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
		if (tok && strchr(tok, '=') && !strchr(tok, ':')) {
			if (!have || strlen(spec) + strlen(tok) + 2 >= sizeof(spec)) {
				snprintf(err, errlen, "knob '%s' given before any workload, or spec too long", tok);
				return -1;
			}
			strcat(spec, ",");
			strcat(spec, tok);
			continue;
		}
		if (have) {
			if (*n >= max) {
				snprintf(err, errlen, "too many workloads (max %d)", max);
				return -1;
			}
			if (lab_workload_parse(spec, &confs[*n], err, errlen))
				return -1;
			(*n)++;
		}
		if (!tok)
			break;
		if (strlen(tok) >= sizeof(spec)) {
			snprintf(err, errlen, "workload spec too long");
			return -1;
		}
		strcpy(spec, tok);
		have = true;
	}
	if (!have) {	/* "," or ",,": only separators */
		snprintf(err, errlen, "empty workload list '%s'", arg);
		return -1;
	}
	return 0;
}
