/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the front finds machine files, and loading one by name (sim_cmd.h):
 * its own file so that `rwlab sim` (sim_cmd.c), the validation ladder
 * (validate.c) and the --sim path all reach it without calling each other.
 */
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

int lab_sim_machine_load(struct sim_machine *m, const char *name, char *err, size_t errlen)
{
	return sim_machine_load(m, lab_sim_machine_dir(), name, err, errlen);
}
