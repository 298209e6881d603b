/* SPDX-License-Identifier: GPL-2.0-only */
/* lab_cmds[]: the subcommands of cmds.h's LAB_CMDS, in its order. */
#include <stddef.h>

#include "cmds.h"

const struct lab_cmd *const lab_cmds[] = {
#define LAB_CMD_ENTRY(id) &lab_##id##_cmd,
	LAB_CMDS(LAB_CMD_ENTRY)
#undef LAB_CMD_ENTRY
	NULL
};
