/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gitcheckout - `git checkout` between commits of a real tree, on the
 * directory-tree model and the mm model.
 *
 * Citation: mmtests gitcheckout (configs/config-workload-gitcheckout,
 * shellpack gitcheckout-bench: `for COMMIT in $GITCHECKOUT_COMMITS; do git
 * checkout $COMMIT; done` timed by /usr/bin/time, one warm-up pass, hot
 * cache; today's commits v6.18,v3.4,v5.15), docs/workloads.md §2.c.
 *
 * The trees: one manifest per commit (path, mode, size and, when known, the
 * blob id). By default the real trees of git/git releases shipped in the
 * binary (workloads/git_trees.c, made by tools/git-trees from `git ls-tree -r
 * -l`): checkouts of v2.47.0, v2.20.0 and v2.40.0 in turn, newest, oldest,
 * recent, as mmtests checks out v6.18, v3.4 and v5.15 of the kernel; --commits
 * names any of the shipped releases (v2.20.0 v2.30.0 v2.40.0 v2.47.0) or
 * manifest files (ls-tree -l lines, or mode<TAB>size<TAB>path); with --repo
 * DIR, commits or trees of that git tree (`git -C DIR ls-tree -r -l TREE-ISH`:
 * HEAD~1, HEAD:Documentation; without --commits: HEAD, the root commit and
 * the one in the middle). Each item has a file or more (manifest_load()).
 *
 * One iteration = one pass of the mmtests script: checkouts of commit 1, 2,
 * ..., N in turn, starting from N (the tree is populated with N at setup,
 * like the warm-up pass). mmtests runs one git process; git checks out in one
 * thread (checkout.workers = 1, its default) after refreshing the index with
 * up to 20 preload threads, one per 500 entries (preload-index.c). So by
 * default (checkout=serial) the thread count only sizes that preload: worker 0
 * does everything else. checkout=parallel is git's parallel checkout
 * (checkout.workers = the thread count): every phase is shared. One checkout,
 * phases separated by barriers:
 *   1. worker 0 maps the pack (mmap of a file region in the mm model);
 *   2. refresh the index: lstat every path of the current tree (path lookup
 *      takes down_read on each directory's i_rwsem), by the preload threads;
 *   3. unlink the files that go or change (down_write on the parent);
 *   4. worker 0 removes the directories that go (deepest first);
 *   5. write the files that come or change: mkdir -p, create (down_write on
 *      the parent), read the object's bytes from the mapped pack (page faults
 *      through the mm model: mmap_lock or per-VMA locks), inflate them (a real
 *      byte transform, 4 bytes out per byte in) and write them (a copy into a
 *      page-cache buffer; contents are not kept, sizes are);
 *   6. worker 0 writes the index (index.lock, then rename) and unmaps the pack.
 * The pack is a file of pack_mb MiB whose pages are read in ("from disk") on
 * first use and stay cached (hot cache); each object occupies size / 4 + 16
 * bytes of it (ours), objects wrap around when the pack is full.
 *
 * Metrics (the mmtests Duration table, per iteration): elapsed = wall seconds;
 * system = CPU seconds the workers spent in the modelled kernel (VFS calls,
 * faults, page-cache copies), sampled as the kernel's tick accounting does:
 * a timer on each worker's CPU clock fires every millisecond of its CPU time
 * and the signal handler charges the tick to system or user by a flag the
 * modelled kernel calls set and clear (a plain store, no clock read: reading
 * CLOCK_THREAD_CPUTIME_ID around each call was a syscall per operation, 20%
 * of the samples); a worker's system time is its CPU time times its system
 * share of ticks. user = the rest of the process's CPU seconds. Host user_s/sys_s rows come from the
 * harness as for every workload. Also files written/removed, bytes, and
 * tree_mismatch: the tree after the pass differs from the last commit's
 * manifest (must be 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "barrier.h"
#include "dirtree.h"
#include "git_trees.h"
#include "gitcheckout.h"
#include "mm.h"
#include "wait.h"
#include "workload.h"

extern char **environ;

enum { K_PACK_MB, K_MM_LOCK, K_CHECKOUT, K_KERNEL };
enum { CHECKOUT_SERIAL, CHECKOUT_PARALLEL };

static const struct lab_knob gc_knobs[] = {
	[K_PACK_MB] = { .name = "pack_mb", .type = LAB_KNOB_INT, .def = 256, .min = 1, .max = 4095,
			.help = "size of the mapped pack, MiB (objects wrap around beyond it)" },
	[K_MM_LOCK] = { .name = "mm_lock", .type = LAB_KNOB_ENUM, .def = LAB_MM_LOCK_MMAP,
			.choices = LAB_MM_LOCK_CHOICES, .help = "fault path of the mm model (--mm-lock)" },
	[K_CHECKOUT] = { .name = "checkout", .type = LAB_KNOB_ENUM, .def = CHECKOUT_SERIAL, .choices = "serial|parallel",
			 .help = "serial: git's default (one thread writes; -t threads preload the index); "
				 "parallel: checkout.workers = -t" },
	[K_KERNEL] = { .name = "kernel", .type = LAB_KNOB_ENUM, .def = LAB_KMM_DEFAULT, .choices = LAB_KMM_CHOICES,
		       .help = "the kernel whose fault path the mm model follows (workloads/kmm.h)" },
	{ 0 }
};

#define GITLINK_MODE 0160000u

struct gc_entry {
	char *path;
	uint32_t len, base;		/* base: offset of the last component */
	unsigned mode;
	uint64_t size, blob;
	uint64_t pack_off;
	uint32_t pack_len;
};

struct manifest {
	char label[96];
	struct gc_entry *e;
	int n, cap;
	uint64_t ndirs;			/* distinct directories (not counting gitlinks) */
};

struct plan {
	const struct manifest *from, *to;
	struct gc_entry **rm, **wr;
	int nrm, nwr;
	struct gc_entry **rmdir;	/* entries whose path prefix rmdir_len[i] names a directory */
	uint32_t *rmdir_len;
	int nrmdir;
};

enum { PH_LSTAT, PH_UNLINK, PH_WRITE, PH_NR };

struct gc_worker {
	struct lab_mm_thread t;
	struct lab_utlb tlb;
	uint8_t *out, *pagecache;	/* 16 KiB inflate output, 64 KiB page-cache stand-in */
	size_t pcpos;
	uint64_t written, removed, bytes, lookups, errors, dirs_removed;
	double cpu;			/* the worker's CPU seconds over the pass */
	uint64_t ticks_sys, ticks_user;	/* CPU-clock ticks in / outside the modelled kernel */
	volatile sig_atomic_t in_kernel;
	uint64_t k0_ns, ksys_ns;	/* simulated: CPU clock at kbegin, exact time in the kernel */
	uint32_t sink;
} __lab_cacheline_aligned;

struct gc {
	struct manifest *m;
	int nm;
	struct plan *plan;
	struct lab_page_alloc pa;
	struct lab_mm mm;
	struct lab_mm_file pack;
	struct lab_mm_thread main_t;
	bool pa_ok, mm_ok, pack_ok, fs_ok;
	size_t pack_bytes;
	struct lab_dirtree fs;
	uintptr_t region;		/* the pack mapping of the current checkout */
	struct lab_barrier bar;		/* between phases: every worker (barrier.h) */
	uint32_t *cursor;		/* [checkout][phase] work cursors */
	struct gc_worker *w;
	int nthreads;
	bool parallel;			/* checkout=parallel */
	int inflate_key;		/* simulated: lab_work_key("gitcheckout.inflate") */
};

/* ---- manifests ---------------------------------------------------------------------------------- */

static uint64_t fnv64(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int manifest_add(struct manifest *m, unsigned mode, uint64_t size, const char *path, const char *id);

/* One manifest line: "mode<TAB>size<TAB>path" or ls-tree's "mode type id size<TAB>path". */
static int manifest_line(struct manifest *m, char *line)
{
	char *tab = strchr(line, '\t'), *path, *f[4];
	int nf = 0;
	char *save = NULL, *tok;

	line[strcspn(line, "\n")] = 0;
	if (!tab)
		return *line ? -1 : 0;
	*tab = 0;
	path = tab + 1;
	if (strchr(path, '\t')) {	/* mode<TAB>size<TAB>path */
		char *t2 = strchr(path, '\t');

		*t2 = 0;
		f[0] = line;
		f[1] = NULL;
		f[2] = NULL;
		f[3] = path;
		path = t2 + 1;
		nf = 4;
	} else {
		for (tok = strtok_r(line, " ", &save); tok && nf < 4; tok = strtok_r(NULL, " ", &save))
			f[nf++] = tok;
		if (nf != 4)
			return -1;
		if (strcmp(f[1], "blob") && strcmp(f[1], "commit"))
			return 0;	/* trees do not appear with -r; anything else is skipped */
	}
	if (!*path)
		return -1;
	return manifest_add(m, (unsigned)strtoul(f[0], NULL, 8), strcmp(f[3], "-") ? strtoull(f[3], NULL, 10) : 0,
			    path, f[2]);
}

/* Append an entry; @id = the object id, or NULL (same path, size and mode = same contents). */
static int manifest_add(struct manifest *m, unsigned mode, uint64_t size, const char *path, const char *id)
{
	struct gc_entry *e;

	if (m->n == m->cap) {
		int cap = m->cap ? 2 * m->cap : 1024;
		struct gc_entry *ne = realloc(m->e, (size_t)cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		m->e = ne;
		m->cap = cap;
	}
	e = &m->e[m->n];
	memset(e, 0, sizeof(*e));
	e->mode = mode;
	e->size = size;
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	e->len = (uint32_t)strlen(path);
	e->base = e->len;
	while (e->base > 0 && path[e->base - 1] != '/')
		e->base--;
	if (id)		/* the object id */
		e->blob = fnv64(id, strlen(id));
	else		/* no id in the manifest: same path, size and mode = same contents */
		e->blob = fnv64(path, e->len) ^ (e->size * 0x9e3779b97f4a7c15ull) ^ e->mode;
	m->n++;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct gc_entry *)a)->path, ((const struct gc_entry *)b)->path);
}

static void manifest_free(struct manifest *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->e[i].path);
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* Read lines from @f into @m. */
static int manifest_read(FILE *f, struct manifest *m, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	int r = 0;

	while (getline(&line, &cap, f) > 0) {
		lineno++;
		r = manifest_line(m, line);
		if (r) {
			snprintf(err, errlen, "%s: line %ld is not a manifest line (mode<TAB>size<TAB>path or ls-tree -l)",
				 m->label, lineno);
			break;
		}
	}
	free(line);
	return r;
}

/*
 * Run git with @argv (argv[0] = "git"); its stdout goes to @cb line by line, its complaints to /dev/null.
 * Returns 0, -2 + err when git ran and failed, or -1 + err.
 */
static int run_git(char *const argv[], int (*cb)(void *arg, FILE *f, char *err, size_t errlen), void *arg,
		   char *err, size_t errlen)
{
	posix_spawn_file_actions_t fa;
	int pfd[2], status, r;
	pid_t pid;
	FILE *f;

	if (pipe(pfd)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	posix_spawn_file_actions_addclose(&fa, pfd[1]);
	r = posix_spawnp(&pid, "git", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (r) {
		close(pfd[0]);
		snprintf(err, errlen, "cannot run git: %s", strerror(r));
		return -1;
	}
	f = fdopen(pfd[0], "r");
	r = f ? cb(arg, f, err, errlen) : -1;
	if (f)
		fclose(f);
	else
		close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!r && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		snprintf(err, errlen, "'git %s %s %s %s' failed (exit %d): is it a git repository with that commit?",
			 argv[1], argv[2], argv[3], argv[4] ? argv[4] : "", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		r = -2;
	}
	return r;
}

/*
 * Run git with @argv quietly (its complaints to /dev/null): its exit status (0 for success), or -1 with
 * *@spawn_err set when it cannot be started. With @lines, the lines of its output are counted there.
 */
static int git_quiet(char *const argv[], int *lines, int *spawn_err)
{
	posix_spawn_file_actions_t fa;
	int pfd[2] = { -1, -1 }, status = 0, c;
	pid_t pid;
	FILE *f;

	if (lines && pipe(pfd)) {
		*spawn_err = errno;
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (lines) {
		posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
		posix_spawn_file_actions_addclose(&fa, pfd[0]);
		posix_spawn_file_actions_addclose(&fa, pfd[1]);
	} else {
		posix_spawn_file_actions_adddup2(&fa, 2, 1);
	}
	*spawn_err = posix_spawnp(&pid, "git", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (lines)
		close(pfd[1]);
	if (*spawn_err) {
		if (lines)
			close(pfd[0]);
		return -1;
	}
	if (lines) {
		*lines = 0;
		f = fdopen(pfd[0], "r");
		while (f && (c = getc(f)) != EOF)
			*lines += c == '\n';
		if (f)
			fclose(f);
		else
			close(pfd[0]);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int default_commits(const char *repo, char ***out, int *n, char *err, size_t errlen);
static int manifest_load(const char *repo, const char *item, struct manifest *m, char *err, size_t errlen);

/* The commits the cell takes from @repo without --commits (default_commits()) each load: 0 or -1 + err. */
static int check_default_commits(const char *repo, char *err, size_t errlen)
{
	char why[4200] = "", **names = NULL;
	int n = 0, r = default_commits(repo, &names, &n, why, sizeof(why));

	for (int i = 0; !r && i < n; i++) {
		struct manifest m = { 0 };

		r = manifest_load(repo, names[i], &m, why, sizeof(why));
		manifest_free(&m);
	}
	if (r)
		snprintf(err, errlen, "--repo %s, the commits taken without --commits (HEAD, the root and the middle "
			 "of HEAD's first-parent history): %s", repo, why);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r ? -1 : 0;
}

/*
 * --repo @repo is a directory git reads as a repository (`git -C @repo rev-parse --git-dir`) and, without
 * --commits (@commits NULL), has the two commits the cell takes by default (HEAD's first-parent history,
 * default_commits()), each with a file to check out (manifest_load(), as the cell loads them): 0, or -1
 * with a one-line why in @err, for run to refuse before any cell.
 */
int lab_gc_check_repo(const char *repo, const char *commits, char *err, size_t errlen)
{
	static const char valid[] = "valid: a git repository's directory; without --repo, the git/git releases "
				    "shipped in rwlab";
	char *is_repo[] = { "git", "-C", (char *)repo, "rev-parse", "--git-dir", NULL };
	char *history[] = { "git", "-C", (char *)repo, "rev-list", "--first-parent", "--max-count=2", "HEAD", NULL };
	const char *why = NULL;
	struct stat st;
	int r, spawn_err, n = 0;

	if (!*repo) {
		snprintf(err, errlen, "--repo is empty (%s)", valid);
		return -1;
	}
	if (stat(repo, &st))
		why = errno == ENOENT ? "no such directory" : strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = "not a directory";
	if (why) {
		snprintf(err, errlen, "--repo %s: %s (%s)", repo, why, valid);
		return -1;
	}
	r = git_quiet(is_repo, NULL, &spawn_err);
	if (r < 0) {
		snprintf(err, errlen, "--repo %s: cannot run git: %s", repo, strerror(spawn_err));
		return -1;
	}
	if (r) {
		snprintf(err, errlen, "--repo %s: not a git repository (%s)", repo, valid);
		return -1;
	}
	if (!commits && (git_quiet(history, &n, &spawn_err) || n < 2)) {
		snprintf(err, errlen, "--repo %s: fewer than two commits in HEAD's first-parent history (valid: "
			 "--commits naming two or more of its commits, or a repository with two or more)", repo);
		return -1;
	}
	return commits ? 0 : check_default_commits(repo, err, errlen);
}

static void builtin_names(char *buf, size_t len);

static int builtin_manifest(const char *name, struct manifest *m);
static int read_manifest_cb(void *arg, FILE *f, char *err, size_t errlen);

/*
 * One gitcheckout item @item into @m, read as the cell checks it out and as run checks it before any cell:
 * a manifest file (a regular file at that path), else a tree-ish of @repo (`git ls-tree -r -l --full-tree`,
 * the whole tree when @repo is a subdirectory of a work tree, as git checkout there writes it: a commit,
 * tag or branch, or a tree such as HEAD:Documentation, whose files the checkout writes as a tree's), or
 * without @repo a shipped release; with one entry or more (an empty tree is nothing to check out, and the
 * cell measures nothing). 0, or -1 with a one-line why that begins with @item in @err.
 */
static int manifest_load(const char *repo, const char *item, struct manifest *m, char *err, size_t errlen)
{
	char shipped[128];
	struct stat st;
	int r, found = !stat(item, &st);

	snprintf(m->label, sizeof(m->label), "%s", item);
	if (found && S_ISREG(st.st_mode)) {
		FILE *f = fopen(item, "r");

		if (!f) {
			snprintf(err, errlen, "%s: cannot read it: %s", item, strerror(errno));
			return -1;
		}
		r = manifest_read(f, m, err, errlen);
		fclose(f);
		if (!r && !m->n) {
			snprintf(err, errlen, "%s: an empty manifest file (valid: lines mode<TAB>size<TAB>path or "
				 "ls-tree -l)", item);
			r = -1;
		}
		return r ? -1 : 0;
	}
	if (repo) {
		/* --full-tree: from a subdirectory of a work tree, ls-tree lists that subdirectory's part only */
		char *argv[] = { "git", "-C", (char *)repo, "ls-tree", "-r", "-l", "--full-tree", "--end-of-options",
				 (char *)item, NULL };

		r = run_git(argv, read_manifest_cb, m, err, errlen);
		if (r == -2)
			snprintf(err, errlen, "%s: not a commit or tree of %s nor a manifest file (valid: its commits, "
				 "tags, branches and trees, e.g. HEAD~1 or HEAD:Documentation; or manifest files)", item,
				 repo);
		else if (r)
			snprintf(err + strlen(err), errlen - strlen(err), " (reading %s of %s)", item, repo);
		else if (!m->n) {
			snprintf(err, errlen, "%s: an empty tree in %s: no file to check out (valid: commits and trees "
				 "with files)", item, repo);
			r = -1;
		}
		return r ? -1 : 0;
	}
	r = builtin_manifest(item, m);
	if (r < 0)
		snprintf(err, errlen, "%s: %s", item, r == -ENOMEM ? "out of memory" :
			 "the shipped table has a line longer than a path");
	if (r != 1)
		return r ? -1 : 0;
	builtin_names(shipped, sizeof(shipped));
	snprintf(err, errlen, "%s: %s (shipped: %s; --repo DIR reads commits of a git tree)", item,
		 !found ? "no such manifest file or shipped release" :
		 S_ISDIR(st.st_mode) ? "a directory, not a manifest file nor a shipped release" :
				       "not a regular file, so not a manifest file nor a shipped release", shipped);
	return -1;
}

/*
 * --commits @commits names two or more items and each loads as the cell loads it (manifest_load()): a
 * manifest file, else a commit or tree of --repo @repo, or without --repo a shipped release, with a file to
 * check out. 0, or -1 with a one-line why in @err, for run to refuse before any cell.
 */
int lab_gc_check_commits(const char *repo, const char *commits, char *err, size_t errlen)
{
	char *buf = strdup(commits), *save = NULL, *tok;
	int n = 0, r = 0;

	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(buf, ",", &save); tok && !r; tok = strtok_r(NULL, ",", &save), n++) {
		struct manifest m = { 0 };
		char why[4200] = "";

		r = manifest_load(repo, tok, &m, why, sizeof(why));
		if (r)
			snprintf(err, errlen, "--commits %s", why);
		manifest_free(&m);
	}
	free(buf);
	if (!r && n < 2) {
		snprintf(err, errlen, "--commits '%s': %s, and a checkout goes from one to another (valid: two or more "
			 "commits, shipped releases or manifest files, comma-separated)", commits,
			 n ? "one item" : "no item");
		r = -1;
	}
	return r;
}

static int read_manifest_cb(void *arg, FILE *f, char *err, size_t errlen)
{
	return manifest_read(f, arg, err, errlen);
}

struct revs {
	char **v;
	int n;
};

static int read_revs_cb(void *arg, FILE *f, char *err, size_t errlen)
{
	struct revs *rv = arg;
	char *line = NULL;
	size_t cap = 0;

	(void)err;
	(void)errlen;
	while (getline(&line, &cap, f) > 0) {
		char **nv = realloc(rv->v, (size_t)(rv->n + 1) * sizeof(*nv));

		if (!nv)
			break;
		rv->v = nv;
		line[strcspn(line, "\n")] = 0;
		rv->v[rv->n++] = strdup(line);
	}
	free(line);
	return 0;
}

/* The default: HEAD, the root commit and the middle one of the first-parent history. */
static int default_commits(const char *repo, char ***out, int *n, char *err, size_t errlen)
{
	char *argv[] = { "git", "-C", (char *)repo, "rev-list", "--first-parent", "HEAD", NULL };
	struct revs rv = { 0 };

	if (run_git(argv, read_revs_cb, &rv, err, errlen) || rv.n < 2) {
		if (rv.n < 2 && !*err)
			snprintf(err, errlen, "%s has fewer than two commits: give --commits", repo);
		for (int i = 0; i < rv.n; i++)
			free(rv.v[i]);
		free(rv.v);
		return -1;
	}
	*out = calloc(3, sizeof(char *));
	(*out)[0] = strdup(rv.v[0]);
	(*out)[1] = strdup(rv.v[rv.n - 1]);
	*n = 2;
	if (rv.n >= 3)
		(*out)[(*n)++] = strdup(rv.v[rv.n / 2]);
	for (int i = 0; i < rv.n; i++)
		free(rv.v[i]);
	free(rv.v);
	return 0;
}

/*
 * The shipped release @name ("v2.40.0" or "git-v2.40.0") into @m: 0, 1 if it is not shipped, -ENOMEM, or
 * -EINVAL for a table line longer than a path (tools/git-trees writes none). Each line is parsed from a copy
 * of its own: strtoul, strcspn and strchr on the 190 KB table itself would each read to its end under
 * ASan's strict_string_checks (quadratic: gitcheckout's cells took 5x their time in the ASan tree).
 */
static int builtin_manifest(const char *name, struct manifest *m)
{
	static char path[4096];
	char line[sizeof(path)];
	const char *p = lab_git_trees, *stop = p + strlen(p);
	int col = -1, r = 0;

	if (!strncmp(name, "git-", 4))
		name += 4;
	for (int i = 0; lab_git_tree_names[i]; i++)
		if (!strcmp(lab_git_tree_names[i], name))
			col = i;
	if (col < 0)
		return 1;
	while (p < stop && !r) {
		const char *nl = memchr(p, '\n', (size_t)(stop - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(stop - p);
		const char *c, *val = NULL;
		char *end;
		size_t k, slen;

		if (n >= sizeof(line))
			return -EINVAL;
		memcpy(line, p, n);
		line[n] = 0;
		k = strtoul(line, &end, 10);
		slen = strcspn(end + 1, "\t");
		c = end + 1 + slen + 1;

		memcpy(path + k, end + 1, slen);		/* PREFIX bytes of the last path, then SUFFIX */
		path[k + slen] = 0;
		for (int i = 0; i <= col; i++) {		/* '-' absent, '=' as the release before */
			if (*c != '=')
				val = *c == '-' ? NULL : c;
			c += strcspn(c, " \n") + (c[strcspn(c, " \n")] == ' ');
		}
		if (val) {
			const char *colon = memchr(val, ':', strcspn(val, " \n"));

			r = manifest_add(m, colon ? (unsigned)strtoul(val, NULL, 8) : 0100644,
					 strtoull(colon ? colon + 1 : val, NULL, 10), path, NULL);
		}
		p += n;
	}
	return r;
}

static void builtin_names(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (int i = 0; lab_git_tree_names[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", lab_git_tree_names[i]);
}

static int load_manifests(struct gc *g, const struct lab_run_settings *s, char *err, size_t errlen)
{
	const char *repo = s->repo;
	char **names = NULL;
	int n = 0, r = 0;

	if (s->commits) {
		char *buf = strdup(s->commits), *save = NULL, *tok;

		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			names = realloc(names, (size_t)(n + 1) * sizeof(*names));
			names[n++] = strdup(tok);
		}
		free(buf);
		if (n < 2) {
			snprintf(err, errlen, "--commits needs at least two commits or manifests");
			r = -1;
		}
	} else if (!repo) {		/* the shipped releases, as mmtests' v6.18,v3.4,v5.15 */
		static const char *const def[] = { "v2.47.0", "v2.20.0", "v2.40.0" };

		names = malloc(sizeof(def) / sizeof(def[0]) * sizeof(*names));
		for (n = 0; n < 3; n++)
			names[n] = strdup(def[n]);
	} else if (default_commits(repo, &names, &n, err, errlen)) {
		r = -1;
	}
	g->m = calloc((size_t)(n ? n : 1), sizeof(*g->m));
	g->nm = n;
	for (int i = 0; !r && i < n; i++) {
		struct manifest *m = &g->m[i];

		r = manifest_load(repo, names[i], m, err, errlen);
		if (!r)
			qsort(m->e, (size_t)m->n, sizeof(*m->e), cmp_entry);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* ---- sets of directory names (prefixes of paths) ------------------------------------------------ */

struct strset {
	const char **s;
	uint32_t *len;
	size_t cap, n;
};

static int strset_add(struct strset *t, const char *s, uint32_t len);

static int strset_grow(struct strset *t)
{
	struct strset nt = { calloc(t->cap ? 2 * t->cap : 1024, sizeof(char *)),
			     calloc(t->cap ? 2 * t->cap : 1024, sizeof(uint32_t)), t->cap ? 2 * t->cap : 1024, 0 };

	if (!nt.s || !nt.len) {
		free(nt.s);
		free(nt.len);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->s[i])
			strset_add(&nt, t->s[i], t->len[i]);
	free(t->s);
	free(t->len);
	*t = nt;
	return 0;
}

static bool strset_has(const struct strset *t, const char *s, uint32_t len)
{
	if (!t->cap)
		return false;
	for (size_t i = fnv64(s, len) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		if (!t->s[i])
			return false;
		if (t->len[i] == len && !memcmp(t->s[i], s, len))
			return true;
	}
}

static int strset_add(struct strset *t, const char *s, uint32_t len)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap && strset_grow(t))
		return -ENOMEM;
	for (i = fnv64(s, len) & (t->cap - 1); t->s[i]; i = (i + 1) & (t->cap - 1))
		if (t->len[i] == len && !memcmp(t->s[i], s, len))
			return 0;
	t->s[i] = s;
	t->len[i] = len;
	t->n++;
	return 1;
}

static void strset_free(struct strset *t)
{
	free(t->s);
	free(t->len);
	memset(t, 0, sizeof(*t));
}

/* Every directory of @m: the proper prefixes of its paths. */
static int manifest_dirs(const struct manifest *m, struct strset *set)
{
	for (int i = 0; i < m->n; i++)
		for (uint32_t k = 0; k < m->e[i].len; k++)
			if (m->e[i].path[k] == '/' && strset_add(set, m->e[i].path, k) < 0)
				return -ENOMEM;
	return 0;
}

static uint32_t depth(const char *s, uint32_t len)
{
	uint32_t d = 0;

	for (uint32_t i = 0; i < len; i++)
		d += s[i] == '/';
	return d;
}

static int cmp_rmdir(const void *a, const void *b, void *arg)
{
	const struct plan *p = arg;
	int ia = *(const int *)a, ib = *(const int *)b;
	uint32_t da = depth(p->rmdir[ia]->path, p->rmdir_len[ia]);
	uint32_t db = depth(p->rmdir[ib]->path, p->rmdir_len[ib]);

	return da < db ? 1 : da > db ? -1 : ia - ib;	/* deepest first */
}

/* The work of checking out @to over @from. */
static int make_plan(struct plan *p, const struct manifest *from, const struct manifest *to)
{
	struct strset dfrom = { 0 }, dto = { 0 };
	int i = 0, j = 0, r = -ENOMEM;
	int *order = NULL;

	memset(p, 0, sizeof(*p));
	p->from = from;
	p->to = to;
	p->rm = malloc((size_t)(from->n + 1) * sizeof(*p->rm));
	p->wr = malloc((size_t)(to->n + 1) * sizeof(*p->wr));
	if (!p->rm || !p->wr)
		goto out;
	while (i < from->n || j < to->n) {
		int c = i == from->n ? 1 : j == to->n ? -1 : strcmp(from->e[i].path, to->e[j].path);

		if (c < 0) {
			p->rm[p->nrm++] = &from->e[i++];
		} else if (c > 0) {
			p->wr[p->nwr++] = &to->e[j++];
		} else {
			if (from->e[i].blob != to->e[j].blob || from->e[i].mode != to->e[j].mode) {
				p->rm[p->nrm++] = &from->e[i];
				p->wr[p->nwr++] = &to->e[j];
			}
			i++;
			j++;
		}
	}
	if (manifest_dirs(from, &dfrom) || manifest_dirs(to, &dto))
		goto out;
	p->rmdir = malloc((dfrom.n + 1) * sizeof(*p->rmdir));
	p->rmdir_len = malloc((dfrom.n + 1) * sizeof(*p->rmdir_len));
	if (!p->rmdir || !p->rmdir_len)
		goto out;
	/* Directories of @from that @to does not have, named by a path that has them as a prefix. */
	for (int k = 0; k < from->n; k++)
		for (uint32_t q = 0; q < from->e[k].len; q++) {
			const char *s = from->e[k].path;
			bool dup = false;

			if (s[q] != '/' || strset_has(&dto, s, q))
				continue;
			for (int z = p->nrmdir - 1; z >= 0 && !dup; z--)	/* sorted paths: duplicates are recent */
				dup = p->rmdir_len[z] == q && !memcmp(p->rmdir[z]->path, s, q);
			if (dup)
				continue;
			p->rmdir[p->nrmdir] = &from->e[k];
			p->rmdir_len[p->nrmdir++] = q;
		}
	/* deepest first */
	order = malloc((size_t)(p->nrmdir + 1) * sizeof(*order));
	if (!order)
		goto out;
	for (int k = 0; k < p->nrmdir; k++)
		order[k] = k;
	qsort_r(order, (size_t)p->nrmdir, sizeof(*order), cmp_rmdir, p);
	{
		struct gc_entry **e2 = malloc((size_t)(p->nrmdir + 1) * sizeof(*e2));
		uint32_t *l2 = malloc((size_t)(p->nrmdir + 1) * sizeof(*l2));

		if (!e2 || !l2) {
			free(e2);
			free(l2);
			goto out;
		}
		for (int k = 0; k < p->nrmdir; k++) {
			e2[k] = p->rmdir[order[k]];
			l2[k] = p->rmdir_len[order[k]];
		}
		free(p->rmdir);
		free(p->rmdir_len);
		p->rmdir = e2;
		p->rmdir_len = l2;
	}
	r = 0;
out:
	free(order);
	strset_free(&dfrom);
	strset_free(&dto);
	return r;
}

static void plan_free(struct plan *p)
{
	free(p->rm);
	free(p->wr);
	free(p->rmdir);
	free(p->rmdir_len);
}

/* Place every distinct object of every manifest in the pack. */
static int place_objects(struct gc *g)
{
	size_t cap = 1024, used = 0;
	uint64_t cursor = 0;
	struct slot {
		uint64_t blob, off;
	} *tab;

	for (int i = 0; i < g->nm; i++)
		used += (size_t)g->m[i].n;
	while (2 * used > cap)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (int i = 0; i < g->nm; i++)
		for (int k = 0; k < g->m[i].n; k++) {
			struct gc_entry *e = &g->m[i].e[k];
			uint64_t len = e->size / 4 + 16;
			size_t h = (size_t)(e->blob * 0x9e3779b97f4a7c15ull) & (cap - 1);

			if (len > g->pack_bytes)
				len = g->pack_bytes;
			e->pack_len = (uint32_t)len;
			while (tab[h].blob && tab[h].blob != e->blob + 1)
				h = (h + 1) & (cap - 1);
			if (tab[h].blob) {
				e->pack_off = tab[h].off;
				continue;
			}
			if (cursor % g->pack_bytes + len > g->pack_bytes)
				cursor += g->pack_bytes - cursor % g->pack_bytes;	/* wrap: no object straddles the end */
			e->pack_off = cursor % g->pack_bytes;
			cursor += (len + 7) & ~7ull;
			tab[h].blob = e->blob + 1;
			tab[h].off = e->pack_off;
		}
	free(tab);
	return 0;
}

/* ---- the model kernel calls, accounted by ticks ------------------------------------------------- */

#if LAB_SIM
/*
 * Simulated: no host timers (every task runs on one host thread); kbegin and
 * kend add up the task's exact simulated CPU time inside the modelled kernel
 * (a clock read is free in virtual time).
 */
static int tick_start(struct gc_worker *w)
{
	w->cpu = (double)lab_task_cpu_ns() / 1e9;
	return -1;
}

static void tick_stop(struct gc_worker *w, bool started)
{
	(void)started;
	w->cpu = (double)lab_task_cpu_ns() / 1e9 - w->cpu;
}

static inline void kbegin(struct gc_worker *w)
{
	w->k0_ns = lab_task_cpu_ns();
}

static inline void kend(struct gc_worker *w)
{
	w->ksys_ns += lab_task_cpu_ns() - w->k0_ns;
}
#else
#define TICK_NS 1000000			/* one tick per millisecond of a worker's CPU time */
#define TICK_SIGNAL (SIGRTMIN + 2)

static __thread struct gc_worker *tick_worker;
static __thread timer_t tick_timer;

/* account_process_tick(): charge the tick (and any it coalesced) to where the worker is. */
static void on_tick(int sig, siginfo_t *si, void *uc)
{
	struct gc_worker *w = tick_worker;
	int over;

	(void)sig;
	(void)si;
	(void)uc;
	if (!w)
		return;
	over = timer_getoverrun(tick_timer);
	if (w->in_kernel)
		w->ticks_sys += 1 + (over > 0 ? (uint64_t)over : 0);
	else
		w->ticks_user += 1 + (over > 0 ? (uint64_t)over : 0);
}

static void tick_install(void)
{
	struct sigaction sa = { 0 };

	sa.sa_sigaction = on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(TICK_SIGNAL, &sa, NULL);
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Start this thread's tick timer on its own CPU clock. Returns 0 or -1 (then no system time is sampled). */
static int tick_start(struct gc_worker *w)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct sigevent sev = { 0 };
	struct itimerspec its = { { 0, TICK_NS }, { 0, TICK_NS } };
	clockid_t clk;

	pthread_once(&once, tick_install);
	w->cpu = thread_cpu_s();
	tick_worker = w;
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = TICK_SIGNAL;
	sev._sigev_un._tid = gettid();
	if (pthread_getcpuclockid(pthread_self(), &clk) || timer_create(clk, &sev, &tick_timer))
		return -1;
	if (timer_settime(tick_timer, 0, &its, NULL)) {
		timer_delete(tick_timer);
		return -1;
	}
	return 0;
}

static void tick_stop(struct gc_worker *w, bool started)
{
	if (started)
		timer_delete(tick_timer);
	tick_worker = NULL;
	w->cpu = thread_cpu_s() - w->cpu;
}

/* In and out of the modelled kernel: one store each, read by the tick. */
static inline void kbegin(struct gc_worker *w)
{
	w->in_kernel = 1;
	__asm__ __volatile__("" ::: "memory");
}

static inline void kend(struct gc_worker *w)
{
	__asm__ __volatile__("" ::: "memory");
	w->in_kernel = 0;
}

#endif

/* write(2)'s copy into the page cache: page by page into the worker's 64 KiB stand-in. */
static void pc_write(struct gc_worker *w, const uint8_t *src, size_t n)
{
	for (size_t k = 0; k < n; k += LAB_PAGE_SIZE) {
		size_t c = n - k < LAB_PAGE_SIZE ? n - k : LAB_PAGE_SIZE;

		memcpy(w->pagecache + w->pcpos, src + k, c);
		lab_copy_work(c);
		w->pcpos = (w->pcpos + LAB_PAGE_SIZE) % (64 << 10);
	}
}

static void pack_fill(void *arg, size_t pgoff, void *page)
{
	uint64_t x = (pgoff + 1) * 0x9e3779b97f4a7c15ull, *p = page;

	(void)arg;
	for (size_t i = 0; i < LAB_PAGE_SIZE / sizeof(*p); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = x;
	}
}

/* Claim the next batch of @n items of phase @ph of checkout @ck. Returns the first index. */
static inline uint32_t claim(struct gc *g, int ck, int ph, uint32_t batch)
{
	return atomic_fetch_add_relaxed(&g->cursor[ck * PH_NR + ph], batch);
}

/* The directory entry of @e's parent, by a path walk. */
static struct lab_dentry *parent_of(struct gc *g, struct gc_worker *w, const struct gc_entry *e)
{
	w->lookups++;
	return lab_dt_lookup(&g->fs, NULL, e->path, e->base);
}

/*
 * inflate (user space): @n bytes of output into @out from @src (@inlen
 * bytes), 4 bytes out per byte in, a running state like a decoder's; byte k
 * of this output comes from input byte (@o + k) / 4, wrapping (*@j: the input
 * cursor, no division per byte). Returns the new state.
 */
static uint32_t inflate_chunk(uint8_t *out, const uint8_t *src, size_t inlen, size_t o, size_t n, size_t *j,
			      uint32_t state)
{
	for (size_t k = 0; k < n; k++) {
		uint8_t b = src[*j];

		state = state * 31u + b;
		out[k] = (uint8_t)(b ^ (state >> 7) ^ (uint8_t)k);
		if (((o + k) & 3) == 3 && ++*j == inlen)
			*j = 0;
	}
	return state;
}

uint32_t lab_gc_inflate_bench(uint8_t *out, const uint8_t *src, size_t inlen, size_t outlen)
{
	uint32_t state = 1;
	size_t j = 0;

	for (size_t o = 0; o < outlen; o += 16384)
		state = inflate_chunk(out, src, inlen, o, outlen - o < 16384 ? outlen - o : 16384, &j, state);
	return state;
}

/* Write one file: create it, read its object through the mapped pack, inflate, write. */
static void write_entry(struct gc *g, struct gc_worker *w, const struct gc_entry *e)
{
	struct lab_dentry *dir, *d;
	uint64_t left = e->size, outpos = 0;
	uint32_t state = (uint32_t)e->blob;
	int r;

	kbegin(w);
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* open(O_CREAT) (the mkdir -p of new directories not charged) */
	r = lab_dt_mkdir_parents(&g->fs, e->path, e->len, &dir);
	if (!r)
		r = lab_dt_create(&g->fs, dir, e->path + e->base, e->len - e->base, e->mode == GITLINK_MODE,
				  e->mode, &d);
	kend(w);
	if (r) {
		w->errors++;
		return;
	}
	if (e->mode == GITLINK_MODE) {
		w->written++;
		return;			/* a submodule: an empty directory */
	}
	for (uint64_t in = 0; in < e->pack_len && left;) {
		uintptr_t a = g->region + e->pack_off + in;
		size_t inlen = LAB_PAGE_SIZE - (a & (LAB_PAGE_SIZE - 1)), outlen;
		const uint8_t *src;

		if (inlen > e->pack_len - in)
			inlen = e->pack_len - in;
		kbegin(w);
		src = (const uint8_t *)lab_utlb_get(&g->mm, &w->tlb, a, false, &w->t);	/* page fault */
		kend(w);
		if (!src) {
			w->errors++;
			return;
		}
		/* inflate (user space): 4 bytes out per byte in, a running state like a decoder's */
		outlen = 4 * inlen < left ? 4 * inlen : left;
		if (in + inlen >= e->pack_len)
			outlen = left;		/* the last chunk yields the rest */
		for (size_t o = 0, j = 0; o < outlen;) {
			size_t n = outlen - o < 16384 ? outlen - o : 16384;

			state = inflate_chunk(w->out, src, inlen, o, n, &j, state);
			lab_user_work(g->inflate_key, (double)n);
			/* write(2): copy into the page cache, page by page */
			kbegin(w);
			lab_kernel_work(LAB_KWORK_SYSCALL);
			pc_write(w, w->out, n);
			kend(w);
			o += n;
		}
		outpos += outlen;
		left -= outlen;
		in += inlen;
	}
	kbegin(w);
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* close */
	kend(w);
	w->sink += state;
	d->size = outpos;
	w->bytes += outpos;
	w->written++;
}

static void unlink_entry(struct gc *g, struct gc_worker *w, const struct gc_entry *e)
{
	struct lab_dentry *dir;
	int r = -ENOENT;

	kbegin(w);
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* unlink or rmdir */
	dir = parent_of(g, w, e);
	if (dir)
		r = e->mode == GITLINK_MODE ? lab_dt_rmdir(&g->fs, dir, e->path + e->base, e->len - e->base)
					    : lab_dt_unlink(&g->fs, dir, e->path + e->base, e->len - e->base);
	kend(w);
	if (r)
		w->errors++;
	else
		w->removed++;
}

/* Worker 0 alone: the directories that go, deepest first. */
static void remove_dirs(struct gc *g, struct gc_worker *w, const struct plan *p)
{
	kbegin(w);
	for (int k = 0; k < p->nrmdir; k++) {
		const char *s = p->rmdir[k]->path;
		uint32_t len = p->rmdir_len[k], base = len;
		struct lab_dentry *dir;

		while (base > 0 && s[base - 1] != '/')
			base--;
		lab_kernel_work(LAB_KWORK_SYSCALL);	/* rmdir */
		dir = lab_dt_lookup(&g->fs, NULL, s, base);
		if (!dir || lab_dt_rmdir(&g->fs, dir, s + base, len - base))
			w->errors++;
		else
			w->dirs_removed++;
	}
	kend(w);
}

/* Worker 0 alone: write index.lock (62 bytes + path per entry, 8-aligned), rename it to index. */
static void write_index(struct gc *g, struct gc_worker *w, const struct manifest *m)
{
	struct lab_dentry *d;
	uint64_t bytes = 12;

	kbegin(w);
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* open(index.lock) */
	if (lab_dt_create(&g->fs, g->fs.root, "index.lock", 10, false, 0100644, &d)) {
		w->errors++;
		kend(w);
		return;
	}
	kend(w);
	for (int i = 0; i < m->n; i++) {
		size_t n = (62 + m->e[i].len + 8) & ~(size_t)7;

		memcpy(w->out, m->e[i].path, m->e[i].len);
		w->sink += (uint32_t)(m->e[i].size ^ m->e[i].blob);
		bytes += n;
		if (bytes % (16 << 10) < n) {	/* flush a page-cache page every 16 KiB */
			kbegin(w);
			lab_kernel_work(LAB_KWORK_SYSCALL);
			pc_write(w, w->out, 16 << 10);
			kend(w);
		}
	}
	d->size = bytes + 20;		/* + the trailing SHA-1 */
	kbegin(w);
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* close */
	lab_kernel_work(LAB_KWORK_SYSCALL);	/* rename */
	if (lab_dt_rename(&g->fs, g->fs.root, "index.lock", "index"))
		w->errors++;
	kend(w);
}

/* ---- workload ops ---------------------------------------------------------------------------------- */

static void gc_free(struct gc *g)
{
	if (g->fs_ok)
		lab_dirtree_destroy(&g->fs);
	if (g->mm_ok)
		lab_mm_destroy(&g->mm, &g->main_t);
	if (g->pack_ok)
		lab_mm_file_destroy(&g->pack, &g->main_t);
	lab_mm_rcu_barrier();
	for (int i = 0; g->w && i < g->nthreads; i++) {
		lab_mm_thread_drain(&g->w[i].t);
		free(g->w[i].out);
		free(g->w[i].pagecache);
	}
	if (g->pa_ok) {
		lab_mm_thread_drain(&g->main_t);
		lab_page_alloc_destroy(&g->pa);
	}
	for (int i = 0; g->plan && i < g->nm; i++)
		plan_free(&g->plan[i]);
	for (int i = 0; g->m && i < g->nm; i++)
		manifest_free(&g->m[i]);
	free(g->plan);
	free(g->m);
	free(g->w);
	free(g->cursor);
	free(g);
}

/* Fill the tree with manifest @m (setup: no workers, no timing). */
static int populate(struct gc *g, const struct manifest *m)
{
	for (int i = 0; i < m->n; i++) {
		const struct gc_entry *e = &m->e[i];
		struct lab_dentry *dir, *d;
		int r = lab_dt_mkdir_parents(&g->fs, e->path, e->len, &dir);

		if (!r)
			r = lab_dt_create(&g->fs, dir, e->path + e->base, e->len - e->base, e->mode == GITLINK_MODE,
					  e->mode, &d);
		if (r)
			return r;
		d->size = e->size;
	}
	return 0;
}

static int gc_setup(void **state, const struct lab_cell *cell, char *err, size_t errlen)
{
	struct gc *g = calloc(1, sizeof(*g));
	struct strset ds = { 0 };
	int r;

	if (!g) {
		snprintf(err, errlen, "gitcheckout: out of memory");
		return -1;
	}
	*err = 0;
	g->nthreads = cell->nthreads;
	g->inflate_key = lab_work_key("gitcheckout.inflate");
	if (g->inflate_key < 0) {
		snprintf(err, errlen, "gitcheckout: the machine file has no cost.work.gitcheckout.inflate_ns "
			 "(rwlab-work-cost measures it: results/sim/calibration/)");
		gc_free(g);
		return -1;
	}
	g->parallel = cell->wl->knob[K_CHECKOUT] == CHECKOUT_PARALLEL;
	g->pack_bytes = (size_t)cell->wl->knob[K_PACK_MB] << 20;
	if (load_manifests(g, cell->run, err, errlen)) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "gitcheckout: %s", msg);
		gc_free(g);
		return -1;
	}
	for (int i = 0; i < g->nm; i++) {
		manifest_dirs(&g->m[i], &ds);
		g->m[i].ndirs = ds.n;
		strset_free(&ds);
	}
	g->plan = calloc((unsigned)g->nm, sizeof(*g->plan));
	g->cursor = calloc((unsigned)g->nm * PH_NR, sizeof(*g->cursor));
	g->w = aligned_alloc(LAB_CACHELINE, (size_t)g->nthreads * sizeof(*g->w));
	if (!g->plan || !g->cursor || !g->w || place_objects(g))
		goto nomem;
	memset(g->w, 0, (size_t)g->nthreads * sizeof(*g->w));
	for (int i = 0; i < g->nm; i++)
		if (make_plan(&g->plan[i], &g->m[(i + g->nm - 1) % g->nm], &g->m[i]))
			goto nomem;
	if (LAB_SIM && lab_kpath_check()) {
		snprintf(err, errlen, "gitcheckout: the machine file has no %s (the fault path's cost model, workloads/kmm.h)",
			 lab_kpath_check());
		gc_free(g);
		return -1;
	}
	if (lab_page_alloc_init(&g->pa, (g->pack_bytes >> 20) + 64))
		goto nomem;
	g->pa_ok = true;
	if (lab_page_alloc_kernel(&g->pa, (enum lab_kmm_ver)cell->wl->knob[K_KERNEL], LAB_KMM_MEMCG_DEPTH))
		goto nomem;
	lab_mm_thread_init(&g->main_t, &g->pa);
	r = lab_mm_init(&g->mm, cell->lock, (enum lab_mm_lock_mode)cell->wl->knob[K_MM_LOCK], &g->pa);
	if (r) {
		snprintf(err, errlen, "gitcheckout: %s", r == -EINVAL ? "per-VMA locks need down_read_trylock"
									: "cannot build the mm");
		gc_free(g);
		return -1;
	}
	g->mm_ok = true;
	if (lab_mm_file_init(&g->pack, g->pack_bytes >> LAB_PAGE_SHIFT, &g->pa, pack_fill, NULL))
		goto nomem;
	g->pack_ok = true;
	if (lab_mm_file_i_mmap(&g->pack, cell->lock))	/* git's mmap/munmap of the pack take its i_mmap_rwsem */
		goto nomem;
	if (lab_dirtree_init(&g->fs, cell->lock, NULL))
		goto nomem;
	g->fs_ok = true;
	if (populate(g, &g->m[g->nm - 1]))
		goto nomem;
	for (int i = 0; i < g->nthreads; i++) {
		lab_mm_thread_init(&g->w[i].t, &g->pa);
		g->w[i].out = malloc(16384);
		g->w[i].pagecache = malloc(64 << 10);
		if (!g->w[i].out || !g->w[i].pagecache)
			goto nomem;
	}
	lab_barrier_init(&g->bar, (unsigned int)g->nthreads);
	*state = g;
	return 0;
nomem:
	snprintf(err, errlen, "gitcheckout: out of memory");
	gc_free(g);
	return -1;
}

static int gc_prepare(void *state, const struct lab_cell *cell)
{
	struct gc *g = state;

	(void)cell;
	memset(g->cursor, 0, (size_t)g->nm * PH_NR * sizeof(*g->cursor));
	for (int i = 0; i < g->nthreads; i++) {
		struct gc_worker *w = &g->w[i];

		w->written = w->removed = w->bytes = w->lookups = w->errors = w->dirs_removed = 0;
		w->cpu = 0;
		w->ticks_sys = w->ticks_user = 0;
		w->ksys_ns = 0;
		memset(w->t.ev, 0, sizeof(w->t.ev));
	}
	return 0;
}

#define BATCH 8u
#define PRELOAD_PER_THREAD 500		/* git preload-index.c: THREAD_COST */
#define PRELOAD_MAX 20			/* ... and MAX_PARALLEL */

/* Threads that refresh the index of @n entries: git's preload threads, or every worker in parallel mode. */
static int preload_threads(const struct gc *g, int n)
{
	int t = n / PRELOAD_PER_THREAD;

	if (g->parallel)
		return g->nthreads;
	t = t < 1 ? 1 : t > PRELOAD_MAX ? PRELOAD_MAX : t;
	return t < g->nthreads ? t : g->nthreads;
}

static void gc_checkout(struct gc *g, struct gc_worker *w, int id, int ck)
{
	const struct plan *p = &g->plan[ck];
	bool lead = id == 0, share = g->parallel;
	uint32_t i;

	lab_utlb_flush(&w->tlb);
	/* refresh the index: lstat every path of the tree we are on */
	if (id < preload_threads(g, p->from->n))
		while ((i = claim(g, ck, PH_LSTAT, 4 * BATCH)) < (uint32_t)p->from->n)
			for (uint32_t k = i; k < i + 4 * BATCH && k < (uint32_t)p->from->n; k++) {
				const struct gc_entry *e = &p->from->e[k];

				kbegin(w);
				lab_kernel_work(LAB_KWORK_SYSCALL);	/* lstat */
				w->lookups++;
				if (!lab_dt_lookup(&g->fs, NULL, e->path, e->len))
					w->errors++;
				kend(w);
			}
	lab_barrier_wait(&g->bar);
	if (lead || share)
		while ((i = claim(g, ck, PH_UNLINK, BATCH)) < (uint32_t)p->nrm)
			for (uint32_t k = i; k < i + BATCH && k < (uint32_t)p->nrm; k++)
				unlink_entry(g, w, p->rm[k]);
	if (share)
		lab_barrier_wait(&g->bar);
	if (lead)
		remove_dirs(g, w, p);
	if (share)
		lab_barrier_wait(&g->bar);
	if (lead || share)
		while ((i = claim(g, ck, PH_WRITE, BATCH)) < (uint32_t)p->nwr)
			for (uint32_t k = i; k < i + BATCH && k < (uint32_t)p->nwr; k++)
				write_entry(g, w, p->wr[k]);
	if (share)
		lab_barrier_wait(&g->bar);
	if (lead) {
		write_index(g, w, p->to);
		kbegin(w);
		lab_kernel_work(LAB_KWORK_SYSCALL);
		if (lab_mm_munmap(&g->mm, g->region, g->pack_bytes, &w->t))
			w->errors++;
		kend(w);
	}
}

static void gc_worker(void *state, struct lab_worker *lw)
{
	struct gc *g = state;
	struct gc_worker *w = &g->w[lw->id];
	bool lead = lw->id == 0, ticking;

	lab_rcu_thread_online();
	ticking = !tick_start(w);
	for (int ck = 0; ck < g->nm; ck++) {
		if (lead) {
			kbegin(w);
			lab_kernel_work(LAB_KWORK_SYSCALL);
			g->region = lab_mm_mmap(&g->mm, g->pack_bytes, LAB_VM_READ, &g->pack, 0);
			kend(w);
		}
		lab_barrier_wait(&g->bar);
		if (!g->region) {
			w->errors++;
			break;
		}
		gc_checkout(g, w, lw->id, ck);
	}
	tick_stop(w, ticking);
	lw->ops = (uint64_t)g->nm;
}

static void gc_metrics(void *state, const struct lab_iter *it, struct lab_sink *sink)
{
	struct gc *g = state;
	const struct manifest *last = &g->m[g->nm - 1];
	uint64_t written = 0, removed = 0, bytes = 0, lookups = 0, errors = 0, dirs = 0, ev[LAB_MM_EV_NR] = { 0 };
	uint64_t files = 0, ndirs = 0, want_files = 0, want_dirs = 0;
	struct lab_dentry *idx;
	double ksys = 0, cpu = it->user_s + it->sys_s;

	for (int i = 0; i < g->nthreads; i++) {
		const struct gc_worker *w = &g->w[i];

		written += w->written;
		removed += w->removed;
		bytes += w->bytes;
		lookups += w->lookups;
		errors += w->errors;
		dirs += w->dirs_removed;
		if (LAB_SIM)
			ksys += (double)w->ksys_ns / 1e9;
		else if (w->ticks_sys + w->ticks_user)
			ksys += w->cpu * (double)w->ticks_sys / (double)(w->ticks_sys + w->ticks_user);
		for (int e = 0; e < LAB_MM_EV_NR; e++)
			ev[e] += w->t.ev[e];
	}
	/* The tree must now be the last commit's: files + gitlinks + directories + root + index. */
	lab_dt_count(&g->fs, g->fs.root, &files, &ndirs);
	for (int i = 0; i < last->n; i++) {
		if (last->e[i].mode == GITLINK_MODE)
			want_dirs++;
		else
			want_files++;
	}
	want_dirs += last->ndirs + 1;
	idx = lab_dt_lookup(&g->fs, NULL, "index", 5);
	want_files += idx ? 1 : 0;
	lab_emit(sink, "elapsed", it->wall_s, "s", LAB_BETTER_LOWER);
	lab_emit(sink, "user", cpu - ksys > 0 ? cpu - ksys : 0, "s", LAB_BETTER_LOWER);
	lab_emit(sink, "system", ksys, "s", LAB_BETTER_LOWER);
	lab_emit(sink, "checkouts", (double)g->nm, "count", LAB_BETTER_NONE);
	lab_emit(sink, "files_written", (double)written, "files", LAB_BETTER_NONE);
	lab_emit(sink, "files_removed", (double)removed, "files", LAB_BETTER_NONE);
	lab_emit(sink, "dirs_removed", (double)dirs, "dirs", LAB_BETTER_NONE);
	lab_emit(sink, "bytes_written", (double)bytes, "bytes", LAB_BETTER_NONE);
	lab_emit(sink, "lookups", (double)lookups, "count", LAB_BETTER_NONE);
	lab_emit(sink, "errors", (double)errors, "count", LAB_BETTER_NONE);
	lab_emit(sink, "tree_files", (double)files, "files", LAB_BETTER_NONE);
	lab_emit(sink, "tree_dirs", (double)ndirs, "dirs", LAB_BETTER_NONE);
	lab_emit(sink, "tree_mismatch",
		 (double)((files > want_files ? files - want_files : want_files - files) +
			  (ndirs > want_dirs ? ndirs - want_dirs : want_dirs - ndirs) + (idx ? 0 : 1)),
		 "entries", LAB_BETTER_NONE);
	for (int e = 0; e < LAB_MM_EV_NR; e++)
		lab_emit(sink, lab_mm_event_names[e], (double)ev[e], "count", LAB_BETTER_NONE);
}

/*
 * Per cell (nothing is shared: the tree's directories carry the variant's
 * locks): the manifests, plans and tree, the pack's pages as the checkouts
 * touch them, and per thread its output and page-cache buffers. Measured at
 * the defaults (pack_mb=256, the shipped releases): 33.4 MB peak RSS at 1
 * and 2 threads with rwlab's own 5.4 MB in it (results/harness/README.md).
 */
static void gc_footprint(const struct lab_workload_conf *wl, int nthreads, size_t *per_cell, size_t *shared)
{
	*shared = 0;
	*per_cell = (24ul << 20) + ((size_t)wl->knob[K_PACK_MB] << 20) / 64 + (size_t)nthreads * (80ul << 10);
}

static void gc_teardown(void *state)
{
	gc_free(state);
}

const struct lab_workload_ops lab_workload_gitcheckout = {
	.name = "gitcheckout",
	.simulated = true,
	.summary = "git checkout between commits of a real tree: per-directory rwsems + pack faults; Duration",
	.cite = "mmtests gitcheckout (GITCHECKOUT_COMMITS, hot cache); docs/workloads.md §2.c",
	.kind = LAB_WL_WORK,
	.work_split = true,
	.knobs = gc_knobs,
	.headline = "elapsed,user,system",
	.needs_exclusion = true,
	.setup = gc_setup,
	.prepare = gc_prepare,
	.worker = gc_worker,
	.metrics = gc_metrics,
	.teardown = gc_teardown,
	.footprint = gc_footprint,
	.size_knob = "pack_mb",
};
