/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lock events mean what the cited kernel version means by them (README.md,
 * "Lock events"). Each test stages one situation and checks the counts of the
 * thread that the kernel would charge:
 * - rwsem_wake_reader is one per wakeup batch, not one per reader (v5.2 xadd
 *   counted per batch, and so do v5.3 and v6.x): three readers queued behind
 *   a write hold and granted together count 1 in the up_write caller;
 * - rwsem_rlock counts every read lock acquired after queueing, slept or not
 *   (rwsem-xadd counted it only for readers that never slept);
 * - rwsem-xadd (v5.2): trylock calls are rwsem_rtrylock/rwsem_wtrylock;
 * - percpu-rwsem fires none of the rwsem_* events (it has its own names);
 * - every variant fires only the events its ops declare (with bravo's base's):
 *   `rwlab run` writes rows for those alone.
 */
#include "common.h"
#include "config.h"
#include "events.h"
#include "torture.h"

#define WAKE_MS 5000

struct waiter {
	pthread_t tid;
	const struct lab_lock *lock;
	bool write;
	struct lab_task *task;
	int acquired, release, done;
	struct lab_events ev;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	lab_events_reset();
	__atomic_store_n(&w->task, lab_current(), __ATOMIC_RELEASE);
	if (w->write)
		lab_down_write(w->lock);
	else
		lab_down_read(w->lock);
	__atomic_store_n(&w->acquired, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&w->release, __ATOMIC_ACQUIRE))
		lab_sleep_ns(200000);
	if (w->write)
		lab_up_write(w->lock);
	else
		lab_up_read(w->lock);
	lab_events_snapshot(&w->ev);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool asleep(struct waiter *w)
{
	struct lab_task *t = __atomic_load_n(&w->task, __ATOMIC_ACQUIRE);

	return t && __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == TASK_UNINTERRUPTIBLE &&
	       __atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE) == 0;
}

static bool wait_for(bool (*cond)(struct waiter *), struct waiter *w)
{
	for (int i = 0; i < WAKE_MS; i++) {
		if (cond(w))
			return true;
		lab_sleep_ns(1000000);
	}
	return false;
}

static bool acquired(struct waiter *w)
{
	return __atomic_load_n(&w->acquired, __ATOMIC_ACQUIRE);
}

static bool done(struct waiter *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/* Start @w and wait until it sleeps in the lock (queued behind our hold). */
static void queue(struct waiter *w, const struct lab_lock *l, bool write)
{
	memset(w, 0, sizeof(*w));
	w->lock = l;
	w->write = write;
	cr_assert_eq(pthread_create(&w->tid, NULL, waiter_main, w), 0);
	cr_assert(wait_for(asleep, w), "a %s did not queue and sleep", write ? "writer" : "reader");
}

static void finish(struct waiter *w)
{
	__atomic_store_n(&w->release, 1, __ATOMIC_RELEASE);
	cr_assert(wait_for(done, w), "a waiter never finished");
	pthread_join(w->tid, NULL);
}

#define EV(e, name) ((unsigned long)(e)->count[LAB_EV_##name])

static void need_events(void)
{
	if (!LAB_EVENT_COUNTS)
		cr_skip_test("built with -Devent_counts=false");
}

/* Three readers queued behind our write hold; our up_write grants them as one batch. */
static void one_batch(const char *spec)
{
	enum { N = 3 };
	struct lab_events before, after;
	struct waiter r[N];
	struct lab_lock l;

	need_events();
	lab_test_lock(&l, spec);
	lab_down_write(&l);
	for (int i = 0; i < N; i++)
		queue(&r[i], &l, false);
	lab_events_snapshot(&before);
	lab_up_write(&l);
	lab_events_snapshot(&after);
	for (int i = 0; i < N; i++)
		cr_assert(wait_for(acquired, &r[i]), "%s: reader %d was not granted", spec, i);
	for (int i = 0; i < N; i++)
		finish(&r[i]);
	cr_expect_eq(EV(&after, rwsem_wake_reader) - EV(&before, rwsem_wake_reader), 1,
		     "%s: one batch of %d readers counted %lu rwsem_wake_reader", spec, N,
		     EV(&after, rwsem_wake_reader) - EV(&before, rwsem_wake_reader));
	for (int i = 0; i < N; i++) {
		cr_expect_eq(EV(&r[i].ev, rwsem_rlock), 1, "%s: reader %d: rwsem_rlock %lu after queueing",
			     spec, i, EV(&r[i].ev, rwsem_rlock));
		cr_expect_geq(EV(&r[i].ev, rwsem_sleep_reader), 1, "%s: reader %d never counted a sleep", spec, i);
		cr_expect_eq(EV(&r[i].ev, rwsem_rlock_fast), 0, "%s: reader %d counted as rlock_fast", spec, i);
	}
	lab_lock_destroy(&l);
}

Test(event_meanings, xadd_wake_reader_per_batch) { one_batch("rwsem-xadd"); }
Test(event_meanings, rspin_wake_reader_per_batch) { one_batch("rwsem-rspin"); }
Test(event_meanings, mainline_wake_reader_per_batch) { one_batch("rwsem"); }

Test(event_meanings, xadd_trylock_calls)
{
	struct lab_events before, after;
	struct lab_lock l;

	need_events();
	lab_test_lock(&l, "rwsem-xadd");
	lab_events_snapshot(&before);
	cr_assert(lab_down_read_trylock(&l));
	cr_assert_not(lab_down_write_trylock(&l));
	cr_assert(lab_down_read_trylock(&l));
	lab_up_read(&l);
	lab_up_read(&l);
	lab_events_snapshot(&after);
	cr_expect_eq(EV(&after, rwsem_rtrylock) - EV(&before, rwsem_rtrylock), 2);
	cr_expect_eq(EV(&after, rwsem_wtrylock) - EV(&before, rwsem_wtrylock), 1);
	lab_lock_destroy(&l);
}

/* A write hold with a reader and a writer queued, then released: no rwsem_* event anywhere. */
Test(event_meanings, percpu_rwsem_own_names)
{
	struct lab_events before, after, sum;
	struct waiter r, w;
	struct lab_lock l;
	unsigned long kernel_named = 0;

	need_events();
	lab_test_lock(&l, "percpu-rwsem");
	lab_events_snapshot(&before);
	lab_down_write(&l);
	queue(&r, &l, false);
	queue(&w, &l, true);
	lab_up_write(&l);
	cr_assert(wait_for(acquired, &r), "the queued reader was not granted");
	finish(&r);
	cr_assert(wait_for(acquired, &w), "the queued writer was not granted");
	finish(&w);
	lab_events_snapshot(&after);
	memset(&sum, 0, sizeof(sum));
	lab_events_accumulate(&sum, &r.ev);
	lab_events_accumulate(&sum, &w.ev);
	for (int e = 0; e < LAB_EV_NR; e++) {
		sum.count[e] += after.count[e] - before.count[e];
		if (!strncmp(lab_event_names[e], "rwsem_", 6))
			kernel_named += sum.count[e];
	}
	cr_expect_eq(kernel_named, 0, "percpu-rwsem counted %lu rwsem_* events", kernel_named);
	cr_expect_geq(EV(&sum, percpu_rwsem_queue_reader) + EV(&sum, percpu_rwsem_queue_writer), 2,
		      "the two waiters were not counted as queued");
	cr_expect_geq(EV(&sum, percpu_rwsem_wake_reader), 1, "the reader's grant was not counted");
	lab_lock_destroy(&l);
}

/* Every variant, and bravo over each kernel port: the locks whose declared events are checked. */
ParameterizedTestParameters(event_meanings, only_declared)
{
	static const char *const bravos[] = { "bravo:base=rwsem-xadd", "bravo:base=rwsem-rspin",
					      "bravo:base=rwsem-dhandoff", "bravo:base=ck-brlock" };
	size_t n = 0, k = 0;
	struct lab_test_variant *v;

	while (lab_rwsem_variants[n])
		n++;
	v = cr_malloc(sizeof(*v) * (n + LAB_ARRAY_SIZE(bravos)));
	for (; k < n; k++)
		snprintf(v[k].name, sizeof(v[k].name), "%s", lab_rwsem_variants[k]->name);
	for (size_t i = 0; i < LAB_ARRAY_SIZE(bravos); i++, k++)
		snprintf(v[k].name, sizeof(v[k].name), "%s", bravos[i]);
	return cr_make_param_array(struct lab_test_variant, v, k);
}

/*
 * A torture run (both trylocks, downgrades, and killable and timed waits
 * where the variant has them) fires no event outside the variant's set: run
 * writes no row for one, so a count there would be lost. The ops' events
 * and LAB_CAP_EVENTS agree.
 */
ParameterizedTest(struct lab_test_variant *v, event_meanings, only_declared, .timeout = 60)
{
	struct lab_rwsem_conf conf;
	struct lab_event_set set;
	struct lab_torture_result r;
	struct lab_torture_opts o = { .lock = &conf, .readers = 2, .writers = 2, .hold_loops = 20,
				      .think_loops = 20, .trylock = true, .downgrade = true, .seed = 1 };
	char err[512];
	bool any = false;

	need_events();
	cr_assert_eq(lab_rwsem_parse(v->name, &conf, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(!!(conf.ops->caps & LAB_CAP_EVENTS), conf.ops->events != NULL, "%s: LAB_CAP_EVENTS", v->name);
	o.kill = conf.ops->caps & LAB_CAP_KILLABLE;
	o.duration_ns = (uint64_t)(0.1e9 * lab_test_scale());
	lab_rwsem_conf_events(&conf, &set);
	cr_assert_eq(lab_torture_run(&o, &r), 0);
	for (int e = 0; e < LAB_EV_NR; e++) {
		cr_expect(set.has[e] || !r.events[e], "%s counted %s %lu times, which its ops' events leave out",
			  v->name, lab_event_names[e], (unsigned long)r.events[e]);
		any |= r.events[e] != 0;
	}
	cr_expect(!conf.ops->events || any, "%s counts events but fired none: the run did not exercise it", v->name);
}
