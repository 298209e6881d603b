/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab exec`: a real program as a workload of the matrix.
 *
 *   rwlab exec -l VARIANTS [-n N] [--metric [NAME[:UNIT][:higher|:lower]=]REGEX]...
 *              [-t N] [-w LABEL] [-o FILE.csv] [-q] [--no-report] [--force] -- CMD [ARGS...]
 *
 * Runs CMD once per variant and iteration, interleaved (iteration 0 on every
 * variant, then iteration 1, ...), each time with build/librwlab-preload.so
 * in LD_PRELOAD and RWLAB_LOCK set to the variant (or "passthrough": glibc's
 * own lock, observed; or "none": CMD as it runs without rwlab, the baseline).
 * Before any run it refuses a CMD the preload cannot interpose: a static
 * program, or one that imports no pthread_rwlock_* function, nor do the
 * libraries it loads (elfsym.h; --force runs it anyway: a shell or a program
 * that dlopen()s its library). Per run it records, as rwlab CSV rows:
 *   wall_s, user_s, sys_s (s; wait4 rusage of CMD and its children),
 *   nvcsw, nivcsw (voluntary / involuntary context switches), exit_status
 *   (and, when it is not 0, cell_failed: report leaves the variant out),
 *   the preload's statistics (preload.*, event.*, site.*: summed over every
 *   process CMD started; the wait percentiles and maximum take the largest),
 *   and one metric per --metric: the first parenthesised group of the last
 *   match of REGEX (POSIX extended) in CMD's standard output, as a number.
 * The threads column is -t's, else the preload's measure (the most threads
 * that used locks at once, in the process that had the most), the most of
 * the first round's runs: their rows are written when that round has run.
 * Then prints the comparison table (report's table format) of the metrics
 * that a variant without a failed run has rows of.
 *
 * Its option table is exec_opts below (cli.h); lab_exec_cmd, at the end, is its entry in cmds.h.
 *
 * Threading: single-threaded; blocks until every run has finished.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "context.h"
#include "csv.h"
#include "elfsym.h"
#include "env.h"
#include "report.h"
#include "rwsem.h"
#include "stop.h"
#include "threads.h"
#include "wait.h"

#ifndef LAB_INSTALL_LIBDIR
#define LAB_INSTALL_LIBDIR "lib"
#endif

#define EXEC_MAX_LOCKS 32
#define EXEC_MAX_METRICS 16
#define EXEC_OUT_MAX (64u << 20)	/* CMD output kept for --metric */

struct exec_metric {
	char name[64], unit[64];
	const char *better, *regex;	/* regex: as given (in argv) */
	regex_t re;
};

struct exec_opts {
	const char *prog;
	char locks[EXEC_MAX_LOCKS][LAB_SPEC_MAX];	/* variant labels, or "passthrough" */
	int nlocks;
	long iterations, threads;	/* threads: -t, or -1: the preload's measure (exec_used) */
	struct exec_metric metric[EXEC_MAX_METRICS];
	int nmetrics;
	const char *csv, *label;
	char labelbuf[160];
	bool quiet, no_report, force;
	char path[PATH_MAX];		/* CMD's file, as execvp finds it */
	char preload[PATH_MAX];
	char **cmd;
};

/* Adding an option: one entry here and one case in exec_parse()'s switch. */
static const struct lab_opt exec_opts[] = {
	{ "lock", 'l', 'l', "LIST", "variants, NAME[:key=val,...], passthrough (glibc's own lock, observed), none "
	  "(no preload: the baseline column) or all; each variant needs both trylocks; null (no exclusion) is left "
	  "out", NULL, NULL,
	  LAB_COMP_EXEC_VARIANTS, NULL, 0, 0 },
	{ "iterations", 'n', 'n', "N", "runs per variant, interleaved across variants", "5", NULL, 0, NULL, 1, 100000 },
	{ "metric", 0, 'M', "SPEC", "[NAME[:UNIT][:higher|:lower]=]REGEX: the first group of REGEX's last match in "
	  "CMD's standard output is metric NAME (default metric1, metric2, ...) in UNIT (default NAME); "
	  "repeatable", NULL, NULL, 0, NULL, 0, 0 },
	{ "threads", 't', 't', "N", "the threads column of the rows (CMD's own thread count)",
	  "the most threads that used locks at once in the first round, as the preload measures it", NULL, 0, NULL,
	  1, 1 << 20 },
	{ "workload", 'w', 'w', "LABEL", "the workload column", "CMD's name and arguments", NULL, 0, NULL, 0, 0 },
	{ "csv", 'o', 'o', "FILE", "results CSV", "rwlab-exec-<date>-<pid>.csv", NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ "quiet", 'q', 'q', NULL, "only errors and warnings on stderr: no per-run line, note or results line", NULL,
	  NULL, 0, NULL, 0, 0 },
	{ "no-report", 0, 'R', NULL, "do not print the table at the end", NULL, NULL, 0, NULL, 0, 0 },
	{ "force", 0, 'F', NULL, "run CMD even when it imports no pthread_rwlock_* function (a shell or a "
	  "launcher that starts the real program, or a program that dlopen()s its library)", NULL, NULL, 0,
	  NULL, 0, 0 },
	{ 0 }
};

static const char exec_more[] =
	"Options end at CMD (or at --): CMD's own options go to CMD. The preload is\n"
	"librwlab-preload.so beside rwlab, or $RWLAB_PRELOAD. CMD must be dynamically\n"
	"linked and import pthread_rwlock_* (itself or in a library it loads): exec\n"
	"refuses it otherwise, before any run. none in -l, wherever it stands, runs CMD\n"
	"without the preload: the baseline column (else passthrough, else the first).\n"
	"Exit status: 0 every run exited 0; 1 a run failed (its variant is marked\n"
	"cell_failed, and left out of the table), or -o could not be written (the\n"
	"runs stop there); 2 bad usage, nothing run; 130\n"
	"interrupted (Ctrl-C or SIGTERM: the finished runs are kept).\n";

/* Append @label to -l's list; a label given twice would repeat its rows in the CSV, which report refuses. */
static int exec_push_lock(struct exec_opts *o, const char *label, char *err, size_t errlen)
{
	for (int k = 0; k < o->nlocks; k++)
		if (!strcmp(o->locks[k], label)) {
			snprintf(err, errlen, "lock variant '%s' given twice in -l (each variant runs once)", label);
			return -1;
		}
	snprintf(o->locks[o->nlocks++], LAB_SPEC_MAX, "%s", label);
	return 0;
}

static int exec_add_lock(const char *spec, void *ctx, char *err, size_t errlen)
{
	struct exec_opts *o = ctx;
	struct lab_rwsem_conf conf;
	char name[64], names[1024];

	if (o->nlocks == EXEC_MAX_LOCKS) {
		snprintf(err, errlen, "more than %d variants", EXEC_MAX_LOCKS);
		return -1;
	}
	if (!strcmp(spec, "passthrough") || !strcmp(spec, "none"))
		return exec_push_lock(o, spec, err, errlen);
	if (!strcmp(spec, "all")) {
		for (int i = 0; lab_rwsem_variants[i]; i++) {
			const struct lab_rwsem_ops *ops = lab_rwsem_variants[i];

			if (lab_rwsem_preloadable(ops) && !(ops->caps & LAB_CAP_NOT_IN_ALL) &&
			    exec_add_lock(ops->name, ctx, err, errlen))
				return -1;
		}
		return 0;
	}
	if (lab_rwsem_spec_unknown(spec, name, sizeof(name))) {	/* what -l takes: not percpu-rwsem, ck-pflock... */
		lab_rwsem_preload_names(names, sizeof(names));
		snprintf(err, errlen, "unknown lock variant '%s' (valid: all, none, passthrough, %s)", name, names);
		return -1;
	}
	if (lab_rwsem_parse(spec, &conf, err, errlen))
		return -1;
	if (!lab_rwsem_preloadable(conf.ops)) {
		snprintf(err, errlen, "variant '%s' has no %s, which the preload needs (tryrdlock, trywrlock, "
			 "timed calls): use a variant with rtry and wtry in rwlab list", conf.ops->name,
			 conf.ops->caps & LAB_CAP_READ_TRYLOCK ? "down_write_trylock" : "down_read_trylock");
		return -1;
	}
	return exec_push_lock(o, conf.label, err, errlen);
}

/* The metrics exec writes of every run (exec_all(), exec_preload_rows()), as --metric's refusal names them. */
#define EXEC_OWN_METRICS "wall_s, user_s, sys_s, nvcsw, nivcsw, exit_status, cell_failed, preload.*, event.*, site.*"

/* Is @name one of the metrics exec writes itself, or of the preload's families? */
static bool exec_own_metric(const char *name)
{
	static const char *const own[] = { "wall_s", "user_s", "sys_s", "nvcsw", "nivcsw", "exit_status",
					   "cell_failed" };
	static const char *const family[] = { "preload.", "event.", "site." };

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(name, own[i]))
			return true;
	for (size_t i = 0; i < sizeof(family) / sizeof(family[0]); i++)
		if (!strncmp(name, family[i], strlen(family[i])))
			return true;
	return false;
}

/* "[NAME[:UNIT][:higher|:lower]=]REGEX" */
static int exec_add_metric(struct exec_opts *o, const char *spec)
{
	struct exec_metric *m = &o->metric[o->nmetrics];
	const char *eq = strchr(spec, '='), *re = spec;
	size_t n = eq ? strspn(spec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-:") : 0;
	char errbuf[256];
	int r;

	if (o->nmetrics == EXEC_MAX_METRICS) {
		fprintf(stderr, "%s: more than %d --metric options\n", o->prog, EXEC_MAX_METRICS);
		return -1;
	}
	snprintf(m->name, sizeof(m->name), "metric%d", o->nmetrics + 1);
	snprintf(m->unit, sizeof(m->unit), "value");
	m->better = "none";
	if (eq && n == (size_t)(eq - spec) && n > 0 && n < sizeof(m->name)) {
		char *colon;

		memcpy(m->name, spec, n);
		m->name[n] = 0;
		colon = strrchr(m->name, ':');
		if (colon && (!strcmp(colon + 1, "higher") || !strcmp(colon + 1, "lower"))) {
			m->better = !strcmp(colon + 1, "higher") ? "higher" : "lower";
			*colon = 0;
		}
		colon = strchr(m->name, ':');	/* NAME:UNIT */
		if (colon)
			*colon = 0;
		snprintf(m->unit, sizeof(m->unit), "%s", colon && colon[1] ? colon + 1 : m->name);
		if (!m->name[0]) {
			fprintf(stderr, "%s: --metric '%s': empty NAME before ':' ([NAME[:UNIT][:higher|:lower]=]REGEX)\n",
				o->prog, spec);
			return -1;
		}
		re = eq + 1;
	}
	if (lab_cli_repeat(o->metric[0].name, sizeof(o->metric[0]), o->nmetrics + 1)) {	/* its rows twice */
		fprintf(stderr, "%s: metric '%s' given twice in --metric (each metric is taken once)\n", o->prog,
			m->name);
		return -1;
	}
	if (exec_own_metric(m->name)) {	/* likewise beside the row exec writes of that name */
		fprintf(stderr, "%s: --metric '%s': a metric exec records itself (" EXEC_OWN_METRICS "): give "
			"another NAME\n", o->prog, m->name);
		return -1;
	}
	m->regex = re;
	r = regcomp(&m->re, re, REG_EXTENDED | REG_NEWLINE);
	if (r) {
		regerror(r, &m->re, errbuf, sizeof(errbuf));
		fprintf(stderr, "%s: bad --metric regular expression '%s': %s\n", o->prog, re, errbuf);
		return -1;
	}
	if (m->re.re_nsub < 1) {
		fprintf(stderr, "%s: --metric '%s' has no parenthesised group to take the number from\n", o->prog,
			re);
		regfree(&m->re);
		return -1;
	}
	o->nmetrics++;
	return 0;
}

/*
 * The preload: $RWLAB_PRELOAD, else librwlab-preload.so in rwlab's own
 * directory (the build tree), else where `meson install` put it: BINDIR/../LIBDIR
 * (or LIBDIR itself when the prefix's libdir is absolute).
 */
static int exec_find_preload(struct exec_opts *o)
{
	const char *env = getenv("RWLAB_PRELOAD");
	char self[PATH_MAX - 32];
	ssize_t n;

	if (env && *env) {
		if (!realpath(env, o->preload)) {
			fprintf(stderr, "%s: RWLAB_PRELOAD='%s': %s\n", o->prog, env, strerror(errno));
			return -1;
		}
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		*(strrchr(self, '/') ? strrchr(self, '/') : self) = 0;
		snprintf(o->preload, sizeof(o->preload), "%s/librwlab-preload.so", self);
		if (access(o->preload, R_OK) == 0)
			return 0;
		int len = LAB_INSTALL_LIBDIR[0] == '/' ?
			snprintf(o->preload, sizeof(o->preload), "%s/librwlab-preload.so", LAB_INSTALL_LIBDIR) :
			snprintf(o->preload, sizeof(o->preload), "%s/../%s/librwlab-preload.so", self,
				 LAB_INSTALL_LIBDIR);
		if (len > 0 && (size_t)len < sizeof(o->preload) && access(o->preload, R_OK) == 0)
			return 0;
	}
	fprintf(stderr, "%s: cannot find librwlab-preload.so beside rwlab nor in the installed libdir (%s): "
		"build it, or set RWLAB_PRELOAD\n", o->prog, o->preload);
	return -1;
}

/*
 * Can @path be run under the preload: 0, or why not (ENOENT, EISDIR, ENOEXEC:
 * not a regular file, EACCES: no execute permission, EPERM: set-ID to another)?
 */
static int exec_runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return ENOENT;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode))
		return ENOEXEC;
	if (access(path, X_OK))
		return EACCES;
	/* set-user/group-ID to another: the loader's secure mode ignores LD_PRELOAD (ld.so(8)) */
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) || ((st.st_mode & S_ISGID) && st.st_gid != getegid()))
		return EPERM;
	return 0;
}

/* Is @cmd runnable (as execvp would find it: a PATH entry that is not skipped)? Its file in @path; 0 or why not. */
static int exec_find(const char *cmd, char *path, size_t len)
{
	const char *env = getenv("PATH");

	if (strchr(cmd, '/')) {
		snprintf(path, len, "%s", cmd);
		return exec_runnable(cmd);
	}
	for (const char *p = env ? env : "/usr/bin:/bin"; p;) {	/* an empty entry, a trailing one too: "." */
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n)
			snprintf(path, len, "%.*s/%s", (int)n, p, cmd);
		else
			snprintf(path, len, "./%s", cmd);
		int why = exec_runnable(path);

		if (!why || why == EPERM)	/* execvp would run a set-ID one: said as such */
			return why;
		p = e ? e + 1 : NULL;
	}
	return ENOENT;
}

/* Refuse a CMD execvp cannot run (every run would exit 127 or 126): one line, -1. */
static int exec_check_runnable(struct exec_opts *o)
{
	int why = exec_find(o->cmd[0], o->path, sizeof(o->path));

	if (why == EISDIR)
		fprintf(stderr, "%s: cannot run '%s': a directory, not a program\n", o->prog, o->cmd[0]);
	else if (why == ENOEXEC)
		fprintf(stderr, "%s: cannot run '%s': not a regular file, so not a program\n", o->prog, o->cmd[0]);
	else if (why == EPERM)
		fprintf(stderr, "%s: cannot run '%s' under the preload: it is set-user-ID or set-group-ID to another "
			"user, and the loader ignores LD_PRELOAD for it (ld.so(8) secure mode): no variant would be "
			"measured\n", o->prog, o->cmd[0]);
	else if (why == EACCES)
		fprintf(stderr, "%s: cannot run '%s': no execute permission (chmod +x it, or run a script through its "
			"interpreter: -- sh FILE)\n", o->prog, o->cmd[0]);
	else if (why)
		fprintf(stderr, "%s: cannot run '%s': not an executable file (nor in PATH)\n", o->prog, o->cmd[0]);
	return why ? -1 : 0;
}

/*
 * The shared objects @prog loads, as its interpreter lists them (INTERP
 * --list PROG, what ldd runs; the program itself does not run), one path
 * per line into @out. Returns how many, or -1 when the list could not be had.
 */
static int exec_libraries(const char *interp, const char *prog, char *out, size_t len)
{
	int pfd[2], st, n = 0;
	size_t got = 0;
	char buf[16384];
	pid_t pid;

	if (pipe(pfd))
		return -1;
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(pfd[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(pfd[0]);
		close(pfd[1]);
		execl(interp, interp, "--list", prog, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	for (ssize_t r; (r = read(pfd[0], buf + got, sizeof(buf) - 1 - got)) != 0;)
		if (r > 0)
			got += (size_t)r;
		else if (errno != EINTR || got == sizeof(buf) - 1)
			break;
	close(pfd[0]);
	buf[got] = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	out[0] = 0;
	/* "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "\t/lib64/ld-linux-x86-64.so.2 (0x...)" */
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(l, "=> "), *p = arrow ? arrow + 3 : l + strspn(l, " \t");

		if (*p != '/')
			continue;
		p[strcspn(p, " (")] = 0;
		if (strlen(out) + strlen(p) + 2 < len) {
			strcat(out, p);
			strcat(out, "\n");
			n++;
		}
	}
	return n;
}

/*
 * Can the preload act on @o->path? Refuses (one line, -1) a static program
 * and a dynamic one that imports no pthread_rwlock_* function, nor do the
 * libraries its interpreter lists. A script (#!), a file that is not a 64-bit
 * ELF of this host, or a library list that cannot be had: not known, so run.
 */
static int exec_check_interposable(const struct exec_opts *o)
{
	const char *base = strrchr(o->path, '/') ? strrchr(o->path, '/') + 1 : o->path, *interp;
	static char libs[1 << 16];
	char interp_path[PATH_MAX];
	struct lab_elf elf;
	int imports, nlibs;

	if (o->force || lab_elf_open(&elf, o->path))
		return 0;
	interp = lab_elf_interp(&elf);
	if (!interp) {
		lab_elf_close(&elf);
		fprintf(stderr, "%s: '%s' is statically linked: LD_PRELOAD cannot reach its pthread_rwlock calls, so "
			"every variant would run glibc's lock (link it dynamically)\n", o->prog, base);
		return -1;
	}
	snprintf(interp_path, sizeof(interp_path), "%s", interp);
	imports = lab_elf_imports(&elf, "pthread_rwlock_");
	lab_elf_close(&elf);
	if (imports)
		return 0;
	nlibs = exec_libraries(interp_path, o->path, libs, sizeof(libs));
	if (nlibs < 0)
		return 0;
	for (char *save = NULL, *l = strtok_r(libs, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (lab_elf_open(&elf, l))
			continue;
		imports += lab_elf_imports(&elf, "pthread_rwlock_");
		lab_elf_close(&elf);
	}
	if (imports)
		return 0;
	fprintf(stderr, "%s: '%s' imports no pthread_rwlock_* function, nor do the %d libraries it loads: the "
		"preload has no lock to put on a variant, so every column would be the same (--force runs it: a "
		"shell or launcher that starts the real program, or a dlopen()ed library)\n", o->prog, base, nlibs);
	return -1;
}

/* The variant of -l label @label; NULL for none and passthrough. */
static const struct lab_rwsem_ops *exec_ops(const char *label)
{
	char name[LAB_SPEC_MAX];
	const char *kv;

	return lab_spec_split(label, name, sizeof(name), &kv) ? NULL : lab_rwsem_lookup(name);
}

/*
 * Leave out of -l the variants that claim no exclusion (null), as run does on
 * a workload whose data its lock protects: a program's rwlocks protect its
 * data, which such a variant would corrupt (and the preload would report the
 * program's misuse); and busted, which claims exclusion and breaks it (a
 * program under it can spin for ever). Their names in @left, ", "-separated;
 * returns how many.
 */
static int exec_skip_unsafe(struct exec_opts *o, char *left, size_t len, bool *broken)
{
	int n = 0, kept = 0;

	left[0] = 0;
	*broken = false;
	for (int k = 0; k < o->nlocks; k++) {
		const struct lab_rwsem_ops *ops = exec_ops(o->locks[k]);

		/* busted claims exclusion and breaks it (torture's negative control): a program under it can hang */
		if (!ops || ((ops->caps & LAB_CAP_EXCLUSION) && !(ops->caps & LAB_CAP_NOT_IN_ALL))) {
			memmove(o->locks[kept++], o->locks[k], LAB_SPEC_MAX);
			continue;
		}
		*broken |= ops->caps & LAB_CAP_EXCLUSION;
		snprintf(left + strlen(left), len - strlen(left), "%s%s", n++ ? ", " : "", o->locks[k]);
	}
	o->nlocks = kept;
	return n;
}

/*
 * The line about the variants exec_skip_unsafe() left out (@what: "" or "nothing to run: "; @broken:
 * one of them claims exclusion and breaks it).
 */
static void exec_skipped_say(const struct exec_opts *o, const char *what, const char *left, int n, bool broken)
{
	fprintf(stderr, "%s: %s%s left out: %s no exclusion would corrupt the data the program's locks protect%s\n",
		o->prog, what, left, n > 1 ? "variants that claim" : "a variant that claims",
		broken ? " (busted claims it and breaks it: torture's negative control)" : "");
}

static int exec_parse(struct exec_opts *o, int argc, char **argv)
{
	struct lab_cli cli;
	char err[512], left[512];
	int c, nleft;
	bool broken;

	o->iterations = 5;
	o->threads = -1;
	if (lab_cli_begin(&cli, &lab_exec_cmd, argc, argv))
		return -1;
	while ((c = lab_cli_next(&cli)) != -1) {
		switch (c) {
		case 'l':
			if (lab_spec_list_each(optarg, "lock variant", exec_add_lock, o, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", o->prog, err);
				return -1;
			}
			break;
		case 'n':
			if (lab_cli_count(&cli, o->prog, c, &o->iterations))
				return -1;
			break;
		case 't':
			if (lab_cli_count(&cli, o->prog, c, &o->threads))
				return -1;
			break;
		case 'M':
			if (exec_add_metric(o, optarg))
				return -1;
			break;
		case 'w':
			o->label = optarg;
			break;
		case 'o':
			o->csv = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'R':
			o->no_report = true;
			break;
		case 'F':
			o->force = true;
			break;
		default:
			return -1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no command to run: rwlab exec -l VARIANTS [options] -- CMD [ARGS...]\n", o->prog);
		return -1;
	}
	if (!o->nlocks) {
		fprintf(stderr, "%s: no variants: give -l (e.g. -l pthread,rwsem,bravo)\n", o->prog);
		return -1;
	}
	nleft = exec_skip_unsafe(o, left, sizeof(left), &broken);
	if (!o->nlocks) {
		exec_skipped_say(o, "nothing to run: ", left, nleft, broken);
		return -1;
	}
	o->cmd = argv + optind;
	if (exec_check_runnable(o))
		return -1;
	for (int k = 0; k < o->nlocks; k++)	/* only none: nothing to interpose */
		if (strcmp(o->locks[k], "none") && exec_check_interposable(o))
			return -1;
	if (!o->label) {
		size_t off = 0;
		const char *base = strrchr(o->cmd[0], '/') ? strrchr(o->cmd[0], '/') + 1 : o->cmd[0];

		off += (size_t)snprintf(o->labelbuf, sizeof(o->labelbuf), "%s", base);
		for (char **a = o->cmd + 1; *a && off < sizeof(o->labelbuf); a++)
			off += (size_t)snprintf(o->labelbuf + off, sizeof(o->labelbuf) - off, " %s", *a);
		o->label = o->labelbuf;
	}
	if (exec_find_preload(o))
		return -1;
	if (nleft)
		exec_skipped_say(o, "", left, nleft, broken);
	return 0;
}

/* One run's measurements. */
struct exec_run {
	double wall, user, sys;
	long nvcsw, nivcsw;
	int status;		/* exit status, or 128 + signal */
	char *out;		/* CMD's standard output */
	size_t outlen;
};

/*
 * The sanitizer runtime this rwlab runs with (a sanitizer build's preload
 * needs it first in LD_PRELOAD), from /proc/self/maps; "" when none.
 */
static void exec_sanitizer_runtime(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];

	buf[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (path && (strstr(path, "/libasan.so") || strstr(path, "/libtsan.so"))) {
			path[strcspn(path, "\n")] = 0;
			snprintf(buf, len, "%s", path);
			break;
		}
	}
	if (f)
		fclose(f);
}

static void exec_child(const struct exec_opts *o, const char *lock, const char *csv, const char *run_id,
		       long iteration, int outfd)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[PATH_MAX * 3], rt[PATH_MAX], num[32];

	if (!strcmp(lock, "none"))	/* the baseline: CMD as it runs without rwlab */
		goto run;
	/* A sanitizer runtime must come first: one already in LD_PRELOAD, else our own. */
	exec_sanitizer_runtime(rt, sizeof(rt));
	if (old && *old)
		snprintf(buf, sizeof(buf), "%s:%s", old, o->preload);
	else if (rt[0])
		snprintf(buf, sizeof(buf), "%s:%s", rt, o->preload);
	else
		snprintf(buf, sizeof(buf), "%s", o->preload);
	setenv("LD_PRELOAD", buf, 1);
	setenv("RWLAB_LOCK", lock, 1);
	setenv("RWLAB_CSV", csv, 1);
	setenv("RWLAB_WORKLOAD", o->label, 1);
	setenv("RWLAB_RUN", run_id, 1);
	setenv("RWLAB_QUIET", "1", 1);
	snprintf(num, sizeof(num), "%ld", o->threads);
	if (o->threads >= 0)
		setenv("RWLAB_THREADS", num, 1);
	else	/* the preload's own measure, which exec_preload_rows() reads */
		unsetenv("RWLAB_THREADS");
	snprintf(num, sizeof(num), "%ld", iteration);
	setenv("RWLAB_ITERATION", num, 1);
run:
	dup2(outfd, 1);
	close(outfd);
	execvp(o->cmd[0], o->cmd);
	fprintf(stderr, "rwlab exec: cannot run '%s': %s\n", o->cmd[0], strerror(errno));
	_exit(127);
}

/*
 * One run of CMD. Ctrl-C or SIGTERM passes the signal on to it (stop.h);
 * exec_all() drops that run and writes the finished ones (the first round's
 * too, with the threads measured so far), and exec exits 130, as `rwlab
 * run` does.
 */
static int exec_one(const struct exec_opts *o, const char *lock, const char *csv, const char *run_id,
		    long iteration, struct exec_run *r)
{
	int pfd[2], st;
	struct rusage ru;
	uint64_t t0;
	pid_t pid;
	size_t cap = 0;

	memset(r, 0, sizeof(*r));
	if (pipe(pfd))
		return -errno;
	t0 = lab_clock_ns();
	pid = lab_stop_fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(pfd[0]);
		exec_child(o, lock, csv, run_id, iteration, pfd[1]);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t n;

		if (r->outlen + 65536 > cap && cap < EXEC_OUT_MAX) {
			cap = cap ? 2 * cap : 1 << 16;
			r->out = realloc(r->out, cap + 1);
			if (!r->out)
				abort();
		}
		if (r->outlen + 65536 > cap) {
			char sink[65536];	/* beyond EXEC_OUT_MAX: read and drop */

			n = read(pfd[0], sink, sizeof(sink));
		} else {
			n = read(pfd[0], r->out + r->outlen, cap - r->outlen);
			if (n > 0)
				r->outlen += (size_t)n;
		}
		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	close(pfd[0]);
	r->out[r->outlen] = 0;
	if (lab_stop_wait(pid, &st, &ru))
		return -errno;
	r->wall = (double)(lab_clock_ns() - t0) / 1e9;
	r->user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	r->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	r->nvcsw = ru.ru_nvcsw;
	r->nivcsw = ru.ru_nivcsw;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

/* What each variant's runs left: exec_all() says what no run gave, cmd_exec() leaves out of the table. */
struct exec_tally {
	int done;			/* runs finished */
	struct exec_var {
		bool failed;		/* a run failed: marked cell_failed, which tables leave out */
		bool stats;		/* a run left preload statistics */
		unsigned matched;	/* bit m: --metric m matched in a run */
	} var[EXEC_MAX_LOCKS];
};
_Static_assert(EXEC_MAX_METRICS <= 32, "exec_var.matched holds a bit per --metric");

/*
 * The rows of the runs not yet written. Without -t the threads column is
 * the preload's measure, known when the first round has run (exec_all()):
 * until then each row is made with 0 there and that place kept in @at, so
 * that its timestamp stays the time its run finished.
 */
struct exec_rows {
	struct lab_buf b;
	long threads;			/* the threads column; -1 while it is not known (rows held) */
	size_t *at;			/* where each held row's threads field is in b */
	int n, cap;
	int first_lock;			/* the first run in b: the line of a failed write names it */
	long first_it;
	const struct lab_context *ctx;
	const char *run_id;
	const struct exec_opts *o;
	struct exec_tally *t;		/* the --metric matches */
};

static void exec_row(struct exec_rows *x, const char *lock, long it, const char *metric, double v,
		     const char *unit, const char *better)
{
	char num[24];

	lab_csv_row_prefix(&x->b, x->run_id, lock, x->o->label, x->threads < 0 ? 0 : (int)x->threads, (int)it);
	if (x->threads < 0) {	/* the prefix ends ",0,IT,": keep the 0's place */
		if (x->n == x->cap) {
			x->cap = x->cap ? 2 * x->cap : 256;
			x->at = realloc(x->at, (size_t)x->cap * sizeof(*x->at));
			if (!x->at)
				abort();
		}
		x->at[x->n++] = x->b.len - (size_t)snprintf(num, sizeof(num), "%ld", it) - 3;
	}
	lab_csv_row_rest(&x->b, metric, v, unit, x->ctx->host, better);
}

/* The held rows get @threads as their threads column, and so do the rows made from now on. */
static void exec_rows_fix(struct exec_rows *x, long threads)
{
	struct lab_buf nb = { 0 };
	size_t from = 0;

	for (int i = 0; i < x->n; i++) {
		lab_buf_printf(&nb, "%.*s%ld", (int)(x->at[i] - from), x->b.p + from, threads);
		from = x->at[i] + 1;
	}
	if (x->b.len > from)
		lab_buf_printf(&nb, "%.*s", (int)(x->b.len - from), x->b.p + from);
	lab_buf_free(&x->b);
	x->b = nb;
	x->n = 0;
	x->threads = threads;
}

/*
 * Append the rows made (none while they are held) to -o, made with the
 * first of them (lab_csv_open_later()). Returns 0, or -1 when -o cannot be
 * made, its FIFO or pipe lost its reader, or a write failed (a full disk):
 * said, and no run after has anywhere to go.
 */
static int exec_rows_write(struct exec_rows *x, struct lab_csv_writer *w)
{
	const struct exec_opts *o = x->o;
	char err[1024];
	int e;

	if (x->threads < 0 || !x->b.len)
		return 0;
	if (lab_csv_open_now(w, err, sizeof(err))) {
		fprintf(stderr, "%s: %s; stopped at %s, iteration %ld, which is not written (nor any after)\n",
			o->prog, err, o->locks[x->first_lock], x->first_it);
		return -1;
	}
	e = lab_csv_append(w, x->b.p, x->b.len);
	x->b.len = 0;
	if (e == -EPIPE) {
		fprintf(stderr, "%s: %s%s: its reader went away; stopped at %s, iteration %ld, which is not written "
			"(nor any after)\n", o->prog, strcmp(o->csv, "-") ? "FIFO " : "", w->path,
			o->locks[x->first_lock], x->first_it);
		return -1;
	}
	if (e) {	/* a full disk, a file size limit: the runs after it would go nowhere too */
		fprintf(stderr, "%s: cannot write %s: %s; stopped at %s, iteration %ld, which is not written (nor any "
			"after)\n", o->prog, w->path, strerror(-e), o->locks[x->first_lock], x->first_it);
		return -1;
	}
	return 0;
}

/* The last match of @m in @out, as a number; false when none. */
static bool exec_extract(const struct exec_metric *m, const char *out, double *v)
{
	regmatch_t g[2];
	const char *p = out;
	bool found = false;

	while (*p && regexec(&m->re, p, 2, g, p == out ? 0 : REG_NOTBOL) == 0) {
		char num[64], *end;
		int len = (int)(g[1].rm_eo - g[1].rm_so);

		if (g[1].rm_so >= 0 && len > 0 && len < (int)sizeof(num)) {
			double x;

			memcpy(num, p + g[1].rm_so, (size_t)len);
			num[len] = 0;
			x = strtod(num, &end);
			if (end != num && !*end && isfinite(x)) {
				*v = x;
				found = true;
			}
		}
		p += g[0].rm_eo > 0 ? g[0].rm_eo : 1;
	}
	return found;
}

/*
 * The preload's rows from @path (one block per process CMD started), summed
 * per metric; the percentiles and the maximum take the largest. Appended as
 * rows of this run; @used: the most threads that used locks at once in one
 * of the processes (their threads column, the preload's measure without
 * RWLAB_THREADS), 0 when none did. Returns the number of processes that
 * wrote statistics.
 */
static int exec_preload_rows(struct exec_rows *x, const char *lock, long it, const char *path, double *acquisitions,
			     long *used)
{
	struct lab_csv_table t;
	char err[512];
	int cm, cv, cu, cb, ct, procs = 0;
	struct { const char *metric, *unit, *better; double v; } *acc;
	int nacc = 0;

	*used = 0;
	if (lab_csv_read(path, &t, err, sizeof(err)))
		return 0;
	cm = lab_csv_col(&t, LAB_CSV_NAME(metric));
	cv = lab_csv_col(&t, LAB_CSV_NAME(value));
	cu = lab_csv_col(&t, LAB_CSV_NAME(unit));
	cb = lab_csv_col(&t, LAB_CSV_NAME(better));
	ct = lab_csv_col(&t, LAB_CSV_NAME(threads));
	acc = calloc((size_t)t.nrows + 1, sizeof(*acc));
	if (cm < 0 || cv < 0 || cu < 0 || cb < 0 || ct < 0 || !acc) {
		free(acc);
		lab_csv_free(&t);
		return 0;
	}
	for (int i = 0; i < t.nrows; i++) {
		const char *m = t.rows[i][cm];
		double v = strtod(t.rows[i][cv], NULL);
		bool peak = strstr(m, "wait_p") || strstr(m, "wait_max");
		int j;

		if (!strcmp(m, "metric"))
			continue;	/* a second header, from two processes that raced to make the file */
		if (!strcmp(m, "preload.processes"))
			procs += (int)v;
		if (!strcmp(m, "preload.acquisitions"))
			*acquisitions += v;
		if (strtol(t.rows[i][ct], NULL, 10) > *used)
			*used = strtol(t.rows[i][ct], NULL, 10);
		for (j = 0; j < nacc && strcmp(acc[j].metric, m); j++)
			;
		if (j == nacc) {
			acc[nacc].metric = m;
			acc[nacc].unit = t.rows[i][cu];
			acc[nacc].better = t.rows[i][cb];
			acc[nacc++].v = v;
		} else {
			acc[j].v = peak ? fmax(acc[j].v, v) : acc[j].v + v;
		}
	}
	for (int j = 0; j < nacc; j++)
		exec_row(x, lock, it, acc[j].metric, acc[j].v, acc[j].unit, acc[j].better);
	free(acc);
	lab_csv_free(&t);
	return procs;
}

/*
 * The rows of run @k, iteration @it: its --metric values, rusage, exit
 * status and the preload's statistics from @stats (exec_preload_rows():
 * @acquisitions, @used). Returns how many processes left statistics.
 */
static int exec_run_rows(struct exec_rows *x, int k, long it, const struct exec_run *r, const char *stats,
			 double *acquisitions, long *used)
{
	const struct exec_opts *o = x->o;
	const char *lock = o->locks[k];
	int procs;

	for (int m = 0; m < o->nmetrics; m++) {
		double v;

		if (exec_extract(&o->metric[m], r->out, &v)) {
			exec_row(x, lock, it, o->metric[m].name, v, o->metric[m].unit, o->metric[m].better);
			x->t->var[k].matched |= 1u << m;
		} else {
			fprintf(stderr, "%s: %s, iteration %ld: no match for --metric %s in the output\n", o->prog, lock,
				it, o->metric[m].name);
		}
	}
	exec_row(x, lock, it, "wall_s", r->wall, "s", "lower");
	exec_row(x, lock, it, "user_s", r->user, "s", "lower");
	exec_row(x, lock, it, "sys_s", r->sys, "s", "lower");
	exec_row(x, lock, it, "nvcsw", (double)r->nvcsw, "count", "none");
	exec_row(x, lock, it, "nivcsw", (double)r->nivcsw, "count", "none");
	exec_row(x, lock, it, "exit_status", r->status, "status", "none");
	procs = exec_preload_rows(x, lock, it, stats, acquisitions, used);
	if (r->status)	/* run's mark: report leaves the variant's cell out unless --include-failed */
		exec_row(x, lock, it, "cell_failed", 1, "count", "none");
	return procs;
}

/*
 * The preload's measure of the threads that used locks at once, per run
 * (no -t): the threads column is the most of the first round's (each
 * variant's iteration 0); the later runs' are kept to say when they differ.
 */
struct exec_used {
	long first;		/* the most in the first round; 0: no run of it measured */
	long lo, hi;		/* the least and the most of the later runs'; hi 0: none measured */
};

static void exec_used_add(struct exec_used *u, long it, long used)
{
	if (used <= 0)
		return;
	if (!it) {
		u->first = used > u->first ? used : u->first;
	} else {
		u->lo = !u->hi || used < u->lo ? used : u->lo;
		u->hi = used > u->hi ? used : u->hi;
	}
}

/* Where the threads column came from, when it is the preload's measure and not all runs agree (or none measured). */
static void exec_used_note(const struct exec_opts *o, const struct exec_used *u)
{
	if (o->threads >= 0 || o->quiet)
		return;
	if (!u->first)
		fprintf(stderr, "%s: note: no run of the first round measured how many threads used locks at once "
			"(none runs '%s' without the preload; a run that took no lock measures none): the threads "
			"column is 1; -t N sets it\n", o->prog, o->cmd[0]);
	else if (u->hi && (u->lo != u->first || u->hi != u->first))
		fprintf(stderr, "%s: note: the threads column is %ld, the most threads that used locks at once in the "
			"first round (the preload's measure); later runs measured %ld to %ld: -t N sets the column\n",
			o->prog, u->first, u->lo, u->hi);
}

/* Run @k's line (not with -q) and, when CMD failed, its status and output. Returns 1 when it failed. */
static int exec_run_said(const struct exec_opts *o, int k, long it, const struct exec_run *r, int procs)
{
	if (!o->quiet)
		fprintf(stderr, "%s: %-16s iteration %ld: wall %.3f s, user %.3f s, sys %.3f s, exit %d%s\n", o->prog,
			o->locks[k], it, r->wall, r->user, r->sys, r->status, procs || !strcmp(o->locks[k], "none") ? "" :
			" (no preload statistics: CMD left through _exit or a signal)");
	if (!r->status)
		return 0;
	fprintf(stderr, "%s: '%s' exited with status %d on %s, iteration %ld; its output:\n%.*s", o->prog, o->cmd[0],
		r->status, o->locks[k], it, (int)(r->outlen > 2000 ? 2000 : r->outlen), r->out);
	return 1;
}

/*
 * The baseline column: none (no preload), else passthrough (glibc's own
 * lock, observed), else the first. Recorded in the run's settings
 * ("baseline=none"), which report takes as its default --baseline: exec's
 * table and `rwlab report FILE` compare against the same column.
 */
static const char *exec_baseline(const struct exec_opts *o)
{
	const char *base = o->locks[0];

	for (int k = 0; k < o->nlocks; k++)
		if (!strcmp(o->locks[k], "none") || (!strcmp(o->locks[k], "passthrough") && strcmp(base, "none")))
			base = o->locks[k];
	return base;
}

/*
 * After the runs, what they cannot show (warnings, not notes: -q keeps them):
 * no rwlock taken in the @preloaded processes that left statistics (of the
 * @runs under the preload), a --metric that matched in no run.
 */
static void exec_warnings(const struct exec_opts *o, const struct exec_tally *t, int runs, int preloaded,
			  double acquisitions)
{
	if (preloaded && !acquisitions)
		fprintf(stderr, "%s: WARNING: '%s' took no pthread_rwlock in any run: the variants cannot differ\n",
			o->prog, o->cmd[0]);
	else if (runs && !preloaded)
		fprintf(stderr, "%s: WARNING: no run of '%s' left preload statistics (each left through _exit or a "
			"signal, or outlived the run in a child it left running): the table has no preload.* rows\n",
			o->prog, o->cmd[0]);
	for (int m = 0; m < o->nmetrics; m++) {
		unsigned any = 0;

		for (int k = 0; k < o->nlocks; k++)
			any |= t->var[k].matched & 1u << m;
		if (!any)
			fprintf(stderr, "%s: WARNING: --metric %s never matched the output of '%s' (regex '%s'): it has "
				"no rows, nor a table\n", o->prog, o->metric[m].name, o->cmd[0], o->metric[m].regex);
	}
}

/*
 * Run every (iteration, variant); write the rows (without -t, the first
 * round's when it has run: exec_used). Returns 0, 1 if a run failed, or -1
 * when -o's FIFO or pipe lost its reader (said here; the runs stop);
 * @t: what each variant's runs left.
 */
static int exec_all(const struct exec_opts *o, struct lab_csv_writer *w, const char *run_id, struct exec_tally *t)
{
	struct lab_context ctx;
	struct exec_rows x = { .threads = o->threads, .ctx = &ctx, .run_id = run_id, .o = o, .t = t };
	struct exec_used used = { 0 };
	char tmpl[PATH_MAX];
	int failed = 0, preloaded = 0, runs = 0;
	double acquisitions = 0;

	lab_stop_install();
	lab_context_get(&ctx);
	snprintf(ctx.settings, sizeof(ctx.settings), "baseline=%s", exec_baseline(o));
	lab_csv_set_context(w, run_id, &ctx, "none");
	for (long it = 0; it < o->iterations && failed >= 0 && !lab_stop_signal(); it++) {
		for (int k = 0; k < o->nlocks && failed >= 0 && !lab_stop_signal(); k++) {
			struct exec_run r;
			long u;
			int fd, procs, e;

			snprintf(tmpl, sizeof(tmpl), "%s/rwlab-exec-XXXXXX", lab_tmpdir());
			fd = mkstemp(tmpl);
			if (fd < 0) {
				fprintf(stderr, "%s: cannot make a temporary file in %s: %s\n", o->prog, lab_tmpdir(),
					strerror(errno));
				failed = 1;
				goto out;
			}
			close(fd);
			e = exec_one(o, o->locks[k], tmpl, run_id, it, &r);
			if (!e && lab_stop_signal()) {	/* interrupted: this run is not written */
				free(r.out);
				unlink(tmpl);
				goto out;
			}
			if (e) {
				fprintf(stderr, "%s: cannot start '%s': %s\n", o->prog, o->cmd[0], strerror(-e));
				unlink(tmpl);
				failed = 1;
				goto out;
			}
			if (!x.b.len) {
				x.first_lock = k;
				x.first_it = it;
			}
			procs = exec_run_rows(&x, k, it, &r, tmpl, &acquisitions, &u);
			unlink(tmpl);
			exec_used_add(&used, it, o->threads < 0 ? u : 0);
			preloaded += procs;
			runs += strcmp(o->locks[k], "none") != 0;
			t->done++;
			t->var[k].stats |= procs > 0;
			t->var[k].failed |= r.status != 0;
			if (x.threads < 0 && k == o->nlocks - 1)	/* the first round has run */
				exec_rows_fix(&x, used.first ? used.first : 1);
			if (exec_rows_write(&x, w)) {
				free(r.out);
				failed = -1;
				break;
			}
			failed |= exec_run_said(o, k, it, &r, procs);
			free(r.out);
		}
	}
	if (failed < 0)
		goto done;
	exec_warnings(o, t, runs, preloaded, acquisitions);
	exec_used_note(o, &used);
out:
	if (x.threads < 0) {	/* stopped within the first round: its rows with what it measured so far */
		if (x.n)	/* rows held: where their threads column came from (none's alone: 1) */
			exec_used_note(o, &used);
		exec_rows_fix(&x, used.first ? used.first : 1);
	}
	if (exec_rows_write(&x, w))
		failed = -1;
done:
	lab_buf_free(&x.b);
	free(x.at);
	return failed;
}

/* One note for every variant that would deadlock a recursive read (the preload absorbs those). */
static void exec_notes(const struct exec_opts *o)
{
	char names[1024] = "";
	int n = 0;

	for (int k = 0; k < o->nlocks; k++) {
		const struct lab_rwsem_ops *ops;
		char name[LAB_SPEC_MAX];
		const char *kv;

		if (lab_spec_split(o->locks[k], name, sizeof(name), &kv))
			continue;
		ops = lab_rwsem_lookup(name);
		if (ops && !(ops->caps & LAB_CAP_READ_RECURSIVE) && strlen(names) + strlen(o->locks[k]) + 3 < sizeof(names))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", n++ ? ", " : "",
				 o->locks[k]);
	}
	if (n)
		fprintf(stderr, "%s: note: %s would deadlock a recursive read behind a queued writer; the preload "
			"absorbs a thread's re-read of a lock it holds (up to 16 read-held locks per thread)\n",
			o->prog, names);
}

/* The --metric regular expressions compiled so far (all of them, or those before a refused one). */
static void exec_metrics_free(struct exec_opts *o)
{
	for (int m = 0; m < o->nmetrics; m++)
		regfree(&o->metric[m].re);
	o->nmetrics = 0;
}

/*
 * The comparison table of -o (report's): the --metric ones, rusage, and the
 * preload's, each where a variant that did not fail has rows of it (a
 * failed run's cell is left out, named by report, as run's are). Returns 0,
 * or 1 when no table was printed.
 */
static int exec_table(const struct exec_opts *o, const struct exec_tally *t)
{
	struct lab_report_opts ro = { .path = o->csv, .format = LAB_FMT_TABLE };
	char metrics[1024];
	size_t off = 0;
	unsigned matched = 0;
	bool ok = false, stats = false;

	for (int k = 0; k < o->nlocks; k++)
		if (!t->var[k].failed) {
			ok = true;
			stats |= t->var[k].stats;
			matched |= t->var[k].matched;
		}
	if (!ok) {
		fprintf(stderr, "%s: no table: every variant had a failed run, which tables leave out (rwlab report "
			"--include-failed %s compares them)\n", o->prog, o->csv);
		return 1;
	}
	for (int m = 0; m < o->nmetrics; m++)
		if (matched & 1u << m)
			off += (size_t)snprintf(metrics + off, sizeof(metrics) - off, "%s,", o->metric[m].name);
	/* no ro.baseline: the one the run recorded (exec_baseline()), as `rwlab report FILE` takes it */
	snprintf(metrics + off, sizeof(metrics) - off, "%s%s", LAB_REPORT_EXEC_METRICS,
		 stats ? "," LAB_REPORT_PRELOAD_METRICS : "");
	ro.metric = metrics;
	fflush(stderr);
	return lab_report_print(stdout, &ro) ? 1 : 0;
}

/*
 * The line of runs stopped by Ctrl-C or SIGTERM, in run's words: the rows
 * "went to" stdout, a FIFO or a device, "are in" a file; none measured: -o
 * was not made, a file that @existed left as it was (a stream has its header).
 */
static void exec_say_interrupted(const struct exec_opts *o, int done, bool existed)
{
	bool stream = !strcmp(o->csv, "-") || lab_csv_stream_path(o->csv);
	const char *where = strcmp(o->csv, "-") ? o->csv : "stdout";
	long all = o->iterations * o->nlocks;

	if (done)
		fprintf(stderr, "%s: interrupted after %d of %ld runs; they %s %s (the run in progress %s)\n", o->prog,
			done, all, stream ? "went to" : "are in", where, stream ? "did not" : "is not");
	else
		fprintf(stderr, "%s: interrupted before %s%ld run%s ended; %s %s%s\n", o->prog,
			all > 1 ? "any of its " : "its ", all, all > 1 ? "s" : "",
			stream ? "only the header went to" : "nothing written to", where, existed ? " (left as it was)" : "");
}

static int cmd_exec(int argc, char **argv)
{
	struct exec_opts o = { .prog = "rwlab exec" };
	struct lab_csv_writer w = { .fd = -1, .prog = o.prog };
	char run_id[64], defcsv[128], err[512];
	struct exec_tally t = { 0 };
	bool made, existed;
	int failed;

	if (exec_parse(&o, argc, argv)) {
		exec_metrics_free(&o);
		return 2;
	}
	lab_csv_run_id(run_id, sizeof(run_id));
	if (!o.csv) {
		snprintf(defcsv, sizeof(defcsv), "rwlab-exec-%s.csv", run_id);
		o.csv = defcsv;
	}
	if (lab_csv_open_later(&w, o.csv, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", o.prog, err);
		exec_metrics_free(&o);
		return 2;
	}
	if (!o.quiet)
		exec_notes(&o);
	failed = exec_all(&o, &w, run_id, &t);
	made = !w.later;
	existed = w.later && w.fd >= 0 && !w.made;	/* claimed, never moved nor written */
	lab_csv_close(&w);
	if (failed < 0) {
		exec_metrics_free(&o);
		return 1;	/* -o could not be made or written, or its reader went away: exec_all() said where */
	}
	if (lab_stop_signal()) {
		exec_say_interrupted(&o, t.done, existed);
		exec_metrics_free(&o);
		return 130;
	}
	if (!made) {	/* no run measured (CMD could not start: said), so no -o to say or read back */
		exec_metrics_free(&o);
		return failed ? failed : 1;
	}
	if (!o.quiet)
		fprintf(stderr, "%s: results in %s\n", o.prog, o.csv);
	/* stdout, a FIFO or a device: nothing to read the table back from (reading a FIFO would wait forever) */
	if (!o.no_report && strcmp(o.csv, "-") && !lab_csv_stream_path(o.csv))
		failed |= exec_table(&o, &t);
	exec_metrics_free(&o);
	return failed;
}

const struct lab_cmd lab_exec_cmd = {
	.name = "exec",
	.synopsis = "-l VARIANTS [options] -- CMD [ARGS...]",
	.summary = "a program per variant under librwlab-preload.so (every pthread_rwlock on the variant), as CSV rows",
	.opts = exec_opts,
	.fn = cmd_exec,
	.more = exec_more,
	.in_order = true,
	.operands = LAB_COMP_COMMAND,
};
