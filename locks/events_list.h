/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lock event counters, one LAB_EVENT(name) per line. Names are the kernel's
 * lockevent names (kernel/locking/lock_events_list.h, v5.2..v6.18) where the
 * meaning matches; each kernel port counts them with its own version's
 * meaning and at its places (README.md, "Lock events", has the table);
 * rwlab-only events say so, and non-kernel locks use names of their own. No include guard: this file is
 * expanded several times with different LAB_EVENT definitions.
 */
LAB_EVENT(rwsem_sleep_reader)	/* # of reader sleeps */
LAB_EVENT(rwsem_sleep_writer)	/* # of writer sleeps */
LAB_EVENT(rwsem_wake_reader)	/* # of reader wakeups */
LAB_EVENT(rwsem_wake_writer)	/* # of writer wakeups */
LAB_EVENT(rwsem_opt_lock)	/* # of opt-acquired write locks (v6.x name) */
LAB_EVENT(rwsem_opt_rlock)	/* # of opt-acquired read locks (v5.3) */
LAB_EVENT(rwsem_opt_wlock)	/* # of opt-acquired write locks (v5.3) */
LAB_EVENT(rwsem_opt_norspin)	/* # of disabled reader-only optimistic spinnings (v5.3) */
LAB_EVENT(rwsem_opt_rlock2)	/* # of opt-acquired 2ndary read locks (v5.3) */
LAB_EVENT(rwsem_opt_fail)	/* # of failed optimistic spinnings */
LAB_EVENT(rwsem_opt_nospin)	/* # of disabled optimistic spinnings */
LAB_EVENT(rwsem_rlock)		/* # of read locks acquired in the slow path */
LAB_EVENT(rwsem_rlock_fast)	/* # of fast read locks acquired in the slow path */
LAB_EVENT(rwsem_rlock_fail)	/* # of failed read lock acquisitions */
LAB_EVENT(rwsem_rtrylock)	/* # of read trylock calls (v5.2 only) */
LAB_EVENT(rwsem_wtrylock)	/* # of write trylock calls (v5.2 only) */
LAB_EVENT(rwsem_rtrylock_cas)	/* rwlab: # of cmpxchg attempts in down_read_trylock (mainline port) */
LAB_EVENT(rwsem_rtrylock_ok)	/* rwlab: # of down_read_trylock calls that took the lock (mainline port) */
LAB_EVENT(rwsem_rlock_steal)	/* # of read locks by lock stealing */
LAB_EVENT(rwsem_rlock_handoff)	/* # of read lock handoffs */
LAB_EVENT(rwsem_wlock)		/* # of write locks acquired in the slow path */
LAB_EVENT(rwsem_wlock_fail)	/* # of failed write lock acquisitions */
LAB_EVENT(rwsem_wlock_handoff)	/* # of write lock handoffs */
LAB_EVENT(rwsem_handoff_grant)	/* rwlab: # of locks granted directly by the unlocker (dhandoff) */
LAB_EVENT(spin_ns)		/* rwlab: nanoseconds spent in optimistic spinning, osq wait included (a sum, not a count) */
LAB_EVENT(osq_abort)		/* rwlab: # of osq (MCS spinner queue) aborts */
LAB_EVENT(brlock_register)	/* rwlab: # of ck-brlock per-thread reader registrations */
LAB_EVENT(percpu_rwsem_slow_read) /* rwlab: # of percpu-rwsem read locks that missed the rcu_sync fast path */
LAB_EVENT(percpu_rwsem_queue_reader) /* rwlab: # of percpu-rwsem readers that queued (once per wait) */
LAB_EVENT(percpu_rwsem_queue_writer) /* rwlab: # of percpu-rwsem writers that queued (once per wait) */
LAB_EVENT(percpu_rwsem_drain_wait) /* rwlab: # of percpu-rwsem writers that slept while readers drained */
LAB_EVENT(percpu_rwsem_wake_reader) /* rwlab: # of percpu-rwsem queued readers granted and woken (per waiter) */
LAB_EVENT(percpu_rwsem_wake_writer) /* rwlab: # of percpu-rwsem queued writers granted and woken */
LAB_EVENT(rcu_sync_gp)		/* rwlab: # of RCU grace periods waited for by rcu_sync_enter (first writer) */
LAB_EVENT(bravo_fast_read)	/* rwlab: # of BRAVO read locks taken through the visible-readers table */
LAB_EVENT(bravo_slot_busy)	/* rwlab: # of BRAVO fast reads that found their table slot taken */
LAB_EVENT(bravo_fast_abort)	/* rwlab: # of BRAVO fast reads withdrawn because a writer cleared RBias */
LAB_EVENT(bravo_revoke)		/* rwlab: # of BRAVO bias revocations by writers */
LAB_EVENT(bravo_revoke_wait)	/* rwlab: # of table slots a revoking writer had to wait on */
LAB_EVENT(bravo_revoke_ns)	/* rwlab: nanoseconds writers spent revoking (a sum, not a count) */
LAB_EVENT(bravo_rebias)		/* rwlab: # of times a slow-path reader turned the bias back on */
LAB_EVENT(lazy_tlb_ipi)		/* rwlab: # of lazy-mm "IPIs" sent (mailbox + futex wake, acknowledged) */
LAB_EVENT(lazy_tlb_shoot)	/* rwlab: # of CPUs a release switched from the mm to init_mm */
LAB_EVENT(lazy_tlb_defer_free)	/* rwlab: # of mms freed by a lazy drop after their release */
LAB_EVENT(hpref_promote)	/* rwlab: # of hpref hazard pointers promoted to references */
LAB_EVENT(percpu_ref_atomic)	/* rwlab: # of percpu refs switched to atomic mode (killed) */
