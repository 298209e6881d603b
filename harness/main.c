/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwlab - main(): help, --version, and the dispatch to a subcommand.
 *
 * Everything else is in librwlab-harness: each subcommand lives in its own
 * file (cmd_*.c, torture_cmd.c, exec.c, ...) with its option table and its
 * struct lab_cmd, listed by cmds.h's LAB_CMDS; cli.c turns the tables into
 * getopt, --help, the man page and the bash completion. Adding a
 * subcommand: cmds.h. Adding an option: one entry in that command's table
 * and one case in its switch.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "config.h"
#include "err.h"
#include "matrix.h"
#include "sim_cmd.h"	/* rwlab_main(): this main() as build/rwlab-sim compiles it */
#include "version.h"

/* rwlab help [COMMAND | --man | --bash] */
static int cmd_help(int argc, char **argv)
{
	const struct lab_cmd *cmd;
	char names[256];

	if (argc > 3) {
		fprintf(stderr, "%s help: unexpected argument '%s' (help takes one of: COMMAND, --man, --bash)\n",
			LAB_PROG, argv[3]);
		return 2;
	}
	if (argc < 3 || !strcmp(argv[2], "help") || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
		if (argc >= 3)	/* help about help: what it takes, then the commands */
			printf("usage: rwlab help [COMMAND | --man | --bash]\n"
			       "a command's options, the man page (roff), the bash completion\n\n");
		lab_cli_usage(stdout, lab_cmds);
		return 0;
	}
	if (!strcmp(argv[2], "--man")) {
		lab_cli_man(stdout, lab_cmds, LAB_VERSION);
		return 0;
	}
	if (!strcmp(argv[2], "--bash")) {
		char machines[4096], matrices[4096];
		struct lab_comp_words w = { machines, matrices };

		lab_sim_machine_names(machines, sizeof(machines));
		lab_matrix_names(matrices, sizeof(matrices));
		lab_cli_bash_completion(stdout, lab_cmds, &w);
		return 0;
	}
	cmd = lab_cmd_find(lab_cmds, argv[2]);
	if (!cmd) {
		lab_cli_names(lab_cmds, names, sizeof(names));
		fprintf(stderr, "%s: no help for '%s' (valid: %s)\n", LAB_PROG, argv[2], names);
		return 2;
	}
	lab_cmd_help(stdout, cmd);
	return 0;
}

int main(int argc, char **argv)
{
	const struct lab_cmd *cmd;
	char names[256], prog[64];

	if (argc < 2) {
		lab_cli_names(lab_cmds, names, sizeof(names));
		fprintf(stderr, "usage: rwlab <command> [options] (commands: %s; 'rwlab help' says more)\n", names);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(argc, argv);
	if (!strncmp(argv[1], "--help=", 7)) {	/* as "--help COMMAND": rwlab --help=run */
		char *av[] = { argv[0], "help", argv[1] + 7, NULL };

		return cmd_help(3, av);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
		printf("rwlab %s (git %s; %s build, %s)\n", LAB_VERSION, LAB_GIT_REV, LAB_BUILD_TYPE, LAB_COMPILER);
		return 0;
	}
	cmd = lab_cmd_find(lab_cmds, argv[1]);
	if (!cmd) {
		lab_cli_names(lab_cmds, names, sizeof(names));
		fprintf(stderr, "%s: unknown command '%s' (valid: %s)\n", LAB_PROG, argv[1], names);
		return 2;
	}
	/* The libraries' error lines begin as the subcommand's own do: "rwlab run: bravo: ..." (err.h). */
	snprintf(prog, sizeof(prog), "%s %s", LAB_PROG, cmd->name);
	lab_prog_set(prog);
	/* Subcommand options start after the subcommand: argv[0] becomes "rwlab". */
	argv[1] = (char *)LAB_PROG;
	return cmd->fn(argc - 1, argv + 1);
}
