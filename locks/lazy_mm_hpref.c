/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hpref - hazard pointers with a reference-count fallback (Desnoyers' hpref),
 * used for the lazy mm.
 *
 * Citation: M. Desnoyers, "[RFC PATCH 1/1] hpref: Hazard Pointers with
 * Reference Counter", 2024-09-21 (msg-id 20240921164210.256278-1),
 * compudj/userspace-rcu-dev branch hpref (include/urcu/hpref.h,
 * src/hpref.c); Kernel Recipes 2024 talk of the same name.
 * docs/kernel.md §5.5. This port follows the RFC v1 design (8 slots per
 * CPU, smp_mb reader), not the later 64-slot membarrier version.
 *
 * Design summary:
 * - every CPU has 8 hazard slots on one cache line; slot 7 is the emergency
 *   slot;
 * - grab (hpref_hp_get): store mm into the first empty slot (a per-CPU
 *   compare-and-store: only the CPU's own thread writes its slots), then
 *   smp_mb() (Store B before Load A). If only the emergency slot was free,
 *   promote at once (hpref_promote_hp_to_ref): atomic_inc(&mm->mm_count),
 *   then store-release NULL into the slot; the CPU now holds a reference;
 * - drop (hpref_put): a hazard pointer is cleared with a store-release; a
 *   promoted reference is dropped with a dec_and_test whose last caller frees;
 * - release (hpref_synchronize_put with a match callback): smp_mb(), then
 *   for every CPU whose slot holds mm, "IPI" that CPU: the handler switches
 *   it to init_mm and clears its slot (hpref_shoot); then wait while the slot
 *   still holds mm (a CPU past its switch but before its drop clears it
 *   itself). Then drop the owner's reference: if promoted references remain,
 *   the last drop frees (LAB_LAZY_MAY_DEFER);
 * - why the IPI: hpref's own synchronize busy-waits on the slots, expecting
 *   hazard pointers to be short-lived, but a lazy mm is held for as long as
 *   the CPU idles (the release spun 30 ms of CPU behind a CPU idling 30 ms:
 *   tests/regression/lazy_mm_hpref.c). The kernel's final mmdrop must not
 *   wait on that, so rwlab follows the fix the same author proposed for
 *   lazy mms in the kernel: hazptr_scan() with an on-match callback that IPIs the holder to switch
 *   away (sched+mm hazard-pointer RFC v2/v3 patch 4, cleanup_lazy_tlbs;
 *   docs/kernel.md §5.4), as the hazptr scheme does. The free is not
 *   deferred: release still returns with mm freed unless promoted
 *   references remain;
 * - knob reserved=K fills K of the 7 ordinary slots of every CPU with a
 *   dummy object at init, standing for other users of a shared hpref domain,
 *   so that K=7 sends every grab through the emergency slot and promotion;
 * - TLB flushes scan the CPU slots (no cpumask kept on the switch path).
 *
 * Per-CPU slots (one cache line) and context (another, owner only):
 *
 *   slot:  [0] [1] [2] [3] [4] [5] [6] [7 = emergency]   NULL or an object
 *   ctx:   { slot index used by the lazy mm, type: HP or REF }
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "events.h"
#include "lazy_mm.h"

#define HPREF_NR_SLOTS		8
#define HPREF_EMERGENCY_SLOT	(HPREF_NR_SLOTS - 1)

enum { K_RESERVED };
enum hpref_type { HPREF_TYPE_NONE, HPREF_TYPE_HP, HPREF_TYPE_REF };

static const struct lab_knob hpref_knobs[] = {
	[K_RESERVED] = { .name = "reserved", .type = LAB_KNOB_INT, .def = 0, .min = 0,
			 .max = HPREF_EMERGENCY_SLOT,
			 .help = "ordinary slots per CPU held by other users (7 = every grab promotes)" },
	{ 0 }
};

struct hpref_cpu_slots {
	void *slot[HPREF_NR_SLOTS];
} __lab_cacheline_aligned;

struct hpref_ctx {
	int slot;
	enum hpref_type type;
} __lab_cacheline_aligned;

struct hpref_domain {
	struct hpref_cpu_slots *slots;	/* ncpus */
	struct hpref_ctx *ctx;		/* ncpus */
	char reserved_obj;		/* what the reserved slots point to */
};

static int hpref_init(struct lab_lazy_domain *d, int ncpus, const struct lab_lazy_mm_conf *conf)
{
	struct hpref_domain *h = d->priv;
	long reserved = conf->knob[K_RESERVED];

	h->slots = aligned_alloc(LAB_CACHELINE, (size_t)ncpus * sizeof(*h->slots));
	h->ctx = aligned_alloc(LAB_CACHELINE, (size_t)ncpus * sizeof(*h->ctx));
	if (!h->slots || !h->ctx) {
		free(h->slots);
		free(h->ctx);
		return -ENOMEM;
	}
	for (int c = 0; c < ncpus; c++) {
		for (int i = 0; i < HPREF_NR_SLOTS; i++)
			WRITE_ONCE(h->slots[c].slot[i], i < reserved ? (void *)&h->reserved_obj : NULL);
		h->ctx[c].slot = -1;
		h->ctx[c].type = HPREF_TYPE_NONE;
	}
	return 0;
}

static void hpref_destroy(struct lab_lazy_domain *d)
{
	struct hpref_domain *h = d->priv;

	free(h->slots);
	free(h->ctx);
}

static void hpref_put_ref(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	/* urcu_ref_put: fully ordered dec, the last one runs the release callback. */
	if (atomic_sub_return(&mm->mm_count, 1) == 0)
		lab_lazy_mm_free(d, mm);
}

static void hpref_grab(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	struct hpref_domain *h = d->priv;
	struct hpref_cpu_slots *s = &h->slots[cpu];
	struct hpref_ctx *ctx = &h->ctx[cpu];
	int i;

	for (i = 0; i < HPREF_NR_SLOTS; i++) {
		if (READ_ONCE(s->slot[i]))
			continue;
		WRITE_ONCE(s->slot[i], mm);	/* Store B */
		break;
	}
	if (lab_unlikely(i == HPREF_NR_SLOTS))
		lab_lazy_mm_bug(mm, "hpref grab: no free slot (the emergency slot is never kept)");
	/* Full barrier: Store B before Load A (the RFC's reader fence; pairs with synchronize's). */
	smp_mb();
	ctx->slot = i;
	ctx->type = HPREF_TYPE_HP;
	if (i == HPREF_EMERGENCY_SLOT) {
		/* hpref_promote_hp_to_ref: take a reference, then free the slot. */
		atomic_inc(&mm->mm_count);
		/* Release: the increment before the slot reads empty (pairs with the scan's acquire). */
		smp_store_release(&s->slot[i], NULL);
		ctx->slot = -1;
		ctx->type = HPREF_TYPE_REF;
		lockevent_inc(hpref_promote);
	}
}

static void hpref_drop(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	struct hpref_domain *h = d->priv;
	struct hpref_ctx *ctx = &h->ctx[cpu];

	if (ctx->type == HPREF_TYPE_HP)
		/* Release: every use of the mm before the slot reads empty. */
		smp_store_release(&h->slots[cpu].slot[ctx->slot], NULL);
	else if (ctx->type == HPREF_TYPE_REF)
		hpref_put_ref(d, mm);
	else
		lab_lazy_mm_bug(mm, "hpref drop without a grab");
	ctx->slot = -1;
	ctx->type = HPREF_TYPE_NONE;
}

/* Inside the shootdown IPI: the CPU now runs on init_mm; give up its hold on the lazy mm. */
static void hpref_shoot(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	hpref_drop(d, cpu, mm);
}

static void hpref_release(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	struct hpref_domain *h = d->priv;
	int shot = 0;

	/* Full barrier: the unpublication (no user left) before reading the slots. */
	smp_mb();
	for (int cpu = 0; cpu < d->ncpus; cpu++) {
		for (int i = 0; i < HPREF_NR_SLOTS; i++) {
			void **slot = &h->slots[cpu].slot[i];

			/* Acquire: pairs with drop's and promotion's store-release. */
			if (smp_load_acquire(slot) != (void *)mm)
				continue;
			/* The on-match callback: make the holder switch away instead of waiting for it. */
			shot += lab_lazy_ipi(d, cpu, lab_lazy_shoot_lazy_ipi, mm);
			for (unsigned spins = 0; smp_load_acquire(slot) == (void *)mm; spins++) {
				if (spins < 1000)
					cpu_relax();
				else
					sched_yield();
			}
		}
	}
	lockevent_add(lazy_tlb_shoot, shot);
	hpref_put_ref(d, mm);
}

const struct lab_lazy_mm_ops lab_lazy_mm_hpref_ops = {
	.name = "hpref",
	.summary = "8 hazard slots per CPU, emergency slot promotes to mm_count; release IPIs slot holders",
	.cite = "Desnoyers, hpref: Hazard Pointers with Reference Counter, RFC 2024-09-21 (liburcu hpref branch)",
	.flags = LAB_LAZY_MAY_DEFER | LAB_LAZY_IPI,
	.size = sizeof(struct hpref_domain),
	.align = _Alignof(struct hpref_domain),
	.knobs = hpref_knobs,
	.events = LAB_EVENTS(LAB_LAZY_EVENTS, LAB_EV_lazy_tlb_shoot, LAB_EV_hpref_promote),
	.init = hpref_init,
	.destroy = hpref_destroy,
	.grab = hpref_grab,
	.drop = hpref_drop,
	.release = hpref_release,
	.shoot = hpref_shoot,
};
