/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulated build's side of locks/wait.h (compiled empty natively):
 * struct lab_task per engine task id (dense ids, as natively), futexes,
 * sleeps and sched_yield through the engine (sim/sim.h), and per-task
 * storage for what is __thread natively. lab_task.on_cpu is kept exact by
 * the engine (sim_set_oncpu_word): 1 exactly while the task runs on a
 * simulated CPU, so owner_on_cpu() spinning decides as the kernel does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wait.h"

#if LAB_SIM
struct lab_task *lab_sim_current[LAB_MAX_TASKS];
static struct lab_task lab_tasks[LAB_MAX_TASKS];
static unsigned char lab_task_used[LAB_MAX_TASKS];

struct tls_area {
	char *base;
	size_t size;
};
static struct tls_area tls_areas[16];
static int ntls;

void lab_sim_tls_register(void *base, size_t size)
{
	if (ntls == (int)(sizeof(tls_areas) / sizeof(tls_areas[0])))
		abort();
	tls_areas[ntls].base = base;
	tls_areas[ntls++].size = size;
}

static void lab_task_sim_exit(int id)
{
	if (lab_sim_current[id]) {
		lab_task_used[id] = 0;
		lab_sim_current[id] = NULL;
	}
}

struct lab_task *lab_task_attach(void)
{
	int id = sim_cur_id;
	struct lab_task *t = &lab_tasks[id];

	sim_set_exit_hook(lab_task_sim_exit);
	for (int i = 0; i < ntls; i++)
		memset(tls_areas[i].base + (size_t)id * tls_areas[i].size, 0, tls_areas[i].size);
	t->id = id;
	t->seq++;
	t->state = TASK_RUNNING;
	t->wake_q_next = NULL;
	t->fatal_signal = 0;	/* a reused id starts without the last task's signal or deadline */
	t->wait_deadline = 0;
	sim_set_oncpu_word(&t->on_cpu);
	lab_task_used[id] = 1;
	lab_sim_current[id] = t;
	return t;
}

struct lab_task *lab_task_by_id(int id)
{
	if (id < 0 || id >= LAB_MAX_TASKS || !lab_task_used[id])
		return NULL;
	return &lab_tasks[id];
}

int lab_futex_wait(uint32_t *uaddr, uint32_t val, int64_t timeout_ns)
{
	lab_current();
	return sim_futex_wait(uaddr, val, timeout_ns);
}

int lab_futex_wake(uint32_t *uaddr, int n)
{
	return sim_futex_wake(uaddr, n);
}

void lab_sleep_ns(uint64_t ns)
{
	sim_sleep_ns(ns);
}

void lab_kernel_work(enum lab_kwork w)
{
	const struct sim_machine *m = sim_machine();

	switch (w) {
	case LAB_KWORK_FAULT:
		sim_prof_tag("cost.fault_ns");
		sim_cost_ns(m->fault_ns);
		break;
	case LAB_KWORK_PAGE_ALLOC:
		sim_prof_tag("cost.page_alloc_ns");
		sim_cost_ns(m->page_alloc_ns);
		break;
	case LAB_KWORK_SYSCALL:
		sim_prof_tag("cost.syscall_ns");
		sim_cost_ns(m->syscall_ns);
		break;
	case LAB_KWORK_CLEAR_PAGE:
		sim_prof_tag("clear_page (bw.core_gbs)");
		sim_copy_bytes(4096);
		break;
	case LAB_KWORK_HPAGE_ALLOC:
		sim_prof_tag("cost.hpage_alloc_ns");
		sim_cost_ns(m->hpage_alloc_ns);
		break;
	case LAB_KWORK_HPAGE_COPY:
		sim_prof_tag("huge page copy (bw.core_gbs)");
		sim_copy_bytes(2u << 20);
		break;
	}
}

void lab_random_stores(uint64_t n)
{
	sim_prof_tag("random stores (rand_store_ns, bw.socket_gbs)");
	sim_mem_traffic(n * 128, (double)n * sim_machine()->rand_store_ns);
}

/* The machine's cost.work.* figures, looked up once per name. */
static struct {
	char name[64];
	double ns;
} work_keys[96];
static int nwork_keys;

int lab_cost_key(const char *key)
{
	static uint64_t boot;
	double ns;

	if (boot != sim_boot_count()) {	/* another machine (tests boot several): look again */
		boot = sim_boot_count();
		nwork_keys = 0;
	}
	for (int i = 0; i < nwork_keys; i++)
		if (!strcmp(work_keys[i].name, key))
			return i;
	if (nwork_keys == (int)(sizeof(work_keys) / sizeof(work_keys[0])) ||
	    sim_machine_number(sim_machine(), key, &ns))
		return -1;
	snprintf(work_keys[nwork_keys].name, sizeof(work_keys[0].name), "%s", key);
	work_keys[nwork_keys].ns = ns;
	return nwork_keys++;
}

int lab_work_key(const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "cost.work.%s_ns", name);
	return lab_cost_key(key);
}

int lab_this_cpu(void)
{
	return sim_current_cpu();
}

int lab_nr_cpus(void)
{
	return sim_machine()->ncpus;
}

int lab_cpu_node(int cpu)
{
	struct sim_cpu_place p;

	sim_machine_place(sim_machine(), cpu, &p);
	return p.socket;
}

int lab_nr_nodes(void)
{
	return sim_machine()->sockets;
}

void lab_user_work(int key, double units)
{
	if (key >= 0 && key < nwork_keys) {
		sim_prof_tag(work_keys[key].name);
		sim_work_ns(work_keys[key].ns * units);
	}
}

void lab_copy_work(size_t bytes)
{
	sim_prof_tag("copies (bw.core_gbs)");
	sim_copy_bytes(bytes);
}

const char *lab_sim_progress(void)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), " (simulated %.3f s, host %.2f s)", (double)sim_elapsed_ns() / 1e9,
		 sim_host_seconds());
	return buf;
}

const char *lab_sim_machine_name(void)
{
	return sim_machine()->name;
}

/* RUSAGE_THREAD: the calling task's own figures; anything else: every task's. */
int lab_sim_getrusage(int who, struct rusage *ru)
{
	bool self = who == RUSAGE_THREAD;
	uint64_t ns = self ? sim_task_cpu_ns() : sim_total_cpu_ns();

	memset(ru, 0, sizeof(*ru));
	ru->ru_utime.tv_sec = (time_t)(ns / 1000000000ull);
	ru->ru_utime.tv_usec = (suseconds_t)(ns % 1000000000ull / 1000);
	ru->ru_nvcsw = (long)(self ? sim_task_ctxsw_count(1) : sim_ctxsw_count(1));
	ru->ru_nivcsw = (long)(self ? sim_task_ctxsw_count(0) : sim_ctxsw_count(0));
	return 0;
}
#endif
