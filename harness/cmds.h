/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/cmds.h - the subcommands: one file each (cmd_*.c, torture_cmd.c, exec.c),
 * listed in lab_cmds[] (main.c). Each exports its option table and its
 * function; see cli.h for how a table becomes getopt, --help, the man page
 * and the completion.
 */
#pragma once

#include <stddef.h>

#include "cli.h"

#define LAB_MAX_LOCKS 64	/* -l entries */
#define LAB_MAX_WLS 32		/* -w entries */
#define LAB_MAX_SCHEMES 32	/* -m entries */

/* "rwlab", or "rwlab: FILE:LINE" while an option read from a matrix file is parsed. */
extern const char *lab_prog;

/*
 * lab_list_add() - append @add to the comma-separated list in @buf (a
 * repeated list option: -l a -l b is -l a,b, for every command). Returns
 * @buf, or NULL (message printed) when it does not fit.
 */
const char *lab_list_add(char *buf, size_t len, const char *add, const char *opt);

#define LAB_CMD(name) \
	extern const struct lab_opt lab_##name##_opts[]; \
	int lab_cmd_##name(int argc, char **argv);
LAB_CMD(list)
LAB_CMD(run)
LAB_CMD(report)
LAB_CMD(plot)
LAB_CMD(bench)
LAB_CMD(bench_lazy)
LAB_CMD(torture)
LAB_CMD(merge)
LAB_CMD(slurm)
LAB_CMD(exec)
LAB_CMD(sim)
#undef LAB_CMD
extern const char lab_torture_more[];	/* torture --help's closing text */
extern const char lab_exec_more[];	/* exec --help's closing text (exec.c) */
extern const char lab_slurm_more[];	/* slurm --help's closing text (slurm.c) */
