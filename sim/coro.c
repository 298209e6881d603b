/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/coro.c - coroutines and tasks.
 *
 * A task is a coroutine on the host thread (Boost.Context fcontext; 8.7 ns a
 * switch, tests/sim/switch_bench.c): run_task() resumes one from the run
 * loop, switch_to() hands over straight from one task to the next,
 * to_scheduler() returns to the loop. Tasks are spawned (sim_spawn, with
 * the creator's pin, as clone() inherits affinity), joined, and end through
 * task_exit(); a detached task's slot is freed when it ends. Stacks are
 * MAP_NORESERVE mappings of their own, coloured by address (stack_colour).
 * ThreadSanitizer builds tell it about every switch (its fiber API).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine.h"

extern fcontext_t make_fcontext(void *sp, size_t size, void (*fn)(transfer_t));

static void task_exit(struct task *t);

/*
 * The one engine frame beneath every task's function: its size sets where
 * the simulated program's stack objects lie (rwsem waiters, wake_q nodes),
 * and the directory keys lines by address, so a change that alters this
 * frame changes results as a change of the model would (found when
 * splitting the engine into files: one register fewer saved here moved
 * stack waiters 16 bytes and changed generic-8 locktest rwsem at 4 threads).
 */
static void task_entry(transfer_t tr)
{
	struct task *t = eng.running;

	resumed(tr);
	t->ret = t->fn(t->arg);
	task_exit(t);
}

void run_task(struct task *t)
{
	transfer_t r;

	eng.running = t;
	sim_cur_id = t->id;
	eng.st.switches++;
	TSAN_SWITCH(t->fiber);
	r = SIM_JUMP(t->ctx, NULL);
	t = r.data;		/* the task that came back: maybe not the one resumed */
	t->ctx = r.fctx;
	eng.running = NULL;
	if (t->state == T_DONE && t->stack) {
#if SIM_TSAN
		__tsan_destroy_fiber(t->fiber);
		t->fiber = NULL;
#endif
		munmap(t->stack, t->stack_size);
		t->stack = NULL;
		if (t->detached)
			t->state = T_FREE;
	}
}

/*
 * How far below the top of its mapping at @base a stack starts (under
 * 24 KiB). Every stack is its own mapping, 256 KiB apart, so at one offset
 * the frames the tasks are suspended in would all fall in the same host
 * cache sets (perf, 384 tasks: jump_fcontext, where a resumed stack is
 * first touched, fell from 21% to 14% of host time). Whole lines, so objects on
 * a simulated stack keep their line boundaries; a function of the mapping's
 * address, not the task, so that a task whose stack reuses an ended task's
 * mapping meets the lines that task left in the directory at the same
 * offsets as it would without the colour.
 */
static size_t stack_colour(const void *base)
{
	return (size_t)(((uintptr_t)base >> 18) % 128) * 192;
}

int task_alloc(void *(*fn)(void *), void *arg, size_t stack)
{
	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		struct task *t = &eng.tasks[i];

		if (t->state != T_FREE)
			continue;
		memset(t, 0, sizeof(*t));
		t->id = i;
		t->fn = fn;
		t->arg = arg;
		t->pin = -1;
		t->pin_core = -1;
		t->joiner = -1;
		t->relax_since_clock = SPIN_CLOCK_MEMORY;
		t->budget = 0;
		t->stack_size = stack;
		t->stack = mmap(NULL, stack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0);
		if (t->stack == MAP_FAILED)
			return -1;
		t->ctx = make_fcontext((char *)t->stack + stack - stack_colour(t->stack),
				       stack - stack_colour(t->stack), task_entry);
#if SIM_TSAN
		t->fiber = __tsan_create_fiber(0);
#endif
		eng.live_tasks++;
		return i;
	}
	return -1;
}

int sim_spawn_detached(void *(*fn)(void *), void *arg)
{
	eng.detach_next = 1;
	return sim_spawn(fn, arg);
}

int sim_spawn(void *(*fn)(void *), void *arg)
{
	struct task *p = eng.running;
	int id, detached = eng.detach_next;

	/* Charged first: the charge may yield, and another spawner must not take the same free slot. */
	eng.detach_next = 0;
	sim_prof_tag("cost.syscall_ns");
	sim_cost_ns(eng.m.syscall_ns);
	id = task_alloc(fn, arg, STACK_SIZE);
	if (id < 0)
		return -1;
	eng.tasks[id].detached = detached;
	eng.tasks[id].cpu = p->cpu;
	/* clone() inherits the CPU affinity; detached tasks are the engine's helpers (RCU callbacks). */
	eng.tasks[id].pin = eng.tasks[id].detached ? -1 : p->pin;
	eng.tasks[id].pin_core = eng.tasks[id].detached ? -1 : p->pin_core;
	eng.tasks[id].vruntime = eng.cpus[p->cpu].min_vruntime;
	eng.tasks[id].vlag = 0;
	eng.tasks[id].fresh = 1;
	eng.tasks[id].state = T_SLEEP;
	wake_task(&eng.tasks[id], eng.cpus[p->cpu].clock);
	return id;
}

void *sim_join(int id)
{
	struct task *t = &eng.tasks[id], *me = eng.running;
	void *r;

	while (t->state != T_DONE) {
		t->joiner = me->id;
		me->tgen++;
		eng.nvcsw++;
		me->nvcsw++;
		switch_out(me, T_SLEEP);
		sched_next(NULL);
	}
	r = t->ret;
	t->state = T_FREE;
	return r;
}

void sim_set_exit_hook(void (*fn)(int id))
{
	eng.exit_hook = fn;
}

static void task_exit(struct task *t)
{
	struct cpu *c = &eng.cpus[t->cpu];

	if (eng.exit_hook)
		eng.exit_hook(t->id);
	/* do_exit() takes locks and wakes the joiner (futex): the last stores land first */
	switch_sb_drain(c);
	rcu_note_switch(c, t);
	cpu_account(c, t);
	set_oncpu(t, 0, t->cpu);
	t->state = T_DONE;
	eng.live_tasks--;
	c->curr = NULL;
	cpu_pick_next(c);
	if (t->joiner >= 0 && eng.tasks[t->joiner].state == T_SLEEP)
		wake_task(&eng.tasks[t->joiner], c->clock);
	to_scheduler();
	abort();	/* never resumed */
}
