/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab sim validate [MACHINE...]` (issue 22): the validation ladder in
 * the machine directory's validate.ladder, run rung by rung (validate.c has
 * the contract). @argc/@argv: the machine names (none: all, "here" last).
 * Returns 0 (all passed), 1 (a rung failed or did not run), 2 (bad input).
 */
#pragma once

int lab_sim_validate(int argc, char **argv);
