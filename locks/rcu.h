/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/rcu.h - one liburcu (urcu-memb) registration per thread, shared by
 * everything in rwlab that uses RCU (percpu-rwsem's rcu_sync, the mm model's
 * lock-free VMA lookup, the percpu-ref lazy-mm scheme).
 *
 * liburcu asserts if a thread registers twice, and two users in one thread
 * (pft on a percpu-rwsem mmap_lock: the mm model and the lock) must not each
 * register it. lab_rcu_thread_online() registers the calling thread on its
 * first call and is a no-op afterwards; the thread is unregistered when it
 * exits (a pthread key destructor). A registered thread outside a read-side
 * critical section does not delay grace periods (urcu-memb), so there is no
 * "offline" call.
 *
 * Threading: per thread; call it before the thread's first rcu_read_lock,
 * synchronize_rcu or call_rcu.
 */
#pragma once

#include <stdbool.h>
#include "compiler.h"

#if LAB_SIM
/* Simulated build: no liburcu registration (see rcu_sim.h). */
static inline void lab_rcu_thread_online(void)
{
}
#else
extern __thread bool lab_rcu_registered;
void lab_rcu_thread_register(void);

static inline void lab_rcu_thread_online(void)
{
	if (lab_unlikely(!lab_rcu_registered))
		lab_rcu_thread_register();
}
#endif
