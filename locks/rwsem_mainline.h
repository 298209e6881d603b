/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks/rwsem_mainline.h - test-only introspection of the rwsem variant
 * (locks/rwsem_mainline.c). Nothing outside tests/ calls it.
 */
#pragma once

struct lab_rwsem;

/*
 * rwsem_mainline_owner() - the raw owner word of @sem (an rwsem lock): a
 * struct lab_task pointer | READER_OWNED (bit 0) | NONSPINNABLE (bit 1).
 * Relaxed load, any thread; it may change right after.
 */
unsigned long rwsem_mainline_owner(struct lab_rwsem *sem);
