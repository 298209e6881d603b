/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "barrier.h"
#include "events.h"
#include "torture.h"
#include "wait.h"

#define PAYLOAD_WORDS	4
#define JIFFY_NS	4000000ull	/* one tick at HZ=250, the jiffy rwlab models */
#define KILL_HOLD_MIN_NS	50000ull	/* kill mode's long holds: 50..1000 us on CPU */
#define KILL_HOLD_SPAN_NS	950000ull
#define BURST_GAP_NS		20000ull	/* kills of a burst: 0..20 us apart */
#define CANCEL_PAUSE_NS		500000ull	/* after a cancelled wait: 0..500 us off the lock */

/*
 * After the end of the test every thread finishes its iteration: at most one
 * more acquisition, behind its peers' holds, then it returns. A thread that
 * has not returned within the stall bound is reported stuck (the kernel's
 * hung-task detector, hung_task_timeout_secs = 120 s, is what catches a
 * locktorture thread that never gets its lock). Natively the bound is that
 * figure itself, in real time: a loaded 2-CPU host with hundreds of
 * oversubscribed threads may leave a preempted holder off CPU for seconds,
 * and a healthy run never waits for the bound (the threads are polled). Under
 * --sim it is scaled down 120x to 1 s of simulated time: the simulated clock
 * cannot be stretched by host load, 1 s is 50 default simulated tests (20 ms)
 * and 250 jiffies, and a healthy thread's last acquisition waits behind at most
 * every other thread's hold, the longest of which is kill mode's 1 ms (512
 * threads x 1 ms = 0.5 s); long holds (10 x long_hold) raise the bound to 10 x
 * that hold when it is longer.
 */
#define STALL_NATIVE_NS		120000000000ull	/* hung_task_timeout_secs */
#define STALL_SIM_NS		1000000000ull	/* ... / 120, simulated time */
#define STOP_POLL_NS		50000000ull	/* how often the supervisor asks opts->stop */
#define STALL_POLL_MIN_NS	10000ull	/* the first poll 10 us after the stop, doubling */
#define STALL_POLL_MAX_NS	10000000ull	/* ... up to every 10 ms */

struct torture_shared {
	struct lab_lock lock;
	int write_held;			/* locktorture lock_is_write_held */
	int read_held;			/* locktorture lock_is_read_held */
	struct lab_start start;		/* go and stop (barrier.h) */
	uint32_t paused;		/* stutter: 1 while the threads should pause */
	uint64_t tickets;		/* kill mode: the next wait ticket (atomic) */
	uint64_t t0;			/* lab_clock_ns() when the threads were released */
	const struct lab_torture_opts *o;
	int last_role;			/* the last holder's role (ROLE_*): unmodelled accesses, see holder_role() */
	/* Plain words only the lock protects; on their own cache line. */
	unsigned long payload[PAYLOAD_WORDS] __lab_cacheline_aligned;
};

struct torture_thread {
	struct torture_shared *sh;
	struct lab_task *task;		/* published at start, for the killer */
	uint64_t eintr, etimedout;	/* cancelled acquisitions (kill mode) */
	uint64_t wait_ticket;		/* kill mode: when its blocking acquisition began (0: none) */
	bool wait_timed;		/* ... and whether it is a timed one (it ends at its deadline) */
	struct lab_events events;	/* its lock events, snapshot at the end */
	int nrole;			/* threads sharing this one's role */
	/* Written only by the owner (WRITE_ONCE), read by the stat snapshots. */
	struct lab_torture_thread st;
	uint64_t downgrades, trylock_fail;
	uint64_t rng;
	uint64_t to_read, to_write;	/* holder-role switches this thread saw as it acquired (holder_role()) */
	int state;			/* TS_*, for the stall report: unmodelled accesses (set_state()) */
} __lab_cacheline_aligned;

/* Where a thread is (struct torture_thread.state). */
enum { TS_RUN, TS_ACQUIRE, TS_DONE };

/*
 * The thread's state for the stall report. The __atomic builtins are not
 * atomic.h's: under --sim they are not modelled (no simulated time, no
 * scheduling point), so the flag leaves every schedule as it was. Release:
 * the supervisor reads the thread's counts after it sees TS_DONE.
 */
static void set_state(struct torture_thread *t, int s)
{
	__atomic_store_n(&t->state, s, __ATOMIC_RELEASE);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define bump(t, field) WRITE_ONCE((t)->field, (t)->field + 1)

enum { ROLE_NONE, ROLE_WRITER, ROLE_READER };

/*
 * The lock's holder is now of @role: count a switch when the last holder's
 * role was the other one. The __atomic builtins are deliberately not
 * atomic.h's: under --sim they are not modelled accesses (they cost no
 * simulated time and are no scheduling point, so counting leaves every
 * schedule as it was), and a reader writes the word only on a switch.
 */
static void holder_role(struct torture_thread *t, int role)
{
	int *last = &t->sh->last_role, prev = __atomic_load_n(last, __ATOMIC_RELAXED);

	if (prev == role)
		return;
	if (prev == ROLE_READER)
		t->to_write++;
	else if (prev == ROLE_WRITER)
		t->to_read++;
	__atomic_store_n(last, role, __ATOMIC_RELAXED);
}

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

static bool kill_mode(const struct torture_shared *sh)
{
	return sh->o->kill && (sh->lock.ops->caps & LAB_CAP_KILLABLE);
}

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
	if (t->st.writer && kill_mode(t->sh) && (xorshift(&t->rng) & 7) == 0) {
		/*
		 * kill mode: on CPU for long enough that queue heads time out and
		 * writers spin on us (to steal at our release). Writers only: long
		 * overlapping read holds would shut writers out of reader-preferring
		 * variants.
		 */
		lab_busy_ns(KILL_HOLD_MIN_NS + xorshift(&t->rng) % KILL_HOLD_SPAN_NS);
		return;
	}
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

	/* Release: the killer reads the ticket and then signals the thread (bursts: killable waits only). */
	WRITE_ONCE(t->wait_timed, (r & 3) == 0);
	smp_store_release(&t->wait_ticket, atomic_fetch_add(&t->sh->tickets, 1) + 1);
	if ((r & 3) == 0) {
		uint64_t deadline = lab_clock_ns() + (r >> 8) % 1000000;

		ret = write ? lab_down_write_timed(l, deadline) : lab_down_read_timed(l, deadline);
	} else {
		ret = write ? lab_down_write_killable(l) : lab_down_read_killable(l);
	}
	WRITE_ONCE(t->wait_ticket, 0);
	lab_clear_fatal_signal();
	if (ret == -EINTR)
		WRITE_ONCE(t->eintr, t->eintr + 1);
	else if (ret == -ETIMEDOUT)
		WRITE_ONCE(t->etimedout, t->etimedout + 1);
	else if (ret)
		bump(t, st.fail);	/* no other error exists */
	/* A killed task is gone: the next one comes 0..500 us later (the queue may empty meanwhile). */
	if (ret)
		lab_sleep_ns(xorshift(&t->rng) % CANCEL_PAUSE_NS);
	return ret == 0;
}

static void writer_iteration(struct torture_thread *t)
{
	struct torture_shared *sh = t->sh;
	const struct lab_torture_opts *o = sh->o;
	const struct lab_rwsem_ops *ops = sh->lock.ops;
	uint64_t r = xorshift(&t->rng);

	if ((xorshift(&t->rng) & 0xfffff) == 0)
		lab_sleep_ns(JIFFY_NS);
	set_state(t, TS_ACQUIRE);	/* torture_main() sets TS_RUN again if this iteration gives up */
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
	set_state(t, TS_RUN);
	holder_role(t, ROLE_WRITER);
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
		__atomic_store_n(&sh->last_role, ROLE_READER, __ATOMIC_RELAXED);	/* a downgrade, not a switch */
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

	set_state(t, TS_ACQUIRE);
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
	set_state(t, TS_RUN);
	holder_role(t, ROLE_READER);
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
	if (!lab_start_arrive(&sh->start)) {
		set_state(t, TS_DONE);
		return NULL;		/* a sibling could not be created */
	}
	lab_events_reset();
	while (!lab_start_must_stop(&sh->start)) {
		if (t->st.writer)
			writer_iteration(t);
		else
			reader_iteration(t);
		set_state(t, TS_RUN);
		stutter_wait(sh);
		lab_delay(sh->o->think_loops);
	}
	lab_events_snapshot(&t->events);
	set_state(t, TS_DONE);
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

/*
 * Kill mode, one burst: every thread now in a killable acquisition, oldest
 * wait first, 0..20 us apart (the queue head, then the waiters behind it);
 * timed waits are left to end at their deadlines (-ETIMEDOUT).
 * A thread that got the lock meanwhile gets its signal after the acquisition
 * and clears it (a kill that came too late).
 */
static void kill_burst(struct torture_shared *sh, struct torture_thread *th, int n, uint64_t *krng,
		       struct lab_torture_result *res)
{
	uint64_t last = 0, upto = atomic_fetch_add(&sh->tickets, 0);	/* not the waits that begin later */

	for (;;) {
		struct torture_thread *next = NULL;
		uint64_t best = UINT64_MAX;

		for (int i = 0; i < n; i++) {
			uint64_t tk = smp_load_acquire(&th[i].wait_ticket);

			if (tk > last && tk <= upto && tk < best && !READ_ONCE(th[i].wait_timed) &&
			    smp_load_acquire(&th[i].task)) {
				best = tk;
				next = &th[i];
			}
		}
		if (!next)
			break;
		last = best;
		lab_send_fatal_signal(next->task);
		res->kills_sent++;
		lab_busy_ns(xorshift(krng) % BURST_GAP_NS);
	}
	res->kill_bursts++;
}

/* Kill mode: one random thread, or a burst (half the time each). */
static void kill_tick(struct torture_shared *sh, struct torture_thread *th, int n, uint64_t *krng,
		      struct lab_torture_result *res)
{
	struct lab_task *victim;

	if (xorshift(krng) & 1) {
		kill_burst(sh, th, n, krng, res);
		return;
	}
	victim = smp_load_acquire(&th[xorshift(krng) % (uint64_t)n].task);
	if (victim) {
		lab_send_fatal_signal(victim);
		res->kills_sent++;
	}
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

	while ((now = lab_clock_ns()) < end && !(o->stop && o->stop())) {
		uint64_t until = min3(end, next_flip < next_kill ? next_flip : next_kill, next_stat);

		if (now >= next_kill) {
			kill_tick(sh, th, n, &krng, res);
			next_kill = lab_clock_ns() + 20000 + xorshift(&krng) % 480000;
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
		if (o->stop && until - now > STOP_POLL_NS)
			until = now + STOP_POLL_NS;
		lab_sleep_ns(until - now);
	}
}

/*
 * Kill mode: the variant's handoff_timeout_us knob, when it has one left at
 * its default, set to 0 in @conf (HANDOFF requested from the next jiffy on).
 * Returns the value the run uses, or -1 when the variant has no such knob.
 */
static long kill_handoff_timeout(struct lab_rwsem_conf *conf)
{
	const struct lab_knob *k = conf->ops->knobs;

	for (int i = 0; k && k[i].name; i++) {
		if (strcmp(k[i].name, "handoff_timeout_us"))
			continue;
		if (conf->knob[i] == k[i].def)
			conf->knob[i] = 0;
		return conf->knob[i];
	}
	return -1;
}

/* The stall bound after the stop (see STALL_NATIVE_NS). */
static uint64_t stall_bound(const struct lab_torture_opts *o)
{
	uint64_t b = LAB_SIM ? STALL_SIM_NS : STALL_NATIVE_NS;

	if (o->long_hold_ns && o->long_hold_ns <= UINT64_MAX / 100 && 100 * o->long_hold_ns > b)
		b = 100 * o->long_hold_ns;	/* 10 x a writer's long hold (10 x long_hold) */
	return b;
}

/*
 * After the stop: wait for every thread to return, polling the threads'
 * states with lab_sleep_ns() (lab_clock_ns() time: simulated under --sim),
 * at most stall_bound(). Returns true when all returned (then they can be
 * joined); else fills in the stall report and returns false.
 */
static bool wait_done(struct torture_shared *sh, struct torture_thread *th, int n, struct lab_torture_result *res)
{
	uint64_t t0 = lab_clock_ns(), bound = stall_bound(sh->o), poll = STALL_POLL_MIN_NS, now;

	for (;;) {
		int left = 0;

		for (int i = 0; i < n; i++)
			left += __atomic_load_n(&th[i].state, __ATOMIC_ACQUIRE) != TS_DONE;
		now = lab_clock_ns();
		if (!left)
			return true;
		if (now - t0 >= bound)
			break;
		lab_sleep_ns(poll < bound - (now - t0) ? poll : bound - (now - t0));
		poll = poll * 2 < STALL_POLL_MAX_NS ? poll * 2 : STALL_POLL_MAX_NS;
	}
	res->stalled = true;
	res->stall_after_ns = now - t0;
	for (int i = 0; i < n; i++) {
		int s = __atomic_load_n(&th[i].state, __ATOMIC_ACQUIRE);

		if (s == TS_ACQUIRE)
			(*(th[i].st.writer ? &res->stall_acq_writers : &res->stall_acq_readers))++;
		else if (s != TS_DONE)
			(*(th[i].st.writer ? &res->stall_other_writers : &res->stall_other_readers))++;
	}
	return false;
}

/* After the run: lock events, warnings, whether the first is the kernel's documented bug. */
static void finish(struct torture_shared *sh, struct torture_thread *th, int n, const struct lab_rwsem_conf *conf,
		   struct lab_torture_result *res)
{
	const char *variant, *what;
	uint64_t ns;
	long count;

	for (int i = 0; i < n; i++) {
		res->handoff_rd += th[i].events.count[LAB_EV_rwsem_rlock_handoff];
		res->handoff_wr += th[i].events.count[LAB_EV_rwsem_wlock_handoff];
		for (int e = 0; e < LAB_EV_NR; e++)
			res->events[e] += th[i].events.count[e];
		res->switch_to_read += th[i].to_read;
		res->switch_to_write += th[i].to_write;
	}
	if (!lab_rwsem_warn_log_first(&variant, &what, &count, &ns))
		return;
	res->first_warning_ns = ns > sh->t0 ? ns - sh->t0 : 0;
	snprintf(res->first_warning, sizeof(res->first_warning), "%s: %s: count %#lx", variant, what,
		 (unsigned long)count);
	if (sh->lock.ops->known_bug && !strcmp(variant, sh->lock.ops->name))
		res->known_bug = sh->lock.ops->known_bug(conf, what);
}

int lab_torture_run(const struct lab_torture_opts *o, struct lab_torture_result *res)
{
	struct lab_rwsem_conf conf = *o->lock;
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
	res->killable = conf.ops->caps & LAB_CAP_KILLABLE;
	res->handoff_timeout_us = o->kill && res->killable ? kill_handoff_timeout(&conf) : -1;
	r = lab_lock_init(&sh->lock, &conf);
	if (r)
		goto out;
	warnings0 = __atomic_load_n(&lab_rwsem_warnings, __ATOMIC_SEQ_CST);
	lab_rwsem_warn_log_start();
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
	sh->t0 = lab_clock_ns();
	lab_start_release(&sh->start, r != 0);
	if (!r)
		supervise(sh, th, created, res);
	lab_start_stop(&sh->start);
	smp_store_release(&sh->paused, 0);
	lab_futex_wake(&sh->paused, n);
	if (!wait_done(sh, th, created, res)) {
		/*
		 * Stuck threads cannot be joined, and they still use the lock, sh
		 * and th: leave all of it be (the caller ends the process). The
		 * counts are a racy snapshot, as the stat lines'.
		 */
		WRITE_ONCE(lab_rwsem_checks, checks0);
		res->nthreads = created;
		collect(th, created, res);
		sh = NULL;
		th = NULL;
		tid = NULL;
		goto out;
	}
	for (int i = 0; i < created; i++)
		lab_thread_join(tid[i], NULL);
	WRITE_ONCE(lab_rwsem_checks, checks0);
	res->warnings = __atomic_load_n(&lab_rwsem_warnings, __ATOMIC_SEQ_CST) - warnings0;
	finish(sh, th, created, &conf, res);
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
