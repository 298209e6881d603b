/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * context_switch - will-it-scale context_switch1_threads with the lazy-mm
 * switch path of every block and wake.
 *
 * Citation: antonblanchard/will-it-scale tests/context_switch1.c ("Context
 * switch via pipes", the _threads build), the benchmark of Piggin's
 * MMU_LAZY_TLB_SHOOTDOWN and of Desnoyers' hazard-pointer RFC
 * (docs/workloads.md §1.4, docs/kernel.md §5.2-5.4).
 *
 * What runs (-t N means N pairs, 2N threads of one process):
 * - the harness's worker i is the measured task of pair i; it opens two pipes
 *   and creates its partner thread, which inherits its CPU binding, so both
 *   threads of a pair run on one CPU (will-it-scale's placement);
 *   placement=spread binds the partner to the next PU instead;
 * - the task loops: write 1 byte to pipe 1, read 1 byte from pipe 2,
 *   iterations += 2; the partner loops: read pipe 1, write pipe 2. Only the
 *   measured tasks count (will-it-scale counts one side);
 * - every read is modelled as a block: the thread's CPU slot switches from
 *   the user task to the idle kernel thread (lab_lazy_switch_to_kthread:
 *   mmgrab_lazy_tlb), the thread sleeps in the real read(2), and on wake the
 *   slot switches back to the user task (lab_lazy_switch_to_user:
 *   mmdrop_lazy_tlb). Each thread is its own CPU slot (2N slots): as when a
 *   pair shares a core whose two SMT threads each go task -> idle -> task.
 *   On the host, a pair pinned to one PU does a direct task -> task switch;
 *   the model charges the lazy-mm path to each thread regardless;
 * - all threads use one mm (the process's), so every slot grabs and drops the
 *   same mm: the refcount scheme's shared mm_count line;
 * - recreate_hz=R > 0: an owner thread replaces the process's mm R times a
 *   second: it publishes a new mm, waits until no task still uses the old
 *   one as its user mm (the tasks move over in their kernel-thread phase,
 *   while their CPU still borrows the old mm: exit_mm's lazy reference), then
 *   calls release(old) while CPU slots may still borrow it: release under
 *   load. The user references (mm_users) are a per-task pointer the owner
 *   scans (a hazard-pointer handshake, the same for every scheme, off the
 *   per-switch path). The owner is created by pair 0's task and so shares its
 *   CPU. none is refused with recreate_hz > 0 unless --unsafe.
 * - lru_gen=1: the kernel was built with CONFIG_LRU_GEN. Then every switch to a
 *   user task, after switch_mm_irqs_off() and before finish_task_switch()'s
 *   mmdrop_lazy_tlb, calls lru_gen_use_mm(next->mm) (kernel/sched/core.c
 *   context_switch(), v6.11.11:5132-5175, the to-user branch), a plain
 *   WRITE_ONCE(mm->lru_gen.bitmap, -1) (include/linux/mm_types.h, under
 *   CONFIG_LRU_GEN_WALKS_MMU: mm/Kconfig "def_bool y, depends on LRU_GEN &&
 *   ARCH_HAS_HW_PTE_YOUNG", x86 has the latter; a store of the same value
 *   still takes the line): one more line of the mm that every CPU of the
 *   process writes on every block's return, whatever the lazy-mm scheme.
 *   Modelled as its own line (mm_count is on its own line from v6.5; the
 *   bitmap's neighbours in struct mm_struct are not written on this path).
 *   The store stalls here until the line arrives; x86 retires it into the
 *   store buffer instead and stalls at the next locked instruction (the
 *   refcount drop right after, or the pipe's mutex in the next read/write).
 *   Default 0: LRU_GEN has no default in mm/Kconfig (off), and the table's
 *   kernel config is not in its mail (results/sim/lazy-mm-hazptr/ says what
 *   the knob moves). One mm only: refused with recreate_hz > 0.
 *
 * Under --sim (build/rwlab-sim): the pipes are channel.h's simulated channel,
 * the partner and the owner are simulated tasks (a slot has no interrupt
 * thread: its IPIs are the engine's interrupts, locks/lazy_mm.c) created
 * through lab_thread_create (a task inherits its creator's binding), and
 * every access the schemes make goes through atomic.h: refcount's mm_count is
 * one line that every slot's grab and drop transfers (its own line, as from
 * v6.5, c1753fd02a00: the table ran v6.11.1), hazptr's slots are one line per
 * slot. --pin cores binds task i to core i's CPUs as will-it-scale binds it
 * to the core's hwloc cpuset: the partner then runs on the core's other
 * SMT sibling (select_idle_sibling picks the idle one), and each block is the
 * kernel's user -> idle -> user path on that CPU (kernel/sched/core.c
 * context_switch, v6.11.11:5132-5175: mmgrab_lazy_tlb at :5159 going idle,
 * mmdrop_lazy_tlb_sched in finish_task_switch at :5087 coming back), the
 * engine's idle path (sim/idle.c: the cpuidle state, its exit latency, the
 * polled wake-up or IPI) in between. With --pin compact a pair shares one
 * simulated CPU and switches task -> task, where the kernel would not touch
 * mm_count; the lazy-mm path is still charged on every block there, as
 * natively.
 *
 * Metrics: ops_per_s (iterations per second, all pairs: will-it-scale's
 * "average"), ops_per_s_min/max (per measured task), round_trips,
 * nvcsw_threads (voluntary context switches of all 2N threads over the window,
 * getrusage(RUSAGE_THREAD)) and csw_per_round_trip; with recreate_hz:
 * releases, release_us_mean/max, release_ipis, release_shoots, deferred_frees.
 * The harness adds the process-wide nvcsw/nivcsw.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "channel.h"
#include "err.h"
#include "lazy_mm.h"
#include "wait.h"
#include "workload.h"

enum { K_PLACEMENT, K_RECREATE_HZ, K_LRU_GEN };
enum { PLACE_PAIR, PLACE_SPREAD };
enum { C_NVCSW, C_NIVCSW, C_ERR };

static const struct lab_knob cs_knobs[] = {
	[K_PLACEMENT] = { .name = "placement", .type = LAB_KNOB_ENUM, .def = PLACE_PAIR, .choices = "pair|spread",
			  .help = "pair: partner on its task's CPU (will-it-scale); spread: on the next PU" },
	[K_RECREATE_HZ] = { .name = "recreate_hz", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 100000,
			    .help = "mm tear-downs/re-creations per second, released under load (0: never)" },
	[K_LRU_GEN] = { .name = "lru_gen", .type = LAB_KNOB_BOOL, .def = 0,
			.help = "CONFIG_LRU_GEN: every switch to a user task stores -1 to the mm's lru_gen.bitmap "
				"(lru_gen_use_mm), one more shared line (0: Kconfig's default, LRU_GEN off)" },
	{ 0 }
};

/* One CPU slot's task: its user reference to the process's mm. */
struct cs_task {
	struct lab_lazy_mm *user_mm;	/* written by the task, scanned by the owner thread */
} __lab_cacheline_aligned;

struct cs_pair {
	struct lab_chan ab, ba;		/* task -> partner, partner -> task */
	pthread_t partner;
	struct cs *cs;
	int idx, pu;
	long nvcsw, nivcsw;		/* the partner's, over the window */
	int err;
	struct lab_events events;	/* the partner's lock events over the window */
} __lab_cacheline_aligned;

struct cs {
	struct lab_lazy_mm *cur;	/* the process's mm: what its tasks load */
	struct lab_lazy_domain *d __lab_cacheline_aligned;
	const struct lab_cell *cell;
	int npairs, placement, npus;
	long recreate_hz;
	unsigned long *lru_gen_bitmap;	/* lru_gen=1: the mm's lru_gen.bitmap, its own line; else NULL */
	struct cs_task *task;		/* 2N: task of pair i at 2i, partner at 2i+1 */
	struct cs_pair *pair;		/* N */
	/* the owner thread (recreate_hz > 0), its figures over the window */
	pthread_t owner;
	uint64_t releases, release_ns_sum, release_ns_max, deferred0;
	struct lab_events owner_events;
};

static long nvcsw_of(const struct rusage *ru)
{
	return ru->ru_nvcsw;
}

/*
 * Take a user reference to the process's current mm: publish it in the task's
 * slot, then check it is still current (the owner publishes, fences, then
 * scans the slots, so one of the two sees the other).
 */
static struct lab_lazy_mm *cs_user_get(struct cs *cs, struct cs_task *t)
{
	struct lab_lazy_mm *m = smp_load_acquire(&cs->cur);

	for (;;) {
		struct lab_lazy_mm *again;

		/* Release: this CPU's lazy grab of the previous mm is visible first (pairs with the owner's scan). */
		smp_store_release(&t->user_mm, m);
		/* Full barrier: the reference before re-reading cur (pairs with the owner's smp_mb). */
		smp_mb();
		again = smp_load_acquire(&cs->cur);
		if (again == m)
			return m;
		m = again;
	}
}

/* Block in @ch as the kernel does it: user task -> idle kernel thread (lazy mm) -> user task. */
static int cs_block(struct cs *cs, int cpu, struct lab_chan *ch)
{
	struct cs_task *t = &cs->task[cpu];
	int r;

	lab_lazy_switch_to_kthread(cs->d, cpu);
	/* The process switched mm: leave the old one while this CPU still borrows it. */
	if (lab_unlikely(READ_ONCE(cs->cur) != t->user_mm))
		cs_user_get(cs, t);
	r = lab_chan_recv(ch);
	/* context_switch() to user: switch_mm_irqs_off, then lru_gen_use_mm(next->mm), then the drop */
	if (cs->lru_gen_bitmap)
		WRITE_ONCE(*cs->lru_gen_bitmap, ~0ul);
	lab_lazy_switch_to_user(cs->d, cpu, t->user_mm);
	return r;
}

static void *cs_partner(void *arg)
{
	struct cs_pair *p = arg;
	struct cs *cs = p->cs;
	int cpu = 2 * p->idx + 1;
	struct cs_task *t = &cs->task[cpu];
	struct rusage r0, r1;
	bool measuring = false;

	if (cs->placement == PLACE_SPREAD && p->pu >= 0 && cs->npus > 0 &&
	    cs->cell->bind_self((p->pu + 1) % cs->npus))
		p->err = -EINVAL;
	if (lab_lazy_cpu_online(cs->d, cpu, cs_user_get(cs, t))) {
		smp_store_release(&t->user_mm, NULL);
		p->err = -ENOMEM;
		lab_chan_close_tx(&p->ba);	/* the task sees end of stream */
		return NULL;
	}
	getrusage(RUSAGE_THREAD, &r0);
	for (;;) {
		if (cs_block(cs, cpu, &p->ab) <= 0)
			break;
		if (!measuring && READ_ONCE(cs->cell->phase) == LAB_PHASE_MEASURE) {
			measuring = true;
			getrusage(RUSAGE_THREAD, &r0);
			lab_events_reset();
		}
		if (lab_chan_send(&p->ba))
			break;
	}
	getrusage(RUSAGE_THREAD, &r1);
	lab_lazy_cpu_offline(cs->d, cpu);
	smp_store_release(&t->user_mm, NULL);	/* exit_mm */
	if (measuring) {
		p->nvcsw = nvcsw_of(&r1) - nvcsw_of(&r0);
		p->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
		lab_events_snapshot(&p->events);
	}
	return NULL;
}

/* The owner: replace the process's mm recreate_hz times a second, release the old one under load. */
static void *cs_owner(void *arg)
{
	struct cs *cs = arg;
	uint64_t period = 1000000000ull / (uint64_t)cs->recreate_hz, next = lab_clock_ns() + period;
	bool measuring = false;

	for (;;) {
		uint32_t ph = READ_ONCE(cs->cell->phase);
		struct lab_lazy_mm *old, *mm;
		uint64_t now = lab_clock_ns(), t0, dt;

		if (ph == LAB_PHASE_STOP)
			break;
		if (!measuring && ph == LAB_PHASE_MEASURE) {
			measuring = true;
			lab_events_reset();
			cs->releases = cs->release_ns_sum = cs->release_ns_max = 0;
			cs->deferred0 = READ_ONCE(cs->d->deferred_frees);
		}
		if (now < next) {
			lab_sleep_ns(next - now < 20000000ull ? next - now : 20000000ull);
			continue;
		}
		next = next + period > now ? next + period : now + period;
		mm = lab_lazy_mm_alloc(cs->d);
		if (!mm)
			break;
		old = cs->cur;
		/* Release: the new mm is initialised before tasks can load it. */
		smp_store_release(&cs->cur, mm);
		/* Full barrier: publish before scanning the user references (pairs with cs_user_get). */
		smp_mb();
		/*
		 * Acquire: a task seen off the old mm has its lazy grab visible (pairs with
		 * cs_user_get). Yield rather than sleep at first, so that the release often
		 * comes while the last tasks to move still borrow the old mm.
		 */
		for (int i = 0; i < 2 * cs->npairs; i++)
			for (unsigned polls = 0; smp_load_acquire(&cs->task[i].user_mm) == old; polls++) {
				if (polls < 1000)
					sched_yield();
				else
					lab_sleep_ns(10000);
			}
		t0 = lab_clock_ns();
		lab_lazy_release(cs->d, old);
		dt = lab_clock_ns() - t0;
		if (measuring) {
			cs->releases++;
			cs->release_ns_sum += dt;
			cs->release_ns_max = dt > cs->release_ns_max ? dt : cs->release_ns_max;
		}
	}
	if (measuring)
		lab_events_snapshot(&cs->owner_events);
	return NULL;
}

static void cs_worker(void *state, struct lab_worker *w)
{
	struct cs *cs = state;
	struct cs_pair *p = &cs->pair[w->id];
	int cpu = 2 * w->id;
	struct cs_task *t = &cs->task[cpu];
	struct rusage r0, r1;
	bool owner = w->id == 0 && cs->recreate_hz > 0, measuring = false;

	memset(&p->events, 0, sizeof(p->events));
	p->nvcsw = p->nivcsw = 0;
	p->err = 0;
	p->pu = w->cpu;
	if (lab_chan_open(&p->ab) || lab_chan_open(&p->ba)) {
		lab_chan_close(&p->ab);
		w->count[C_ERR] = 1;
		return;
	}
	if (lab_lazy_cpu_online(cs->d, cpu, cs_user_get(cs, t))) {
		smp_store_release(&t->user_mm, NULL);
		goto out_chan;
	}
	/* Created from the pinned task: the partner inherits its CPU (will-it-scale's new_task). */
	if (lab_thread_create(&p->partner, cs_partner, p)) {
		lab_lazy_cpu_offline(cs->d, cpu);
		smp_store_release(&t->user_mm, NULL);
		goto out_chan;
	}
	if (owner) {
		memset(&cs->owner_events, 0, sizeof(cs->owner_events));
		cs->releases = cs->release_ns_sum = cs->release_ns_max = 0;
		cs->deferred0 = READ_ONCE(cs->d->deferred_frees);
		if (lab_thread_create(&cs->owner, cs_owner, cs))
			owner = false;
	}
	getrusage(RUSAGE_THREAD, &r0);
	for (;;) {
		if (!lab_worker_running(w))
			break;
		if (!measuring && w->phase_seen == LAB_PHASE_MEASURE) {
			measuring = true;
			getrusage(RUSAGE_THREAD, &r0);
		}
		if (lab_chan_send(&p->ab) || cs_block(cs, cpu, &p->ba) <= 0) {
			w->count[C_ERR] = 1;
			break;
		}
		w->ops += 2;
	}
	getrusage(RUSAGE_THREAD, &r1);
	lab_chan_close_tx(&p->ab);	/* the partner reads end of stream and exits */
	lab_thread_join(p->partner, NULL);
	lab_lazy_cpu_offline(cs->d, cpu);
	smp_store_release(&t->user_mm, NULL);	/* exit_mm */
	if (owner) {
		lab_thread_join(cs->owner, NULL);
		lab_events_accumulate(&lab_events_tls, &cs->owner_events);
	}
	if (measuring) {
		w->count[C_NVCSW] = (uint64_t)(nvcsw_of(&r1) - nvcsw_of(&r0) + p->nvcsw);
		w->count[C_NIVCSW] = (uint64_t)(r1.ru_nivcsw - r0.ru_nivcsw + p->nivcsw);
		lab_events_accumulate(&lab_events_tls, &p->events);
	}
	if (p->err)
		w->count[C_ERR] = 1;
out_chan:
	lab_chan_close(&p->ab);
	lab_chan_close(&p->ba);
}

static void cs_free(struct cs *cs)
{
	if (cs->cur)
		lab_lazy_release(cs->d, cs->cur);
	lab_lazy_domain_destroy(cs->d);
	free(cs->lru_gen_bitmap);
	free(cs->task);
	free(cs->pair);
	free(cs);
}

/* Per pair: the task, its partner and their CPU slots' two interrupt threads; one owner; 2 slots per pair. */
static int cs_max_threads(const struct lab_workload_conf *wl, int tasks)
{
	int n = (tasks - 1) / 4;

	(void)wl;
	return n < LAB_LAZY_MAX_CPUS / 2 ? n : LAB_LAZY_MAX_CPUS / 2;
}

static int cs_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct cs *cs;
	int n = cell->nthreads;

	if (!cell->lazy_mm) {
		snprintf(err, errlen, "context_switch: no lazy-mm scheme (-m)");
		return -1;
	}
	if (n > cs_max_threads(cell->wl, LAB_MAX_TASKS - LAB_HARNESS_TASKS)) {	/* run checked it already */
		snprintf(err, errlen, "context_switch: %d pairs need %d threads (max %d pairs)", n, 4 * n + 2,
			 cs_max_threads(cell->wl, LAB_MAX_TASKS - LAB_HARNESS_TASKS));
		return -1;
	}
	if (lab_lazy_mm_allowed(cell->lazy_mm, cell->wl->knob[K_RECREATE_HZ] > 0, cell->run->allow_unsafe, err,
				errlen))
		return -1;
	cs = aligned_alloc(LAB_CACHELINE, sizeof(*cs));
	if (!cs) {
		snprintf(err, errlen, "context_switch: out of memory");
		return -1;
	}
	memset(cs, 0, sizeof(*cs));
	cs->cell = cell;
	cs->npairs = n;
	cs->placement = (int)cell->wl->knob[K_PLACEMENT];
	cs->recreate_hz = cell->wl->knob[K_RECREATE_HZ];
	cs->npus = cell->npus;
	if (cell->wl->knob[K_LRU_GEN] && cs->recreate_hz > 0) {
		snprintf(err, errlen, "context_switch: lru_gen=1 models the one mm's bitmap: not with recreate_hz > 0");
		free(cs);
		return -1;
	}
	if (cell->wl->knob[K_LRU_GEN]) {
		cs->lru_gen_bitmap = aligned_alloc(LAB_CACHELINE, LAB_CACHELINE);
		if (!cs->lru_gen_bitmap) {
			snprintf(err, errlen, "context_switch: out of memory");
			free(cs);
			return -1;
		}
		*cs->lru_gen_bitmap = 0;	/* lru_gen_init_mm() */
	}
	if (lab_lazy_domain_create(&cs->d, cell->lazy_mm, 2 * n, err, errlen)) {
		free(cs);
		return -1;
	}
	cs->cur = lab_lazy_mm_alloc(cs->d);
	cs->task = aligned_alloc(LAB_CACHELINE, (size_t)(2 * n) * sizeof(*cs->task));
	cs->pair = aligned_alloc(LAB_CACHELINE, (size_t)n * sizeof(*cs->pair));
	if (!cs->cur || !cs->task || !cs->pair) {
		snprintf(err, errlen, "context_switch: out of memory for %d pairs", n);
		cs_free(cs);
		return -1;
	}
	memset(cs->task, 0, (size_t)(2 * n) * sizeof(*cs->task));
	memset(cs->pair, 0, (size_t)n * sizeof(*cs->pair));
	for (int i = 0; i < n; i++) {
		cs->pair[i].cs = cs;
		cs->pair[i].idx = i;
	}
	*state = cs;
	return 0;
}

static void cs_metrics(void *state, const struct lab_iter *it, struct lab_sink *sink)
{
	struct cs *cs = state;
	double sum, csw = 0, icsw = 0;
	bool err = false;

	for (int i = 0; i < it->nthreads; i++) {
		csw += (double)it->workers[i].count[C_NVCSW];
		icsw += (double)it->workers[i].count[C_NIVCSW];
		err |= it->workers[i].count[C_ERR] != 0;
	}
	if (err)
		fprintf(stderr, "\n%s: context_switch: a pair failed (pipe, thread or CPU slot); its counts are short\n",
			lab_prog());
	sum = lab_emit_rates(sink, it);
	lab_emit(sink, "round_trips", sum / 2, "count", LAB_BETTER_NONE);
	lab_emit(sink, "nvcsw_threads", csw, "count", LAB_BETTER_NONE);
	lab_emit(sink, "nivcsw_threads", icsw, "count", LAB_BETTER_NONE);
	lab_emit(sink, "csw_per_round_trip", sum ? (csw + icsw) / (sum / 2) : 0, "count", LAB_BETTER_NONE);
	if (cs->recreate_hz > 0) {
		lab_emit(sink, "releases", (double)cs->releases, "count", LAB_BETTER_NONE);
		lab_emit(sink, "release_us_mean",
			 cs->releases ? (double)cs->release_ns_sum / (double)cs->releases / 1e3 : 0, "us",
			 LAB_BETTER_LOWER);
		lab_emit(sink, "release_us_max", (double)cs->release_ns_max / 1e3, "us", LAB_BETTER_LOWER);
		lab_emit(sink, "release_ipis", (double)cs->owner_events.count[LAB_EV_lazy_tlb_ipi], "count",
			 LAB_BETTER_NONE);
		lab_emit(sink, "release_shoots", (double)cs->owner_events.count[LAB_EV_lazy_tlb_shoot], "count",
			 LAB_BETTER_NONE);
		lab_emit(sink, "deferred_frees", (double)(READ_ONCE(cs->d->deferred_frees) - cs->deferred0), "count", LAB_BETTER_NONE);
	}
}

static void cs_teardown(void *state)
{
	cs_free(state);
}


const struct lab_workload_ops lab_workload_context_switch = {
	.name = "context_switch",
	.simulated = true,
	.summary = "will-it-scale context_switch1_threads: -t pairs ping-pong over pipes, lazy mm on every block",
	.cite = "will-it-scale tests/context_switch1.c (threads); Piggin 2023, Desnoyers 2024 (docs/kernel.md §5)",
	.kind = LAB_WL_TIMED,
	.knobs = cs_knobs,
	.headline = "ops_per_s",
	.uses_lazy_mm = true,
	.count_unit = "pairs",
	.max_threads = cs_max_threads,
	.setup = cs_setup,
	.worker = cs_worker,
	.metrics = cs_metrics,
	.teardown = cs_teardown,
};
