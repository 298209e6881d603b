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

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void add_row(struct lab_buf *rows, const char *run_id, const char *variant, const char *metric,
		    double v, const char *unit, const char *better, const char *host)
{
	lab_csv_row_prefix(rows, run_id, variant, "bench:lazy-mm", 1, 0);
	lab_csv_row_rest(rows, metric, v, unit, host, better);
}

int lab_bench_lazy_run(const struct lab_bench_lazy_opts *o)
{
	static struct lab_lazy_mm_conf confs[MAX_VARIANTS];
	struct lab_context ctx;
	struct lab_csv_writer csv = { .fd = -1, .prog = PROG };
	struct lab_buf rows = { 0 };
	char err[1024], run_id[64], why[256];
	int n = 0, inone = -1, status = 0, nv;
	double *sw, *rt, *ct, sw_min[MAX_VARIANTS + 1], rt_med[MAX_VARIANTS + 1], rt_min[MAX_VARIANTS + 1];
	double ct_min[MAX_VARIANTS + 1];
	/* -o -: stdout is the CSV (for 'rwlab report -'), so the table goes to stderr */
	FILE *tab = o->csv_path && !strcmp(o->csv_path, "-") ? stderr : stdout;
	int npus, ret;

	for (int i = 0; i < o->nschemes && n < MAX_VARIANTS; i++) {
		confs[n] = o->schemes[i];
		if (confs[n].ops == lab_lazy_mm_lookup("none") && !strcmp(confs[n].label, "none"))
			inone = n;
		n++;
	}
	if (inone < 0) {
		if (n == MAX_VARIANTS || lab_lazy_mm_parse("none", &confs[n], err, sizeof(err))) {
			fprintf(stderr, PROG ": cannot add the none reference\n");
			return 1;
		}
		inone = n++;
	}
	nv = n + 1;	/* variant 0 = the bare pipe, then the schemes */
	sw = calloc((size_t)(nv * o->reps), sizeof(double));
	rt = calloc((size_t)(nv * o->reps), sizeof(double));
	ct = calloc((size_t)(nv * o->reps), sizeof(double));
	if (!sw || !rt || !ct) {
		free(sw);
		free(rt);
		free(ct);
		return 1;
	}
	lab_context_get(&ctx);
	if (o->csv_path && lab_csv_open(&csv, o->csv_path, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		free(sw);
		free(rt);
		free(ct);
		return 2;	/* bad input, refused before anything is measured (as run refuses it) */
	}
	if (lab_context_untrusted(&ctx, why, sizeof(why)))
		fprintf(stderr, "WARNING: %s\n", why);
	npus = lab_topology_init();
	if (npus < 1)
		npus = 1;
	if (lab_topology_bind_self(0))
		fprintf(stderr, "WARNING: could not pin the benchmark to PU 0\n");
	lab_csv_run_id(run_id, sizeof(run_id));
	if (o->csv_path)
		lab_csv_set_context(&csv, run_id, &ctx, "compact");

	for (int r = 0; r < o->reps; r++) {
		for (int v = 0; v < nv; v++) {
			const struct lab_lazy_mm_conf *c = v ? &confs[v - 1] : NULL;
			double x = bl_pair_run(c, o->round_trips);

			sw[v * o->reps + r] = c ? bl_switch_run(c, o->switches) : 0;
			ct[v * o->reps + r] = c ? bl_contended_run(c, npus, o->switches) : 0;
			if (x < 0 || sw[v * o->reps + r] < 0 || ct[v * o->reps + r] < 0) {
				fprintf(stderr, PROG ": %s failed\n", c ? c->label : "pipe");
				status = 1;
			}
			rt[v * o->reps + r] = x;
		}
	}
	for (int v = 0; v < nv; v++) {
		rt_min[v] = sw_min[v] = ct_min[v] = 1e300;
		for (int r = 0; r < o->reps; r++) {
			ct_min[v] = ct[v * o->reps + r] < ct_min[v] ? ct[v * o->reps + r] : ct_min[v];
			rt_min[v] = rt[v * o->reps + r] < rt_min[v] ? rt[v * o->reps + r] : rt_min[v];
			sw_min[v] = sw[v * o->reps + r] < sw_min[v] ? sw[v * o->reps + r] : sw_min[v];
		}
		rt_med[v] = median(&rt[v * o->reps], o->reps);
	}

	fprintf(tab, "lazy-mm cost at one pair (context_switch1 ping-pong, both threads on PU 0), %d interleaved reps\n",
		o->reps);
	fprintf(tab, "  switch: %lu x (switch_to_kthread + switch_to_user), 1 thread, no syscall; best of the reps\n",
		o->switches);
	fprintf(tab, "  contended: the same on %d slots, one per PU, all on one mm; mean over slots, best rep\n", npus);
	fprintf(tab, "  round trip: %lu x (write + blocking read on each side); median (and best) of the reps\n\n",
		o->round_trips);
	fprintf(tab, "%-24s %10s %10s %10s %10s %14s %10s %13s %9s\n", "variant", "switch ns", "vs none", "contended",
		"vs none", "round trip ns", "(best)", "vs none ns", "vs none");
	for (int v = 0; v < nv; v++) {
		const char *label = v ? confs[v - 1].label : "pipe";
		double none_rt = rt_med[inone + 1], dn = rt_med[v] - none_rt;
		char swb[32], swd[32], ctb[32], ctd[32];

		if (v) {
			snprintf(swb, sizeof(swb), "%.2f", sw_min[v]);
			snprintf(swd, sizeof(swd), "%+.2f", sw_min[v] - sw_min[inone + 1]);
			snprintf(ctb, sizeof(ctb), "%.2f", ct_min[v]);
			snprintf(ctd, sizeof(ctd), "%+.2f", ct_min[v] - ct_min[inone + 1]);
		} else {
			snprintf(swb, sizeof(swb), "-");
			snprintf(swd, sizeof(swd), "-");
			snprintf(ctb, sizeof(ctb), "-");
			snprintf(ctd, sizeof(ctd), "-");
		}
		fprintf(tab, "%-24s %10s %10s %10s %10s %14.1f %10.1f %+13.1f %+8.2f%%\n", v ? label : "pipe (no lazy-mm calls)",
		       swb, swd, ctb, ctd, rt_med[v], rt_min[v], dn, 100 * (rt_med[v] / none_rt - 1));
		if (v) {
			add_row(&rows, run_id, label, "switch_ns", sw_min[v], "ns", "lower", ctx.host);
			add_row(&rows, run_id, label, "switch_ns_over_none", sw_min[v] - sw_min[inone + 1], "ns",
				"lower", ctx.host);
			add_row(&rows, run_id, label, "contended_switch_ns", ct_min[v], "ns", "lower", ctx.host);
			add_row(&rows, run_id, label, "contended_switch_ns_over_none", ct_min[v] - ct_min[inone + 1],
				"ns", "lower", ctx.host);
		}
		add_row(&rows, run_id, label, "round_trip_ns", rt_med[v], "ns", "lower", ctx.host);
		add_row(&rows, run_id, label, "round_trip_ns_min", rt_min[v], "ns", "lower", ctx.host);
		add_row(&rows, run_id, label, "round_trip_ns_over_none", dn, "ns", "lower", ctx.host);
	}
	fprintf(tab, "\nA round trip blocks twice (once per thread), so a scheme adds about 2 x its switch cost over\n"
		"none; the pipe line is the same ping-pong with no lazy-mm calls at all (none still pays the\n"
		"framework's irq_lock stand-in and canary checks). Round-trip differences of a few tens of ns\n"
		"are far below the run-to-run noise of a shared machine: the switch columns are the precise\n"
		"ones. 'contended' is where refcount's shared mm_count line bounces between the PUs (%d here);\n"
		"the 48-192-thread effect needs that many CPUs.\n", npus);
	if (csv.fd >= 0) {
		if ((ret = lab_csv_append(&csv, rows.p, rows.len))) {
			fprintf(stderr, PROG ": writing %s failed: %s\n", csv.path, lab_csv_append_why(ret));
			status = 1;
		}
		lab_csv_close(&csv);
	}
	lab_buf_free(&rows);
	free(sw);
	free(rt);
	free(ct);
	return status;
}
