/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Matrix files: a named experiment (`rwlab run --matrix NAME`,
 * tools/reproduce NAME). One "key = value" per line; '#' starts a comment;
 * blank lines are ignored. Keys:
 *
 *   description = one line shown by tools/reproduce
 *   locks       = -l list            workloads  = -w list
 *   threads     = -t list; "cpus", "N*cpus" and "cpus/D" are replaced by the
 *                 machine's online CPU count (at least 1), e.g. 1,cpus/2,cpus,2*cpus
 *                 (lab_eval_threads(), threads.h)
 *   iterations  = -n                 duration   = -d         warmup = --warmup
 *   pin         = --pin              seed       = --seed
 *   options     = further `rwlab run` options, split at white space
 *   report      = report format      baseline   = column key  by = column key columns
 *   metrics     = --metric list      significance = ci | ttest | none
 *   reference   = published table CSV, relative to the matrix file
 *   machine     = the published machine, for the comparison header
 *   published_cpus = the published machine's CPUs, for the scale-gap verdict
 *   flat        = percent below which a published change with no published
 *                 spread counts as flat (default 1)
 *   map.column  = PUBLISHED VARIANT -> rwlab column key          (repeatable;
 *                 the first is the baseline)
 *   map.metric  = BENCHMARK | METRIC -> WORKLOAD | METRIC [| sum] (repeatable;
 *                 METRIC "headline" = the workload's first headline metric)
 *   map.threads = CLIENTS -> THREADS, ...   (repeatable; THREADS may use cpus,
 *                 "*" pools every thread count; unmapped clients compare with
 *                 the same thread count)
 *   map.flat    = BENCHMARK | METRIC | CLIENTS -> the thread's words (source)
 *                 (repeatable; CLIENTS "*" for all): the published change is
 *                 noise by its author's account (the published-flat verdict,
 *                 for rows whose table prints no significance)
 *   map.not_comparable = BENCHMARK | METRIC | CLIENTS -> why (repeatable):
 *                 rwlab's figure cannot be compared with that row (e.g. a
 *                 device-bound metric); the row is shown, not counted
 *   min_effect  = the floor of the verdicts' minimum effect, percent (report's
 *                 --min-effect; default 1)
 *   deviation   = how this matrix departs from the published set-up, one
 *                 line each (repeatable; tools/reproduce prints them)
 *
 * Keys read only by tools/reproduce NAME --sim (rwlab checks their syntax
 * and otherwise ignores them):
 *   sim_machine = the simulated machine the table was measured on
 *   sim_KEY     = replaces KEY under --sim, for KEY any key above but
 *                 description (sim_map.* repeatable: they replace every
 *                 map.* line of that key); e.g. sim_locks = null
 *   sim_run     = WORKLOADS | THREADS [| OPTIONS]  (repeatable): one
 *                 rwlab run per line, their CSVs joined in order
 *
 * Any other key, a repeated single key, a line without '=' or a malformed
 * map is an error "FILE:LINE: ...". Names of variants and workloads are
 * checked when the matrix is run (the normal "unknown lock variant" error,
 * prefixed with FILE:LINE), so a matrix may name variants that a given build
 * does not have and still be reported on.
 *
 * A NAME without '/' is looked up as $RWLAB_MATRIX_DIR/NAME.matrix, then in
 * the source tree's tools/matrices/ (LAB_MATRIX_DIR).
 */
#pragma once

#include <stddef.h>

#include "report.h"

#define LAB_MATRIX_KEYS 128

struct lab_matrix {
	char path[4096];
	char name[128];			/* file name without directory and ".matrix" */
	struct {
		char key[32];
		char *value;
		int line;
	} kv[LAB_MATRIX_KEYS];
	int n;
	char *owned[256];		/* strings made by lab_matrix_run_args() */
	int nowned;
};

/* Resolve a matrix NAME or PATH. Returns 0, or -1 with a message naming where it looked. */
int lab_matrix_resolve(const char *name, char *path, size_t len, char *err, size_t errlen);

/* The named matrices ("quick rwsem-rework ..."), space-separated, from the first directory that has some. */
void lab_matrix_names(char *buf, size_t len);
/* Read and check the syntax of a matrix. Returns 0, or -1 with "FILE:LINE: problem". */
int lab_matrix_load(const char *name, struct lab_matrix *m, char *err, size_t errlen);
void lab_matrix_free(struct lab_matrix *m);
/* Value of a single key (NULL if absent); *line gets its line when @line is not NULL. */
const char *lab_matrix_get(const struct lab_matrix *m, const char *key, int *line);

/*
 * lab_matrix_run_args() - the matrix's run keys as `rwlab run` arguments, with
 * thread expressions evaluated for @ncpus. Fills up to @cap entries of @argv
 * (strings owned by @m until lab_matrix_free()) and the matrix line of each
 * in @lines.
 * Returns the count, or -1 with "FILE:LINE: problem".
 */
int lab_matrix_run_args(struct lab_matrix *m, int ncpus, char **argv, int *lines, int cap, char *err,
			size_t errlen);

/*
 * Fill @map from the map.* and machine keys. Returns 0, or -1 with "FILE:LINE: problem" (or "FILE: a
 * reference mapping needs two map.column and at least one map.metric" for a mapping begun and not whole).
 */
int lab_matrix_refmap(const struct lab_matrix *m, struct lab_refmap *map, char *err, size_t errlen);
/*
 * The reference CSV path, resolved against the matrix file's directory (made
 * canonical when the file exists). Returns 0, or -1 if the matrix names none.
 */
int lab_matrix_reference(const struct lab_matrix *m, char *path, size_t len);

