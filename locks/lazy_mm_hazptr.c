/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hazptr - one hazard-pointer slot per CPU tracks the lazy active mm
 * (Mathieu Desnoyers' design).
 *
 * Citation: M. Desnoyers, "[RFC PATCH v1..v3] sched+mm: Track lazy active mm
 * existence with hazard pointers", LKML 2024-10-01..08 (v3 msg-id
 * 20241008135034.1982519-1-mathieu.desnoyers@efficios.com, on v6.11.1; not
 * merged); patch 3 hazptr_try_protect/hazptr_retire/hazptr_scan, patch 4
 * mmgrab_lazy_tlb/mmdrop_lazy_tlb/cleanup_lazy_tlbs; M. M. Michael, "Hazard
 * pointers", IEEE TPDS 15(6), 2004. docs/kernel.md §5.4.
 *
 * Design summary:
 * - one slot per CPU per domain ("each CPU only ever has at most one lazy
 *   active mm"), each on its own cache line;
 * - grab: smp_mb(), then a plain store of mm into this CPU's slot (Store B;
 *   the slot must be empty: a busy slot is a bug). The caller's user reference
 *   guarantees that mm exists, so no re-check of a published pointer follows;
 * - drop: smp_store_release(slot, NULL) (hazptr_retire); no shared write at
 *   all on the switch path;
 * - release (hazptr_scan with a callback): smp_mb() (Store A, the users'
 *   departure, before Load B), then for every CPU: if its slot holds mm,
 *   "IPI" that CPU only, whose handler switches it to init_mm and clears the
 *   slot; then wait while the slot still holds mm (v2's scan did both: a CPU
 *   that was past its switch but before its drop clears the slot itself).
 *   Then free. O(ncpus) loads per release, IPIs only to CPUs using the mm;
 * - TLB flushes cannot read a cpumask the switch path does not keep: they scan
 *   every CPU slot (the per-CPU state trade-off, lazy_mm.h).
 *
 * Per-CPU slot (one cache line each):
 *
 *   +-------------------------------+-----------------+
 *   | addr: NULL or the lazy mm     | (pad to 64 B)   |
 *   +-------------------------------+-----------------+
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "events.h"
#include "lazy_mm.h"

struct hazptr_slot {
	struct lab_lazy_mm *addr;
} __lab_cacheline_aligned;

struct hazptr_domain {
	struct hazptr_slot *slots;	/* ncpus */
};

static int hazptr_init(struct lab_lazy_domain *d, int ncpus, const struct lab_lazy_mm_conf *conf)
{
	struct hazptr_domain *h = d->priv;

	(void)conf;
	h->slots = aligned_alloc(LAB_CACHELINE, (size_t)ncpus * sizeof(*h->slots));
	if (!h->slots)
		return -ENOMEM;
	for (int i = 0; i < ncpus; i++)
		WRITE_ONCE(h->slots[i].addr, NULL);
	return 0;
}

static void hazptr_destroy(struct lab_lazy_domain *d)
{
	struct hazptr_domain *h = d->priv;

	free(h->slots);
}

static void hazptr_grab(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	struct hazptr_slot *s = &((struct hazptr_domain *)d->priv)->slots[cpu];

	/* Full barrier: the membarrier requirement, moved here from mmdrop by the RFC. */
	smp_mb();
	if (lab_unlikely(READ_ONCE(s->addr)))
		lab_lazy_mm_bug(mm, "hazptr grab: the CPU's slot is busy");
	WRITE_ONCE(s->addr, mm);	/* Store B: ordered before the user reference goes (release store there) */
}

static void hazptr_drop(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	struct hazptr_slot *s = &((struct hazptr_domain *)d->priv)->slots[cpu];

	(void)mm;
	/* Release: every use of the mm before the slot reads empty (pairs with the scan's acquire). */
	smp_store_release(&s->addr, NULL);
}

/* Inside the shootdown IPI: the CPU now runs on init_mm, forget the lazy mm. */
static void hazptr_shoot(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	struct hazptr_slot *s = &((struct hazptr_domain *)d->priv)->slots[cpu];

	(void)mm;
	smp_store_release(&s->addr, NULL);
}

static void hazptr_release(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	struct hazptr_domain *h = d->priv;
	int shot = 0;

	/* Full barrier: Store A (no user left) before Load B (the slots); pairs with grab's. */
	smp_mb();
	for (int cpu = 0; cpu < d->ncpus; cpu++) {
		struct hazptr_slot *s = &h->slots[cpu];

		/* Acquire: a slot read empty means its CPU's uses of mm are over (pairs with drop). */
		if (smp_load_acquire(&s->addr) != mm)
			continue;
		shot += lab_lazy_ipi(d, cpu, lab_lazy_shoot_lazy_ipi, mm);
		for (unsigned spins = 0; smp_load_acquire(&s->addr) == mm; spins++) {
			if (spins < 1000)
				cpu_relax();
			else
				sched_yield();
		}
	}
	lockevent_add(lazy_tlb_shoot, shot);
	lab_lazy_mm_free(d, mm);
}

const struct lab_lazy_mm_ops lab_lazy_mm_hazptr_ops = {
	.name = "hazptr",
	.summary = "one hazard slot per CPU: grab = mb + store, drop = store-release; release scans, IPIs holders",
	.cite = "Desnoyers, sched+mm lazy active mm hazard pointers RFC v3, LKML 2024-10-08 (not merged)",
	.flags = LAB_LAZY_IPI,
	.size = sizeof(struct hazptr_domain),
	.align = _Alignof(struct hazptr_domain),
	.events = LAB_EVENTS(LAB_LAZY_EVENTS, LAB_EV_lazy_tlb_shoot),
	.init = hazptr_init,
	.destroy = hazptr_destroy,
	.grab = hazptr_grab,
	.drop = hazptr_drop,
	.release = hazptr_release,
	.shoot = hazptr_shoot,
};
