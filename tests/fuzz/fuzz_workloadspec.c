/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab_workload_parse_list(): the -w list. Same promises as the lock list:
 * registered workloads whose labels parse back to the same knob values.
 */
#include "fuzz.h"
#include "workload.h"

#define MAX 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lab_workload_conf confs[MAX];
	struct lab_workload_conf back;
	char err[1024], *s = fuzz_string(data, size);
	int n = 0;

	memset(err, 'x', sizeof(err));
	if (lab_workload_parse_list(s, confs, MAX, &n, err, sizeof(err))) {
		fuzz_check_err(err, sizeof(err));
		FUZZ_CHECK(n >= 0 && n <= MAX);
	} else {
		FUZZ_CHECK(n >= 1 && n <= MAX);
		for (int i = 0; i < n; i++) {
			FUZZ_CHECK(confs[i].ops != NULL);
			FUZZ_CHECK(memchr(confs[i].label, 0, sizeof(confs[i].label)) != NULL);
			FUZZ_CHECK(lab_workload_parse(confs[i].label, &back, err, sizeof(err)) == 0);
			FUZZ_CHECK(back.ops == confs[i].ops);
			FUZZ_CHECK(!memcmp(back.knob, confs[i].knob, sizeof(back.knob)));
		}
	}
	free(s);
	return 0;
}
