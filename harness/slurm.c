/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "csv.h"
#include "merge.h"
#include "slurm.h"

struct slurm_opts {
	const char *matrix, *constraint, *partition, *time;
	char matrix_arg[PATH_MAX], dir[PATH_MAX], self[PATH_MAX];
	int shards;			/* 0: one per comparison block */
	int nblocks, ncells;
	bool submit;
	char **run_args;		/* options after "--" */
	int nrun_args;
};

/*
 * Run @argv and wait. With @out, its stdout is collected into a malloc'd
 * string. Returns the exit status, 128 + signal, or -1 if it could not start.
 */
static int spawn(char *const argv[], char **out)
{
	int pfd[2] = { -1, -1 }, st;
	size_t len = 0, cap = 0;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (out && pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (out) {
			dup2(pfd[1], 1);
			close(pfd[0]);
			close(pfd[1]);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "rwlab: slurm: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out) {
		char buf[4096];
		ssize_t n;

		close(pfd[1]);
		*out = NULL;
		while ((n = read(pfd[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
			if (n < 0)
				continue;
			if (len + (size_t)n + 1 > cap) {
				cap = (len + (size_t)n + 1) * 2;
				*out = realloc(*out, cap);
				if (!*out)
					abort();
			}
			memcpy(*out + len, buf, (size_t)n);
			len += (size_t)n;
			(*out)[len] = 0;
		}
		close(pfd[0]);
		if (!*out)
			*out = strdup("");
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* argv of `rwlab run --matrix M [run options] EXTRA...` (EXTRA: up to 8, NULL-terminated). */
static char **run_argv(const struct slurm_opts *o, const char *const *extra)
{
	char **v = calloc((size_t)o->nrun_args + 16, sizeof(char *));
	int n = 0;

	if (!v)
		abort();
	v[n++] = (char *)o->self;
	v[n++] = "run";
	v[n++] = "--matrix";
	v[n++] = (char *)o->matrix_arg;
	for (int i = 0; i < o->nrun_args; i++)
		v[n++] = o->run_args[i];
	for (; extra && *extra; extra++)
		v[n++] = (char *)*extra;
	return v;
}

/* The plan: `rwlab run ... --list-cells`; counts its comparison blocks and cells. */
static int read_plan(struct slurm_opts *o)
{
	static const char *const extra[] = { "--list-cells", NULL };
	char **v = run_argv(o, extra), *out = NULL, *save = NULL;
	int st = spawn(v, &out), last = 0;

	free(v);
	if (st) {
		free(out);
		return -1;	/* rwlab run said what was wrong */
	}
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int b;

		if (line[0] == '#' || sscanf(line, "%d.", &b) != 1)
			continue;
		o->ncells++;
		if (b != last)
			o->nblocks++;
		last = b;
	}
	free(out);
	return 0;
}

/* @s as one single-quoted shell word. */
static void shell_word(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* Exit status in DIR/shard-I.status, or -1 when the task left none. */
static int shard_status(const struct slurm_opts *o, int i)
{
	char path[PATH_MAX + 32];
	FILE *f;
	int st = -1;

	snprintf(path, sizeof(path), "%s/shard-%d.status", o->dir, i);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &st) != 1)
		st = -1;
	fclose(f);
	return st;
}

static int write_script(const struct slurm_opts *o, const char *path, const char *array)
{
	FILE *f = fopen(path, "w");
	char name[128];
	const char *base = strrchr(o->matrix, '/');
	char **v;

	if (!f) {
		fprintf(stderr, "rwlab: slurm: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(name, sizeof(name), "%s", base ? base + 1 : o->matrix);
	name[strcspn(name, ".")] = 0;
	fprintf(f, "#!/bin/sh\n"
		"# rwlab slurm: matrix %s in %d shards (comparison blocks: %d, cells: %d), one per array task.\n"
		"# Written by 'rwlab slurm'; running it again rewrites the array to the unfinished shards.\n"
		"#SBATCH --job-name=rwlab-%s\n"
		"#SBATCH --array=%s\n"
		"#SBATCH --nodes=1\n"
		"#SBATCH --ntasks=1\n"
		"#SBATCH --exclusive\n"
		"#SBATCH --output=%s/shard-%%a.log\n",
		o->matrix, o->shards, o->nblocks, o->ncells, name, array, o->dir);
	if (o->constraint)
		fprintf(f, "#SBATCH --constraint=%s\n", o->constraint);
	if (o->partition)
		fprintf(f, "#SBATCH --partition=%s\n", o->partition);
	if (o->time)
		fprintf(f, "#SBATCH --time=%s\n", o->time);
	fprintf(f, "i=$SLURM_ARRAY_TASK_ID\n"
		"d=");
	shell_word(f, o->dir);
	fprintf(f, "\nrm -f \"$d/shard-$i.status\"\n"
		"# One task with every CPU of the node, unbound: hwloc sees all of them and\n"
		"# rwlab pins its threads itself (--pin).\n"
		"srun --ntasks=1 --cpus-per-task=\"${SLURM_CPUS_ON_NODE:-1}\" --cpu-bind=none");
	v = run_argv(o, NULL);
	for (char **p = v; *p; p++) {
		fputs(" \\\n\t", f);
		shell_word(f, *p);
	}
	free(v);
	fprintf(f, " \\\n\t--shard \"$i/%d\" -o \"$d/shard-$i.csv\" --resume --no-report\n"
		"st=$?\n"
		"echo \"$st\" >\"$d/shard-$i.status.tmp\" && mv \"$d/shard-$i.status.tmp\" \"$d/shard-$i.status\"\n"
		"exit \"$st\"\n", o->shards);
	if (fclose(f)) {
		fprintf(stderr, "rwlab: slurm: writing '%s' failed: %s\n", path, strerror(errno));
		return -1;
	}
	chmod(path, 0755);
	return 0;
}

/* Merge the shards' CSVs into DIR/merged.csv and print the report. Returns 0, 1 or 2 (merge.h). */
static int merge_and_report(const struct slurm_opts *o)
{
	char **paths = calloc((size_t)o->shards + 1, sizeof(char *)), merged[PATH_MAX + 16];
	struct lab_merge_opts mo = { .mixed_hosts = true };	/* one shard per node, --constraint picks alike */
	int n = 0, st;

	if (!paths)
		abort();
	for (int i = 1; i <= o->shards; i++) {
		char *p;
		struct stat sb;

		if (asprintf(&p, "%s/shard-%d.csv", o->dir, i) < 0)
			abort();
		if (!stat(p, &sb) && sb.st_size)
			paths[n++] = p;
		else
			free(p);
	}
	if (!n) {
		fprintf(stderr, "rwlab: slurm: no shard wrote results in %s\n", o->dir);
		free(paths);
		return 2;
	}
	snprintf(merged, sizeof(merged), "%s/merged.csv", o->dir);
	unlink(merged);		/* derived from the shards' files, which stay */
	mo.paths = (const char *const *)paths;
	mo.npaths = n;
	mo.out = merged;
	st = lab_merge(&mo);
	if (st != 2) {
		char *argv[] = { (char *)o->self, "report", merged, "--matrix", (char *)o->matrix_arg, NULL };

		if (spawn(argv, NULL))
			st = st ? st : 1;
		fprintf(stderr, "merged results: %s\n", merged);
	}
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return st;
}

/* Adding an option: one entry here and one case in parse_args()'s switch. */
static const struct lab_opt slurm_opts[] = {
	{ "matrix", 0, 'M', "NAME|PATH", "the matrix to run (tools/matrices/NAME.matrix, or a path the nodes can "
	  "read)", NULL, NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ "shards", 0, 'N', "N", "array tasks, one shard each", "one per comparison block", NULL, 0, NULL, 1,
	  100000 },
	{ "constraint", 0, 'C', "FEATURES", "sbatch --constraint: nodes of identical hardware", NULL, NULL, 0, NULL,
	  0, 0 },
	{ "partition", 'p', 'p', "P", "sbatch --partition", NULL, NULL, 0, NULL, 0, 0 },
	{ "time", 't', 't', "T", "sbatch --time: each task's limit", NULL, NULL, 0, NULL, 0, 0 },
	{ "dir", 0, 'D', "DIR", "the script, the shards' CSVs, logs and statuses, and merged.csv",
	  "./rwlab-slurm-NAME", NULL, LAB_COMP_FILE, NULL, 0, 0 },
	{ "submit", 0, 'S', NULL, "sbatch --wait, then merge and report (without it: print the sbatch command)",
	  NULL, NULL, 0, NULL, 0, 0 },
	{ 0 }
};

static int parse_args(int argc, char **argv, struct slurm_opts *o)
{
	const char *dir = NULL;
	struct lab_cli cli;
	long v;
	int c;

	if (lab_cli_begin(&cli, &lab_slurm_cmd, argc, argv))
		return -1;
	while ((c = lab_cli_next(&cli)) != -1) {
		switch (c) {
		case 'M': o->matrix = optarg; break;
		case 'C': o->constraint = optarg; break;
		case 'p': o->partition = optarg; break;
		case 't': o->time = optarg; break;
		case 'D': dir = optarg; break;
		case 'S': o->submit = true; break;
		case 'N':
			if (lab_cli_count(&cli, "rwlab: slurm", 'N', &v))
				return -1;
			o->shards = (int)v;
			break;
		default:	/* getopt_long said what was wrong */
			return -1;
		}
	}
	if (!o->matrix) {
		fprintf(stderr, "rwlab: slurm needs --matrix NAME (rwlab slurm --matrix NAME [--submit] [-- run "
			"options])\n");
		return -1;
	}
	o->run_args = argv + optind;
	o->nrun_args = argc - optind;
	/* A matrix file given by path must be found from the nodes too. */
	if (!strchr(o->matrix, '/') || !realpath(o->matrix, o->matrix_arg))
		snprintf(o->matrix_arg, sizeof(o->matrix_arg), "%s", o->matrix);
	if (!dir) {
		static char def[256];
		const char *b = strrchr(o->matrix, '/');

		snprintf(def, sizeof(def), "rwlab-slurm-%s", b ? b + 1 : o->matrix);
		char *dot = strstr(def, ".matrix");

		if (dot && !dot[7])
			*dot = 0;
		dir = def;
	}
	if (strpbrk(dir, " \t\n%")) {
		fprintf(stderr, "rwlab: slurm: --dir '%s' has a blank or '%%': #SBATCH lines cannot quote it\n", dir);
		return -1;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "rwlab: slurm: cannot create '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	if (!realpath(dir, o->dir) || readlink("/proc/self/exe", o->self, sizeof(o->self) - 1) < 0) {
		fprintf(stderr, "rwlab: slurm: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int cmd_slurm(int argc, char **argv)
{
	static struct slurm_opts o;
	char script[PATH_MAX + 16], array[4096] = "";
	int todo = 0, st, sb;

	if (parse_args(argc, argv, &o) || read_plan(&o))
		return 2;
	if (!o.shards)
		o.shards = o.nblocks;
	if (o.shards > o.nblocks) {
		fprintf(stderr, "rwlab: slurm: --shards %d, but the plan has only %d comparison blocks (workload x "
			"thread count) (valid: 1..%d)\n", o.shards, o.nblocks, o.nblocks);
		return 2;
	}
	for (int i = 1; i <= o.shards; i++)
		if (shard_status(&o, i) != 0) {
			snprintf(array + strlen(array), sizeof(array) - strlen(array), "%s%d", todo ? "," : "", i);
			todo++;
		}
	snprintf(script, sizeof(script), "%s/rwlab.sbatch", o.dir);
	if (todo && write_script(&o, script, array))
		return 2;
	if (!o.submit) {
		if (todo)
			printf("%s: %d of %d shards to run (array %s)\nsubmit:  sbatch %s\nthen:    rwlab merge -o "
			       "%s/merged.csv %s/shard-*.csv\n", script, todo, o.shards, array, script, o.dir, o.dir);
		else
			printf("every shard of %s finished: rwlab merge -o %s/merged.csv %s/shard-*.csv\n", o.dir,
			       o.dir, o.dir);
		return 0;
	}
	if (todo) {
		char *sargv[] = { "sbatch", "--wait", script, NULL };

		fprintf(stderr, "rwlab: slurm: submitting %d of %d shards (array %s), waiting\n", todo, o.shards,
			array);
		sb = spawn(sargv, NULL);
		if (sb < 0 || sb == 127) {
			fprintf(stderr, "rwlab: slurm: sbatch could not run: is Slurm installed here?\n");
			return 2;
		}
		for (int i = 1; i <= o.shards && sb; i++)
			if (shard_status(&o, i) >= 0)
				break;
			else if (i == o.shards) {
				fprintf(stderr, "rwlab: slurm: sbatch exited %d and no shard ran (its message is above); "
					"nothing to merge\n", sb);
				return 1;
			}
	}
	/* Which shards still failed, and where their logs are. */
	todo = 0;
	array[0] = 0;
	for (int i = 1; i <= o.shards; i++) {
		int s = shard_status(&o, i);

		if (!s)
			continue;
		if (s < 0)
			fprintf(stderr, "rwlab: slurm: shard %d/%d left no status (did not run or was killed): %s/"
				"shard-%d.log\n", i, o.shards, o.dir, i);
		else
			fprintf(stderr, "rwlab: slurm: shard %d/%d failed (exit %d): %s/shard-%d.log\n", i, o.shards,
				s, o.dir, i);
		snprintf(array + strlen(array), sizeof(array) - strlen(array), "%s%d", todo ? "," : "", i);
		todo++;
	}
	st = merge_and_report(&o);
	if (todo)
		fprintf(stderr, "rwlab: slurm: %d shards unfinished (%s): run the same command again to resubmit "
			"only those\n", todo, array);
	return todo || st ? (st == 2 ? 2 : 1) : 0;
}

const struct lab_cmd lab_slurm_cmd = {
	.name = "slurm",
	.synopsis = "--matrix NAME [options] [-- run options]",
	.summary = "a matrix as a Slurm job array, one shard per task; --submit waits, merges and reports",
	.opts = slurm_opts,
	.fn = cmd_slurm,
	.more = "Each task runs 'rwlab run --matrix NAME [run options] --shard I/N -o\n"
		"DIR/shard-I.csv --resume --no-report'. Re-running the command submits only\n"
		"the shards without a zero DIR/shard-I.status. Exit status: 0 every shard\n"
		"finished and the merge is complete; 1 shards failed or cells are missing;\n"
		"2 bad input, nothing submitted.\n",
};
