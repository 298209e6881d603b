/* SPDX-License-Identifier: MIT */
/*
 * locktorture-style invariant checking (kernel/locking/locktorture.c,
 * research/kernel.md §7), shared by the stress tests and `rwlab torture`.
 *
 * Writers: after down_write, write_held must be 0 (set it to 1) and
 * read_held must be 0; hold for a while; clear write_held; up_write.
 * Readers: after down_read, increment read_held; write_held must be 0; hold;
 * decrement; up_read. Any violation counts as a failure of that role.
 * Optionally writers downgrade_write part of the time (then check as a
 * reader) and both roles use the trylock verbs part of the time.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "rwsem.h"

struct lab_torture_opts {
	const struct lab_rwsem_conf *lock;
	int readers, writers;
	uint64_t duration_ns;
	unsigned long hold_loops;	/* cpu_relax() iterations inside the critical section */
	unsigned long think_loops;	/* between acquisitions */
	bool trylock;			/* 1 in 8 acquisitions use the trylock verb when supported */
	bool downgrade;			/* 1 in 4 write holds downgrade when supported */
};

struct lab_torture_result {
	uint64_t rd_total, rd_min, rd_max, rd_fail;
	uint64_t wr_total, wr_min, wr_max, wr_fail;
	uint64_t downgrades, trylock_fail;
};

/* Run the torture for opts->duration_ns. Returns 0, or -errno if setup failed. */
int lab_torture_run(const struct lab_torture_opts *o, struct lab_torture_result *r);
