/* SPDX-License-Identifier: GPL-2.0-only */
/* The host inventory (inventory.h). */
#include <hwloc.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "inventory.h"

/* Keys that two machines of one comparison must share (inventory.h). */
static const char *const must_match[] = { "cpu_model", "sockets", "cores", "threads_per_core", "cpus", "numa_nodes",
					  "l3_caches", "kernel", "governor", "smt", "boost", "thp", "isolated", NULL };

static void put(struct lab_inventory *inv, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(struct lab_inventory *inv, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (inv->n == LAB_INV_KEYS)
		return;
	snprintf(inv->key[inv->n], sizeof(inv->key[0]), "%s", key);
	va_start(ap, fmt);
	vsnprintf(inv->val[inv->n], sizeof(inv->val[0]), fmt, ap);
	va_end(ap);
	inv->n++;
}

static int count(hwloc_topology_t t, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(t, type);

	return n < 0 ? 0 : n;
}

void lab_inventory_get(struct lab_inventory *inv)
{
	struct lab_context ctx;
	hwloc_topology_t t;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	int sockets = 0, cores = 0, pus = 0, numa = 0, l3 = 0;

	memset(inv, 0, sizeof(*inv));
	lab_context_get(&ctx);
	/* The whole machine, not this process's cpuset: what the node is. */
	if (!hwloc_topology_init(&t)) {
		hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
		if (!hwloc_topology_load(t)) {
			sockets = count(t, HWLOC_OBJ_PACKAGE);
			cores = count(t, HWLOC_OBJ_CORE);
			pus = count(t, HWLOC_OBJ_PU);
			numa = count(t, HWLOC_OBJ_NUMANODE);
			l3 = count(t, HWLOC_OBJ_L3CACHE);
		}
		hwloc_topology_destroy(t);
	}
	put(inv, "host", "%s", ctx.host);
	put(inv, "cpu_model", "%s", ctx.cpu_model);
	put(inv, "sockets", "%d", sockets);
	put(inv, "cores", "%d", cores);
	put(inv, "threads_per_core", "%d", cores ? pus / cores : 0);
	put(inv, "cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	put(inv, "allowed_cpus", "%d", ctx.cpus);
	put(inv, "numa_nodes", "%d", numa);
	put(inv, "l3_caches", "%d", l3);
	put(inv, "memory_mb", "%lld", pages > 0 && psz > 0 ? (long long)pages * psz >> 20 : 0);
	put(inv, "kernel", "%s", ctx.kernel);
	put(inv, "governor", "%s", ctx.governor);
	put(inv, "smt", "%s", ctx.smt);
	put(inv, "boost", "%s", ctx.boost);
	put(inv, "thp", "%s", ctx.thp);
	put(inv, "isolated", "%s", ctx.isolated[0] ? ctx.isolated : "none");
}

void lab_inventory_print(FILE *f, const struct lab_inventory *inv)
{
	for (int i = 0; i < inv->n; i++)
		fprintf(f, "%s: %s\n", inv->key[i], inv->val[i]);
}

int lab_inventory_read(const char *path, struct lab_inventory *inv)
{
	FILE *f = fopen(path, "r");
	char line[512];

	memset(inv, 0, sizeof(*inv));
	snprintf(inv->path, sizeof(inv->path), "%s", path);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && inv->n < LAB_INV_KEYS) {
		char *colon = strstr(line, ": ");

		line[strcspn(line, "\n")] = 0;
		if (!colon || colon == line || (size_t)(colon - line) >= sizeof(inv->key[0]))
			continue;
		*colon = 0;
		put(inv, line, "%s", colon + 2);
	}
	fclose(f);
	return inv->n ? 0 : -1;
}

const char *lab_inventory_val(const struct lab_inventory *inv, const char *key)
{
	for (int i = 0; i < inv->n; i++)
		if (!strcmp(inv->key[i], key))
			return inv->val[i];
	return "";
}

int lab_inventory_differ(const char *prog, const struct lab_inventory *a, const struct lab_inventory *b)
{
	int n = 0;

	for (int i = 0; must_match[i]; i++) {
		const char *va = lab_inventory_val(a, must_match[i]), *vb = lab_inventory_val(b, must_match[i]);

		if (!strcmp(va, vb))
			continue;
		fprintf(stderr, "%s: WARNING: the hosts differ: %s is '%s' on %s (%s) but '%s' on %s (%s)\n", prog,
			must_match[i], va, lab_inventory_val(a, "host"), a->path, vb, lab_inventory_val(b, "host"),
			b->path);
		n++;
	}
	return n;
}

int lab_inventory_check(const char *prog, const char *const *paths, int n)
{
	struct lab_inventory *inv = calloc((size_t)n + 1, sizeof(*inv));
	int ninv = 0, diff = 0;

	if (!inv)
		abort();
	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(paths[i], '/');
		char path[600];
		bool seen = false;

		if (!strcmp(paths[i], "-"))
			continue;	/* stdin is in no directory */
		snprintf(path, sizeof(path), "%.*s%sinventory", slash ? (int)(slash - paths[i]) : 0, paths[i],
			 slash ? "/" : "");
		if (lab_inventory_read(path, &inv[ninv]))
			continue;
		for (int j = 0; j < ninv && !seen; j++)	/* one inventory per directory (a host's, in slurm's root) */
			seen = !strcmp(inv[j].path, inv[ninv].path);
		if (seen)
			continue;
		if (ninv)
			diff += lab_inventory_differ(prog, &inv[0], &inv[ninv]);
		ninv++;
	}
	free(inv);
	return diff;
}
