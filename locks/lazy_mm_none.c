/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * none - no tracking of lazy mm users at all: the cost floor, and the
 * negative control of the safety tests.
 *
 * Citation: none; the lab's baseline, like the rwsem variants null (cost
 * floor) and busted (negative control, locktorture's lock_busted).
 *
 * Design summary:
 * - grab and drop do nothing, not even the membarrier fence;
 * - release frees the mm at once, whether or not a CPU still borrows it: a
 *   lazy CPU then uses freed memory, which the poison and canary checks (or
 *   AddressSanitizer) catch. So it is refused wherever a release can race with
 *   lazy users unless --unsafe is given (LAB_LAZY_UNSAFE), and is not in
 *   "all"; context_switch without mm re-creation and tlb_flush accept it as
 *   the floor of the switch path;
 * - mm_cpumask is kept on the switch path like the other counting schemes,
 *   so that a tlb_flush floor reads the same mask.
 *
 * State: none.
 */
#include "lazy_mm.h"

static int none_init(struct lab_lazy_domain *d, int ncpus, const struct lab_lazy_mm_conf *conf)
{
	(void)d;
	(void)ncpus;
	(void)conf;
	return 0;
}

static void none_nop(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	(void)d;
	(void)cpu;
	(void)mm;
}

static void none_release(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	lab_lazy_mm_free(d, mm);
}

const struct lab_lazy_mm_ops lab_lazy_mm_none_ops = {
	.name = "none",
	.summary = "no tracking: release frees at once (cost floor; unsafe, refused under release load)",
	.cite = "lab baseline (cf. rwsem null and busted; locktorture lock_busted)",
	.flags = LAB_LAZY_UNSAFE | LAB_LAZY_NOT_IN_ALL | LAB_LAZY_CPUMASK,
	.events = LAB_EVENTS(LAB_LAZY_EVENTS),
	.init = none_init,
	.grab = none_nop,
	.drop = none_nop,
	.release = none_release,
};
