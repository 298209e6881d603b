/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab sim validate [MACHINE...]`: the validation ladder in
 * the machine directory's validate.ladder, run rung by rung (validate.c has
 * the contract). @argc/@argv: the machine names (none: all, "here" last).
 * @page: NULL, or FILE.html to write the ladder's page to (the rungs run,
 * with @command, the command line, shown on it). @keep: NULL (the runs go
 * to a temporary directory, removed at the end), or the directory to keep
 * them in (made if missing, else empty).
 * Returns 0 (all passed), 1 (a rung failed or did not run, or the page
 * could not be written), 2 (bad input).
 */
#pragma once

int lab_sim_validate(int argc, char **argv, const char *page, const char *keep, const char *command);
