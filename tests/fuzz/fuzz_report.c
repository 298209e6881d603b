/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab_report_print(): `rwlab report FILE` on any input. The input goes to
 * a memfd, read back through /proc/self/fd, the table to /dev/null. The
 * promise is the exit status (0, 1, or 2 for bad input: empty, blank lines
 * only, no results CSV's header) and no memory error, leak or undefined
 * behaviour on the way (ASan, LSan and UBSan check those).
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct lab_report_opts o = { 0 };
	char path[64];
	int fd, r;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	fd = memfd_create("fuzz.csv", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	o.path = path;
	r = lab_report_print(devnull, &o);
	FUZZ_CHECK(r >= 0 && r <= 2);
	close(fd);
	return 0;
}
