/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
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
	w->fd = open(path, O_RDWR | O_CLOEXEC);
	if (w->fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (lock_fd(w->fd, path, err, errlen)) {
		close(w->fd);
		w->fd = -1;
		return -1;
	}
	return 0;
}

/* A new results file at @path (an existing one kept as @path.N, never under a running writer), locked. */
static int open_new(struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	if (lab_csv_claim(w, path, err, errlen))
		return -1;	/* a running writer's file is neither moved nor written */
	if (w->fd >= 0 && lab_csv_keep_old(path, err, errlen)) {
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

int lab_csv_open(struct lab_csv_writer *w, const char *path, char *err, size_t errlen)
{
	struct lab_buf b = { 0 };
	int r;

	bool out = !strcmp(path, "-");	/* stdout: the rows stream out as each cell finishes */

	err[0] = 0;
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
	lab_csv_header(&b);
	r = lab_csv_append(w, b.p, b.len);
	lab_buf_free(&b);
	if (r) {
		snprintf(err, errlen, "cannot write results to '%s': %s", path, strerror(-r));
		close(w->fd);
		w->fd = -1;
		return -1;
	}
	return 0;
}

int lab_csv_open_append(struct lab_csv_writer *w, const char *path, size_t keep, char *err, size_t errlen)
{
	char last = '\n';

	if (w->fd < 0 && lab_csv_claim(w, path, err, errlen))
		return -1;
	if (w->fd < 0) {
		snprintf(err, errlen, "cannot append results to '%s': %s", path, strerror(ENOENT));
		return -1;
	}
	/*
	 * Keep the whole rows; a last row that lost only its line end (the
	 * write stopped just before it) gets it back, so the next row does not
	 * join it.
	 */
	if (ftruncate(w->fd, (off_t)keep) || lseek(w->fd, 0, SEEK_END) < 0 ||
	    (keep && pread(w->fd, &last, 1, (off_t)keep - 1) != 1) ||
	    (last != '\n' && write(w->fd, "\n", 1) != 1) || (fsync(w->fd) && errno != EINVAL && errno != EROFS)) {
		snprintf(err, errlen, "cannot append results to '%s': %s", path, strerror(errno));
		lab_csv_close(w);
		return -1;
	}
	return 0;
}

int lab_csv_keep_old(const char *path, char *err, size_t errlen)
{
	struct stat st;
	char old[4200];

	if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	for (int n = 1; n < 10000; n++) {
		snprintf(old, sizeof(old), "%s.%d", path, n);
		if (access(old, F_OK) == 0)
			continue;
		if (rename(path, old)) {
			snprintf(err, errlen, "cannot keep the existing '%s' as '%s': %s", path, old, strerror(errno));
			return -1;
		}
		fprintf(stderr, "rwlab: %s existed: kept it as %s\n", path, old);
		return 0;
	}
	snprintf(err, errlen, "'%s' exists and %s.1 .. %s.9999 are taken: remove some", path, path, path);
	return -1;
}

int lab_csv_append(struct lab_csv_writer *w, const char *buf, size_t len)
{
	off_t start = lseek(w->fd, 0, SEEK_END);	/* -1 (ESPIPE) on a pipe: nothing to cut back there */
	int ret = 0;

	while (len) {
		ssize_t n = write(w->fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
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
		fprintf(stderr, "rwlab: %s: cutting a failed write back to byte %lld: %s\n", w->path, (long long)start,
			strerror(errno));
	return ret;
}

void lab_csv_close(struct lab_csv_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
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
	for (int i = 0; i < LAB_CSV_NCOLS; i++)
		lab_buf_printf(b, "%s%s", i ? "," : "", lab_csv_schema[i].name);
	lab_buf_printf(b, "\n");
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

void lab_csv_row_suffix(struct lab_buf *b, const struct lab_context *ctx, const char *pin)
{
	char v[sizeof(ctx->cmdline) + 64];

	for (int c = LAB_CSV_FIRST_CONTEXT; c < LAB_CSV_NCOLS; c++) {
		lab_buf_printf(b, ",");
		lab_buf_field(b, lab_csv_context_value((enum lab_csv_col)c, ctx, pin, v, sizeof(v)));
	}
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

/* ---- reading -------------------------------------------------------------- */

/* Parse one record starting at *pos; fields are malloc'd. Returns field count, -1 on error. */
static int parse_record(const char *s, size_t *pos, size_t end, char ***fields, int *line,
			const char **why)
{
	int n = 0, cap = 0;
	char **f = NULL;
	size_t i = *pos;

	for (;;) {
		char *field;

		if (i < end && s[i] == '"') {
			/* The unescaped field is never longer than its quoted span. */
			size_t o = 0, st = ++i;

			while (i < end && (s[i] != '"' || (i + 1 < end && s[i + 1] == '"')))
				i += s[i] == '"' ? 2 : 1;
			if (i >= end) {
				*why = "unterminated quoted field";
				goto fail;
			}
			field = malloc(i - st + 1);
			if (!field)
				abort();
			for (size_t k = st; k < i; k++) {
				if (s[k] == '\n')
					(*line)++;
				field[o++] = s[k];
				if (s[k] == '"')
					k++;	/* "" -> " */
			}
			field[o] = 0;
			i++;	/* the closing quote */
			if (i < end && s[i] != ',' && s[i] != '\n' && s[i] != '\r') {
				*why = "text after a closing quote";
				free(field);
				goto fail;
			}
		} else {
			size_t st = i;

			while (i < end && s[i] != ',' && s[i] != '\n' && s[i] != '\r')
				i++;
			if (memchr(s + st, '"', i - st)) {
				*why = "quote inside an unquoted field";
				goto fail;
			}
			/* Exactly sized: a results file has millions of short fields. */
			field = malloc(i - st + 1);
			if (!field)
				abort();
			memcpy(field, s + st, i - st);
			field[i - st] = 0;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			f = realloc(f, (size_t)cap * sizeof(*f));
			if (!f)
				abort();
		}
		f[n++] = field;
		if (i < end && s[i] == ',') {
			i++;
			continue;
		}
		if (i < end && s[i] == '\r')
			i++;
		if (i < end && s[i] == '\n')
			i++;
		break;
	}
	*pos = i;
	*fields = f;
	return n;
fail:
	for (int k = 0; k < n; k++)
		free(f[k]);
	free(f);
	return -1;
}

int lab_csv_parse(const char *data, size_t len, const char *name, struct lab_csv_table *t, char *err,
		  size_t errlen)
{
	size_t pos = 0;
	int line = 1, rcap = 0;
	const char *why = NULL;
	bool ends_nl = len && data[len - 1] == '\n';

	memset(t, 0, sizeof(*t));
	if (len == 0) {
		snprintf(err, errlen, "%s: empty file (expected a CSV header)", name);
		return -1;
	}
	t->ncols = parse_record(data, &pos, len, &t->header, &line, &why);
	if (t->ncols < 0) {
		t->ncols = 0;
		snprintf(err, errlen, "%s:%d: %s", name, line, why);
		return -1;
	}
	t->parsed_len = pos;
	while (pos < len) {
		char **f;
		size_t at = pos;
		int start = ++line, n;

		if (data[pos] == '\n' || data[pos] == '\r') {	/* blank line */
			pos++;
			t->parsed_len = pos;
			continue;
		}
		n = parse_record(data, &pos, len, &f, &line, &why);
		if (n >= 0 && n != t->ncols) {
			for (int k = 0; k < n; k++)
				free(f[k]);
			free(f);
		}
		/*
		 * An unterminated last line that is short or ends inside quotes is
		 * the tail of an interrupted write: leave it out and say where.
		 */
		if (!ends_nl && (n < 0 ? !strcmp(why, "unterminated quoted field") : n < t->ncols && pos == len)) {
			t->torn_line = start;
			break;
		}
		if (n < 0) {
			snprintf(err, errlen, "%s:%d: %s", name, start, why);
			goto fail;
		}
		if (n != t->ncols) {
			snprintf(err, errlen, "%s:%d: %d fields, the header has %d", name, start, n, t->ncols);
			goto fail;
		}
		if (t->nrows == rcap) {
			rcap = rcap ? 2 * rcap : 1024;
			t->rows = realloc(t->rows, (size_t)rcap * sizeof(*t->rows));
			t->offset = realloc(t->offset, (size_t)rcap * sizeof(*t->offset));
			t->line = realloc(t->line, (size_t)rcap * sizeof(*t->line));
			if (!t->rows || !t->offset || !t->line)
				abort();
		}
		t->offset[t->nrows] = at;
		t->line[t->nrows] = start;
		t->rows[t->nrows++] = f;
		t->parsed_len = pos;
	}
	t->unterminated = t->nrows && !ends_nl && t->parsed_len == len;
	return 0;
fail:
	lab_csv_free(t);
	return -1;
}

/* Is @plan a whole plan field: empty, or "fp=HEX cells=N blocks=N" (shard.h)? */
static bool plan_whole(const char *plan)
{
	const char *p = plan;
	size_t n;

	if (!*p)
		return true;
	if (strncmp(p, "fp=", 3) || !(n = strspn(p + 3, "0123456789abcdef")))
		return false;
	p += 3 + n;
	if (strncmp(p, " cells=", 7) || !(n = strspn(p + 7, "0123456789")))
		return false;
	p += 7 + n;
	if (strncmp(p, " blocks=", 8) || !(n = strspn(p + 8, "0123456789")))
		return false;
	return !p[8 + n];
}

bool lab_csv_torn_tail(struct lab_csv_table *t)
{
	int c = lab_csv_col(t, LAB_CSV_NAME(plan)), last = t->nrows - 1;

	if (!t->unterminated || c < 0 || plan_whole(t->rows[last][c]))
		return false;
	/* the write stopped inside the row's last field: its fields are all there, the row is not */
	for (int k = 0; k < t->ncols; k++)
		free(t->rows[last][k]);
	free(t->rows[last]);
	t->torn_line = t->line[last];
	t->parsed_len = t->offset[last];
	t->nrows--;
	t->unterminated = false;
	return true;
}

/* stdin, read once: a report may read its input more than once. */
static char *stdin_data;
static size_t stdin_len;
static bool stdin_read;

int lab_csv_read(const char *path, struct lab_csv_table *t, char *err, size_t errlen)
{
	bool in = !strcmp(path, "-");
	FILE *fp = in ? (stdin_read ? NULL : stdin) : fopen(path, "rb");
	char *data = NULL;
	size_t len = 0, cap = 0;
	int r;

	memset(t, 0, sizeof(*t));
	if (in && stdin_read)
		return lab_csv_parse(stdin_data ? stdin_data : "", stdin_len, "stdin", t, err, errlen);
	if (!fp) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			data = realloc(data, cap);
			if (!data)
				abort();
		}
		n = fread(data + len, 1, cap - len, fp);
		if (!n)
			break;
		len += n;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		fclose(fp);
		free(data);
		return -1;
	}
	if (in) {
		stdin_read = true;
		stdin_data = data;
		stdin_len = len;
		return lab_csv_parse(data ? data : "", len, "stdin", t, err, errlen);
	}
	fclose(fp);
	r = lab_csv_parse(data, len, path, t, err, errlen);
	free(data);
	return r;
}

int lab_csv_col(const struct lab_csv_table *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->header[i], name))
			return i;
	return -1;
}

void lab_csv_free(struct lab_csv_table *t)
{
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			free(t->rows[r][c]);
		free(t->rows[r]);
	}
	for (int c = 0; c < t->ncols && t->header; c++)
		free(t->header[c]);
	free(t->header);
	free(t->rows);
	free(t->offset);
	free(t->line);
	memset(t, 0, sizeof(*t));
}
