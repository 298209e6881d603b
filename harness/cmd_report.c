/* SPDX-License-Identifier: GPL-2.0-only */
/* rwlab report: comparison tables from one or more results CSVs (report.h). */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "csv.h"
#include "merge.h"
#include "matrix.h"
#include "report.h"

#define PROG LAB_PROG " report"	/* what its error lines begin with */
#define MAX_INPUTS 64	/* CSV files one report reads */

/* Adding an option: one entry here and one case in report_option(). */
static const struct lab_opt report_opts[] = {
	{ "format", 'f', 'f', "F", "output format: " LAB_REPORT_FORMATS, "table", NULL, LAB_COMP_CHOICES,
	  LAB_REPORT_FORMAT_WORDS, 0, 0 },
	{ "output", 'o', 'o', "FILE", "write the report to FILE (replaced whole once complete) instead of stdout",
	  "stdout", NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ "metric", 'm', 'm', "LIST", "metrics to tabulate, in that order (all: every metric)", "each workload's headline", NULL, 0, NULL, 0, 0 },
	{ "baseline", 'b', 'b', "NAME", "column the changes are computed against",
	  "the one rwlab exec recorded, where its runs agree, else the first", NULL, 0, NULL, 0, 0 },
	{ "workload", 'w', 'w', "LIST", "only these workloads, NAME[:key=val,...] as run -w takes them (a name "
	  "alone: each of its labels; all: every one)", NULL, NULL, LAB_COMP_WORKLOADS,
	  NULL, 0, 0 },
	{ "by", 0, 'B', "COLUMNS", "CSV columns compared side by side (e.g. workload, host), or fault_path: the "
	  "mm_lock modes as mmap_lock, per-VMA, vm_refcnt", "variant; fault_path when a variant ran several and every row has one (or one variant ran)",
	  NULL, LAB_COMP_CHOICES, "variant workload host fault_path variant,host", 0, 0 },
	{ "significance", 0, 's', "RULE", "stars and verdicts: ci (|diff| > 1.96 (sd_a + sd_b), today's mmtests), "
	  "ttest (p < 0.10, mmtests 2018-2024) or none",
	  "the matrix's, else the published marks' rule, else the era's: ci (2019: ttest)", NULL,
	  LAB_COMP_CHOICES, "ci ttest none", 0, 0 },
	{ "matrix", 0, 'M', "NAME", "take format, baseline, metrics and the reference mapping from a matrix", NULL,
	  NULL, LAB_COMP_MATRICES, NULL, 0, 0 },
	{ "reference", 0, 'r', "FILE|NAME", "published table to print alongside: a file, a table's name "
	  "(share/rwlab/reference, results/reference) or a matrix's with its mapping; with -f csv the "
	  "verdicts go to stderr, the output stays one CSV", NULL, NULL,
	  LAB_COMP_FILE, NULL, 0, 0 },
	{ "flat", 0, 'F', "PCT", "a published change below PCT% with no published spread is flat", "1",
	  "percent, 0..100", 0, NULL, 0, 0 },
	{ "min-effect", 0, 'X', "PCT", "stars and verdicts: no rwlab change below PCT% is significant (the floor; "
	  "the run's noise may raise it)", "1", "percent, 0..100", 0, NULL, 0, 0 },
	{ "mmtests-era", 0, 'E', "ERA", "the mmtests rows, names and star rule: " LAB_REPORT_ERAS, "current", NULL,
	  LAB_COMP_CHOICES, "current 2019", 0, 0 },
	{ "include-failed", 0, 'I', NULL, "also compare cells marked cell_failed (a count that must be 0 was not, or an "
	  "exec run's exit status) and unfinished last cells (an interrupted write)", NULL, NULL, 0, NULL, 0, 0 },
	{ "allow-duplicates", 0, 'D', NULL, "count rows that repeat a run's (cell, iteration, metric) once instead of "
	  "refusing them (a file given twice: each row once)", NULL, NULL, 0, NULL, 0, 0 },
	{ 0 }
};

struct report_args {
	struct lab_report_opts o;
	const char *matrix, *fmt, *sig, *flat, *era, *min_effect, *output;
	char metrics[4096], workloads[4096], by[1024], command[8192];
	char sim[64];			/* the first CSV's simulated machine, "" for native rows */
	char sim_beside[4200];		/* NAME.sim.matrix beside that CSV, "" if there is none */
	bool sim_broken;		/* that file does not load, or its published table is not there */
};

/* One `rwlab report` option. Returns 0 or the exit status. */
static int report_option(int c, struct report_args *a)
{
	switch (c) {
	case 'f':
		a->fmt = optarg;
		return 0;
	case 'o':
		a->output = optarg;
		return 0;
	case 'm':
		return (a->o.metric = lab_list_add(PROG, a->metrics, sizeof(a->metrics), optarg, "-m")) ? 0 : 2;
	case 'b':
		a->o.baseline = optarg;
		a->o.baseline_given = true;
		return 0;
	case 'w':
		return (a->o.workload = lab_list_add(PROG, a->workloads, sizeof(a->workloads), optarg, "-w")) ? 0 : 2;
	case 'B':	/* --by a --by b is --by a,b, as every list option */
		return (a->o.by = lab_list_add(PROG, a->by, sizeof(a->by), optarg, "--by")) ? 0 : 2;
	case 's':
		a->sig = optarg;
		return 0;
	case 'M':
		a->matrix = optarg;
		return 0;
	case 'r':
		a->o.reference = optarg;
		return 0;
	case 'F':
		a->flat = optarg;
		return 0;
	case 'I':
		a->o.include_failed = true;
		return 0;
	case 'D':
		a->o.allow_duplicates = true;
		return 0;
	case 'E':
		a->era = optarg;
		return 0;
	case 'X':
		a->min_effect = optarg;
		return 0;
	default:	/* getopt_long said what was wrong */
		return 2;
	}
}

/*
 * The simulated machine of @path's first row ("sim icx-8336c-2s128: ..." in
 * cpu_model) into @buf, or "" for native rows, stdin (no matrix is beside
 * it) and a file that cannot be read (the report says what is wrong).
 */
static void sim_machine(const char *path, char *buf, size_t len)
{
	struct lab_csv_reader rd;
	char err[512];
	int col;

	buf[0] = 0;
	if (!strcmp(path, "-"))
		return;
	if (!lab_csv_reader_open(&rd, path, err, sizeof(err)) && lab_csv_reader_next(&rd, err, sizeof(err)) == 1 &&
	    (col = lab_csv_reader_col(&rd, "cpu_model")) >= 0 && !strncmp(rd.row[col], "sim ", 4))
		snprintf(buf, len, "%.*s", (int)strcspn(rd.row[col] + 4, ":"), rd.row[col] + 4);
	lab_csv_reader_close(&rd);
}

/* Is @name a matrix's NAME, looked up in the matrix directories, rather than a path (lab_matrix_resolve())? */
static bool matrix_is_name(const char *name)
{
	size_t n = strlen(name);

	return !strchr(name, '/') && !(n > 7 && !strcmp(name + n - 7, ".matrix"));
}

/* Does @path load as a matrix whose published table, if it names one, is there? */
static bool matrix_usable(const char *path)
{
	static struct lab_matrix mx;	/* 12 KB: not on the stack */
	char err[1200], ref[4200];
	bool ok = !lab_matrix_load(path, &mx, err, sizeof(err)) &&
		  (lab_matrix_reference(&mx, ref, sizeof(ref)) || !access(ref, R_OK));

	lab_matrix_free(&mx);
	return ok;
}

/* NAME.sim.matrix beside the first CSV for --matrix NAME or PATH/NAME.matrix, into a->sim_beside if it is there. */
static void sim_beside_path(struct report_args *a)
{
	const char *slash = strrchr(a->o.path, '/'), *base = strrchr(a->matrix, '/');
	size_t n;

	base = base ? base + 1 : a->matrix;
	n = strlen(base) > 7 && !strcmp(base + strlen(base) - 7, ".matrix") ? strlen(base) - 7 : strlen(base);
	snprintf(a->sim_beside, sizeof(a->sim_beside), "%.*s%.*s.sim.matrix", slash ? (int)(slash - a->o.path) + 1 : 0,
		 a->o.path, (int)n, base);
	if (access(a->sim_beside, R_OK) || !strcmp(a->sim_beside, a->matrix))
		a->sim_beside[0] = 0;
	a->sim_broken = a->sim_beside[0] && !matrix_usable(a->sim_beside);
}

/*
 * --matrix over simulated rows. tools/reproduce NAME --sim writes the matrix
 * as run, NAME.sim.matrix, beside its CSV: its sim_* keys in place and every
 * published client count compared one to one. The native NAME.matrix maps
 * the clients onto a native machine's thread counts instead, so most
 * published rows would find no rwlab row. A NAME therefore means the
 * NAME.sim.matrix beside the first CSV when there is one that works, said in
 * one line on stderr; a path is read as given (sim_matrix_note() says more).
 */
static void sim_matrix_beside(struct report_args *a)
{
	static char sim_path[sizeof(a->sim_beside)];
	char native[4200], err[1200];

	sim_machine(a->o.path, a->sim, sizeof(a->sim));
	if (!a->sim[0])
		return;
	sim_beside_path(a);
	if (!a->sim_beside[0] || a->sim_broken || !matrix_is_name(a->matrix))
		return;
	if (lab_matrix_resolve(a->matrix, native, sizeof(native), err, sizeof(err)))
		snprintf(native, sizeof(native), "%s.matrix", a->matrix);
	fprintf(stderr, "%s: note: %s is simulated (sim %s), so matrix %s is read from %s, the matrix as "
		"tools/reproduce --sim ran it (the native one: --matrix %s)\n", PROG, a->o.path, a->sim,
		a->matrix, a->sim_beside, native);
	snprintf(sim_path, sizeof(sim_path), "%s", a->sim_beside);
	a->matrix = sim_path;
	a->sim_beside[0] = 0;
}

/*
 * One line when a native matrix meets simulated rows: a matrix with sim_*
 * keys, which report does not apply, that is not a NAME.sim.matrix (which
 * keeps sim_machine alone).
 */
static void sim_matrix_note(const struct report_args *a, const struct lab_matrix *mx)
{
	size_t n = strlen(mx->name);
	bool native = !(n > 4 && !strcmp(mx->name + n - 4, ".sim")), sim_keys = false;
	char why[4400];

	for (int i = 0; i < mx->n && !sim_keys; i++)
		sim_keys = !strncmp(mx->kv[i].key, "sim_", 4);
	if (!a->sim[0] || !native || !sim_keys)
		return;
	if (!a->sim_beside[0])
		snprintf(why, sizeof(why), "tools/reproduce %s --sim writes the matrix as run, %s.sim.matrix, beside its "
			 "CSV", mx->name, mx->name);
	else
		snprintf(why, sizeof(why), "%s beside the CSV is the matrix as run%s", a->sim_beside,
			 a->sim_broken ? ", but it does not load or its published table is not where it says" : "");
	fprintf(stderr, "%s: note: %s is simulated (sim %s) but %s is the native matrix, whose sim_* keys "
		"report does not apply (%s)\n", PROG, a->o.path, a->sim, mx->path, why);
}

/* --matrix: the matrix supplies what the command line did not. Returns 0 or 2. */
static int report_matrix(struct report_args *a, struct lab_matrix *mx, struct lab_refmap *map)
{
	static char refpath[4200];
	char err[4200];
	const char *v;

	if (lab_matrix_load(a->matrix, mx, err, sizeof(err)) || lab_matrix_refmap(mx, map, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 2;
	}
	sim_matrix_note(a, mx);
	v = lab_matrix_get(mx, "report", NULL);
	if (v && lab_report_format_parse(v, &a->o.page_text)) {
		fprintf(stderr, "%s: %s: unknown report format '%s' (valid: %s)\n", PROG, mx->path, v,
			LAB_REPORT_FORMATS);
		return 2;
	}
	a->fmt = a->fmt ? a->fmt : v;
	a->sig = a->sig ? a->sig : lab_matrix_get(mx, "significance", NULL);
	a->flat = a->flat ? a->flat : lab_matrix_get(mx, "flat", NULL);
	a->min_effect = a->min_effect ? a->min_effect : lab_matrix_get(mx, "min_effect", NULL);
	a->o.baseline = a->o.baseline ? a->o.baseline : lab_matrix_get(mx, "baseline", NULL);
	a->o.by = a->o.by ? a->o.by : lab_matrix_get(mx, "by", NULL);
	a->o.metric = a->o.metric ? a->o.metric : lab_matrix_get(mx, "metrics", NULL);
	if (!a->o.reference && !lab_matrix_reference(mx, refpath, sizeof(refpath)))
		a->o.reference = refpath;
	if (map->ncol || map->nmet)
		a->o.map = map;
	a->o.title = mx->name;
	a->o.description = lab_matrix_get(mx, "description", NULL);
	return 0;
}

/*
 * The published tables' directories: the installed share/rwlab/reference
 * beside the binary's prefix, then the source tree's results/reference (the
 * matrices' directory is tools/matrices there).
 */
static int reference_dirs(char dirs[][4096])
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int k = 0;

	if (n > 0) {
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
		snprintf(dirs[k++], 4096, "%.4000s/../share/rwlab/reference", exe);
	}
	snprintf(dirs[k++], 4096, "%.4000s/../../results/reference", LAB_MATRIX_DIR);
	return k;
}

/*
 * --reference NAME that is not a file: a matrix of that name with a
 * reference is --matrix NAME (its table and its mapping); else the published
 * table NAME(.csv) where rwlab is installed or was built. Returns 0, or 2
 * after one line naming the tables there are.
 */
static int report_reference(struct report_args *a)
{
	static char found[8320];
	char dirs[2][4096], names[1024] = "", err[4200];
	struct lab_matrix mx = { 0 };
	const char *name = a->o.reference;
	int nd = reference_dirs(dirs);

	if (!access(name, R_OK))
		return 0;
	if (!strchr(name, '/') && !a->matrix && !lab_matrix_load(name, &mx, err, sizeof(err))) {
		bool has = lab_matrix_get(&mx, "reference", NULL) != NULL;

		lab_matrix_free(&mx);
		if (has) {
			a->matrix = name;	/* the table and how its rows map onto the CSV's */
			a->o.reference = NULL;
			return 0;
		}
	}
	for (int i = 0; i < nd && !strchr(name, '/'); i++) {
		struct dirent **ents;
		bool listed;
		int n;

		snprintf(found, sizeof(found), "%s/%s%s", dirs[i], name,
			 strlen(name) > 4 && !strcmp(name + strlen(name) - 4, ".csv") ? "" : ".csv");
		if (!access(found, R_OK)) {
			char *real = realpath(found, NULL);	/* "tools/matrices/../../results/reference" tidied */

			if (real && strlen(real) < sizeof(found))
				strcpy(found, real);
			free(real);
			a->o.reference = found;
			return 0;
		}
		n = scandir(dirs[i], &ents, NULL, alphasort);
		listed = names[0] != 0;	/* the first directory that has tables names them */
		for (int j = 0; j < n; j++) {
			size_t l = strlen(ents[j]->d_name);

			if (!listed && l > 4 && !strcmp(ents[j]->d_name + l - 4, ".csv"))
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%.*s",
					 names[0] ? ", " : "", (int)(l - 4), ents[j]->d_name);
			free(ents[j]);
		}
		if (n >= 0)
			free(ents);
	}
	fprintf(stderr, "%s: --reference '%s': no such file, nor a published table or matrix of that name (valid: "
		"a path, or %s)\n", PROG, name, names[0] ? names : "a matrix with a reference");
	return 2;
}

/* A percentage in 0..100 for option @name. Returns 0, or 2 with one line on stderr. */
static int percent(const char *name, const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (!*s || *end || !(*v >= 0) || *v > 100) {
		fprintf(stderr, "%s: bad --%s '%s' (a percentage in 0..100)\n", PROG, name, s);
		return 2;
	}
	return 0;
}

/* --format, --significance, --mmtests-era, --flat and --min-effect, by name. Returns 0 or 2. */
static int report_values(struct report_args *a)
{
	if (a->era && lab_report_era_parse(a->era, &a->o.era)) {
		fprintf(stderr, "%s: unknown --mmtests-era '%s' (valid: %s)\n", PROG, a->era, LAB_REPORT_ERAS);
		return 2;
	}
	if (a->fmt && lab_report_format_parse(a->fmt, &a->o.format)) {
		fprintf(stderr, "%s: unknown report format '%s' (valid: %s)\n", PROG, a->fmt, LAB_REPORT_FORMATS);
		return 2;
	}
	if (a->sig && lab_report_sig_parse(a->sig, &a->o.sig)) {
		fprintf(stderr, "%s: unknown significance rule '%s' (valid: %s)\n", PROG, a->sig, LAB_REPORT_SIGS);
		return 2;
	}
	if (a->flat && percent("flat", a->flat, &a->o.flat_pct))
		return 2;
	if (a->min_effect && percent("min-effect", a->min_effect, &a->o.min_effect_pct))
		return 2;
	a->o.min_effect_set = a->min_effect != NULL;
	return 0;
}

/* The report to stdout, or to -o FILE (lab_report_write()). Returns the exit status. */
static int report_to(struct report_args *a)
{
	if (a->output && strcmp(a->output, "-"))
		return lab_report_write(&a->o, a->output);
	if (a->o.description && a->o.reference && a->o.format != LAB_FMT_JSON && a->o.format != LAB_FMT_HTML &&
	    a->o.format != LAB_FMT_CSV)
		printf("%s: %s\n", a->o.title, a->o.description);
	return lab_report_print(stdout, &a->o);
}

static int cmd_report(int argc, char **argv)
{
	static struct report_args a;
	static struct lab_matrix mx;
	static struct lab_refmap map;
	struct lab_cli cli;
	int c, st;

	/* the command as given, before getopt reorders argv: "rwlab report ..." */
	snprintf(a.command, sizeof(a.command), "%s report ", LAB_PROG);
	lab_cli_command(argc - 1, argv + 1, a.command + strlen(a.command), sizeof(a.command) - strlen(a.command));
	a.o.command = a.command;
	if (lab_cli_begin(&cli, &lab_report_cmd, argc, argv))
		return 2;
	while ((c = lab_cli_next(&cli)) != -1)
		if ((st = report_option(c, &a)))
			return st;
	if (optind == argc) {
		fprintf(stderr, "%s: no results CSV given (rwlab report FILE.csv... [options]; - reads stdin)\n",
			PROG);
		return 2;
	}
	if (argc - optind > MAX_INPUTS) {
		fprintf(stderr, "%s: at most %d CSV files, not %d\n", PROG, MAX_INPUTS, argc - optind);
		return 2;
	}
	a.o.path = argv[optind];
	a.o.paths = (const char *const *)&argv[optind];
	a.o.npaths = argc - optind;
	if (a.output && strcmp(a.output, "-") && lab_report_out_check(PROG, a.output))
		return 2;	/* before any input is read: --by's header check and merge's read them */
	if (a.o.reference && (st = report_reference(&a)))
		return st;	/* before any table: nothing half printed */
	if (a.matrix)
		sim_matrix_beside(&a);
	if ((a.matrix && (st = report_matrix(&a, &mx, &map))) || (st = report_values(&a)) ||
	    (st = lab_report_by_check(&a.o)))
		return st;
	/* The CSVs of a sharded run: merge's checks (one plan, hosts, settings, missing shards). */
	if (lab_report_merge(a.o.paths, a.o.npaths, a.o.by && strstr(a.o.by, "host")))
		return 1;
	st = report_to(&a);
	lab_matrix_free(&mx);
	return st;
}

const struct lab_cmd lab_report_cmd = {
	.name = "report",
	.synopsis = "FILE.csv... [options]",
	.summary = "comparison tables from results CSVs (- reads stdin); a cell "
		   "is never pooled across hosts or simulated models",
	.opts = report_opts,
	.fn = cmd_report,
	.operands = LAB_COMP_CSV,
};
