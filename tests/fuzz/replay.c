/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Corpus replay without libFuzzer: a main() that feeds each committed input
 * to a target's LLVMFuzzerTestOneInput once, as `fuzz_TARGET -runs=0 DIR`
 * does, so any compiler (gcc in the ASan + UBSan tree, where .ci/run replays
 * the corpora) runs the same inputs through the same promises.
 *
 *   fuzz_TARGET_replay DIR|FILE...
 *
 * Like libFuzzer: the empty input first, then every regular file of each
 * directory (in name order, so a failure names the same file every time),
 * each copied into a buffer of exactly its size, so that AddressSanitizer
 * sees a read past the input's end. A broken promise aborts (FUZZ_CHECK);
 * the input in flight is named on stderr before each call, so the abort's
 * report follows its name. Exit 0 when every input ran, 1 when an argument
 * cannot be read or holds no input (an empty corpus would replay nothing),
 * 2 on usage. Single-threaded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_one(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "fuzz replay: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	data = malloc((size_t)size);
	if ((!data && size) || fread(data, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "fuzz replay: %s: short read\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "fuzz replay: %s (%ld bytes)\n", path, size);
	LLVMFuzzerTestOneInput(data, (size_t)size);
	free(data);
	return 0;
}

static int name_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every regular file in DIR, in name order; returns how many ran, -1 on error. */
static int replay_dir(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, name_order), ran = 0, bad = 0;

	if (n < 0) {
		fprintf(stderr, "fuzz replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (!bad && snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name) < (int)sizeof(path) &&
		    !stat(path, &st) && S_ISREG(st.st_mode)) {
			if (replay_one(path))
				bad = 1;
			else
				ran++;
		}
		free(ents[i]);
	}
	free(ents);
	return bad ? -1 : ran;
}

int main(int argc, char **argv)
{
	uint8_t *empty;	/* no byte of it may be read */
	int total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR|FILE... (corpus directories or inputs to replay once)\n", argv[0]);
		return 2;
	}
	empty = calloc(1, 0);	/* zero bytes (calloc: gcc sees nothing uninitialized passed on) */
	LLVMFuzzerTestOneInput(empty, 0);
	free(empty);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		int n;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "fuzz replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_one(argv[i]) ? -1 : 1;
		if (n < 0)
			return 1;
		if (n == 0) {
			fprintf(stderr, "fuzz replay: %s: no input to replay\n", argv[i]);
			return 1;
		}
		total += n;
	}
	printf("fuzz replay: %d inputs and the empty one, every promise kept\n", total);
	return 0;
}
