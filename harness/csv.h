/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tidy CSV results: one row per (cell, iteration, metric), RFC 4180 quoting,
 * the context in every row. Schema (LAB_CSV_SCHEMA 3), in column order:
 *
 *   schema       3
 *   run          run id: start time and pid (YYYYmmddTHHMMSS-pid)
 *   timestamp    ISO 8601 UTC time the cell finished
 *   variant      lock variant label: name, or name:key=val,... (non-default knobs)
 *   workload     workload label: name, or name:key=val,...
 *   threads      worker threads (context_switch: pairs)
 *   iteration    0-based iteration index within the cell
 *   metric       metric name (faults/sec, total_rate, event.rwsem_sleep_reader, ...)
 *   value        number (%.17g)
 *   unit         unit of value (op/s, faults/s, s, count, ...)
 *   better       higher, lower or none (informational)
 *   pin          compact, scatter or none
 *   cpus         online CPUs of the machine
 *   cpu_model    /proc/cpuinfo model name
 *   kernel       uname -s -r
 *   compiler     compiler id and version
 *   build_type   meson buildtype (release, debug, ...)
 *   allocator    jemalloc or system
 *   event_counts 1 if lock event counters were compiled in
 *   git_rev      git describe --always --dirty of the build
 *   host         uname -n
 *   settings     the run's settings, "d=2s warmup=0.5s n=5 seed=1 order=interleaved"
 *                (schema 2 on: settings..isolated, the provenance, context.h)
 *   governor     cpufreq scaling_governor of CPU 0
 *   smt          SMT control (on, off, notsupported, ...)
 *   boost        turbo/boost on or off
 *   thp          transparent hugepages (always, madvise, never)
 *   cmdline      /proc/cmdline
 *   isolated     isolated CPUs, "" for none
 *   shard        I/N of a sharded run (run --shard), else empty (schema 3 on, shard.h)
 *   plan         fingerprint of the whole plan's cells, e.g.
 *                "fp=3f2a9c0e11d04b7a cells=24 blocks=6" (empty for bench and bench-lazy)
 *
 * Rows of one cell are written with a single write(2) and fsync'd, so an
 * interrupted (even SIGKILLed) run keeps every finished cell intact.
 */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "context.h"

#define LAB_CSV_SCHEMA 3	/* 2: the provenance columns settings..isolated; 3: shard, plan */

extern const char *const lab_csv_columns[];	/* NULL-terminated, in schema order */

struct lab_csv_writer {
	int fd;
	char path[4096];
};

/*
 * Open @path for writing results and write the header. An existing non-empty
 * file is first kept as "@path.N" (lab_csv_keep_old): nothing measured
 * earlier is lost. "-" is stdout (the rows stream out as each cell ends).
 * Returns 0 or -1 with a message ("cannot write 'x': Permission denied").
 */
int lab_csv_open(struct lab_csv_writer *w, const char *path, char *err, size_t errlen);
/*
 * Open an existing results file @path to carry on writing (run --resume):
 * cut it to its first @keep bytes (lab_resume_load() says how many are whole
 * cells) and append after them. Returns 0 or -1 with a message.
 */
int lab_csv_open_append(struct lab_csv_writer *w, const char *path, size_t keep, char *err, size_t errlen);
/*
 * lab_csv_keep_old() - if @path exists and is not empty, rename it to the
 * first free "@path.N" (N = 1, 2, ...) and say so on stderr, so that a new
 * run never overwrites results measured earlier. Returns 0, or -1 with a
 * message in @err.
 */
int lab_csv_keep_old(const char *path, char *err, size_t errlen);
/* Append @len bytes of complete rows in one write(2), then fsync. Returns 0 or -errno. */
int lab_csv_append(struct lab_csv_writer *w, const char *buf, size_t len);
void lab_csv_close(struct lab_csv_writer *w);

/* A growable text buffer for a cell's rows. */
struct lab_buf {
	char *p;
	size_t len, cap;
};
void lab_buf_printf(struct lab_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append @s as one CSV field (quoted when it holds a comma, quote or newline). */
void lab_buf_field(struct lab_buf *b, const char *s);
void lab_buf_free(struct lab_buf *b);

/* Row pieces: "schema,run,timestamp,variant,workload,threads,iteration," ... */
void lab_csv_row_prefix(struct lab_buf *b, const char *run_id, const char *variant,
			const char *workload, int threads, int iteration);
/* ... ",pin,cpus,cpu_model,kernel,compiler,build_type,allocator,event_counts,git_rev,host,shard,plan". */
void lab_csv_row_suffix(struct lab_buf *b, const struct lab_context *ctx, const char *pin);
/* A run id: YYYYmmddTHHMMSS-pid (UTC). */
void lab_csv_run_id(char *buf, size_t len);

/* ---- reading -------------------------------------------------------------- */

struct lab_csv_table {
	int ncols, nrows;
	char **header;		/* ncols names */
	char ***rows;		/* nrows x ncols fields */
	size_t *offset;		/* byte offset where each row starts */
	int *line;		/* line number where each row starts (1 = header) */
	size_t parsed_len;	/* bytes up to the end of the last row kept */
	int torn_line;		/* 0, or the line of a torn last record that was left out */
};

/*
 * lab_csv_parse() - parse @len bytes of CSV (RFC 4180: quoted fields, ""
 * escapes, LF or CRLF line ends, blank lines skipped). The first record is
 * the header; every other record must have as many fields as the header.
 * One exception: when the data does not end with a newline and its last
 * record is short or ends inside quotes, that record is the tail of an
 * interrupted write: it is left out, and t->torn_line says where it began.
 * @name labels error messages. Returns 0 or -1 with "NAME:LINE: problem".
 * The table is empty after an error; free it with lab_csv_free() otherwise.
 */
int lab_csv_parse(const char *data, size_t len, const char *name, struct lab_csv_table *t, char *err,
		  size_t errlen);

/* lab_csv_read() - read a whole CSV file ("-": stdin, read once and kept) and lab_csv_parse() it. */
int lab_csv_read(const char *path, struct lab_csv_table *t, char *err, size_t errlen);
/* Column index of @name, or -1. */
int lab_csv_col(const struct lab_csv_table *t, const char *name);
void lab_csv_free(struct lab_csv_table *t);
