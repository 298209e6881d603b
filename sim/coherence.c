/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/coherence.c - the coherence directory and sim_mem(), the memory seam.
 *
 * One entry per 64-byte line touched: its owner (M/E), its sharers (S, a
 * CPU bitmap), its home socket (first touch), the end of the ownership
 * transfer in flight and a version bumped by every store. A load hits if
 * this CPU holds the line, else waits for a transfer in flight and costs the
 * distance to the owner, the nearest sharer or memory; a store or RMW by the
 * sole holder costs the local figure, else waits for the line, takes the
 * distance to the farthest holder, and holds the line busy that long (one
 * ownership transfer at a time). The distance figure is a CAS ping-pong's
 * round trip / 2 [c2c], which already holds the RMW: no local cost is
 * added to a transfer (counted once). Distances come from
 * the machine file by topology: SMT sibling, same L3, same socket (near or
 * far home), other socket. sim/README.md gives the model and its sources.
 * A store wakes the spinners watching the line (spin.c).
 */
#include <string.h>

#include "engine.h"

static double xfer_ns(int a, int b, int home)
{
	const struct place *x = &eng.place[a], *y = &eng.place[b];

	if (a == b)
		return 0;
	if (x->core == y->core)
		return eng.m.c2c_smt_ns;
	if (x->l3 == y->l3)
		return eng.m.c2c_l3_ns;
	if (x->socket == y->socket)
		return home == x->socket ? eng.m.c2c_socket_ns : eng.m.c2c_socket_far_home_ns;
	return eng.m.c2c_remote_ns;
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

static double mem_ns(const struct line *l, int c)
{
	return l->home == eng.cpus[c].socket ? eng.m.mem_local_ns : eng.m.mem_remote_ns;
}

static double socket_ns(const struct line *l, int c)
{
	return l->home == eng.cpus[c].socket ? eng.m.c2c_socket_ns : eng.m.c2c_socket_far_home_ns;
}

/* Cost of bringing the line to @c for reading: the nearest holder, else memory. */
static double read_source_ns(struct line *l, int c)
{
	if (l->owner >= 0)
		return xfer_ns(c, l->owner, l->home);
	if (no_sharers(l, c))
		return mem_ns(l, c);
	if (any_inside(l, eng.dir.mask_core, c))
		return eng.m.c2c_smt_ns;
	if (any_inside(l, eng.dir.mask_l3, c))
		return eng.m.c2c_l3_ns;
	if (any_inside(l, eng.dir.mask_socket, c))
		return socket_ns(l, c);
	return eng.m.c2c_remote_ns;
}

/* Cost of taking the line exclusive at @c: invalidate the farthest holder. */
static double own_source_ns(struct line *l, int c)
{
	if (l->owner >= 0)
		return xfer_ns(c, l->owner, l->home);
	if (no_sharers(l, -1))
		return mem_ns(l, c);
	if (any_outside(l, eng.dir.mask_socket, c))
		return eng.m.c2c_remote_ns;
	if (any_outside(l, eng.dir.mask_l3, c))
		return socket_ns(l, c);
	if (any_outside(l, eng.dir.mask_core, c))
		return eng.m.c2c_l3_ns;
	return no_sharers(l, c) ? 0 : eng.m.c2c_smt_ns;
}

/* The engine's own store (on_cpu words): no charge, but watchers see it. */
void line_touch_store(void *addr, int c)
{
	struct line *l = line_get(addr, c);

	memset(l->sharers, 0, (size_t)eng.nwords * 8);
	l->owner = c;
	l->version++;
	if (l->watchers)
		wake_watchers(l, eng.cpus[c].clock);
}

/* Build the per-CPU masks of the CPUs sharing each CPU's core, L3 domain and socket. */
void dir_boot(void)
{
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

void sim_mem(const volatile void *addr, enum sim_op op)
{
	struct task *t = eng.running;
	struct cpu *c;
	struct line *l;
	int ci;
	uint64_t now, start;
	double x;

	eng.st.mem++;
	sync_point(t);
	ci = t->cpu;
	c = &eng.cpus[ci];
	now = c->clock;
	if (op == SIM_FENCE) {
		c->clock += ns_round(eng.m.rmw_local_ns);
		return;
	}
	l = line_get(addr, ci);
	if (op == SIM_LOAD) {
		if (l->owner == ci || sharer(l, ci)) {
			c->clock = now + ns_round(eng.m.load_local_ns);
		} else {
			start = now > l->busy_until ? now : l->busy_until;
			x = read_source_ns(l, ci);
			if (l->owner >= 0) {
				sharer_set(l, l->owner);
				l->owner = -1;
			}
			sharer_set(l, ci);
			c->clock = start + ns_round(x);
		}
		if (t->sn < SPIN_WATCH) {
			if (!t->sn || t->w[t->sn - 1].l != l) {
				int dup = 0;

				for (int i = 0; i < t->sn; i++)
					dup |= t->w[i].l == l;
				if (!dup) {
					t->w[t->sn].l = l;
					t->w[t->sn].ver = l->version;
					t->sn++;
				}
			}
		} else {
			t->sov = 1;
		}
		return;
	}
	/* SIM_STORE, SIM_RMW */
	t->simpure = 1;
	{
		double local = op == SIM_RMW ? eng.m.rmw_local_ns : eng.m.load_local_ns;
		int alone = l->owner == ci;

		if (!alone && l->owner < 0 && sharer(l, ci))
			alone = no_sharers(l, ci);	/* S -> M with no other copy: no transfer */
		if (alone) {
			c->clock = now + ns_round(local);
		} else {
			/* the transfer's figure holds the RMW it was for: counted once */
			start = now > l->busy_until ? now : l->busy_until;
			x = own_source_ns(l, ci);
			l->busy_until = start + ns_round(x);
			c->clock = l->busy_until;
		}
		memset(l->sharers, 0, (size_t)eng.nwords * 8);
		l->owner = ci;
		l->version++;
		if (l->watchers)
			wake_watchers(l, c->clock);
	}
}
