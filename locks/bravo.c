/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bravo - BRAVO reader bias over any other variant.
 *
 * Citation: Dave Dice and Alex Kogan, "BRAVO - Biased Locking for
 * Reader-Writer Locks", USENIX ATC 2019 (arXiv 1810.01553). The table size
 * (4096) and the inhibit factor (N = 9) are the values of
 * the paper's public implementations.
 *
 * Design summary:
 * - a wrapper: the state holds the base lock (any registered variant with
 *   exclusion and both trylocks, knob `base`) plus BRAVO's two fields, RBias
 *   and InhibitUntil;
 * - one visible-readers table for the whole process, shared by every bravo
 *   lock and thread: a dense array of lock pointers (8 bytes a slot, no
 *   padding, as in the paper: readers of one lock spread over the table);
 * - down_read, fast path: if RBias is set, hash (lock address, thread) to a
 *   slot and CAS it from NULL to the lock; then load RBias again: still set,
 *   the read lock is held without touching the base; cleared (a writer is
 *   revoking), empty the slot and fall back. A busy slot (another lock or
 *   thread hashed there) also falls back;
 * - down_read, slow path: the base's down_read; then, if RBias is clear and
 *   now >= InhibitUntil, set RBias (bias comes back after the inhibit time);
 * - up_read: empty our slot if this read went through it, else the base's
 *   up_read (a thread-local bitmap of the slots this thread filled tells);
 * - down_write: the base's down_write, then, if RBias is set, revoke: clear
 *   RBias, full barrier, scan the table and wait (spinning, with a
 *   sched_yield every 128 polls) for each slot holding this lock to empty;
 *   InhibitUntil = now + N x (time the revocation took), N = inhibit_factor.
 *   Writers thus pay at most about 1/(N+1) of their time revoking;
 * - up_write: the base's up_write;
 * - down_read_trylock: the fast path, else the base's trylock; down_write_trylock:
 *   the base's trylock, and if bias is on, one scan without waiting: a slot
 *   holding this lock makes it fail, and RBias is set again before the base
 *   is released (RBias clear must mean "no reader in the table", which the
 *   next down_write relies on when it skips the revocation);
 * - no downgrade_write. It would be correct (a writer has revoked the bias,
 *   so no fast reader is inside; after the base's downgrade the thread holds
 *   an ordinary base read lock and up_read finds no slot of its own), but
 *   capabilities belong to the variant, not to the instance, and many bases
 *   have no downgrade (pthread, pthread-wp, ck-brlock), so bravo cannot offer
 *   one for every base. The trylocks it does pass through (every base worth
 *   wrapping here has them), so bases without them (ck-pflock, ck-tflock,
 *   percpu-rwsem), bravo itself and bases without real exclusion (null,
 *   busted) are refused when the spec is parsed (the base knob's caps), and
 *   again by init() for a conf built without the parser.
 *
 * Barrier pairing: the reader's CAS on its slot (fully ordered) comes before
 * its second load of RBias; the writer's store clearing RBias comes before
 * its smp_mb() and its loads of the slots. So either the writer sees the
 * slot (and waits) or the reader sees RBias clear (and backs off). Releasing
 * a slot is a store-release that the revoking writer's load-acquire pairs
 * with; a slow reader sets RBias with a release that the fast reader's
 * acquire re-load pairs with (the last writer's section, seen through the
 * base, is visible to fast readers).
 *
 * What user space cannot model: "now" is CLOCK_MONOTONIC (the paper reads
 * the TSC); a thread is identified by lab_current()->id; the table is a
 * static array of BRAVO_TABLE_MAX slots of which a lock uses the first
 * table_slots (locks with different sizes share the prefix); the base is
 * reached through its ops table (one more indirect call than a compiled-in
 * base).
 *
 * State layout (struct bravo_rwsem, one cache line):
 *   rbias          RBias: 1 = readers may use the table
 *   slot_mask      table_slots - 1 (table_slots a power of two)
 *   inhibit_until  InhibitUntil: lab_clock_ns() before which bias stays off
 *   inhibit_factor N
 *   base           struct lab_lock of the base variant (its own allocation)
 * Visible-readers slot: NULL = free, else the bravo_rwsem of the reader.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>

#include "atomic.h"
#include "err.h"
#include "events.h"
#include "rwsem.h"
#include "wait.h"

extern const struct lab_rwsem_ops lab_rwsem_bravo_ops;

/* Registry indices, in variants.h order, for the `base` knob's default. */
enum bravo_variant_index {
#define LAB_VARIANT(sym) BRAVO_IDX_##sym,
#include "variants.h"
#undef LAB_VARIANT
};

/* The default base: the mainline "rwsem" (BRAVO_IDX_ + its ops symbol). */
#define BRAVO_DEFAULT_BASE BRAVO_IDX_lab_rwsem_mainline_ops

#define BRAVO_TABLE_MAX 65536

struct bravo_rwsem {
	uint32_t rbias;
	uint32_t slot_mask;
	uint64_t inhibit_until;
	uint64_t inhibit_factor;
	struct lab_lock base;
} __lab_cacheline_aligned;

/* The visible-readers table: one for the process. */
static struct bravo_rwsem *bravo_visible_readers[BRAVO_TABLE_MAX] __lab_cacheline_aligned;

/* Slots this thread filled (private to the thread: plain accesses). */
#if LAB_SIM
/* Per simulated task (tasks share one host thread): see lab_sim_tls_register(). */
static uint64_t bravo_mine_sim[LAB_MAX_TASKS][BRAVO_TABLE_MAX / 64];
#define bravo_mine (bravo_mine_sim[sim_cur_id])

__attribute__((constructor)) static void bravo_sim_init(void)
{
	lab_sim_tls_register(bravo_mine_sim, sizeof(bravo_mine_sim[0]));
}
#else
static __thread uint64_t bravo_mine[BRAVO_TABLE_MAX / 64];
#endif

enum { K_BASE, K_INHIBIT_FACTOR, K_TABLE_SLOTS };

static const struct lab_knob bravo_knobs[] = {
	[K_BASE] = { .name = "base", .type = LAB_KNOB_LOCK, .def = BRAVO_DEFAULT_BASE,
		     .caps = LAB_CAP_EXCLUSION | LAB_CAP_READ_TRYLOCK | LAB_CAP_WRITE_TRYLOCK,
		     .help = "the underlying lock (a variant with exclusion and both trylocks; its default knobs)" },
	[K_INHIBIT_FACTOR] = { .name = "inhibit_factor", .type = LAB_KNOB_INT, .def = 9, .min = 0, .max = 1000,
			       .help = "N: bias stays off for N x the revocation time (paper: 9)" },
	[K_TABLE_SLOTS] = { .name = "table_slots", .type = LAB_KNOB_INT, .def = 4096, .min = 64,
			    .max = BRAVO_TABLE_MAX, .pow2 = true,
			    .help = "visible-readers slots this lock hashes into, a power of two (paper: 4096)" },
	{ .name = NULL },
};

/* Mix (lock address, thread id) into a slot index (a 64-bit finalizer, then mask). */
static inline uint32_t bravo_hash(const struct bravo_rwsem *b, int tid)
{
	uint64_t x = (uint64_t)(uintptr_t)b ^ ((uint64_t)(tid + 1) * 0x9e3779b97f4a7c15ull);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (uint32_t)x & READ_ONCE(b->slot_mask);
}

/* Reader fast path: publish ourselves in the table while the bias holds. */
static inline bool bravo_read_fast(struct bravo_rwsem *b)
{
	struct bravo_rwsem *expect = NULL;
	uint32_t i;

	if (!READ_ONCE(b->rbias))
		return false;
	i = bravo_hash(b, lab_current()->id);
	/* Fully ordered: the slot store precedes the RBias re-load (pairs with bravo_revoke's smp_mb). */
	if (!atomic_try_cmpxchg(&bravo_visible_readers[i], &expect, b)) {
		lockevent_inc(bravo_slot_busy);
		return false;
	}
	/* Acquire: pairs with bravo_rebias()'s release. */
	if (lab_likely(smp_load_acquire(&b->rbias))) {
		bravo_mine[i >> 6] |= 1ull << (i & 63);
		lockevent_inc(bravo_fast_read);
		return true;
	}
	/* A writer is revoking: withdraw (it may be waiting for this slot). */
	smp_store_release(&bravo_visible_readers[i], NULL);
	lockevent_inc(bravo_fast_abort);
	return false;
}

/* Caller holds the base for read: no writer is inside, RBias cannot be cleared now. */
static inline void bravo_rebias(struct bravo_rwsem *b)
{
	if (READ_ONCE(b->rbias) || lab_clock_ns() < READ_ONCE(b->inhibit_until))
		return;
	/* Release: fast readers that see RBias see what the base showed us. */
	smp_store_release(&b->rbias, 1);
	lockevent_inc(bravo_rebias);
}

static void bravo_revoke_done(struct bravo_rwsem *b, uint64_t start, unsigned waited)
{
	uint64_t end = lab_clock_ns();

	WRITE_ONCE(b->inhibit_until, end + (end - start) * READ_ONCE(b->inhibit_factor));
	lockevent_inc(bravo_revoke);
	lockevent_add(bravo_revoke_wait, waited);
	lockevent_add(bravo_revoke_ns, end - start);
}

/* Caller holds the base for write and saw RBias set. */
static __lab_cold __lab_noinline void bravo_revoke(struct bravo_rwsem *b)
{
	uint32_t n = READ_ONCE(b->slot_mask) + 1;
	uint64_t start = lab_clock_ns();
	unsigned waited = 0;

	WRITE_ONCE(b->rbias, 0);
	/* Store-load: RBias clear before we look at the slots (pairs with the reader's CAS). */
	smp_mb();
	for (uint32_t i = 0; i < n; i++) {
		unsigned polls = 0;

		/* Acquire: pairs with the reader's release of its slot. */
		if (smp_load_acquire(&bravo_visible_readers[i]) != b)
			continue;
		waited++;
		while (smp_load_acquire(&bravo_visible_readers[i]) == b) {
			cpu_relax();
			if (++polls % 128 == 0)
				sched_yield();
		}
	}
	bravo_revoke_done(b, start, waited);
}

/* down_write_trylock's revocation: fails instead of waiting for a fast reader. */
static bool bravo_try_revoke(struct bravo_rwsem *b)
{
	uint32_t n = READ_ONCE(b->slot_mask) + 1;
	uint64_t start = lab_clock_ns();

	WRITE_ONCE(b->rbias, 0);
	/* As in bravo_revoke. */
	smp_mb();
	for (uint32_t i = 0; i < n; i++) {
		if (smp_load_acquire(&bravo_visible_readers[i]) == b) {
			/*
			 * A fast reader is inside: put the bias back before the
			 * base is released. RBias == 0 must mean "no fast reader",
			 * or the next writer would skip the revocation.
			 */
			smp_store_release(&b->rbias, 1);
			return false;
		}
	}
	bravo_revoke_done(b, start, 0);
	return true;
}

static int bravo_init(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf)
{
	struct bravo_rwsem *b = (struct bravo_rwsem *)sem;
	const struct lab_rwsem_ops *bops = lab_rwsem_by_index((int)conf->knob[K_BASE]);
	long slots = conf->knob[K_TABLE_SLOTS];
	struct lab_rwsem_conf bconf;
	char err[256];
	int r;

	if (!bops || bops == &lab_rwsem_bravo_ops) {
		lab_err("bravo: base must be another variant, not bravo itself");
		return -EINVAL;
	}
	if (!(bops->caps & LAB_CAP_EXCLUSION) || (bops->caps & LAB_CAP_NOT_IN_ALL)) {
		lab_err("bravo: base '%s' does not exclude (a negative control or null)", bops->name);
		return -EINVAL;
	}
	if (!bops->down_read_trylock || !bops->down_write_trylock) {
		lab_err("bravo: base '%s' lacks a trylock; bravo passes both through, so it needs a base that has them",
			bops->name);
		return -EINVAL;
	}
	if (slots & (slots - 1)) {
		lab_err("bravo: table_slots=%ld is not a power of two", slots);
		return -EINVAL;
	}
	if (lab_rwsem_parse(bops->name, &bconf, err, sizeof(err))) {
		lab_err("bravo: %s", err);
		return -EINVAL;
	}
	r = lab_lock_init(&b->base, &bconf);
	if (r)
		return r;
	WRITE_ONCE(b->rbias, 0);	/* the first slow-path reader turns the bias on */
	WRITE_ONCE(b->slot_mask, (uint32_t)(slots - 1));
	WRITE_ONCE(b->inhibit_until, 0);
	WRITE_ONCE(b->inhibit_factor, (uint64_t)conf->knob[K_INHIBIT_FACTOR]);
	return 0;
}

static void bravo_destroy(struct lab_rwsem *sem)
{
	lab_lock_destroy(&((struct bravo_rwsem *)sem)->base);
}

static void bravo_down_read(struct lab_rwsem *sem)
{
	struct bravo_rwsem *b = (struct bravo_rwsem *)sem;

	if (bravo_read_fast(b))
		return;
	lab_down_read(&b->base);
	bravo_rebias(b);
}

static int bravo_down_read_trylock(struct lab_rwsem *sem)
{
	struct bravo_rwsem *b = (struct bravo_rwsem *)sem;

	if (bravo_read_fast(b))
		return 1;
	if (!lab_down_read_trylock(&b->base))
		return 0;
	bravo_rebias(b);
	return 1;
}

static void bravo_up_read(struct lab_rwsem *sem)
{
	struct bravo_rwsem *b = (struct bravo_rwsem *)sem;
	uint32_t i = bravo_hash(b, lab_current()->id);
	uint64_t bit = 1ull << (i & 63);

	if ((bravo_mine[i >> 6] & bit) && READ_ONCE(bravo_visible_readers[i]) == b) {
		bravo_mine[i >> 6] &= ~bit;
		/* Release: our critical section before the slot empties (pairs with the revoker's acquire). */
		smp_store_release(&bravo_visible_readers[i], NULL);
		return;
	}
	lab_up_read(&b->base);
}

static void bravo_down_write(struct lab_rwsem *sem)
{
	struct bravo_rwsem *b = (struct bravo_rwsem *)sem;

	lab_down_write(&b->base);
	if (READ_ONCE(b->rbias))
		bravo_revoke(b);
}

static int bravo_down_write_trylock(struct lab_rwsem *sem)
{
	struct bravo_rwsem *b = (struct bravo_rwsem *)sem;

	if (!lab_down_write_trylock(&b->base))
		return 0;
	if (READ_ONCE(b->rbias) && !bravo_try_revoke(b)) {
		lab_up_write(&b->base);
		return 0;
	}
	return 1;
}

static void bravo_up_write(struct lab_rwsem *sem)
{
	lab_up_write(&((struct bravo_rwsem *)sem)->base);
}

const struct lab_rwsem_ops lab_rwsem_bravo_ops = {
	.name = "bravo",
	.summary = "BRAVO reader bias over a base lock (knob base): global visible-readers table, "
		   "writers revoke and inhibit bias for N x revocation time",
	.cite = "Dice & Kogan, BRAVO - Biased Locking for Reader-Writer Locks, USENIX ATC'19",
	/* Revocation spins; the rest waits as the base does (default base: sleeps). */
	.caps = LAB_CAP_SLEEPS | LAB_CAP_SPINS | LAB_CAP_EXCLUSION | LAB_CAP_READ_TRYLOCK |
		LAB_CAP_WRITE_TRYLOCK | LAB_CAP_EVENTS,
	.size = sizeof(struct bravo_rwsem),
	.align = _Alignof(struct bravo_rwsem),
	.knobs = bravo_knobs,
	.events = LAB_EVENTS(/* and its base's (lab_rwsem_conf_events) */
			     LAB_EV_bravo_fast_read, LAB_EV_bravo_slot_busy, LAB_EV_bravo_fast_abort, LAB_EV_bravo_revoke,
			     LAB_EV_bravo_revoke_wait, LAB_EV_bravo_revoke_ns, LAB_EV_bravo_rebias),
	.init = bravo_init,
	.destroy = bravo_destroy,
	.down_read = bravo_down_read,
	.down_read_trylock = bravo_down_read_trylock,
	.up_read = bravo_up_read,
	.down_write = bravo_down_write,
	.down_write_trylock = bravo_down_write_trylock,
	.up_write = bravo_up_write,
	.downgrade_write = NULL,
};
