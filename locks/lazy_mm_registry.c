/* SPDX-License-Identifier: MIT */
/*
 * The lazy-mm scheme registry, generated from lazy_mm_schemes.h, and the
 * -m/--lazy-mm parser (the same rules as -l, see rwsem.h).
 */
#include <stdio.h>
#include <string.h>

#include "lazy_mm.h"

#define LAB_LAZY_SCHEME(sym) extern const struct lab_lazy_mm_ops sym;
#include "lazy_mm_schemes.h"
#undef LAB_LAZY_SCHEME

const struct lab_lazy_mm_ops *const lab_lazy_mm_schemes[] = {
#define LAB_LAZY_SCHEME(sym) &sym,
#include "lazy_mm_schemes.h"
#undef LAB_LAZY_SCHEME
	NULL
};

const struct lab_lazy_mm_ops *lab_lazy_mm_lookup(const char *name)
{
	for (int i = 0; lab_lazy_mm_schemes[i]; i++)
		if (!strcmp(lab_lazy_mm_schemes[i]->name, name))
			return lab_lazy_mm_schemes[i];
	return NULL;
}

void lab_lazy_mm_names(char *buf, size_t len, bool with_hidden)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; lab_lazy_mm_schemes[i] && off < len; i++) {
		const struct lab_lazy_mm_ops *ops = lab_lazy_mm_schemes[i];

		if (!with_hidden && (ops->flags & LAB_LAZY_NOT_IN_ALL))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", ops->name);
	}
}

int lab_lazy_mm_parse(const char *spec, struct lab_lazy_mm_conf *conf, char *err, size_t errlen)
{
	char name[64], kvs[LAB_SPEC_MAX];
	const char *kv;

	memset(conf, 0, sizeof(*conf));
	if (lab_spec_split(spec, name, sizeof(name), &kv)) {
		snprintf(err, errlen, "bad lazy-mm spec '%s' (expected NAME or NAME:key=val,...)", spec);
		return -1;
	}
	conf->ops = lab_lazy_mm_lookup(name);
	if (!conf->ops) {
		char names[512];

		lab_lazy_mm_names(names, sizeof(names), true);
		snprintf(err, errlen, "unknown lazy-mm scheme '%s' (valid: all, %s)", name, names);
		return -1;
	}
	if (lab_knobs_parse(conf->ops->name, conf->ops->knobs, kv, conf->knob, err, errlen))
		return -1;
	lab_knobs_format(conf->ops->knobs, conf->knob, kvs, sizeof(kvs));
	snprintf(conf->label, sizeof(conf->label), "%.60s%s%.98s", conf->ops->name, kvs[0] ? ":" : "", kvs);
	return 0;
}

struct lazy_list {
	struct lab_lazy_mm_conf *confs;
	int max, *n;
};

static int lazy_list_push(const char *spec, void *arg, char *err, size_t errlen)
{
	struct lazy_list *l = arg;

	if (!strcmp(spec, "all")) {
		for (int i = 0; lab_lazy_mm_schemes[i]; i++)
			if (!(lab_lazy_mm_schemes[i]->flags & LAB_LAZY_NOT_IN_ALL) &&
			    lazy_list_push(lab_lazy_mm_schemes[i]->name, l, err, errlen))
				return -1;
		return 0;
	}
	if (*l->n >= l->max) {
		snprintf(err, errlen, "too many lazy-mm schemes (max %d)", l->max);
		return -1;
	}
	if (lab_lazy_mm_parse(spec, &l->confs[*l->n], err, errlen))
		return -1;
	(*l->n)++;
	return 0;
}

int lab_lazy_mm_parse_list(const char *arg, struct lab_lazy_mm_conf *confs, int max, int *n,
			   char *err, size_t errlen)
{
	struct lazy_list l = { confs, max, n };

	return lab_spec_list_each(arg, "lazy-mm scheme", lazy_list_push, &l, err, errlen);
}

int lab_lazy_mm_allowed(const struct lab_lazy_mm_conf *conf, bool releases_under_load,
			bool allow_unsafe, char *err, size_t errlen)
{
	if (!(conf->ops->flags & LAB_LAZY_UNSAFE) || !releases_under_load || allow_unsafe)
		return 0;
	snprintf(err, errlen,
		 "%s keeps no lazy mm alive: it is a cost floor only, refused where a release races with "
		 "lazy users (give --unsafe to run it anyway and watch the use-after-free checks fire)",
		 conf->ops->name);
	return -1;
}
