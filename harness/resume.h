/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab run -o FILE --resume`: carry on with a matrix whose CSV an earlier,
 * interrupted run left behind (Ctrl-C, SIGKILL, a crash, a power cut).
 *
 * The runner writes each cell's rows with one write(2) and fsyncs, so such a
 * file holds whole cells, except that the last write may have been cut short
 * (Linux stops a write to a regular file between pages when the process is
 * killed). lab_resume_load() reads the file and decides, per cell
 * (variant label, workload label, threads, in the order the cells were
 * written):
 *
 * - finished: rows for iterations 0..N-1 (N = this run's -n), every
 *   iteration with the same metrics in the same order, each metric once.
 *   The new run skips it.
 * - unfinished, and the last cell in the file: the tail of the interrupted
 *   write. It is cut off (with a torn last line, if any) and run again. A
 *   line is torn by its structure (lab_csv_reader: short of fields, inside
 *   quotes, or no newline and its end-of-row field, better, cut short),
 *   never by a context mismatch; a whole last row that lost only its newline
 *   is kept and lab_csv_open_append() ends it.
 *
 * The caller holds the file's lock (lab_csv_claim()) while it reads and
 * carries it on, so two --resume runs never write one file.
 * - anything else is refused, since it is not what an interrupted rwlab run
 *   leaves: an unfinished cell followed by others, a cell written twice,
 *   iterations outside 0..N-1 (the file was written with another -n).
 *
 * Run-wide settings: the header must be this schema's (an older file, with
 * the context in every row, is refused: start a new one), and every row's pin
 * and context columns (cpus, cpu_model, kernel, compiler, build_type,
 * allocator, event_counts, git_rev, host), its settings (-d, --warmup, -n,
 * --seed, --order) and its shard and plan (--shard I/N and the plan's
 * fingerprint, shard.h) must equal this run's, or the resume is refused
 * (results from two builds, machines, settings, shards or matrices would mix
 * in one file).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "context.h"

struct lab_resume_cell {
	char *variant, *workload;
	int threads;
};

struct lab_resume {
	bool exists;			/* false: no file (or an empty one): start afresh */
	bool missing;			/* no file at all */
	size_t keep_len;		/* bytes of the file to keep */
	int ncells;			/* finished cells */
	struct lab_resume_cell *cells;
	int dropped_rows;		/* rows of an unfinished last cell that are cut off */
	int torn_line;			/* 0, or the line of a torn last record that is cut off */
	bool crlf;			/* its header ends in CRLF (a file saved on Windows): the appended rows will */
};

/*
 * lab_resume_load() - read @path for a resumed run of @iterations iterations
 * per cell, measured in @ctx with pin policy @pin. Returns 0, or -1 with a
 * one-line reason in @err (the file is then left untouched).
 */
int lab_resume_load(struct lab_resume *r, const char *path, int iterations, const struct lab_context *ctx,
		    const char *pin, char *err, size_t errlen);

/* Is the cell already finished in the file (its labels read as run writes them: lab_results_variant_label())? */
bool lab_resume_has(const struct lab_resume *r, const char *variant, const char *workload, int threads);

void lab_resume_free(struct lab_resume *r);
