/* SPDX-License-Identifier: GPL-2.0-only */
/* rwlab plot: a metric against threads, or locktest fairness, through gnuplot (plot.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "plot.h"
#include "report.h"
#include "threads.h"

/* Adding an option: one entry here and one case in plot_option(). */
static const struct lab_opt plot_opts[] = {
	{ "output", 'o', 'o', "FILE", ".png or .svg (required); a %w in it draws one figure per workload (per "
	  "variant under --by workload, per variant and workload under fault_path), %w replaced by its label (_ for each character but a letter, digit, - "
	  "or .; the --by columns where --by compares every key: one unlabelled figure)", NULL, NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ "metric", 'm', 'm', "NAME", "metric", "the workload's headline", NULL, 0, NULL, 0, 0 },
	{ "workload", 'w', 'w', "NAME", "the workload to plot when the file holds several", NULL, NULL,
	  LAB_COMP_WORKLOADS, NULL, 0, 0 },
	{ "baseline", 'b', 'b', "NAME", "column drawn first", NULL, NULL, 0, NULL, 0, 0 },
	{ "by", 0, 'B', "COLUMNS", "CSV columns compared side by side, as in report", "report's: variant; "
	  "fault_path when a variant ran several and every row has one (or one variant ran)", NULL, 0, NULL, 0, 0 },
	{ "fairness", 0, 'F', NULL, "locktest operations per thread, sorted (-t: thread count)", NULL, NULL, 0,
	  NULL, 0, 0 },
	{ "threads", 't', 't', "N", "thread count of the fairness plot", "the largest", NULL, 0, NULL, 1,
	  LAB_THREADS_MAX },
	{ "keep-script", 0, 'K', NULL, "keep the gnuplot script and its data beside each figure: OUT.png.gp and "
	  "OUT.png.dat (OUT.svg.gp, ...)", NULL, NULL, 0, NULL, 0, 0 },
	{ 0 }
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/*
 * -o's directory checked before the CSV is read, as run and report check
 * theirs (a %w in the directory part names each figure's own, checked as it
 * is drawn). True after the one-line refusal.
 */
static bool out_refused(const char *out)
{
	const char *slash = strrchr(out, '/');

	if (slash && memmem(out, (size_t)(slash - out), "%w", 2))
		return false;
	return lab_report_out_check(LAB_PROG " plot", out) != 0;
}

/* One `rwlab plot` option. Returns 0 or the exit status. */
static int plot_option(int c, struct lab_plot_opts *o)
{
	long v;

	switch (c) {
	case 'o':
		o->out = optarg;
		return 0;
	case 'm':
		o->metric = optarg;
		return 0;
	case 'w':
		o->workload = optarg;
		return 0;
	case 'b':
		o->baseline = optarg;
		return 0;
	case 'B': {	/* --by a --by b is --by a,b, as every list option */
		static char by[1024];

		return (o->by = lab_list_add(LAB_PROG " plot", by, sizeof(by), optarg, "--by")) ? 0 : 2;
	}
	case 'F':
		o->fairness = true;
		return 0;
	case 't':
		if (lab_opt_count(LAB_PROG " plot", "-t/--threads", optarg, 1, LAB_THREADS_MAX, &v))
			return 2;
		o->threads = (int)v;
		return 0;
	case 'K':
		o->keep_script = true;
		return 0;
	default:	/* getopt_long said what was wrong */
		return 2;
	}
}

static int cmd_plot(int argc, char **argv)
{
	struct lab_plot_opts o = { 0 };
	struct lab_cli cli;
	int c, st;

	if (lab_cli_begin(&cli, &lab_plot_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1)
		if ((st = plot_option(c, &o)))
			return st;
	if (optind != argc - 1 || !o.out) {
		fprintf(stderr, "%s plot: needs one CSV file and -o OUT.png|OUT.svg (rwlab plot FILE.csv -o OUT.png)\n",
			LAB_PROG);
		return 2;
	}
	if (!ends_with(o.out, ".png") && !ends_with(o.out, ".svg")) {	/* bad usage: 2, as everywhere */
		fprintf(stderr, "rwlab plot: output '%s' must end in .png or .svg (valid: OUT.png, OUT.svg; %%w for one "
			"per workload)\n", o.out);
		return 2;
	}
	if (out_refused(o.out))
		return 2;
	o.path = argv[optind];
	return lab_plot(&o);
}

const struct lab_cmd lab_plot_cmd = {
	.name = "plot",
	.synopsis = "FILE.csv -o OUT.png|OUT.svg [options]",
	.summary = "a metric against threads, or locktest fairness (gnuplot)",
	.opts = plot_opts,
	.fn = cmd_plot,
	.operands = LAB_COMP_CSV,
};
