/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Waiman Long's locktest output (docs/workloads.md §5), per cell:
 *
 *   Running locktest with rwsem [runtime = 2s, r% = 50%, load = 100]
 *   Threads = 2, Min/Mean/Max = 74,506/91,260/112,409
 *   Threads = 2, Total Rate = 584,091 op/s; Percpu Rate = 6,084 op/s
 *   lock events (mean per iteration):
 *     rwsem_opt_wlock = 1,234
 *
 * With several iterations every figure is the mean over them (the per-thread
 * operation counts Min/Mean/Max are per iteration, then averaged). Only the
 * lock events that fired are listed; a cell of a variant that counts none
 * (pthread, ck-tflock, ...) says that, not that none fired.
 */
#include <math.h>
#include <string.h>

#include "events.h"
#include "format.h"
#include "report_impl.h"
#include "stats.h"
#include "workload.h"

static double mean_of(const struct lab_results *r, int g, int v, const char *metric, int threads)
{
	int m = lab_results_metric(r, metric);
	const struct lab_series *s = m < 0 ? NULL : lab_results_find(r, g, v, m, threads);

	return s ? lab_amean(s->v, s->n) : NAN;
}

static long knob_of(const struct lab_workload_conf *wc, const char *name, long def)
{
	const struct lab_knob *k = wc->ops ? wc->ops->knobs : NULL;

	for (int i = 0; k && k[i].name; i++)
		if (!strcmp(k[i].name, name))
			return wc->knob[i];
	return def;
}

/*
 * Why the cell of @s lists no lock event: this build counts none, its
 * variant counts none (pthread, ck-tflock, ...: no event row, @rows false),
 * or none fired.
 */
static void no_events(const struct lab_rctx *c, const struct lab_series *s, bool rows)
{
	struct lab_event_set set;
	bool any = rows;

	if (strcmp(lab_results_ctx(c->r, LAB_CSV_NAME(event_counts)), "1")) {
		fprintf(c->out, "lock events: not counted in this build\n");
		return;
	}
	if (lab_event_set_of_label(s->variant, &set))
		any = true;	/* a variant this build does not know: which it counts cannot be told */
	for (int e = 0; e < LAB_EV_NR && !any; e++)
		any = set.has[e];
	if (any)
		fprintf(c->out, "lock events: none fired\n");
	else
		fprintf(c->out, "lock events: none: %s counts no lock events\n", s->variant);
}

/* The line after an oversubscribed cell's lines: "Threads = 4: oversubscribed, more threads than CPUs ...". */
static void oversub_line(FILE *f, const struct lab_series *s)
{
	struct rep_oversub over = { 0 };
	char core[512];

	if (!rep_oversubscribed(s))
		return;
	rep_oversub_add(&over, s);
	rep_oversub_core(&over, core, sizeof(core));
	fprintf(f, "Threads = %d: oversubscribed, %s\n", s->threads, core);
}

int rep_locktest(struct lab_rctx *c)
{
	const struct lab_results *r = c->r;
	int printed = 0, tr = lab_results_metric(r, "total_rate");

	if (tr < 0)
		return 0;
	for (int g = 0; g < r->ngroups; g++)
		for (int t = 0; t < r->nthreads; t++)
			for (int v = 0; v < r->ncolumns; v++) {
				const struct lab_series *s = lab_results_find(r, g, v, tr, r->threads[t]);
				struct lab_workload_conf wc;
				char name[64], err[256], a[32], b[32], d[32], runtime[32];
				double wall;
				bool events = false, event_rows = false;

				if (!s || !rep_workload_kept(c, s->workload) ||
				    strcmp(lab_workload_base(s->workload, name, sizeof(name)), "locktest"))
					continue;
				if (lab_workload_parse(s->workload, &wc, err, sizeof(err)))
					memset(&wc, 0, sizeof(wc));
				wall = mean_of(r, g, v, "wall_s", r->threads[t]);
				if (isnan(wall))
					snprintf(runtime, sizeof(runtime), "?");
				else if (wall >= 1)
					snprintf(runtime, sizeof(runtime), "%.0fs", wall);
				else
					snprintf(runtime, sizeof(runtime), "%.0fms", wall * 1000);
				fprintf(c->out, "%sRunning locktest with %s [runtime = %s, r%% = %ld%%, load = %ld]\n",
					printed ? "\n" : "", r->columns[v], runtime, knob_of(&wc, "rpct", 50),
					knob_of(&wc, "load", 100));
				rep_thousands(mean_of(r, g, v, "ops_min", r->threads[t]), a, sizeof(a));
				rep_thousands(mean_of(r, g, v, "ops_mean", r->threads[t]), b, sizeof(b));
				rep_thousands(mean_of(r, g, v, "ops_max", r->threads[t]), d, sizeof(d));
				fprintf(c->out, "Threads = %d, Min/Mean/Max = %s/%s/%s\n", r->threads[t], a, b, d);
				rep_thousands(lab_amean(s->v, s->n), a, sizeof(a));
				rep_thousands(mean_of(r, g, v, "percpu_rate", r->threads[t]), b, sizeof(b));
				fprintf(c->out, "Threads = %d, Total Rate = %s op/s; Percpu Rate = %s op/s", r->threads[t], a, b);
				/* the Amean of total_rate is printed: flagged on its CoeffVar, as the per-cell line says */
				if (rep_flag(s))
					fprintf(c->out, "  [%c %s]", LAB_FMT_FLAG_MARK, rep_flag(s));
				fputc('\n', c->out);
				for (int m = 0; m < r->nmetrics; m++) {
					const struct lab_series *e;
					double ev;

					if (strncmp(r->metrics[m], "event.", 6))
						continue;
					e = lab_results_find(r, g, v, m, r->threads[t]);
					event_rows |= e != NULL;
					ev = e ? lab_amean(e->v, e->n) : 0;
					if (!(ev > 0))
						continue;
					if (!events)
						fprintf(c->out, "lock events%s:\n",
							s->n > 1 ? " (mean per iteration)" : "");
					events = true;
					rep_thousands(ev, a, sizeof(a));
					fprintf(c->out, "  %s = %s\n", r->metrics[m] + 6, a);
				}
				if (!events)
					no_events(c, s, event_rows);
				oversub_line(c->out, s);
				printed++;
			}
	return printed;
}
