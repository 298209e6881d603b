/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwsem-rspin (Linux v5.3 rwsem) mechanisms, each shown firing:
 *
 * - writer_vs_overlapping_readers: two readers keep the lock read-held at
 *   every moment; a writer still gets it, repeatedly, within 2 s each time.
 *   In v5.3 the bound here is not the handoff (see the test's comment) but
 *   the writer's time-bounded spin on the readers, which marks the owner
 *   NONSPINNABLE (rwsem_opt_nospin) and makes readers queue behind it
 *   (FLAG_WAITERS fails their fast path; rwsem_opt_norspin).
 * - writer_handoff_vs_stealing_reader: a queued writer is woken, a reader
 *   steals the lock by optimistic spinning before it runs; the writer, having
 *   waited past handoff_timeout_us, sets FLAG_HANDOFF (rwsem_wlock_handoff),
 *   which stops the next reader, and gets the lock at the next release.
 * - reader_spinning: with a writer taking the lock briefly and repeatedly, a
 *   contending reader takes it by optimistic spinning (rwsem_opt_rlock > 0);
 *   with rspin=0 it never does (== 0).
 * - no_lost_wakeup: after a long write hold, every sleeping reader and
 *   writer gets the lock.
 * - wake_readers_anywhere: queue reader, writer, reader behind a write hold;
 *   on release both readers are granted together, ahead of the writer (v5.3;
 *   v4.20 woke only the reader prefix).
 * - max_readers_wakeup: with the cap at 1, one release grants exactly one of
 *   three queued readers.
 *
 * Event counters are per thread: every thread snapshots its own and the
 * test sums them.
 */
#include <sched.h>
#include <stdint.h>

#include "common.h"
#include "events.h"
#include "rwsem_rspin.h"

#define BLOCK_MS 150		/* "does not complete" = not within this long */
#define WAKE_MS 5000		/* "completes" = within this long */
#define BOUND_NS 2000000000ull	/* starvation bound of the writer tests: 2 s */

static inline int ld(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void st(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

static void busy_ns(uint64_t ns)
{
	uint64_t end = lab_clock_ns() + ns;

	while (lab_clock_ns() < end)
		cpu_relax();
}

/* Wait up to @ms for exactly @readers + @writers queued waiters. */
static int wait_queued(struct lab_lock *l, int readers, int writers, int ms)
{
	struct lab_rspin_peek p;

	for (int i = 0; i <= ms * 10; i++) {
		lab_rspin_peek(l->sem, &p);
		if (p.nr_read_waiters == readers && p.nr_write_waiters == writers)
			return 1;
		lab_sleep_ns(100000);
	}
	return 0;
}

static long peek_count(struct lab_lock *l)
{
	struct lab_rspin_peek p;

	lab_rspin_peek(l->sem, &p);
	return p.count;
}

static uint64_t ev(const struct lab_events *e, enum lab_event i) { return e->count[i]; }

/* ---- an actor: one acquisition, held until released ---------------------- */

struct actor {
	pthread_t tid;
	struct lab_lock *lock;
	int write;		/* down_write, else down_read */
	int done;		/* 1 once it holds the lock */
	int release;		/* set by the test: unlock and exit */
	uint64_t hold_max_ns;	/* unlock on its own after this long (0 = wait for release) */
	uint64_t t_acq;		/* lab_clock_ns() when it got the lock */
	struct lab_events ev;	/* its counters at exit */
};

static void *actor_main(void *arg)
{
	struct actor *a = arg;
	uint64_t end;

	lab_events_reset();
	if (a->write)
		lab_down_write(a->lock);
	else
		lab_down_read(a->lock);
	a->t_acq = lab_clock_ns();
	st(&a->done, 1);
	end = a->t_acq + a->hold_max_ns;
	while (!ld(&a->release) && (!a->hold_max_ns || lab_clock_ns() < end))
		lab_sleep_ns(100000);
	if (a->write)
		lab_up_write(a->lock);
	else
		lab_up_read(a->lock);
	lab_events_snapshot(&a->ev);
	return NULL;
}

static void actor_start(struct actor *a, struct lab_lock *l, int write, uint64_t hold_max_ns)
{
	memset(a, 0, sizeof(*a));
	a->lock = l;
	a->write = write;
	a->hold_max_ns = hold_max_ns;
	cr_assert_eq(pthread_create(&a->tid, NULL, actor_main, a), 0);
}

static int actor_wait(struct actor *a, int ms)
{
	for (int i = 0; i < ms && !ld(&a->done); i++)
		lab_sleep_ns(1000000);
	return ld(&a->done);
}

static void actor_finish(struct actor *a)
{
	st(&a->release, 1);
	pthread_join(a->tid, NULL);
}

/* ---- (a) writer vs. continuously overlapping readers ---------------------- */

struct overlap {
	struct lab_lock lock;
	int stop;
	uint64_t rd_hold_ns;
	unsigned long rd_ops[2];
	uint64_t wr_lat_max;
	int wr_ops;
	struct lab_events ev[3];
};

struct overlap_arg {
	struct overlap *o;
	int idx;
};

static void *overlap_reader(void *arg)
{
	struct overlap_arg *a = arg;
	struct overlap *o = a->o;

	lab_events_reset();
	while (!ld(&o->stop)) {
		lab_down_read(&o->lock);
		busy_ns(o->rd_hold_ns);
		lab_up_read(&o->lock);
		o->rd_ops[a->idx]++;
	}
	lab_events_snapshot(&o->ev[a->idx]);
	return NULL;
}

/*
 * Two readers each hold the lock for 300 us and re-take it at once; the
 * second starts half a hold after the first, so one of them always holds it
 * (a reader-preferring lock such as glibc's default would starve the writer
 * here for as long as this goes on). A writer takes the lock 5 times.
 *
 * Why no handoff is expected: in v5.3 a queued writer re-checks only when it
 * is woken, and it is woken only when the lock becomes free; with readers
 * overlapping at every moment that never happens. What bounds the wait is the
 * writer's spin on the reader-owned lock: after 10-25 us it sets
 * RD|WR_NONSPINNABLE; FLAG_WAITERS then fails every reader's fast path and
 * the RD bit stops their spinning, so the readers queue behind the writer and
 * it gets the lock once the current holds end.
 *
 * spin_budget_us=20000: the kernel spins with preemption disabled, so its
 * need_resched() almost never ends this 25 us spin first. In user space a
 * host preemption in mid-spin uses up the default 100 us budget and the
 * writer may leave without setting NONSPINNABLE (then readers keep spinning
 * past it until a gap); a 20 ms budget keeps the test on the kernel's path.
 */
Test(rspin, writer_vs_overlapping_readers, .timeout = 60)
{
	static struct overlap o;
	struct overlap_arg ra[2];
	pthread_t rt[2];
	struct lab_events sum = { { 0 } };

	memset(&o, 0, sizeof(o));
	lab_test_lock(&o.lock, "rwsem-rspin:spin_budget_us=20000");
	o.rd_hold_ns = 300000;
	lab_events_reset();
	for (int i = 0; i < 2; i++) {
		ra[i] = (struct overlap_arg){ .o = &o, .idx = i };
		cr_assert_eq(pthread_create(&rt[i], NULL, overlap_reader, &ra[i]), 0);
		busy_ns(o.rd_hold_ns / 2);
	}
	lab_sleep_ns(20000000);
	for (int k = 0; k < 5; k++) {
		uint64_t t0 = lab_clock_ns(), lat;

		lab_down_write(&o.lock);
		lat = lab_clock_ns() - t0;
		busy_ns(20000);
		lab_up_write(&o.lock);
		if (lat > o.wr_lat_max)
			o.wr_lat_max = lat;
		o.wr_ops++;
		lab_sleep_ns(10000000);
	}
	lab_events_snapshot(&o.ev[2]);
	st(&o.stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(rt[i], NULL);
	for (int i = 0; i < 3; i++)
		lab_events_accumulate(&sum, &o.ev[i]);

	printf("overlap: writer max latency %.3f ms, reader ops %lu/%lu, opt_nospin %lu opt_norspin %lu "
	       "opt_rlock %lu wlock_handoff %lu rlock_handoff %lu sleep_writer %lu\n",
	       o.wr_lat_max / 1e6, o.rd_ops[0], o.rd_ops[1], ev(&sum, LAB_EV_rwsem_opt_nospin),
	       ev(&sum, LAB_EV_rwsem_opt_norspin), ev(&sum, LAB_EV_rwsem_opt_rlock),
	       ev(&sum, LAB_EV_rwsem_wlock_handoff), ev(&sum, LAB_EV_rwsem_rlock_handoff),
	       ev(&sum, LAB_EV_rwsem_sleep_writer));
	cr_expect_eq(o.wr_ops, 5);
	cr_expect_lt(o.wr_lat_max, BOUND_NS, "writer waited %.3f s behind overlapping readers",
		     o.wr_lat_max / 1e9);
	cr_expect_gt(o.rd_ops[0], 0);
	cr_expect_gt(o.rd_ops[1], 0);
	cr_expect_gt(ev(&sum, LAB_EV_rwsem_opt_nospin), 0,
		     "the writer's spin on the readers never timed out into NONSPINNABLE");
	cr_expect_gt(ev(&sum, LAB_EV_rwsem_opt_norspin), 0,
		     "no writer disabled reader spinning after seeing NONSPINNABLE");
	lab_lock_destroy(&o.lock);
}

/* ---- (a) handoff: a reader steals from the woken writer ------------------- */

/*
 * wspin=0: the writer does not spin first, so it never sets NONSPINNABLE and
 * readers may still spin (as after a kernel writer whose spin was cut short
 * by need_resched()). Steps:
 *   1. this thread read-holds; W queues (the only waiter: WRITER_FIRST);
 *   2. wait 12 ms, past the 4 ms handoff timeout on the 4 ms coarse clock;
 *   3. up_read wakes W, and at once down_read again: the fast path fails on
 *      FLAG_WAITERS, the slow path spins and takes the read lock before W
 *      runs (if W wins this race instead, retry);
 *   4. W finds the lock held and timed out: it sets FLAG_HANDOFF;
 *   5. a second reader R2 now cannot get in (HANDOFF fails its fast path
 *      and its unqueued trylock) and queues behind W;
 *   6. up_read: W gets the lock, ahead of R2; R2 follows W.
 */
Test(rspin, writer_handoff_vs_stealing_reader, .timeout = 60)
{
	struct lab_lock l;
	struct actor w, r2;
	struct lab_events before;
	int attempts = 0, stolen = 0;

	lab_test_lock(&l, "rwsem-rspin:wspin=0");
	while (!stolen && attempts < 20) {
		uint64_t t_q;

		attempts++;
		lab_down_read(&l);
		/* If W wins step 3, it lets us in again after 0.5 s. */
		actor_start(&w, &l, 1, 500000000);
		cr_assert(wait_queued(&l, 0, 1, WAKE_MS), "the writer never queued");
		t_q = lab_clock_ns();
		lab_sleep_ns(12000000);

		lab_events_reset();
		lab_up_read(&l);
		lab_down_read(&l);
		lab_events_snapshot(&before);
		if (ld(&w.done)) {
			/* W ran first (no steal): let it go and try again. */
			lab_up_read(&l);
			actor_finish(&w);
			continue;
		}
		stolen = 1;
		cr_expect_eq(ev(&before, LAB_EV_rwsem_opt_rlock), 1, "the steal was not by spinning");

		/* Step 4: W requests the handoff. */
		for (int i = 0; i < WAKE_MS && !(peek_count(&l) & 4); i++)
			lab_sleep_ns(1000000);
		cr_assert(peek_count(&l) & 4, "the writer never set FLAG_HANDOFF (count %#lx)", peek_count(&l));

		/* Step 5: a new reader is held off. */
		actor_start(&r2, &l, 0, 0);
		cr_expect(wait_queued(&l, 1, 1, WAKE_MS), "the second reader did not queue");
		cr_expect_not(actor_wait(&r2, BLOCK_MS), "a reader got in past FLAG_HANDOFF");

		/* Step 6: the writer first. */
		lab_up_read(&l);
		cr_expect(actor_wait(&w, WAKE_MS), "the writer never got the lock");
		cr_expect_lt(w.t_acq - t_q, BOUND_NS);
		cr_expect_not(ld(&r2.done), "the reader got in while the writer should hold it");
		actor_finish(&w);
		cr_expect(actor_wait(&r2, WAKE_MS), "the reader never followed the writer");
		actor_finish(&r2);
		cr_expect_eq(ev(&w.ev, LAB_EV_rwsem_wlock_handoff), 1);
		cr_expect_eq(ev(&w.ev, LAB_EV_rwsem_wlock), 1);
		printf("handoff: stolen after %d attempt(s); writer events wlock_handoff %lu sleep_writer %lu\n",
		       attempts, ev(&w.ev, LAB_EV_rwsem_wlock_handoff), ev(&w.ev, LAB_EV_rwsem_sleep_writer));
	}
	cr_expect(stolen, "the reader never stole the lock from the woken writer in %d attempts", attempts);
	cr_expect_eq(peek_count(&l), 0, "lock not left free: %#lx", peek_count(&l));
	lab_lock_destroy(&l);
}

/* ---- (b) reader optimistic spinning ------------------------------------- */

/*
 * A writer holds the lock 5 us at a time with 1 us gaps; a reader takes and
 * drops it in a loop. The two are pinned to different CPUs so that they
 * really contend (on one shared CPU they would mostly take turns by
 * timeslice, and contention would only happen at preemption points). Run in
 * 100 ms windows: with rspin=1 until a read lock has been taken by spinning
 * (at most 3 s); with rspin=0 for three windows, which must see contended
 * reads but no spinning at all.
 */
struct spin_run {
	struct lab_lock lock;
	int stop;
	unsigned long rd_ops, wr_ops;
	struct lab_events ev[2];
};

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);	/* best effort */
}

static int cpu_pair(int cpu[2])
{
	cpu_set_t set;
	int k = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int i = 0; i < CPU_SETSIZE && k < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[k++] = i;
	return k == 2;
}

static int spin_cpu[2];

static void *spin_writer(void *arg)
{
	struct spin_run *s = arg;

	pin_self(spin_cpu[1]);
	lab_events_reset();
	while (!ld(&s->stop)) {
		lab_down_write(&s->lock);
		busy_ns(5000);
		lab_up_write(&s->lock);
		busy_ns(1000);
		s->wr_ops++;
	}
	lab_events_snapshot(&s->ev[1]);
	return NULL;
}

static void *spin_reader(void *arg)
{
	struct spin_run *s = arg;

	pin_self(spin_cpu[0]);
	lab_events_reset();
	while (!ld(&s->stop)) {
		lab_down_read(&s->lock);
		lab_up_read(&s->lock);
		s->rd_ops++;
	}
	lab_events_snapshot(&s->ev[0]);
	return NULL;
}

/* One 100 ms window; adds its events to @sum and its op counts to @rd/@wr. */
static void spin_window(const char *spec, struct lab_events *sum, unsigned long *rd, unsigned long *wr)
{
	static struct spin_run s;
	pthread_t t[2];

	memset(&s, 0, sizeof(s));
	lab_test_lock(&s.lock, spec);
	cr_assert_eq(pthread_create(&t[0], NULL, spin_reader, &s), 0);
	cr_assert_eq(pthread_create(&t[1], NULL, spin_writer, &s), 0);
	lab_sleep_ns(100000000);
	st(&s.stop, 1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	lab_events_accumulate(sum, &s.ev[0]);
	lab_events_accumulate(sum, &s.ev[1]);
	*rd += s.rd_ops;
	*wr += s.wr_ops;
	lab_lock_destroy(&s.lock);
}

static void spin_print(const char *spec, int windows, unsigned long rd, unsigned long wr,
		       const struct lab_events *sum)
{
	printf("%s: %d window(s), reads %lu writes %lu;", spec, windows, rd, wr);
	for (int i = 0; i < LAB_EV_NR; i++)
		if (sum->count[i])
			printf(" %s %lu", lab_event_names[i], sum->count[i]);
	printf("\n");
}

Test(rspin, reader_spinning, .timeout = 60)
{
	struct lab_events sum;
	unsigned long rd = 0, wr = 0;
	int w;

	if (!cpu_pair(spin_cpu))
		cr_skip_test("needs two CPUs");

	memset(&sum, 0, sizeof(sum));
	for (w = 1; w <= 30; w++) {
		spin_window("rwsem-rspin", &sum, &rd, &wr);
		if (ev(&sum, LAB_EV_rwsem_opt_rlock))
			break;
	}
	spin_print("rwsem-rspin", w, rd, wr, &sum);
	cr_expect_gt(rd, 0);
	cr_expect_gt(wr, 0);
	cr_expect_gt(ev(&sum, LAB_EV_rwsem_opt_rlock), 0, "rspin=1: no read lock was taken by spinning");

	memset(&sum, 0, sizeof(sum));
	rd = wr = 0;
	for (w = 1; w <= 3; w++)
		spin_window("rwsem-rspin:rspin=0", &sum, &rd, &wr);
	spin_print("rwsem-rspin:rspin=0", w - 1, rd, wr, &sum);
	cr_expect_gt(rd, 0);
	cr_expect_gt(wr, 0);
	cr_expect_eq(ev(&sum, LAB_EV_rwsem_opt_rlock), 0, "rspin=0: a reader spun");
	cr_expect_eq(ev(&sum, LAB_EV_rwsem_opt_rlock2), 0, "rspin=0: a reader used the phase trylock");
	/* Contended reads happened (so the zero above means something): they queued instead. */
	cr_expect_gt(ev(&sum, LAB_EV_rwsem_rlock) + ev(&sum, LAB_EV_rwsem_rlock_fast), 0,
		     "rspin=0: no read ever contended");
}

/* ---- (c) no lost wakeup --------------------------------------------------- */

Test(rspin, no_lost_wakeup, .timeout = 60)
{
	/* Queue orders to try: 0 = reader, 1 = writer. */
	static const int mixes[3][6] = {
		{ 0, 1, 0, 1, 0, 1 },
		{ 1, 1, 0, 0, 1, 0 },
		{ 0, 0, 0, 1, 1, 1 },
	};
	struct lab_lock l;
	struct actor a[6];

	lab_test_lock(&l, "rwsem-rspin");
	for (int m = 0; m < 3; m++) {
		int nr = 0, nw = 0;

		lab_down_write(&l);
		for (int i = 0; i < 6; i++) {
			/* Each holds 1 ms, then lets the next one in. */
			actor_start(&a[i], &l, mixes[m][i], 1000000);
			mixes[m][i] ? nw++ : nr++;
			cr_assert(wait_queued(&l, nr, nw, WAKE_MS), "mix %d: actor %d never queued", m, i);
		}
		lab_sleep_ns(200000000);	/* the long write hold */
		lab_up_write(&l);
		for (int i = 0; i < 6; i++) {
			cr_expect(actor_wait(&a[i], WAKE_MS), "mix %d: %s %d never got the lock (lost wakeup)",
				  m, mixes[m][i] ? "writer" : "reader", i);
			actor_finish(&a[i]);
			/* They really slept in the queue. */
			cr_expect_gt(ev(&a[i].ev, mixes[m][i] ? LAB_EV_rwsem_sleep_writer : LAB_EV_rwsem_sleep_reader),
				     0, "mix %d: actor %d never slept", m, i);
		}
		cr_expect(wait_queued(&l, 0, 0, WAKE_MS));
		cr_expect_eq(peek_count(&l), 0, "mix %d: lock not free at the end: %#lx", m, peek_count(&l));
	}
	lab_lock_destroy(&l);
}

/* ---- (d) readers are woken from anywhere in the queue --------------------- */

Test(rspin, wake_readers_anywhere, .timeout = 60)
{
	struct lab_lock l;
	struct actor r1, w, r2;
	struct lab_events before, after;
	struct lab_rspin_peek p;

	lab_test_lock(&l, "rwsem-rspin");
	lab_down_write(&l);
	actor_start(&r1, &l, 0, 0);
	cr_assert(wait_queued(&l, 1, 0, WAKE_MS));
	actor_start(&w, &l, 1, 0);
	cr_assert(wait_queued(&l, 1, 1, WAKE_MS));
	actor_start(&r2, &l, 0, 0);
	cr_assert(wait_queued(&l, 2, 1, WAKE_MS));	/* queue: r1, w, r2 */

	lab_events_reset();
	lab_events_snapshot(&before);
	lab_up_write(&l);
	lab_events_snapshot(&after);
	cr_expect(actor_wait(&r1, WAKE_MS), "the head reader was not woken");
	cr_expect(actor_wait(&r2, WAKE_MS), "the reader behind the writer was not woken with the head");
	cr_expect_not(actor_wait(&w, BLOCK_MS), "the writer got in while readers hold the lock");
	lab_rspin_peek(l.sem, &p);
	cr_expect_eq(p.count >> 8, 2, "count %#lx: expected two readers", p.count);
	cr_expect_eq(p.nr_waiters, 1, "only the writer should still be queued");
	/* One rwsem_mark_wake (run by our up_write) granted both readers. */
	cr_expect_eq(ev(&after, LAB_EV_rwsem_wake_reader) - ev(&before, LAB_EV_rwsem_wake_reader), 1);

	actor_finish(&r1);
	cr_expect_not(actor_wait(&w, BLOCK_MS), "the writer got in while a reader holds the lock");
	actor_finish(&r2);
	cr_expect(actor_wait(&w, WAKE_MS), "the writer never got the lock after the readers");
	cr_expect_lt(r2.t_acq, w.t_acq);
	actor_finish(&w);
	cr_expect_eq(ev(&r1.ev, LAB_EV_rwsem_rlock), 1);
	cr_expect_eq(ev(&r2.ev, LAB_EV_rwsem_rlock), 1);
	cr_expect_eq(ev(&w.ev, LAB_EV_rwsem_wlock), 1);
	lab_lock_destroy(&l);
}

/* ---- (d) the MAX_READERS_WAKEUP cap, set to 1 ----------------------------- */

Test(rspin, max_readers_wakeup, .timeout = 60)
{
	struct lab_lock l;
	struct actor r[3];

	lab_test_lock(&l, "rwsem-rspin:max_readers_wakeup=1");
	lab_down_write(&l);
	for (int i = 0; i < 3; i++) {
		actor_start(&r[i], &l, 0, 0);
		cr_assert(wait_queued(&l, i + 1, 0, WAKE_MS));
	}
	lab_up_write(&l);
	/* Each release grants one more reader, in queue order. */
	for (int i = 0; i < 3; i++) {
		cr_expect(actor_wait(&r[i], WAKE_MS), "reader %d never granted", i);
		for (int j = i + 1; j < 3; j++)
			cr_expect_not(ld(&r[j].done), "reader %d granted with reader %d past the cap", j, i);
		if (i < 2)
			cr_expect_not(actor_wait(&r[i + 1], BLOCK_MS), "reader %d granted past the cap", i + 1);
		actor_finish(&r[i]);
	}
	cr_expect_eq(peek_count(&l), 0, "lock not free at the end: %#lx", peek_count(&l));
	lab_lock_destroy(&l);
}
