/* SPDX-License-Identifier: GPL-2.0-only */
/* rwlab run: a matrix of variants x workloads x thread counts, into a results CSV (runner.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "csv.h"
#include "gitcheckout.h"
#include "lazy_mm.h"
#include "matrix.h"
#include "mm.h"
#include "report.h"
#include "report_ref.h"
#include "runner.h"
#include "shard.h"
#include "sim_cell.h"
#include "sim_cmd.h"
#include "threads.h"
#include "topology.h"
#include "wait.h"
#include "workload.h"

_Static_assert(LAB_THREADS_MAX == LAB_MAX_TASKS - LAB_HARNESS_TASKS, "-t's limit is the task table's");

#define PROG LAB_PROG " run"	/* what its error lines begin with */
#define DUR_UNITS "units s, ms, us or m"
#define WARMUP_UNSET UINT64_MAX	/* --warmup not given: a quarter of -d, at most 500 ms (run_defaults) */

/* Adding an option: one entry here and one case in run_option(). */
static const struct lab_opt run_opts[] = {
	{ "sim", 0, 'Z', "MACHINE", "run on a simulated machine (rwlab sim list; generic-N), checked first, in "
	  "rwlab-sim beside rwlab; durations are simulated time; the variants built on locks/atomic.h and the "
	  "workloads locktest, pft, context_switch, tlb_flush, vmscale, reaim, gitcheckout, atomics and "
	  "futex_pingpong",
	  NULL, NULL, LAB_COMP_MACHINES, NULL, 0, 0 },
	{ "matrix", 0, 'M', "NAME|PATH", "a named matrix (share/rwlab/matrices, tools/matrices) or a .matrix file; "
	  "options after it override its settings, options before it are overridden", NULL, NULL,
	  LAB_COMP_MATRICES, NULL, 0, 0 },
	{ "lock", 'l', 'l', "LIST", "lock variants, NAME[:key=val,...] or all", "all", NULL, LAB_COMP_VARIANTS, NULL, 0, 0 },
	{ "workload", 'w', 'w', "LIST", "workloads, NAME[:key=val,...] or all",
	  "locktest; with -m: context_switch,tlb_flush", NULL, LAB_COMP_WORKLOADS, NULL, 0, 0 },
	{ "lazy-mm", 'm', 'm', "LIST", "lazy-mm schemes for context_switch/tlb_flush, NAME[:key=val,...] or all",
	  "all = every scheme but none", NULL, LAB_COMP_SCHEMES, NULL, 0, 0 },
	{ "unsafe", 0, 'U', NULL, "accept none where a release races with lazy users", NULL, NULL, 0, NULL, 0, 0 },
	{ "threads", 't', 't', "LIST", "thread counts: N, A-B, A-B:STEP, mmtests[:MAX], reaim[:NCPUS]",
	  "mmtests up to the allowed CPUs", NULL, 0, NULL, 0, 0 },
	{ "iterations", 'n', 'n', "N", "iterations per cell", "5", NULL, 0, NULL, 1, 100000 },
	{ "duration", 'd', 'd', "DUR", "measurement window of timed workloads", "2s", DUR_UNITS, 0, NULL, 0, 0 },
	{ "warmup", 0, 'W', "DUR", "unmeasured warm-up before each window", "a quarter of -d, at most 500ms",
	  DUR_UNITS, 0, NULL, 0, 0 },
	{ "pin", 0, 'P', "POLICY", "thread placement: compact, scatter or none; with --sim also cores (thread i bound "
	  "to core i's CPUs, as will-it-scale binds)", "compact", NULL, LAB_COMP_CHOICES,
	  "compact scatter none cores", 0, 0 },
	{ "csv", 'o', 'o', "FILE", "results CSV; an existing FILE is kept as FILE.1 (FILE.2, ...); - is stdout",
	  "rwlab-<date>-<pid>.csv", NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ "resume", 0, 'r', NULL, "keep FILE's finished cells, skip them, append the rest", NULL, NULL, 0, NULL, 0, 0 },
	{ "seed", 0, 'S', "N", "seed of the random choices: the workloads' and the interleaved order's; under --sim "
	  "also the engine's schedule", "1", "an unsigned integer", 0, NULL, 0, 0 },
	{ "order", 0, 'O', "ORDER", "iterations of a comparison block (one workload and thread count, every "
	  "variant): interleaved (A1 B1 C1 A2 ..., shuffled per round from --seed) or sequential (every iteration "
	  "of A, then of B)", "interleaved", NULL, LAB_COMP_CHOICES, "interleaved sequential", 0, 0 },
	{ "quiet", 'q', 'q', NULL, "only errors and warnings on stderr: no progress, per-cell or results line", NULL,
	  NULL, 0, NULL, 0, 0 },
	{ "no-report", 0, 'R', NULL, "do not print the table at the end", NULL, NULL, 0, NULL, 0, 0 },
	{ "mm-lock", 0, 'K', "LIST", "fault paths of the mm workloads: " LAB_MM_LOCK_LIST " (one cell each; sets "
	  "the mm_lock knob of every workload that has it)", NULL, NULL, LAB_COMP_CHOICES, LAB_MM_LOCK_WORDS, 0, 0 },
	{ "repo", 0, 'G', "DIR", "gitcheckout: git tree to read commits from", "the git/git releases shipped in rwlab", NULL,
	  LAB_COMP_FILE, NULL, 0, 0 },
	{ "commits", 0, 'C', "LIST", "gitcheckout: commits or trees of --repo (HEAD~1, HEAD:Documentation), shipped releases (v2.20.0 v2.30.0 v2.40.0 v2.47.0) or manifest files, checked out in turn", NULL, NULL, 0,
	  NULL, 0, 0 },
	{ "list-cells", 0, 'L', NULL, "print the plan, one line per cell (id shard workload threads variant), and "
	  "run nothing", NULL, NULL, 0, NULL, 0, 0 },
	{ "jobs", 'j', 'j', "N", "simulated cells run at once, each in its own rwlab-sim, the rows written in plan "
	  "order (the CSV is the same whatever N); natively cells run one at a time (-j N > 1 says so and runs 1)",
	  "the CPUs this process may use under --sim (fewer if their cells do not fit MemAvailable together), 1 natively", NULL, 0, NULL, 1, LAB_SIM_JOBS_MAX },
	{ "shard", 0, 'J', "I/N", "run only shard I of N: every N-th comparison block (workload x thread count), "
	  "round robin; the CSV's shard and plan columns let 'rwlab merge' check the shards", NULL, NULL, 0, NULL,
	  0, 0 },
	{ 0 }
};

/*
 * A list option (-l, -w, -t, -m, --mm-lock): repeated, it appends
 * (-l a -l b is -l a,b); given on the command line it replaces the
 * matrix's list and the other way round (whichever comes later wins).
 */
struct run_list {
	char val[4096];
	char prog[4200];	/* where it came from, for its error messages */
	int origin;		/* -1 unset, 0 command line, 1 matrix */
};

struct run_lists {
	struct run_list locks, wls, threads, schemes, mm_lock;
	bool list_cells;	/* --list-cells */
	const char *sim;	/* --sim MACHINE: run_parse_options() hands the run to rwlab-sim */
	bool pin_cores;		/* --pin cores read natively: valid only with --sim */
};

static const char *list_val(const struct run_list *l, const char *def)
{
	return l->origin < 0 ? def : l->val;
}

static int list_opt(struct run_list *l, const char *arg, int from_matrix, const char *prog, const char *opt)
{
	if (l->origin != from_matrix)
		l->val[0] = 0;
	l->origin = from_matrix;
	snprintf(l->prog, sizeof(l->prog), "%s", prog);
	return lab_list_add(prog, l->val, sizeof(l->val), arg, opt) ? 0 : 2;
}

/*
 * The report settings of a matrix: format, baseline (when that variant was
 * run: -l may have replaced the matrix's list), column key, metrics, rule.
 */
static void matrix_report_opts(const struct lab_matrix *mx, struct lab_report_opts *ro,
			       const struct lab_rwsem_conf *locks, int nlocks)
{
	const char *v;

	if ((v = lab_matrix_get(mx, "report", NULL)))
		lab_report_format_parse(v, &ro->format);
	if ((v = lab_matrix_get(mx, "significance", NULL)))
		lab_report_sig_parse(v, &ro->sig);
	ro->by = lab_matrix_get(mx, "by", NULL);
	ro->metric = lab_matrix_get(mx, "metrics", NULL);
	if ((v = lab_matrix_get(mx, "baseline", NULL))) {
		bool by_variant = !ro->by || !strcmp(ro->by, "variant");

		for (int i = 0; i < nlocks && by_variant; i++)
			if (!strcmp(locks[i].label, v))
				ro->baseline = v;
		if (!by_variant)
			ro->baseline = v;
	}
}

/*
 * A cell given twice would be measured twice and averaged together by
 * report, and --resume refuses such a file: refuse the matrix instead.
 */
static int check_unique(const struct lab_rwsem_conf *locks, int nlocks, const struct lab_workload_conf *wls,
			int nwls, const int *threads, int nthreads)
{
	const char *twice;

	if ((twice = lab_cli_repeat(locks[0].label, sizeof(locks[0]), nlocks))) {
		fprintf(stderr, "%s: lock variant '%s' given twice in -l (each cell runs once)\n", PROG, twice);
		return -1;
	}
	if ((twice = lab_cli_repeat(wls[0].label, sizeof(wls[0]), nwls))) {
		fprintf(stderr, "%s: workload '%s' given twice in -w (each cell runs once)\n", PROG, twice);
		return -1;
	}
	for (int i = 0; i < nthreads; i++)
		for (int j = 0; j < i; j++)
			if (threads[i] == threads[j]) {
				fprintf(stderr, "%s: thread count %d given twice in -t (each cell runs once)\n", PROG,
					threads[i]);
				return -1;
			}
	return 0;
}

/*
 * Every thread count within what each workload can run (its workers and
 * helper threads in LAB_MAX_TASKS, the harness's own kept back): checked
 * here, before any cell, natively and under --sim alike.
 */
static int check_thread_limits(const char *prog, const struct lab_workload_conf *wls, int nwls, const int *threads,
			       int nthreads)
{
	for (int i = 0; i < nwls; i++) {
		int max = lab_workload_max_threads(&wls[i]);
		const char *unit = wls[i].ops->count_unit ? wls[i].ops->count_unit : "threads";

		for (int j = 0; j < nthreads; j++)
			if (threads[j] > max) {
				fprintf(stderr, "%s: -t %d: %s runs at most %d %s (at most %d threads use locks at once, "
					"the harness's and the workload's helpers included) (valid: 1..%d)\n", prog,
					threads[j], wls[i].label, max, unit, LAB_MAX_TASKS, max);
				return -1;
			}
	}
	return 0;
}

/*
 * One `rwlab run` option. @prog prefixes its error messages: "rwlab run", or
 * "rwlab run: FILE:LINE" for an option read from a matrix file. Returns 0 or
 * the exit status of a bad value.
 */
static int run_option(int c, int from_matrix, const char *prog, struct run_lists *lists, struct lab_run_opts *o,
		      int *report)
{
	unsigned long long ns;
	long v;

	switch (c) {
	case 'l':
		return list_opt(&lists->locks, optarg, from_matrix, prog, "-l");
	case 'w':
		return list_opt(&lists->wls, optarg, from_matrix, prog, "-w");
	case 't':
		return list_opt(&lists->threads, optarg, from_matrix, prog, "-t");
	case 'm':
		return list_opt(&lists->schemes, optarg, from_matrix, prog, "-m");
	case 'U':
		o->settings.allow_unsafe = true;
		break;
	case 'K':
		return list_opt(&lists->mm_lock, optarg, from_matrix, prog, "--mm-lock");
	case 'G':
		o->settings.repo = optarg;
		break;
	case 'C':
		o->settings.commits = optarg;
		break;
	case 'n':
		if (lab_opt_count(prog, "-n/--iterations", optarg, 1, 100000, &v))
			return 2;
		o->iterations = (int)v;
		break;
	case 'd':
		if (lab_opt_duration(prog, "-d/--duration", optarg, false, &ns))
			return 2;
		o->settings.duration_ns = ns;
		break;
	case 'W':
		if (lab_opt_duration(prog, "--warmup", optarg, true, &ns))
			return 2;
		o->settings.warmup_ns = ns;
		break;
	case 'P':
		if (!LAB_SIM && !strcmp(optarg, "cores")) {
			lists->pin_cores = true;	/* the simulated build's: checked once --sim is known */
			break;
		}
		if (lab_pin_parse(optarg, &o->pin)) {
			fprintf(stderr, "%s: bad --pin '%s' (valid: compact, scatter, none%s)\n", prog, optarg,
				LAB_SIM ? ", cores" : "; cores with --sim");
			return 2;
		}
		lists->pin_cores = false;
		break;
	case 'o':
		o->csv_path = optarg;
		break;
	case 'S': {
		char *end;

		errno = 0;
		o->settings.seed = strtoull(optarg, &end, 0);
		if (!*optarg || *end || errno || strchr(optarg, '-')) {	/* strtoull takes "-1" as 2^64 - 1 */
			fprintf(stderr, "%s: bad --seed '%s' (an unsigned integer)\n", prog, optarg);
			return 2;
		}
		break;
	}
	case 'O':
		if (strcmp(optarg, "interleaved") && strcmp(optarg, "sequential")) {
			fprintf(stderr, "%s: bad --order '%s' (valid: interleaved, sequential)\n", prog, optarg);
			return 2;
		}
		o->order = strcmp(optarg, "interleaved") ? LAB_ORDER_SEQUENTIAL : LAB_ORDER_INTERLEAVED;
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'j':
		if (lab_opt_count(prog, "-j/--jobs", optarg, 1, LAB_SIM_JOBS_MAX, &v))
			return 2;
		o->jobs = (int)v;
		break;
	case 'R':
		*report = 0;
		break;
	case 'r':
		o->resume = true;
		break;
	case 'J': {	/* --shard I/N (shard.h) */
		char err[128];

		if (lab_shard_parse(optarg, &o->shard, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			return 2;
		}
		break;
	}
	case 'L':
		lists->list_cells = true;
		break;
	case 'M':
		fprintf(stderr, "%s: --matrix given twice\n", prog);
		return 2;
	case 'Z':	/* run_parse_options() hands the run to rwlab-sim (sim_cmd.h) */
		lists->sim = optarg;
		break;
	default:	/* getopt_long said what was wrong */
		return 2;
	}
	return 0;
}

#define RUN_MATRIX_ARGS 128	/* the most options a matrix expands to (lab_matrix_run_args()'s @cap) */

/*
 * Replace "--matrix NAME" in argv by the matrix's options, in place, so that
 * options after it override the matrix and options before it are overridden.
 * @origin gets the matrix line of each resulting argument (0 = command line),
 * @src its index in @argv (-1: from the matrix).
 */
static int expand_matrix(int argc, char **argv, int ncpus, struct lab_matrix *mx, char **out, int *origin, int *src,
			 int cap, int *nout)
{
	char err[4200], *margs[RUN_MATRIX_ARGS];
	int mlines[RUN_MATRIX_ARGS], at = -1, skip = 0, n = 0, nm = 0;
	const char *name = NULL;

	if (lab_cli_find(&lab_run_cmd, argc, argv, 'M', &at, &skip, &name) < 0) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return -1;
	}
	if (name) {
		if (lab_matrix_load(name, mx, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			return -1;
		}
		nm = lab_matrix_run_args(mx, ncpus, margs, mlines, RUN_MATRIX_ARGS, err, sizeof(err));
		if (nm < 0) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			return -1;
		}
	}
	if (argc + nm >= cap) {	/* and out[n] = NULL */
		fprintf(stderr, "%s: too many arguments\n", PROG);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (i == at) {
			for (int k = 0; k < nm; k++) {
				origin[n] = mlines[k];
				src[n] = -1;
				out[n++] = margs[k];
			}
			i += skip - 1;
			continue;
		}
		origin[n] = 0;
		src[n] = i;
		out[n++] = argv[i];
	}
	out[n] = NULL;
	*nout = n;
	return 0;
}

/* Everything `rwlab run` parsed: the option values and the lists they name. */
struct run_args {
	struct lab_run_opts o;
	struct lab_matrix mx;
	struct run_lists lists;
	struct lab_rwsem_conf locks[LAB_MAX_LOCKS];
	struct lab_workload_conf wls[LAB_MAX_WLS];
	struct lab_lazy_mm_conf schemes[LAB_MAX_SCHEMES];
	int threads[LAB_THREAD_LIST_MAX];
	int report, ncpus;
	bool ref_ok;		/* --matrix's published table and mapping can be used (run_ref) */
	char defcsv[128];
};

/*
 * --sim MACHINE: the run goes to rwlab-sim, with the command line less
 * --sim (@drop: its elements in @argv); the engine's seed is --seed's.
 * Returns 2 (message printed) only when it cannot (sim_cmd.h).
 */
static int run_sim_exec(struct run_args *a, int argc, char **argv, const bool *drop)
{
	struct lab_sim_plan p = { .machine = a->lists.sim, .seed = a->o.settings.seed, .seeds = 1, .cmd = "run",
				  .prog = PROG };

	if (lab_sim_plan_args(&p, argc, argv, drop))
		return 2;
	lab_sim_exec(&p);
	free(p.argv);
	return 2;
}

/* The command line with the matrix's options in place (expand_matrix()), and where each came from. */
struct run_argv {
	char **nargv;
	int *origin, *src;
	bool *drop;	/* @argc entries: the elements of argv handed on without them (--sim) */
	int cap;
};

/* The options, the --matrix ones in their place. Returns 0 or the exit status. */
static int parse_expanded(struct run_args *a, int argc, char **argv, const struct run_argv *x)
{
	char **nargv = x->nargv, progbuf[4200];
	int *origin = x->origin, *src = x->src;
	bool *drop = x->drop;
	struct lab_cli cli;
	int c, st, nargc;

	if (expand_matrix(argc, argv, a->ncpus, &a->mx, nargv, origin, src, x->cap, &nargc))
		return 2;
	if (lab_cli_begin(&cli, &lab_run_cmd, nargc, nargv))
		return 2;
	for (;;) {
		int from_matrix = optind < nargc && origin[optind];

		/* An option read from the matrix reports errors as "rwlab run: FILE:LINE: ...". */
		if (from_matrix)
			snprintf(progbuf, sizeof(progbuf), "%s: %s:%d", PROG, a->mx.path, origin[optind]);
		c = lab_cli_next(&cli);
		if (c == 'Z') {	/* handed on without it */
			int from, to;

			lab_cli_span(&cli, &from, &to);
			for (int k = from; k < to; k++)
				if (src[k] >= 0)
					drop[src[k]] = true;
		}
		st = c == -1 ? 0 : run_option(c, from_matrix, from_matrix ? progbuf : PROG, &a->lists, &a->o,
					      &a->report);
		if (c == -1)
			break;
		if (st)
			return st;
	}
	if (optind < nargc && a->o.resume) {	/* "--resume F": the flag read as taking the file */
		if (a->o.csv_path)
			fprintf(stderr, "%s: unexpected argument '%s': --resume takes no value (it carries on -o's file, "
				"'%s')\n", PROG, nargv[optind], a->o.csv_path);
		else
			fprintf(stderr, "%s: unexpected argument '%s': --resume takes no value (the file it carries on "
				"is -o's: -o %s --resume)\n", PROG, nargv[optind], nargv[optind]);
		return 2;
	}
	if (optind < nargc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see 'rwlab run --help')\n", PROG, nargv[optind]);
		return 2;
	}
	if (a->lists.sim && !LAB_SIM)
		return run_sim_exec(a, argc, argv, drop);
	if (!LAB_SIM && a->o.jobs > 1) {
		fprintf(stderr, "%s: WARNING: -j %d: native cells run one at a time, so that no measurement shares the CPUs, "
			"caches and memory bandwidth it measures; running -j 1 (-j runs simulated cells at once, "
			"with --sim)\n", PROG, a->o.jobs);
		a->o.jobs = 1;
	}
	if (a->lists.pin_cores) {
		fprintf(stderr, "%s: --pin cores is for simulated runs (--sim MACHINE); valid here: compact, scatter, none\n",
			PROG);
		return 2;
	}
	return 0;
}

/* parse_expanded() with room for the command line and a matrix's RUN_MATRIX_ARGS options. */
static int run_parse_options(struct run_args *a, int argc, char **argv)
{
	int cap = argc + RUN_MATRIX_ARGS + 1, st;
	struct run_argv x = { .nargv = calloc((size_t)cap, sizeof(char *)), .origin = calloc((size_t)cap, sizeof(int)),
			      .src = calloc((size_t)cap, sizeof(int)), .drop = calloc((size_t)argc + 1, sizeof(bool)),
			      .cap = cap };

	if (!x.nargv || !x.origin || !x.src || !x.drop) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		st = 2;
	} else {
		st = parse_expanded(a, argc, argv, &x);
	}
	free(x.nargv);
	free(x.origin);
	free(x.src);
	free(x.drop);
	return st;
}

/* --mm-lock's list: each fault path (mm.h's LAB_MM_LOCK_MODES) at most once, none empty. Returns 0 or -1. */
static int mm_lock_check(const char *prog, const char *list)
{
	bool seen[LAB_MM_LOCK_NR] = { false };

	for (const char *p = list;; p++) {
		size_t n = strcspn(p, ",");
		int m = 0;

		while (m < LAB_MM_LOCK_NR &&
		       (strlen(lab_mm_lock_mode_names[m]) != n || strncmp(p, lab_mm_lock_mode_names[m], n)))
			m++;
		if (m == LAB_MM_LOCK_NR || seen[m]) {
			fprintf(stderr, "%s: --mm-lock: '%.*s' %s (valid: " LAB_MM_LOCK_LIST ", each once)\n", prog,
				(int)n, p, m == LAB_MM_LOCK_NR ? "is not a fault path" : "given twice");
			return -1;
		}
		seen[m] = true;
		p += n;
		if (!*p)
			return 0;
	}
}

/* -l, -m, -w and --mm-lock into the variant, scheme and workload lists. Returns 0 or 2. */
static int run_parse_lists(struct run_args *a, int *nlocks, int *nschemes, int *nwls)
{
	struct run_lists *l = &a->lists;
	char err[4200];
	const char *twice;
	bool lazy_wl = false, lock_wl = false;

	if (lab_rwsem_parse_list(list_val(&l->locks, "all"), a->locks, LAB_MAX_LOCKS, nlocks, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", l->locks.origin < 0 ? PROG : l->locks.prog, err);
		return 2;
	}
	if (l->schemes.origin >= 0 &&
	    lab_lazy_mm_parse_list(l->schemes.val, a->schemes, LAB_MAX_SCHEMES, nschemes, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", l->schemes.prog, err);
		return 2;
	}
	if ((twice = lab_cli_repeat(a->schemes[0].label, sizeof(a->schemes[0]), *nschemes))) {
		fprintf(stderr, "%s: lazy-mm scheme '%s' given twice in -m (each cell runs once)\n", l->schemes.prog,
			twice);
		return 2;
	}
	if (l->mm_lock.origin >= 0 && mm_lock_check(l->mm_lock.prog, l->mm_lock.val))
		return 2;
	/* The lazy-mm matrix: -m without -w runs context_switch and its tlb_flush counterpart. */
	if (lab_workload_parse_list(list_val(&l->wls, *nschemes ? "context_switch,tlb_flush" : "locktest"), a->wls,
				    LAB_MAX_WLS, nwls, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", l->wls.origin < 0 ? PROG : l->wls.prog, err);
		return 2;
	}
	if (l->mm_lock.origin >= 0 &&
	    lab_workload_expand_knob(a->wls, LAB_MAX_WLS, nwls, "mm_lock", l->mm_lock.val, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", l->mm_lock.prog, err);
		return 2;
	}
	for (int i = 0; i < *nwls; i++) {
		lazy_wl |= a->wls[i].ops->uses_lazy_mm;
		lock_wl |= !a->wls[i].ops->uses_lazy_mm;
	}
	if (LAB_SIM && lock_wl && lab_list_has(list_val(&l->locks, "all"), "all"))
		fprintf(stderr, "%s: under --sim, -l all leaves out pthread, pthread-wp and ck-*: they synchronise "
			"through atomics outside locks/atomic.h, which the simulator cannot see\n", PROG);
	/* a cell's own process gets -l null from its run's (runner.c cell_argv()), which warned */
	if (!lock_wl && l->locks.origin == 0 && !(LAB_SIM && lab_sim_cell_child())) {
		char names[512] = "";

		for (int i = 0; i < *nwls; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? (i == *nwls - 1 ? " and " : ", ") : "", a->wls[i].label);
		fprintf(stderr, "%s: WARNING: -l has no effect: %s run%s the lazy-mm schemes of -m, not lock "
			"variants\n", PROG, names, *nwls == 1 ? "s" : "");
	}
	if (lazy_wl && !*nschemes &&
	    lab_lazy_mm_parse_list("all", a->schemes, LAB_MAX_SCHEMES, nschemes, err, sizeof(err)))
		return 2;
	if (*nschemes && !lazy_wl)
		fprintf(stderr, "%s: WARNING: -m given but no workload uses lazy-mm schemes\n", PROG);
	return 0;
}

/*
 * Does lazy-mm workload @wl release an mm while CPUs may still borrow it?
 * Its recreate_hz knob above 0 says so (context_switch's owner thread).
 */
static bool releases_under_load(const struct lab_workload_conf *wl)
{
	for (int k = 0; wl->ops->knobs && wl->ops->knobs[k].name; k++)
		if (!strcmp(wl->ops->knobs[k].name, "recreate_hz"))
			return wl->knob[k] > 0;
	return false;
}

/*
 * A scheme that each of its cells would refuse (none where mms are released
 * under load, lab_lazy_mm_allowed(), without --unsafe): refused now, before
 * a results file is made. Returns 0 or 2.
 */
static int check_lazy_unsafe(const struct run_args *a, int nschemes, int nwls)
{
	const struct run_lists *l = &a->lists;
	char err[512];

	for (int wi = 0; wi < nwls; wi++) {
		if (!a->wls[wi].ops->uses_lazy_mm || !releases_under_load(&a->wls[wi]))
			continue;
		for (int si = 0; si < nschemes; si++)
			if (lab_lazy_mm_allowed(&a->schemes[si], true, a->o.settings.allow_unsafe, err, sizeof(err))) {
				fprintf(stderr, "%s: %s: %s\n", l->schemes.origin < 0 ? PROG : l->schemes.prog,
					a->wls[wi].label, err);
				return 2;
			}
	}
	return 0;
}

/* --matrix's published table and its mapping: check_reference() fills them before any cell, run_report() uses them. */
static struct {
	char path[4200];
	struct lab_refmap map;
} run_ref;

/*
 * A matrix's published table, its mapping and its min_effect, as `report
 * --matrix` takes them, so that the table after the run stars a cell as the
 * verdicts judge it there; the verdicts themselves are report's to print.
 * Without a usable table or mapping (check_reference() said so before any
 * cell) the stars judge each cell by its own noise.
 */
static void matrix_verdict_opts(const struct run_args *a, struct lab_report_opts *ro)
{
	const char *v;

	if ((v = lab_matrix_get(&a->mx, "min_effect", NULL))) {	/* a percentage: the loader checked it */
		ro->min_effect_pct = strtod(v, NULL);
		ro->min_effect_set = true;
	}
	if (!a->ref_ok)
		return;
	ro->reference = run_ref.path;
	ro->map = run_ref.map.ncol || run_ref.map.nmet ? &run_ref.map : NULL;
	ro->verdicts_unprinted = true;
}

/*
 * --matrix's published table and its mapping can be used (report --matrix and tools/reproduce refuse
 * them otherwise): said before any cell, in one line; the run goes on, its rows are good.
 */
static void check_reference(struct run_args *a)
{
	char err[4200];

	if (!a->mx.n || lab_matrix_reference(&a->mx, run_ref.path, sizeof(run_ref.path)))
		return;
	a->ref_ok = !lab_matrix_refmap(&a->mx, &run_ref.map, err, sizeof(err)) &&
		    !lab_ref_check(run_ref.path, err, sizeof(err));
	if (a->ref_ok)
		return;
	fprintf(stderr, "%s: %s: %sthe run goes on, but report --matrix and tools/reproduce refuse this table\n", PROG,
		err, a->report ? "the table after the run stars each cell by its own noise, not by the verdicts; " :
				 "");
}

/* The table after the run: the matrix's report settings, or the default. One aggregate per screen:
 * the locktest layout is `report --format locktest`. */
static void run_report(struct run_args *a)
{
	struct lab_report_opts ro = { .path = a->o.csv_path };

	if (a->mx.n) {
		matrix_report_opts(&a->mx, &ro, a->locks, a->o.nlocks);
		matrix_verdict_opts(a, &ro);
	}
	lab_report_print(stdout, &ro);
}

/*
 * Without -l (nor a matrix), every variant runs: say how many cells that
 * makes and that -l and -w choose fewer, before the first one starts.
 */
static void run_hint(const struct run_args *a, int nlocks, int nwls, int nschemes)
{
	double per_iter = (double)(a->o.settings.warmup_ns + a->o.settings.duration_ns) / 1e9;
	int cells = 0, lock_cells = 0;

	if (a->o.quiet || a->lists.locks.origin >= 0 || a->mx.n || a->o.resume)
		return;
	for (int i = 0; i < nwls; i++) {
		cells += (a->wls[i].ops->uses_lazy_mm ? nschemes : nlocks) * a->o.nthreads;
		lock_cells += a->wls[i].ops->uses_lazy_mm ? 0 : nlocks * a->o.nthreads;
	}
	if (lock_cells < 2)	/* lazy-mm workloads alone run -m's schemes: no variant runs */
		return;
	fprintf(stderr, "%s: -l not given, so every variant runs: %d cells (%d variants, %d workload%s, %d thread "
		"count%s), %d iteration%s of %.3g s each where timed; -l and -w choose fewer (rwlab list)\n", PROG,
		cells, nlocks, nwls, nwls == 1 ? "" : "s", a->o.nthreads, a->o.nthreads == 1 ? "" : "s", a->o.iterations,
		a->o.iterations == 1 ? "" : "s", per_iter);
}

/* Does the run (after --matrix and -w) hold gitcheckout, the workload --repo and --commits are for? */
static bool runs_gitcheckout(const struct run_args *a, int nwls)
{
	for (int i = 0; i < nwls; i++)
		if (!strcmp(a->wls[i].ops->name, "gitcheckout"))
			return true;
	return false;
}

/*
 * --repo and --commits belong to gitcheckout, so are refused in a run without it. --repo, when given,
 * names a git repository, with two commits when --commits does not name them, and --commits, when given,
 * two or more that resolve there (or, without --repo, in the shipped releases or as manifest files); each
 * item loaded as the cell loads it, with a file to check out: checked before any cell (the cell's git
 * failed, or its tree was empty). 0 or 2.
 */
static int check_repo(const struct run_args *a, int nwls)
{
	const struct lab_run_settings *s = &a->o.settings;
	char err[4200];

	if ((s->repo || s->commits) && !runs_gitcheckout(a, nwls)) {
		const char *opts = s->repo && s->commits ? "--repo and --commits" : s->repo ? "--repo" : "--commits";

		fprintf(stderr, "%s: %s %s for gitcheckout, which is not in this run's workloads: add gitcheckout to "
			"-w, or leave %s out\n", PROG, opts, s->repo && s->commits ? "are" : "is", opts);
		return 2;
	}
	if ((!s->repo || !lab_gc_check_repo(s->repo, s->commits, err, sizeof(err))) &&
	    (!s->commits || !lab_gc_check_commits(s->repo, s->commits, err, sizeof(err))))
		return 0;
	fprintf(stderr, "%s: %s\n", PROG, err);
	return 2;
}

/* The output file: -o FILE, - (stdout: no table at the end), or rwlab-<run id>.csv. Returns 0 or 2. */
static int run_output(struct run_args *a)
{
	if (a->o.resume && !a->o.csv_path) {
		fprintf(stderr, "%s: --resume needs -o FILE: the results file of the run to carry on\n", PROG);
		return 2;
	}
	if (a->o.csv_path && !strcmp(a->o.csv_path, "-")) {
		if (a->o.resume) {
			fprintf(stderr, "%s: --resume needs a file, not -o - (stdout)\n", PROG);
			return 2;
		}
		a->report = 0;	/* stdout is the CSV: pipe it into 'rwlab report -' */
	} else if (a->o.csv_path && lab_csv_stream_path(a->o.csv_path)) {
		if (a->o.resume) {
			fprintf(stderr, "%s: --resume needs a results file, and '%s' is a device or pipe\n", PROG,
				a->o.csv_path);
			return 2;
		}
		a->report = 0;	/* -o /dev/null, a FIFO: nothing to read the table back from (each cell's line is printed) */
	}
	if (!a->o.csv_path) {
		char id[64];

		lab_csv_run_id(id, sizeof(id));
		snprintf(a->defcsv, sizeof(a->defcsv), "rwlab-%s.csv", id);
		a->o.csv_path = a->defcsv;
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static struct run_args a;
	struct run_lists *l = &a.lists;
	char err[4200];
	int st, nlocks = 0, nwls = 0, nschemes = 0;

	a.o = (struct lab_run_opts){ .iterations = 5, .pin = LAB_PIN_COMPACT,
				     .settings = { .duration_ns = 2000000000ull, .warmup_ns = WARMUP_UNSET, .seed = 1 } };
	a.report = 1;
	a.ncpus = lab_topology_init();
	l->locks.origin = l->wls.origin = l->threads.origin = l->schemes.origin = l->mm_lock.origin = -1;
	if ((st = run_parse_options(&a, argc, argv)) || (st = run_parse_lists(&a, &nlocks, &nschemes, &nwls)))
		return st;
	if (a.o.settings.warmup_ns == WARMUP_UNSET)	/* a tiny -d is not mostly warm-up */
		a.o.settings.warmup_ns = a.o.settings.duration_ns / 4 < 500000000ull ? a.o.settings.duration_ns / 4 :
											500000000ull;
	st = lab_parse_threads(list_val(&l->threads, "mmtests"), a.ncpus, a.threads, LAB_THREAD_LIST_MAX, err,
			       sizeof(err));
	if (st < 0) {
		fprintf(stderr, "%s: %s\n", l->threads.origin < 0 ? PROG : l->threads.prog, err);
		return 2;
	}
	a.o.nthreads = st;
	if (check_thread_limits(l->threads.origin < 0 ? PROG : l->threads.prog, a.wls, nwls, a.threads, st))
		return 2;
	if (check_unique(a.locks, nlocks, a.wls, nwls, a.threads, a.o.nthreads) ||
	    check_lazy_unsafe(&a, nschemes, nwls) || check_repo(&a, nwls) || run_output(&a))
		return 2;
	a.o.locks = a.locks;
	a.o.nlocks = nlocks;
	a.o.lazy = a.schemes;
	a.o.nlazy = nschemes;
	a.o.wls = a.wls;
	a.o.nwls = nwls;
	a.o.threads = a.threads;
	a.o.argc = argc - 1;
	a.o.argv = argv + 1;
	a.o.csv_given = a.o.csv_path != a.defcsv;
	if (lab_shard_check(&a.o, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 2;
	}
	if (l->list_cells)
		return lab_plan_list(stdout, &a.o);
	run_hint(&a, nlocks, nwls, nschemes);
	check_reference(&a);
	st = lab_run(&a.o);
	if (st == 2)		/* the CSV could not be opened (or resumed): nothing was run */
		return st;
	if (st != 130 && a.report)
		run_report(&a);
	/* a FIFO that failed (its reader went away): lab_run()'s line said where the rows stopped */
	if (!a.o.quiet && st != 130 && strcmp(a.o.csv_path, "-") && !(st && lab_csv_stream_path(a.o.csv_path))) {
		fflush(stdout);		/* the table first, then where it came from */
		fprintf(stderr, "results: %s\n", a.o.csv_path);
	}
	lab_matrix_free(&a.mx);
	return st;
}

const struct lab_cmd lab_run_cmd = {
	.name = "run",
	.synopsis = "[options]",
	.summary = "run a matrix of variants x workloads x thread counts, write a results CSV",
	.opts = run_opts,
	.fn = cmd_run,
	.more = "Exit status: 0 every cell succeeded; 1 a cell failed (named on stderr, its\n"
		"rows left out); 2 bad usage, nothing run; 130 interrupted (the finished\n"
		"cells are kept; the last line gives the command that goes on: cd DIR &&\n"
		"the same command with -o FILE --resume).\n",
};
