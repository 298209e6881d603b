/* SPDX-License-Identifier: MIT */
/*
 * `rwlab report`: comparison tables read only from a results CSV.
 */
#pragma once

#include <stdio.h>

struct lab_report_opts {
	const char *path;		/* results CSV */
	const char *metric;		/* NULL: each workload's headline metrics */
	const char *baseline;		/* NULL: the first variant in the file */
};

/*
 * lab_report_print() - print, per workload and metric, a table with thread
 * counts as rows and variants as columns: Hmean for higher-is-better
 * metrics, Amean otherwise, with the sample standard deviation in percent
 * and the change against the baseline variant.
 * Returns 0, or 1 with a one-line error on stderr (unreadable or malformed
 * CSV, missing columns, non-numeric values, unknown metric or baseline).
 */
int lab_report_print(FILE *out, const struct lab_report_opts *o);
