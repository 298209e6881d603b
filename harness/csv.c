/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"

const struct lab_csv_column lab_csv_schema[LAB_CSV_NCOLS] = {
#define ROW_COLUMN(n, d) [LAB_CSV_COL_##n] = { .name = #n, .doc = d },
#define CONTEXT_COLUMN(n, k, r, t, v, d) [LAB_CSV_COL_##n] = { .name = #n, .kind = k, .readers = r, .doc = d },
	LAB_CSV_ROW_COLUMNS(ROW_COLUMN)
	LAB_CSV_CONTEXT_COLUMNS(CONTEXT_COLUMN)
#undef ROW_COLUMN
#undef CONTEXT_COLUMN
};

const char *const lab_csv_columns[] = {
#define COLUMN_NAME(n, ...) #n,
	LAB_CSV_ROW_COLUMNS(COLUMN_NAME)
	LAB_CSV_CONTEXT_COLUMNS(COLUMN_NAME)
#undef COLUMN_NAME
	NULL
};

const enum lab_csv_col lab_csv_file_row[] = {
#define FILE_COLUMN(n) LAB_CSV_COL_##n,
	LAB_CSV_FILE_ROW(FILE_COLUMN)
#undef FILE_COLUMN
};
const int lab_csv_file_ncols = (int)(sizeof(lab_csv_file_row) / sizeof(lab_csv_file_row[0]));

bool lab_csv_in_context_line(enum lab_csv_col col)
{
	if (col < LAB_CSV_FIRST_CONTEXT || col >= LAB_CSV_NCOLS)
		return false;
	for (int i = 0; i < lab_csv_file_ncols; i++)
		if (lab_csv_file_row[i] == col)
			return false;
	return true;
}

#define CSV_STR(buf, len, v) snprintf(buf, len, "%s", (const char *)(v))
#define CSV_INT(buf, len, v) snprintf(buf, len, "%lld", (long long)(v))

const char *lab_csv_context_value(enum lab_csv_col col, const struct lab_context *ctx, const char *pin, char *buf,
				  size_t len)
{
	switch (col) {
#define CONTEXT_VALUE(n, k, r, type, value, d) \
	case LAB_CSV_COL_##n:                  \
		CSV_##type(buf, len, value);   \
		return buf;
		LAB_CSV_CONTEXT_COLUMNS(CONTEXT_VALUE)
#undef CONTEXT_VALUE
	default:
		snprintf(buf, len, "%s", "");
		return buf;
	}
}

const char *lab_csv_kind_mix(enum lab_csv_kind kind)
{
	switch (kind) {
	case LAB_CSV_PIN:
		return "pinning policies";
	case LAB_CSV_SETTINGS:
		return "run settings";
	case LAB_CSV_PLAN:
		return "shards or plans";
	default:
		return "builds or machines";
	}
}

/* Take the writer's lock on @fd, or say who holds it. Returns 0 or -1 (the message in @err). */
static int lock_fd(int fd, const char *path, char *err, size_t errlen)
{
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno == EWOULDBLOCK)
		snprintf(err, errlen, "'%s' is being written by another rwlab run (it holds the file's lock): let it "
			 "finish, or give another -o", path);
	else
		snprintf(err, errlen, "cannot lock '%s': %s", path, strerror(errno));
	return -1;
}

int lab_csv_claim(struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->pending = NULL;
	w->npending = 0;
	w->stream = false;
	w->fd = open(path, O_RDWR | O_CLOEXEC);
	if (w->fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot open '%s': %s%s", path, strerror(errno),
			 errno == EISDIR ? " (give a file name)" : "");
		return -1;
	}
	if (lock_fd(w->fd, path, err, errlen)) {
		close(w->fd);
		w->fd = -1;
		return -1;
	}
	return 0;
}

/*
 * -o naming a device or FIFO (/dev/null, a named pipe): opened for writing
 * only, so that a FIFO's reader going away is this writer's EPIPE
 * (stream_write()) and not a pipe it fills itself; one with no reader is
 * refused at once.
 */
static int open_stream(struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->fd < 0) {
		snprintf(err, errlen, "cannot write results to '%s': %s", path,
			 errno == ENXIO ? "a FIFO with no reader (start its reader first)" : strerror(errno));
		return -1;
	}
	w->stream = true;	/* left non-blocking: stream_write() waits in poll(), where a stop is seen */
	return 0;
}

/*
 * write() with SIGPIPE held off for this thread: a reader that went away is
 * EPIPE, which the caller says in words, and not the signal's default
 * action, a silent exit 141. The SIGPIPE the write raised is taken back
 * before the mask is restored (unless one was pending already).
 */
static ssize_t write_no_sigpipe(int fd, const char *buf, size_t len)
{
	static const struct timespec now = { 0, 0 };
	sigset_t sigpipe, old, pending;
	ssize_t n;
	int err;

	sigemptyset(&sigpipe);
	sigaddset(&sigpipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigpipe, &old);
	sigpending(&pending);
	n = write(fd, buf, len);
	err = errno;
	if (n < 0 && err == EPIPE && !sigismember(&pending, SIGPIPE))
		sigtimedwait(&sigpipe, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return n;
}

/*
 * One write to a stream; a full pipe (a reader that stalls) is waited for
 * in ppoll() steps of 250 ms, and given up (-EINTR) once the caller's stop
 * flag is set: a signal may be taken by another thread, so the write itself
 * is never interrupted for it. The wait takes SIGINT and SIGTERM even where
 * the caller blocks them (lab_sim_cells_run() does, outside its own
 * ppoll()). stdout may be blocking (its file description is the shell's,
 * left as it is): there a write waits for ppoll()'s room and takes at most
 * PIPE_BUF bytes, which a pipe with room takes without blocking.
 */
static ssize_t stream_write(struct lab_csv_writer *w, const char *buf, size_t len)
{
	static const struct timespec step = { 0, 250000000 };
	int fl = fcntl(w->fd, F_GETFL);
	bool blocking = fl >= 0 && !(fl & O_NONBLOCK);
	sigset_t waiting;

	/* SIGINT and SIGTERM reach their handler while it waits (--sim's loop blocks them elsewhere) */
	pthread_sigmask(SIG_BLOCK, NULL, &waiting);
	sigdelset(&waiting, SIGINT);
	sigdelset(&waiting, SIGTERM);
	for (;;) {
		struct pollfd p = { .fd = w->fd, .events = POLLOUT };
		ssize_t n = -1;

		errno = EAGAIN;
		if (!blocking || ppoll(&p, 1, &step, &waiting) > 0)
			n = write_no_sigpipe(w->fd, buf, blocking && len > PIPE_BUF ? PIPE_BUF : len);
		if (n >= 0 || (errno != EAGAIN && errno != EINTR))
			return n;
		if (w->stop && *w->stop) {
			errno = EINTR;
			return -1;
		}
		if (!blocking)
			ppoll(&p, 1, &step, &waiting);
	}
}

bool lab_csv_stream_path(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* The first free name @path.N (N from 1) that an existing @path is kept as, in @old; -1 when all are taken (said). */
static int old_name(const char *path, char *old, size_t len, char *err, size_t errlen)
{
	for (int n = 1; n < 10000; n++) {
		snprintf(old, len, "%s.%d", path, n);
		if (access(old, F_OK))
			return 0;
	}
	snprintf(err, errlen, "'%s' exists and %s.1 .. %s.9999 are taken: remove some", path, path, path);
	return -1;
}

/* A new results file at @path (an existing one kept as @path.N, never under a running writer), locked. */
static int open_new(struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	if (lab_csv_stream_path(path))
		return open_stream(w, path, err, errlen);
	if (lab_csv_claim(w, path, err, errlen))
		return -1;	/* a running writer's file is neither moved nor written */
	if (w->fd >= 0 && lab_csv_keep_old(w->prog ? w->prog : "rwlab", path, err, errlen)) {
		lab_csv_close(w);
		return -1;
	}
	lab_csv_close(w);	/* the old file, now PATH.N (or empty): its lock goes with it */
	w->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		snprintf(err, errlen, "cannot write results to '%s': %s", path, strerror(errno));
		return -1;
	}
	if (lock_fd(w->fd, path, err, errlen)) {
		lab_csv_close(w);
		return -1;
	}
	if (ftruncate(w->fd, 0)) {
		snprintf(err, errlen, "cannot write results to '%s': %s", path, strerror(errno));
		lab_csv_close(w);
		return -1;
	}
	return 0;
}

/* The header line, the first write to the file open at w->fd. Returns as lab_csv_open(). */
static int write_header(struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	struct lab_buf b = { 0 };
	int r;

	lab_csv_header(&b);
	r = lab_csv_append(w, b.p, b.len);
	lab_buf_free(&b);
	if (r) {
		snprintf(err, errlen, "cannot write results to '%s': %s", path, strerror(-r));
		close(w->fd);
		w->fd = -1;
		return r == -EPIPE || r == -EINTR ? r : -1;
	}
	return 0;
}

int lab_csv_open(struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	bool out = !strcmp(path, "-");	/* stdout: the rows stream out as each cell finishes */

	err[0] = 0;
	w->pending = NULL;
	w->npending = 0;
	w->later = false;
	w->stream = out;
	w->crlf = false;	/* a new file's lines end in LF; only --resume of a CRLF file sets it, after its claim */
	if (out) {
		snprintf(w->path, sizeof(w->path), "stdout");
		w->fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
		if (w->fd < 0) {
			snprintf(err, errlen, "cannot write results to stdout: %s", strerror(errno));
			return -1;
		}
	} else if (open_new(w, path, err, errlen)) {
		return -1;
	}
	return write_header(w, path, err, errlen);
}

/*
 * No file at @path (lab_csv_claim() found none): make it, empty, and take
 * its lock, so that another rwlab writing @path is refused now, as the
 * writer of an existing file is; w->made then (lab_csv_close() removes it
 * until lab_csv_open_now()). A file made meanwhile, or a symlink to no file
 * (made at lab_csv_open_now()), is claimed as lab_csv_claim() claims it.
 */
static int claim_new(struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	w->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (w->fd < 0 && errno == EEXIST)
		return lab_csv_claim(w, path, err, errlen);
	if (w->fd < 0) {
		snprintf(err, errlen, "cannot write results to '%s': %s", path, strerror(errno));
		return -1;
	}
	if (lock_fd(w->fd, path, err, errlen)) {	/* another rwlab opened it first: it is that one's */
		close(w->fd);
		w->fd = -1;
		return -1;
	}
	w->made = true;
	return 0;
}

/*
 * What open_new() would refuse on the claimed @path, refused now in its
 * words, nothing moved or made: an old file it cannot keep as @path.N
 * (every name taken, a directory that cannot take the new name), or no
 * file and a directory that cannot take one (an empty file is made anew
 * in place: nothing to refuse).
 */
static int check_new(const struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[4200], old[4200];
	struct stat st;
	bool keep = w->fd >= 0 && !fstat(w->fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0;

	if (w->fd >= 0 && !keep)
		return 0;
	if (keep && old_name(path, old, sizeof(old), err, errlen))
		return -1;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	if (!access(dir, W_OK | X_OK))
		return 0;
	if (keep)
		snprintf(err, errlen, "cannot keep the existing '%s' as '%s': %s", path, old, strerror(errno));
	else
		snprintf(err, errlen, "cannot write results to '%s': %s", path, strerror(errno));
	return -1;
}

int lab_csv_open_later(struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	w->later = false;
	if (!strcmp(path, "-") || lab_csv_stream_path(path))
		return lab_csv_open(w, path, err, errlen);
	err[0] = 0;
	w->crlf = false;
	w->made = false;
	if (lab_csv_claim(w, path, err, errlen) || (w->fd < 0 && claim_new(w, path, err, errlen)))
		return -1;
	if (check_new(w, path, err, errlen)) {
		lab_csv_close(w);
		return -1;
	}
	w->later = true;
	return 0;
}

int lab_csv_open_now(struct lab_csv_writer *w, char *err, size_t errlen)
{
	char path[sizeof(w->path)], *pending = w->pending;
	size_t npending = w->npending;
	int r;

	if (!w->later)
		return 0;
	snprintf(path, sizeof(path), "%s", w->path);
	w->pending = NULL;
	if (w->made) {	/* made empty and locked by lab_csv_open_later(): its header is all it lacks */
		w->later = w->made = false;
		r = write_header(w, path, err, errlen);
	} else {
		lab_csv_close(w);	/* the claim: lab_csv_open() claims the file again to keep it as PATH.N */
		r = lab_csv_open(w, path, err, errlen);
	}
	w->pending = pending;
	w->npending = npending;
	return r;
}

int lab_csv_open_append(struct lab_csv_writer *w, const char *path, size_t keep, char *err, size_t errlen)
{
	const char *eol = "";
	char last = '\n';

	if (w->fd < 0 && lab_csv_claim(w, path, err, errlen))
		return -1;
	if (w->fd < 0) {
		snprintf(err, errlen, "cannot append results to '%s': %s", path, strerror(ENOENT));
		return -1;
	}
	/*
	 * Keep the whole rows; a last row that lost only its line end (the
	 * write stopped just before it, or between a CRLF's two bytes) gets it
	 * back, so the next row does not join it.
	 */
	if (ftruncate(w->fd, (off_t)keep) || lseek(w->fd, 0, SEEK_END) < 0 ||
	    (keep && pread(w->fd, &last, 1, (off_t)keep - 1) != 1))
		goto fail;
	if (last != '\n')
		eol = w->crlf && last != '\r' ? "\r\n" : "\n";
	if (write(w->fd, eol, strlen(eol)) != (ssize_t)strlen(eol) || (fsync(w->fd) && errno != EINVAL && errno != EROFS))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot append results to '%s': %s", path, strerror(errno));
	lab_csv_close(w);
	return -1;
}

int lab_csv_keep_old(const char *prog, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char old[4200];

	if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	if (old_name(path, old, sizeof(old), err, errlen))
		return -1;
	if (rename(path, old)) {
		snprintf(err, errlen, "cannot keep the existing '%s' as '%s': %s", path, old, strerror(errno));
		return -1;
	}
	fprintf(stderr, "%s: WARNING: %s existed: kept it as %s\n", prog, path, old);	/* -q keeps it */
	return 0;
}

void lab_csv_set_context(struct lab_csv_writer *w, const char *run_id, const struct lab_context *ctx, const char *pin)
{
	struct lab_buf b = { 0 };

	lab_csv_context_line(&b, run_id, ctx, pin);
	free(w->pending);
	w->pending = b.p;
	w->npending = b.len;
}

/* Write @len bytes at the end of the file in one go, then fsync; cut back on failure. Returns 0 or -errno. */
static int append_all(struct lab_csv_writer *w, const char *buf, size_t len)
{
	off_t start = w->stream ? -1 : lseek(w->fd, 0, SEEK_END);	/* a stream: nothing to cut back there */
	int ret = 0;

	while (len) {
		ssize_t n = w->stream ? stream_write(w, buf, len) : write(w->fd, buf, len);

		if (n < 0) {
			if (errno == EINTR && !w->stream)
				continue;
			ret = -errno;
			break;
		}
		buf += n;
		len -= (size_t)n;
	}
	if (!ret && fsync(w->fd) && errno != EINVAL && errno != EROFS)
		ret = -errno;
	/* All or nothing: a cell that could not be written whole leaves no part of itself. */
	if (ret && start >= 0 && (ftruncate(w->fd, start) || lseek(w->fd, start, SEEK_SET) < 0 || fsync(w->fd)))
		fprintf(stderr, "%s: %s: cutting a failed write back to byte %lld: %s\n", w->prog ? w->prog : "rwlab",
			w->path, (long long)start, strerror(errno));
	return ret;
}

const char *lab_csv_append_why(int ret)
{
	return ret == -EPIPE ? "its reader went away" : strerror(-ret);
}

static void buf_reserve(struct lab_buf *b, size_t more);

/* @len bytes of rows onto @b; with @crlf each line end outside quotes as CRLF (a quoted field's newline is data). */
static void put_rows(struct lab_buf *b, const char *s, size_t len, bool crlf)
{
	bool quoted = false;

	buf_reserve(b, crlf ? 2 * len : len);
	for (size_t i = 0; i < len; i++) {
		quoted ^= s[i] == '"';
		if (crlf && !quoted && s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
			b->p[b->len++] = '\r';
		b->p[b->len++] = s[i];
	}
	b->p[b->len] = 0;
}

int lab_csv_append(struct lab_csv_writer *w, const char *buf, size_t len)
{
	struct lab_buf both = { 0 };
	int ret;

	if (!len || (!w->pending && !w->crlf))
		return append_all(w, buf, len);
	/* the run's context line and its first rows: one write, all or nothing; in a CRLF file, CRLF */
	if (w->pending)
		put_rows(&both, w->pending, w->npending, w->crlf);
	put_rows(&both, buf, len, w->crlf);
	ret = append_all(w, both.p, both.len);
	lab_buf_free(&both);
	if (!ret) {
		free(w->pending);
		w->pending = NULL;
		w->npending = 0;
	}
	return ret;
}

/* The empty file lab_csv_open_later() made, unless another has taken its place (a file name reused) */
static void unmake(const struct lab_csv_writer *w)
{
	struct stat a, b;

	if (!fstat(w->fd, &a) && !stat(w->path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino && !a.st_size)
		unlink(w->path);
}

void lab_csv_close(struct lab_csv_writer *w)
{
	if (w->fd >= 0 && w->later && w->made)
		unmake(w);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->later = false;
	w->made = false;
	free(w->pending);
	w->pending = NULL;
	w->npending = 0;
}

static void buf_reserve(struct lab_buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	while (b->len + more + 1 > b->cap)
		b->cap = b->cap ? 2 * b->cap : 4096;
	b->p = realloc(b->p, b->cap);
	if (!b->p)
		abort();
}

void lab_buf_printf(struct lab_buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	/* Format straight into the spare room; grow and redo only when it did not fit. */
	buf_reserve(b, 64);
	room = b->cap - b->len;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	if ((size_t)n >= room) {
		buf_reserve(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void lab_buf_field(struct lab_buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		lab_buf_printf(b, "%s", s);
		return;
	}
	lab_buf_printf(b, "\"");
	for (; *s; s++)
		lab_buf_printf(b, *s == '"' ? "\"\"" : "%c", *s);
	lab_buf_printf(b, "\"");
}

void lab_buf_free(struct lab_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void lab_csv_header(struct lab_buf *b)
{
	for (int i = 0; i < lab_csv_file_ncols; i++)
		lab_buf_printf(b, "%s%s", i ? "," : "", lab_csv_schema[lab_csv_file_row[i]].name);
	lab_buf_printf(b, "\n");
}

void lab_csv_context_line_of(struct lab_buf *b, const char *run_id, const char *const *v)
{
	struct lab_buf kv = { 0 };

	lab_buf_printf(b, "%s,", LAB_CSV_CONTEXT_TAG);
	lab_buf_printf(&kv, "run=%s", run_id);
	lab_buf_field(b, kv.p);
	for (int c = LAB_CSV_FIRST_CONTEXT; c < LAB_CSV_NCOLS; c++) {
		if (!lab_csv_in_context_line((enum lab_csv_col)c))
			continue;
		kv.len = 0;
		lab_buf_printf(&kv, "%s=%s", lab_csv_schema[c].name, v[c] ? v[c] : "");
		lab_buf_printf(b, ",");
		lab_buf_field(b, kv.p);
	}
	lab_buf_printf(b, "\n");
	lab_buf_free(&kv);
}

void lab_csv_context_line(struct lab_buf *b, const char *run_id, const struct lab_context *ctx, const char *pin)
{
	enum { LEN = sizeof(ctx->cmdline) + 64 };
	char *val = malloc((size_t)LAB_CSV_NCOLS * LEN);
	const char *v[LAB_CSV_NCOLS] = { 0 };

	if (!val)
		abort();
	for (int c = LAB_CSV_FIRST_CONTEXT; c < LAB_CSV_NCOLS; c++)
		v[c] = lab_csv_context_value((enum lab_csv_col)c, ctx, pin, val + (size_t)c * LEN, LEN);
	lab_csv_context_line_of(b, run_id, v);
	free(val);
}

void lab_csv_row_prefix(struct lab_buf *b, const char *run_id, const char *variant,
			const char *workload, int threads, int iteration)
{
	time_t t = time(NULL);
	struct tm tm;
	char ts[32];

	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	lab_buf_printf(b, "%d,%s,%s,", LAB_CSV_SCHEMA, run_id, ts);
	lab_buf_field(b, variant);
	lab_buf_printf(b, ",");
	lab_buf_field(b, workload);
	lab_buf_printf(b, ",%d,%d,", threads, iteration);
}

void lab_csv_row_rest(struct lab_buf *b, const char *metric, double value, const char *unit, const char *host,
		      const char *better)
{
	lab_buf_field(b, metric);
	lab_buf_printf(b, ",%.17g,", value);
	lab_buf_field(b, unit);
	lab_buf_printf(b, ",");
	lab_buf_field(b, host);
	lab_buf_printf(b, ",%s\n", better);
}

void lab_csv_run_id(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	char ts[32];

	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%S", &tm);
	snprintf(buf, len, "%s-%d", ts, (int)getpid());
}
