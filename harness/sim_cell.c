/* SPDX-License-Identifier: GPL-2.0-only */
/* One simulated cell in a process of its own: see sim_cell.h. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_cell.h"

extern char **environ;

bool lab_sim_cell_child(void)
{
	const char *v = getenv(LAB_SIM_CELL_ENV);

	return v && *v;
}

/* environ with LAB_SIM_CELL_ENV=1 (any earlier value dropped); free the array, not its strings. */
static char **cell_env(void)
{
	size_t n = 0, k = 0, len = strlen(LAB_SIM_CELL_ENV);
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		abort();
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], LAB_SIM_CELL_ENV, len) || environ[i][len] != '=')
			env[k++] = environ[i];
	env[k] = LAB_SIM_CELL_ENV "=1";
	return env;
}

int lab_sim_cell_spawn(char *const argv[], struct lab_buf *out, int *status)
{
	posix_spawn_file_actions_t fa;
	char **env = cell_env(), buf[65536];
	int fd[2], err, ws;
	pid_t pid;
	ssize_t n;

	if (pipe2(fd, O_CLOEXEC)) {
		err = -errno;
		free(env);
		return err;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	err = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(fd[1]);
	if (err) {
		close(fd[0]);
		return -err;
	}
	while ((n = read(fd[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;	/* an interrupt: the child sees it too and ends its cell */
		if (n < 0)
			break;
		lab_buf_printf(out, "%.*s", (int)n, buf);
	}
	close(fd[0]);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

int lab_sim_cell_rows(const char *csv, size_t len, const char *run_id, const char *shard, const char *plan,
		      const char *headline, struct lab_buf *rows, struct lab_sim_cell_out *out, char *err,
		      size_t errlen)
{
	struct lab_csv_table t;
	int n = 0;

	out->failed = false;
	out->nv = 0;
	if (!len)
		return 0;	/* a child that wrote nothing: its cell failed before its rows */
	if (lab_csv_parse(csv, len, "the cell's rows", &t, err, errlen))
		return -1;
	if (t.ncols != LAB_CSV_NCOLS || t.torn_line) {
		snprintf(err, errlen, "the cell's rows have %d columns%s, not this schema's %d", t.ncols,
			 t.torn_line ? " and a torn last line" : "", LAB_CSV_NCOLS);
		lab_csv_free(&t);
		return -1;
	}
	for (int i = 0; i < t.nrows; i++, n++) {
		char **f = t.rows[i];

		f[LAB_CSV_COL_run] = (free(f[LAB_CSV_COL_run]), strdup(run_id));
		f[LAB_CSV_COL_shard] = (free(f[LAB_CSV_COL_shard]), strdup(shard));
		f[LAB_CSV_COL_plan] = (free(f[LAB_CSV_COL_plan]), strdup(plan));
		if (!f[LAB_CSV_COL_run] || !f[LAB_CSV_COL_shard] || !f[LAB_CSV_COL_plan])
			abort();
		out->failed |= !strcmp(f[LAB_CSV_COL_metric], "cell_failed") && atof(f[LAB_CSV_COL_value]) != 0;
		if (headline && !strcmp(f[LAB_CSV_COL_metric], headline) && out->nv < (int)(sizeof(out->v) / sizeof(out->v[0]))) {
			out->v[out->nv++] = strtod(f[LAB_CSV_COL_value], NULL);
			out->higher = !strcmp(f[LAB_CSV_COL_better], "higher");
		}
		for (int c = 0; c < t.ncols; c++) {
			if (c)
				lab_buf_printf(rows, ",");
			lab_buf_field(rows, f[c]);
		}
		lab_buf_printf(rows, "\n");
	}
	lab_csv_free(&t);
	return n;
}
