/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's memory-management state under the anonymous fault path: see
 * kmm.h for what each cited version touches and what is left out.
 *
 * Kernel trees read (file:line citations in kmm.h and below):
 *   v6.2.1  daniellucs2002/linux-6.2.1-customized @52c70098c (the pristine import;
 *           mm/, include/linux/, lib/ unchanged by its later commits)
 *   v6.4.6  lewisevans2007/linux-6.4 (mm/slab_common.c and kernel/exit.c changed by
 *           its owner; the files cited here are as released). Its mm_struct already
 *           has c1753fd02a00 (mm_count on its own line, backported to 6.4.y); v6.4.0's
 *           offsets below are those of 6.4.6 without it: the anchor's pahole figures
 *           (docs/simulator.md §5: page_table_lock @124, mmap_lock @128,
 *           mm_lock_seq @184) agree.
 *   v5.12.9 zhangyinjun/linux-5.12.9; v5.0.1 VVvector/linux-5.0.1 @9422dd5e0 (its
 *           first commit; later commits touch only networking and mm/memory.c:1 line).
 * Offsets are those of mirror structures of the fields in each version's order
 * (x86-64, CONFIG_IA32_EMULATION, CONFIG_MEMBARRIER, CONFIG_HOTPLUG_CPU, no lock
 * debugging): the per-VMA table's kernel (6.2.0-rc4 mm-unstable-20230210 with the
 * pvl-v2 series) is v6.2's layout with mm_lock_seq after mmlist.
 *
 * Native and simulated runs execute this same code. Shared state is reached
 * through atomic.h (READ_ONCE/WRITE_ONCE and RMWs), so the simulated build
 * charges every line it moves; per-CPU state is plain memory used under the
 * CPU's section (lab_kcpu_get()), as the kernel uses it with interrupts or
 * preemption off.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "kmm.h"
#include "wait.h"

const char *const lab_kmm_event_names[LAB_KMM_EV_NR] = {
#define LAB_KMM_EV_NAME(n) #n,
	LAB_KMM_EVENTS(LAB_KMM_EV_NAME)
#undef LAB_KMM_EV_NAME
};

/* Offsets: mirror structures (header); page_counter: usage alone on v6.2's first line. */
const struct lab_kmm_profile lab_kmm_profiles[LAB_KMM_NVER] = {
	[LAB_KMM_V5_0] = {
		.name = "v5.0", .cite = "Linux v5.0.1 (rwsem-rework's v5.0-rc6): pcp under local_irq_save, "
			"pgdat->lru_lock, MEMCG_CHARGE_BATCH 32, memcg stat atomics per memcg, task rss cache",
		.charge_batch = 32, .memcg_stat = LAB_MEMCG_STAT_FLAT,
		.mm_pgd = 80, .mm_users = 88, .mm_count = 92, .mm_pgtables = 96, .mm_ptl = 108,
		.mm_mmap_lock = 112, .mm_lock_seq = 0,
		.mm_rss = 720, .mm_rss_stride = 8, .mm_size = 1024,
		.pc_max = 24, .pc_watermark = 88, .pc_size = 128,
	},
	[LAB_KMM_V5_12] = {
		.name = "v5.12", .cite = "Linux v5.12.9 (Axel Rasmussen's pft): lruvec->lru_lock, MEMCG_CHARGE_BATCH 32, "
			"memcg stats spilled to every ancestor, task rss cache",
		.lru_per_memcg = true, .charge_batch = 32, .memcg_stat = LAB_MEMCG_STAT_HIER,
		.mm_pgd = 80, .mm_users = 92, .mm_count = 96, .mm_pgtables = 112, .mm_ptl = 124,
		.mm_mmap_lock = 128, .mm_lock_seq = 0,
		.mm_rss = 736, .mm_rss_stride = 8, .mm_size = 1024,
		.pc_max = 32, .pc_watermark = 88, .pc_size = 128,
	},
	[LAB_KMM_V6_2] = {
		.name = "v6.2", .cite = "Linux v6.2 (the per-VMA table's 6.2.0-rc4 mm-unstable-20230210, pvl-v2): "
			"pcp->lock, lruvec->lru_lock, MEMCG_CHARGE_BATCH 64, memcg rstat, rss percpu_counter",
		.pcp_spinlock = true, .pcp_wmark_high = true, .lru_per_memcg = true, .rss_percpu = true,
		.charge_batch = 64, .memcg_stat = LAB_MEMCG_STAT_RSTAT, .vma_lock_embed = true,
		.mm_pgd = 72, .mm_users = 84, .mm_count = 88, .mm_pgtables = 96, .mm_ptl = 108,
		.mm_mmap_lock = 112, .mm_lock_seq = 168,
		.mm_rss = 728, .mm_rss_stride = 40, .mm_size = 1024,
		.pc_max = 152, .pc_watermark = 112, .pc_size = 192,
	},
	[LAB_KMM_V6_4] = {
		.name = "v6.4", .cite = "Linux v6.4.0 (per-VMA locks merged; CONFIG_SCHED_MM_CID before mm_count "
			"got its own line in c1753fd02a00): as v6.2",
		.pcp_spinlock = true, .pcp_wmark_high = true, .lru_per_memcg = true, .rss_percpu = true,
		.charge_batch = 64, .memcg_stat = LAB_MEMCG_STAT_RSTAT, .vma_lock_slab = true,
		.mm_pgd = 72, .mm_users = 84, .mm_count = 88, .mm_pgtables = 112, .mm_ptl = 124,
		.mm_mmap_lock = 128, .mm_lock_seq = 184,
		.mm_rss = 776, .mm_rss_stride = 40, .mm_size = 1024,
		.pc_max = 152, .pc_watermark = 112, .pc_size = 192,
	},
};

const char *lab_kmm_ver_name(enum lab_kmm_ver v)
{
	return v < LAB_KMM_NVER ? lab_kmm_profiles[v].name : "?";
}

/* ---- sizes of the pagesets and thresholds ------------------------------------------ */

/* v6.2 mm/page_alloc.c:7057 zone_batchsize(): min(pages >> 10, 256) / 4, to 2^n - 1. */
static int zone_batchsize(long managed)
{
	long b = managed >> 10 < 256 ? managed >> 10 : 256;
	long r = 1;

	b /= 4;
	if (b < 1)
		b = 1;
	while (r * 2 <= b + b / 2)
		r *= 2;
	return (int)(r - 1);
}

static int fls_long(long x)
{
	int n = 0;

	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

static long int_sqrt_long(long x)
{
	long r = 0;

	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/*
 * v6.2 pcp->high, zone_highsize() (mm/page_alloc.c:7105-7140): the zone's low
 * watermark split over the CPUs of its node, at least 4 * batch. The low
 * watermark as __setup_per_zone_wmarks() (:8712-8760) sets it: min = the pages
 * of min_free_kbytes in proportion to the zone's share of all pages, low = min +
 * max(min / 4, pages * watermark_scale_factor (10, :405) / 10000); min_free_kbytes
 * = int_sqrt(lowmem_kbytes * 16) within [128, 262144] (calculate_min_free_kbytes,
 * :8823-8836). lowmem_kbytes is every node's pages here: nr_free_buffer_pages()'s
 * subtraction of the high watermarks and boot reservations, and the small DMA
 * zones, are left out (stated). Each modelled node is one zone of @zone_pages.
 */
static int zone_highsize(long zone_pages, int nnodes, int node_cpus, int batch)
{
	long kbytes = zone_pages * nnodes * 4, mfk = int_sqrt_long(kbytes * 16), min, low, scale, high;

	mfk = mfk < 128 ? 128 : mfk > 262144 ? 262144 : mfk;
	min = (mfk >> 2) * zone_pages / (zone_pages * nnodes);
	scale = zone_pages * 10 / 10000;
	low = min + (min >> 2 > scale ? min >> 2 : scale);
	high = low / (node_cpus > 0 ? node_cpus : 1);
	return (int)(high > 4l * batch ? high : 4l * batch);
}

/*
 * v6.2 nr_pcp_free() (mm/page_alloc.c:3377-3404), order 0: the pages a free past
 * pcp->high sends back, doubling with each free since the CPU's last
 * allocation (free_factor), between batch and high - batch.
 */
static int nr_pcp_free(struct lab_kcpu *c, int high, int batch)
{
	int min_nr_free = batch, max_nr_free = high - batch;

	if (high < batch)
		return 1;
	batch <<= c->free_factor;
	if (batch < max_nr_free)
		c->free_factor++;
	return batch < min_nr_free ? min_nr_free : batch > max_nr_free ? max_nr_free : batch;
}

/* v6.2 mm/vmstat.c:222 calculate_normal_threshold(): 2 * fls(cpus) * (1 + fls(128 MiB units)), <= 125. */
static int vmstat_threshold(int ncpus, long managed)
{
	int t = 2 * fls_long(ncpus) * (1 + fls_long(managed >> (27 - 12)));

	return t < 125 ? t : 125;
}

/*
 * The node size the batch and the threshold are computed from: 64 GiB
 * (stated: of the seed machines only LKP's is known, 256 GB over 2 nodes). The
 * batch is 63 for any node above 1 GiB, and the threshold 125 from 8 GiB of
 * node at 128 CPUs or 64 GiB at 40.
 */
static long node_pages(void)
{
	return 64l << (30 - 12);
}

/* ---- init ------------------------------------------------------------------------------ */

/* A list head is used as a struct lab_kpage whose links alone are touched. */
_Static_assert(offsetof(struct lab_kpage, next) == offsetof(struct lab_klist, next) &&
	       offsetof(struct lab_kpage, prev) == offsetof(struct lab_klist, prev), "list head layout");
_Static_assert(sizeof(struct lab_kpage) == 64, "struct page is 64 bytes");

static void klist_init(struct lab_klist *h)
{
	h->next = h->prev = (struct lab_kpage *)h;
}

static void *line_alloc(size_t bytes)
{
	void *p = NULL;

	bytes = (bytes + LAB_CACHELINE - 1) & ~(size_t)(LAB_CACHELINE - 1);
	if (posix_memalign(&p, LAB_CACHELINE, bytes))
		return NULL;
	memset(p, 0, bytes);
	return p;
}

/* The CPUs of node @n (cpumask_of_node's weight). */
static int node_cpus(int n)
{
	int cpus = 0;

	for (int c = 0; c < lab_nr_cpus(); c++)
		cpus += lab_cpu_node(c) == n;
	return cpus;
}

int lab_kmm_init(struct lab_kmm *k, enum lab_kmm_ver v, int memcg_depth)
{
	long pages = node_pages();

	memset(k, 0, sizeof(*k));
	k->ver = v < LAB_KMM_NVER ? v : LAB_KMM_DEFAULT;
	k->p = &lab_kmm_profiles[k->ver];
	k->ncpus = lab_nr_cpus();
	k->nnodes = lab_nr_nodes();
	k->memcg_depth = memcg_depth < 0 ? 0 : memcg_depth;
	k->zone = line_alloc((size_t)k->nnodes * sizeof(*k->zone));
	k->node = line_alloc((size_t)k->nnodes * sizeof(*k->node));
	k->cpu = line_alloc((size_t)k->ncpus * sizeof(*k->cpu));
	k->memcg = calloc((size_t)k->memcg_depth + 1, sizeof(*k->memcg));
	k->vm_zone_stat = line_alloc(LAB_CACHELINE);
	k->vm_node_stat = line_alloc(LAB_CACHELINE);
	k->stats_flush_threshold = line_alloc(LAB_CACHELINE);
	k->ev = line_alloc((size_t)k->ncpus * sizeof(*k->ev) + LAB_CACHELINE);
	if (!k->zone || !k->node || !k->cpu || !k->memcg || !k->vm_zone_stat || !k->vm_node_stat ||
	    !k->stats_flush_threshold || !k->ev)
		goto nomem;
	for (int i = 0; i <= k->memcg_depth; i++) {
		k->memcg[i].pc = line_alloc(k->p->pc_size);
		if (!k->memcg[i].pc)
			goto nomem;
		/* max = PAGE_COUNTER_MAX: no limit is ever hit */
		*(long *)(k->memcg[i].pc + k->p->pc_max) = 0x7fffffffffffffffl >> 12;
	}
	for (int n = 0; n < k->nnodes; n++) {
		struct lab_kzone *z = &k->zone[n];

		z->lock.tail = NULL;
		klist_init(&z->free);
		z->batch = zone_batchsize(pages);
		/* pcp->high: v5.0 and v5.12 6 * batch (kmm.h); v6.2 and v6.4 zone_highsize() */
		z->high = k->p->pcp_wmark_high ? zone_highsize(pages, k->nnodes, node_cpus(n), z->batch) : 6 * z->batch;
		z->threshold = vmstat_threshold(k->ncpus, pages);
		k->node[n].lru_lock.tail = NULL;
		klist_init(&k->node[n].lru);
	}
	k->qnodes = line_alloc((size_t)k->ncpus * LAB_QNODES * sizeof(struct lab_qnode));
	if (!k->qnodes)
		goto nomem;
	for (int c = 0; c < k->ncpus; c++) {
		k->cpu[c].qnode = &k->qnodes[(size_t)c * LAB_QNODES];
		raw_spin_lock_init(&k->cpu[c].local);
		raw_spin_lock_init(&k->cpu[c].pcp_lock);
		klist_init(&k->cpu[c].pcp);
		k->cpu[c].node = lab_cpu_node(c);
	}
	/* v6.2 lib/percpu_counter.c:208: max(32, 2 * online CPUs) */
	k->rss_batch = 2 * k->ncpus > 32 ? 2 * k->ncpus : 32;
	return 0;
nomem:
	lab_kmm_destroy(k);
	return -ENOMEM;
}

void lab_kmm_destroy(struct lab_kmm *k)
{
	for (int i = 0; k->memcg && i <= k->memcg_depth; i++)
		free(k->memcg[i].pc);
	free(k->memcg);
	free(k->zone);
	free(k->node);
	free(k->cpu);
	free(k->vm_zone_stat);
	free(k->vm_node_stat);
	free(k->stats_flush_threshold);
	free(k->ev);
	free(k->qnodes);
	memset(k, 0, sizeof(*k));
}

void lab_kmm_events(const struct lab_kmm *k, uint64_t out[LAB_KMM_EV_NR])
{
	memset(out, 0, LAB_KMM_EV_NR * sizeof(out[0]));
	for (int c = 0; c < k->ncpus; c++)
		for (int e = 0; e < LAB_KMM_EV_NR; e++)
			out[e] += k->ev[c][e];
}

static inline void kev(struct lab_kmm *k, struct lab_kcpu *c, enum lab_kmm_event e, uint64_t n)
{
	k->ev[c - k->cpu][e] += n;
}

/* ---- queued spinlocks (kmm.h) --------------------------------------------------------------- */

/*
 * Take @l with one of CPU state @c's nodes (the caller is in @c's section).
 * Returns the node; *@queued says whether the lock was taken (the model's
 * contention counters).
 */
static struct lab_qnode *qspin_lock_q(struct lab_kcpu *c, lab_qspinlock_t *l, bool *queued)
{
	struct lab_qnode *n = &c->qnode[c->nqnode++], *prev;
	unsigned spins = 0;

	WRITE_ONCE(n->next, (struct lab_qnode *)NULL);
	WRITE_ONCE(n->locked, 0u);
	prev = atomic_xchg_acquire(&l->tail, n);
	*queued = prev != NULL;
	if (prev) {
		WRITE_ONCE(prev->next, n);
		while (!smp_load_acquire(&n->locked)) {
			cpu_relax();
			if (!LAB_SIM && ++spins == 128) {	/* native: a preempted predecessor must run */
				spins = 0;
				sched_yield();
			}
		}
	}
	return n;
}

static struct lab_qnode *qspin_lock(struct lab_kcpu *c, lab_qspinlock_t *l)
{
	bool q;

	return qspin_lock_q(c, l, &q);
}

/* Queued spinlock @l, counting a wait as event @e. */
static inline struct lab_qnode *qspin_lock_ev(struct lab_kmm *k, struct lab_kcpu *c, lab_qspinlock_t *l,
					      enum lab_kmm_event e)
{
	bool q;
	struct lab_qnode *n = qspin_lock_q(c, l, &q);

	if (q)
		k->ev[c - k->cpu][e]++;
	return n;
}

static void qspin_unlock(struct lab_kcpu *c, lab_qspinlock_t *l, struct lab_qnode *n)
{
	struct lab_qnode *next = READ_ONCE(n->next), *me = n;

	if (!next) {
		if (atomic_try_cmpxchg_release(&l->tail, &me, (struct lab_qnode *)NULL)) {
			c->nqnode--;
			return;
		}
		while (!(next = READ_ONCE(n->next)))
			cpu_relax();
	}
	smp_store_release(&next->locked, 1u);
	c->nqnode--;
}

/* ---- per-CPU sections -------------------------------------------------------------------- */

struct lab_kcpu *lab_kcpu_get(struct lab_kmm *k)
{
	struct lab_kcpu *c;

	lab_local_irq_save();
	c = &k->cpu[lab_this_cpu() % k->ncpus];
	if (!LAB_SIM)
		raw_spin_lock(&c->local);
	return c;
}

void lab_kcpu_put(struct lab_kmm *k, struct lab_kcpu *c)
{
	(void)k;
	if (!LAB_SIM)
		raw_spin_unlock(&c->local);
	lab_local_irq_restore();
}

/* ---- list operations on struct pages (through atomic.h: the engine sees their lines) ---- */

static inline void klist_add(struct lab_klist *h, struct lab_kpage *pg)
{
	struct lab_kpage *first = READ_ONCE(h->next), *hp = (struct lab_kpage *)h;

	WRITE_ONCE(pg->next, first);
	WRITE_ONCE(pg->prev, hp);
	if (first == hp)
		WRITE_ONCE(h->prev, pg);
	else
		WRITE_ONCE(first->prev, pg);	/* the previous first entry's struct page */
	WRITE_ONCE(h->next, pg);
}

static inline void klist_del(struct lab_klist *h, struct lab_kpage *pg)
{
	struct lab_kpage *next = READ_ONCE(pg->next), *prev = READ_ONCE(pg->prev), *hp = (struct lab_kpage *)h;

	if (next == hp)
		WRITE_ONCE(h->prev, prev);
	else
		WRITE_ONCE(next->prev, prev);
	if (prev == hp)
		WRITE_ONCE(h->next, next);
	else
		WRITE_ONCE(prev->next, next);
}

static inline struct lab_kpage *klist_first(struct lab_klist *h)
{
	struct lab_kpage *f = READ_ONCE(h->next);

	return f == (struct lab_kpage *)h ? NULL : f;
}

/* ---- vmstat and memcg statistics ----------------------------------------------------------- */

/* Where a per-CPU vmstat item spills: the zone's or node's atomic, and the global one. */
static long *vmstat_target(struct lab_kmm *k, struct lab_kcpu *c, int item, long **global)
{
	struct lab_kzone *z = &k->zone[c->node];
	struct lab_knode *n = &k->node[c->node];

	switch (item) {
	case KSTAT_FREE:
		*global = &k->vm_zone_stat[0];
		return &z->vm_free_pages;
	case KSTAT_ZONE_LRU:
		*global = &k->vm_zone_stat[1];
		return &z->vm_lru;
	case KSTAT_ANON:
		*global = &k->vm_node_stat[0];
		return &n->vm_anon;
	case KSTAT_LRU:
		*global = &k->vm_node_stat[1];
		return &n->vm_lru;
	default:
		*global = &k->vm_node_stat[2];
		return &n->vm_pagetable;
	}
}

void lab_kmm_vmstat(struct lab_kmm *k, struct lab_kcpu *c, int item, long delta)
{
	long x = c->vm_diff[item] + delta, *global, *local = vmstat_target(k, c, item, &global);

	/* v6.2 mm/vmstat.c:359-366: past the threshold the diff goes to the zone/node and the global counter */
	if (x > k->zone[c->node].threshold || x < -k->zone[c->node].threshold) {
		atomic_fetch_add_relaxed(local, x);
		atomic_fetch_add_relaxed(global, x);
		kev(k, c, LAB_KMM_EV_vmstat_spill, 1);
		x = 0;
	}
	c->vm_diff[item] = x;
}

void lab_kmm_memcg_stat(struct lab_kmm *k, struct lab_kcpu *c, int item, long delta)
{
	long x;

	if (k->p->memcg_stat == LAB_MEMCG_STAT_RSTAT) {
		/* v6.2 mm/memcontrol.c:607 memcg_rstat_updated(): per-CPU count, then the global threshold */
		c->stats_updates += (unsigned)(delta < 0 ? -delta : delta);
		if (c->stats_updates > k->p->charge_batch) {
			if (READ_ONCE(*k->stats_flush_threshold) <= k->ncpus) {
				atomic_fetch_add_relaxed(k->stats_flush_threshold, (long)(c->stats_updates / k->p->charge_batch));
				kev(k, c, LAB_KMM_EV_memcg_stat_spill, 1);
			}
			c->stats_updates = 0;
		}
		return;
	}
	/* v5.0 __mod_memcg_state (memcontrol.h:577): the memcg's atomic; v5.12 (memcontrol.c:765): every ancestor's */
	x = c->memcg_diff[item] + delta;
	if (x > (long)k->p->charge_batch || x < -(long)k->p->charge_batch) {
		int levels = k->p->memcg_stat == LAB_MEMCG_STAT_HIER ? k->memcg_depth + 1 : 1;

		for (int i = 0; i < levels; i++)
			atomic_fetch_add_relaxed(&k->memcg[i].stat[item], x);
		kev(k, c, LAB_KMM_EV_memcg_stat_spill, 1);
		x = 0;
	}
	c->memcg_diff[item] = x;
}

/* ---- memcg charge ----------------------------------------------------------------------------- */

/* v6.2 mm/page_counter.c:97 page_counter_try_charge(), for every level up to the root; no limit is hit. */
static void page_counter_charge(struct lab_kmm *k, long nr)
{
	for (int i = 0; i <= k->memcg_depth; i++) {
		char *pc = k->memcg[i].pc;
		long new = atomic_add_return((long *)pc, nr);

		(void)READ_ONCE(*(long *)(pc + k->p->pc_max));
		if (new > READ_ONCE(*(long *)(pc + k->p->pc_watermark)))
			WRITE_ONCE(*(long *)(pc + k->p->pc_watermark), new);
	}
}

void lab_kmm_charge(struct lab_kmm *k, struct lab_kcpu *c, unsigned nr)
{
	unsigned batch = k->p->charge_batch > nr ? k->p->charge_batch : nr;

	/* try_charge(): the root memcg is not charged (memcontrol.c:2821) */
	if (!k->memcg_depth)
		return;
	/* consume_stock() (memcontrol.c:2227): the CPU's stock, under local_lock_irqsave */
	if (c->stock >= nr) {
		c->stock -= nr;
		return;
	}
	page_counter_charge(k, batch);
	kev(k, c, LAB_KMM_EV_charge_refill, 1);
	/* refill_stock() (memcontrol.c:2297): the rest stays in this CPU's stock */
	c->stock += batch - nr;
	if (c->stock > k->p->charge_batch) {	/* drain_stock: give the excess back */
		long excess = (long)c->stock;

		c->stock = 0;
		for (int i = 0; i <= k->memcg_depth; i++)
			atomic_fetch_sub_relaxed((long *)k->memcg[i].pc, excess);
	}
}

/* uncharge_batch() (v6.2 memcontrol.c): one page_counter_uncharge of @nr per level. */
void lab_kmm_uncharge(struct lab_kmm *k, unsigned long nr)
{
	if (!k->memcg_depth || !nr)
		return;
	for (int i = 0; i <= k->memcg_depth; i++)
		atomic_fetch_sub_relaxed((long *)k->memcg[i].pc, (long)nr);
	/* instrumentation, outside the model (plain builtin: not charged) */
	__atomic_fetch_add(&k->ev[0][LAB_KMM_EV_uncharge], 1, __ATOMIC_RELAXED);
}

/* ---- the LRU ------------------------------------------------------------------------------------ */

/* The lock and list a page goes on: the memcg's lruvec (v5.11+) or the node's (v5.0); one memcg here. */
static struct lab_knode *page_lruvec(struct lab_kmm *k, const struct lab_kpage *pg)
{
	return &k->node[pg->node < (uint32_t)k->nnodes ? pg->node : 0];
}

/* v6.2 mm/swap.c:233 folio_batch_move_lru() with lru_add_fn: relock per lruvec, add at the head. */
void lab_kmm_lru_drain(struct lab_kmm *k, struct lab_kcpu *c)
{
	struct lab_knode *locked = NULL;
	struct lab_qnode *qn = NULL;

	for (int i = 0; i < c->nlru; i++) {
		struct lab_kpage *pg = c->lru[i];
		struct lab_knode *n = page_lruvec(k, pg);

		if (n != locked) {
			if (locked)
				qspin_unlock(c, &locked->lru_lock, qn);
			qn = qspin_lock_ev(k, c, &n->lru_lock, LAB_KMM_EV_lru_lock_queued);
			locked = n;
		}
		lab_kpath_charge(KP_LRU_MOVE, 1);	/* lru_add_fn's work, under the lock */
		klist_add(&n->lru, pg);
		WRITE_ONCE(n->lru_count, n->lru_count + 1);
		WRITE_ONCE(pg->flags, pg->flags | LAB_KPG_LRU);
		/* update_lru_size(): the zone's and node's LRU counters and the memcg's */
		lab_kmm_vmstat(k, c, KSTAT_ZONE_LRU, 1);
		lab_kmm_vmstat(k, c, KSTAT_LRU, 1);
		lab_kmm_memcg_stat(k, c, MSTAT_LRU, 1);
	}
	if (locked)
		qspin_unlock(c, &locked->lru_lock, qn);
	if (c->nlru)
		kev(k, c, LAB_KMM_EV_lru_drain, 1);
	/* folios_put(): drop the batch's references (folio_add_lru took one); a last one frees */
	for (int i = 0; i < c->nlru; i++)
		if (atomic_sub_return_release(&c->lru[i]->refcount, 1u) == 0)
			lab_kmm_page_release(k, c, c->lru[i]);
	c->nlru = 0;
}

void lab_kmm_lru_add(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kpage *pg)
{
	/* v6.2 mm/swap.c:531 folio_add_lru(): a reference for the batch, then batch_add_and_move */
	atomic_fetch_add_relaxed(&pg->refcount, 1u);
	c->lru[c->nlru++] = pg;
	if (c->nlru == LAB_KMM_LRU_BATCH)
		lab_kmm_lru_drain(k, c);
}

void lab_kmm_lru_del(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kpage **pg, int n)
{
	struct lab_knode *locked = NULL;
	struct lab_qnode *qn = NULL;
	long del = 0;

	/* release_pages(): folio_lruvec_relock_irqsave once per run of one lruvec, lruvec_del_folio */
	for (int i = 0; i < n; i++) {
		struct lab_knode *node = page_lruvec(k, pg[i]);

		if (!(READ_ONCE(pg[i]->flags) & LAB_KPG_LRU))
			continue;
		if (node != locked) {
			if (locked)
				qspin_unlock(c, &locked->lru_lock, qn);
			qn = qspin_lock_ev(k, c, &node->lru_lock, LAB_KMM_EV_lru_lock_queued);
			locked = node;
		}
		klist_del(&node->lru, pg[i]);
		WRITE_ONCE(node->lru_count, node->lru_count - 1);
		WRITE_ONCE(pg[i]->flags, pg[i]->flags & ~LAB_KPG_LRU);
		del++;
	}
	if (locked)
		qspin_unlock(c, &locked->lru_lock, qn);
	if (del) {
		lab_kmm_vmstat(k, c, KSTAT_ZONE_LRU, -del);
		lab_kmm_vmstat(k, c, KSTAT_LRU, -del);
		lab_kmm_memcg_stat(k, c, MSTAT_LRU, -del);
		kev(k, c, LAB_KMM_EV_lru_del, (uint64_t)del);
	}
}

void lab_kmm_page_release(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kpage *pg)
{
	lab_kmm_lru_del(k, c, &pg, 1);
	if (pg->charged) {
		pg->charged = 0;
		lab_kmm_uncharge(k, 1);
	}
	WRITE_ONCE(pg->flags, 0u);
	lab_kpath_charge(KP_FREE, 1);
	lab_kmm_pcp_free(k, c, pg);
}

/* ---- the page allocator --------------------------------------------------------------------------- */

void lab_kmm_zone_add(struct lab_kmm *k, int node, struct lab_kpage **pg, size_t n)
{
	struct lab_kzone *z = &k->zone[node % k->nnodes];
	struct lab_kcpu *c = lab_kcpu_get(k);
	struct lab_qnode *qn = qspin_lock(c, &z->lock);

	for (size_t i = 0; i < n; i++) {
		struct lab_kpage *first = z->free.next;

		pg[i]->node = (uint32_t)(node % k->nnodes);
		pg[i]->next = first;
		pg[i]->prev = (struct lab_kpage *)&z->free;
		if (first == (struct lab_kpage *)&z->free)
			z->free.prev = pg[i];
		else
			first->prev = pg[i];
		z->free.next = pg[i];
	}
	WRITE_ONCE(z->nr_free, z->nr_free + (long)n);
	/* NR_FREE_PAGES through vmstat as __free_one_page's __mod_zone_freepage_state: the
	 * zone's counter is also spilled to atomically by CPUs not holding zone->lock */
	lab_kmm_vmstat(k, c, KSTAT_FREE, (long)n);
	qspin_unlock(c, &z->lock, qn);
	lab_kcpu_put(k, c);
}

/* v6.2 mm/page_alloc.c:3116 rmqueue_bulk(): @count pages from the zone under zone->lock. */
static int rmqueue_bulk(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kzone *z, int count)
{
	struct lab_qnode *qn = qspin_lock_ev(k, c, &z->lock, LAB_KMM_EV_zone_lock_queued);
	int i;

	for (i = 0; i < count; i++) {
		struct lab_kpage *pg = klist_first(&z->free);

		if (!pg)
			break;
		lab_kpath_charge(KP_REFILL, 1);	/* __rmqueue's work per page, under the lock */
		klist_del(&z->free, pg);
		klist_add(&c->pcp, pg);
	}
	WRITE_ONCE(z->nr_free, z->nr_free - i);
	lab_kmm_vmstat(k, c, KSTAT_FREE, -i);
	qspin_unlock(c, &z->lock, qn);
	if (i)
		kev(k, c, LAB_KMM_EV_pcp_refill, 1);
	return i;
}

struct lab_kpage *lab_kmm_pcp_alloc(struct lab_kmm *k, struct lab_kcpu *c)
{
	struct lab_kzone *z = &k->zone[c->node];
	struct lab_kpage *pg;

	/* zone_watermark_fast(): every allocation reads the zone's NR_FREE_PAGES */
	(void)READ_ONCE(z->vm_free_pages);
	lab_kpath_charge(KP_ALLOC, 1);
	/* v6.2 rmqueue_pcplist (page_alloc.c:3771): pcp_spin_trylock; v5.x: local_irq_save only */
	if (k->p->pcp_spinlock && !raw_spin_trylock(&c->pcp_lock))
		return NULL;
	/* v6.2 rmqueue_pcplist (page_alloc.c:3793): an allocation halves the bulk free's growth */
	c->free_factor >>= 1;
	if (!klist_first(&c->pcp)) {
		int n = rmqueue_bulk(k, c, z, READ_ONCE(z->batch));

		c->pcp_count += n;
		if (!n && k->nnodes > 1) {	/* the local zone is empty: the zonelist's next node */
			for (int i = 1; i < k->nnodes && !n; i++) {
				n = rmqueue_bulk(k, c, &k->zone[(c->node + i) % k->nnodes], READ_ONCE(z->batch));
				c->pcp_count += n;
			}
		}
	}
	pg = klist_first(&c->pcp);
	if (pg) {
		klist_del(&c->pcp, pg);
		c->pcp_count--;
		kev(k, c, LAB_KMM_EV_pages_alloc, 1);
	}
	if (k->p->pcp_spinlock)
		raw_spin_unlock(&c->pcp_lock);
	return pg;
}

/* v6.2 free_pcppages_bulk(): @count pages from the pcp list back to their zones under zone->lock. */
static void free_pcppages_bulk(struct lab_kmm *k, struct lab_kcpu *c, int count)
{
	struct lab_kzone *locked = NULL;
	struct lab_qnode *qn = NULL;
	long moved = 0;

	for (int i = 0; i < count; i++) {
		struct lab_kpage *pg = klist_first(&c->pcp);
		struct lab_kzone *z;

		if (!pg)
			break;
		/* the tail of the list: the coldest pages go back (list_last_entry) */
		pg = READ_ONCE(c->pcp.prev);
		z = &k->zone[pg->node % (uint32_t)k->nnodes];
		if (z != locked) {
			if (locked)
				qspin_unlock(c, &locked->lock, qn);
			qn = qspin_lock_ev(k, c, &z->lock, LAB_KMM_EV_zone_lock_queued);
			locked = z;
		}
		klist_del(&c->pcp, pg);
		c->pcp_count--;
		lab_kpath_charge(KP_REFILL, 1);	/* __free_one_page: the buddy list work, under the lock */
		klist_add(&z->free, pg);
		WRITE_ONCE(z->nr_free, z->nr_free + 1);
		moved++;
	}
	if (locked) {
		lab_kmm_vmstat(k, c, KSTAT_FREE, moved);
		qspin_unlock(c, &locked->lock, qn);
	}
	kev(k, c, LAB_KMM_EV_pcp_bulk_free, 1);
}

void lab_kmm_pcp_free(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kpage *pg)
{
	struct lab_kzone *z = &k->zone[c->node];
	int high, batch;

	if (k->p->pcp_spinlock)
		raw_spin_lock(&c->pcp_lock);
	klist_add(&c->pcp, pg);
	c->pcp_count++;
	kev(k, c, LAB_KMM_EV_pages_free, 1);
	/*
	 * v6.2 free_unref_page_commit (page_alloc.c:3424-3452): past high, nr_pcp_free()
	 * pages go back; v5.x: batch (v5.12.9 :3245-3246). ZONE_RECLAIM_ACTIVE's
	 * lower high (nr_pcp_high) never applies: no reclaim is modelled.
	 */
	high = READ_ONCE(z->high);
	batch = READ_ONCE(z->batch);
	if (c->pcp_count >= high)
		free_pcppages_bulk(k, c, k->p->pcp_wmark_high ? nr_pcp_free(c, high, batch) : batch);
	if (k->p->pcp_spinlock)
		raw_spin_unlock(&c->pcp_lock);
}

/* ---- rss counters ------------------------------------------------------------------------------- */

int lab_kmm_rss_init(struct lab_kmm *k, struct lab_kmm_rss *r)
{
	r->image = line_alloc(k->p->mm_size);
	r->pcpu = k->p->rss_percpu ? line_alloc((size_t)k->ncpus * LAB_CACHELINE) : NULL;
	if (!r->image || (k->p->rss_percpu && !r->pcpu)) {
		lab_kmm_rss_destroy(r);
		return -ENOMEM;
	}
	return 0;
}

void lab_kmm_rss_destroy(struct lab_kmm_rss *r)
{
	free(r->image);
	free(r->pcpu);
	r->image = NULL;
	r->pcpu = NULL;
}

/* MM_ANONPAGES's counter in the image: v6.2 percpu_counter {lock, count}; v5.x atomic_long_t. */
static inline long *rss_count(struct lab_kmm *k, struct lab_kmm_rss *r)
{
	unsigned off = k->p->mm_rss + 1 * k->p->mm_rss_stride;	/* MM_FILEPAGES, then MM_ANONPAGES */

	return (long *)(r->image + off + (k->p->rss_percpu ? 8 : 0));
}

/* percpu_counter.lock: a raw_spinlock_t, 4 bytes in the kernel; here the queue's tail pointer (8 bytes, before count). */
static inline lab_qspinlock_t *rss_lock(struct lab_kmm *k, struct lab_kmm_rss *r)
{
	return (lab_qspinlock_t *)(r->image + k->p->mm_rss + 1 * k->p->mm_rss_stride);
}

void lab_kmm_rss_add(struct lab_kmm *k, struct lab_kcpu *c, struct lab_kmm_rss *r, struct lab_ktask *t, long delta)
{
	if (k->p->rss_percpu) {
		/* lib/percpu_counter.c:82 percpu_counter_add_batch() */
		int32_t *slot = (int32_t *)((char *)r->pcpu + (size_t)(c - k->cpu) * LAB_CACHELINE);
		long count = *slot + delta;

		if (count >= k->rss_batch || count <= -k->rss_batch) {
			struct lab_qnode *qn = qspin_lock_ev(k, c, rss_lock(k, r), LAB_KMM_EV_rss_lock_queued);

			WRITE_ONCE(*rss_count(k, r), READ_ONCE(*rss_count(k, r)) + count);
			*slot = 0;
			qspin_unlock(c, rss_lock(k, r), qn);
			kev(k, c, LAB_KMM_EV_rss_spill, 1);
		} else {
			*slot = (int32_t)count;
		}
		return;
	}
	/* v5.x add_mm_counter_fast(): the task's own cache */
	if (t)
		t->rss += delta;
	else
		atomic_fetch_add_relaxed(rss_count(k, r), delta);
}

void lab_kmm_rss_fault(struct lab_kmm *k, struct lab_kmm_rss *r, struct lab_ktask *t)
{
	/* v5.0 mm/memory.c:171 check_sync_rss_stat(): events++ > TASK_RSS_EVENTS_THRESH -> sync_mm_rss */
	if (k->p->rss_percpu || !t)
		return;
	if (t->events++ > LAB_KMM_TASK_RSS_THRESH) {
		if (t->rss)
			atomic_fetch_add_relaxed(rss_count(k, r), t->rss);
		t->rss = 0;
		t->events = 0;
		__atomic_fetch_add(&k->ev[0][LAB_KMM_EV_rss_spill], 1, __ATOMIC_RELAXED);
	}
}

long lab_kmm_rss_read(const struct lab_kmm *k, const struct lab_kmm_rss *r, const struct lab_ktask *tasks, int ntasks)
{
	unsigned off = k->p->mm_rss + 1 * k->p->mm_rss_stride + (k->p->rss_percpu ? 8 : 0);
	long v = *(const long *)(r->image + off);

	if (k->p->rss_percpu)
		for (int c = 0; c < k->ncpus; c++)
			v += *(const int32_t *)((const char *)r->pcpu + (size_t)c * LAB_CACHELINE);
	for (int i = 0; i < ntasks; i++)
		v += tasks[i].rss;
	return v;
}

/* ---- the cost model ----------------------------------------------------------------------------- */

static const char *const kpath_keys[KP_NR] __attribute__((unused)) = {
	[KP_ENTRY] = "cost.kpath.fault_entry_ns", [KP_LOOKUP] = "cost.kpath.fault_lookup_ns",
	[KP_ACCOUNT] = "cost.kpath.fault_account_ns",
	[KP_ALLOC] = "cost.kpath.fault_alloc_ns", [KP_REFILL] = "cost.kpath.fault_refill_ns",
	[KP_CHARGE] = "cost.kpath.fault_charge_ns", [KP_RMAP] = "cost.kpath.fault_rmap_ns",
	[KP_LRU_ADD] = "cost.kpath.fault_lru_add_ns", [KP_LRU_MOVE] = "cost.kpath.fault_lru_move_ns",
	[KP_PTE_ALLOC] = "cost.kpath.fault_pte_alloc_ns", [KP_PTL] = "cost.kpath.fault_ptl_ns",
	[KP_USER_TOUCH] = "cost.kpath.user_ns", [KP_ZAP] = "cost.kpath.unmap_zap_ns",
	[KP_FREE] = "cost.kpath.unmap_free_ns", [KP_UNCHARGE] = "cost.kpath.unmap_uncharge_ns",
};

#if LAB_SIM
static int kpath_key[KP_NR];
static uint64_t kpath_boot;

static void kpath_lookup(void)
{
	if (kpath_boot == sim_boot_count() + 1)
		return;
	for (int i = 0; i < KP_NR; i++)
		kpath_key[i] = lab_cost_key(kpath_keys[i]);
	kpath_boot = sim_boot_count() + 1;
}

const char *lab_kpath_check(void)
{
	kpath_lookup();
	for (int i = 0; i < KP_NR; i++)
		if (kpath_key[i] < 0)
			return kpath_keys[i];
	return NULL;
}

void lab_kpath_charge(enum lab_kpath_part part, double units)
{
	kpath_lookup();
	/*
	 * Per-fault keys are per fault; the pte_alloc key is per fault in the
	 * record (its share of 512 faults), charged here per PTE page.
	 */
	if (part == KP_PTE_ALLOC)
		units *= 512;
	lab_user_work(kpath_key[part], units);
}
#else
const char *lab_kpath_check(void)
{
	return NULL;
}

void lab_kpath_charge(enum lab_kpath_part part, double units)
{
	(void)part;
	(void)units;
}
#endif
