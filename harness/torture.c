/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "barrier.h"
#include "torture.h"
#include "wait.h"

#define PAYLOAD_WORDS	4
#define JIFFY_NS	4000000ull	/* one tick at HZ=250, the jiffy rwlab models */

struct torture_shared {
	struct lab_lock lock;
	int write_held;			/* locktorture lock_is_write_held */
	int read_held;			/* locktorture lock_is_read_held */
	struct lab_start start;		/* go and stop (barrier.h) */
	uint32_t paused;		/* stutter: 1 while the threads should pause */
	const struct lab_torture_opts *o;
	/* Plain words only the lock protects; on their own cache line. */
	unsigned long payload[PAYLOAD_WORDS] __lab_cacheline_aligned;
};

struct torture_thread {
	struct torture_shared *sh;
	struct lab_task *task;		/* published at start, for the killer */
	uint64_t eintr, etimedout;	/* cancelled acquisitions (kill mode) */
	int nrole;			/* threads sharing this one's role */
	/* Written only by the owner (WRITE_ONCE), read by the stat snapshots. */
	struct lab_torture_thread st;
	uint64_t downgrades, trylock_fail;
	uint64_t rng;
} __lab_cacheline_aligned;

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define bump(t, field) WRITE_ONCE((t)->field, (t)->field + 1)

/* ---- the protected payload ------------------------------------------------ */

/* Plain (volatile, not atomic) accesses: ThreadSanitizer checks them. */
static unsigned long payload_load(struct torture_shared *sh, int i)
{
	unsigned long v = *(volatile unsigned long *)&sh->payload[i];

	barrier();
	return v;
}

static void payload_store(struct torture_shared *sh, int i, unsigned long v)
{
	*(volatile unsigned long *)&sh->payload[i] = v;
	barrier();
}

/* Are all payload words equal? (A reader's view of a finished write.) */
static bool payload_consistent(struct torture_shared *sh)
{
	unsigned long v = payload_load(sh, 0);
	bool ok = true;

	for (int i = 1; i < PAYLOAD_WORDS; i++)
		ok &= payload_load(sh, i) == v;
	return ok;
}

/* Writer: check the payload is whole, then bump every word, one at a time. */
static bool payload_update(struct torture_shared *sh)
{
	unsigned long v = payload_load(sh, 0);
	bool ok = true;

	for (int i = 0; i < PAYLOAD_WORDS; i++) {
		ok &= payload_load(sh, i) == v;
		payload_store(sh, i, v + 1);
		cpu_relax();
	}
	return ok;
}

/* ---- the critical sections ------------------------------------------------ */

/*
 * Hold the lock: 1 in (n x 20000) yield the CPU (torture_preempt_schedule),
 * with long_hold set 1 in (n x 2000) hold @long_mult x long_hold, else
 * hold_loops of cpu_relax().
 */
static void hold(struct torture_thread *t, unsigned long long long_mult)
{
	const struct lab_torture_opts *o = t->sh->o;
	uint64_t n = (uint64_t)t->nrole;

	if (xorshift(&t->rng) % (n * 20000) == 0)
		sched_yield();
	if (o->long_hold_ns && xorshift(&t->rng) % (n * 2000) == 0) {
		lab_sleep_ns(long_mult * o->long_hold_ns);
		bump(t, st.long_holds);
		return;
	}
	lab_delay(o->hold_loops);
}

/* Inside a read hold (also after a downgrade): read_held up, checks, hold, down. */
static void read_section(struct torture_thread *t)
{
	struct torture_shared *sh = t->sh;

	atomic_fetch_add(&sh->read_held, 1);
	if (READ_ONCE(sh->write_held))
		bump(t, st.fail);
	if (!payload_consistent(sh))
		bump(t, st.fail);
	hold(t, 2);
	if (READ_ONCE(sh->write_held))
		bump(t, st.fail);
	if (!payload_consistent(sh))
		bump(t, st.fail);
	atomic_fetch_sub(&sh->read_held, 1);
}

static void stutter_wait(struct torture_shared *sh)
{
	uint32_t p;

	while ((p = smp_load_acquire(&sh->paused)) != 0 && !lab_start_must_stop(&sh->start))
		lab_futex_wait(&sh->paused, p, -1);
}

/*
 * Kill mode: a blocking acquisition through the killable verb (3 in 4) or
 * the timed one with a deadline 0..1 ms away (1 in 4). Returns true with the
 * lock held; false when the wait was cancelled (counted). The thread handles
 * its "signal" afterwards either way: the flag is cleared.
 */
static bool killable_acquire(struct torture_thread *t, bool write)
{
	const struct lab_lock *l = &t->sh->lock;
	uint64_t r = xorshift(&t->rng);
	int ret;

	if ((r & 3) == 0) {
		uint64_t deadline = lab_clock_ns() + (r >> 8) % 1000000;

		ret = write ? lab_down_write_timed(l, deadline) : lab_down_read_timed(l, deadline);
	} else {
		ret = write ? lab_down_write_killable(l) : lab_down_read_killable(l);
	}
	lab_clear_fatal_signal();
	if (ret == -EINTR)
		WRITE_ONCE(t->eintr, t->eintr + 1);
	else if (ret == -ETIMEDOUT)
		WRITE_ONCE(t->etimedout, t->etimedout + 1);
	else if (ret)
		bump(t, st.fail);	/* no other error exists */
	return ret == 0;
}

static bool kill_mode(const struct torture_shared *sh)
{
	return sh->o->kill && (sh->lock.ops->caps & LAB_CAP_KILLABLE);
}

static void writer_iteration(struct torture_thread *t)
{
	struct torture_shared *sh = t->sh;
	const struct lab_torture_opts *o = sh->o;
	const struct lab_rwsem_ops *ops = sh->lock.ops;
	uint64_t r = xorshift(&t->rng);

	if ((xorshift(&t->rng) & 0xfffff) == 0)
		lab_sleep_ns(JIFFY_NS);
	if (o->trylock && ops->down_write_trylock && (r & 7) == 0) {
		if (!lab_down_write_trylock(&sh->lock)) {
			t->trylock_fail++;
			return;
		}
	} else {
		uint64_t t0 = lab_clock_ns(), dt;

		if (kill_mode(sh)) {
			if (!killable_acquire(t, true))
				return;
		} else {
			lab_down_write(&sh->lock);
		}
		dt = lab_clock_ns() - t0;
		if (dt > t->st.acq_max_ns)
			WRITE_ONCE(t->st.acq_max_ns, dt);
		if (o->acq_writer_lim_ns && dt > o->acq_writer_lim_ns)
			bump(t, st.acq_over_lim);
	}
	if (atomic_xchg(&sh->write_held, 1) != 0)
		bump(t, st.fail);
	if (READ_ONCE(sh->read_held) != 0)
		bump(t, st.fail);
	if (!payload_update(sh))
		bump(t, st.fail);
	bump(t, st.acquired);
	hold(t, 10);
	if (READ_ONCE(sh->read_held) != 0)
		bump(t, st.fail);
	if (o->downgrade && ops->downgrade_write && ((r >> 3) & 3) == 0) {
		/* Clear write_held first: readers may enter once we downgrade. */
		atomic_xchg(&sh->write_held, 0);
		lab_downgrade_write(&sh->lock);
		read_section(t);
		lab_up_read(&sh->lock);
		t->downgrades++;
	} else {
		atomic_xchg(&sh->write_held, 0);
		lab_up_write(&sh->lock);
	}
}

static void reader_iteration(struct torture_thread *t)
{
	struct torture_shared *sh = t->sh;
	const struct lab_torture_opts *o = sh->o;
	uint64_t r = xorshift(&t->rng);

	if (o->trylock && sh->lock.ops->down_read_trylock && (r & 7) == 0) {
		if (!lab_down_read_trylock(&sh->lock)) {
			t->trylock_fail++;
			return;
		}
	} else if (kill_mode(sh)) {
		if (!killable_acquire(t, false))
			return;
	} else {
		lab_down_read(&sh->lock);
	}
	bump(t, st.acquired);
	read_section(t);
	lab_up_read(&sh->lock);
}

static void *torture_main(void *arg)
{
	struct torture_thread *t = arg;
	struct torture_shared *sh = t->sh;

	/* Release: the killer reads the task pointer with an acquire. */
	smp_store_release(&t->task, lab_current());
	if (!lab_start_arrive(&sh->start))
		return NULL;		/* a sibling could not be created */
	while (!lab_start_must_stop(&sh->start)) {
		if (t->st.writer)
			writer_iteration(t);
		else
			reader_iteration(t);
		stutter_wait(sh);
		lab_delay(sh->o->think_loops);
	}
	return NULL;
}

/* ---- statistics ----------------------------------------------------------- */

/* Totals and a per-thread copy, from the counters as they are now. */
static void collect(struct torture_thread *th, int n, struct lab_torture_result *res)
{
	res->rd_total = res->rd_max = res->rd_fail = 0;
	res->wr_total = res->wr_max = res->wr_fail = 0;
	res->rd_min = res->wr_min = UINT64_MAX;
	res->wr_acq_max_ns = res->wr_acq_over_lim = res->long_holds = 0;
	for (int i = 0; i < n; i++) {
		struct lab_torture_thread *s = &res->threads[i];
		bool w = th[i].st.writer;

		s->writer = w;
		s->acquired = READ_ONCE(th[i].st.acquired);
		s->fail = READ_ONCE(th[i].st.fail);
		s->acq_max_ns = READ_ONCE(th[i].st.acq_max_ns);
		s->acq_over_lim = READ_ONCE(th[i].st.acq_over_lim);
		s->long_holds = READ_ONCE(th[i].st.long_holds);

		*(w ? &res->wr_total : &res->rd_total) += s->acquired;
		*(w ? &res->wr_fail : &res->rd_fail) += s->fail;
		if (s->acquired < *(w ? &res->wr_min : &res->rd_min))
			*(w ? &res->wr_min : &res->rd_min) = s->acquired;
		if (s->acquired > *(w ? &res->wr_max : &res->rd_max))
			*(w ? &res->wr_max : &res->rd_max) = s->acquired;
		if (s->acq_max_ns > res->wr_acq_max_ns)
			res->wr_acq_max_ns = s->acq_max_ns;
		res->wr_acq_over_lim += s->acq_over_lim;
		res->long_holds += s->long_holds;
	}
	if (res->rd_min == UINT64_MAX)
		res->rd_min = 0;
	if (res->wr_min == UINT64_MAX)
		res->wr_min = 0;
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a < b ? a : b;

	return m < c ? m : c;
}

/*
 * The caller's thread for the duration: flips the stutter phase and calls
 * the stat callback on time.
 */
static void supervise(struct torture_shared *sh, struct torture_thread *th, int n,
		      struct lab_torture_result *res)
{
	const struct lab_torture_opts *o = sh->o;
	uint64_t now = lab_clock_ns(), end = now + o->duration_ns;
	uint64_t next_stat = o->stat_interval_ns && o->stat ? now + o->stat_interval_ns : UINT64_MAX;
	uint64_t next_flip = o->stutter_ns ? now + o->stutter_ns : UINT64_MAX;
	bool killing = kill_mode(sh);
	uint64_t next_kill = killing ? now : UINT64_MAX;
	uint64_t krng = (o->seed ? o->seed : 0x2545f4914f6cdd1dull) | 1;

	while ((now = lab_clock_ns()) < end) {
		if (now >= next_kill) {
			struct lab_task *victim = smp_load_acquire(&th[xorshift(&krng) % (uint64_t)n].task);

			if (victim) {
				lab_send_fatal_signal(victim);
				res->kills_sent++;
			}
			next_kill = now + 20000 + xorshift(&krng) % 480000;
			continue;
		}
		if (now >= next_flip) {
			if (READ_ONCE(sh->paused)) {
				smp_store_release(&sh->paused, 0);
				lab_futex_wake(&sh->paused, n);
			} else {
				smp_store_release(&sh->paused, 1);
				res->stutter_pauses++;
			}
			next_flip += o->stutter_ns;
			continue;
		}
		if (now >= next_stat) {
			collect(th, n, res);
			o->stat(o->stat_arg, res);
			next_stat += o->stat_interval_ns;
			continue;
		}
		lab_sleep_ns(min3(end, next_flip < next_kill ? next_flip : next_kill, next_stat) - now);
	}
}

int lab_torture_run(const struct lab_torture_opts *o, struct lab_torture_result *res)
{
	int n = o->readers + o->writers, created = 0, r, checks0 = 0;
	unsigned long warnings0 = 0;
	struct torture_shared *sh = NULL;
	struct torture_thread *th = NULL;
	pthread_t *tid = NULL;

	memset(res, 0, sizeof(*res));
	if (o->readers < 0 || o->writers < 0 || n < 1)
		return -EINVAL;
	sh = aligned_alloc(LAB_CACHELINE, (sizeof(*sh) + LAB_CACHELINE - 1) / LAB_CACHELINE * LAB_CACHELINE);
	th = aligned_alloc(LAB_CACHELINE, (size_t)n * sizeof(*th));
	tid = calloc((size_t)n, sizeof(*tid));
	/* collect() fills per-thread copies: the caller's, or scratch ones. */
	res->threads = o->threads ? o->threads : calloc((size_t)n, sizeof(*res->threads));
	if (!sh || !th || !tid || !res->threads) {
		r = -ENOMEM;
		goto out;
	}
	memset(sh, 0, sizeof(*sh));
	lab_start_init(&sh->start);
	sh->o = o;
	r = lab_lock_init(&sh->lock, o->lock);
	if (r)
		goto out;
	res->killable = sh->lock.ops->caps & LAB_CAP_KILLABLE;
	warnings0 = __atomic_load_n(&lab_rwsem_warnings, __ATOMIC_SEQ_CST);
	checks0 = lab_rwsem_checks;
	if (kill_mode(sh))
		WRITE_ONCE(lab_rwsem_checks, 1);
	for (int i = 0; i < n; i++) {
		memset(&th[i], 0, sizeof(th[i]));
		th[i].sh = sh;
		th[i].st.writer = i < o->writers;
		th[i].nrole = th[i].st.writer ? o->writers : o->readers;
		th[i].rng = (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1)) ^ o->seed;
		if (!th[i].rng)
			th[i].rng = 1;
		r = lab_thread_create(&tid[i], torture_main, &th[i]);
		if (r) {
			r = -r;
			break;
		}
		created++;
	}
	/* The window starts once every thread created is waiting at the start line. */
	lab_start_wait_ready(&sh->start, (unsigned int)created, -1);
	lab_start_release(&sh->start, r != 0);
	if (!r)
		supervise(sh, th, created, res);
	lab_start_stop(&sh->start);
	smp_store_release(&sh->paused, 0);
	lab_futex_wake(&sh->paused, n);
	for (int i = 0; i < created; i++)
		lab_thread_join(tid[i], NULL);
	WRITE_ONCE(lab_rwsem_checks, checks0);
	res->warnings = __atomic_load_n(&lab_rwsem_warnings, __ATOMIC_SEQ_CST) - warnings0;
	if (sh->lock.ops->check_unlocked &&
	    sh->lock.ops->check_unlocked(sh->lock.sem, res->unlocked_msg, sizeof(res->unlocked_msg)))
		res->not_unlocked = true;
	lab_lock_destroy(&sh->lock);

	res->nthreads = created;
	collect(th, created, res);
	for (int i = 0; i < created; i++) {
		res->downgrades += th[i].downgrades;
		res->trylock_fail += th[i].trylock_fail;
		res->cancelled_eintr += th[i].eintr;
		res->cancelled_etimedout += th[i].etimedout;
	}
out:
	if (!o->threads) {
		free(res->threads);
		res->threads = NULL;
	}
	free(sh);
	free(th);
	free(tid);
	return r;
}
