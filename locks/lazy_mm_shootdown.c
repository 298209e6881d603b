/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shootdown - no lazy reference count; the final mmdrop "shoots" the lazy
 * CPUs off the mm (CONFIG_MMU_LAZY_TLB_SHOOTDOWN).
 *
 * Citation: Nicholas Piggin, "lazy tlb: shoot lazies, non-refcounting lazy tlb
 * mm reference handling scheme", v7 series 2023-02-03, merged for v6.4
 * (kernel/fork.c cleanup_lazy_tlbs(), do_shoot_lazy_tlb(); selected by
 * powerpc Book3S-64 only); docs/kernel.md §5.3. Rik van Riel proposed
 * the same idea in 2018.
 *
 * Design summary:
 * - grab: nothing (mmgrab_lazy_tlb without refcounting);
 * - drop: smp_mb() only, the full barrier membarrier needs on that path;
 * - release (__mmdrop -> cleanup_lazy_tlbs): "IPI" every CPU in mm_cpumask and
 *   wait for all of them (on_each_cpu_mask(..., wait=1)); a CPU that runs a
 *   kernel thread on the mm switches to init_mm in the handler; then free;
 * - correctness needs mm_cpumask to contain every CPU that may have the mm
 *   loaded lazily: the framework sets a CPU's bit whenever it loads the mm and
 *   clears it only when it loads something else, so a lazy CPU keeps its bit;
 * - cost: nothing shared on the switch path; release pays one IPI round trip
 *   per CPU in the mask, lazy or not (Piggin counted 314 extra IPIs in a
 *   144-CPU kernel compile). IPIs here are mailbox + futex wake + ack.
 *
 * State: none per CPU beyond the framework's; per mm, mm_cpumask:
 *
 *   cpumask[0]  bit c = CPU slot c has the mm loaded (user or lazy)
 *   ...         (LAB_LAZY_MAX_CPUS bits, four cache lines)
 */
#include "events.h"
#include "lazy_mm.h"

static int shootdown_init(struct lab_lazy_domain *d, int ncpus, const struct lab_lazy_mm_conf *conf)
{
	(void)d;
	(void)ncpus;
	(void)conf;
	return 0;
}

static void shootdown_grab(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	(void)d;
	(void)cpu;
	(void)mm;
}

static void shootdown_drop(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	(void)d;
	(void)cpu;
	(void)mm;
	/* mmdrop_lazy_tlb() without a count: the membarrier full barrier stays. */
	smp_mb();
}

static void shootdown_release(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	unsigned long mask[LAB_LAZY_CPUMASK_LONGS];
	int shot;

	/* Full barrier: the users' departure before reading mm_cpumask. */
	smp_mb();
	/* Acquire: a CPU whose bit reads clear has finished with the mm (pairs with mask_clear). */
	for (size_t w = 0; w < LAB_LAZY_CPUMASK_LONGS; w++)
		mask[w] = smp_load_acquire(&mm->cpumask[w]);
	shot = lab_lazy_ipi_many(d, mask, lab_lazy_shoot_lazy_ipi, mm);
	lockevent_add(lazy_tlb_shoot, shot);
	lab_lazy_mm_free(d, mm);
}

const struct lab_lazy_mm_ops lab_lazy_mm_shootdown_ops = {
	.name = "shootdown",
	.summary = "no lazy count; release IPIs every CPU in mm_cpumask and waits, lazies switch to init_mm",
	.cite = "MMU_LAZY_TLB_SHOOTDOWN (Piggin, v6.4 kernel/fork.c cleanup_lazy_tlbs/do_shoot_lazy_tlb)",
	.flags = LAB_LAZY_CPUMASK | LAB_LAZY_IPI,
	.events = LAB_EVENTS(LAB_LAZY_EVENTS, LAB_EV_lazy_tlb_shoot),
	.init = shootdown_init,
	.grab = shootdown_grab,
	.drop = shootdown_drop,
	.release = shootdown_release,
};
