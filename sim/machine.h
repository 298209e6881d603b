/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim/machine.h - a simulated machine: topology and cited costs, parsed from
 * sim/machines/NAME.machine (format: the project's machine-file contract,
 * summarised in sim/machines/README.md).
 *
 * Units: every *_ns field is nanoseconds, *_gbs is GB/s (1e9 bytes/s), ghz is
 * GHz. CPU ids follow the file's `numbering` (linux or adjacent).
 *
 * Errors: sim_machine_load() refuses the whole file on the first bad line
 * (unknown key, missing citation on a numeric value, value out of range,
 * missing required key, name not equal to the file name) with one line
 * "FILE:LINE: problem" (or "FILE: problem") in @err.
 *
 * Threading: none (parse once, then read only).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SIM_MAX_CPUS 512
#define SIM_SB_MAX 128		/* the most store-buffer entries a machine file may give */
#define SIM_NAME_MAX 64

/* One cited parameter, kept for `rwlab sim show`. */
struct sim_param {
	char key[48];
	char value[96];
	char cite[1024];	/* the whole comment: a machine file line is at most 1023 bytes */
};

struct sim_machine {
	char name[SIM_NAME_MAX];
	char summary[256];
	char path[512];
	int ncpus;			/* sockets * l3_per_socket * cores_per_l3 * smt (generic: N) */
	int sockets, l3_per_socket, cores_per_l3, smt;
	int cores_per_socket;		/* generic-N: N / sockets (last L3 domain may be partial) */
	int numbering_adjacent;		/* 0: linux, 1: adjacent */
	int hz;
	double ghz;
	double c2c_smt_ns, c2c_l3_ns, c2c_socket_ns, c2c_socket_far_home_ns, c2c_remote_ns;
	double rmw_local_ns, load_local_ns, mem_local_ns, mem_remote_ns;
	double rmw_hold_share;		/* the share of a transfer the owner keeps the line for its own accesses */
	int sb_entries;			/* store-buffer entries of one hardware thread (0: stores wait for their line) */
	double smt_exec_yield;		/* what-if only: a core's work rate with both threads busy over one thread's (0: unset) */
	char c2c_pairs[256];		/* c2c.pairs as written: a matrix relative to the file's directory ("": none) */
	const float *pair_ns;		/* its figures, ncpus x ncpus, [a * ncpus + b] ns, or NULL (rule 9) */
	double bw_core_gbs, bw_socket_gbs;
	double relax_ns;
	int sched_eevdf;		/* 0: CFS (v6.5 and before), 1: EEVDF (v6.6 on) */
	double sched_latency_ns, sched_min_granularity_ns, sched_wakeup_granularity_ns;	/* CFS only */
	double sched_base_slice_ns;	/* EEVDF only */
	int sched_lb_busy_factor;	/* periodic balancing: a busy CPU balances this many times less often */
	double ctxsw_ns, wakeup_ns, futex_wake_ns, futex_wait_ns, syscall_ns, ipi_ns;
	double irq_ns;			/* interrupt entry and exit on the CPU that takes an IPI */
	double fault_ns;		/* page-fault entry and exit (the mm model's fault path) */
	double page_alloc_ns;		/* one 4 KiB page from the page allocator (zeroing apart) */
	double hpage_alloc_ns;		/* one 2 MiB huge page with its struct-page prep (clearing apart) */
	double rand_store_ns;		/* one 8-byte store at a random place of a region beyond the caches */
	int nparams;
	struct sim_param params[128];
};

/* CPU @cpu's place in the topology (computed from the numbering). */
struct sim_cpu_place {
	int socket;
	int l3;		/* global L3-domain index */
	int core;	/* global core index */
	int thread;	/* SMT thread within the core */
};

/*
 * sim_machine_load() - parse @name ("epyc-2vcpu", "generic-64", or a path
 * ending in .machine) from directory @dir. Returns 0 or -1 with @err set.
 */
int sim_machine_load(struct sim_machine *m, const char *dir, const char *name, char *err, size_t errlen);

/*
 * sim_machine_pairs_path() - the path of the per-pair matrix @m names
 * (c2c.pairs, relative to its file's directory) in @buf of @len bytes.
 * Returns 1, 0 when @m names none, -1 when @buf is too small. Any thread.
 */
int sim_machine_pairs_path(const struct sim_machine *m, char *buf, size_t len);

/* Parse the file at @path, then derive generic-N when @generic_n > 0. */
int sim_machine_parse(struct sim_machine *m, const char *path, int generic_n, char *err, size_t errlen);

/*
 * sim_machine_number() - the numeric value of @key as the file gives it (any
 * key, cost.* extras included, e.g. cost.work.reaim.sieve_ns). Returns 0, or
 * -1 when the file has no such key or its value is not a number.
 */
int sim_machine_number(const struct sim_machine *m, const char *key, double *out);

void sim_machine_place(const struct sim_machine *m, int cpu, struct sim_cpu_place *p);

/*
 * sim_machine_logical() - the CPU id of the @i-th CPU in hwloc's logical
 * order (cores in order, SMT siblings adjacent): what --pin compact uses.
 */
int sim_machine_logical(const struct sim_machine *m, int i);

/* Per-CFS-tunable scale factor of the kernel: 1 + ilog2(min(ncpus, 8)). */
int sim_machine_sched_factor(const struct sim_machine *m);
