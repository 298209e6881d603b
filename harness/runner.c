/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runner as a pipeline:
 *
 *   lab_run()           open the CSV, warn, install the signal handlers
 *     plan_cells()      the cells in run order: of --shard I/N's blocks only (shard.h),
 *                       minus those --resume keeps
 *     run_cell_processes()  under --sim, in the run's process: each cell in an rwlab-sim
 *                       of its own, -j at once, rows written in plan order (sim_cell.h);
 *                       in each of those processes, as natively:
 *     run_cell()        setup, the iterations, teardown, write the rows
 *       cell_iteration()  prepare, run_iteration(), emit_rows()
 *
 * Failure channel: a failure anywhere in a cell (setup, prepare, thread
 * creation, a worker's lab_worker_fail(), a metrics() lab_sink_fail(), a
 * must-be-zero metric that is not zero, writing the rows) fails that cell:
 * the message names the cell, the other cells still run and lab_run()
 * returns 1 naming every failed cell at the end. Its rows are not written,
 * except after a must-be-zero count: then every iteration runs, and the rows
 * are written with a cell_failed row in each bad iteration, which report
 * reads as "leave this cell out".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "barrier.h"
#include "cmds.h"
#include "context.h"
#include "csv.h"
#include "fault.h"
#include "mm.h"
#include "format.h"
#include "resume.h"
#include "runner.h"
#include "sim_cell.h"
#include "sim_cmd.h"
#if LAB_SIM
#include "sim.h"
#endif
#include "stats.h"
#include "wait.h"

/* rwlab's own memory in a run, beside its cells': measured 5.4 MB of RSS; the CSV buffers, the report. */
#define LAB_FOOTPRINT_BASE (16ul << 20)

static volatile sig_atomic_t lab_interrupted;
static volatile sig_atomic_t lab_cells_parent;	/* under --sim: the run's process, which runs no cell itself */

static void on_signal(int sig)
{
	(void)sig;
	lab_interrupted = 1;
#if LAB_SIM
	if (!lab_cells_parent)
		alarm(2);	/* on_sim_stuck() if the simulation does not reach a stopping point */
#endif
}

#if LAB_SIM
/*
 * The simulated run notices an interrupt at its next harness check in
 * simulated time; a run whose tasks make no progress in simulated time (a
 * loop of uncharged work) never gets there. Two seconds of host time after
 * SIGINT/SIGTERM it stops anyway: the cells already written stay in the CSV.
 */
static void on_sim_stuck(int sig)
{
	static const char msg[] = "rwlab run: interrupted; the simulated run reached no stopping point in 2 s "
				  "of host time, so it stops here (finished cells are in the CSV)\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(130);
	_exit(130);
}
#endif

/*
 * Metrics that count wrong data: any non-zero value fails the cell (the
 * numbers beside it are not measurements of a correct run). A workload that
 * adds such a counter adds its name here.
 */
static const char *const must_be_zero[] = {
	"tree_mismatch", "errors", "task_errors", "failed_faults", "alloc_failures", NULL
};

/* One cell of the plan: a workload, a thread count, a variant (lock or lazy-mm scheme). */
struct cell_plan {
	const struct lab_workload_conf *wl;
	int nthreads;
	int vi;
};

struct runner {
	const struct lab_run_opts *o;
	struct lab_csv_writer csv;
	struct lab_resume resume;
	char host[256];			/* every row's host (the context line has the rest) */
	struct lab_buf failed;		/* "VARIANT WORKLOAD t=N, ..." */
	struct lab_buf skipped;		/* the first cell skip_unsafe() left out */
	int nskipped;
	char run_id[64];
	struct cell_plan *plan;
	int nplan, nfailed;
	int ended;			/* cells that ended, written or failed: an interrupted run's line */
	int written;			/* those of them whose rows are in the CSV (a failed one's marked cell_failed) */
	int entry;			/* iterations started so far (warm-up passes too) */
	/*
	 * The ETA (progress()), per workload of o->wls: its iterations not yet
	 * started (left), the host seconds those finished took (spent) and
	 * how many they are (done), a failed one left out; the iteration in
	 * flight: its workload (-1: none yet, or it failed) and its start.
	 * Arrays of struct runner (on lab_run()'s stack), not the heap: under
	 * --sim a simulated object's lines are its host addresses, and a heap
	 * allocation made before the cell moves where the workload's objects
	 * land (three callocs here moved gitcheckout's simulated times by 1e-5
	 * at 40 threads: tests/sim/golden.sh, gitcheckout-ivb40).
	 */
	int left[LAB_MAX_WLS], done[LAB_MAX_WLS];	/* in place, not calloc'd (above) */
	double spent[LAB_MAX_WLS];
	int cur_wl;
	uint64_t t_entry;
	uint64_t t_start;
	bool tty;
	FILE *summary;			/* where the per-cell lines go */
	int cpus;			/* the CPUs the run may use (the load-average warning) */
	int online;			/* ... of the machine's */
	bool restricted;		/* fewer than those: the load warning counts the tasks on cpuset's */
	cpu_set_t cpuset;
	const struct lab_context *ctx;	/* the run's context (its shard and plan columns) */
	int loaded;			/* cells that started with the load above the CPUs, others runnable (warned once) */
	double load_max;		/* ... the highest such load */
	int gone;			/* the reader of -o's FIFO or pipe went away at this cell (1-based): run stopped */
	int unmade;			/* -o could not be made at this cell's rows (1-based; nplan + 1: at the end) */
	char *unmade_why;		/* ... why (lab_csv_open_now()'s line) */
	int unwritten;			/* finished cells whose write Ctrl-C gave up (a reader that stalled) */
	int jobs;			/* under --sim: cells' processes at once (-j, or what fits memory) */
};

/* The state of the cell in flight. */
struct cell_run {
	struct lab_cell *cell;
	const struct lab_workload_ops *ops;
	void *state;
	struct lab_worker *workers;
	int *pu;
	const char *vlabel;
	int index;			/* 1-based, in the plan */
	bool open;			/* set up: teardown() is owed */
	struct lab_buf rows;
	double hv[1024];		/* headline value per iteration */
	int nh;
	enum lab_better hbetter;	/* the headline's direction: which aggregate the line prints */
	bool bind_warned, load_warned;
	char why[512];			/* the failure, when the cell fails */
	char bad_why[512];		/* the first must-be-zero count that was not */
	int bad_data;			/* such counts so far: the cell runs on, its rows marked */
	struct lab_start start;		/* the start protocol of one iteration (barrier.h) */
	uint32_t bind_failed;
	bool inject_worker_fail;	/* RWLAB_FAULT_INJECT=worker: worker 0 fails */
};

static void cell_fail(struct cell_run *cr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cell_fail(struct cell_run *cr, const char *fmt, ...)
{
	va_list ap;

	if (cr->why[0])
		return;		/* the first cause is the one to report */
	va_start(ap, fmt);
	vsnprintf(cr->why, sizeof(cr->why), fmt, ap);
	va_end(ap);
}

/* The CSV variant label of variant @vi: a lock, or a lazy-mm scheme for lazy-mm workloads. */
static const char *variant_label(const struct lab_run_opts *o, const struct lab_workload_conf *wl, int vi)
{
	return wl->ops->uses_lazy_mm ? o->lazy[vi].label : o->locks[vi].label;
}

/* ---- plan ------------------------------------------------------------------- */

/*
 * A lock variant that claims no exclusion (null) on a workload whose data the
 * lock protects would measure a corrupted run: such cells are not planned.
 * Says so once, in one line. Returns true when cell (@wl, @vi) is skipped.
 */
static bool skip_unsafe(struct runner *r, const struct lab_workload_conf *wl, int vi)
{
	const struct lab_rwsem_conf *l = &r->o->locks[vi];

	if (lab_plan_runs(r->o, (int)(wl - r->o->wls), vi))
		return false;
	if (!r->skipped.len)
		lab_buf_printf(&r->skipped, "%s on %s", l->label, wl->label);
	r->nskipped++;
	return true;
}

/*
 * The cells in run order (workload -> thread count -> variant): only the
 * comparison blocks of --shard I/N (shard.h), minus those --resume keeps.
 */
static int plan_cells(struct runner *r)
{
	const struct lab_run_opts *o = r->o;
	int cap = 0;

	for (int wi = 0; wi < o->nwls; wi++)
		cap += o->nthreads * (o->wls[wi].ops->uses_lazy_mm ? o->nlazy : o->nlocks);
	r->plan = calloc((size_t)(cap ? cap : 1), sizeof(*r->plan));
	if (!r->plan)
		return -ENOMEM;
	r->cur_wl = -1;
	for (int wi = 0; wi < o->nwls; wi++) {
		const struct lab_workload_conf *wl = &o->wls[wi];
		int nvar = wl->ops->uses_lazy_mm ? o->nlazy : o->nlocks;

		for (int ti = 0; ti < o->nthreads; ti++)
			for (int vi = 0; vi < nvar && lab_shard_has_block(o, wi, ti); vi++) {
				if (lab_resume_has(&r->resume, variant_label(o, wl, vi), wl->label, o->threads[ti]))
					continue;	/* finished in the file we resume */
				if (skip_unsafe(r, wl, vi))
					continue;
				r->plan[r->nplan++] = (struct cell_plan){ wl, o->threads[ti], vi };
				r->left[wi] += o->iterations + (o->settings.warmup_ns && wl->ops->kind == LAB_WL_WORK);
			}
	}
	return 0;
}

/* ---- one iteration on fresh threads ------------------------------------------ */

struct worker_arg {
	struct cell_run *cr;
	int i;
};

static void *worker_main(void *arg)
{
	struct worker_arg *a = arg;
	struct cell_run *cr = a->cr;
	struct lab_worker *w = &cr->workers[a->i];

	lab_current();
	if (lab_topology_bind_self(cr->pu[a->i]))
		atomic_fetch_add_relaxed(&cr->bind_failed, 1);
	w->phase_seen = LAB_PHASE_WARMUP;
	lab_events_reset();

	if (!lab_start_arrive(&cr->start))
		return NULL;		/* released without a window */

	w->t_start = lab_clock_ns();
	if (cr->ops->kind == LAB_WL_WORK) {
		lab_worker_reset(w);
		w->phase_seen = LAB_PHASE_MEASURE;
	}
	if (a->i == 0 && cr->inject_worker_fail)
		lab_worker_fail(w, "injected failure (RWLAB_FAULT_INJECT=worker)");
	else
		cr->ops->worker(cr->state, w);
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
	double load_start, load_end;	/* 1-minute load average around the iteration */
	long nvcsw, nivcsw;
	uint64_t t0, t1;
	struct rusage ru0, ru1;
};

/*
 * Create @n workers with SIGINT/SIGTERM blocked (the harness thread takes
 * them), each waiting in lab_start_arrive(). Returns how many were created; on a
 * failure the reason is in cr->why.
 */
static int spawn_workers(struct cell_run *cr, int n, pthread_t *tids, struct worker_arg *args)
{
	const struct lab_run_settings *s = cr->cell->run;
	sigset_t block, old;
	int created = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (int i = 0; i < n; i++) {
		struct lab_worker *w = &cr->workers[i];
		int err;

		w->id = i;
		w->cpu = cr->pu[i];
		w->cell = cr->cell;
		w->rng = (s->seed + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(i + 1) * 0xbf58476d1ce4e5b9ull;
		if (!w->rng)
			w->rng = 1;
		args[i] = (struct worker_arg){ cr, i };
		/* lab_thread_create() returns the error, as pthread_create() does (wait.h: a simulated task under --sim). */
		err = i == n - 1 && lab_fault_inject("pthread_create", cr->vlabel) ? EAGAIN :
			lab_thread_create(&tids[i], worker_main, &args[i]);
		if (err) {
			if (LAB_SIM && err == EAGAIN)
				cell_fail(cr, "creating worker thread %d of %d: no simulated task free (at most %d at once, the harness's own and the workload's helper threads included) or no memory for its stack",
					  i + 1, n, LAB_MAX_TASKS);
			else
				cell_fail(cr, "creating worker thread %d of %d: %s", i + 1, n, strerror(err));
			break;
		}
		created++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return created;
}

/* The timed window: --warmup, then --duration, then stop. Returns false if interrupted. */
static bool timed_window(struct cell_run *cr, struct iter_out *io)
{
	const struct lab_run_settings *s = cr->cell->run;
	bool ok = true;

	if (s->warmup_ns) {
		ok = sleep_interruptible(s->warmup_ns);
		getrusage(RUSAGE_SELF, &io->ru0);
		io->t0 = lab_clock_ns();
		WRITE_ONCE(cr->cell->phase, LAB_PHASE_MEASURE);
	}
	ok = ok && sleep_interruptible(s->duration_ns);
	WRITE_ONCE(cr->cell->phase, LAB_PHASE_STOP);
	io->t1 = lab_clock_ns();
	getrusage(RUSAGE_SELF, &io->ru1);
	return ok;
}

/*
 * One iteration: spawn, barrier, release, window, join. Returns 0, -EINTR if
 * interrupted, or -1 with cr->why set (the cell fails).
 */
static int run_iteration(struct cell_run *cr, int n, struct iter_out *io)
{
	const struct lab_run_settings *s = cr->cell->run;
	struct worker_arg *args = calloc((size_t)n, sizeof(*args));
	pthread_t *tids = calloc((size_t)n, sizeof(*tids));
	int created;
	bool ok = true;

	if (!args || !tids) {
		free(args);
		free(tids);
		cell_fail(cr, "out of memory for %d threads", n);
		return -1;
	}
	lab_start_init(&cr->start);
	cr->bind_failed = 0;
	cr->inject_worker_fail = lab_fault_inject("worker", cr->vlabel);
	WRITE_ONCE(cr->cell->phase, cr->ops->kind == LAB_WL_TIMED && s->warmup_ns ? LAB_PHASE_WARMUP
										     : LAB_PHASE_MEASURE);
	memset(cr->workers, 0, (size_t)n * sizeof(*cr->workers));
	created = spawn_workers(cr, n, tids, args);

	/* Every worker created is pinned and waiting; fewer than n: release them without running. */
	lab_start_wait_ready(&cr->start, (unsigned int)created, -1);
	getrusage(RUSAGE_SELF, &io->ru0);
	io->t0 = lab_clock_ns();
	lab_start_release(&cr->start, created < n);

	if (!lab_start_aborted(&cr->start) && cr->ops->kind == LAB_WL_TIMED)
		ok = timed_window(cr, io);
	for (int i = 0; i < created; i++)
		lab_thread_join(tids[i], NULL);
	if (cr->ops->kind == LAB_WL_WORK) {
		getrusage(RUSAGE_SELF, &io->ru1);
		io->t1 = 0;
		for (int i = 0; i < n; i++)
			io->t1 = cr->workers[i].t_end > io->t1 ? cr->workers[i].t_end : io->t1;
		ok = !lab_interrupted;
	}
	free(args);
	free(tids);
	if (lab_start_aborted(&cr->start))
		return -1;
	if (!ok)
		return -EINTR;
	for (int i = 0; i < n; i++)
		if (cr->workers[i].failed)
			cell_fail(cr, "worker %d: %s", i, cr->workers[i].failed);
	io->wall_s = (double)(io->t1 - io->t0) / 1e9;
	io->user_s = tv_s(io->ru1.ru_utime) - tv_s(io->ru0.ru_utime);
	io->sys_s = tv_s(io->ru1.ru_stime) - tv_s(io->ru0.ru_stime);
	io->nvcsw = io->ru1.ru_nvcsw - io->ru0.ru_nvcsw;
	io->nivcsw = io->ru1.ru_nivcsw - io->ru0.ru_nivcsw;
	return cr->why[0] ? -1 : 0;
}

/* ---- rows ------------------------------------------------------------------ */

struct emit_ctx {
	struct cell_run *cr;
	const char *prefix;		/* schema..iteration, with trailing comma */
	const char *host;		/* the host column */
	const char *headline;		/* workload headline metrics, comma separated */
	double headline_value;		/* first headline metric of this iteration */
	bool have_headline;
	enum lab_better headline_better;
	int bad;			/* must-be-zero metrics that were not, this iteration */
};

static const char *better_name(enum lab_better b)
{
	return b == LAB_BETTER_HIGHER ? "higher" : b == LAB_BETTER_LOWER ? "lower" : "none";
}

/* Returns true when @metric must be zero and is not (counted in cr->bad_data). */
static bool check_must_be_zero(struct cell_run *cr, const char *metric, double value)
{
	for (int i = 0; must_be_zero[i]; i++) {
		if (strcmp(metric, must_be_zero[i]) || value == 0)
			continue;
		if (!cr->bad_data++)
			snprintf(cr->bad_why, sizeof(cr->bad_why),
				 "%s = %g in iteration %d (must be 0: the data is wrong; its rows are marked cell_failed)",
				 metric, value, cr->cell->iteration + 1);
		return true;
	}
	return false;
}

static void emit_row(void *p, const char *metric, double value, const char *unit, enum lab_better better)
{
	struct emit_ctx *e = p;
	struct lab_buf *b = &e->cr->rows;

	lab_buf_printf(b, "%s", e->prefix);
	lab_csv_row_rest(b, metric, value, unit, e->host, better_name(better));
	e->bad += check_must_be_zero(e->cr, metric, value);
	if (!e->have_headline && e->headline) {
		size_t ml = strlen(metric);

		if (!strncmp(e->headline, metric, ml) && (e->headline[ml] == 0 || e->headline[ml] == ',')) {
			e->headline_value = value;
			e->headline_better = better;
			e->have_headline = true;
		}
	}
}

static void emit_fail(void *p, const char *why)
{
	struct emit_ctx *e = p;

	cell_fail(e->cr, "metrics: %s", why);
}

/*
 * The first byte of a row that drop_uncounted() cuts out: the row of a lock
 * event the cell's variant does not count. Such rows are formatted as every
 * event's row was before runs wrote only the counted ones, and cut out when
 * the cell's rows are written: the rows' buffer then grows (reallocs) as it
 * did, so the heap that a simulated cell's later objects come from, whose
 * addresses are their cache lines, stays the same (tests/sim/golden.sh). A
 * row otherwise starts with its schema number.
 */
#define ROW_UNCOUNTED '\x7f'

/*
 * The lock events, summed over the cell's threads: a row for each one its
 * variant (or lazy-mm scheme) counts, none for another's (events.h).
 */
static void emit_events(struct cell_run *cr, struct lab_sink *sink)
{
	struct lab_events ev = { 0 };
	struct lab_event_set set;

	if (cr->cell->lazy_mm)
		lab_lazy_mm_conf_events(cr->cell->lazy_mm, &set);
	else
		lab_rwsem_conf_events(cr->cell->lock, &set);
	for (int i = 0; i < cr->cell->nthreads; i++)
		lab_events_accumulate(&ev, &cr->workers[i].events);
	for (int e = 0; e < LAB_EV_NR; e++) {
		size_t at = cr->rows.len;
		char name[96];

		snprintf(name, sizeof(name), "event.%s", lab_event_names[e]);
		lab_emit(sink, name, (double)ev.count[e], "count", LAB_BETTER_NONE);
		if (!set.has[e] && cr->rows.len > at)
			cr->rows.p[at] = ROW_UNCOUNTED;
	}
}

/* Cut the rows that start with ROW_UNCOUNTED out of @b, in place: no allocation (see there). */
static void drop_uncounted(struct lab_buf *b)
{
	size_t out = 0, in = 0;

	while (in < b->len) {
		const char *nl = memchr(b->p + in, '\n', b->len - in);
		size_t end = nl ? (size_t)(nl - b->p) + 1 : b->len;

		if (b->p[in] != ROW_UNCOUNTED) {
			memmove(b->p + out, b->p + in, end - in);
			out += end - in;
		}
		in = end;
	}
	b->len = out;
}

/* The workload's metrics, then the harness's, as rows of iteration @it. */
static void emit_rows(struct runner *r, struct cell_run *cr, const struct iter_out *io, int it)
{
	struct lab_buf prefix = { 0 };
	struct emit_ctx ec;
	struct lab_sink sink = { emit_row, &ec, emit_fail };
	struct lab_iter li = { cr->cell, cr->workers, cr->cell->nthreads, io->wall_s, io->user_s, io->sys_s };
	int n = cr->cell->nthreads;

	lab_csv_row_prefix(&prefix, r->run_id, cr->vlabel, cr->cell->wl->label, n, it);
	ec = (struct emit_ctx){ cr, prefix.p, r->host, cr->ops->headline, 0, false, LAB_BETTER_NONE, 0 };
	cr->ops->metrics(cr->state, &li, &sink);
	if (lab_fault_inject("must_be_zero", cr->vlabel))	/* a count that must be 0 and is not */
		lab_emit(&sink, "errors", 1, "count", LAB_BETTER_NONE);
	lab_emit(&sink, "position", r->entry, "index", LAB_BETTER_NONE);	/* in the run's order, from 1 */
	if (!LAB_SIM) {	/* the host's load does not touch simulated time, and would break one seed's byte-identical CSV */
		lab_emit(&sink, "loadavg_start", io->load_start, "load", LAB_BETTER_NONE);
		lab_emit(&sink, "loadavg_end", io->load_end, "load", LAB_BETTER_NONE);
	}
	lab_emit(&sink, "wall_s", io->wall_s, "s", LAB_BETTER_NONE);
	lab_emit(&sink, "user_s", io->user_s, "s", LAB_BETTER_NONE);
	lab_emit(&sink, "sys_s", io->sys_s, "s", LAB_BETTER_NONE);
	lab_emit(&sink, "nvcsw", (double)io->nvcsw, "count", LAB_BETTER_NONE);
	lab_emit(&sink, "nivcsw", (double)io->nivcsw, "count", LAB_BETTER_NONE);
	if (LAB_EVENT_COUNTS)
		emit_events(cr, &sink);
	/* The mark report reads: this iteration's data is wrong (report leaves the cell out). */
	if (ec.bad)
		lab_emit(&sink, "cell_failed", ec.bad, "count", LAB_BETTER_NONE);
	if (ec.have_headline && cr->nh < (int)LAB_ARRAY_SIZE(cr->hv)) {
		cr->hv[cr->nh++] = ec.headline_value;
		cr->hbetter = ec.headline_better;
	}
	lab_buf_free(&prefix);
}

/* ---- progress --------------------------------------------------------------- */

static void fmt_eta(char *buf, size_t len, double s)
{
	if (s < 0 || !isfinite(s))
		snprintf(buf, len, "?");
	else if (s >= 3600)
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	else
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
}

double lab_cell_work(const struct lab_run_opts *o, const struct lab_workload_conf *wl, int nthreads)
{
	double per_iteration = wl->ops->work_split ? 1 : nthreads;

	return per_iteration * (o->iterations + (o->settings.warmup_ns && wl->ops->kind == LAB_WL_WORK));
}

double lab_eta_left(double elapsed, double done, double left)
{
	return done > 0 ? elapsed / done * left : -1;
}

/* An iteration of workload @wi starts now: the one in flight before it has finished. */
static void eta_start(struct runner *r, int wi)
{
	uint64_t now = lab_host_clock_ns();

	if (r->cur_wl >= 0) {
		r->spent[r->cur_wl] += (double)(now - r->t_entry) / 1e9;
		r->done[r->cur_wl]++;
	}
	r->cur_wl = wi;
	r->t_entry = now;
	r->left[wi]--;
}

/*
 * @n iterations of workload @wi will not run (their cell failed); @failed:
 * the iteration in flight is the one that failed, whose time (an error at
 * once, or a stall) is no measure of the workload's, so not in its mean.
 */
static void eta_drop(struct runner *r, int wi, int n, bool failed)
{
	r->left[wi] -= n > 0 ? n : 0;
	if (failed && r->cur_wl == wi)
		r->cur_wl = -1;
}

/*
 * The host seconds the iterations not yet finished will take, the one in
 * flight whole, each at its workload's mean so far. A timed workload's
 * iteration none of whose has finished is its window (--warmup and -d) and
 * the mean overhead of the timed iterations that have; a work workload's
 * (pft, reaim, gitcheckout) has no length to go by before one has run:
 * those iterations are counted in *@unknown instead, their workloads' names
 * in @names ("pft", "pft/reaim").
 */
static double eta_s(const struct runner *r, int *unknown, char *names, size_t len)
{
	const struct lab_run_opts *o = r->o;
	double window = (double)(o->settings.warmup_ns + o->settings.duration_ns) / 1e9, over = 0, s = 0;
	int ntimed = 0;

	for (int wi = 0; wi < o->nwls; wi++)
		if (o->wls[wi].ops->kind == LAB_WL_TIMED && r->done[wi])
			over += r->spent[wi] - r->done[wi] * window, ntimed += r->done[wi];
	over = ntimed ? over / ntimed : 0;
	*unknown = 0;
	names[0] = 0;
	for (int wi = 0; wi < o->nwls; wi++) {
		int n = r->left[wi] + (wi == r->cur_wl);

		if (n <= 0)
			continue;
		if (r->done[wi])
			s += n * r->spent[wi] / r->done[wi];
		else if (o->wls[wi].ops->kind == LAB_WL_TIMED)
			s += n * (window + over);
		else {
			bool named = false;

			for (int wj = 0; wj < wi; wj++)	/* pft:size_mb=64 after pft:size_mb=256: one "pft" */
				named |= o->wls[wj].ops == o->wls[wi].ops && !r->done[wj] &&
					 r->left[wj] + (wj == r->cur_wl) > 0;
			*unknown += n;
			if (!named)
				snprintf(names + strlen(names), len - strlen(names), "%s%s", *names ? "/" : "",
					 o->wls[wi].ops->name);
		}
	}
	return s;
}

static void progress(const struct runner *r, const struct cell_run *cr, int it, int first)
{
	const struct lab_run_opts *o = r->o;
	char eta[32], names[128], more[192] = "";
	double s;
	int unknown;

	if (o->quiet || (!r->tty && it != first))
		return;
	s = eta_s(r, &unknown, names, sizeof(names));
	fmt_eta(eta, sizeof(eta), unknown && !s ? -1 : s);
	if (unknown)	/* "ETA 1m15s + 84 pft iterations", "ETA ? (84 pft iterations)" */
		snprintf(more, sizeof(more), s ? " + %d %s iteration%s" : " (%d %s iteration%s)", unknown, names,
			 unknown == 1 ? "" : "s");
	fprintf(stderr, "%s[cell %d/%d] %s %s t=%d %s %d/%d ETA %s%s%s%s", r->tty ? "\r\033[K" : "", cr->index,
		r->nplan, cr->vlabel, cr->cell->wl->label, cr->cell->nthreads, it < 0 ? "warm-up" : "iter",
		it < 0 ? 0 : it + 1, o->iterations, eta, more, lab_sim_progress(), r->tty ? "" : "\n");
}

/* The per-cell line: the headline's labelled aggregate, as the default report table prints it. */
static void cell_summary(const struct runner *r, const struct cell_run *cr)
{
	if (r->o->quiet || !cr->nh)
		return;
	fprintf(stderr, "%s", r->tty ? "\r\033[K" : "");
	/* stdout, unless the CSV goes there (-o -) */
	lab_fmt_cell_line(r->summary, cr->vlabel, cr->cell->wl->label, cr->cell->nthreads, cr->ops->headline,
			  cr->hv, cr->nh, cr->hbetter, lab_sim_machine_name());
	fflush(r->summary);
}

/* ---- one cell ---------------------------------------------------------------- */

/*
 * The state (field 3), num_threads (field 20) and processor (field 39: its
 * runqueue's CPU) of the task whose stat file is @name under directory @dfd
 * (proc(5)). Returns false when the task is gone.
 */
static bool task_stat(int dfd, const char *name, char *state, int *nthreads, int *cpu)
{
	char buf[1024];
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	const char *s;

	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return false;
	buf[len] = 0;
	s = strrchr(buf, ')');	/* the end of comm, which may hold spaces and parentheses */
	if (!s || s[1] != ' ')
		return false;
	*state = s[2];
	for (int f = 3; f < 39 && s; f++) {	/* s: the space before field f */
		s = strchr(s + 1, ' ');
		if (s && f == 20)
			*nthreads = atoi(s + 1);
	}
	return s && (s = strchr(s + 1, ' ')) && sscanf(s + 1, "%d", cpu) == 1;
}

static bool runnable_in(const cpu_set_t *set, char state, int cpu)
{
	return state == 'R' && cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, set);
}

/*
 * The tasks of other processes runnable now (state R) on the CPUs of @set,
 * from /proc: a process of one thread by its own stat file, one of more by
 * each of its tasks'. -1 when /proc is unreadable.
 */
static int runnable_on(const cpu_set_t *set)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;
	pid_t self = getpid();
	int n = 0;

	if (!proc)
		return -1;
	while ((p = readdir(proc))) {
		char path[sizeof(p->d_name) + 16], state;
		int nthreads = 0, cpu, fd;
		struct dirent *t;
		DIR *task;

		if (p->d_name[0] < '1' || p->d_name[0] > '9' || atoi(p->d_name) == self)
			continue;
		snprintf(path, sizeof(path), "%s/stat", p->d_name);
		if (!task_stat(dirfd(proc), path, &state, &nthreads, &cpu))
			continue;
		if (nthreads == 1) {
			n += runnable_in(set, state, cpu);
			continue;
		}
		snprintf(path, sizeof(path), "%s/task", p->d_name);
		fd = openat(dirfd(proc), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || !(task = fdopendir(fd))) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		while ((t = readdir(task)))
			if (t->d_name[0] >= '1' && t->d_name[0] <= '9') {
				snprintf(path, sizeof(path), "%s/stat", t->d_name);
				n += task_stat(dirfd(task), path, &state, &nthreads, &cpu) && runnable_in(set, state, cpu);
			}
		closedir(task);
	}
	closedir(proc);
	return n;
}

/*
 * Other tasks runnable now on the CPUs this run may use: /proc/stat's
 * procs_running (the runnable tasks of the whole machine, this thread among
 * them) less this thread; on a run restricted to some CPUs (r->cpuset:
 * taskset, a cpuset) with others runnable somewhere, the tasks of other
 * processes runnable on its CPUs (runnable_on(): a task on another CPU does
 * not compete with it). The median of five reads 2 ms apart (of three when
 * they are 0: the median is then 0 whatever the rest); -1 when unreadable.
 * Read at a cell's start, when no worker of this run is left: the 1-minute
 * load average then still holds this run's own earlier cells
 * (kernel/sched/loadavg.c: an exponential average with a 60 s time
 * constant), and after a cell with more threads than CPUs it stayed above
 * them on an idle host.
 */
static int others_running(const struct runner *r)
{
	double v[5];
	int n = 0, zeros = 0;

	for (int i = 0; i < 5 && zeros < 3; i++) {
		FILE *f = fopen("/proc/stat", "r");
		char line[256];
		int x;

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "procs_running %d", &x) == 1) {
				x = x > 1 ? x - 1 : 0;
				if (x && r->restricted)
					x = runnable_on(&r->cpuset);
				if (x >= 0)
					v[n++] = x, zeros += !x;
				break;
			}
		if (f)
			fclose(f);
		if (n <= i)
			return -1;
		if (i < 4 && zeros < 3)
			lab_sleep_ns(2000000);
	}
	return zeros >= 3 ? 0 : (int)lab_median(v, 5);
}

/* "2 CPUs", "1 CPU this run may use (of 2)": what the load average is held against. */
static const char *cpus_phrase(const struct runner *r, char *buf, size_t len)
{
	lab_fmt_ncpus(r->cpus, buf, len);
	if (r->restricted)
		snprintf(buf + strlen(buf), len - strlen(buf), " this run may use (of %d)", r->online);
	return buf;
}

/*
 * A cell starts with the 1-minute load average @load above the CPUs: warned
 * (the first such cell; lab_run() counts the rest at the end) unless no
 * other task is runnable now on them, when the load is this run's own
 * earlier cells or, on a run restricted to some CPUs, other CPUs' work (the
 * load average is the whole machine's: above the run's CPUs whenever their
 * own is).
 */
static void warn_loaded(struct runner *r, struct cell_run *cr, double load)
{
	int others = lab_fault_inject("loadavg", cr->vlabel) ? r->cpus : others_running(r);
	char now[96] = "", cpus[64];

	if (!others)
		return;
	if (others > 0)
		snprintf(now, sizeof(now), ", %d other task%s runnable%s", others, others == 1 ? "" : "s",
			 !r->restricted ? "" : r->cpus == 1 ? " on it" : " on them");
	if (!r->loaded++)
		fprintf(stderr, "%sWARNING: load average %.2f above the %s at the start of %s %s t=%d%s: "
			"other work competes with the measurement\n", r->tty ? "\r\033[K" : "", load,
			cpus_phrase(r, cpus, sizeof(cpus)), cr->vlabel, cr->cell->wl->label, cr->cell->nthreads, now);
	r->load_max = load > r->load_max ? load : r->load_max;
	cr->load_warned = true;
}

/*
 * Load average @load as warn_loaded() prints it, with two decimals (as
 * /proc/loadavg has it): held against the CPUs, so that no warning reads
 * "load average 2.00 above the 2 CPUs".
 */
static double load_as_shown(double load)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.2f", load);
	return strtod(buf, NULL);
}

/* One iteration of the cell (it < 0: the warm-up pass). Returns 0, -EINTR or -1 (cell failed). */
static int cell_iteration(struct runner *r, struct cell_run *cr, int it, int first)
{
	struct iter_out io = { 0 };
	double load[2] = { -1, -1 };
	int ret;

	r->entry++;
	eta_start(r, (int)(cr->cell->wl - r->o->wls));
	if (!LAB_SIM && getloadavg(load, 1) == 1 &&
	    (lab_fault_inject("loadavg", cr->vlabel) || lab_fault_inject("loadavg_only", cr->vlabel)))
		load[0] = lab_fault_loadavg(r->cpus + 1);
	if (!LAB_SIM && load_as_shown(load[0]) > r->cpus && it == first && !cr->load_warned)	/* at the cell's start */
		warn_loaded(r, cr, load[0]);
	progress(r, cr, it, first);
	cr->cell->iteration = it;
	ret = lab_fault_inject("prepare", cr->vlabel) ? -EIO : cr->ops->prepare ? cr->ops->prepare(cr->state, cr->cell) : 0;
	if (ret) {
		cell_fail(cr, "prepare: %s", strerror(-ret));
		return -1;
	}
	ret = run_iteration(cr, cr->cell->nthreads, &io);
	if (ret)
		return ret;
	if (cr->bind_failed && !cr->bind_warned) {
		fprintf(stderr, "%sWARNING: could not pin some threads of %s t=%d\n", r->tty ? "\n" : "",
			cr->cell->wl->label, cr->cell->nthreads);
		cr->bind_warned = true;
	}
	getloadavg(&load[1], 1);
	io.load_start = load[0];
	io.load_end = load[1];
	if (it >= 0)
		emit_rows(r, cr, &io, it);
	if (cr->ops->release)	/* what it holds of the block's shared memory, for the next cell */
		cr->ops->release(cr->state, cr->cell);
	return cr->why[0] ? -1 : 0;
}

/* Name the failed cell now and in the list lab_run() prints at the end. */
static void cell_failed(struct runner *r, const struct cell_run *cr)
{
	fprintf(stderr, "%srwlab run: cell %s %s t=%d failed: %s\n", r->tty ? "\r\033[K" : "", cr->vlabel,
		cr->cell->wl->label, cr->cell->nthreads, cr->why);
	lab_buf_printf(&r->failed, "%s%s %s t=%d", r->nfailed ? ", " : "", cr->vlabel, cr->cell->wl->label,
		       cr->cell->nthreads);
	r->nfailed++;
}

/* Allocate cell @p and set it up with its block's @shared (@shared_why: why there is none). Returns 0 or -1. */
static int cell_open(struct runner *r, struct cell_run *cr, const struct cell_plan *p, void *shared,
		     const char *shared_why)
{
	const struct lab_run_opts *o = r->o;
	int n = p->nthreads;
	char err[1024];

	*cr = (struct cell_run){ .ops = p->wl->ops, .vlabel = variant_label(o, p->wl, p->vi),
				 .index = (int)(p - r->plan) + 1 };
	cr->cell = aligned_alloc(LAB_CACHELINE, sizeof(*cr->cell));
	cr->workers = aligned_alloc(LAB_CACHELINE, (size_t)n * sizeof(*cr->workers));
	cr->pu = calloc((size_t)n, sizeof(int));
	if (!cr->cell || !cr->workers || !cr->pu) {
		cell_fail(cr, "out of memory for %d threads", n);
		return -1;
	}
	memset(cr->cell, 0, sizeof(*cr->cell));
	cr->cell->lazy_mm = p->wl->ops->uses_lazy_mm ? &o->lazy[p->vi] : NULL;
	cr->cell->lock = p->wl->ops->uses_lazy_mm ? NULL : &o->locks[p->vi];
	cr->cell->wl = p->wl;
	cr->cell->run = &o->settings;
	cr->cell->nthreads = n;
	cr->cell->npus = lab_topology_init();
	cr->cell->bind_self = lab_topology_bind_self;
	cr->cell->shared = shared;
	lab_topology_plan(o->pin, n, cr->pu);
	if (*shared_why) {
		cell_fail(cr, "%s", shared_why);
		return -1;
	}
	if (cr->ops->setup(&cr->state, cr->cell, err, sizeof(err))) {
		cell_fail(cr, "%s", err);
		return -1;
	}
	cr->open = true;
	return 0;
}

/*
 * Make -o with the rows of plan cell @index (1-based), or at the end of a
 * run that had none (@index nplan + 1): a file is made with the first
 * rows (lab_csv_open_later()), so that a run stopped before leaves it as it
 * was. Returns 0, or -EPIPE when it cannot be made (another rwlab began
 * writing it since): the run stops as when a reader goes away, and
 * lab_run() says why in one line.
 */
static int make_csv(struct runner *r, int index)
{
	char err[1024];

	if (r->unmade)
		return -EPIPE;
	if (!r->csv.later)
		return 0;
	if (r->tty && !r->o->quiet && r->csv.fd >= 0)
		fprintf(stderr, "\r\033[K");	/* the progress line, before "WARNING: FILE existed: kept it as FILE.1" */
	if (!lab_csv_open_now(&r->csv, err, sizeof(err)))
		return 0;
	r->unmade = index;
	r->unmade_why = strdup(err);
	lab_interrupted = 1;	/* the loops stop; lab_run() tells it from Ctrl-C by r->unmade */
	return -EPIPE;
}

/*
 * Append the rows of plan cell @index (1-based) to the CSV: 0 or -errno. A
 * FIFO or pipe whose reader went away (-EPIPE) stops the run as Ctrl-C does:
 * no cell after it has anywhere to go, and lab_run() says so in one line;
 * so does a file that cannot be made (make_csv()). A write to a reader that
 * stalls, given up on Ctrl-C (-EINTR), is the interrupt's, counted for
 * lab_run()'s one line, not the cell's failure.
 */
static int write_rows(struct runner *r, const struct lab_buf *rows, int index)
{
	int ret = r->gone ? -EPIPE : make_csv(r, index);

	if (ret)
		return ret;
	ret = lab_csv_append(&r->csv, rows->p, rows->len);
	if (ret == -EPIPE && !r->gone) {
		r->gone = index;
		lab_interrupted = 1;	/* the loops stop; lab_run() tells it from Ctrl-C by r->gone */
	}
	r->unwritten += ret == -EINTR;
	return ret;
}

/*
 * RWLAB_FAULT_INJECT=killed_mid_rows: a cell writing its rows to a stream
 * (a simulated cell's own process, to its parent's pipe) is killed with
 * SIGKILL halfway through them.
 */
static void inject_killed_mid_rows(struct runner *r, const struct cell_run *cr)
{
	if (!r->csv.stream || !lab_fault_inject("killed_mid_rows", cr->vlabel) || make_csv(r, cr->index))
		return;
	lab_csv_append(&r->csv, cr->rows.p, cr->rows.len / 2);
	raise(SIGKILL);
}

/* Teardown, then write the rows of a cell that ran to the end (@ret 0), say how it went, free. */
static void cell_close(struct runner *r, struct cell_run *cr, int ret)
{
	if (cr->open)
		cr->ops->teardown(cr->state);
	drop_uncounted(&cr->rows);
	if (!ret && cr->rows.len) {
		inject_killed_mid_rows(r, cr);
		ret = write_rows(r, &cr->rows, cr->index);
		r->written += !ret;
		if (ret && ret != -EPIPE && ret != -EINTR) {	/* those two: lab_run()'s one line */
			cell_fail(cr, "writing %s: %s", r->csv.path, strerror(-ret));
			ret = -1;
		}
	}
	if (!ret && cr->bad_data) {	/* written and marked, but failed */
		cell_fail(cr, "%s", cr->bad_why);
		ret = -1;
	}
	if (!ret)
		cell_summary(r, cr);
	else if (ret != -EINTR && ret != -EPIPE)
		cell_failed(r, cr);
	r->ended += ret != -EINTR && ret != -EPIPE;
	lab_buf_free(&cr->rows);
	free(cr->cell);
	free(cr->workers);
	free(cr->pu);
}

/* The order of round @it of the block at plan[@b0]: shuffled from --seed, or as planned. */
static void round_order(const struct runner *r, int b0, int it, int *order, int n)
{
	uint64_t x = (r->o->settings.seed + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(b0 + 1) << 20 ^
		     (uint64_t)(it + 2);

	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0 && r->o->order == LAB_ORDER_INTERLEAVED; i--) {
		int j, t;

		x ^= x >> 12, x ^= x << 25, x ^= x >> 27;	/* xorshift64* */
		j = (int)((x * 0x2545f4914f6cdd1dull >> 33) % (uint64_t)(i + 1));
		t = order[i], order[i] = order[j], order[j] = t;
	}
}

/* The cells of the block at plan[@b0]: one workload at one thread count (one cell in sequential order). */
static int block_cells(const struct runner *r, int b0)
{
	int n = 1;

	while (b0 + n < r->nplan && r->o->order == LAB_ORDER_INTERLEAVED && r->plan[b0 + n].wl == r->plan[b0].wl &&
	       r->plan[b0 + n].nthreads == r->plan[b0].nthreads)
		n++;
	return n;
}

/*
 * What the block at plan[@b0] shares (ops->share(), made with no lock), into
 * *@shared; on failure the reason in @why, which fails every cell of it.
 */
static void block_share(const struct runner *r, int b0, void **shared, char *why, size_t len)
{
	const struct cell_plan *p = &r->plan[b0];
	struct lab_cell *c = aligned_alloc(LAB_CACHELINE, sizeof(*c));
	char err[512];

	*shared = NULL;
	why[0] = 0;
	if (!p->wl->ops->share)
		goto out;
	if (!c) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	memset(c, 0, sizeof(*c));
	*c = (struct lab_cell){ .wl = p->wl, .run = &r->o->settings, .nthreads = p->nthreads,
				.npus = lab_topology_init(), .bind_self = lab_topology_bind_self };
	if (p->wl->ops->share(shared, c, err, sizeof(err))) {
		*shared = NULL;
		snprintf(why, len, "%s", err);
	}
out:
	free(c);
}

/*
 * One comparison block: cells plan[b0..b0+n) (one workload, one thread
 * count, its variants), all set up (with what they share: ops->share()),
 * then round after round one iteration of
 * each, in an order shuffled per round (A1 B1 C1, B2 A2 C2, ...), so that
 * drifting machine load does not land on one variant; then each is torn
 * down and its rows written. Sequential order runs blocks of one cell.
 * Interrupted in the last round, the cells that ran every iteration are
 * finished and keep their rows.
 */
static void run_block(struct runner *r, int b0, int n)
{
	const struct lab_run_opts *o = r->o;
	struct cell_run *cr = calloc((size_t)n, sizeof(*cr));
	int *ret = calloc((size_t)n, sizeof(*ret)), *order = calloc((size_t)n, sizeof(*order));
	bool *done = calloc((size_t)n, sizeof(done));
	int first = o->settings.warmup_ns && r->plan[b0].wl->ops->kind == LAB_WL_WORK ? -1 : 0;
	const struct lab_workload_ops *ops = r->plan[b0].wl->ops;
	int wi = (int)(r->plan[b0].wl - o->wls);
	void *shared;
	char why[512];

	if (!cr || !ret || !order || !done) {
		fprintf(stderr, "rwlab run: out of memory for a block of %d cells\n", n);
		exit(1);
	}
	block_share(r, b0, &shared, why, sizeof(why));
	for (int i = 0; i < n; i++)
		if ((ret[i] = cell_open(r, &cr[i], &r->plan[b0 + i], shared, why)))
			eta_drop(r, wi, o->iterations - first, false);
	for (int it = first; it < o->iterations && !lab_interrupted; it++) {
		round_order(r, b0, it, order, n);
		for (int k = 0; k < n && !lab_interrupted; k++) {
			int i = order[k];

			if (!ret[i] && (ret[i] = cell_iteration(r, &cr[i], it, first)))
				eta_drop(r, wi, o->iterations - 1 - it, true);	/* the cell's iterations after this one */
			done[i] = !ret[i] && it == o->iterations - 1;
		}
	}
	for (int i = 0; i < n; i++)
		cell_close(r, &cr[i], lab_interrupted && !ret[i] && !done[i] ? -EINTR : ret[i]);
	if (shared)
		ops->unshare(shared);
	free(cr);
	free(ret);
	free(order);
	free(done);
}

#if LAB_SIM
/*
 * The command line of cell @p's own rwlab-sim (sim_cell.h) into @a: the
 * protocol of sim_cmd.h (the machine, the run's seed, one schedule) and a
 * run of the cell with the run's settings, always in this order, so that
 * the cell starts from the same process image alone, in a matrix, or beside
 * other cells (-j). The child inherits this process's personality (address
 * randomisation off, as the front set it).
 */
static void cell_argv(const struct runner *r, const struct cell_plan *p, struct lab_sim_argv *a)
{
	const struct lab_run_opts *o = r->o;
	ssize_t len = readlink("/proc/self/exe", a->exe, sizeof(a->exe) - 1);
	char **av = a->av, (*b)[64] = a->num;
	int n = 0;

	a->exe[len > 0 ? len : 0] = 0;
	snprintf(b[4], 64, "%llu", (unsigned long long)o->settings.seed);
	/* the machine as the run was given it: a path stays the path (its name is only the file's) */
	av[n++] = a->exe, av[n++] = "--machine", av[n++] = (char *)lab_sim_machine_arg(), av[n++] = "--seed";
	av[n++] = b[4], av[n++] = "--seeds", av[n++] = "1", av[n++] = "--", av[n++] = "run";
	if (p->wl->ops->uses_lazy_mm)	/* its variant is the scheme; no lock takes part */
		av[n++] = "-l", av[n++] = "null", av[n++] = "-m", av[n++] = (char *)o->lazy[p->vi].label;
	else
		av[n++] = "-l", av[n++] = (char *)o->locks[p->vi].label;
	snprintf(b[0], 64, "%d", p->nthreads);
	snprintf(b[1], 64, "%d", o->iterations);
	snprintf(b[2], 64, "%lluns", (unsigned long long)o->settings.duration_ns);
	snprintf(b[3], 64, "%lluns", (unsigned long long)o->settings.warmup_ns);
	av[n++] = "-w", av[n++] = (char *)p->wl->label, av[n++] = "-t", av[n++] = b[0], av[n++] = "-n", av[n++] = b[1];
	av[n++] = "-d", av[n++] = b[2], av[n++] = "--warmup", av[n++] = b[3], av[n++] = "--seed", av[n++] = b[4];
	av[n++] = "--order", av[n++] = o->order == LAB_ORDER_SEQUENTIAL ? "sequential" : "interleaved";
	av[n++] = "--pin", av[n++] = (char *)lab_pin_name(o->pin);
	if (o->settings.allow_unsafe)
		av[n++] = "--unsafe";
	if (o->settings.repo)
		av[n++] = "--repo", av[n++] = (char *)o->settings.repo;
	if (o->settings.commits)
		av[n++] = "--commits", av[n++] = (char *)o->settings.commits;
	av[n++] = "-q";	/* the parent prints the cell's line, from its rows */
	av[n++] = "--no-report", av[n++] = "-o", av[n++] = "-";
	av[n] = NULL;
}

/* A cell whose own process failed: named in the list lab_run() prints at the end (the child said why). */
static void process_failed(struct runner *r, const struct cell_plan *p, const char *why)
{
	const char *v = variant_label(r->o, p->wl, p->vi);

	if (why)
		fprintf(stderr, "%srwlab run: cell %s %s t=%d failed: %s\n", r->tty ? "\r\033[K" : "", v, p->wl->label,
			p->nthreads, why);
	lab_buf_printf(&r->failed, "%s%s %s t=%d", r->nfailed ? ", " : "", v, p->wl->label, p->nthreads);
	r->nfailed++;
}

static void sim_cell_argv(void *arg, int i, struct lab_sim_argv *a)
{
	const struct runner *r = arg;

	cell_argv(r, &r->plan[i], a);
}

/* The per-cell line of plan[@i], from its child's headline values. */
static void sim_cell_line(const struct runner *r, int i, const struct lab_sim_cell_out *co)
{
	const struct cell_plan *p = &r->plan[i];

	if (r->o->quiet || !co->nv)
		return;
	fprintf(stderr, "%s", r->tty ? "\r\033[K" : "");
	lab_fmt_cell_line(r->summary, variant_label(r->o, p->wl, p->vi), p->wl->label, p->nthreads,
			  p->wl->ops->headline, co->v, co->nv, co->higher ? LAB_BETTER_HIGHER : LAB_BETTER_LOWER,
			  lab_sim_machine_name());
	fflush(r->summary);
}

/*
 * Cell plan[@i]'s process has ended, and so have all before it: its rows
 * into the CSV (plan order, whatever -j), or why not. A process ended by a
 * signal or interrupted (130) wrote no rows: the run was interrupted. One
 * that ended on its own wrote whole cells: written even after an interrupt.
 */
static void sim_cell_done(void *arg, int i, const struct lab_sim_proc *pr)
{
	struct runner *r = arg;
	const struct cell_plan *p = &r->plan[i];
	char err[8400], head[96];
	struct lab_buf rows = { 0 };
	struct lab_sim_cell_out co;
	int nrows, st;

	if (pr->errout.len) {	/* its standard error apart (the engine's statistics): whole, under its name */
		fprintf(stderr, "%srwlab run: cell %s %s t=%d, its rwlab-sim's messages:\n%.*s%s", r->tty ? "\r\033[K" : "",
			variant_label(r->o, p->wl, p->vi), p->wl->label, p->nthreads, (int)pr->errout.len, pr->errout.p,
			pr->errout.p[pr->errout.len - 1] == '\n' ? "" : "\n");
		fflush(stderr);
	}
	if (pr->err) {
		snprintf(err, sizeof(err), "cannot start rwlab-sim for it: %s", strerror(-pr->err));
		process_failed(r, p, err);
		r->ended++;
		return;
	}
	if (pr->status == 130 || pr->status == 128 + SIGINT || pr->status == 128 + SIGTERM) {
		lab_interrupted = 1;	/* the child was interrupted with us: its cell is not written */
		return;
	}
	if (pr->status > 128) {	/* killed (SIGKILL, SIGSEGV): it could not say why; its rows, whole or cut, not kept */
		snprintf(err, sizeof(err), "its rwlab-sim was killed by signal %d (%s)", pr->status - 128,
			 strsignal(pr->status - 128));
		process_failed(r, p, err);
		r->ended++;
		return;
	}
	snprintf(head, sizeof(head), "%.*s", (int)strcspn(p->wl->ops->headline, ","), p->wl->ops->headline);
	nrows = lab_sim_cell_rows(pr->out.p, pr->out.len, r->run_id, r->ctx, lab_pin_name(r->o->pin), head, &rows,
				  &co, err, sizeof(err));
	if (nrows > 0 && ((st = write_rows(r, &rows, i + 1)) == -EPIPE || st == -EINTR)) {
		lab_buf_free(&rows);
		return;		/* its reader went away, or stalled until Ctrl-C: lab_run() says so */
	}
	if (nrows > 0 && st)
		snprintf(err, sizeof(err), "writing %s: %s", r->csv.path, strerror(-st)), nrows = -1;
	r->written += nrows > 0;
	if (nrows < 0)
		process_failed(r, p, err);
	else if (pr->status || co.failed)
		process_failed(r, p, NULL);
	else
		sim_cell_line(r, i, &co);
	r->ended++;
	lab_buf_free(&rows);
}

/*
 * The progress line of the cells' processes: cells done of all, the ETA from
 * the rate so far, each cell weighed by its work (lab_cell_work(): a cell at
 * 192 threads is not one at 24). Cells start in plan order: those finished
 * are taken to be the first.
 */
static void sim_progress(void *arg, int finished, int running)
{
	const struct runner *r = arg;
	double elapsed = (double)(lab_host_clock_ns() - r->t_start) / 1e9, done = 0, left = 0;
	char eta[32];

	if (r->o->quiet)
		return;
	for (int i = 0; i < r->nplan; i++)
		*(i < finished ? &done : &left) += lab_cell_work(r->o, r->plan[i].wl, r->plan[i].nthreads);
	fmt_eta(eta, sizeof(eta), lab_eta_left(elapsed, done, left));
	fprintf(stderr, "%s[cells %d/%d done, %d running] ETA %s%s", r->tty ? "\r\033[K" : "", finished, r->nplan,
		running, eta, r->tty ? "" : "\n");
}

/*
 * Under --sim, in the run's process: each cell in a fresh rwlab-sim of its
 * own (sim_cell.h), r->jobs of them at once (-j, default the host CPUs this
 * process may use, lowered to what fits memory: check_footprint_sim()),
 * their rows written in plan order.
 */
static void run_cell_processes(struct runner *r)
{
	const struct lab_sim_cells_ops ops = { .argv = sim_cell_argv, .done = sim_cell_done, .progress = sim_progress,
					       .quiet = r->o->quiet, .err_apart = lab_sim_cell_stats() };
	lab_cells_parent = 1;	/* no alarm on a signal here: each cell's process has its own */
	lab_sim_cells_run(r->nplan, r->jobs, &ops, r, &lab_interrupted);
}
#endif

/* Blocks: the planned cells of one workload and thread count (one cell each in sequential order). */
static void run_blocks(struct runner *r)
{
#if LAB_SIM
	if (!lab_sim_cell_child()) {
		run_cell_processes(r);
		return;
	}
#endif
	for (int b0 = 0, n; b0 < r->nplan && !lab_interrupted; b0 += n) {
		n = block_cells(r, b0);
		run_block(r, b0, n);
	}
}

/* ---- the run ----------------------------------------------------------------- */

/* "1.5 GiB", "320 MiB" */
static const char *fmt_bytes(size_t b, char *buf, size_t len)
{
	if (b >= (10ul << 30))
		snprintf(buf, len, "%.0f GiB", (double)b / (1 << 30));
	else if (b >= (1ul << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (1 << 30));
	else
		snprintf(buf, len, "%.0f MiB", (double)b / (1 << 20));
	return buf;
}

/*
 * The largest value of @wl's size knob (from 1: pft's 0 is its default size)
 * at which a block of @n cells at @nthreads fits @room bytes, by footprint()
 * itself: what the block shares need not be the knob's size (pft's
 * touch=fresh holds the region twice). 0 when none does.
 */
static long size_that_fits(const struct lab_workload_conf *wl, int nthreads, int n, size_t room)
{
	const struct lab_knob *k = wl->ops->knobs;
	struct lab_workload_conf c = *wl;
	long lo, hi, best = 0;
	int i = 0;

	while (k && k[i].name && strcmp(k[i].name, wl->ops->size_knob))
		i++;
	if (!k || !k[i].name)
		return 0;
	for (lo = k[i].min > 1 ? k[i].min : 1, hi = k[i].max; lo <= hi;) {
		long mid = lo + (hi - lo) / 2;
		size_t s, p;

		c.knob[i] = mid;
		lab_workload_footprint(&c, nthreads, &p, &s);
		if (s <= room && (size_t)n * p <= room - s)
			best = mid, lo = mid + 1;
		else
			hi = mid - 1;
	}
	return best;
}

/*
 * The memory budget: the plan's peak is rwlab's own memory and the largest
 * block's (what its cells share once, and each cell's own: a block's cells
 * are set up together), from each workload's footprint(). A plan whose peak
 * is above MemAvailable is refused with one line: the estimate, and how to
 * shrink it (the workload's size knob, fewer variants per block). Returns 0
 * or -1 (said).
 */
static int check_footprint(const struct runner *r)
{
	size_t avail = lab_meminfo("MemAvailable"), peak = 0, sh = 0, per = 0, room;
	int worst = -1, nworst = 0;
	long size;
	char a[32], b[32], c[32], d[32], fit[256] = "";

	for (int b0 = 0, n; b0 < r->nplan; b0 += n) {
		size_t s, p;

		n = block_cells(r, b0);
		lab_workload_footprint(r->plan[b0].wl, r->plan[b0].nthreads, &p, &s);
		if (s + (size_t)n * p > peak)
			peak = s + (size_t)n * p, sh = s, per = p, worst = b0, nworst = n;
	}
	peak += LAB_FOOTPRINT_BASE;
	if (!avail || worst < 0 || peak <= avail)
		return 0;
	room = avail > LAB_FOOTPRINT_BASE + sh ? (avail - LAB_FOOTPRINT_BASE - sh) / per : 0;
	size = r->plan[worst].wl->ops->size_knob && sh && avail > LAB_FOOTPRINT_BASE ?
	       size_that_fits(r->plan[worst].wl, r->plan[worst].nthreads, nworst,
			      (avail - LAB_FOOTPRINT_BASE) / 100 * 95) : 0;
	if (size)
		snprintf(fit, sizeof(fit), "give %.*s:%s=%ld or less (what the block shares)%s",
			 (int)strcspn(r->plan[worst].wl->label, ":"), r->plan[worst].wl->label,
			 r->plan[worst].wl->ops->size_knob, size, room ? ", or " : "");
	if (room)
		snprintf(fit + strlen(fit), sizeof(fit) - strlen(fit), "run fewer variants per block (-l: %zu fit%s)",
			 room, room == 1 ? "s" : "");
	fprintf(stderr, "rwlab run: the plan needs about %s of memory at its peak, more than MemAvailable (%s): "
		"block %s t=%d holds %s shared by its %d variant%s and %s each; %s\n", fmt_bytes(peak, a, sizeof(a)),
		fmt_bytes(avail, b, sizeof(b)), r->plan[worst].wl->label, r->plan[worst].nthreads,
		fmt_bytes(sh, c, sizeof(c)), nworst, nworst == 1 ? "" : "s", fmt_bytes(per, d, sizeof(d)),
		*fit ? fit : "shrink the workload's size");
	return -1;
}

/*
 * The memory budget under --sim, in the run's process: each cell is a
 * process of its own that sets up its workload's shared part and its own
 * (rwlab-sim's base beside them), -j of them at once, so the peak is this
 * process's base and the -j largest cells. A -j left to its default (the
 * host CPUs) is lowered to what fits MemAvailable, with one line; a -j
 * given that does not fit is refused, as is a cell that does not fit alone.
 * Sets r->jobs. Returns 0 or -1 (said).
 */
static int check_footprint_sim(struct runner *r)
{
	size_t avail = lab_meminfo("MemAvailable"), *f;
	int want = r->o->jobs > 0 ? r->o->jobs : lab_sim_host_cpus(), big = 0, fit;
	char a[32], c[32];

	r->jobs = want < r->nplan ? want : r->nplan;
	if (!avail || r->nplan < 1 || !(f = malloc((size_t)r->nplan * sizeof(*f))))
		return 0;	/* no estimate to make: /proc/meminfo unread, no cell, or no memory for the sort */
	for (int i = 0; i < r->nplan; i++) {
		size_t s, p;

		lab_workload_footprint(r->plan[i].wl, r->plan[i].nthreads, &p, &s);
		f[i] = LAB_FOOTPRINT_BASE + s + p;
		big = f[i] > f[big] ? i : big;
	}
	fmt_bytes(f[big], c, sizeof(c));
	fit = lab_sim_cells_fit(f, r->nplan, r->jobs, LAB_FOOTPRINT_BASE, avail);
	free(f);
	if (fit == r->jobs)
		return 0;
	if (!fit) {
		const struct lab_workload_conf *wl = r->plan[big].wl;
		const char *knob = wl->ops->size_knob;
		/* the cell's process and this one, each with its base, as check_footprint() leaves 5% */
		long size = knob && avail > 2 * LAB_FOOTPRINT_BASE ?
			    size_that_fits(wl, r->plan[big].nthreads, 1, (avail - 2 * LAB_FOOTPRINT_BASE) / 100 * 95) : 0;
		char fix[192];

		if (size)
			snprintf(fix, sizeof(fix), "give %.*s:%s=%ld or less", (int)strcspn(wl->label, ":"), wl->label,
				 knob, size);
		else
			snprintf(fix, sizeof(fix), "shrink the workload's size%s%s%s", knob ? " (its knob " : "",
				 knob ? knob : "", knob ? ")" : "");
		fprintf(stderr, "rwlab run: cell %s t=%d needs about %s of memory, more than MemAvailable (%s): %s\n",
			wl->label, r->plan[big].nthreads, c, fmt_bytes(avail, a, sizeof(a)), fix);
		return -1;
	}
	if (r->o->jobs > 0) {
		fprintf(stderr, "rwlab run: -j %d: %d cells at once need more memory than MemAvailable (%s; the largest "
			"cell, %s t=%d, about %s): give -j %d%s\n", r->o->jobs, r->jobs,
			fmt_bytes(avail, a, sizeof(a)), r->plan[big].wl->label, r->plan[big].nthreads, c, fit,
			fit == 1 ? " (one cell at a time)" : " or less");
		return -1;
	}
	fprintf(stderr, "rwlab run: %d cells at once (one a host CPU) need more memory than MemAvailable (%s; the "
		"largest cell, %s t=%d, about %s): running %d at a time\n", r->jobs, fmt_bytes(avail, a, sizeof(a)),
		r->plan[big].wl->label, r->plan[big].nthreads, c, fit);
	r->jobs = fit;
	return 0;
}

/* Open (or resume) the CSV and plan the cells. Returns 0, or 2 (1: -o's reader went away): nothing was run. */
static int runner_open(struct runner *r, const struct lab_context *ctx)
{
	const struct lab_run_opts *o = r->o;
	char err[1024];
	int ret;

	r->csv.fd = -1;
	/* --resume: the file's lock first, so that no other rwlab writes it while it is read and carried on */
	if (o->resume && (lab_csv_claim(&r->csv, o->csv_path, err, sizeof(err)) ||
			  lab_resume_load(&r->resume, o->csv_path, o->iterations, ctx, lab_pin_name(o->pin), err,
					  sizeof(err)))) {
		fprintf(stderr, "rwlab run: %s\n", err);
		lab_csv_close(&r->csv);
		return 2;
	}
	if (o->resume && !r->resume.exists)	/* a shard's first run gives --resume too (README: Slurm) */
		fprintf(stderr, "rwlab run: --resume: %s %s: nothing to resume, every cell runs\n", o->csv_path,
			r->resume.missing ? "does not exist" : "is empty");
	if (!r->resume.exists)
		lab_csv_close(&r->csv);	/* an empty file: lab_csv_open() makes it anew */
	if (plan_cells(r)) {
		fprintf(stderr, "rwlab run: out of memory planning the cells\n");
		return 2;
	}
	if (r->nskipped) {
		fprintf(stderr, "rwlab run: %s%s: a variant that claims no exclusion would corrupt the data its lock "
			"protects (%d cell%s left out)\n", r->nplan || r->resume.exists ? "" : "nothing to run: ",
			r->skipped.p, r->nskipped, r->nskipped > 1 ? "s" : "");
		if (!r->nplan && !r->resume.exists) {
			lab_csv_close(&r->csv);
			return 2;
		}
	}
	if (LAB_SIM && !lab_sim_cell_child() ? check_footprint_sim(r) : check_footprint(r)) {
		lab_csv_close(&r->csv);
		return 2;	/* before any measurement, the file untouched */
	}
	r->csv.stop = &lab_interrupted;	/* a FIFO whose reader stalls: Ctrl-C still ends the run, the header's write too */
	r->csv.prog = "rwlab run";
	r->csv.crlf = r->resume.crlf;	/* the rows appended end their lines as the file's do */
	if (r->resume.exists)
		ret = lab_csv_open_append(&r->csv, o->csv_path, r->resume.keep_len, err, sizeof(err));
	else if (o->resume)	/* a new file, made now as ever: a shard's first run */
		ret = lab_csv_open(&r->csv, o->csv_path, err, sizeof(err));
	else			/* made with the first rows (make_csv()), checked now */
		ret = lab_csv_open_later(&r->csv, o->csv_path, err, sizeof(err));
	if (ret == -EINTR) {	/* a FIFO full before the header (its reader stalls), then Ctrl-C */
		fprintf(stderr, "rwlab run: interrupted before %s%d cell%s ran: %s%s took no header (its reader had "
			"stopped reading)\n", r->nplan > 1 ? "any of its " : "its ", r->nplan, r->nplan > 1 ? "s" : "",
			strcmp(o->csv_path, "-") ? "FIFO " : "", r->csv.path);
		return 130;
	}
	if (ret == -EPIPE) {	/* `-o - | true`: the reader went away, as mid-run (exit 1), before any cell */
		fprintf(stderr, "rwlab run: %s%s: its reader went away before the header; no cell was run\n",
			strcmp(o->csv_path, "-") ? "FIFO " : "", r->csv.path);
		return 1;
	}
	if (ret) {
		fprintf(stderr, "rwlab run: %s\n", err);
		return 2;	/* before any measurement */
	}
	if (r->resume.exists) {
		fprintf(stderr, "rwlab run: resuming %s: %d finished cells kept, %d of this matrix to run\n",
			o->csv_path, r->resume.ncells, r->nplan);
		if (r->resume.dropped_rows || r->resume.torn_line)
			fprintf(stderr, "rwlab run: cut off the unfinished last cell (%d whole rows%s) to run it "
				"again\n", r->resume.dropped_rows, r->resume.torn_line ? " and a torn line" : "");
	}
	return 0;
}

/* "d=2s warmup=500ms n=5 seed=1 order=interleaved": the settings every row records. */
static void run_settings(const struct lab_run_opts *o, char *buf, size_t len)
{
	snprintf(buf, len, "d=%gs warmup=%gs n=%d seed=%llu order=%s", (double)o->settings.duration_ns / 1e9,
		 (double)o->settings.warmup_ns / 1e9, o->iterations, (unsigned long long)o->settings.seed,
		 o->order == LAB_ORDER_SEQUENTIAL ? "sequential" : "interleaved");
}

/* Warnings: the measurement is not trustworthy when... */
static void runner_warn(const struct runner *r, const struct lab_context *ctx)
{
	const struct lab_run_opts *o = r->o;
	char why[256], cpus[32];
	int max_threads = 0;

	for (int i = 0; i < o->nthreads; i++)
		max_threads = o->threads[i] > max_threads ? o->threads[i] : max_threads;
	if (lab_context_untrusted(ctx, why, sizeof(why)))
		fprintf(stderr, "WARNING: %s\n", why);
	if (o->pin == LAB_PIN_NONE)
		fprintf(stderr, "WARNING: threads are not pinned (--pin none): expect more variance\n");
	if (max_threads > ctx->cpus)
		fprintf(stderr,
			"WARNING: up to %d threads on %s: cells above %d thread%s are oversubscribed "
			"(sleeping vs spinning under preemption), not scaling\n",
			max_threads, lab_fmt_ncpus(ctx->cpus, cpus, sizeof(cpus)), ctx->cpus,
			ctx->cpus == 1 ? "" : "s");
}

/*
 * A worker without a perf context-switch ring (locks/wait.h: perf_event_open
 * refused, the fd or locked-memory limit, RWLAB_SWITCH_RINGS=0) watched its
 * lock owners through their CPU clocks instead (oncpu=clock's rule) and
 * read need_resched() from getrusage: say so, once, in the run's words.
 */
static void warn_switch_rings(void)
{
#if !LAB_SIM
	const char *why = lab_switch_ring_status();

	if (why)
		fprintf(stderr,
			"WARNING: no perf context-switch ring for some threads (%s): the kernel ports' "
			"owner_on_cpu() sampled the owner's CPU clock (oncpu=clock) and need_resched() "
			"getrusage instead\n",
			why);
#endif
}

/* @av quoted as a shell takes it back, whole (lab_cli_command()), in memory of its own; NULL when none. */
static char *quoted(int n, char *const *av)
{
	size_t len = lab_cli_command(n, av, NULL, 0) + 1;
	char *s = malloc(len);

	if (s)
		lab_cli_command(n, av, s, len);
	return s;
}

/*
 * The command that carries an interrupted run on (README "Crash safety and
 * --resume"), appended to @b: in the directory the run started in (its
 * relative paths, -o's and --matrix's and --sim's files, are that
 * directory's), the command line as given, with --sim MACHINE in a
 * simulated run's process (the front handed the run on without it), and
 * where it wrote its file (@resume), -o FILE where that was the default
 * one and --resume; one that wrote none runs again as it was. Never a
 * command cut short or without its directory: then the words to say it.
 */
static void go_on_command(const struct lab_run_opts *o, bool resume, struct lab_buf *b)
{
	char **av = calloc((size_t)o->argc + 5, sizeof(*av)), *cwd = getcwd(NULL, 0), *dir = NULL, *line = NULL;
	int n = 0;

	if (av && cwd) {
		if (LAB_SIM)
			av[n++] = "--sim", av[n++] = (char *)lab_sim_machine_arg();
		for (int i = 0; i < o->argc; i++)
			av[n++] = o->argv[i];
		if (resume && !o->csv_given)
			av[n++] = "-o", av[n++] = (char *)o->csv_path;
		if (resume && !o->resume)
			av[n++] = "--resume";
		dir = quoted(1, &cwd);
		line = quoted(n, av);
	}
	if (dir && line)
		lab_buf_printf(b, "; to go on: cd %s && %s run %s", dir, LAB_PROG, line);
	else
		lab_buf_printf(b, "; to go on: the same command%s, from the directory it started in",
			       resume ? " with --resume" : "");
	free(line);
	free(dir);
	free(cwd);
	free(av);
}

/*
 * An interrupted run's line (Ctrl-C, SIGTERM): the cells that ended of the
 * matrix's (those --resume kept counted in both), the failed ones among
 * them, how many are in the file (what --resume will keep: not a failed
 * cell left out), where and how to go on. -o - or a FIFO cannot be resumed
 * (nor one a reader stalled: its finished cells were not all written). A
 * file that no rows came for was not made: nothing written, an existing
 * one (claimed) left as it was, and the same command goes on; -o - or a
 * FIFO had its header only.
 */
static void say_interrupted(const struct runner *r)
{
	const struct lab_run_opts *o = r->o;
	int done = r->ended + r->resume.ncells, all = r->nplan + r->resume.ncells, in = r->written + r->resume.ncells;
	bool stream = !strcmp(o->csv_path, "-") || lab_csv_stream_path(o->csv_path), unmade = r->csv.later;
	struct lab_buf b = { 0 };

	if (done)
		lab_buf_printf(&b, "rwlab run: interrupted after %d of %d cells", done, all);
	else
		lab_buf_printf(&b, "rwlab run: interrupted before %s%d cell%s ended", all > 1 ? "any of its " : "its ",
			       all, all > 1 ? "s" : "");
	if (r->nfailed)
		lab_buf_printf(&b, " (%d failed: %s)", r->nfailed, r->failed.p);
	if (r->unwritten)
		lab_buf_printf(&b, "; %d finished cell%s not written whole to %s: its reader had stopped reading",
			       r->unwritten, r->unwritten > 1 ? "s were" : " was", o->csv_path);
	else if (unmade)
		lab_buf_printf(&b, "; nothing written to %s%s", o->csv_path,
			       r->csv.fd >= 0 && !r->csv.made ? " (left as it was)" : "");
	else if (!done && stream)
		lab_buf_printf(&b, "; only the header went to %s", strcmp(o->csv_path, "-") ? o->csv_path : "stdout");
	else if (done)	/* "they", or "2 of them" when failed cells are not there ("none of them") */
		lab_buf_printf(&b, "; %s%.0d%s %s %s", in == done ? "they" : in ? "" : "none", in == done ? 0 : in,
			       in == done ? "" : " of them", stream ? "went to" : in ? "are in" : "is in",
			       strcmp(o->csv_path, "-") ? o->csv_path : "stdout");
	if (!stream && o->argv)
		go_on_command(o, !unmade, &b);
	if (b.p)
		fprintf(stderr, "%s\n", b.p);
	lab_buf_free(&b);
}

/*
 * The run's last lines: where it stopped (a reader gone, -o not made at a
 * cell's rows), the interrupted line, or the failed cells, after the line
 * that -o could not be made at the end of a run without rows.
 */
static void say_end(const struct runner *r)
{
	const struct lab_run_opts *o = r->o;
	const char *why = r->unmade_why ? r->unmade_why : strerror(ENOMEM);

	if (r->gone) {
		fprintf(stderr, "rwlab run: %s%s: its reader went away; the run stopped at cell %d of %d, which is not "
			"written (nor any after)\n", strcmp(o->csv_path, "-") ? "FIFO " : "", r->csv.path, r->gone, r->nplan);
		return;
	}
	if (r->unmade && r->unmade <= r->nplan) {
		fprintf(stderr, "rwlab run: %s; the run stopped at cell %d of %d, which is not written (nor any after)\n",
			why, r->unmade, r->nplan);
		return;
	}
	if (r->unmade)
		fprintf(stderr, "rwlab run: %s\n", why);
	else if (lab_interrupted) {
		say_interrupted(r);
		return;
	}
	if (r->nfailed)
		fprintf(stderr, "rwlab run: %d of %d cells failed (left out of %s, or marked cell_failed there): %s\n",
			r->nfailed, r->nplan, o->csv_path, r->failed.p);
}

static void runner_close(struct runner *r)
{
	lab_csv_close(&r->csv);
	lab_buf_free(&r->failed);
	lab_buf_free(&r->skipped);
	lab_resume_free(&r->resume);
	free(r->unmade_why);
	free(r->plan);
}

int lab_run(const struct lab_run_opts *o)
{
	struct runner r = { .o = o, .t_start = lab_host_clock_ns(),	/* the ETA is host time, also under --sim */ .tty = isatty(2),
			    .summary = strcmp(o->csv_path, "-") ? stdout : stderr };
	struct lab_context ctx;
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	int status;

	lab_topology_init();
	lab_context_get(&ctx);
	run_settings(o, ctx.settings, sizeof(ctx.settings));
	lab_plan_context(&ctx, o);	/* the shard and plan columns */
	r.cpus = ctx.cpus;
	r.online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	r.restricted = !sched_getaffinity(0, sizeof(r.cpuset), &r.cpuset) && CPU_COUNT(&r.cpuset) < r.online;
	r.ctx = &ctx;
	/* before the CSV opens: the header's write to a FIFO that is full already must end on Ctrl-C */
	sigemptyset(&sa.sa_mask);
	lab_interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	status = runner_open(&r, &ctx);
	if (status) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		runner_close(&r);
		return status;
	}
	if (!(LAB_SIM && lab_sim_cell_child()))	/* a cell's own process: its run's process warned */
		runner_warn(&r, &ctx);
	lab_csv_run_id(r.run_id, sizeof(r.run_id));
	snprintf(r.host, sizeof(r.host), "%s", ctx.host);
	lab_csv_set_context(&r.csv, r.run_id, &ctx, lab_pin_name(o->pin));
#if LAB_SIM
	signal(SIGALRM, on_sim_stuck);
#endif
	run_blocks(&r);
	if (!lab_interrupted)	/* no cell had rows (each one failed, or none to run): the header alone, as ever */
		make_csv(&r, r.nplan + 1);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (!o->quiet && r.tty)
		fprintf(stderr, "\r\033[K");
	warn_switch_rings();

	if (r.loaded > 1) {
		char cpus[64];

		fprintf(stderr, "WARNING: %d of the %d cells started with the load average above the %s (up to %.2f) "
			"and other tasks runnable%s: each iteration's loadavg_start row says which\n", r.loaded, r.nplan,
			cpus_phrase(&r, cpus, sizeof(cpus)), r.load_max, !r.restricted ? "" : r.cpus == 1 ? " on it" : " on them");
	}
	status = r.gone || r.unmade ? 1 : lab_interrupted ? 130 : r.nfailed ? 1 : 0;
	if (!(LAB_SIM && lab_sim_cell_child()))	/* a cell's own process: the run's process sums up */
		say_end(&r);
	runner_close(&r);
	return status;
}
