/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ck-rwlock, ck-pflock, ck-tflock, ck-brlock - Concurrency Kit's reader-writer
 * spinlocks behind the rwsem interface.
 *
 * Citation: Concurrency Kit 0.7 (concurrencykit/ck), include/ck_rwlock.h,
 * ck_pflock.h (phase-fair; Brandenburg & Anderson, "Spin-based reader-writer
 * synchronization for multiprocessor real-time systems", RTSJ 2010),
 * ck_tflock.h (task-fair ticket RW lock; Mellor-Crummey & Scott, PPoPP 1991),
 * ck_brlock.h (big-reader lock, per-reader records; Linux brlock lineage).
 *
 * Design summary (ck's algorithms; this file only adapts them):
 * - ck-rwlock: one writer word and one reader count; readers back off while
 *   a writer holds or wants the lock (writer-preferring); write_downgrade is
 *   ck_rwlock_write_downgrade(); every waiter spins, nobody sleeps;
 * - ck-pflock: phase-fair: reader and writer phases alternate, a reader waits
 *   at most one writer phase; no trylock, no downgrade;
 * - ck-tflock: task-fair (FIFO by ticket across readers and writers); no
 *   trylock, no downgrade;
 * - ck-brlock: each reader thread has its own record on the lock (a per-thread
 *   counter on its own cache line); readers touch only their record, a writer
 *   takes the writer word and then waits for every record to drain. The
 *   adapter registers the calling thread's record on its first down_read of a
 *   given lock, keyed by
 *   lab_current()->id (pushing it onto ck's reader list with a CAS, see
 *   ckbr_register), and frees all records in destroy(). No downgrade.
 *   Each thread keeps the record of the brlock it last read-locked in a
 *   thread-local slot (the lock's init generation and the record), so a
 *   read pair adds one compare to ck's own pair: no lab_current() and no
 *   per-lock table on the hot path (ck's callers hold their reader record
 *   themselves).
 *
 * These use ck's own atomics (ck_pr, inline assembly), not locks/atomic.h:
 * ThreadSanitizer cannot see them, so they carry LAB_CAP_FOREIGN_ATOMICS and
 * the TSan checks exempt them (they are still tortured for exclusion).
 */
#include <ck_brlock.h>
#include <ck_pflock.h>
#include <ck_rwlock.h>
#include <ck_tflock.h>
#include <errno.h>
#include <stdlib.h>

#include "events.h"
#include "rwsem.h"
#include "wait.h"

#define CK_CAPS (LAB_CAP_SPINS | LAB_CAP_EXCLUSION | LAB_CAP_FOREIGN_ATOMICS | LAB_CAP_NO_SIM)

/* ---- ck-rwlock -------------------------------------------------------- */

static int ckrw_init(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf)
{
	(void)conf;
	ck_rwlock_init((ck_rwlock_t *)sem);
	return 0;
}

static void ckrw_down_read(struct lab_rwsem *sem) { ck_rwlock_read_lock((ck_rwlock_t *)sem); }
static int ckrw_down_read_trylock(struct lab_rwsem *sem) { return ck_rwlock_read_trylock((ck_rwlock_t *)sem); }
static void ckrw_up_read(struct lab_rwsem *sem) { ck_rwlock_read_unlock((ck_rwlock_t *)sem); }
static void ckrw_down_write(struct lab_rwsem *sem) { ck_rwlock_write_lock((ck_rwlock_t *)sem); }
static int ckrw_down_write_trylock(struct lab_rwsem *sem) { return ck_rwlock_write_trylock((ck_rwlock_t *)sem); }
static void ckrw_up_write(struct lab_rwsem *sem) { ck_rwlock_write_unlock((ck_rwlock_t *)sem); }
static void ckrw_downgrade_write(struct lab_rwsem *sem) { ck_rwlock_write_downgrade((ck_rwlock_t *)sem); }

const struct lab_rwsem_ops lab_rwsem_ck_rwlock_ops = {
	.name = "ck-rwlock",
	.summary = "ck_rwlock: centralized writer-preferring RW spinlock with write_downgrade",
	.cite = "Concurrency Kit 0.7 include/ck_rwlock.h",
	.caps = CK_CAPS | LAB_CAP_READ_TRYLOCK | LAB_CAP_WRITE_TRYLOCK | LAB_CAP_DOWNGRADE,
	.size = sizeof(ck_rwlock_t),
	.align = LAB_CACHELINE,
	.init = ckrw_init,
	.down_read = ckrw_down_read,
	.down_read_trylock = ckrw_down_read_trylock,
	.up_read = ckrw_up_read,
	.down_write = ckrw_down_write,
	.down_write_trylock = ckrw_down_write_trylock,
	.up_write = ckrw_up_write,
	.downgrade_write = ckrw_downgrade_write,
};

/* ---- ck-pflock -------------------------------------------------------- */

static int ckpf_init(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf)
{
	(void)conf;
	ck_pflock_init((ck_pflock_t *)sem);
	return 0;
}

static void ckpf_down_read(struct lab_rwsem *sem) { ck_pflock_read_lock((ck_pflock_t *)sem); }
static void ckpf_up_read(struct lab_rwsem *sem) { ck_pflock_read_unlock((ck_pflock_t *)sem); }
static void ckpf_down_write(struct lab_rwsem *sem) { ck_pflock_write_lock((ck_pflock_t *)sem); }
static void ckpf_up_write(struct lab_rwsem *sem) { ck_pflock_write_unlock((ck_pflock_t *)sem); }

const struct lab_rwsem_ops lab_rwsem_ck_pflock_ops = {
	.name = "ck-pflock",
	.summary = "ck_pflock: phase-fair RW spinlock (readers wait at most one writer phase)",
	.cite = "Concurrency Kit 0.7 include/ck_pflock.h; Brandenburg & Anderson, RTSJ 2010",
	.caps = CK_CAPS,
	.size = sizeof(ck_pflock_t),
	.align = LAB_CACHELINE,
	.init = ckpf_init,
	.down_read = ckpf_down_read,
	.up_read = ckpf_up_read,
	.down_write = ckpf_down_write,
	.up_write = ckpf_up_write,
};

/* ---- ck-tflock -------------------------------------------------------- */

static int cktf_init(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf)
{
	(void)conf;
	ck_tflock_ticket_init((ck_tflock_ticket_t *)sem);
	return 0;
}

static void cktf_down_read(struct lab_rwsem *sem) { ck_tflock_ticket_read_lock((ck_tflock_ticket_t *)sem); }
static void cktf_up_read(struct lab_rwsem *sem) { ck_tflock_ticket_read_unlock((ck_tflock_ticket_t *)sem); }
static void cktf_down_write(struct lab_rwsem *sem) { ck_tflock_ticket_write_lock((ck_tflock_ticket_t *)sem); }
static void cktf_up_write(struct lab_rwsem *sem) { ck_tflock_ticket_write_unlock((ck_tflock_ticket_t *)sem); }

const struct lab_rwsem_ops lab_rwsem_ck_tflock_ops = {
	.name = "ck-tflock",
	.summary = "ck_tflock: task-fair ticket RW spinlock (FIFO across readers and writers)",
	.cite = "Concurrency Kit 0.7 include/ck_tflock.h; Mellor-Crummey & Scott, PPoPP 1991",
	.caps = CK_CAPS,
	.size = sizeof(ck_tflock_ticket_t),
	.align = LAB_CACHELINE,
	.init = cktf_init,
	.down_read = cktf_down_read,
	.up_read = cktf_up_read,
	.down_write = cktf_down_write,
	.up_write = cktf_up_write,
};

/* ---- ck-brlock -------------------------------------------------------- */

struct ckbr_reader {
	ck_brlock_reader_t r;
} __lab_cacheline_aligned;

struct ckbr_rwsem;

/*
 * Generations of ck-brlock inits (0: none; unique per init, so a generation
 * names one lock even when its address is reused), and each thread's
 * last-used (generation, record). initial-exec: the hot path reads it with one
 * %fs-relative load instead of a TLS descriptor call (the static libraries are
 * position-independent; the preload library is loaded at start-up, where
 * static TLS is available).
 */
static uint64_t ckbr_gen_next;
static __thread struct {
	uint64_t gen;
	ck_brlock_reader_t *rec;
} ckbr_mine __attribute__((tls_model("initial-exec")));

struct ckbr_rwsem {
	ck_brlock_t br;
	uint64_t gen;		/* unique per init: what a thread's cached record is keyed by */
	/* Per-thread reader records, indexed by lab_current()->id; only that thread writes its slot. */
	struct ckbr_reader *reader[LAB_MAX_TASKS];
};

static int ckbr_init(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf)
{
	struct ckbr_rwsem *b = (struct ckbr_rwsem *)sem;

	(void)conf;
	ck_brlock_init(&b->br);
	b->gen = __atomic_add_fetch(&ckbr_gen_next, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < LAB_MAX_TASKS; i++)
		b->reader[i] = NULL;
	return 0;
}

static void ckbr_destroy(struct lab_rwsem *sem)
{
	struct ckbr_rwsem *b = (struct ckbr_rwsem *)sem;

	for (int i = 0; i < LAB_MAX_TASKS; i++) {
		free(b->reader[i]);
		b->reader[i] = NULL;
	}
}

/*
 * Register the calling thread's reader record without ck_brlock_read_register():
 * that takes the write side and so waits for every reader to leave, which
 * would make a thread's first down_read wait for readers already inside (two
 * readers could not coexist). Instead the record is pushed onto ck's reader
 * list with a CAS. That is safe against a writer scanning the list at the
 * same moment: the writer sets br->writer before it loads the list head, and
 * a reader sets its count before it loads br->writer (both fenced), so either
 * the writer's scan sees the new record or the new reader sees the writer and
 * backs off. Records are only removed in destroy(), with no thread left.
 */
static __lab_cold ck_brlock_reader_t *ckbr_register(struct ckbr_rwsem *b, int id)
{
	struct ckbr_reader *rd;
	struct ck_brlock_reader *head;

	if (posix_memalign((void **)&rd, LAB_CACHELINE, sizeof(*rd)))
		abort();
	rd->r.n_readers = 0;
	rd->r.previous = NULL;
	do {
		head = ck_pr_load_ptr(&b->br.readers);
		rd->r.next = head;
	} while (!ck_pr_cas_ptr(&b->br.readers, head, &rd->r));
	lockevent_inc(brlock_register);
	b->reader[id] = rd;
	return &rd->r;
}

/* The calling thread's record on @b, from the table (registering it if new); caches it. */
static __lab_noinline ck_brlock_reader_t *ckbr_lookup(struct ckbr_rwsem *b)
{
	int id = lab_current()->id;
	ck_brlock_reader_t *r = b->reader[id] != NULL ? &b->reader[id]->r : ckbr_register(b, id);

	ckbr_mine.gen = b->gen;
	ckbr_mine.rec = r;
	return r;
}

/*
 * The hot paths below test the thread's cached record inline and leave the
 * miss to a function of its own, called last, so the hit path needs no
 * callee-saved register (no push/pop around ck's xchg).
 */
static __lab_noinline void ckbr_down_read_miss(struct ckbr_rwsem *b)
{
	ck_brlock_read_lock(&b->br, ckbr_lookup(b));
}

static void ckbr_down_read(struct lab_rwsem *sem)
{
	struct ckbr_rwsem *b = (struct ckbr_rwsem *)sem;

	if (lab_unlikely(ckbr_mine.gen != b->gen)) {
		ckbr_down_read_miss(b);
		return;
	}
	ck_brlock_read_lock(&b->br, ckbr_mine.rec);
}

static int ckbr_down_read_trylock(struct lab_rwsem *sem)
{
	struct ckbr_rwsem *b = (struct ckbr_rwsem *)sem;
	ck_brlock_reader_t *r = ckbr_mine.gen == b->gen ? ckbr_mine.rec : ckbr_lookup(b);

	/* factor 1: give up at the first sign of a writer (kernel trylock semantics). */
	return ck_brlock_read_trylock(&b->br, r, 1);
}

static __lab_noinline void ckbr_up_read_miss(struct ckbr_rwsem *b)
{
	ck_brlock_read_unlock(ckbr_lookup(b));
}

static void ckbr_up_read(struct lab_rwsem *sem)
{
	struct ckbr_rwsem *b = (struct ckbr_rwsem *)sem;

	if (lab_unlikely(ckbr_mine.gen != b->gen)) {
		ckbr_up_read_miss(b);
		return;
	}
	ck_brlock_read_unlock(ckbr_mine.rec);
}

static void ckbr_down_write(struct lab_rwsem *sem) { ck_brlock_write_lock(&((struct ckbr_rwsem *)sem)->br); }
static int ckbr_down_write_trylock(struct lab_rwsem *sem)
{
	return ck_brlock_write_trylock(&((struct ckbr_rwsem *)sem)->br, 1);
}
static void ckbr_up_write(struct lab_rwsem *sem) { ck_brlock_write_unlock(&((struct ckbr_rwsem *)sem)->br); }

const struct lab_rwsem_ops lab_rwsem_ck_brlock_ops = {
	.name = "ck-brlock",
	.summary = "ck_brlock: big-reader lock, one record per reader thread, writers scan them all",
	.cite = "Concurrency Kit 0.7 include/ck_brlock.h (big-reader lock)",
	.caps = CK_CAPS | LAB_CAP_READ_TRYLOCK | LAB_CAP_WRITE_TRYLOCK | LAB_CAP_EVENTS,
	.size = sizeof(struct ckbr_rwsem),
	.align = LAB_CACHELINE,
	.events = LAB_EVENTS(LAB_EV_brlock_register),
	.init = ckbr_init,
	.destroy = ckbr_destroy,
	.down_read = ckbr_down_read,
	.down_read_trylock = ckbr_down_read_trylock,
	.up_read = ckbr_up_read,
	.down_write = ckbr_down_write,
	.down_write_trylock = ckbr_down_write_trylock,
	.up_write = ckbr_up_write,
};
