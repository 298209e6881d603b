/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwlab-calibrate: the microbenchmarks behind a machine file's costs
 * (sim/machines/NAME.machine; docs/simulator.md §1: every cost comes from a
 * published measurement of the modelled hardware or from a microbenchmark
 * run here and recorded).
 *
 * Each metric is measured in REPEATS repeats after one warm-up batch; a
 * repeat's figure is the median of 7 sub-batches, a sub-batch's figure its
 * total time over its operations (for c2c the median of its chunks of 1000
 * round trips, for the wake-to-run latency the median of its samples).
 * Printed: the median of the repeats, their minimum and maximum, all in the
 * unit named. Medians, because on a shared virtual machine a batch during
 * which a vCPU was descheduled is an outlier.
 *
 *   c2c            CAS ping-pong on one 64-byte line between two pinned
 *                  threads on CPUs A and B: round trip / 2, as
 *                  nviennot/core-to-core-latency measures it.
 *   rmw.local      dependent `lock xadd` on a line the thread owns.
 *   rcas*_pair     two threads' read-then-cmpxchg loops on one line: ns per
 *                  success and attempts per success, plain, with PREFETCHW
 *                  first, and with the cmpxchg's address depending on the
 *                  loaded value (below).
 *   turn_*         one operation per turn on a line the other core wrote
 *                  last (lock xadd, load, load + cmpxchg with and without
 *                  the address dependence, PREFETCHW first): ns per turn.
 *   load.local     dependent load chain on one L1-resident line.
 *   mem.local      dependent load chain through a random cyclic permutation
 *                  of the lines of a 256 MiB buffer (huge pages asked for
 *                  with MADV_HUGEPAGE; TLB misses remain where refused).
 *   relax          one PAUSE (cpu_relax), in bursts of 1000 with gaps (no
 *                  hypervisor pause-loop exit can trigger).
 *   relax_loop     one PAUSE in an endless run of PAUSEs, as a spinning
 *                  lock issues them (includes pause-loop exits, if any).
 *   syscall        syscall(SYS_getpid): entry and exit only.
 *   futex_wake     FUTEX_WAKE with no waiter: the caller's cost.
 *   futex_wait     FUTEX_WAIT whose value no longer matches (EAGAIN): the
 *                  caller's cost of entering and checking, without sleeping.
 *   ctxsw          two threads pinned on CPU A exchanging one byte over two
 *                  pipes: time per hop (one pipe write, one wake-up, one
 *                  context switch, one pipe read).
 *   wakeup         FUTEX_WAKE on CPU A until the waiter, asleep on idle CPU
 *                  B, runs (CLOCK_MONOTONIC read on both sides); samples
 *                  whose waiter had not yet slept are discarded.
 *   ipi            membarrier(PRIVATE_EXPEDITED) from CPU A while a thread
 *                  of the same process spins on CPU B (one IPI, waited for)
 *                  minus the same call with B idle (no IPI): the IPI round
 *                  trip as the kernel's smp_call_function_many sees it.
 *   page_fault     first touch (a write) of a 4 KiB anonymous page (timed in
 *                  thread CPU time, as fault_read): fault
 *                  entry and exit, VMA lookup, page allocation, zeroing,
 *                  PTE set.
 *   fault_read     first read of a 4 KiB anonymous page: the kernel maps
 *                  the shared zero page (fault entry and exit, VMA lookup,
 *                  PTE set; no allocation, no zeroing). page_fault minus
 *                  fault_read minus 4 KiB at the zeroing bandwidth is the
 *                  page allocation (the machine files' cost.page_alloc_ns).
 *   hpage_fault    first touch (a write) of a 2 MiB anonymous page that the
 *                  kernel backs with a transparent huge page (MADV_HUGEPAGE,
 *                  2 MiB aligned; thread CPU time): fault entry and exit, an
 *                  order-9 allocation with its compound-page prep (the 512
 *                  struct pages), clearing 2 MiB, the PMD set. Minus
 *                  fault_read and 2 MiB at the zeroing bandwidth it is the
 *                  huge-page allocation (cost.hpage_alloc_ns). Batches whose
 *                  pages were not all huge (AnonHugePages) abort the run.
 *   rand_store     one 8-byte store at a random index of a pre-faulted
 *                  256 MiB region on huge pages (usemem --random's loop:
 *                  xorshift index, p[idx] = idx; independent stores, so
 *                  their misses overlap as the core allows), thread CPU
 *                  time per store (cost.rand_store_ns).
 *   bw.memset      memset of a 64 MiB buffer, bytes written per second.
 *   bw.memcpy      memcpy between two 64 MiB buffers, bytes copied per
 *                  second (STREAM would count twice that).
 *   exec_yield     the combined rate of two threads on CPUs A and B running
 *                  the same integer loop over one thread's rate alone (2.0:
 *                  nothing shared; 1..2: SMT siblings): smt.exec_yield.
 *   spread_*_pct   the spread of one cost from call to call, the source of
 *                  the engine's seeded jitter (sim/engine.h): per sample,
 *                  the interquartile half-width over the median, in percent
 *                  (a uniform factor in [1 - w, 1 + w] has w / 2): syscall
 *                  (samples of 4 getpid calls), relax (100 PAUSEs), wakeup
 *                  (the wake-to-run samples of wakeup_ns).
 *
 * Usage: rwlab-calibrate [--quick] [--cpus A,B] [--repeats N] [--only M1,M2,...]
 * Output: comment lines ('#') naming the host, then one line per metric:
 *   METRIC<TAB>MEDIAN<TAB>MIN<TAB>MAX<TAB>UNIT<TAB>REPEATS
 * Native timing: figures are contaminated by whatever else runs on the
 * machine; the tool prints the load average before and after, and a metric
 * measured while other tasks held its CPUs gets a '# loaded:' line after its
 * own and one warning on stderr at the end (below, "other tasks' time").
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define LINE 64

static int cpu_a, cpu_b = 1;
static int repeats = 11;
static double scale = 1.0;	/* --quick: 1/20 of the operations */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long ops(long n)
{
	long s = (long)(n * scale);

	return s < 16 ? 16 : s;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "rwlab-calibrate: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

static long futex(atomic_int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* ---- other tasks' time ------------------------------------------------- */

/*
 * Another task that runs on CPU A or B while a measuring thread wants it
 * stretches the figure; a two-thread figure becomes nonsense, one thread
 * spinning through the other's time slices (faa_run_len read 14285 under
 * eight busy loops: a batch without one handover). Each sub-batch reads what
 * its threads lost from /proc/thread-self/schedstat (ns run, ns runnable
 * but waiting for the CPU): a thread alone on its CPU lost its wait; two
 * threads on one CPU (ctxsw, each waiting for the other by design) lost the
 * CPU's time that neither ran. A sub-batch that lost over LOADED_PCT % of its
 * time was delayed; a repeat whose sub-batches were mostly delayed was loaded
 * (its median may be a delayed sub-batch's figure); a metric with at least
 * half its repeats loaded gets its '# loaded:' line.
 */
#define LOADED_PCT 10

struct sched_ns {
	long long ran, waited;
};

/* This thread's run and wait times: 0, or -1 where the kernel does not say. */
static int sched_ns(struct sched_ns *s)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	int n = f ? fscanf(f, "%lld %lld", &s->ran, &s->waited) : 0;

	if (f)
		fclose(f);
	return n == 2 ? 0 : -1;
}

static int load_unknown;	/* no schedstat: nothing is marked loaded */
static int nloaded;		/* metrics given a '# loaded:' line */

/* The peers that ended: their waits alone on CPU B, their run time on CPU A beside main. */
static _Atomic long long peer_waited, peer_ran_a;
static _Atomic int peers_on_a;

static void *(*peer_fn)(void *);	/* one peer at a time: set before it starts */
static int peer_cpu;

static void *peer_main(void *arg)
{
	int on_a = peer_cpu == cpu_a;
	struct sched_ns s0, s1;
	int known = !sched_ns(&s0);

	peer_fn(arg);
	if (known && !sched_ns(&s1)) {
		if (on_a)
			atomic_fetch_add(&peer_ran_a, s1.ran - s0.ran);
		else
			atomic_fetch_add(&peer_waited, s1.waited - s0.waited);
	}
	atomic_fetch_add(&peers_on_a, on_a);
	return NULL;
}

/*
 * A measurement's second thread, started on @cpu (not first on the
 * creator's CPU, behind a creator that spins until it checks in).
 */
static void peer_start(pthread_t *t, void *(*fn)(void *), int cpu)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	peer_fn = fn;
	peer_cpu = cpu;
	err = pthread_create(t, &attr, peer_main, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		fprintf(stderr, "rwlab-calibrate: cannot start a thread on CPU %d: %s\n", cpu, strerror(err));
		exit(1);
	}
}

struct load_mark {
	double t;
	struct sched_ns main;
	long long peer_waited, peer_ran_a;
	int peers_on_a;
};

static void load_mark(struct load_mark *m)
{
	if (!load_unknown && sched_ns(&m->main))
		load_unknown = 1;
	m->peer_waited = atomic_load(&peer_waited);
	m->peer_ran_a = atomic_load(&peer_ran_a);
	m->peers_on_a = atomic_load(&peers_on_a);
	m->t = now_ns();
}

/* Whether the measuring threads lost over LOADED_PCT % of the time since @m to other tasks. */
static int load_delayed(const struct load_mark *m)
{
	struct load_mark n;
	double lost;

	load_mark(&n);
	if (load_unknown)
		return 0;
	if (n.peers_on_a != m->peers_on_a)	/* a peer beside main on CPU A */
		lost = (n.t - m->t) - (n.main.ran - m->main.ran) - (n.peer_ran_a - m->peer_ran_a);
	else
		lost = (n.main.waited - m->main.waited) + (n.peer_waited - m->peer_waited);
	return lost * 100 > LOADED_PCT * (n.t - m->t);
}

/* @metric's median may be a loaded figure (@loaded of the repeats were): say so. Returns whether it did. */
static int note_loaded(const char *metric, int loaded)
{
	if (2 * loaded < repeats)
		return 0;
	printf("# loaded: %s: other tasks took over %d%% of the measuring threads' time in most sub-batches of %d of %d repeats\n",
	       metric, LOADED_PCT, loaded, repeats);
	fflush(stdout);
	nloaded++;
	return 1;
}

/*
 * A figure no quiet machine gives is a loaded one even where schedstat saw
 * no lost time: a vCPU's steal time, or a sibling hyperthread busy with
 * another guest's or process's work, slows a thread without descheduling it
 * in this kernel's view. exec_yield above EXEC_YIELD_MAX: two threads on two
 * CPUs run at most twice one's rate (a little more from the pair's warm
 * caches: 1.92-2.14 on the lent 16-vCPU machines, results/sim/README.md),
 * so the runs alone were slowed.
 */
#define EXEC_YIELD_MAX 2.5

static void note_implausible(const char *metric, double med, double max, const char *why)
{
	printf("# loaded: %s: %.3f is above %.1f, %s\n", metric, med, max, why);
	fflush(stdout);
	nloaded++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One batch: returns its figure (ns per op, or GB/s). */
typedef double (*batch_fn)(void);

static double report(const char *metric, const char *unit, double *v, int n)
{
	double med = median(v, n);

	printf("%s\t%.3f\t%.3f\t%.3f\t%s\t%d\n", metric, med, v[0], v[n - 1], unit, n);
	fflush(stdout);
	return med;
}

/*
 * A repeat's figure is the median of SUBS sub-batches of 1/SUBS of the
 * operations each: on a shared (virtual) machine a sub-batch during which
 * the vCPU was descheduled is an outlier, not the figure.
 */
#define SUBS 7
#define MAX_REPEATS 101

static int sub_delayed;	/* of the last sub_median()'s sub-batches */

static double sub_median(batch_fn fn)
{
	double sub[SUBS], full = scale;
	struct load_mark m;

	scale = full / SUBS;
	sub_delayed = 0;
	for (int j = 0; j < SUBS; j++) {
		load_mark(&m);
		sub[j] = fn();
		sub_delayed += load_delayed(&m);
	}
	scale = full;
	return median(sub, SUBS);
}

static const char *only;	/* --only: the metrics to measure (comma-separated), NULL: all */

/* every name --only takes: main's measure() and wanted() calls, in their order (the three
 * membarrier/IPI figures are one measurement: any of them prints all three) */
static const char *const metric_names[] = {
	"c2c_ns", "faa_pair_ns", "faa_run_len", "rcas_pair_ns", "rcas_pair_attempts",
	"rcasw_pair_ns", "rcasw_pair_attempts", "rcasdep_pair_ns",
	"rcasdep_pair_attempts", "turn_faa_ns", "turn_load_ns", "turn_rcas_ns",
	"turn_rcasdep_ns", "turn_rcasw_ns", "rmw_hold_ns", "exec_yield",
	"rmw_local_ns", "load_local_ns", "relax_ns", "relax_loop_ns", "mem_local_ns",
	"syscall_ns", "futex_wake_ns", "futex_wait_ns", "ctxsw_ns", "wakeup_ns",
	"spread_syscall_pct", "spread_relax_pct", "spread_wakeup_pct",
	"membarrier_alone_ns", "membarrier_ipi_ns", "ipi_roundtrip_ns", "page_fault_ns", "fault_read_ns", "hpage_fault_ns",
	"rand_store_ns", "memset_gbs", "memcpy_gbs",
};

static int wanted(const char *metric)
{
	size_t n = strlen(metric);

	for (const char *p = only; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
		if (!strncmp(p, metric, n) && (p[n] == ',' || !p[n]))
			return 1;
	return !only;
}

/* @metric's repeats, its line and its mark. Returns the median (0 when not wanted); *@marked: loaded said. */
static double measure_marked(const char *metric, const char *unit, batch_fn fn, int *marked)
{
	double v[MAX_REPEATS], med;
	int loaded = 0;

	*marked = 0;
	if (!wanted(metric))
		return 0;
	fn();			/* warm-up */
	for (int i = 0; i < repeats; i++) {
		v[i] = sub_median(fn);
		loaded += 2 * sub_delayed > SUBS;
	}
	med = report(metric, unit, v, repeats);
	*marked = note_loaded(metric, loaded);
	return med;
}

static void measure(const char *metric, const char *unit, batch_fn fn)
{
	int marked;

	measure_marked(metric, unit, fn, &marked);
}

/* ---- core to core ---------------------------------------------------- */

static _Alignas(LINE) atomic_long pingpong;
static _Alignas(LINE) atomic_int go;
static long c2c_rounds;

static void *c2c_pong(void *arg)
{
	(void)arg;
	while (!atomic_load(&go))
		cpu_relax();
	for (long i = 0; i < c2c_rounds; i++) {
		long want = 2 * i + 1;

		while (!atomic_compare_exchange_strong(&pingpong, &want, 2 * i + 2))
			want = 2 * i + 1;
	}
	return NULL;
}

/* The figure of a batch: its median chunk of C2C_CHUNK round trips. */
#define C2C_CHUNK 1000
#define C2C_MAX_CHUNKS 1024

static double c2c_batch(void)
{
	static double chunk[C2C_MAX_CHUNKS];
	long nchunks;
	pthread_t t;
	double t0;

	nchunks = ops(1000000) / C2C_CHUNK;
	nchunks = nchunks < 5 ? 5 : nchunks > C2C_MAX_CHUNKS ? C2C_MAX_CHUNKS : nchunks;
	c2c_rounds = nchunks * C2C_CHUNK;
	atomic_store(&pingpong, 0);
	atomic_store(&go, 0);
	peer_start(&t, c2c_pong, cpu_b);
	pin(cpu_a);
	atomic_store(&go, 1);
	for (long c = 0; c < nchunks; c++) {
		t0 = now_ns();
		for (long i = c * C2C_CHUNK; i < (c + 1) * C2C_CHUNK; i++) {
			long want = 2 * i;

			while (!atomic_compare_exchange_strong(&pingpong, &want, 2 * i + 1))
				want = 2 * i;
		}
		chunk[c] = (now_ns() - t0) / (2.0 * C2C_CHUNK);
	}
	pthread_join(t, NULL);
	return median(chunk, (int)nchunks);
}

/*
 * Two threads, on cpu_a and cpu_b, start @loop(side) from one barrier;
 * returns the ns from the barrier until both are done (the later loop's
 * end: the peer's exit and the join are not timed). The loop is called
 * once per thread, so the indirect call is outside what it times.
 */
static _Alignas(LINE) atomic_int pair_go;
static _Alignas(LINE) _Atomic double pair_end;	/* the peer's loop ended then; 0 before */
static void (*pair_loop)(int side);

static void *pair_peer(void *arg)
{
	(void)arg;
	atomic_fetch_add(&pair_go, 1);
	while (atomic_load(&pair_go) < 2)
		;
	pair_loop(1);
	atomic_store(&pair_end, now_ns());
	return NULL;
}

static double pair_run(void (*loop)(int side))
{
	pthread_t t;
	double t0, t1, t1_peer;

	pair_loop = loop;
	atomic_store(&pair_go, 0);
	atomic_store(&pair_end, 0);
	peer_start(&t, pair_peer, cpu_b);
	pin(cpu_a);
	while (atomic_load(&pair_go) < 1)
		;
	t0 = now_ns();
	atomic_fetch_add(&pair_go, 1);
	loop(0);
	t1 = now_ns();
	while (!(t1_peer = atomic_load(&pair_end)))
		cpu_relax();
	pthread_join(t, NULL);
	return (t1 > t1_peer ? t1 : t1_peer) - t0;
}

/*
 * Two threads hammering lock xadd on one line (Travis Downs' "atomic add"
 * at 2 threads): ns per operation of the pair (window / both threads'
 * operations), and the run length: operations a thread makes in a row
 * before the other gets the line (its xadd returned its own previous
 * result + 1; Travis Downs' RAC check), whose mean above 1 shows the line
 * staying with a core for more than one locked RMW.
 */
static _Alignas(LINE) atomic_long faa_line;
static _Alignas(LINE) long faa_runs[2];
static long faa_n;

static void faa_loop(int side)
{
	long prev = -2, consec = 0;

	for (long i = 0; i < faa_n; i++) {
		long v = atomic_fetch_add(&faa_line, 1);

		consec += v == prev + 1;
		prev = v;
	}
	faa_runs[side] = faa_n - consec;	/* runs: first ops of a run */
}

static double faa_pair(double *run_len)
{
	double dt;

	faa_n = ops(2000000);
	dt = pair_run(faa_loop);
	*run_len = 2.0 * faa_n / (faa_runs[0] + faa_runs[1]);
	return dt / (2.0 * faa_n);
}

static double faa_pair_batch(void)
{
	double rl;

	return faa_pair(&rl);
}

static double faa_run_len_batch(void)
{
	double rl;

	faa_pair(&rl);
	return rl;
}

/*
 * The read-then-cmpxchg loop between two cores (atomics rcas, Travis Downs'
 * "cas add", v5.16's down_read_trylock): each thread makes rcas_n
 * successes of v = load(line); while (!cmpxchg(line, &v, v + 1)); ns per
 * success of the pair (total time over both threads' successes) and cmpxchg
 * attempts per success. Variants that tell how the core takes the line:
 *   rcas     the plain loop.
 *   rcasw    PREFETCHW of the line before the load (the kernel's
 *            prefetchw() before a cmpxchg loop): the line asked for with
 *            ownership first.
 *   rcasdep  the cmpxchg's address depends on the loaded value (+ v & z,
 *            z a zero the compiler cannot see): the core cannot issue the
 *            cmpxchg's ownership request until the load's data is back, so
 *            the load takes a shared copy and the cmpxchg upgrades it.
 * Against c2c_ns, ns per success says how many transfers a success costs.
 */
static _Alignas(LINE) atomic_long rcas_line;
static _Alignas(LINE) long rcas_att[2];
static long rcas_n;
static int rcas_mode;		/* 0 rcas, 1 rcasw, 2 rcasdep */
static volatile long rcas_zero;	/* 0, unknown to the compiler */

static void rcas_loop(int side)
{
	long att = 0, z = rcas_zero;

	for (long i = 0; i < rcas_n; i++) {
		atomic_long *p = &rcas_line;
		long v;

		if (rcas_mode == 1)
			__asm__ volatile("prefetchw %0" :: "m"(*(char *)p));
		v = atomic_load_explicit(p, memory_order_relaxed);
		if (rcas_mode == 2)
			p = (atomic_long *)((char *)p + (v & z));
		att++;
		while (!atomic_compare_exchange_strong(p, &v, v + 1))
			att++;
	}
	rcas_att[side] = att;
}

static double rcas_pair(int mode, double *attempts)
{
	double dt;

	rcas_mode = mode;
	rcas_n = ops(1000000);
	dt = pair_run(rcas_loop);
	*attempts = (double)(rcas_att[0] + rcas_att[1]) / (2.0 * rcas_n);
	return dt / (2.0 * rcas_n);
}

static double rcas_ns_batch(void) { double a; return rcas_pair(0, &a); }
static double rcas_att_batch(void) { double a; rcas_pair(0, &a); return a; }
static double rcasw_ns_batch(void) { double a; return rcas_pair(1, &a); }
static double rcasw_att_batch(void) { double a; rcas_pair(1, &a); return a; }
static double rcasdep_ns_batch(void) { double a; return rcas_pair(2, &a); }
static double rcasdep_att_batch(void) { double a; rcas_pair(2, &a); return a; }

/*
 * One read-then-cmpxchg per turn, the line always last written by the other
 * core: two threads take turns through a flag on a second line (thread i
 * waits until the flag is 2k + i, makes its operation on the target line,
 * then stores 2k + i + 1 to the flag), so each operation finds the target
 * line modified in the other core's cache, as the first access of a
 * contended read-first trylock does. ns per turn for:
 *   turn_faa      lock xadd: one ownership transfer of the target line
 *   turn_load     a plain load of it: one read snoop (the operation that
 *                 ends the turn is the flag's store only)
 *   turn_rcas     load, then lock cmpxchg on it (the cmpxchg's address is
 *                 known at once: its ownership request can go out with the
 *                 load)
 *   turn_rcasdep  the same, the cmpxchg's address depending on the loaded
 *                 value: the load must bring a copy before the cmpxchg can
 *                 ask for ownership (a second transfer, the upgrade)
 *   turn_rcasw    PREFETCHW, then load, then lock cmpxchg
 * turn_rcas close to turn_faa says the read and the cmpxchg take the line
 * once; close to turn_rcasdep, twice. The figure is the median over chunks
 * of 1000 rounds (as c2c's): a chunk in which a vCPU was descheduled is an
 * outlier.
 */
static _Alignas(LINE) atomic_long turn_flag;
static _Alignas(LINE) atomic_long turn_line;
static _Alignas(LINE) atomic_int turn_go;
static long turn_n;
static int turn_mode;		/* 0 faa, 1 load, 2 rcas, 3 rcasdep, 4 rcasw */
static long turn_sink;

static double turn_chunk[C2C_MAX_CHUNKS];

static void turn_loop(long side)
{
	long z = rcas_zero, sink = 0;
	double t0 = 0;

	for (long i = 0; i < turn_n; i++) {
		long want = 2 * i + side;
		atomic_long *p = &turn_line;
		long v;

		if (!side && !(i % C2C_CHUNK)) {
			double t1 = now_ns();

			if (i)
				turn_chunk[i / C2C_CHUNK - 1] = (t1 - t0) / (2.0 * C2C_CHUNK);
			t0 = t1;
		}
		while (atomic_load_explicit(&turn_flag, memory_order_acquire) != want)
			;
		switch (turn_mode) {
		case 0:
			atomic_fetch_add(p, 1);
			break;
		case 1:
			sink += atomic_load_explicit(p, memory_order_relaxed);
			break;
		default:
			if (turn_mode == 4)
				__asm__ volatile("prefetchw %0" :: "m"(*(char *)p));
			v = atomic_load_explicit(p, memory_order_relaxed);
			if (turn_mode == 3)
				p = (atomic_long *)((char *)p + (v & z));
			while (!atomic_compare_exchange_strong(p, &v, v + 1))
				;
			break;
		}
		atomic_store_explicit(&turn_flag, want + 1, memory_order_release);
	}
	turn_sink = sink;
}

static void *turn_peer(void *arg)
{
	(void)arg;
	atomic_fetch_add(&turn_go, 1);
	turn_loop(1);
	return NULL;
}

static double turn_batch(int mode)
{
	pthread_t t;
	long nchunks;

	nchunks = ops(200000) / C2C_CHUNK;
	nchunks = nchunks < 5 ? 5 : nchunks > C2C_MAX_CHUNKS ? C2C_MAX_CHUNKS : nchunks;
	turn_mode = mode;
	turn_n = nchunks * C2C_CHUNK + 1;	/* the last chunk ends at the extra round's start */
	atomic_store(&turn_flag, -1);
	atomic_store(&turn_go, 0);
	peer_start(&t, turn_peer, cpu_b);
	pin(cpu_a);
	while (atomic_load(&turn_go) < 1)
		;
	atomic_store(&turn_flag, 0);
	turn_loop(0);
	pthread_join(t, NULL);
	return median(turn_chunk, (int)nchunks);
}

static double turn_faa_batch(void) { return turn_batch(0); }
static double turn_load_batch(void) { return turn_batch(1); }
static double turn_rcas_batch(void) { return turn_batch(2); }
static double turn_rcasdep_batch(void) { return turn_batch(3); }
static double turn_rcasw_batch(void) { return turn_batch(4); }

/*
 * Execution sharing between CPUs A and B (the machine key smt.exec_yield,
 * sim/work.c): one thread runs N steps of a loop alone on A, then a thread
 * on A and one on B run N steps each from one barrier (each twice: the shorter
 * run counts, so that a run the host delayed biases neither way); the figure is the pair's
 * combined rate over the one thread's, t_alone / t_A + t_alone / t_B (each
 * thread's own time). 2.0 on two cores that share nothing; between 1 and 2 on
 * SMT siblings, or on vCPUs that the host runs on one core's two threads.
 * The loop stands for kernel-path work: an xorshift step, a load from an
 * L1-resident 4 KiB table at the step's index, a branch on the loaded value
 * (taken at random: mispredicted about half the time) and dependent integer
 * work on either side. No shared line is written.
 */
static uint64_t yield_table[512];
static _Alignas(LINE) volatile uint64_t yield_sink[2][LINE / 8];
static double yield_dt[2];
static long yield_n;

static uint64_t yield_work(long n, uint64_t x)
{
	uint64_t acc = 0;

	for (long i = 0; i < n; i++) {
		uint64_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = yield_table[x & 511];
		if (v & 1)
			acc += v * 3 + (acc >> 3);
		else
			acc ^= v + (acc << 1);
	}
	/* the loop reads only a table whose address never escapes: without this,
	 * the compiler may sink it past the clock read that ends the timing */
	__asm__ volatile("" : "+r"(acc) : : "memory");
	return acc;
}

static void yield_loop(int side)
{
	double t0 = now_ns();

	yield_sink[side][0] = yield_work(yield_n, (uint64_t)side + 88172645463325252ull);
	yield_dt[side] = now_ns() - t0;
}

static double exec_yield_batch(void)
{
	double t0, alone, dt_a, dt_b;

	if (!yield_table[0])
		for (int i = 0; i < 512; i++)
			yield_table[i] = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1) ^ ((uint64_t)rand() << 16);
	yield_n = ops(4000000);
	pin(cpu_a);
	/* the shorter of two runs alone: a run the host delayed (steal, another
	 * guest) would raise the figure above 2 on cores that share nothing */
	alone = 1e300;
	for (int r = 0; r < 2; r++) {
		double dt;

		t0 = now_ns();
		yield_sink[0][0] = yield_work(yield_n, 88172645463325252ull);
		dt = now_ns() - t0;
		if (dt < alone)
			alone = dt;
	}
	pair_run(yield_loop);
	dt_a = yield_dt[0], dt_b = yield_dt[1];
	pair_run(yield_loop);	/* as alone: each side's shorter of two runs */
	if (yield_dt[0] < dt_a)
		dt_a = yield_dt[0];
	if (yield_dt[1] < dt_b)
		dt_b = yield_dt[1];
	return alone / dt_a + alone / dt_b;
}

/*
 * The hold window: after a core's locked RMW brings the line from another
 * core, how long does the line stay while that other core keeps asking for
 * it? Core B hammers lock xadd on the line; core A waits until B has taken
 * it, makes one xadd (a fresh grant: B made an xadd since A's last one),
 * then a gap of dependent ALU work (a multiply-add chain that starts on the
 * xadd's result, so the gap begins when that xadd completes; the second
 * xadd's operand depends on the chain's end, so it cannot start earlier),
 * then a second xadd. It found the line still there when it returned the
 * first's result + 1 (B made no xadd in between). No clock is read inside
 * a sample. The figure of a batch is the gap at which half the second xadds
 * were local (linear between the measured gaps; 0 when even the shortest
 * gap found it gone). The per-gap fractions of the last batch are printed
 * as comment lines. The chain's ns per step is timed alone first.
 */
#define HOLD_GAPS 10
static const double hold_gap_ns[HOLD_GAPS] = { 0, 2, 4, 8, 16, 32, 64, 128, 256, 512 };
static double chain_ns;		/* ns per step of hold_chain() */
static volatile long hold_zero;	/* 0, unknown to the compiler */
static _Alignas(LINE) atomic_long hold_line;
static _Alignas(LINE) atomic_int hold_stop;
static double hold_last_p[HOLD_GAPS], hold_last_gap[HOLD_GAPS];

static inline long hold_chain(long x, long steps)
{
	unsigned long u = (unsigned long)x;	/* wraps by definition: a signed x * 3 overflows (UB) */

	for (long i = 0; i < steps; i++) {
		u = u * 3 + 1;
		__asm__ volatile("" : "+r"(u));
	}
	return (long)u;
}

static void *hold_hammer(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&hold_stop, memory_order_relaxed))
		atomic_fetch_add(&hold_line, 1);
	return NULL;
}

static double hold_batch(void)
{
	long per_gap = ops(20000) < 200 ? 200 : ops(20000), z = hold_zero;
	double p[HOLD_GAPS];
	pthread_t t;

	pin(cpu_a);
	if (!chain_ns) {
		double t0 = now_ns();
		long x = hold_chain(1, 10000000);

		__asm__ volatile("" :: "r"(x));
		chain_ns = (now_ns() - t0) / 1e7;
	}
	atomic_store(&hold_stop, 0);
	peer_start(&t, hold_hammer, cpu_b);
	for (int g = 0; g < HOLD_GAPS; g++) {
		long steps = (long)(hold_gap_ns[g] / chain_ns + 0.5), hits = 0, n = 0;
		long last = atomic_fetch_add(&hold_line, 1);

		while (n < per_gap) {
			long v1, v2, x;

			while (atomic_load_explicit(&hold_line, memory_order_relaxed) == last + 1)
				cpu_relax();	/* until B has taken the line */
			v1 = atomic_fetch_add(&hold_line, 1);
			x = hold_chain(v1, steps);
			v2 = atomic_fetch_add(&hold_line, 1 + (x & z));
			last = v2;
			if (v1 == last - 1 && v1 != 0)
				hits++;
			n++;
		}
		p[g] = (double)hits / n;
		hold_last_gap[g] = steps * chain_ns;
	}
	atomic_store(&hold_stop, 1);
	pthread_join(t, NULL);
	memcpy(hold_last_p, p, sizeof(p));
	if (p[0] < 0.5)
		return 0;
	for (int g = 1; g < HOLD_GAPS; g++)
		if (p[g] < 0.5)
			return hold_last_gap[g - 1] + (hold_last_gap[g] - hold_last_gap[g - 1]) *
			       (p[g - 1] - 0.5) / (p[g - 1] - p[g]);
	return hold_last_gap[HOLD_GAPS - 1];
}

/* ---- single-core latencies ------------------------------------------ */

static _Alignas(LINE) atomic_long counter;

static double rmw_batch(void)
{
	long n = ops(5000000);
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		atomic_fetch_add(&counter, 1);	/* lock xadd: serialising */
	return (now_ns() - t0) / n;
}

static void *volatile chase_self;

static double load_batch(void)
{
	long n = ops(20000000);
	void *p;
	double t0;

	chase_self = (void *)&chase_self;
	p = chase_self;
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		p = *(void *volatile *)p;
	__asm__ volatile("" :: "r"(p));
	return (now_ns() - t0) / n;
}

/*
 * PAUSE in bursts of 1000 separated by ~1000 cycles of other work, so that
 * a hypervisor's pause-loop exiting (AMD pause filter: an exit after a few
 * thousand PAUSEs with short gaps) never triggers: the instruction alone.
 */
#define RELAX_BURST 1000

static double relax_batch(void)
{
	long bursts = ops(2000000) / RELAX_BURST;
	double total = 0;
	unsigned long x = 3;

	for (long b = 0; b < (bursts < 1 ? 1 : bursts); b++) {
		double t0 = now_ns();

		for (int i = 0; i < RELAX_BURST; i++)
			cpu_relax();
		total += now_ns() - t0;
		for (int i = 0; i < 300; i++)	/* gap: a dependent multiply chain */
			x = x * 2862933555777941757UL + 3037000493UL;
		__asm__ volatile("" :: "r"(x));
	}
	return total / ((bursts < 1 ? 1 : bursts) * (double)RELAX_BURST);
}

/* PAUSE back to back, as a spinning lock issues it: under a hypervisor this
 * includes pause-loop exits. */
static double relax_loop_batch(void)
{
	long n = ops(2000000);
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		cpu_relax();
	return (now_ns() - t0) / n;
}

static size_t mem_bytes = 256UL << 20;	/* --quick: 64 MiB, still 8x this L3 */
static void **mem_chain;

static void mem_setup(void)
{
	size_t lines = mem_bytes / LINE, stride = LINE / sizeof(void *);
	size_t *perm;
	unsigned long long seed = 88172645463325252ULL;

	mem_chain = mmap(NULL, mem_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem_chain == MAP_FAILED) {
		fprintf(stderr, "rwlab-calibrate: cannot map %zu MiB: %s\n", mem_bytes >> 20, strerror(errno));
		exit(1);
	}
	madvise(mem_chain, mem_bytes, MADV_HUGEPAGE);
	perm = malloc(lines * sizeof(*perm));
	if (!perm) {
		fprintf(stderr, "rwlab-calibrate: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < lines; i++)
		perm[i] = i;
	for (size_t i = lines - 1; i > 0; i--) {	/* Fisher-Yates, xorshift64 */
		size_t j, tmp;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		j = seed % (i + 1);
		tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
	for (size_t i = 0; i < lines; i++)
		mem_chain[perm[i] * stride] = &mem_chain[perm[(i + 1) % lines] * stride];
	free(perm);
}

static double mem_batch(void)
{
	static void **p;	/* continues along the chain: no line is reused early */
	long n = ops(1000000);
	double t0;

	if (!p)
		p = mem_chain;
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		p = *p;
	__asm__ volatile("" :: "r"(p));
	return (now_ns() - t0) / n;
}

/* ---- kernel entry costs --------------------------------------------- */

static _Alignas(LINE) atomic_int fword;

static double syscall_batch(void)
{
	long n = ops(300000);
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	return (now_ns() - t0) / n;
}

/* The interquartile half-width of @v[0..@n) over its median, in percent. */
static double spread_pct(double *v, int n)
{
	double med = median(v, n);	/* sorts */

	return med > 0 ? 100.0 * (v[3 * n / 4] - v[n / 4]) / 2.0 / med : 0;
}

#define SPREAD_SAMPLES 4096

static double spread_syscall_batch(void)
{
	static double v[SPREAD_SAMPLES];
	long n = ops(SPREAD_SAMPLES * 7) < SPREAD_SAMPLES ? ops(SPREAD_SAMPLES * 7) : SPREAD_SAMPLES;

	for (long i = 0; i < n; i++) {
		double t0 = now_ns();

		for (int k = 0; k < 4; k++)
			syscall(SYS_getpid);
		v[i] = now_ns() - t0;
	}
	return spread_pct(v, (int)n);
}

static double spread_relax_batch(void)
{
	static double v[SPREAD_SAMPLES];
	long n = ops(SPREAD_SAMPLES * 7) < SPREAD_SAMPLES ? ops(SPREAD_SAMPLES * 7) : SPREAD_SAMPLES;

	for (long i = 0; i < n; i++) {
		double t0 = now_ns();

		for (int k = 0; k < 100; k++)
			cpu_relax();
		v[i] = now_ns() - t0;
	}
	return spread_pct(v, (int)n);
}

static double futex_wake_batch(void)
{
	long n = ops(300000);
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		futex(&fword, FUTEX_WAKE_PRIVATE, 1);
	return (now_ns() - t0) / n;
}

static double futex_wait_batch(void)
{
	long n = ops(300000);
	double t0;

	atomic_store(&fword, 1);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		futex(&fword, FUTEX_WAIT_PRIVATE, 0);	/* value is 1: EAGAIN */
	return (now_ns() - t0) / n;
}

/* ---- context switch on one CPU -------------------------------------- */

static int pipe_ab[2], pipe_ba[2];
static long ctx_hops;

/* ctx_hops + 1 round trips, then one last byte: its start and its end are not timed */
static void *ctx_peer(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i <= ctx_hops; i++) {
		if (read(pipe_ab[0], &c, 1) != 1 || write(pipe_ba[1], &c, 1) != 1)
			return NULL;	/* the main thread reports the failure */
	}
	while (read(pipe_ab[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* One byte to the peer, and back unless @last. */
static void ctx_hop(int last)
{
	char c = 'x';

	if (write(pipe_ab[1], &c, 1) != 1 || (!last && read(pipe_ba[0], &c, 1) != 1)) {
		fprintf(stderr, "rwlab-calibrate: pipe ping-pong failed: %s\n", strerror(errno));
		exit(1);
	}
}

static double ctxsw_batch(void)
{
	pthread_t t;
	double t0, t1;

	ctx_hops = ops(20000);
	pin(cpu_a);
	peer_start(&t, ctx_peer, cpu_a);
	ctx_hop(0);		/* the round trip that starts the peer */
	t0 = now_ns();
	for (long i = 0; i < ctx_hops; i++)
		ctx_hop(0);
	t1 = now_ns();
	ctx_hop(1);		/* the peer's last byte */
	pthread_join(t, NULL);
	return (t1 - t0) / (2.0 * ctx_hops);
}

/* ---- futex wake to run across CPUs ---------------------------------- */

static _Alignas(LINE) atomic_int wword;	/* 0: wait, 1: woken */
static _Alignas(LINE) atomic_int wready;	/* waiter about to sleep */
static _Alignas(LINE) atomic_int waiter_tid;
static _Alignas(LINE) _Atomic double wake_sent, wake_ran;
static _Alignas(LINE) atomic_int waiter_slept;
static long wake_samples;

static void *wake_waiter(void *arg)
{
	(void)arg;
	atomic_store(&waiter_tid, (int)syscall(SYS_gettid));
	for (long i = 0; i < wake_samples; i++) {
		long r;

		atomic_store(&wready, 1);
		do {
			r = futex(&wword, FUTEX_WAIT_PRIVATE, 0);
		} while (r == -1 && errno == EINTR);
		atomic_store(&waiter_slept, r == 0);
		atomic_store(&wake_ran, now_ns());
		while (atomic_load(&wword) != 0)	/* waker resets */
			cpu_relax();
	}
	return NULL;
}

/* The waiter's scheduler state is S (asleep in futex_wait). */
static int waiter_asleep(void)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", atomic_load(&waiter_tid));
	f = fopen(path, "r");
	if (!f)
		return 1;	/* cannot tell: rely on the sleep above */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');	/* "tid (comm) S ..." */
	return p && p[1] == ' ' && p[2] == 'S';
}

/* The wake-to-run samples of one batch into @v (256): returns how many. */
static int wakeup_samples(double *v)
{
	pthread_t t;
	int kept = 0;

	wake_samples = scale < 0.05 ? 5 : ops(400) < 256 ? ops(400) : 256;	/* --quick: 5 */
	atomic_store(&wword, 0);
	atomic_store(&wready, 0);
	atomic_store(&waiter_tid, 0);
	pin(cpu_a);
	peer_start(&t, wake_waiter, cpu_b);
	while (!atomic_load(&waiter_tid))
		cpu_relax();
	for (long i = 0; i < wake_samples; i++) {
		while (!atomic_load(&wready))
			cpu_relax();
		atomic_store(&wready, 0);
		atomic_store(&wake_ran, 0);
		usleep(200);			/* let the waiter sleep and B go idle */
		for (int tries = 0; tries < 100 && !waiter_asleep(); tries++)
			usleep(100);		/* a loaded machine: wait for the sleep */
		atomic_store(&wake_sent, now_ns());
		atomic_store(&wword, 1);
		futex(&wword, FUTEX_WAKE_PRIVATE, 1);
		while (atomic_load(&wake_ran) == 0)
			cpu_relax();
		if (atomic_load(&waiter_slept) && kept < 256)
			v[kept++] = atomic_load(&wake_ran) - atomic_load(&wake_sent);
		atomic_store(&wword, 0);
	}
	pthread_join(t, NULL);
	if (!kept) {
		fprintf(stderr, "rwlab-calibrate: wake-to-run: the waiter never slept\n");
		exit(1);
	}
	return kept;
}

static double wakeup_batch(void)
{
	double v[256];
	int kept = wakeup_samples(v);

	return median(v, kept);
}

static double spread_wakeup_batch(void)
{
	double v[256];
	int kept = wakeup_samples(v);

	return spread_pct(v, kept);
}

/* ---- IPI via membarrier --------------------------------------------- */

static _Alignas(LINE) atomic_int spin_stop;

static void *ipi_spinner(void *arg)
{
	(void)arg;
	while (!atomic_load(&spin_stop))
		cpu_relax();
	return NULL;
}

static double membarrier_batch(void)
{
	long n = ops(100000);
	double t0;

	pin(cpu_a);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	return (now_ns() - t0) / n;
}

static void ipi_spinner_start(pthread_t *t)
{
	atomic_store(&spin_stop, 0);
	peer_start(t, ipi_spinner, cpu_b);
	usleep(10000);
}

static void ipi_spinner_stop(pthread_t t)
{
	atomic_store(&spin_stop, 1);
	pthread_join(t, NULL);
	usleep(1000);
}

/* Repeats alternate between B busy and B idle, so load drifts hit both. */
static int ipi_measure(void)
{
	double alone[MAX_REPEATS], spun[MAX_REPEATS], diff[MAX_REPEATS];
	int loaded_alone = 0, loaded_spun = 0, loaded_diff = 0;
	pthread_t t;

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)) {
		printf("# ipi: membarrier PRIVATE_EXPEDITED unavailable (%s); not measured\n", strerror(errno));
		return 0;
	}
	membarrier_batch();
	for (int i = 0; i < repeats; i++) {
		struct load_mark m;
		int ls, la;

		load_mark(&m);
		ipi_spinner_start(&t);
		spun[i] = sub_median(membarrier_batch);
		ls = 2 * sub_delayed > SUBS;
		ipi_spinner_stop(t);
		ls |= load_delayed(&m);	/* the spinner's waits count when it ends */
		alone[i] = sub_median(membarrier_batch);
		la = 2 * sub_delayed > SUBS;
		diff[i] = spun[i] - alone[i];
		loaded_alone += la;
		loaded_spun += ls;
		loaded_diff += la || ls;
	}
	report("membarrier_alone_ns", "ns", alone, repeats);
	note_loaded("membarrier_alone_ns", loaded_alone);
	report("membarrier_ipi_ns", "ns", spun, repeats);
	note_loaded("membarrier_ipi_ns", loaded_spun);
	report("ipi_roundtrip_ns", "ns", diff, repeats);
	note_loaded("ipi_roundtrip_ns", loaded_diff);
	return 0;
}

/* ---- page fault and bandwidth --------------------------------------- */

static size_t bw_bytes = 64UL << 20;	/* one pass per sub-batch; --quick: 32 MiB */
static char *bw_src, *bw_dst;

/*
 * Page-fault batches are timed in the thread's CPU time (user + system,
 * CLOCK_THREAD_CPUTIME_ID): the fault work is the thread's own, and on a
 * shared machine the wall clock would also count the time other processes
 * held the vCPU. (A hypervisor's steal time is still counted.)
 */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double fault_batch(void)
{
	size_t bytes = 16UL << 20;
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0, t1;

	if (p == MAP_FAILED) {
		fprintf(stderr, "rwlab-calibrate: cannot map 16 MiB: %s\n", strerror(errno));
		exit(1);
	}
	madvise(p, bytes, MADV_NOHUGEPAGE);
	t0 = cpu_ns();
	for (size_t off = 0; off < bytes; off += 4096)
		p[off] = 1;
	t1 = cpu_ns();
	munmap(p, bytes);
	return (t1 - t0) / (bytes / 4096);
}

static double fault_read_batch(void)
{
	size_t bytes = 16UL << 20;
	volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0, t1;
	char sum = 0;

	if (p == MAP_FAILED) {
		fprintf(stderr, "rwlab-calibrate: cannot map 16 MiB: %s\n", strerror(errno));
		exit(1);
	}
	madvise((void *)p, bytes, MADV_NOHUGEPAGE);	/* no huge zero page: one fault per 4 KiB */
	t0 = cpu_ns();
	for (size_t off = 0; off < bytes; off += 4096)
		sum += p[off];
	t1 = cpu_ns();
	munmap((void *)p, bytes);
	__asm__ volatile("" :: "r"(sum));
	return (t1 - t0) / (bytes / 4096);
}

/* Kilobytes of AnonHugePages in this process (smaps_rollup), or -1. */
static long anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

#define HPAGE (2UL << 20)

static double hpage_fault_batch(void)
{
	size_t n = (size_t)ops(64), bytes = n * HPAGE;
	char *raw = mmap(NULL, bytes + HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	long kb0 = anon_huge_kb(), kb1;
	double t0, t1;

	if (raw == MAP_FAILED || madvise(p, bytes, MADV_HUGEPAGE)) {
		fprintf(stderr, "rwlab-calibrate: cannot map %zu MiB with MADV_HUGEPAGE: %s\n", bytes >> 20, strerror(errno));
		exit(1);
	}
	t0 = cpu_ns();
	for (size_t off = 0; off < bytes; off += HPAGE)
		p[off] = 1;
	t1 = cpu_ns();
	kb1 = anon_huge_kb();
	munmap(raw, bytes + HPAGE);
	if (kb0 < 0 || kb1 - kb0 < (long)(bytes >> 10)) {
		fprintf(stderr, "rwlab-calibrate: hpage_fault: %ld of %zu KiB got huge pages (THP off or memory fragmented)\n",
			kb1 - kb0, bytes >> 10);
		exit(1);
	}
	return (t1 - t0) / n;
}

static uint64_t *store_buf;
static size_t store_words;

static double rand_store_batch(void)
{
	static uint64_t rng = 88172645463325252ull;
	long n = ops(20000000);
	double t0 = cpu_ns();

	for (long i = 0; i < n; i++) {
		uint64_t idx;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		idx = (uint64_t)((__extension__(unsigned __int128)rng * store_words) >> 64);
		store_buf[idx] = idx;
	}
	__asm__ volatile("" :: "r"(store_buf) : "memory");
	return (cpu_ns() - t0) / n;
}

static double memset_batch(void)
{
	static int fill;
	double t0 = now_ns();

	memset(bw_dst, ++fill, bw_bytes);
	__asm__ volatile("" :: "r"(bw_dst) : "memory");
	return (double)bw_bytes / (now_ns() - t0);	/* bytes/ns = GB/s */
}

static double memcpy_batch(void)
{
	double t0 = now_ns();

	memcpy(bw_dst, bw_src, bw_bytes);
	__asm__ volatile("" :: "r"(bw_dst) : "memory");
	return (double)bw_bytes / (now_ns() - t0);
}

/* ---- main ----------------------------------------------------------- */

static void usage_error(const char *what)
{
	fprintf(stderr, "rwlab-calibrate: %s (valid: --quick, --cpus A,B with two different online CPUs, --repeats 3..101, --only METRIC,...)\n", what);
	exit(2);
}

/* an unknown name in --only would measure nothing and exit 0: refuse it */
static void check_only(void)
{
	const char *p = only;

	while (p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		size_t k;

		for (k = 0; k < sizeof(metric_names) / sizeof(metric_names[0]); k++)
			if (strlen(metric_names[k]) == n && !strncmp(p, metric_names[k], n))
				break;
		if (k == sizeof(metric_names) / sizeof(metric_names[0])) {
			fprintf(stderr, "rwlab-calibrate: unknown metric '%.*s' in --only (valid:", (int)(n > 60 ? 60 : n), p);
			for (k = 0; k < sizeof(metric_names) / sizeof(metric_names[0]); k++)
				fprintf(stderr, " %s", metric_names[k]);
			fprintf(stderr, ")\n");
			exit(2);
		}
		p = e ? e + 1 : NULL;
	}
}

static void parse_args(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--quick")) {
			scale = 0.05;
			repeats = 3;
			mem_bytes = 64UL << 20;
			bw_bytes = 32UL << 20;
		} else if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
			errno = 0;
			cpu_a = (int)strtol(argv[++i], &end, 10);
			if (*end != ',' || errno)
				usage_error("--cpus wants A,B");
			cpu_b = (int)strtol(end + 1, &end, 10);
			if (*end || errno || cpu_a < 0 || cpu_b < 0 || cpu_a >= ncpu || cpu_b >= ncpu || cpu_a == cpu_b)
				usage_error("--cpus wants two different online CPUs A,B");
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
			long r = strtol(argv[++i], &end, 10);

			if (*end || r < 3 || r > 101)
				usage_error("--repeats wants a number from 3 to 101");
			repeats = (int)r;
		} else {
			char msg[128];

			snprintf(msg, sizeof(msg), "unknown argument '%.60s'", argv[i]);
			usage_error(msg);
		}
	}
	if (ncpu < 2)
		usage_error("needs two online CPUs");
	check_only();
}

static void print_context(const char *when)
{
	double load[3];
	struct utsname u;

	if (getloadavg(load, 3) == 3)
		printf("# loadavg %s: %.2f %.2f %.2f\n", when, load[0], load[1], load[2]);
	if (!strcmp(when, "before") && !uname(&u))
		printf("# kernel: %s %s %s\n", u.sysname, u.release, u.machine);
}

int main(int argc, char **argv)
{
	struct sched_ns s;
	double yield;
	int marked;

	parse_args(argc, argv);
	if (pipe(pipe_ab) || pipe(pipe_ba)) {
		fprintf(stderr, "rwlab-calibrate: pipe: %s\n", strerror(errno));
		return 1;
	}
	printf("# rwlab-calibrate: cpus %d,%d, repeats %d%s%s%s\n", cpu_a, cpu_b, repeats,
	       scale < 1 ? ", quick" : "", only ? ", only " : "", only ? only : "");
	print_context("before");
	if (sched_ns(&s)) {
		load_unknown = 1;
		printf("# no /proc/thread-self/schedstat: other tasks' time not measured, no metric marked loaded\n");
	}
	printf("# metric\tmedian\tmin\tmax\tunit\trepeats\n");
	pin(cpu_a);
	measure("c2c_ns", "ns", c2c_batch);
	measure("faa_pair_ns", "ns", faa_pair_batch);
	measure("faa_run_len", "ops", faa_run_len_batch);
	measure("rcas_pair_ns", "ns", rcas_ns_batch);
	measure("rcas_pair_attempts", "attempts", rcas_att_batch);
	measure("rcasw_pair_ns", "ns", rcasw_ns_batch);
	measure("rcasw_pair_attempts", "attempts", rcasw_att_batch);
	measure("rcasdep_pair_ns", "ns", rcasdep_ns_batch);
	measure("rcasdep_pair_attempts", "attempts", rcasdep_att_batch);
	measure("turn_faa_ns", "ns", turn_faa_batch);
	measure("turn_load_ns", "ns", turn_load_batch);
	measure("turn_rcas_ns", "ns", turn_rcas_batch);
	measure("turn_rcasdep_ns", "ns", turn_rcasdep_batch);
	measure("turn_rcasw_ns", "ns", turn_rcasw_batch);
	measure("rmw_hold_ns", "ns", hold_batch);
	if (wanted("rmw_hold_ns")) {
		printf("# rmw_hold_ns, last batch: gap_ns local_fraction (second xadd local while the other core hammers)\n");
		for (int g = 0; g < HOLD_GAPS; g++)
			printf("#   %.1f %.3f\n", hold_last_gap[g], hold_last_p[g]);
	}
	yield = measure_marked("exec_yield", "x", exec_yield_batch, &marked);
	if (!marked && yield > EXEC_YIELD_MAX)
		note_implausible("exec_yield", yield, EXEC_YIELD_MAX, "more than two CPUs give: the runs alone were "
				 "slowed by work this kernel does not count as lost (steal time, a busy sibling)");
	pin(cpu_a);
	measure("rmw_local_ns", "ns", rmw_batch);
	measure("load_local_ns", "ns", load_batch);
	measure("relax_ns", "ns", relax_batch);
	measure("relax_loop_ns", "ns", relax_loop_batch);
	if (wanted("mem_local_ns")) {
		mem_setup();
		measure("mem_local_ns", "ns", mem_batch);
		munmap(mem_chain, mem_bytes);
	}
	measure("syscall_ns", "ns", syscall_batch);
	measure("futex_wake_ns", "ns", futex_wake_batch);
	measure("futex_wait_ns", "ns", futex_wait_batch);
	measure("ctxsw_ns", "ns", ctxsw_batch);
	measure("wakeup_ns", "ns", wakeup_batch);
	pin(cpu_a);
	measure("spread_syscall_pct", "%", spread_syscall_batch);
	measure("spread_relax_pct", "%", spread_relax_batch);
	measure("spread_wakeup_pct", "%", spread_wakeup_batch);
	if (wanted("ipi_roundtrip_ns") || wanted("membarrier_alone_ns") || wanted("membarrier_ipi_ns"))
		ipi_measure();
	pin(cpu_a);
	measure("page_fault_ns", "ns", fault_batch);
	measure("fault_read_ns", "ns", fault_read_batch);
	measure("hpage_fault_ns", "ns", hpage_fault_batch);
	if (wanted("rand_store_ns")) {
		store_words = mem_bytes / sizeof(uint64_t);
		store_buf = mmap(NULL, mem_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (store_buf == MAP_FAILED) {
			fprintf(stderr, "rwlab-calibrate: cannot map %zu MiB: %s\n", mem_bytes >> 20, strerror(errno));
			return 1;
		}
		madvise(store_buf, mem_bytes, MADV_HUGEPAGE);
		memset(store_buf, 1, mem_bytes);	/* pre-faulted, as usemem --prefault */
		measure("rand_store_ns", "ns", rand_store_batch);
		munmap(store_buf, mem_bytes);
	}
	bw_src = malloc(bw_bytes);
	bw_dst = malloc(bw_bytes);
	if (!bw_src || !bw_dst) {
		fprintf(stderr, "rwlab-calibrate: out of memory\n");
		return 1;
	}
	memset(bw_src, 1, bw_bytes);
	memset(bw_dst, 2, bw_bytes);
	measure("memset_gbs", "GB/s", memset_batch);
	measure("memcpy_gbs", "GB/s", memcpy_batch);
	free(bw_src);
	free(bw_dst);
	print_context("after");
	if (nloaded)
		fprintf(stderr, "rwlab-calibrate: WARNING: %d metric%s measured while other tasks held CPUs %d,%d "
			"(the '# loaded:' lines): not a quiet machine's figures; re-run on a quiet machine\n",
			nloaded, nloaded == 1 ? "" : "s", cpu_a, cpu_b);
	return 0;
}
