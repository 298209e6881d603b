/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "compiler.h"
#include "config.h"
#include "context.h"
#include "version.h"
#if LAB_SIM
#include "sim.h"
#endif

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || (strncmp(line, "model name", 10) && strncmp(line, "Processor", 9) &&
			       strncmp(line, "cpu model", 9)))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

void lab_context_get(struct lab_context *ctx)
{
	struct utsname u;

	memset(ctx, 0, sizeof(*ctx));
	cpu_model(ctx->cpu_model, sizeof(ctx->cpu_model));
	ctx->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (uname(&u) == 0) {
		snprintf(ctx->kernel, sizeof(ctx->kernel), "%.40s %.80s", u.sysname, u.release);
		snprintf(ctx->host, sizeof(ctx->host), "%.63s", u.nodename);
	}
	snprintf(ctx->compiler, sizeof(ctx->compiler), "%s", LAB_COMPILER);
	snprintf(ctx->build_type, sizeof(ctx->build_type), "%s", LAB_BUILD_TYPE);
	snprintf(ctx->allocator, sizeof(ctx->allocator), "%s", LAB_ALLOCATOR);
	snprintf(ctx->sanitize, sizeof(ctx->sanitize), "%s", LAB_SANITIZE);
	snprintf(ctx->git_rev, sizeof(ctx->git_rev), "%s", LAB_GIT_REV);
	ctx->event_counts = LAB_EVENT_COUNTS;
	ctx->debug_yield = LAB_DEBUG_YIELD;
#if LAB_SIM
	/* Simulated: the machine, the engine version and the seed are the context. */
	{
		const struct sim_machine *m = sim_machine();

		snprintf(ctx->cpu_model, sizeof(ctx->cpu_model), "sim %.40s: %.60s", m->name, m->summary);
		ctx->cpus = m->ncpus;
		snprintf(ctx->kernel, sizeof(ctx->kernel), "rwlab-sim %s seed %llu", SIM_ENGINE_VERSION,
			 (unsigned long long)sim_seed());
	}
#endif
}

bool lab_context_untrusted(const struct lab_context *ctx, char *why, unsigned long len)
{
	if (strcmp(LAB_OPTIMIZATION, "2") && strcmp(LAB_OPTIMIZATION, "3")) {
		snprintf(why, len, "%s build (-O%s): numbers are not representative; use buildtype=release",
			 ctx->build_type, LAB_OPTIMIZATION);
		return true;
	}
	if (strcmp(ctx->sanitize, "none") && ctx->sanitize[0]) {
		snprintf(why, len, "sanitizer build (%s): numbers are not representative", ctx->sanitize);
		return true;
	}
	if (ctx->debug_yield) {
		snprintf(why, len, "debug-yield build: random yields are injected, numbers are meaningless");
		return true;
	}
	return false;
}
