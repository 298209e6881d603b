/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/boot.c - boot, the run loop and shutdown; the engine's memory region.
 *
 * sim_boot() zeroes struct engine (engine.h) and builds a machine's CPUs,
 * directory masks and per-CPU queues in a fresh region; sim_run() runs the
 * program as task 0 and takes the events in virtual-time order until it
 * ends; sim_shutdown() unmaps the task stacks and the region. Also the
 * boot's identity (machine, seed, boot count) and its random stream.
 *
 * Invariant that makes it a discrete-event simulation: a task acts (touches
 * a line, wakes a task, reads a clock) only while its CPU's clock is not
 * later than any pending event, so actions happen in virtual-time order.
 * Every CPU with a task to run has exactly one event queued (its place in
 * the CPU event heap, events.c); timers are per-task events (task->tgen).
 * Ties are broken by a per-event random key from the seed, so one seed is
 * one schedule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "engine.h"

int sim_active;
int sim_cur_id;

/* The one piece of engine state that outlives a boot (sim.h: per-boot state resets). */
static uint64_t boot_count;

/* Everything else: zeroed by sim_boot(), engine.h. */
struct engine eng;

uint64_t sim_random(void)
{
	return splitmix(&eng.rng);
}

/*
 * Everything the engine allocates while it runs (event heap, directory,
 * run queues) comes from one region reserved at boot, never from malloc.
 * The directory keys lines by address, so which simulated objects share a
 * line, and bravo's hash of a lock's address, follow where the allocator
 * places the simulated program's objects; with the engine's allocations
 * interleaved with the program's, that placement followed the engine's
 * internals (base sim-3 with only the event heap's initial capacity changed
 * from 1024 to 131072 entries: a different generic-64 locktest sweep).
 * Pages are committed as the region fills; nothing is freed until shutdown.
 * eng_alloc(): @n zeroed bytes, 64-byte aligned (aborts when the region is full).
 */
void *eng_alloc(size_t n)
{
	void *p;

	n = (n + 63) & ~(size_t)63;
	if (eng.arena.used + n > eng.arena.mapped) {
		size_t want = (eng.arena.used + n + ARENA_STEP - 1) & ~(ARENA_STEP - 1);

		if (want > ARENA_RESERVE ||
		    mprotect(eng.arena.base + eng.arena.mapped, want - eng.arena.mapped, PROT_READ | PROT_WRITE))
			abort();
		eng.arena.mapped = want;
	}
	p = eng.arena.base + eng.arena.used;
	eng.arena.used += n;
	return p;
}

uint64_t sim_boot_count(void)
{
	return boot_count;
}

const struct sim_machine *sim_machine(void)
{
	return &eng.m;
}

uint64_t sim_seed(void)
{
	return eng.seed;
}

double sim_host_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - eng.host_t0.tv_sec) + (double)(ts.tv_nsec - eng.host_t0.tv_nsec) / 1e9;
}

int sim_boot(const struct sim_machine *m, uint64_t seed)
{
	/* the machine file's range, for callers that fill the struct: outside it rule 8's ring breaks */
	if (m->sb_entries < 0 || m->sb_entries > SIM_SB_MAX)
		return -1;
	boot_count++;
	memset(&eng, 0, sizeof(eng));
	eng.arena.base = mmap(NULL, ARENA_RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (eng.arena.base == MAP_FAILED)
		return -1;
	eng.m = *m;
	eng.ncpu = m->ncpus;
	eng.nwords = (eng.ncpu + 63) / 64;
	eng.sched_factor = sim_machine_sched_factor(m);
	eng.seed = seed;
	eng.rng = seed * 0x2545f4914f6cdd1dull + 0x632be59bd9b4e019ull;
	eng.cpus = eng_alloc((size_t)eng.ncpu * sizeof(*eng.cpus));
	for (int i = 0; i < eng.ncpu; i++) {
		struct sim_cpu_place p;

		sim_machine_place(m, i, &p);
		eng.cpus[i].socket = p.socket;
		eng.cpus[i].l3 = p.l3;
		eng.cpus[i].core = p.core;
		eng.place[i] = (struct place){ p.core, p.l3, p.socket };
		eng.cpus[i].resched_at = INF;
		eng.cpus[i].clock = 1000000000ull * PS_PER_NS;	/* CLOCK_MONOTONIC starts at 1 s */
		eng.cpus[i].rq = eng_alloc(SIM_MAX_TASKS * sizeof(*eng.cpus[i].rq));
		eng.cpus[i].rcu_cb_head = -1;
	}
	for (int i = 0; i < eng.ncpu; i++) {
		eng.cpus[i].sibling = -1;
		for (int j = 0; j < eng.ncpu; j++)
			if (j != i && eng.place[j].core == eng.place[i].core)
				eng.cpus[i].sibling = j;
	}
	eng.ev.tmin = INF;	/* the timer heap is empty */
	cpu_events_boot();
	dir_boot();
	if (idle_boot())
		return -1;
	eng.irq.csq = eng_alloc((size_t)eng.ncpu * sizeof(*eng.irq.csq));
	eng.copiers = eng_alloc((size_t)m->sockets * sizeof(*eng.copiers));
	eng.rcu.gen = 1;
	eng.rcu.kthread = -1;
	clock_gettime(CLOCK_MONOTONIC, &eng.host_t0);
	prof_boot();
	return 0;
}

struct main_arg {
	int (*fn)(int, char **);
	int argc;
	char **argv;
	int ret;
};

static void *main_task(void *p)
{
	struct main_arg *a = p;

	a->ret = a->fn(a->argc, a->argv);
	return NULL;
}

static void print_deadlock(void)
{
	int n = 0;

	fprintf(stderr, "rwlab-sim: simulated deadlock at t=%.6f s (seed %llu): every task blocked, no event pending;",
		(double)eng.cpus[0].clock / 1e12, (unsigned long long)eng.seed);
	for (int i = 0; i < SIM_MAX_TASKS && n < 8; i++)
		if (eng.tasks[i].state == T_BLOCK || eng.tasks[i].state == T_SLEEP || eng.tasks[i].state == T_PARK) {
			fprintf(stderr, " task %d %s", i, eng.tasks[i].state == T_BLOCK ? "futex" :
				eng.tasks[i].state == T_PARK ? "spinning" : "join");
			n++;
		}
	fprintf(stderr, "\n");
	if (getenv("RWLAB_SIM_DEBUG"))
		for (int i = 0; i < SIM_MAX_TASKS; i++)
			if (eng.tasks[i].state != T_FREE && eng.tasks[i].state != T_DONE)
			{
				fprintf(stderr, "rwlab-sim: task %d state %d cpu %d futex %p oncpu %p watches", i,
					(int)eng.tasks[i].state, eng.tasks[i].cpu, (void *)eng.tasks[i].faddr,
					(void *)eng.tasks[i].oncpu_word);
				for (int k = 0; k < eng.tasks[i].nwatch; k++)
					fprintf(stderr, " %#lx", (unsigned long)(eng.tasks[i].w[k].l->key << LINE_SHIFT));
				fprintf(stderr, "\n");
			}
}

int sim_run(int (*fn)(int, char **), int argc, char **argv)
{
	struct main_arg a = { fn, argc, argv, 0 };
	int id = task_alloc(main_task, &a, MAIN_STACK_SIZE);

	if (id < 0)
		return 1;
	eng.tasks[id].detached = 1;
#if SIM_TSAN
	eng.sched_fiber = __tsan_get_current_fiber();
#endif
	sim_active = 1;
	cpu_set_curr(&eng.cpus[0], &eng.tasks[id]);
	cpu_push(&eng.cpus[0], eng.cpus[0].clock);
	while (eng.tasks[id].state != T_FREE) {
		struct event e;
		int ci;

		if (heap_min() == INF) {
			print_deadlock();
			a.ret = 99;
			break;
		}
		ci = cpu_pop_next();
		if (ci >= 0) {
			struct task *t = cpu_event(ci);

			if (t)
				run_task(t);
			continue;
		}
		heap_clean();
		e = heap_pop();
		if (e.kind == EV_TIMER) {
			timer_fire(&eng.tasks[e.idx], e.time);
			continue;
		}
		if (e.kind == EV_IPI) {
			ipi_arrive(&eng.cpus[e.idx], e.time);
			continue;
		}
		if (e.kind == EV_LB) {
			lb_tick(e.time);
			continue;
		}
		if (e.kind == EV_RCU_TICK) {
			rcu_tick(e.time);
			continue;
		}
	}
	sim_active = 0;
	return a.ret;
}

void sim_shutdown(void)
{
	stats_print();
	for (int i = 0; i < SIM_MAX_TASKS; i++)
		if (eng.tasks[i].stack) {
#if SIM_TSAN
			__tsan_destroy_fiber(eng.tasks[i].fiber);
#endif
			munmap(eng.tasks[i].stack, eng.tasks[i].stack_size);
		}
	munmap(eng.arena.base, ARENA_RESERVE);
}
