/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading CSV one record at a time (csv.h: lab_csv_reader), and whole
 * tables on top of it. A results file of schema 4 reads as every column of
 * the schema: each row's context comes from its run's "# context" line.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "env.h"
#include "err.h"

#define READ_CHUNK (64u << 10)

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		abort();
	return d;
}

/* ---- the contexts ------------------------------------------------------------ */

/* One run's "# context" line: the values of the columns the line holds. */
struct run_ctx {
	char *run;
	char *val[LAB_CSV_NCOLS];	/* context-line columns; NULL elsewhere */
};

struct lab_csv_runs {
	struct run_ctx *run;
	int nrun, last_run;
	/* distinct tuples of the context columns the rows have had (struct lab_csv_reader's ctx) */
	int ntcols;
	int tcol[LAB_CSV_NCOLS];	/* the logical columns of a tuple */
	char **tuple;			/* ntuple x ntcols values */
	int ntuple, last_tuple;
	int *hash, hcap;		/* open addressing over tuples, -1 empty */
};

static void runs_free(struct lab_csv_runs *rs)
{
	if (!rs)
		return;
	for (int i = 0; i < rs->nrun; i++) {
		free(rs->run[i].run);
		for (int c = 0; c < LAB_CSV_NCOLS; c++)
			free(rs->run[i].val[c]);
	}
	free(rs->run);
	for (int i = 0; i < rs->ntuple * rs->ntcols; i++)
		free(rs->tuple[i]);
	free(rs->tuple);
	free(rs->hash);
	free(rs);
}

static struct run_ctx *find_run(struct lab_csv_runs *rs, const char *run)
{
	if (rs->last_run < rs->nrun && !strcmp(rs->run[rs->last_run].run, run))
		return &rs->run[rs->last_run];
	for (int i = rs->nrun - 1; i >= 0; i--)
		if (!strcmp(rs->run[i].run, run)) {
			rs->last_run = i;
			return &rs->run[i];
		}
	return NULL;
}

static uint64_t tuple_hash(const char *const *v, int n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < n; i++) {
		for (const char *p = v[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
		h = (h ^ 0x1f) * 0x100000001b3ull;
	}
	return h ^ h >> 29;
}

static bool tuple_eq(const struct lab_csv_runs *rs, int id, const char *const *v)
{
	char *const *t = &rs->tuple[(size_t)id * (size_t)rs->ntcols];

	for (int i = 0; i < rs->ntcols; i++)
		if (strcmp(t[i], v[i]))
			return false;
	return true;
}

static int *tuple_slot(struct lab_csv_runs *rs, const char *const *v, uint64_t h)
{
	for (int i = (int)(h & (uint64_t)(rs->hcap - 1));; i = (i + 1) & (rs->hcap - 1))
		if (rs->hash[i] < 0 || tuple_eq(rs, rs->hash[i], v))
			return &rs->hash[i];
}

static void tuple_rehash(struct lab_csv_runs *rs)
{
	rs->hcap = rs->hcap ? 2 * rs->hcap : 64;
	rs->hash = xrealloc(rs->hash, (size_t)rs->hcap * sizeof(int));
	memset(rs->hash, 0xff, (size_t)rs->hcap * sizeof(int));
	for (int i = 0; i < rs->ntuple; i++) {
		const char *const *t = (const char *const *)&rs->tuple[(size_t)i * (size_t)rs->ntcols];

		*tuple_slot(rs, t, tuple_hash(t, rs->ntcols)) = i;
	}
}

/* The context id of the current row's context columns (a new one if unseen). */
static int row_tuple(struct lab_csv_reader *rd)
{
	struct lab_csv_runs *rs = rd->runs;
	const char *v[LAB_CSV_NCOLS];
	uint64_t h;
	int *slot;

	for (int i = 0; i < rs->ntcols; i++)
		v[i] = rd->row[rs->tcol[i]];
	if (rs->ntuple && tuple_eq(rs, rs->last_tuple, v))
		return rs->last_tuple;
	if (2 * (rs->ntuple + 1) > rs->hcap)
		tuple_rehash(rs);
	h = tuple_hash(v, rs->ntcols);
	slot = tuple_slot(rs, v, h);
	if (*slot < 0) {
		size_t at = (size_t)rs->ntuple * (size_t)rs->ntcols;

		if (!(rs->ntuple & (rs->ntuple - 1)))	/* capacities 1, 2, 4, ... tuples */
			rs->tuple = xrealloc(rs->tuple, 2 * (at + (size_t)rs->ntcols) * sizeof(char *));
		for (int i = 0; i < rs->ntcols; i++)
			rs->tuple[at + (size_t)i] = xstrdup(v[i]);
		*slot = rs->ntuple++;
	}
	rs->last_tuple = *slot;
	return *slot;
}

const char *lab_csv_reader_ctx(const struct lab_csv_reader *rd, int id, int col)
{
	const struct lab_csv_runs *rs = rd->runs;

	if (!rs || id < 0 || id >= rs->ntuple)
		return "";
	for (int i = 0; i < rs->ntcols; i++)
		if (rs->tcol[i] == col)
			return rs->tuple[(size_t)id * (size_t)rs->ntcols + (size_t)i];
	return "";
}

int lab_csv_reader_nctx(const struct lab_csv_reader *rd)
{
	return rd->runs ? rd->runs->ntuple : 0;
}

/* ---- inputs that can be read once ----------------------------------------------- */

/*
 * Stdin, a FIFO or a device gives its bytes once, but report reads its
 * inputs more than once (the --by header check, merge's shard checks, the
 * load, a reload for --by fault_path). The first open of such an input
 * copies it, from where it stands to its end, into an unlinked temporary
 * file in lab_tmpdir() ($TMPDIR, else /tmp), and every open reads that copy
 * from its start (with pread: the readers share its descriptor). Where no
 * file can be made or written there (a read-only or full /tmp), the copy is
 * kept in memory instead, said in one note. The copy stops, and every open
 * fails, as soon as the input shows it is no CSV (copy_check()), or, when
 * the first open asks for a results CSV, as soon as its header line ends
 * without the columns of one: an endless device such as /dev/zero, or
 * `yes`, is not copied to its end. Copies are found by the
 * input's device and inode, so "-" and /dev/stdin are one input; they last
 * as long as the process.
 */
struct spool {
	dev_t dev;
	ino_t ino;
	int fd;				/* the copy, or -1 */
	char why[600];			/* why there is none: every open says it */
	bool not_results;		/* its header is no results CSV's (lab_csv_reader_open_results()) */
};

static pthread_mutex_t spool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct spool *spools;
static int nspools;

/* Write @len bytes to @fd. Returns 0 or -1 (errno). */
static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

#define HEADER_MAX (64u << 10)	/* a CSV's header line ends within its first 64 KiB, or it is no CSV */

/* @name's refusal as no CSV, a file or a stream alike: its header does not end within HEADER_MAX bytes. */
static void no_header(const char *name, char *why, size_t len)
{
	snprintf(why, len, "%s: no CSV header in its first 64 KiB (its first line does not end there): not a "
		 "results file", name);
}

/* One copy being made: the input @src (@path; messages: @name) into @fd. */
struct copy {
	int src, fd;
	const char *path, *name;
	size_t len;			/* bytes copied */
	bool text, header;		/* a byte other than a line end seen; the header record ended */
	bool quoted, field;		/* in a quoted field; in a field past its start (a quote there opens none) */
	bool cr;			/* the last byte scanned was a line end's CR: an LF may follow it */
	bool in_memory;
	bool results;			/* refuse a header that is no results CSV's once it ends */
	bool not_results;		/* so refused */
	char *head;			/* results: the bytes up to the header's line end */
	size_t nhead;
};

static bool lacks_results_column(const struct lab_csv_reader *rd, char *err, size_t errlen);

/*
 * c->results: keep the header's bytes, @buf[0..@n), and once its record has
 * ended check that it names a results CSV's columns. A header that does not
 * parse here (a quote inside an unquoted name) is left to the reader.
 * Returns 0, or -1 with the message in @why.
 */
static int copy_check_results(struct copy *c, const char *buf, size_t n, char *why, size_t len)
{
	struct lab_csv_reader h;
	char err[600];

	c->head = xrealloc(c->head, c->nhead + n);
	memcpy(c->head + c->nhead, buf, n);
	c->nhead += n;
	if (!c->header)
		return 0;
	c->not_results = !lab_csv_reader_mem(&h, c->head, c->nhead, c->name, err, sizeof(err)) &&
			 lacks_results_column(&h, why, len);
	lab_csv_reader_close(&h);
	return c->not_results ? -1 : 0;
}

/*
 * Scan @buf[0..@end) for the end of the header record: a line end outside
 * quotes, after a byte other than a line end (blank lines before it are
 * skipped, as the reader skips them). A line end is LF, CRLF or a CR alone,
 * as in the reader (a CR alone ends the record once the next byte is seen).
 * A quote opens a quoted field only at a field's start, as in the reader;
 * "" inside one closes and reopens it. Returns the bytes scanned, c->header
 * set when the record ended there.
 */
static size_t header_scan(struct copy *c, const char *buf, size_t end)
{
	size_t i;

	for (i = 0; i < end && !c->header; i++) {
		char ch = buf[i];

		if (c->cr && ch != '\n') {	/* the CR before ended it: this byte is the next record's */
			c->header = true;
			break;
		}
		if (ch == '"' && (c->quoted || !c->field))
			c->quoted = !c->quoted;
		else if (!c->quoted)
			c->field = ch != ',' && ch != '\n' && ch != '\r';
		c->header = ch == '\n' && c->text && !c->quoted;
		c->cr = ch == '\r' && c->text && !c->quoted;
		c->text |= ch != '\n' && ch != '\r';
	}
	return i;
}

/*
 * The first HEADER_MAX bytes of the input, @buf[0..@n) read at c->len: no
 * CSV holds a NUL byte, and its header record ends within them (a quoted
 * field that does not close there is no header). Returns 0, or -1 with the
 * message in @why.
 */
static int copy_check(struct copy *c, const char *buf, size_t n, char *why, size_t len)
{
	size_t end = c->len >= HEADER_MAX ? 0 : n < HEADER_MAX - c->len ? n : HEADER_MAX - c->len, i;
	const char *nul = memchr(buf, 0, end);
	bool had = c->header;

	if (nul) {
		snprintf(why, len, "%s: binary data (a NUL byte at offset %zu) in its first 64 KiB: not a results file",
			 c->name, c->len + (size_t)(nul - buf));
		return -1;
	}
	i = header_scan(c, buf, end);
	if (c->results && !had && copy_check_results(c, buf, i, why, len))
		return -1;
	if (c->header || c->len + n < HEADER_MAX)
		return 0;
	no_header(c->name, why, len);
	c->not_results = true;	/* bad input, as a file of that header is */
	return -1;
}

/* A new unlinked file in the temporary directory, or -1 (errno). */
static int tmp_file(void)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/rwlab-input-XXXXXX", lab_tmpdir());
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/*
 * The temporary directory failed (errno): the copy is kept in memory from
 * now on, the c->len bytes copied so far moved there, said in one note.
 * Returns 0, or -1 with the message in @why.
 */
static int copy_to_memory(struct copy *c, char *why, size_t len)
{
	char *buf = xrealloc(NULL, READ_CHUNK);
	int e = errno, fd = memfd_create("rwlab-input", MFD_CLOEXEC), e2 = errno;
	ssize_t n = 0;

	for (off_t at = 0; fd >= 0 && at < (off_t)c->len; at += n)
		if ((n = pread(c->fd, buf, READ_CHUNK, at)) <= 0 || write_all(fd, buf, (size_t)n)) {
			e2 = n ? errno : EIO;
			close(fd);
			fd = -1;
		}
	free(buf);
	if (fd < 0) {
		snprintf(why, len, "cannot copy %s into %s (%s) nor into memory (%s)", c->name, lab_tmpdir(),
			 strerror(e), strerror(e2));
		return -1;
	}
	fprintf(stderr, "%s: note: cannot copy %s into %s (%s; TMPDIR names the directory): it is kept in memory\n",
		lab_prog(), c->name, lab_tmpdir(), strerror(e));
	if (c->fd >= 0)
		close(c->fd);
	c->fd = fd;
	c->in_memory = true;
	return 0;
}

/* Write @n bytes to the copy: into memory when the file cannot take them. Returns 0, or -1 with @why. */
static int copy_write(struct copy *c, const char *buf, size_t n, char *why, size_t len)
{
	if (!write_all(c->fd, buf, n))
		return 0;
	if (c->in_memory) {
		snprintf(why, len, "cannot keep %s in memory: %s", c->name, strerror(errno));
		return -1;
	}
	return copy_to_memory(c, why, len) ? -1 : copy_write(c, buf, n, why, len);
}

/* Copy c->src to its end into c->fd, checking that it is CSV as it comes. Returns 0, or -1 with @why. */
static int copy_all(struct copy *c, char *why, size_t len)
{
	char *buf = xrealloc(NULL, READ_CHUNK);
	ssize_t n;
	int ret = 0;

	while (!ret && (n = read(c->src, buf, READ_CHUNK)) != 0) {
		if (n < 0 && errno != EINTR) {
			snprintf(why, len, "cannot read '%s': %s", c->path, strerror(errno));
			ret = -1;
		} else if (n > 0 && !(ret = copy_check(c, buf, (size_t)n, why, len)) &&
			   !(ret = copy_write(c, buf, (size_t)n, why, len))) {
			c->len += (size_t)n;
		}
	}
	free(buf);
	return ret;
}

/*
 * Copy @path (@in: stdin) into a new unlinked file, or memory; @s->not_results
 * set when it is refused as no results CSV (@results). Returns its
 * descriptor, or -1 with @why.
 */
static int spool_copy(struct spool *s, const char *path, bool in, bool results, char *why, size_t len)
{
	struct copy c = { .src = in ? 0 : open(path, O_RDONLY | O_CLOEXEC), .path = path, .name = in ? "stdin" : path,
			  .results = results };

	if (c.src < 0) {
		snprintf(why, len, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	c.fd = tmp_file();
	if ((c.fd < 0 && copy_to_memory(&c, why, len)) || copy_all(&c, why, len)) {
		if (c.fd >= 0)
			close(c.fd);
		c.fd = -1;
	}
	if (!in)
		close(c.src);
	free(c.head);
	s->not_results = c.not_results;
	return c.fd;
}

/*
 * The copy of the input @st describes (@path, @in: stdin), made on first
 * use (@results: refusing a header that is no results CSV's). Returns it, or
 * -1 with why in @why, *@not_results set when that was the refusal.
 */
static int spool(const char *path, bool in, bool results, const struct stat *st, bool *not_results, char *why,
		 size_t len)
{
	struct spool *s = NULL;
	int fd;

	pthread_mutex_lock(&spool_lock);
	for (int i = 0; i < nspools && !s; i++)
		if (spools[i].dev == st->st_dev && spools[i].ino == st->st_ino)
			s = &spools[i];
	if (!s) {
		spools = xrealloc(spools, (size_t)(nspools + 1) * sizeof(*spools));
		s = &spools[nspools++];
		*s = (struct spool){ st->st_dev, st->st_ino, -1, "", false };
		s->fd = spool_copy(s, path, in, results, s->why, sizeof(s->why));
	}
	fd = s->fd;
	*not_results = s->not_results;
	snprintf(why, len, "%s", s->why);
	pthread_mutex_unlock(&spool_lock);
	return fd;
}

/*
 * Open @path ("-": stdin) to read from its start: a regular file or a
 * directory (or what stat() cannot see) itself, anything else its copy
 * (spool(): @results, *@not_results), *@shared then set (read it with
 * pread(), never close it). Returns the descriptor, or -1 with the message
 * in @why ("cannot read 'PATH': ...").
 */
static int input_open(const char *path, bool results, bool *shared, bool *not_results, char *why, size_t len)
{
	bool in = !strcmp(path, "-");
	struct stat st;
	int fd;

	*shared = *not_results = false;
	if (in ? fstat(0, &st) : stat(path, &st)) {
		fd = in ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	} else if (!in && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	} else {
		*shared = true;
		return spool(path, in, results, &st, not_results, why, len);
	}
	if (fd < 0)
		snprintf(why, len, "cannot read '%s': %s", path, strerror(errno));
	return fd;
}

const char *lab_csv_first_line(const char *path, char *buf, size_t len)
{
	char why[600];
	bool shared, not_results;
	int fd = input_open(path, false, &shared, &not_results, why, sizeof(why));
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, len - 1, 0);

	if (fd >= 0 && !shared)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	return buf;
}

/* ---- records ---------------------------------------------------------------- */

/* Read more input into the buffer, keeping buf[lo..hi). Returns 0 or -errno. */
static int refill(struct lab_csv_reader *rd)
{
	ssize_t n;

	if (rd->fd < 0) {
		rd->eof = true;
		return 0;
	}
	if (rd->lo && (rd->lo == rd->hi || rd->lo > rd->cap / 2)) {
		memmove(rd->buf, rd->buf + rd->lo, rd->hi - rd->lo);
		rd->base += rd->lo;
		rd->hi -= rd->lo;
		rd->lo = 0;
	}
	if (rd->cap - rd->hi < READ_CHUNK / 2) {	/* a record longer than the buffer: make room */
		rd->cap = rd->cap ? 2 * rd->cap : READ_CHUNK;
		rd->buf = xrealloc(rd->buf, rd->cap);
	}
	do	/* a shared copy is read at the input's offset: the bytes read so far */
		n = rd->shared ? pread(rd->fd, rd->buf + rd->hi, rd->cap - rd->hi, (off_t)(rd->base + rd->hi)) :
				 read(rd->fd, rd->buf + rd->hi, rd->cap - rd->hi);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (!n) {
		rd->eof = true;
		return 0;
	}
	rd->hi += (size_t)n;
	rd->ends_nl = rd->buf[rd->hi - 1] == '\n';
	return 0;
}

enum { REC_OK, REC_MORE, REC_ERR, REC_LONG };

/* Room for @more bytes of fields after the first @used. */
static inline void fbuf_room(struct lab_csv_reader *rd, size_t used, size_t more)
{
	if (used + more <= rd->fbcap)
		return;
	while (used + more > rd->fbcap)
		rd->fbcap = rd->fbcap ? 2 * rd->fbcap : 4096;
	rd->fbuf = xrealloc(rd->fbuf, rd->fbcap);
}

/*
 * Parse the record at buf[lo..hi) into rd->f/nf. REC_MORE: it runs past the
 * data read so far. @end: where it ends; @nl: newlines inside its quoted
 * fields; @why: what is wrong (REC_ERR).
 */
static int parse_record(struct lab_csv_reader *rd, size_t *end, int *nl, const char **why)
{
	const char *s = rd->buf;
	size_t i = rd->lo, e = rd->hi, o = 0;
	bool eof = rd->eof;
	int n = 0;

	*nl = 0;
	for (;;) {
		size_t start = o;

		if (i < e && s[i] == '"') {
			for (i++;; i++) {
				if (i >= e) {
					*why = "unterminated quoted field";
					return eof ? REC_ERR : REC_MORE;
				}
				if (s[i] == '"') {
					if (i + 1 >= e && !eof)
						return REC_MORE;
					if (i + 1 < e && s[i + 1] == '"') {
						fbuf_room(rd, o, 1);
						rd->fbuf[o++] = '"';
						i++;
						continue;
					}
					break;
				}
				*nl += s[i] == '\n';
				fbuf_room(rd, o, 1);
				rd->fbuf[o++] = s[i];
			}
			i++;	/* the closing quote */
			if (i < e && s[i] != ',' && s[i] != '\n' && s[i] != '\r') {
				*why = "text after a closing quote";
				return REC_ERR;
			}
		} else {
			size_t st = i;

			while (i < e && s[i] != ',' && s[i] != '\n' && s[i] != '\r')
				i++;
			if (i >= e && !eof)
				return REC_MORE;
			if (memchr(s + st, '"', i - st)) {
				*why = "quote inside an unquoted field";
				return REC_ERR;
			}
			fbuf_room(rd, o, i - st + 1);	/* and its NUL: the buffer exists for an empty field too */
			memcpy(rd->fbuf + o, s + st, i - st);
			o += i - st;
		}
		fbuf_room(rd, o, 1);
		rd->fbuf[o++] = 0;
		if (n == rd->fcap) {
			rd->fcap = rd->fcap ? 2 * rd->fcap : 32;
			rd->fofs = xrealloc(rd->fofs, (size_t)rd->fcap * sizeof(*rd->fofs));
			rd->f = xrealloc(rd->f, (size_t)rd->fcap * sizeof(*rd->f));
		}
		rd->fofs[n++] = start;
		if (i < e && s[i] == ',') {
			i++;
			continue;
		}
		if (i < e && s[i] == '\r') {
			if (i + 1 >= e && !eof)
				return REC_MORE;
			i++;
		}
		if (i < e && s[i] == '\n')
			i++;
		break;
	}
	for (int k = 0; k < n; k++)
		rd->f[k] = rd->fbuf + rd->fofs[k];
	rd->nf = n;
	*end = i;
	return REC_OK;
}

/* Parse the record at lo, reading more as needed. Returns REC_OK or REC_ERR (@why), or -errno. */
static int next_record(struct lab_csv_reader *rd, size_t *end, int *nl, const char **why)
{
	for (;;) {
		int r = parse_record(rd, end, nl, why), e;

		if (r != REC_MORE)
			return r;
		e = refill(rd);
		if (e)
			return e;
	}
}

/* ---- the header -------------------------------------------------------------- */

/*
 * The header record at lo, as next_record() parses it, or REC_LONG when it
 * does not end within the input's first HEADER_MAX bytes: a file is read no
 * further than a stream's copy is (copy_check()).
 */
static int header_record(struct lab_csv_reader *rd, size_t *end, int *nl, const char **why)
{
	for (;;) {
		int r = parse_record(rd, end, nl, why), e;

		if (r == REC_OK && rd->base + *end > HEADER_MAX)
			return REC_LONG;
		if (r != REC_MORE)
			return r;
		if (rd->base + rd->hi >= HEADER_MAX)
			return REC_LONG;
		e = refill(rd);
		if (e)
			return e;
	}
}

static bool is_file_row_header(struct lab_csv_reader *rd)
{
	if (rd->file_ncols != lab_csv_file_ncols)
		return false;
	for (int i = 0; i < lab_csv_file_ncols; i++)
		if (strcmp(rd->file_header[i], lab_csv_schema[lab_csv_file_row[i]].name))
			return false;
	return true;
}

int lab_csv_reader_col(const struct lab_csv_reader *rd, const char *name)
{
	for (int i = 0; i < rd->ncols; i++)
		if (!strcmp(rd->header[i], name))
			return i;
	return -1;
}

/* The columns every results CSV's header names, whatever its schema: what report and plot need. */
static const char *const results_need[] = { "variant", "workload", "threads", "metric", "value", "unit", "better" };

/*
 * Does @rd's header lack one of results_need? Then "NAME: no column 'C'
 * (columns: a, b): ..." in @err, naming what a results CSV is, or the file
 * it was made from for report -f csv's output. Returns true when it does.
 */
static bool lacks_results_column(const struct lab_csv_reader *rd, char *err, size_t errlen)
{
	size_t n = sizeof(results_need) / sizeof(results_need[0]), i = 0, off;

	while (i < n && lab_csv_reader_col(rd, results_need[i]) >= 0)
		i++;
	if (i == n)
		return false;
	off = (size_t)snprintf(err, errlen, "%s: no column '%s' (columns:", rd->name, results_need[i]);
	for (int c = 0; c < rd->ncols && off < errlen; c++)
		off += (size_t)snprintf(err + off, errlen - off, "%s %s", c ? "," : "", rd->header[c]);
	if (off >= errlen)
		return true;
	if (rd->ncols > 2 && !strcmp(rd->header[0], "group") && !strcmp(rd->header[1], "column"))
		snprintf(err + off, errlen - off, "): this is rwlab report -f csv's output (a table of aggregates); "
			 "report the results CSV it was made from");
	else
		snprintf(err + off, errlen - off, "): not an rwlab results CSV (what rwlab run, bench and exec write, "
			 "with columns variant, workload, threads, metric, value, unit and better)");
	return true;
}

/* The schema's context column called @name, or -1. */
static int context_column(const char *name)
{
	for (int c = LAB_CSV_FIRST_CONTEXT; c < LAB_CSV_NCOLS; c++)
		if (!strcmp(lab_csv_schema[c].name, name))
			return c;
	return -1;
}

static void sys_err(struct lab_csv_reader *rd, int e, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot read '%s': %s", rd->name, strerror(-e));
}

/* Skip the blank lines at lo, as between rows (lab_csv_reader_next()). Returns 0 or -errno. */
static int skip_blank_lines(struct lab_csv_reader *rd)
{
	for (;;) {
		int r;

		while (rd->lo == rd->hi && !rd->eof)
			if ((r = refill(rd)))
				return r;
		if (rd->lo == rd->hi || (rd->buf[rd->lo] != '\n' && rd->buf[rd->lo] != '\r'))
			return 0;
		rd->nline += rd->buf[rd->lo++] == '\n';	/* CRLF: one line */
	}
}

/*
 * Read the header (after any blank lines) and set up the logical columns.
 * Returns 0, or -1, or LAB_CSV_NOT_RESULTS for an empty input, one of blank
 * lines only, or a header that does not end within the first 64 KiB (no
 * CSV: bad input).
 */
static int begin(struct lab_csv_reader *rd, char *err, size_t errlen)
{
	const char *why = NULL;
	size_t end;
	int nl, r;

	rd->runs = calloc(1, sizeof(*rd->runs));
	if (!rd->runs)
		abort();
	while (rd->hi - rd->lo < 3 && !rd->eof)
		if ((r = refill(rd))) {
			sys_err(rd, r, err, errlen);
			return -1;
		}
	/* a UTF-8 byte-order mark (a spreadsheet's save) is no part of the header's first name */
	if (rd->hi - rd->lo >= 3 && !memcmp(rd->buf + rd->lo, "\xef\xbb\xbf", 3))
		rd->lo += 3;
	if (rd->lo == rd->hi) {
		snprintf(err, errlen, "%s: empty file (expected a CSV header)", rd->name);
		return LAB_CSV_NOT_RESULTS;
	}
	if ((r = skip_blank_lines(rd))) {
		sys_err(rd, r, err, errlen);
		return -1;
	}
	if (rd->lo == rd->hi) {
		snprintf(err, errlen, "%s: no header line: the file holds only blank lines (expected a CSV header)",
			 rd->name);
		return LAB_CSV_NOT_RESULTS;
	}
	r = header_record(rd, &end, &nl, &why);
	if (r == REC_LONG) {
		no_header(rd->name, err, errlen);
		return LAB_CSV_NOT_RESULTS;
	}
	if (r < 0) {
		sys_err(rd, r, err, errlen);
		return -1;
	}
	if (r == REC_ERR) {
		snprintf(err, errlen, "%s:%d: %s", rd->name, rd->nline + 1 + nl, why);
		return -1;
	}
	rd->nline += 1 + nl;
	rd->lo = end;
	rd->parsed_len = rd->base + end;
	rd->file_ncols = rd->nf;
	rd->file_header = xrealloc(NULL, (size_t)rd->nf * sizeof(char *));
	for (int i = 0; i < rd->nf; i++)
		rd->file_header[i] = xstrdup(rd->f[i]);
	rd->context = is_file_row_header(rd);
	rd->ncols = rd->context ? LAB_CSV_NCOLS : rd->file_ncols;
	rd->header = xrealloc(NULL, (size_t)rd->ncols * sizeof(char *));
	rd->phys = xrealloc(NULL, (size_t)rd->ncols * sizeof(int));
	rd->row = xrealloc(NULL, (size_t)rd->ncols * sizeof(char *));
	for (int c = 0; c < rd->ncols; c++) {
		rd->header[c] = xstrdup(rd->context ? lab_csv_columns[c] : rd->file_header[c]);
		rd->phys[c] = rd->context ? -1 : c;
	}
	for (int i = 0; rd->context && i < lab_csv_file_ncols; i++)
		rd->phys[lab_csv_file_row[i]] = i;
	for (int c = 0; c < rd->ncols; c++)	/* the run and the context columns: few combinations */
		if ((context_column(rd->header[c]) >= 0 || !strcmp(rd->header[c], LAB_CSV_NAME(run))) &&
		    rd->runs->ntcols < LAB_CSV_NCOLS)
			rd->runs->tcol[rd->runs->ntcols++] = c;
	rd->run_col = lab_csv_reader_col(rd, LAB_CSV_NAME(run));
	rd->host_col = lab_csv_reader_col(rd, LAB_CSV_NAME(host));
	rd->plan_col = lab_csv_reader_col(rd, LAB_CSV_NAME(plan));
	rd->better_col = lab_csv_reader_col(rd, LAB_CSV_NAME(better));
	return 0;
}

static void reader_init(struct lab_csv_reader *rd, const char *name)
{
	memset(rd, 0, sizeof(*rd));
	rd->name = name;
	rd->fd = -1;
}

/* The reader over @path (@results: refusing a header that is no results CSV's, its copy cut there). */
static int reader_open(struct lab_csv_reader *rd, const char *path, bool results, char *err, size_t errlen)
{
	bool not_results;
	int r;

	reader_init(rd, strcmp(path, "-") ? path : "stdin");
	rd->fd = input_open(path, results, &rd->shared, &not_results, err, errlen);
	if (rd->fd < 0)
		return results && not_results ? LAB_CSV_NOT_RESULTS : -1;
	rd->own_fd = !rd->shared;
	r = begin(rd, err, errlen);
	if (r)
		return results ? r : -1;
	return results && lacks_results_column(rd, err, errlen) ? LAB_CSV_NOT_RESULTS : 0;
}

int lab_csv_reader_open(struct lab_csv_reader *rd, const char *path, char *err, size_t errlen)
{
	return reader_open(rd, path, false, err, errlen);
}

int lab_csv_reader_open_results(struct lab_csv_reader *rd, const char *path, char *err, size_t errlen)
{
	return reader_open(rd, path, true, err, errlen);
}

int lab_csv_reader_mem(struct lab_csv_reader *rd, const char *data, size_t len, const char *name, char *err,
		       size_t errlen)
{
	reader_init(rd, name);
	rd->buf = (char *)data;		/* read only: parse_record() writes fbuf */
	rd->hi = len;
	rd->eof = true;
	rd->ends_nl = len && data[len - 1] == '\n';
	return begin(rd, err, errlen) ? -1 : 0;
}

void lab_csv_reader_close(struct lab_csv_reader *rd)
{
	if (rd->own_fd && rd->fd >= 0)
		close(rd->fd);
	if (rd->fd >= 0)
		free(rd->buf);
	free(rd->fbuf);
	free(rd->fofs);
	free(rd->f);
	for (int i = 0; rd->file_header && i < rd->file_ncols; i++)
		free(rd->file_header[i]);
	free(rd->file_header);
	for (int i = 0; rd->header && i < rd->ncols; i++)
		free(rd->header[i]);
	free(rd->header);
	free(rd->phys);
	free(rd->row);
	runs_free(rd->runs);
	memset(rd, 0, sizeof(*rd));
	rd->fd = -1;
}

/* ---- rows -------------------------------------------------------------------- */

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

static bool better_whole(const char *b)
{
	return !strcmp(b, "higher") || !strcmp(b, "lower") || !strcmp(b, "none");
}

static void run_ctx_free(struct run_ctx *c)
{
	free(c->run);
	for (int col = 0; col < LAB_CSV_NCOLS; col++)
		free(c->val[col]);
}

/* A "# context" line (rd->f): its run's context, new or the same as before. Returns 0 or -1. */
static int context_line(struct lab_csv_reader *rd, int line, char *err, size_t errlen)
{
	struct lab_csv_runs *rs = rd->runs;
	struct run_ctx c = { 0 }, *old;

	for (int k = 1; k < rd->nf; k++) {
		const char *eq = strchr(rd->f[k], '=');
		char name[64];
		int col;

		if (!eq || eq == rd->f[k] || eq - rd->f[k] >= (ptrdiff_t)sizeof(name))
			continue;	/* not NAME=VALUE: nothing this reader knows */
		snprintf(name, sizeof(name), "%.*s", (int)(eq - rd->f[k]), rd->f[k]);
		if (!strcmp(name, LAB_CSV_NAME(run))) {
			free(c.run);
			c.run = xstrdup(eq + 1);
		} else if ((col = context_column(name)) >= 0 && lab_csv_in_context_line((enum lab_csv_col)col)) {
			free(c.val[col]);
			c.val[col] = xstrdup(eq + 1);
		}
	}
	if (!c.run || !*c.run) {
		snprintf(err, errlen, "%s:%d: a context line without run=RUN", rd->name, line);
		run_ctx_free(&c);
		return -1;
	}
	for (int col = LAB_CSV_FIRST_CONTEXT; col < LAB_CSV_NCOLS; col++)
		if (lab_csv_in_context_line((enum lab_csv_col)col) && !c.val[col])
			c.val[col] = xstrdup("");
	old = find_run(rs, c.run);
	for (int col = LAB_CSV_FIRST_CONTEXT; old && col < LAB_CSV_NCOLS; col++)
		if (c.val[col] && strcmp(c.val[col], old->val[col])) {
			snprintf(err, errlen, "%s:%d: a second context line of run %s differs in %s ('%s' before, '%s' "
				 "here): not one run's context", rd->name, line, c.run, lab_csv_schema[col].name,
				 old->val[col], c.val[col]);
			run_ctx_free(&c);
			return -1;
		}
	if (old) {	/* the same context again (files joined with cat, a preload's processes) */
		run_ctx_free(&c);
		return 0;
	}
	if (!(rs->nrun & (rs->nrun - 1)))
		rs->run = xrealloc(rs->run, (size_t)(rs->nrun ? 2 * rs->nrun : 1) * sizeof(*rs->run));
	rs->run[rs->nrun++] = c;
	return 0;
}

/* Is the record in rd->f the header again (schema 4 files joined with cat)? */
static bool repeated_header(const struct lab_csv_reader *rd)
{
	for (int i = 0; i < rd->nf; i++)
		if (strcmp(rd->f[i], rd->file_header[i]))
			return false;
	return true;
}

/* The logical row of record rd->f (@line). Returns 0 or -1. */
static int make_row(struct lab_csv_reader *rd, int line, char *err, size_t errlen)
{
	const struct run_ctx *c = NULL;

	if (rd->context) {
		const char *run = rd->f[rd->phys[LAB_CSV_COL_run]];

		c = find_run(rd->runs, run);
		if (!c) {
			snprintf(err, errlen, "%s:%d: run %s has no '%s' line before its rows (its machine, build and "
				 "settings): not a whole rwlab results file", rd->name, line, run, LAB_CSV_CONTEXT_TAG);
			return -1;
		}
	}
	for (int col = 0; col < rd->ncols; col++)
		rd->row[col] = rd->phys[col] >= 0 ? rd->f[rd->phys[col]] : c && c->val[col] ? c->val[col] : "";
	return 0;
}

int lab_csv_reader_next(struct lab_csv_reader *rd, char *err, size_t errlen)
{
	for (;;) {
		const char *why = NULL;
		size_t end;
		int nl, r, start;
		bool last;

		while (rd->lo == rd->hi && !rd->eof)
			if ((r = refill(rd))) {
				sys_err(rd, r, err, errlen);
				return -1;
			}
		if (rd->lo == rd->hi)
			return 0;
		if (rd->buf[rd->lo] == '\n' || rd->buf[rd->lo] == '\r') {	/* a blank line */
			rd->lo++;
			rd->nline++;
			rd->parsed_len = rd->base + rd->lo;
			continue;
		}
		r = next_record(rd, &end, &nl, &why);
		if (r < 0) {
			sys_err(rd, r, err, errlen);
			return -1;
		}
		start = ++rd->nline;
		rd->nline += nl;
		/* the last record of data that does not end with a newline: perhaps an interrupted write's tail */
		last = rd->eof && end == rd->hi && !rd->ends_nl;
		if (r == REC_ERR) {	/* an unterminated quoted field runs to the end of the data */
			if (!rd->ends_nl && !strcmp(why, "unterminated quoted field")) {
				rd->torn_line = start;
				rd->lo = rd->hi;
				return 0;
			}
			snprintf(err, errlen, "%s:%d: %s", rd->name, start, why);
			return -1;
		}
		if (rd->context && rd->f[0][0] == '#') {
			bool ctx = !strcmp(rd->f[0], LAB_CSV_CONTEXT_TAG);

			if (ctx && last && !(rd->nf > 1 && !strncmp(rd->f[rd->nf - 1], "plan=", 5) &&
					     plan_whole(rd->f[rd->nf - 1] + 5))) {
				rd->torn_line = start;	/* cut before its last field (plan) was whole */
				rd->lo = rd->hi;
				return 0;
			}
			if (ctx && context_line(rd, start, err, errlen))
				return -1;
			rd->lo = end;
			rd->parsed_len = rd->base + end;
			continue;	/* a context line or a comment */
		}
		if (rd->nf < rd->file_ncols && last) {
			rd->torn_line = start;
			rd->lo = rd->hi;
			return 0;
		}
		if (rd->nf != rd->file_ncols) {
			snprintf(err, errlen, "%s:%d: %d fields, the header has %d", rd->name, start, rd->nf,
				 rd->file_ncols);
			return -1;
		}
		if (rd->context && repeated_header(rd)) {
			rd->lo = end;
			rd->parsed_len = rd->base + end;
			continue;
		}
		if (make_row(rd, start, err, errlen))
			return -1;
		/* whole only if its end-of-row field is: better (schema 4) or plan (schema 3) */
		if (last && (rd->context ? !better_whole(rd->row[rd->better_col]) :
					   rd->plan_col >= 0 && !plan_whole(rd->row[rd->plan_col]))) {
			rd->torn_line = start;
			rd->lo = rd->hi;
			return 0;
		}
		rd->unterminated = last;
		rd->ctx = row_tuple(rd);
		rd->line = start;
		rd->offset = rd->base + rd->lo;
		rd->lo = end;
		rd->parsed_len = rd->base + end;
		return 1;
	}
}

/* ---- tables ------------------------------------------------------------------ */

static int read_table(struct lab_csv_reader *rd, struct lab_csv_table *t, char *err, size_t errlen)
{
	int cap = 0, r;

	t->ncols = rd->ncols;
	t->context = rd->context;
	t->header = xrealloc(NULL, (size_t)t->ncols * sizeof(char *));
	t->shared = xrealloc(NULL, (size_t)t->ncols * sizeof(bool));
	for (int c = 0; c < t->ncols; c++) {
		t->header[c] = xstrdup(rd->header[c]);
		t->shared[c] = rd->phys[c] < 0;
	}
	while ((r = lab_csv_reader_next(rd, err, errlen)) > 0) {
		char **row = xrealloc(NULL, (size_t)t->ncols * sizeof(char *));

		for (int c = 0; c < t->ncols; c++)
			row[c] = t->shared[c] ? (char *)rd->row[c] : xstrdup(rd->row[c]);
		if (t->nrows == cap) {
			cap = cap ? 2 * cap : 1024;
			t->rows = xrealloc(t->rows, (size_t)cap * sizeof(*t->rows));
			t->offset = xrealloc(t->offset, (size_t)cap * sizeof(*t->offset));
			t->line = xrealloc(t->line, (size_t)cap * sizeof(*t->line));
		}
		t->offset[t->nrows] = rd->offset;
		t->line[t->nrows] = rd->line;
		t->rows[t->nrows++] = row;
	}
	t->parsed_len = rd->parsed_len;
	t->torn_line = rd->torn_line;
	t->unterminated = rd->unterminated;
	t->runs = rd->runs;	/* the shared fields are its strings */
	rd->runs = NULL;
	if (r < 0) {
		lab_csv_free(t);
		return -1;
	}
	return 0;
}

int lab_csv_parse(const char *data, size_t len, const char *name, struct lab_csv_table *t, char *err,
		  size_t errlen)
{
	struct lab_csv_reader rd;
	int r;

	memset(t, 0, sizeof(*t));
	r = lab_csv_reader_mem(&rd, data, len, name, err, errlen);
	if (!r)
		r = read_table(&rd, t, err, errlen);
	lab_csv_reader_close(&rd);
	return r;
}

int lab_csv_read(const char *path, struct lab_csv_table *t, char *err, size_t errlen)
{
	struct lab_csv_reader rd;
	int r;

	memset(t, 0, sizeof(*t));
	r = lab_csv_reader_open(&rd, path, err, errlen);
	if (!r)
		r = read_table(&rd, t, err, errlen);
	lab_csv_reader_close(&rd);
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
			if (!t->shared || !t->shared[c])
				free(t->rows[r][c]);
		free(t->rows[r]);
	}
	for (int c = 0; c < t->ncols && t->header; c++)
		free(t->header[c]);
	free(t->header);
	free(t->shared);
	free(t->rows);
	free(t->offset);
	free(t->line);
	runs_free(t->runs);
	memset(t, 0, sizeof(*t));
}
