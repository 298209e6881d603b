/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The measurement context recorded with every result row: what machine,
 * kernel, compiler, build and revision produced it.
 */
#pragma once

#include <stdbool.h>

struct lab_context {
	char cpu_model[320];
	int cpus;			/* CPUs the process may run on (hwloc allowed PUs) */
	char kernel[128];		/* uname -r */
	char compiler[64];
	char build_type[32];		/* meson buildtype, e.g. release */
	char allocator[16];		/* jemalloc or system */
	bool event_counts;		/* lock event counters compiled in */
	bool debug_yield;		/* debug-yield build: never a measurement */
	char sanitize[32];		/* b_sanitize, "none" normally */
	char git_rev[48];
	char host[64];
	/* provenance (schema 2): how the machine was set up, "unknown" where it cannot tell */
	/* the run's -d, --warmup, -n, --seed, --order (lab_run fills it), or exec's "baseline=LABEL" (a label
	 * is up to LAB_SPEC_MAX, 512) */
	char settings[160 + 512];
	char governor[32];		/* cpufreq scaling_governor of CPU 0 */
	char smt[16];			/* on, off, notsupported, ... (/sys/devices/system/cpu/smt/control) */
	char boost[16];			/* turbo/boost: on or off */
	char thp[16];			/* transparent hugepages: always, madvise or never */
	char cmdline[512];		/* /proc/cmdline */
	char isolated[64];		/* isolated CPUs (isolcpus=), "" for none */
	char shard[16];			/* "I/N" of a sharded run, else "" (shard.h) */
	char plan[192];			/* plan fingerprint and settings, "" outside run (shard.h) */
};

/*
 * Fill @ctx from /proc/cpuinfo, hwloc (the allowed PUs), uname, the build
 * configuration, /proc/cmdline and sysfs (cpufreq, SMT, boost, THP, isolated).
 */
void lab_context_get(struct lab_context *ctx);

/* True when the build's numbers should not be trusted (debug, sanitizer, debug-yield). */
bool lab_context_untrusted(const struct lab_context *ctx, char *why, unsigned long len);
