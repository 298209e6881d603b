/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/rwsem.h - the reader-writer semaphore interface every variant implements.
 *
 * The verbs are the kernel's (include/linux/rwsem.h, v4.20..v6.18):
 *
 *   down_read, down_read_trylock, up_read,
 *   down_write, down_write_trylock, up_write, downgrade_write,
 *   down_read_killable, down_write_killable (+ rwlab's timed variants)
 *
 * Each variant lives in one file locks/<name>.c and exports one
 * `const struct lab_rwsem_ops`. The state is opaque (struct lab_rwsem is never
 * defined); the harness allocates ops->size bytes aligned to ops->align and
 * calls init() on them.
 *
 * Conventions (all variants):
 * - trylock returns 1 on success and 0 on failure, never blocks;
 * - a verb the algorithm does not have is NULL and its capability bit is
 *   clear (LAB_CAP_READ_TRYLOCK, LAB_CAP_WRITE_TRYLOCK, LAB_CAP_DOWNGRADE);
 *   a test checks that the bits and the pointers agree;
 * - up_read/up_write must be called by a thread holding the lock in that mode;
 *   up_write by the thread that took it (as in the kernel, owner tracking
 *   assumes it); downgrade_write by the write owner, after which it holds
 *   the lock for read;
 * - no verb is recursive unless the variant says so; a thread that takes a
 *   lock it holds may deadlock;
 * - every verb may be called from any thread that uses locks/; a variant that
 *   needs per-thread state (ck-brlock's reader records, percpu counters)
 *   keys it by lab_current()->id and sets it up on first use.
 *
 * Knobs are given as `--lock NAME:key=val,...` and parsed against ops->knobs
 * (see knob.h); init() receives the parsed values in conf->knob[], in the
 * order of the table.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "compiler.h"
#include "events.h"
#include "knob.h"

struct lab_rwsem;	/* opaque: each variant's .c defines its own layout */

enum lab_rwsem_caps {
	LAB_CAP_SLEEPS		= 1u << 0,	/* waiters may block in the kernel (futex) */
	LAB_CAP_SPINS		= 1u << 1,	/* waiters spin (always, or optimistically first) */
	LAB_CAP_EXCLUSION	= 1u << 2,	/* claims reader-writer exclusion (null does not) */
	LAB_CAP_READ_TRYLOCK	= 1u << 3,	/* down_read_trylock is provided */
	LAB_CAP_WRITE_TRYLOCK	= 1u << 4,	/* down_write_trylock is provided */
	LAB_CAP_DOWNGRADE	= 1u << 5,	/* downgrade_write is provided */
	LAB_CAP_NOT_IN_ALL	= 1u << 6,	/* excluded from "all" (the busted negative control) */
	LAB_CAP_EVENTS		= 1u << 7,	/* feeds the lock event counters */
	/*
	 * Synchronises through atomics outside locks/atomic.h that
	 * ThreadSanitizer cannot see (ck's inline-assembly ck_pr_*): exempt
	 * from the TSan race checks, which would report false races.
	 */
	LAB_CAP_FOREIGN_ATOMICS	= 1u << 8,
	/* down_read_killable, down_write_killable, down_read_timed, down_write_timed are provided */
	LAB_CAP_KILLABLE	= 1u << 9,
	/*
	 * down_read by a thread that already holds the lock for read never
	 * waits for a queued writer (reader-preferring, or no exclusion).
	 * Without it a recursive read behind a queued writer deadlocks, as
	 * in the kernel (lockdep's recursive-read rule); POSIX allows the
	 * recursion, so the LD_PRELOAD library (harness/preload.c) absorbs it.
	 */
	LAB_CAP_READ_RECURSIVE	= 1u << 10,
	/*
	 * Synchronises outside locks/atomic.h and wait.h (glibc's own atomics
	 * and futex calls, ck_pr): the simulated build (--sim) cannot see or
	 * charge those accesses, so it refuses the variant, and "all" skips it.
	 */
	LAB_CAP_NO_SIM		= 1u << 11,
	/*
	 * Its state is the kernel's struct rw_semaphore first (count, then the
	 * rest in that version's order) and needs only 8-byte alignment, so it
	 * can live inside another structure at the offset the kernel has it
	 * (lab_lock_init_at(): the mmap_lock inside the mm_struct image).
	 */
	LAB_CAP_EMBED		= 1u << 12,
	/*
	 * LAB_CAP_EMBED, and its own fields (read-only knobs) are reached
	 * through lab_lock_side(), so an object of just the kernel's struct
	 * rw_semaphore (LAB_RWSEM_KERNEL_SIZE bytes) can hold it: objects packed
	 * at that stride, as v6.4's struct vma_lock in its kmem_cache
	 * (lab_lock_init_packed()).
	 */
	LAB_CAP_PACKED		= 1u << 13,
};

/*
 * The kernel's struct rw_semaphore without lock debugging (x86-64, v4.20 ..
 * v6.x: count, owner, osq, wait_lock, wait_list in each version's order).
 */
#define LAB_RWSEM_KERNEL_SIZE	40

struct lab_rwsem_conf;

struct lab_rwsem_ops {
	const char *name;		/* == file stem (with '_' -> '-'), the name users type */
	const char *summary;		/* one line for `rwlab list` */
	const char *cite;		/* kernel version/commit or paper it follows */
	unsigned caps;			/* enum lab_rwsem_caps */
	size_t size, align;		/* state size and alignment in bytes */
	/*
	 * LAB_CAP_EMBED: where the variant's own fields start in its state (0:
	 * at LAB_RWSEM_KERNEL_SIZE). The bytes between the kernel's struct
	 * rw_semaphore and them are never touched after init, so an embedding
	 * structure's next fields may lie there (mm_struct's mmlist, mm_lock_seq).
	 */
	size_t own_off;
	const struct lab_knob *knobs;	/* NULL or NULL-name-terminated table */
	/*
	 * The lock events it counts, LAB_EVENTS(...) (events.h): its kernel
	 * version's that the port fires, then rwlab's; NULL: none (a lock
	 * with a lock knob counts its wrapped variant's too). LAB_CAP_EVENTS
	 * iff not NULL.
	 */
	const enum lab_event *events;

	/* Initialise @sem per @conf (knob values). Returns 0 or a negative errno. */
	int (*init)(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf);
	/* Release resources; the lock must be free and have no waiters. */
	void (*destroy)(struct lab_rwsem *sem);

	void (*down_read)(struct lab_rwsem *sem);
	int (*down_read_trylock)(struct lab_rwsem *sem);	/* 1 = got it; NULL = unsupported */
	void (*up_read)(struct lab_rwsem *sem);
	void (*down_write)(struct lab_rwsem *sem);
	int (*down_write_trylock)(struct lab_rwsem *sem);	/* 1 = got it; NULL = unsupported */
	void (*up_write)(struct lab_rwsem *sem);
	void (*downgrade_write)(struct lab_rwsem *sem);	/* NULL = unsupported */

	/*
	 * Killable and timed acquisition (NULL = unsupported, and then
	 * LAB_CAP_KILLABLE is clear; all four or none).
	 *
	 * down_read_killable / down_write_killable: the kernel's (v4.20 ..
	 * v6.18), each port following its version's cancellation path (the
	 * out_nolock code). Return 0 with the lock held, or -EINTR without it
	 * when the caller has a fatal signal pending (wait.h
	 * lab_send_fatal_signal(), from any thread) at a point where that
	 * version checks signal_pending_state(): before each sleep, and in
	 * v5.3+ readers also after a wakeup. The fast paths do not check (an
	 * uncontended lock is taken even with a signal pending), as in the
	 * kernel. The caller clears the flag (lab_clear_fatal_signal()).
	 *
	 * down_read_timed / down_write_timed: no kernel counterpart; for the
	 * LD_PRELOAD library's pthread_rwlock_timedrdlock/timedwrlock (issue
	 * 16). @deadline_ns is absolute lab_clock_ns() time (CLOCK_MONOTONIC
	 * nanoseconds; the library converts the caller's CLOCK_REALTIME
	 * abstime). The deadline is handled exactly like a fatal signal that
	 * arrives at the deadline: same check points, same cancellation path,
	 * and sleeps end at the deadline. Returns 0 with the lock held,
	 * -ETIMEDOUT without it once the deadline passed, or -EINTR if a fatal
	 * signal came first. A deadline already past still takes a free lock
	 * (POSIX: "the validity of abstime need not be checked if the lock can
	 * be acquired immediately"); 0 never times out. Not for nesting: the
	 * calling thread has one deadline at a time.
	 *
	 * Threading as for down_read/down_write. glibc variants map both onto
	 * pthread_rwlock_clock{rd,wr}lock(CLOCK_MONOTONIC) in slices, checking
	 * the fatal flag between slices.
	 */
	int (*down_read_killable)(struct lab_rwsem *sem);
	int (*down_write_killable)(struct lab_rwsem *sem);
	int (*down_read_timed)(struct lab_rwsem *sem, uint64_t deadline_ns);
	int (*down_write_timed)(struct lab_rwsem *sem, uint64_t deadline_ns);

	/*
	 * check_unlocked: NULL, or checks that a lock nobody holds or waits for
	 * is back at its unlocked value (count, wait list). Returns 0, or -1
	 * with a one-line description in @msg. Torture calls it at the end.
	 */
	int (*check_unlocked)(struct lab_rwsem *sem, char *msg, size_t len);

	/*
	 * known_bug: NULL, or says whether a failed invariant check (@check,
	 * the "what" of LAB_RWSEM_CHECK) is a documented bug of the kernel
	 * version this port follows, with @conf's knobs (a knob may apply the
	 * fix). Returns a one-line description naming the fixing commits, or
	 * NULL when the failure is not the kernel's (then it is the port's).
	 */
	const char *(*known_bug)(const struct lab_rwsem_conf *conf, const char *check);
};

/* A variant chosen by the user, with its knob values. */
struct lab_rwsem_conf {
	const struct lab_rwsem_ops *ops;
	long knob[LAB_KNOBS_MAX];
	char label[LAB_SPEC_MAX];	/* "name" or "name:key=val,..." with non-default knobs */
};

/* A lock instance: what workloads hold (the mmap_lock, a directory's i_rwsem...). */
struct lab_lock {
	const struct lab_rwsem_ops *ops;
	struct lab_rwsem *sem;
};

/* ---- registry (locks/registry.c) -------------------------------------- */

/* All registered variants, NULL-terminated, in `rwlab list` order. */
extern const struct lab_rwsem_ops *const lab_rwsem_variants[];

struct lab_registry;
/* The variants as a plugin registry (locks/plugin.h). */
extern const struct lab_registry lab_rwsem_registry;

/* The variants as the values of LAB_KNOB_LOCK knobs (knob.h): lab_rwsem_index and lab_rwsem_by_index. */
extern const struct lab_knob_locks lab_rwsem_knob_locks;

/* Variant by exact name, or NULL. */
const struct lab_rwsem_ops *lab_rwsem_lookup(const char *name);
/* Index of a variant in lab_rwsem_variants[], or -1. */
int lab_rwsem_index(const char *name);
/* Variant at @idx, or NULL. */
const struct lab_rwsem_ops *lab_rwsem_by_index(int idx);
/* Comma-separated names; @with_hidden includes LAB_CAP_NOT_IN_ALL variants. */
void lab_rwsem_names(char *buf, size_t len, bool with_hidden);
/*
 * The front of a --sim command that parses -l itself (torture) calls this
 * with true before parsing: "all" and the valid-name lists of its messages
 * then leave out the variants the simulator refuses, as rwlab-sim's own do
 * (the refusal of one named stays rwlab-sim's). Not thread-safe: call it
 * from the command's parser, before any thread.
 */
void lab_rwsem_sim_names(bool on);
/* Does this build (or a front under --sim) leave @ops out of "all" and of the valid names? */
bool lab_rwsem_refused_here(const struct lab_rwsem_ops *ops);
/*
 * Can the LD_PRELOAD library (harness/preload.c) put a program's rwlocks on
 * @ops? It needs both trylocks (tryrdlock, trywrlock, the timed calls).
 * lab_rwsem_preload_names() - those variants, "a, b, c", every one the
 * preload and `rwlab exec -l` take by name (hidden ones included).
 */
bool lab_rwsem_preloadable(const struct lab_rwsem_ops *ops);
void lab_rwsem_preload_names(char *buf, size_t len);
/*
 * lab_rwsem_spec_unknown() - the NAME of @spec ("NAME[:key=val,...]") into
 * @name when it is no registered variant, for a caller whose message names
 * its own valid choices; false (and @name "") when it is one, or when @spec
 * is malformed (lab_rwsem_parse() says why).
 */
bool lab_rwsem_spec_unknown(const char *spec, char *name, size_t len);

/*
 * lab_rwsem_parse() - parse one spec "NAME[:key=val,...]" into @conf.
 * Returns 0, or -1 with a one-line message naming the valid choices in @err.
 */
int lab_rwsem_parse(const char *spec, struct lab_rwsem_conf *conf, char *err, size_t errlen);

/*
 * lab_rwsem_parse_list() - parse a -l/--lock argument: specs separated by
 * commas, "all" for every variant not marked LAB_CAP_NOT_IN_ALL. A
 * comma-separated token containing '=' but no ':' continues the previous
 * spec's knob list ("rwsem:wspin=0,handoff_timeout_us=1000,pthread").
 * Appends to @confs (capacity @max) from index *@n. Returns 0 or -1 + @err.
 */
int lab_rwsem_parse_list(const char *arg, struct lab_rwsem_conf *confs, int max, int *n,
			 char *err, size_t errlen);

/*
 * lab_rwsem_conf_foreign_atomics() - true when a lock built from @conf
 * synchronises through atomics ThreadSanitizer cannot see: its variant has
 * LAB_CAP_FOREIGN_ATOMICS, or a variant it wraps through a lock knob does
 * (bravo:base=ck-rwlock).
 */
bool lab_rwsem_conf_foreign_atomics(const struct lab_rwsem_conf *conf);

/*
 * lab_lock_init() - allocate (aligned) and init a lock per @conf.
 * Returns 0 or a negative errno (-ENOMEM, or init's error).
 * lab_lock_destroy() - destroy and free it; the lock must be free.
 */
int lab_lock_init(struct lab_lock *l, const struct lab_rwsem_conf *conf);
void lab_lock_destroy(struct lab_lock *l);
/*
 * lab_lock_init_at() - init a lock per @conf in the caller's memory @mem of
 * @room bytes, as the kernel embeds a struct rw_semaphore in a larger
 * structure (mm_struct's mmap_lock); lab_lock_destroy_at() destroys it
 * and leaves @mem to the caller. @mem must be 8-byte aligned and the variant must
 * have LAB_CAP_EMBED. Returns 0, -EINVAL (no LAB_CAP_EMBED, misaligned),
 * -ENOSPC (@room smaller than the variant's state) or init's error.
 * Not thread-safe against users of @mem.
 */
int lab_lock_init_at(struct lab_lock *l, const struct lab_rwsem_conf *conf, void *mem, size_t room);
void lab_lock_destroy_at(struct lab_lock *l);
/*
 * lab_lock_embed_free() - may an embedding structure use bytes [@off, @off +
 * @len) of a lock of @ops embedded at its offset 0 (beyond the variant's
 * state, or between the kernel's rw_semaphore and the variant's own fields)?
 */
bool lab_lock_embed_free(const struct lab_rwsem_ops *ops, size_t off, size_t len);

/*
 * Packed locks: one area of objects of LAB_RWSEM_KERNEL_SIZE bytes each,
 * at least that far apart (the model's kmem_cache of v6.4's struct
 * vma_lock, workloads/kmem_cache.c: packed at that stride in each slab page). An object there holds the kernel's rw_semaphore alone;
 * the variant's own fields live in the object's side record, a separate
 * line-aligned allocation of 256 bytes (room for the largest LAB_CAP_PACKED
 * state, checked at init) that lab_lock_side() finds from the object's address (plain memory: the knobs are read-only after
 * init, and the kernel compiles them in).
 *
 * lab_lock_packed_area() - declare the area [@base, @base + @len) (once;
 * a tail of @len shorter than LAB_RWSEM_KERNEL_SIZE holds no object). Returns 0, -EBUSY (another area
 * is declared) or -ENOMEM.
 * lab_lock_init_packed() - init a lock per @conf in the area's object @obj.
 * Returns 0, -EINVAL (no LAB_CAP_PACKED, @obj not in the area),
 * -ENOMEM or init's error. lab_lock_destroy_at() destroys it; @obj and its
 * side record stay the area's.
 */
int lab_lock_packed_area(void *base, size_t len);
int lab_lock_init_packed(struct lab_lock *l, const struct lab_rwsem_conf *conf, void *obj);
/* Is @sem an object of the packed area? */
bool lab_lock_is_packed(const void *sem);

struct lab_lock_packed_area {
	uintptr_t base;			/* the first object */
	size_t len;			/* bytes of objects (0: no area) */
	void **side;			/* per object: its side record, or NULL */
} __attribute__((aligned(LAB_CACHELINE)));	/* read by every knob lookup: a line no store shares */
extern struct lab_lock_packed_area lab_lock_packed;

/*
 * lab_lock_side() - the side record of a packed object @sem (the variant's
 * whole state, of which the own fields are used), or NULL when @sem is not
 * packed: its own fields follow it in its state.
 */
static inline void *lab_lock_side(const void *sem)
{
	uintptr_t d = (uintptr_t)sem - lab_lock_packed.base;

	return d < lab_lock_packed.len ? lab_lock_packed.side[d / LAB_RWSEM_KERNEL_SIZE] : NULL;
}

/* Dispatch helpers for workloads: one indirect call each. */
static inline void lab_down_read(const struct lab_lock *l) { l->ops->down_read(l->sem); }
static inline void lab_up_read(const struct lab_lock *l) { l->ops->up_read(l->sem); }
static inline void lab_down_write(const struct lab_lock *l) { l->ops->down_write(l->sem); }
static inline void lab_up_write(const struct lab_lock *l) { l->ops->up_write(l->sem); }
static inline int lab_down_read_trylock(const struct lab_lock *l)
{
	return l->ops->down_read_trylock(l->sem);
}
static inline int lab_down_write_trylock(const struct lab_lock *l)
{
	return l->ops->down_write_trylock(l->sem);
}
static inline void lab_downgrade_write(const struct lab_lock *l) { l->ops->downgrade_write(l->sem); }
static inline int lab_down_read_killable(const struct lab_lock *l) { return l->ops->down_read_killable(l->sem); }
static inline int lab_down_write_killable(const struct lab_lock *l) { return l->ops->down_write_killable(l->sem); }
static inline int lab_down_read_timed(const struct lab_lock *l, uint64_t deadline_ns)
{
	return l->ops->down_read_timed(l->sem, deadline_ns);
}
static inline int lab_down_write_timed(const struct lab_lock *l, uint64_t deadline_ns)
{
	return l->ops->down_write_timed(l->sem, deadline_ns);
}

/* ---- debug checks (locks/debug.c) ----------------------------------------
 *
 * DEBUG_RWSEMS_WARN_ON-style checks inside the kernel ports. Built with
 * -Ddebug_checks=true they are always on (owner on up_write, count
 * underflow, wait-list invariants at every wait_lock release). Otherwise
 * only the wait_lock-release invariants exist, off until a caller sets
 * lab_rwsem_checks (rwlab torture --kill does). A failed check prints one
 * line (the first 20) and counts in lab_rwsem_warnings; it does not abort,
 * as the kernel's WARN does not.
 */
extern int lab_rwsem_checks;			/* runtime switch for the wait_lock invariants */
extern unsigned long lab_rwsem_warnings;	/* failed checks so far (atomic) */
void lab_rwsem_warn(const char *variant, const char *what, long count, const char *file, int line);

/*
 * The warnings of one window (rwlab torture's run): lab_rwsem_warn_log_start()
 * opens it (no lock in use: call it before the threads start);
 * lab_rwsem_warn_log_first() gives the window's first warning after the
 * threads stopped (joined): 1 with @variant, @what, @count and @ns (its
 * lab_clock_ns() time: simulated under --sim) set, 0 if none.
 */
void lab_rwsem_warn_log_start(void);
int lab_rwsem_warn_log_first(const char **variant, const char **what, long *count, uint64_t *ns);
