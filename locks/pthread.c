/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pthread, pthread-wp - glibc's pthread_rwlock_t behind the rwsem interface.
 *
 * Citation: glibc nptl/pthread_rwlock_common.c (the 2017 rewrite by Torvald
 * Riegel, glibc 2.25+), POSIX.1-2017 pthread_rwlock_*.
 *
 * Design summary (glibc's, not ours; this file only adapts it):
 * - one __readers word counts readers and holds the phase (read/write) and
 *   "writer waiting" bits; writers serialise on __writers; waiters sleep on
 *   futexes;
 * - pthread (PTHREAD_RWLOCK_PREFER_READER_NP, the default): a reader enters
 *   whenever the lock is in a read phase, even with writers waiting, so a
 *   stream of overlapping readers can starve writers;
 * - pthread-wp (PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP): new readers
 *   wait while a writer waits;
 * - no downgrade (POSIX has none): downgrade_write is NULL;
 * - killable and timed waits (rwsem.h) map onto
 *   pthread_rwlock_timed{rd,wr}lock, waiting in slices of at most
 *   PTHREAD_KILL_SLICE_NS: between slices the fatal flag (wait.h) is
 *   checked, so a fatal signal ends the wait within one slice; the caller's
 *   CLOCK_MONOTONIC deadline ends the last slice (each slice's end is
 *   converted to the CLOCK_REALTIME abstime these calls take; a clock step
 *   can stretch or shorten one slice, never the deadline check). Not the
 *   clock{rd,wr}lock variants: ThreadSanitizer does not intercept them and
 *   would report false races. glibc itself has no cancellation path to
 *   model: a timed-out waiter just leaves its futex.
 *
 * Both go through the ops table like every other variant, so that the
 * comparison with the kernel ports is fair (LITL's pthread interposition).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

#include "rwsem.h"
#include "wait.h"

#define PTHREAD_KILL_SLICE_NS	1000000ull	/* how often a killable wait looks at the fatal flag */

struct pthread_rwsem {
	pthread_rwlock_t rw;
};

static int pthread_init_kind(struct lab_rwsem *sem, int kind)
{
	struct pthread_rwsem *p = (struct pthread_rwsem *)sem;
	pthread_rwlockattr_t attr;
	int r;

	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, kind);
	r = pthread_rwlock_init(&p->rw, &attr);
	pthread_rwlockattr_destroy(&attr);
	return -r;
}

static int pthread_rd_init(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf)
{
	(void)conf;
	return pthread_init_kind(sem, PTHREAD_RWLOCK_PREFER_READER_NP);
}

static int pthread_wp_init(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf)
{
	(void)conf;
	return pthread_init_kind(sem, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
}

static void pthread_destroy(struct lab_rwsem *sem)
{
	pthread_rwlock_destroy(&((struct pthread_rwsem *)sem)->rw);
}

static void pthread_down_read(struct lab_rwsem *sem)
{
	pthread_rwlock_rdlock(&((struct pthread_rwsem *)sem)->rw);
}

static int pthread_down_read_trylock(struct lab_rwsem *sem)
{
	return pthread_rwlock_tryrdlock(&((struct pthread_rwsem *)sem)->rw) == 0;
}

static void pthread_up(struct lab_rwsem *sem)
{
	pthread_rwlock_unlock(&((struct pthread_rwsem *)sem)->rw);
}

static void pthread_down_write(struct lab_rwsem *sem)
{
	pthread_rwlock_wrlock(&((struct pthread_rwsem *)sem)->rw);
}

static int pthread_down_write_trylock(struct lab_rwsem *sem)
{
	return pthread_rwlock_trywrlock(&((struct pthread_rwsem *)sem)->rw) == 0;
}

/* Killable (@deadline_ns 0) or timed acquisition in slices; see the header. */
static int pthread_lock_killable(struct lab_rwsem *sem, bool write, uint64_t deadline_ns)
{
	pthread_rwlock_t *rw = &((struct pthread_rwsem *)sem)->rw;

	for (;;) {
		uint64_t now = lab_clock_ns(), slice = PTHREAD_KILL_SLICE_NS, abs_rt;
		struct timespec ts;
		int r;

		if (deadline_ns && deadline_ns < now + slice)
			slice = deadline_ns > now ? deadline_ns - now : 0;
		clock_gettime(CLOCK_REALTIME, &ts);
		abs_rt = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + slice;
		ts.tv_sec = (time_t)(abs_rt / 1000000000ull);
		ts.tv_nsec = (long)(abs_rt % 1000000000ull);
		r = write ? pthread_rwlock_timedwrlock(rw, &ts) : pthread_rwlock_timedrdlock(rw, &ts);
		if (r != ETIMEDOUT)
			return -r;
		if (fatal_signal_pending())
			return -EINTR;
		if (deadline_ns && lab_clock_ns() >= deadline_ns)
			return -ETIMEDOUT;
	}
}

static int pthread_down_read_killable(struct lab_rwsem *sem)
{
	return pthread_lock_killable(sem, false, 0);
}

static int pthread_down_write_killable(struct lab_rwsem *sem)
{
	return pthread_lock_killable(sem, true, 0);
}

static int pthread_down_read_timed(struct lab_rwsem *sem, uint64_t deadline_ns)
{
	return pthread_lock_killable(sem, false, deadline_ns);	/* 0: no deadline (rwsem.h) */
}

static int pthread_down_write_timed(struct lab_rwsem *sem, uint64_t deadline_ns)
{
	return pthread_lock_killable(sem, true, deadline_ns);
}

#define PTHREAD_CAPS (LAB_CAP_NO_SIM | LAB_CAP_SLEEPS | LAB_CAP_EXCLUSION | LAB_CAP_READ_TRYLOCK | LAB_CAP_WRITE_TRYLOCK | \
		      LAB_CAP_KILLABLE)

const struct lab_rwsem_ops lab_rwsem_pthread_ops = {
	.name = "pthread",
	.summary = "glibc pthread_rwlock_t, default kind (reader-preferring; writers can starve)",
	.cite = "glibc 2.25+ nptl/pthread_rwlock_common.c (Riegel 2017); POSIX pthread_rwlock",
	.caps = PTHREAD_CAPS | LAB_CAP_READ_RECURSIVE,
	.size = sizeof(struct pthread_rwsem),
	.align = _Alignof(struct pthread_rwsem),
	.init = pthread_rd_init,
	.destroy = pthread_destroy,
	.down_read = pthread_down_read,
	.down_read_trylock = pthread_down_read_trylock,
	.up_read = pthread_up,
	.down_write = pthread_down_write,
	.down_write_trylock = pthread_down_write_trylock,
	.up_write = pthread_up,
	.down_read_killable = pthread_down_read_killable,
	.down_write_killable = pthread_down_write_killable,
	.down_read_timed = pthread_down_read_timed,
	.down_write_timed = pthread_down_write_timed,
};

const struct lab_rwsem_ops lab_rwsem_pthread_wp_ops = {
	.name = "pthread-wp",
	.summary = "glibc pthread_rwlock_t, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP",
	.cite = "glibc 2.25+ nptl/pthread_rwlock_common.c (Riegel 2017); pthread_rwlockattr_setkind_np(3)",
	.caps = PTHREAD_CAPS,
	.size = sizeof(struct pthread_rwsem),
	.align = _Alignof(struct pthread_rwsem),
	.init = pthread_wp_init,
	.destroy = pthread_destroy,
	.down_read = pthread_down_read,
	.down_read_trylock = pthread_down_read_trylock,
	.up_read = pthread_up,
	.down_write = pthread_down_write,
	.down_write_trylock = pthread_down_write_trylock,
	.up_write = pthread_up,
	.down_read_killable = pthread_down_read_killable,
	.down_write_killable = pthread_down_write_killable,
	.down_read_timed = pthread_down_read_timed,
	.down_write_timed = pthread_down_write_timed,
};
