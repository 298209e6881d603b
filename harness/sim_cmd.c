/* SPDX-License-Identifier: GPL-2.0-only */
/* `rwlab sim list|show|validate` and the front's end of --sim (lab_sim_exec): see sim_cmd.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#include "cmds.h"
#include "compiler.h"
#include "sim_cell.h"
#include "sim_cmd.h"
#include "validate.h"

/* The distinct [source] keys of a machine's citations, for `sim list`. */
static void sources(const struct sim_machine *m, char *out, size_t len)
{
	size_t n = 0;

	out[0] = 0;
	for (int i = 0; i < m->nparams; i++) {
		const char *c = m->params[i].cite;

		while ((c = strchr(c, '['))) {
			const char *e = strchr(c, ']');
			char key[64];

			if (!e || (size_t)(e - c) >= sizeof(key) - 1)
				break;
			memcpy(key, c, (size_t)(e - c + 1));
			key[e - c + 1] = 0;
			/* "[calib FILE what]" -> "[calib FILE]" */
			if (!strncmp(key, "[calib ", 7) && strchr(key + 7, ' '))
				strcpy(strchr(key + 7, ' '), "]");
			c = e + 1;
			if (strncmp(key, "[missing", 8) && !strstr(out, key) && n + strlen(key) + 2 < len)
				n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", key);
		}
	}
}

/* One line per machine (name, CPUs, topology), its summary and sources under it, within 80 columns. */
static int sim_list(void)
{
	char *names[256], err[1024], src[512], line[640];
	int n = lab_sim_machine_files(names, 256), bad = 0;
	static struct sim_machine m;

	if (n <= 0) {
		lab_sim_machine_dir_check(err, sizeof(err));
		fprintf(stderr, "rwlab sim list: %s\n", err);
		return 1;
	}
	printf("%-18s %5s  %s\n", "machine", "CPUs", "topology (sockets x L3 domains x cores x SMT)");
	for (int i = 0; i < n; i++) {
		int generic = !strcmp(names[i], "generic");
		char nm[80];

		snprintf(nm, sizeof(nm), "%s", generic ? "generic-64" : names[i]);
		if (lab_sim_machine_load(&m, nm, err, sizeof(err))) {
			printf("%-18s  BAD: %s\n", names[i], err);
			bad = 1;
			free(names[i]);
			continue;
		}
		sources(&m, src, sizeof(src));
		if (generic) {
			printf("%-18s %5s  %s\n", "generic-N", "2-512", "1 socket up to 64 CPUs, else 2; 8 cores per L3");
		} else {
			printf("%-18s %5d  %dS x %dL3 x %dC x %dT, %s numbering\n", m.name, m.ncpus, m.sockets,
			       m.l3_per_socket, m.cores_per_l3, m.smt, m.numbering_adjacent ? "adjacent" : "linux");
		}
		printf("    ");
		lab_cli_wrap(stdout, m.summary, 4, 4);
		snprintf(line, sizeof(line), "sources: %s", src);
		printf("    ");
		lab_cli_wrap(stdout, line, 4, 4);
		free(names[i]);
	}
	return bad;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/*
 * The per-pair matrix's figures by distance class (SMT sibling, same L3,
 * same socket, other socket), median and p10-p90: what the machine file's
 * class figures should be (sim/README.md rule 9).
 */
static void show_pairs(const struct sim_machine *m)
{
	static const char *const name[4] = { "SMT", "same L3", "same socket", "other socket" };
	const double file[4] = { m->c2c_smt_ns, m->c2c_l3_ns, m->c2c_socket_ns, m->c2c_remote_ns };
	size_t n = (size_t)m->ncpus, k[4] = { 0 };
	float *v[4];

	for (int c = 0; c < 4; c++)
		if (!(v[c] = malloc(n * n / 2 * sizeof(float) + sizeof(float))))
			abort();
	for (int a = 0; a < m->ncpus; a++)
		for (int b = a + 1; b < m->ncpus; b++) {
			struct sim_cpu_place x, y;
			int c;

			sim_machine_place(m, a, &x);
			sim_machine_place(m, b, &y);
			c = x.core == y.core ? 0 : x.l3 == y.l3 ? 1 : x.socket == y.socket ? 2 : 3;
			v[c][k[c]++] = m->pair_ns[(size_t)a * n + (size_t)b];
		}
	printf("derived: c2c.pairs: %d x %d figures; by class, median (p10-p90) against the file's figure:", m->ncpus,
	       m->ncpus);
	for (int c = 0, shown = 0; c < 4; c++) {
		if (!k[c])
			continue;
		qsort(v[c], k[c], sizeof(float), cmp_float);
		printf("%s %s %.1f (%.1f-%.1f) ns, %zu pairs, file %.1f", shown++ ? ";" : "", name[c], v[c][k[c] / 2],
		       v[c][k[c] / 10], v[c][k[c] * 9 / 10], k[c], file[c]);
	}
	printf("\n");
	for (int c = 0; c < 4; c++)
		free(v[c]);
}

/*
 * A parameter's value as the file gives it: the machine keeps each value in a
 * short buffer for this listing, so the text ones that may be longer (the
 * summary, a per-pair matrix's path) are taken whole from their fields.
 */
static const char *shown_value(const struct sim_machine *m, const struct sim_param *p)
{
	if (!strcmp(p->key, "summary"))
		return m->summary;
	if (!strcmp(p->key, "c2c.pairs"))
		return m->c2c_pairs;
	return p->value;
}

static int sim_show(const char *name)
{
	static struct sim_machine m;
	char err[1024];

	if (lab_sim_machine_load(&m, name, err, sizeof(err))) {
		fprintf(stderr, "rwlab sim show: %s\n", err);
		return 2;
	}
	printf("machine %s (%s)\n%s\n", m.name, m.path, m.summary);
	printf("derived: %d CPUs = %d socket%s x %d cores (%d L3 domains of up to %d cores each) x %d SMT, "
	       "numbering %s; CFS tunables scaled x%d\n",
	       m.ncpus, m.sockets, m.sockets == 1 ? "" : "s", m.cores_per_socket, m.l3_per_socket, m.cores_per_l3, m.smt,
	       m.numbering_adjacent ? "adjacent" : "linux", sim_machine_sched_factor(&m));
	if (m.pair_ns)
		show_pairs(&m);
	printf("citations: each [key] is a row of results/sim/machines.md's Sources table; [calib PATH METRIC] a "
	       "calibration record's summary, [calc] arithmetic on sources, [proxy] a sibling part's figure, "
	       "[missing: ...] nothing published\n");
	for (int i = 0; i < m.nparams; i++) {
		const struct sim_param *p = &m.params[i];

		if (p->cite[0])
			printf("  %-28s = %-12s # %s\n", p->key, shown_value(&m, p), p->cite);
		else
			printf("  %-28s = %s\n", p->key, shown_value(&m, p));
	}
	return 0;
}

/*
 * The one place rwlab-sim's address-space randomisation is decided. Same
 * seed, same schedule: lock code hashes addresses (bravo's table), the
 * directory keys lines by address, and where the allocator and the task
 * stacks put the simulated program's objects decides which of them share a
 * line; with ASLR those addresses, and so the results, would change from run
 * to run. personality(ADDR_NO_RANDOMIZE) outlives execve(): set here, it
 * holds for rwlab-sim from its first instruction, with no second exec.
 */
static void aslr_off(void)
{
	int p = personality(0xffffffff);

	if (p == -1 || (!(p & ADDR_NO_RANDOMIZE) && personality((unsigned long)p | ADDR_NO_RANDOMIZE) == -1))
		fprintf(stderr, "%s: WARNING: cannot disable address randomisation: runs of one seed may differ "
			"where lock code hashes addresses\n", LAB_PROG);
}

int lab_sim_plan_args(struct lab_sim_plan *p, int argc, char **argv, const bool *drop)
{
	p->argc = 0;
	p->argv = calloc((size_t)argc + 1, sizeof(*p->argv));
	if (!p->argv) {
		fprintf(stderr, "%s: --sim: out of memory\n", p->prog);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (!drop[i])
			p->argv[p->argc++] = argv[i];
	return 0;
}

int lab_sim_prepare(const char *prog, const char *machine, char *exe, size_t len)
{
	static struct sim_machine m;
	char self[PATH_MAX], err[1024];
	ssize_t n;

	if (LAB_SIM) {
		fprintf(stderr, "%s: --sim: the simulated build runs no other simulation\n", prog);
		return 2;
	}
	if (lab_sim_machine_load(&m, machine, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "%s: --sim: cannot find this binary (/proc/self/exe): %s\n", prog, strerror(errno));
		return 2;
	}
	self[n] = 0;
	*strrchr(self, '/') = 0;
	if ((size_t)snprintf(exe, len, "%s/rwlab-sim", self) >= len) {
		fprintf(stderr, "%s: --sim: the path of rwlab-sim beside %s is too long\n", prog, self);
		return 2;
	}
	if (access(exe, X_OK)) {
		fprintf(stderr, "%s: --sim needs the simulated build %s: %s (rebuild with tools/setup)\n", prog, exe,
			strerror(errno));
		return 2;
	}
	aslr_off();
	return 0;
}

int lab_sim_protocol(const struct lab_sim_plan *p, const char *exe, unsigned long long seed,
		     unsigned long long seeds, char num[2][24], char **av, int max)
{
	int ac = 0;

	if (p->argc + 10 > max)
		return -1;
	snprintf(num[0], 24, "%llu", seed);
	snprintf(num[1], 24, "%llu", seeds);
	av[ac++] = (char *)exe;
	av[ac++] = "--machine";
	av[ac++] = (char *)p->machine;
	av[ac++] = "--seed";
	av[ac++] = num[0];
	av[ac++] = "--seeds";
	av[ac++] = num[1];
	av[ac++] = "--";
	av[ac++] = (char *)p->cmd;
	memcpy(av + ac, p->argv, (size_t)p->argc * sizeof(*av));
	ac += p->argc;
	av[ac] = NULL;
	return ac;
}

int lab_sim_exec(const struct lab_sim_plan *p)
{
	char path[PATH_MAX + 16], num[2][24], **av;

	if (lab_sim_prepare(p->prog, p->machine, path, sizeof(path)))
		return 2;
	av = calloc((size_t)p->argc + 10, sizeof(*av));
	if (!av) {
		fprintf(stderr, "%s: --sim: out of memory\n", p->prog);
		return 2;
	}
	lab_sim_protocol(p, path, p->seed, p->seeds, num, av, p->argc + 10);
	/* a run's process runs no cell: the statistics are its cells' (sim_cell.h) */
	if (!strcmp(p->cmd, "run") && getenv("RWLAB_SIM_STATS")) {
		setenv(LAB_SIM_CELL_STATS_ENV, getenv("RWLAB_SIM_STATS"), 1);
		unsetenv("RWLAB_SIM_STATS");
	}
	fflush(NULL);
	execv(path, av);
	fprintf(stderr, "%s: --sim needs the simulated build %s: %s (rebuild with tools/setup)\n", p->prog, path,
		strerror(errno));
	free(av);
	return 2;
}

/* `sim`'s words are positional; -o and --keep are validate's. */
static const struct lab_opt sim_opts[] = {
	{ "output", 'o', 'o', "FILE", "validate: also write the ladder as one self-contained page (FILE.html)", NULL,
	  NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ "keep", 0, 'k', "DIR", "validate: keep the rungs' runs (CSV and log each), the calibration and the here "
	  "machine file in DIR, made if missing, else empty", "a temporary directory, removed at the end", NULL,
	  LAB_COMP_DIRS, NULL, 0, 0 },
	{ 0 }
};

static int cmd_sim(int argc, char **argv)
{
	struct lab_cli cli;
	const char *page = NULL, *keep = NULL;
	char command[8192];
	int c;

	/* the command as given, for validate's page */
	snprintf(command, sizeof(command), "%s sim ", LAB_PROG);
	lab_cli_command(argc - 1, argv + 1, command + strlen(command), sizeof(command) - strlen(command));
	if (lab_cli_begin(&cli, &lab_sim_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1) {
		if (c == 'o')
			page = optarg;
		else if (c == 'k')
			keep = optarg;
		else
			return 2;	/* getopt_long said what was wrong */
	}
	argc -= optind;
	argv += optind;
	if (argc >= 1 && !strcmp(argv[0], "validate"))
		return lab_sim_validate(argc - 1, argv + 1, page, keep, command);
	if (page || keep) {	/* list and show write no page and run nothing: not silently ignored */
		fprintf(stderr, "rwlab sim: %s (rwlab sim validate [MACHINE...] [-o FILE.html] [--keep DIR])\n",
			page ? "-o is validate's page" : "--keep is validate's runs' directory");
		return 2;
	}
	if (argc == 1 && !strcmp(argv[0], "list"))
		return sim_list();
	if (argc == 2 && !strcmp(argv[0], "show"))
		return sim_show(argv[1]);
	if (argc >= 1 && !strcmp(argv[0], "show")) {
		fprintf(stderr, "rwlab sim show: %s (valid: rwlab sim show MACHINE, one of rwlab sim list's, "
			"generic-N or a machine file's path)\n", argc == 1 ? "needs a MACHINE" : "takes one MACHINE");
		return 2;
	}
	fprintf(stderr, "rwlab sim: expected 'list', 'show MACHINE' or 'validate [MACHINE...] [-o FILE.html]' (machines: rwlab sim list)\n");
	return 2;
}

const struct lab_cmd lab_sim_cmd = {
	.name = "sim",
	.synopsis = "list | show MACHINE | validate [MACHINE...] [-o FILE.html]",
	.summary = "the simulated machines (run and torture take --sim MACHINE): list them, "
		   "show one's parameters with their citations, or run the validation ladder",
	.opts = sim_opts,
	.fn = cmd_sim,
	.operands = LAB_COMP_SIM,
	.more = "MACHINE is sim/machines/NAME.machine (or $RWLAB_SIM_MACHINES/NAME.machine),\n"
		"generic-N for N = 2..64 or an even N up to 512 (from generic.machine), or the\n"
		"path of a machine file (a name with a '/' or ending in .machine).\n"
		"validate runs the rungs of sim/machines/validate.ladder for each MACHINE,\n"
		"which must be one the ladder has rungs for: a machine file it names or\n"
		"'here' (not generic-N; a machine without rungs is refused, naming those\n"
		"with). Default: every machine it names, then 'here': this host, calibrated\n"
		"by rwlab-calibrate and run natively in the same command. It prints figure,\n"
		"simulated value, ratio, tolerance, PASS/FAIL. Exit 0 when all passed, 1 when\n"
		"any failed, 2 on bad input. -o FILE.html also writes the ladder as one\n"
		"self-contained page: per machine simulated / figure per rung against its\n"
		"tolerance band, and the rungs' table. The runs go to a temporary directory,\n"
		"removed at the end, pass or fail; --keep DIR keeps them in DIR instead.\n",
};
