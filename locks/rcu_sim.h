/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/rcu_sim.h - the simulated build's RCU (docs/simulator.md §3).
 *
 * liburcu cannot run on coroutines that share one host thread, so the
 * urcu-memb calls of percpu-rwsem (rcu_sync) and of the mm model (the
 * RCU-published VMA set, VMAs freed through call_rcu) go to the engine's
 * RCU (sim/rcu.c): read-side sections are per-task nesting counts; a grace
 * period ends once every simulated CPU has passed a quiescent state after
 * its start (a context switch, idle, a scheduler tick at the machine's HZ
 * outside a section) and every reader preempted inside a section has left
 * it, as tree RCU does in outline, so its length follows from HZ and load.
 * synchronize_rcu() blocks the caller in virtual time; call_rcu() queues
 * the callback for one simulated kthread that runs it after its grace
 * period; rcu_barrier() waits until every queued callback has run.
 */
#pragma once

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
	unsigned long long gp_seq;	/* the grace period it waits for */
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

