/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab_knobs_parse(): "key=val,..." against a table with every knob type.
 * Promises: on success every value is in its knob's range (INT), a valid
 * index (ENUM, LOCK) or 0/1 (BOOL), and the list lab_knobs_format() writes
 * back parses to the same values; on failure a message.
 */
#include "fuzz.h"
#include "rwsem.h"

static const struct lab_knob defs[] = {
	{ .name = "n", .type = LAB_KNOB_INT, .def = 5, .min = -3, .max = 100 },
	{ .name = "big", .type = LAB_KNOB_INT, .def = 0, .min = -9000000000000000000L, .max = 9000000000000000000L },
	{ .name = "b", .type = LAB_KNOB_BOOL, .def = 0 },
	{ .name = "touch", .type = LAB_KNOB_ENUM, .def = 1, .choices = "pool|fresh|x" },
	{ .name = "lock", .type = LAB_KNOB_LOCK, .def = 0 },
	{ .name = "mode", .type = LAB_KNOB_ENUM, .def = 0, .choices = "a|bb", .positional = true },
	{ 0 }
};

static void check_values(const long *v)
{
	FUZZ_CHECK(v[0] >= -3 && v[0] <= 100);
	FUZZ_CHECK(v[2] == 0 || v[2] == 1);
	FUZZ_CHECK(v[3] >= 0 && v[3] <= 2);
	FUZZ_CHECK(lab_rwsem_by_index((int)v[4]) != NULL);
	FUZZ_CHECK(v[5] >= 0 && v[5] <= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long vals[LAB_KNOBS_MAX], again[LAB_KNOBS_MAX];
	char err[1024], fmt[LAB_SPEC_MAX * 2], *s = fuzz_string(data, size);

	memset(err, 'x', sizeof(err));
	if (lab_knobs_parse("fuzz", defs, s, &lab_rwsem_knob_locks, vals, err, sizeof(err))) {
		fuzz_check_err(err, sizeof(err));
	} else {
		check_values(vals);
		lab_knobs_format(defs, vals, &lab_rwsem_knob_locks, fmt, sizeof(fmt));
		FUZZ_CHECK(memchr(fmt, 0, sizeof(fmt)) != NULL);
		FUZZ_CHECK(lab_knobs_parse("fuzz", defs, fmt, &lab_rwsem_knob_locks, again, err, sizeof(err)) == 0);
		FUZZ_CHECK(!memcmp(vals, again, lab_knobs_count(defs) * sizeof(long)));
	}
	free(s);
	return 0;
}
