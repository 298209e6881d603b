/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/stats.c - the engine's counters.
 *
 * The public ones (sim.h): context switches, IPIs, the causality check;
 * and, with RWLAB_SIM_STATS=1, the host-side ones printed at shutdown
 * (accesses, task switches, parks, line-change wakes, lines, IPIs, idle
 * periods by state and how idle CPUs were woken); RWLAB_SIM_STATS=2 adds
 * the profile below (CPU time by code address and work tag, the hottest
 * lines and who moves them).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

uint64_t sim_wake_early_count(void)
{
	return eng.st.wake_early;
}

uint64_t sim_ctxsw_count(int voluntary)
{
	return voluntary ? eng.nvcsw : eng.nivcsw;
}

uint64_t sim_task_ctxsw_count(int voluntary)
{
	return voluntary ? eng.running->nvcsw : eng.running->nivcsw;
}

void sim_ipi_stats(uint64_t *sent, uint64_t *handled, uint64_t *interrupted, uint64_t *deferred)
{
	*sent = eng.st.ipi_sent;
	*handled = eng.st.ipi_handled;
	*interrupted = eng.st.ipi_busy;
	*deferred = eng.st.ipi_deferred;
}

static void prof_print(void);

void stats_print(void)
{
	const char *s = getenv("RWLAB_SIM_STATS");

	if (s && (*s == '1' || *s == '2'))
		fprintf(stderr, "rwlab-sim stats: %.3f s virtual (cpu 0), %.3f s host; %llu accesses, %llu task switches, "
			"%llu parks, %llu line-change wakes; %llu lines\n", (double)(eng.cpus[0].clock - 1000000000ull * PS_PER_NS) / 1e12,
			sim_host_seconds(), (unsigned long long)eng.st.mem, (unsigned long long)eng.st.switches,
			(unsigned long long)eng.st.park, (unsigned long long)eng.st.unpark, (unsigned long long)eng.dir.count);
	if (s && (*s == '1' || *s == '2') && eng.st.ipi_sent + eng.st.ipi_local)
		fprintf(stderr, "rwlab-sim stats: %llu IPIs sent, %llu handled, %llu on a busy CPU, %llu deferred, "
			"%llu run by the sender (same CPU)\n", (unsigned long long)eng.st.ipi_sent,
			(unsigned long long)eng.st.ipi_handled, (unsigned long long)eng.st.ipi_busy,
			(unsigned long long)eng.st.ipi_deferred, (unsigned long long)eng.st.ipi_local);
	if (s && (*s == '1' || *s == '2') && eng.st.sb_buffered)
		fprintf(stderr, "rwlab-sim stats: store buffer: %llu stores went on before their line arrived; "
			"%llu waits for a full buffer, %llu drains that waited (RMW, fence, futex, interrupt return, switch, exit)\n",
			(unsigned long long)eng.st.sb_buffered, (unsigned long long)eng.st.sb_full,
			(unsigned long long)eng.st.sb_drain_wait);
	if (s && (*s == '1' || *s == '2') && eng.st.smt_served)
		fprintf(stderr, "rwlab-sim stats: %llu loads, RMWs or waiting stores served from their core (rule 10: the sibling "
			"held the line or its fill was in flight) instead of behind other cores' requests\n",
			(unsigned long long)eng.st.smt_served);
	if (s && (*s == '1' || *s == '2') && eng.idle.n) {
		fprintf(stderr, "rwlab-sim stats: idle periods by state");
		for (int i = 0; i < eng.idle.n; i++)
			fprintf(stderr, " %d:%llu", i, (unsigned long long)eng.st.idle_enter[i]);
		fprintf(stderr, "; idle CPUs woken by IPI %llu, by their polled flag %llu\n",
			(unsigned long long)eng.st.idle_wake_ipi, (unsigned long long)eng.st.idle_wake_poll);
	}
	if (s && (*s == '1' || *s == '2') && eng.rcu.gps)
		fprintf(stderr, "rwlab-sim stats: RCU: %llu grace periods (mean %.3f ms, start to end), %llu FQS scans; "
			"%llu synchronize_rcu() sleeps (mean %.3f ms to the wake-up)\n", (unsigned long long)eng.rcu.gps,
			eng.rcu.completed ? (double)eng.st.rcu_gp_ps / 1e9 / (double)eng.rcu.completed : 0,
			(unsigned long long)eng.rcu.fqs_scans, (unsigned long long)eng.st.rcu_waits,
			eng.st.rcu_waits ? (double)eng.st.rcu_wait_ps / 1e9 / (double)eng.st.rcu_waits : 0);
	if (eng.prof)
		prof_print();
}

/*
 * The profile (RWLAB_SIM_STATS=2): where the simulated CPUs' time went and
 * which lines moved. Host-side only: each hook reads a clock the access or
 * spin has already set and counts it here; nothing in the simulation reads
 * these tables, so a run's simulated figures are the same with it on or off
 * (tests/sim/sim_cli.sh compares the two CSVs).
 *
 * Per code address (the caller of sim_mem() or sim_relax(): the inlined
 * atomic.h seam's function, e.g. a lock's trylock or kmm's queued spinlock)
 * and per work tag (sim_prof_tag(): a machine file's cost key): calls,
 * transfers, picoseconds of CPU time. Per line: accesses, transfers (and
 * those at the remote c2c figure or more), the time its accesses took, and
 * the four code addresses that moved it most (a space-saving count: a new
 * address takes the least-counted slot). Addresses are printed as offsets
 * in the executable (dladdr's base; rwlab-sim runs without address-space
 * randomisation): tools/sim-prof names each with its function.
 */
#define PROF_PCS (1u << 14)
#define PROF_TOP 8

struct prof_pc {
	const void *pc;		/* code address, or a work tag (const char *) */
	int kind;
	uint64_t n, xfer, ps;
};

struct prof_line {
	uintptr_t key;		/* line address >> LINE_SHIFT; 0: empty */
	uint64_t n, xfer, remote, ps;
	const void *pc[PROF_TOP];
	uint64_t pcx[PROF_TOP];
};

struct prof {
	const char *tag;	/* sim_prof_tag(): the next work charge's */
	struct prof_pc pcs[PROF_PCS];
	int npcs, full;
	struct prof_line *lines;
	size_t cap, count;
};

static size_t prof_hash(uintptr_t k)
{
	k *= 0x9e3779b97f4a7c15ull;
	return (size_t)(k >> 24);
}

void prof_boot(void)
{
	const char *s = getenv("RWLAB_SIM_STATS");

	if (!s || strcmp(s, "2"))
		return;
	eng.prof = eng_alloc(sizeof(*eng.prof));
	eng.prof->cap = 1 << 16;
	eng.prof->lines = eng_alloc(eng.prof->cap * sizeof(struct prof_line));
}

static struct prof_pc *prof_pc_get(const void *pc, int kind)
{
	struct prof *p = eng.prof;
	size_t j = prof_hash((uintptr_t)pc ^ (uintptr_t)kind) & (PROF_PCS - 1);

	for (unsigned probe = 0; probe < PROF_PCS; probe++, j = (j + 1) & (PROF_PCS - 1)) {
		if (p->pcs[j].pc == pc && p->pcs[j].kind == kind)
			return &p->pcs[j];
		if (!p->pcs[j].pc) {
			if ((unsigned)p->npcs * 2 >= PROF_PCS)
				break;
			p->npcs++;
			p->pcs[j].pc = pc;
			p->pcs[j].kind = kind;
			return &p->pcs[j];
		}
	}
	p->full = 1;	/* said when printed */
	return NULL;
}

void prof_pc(const void *pc, int kind, uint64_t ps)
{
	struct prof_pc *e = prof_pc_get(pc, kind);

	if (e) {
		e->n++;
		e->ps += ps;
	}
}

static void prof_grow(void)
{
	struct prof *p = eng.prof;
	size_t ncap = p->cap * 2;
	struct prof_line *n = eng_alloc(ncap * sizeof(*n));

	for (size_t i = 0; i < p->cap; i++)
		if (p->lines[i].key) {
			size_t j = prof_hash(p->lines[i].key) & (ncap - 1);

			while (n[j].key)
				j = (j + 1) & (ncap - 1);
			n[j] = p->lines[i];
		}
	p->lines = n;	/* the old table stays in the region until shutdown */
	p->cap = ncap;
}

static struct prof_line *prof_line_get(uintptr_t key)
{
	struct prof *p = eng.prof;
	size_t j;

	if (p->count * 2 >= p->cap)
		prof_grow();
	j = prof_hash(key) & (p->cap - 1);
	while (p->lines[j].key && p->lines[j].key != key)
		j = (j + 1) & (p->cap - 1);
	if (!p->lines[j].key) {
		p->lines[j].key = key;
		p->count++;
	}
	return &p->lines[j];
}

/* Count a transfer of @l by @pc among its top addresses (space-saving). */
static void prof_line_pc(struct prof_line *l, const void *pc)
{
	int min = 0;

	for (int i = 0; i < PROF_TOP; i++) {
		if (l->pc[i] == pc) {
			l->pcx[i]++;
			return;
		}
		if (l->pcx[i] < l->pcx[min])
			min = i;
	}
	l->pc[min] = pc;
	l->pcx[min]++;
}

void prof_mem(uintptr_t key, const void *pc, int own, int xfer, uint64_t ps)
{
	struct prof_pc *e = prof_pc_get(pc, own ? PROF_OWN : PROF_LOAD);
	struct prof_line *l = prof_line_get(key ? key : 1);

	if (e) {
		e->n++;
		e->xfer += xfer != 0;
		e->ps += ps;
	}
	l->n++;
	l->ps += ps;
	if (xfer) {
		l->xfer++;
		l->remote += xfer == 2;
		prof_line_pc(l, pc);
	}
}

void sim_prof_tag(const char *tag)
{
	if (eng.prof)
		eng.prof->tag = tag;
}

void prof_work(double ns)
{
	prof_pc(eng.prof->tag ? eng.prof->tag : "other work", PROF_WORK, ps_of(ns));
	eng.prof->tag = NULL;
}

/* The executable's load address, so a code address prints as an offset tools/sim-prof can name. */
static uintptr_t prof_base(void)
{
	static const char anchor;
	Dl_info d;

	return dladdr(&anchor, &d) ? (uintptr_t)d.dli_fbase : 0;
}

static int pc_cmp(const void *a, const void *b)
{
	const struct prof_pc *x = *(struct prof_pc *const *)a, *y = *(struct prof_pc *const *)b;

	return x->ps < y->ps ? 1 : x->ps > y->ps ? -1 : 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct prof_line *x = *(struct prof_line *const *)a, *y = *(struct prof_line *const *)b;

	return x->xfer < y->xfer ? 1 : x->xfer > y->xfer ? -1 : 0;
}

static void prof_print_pcs(uintptr_t base)
{
	static const char *const kind[PROF_KINDS] = { "load", "store/rmw", "spin", "work" };
	struct prof *p = eng.prof;
	struct prof_pc **v = eng_alloc((size_t)p->npcs * sizeof(*v) + 1);
	int n = 0;
	double total = (double)eng.total_cpu_ps;

	for (unsigned i = 0; i < PROF_PCS; i++)
		if (p->pcs[i].pc)
			v[n++] = &p->pcs[i];
	qsort(v, (size_t)n, sizeof(*v), pc_cmp);
	fprintf(stderr, "rwlab-sim profile: CPU time by code address and work tag (%.3f s of task CPU time in all%s); "
		"kind, calls, transfers, ms, %% of CPU time, where\n", total / 1e12,
		p->full ? "; the table filled: later addresses not counted" : "");
	for (int i = 0; i < n && i < 30; i++)
		if (v[i]->kind == PROF_WORK)
			fprintf(stderr, "rwlab-sim profile: %-9s %12llu %12s %12.3f %6.2f%%  %s\n", kind[v[i]->kind],
				(unsigned long long)v[i]->n, "", (double)v[i]->ps / 1e9,
				total > 0 ? 100.0 * (double)v[i]->ps / total : 0, (const char *)v[i]->pc);
		else
			fprintf(stderr, "rwlab-sim profile: %-9s %12llu %12llu %12.3f %6.2f%%  pc +0x%lx\n", kind[v[i]->kind],
				(unsigned long long)v[i]->n, (unsigned long long)v[i]->xfer, (double)v[i]->ps / 1e9,
				total > 0 ? 100.0 * (double)v[i]->ps / total : 0,
				(unsigned long)((uintptr_t)v[i]->pc - base));
}

/* @l's top code addresses, most transfers first. */
static void prof_print_movers(struct prof_line *l, uintptr_t base)
{
	int done[PROF_TOP] = { 0 };

	for (;;) {
		int best = -1;

		for (int j = 0; j < PROF_TOP; j++)
			if (!done[j] && l->pcx[j] && (best < 0 || l->pcx[j] > l->pcx[best]))
				best = j;
		if (best < 0)
			break;
		done[best] = 1;
		fprintf(stderr, " pc +0x%lx (%llu)", (unsigned long)((uintptr_t)l->pc[best] - base),
			(unsigned long long)l->pcx[best]);
	}
	fputc('\n', stderr);
}

static void prof_print_lines(uintptr_t base)
{
	struct prof *p = eng.prof;
	struct prof_line **v = eng_alloc(p->count * sizeof(*v) + 1);
	size_t n = 0;

	for (size_t i = 0; i < p->cap; i++)
		if (p->lines[i].key)
			v[n++] = &p->lines[i];
	qsort(v, n, sizeof(*v), line_cmp);
	fprintf(stderr, "rwlab-sim profile: the hottest lines of %zu by transfers; line address, accesses, "
		"transfers (at the remote c2c figure or more), ms of CPU time its accesses took, ns per access; "
		"the code addresses that moved it most (transfers)\n", n);
	for (size_t i = 0; i < n && i < 15 && v[i]->xfer; i++) {
		fprintf(stderr, "rwlab-sim profile: line 0x%lx %12llu %12llu (%llu) %12.3f %8.1f ns; moved by",
			(unsigned long)(v[i]->key << LINE_SHIFT), (unsigned long long)v[i]->n,
			(unsigned long long)v[i]->xfer, (unsigned long long)v[i]->remote, (double)v[i]->ps / 1e9,
			(double)v[i]->ps / 1e3 / (double)v[i]->n);
		prof_print_movers(v[i], base);
	}
}

static void prof_print(void)
{
	uintptr_t base = prof_base();

	prof_print_pcs(base);
	prof_print_lines(base);
}
