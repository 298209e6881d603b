/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "compiler.h"
#include "config.h"
#include "context.h"
#include "topology.h"
#include "version.h"
#if LAB_SIM
#include "sim.h"
#include "sim_cmd.h"
#include "sim_version.h"
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

/* The first line of sysfs/procfs file @path into @buf, or @def; for "[a] b c" lists, the bracketed word. */
static void read_line(const char *path, char *buf, size_t len, const char *def)
{
	FILE *f = fopen(path, "r");
	char line[1024], *lb, *rb;

	snprintf(buf, len, "%s", def);
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		lb = strchr(line, '[');
		rb = lb ? strchr(lb, ']') : NULL;
		if (lb && rb)
			snprintf(buf, len, "%.*s", (int)(rb - lb - 1), lb + 1);
		else
			snprintf(buf, len, "%.*s", (int)len - 1, line);	/* a longer line is cut: it is context, not a key */
	}
	fclose(f);
}

/* Turbo/boost: acpi-cpufreq's boost (1 = on), or intel_pstate's no_turbo (1 = off). */
static void boost(char *buf, size_t len)
{
	char v[16];

	read_line("/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v), "");
	if (v[0]) {
		snprintf(buf, len, "%s", strcmp(v, "0") ? "on" : "off");
		return;
	}
	read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof(v), "");
	snprintf(buf, len, "%s", !v[0] ? "unknown" : strcmp(v, "0") ? "off" : "on");
}

static void provenance(struct lab_context *ctx)
{
	read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", ctx->governor, sizeof(ctx->governor),
		  "unknown");
	read_line("/sys/devices/system/cpu/smt/control", ctx->smt, sizeof(ctx->smt), "unknown");
	boost(ctx->boost, sizeof(ctx->boost));
	read_line("/sys/kernel/mm/transparent_hugepage/enabled", ctx->thp, sizeof(ctx->thp), "unknown");
	read_line("/proc/cmdline", ctx->cmdline, sizeof(ctx->cmdline), "unknown");
	read_line("/sys/devices/system/cpu/isolated", ctx->isolated, sizeof(ctx->isolated), "");
}

void lab_context_get(struct lab_context *ctx)
{
	struct utsname u;

	memset(ctx, 0, sizeof(*ctx));
	cpu_model(ctx->cpu_model, sizeof(ctx->cpu_model));
	ctx->cpus = lab_topology_init();	/* hwloc's allowed PUs in the CPU binding: right under a cpuset, taskset */
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
	provenance(ctx);
#if LAB_SIM
	/* Simulated: the machine, the engine version and the seed are the context. */
	{
		const struct sim_machine *m = sim_machine();

		snprintf(ctx->cpu_model, sizeof(ctx->cpu_model), "sim %.40s: %s", m->name, m->summary);
		/* the host's settings do not describe the simulated machine */
		snprintf(ctx->governor, sizeof(ctx->governor), "sim");
		snprintf(ctx->smt, sizeof(ctx->smt), "sim");
		snprintf(ctx->boost, sizeof(ctx->boost), "sim");
		snprintf(ctx->thp, sizeof(ctx->thp), "sim");
		snprintf(ctx->cmdline, sizeof(ctx->cmdline), "sim");
		ctx->isolated[0] = 0;
		ctx->cpus = m->ncpus;
		snprintf(ctx->kernel, sizeof(ctx->kernel), "rwlab-sim %s engine %s machine %.8s seed %llu",
			 SIM_ENGINE_VERSION, SIM_ENGINE_HASH, lab_sim_machine_hash(), (unsigned long long)sim_seed());
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
