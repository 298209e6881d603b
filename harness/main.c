/* SPDX-License-Identifier: MIT */
/*
 * rwlab - the command line.
 *
 *   rwlab list [--verbose] [--names]
 *   rwlab run [-l LOCKS] [-w WORKLOADS] [-t THREADS] [-n N] [-d DUR] [--warmup DUR]
 *             [--pin compact|scatter|none] [-o FILE.csv [--resume]] [--seed N] [-q] [--no-report]
 *   rwlab report FILE.csv [--metric NAME] [--baseline VARIANT]
 *   rwlab bench [-l LOCKS] [--pairs N] [-n REPS] [-o FILE.csv]
 *   rwlab torture [-l LOCKS] [-d DUR] [--readers R] [--writers W] ...   (torture_cmd.c)
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "config.h"
#include "context.h"
#include "csv.h"
#include "report.h"
#include "runner.h"
#include "threads.h"
#include "torture.h"
#include "version.h"
#include "workload.h"

#define MAX_LOCKS 64
#define MAX_WLS 32

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
		"  bench [options]              uncontended ns per lock/unlock pair, per variant\n"
		"  torture [options]            locktorture: exclusion checks under load, per variant\n"
		"                               (rwlab torture --help)\n"
		"\n"
		"run options:\n"
		"  -l, --lock LIST        variants, comma-separated, NAME[:key=val,...] or all (default all)\n"
		"  -w, --workload LIST    workloads, NAME[:key=val,...] (default locktest)\n"
		"  -t, --threads LIST     N, A-B, A-B:STEP, mmtests[:MAX] (default mmtests up to the CPUs)\n"
		"  -n, --iterations N     iterations per cell (default 5)\n"
		"  -d, --duration DUR     measurement window of timed workloads (default 2s; s, ms, us, m)\n"
		"      --warmup DUR       unmeasured warm-up before each window (default 500ms)\n"
		"      --pin POLICY       compact, scatter or none (default compact)\n"
		"  -o, --csv FILE         results CSV (default rwlab-<date>-<pid>.csv); overwritten\n"
		"      --resume           keep FILE's finished cells, skip them, append the rest\n"
		"      --seed N           PRNG seed (default 1)\n"
		"  -q, --quiet            no progress or per-cell lines\n"
		"      --no-report        do not print the table at the end\n"
		"\n"
		"report options:\n"
		"  -m, --metric NAME      metric to tabulate (default: each workload's headline)\n"
		"  -b, --baseline NAME    variant the changes are computed against (default: first)\n"
		"\n"
		"bench options:\n"
		"  -l, --lock LIST        variants (default all)\n"
		"      --pairs N          pairs per repetition (default 2000000)\n"
		"  -n, --reps N           repetitions, best reported (default 5)\n"
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

static int parse_positive(const char *opt, const char *arg, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (!*arg || *end || errno || *out < 1 || *out > max) {
		fprintf(stderr, "%s: bad value '%s' for %s (an integer in 1..%ld)\n", prog, arg, opt, max);
		return -1;
	}
	return 0;
}

static int parse_dur(const char *opt, const char *arg, bool allow_zero, unsigned long long *ns)
{
	if (lab_parse_duration(arg, ns) || (!allow_zero && *ns == 0)) {
		fprintf(stderr, "%s: bad duration '%s' for %s (a %snumber with unit s, ms, us or m, e.g. 2s)\n",
			prog, arg, opt, allow_zero ? "" : "positive ");
		return -1;
	}
	return 0;
}

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

static int cmd_run(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "lock", required_argument, NULL, 'l' },
		{ "workload", required_argument, NULL, 'w' },
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
		{ 0 }
	};
	static struct lab_rwsem_conf locks[MAX_LOCKS];
	static struct lab_workload_conf wls[MAX_WLS];
	int threads[LAB_THREAD_LIST_MAX];
	struct lab_run_opts o = { 0 };
	char err[1024], defcsv[128];
	const char *thr_arg = NULL;
	int c, nlocks = 0, nwls = 0, report = 1, st;
	long v;
	unsigned long long ns;
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);

	o.iterations = 5;
	o.settings.duration_ns = 2000000000ull;
	o.settings.warmup_ns = 500000000ull;
	o.settings.seed = 1;
	o.pin = LAB_PIN_COMPACT;
	while ((c = getopt_long(argc, argv, "l:w:t:n:d:o:q", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (lab_rwsem_parse_list(optarg, locks, MAX_LOCKS, &nlocks, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", prog, err);
				return 2;
			}
			break;
		case 'w':
			if (lab_workload_parse_list(optarg, wls, MAX_WLS, &nwls, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", prog, err);
				return 2;
			}
			break;
		case 't':
			thr_arg = optarg;
			break;
		case 'n':
			if (parse_positive("-n/--iterations", optarg, 100000, &v))
				return 2;
			o.iterations = (int)v;
			break;
		case 'd':
			if (parse_dur("-d/--duration", optarg, false, &ns))
				return 2;
			o.settings.duration_ns = ns;
			break;
		case 'W':
			if (parse_dur("--warmup", optarg, true, &ns))
				return 2;
			o.settings.warmup_ns = ns;
			break;
		case 'P':
			if (lab_pin_parse(optarg, &o.pin)) {
				fprintf(stderr, "%s: bad --pin '%s' (valid: compact, scatter, none)\n", prog, optarg);
				return 2;
			}
			break;
		case 'o':
			o.csv_path = optarg;
			break;
		case 'S': {
			char *end;

			errno = 0;
			o.settings.seed = strtoull(optarg, &end, 0);
			if (!*optarg || *end || errno) {
				fprintf(stderr, "%s: bad --seed '%s' (an unsigned integer)\n", prog, optarg);
				return 2;
			}
			break;
		}
		case 'q':
			o.quiet = true;
			break;
		case 'R':
			report = 0;
			break;
		case 'r':
			o.resume = true;
			break;
		default:	/* getopt_long said what was wrong */
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see 'rwlab help')\n", prog, argv[optind]);
		return 2;
	}
	if (!nlocks && lab_rwsem_parse_list("all", locks, MAX_LOCKS, &nlocks, err, sizeof(err)))
		return 2;
	if (!nwls && lab_workload_parse_list("locktest", wls, MAX_WLS, &nwls, err, sizeof(err)))
		return 2;
	st = lab_parse_threads(thr_arg ? thr_arg : "mmtests", ncpus, threads, LAB_THREAD_LIST_MAX, err,
			       sizeof(err));
	if (st < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
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
	o.wls = wls;
	o.nwls = nwls;
	o.threads = threads;
	o.nthreads = st;
	st = lab_run(&o);
	if (st == 2)		/* the CSV could not be opened (or resumed): nothing was run */
		return st;
	if (st != 130 && report) {
		struct lab_report_opts ro = { .path = o.csv_path };

		lab_report_print(stdout, &ro);
	}
	if (st != 130)
		fprintf(stderr, "results: %s\n", o.csv_path);
	return st;
}

static int cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "baseline", required_argument, NULL, 'b' },
		{ 0 }
	};
	struct lab_report_opts o = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "m:b:", lopts, NULL)) != -1) {
		if (c == 'm')
			o.metric = optarg;
		else if (c == 'b')
			o.baseline = optarg;
		else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: report needs exactly one CSV file (rwlab report FILE.csv)\n", prog);
		return 2;
	}
	o.path = argv[optind];
	return lab_report_print(stdout, &o);
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

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "help";

	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("rwlab %s (%s, %s)\n", LAB_GIT_REV, LAB_BUILD_TYPE, LAB_COMPILER);
		return 0;
	}
	/* Subcommand options start after the subcommand; getopt's messages say "rwlab: ...". */
	argv[1] = (char *)prog;
	argc--;
	argv++;
	if (!strcmp(cmd, "list"))
		return cmd_list(argc, argv);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc, argv);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc, argv);
	if (!strcmp(cmd, "bench"))
		return cmd_bench(argc, argv);
	if (!strcmp(cmd, "torture"))
		return lab_torture_cmd(argc, argv);
	fprintf(stderr, "%s: unknown command '%s' (valid: list, run, report, bench, torture, help)\n", prog,
		cmd);
	return 2;
}
