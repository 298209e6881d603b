/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/inventory.h - the host inventory: what a result depends on about
 * the machine that made it, as "key: value" lines (`rwlab list --host`).
 * Each shard of `rwlab slurm` writes its host's into the result root
 * (RESULT_ROOT/HOST/inventory, as lkp-tests keeps cpuinfo and friends in
 * its result root), and `rwlab merge` compares the inventories of the hosts
 * whose shards it merges: shards of one comparison are only comparable when
 * their machines are alike.
 *
 * Keys: host, cpu_model, sockets, cores, threads_per_core, cpus (online),
 * allowed_cpus (this process's), numa_nodes, l3_caches (hwloc), memory_mb,
 * kernel, governor, smt, boost, thp, isolated. lab_inventory_differ() warns
 * about every key but host, allowed_cpus and memory_mb.
 *
 * Threading: single-threaded (hwloc topology of its own, freed).
 */
#pragma once

#include <stdio.h>

#define LAB_INV_KEYS 24

struct lab_inventory {
	char path[512];			/* where it was read from ("" for this host) */
	int n;
	char key[LAB_INV_KEYS][24];
	char val[LAB_INV_KEYS][320];
};

/* This host's inventory. */
void lab_inventory_get(struct lab_inventory *inv);

/* "key: value" lines. */
void lab_inventory_print(FILE *f, const struct lab_inventory *inv);

/* Read a file lab_inventory_print() wrote. Returns 0, or -1 (unreadable, or no "key: value" line). */
int lab_inventory_read(const char *path, struct lab_inventory *inv);

/* The value of @key, or "" when absent. */
const char *lab_inventory_val(const struct lab_inventory *inv, const char *key);

/*
 * lab_inventory_differ() - one line on stderr, prefixed @prog, for every key
 * whose value differs between @a and @b (naming both hosts, files and
 * values). Returns how many keys differ.
 */
int lab_inventory_differ(const char *prog, const struct lab_inventory *a, const struct lab_inventory *b);

/*
 * lab_inventory_check() - the inventories beside the CSV files @paths (DIR/
 * inventory for DIR/FILE.csv; files without one, and "-" (stdin, in no
 * directory), are not checked) compared,
 * each host's with the first host's: one warning line per difference
 * (lab_inventory_differ()). Returns the number of differences.
 */
int lab_inventory_check(const char *prog, const char *const *paths, int n);
