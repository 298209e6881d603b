/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Crash safety of `rwlab run`, with the real binary:
 *
 * 1. start a 6-cell matrix, SIGKILL it once the CSV holds a finished cell;
 * 2. the CSV must parse (the reader, and `rwlab report` exits 0) and every
 *    cell in it must be whole: iterations 0..N-1 with the same metrics each;
 * 3. `--resume` must run exactly the missing cells: afterwards every cell is
 *    there once and whole, and the killed run's bytes are unchanged at the
 *    start of the file;
 * 4. a torn last write (the file cut in the middle of a row of its last
 *    cell, as a kill during a multi-page write(2) leaves it) must be cut off
 *    and that cell run again.
 *
 * A plain program, not Criterion (which cannot run under ThreadSanitizer),
 * so the sanitizer suites run it too. Usage: kill_resume PATH-TO-RWLAB.
 * Exit 0 when every check passed, 1 otherwise, with a line per failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "csv.h"

extern char **environ;

#define ITER "2"
#define NITER 2
#define NCELLS 6

static int failures;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);   \
			fprintf(stderr, __VA_ARGS__);                           \
			fprintf(stderr, "\n");                                  \
			failures++;                                             \
		}                                                               \
	} while (0)

static const char *rwlab;
static char csv[4096];

static pid_t spawn_quiet(char *const argv[], bool quiet)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int r;

	posix_spawn_file_actions_init(&fa);
	if (quiet)
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r) {
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(r));
		exit(1);
	}
	return pid;
}

static pid_t spawn(char *const argv[])
{
	return spawn_quiet(argv, false);
}

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

static pid_t run_matrix(bool resume, const char *path)
{
	char *argv[] = { (char *)rwlab, "run", "-l", "pthread,pthread-wp,ck-rwlock", "-w", "locktest",
			 "-t", "1,2", "-n", ITER, "-d", "0.15s", "--warmup", "0", "--order", "sequential", "-o", (char *)path, "-q",
			 "--no-report", resume ? "--resume" : NULL, NULL };

	return spawn(argv);
}

struct cell {
	char key[512];
	int rows[NITER];
	char metrics[NITER][4096];	/* ";metric;metric;...;" per iteration */
	int dups;			/* rows whose metric was already in their iteration */
	int first_row;
};

/*
 * Group @path's rows into cells. Returns the number of cells (-1 if the
 * file does not parse); *torn tells whether a torn last line was left out.
 */
static int load_cells(const char *path, struct cell *c, int cap, bool *torn, size_t *parsed_len)
{
	struct lab_csv_table t;
	char err[1024];
	int n = 0, cv, cw, ct, ci, cm;

	if (lab_csv_read(path, &t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	*torn = t.torn_line != 0;
	if (parsed_len)
		*parsed_len = t.parsed_len;
	cv = lab_csv_col(&t, "variant");
	cw = lab_csv_col(&t, "workload");
	ct = lab_csv_col(&t, "threads");
	ci = lab_csv_col(&t, "iteration");
	cm = lab_csv_col(&t, "metric");
	for (int r = 0; r < t.nrows; r++) {
		char key[512];
		int k, it = atoi(t.rows[r][ci]);

		snprintf(key, sizeof(key), "%s|%s|%s", t.rows[r][cv], t.rows[r][cw], t.rows[r][ct]);
		for (k = 0; k < n && strcmp(c[k].key, key); k++)
			;
		if (k == n) {
			if (n == cap)
				break;
			memset(&c[n], 0, sizeof(c[n]));
			snprintf(c[n].key, sizeof(c[n].key), "%s", key);
			c[n].first_row = r;
			n++;
		} else {
			/* A cell's rows are contiguous: one write per cell. */
			CHECK(k == n - 1, "%s:%d: cell %s again, after other cells", path, t.line[r], key);
		}
		CHECK(it >= 0 && it < NITER, "%s: iteration %d", path, it);
		if (it >= 0 && it < NITER) {
			char *ms = c[k].metrics[it], name[300];

			/* ";a;b;" holds each metric once: a second ";m;" is a duplicate row. */
			snprintf(name, sizeof(name), ";%s;", t.rows[r][cm]);
			if (!ms[0])
				strcpy(ms, ";");
			if (strstr(ms, name))
				c[k].dups++;
			c[k].rows[it]++;
			strncat(ms, name + 1, sizeof(c[k].metrics[it]) - strlen(ms) - 1);
		}
	}
	lab_csv_free(&t);
	return n;
}

static bool cell_whole(const struct cell *c)
{
	if (c->dups)
		return false;
	for (int i = 0; i < NITER; i++)
		if (c->rows[i] == 0 || c->rows[i] != c->rows[0] || strcmp(c->metrics[i], c->metrics[0]))
			return false;
	return true;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	struct stat st;

	if (!f || fstat(fileno(f), &st))
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	*len = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	return buf;
}

/* Exit status of `rwlab report PATH` (its table goes to /dev/null: only acceptance is checked). */
static int report_status(const char *path)
{
	char *argv[] = { (char *)rwlab, "report", (char *)path, NULL };
	int st = wait_status(spawn_quiet(argv, true));

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* After a resume: all NCELLS cells, each once and whole. */
static void check_complete(const char *path, const char *when)
{
	struct cell c[NCELLS + 4];
	bool torn;
	int n = load_cells(path, c, NCELLS + 4, &torn, NULL);

	CHECK(n == NCELLS, "%s: %d cells, want %d", when, n, NCELLS);
	CHECK(!torn, "%s: a torn line is left", when);
	for (int i = 0; i < n; i++)
		CHECK(cell_whole(&c[i]), "%s: cell %s is not whole (%d/%d rows)", when, c[i].key, c[i].rows[0],
		      c[i].rows[NITER - 1]);
	CHECK(report_status(path) == 0, "%s: rwlab report rejects the file", when);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/rwlab-kill-XXXXXX", torn_csv[4200];
	struct cell c[NCELLS + 4];
	size_t killed_len, now_len;
	char *killed, *now;
	pid_t pid;
	int st, n = -1, kept;
	bool torn;

	if (argc != 2) {
		fprintf(stderr, "usage: kill_resume PATH-TO-RWLAB\n");
		return 2;
	}
	rwlab = argv[1];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(csv, sizeof(csv), "%s/matrix.csv", dir);
	snprintf(torn_csv, sizeof(torn_csv), "%s/torn.csv", dir);

	/* 1. Kill the matrix once a cell is in the file (polling every 10 ms, up to 60 s). */
	pid = run_matrix(false, csv);
	for (int i = 0; i < 6000; i++) {
		struct stat sb;

		sleep_ms(10);
		if (stat(csv, &sb) == 0 && sb.st_size > 0 && (n = load_cells(csv, c, NCELLS + 4, &torn, NULL)) >= 1)
			break;
	}
	kill(pid, SIGKILL);
	st = wait_status(pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "the matrix was not killed mid-run (it %s): make it longer",
	      WIFEXITED(st) ? "had already finished" : "died otherwise");

	/* 2. What the kill left: parseable, whole cells only, fewer than all. */
	n = load_cells(csv, c, NCELLS + 4, &torn, NULL);
	CHECK(n >= 1 && n < NCELLS, "after the kill: %d cells (want 1..%d)", n, NCELLS - 1);
	for (int i = 0; i < n; i++)
		CHECK(cell_whole(&c[i]) || (torn && i == n - 1), "after the kill: cell %s is not whole", c[i].key);
	CHECK(report_status(csv) == 0, "after the kill: rwlab report rejects the file");
	kept = torn ? n - 1 : n;
	printf("killed with %d whole cells in the CSV%s\n", kept, torn ? " and a torn write" : "");
	killed = slurp(csv, &killed_len);

	/* 3. Resume: the missing cells run, the finished ones stay as they were. */
	pid = run_matrix(true, csv);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the resumed run failed (status %d)", st);
	check_complete(csv, "after --resume");
	now = slurp(csv, &now_len);
	if (!torn)
		CHECK(killed && now && now_len > killed_len && !memcmp(killed, now, killed_len),
		      "the resumed run changed the cells the killed run had finished");

	/* 4. A torn last write: cut the complete file ten bytes into the third row of its last cell. */
	n = load_cells(csv, c, NCELLS + 4, &torn, NULL);
	if (n == NCELLS && now) {
		struct lab_csv_table t;
		char err[1024];
		size_t cut = 0, last_start = 0, after_len = 0;
		char *after;
		FILE *f;

		if (lab_csv_read(csv, &t, err, sizeof(err)) == 0) {
			last_start = t.offset[c[n - 1].first_row];
			cut = t.offset[c[n - 1].first_row + 2] + 10;
			lab_csv_free(&t);
		}
		f = fopen(torn_csv, "wb");
		if (!f || fwrite(now, 1, cut, f) != cut || fclose(f)) {
			perror(torn_csv);
			return 1;
		}
		CHECK(load_cells(torn_csv, c, NCELLS + 4, &torn, NULL) == NCELLS && torn,
		      "the cut file does not read as %d cells with a torn tail", NCELLS);
		CHECK(report_status(torn_csv) == 0, "rwlab report rejects a file with a torn tail");
		st = wait_status(run_matrix(true, torn_csv));
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "resuming the torn file failed (status %d)", st);
		check_complete(torn_csv, "after resuming a torn file");
		after = slurp(torn_csv, &after_len);
		CHECK(after && after_len > last_start && !memcmp(after, now, last_start),
		      "resuming the torn file changed the whole cells before the torn one");
		free(after);
	}
	free(killed);
	free(now);
	if (!failures) {
		unlink(csv);
		unlink(torn_csv);
		rmdir(dir);
		printf("kill/resume: all checks passed\n");
	} else {
		printf("kill/resume: %d checks failed; files kept in %s\n", failures, dir);
	}
	return failures ? 1 : 0;
}
