/* SPDX-License-Identifier: MIT */
/*
 * The rwsem variant registry, generated from variants.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rwsem.h"

#define LAB_VARIANT(sym) extern const struct lab_rwsem_ops sym;
#include "variants.h"
#undef LAB_VARIANT

const struct lab_rwsem_ops *const lab_rwsem_variants[] = {
#define LAB_VARIANT(sym) &sym,
#include "variants.h"
#undef LAB_VARIANT
	NULL
};

int lab_rwsem_index(const char *name)
{
	for (int i = 0; lab_rwsem_variants[i]; i++)
		if (!strcmp(lab_rwsem_variants[i]->name, name))
			return i;
	return -1;
}

const struct lab_rwsem_ops *lab_rwsem_by_index(int idx)
{
	int n = 0;

	while (lab_rwsem_variants[n])
		n++;
	return idx >= 0 && idx < n ? lab_rwsem_variants[idx] : NULL;
}

const struct lab_rwsem_ops *lab_rwsem_lookup(const char *name)
{
	return lab_rwsem_by_index(lab_rwsem_index(name));
}

void lab_rwsem_names(char *buf, size_t len, bool with_hidden)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; lab_rwsem_variants[i] && off < len; i++) {
		const struct lab_rwsem_ops *ops = lab_rwsem_variants[i];

		if (!with_hidden && (ops->caps & LAB_CAP_NOT_IN_ALL))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", ops->name);
	}
}

/* The variant, or the lock it wraps (bravo's base), cannot run in the simulated build. */
static bool sim_refused(const struct lab_rwsem_conf *conf)
{
	const struct lab_knob *k = conf->ops->knobs;

	if (conf->ops->caps & LAB_CAP_NO_SIM)
		return true;
	for (size_t i = 0; k && k[i].name; i++)
		if (k[i].type == LAB_KNOB_LOCK && (lab_rwsem_by_index((int)conf->knob[i])->caps & LAB_CAP_NO_SIM))
			return true;
	return false;
}

int lab_rwsem_parse(const char *spec, struct lab_rwsem_conf *conf, char *err, size_t errlen)
{
	char name[64], kvs[LAB_SPEC_MAX];
	const char *kv;

	memset(conf, 0, sizeof(*conf));
	if (lab_spec_split(spec, name, sizeof(name), &kv)) {
		snprintf(err, errlen, "bad lock spec '%s' (expected NAME or NAME:key=val,...)", spec);
		return -1;
	}
	conf->ops = lab_rwsem_lookup(name);
	if (!conf->ops) {
		char names[512];

		lab_rwsem_names(names, sizeof(names), true);
		snprintf(err, errlen, "unknown lock variant '%s' (valid: all, %s)", name, names);
		return -1;
	}
	if (lab_knobs_parse(conf->ops->name, conf->ops->knobs, kv, conf->knob, err, errlen))
		return -1;
	if (LAB_SIM && sim_refused(conf)) {
		snprintf(err, errlen, "lock variant '%s' cannot run under --sim: it synchronises through %s outside "
			 "locks/atomic.h, which the simulator cannot see (valid under --sim: every variant but pthread, pthread-wp and ck-*)", spec,
			 strncmp(name, "ck", 2) && !strstr(spec, "ck") ? "glibc's own atomics and futex calls" :
			 "ck's inline-assembly atomics");
		return -1;
	}
	lab_knobs_format(conf->ops->knobs, conf->knob, kvs, sizeof(kvs));
	snprintf(conf->label, sizeof(conf->label), "%.60s%s%.98s", conf->ops->name, kvs[0] ? ":" : "", kvs);
	return 0;
}

struct rwsem_list {
	struct lab_rwsem_conf *confs;
	int max, *n;
};

static int rwsem_list_push(const char *spec, void *arg, char *err, size_t errlen)
{
	struct rwsem_list *l = arg;

	if (!strcmp(spec, "all")) {
		for (int i = 0; lab_rwsem_variants[i]; i++)
			if (!(lab_rwsem_variants[i]->caps & LAB_CAP_NOT_IN_ALL) &&
			    !(LAB_SIM && (lab_rwsem_variants[i]->caps & LAB_CAP_NO_SIM)) &&
			    rwsem_list_push(lab_rwsem_variants[i]->name, l, err, errlen))
				return -1;
		return 0;
	}
	if (*l->n >= l->max) {
		snprintf(err, errlen, "too many lock variants (max %d)", l->max);
		return -1;
	}
	if (lab_rwsem_parse(spec, &l->confs[*l->n], err, errlen))
		return -1;
	(*l->n)++;
	return 0;
}

int lab_rwsem_parse_list(const char *arg, struct lab_rwsem_conf *confs, int max, int *n,
			 char *err, size_t errlen)
{
	struct rwsem_list l = { confs, max, n };

	return lab_spec_list_each(arg, "lock variant", rwsem_list_push, &l, err, errlen);
}

bool lab_rwsem_conf_foreign_atomics(const struct lab_rwsem_conf *conf)
{
	const struct lab_knob *k = conf->ops->knobs;

	if (conf->ops->caps & LAB_CAP_FOREIGN_ATOMICS)
		return true;
	for (size_t i = 0; k && k[i].name; i++) {
		const struct lab_rwsem_ops *inner;

		if (k[i].type != LAB_KNOB_LOCK)
			continue;
		inner = lab_rwsem_by_index((int)conf->knob[i]);
		/* The wrapped lock gets its default knobs (see bravo's base). */
		if (inner && (inner->caps & LAB_CAP_FOREIGN_ATOMICS))
			return true;
	}
	return false;
}

int lab_lock_init(struct lab_lock *l, const struct lab_rwsem_conf *conf)
{
	const struct lab_rwsem_ops *ops = conf->ops;
	size_t align = ops->align < sizeof(void *) ? sizeof(void *) : ops->align;
	size_t size = (ops->size + align - 1) / align * align;
	void *mem;
	int r;

	l->ops = ops;
	l->sem = NULL;
	if (posix_memalign(&mem, align, size ? size : align))
		return -ENOMEM;
	memset(mem, 0, size ? size : align);
	r = ops->init((struct lab_rwsem *)mem, conf);
	if (r) {
		free(mem);
		return r;
	}
	l->sem = (struct lab_rwsem *)mem;
	return 0;
}

void lab_lock_destroy(struct lab_lock *l)
{
	if (!l->sem)
		return;
	if (l->ops->destroy)
		l->ops->destroy(l->sem);
	free(l->sem);
	l->sem = NULL;
}
