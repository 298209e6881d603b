/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * librwlab-preload.so - every pthread_rwlock of an unmodified program on an
 * rwlab variant (LD_PRELOAD). README "Real programs" is the user's guide.
 *
 *   LD_PRELOAD=build/librwlab-preload.so RWLAB_LOCK=rwsem ./program
 *
 * Environment:
 *   RWLAB_LOCK=NAME[:key=val,...]  variant (unset or "passthrough": glibc's
 *                                  own lock, observed only)
 *   RWLAB_CSV=FILE                 append statistics at exit as rwlab CSV rows
 *                                  (O_APPEND, one write per process); unset: a
 *                                  summary on stderr
 *   RWLAB_WORKLOAD, RWLAB_THREADS, RWLAB_ITERATION, RWLAB_RUN
 *                                  the workload/threads/iteration/run columns
 *                                  of those rows (`rwlab exec` sets them)
 *   RWLAB_QUIET=1                  no start-up notes
 *   RWLAB_TOP=K                    creation sites listed (default 5)
 *   RWLAB_TABLE_BITS=B             side table of 2^B slots (default 16; more
 *                                  live locks than fit go to an overflow
 *                                  list searched under the table mutex)
 * SIGUSR2 (when the program leaves it at SIG_DFL): the next rwlock call of
 * any thread prints the statistics so far on stderr.
 *
 * Interposed (POSIX.1-2017 and glibc 2.30 names): pthread_rwlock_init,
 * destroy, rdlock, tryrdlock, timedrdlock, clockrdlock, wrlock, trywrlock,
 * timedwrlock, clockwrlock, unlock. glibc's own definitions are reached
 * with dlsym(RTLD_NEXT).
 *
 * Design:
 * - side table: an open-addressing array of (lock address, entry) slots
 *   with lock-free lookup (load-acquire of the key); inserts and removals
 *   under one mutex; a key that probes more than PL_PROBE slots, or a full
 *   table, goes to an overflow list searched under the mutex. An entry is
 *   made on first use (statically initialised locks: PTHREAD_RWLOCK_INITIALIZER
 *   is never seen, only the first call) or by pthread_rwlock_init, and freed
 *   by pthread_rwlock_destroy after its statistics are folded into its
 *   creation site;
 * - each entry holds a struct lab_lock of the variant (its state is larger
 *   than pthread_rwlock_t, so it cannot live in the program's object); in
 *   passthrough mode, and for PTHREAD_PROCESS_SHARED locks (a per-process
 *   table cannot serve another process), glibc's lock on the program's
 *   object is used and only observed;
 * - per-thread read holds: a small array of (entry, count) per thread.
 *   On a variant, a read lock the thread already holds is re-entered by
 *   the count alone (POSIX allows recursive rdlock; writer-preferring
 *   variants would deadlock behind a queued writer). The write owner is a
 *   field of the entry (lab_current() of the holder). These make the POSIX
 *   errors detectable: EDEADLK for rdlock/wrlock by the write owner and for
 *   wrlock by a reader of the same thread; EPERM for an unlock by a thread
 *   that holds nothing; EBUSY for destroying a held lock. glibc detects only
 *   the first of these and corrupts its lock or hangs on the others;
 * - timed calls: pl_timed_acquire(). On a variant with down_read_timed /
 *   down_write_timed (rwsem.h: the kernel ports, pthread, pthread-wp) the
 *   waiter queues and sleeps like a blocking one until the deadline, then
 *   leaves through the variant's own cancellation path. On the others (and
 *   passthrough) a trylock is polled with exponential backoff (1 us .. 1 ms
 *   sleeps) until the deadline: such a waiter does not queue, so it can
 *   lose to blocking waiters until its deadline (ETIMEDOUT is then the
 *   correct answer);
 * - statistics per entry in PL_SHARDS cache-line shards chosen by the
 *   thread's task id (relaxed atomic adds on a line no other thread writes
 *   unless more than PL_SHARDS threads use the lock): read/write acquisitions, contended ones, trylock failures,
 *   timeouts, and the wait of contended ones (sum and log2 histogram); lock
 *   events of locks/events.h per thread, folded at thread exit and at the
 *   exit dump. Contended = the variant's trylock failed: a blocking or timed
 *   call first tries the trylock verb and only when it fails reads the clock
 *   and takes the variant's blocking path (as mutrace does). That keeps
 *   clock reads (150 ns each on a VM) off the uncontended path, at the price
 *   of one failed trylock before the variant's own slow path;
 * - reentrancy: variants that call pthread_rwlock_* themselves (pthread,
 *   pthread-wp) run with a thread-local flag set, and calls under it go
 *   straight to glibc.
 *
 * Variants need both trylock verbs (tryrdlock, trywrlock, timed calls);
 * the others are refused at start-up with the valid names.
 *
 * What it cannot do: locks used inside glibc itself (not through the PLT)
 * are not seen; a thread still running at exit has its lock events left out
 * (its acquisition counts are in); _exit() skips the exit statistics; more
 * than LAB_MAX_TASKS (1024) threads using locks at once abort, as in rwlab.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "context.h"
#include "csv.h"
#include "elfsym.h"
#include "events.h"
#include "rwsem.h"
#include "wait.h"

#define PL_EXPORT	__attribute__((visibility("default")))
#define PL_SHARDS	16		/* counter lines per lock: threads rarely share one */
#define PL_HIST		40		/* log2(ns) buckets: [2^i, 2^(i+1)) */
#define PL_HELD		16		/* read-held locks tracked per thread */
#define PL_PROBE	32
#define PL_DIAG_MAX	50		/* diagnostics printed; more are counted */
#define PL_TOMB		((uintptr_t)1)

/* ---- glibc's own functions -------------------------------------------- */

typedef int (*rw_fn)(pthread_rwlock_t *);
typedef int (*rw_timed_fn)(pthread_rwlock_t *, const struct timespec *);
typedef int (*rw_clock_fn)(pthread_rwlock_t *, clockid_t, const struct timespec *);

static struct {
	int (*init)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
	rw_fn destroy, rdlock, tryrdlock, wrlock, trywrlock, unlock;
	rw_timed_fn timedrdlock, timedwrlock;
	rw_clock_fn clockrdlock, clockwrlock;
} real;

/* ---- state ---------------------------------------------------------------- */

/* A lock's counters as one thread group updates them: one cache line. */
struct pl_count {
	uint64_t rd, wr, rd_cont, wr_cont, try_fail, timeouts, wait_ns;
} __lab_cacheline_aligned;

/* Summed statistics (a site, the process): counters and the contended-wait histogram. */
struct pl_shard {
	uint64_t rd, wr, rd_cont, wr_cont, try_fail, timeouts, wait_ns;
	uint64_t hist[PL_HIST];
};

struct pl_site {
	void *pc[2];			/* pthread_rwlock_init's caller and its caller */
	bool first_use;			/* static initialiser: the site of the first call */
	uint64_t locks;
	struct pl_shard sum;		/* folded statistics of destroyed locks */
};

struct pl_lock {
	pthread_rwlock_t *addr;
	bool passthrough;		/* glibc's lock on the program's object */
	struct lab_lock lock;		/* the variant, when !passthrough */
	struct lab_task *owner;		/* write owner or NULL (diagnostics, EDEADLK) */
	int site;			/* creation site, PL_SITE(site) */
	struct pl_lock *next;		/* overflow list */
	struct pl_count shard[PL_SHARDS];	/* by the thread's task id */
	uint64_t hist[PL_HIST];		/* contended waits (contended path only) */
};

struct pl_slot {
	uintptr_t key;			/* lock address, 0 (never used) or PL_TOMB */
	struct pl_lock *l;
};

struct pl_thread {
	struct { struct pl_lock *l; unsigned n; } held[PL_HELD];
	int nheld;
	unsigned untracked;		/* read holds beyond PL_HELD */
	bool registered;
};

static struct lab_rwsem_conf pl_conf;
static bool pl_on_variant;		/* RWLAB_LOCK names a variant */
static int pl_ready;			/* 1 once pl_init() is done */
static pthread_mutex_t pl_mutex = PTHREAD_MUTEX_INITIALIZER;	/* table inserts/removals, sites */
static struct pl_slot *pl_table;
static size_t pl_mask;
static struct pl_lock *pl_overflow;
/*
 * Creation sites, in chunks that never move: a diagnostic names a lock's
 * site without pl_mutex while another thread may be adding sites.
 */
#define PL_SITE_CHUNK	256
#define PL_SITE_CHUNKS	256
static struct pl_site *pl_site_chunk[PL_SITE_CHUNKS];
static int pl_nsites;
#define PL_SITE(i)	(&pl_site_chunk[(i) / PL_SITE_CHUNK][(i) % PL_SITE_CHUNK])
static int pl_top = 5;
static int pl_quiet;
static uint64_t pl_locks_made, pl_diag_count, pl_max_threads;
static int pl_live_threads;
static struct lab_events pl_events;	/* folded per-thread lock events, under pl_mutex */
static int pl_dump_request;
static pid_t pl_pid;
static bool pl_dumped;
static bool pl_csv_found;	/* RWLAB_CSV existed at start (rwlab exec makes it per run): append only */

/*
 * Whether RWLAB_CSV's file was there when this process, or the first
 * process of its tree, started: said to the processes it starts in
 * RWLAB_CSV_FOUND (set before main() reads the environment), so one
 * started after the file is gone does not make it again either.
 */
static void pl_csv_check(void)
{
	const char *csv = getenv("RWLAB_CSV");

	pl_csv_found = csv && *csv && (getenv("RWLAB_CSV_FOUND") || access(csv, F_OK) == 0);
	if (pl_csv_found)
		setenv("RWLAB_CSV_FOUND", "1", 0);
}

static __thread int pl_inside __attribute__((tls_model("initial-exec")));		/* inside a variant's verb or our own code */
static __thread struct pl_thread pl_self_tls __attribute__((tls_model("initial-exec")));
static pthread_key_t pl_thread_key;

/* ---- diagnostics ---------------------------------------------------------- */

static void pl_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void pl_say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(2, buf, (size_t)n) < 0)
		return;
}

static void pl_site_name(int site, char *buf, size_t len);

/* One line per misuse, naming the lock and where it was made. */
static void pl_misuse(const struct pl_lock *l, const char *call, const char *what)
{
	char site[320];
	uint64_t n = __atomic_add_fetch(&pl_diag_count, 1, __ATOMIC_RELAXED);

	if (n > PL_DIAG_MAX) {
		return;
	}
	pl_site_name(l->site, site, sizeof(site));
	pl_say("rwlab-preload: %s(%p) [lock made at %s]: %s%s", call, (void *)l->addr, site, what,
	       n == PL_DIAG_MAX ? " (further misuse is counted, not printed)" : "");
}

/* ---- init ----------------------------------------------------------------- */

static void *pl_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		pl_say("rwlab-preload: glibc has no %s (%s): glibc 2.30 or later is needed", name, dlerror());
		_exit(127);
	}
	return p;
}

static long pl_env_long(const char *name, long def, long min, long max)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		pl_say("rwlab-preload: %s='%s' is not an integer in [%ld, %ld]", name, s, min, max);
		_exit(2);
	}
	return v;
}

static void pl_parse_lock(void)
{
	const char *spec = getenv("RWLAB_LOCK");
	char err[512], names[1024], name[64];

	if (!spec || !*spec || !strcmp(spec, "passthrough")) {
		snprintf(pl_conf.label, sizeof(pl_conf.label), "passthrough");
		return;
	}
	lab_rwsem_preload_names(names, sizeof(names));	/* what RWLAB_LOCK takes: not "all", not percpu-rwsem */
	if (lab_rwsem_spec_unknown(spec, name, sizeof(name))) {
		pl_say("rwlab-preload: RWLAB_LOCK: unknown lock variant '%s' (valid: passthrough, %s)", name, names);
		_exit(2);
	}
	if (lab_rwsem_parse(spec, &pl_conf, err, sizeof(err))) {
		pl_say("rwlab-preload: RWLAB_LOCK: %s", err);
		_exit(2);
	}
	if (!lab_rwsem_preloadable(pl_conf.ops)) {
		pl_say("rwlab-preload: RWLAB_LOCK=%s: the variant has no %s, which tryrdlock/trywrlock and the "
		       "timed calls need (valid: passthrough, %s)", spec,
		       pl_conf.ops->caps & LAB_CAP_READ_TRYLOCK ? "down_write_trylock" : "down_read_trylock",
		       names);
		_exit(2);
	}
	pl_on_variant = true;
	if (pl_quiet)
		return;
	if (!(pl_conf.ops->caps & LAB_CAP_EXCLUSION))
		pl_say("rwlab-preload: %s gives no exclusion: the program's locked data will race", pl_conf.label);
	if (!(pl_conf.ops->caps & LAB_CAP_READ_RECURSIVE))
		pl_say("rwlab-preload: %s cannot take a recursive read behind a queued writer (it would deadlock); "
		       "a thread's re-read of a lock it holds is counted here instead, for up to %d read-held "
		       "locks per thread, beyond which the recursion reaches %s", pl_conf.label, PL_HELD,
		       pl_conf.ops->name);
}

static void pl_thread_exit(void *arg);
static void pl_atfork_prepare(void);
static void pl_atfork_parent(void);
static void pl_atfork_child(void);
static void pl_sigusr2(int sig);

static void pl_init(void)
{
	size_t slots;
	struct sigaction old;

	if (__atomic_load_n(&pl_ready, __ATOMIC_ACQUIRE) == 1)
		return;
	pthread_mutex_lock(&pl_mutex);
	if (pl_ready) {
		pthread_mutex_unlock(&pl_mutex);
		return;
	}
	pl_inside++;	/* calls made while initialising go to glibc */
	*(void **)&real.init = pl_sym("pthread_rwlock_init");
	*(void **)&real.destroy = pl_sym("pthread_rwlock_destroy");
	*(void **)&real.rdlock = pl_sym("pthread_rwlock_rdlock");
	*(void **)&real.tryrdlock = pl_sym("pthread_rwlock_tryrdlock");
	*(void **)&real.timedrdlock = pl_sym("pthread_rwlock_timedrdlock");
	*(void **)&real.clockrdlock = pl_sym("pthread_rwlock_clockrdlock");
	*(void **)&real.wrlock = pl_sym("pthread_rwlock_wrlock");
	*(void **)&real.trywrlock = pl_sym("pthread_rwlock_trywrlock");
	*(void **)&real.timedwrlock = pl_sym("pthread_rwlock_timedwrlock");
	*(void **)&real.clockwrlock = pl_sym("pthread_rwlock_clockwrlock");
	*(void **)&real.unlock = pl_sym("pthread_rwlock_unlock");
	pl_quiet = (int)pl_env_long("RWLAB_QUIET", 0, 0, 1);
	pl_top = (int)pl_env_long("RWLAB_TOP", 5, 0, 1000);
	slots = (size_t)1 << pl_env_long("RWLAB_TABLE_BITS", 16, 4, 26);
	pl_table = calloc(slots, sizeof(*pl_table));
	if (!pl_table) {
		pl_say("rwlab-preload: cannot allocate a table of %zu locks", slots);
		_exit(127);
	}
	pl_mask = slots - 1;
	pl_parse_lock();
	pl_csv_check();
	pl_pid = getpid();
	if (pthread_key_create(&pl_thread_key, pl_thread_exit) ||
	    pthread_atfork(pl_atfork_prepare, pl_atfork_parent, pl_atfork_child)) {
		pl_say("rwlab-preload: cannot set up thread-exit or fork handlers");
		_exit(127);
	}
	if (sigaction(SIGUSR2, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
		signal(SIGUSR2, pl_sigusr2);
	{
		/* glibc's backtrace() loads libgcc_s on first use: do it now, not inside a lock call. */
		void *pc[2];

		backtrace(pc, 2);
	}
	__atomic_store_n(&pl_ready, 1, __ATOMIC_RELEASE);
	pl_inside--;
	pthread_mutex_unlock(&pl_mutex);
}

__attribute__((constructor)) static void pl_constructor(void)
{
	pl_init();
}

/* Call glibc directly: our own code, a variant built on pthread_rwlock, or during init. */
static inline bool pl_bypass(void)
{
	if (pl_inside)
		return true;
	if (lab_unlikely(__atomic_load_n(&pl_ready, __ATOMIC_ACQUIRE) != 1)) {
		pl_init();
		return __atomic_load_n(&pl_ready, __ATOMIC_ACQUIRE) != 1;
	}
	return false;
}

/* ---- per thread ----------------------------------------------------------- */

static struct pl_thread *pl_self(void)
{
	struct pl_thread *t = &pl_self_tls;

	if (lab_unlikely(!t->registered)) {
		t->registered = true;
		pthread_setspecific(pl_thread_key, t);
		pthread_mutex_lock(&pl_mutex);
		if (++pl_live_threads > (int)pl_max_threads)
			pl_max_threads = (uint64_t)pl_live_threads;
		pthread_mutex_unlock(&pl_mutex);
	}
	return t;
}

/* Fold the calling thread's lock events into the process total (under pl_mutex). */
static void pl_fold_events_locked(void)
{
	lab_events_accumulate(&pl_events, &lab_events_tls);
	lab_events_reset();
}

static void pl_thread_exit(void *arg)
{
	struct pl_thread *t = arg;

	pthread_mutex_lock(&pl_mutex);
	pl_fold_events_locked();
	pl_live_threads--;
	pthread_mutex_unlock(&pl_mutex);
	/* A later destructor of the program may lock again: it registers anew. */
	t->registered = false;
}

static int pl_held_find(const struct pl_thread *t, const struct pl_lock *l)
{
	for (int i = 0; i < t->nheld; i++)
		if (t->held[i].l == l)
			return i;
	return -1;
}

static void pl_held_add(struct pl_thread *t, struct pl_lock *l)
{
	int i = pl_held_find(t, l);

	if (i >= 0) {
		t->held[i].n++;
	} else if (t->nheld < PL_HELD) {
		t->held[t->nheld].l = l;
		t->held[t->nheld++].n = 1;
	} else {
		t->untracked++;
	}
}

static void pl_held_drop(struct pl_thread *t, int i)
{
	if (--t->held[i].n == 0)
		t->held[i] = t->held[--t->nheld];
}

/* ---- creation sites --------------------------------------------------------- */

static int pl_site_get_locked(void *const pc[2], bool first_use)
{
	struct pl_site *st;
	int n = pl_nsites;

	for (int i = 0; i < n; i++) {
		st = PL_SITE(i);
		if (st->pc[0] == pc[0] && st->pc[1] == pc[1] && st->first_use == first_use)
			return i;
	}
	if (n == PL_SITE_CHUNK * PL_SITE_CHUNKS)
		return 0;	/* 65536 sites: the rest count into the first */
	if (!pl_site_chunk[n / PL_SITE_CHUNK]) {
		pl_site_chunk[n / PL_SITE_CHUNK] = calloc(PL_SITE_CHUNK, sizeof(struct pl_site));
		if (!pl_site_chunk[n / PL_SITE_CHUNK])
			return 0;
	}
	st = PL_SITE(n);
	st->pc[0] = pc[0];
	st->pc[1] = pc[1];
	st->first_use = first_use;
	__atomic_store_n(&pl_nsites, n + 1, __ATOMIC_RELEASE);
	return n;
}

/*
 * @pc as "function+0xOFF": the function from the object's own symbol table
 * where it has one (.symtab: static functions and an unstripped program's
 * own, which dladdr() cannot see; elfsym.h), else dladdr()'s nearest export,
 * else "object+0xOFF".
 */
static void pl_pc_name(void *pc, char *buf, size_t len)
{
	struct link_map *lm = NULL;
	struct lab_elf elf;
	char fn[256];
	uint64_t off;
	Dl_info di;
	const char *obj, *path;

	if (!pc) {
		snprintf(buf, len, "?");
		return;
	}
	if (!dladdr1(pc, &di, (void **)&lm, RTLD_DL_LINKMAP) || !di.dli_fname) {
		snprintf(buf, len, "%p", pc);
		return;
	}
	/* The main program's link map has no name: its file is /proc/self/exe. */
	path = lm && lm->l_name && *lm->l_name ? lm->l_name : lm ? "/proc/self/exe" : NULL;
	if (path && !lab_elf_open(&elf, path)) {
		bool found = lab_elf_func_at(&elf, (uint64_t)((uintptr_t)pc - lm->l_addr), fn, sizeof(fn), &off);

		lab_elf_close(&elf);
		if (found) {
			snprintf(buf, len, "%.100s+0x%llx", fn, (unsigned long long)off);
			return;
		}
	}
	obj = strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname;
	if (di.dli_sname)
		snprintf(buf, len, "%s+0x%lx", di.dli_sname, (unsigned long)((char *)pc - (char *)di.dli_saddr));
	else
		snprintf(buf, len, "%s+0x%lx", *obj ? obj : "main", (unsigned long)((char *)pc - (char *)di.dli_fbase));
}

static void pl_site_name(int site, char *buf, size_t len)
{
	char a[128], b[128];

	const struct pl_site *st;

	if (site < 0 || site >= __atomic_load_n(&pl_nsites, __ATOMIC_ACQUIRE)) {
		snprintf(buf, len, "?");
		return;
	}
	st = PL_SITE(site);
	pl_pc_name(st->pc[0], a, sizeof(a));
	pl_pc_name(st->pc[1], b, sizeof(b));
	snprintf(buf, len, "%s%s<%s", st->first_use ? "first use " : "", a, b);
}

/* ---- the side table ------------------------------------------------------- */

static inline size_t pl_hash(const void *addr)
{
	return (size_t)((((uintptr_t)addr >> 3) * 0x9e3779b97f4a7c15ull) >> 20) & pl_mask;
}

static struct pl_lock *pl_lookup(const pthread_rwlock_t *addr)
{
	size_t i = pl_hash(addr);

	for (int n = 0; n < PL_PROBE; n++, i = (i + 1) & pl_mask) {
		uintptr_t k = __atomic_load_n(&pl_table[i].key, __ATOMIC_ACQUIRE);

		if (k == (uintptr_t)addr)
			return __atomic_load_n(&pl_table[i].l, __ATOMIC_RELAXED);
		if (!k)
			return NULL;
	}
	return NULL;	/* the caller retries under pl_mutex, which also searches the overflow list */
}

static struct pl_lock *pl_lookup_locked(const pthread_rwlock_t *addr)
{
	struct pl_lock *l = pl_lookup(addr);

	for (struct pl_lock *o = pl_overflow; !l && o; o = o->next)
		if (o->addr == addr)
			l = o;
	return l;
}

static void pl_insert_locked(struct pl_lock *l)
{
	size_t i = pl_hash(l->addr);

	for (int n = 0; n < PL_PROBE; n++, i = (i + 1) & pl_mask) {
		uintptr_t k = pl_table[i].key;

		if (k == 0 || k == PL_TOMB) {
			__atomic_store_n(&pl_table[i].l, l, __ATOMIC_RELAXED);
			__atomic_store_n(&pl_table[i].key, (uintptr_t)l->addr, __ATOMIC_RELEASE);
			return;
		}
	}
	l->next = pl_overflow;
	pl_overflow = l;
}

static void pl_remove_locked(struct pl_lock *l)
{
	size_t i = pl_hash(l->addr);

	for (int n = 0; n < PL_PROBE; n++, i = (i + 1) & pl_mask) {
		if (pl_table[i].key == (uintptr_t)l->addr) {
			__atomic_store_n(&pl_table[i].key, PL_TOMB, __ATOMIC_RELEASE);
			return;
		}
	}
	for (struct pl_lock **pp = &pl_overflow; *pp; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			return;
		}
	}
}

/* @to += the counters of every shard of @l and its histogram. */
static void pl_lock_add(struct pl_shard *to, const struct pl_lock *l)
{
	for (int s = 0; s < PL_SHARDS; s++) {
		const struct pl_count *c = &l->shard[s];

		to->rd += __atomic_load_n(&c->rd, __ATOMIC_RELAXED);
		to->wr += __atomic_load_n(&c->wr, __ATOMIC_RELAXED);
		to->rd_cont += __atomic_load_n(&c->rd_cont, __ATOMIC_RELAXED);
		to->wr_cont += __atomic_load_n(&c->wr_cont, __ATOMIC_RELAXED);
		to->try_fail += __atomic_load_n(&c->try_fail, __ATOMIC_RELAXED);
		to->timeouts += __atomic_load_n(&c->timeouts, __ATOMIC_RELAXED);
		to->wait_ns += __atomic_load_n(&c->wait_ns, __ATOMIC_RELAXED);
	}
	for (int b = 0; b < PL_HIST; b++)
		to->hist[b] += __atomic_load_n(&l->hist[b], __ATOMIC_RELAXED);
}

static void pl_shard_add(struct pl_shard *to, const struct pl_shard *from)
{
	to->rd += __atomic_load_n(&from->rd, __ATOMIC_RELAXED);
	to->wr += __atomic_load_n(&from->wr, __ATOMIC_RELAXED);
	to->rd_cont += __atomic_load_n(&from->rd_cont, __ATOMIC_RELAXED);
	to->wr_cont += __atomic_load_n(&from->wr_cont, __ATOMIC_RELAXED);
	to->try_fail += __atomic_load_n(&from->try_fail, __ATOMIC_RELAXED);
	to->timeouts += __atomic_load_n(&from->timeouts, __ATOMIC_RELAXED);
	to->wait_ns += __atomic_load_n(&from->wait_ns, __ATOMIC_RELAXED);
	for (int b = 0; b < PL_HIST; b++)
		to->hist[b] += __atomic_load_n(&from->hist[b], __ATOMIC_RELAXED);
}

/*
 * Make the entry of @addr. @pshared: glibc keeps it (another process may use
 * it). @first_use: a statically initialised lock seen for the first time.
 */
static struct pl_lock *pl_create_locked(pthread_rwlock_t *addr, void *const pc[2], bool first_use, bool pshared)
{
	struct pl_lock *l = aligned_alloc(64, (sizeof(*l) + 63) & ~(size_t)63);

	if (!l)
		return NULL;
	memset(l, 0, sizeof(*l));
	l->addr = addr;
	l->passthrough = !pl_on_variant || pshared;
	if (!l->passthrough) {
		int r;

		pl_inside++;
		r = lab_lock_init(&l->lock, &pl_conf);
		pl_inside--;
		if (r) {
			pl_say("rwlab-preload: %s: cannot make a lock (%s); this one stays on glibc", pl_conf.label,
			       strerror(-r));
			l->passthrough = true;
		}
	}
	l->site = pl_site_get_locked(pc, first_use);
	if (pl_site_chunk[0])
		PL_SITE(l->site)->locks++;
	pl_locks_made++;
	pl_insert_locked(l);
	return l;
}

static void pl_free_locked(struct pl_lock *l)
{
	pl_remove_locked(l);
	if (pl_site_chunk[0])
		pl_lock_add(&PL_SITE(l->site)->sum, l);
	if (!l->passthrough) {
		pl_inside++;
		lab_lock_destroy(&l->lock);
		pl_inside--;
	}
	free(l);
}

/*
 * Address ranges of our own object and of sanitizer runtimes (whose
 * interceptors sit in front of ours), found once: dladdr() per frame is a
 * linear search of the object's symbols, milliseconds for libcrypto.
 */
struct pl_range {
	uintptr_t lo, hi;
};
static struct pl_range pl_self_range, pl_san_range[4];
static int pl_nsan;

static int pl_range_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct pl_range r = { UINTPTR_MAX, 0 };
	uintptr_t self = (uintptr_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < r.lo)
			r.lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > r.hi)
			r.hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (self >= r.lo && self < r.hi)
		pl_self_range = r;
	else if (info->dlpi_name && strstr(info->dlpi_name, "san.so") && pl_nsan < 4)
		pl_san_range[pl_nsan++] = r;
	return 0;
}

static bool pl_in(const struct pl_range *r, const void *pc)
{
	return (uintptr_t)pc >= r->lo && (uintptr_t)pc < r->hi;
}

static bool pl_in_san(const void *pc)
{
	for (int i = 0; i < pl_nsan; i++)
		if (pl_in(&pl_san_range[i], pc))
			return true;
	return false;
}

/*
 * The two frames that called into the preload: the caller of pthread_rwlock_*
 * and its caller. Only at a lock's creation (backtrace() takes microseconds).
 */
static void pl_callers(void *pc[2])
{
	static int ranges_done;
	void *bt[12];
	int n, i = 0;

	pl_inside++;
	if (!__atomic_load_n(&ranges_done, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&pl_mutex);
		if (!ranges_done) {
			dl_iterate_phdr(pl_range_cb, (void *)&pl_mutex);
			__atomic_store_n(&ranges_done, 1, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&pl_mutex);
	}
	n = backtrace(bt, 12);
	/* Skip what comes before our frames (a sanitizer's backtrace interceptor), then ours, */
	while (i < n && !pl_in(&pl_self_range, bt[i]))
		i++;
	while (i < n && pl_in(&pl_self_range, bt[i]))
		i++;
	/* ... then a sanitizer's pthread_rwlock_* interceptor in front of ours. */
	while (i < n && pl_in_san(bt[i]))
		i++;
	pl_inside--;
	pc[0] = i < n ? bt[i] : NULL;
	pc[1] = i + 1 < n ? bt[i + 1] : NULL;
}

/* The entry of @addr, made on first use (a statically initialised lock). */
static struct pl_lock *pl_get(pthread_rwlock_t *addr)
{
	struct pl_lock *l = pl_lookup(addr);
	void *pc[2];

	if (lab_likely(l != NULL))
		return l;
	pl_callers(pc);
	pthread_mutex_lock(&pl_mutex);
	l = pl_lookup_locked(addr);
	if (!l)
		l = pl_create_locked(addr, pc, true, false);
	pthread_mutex_unlock(&pl_mutex);
	if (!l) {
		pl_say("rwlab-preload: out of memory for the lock at %p", (void *)addr);
		abort();
	}
	return l;
}

/* ---- statistics ----------------------------------------------------------- */

static void pl_dump(const char *why);

static inline struct pl_count *pl_shard_of(struct pl_lock *l)
{
	return &l->shard[lab_current()->id & (PL_SHARDS - 1)];
}

/* One acquisition; @contended: its trylock failed and it waited @wait_ns. */
static inline void pl_account(struct pl_lock *l, bool write, bool contended, uint64_t wait_ns)
{
	struct pl_count *s = pl_shard_of(l);

	__atomic_fetch_add(write ? &s->wr : &s->rd, 1, __ATOMIC_RELAXED);
	if (contended) {
		int b = wait_ns ? 63 - __builtin_clzll(wait_ns) : 0;

		__atomic_fetch_add(write ? &s->wr_cont : &s->rd_cont, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->wait_ns, wait_ns, __ATOMIC_RELAXED);
		__atomic_fetch_add(&l->hist[b < PL_HIST ? b : PL_HIST - 1], 1, __ATOMIC_RELAXED);
	}
	if (lab_unlikely(__atomic_load_n(&pl_dump_request, __ATOMIC_RELAXED)) &&
	    __atomic_exchange_n(&pl_dump_request, 0, __ATOMIC_RELAXED))
		pl_dump("SIGUSR2");
}

static void pl_sigusr2(int sig)
{
	(void)sig;
	__atomic_store_n(&pl_dump_request, 1, __ATOMIC_RELAXED);
}

/* ---- the verbs -------------------------------------------------------------- */

static inline void pl_enter(void) { pl_inside++; }
static inline void pl_leave(void) { pl_inside--; }

static int pl_try(struct pl_lock *l, bool write)
{
	int ok;

	if (l->passthrough)
		return (write ? real.trywrlock : real.tryrdlock)(l->addr);
	pl_enter();
	ok = write ? lab_down_write_trylock(&l->lock) : lab_down_read_trylock(&l->lock);
	pl_leave();
	return ok ? 0 : EBUSY;
}

static int pl_block(struct pl_lock *l, bool write)
{
	if (l->passthrough)
		return (write ? real.wrlock : real.rdlock)(l->addr);
	pl_enter();
	if (write)
		lab_down_write(&l->lock);
	else
		lab_down_read(&l->lock);
	pl_leave();
	return 0;
}

static void pl_release(struct pl_lock *l, bool write)
{
	if (l->passthrough) {
		real.unlock(l->addr);
		return;
	}
	pl_enter();
	if (write)
		lab_up_write(&l->lock);
	else
		lab_up_read(&l->lock);
	pl_leave();
}

/* @ts as nanoseconds; a time before the epoch counts as 0 (long past). */
static uint64_t pl_ts_ns(const struct timespec *ts)
{
	return ts->tv_sec < 0 ? 0 : (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

/*
 * pl_timed_poll() - the fallback for variants without down_*_timed (and for
 * passthrough locks, whose glibc trylock is all the preload has): a trylock
 * polled with exponential backoff, 1 us doubling to at most 1 ms sleeps,
 * never past the deadline. Such a timed waiter does not queue.
 */
static int pl_timed_poll(struct pl_lock *l, bool write, clockid_t clockid, const struct timespec *abstime)
{
	uint64_t backoff = 1000, deadline = pl_ts_ns(abstime);

	for (;;) {
		struct timespec now, ts;
		uint64_t t, left;

		if (pl_try(l, write) == 0)
			return 0;
		clock_gettime(clockid, &now);
		t = pl_ts_ns(&now);
		if (t >= deadline)
			return ETIMEDOUT;
		left = deadline - t;
		if (backoff > left)
			backoff = left;
		ts.tv_sec = (time_t)(backoff / 1000000000ull);
		ts.tv_nsec = (long)(backoff % 1000000000ull);
		nanosleep(&ts, NULL);
		if (backoff < 1000000)
			backoff *= 2;
	}
}

/*
 * pl_timed_variant() - the variant's own down_read_timed/down_write_timed
 * (rwsem.h): the waiter queues like a blocking one and leaves through the
 * variant's cancellation path at the deadline. @abstime on @clockid becomes
 * a lab_clock_ns() (CLOCK_MONOTONIC) deadline once, here: a CLOCK_REALTIME
 * step during the wait is not followed (glibc's futex wait would follow it).
 * A deadline already past is passed as one in the past (never 0, which
 * means none): a free lock is still taken, as POSIX allows. The preload
 * sends no fatal signals, so -EINTR means another user of locks/ did; the
 * flag is cleared and the wait resumed with the same deadline.
 */
static int pl_timed_variant(struct pl_lock *l, bool write, clockid_t clockid, const struct timespec *abstime)
{
	struct timespec now;
	uint64_t mono = lab_clock_ns(), at = pl_ts_ns(abstime), t, deadline;
	int r;

	clock_gettime(clockid, &now);
	t = pl_ts_ns(&now);
	deadline = at > t ? mono + (at - t) : (mono > 1 ? mono - 1 : 1);
	pl_enter();
	do {
		r = write ? lab_down_write_timed(&l->lock, deadline) : lab_down_read_timed(&l->lock, deadline);
		if (r == -EINTR)
			lab_clear_fatal_signal();
	} while (r == -EINTR);
	pl_leave();
	return r == -ETIMEDOUT ? ETIMEDOUT : r;
}

/* pl_timed_acquire() - take @l before @abstime on @clockid, or ETIMEDOUT. */
static int pl_timed_acquire(struct pl_lock *l, bool write, clockid_t clockid, const struct timespec *abstime)
{
	if (!l->passthrough && l->lock.ops->down_read_timed && l->lock.ops->down_write_timed)
		return pl_timed_variant(l, write, clockid, abstime);
	return pl_timed_poll(l, write, clockid, abstime);
}

enum pl_how { PL_BLOCK, PL_TRY, PL_TIMED };

/* rdlock, wrlock and their try/timed forms. */
static int pl_lock(pthread_rwlock_t *rw, bool write, enum pl_how how, clockid_t clockid,
		   const struct timespec *abstime, const char *call)
{
	struct pl_thread *t = pl_self();
	struct pl_lock *l = pl_get(rw);
	struct lab_task *me = lab_current();
	int held = pl_held_find(t, l), r;
	uint64_t t0 = 0;
	bool contended = false;

	if (how == PL_TIMED && !abstime)
		how = PL_BLOCK;		/* as glibc: no deadline, no timeout */
	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) {
		/* glibc answers EDEADLK here too: a defined error, not a misuse to report. */
		return how == PL_TRY ? EBUSY : EDEADLK;
	}
	if (write && held >= 0) {
		if (how == PL_TRY)
			return EBUSY;
		pl_misuse(l, call, "the calling thread holds it for read (an upgrade would deadlock): EDEADLK");
		return EDEADLK;
	}
	if (how == PL_TIMED && ((clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC) ||
				abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000))
		return EINVAL;
	if (!write && held >= 0 && !l->passthrough) {
		/* A recursive read: POSIX grants it; the variant might queue it behind a writer. */
		t->held[held].n++;
		pl_account(l, false, false, 0);
		return 0;
	}
	r = pl_try(l, write);
	if (r && how != PL_TRY) {
		contended = true;
		t0 = lab_clock_ns();
		if (how == PL_BLOCK)
			r = pl_block(l, write);
		else
			r = pl_timed_acquire(l, write, clockid, abstime);
	}
	if (r) {
		struct pl_count *s = pl_shard_of(l);

		__atomic_fetch_add(r == ETIMEDOUT ? &s->timeouts : &s->try_fail, 1, __ATOMIC_RELAXED);
		return r;
	}
	if (write)
		__atomic_store_n(&l->owner, me, __ATOMIC_RELAXED);
	else
		pl_held_add(t, l);
	pl_account(l, write, contended, contended ? lab_clock_ns() - t0 : 0);
	return 0;
}

PL_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
	if (pl_bypass())
		return real.rdlock(rw);
	return pl_lock(rw, false, PL_BLOCK, 0, NULL, "pthread_rwlock_rdlock");
}

PL_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
	if (pl_bypass())
		return real.wrlock(rw);
	return pl_lock(rw, true, PL_BLOCK, 0, NULL, "pthread_rwlock_wrlock");
}

PL_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
	if (pl_bypass())
		return real.tryrdlock(rw);
	return pl_lock(rw, false, PL_TRY, 0, NULL, "pthread_rwlock_tryrdlock");
}

PL_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
	if (pl_bypass())
		return real.trywrlock(rw);
	return pl_lock(rw, true, PL_TRY, 0, NULL, "pthread_rwlock_trywrlock");
}

PL_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
	if (pl_bypass())
		return real.timedrdlock(rw, abstime);
	return pl_lock(rw, false, PL_TIMED, CLOCK_REALTIME, abstime, "pthread_rwlock_timedrdlock");
}

PL_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
	if (pl_bypass())
		return real.timedwrlock(rw, abstime);
	return pl_lock(rw, true, PL_TIMED, CLOCK_REALTIME, abstime, "pthread_rwlock_timedwrlock");
}

PL_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clockid, const struct timespec *abstime)
{
	if (pl_bypass())
		return real.clockrdlock(rw, clockid, abstime);
	return pl_lock(rw, false, PL_TIMED, clockid, abstime, "pthread_rwlock_clockrdlock");
}

PL_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clockid, const struct timespec *abstime)
{
	if (pl_bypass())
		return real.clockwrlock(rw, clockid, abstime);
	return pl_lock(rw, true, PL_TIMED, clockid, abstime, "pthread_rwlock_clockwrlock");
}

PL_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
	struct pl_thread *t;
	struct pl_lock *l;
	int held;

	if (pl_bypass())
		return real.unlock(rw);
	t = pl_self();
	l = pl_get(rw);
	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == lab_current()) {
		__atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
		pl_release(l, true);
		return 0;
	}
	held = pl_held_find(t, l);
	if (held >= 0) {
		/* On a variant only the last of a thread's recursive reads releases it. */
		if (l->passthrough || t->held[held].n == 1)
			pl_release(l, false);
		pl_held_drop(t, held);
		return 0;
	}
	if (t->untracked) {
		/* Beyond PL_HELD read holds: trust that this is one of them. */
		t->untracked--;
		pl_release(l, false);
		return 0;
	}
	pl_misuse(l, "pthread_rwlock_unlock",
		  __atomic_load_n(&l->owner, __ATOMIC_RELAXED) ?
		  "the calling thread does not hold it (another thread holds it for write): EPERM, lock unchanged" :
		  "the calling thread does not hold it: EPERM, lock unchanged");
	return EPERM;
}

/* Held by anyone? A write trylock answers (and is undone). 0 = free. */
static int pl_held_by_anyone(struct pl_lock *l)
{
	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED))
		return 1;
	if (pl_try(l, true))
		return 1;
	pl_release(l, true);
	return 0;
}

PL_EXPORT int pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *attr)
{
	int pshared = PTHREAD_PROCESS_PRIVATE, r;
	struct pl_lock *old;
	void *pc[2];

	if (pl_bypass())
		return real.init(rw, attr);
	pl_self();
	r = real.init(rw, attr);	/* validates @attr; keeps the program's object a valid glibc lock */
	if (r)
		return r;
	if (attr)
		pthread_rwlockattr_getpshared(attr, &pshared);
	pl_callers(pc);
	pthread_mutex_lock(&pl_mutex);
	old = pl_lookup_locked(rw);
	if (old) {
		/* Initialising a live lock again (POSIX: undefined): start a new one. */
		if (old->owner || pl_held_find(&pl_self_tls, old) >= 0)
			pl_misuse(old, "pthread_rwlock_init", "re-initialising a held lock: the old state is dropped");
		pl_free_locked(old);
	}
	old = pl_create_locked(rw, pc, false, pshared == PTHREAD_PROCESS_SHARED);
	pthread_mutex_unlock(&pl_mutex);
	return old ? 0 : ENOMEM;
}

PL_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
	struct pl_lock *l;
	bool passthrough;

	if (pl_bypass())
		return real.destroy(rw);
	pl_self();
	pthread_mutex_lock(&pl_mutex);
	l = pl_lookup_locked(rw);
	pthread_mutex_unlock(&pl_mutex);
	if (!l)
		return pl_on_variant ? 0 : real.destroy(rw);	/* never used since its init */
	if (pl_held_find(&pl_self_tls, l) >= 0 || pl_held_by_anyone(l)) {
		pl_misuse(l, "pthread_rwlock_destroy",
			  l->owner ? "destroying a lock held for write: EBUSY, lock kept" :
				     "destroying a lock held for read: EBUSY, lock kept");
		return EBUSY;
	}
	passthrough = l->passthrough;
	pthread_mutex_lock(&pl_mutex);
	pl_free_locked(l);
	pthread_mutex_unlock(&pl_mutex);
	return passthrough ? real.destroy(rw) : 0;
}

/* ---- fork ----------------------------------------------------------------- */

static void pl_atfork_prepare(void)
{
	pthread_mutex_lock(&pl_mutex);
}

static void pl_atfork_parent(void)
{
	pthread_mutex_unlock(&pl_mutex);
}

static void pl_zero_lock_stats(struct pl_lock *l)
{
	memset(l->shard, 0, sizeof(l->shard));
	memset(l->hist, 0, sizeof(l->hist));
}

static void pl_zero_stats_locked(void)
{
	for (size_t i = 0; i <= pl_mask; i++)
		if (pl_table[i].key > PL_TOMB)
			pl_zero_lock_stats(pl_table[i].l);
	for (struct pl_lock *o = pl_overflow; o; o = o->next)
		pl_zero_lock_stats(o);
	for (int s = 0; s < pl_nsites; s++)
		memset(&PL_SITE(s)->sum, 0, sizeof(PL_SITE(s)->sum));
	memset(&pl_events, 0, sizeof(pl_events));
	lab_events_reset();
	pl_locks_made = 0;
	/* the child's one thread, the forking one: counted if it used locks already, else at its first (pl_self()) */
	pl_live_threads = pl_self_tls.registered;
	pl_max_threads = (uint64_t)pl_live_threads;
	pl_diag_count = 0;
}

/* Say which locks the child inherits held, as glibc would leave them. */
static void pl_fork_check(struct pl_lock *l)
{
	struct lab_task *me = lab_current();

	if (l->owner == me)
		pl_misuse(l, "fork", "held for write by the forking thread: the child's only thread still holds it");
	else if (l->owner)
		pl_misuse(l, "fork", "held for write by another thread, which the child does not have: "
				     "taking it in the child blocks for ever (as with glibc)");
	else if (pl_held_find(&pl_self_tls, l) >= 0)
		pl_misuse(l, "fork", "held for read by the forking thread: the child still holds that read");
	else if (pl_held_by_anyone(l))
		pl_misuse(l, "fork", "held for read by another thread, which the child does not have: "
				     "a writer in the child blocks for ever (as with glibc)");
}

static void pl_atfork_child(void)
{
	pthread_mutex_init(&pl_mutex, NULL);
	pl_pid = getpid();
	pl_dumped = false;
	pl_zero_stats_locked();
	for (size_t i = 0; i <= pl_mask; i++)
		if (pl_table[i].key > PL_TOMB)
			pl_fork_check(pl_table[i].l);
	for (struct pl_lock *o = pl_overflow; o; o = o->next)
		pl_fork_check(o);
}

/* ---- the exit (and SIGUSR2) dump ------------------------------------------ */

struct pl_total {
	struct pl_shard s;
	uint64_t locks;
};

/* Percentile @p of the wait of contended acquisitions: its log2 bucket's upper bound. */
static uint64_t pl_percentile(const struct pl_shard *s, double p)
{
	uint64_t n = s->rd_cont + s->wr_cont, want, seen = 0;

	if (!n)
		return 0;
	want = (uint64_t)(p * (double)n + 0.999999);
	if (want < 1)
		want = 1;
	for (int b = 0; b < PL_HIST; b++) {
		seen += s->hist[b];
		if (seen >= want)
			return b ? ((uint64_t)2 << b) - 1 : 1;	/* the bucket's upper bound */
	}
	return (uint64_t)1 << PL_HIST;
}

static uint64_t pl_max_wait(const struct pl_shard *s)
{
	for (int b = PL_HIST - 1; b >= 0; b--)
		if (s->hist[b])
			return b ? ((uint64_t)2 << b) - 1 : 1;
	return 0;
}

/* Per-site sums of destroyed and live locks, and the process total (under pl_mutex). */
static struct pl_shard *pl_collect_locked(struct pl_shard *total)
{
	struct pl_shard *site = calloc((size_t)(pl_nsites ? pl_nsites : 1), sizeof(*site));

	if (!site)
		return NULL;
	for (int i = 0; i < pl_nsites; i++)
		site[i] = PL_SITE(i)->sum;
	for (size_t i = 0; i <= pl_mask; i++) {
		struct pl_lock *l;

		if (__atomic_load_n(&pl_table[i].key, __ATOMIC_ACQUIRE) <= PL_TOMB)
			continue;
		l = pl_table[i].l;
		pl_lock_add(&site[l->site], l);
	}
	for (struct pl_lock *o = pl_overflow; o; o = o->next)
		pl_lock_add(&site[o->site], o);
	memset(total, 0, sizeof(*total));
	for (int i = 0; i < pl_nsites; i++)
		pl_shard_add(total, &site[i]);
	return site;
}

/* Sites in order of contended wait, then acquisitions; at most @k. */
static int pl_top_sites(const struct pl_shard *site, int *order, int k)
{
	int n = 0;

	for (int i = 0; i < pl_nsites; i++) {
		uint64_t key_w = site[i].wait_ns, key_a = site[i].rd + site[i].wr;
		int j;

		if (!key_a)
			continue;
		for (j = n; j > 0; j--) {
			const struct pl_shard *o = &site[order[j - 1]];

			if (o->wait_ns > key_w || (o->wait_ns == key_w && o->rd + o->wr >= key_a))
				break;
			if (j < k)
				order[j] = order[j - 1];
		}
		if (j < k) {
			order[j] = i;
			if (n < k)
				n++;
		}
	}
	return n;
}

static void pl_summary(const struct pl_shard *tot, const struct pl_shard *site, const char *why)
{
	int order[64], k = pl_top < 64 ? pl_top : 64, n;
	char name[320];

	pl_say("rwlab-preload: pid %d %s on %s%s%s: %llu locks, %llu acquisitions (%llu read, %llu write), "
	       "%llu contended (trylock failed first), their wait p50 %llu ns p99 %llu ns max %llu ns, %llu "
	       "trylock failures, %llu timeouts, %llu misuses",
	       (int)pl_pid, program_invocation_short_name, pl_conf.label, why ? " at " : "", why ? why : "",
	       (unsigned long long)pl_locks_made, (unsigned long long)(tot->rd + tot->wr),
	       (unsigned long long)tot->rd, (unsigned long long)tot->wr,
	       (unsigned long long)(tot->rd_cont + tot->wr_cont),
	       (unsigned long long)pl_percentile(tot, 0.50), (unsigned long long)pl_percentile(tot, 0.99),
	       (unsigned long long)pl_max_wait(tot), (unsigned long long)tot->try_fail,
	       (unsigned long long)tot->timeouts, (unsigned long long)pl_diag_count);
	n = pl_top_sites(site, order, k);
	if (n)
		pl_say("rwlab-preload: hottest locks by creation site (init's caller<its caller), by contended wait:");
	for (int i = 0; i < n; i++) {
		const struct pl_shard *s = &site[order[i]];

		pl_site_name(order[i], name, sizeof(name));
		pl_say("  %-60s %5llu locks %10llu acq %8llu contended %10.3f ms waited", name,
		       (unsigned long long)PL_SITE(order[i])->locks, (unsigned long long)(s->rd + s->wr),
		       (unsigned long long)(s->rd_cont + s->wr_cont), (double)s->wait_ns / 1e6);
	}
}

static void pl_row(struct lab_buf *b, const struct lab_context *ctx, const char *run, const char *workload,
		   int threads, int iteration, const char *metric, double v, const char *unit)
{
	lab_csv_row_prefix(b, run, pl_conf.label, workload, threads, iteration);
	lab_csv_row_rest(b, metric, v, unit, ctx->host, "none");
}

static void pl_csv(const char *path, const struct pl_shard *tot, const struct pl_shard *site)
{
	struct lab_context ctx;
	struct lab_buf b = { 0 };
	const char *run = getenv("RWLAB_RUN"), *wl = getenv("RWLAB_WORKLOAD");
	int threads = (int)pl_env_long("RWLAB_THREADS", (long)pl_max_threads, 0, 1 << 20);
	int it = (int)pl_env_long("RWLAB_ITERATION", 0, 0, 1 << 30);
	int order[64], n, fd;
	char runbuf[64], name[400];
	struct lab_events ev = pl_events;
	struct lab_event_set set = { 0 };	/* passthrough: none */

	lab_events_accumulate(&ev, &lab_events_tls);
	if (pl_on_variant)
		lab_rwsem_conf_events(&pl_conf, &set);
	if (!run) {
		lab_csv_run_id(runbuf, sizeof(runbuf));
		run = runbuf;
	}
	if (!wl)
		wl = program_invocation_short_name;
	lab_context_get(&ctx);
	lab_csv_context_line(&b, run, &ctx, "none");	/* with this process's rows: one write (O_APPEND) */
#define ROW(m, v, u) pl_row(&b, &ctx, run, wl, threads, it, (m), (double)(v), (u))
	ROW("preload.acquisitions", tot->rd + tot->wr, "count");
	ROW("preload.read_acquisitions", tot->rd, "count");
	ROW("preload.write_acquisitions", tot->wr, "count");
	ROW("preload.contended", tot->rd_cont + tot->wr_cont, "count");
	ROW("preload.wait", (double)tot->wait_ns / 1e9, "s");
	/* Percentiles and maximum: of the contended acquisitions' waits. */
	ROW("preload.wait_p50", pl_percentile(tot, 0.50), "ns");
	ROW("preload.wait_p90", pl_percentile(tot, 0.90), "ns");
	ROW("preload.wait_p99", pl_percentile(tot, 0.99), "ns");
	ROW("preload.wait_max", pl_max_wait(tot), "ns");
	ROW("preload.trylock_failures", tot->try_fail, "count");
	ROW("preload.timeouts", tot->timeouts, "count");
	ROW("preload.locks", pl_locks_made, "count");
	ROW("preload.misuse", pl_diag_count, "count");
	ROW("preload.processes", 1, "count");
	for (int e = 0; e < LAB_EV_NR; e++) {	/* the events the variant counts, 0 too: as rwlab run writes them */
		if (!set.has[e])
			continue;
		snprintf(name, sizeof(name), "event.%s", lab_event_names[e]);
		ROW(name, ev.count[e], "count");
	}
	n = pl_top_sites(site, order, pl_top < 64 ? pl_top : 64);
	for (int i = 0; i < n; i++) {
		char sn[320];
		const struct pl_shard *s = &site[order[i]];

		pl_site_name(order[i], sn, sizeof(sn));
		snprintf(name, sizeof(name), "site.%s.acquisitions", sn);
		ROW(name, s->rd + s->wr, "count");
		snprintf(name, sizeof(name), "site.%s.contended", sn);
		ROW(name, s->rd_cont + s->wr_cont, "count");
		snprintf(name, sizeof(name), "site.%s.wait", sn);
		ROW(name, (double)s->wait_ns / 1e9, "s");
	}
#undef ROW
	/*
	 * A file there at start is only appended to: once it is gone (rwlab exec
	 * removes it when its run ends) a process that outlived the run writes
	 * nothing, rather than leave a new file behind.
	 */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | (pl_csv_found ? 0 : O_CREAT), 0644);
	if (fd < 0 && errno == ENOENT && pl_csv_found) {
		lab_buf_free(&b);
		return;
	}
	if (fd >= 0 && lseek(fd, 0, SEEK_END) == 0) {
		/* The first process to write makes the header (two racing ones make two: readers skip it). */
		struct lab_buf h = { 0 };

		lab_csv_header(&h);
		lab_buf_printf(&h, "%.*s", (int)b.len, b.p);
		lab_buf_free(&b);
		b = h;
	}
	if (fd < 0 || write(fd, b.p, b.len) != (ssize_t)b.len)
		pl_say("rwlab-preload: cannot write statistics to RWLAB_CSV='%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	lab_buf_free(&b);
}

static void pl_dump(const char *why)
{
	struct pl_shard tot, *site;
	const char *csv = getenv("RWLAB_CSV");

	pl_inside++;
	pthread_mutex_lock(&pl_mutex);
	site = pl_collect_locked(&tot);
	if (site) {
		if (csv && *csv && !why)
			pl_csv(csv, &tot, site);
		else
			pl_summary(&tot, site, why);
		free(site);
	}
	pthread_mutex_unlock(&pl_mutex);
	pl_inside--;
}

__attribute__((destructor)) static void pl_destructor(void)
{
	if (__atomic_load_n(&pl_ready, __ATOMIC_ACQUIRE) != 1 || pl_dumped || getpid() != pl_pid)
		return;
	pl_dumped = true;
	pl_dump(NULL);
}
