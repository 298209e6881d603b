/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rwsem variant registry, generated from variants.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "plugin.h"
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

static bool sim_names;	/* lab_rwsem_sim_names() */

void lab_rwsem_sim_names(bool on)
{
	sim_names = on;
}

bool lab_rwsem_refused_here(const struct lab_rwsem_ops *ops)
{
	return (LAB_SIM || sim_names) && (ops->caps & LAB_CAP_NO_SIM);
}

bool lab_rwsem_preloadable(const struct lab_rwsem_ops *ops)
{
	const unsigned need = LAB_CAP_READ_TRYLOCK | LAB_CAP_WRITE_TRYLOCK;

	return (ops->caps & need) == need;
}

void lab_rwsem_preload_names(char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = 0;
	for (int i = 0; lab_rwsem_variants[i] && off < len; i++)
		if (lab_rwsem_preloadable(lab_rwsem_variants[i]) && !lab_rwsem_refused_here(lab_rwsem_variants[i]))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
						lab_rwsem_variants[i]->name);
}

bool lab_rwsem_spec_unknown(const char *spec, char *name, size_t len)
{
	const char *kv;

	if (lab_spec_split(spec, name, len, &kv) || lab_rwsem_index(name) >= 0) {
		if (len)
			name[0] = 0;
		return false;
	}
	return true;
}

static bool rwsem_describe(int i, struct lab_plugin *p)
{
	const struct lab_rwsem_ops *ops = lab_rwsem_variants[i];
	bool refused;

	if (!ops)
		return false;
	refused = lab_rwsem_refused_here(ops);
	/* The simulated build leaves the variants it cannot see out of "all" and out of the valid names. */
	*p = (struct lab_plugin){ ops->name, ops->summary, ops->cite, ops->knobs,
				  (ops->caps & LAB_CAP_NOT_IN_ALL) || refused, refused };
	return true;
}

const struct lab_knob_locks lab_rwsem_knob_locks = { lab_rwsem_index, lab_rwsem_by_index, lab_rwsem_refused_here };

const struct lab_registry lab_rwsem_registry = { "lock variant", rwsem_describe, &lab_rwsem_knob_locks };

int lab_rwsem_index(const char *name)
{
	return lab_registry_index(&lab_rwsem_registry, name);
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
	lab_registry_names(&lab_rwsem_registry, buf, len, with_hidden);
}

static void rwsem_fill(struct lab_rwsem_conf *conf, const struct lab_spec *s)
{
	conf->ops = lab_rwsem_variants[s->idx];
	memcpy(conf->knob, s->knob, sizeof(conf->knob));
	memcpy(conf->label, s->label, sizeof(conf->label));
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

/* The simulated build's refusal of @conf, in @err; 0 when it can run (always natively). */
static int sim_check(const struct lab_rwsem_conf *conf, char *err, size_t errlen)
{
	if (!LAB_SIM || !sim_refused(conf))
		return 0;
	snprintf(err, errlen, "lock variant '%s' cannot run under --sim: it synchronises through %s outside "
		 "locks/atomic.h, which the simulator cannot see (valid under --sim: every variant but pthread, "
		 "pthread-wp and ck-*)", conf->label,
		 strstr(conf->label, "ck") ? "ck's inline-assembly atomics" : "glibc's own atomics and futex calls");
	return -1;
}

int lab_rwsem_parse(const char *spec, struct lab_rwsem_conf *conf, char *err, size_t errlen)
{
	struct lab_spec s;

	memset(conf, 0, sizeof(*conf));
	if (lab_registry_parse(&lab_rwsem_registry, spec, &s, err, errlen))
		return -1;
	rwsem_fill(conf, &s);
	return sim_check(conf, err, errlen);
}

struct rwsem_list {
	struct lab_rwsem_conf *confs;
	int max, *n;
};

static int rwsem_list_add(void *arg, const struct lab_spec *s, char *err, size_t errlen)
{
	struct rwsem_list *l = arg;

	if (*l->n >= l->max) {
		snprintf(err, errlen, "too many lock variants (max %d)", l->max);
		return -1;
	}
	rwsem_fill(&l->confs[*l->n], s);
	return sim_check(&l->confs[(*l->n)++], err, errlen);
}

int lab_rwsem_parse_list(const char *arg, struct lab_rwsem_conf *confs, int max, int *n,
			 char *err, size_t errlen)
{
	struct rwsem_list l = { confs, max, n };

	return lab_registry_parse_list(&lab_rwsem_registry, arg, rwsem_list_add, &l, err, errlen);
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

int lab_lock_init_at(struct lab_lock *l, const struct lab_rwsem_conf *conf, void *mem, size_t room)
{
	const struct lab_rwsem_ops *ops = conf->ops;
	int r;

	l->ops = ops;
	l->sem = NULL;
	if (!(ops->caps & LAB_CAP_EMBED) || (uintptr_t)mem % sizeof(long))
		return -EINVAL;
	if (room < ops->size)
		return -ENOSPC;
	memset(mem, 0, ops->size);
	r = ops->init((struct lab_rwsem *)mem, conf);
	if (r)
		return r;
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

void lab_lock_destroy_at(struct lab_lock *l)
{
	if (l->sem && l->ops->destroy)
		l->ops->destroy(l->sem);
	l->sem = NULL;
}
