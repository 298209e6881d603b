/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/rcu_sim.h - the simulated build's RCU for percpu-rwsem (issue 10).
 *
 * liburcu cannot run on coroutines that share one host
 * thread, so the urcu-memb calls percpu-rwsem makes are replaced by a simple
 * simulated RCU (rcu.c): read-side sections are per-task nesting counts;
 * synchronize_rcu() sleeps in steps of the kernel's force-quiescent-state
 * interval (1 + (HZ > 250) + (HZ > 500) jiffies, kernel/rcu/tree.h v6.18)
 * until every reader that was inside a section when it began has left it,
 * so a grace period lasts at least one such interval; call_rcu() runs its
 * callback on a detached simulated task after a grace period; rcu_barrier()
 * waits for all of them. Issue 11 models RCU properly (quiescent states at
 * context switches and ticks). Only percpu-rwsem uses these in simulation.
 */
#pragma once

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

void lab_sim_rcu_read_lock(void);
void lab_sim_rcu_read_unlock(void);
void lab_sim_synchronize_rcu(void);
void lab_sim_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
void lab_sim_rcu_barrier(void);
#define urcu_memb_read_lock()		lab_sim_rcu_read_lock()
#define urcu_memb_read_unlock()		lab_sim_rcu_read_unlock()
#define urcu_memb_synchronize_rcu()	lab_sim_synchronize_rcu()
#define urcu_memb_call_rcu(h, f)	lab_sim_call_rcu((h), (f))
#define urcu_memb_barrier()		lab_sim_rcu_barrier()

