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

static int push_spec(const char *spec, struct lab_lazy_mm_conf *confs, int max, int *n, char *err,
		     size_t errlen)
{
	if (!strcmp(spec, "all")) {
		for (int i = 0; lab_lazy_mm_schemes[i]; i++) {
			if (lab_lazy_mm_schemes[i]->flags & LAB_LAZY_NOT_IN_ALL)
				continue;
			if (push_spec(lab_lazy_mm_schemes[i]->name, confs, max, n, err, errlen))
				return -1;
		}
		return 0;
	}
	if (*n >= max) {
		snprintf(err, errlen, "too many lazy-mm schemes (max %d)", max);
		return -1;
	}
	if (lab_lazy_mm_parse(spec, &confs[*n], err, errlen))
		return -1;
	(*n)++;
	return 0;
}

int lab_lazy_mm_parse_list(const char *arg, struct lab_lazy_mm_conf *confs, int max, int *n,
			   char *err, size_t errlen)
{
	char buf[1024], spec[LAB_SPEC_MAX];
	char *save = NULL, *tok;
	bool have = false;

	if (!arg || !*arg || strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "empty or too long lazy-mm list");
		return -1;
	}
	strcpy(buf, arg);
	spec[0] = 0;
	/* Gather "NAME:k=v" plus following "k=v" tokens into one spec, then parse it. */
	for (tok = strtok_r(buf, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
		if (tok && strchr(tok, '=') && !strchr(tok, ':')) {
			if (!have || strlen(spec) + strlen(tok) + 2 >= sizeof(spec)) {
				snprintf(err, errlen, "knob '%s' given before any scheme, or spec too long", tok);
				return -1;
			}
			strcat(spec, ",");
			strcat(spec, tok);
			continue;
		}
		if (have && push_spec(spec, confs, max, n, err, errlen))
			return -1;
		if (!tok)
			break;
		if (strlen(tok) >= sizeof(spec)) {
			snprintf(err, errlen, "lazy-mm spec too long");
			return -1;
		}
		strcpy(spec, tok);
		have = true;
	}
	return 0;
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
