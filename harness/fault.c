/* SPDX-License-Identifier: GPL-2.0-only */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

/* Does the entry [p, p+len) name @site (and @variant when it has "=VARIANT")? */
static bool entry_matches(const char *p, size_t len, const char *site, const char *variant)
{
	size_t sl = strlen(site);
	const char *eq;

	if (len < sl || strncmp(p, site, sl))
		return false;
	if (len == sl)
		return true;
	if (p[sl] != '=')
		return false;
	eq = p + sl + 1;
	return variant && strlen(variant) == (size_t)(p + len - eq) && !strncmp(eq, variant, (size_t)(p + len - eq));
}

bool lab_fault_inject(const char *site, const char *variant)
{
	const char *spec = getenv("RWLAB_FAULT_INJECT");

	while (spec && *spec) {
		size_t len = strcspn(spec, ",");

		if (entry_matches(spec, len, site, variant))
			return true;
		spec += len + (spec[len] == ',');
	}
	return false;
}

double lab_fault_loadavg(double dflt)
{
	const char *v = getenv("RWLAB_FAULT_LOADAVG");
	char *end;
	double x;

	if (!v || !*v)
		return dflt;
	x = strtod(v, &end);
	return *end || !isfinite(x) || x < 0 ? dflt : x;
}
