/* SPDX-License-Identifier: GPL-2.0-only */
/* One simulated cell in a process of its own: see sim_cell.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_cell.h"

extern char **environ;

bool lab_sim_cell_child(void)
{
	const char *v = getenv(LAB_SIM_CELL_ENV);

	return v && *v;
}

bool lab_sim_cell_quiet(void)
{
	const char *v = getenv(LAB_SIM_QUIET_ENV);

	return v && *v;
}

bool lab_sim_cell_stats(void)
{
	const char *v = getenv(LAB_SIM_CELL_STATS_ENV), *w = getenv("RWLAB_SIM_STATS");

	return (v && (*v == '1' || *v == '2')) || (w && (*w == '1' || *w == '2'));
}

void lab_sim_cell_watch_parent(void)
{
	const char *v = getenv(LAB_SIM_CELL_ENV);
	pid_t run = v ? (pid_t)atol(v) : 0;

	if (run <= 1)
		return;	/* not a cell, or set by hand ("1"): nobody to watch */
	/* The run's process gone (SIGKILL, a crash): its cell goes too, as on its SIGTERM (exit 130). */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != run)	/* gone before the prctl: this process was reparented */
		raise(SIGTERM);
}

static bool env_is(const char *var, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(var, name, len) && var[len] == '=';
}

/*
 * environ with LAB_SIM_CELL_ENV=<this process's id>, when @quiet
 * LAB_SIM_QUIET_ENV=1 (any earlier values dropped), and LAB_SIM_CELL_STATS_ENV
 * given back as RWLAB_SIM_STATS; free the array, not its strings.
 */
static char **cell_env(bool quiet)
{
	static char var[48], q[] = LAB_SIM_QUIET_ENV "=1", stats[64];
	const char *st = getenv(LAB_SIM_CELL_STATS_ENV);
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 4, sizeof(*env));
	if (!env)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!env_is(environ[i], LAB_SIM_CELL_ENV) && !env_is(environ[i], LAB_SIM_QUIET_ENV) &&
		    !env_is(environ[i], LAB_SIM_CELL_STATS_ENV) && !(st && env_is(environ[i], "RWLAB_SIM_STATS")))
			env[k++] = environ[i];
	snprintf(var, sizeof(var), "%s=%ld", LAB_SIM_CELL_ENV, (long)getpid());
	env[k++] = var;
	if (st) {
		snprintf(stats, sizeof(stats), "RWLAB_SIM_STATS=%s", st);
		env[k++] = stats;
	}
	if (quiet)
		env[k] = q;
	return env;
}

/*
 * Start @p's process with @argv, its standard output (and its standard error
 * with @ops->err_too) into a pipe, its standard error into one of its own
 * with @ops->err_apart, with the signal mask @mask (sim_cell.h).
 * Returns 0 or -errno.
 */
static int proc_start(struct lab_sim_proc *p, char *const argv[], const struct lab_sim_cells_ops *ops,
		      const sigset_t *mask)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char **env = cell_env(ops->quiet);
	int fd[2], efd[2] = { -1, -1 }, err;

	if (pipe2(fd, O_CLOEXEC)) {	/* close-on-exec: no other cell's process holds this pipe open */
		err = -errno;
		free(env);
		return err;
	}
	if (ops->err_apart && !ops->err_too && pipe2(efd, O_CLOEXEC)) {
		err = -errno;
		close(fd[0]);
		close(fd[1]);
		free(env);
		return err;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	if (ops->err_too)
		posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	else if (efd[1] >= 0)
		posix_spawn_file_actions_adddup2(&fa, efd[1], 2);
	/* the caller's mask, not the one lab_sim_cells_run() blocks SIGINT and SIGTERM with */
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, mask);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	err = posix_spawn(&p->pid, argv[0], &fa, &at, argv, env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(fd[1]);
	if (efd[1] >= 0)
		close(efd[1]);
	if (err) {
		close(fd[0]);
		if (efd[0] >= 0)
			close(efd[0]);
		p->pid = 0;
		return -err;
	}
	p->fd = fd[0];
	p->errfd = efd[0];
	return 0;
}

/*
 * Read what @p's pipe @fd (p->fd or p->errfd) holds; at the end of both,
 * reap the process. Returns true when @p has finished.
 */
static bool proc_read(struct lab_sim_proc *p, int *fd)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));
	int ws;

	if (n < 0 && errno == EINTR)
		return false;	/* a signal: the caller looks at its stop flag */
	if (n > 0) {
		lab_buf_printf(fd == &p->fd ? &p->out : &p->errout, "%.*s", (int)n, buf);
		return false;
	}
	close(*fd);	/* its end (or a read error: what came is all there is) */
	*fd = -1;
	if (p->fd >= 0 || p->errfd >= 0)
		return false;
	while (waitpid(p->pid, &ws, 0) < 0 && errno == EINTR)
		;
	p->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	p->finished = true;
	return true;
}

/* The cells in flight or waiting for their turn: cell i in slot i % n (lab_sim_cells_run()). */
struct cell_ring {
	struct lab_sim_proc *p;
	int n;
};

static struct lab_sim_proc *slot(const struct cell_ring *r, int i)
{
	return &r->p[i % r->n];
}

/*
 * Wait until a process of cells @from..@to-1 has something to read, and
 * read it; SIGINT and SIGTERM, blocked outside, are let in (@unblocked)
 * only while waiting, so one that came since the caller last looked at its
 * stop flag ends the wait at once. Returns how many finished.
 */
static int procs_wait(const struct cell_ring *r, int from, int to, const sigset_t *unblocked)
{
	struct pollfd *pfd = calloc(2 * (size_t)(to - from), sizeof(*pfd));
	int k = 0, done = 0;

	if (!pfd)
		abort();
	for (int i = from; i < to; i++) {
		if (slot(r, i)->fd >= 0)
			pfd[k++] = (struct pollfd){ .fd = slot(r, i)->fd, .events = POLLIN };
		if (slot(r, i)->errfd >= 0)
			pfd[k++] = (struct pollfd){ .fd = slot(r, i)->errfd, .events = POLLIN };
	}
	if (ppoll(pfd, (nfds_t)k, NULL, unblocked) > 0)	/* else EINTR: a signal, the caller looks at its stop flag */
		for (int i = from, j = 0; i < to; i++) {
			struct lab_sim_proc *p = slot(r, i);
			bool out = p->fd >= 0 && pfd[j++].revents, err = p->errfd >= 0 && pfd[j++].revents;

			if (out)
				done += proc_read(p, &p->fd);
			if (err && p->errfd >= 0)
				done += proc_read(p, &p->errfd);
		}
	free(pfd);
	return done;
}

/* Start cell @i (lab_sim_cells_run()). Returns 1 when it runs, 0 when it could not start (finished, p->err). */
static int cell_start(const struct lab_sim_cells_ops *ops, void *arg, int i, struct lab_sim_proc *p,
		      const sigset_t *mask)
{
	struct lab_sim_argv *a = calloc(1, sizeof(*a));

	if (!a)
		abort();
	*p = (struct lab_sim_proc){ .fd = -1, .errfd = -1 };
	ops->argv(arg, i, a);
	p->err = proc_start(p, a->av, ops, mask);
	p->finished = p->err != 0;
	free(a);
	return !p->finished;
}

/* Stop: SIGTERM to every process of cells @from..@to-1 still running. */
static void procs_term(const struct cell_ring *r, int from, int to)
{
	for (int i = from; i < to; i++)
		if (!slot(r, i)->finished)
			kill(slot(r, i)->pid, SIGTERM);
}

void lab_sim_cells_run(int n, int jobs, const struct lab_sim_cells_ops *ops, void *arg,
		       volatile sig_atomic_t *stop)
{
	/* cells started and not yet handed over: at most the window's (the processes and the outputs in memory) */
	struct cell_ring r = { .n = n < LAB_SIM_CELLS_AHEAD + jobs ? (n ? n : 1) : LAB_SIM_CELLS_AHEAD + jobs };
	int started = 0, handed = 0, running = 0, finished = 0, k = 0;
	sigset_t stopsigs, old, unblocked;
	bool killed = false;

	r.p = calloc((size_t)r.n, sizeof(*r.p));
	if (!r.p)
		abort();
	sigemptyset(&stopsigs);
	sigaddset(&stopsigs, SIGINT);
	sigaddset(&stopsigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &stopsigs, &old);
	unblocked = old;
	sigdelset(&unblocked, SIGINT);
	sigdelset(&unblocked, SIGTERM);
	for (;;) {
		int before = started;

		for (; !*stop && running < jobs && started < n && started - handed < r.n; started++) {
			if (cell_start(ops, arg, started, slot(&r, started), &old))
				running++;
			else
				finished++;
		}
		if ((k || started > before) && ops->progress)
			ops->progress(arg, finished, running);
		if (*stop && !killed) {	/* a signal to this process alone (kill PID) reaches its cells too */
			procs_term(&r, handed, started);
			killed = true;
		}
		for (; handed < started && slot(&r, handed)->finished; handed++) {
			ops->done(arg, handed, slot(&r, handed));
			lab_buf_free(&slot(&r, handed)->out);
			lab_buf_free(&slot(&r, handed)->errout);
		}
		if (!running && (handed == n || *stop))
			break;
		k = running ? procs_wait(&r, handed, started, &unblocked) : 0;
		running -= k;
		finished += k;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(r.p);
}

static int cmp_size_desc(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

int lab_sim_cells_fit(size_t *f, int n, int want, size_t base, size_t avail)
{
	size_t peak = base;
	int fit = 0;

	qsort(f, (size_t)n, sizeof(*f), cmp_size_desc);
	for (; fit < want && fit < n && peak <= avail && f[fit] <= avail - peak; fit++)
		peak += f[fit];
	return fit;
}

int lab_sim_host_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

int lab_sim_cell_rows(const char *csv, size_t len, const char *run_id, const struct lab_context *ctx, const char *pin,
		      const char *headline, struct lab_buf *rows, struct lab_sim_cell_out *out, char *err,
		      size_t errlen)
{
	char want[sizeof(ctx->cmdline) + 64];
	struct lab_csv_table t;
	int n = 0;

	out->failed = false;
	out->nv = 0;
	if (!len)
		return 0;	/* a child that wrote nothing: its cell failed before its rows */
	if (lab_csv_parse(csv, len, "the cell's rows", &t, err, errlen))
		return -1;
	if (!t.context || t.ncols != LAB_CSV_NCOLS || t.torn_line) {
		snprintf(err, errlen, "the cell's rows have %d columns%s, not this schema's %d", t.ncols,
			 t.torn_line ? " and a torn last line" : "", LAB_CSV_NCOLS);
		lab_csv_free(&t);
		return -1;
	}
	for (int i = 0; i < t.nrows; i++, n++) {
		char **f = t.rows[i];

		/* the run's context line holds the child's context: the same but for the shard and the plan */
		for (int c = LAB_CSV_FIRST_CONTEXT; c < LAB_CSV_NCOLS; c++) {
			if (c == LAB_CSV_COL_shard || c == LAB_CSV_COL_plan ||
			    !strcmp(f[c], lab_csv_context_value((enum lab_csv_col)c, ctx, pin, want, sizeof(want))))
				continue;
			snprintf(err, errlen, "the cell's %s is '%s', the run's '%s': its rows cannot take the run's context",
				 lab_csv_schema[c].name, f[c], want);
			lab_csv_free(&t);
			return -1;
		}
		out->failed |= !strcmp(f[LAB_CSV_COL_metric], "cell_failed") && atof(f[LAB_CSV_COL_value]) != 0;
		if (headline && !strcmp(f[LAB_CSV_COL_metric], headline) && out->nv < (int)(sizeof(out->v) / sizeof(out->v[0]))) {
			out->v[out->nv++] = strtod(f[LAB_CSV_COL_value], NULL);
			out->higher = !strcmp(f[LAB_CSV_COL_better], "higher");
		}
		for (int k = 0; k < lab_csv_file_ncols; k++) {	/* the row in the file's layout, with the run's id */
			enum lab_csv_col c = lab_csv_file_row[k];

			if (k)
				lab_buf_printf(rows, ",");
			lab_buf_field(rows, c == LAB_CSV_COL_run ? run_id : f[c]);
		}
		lab_buf_printf(rows, "\n");
	}
	lab_csv_free(&t);
	return n;
}
