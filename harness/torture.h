/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locktorture-style invariant checking (kernel/locking/locktorture.c v6.18,
 * docs/kernel.md §7), shared by the stress tests and `rwlab torture`.
 *
 * Writers: after down_write, write_held must be 0 (set it to 1) and
 * read_held must be 0; hold for a while; clear write_held; up_write.
 * Readers: after down_read, increment read_held; write_held must be 0; hold;
 * decrement; up_read. Any violation counts as a failure of that role.
 * Optionally writers downgrade_write part of the time (then check as a
 * reader) and both roles use the trylock verbs part of the time.
 *
 * Besides the two sentinels, the lock protects a small payload of plain
 * (non-atomic) words: a writer bumps them one by one, a reader checks they
 * are all equal. A torn payload is a failure too, and in a ThreadSanitizer
 * build the plain accesses let TSan prove the lock orders its critical
 * sections (acquire/release), which x86 alone cannot show. Variants with
 * LAB_CAP_FOREIGN_ATOMICS synchronise in ways TSan cannot see, so under TSan
 * they draw false race reports: `rwlab torture` skips them in TSan builds
 * and says so, and so are wrappers over them (bravo:base=ck-rwlock).
 *
 * From locktorture, optionally:
 * - long_hold: now and then a writer holds the lock 10 x long_hold and a
 *   reader 2 x long_hold (the kernel's rwsem write/read delays), 1 in
 *   (writers x 2000) resp. (readers x 2000) acquisitions. The kernel also
 *   scales that rarity by long_hold in ms; rwlab's acquisitions are far
 *   faster than the kernel test's (whose readers hold 50 ms each time), so it
 *   keeps only the thread-count factor. The long hold sleeps (the kernel's
 *   mdelay spins); the lock stays held and the holder stays "on CPU" for
 *   the lock's owner-spinning heuristics either way.
 * - stutter: all threads run for `stutter`, then pause between acquisitions
 *   for `stutter`, and so on (torture_stutter).
 * - acq_writer_lim: the blocking down_write is timed; the longest time is
 *   reported, and with a limit set, each acquisition over it is counted and
 *   fails the test (the kernel WARNs, which its test scripts treat as a
 *   failure).
 * Always, as in locktorture: 1 in 2^20 writer iterations first sleep one
 * jiffy (4 ms at HZ=250), and 1 in (n x 20000) holds yield the CPU while
 * holding the lock (torture_preempt_schedule).
 *
 * kill (rwlab torture --kill): for variants with LAB_CAP_KILLABLE,
 * every blocking acquisition uses down_*_killable (3 in 4) or down_*_timed
 * with a deadline 0..1 ms away (1 in 4), and the supervising thread sends
 * fatal signals (wait.h) every 20..500 us: half the time to one random
 * torture thread, half the time to every thread then waiting in a killable
 * acquisition, oldest wait first, 0..20 us apart (a burst: the directed
 * kill order that cancels a queue head and then the waiters behind it
 * while the holder's unlock falls anywhere in between). Cancellation around
 * HANDOFF needs a waiter that asked for it, so kill mode also drives waiters
 * there: 1 in 8 write holds last 50..1000 us with the holder on CPU (spinners
 * steal the lock from a timed-out queue head as it is released), and
 * variants with a handoff_timeout_us knob left at its default run with
 * handoff_timeout_us=0 (HANDOFF from the next jiffy on). A cancelled wait
 * (-EINTR, -ETIMEDOUT) skips that iteration; the thread clears its flag
 * after every acquisition attempt and lives on. The ports' wait_lock-release
 * invariants (rwsem.h lab_rwsem_checks: HANDOFF only with waiters queued,
 * WAITERS iff queued, no count underflow) are switched on for the run; any
 * warning fails it, and a warning that the variant documents as its
 * kernel's own bug (ops->known_bug) is reported as that bug. Kill choices,
 * deadlines and the threads' random choices come from @seed (the
 * interleavings do not natively: they are the machine's).
 * Always: at the end, a lock with check_unlocked must be back at its
 * unlocked value.
 *
 * Threading: lab_torture_run() blocks the caller for the duration; the
 * stat callback runs on the caller's thread with racy (but torn-free)
 * snapshots of the counters, as the kernel's stat kthread reads them.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "rwsem.h"

struct lab_torture_result;

struct lab_torture_opts {
	const struct lab_rwsem_conf *lock;
	int readers, writers;
	uint64_t duration_ns;
	unsigned long hold_loops;	/* cpu_relax() iterations inside the critical section */
	unsigned long think_loops;	/* between acquisitions */
	bool trylock;			/* 1 in 8 acquisitions use the trylock verb when supported */
	bool downgrade;			/* 1 in 4 write holds downgrade when supported */
	uint64_t long_hold_ns;		/* locktorture long_hold; 0 = off */
	uint64_t stutter_ns;		/* run/pause period; 0 = off */
	uint64_t acq_writer_lim_ns;	/* writer acquisition limit; 0 = off (report the max only) */
	uint64_t stat_interval_ns;	/* call stat() this often; 0 = never */
	bool kill;			/* cancel random waiters (see above) */
	uint64_t seed;			/* random choices (0: a fixed default) */
	void (*stat)(void *arg, const struct lab_torture_result *r);
	void *stat_arg;
	/* Optional: non-zero ends the run before duration_ns (checked at least every 50 ms: Ctrl-C). */
	int (*stop)(void);
	/* Optional, caller-owned: writers + readers entries for the per-thread counts. */
	struct lab_torture_thread *threads;
};

/* One thread's counts (locktorture's struct lock_stress_stats, plus timing). */
struct lab_torture_thread {
	bool writer;
	uint64_t acquired;		/* lock acquisitions (n_lock_acquired) */
	uint64_t fail;			/* failed checks (n_lock_fail) */
	uint64_t acq_max_ns;		/* longest blocking acquisition (writers: down_write) */
	uint64_t acq_over_lim;		/* writer acquisitions longer than acq_writer_lim_ns */
	uint64_t long_holds;
};

struct lab_torture_result {
	uint64_t rd_total, rd_min, rd_max, rd_fail;
	uint64_t wr_total, wr_min, wr_max, wr_fail;
	uint64_t downgrades, trylock_fail;
	uint64_t wr_acq_max_ns;		/* longest down_write over all writers */
	uint64_t wr_acq_over_lim;	/* acquisitions over acq_writer_lim_ns */
	uint64_t long_holds, stutter_pauses;
	uint64_t kills_sent;		/* fatal signals sent */
	uint64_t cancelled_eintr;	/* acquisitions that returned -EINTR */
	uint64_t cancelled_etimedout;	/* timed acquisitions that returned -ETIMEDOUT */
	uint64_t kill_bursts;		/* bursts: every waiter killed, oldest first */
	uint64_t handoff_rd, handoff_wr;	/* HANDOFF requests (lock events rwsem_rlock_handoff, _wlock_handoff) */
	/*
	 * Holder-role switches: acquisitions by a reader whose previous holder
	 * was a writer, and the reverse (a downgrade is counted in downgrades,
	 * not here). Counted by the torture threads, outside the lock's code,
	 * with unmodelled accesses (exact under --sim, where no task runs
	 * between the look and the update; natively two readers entering at
	 * once may both count one switch).
	 */
	uint64_t switch_to_read, switch_to_write;
	uint64_t events[LAB_EV_NR];	/* every thread's lock events (events_list.h), summed; 0 with -Devent_counts=false */
	long handoff_timeout_us;	/* kill mode's handoff_timeout_us (-1: the variant has no such knob) */
	bool killable;			/* the variant had the killable verbs (kill mode used them) */
	uint64_t warnings;		/* DEBUG_RWSEMS_WARN_ON / wait_lock invariant failures during the run */
	const char *known_bug;		/* the first warning is the variant's documented kernel bug: which */
	char first_warning[160];	/* the first warning: "variant: what: count 0x..." ("" if none) */
	uint64_t first_warning_ns;	/* ... came this long after the start (simulated time under --sim) */
	bool not_unlocked;		/* check_unlocked failed at the end */
	char unlocked_msg[160];		/* ... and what it said */
	/*
	 * Stall: threads that had not returned within the stall bound after the
	 * end of the test (torture.c: 120 s natively, hung_task_timeout_secs; 1 s
	 * of simulated time under --sim; at least 10 x a writer's long hold).
	 * They cannot be joined: the caller must report and end the process
	 * (the lock and the threads' memory are left to them).
	 */
	bool stalled;
	int stall_acq_writers, stall_acq_readers;	/* ... still in a lock acquisition (down_*, trylock) */
	int stall_other_writers, stall_other_readers;	/* ... elsewhere (holding, unlocking) */
	uint64_t stall_after_ns;	/* ... counted this long after the end of the test */
	int nthreads;			/* threads that ran: writers first, then readers */
	struct lab_torture_thread *threads;	/* opts->threads (NULL if not given) */
};

/*
 * lab_torture_run() - run the torture for opts->duration_ns.
 * Returns 0, or -errno if setup failed (-EINVAL for no threads at all).
 * On return @r holds the totals, and opts->threads (when given) the
 * per-thread counts. Nothing in @r needs freeing. With r->stalled the
 * threads are still running: run no other torture, report and exit.
 */
int lab_torture_run(const struct lab_torture_opts *o, struct lab_torture_result *r);

/* locktorture's unfairness flag: "???" when max / 2 > min (integer division, as the kernel). */
static inline bool lab_torture_unfair(uint64_t max, uint64_t min)
{
	return max / 2 > min;
}

/*
 * True when the run failed: any failed check, any writer acquisition over
 * the limit, any invariant warning, a lock not back at its unlocked value, or
 * threads that did not return after the end (a stall).
 */
static inline bool lab_torture_failed(const struct lab_torture_result *r)
{
	return r->rd_fail || r->wr_fail || r->wr_acq_over_lim || r->warnings || r->not_unlocked || r->stalled;
}
