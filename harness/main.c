/* SPDX-License-Identifier: MIT */
/*
 * rwlab - the command line.
 *
 *   rwlab list [--verbose] [--names]
 *   rwlab run [--matrix NAME] [-l LOCKS] [-m SCHEMES] [-w WORKLOADS] [-t THREADS] [-n N] [-d DUR]
 *             [--warmup DUR] [--pin compact|scatter|none] [-o FILE.csv [--resume]] [--seed N] [-q]
 *             [--no-report] [--unsafe] [--mm-lock MODES] [--repo DIR] [--commits LIST]
 *   rwlab report FILE.csv [--format F] [--metric NAME] [--baseline VARIANT] [--matrix NAME]
 *             [--reference PUBLISHED.csv] ...
 *   rwlab plot FILE.csv -o OUT.png|OUT.svg [-m METRIC] [-w WORKLOAD] [--fairness [-t N]]
 *   rwlab bench [-l LOCKS] [--pairs N] [-n REPS] [-o FILE.csv]
 *   rwlab torture [-l LOCKS] [-d DUR] [--readers R] [--writers W] ...   (torture_cmd.c)
 *   rwlab bench-lazy [-m SCHEMES] [--round-trips N] [--switches N] [-n REPS] [-o FILE.csv]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_lazy.h"
#include "config.h"
#include "context.h"
#include "csv.h"
#include "lazy_mm.h"
#include "matrix.h"
#include "plot.h"
#include "report.h"
#include "runner.h"
#include "threads.h"
#include "sim_cmd.h"
#include "torture.h"
#include "version.h"
#include "workload.h"

#define MAX_LOCKS 64
#define MAX_WLS 32
#define MAX_SCHEMES 32

static const char *prog = "rwlab";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rwlab <command> [options]\n"
		"\n"
		"commands:\n"
		"  list [--verbose] [--names]   lock variants and workloads (--verbose: knobs)\n"
		"  run [options]                run a matrix of variants x workloads x threads, write CSV\n"
		"  report FILE.csv [options]    comparison tables from a results CSV\n"
		"  plot FILE.csv -o OUT [opts]  a metric against threads, or locktest fairness (gnuplot)\n"
		"  bench [options]              uncontended ns per lock/unlock pair, per variant\n"
		"  bench-lazy [options]         lazy-mm cost per pipe round trip at one pair, vs none and bare pipe\n"
		"  torture [options]            locktorture: exclusion checks under load, per variant\n"
		"                               (rwlab torture --help)\n"
		"\n"
		"run options:\n"
		"      --matrix NAME|PATH a matrix file (tools/matrices/NAME.matrix); options after it\n"
		"                         override its settings\n"
		"  -l, --lock LIST        variants, comma-separated, NAME[:key=val,...] or all (default all)\n"
		"  -w, --workload LIST    workloads, NAME[:key=val,...] (default locktest; with -m:\n"
		"                         context_switch,tlb_flush)\n"
		"  -m, --lazy-mm LIST     lazy-mm schemes for context_switch/tlb_flush, NAME[:key=val,...] or all\n"
		"                         (default all = every scheme but none)\n"
		"      --unsafe           accept none where a release races with lazy users\n"
		"  -t, --threads LIST     N, A-B, A-B:STEP, mmtests[:MAX], reaim[:NCPUS] (default mmtests up to the CPUs)\n"
		"  -n, --iterations N     iterations per cell (default 5)\n"
		"  -d, --duration DUR     measurement window of timed workloads (default 2s; s, ms, us, m)\n"
		"      --warmup DUR       unmeasured warm-up before each window (default 500ms)\n"
		"      --pin POLICY       compact, scatter or none (default compact)\n"
		"  -o, --csv FILE         results CSV (default rwlab-<date>-<pid>.csv); overwritten\n"
		"      --resume           keep FILE's finished cells, skip them, append the rest\n"
		"      --seed N           PRNG seed (default 1)\n"
		"  -q, --quiet            no progress or per-cell lines\n"
		"      --no-report        do not print the table at the end\n"
		"      --mm-lock LIST     fault paths of the mm workloads: mmap, vma, vma-refcnt (one cell each;\n"
		"                         sets the mm_lock knob of every workload that has it)\n"
		"      --repo DIR         gitcheckout: git tree to read manifests from (default: rwlab's source)\n"
		"      --commits LIST     gitcheckout: commits to check out in turn, or manifest files\n"
		"\n");
	fprintf(f,
		"report options:\n"
		"  -f, --format F         " LAB_REPORT_FORMATS " (default table)\n"
		"  -m, --metric LIST      metrics to tabulate (default: each workload's headline)\n"
		"  -b, --baseline NAME    column the changes are computed against (default: first)\n"
		"  -w, --workload LIST    only these workloads (labels or names)\n"
		"      --by COLUMNS       CSV columns compared side by side (default variant; e.g. workload)\n"
		"      --significance R   mmtests stars: ci (|diff| > 1.96 (sd_a + sd_b), default),\n"
		"                         ttest (p < 0.10, mmtests 2018-2024) or none\n"
		"      --matrix NAME      take format, baseline, metrics and the reference mapping from a matrix\n"
		"      --reference FILE   published table (results/reference/*.csv) to print alongside\n"
		"      --flat PCT         a change below PCT%% counts as flat in the comparison (default 1)\n"
		"\n"
		"plot options:\n"
		"  -o, --output FILE      .png or .svg (required); a %%w in it draws one figure per\n"
		"                         workload, %%w replaced by its label\n"
		"  -m, --metric NAME      metric (default: the workload's headline)\n"
		"  -w, --workload NAME    the workload to plot when the file holds several\n"
		"  -b, --baseline NAME    column drawn first\n"
		"      --by COLUMNS       as in report\n"
		"      --fairness         locktest operations per thread, sorted (-t: thread count)\n"
		"  -t, --threads N        thread count of the fairness plot (default: the largest)\n"
		"      --keep-script      keep OUT.gp and OUT.dat\n"
		"\n"
		"");
	fprintf(f,
		"bench options:\n"
		"  -l, --lock LIST        variants (default all)\n"
		"      --pairs N          pairs per repetition (default 2000000)\n"
		"  -n, --reps N           repetitions, best reported (default 5)\n"
		"  -o, --csv FILE         also write the figures as CSV\n"
		"\n"
		"bench-lazy options:\n"
		"  -m, --lazy-mm LIST     schemes (default all; none is always added as the reference)\n"
		"      --round-trips N    pipe round trips per measurement (default 20000)\n"
		"      --switches N       switch-path rounds per measurement (default 1000000)\n"
		"  -n, --reps N           repetitions, interleaved; best switch, median round trip (default 11)\n"
		"  -o, --csv FILE         also write the figures as CSV\n");
}

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

		lab_knob_value_str(k, k->def, def, sizeof(def));
		printf("      %-22s default %-10s %s", k->name, def, k->help ? k->help : "");
		if (k->type == LAB_KNOB_ENUM)
			printf(" (%s)", k->choices);
		else if (k->type == LAB_KNOB_INT)
			printf(" [%ld..%ld]", k->min, k->max);
		printf("\n");
	}
}

static int cmd_list(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "names", no_argument, NULL, 'N' },
		{ 0 }
	};
	int verbose = 0, names = 0, c;

	while ((c = getopt_long(argc, argv, "v", lopts, NULL)) != -1) {
		if (c == 'v')
			verbose = 1;
		else if (c == 'N')
			names = 1;
		else
			return 2;
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

/* The value parsers print "rwlab: FILE:LINE: ..." for matrix options (prog varies). */
static int parse_positive(const char *opt, const char *arg, long max, long *out)
{
	return lab_opt_count(prog, opt, arg, 1, max, out);
}

static int parse_dur(const char *opt, const char *arg, bool allow_zero, unsigned long long *ns)
{
	return lab_opt_duration(prog, opt, arg, allow_zero, ns);
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

/* The last -l, -w and -t given, with the "rwlab: FILE:LINE" prefix of their origin. */
/*
 * A cell given twice would be measured twice and averaged together by
 * report, and --resume refuses such a file: refuse the matrix instead.
 */
static int check_unique(const struct lab_rwsem_conf *locks, int nlocks, const struct lab_workload_conf *wls,
			int nwls, const int *threads, int nthreads)
{
	for (int i = 0; i < nlocks; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(locks[i].label, locks[j].label)) {
				fprintf(stderr, "%s: lock variant '%s' given twice in -l (each cell runs once)\n",
					prog, locks[i].label);
				return -1;
			}
	for (int i = 0; i < nwls; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(wls[i].label, wls[j].label)) {
				fprintf(stderr, "%s: workload '%s' given twice in -w (each cell runs once)\n", prog,
					wls[i].label);
				return -1;
			}
	for (int i = 0; i < nthreads; i++)
		for (int j = 0; j < i; j++)
			if (threads[i] == threads[j]) {
				fprintf(stderr, "%s: thread count %d given twice in -t (each cell runs once)\n", prog,
					threads[i]);
				return -1;
			}
	return 0;
}

struct run_lists {
	const char *locks, *wls, *threads, *schemes, *mm_lock;
	char locks_prog[4200], wls_prog[4200], threads_prog[4200], schemes_prog[4200], mm_lock_prog[4200];
};

/* One `rwlab run` option. Returns 0 or the exit status of a bad value. */
static int run_option(int c, struct run_lists *lists, struct lab_run_opts *o, int *report)
{
	unsigned long long ns;
	long v;

	switch (c) {
	case 'l':	/* lists are parsed after the last -l/-w/-t: a later one replaces an earlier one */
		lists->locks = optarg;
		snprintf(lists->locks_prog, sizeof(lists->locks_prog), "%s", prog);
		break;
	case 'w':
		lists->wls = optarg;
		snprintf(lists->wls_prog, sizeof(lists->wls_prog), "%s", prog);
		break;
	case 't':
		lists->threads = optarg;
		snprintf(lists->threads_prog, sizeof(lists->threads_prog), "%s", prog);
		break;
	case 'm':
		lists->schemes = optarg;
		snprintf(lists->schemes_prog, sizeof(lists->schemes_prog), "%s", prog);
		break;
	case 'U':
		o->settings.allow_unsafe = true;
		break;
	case 'K':
		lists->mm_lock = optarg;
		snprintf(lists->mm_lock_prog, sizeof(lists->mm_lock_prog), "%s", prog);
		break;
	case 'G':
		o->settings.repo = optarg;
		break;
	case 'C':
		o->settings.commits = optarg;
		break;
	case 'n':
		if (parse_positive("-n/--iterations", optarg, 100000, &v))
			return 2;
		o->iterations = (int)v;
		break;
	case 'd':
		if (parse_dur("-d/--duration", optarg, false, &ns))
			return 2;
		o->settings.duration_ns = ns;
		break;
	case 'W':
		if (parse_dur("--warmup", optarg, true, &ns))
			return 2;
		o->settings.warmup_ns = ns;
		break;
	case 'P':
		if (lab_pin_parse(optarg, &o->pin)) {
			fprintf(stderr, "%s: bad --pin '%s' (valid: compact, scatter, none)\n", prog, optarg);
			return 2;
		}
		break;
	case 'o':
		o->csv_path = optarg;
		break;
	case 'S': {
		char *end;

		errno = 0;
		o->settings.seed = strtoull(optarg, &end, 0);
		if (!*optarg || *end || errno) {
			fprintf(stderr, "%s: bad --seed '%s' (an unsigned integer)\n", prog, optarg);
			return 2;
		}
		break;
	}
	case 'q':
		o->quiet = true;
		break;
	case 'R':
		*report = 0;
		break;
	case 'r':
		o->resume = true;
		break;
	case 'M':
		fprintf(stderr, "%s: --matrix given twice\n", prog);
		return 2;
	default:	/* getopt_long said what was wrong */
		return 2;
	}
	return 0;
}

/*
 * Replace "--matrix NAME" in argv by the matrix's options, in place, so that
 * options after it override the matrix and options before it are overridden.
 * @origin gets the matrix line of each resulting argument (0 = command line).
 */
static int expand_matrix(int argc, char **argv, int ncpus, struct lab_matrix *mx, char **out, int *origin, int cap,
			 int *nout)
{
	char err[4200], *margs[128];
	int mlines[128], at = -1, skip = 0, n = 0, nm = 0;
	const char *name = NULL;

	for (int i = 1; i < argc && at < 0; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--matrix") && i + 1 < argc) {
			at = i, skip = 2, name = argv[i + 1];
		} else if (!strncmp(argv[i], "--matrix=", 9)) {
			at = i, skip = 1, name = argv[i] + 9;
		}
	}
	if (name) {
		if (lab_matrix_load(name, mx, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			return -1;
		}
		nm = lab_matrix_run_args(mx, ncpus, margs, mlines, 128, err, sizeof(err));
		if (nm < 0) {
			fprintf(stderr, "%s: %s\n", prog, err);
			return -1;
		}
	}
	if (argc + nm > cap) {
		fprintf(stderr, "%s: too many arguments\n", prog);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (i == at) {
			for (int k = 0; k < nm; k++) {
				origin[n] = mlines[k];
				out[n++] = margs[k];
			}
			i += skip - 1;
			continue;
		}
		origin[n] = 0;
		out[n++] = argv[i];
	}
	out[n] = NULL;
	*nout = n;
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "lock", required_argument, NULL, 'l' },
		{ "workload", required_argument, NULL, 'w' },
		{ "lazy-mm", required_argument, NULL, 'm' },
		{ "unsafe", no_argument, NULL, 'U' },
		{ "threads", required_argument, NULL, 't' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "pin", required_argument, NULL, 'P' },
		{ "csv", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-report", no_argument, NULL, 'R' },
		{ "resume", no_argument, NULL, 'r' },
		{ "matrix", required_argument, NULL, 'M' },
		{ "mm-lock", required_argument, NULL, 'K' },
		{ "repo", required_argument, NULL, 'G' },
		{ "commits", required_argument, NULL, 'C' },
		{ 0 }
	};
	static struct lab_rwsem_conf locks[MAX_LOCKS];
	static struct lab_matrix mx;
	static char *nargv[256];
	static int origin[256];
	static struct lab_workload_conf wls[MAX_WLS];
	static struct lab_lazy_mm_conf schemes[MAX_SCHEMES];
	static struct run_lists lists;
	char progbuf[4200];
	int threads[LAB_THREAD_LIST_MAX];
	struct lab_run_opts o = { 0 };
	char err[1024], defcsv[128];
	int c, nlocks = 0, nwls = 0, nschemes = 0, report = 1, st, nargc;
	bool lazy_wl = false;
	int ncpus = lab_online_cpus();

	o.iterations = 5;
	o.settings.duration_ns = 2000000000ull;
	o.settings.warmup_ns = 500000000ull;
	o.settings.seed = 1;
	o.pin = LAB_PIN_COMPACT;
	if (expand_matrix(argc, argv, ncpus, &mx, nargv, origin, 256, &nargc))
		return 2;
	argc = nargc;
	argv = nargv;
	for (;;) {
		const char *run_prog = prog;

		/* An option read from the matrix reports errors as "rwlab: FILE:LINE: ...". */
		if (optind < argc && origin[optind]) {
			snprintf(progbuf, sizeof(progbuf), "%s: %s:%d", run_prog, mx.path, origin[optind]);
			prog = progbuf;
		}
		c = getopt_long(argc, argv, "l:w:m:t:n:d:o:q", lopts, NULL);
		st = c == -1 ? 0 : run_option(c, &lists, &o, &report);
		prog = run_prog;
		if (c == -1)
			break;
		if (st)
			return st;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see 'rwlab help')\n", prog, argv[optind]);
		return 2;
	}
	if (lab_rwsem_parse_list(lists.locks ? lists.locks : "all", locks, MAX_LOCKS, &nlocks, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", lists.locks ? lists.locks_prog : prog, err);
		return 2;
	}
	if (lists.schemes &&
	    lab_lazy_mm_parse_list(lists.schemes, schemes, MAX_SCHEMES, &nschemes, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", lists.schemes_prog, err);
		return 2;
	}
	/* The lazy-mm matrix: -m without -w runs context_switch and its tlb_flush counterpart. */
	if (lab_workload_parse_list(lists.wls ? lists.wls : nschemes ? "context_switch,tlb_flush" : "locktest",
				    wls, MAX_WLS, &nwls, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", lists.wls ? lists.wls_prog : prog, err);
		return 2;
	}
	if (lists.mm_lock &&
	    lab_workload_expand_knob(wls, MAX_WLS, &nwls, "mm_lock", lists.mm_lock, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", lists.mm_lock_prog, err);
		return 2;
	}
	for (int i = 0; i < nwls; i++)
		lazy_wl |= wls[i].ops->uses_lazy_mm;
	if (lazy_wl && !nschemes && lab_lazy_mm_parse_list("all", schemes, MAX_SCHEMES, &nschemes, err, sizeof(err)))
		return 2;
	if (nschemes && !lazy_wl)
		fprintf(stderr, "%s: warning: -m given but no workload uses lazy-mm schemes\n", prog);
	st = lab_parse_threads(lists.threads ? lists.threads : "mmtests", ncpus, threads, LAB_THREAD_LIST_MAX, err,
			       sizeof(err));
	if (st < 0) {
		fprintf(stderr, "%s: %s\n", lists.threads ? lists.threads_prog : prog, err);
		return 2;
	}
	if (check_unique(locks, nlocks, wls, nwls, threads, st))
		return 2;
	if (o.resume && !o.csv_path) {
		fprintf(stderr, "%s: --resume needs -o FILE: the results file of the run to carry on\n", prog);
		return 2;
	}
	if (!o.csv_path) {
		char id[64];

		lab_csv_run_id(id, sizeof(id));
		snprintf(defcsv, sizeof(defcsv), "rwlab-%s.csv", id);
		o.csv_path = defcsv;
	}
	o.locks = locks;
	o.nlocks = nlocks;
	o.lazy = schemes;
	o.nlazy = nschemes;
	o.wls = wls;
	o.nwls = nwls;
	o.threads = threads;
	o.nthreads = st;
	st = lab_run(&o);
	if (st == 2)		/* the CSV could not be opened (or resumed): nothing was run */
		return st;
	if (st != 130 && report) {
		struct lab_report_opts ro = { .path = o.csv_path };

		if (mx.n)
			matrix_report_opts(&mx, &ro, locks, nlocks);
		lab_report_print(stdout, &ro);
		/* locktest cells also as Waiman Long's locktest prints them, lock events included. */
		for (int i = 0; i < nwls; i++) {
			if (!strcmp(wls[i].ops->name, "locktest") && !mx.n) {
				struct lab_report_opts lo = { .path = o.csv_path, .format = LAB_FMT_LOCKTEST,
							      .workload = "locktest" };

				printf("\n");
				lab_report_print(stdout, &lo);
				break;
			}
		}
	}
	if (st != 130) {
		fflush(stdout);		/* the table first, then where it came from */
		fprintf(stderr, "results: %s\n", o.csv_path);
	}
	lab_matrix_free(&mx);
	return st;
}

/* Append @add to a comma-separated list in @buf (repeated -m/-w). */
static const char *list_add(char *buf, size_t len, const char *add)
{
	size_t l = strlen(buf);

	snprintf(buf + l, len - l, "%s%s", l ? "," : "", add);
	return buf;
}

static int cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "metric", required_argument, NULL, 'm' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "workload", required_argument, NULL, 'w' },
		{ "by", required_argument, NULL, 'B' },
		{ "significance", required_argument, NULL, 's' },
		{ "matrix", required_argument, NULL, 'M' },
		{ "reference", required_argument, NULL, 'r' },
		{ "flat", required_argument, NULL, 'F' },
		{ 0 }
	};
	static struct lab_matrix mx;
	static struct lab_refmap map;
	struct lab_report_opts o = { 0 };
	char metrics[1024] = "", workloads[1024] = "", refpath[4200], err[4200];
	const char *matrix = NULL, *fmt = NULL, *sig = NULL, *flat = NULL;
	int c, st;

	while ((c = getopt_long(argc, argv, "f:m:b:w:", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fmt = optarg;
			break;
		case 'm':
			o.metric = list_add(metrics, sizeof(metrics), optarg);
			break;
		case 'b':
			o.baseline = optarg;
			break;
		case 'w':
			o.workload = list_add(workloads, sizeof(workloads), optarg);
			break;
		case 'B':
			o.by = optarg;
			break;
		case 's':
			sig = optarg;
			break;
		case 'M':
			matrix = optarg;
			break;
		case 'r':
			o.reference = optarg;
			break;
		case 'F':
			flat = optarg;
			break;
		default:
			fprintf(stderr, "%s: see 'rwlab help'\n", prog);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: report needs exactly one CSV file (rwlab report FILE.csv [options])\n", prog);
		return 2;
	}
	o.path = argv[optind];
	if (matrix) {
		const char *v;

		if (lab_matrix_load(matrix, &mx, err, sizeof(err)) || lab_matrix_refmap(&mx, &map, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			return 2;
		}
		/* The matrix supplies what the command line did not. */
		fmt = fmt ? fmt : lab_matrix_get(&mx, "report", NULL);
		sig = sig ? sig : lab_matrix_get(&mx, "significance", NULL);
		flat = flat ? flat : lab_matrix_get(&mx, "flat", NULL);
		o.baseline = o.baseline ? o.baseline : lab_matrix_get(&mx, "baseline", NULL);
		o.by = o.by ? o.by : lab_matrix_get(&mx, "by", NULL);
		o.metric = o.metric ? o.metric : lab_matrix_get(&mx, "metrics", NULL);
		if (!o.reference && !lab_matrix_reference(&mx, refpath, sizeof(refpath)))
			o.reference = refpath;
		if (map.ncol || map.nmet)
			o.map = &map;
		o.title = mx.name;
		v = lab_matrix_get(&mx, "description", NULL);
		if (v && o.reference)
			printf("%s: %s\n", mx.name, v);
	}
	if (fmt && lab_report_format_parse(fmt, &o.format)) {
		fprintf(stderr, "%s: unknown report format '%s' (valid: %s)\n", prog, fmt, LAB_REPORT_FORMATS);
		return 2;
	}
	if (sig && lab_report_sig_parse(sig, &o.sig)) {
		fprintf(stderr, "%s: unknown significance rule '%s' (valid: %s)\n", prog, sig, LAB_REPORT_SIGS);
		return 2;
	}
	if (flat) {
		char *end;

		o.flat_pct = strtod(flat, &end);
		if (*end || !(o.flat_pct >= 0) || o.flat_pct > 100) {
			fprintf(stderr, "%s: bad --flat '%s' (a percentage in 0..100)\n", prog, flat);
			return 2;
		}
	}
	if (o.map && (o.map->ncol < 2 || !o.map->nmet)) {
		fprintf(stderr, "%s: %s: a reference mapping needs two map.column and at least one map.metric\n", prog,
			mx.path);
		return 2;
	}
	st = lab_report_print(stdout, &o);
	lab_matrix_free(&mx);
	return st;
}

static int cmd_plot(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "metric", required_argument, NULL, 'm' },
		{ "workload", required_argument, NULL, 'w' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "by", required_argument, NULL, 'B' },
		{ "fairness", no_argument, NULL, 'F' },
		{ "threads", required_argument, NULL, 't' },
		{ "keep-script", no_argument, NULL, 'K' },
		{ 0 }
	};
	struct lab_plot_opts o = { 0 };
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "o:m:w:b:t:", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case 'm':
			o.metric = optarg;
			break;
		case 'w':
			o.workload = optarg;
			break;
		case 'b':
			o.baseline = optarg;
			break;
		case 'B':
			o.by = optarg;
			break;
		case 'F':
			o.fairness = true;
			break;
		case 't':
			if (parse_positive("-t/--threads", optarg, LAB_THREADS_MAX, &v))
				return 2;
			o.threads = (int)v;
			break;
		case 'K':
			o.keep_script = true;
			break;
		default:
			fprintf(stderr, "%s: see 'rwlab help'\n", prog);
			return 2;
		}
	}
	if (optind != argc - 1 || !o.out) {
		fprintf(stderr, "%s: plot needs one CSV file and -o OUT.png|OUT.svg (rwlab plot FILE.csv -o OUT.png)\n",
			prog);
		return 2;
	}
	o.path = argv[optind];
	return lab_plot(&o);
}

static int cmd_bench(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "lock", required_argument, NULL, 'l' },
		{ "pairs", required_argument, NULL, 'p' },
		{ "reps", required_argument, NULL, 'n' },
		{ "csv", required_argument, NULL, 'o' },
		{ 0 }
	};
	static struct lab_rwsem_conf locks[MAX_LOCKS];
	struct lab_bench_opts o = { .pairs = 2000000, .reps = 5 };
	char err[1024];
	int c, nlocks = 0;
	long v;

	while ((c = getopt_long(argc, argv, "l:n:o:", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (lab_rwsem_parse_list(optarg, locks, MAX_LOCKS, &nlocks, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", prog, err);
				return 2;
			}
			break;
		case 'p':
			if (parse_positive("--pairs", optarg, 1000000000, &v))
				return 2;
			o.pairs = (unsigned long)v;
			break;
		case 'n':
			if (parse_positive("-n/--reps", optarg, 1000, &v))
				return 2;
			o.reps = (int)v;
			break;
		case 'o':
			o.csv_path = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!nlocks && lab_rwsem_parse_list("all", locks, MAX_LOCKS, &nlocks, err, sizeof(err)))
		return 2;
	o.locks = locks;
	o.nlocks = nlocks;
	return lab_bench_run(&o);
}

static int cmd_bench_lazy(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "lazy-mm", required_argument, NULL, 'm' },
		{ "round-trips", required_argument, NULL, 'r' },
		{ "switches", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'n' },
		{ "csv", required_argument, NULL, 'o' },
		{ 0 }
	};
	static struct lab_lazy_mm_conf schemes[MAX_SCHEMES];
	struct lab_bench_lazy_opts o = { .round_trips = 20000, .switches = 1000000, .reps = 11 };
	char err[1024];
	int c, n = 0;
	long v;

	while ((c = getopt_long(argc, argv, "m:n:o:", lopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (lab_lazy_mm_parse_list(optarg, schemes, MAX_SCHEMES, &n, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", prog, err);
				return 2;
			}
			break;
		case 'r':
			if (parse_positive("--round-trips", optarg, 1000000000, &v))
				return 2;
			o.round_trips = (unsigned long)v;
			break;
		case 's':
			if (parse_positive("--switches", optarg, 1000000000, &v))
				return 2;
			o.switches = (unsigned long)v;
			break;
		case 'n':
			if (parse_positive("-n/--reps", optarg, 1000, &v))
				return 2;
			o.reps = (int)v;
			break;
		case 'o':
			o.csv_path = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see 'rwlab help')\n", prog, argv[optind]);
		return 2;
	}
	if (!n && lab_lazy_mm_parse_list("all", schemes, MAX_SCHEMES, &n, err, sizeof(err)))
		return 2;
	o.schemes = schemes;
	o.nschemes = n;
	return lab_bench_lazy_run(&o);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "help";
	int simr = lab_sim_cmd(argc, argv);	/* sim list|show, --sim: harness/sim_cmd.c */

	if (simr >= 0)
		return simr;

	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("rwlab %s (%s, %s)\n", LAB_GIT_REV, LAB_BUILD_TYPE, LAB_COMPILER);
		return 0;
	}
	/* Subcommand options start after the subcommand. */
	argv[1] = (char *)prog;
	argc--;
	argv++;
	if (!strcmp(cmd, "list"))
		return cmd_list(argc, argv);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc, argv);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc, argv);
	if (!strcmp(cmd, "plot"))
		return cmd_plot(argc, argv);
	if (!strcmp(cmd, "bench"))
		return cmd_bench(argc, argv);
	if (!strcmp(cmd, "bench-lazy"))
		return cmd_bench_lazy(argc, argv);
	if (!strcmp(cmd, "torture"))
		return lab_torture_cmd(argc, argv);
	fprintf(stderr, "%s: unknown command '%s' (valid: list, run, report, plot, bench, bench-lazy, torture, help)\n",
		prog, cmd);
	return 2;
}
