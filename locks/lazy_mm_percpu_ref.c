/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * percpu-ref - the lazy mm references as a percpu_ref: per-CPU counters while
 * the mm lives, switched to one atomic count when the mm is killed.
 *
 * Citation: lib/percpu-refcount.c and include/linux/percpu-refcount.h (Kent
 * Overstreet 2013, Tejun Heo's mode switching 2014; v6.18):
 * percpu_ref_get/put, percpu_ref_kill -> __percpu_ref_switch_to_atomic ->
 * percpu_ref_switch_to_atomic_rcu. Listed among the lazy-mm lifetime
 * variants to compare in docs/kernel.md §5.6. The kernel never used it
 * for mm_count; this is the lab's what-if.
 *
 * Design summary:
 * - each mm carries one counter per CPU slot (its own cache line each, like
 *   per-CPU memory) plus mm_count, which in per-CPU mode holds
 *   PERCPU_COUNT_BIAS + the owner's reference so that it never reaches zero;
 * - grab/drop: inside an RCU read-side section (rcu_read_lock_sched in the
 *   kernel; liburcu's urcu-memb flavour here), read the mode: per-CPU mode ->
 *   add +-1 to this CPU's counter with a plain (non-atomic) RMW, only this
 *   CPU writes it; atomic mode -> atomic inc / dec_and_test of mm_count, the
 *   last dec frees;
 * - release (percpu_ref_kill + the owner's put): set ATOMIC|DEAD, wait for an
 *   RCU grace period (every get/put that saw per-CPU mode has finished; the
 *   kernel uses call_rcu, the lab waits synchronously), add the per-CPU sum
 *   minus the bias to mm_count, then drop the owner's reference: the last lazy
 *   drop frees if lazy CPUs remain (LAB_LAZY_MAY_DEFER);
 * - cost: no shared write on the switch path, an RCU read section (urcu-memb:
 *   a per-thread nesting store and, with sys_membarrier, no fence) and a load
 *   of the mm's mode word; release pays a grace period;
 * - CPU slot threads register as RCU readers in cpu_online;
 * - TLB flushes scan the CPU slots (no cpumask kept on the switch path).
 *
 * Per-mm area (mm->priv) and mm_count:
 *
 *   mode       PERCPU_REF_PERCPU (0) | PERCPU_REF_ATOMIC (1) | PERCPU_REF_DEAD (2)
 *   count[c]   one long per CPU slot, one cache line each, signed sum = lazy refs
 *   mm_count   per-CPU mode: 2^62 (bias) + 1 (owner); atomic mode: owner + lazy refs
 */
/*
 * liburcu's inline read-side fast paths, except under ThreadSanitizer: inlined
 * into instrumented code they race (for TSan) with the uninstrumented library's
 * futex handshake; the library calls are not instrumented.
 */
#include "compiler.h"
#if LAB_SIM
#include "rcu_sim.h"	/* the simulated build's RCU (liburcu cannot run on the engine's coroutines) */
#else
#if !defined(__SANITIZE_THREAD__)
#define _LGPL_SOURCE
#endif
#include <urcu/urcu-memb.h>
#endif

#include "events.h"
#include "lazy_mm.h"
#include "rcu.h"

#define PERCPU_REF_PERCPU	0ul
#define PERCPU_REF_ATOMIC	1ul
#define PERCPU_REF_DEAD		2ul
#define PERCPU_COUNT_BIAS	(1l << 62)

struct pcpu_count {
	long v;
} __lab_cacheline_aligned;

struct pcpu_ref {
	unsigned long mode __lab_cacheline_aligned;
	struct pcpu_count count[];	/* ncpus */
};

static inline struct pcpu_ref *pcpu_ref_of(struct lab_lazy_mm *mm)
{
	return mm->priv;
}

static int percpu_ref_init(struct lab_lazy_domain *d, int ncpus, const struct lab_lazy_mm_conf *conf)
{
	(void)conf;
	d->mm_extra = sizeof(struct pcpu_ref) + (size_t)ncpus * sizeof(struct pcpu_count);
	return 0;
}

/* percpu_ref_init(): per-CPU mode, counters zero (the allocation is zeroed), biased count. */
static void percpu_ref_mm_init(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	(void)d;
	WRITE_ONCE(pcpu_ref_of(mm)->mode, PERCPU_REF_PERCPU);
	WRITE_ONCE(mm->mm_count, PERCPU_COUNT_BIAS + 1);
}

static void percpu_ref_cpu_online(struct lab_lazy_domain *d, int cpu)
{
	(void)d;
	(void)cpu;
	lab_rcu_thread_online();
}

static void percpu_ref_cpu_offline(struct lab_lazy_domain *d, int cpu)
{
	/* The thread stays registered until it exits (locks/rcu.h). */
	(void)d;
	(void)cpu;
}

static void percpu_ref_grab(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	struct pcpu_ref *p = pcpu_ref_of(mm);

	(void)d;
	urcu_memb_read_lock();
	if (lab_likely(READ_ONCE(p->mode) == PERCPU_REF_PERCPU))
		WRITE_ONCE(p->count[cpu].v, READ_ONCE(p->count[cpu].v) + 1);	/* this_cpu_inc */
	else
		atomic_inc(&mm->mm_count);
	urcu_memb_read_unlock();
}

static void percpu_ref_drop(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	struct pcpu_ref *p = pcpu_ref_of(mm);
	bool last = false;

	urcu_memb_read_lock();
	if (lab_likely(READ_ONCE(p->mode) == PERCPU_REF_PERCPU))
		/* this_cpu_dec. Release: the CPU's uses of the mm before the count the killer sums. */
		smp_store_release(&p->count[cpu].v, READ_ONCE(p->count[cpu].v) - 1);
	else
		/* Fully ordered: every use of the mm before the free. */
		last = atomic_sub_return(&mm->mm_count, 1) == 0;
	urcu_memb_read_unlock();
	if (last)
		lab_lazy_mm_free(d, mm);
}

static void percpu_ref_release(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	struct pcpu_ref *p = pcpu_ref_of(mm);
	long sum = 0;

	/* percpu_ref_kill: new gets and puts go to the atomic count from now on. */
	WRITE_ONCE(p->mode, PERCPU_REF_ATOMIC | PERCPU_REF_DEAD);
	/* Grace period: every read section that saw per-CPU mode has ended, its counter write is visible. */
	urcu_memb_synchronize_rcu();
	/*
	 * Acquire: pairs with drop's release, so the uses behind a counted drop come
	 * before a free (the grace period already orders them; this makes it explicit
	 * to ThreadSanitizer, which cannot see liburcu's membarrier).
	 */
	for (int cpu = 0; cpu < d->ncpus; cpu++)
		sum += smp_load_acquire(&p->count[cpu].v);
	/* percpu_ref_switch_to_atomic_rcu: fold the per-CPU sum in and remove the bias. */
	atomic_add(&mm->mm_count, sum - PERCPU_COUNT_BIAS);
	lockevent_inc(percpu_ref_atomic);
	/* The owner's percpu_ref_put, fully ordered. */
	if (atomic_sub_return(&mm->mm_count, 1) == 0)
		lab_lazy_mm_free(d, mm);
}

const struct lab_lazy_mm_ops lab_lazy_mm_percpu_ref_ops = {
	.name = "percpu-ref",
	.summary = "percpu_ref: per-CPU counters under RCU, switched to atomic mm_count when the mm is killed",
	.cite = "lib/percpu-refcount.c (Overstreet 2013, Heo 2014; v6.18) percpu_ref_get/put/kill",
	.flags = LAB_LAZY_MAY_DEFER,
	.events = LAB_EVENTS(LAB_LAZY_EVENTS, LAB_EV_percpu_ref_atomic),
	.init = percpu_ref_init,
	.mm_init = percpu_ref_mm_init,
	.cpu_online = percpu_ref_cpu_online,
	.cpu_offline = percpu_ref_cpu_offline,
	.grab = percpu_ref_grab,
	.drop = percpu_ref_drop,
	.release = percpu_ref_release,
};
