/* SPDX-License-Identifier: GPL-2.0-only */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"
#include "report_impl.h"
#include "stats.h"

/* How much of a CPU model a title shows: a simulated machine's ("sim NAME: summary") is its name. */
static int model_len(const char *model)
{
	const char *colon = strchr(model, ':');

	return !strncmp(model, "sim ", 4) && colon ? (int)(colon - model) : (int)strlen(model);
}

/* A gnuplot double-quoted string: backslash and quote escaped, newline as \n. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

static const char *ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), k = strlen(suffix);

	return l >= k && !strcmp(s + l - k, suffix) ? s + l - k : NULL;
}

/* Run gnuplot on @script; @quiet sends its stderr to /dev/null. Returns its exit status or -1. */
static int run_gnuplot(const char *script, bool quiet)
{
	const char *gp = getenv("RWLAB_GNUPLOT");
	pid_t pid;
	int st;

	if (!gp || !*gp)
		gp = "gnuplot";
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0)
				dup2(fd, 2);
		}
		execlp(gp, gp, script, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define PLOT_MAX_LINES 64

struct plot_ctx {
	const struct lab_plot_opts *o;
	struct lab_results r;
	int g, im;
	char metric[128];
};

static bool has_thread_ops(const struct plot_ctx *p, int g)
{
	for (int i = 0; i < p->r.ns; i++)
		if (p->r.s[i].ig == g && !strncmp(p->r.s[i].metric, "thread_ops.", 11))
			return true;
	return false;
}

static bool group_kept(const struct plot_ctx *p, int g)
{
	char name[64];

	if (p->o->fairness && !has_thread_ops(p, g))
		return false;
	if (!p->o->workload)
		return true;
	for (int i = 0; i < p->r.ns; i++)
		if (p->r.s[i].ig == g && (!strcmp(p->r.s[i].workload, p->o->workload) ||
					  !strcmp(lab_workload_base(p->r.s[i].workload, name, sizeof(name)), p->o->workload)))
			return true;
	return false;
}

/* Pick the group: the only one kept by -w (and, for --fairness, with per-thread rows). */
static int pick_group(struct plot_ctx *p)
{
	const struct lab_results *r = &p->r;
	int found = -1, count = 0;

	for (int g = 0; g < r->ngroups; g++)
		if (group_kept(p, g)) {
			found = found < 0 ? g : found;
			count++;
		}
	if (count == 1) {
		p->g = found;
		return 0;
	}
	fprintf(stderr, "rwlab plot: %s in %s; choose one with -w (", count ? "several groups match" : "no group matches",
		p->o->path);
	for (int g = 0; g < r->ngroups; g++)
		fprintf(stderr, "%s%s", g ? ", " : "", r->groups[g]);
	fprintf(stderr, ")%s\n", p->o->fairness ? "; --fairness needs per-thread thread_ops.N rows" : "");
	return -1;
}

static int pick_metric(struct plot_ctx *p)
{
	const struct lab_results *r = &p->r;
	const char *head = NULL;

	if (p->o->metric) {
		snprintf(p->metric, sizeof(p->metric), "%s", p->o->metric);
	} else {
		for (int i = 0; i < r->ns && !head; i++)
			if (r->s[i].ig == p->g)
				head = rep_headline(r->s[i].workload);
		if (head) {
			snprintf(p->metric, sizeof(p->metric), "%.*s", (int)strcspn(head, ","), head);
		} else {
			for (int i = 0; i < r->ns; i++)
				if (r->s[i].ig == p->g && r->s[i].better != LAB_BETTER_NONE) {
					snprintf(p->metric, sizeof(p->metric), "%s", r->s[i].metric);
					break;
				}
		}
	}
	p->im = lab_results_metric(r, p->metric);
	if (p->im < 0) {
		fprintf(stderr, "rwlab plot: metric '%s' is not in %s\n", p->metric[0] ? p->metric : "(none)", p->o->path);
		return -1;
	}
	return 0;
}

static void terminal(FILE *f, bool svg, bool cairo)
{
	if (svg)
		fprintf(f, "set terminal svg size 960,600 dynamic noenhanced background rgb 'white' font 'sans,12'\n");
	else if (cairo)
		fprintf(f, "set terminal pngcairo size 960,600 noenhanced background rgb 'white' font 'sans,11'\n");
	else
		fprintf(f, "set terminal png size 960,600 noenhanced background rgb 'white'\n");
}

/*
 * Series style: the Okabe-Ito colour-blind-safe palette without its yellow
 * (Okabe and Ito, "Color Universal Design", 2008), and a distinct marker per
 * series (filled and open squares, circles, triangles, diamonds, then
 * crosses); beyond 7 series the dash pattern changes too, so no two lines
 * look alike.
 */
static void series_style(FILE *s, int i)
{
	static const char *const colour[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00",
					      "#000000" };
	static const int marker[] = { 5, 7, 9, 13, 11, 4, 6, 8, 12, 10, 1, 2, 3 };
	int nc = (int)(sizeof(colour) / sizeof(colour[0])), nm = (int)(sizeof(marker) / sizeof(marker[0]));

	fprintf(s, " linewidth 2 linecolor rgb '%s' pointtype %d pointsize 1.3 dashtype %d", colour[i % nc],
		marker[i % nm], 1 + (i / nc) % 5);
}

/*
 * Times are drawn in ms below one second and in s above: the divisor from
 * the metric's unit to the shown one, and the shown unit (@unit unchanged
 * for anything that is not a time).
 */
static double time_scale(const char *unit, double maxv, const char **shown)
{
	static const struct { const char *u; double to_s; } units[] = {
		{ "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
	};

	*shown = unit;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].u)) {
			bool secs = maxv * units[i].to_s >= 1;

			*shown = secs ? "s" : "ms";
			return secs ? 1 / units[i].to_s : 1e-3 / units[i].to_s;
		}
	return 1;
}

/* Write the data file; returns the number of data blocks (lines to draw). */
static int write_scaling(struct plot_ctx *p, FILE *d, FILE *s, const char *datpath)
{
	const struct lab_results *r = &p->r;
	const struct lab_series *any = NULL;
	int blocks = 0, maxn = 0, tmin = 0, tmax = 0, cpus = atoi(lab_results_ctx(r, LAB_CSV_NAME(cpus)));
	bool first = true;

	const char *shown = "";
	double maxv = 0, div;

	for (int i = 0; i < r->ns; i++)
		if (r->s[i].ig == p->g && r->s[i].im == p->im && !isnan(rep_mean(&r->s[i])))
			maxv = rep_mean(&r->s[i]) > maxv ? rep_mean(&r->s[i]) : maxv;
	for (int i = 0; i < r->ns && !any; i++)
		if (r->s[i].ig == p->g && r->s[i].im == p->im)
			any = &r->s[i];
	div = any ? time_scale(any->unit, maxv, &shown) : 1;
	for (int v = 0; v < r->ncolumns; v++) {
		bool have = false;

		for (int t = 0; t < r->nthreads; t++) {
			const struct lab_series *x = lab_results_find(r, p->g, v, p->im, r->threads[t]);
			double sd;

			if (!x)
				continue;
			if (!have)
				fprintf(d, "# %s\n", r->columns[v]);
			have = true;
			sd = x->n > 1 ? lab_stddev(x->v, x->n) : 0;
			fprintf(d, "%d %.10g %.10g\n", x->threads, rep_mean(x) / div, sd / div);
			maxn = x->n > maxn ? x->n : maxn;
			tmin = !tmin || x->threads < tmin ? x->threads : tmin;
			tmax = x->threads > tmax ? x->threads : tmax;
		}
		if (have) {
			fprintf(d, "\n\n");
			blocks++;
		}
	}
	if (!blocks)
		return 0;
	fprintf(s, "set title ");
	{
		char t[512];

		const char *model = lab_results_ctx(r, LAB_CSV_NAME(cpu_model));

		snprintf(t, sizeof(t), "%s: %s (%s), %s +- stddev over %d iteration%s\n%s CPUs, %.*s, %s", r->groups[p->g],
			 p->metric, shown, rep_higher(any) ? "Hmean" : "Amean", maxn, maxn == 1 ? "" : "s",
			 lab_results_ctx(r, LAB_CSV_NAME(cpus)), model_len(model), model, lab_results_ctx(r, LAB_CSV_NAME(git_rev)));
		gp_str(s, t);
	}
	fprintf(s, "\nset xlabel '%s%s'\nset ylabel ", rep_count_unit(any->workload),
		tmin > 0 && tmax >= 8 * tmin ? " (log scale)" : "");
	{
		char t[256];

		snprintf(t, sizeof(t), "%s (%s, %s is better)", p->metric, shown,
			 any->better == LAB_BETTER_LOWER ? "lower" : any->better == LAB_BETTER_HIGHER ? "higher" : "no direction");
		gp_str(s, t);
	}
	fprintf(s, "\nset grid\nset key outside right top\nset yrange [0:*]\nset format y '%%.1s%%c'\n");
	if (tmin > 0 && tmax >= 8 * tmin)
		fprintf(s, "set logscale x 2\nset xrange [%g:%g]\n", tmin / 1.25, tmax * 1.25);
	else
		fprintf(s, "set xrange [%g:%g]\n", tmin - 0.5, tmax + 0.5);
	fprintf(s, "set xtics (");
	for (int t = 0; t < r->nthreads; t++)
		fprintf(s, "%s%d", t ? ", " : "", r->threads[t]);
	fprintf(s, ")\n");
	if (cpus > 0 && cpus < tmax) {
		fprintf(s, "set arrow from %d, graph 0 to %d, graph 1 nohead dashtype 2 linecolor rgb 'gray40'\n", cpus, cpus);
		fprintf(s, "set label 'CPUs = %d: beyond, oversubscribed' at %d, graph 0.97 offset 0.5,0 font ',9'\n", cpus, cpus);
	}
	fprintf(s, "plot ");
	for (int v = 0, b = 0; v < r->ncolumns; v++) {
		bool have = false;

		for (int t = 0; t < r->nthreads && !have; t++)
			have = lab_results_find(r, p->g, v, p->im, r->threads[t]) != NULL;
		if (!have)
			continue;
		fprintf(s, "%s", first ? "" : ", \\\n     ");
		first = false;
		gp_str(s, datpath);
		fprintf(s, " index %d using 1:2:3 with yerrorlines", b);
		series_style(s, b++);
		fprintf(s, " title ");
		gp_str(s, r->columns[v]);
	}
	fprintf(s, "\n");
	return blocks;
}

static int write_fairness(struct plot_ctx *p, FILE *d, FILE *s, const char *datpath)
{
	const struct lab_results *r = &p->r;
	int T = p->o->threads, blocks = 0, iters = 0;
	bool first = true;
	char name[64], legend[PLOT_MAX_LINES][192];

	if (!T)
		for (int t = 0; t < r->nthreads; t++) {
			snprintf(name, sizeof(name), "thread_ops.%d", r->threads[t] - 1);
			if (lab_results_metric(r, name) >= 0)
				T = r->threads[t];
		}
	snprintf(name, sizeof(name), "thread_ops.%d", T > 0 ? T - 1 : 0);
	if (T <= 0 || lab_results_metric(r, name) < 0) {
		fprintf(stderr, "rwlab plot: no per-thread rows (thread_ops.N)%s in %s; locktest writes them "
				"(runs from before it did cannot be plotted for fairness)\n",
			p->o->threads ? " at that thread count" : "", p->o->path);
		return -1;
	}
	/*
	 * Each iteration's per-thread counts are sorted, then averaged rank by
	 * rank: a different thread starving in each iteration still shows. The
	 * legend's Jain index is the mean of the per-iteration indexes.
	 */
	for (int v = 0; v < r->ncolumns && blocks < PLOT_MAX_LINES; v++) {
		const struct lab_series **ser = calloc((size_t)T, sizeof(*ser));
		double *rank = calloc((size_t)T, sizeof(*rank)), *x = calloc((size_t)T, sizeof(*x)), jain = 0;
		int n = -1;

		if (!ser || !rank || !x)
			abort();
		for (int i = 0; i < T; i++) {
			int im;

			snprintf(name, sizeof(name), "thread_ops.%d", i);
			im = lab_results_metric(r, name);
			ser[i] = im < 0 ? NULL : lab_results_find(r, p->g, v, im, T);
			n = !ser[i] ? 0 : n < 0 || ser[i]->n < n ? ser[i]->n : n;
			if (!ser[i])
				break;
		}
		for (int it = 0; it < n; it++) {
			for (int i = 0; i < T; i++)
				x[i] = ser[i]->v[it];
			qsort(x, (size_t)T, sizeof(*x), cmp_desc);
			for (int i = 0; i < T; i++)
				rank[i] += x[i] / n;
			jain += lab_jain_fairness(x, T) / n;
		}
		if (n > 0) {
			iters = n > iters ? n : iters;
			fprintf(d, "# %s\n", r->columns[v]);
			for (int i = 0; i < T; i++)
				fprintf(d, "%d %.10g\n", i + 1, rank[i]);
			fprintf(d, "\n\n");
			snprintf(legend[blocks++], sizeof(legend[0]), "%s (Jain %.3f)", r->columns[v], jain);
		}
		free(ser);
		free(rank);
		free(x);
	}
	if (!blocks) {
		fprintf(stderr, "rwlab plot: no column has every thread_ops.0..%d row at %d threads in %s\n", T - 1, T,
			p->o->path);
		return -1;
	}
	{
		char t[512];

		const char *model = lab_results_ctx(r, LAB_CSV_NAME(cpu_model));

		snprintf(t, sizeof(t), "%s: operations per thread at %d threads, most to least (rank means over %d iteration%s)\n"
				       "%s CPUs, %.*s, %s",
			 r->groups[p->g], T, iters, iters == 1 ? "" : "s", lab_results_ctx(r, LAB_CSV_NAME(cpus)),
			 model_len(model), model, lab_results_ctx(r, LAB_CSV_NAME(git_rev)));
		fprintf(s, "set title ");
		gp_str(s, t);
	}
	fprintf(s, "\nset xlabel 'thread, by rank'\nset ylabel 'operations in the window'\nset grid\n"
		   "set key outside right top\nset yrange [0:*]\nset xrange [0.5:%g]\nset format y '%%.1s%%c'\n",
		T + 0.5);
	if (T <= 32)
		fprintf(s, "set xtics 1\n");
	fprintf(s, "plot ");
	for (int b = 0; b < blocks; b++) {
		fprintf(s, "%s", first ? "" : ", \\\n     ");
		first = false;
		gp_str(s, datpath);
		fprintf(s, " index %d using 1:2 with linespoints", b);
		series_style(s, b);
		fprintf(s, " title ");
		gp_str(s, legend[b]);
	}
	fprintf(s, "\n");
	return blocks;
}

/* Draw group p->g into @out. Returns 0 or 1 (message printed). */
static int plot_one(struct plot_ctx *p, const char *out)
{
	const struct lab_plot_opts *o = p->o;
	char dir[64] = "", gp[4200], dat[4200];
	bool svg = ends_with(out, ".svg") != NULL;
	int st = 1, rc, fd;

	if (!o->fairness && pick_metric(p))
		return 1;
	/* Say why the figure cannot be written ourselves, not through gnuplot's script dump. */
	fd = open(out, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(stderr, "rwlab plot: cannot write '%s': %s\n", out, strerror(errno));
		return 1;
	}
	close(fd);
	if (o->keep_script) {
		snprintf(gp, sizeof(gp), "%s.gp", out);
		snprintf(dat, sizeof(dat), "%s.dat", out);
	} else {
		snprintf(dir, sizeof(dir), "/tmp/rwlab-plot-XXXXXX");
		if (!mkdtemp(dir)) {
			fprintf(stderr, "rwlab plot: cannot make a temporary directory: %s\n", strerror(errno));
			return 1;
		}
		snprintf(gp, sizeof(gp), "%s/plot.gp", dir);
		snprintf(dat, sizeof(dat), "%s/plot.dat", dir);
	}
	/* pngcairo first; gnuplot builds without cairo get the libgd png terminal. */
	for (int cairo = 1; cairo >= 0; cairo--) {
		FILE *s = fopen(gp, "w"), *d = fopen(dat, "w");
		int blocks;

		if (!s || !d) {
			fprintf(stderr, "rwlab plot: cannot write %s: %s\n", s ? dat : gp, strerror(errno));
			if (s)
				fclose(s);
			if (d)
				fclose(d);
			goto out;
		}
		terminal(s, svg, cairo);
		fprintf(s, "set output ");
		gp_str(s, out);
		fprintf(s, "\n");
		blocks = o->fairness ? write_fairness(p, d, s, dat) : write_scaling(p, d, s, dat);
		fclose(s);
		fclose(d);
		if (blocks < 0)
			goto out;
		if (!blocks) {
			fprintf(stderr, "rwlab plot: no rows of %s in group %s of %s\n", p->metric, p->r.groups[p->g],
				o->path);
			goto out;
		}
		rc = run_gnuplot(gp, cairo && !svg);
		if (rc == 0) {
			st = 0;
			break;
		}
		if (rc == 127 || rc < 0) {
			fprintf(stderr, "rwlab plot: cannot run gnuplot (install gnuplot-nox, or set RWLAB_GNUPLOT)\n");
			goto out;
		}
		if (svg || !cairo) {
			fprintf(stderr, "rwlab plot: gnuplot failed (exit %d) on %s\n", rc, gp);
			goto out;
		}
	}
out:
	if (st)
		unlink(out);	/* no empty or partial figure left behind */
	if (dir[0]) {
		unlink(gp);
		unlink(dat);
		rmdir(dir);
	}
	return st;
}

int lab_plot(const struct lab_plot_opts *o)
{
	struct plot_ctx p = { .o = o };
	char err[2048];
	const char *pct = strstr(o->out, "%w");
	int st = 1, made = 0;

	if (!ends_with(o->out, ".svg") && !ends_with(o->out, ".png")) {
		fprintf(stderr, "rwlab plot: output '%s' must end in .png or .svg\n", o->out);
		return 1;
	}
	if (lab_results_load(&p.r, o->path, o->by, o->baseline, err, sizeof(err))) {
		fprintf(stderr, "rwlab plot: %s\n", err);
		return 1;
	}
	if (!pct) {
		if (!pick_group(&p))
			st = plot_one(&p, o->out);
		goto out;
	}
	/* One figure per group: "%w" in the name becomes the group (e.g. the workload label). */
	for (p.g = 0; p.g < p.r.ngroups; p.g++) {
		char path[4200], tag[256];
		size_t k = 0;

		if (!group_kept(&p, p.g))
			continue;
		for (const char *c = p.r.groups[p.g]; *c && k + 1 < sizeof(tag); c++)
			tag[k++] = isalnum((unsigned char)*c) || *c == '-' || *c == '.' ? *c : '_';
		tag[k] = 0;
		snprintf(path, sizeof(path), "%.*s%s%s", (int)(pct - o->out), o->out, tag, pct + 2);
		if (plot_one(&p, path))
			goto out;
		printf("%s\n", path);
		made++;
	}
	if (!made) {
		fprintf(stderr, "rwlab plot: nothing to draw in %s%s\n", o->path,
			o->fairness ? " (no per-thread thread_ops.N rows)" : "");
		goto out;
	}
	st = 0;
out:
	lab_results_free(&p.r);
	return st;
}
