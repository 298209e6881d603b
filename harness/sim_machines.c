/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the front finds machine files, and loading one by name (sim_cmd.h):
 * its own file so that `rwlab sim` (sim_cmd.c), the validation ladder
 * (validate.c) and the --sim path all reach it without calling each other.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_cmd.h"

#ifndef LAB_SIM_MACHINE_DIR
#define LAB_SIM_MACHINE_DIR "sim/machines"
#endif

/*
 * Where machine files are looked for: $RWLAB_SIM_MACHINES, the installed
 * share/rwlab/machines beside the binary's prefix (found from
 * /proc/self/exe, as the matrices are), then the source tree's sim/machines.
 */
const char *lab_sim_machine_dir(void)
{
	static char dir[4200];
	const char *d = getenv("RWLAB_SIM_MACHINES");
	char exe[4096];
	ssize_t n;

	if (d && *d)
		return d;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
		snprintf(dir, sizeof(dir), "%s/../share/rwlab/machines", exe);
		if (!access(dir, R_OK))
			return dir;
	}
	return LAB_SIM_MACHINE_DIR;
}

size_t lab_sim_machine_file(const char *name)
{
	size_t l = strlen(name);

	return l > 8 && !strcmp(name + l - 8, ".machine") ? l - 8 : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int lab_sim_machine_files(char **names, int cap)
{
	DIR *d = opendir(lab_sim_machine_dir());
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < cap) {
		size_t l = lab_sim_machine_file(e->d_name);

		if (l)
			names[n++] = strndup(e->d_name, l);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), cmp_str);
	return n;
}

void lab_sim_machine_names(char *buf, size_t len)
{
	char *names[256];
	int n = lab_sim_machine_files(names, 256);

	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		/* generic.machine is named generic-N: the word completes to "generic-" */
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s%s", buf[0] ? " " : "", names[i],
			 strcmp(names[i], "generic") ? "" : "-");
		free(names[i]);
	}
}

int lab_sim_machine_dir_check(char *err, size_t errlen)
{
	char *names[256];
	int n = lab_sim_machine_files(names, 256), bad = n < 0 ? errno : 0;

	for (int i = 0; i < n; i++)
		free(names[i]);
	if (n > 0)
		return 0;
	snprintf(err, errlen, "no simulated machines: %s%s%s (set RWLAB_SIM_MACHINES to a directory of NAME.machine "
		 "files, such as the source tree's sim/machines, or reinstall rwlab for share/rwlab/machines)",
		 lab_sim_machine_dir(), bad ? ": " : " ", bad ? strerror(bad) : "holds no NAME.machine file");
	return -1;
}

static char machine_hash[17];

/* @h and the bytes of the per-pair matrix @m names, if it names one (sim_machine_pairs_path()). */
static uint64_t hash_pairs(uint64_t h, const struct sim_machine *m)
{
	char full[PATH_MAX];
	FILE *f;
	int c;

	if (sim_machine_pairs_path(m, full, sizeof(full)) <= 0 || !(f = fopen(full, "rb")))
		return h;
	while ((c = getc(f)) != EOF)
		h = (h ^ (uint64_t)c) * 0x100000001b3ull;
	fclose(f);
	return h;
}

/*
 * FNV-1a 64 of the file's bytes, then of @name (generic-N: generic.machine
 * and N); "" if unreadable. A machine given as a path (sim_machine_load()'s
 * path form) hashes that file and its base name less ".machine", so a copy
 * of NAME.machine hashes as NAME does; then the bytes of the per-pair matrix
 * @m (as loaded) names, if any.
 */
static void hash_machine(const char *dir, const char *name, const struct sim_machine *m)
{
	char path[4200], base[256];
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n = strlen(name);
	FILE *f;
	int c;

	if (strchr(name, '/') || lab_sim_machine_file(name)) {
		const char *b = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

		snprintf(path, sizeof(path), "%s", name);
		snprintf(base, sizeof(base), "%s", b);
		if ((n = lab_sim_machine_file(base)))
			base[n] = 0;
		name = base;
	} else {
		snprintf(path, sizeof(path), "%s/%s.machine", dir, name);
		if (access(path, R_OK) && !strncmp(name, "generic-", 8))
			snprintf(path, sizeof(path), "%s/generic.machine", dir);
	}
	machine_hash[0] = 0;
	f = fopen(path, "rb");
	if (!f)
		return;
	while ((c = getc(f)) != EOF)
		h = (h ^ (uint64_t)c) * 0x100000001b3ull;
	fclose(f);
	h = hash_pairs(h, m);
	for (const char *p = name; *p; p++)
		h = (h ^ (uint64_t)(unsigned char)*p) * 0x100000001b3ull;
	snprintf(machine_hash, sizeof(machine_hash), "%016llx", (unsigned long long)h);
}

static char machine_arg[4096];

/*
 * @name (a NAME or generic-N, not a path) failed to load: where the machine
 * directory holds no machine file, @err says so and where they are looked
 * for; where it lacks only generic.machine, generic-N says that, with the
 * machines it holds (the file's open error alone was printed).
 */
static void load_failed(const char *name, char *err, size_t errlen)
{
	char path[4200], list[1536];

	if (strchr(name, '/') || lab_sim_machine_file(name) || lab_sim_machine_dir_check(err, errlen))
		return;
	snprintf(path, sizeof(path), "%s/generic.machine", lab_sim_machine_dir());
	if (strncmp(name, "generic-", 8) || !access(path, R_OK) || errno != ENOENT)
		return;
	lab_sim_machine_names(list, sizeof(list));
	snprintf(err, errlen, "unknown machine '%s': %s holds no generic.machine, which generic-N is made from "
		 "(valid: %s; set RWLAB_SIM_MACHINES to a directory with it, such as the source tree's sim/machines)",
		 name, lab_sim_machine_dir(), list);
}

int lab_sim_machine_load(struct sim_machine *m, const char *name, char *err, size_t errlen)
{
	int r = sim_machine_load(m, lab_sim_machine_dir(), name, err, errlen);

	if (r) {
		load_failed(name, err, errlen);
		return r;
	}
	hash_machine(lab_sim_machine_dir(), name, m);
	snprintf(machine_arg, sizeof(machine_arg), "%s", name);
	return r;
}

const char *lab_sim_machine_arg(void)
{
	return machine_arg;
}

const char *lab_sim_machine_hash(void)
{
	return machine_hash;
}
