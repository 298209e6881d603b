/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tlb_flush - the counterpart of context_switch: threads of one mm keep
 * changing its page tables, and every change must reach every CPU that has
 * the mm loaded, found through the per-CPU state the lazy-mm scheme keeps.
 *
 * Citation: will-it-scale tests/tlb_flush2.c ("TLB flush of anonymous memory
 * private mapping": per page, write one byte, then madvise(MADV_DONTNEED) that
 * page, which flushes the TLB of every CPU running the mm; iteration++ per
 * page), threads build. Paired with context_switch1 because of the trade-off
 * Desnoyers measured in Dec 2024 when the switch path stopped maintaining
 * mm_cpumask with shared atomics: +50% context_switch1_threads but -33%
 * tlb_flush2_threads at 192 threads (docs/kernel.md §5.4, docs/kernel.md §5.4).
 *
 * One operation (tlb_flush2's inner loop, on the model):
 * - write one byte in the thread's own pre-faulted page (the touch; with
 *   madvise=1 also a real madvise(MADV_DONTNEED) of a real page, so the host
 *   kernel's own flush is paid too);
 * - lab_lazy_flush_mm(): bump the mm's flush generation and make every CPU
 *   slot that has the mm loaded catch up: the own CPU locally, the others by
 *   "IPI" (mailbox + futex wake + acknowledgement). LAB_LAZY_CPUMASK schemes
 *   (refcount, shootdown, none) find them in mm_cpumask, which their switch
 *   path keeps; the per-CPU schemes (hazptr, hpref, percpu-ref) keep no shared
 *   per-mm state and scan every CPU slot;
 * - idle_every=K > 0: every K operations the thread sleeps idle_us as the
 *   idle kernel thread (its CPU borrows the mm lazily, so flushes reach lazy
 *   CPUs too). Default 0: like tlb_flush2, threads never sleep.
 *
 * Under --sim (build/rwlab-sim): the "IPIs" are the engine's
 * interrupts (sim_ipi_send, via locks/lazy_mm.c): each reaches the simulated
 * CPU of the target slot's thread cost.ipi_ns after the send and runs the
 * flush handler there at once, preempting the thread (which may itself be
 * waiting for its own flush's acknowledgements) without a context switch;
 * the sender spins until every handler has acknowledged. madvise=1 charges
 * what tlb_flush2's real per-page work costs on top of the flush: the
 * madvise system call (cost.syscall_ns) and the write fault that maps a new
 * zeroed page (cost.fault_ns, cost.page_alloc_ns, 4 KiB of zeroing); the
 * host's own madvise is still made but costs no virtual time.
 *
 * No mm is released here, so none is accepted as the floor.
 * Metrics: ops_per_s (headline), ops_per_s_min/max (per thread), ipis_per_op.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "err.h"
#include "lazy_mm.h"
#include "wait.h"
#include "workload.h"

enum { K_MADVISE, K_IDLE_EVERY, K_IDLE_US };
enum { C_IPIS, C_ERR };

static const struct lab_knob tf_knobs[] = {
	[K_MADVISE] = { .name = "madvise", .type = LAB_KNOB_BOOL, .def = 0,
			.help = "also madvise(MADV_DONTNEED) a real page per operation (the host's flush)" },
	[K_IDLE_EVERY] = { .name = "idle_every", .type = LAB_KNOB_INT, .def = 0, .min = 0, .max = 1000000000,
			   .help = "every K operations sleep as the idle kernel thread (0: never, as tlb_flush2)" },
	[K_IDLE_US] = { .name = "idle_us", .type = LAB_KNOB_INT, .def = 50, .min = 1, .max = 1000000,
			.help = "length of that sleep, microseconds" },
	{ 0 }
};

struct tf {
	struct lab_lazy_domain *d;
	struct lab_lazy_mm *mm;
	bool madvise;
	long idle_every;
	uint64_t idle_ns;
	long pgsize;
};

/* Simulated: madvise(MADV_DONTNEED) of the page and the write fault that refills it (natively: nothing). */
static void tf_charge_madvise(void)
{
	lab_kernel_work(LAB_KWORK_SYSCALL);
	lab_kernel_work(LAB_KWORK_FAULT);
	lab_kernel_work(LAB_KWORK_PAGE_ALLOC);
	lab_kernel_work(LAB_KWORK_CLEAR_PAGE);
}

static void tf_worker(void *state, struct lab_worker *w)
{
	struct tf *tf = state;
	int cpu = w->id;
	char *page = mmap(NULL, (size_t)tf->pgsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t n = 0;

	if (page == MAP_FAILED) {
		w->count[C_ERR] = 1;
		return;
	}
	page[0] = 0;
	if (lab_lazy_cpu_online(tf->d, cpu, tf->mm)) {
		munmap(page, (size_t)tf->pgsize);
		w->count[C_ERR] = 1;
		return;
	}
	while (lab_worker_running(w)) {
		WRITE_ONCE(page[0], 1);
		if (tf->madvise) {
			if (madvise(page, (size_t)tf->pgsize, MADV_DONTNEED))
				w->count[C_ERR] = 1;
			tf_charge_madvise();
		}
		w->count[C_IPIS] += (uint64_t)lab_lazy_flush_mm(tf->d, cpu, tf->mm);
		w->ops++;
		if (tf->idle_every && ++n % (uint64_t)tf->idle_every == 0) {
			lab_lazy_switch_to_kthread(tf->d, cpu);
			lab_sleep_ns(tf->idle_ns);
			lab_lazy_switch_to_user(tf->d, cpu, tf->mm);
		}
	}
	lab_lazy_cpu_offline(tf->d, cpu);
	munmap(page, (size_t)tf->pgsize);
}

static void tf_free(struct tf *tf)
{
	if (tf->mm)
		lab_lazy_release(tf->d, tf->mm);
	lab_lazy_domain_destroy(tf->d);
	free(tf);
}

/* Per thread: the worker and its CPU slot's interrupt thread. */
static int tf_max_threads(const struct lab_workload_conf *wl, int tasks)
{
	(void)wl;
	return tasks / 2;
}

static int tf_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct tf *tf;
	int n = cell->nthreads;

	if (!cell->lazy_mm) {
		snprintf(err, errlen, "tlb_flush: no lazy-mm scheme (-m)");
		return -1;
	}
	if (n > tf_max_threads(cell->wl, LAB_MAX_TASKS - LAB_HARNESS_TASKS)) {	/* run checked it already */
		snprintf(err, errlen, "tlb_flush: %d threads need %d task ids (max %d threads)", n, 2 * n + 1,
			 tf_max_threads(cell->wl, LAB_MAX_TASKS - LAB_HARNESS_TASKS));
		return -1;
	}
	if (lab_lazy_mm_allowed(cell->lazy_mm, false, cell->run->allow_unsafe, err, errlen))
		return -1;
	tf = calloc(1, sizeof(*tf));
	if (!tf) {
		snprintf(err, errlen, "tlb_flush: out of memory");
		return -1;
	}
	tf->madvise = cell->wl->knob[K_MADVISE] != 0;
	tf->idle_every = cell->wl->knob[K_IDLE_EVERY];
	tf->idle_ns = (uint64_t)cell->wl->knob[K_IDLE_US] * 1000;
	tf->pgsize = sysconf(_SC_PAGESIZE);
	if (lab_lazy_domain_create(&tf->d, cell->lazy_mm, n, err, errlen)) {
		free(tf);
		return -1;
	}
	tf->mm = lab_lazy_mm_alloc(tf->d);
	if (!tf->mm) {
		snprintf(err, errlen, "tlb_flush: out of memory");
		tf_free(tf);
		return -1;
	}
	*state = tf;
	return 0;
}

static void tf_metrics(void *state, const struct lab_iter *it, struct lab_sink *sink)
{
	double sum, ipis = 0;
	bool err = false;

	(void)state;
	for (int i = 0; i < it->nthreads; i++) {
		ipis += (double)it->workers[i].count[C_IPIS];
		err |= it->workers[i].count[C_ERR] != 0;
	}
	if (err)
		fprintf(stderr, "\n%s: tlb_flush: a thread failed (mmap, madvise or CPU slot)\n", lab_prog());
	sum = lab_emit_rates(sink, it);
	lab_emit(sink, "ipis_per_op", sum ? ipis / sum : 0, "count", LAB_BETTER_NONE);
}

static void tf_teardown(void *state)
{
	tf_free(state);
}


const struct lab_workload_ops lab_workload_tlb_flush = {
	.name = "tlb_flush",
	.summary = "will-it-scale tlb_flush2_threads-like: flush every CPU that has the mm, found via the scheme",
	.cite = "will-it-scale tests/tlb_flush2.c (threads); Desnoyers Dec 2024 mm_cpumask trade-off (docs/kernel.md §5.4)",
	.kind = LAB_WL_TIMED,
	.knobs = tf_knobs,
	.headline = "ops_per_s",
	.uses_lazy_mm = true,
	.simulated = true,
	.max_threads = tf_max_threads,
	.setup = tf_setup,
	.worker = tf_worker,
	.metrics = tf_metrics,
	.teardown = tf_teardown,
};
