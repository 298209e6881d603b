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

/*
 * call_rcu callbacks wait on one list, oldest first, each tagged with the
 * grace period that must complete before it runs; one simulated kthread
 * (like the kernel's rcuo/rcuc threads: it takes CPU time and a CPU) waits
 * for each tag in turn and invokes what is due. The engine runs one task at
 * a time and switches only at seam calls, so the list needs no lock.
 */
static struct rcu_head *cb_head, **cb_tail = &cb_head;
static uint32_t rcu_pending;		/* callbacks queued and not yet run */
static uint32_t cb_kthread_sleeping;	/* futex: the kthread waits for a callback */
static int cb_kthread = -1;
static uint64_t cb_boot;		/* sim_boot_count() when cb_kthread was spawned */

void lab_sim_rcu_read_lock(void)
{
	sim_rcu_read_lock();
}

void lab_sim_rcu_read_unlock(void)
{
	sim_rcu_read_unlock();
}

void lab_sim_synchronize_rcu(void)
{
	sim_rcu_gp_wait(sim_rcu_gp_request());
}

static void *rcu_cb_kthread(void *arg)
{
	(void)arg;
	for (;;) {
		struct rcu_head *h = cb_head;

		if (!h) {
			WRITE_ONCE(cb_kthread_sleeping, 1u);
			lab_futex_wait(&cb_kthread_sleeping, 1u, -1);
			continue;
		}
		sim_rcu_gp_wait(h->gp_seq);
		while ((h = cb_head) && h->gp_seq <= sim_rcu_gp_completed()) {
			cb_head = h->next;
			if (!cb_head)
				cb_tail = &cb_head;
			h->func(h);
			if (atomic_fetch_sub(&rcu_pending, 1u) == 1u)
				lab_futex_wake(&rcu_pending, INT32_MAX);
		}
	}
	return NULL;
}

void lab_sim_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	head->func = func;
	head->next = NULL;
	head->gp_seq = sim_rcu_gp_request();
	if (cb_kthread >= 0 && cb_boot == sim_boot_count()) {
		*cb_tail = head;
		cb_tail = &head->next;
		atomic_fetch_add(&rcu_pending, 1u);
	}
	if (cb_kthread < 0 || cb_boot != sim_boot_count()) {
		/* A new engine (tests boot several): its first callback starts the kthread. */
		cb_boot = sim_boot_count();
		cb_head = head;
		cb_tail = &head->next;
		rcu_pending = 1;
		cb_kthread_sleeping = 0;
		cb_kthread = sim_spawn_detached(rcu_cb_kthread, NULL);
		if (cb_kthread < 0)
			abort();
	} else if (READ_ONCE(cb_kthread_sleeping)) {
		WRITE_ONCE(cb_kthread_sleeping, 0u);
		lab_futex_wake(&cb_kthread_sleeping, 1);
	}
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
