/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/atomic.h - the one seam for shared-memory access in locks/.
 *
 * Every load, store, read-modify-write and fence that a lock variant makes on
 * shared memory goes through these macros. They are thin wrappers over the GCC
 * __atomic builtins (so ThreadSanitizer understands them) with the kernel's
 * names and ordering suffixes:
 *
 *   READ_ONCE(x), WRITE_ONCE(x, v)          relaxed load / store of lvalue x
 *   smp_load_acquire(p), smp_store_release(p, v)
 *   smp_mb(), smp_rmb(), smp_wmb(), smp_mb__after_atomic(), smp_mb__before_atomic()
 *   atomic_<op>[_relaxed|_acquire|_release](p, ...)   RMW on *p; the unsuffixed
 *                                                      form is fully ordered,
 *                                                      as in the kernel.
 *   cpu_relax()
 *
 * Arguments are pointers to naturally aligned integers or pointers of any
 * width the builtins accept (the kernel's atomic_long_t is a plain long here).
 * Unlike <stdatomic.h> the objects are not _Atomic-qualified; the two must not
 * be mixed in one translation unit (both define atomic_fetch_add).
 *
 * Debug-yield builds (-Ddebug_yield=true) call lab_debug_yield() before every
 * operation, which sometimes sched_yield()s or sleeps to shake out races. It
 * is a stress-test aid and compiled out otherwise.
 *
 * Source: the operation set and ordering rules follow the kernel's
 * Documentation/atomic_t.txt and memory-barriers.txt (v6.18).
 */
#pragma once

#include <stdbool.h>
#include "compiler.h"
#include "config.h"

#ifdef atomic_fetch_add
#error "locks/atomic.h and <stdatomic.h> must not be mixed"
#endif

void lab_debug_yield(void);

static inline void lab_yield_point(void)
{
#if LAB_DEBUG_YIELD
	lab_debug_yield();
#endif
}

#define __LAB_ATOMIC(expr) __extension__({ lab_yield_point(); (expr); })

/*
 * The simulated build (-DLAB_SIM=1, build/rwlab-sim) charges every access to
 * the engine (sim/sim.h) just before making it: the engine runs simulated
 * threads one at a time on one host thread, so the builtin that follows is
 * the access itself, made at the task's virtual time.
 */
#if LAB_SIM
#include "sim.h"
#define __LAB_PRE(p, op)	sim_mem((p), (op))
#else
#define __LAB_PRE(p, op)	lab_yield_point()
#endif
#define __LAB_ACC(p, op, expr) __extension__({ __LAB_PRE(p, op); (expr); })

/* Plain accesses that must not be torn, fused or invented. */
#define READ_ONCE(x)		__LAB_ACC(&(x), SIM_LOAD, __atomic_load_n(&(x), __ATOMIC_RELAXED))
#define WRITE_ONCE(x, v)	do { __LAB_PRE(&(x), SIM_STORE); __atomic_store_n(&(x), (v), __ATOMIC_RELAXED); } while (0)

#define smp_load_acquire(p)	__LAB_ACC((p), SIM_LOAD, __atomic_load_n((p), __ATOMIC_ACQUIRE))
#define smp_store_release(p, v)	do { __LAB_PRE((p), SIM_STORE); __atomic_store_n((p), (v), __ATOMIC_RELEASE); } while (0)

/*
 * Fences. ThreadSanitizer does not model stand-alone fences (GCC says so with
 * -Wtsan); the fences still execute in a TSan build. Every access they order
 * is itself an atomic.h access, which TSan never reports as a race, so
 * ignoring them costs TSan no true report; it only means TSan cannot check
 * fence placement (the torture and debug-yield suites exercise that).
 */
#if defined(__SANITIZE_THREAD__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"
#endif
static inline void __lab_fence_seq_cst(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __lab_fence_acquire(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void __lab_fence_release(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
#if defined(__SANITIZE_THREAD__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif

#if LAB_SIM
/*
 * Simulated: one host thread makes every access in virtual-time order, so the
 * fences order nothing that is not already ordered. smp_mb() is charged as
 * x86's locked no-op RMW (rmw.local_ns); the others cost nothing on x86.
 */
#define smp_mb()		sim_mem(NULL, SIM_FENCE)
#define smp_rmb()		__asm__ __volatile__("" ::: "memory")
#define smp_wmb()		__asm__ __volatile__("" ::: "memory")
#define smp_mb__after_atomic()	__asm__ __volatile__("" ::: "memory")
#define smp_mb__before_atomic()	__asm__ __volatile__("" ::: "memory")
#define smp_acquire__after_ctrl_dep()	__asm__ __volatile__("" ::: "memory")
#else
#define smp_mb()		__lab_fence_seq_cst()
#define smp_rmb()		__lab_fence_acquire()
#define smp_wmb()		__lab_fence_release()
/* After/before a relaxed RMW: make it a full barrier (x86: locked ops already are). */
#define smp_mb__after_atomic()	__lab_fence_seq_cst()
#define smp_mb__before_atomic()	__lab_fence_seq_cst()
#define smp_acquire__after_ctrl_dep()	__lab_fence_acquire()
#endif

/* fetch_<op>: return the old value. */
#define atomic_fetch_add_relaxed(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_add((p), (v), __ATOMIC_RELAXED))
#define atomic_fetch_add_acquire(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_add((p), (v), __ATOMIC_ACQUIRE))
#define atomic_fetch_add_release(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_add((p), (v), __ATOMIC_RELEASE))
#define atomic_fetch_add(p, v)		__LAB_ACC((p), SIM_RMW, __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST))

#define atomic_fetch_sub_relaxed(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_sub((p), (v), __ATOMIC_RELAXED))
#define atomic_fetch_sub_acquire(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_sub((p), (v), __ATOMIC_ACQUIRE))
#define atomic_fetch_sub_release(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_sub((p), (v), __ATOMIC_RELEASE))
#define atomic_fetch_sub(p, v)		__LAB_ACC((p), SIM_RMW, __atomic_fetch_sub((p), (v), __ATOMIC_SEQ_CST))

#define atomic_fetch_or_relaxed(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_or((p), (v), __ATOMIC_RELAXED))
#define atomic_fetch_or_acquire(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_or((p), (v), __ATOMIC_ACQUIRE))
#define atomic_fetch_or_release(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_or((p), (v), __ATOMIC_RELEASE))
#define atomic_fetch_or(p, v)		__LAB_ACC((p), SIM_RMW, __atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST))

#define atomic_fetch_andnot_relaxed(p, v) __LAB_ACC((p), SIM_RMW, __atomic_fetch_and((p), ~(v), __ATOMIC_RELAXED))
#define atomic_fetch_andnot_acquire(p, v) __LAB_ACC((p), SIM_RMW, __atomic_fetch_and((p), ~(v), __ATOMIC_ACQUIRE))
#define atomic_fetch_andnot_release(p, v) __LAB_ACC((p), SIM_RMW, __atomic_fetch_and((p), ~(v), __ATOMIC_RELEASE))
#define atomic_fetch_andnot(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_fetch_and((p), ~(v), __ATOMIC_SEQ_CST))

/* <op>_return: return the new value. */
#define atomic_add_return_relaxed(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_add_fetch((p), (v), __ATOMIC_RELAXED))
#define atomic_add_return_acquire(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_add_fetch((p), (v), __ATOMIC_ACQUIRE))
#define atomic_add_return_release(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_add_fetch((p), (v), __ATOMIC_RELEASE))
#define atomic_add_return(p, v)		__LAB_ACC((p), SIM_RMW, __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST))

#define atomic_sub_return_relaxed(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_sub_fetch((p), (v), __ATOMIC_RELAXED))
#define atomic_sub_return_acquire(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_sub_fetch((p), (v), __ATOMIC_ACQUIRE))
#define atomic_sub_return_release(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_sub_fetch((p), (v), __ATOMIC_RELEASE))
#define atomic_sub_return(p, v)		__LAB_ACC((p), SIM_RMW, __atomic_sub_fetch((p), (v), __ATOMIC_SEQ_CST))

/* Void RMW (no return value, no ordering: the kernel's atomic_add/atomic_or). */
#define atomic_add(p, v)	((void)atomic_fetch_add_relaxed((p), (v)))
#define atomic_sub(p, v)	((void)atomic_fetch_sub_relaxed((p), (v)))
#define atomic_or(p, v)		((void)atomic_fetch_or_relaxed((p), (v)))
#define atomic_andnot(p, v)	((void)atomic_fetch_andnot_relaxed((p), (v)))
#define atomic_inc(p)		atomic_add((p), 1)
#define atomic_dec(p)		atomic_sub((p), 1)

/* Exchange. */
#define atomic_xchg_relaxed(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_exchange_n((p), (v), __ATOMIC_RELAXED))
#define atomic_xchg_acquire(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_exchange_n((p), (v), __ATOMIC_ACQUIRE))
#define atomic_xchg_release(p, v)	__LAB_ACC((p), SIM_RMW, __atomic_exchange_n((p), (v), __ATOMIC_RELEASE))
#define atomic_xchg(p, v)		__LAB_ACC((p), SIM_RMW, __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST))

/*
 * try_cmpxchg: if *p == *oldp store new and return true; else load *p into
 * *oldp and return false. The failure ordering is relaxed (acquire for
 * _acquire and the fully ordered form), as in the kernel.
 */
#define atomic_try_cmpxchg_relaxed(p, oldp, new) \
	__LAB_ACC((p), SIM_RMW, __atomic_compare_exchange_n((p), (oldp), (new), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
#define atomic_try_cmpxchg_acquire(p, oldp, new) \
	__LAB_ACC((p), SIM_RMW, __atomic_compare_exchange_n((p), (oldp), (new), false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
#define atomic_try_cmpxchg_release(p, oldp, new) \
	__LAB_ACC((p), SIM_RMW, __atomic_compare_exchange_n((p), (oldp), (new), false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
#define atomic_try_cmpxchg(p, oldp, new) \
	__LAB_ACC((p), SIM_RMW, __atomic_compare_exchange_n((p), (oldp), (new), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))

/* cmpxchg: return the value found in *p (== old on success). */
#define __lab_cmpxchg(p, old, new, so, fo) __extension__({			\
	__typeof__(*(p)) __old = (old);						\
	__LAB_PRE((p), SIM_RMW);						\
	__atomic_compare_exchange_n((p), &__old, (new), false, (so), (fo));	\
	__old;									\
})
#define atomic_cmpxchg_relaxed(p, o, n)	__lab_cmpxchg(p, o, n, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
#define atomic_cmpxchg_acquire(p, o, n)	__lab_cmpxchg(p, o, n, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)
#define atomic_cmpxchg_release(p, o, n)	__lab_cmpxchg(p, o, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define atomic_cmpxchg(p, o, n)		__lab_cmpxchg(p, o, n, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

/*
 * atomic_inc_not_zero: add 1 to *p unless it is 0; true if it added. Fully
 * ordered when it adds, unordered when it does not, as the kernel's
 * atomic_inc_not_zero (atomic_add_unless(v, 1, 0)) that get_page_unless_zero
 * and kref_get_unless_zero are made of.
 */
#define atomic_inc_not_zero(p) __extension__({					\
	__typeof__(*(p)) __v = READ_ONCE(*(p));					\
										\
	while (__v && !atomic_try_cmpxchg((p), &__v, __v + 1))			\
		;	/* *p changed under us: __v holds the new value */	\
	__v != 0;								\
})

/* Spin-wait hint. */
static inline void cpu_relax(void)
{
#if LAB_SIM
	sim_relax();	/* parks a pure spin iteration until a line it read changes */
#elif defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
	lab_yield_point();
}
