/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * refcount - lazy-TLB mm references counted in mm->mm_count
 * (CONFIG_MMU_LAZY_TLB_REFCOUNT=y, the default on every architecture but
 * powerpc Book3S-64).
 *
 * Citation: v6.4..v6.18 include/linux/sched/mm.h mmgrab_lazy_tlb() /
 * mmdrop_lazy_tlb(), kernel/fork.c __mmdrop(); arch/Kconfig
 * MMU_LAZY_TLB_REFCOUNT (docs/kernel.md §5.2). Before v6.4 the same
 * inc/dec was open-coded in context_switch() as mmgrab()/mmdrop().
 *
 * Design summary:
 * - grab (user -> kernel thread): atomic_inc(&mm->mm_count), no ordering;
 * - drop (kernel thread -> user): atomic_dec_and_test(&mm->mm_count), a fully
 *   ordered RMW (the full barrier membarrier needs on that path); the CPU
 *   whose drop reaches zero frees the mm (__mmdrop);
 * - release: the owner's mmdrop is the same dec_and_test; if lazy CPUs still
 *   hold references it returns at once and the last of them frees the mm
 *   (LAB_LAZY_MAY_DEFER);
 * - cost: every switch to and from a kernel thread writes the one shared
 *   mm_count cache line, from every CPU: the contention that made
 *   context_switch1_threads slow at high CPU counts (1 M -> 118 M context
 *   switches/s on a 192-core POWER8 once shootdown removed it);
 * - mm_cpumask is kept on the switch path (x86 does), so TLB flushes read it.
 *
 * State (mm->mm_count, a long on its own cache line):
 *
 *   63                                                  0
 *   +----------------------------------------------------+
 *   |  1 (owner's reference, until release) + lazy CPUs  |
 *   +----------------------------------------------------+
 *   0 = free the mm.
 */
#include "events.h"
#include "lazy_mm.h"

static int refcount_init(struct lab_lazy_domain *d, int ncpus, const struct lab_lazy_mm_conf *conf)
{
	(void)d;
	(void)ncpus;
	(void)conf;
	return 0;
}

static void refcount_grab(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	(void)d;
	(void)cpu;
	atomic_inc(&mm->mm_count);
}

/* mmdrop(): atomic_dec_and_test, fully ordered: every earlier use of mm before the free. */
static void refcount_put(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	if (atomic_sub_return(&mm->mm_count, 1) == 0)
		lab_lazy_mm_free(d, mm);
}

static void refcount_drop(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	(void)cpu;
	refcount_put(d, mm);
}

static void refcount_release(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	refcount_put(d, mm);
}

const struct lab_lazy_mm_ops lab_lazy_mm_refcount_ops = {
	.name = "refcount",
	.summary = "atomic mm_count on one shared line: inc on grab, dec_and_test (full barrier) on drop",
	.cite = "MMU_LAZY_TLB_REFCOUNT, v6.4..v6.18 include/linux/sched/mm.h mmgrab/mmdrop_lazy_tlb",
	.flags = LAB_LAZY_CPUMASK | LAB_LAZY_MAY_DEFER,
	.events = LAB_EVENTS(LAB_LAZY_EVENTS),
	.init = refcount_init,
	.grab = refcount_grab,
	.drop = refcount_drop,
	.release = refcount_release,
};
