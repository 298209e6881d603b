/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwlab-kpath-loop: the anonymous fault path and its unmap, on one thread,
 * for tools/calibrate-kpath (the machine files' cost.kpath.*_ns keys).
 *
 * Each repeat maps a fresh anonymous region (MADV_NOHUGEPAGE: base pages, as
 * mmtests pft with PFT_PAGESIZES=base), writes one byte per 4 KiB page (pft's
 * default of one cache line per page) and unmaps it. It prints, per repeat,
 * the thread CPU time of the writes per page (one first-touch write fault
 * each, plus the loop's own user time) and of the munmap per page (zapping
 * the page table, freeing the pages). The profile that splits these times
 * into the path's parts is taken by perf around this program
 * (tools/calibrate-kpath).
 *
 * Usage: rwlab-kpath-loop [MB [REPEATS]]   (defaults 256, 10)
 * Output: '#' lines, then "fault_ns<TAB>V" and "unmap_ns<TAB>V" per repeat,
 * and "pages<TAB>N" (pages per repeat); with them, per repeat, "buddy_alloc<TAB>N"
 * and "buddy_free<TAB>N": the fall of /proc/vmstat nr_free_pages over the writes
 * (pages the allocator took from the buddy lists to refill the pcp list) and its
 * rise over the munmap (pages freed back past the pcp list), read outside the
 * timed windows; the whole machine's counter, so other tasks' allocations and
 * the per-CPU vmstat deltas not yet folded in blur it by a few hundred pages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static long nr_free_pages(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nr_free_pages %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 256, reps = argc > 2 ? strtoul(argv[2], NULL, 10) : 10;
	size_t bytes = mb << 20, pages = bytes / 4096;

	if (!mb || !reps) {
		fprintf(stderr, "rwlab-kpath-loop: MB and REPEATS must be positive integers\n");
		return 2;
	}
	printf("# rwlab-kpath-loop: %zu MiB, %zu repeats, %zu pages each\npages\t%zu\n", mb, reps, pages, pages);
	for (size_t r = 0; r < reps; r++) {
		char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double t0, t1, t1u, t2;
		long f0, f1, f2;

		if (p == MAP_FAILED || madvise(p, bytes, MADV_NOHUGEPAGE)) {
			fprintf(stderr, "rwlab-kpath-loop: cannot map %zu MiB: %s\n", mb, strerror(errno));
			return 1;
		}
		f0 = nr_free_pages();
		t0 = cpu_ns();
		for (size_t off = 0; off < bytes; off += 4096)
			((volatile char *)p)[off] = 'r';
		t1 = cpu_ns();
		f1 = nr_free_pages();
		t1u = cpu_ns();	/* the read above is outside both windows */
		munmap(p, bytes);
		t2 = cpu_ns();
		f2 = nr_free_pages();
		printf("fault_ns\t%.2f\nunmap_ns\t%.2f\n", (t1 - t0) / (double)pages, (t2 - t1u) / (double)pages);
		if (f0 >= 0 && f1 >= 0 && f2 >= 0)
			printf("buddy_alloc\t%ld\nbuddy_free\t%ld\n", f0 - f1, f2 - f1);
		fflush(stdout);
	}
	return 0;
}
