/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "knob.h"
#include "rwsem.h"

size_t lab_knobs_count(const struct lab_knob *defs)
{
	size_t n = 0;

	while (defs && defs[n].name)
		n++;
	return n;
}

static void knob_names(const struct lab_knob *defs, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; defs && defs[i].name && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "valid keys: ", defs[i].name);
	if (!defs || !defs[0].name)	/* "valid keys: none" read as a key named none (the lazy-mm scheme) */
		snprintf(buf, len, "it takes no knobs");
}

static int parse_long(const char *s, long *out)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

/*
 * Why @ops cannot be the value of lock knob @k of @owner, or NULL if it can:
 * it must exist, not be the owner (a lock cannot wrap itself), not be hidden
 * (busted is a negative control) and have every capability in k->caps.
 */
static const char *lock_knob_refusal(const char *owner, const struct lab_knob *k,
				     const struct lab_rwsem_ops *ops)
{
	unsigned missing;

	if (!ops)
		return "is not a lock variant";
	if (!strcmp(ops->name, owner))
		return "is the variant itself";
	if (ops->caps & LAB_CAP_NOT_IN_ALL)
		return "is a hidden negative control";
	missing = k->caps & ~ops->caps;
	if (missing & LAB_CAP_EXCLUSION)
		return "does not exclude";
	if (missing & LAB_CAP_READ_TRYLOCK)
		return "has no down_read_trylock";
	if (missing & LAB_CAP_WRITE_TRYLOCK)
		return "has no down_write_trylock";
	if (missing & LAB_CAP_DOWNGRADE)
		return "has no downgrade_write";
	if (missing)
		return "lacks a capability it needs";
	return NULL;
}

/* The variants lock knob @k of @owner accepts (in rwlab-sim: those it can run), comma-separated. */
static void lock_knob_names(const char *owner, const struct lab_knob *k, const struct lab_knob_locks *locks,
			    char *buf, size_t len)
{
	const struct lab_rwsem_ops *ops;
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; locks && (ops = locks->by_index(i)) && off < len; i++)
		if (!lock_knob_refusal(owner, k, ops) && !(locks->refused_here && locks->refused_here(ops)))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", ops->name);
}

static int parse_one(const char *owner, const struct lab_knob *k, const char *val, const struct lab_knob_locks *locks,
		     long *out, char *err, size_t errlen)
{
	long v;

	switch (k->type) {
	case LAB_KNOB_INT:
		if (parse_long(val, &v) || v < k->min || v > k->max || (k->pow2 && (v <= 0 || (v & (v - 1))))) {
			snprintf(err, errlen, "%s: bad value '%s' for %s (%s in %ld..%ld)", owner, val, k->name,
				 k->pow2 ? "a power of two" : "an integer", k->min, k->max);
			return -1;
		}
		*out = v;
		return 0;
	case LAB_KNOB_BOOL:
		if (!strcmp(val, "1") || !strcasecmp(val, "true") || !strcasecmp(val, "on") ||
		    !strcasecmp(val, "yes")) {
			*out = 1;
			return 0;
		}
		if (!strcmp(val, "0") || !strcasecmp(val, "false") || !strcasecmp(val, "off") ||
		    !strcasecmp(val, "no")) {
			*out = 0;
			return 0;
		}
		snprintf(err, errlen, "%s: bad value '%s' for %s (valid: 0, 1, true, false, on, off)",
			 owner, val, k->name);
		return -1;
	case LAB_KNOB_ENUM: {
		const char *c = k->choices;
		long idx = 0;
		size_t vl = strlen(val);

		while (c && *c) {
			const char *bar = strchr(c, '|');
			size_t cl = bar ? (size_t)(bar - c) : strlen(c);

			if (cl == vl && !strncmp(c, val, vl)) {
				*out = idx;
				return 0;
			}
			idx++;
			c = bar ? bar + 1 : NULL;
		}
		snprintf(err, errlen, "%s: bad value '%s' for %s (valid: %s)", owner, val, k->name,
			 k->choices);
		return -1;
	}
	case LAB_KNOB_LOCK: {
		int idx = locks ? locks->index(val) : -1;
		const struct lab_rwsem_ops *ops = locks ? locks->by_index(idx) : NULL;
		const char *why = lock_knob_refusal(owner, k, ops);

		if (why) {
			char names[512];

			lock_knob_names(owner, k, locks, names, sizeof(names));
			if (!ops)
				snprintf(err, errlen, "%s: unknown lock variant '%s' for %s (valid: %s)", owner,
					 val, k->name, names[0] ? names : "none");
			else
				snprintf(err, errlen, "%s: %s '%s' %s (valid: %s)", owner, k->name, val, why,
					 names[0] ? names : "none");
			return -1;
		}
		*out = idx;
		return 0;
	}
	}
	return -1;
}

int lab_knobs_parse(const char *owner, const struct lab_knob *defs, const char *kv, const struct lab_knob_locks *locks,
		    long *vals, char *err, size_t errlen)
{
	size_t n = lab_knobs_count(defs);
	bool seen[LAB_KNOBS_MAX] = { false };
	char buf[LAB_SPEC_MAX], names[512];
	char *save = NULL, *tok;

	if (n > LAB_KNOBS_MAX) {
		snprintf(err, errlen, "%s: too many knobs (internal error)", owner);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		vals[i] = defs[i].def;
	if (!kv || !*kv)
		return 0;
	if (strlen(kv) >= sizeof(buf)) {
		snprintf(err, errlen, "%s: knob list too long", owner);
		return -1;
	}
	strcpy(buf, kv);
	knob_names(defs, names, sizeof(names));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const char *key = tok, *val;
		size_t i;

		if (!eq) {
			/* A bare word sets the positional knob, if there is one. */
			for (i = 0; i < n && !defs[i].positional; i++)
				;
			if (i == n) {
				snprintf(err, errlen, "%s: '%s' is not key=value (%s)", owner,
					 tok, names);
				return -1;
			}
			val = tok;
		} else {
			*eq = 0;
			val = eq + 1;
			for (i = 0; i < n && strcmp(defs[i].name, key); i++)
				;
			if (i == n) {
				snprintf(err, errlen, "%s: unknown knob '%s' (%s)", owner, key,
					 names);
				return -1;
			}
		}
		if (seen[i]) {
			snprintf(err, errlen, "%s: knob '%s' given twice", owner, defs[i].name);
			return -1;
		}
		seen[i] = true;
		if (parse_one(owner, &defs[i], val, locks, &vals[i], err, errlen))
			return -1;
	}
	return 0;
}

void lab_knob_value_str(const struct lab_knob *k, long v, const struct lab_knob_locks *locks, char *buf,
			size_t len)
{
	switch (k->type) {
	case LAB_KNOB_ENUM: {
		const char *c = k->choices;

		for (long i = 0; c && i < v; i++) {
			c = strchr(c, '|');
			if (c)
				c++;
		}
		if (c) {
			const char *bar = strchr(c, '|');
			int cl = bar ? (int)(bar - c) : (int)strlen(c);

			snprintf(buf, len, "%.*s", cl, c);
			return;
		}
		break;
	}
	case LAB_KNOB_LOCK: {
		const struct lab_rwsem_ops *ops = locks ? locks->by_index((int)v) : NULL;

		if (ops) {
			snprintf(buf, len, "%s", ops->name);
			return;
		}
		break;
	}
	default:
		break;
	}
	snprintf(buf, len, "%ld", v);
}

void lab_knobs_format(const struct lab_knob *defs, const long *vals, const struct lab_knob_locks *locks, char *buf,
		      size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	/* The positional knob names the workload's flavour: always shown, bare and first. */
	for (size_t i = 0; defs && defs[i].name && off < len; i++) {
		if (defs[i].positional) {
			lab_knob_value_str(&defs[i], vals[i], locks, buf, len);
			off = strlen(buf);
		}
	}
	for (size_t i = 0; defs && defs[i].name && off < len; i++) {
		char v[64];

		if (vals[i] == defs[i].def || defs[i].positional)
			continue;
		lab_knob_value_str(&defs[i], vals[i], locks, v, sizeof(v));
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? "," : "", defs[i].name, v);
	}
}

/* Append ",@tok" to the knob list of @spec. Returns 0 or -1 (too long). */
static int spec_add_knob(char *spec, size_t len, const char *tok)
{
	size_t l = strlen(spec);
	int n = snprintf(spec + l, len - l, ",%s", tok);

	return n < 0 || (size_t)n >= len - l ? -1 : 0;
}

int lab_spec_list_each(const char *arg, const char *what,
		       int (*fn)(const char *spec, void *ctx, char *err, size_t errlen), void *ctx,
		       char *err, size_t errlen)
{
	char buf[4096], spec[LAB_SPEC_MAX], *rest = buf, *tok;
	bool have = false;

	if (!arg || !*arg) {
		snprintf(err, errlen, "empty %s list", what);
		return -1;
	}
	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "%s list too long (at most %zu characters)", what, sizeof(buf) - 1);
		return -1;
	}
	strcpy(buf, arg);
	spec[0] = 0;
	while ((tok = strsep(&rest, ","))) {
		if (!*tok) {	/* "a,", ",a", "a,,b" */
			snprintf(err, errlen, "empty entry in %s list '%s' (a comma with nothing on one side)",
				 what, arg);
			return -1;
		}
		if (strchr(tok, '=') && !strchr(tok, ':')) {	/* "k=v": more knobs */
			if (!have) {
				snprintf(err, errlen, "knob '%s' given before any %s", tok, what);
				return -1;
			}
			if (spec_add_knob(spec, sizeof(spec), tok))
				goto too_long;
			continue;
		}
		if (have && fn(spec, ctx, err, errlen))
			return -1;
		if (strlen(tok) >= sizeof(spec))
			goto too_long;
		strcpy(spec, tok);
		have = true;
	}
	return fn(spec, ctx, err, errlen);
too_long:
	snprintf(err, errlen, "%s spec too long (at most %d characters)", what, LAB_SPEC_MAX - 1);
	return -1;
}

int lab_spec_split(const char *spec, char *name, size_t namelen, const char **kv)
{
	const char *colon = strchr(spec, ':');
	size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);

	if (nl == 0 || nl >= namelen || (colon && !colon[1]))
		return -1;	/* no name, too long, or "NAME:" with no knob after it */
	memcpy(name, spec, nl);
	name[nl] = 0;
	*kv = colon ? colon + 1 : NULL;
	return 0;
}
