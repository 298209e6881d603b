/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tasks, futexes and the debug-yield hook (see wait.h and atomic.h).
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

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

static void lab_task_key_init(void)
{
	if (pthread_key_create(&lab_task_key, lab_task_detach) != 0)
		abort();
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
		fprintf(stderr, "rwlab: more than %d threads use locks at once\n", LAB_MAX_TASKS);
		abort();
	}
	/* Its CPU clock, for spinners' owner_on_cpu(); an error leaves it unreadable. */
	clockid_t clk;

	if (pthread_getcpuclockid(pthread_self(), &clk))
		clk = (clockid_t)-1;
	WRITE_ONCE(t->cpu_clock, clk);
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

/*
 * Sample @owner's CPU clock every LAB_SPIN_SAMPLE_POLLS calls; true when it
 * has not advanced since the previous sample of the same watch (or cannot be
 * read: the thread is gone). A new owner starts a new watch (first sample).
 */
bool lab_owner_clock_stopped(struct lab_task *me, const struct lab_task *owner)
{
	uint64_t seq = READ_ONCE(owner->seq), ns;
	struct timespec ts;

	if (me->watch == owner && me->watch_seq == seq && ++me->watch_poll % LAB_SPIN_SAMPLE_POLLS)
		return false;
	if (clock_gettime(READ_ONCE(owner->cpu_clock), &ts))
		return true;
	ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (me->watch == owner && me->watch_seq == seq && ns == me->watch_cpu_ns)
		return true;
	me->watch = owner;
	me->watch_seq = seq;
	me->watch_cpu_ns = ns;
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
