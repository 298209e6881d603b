/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab_parse_duration(): -d, --warmup and the torture durations.
 * Promises: 0 with at most 1e15 ns (and a defined conversion: UBSan checks
 * the float cast), or -1 leaving the output alone.
 */
#include "fuzz.h"
#include "threads.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	unsigned long long ns = 12345;
	int r = lab_parse_duration(s, &ns);

	FUZZ_CHECK(r == 0 || r == -1);
	if (r == 0)
		FUZZ_CHECK(ns <= 1000000000000000ull);
	else
		FUZZ_CHECK(ns == 12345);
	free(s);
	return 0;
}
