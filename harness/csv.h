/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tidy CSV results: one row per (cell, iteration, metric), RFC 4180 quoting.
 * Rows of one cell are written with a single write(2) and fsync'd, so an
 * interrupted (even SIGKILLed) run keeps every finished cell intact.
 *
 * The columns, in schema order, are the two X-macro lists below: the header,
 * the row writer, the readers, --resume's and merge's checks, report
 * --format json's context and the column enum all come from them, and
 * tests/unit/csv.c checks the README's schema table against them. Adding a
 * column: one X() line (a context column also needs its struct lab_context
 * field), then LAB_CSV_SCHEMA + 1 and the README's table.
 *
 * The file (schema 4): the header names the LAB_CSV_FILE_ROW columns; the
 * run-level context (every context column but host) is written once per run,
 * before the run's first row, as one record
 *
 *   # context,run=RUN,pin=compact,cpus=2,"cpu_model=...",...,plan=...
 *
 * (RFC 4180 fields NAME=VALUE, in schema order, plan last), and each row
 * carries its run id, which names its context. Readers (lab_csv_reader)
 * give every row all LAB_CSV_NCOLS columns, the context filled in from its
 * run's line, so report, merge and --resume see one logical schema for
 * schema 4 files and for the older ones (1-3: the context in every row),
 * which they read as before.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "context.h"

#define LAB_CSV_SCHEMA 4	/* 2: the provenance columns settings..isolated; 3: shard, plan; 4: the context once per run */

/*
 * The cell, the iteration and the measurement: X(name, doc).
 * lab_csv_row_prefix() writes schema..iteration, lab_csv_row_rest() the
 * rest of the row (metric, value, unit, host, better).
 */
#define LAB_CSV_ROW_COLUMNS(X) \
	X(schema, "LAB_CSV_SCHEMA") \
	X(run, "run id: start time and pid (YYYYmmddTHHMMSS-pid)") \
	X(timestamp, "ISO 8601 UTC time the cell finished") \
	X(variant, "lock variant label: name, or name:key=val,... (non-default knobs)") \
	X(workload, "workload label: name, or name:key=val,...") \
	X(threads, "worker threads (context_switch: pairs)") \
	X(iteration, "0-based iteration index within the cell") \
	X(metric, "metric name (faults/sec, total_rate, event.rwsem_sleep_reader, ...)") \
	X(value, "number (%.17g)") \
	X(unit, "unit of value (op/s, faults/s, s, count, ...)") \
	X(better, "higher, lower or none (informational)")

/* What a context column describes; --resume and merge name the mix a difference would make. */
enum lab_csv_kind {
	LAB_CSV_MACHINE,	/* the machine's hardware and set-up */
	LAB_CSV_BUILD,		/* the rwlab build */
	LAB_CSV_PIN,		/* the pinning policy */
	LAB_CSV_HOST,		/* the host name: merge and report key cells by it */
	LAB_CSV_SETTINGS,	/* the run settings (merge compares their tokens) */
	LAB_CSV_PLAN,		/* the shard and the plan (merge checks them itself) */
};

/* Who reads a context column (a bit set). */
#define LAB_CSV_RESUME 1u	/* run --resume refuses a file whose rows differ from this run here */
#define LAB_CSV_MERGE 2u	/* merge warns where the shards differ (the machine, build and pin kinds) */
#define LAB_CSV_JSON 4u		/* report --format json's "context" object */

/*
 * The context: X(name, kind, readers, type, value, doc), written by
 * lab_csv_row_suffix() in this order. @value is an expression over `ctx`
 * (const struct lab_context *) and `pin` (the pinning policy's name) of
 * @type STR (a string) or INT (an integer).
 * (schema 2 on: settings..isolated, the provenance, context.h; schema 3 on: shard and plan, shard.h)
 */
#define LAB_CSV_CONTEXT_COLUMNS(X) \
	X(pin, LAB_CSV_PIN, LAB_CSV_RESUME | LAB_CSV_MERGE | LAB_CSV_JSON, STR, pin, \
	  "compact, scatter or none") \
	X(cpus, LAB_CSV_MACHINE, LAB_CSV_RESUME | LAB_CSV_MERGE | LAB_CSV_JSON, INT, ctx->cpus, \
	  "online CPUs of the machine") \
	X(cpu_model, LAB_CSV_MACHINE, LAB_CSV_RESUME | LAB_CSV_MERGE | LAB_CSV_JSON, STR, ctx->cpu_model, \
	  "/proc/cpuinfo model name") \
	X(kernel, LAB_CSV_MACHINE, LAB_CSV_RESUME | LAB_CSV_MERGE | LAB_CSV_JSON, STR, ctx->kernel, \
	  "uname -s -r") \
	X(compiler, LAB_CSV_BUILD, LAB_CSV_RESUME | LAB_CSV_MERGE | LAB_CSV_JSON, STR, ctx->compiler, \
	  "compiler id and version") \
	X(build_type, LAB_CSV_BUILD, LAB_CSV_RESUME | LAB_CSV_MERGE | LAB_CSV_JSON, STR, ctx->build_type, \
	  "meson buildtype (release, debug, ...)") \
	X(allocator, LAB_CSV_BUILD, LAB_CSV_RESUME | LAB_CSV_MERGE | LAB_CSV_JSON, STR, ctx->allocator, \
	  "jemalloc or system") \
	X(event_counts, LAB_CSV_BUILD, LAB_CSV_RESUME | LAB_CSV_MERGE, INT, ctx->event_counts, \
	  "1 if lock event counters were compiled in") \
	X(git_rev, LAB_CSV_BUILD, LAB_CSV_RESUME | LAB_CSV_MERGE | LAB_CSV_JSON, STR, ctx->git_rev, \
	  "git describe --always --dirty of the build") \
	X(host, LAB_CSV_HOST, LAB_CSV_RESUME | LAB_CSV_JSON, STR, ctx->host, \
	  "uname -n") \
	X(settings, LAB_CSV_SETTINGS, LAB_CSV_RESUME, STR, ctx->settings, \
	  "the run's settings, \"d=2s warmup=0.5s n=5 seed=1 order=interleaved\" (exec: \"baseline=none\")") \
	X(governor, LAB_CSV_MACHINE, LAB_CSV_MERGE, STR, ctx->governor, \
	  "cpufreq scaling_governor of CPU 0") \
	X(smt, LAB_CSV_MACHINE, LAB_CSV_MERGE, STR, ctx->smt, \
	  "SMT control (on, off, notsupported, ...)") \
	X(boost, LAB_CSV_MACHINE, LAB_CSV_MERGE, STR, ctx->boost, \
	  "turbo/boost on or off") \
	X(thp, LAB_CSV_MACHINE, LAB_CSV_MERGE, STR, ctx->thp, \
	  "transparent hugepages (always, madvise, never)") \
	X(cmdline, LAB_CSV_MACHINE, 0, STR, ctx->cmdline, \
	  "/proc/cmdline") \
	X(isolated, LAB_CSV_MACHINE, LAB_CSV_MERGE, STR, ctx->isolated, \
	  "isolated CPUs, \"\" for none") \
	X(shard, LAB_CSV_PLAN, LAB_CSV_RESUME, STR, ctx->shard, \
	  "I/N of a sharded run (run --shard), else empty") \
	X(plan, LAB_CSV_PLAN, LAB_CSV_RESUME, STR, ctx->plan, \
	  "fingerprint of the whole plan's cells, \"fp=3f2a9c0e11d04b7a cells=24 blocks=6\" (empty for bench)")

/* Column indexes in schema order: LAB_CSV_COL_variant, ...; LAB_CSV_NCOLS columns. */
enum lab_csv_col {
#define LAB_CSV_ROW_ENUM(name, doc) LAB_CSV_COL_##name,
#define LAB_CSV_CTX_ENUM(name, kind, readers, type, value, doc) LAB_CSV_COL_##name,
	LAB_CSV_ROW_COLUMNS(LAB_CSV_ROW_ENUM)
	LAB_CSV_CONTEXT_COLUMNS(LAB_CSV_CTX_ENUM)
#undef LAB_CSV_ROW_ENUM
#undef LAB_CSV_CTX_ENUM
	LAB_CSV_NCOLS
};
#define LAB_CSV_FIRST_CONTEXT LAB_CSV_COL_pin

/*
 * LAB_CSV_NAME(cpus) is "cpus", and does not compile for a name that is not
 * a column: the readers that look columns up by name use it.
 */
#define LAB_CSV_NAME(name) ((void)LAB_CSV_COL_##name, #name)

/*
 * Schema 4's row, in file order: the row columns, with host (the one context
 * column that is tidy per-row data) before better, which ends the row: a
 * last row without its line end is whole only if better is (higher, lower or
 * none), so a torn row is recognised by its structure. Every other context
 * column is in the run's "# context" line.
 */
#define LAB_CSV_FILE_ROW(X) \
	X(schema) X(run) X(timestamp) X(variant) X(workload) X(threads) X(iteration) X(metric) X(value) X(unit) \
	X(host) X(better)
extern const enum lab_csv_col lab_csv_file_row[];	/* LAB_CSV_FILE_ROW's columns, in file order */
extern const int lab_csv_file_ncols;			/* how many */
/* Is context column @col in the "# context" line (true) or in every row (host)? */
bool lab_csv_in_context_line(enum lab_csv_col col);
#define LAB_CSV_CONTEXT_TAG "# context"	/* the first field of a context line */

struct lab_csv_column {
	const char *name;
	enum lab_csv_kind kind;		/* context columns only */
	unsigned readers;		/* LAB_CSV_RESUME | LAB_CSV_MERGE | LAB_CSV_JSON; context columns only */
	const char *doc;
};
extern const struct lab_csv_column lab_csv_schema[LAB_CSV_NCOLS];	/* in schema order */
extern const char *const lab_csv_columns[];	/* the names, NULL-terminated, in schema order */

/*
 * lab_csv_context_value() - the text context column @col (LAB_CSV_FIRST_CONTEXT
 * ..LAB_CSV_NCOLS-1) holds for @ctx and @pin, unquoted, into @buf. Returns
 * @buf ("" for a column that is not a context column). Threading: pure.
 */
const char *lab_csv_context_value(enum lab_csv_col col, const struct lab_context *ctx, const char *pin, char *buf,
				  size_t len);

/* "pinning policies", "builds or machines", ...: what rows that differ in a column of @kind would mix. */
const char *lab_csv_kind_mix(enum lab_csv_kind kind);

struct lab_csv_writer {
	int fd;
	char path[4096];
	char *pending;			/* the run's context line, written with the first rows */
	size_t npending;
	bool stream;			/* stdout, a device or a FIFO: written in order, never cut back or locked */
	bool crlf;			/* the file's lines end in CRLF (--resume of such a file): so do the rows appended */
	bool later;			/* lab_csv_open_later(): the file is made at lab_csv_open_now() */
	bool made;			/* ... where none was: made empty to claim it, removed if closed so */
	const volatile sig_atomic_t *stop;	/* set by the caller: a stream's write stalled on a full pipe gives up */
	const char *prog;		/* set by the caller: its lines begin "@prog: " ("rwlab run"); NULL: "rwlab" */
};

/*
 * lab_csv_stream_path() - does -o @path name a device or FIFO (/dev/null, a
 * named pipe)? Such a path is written as a stream (write-only, never locked,
 * truncated or cut back, no table read back from it, no --resume). False for
 * a file, a directory or a path that does not exist.
 */
bool lab_csv_stream_path(const char *path);

/*
 * Every writer of a results file holds an exclusive advisory lock on it
 * (flock(2)) until lab_csv_close() or its exit, so a second rwlab writing the
 * same file is refused with one line before it measures anything ("'x.csv' is
 * being written by another rwlab run (it holds the file's lock): ..."), and a
 * file a run is writing is never moved aside under it.
 *
 * lab_csv_claim() - open the existing file @path and take its lock, before
 * reading it to resume (w->fd is -1 when there is no such file). Returns 0
 * or -1 with a message.
 */
int lab_csv_claim(struct lab_csv_writer *w, const char *path, char *err, size_t errlen);
/*
 * Open @path for writing results, locked, and write the header. An existing
 * non-empty file is first kept as "@path.N" (lab_csv_keep_old), unless a
 * running rwlab holds it: nothing measured earlier is lost or moved under
 * its writer. "-" is stdout (the rows stream out as each cell ends; no
 * lock). Returns 0 or -1 with a message ("cannot write 'x': Permission
 * denied"); -EPIPE when the header found a stream's reader gone; -EINTR
 * when a stream was full and w->stop (set before the call) turned true
 * while the header waited for room.
 */
int lab_csv_open(struct lab_csv_writer *w, const char *path, char *err, size_t errlen);
/*
 * lab_csv_open_later() - lab_csv_open() put off until there are rows, for a
 * command whose first rows come after a long measurement (exec, run): what
 * it would refuse is refused now, in its words (@path is claimed, so
 * another rwlab writing it is; one to keep needs a free @path.N and a
 * directory that takes it), but nothing is written or moved, so a run
 * stopped before it measured anything leaves @path as it was; w->later says
 * so until lab_csv_open_now(). Where there was no file, the claim makes it,
 * empty (w->made), and lab_csv_close() before lab_csv_open_now() removes it
 * again. "-", a device or a FIFO is opened now, its header written. Returns
 * as lab_csv_open().
 * lab_csv_open_now() - make the file (lab_csv_open(): an old one kept as
 * @path.N), keeping the context line lab_csv_set_context() gave; nothing
 * when it is open already. Returns as lab_csv_open().
 */
int lab_csv_open_later(struct lab_csv_writer *w, const char *path, char *err, size_t errlen);
int lab_csv_open_now(struct lab_csv_writer *w, char *err, size_t errlen);
/*
 * Carry on writing the existing results file @path (run --resume), claimed
 * with lab_csv_claim() (or claimed here): cut it to its first @keep bytes
 * (lab_resume_load() says how many are whole rows of finished cells), end a
 * last row that lost only its newline with one, and append after them; with
 * w->crlf set before the call (lab_resume's crlf), that line end and every
 * row lab_csv_append() writes end in CRLF, as the file's lines do.
 * Returns 0 or -1 with a message.
 */
int lab_csv_open_append(struct lab_csv_writer *w, const char *path, size_t keep, char *err, size_t errlen);
/*
 * lab_csv_set_context() - the run this writer's rows belong to: its context
 * line (lab_csv_context_line()) goes into the file with the first rows
 * lab_csv_append() writes, in the same write (a run that writes no row adds
 * nothing). Call once, after lab_csv_open() or lab_csv_open_append().
 */
void lab_csv_set_context(struct lab_csv_writer *w, const char *run_id, const struct lab_context *ctx, const char *pin);
/*
 * lab_csv_keep_old() - if @path exists and is not empty, rename it to the
 * first free "@path.N" (N = 1, 2, ...) and say so on stderr in a line that
 * begins "@prog: ", so that a new run never overwrites results measured
 * earlier. Returns 0, or -1 with a message in @err.
 */
int lab_csv_keep_old(const char *prog, const char *path, char *err, size_t errlen);
/*
 * Append @len bytes of complete rows in one write(2) (the run's context line
 * before them if it is not written yet), then fsync. All or nothing: on any
 * error (ENOSPC after a partial write, EFBIG, EIO, a failed fsync) the file
 * is cut back to where it ended before, so it still holds whole rows only
 * and later cells append after them. Returns 0 or -errno.
 */
int lab_csv_append(struct lab_csv_writer *w, const char *buf, size_t len);
/*
 * lab_csv_append_why() - lab_csv_append()'s -errno @ret in words for an error
 * line: -EPIPE, the reader of -o's FIFO or pipe went away, says so; others
 * are strerror(). A static string; any thread (strerror's own rules).
 */
const char *lab_csv_append_why(int ret);
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

/* The header line: the LAB_CSV_FILE_ROW column names, comma-separated, with its newline. */
void lab_csv_header(struct lab_buf *b);
/*
 * The context line of run @run_id: "# context,run=RUN,pin=PIN,cpus=N,...,plan=...\n",
 * every context column but host (lab_csv_in_context_line()) from @ctx and @pin, in schema order.
 */
void lab_csv_context_line(struct lab_buf *b, const char *run_id, const struct lab_context *ctx, const char *pin);
/* The same from @v[col], the value of each context column (NULL: empty); threading: pure. */
void lab_csv_context_line_of(struct lab_buf *b, const char *run_id, const char *const *v);
/* Row pieces: "schema,run,timestamp,variant,workload,threads,iteration," ... */
void lab_csv_row_prefix(struct lab_buf *b, const char *run_id, const char *variant,
			const char *workload, int threads, int iteration);
/* ... "metric,value,unit,host,better\n": the rest of the row (@value as %.17g, @host ctx->host). */
void lab_csv_row_rest(struct lab_buf *b, const char *metric, double value, const char *unit, const char *host,
		      const char *better);
/* A run id: YYYYmmddTHHMMSS-pid (UTC). */
void lab_csv_run_id(char *buf, size_t len);

/* ---- reading (csv_read.c) ----------------------------------------------------- */

/*
 * lab_csv_reader - a CSV file read one record at a time, in memory bounded by
 * its longest record (and, for results files, its runs' contexts).
 *
 * RFC 4180: quoted fields, "" escapes, LF or CRLF line ends, blank lines
 * skipped (before the header too). The first record is the header; every other record must have as
 * many fields as the header. One exception: when the data does not end with
 * a newline and its last record is short or ends inside quotes, that record
 * is the tail of an interrupted write: it is left out, and torn_line says
 * where it began. A results file's last row without its line end is also
 * torn when its end-of-row field is not whole (schema 4: better; schema 3:
 * plan, "fp=HEX cells=N blocks=N" or empty); a whole row that lost only its
 * newline stays (unterminated).
 *
 * Results files of schema 4 (the header is LAB_CSV_FILE_ROW's) read as every
 * LAB_CSV_NCOLS column (header = lab_csv_columns), the context from the
 * row's run's "# context" line: a row of a run with no such line before it,
 * or two context lines of one run that differ, are errors; other lines that
 * start with '#' are comments, and a repeated header line (files joined with
 * cat) is skipped. Other files read as their header says.
 *
 * Threading: one reader per thread. Errors are "NAME:LINE: problem".
 */
struct lab_csv_reader {
	const char *name;		/* for messages ("stdin" for -) */
	int fd;				/* -1: reading memory */
	bool own_fd;
	bool shared;			/* fd is the copy of stdin, a FIFO or a device: read with pread, kept open */
	char *buf;			/* the data not yet parsed: buf[lo..hi) */
	size_t cap, lo, hi;
	size_t base;			/* byte offset of buf[0] in the input */
	bool eof, ends_nl;		/* no more input; its last byte is a newline */
	int nline;			/* the line the next record starts on, minus 1 */
	char *fbuf;			/* the current record's fields, unescaped */
	size_t fbcap;
	char **f;			/* its fields */
	size_t *fofs;			/* where each field starts in fbuf */
	int nf, fcap;
	/* the header and the logical row */
	int file_ncols;			/* fields per record in the file */
	char **file_header;
	bool context;			/* a schema 4 file: contexts from "# context" lines */
	int ncols;			/* the logical columns: LAB_CSV_NCOLS in a schema 4 file */
	char **header;
	int *phys;			/* [logical column] = its field in the record, or -1 (context line) */
	const char **row;		/* the current row, ncols fields */
	int ctx;			/* its context: an index for lab_csv_reader_ctx() */
	int line;			/* the line it starts on (1 = header) */
	size_t offset;			/* the byte offset where it starts */
	size_t parsed_len;		/* bytes up to the end of the last row kept */
	int torn_line;			/* 0, or the line of a torn last record that was left out */
	bool unterminated;		/* the last row kept ends the data without a line end */
	int run_col, host_col, plan_col, better_col;	/* logical columns, or -1 */
	struct lab_csv_runs *runs;	/* the contexts (csv_read.c) */
};

/*
 * lab_csv_reader_open() - open @path ("-": stdin) and read its header. An
 * input that can be read only once (stdin, a FIFO, a device) is copied
 * whole into an unlinked temporary file in $TMPDIR (else /tmp) on its first
 * open, which this and every later open of it read, so a caller may read
 * any input more than once (report reads its inputs up to four times).
 * Where no such file can be made or written, the copy is kept in memory,
 * said in one note on stderr ("PROG: note: cannot copy stdin into /tmp
 * (...)"); an input with a NUL byte in its first 64 KiB, or no line end
 * there, is no CSV: its copy stops there and every open fails ("x: binary
 * data ...", "x: no CSV header in its first 64 KiB ..."), so an endless
 * device is never copied to its end.
 * lab_csv_reader_mem() - the same over @len bytes at @data, labelled @name.
 * Both return 0, or -1 with a message ("cannot read 'x': ...", "x: empty
 * file (expected a CSV header)", "x: no header line: the file holds only
 * blank lines (...)", "x:1: ..."); close the reader either way.
 */
int lab_csv_reader_open(struct lab_csv_reader *rd, const char *path, char *err, size_t errlen);
/*
 * lab_csv_reader_open_results() - lab_csv_reader_open() for a results CSV:
 * it also returns LAB_CSV_NOT_RESULTS, with "x: no column 'variant'
 * (columns: a, b): not an rwlab results CSV (...)" in @err, when the header
 * lacks a column every results CSV has (variant, workload, threads, metric,
 * value, unit, better), with "x: no CSV header in its first 64 KiB ..."
 * when the header does not end there (a file is read no further than a
 * stream), and with lab_csv_reader_open()'s message for an empty input or
 * one of blank lines only: each is bad input, not a file that failed. An input read once whose first open this is is
 * copied no further than that header: `yes | rwlab report -` is refused at
 * once.
 */
#define LAB_CSV_NOT_RESULTS (-2)
int lab_csv_reader_open_results(struct lab_csv_reader *rd, const char *path, char *err, size_t errlen);
int lab_csv_reader_mem(struct lab_csv_reader *rd, const char *data, size_t len, const char *name, char *err,
		       size_t errlen);
/*
 * lab_csv_first_line() - up to @len - 1 bytes of @path's first line, read as
 * lab_csv_reader_open() reads it, into @buf, without its line end. Returns
 * @buf, "" when the input cannot be read.
 */
const char *lab_csv_first_line(const char *path, char *buf, size_t len);
/*
 * lab_csv_reader_next() - the next row into rd->row (valid until the next
 * call). Returns 1, 0 at the end (torn_line, parsed_len and unterminated
 * are then final), or -1 with a message.
 */
int lab_csv_reader_next(struct lab_csv_reader *rd, char *err, size_t errlen);
/* Logical column of @name, or -1. */
int lab_csv_reader_col(const struct lab_csv_reader *rd, const char *name);
/*
 * The contexts: every distinct combination of the run and the context
 * columns (pin..plan, host included) the rows have had, numbered from 0 in order of first use
 * (rd->ctx). lab_csv_reader_ctx() gives context @id's value of logical
 * column @col ("" for a row column or one the file lacks); valid until
 * lab_csv_reader_close(). lab_csv_reader_nctx() says how many there are.
 */
const char *lab_csv_reader_ctx(const struct lab_csv_reader *rd, int id, int col);
int lab_csv_reader_nctx(const struct lab_csv_reader *rd);
void lab_csv_reader_close(struct lab_csv_reader *rd);

/* A whole CSV in memory: the reader's rows, kept. */
struct lab_csv_table {
	int ncols, nrows;
	char **header;		/* ncols names */
	char ***rows;		/* nrows x ncols fields */
	size_t *offset;		/* byte offset where each row starts */
	int *line;		/* line number where each row starts (1 = header) */
	size_t parsed_len;	/* bytes up to the end of the last row kept */
	int torn_line;		/* 0, or the line of a torn last record that was left out */
	bool unterminated;	/* the last row kept ends the data without a line end */
	bool context;		/* a schema 4 file (its context lines read into every row) */
	bool *shared;		/* [column]: its fields are the context's, not the row's (freed once) */
	struct lab_csv_runs *runs;	/* owns those */
};

/*
 * lab_csv_parse() - @len bytes of CSV as a table (lab_csv_reader's rules).
 * @name labels error messages. Returns 0 or -1 with "NAME:LINE: problem".
 * The table is empty after an error; free it with lab_csv_free() otherwise.
 */
int lab_csv_parse(const char *data, size_t len, const char *name, struct lab_csv_table *t, char *err,
		  size_t errlen);
/* lab_csv_read() - the same for a file ("-": stdin). */
int lab_csv_read(const char *path, struct lab_csv_table *t, char *err, size_t errlen);
/* Column index of @name, or -1. */
int lab_csv_col(const struct lab_csv_table *t, const char *name);
void lab_csv_free(struct lab_csv_table *t);
