/* SPDX-License-Identifier: MIT */
/*
 * locks/rwsem.h - the reader-writer semaphore interface every variant implements.
 *
 * The verbs are the kernel's (include/linux/rwsem.h, v4.20..v6.18):
 *
 *   down_read, down_read_trylock, up_read,
 *   down_write, down_write_trylock, up_write, downgrade_write
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
#include "compiler.h"
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
	/*
	 * Synchronises outside locks/atomic.h and wait.h (glibc's own atomics
	 * and futex calls, ck_pr): the simulated build (--sim) cannot see or
	 * charge those accesses, so it refuses the variant, and "all" skips it.
	 */
	LAB_CAP_NO_SIM		= 1u << 9,
};

struct lab_rwsem_conf;

struct lab_rwsem_ops {
	const char *name;		/* == file stem (with '_' -> '-'), the name users type */
	const char *summary;		/* one line for `rwlab list` */
	const char *cite;		/* kernel version/commit or paper it follows */
	unsigned caps;			/* enum lab_rwsem_caps */
	size_t size, align;		/* state size and alignment in bytes */
	const struct lab_knob *knobs;	/* NULL or NULL-name-terminated table */

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

/* Variant by exact name, or NULL. */
const struct lab_rwsem_ops *lab_rwsem_lookup(const char *name);
/* Index of a variant in lab_rwsem_variants[], or -1. */
int lab_rwsem_index(const char *name);
/* Variant at @idx, or NULL. */
const struct lab_rwsem_ops *lab_rwsem_by_index(int idx);
/* Comma-separated names; @with_hidden includes LAB_CAP_NOT_IN_ALL variants. */
void lab_rwsem_names(char *buf, size_t len, bool with_hidden);

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
