/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The readable formats: `table` (the default, within 100 columns) and
 * `email` (within 80, with the machine and the build on top, for pasting into a mail).
 *
 * One table per (group, metric). A cell is the labelled aggregate of the
 * iterations (Hmean for higher-is-better metrics, Amean otherwise, the same
 * figure the runner's per-cell line prints: harness/format.h), its spread
 * (±HCoeffVar or ±CoeffVar) and the change against the baseline column,
 * starred when significant and at least the minimum effect (rep_starred(),
 * the verdicts' rule for rwlab's side). Numbers have 4 significant digits with
 * thousands separators. Column names are printed whole, never split.
 *
 * Layout: thread counts as rows and columns side by side when that fits the
 * width; otherwise transposed (columns as rows, thread counts across) when
 * that fits; otherwise the orientation with fewer columns, cut into blocks
 * of columns that each fit, the row labels repeated in every block.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report_impl.h"
#include "stats.h"

#define PARTS REP_GRID_PARTS

/* Display width of UTF-8 text: code points (every character used here is one column wide). */
static int dwidth(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(struct lab_buf *b, int n)
{
	if (n > 0)
		lab_buf_printf(b, "%*s", n, "");
}

/* Right-align @s (display width) in @w columns. */
static void put_right(struct lab_buf *b, const char *s, int w)
{
	pad(b, w - dwidth(s));
	lab_buf_printf(b, "%s", s);
}

/* Print the line in @b without its trailing blanks (a mail keeps them), and empty @b. */
static void flush_line(FILE *f, struct lab_buf *b)
{
	size_t n = b->len;

	while (n && b->p[n - 1] == ' ')
		n--;
	fprintf(f, "%.*s\n", (int)n, b->p ? b->p : "");
	b->len = 0;
	if (b->p)
		b->p[0] = 0;
}

static const char *gcell(const struct rep_grid *g, bool tr, int i, int j, int part)
{
	return tr ? g->cell[j * g->nc + i][part] : g->cell[i * g->nc + j][part];
}

/* Per printed column: the width of each part and of the whole (header included). */
static void col_widths(const struct rep_grid *g, bool tr, int j, int pw[PARTS], int *w)
{
	int rows = tr ? g->nc : g->nr, sum = 0, used = 0;

	for (int k = 0; k < PARTS; k++) {
		pw[k] = 0;
		for (int i = 0; i < rows; i++) {
			int l = dwidth(gcell(g, tr, i, j, k));

			pw[k] = l > pw[k] ? l : pw[k];
		}
		sum += pw[k];
		used += pw[k] > 0;
	}
	sum += used > 1 ? used - 1 : 0;
	*w = dwidth(tr ? g->rlab[j] : g->clab[j]);
	*w = sum > *w ? sum : *w;
}

static int label_width(const struct rep_grid *g, bool tr)
{
	int rows = tr ? g->nc : g->nr, w = dwidth(g->corner[tr]);

	for (int i = 0; i < rows; i++) {
		int l = dwidth(tr ? g->clab[i] : g->rlab[i]);

		w = l > w ? l : w;
	}
	return w;
}

/* Total width of the orientation when printed as one block. */
static int total_width(const struct rep_grid *g, bool tr)
{
	int cols = tr ? g->nr : g->nc, tot = label_width(g, tr), pw[PARTS], w;

	for (int j = 0; j < cols; j++) {
		col_widths(g, tr, j, pw, &w);
		tot += 2 + w;
	}
	return tot;
}

static void print_block(FILE *f, const struct rep_grid *g, bool tr, int j0, int j1)
{
	int rows = tr ? g->nc : g->nr, lw = label_width(g, tr), pw[PARTS], w;
	struct lab_buf b = { 0 };

	lab_buf_printf(&b, "%s", g->corner[tr]);
	pad(&b, lw - dwidth(g->corner[tr]));
	for (int j = j0; j < j1; j++) {
		col_widths(g, tr, j, pw, &w);
		lab_buf_printf(&b, "  ");
		put_right(&b, tr ? g->rlab[j] : g->clab[j], w);
	}
	flush_line(f, &b);
	for (int i = 0; i < rows; i++) {
		const char *lab = tr ? g->clab[i] : g->rlab[i];

		lab_buf_printf(&b, "%s", lab);
		pad(&b, lw - dwidth(lab));
		for (int j = j0; j < j1; j++) {
			int sum = 0, first = 1;

			col_widths(g, tr, j, pw, &w);
			for (int k = 0; k < PARTS; k++)
				sum += pw[k] + (pw[k] && !first ? 1 : 0), first &= !pw[k];
			lab_buf_printf(&b, "  ");
			pad(&b, w - sum);
			first = 1;
			for (int k = 0; k < PARTS; k++) {
				if (!pw[k])
					continue;
				if (!first)
					lab_buf_printf(&b, " ");
				first = 0;
				put_right(&b, gcell(g, tr, i, j, k), pw[k]);
			}
		}
		flush_line(f, &b);
	}
	lab_buf_free(&b);
}

bool rep_grid_transposed(const struct rep_grid *g, int width)
{
	if (total_width(g, false) <= width)
		return false;
	return total_width(g, true) <= width || g->nr < g->nc;	/* else the fewer columns */
}

/* Print @g within @width columns (see the file comment for the choice of layout). */
static void print_grid(FILE *f, const struct rep_grid *g, int width)
{
	bool tr = rep_grid_transposed(g, width);
	int cols, lw, pw[PARTS], w;

	cols = tr ? g->nr : g->nc;
	lw = label_width(g, tr);
	for (int j0 = 0; j0 < cols;) {
		int j1 = j0, used = lw;

		do {
			col_widths(g, tr, j1, pw, &w);
			used += 2 + w;
			j1++;
		} while (j1 < cols && used + 2 + (col_widths(g, tr, j1, pw, &w), w) <= width);
		if (j0)
			fputc('\n', f);
		print_block(f, g, tr, j0, j1);
		j0 = j1;
	}
}

void rep_grid_free(struct rep_grid *g)
{
	for (int i = 0; i < g->nr; i++)
		free(g->rlab[i]);
	for (int j = 0; j < g->nc; j++)
		free(g->clab[j]);
	free(g->rlab);
	free(g->clab);
	free(g->cell);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		abort();
	return d;
}

/*
 * One cell: aggregate, spread (followed by LAB_FMT_FLAG_MARK when
 * lab_fmt_flag() flags the cell; returns whether it did), change (starred
 * by rep_starred(): sets *@starred). @compact (email) prints the spread in
 * whole percent, as LKP's "±  3%" (but 9.5% to 9.95% with its decimal,
 * not as a "±10%" that is not flagged), and changes of 10% or more without
 * a decimal, to fit 80 columns; a spread from 9.95% to 10% has two
 * decimals in every layout ("±9.97%": "±10.0%" would read as flagged).
 */
static bool fill_cell(const struct lab_rctx *c, const struct lab_series *s, const struct lab_series *base,
		      bool is_base, bool compact, bool *starred, char out[PARTS][48])
{
	bool higher, bh, flagged = rep_flag(s);
	double m = rep_table_mean(s, &higher), cv = rep_spread(s, NULL);

	lab_fmt_num(m, out[0], sizeof(out[0]));
	if (s->n > 1 && !isnan(cv))	/* below 10 never reads as 10: "±10%" or "±10.0%" would read as flagged */
		snprintf(out[1], sizeof(out[1]), fabs(cv) >= 9.95 && fabs(cv) < 10 ? "±%.2f%%" :
			 compact && (fabs(cv) < 9.5 || fabs(cv) >= 10) ? "±%.0f%%" : "±%.1f%%", fabs(cv));
	if (flagged)
		rep_mark(out[1], sizeof(out[1]));
	if (!is_base && base) {
		double bm = rep_table_mean(base, &bh), ch;

		if (isnan(bm) || bm == 0 || rep_no_pct(s, m, bm))
			return flagged;
		/* a gain where there is a better (lower: 100 - new*100/base), else the value's own change */
		ch = s->better == LAB_BETTER_LOWER ? lab_pndiff(m, bm) : lab_pdiff(m, bm);
		if (compact && fabs(ch) >= 9.95)
			snprintf(out[2], sizeof(out[2]) - 1, "%+.0f%%", ch);
		else
			lab_fmt_pct(ch, out[2], sizeof(out[2]) - 1);
		if (rep_starred(c, s, base, ch)) {
			strcat(out[2], "*");
			*starred = true;
		}
	}
	return flagged;
}

bool rep_column_counts(const struct lab_rctx *c, int g, int m, int v)
{
	for (int ti = 0; ti < c->r->nthreads; ti++) {
		const struct lab_series *s = lab_results_find(c->r, g, v, m, c->r->threads[ti]);

		if (s && rep_workload_kept(c, s->workload))
			return true;
	}
	return false;
}

bool rep_column_used(const struct lab_rctx *c, int g, int m, int v)
{
	if (rep_column_counts(c, g, m, v))
		return true;
	if (strncmp(c->r->metrics[m], "event.", 6))
		return false;
	for (int k = 0; k < c->r->nmetrics; k++)	/* it ran the group's workload: its "-" is "not counted" */
		if (k != m && rep_column_counts(c, g, k, v))
			return true;
	return false;
}

/* Leave out the columns rep_column_used() finds no cell in, where each stood all "-". */
static void grid_drop_empty(struct rep_grid *gr, const bool *used)
{
	int nc = 0;

	for (int v = 0; v < gr->nc; v++) {
		if (!used[v]) {
			free(gr->clab[v]);
			continue;
		}
		gr->clab[nc] = gr->clab[v];
		for (int i = 0; i < gr->nr; i++)
			memmove(gr->cell[i * gr->nc + nc], gr->cell[i * gr->nc + v], sizeof(*gr->cell));
		nc++;
	}
	if (nc == gr->nc)
		return;
	for (int i = 0; i < gr->nr; i++)	/* rows of nc cells, packed */
		memmove(gr->cell[i * nc], gr->cell[i * gr->nc], (size_t)nc * sizeof(*gr->cell));
	gr->clab[nc] = NULL;
	gr->nc = nc;
}

int rep_grid_build(const struct lab_rctx *c, int g, int m, bool compact, struct rep_grid *gr)
{
	const struct lab_results *r = c->r;
	int rows = 0;
	bool *used;

	memset(gr, 0, sizeof(*gr));
	gr->corner[0] = "";
	gr->corner[1] = c->o->by && *c->o->by ? c->o->by : "variant";
	gr->nc = r->ncolumns;
	gr->difference = rep_difference(r->metrics[m]);
	gr->rlab = calloc((size_t)r->nthreads + 1, sizeof(*gr->rlab));
	gr->clab = calloc((size_t)r->ncolumns + 1, sizeof(*gr->clab));
	gr->cell = calloc((size_t)(r->nthreads * r->ncolumns) + 1, sizeof(*gr->cell));
	used = calloc((size_t)r->ncolumns + 1, sizeof(*used));
	if (!gr->rlab || !gr->clab || !gr->cell || !used)
		abort();
	for (int v = 0; v < r->ncolumns; v++) {
		gr->clab[v] = xstrdup(r->columns[v]);
		used[v] = rep_column_used(c, g, m, v);
		gr->uncounted |= used[v] && !rep_column_counts(c, g, m, v);
	}
	for (int ti = 0; ti < r->nthreads; ti++) {
		const struct lab_series *base = lab_results_find(r, g, 0, m, r->threads[ti]);
		char lab[48];
		bool any = false, over = false, within = false;
		const char *unit = "threads";	/* plural; the singular drops its s */

		for (int v = 0; v < r->ncolumns; v++) {
			const struct lab_series *s = lab_results_find(r, g, v, m, r->threads[ti]);

			strcpy(gr->cell[rows * gr->nc + v][0], "-");
			if (!s || !rep_workload_kept(c, s->workload))
				continue;
			any = true;
			unit = rep_count_unit(s->workload);
			gr->lower = s->better == LAB_BETTER_LOWER;
			gr->flagged |= fill_cell(c, s, base, v == 0, compact, &gr->starred,
						 gr->cell[rows * gr->nc + v]);
			if (rep_oversubscribed(s))
				rep_oversub_add(&gr->over, s), over = true;
			else
				within = true;
		}
		if (!any)
			continue;
		gr->over.partial |= over && within;
		snprintf(lab, sizeof(lab), "%d %.*s%s", r->threads[ti], (int)strlen(unit) - (r->threads[ti] == 1), unit,
			 over ? REP_OVERSUB_MARK : "");
		gr->rlab[rows++] = xstrdup(lab);
	}
	gr->nr = rows;
	grid_drop_empty(gr, used);
	free(used);
	return rows;
}

/* The first ", " in @p, or "; " where @lists is set and it comes first; NULL: none. */
static const char *next_break(const char *p, bool lists)
{
	const char *comma = strstr(p, ", "), *semi = lists ? strstr(p, "; ") : NULL;

	return semi && (!comma || semi < comma) ? semi : comma;
}

/*
 * Print @text, broken at ", " (@lists: also at "; ", between the values a
 * list names) so that no line exceeds @width (a longer single part is kept
 * whole).
 */
static void print_wrapped_at(FILE *f, const char *text, int width, bool lists)
{
	int col = 0;

	for (const char *p = text; *p;) {
		const char *q = next_break(p, lists);
		int len = q ? (int)(q - p) + 1 : (int)strlen(p);

		if (col && col + 1 + len > width) {
			fputs("\n  ", f);
			col = 2;
		} else if (col) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", len, p);
		col += dwidth(p) - dwidth(p + len);
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void print_wrapped(FILE *f, const char *text, int width)
{
	print_wrapped_at(f, text, width, false);
}

void rep_grid_title(const struct lab_rctx *c, int g, int m, char *buf, size_t len)
{
	const struct lab_results *r = c->r;
	const struct lab_series *any = NULL;
	bool base = false;	/* the baseline column has a cell here: else no change is shown */

	for (int i = 0; i < r->ns; i++)
		if (r->s[i].ig == g && r->s[i].im == m) {
			any = any ? any : &r->s[i];
			base |= r->s[i].ic == 0;
		}
	if (any && (!base || rep_difference(r->metrics[m]))) {	/* no change shown */
		snprintf(buf, len, "%s: %s (%s, %s), %s", r->groups[g], r->metrics[m], any->unit,
			 any->better == LAB_BETTER_HIGHER ? "higher is better" :
			 any->better == LAB_BETTER_LOWER ? "lower is better" : "informational",
			 rep_higher(any) ? "Hmean ±HCoeffVar" : "Amean ±CoeffVar");
		return;
	}
	if (!any) {
		snprintf(buf, len, "%s: %s", r->groups[g], r->metrics[m]);
		return;
	}
	/*
	 * The change's sign in the words of the header: higher is better, + higher;
	 * lower is better, the change is the gain (+ lower, so a worse result is -);
	 * informational, the value's own change (+ higher).
	 */
	snprintf(buf, len, "%s: %s (%s, %s), %s, %s vs %s%s", r->groups[g], r->metrics[m], any->unit,
		 any->better == LAB_BETTER_HIGHER ? "higher is better" :
		 any->better == LAB_BETTER_LOWER ? "lower is better" : "informational",
		 rep_higher(any) ? "Hmean ±HCoeffVar" : "Amean ±CoeffVar", any->better == LAB_BETTER_LOWER ? "gain" : "change",
		 r->columns[0], any->better == LAB_BETTER_LOWER ? " (+ = lower = better; - = higher = worse)" :
		 any->better == LAB_BETTER_NONE ? " (+ = higher)" : "");
}

/* Under the tables of a report with a star in them; under none with the rule none: it says no test was made. */
void rep_sig_footnote(const struct lab_rctx *c, char *buf, size_t len)
{
	if (c->o->sig == LAB_SIG_NONE) {
		snprintf(buf, len, "(no significance test)");
		return;
	}
	snprintf(buf, len, "* ");
	rep_star_rule(c, buf + 2, len - 2);
}

/*
 * What closes the readable tables: the oversubscription mark's note where a
 * row carries it, the rule where a change is starred (or none is tested).
 */
static void readable_notes(const struct lab_rctx *c, const struct rep_oversub *over, bool starred, int width)
{
	char line[4096];
	bool rule = starred || c->o->sig == LAB_SIG_NONE;

	if (over->ncpus || rule)
		fputc('\n', c->out);
	if (over->ncpus) {
		rep_oversub_note(over, line, sizeof(line));
		print_wrapped(c->out, line, width);
	}
	if (rule) {
		rep_sig_footnote(c, line, sizeof(line));
		print_wrapped(c->out, line, width);
	}
}

static int readable(struct lab_rctx *c, int width)
{
	const struct lab_results *r = c->r;
	struct rep_oversub over = { 0 };
	int printed = 0;
	bool starred = false;
	char line[1024];

	for (int g = 0; g < r->ngroups; g++)
		for (int m = 0; m < r->nmetrics; m++) {
			struct rep_grid gr;

			if (!rep_metric_in_group(c, g, m))
				continue;
			if (!rep_grid_build(c, g, m, width < 100, &gr)) {
				rep_grid_free(&gr);
				continue;
			}
			gr.corner[0] = "";
			gr.corner[1] = c->o->by && *c->o->by ? c->o->by : "variant";
			rep_grid_title(c, g, m, line, sizeof(line));
			fputc('\n', c->out);
			print_wrapped(c->out, line, width);
			print_grid(c->out, &gr, width);
			if (gr.flagged)
				fprintf(c->out, "%s\n", LAB_FMT_FLAG_LEGEND);
			if (gr.uncounted)
				fprintf(c->out, "%s\n", REP_UNCOUNTED_LEGEND);
			if (gr.difference)
				fprintf(c->out, "%s\n", REP_DIFFERENCE_NOTE);
			else
				rep_sign_line(c->out, gr.lower);
			starred |= gr.starred;
			rep_oversub_merge(&over, &gr.over);
			rep_grid_free(&gr);
			printed++;
		}
	if (printed)
		readable_notes(c, &over, starred, width);
	return printed;
}

int rep_table(struct lab_rctx *c)
{
	return readable(c, 100);
}

/* Append @part to the line @b, ", "-separated; nothing when it is empty. */
static void add_part(struct lab_buf *b, const char *part)
{
	if (*part)
		lab_buf_printf(b, "%s%s", b->len ? ", " : "", part);
}

/*
 * Append "N CPUs (MODEL)" of the rows of kind @sim to @line, a simulated
 * machine by its name ("sim NAME"); where the rows hold several CPU counts
 * or models, each part as rep_ctx_values() names them ("2 CPUs, 2 CPU
 * models (a; b)"); nothing where neither is recorded.
 */
static void email_machine(const struct lab_results *r, int sim, struct lab_buf *line)
{
	char n[256], model[512], cpus[300], named[520];
	int nn = rep_ctx_values(r, LAB_CSV_NAME(cpus), sim, "CPU count", n, sizeof(n));
	int nm = rep_ctx_values(r, LAB_CSV_NAME(cpu_model), sim, sim ? "machine" : "CPU model", model, sizeof(model));

	if (nn == 1)
		lab_fmt_cpus(n, cpus, sizeof(cpus));
	else
		snprintf(cpus, sizeof(cpus), "%s", n);
	snprintf(named, sizeof(named), "%s%s", sim && nm == 1 ? "sim " : "", model);
	if (nn && nm == 1) {
		lab_buf_printf(line, "%s%s (%s)", line->len ? ", " : "", cpus, named);
		return;
	}
	add_part(line, cpus);
	add_part(line, named);
}

/* Append the compiler and the build type of the rows of kind @sim to @line: "gcc 12.2.0 release", either alone. */
static void email_build(const struct lab_results *r, int sim, struct lab_buf *line)
{
	char cc[256], type[256], both[520];
	int ncc = rep_ctx_values(r, LAB_CSV_NAME(compiler), sim, "compiler", cc, sizeof(cc));
	int ntype = rep_ctx_values(r, LAB_CSV_NAME(build_type), sim, "build type", type, sizeof(type));

	if (ncc == 1 && ntype == 1) {
		snprintf(both, sizeof(both), "%s %s", cc, type);
		add_part(line, both);
		return;
	}
	add_part(line, cc);
	add_part(line, type);
}

/* Append what made the simulated rows (rep_sim_models()) to @line. */
static void email_engine(const struct lab_results *r, struct lab_buf *line)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	if (!f)
		abort();
	rep_sim_models(f, r);
	fclose(f);
	add_part(line, text);
	free(text);
}

/*
 * The header lines of the rows of kind @sim into @line (@line[0] the
 * machine, then the kernel or engine, then a simulated machine's build),
 * @iterations (NULL: none) after the build.
 */
static void email_kind(const struct lab_results *r, int sim, const char *iterations, struct lab_buf line[3])
{
	char part[512];

	rep_ctx_values(r, LAB_CSV_NAME(git_rev), sim, "revision", part, sizeof(part));
	lab_buf_printf(&line[0], "rwlab%s%s", *part ? " " : "", part);
	email_machine(r, sim, &line[0]);
	if (sim)
		email_engine(r, &line[1]);
	else if (rep_ctx_values(r, LAB_CSV_NAME(kernel), 0, "kernel", part, sizeof(part)))
		add_part(&line[1], part);
	email_build(r, sim, &line[1 + sim]);
	rep_ctx_values(r, LAB_CSV_NAME(allocator), sim, "allocator", part, sizeof(part));
	add_part(&line[1 + sim], part);
	add_part(&line[1 + sim], iterations ? iterations : "");
}

/*
 * email's header, a line per part (each broken after a comma only where it
 * is wider than 80 columns; what the file does not record left out): a
 * measured run's machine (rwlab's revision, the CPUs and their model), then
 * its kernel and build; a simulated run's machine by its name ("sim NAME":
 * the machine file's hash in the engine's line pins its description), the
 * engine (the kernel column) on a line of its own, then the build, which is
 * part of a simulated machine (the allocator places what its modelled lines
 * hold). A file of both kinds of rows has both, the first row's kind first,
 * as the tables' opening lines; a part whose rows hold several values names
 * how many and which (rep_ctx_values()). A file that records none of
 * these parts (no context: an old schema's, a hand-made one) says so in
 * the first line.
 */
static void email_header(const struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	int sim = !strncmp(lab_results_ctx(r, LAB_CSV_NAME(cpu_model)), "sim ", 4), maxn = 0, last = -1;
	bool both = lab_results_distinct_kind(r, LAB_CSV_NAME(cpu_model), !sim, NULL, 0) > 0;
	struct lab_buf line[6] = { { 0 } }, text = { 0 };
	char iterations[64];

	const char *const shown[] = { LAB_CSV_NAME(git_rev), LAB_CSV_NAME(cpus), LAB_CSV_NAME(cpu_model),
				      LAB_CSV_NAME(kernel), LAB_CSV_NAME(compiler), LAB_CSV_NAME(build_type),
				      LAB_CSV_NAME(allocator) };

	for (int i = 0; i < r->ns; i++)
		maxn = r->s[i].n > maxn ? r->s[i].n : maxn;
	snprintf(iterations, sizeof(iterations), "up to %d iteration%s", maxn, maxn == 1 ? "" : "s");
	if (!rep_ctx_recorded(r, shown, (int)(sizeof(shown) / sizeof(shown[0])))) {
		/* no context (an old schema's file, a hand-made one): said, not a bare "rwlab," */
		lab_buf_printf(&line[0], "rwlab: %s records no context (machine and build unknown)",
			       r->path);
		add_part(&line[1], iterations);
	} else {
		email_kind(r, sim, both ? NULL : iterations, line);
		if (both)
			email_kind(r, !sim, iterations, line + 3);
	}
	for (int k = 0; k < 6; k++)
		last = line[k].len ? k : last;
	for (int k = 0; k <= last; k++)
		if (line[k].len) {
			text.len = 0;
			lab_buf_printf(&text, "%s%s%s", k % 3 ? "  " : "", line[k].p, k < last ? "," : "");
			print_wrapped_at(c->out, text.p, 80, true);
		}
	for (int k = 0; k < 6; k++)
		lab_buf_free(&line[k]);
	lab_buf_free(&text);
}

int rep_email(struct lab_rctx *c)
{
	email_header(c);
	return readable(c, 80);
}
