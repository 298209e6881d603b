/* SPDX-License-Identifier: GPL-2.0-only */
/* rwlab list: the lock variants, lazy-mm schemes and workloads, from their registries. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "inventory.h"
#include "lazy_mm.h"
#include "rwsem.h"
#include "workload.h"

/* Adding an option: one entry here and one case in cmd_list()'s switch. */
static const struct lab_opt list_opts[] = {
	{ "verbose", 'v', 'v', NULL, "also each variant's, scheme's and workload's knobs, and the lock events each variant and scheme counts", NULL, NULL, 0, NULL, 0, 0 },
	{ "names", 0, 'N', NULL, "only the names, one a line: 'variant NAME', 'workload NAME', 'lazy-mm NAME'",
	  NULL, NULL, 0, NULL, 0, 0 },
	{ "host", 0, 'H', NULL, "this host's inventory instead, 'key: value' a line: CPU model, topology, kernel, "
	  "governor, SMT, ... (what each shard of rwlab slurm records and merge compares)", NULL, NULL, 0, NULL,
	  0, 0 },
	{ 0 }
};

static void caps_str(unsigned caps, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", caps & LAB_CAP_READ_TRYLOCK ? "rtry " : "",
		 caps & LAB_CAP_WRITE_TRYLOCK ? "wtry " : "", caps & LAB_CAP_DOWNGRADE ? "downgrade " : "",
		 caps & LAB_CAP_EXCLUSION ? "" : "no-exclusion ");
	if (len && buf[0])
		buf[strlen(buf) - 1] = 0;
	else if (len)
		snprintf(buf, len, "-");
}

static void print_knobs(const struct lab_knob *k)
{
	for (; k && k->name; k++) {
		char def[64];

		lab_knob_value_str(k, k->def, &lab_rwsem_knob_locks, def, sizeof(def));
		printf("      %-22s default %-10s %s", k->name, def, k->help ? k->help : "");
		if (k->type == LAB_KNOB_ENUM)
			printf(" (%s)", k->choices);
		else if (k->type == LAB_KNOB_INT)
			printf(" [%ld..%ld]", k->min, k->max);
		printf("\n");
	}
}

/* The lock events of @list (events.h), and @more: "      lock events: a, b, c[more]". */
static void print_events(const enum lab_event *list, const char *more)
{
	printf("      lock events:");
	for (int i = 0; list && list[i] != LAB_EV_NR; i++)
		printf("%s %s", i ? "," : "", lab_event_names[list[i]]);
	printf("%s%s\n", list ? "" : " none", more);
}

/* A variant with a lock knob counts the events of the variant it wraps, too (lab_rwsem_conf_events()). */
static const char *wraps(const struct lab_knob *k)
{
	for (; k && k->name; k++)
		if (k->type == LAB_KNOB_LOCK)
			return "; and its base lock's (knob base)";
	return "";
}

static int cmd_list(int argc, char **argv)
{
	struct lab_cli cli;
	int verbose = 0, names = 0, host = 0, c;

	if (lab_cli_begin(&cli, &lab_list_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1) {
		if (c == 'v')
			verbose = 1;
		else if (c == 'N')
			names = 1;
		else if (c == 'H')
			host = 1;
		else
			return 2;
	}
	if (lab_cli_no_operands(&cli))
		return 2;
	if (host) {
		struct lab_inventory inv;

		lab_inventory_get(&inv);
		lab_inventory_print(stdout, &inv);
		return 0;
	}
	if (names) {
		for (int i = 0; lab_rwsem_variants[i]; i++)
			printf("variant %s\n", lab_rwsem_variants[i]->name);
		for (int i = 0; lab_workloads[i]; i++)
			printf("workload %s\n", lab_workloads[i]->name);
		for (int i = 0; lab_lazy_mm_schemes[i]; i++)
			printf("lazy-mm %s\n", lab_lazy_mm_schemes[i]->name);
		return 0;
	}
	printf("Lock variants (-l NAME[:key=val,...]; 'all' = every variant not marked hidden):\n");
	printf("  %-16s %-7s %-26s %s\n", "name", "waits", "capabilities", "summary / citation");
	for (int i = 0; lab_rwsem_variants[i]; i++) {
		const struct lab_rwsem_ops *ops = lab_rwsem_variants[i];
		char caps[96];
		const char *waits = (ops->caps & LAB_CAP_SLEEPS) && (ops->caps & LAB_CAP_SPINS) ? "both" :
				    ops->caps & LAB_CAP_SLEEPS ? "sleeps" :
				    ops->caps & LAB_CAP_SPINS ? "spins" : "-";

		caps_str(ops->caps, caps, sizeof(caps));
		printf("  %-16s %-7s %-26s %s%s\n", ops->name, waits, caps, ops->summary,
		       ops->caps & LAB_CAP_NOT_IN_ALL ? " [hidden: not in all]" : "");
		printf("  %-16s %-7s %-26s   cite: %s\n", "", "", "", ops->cite);
		if (verbose)
			print_knobs(ops->knobs);
		if (verbose)
			print_events(ops->events, wraps(ops->knobs));
	}
	printf("\nLazy-mm schemes (-m NAME[:key=val,...]; 'all' = every scheme but none):\n");
	for (int i = 0; lab_lazy_mm_schemes[i]; i++) {
		const struct lab_lazy_mm_ops *ops = lab_lazy_mm_schemes[i];

		printf("  %-16s %-34s %s%s\n", ops->name,
		       ops->flags & LAB_LAZY_UNSAFE ? "unsafe (cost floor)" :
		       ops->flags & LAB_LAZY_MAY_DEFER ? "last lazy drop may free" : "release frees",
		       ops->summary, ops->flags & LAB_LAZY_NOT_IN_ALL ? " [not in all]" : "");
		printf("  %-16s %-34s   cite: %s\n", "", "", ops->cite);
		if (verbose)
			print_knobs(ops->knobs);
		if (verbose)
			print_events(ops->events, "");
	}
	printf("\nWorkloads (-w NAME[:key=val,...]):\n");
	for (int i = 0; lab_workloads[i]; i++) {
		const struct lab_workload_ops *w = lab_workloads[i];

		printf("  %-16s %-7s headline %-22s %s\n", w->name, w->kind == LAB_WL_TIMED ? "timed" : "work",
		       w->headline, w->summary);
		printf("  %-16s %-7s %-31s   cite: %s\n", "", "", "", w->cite);
		if (verbose)
			print_knobs(w->knobs);
	}
	return 0;
}

const struct lab_cmd lab_list_cmd = {
	.name = "list",
	.synopsis = "[options]",
	.summary = "the lock variants, lazy-mm schemes and workloads (with --verbose, their knobs)",
	.opts = list_opts,
	.fn = cmd_list,
};
