/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mechanisms of the mainline rwsem port ("rwsem") and of its direct
 * handoff variant ("rwsem-dhandoff"), proven with their event counters and,
 * where a property is about the lock word itself, by reading the count and
 * owner words (the layout comes from locks/rwsem_mainline_impl.h):
 *
 * (a) a writer behind a stream of readers that keep stealing the lock gets
 *     in: the handoff (HANDOFF bit, or a direct grant) fires and bounds the
 *     wait (generously, 2 s; the maximum is printed);
 * (b) readers never spin: a reader that arrives while a writer holds the
 *     lock queues and sleeps, and rwsem_opt_rlock stays 0;
 * (c) no lost wakeup: readers and writers all asleep behind a long write
 *     hold all get the lock after it ends;
 * (d) downgrade_write grants the queued readers (also one queued behind a
 *     writer) while the downgrader still holds it for read; the writer waits;
 * (e) rwsem-dhandoff: up_write makes a head writer that requested the
 *     handoff the owner before it even runs;
 * (f) the head writer that requested the handoff spins on the running owner
 *     instead of sleeping, in mainline and (v7) in rwsem-dhandoff alike
 *     (an earlier dhandoff port slept at once), and gets the lock
 *     when the owner releases it without ever going to sleep.
 *
 * Event counters are per thread: every thread snapshots its own, and the
 * test sums them. "Asleep in the lock" is lab_task_on_cpu() == 0: the
 * futex-sleep flag (the sleep state), not owner_on_cpu(), which also reads
 * the thread CPU clock (a preempted thread is off CPU there, but it did not
 * go to sleep in the lock).
 */
#include "common.h"
#include "events.h"
#include "rwsem_mainline_impl.h"

#define WAKE_MS 5000		/* "gets the lock" = within this long */
#define BLOCK_MS 150		/* "does not get it" = not within this long */

/* ---- helpers -------------------------------------------------------------- */

struct rw_thread {
	pthread_t tid;
	const struct lab_lock *lock;
	bool write;		/* down_write, else down_read */
	bool hold;		/* keep the lock until @release, else drop it at once */
	struct lab_task *task;	/* the thread's task, published at start */
	uint64_t t_done;	/* lab_clock_ns() when the lock was acquired */
	int done;		/* 1 once acquired */
	int release;
	struct lab_events ev;	/* its event counters, snapshot at exit */
};

static void *rw_thread_main(void *arg)
{
	struct rw_thread *t = arg;

	lab_events_reset();
	__atomic_store_n(&t->task, lab_current(), __ATOMIC_RELEASE);
	if (t->write)
		lab_down_write(t->lock);
	else
		lab_down_read(t->lock);
	t->t_done = lab_clock_ns();
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	while (t->hold && !__atomic_load_n(&t->release, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	if (t->write)
		lab_up_write(t->lock);
	else
		lab_up_read(t->lock);
	lab_events_snapshot(&t->ev);
	return NULL;
}

static void rw_thread_start(struct rw_thread *t, const struct lab_lock *l, bool write, bool hold)
{
	memset(t, 0, sizeof(*t));
	t->lock = l;
	t->write = write;
	t->hold = hold;
	cr_assert_eq(pthread_create(&t->tid, NULL, rw_thread_main, t), 0);
}

static bool rw_thread_done(struct rw_thread *t)
{
	return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE);
}

/* Wait up to @ms for @t to acquire. */
static bool rw_thread_wait(struct rw_thread *t, int ms)
{
	for (int i = 0; i < ms && !rw_thread_done(t); i++)
		lab_sleep_ns(1000000);
	return rw_thread_done(t);
}

/* Wait up to @ms until @t sleeps inside the lock (queued and off the CPU). */
static bool rw_thread_wait_asleep(struct rw_thread *t, int ms)
{
	for (int i = 0; i < ms * 10; i++) {
		struct lab_task *task = __atomic_load_n(&t->task, __ATOMIC_ACQUIRE);

		if (rw_thread_done(t))
			return false;
		if (task && !lab_task_on_cpu(task))
			return true;
		lab_sleep_ns(100000);
	}
	return false;
}

static void rw_thread_finish(struct rw_thread *t, struct lab_events *sum)
{
	__atomic_store_n(&t->release, 1, __ATOMIC_RELEASE);
	pthread_join(t->tid, NULL);
	if (sum)
		lab_events_accumulate(sum, &t->ev);
}

static struct rwsem_mainline *sem_of(const struct lab_lock *l)
{
	return (struct rwsem_mainline *)l->sem;
}

#define EV(e, name) ((e).count[LAB_EV_##name])

static void need_events(void)
{
	if (!LAB_EVENT_COUNTS)
		cr_skip_test("built with -Devent_counts=false: the proofs here are event counts");
}

/* ---- (a) writer starvation is bounded by the handoff -------------------- */

struct reader_stream {
	pthread_t tid;
	const struct lab_lock *lock;
	int *stop;
	unsigned long acquisitions;
	struct lab_events ev;
};

/* Back-to-back read sections, no think time: each release is re-stolen at once. */
static void *reader_stream_main(void *arg)
{
	struct reader_stream *r = arg;

	lab_events_reset();
	while (!__atomic_load_n(r->stop, __ATOMIC_ACQUIRE)) {
		lab_down_read(r->lock);
		lab_delay(2000);
		lab_up_read(r->lock);
		r->acquisitions++;
	}
	lab_events_snapshot(&r->ev);
	return NULL;
}

#define STREAM_READERS 2
#define WRITER_ROUNDS_MIN 12
#define STREAM_CAP_NS 5000000000ull	/* stop looking for a handoff after 5 s */

ParameterizedTestParameters(rwsem_mainline, writer_starvation_bounded)
{
	static struct lab_test_variant v[] = { { "rwsem" }, { "rwsem-dhandoff" } };

	return cr_make_param_array(struct lab_test_variant, v, LAB_ARRAY_SIZE(v));
}

/*
 * Between rounds the writer sleeps 2 ms so that the readers' stream resumes;
 * then it times one down_write. Whenever the last reader leaves, the writer
 * is woken, but the releasing reader usually re-takes the lock first (reader
 * stealing): only after the writer has queued for the 4 ms timeout does it
 * set HANDOFF, which stops the stealing. How often a reader wins that race
 * on a shared 2-CPU machine varies (a woken writer may preempt the reader),
 * so the rounds go on until the writer has needed the handoff at least once,
 * for at most 5 s; every wait must stay under 2 s.
 */
ParameterizedTest(struct lab_test_variant *v, rwsem_mainline, writer_starvation_bounded, .timeout = 60)
{
	struct reader_stream rd[STREAM_READERS];
	struct lab_events sum = { 0 }, mine;
	uint64_t max_wait = 0, total_wait = 0, start;
	struct lab_lock l;
	int stop = 0, rounds;

	need_events();
	lab_test_lock(&l, v->name);
	for (int i = 0; i < STREAM_READERS; i++) {
		memset(&rd[i], 0, sizeof(rd[i]));
		rd[i].lock = &l;
		rd[i].stop = &stop;
		cr_assert_eq(pthread_create(&rd[i].tid, NULL, reader_stream_main, &rd[i]), 0);
	}
	lab_sleep_ns(10000000);

	lab_events_reset();
	start = lab_clock_ns();
	for (rounds = 0; rounds < WRITER_ROUNDS_MIN ||
			 (!EV(lab_events_tls, rwsem_wlock_handoff) && lab_clock_ns() - start < STREAM_CAP_NS);
	     rounds++) {
		uint64_t t0, wait;

		lab_sleep_ns(2000000);
		t0 = lab_clock_ns();
		lab_down_write(&l);
		wait = lab_clock_ns() - t0;
		lab_up_write(&l);
		total_wait += wait;
		if (wait > max_wait)
			max_wait = wait;
	}
	lab_events_snapshot(&mine);
	lab_events_accumulate(&sum, &mine);

	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < STREAM_READERS; i++) {
		pthread_join(rd[i].tid, NULL);
		lab_events_accumulate(&sum, &rd[i].ev);
		cr_expect_gt(rd[i].acquisitions, 0, "%s: reader %d never got in", v->name, i);
	}
	lab_lock_destroy(&l);

	printf("%-14s writer behind %d streaming readers, %d rounds: wait max %.3f ms, mean %.3f ms; "
	       "steals %lu, wlock_handoff %lu, rlock_handoff %lu, handoff_grant %lu\n",
	       v->name, STREAM_READERS, rounds, max_wait / 1e6, total_wait / 1e6 / rounds,
	       (unsigned long)EV(sum, rwsem_rlock_steal), (unsigned long)EV(sum, rwsem_wlock_handoff),
	       (unsigned long)EV(sum, rwsem_rlock_handoff), (unsigned long)EV(sum, rwsem_handoff_grant));

	cr_expect_lt(max_wait, 2000000000ull, "%s: the writer waited %.1f ms behind readers", v->name,
		     max_wait / 1e6);
	cr_expect_gt(EV(sum, rwsem_rlock_steal), 0, "%s: no reader stole the lock", v->name);
	cr_expect_gt(EV(sum, rwsem_wlock_handoff), 0, "%s: in %d rounds the writer never set HANDOFF",
		     v->name, rounds);
	if (!strcmp(v->name, "rwsem-dhandoff"))
		cr_expect_gt(EV(sum, rwsem_handoff_grant), 0, "%s: no direct grant to the writer", v->name);
	else
		cr_expect_eq(EV(sum, rwsem_handoff_grant), 0, "%s: mainline has no direct grant", v->name);
}

/* ---- (b) a reader behind a short writer sleeps, never spins -------------- */

#define SHORT_WRITER_ROUNDS 10

ParameterizedTestParameters(rwsem_mainline, no_reader_spinning)
{
	static struct lab_test_variant v[] = { { "rwsem" }, { "rwsem-dhandoff" } };

	return cr_make_param_array(struct lab_test_variant, v, LAB_ARRAY_SIZE(v));
}

ParameterizedTest(struct lab_test_variant *v, rwsem_mainline, no_reader_spinning, .timeout = 60)
{
	struct lab_events sum = { 0 };
	struct lab_lock l;

	need_events();
	lab_test_lock(&l, v->name);
	for (int round = 0; round < SHORT_WRITER_ROUNDS; round++) {
		struct rw_thread r;

		/* The writer is on the CPU the whole time (it polls): a spinning reader would spin. */
		lab_down_write(&l);
		rw_thread_start(&r, &l, false, false);
		cr_assert(rw_thread_wait_asleep(&r, WAKE_MS), "%s: the reader neither slept nor waited",
			  v->name);
		lab_up_write(&l);
		cr_assert(rw_thread_wait(&r, WAKE_MS), "%s: the reader never got in", v->name);
		rw_thread_finish(&r, &sum);
	}
	lab_lock_destroy(&l);

	cr_expect_eq(EV(sum, rwsem_opt_rlock), 0, "%s: a reader spun", v->name);
	/* Each reader queued (no steal: a writer held it) and was granted by up_write. */
	cr_expect_eq(EV(sum, rwsem_rlock), SHORT_WRITER_ROUNDS, "%s: %lu queued read locks", v->name,
		     (unsigned long)EV(sum, rwsem_rlock));
	cr_expect_eq(EV(sum, rwsem_rlock_steal), 0, "%s: a reader stole from a writer", v->name);
	cr_expect_geq(EV(sum, rwsem_sleep_reader), SHORT_WRITER_ROUNDS, "%s: readers did not sleep", v->name);
}

/* ---- (c) no lost wakeup ---------------------------------------------------- */

#define SLEEPERS 6	/* half readers, half writers */

ParameterizedTestParameters(rwsem_mainline, no_lost_wakeup)
{
	static struct lab_test_variant v[] = { { "rwsem" }, { "rwsem-dhandoff" } };

	return cr_make_param_array(struct lab_test_variant, v, LAB_ARRAY_SIZE(v));
}

ParameterizedTest(struct lab_test_variant *v, rwsem_mainline, no_lost_wakeup, .timeout = 60)
{
	struct rw_thread t[SLEEPERS];
	struct lab_events sum = { 0 };
	struct lab_lock l;

	lab_test_lock(&l, v->name);
	lab_down_write(&l);
	for (int i = 0; i < SLEEPERS; i++) {
		rw_thread_start(&t[i], &l, i & 1, false);
		cr_assert(rw_thread_wait_asleep(&t[i], WAKE_MS), "%s: sleeper %d did not queue", v->name, i);
	}
	lab_sleep_ns(20000000);		/* a long hold: well past the 4 ms handoff timeout */
	for (int i = 0; i < SLEEPERS; i++)
		cr_assert_not(rw_thread_done(&t[i]), "%s: sleeper %d got in during the write hold", v->name, i);
	lab_up_write(&l);
	for (int i = 0; i < SLEEPERS; i++)
		cr_expect(rw_thread_wait(&t[i], WAKE_MS), "%s: %s %d was never woken", v->name,
			  (i & 1) ? "writer" : "reader", i);
	for (int i = 0; i < SLEEPERS; i++)
		rw_thread_finish(&t[i], &sum);
	lab_lock_destroy(&l);

	if (LAB_EVENT_COUNTS) {
		cr_expect_geq(EV(sum, rwsem_sleep_reader), SLEEPERS / 2, "%s", v->name);
		cr_expect_geq(EV(sum, rwsem_sleep_writer), SLEEPERS / 2, "%s", v->name);
		cr_expect_geq(EV(sum, rwsem_wlock), SLEEPERS / 2, "%s: writers not from the queue", v->name);
	}
}

/* ---- (d) downgrade_write ----------------------------------------------------- */

ParameterizedTestParameters(rwsem_mainline, downgrade_grants_queued_readers)
{
	static struct lab_test_variant v[] = { { "rwsem" }, { "rwsem-dhandoff" } };

	return cr_make_param_array(struct lab_test_variant, v, LAB_ARRAY_SIZE(v));
}

ParameterizedTest(struct lab_test_variant *v, rwsem_mainline, downgrade_grants_queued_readers, .timeout = 60)
{
	struct rw_thread r1, w, r2;
	struct lab_lock l;

	lab_test_lock(&l, v->name);
	lab_down_write(&l);
	/* Queue, in this order: reader, writer, reader. */
	rw_thread_start(&r1, &l, false, false);
	cr_assert(rw_thread_wait_asleep(&r1, WAKE_MS), "%s: r1 did not queue", v->name);
	rw_thread_start(&w, &l, true, false);
	cr_assert(rw_thread_wait_asleep(&w, WAKE_MS), "%s: w did not queue", v->name);
	rw_thread_start(&r2, &l, false, false);
	cr_assert(rw_thread_wait_asleep(&r2, WAKE_MS), "%s: r2 did not queue", v->name);

	lab_downgrade_write(&l);
	/* Both readers get in while we still hold it for read, r2 from behind the writer. */
	cr_expect(rw_thread_wait(&r1, WAKE_MS), "%s: the head reader was not granted", v->name);
	cr_expect(rw_thread_wait(&r2, WAKE_MS), "%s: the reader behind the writer was not granted", v->name);
	cr_expect_not(rw_thread_wait(&w, BLOCK_MS), "%s: the writer got in while read-held", v->name);
	cr_expect(READ_ONCE(sem_of(&l)->count) & RWSEM_READER_MASK, "%s: we hold no read lock", v->name);
	lab_up_read(&l);
	cr_expect(rw_thread_wait(&w, WAKE_MS), "%s: the writer never got in", v->name);
	rw_thread_finish(&r1, NULL);
	rw_thread_finish(&r2, NULL);
	rw_thread_finish(&w, NULL);
	lab_lock_destroy(&l);
}

/* ---- (e) rwsem-dhandoff: up_write grants the lock to the head writer ------ */

struct grant_writer {
	pthread_t tid;
	const struct lab_lock *lock;
	struct lab_task *task;
	int phase2;		/* set by the main thread while it holds the lock */
	int early;		/* 1: got the lock before phase 2 and dropped it */
	int done, release;
	struct lab_events ev;
};

static void *grant_writer_main(void *arg)
{
	struct grant_writer *g = arg;

	lab_events_reset();
	__atomic_store_n(&g->task, lab_current(), __ATOMIC_RELEASE);
	lab_down_write(g->lock);
	if (!__atomic_load_n(&g->phase2, __ATOMIC_ACQUIRE)) {
		/* We beat the main thread to the released lock: this round is void. */
		__atomic_store_n(&g->early, 1, __ATOMIC_RELEASE);
		lab_up_write(g->lock);
		return NULL;
	}
	__atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&g->release, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	lab_up_write(g->lock);
	lab_events_snapshot(&g->ev);
	return NULL;
}

Test(rwsem_mainline, dhandoff_up_write_grants_head_writer, .timeout = 60)
{
	struct lab_lock l;
	struct rwsem_mainline *sem;
	bool proven = false;

	need_events();
	lab_test_lock(&l, "rwsem-dhandoff");
	sem = sem_of(&l);
	for (int attempt = 0; attempt < 10 && !proven; attempt++) {
		struct grant_writer g = { .lock = &l };
		struct lab_events before, after;
		struct lab_task *gt;
		long count;
		unsigned long owner;
		int i;

		/* 1. A long write hold; the writer queues at the head and sleeps past the timeout. */
		lab_down_write(&l);
		cr_assert_eq(pthread_create(&g.tid, NULL, grant_writer_main, &g), 0);
		for (i = 0; i < WAKE_MS * 10; i++) {
			gt = __atomic_load_n(&g.task, __ATOMIC_ACQUIRE);
			if (gt && !lab_task_on_cpu(gt))
				break;
			lab_sleep_ns(100000);
		}
		cr_assert_lt(i, WAKE_MS * 10, "the writer did not queue");
		lab_sleep_ns(20000000);

		/*
		 * 2. Release and take it straight back (optimistic spinning
		 * on a NULL owner steals it before the woken writer runs).
		 * The writer then finds it taken after its timeout and sets
		 * HANDOFF. If the writer won instead, it drops the lock and
		 * we try again.
		 */
		lab_up_write(&l);
		lab_down_write(&l);
		if (__atomic_load_n(&g.early, __ATOMIC_ACQUIRE)) {
			lab_up_write(&l);
			pthread_join(g.tid, NULL);
			continue;
		}
		__atomic_store_n(&g.phase2, 1, __ATOMIC_RELEASE);
		for (i = 0; i < WAKE_MS * 10; i++) {
			if ((READ_ONCE(sem->count) & RWSEM_FLAG_HANDOFF) && !lab_task_on_cpu(gt))
				break;
			lab_sleep_ns(100000);
		}
		cr_assert_lt(i, WAKE_MS * 10, "the head writer never requested the handoff");

		/* 3. up_write grants it: the writer owns the lock before it has run. */
		lab_events_snapshot(&before);
		lab_up_write(&l);
		count = READ_ONCE(sem->count);
		owner = READ_ONCE(sem->owner);
		lab_events_snapshot(&after);
		cr_expect(count & RWSEM_WRITER_LOCKED, "up_write left the lock free (count %#lx)", count);
		cr_expect_eq(rwsem_owner_task(owner), gt, "the owner is not the head writer");
		cr_expect_eq(count & (RWSEM_FLAG_HANDOFF | RWSEM_FLAG_WAITERS), 0,
			     "HANDOFF/WAITERS left behind (count %#lx)", count);
		cr_expect_eq(EV(after, rwsem_handoff_grant) - EV(before, rwsem_handoff_grant), 1,
			     "up_write did not count one direct grant");
		for (i = 0; i < WAKE_MS && !__atomic_load_n(&g.done, __ATOMIC_ACQUIRE); i++)
			lab_sleep_ns(1000000);
		cr_expect(__atomic_load_n(&g.done, __ATOMIC_ACQUIRE), "the granted writer never ran");
		__atomic_store_n(&g.release, 1, __ATOMIC_RELEASE);
		pthread_join(g.tid, NULL);
		cr_expect_eq(EV(g.ev, rwsem_wlock_handoff), 1, "the writer set HANDOFF %lu times",
			     (unsigned long)EV(g.ev, rwsem_wlock_handoff));
		cr_expect_eq(EV(g.ev, rwsem_opt_lock), 0, "the granted writer took the lock itself");
		proven = true;
	}
	cr_expect(proven, "in 10 attempts the woken writer always beat the main thread's re-lock");
	lab_lock_destroy(&l);
}

/* ---- (f) the head writer spins while its handoff is pending ---------------------- */

#define SPIN_SAMPLE_MS 50	/* how long the owner keeps the lock, running, after HANDOFF */

ParameterizedTestParameters(rwsem_mainline, handoff_head_writer_spins)
{
	/*
	 * A spin budget (need_resched stand-in) far beyond the sampling
	 * window, and owner_on_cpu() from the futex flag (oncpu=flag): this
	 * test is about the handoff path choosing to spin on a running owner;
	 * with the default oncpu=clock a loaded 2-CPU host preempts the owner
	 * within 50 ms and the spinner rightly goes to sleep (the clock signal
	 * itself is tested in owner_on_cpu.c). The old dhandoff port slept at
	 * once under either signal.
	 */
	static struct lab_test_variant v[] = { { "rwsem:oncpu=flag,spin_budget_us=200000" },
					       { "rwsem-dhandoff:oncpu=flag,spin_budget_us=200000" } };

	return cr_make_param_array(struct lab_test_variant, v, LAB_ARRAY_SIZE(v));
}

ParameterizedTest(struct lab_test_variant *v, rwsem_mainline, handoff_head_writer_spins, .timeout = 60)
{
	bool dhandoff = strstr(v->name, "dhandoff") != NULL;
	struct lab_lock l;
	struct rwsem_mainline *sem;
	bool proven = false;

	need_events();
	lab_test_lock(&l, v->name);
	sem = sem_of(&l);
	for (int attempt = 0; attempt < 10 && !proven; attempt++) {
		struct grant_writer g = { .lock = &l };
		struct lab_events before, after;
		struct lab_task *gt = NULL;
		unsigned long samples = 0, off_cpu = 0;
		uint64_t end, deadline;
		int i;

		/* 1. The writer queues behind a write hold and sleeps past the handoff timeout. */
		lab_down_write(&l);
		cr_assert_eq(pthread_create(&g.tid, NULL, grant_writer_main, &g), 0);
		for (i = 0; i < WAKE_MS * 10; i++) {
			gt = __atomic_load_n(&g.task, __ATOMIC_ACQUIRE);
			if (gt && !lab_task_on_cpu(gt))
				break;
			lab_sleep_ns(100000);
		}
		cr_assert_lt(i, WAKE_MS * 10, "the writer did not queue");
		lab_sleep_ns(20000000);

		/*
		 * 2. Release and re-take it: the woken writer finds it held and
		 * sets HANDOFF. From here on the owner (this thread) runs
		 * without sleeping.
		 */
		lab_up_write(&l);
		lab_down_write(&l);
		if (__atomic_load_n(&g.early, __ATOMIC_ACQUIRE)) {
			lab_up_write(&l);
			pthread_join(g.tid, NULL);
			continue;
		}
		__atomic_store_n(&g.phase2, 1, __ATOMIC_RELEASE);
		deadline = lab_clock_ns() + WAKE_MS * 1000000ull;
		while (!(READ_ONCE(sem->count) & RWSEM_FLAG_HANDOFF) && lab_clock_ns() < deadline)
			lab_delay(100);
		cr_assert(READ_ONCE(sem->count) & RWSEM_FLAG_HANDOFF,
			  "the head writer never requested the handoff");

		/* 3. The owner keeps running (burns CPU); the head must stay on CPU, spinning. */
		end = lab_clock_ns() + SPIN_SAMPLE_MS * 1000000ull;
		while (lab_clock_ns() < end) {
			samples++;
			off_cpu += !lab_task_on_cpu(gt);
			lab_delay(100);
		}
		lab_events_snapshot(&before);
		lab_up_write(&l);
		lab_events_snapshot(&after);
		for (i = 0; i < WAKE_MS && !__atomic_load_n(&g.done, __ATOMIC_ACQUIRE); i++)
			lab_sleep_ns(1000000);
		cr_expect(__atomic_load_n(&g.done, __ATOMIC_ACQUIRE), "the head writer never got the lock");
		__atomic_store_n(&g.release, 1, __ATOMIC_RELEASE);
		pthread_join(g.tid, NULL);
		cr_log_info("%s: head writer off CPU in %lu of %lu samples over %d ms with HANDOFF pending\n",
			    v->name, off_cpu, samples, SPIN_SAMPLE_MS);
		cr_expect_eq(off_cpu, 0, "%s: the head writer slept (off CPU in %lu of %lu samples) "
			     "instead of spinning on the running owner", v->name, off_cpu, samples);
		if (dhandoff)
			cr_expect_eq(EV(after, rwsem_handoff_grant) - EV(before, rwsem_handoff_grant), 1,
				     "up_write did not grant the spinning head writer");
		cr_expect_eq(EV(g.ev, rwsem_wlock_handoff), 1, "the writer set HANDOFF %lu times",
			     (unsigned long)EV(g.ev, rwsem_wlock_handoff));
		proven = true;
	}
	cr_expect(proven, "in 10 attempts the woken writer always beat the main thread's re-lock");
	lab_lock_destroy(&l);
}
