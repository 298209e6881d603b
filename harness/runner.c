/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "context.h"
#include "csv.h"
#include "resume.h"
#include "runner.h"
#include "stats.h"
#include "wait.h"

static volatile sig_atomic_t lab_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	lab_interrupted = 1;
}

struct run_ctx {
	struct lab_cell *cell;
	const struct lab_workload_ops *ops;
	void *state;
	struct lab_worker *workers;
	const int *pu;
	uint32_t ready;
	uint32_t go;
	uint32_t bind_failed;
};

struct worker_arg {
	struct run_ctx *rc;
	int i;
};

static void *worker_main(void *arg)
{
	struct worker_arg *a = arg;
	struct run_ctx *rc = a->rc;
	struct lab_worker *w = &rc->workers[a->i];

	lab_current();
	if (lab_topology_bind_self(rc->pu[a->i]))
		atomic_fetch_add_relaxed(&rc->bind_failed, 1);
	w->phase_seen = LAB_PHASE_WARMUP;
	lab_events_reset();

	atomic_fetch_add_release(&rc->ready, 1);
	lab_futex_wake(&rc->ready, 1);
	while (!smp_load_acquire(&rc->go))
		lab_futex_wait(&rc->go, 0, -1);

	w->t_start = lab_clock_ns();
	if (rc->ops->kind == LAB_WL_WORK) {
		lab_worker_reset(w);
		w->phase_seen = LAB_PHASE_MEASURE;
	}
	rc->ops->worker(rc->state, w);
	w->t_end = lab_clock_ns();
	lab_events_snapshot(&w->events);
	return NULL;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Sleep @ns, waking every 20 ms to notice an interrupt. Returns false if interrupted. */
static bool sleep_interruptible(uint64_t ns)
{
	uint64_t end = lab_clock_ns() + ns;

	for (;;) {
		uint64_t now = lab_clock_ns();

		if (lab_interrupted)
			return false;
		if (now >= end)
			return true;
		lab_sleep_ns(end - now < 20000000ull ? end - now : 20000000ull);
	}
}

struct iter_out {
	double wall_s, user_s, sys_s;
	long nvcsw, nivcsw;
	bool bind_failed;
};

/* One iteration on fresh threads. Returns 0, -EINTR if interrupted, or -errno. */
static int run_iteration(struct run_ctx *rc, int n, struct iter_out *out)
{
	const struct lab_run_settings *s = rc->cell->run;
	struct worker_arg *args = calloc((size_t)n, sizeof(*args));
	pthread_t *tids = calloc((size_t)n, sizeof(*tids));
	struct rusage ru0, ru1;
	uint64_t t0, t1 = 0;
	sigset_t block, old;
	int created = 0, ret = 0;
	bool ok = true;

	if (!args || !tids) {
		free(args);
		free(tids);
		return -ENOMEM;
	}
	rc->ready = 0;
	rc->go = 0;
	rc->bind_failed = 0;
	WRITE_ONCE(rc->cell->phase, rc->ops->kind == LAB_WL_TIMED && s->warmup_ns ? LAB_PHASE_WARMUP
										     : LAB_PHASE_MEASURE);
	memset(rc->workers, 0, (size_t)n * sizeof(*rc->workers));

	/* Workers never take SIGINT: the harness thread handles it. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (int i = 0; i < n; i++) {
		struct lab_worker *w = &rc->workers[i];

		w->id = i;
		w->cpu = rc->pu[i];
		w->cell = rc->cell;
		w->rng = (s->seed + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(i + 1) * 0xbf58476d1ce4e5b9ull;
		if (!w->rng)
			w->rng = 1;
		args[i].rc = rc;
		args[i].i = i;
		if ((ret = lab_thread_create(&tids[i], worker_main, &args[i]))) {
			ret = -ret;
			break;
		}
		created++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (created < n) {
		/* Release the ones we have and let them run to the end. */
		WRITE_ONCE(rc->cell->phase, LAB_PHASE_STOP);
		n = created;
		ok = false;
	}

	/* Barrier: every worker is pinned and waiting. */
	for (uint32_t r; (r = smp_load_acquire(&rc->ready)) < (uint32_t)n;)
		lab_futex_wait(&rc->ready, r, 50000000);

	getrusage(RUSAGE_SELF, &ru0);
	t0 = lab_clock_ns();
	smp_store_release(&rc->go, 1);
	lab_futex_wake(&rc->go, n);

	if (ok && rc->ops->kind == LAB_WL_TIMED) {
		if (s->warmup_ns) {
			ok = sleep_interruptible(s->warmup_ns);
			getrusage(RUSAGE_SELF, &ru0);
			t0 = lab_clock_ns();
			WRITE_ONCE(rc->cell->phase, LAB_PHASE_MEASURE);
		}
		ok = ok && sleep_interruptible(s->duration_ns);
		WRITE_ONCE(rc->cell->phase, LAB_PHASE_STOP);
		t1 = lab_clock_ns();
		getrusage(RUSAGE_SELF, &ru1);
	}
	for (int i = 0; i < n; i++)
		lab_thread_join(tids[i], NULL);
	if (rc->ops->kind == LAB_WL_WORK) {
		getrusage(RUSAGE_SELF, &ru1);
		for (int i = 0; i < n; i++)
			t1 = rc->workers[i].t_end > t1 ? rc->workers[i].t_end : t1;
		if (lab_interrupted)
			ok = false;
	}
	free(args);
	free(tids);
	if (ret)
		return ret;
	if (!ok)
		return -EINTR;
	out->wall_s = (double)(t1 - t0) / 1e9;
	out->user_s = tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime);
	out->sys_s = tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime);
	out->nvcsw = ru1.ru_nvcsw - ru0.ru_nvcsw;
	out->nivcsw = ru1.ru_nivcsw - ru0.ru_nivcsw;
	out->bind_failed = rc->bind_failed != 0;
	return 0;
}

/* ---- rows ------------------------------------------------------------------ */

struct emit_ctx {
	struct lab_buf *buf;
	const char *prefix;		/* schema..iteration, with trailing comma */
	const char *suffix;		/* pin..host, with leading comma */
	const char *headline;		/* workload headline metrics, comma separated */
	double headline_value;		/* first headline metric of this iteration */
	bool have_headline;
};

static const char *better_name(enum lab_better b)
{
	return b == LAB_BETTER_HIGHER ? "higher" : b == LAB_BETTER_LOWER ? "lower" : "none";
}

static void emit_row(void *p, const char *metric, double value, const char *unit, enum lab_better better)
{
	struct emit_ctx *e = p;

	lab_buf_printf(e->buf, "%s", e->prefix);
	lab_buf_field(e->buf, metric);
	lab_buf_printf(e->buf, ",%.17g,", value);
	lab_buf_field(e->buf, unit);
	lab_buf_printf(e->buf, ",%s%s\n", better_name(better), e->suffix);
	if (!e->have_headline && e->headline) {
		size_t ml = strlen(metric);

		if (!strncmp(e->headline, metric, ml) && (e->headline[ml] == 0 || e->headline[ml] == ',')) {
			e->headline_value = value;
			e->have_headline = true;
		}
	}
}

static void fmt_eta(char *buf, size_t len, double s)
{
	if (s < 0 || !isfinite(s))
		snprintf(buf, len, "?");
	else if (s >= 3600)
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	else
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
}

/* The CSV variant label of column @li: a lock, or a lazy-mm scheme for lazy-mm workloads. */
static const char *variant_label(const struct lab_run_opts *o, const struct lab_workload_conf *wl, int li)
{
	return wl->ops->uses_lazy_mm ? o->lazy[li].label : o->locks[li].label;
}

int lab_run(const struct lab_run_opts *o)
{
	struct lab_context ctx;
	struct lab_csv_writer csv;
	struct lab_resume done_cells = { 0 };
	struct lab_buf suffix = { 0 };
	struct sigaction sa, old_int, old_term;
	char err[1024], run_id[64], why[256];
	int ncells = 0, done = 0, status = 0, max_threads = 0;
	uint64_t t_start = lab_host_clock_ns();	/* the ETA is host time, also under --sim */
	bool tty = isatty(2);

	for (int i = 0; i < o->nwls; i++)
		ncells += o->nthreads * (o->wls[i].ops->uses_lazy_mm ? o->nlazy : o->nlocks);
	lab_topology_init();
	lab_context_get(&ctx);
	if (o->resume) {
		if (lab_resume_load(&done_cells, o->csv_path, o->iterations, &ctx, lab_pin_name(o->pin), err,
				    sizeof(err))) {
			fprintf(stderr, "rwlab: %s\n", err);
			return 2;
		}
		for (int wi = 0; wi < o->nwls; wi++)
			for (int ti = 0; ti < o->nthreads; ti++)
				for (int li = 0; li < (o->wls[wi].ops->uses_lazy_mm ? o->nlazy : o->nlocks); li++)
					ncells -= lab_resume_has(&done_cells, variant_label(o, &o->wls[wi], li),
								 o->wls[wi].label, o->threads[ti]);
	}
	if (done_cells.exists ? lab_csv_open_append(&csv, o->csv_path, done_cells.keep_len, err, sizeof(err)) :
				lab_csv_open(&csv, o->csv_path, err, sizeof(err))) {
		fprintf(stderr, "rwlab: %s\n", err);
		lab_resume_free(&done_cells);
		return 2;	/* before any measurement */
	}
	if (done_cells.exists) {
		fprintf(stderr, "rwlab: resuming %s: %d finished cells kept, %d of this matrix to run\n",
			o->csv_path, done_cells.ncells, ncells);
		if (done_cells.dropped_rows || done_cells.torn_line)
			fprintf(stderr, "rwlab: cut off the unfinished last cell (%d whole rows%s) to run it again\n",
				done_cells.dropped_rows, done_cells.torn_line ? " and a torn line" : "");
	}
	for (int i = 0; i < o->nthreads; i++)
		max_threads = o->threads[i] > max_threads ? o->threads[i] : max_threads;

	/* Warnings: the measurement is not trustworthy when... */
	if (lab_context_untrusted(&ctx, why, sizeof(why)))
		fprintf(stderr, "WARNING: %s\n", why);
	if (o->pin == LAB_PIN_NONE)
		fprintf(stderr, "WARNING: threads are not pinned (--pin none): expect more variance\n");
	if (max_threads > ctx.cpus)
		fprintf(stderr,
			"WARNING: up to %d threads on %d CPUs: cells above %d threads are oversubscribed "
			"(sleeping vs spinning under preemption), not scaling\n",
			max_threads, ctx.cpus, ctx.cpus);

	lab_csv_run_id(run_id, sizeof(run_id));
	lab_csv_row_suffix(&suffix, &ctx, lab_pin_name(o->pin));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	lab_interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	for (int wi = 0; wi < o->nwls && !lab_interrupted; wi++) {
		const struct lab_workload_conf *wl = &o->wls[wi];

		for (int ti = 0; ti < o->nthreads && !lab_interrupted; ti++) {
			int n = o->threads[ti];
			/* Lazy-mm workloads: the variants are the -m schemes. */
			int nvar = wl->ops->uses_lazy_mm ? o->nlazy : o->nlocks;
			int *pu = calloc((size_t)n, sizeof(int));
			struct lab_worker *workers = aligned_alloc(LAB_CACHELINE, (size_t)n * sizeof(*workers));

			if (!pu || !workers) {
				fprintf(stderr, "rwlab: out of memory for %d threads\n", n);
				free(pu);
				free(workers);
				status = 1;
				continue;
			}
			lab_topology_plan(o->pin, n, pu);

			for (int li = 0; li < nvar && !lab_interrupted; li++) {
				struct lab_cell *cell = aligned_alloc(LAB_CACHELINE, sizeof(*cell));
				struct lab_buf rows = { 0 };
				struct run_ctx rc = { 0 };
				double hv[1024];
				int nh = 0, first = o->settings.warmup_ns && wl->ops->kind == LAB_WL_WORK ? -1 : 0;
				bool failed = false, bind_warned = false;
				const char *vlabel;

				if (lab_resume_has(&done_cells, variant_label(o, wl, li), wl->label, n)) {
					free(cell);
					continue;	/* finished in the file we resume */
				}
				done++;
				memset(cell, 0, sizeof(*cell));
				if (wl->ops->uses_lazy_mm)
					cell->lazy_mm = &o->lazy[li];
				else
					cell->lock = &o->locks[li];
				vlabel = cell->lazy_mm ? cell->lazy_mm->label : cell->lock->label;
				cell->wl = wl;
				cell->run = &o->settings;
				cell->nthreads = n;
				rc.cell = cell;
				rc.ops = wl->ops;
				rc.workers = workers;
				rc.pu = pu;
				if (wl->ops->setup(&rc.state, cell, err, sizeof(err))) {
					fprintf(stderr, "%srwlab: %s\n", tty ? "\n" : "", err);
					status = 1;
					free(cell);
					continue;
				}
				for (int it = first; it < o->iterations; it++) {
					struct iter_out io;
					struct lab_iter li_ = { 0 };
					struct lab_events ev = { 0 };
					struct lab_buf prefix = { 0 };
					struct emit_ctx ec;
					struct lab_sink sink = { emit_row, &ec };
					double elapsed = (double)(lab_host_clock_ns() - t_start) / 1e9, eta;
					char etas[32];
					int r;

					if (!o->quiet && (tty || it == first)) {
						double per_cell = done > 1 ? elapsed / (done - 1) :
							(double)(o->settings.warmup_ns + o->settings.duration_ns) / 1e9 *
								o->iterations;
						eta = per_cell * (ncells - done + 1);
						fmt_eta(etas, sizeof(etas), eta);
						fprintf(stderr, "%s[cell %d/%d] %s %s t=%d %s %d/%d ETA %s%s%s",
							tty ? "\r\033[K" : "", done, ncells, vlabel, wl->label,
							n, it < 0 ? "warm-up" : "iter", it < 0 ? 0 : it + 1, o->iterations,
							etas, lab_sim_progress(), tty ? "" : "\n");
					}
					cell->iteration = it;
					if (wl->ops->prepare && (r = wl->ops->prepare(rc.state, cell))) {
						fprintf(stderr, "%srwlab: %s: prepare failed: %s\n", tty ? "\n" : "",
							wl->label, strerror(-r));
						failed = true;
						break;
					}
					r = run_iteration(&rc, n, &io);
					if (r) {
						if (r != -EINTR) {
							fprintf(stderr, "%srwlab: %s t=%d: %s\n", tty ? "\n" : "",
								wl->label, n, strerror(-r));
							status = 1;
						}
						failed = true;
						break;
					}
					if (io.bind_failed && !bind_warned) {
						fprintf(stderr, "%sWARNING: could not pin some threads of %s t=%d\n",
							tty ? "\n" : "", wl->label, n);
						bind_warned = true;
					}
					if (it < 0)
						continue;	/* warm-up pass */
					lab_csv_row_prefix(&prefix, run_id, vlabel, wl->label, n, it);
					ec = (struct emit_ctx){ &rows, prefix.p, suffix.p, wl->ops->headline, 0, false };

					li_.cell = cell;
					li_.workers = workers;
					li_.nthreads = n;
					li_.wall_s = io.wall_s;
					li_.user_s = io.user_s;
					li_.sys_s = io.sys_s;
					wl->ops->metrics(rc.state, &li_, &sink);
					lab_emit(&sink, "wall_s", io.wall_s, "s", LAB_BETTER_NONE);
					lab_emit(&sink, "user_s", io.user_s, "s", LAB_BETTER_NONE);
					lab_emit(&sink, "sys_s", io.sys_s, "s", LAB_BETTER_NONE);
					lab_emit(&sink, "nvcsw", (double)io.nvcsw, "count", LAB_BETTER_NONE);
					lab_emit(&sink, "nivcsw", (double)io.nivcsw, "count", LAB_BETTER_NONE);
					if (LAB_EVENT_COUNTS) {
						for (int i = 0; i < n; i++)
							lab_events_accumulate(&ev, &workers[i].events);
						for (int e = 0; e < LAB_EV_NR; e++) {
							char name[96];

							snprintf(name, sizeof(name), "event.%s", lab_event_names[e]);
							lab_emit(&sink, name, (double)ev.count[e], "count", LAB_BETTER_NONE);
						}
					}
					if (ec.have_headline && nh < (int)LAB_ARRAY_SIZE(hv))
						hv[nh++] = ec.headline_value;
					lab_buf_free(&prefix);
				}
				wl->ops->teardown(rc.state);
				if (!failed && rows.len) {
					int r = lab_csv_append(&csv, rows.p, rows.len);

					if (r) {
						fprintf(stderr, "%srwlab: writing %s: %s\n", tty ? "\n" : "", csv.path,
							strerror(-r));
						status = 1;
					}
				}
				if (!failed && !o->quiet && nh) {
					char head[64];
					double sd = nh > 1 ? lab_stddev(hv, nh) : 0, m = lab_amean(hv, nh);

					snprintf(head, sizeof(head), "%.*s", (int)strcspn(wl->ops->headline, ","),
						 wl->ops->headline);
					fprintf(stderr, "%s", tty ? "\r\033[K" : "");
					printf("%-28s %-24s t=%-4d %s %14.6g  +- %5.2f%%\n", vlabel, wl->label,
					       n, head, m, m ? 100 * sd / m : 0);
					fflush(stdout);
				}
				lab_buf_free(&rows);
				free(cell);
			}
			free(pu);
			free(workers);
		}
	}
	if (!o->quiet && tty)
		fprintf(stderr, "\r\033[K");
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	lab_csv_close(&csv);
	lab_buf_free(&suffix);
	lab_resume_free(&done_cells);
	if (lab_interrupted) {
		fprintf(stderr, "rwlab: interrupted; the finished cells are in %s\n", o->csv_path);
		return 130;
	}
	return status;
}
