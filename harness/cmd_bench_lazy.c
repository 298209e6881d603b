/* SPDX-License-Identifier: GPL-2.0-only */
/* rwlab bench-lazy: lazy-mm cost per pipe round trip at one pair, vs none and the bare pipe (bench_lazy.h). */
#include <stdio.h>
#include <string.h>

#include "bench_lazy.h"
#include "cmds.h"
#include "lazy_mm.h"
#include "threads.h"

#define PROG LAB_PROG " bench-lazy"	/* what its error lines begin with */

/* Adding an option: one entry here and one case in cmd_bench_lazy()'s switch. */
static const struct lab_opt bench_lazy_opts[] = {
	{ "lazy-mm", 'm', 'm', "LIST", "lazy-mm schemes (none is always added as the reference)", "all", NULL,
	  LAB_COMP_SCHEMES, NULL, 0, 0 },
	{ "round-trips", 0, 'r', "N", "pipe round trips per measurement", "20000", NULL, 0, NULL, 1, 1000000000 },
	{ "switches", 0, 's', "N", "switch-path rounds per measurement", "1000000", NULL, 0, NULL, 1, 1000000000 },
	{ "reps", 'n', 'n', "N", "repetitions, interleaved; best switch, median round trip", "11", NULL, 0, NULL,
	  1, 1000 },
	{ "csv", 'o', 'o', "FILE", "also write the figures as CSV", NULL, NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ 0 }
};

static int cmd_bench_lazy(int argc, char **argv)
{
	static struct lab_lazy_mm_conf schemes[LAB_MAX_SCHEMES];
	struct lab_bench_lazy_opts o = { .round_trips = 20000, .switches = 1000000, .reps = 11 };
	struct lab_cli cli;
	char err[4200];
	const char *twice;
	int c, st;
	long v;

	if (lab_cli_begin(&cli, &lab_bench_lazy_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1) {
		if (c == 'm' && lab_lazy_mm_parse_list(optarg, schemes, LAB_MAX_SCHEMES, &o.nschemes, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			return 2;
		}
		if ((c == 'r' || c == 's' || c == 'n') && lab_cli_count(&cli, PROG, c, &v))
			return 2;
		if (c == 'r' || c == 's')
			*(c == 'r' ? &o.round_trips : &o.switches) = (unsigned long)v;
		else if (c == 'n')
			o.reps = (int)v;
		else if (c == 'o')
			o.csv_path = optarg;
		else if (c != 'm')
			return 2;	/* getopt_long said what was wrong */
	}
	if ((st = lab_cli_no_operands(&cli)))
		return st;
	if (!o.nschemes && lab_lazy_mm_parse_list("all", schemes, LAB_MAX_SCHEMES, &o.nschemes, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 2;
	}
	if ((twice = lab_cli_repeat(schemes[0].label, sizeof(schemes[0]), o.nschemes))) {
		fprintf(stderr, "%s: lazy-mm scheme '%s' given twice in -m (each scheme is measured once)\n", PROG,
			twice);
		return 2;
	}
	o.schemes = schemes;
	return lab_bench_lazy_run(&o);
}

const struct lab_cmd lab_bench_lazy_cmd = {
	.name = "bench-lazy",
	.synopsis = "[options]",
	.summary = "lazy-mm cost per pipe round trip at one pair, vs none and the bare pipe",
	.opts = bench_lazy_opts,
	.fn = cmd_bench_lazy,
};
