/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * handover - what owner_on_cpu()'s signal costs a spinning writer, per lock
 * variant (locks/wait.h, knob oncpu):
 *
 * 1. handover latency: an owner thread (CPU 0) takes the write lock, holds
 *    it HOLD us busy, notes the time and calls up_write; a writer thread
 *    (CPU 1) called down_write while the owner held it, spins on the running
 *    owner, and notes the time it got the lock. Handover = got - unlock
 *    note, per round; p50 and p90 over the rounds, and the share of rounds
 *    in which the writer slept instead (rwsem_sleep_writer).
 * 2. wasted spin against a sleeping owner: the owner takes the write lock and
 *    sleeps in nanosleep for SLEEP us; 100 us later (busy) the writer calls
 *    down_write. The kernel's writer sees owner->on_cpu == 0 at its first
 *    look and spins 0 ns; the figure is the writer's spin_ns per down_write.
 *
 * A round in which the writer reached down_write only after the owner had
 * begun its up_write (the host ran it late) is not counted: the late column.
 * 3. how wrong each signal is: an owner thread (CPU 0) alternates 100 us
 *    busy and 100 us in nanosleep, publishing its phase; a watcher (CPU 1)
 *    polls owner_on_cpu() with each signal and sums the time it read "on
 *    CPU" while the owner was in its nanosleep (false on-CPU, as a share of
 *    the sleeping time) and "off CPU" while it was in its busy phase (false
 *    off-CPU; this also counts the host preempting the busy owner, which is
 *    the signal being right and the phase word wrong).
 * Rounds run in blocks, the variants taking turns block by block (a load
 * change on a shared machine hits them alike); each block makes a new lock
 * and new threads, so every block's first round meets a new owner task.
 *
 * Usage: handover [-n ROUNDS] [-b BLOCKS] [-H HOLD_US] [-s SLEEP_US] [VARIANT...]
 *   ROUNDS per variant and block (default 300), BLOCKS (default 10),
 *   HOLD_US (default 30), SLEEP_US (default 5000); VARIANTs as rwlab's
 *   -l (knobs after ':'); default: rwsem, rwsem-rspin and rwsem-xadd, each
 *   with the default oncpu=switch and with oncpu=flag.
 * Output: one line per variant for each part, then the load (loadavg) and
 * the switch rings' status. Needs 2 CPUs for the pinning; says so if not.
 * Errors: a bad argument or variant prints one line and exits 2.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "rwsem.h"
#include "wait.h"

#define MAX_VARIANTS 16

struct variant {
	const char *spec;
	struct lab_rwsem_conf conf;
	uint64_t *lat;		/* handover ns per round */
	uint64_t *waste;	/* spin ns per down_write against a sleeping owner */
	size_t nlat, nwaste;
	uint64_t slept, rounds, late, late_sleep;
};

struct round_ctl {
	struct lab_lock lock;
	int mode;		/* 0: handover, 1: sleeping owner */
	int rounds;
	uint64_t hold_ns, sleep_ns;
	int held;		/* round number the owner holds the lock in */
	int done;		/* round number the writer finished */
	uint64_t unlock_at;	/* owner's note just before up_write */
	int released;		/* round number the owner is releasing (set with unlock_at) */
	struct variant *v;
	bool pinned;
};

static bool pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

static void *owner_main(void *arg)
{
	struct round_ctl *c = arg;

	c->pinned &= pin(0);
	for (int r = 1; r <= c->rounds; r++) {
		while (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) != r - 1)
			cpu_relax();
		lab_down_write(&c->lock);
		__atomic_store_n(&c->held, r, __ATOMIC_RELEASE);
		if (c->mode == 0)
			lab_busy_ns(c->hold_ns);
		else
			lab_sleep_ns(c->sleep_ns);
		__atomic_store_n(&c->unlock_at, lab_clock_ns(), __ATOMIC_RELEASE);
		__atomic_store_n(&c->released, r, __ATOMIC_RELEASE);
		lab_up_write(&c->lock);
	}
	return NULL;
}

static void *writer_main(void *arg)
{
	struct round_ctl *c = arg;
	struct variant *v = c->v;
	struct lab_events ev;

	c->pinned &= pin(1);
	for (int r = 1; r <= c->rounds; r++) {
		uint64_t got, spin0, sleep0;
		bool late;

		while (__atomic_load_n(&c->held, __ATOMIC_ACQUIRE) != r)
			cpu_relax();
		if (c->mode == 1)
			lab_busy_ns(100000);	/* the owner is inside its nanosleep */
		lab_events_snapshot(&ev);
		spin0 = ev.count[LAB_EV_spin_ns];
		sleep0 = ev.count[LAB_EV_rwsem_sleep_writer];
		/* Arrived after the owner let go (the host ran us late): not a contended round. */
		late = __atomic_load_n(&c->released, __ATOMIC_ACQUIRE) == r;
		lab_down_write(&c->lock);
		got = lab_clock_ns();
		lab_up_write(&c->lock);
		lab_events_snapshot(&ev);
		if (late) {
			*(c->mode ? &v->late_sleep : &v->late) += 1;
		} else if (c->mode == 0) {
			v->lat[v->nlat++] = got - __atomic_load_n(&c->unlock_at, __ATOMIC_ACQUIRE);
			v->slept += ev.count[LAB_EV_rwsem_sleep_writer] != sleep0;
			v->rounds++;
		} else {
			v->waste[v->nwaste++] = ev.count[LAB_EV_spin_ns] - spin0;
		}
		__atomic_store_n(&c->done, r, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* One block of @rounds rounds of @mode for @v, on a new lock and new threads. */
static bool run_block(struct variant *v, int mode, int rounds, uint64_t hold_ns, uint64_t sleep_ns)
{
	struct round_ctl c = { .mode = mode, .rounds = rounds, .hold_ns = hold_ns, .sleep_ns = sleep_ns,
			       .v = v, .pinned = true };
	pthread_t o, w;

	if (lab_lock_init(&c.lock, &v->conf))
		return false;
	if (pthread_create(&o, NULL, owner_main, &c) || pthread_create(&w, NULL, writer_main, &c)) {
		fprintf(stderr, "handover: pthread_create failed\n");
		exit(1);
	}
	pthread_join(o, NULL);
	pthread_join(w, NULL);
	lab_lock_destroy(&c.lock);
	return c.pinned;
}

/* ---- 3. signal accuracy ---------------------------------------------------- */

struct acc_ctl {
	int phase;		/* 1: busy (on CPU), 0: in nanosleep; -1: finished */
	struct lab_task *task;
	int cycles;
};

static void *acc_owner(void *arg)
{
	struct acc_ctl *c = arg;

	pin(0);
	__atomic_store_n(&c->task, lab_current(), __ATOMIC_RELEASE);
	for (int i = 0; i < c->cycles; i++) {
		__atomic_store_n(&c->phase, 1, __ATOMIC_RELEASE);
		lab_busy_ns(100000);
		__atomic_store_n(&c->phase, 0, __ATOMIC_RELEASE);
		lab_sleep_ns(100000);
	}
	__atomic_store_n(&c->phase, -1, __ATOMIC_RELEASE);
	return NULL;
}

/* False on-CPU share of the sleeping time and false off-CPU share of the busy time, for @oncpu. */
static void accuracy(int oncpu, int cycles, double *false_on, double *false_off)
{
	struct acc_ctl c = { .phase = 1, .cycles = cycles };
	uint64_t t, prev, fon = 0, foff = 0, asleep = 0, busy = 0;
	struct lab_task *o;
	pthread_t tid;
	int ph;

	pin(1);
	if (pthread_create(&tid, NULL, acc_owner, &c))
		exit(1);
	while (!(o = __atomic_load_n(&c.task, __ATOMIC_ACQUIRE)))
		cpu_relax();
	lab_spin_start(0, oncpu);
	prev = lab_clock_ns();
	while ((ph = __atomic_load_n(&c.phase, __ATOMIC_ACQUIRE)) >= 0) {
		int on = owner_on_cpu(o);

		t = lab_clock_ns();
		/* The phase read before the verdict holds for the interval that ends now. */
		if (ph == 0) {
			asleep += t - prev;
			fon += on ? t - prev : 0;
		} else {
			busy += t - prev;
			foff += on ? 0 : t - prev;
		}
		prev = t;
	}
	pthread_join(tid, NULL);
	*false_on = asleep ? (double)fon / (double)asleep : 0;
	*false_off = busy ? (double)foff / (double)busy : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *a, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return n ? a[i] : 0;
}

static double mean(const uint64_t *a, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += (double)a[i];
	return n ? s / (double)n : 0;
}

static long arg_int(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi) {
		fprintf(stderr, "handover: bad %s '%s' (an integer in %ld..%ld)\n", opt, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "rwsem", "rwsem:oncpu=flag", "rwsem-rspin",
						"rwsem-rspin:oncpu=flag", "rwsem-xadd", "rwsem-xadd:oncpu=flag" };
	static struct variant vs[MAX_VARIANTS];
	int rounds = 300, blocks = 10, nv = 0, opt;
	uint64_t hold_ns = 30000, sleep_ns = 5000000;
	bool pinned = true;
	char err[512];
	double load[3] = { 0, 0, 0 };

	while ((opt = getopt(argc, argv, "n:b:H:s:")) != -1) {
		switch (opt) {
		case 'n': rounds = (int)arg_int("-n", optarg, 1, 100000); break;
		case 'b': blocks = (int)arg_int("-b", optarg, 1, 1000); break;
		case 'H': hold_ns = (uint64_t)arg_int("-H", optarg, 1, 1000000) * 1000; break;
		case 's': sleep_ns = (uint64_t)arg_int("-s", optarg, 200, 1000000) * 1000; break;
		default:
			fprintf(stderr, "usage: handover [-n ROUNDS] [-b BLOCKS] [-H HOLD_US] [-s SLEEP_US] [VARIANT...]\n");
			return 2;
		}
	}
	for (int i = optind; i < argc || (optind == argc && nv < 6); i++) {
		const char *spec = optind == argc ? defaults[nv] : argv[i];

		if (nv == MAX_VARIANTS) {
			fprintf(stderr, "handover: more than %d variants\n", MAX_VARIANTS);
			return 2;
		}
		if (lab_rwsem_parse(spec, &vs[nv].conf, err, sizeof(err))) {
			fprintf(stderr, "handover: %s\n", err);
			return 2;
		}
		vs[nv].spec = spec;
		vs[nv].lat = calloc((size_t)rounds * (size_t)blocks, sizeof(uint64_t));
		vs[nv].waste = calloc((size_t)rounds * (size_t)blocks, sizeof(uint64_t));
		if (!vs[nv].lat || !vs[nv].waste)
			return 1;
		nv++;
	}
	if (lab_nr_cpus() < 2)
		printf("WARNING: fewer than 2 CPUs: owner and writer share one, handover is not measured\n");
	for (int b = 0; b < blocks; b++)
		for (int i = 0; i < nv; i++) {
			pinned &= run_block(&vs[i], 0, rounds, hold_ns, sleep_ns);
			/* The sleeping-owner part: a tenth of the rounds (each costs SLEEP us). */
			pinned &= run_block(&vs[i], 1, rounds / 10 ? rounds / 10 : 1, hold_ns, sleep_ns);
		}
	printf("handover after up_write, owner holding %llu us busy; %d blocks x %d rounds per variant, "
	       "variants interleaved by block\n", (unsigned long long)(hold_ns / 1000), blocks, rounds);
	printf("%-28s %8s %8s %8s %8s %10s %6s\n", "variant", "rounds", "p50_ns", "p90_ns", "mean_ns", "slept_%",
	       "late");
	for (int i = 0; i < nv; i++) {
		struct variant *v = &vs[i];

		qsort(v->lat, v->nlat, sizeof(uint64_t), cmp_u64);
		printf("%-28s %8zu %8llu %8llu %8.0f %10.1f %6llu\n", v->spec, v->nlat,
		       (unsigned long long)pct(v->lat, v->nlat, 0.5), (unsigned long long)pct(v->lat, v->nlat, 0.9),
		       mean(v->lat, v->nlat), v->rounds ? 100.0 * (double)v->slept / (double)v->rounds : 0,
		       (unsigned long long)v->late);
	}
	printf("\nwasted spin per down_write against an owner sleeping in nanosleep (%llu us; kernel: 0)\n",
	       (unsigned long long)(sleep_ns / 1000));
	printf("%-28s %8s %8s %8s %10s %6s\n", "variant", "calls", "p50_ns", "p90_ns", "mean_ns", "late");
	for (int i = 0; i < nv; i++) {
		struct variant *v = &vs[i];

		qsort(v->waste, v->nwaste, sizeof(uint64_t), cmp_u64);
		printf("%-28s %8zu %8llu %8llu %10.0f %6llu\n", v->spec, v->nwaste,
		       (unsigned long long)pct(v->waste, v->nwaste, 0.5),
		       (unsigned long long)pct(v->waste, v->nwaste, 0.9), mean(v->waste, v->nwaste),
		       (unsigned long long)v->late_sleep);
	}
	printf("\nhow wrong each signal is: owner 100 us busy / 100 us in nanosleep, %d cycles, polled from "
	       "the other CPU\n", rounds * 2);
	printf("%-28s %16s %16s\n", "oncpu", "false_on_%sleep", "false_off_%busy");
	for (int m = LAB_ONCPU_SWITCH; m <= LAB_ONCPU_FLAG; m++) {
		double fon, foff;

		accuracy(m, rounds * 2, &fon, &foff);
		printf("%-28s %16.1f %16.1f\n", m == LAB_ONCPU_SWITCH ? "switch" : m == LAB_ONCPU_CLOCK ? "clock" : "flag",
		       100 * fon, 100 * foff);
	}
	if (getloadavg(load, 3) < 0)
		load[0] = -1;
	printf("\nload average %.2f %.2f %.2f on %d CPUs%s%s\n", load[0], load[1], load[2], lab_nr_cpus(),
	       pinned ? "" : "; WARNING: pinning failed", load[0] > 1.0 ? "; WARNING: loaded machine" : "");
	printf("switch rings: %s\n", lab_switch_ring_status() ? lab_switch_ring_status() : "yes");
	return 0;
}
