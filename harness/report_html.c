/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab report --format html`: one self-contained page per run or
 * comparison, after mmtests' compare-kernels.sh --format html (its tables
 * with a graph per metric) and LKP's per-commit pages.
 *
 * The page holds, in order:
 *   - the run's context: machine (or simulated machine and engine), CPUs,
 *     kernel, build, git revision, host, when it was measured, the
 *     settings, the report's command line, and the run's context file
 *     (X.context.txt beside X.csv, as tools/reproduce writes it) whole;
 *   - per (group, metric) the graph of the table mean against threads, one
 *     line per column with +-1 stddev bars (lab_plot_fig_scaling(), the
 *     figure `rwlab plot` draws), with --reference the published curves on
 *     the same axes (dashed, open markers, in their column's colour), then
 *     the default table's cells (rep_grid_build(): the same strings the
 *     text table prints, spread and flag marks included);
 *   - with --reference, per mapped metric and column the change per row,
 *     published against rwlab's, as a graph (new/base on a log axis, each
 *     rwlab point labelled with its verdict) and as the text's rows
 *     (lab_vtab_compute(), rep_vrow_cells()) with their verdict classes;
 *   - the text report as `rwlab report` prints it in the matrix's format
 *     (rep_print() into a buffer), verbatim.
 *
 * Graphs are gnuplot's svg terminal output inlined (their ids prefixed per
 * figure, so that the figures' markers do not collide); the style sheet is
 * inline; the page loads nothing and runs no script.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "env.h"
#include "format.h"
#include "plot.h"
#include "report_impl.h"
#include "report_ref.h"
#include "stats.h"
#include "version.h"

/* ---- escaping --------------------------------------------------------------------- */

/* The first @n bytes of @s (at most: its end stops it) as HTML text or an attribute's value. */
static void esc_n(FILE *f, const char *s, size_t n)
{
	for (; s && n && *s; s++, n--)
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
}

/* @s as HTML text or an attribute's value: every & < > " written as its entity. */
static void esc(FILE *f, const char *s)
{
	esc_n(f, s, (size_t)-1);
}

/* @s as an HTML class name: letters and digits kept, anything else '-'. */
static void css_class(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	for (; *s; s++)
		fputc(isalnum((unsigned char)*s) ? tolower((unsigned char)*s) : '-', f);
}

/* A table cell holding @s, the flag mark wrapped so that the style sheet can colour it. */
static void cell_text(FILE *f, const char *s)
{
	const char *mark = strchr(s, LAB_FMT_FLAG_MARK);

	if (!mark) {
		esc(f, s);
		return;
	}
	esc_n(f, s, (size_t)(mark - s));
	fputs("<span class=\"flag\" title=\"", f);
	esc(f, LAB_FMT_FLAG_LEGEND);
	fprintf(f, "\">%c</span>", LAB_FMT_FLAG_MARK);
	esc(f, mark + 1);
}

/* ---- the style sheet ------------------------------------------------------------------ */

static const char css[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:#1b1b1b;"
	"background:#fff;margin:0 auto;max-width:1180px;padding:1.2em 1.6em 3em}\n"
	"h1{font-size:1.55em;margin:.2em 0 .1em}h2{font-size:1.25em;margin:1.8em 0 .4em;border-bottom:1px solid #ccc;"
	"padding-bottom:.15em}h3{font-size:1.05em;margin:1.4em 0 .3em}\n"
	"p.sub{color:#444;margin:.1em 0 1em}\n"
	"table{border-collapse:collapse;margin:.5em 0 .3em;font-variant-numeric:tabular-nums}\n"
	"p.tt{font-weight:600;margin:.6em 0 .1em}\n"
	"th,td{padding:.18em .55em;border-bottom:1px solid #e3e3e3;white-space:nowrap}\n"
	"thead th{border-bottom:2px solid #888;background:#f4f4f4}\n"
	"td.n,th.n{text-align:right}td.s{color:#555;text-align:right;padding-left:.15em}"
	"td.c{text-align:right;padding-left:.3em}td.sig{font-weight:700}\n"
	"th.sep,td.sep{border-left:2px solid #bbb}\n"
	"span.flag{color:#b00020;font-weight:700}\n"
	"table.ctx th{text-align:left;background:none;border-bottom:1px solid #e3e3e3;vertical-align:top;"
	"padding-right:1.2em;color:#333}\n"
	"table.ctx td{white-space:normal;word-break:break-word}\n"
	"td.v{font-weight:600}tr.why td{color:#555;font-size:.9em;border-bottom:1px solid #e3e3e3;"
	"white-space:normal;padding-left:2em}\n"
	".v-agree{background:#d9f2e3}.v-disagree{background:#fbd9d3}.v-inconclusive{background:#eee}"
	".v-published-flat{background:#dde8f6}.v-scale-gap{background:#fbe8c8}.v-n-a{background:#f6f6f6;color:#777}"
	".v-agree-direction{background:#eef7d9}.v-not-comparable{background:#f6f6f6;color:#777}\n"
	"figure{margin:.6em 0 1em}figure svg{width:100%;max-width:960px;height:auto;display:block;"
	"border:1px solid #eee}\n"
	"figcaption{color:#444;font-size:.9em;max-width:960px}\n"
	"p.note,p.legend{color:#444;font-size:.9em;margin:.2em 0}p.summary{font-weight:700;margin:.4em 0 .2em}\n"
	"p.warn{background:#fff4d6;border-left:4px solid #e0a800;padding:.4em .7em}\n"
	"pre{background:#f7f7f7;border:1px solid #e3e3e3;padding:.7em;overflow-x:auto;font-size:12.5px;"
	"line-height:1.3}\n"
	"nav ul{columns:2;margin:.3em 0}nav li{margin:.1em 0}\n"
	".scroll{overflow-x:auto}\n"
	"footer{margin-top:3em;color:#666;font-size:.85em;border-top:1px solid #ddd;padding-top:.5em}\n";

/* ---- graphs: gnuplot's svg, inlined ---------------------------------------------------- */

/*
 * Copy the SVG file @path into @f from its <svg element on (no XML
 * declaration), every id and every reference to one prefixed with @pfx,
 * the root given role="img" and @label. Returns 0, or -1 with an error.
 */
static int inline_svg(FILE *f, const char *path, const char *pfx, const char *label)
{
	static const char *const refs[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
	char *buf = NULL, *p;
	size_t n = 0;
	FILE *in = fopen(path, "r");

	if (!in || getdelim(&buf, &n, 0, in) < 0 || !(p = strstr(buf, "<svg"))) {
		fprintf(stderr, "rwlab report: cannot read the graph gnuplot wrote (%s): %s\n", path,
			in ? "not SVG" : strerror(errno));
		if (in)
			fclose(in);
		free(buf);
		return -1;
	}
	fclose(in);
	fputs("<svg role=\"img\" aria-label=\"", f);
	esc(f, label);
	fputc('"', f);
	for (p += 4; *p;) {
		size_t k, best = 0;

		for (k = 0; k < sizeof(refs) / sizeof(refs[0]); k++)
			if (!strncmp(p, refs[k], strlen(refs[k])))
				best = strlen(refs[k]);
		if (best) {
			fprintf(f, "%.*s%s-", (int)best, p, pfx);
			p += best;
		} else {
			fputc(*p++, f);
		}
	}
	free(buf);
	return 0;
}

/* Draw @fig through gnuplot's svg terminal and inline it as figure @id. Returns 0 or -1. */
static int put_figure(FILE *f, const struct lab_plot_fig *fig, int id, const char *caption)
{
	char dir[4096], path[4200], pfx[16];
	int st;

	snprintf(dir, sizeof(dir), "%s/rwlab-html-XXXXXX", lab_tmpdir());
	if (!mkdtemp(dir)) {
		fprintf(stderr, "rwlab report: cannot make a temporary directory in %s: %s\n", lab_tmpdir(),
			strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/fig.svg", dir);
	snprintf(pfx, sizeof(pfx), "f%d", id);
	st = lab_plot_render(fig, path, false) ? -1 : 0;
	if (!st) {
		fputs("<figure>\n", f);
		st = inline_svg(f, path, pfx, fig->title);
		fputs("\n<figcaption>", f);
		esc(f, caption);
		fputs("</figcaption>\n</figure>\n", f);
	}
	unlink(path);
	rmdir(dir);
	return st;
}

/* ---- context ------------------------------------------------------------------------- */

/* The distinct values of context column @col, "a; b; c" (at most 4, then "and N more"). */
static void distinct(const struct lab_results *r, const char *col, char *buf, size_t len)
{
	const char *v[4];
	int n = lab_results_distinct(r, col, v, 4);
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n && i < 4; i++)
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", i ? "; " : "", v[i]);
	if (n > 4 && off < len)
		snprintf(buf + off, len - off, " and %d more", n - 4);
}

/* The first and last timestamps of the rows: "A to B", or "A". */
static void span(const struct lab_results *r, char *buf, size_t len)
{
	const char *lo, *hi;

	lab_results_timespan(r, &lo, &hi);
	if (!lo)
		snprintf(buf, len, "-");
	else if (!strcmp(lo, hi))
		snprintf(buf, len, "%s", lo);
	else
		snprintf(buf, len, "%s to %s", lo, hi);
}

static void ctx_row(FILE *f, const char *name, const char *value)
{
	if (!value || !*value)
		return;
	fprintf(f, "<tr><th>%s</th><td>", name);
	esc(f, value);
	fputs("</td></tr>\n", f);
}

/* X.context.txt beside X.csv (tools/reproduce's record of the run), or "" when there is none. */
static void context_file(const char *csv, char *buf, size_t len)
{
	size_t n = strlen(csv);

	buf[0] = 0;
	if (n < 4 || strcmp(csv + n - 4, ".csv") || n + 9 > len)
		return;
	snprintf(buf, len, "%.*s.context.txt", (int)(n - 4), csv);
	if (access(buf, R_OK))
		buf[0] = 0;
}

/* A text file into a <pre>, escaped. */
static void put_file(FILE *f, const char *path)
{
	FILE *in = fopen(path, "r");
	char line[4096];

	if (!in)
		return;
	fputs("<pre>\n", f);
	while (fgets(line, sizeof(line), in))
		esc(f, line);
	fputs("</pre>\n", f);
	fclose(in);
}

/* governor, SMT, boost, THP: those the CSV records (schema 1 records none: no row). */
static void settings_row(FILE *f, const struct lab_results *r)
{
	const char *name[] = { "governor", "SMT", "boost", "THP" };
	const char *val[] = { lab_results_ctx(r, LAB_CSV_NAME(governor)), lab_results_ctx(r, LAB_CSV_NAME(smt)),
			      lab_results_ctx(r, LAB_CSV_NAME(boost)), lab_results_ctx(r, LAB_CSV_NAME(thp)) };
	char buf[512] = "";
	size_t n = 0;

	for (int i = 0; i < 4; i++)
		if (*val[i] && n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s %s", n ? ", " : "", name[i], val[i]);
	ctx_row(f, "Machine settings", buf);
}

static void put_context(const struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	const struct lab_report_opts *o = c->o;
	const char *model = lab_results_ctx(r, LAB_CSV_NAME(cpu_model));
	bool sim = !strncmp(model, "sim ", 4);
	char v[2048], w[1024], file[4200];
	time_t now = time(NULL);
	struct tm tm;
	int maxn = 0;

	for (int i = 0; i < r->ns; i++)
		maxn = r->s[i].n > maxn ? r->s[i].n : maxn;
	fputs("<section id=\"context\">\n<h2>Context</h2>\n", c->out);
	if (sim)
		fputs("<p class=\"warn\">Simulated: these figures come from rwlab-sim's model of the machine named "
		      "below, running rwlab's unchanged lock code, not from that hardware.</p>\n", c->out);
	fputs("<table class=\"ctx\">\n", c->out);
	ctx_row(c->out, "Results", r->path);
	distinct(r, LAB_CSV_NAME(cpu_model), v, sizeof(v));
	ctx_row(c->out, sim ? "Simulated machine" : "Machine", v);
	distinct(r, LAB_CSV_NAME(cpus), v, sizeof(v));
	distinct(r, LAB_CSV_NAME(pin), w, sizeof(w));
	snprintf(file, sizeof(file), "%s (pinning: %s)", v, w);
	ctx_row(c->out, "CPUs", file);
	distinct(r, LAB_CSV_NAME(kernel), v, sizeof(v));
	ctx_row(c->out, sim ? "Engine" : "Kernel", v);
	if (!sim)
		settings_row(c->out, r);
	snprintf(file, sizeof(file), "%s, %s build, %s allocator, lock event counters %s",
		 lab_results_ctx(r, LAB_CSV_NAME(compiler)), lab_results_ctx(r, LAB_CSV_NAME(build_type)), lab_results_ctx(r, LAB_CSV_NAME(allocator)),
		 strcmp(lab_results_ctx(r, LAB_CSV_NAME(event_counts)), "1") ? "off" : "on");
	ctx_row(c->out, "Build", file);
	distinct(r, LAB_CSV_NAME(git_rev), v, sizeof(v));
	ctx_row(c->out, "rwlab revision", v);
	distinct(r, LAB_CSV_NAME(host), v, sizeof(v));
	ctx_row(c->out, "Host", v);
	span(r, v, sizeof(v));
	ctx_row(c->out, "Measured", v);
	distinct(r, LAB_CSV_NAME(settings), v, sizeof(v));
	snprintf(file, sizeof(file), "%s%sup to %d iteration%s per cell", v, *v ? "; " : "", maxn, maxn == 1 ? "" : "s");
	ctx_row(c->out, "Run settings", file);
	distinct(r, LAB_CSV_NAME(run), v, sizeof(v));
	ctx_row(c->out, "Run", v);
	if (o->reference) {
		snprintf(file, sizeof(file), "%s%s%s", o->reference, o->map && o->map->machine[0] ? ", " : "",
			 o->map ? o->map->machine : "");
		ctx_row(c->out, "Published table", file);
	}
	snprintf(file, sizeof(file), "%s; %s", rep_sig_name(o->sig), o->era == LAB_ERA_2019 ? "mmtests 2019" :
		 "mmtests today");
	ctx_row(c->out, "Significance", file);
	ctx_row(c->out, "Report command", o->command);
	gmtime_r(&now, &tm);
	strftime(v, sizeof(v), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(file, sizeof(file), "%s by rwlab %s (git %s)", v, LAB_VERSION, LAB_GIT_REV);
	ctx_row(c->out, "Page written", file);
	fputs("</table>\n", c->out);
	if (strcmp(lab_results_ctx(r, LAB_CSV_NAME(build_type)), "release") && *lab_results_ctx(r, LAB_CSV_NAME(build_type)))
		fputs("<p class=\"warn\">Not a release build: timings are not representative.</p>\n", c->out);
	context_file(o->path, file, sizeof(file));
	if (file[0]) {
		fputs("<details><summary>The run's context file, ", c->out);
		esc(c->out, file);
		fputs("</summary>\n", c->out);
		put_file(c->out, file);
		fputs("</details>\n", c->out);
	}
	fputs("</section>\n", c->out);
}

/* ---- the published curves on a value graph ----------------------------------------------- */

/* The map.metric that group @g's metric @m stands for, or -1. */
static int mapped_metric(const struct lab_rctx *c, const struct lab_vtab *vt, int g, int m)
{
	const struct lab_results *r = c->r;
	const struct lab_refmap *map = vt->map;

	for (int k = 0; k < map->nmet; k++) {
		char head[96];
		const char *ours = map->met[k].ours;

		if (!strcmp(ours, "headline")) {
			const char *h = NULL;

			for (int i = 0; i < r->ns && !h; i++)
				if (r->s[i].ig == g)
					h = rep_headline(r->s[i].workload);
			if (!h)
				continue;
			snprintf(head, sizeof(head), "%.*s", (int)strcspn(h, ","), h);
			ours = head;
		}
		if (strcmp(ours, r->metrics[m]))
			continue;
		for (int i = 0; i < r->ns; i++) {
			char name[64];

			if (r->s[i].ig == g && r->s[i].im == m &&
			    (!strcmp(r->s[i].workload, map->met[k].workload) ||
			     !strcmp(lab_workload_base(r->s[i].workload, name, sizeof(name)), map->met[k].workload)))
				return k;
		}
	}
	return -1;
}

/*
 * The published values of map.metric @k on @f's axes: one dashed line per
 * mapped column, at the published client counts, with the published
 * stddev where the table gives one. A table of changes only (speedup
 * percent) has no values to draw. Returns the number of lines added.
 */
static int published_lines(const struct lab_vtab *vt, int k, struct lab_plot_fig *f)
{
	const struct lab_refmap *map = vt->map;
	int added = 0;

	for (int col = 0; col < map->ncol; col++) {
		struct lab_plot_line *l = NULL;
		char title[192];
		int like = -1;

		for (int i = 0; i < f->nline; i++)
			if (f->line[i].like < 0 && !strcmp(f->line[i].title, map->col[col].ours))
				like = i;
		snprintf(title, sizeof(title), "published %s", map->col[col].ref);
		for (int i = 0; i < vt->n; i++) {
			const struct lab_vrow *row = &vt->row[i];
			bool dup = false;
			double y = col ? row->pn : row->pb, sd = col ? row->psn : row->psb;

			/* the baseline repeats in every column's rows: once per client count */
			if (row->k != k || (col && row->col != col) || isnan(row->pb) || isnan(y) || atoi(row->clients) <= 0)
				continue;
			for (int j = 0; l && j < l->n; j++)
				dup |= l->p[j].x == atoi(row->clients);
			if (dup)
				continue;
			if (!l && !(l = lab_plot_fig_line(f, title, like >= 0 ? like : f->nline)))
				return added;
			lab_plot_line_add(l, atoi(row->clients), y / f->div, isnan(sd) ? 0 : sd / f->div, NULL);
		}
		added += l != NULL;
	}
	if (added)
		f->ref_cpus = map->cpus;
	return added;
}

/* ---- the default tables -------------------------------------------------------------- */

/* One grid cell's three parts as <td>s: aggregate, spread, change (bold when starred). */
static void grid_cell(FILE *f, char parts[REP_GRID_PARTS][48], bool first)
{
	fprintf(f, "<td class=\"n%s\">", first ? " sep" : "");
	cell_text(f, parts[0]);
	fputs("</td><td class=\"s\">", f);
	cell_text(f, parts[1]);
	fprintf(f, "</td><td class=\"c%s\">", strchr(parts[2], '*') ? " sig" : "");
	cell_text(f, parts[2]);
	fputs("</td>", f);
}

/*
 * The grid as an HTML table, in the orientation the text table takes at
 * 100 columns (transposed: columns as rows), never cut into blocks.
 */
static void put_grid(FILE *f, const struct rep_grid *gr, const char *title)
{
	bool tr = rep_grid_transposed(gr, 100);
	int rows = tr ? gr->nc : gr->nr, cols = tr ? gr->nr : gr->nc;

	/* the title above, not a <caption>: a caption would widen the table to its length */
	fputs("<p class=\"tt\">", f);
	esc(f, title);
	fputs("</p>\n<div class=\"scroll\"><table class=\"grid\" data-title=\"", f);
	esc(f, title);
	fprintf(f, "\" data-transposed=\"%d\">\n<thead><tr><th>", tr);
	esc(f, gr->corner[tr]);
	fputs("</th>", f);
	for (int j = 0; j < cols; j++) {
		fprintf(f, "<th class=\"n sep\" colspan=\"%d\">", REP_GRID_PARTS);
		esc(f, tr ? gr->rlab[j] : gr->clab[j]);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (int i = 0; i < rows; i++) {
		fputs("<tr><th>", f);
		esc(f, tr ? gr->clab[i] : gr->rlab[i]);
		fputs("</th>", f);
		for (int j = 0; j < cols; j++)
			grid_cell(f, tr ? gr->cell[j * gr->nc + i] : gr->cell[i * gr->nc + j], true);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
	if (gr->flagged) {
		fputs("<p class=\"legend\">", f);
		cell_text(f, LAB_FMT_FLAG_LEGEND);
		fputs("</p>\n", f);
	}
	if (gr->uncounted) {
		fputs("<p class=\"legend\">", f);
		cell_text(f, REP_UNCOUNTED_LEGEND);
		fputs("</p>\n", f);
	}
}

/* "; the N CPUs lie beyond the axis" where the graph cannot mark them (else ""), into @buf. */
static const char *cpus_off_axis(const struct lab_plot_fig *f, const struct lab_results *r, char *buf, size_t len)
{
	double hi = 0;

	for (int i = 0; i < f->nline; i++)
		for (int k = 0; k < f->line[i].n; k++)
			hi = fmax(hi, f->line[i].p[k].x);
	buf[0] = 0;
	if (f->cpus > 0 && (double)f->cpus / (f->per_x > 1 ? f->per_x : 1) > hi * 1.25)
		snprintf(buf, len, "; the machine's %s CPUs lie beyond the axis", lab_results_ctx(r, LAB_CSV_NAME(cpus)));
	return buf;
}

/* Per (group, metric): the graph (with the published curves), then the table. Returns tables, or -1. */
static int put_metrics(const struct lab_rctx *c, const struct lab_vtab *vt, int *fig)
{
	const struct lab_results *r = c->r;
	struct lab_plot_fig *f = calloc(1, sizeof(*f));
	struct rep_oversub over = { 0 };
	int printed = 0, st = 0;
	bool starred = false;

	if (!f)
		abort();
	for (int g = 0; g < r->ngroups && !st; g++)
		for (int m = 0; m < r->nmetrics && !st; m++) {
			struct rep_grid gr;
			char title[1024], caption[1200], cpus_note[96];
			int k;

			if (!rep_metric_in_group(c, g, m))
				continue;
			if (!rep_grid_build(c, g, m, false, &gr)) {
				rep_grid_free(&gr);
				continue;
			}
			rep_grid_title(c, g, m, title, sizeof(title));
			fprintf(c->out, "<section class=\"metric\" id=\"t%d\">\n<h2>", printed);
			esc(c->out, r->groups[g]);
			fputs(": ", c->out);
			esc(c->out, r->metrics[m]);
			fputs("</h2>\n", c->out);
			lab_plot_fig_scaling(f, r, g, m);
			k = vt ? mapped_metric(c, vt, g, m) : -1;
			snprintf(caption, sizeof(caption), "%s against %s, one line per %s; bars: +-1 stddev over the "
				 "iterations%s%s.", r->metrics[m], f->xlabel, c->o->by && *c->o->by ? c->o->by : "variant",
				 k >= 0 && published_lines(vt, k, f) ? "; dashed, open markers: the published table's "
				 "values at its client counts (bars: its stddev where it gives one)" : "",
				 cpus_off_axis(f, r, cpus_note, sizeof(cpus_note)));
			if (put_figure(c->out, f, (*fig)++, caption))
				st = -1;
			lab_plot_fig_free(f);
			put_grid(c->out, &gr, title);
			starred |= gr.starred;
			rep_oversub_merge(&over, &gr.over);
			rep_grid_free(&gr);
			fputs("</section>\n", c->out);
			printed++;
		}
	free(f);
	if (printed && over.ncpus) {
		char note[1024];

		rep_oversub_note(&over, note, sizeof(note));
		fputs("<p class=\"note\">", c->out);
		esc(c->out, note);
		fputs("</p>\n", c->out);
	}
	if (printed && (starred || c->o->sig == LAB_SIG_NONE)) {
		char note[4096];

		rep_sig_footnote(c, note, sizeof(note));
		fputs("<p class=\"note\">", c->out);
		esc(c->out, note);	/* "p < 0.10" */
		fputs("</p>\n", c->out);
	}
	return st ? -1 : printed;
}

/* ---- the reference comparison ------------------------------------------------------------ */

#define CHANGE_TITLE "%s | %s: the change per row\npublished %s vs %s\nrwlab %s vs %s"
#define REFMAP_FIELD(f) sizeof(((struct lab_refmap *)0)->f)
_Static_assert(sizeof(((struct lab_plot_fig *)0)->title) >= sizeof(CHANGE_TITLE) + REFMAP_FIELD(met[0].bench) +
	       REFMAP_FIELD(met[0].metric) + 2 * REFMAP_FIELD(col[0].ref) + 2 * REFMAP_FIELD(col[0].ours),
	       "a figure's title holds the change figure's, its names at their longest");

/* The change per row of rows [i0, i1) (one map.metric and column): published and rwlab's, new/base. */
static int change_figure(const struct lab_rctx *c, const struct lab_vtab *vt, int i0, int i1, int id)
{
	const struct lab_refmap *map = vt->map;
	const struct lab_vrow *first = &vt->row[i0];
	struct lab_plot_fig *f = calloc(1, sizeof(*f));
	struct lab_plot_line *pub, *ours;
	char cap[512];
	int st;

	if (!f)
		abort();
	f->ratio = true;
	f->cpus = atoi(lab_results_ctx(c->r, LAB_CSV_NAME(cpus)));
	/* the pairs in the title, a line each; the key names only the sides (names of a variant with
	 * its knobs are long: a key entry wider than the graph had gnuplot drop the whole key) */
	snprintf(f->title, sizeof(f->title), CHANGE_TITLE,
		 map->met[first->k].bench, map->met[first->k].metric, map->col[first->col].ref, map->col[0].ref,
		 map->col[first->col].ours, map->col[0].ours);
	snprintf(f->xlabel, sizeof(f->xlabel), "rwlab %s (published clients mapped to them)",
		 rep_count_unit(map->met[first->k].workload));
	f->per_x = !strcmp(rep_count_unit(map->met[first->k].workload), "pairs") ? 2 : 1;	/* a pair is two tasks */
	snprintf(f->ylabel, sizeof(f->ylabel), "change, new / base (log scale)");
	pub = lab_plot_fig_line(f, "published", 0);	/* dashed, open markers, as on the value graphs */
	ours = lab_plot_fig_line(f, "rwlab (labels: verdicts)", -1);
	for (int i = i0; i < i1; i++) {
		const struct lab_vrow *row = &vt->row[i];
		char cells[REP_VROW_CELLS][64];

		if (row->th <= 0)
			continue;
		rep_vrow_cells(row, cells);
		if (!isnan(row->pch) && row->pch > -100)
			lab_plot_line_add(pub, row->th, 1 + row->pch / 100, NAN, NULL);
		if (!isnan(row->och) && row->och > -100)
			lab_plot_line_add(ours, row->th, 1 + row->och / 100, NAN, cells[REP_VROW_CELLS - 1]);
	}
	if (!pub->n && !ours->n) {
		free(f);
		return 0;
	}
	if (!ours->n)
		f->nline = 1;	/* keep the order of the colours: published first */
	snprintf(cap, sizeof(cap), "The change of each row below, new/base on a log axis labelled as the percent change, "
		 "the published one (%s) dashed; the line across is no change. Rows with no rwlab thread count "
		 "(pooled or unmapped) are not drawn.", map->machine[0] ? map->machine : "its machine");
	st = put_figure(c->out, f, id, cap);
	lab_plot_fig_free(f);
	free(f);
	return st;
}

static void ref_header(FILE *f, const char *unit)
{
	fputs("<thead><tr><th colspan=\"4\">published</th><th class=\"sep\" colspan=\"4\">rwlab</th>"
	      "<th class=\"sep\"></th></tr>\n<tr><th>clients</th><th class=\"n\">base</th><th class=\"n\">new</th>"
	      "<th class=\"n\">change</th><th class=\"n sep\">", f);
	esc(f, unit);
	fputs("</th><th class=\"n\">base</th><th class=\"n\">new</th><th class=\"n\">change</th>"
	      "<th class=\"sep\">verdict</th></tr></thead>\n", f);
}

static void ref_row(FILE *f, const struct lab_vrow *row)
{
	char b[REP_VROW_CELLS][64];

	rep_vrow_cells(row, b);
	fputs("<tr>", f);
	for (int k = 0; k < REP_VROW_CELLS - 1; k++) {
		fprintf(f, "<td class=\"n%s%s\">", k == 4 ? " sep" : "", (k == 7 && row->sig) ||
			(k == 3 && row->pub == LAB_PUB_SIGNIFICANT) ? " sig" : "");
		esc(f, b[k]);
		fputs("</td>", f);
	}
	fputs("<td class=\"v sep ", f);
	css_class(f, "v-", lab_verdict_name(row->v));
	fputs("\">", f);
	esc(f, b[REP_VROW_CELLS - 1]);
	fputs("</td></tr>\n", f);
	if (row->why[0]) {
		fprintf(f, "<tr class=\"why\"><td colspan=\"%d\">(", REP_VROW_CELLS);
		esc(f, row->why);
		fputs(")</td></tr>\n", f);
	}
}

/* What @print writes for @vt, as <p> lines (@cls), the first one also given @first_cls. */
static void put_lines(FILE *f, const char *buf, const char *cls, const char *first_cls)
{
	for (const char *p = buf; *p;) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);

		if (!line)
			abort();
		fprintf(f, "<p class=\"%s\">", p == buf && first_cls ? first_cls : cls);
		esc(f, line);
		fputs("</p>\n", f);
		free(line);
		p += n + (p[n] == '\n');
	}
}

static int put_reference(const struct lab_rctx *c, const struct lab_vtab *vt, int *fig)
{
	struct lab_rctx mc = *c;
	char line[2048], cols[1024], *buf = NULL;
	size_t len = 0;

	fputs("<section id=\"reference\">\n<h2>Published vs rwlab</h2>\n<p class=\"sub\" id=\"reftitle\">", c->out);
	rep_vtab_title(c, vt, line, sizeof(line));
	esc(c->out, line);
	fputs("</p>\n", c->out);
	for (int i0 = 0, i1; i0 < vt->n; i0 = i1) {
		for (i1 = i0 + 1; i1 < vt->n && vt->row[i1].k == vt->row[i0].k && vt->row[i1].col == vt->row[i0].col; i1++)
			;
		rep_vblock_heading(vt, &vt->row[i0], line, sizeof(line), cols, sizeof(cols));
		fputs("<h3>", c->out);
		esc(c->out, line);
		fputs("</h3>\n<p class=\"sub\">", c->out);
		esc(c->out, cols);
		fputs("</p>\n", c->out);
		if (change_figure(c, vt, i0, i1, (*fig)++))
			return -1;
		fputs("<div class=\"scroll\"><table class=\"ref\" data-title=\"", c->out);
		esc(c->out, line);
		fputs("\">\n", c->out);
		ref_header(c->out, rep_count_unit(vt->map->met[vt->row[i0].k].workload));
		fputs("<tbody>\n", c->out);
		for (int i = i0; i < i1; i++)
			ref_row(c->out, &vt->row[i]);
		fputs("</tbody></table></div>\n", c->out);
		mc.out = open_memstream(&buf, &len);
		if (!mc.out)
			abort();
		lab_vtab_print_summary(mc.out, vt, i0, i1, "");
		fclose(mc.out);
		put_lines(c->out, buf, "note", NULL);
		free(buf);
	}
	/* the summary of every row, the published-flat line and the rule, as the text prints them */
	mc.out = open_memstream(&buf, &len);
	if (!mc.out)
		abort();
	rep_vtab_print_tail(&mc, vt);
	fclose(mc.out);
	fputs("<h3>All rows</h3>\n", c->out);
	put_lines(c->out, buf, "note", "summary");
	free(buf);
	fputs("</section>\n", c->out);
	return 0;
}

/* ---- the text report, verbatim ----------------------------------------------------------- */

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* What `rwlab report` prints in o->page_text (table by default), into a <pre>. Returns 0 or -1. */
static int put_text(struct lab_rctx *c)
{
	enum lab_report_format f = c->o->page_text;
	FILE *page = c->out;
	char *buf = NULL;
	size_t len = 0;
	int st;

	if (f == LAB_FMT_HTML || f == LAB_FMT_JSON || f == LAB_FMT_NONE)
		f = LAB_FMT_TABLE;
	c->out = open_memstream(&buf, &len);
	if (!c->out)
		abort();
	if (c->o->description && c->o->reference)
		fprintf(c->out, "%s: %s\n", c->o->title, c->o->description);
	st = rep_print(c, f);
	fclose(c->out);
	c->out = page;
	fprintf(page, "<section id=\"text\">\n<h2>The text report</h2>\n<details><summary>As <code>rwlab report</code> "
		      "prints it in the %s format%s (%d lines)</summary>\n<pre id=\"text-report\">", lab_report_format_name(f),
		c->o->reference ? ", with the published table" : "", lines(buf));
	fputc('\n', page);	/* the parser drops a newline right after <pre>: the text's own first one stays */
	esc(page, buf);
	fputs("</pre>\n</details>\n</section>\n", page);
	free(buf);
	return st ? -1 : 0;
}

/* ---- the page ----------------------------------------------------------------------------- */

static void put_head(const struct lab_rctx *c)
{
	FILE *f = c->out;
	const char *name = c->o->title ? c->o->title : c->r->path;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"rwlab " LAB_VERSION "\">\n<title>rwlab: ", f);
	esc(f, name);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>rwlab: ", css);
	esc(f, name);
	fputs("</h1>\n", f);
	if (c->o->description) {
		fputs("<p class=\"sub\">", f);
		esc(f, c->o->description);
		fputs("</p>\n", f);
	}
	fputs("</header>\n", f);
}

/* The contents: one link per table section and the reference and text sections. */
static void put_nav(const struct lab_rctx *c, bool ref)
{
	const struct lab_results *r = c->r;
	int n = 0;

	fputs("<nav><ul>\n<li><a href=\"#context\">Context</a></li>\n", c->out);
	for (int g = 0; g < r->ngroups; g++)
		for (int m = 0; m < r->nmetrics; m++) {
			struct rep_grid gr;

			if (!rep_metric_in_group(c, g, m))
				continue;
			if (rep_grid_build(c, g, m, false, &gr)) {
				fprintf(c->out, "<li><a href=\"#t%d\">", n++);
				esc(c->out, r->groups[g]);
				fputs(": ", c->out);
				esc(c->out, r->metrics[m]);
				fputs("</a></li>\n", c->out);
			}
			rep_grid_free(&gr);
		}
	if (ref)
		fputs("<li><a href=\"#reference\">Published vs rwlab</a></li>\n", c->out);
	fputs("<li><a href=\"#text\">The text report</a></li>\n</ul></nav>\n", c->out);
}

int rep_html(struct lab_rctx *c)
{
	const struct lab_vtab *vt = c->o->verdicts_unprinted ? NULL : c->vt;
	int n, fig = 0;

	put_head(c);
	put_nav(c, vt != NULL);
	put_context(c);
	n = put_metrics(c, vt, &fig);
	if (n >= 0 && vt && put_reference(c, vt, &fig))
		n = -1;
	if (n >= 0 && put_text(c))
		n = -1;
	fprintf(c->out, "<footer>Written by rwlab %s (git %s), <code>rwlab report --format html</code>: one file, "
			"no scripts, nothing fetched.</footer>\n</body>\n</html>\n", LAB_VERSION, LAB_GIT_REV);
	return n < 0 ? -1 : n + 1;
}

/* ---- rwlab sim validate's ladder ---------------------------------------------------------- */

/* One machine's rungs: the graph of simulated / figure with the tolerance bands, then the table. */
static int ladder_machine(FILE *f, const char *machine, const struct lab_ladder_rung *r, int n, int id)
{
	struct lab_plot_fig *fig = calloc(1, sizeof(*fig));
	const char **names = calloc((size_t)n + 1, sizeof(*names));
	struct lab_plot_line *ratio, *hi, *lo;
	int k = 0, pass = 0, st;

	if (!fig || !names)
		abort();
	fig->ratio = true;
	snprintf(fig->title, sizeof(fig->title), "%s: the ladder, simulated / figure per rung", machine);
	snprintf(fig->xlabel, sizeof(fig->xlabel), "rung");
	snprintf(fig->ylabel, sizeof(fig->ylabel), "simulated / figure (log scale)");
	fig->xnames = names;
	ratio = lab_plot_fig_line(fig, "simulated / figure (labels: PASS or FAIL)", -1);
	hi = lab_plot_fig_line(fig, "the tolerance band", 1);
	lo = lab_plot_fig_line(fig, "", 1);	/* its lower edge: one key entry for both */
	for (int i = 0; i < n; i++) {
		if (strcmp(r[i].machine, machine))
			continue;
		names[k++] = r[i].id;
		pass += r[i].pass;
		if (r[i].ratio > 0 && isfinite(r[i].ratio))
			lab_plot_line_add(ratio, k, r[i].ratio, NAN, r[i].pass ? "PASS" : "FAIL");
		if (r[i].hi > 0 && isfinite(r[i].hi))
			lab_plot_line_add(hi, k, r[i].hi, NAN, NULL);
		if (r[i].lo > 0 && isfinite(r[i].lo))
			lab_plot_line_add(lo, k, r[i].lo, NAN, NULL);
	}
	fig->nxnames = k;
	fprintf(f, "<section class=\"metric\" id=\"m%d\">\n<h2>", id);
	esc(f, machine);
	fprintf(f, ": %d of %d rungs passed</h2>\n", pass, k);
	st = ratio->n ? put_figure(f, fig, id, "Each rung's simulated value over its figure on a log axis, labelled "
				   "PASS or FAIL; dashed, the band its tolerance allows (stated in the ladder before "
				   "the rung was first run).") : 0;
	fputs("<div class=\"scroll\"><table class=\"ladder\">\n<thead><tr><th>rung</th><th>kind</th>"
	      "<th class=\"n\">figure</th><th class=\"n\">simulated</th><th class=\"n\">ratio</th><th class=\"n\">tol"
	      "</th><th></th><th>source / run</th></tr></thead>\n<tbody>\n", f);
	for (int i = 0; i < n; i++) {
		char num[3][32];

		if (strcmp(r[i].machine, machine))
			continue;
		snprintf(num[0], sizeof(num[0]), "%.4g", r[i].figure);
		snprintf(num[1], sizeof(num[1]), "%.4g", r[i].simulated);
		snprintf(num[2], sizeof(num[2]), "%.3f", r[i].ratio);
		fputs("<tr><td>", f);
		esc(f, r[i].id);
		fputs("</td><td>", f);
		esc(f, r[i].kind);
		fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">",
			num[0], num[1], num[2]);
		esc(f, r[i].tol);
		fprintf(f, "</td><td class=\"v %s\">%s</td><td class=\"src\">", r[i].pass ? "v-agree" : "v-disagree",
			r[i].pass ? "PASS" : "FAIL");
		esc(f, r[i].source);
		fputs("<br><code>", f);
		esc(f, r[i].run);
		fputs("</code></td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n</section>\n", f);
	lab_plot_fig_free(fig);
	free(fig);
	free(names);
	return st;
}

int lab_report_ladder_page(const char *path, const char *command, const struct lab_ladder_rung *r, int n)
{
	char when[64];
	time_t now = time(NULL);
	struct rep_out out;
	struct tm tm;
	FILE *f;
	int st = 0, id = 0, pass = 0;

	if (rep_out_open(&out, "rwlab sim validate", path))
		return 1;
	f = out.f;
	for (int i = 0; i < n; i++)
		pass += r[i].pass;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
		   "content=\"width=device-width, initial-scale=1\">\n<title>rwlab sim validate: the ladder</title>\n"
		   "<style>\n%std.src{white-space:normal;font-size:.9em;color:#333}\n</style>\n</head>\n<body>\n"
		   "<header>\n<h1>rwlab sim validate: the ladder</h1>\n<p class=\"sub\">The simulated machines against "
		   "published measurements, rung by rung: %d of %d rungs passed. A calibration rung's figure set a "
		   "parameter of the model (it checks the engine honours it and validates nothing); a validation "
		   "rung's figure set none.</p>\n</header>\n<section id=\"context\">\n<h2>Context</h2>\n"
		   "<table class=\"ctx\">\n", css, pass, n);
	ctx_row(f, "Command", command);
	ctx_row(f, "Ladder", "sim/machines/validate.ladder (figures, tolerances and sources as stated there)");
	{
		char v[256];

		snprintf(v, sizeof(v), "%s by rwlab %s (git %s)", when, LAB_VERSION, LAB_GIT_REV);
		ctx_row(f, "Page written", v);
	}
	fputs("</table>\n</section>\n", f);
	for (int i = 0; i < n && !st; i++) {
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen |= !strcmp(r[j].machine, r[i].machine);
		if (!seen)
			st = ladder_machine(f, r[i].machine, r, n, id++);
	}
	fprintf(f, "<footer>Written by rwlab %s (git %s), <code>rwlab sim validate -o</code>: one file, no scripts, "
		   "nothing fetched.</footer>\n</body>\n</html>\n", LAB_VERSION, LAB_GIT_REV);
	return rep_out_close(&out, st);
}
