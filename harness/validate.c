/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab sim validate [MACHINE...]`: the simulator's validation ladder
 * (docs/simulator.md §4). The rungs are data: validate.ladder in the machine directory
 * (sim/machines/validate.ladder), one rung per line, each a figure with its
 * source, the run that simulates it, and a tolerance stated before the run.
 *
 * For every rung of the machines asked for (default: every machine the
 * ladder names, "here" last) it runs `rwlab run [--sim MACHINE] ...` into a
 * CSV of its own, takes the median over the iterations of the rung's metric,
 * and prints the figure, the simulated value, their ratio, the tolerance and
 * PASS or FAIL. The machine "here" is this host: the command first runs
 * build/rwlab-calibrate, writes a machine file from what it measured (the
 * other costs from epyc-2vcpu.machine, said so in the file), and compares
 * the simulated runs with the same runs made natively in the same command.
 *
 * Rung kinds: calibration (the figure set a parameter of the model, so the
 * rung checks the engine honours it and validates nothing), validation (the
 * figure was not used to set any parameter).
 *
 * With -o FILE.html (`rwlab sim validate ... -o FILE.html`) it also writes the
 * ladder as one self-contained page: per machine the simulated / figure
 * ratio of each rung against its tolerance band, and the rungs' table
 * (lab_report_ladder_page(), harness/report_html.c).
 *
 * The runs (each rung's CSV and log, the calibration, the here machine
 * file) go to a temporary directory, removed at the end, pass or fail; with
 * --keep DIR to DIR (made if missing, else it must be empty), kept.
 *
 * Exit status: 0 when every rung passed, 1 when any failed or could not
 * run (or the page could not be written), 2 on bad input (an unknown
 * machine, a malformed ladder line, a --keep DIR that is not an empty
 * directory), 130 on Ctrl-C or SIGTERM (the run in progress passed the
 * signal, the runs' directory removed all the same, one line).
 *
 * Threading: single-threaded; the runs are child processes, one at a time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "format.h"
#include "report.h"
#include "results.h"
#include "sim_cmd.h"
#include "stop.h"
#include "validate.h"

#define RUNG_MAX 256

struct rung {
	char machine[SIM_NAME_MAX], id[64], kind[16], spec[256], threads[32], pin[16];
	char metric[96], figure[64], tol[16], opts[160], source[512];
	int line;
};

static struct rung rungs[RUNG_MAX];
static int nrungs;
/* What each rung gave, in the order run, for the page (-o); its run line whole, every field at its longest. */
#define RUNG_RUN "-w %s -t %s --pin %s %s; metric %s"
#define RUNG_FIELD(f) sizeof(((struct rung *)0)->f)
static struct lab_ladder_rung done[RUNG_MAX];
static char done_run[RUNG_MAX][sizeof(RUNG_RUN) + RUNG_FIELD(spec) + RUNG_FIELD(threads) + RUNG_FIELD(pin) +
			       RUNG_FIELD(opts) + RUNG_FIELD(metric)];
static int ndone;
static char self_dir[4096], tmp_dir[4096];
static int run_seq;

/* ---- the ladder file --------------------------------------------------------------------- */

static char *field(char **p)
{
	char *s = *p, *e = strchr(s, '|');

	if (e) {
		*e = 0;
		*p = e + 1;
	} else {
		*p = s + strlen(s);
	}
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = 0;
	return s;
}

#define COPY(dst, src) snprintf((dst), sizeof(dst), "%s", (src))

/* Rung @r's 11 fields @fl, each whole in its room; else -1 after one line naming the field. */
static int rung_set(struct rung *r, char *const *fl, const char *path, int line)
{
	static const char *const names[11] = { "machine", "rung", "kind", "workload", "threads", "pin", "metric",
					       "figure", "tolerance", "options", "source" };
	const struct { char *dst; size_t room; } f[11] = {
		{ r->machine, sizeof(r->machine) }, { r->id, sizeof(r->id) }, { r->kind, sizeof(r->kind) },
		{ r->spec, sizeof(r->spec) }, { r->threads, sizeof(r->threads) }, { r->pin, sizeof(r->pin) },
		{ r->metric, sizeof(r->metric) }, { r->figure, sizeof(r->figure) }, { r->tol, sizeof(r->tol) },
		{ r->opts, sizeof(r->opts) }, { r->source, sizeof(r->source) },
	};

	for (int k = 0; k < 11; k++) {
		size_t n = strlen(fl[k]);

		if (n >= f[k].room) {
			fprintf(stderr, "rwlab sim validate: %s:%d: the %s field is %zu characters (at most %zu)\n", path,
				line, names[k], n, f[k].room - 1);
			return -1;
		}
		memcpy(f[k].dst, fl[k], n + 1);
	}
	return 0;
}

static int ladder_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[2048];
	int line = 0;

	if (!f) {
		fprintf(stderr, "rwlab sim validate: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *p = buf, *fl[11];
		struct rung *r;
		int n = 0;

		line++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		while (n < 11 && *p)
			fl[n++] = field(&p);
		if (n != 11 || nrungs == RUNG_MAX) {
			fprintf(stderr, "rwlab sim validate: %s:%d: %s\n", path, line,
				n != 11 ? "want 11 fields separated by '|'" : "too many rungs");
			fclose(f);
			return -1;
		}
		r = &rungs[nrungs++];
		r->line = line;
		if (rung_set(r, fl, path, line)) {
			fclose(f);
			return -1;
		}
		if (strcmp(r->kind, "calibration") && strcmp(r->kind, "validation")) {
			fprintf(stderr, "rwlab sim validate: %s:%d: kind '%s' (valid: calibration, validation)\n",
				path, line, r->kind);
			fclose(f);
			return -1;
		}
		if (r->tol[0] != 'x' && strncmp(r->tol, "+-", 2)) {
			fprintf(stderr, "rwlab sim validate: %s:%d: tolerance '%s' (valid: xF or +-A)\n", path, line,
				r->tol);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* ---- running rwlab ------------------------------------------------------------------------ */

/*
 * Run @argv (argv[0] a path) with stdout and stderr into @log; returns its
 * exit status or -1 (stopped: -1). Ctrl-C or SIGTERM passes the signal on to
 * it (stop.h), and no rung after it runs.
 */
static int spawn(char *const argv[], const char *log, const char *machines_dir)
{
	pid_t pid;
	int st;

	if (lab_stop_signal())
		return -1;
	fflush(NULL);
	pid = lab_stop_fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		if (machines_dir)
			setenv("RWLAB_SIM_MACHINES", machines_dir, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	if (lab_stop_wait(pid, &st, NULL))
		return -1;
	return lab_stop_signal() ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void print_log_tail(const char *log)
{
	FILE *f = fopen(log, "r");
	char line[512], last[3][512] = { "", "", "" };
	int n = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		snprintf(last[n++ % 3], sizeof(last[0]), "%s", line);
	fclose(f);
	for (int i = n > 3 ? n - 3 : 0; i < n; i++)
		fprintf(stderr, "    | %s", last[i % 3]);
}

/* The median of a series' values (it sorts them). */
static double median(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median over iterations of @metric at @threads in @csv; NAN when absent. */
static double csv_median(const char *csv, const char *metric, int threads)
{
	struct lab_results r;
	const struct lab_series *s;
	char err[512];
	double v = NAN;
	int im;

	if (lab_results_load(&r, csv, NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "rwlab sim validate: %s\n", err);
		return NAN;
	}
	im = lab_results_metric(&r, metric);
	if (im >= 0 && (s = lab_results_find(&r, 0, 0, im, threads)) && s->n) {
		double *c = malloc((size_t)s->n * sizeof(*c));

		if (c) {
			memcpy(c, s->v, (size_t)s->n * sizeof(*c));
			v = median(c, s->n);
			free(c);
		}
	}
	lab_results_free(&r);
	return v;
}

/* "A/B" (a ratio of two metrics, or of one metric at two thread counts) or one value. */
static double rung_value(const struct rung *r, const char *csv)
{
	char m[96], *slash;
	int ta = atoi(r->threads), tb = ta;
	const char *tslash = strchr(r->threads, '/');

	if (tslash)
		tb = atoi(tslash + 1);
	COPY(m, r->metric);
	slash = strchr(m, '/');
	if (slash && !strncmp(m, "event.", 6)) {
		*slash = 0;
		return csv_median(csv, m, ta) / csv_median(csv, slash + 1, ta);
	}
	if (tslash)
		return csv_median(csv, m, ta) / csv_median(csv, m, tb);
	return csv_median(csv, m, ta);
}

/*
 * One rwlab run of @r, simulated on @machine (NULL: natively), into a CSV of
 * its own. The workload field is "LOCK@WORKLOAD" or "WORKLOAD" (-l null).
 */
static int run_rung(const struct rung *r, const char *machine, char *csv, size_t csvlen)
{
	char self[4200], log[4200], spec[256], threads[32], opts[160], *lock = "null", *wl = spec;
	char *argv[64];
	int n = 0, st;

	COPY(spec, r->spec);
	COPY(threads, r->threads);
	COPY(opts, r->opts);
	if (strchr(spec, '@')) {
		lock = spec;
		wl = strchr(spec, '@');
		*wl++ = 0;
	}
	if (strchr(threads, '/'))
		*strchr(threads, '/') = ',';
	snprintf(self, sizeof(self), "%s/rwlab", self_dir);
	snprintf(csv, csvlen, "%s/run%03d.csv", tmp_dir, ++run_seq);
	snprintf(log, sizeof(log), "%s/run%03d.log", tmp_dir, run_seq);
	argv[n++] = self;
	argv[n++] = "run";
	if (machine) {
		argv[n++] = "--sim";
		argv[n++] = (char *)machine;
	}
	argv[n++] = "-l";
	argv[n++] = lock;
	argv[n++] = "-w";
	argv[n++] = wl;
	argv[n++] = "-t";
	argv[n++] = threads;
	argv[n++] = "--pin";
	argv[n++] = (char *)r->pin;
	for (char *t = strtok(opts, " "); t && n < 56; t = strtok(NULL, " "))
		argv[n++] = t;
	if (!machine) {		/* native: real time, a window long enough to average a loaded host */
		static char *native[] = { "-n", "5", "-d", "300ms", "--warmup", "100ms" };

		for (size_t i = 0; i < sizeof(native) / sizeof(native[0]); i++)
			argv[n++] = native[i];
	}
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = csv;
	argv[n] = NULL;
	st = spawn(argv, log, machine && !strcmp(machine, "here") ? tmp_dir : NULL);
	if (st && !lab_stop_signal()) {
		fprintf(stderr, "  %s %s: rwlab run%s%s exited %d:\n", r->machine, r->id, machine ? " --sim " : "",
			machine ? machine : "", st);
		print_log_tail(log);
	}
	return st;
}

/* ---- "here": this host, calibrated in the same command ------------------------------------ */

#define HERE_METRICS "c2c_ns,rmw_local_ns,load_local_ns,relax_ns,syscall_ns,futex_wake_ns,futex_wait_ns," \
		     "ctxsw_ns,wakeup_ns,ipi_roundtrip_ns,rmw_hold_ns,faa_pair_ns,faa_run_len"

struct calib {
	char name[64];
	double v;
};
static struct calib cal[32];
static int ncal;

static double calib_get(const char *name)
{
	for (int i = 0; i < ncal; i++)
		if (!strcmp(cal[i].name, name))
			return cal[i].v;
	return NAN;
}

static int here_calibrate(void)
{
	char exe[4200], log[4200], line[512];
	char *argv[] = { exe, "--only", HERE_METRICS, "--repeats", "5", NULL };
	FILE *f;

	snprintf(exe, sizeof(exe), "%s/rwlab-calibrate", self_dir);
	snprintf(log, sizeof(log), "%s/calibrate.txt", tmp_dir);
	if (access(exe, X_OK)) {
		fprintf(stderr, "rwlab sim validate: here: %s not found (the build tree's rwlab-calibrate)\n", exe);
		return -1;
	}
	printf("here: rwlab-calibrate --only %s --repeats 5 (native timing on a shared machine)\n", HERE_METRICS);
	if (spawn(argv, log, NULL)) {
		if (lab_stop_signal())
			return -1;
		fprintf(stderr, "rwlab sim validate: here: rwlab-calibrate failed:\n");
		print_log_tail(log);
		return -1;
	}
	f = fopen(log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char name[64];
		double v;

		if (line[0] == '#') {
			printf("  %s", line);
			continue;
		}
		if (sscanf(line, "%63s %lf", name, &v) == 2 && ncal < 32) {
			COPY(cal[ncal].name, name);
			cal[ncal++].v = v;
			printf("  %s", line);
		}
	}
	if (f)
		fclose(f);
	return isnan(calib_get("c2c_ns")) ? -1 : 0;
}

/* The value a measured key takes in here.machine, or NAN when it is not measured. */
static double here_value(const char *key)
{
	static const struct {
		const char *key, *metric;
	} map[] = {
		{ "c2c.smt_ns", "c2c_ns" }, { "c2c.l3_ns", "c2c_ns" }, { "c2c.socket_ns", "c2c_ns" },
		{ "c2c.socket_far_home_ns", "c2c_ns" }, { "c2c.remote_ns", "c2c_ns" },
		{ "rmw.local_ns", "rmw_local_ns" }, { "load.local_ns", "load_local_ns" },
		{ "relax_ns", "relax_ns" }, { "cost.syscall_ns", "syscall_ns" },
		{ "cost.futex_wake_ns", "futex_wake_ns" }, { "cost.futex_wait_ns", "futex_wait_ns" },
		{ "cost.ctxsw_ns", "ctxsw_ns" }, { "cost.wakeup_ns", "wakeup_ns" },
		{ "cost.irq_ns", "syscall_ns" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].key, key))
			return calib_get(map[i].metric);
	if (!strcmp(key, "cost.ipi_ns"))
		return calib_get("ipi_roundtrip_ns") / 2;
	if (!strcmp(key, "rmw.hold_share")) {
		double h = calib_get("rmw_hold_ns") / calib_get("c2c_ns");

		return h > 1 ? 1 : h;	/* the window is a share of the transfer it precedes */
	}
	return NAN;
}

/*
 * here.machine: epyc-2vcpu.machine (the lab's guest file) with every key
 * rwlab-calibrate just measured replaced, its citation saying so, and the
 * topology of this host (one socket, no SMT: refused otherwise).
 */
static int here_write_machine(void)
{
	char src[4200], dst[4200], line[2048];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	FILE *in, *out;
	char thr[256] = "";
	FILE *t = fopen("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "r");

	if (t) {
		if (!fgets(thr, sizeof(thr), t))
			thr[0] = 0;
		fclose(t);
	}
	if (strchr(thr, ',') || strchr(thr, '-')) {
		fprintf(stderr, "rwlab sim validate: here: this host has SMT siblings (%s): only hosts without SMT "
			"are modelled from one c2c figure\n", thr);
		return -1;
	}
	snprintf(src, sizeof(src), "%s/epyc-2vcpu.machine", lab_sim_machine_dir());
	snprintf(dst, sizeof(dst), "%s/here.machine", tmp_dir);
	in = fopen(src, "r");
	out = fopen(dst, "w");
	if (!in || !out) {
		fprintf(stderr, "rwlab sim validate: here: cannot copy %s to %s\n", src, dst);
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return -1;
	}
	fprintf(out, "# This host, written by `rwlab sim validate here`: the keys rwlab-calibrate measured in\n"
		     "# that run carry [here]; every other line is epyc-2vcpu.machine's, as cited there.\n");
	while (fgets(line, sizeof(line), in)) {
		char key[64], cpus[32];
		double v;

		if (line[0] == '#' || sscanf(line, " %63[^ =] =", key) != 1) {
			fputs(line, out);
			continue;
		}
		if (!strcmp(key, "name"))
			fprintf(out, "name = here\n");
		else if (!strcmp(key, "summary"))
			fprintf(out, "summary = this host, calibrated by rwlab sim validate: %s\n",
				lab_fmt_ncpus(ncpu, cpus, sizeof(cpus)));
		else if (!strcmp(key, "cores_per_l3"))
			fprintf(out, "cores_per_l3 = %ld   # [here] online CPUs, one socket, no SMT\n", ncpu);
		else if (!isnan(v = here_value(key)))
			fprintf(out, "%s = %.3f   # [here] measured by rwlab-calibrate in this validate run\n", key, v);
		else
			fputs(line, out);
	}
	fclose(in);
	return fclose(out) ? -1 : 0;
}

/* ---- the ladder --------------------------------------------------------------------------- */

static int tol_pass(const char *tol, double fig, double sim, double *ratio)
{
	*ratio = sim / fig;
	if (isnan(sim) || isnan(fig) || fig == 0)
		return 0;
	if (tol[0] == 'x') {
		double f = atof(tol + 1);

		return *ratio <= f && *ratio >= 1 / f;
	}
	return fabs(sim - fig) <= atof(tol + 2);
}

/* The rung's figure: a number, the same run natively, a calibration metric, a machine-file key. */
static double rung_figure(const struct rung *r, const char *machine)
{
	char csv[4200], err[512];
	static struct sim_machine m;
	double v;

	if (!strcmp(r->figure, "native"))
		return run_rung(r, NULL, csv, sizeof(csv)) ? NAN : rung_value(r, csv);
	if (!strncmp(r->figure, "calib:", 6))
		return calib_get(r->figure + 6);
	if (!strncmp(r->figure, "file:", 5)) {
		if (!strcmp(machine, "here"))
			return here_value(r->figure + 5);
		if (lab_sim_machine_load(&m, machine, err, sizeof(err)) || sim_machine_number(&m, r->figure + 5, &v))
			return NAN;
		return v;
	}
	if (!strncmp(r->figure, "pair:", 5)) {	/* pair:A,B: the c2c.pairs matrix's figure for CPUs A and B */
		int a, b, end = 0;

		if (sscanf(r->figure + 5, "%d,%d%n", &a, &b, &end) != 2 || r->figure[5 + end] ||
		    lab_sim_machine_load(&m, machine, err, sizeof(err)) || !m.pair_ns || a < 0 || b < 0 ||
		    a >= m.ncpus || b >= m.ncpus || a == b)
			return NAN;
		return m.pair_ns[a * m.ncpus + b];
	}
	return atof(r->figure);
}

/* 0 when the ladder has a rung for @machine, else -1 after one line naming the machines it has. */
static int ladder_has(const char *machine)
{
	char list[1024] = "";
	size_t n = 0;

	for (int i = 0; i < nrungs; i++)
		if (!strcmp(rungs[i].machine, machine))
			return 0;
	for (int i = 0; i < nrungs && n < sizeof(list) - 80; i++) {
		int dup = 0;

		for (int j = 0; j < i; j++)
			dup |= !strcmp(rungs[j].machine, rungs[i].machine);
		if (!dup)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", rungs[i].machine);
	}
	fprintf(stderr, "rwlab sim validate: no rung for machine '%s' in the ladder (valid: the machines with rungs, "
		"%s)\n", machine, list);
	return -1;
}

/* Is @machine one of the @n @names already given? Refused, as run refuses a list entry twice. */
static bool name_twice(const char *const *names, int n, const char *machine)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], machine)) {
			fprintf(stderr, "rwlab sim validate: machine '%s' given twice (each machine is validated once)\n",
				machine);
			return true;
		}
	return false;
}

/* Keep rung @r's result for the page: its tolerance as a band of simulated / figure. */
static void ladder_keep(const struct rung *r, double fig, double sim, double ratio, int ok)
{
	struct lab_ladder_rung *d = &done[ndone];

	snprintf(done_run[ndone], sizeof(done_run[0]), RUNG_RUN, r->spec, r->threads, r->pin, r->opts, r->metric);
	d->machine = r->machine, d->id = r->id, d->kind = r->kind, d->tol = r->tol, d->source = r->source;
	d->run = done_run[ndone++];
	d->figure = fig, d->simulated = sim, d->ratio = ratio, d->pass = ok;
	if (r->tol[0] == 'x') {
		d->hi = atof(r->tol + 1);
		d->lo = d->hi > 0 ? 1 / d->hi : NAN;
	} else {	/* +-A around the figure */
		d->hi = fig ? (fig + atof(r->tol + 2)) / fig : NAN;
		d->lo = fig ? (fig - atof(r->tol + 2)) / fig : NAN;
	}
}

static int validate_machine(const char *machine)
{
	int fails = 0, seen = 0;

	printf("\n== %s\n%-26s %-11s %12s %12s %7s %6s %-4s  %s\n", machine, "rung", "kind", "figure", "simulated",
	       "ratio", "tol", "", "source / run");
	for (int i = 0; i < nrungs; i++) {
		const struct rung *r = &rungs[i];
		char csv[4200];
		double fig, sim = NAN, ratio;
		int ok;

		if (strcmp(r->machine, machine))
			continue;
		seen++;
		fig = rung_figure(r, machine);
		if (!run_rung(r, machine, csv, sizeof(csv)))
			sim = rung_value(r, csv);
		if (lab_stop_signal())
			return fails;	/* lab_sim_validate() says so */
		ok = tol_pass(r->tol, fig, sim, &ratio);
		fails += !ok;
		if (ndone < RUNG_MAX)
			ladder_keep(r, fig, sim, ratio, ok);
		printf("%-26s %-11s %12.4g %12.4g %7.3f %6s %-4s  %s\n", r->id, r->kind, fig, sim, ratio, r->tol,
		       ok ? "PASS" : "FAIL", r->source);
		printf("%-26s %-11s %12s %12s %7s %6s %-4s  -w %s -t %s --pin %s %s; metric %s\n", "", "", "", "", "",
		       "", "", r->spec, r->threads, r->pin, r->opts, r->metric);
		fflush(stdout);
	}
	printf("%s: %d of %d rungs passed\n", machine, seen - fails, seen);
	return fails;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* --keep @dir: made if missing, else an empty directory (the runs' names would meet older ones), into tmp_dir. */
static int keep_dir(const char *dir)
{
	DIR *d;
	struct dirent *e;
	int entries = 0;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rwlab sim validate: --keep %s: cannot make it: %s\n", dir, strerror(errno));
		return -1;
	}
	d = opendir(dir);
	while (d && (e = readdir(d)))
		entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	if (!d || entries || !realpath(dir, tmp_dir)) {
		fprintf(stderr, "rwlab sim validate: --keep %s: %s (give a new or an empty directory)\n", dir,
			!d ? strerror(errno) : entries ? "not empty" : strerror(errno));
		return -1;
	}
	return 0;
}

/* The runs' directory: --keep's, or a new temporary one. Returns 0 or -1 (said). */
static int runs_dir(const char *keep)
{
	if (keep)
		return keep_dir(keep);
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/rwlab-validate.XXXXXX", lab_tmpdir());
	if (!mkdtemp(tmp_dir)) {
		fprintf(stderr, "rwlab sim validate: mkdtemp %s: %s\n", tmp_dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Interrupted: the runs' directory removed (not --keep's), one line, exit status 130. */
static int say_interrupted(const char *const *names, int nnames, const char *keep)
{
	int all = 0;

	for (int i = 0; i < nrungs; i++)
		for (int j = 0; j < nnames; j++)
			all += !strcmp(rungs[i].machine, names[j]);
	if (!keep)
		nftw(tmp_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	fflush(stdout);
	fprintf(stderr, "rwlab sim validate: interrupted after %d of %d rungs; %s%s\n", ndone, all,
		keep ? "the runs are kept in " : "the runs are removed: --keep DIR keeps them", keep ? tmp_dir : "");
	return 130;
}

int lab_sim_validate(int argc, char **argv, const char *page, const char *keep, const char *command)
{
	char ladder[4200], exe[4096];
	const char *names[RUNG_MAX];
	int nnames = 0, fails = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0) {
		fprintf(stderr, "rwlab sim validate: cannot find this binary (/proc/self/exe)\n");
		return 2;
	}
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	COPY(self_dir, exe);
	snprintf(ladder, sizeof(ladder), "%s/validate.ladder", lab_sim_machine_dir());
	if (ladder_load(ladder) || (page && lab_report_out_check("rwlab sim validate", page)))
		return 2;	/* a page that cannot be written is refused before the ladder runs */
	if (argc) {
		for (int i = 0; i < argc && nnames < RUNG_MAX; i++) {
			if (ladder_has(argv[i]) || name_twice(names, nnames, argv[i]))
				return 2;
			names[nnames++] = argv[i];
		}
	} else {
		for (int i = 0; i < nrungs; i++) {
			int dup = 0;

			for (int j = 0; j < nnames; j++)
				dup |= !strcmp(names[j], rungs[i].machine);
			if (!dup && strcmp(rungs[i].machine, "here"))
				names[nnames++] = rungs[i].machine;
		}
		names[nnames++] = "here";
	}
	lab_stop_install();
	if (runs_dir(keep))
		return 2;
	printf("rwlab sim validate: ladder %s; runs in %s%s\n", ladder, tmp_dir,
	       keep ? "" : " (removed at the end; --keep DIR keeps them)");
	for (int i = 0; i < nnames && !lab_stop_signal(); i++) {
		if (!strcmp(names[i], "here") && (here_calibrate() || here_write_machine())) {
			fails++;
			continue;
		}
		fails += validate_machine(names[i]);
	}
	if (lab_stop_signal())
		return say_interrupted(names, nnames, keep);
	if (page && lab_report_ladder_page(page, command, done, ndone))
		fails++;
	else if (page)
		printf("\nvalidate: the ladder's page: %s\n", page);
	if (!keep)
		nftw(tmp_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	if (fails) {
		printf("\nvalidate: FAIL (a rung outside its tolerance or not run, or no page); %s%s\n",
		       keep ? "the runs are kept in " : "the runs are removed: --keep DIR keeps them",
		       keep ? tmp_dir : "");
		return 1;
	}
	printf("\nvalidate: every rung passed%s%s\n", keep ? "; the runs are kept in " : "", keep ? tmp_dir : "");
	return 0;
}
