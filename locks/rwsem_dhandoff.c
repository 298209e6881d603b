/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwsem-dhandoff - mainline rwsem plus a true (direct) lock handoff to a
 * waiting writer.
 *
 * Citation: Waiman Long, "[PATCH v7 4/4] locking/rwsem: Enable direct rwsem
 * lock handoff", LKML 2023-01-25 (msg-id 20230126003628.365092-5-longman@
 * redhat.com; series "lockinig/rwsem: Fix rwsem bugs & enable true lock
 * handoff"), applied to Linux v6.3 kernel/locking/rwsem.c, which already
 * holds the series' patches 1-3. Never merged: PeterZ objected to a second
 * way of waking writers (2023-02-13) and reworked writer wakeup instead;
 * neither is in v6.3..v6.18. Knob version=4: "[PATCH v4 4/5]
 * locking/rwsem: Enable direct rwsem lock handoff" 2022-10-24 (msg-id
 * 20221024174418.796468-5; v5 and v6 as v4), see below; it hangs.
 * docs/kernel.md §3.3-3.4. The mainline algorithm is shared with
 * "rwsem" through rwsem_mainline_impl.h; this file instantiates it with
 * the direct handoff (v7, or v4 at run time).
 *
 * Design summary (v7; everything else is mainline, see rwsem_mainline.c):
 * - only rwsem_wake() (the unlock side, wait_lock held) hands over: if the
 *   count shows the lock free with HANDOFF set and a writer heads the queue,
 *   owner = its task, count += WRITER_LOCKED - HANDOFF, the writer is
 *   unlinked (WAITERS cleared if it was the last) and waiter->task = NULL
 *   tells it the lock is its own; then it is woken. Otherwise mark_wake();
 * - a reader head needs nothing new: mark_wake() already grants readers;
 * - a reader head that requests the handoff in mark_wake() also sets
 *   NONSPINNABLE ("with HANDOFF set for reader, we must terminate all
 *   spinning"); mainline does not;
 * - the head writer that set HANDOFF still spins on the owner while it runs
 *   (rwsem_spin_on_owner, which now returns at once if the owner is the
 *   spinner itself: granted); it then checks waiter.task without wait_lock
 *   and skips the sleep when granted. Mainline's OWNER_NULL trylock retry
 *   is gone: the unlocker grants instead;
 * - rwsem_try_write_lock() returns true at once for a granted waiter, and a
 *   killed writer that finds itself granted in out_nolock keeps the lock;
 * - event rwsem_handoff_grant counts direct grants (on the granter's thread;
 *   v7 dropped v5's rwsem_handoff_* events patch).
 *
 * version=4 (knob; v5 and v6 as v4): "[PATCH v4 4/5] locking/rwsem: Enable
 * direct rwsem lock handoff" as posted, on the same v6.3 base (its 3/5,
 * handoff_set -> enum, is the handoff field here). What differs from v7:
 * - rwsem_wake() grants whoever heads the queue (rwsem_handoff_v4()): a
 *   writer gets owner and WRITER_LOCKED - HANDOFF, a reader READER_BIAS -
 *   HANDOFF and then mark_wake(READ_OWNED) grants the other readers; the
 *   head's state becomes GRANTED (a third value; waiter->task stays);
 * - the granted writer stays queued: it skips the sleep on GRANTED, takes
 *   wait_lock and unlinks itself; rwsem_try_write_lock() has no grant check
 *   (GRANTED counts as a handoff state there);
 * - a "secondary" handoff in rwsem_down_read_slowpath(): a reader whose
 *   transient bias is the only one left with HANDOFF set grants the head
 *   there (a reader head: it rides along; a writer head: its bias goes and
 *   it queues without touching the count);
 * - out_nolock: a GRANTED head keeps the lock; a REQUESTED head passes
 *   REQUESTED on to the new head;
 * - no NONSPINNABLE on a reader's handoff request.
 * v4 hangs, as the patch text suggested and rwlab shows: a writer behind
 * the granted, still queued head that runs rwsem_try_write_lock() before
 * the head does (woken by a fatal signal or its deadline) and is past its
 * timeout finds the lock held and HANDOFF clear, sets HANDOFF and writes
 * REQUESTED over the head's GRANTED; the head then sleeps holding the lock.
 * tests/regression/rwsem_dhandoff_v4.c reproduces it deterministically;
 * `rwlab torture --kill` finds it (README). Known broken, never in `all`.
 * The earlier rwlab port mixed the two: it granted from
 * rwsem_cond_wake_waiter() (v4's secondary handoff, in another place), never
 * spun after requesting the handoff (both versions did), and had no
 * NONSPINNABLE on a reader's request.
 *
 * What user space cannot model: as for rwsem (preemption anywhere,
 * owner_on_cpu() from the futex-sleep flag and the owner's context-switch ring,
 * need_resched() as "this spinner was preempted since its spin began" (a
 * fixed budget only with spin_budget_us > 0, for ablation), 4 ms coarse
 * jiffies, no RT tasks, fatal signals as a per-task flag); see
 * rwsem_mainline.c.
 *
 * count (long, 64 bits), as mainline:
 *
 *   63        62 ............................ 8   7 .. 3   2         1        0
 *  +----------+-------------------------------+--------+---------+--------+--------+
 *  | READFAIL |  reader count (READER_BIAS    |  (0)   | HANDOFF | WAITERS| WRITER_|
 *  |          |  = 0x100 per reader)          |        |         |        | LOCKED |
 *  +----------+-------------------------------+--------+---------+--------+--------+
 *
 * owner (unsigned long): struct lab_task pointer (64-byte aligned) | flags
 *
 *   63 ..................................... 2        1              0
 *  +------------------------------------------+--------------+--------------+
 *  | task: writer owner, or last reader (hint)| NONSPINNABLE | READER_OWNED |
 *  +------------------------------------------+--------------+--------------+
 */
#define LAB_RWSEM_DHANDOFF 1
#include "rwsem_mainline_impl.h"

const struct lab_rwsem_ops lab_rwsem_dhandoff_ops = {
	.name = "rwsem-dhandoff",
	.summary = "mainline rwsem + direct handoff: the unlocker grants the lock to the head writer",
	.cite = "Waiman Long, '[PATCH v7 4/4] locking/rwsem: Enable direct rwsem lock handoff', "
		"LKML 2023-01-25 (never merged), on Linux v6.3 kernel/locking/rwsem.c; "
		"version=4: v4 4/5, 2022-10-24",
	.caps = RWSEM_ML_CAPS,
	.size = sizeof(struct rwsem_mainline),
	.own_off = offsetof(struct rwsem_mainline, handoff_timeout_ns),
	.align = LAB_CACHELINE,
	.knobs = rwsem_dhandoff_knobs,
	.events = LAB_EVENTS(RWSEM_ML_EVENTS, LAB_EV_rwsem_handoff_grant),
	.init = rwsem_ml_init,
	.down_read = rwsem_ml_down_read,
	.down_read_trylock = rwsem_ml_down_read_trylock,
	.up_read = rwsem_ml_up_read,
	.down_write = rwsem_ml_down_write,
	.down_write_trylock = rwsem_ml_down_write_trylock,
	.up_write = rwsem_ml_up_write,
	.downgrade_write = rwsem_ml_downgrade_write,
	.down_read_killable = rwsem_ml_down_read_killable,
	.down_write_killable = rwsem_ml_down_write_killable,
	.down_read_timed = rwsem_ml_down_read_timed,
	.down_write_timed = rwsem_ml_down_write_timed,
	.check_unlocked = rwsem_ml_check_unlocked,
};
