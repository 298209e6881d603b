/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab_rwsem_parse_list(): the -l list ("all", NAME[:key=val,...], knob
 * continuations). Promises: within capacity, every entry a registered
 * variant whose label parses back to the same variant and knob values;
 * otherwise a message.
 */
#include "fuzz.h"
#include "rwsem.h"

#define MAX 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lab_rwsem_conf confs[MAX];
	struct lab_rwsem_conf back;
	char err[1024], *s = fuzz_string(data, size);
	int n = 0;

	memset(err, 'x', sizeof(err));
	if (lab_rwsem_parse_list(s, confs, MAX, &n, err, sizeof(err))) {
		fuzz_check_err(err, sizeof(err));
		FUZZ_CHECK(n >= 0 && n <= MAX);
	} else {
		FUZZ_CHECK(n >= 1 && n <= MAX);
		for (int i = 0; i < n; i++) {
			FUZZ_CHECK(confs[i].ops != NULL);
			FUZZ_CHECK(memchr(confs[i].label, 0, sizeof(confs[i].label)) != NULL);
			FUZZ_CHECK(lab_rwsem_parse(confs[i].label, &back, err, sizeof(err)) == 0);
			FUZZ_CHECK(back.ops == confs[i].ops);
			FUZZ_CHECK(!memcmp(back.knob, confs[i].knob, sizeof(back.knob)));
		}
	}
	free(s);
	return 0;
}
