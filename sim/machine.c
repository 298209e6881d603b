/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Machine files: see machine.h and sim/machines/README.md. Every numeric
 * value must carry a citation comment ("# [source] what"); unknown keys are
 * refused except cost.*, note.* and bw.* (accepted with a citation).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "machine.h"
#include "text.h"

enum kind { K_INT, K_DBL, K_TEXT, K_AUTO_INT, K_NUMBERING, K_SCHED, K_PATH };

struct key {
	const char *name;
	enum kind kind;
	size_t off;
	int required;
	double min, max;
};

#define F(f) offsetof(struct sim_machine, f)
static const struct key keys[] = {
	{ "name", K_TEXT, F(name), 1, 0, 0 },
	{ "summary", K_TEXT, F(summary), 1, 0, 0 },
	{ "sockets", K_AUTO_INT, F(sockets), 1, 1, 16 },
	{ "l3_per_socket", K_AUTO_INT, F(l3_per_socket), 1, 1, 64 },
	{ "cores_per_l3", K_AUTO_INT, F(cores_per_l3), 1, 1, 512 },
	{ "smt", K_INT, F(smt), 1, 1, 2 },
	{ "numbering", K_NUMBERING, F(numbering_adjacent), 1, 0, 0 },
	{ "sched", K_SCHED, F(sched_eevdf), 1, 0, 0 },
	{ "hz", K_INT, F(hz), 1, 24, 10000 },
	{ "ghz", K_DBL, F(ghz), 1, 0.1, 10 },
	{ "c2c.smt_ns", K_DBL, F(c2c_smt_ns), 1, 0, 1e4 },
	{ "c2c.l3_ns", K_DBL, F(c2c_l3_ns), 1, 0, 1e4 },
	{ "c2c.socket_ns", K_DBL, F(c2c_socket_ns), 1, 0, 1e4 },
	{ "c2c.socket_far_home_ns", K_DBL, F(c2c_socket_far_home_ns), 1, 0, 1e4 },
	{ "c2c.remote_ns", K_DBL, F(c2c_remote_ns), 1, 0, 1e4 },
	{ "rmw.local_ns", K_DBL, F(rmw_local_ns), 1, 0, 1e3 },
	{ "load.local_ns", K_DBL, F(load_local_ns), 1, 0, 1e3 },
	{ "rmw.hold_share", K_DBL, F(rmw_hold_share), 1, 0, 1 },
	{ "sb.entries", K_INT, F(sb_entries), 0, 0, SIM_SB_MAX },
	{ "smt.exec_yield", K_DBL, F(smt_exec_yield), 0, 1, 2 },	/* what-if: no machine file sets it */
	{ "c2c.pairs", K_PATH, F(c2c_pairs), 0, 0, 0 },
	{ "mem.local_ns", K_DBL, F(mem_local_ns), 1, 0, 1e4 },
	{ "mem.remote_ns", K_DBL, F(mem_remote_ns), 1, 0, 1e4 },
	{ "bw.core_gbs", K_DBL, F(bw_core_gbs), 1, 0.01, 1e4 },
	{ "bw.socket_gbs", K_DBL, F(bw_socket_gbs), 1, 0.01, 1e5 },
	{ "relax_ns", K_DBL, F(relax_ns), 1, 0.01, 1e4 },
	/* required by the scheduler the file names (sched_keys_check) */
	{ "sched.latency_ns", K_DBL, F(sched_latency_ns), 0, 1e3, 1e9 },
	{ "sched.min_granularity_ns", K_DBL, F(sched_min_granularity_ns), 0, 1e3, 1e9 },
	{ "sched.wakeup_granularity_ns", K_DBL, F(sched_wakeup_granularity_ns), 0, 0, 1e9 },
	{ "sched.base_slice_ns", K_DBL, F(sched_base_slice_ns), 0, 1e3, 1e9 },
	{ "sched.lb_busy_factor", K_INT, F(sched_lb_busy_factor), 1, 1, 1024 },
	{ "cost.ctxsw_ns", K_DBL, F(ctxsw_ns), 1, 0, 1e6 },
	{ "cost.wakeup_ns", K_DBL, F(wakeup_ns), 1, 0, 1e7 },
	{ "cost.futex_wake_ns", K_DBL, F(futex_wake_ns), 1, 0, 1e6 },
	{ "cost.futex_wait_ns", K_DBL, F(futex_wait_ns), 1, 0, 1e6 },
	{ "cost.syscall_ns", K_DBL, F(syscall_ns), 1, 0, 1e6 },
	{ "cost.ipi_ns", K_DBL, F(ipi_ns), 1, 0, 1e7 },
	{ "cost.irq_ns", K_DBL, F(irq_ns), 1, 0, 1e6 },
	{ "cost.fault_ns", K_DBL, F(fault_ns), 1, 0, 1e6 },
	{ "cost.page_alloc_ns", K_DBL, F(page_alloc_ns), 1, 0, 1e6 },
	{ "cost.hpage_alloc_ns", K_DBL, F(hpage_alloc_ns), 1, 0, 1e8 },
	{ "cost.rand_store_ns", K_DBL, F(rand_store_ns), 1, 0, 1e4 },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static int parse_num(const char *v, double *out)
{
	char *e;

	if (!*v || isspace((unsigned char)*v))
		return -1;
	errno = 0;
	*out = strtod(v, &e);
	if (errno || *e || !isfinite(*out) || (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')))
		return -1;
	return 0;
}

static void keep_param(struct sim_machine *m, const char *k, const char *v, const char *cite)
{
	struct sim_param *p;

	if (m->nparams >= (int)(sizeof(m->params) / sizeof(m->params[0])))
		return;
	p = &m->params[m->nparams++];
	snprintf(p->key, sizeof(p->key), "%s", k);
	snprintf(p->value, sizeof(p->value), "%s", v);
	snprintf(p->cite, sizeof(p->cite), "%s", cite);
}

static int set_key(struct sim_machine *m, const struct key *k, const char *v, const char *cite,
		   int *auto_seen, char *why, size_t wl)
{
	char *base = (char *)m + k->off;
	double d;

	if (k->kind == K_TEXT) {
		snprintf(base, k->off == F(name) ? SIM_NAME_MAX : sizeof(m->summary), "%s", v);
		return 0;
	}
	if (k->kind == K_SCHED) {
		if (!strcmp(v, "cfs") || !strcmp(v, "eevdf")) {
			*(int *)base = !strcmp(v, "eevdf");
			return 0;
		}
		snprintf(why, wl, "sched must be cfs (kernels before v6.6) or eevdf (v6.6 on), not '%s'", v);
		return -1;
	}
	if (k->kind == K_NUMBERING) {
		if (!strcmp(v, "linux") || !strcmp(v, "adjacent")) {
			*(int *)base = !strcmp(v, "adjacent");
			return 0;
		}
		snprintf(why, wl, "numbering must be linux or adjacent, not '%s'", v);
		return -1;
	}
	if (k->kind == K_PATH) {
		if (!cite || !strchr(cite, '[')) {
			snprintf(why, wl, "%s = %s has no citation (append '# [source] what')", k->name, v);
			return -1;
		}
		if (!*v || *v == '/' || strstr(v, "..") || strlen(v) >= sizeof(m->c2c_pairs)) {
			snprintf(why, wl, "%s = '%s': give a file under the machine file's directory (e.g. c2c/NAME.csv)",
				 k->name, v);
			return -1;
		}
		snprintf(base, sizeof(m->c2c_pairs), "%s", v);
		return 0;
	}
	if (k->kind == K_AUTO_INT && !strcmp(v, "auto")) {
		*(int *)base = 0;
		*auto_seen = 1;
		return 0;
	}
	if (parse_num(v, &d)) {
		snprintf(why, wl, "%s: '%s' is not a number", k->name, v);
		return -1;
	}
	if (!cite || !strchr(cite, '[')) {
		snprintf(why, wl, "%s = %s has no citation (append '# [source] what')", k->name, v);
		return -1;
	}
	if (d < k->min || d > k->max) {
		snprintf(why, wl, "%s = %s out of range [%g, %g]", k->name, v, k->min, k->max);
		return -1;
	}
	if (k->kind == K_DBL) {
		*(double *)base = d;
	} else {
		if (d != floor(d)) {
			snprintf(why, wl, "%s = %s must be an integer", k->name, v);
			return -1;
		}
		*(int *)base = (int)d;
	}
	return 0;
}

static int check_extra(const char *k, const char *v, const char *cite, char *why, size_t wl)
{
	double d;

	if (strncmp(k, "cost.", 5) && strncmp(k, "note.", 5) && strncmp(k, "bw.", 3)) {
		snprintf(why, wl, "unknown key '%s' (valid: the keys of sim/machines/README.md, cost.*, note.*, bw.*)", k);
		return -1;
	}
	if (!parse_num(v, &d) && (!cite || !strchr(cite, '['))) {
		snprintf(why, wl, "%s = %s has no citation (append '# [source] what')", k, v);
		return -1;
	}
	/* A cost or a bandwidth written as a number is one, finite and not negative (a word such as poll is not a number). */
	if (strncmp(k, "note.", 5) && *v && (strchr("+-.0123456789", *v) || !strncasecmp(v, "nan", 3) ||
					     !strncasecmp(v, "inf", 3)) &&
	    (parse_num(v, &d) || d < 0)) {
		snprintf(why, wl, "%s = %s: not a finite number of 0 or more", k, v);
		return -1;
	}
	return 0;
}

int sim_machine_number(const struct sim_machine *m, const char *key, double *out)
{
	for (int i = 0; i < m->nparams; i++)
		if (!strcmp(m->params[i].key, key))
			return parse_num(m->params[i].value, out);
	return -1;
}

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Derive generic-N's topology: 1 socket up to 64 CPUs, else 2; 8 cores per L3; no SMT. */
/* generic-N's N, as its error lines say it (derive_generic(), sim_machine_load()) */
#define GENERIC_N_RULE "from 2 to 64, or an even N from 66 to 512"

static int derive_generic(struct sim_machine *m, int n, char *err, size_t el)
{
	if (n < 2 || n > SIM_MAX_CPUS || (n > 64 && n % 2)) {
		snprintf(err, el, "generic-%d: N must be " GENERIC_N_RULE, n);
		return -1;
	}
	m->sockets = n <= 64 ? 1 : 2;
	m->smt = 1;
	m->cores_per_l3 = 8;
	m->cores_per_socket = n / m->sockets;
	m->l3_per_socket = (m->cores_per_socket + 7) / 8;
	m->ncpus = n;
	snprintf(m->name, sizeof(m->name), "generic-%d", n);
	return 0;
}

/*
 * A file names its scheduler and carries exactly the keys that scheduler
 * reads: CFS (before v6.6) latency, min_granularity and wakeup_granularity;
 * EEVDF (v6.6 on) base_slice.
 */
static int sched_keys_check(const struct sim_machine *m, const int *seen, char *why, size_t wl)
{
	static const char *const cfs[] = { "sched.latency_ns", "sched.min_granularity_ns",
					   "sched.wakeup_granularity_ns" };
	int base = -1, c[3] = { -1, -1, -1 };

	for (size_t i = 0; i < NKEYS; i++) {
		if (!strcmp(keys[i].name, "sched.base_slice_ns"))
			base = seen[i];
		for (int j = 0; j < 3; j++)
			if (!strcmp(keys[i].name, cfs[j]))
				c[j] = seen[i];
	}
	for (int j = 0; j < 3; j++)
		if (c[j] == m->sched_eevdf) {
			snprintf(why, wl, "sched = %s %s %s", m->sched_eevdf ? "eevdf" : "cfs",
				 m->sched_eevdf ? "does not read" : "needs", cfs[j]);
			return -1;
		}
	if (base != m->sched_eevdf) {
		snprintf(why, wl, "sched = %s %s sched.base_slice_ns", m->sched_eevdf ? "eevdf" : "cfs",
			 m->sched_eevdf ? "needs" : "does not read");
		return -1;
	}
	return 0;
}

/*
 * c2c.pairs (rule 9): the published matrix, line i holding CPU i's figures
 * against CPUs 0..i-1 (sim/machines/c2c/README.md), made symmetric. Loaded
 * once per path and kept for the process (machines are loaded a few times).
 */
struct pairs_cache {
	struct pairs_cache *next;
	char path[PATH_MAX];
	int n;
	float *ns;
};
static struct pairs_cache *pairs_loaded;

static int pairs_row(float *ns, int n, int i, char *s, char *why, size_t wl)
{
	for (int j = 0; j < n; j++) {
		char *e = strchr(s, ','), *f = s;
		double d;

		if (e)
			*e = 0;
		f = lab_trim(f);
		if (j < i) {
			/* 0.1 ns: below every published transfer (SMT siblings: 7-8 ns), above float's rounding to 0 ps */
			if (parse_num(f, &d) || d < 0.1 || d > 1e4) {
				snprintf(why, wl, "line %d, CPU %d: '%s' is not a figure in [0.1, 10000] ns", i + 1, j, f);
				return -1;
			}
			ns[(size_t)i * n + j] = ns[(size_t)j * n + i] = (float)d;
		} else if (*f) {
			snprintf(why, wl, "line %d: a figure for CPU %d, at or above the diagonal", i + 1, j);
			return -1;
		}
		if (!e) {
			if (j + 1 < i) {
				snprintf(why, wl, "line %d has %d fields, CPU %d needs %d", i + 1, j + 1, i, i);
				return -1;
			}
			return 0;
		}
		s = e + 1;
	}
	snprintf(why, wl, "line %d has more than %d fields", i + 1, n);
	return -1;
}

static const float *pairs_load(const char *path, int n, char *why, size_t wl)
{
	struct pairs_cache *c;
	size_t cap = (size_t)n * 32 + 64, len;
	char *line;
	FILE *f;
	int i = 0;

	for (c = pairs_loaded; c; c = c->next)
		if (c->n == n && !strcmp(c->path, path))
			return c->ns;
	f = fopen(path, "r");
	if (!f) {
		snprintf(why, wl, "%s", strerror(errno));
		return NULL;
	}
	{
		struct stat st;

		if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
			snprintf(why, wl, "%s", S_ISDIR(st.st_mode) ? "a directory, not a matrix file" : "not a regular file");
			fclose(f);
			return NULL;
		}
	}
	c = calloc(1, sizeof(*c));
	line = malloc(cap);
	if (!c || !line || !(c->ns = calloc((size_t)n * n, sizeof(float))))
		abort();
	while (fgets(line, (int)cap, f)) {
		len = strlen(line);
		if (len + 1 == cap && line[len - 1] != '\n') {
			snprintf(why, wl, "line %d is longer than %zu bytes", i + 1, cap - 2);
			goto bad;
		}
		line[strcspn(line, "\r\n")] = 0;
		if (i >= n && !*lab_trim(line))
			continue;	/* blank lines after the last CPU's */
		if (i == n) {
			snprintf(why, wl, "more than %d lines (one per CPU of the machine)", n);
			goto bad;
		}
		if (pairs_row(c->ns, n, i++, line, why, wl))
			goto bad;
	}
	if (ferror(f)) {
		snprintf(why, wl, "read error: %s", strerror(errno));
		goto bad;
	}
	if (i != n) {
		snprintf(why, wl, "%d lines, the machine has %d CPUs", i, n);
		goto bad;
	}
	fclose(f);
	free(line);
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->n = n;
	c->next = pairs_loaded;
	pairs_loaded = c;
	return c->ns;
bad:
	fclose(f);
	free(line);
	free(c->ns);
	free(c);
	return NULL;
}

int sim_machine_pairs_path(const struct sim_machine *m, char *buf, size_t len)
{
	const char *slash = strrchr(m->path, '/');
	int n;

	if (!m->c2c_pairs[0])
		return 0;
	n = snprintf(buf, len, "%.*s%s", slash ? (int)(slash - m->path + 1) : 0, m->path, m->c2c_pairs);
	return n < 0 || (size_t)n >= len ? -1 : 1;
}

/* Load @m's c2c.pairs, named relative to the directory of @path (= m->path). */
static int pairs_attach(struct sim_machine *m, const char *path, char *err, size_t el)
{
	char full[PATH_MAX], why[256];

	if (!m->c2c_pairs[0])
		return 0;
	if (m->numbering_adjacent) {
		snprintf(err, el, "%s: c2c.pairs needs numbering = linux (the matrices' order)", path);
		return -1;
	}
	/* one figure per pair cannot depend on the line's home node (sim/README.md rule 9) */
	if (m->c2c_socket_far_home_ns != m->c2c_socket_ns) {
		snprintf(err, el, "%s: c2c.pairs needs c2c.socket_far_home_ns = c2c.socket_ns (a matrix has one "
			 "figure per pair, whatever node the line is homed on)", path);
		return -1;
	}
	if (sim_machine_pairs_path(m, full, sizeof(full)) < 0) {
		snprintf(err, el, "c2c.pairs: the matrix's path is longer than %zu bytes", sizeof(full) - 1);
		return -1;
	}
	m->pair_ns = pairs_load(full, m->ncpus, why, sizeof(why));
	if (!m->pair_ns) {
		snprintf(err, el, "%s: c2c.pairs %s: %s", path, full, why);
		return -1;
	}
	return 0;
}

int sim_machine_parse(struct sim_machine *m, const char *path, int generic_n, char *err, size_t el)
{
	FILE *f = fopen(path, "r");
	char line[1024], why[512];
	int lineno = 0, seen[NKEYS] = { 0 }, auto_seen = 0;

	memset(m, 0, sizeof(*m));
	snprintf(m->path, sizeof(m->path), "%s", path);
	if (!f) {
		snprintf(err, el, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = lab_trim(line), *eq, *hash, *k, *v, *cite = NULL;
		size_t i;

		lineno++;
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, el, "%s:%d: expected 'key = value  # [source] what'", path, lineno);
			goto bad;
		}
		*eq = 0;
		k = lab_trim(s);
		v = eq + 1;
		hash = strchr(v, '#');
		if (hash) {
			*hash = 0;
			cite = lab_trim(hash + 1);
		}
		v = lab_trim(v);
		for (i = 0; i < NKEYS && strcmp(keys[i].name, k); i++)
			;
		if (i == NKEYS) {
			if (check_extra(k, v, cite, why, sizeof(why)))
				goto bad_why;
		} else {
			if (seen[i]) {
				snprintf(why, sizeof(why), "%s given twice", k);
				goto bad_why;
			}
			seen[i] = 1;
			if (set_key(m, &keys[i], v, cite, &auto_seen, why, sizeof(why)))
				goto bad_why;
		}
		keep_param(m, k, v, cite ? cite : "");
		continue;
bad_why:
		snprintf(err, el, "%s:%d: %s", path, lineno, why);
		goto bad;
	}
	fclose(f);
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].required && !seen[i]) {
			snprintf(err, el, "%s: missing required key %s", path, keys[i].name);
			return -1;
		}
	if (sched_keys_check(m, seen, why, sizeof(why))) {
		snprintf(err, el, "%s: %s", path, why);
		return -1;
	}
	{
		char want[SIM_NAME_MAX + 16];

		snprintf(want, sizeof(want), "%s.machine", m->name);
		if (strcmp(want, basename_of(path))) {
			snprintf(err, el, "%s: name = %s does not match the file name", path, m->name);
			return -1;
		}
	}
	if (generic_n > 0 && m->c2c_pairs[0]) {
		snprintf(err, el, "%s: c2c.pairs needs a fixed topology, not generic-N", path);
		return -1;
	}
	if (generic_n > 0) {
		if (!auto_seen) {
			snprintf(err, el, "%s: generic-N needs sockets/l3_per_socket/cores_per_l3 = auto", path);
			return -1;
		}
		return derive_generic(m, generic_n, err, el);
	}
	if (auto_seen) {
		snprintf(err, el, "%s: 'auto' topology is only for generic-N (use --sim %s-N)", path, m->name);
		return -1;
	}
	m->cores_per_socket = m->l3_per_socket * m->cores_per_l3;
	m->ncpus = m->sockets * m->cores_per_socket * m->smt;
	if (m->ncpus > SIM_MAX_CPUS || m->ncpus < 1) {
		snprintf(err, el, "%s: %d CPUs (the engine takes 1..%d)", path, m->ncpus, SIM_MAX_CPUS);
		return -1;
	}
	return pairs_attach(m, path, err, el);
bad:
	fclose(f);
	return -1;
}

/*
 * The machine files of @dir as "a, b, c" (sorted, generic.machine left out:
 * it is generic-N), for an unknown name's error line; "see rwlab sim list"
 * when the directory cannot be read.
 */
static void machine_names(const char *dir, char *out, size_t len)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	size_t used = 0;

	snprintf(out, len, "see rwlab sim list");
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *d = ents[i]->d_name;
		size_t l = strlen(d);

		if (l > 8 && !strcmp(d + l - 8, ".machine") && strcmp(d, "generic.machine") && used + l + 2 < len)
			used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? ", " : "", (int)(l - 8), d);
		free(ents[i]);
	}
	free(ents);
}

int sim_machine_load(struct sim_machine *m, const char *dir, const char *name, char *err, size_t el)
{
	char path[1024];
	const char *dash = strrchr(name, '-');
	int n = 0;

	if (strchr(name, '/') || (strlen(name) > 8 && !strcmp(name + strlen(name) - 8, ".machine"))) {
		struct stat st;
		int bad = stat(name, &st) ? errno : 0;

		if (bad || !S_ISREG(st.st_mode)) {
			snprintf(err, el, "machine file '%s': %s (a machine is a NAME from rwlab sim list, generic-N "
				 "for N = 2..64 or an even N up to 512, or the path of a NAME.machine file)", name,
				 bad ? strerror(bad) : S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
			return -1;
		}
		return sim_machine_parse(m, name, 0, err, el);
	}
	if (!strncmp(name, "generic-", 8) && dash == name + 7) {
		char *e;
		long v = strtol(name + 8, &e, 10);

		if (*e || e == name + 8 || v < 2 || v > SIM_MAX_CPUS || (v > 64 && v % 2)) {
			snprintf(err, el, "bad machine '%s' (generic-N takes N " GENERIC_N_RULE ")", name);
			return -1;
		}
		n = (int)v;
		snprintf(path, sizeof(path), "%s/generic.machine", dir);
		return sim_machine_parse(m, path, n, err, el);
	}
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_') {
			snprintf(err, el, "bad machine name '%s' (see rwlab sim list)", name);
			return -1;
		}
	snprintf(path, sizeof(path), "%s/%s.machine", dir, name);
	{
		FILE *f = fopen(path, "r");

		if (!f) {
			char names[768];

			machine_names(dir, names, sizeof(names));
			snprintf(err, el, "unknown machine '%s' (no %s; valid: %s, or generic-N for N = 2..64 "
				 "or an even N up to 512)", name, path, names);
			return -1;
		}
		fclose(f);
	}
	return sim_machine_parse(m, path, 0, err, el);
}

void sim_machine_place(const struct sim_machine *m, int cpu, struct sim_cpu_place *p)
{
	int ncores = m->sockets * m->cores_per_socket, core;

	if (m->numbering_adjacent) {
		core = cpu / m->smt;
		p->thread = cpu % m->smt;
	} else {
		core = cpu % ncores;
		p->thread = cpu / ncores;
	}
	p->core = core;
	p->socket = core / m->cores_per_socket;
	p->l3 = p->socket * m->l3_per_socket + (core % m->cores_per_socket) / m->cores_per_l3;
}

int sim_machine_logical(const struct sim_machine *m, int i)
{
	int ncores = m->sockets * m->cores_per_socket;

	i %= m->ncpus;
	if (m->numbering_adjacent || m->smt == 1)
		return i;
	/* logical i = core i / smt, thread i % smt; linux numbering puts thread t at t * ncores + core */
	return (i % m->smt) * ncores + i / m->smt;
}

int sim_machine_sched_factor(const struct sim_machine *m)
{
	int n = m->ncpus < 8 ? m->ncpus : 8, f = 1;

	while (n > 1) {
		n >>= 1;
		f++;
	}
	return f;
}
