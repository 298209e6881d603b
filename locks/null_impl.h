/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * null's verbs as static inlines, so that `rwlab bench` can call them directly
 * and measure what the ops-table indirection costs (docs/architecture.md §2).
 */
#pragma once

#include "compiler.h"
#include "rwsem.h"

struct null_rwsem {
	char unused;
};

extern const struct lab_rwsem_ops lab_rwsem_null_ops;

static inline void null_down_read(struct lab_rwsem *sem) { (void)sem; barrier(); }
static inline int null_down_read_trylock(struct lab_rwsem *sem) { (void)sem; barrier(); return 1; }
static inline void null_up_read(struct lab_rwsem *sem) { (void)sem; barrier(); }
static inline void null_down_write(struct lab_rwsem *sem) { (void)sem; barrier(); }
static inline int null_down_write_trylock(struct lab_rwsem *sem) { (void)sem; barrier(); return 1; }
static inline void null_up_write(struct lab_rwsem *sem) { (void)sem; barrier(); }
static inline void null_downgrade_write(struct lab_rwsem *sem) { (void)sem; barrier(); }
