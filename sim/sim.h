/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/sim.h - the many-CPU engine beneath locks/'s seams.
 *
 * Simulated threads ("tasks") are coroutines on the one host thread
 * (Boost.Context fcontext). A discrete-event loop always resumes the
 * simulated CPU with the smallest virtual clock; each seam call (a memory
 * access through locks/atomic.h, a futex call, a clock read, a work charge)
 * is a point where the running task may yield to an earlier CPU. Costs come
 * from struct sim_machine (a cited machine file): a per-64-byte-line
 * coherence directory (owner in M/E, sharers in S, busy-until per ownership
 * transfer), CFS-like per-CPU run queues with the kernel's granularities,
 * wake-up latency, futexes, virtual clocks.
 *
 * Units: nanoseconds of virtual time unless named otherwise.
 * Threading: the engine is single-host-threaded; every function except
 * sim_boot/sim_run/sim_shutdown must be called from a simulated task.
 * Never includes locks/, workloads/ or harness/ headers.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "machine.h"

/*
 * sim-2: RCU from quiescent states, the wake-up causality fix;
 * sim-3: a waking task no longer cancels the due FQS scan; rwlab-sim's
 * jemalloc never purges on wall-clock decay (addresses no longer follow
 * host timing); sim-4, two branches that each called themselves so: IPIs
 * as interrupts (sim_ipi_send; results/sim/lazy-mm-hazptr/tlb_flush.csv),
 * and the engine allocating from its own region, not malloc (where the
 * program's objects land, and so which share a line, no longer follows the
 * engine's internals); sim-5: both. sim-6, two branches that each called
 * themselves so: Tree RCU's grace-period kthread, FQS scans and callbacks
 * at the caller's CPU's tick (sim/rcu.c; grace periods two to three ticks
 * on a busy machine where they were at most one), and line arbitration
 * with a source per rule (a transfer counted once, effects at the grant,
 * requests served in order, the hold window, read snoops in turn),
 * picoseconds, seeded cost jitter, EEVDF or CFS per machine file with
 * tick-noticed slices, periodic load balancing (sim/README.md); sim-7:
 * both; sim-8: the idle path; sim-9: read for ownership (a load that took
 * a line from its owner, followed by the task's store or RMW to it as its
 * next access, is one ownership transfer: coherence.c rule 7); sim-10: the
 * v6.2/v6.4 mm model's pcp->high from the low watermark and nr_pcp_free's
 * doubling (workloads/kmm.c); sim-11: the store buffer (coherence.c rule
 * 8), on in every machine file (sb.entries from the vendors' optimization
 * manuals), after the RCU GP kthread spawn race that hung it was fixed
 * (sim/rcu.c, 123859e); sim-12: per-pair transfer figures (coherence.c rule
 * 9) where a machine file names a published matrix (c2c.pairs: the two
 * Ice Lake-SP files); sim-13: rule 4 after a wait, the owner's window
 * before the next queued request's snoop is that request's transfer's
 * (coherence.c own_queued), not the one that brought the line; sim-14: an
 * IPI that arrives while a task waits for a line is taken after that access
 * lands (coherence.c line_wait; only cells that send IPIs move: tlb_flush);
 * sim-15: SMT siblings share the core's L1D and fill buffers (coherence.c
 * rule 10): an RMW by a CPU whose sibling holds the line, or waits for its
 * arrival, is served from the core before other cores' queued requests;
 * sim-16: loads too (rule 10 served only RMWs and stores, so a read-first
 * trylock's load queued where a blind cmpxchg was served); sim-17: a work
 * charge hands over once, at its chunk's end, not also at its start (the
 * order of events kept; one tie key drawn a chunk where two were, so values
 * move as under another seed: sim/README.md, "Discrete events").
 * Results keep
 * the version they were made with, and every CSV row its binary's git
 * revision.
 */
#define SIM_ENGINE_VERSION "sim-17"
#define SIM_MAX_TASKS 1024

extern int sim_active;		/* 1 while sim_run() runs */
extern int sim_cur_id;		/* the running task's id (0..SIM_MAX_TASKS-1) */

enum sim_op { SIM_LOAD, SIM_STORE, SIM_RMW, SIM_FENCE };

/*
 * Boot the engine on @m with @seed (tie-breaks and think-time jitter);
 * -1: sb_entries outside 0..SIM_SB_MAX, or no memory.
 */
int sim_boot(const struct sim_machine *m, uint64_t seed);
/*
 * Run @fn(@argc, @argv) as task 0 and everything it spawns until all tasks
 * end. Returns @fn's return value, or 99 after printing one line when every
 * task is blocked with no pending event (a simulated deadlock).
 */
int sim_run(int (*fn)(int, char **), int argc, char **argv);
void sim_shutdown(void);
const struct sim_machine *sim_machine(void);
uint64_t sim_boot_count(void);		/* sim_boot() calls so far: per-boot state resets */
uint64_t sim_seed(void);

/* A memory access through the atomic.h seam, charged before it is made. */
void sim_mem(const volatile void *addr, enum sim_op op);
/* cpu_relax(): parks a pure spin iteration until a line it read changes. */
void sim_relax(void);
/* Busy work on the CPU (computing), exactly @ns. */
void sim_work_ns(double ns);
/*
 * A modelled path's cost (a kernel entry, a fault, PAUSE, think time): @ns
 * of work times the seed's jitter, uniform in [0.99, 1.01] (sim-6: no
 * published distribution of these costs; two seeds must differ).
 */
void sim_cost_ns(double ns);
/*
 * RWLAB_SIM_STATS=2's profile: the next work charge (sim_work_ns(), or the
 * cost, copy or traffic charge that calls it) belongs to @tag, a string that
 * lives as long as the boot (e.g. a machine file's cost key); untagged
 * charges count as "other work". Counts only; nothing when the profile is off.
 */
void sim_prof_tag(const char *tag);
/* Bulk copy/zeroing of @bytes: per-core bandwidth, the socket's shared. */
void sim_copy_bytes(size_t bytes);
/*
 * Memory traffic of @bytes that the core issues in @floor_ns at best (its
 * own latency and parallelism): charged max(@floor_ns, @bytes at this
 * socket's bandwidth shared with its other copiers).
 */
void sim_mem_traffic(size_t bytes, double floor_ns);

uint64_t sim_now(void);			/* CLOCK_MONOTONIC, virtual */
uint64_t sim_jiffies_ns(void);		/* now rounded down to the machine's jiffy */
uint64_t sim_task_cpu_ns(void);		/* the caller's CPU time */
uint64_t sim_total_cpu_ns(void);	/* every task's CPU time, ended ones included */
uint64_t sim_ctxsw_count(int voluntary);
uint64_t sim_task_ctxsw_count(int voluntary);	/* the caller's own */
uint64_t sim_elapsed_ns(void);		/* virtual time since boot (the latest CPU clock) */
/*
 * Times since boot a task was switched in on a CPU whose clock was earlier
 * than the moment it was made runnable (woken, queued): a causality check
 * the tests assert is 0.
 */
uint64_t sim_wake_early_count(void);

int sim_need_resched(void);		/* exact: the CPU's scheduler wants it back */
/*
 * Exact, or virtual time is past @deadline (0: none): the ports' spin
 * budget. A spin parked after asking wakes at @deadline (not a clock read).
 */
int sim_need_resched_by(uint64_t deadline);
int sim_task_on_cpu(int id);		/* task @id is running (not queued, not asleep) */
void sim_set_oncpu_word(int *word);	/* the caller's on_cpu word, kept exact by the engine */

/* Futex on @uaddr (the FUTEX_WAIT/WAKE_PRIVATE contract of locks/wait.h). */
int sim_futex_wait(uint32_t *uaddr, uint32_t val, int64_t timeout_ns);
int sim_futex_wake(uint32_t *uaddr, int n);
void sim_sleep_ns(uint64_t ns);
void sim_yield(void);

/*
 * RCU in virtual time (rcu.c describes the model: Tree RCU's grace-period
 * kthread, ticks and FQS scans): read-side sections nest per task;
 * sim_rcu_gp_request() returns the number of the first grace period that
 * starts after now (waking the GP kthread if none runs) and queues a callback
 * on the caller's CPU; sim_rcu_gp_wait() blocks the caller until that grace
 * period has completed and a tick of its CPU has run the callback.
 */
void sim_rcu_read_lock(void);
void sim_rcu_read_unlock(void);
int sim_rcu_read_depth(void);
uint64_t sim_rcu_gp_request(void);
uint64_t sim_rcu_gp_completed(void);
void sim_rcu_gp_wait(uint64_t seq);
/* Grace periods started and force-quiescent-state scans made since boot (sim/rcu.c). */
void sim_rcu_stats(uint64_t *gps, uint64_t *fqs_scans);

/*
 * Interrupts (ipi.c describes the model). sim_ipi_send() sends an IPI to
 * CPU @cpu: @fn(@arg) runs there in interrupt context cost.ipi_ns later,
 * preempting whatever runs (no context switch), after cost.irq_ns of
 * entry; the caller does not wait (its own code waits for a flag the
 * handler sets, if it must). To the caller's own CPU: @fn runs at once.
 * A handler must not block. sim_irq_disable/enable nest per task: IPIs wait
 * until the outermost enable, and the task is not preempted meanwhile.
 */
void sim_ipi_send(int cpu, void (*fn)(void *), void *arg);
void sim_irq_disable(void);
void sim_irq_enable(void);
/*
 * The kernel's preempt_disable()/preempt_enable() (raw_spin_lock holds it):
 * nest per task; meanwhile the task is not preempted (nor migrated) and may
 * not block, but IPIs run. A preemption that fell due meanwhile happens at
 * the task's next seam after the outermost enable (the kernel's
 * preempt_enable() reschedules at once: no seam lies between). Costs nothing.
 */
void sim_preempt_disable(void);
void sim_preempt_enable(void);
/* IPIs sent, handlers run, of them on a CPU running a task, deliveries deferred by irqs off. */
void sim_ipi_stats(uint64_t *sent, uint64_t *handled, uint64_t *interrupted, uint64_t *deferred);
/*
 * The idle loop's counters since boot: idle periods entered per cpuidle
 * state (@enter[0..@max-1]; returns the machine's state count, 0 when its
 * file lists none), and wake-ups of an idle CPU by IPI and by its polled
 * need-resched flag (no IPI).
 */
int sim_idle_stats(uint64_t *enter, int max, uint64_t *wake_ipi, uint64_t *wake_poll);
/* The CPU task @id runs on, is queued on, or last ran on. */
int sim_task_cpu(int id);

/* Threads: spawn @fn(@arg) as a new task (it inherits the caller's pin); join returns its result. */
int sim_spawn(void *(*fn)(void *), void *arg);
void *sim_join(int id);
/* A task nobody joins (RCU callbacks): its slot is freed when it ends. */
int sim_spawn_detached(void *(*fn)(void *), void *arg);
/* Called with the task id when any task ends (locks/ frees its per-task state). */
void sim_set_exit_hook(void (*fn)(int id));
/* lab_delay(): @loops cpu_relax() of work, with +-1% seeded jitter. */
void sim_delay_relax(unsigned long loops);
/* Pin the caller to simulated CPU @cpu (-1: any). Returns 0 or -1. */
int sim_pin(int cpu);
/*
 * Bind the caller to core @core's CPUs (its SMT siblings; -1: any CPU), as
 * sched_setaffinity() with a core's cpuset: wake-ups pick an idle sibling.
 * Core numbers are sim_cpu_place's. Returns 0 or -1.
 */
int sim_pin_core(int core);
int sim_current_cpu(void);
/* A uniformly random 64-bit value from the seed's stream (deterministic). */
uint64_t sim_random(void);
/* Context switches per second of host time, for the progress line. */
double sim_host_seconds(void);
