/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The perf context-switch rings behind owner_on_cpu() (locks/wait.c) where
 * they cannot be had or stop being valid:
 * - perf_event_open refused (a seccomp filter returning EACCES, as a
 *   container's or perf_event_paranoid 3 would; the fd limit reached:
 *   EMFILE, as 'ulimit -n 64' and rwlab run -t 100 meets it): the thread gets no ring, lab_switch_ring_status() says why in
 *   one line, and oncpu=switch falls back to the owner's CPU clock: a
 *   blocked owner still reads off CPU at the first call, a running one on;
 * - fork(): perf maps the rings VM_DONTCOPY, so the child has none. A
 *   thread the child starts must not map its ring with MAP_FIXED at an
 *   address the parent's ring had (the child may have mapped its own data
 *   there since), and owner_on_cpu() on a parent thread's task (a lock
 *   it held across the fork) must not load from the unmapped ring.
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

struct blocked {
	pthread_t tid;
	int pipe[2];
	struct lab_task *task;
};

static void *blocked_main(void *arg)
{
	struct blocked *b = arg;
	char c;

	__atomic_store_n(&b->task, lab_current(), __ATOMIC_RELEASE);
	while (read(b->pipe[0], &c, 1) < 0)
		;
	return NULL;
}

/* A thread that attaches, then blocks in read(2) until blocked_stop(). */
static struct lab_task *blocked_start(struct blocked *b)
{
	memset(b, 0, sizeof(*b));
	cr_assert_eq(pipe(b->pipe), 0);
	cr_assert_eq(pthread_create(&b->tid, NULL, blocked_main, b), 0);
	while (!__atomic_load_n(&b->task, __ATOMIC_ACQUIRE))
		lab_sleep_ns(100000);
	lab_sleep_ns(20000000);		/* inside read() by now */
	return b->task;
}

static void blocked_stop(struct blocked *b)
{
	cr_assert_eq(write(b->pipe[1], "x", 1), 1);
	pthread_join(b->tid, NULL);
	close(b->pipe[0]);
	close(b->pipe[1]);
}

/* perf_event_open fails with EACCES in this process from now on. */
static void refuse_perf_event_open(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	cr_assert_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	cr_assert_eq(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog), 0,
		     "seccomp: %s", strerror(errno));
}

/* A thread without a ring: a blocked owner reads off CPU at once through oncpu=switch. */
static void expect_clock_fallback(const char *why)
{
	struct blocked b;
	struct lab_task *t = blocked_start(&b);

	cr_expect_null(t->sw_head, "a ring despite %s", why);
	cr_assert_not_null(lab_switch_ring_status(), "no reason given for the missing ring");
	cr_expect(strstr(lab_switch_ring_status(), why) != NULL, "status '%s' does not name '%s'",
		  lab_switch_ring_status(), why);
	cr_expect(strchr(lab_switch_ring_status(), '\n') == NULL, "status is not one line");
	lab_spin_start(0, LAB_ONCPU_SWITCH);
	cr_expect_eq(owner_on_cpu(t), 0, "oncpu=switch without a ring: a blocked owner read on CPU");
	blocked_stop(&b);
}

Test(switch_rings, refused_perf_event_open_falls_back_to_clock, .timeout = 30)
{
	refuse_perf_event_open();
	expect_clock_fallback("perf_event_open: Permission denied");
}

/* The highest file descriptor open now (the test runner's, a sanitizer's), or -1. */
static int highest_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int max = -1;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) > max && atoi(e->d_name) != dirfd(d))
			max = atoi(e->d_name);
	closedir(d);
	return max;
}

Test(switch_rings, fd_limit_falls_back_to_clock, .timeout = 30)
{
	struct rlimit old, lim;
	int fds[256], n = 0, fd;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)highest_fd() + 5;	/* at least 4 free: 2 for the pipe, 1 to refuse */
	if (lim.rlim_cur > 256 || lim.rlim_cur > old.rlim_max)
		cr_skip_test("%d file descriptors open already", highest_fd() + 1);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	while (n < 256 && (fd = open("/dev/null", O_RDONLY)) >= 0)
		fds[n++] = fd;
	cr_assert_eq(errno, EMFILE, "the fd table did not fill (%d opened)", n);
	cr_assert_geq(n, 4);
	/* The pipe for the blocked thread needs two: give back two. */
	close(fds[--n]);
	close(fds[--n]);
	expect_clock_fallback("perf_event_open: Too many open files");
	while (n)
		close(fds[--n]);
	setrlimit(RLIMIT_NOFILE, &old);
}

static struct lab_task *attached;

static void *attach_and_exit(void *arg)
{
	(void)arg;
	__atomic_store_n(&attached, lab_current(), __ATOMIC_RELEASE);
	return NULL;
}

static struct lab_task *run_attach_and_exit(void)
{
	pthread_t tid;

	__atomic_store_n(&attached, NULL, __ATOMIC_RELEASE);
	if (pthread_create(&tid, NULL, attach_and_exit, NULL) || pthread_join(tid, NULL))
		return NULL;
	return __atomic_load_n(&attached, __ATOMIC_ACQUIRE);
}

static int child_status(pid_t pid)
{
	int st;

	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "the child died of signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return WEXITSTATUS(st);
}

/*
 * Child: map two pages of its own where a parent thread's ring was, then
 * start a thread that takes that thread's slot. Exit 0 when the data
 * survived and the new thread has a ring; 2 when it has none; 3 when the
 * ring landed on the data.
 */
static int fork_child_new_thread(uintptr_t ring)
{
	size_t len = 2 * (size_t)sysconf(_SC_PAGESIZE);
	char *m = mmap((void *)ring, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct lab_task *t;

	if (m == MAP_FAILED)
		return 4;
	memset(m, 0xab, len);
	t = run_attach_and_exit();
	if (!t)
		return 4;
	if (m[0] != (char)0xab || m[len - 1] != (char)0xab)
		return 3;
	return t->sw_head ? 0 : 2;
}

Test(switch_rings, forked_child_maps_no_ring_over_its_data, .timeout = 30)
{
	struct lab_task *t;
	uintptr_t ring;
	pid_t pid;
	int rc;

	lab_current();
	t = run_attach_and_exit();
	cr_assert_not_null(t);
	if (!t->sw_head)
		cr_skip_test("no switch rings here (%s)", lab_switch_ring_status());
	ring = (uintptr_t)t->sw_head & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(fork_child_new_thread(ring));
	rc = child_status(pid);
	cr_expect_neq(rc, 3, "the child's new thread mapped its ring over the child's own data");
	cr_expect_neq(rc, 2, "the child's new thread got no ring");
	cr_expect_eq(rc, 0, "the child could not set up (%d)", rc);
}

/* Child: the parent's blocked thread is not here: off CPU, by every signal, without a fault. */
static int fork_child_reads_gone_owner(const struct lab_task *gone)
{
	struct blocked b;
	struct lab_task *t;
	int bad = 0;

	for (int mode = LAB_ONCPU_SWITCH; mode <= LAB_ONCPU_FLAG; mode++) {
		lab_spin_start(0, mode);
		bad |= owner_on_cpu(gone) << mode;
	}
	/* Threads started in the child still get rings and read right. */
	t = blocked_start(&b);
	lab_spin_start(0, LAB_ONCPU_SWITCH);
	if (!t->sw_head || owner_on_cpu(t))
		bad |= 8;
	blocked_stop(&b);
	return bad;
}

Test(switch_rings, forked_child_reads_a_parent_thread_off_cpu, .timeout = 30)
{
	struct blocked b;
	struct lab_task *t;
	pid_t pid;
	int rc;

	lab_current();
	t = blocked_start(&b);
	if (!t->sw_head)
		cr_skip_test("no switch rings here (%s)", lab_switch_ring_status());
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(fork_child_reads_gone_owner(t));
	rc = child_status(pid);
	cr_expect_eq(rc & 7, 0, "in the child, a parent thread (not in the child) read on CPU (signals %#x)",
		     rc & 7);
	cr_expect_eq(rc & 8, 0, "a thread started in the child has no working ring");
	blocked_stop(&b);
}
