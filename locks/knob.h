/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/knob.h - named integer knobs for variants, schemes and workloads.
 *
 * A spec is "NAME" or "NAME:key=val,key=val". Each variant or workload
 * publishes a table of struct lab_knob (terminated by an entry with name
 * NULL); the parser fills one long per table entry, in table order, starting
 * from the defaults. Units are part of the key name (handoff_timeout_us).
 *
 * Errors: an unknown key, a value out of [min, max], a malformed pair or a
 * duplicate key is an error with a one-line message naming the valid keys.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define LAB_KNOBS_MAX 16
#define LAB_SPEC_MAX 512	/* one spec, and one label (the cell key); never truncated */

enum lab_knob_type {
	LAB_KNOB_INT,		/* decimal integer in [min, max] */
	LAB_KNOB_BOOL,		/* 0/1, true/false, on/off, yes/no */
	LAB_KNOB_ENUM,		/* one word of `choices` ("a|b|c"); value = its index */
	LAB_KNOB_LOCK,		/* a registered rwsem variant name; value = registry index
				 * (not the owner itself, not a hidden variant, and
				 * having every bit of `caps`), looked up through the
				 * caller's struct lab_knob_locks */
};

struct lab_rwsem_ops;

/*
 * How a LAB_KNOB_LOCK knob reaches the lock variants: given by the caller
 * (the variant registry's lab_rwsem_knob_locks, rwsem.h), so that the knob
 * parser, which the registry uses, does not call the registry back by name.
 * NULL: no variant can be a knob's value.
 */
struct lab_knob_locks {
	int (*index)(const char *name);			/* index of the variant named @name, or -1 */
	const struct lab_rwsem_ops *(*by_index)(int idx);	/* the variant at @idx, NULL past the last */
	bool (*refused_here)(const struct lab_rwsem_ops *ops);	/* left out of the valid names (rwlab-sim) */
};

struct lab_knob {
	const char *name;
	enum lab_knob_type type;
	long def;
	long min, max;		/* LAB_KNOB_INT only */
	bool pow2;		/* LAB_KNOB_INT only: the value must also be a power of two */
	const char *choices;	/* LAB_KNOB_ENUM only: "a|b|c" */
	unsigned caps;		/* LAB_KNOB_LOCK only: enum lab_rwsem_caps bits the variant needs */
	const char *help;	/* one line, with the unit and the source of the default */
	bool positional;	/* may be given bare: "reaim:compute" sets this knob */
};

/*
 * lab_knobs_parse() - parse "key=val,key=val" (may be empty or NULL) against
 * @defs into @vals (LAB_KNOBS_MAX entries, defaults first).
 * @owner names the variant/workload in error messages; @locks resolves the
 * values of LAB_KNOB_LOCK knobs.
 * Returns 0, or -1 with a one-line message in @err.
 */
int lab_knobs_parse(const char *owner, const struct lab_knob *defs, const char *kv, const struct lab_knob_locks *locks,
		    long *vals, char *err, size_t errlen);

/* Number of entries in a NULL-terminated knob table (0 for NULL). */
size_t lab_knobs_count(const struct lab_knob *defs);

/*
 * Write "key=val,key=val" for every knob whose value differs from its default;
 * a positional knob comes first as its bare value, default or not
 * ("compute,jobs=50"), so the label parses back to the same values.
 */
void lab_knobs_format(const struct lab_knob *defs, const long *vals, const struct lab_knob_locks *locks, char *buf,
		      size_t len);

/* Write the value @v of knob @k as the user would type it (@locks names a LAB_KNOB_LOCK value). */
void lab_knob_value_str(const struct lab_knob *k, long v, const struct lab_knob_locks *locks, char *buf,
			size_t len);

/*
 * lab_spec_list_each() - split a -l/-w/-m list into specs and call
 * @fn(spec, ctx, err, errlen) on each, in order, stopping at the first
 * non-zero return. Specs are comma-separated; a token with '=' but no ':'
 * continues the previous spec's knob list ("rwsem:wspin=0,rsteal=0,pthread"
 * is two specs). @what names the list's items in messages ("lock variant").
 * Returns 0, or -1 with a one-line message in @err (an empty list, an empty
 * entry "a,,b" or "a,", a knob before any name, an over-long spec, or @fn's
 * message).
 */
int lab_spec_list_each(const char *arg, const char *what,
		       int (*fn)(const char *spec, void *ctx, char *err, size_t errlen), void *ctx,
		       char *err, size_t errlen);

/* Split "NAME[:kv]" into name (copied into @name) and a pointer to kv (or NULL). */
int lab_spec_split(const char *spec, char *name, size_t namelen, const char **kv);
