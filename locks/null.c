/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * null - no exclusion at all: every verb returns at once.
 *
 * Citation: LITL's "empty" lock and dav1d's null muxer (docs/architecture.md §7):
 * a baseline that measures the harness and workload themselves.
 *
 * Design summary: every acquisition succeeds immediately; there is no lock
 * word. Results with null are the cost floor of a workload, never a lock's.
 * It does not claim LAB_CAP_EXCLUSION, so the exclusion tests skip it.
 */
#include "null_impl.h"

static int null_init(struct lab_rwsem *sem, const struct lab_rwsem_conf *conf)
{
	(void)sem;
	(void)conf;
	return 0;
}

const struct lab_rwsem_ops lab_rwsem_null_ops = {
	.name = "null",
	.summary = "no exclusion: every verb returns at once (measures the harness)",
	.cite = "LITL 'empty' lock (Guiroux et al., USENIX ATC'16); baseline only",
	.caps = LAB_CAP_READ_TRYLOCK | LAB_CAP_WRITE_TRYLOCK | LAB_CAP_DOWNGRADE | LAB_CAP_READ_RECURSIVE,
	.size = sizeof(struct null_rwsem),
	.align = _Alignof(struct null_rwsem),
	.init = null_init,
	.down_read = null_down_read,
	.down_read_trylock = null_down_read_trylock,
	.up_read = null_up_read,
	.down_write = null_down_write,
	.down_write_trylock = null_down_write_trylock,
	.up_write = null_up_write,
	.downgrade_write = null_downgrade_write,
};
