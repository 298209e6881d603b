/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/debug.h - DEBUG_RWSEMS_WARN_ON for the kernel ports (CONFIG_DEBUG_RWSEMS,
 * kernel/locking/rwsem.c v5.3..v6.18; the reporting is in debug.c, the
 * switches in rwsem.h).
 *
 * DEBUG_RWSEMS_WARN_ON(c, ...): compiled in only with -Ddebug_checks=true
 * (the fast-path checks: owner on up_write, count underflow), as the kernel
 * compiles it only under CONFIG_DEBUG_RWSEMS.
 * LAB_RWSEM_CHECK(c, ...): the wait_lock-release invariants; always built,
 * active when lab_rwsem_checks is set (on by default with debug_checks,
 * turned on by rwlab torture --kill), one predictable branch otherwise and
 * only on slow paths.
 */
#pragma once

#include "atomic.h"
#include "compiler.h"
#include "config.h"
#include "rwsem.h"

#define LAB_RWSEM_CHECK(c, variant, what, count)						\
	do {											\
		if (lab_unlikely(READ_ONCE(lab_rwsem_checks)) && lab_unlikely(c))		\
			lab_rwsem_warn((variant), (what), (count), __FILE__, __LINE__);	\
	} while (0)

#if LAB_DEBUG_CHECKS
#define DEBUG_RWSEMS_WARN_ON(c, variant, what, count)						\
	do {											\
		if (lab_unlikely(c))								\
			lab_rwsem_warn((variant), (what), (count), __FILE__, __LINE__);	\
	} while (0)
#else
#define DEBUG_RWSEMS_WARN_ON(c, variant, what, count) do { } while (0)
#endif
