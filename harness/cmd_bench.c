/* SPDX-License-Identifier: GPL-2.0-only */
/* rwlab bench: uncontended ns per lock/unlock pair, per variant (bench.h). */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cmds.h"
#include "rwsem.h"
#include "threads.h"

#define PROG LAB_PROG " bench"	/* what its error lines begin with */

/* Adding an option: one entry here and one case in cmd_bench()'s switch. */
static const struct lab_opt bench_opts[] = {
	{ "lock", 'l', 'l', "LIST", "lock variants, NAME[:key=val,...] or all", "all", NULL, LAB_COMP_VARIANTS, NULL, 0, 0 },
	{ "pairs", 0, 'p', "N", "lock/unlock pairs per repetition", "2000000", NULL, 0, NULL, 1, 1000000000 },
	{ "reps", 'n', 'n', "N", "repetitions, the best reported", "5", NULL, 0, NULL, 1, 1000 },
	{ "csv", 'o', 'o', "FILE", "also write the figures as CSV", NULL, NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ 0 }
};

static int cmd_bench(int argc, char **argv)
{
	static struct lab_rwsem_conf locks[LAB_MAX_LOCKS];
	struct lab_bench_opts o = { .pairs = 2000000, .reps = 5 };
	struct lab_cli cli;
	char err[4200];
	const char *twice;
	int c, st;
	long v;

	if (lab_cli_begin(&cli, &lab_bench_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1) {
		if (c == 'l' && lab_rwsem_parse_list(optarg, locks, LAB_MAX_LOCKS, &o.nlocks, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			return 2;
		}
		if ((c == 'p' || c == 'n') && lab_cli_count(&cli, PROG, c, &v))
			return 2;
		if (c == 'p')
			o.pairs = (unsigned long)v;
		else if (c == 'n')
			o.reps = (int)v;
		else if (c == 'o')
			o.csv_path = optarg;
		else if (c != 'l')
			return 2;	/* getopt_long said what was wrong */
	}
	if ((st = lab_cli_no_operands(&cli)))
		return st;
	if (!o.nlocks && lab_rwsem_parse_list("all", locks, LAB_MAX_LOCKS, &o.nlocks, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 2;
	}
	if ((twice = lab_cli_repeat(locks[0].label, sizeof(locks[0]), o.nlocks))) {
		fprintf(stderr, "%s: lock variant '%s' given twice in -l (each variant is measured once)\n", PROG, twice);
		return 2;
	}
	o.locks = locks;
	return lab_bench_run(&o);
}

const struct lab_cmd lab_bench_cmd = {
	.name = "bench",
	.synopsis = "[options]",
	.summary = "uncontended ns per lock/unlock pair, per variant",
	.opts = bench_opts,
	.fn = cmd_bench,
};
