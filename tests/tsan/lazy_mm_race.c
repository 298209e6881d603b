/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lazy-mm race (harness/lazy_race.h) without Criterion, for sanitizer
 * builds in which Criterion cannot start (ThreadSanitizer: its arena setup
 * fails, Snaipe/Criterion#274). Runs every scheme but none, plus
 * hpref:reserved=7, with the same verdict as the Criterion stress suite; then
 * the negative control: none in a child process, which must die of SIGABRT.
 *
 *   meson setup build-tsan -Db_sanitize=thread -Dbuildtype=debug -Dallocator=system
 *   meson test -C build-tsan --suite tsan
 *
 * Exit status 0 when every check passed. Reads LAB_DURATION_SCALE.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAZY_CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "FAIL: " __VA_ARGS__);			\
			fputc('\n', stderr);					\
			exit(1);						\
		}								\
	} while (0)
#include "lazy_race.h"

static double scale(void)
{
	const char *s = getenv("LAB_DURATION_SCALE");
	double v = s ? atof(s) : 1.0;

	return v > 0 ? v : 1.0;
}

int main(void)
{
	const char *specs[32];
	int n = 0, status;
	pid_t pid;

	for (int i = 0; lab_lazy_mm_schemes[i] && n < 31; i++)
		if (!(lab_lazy_mm_schemes[i]->flags & LAB_LAZY_UNSAFE))
			specs[n++] = lab_lazy_mm_schemes[i]->name;
	specs[n++] = "hpref:reserved=7";
	for (int i = 0; i < n; i++) {
		struct race r;

		race_run(specs[i], &r, race_sync_free(specs[i]), (uint64_t)(300e6 * scale()));
		race_verify(specs[i], &r);
		lab_lazy_domain_destroy(r.d);
		printf("ok %s: %lu releases, %lu met a lazy CPU\n", specs[i], r.releases, r.lazy_at_release);
		fflush(stdout);
	}
	printf("negative control: none in a child process (sanitizer reports from it are expected)\n");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct race r;

		race_run("none", &r, false, 10000000000ull);
		_exit(0);	/* survived: the checks failed to catch none */
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror("fork/waitpid");
		return 1;
	}
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
		fprintf(stderr, "FAIL: none was not caught (status %#x)\n", status);
		return 1;
	}
	printf("ok none caught (SIGABRT)\n");
	return 0;
}
