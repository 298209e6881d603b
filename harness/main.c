/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwlab - the command line: lab_cmds[], the subcommands, and main().
 *
 * Each subcommand lives in its own file (cmd_*.c, torture_cmd.c, exec.c) with its
 * option table; cli.c turns the tables into getopt, --help, the man page
 * and the bash completion.
 *
 * Adding a subcommand: one entry in lab_cmds[] below, pointing at its option
 * table and its function (declared in cmds.h). Adding an option: one entry
 * in that command's table and one case in its switch.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "config.h"
#include "sim_cmd.h"
#include "torture.h"
#include "version.h"

const char *lab_prog = "rwlab";

const struct lab_cmd lab_cmds[] = {
	{ "list", "[options]", "the lock variants, lazy-mm schemes and workloads (with --verbose, their knobs)",
	  lab_list_opts, lab_cmd_list, NULL, false },
	{ "run", "[options]", "run a matrix of variants x workloads x thread counts, write a results CSV",
	  lab_run_opts, lab_cmd_run,
	  "Exit status: 0 every cell succeeded; 1 a cell failed (named on stderr, its\n"
	  "rows left out); 2 bad usage, nothing run; 130 interrupted (the finished\n"
	  "cells are kept).\n", false },
	{ "report", "FILE.csv... [options]", "comparison tables from results CSVs (- reads stdin); cells "
	  "measured on different hosts are pooled only with --by host", lab_report_opts, lab_cmd_report, NULL, false },
	{ "plot", "FILE.csv -o OUT.png|OUT.svg [options]",
	  "a metric against threads, or locktest fairness (gnuplot)", lab_plot_opts, lab_cmd_plot, NULL, false },
	{ "bench", "[options]", "uncontended ns per lock/unlock pair, per variant", lab_bench_opts, lab_cmd_bench,
	  NULL, false },
	{ "bench-lazy", "[options]", "lazy-mm cost per pipe round trip at one pair, vs none and the bare pipe",
	  lab_bench_lazy_opts, lab_cmd_bench_lazy, NULL, false },
	{ "torture", "[options]", "locktorture: exclusion checks under load, per variant", lab_torture_opts,
	  lab_torture_cmd, NULL, false },
	{ "merge", "[-o OUT.csv] FILE.csv...", "check and merge the CSVs of a run's shards (run --shard I/N)",
	  lab_merge_opts, lab_cmd_merge,
	  "Refuses (exit 2) files of two plans or schemas, two shard counts, one shard in\n"
	  "two files and one cell in two files or on two hosts; warns where hosts, builds\n"
	  "or settings differ; exit 1 when shards or cells are missing (OUT is still\n"
	  "written), 0 when complete.\n", false },
	{ "slurm", "[--matrix NAME] [options] [run options] [-- run options]",
	  "any run as a Slurm job array, one shard per task; --submit waits with progress, merges and reports",
	  lab_slurm_opts, lab_cmd_slurm, lab_slurm_more, false },
	{ "exec", "-l VARIANTS [options] -- CMD [ARGS...]",
	  "a program per variant under librwlab-preload.so (every pthread_rwlock on the variant), as CSV rows",
	  lab_exec_opts, lab_cmd_exec, lab_exec_more, true },
	{ "sim", "list | show MACHINE", "the simulated machines (run and torture take --sim MACHINE): list them, "
	  "or show one's parameters with their citations", lab_sim_opts, lab_cmd_sim,
	  "MACHINE is sim/machines/NAME.machine (or $RWLAB_SIM_MACHINES/NAME.machine), or\n"
	  "generic-N for N = 2..512 (from generic.machine).\n", false },
	{ 0 }
};

const char *lab_list_add(char *buf, size_t len, const char *add, const char *opt)
{
	size_t l = strlen(buf);
	int n = snprintf(buf + l, len - l, "%s%s", l ? "," : "", add);

	if (n < 0 || (size_t)n >= len - l) {
		buf[l] = 0;
		fprintf(stderr, "%s: %s: the list is too long (at most %zu characters)\n", lab_prog, opt, len - 1);
		return NULL;
	}
	return buf;
}

/* rwlab help [COMMAND | --man | --bash] */
static int cmd_help(int argc, char **argv)
{
	const struct lab_cmd *cmd;
	char names[256];

	if (argc < 3) {
		lab_cli_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[2], "--man")) {
		lab_cli_man(stdout, LAB_VERSION);
		return 0;
	}
	if (!strcmp(argv[2], "--bash")) {
		lab_cli_bash_completion(stdout);
		return 0;
	}
	cmd = lab_cmd_find(argv[2]);
	if (!cmd) {
		lab_cli_names(names, sizeof(names));
		fprintf(stderr, "%s: no help for '%s' (valid: %s)\n", lab_prog, argv[2], names);
		return 2;
	}
	lab_cmd_help(stdout, cmd);
	return 0;
}

int main(int argc, char **argv)
{
	const struct lab_cmd *cmd;
	char names[256];
	int st;

	if (argc < 2) {
		lab_cli_names(names, sizeof(names));
		fprintf(stderr, "usage: rwlab <command> [options] (commands: %s; 'rwlab help' says more)\n", names);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
		printf("rwlab %s (git %s; %s build, %s)\n", LAB_VERSION, LAB_GIT_REV, LAB_BUILD_TYPE, LAB_COMPILER);
		return 0;
	}
	cmd = lab_cmd_find(argv[1]);
	if (!cmd) {
		lab_cli_names(names, sizeof(names));
		fprintf(stderr, "%s: unknown command '%s' (valid: %s)\n", lab_prog, argv[1], names);
		return 2;
	}
	if ((st = lab_sim_misplaced(argc, argv)) >= 0)
		return st;
	lab_sim_save_argv(argc, argv);	/* run/torture --sim re-execute rwlab-sim with it (sim_cmd.h) */
	/* Subcommand options start after the subcommand: argv[0] becomes "rwlab". */
	argv[1] = (char *)lab_prog;
	return cmd->fn(argc - 1, argv + 1);
}
