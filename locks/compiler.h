/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Compiler helpers shared by locks/, workloads/ and harness/.
 */
#pragma once

/* 1 in the simulated build (build/rwlab-sim, sim/): the seams call the engine. */
#ifndef LAB_SIM
#define LAB_SIM 0
#endif

#include <stddef.h>

#define LAB_CACHELINE 64

/* 1 in a ThreadSanitizer build (GCC defines __SANITIZE_THREAD__, clang has the feature test). */
#if defined(__SANITIZE_THREAD__)
#define LAB_SANITIZE_THREAD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LAB_SANITIZE_THREAD 1
#endif
#endif
#ifndef LAB_SANITIZE_THREAD
#define LAB_SANITIZE_THREAD 0
#endif

#define lab_likely(x)	__builtin_expect(!!(x), 1)
#define lab_unlikely(x)	__builtin_expect(!!(x), 0)

#define __lab_cacheline_aligned	__attribute__((aligned(LAB_CACHELINE)))
#define __lab_noinline		__attribute__((noinline))
#define __lab_cold		__attribute__((cold, noinline))
#define __lab_unused		__attribute__((unused))

#define LAB_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define lab_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Compiler-only barrier: no CPU fence. */
#define barrier()	__asm__ __volatile__("" ::: "memory")
