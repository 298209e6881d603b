/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ck-latency - the method of Concurrency Kit's regressions/ck_<lock>/benchmark/
 * latency.c, re-implemented: one thread, uncontended lock/unlock pairs of each
 * ck RW lock called directly (no rwlab in between), the loop timed with the
 * time-stamp counter, reported per pair. ck reads the TSC after a serializing
 * cpuid; cpuid is a VM exit under a hypervisor (microseconds), so this tool
 * reads it with rdtscp instead, once before and once after each loop.
 *
 * Beside each direct figure it times the same pair through rwlab's variant
 * (the ops table that `rwlab bench` calls), with the same clock, loop and
 * pinning, so the two columns differ only in rwlab's adapter and dispatch.
 * A third column, the dispatch floor, calls ck's pair through two indirect
 * calls to functions that hold everything they need (the lock and, for
 * ck-brlock, the reader record) and do nothing else: the least any
 * ops-table dispatch costs, so rwlab / floor is the adapter's own share.
 *
 * Usage: ck-latency [PAIRS [REPS]]  (default 200000 pairs, min of 31 alternated
 * repetitions: the direct and the rwlab loop take turns, so load on a shared
 * machine hits both alike)
 * Output: per lock and side (read/write): TSC ticks per pair and ns per pair
 * (ticks converted with a TSC rate calibrated against CLOCK_MONOTONIC over
 * 200 ms), then the floor's and rwlab's ns per pair, and the ratios
 * floor / direct, rwlab / direct and rwlab / floor.
 * Threading: single-threaded, pinned to CPU 0 (as `rwlab bench`).
 * Errors: a bad argument prints one line and exits 2.
 */
#include <ck_brlock.h>
#include <ck_pflock.h>
#include <ck_rwlock.h>
#include <ck_tflock.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rwsem.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t ticks(void)
{
	unsigned aux;

	return __rdtscp(&aux);
}
#else
static inline uint64_t ticks(void)	/* no TSC: nanoseconds, and a rate of 1 */
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#endif

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* TSC ticks per nanosecond, over @ms of CLOCK_MONOTONIC. */
static double tsc_per_ns(unsigned ms)
{
	uint64_t n0 = mono_ns(), t0 = ticks(), n1;

	while ((n1 = mono_ns()) - n0 < (uint64_t)ms * 1000000u)
		;
	return (double)(ticks() - t0) / (double)(n1 - n0);
}

static unsigned long pairs = 200000;
static int reps = 31;

static ck_rwlock_t rw = CK_RWLOCK_INITIALIZER;
static ck_pflock_t pf = CK_PFLOCK_INITIALIZER;
static ck_tflock_ticket_t tf = CK_TFLOCK_TICKET_INITIALIZER;
static ck_brlock_t br = CK_BRLOCK_INITIALIZER;
static ck_brlock_reader_t rdr;

/* A direct loop: PAIRS x @body between two rdtscp reads; returns the ticks. */
#define DIRECT(fn, body)						\
	static uint64_t fn(void)					\
	{								\
		uint64_t t0 = ticks();					\
		for (unsigned long i = 0; i < pairs; i++) { body; }	\
		return ticks() - t0;					\
	}
DIRECT(rw_rd, ck_rwlock_read_lock(&rw); ck_rwlock_read_unlock(&rw))
DIRECT(rw_wr, ck_rwlock_write_lock(&rw); ck_rwlock_write_unlock(&rw))
DIRECT(pf_rd, ck_pflock_read_lock(&pf); ck_pflock_read_unlock(&pf))
DIRECT(pf_wr, ck_pflock_write_lock(&pf); ck_pflock_write_unlock(&pf))
DIRECT(tf_rd, ck_tflock_ticket_read_lock(&tf); ck_tflock_ticket_read_unlock(&tf))
DIRECT(tf_wr, ck_tflock_ticket_write_lock(&tf); ck_tflock_ticket_write_unlock(&tf))
DIRECT(br_rd, ck_brlock_read_lock(&br, &rdr); ck_brlock_read_unlock(&rdr))
DIRECT(br_wr, ck_brlock_write_lock(&br); ck_brlock_write_unlock(&br))

/*
 * The dispatch floor: ck's lock and unlock each behind an indirect call, as
 * an ops table calls them, with nothing to look up. noinline and called
 * through a pointer loaded once per loop (volatile, so the compiler cannot
 * see which function it is).
 */
struct floor_fn {
	void (*lock)(void);
	void (*unlock)(void);
};
#define FLOOR(name, lk, ulk)							\
	static __attribute__((noinline)) void name##_l(void) { lk; }		\
	static __attribute__((noinline)) void name##_u(void) { ulk; }		\
	static const struct floor_fn name = { name##_l, name##_u };
FLOOR(fl_rw_rd, ck_rwlock_read_lock(&rw), ck_rwlock_read_unlock(&rw))
FLOOR(fl_rw_wr, ck_rwlock_write_lock(&rw), ck_rwlock_write_unlock(&rw))
FLOOR(fl_pf_rd, ck_pflock_read_lock(&pf), ck_pflock_read_unlock(&pf))
FLOOR(fl_pf_wr, ck_pflock_write_lock(&pf), ck_pflock_write_unlock(&pf))
FLOOR(fl_tf_rd, ck_tflock_ticket_read_lock(&tf), ck_tflock_ticket_read_unlock(&tf))
FLOOR(fl_tf_wr, ck_tflock_ticket_write_lock(&tf), ck_tflock_ticket_write_unlock(&tf))
FLOOR(fl_br_rd, ck_brlock_read_lock(&br, &rdr), ck_brlock_read_unlock(&rdr))
FLOOR(fl_br_wr, ck_brlock_write_lock(&br), ck_brlock_write_unlock(&br))

static uint64_t floor_loop(const struct floor_fn *f)
{
	const struct floor_fn *volatile vf = f;
	void (*lk)(void) = vf->lock, (*ulk)(void) = vf->unlock;
	uint64_t t0 = ticks();

	for (unsigned long i = 0; i < pairs; i++) {
		lk();
		ulk();
	}
	return ticks() - t0;
}

/* The same pair through rwlab's ops table, as harness/bench.c's loop calls it. */
static uint64_t lab_loop(const struct lab_lock *l, bool write)
{
	const struct lab_rwsem_ops *ops = l->ops;
	struct lab_rwsem *sem = l->sem;
	uint64_t t0 = ticks();

	if (write) {
		for (unsigned long i = 0; i < pairs; i++) {
			ops->down_write(sem);
			ops->up_write(sem);
		}
	} else {
		for (unsigned long i = 0; i < pairs; i++) {
			ops->down_read(sem);
			ops->up_read(sem);
		}
	}
	return ticks() - t0;
}

struct subject {
	const char *name;
	uint64_t (*direct[2])(void);	/* read, write */
	const struct floor_fn *floor[2];
	struct lab_lock lab;
	uint64_t best_direct[2], best_floor[2], best_lab[2];
};

static void keep_min(uint64_t *best, uint64_t v)
{
	*best = v < *best ? v : *best;
}

/* Alternate direct, floor and rwlab loops, REPS times each after a warm-up; keep the minima. */
static void measure(struct subject *s)
{
	for (int side = 0; side < 2; side++) {
		s->best_direct[side] = s->best_floor[side] = s->best_lab[side] = UINT64_MAX;
		s->direct[side]();
		floor_loop(s->floor[side]);
		lab_loop(&s->lab, side);
		for (int r = 0; r < reps; r++) {
			keep_min(&s->best_direct[side], s->direct[side]());
			keep_min(&s->best_floor[side], floor_loop(s->floor[side]));
			keep_min(&s->best_lab[side], lab_loop(&s->lab, side));
		}
	}
}

static int subject_init(struct subject *s)
{
	struct lab_rwsem_conf conf;
	char err[256];

	if (lab_rwsem_parse(s->name, &conf, err, sizeof(err)) || lab_lock_init(&s->lab, &conf)) {
		fprintf(stderr, "ck-latency: cannot set up %s\n", s->name);
		return -1;
	}
	return 0;
}

static long arg(const char *s, const char *what, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end || v < 1 || v > max) {
		fprintf(stderr, "ck-latency: bad %s '%s' (an integer in 1..%ld)\n", what, s, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct subject subj[] = {
		{ .name = "ck-rwlock", .direct = { rw_rd, rw_wr }, .floor = { &fl_rw_rd, &fl_rw_wr } },
		{ .name = "ck-pflock", .direct = { pf_rd, pf_wr }, .floor = { &fl_pf_rd, &fl_pf_wr } },
		{ .name = "ck-tflock", .direct = { tf_rd, tf_wr }, .floor = { &fl_tf_rd, &fl_tf_wr } },
		{ .name = "ck-brlock", .direct = { br_rd, br_wr }, .floor = { &fl_br_rd, &fl_br_wr } },
	};
	int n = (int)(sizeof(subj) / sizeof(subj[0]));
	cpu_set_t set;
	double rate;

	if (argc > 3) {
		fprintf(stderr, "ck-latency: usage: ck-latency [PAIRS [REPS]]\n");
		return 2;
	}
	if (argc > 1)
		pairs = (unsigned long)arg(argv[1], "PAIRS", 1000000000L);
	if (argc > 2)
		reps = (int)arg(argv[2], "REPS", 100000);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "WARNING: could not pin to CPU 0\n");
	rate = tsc_per_ns(200);
	ck_brlock_read_register(&br, &rdr);
	for (int i = 0; i < n; i++) {
		if (subject_init(&subj[i]))
			return 1;
		measure(&subj[i]);
		lab_lock_destroy(&subj[i].lab);
	}
	printf("ck latency.c method (rdtscp), 1 thread, min of %d alternated x %lu pairs; TSC %.3f ticks/ns\n",
	       reps, pairs, rate);
	printf("%-10s %-5s %9s %7s %9s %9s %12s %12s %12s\n", "lock", "side", "ck ticks", "ck ns", "floor ns",
	       "rwlab ns", "floor/ck", "rwlab/ck", "rwlab/floor");
	for (int i = 0; i < n; i++) {
		for (int side = 0; side < 2; side++) {
			double t = (double)subj[i].best_direct[side] / (double)pairs;
			double tfl = (double)subj[i].best_floor[side] / (double)pairs;
			double tl = (double)subj[i].best_lab[side] / (double)pairs;

			printf("%-10s %-5s %9.2f %7.2f %9.2f %9.2f %12.2f %12.2f %12.2f\n", subj[i].name,
			       side ? "write" : "read", t, t / rate, tfl / rate, tl / rate, tfl / t, tl / t, tl / tfl);
		}
	}
	return 0;
}
