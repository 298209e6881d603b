/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lazy-mm framework: domains, mm objects with poisoning, CPU slots and
 * their context switches, "IPIs", and the TLB flush. See lazy_mm.h for the
 * model; docs/kernel.md §5 and §8 for the kernel side.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "events.h"
#include "lazy_mm.h"

#if defined(__SANITIZE_ADDRESS__)
#define LAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LAB_ASAN 1
#endif
#endif
#ifndef LAB_ASAN
#define LAB_ASAN 0
#endif

#define BITS_PER_LONG	(8 * (int)sizeof(unsigned long))

/* A mailbox that no interrupt thread serves: the sender runs the handler itself. */
#define LAB_IPI_CLOSED	((struct lab_ipi_req *)1)

/* Polls of an acknowledgement before the sender sleeps on it. */
#define LAB_IPI_SPIN	256

struct lab_ipi_req {
	struct lab_ipi_req *next;
	lab_ipi_fn fn;
	void *arg;
	int result;
	uint32_t done;			/* futex word: 1 once acknowledged */
#if LAB_SIM
	struct lab_lazy_domain *d;	/* for the engine's interrupt handler */
	int cpu;
#endif
};

/* Nonzero while this thread runs ops->release: frees outside it are deferred frees. */
#if LAB_SIM
/* Simulated tasks share the host thread: one counter per engine task. */
static int lab_lazy_in_release_sim[SIM_MAX_TASKS];
#define lab_lazy_in_release (lab_lazy_in_release_sim[sim_cur_id])
#else
static __thread int lab_lazy_in_release;
#endif

/*
 * IPI delivery. Natively: the slot's interrupt thread, woken by a futex wake
 * (its latency is real, not the kernel's). In simulation no
 * interrupt thread exists: an IPI is the engine's interrupt (sim_ipi_send):
 * the handler runs on the simulated CPU of the slot's thread cost.ipi_ns
 * after the send, preempting whatever runs there without a context switch,
 * and the sender spins on the acknowledgement as csd_lock_wait() does.
 * "Interrupts off" is the slot's irq_lock section (lab_irq_lock): there an
 * IPI to that CPU waits for the unlock, as the kernel's waits for
 * local_irq_enable(), and the holder is not preempted.
 */
static inline void lab_irq_lock(struct lab_lazy_cpu *c)
{
#if LAB_SIM
	sim_irq_disable();
#endif
	raw_spin_lock(&c->irq_lock);
}

static inline void lab_irq_unlock(struct lab_lazy_cpu *c)
{
	raw_spin_unlock(&c->irq_lock);
#if LAB_SIM
	sim_irq_enable();
#endif
}

/* One write(2) for the line (err.h): two threads failing at once cannot tear it. */
static __lab_cold void lab_lazy_fatal(const char *fmt, ...)
{
	char prefix[96];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: lazy-mm: ", lab_prog());
	va_start(ap, fmt);
	lab_vwrite_line(STDERR_FILENO, prefix, fmt, ap);
	va_end(ap);
	abort();
}

void lab_lazy_mm_bug(const struct lab_lazy_mm *mm, const char *where)
{
	lab_lazy_fatal("use after free of mm %p in %s (canary %#llx, a live mm has %#llx)", (const void *)mm,
		       where, (unsigned long long)READ_ONCE(mm->canary), LAB_LAZY_MM_ALIVE);
}

/* ---- mm_cpumask ------------------------------------------------------------- */

static inline bool mask_test(const unsigned long *m, int cpu)
{
	return READ_ONCE(m[cpu / BITS_PER_LONG]) & (1ul << (cpu % BITS_PER_LONG));
}

/* cpumask_set_cpu after a test, as x86 switch_mm_irqs_off: no RMW when already set. */
static inline void mask_set(unsigned long *m, int cpu)
{
	if (!mask_test(m, cpu))
		atomic_or(&m[cpu / BITS_PER_LONG], 1ul << (cpu % BITS_PER_LONG));
}

/*
 * Release: the CPU's uses of the mm come before its bit reads clear, so a
 * shootdown that reads the bit clear (acquire) and skips this CPU frees the
 * mm only after them.
 */
static inline void mask_clear(unsigned long *m, int cpu)
{
	if (mask_test(m, cpu))
		(void)atomic_fetch_andnot_release(&m[cpu / BITS_PER_LONG], 1ul << (cpu % BITS_PER_LONG));
}

/* ---- freed mms: poison and quarantine ------------------------------------------ */

/*
 * The quarantine keeps the last LAB_LAZY_QUARANTINE freed mms allocated (and
 * poisoned), so that a use after free reads 0x6b instead of a recycled mm.
 */
#define LAB_LAZY_QUARANTINE 1024

static pthread_mutex_t lab_quarantine_lock = PTHREAD_MUTEX_INITIALIZER;
static void *lab_quarantine[LAB_LAZY_QUARANTINE];
static unsigned lab_quarantine_next;

static void lab_lazy_mm_dispose(void *mem)
{
	void *old;

	if (LAB_ASAN) {
		free(mem);	/* AddressSanitizer quarantines it and reports any later use */
		return;
	}
	pthread_mutex_lock(&lab_quarantine_lock);
	old = lab_quarantine[lab_quarantine_next];
	lab_quarantine[lab_quarantine_next] = mem;
	lab_quarantine_next = (lab_quarantine_next + 1) % LAB_LAZY_QUARANTINE;
	pthread_mutex_unlock(&lab_quarantine_lock);
	free(old);
}

static struct lab_lazy_mm *lab_lazy_mm_new(struct lab_lazy_domain *d)
{
	struct lab_lazy_mm *mm = aligned_alloc(LAB_CACHELINE, d->mm_size);

	if (!mm)
		return NULL;
	memset(mm, 0, d->mm_size);
	mm->domain = d;
	mm->serial = atomic_add_return_relaxed(&d->serial, 1);
	mm->priv = d->mm_extra ? (char *)mm + sizeof(*mm) : NULL;
	WRITE_ONCE(mm->mm_count, 1);
	if (d->ops->mm_init)
		d->ops->mm_init(d, mm);
	WRITE_ONCE(mm->canary, LAB_LAZY_MM_ALIVE);
	return mm;
}

struct lab_lazy_mm *lab_lazy_mm_alloc(struct lab_lazy_domain *d)
{
	struct lab_lazy_mm *mm = lab_lazy_mm_new(d);

	if (mm)
		atomic_add(&d->allocs, 1);
	return mm;
}

void lab_lazy_mm_free(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	lab_lazy_mm_check(mm, "__mmdrop (double free?)");
	atomic_add(&d->frees, 1);
	if (!lab_lazy_in_release) {
		atomic_add(&d->deferred_frees, 1);
		lockevent_inc(lazy_tlb_defer_free);
	}
	memset(mm, LAB_LAZY_POISON_FREE, d->mm_size);
	lab_lazy_mm_dispose(mm);
}

void lab_lazy_release(struct lab_lazy_domain *d, struct lab_lazy_mm *mm)
{
	lab_lazy_mm_check(mm, "release");
	lab_lazy_in_release++;
	d->ops->release(d, mm);
	lab_lazy_in_release--;
}

/* ---- domains ------------------------------------------------------------------- */

int lab_lazy_domain_create(struct lab_lazy_domain **dp, const struct lab_lazy_mm_conf *conf,
			   int ncpus, char *err, size_t errlen)
{
	const struct lab_lazy_mm_ops *ops = conf->ops;
	struct lab_lazy_domain *d;
	int r;

	*dp = NULL;
	if (ncpus < 1 || ncpus > LAB_LAZY_MAX_CPUS) {
		snprintf(err, errlen, "%s: %d CPU slots (valid: 1..%d)", ops->name, ncpus, LAB_LAZY_MAX_CPUS);
		return -1;
	}
	d = aligned_alloc(LAB_CACHELINE, sizeof(*d));
	if (!d)
		goto nomem;
	memset(d, 0, sizeof(*d));
	d->ops = ops;
	d->ncpus = ncpus;
	memcpy(d->knob, conf->knob, sizeof(d->knob));
	d->cpu = aligned_alloc(LAB_CACHELINE, (size_t)ncpus * sizeof(*d->cpu));
	if (!d->cpu)
		goto nomem_d;
	memset(d->cpu, 0, (size_t)ncpus * sizeof(*d->cpu));
	for (int i = 0; i < ncpus; i++) {
		raw_spin_lock_init(&d->cpu[i].irq_lock);
		WRITE_ONCE(d->cpu[i].ipi_head, LAB_IPI_CLOSED);
#if LAB_SIM
		d->cpu[i].sim_owner = -1;
#endif
	}
	if (ops->size) {
		size_t align = ops->align > LAB_CACHELINE ? ops->align : LAB_CACHELINE;
		size_t size = (ops->size + align - 1) / align * align;

		d->priv = aligned_alloc(align, size);
		if (!d->priv)
			goto nomem_cpu;
		memset(d->priv, 0, size);
	}
	r = ops->init(d, ncpus, conf);
	if (r) {
		snprintf(err, errlen, "%s: init failed: %s", ops->name, strerror(-r));
		free(d->priv);
		free(d->cpu);
		free(d);
		return -1;
	}
	d->mm_extra = (d->mm_extra + LAB_CACHELINE - 1) / LAB_CACHELINE * LAB_CACHELINE;
	d->mm_size = sizeof(struct lab_lazy_mm) + d->mm_extra;
	d->init_mm = lab_lazy_mm_new(d);
	if (!d->init_mm) {
		if (ops->destroy)
			ops->destroy(d);
		goto nomem_cpu;
	}
	*dp = d;
	return 0;

nomem_cpu:
	free(d->priv);
	free(d->cpu);
nomem_d:
	free(d);
nomem:
	snprintf(err, errlen, "%s: out of memory for %d CPU slots", ops->name, ncpus);
	return -1;
}

void lab_lazy_domain_destroy(struct lab_lazy_domain *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->ncpus; i++)
		if (d->cpu[i].online)
			lab_lazy_fatal("%s: domain destroyed with CPU %d online", d->ops->name, i);
	memset(d->init_mm, LAB_LAZY_POISON_FREE, d->mm_size);
	free(d->init_mm);
	if (d->ops->destroy)
		d->ops->destroy(d);
	free(d->priv);
	free(d->cpu);
	free(d);
}

/* ---- IPIs ------------------------------------------------------------------------ */

struct lab_irq_arg {
	struct lab_lazy_domain *d;
	int cpu;
};

static void lab_ipi_run(struct lab_lazy_domain *d, int cpu, struct lab_ipi_req *req)
{
	struct lab_lazy_cpu *c = &d->cpu[cpu];
	int r;

	lab_irq_lock(c);
	r = req->fn(d, cpu, req->arg);
	lab_irq_unlock(c);
	req->result = r;
	/* Release: the handler's effects and result before the acknowledgement (pairs with the sender's acquire). */
	smp_store_release(&req->done, 1);
#if !LAB_SIM
	/* req may be gone once done is seen; the wake only uses its address (a spurious wake at worst). */
	lab_futex_wake(&req->done, 1);
#endif
}

static void lab_ipi_run_list(struct lab_lazy_domain *d, int cpu, struct lab_ipi_req *req)
{
	while (req) {
		struct lab_ipi_req *next = req->next;	/* read before done: then req may vanish */

		lab_ipi_run(d, cpu, req);
		req = next;
	}
}

/* A CPU slot's interrupt context: serve the mailbox until the slot goes offline. */
static void *lab_irq_thread(void *p)
{
	struct lab_irq_arg a = *(struct lab_irq_arg *)p;
	struct lab_lazy_cpu *c = &a.d->cpu[a.cpu];
	struct lab_ipi_req *list;

	free(p);
	for (;;) {
		/* Acquire: read the kick count before looking at the mailbox (a later push bumps it). */
		uint32_t seq = smp_load_acquire(&c->ipi_kick);

		list = atomic_xchg(&c->ipi_head, NULL);
		if (list) {
			lab_ipi_run_list(a.d, a.cpu, list);
			continue;
		}
		if (READ_ONCE(c->ipi_stop))
			break;
		lab_futex_wait(&c->ipi_kick, seq, -1);
	}
	/* Close the mailbox; serve what raced in. Later senders run their handler themselves. */
	list = atomic_xchg(&c->ipi_head, LAB_IPI_CLOSED);
	lab_ipi_run_list(a.d, a.cpu, list);
	return NULL;
}

#if !LAB_SIM
/* Post @req to @cpu's mailbox and kick its interrupt thread. False if the mailbox is closed. */
static bool lab_ipi_post(struct lab_lazy_cpu *c, struct lab_ipi_req *req)
{
	struct lab_ipi_req *old = READ_ONCE(c->ipi_head);

	do {
		if (old == LAB_IPI_CLOSED)
			return false;
		req->next = old;
		/* Full barrier: req's fields are visible to whoever takes the list. */
	} while (!atomic_try_cmpxchg(&c->ipi_head, &old, req));
	/* Full barrier: the push before the kick (pairs with the interrupt thread's acquire of ipi_kick). */
	atomic_fetch_add(&c->ipi_kick, 1);
	lab_futex_wake(&c->ipi_kick, 1);
	return true;
}
#endif

static void lab_ipi_wait(struct lab_ipi_req *req)
{
	/* Acquire: see the handler's effects once it acknowledged (pairs with lab_ipi_run). */
	for (int i = 0; !smp_load_acquire(&req->done); i++) {
		if (LAB_SIM || i < LAB_IPI_SPIN)
			cpu_relax();	/* simulated: csd_lock_wait() only spins */
		else
			lab_futex_wait(&req->done, 0, -1);
	}
}

#if LAB_SIM
static void lab_ipi_sim_handler(void *p)
{
	struct lab_ipi_req *req = p;

	lab_ipi_run(req->d, req->cpu, req);
}

/* Send @req to slot @cpu's simulated CPU as an interrupt. False if the slot is offline. */
static bool lab_ipi_send_sim(struct lab_lazy_domain *d, int cpu, struct lab_ipi_req *req)
{
	int owner = READ_ONCE(d->cpu[cpu].sim_owner);

	if (owner < 0)
		return false;
	req->d = d;
	req->cpu = cpu;
	sim_ipi_send(sim_task_cpu(owner), lab_ipi_sim_handler, req);
	return true;
}
#endif

int lab_lazy_ipi_many(struct lab_lazy_domain *d, const unsigned long *mask, lab_ipi_fn fn, void *arg)
{
	struct lab_ipi_req stack_reqs[16], *reqs = stack_reqs;
	int n = 0, sum = 0, cap = (int)LAB_ARRAY_SIZE(stack_reqs);

	for (int cpu = 0; cpu < d->ncpus; cpu++)
		n += mask_test(mask, cpu);
	if (!n)
		return 0;
	if (n > cap) {
		reqs = malloc((size_t)n * sizeof(*reqs));
		if (!reqs)
			lab_lazy_fatal("out of memory for %d IPIs", n);
	}
	n = 0;
	for (int cpu = 0; cpu < d->ncpus; cpu++) {
		struct lab_ipi_req *req;

		if (!mask_test(mask, cpu))
			continue;
		req = &reqs[n++];
		req->fn = fn;
		req->arg = arg;
		req->result = 0;
		req->done = 0;
		lockevent_inc(lazy_tlb_ipi);
#if LAB_SIM
		if (!lab_ipi_send_sim(d, cpu, req))
#else
		if (!lab_ipi_post(&d->cpu[cpu], req))
#endif
			lab_ipi_run(d, cpu, req);	/* offline: no interrupt thread */
	}
	for (int i = 0; i < n; i++) {
		lab_ipi_wait(&reqs[i]);
		sum += reqs[i].result;
	}
	if (reqs != stack_reqs)
		free(reqs);
	return sum;
}

int lab_lazy_ipi(struct lab_lazy_domain *d, int cpu, lab_ipi_fn fn, void *arg)
{
	unsigned long mask[LAB_LAZY_CPUMASK_LONGS] = { 0 };

	mask[cpu / BITS_PER_LONG] = 1ul << (cpu % BITS_PER_LONG);
	return lab_lazy_ipi_many(d, mask, fn, arg);
}

int lab_lazy_shoot_lazy_ipi(struct lab_lazy_domain *d, int cpu, void *arg)
{
	struct lab_lazy_mm *mm = arg;
	struct lab_lazy_cpu *c = &d->cpu[cpu];

	if (READ_ONCE(c->active_mm) != mm)
		return 0;
	if (!READ_ONCE(c->lazy))
		lab_lazy_fatal("%s: release of mm %p while CPU %d runs it as its user mm", d->ops->name,
			       (void *)mm, cpu);
	lab_lazy_mm_check(mm, "shootdown switch_mm to init_mm");
	WRITE_ONCE(c->active_mm, d->init_mm);
	if (d->ops->flags & LAB_LAZY_CPUMASK)
		mask_clear(mm->cpumask, cpu);
	if (d->ops->shoot)
		d->ops->shoot(d, cpu, mm);
	return 1;
}

/* ---- CPU slots and context switches ------------------------------------------------ */

int lab_lazy_cpu_online(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *mm)
{
	struct lab_lazy_cpu *c = &d->cpu[cpu];
	struct lab_irq_arg *a;
	int r;

	if (cpu < 0 || cpu >= d->ncpus || c->online)
		lab_lazy_fatal("%s: CPU %d is out of range or already online", d->ops->name, cpu);
	lab_lazy_mm_check(mm, "cpu online");
	a = malloc(sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->d = d;
	a->cpu = cpu;
	if (d->ops->cpu_online)
		d->ops->cpu_online(d, cpu);
	lab_irq_lock(c);
	WRITE_ONCE(c->lazy, 0);
	WRITE_ONCE(c->active_mm, mm);
	WRITE_ONCE(c->tlb_gen, READ_ONCE(mm->tlb_gen));
	if (d->ops->flags & LAB_LAZY_CPUMASK)
		mask_set(mm->cpumask, cpu);
	lab_irq_unlock(c);
#if LAB_SIM
	/* Simulated: no interrupt thread; IPIs go to this task's simulated CPU. */
	free(a);
	WRITE_ONCE(c->sim_owner, sim_cur_id);
	c->online = true;
	return 0;
#endif
	WRITE_ONCE(c->ipi_stop, 0);
	/* Release: open the mailbox after the slot state above is set. */
	smp_store_release(&c->ipi_head, NULL);
	/* Created from the slot's thread: the interrupt thread inherits its CPU affinity (and its simulated CPU pin). */
	r = lab_thread_create(&c->ipi_thread, lab_irq_thread, a);
	if (r) {
		struct lab_ipi_req *list = atomic_xchg(&c->ipi_head, LAB_IPI_CLOSED);

		lab_ipi_run_list(d, cpu, list);
		free(a);
		lab_irq_lock(c);
		if (d->ops->flags & LAB_LAZY_CPUMASK)
			mask_clear(mm->cpumask, cpu);
		WRITE_ONCE(c->active_mm, NULL);
		lab_irq_unlock(c);
		if (d->ops->cpu_offline)
			d->ops->cpu_offline(d, cpu);
		return -r;
	}
	c->online = true;
	return 0;
}

void lab_lazy_cpu_offline(struct lab_lazy_domain *d, int cpu)
{
	struct lab_lazy_cpu *c = &d->cpu[cpu];
	struct lab_lazy_mm *mm;

	if (!c->online)
		lab_lazy_fatal("%s: CPU %d is not online", d->ops->name, cpu);
#if LAB_SIM
	/* Later senders run the handler themselves; IPIs in flight still arrive. */
	WRITE_ONCE(c->sim_owner, -1);
#else
	WRITE_ONCE(c->ipi_stop, 1);
	/* Full barrier: ipi_stop before the kick (pairs with the interrupt thread's acquire). */
	atomic_fetch_add(&c->ipi_kick, 1);
	lab_futex_wake(&c->ipi_kick, 1);
	lab_thread_join(c->ipi_thread, NULL);
#endif
	lab_irq_lock(c);
	if (READ_ONCE(c->lazy))
		lab_lazy_fatal("%s: CPU %d goes offline on a borrowed mm", d->ops->name, cpu);
	mm = READ_ONCE(c->active_mm);
	WRITE_ONCE(c->active_mm, NULL);
	if (mm && (d->ops->flags & LAB_LAZY_CPUMASK))
		mask_clear(mm->cpumask, cpu);
	lab_irq_unlock(c);
	if (d->ops->cpu_offline)
		d->ops->cpu_offline(d, cpu);
	c->online = false;
}

void lab_lazy_switch_to_kthread(struct lab_lazy_domain *d, int cpu)
{
	struct lab_lazy_cpu *c = &d->cpu[cpu];
	struct lab_lazy_mm *mm;

	lab_irq_lock(c);
	mm = READ_ONCE(c->active_mm);
	if (lab_unlikely(!mm || mm == d->init_mm || READ_ONCE(c->lazy)))
		lab_lazy_fatal("%s: CPU %d switches to a kernel thread without a user mm", d->ops->name, cpu);
	lab_lazy_mm_check(mm, "mmgrab_lazy_tlb");
	WRITE_ONCE(c->lazy, 1);
	d->ops->grab(d, cpu, mm);
	lab_irq_unlock(c);
}

void lab_lazy_switch_to_user(struct lab_lazy_domain *d, int cpu, struct lab_lazy_mm *next)
{
	struct lab_lazy_cpu *c = &d->cpu[cpu];
	struct lab_lazy_mm *prev;
	bool shot;

	lab_irq_lock(c);
	prev = READ_ONCE(c->active_mm);
	if (lab_unlikely(!READ_ONCE(c->lazy)))
		lab_lazy_fatal("%s: CPU %d switches to user without running a kernel thread", d->ops->name, cpu);
	shot = prev == d->init_mm;
	/* switch_mm(prev, next) reads the borrowed mm: it must still exist. */
	if (!shot)
		lab_lazy_mm_check(prev, "switch_mm from the borrowed mm");
	if (prev != next) {
		lab_lazy_mm_check(next, "switch_mm to the user mm");
		/* As x86 switch_mm_irqs_off: join next's mask, load next, then leave prev's mask. */
		if (d->ops->flags & LAB_LAZY_CPUMASK)
			mask_set(next->cpumask, cpu);
		WRITE_ONCE(c->active_mm, next);
		WRITE_ONCE(c->tlb_gen, READ_ONCE(next->tlb_gen));
		if (!shot && (d->ops->flags & LAB_LAZY_CPUMASK))
			mask_clear(prev->cpumask, cpu);
	}
	WRITE_ONCE(c->lazy, 0);
	lab_irq_unlock(c);
	/* finish_task_switch(): mmdrop_lazy_tlb_sched(prev), interrupts on again. */
	if (!shot)
		d->ops->drop(d, cpu, prev);
}

/* ---- TLB flush ---------------------------------------------------------------------- */

/* The flush handler: catch up with the mm's generation if the CPU still has it loaded. */
static int lab_flush_ipi(struct lab_lazy_domain *d, int cpu, void *arg)
{
	struct lab_lazy_mm *mm = arg;
	struct lab_lazy_cpu *c = &d->cpu[cpu];

	if (READ_ONCE(c->active_mm) != mm)
		return 0;
	WRITE_ONCE(c->tlb_gen, READ_ONCE(mm->tlb_gen));
	return 1;
}

int lab_lazy_flush_mm(struct lab_lazy_domain *d, int self, struct lab_lazy_mm *mm)
{
	unsigned long mask[LAB_LAZY_CPUMASK_LONGS] = { 0 };
	int words = (d->ncpus + BITS_PER_LONG - 1) / BITS_PER_LONG, n = 0;

	lab_lazy_mm_check(mm, "flush_tlb_mm");
	/* Full barrier: the page-table change before the new generation, both before finding the CPUs. */
	atomic_fetch_add(&mm->tlb_gen, 1);
	if (d->ops->flags & LAB_LAZY_CPUMASK) {
		for (int w = 0; w < words; w++)
			mask[w] = READ_ONCE(mm->cpumask[w]);
	} else {
		for (int cpu = 0; cpu < d->ncpus; cpu++)
			if (READ_ONCE(d->cpu[cpu].active_mm) == mm)
				mask[cpu / BITS_PER_LONG] |= 1ul << (cpu % BITS_PER_LONG);
	}
	if (self >= 0 && mask_test(mask, self)) {
		struct lab_lazy_cpu *c = &d->cpu[self];

		mask[self / BITS_PER_LONG] &= ~(1ul << (self % BITS_PER_LONG));
		lab_irq_lock(c);
		lab_flush_ipi(d, self, mm);
		lab_irq_unlock(c);
	}
	for (int w = 0; w < words; w++)
		n += __builtin_popcountl(mask[w]);
	lab_lazy_ipi_many(d, mask, lab_flush_ipi, mm);
	return n;
}
