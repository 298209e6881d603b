/* SPDX-License-Identifier: GPL-2.0-only */
/* One liburcu registration per thread: see rcu.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "rcu.h"

#if LAB_SIM
#include "rcu_sim.h"
#include "sim.h"
#include "wait.h"

static int rcu_nest[SIM_MAX_TASKS];
static uint64_t rcu_exits[SIM_MAX_TASKS];	/* outermost unlocks so far */
static uint32_t rcu_pending;			/* call_rcu callbacks not yet run */

void lab_sim_rcu_read_lock(void)
{
	rcu_nest[sim_cur_id]++;
}

void lab_sim_rcu_read_unlock(void)
{
	if (--rcu_nest[sim_cur_id] == 0)
		rcu_exits[sim_cur_id]++;
}

void lab_sim_synchronize_rcu(void)
{
	static uint64_t snap[SIM_MAX_TASKS];
	static unsigned char inside[SIM_MAX_TASKS];
	int hz = sim_machine()->hz;
	uint64_t fqs = (uint64_t)(1 + (hz > 250) + (hz > 500)) * (1000000000ull / (uint64_t)hz);
	int waiting;

	for (int i = 0; i < SIM_MAX_TASKS; i++) {
		inside[i] = rcu_nest[i] > 0 && i != sim_cur_id;
		snap[i] = rcu_exits[i];
	}
	do {
		lab_sleep_ns(fqs);
		waiting = 0;
		for (int i = 0; i < SIM_MAX_TASKS; i++)
			if (inside[i] && rcu_exits[i] == snap[i])
				waiting = 1;
	} while (waiting);
}

static void *rcu_cb_task(void *arg)
{
	struct rcu_head *h = arg;

	lab_sim_synchronize_rcu();
	h->func(h);
	atomic_fetch_sub(&rcu_pending, 1);
	lab_futex_wake(&rcu_pending, INT32_MAX);
	return NULL;
}

void lab_sim_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	head->func = func;
	atomic_fetch_add(&rcu_pending, 1);
	if (sim_spawn_detached(rcu_cb_task, head) < 0)
		abort();
}

void lab_sim_rcu_barrier(void)
{
	uint32_t p;

	while ((p = READ_ONCE(rcu_pending)) != 0)
		lab_futex_wait(&rcu_pending, p, -1);
}
#else
#include <urcu/urcu-memb.h>

__thread bool lab_rcu_registered;
static pthread_key_t lab_rcu_key;
static pthread_once_t lab_rcu_once = PTHREAD_ONCE_INIT;

static void lab_rcu_thread_exit(void *arg)
{
	(void)arg;
	if (lab_rcu_registered) {
		urcu_memb_unregister_thread();
		lab_rcu_registered = false;
	}
}

static void lab_rcu_key_init(void)
{
	if (pthread_key_create(&lab_rcu_key, lab_rcu_thread_exit))
		abort();
}

void lab_rcu_thread_register(void)
{
	pthread_once(&lab_rcu_once, lab_rcu_key_init);
	urcu_memb_register_thread();
	lab_rcu_registered = true;
	/* Any non-NULL value: the destructor unregisters the thread when it exits. */
	pthread_setspecific(lab_rcu_key, &lab_rcu_registered);
}
#endif
