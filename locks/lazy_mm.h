/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/lazy_mm.h - lazy-TLB mm existence schemes: how a CPU that switches
 * from a user thread to a kernel thread keeps the borrowed mm alive.
 *
 * Source: docs/kernel.md §5 (v6.4..v6.18 include/linux/sched/mm.h,
 * kernel/fork.c, kernel/sched/core.c context_switch(); Piggin's
 * MMU_LAZY_TLB_SHOOTDOWN; Desnoyers' 2024 hazard-pointer RFC; hpref).
 *
 * The kernel's story in four lines: a kernel thread has no mm of its own and
 * borrows the previous task's (active_mm, "lazy TLB"); the borrowing CPU must
 * keep that mm from being freed until it switches to another user mm; the
 * verbs are mmgrab_lazy_tlb() on user->kernel and mmdrop_lazy_tlb() on
 * kernel->user; the owner's final mmdrop must not free the mm while any CPU
 * still has it loaded. Each scheme (one file locks/lazy_mm_<name>.c, one
 * `const struct lab_lazy_mm_ops`) implements the three verbs:
 *
 *   grab(domain, cpu, mm)     mmgrab_lazy_tlb: CPU @cpu starts to borrow @mm
 *   drop(domain, cpu, mm)     mmdrop_lazy_tlb: CPU @cpu stops borrowing @mm
 *   release(domain, mm)       the owner's final mmdrop: @mm is freed once no
 *                             CPU can still use it (see "release" below)
 *
 * The model ("CPUs" are slots, the scheduler is this file's framework):
 * - A domain has @ncpus CPU slots. A thread makes itself CPU c with
 *   lab_lazy_cpu_online(d, c, mm) (it then runs a user task of mm) and gives
 *   the slot back with lab_lazy_cpu_offline(). One thread per slot.
 * - lab_lazy_switch_to_kthread(d, c) is context_switch(user -> kernel thread):
 *   the CPU keeps its mm loaded as active_mm and calls ops->grab.
 *   lab_lazy_switch_to_user(d, c, mm) is context_switch(kernel thread -> user
 *   task of mm): the CPU loads mm and calls ops->drop on the mm it had
 *   borrowed, unless a release already switched it to init_mm.
 * - Both switches run with the slot's irq_lock held: the stand-in for the
 *   interrupts-off section of the kernel's context switch, so that an "IPI"
 *   handler never sees a half-done switch. Every scheme pays it, none included.
 * - "IPIs" (lab_lazy_ipi_many): a request is pushed on the target slot's
 *   mailbox, the slot's interrupt thread is woken with lab_futex_wake() and
 *   runs the handler with the slot's irq_lock held, the sender waits for the
 *   acknowledgement. The interrupt thread is created by the slot's own thread
 *   in lab_lazy_cpu_online(), so it inherits its CPU pinning. This is how a
 *   CPU slot whose thread is blocked in a pipe read still answers an IPI: the
 *   handler runs for it, on its CPU, while it sleeps. The latency is real
 *   (a futex wake and a context switch each way), not the kernel's.
 * - A use of an mm is a canary check (lab_lazy_mm_check): at every grab, when
 *   a CPU switches away from a borrowed mm, and in the shootdown handler.
 *   lab_lazy_mm_free() fills the mm with POISON_FREE (0x6b, as the kernel's
 *   slab poisoning) and keeps it in a quarantine ring so that a late use reads
 *   the poison and aborts; built with -Db_sanitize=address the mm is freed at
 *   once and AddressSanitizer reports the use instead.
 *
 * release: the issue asks that release return only once no CPU can still use
 * the mm, then free it. The synchronous schemes (shootdown, hazptr, hpref
 * without promotions) do exactly that. The counting schemes (refcount,
 * percpu-ref, and hpref's promoted references) do what the kernel does: the
 * owner's mmdrop only drops its reference, and the CPU whose drop takes the
 * count to zero frees the mm (__mmdrop from mmdrop_lazy_tlb). Their ops carry
 * LAB_LAZY_MAY_DEFER. For every scheme the invariant checked by the tests is:
 * an mm is never freed while a CPU slot still has it loaded.
 *
 * How a TLB flush finds the CPUs (lab_lazy_flush_mm, the tlb_flush workload):
 * schemes with LAB_LAZY_CPUMASK keep the shared mm_cpumask on the switch path
 * (set when a CPU loads the mm, cleared when it loads another or init_mm), and
 * a flush reads it; the per-CPU schemes keep no shared per-mm state on the
 * switch path, so a flush scans every CPU slot. That is the trade-off of
 * Desnoyers' Dec 2024 per-CPU per-mm state proof of concept (+50%
 * context_switch1 against -33% tlb_flush2 at 192 threads, docs/kernel.md §5.4).
 *
 * Threading: grab/drop are called only by the framework, on the slot's own
 * thread. release may run on any thread that is not a CPU slot, concurrently
 * with every slot's switches, but only once the mm has no user left (no slot
 * runs it as its user mm, and none can load it again): the caller's job, the
 * kernel's mm_users. Several releases of different mms may run at once.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "events.h"
#include "knob.h"
#include "spinlock.h"
#include "wait.h"

/* Largest number of CPU slots in one domain (the -t limit of the workloads). */
#define LAB_LAZY_MAX_CPUS	2048
#define LAB_LAZY_CPUMASK_LONGS	(LAB_LAZY_MAX_CPUS / (8 * sizeof(unsigned long)))

/* Canary of a live mm ("mm_alive"); the kernel's POISON_FREE fills a freed one. */
#define LAB_LAZY_MM_ALIVE	0x6d6d5f616c697665ull
#define LAB_LAZY_POISON_FREE	0x6b

struct lab_lazy_domain;
struct lab_lazy_mm_conf;

/*
 * The mm_struct stand-in. Allocated by lab_lazy_mm_alloc() with the scheme's
 * per-mm area (percpu-ref's per-CPU counters) at its end, freed only through
 * lab_lazy_mm_free(). Layout: identity (read by every use) on the first line,
 * then one line each for mm_count and the flush generation, then mm_cpumask
 * (LAB_LAZY_MAX_CPUS bits, four lines).
 */
struct lab_lazy_mm {
	uint64_t canary;		/* LAB_LAZY_MM_ALIVE while allocated */
	uint64_t serial;		/* allocation number within the domain */
	struct lab_lazy_domain *domain;
	void *priv;			/* the scheme's per-mm area, or NULL */
	/* mm_count: owner's reference + lazy references (refcount, hpref REF, percpu-ref atomic mode) */
	long mm_count __lab_cacheline_aligned;
	/* TLB flush generation, bumped by every flush (x86 mm->context.tlb_gen) */
	uint64_t tlb_gen __lab_cacheline_aligned;
	/* mm_cpumask: CPUs that have the mm loaded (LAB_LAZY_CPUMASK schemes only) */
	unsigned long cpumask[LAB_LAZY_CPUMASK_LONGS] __lab_cacheline_aligned;
} __lab_cacheline_aligned;

enum lab_lazy_flags {
	LAB_LAZY_UNSAFE		= 1u << 0,	/* no existence guarantee: refused where release races */
	LAB_LAZY_NOT_IN_ALL	= 1u << 1,	/* excluded from "all" */
	LAB_LAZY_CPUMASK	= 1u << 2,	/* keeps mm_cpumask on the switch path; flushes read it */
	LAB_LAZY_MAY_DEFER	= 1u << 3,	/* release may leave the free to the last lazy drop */
	LAB_LAZY_IPI		= 1u << 4,	/* release interrupts CPUs that use the mm */
};

/* The events the framework counts for every scheme: its IPIs (lab_lazy_ipi_many) and frees left to a lazy drop. */
#define LAB_LAZY_EVENTS LAB_EV_lazy_tlb_ipi, LAB_EV_lazy_tlb_defer_free

struct lab_lazy_mm_ops {
	const char *name;		/* == file stem after lazy_mm_ (with '_' -> '-') */
	const char *summary;		/* one line for `rwlab list` */
	const char *cite;		/* kernel version/config or paper it follows */
	unsigned flags;			/* enum lab_lazy_flags */
	size_t size, align;		/* the scheme's domain state (d->priv), 0 = none */
	const struct lab_knob *knobs;	/* NULL or NULL-name-terminated */
	/*
	 * The lock events it counts, LAB_EVENTS(...) (events.h): the
	 * framework's (LAB_LAZY_EVENTS) and its own.
	 */
	const enum lab_event *events;

	/*
	 * init - set up d->priv for d->ncpus slots per conf->knob[]; may set
	 * d->mm_extra to the bytes of per-mm area it needs (per ncpus).
	 * Returns 0 or a negative errno. destroy - free what init allocated.
	 */
	int (*init)(struct lab_lazy_domain *d, int ncpus, const struct lab_lazy_mm_conf *conf);
	void (*destroy)(struct lab_lazy_domain *d);
	/* mm_init - set up a new mm's per-mm area (mm->priv); NULL = nothing to do. */
	void (*mm_init)(struct lab_lazy_domain *d, struct lab_lazy_mm *mm);
	/* cpu_online/cpu_offline - on the slot's thread (percpu-ref: RCU reader registration). */
	void (*cpu_online)(struct lab_lazy_domain *d, int cpu);
	void (*cpu_offline)(struct lab_lazy_domain *d, int cpu);

	/* mmgrab_lazy_tlb: slot @cpu's thread, with its irq_lock held; @mm is alive. */
	void (*grab)(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm);
	/*
	 * mmdrop_lazy_tlb: slot @cpu's thread, irq_lock released, after the CPU
	 * loaded another mm. Not called when a release shot the CPU down first.
	 * May free @mm (lab_lazy_mm_free) if it took the last reference.
	 */
	void (*drop)(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm);
	/* The owner's final mmdrop (see "release" above). Any non-slot thread. */
	void (*release)(struct lab_lazy_domain *d, struct lab_lazy_mm *mm);
	/*
	 * shoot - inside the shootdown IPI handler, after the framework switched
	 * slot @cpu from @mm to init_mm (irq_lock held): forget the CPU's lazy
	 * reference (hazptr: clear the slot). NULL = nothing to forget.
	 */
	void (*shoot)(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm);
};

/* A scheme chosen by the user, with its knob values. */
struct lab_lazy_mm_conf {
	const struct lab_lazy_mm_ops *ops;
	long knob[LAB_KNOBS_MAX];
	char label[LAB_SPEC_MAX];	/* "name" or "name:key=val,..." with non-default knobs */
};

/* ---- the domain and its CPU slots ----------------------------------------- */

struct lab_ipi_req;

/* One CPU slot: two cache lines, the switch state and the IPI mailbox. */
struct lab_lazy_cpu {
	/* written by the slot's thread at every switch; read by handlers and flush scans */
	raw_spinlock_t irq_lock;	/* "interrupts off": switches and IPI handlers */
	int lazy;			/* 1 while a kernel thread runs on a borrowed mm */
	struct lab_lazy_mm *active_mm;	/* loaded mm: user mm, borrowed mm, init_mm; NULL offline */
	uint64_t tlb_gen;		/* flush generation this CPU has caught up with */
	/* the IPI mailbox: LIFO of requests; LAB_IPI_CLOSED while no interrupt thread runs */
	struct lab_ipi_req *ipi_head __lab_cacheline_aligned;
	uint32_t ipi_kick;		/* futex word the interrupt thread sleeps on */
	int ipi_stop;
	pthread_t ipi_thread;
	bool online;			/* owner's bookkeeping only */
#if LAB_SIM
	int sim_owner;			/* the slot thread's engine task id (IPI target), -1 offline */
#endif
} __lab_cacheline_aligned;

struct lab_lazy_domain {
	const struct lab_lazy_mm_ops *ops;
	int ncpus;
	long knob[LAB_KNOBS_MAX];	/* the scheme's knob values */
	void *priv;			/* the scheme's state: ops->size bytes */
	size_t mm_extra;		/* bytes of per-mm area (set by ops->init) */
	size_t mm_size;			/* bytes of one mm allocation */
	struct lab_lazy_cpu *cpu;	/* ncpus slots */
	struct lab_lazy_mm *init_mm;	/* what a shot-down CPU switches to; never freed by a scheme */
	/* counters, relaxed atomics, on their own line */
	uint64_t allocs __lab_cacheline_aligned;
	uint64_t frees;			/* mms freed */
	uint64_t deferred_frees;	/* ... of which by a lazy drop, after their release returned */
	uint64_t serial;
};

/*
 * lab_lazy_domain_create() - a domain of @ncpus slots (1..LAB_LAZY_MAX_CPUS)
 * for the scheme in @conf. Returns 0, or -1 with a one-line message in @err.
 * lab_lazy_domain_destroy() - every slot must be offline and every mm but
 * init_mm released (and freed).
 */
int lab_lazy_domain_create(struct lab_lazy_domain **dp, const struct lab_lazy_mm_conf *conf,
			   int ncpus, char *err, size_t errlen);
void lab_lazy_domain_destroy(struct lab_lazy_domain *d);

/* A new mm with mm_count = 1 (the owner's reference). NULL when out of memory. */
struct lab_lazy_mm *lab_lazy_mm_alloc(struct lab_lazy_domain *d);

/* Release @mm: the owner's final mmdrop through ops->release (see above). */
void lab_lazy_release(struct lab_lazy_domain *d, struct lab_lazy_mm *mm);

/* For schemes: __mmdrop. Poison @mm and free it (quarantined; ASan: at once). */
void lab_lazy_mm_free(struct lab_lazy_domain *d, struct lab_lazy_mm *mm);

__lab_cold void lab_lazy_mm_bug(const struct lab_lazy_mm *mm, const char *where);

/* A use of @mm: aborts with a message if it has been freed. */
static inline void lab_lazy_mm_check(const struct lab_lazy_mm *mm, const char *where)
{
	if (lab_unlikely(READ_ONCE(mm->canary) != LAB_LAZY_MM_ALIVE))
		lab_lazy_mm_bug(mm, where);
}

/*
 * lab_lazy_cpu_online() - the calling thread becomes CPU @cpu running a user
 * task of @mm (which the caller keeps alive: a user reference), and starts the
 * slot's interrupt thread. Returns 0 or a negative errno (thread creation).
 * lab_lazy_cpu_offline() - the CPU, in user mode, stops; its interrupt thread
 * exits (later IPIs to the slot run their handler on the sender).
 */
int lab_lazy_cpu_online(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm);
void lab_lazy_cpu_offline(struct lab_lazy_domain *d, int cpu);

/* context_switch(user task -> kernel thread) on CPU @cpu: borrow the loaded mm. */
void lab_lazy_switch_to_kthread(struct lab_lazy_domain *d, int cpu);
/*
 * context_switch(kernel thread -> user task of @mm) on CPU @cpu: load @mm (the
 * caller holds a user reference to it) and drop the borrowed one.
 */
void lab_lazy_switch_to_user(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm);

/* What CPU @cpu has loaded / whether it is lazy (racy reads, for tests and scans). */
static inline struct lab_lazy_mm *lab_lazy_cpu_active_mm(struct lab_lazy_domain *d, int cpu)
{
	return READ_ONCE(d->cpu[cpu].active_mm);
}

/* ---- IPIs ------------------------------------------------------------------ */

/*
 * An IPI handler: runs "on" CPU @cpu (its interrupt thread, or the sender if
 * the slot is offline) with the slot's irq_lock held. Returns a count the
 * sender sums (1 = it did something).
 */
typedef int (*lab_ipi_fn)(struct lab_lazy_domain *d, int cpu, void *arg);

/*
 * lab_lazy_ipi_many() - smp_call_function_many(mask, fn, arg, wait=1): post
 * one request to every CPU in @mask (ncpus bits), then wait for every
 * acknowledgement. Counts lockevent lazy_tlb_ipi per request. Returns the sum
 * of the handlers' results. Must not be called with an irq_lock held.
 */
int lab_lazy_ipi_many(struct lab_lazy_domain *d, const unsigned long *mask, lab_ipi_fn fn, void *arg);
/* smp_call_function_single(cpu, fn, arg, wait=1). */
int lab_lazy_ipi(struct lab_lazy_domain *d, int cpu, lab_ipi_fn fn, void *arg);

/*
 * The shootdown handler (kernel do_shoot_lazy_tlb), an lab_ipi_fn with arg =
 * the mm: if the CPU runs a kernel thread on that mm, switch it to init_mm and
 * call ops->shoot. Returns 1 if it did (lockevent lazy_tlb_shoot on the
 * sender). A CPU running the mm as its user mm here is a caller bug: abort.
 */
int lab_lazy_shoot_lazy_ipi(struct lab_lazy_domain *d, int cpu, void *arg);

/* ---- TLB flush (the tlb_flush workload) -------------------------------------- */

/*
 * lab_lazy_flush_mm() - flush_tlb_mm(): bump mm->tlb_gen and make every CPU
 * that has @mm loaded (user or lazy) catch up: the calling CPU @self (-1 if
 * the caller is not a slot) locally, the others by IPI. The CPUs are found in
 * mm_cpumask (LAB_LAZY_CPUMASK schemes) or by scanning every slot. Returns the
 * number of IPIs sent. Called in user mode, irq_lock not held; @mm is the
 * caller's user mm.
 */
int lab_lazy_flush_mm(struct lab_lazy_domain *d, int self, struct lab_lazy_mm *mm);

/* ---- registry (locks/lazy_mm_registry.c) ------------------------------------ */

/* All registered schemes, NULL-terminated, in `rwlab list` order. */
extern const struct lab_lazy_mm_ops *const lab_lazy_mm_schemes[];
struct lab_registry;
/* The schemes as a plugin registry (locks/plugin.h). */
extern const struct lab_registry lab_lazy_mm_registry;

const struct lab_lazy_mm_ops *lab_lazy_mm_lookup(const char *name);
/* Comma-separated names; @with_hidden includes LAB_LAZY_NOT_IN_ALL schemes. */
void lab_lazy_mm_names(char *buf, size_t len, bool with_hidden);
/* Parse one "NAME[:key=val,...]". Returns 0, or -1 with a message naming the choices. */
int lab_lazy_mm_parse(const char *spec, struct lab_lazy_mm_conf *conf, char *err, size_t errlen);
/*
 * Parse a -m/--lazy-mm list like -l: specs separated by commas, "all" = every
 * scheme without LAB_LAZY_NOT_IN_ALL (so not none), a "k=v" token continues
 * the previous spec. Appends to @confs (capacity @max) from *@n.
 * Returns 0 or -1 with @err.
 */
int lab_lazy_mm_parse_list(const char *arg, struct lab_lazy_mm_conf *confs, int max, int *n,
			   char *err, size_t errlen);

/*
 * lab_lazy_mm_allowed() - the --unsafe gate. A LAB_LAZY_UNSAFE scheme (none)
 * is accepted only as a cost floor, where no release races with lazy users
 * (@releases_under_load false), unless @allow_unsafe. Returns 0, or -1 with a
 * message in @err.
 */
int lab_lazy_mm_allowed(const struct lab_lazy_mm_conf *conf, bool releases_under_load,
			bool allow_unsafe, char *err, size_t errlen);
