/* SPDX-License-Identifier: MIT */
/*
 * rwsem-dhandoff - mainline rwsem plus a true (direct) lock handoff to a
 * waiting writer.
 *
 * Citation: Waiman Long, "locking/rwsem: Enable direct rwsem lock handoff"
 * (LKML series v4 2022-10-24 ... v6 2022-11-17, v7 "Fix rwsem bugs & enable
 * true lock handoff" 2023-01-25; never merged: PeterZ objected, and neither
 * HANDOFF_GRANTED nor the writer-wakeup rework is in v6.3..v6.18), applied
 * to Linux v6.3 kernel/locking/rwsem.c. research/kernel.md §3.2-3.4,
 * peers.md §14. The mainline algorithm is shared with "rwsem" through
 * rwsem_mainline_impl.h; this file instantiates it with direct handoff.
 *
 * Design summary (everything else is mainline, see rwsem_mainline.c):
 * - the head waiter's handoff state is NONE, REQUESTED (it set HANDOFF
 *   after the 4 ms timeout) or GRANTED;
 * - whoever calls rwsem_mark_wake(WAKE_ANY) under wait_lock - the last
 *   unlocker through rwsem_wake(), or a slow path that finds the lock free
 *   after queueing - and sees a writer head with REQUESTED, HANDOFF set and
 *   the lock free, grants it: count += WRITER_LOCKED - HANDOFF (- WAITERS if
 *   it was the only waiter), owner = the head's task, the head is unlinked,
 *   its state becomes GRANTED (release) and it is woken. The writer owns the
 *   lock before it runs; nobody can race it in between;
 * - a reader that added its bias in the fast path at the moment of release
 *   makes the lock look held; it backs the bias out in its slow path and
 *   then grants in rwsem_cond_wake_waiter() (the "secondary" handoff);
 * - the writer's wait loop checks GRANTED (acquire) before trying and before
 *   sleeping; once it asked for the handoff it does not spin on the owner
 *   (the unlocker hands over), unlike mainline;
 * - a reader head needs nothing new: mainline's rwsem_mark_wake() already
 *   grants readers directly (this follows v7, which kept the handoff to
 *   writers only);
 * - event rwsem_handoff_grant counts direct grants (on the granter's thread).
 *
 * What user space cannot model: as for rwsem (preemption anywhere, on_cpu
 * only off while in a futex, need_resched() as a spin budget, 4 ms coarse
 * jiffies, no RT tasks); see rwsem_mainline.c.
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
	.cite = "Waiman Long, 'locking/rwsem: Enable direct rwsem lock handoff', LKML 2022-2023 "
		"(never merged), on Linux v6.3 kernel/locking/rwsem.c",
	.caps = RWSEM_ML_CAPS,
	.size = sizeof(struct rwsem_mainline),
	.align = _Alignof(struct rwsem_mainline),
	.knobs = rwsem_mainline_knobs,
	.init = rwsem_ml_init,
	.down_read = rwsem_ml_down_read,
	.down_read_trylock = rwsem_ml_down_read_trylock,
	.up_read = rwsem_ml_up_read,
	.down_write = rwsem_ml_down_write,
	.down_write_trylock = rwsem_ml_down_write_trylock,
	.up_write = rwsem_ml_up_write,
	.downgrade_write = rwsem_ml_downgrade_write,
};
