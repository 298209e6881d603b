/* SPDX-License-Identifier: GPL-2.0-only */
/* rwlab bench: uncontended ns per lock/unlock pair, per variant (bench.h). */
#include <stdio.h>

#include "bench.h"
#include "cmds.h"
#include "rwsem.h"
#include "threads.h"

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
	int c, nlocks = 0;
	long v;

	if (lab_cli_begin(&cli, &lab_bench_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1) {
		switch (c) {
		case 'l':
			if (lab_rwsem_parse_list(optarg, locks, LAB_MAX_LOCKS, &nlocks, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", LAB_PROG, err);
				return 2;
			}
			break;
		case 'p':
		case 'n':
			if (lab_cli_count(&cli, LAB_PROG, c, &v))
				return 2;
			if (c == 'p')
				o.pairs = (unsigned long)v;
			else
				o.reps = (int)v;
			break;
		case 'o':
			o.csv_path = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see 'rwlab bench --help')\n", LAB_PROG, argv[optind]);
		return 2;
	}
	if (!nlocks && lab_rwsem_parse_list("all", locks, LAB_MAX_LOCKS, &nlocks, err, sizeof(err)))
		return 2;
	o.locks = locks;
	o.nlocks = nlocks;
	return lab_bench_run(&o);
}

const struct lab_cmd lab_bench_cmd = {
	.name = "bench",
	.synopsis = "[options]",
	.summary = "uncontended ns per lock/unlock pair, per variant",
	.opts = bench_opts,
	.fn = cmd_bench,
};
