/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdio.h>
#include <string.h>

#include "plugin.h"

int lab_registry_index(const struct lab_registry *r, const char *name)
{
	struct lab_plugin p;

	for (int i = 0; r->describe(i, &p); i++)
		if (!strcmp(p.name, name))
			return i;
	return -1;
}

void lab_registry_names(const struct lab_registry *r, char *buf, size_t len, bool with_hidden)
{
	struct lab_plugin p;
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; r->describe(i, &p) && off < len; i++) {
		if ((!with_hidden && p.not_in_all) || p.refused_here)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", p.name);
	}
}

int lab_registry_label(const struct lab_registry *r, int idx, const long *knob, char *label, size_t len,
		       char *err, size_t errlen)
{
	char kvs[2 * LAB_SPEC_MAX];
	struct lab_plugin p;
	int n;

	r->describe(idx, &p);
	lab_knobs_format(p.knobs, knob, r->locks, kvs, sizeof(kvs));
	n = snprintf(label, len, "%s%s%s", p.name, kvs[0] ? ":" : "", kvs);
	if (n < 0 || (size_t)n >= len || strlen(kvs) + 1 >= sizeof(kvs)) {
		snprintf(err, errlen, "%s label '%s:%s' is too long (%d characters, at most %zu): set fewer knobs",
			 r->what, p.name, kvs, n, len - 1);
		return -1;
	}
	return 0;
}

int lab_registry_parse(const struct lab_registry *r, const char *spec, struct lab_spec *s, char *err,
		       size_t errlen)
{
	char name[64];
	const char *kv;
	struct lab_plugin p;

	memset(s, 0, sizeof(*s));
	if (lab_spec_split(spec, name, sizeof(name), &kv)) {
		snprintf(err, errlen, "bad %s spec '%s' (expected NAME or NAME:key=val,...)", r->what, spec);
		return -1;
	}
	s->idx = lab_registry_index(r, name);
	if (s->idx < 0) {
		char names[1024];

		lab_registry_names(r, names, sizeof(names), true);
		snprintf(err, errlen, "unknown %s '%s' (valid: all, %s)", r->what, name, names);
		return -1;
	}
	r->describe(s->idx, &p);
	if (lab_knobs_parse(p.name, p.knobs, kv, r->locks, s->knob, err, errlen))
		return -1;
	return lab_registry_label(r, s->idx, s->knob, s->label, sizeof(s->label), err, errlen);
}

struct list_ctx {
	const struct lab_registry *r;
	int (*add)(void *ctx, const struct lab_spec *s, char *err, size_t errlen);
	void *ctx;
};

static int list_push(const char *spec, void *arg, char *err, size_t errlen)
{
	struct list_ctx *l = arg;
	struct lab_spec s;
	struct lab_plugin p;

	if (!strcmp(spec, "all")) {
		for (int i = 0; l->r->describe(i, &p); i++)
			if (!p.not_in_all && list_push(p.name, l, err, errlen))
				return -1;
		return 0;
	}
	if (lab_registry_parse(l->r, spec, &s, err, errlen))
		return -1;
	return l->add(l->ctx, &s, err, errlen);
}

int lab_registry_parse_list(const struct lab_registry *r, const char *arg,
			    int (*add)(void *ctx, const struct lab_spec *s, char *err, size_t errlen), void *ctx,
			    char *err, size_t errlen)
{
	struct list_ctx l = { r, add, ctx };

	return lab_spec_list_each(arg, r->what, list_push, &l, err, errlen);
}
