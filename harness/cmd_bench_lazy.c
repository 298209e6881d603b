/* SPDX-License-Identifier: GPL-2.0-only */
/* rwlab bench-lazy: lazy-mm cost per pipe round trip at one pair, vs none and the bare pipe (bench_lazy.h). */
#include <stdio.h>

#include "bench_lazy.h"
#include "cmds.h"
#include "lazy_mm.h"
#include "threads.h"

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
	int c, n = 0;
	long v;

	if (lab_cli_begin(&cli, &lab_bench_lazy_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1) {
		switch (c) {
		case 'm':
			if (lab_lazy_mm_parse_list(optarg, schemes, LAB_MAX_SCHEMES, &n, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", LAB_PROG, err);
				return 2;
			}
			break;
		case 'r':
		case 's':
		case 'n':
			if (lab_cli_count(&cli, LAB_PROG, c, &v))
				return 2;
			if (c == 'n')
				o.reps = (int)v;
			else
				*(c == 'r' ? &o.round_trips : &o.switches) = (unsigned long)v;
			break;
		case 'o':
			o.csv_path = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see 'rwlab bench-lazy --help')\n", LAB_PROG,
			argv[optind]);
		return 2;
	}
	if (!n && lab_lazy_mm_parse_list("all", schemes, LAB_MAX_SCHEMES, &n, err, sizeof(err)))
		return 2;
	o.schemes = schemes;
	o.nschemes = n;
	return lab_bench_lazy_run(&o);
}

const struct lab_cmd lab_bench_lazy_cmd = {
	.name = "bench-lazy",
	.synopsis = "[options]",
	.summary = "lazy-mm cost per pipe round trip at one pair, vs none and the bare pipe",
	.opts = bench_lazy_opts,
	.fn = cmd_bench_lazy,
};
