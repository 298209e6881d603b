/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "bench_lazy.h"
#include "channel.h"
#include "context.h"
#include "csv.h"
#include "stop.h"
#include "topology.h"
#include "wait.h"

#define MAX_VARIANTS 64
#define PROG "rwlab bench-lazy"	/* what its error lines begin with (cmd_bench_lazy.c's) */

/* One measured pair: the initiator is the benchmark thread (slot 0), the partner slot 1. */
struct bl_pair {
	struct lab_chan ab, ba;
	struct lab_lazy_domain *d;	/* NULL: the bare pipe */
	struct lab_lazy_mm *mm;
	int err;
};

static int bl_block(struct bl_pair *p, int cpu, struct lab_chan *ch)
{
	int r;

	if (!p->d)
		return lab_chan_recv(ch);
	lab_lazy_switch_to_kthread(p->d, cpu);
	r = lab_chan_recv(ch);
	lab_lazy_switch_to_user(p->d, cpu, p->mm);
	return r;
}

static void *bl_partner(void *arg)
{
	struct bl_pair *p = arg;

	if (p->d && lab_lazy_cpu_online(p->d, 1, p->mm)) {
		p->err = 1;
		lab_chan_close_tx(&p->ba);
		return NULL;
	}
	while (bl_block(p, 1, &p->ab) > 0)
		if (lab_chan_send(&p->ba))
			break;
	if (p->d)
		lab_lazy_cpu_offline(p->d, 1);
	return NULL;
}

/* ns per round trip of @rts round trips, or a negative value on failure. */
static double bl_pair_run(const struct lab_lazy_mm_conf *conf, unsigned long rts)
{
	struct bl_pair p = { .err = 0 };
	pthread_t tid;
	uint64_t t0 = 0, t1 = 0;
	unsigned long warm = rts / 10 + 100;
	char err[256];
	bool ok = true, online = false;

	if (conf) {
		if (lab_lazy_domain_create(&p.d, conf, 2, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return -1;
		}
		p.mm = lab_lazy_mm_alloc(p.d);
		online = p.mm && !lab_lazy_cpu_online(p.d, 0, p.mm);
		ok = online;
	}
	if (ok && (lab_chan_open(&p.ab) || lab_chan_open(&p.ba)))
		ok = false;
	/* Created from the pinned benchmark thread: the partner shares its PU. */
	if (ok && pthread_create(&tid, NULL, bl_partner, &p))
		ok = false;
	if (ok) {
		for (unsigned long i = 0; i < warm + rts && ok; i++) {
			if (i == warm)
				t0 = lab_clock_ns();
			ok = !lab_chan_send(&p.ab) && bl_block(&p, 0, &p.ba) > 0;
		}
		t1 = lab_clock_ns();
		lab_chan_close_tx(&p.ab);
		pthread_join(tid, NULL);
		ok = ok && !p.err;
	}
	lab_chan_close(&p.ab);
	lab_chan_close(&p.ba);
	if (p.d) {
		if (online)
			lab_lazy_cpu_offline(p.d, 0);
		if (p.mm)
			lab_lazy_release(p.d, p.mm);
		lab_lazy_domain_destroy(p.d);
	}
	return ok ? (double)(t1 - t0) / (double)rts : -1;
}

/* ns per switch_to_kthread + switch_to_user, one thread, no syscall. */
static double bl_switch_run(const struct lab_lazy_mm_conf *conf, unsigned long n)
{
	struct lab_lazy_domain *d;
	struct lab_lazy_mm *mm;
	char err[256];
	uint64_t t0;
	double r;

	if (lab_lazy_domain_create(&d, conf, 1, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return -1;
	}
	mm = lab_lazy_mm_alloc(d);
	if (!mm || lab_lazy_cpu_online(d, 0, mm)) {
		if (mm)
			lab_lazy_release(d, mm);
		lab_lazy_domain_destroy(d);
		return -1;
	}
	for (unsigned long i = 0; i < n / 10 + 1; i++) {
		lab_lazy_switch_to_kthread(d, 0);
		lab_lazy_switch_to_user(d, 0, mm);
	}
	t0 = lab_clock_ns();
	for (unsigned long i = 0; i < n; i++) {
		lab_lazy_switch_to_kthread(d, 0);
		lab_lazy_switch_to_user(d, 0, mm);
	}
	r = (double)(lab_clock_ns() - t0) / (double)n;
	lab_lazy_cpu_offline(d, 0);
	lab_lazy_release(d, mm);
	lab_lazy_domain_destroy(d);
	return r;
}

/* The contended switch path: one CPU slot per PU, every slot switching on the same mm. */
struct bl_hammer {
	struct lab_lazy_domain *d;
	struct lab_lazy_mm *mm;
	int cpu, pu;
	unsigned long n;
	struct lab_start *start;
	double ns;
	int err;
};

static void *bl_hammer_main(void *arg)
{
	struct bl_hammer *h = arg;
	uint64_t t0;

	if (lab_topology_bind_self(h->pu) || lab_lazy_cpu_online(h->d, h->cpu, h->mm)) {
		h->err = 1;
		lab_start_arrive(h->start);	/* counted, so the controller does not wait for us */
		return NULL;
	}
	/* Spin at the start line: the slots must start switching together. */
	if (!lab_start_arrive_spin(h->start)) {
		lab_lazy_cpu_offline(h->d, h->cpu);
		return NULL;
	}
	t0 = lab_clock_ns();
	for (unsigned long i = 0; i < h->n; i++) {
		lab_lazy_switch_to_kthread(h->d, h->cpu);
		lab_lazy_switch_to_user(h->d, h->cpu, h->mm);
	}
	h->ns = (double)(lab_clock_ns() - t0) / (double)h->n;
	lab_lazy_cpu_offline(h->d, h->cpu);
	return NULL;
}

/* Mean ns per switch round over @nthreads slots on PUs 0..nthreads-1, or -1. */
static double bl_contended_run(const struct lab_lazy_mm_conf *conf, int nthreads, unsigned long n)
{
	struct bl_hammer h[64];
	pthread_t tid[64];
	struct lab_lazy_domain *d;
	struct lab_lazy_mm *mm;
	struct lab_start start;
	char err[256];
	double sum = 0;
	int started = 0, bad = 0;

	if (nthreads > 64)
		nthreads = 64;
	if (lab_lazy_domain_create(&d, conf, nthreads, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return -1;
	}
	mm = lab_lazy_mm_alloc(d);
	if (!mm) {
		lab_lazy_domain_destroy(d);
		return -1;
	}
	lab_start_init(&start);
	for (int i = 0; i < nthreads; i++) {
		h[i] = (struct bl_hammer){ .d = d, .mm = mm, .cpu = i, .pu = i, .n = n, .start = &start };
		if (pthread_create(&tid[i], NULL, bl_hammer_main, &h[i]))
			break;
		started++;
	}
	lab_start_wait_ready(&start, (unsigned int)started, -1);
	lab_start_release(&start, started < nthreads);
	for (int i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		bad |= h[i].err;
		sum += h[i].ns;
	}
	lab_lazy_release(d, mm);
	lab_lazy_domain_destroy(d);
	return bad || started < nthreads ? -1 : sum / started;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @v[0..@n), sorted in a copy (@v keeps the reps' order). */
static double median(const double *v, int n)
{
	double *c = malloc((size_t)n * sizeof(*c)), m;

	if (!c)
		abort();
	memcpy(c, v, (size_t)n * sizeof(*c));
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

static double min_of(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

/*
 * One measurement run: variant 0 is the bare pipe, variant v the scheme
 * confs[v - 1]; each array holds nv x reps figures, variant-major (the reps
 * of a variant side by side), of the first done reps.
 */
struct bl_run {
	const struct lab_bench_lazy_opts *o;
	const struct lab_lazy_mm_conf *confs;
	int nv, none;		/* none: the variant index of the reference scheme */
	int npus, done;
	double *sw, *rt, *ct;	/* switch, round trip, contended switch; ns */
};

#define AT(b, a, v, r) ((b)->a[(v) * (b)->o->reps + (r)])

/* Rep @r of every variant. Returns 0, 1 when a measurement failed (said), -1 when a signal stopped it. */
static int bl_rep(struct bl_run *b, int r)
{
	int st = 0;

	for (int v = 0; v < b->nv; v++) {
		const struct lab_lazy_mm_conf *c = v ? &b->confs[v - 1] : NULL;

		if (lab_stop_signal())
			return -1;
		AT(b, rt, v, r) = bl_pair_run(c, b->o->round_trips);
		AT(b, sw, v, r) = c ? bl_switch_run(c, b->o->switches) : 0;
		AT(b, ct, v, r) = c ? bl_contended_run(c, b->npus, b->o->switches) : 0;
		if (AT(b, rt, v, r) < 0 || AT(b, sw, v, r) < 0 || AT(b, ct, v, r) < 0) {
			fprintf(stderr, PROG ": %s failed\n", c ? c->label : "pipe");
			st = 1;
		}
	}
	return lab_stop_signal() ? -1 : st;
}

static void add_row(struct lab_buf *rows, const char *run_id, const char *variant, int rep, const char *metric,
		    double v, const char *host)
{
	lab_csv_row_prefix(rows, run_id, variant, "bench:lazy-mm", 1, rep);
	lab_csv_row_rest(rows, metric, v, "ns", host, "lower");
}

/*
 * Rep @r's rows, one per metric and variant (iteration @r, as run writes one
 * row per iteration): each figure, and its difference to none's in the same
 * rep. A variant with a failed figure in the rep, or every variant when
 * none's failed, has no rows of that rep.
 */
static void bl_rep_rows(const struct bl_run *b, int r, struct lab_buf *rows, const char *run_id, const char *host)
{
	static const char *const name[3][2] = {
		{ "switch_ns", "switch_ns_over_none" },
		{ "contended_switch_ns", "contended_switch_ns_over_none" },
		{ "round_trip_ns", "round_trip_ns_over_none" },
	};
	double *const a[3] = { b->sw, b->ct, b->rt };
	int n = b->o->reps;

	for (int v = 0; v < b->nv; v++) {
		const char *label = v ? b->confs[v - 1].label : "pipe";
		bool bad = false;

		for (int k = 0; k < 3; k++)
			bad |= a[k][v * n + r] < 0 || a[k][b->none * n + r] < 0;
		for (int k = v ? 0 : 2; k < 3 && !bad; k++) {	/* the pipe has no switch path */
			add_row(rows, run_id, label, r, name[k][0], a[k][v * n + r], host);
			add_row(rows, run_id, label, r, name[k][1], a[k][v * n + r] - a[k][b->none * n + r], host);
		}
	}
}

/* The table of the first b->done reps (at least one) on @tab. */
static void bl_table(FILE *tab, const struct bl_run *b)
{
	const struct lab_bench_lazy_opts *o = b->o;
	int n = b->done, none = b->none;
	double none_sw = min_of(&AT(b, sw, none, 0), n), none_ct = min_of(&AT(b, ct, none, 0), n);
	double none_rt = median(&AT(b, rt, none, 0), n);

	fprintf(tab, "lazy-mm cost at one pair (context_switch1 ping-pong, both threads on PU 0), %d interleaved rep%s%s\n",
		n, n == 1 ? "" : "s", n < o->reps ? " (interrupted)" : "");
	fprintf(tab, "  switch: %lu x (switch_to_kthread + switch_to_user), 1 thread, no syscall; best of the reps\n",
		o->switches);
	fprintf(tab, "  contended: the same on %d slots, one per PU, all on one mm; mean over slots, best rep\n",
		b->npus);
	fprintf(tab, "  round trip: %lu x (write + blocking read on each side); median (and best) of the reps\n\n",
		o->round_trips);
	fprintf(tab, "%-24s %10s %10s %10s %10s %14s %10s %13s %9s\n", "variant", "switch ns", "vs none", "contended",
		"vs none", "round trip ns", "(best)", "vs none ns", "vs none");
	for (int v = 0; v < b->nv; v++) {
		double rt = median(&AT(b, rt, v, 0), n), sw = min_of(&AT(b, sw, v, 0), n);
		double ct = min_of(&AT(b, ct, v, 0), n);
		char swb[32] = "-", swd[32] = "-", ctb[32] = "-", ctd[32] = "-";

		if (v) {
			snprintf(swb, sizeof(swb), "%.2f", sw);
			snprintf(swd, sizeof(swd), "%+.2f", sw - none_sw);
			snprintf(ctb, sizeof(ctb), "%.2f", ct);
			snprintf(ctd, sizeof(ctd), "%+.2f", ct - none_ct);
		}
		fprintf(tab, "%-24s %10s %10s %10s %10s %14.1f %10.1f %+13.1f %+8.2f%%\n",
			v ? b->confs[v - 1].label : "pipe (no lazy-mm calls)", swb, swd, ctb, ctd, rt,
			min_of(&AT(b, rt, v, 0), n), rt - none_rt, 100 * (rt / none_rt - 1));
	}
	fprintf(tab, "\nA round trip blocks twice (once per thread), so a scheme adds about 2 x its switch cost over\n"
		"none; the pipe line is the same ping-pong with no lazy-mm calls at all (none still pays the\n"
		"framework's irq_lock stand-in and canary checks). Round-trip differences of a few tens of ns\n"
		"are far below the run-to-run noise of a shared machine: the switch columns are the precise\n"
		"ones. 'contended' is where refcount's shared mm_count line bounces between the PUs (%d here);\n"
		"the 48-192-thread effect needs that many CPUs.\n", b->npus);
}

/* The line an interrupted run ends with (run's and exec's words). */
static void bl_say_interrupted(const struct bl_run *b)
{
	const char *path = b->o->csv_path;
	bool stream = path && (!strcmp(path, "-") || lab_csv_stream_path(path));

	if (!b->done)
		fprintf(stderr, PROG ": interrupted before the first of %d reps ended%s%s\n", b->o->reps,
			path ? "; nothing written to " : "", path ? (strcmp(path, "-") ? path : "stdout") : "");
	else if (path)
		fprintf(stderr, PROG ": interrupted after %d of %d reps; they %s %s (the rep in progress %s)\n", b->done,
			b->o->reps, stream ? "went to" : "are in", strcmp(path, "-") ? path : "stdout",
			stream ? "did not" : "is not");
	else
		fprintf(stderr, PROG ": interrupted after %d of %d reps (the table is theirs)\n", b->done, b->o->reps);
}

/* The schemes measured: @o's, and none added when missing (the reference). Returns how many, or -1. */
static int bl_schemes(const struct lab_bench_lazy_opts *o, struct lab_lazy_mm_conf *confs, int *inone)
{
	char err[1024];
	int n = 0;

	*inone = -1;
	for (int i = 0; i < o->nschemes && n < MAX_VARIANTS; i++) {
		confs[n] = o->schemes[i];
		if (confs[n].ops == lab_lazy_mm_lookup("none") && !strcmp(confs[n].label, "none"))
			*inone = n;
		n++;
	}
	if (*inone >= 0)
		return n;
	if (n == MAX_VARIANTS || lab_lazy_mm_parse("none", &confs[n], err, sizeof(err))) {
		fprintf(stderr, PROG ": cannot add the none reference\n");
		return -1;
	}
	*inone = n;
	return n + 1;
}

/* Measure the reps, each one's rows appended to @csv (when open) as it ends. Returns an exit status. */
static int bl_measure(struct bl_run *b, struct lab_csv_writer *csv, const char *run_id, const char *host)
{
	int status = 0, st, ret;

	for (int r = 0; r < b->o->reps; r++) {
		struct lab_buf rows = { 0 };

		if ((st = bl_rep(b, r)) < 0)
			break;
		status |= st;
		bl_rep_rows(b, r, &rows, run_id, host);
		if (csv->fd >= 0 && rows.len && (ret = lab_csv_append(csv, rows.p, rows.len))) {
			fprintf(stderr, PROG ": writing %s failed: %s\n", csv->path, lab_csv_append_why(ret));
			lab_buf_free(&rows);
			return 1;
		}
		lab_buf_free(&rows);
		b->done++;
	}
	return status;
}

int lab_bench_lazy_run(const struct lab_bench_lazy_opts *o)
{
	static struct lab_lazy_mm_conf confs[MAX_VARIANTS];
	struct lab_context ctx;
	struct lab_csv_writer csv = { .fd = -1, .prog = PROG };
	struct bl_run b = { .o = o, .confs = confs };
	char err[1024], run_id[64], why[256];
	/* -o -: stdout is the CSV (for 'rwlab report -'), so the table goes to stderr */
	FILE *tab = o->csv_path && !strcmp(o->csv_path, "-") ? stderr : stdout;
	int n = bl_schemes(o, confs, &b.none), status;

	if (n < 0)
		return 1;
	b.none++;	/* its variant index: variant 0 is the bare pipe */
	b.nv = n + 1;
	b.sw = calloc((size_t)(b.nv * o->reps), sizeof(double));
	b.rt = calloc((size_t)(b.nv * o->reps), sizeof(double));
	b.ct = calloc((size_t)(b.nv * o->reps), sizeof(double));
	if (!b.sw || !b.rt || !b.ct)
		abort();
	lab_context_get(&ctx);
	if (o->csv_path && lab_csv_open(&csv, o->csv_path, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		free(b.sw);
		free(b.rt);
		free(b.ct);
		return 2;	/* bad input, refused before anything is measured (as run refuses it) */
	}
	if (lab_context_untrusted(&ctx, why, sizeof(why)))
		fprintf(stderr, "WARNING: %s\n", why);
	b.npus = lab_topology_init();
	if (b.npus < 1)
		b.npus = 1;
	if (lab_topology_bind_self(0))
		fprintf(stderr, "WARNING: could not pin the benchmark to PU 0\n");
	lab_csv_run_id(run_id, sizeof(run_id));
	/* what report needs to read the rows: the reference they are against, and how they were measured */
	snprintf(ctx.settings, sizeof(ctx.settings), "baseline=%s reps=%d round-trips=%lu switches=%lu",
		 confs[b.none - 1].label, o->reps, o->round_trips, o->switches);
	if (o->csv_path)
		lab_csv_set_context(&csv, run_id, &ctx, "compact");
	lab_stop_install();
	status = bl_measure(&b, &csv, run_id, ctx.host);
	lab_stop_restore();
	if (b.done)
		bl_table(tab, &b);
	if (lab_stop_signal()) {
		bl_say_interrupted(&b);
		status = 130;
	}
	if (csv.fd >= 0)
		lab_csv_close(&csv);
	free(b.sw);
	free(b.rt);
	free(b.ct);
	return status;
}
