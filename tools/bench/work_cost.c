/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwlab-work-cost: what the user-space routines of reaim and gitcheckout cost
 * per unit on this machine, for the machine files' cost.work.*_ns keys
 * (the simulated build charges these routines from the cost model
 * instead of timing them).
 *
 * Each routine is the workload's own code (reaim's tasks that only compute,
 * gitcheckout's inflate), run natively on one thread. A repeat times one call
 * (reaim: one task as a job runs it; inflate: 16 MiB of output from a 4 KiB
 * input page) in thread CPU time, so time the thread spent preempted on a
 * loaded machine is not counted; its figure is that time over the call's
 * units. Printed: the median of the repeats, their minimum and maximum.
 *
 * Usage: rwlab-work-cost [--repeats N]
 * Output (rwlab-calibrate's format): '#' comment lines, then per routine
 *   cost.work.NAME_ns<TAB>MEDIAN<TAB>MIN<TAB>MAX<TAB>ns/UNIT<TAB>REPEATS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gitcheckout.h"
#include "reaim.h"

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *name, const char *unit, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	printf("cost.work.%s_ns\t%.4g\t%.4g\t%.4g\tns/%s\t%d\n", name, n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2,
	       v[0], v[n - 1], unit, n);
	fflush(stdout);
}

static int reaim_costs(int repeats, double *v)
{
	const char *name;
	double units;
	int t;

	for (int i = 0; (t = lab_reaim_work_task(i, &name, &units)) >= 0; i++) {
		char key[64];

		if (lab_reaim_work_call(t))	/* warm-up */
			return -1;
		for (int r = 0; r < repeats; r++) {
			double t0 = cpu_ns();

			if (lab_reaim_work_call(t))
				return -1;
			v[r] = (cpu_ns() - t0) / units;
		}
		snprintf(key, sizeof(key), "reaim.%s", name);
		report(key, "unit", v, repeats);
	}
	return 0;
}

static int inflate_cost(int repeats, double *v)
{
	enum { IN = 4096, OUT = 16 << 20 };
	uint8_t *src = malloc(IN), *out = malloc(16384);
	volatile uint32_t sink = 0;

	if (!src || !out)
		return -1;
	for (int i = 0; i < IN; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	sink += lab_gc_inflate_bench(out, src, IN, OUT);
	for (int r = 0; r < repeats; r++) {
		double t0 = cpu_ns();

		sink += lab_gc_inflate_bench(out, src, IN, OUT);
		v[r] = (cpu_ns() - t0) / OUT;
	}
	report("gitcheckout.inflate", "byte", v, repeats);
	free(src);
	free(out);
	return (int)(sink & 0);
}

int main(int argc, char **argv)
{
	int repeats = 7;
	double *v;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repeats") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
			repeats = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: rwlab-work-cost [--repeats N]\n");
			return 2;
		}
	}
	v = malloc((size_t)repeats * sizeof(*v));
	if (!v)
		return 1;
	printf("# rwlab-work-cost: thread CPU ns per unit, median of %d repeats (one call each) after a warm-up\n",
	       repeats);
	printf("# metric\tmedian\tmin\tmax\tunit\trepeats\n");
	if (reaim_costs(repeats, v) || inflate_cost(repeats, v)) {
		fprintf(stderr, "rwlab-work-cost: a routine failed\n");
		return 1;
	}
	free(v);
	return 0;
}
