/* SPDX-License-Identifier: MIT */
/*
 * The measurement context recorded with every result row: what machine,
 * kernel, compiler, build and revision produced it.
 */
#pragma once

#include <stdbool.h>

struct lab_context {
	char cpu_model[128];
	int cpus;			/* online CPUs */
	char kernel[128];		/* uname -r */
	char compiler[64];
	char build_type[32];		/* meson buildtype, e.g. release */
	char allocator[16];		/* jemalloc or system */
	bool event_counts;		/* lock event counters compiled in */
	bool debug_yield;		/* debug-yield build: never a measurement */
	char sanitize[32];		/* b_sanitize, "none" normally */
	char git_rev[48];
	char host[64];
	char shard[16];			/* "I/N" of a sharded run, else "" (shard.h) */
	char plan[192];			/* plan fingerprint and settings, "" outside run (shard.h) */
};

/* Fill @ctx from /proc/cpuinfo, sysconf, uname and the build configuration. */
void lab_context_get(struct lab_context *ctx);

/* True when the build's numbers should not be trusted (debug, sanitizer, debug-yield). */
bool lab_context_untrusted(const struct lab_context *ctx, char *why, unsigned long len);
