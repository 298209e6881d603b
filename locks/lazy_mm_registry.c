/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lazy-mm scheme registry, generated from lazy_mm_schemes.h, and the
 * -m/--lazy-mm parser (the same rules as -l, see rwsem.h).
 */
#include <stdio.h>
#include <string.h>

#include "lazy_mm.h"
#include "plugin.h"
#include "rwsem.h"

#define LAB_LAZY_SCHEME(sym) extern const struct lab_lazy_mm_ops sym;
#include "lazy_mm_schemes.h"
#undef LAB_LAZY_SCHEME

const struct lab_lazy_mm_ops *const lab_lazy_mm_schemes[] = {
#define LAB_LAZY_SCHEME(sym) &sym,
#include "lazy_mm_schemes.h"
#undef LAB_LAZY_SCHEME
	NULL
};

static bool lazy_describe(int i, struct lab_plugin *p)
{
	const struct lab_lazy_mm_ops *ops = lab_lazy_mm_schemes[i];

	if (!ops)
		return false;
	*p = (struct lab_plugin){ ops->name, ops->summary, ops->cite, ops->knobs,
				  (ops->flags & LAB_LAZY_NOT_IN_ALL) != 0, false };
	return true;
}

const struct lab_registry lab_lazy_mm_registry = { "lazy-mm scheme", lazy_describe, &lab_rwsem_knob_locks };

const struct lab_lazy_mm_ops *lab_lazy_mm_lookup(const char *name)
{
	int i = lab_registry_index(&lab_lazy_mm_registry, name);

	return i < 0 ? NULL : lab_lazy_mm_schemes[i];
}

void lab_lazy_mm_names(char *buf, size_t len, bool with_hidden)
{
	lab_registry_names(&lab_lazy_mm_registry, buf, len, with_hidden);
}

static void lazy_fill(struct lab_lazy_mm_conf *conf, const struct lab_spec *s)
{
	conf->ops = lab_lazy_mm_schemes[s->idx];
	memcpy(conf->knob, s->knob, sizeof(conf->knob));
	memcpy(conf->label, s->label, sizeof(conf->label));
}

int lab_lazy_mm_parse(const char *spec, struct lab_lazy_mm_conf *conf, char *err, size_t errlen)
{
	struct lab_spec s;

	memset(conf, 0, sizeof(*conf));
	if (lab_registry_parse(&lab_lazy_mm_registry, spec, &s, err, errlen))
		return -1;
	lazy_fill(conf, &s);
	return 0;
}

struct lazy_list {
	struct lab_lazy_mm_conf *confs;
	int max, *n;
};

static int lazy_list_add(void *arg, const struct lab_spec *s, char *err, size_t errlen)
{
	struct lazy_list *l = arg;

	if (*l->n >= l->max) {
		snprintf(err, errlen, "too many lazy-mm schemes (max %d)", l->max);
		return -1;
	}
	lazy_fill(&l->confs[(*l->n)++], s);
	return 0;
}

int lab_lazy_mm_parse_list(const char *arg, struct lab_lazy_mm_conf *confs, int max, int *n,
			   char *err, size_t errlen)
{
	struct lazy_list l = { confs, max, n };

	return lab_registry_parse_list(&lab_lazy_mm_registry, arg, lazy_list_add, &l, err, errlen);
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
