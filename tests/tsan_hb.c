/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tsan_hb - does a variant order critical sections? A plain-memory check for
 * ThreadSanitizer builds (Criterion cannot run under TSan: its inheritable
 * arena fails to map, Snaipe/Criterion#274, so this is a plain program).
 *
 * usage: tsan_hb SPEC...   (each a -l style variant spec)
 *
 * Per spec, twice (writers back to back; writers sleeping 10 ms after each
 * section, so that read fast paths get used): 2 writers and 2 readers for
 * LAB_DURATION_SCALE x 300 ms, and on until each has made one section (at
 * most 60 s more: a worker shut out that long fails the check). Writers
 * update two plain (non-atomic) words under down_write, readers read them
 * under down_read and check that they agree; at the end the words must equal
 * the number of write sections. Under TSan a missing happens-before edge
 * between sections is reported as a data race on those words (TSan's exit
 * code then fails the test); in any build a torn pair or a lost update fails
 * it. Mixes in the trylock verbs where the variant has them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "atomic.h"
#include "rwsem.h"
#include "wait.h"

struct shared {
	struct lab_lock lock;
	unsigned long a, b;	/* plain on purpose: only the lock orders them */
	int stop;
};

struct worker {
	struct shared *sh;
	bool writer;
	uint64_t write_gap_ns;	/* writers sleep this long after each write section */
	unsigned long sections, torn;
	int ran;		/* set after the first section: the window waits for every worker */
	pthread_t tid;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	const struct lab_rwsem_ops *ops = sh->lock.ops;
	unsigned long i = 0;

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		bool try = (++i & 7) == 0;

		if (w->writer) {
			if (try && ops->down_write_trylock) {
				if (!lab_down_write_trylock(&sh->lock))
					continue;
			} else {
				lab_down_write(&sh->lock);
			}
			sh->a++;
			lab_delay(10);
			sh->b++;
			lab_up_write(&sh->lock);
			if (w->write_gap_ns)
				lab_sleep_ns(w->write_gap_ns);
		} else {
			unsigned long a, b;

			if (try && ops->down_read_trylock) {
				if (!lab_down_read_trylock(&sh->lock))
					continue;
			} else {
				lab_down_read(&sh->lock);
			}
			a = sh->a;
			lab_delay(10);
			b = sh->b;
			lab_up_read(&sh->lock);
			w->torn += a != b;
		}
		if (!w->sections++)
			__atomic_store_n(&w->ran, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int check(const char *spec, uint64_t ns, uint64_t write_gap_ns)
{
	struct lab_rwsem_conf conf;
	struct shared sh = { .a = 0 };
	struct worker w[4];
	unsigned long writes = 0, reads = 0, torn = 0;
	char err[512];

	if (lab_rwsem_parse(spec, &conf, err, sizeof(err)) || lab_lock_init(&sh.lock, &conf)) {
		fprintf(stderr, "tsan_hb: %s: cannot set up: %s\n", spec, err);
		return 1;
	}
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .sh = &sh, .writer = i < 2, .write_gap_ns = write_gap_ns };
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]))
			abort();
	}
	/*
	 * The window lasts @ns and then until every worker has finished one section (on a loaded
	 * 2-CPU machine back-to-back writers can keep readers out for a whole 300 ms window, which
	 * would make the check vacuous, not wrong); a worker still shut out after 60 s fails it.
	 */
	lab_sleep_ns(ns);
	for (int waited = 0; waited < 6000; waited++) {
		int all = 1;

		for (int i = 0; i < 4; i++)
			all &= __atomic_load_n(&w[i].ran, __ATOMIC_RELAXED);
		if (all)
			break;
		lab_sleep_ns(10000000);
	}
	__atomic_store_n(&sh.stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++) {
		pthread_join(w[i].tid, NULL);
		*(w[i].writer ? &writes : &reads) += w[i].sections;
		torn += w[i].torn;
	}
	lab_lock_destroy(&sh.lock);
	printf("tsan_hb %-24s gap %3lu ms: writes %lu reads %lu torn %lu a %lu b %lu\n", spec,
	       (unsigned long)(write_gap_ns / 1000000), writes, reads, torn, sh.a, sh.b);
	return torn || sh.a != writes || sh.b != writes || !writes || !reads;
}

int main(int argc, char **argv)
{
	const char *s = getenv("LAB_DURATION_SCALE");
	double scale = s && atof(s) > 0 ? atof(s) : 1.0;
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: tsan_hb SPEC...\n");
		return 2;
	}
	/* Writers back to back, then writers 10 ms apart (read-mostly: fast paths, bias, rcu_sync exits). */
	for (int i = 1; i < argc; i++) {
		bad += check(argv[i], (uint64_t)(300e6 * scale), 0);
		bad += check(argv[i], (uint64_t)(300e6 * scale), 10000000);
	}
	return bad ? 1 : 0;
}
