/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/plugin.h - one registry implementation for every kind of plugin:
 * lock variants (variants.h), lazy-mm schemes (lazy_mm_schemes.h) and
 * workloads (workloads/workloads.h).
 *
 * A plugin is an ops table whose registry-visible part is a struct
 * lab_plugin (name, summary, citation, knob table, whether 'all' includes
 * it). A registry reads that part through @describe, so the ops tables keep
 * their own layouts. Lookup, the list of names, spec parsing
 * ("NAME[:key=val,...]"), 'all', and the label every cell is keyed by are
 * implemented once, here.
 *
 * Labels are never truncated: a label that does not fit LAB_SPEC_MAX bytes
 * is an error naming it, since the label is the cell key of the CSV, report
 * and --resume (two configurations must never share one).
 *
 * Threading: registries are read-only tables; every function is reentrant.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "knob.h"

struct lab_plugin {
	const char *name;		/* what users type after -l/-m/-w */
	const char *summary;		/* one line for `rwlab list` */
	const char *cite;		/* the kernel version/commit, paper or benchmark it follows */
	const struct lab_knob *knobs;	/* NULL or NULL-name-terminated */
	bool not_in_all;		/* 'all' leaves it out */
	bool refused_here;		/* this build cannot run it (rwlab-sim: LAB_CAP_NO_SIM): named in no list of valid names */
};

struct lab_registry {
	const char *what;		/* "lock variant", "lazy-mm scheme", "workload": for messages */
	/* Fill @p for entry @i; false past the last entry. */
	bool (*describe)(int i, struct lab_plugin *p);
	/* The variants the entries' LAB_KNOB_LOCK knobs name (knob.h): &lab_rwsem_knob_locks */
	const struct lab_knob_locks *locks;
};

/* One parsed spec: the entry, its knob values (defaults first) and its label. */
struct lab_spec {
	int idx;
	long knob[LAB_KNOBS_MAX];
	char label[LAB_SPEC_MAX];	/* "name" or "name:key=val,..." (non-default knobs) */
};

/* Index of the entry named @name, or -1. */
int lab_registry_index(const struct lab_registry *r, const char *name);

/* "a, b, c" into @buf; @with_hidden includes the entries 'all' leaves out, never those refused here. */
void lab_registry_names(const struct lab_registry *r, char *buf, size_t len, bool with_hidden);

/*
 * lab_registry_label() - "name" or "name:key=val,..." for entry @idx with
 * knob values @knob (lab_knobs_format). Returns 0, or -1 with a message
 * naming the label when it does not fit @len bytes.
 */
int lab_registry_label(const struct lab_registry *r, int idx, const long *knob, char *label, size_t len,
		       char *err, size_t errlen);

/*
 * lab_registry_parse() - one spec "NAME[:key=val,...]" into @s.
 * Returns 0, or -1 with a one-line message naming the valid choices.
 */
int lab_registry_parse(const struct lab_registry *r, const char *spec, struct lab_spec *s, char *err,
		       size_t errlen);

/*
 * lab_registry_parse_list() - a -l/-m/-w argument (lab_spec_list_each's
 * rules; "all" = every entry not marked not_in_all): each spec parsed and
 * handed to @add(@ctx, spec, err, errlen), which stores it (and may refuse
 * it with -1 and a message). Returns 0 or -1 with a message.
 */
int lab_registry_parse_list(const struct lab_registry *r, const char *arg,
			    int (*add)(void *ctx, const struct lab_spec *s, char *err, size_t errlen), void *ctx,
			    char *err, size_t errlen);
