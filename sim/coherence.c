/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/coherence.c - the coherence directory and sim_mem(), the memory seam.
 *
 * One entry per 64-byte line touched: its owner (M/E), its sharers (S, a
 * CPU bitmap), its home socket (first touch), the last transfer granted or
 * reserved (its arrival and its CPU), when the owner got it and when the
 * next request's snoop reaches it, and a version bumped by every store. The rules, each with its source (sim/README.md):
 *
 * - A transfer is one c2c figure of the pair's distance class (SMT sibling,
 *   same L3, same socket near or far home, other socket), counted once: the
 *   figure is a CAS ping-pong's round trip / 2 [c2c], which already holds
 *   the RMW the transfer was for, so no local cost is added to it.
 * - Requests for a line are served one at a time in the order they are made
 *   (FIFO: no locality preference in the order was found published): a
 *   request made while transfers are reserved arrives one transfer after the
 *   last of them, from the CPU that one goes to.
 * - The effect lands when the line arrives, not when the request is made:
 *   the requester waits (not preemptible: one instruction) until it is the
 *   earliest CPU at the arrival time, and only then does the directory
 *   change and the access itself happen (the caller makes it on return).
 *   Nor is it interrupted: an IPI that arrives meanwhile is taken at the
 *   task's next seam, after the access (line_wait); taken inside the wait,
 *   its handler ran first and the requests queued behind landed before the
 *   access they were queued behind.
 * - A line stays with the CPU that has it until another CPU asks for it;
 *   its own accesses are local meanwhile. Once a transfer to another CPU is
 *   reserved, the owner keeps the line for the first rmw.hold_share of that
 *   transfer (the hold window: the time the request and its snoop take to
 *   reach the owner, from the owner's grant or from the request, whichever
 *   is later), and its own accesses that complete within the window are
 *   local: a dependent retry issued as a failed cmpxchg returns finds the
 *   line (Peter Zijlstra in Muchun Song's thread: the cmpxchg loop keeps
 *   "the line on that CPU for a little while"). The share is measured here
 *   (rwlab-calibrate rmw_hold_ns / c2c_ns: machine files). Later accesses
 *   queue behind the transfer.
 * - A load by a holder is local; a load miss that must take the line from
 *   its owner (a read snoop) is a request like any other: it reserves its
 *   transfer in turn and waits out the owner's window; one that finds only
 *   sharers or memory waits for the transfers in flight and brings a copy
 *   from the nearest sharer or memory. A store or RMW by the sole holder is
 *   local; else it reserves a transfer from the owner, or from the farthest
 *   sharer (invalidation).
 * - Read for ownership (sim-9): a load that took the line from its owner (a
 *   read snoop, reserved in turn) followed by a store or locked RMW of the
 *   same line as the task's next access, with no modelled time between them
 *   (the same instruction window), is one ownership transfer: the line is
 *   the requester's from the load's arrival, and the store or RMW is local
 *   if it completes before the snoop of the request queued behind the load
 *   reaches it (the hold window of the rule above) and no store landed
 *   since. Sources: an out-of-order core issues the ownership request of a
 *   store once its address is generated and translated, before the store
 *   retires (US patent 9,405,545 B2, "cutting senior store latency using
 *   store prefetching", filed 2011); processors may fetch a WB line with
 *   exclusive ownership speculatively (Intel SDM vol. 2, PREFETCHW); the
 *   snoop that hands a line over with E/M to the requester is one response
 *   (Skylake-SP uncore, CHA SNOOP_RESP.RSPIFWD: "commonly returned with
 *   RFO"). Validated, not fitted: it sets no parameter; Muchun Song's 1.016
 *   cmpxchg attempts per read-first trylock (hsw-ep-2s40) and this host's
 *   1.006 (atomics rcas, 2 threads) are the rungs it meets
 *   (results/sim/validate/README.md). A load that found only sharers keeps
 *   its shared copy and the store upgrades it (not modelled as one).
 *
 * - The store buffer (sim-11, rule 8): a plain store (WRITE_ONCE,
 *   smp_store_release) takes an entry of its CPU's store buffer and the
 *   CPU goes on; its line is reserved in turn like any request and the
 *   store lands (commits) when the line arrives, in program order after
 *   the CPU's earlier stores. A locked RMW or a fence first waits until
 *   every buffered store has landed, and so do the futex calls (the
 *   kernel takes the hash bucket's spinlock), a context switch or a
 *   task's exit (the runqueue lock) and an interrupt's return (IRET is serializing:
 *   ipi.c). A store that finds every entry taken waits for the
 *   oldest. Sources: Intel SDM vol. 3A, "Memory Ordering in P6 and More
 *   Recent Processor Families" (reads may pass older writes to other
 *   locations; writes are not reordered with older writes; locked
 *   instructions and MFENCE are not reordered with loads or stores) and
 *   "Store Buffer" (the processor writes stores to its store buffer and
 *   continues, so that execution does not wait for the write to reach the
 *   cache or memory); Owens, Sarkar and Sewell, "A better x86 memory
 *   model: x86-TSO" (TPHOLs 2009): a FIFO store buffer per hardware
 *   thread, flushed by locked instructions and MFENCE. The entries per
 *   hardware thread are the machine file's sb.entries (the part's
 *   published size; Intel partitions it between two SMT threads); absent
 *   or 0, a store waits for its line as before sim-11. The directory
 *   takes the store's effect when it is made: from then on the line's old
 *   holders ask for it like anyone and queue behind the store's transfer,
 *   so no other CPU reads the new value before the store lands. (The
 *   old owner's hold window is not kept for a buffered store; the
 *   simulated program's memory takes the value at once, as if the store
 *   had landed then, which is one of the orders x86-TSO allows.) A store
 *   to a line with a request already on its way to another CPU, other
 *   than a buffered store's, waits for the line as before: that request
 *   must find the old value, and the program's memory would hold the new
 *   one. It still lands after the CPU's earlier
 *   buffered stores (program order), and its line waits for it until then.
 * - Per-pair transfer figures (sim-12, rule 9): where the machine file names
 *   a published core-to-core matrix (c2c.pairs, sim/machines/c2c/), a
 *   transfer from a known CPU, the line's owner or the request queued
 *   ahead, costs that pair's figure (and its hold window that figure x
 *   rmw.hold_share) instead of the distance class's median; a transfer
 *   from sharers found by class (the nearest holder, no one CPU) keeps the
 *   class figure, and the transfer counts (socket crossings) stay by
 *   class. Source: the matrix itself (nviennot/core-to-core-latency's CAS
 *   round trip / 2 between every two CPUs), whose medians per class are the
 *   class figures; a real mesh or ring has per-pair distances (the spread
 *   in the matrix is 46.0-56.4 ns p10-p90 within one Ice Lake-SP socket),
 *   and with one figure per class a fault's fixed path cost compares with
 *   the hand-over in exact constants (results/sim/per-vma-locks/
 *   fragility-20261203: a step where hardware would give a ramp).
 * - SMT siblings share the core's line (sim-15, rule 10; loads since
 *   sim-16): the two hardware threads of a core share its L1D and its fill
 *   buffers, so the core holds one copy of a line and one outstanding fill
 *   for it. A load, an RMW (or a store that waits for its line) by a CPU
 *   while transfers to other cores are
 *   queued for the line is served from its core, not behind those requests,
 *   when its sibling owns the line and the snoop of the first queued request
 *   has not reached the core (rule 4's window), or when its sibling's
 *   request to own the line is in flight (the miss finds the sibling's
 *   fill): it completes one sibling transfer (c2c.smt_ns, rule 1) after now
 *   or after the sibling's arrival, if that is within the window before the
 *   snoop of the request queued behind the sibling reaches the core;
 *   otherwise it queues in turn as before (c2c.pairs: the sibling pair's
 *   figure, rule 9). A store of the sibling's that the line waits for
 *   (rule 8: after its earlier stores) is in the core's line only once it
 *   lands (the store buffer is the thread's own): the owner's grant is
 *   then. Sources: Intel SDM vol. 3A,
 *   8.7.13.1 "Processor Caches" ("For processors supporting Intel
 *   Hyper-Threading Technology, the caches are shared"); Linux
 *   Documentation/x86/mds.rst (MFBDS: "Fill buffers are used internally to
 *   manage L1 miss situations ... Fill buffers are shared between
 *   Hyper-Threads"); Intel's event MEM_LOAD_RETIRED.FB_HIT (Skylake-SP,
 *   tools/perf/pmu-events skylakex/cache.json: "load missed in L1 but hit
 *   FB (Fill Buffers) due to preceding miss to the same cache line with data
 *   not ready") and L1D_PEND_MISS.FB_FULL (Ice Lake: fill-buffer "demand
 *   requests include cacheable/uncacheable demand load, store, lock or SW
 *   prefetch accesses"); AMD's PMCx055 "MAB Match" (Family 1Ah PPR: "load/
 *   store flows ... that requested a Miss Address Buffer (MAB) and hit on an
 *   existing MAB entry"; Family 19h model 11h: load flows). No source says
 *   in words that a locked RMW's miss from one thread merges with its
 *   sibling's outstanding RFO: the rule joins "shared fill buffers" and "a
 *   miss to a line already being filled hits the fill". It sets no
 *   parameter (c2c.smt_ns and rmw.hold_share are rules 1 and 4's). A load
 *   served so reads the line where it is and leaves the directory as it
 *   was (the sibling keeps it; the core's one copy). Loads joined in sim-16:
 *   sim-15 served only RMWs and stores, so a read-first trylock (v4.20's
 *   down_read_trylock: a load, then cmpxchg) queued its load behind other
 *   cores where a blind cmpxchg (v5.3's) was served, and rwsem-rework's pft
 *   at 30-40 clients favoured the blind kernel for that alone
 *   (results/sim/rwsem-rework/reproduce-sim15-pftgit-20261203); FB_HIT is a
 *   load event, the best-sourced case of the rule. Left out: a sibling's
 *   read snoop in flight (the line arriving shared), a line the core holds
 *   only shared while an invalidation is queued, store-buffered stores, and
 *   a request queued behind a buffered store still to land: served from the
 *   core, it sees the store's value before the store lands (the directory
 *   takes a buffered store's effect when it is made, rule 8), as if the
 *   store had landed then, an order x86-TSO allows.
 *
 * A store wakes the spinners watching the line (spin.c).
 */
#include <string.h>

#include "engine.h"

/*
 * Costs are chosen as distance classes (enum xclass) and converted with the
 * tables dir_boot() fills: the same ps_of() of the same figures as when
 * each access converted them itself, without the floating point per access.
 */
static enum xclass xfer_class(int a, int b, int home)
{
	const struct place *x = &eng.place[a], *y = &eng.place[b];

	if (a == b)
		return X_NONE;
	if (x->core == y->core)
		return X_SMT;
	if (x->l3 == y->l3)
		return X_L3;
	if (x->socket == y->socket)
		return home == x->socket ? X_SOCKET : X_SOCKET_FAR_HOME;
	return X_REMOTE;
}

/*
 * Rule 9: a transfer between @c and a known CPU @src (the owner, or the
 * request queued ahead) costs the pair's published figure when the machine
 * gives c2c.pairs; from sharers found by class, the class's figure.
 */
static inline int pair_known(int src, enum xclass x)
{
	return eng.dir.pair_ps && src >= 0 && x >= X_SMT && x <= X_REMOTE;
}

static inline uint64_t xfer_ps(int c, int src, enum xclass x)
{
	return pair_known(src, x) ? eng.dir.pair_ps[(size_t)c * (size_t)eng.ncpu + (size_t)src] : eng.dir.x_ps[x];
}

static inline uint64_t hold_ps(int c, int src, enum xclass x)
{
	return pair_known(src, x) ? eng.dir.pair_hold_ps[(size_t)c * (size_t)eng.ncpu + (size_t)src] :
				    eng.dir.hold_ps[x];
}

static struct line *line_new(uintptr_t key, int home)
{
	struct line *l;

	if (eng.dir.pool_left < eng.dir.line_size) {
		eng.dir.pool_left = eng.dir.line_size * 4096;
		eng.dir.pool = eng_alloc(eng.dir.pool_left);
	}
	l = (struct line *)eng.dir.pool;
	eng.dir.pool += eng.dir.line_size;
	eng.dir.pool_left -= eng.dir.line_size;
	l->key = key;
	l->owner = -1;
	l->tail = -1;
	l->home = home;
	return l;
}

static size_t lhash(uintptr_t k)
{
	k *= 0x9e3779b97f4a7c15ull;
	return (size_t)(k >> 20);
}

static void ltab_grow(void)
{
	size_t ncap = eng.dir.cap ? eng.dir.cap * 2 : 1 << 14;
	struct line **n = eng_alloc(ncap * sizeof(*n));

	for (size_t i = 0; i < eng.dir.cap; i++)
		if (eng.dir.tab[i]) {
			size_t j = lhash(eng.dir.tab[i]->key) & (ncap - 1);

			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = eng.dir.tab[i];
		}
	eng.dir.tab = n;
	eng.dir.cap = ncap;
}

static struct line *line_get(const volatile void *addr, int cpu)
{
	uintptr_t key = (uintptr_t)addr >> LINE_SHIFT;
	size_t j;

	if (eng.dir.count * 2 >= eng.dir.cap)
		ltab_grow();
	j = lhash(key) & (eng.dir.cap - 1);
	while (eng.dir.tab[j]) {
		if (eng.dir.tab[j]->key == key)
			return eng.dir.tab[j];
		j = (j + 1) & (eng.dir.cap - 1);
	}
	eng.dir.count++;
	return eng.dir.tab[j] = line_new(key, eng.cpus[cpu].socket);
}

static inline int sharer(const struct line *l, int c)
{
	return (l->sharers[c >> 6] >> (c & 63)) & 1;
}

static inline void sharer_set(struct line *l, int c)
{
	l->sharers[c >> 6] |= 1ull << (c & 63);
}

/*
 * No CPU holds it in S. The first word stored inline: memset() (which GCC
 * also makes of a plain loop) was a library call per store, for the one
 * word a machine of up to 64 CPUs has.
 */
static inline void sharers_clear(struct line *l)
{
	l->sharers[0] = 0;
	if (eng.nwords > 1)
		memset(&l->sharers[1], 0, (size_t)(eng.nwords - 1) * 8);
}

/*
 * Per-CPU masks of the CPUs sharing its core, L3 domain and socket: the
 * nearest (read) or farthest (invalidate) sharer of a line is found by
 * category in O(words), not by visiting every sharer.
 */
static int any_outside(const struct line *l, const uint64_t *mask, int c)
{
	for (int w = 0; w < eng.nwords; w++) {
		uint64_t b = l->sharers[w] & ~mask[(size_t)c * eng.nwords + w];

		if (b)
			return 1;
	}
	return 0;
}

static int any_inside(const struct line *l, const uint64_t *mask, int c)
{
	for (int w = 0; w < eng.nwords; w++) {
		uint64_t b = l->sharers[w] & mask[(size_t)c * eng.nwords + w];

		if (w == c >> 6)
			b &= ~(1ull << (c & 63));
		if (b)
			return 1;
	}
	return 0;
}

static int no_sharers(const struct line *l, int except)
{
	for (int w = 0; w < eng.nwords; w++) {
		uint64_t b = l->sharers[w];

		if (w == except >> 6 && except >= 0)
			b &= ~(1ull << (except & 63));
		if (b)
			return 0;
	}
	return 1;
}

static enum xclass mem_class(const struct line *l, int c)
{
	return l->home == eng.cpus[c].socket ? X_MEM_LOCAL : X_MEM_REMOTE;
}

static enum xclass socket_class(const struct line *l, int c)
{
	return l->home == eng.cpus[c].socket ? X_SOCKET : X_SOCKET_FAR_HOME;
}

/* Cost of bringing the line to @c for reading: the nearest holder, else memory. */
static enum xclass read_source(struct line *l, int c)
{
	if (l->owner >= 0)
		return xfer_class(c, l->owner, l->home);
	if (no_sharers(l, c))
		return mem_class(l, c);
	if (any_inside(l, eng.dir.mask_core, c))
		return X_SMT;
	if (any_inside(l, eng.dir.mask_l3, c))
		return X_L3;
	if (any_inside(l, eng.dir.mask_socket, c))
		return socket_class(l, c);
	return X_REMOTE;
}

/* Cost of taking the line exclusive at @c: invalidate the farthest holder. */
static enum xclass own_source(struct line *l, int c)
{
	if (l->owner >= 0)
		return xfer_class(c, l->owner, l->home);
	if (no_sharers(l, -1))
		return mem_class(l, c);
	if (any_outside(l, eng.dir.mask_socket, c))
		return X_REMOTE;
	if (any_outside(l, eng.dir.mask_l3, c))
		return socket_class(l, c);
	if (any_outside(l, eng.dir.mask_core, c))
		return X_L3;
	return no_sharers(l, c) ? X_NONE : X_SMT;
}

/* The engine's own store (on_cpu words): no charge, but watchers see it. */
void line_touch_store(void *addr, int c)
{
	struct line *l = line_get(addr, c);

	sharers_clear(l);
	l->owner = c;
	l->version++;
	if (l->watchers)
		wake_watchers(l, eng.cpus[c].clock);
}

/* Build the per-CPU masks of the CPUs sharing each CPU's core, L3 domain and socket. */
void dir_boot(void)
{
	const double ns[X_CLASSES] = {
		[X_NONE] = 0, [X_SMT] = eng.m.c2c_smt_ns, [X_L3] = eng.m.c2c_l3_ns,
		[X_SOCKET] = eng.m.c2c_socket_ns, [X_SOCKET_FAR_HOME] = eng.m.c2c_socket_far_home_ns,
		[X_REMOTE] = eng.m.c2c_remote_ns, [X_MEM_LOCAL] = eng.m.mem_local_ns,
		[X_MEM_REMOTE] = eng.m.mem_remote_ns,
	};

	for (int k = 0; k < X_CLASSES; k++) {
		eng.dir.x_ns[k] = ns[k];
		eng.dir.x_ps[k] = ps_of(ns[k]);
		eng.dir.hold_ps[k] = ps_of(ns[k] * eng.m.rmw_hold_share);
	}
	if (eng.m.pair_ns) {
		size_t n = (size_t)eng.ncpu * (size_t)eng.ncpu;

		eng.dir.pair_ps = eng_alloc(n * sizeof(uint64_t));
		eng.dir.pair_hold_ps = eng_alloc(n * sizeof(uint64_t));
		for (size_t i = 0; i < n; i++) {
			eng.dir.pair_ps[i] = ps_of(eng.m.pair_ns[i]);
			eng.dir.pair_hold_ps[i] = ps_of(eng.m.pair_ns[i] * eng.m.rmw_hold_share);
		}
	}
	eng.dir.load_ps = ps_of(eng.m.load_local_ns);
	eng.dir.rmw_ps = ps_of(eng.m.rmw_local_ns);
	eng.dir.relax_ps = ps_of(eng.m.relax_ns);
	eng.dir.line_size = (sizeof(struct line) + (size_t)eng.nwords * 8 + 15) & ~(size_t)15;
	eng.dir.mask_core = eng_alloc((size_t)eng.ncpu * (size_t)eng.nwords * 8);
	eng.dir.mask_l3 = eng_alloc((size_t)eng.ncpu * (size_t)eng.nwords * 8);
	eng.dir.mask_socket = eng_alloc((size_t)eng.ncpu * (size_t)eng.nwords * 8);
	for (int a = 0; a < eng.ncpu; a++)
		for (int b = 0; b < eng.ncpu; b++) {
			struct cpu *x = &eng.cpus[a], *y = &eng.cpus[b];
			uint64_t bit = 1ull << (b & 63);
			size_t w = (size_t)a * eng.nwords + (size_t)(b >> 6);

			if (x->core == y->core)
				eng.dir.mask_core[w] |= bit;
			if (x->l3 == y->l3)
				eng.dir.mask_l3[w] |= bit;
			if (x->socket == y->socket)
				eng.dir.mask_socket[w] |= bit;
		}
}

/*
 * Wait for the line to arrive at @when: not preemptible (an instruction in
 * flight); earlier CPUs go first, so the access lands in time order.
 */
static void mem_wait(struct task *t, uint64_t when)
{
	struct cpu *c = &eng.cpus[t->cpu];

	c->clock = when;
	if (c->clock > heap_min())
		sched_next(c);
}

/*
 * Wait for a line's transfer (mem_load, mem_own): one instruction in flight,
 * so an IPI that arrives meanwhile waits for the access to land. ipi_arrive()
 * holds it; it is queued again just before the wait's end (1 ps, not before
 * its arrival), so the task's next seam finds it due and takes it, after the
 * caller has made the access, even when that seam is another access's wait
 * (queued at the wait's end, it was held again by each of a run of misses).
 */
static void line_wait(struct task *t, uint64_t when)
{
	struct cpu *c = &eng.cpus[t->cpu];

	c->line_wait = 1;
	mem_wait(t, when);
	c->line_wait = 0;
	if (c->ipi_held) {
		uint64_t at = c->clock - 1;

		c->ipi_held = 0;
		heap_push(at > c->ipi_head->at ? at : c->ipi_head->at, EV_IPI, t->cpu, 0);
	}
}

/* A load's line joins the spin detector's watch list (spin.c). */
static void watch_note(struct task *t, struct line *l)
{
	if (t->sn >= SPIN_WATCH) {
		t->sov = 1;
		return;
	}
	if (t->sn && t->w[t->sn - 1].l == l)
		return;
	for (int i = 0; i < t->sn; i++)
		if (t->w[i].l == l)
			return;
	t->w[t->sn].l = l;
	t->w[t->sn].ver = l->version;
	t->sn++;
}

/*
 * A request queued right behind a read that took the line from its owner:
 * were that read's CPU to make it its own (a store or RMW next: rule 7),
 * this request's snoop would reach it at the hold window's end.
 */
static void rfo_queued(const struct line *l, uint64_t now, uint64_t hold)
{
	struct cpu *q;

	if (l->tail < 0)
		return;
	q = &eng.cpus[l->tail];
	if (q->rd_line == l && q->rd_snoop == UINT64_MAX)
		q->rd_snoop = (now > l->busy_until ? now : l->busy_until) + hold;
}

/*
 * A request by @ci made right behind one that waits to own the line
 * (mem_own): when that one is served, @ci's snoop reaches it after the
 * window of the transfer from it to @ci (rule 4: of the transfer that takes
 * the line). Also a request made at the instant the line arrives there,
 * before its CPU took it over in the directory: it is served next.
 */
static void own_queued(const struct line *l, int ci)
{
	struct cpu *q;

	if (l->tail < 0 || l->tail == ci)
		return;
	q = &eng.cpus[l->tail];
	if (q->own_line == l && q->own_next_hold == UINT64_MAX)
		q->own_next_hold = hold_ps(ci, l->tail, xfer_class(ci, l->tail, l->home));
}

/*
 * A request queued right behind a buffered store (rule 8): the store's CPU
 * keeps the line from its landing until this request's snoop reaches it.
 */
static void sb_queued(struct line *l, uint64_t hold)
{
	if (l->sb_tail) {
		l->snoop_at = l->busy_until + hold;
		l->sb_tail = 0;
	}
}

/* Rule 8: forget the entries of the stores that have landed by @now. */
static void sb_retire(struct cpu *c, uint64_t now)
{
	while (c->sb_n && c->sb[c->sb_head] <= now) {
		c->sb_head = (c->sb_head + 1) % SIM_SB_MAX;
		c->sb_n--;
	}
}

static void sb_push(struct cpu *c, uint64_t lands)
{
	c->sb[(c->sb_head + c->sb_n) % SIM_SB_MAX] = lands;
	c->sb_n++;
	c->sb_last = lands;
}

/* Rule 8: a free entry for the store @t makes at @now; a full buffer waits for its oldest. */
static uint64_t sb_room(struct task *t, uint64_t now)
{
	struct cpu *c = &eng.cpus[t->cpu];

	sb_retire(c, now);
	if (c->sb_n < eng.m.sb_entries)
		return now;
	eng.st.sb_full++;
	mem_wait(t, c->sb[c->sb_head]);
	sb_retire(c, c->clock);
	return c->clock;
}

/* Rule 8: a locked RMW, a fence, a futex call: wait until every buffered store has landed. */
static uint64_t sb_drain(struct task *t, uint64_t now)
{
	struct cpu *c = &eng.cpus[t->cpu];

	if (c->sb_last <= now)
		return now;
	eng.st.sb_drain_wait++;
	mem_wait(t, c->sb_last);
	c->sb_n = 0;
	return c->clock;
}

void sim_sb_drain(void)
{
	struct task *t = eng.running;

	sync_point(t);
	sb_drain(t, eng.cpus[t->cpu].clock);
}

/*
 * Rule 8: a store that needs no transfer still lands after the CPU's
 * earlier stores; until then its line waits for it (unless a request is
 * already queued for the line: its transfer keeps its place). Returns when
 * it lands.
 */
static uint64_t sb_local(struct cpu *c, struct line *l, int ci, uint64_t done, int pending)
{
	if (!eng.m.sb_entries || c->sb_last <= done)
		return done;
	sb_push(c, c->sb_last);
	if (!pending) {
		l->busy_until = c->sb_last;
		l->tail = ci;
		l->sb_tail = 1;
	}
	return c->sb_last;
}

/*
 * Rule 10 (sim-15; loads too since sim-16): the core's SMT threads share
 * its L1D and its fill buffers. A load, an RMW or a store that waits, by
 * @ci, while transfers to other cores are queued for the line, is served
 * from @ci's core when a sibling
 * holds the line and the snoop of the first queued request has not reached
 * the core yet, or when a sibling's request to own the line is in flight
 * (its miss finds the sibling's fill): one sibling transfer after now, or
 * after the sibling's arrival. Only if that completes within the window
 * before the snoop of the request queued behind reaches the core (rule 4);
 * otherwise it queues as before. Returns when it completes, or 0.
 */
static uint64_t core_serves(const struct line *l, int ci, uint64_t now)
{
	const uint64_t *m = &eng.dir.mask_core[(size_t)ci * (size_t)eng.nwords];

	if (l->tail < 0 || eng.place[l->tail].core == eng.place[ci].core)
		return 0;	/* the last queued transfer is to this core: in turn is right behind it */
	for (int w = 0; w < eng.nwords; w++)
		for (uint64_t b = m[w]; b; b &= b - 1) {
			int s = w * 64 + __builtin_ctzll(b);
			const struct cpu *q = &eng.cpus[s];
			uint64_t xps;

			if (s == ci)
				continue;
			xps = xfer_ps(ci, s, X_SMT);
			if (l->owner == s && l->grant <= now && now + xps <= l->snoop_at)
				return now + xps;	/* the core holds it: before the snoop */
			if (q->own_line == l && q->line_wait && q->own_next_hold != UINT64_MAX &&
			    xps <= q->own_next_hold && q->clock > now)
				return q->clock + xps;	/* the sibling's fill: served with it */
		}
	return 0;
}

/*
 * The store or RMW of @ci, the line's owner, lands at @lands: the line's
 * grant waits for a store (rule 8), its version moves, its watchers wake.
 */
static inline void own_lands(struct line *l, int ci, uint64_t lands, int store)
{
	/*
	 * Rule 8: the line waits for this store, which lands after the CPU's
	 * earlier ones (sb_local): the owner has it with the store from then,
	 * so a sibling is not served from the core before it lands (rule 10:
	 * core_serves). No other reader of grant sees the change: a request
	 * made once this transfer is no longer pending is made after it lands.
	 */
	if (store && l->tail == ci && l->sb_tail && l->grant < lands)
		l->grant = lands;
	l->version++;
	if (l->watchers)
		wake_watchers(l, lands);
}

/* A store or RMW by @ci, granted the line at @now: @ci owns it alone (own_lands() then). */
static inline void own_take(struct line *l, int ci, uint64_t now, uint64_t lands, int store)
{
	sharers_clear(l);
	if (l->owner != ci)
		l->grant = now;
	l->owner = ci;
	own_lands(l, ci, lands, store);
}

/* A load of a line this CPU does not hold (mem_local() makes the others). */
static __attribute__((noinline)) int mem_load(struct task *t, struct line *l, int ci, uint64_t now, int pending)
{
	struct cpu *c = &eng.cpus[ci];
	int xfer = 0;
	uint64_t lands;

	if (pending && eng.m.smt > 1 && !l->sb_tail && (lands = core_serves(l, ci, now)) != 0) {
		/* rule 10: the core's L1D has it, or the sibling's fill brings it (a fill-buffer hit) */
		xfer = 1;
		eng.st.smt_served++;
		line_wait(t, lands);
	} else {
		enum xclass x = pending ? xfer_class(ci, l->tail, l->home) : read_source(l, ci);
		int src = pending ? l->tail : l->owner;
		uint64_t start = now > l->busy_until ? now : l->busy_until;
		uint64_t xps = xfer_ps(ci, src, x), hps = hold_ps(ci, src, x);
		int snooped = l->owner >= 0 || pending;

		xfer = 1 + (eng.dir.x_ns[x] >= eng.m.c2c_remote_ns);
		if (snooped) {
			/* a read snoop takes the line from its owner: served in turn, after its window */
			own_queued(l, ci);
			if (!pending) {
				l->snoop_at = (now > l->grant ? now : l->grant) + hps;
			} else {
				rfo_queued(l, now, hps);
				sb_queued(l, hps);
			}
			l->busy_until = start + xps;
			l->tail = ci;
			l->sb_tail = 0;
			start = l->busy_until - xps;
			c->rd_line = l;
			c->rd_snoop = UINT64_MAX;
		}
		line_wait(t, start + xps);
		if (l->owner >= 0) {
			sharer_set(l, l->owner);
			l->owner = -1;
		}
		sharer_set(l, ci);
		if (snooped) {
			c->rd_task = t;
			c->rd_at = c->clock;
			c->rd_ver = l->version;
		}
	}
	watch_note(t, l);
	return xfer;
}

/* The store or RMW of a line this CPU does not own alone and at once (mem_local() makes those). */
static __attribute__((noinline)) int mem_own(struct task *t, struct line *l, int ci, uint64_t now, int pending,
					     enum sim_op op, int rfo)
{
	struct cpu *c = &eng.cpus[ci];
	int alone = l->owner == ci, xfer = 0, store = op == SIM_STORE;
	uint64_t local, lands;

	t->simpure = 1;
	if (!alone && l->owner < 0 && sharer(l, ci))
		alone = no_sharers(l, ci);	/* S -> M with no other copy: no transfer */
	local = op == SIM_RMW ? eng.dir.rmw_ps : eng.dir.load_ps;
	if (rfo) {
		/* rule 7: the read brought the line for ownership; it is this CPU's since */
		c->clock = now + local;
		l->snoop_at = c->rd_snoop;
		lands = store ? sb_local(c, l, ci, c->clock, pending) : c->clock;
	} else if (alone && (!pending || now + local <= l->snoop_at)) {
		c->clock = now + local;
		lands = store ? sb_local(c, l, ci, c->clock, pending) : c->clock;
	} else if (pending && eng.m.smt > 1 && !(store && eng.m.sb_entries && l->sb_tail) &&
		   (lands = core_serves(l, ci, now)) != 0) {
		/* rule 10: from the core's L1D or with the sibling's fill, not behind other cores */
		xfer = 1;
		eng.st.smt_served++;
		line_wait(t, lands);
		now = c->clock;
		lands = store ? sb_local(c, l, ci, now, 1) : now;
	} else {
		enum xclass x = pending ? xfer_class(ci, l->tail, l->home) : own_source(l, ci);
		int src = pending ? l->tail : l->owner;
		uint64_t start = now > l->busy_until ? now : l->busy_until;
		uint64_t xps = xfer_ps(ci, src, x), hps = hold_ps(ci, src, x);
		/* rule 8: not behind a read already on its way (it must find the old value) */
		int buffered = store && eng.m.sb_entries && (!pending || l->sb_tail);

		xfer = 1 + (eng.dir.x_ns[x] >= eng.m.c2c_remote_ns);
		own_queued(l, ci);
		if (!pending) {	/* the first request after the owner's grant: its snoop takes the line */
			l->snoop_at = (now > l->grant ? now : l->grant) + hps;
		} else {
			rfo_queued(l, now, hps);
			sb_queued(l, hps);
		}
		l->busy_until = start + xps;
		l->tail = ci;
		l->sb_tail = 0;
		if (buffered) {
			/* rule 8: the CPU goes on; the store lands with the line, after the earlier ones */
			lands = l->busy_until > c->sb_last ? l->busy_until : c->sb_last;
			sb_push(c, lands);
			eng.st.sb_buffered++;
			l->busy_until = lands;
			l->sb_tail = 1;
			c->clock = now + local;
			now = lands;
		} else {
			c->own_line = l;
			c->own_next_hold = UINT64_MAX;
			line_wait(t, l->busy_until);
			now = c->clock;
			c->own_line = NULL;
			/*
			 * A request already queued behind this one: its snoop is on its
			 * way, and this CPU keeps the line for that request's window
			 * (rule 4: the pair that takes the line, not the one that brought it).
			 */
			if (l->busy_until > now)
				l->snoop_at = now + (c->own_next_hold != UINT64_MAX ? c->own_next_hold : hps);
			/* rule 8: a store that waited for its line still lands after the earlier ones */
			lands = store ? sb_local(c, l, ci, now, l->busy_until > now) : now;
		}
	}
	own_take(l, ci, now, lands, store);
	return xfer;
}

/*
 * The common access, made without the general path: a load of a line this
 * CPU holds, or a store or RMW of a line it owns that no request reaches
 * first (@pending: one is reserved for another CPU) and that is not a read
 * for ownership (rule 7's case, mem_own). 0: not this case, nothing done.
 */
static inline int mem_local(struct task *t, struct line *l, int ci, uint64_t now, enum sim_op op, int rfo,
			    int pending)
{
	struct cpu *c = &eng.cpus[ci];
	uint64_t local;

	if (op == SIM_LOAD) {
		if (l->owner != ci && !sharer(l, ci))
			return 0;
		c->clock = now + eng.dir.load_ps;
		watch_note(t, l);
		return 1;
	}
	local = op == SIM_RMW ? eng.dir.rmw_ps : eng.dir.load_ps;
	if (rfo || l->owner != ci || (pending && now + local > l->snoop_at))
		return 0;
	t->simpure = 1;
	c->clock = now + local;
	/* own_take() without its no-ops: no sharers while it has an owner (mem_load), the grant stands */
	if (op == SIM_STORE)
		own_lands(l, ci, sb_local(c, l, ci, c->clock, pending), 1);
	else
		own_lands(l, ci, c->clock, 0);
	return 1;
}

/*
 * The line of @addr, from the task's own cache of its recent lines when it
 * is there (its keys sit beside the pointers: no line read to check), else
 * from the directory's table. Lines live as long as the boot, so a cached
 * pointer never goes stale.
 */
static inline struct line *task_line(struct task *t, const volatile void *addr, int ci)
{
	uintptr_t key = (uintptr_t)addr >> LINE_SHIFT;
	unsigned i = (unsigned)key & (TASK_LINES - 1);

	if (t->lc[i].key == key + 1)
		return t->lc[i].line;
	t->lc[i].key = key + 1;
	return t->lc[i].line = line_get(addr, ci);
}

void sim_mem(const volatile void *addr, enum sim_op op)
{
	struct task *t = eng.running;
	struct line *l;
	struct cpu *c;
	uint64_t now;
	int ci, rfo, xfer, pending;

	eng.st.mem++;
	sync_point(t);
	ci = t->cpu;
	now = eng.cpus[ci].clock;
	if (op == SIM_STORE && eng.m.sb_entries)
		now = sb_room(t, now);	/* rule 8 */
	else if (op >= SIM_RMW)
		now = sb_drain(t, now);
	if (op == SIM_FENCE) {
		eng.cpus[ci].clock += eng.dir.rmw_ps;
		return;
	}
	l = task_line(t, addr, ci);
	/*
	 * Rule 7: a store or RMW that is this task's next access after its load
	 * took the line from its owner (no modelled time between them: the same
	 * instruction window), with no store landed since and before the snoop
	 * of the request queued behind that read reaches this CPU: the read was
	 * a request for ownership.
	 */
	c = &eng.cpus[ci];
	rfo = op != SIM_LOAD && c->rd_line == l && c->rd_task == t && c->rd_at == now &&
	      c->rd_ver == l->version &&
	      now + (op == SIM_RMW ? eng.dir.rmw_ps : eng.dir.load_ps) <= c->rd_snoop;
	c->rd_line = NULL;
	/* a transfer to another CPU is reserved and has not arrived */
	pending = l->busy_until > now && l->tail != ci;
	if (mem_local(t, l, ci, now, op, rfo, pending))
		xfer = 0;
	else if (op == SIM_LOAD)
		xfer = mem_load(t, l, ci, now, pending);
	else
		xfer = mem_own(t, l, ci, now, pending, op, rfo);
	if (__builtin_expect(eng.prof != NULL, 0))
		prof_mem(l->key, __builtin_return_address(0), op != SIM_LOAD, xfer,
			 eng.cpus[t->cpu].clock - now);
}
