/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tasks, futexes and the debug-yield hook (see wait.h and atomic.h).
 */
#include <errno.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "wait.h"

/* The simulated build's tasks, futexes and sleeps are in wait_sim.c. */
#if !LAB_SIM
__thread struct lab_task *lab_current_task;

static struct lab_task lab_tasks[LAB_MAX_TASKS];
static unsigned char lab_task_used[LAB_MAX_TASKS];
static pthread_mutex_t lab_task_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t lab_task_key;
static pthread_once_t lab_task_once = PTHREAD_ONCE_INIT;

static void lab_task_detach(void *arg)
{
	struct lab_task *t = arg;

	pthread_mutex_lock(&lab_task_mutex);
	/* Gone: off CPU for good (its switch ring gets no switch-out record at exit). */
	WRITE_ONCE(t->on_cpu, 0);
	/* Relaxed store: lab_task_by_id() reads the flag without the mutex. */
	WRITE_ONCE(lab_task_used[t->id], 0);
	pthread_mutex_unlock(&lab_task_mutex);
	/*
	 * The destructor runs in the exiting thread. A later destructor of the
	 * host program (LD_PRELOAD: GLib's, OpenSSL's thread-stop) may still
	 * take locks: it must attach a fresh task, not keep using the id just
	 * handed back, which another thread may take.
	 */
	lab_current_task = NULL;
}

static void lab_ring_open(struct lab_task *t);

/* fork(): the child keeps no ring (defined below lab_ring_open()). */
static void lab_task_atfork_prepare(void);
static void lab_task_atfork_parent(void);
static void lab_task_atfork_child(void);

static void lab_task_key_init(void)
{
	if (pthread_key_create(&lab_task_key, lab_task_detach) != 0)
		abort();
	pthread_atfork(lab_task_atfork_prepare, lab_task_atfork_parent, lab_task_atfork_child);
}

/*
 * The context-switch rings (wait.h, oncpu=switch). Each task slot keeps its
 * ring at one address for the life of the process: a spinner may read a
 * ring through a stale owner pointer at any time, so a reused slot maps its
 * new thread's ring over the old one with MAP_FIXED (never an unmapped
 * gap) and the old event goes with the old mapping. The fd is closed at
 * once: the mapping holds the event.
 */
static void *lab_ring_addr[LAB_MAX_TASKS];
static const char *lab_ring_error;	/* first reason a ring could not be had (release/acquire) */
static char lab_ring_error_buf[128];
static int lab_ring_failed;		/* the first failure (xchg) writes the reason */

const char *lab_switch_ring_status(void)
{
	return smp_load_acquire(&lab_ring_error);
}

/* Record why a ring could not be had: @what, and strerror(@err) unless @err is 0. */
static void lab_ring_fail(const char *what, int err)
{
	if (atomic_xchg(&lab_ring_failed, 1))
		return;
	if (err)
		snprintf(lab_ring_error_buf, sizeof(lab_ring_error_buf), "%s: %s", what, strerror(err));
	else
		snprintf(lab_ring_error_buf, sizeof(lab_ring_error_buf), "%s", what);
	smp_store_release(&lab_ring_error, (const char *)lab_ring_error_buf);
}

/* Open the calling thread's switch ring into slot @t; on failure t->sw_head stays NULL. */
static void lab_ring_open(struct lab_task *t)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = 2 * pg;	/* header page + one data page */
	struct perf_event_attr a;
	const char *env = getenv("RWLAB_SWITCH_RINGS");
	void *m;
	int fd;

	WRITE_ONCE(t->sw_head, (const uint64_t *)NULL);
	if (env && !strcmp(env, "0")) {
		lab_ring_fail("switched off (RWLAB_SWITCH_RINGS=0)", 0);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.context_switch = 1;		/* PERF_RECORD_SWITCH in and out, 8 bytes each */
	a.exclude_kernel = 1;		/* allowed at perf_event_paranoid 2 */
	a.exclude_hv = 1;
	a.watermark = 1;
	a.wakeup_watermark = 1u << 30;	/* nobody polls it: no wakeups */
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		lab_ring_fail("perf_event_open", errno);
		return;
	}
	/* Read-only: the kernel overwrites the oldest records, never stops. */
	m = mmap(lab_ring_addr[t->id], len, PROT_READ, MAP_SHARED | (lab_ring_addr[t->id] ? MAP_FIXED : 0), fd,
		 0);
	close(fd);
	if (m == MAP_FAILED) {
		lab_ring_fail("mmap of the switch ring", errno);
		return;		/* an old MAP_FIXED mapping stays: its dead thread reads off CPU */
	}
	lab_ring_addr[t->id] = m;
	/* Spinners may read these through a stale owner pointer at any time: marked stores. */
	WRITE_ONCE(t->sw_data, (const uint64_t *)((char *)m + pg));
	WRITE_ONCE(t->sw_mask, (uint64_t)(pg - 1));
	/* Release: sw_data and sw_mask before the head pointer that makes a spinner read them. */
	smp_store_release(&t->sw_head, (const uint64_t *)&((struct perf_event_mmap_page *)m)->data_head);
}

/* fork(): no other thread attaches or detaches while the slots are copied. */
static void lab_task_atfork_prepare(void)
{
	pthread_mutex_lock(&lab_task_mutex);
}

static void lab_task_atfork_parent(void)
{
	pthread_mutex_unlock(&lab_task_mutex);
}

/*
 * The child has one thread, and none of the rings: perf maps them
 * VM_DONTCOPY. Every other slot's thread is gone, as at its exit (off CPU,
 * slot free, no ring to read: a lock it held reads an owner off CPU, never
 * a load from an unmapped ring), and no slot keeps its parent's address, so
 * a MAP_FIXED open cannot land on what the child has mapped there since.
 * The forking thread gets a ring of its own, wherever mmap puts it.
 */
static void lab_task_atfork_child(void)
{
	struct lab_task *me = lab_current_task;

	for (int i = 0; i < LAB_MAX_TASKS; i++) {
		lab_ring_addr[i] = NULL;
		if (me && i == me->id)
			continue;
		WRITE_ONCE(lab_tasks[i].sw_head, (const uint64_t *)NULL);
		if (lab_task_used[i]) {
			WRITE_ONCE(lab_tasks[i].on_cpu, 0);
			WRITE_ONCE(lab_task_used[i], 0);
		}
	}
	pthread_mutex_unlock(&lab_task_mutex);
	if (me)
		lab_ring_open(me);
}

struct lab_task *lab_task_attach(void)
{
	struct lab_task *t = NULL;

	pthread_once(&lab_task_once, lab_task_key_init);
	pthread_mutex_lock(&lab_task_mutex);
	for (int i = 0; i < LAB_MAX_TASKS; i++) {
		if (!lab_task_used[i]) {
			WRITE_ONCE(lab_task_used[i], 1);
			t = &lab_tasks[i];
			t->id = i;
			WRITE_ONCE(t->seq, t->seq + 1);	/* read racily by owner_on_cpu() */
			WRITE_ONCE(t->on_cpu, 1);
			WRITE_ONCE(t->state, TASK_RUNNING);
			break;
		}
	}
	pthread_mutex_unlock(&lab_task_mutex);
	if (!t) {
		lab_err("more than %d threads use locks at once", LAB_MAX_TASKS);
		abort();
	}
	/* Its CPU clock, for spinners' owner_on_cpu(); an error leaves it unreadable. */
	clockid_t clk;

	if (pthread_getcpuclockid(pthread_self(), &clk))
		clk = (clockid_t)-1;
	WRITE_ONCE(t->cpu_clock, clk);
	lab_ring_open(t);
	pthread_setspecific(lab_task_key, t);
	lab_current_task = t;
	return t;
}

struct lab_task *lab_task_by_id(int id)
{
	if (id < 0 || id >= LAB_MAX_TASKS || !READ_ONCE(lab_task_used[id]))
		return NULL;
	return &lab_tasks[id];
}

long lab_task_nivcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_nivcsw;
}

/* @owner's thread CPU time; false if it cannot be read (the thread is gone). */
static bool lab_owner_cpu_ns(const struct lab_task *owner, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(READ_ONCE(owner->cpu_clock), &ts))
		return false;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return true;
}

/*
 * oncpu=clock: sample @owner's CPU clock at most every LAB_OWNER_CLOCK_SAMPLE_NS
 * of this spinner's time; true when it has not advanced since the previous
 * sample of the same watch (or cannot be read: the thread is gone). A new
 * owner starts a new watch with two reads, one system call apart: a running
 * owner's clock moves between them, a stopped one's does not, so the first
 * verdict is as good as any later one (never "on CPU" by default).
 */
bool lab_owner_clock_stopped(struct lab_task *me, const struct lab_task *owner)
{
	uint64_t seq = READ_ONCE(owner->seq), ns, ns2;
	bool same = me->watch == owner && me->watch_seq == seq;

	/* The time itself is read every 8th poll: a vDSO read costs more than a poll (spin-cost). */
	if (same && ((++me->watch_poll & 7) || lab_clock_ns() - me->watch_at < LAB_OWNER_CLOCK_SAMPLE_NS))
		return false;
	if (!lab_owner_cpu_ns(owner, &ns))
		return true;
	if (same ? ns == me->watch_cpu_ns : !lab_owner_cpu_ns(owner, &ns2) || ns2 == ns)
		return true;
	me->watch = owner;
	me->watch_seq = seq;
	me->watch_cpu_ns = same ? ns : ns2;
	me->watch_at = lab_clock_ns();
	me->watch_poll = 0;
	return false;
}

int lab_futex_wait(uint32_t *uaddr, uint32_t val, int64_t timeout_ns)
{
	struct lab_task *t = lab_current();
	struct timespec ts, *tsp = NULL;
	long r;

	if (timeout_ns >= 0) {
		ts.tv_sec = timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
		tsp = &ts;
	}
	WRITE_ONCE(t->on_cpu, 0);
	r = syscall(SYS_futex, uaddr, FUTEX_WAIT_PRIVATE, val, tsp, NULL, 0);
	WRITE_ONCE(t->on_cpu, 1);
	if (r == 0 || errno == EAGAIN)
		return 0;
	return -errno;
}

int lab_futex_wake(uint32_t *uaddr, int n)
{
	long r = syscall(SYS_futex, uaddr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);

	return r < 0 ? -errno : (int)r;
}


void lab_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

int lab_this_cpu(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : cpu % lab_nr_cpus();
}

int lab_nr_cpus(void)
{
	static int n;

	if (!READ_ONCE(n)) {
		long c = sysconf(_SC_NPROCESSORS_CONF);

		WRITE_ONCE(n, c > 0 ? (int)c : 1);
	}
	return READ_ONCE(n);
}

int lab_cpu_node(int cpu)
{
	(void)cpu;
	return 0;
}

int lab_nr_nodes(void)
{
	return 1;
}
#endif /* !LAB_SIM */

void schedule(void)
{
	struct lab_task *t = lab_current();
	uint32_t s;

	while ((s = smp_load_acquire(&t->state)) != TASK_RUNNING) {
		uint64_t d = READ_ONCE(t->wait_deadline), now;

		if (!d || !(s & TASK_WAKEKILL)) {
			lab_futex_wait(&t->state, s, -1);
			continue;
		}
		/* A timed wait: the deadline's timer wakes us like wake_up_process(). */
		now = lab_clock_ns();
		if (now >= d) {
			atomic_xchg(&t->state, TASK_RUNNING);
			return;
		}
		lab_futex_wait(&t->state, s, (int64_t)(d - now));
	}
}

void lab_send_fatal_signal(struct lab_task *t)
{
	uint32_t s;

	WRITE_ONCE(t->fatal_signal, 1);
	/* Full barrier: the flag before reading the state (pairs with set_current_state()'s). */
	smp_mb();
	s = READ_ONCE(t->state);
	/* signal_wake_up_state(): wake only a killable sleeper. */
	while ((s & TASK_WAKEKILL) && !atomic_try_cmpxchg(&t->state, &s, TASK_RUNNING))
		;
	if (s & TASK_WAKEKILL)
		lab_futex_wake(&t->state, 1);
}

int wake_up_process(struct lab_task *t)
{
	/* Full barrier: the waker's condition store is visible before the state flips. */
	if (atomic_xchg(&t->state, TASK_RUNNING) == TASK_RUNNING)
		return 0;
	lab_futex_wake(&t->state, 1);
	return 1;
}

/*
 * Debug-yield: about 1 in 64 seam crossings yields the CPU and 1 in 4096
 * sleeps 1-50 us, so that preemption lands at every kind of point.
 */
void lab_debug_yield(void)
{
	static __thread uint64_t x;

	if (!x)
		x = (uint64_t)(uintptr_t)&x ^ 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	if ((x & 4095) == 0)
		usleep(1 + (unsigned)((x >> 12) % 50));
	else if ((x & 63) == 0)
		sched_yield();
}
