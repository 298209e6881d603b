/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Matrix files: lab_matrix_load() on any input (written to a memfd, since a
 * matrix is read by path: /proc/self/fd/N, which leaves no file behind), then what `rwlab run --matrix` and `rwlab report
 * --matrix` do with one that loads: lab_matrix_run_args() at several CPU
 * counts (the threads key through lab_eval_threads()), lab_matrix_refmap()
 * and lab_matrix_reference(). Promises: each returns success or an error
 * with a message free of control bytes; a threads value handed to run is a
 * plain -t list (no "cpus" left, no empty entry); and no memory error, leak
 * or undefined behaviour (ASan, LSan, UBSan).
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "matrix.h"
#include "report.h"

static void check_message(const char *err, size_t len)
{
	fuzz_check_err(err, len);
	for (const char *p = err; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 || *p == '\t');
}

/* A -t list from lab_eval_threads(): entries, no CPU expression left. */
static void check_threads(const char *v)
{
	size_t n = strlen(v);

	FUZZ_CHECK(!strstr(v, "cpus"));
	FUZZ_CHECK(n > 0 && v[0] != ',' && v[n - 1] != ',' && !strstr(v, ",,"));
}

/* Once per load, as run does (the strings it makes live until lab_matrix_free()); @ncpus from the input. */
static void check_loaded(struct lab_matrix *m, int ncpus)
{
	char *argv[128], err[4200], path[4096];
	struct lab_refmap map;
	int lines[128], n = lab_matrix_run_args(m, ncpus, argv, lines, 128, err, sizeof(err));

	if (n < 0) {
		check_message(err, sizeof(err));
	} else {
		FUZZ_CHECK(n <= 128);
		for (int k = 0; k < n; k++) {
			FUZZ_CHECK(argv[k] != NULL && lines[k] >= 1);
			if (k > 0 && !strcmp(argv[k - 1], "--threads"))
				check_threads(argv[k]);
		}
	}
	if (lab_matrix_refmap(m, &map, err, sizeof(err)))
		check_message(err, sizeof(err));
	else
		FUZZ_CHECK(map.ncol >= 0 && map.ncol <= LAB_REFMAP_COLS && map.nmet >= 0 &&
			   map.nmet <= LAB_REFMAP_METRICS && map.nthr >= 0 && map.nthr <= LAB_REFMAP_THREADS);
	if (!lab_matrix_reference(m, path, sizeof(path)))
		FUZZ_CHECK(memchr(path, 0, sizeof(path)) != NULL && path[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static struct lab_matrix m;
	static int fd = -1;
	char err[4200];

	if (fd < 0) {	/* one memfd for every input, rewritten each time */
		fd = memfd_create("fuzz.matrix", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	memset(err, 'x', sizeof(err));
	if (lab_matrix_load(path, &m, err, sizeof(err))) {
		check_message(err, sizeof(err));
		return 0;
	}
	for (int i = 0; i < m.n; i++)
		FUZZ_CHECK(m.kv[i].key[0] && m.kv[i].value && m.kv[i].line >= 1);
	check_loaded(&m, (const int[]){ 1, 2, 128 }[size % 3]);
	lab_matrix_free(&m);
	return 0;
}
