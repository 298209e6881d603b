/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab_parse_threads(): the -t list. Byte 0 picks the CPU count "mmtests"
 * expands to and the capacity of the output, the rest is the list.
 * Promises: a count of entries within the capacity, each in
 * 1..LAB_THREADS_MAX, or -1 with a message.
 */
#include "fuzz.h"
#include "threads.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int out[LAB_THREAD_LIST_MAX], cap, ncpus, n;
	char err[512], *s;

	if (size < 1)
		return 0;
	ncpus = 1 + data[0] % 256;
	cap = data[0] & 1 ? LAB_THREAD_LIST_MAX : 1 + data[0] % 8;
	s = fuzz_string(data + 1, size - 1);
	memset(err, 'x', sizeof(err));
	n = lab_parse_threads(s, ncpus, out, cap, err, sizeof(err));
	if (n < 0) {
		FUZZ_CHECK(n == -1);
		fuzz_check_err(err, sizeof(err));
	} else {
		FUZZ_CHECK(n >= 1 && n <= cap);
		for (int i = 0; i < n; i++)
			FUZZ_CHECK(out[i] >= 1 && out[i] <= LAB_THREADS_MAX);
	}
	free(s);
	return 0;
}
