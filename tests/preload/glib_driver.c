/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * GLib GRWLock driver for the LD_PRELOAD tests: THREADS threads (every
 * fourth one a writer) hammer two GRWLocks, one static (GLib makes its
 * pthread_rwlock_t on first use) and one g_rw_lock_init()ed and cleared.
 * Writers bump the eight words of a payload one by one; readers check that
 * all eight are equal (a torn payload means the lock let a reader in during
 * a write).
 *
 *   glib_driver [THREADS [ITERS]]      (defaults 4, 20000)
 *
 * Prints "acquisitions: N" (the GRWLock calls it made); exits 1 on a torn
 * read or a wrong final count, 2 on bad arguments.
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 8

static GRWLock static_lock;		/* zero-initialised: GLib's documented static use */
static GRWLock dyn_lock;
static volatile long payload[2][WORDS];
static long iters;
static gint torn, writers;

static void one(GRWLock *l, volatile long *p, gboolean write)
{
	if (write) {
		g_rw_lock_writer_lock(l);
		for (int w = 0; w < WORDS; w++)
			p[w]++;
		g_rw_lock_writer_unlock(l);
	} else {
		long first;

		g_rw_lock_reader_lock(l);
		first = p[0];
		for (int w = 1; w < WORDS; w++)
			if (p[w] != first)
				g_atomic_int_inc(&torn);
		g_rw_lock_reader_unlock(l);
	}
}

static gpointer worker(gpointer arg)
{
	gboolean write = GPOINTER_TO_INT(arg) % 4 == 0;

	for (long i = 0; i < iters; i++) {
		one(&static_lock, payload[0], write);
		one(&dyn_lock, payload[1], write);
	}
	return NULL;
}

static long arg(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 1 || v > 100000000) {
		fprintf(stderr, "glib_driver: %s '%s' is not a positive integer\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)arg(argv[1], "THREADS") : 4;
	GThread **t = g_new0(GThread *, n);
	int bad = 0;

	iters = argc > 2 ? arg(argv[2], "ITERS") : 20000;
	g_rw_lock_init(&dyn_lock);
	for (int i = 0; i < n; i++) {
		writers += i % 4 == 0;
		t[i] = g_thread_new("rw", worker, GINT_TO_POINTER(i));
	}
	for (int i = 0; i < n; i++)
		g_thread_join(t[i]);
	g_rw_lock_clear(&dyn_lock);
	for (int k = 0; k < 2; k++)
		for (int w = 0; w < WORDS; w++)
			if (payload[k][w] != writers * iters)
				bad = 1;
	printf("acquisitions: %ld\n", 2 * n * iters);
	if (torn || bad) {
		printf("WRONG: %d torn reads, final counts %s\n", torn, bad ? "wrong" : "right");
		return 1;
	}
	printf("ok\n");
	g_free(t);
	return 0;
}
