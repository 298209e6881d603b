/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Readable numbers for the report tables and the per-cell progress line
 * (see format.h). Rounding goes through snprintf so that the digits shown
 * are the correctly rounded ones.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "stats.h"

/* Insert thousands separators into the integer part of the decimal string @s (no sign). */
static void group_thousands(const char *s, char *buf, size_t len)
{
	size_t ilen = strcspn(s, "."), off = 0;

	for (size_t i = 0; s[i] && off + 1 < len; i++) {
		if (i && i < ilen && (ilen - i) % 3 == 0 && off + 2 < len)
			buf[off++] = ',';
		buf[off++] = s[i];
	}
	buf[off] = 0;
}

const char *lab_fmt_cpus(const char *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s CPU%s", n, strcmp(n, "1") ? "s" : "");
	return buf;
}

const char *lab_fmt_ncpus(long n, char *buf, size_t len)
{
	char num[24];

	snprintf(num, sizeof(num), "%ld", n);
	return lab_fmt_cpus(num, buf, len);
}

void lab_fmt_num(double v, char *buf, size_t len)
{
	char digits[400];
	double a = fabs(v);
	int mag, dec;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
		return;
	}
	if (a < 1e-9) {
		snprintf(buf, len, "0");
		return;
	}
	mag = (int)floor(log10(a));		/* 163246 -> 5, 16.66 -> 1, 0.22 -> -1 */
	if (mag >= 3) {
		double scale = pow(10, mag - 3);

		snprintf(digits, sizeof(digits), "%.0f", round(a / scale) * scale);
	} else {
		dec = 3 - mag;
		snprintf(digits, sizeof(digits), "%.*f", dec, a);
		/* 999.96 rounds to "1000.0", 0.099996 to "0.10000": drop the digit a carry made surplus */
		if (floor(log10(strtod(digits, NULL))) > mag)
			snprintf(digits, sizeof(digits), "%.*f", dec > 0 ? dec - 1 : 0, a);
	}
	if (v < 0 && len > 1) {
		buf[0] = '-';
		group_thousands(digits, buf + 1, len - 1);
	} else {
		group_thousands(digits, buf, len);
	}
}

void lab_fmt_pct(double pct, char *buf, size_t len)
{
	char digits[400], grouped[420];

	if (isnan(pct)) {
		snprintf(buf, len, "-");
		return;
	}
	if (pct != 0 && fabs(pct) < 0.095)	/* two significant digits: -0.022% is not "+0.0%" */
		snprintf(digits, sizeof(digits), "%.*f", fabs(pct) < 1e-6 ? 7 : 1 - (int)floor(log10(fabs(pct))),
			 fabs(pct));
	else
		snprintf(digits, sizeof(digits), fabs(pct) < 99.95 ? "%.1f" : "%.0f", fabs(pct));
	group_thousands(digits, grouped, sizeof(grouped));
	snprintf(buf, len, "%c%s%%", pct < 0 ? '-' : '+', grouped);
}

const char *lab_fmt_mean_name(enum lab_better better)
{
	return better == LAB_BETTER_HIGHER ? "Hmean" : "Amean";
}

/* The labelled aggregate of @v: its name, the mean and the spread (CoeffVar or HCoeffVar, %; NaN: none). */
static const char *aggregate(const double *v, int n, enum lab_better better, double *m, double *cv)
{
	bool higher = better == LAB_BETTER_HIGHER && !isnan(lab_hmean(v, n));

	*m = higher ? lab_hmean(v, n) : lab_amean(v, n);	/* a value <= 0: no harmonic mean */
	*cv = lab_fmt_spread(v, n, better, NULL);
	return higher ? "Hmean" : "Amean";
}

double lab_fmt_spread(const double *v, int n, enum lab_better better, const char **name)
{
	bool harmonic = better == LAB_BETTER_HIGHER && !isnan(lab_hmean(v, n));

	if (name)
		*name = harmonic ? "HCoeffVar" : "CoeffVar";
	if (n < 2)
		return NAN;
	return fabs(harmonic ? lab_hcoeffvar(v, n) : lab_coeffvar(v, n));
}

void lab_fmt_aggregate(const double *v, int n, enum lab_better better, char *buf, size_t len)
{
	double m, cv;
	const char *name = aggregate(v, n, better, &m, &cv);
	char num[64];

	lab_fmt_num(m, num, sizeof(num));
	if (isnan(cv))
		snprintf(buf, len, "%s %s", name, num);
	else
		snprintf(buf, len, "%s %s ±%.1f%%", name, num, cv);
}

const char *lab_fmt_flag(const double *v, int n, bool harmonic)
{
	const char *name;
	double cv;

	if (n < 3)
		return "fewer than 3 iterations";
	cv = lab_fmt_spread(v, n, harmonic ? LAB_BETTER_HIGHER : LAB_BETTER_LOWER, &name);
	if (cv > 10)
		return !strcmp(name, "HCoeffVar") ? "HCoeffVar > 10%" : "CoeffVar > 10%";
	return NULL;
}

void lab_fmt_cell_line(FILE *f, const char *variant, const char *workload, int threads, const char *headline,
		       const double *v, int n, enum lab_better better, const char *machine)
{
	const char *flag = lab_fmt_flag(v, n, better == LAB_BETTER_HIGHER);
	char agg[96];

	lab_fmt_aggregate(v, n, better, agg, sizeof(agg));
	fprintf(f, "%-28s %-24s t=%-4d %-14.*s %s", variant, workload, threads, (int)strcspn(headline, ","), headline,
		agg);
	if (machine)
		fprintf(f, "  [sim %s]", machine);
	if (flag)
		fprintf(f, "  [%s]", flag);
	fprintf(f, "\n");
}
