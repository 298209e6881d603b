/* SPDX-License-Identifier: GPL-2.0-only */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "err.h"
#include "format.h"
#include "plot.h"
#include "report_impl.h"
#include "stats.h"

/* How much of a CPU model a title shows: a simulated machine's ("sim NAME: summary") is its name. */
static int model_len(const char *model)
{
	const char *colon = strchr(model, ':');

	return !strncmp(model, "sim ", 4) && colon ? (int)(colon - model) : (int)strlen(model);
}

/*
 * A gnuplot double-quoted string: backslash and quote escaped, newline as \n,
 * and a backquote as its octal escape \140: gnuplot runs `...` in a
 * double-quoted string as a shell command (command-line substitution), and
 * the strings come from CSVs (variant names) and the command line.
 */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\n' || *s == '`') {
			fputs(*s == '\n' ? "\\n" : "\\140", f);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* gp_str() for a tic label, which gnuplot takes as a format: every % doubled. */
static void gp_label(FILE *f, const char *s)
{
	char buf[256];
	size_t k = 0;

	for (; *s && k + 2 < sizeof(buf); s++) {
		if (*s == '%')
			buf[k++] = '%';
		buf[k++] = *s;
	}
	buf[k] = 0;
	gp_str(f, buf);
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

/*
 * Run gnuplot on @script, what it writes on stderr read into @said (malloc'd,
 * "" when it said nothing; the caller passes it on) until it exits: a
 * process it left behind that still holds the pipe is not waited for.
 * Returns its exit status, or -1 (not started, or killed by the signal
 * *@sig, which is 0 otherwise).
 */
static int run_gnuplot(const char *script, char **said, int *sig)
{
	const char *gp = getenv("RWLAB_GNUPLOT");
	size_t n = 0, cap = 256;
	int fds[2], st = 0;
	bool exited = false;
	pid_t pid;

	*sig = 0;
	*said = malloc(cap);
	if (!*said)
		abort();
	**said = 0;
	if (!gp || !*gp)
		gp = "gnuplot";
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], 2);
		execlp(gp, gp, script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		ssize_t k;

		if (!exited) {
			pid_t w = waitpid(pid, &st, WNOHANG);

			if (w == pid || (w < 0 && errno != EINTR))
				exited = true, st = w == pid ? st : -1;
		}
		if (cap - n < 128 && !(*said = realloc(*said, cap *= 2)))
			abort();
		k = read(fds[0], *said + n, cap - n - 1);
		if (k > 0) {
			n += (size_t)k;
			continue;
		}
		if (k == 0 || (errno != EINTR && errno != EAGAIN) || (exited && errno == EAGAIN))
			break;	/* every writer gone; or gnuplot, what it wrote all read */
		if (errno == EAGAIN)
			poll(&pfd, 1, 20);
	}
	(*said)[n] = 0;
	close(fds[0]);
	while (!exited && waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (st == -1)
		return -1;
	if (WIFSIGNALED(st))
		*sig = WTERMSIG(st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* gnuplot's messages, after @head (a line of ours naming gnuplot), on stderr; nothing when it said nothing. */
static void pass_on(const char *head, const char *said)
{
	size_t n = strlen(said);

	if (!n)
		return;
	fprintf(stderr, "%s\n%s%s", head, said, said[n - 1] == '\n' ? "" : "\n");
}


struct plot_ctx {
	const struct lab_plot_opts *o;
	struct lab_results r;
	int g, im;
	char metric[128];
	char wl[LAB_SPEC_MAX];		/* -w as run writes it (lab_results_workload_label()) */
};

static bool has_thread_ops(const struct plot_ctx *p, int g)
{
	for (int i = 0; i < p->r.ns; i++)
		if (p->r.s[i].ig == g && !strncmp(p->r.s[i].metric, "thread_ops.", 11))
			return true;
	return false;
}


/* Whether series @i's workload is -w's (its label, however its knobs are spelt, or its name). */
static bool workload_is(const struct plot_ctx *p, int i)
{
	return lab_results_workload_is(p->r.s[i].workload, p->o->workload, p->wl);
}

static bool group_kept(const struct plot_ctx *p, int g)
{
	if (p->o->fairness && !has_thread_ops(p, g))
		return false;
	if (!p->o->workload)
		return true;
	for (int i = 0; i < p->r.ns; i++)
		if (p->r.s[i].ig == g && workload_is(p, i))
			return true;
	return false;
}

/* Each workload label of the file once, ", "-separated, on stderr. */
static void list_workloads(const struct plot_ctx *p)
{
	for (int i = 0, k = 0; i < p->r.ns; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(p->r.s[j].workload, p->r.s[i].workload);
		if (!seen)
			fprintf(stderr, "%s%s", k++ ? ", " : "", p->r.s[i].workload);
	}
}

/* Whether the file's groups are its workloads (--by left at variant), so that -w picks one. */
static bool groups_are_workloads(const struct plot_ctx *p)
{
	for (int i = 0; i < p->r.ns; i++)
		if (strcmp(p->r.groups[p->r.s[i].ig], p->r.s[i].workload))
			return false;
	return true;
}

/* Is -w a workload of the file (or not given)? Returns 0, or 2 after one line naming the file's. */
static int check_workload(const struct plot_ctx *p)
{
	bool known = !p->o->workload;

	for (int i = 0; i < p->r.ns && !known; i++)
		known = workload_is(p, i);
	if (known)
		return 0;
	fprintf(stderr, "rwlab plot: workload '%s'%s is not in %s (workloads: ", p->o->workload,
		lab_results_blank_note(p->o->workload), p->o->path);
	list_workloads(p);
	fprintf(stderr, ")\n");
	return 2;
}

/*
 * Pick the group: the only one kept by -w (and, for --fairness, with per-thread rows).
 * Otherwise one line says what the file holds and how to choose: -w where the
 * figures are workloads, %w in -o (one file a figure) always. Returns 0, 1
 * (none to draw) or 2 (several figures: the command must say which, or %w).
 */
static int pick_group(struct plot_ctx *p)
{
	const struct lab_results *r = &p->r;
	const char *out = p->o->out, *dot = strrchr(out, '.');
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
	if (!count) {
		fprintf(stderr, "rwlab plot: nothing to draw in %s%s\n", p->o->path,
			p->o->fairness ? ": --fairness needs per-thread thread_ops.N rows (locktest's)" : "");
		return 1;
	}
	fprintf(stderr, "rwlab plot: %s holds %d figures (", p->o->path, count);
	for (int g = 0, k = 0; g < r->ngroups; g++)
		if (group_kept(p, g))
			fprintf(stderr, "%s%s", k++ ? ", " : "", r->groups[g]);
	fprintf(stderr, "): %sput %%w in -o to draw each to its own file (-o %.*s-%%w%s)\n",
		groups_are_workloads(p) ? "choose one with -w, or " : "", (int)(dot - out), out, dot);
	return 2;
}

/* The file's metrics on stderr, ", "-separated: the lock events as event.*, the per-thread counts left out. */
static void list_metrics(const struct plot_ctx *p)
{
	const struct lab_results *r = &p->r;
	int k = 0;

	for (int i = 0; i < r->nmetrics; i++)
		if (strncmp(r->metrics[i], "event.", 6) && strncmp(r->metrics[i], "thread_ops.", 11))
			fprintf(stderr, "%s%s", k++ ? ", " : "", r->metrics[i]);
	for (int i = 0, e = 0; i < r->nmetrics && !e; i++)
		if ((e = !strncmp(r->metrics[i], "event.", 6)))
			fprintf(stderr, "%sevent.*", k ? ", " : "");
}

/*
 * "metric 'M' is not in FILE (metrics: ...)" on stderr, or why a lock event's
 * rows hold no figure (lab_results_uncounted_why()). Returns 2: -m names what
 * the file does not hold.
 */
static int missing_metric(const struct plot_ctx *p, const char *m)
{
	char why[1024];

	if (lab_results_uncounted_why(&p->r, m, why, sizeof(why))) {
		fprintf(stderr, "rwlab plot: %s\n", why);
		return 2;
	}
	fprintf(stderr, "rwlab plot: metric '%s'%s is not in %s (metrics: ", m, lab_results_blank_note(m), p->o->path);
	list_metrics(p);
	fprintf(stderr, ")\n");
	return 2;
}

/* Has group p->g a series of metric @m? */
static bool group_has(const struct plot_ctx *p, const char *m)
{
	for (int i = 0; i < p->r.ns; i++)
		if (p->r.s[i].ig == p->g && !strcmp(p->r.s[i].metric, m))
			return true;
	return false;
}

/*
 * The headline of group p->g into p->metric (rep_headline_in(): its workload's,
 * or a program's for exec's and the preload's rows): the first of them the
 * group has. Returns whether there is one.
 */
static bool headline_metric(struct plot_ctx *p)
{
	const char *head = NULL;

	for (int i = 0; i < p->r.ns && !head; i++)
		if (p->r.s[i].ig == p->g)
			head = rep_headline_in(&p->r, p->r.s[i].workload);
	for (const char *h = head; h && *h; h += *h == ',') {
		int n = (int)strcspn(h, ",");

		snprintf(p->metric, sizeof(p->metric), "%.*s", n, h);
		if (group_has(p, p->metric))
			return true;
		h += n;
	}
	return false;
}

/* The first directed metric of group p->g (a workload this build does not register) into p->metric, if any. */
static bool directed_metric(struct plot_ctx *p)
{
	for (int i = 0; i < p->r.ns; i++)
		if (p->r.s[i].ig == p->g && p->r.s[i].better != LAB_BETTER_NONE) {
			snprintf(p->metric, sizeof(p->metric), "%s", p->r.s[i].metric);
			return true;
		}
	return false;
}

/* The metric of group p->g: -m's, else its workload's headline. Returns 0, or 2 after one line. */
static int pick_metric(struct plot_ctx *p)
{
	if (p->o->metric) {
		snprintf(p->metric, sizeof(p->metric), "%s", p->o->metric);
	} else if (!headline_metric(p) && !directed_metric(p)) {
		fprintf(stderr, "rwlab plot: %s: no headline metric to draw for %s (none of its workload's, and no "
			"metric that says which way is better): choose one with -m (metrics: ", p->o->path,
			p->r.groups[p->g]);
		list_metrics(p);
		fprintf(stderr, ")\n");
		return 2;
	}
	p->im = lab_results_metric(&p->r, p->metric);
	return p->im < 0 ? missing_metric(p, p->metric) : 0;
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
static void series_style(FILE *s, int i, bool published)
{
	static const char *const colour[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00",
					      "#000000" };
	static const int marker[] = { 5, 7, 9, 13, 11, 4, 6, 8, 12, 10, 1, 2, 3 };
	int nc = (int)(sizeof(colour) / sizeof(colour[0])), nm = (int)(sizeof(marker) / sizeof(marker[0]));
	int pt = marker[i % nm];

	/* a published curve: its column's colour, the open form of its marker, dashed */
	if (published && pt >= 5 && pt <= 13 && pt % 2)
		pt--;
	fprintf(s, " linewidth 2 linecolor rgb '%s' pointtype %d pointsize 1.3 dashtype %d", colour[i % nc], pt,
		published ? 2 : 1 + (i / nc) % 5);
}

/*
 * Times are drawn in the largest of s, ms, us and ns that the largest value
 * @maxv reaches 1 of (ns below 1 us): the divisor from the metric's unit to
 * the shown one, and the shown unit (@unit unchanged for anything that is
 * not a time, and where no value is above 0).
 */
static double time_scale(const char *unit, double maxv, const char **shown)
{
	static const struct { const char *u; double to_s; } units[] = {
		{ "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
	};
	const size_t n = sizeof(units) / sizeof(units[0]);

	*shown = unit;
	for (size_t i = 0; i < n && maxv > 0; i++) {
		double secs = maxv;
		size_t k = 0;

		if (strcmp(unit, units[i].u))
			continue;
		secs *= units[i].to_s;
		while (k + 1 < n && secs < units[k].to_s)
			k++;
		*shown = units[k].u;
		return units[k].to_s / units[i].to_s;
	}
	return 1;
}

/* ---- figures: one path from prepared lines to gnuplot (plot.h) ------------------------ */

void lab_plot_fig_free(struct lab_plot_fig *f)
{
	for (int i = 0; i < f->nline; i++)
		free(f->line[i].p);
	f->nline = 0;
}

struct lab_plot_line *lab_plot_fig_line(struct lab_plot_fig *f, const char *title, int like)
{
	struct lab_plot_line *l;

	if (f->nline == LAB_PLOT_MAX_LINES) {
		f->left_out++;
		return NULL;
	}
	l = &f->line[f->nline++];
	memset(l, 0, sizeof(*l));
	snprintf(l->title, sizeof(l->title), "%s", title);
	l->like = like;
	return l;
}

void lab_plot_line_add(struct lab_plot_line *l, double x, double y, double err, const char *label)
{
	struct lab_plot_point *p;

	if (!isfinite(x) || !isfinite(y))	/* gnuplot cannot place it ("inf" in a range is an error) */
		return;
	p = realloc(l->p, (size_t)(l->n + 1) * sizeof(*l->p));
	if (!p)
		abort();
	l->p = p;
	p = &l->p[l->n++];
	p->x = x, p->y = y, p->err = isnan(err) ? 0 : err;
	snprintf(p->label, sizeof(p->label), "%s", label ? label : "");
}

/*
 * The scaling figure of (group @g, metric @im): one line per column, the
 * table mean (rep_table_mean(): Hmean or Amean, the table's number) with +-1
 * sample standard deviation; times in the largest unit of s, ms, us and ns
 * the largest value reaches 1 of (f->div). Returns the number of lines.
 */
int lab_plot_fig_scaling(struct lab_plot_fig *f, const struct lab_results *r, int g, int im)
{
	const struct lab_series *any = NULL;
	const char *shown = "", *model = lab_results_ctx(r, LAB_CSV_NAME(cpu_model));
	char cpus[300];
	double maxv = 0;
	int maxn = 0;

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < r->ns; i++)
		if (r->s[i].ig == g && r->s[i].im == im) {
			bool h;
			double m = rep_table_mean(&r->s[i], &h);

			any = any ? any : &r->s[i];
			maxv = !isnan(m) && m > maxv ? m : maxv;
		}
	if (!any)
		return 0;
	f->div = time_scale(any->unit, maxv, &shown);
	f->cpus = atoi(lab_results_ctx(r, LAB_CSV_NAME(cpus)));
	for (int v = 0; v < r->ncolumns; v++) {
		struct lab_plot_line *l = NULL;

		for (int t = 0; t < r->nthreads; t++) {
			const struct lab_series *x = lab_results_find(r, g, v, im, r->threads[t]);
			double sd;
			bool h;

			if (!x)
				continue;
			if (!l && !(l = lab_plot_fig_line(f, r->columns[v], -1)))
				break;
			sd = x->n > 1 ? rep_spread_sd(x) : 0;	/* the spread every format shows */
			lab_plot_line_add(l, x->threads, rep_table_mean(x, &h) / f->div, (isnan(sd) ? 0 : sd) / f->div,
					  NULL);
			maxn = x->n > maxn ? x->n : maxn;
		}
	}
	snprintf(f->title, sizeof(f->title), "%s: %s (%s), %s +- %s over %d iteration%s\n%s, %.*s, %s",
		 r->groups[g], r->metrics[im], shown, rep_higher(any) ? "Hmean" : "Amean",
		 rep_higher(any) ? "HStddev" : "Stddev", maxn, maxn == 1 ? "" : "s",
		 lab_fmt_cpus(lab_results_ctx(r, LAB_CSV_NAME(cpus)), cpus, sizeof(cpus)), model_len(model), model,
		 lab_results_ctx(r, LAB_CSV_NAME(git_rev)));
	snprintf(f->xlabel, sizeof(f->xlabel), "%s", rep_count_unit(any->workload));
	f->per_x = !strcmp(f->xlabel, "pairs") ? 2 : 1;	/* a pair is two tasks */
	snprintf(f->ylabel, sizeof(f->ylabel), "%s (%s, %s is better)", r->metrics[im], shown,
		 any->better == LAB_BETTER_LOWER ? "lower" : any->better == LAB_BETTER_HIGHER ? "higher" : "no direction");
	return f->nline;
}

/* The x values of every line, ascending and distinct, into @xs (at most @max); returns how many. */
static int fig_xs(const struct lab_plot_fig *f, double *xs, int max)
{
	int n = 0;

	for (int i = 0; i < f->nline; i++)
		for (int k = 0; k < f->line[i].n; k++) {
			double x = f->line[i].p[k].x;
			int j = 0;

			while (j < n && xs[j] < x)
				j++;
			if ((j < n && xs[j] == x) || n == max)
				continue;
			memmove(xs + j + 1, xs + j, (size_t)(n - j) * sizeof(*xs));
			xs[j] = x;
			n++;
		}
	return n;
}

/* A ratio as the change it means: 0.5 -> "-50%", 2 -> "+100%", 1 -> "0". */
static void ratio_tic(double ratio, char *buf, size_t len)
{
	double pct = 100 * (ratio - 1);

	if (fabs(pct) < 100)
		snprintf(buf, len, fabs(pct) < 0.5 ? "0" : "%+.0f%%", pct);
	else
		lab_fmt_pct(pct, buf, len);
}

/* One tic of a ratio axis: the ratio @t labelled as the change it means. */
static void ratio_tic_put(FILE *s, double t, bool first)
{
	char lab[48];

	ratio_tic(t, lab, sizeof(lab));
	/* a tic label is a format: its % doubled */
	fprintf(s, "%s\"%.*s%s\" %g", first ? "" : ", ", (int)strcspn(lab, "%"), lab, strchr(lab, '%') ? "%%" : "", t);
}

/* The y axis of a ratio figure: log scale, tics at round changes, labelled as the change they mean. */
static void ratio_axis(FILE *s, const struct lab_plot_fig *f)
{
	static const double tics[] = { 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7,
				       0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4 };
	const int one = 16, nt = (int)(sizeof(tics) / sizeof(tics[0]));
	double lo = 1, hi = 1, span;

	for (int i = 0; i < f->nline; i++)
		for (int k = 0; k < f->line[i].n; k++)
			if (f->line[i].p[k].y > 0) {
				lo = fmin(lo, f->line[i].p[k].y);
				hi = fmax(hi, f->line[i].p[k].y);
			}
	lo /= 1.15, hi *= 1.4;	/* room above for the points' labels */
	span = log(hi / lo);
	fprintf(s, "set logscale y 10\nset yrange [%g:%g]\nset ytics (", lo, hi);
	ratio_tic_put(s, 1, true);
	/* outwards from no change, no two labels closer than 1/14 of the axis */
	for (int dir = -1; dir <= 1; dir += 2) {
		double last = 1;

		for (int i = one + dir; i >= 0 && i < nt; i += dir)
			if (tics[i] >= lo && tics[i] <= hi && fabs(log(tics[i] / last)) >= span / 14) {
				ratio_tic_put(s, tics[i], false);
				last = tics[i];
			}
	}
	fprintf(s, ")\nset arrow from graph 0, first 1 to graph 1, first 1 nohead linecolor rgb 'gray30'\n");
}

/* The x axis: log scale where the x values grow geometrically (max >= 8 min), a tic at each value. */
static void x_axis(FILE *s, const struct lab_plot_fig *f)
{
	double xs[1024];
	int n = fig_xs(f, xs, 1024);
	bool logx = n && xs[0] > 0 && xs[n - 1] >= 8 * xs[0];

	if (!n)
		return;
	if (f->xnames) {	/* categories: 1..n, each tic named, slanted to fit */
		fprintf(s, "set xlabel ");
		gp_str(s, f->xlabel);
		fprintf(s, "\nset xrange [0.5:%g]\nset xtics rotate by 30 right (", f->nxnames + 0.5);
		for (int i = 0; i < f->nxnames; i++) {
			fprintf(s, "%s", i ? ", " : "");
			gp_label(s, f->xnames[i]);
			fprintf(s, " %d", i + 1);
		}
		fprintf(s, ")\n");
		return;
	}
	fprintf(s, "set xlabel ");
	{
		char t[192];

		snprintf(t, sizeof(t), "%s%s", f->xlabel, logx ? " (log scale)" : "");
		gp_str(s, t);
	}
	fprintf(s, "\n");
	if (logx)
		fprintf(s, "set logscale x 2\nset xrange [%g:%g]\n", xs[0] / 1.25, xs[n - 1] * 1.25);
	else
		fprintf(s, "set xrange [%g:%g]\n", xs[0] - 0.5, xs[n - 1] + 0.5);
	/*
	 * A tic at each x, but labels no closer than about 1/24 of the axis
	 * (110 and 128 on a log axis from 1 would overprint); the largest
	 * count keeps its label, its neighbour gives way.
	 */
	{
		double span = logx ? log2(xs[n - 1] * 1.25) - log2(xs[0] / 1.25) : xs[n - 1] - xs[0] + 1;
		bool shown[1024] = { false };
		int last = 0;

		shown[0] = true;
		for (int i = 1; i < n; i++) {
			double gap = logx ? log2(xs[i]) - log2(xs[last]) : xs[i] - xs[last];

			if (gap >= span / 24) {
				shown[i] = true;
				last = i;
			} else if (i == n - 1 && last > 0) {
				shown[last] = false;
				shown[i] = true;
			}
		}
		fprintf(s, "set xtics (");
		for (int i = 0; i < n; i++)
			if (shown[i])
				fprintf(s, "%s\"%g\" %g", i ? ", " : "", xs[i], xs[i]);
			else	/* a minor tic: marked, not labelled */
				fprintf(s, "%s\"\" %g 1", i ? ", " : "", xs[i]);
		fprintf(s, ")\n");
	}
	/*
	 * The CPU counts: ours, and the published machine's where it differs;
	 * beyond ours, oversubscribed. x counts f->per_x tasks each (a pair is
	 * two), so the CPUs fall at cpus / per_x.
	 */
	for (int k = 0; k < 2; k++) {
		int c = k ? f->ref_cpus : f->cpus, per = f->per_x > 1 ? f->per_x : 1;
		double x = (double)c / per;
		char what[64] = "";

		if (c <= 0 || (k && c == f->cpus) || x < (logx ? xs[0] / 1.25 : xs[0] - 0.5) ||
		    x > (logx ? xs[n - 1] * 1.25 : xs[n - 1] + 0.5))
			continue;
		if (per == 2)
			snprintf(what, sizeof(what), " (%g pairs)", x);
		else if (per > 2)
			snprintf(what, sizeof(what), " (%g groups of %d)", x, per);
		fprintf(s, "set arrow from %g, graph 0 to %g, graph 1 nohead dashtype %d linecolor rgb '%s'\n", x, x,
			k ? 3 : 2, k ? "gray60" : "gray40");
		/* above the frame, clear of the data; on the side of the line with more room */
		fprintf(s, "set label '%sCPUs = %d%s%s' at %g, graph 1 %s font ',9'\n", k ? "published " : "", c, what,
			!k && x < xs[n - 1] ? ": beyond, oversubscribed" : "", x,
			x >= xs[n - 1] ? "right offset 0,0.6" : "left offset 0,0.6");
	}
}

/*
 * @in into @t (@size bytes), each line broken after a comma or a space into lines of at most @max
 * characters (a longer word stays whole). Returns the number of lines. gnuplot draws no key at
 * all, and warns "difficulty fitting plot titles into key", when one entry is wider than the
 * figure: from about 80 characters at the libgd png terminal, 98 at pngcairo, 105 at svg (a
 * variant with its knobs; the page's change-per-row graphs name "rwlab NEW vs BASE (labels: ...)");
 * a title line that long runs off both sides.
 */
#define KEY_LINE_MAX 72
#define TITLE_LINE_MAX 110
#define KEY_TITLE_MAX (2 * sizeof(((struct lab_plot_line *)0)->title))
static int wrap(const char *in, char *t, size_t size, size_t max)
{
	size_t o = 0, line = 0, cut = 0;	/* cut: just after the line's last comma or space (0: none) */
	int lines = 1;

	for (; *in && o < size - 2; in++) {
		t[o++] = *in;
		line++;
		if (*in == '\n')
			line = 0, cut = 0, lines++;
		else if (*in == ',' || *in == ' ')
			cut = o;
		if (line > max && cut) {
			memmove(t + cut + 1, t + cut, o - cut);
			t[cut] = '\n';
			o++;
			line = o - cut - 1;
			cut = 0;
			lines++;
		}
	}
	t[o] = 0;
	return lines;
}

/* The key under the graph, so that the graph keeps the width; rows as high as its tallest entry. */
static void key(FILE *s, const struct lab_plot_fig *f)
{
	char t[KEY_TITLE_MAX];
	int lines = 1, n;

	for (int b = 0; b < f->nline; b++) {
		n = f->line[b].n ? wrap(f->line[b].title, t, sizeof(t), KEY_LINE_MAX) : 1;
		lines = n > lines ? n : lines;
	}
	fprintf(s, "set key outside bottom center horizontal height 1");
	if (lines > 1)	/* gnuplot spaces the rows for one line each: a taller entry would overlap the next */
		fprintf(s, " spacing %d", lines);
	fprintf(s, "\n");
}

/* The figure's title, wrapped; with the lines a full figure left out. */
static void fig_title(FILE *s, const struct lab_plot_fig *f)
{
	char t[sizeof(f->title) + 96], w[2 * sizeof(t)];

	snprintf(t, sizeof(t), "%s", f->title);
	if (f->left_out)	/* the table beside it has them: the graph must not pass for complete */
		snprintf(t, sizeof(t), "%s\n%d more line%s not drawn (a graph holds %d)", f->title, f->left_out,
			 f->left_out == 1 ? "" : "s", LAB_PLOT_MAX_LINES);
	wrap(t, w, sizeof(w), TITLE_LINE_MAX);
	fprintf(s, "set title ");
	gp_str(s, w);
}

/* Write the data file and the script's axes and plot command for @f. Returns the number of blocks. */
static int write_fig(const struct lab_plot_fig *f, FILE *d, FILE *s, const char *datpath)
{
	bool first = true;
	int blocks = 0;

	for (int b = 0; b < f->nline; b++)
		blocks += f->line[b].n > 0;
	if (!blocks)
		return 0;
	fig_title(s, f);
	fprintf(s, "\nset ylabel ");
	gp_str(s, f->ylabel);
	fprintf(s, "\nset grid\n");
	key(s, f);
	if (f->ratio)
		ratio_axis(s, f);
	else
		fprintf(s, "set yrange [0:*]\nset format y '%%.1s%%c'\n");
	x_axis(s, f);
	fprintf(s, "plot ");
	blocks = 0;
	for (int b = 0; b < f->nline; b++) {
		const struct lab_plot_line *l = &f->line[b];
		char title[KEY_TITLE_MAX];
		bool labels = false;

		if (!l->n)	/* no point to draw: gnuplot would warn of a data block with no valid points */
			continue;
		fprintf(d, "# %s\n", l->title);
		for (int k = 0; k < l->n; k++) {
			fprintf(d, "%.10g %.10g %.10g \"%s\"\n", l->p[k].x, l->p[k].y, l->p[k].err, l->p[k].label);
			labels |= l->p[k].label[0] != 0;
		}
		fprintf(d, "\n\n");
		fprintf(s, "%s", first ? "" : ", \\\n     ");
		first = false;
		gp_str(s, datpath);
		fprintf(s, " index %d using 1:2:3 with yerrorlines", blocks);
		series_style(s, l->like >= 0 ? l->like : b, l->like >= 0);
		fprintf(s, " title ");
		wrap(l->title, title, sizeof(title), KEY_LINE_MAX);
		gp_str(s, title);
		if (labels) {
			fprintf(s, ", \\\n     ");
			gp_str(s, datpath);
			fprintf(s, " index %d using 1:2:4 with labels offset 0,1.2 font ',8' notitle", blocks);
		}
		blocks++;
	}
	fprintf(s, "\n");
	return blocks;
}

static int write_fairness(struct plot_ctx *p, FILE *d, FILE *s, const char *datpath)
{
	const struct lab_results *r = &p->r;
	int T = p->o->threads, blocks = 0, iters = 0;
	bool first = true;
	char name[64], legend[LAB_PLOT_MAX_LINES][192];

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
	for (int v = 0; v < r->ncolumns && blocks < LAB_PLOT_MAX_LINES; v++) {
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
		char t[512], cpus[300];

		const char *model = lab_results_ctx(r, LAB_CSV_NAME(cpu_model));

		snprintf(t, sizeof(t), "%s: operations per thread at %d threads, most to least (rank means over %d iteration%s)\n"
				       "%s, %.*s, %s",
			 r->groups[p->g], T, iters, iters == 1 ? "" : "s",
			 lab_fmt_cpus(lab_results_ctx(r, LAB_CSV_NAME(cpus)), cpus, sizeof(cpus)),
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
		series_style(s, b, false);
		fprintf(s, " title ");
		gp_str(s, legend[b]);
	}
	fprintf(s, "\n");
	return blocks;
}

typedef int (*plot_writer)(const void *arg, FILE *d, FILE *s, const char *datpath);

static int fig_writer(const void *arg, FILE *d, FILE *s, const char *datpath)
{
	return write_fig(arg, d, s, datpath);
}

static int fairness_writer(const void *arg, FILE *d, FILE *s, const char *datpath)
{
	return write_fairness((struct plot_ctx *)arg, d, s, datpath);
}

/*
 * Write the script and data through @write, run gnuplot into @out (.png:
 * pngcairo, else the libgd png terminal; .svg). @keep: leave them as OUT.gp
 * and OUT.dat. Returns 0, or 1 with a one-line error on stderr; no empty
 * or partial figure is left behind.
 */
static int render(const char *out, bool keep, plot_writer write, const void *arg)
{
	char dir[4096] = "", gp[4200], dat[4200], head[4400], *said = NULL;
	bool svg = ends_with(out, ".svg") != NULL;
	int st = 1, rc, fd, sig;

	/* Say why the figure cannot be written ourselves, not through gnuplot's script dump. */
	fd = open(out, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", lab_prog(), out, strerror(errno));
		return 1;
	}
	close(fd);
	if (keep) {
		snprintf(gp, sizeof(gp), "%s.gp", out);
		snprintf(dat, sizeof(dat), "%s.dat", out);
	} else {
		snprintf(dir, sizeof(dir), "%s/rwlab-plot-XXXXXX", lab_tmpdir());
		if (!mkdtemp(dir)) {
			fprintf(stderr, "%s: cannot make a temporary directory in %s: %s\n", lab_prog(), lab_tmpdir(),
				strerror(errno));
			unlink(out);
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
			fprintf(stderr, "%s: cannot write %s: %s\n", lab_prog(), s ? dat : gp, strerror(errno));
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
		blocks = write(arg, d, s, dat);
		fclose(s);
		fclose(d);
		if (blocks <= 0)
			goto out;
		rc = run_gnuplot(gp, &said, &sig);
		if (rc && cairo && !svg && strstr(said, "unknown or ambiguous terminal type")) {
			free(said);	/* a gnuplot without pngcairo: the libgd png terminal */
			said = NULL;
			continue;
		}
		if (rc == 0) {
			snprintf(head, sizeof(head), "%s: gnuplot drew %s, and said:", lab_prog(), out);
			st = 0;
		} else if (sig) {
			snprintf(head, sizeof(head), "%s: gnuplot was killed by signal %d (%s) drawing %s%s", lab_prog(), sig,
				 strsignal(sig), out, *said ? "; it said:" : "");
		} else if (rc == 127 || rc < 0) {
			snprintf(head, sizeof(head), "%s: cannot run gnuplot (install gnuplot-nox, or set "
				 "RWLAB_GNUPLOT)%s", lab_prog(), *said ? "; it said:" : "");
		} else {
			snprintf(head, sizeof(head), "%s: gnuplot failed (exit %d) drawing %s%s", lab_prog(), rc, out,
				 *said ? "; it said:" : "");
		}
		if (rc && !*said)
			fprintf(stderr, "%s\n", head);
		pass_on(head, said);
		break;
	}
out:
	free(said);
	if (st)
		unlink(out);
	if (dir[0]) {
		unlink(gp);
		unlink(dat);
		rmdir(dir);
	}
	return st;
}

int lab_plot_render(const struct lab_plot_fig *f, const char *out, bool keep_script)
{
	if (!ends_with(out, ".svg") && !ends_with(out, ".png")) {
		fprintf(stderr, "%s: output '%s' must end in .png or .svg\n", lab_prog(), out);
		return 1;
	}
	if (!f->nline) {
		fprintf(stderr, "%s: nothing to draw for '%s'\n", lab_prog(), out);
		return 1;
	}
	return render(out, keep_script, fig_writer, f);
}

/* Draw group p->g into @out. Returns 0, 1 or 2 (message printed). */
static int plot_one(struct plot_ctx *p, const char *out)
{
	struct lab_plot_fig *f;
	int st;

	if (p->o->fairness)
		return render(out, p->o->keep_script, fairness_writer, p);
	if ((st = pick_metric(p)))
		return st;
	f = calloc(1, sizeof(*f));
	if (!f)
		abort();
	if (!lab_plot_fig_scaling(f, &p->r, p->g, p->im)) {
		fprintf(stderr, "rwlab plot: no rows of %s in group %s of %s\n", p->metric, p->r.groups[p->g], p->o->path);
		st = 1;
	} else {
		st = render(out, p->o->keep_script, fig_writer, f);
	}
	lab_plot_fig_free(f);
	free(f);
	return st;
}

/* Is workload label @workload kept by -w (every one without it)? A rep_kept_fn. */
static bool kept_by_w(const void *arg, const char *workload)
{
	const struct plot_ctx *p = arg;

	return !p->o->workload || lab_results_workload_is(workload, p->o->workload, p->wl);
}

/*
 * Read the CSV into p->r grouped as report groups it: by --by, else by
 * variant, or by fault path where one variant ran several, -b naming a
 * variant or a path (rep_load(): report's rule, so that a figure has the
 * lines of a table). Returns 0, or 1 or 2 after one line.
 */
static int load(struct plot_ctx *p)
{
	const struct lab_plot_opts *o = p->o;
	const char *by;
	char err[2048];
	int st = rep_load(&p->r, &o->path, 1, &(struct rep_load_opts){ o->by, o->baseline, 0, false, kept_by_w, p },
			  &by, err, sizeof(err));

	if (!st)
		return 0;
	fprintf(stderr, "rwlab plot: %s\n", err);
	/* a --by or --baseline that names nothing in the file, or a file of no results, is a usage error */
	return st == LAB_RESULTS_BAD_BY || st == LAB_RESULTS_BAD_BASELINE || st == LAB_RESULTS_NOT_RESULTS ? 2 : 1;
}

int lab_plot(const struct lab_plot_opts *o)
{
	struct plot_ctx p = { .o = o };
	char wl[LAB_SPEC_MAX];
	const char *pct = strstr(o->out, "%w");
	int st = 1, made = 0;

	if (!ends_with(o->out, ".svg") && !ends_with(o->out, ".png")) {
		fprintf(stderr, "rwlab plot: output '%s' must end in .png or .svg\n", o->out);
		return 1;
	}
	if (o->workload)
		snprintf(p.wl, sizeof(p.wl), "%s", lab_results_workload_label(o->workload, wl, sizeof(wl)));
	if ((st = load(&p)))
		return st;
	/* -m and -w first: a name the file lacks is the mistake to say, whatever figures the file holds */
	if (o->metric && !o->fairness && lab_results_metric(&p.r, o->metric) < 0) {
		st = missing_metric(&p, o->metric);
		goto out;
	}
	if ((st = check_workload(&p)))
		goto out;
	if (!pct) {
		if (!(st = pick_group(&p)))
			st = plot_one(&p, o->out);
		goto out;
	}
	st = 1;
	/* One figure per group: "%w" in the name becomes the group (e.g. the workload label). */
	for (p.g = 0; p.g < p.r.ngroups; p.g++) {
		char path[4200], tag[256];
		size_t k = 0;

		if (!group_kept(&p, p.g))
			continue;
		/* the one figure of a --by that compares every key has no label: name it by that --by */
		for (const char *c = *p.r.groups[p.g] ? p.r.groups[p.g] : o->by ? o->by : "all"; *c && k + 1 < sizeof(tag); c++)
			tag[k++] = isalnum((unsigned char)*c) || *c == '-' || *c == '.' ? *c : '_';
		tag[k] = 0;
		snprintf(path, sizeof(path), "%.*s%s%s", (int)(pct - o->out), o->out, tag, pct + 2);
		if ((st = plot_one(&p, path)))
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
