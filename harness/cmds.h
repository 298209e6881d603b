/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/cmds.h - the subcommands: one file each (cmd_*.c, torture_cmd.c,
 * exec.c, merge.c, slurm.c, sim_cmd.c), each defining one struct lab_cmd,
 * lab_ID_cmd, with its name, help texts, option table and function (cli.h
 * says how a table becomes getopt, --help, the man page and the completion).
 *
 * LAB_CMDS is the one list of them, in `rwlab help`'s order; lab_cmds[]
 * (cmds.c) is made from it. Adding a subcommand: its file defining
 * lab_ID_cmd, one X(ID) here, and the file in harness/meson.build.
 */
#pragma once

#include <stddef.h>

#include "cli.h"

#define LAB_CMDS(X) \
	X(list) \
	X(run) \
	X(report) \
	X(plot) \
	X(bench) \
	X(bench_lazy) \
	X(torture) \
	X(merge) \
	X(slurm) \
	X(exec) \
	X(sim)

#define LAB_CMD_DECLARE(id) extern const struct lab_cmd lab_##id##_cmd;
LAB_CMDS(LAB_CMD_DECLARE)
#undef LAB_CMD_DECLARE

/* Every subcommand, NULL-terminated, in LAB_CMDS' order: the table cli.h's walkers take. */
extern const struct lab_cmd *const lab_cmds[];

#define LAB_MAX_LOCKS 64	/* -l entries */
#define LAB_MAX_WLS 32		/* -w entries */
#define LAB_MAX_SCHEMES 32	/* -m entries */
