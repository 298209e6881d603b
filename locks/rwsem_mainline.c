/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwsem - the mainline Linux rwsem, ported to user space.
 *
 * Citation: Linux v6.3 kernel/locking/rwsem.c (Waiman Long and Peter
 * Zijlstra's 2019 rework, v5.3, with the v5.11 removal of reader spinning,
 * the v5.16-v6.2 handoff refinements and the v6.3 first-waiter fixes);
 * unchanged in v6.18 (!PREEMPT_RT) but for one knob: hung_task_blocker=1
 * (default) is v6.18's up_read under CONFIG_DETECT_HUNG_TASK_BLOCKER, which
 * clears the owner word when it names the unlocking reader (Kconfig: default
 * y whenever DETECT_HUNG_TASK=y and !PREEMPT_RT, as distribution kernels are
 * built); hung_task_blocker=0 is v6.3's up_read, which leaves the stale
 * reader in the owner word. docs/kernel.md §2.2-2.6, §3.1-3.3,
 * §3.5, §8. The algorithm lives in rwsem_mainline_impl.h, shared with
 * rwsem-dhandoff; this file instantiates it without direct handoff.
 *
 * Design summary:
 * - down_read: add READER_BIAS; done unless a writer, waiters, a handoff or
 *   an overflow show in the count. No reader optimistic spinning. The slow
 *   path keeps the bias and steals the lock if no writer holds it and no
 *   handoff is pending, unless the lock looks reader-owned with other
 *   readers in (rcnt > 1: anti-starvation); otherwise it queues FIFO and
 *   sleeps until a waker grants it (waiter.task = NULL).
 * - down_write: cmpxchg 0 -> WRITER_LOCKED; else spin behind the osq while a
 *   running writer owns the lock (and 10-25 us on a reader-owned one, then
 *   mark it NONSPINNABLE); else queue and retry under wait_lock when woken.
 * - Handoff: a waiter queued longer than RWSEM_WAIT_TIMEOUT (4 ms) that
 *   finds the lock taken sets HANDOFF; only the head waiter's request counts.
 *   HANDOFF stops the read fast path, reader stealing, writer spinning and
 *   the other queued writers; the head writer then spins while the owner
 *   runs and retries when it leaves. It still wins the lock by its own
 *   cmpxchg: no direct grant (compare rwsem-dhandoff).
 * - up_read/up_write: drop the count (release); the last one out with
 *   WAITERS set wakes the head under wait_lock (rwsem_mark_wake): a writer
 *   head is woken, a reader head gets the lock for itself and up to 256
 *   readers from anywhere in the queue (writers skipped), in two passes.
 * - downgrade_write: turn the writer bit into one reader bias and grant the
 *   queued readers (WAKE_READ_OWNED).
 * - down_read_killable/down_write_killable (and the timed waits built on
 *   them, wait.h): a fatal signal seen in the wait loop leaves through
 *   out_nolock, rwsem_del_wake_waiter() (unlink, clear WAITERS and HANDOFF
 *   when the queue empties, wake the new head), -EINTR; events
 *   rwsem_rlock_fail/rwsem_wlock_fail. No interruptible verbs.
 *
 * What user space cannot model (docs/kernel.md §8, docs/architecture.md §8):
 * - preemption: the kernel runs every lock/unlock path with preemption off
 *   (v6.3); here a thread can be preempted anywhere, also holding wait_lock
 *   (spinlock.h yields to it) or between a reader's count and owner updates;
 * - owner->on_cpu && !vcpu_is_preempted() is owner_on_cpu() (wait.h): false
 *   while the owner sleeps in a futex or while its context-switch ring's
 *   last record is a switch-out (knob oncpu=switch, default: plain loads;
 *   oncpu=clock: its thread CPU clock sampled every 25 us; oncpu=flag: the
 *   futex flag only, so a preempted owner looks runnable); the osq tests
 *   its predecessor the same way;
 * - need_resched() is "this spinner was preempted since its spin began"
 *   (spin_budget_us=0, default) or a fixed time budget started before each
 *   spin (spin_budget_us > 0: the earlier 100 us stand-in, for ablation);
 * - OWNER_NULL: the kernel's windows that show a held lock with no owner
 *   run preempt-disabled (v6.3), so its spins and the head writer's
 *   OWNER_NULL retries (v6.3 rwsem.c:1170-1181) end quickly; here they end
 *   after LAB_OWNER_NULL_SPIN_NS of OWNER_NULL (wait.h). Spinning time: spin_ns;
 * - jiffies is CLOCK_MONOTONIC_COARSE: 4 ms ticks here, and it can lag real
 *   time by a tick or more, so the 4 ms timeout fires after roughly 0-8 ms
 *   of queueing (the kernel's is 4-8 ms at HZ=250); there are no RT tasks,
 *   so only the timeout sets HANDOFF.
 *
 * Events: rwsem_opt_lock (write lock taken while spinning), rwsem_opt_fail
 * (spinning refused or given up), rwsem_opt_nospin (a writer's reader-owned
 * spin timed out and set NONSPINNABLE), rwsem_rlock_steal, rwsem_rlock_fast
 * (queue found empty, no writer), rwsem_rlock (granted after queueing),
 * rwsem_wlock (slow-path write lock), rwsem_rlock_handoff/wlock_handoff
 * (HANDOFF set by a reader head/a writer),
 * rwsem_sleep_reader/writer (per schedule() call in the wait loop, one that
 * returns at once because the wakeup came first included),
 * rwsem_wake_writer (per writer woken), rwsem_wake_reader (per batch of
 * readers granted, as the kernel counts it).
 *
 * count (long, 64 bits):
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
#define LAB_RWSEM_DHANDOFF 0
#include "rwsem_mainline_impl.h"
#include "rwsem_mainline.h"

const struct lab_rwsem_ops lab_rwsem_mainline_ops = {
	.name = "rwsem",
	.summary = "mainline rwsem: reader stealing, writer osq spinning, 4 ms HANDOFF bit (no reader spinning)",
	.cite = "Linux v6.3 kernel/locking/rwsem.c (unchanged in v6.18 but for up_read under "
		"CONFIG_DETECT_HUNG_TASK_BLOCKER: knob hung_task_blocker)",
	.caps = RWSEM_ML_CAPS,
	.size = sizeof(struct rwsem_mainline),
	.own_off = offsetof(struct rwsem_mainline, handoff_timeout_ns),
	.align = LAB_CACHELINE,
	.knobs = rwsem_mainline_knobs,
	.events = LAB_EVENTS(RWSEM_ML_EVENTS),
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

unsigned long rwsem_mainline_owner(struct lab_rwsem *s)
{
	return READ_ONCE(rwsem_ml(s)->owner);
}
