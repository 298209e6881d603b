/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "csv.h"
#include "env.h"
#include "merge.h"
#include "slurm.h"
#include "version.h"

#define LAB_SLURM_MAX_ARGS 512	/* words on slurm's command line */

struct slurm_opts {
	const char *matrix, *constraint, *partition, *time, *name;
	char matrix_arg[PATH_MAX], dir[PATH_MAX], self[PATH_MAX], namebuf[128];
	int shards;			/* 0: one per comparison block */
	int nblocks, ncells;
	bool submit;
	char **run_args;		/* run's options: given among slurm's, and after "--" */
	int nrun_args;
};

/*
 * Run @argv and wait. With @out, its stdout is collected into a malloc'd
 * string; with @err, its stderr goes into that file. Returns the exit
 * status, 128 + signal, or -1 if it could not start.
 */
static int spawn(char *const argv[], char **out, FILE *err)
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
		if (err)
			dup2(fileno(err), 2);
		execvp(argv[0], argv);
		fprintf(stderr, "rwlab slurm: cannot run %s: %s\n", argv[0], strerror(errno));
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

/* argv of `rwlab run [--matrix M] [run options] EXTRA...` (EXTRA: up to 8, NULL-terminated). */
static char **run_argv(const struct slurm_opts *o, const char *const *extra)
{
	char **v = calloc((size_t)o->nrun_args + 16, sizeof(char *));
	int n = 0;

	if (!v)
		abort();
	v[n++] = (char *)o->self;
	v[n++] = "run";
	if (o->matrix) {
		v[n++] = "--matrix";
		v[n++] = (char *)o->matrix_arg;
	}
	for (int i = 0; i < o->nrun_args; i++)
		v[n++] = o->run_args[i];
	for (; extra && *extra; extra++)
		v[n++] = (char *)*extra;
	return v;
}

/* @f's lines (run's stderr) on stderr, "rwlab run: " said as "rwlab slurm: ": slurm's command line was refused. */
static void said_as_slurm(FILE *f)
{
	static const char run[] = LAB_PROG " run: ";
	char line[8192];

	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, run, sizeof(run) - 1))
			fputs(line, stderr);
		else
			fprintf(stderr, LAB_PROG " slurm: %s", line + sizeof(run) - 1);
	fclose(f);
}

/* A new unlinked file in lab_tmpdir() to write and read back, or NULL after one line on stderr. */
static FILE *tmp_file(void)
{
	char path[PATH_MAX];
	int fd;
	FILE *f = NULL;

	snprintf(path, sizeof(path), "%s/rwlab-slurm-XXXXXX", lab_tmpdir());
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0) {
		unlink(path);
		f = fdopen(fd, "w+");
	}
	if (!f) {
		fprintf(stderr, LAB_PROG " slurm: cannot make a temporary file in %s: %s\n", lab_tmpdir(),
			strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

/*
 * The plan: `rwlab run ... --list-cells`, its lines said as slurm's; counts
 * its comparison blocks and cells. Returns 0, 2 when run refused the
 * options, or 1 when no temporary file could be made for its lines.
 */
static int read_plan(struct slurm_opts *o)
{
	static const char *const extra[] = { "--list-cells", NULL };
	char **v, *out = NULL, *save = NULL;
	FILE *err = tmp_file();
	int st, last = 0;

	if (!err)
		return 1;
	v = run_argv(o, extra);
	st = spawn(v, &out, err);
	said_as_slurm(err);
	free(v);
	if (st) {
		free(out);
		return 2;	/* rwlab run said what was wrong */
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

/* mkdir -p @path. Returns 0 or -1 (errno set). */
static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
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
	char **v;

	if (!f) {
		fprintf(stderr, "rwlab slurm: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "#!/bin/sh\n"
		"# rwlab slurm: %s in %d shard%s (comparison blocks: %d, cells: %d), one per array task.\n"
		"# Written by 'rwlab slurm'; running it again rewrites the array to the unfinished shards.\n"
		"#SBATCH --job-name=rwlab-%s\n"
		"#SBATCH --array=%s\n"
		"#SBATCH --nodes=1\n"
		"#SBATCH --ntasks=1\n"
		"#SBATCH --exclusive\n"
		"#SBATCH --output=%s/shard-%%a.log\n",
		o->name, o->shards, o->shards == 1 ? "" : "s", o->nblocks, o->ncells, o->name, array, o->dir);
	if (o->constraint)
		fprintf(f, "#SBATCH --constraint=%s\n", o->constraint);
	if (o->partition)
		fprintf(f, "#SBATCH --partition=%s\n", o->partition);
	if (o->time)
		fprintf(f, "#SBATCH --time=%s\n", o->time);
	fprintf(f, "i=$SLURM_ARRAY_TASK_ID\nd=");
	shell_word(f, o->dir);
	fprintf(f, "\nh=$(hostname -s)\n"
		"rm -f \"$d/shard-$i.status\"\n"
		"mkdir -p \"$d/$h\" || exit 1\n"
		"# The result root holds one directory per host (as lkp-tests' per host and commit):\n"
		"# its shards' CSVs and its inventory, which 'rwlab merge' compares across hosts.\n");
	shell_word(f, o->self);
	fprintf(f, " list --host >\"$d/$h/inventory.$i\" && mv \"$d/$h/inventory.$i\" \"$d/$h/inventory\"\n"
		"# An earlier attempt of this shard on another host: its cells are that host's, so\n"
		"# they are set aside and the shard starts over here.\n"
		"for f in \"$d\"/*/shard-$i.csv; do\n"
		"\tif [ -e \"$f\" ] && [ \"$f\" != \"$d/$h/shard-$i.csv\" ]; then\n"
		"\t\tmv \"$f\" \"$f.superseded\" && echo \"rwlab slurm: shard $i ran before on another host: kept as $f.superseded; starting over on $h\"\n"
		"\tfi\n"
		"done\n"
		"# One task with every CPU of the node, unbound: hwloc sees all of them and rwlab\n"
		"# pins its threads itself (--pin). --cpu-bind=none only where the cluster binds\n"
		"# tasks (task/affinity); elsewhere srun would say it cannot bind.\n"
		"bind=\n"
		"case $(scontrol show config 2>/dev/null | awk '$1 == \"TaskPlugin\" { print $3 }') in\n"
		"*affinity*) bind=--cpu-bind=none ;;\n"
		"esac\n"
		"srun --ntasks=1 --cpus-per-task=\"${SLURM_CPUS_ON_NODE:-1}\" $bind");
	v = run_argv(o, NULL);
	for (char **p = v; *p; p++) {
		fputs(" \\\n\t", f);
		shell_word(f, *p);
	}
	free(v);
	fprintf(f, " \\\n\t--shard \"$i/%d\" -o \"$d/$h/shard-$i.csv\" --resume --no-report\n"
		"st=$?\n"
		"echo \"$st\" >\"$d/shard-$i.status.tmp\" && mv \"$d/shard-$i.status.tmp\" \"$d/shard-$i.status\"\n"
		"exit \"$st\"\n", o->shards);
	if (fclose(f)) {
		fprintf(stderr, "rwlab slurm: writing '%s' failed: %s\n", path, strerror(errno));
		return -1;
	}
	chmod(path, 0755);
	return 0;
}

/* The shards' CSVs in the result root (DIR/HOST/shard-I.csv), into @g (globfree it). */
static int shard_files(const struct slurm_opts *o, glob_t *g)
{
	char pat[PATH_MAX + 32];

	snprintf(pat, sizeof(pat), "%s/*/shard-*.csv", o->dir);
	memset(g, 0, sizeof(*g));
	return glob(pat, 0, NULL, g) == 0 ? (int)g->gl_pathc : 0;
}

/* Cells finished so far: the distinct (variant, workload, threads) of the shards' CSVs. */
static int cells_done(const struct slurm_opts *o)
{
	glob_t g;
	int n = shard_files(o, &g), done = 0;

	for (int i = 0; i < n; i++) {
		struct lab_csv_table t;
		char err[256];
		int cv, cw, ct;

		if (lab_csv_read(g.gl_pathv[i], &t, err, sizeof(err)))
			continue;
		cv = lab_csv_col(&t, "variant"), cw = lab_csv_col(&t, "workload"), ct = lab_csv_col(&t, "threads");
		for (int r = 0; r < t.nrows && cv >= 0 && cw >= 0 && ct >= 0; r++) {
			bool seen = false;

			for (int q = r - 1; q >= 0 && !seen; q--)
				seen = !strcmp(t.rows[q][cv], t.rows[r][cv]) && !strcmp(t.rows[q][cw], t.rows[r][cw]) &&
				       !strcmp(t.rows[q][ct], t.rows[r][ct]);
			done += !seen;
		}
		lab_csv_free(&t);
	}
	globfree(&g);
	return done;
}

/* Merge the shards' CSVs into DIR/merged.csv and print the report. Returns 0, 1 or 2 (merge.h). */
static int merge_and_report(const struct slurm_opts *o)
{
	char merged[PATH_MAX + 16];
	struct lab_merge_opts mo = { .mixed_hosts = true };	/* one shard per node, --constraint picks alike */
	glob_t g;
	int n = shard_files(o, &g), st;

	if (!n) {
		fprintf(stderr, "rwlab slurm: no shard wrote results in %s\n", o->dir);
		globfree(&g);
		return 2;
	}
	snprintf(merged, sizeof(merged), "%s/merged.csv", o->dir);
	unlink(merged);		/* derived from the shards' files, which stay */
	mo.paths = (const char *const *)g.gl_pathv;
	mo.npaths = n;
	mo.out = merged;
	st = lab_merge(&mo);
	if (st != 2) {
		char *argv[] = { (char *)o->self, "report", merged, o->matrix ? "--matrix" : NULL,
				 (char *)o->matrix_arg, NULL };

		if (spawn(argv, NULL, NULL))
			st = st ? st : 1;
		fprintf(stderr, "merged results: %s\n", merged);
	}
	globfree(&g);
	return st;
}

/* Adding an option: one entry here and one case in parse_args()'s switch. */
static const struct lab_opt slurm_opts[] = {
	{ "matrix", 0, 'M', "NAME|PATH", "a matrix to run (tools/matrices/NAME.matrix, or a path the nodes can "
	  "read); without it the run options alone say what runs", NULL, NULL, LAB_COMP_MATRICES, NULL, 0, 0 },
	{ "name", 0, 'A', "NAME", "the run's name in the result root", "the matrix's name, else run-HASH of the "
	  "run options", NULL, 0, NULL, 0, 0 },
	{ "shards", 0, 'N', "N", "array tasks, one shard each", "one per comparison block", NULL, 0, NULL, 1,
	  100000 },
	{ "constraint", 0, 'C', "FEATURES", "sbatch --constraint: nodes of identical hardware", NULL, NULL, 0, NULL,
	  0, 0 },
	{ "partition", 'p', 'p', "P", "sbatch --partition", NULL, NULL, 0, NULL, 0, 0 },
	{ "time", 0, 'T', "T", "sbatch --time: each task's limit (Slurm's MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)", NULL, NULL, 0, NULL, 0,
	  0 },
	{ "dir", 0, 'D', "DIR", "the result root: the script, the shards' logs and statuses, one directory per "
	  "host (its shards' CSVs, its inventory) and merged.csv", "rwlab-results/NAME/GIT-REVISION", NULL,
	  LAB_COMP_DIRS, NULL, 0, 0 },
	{ "submit", 0, 'S', NULL, "sbatch --wait with progress (cells done of all), then merge and report "
	  "(without it: print the sbatch command)", NULL, NULL, 0, NULL, 0, 0 },
	{ 0 }
};

static const char slurm_more[] =
	"Every option of 'rwlab run' (-l, -w, -t, -n, -d, ...; rwlab run --help) is\n"
	"given to each shard's run, before -- or after it; -t is run's thread list, as\n"
	"everywhere (the job's time limit is --time). Each array task runs\n"
	"'rwlab run [--matrix NAME] [run options] --shard I/N -o DIR/HOST/shard-I.csv\n"
	"--resume --no-report' after writing DIR/HOST/inventory (rwlab list --host).\n"
	"Re-running the command submits only the shards without a zero\n"
	"DIR/shard-I.status. Exit status: 0 every shard finished and the merge is\n"
	"complete; 1 shards failed or cells are missing; 2 bad input, nothing\n"
	"submitted.\n";

/* run's options that slurm sets itself for every shard (--sim, which it does not pass on, apart). */
static bool slurm_owned(const char *lname)
{
	static const char *const own[] = { "csv", "resume", "shard", "list-cells", "no-report", NULL };

	for (int i = 0; own[i]; i++)
		if (!strcmp(own[i], lname))
			return true;
	return false;
}

/*
 * slurm's options and run's side by side, for one getopt pass: slurm's
 * keep their keys, run's get 0x200 + their index (run's short letters
 * stay, and slurm has only -p, which run does not use).
 */
static struct lab_opt comb_opts[LAB_CLI_MAX_OPTS + 1];
static struct lab_cmd comb_cmd;

static void comb_build(void)
{
	int n = 0;

	const struct lab_opt *run = lab_run_cmd.opts;

	for (int i = 0; slurm_opts[i].lname; i++)
		comb_opts[n++] = slurm_opts[i];
	for (int i = 0; run[i].lname && n < LAB_CLI_MAX_OPTS; i++) {
		if (!strcmp(run[i].lname, "matrix"))
			continue;
		comb_opts[n] = run[i];
		comb_opts[n++].key = 0x200 + i;
	}
	comb_opts[n] = (struct lab_opt){ 0 };
	comb_cmd = lab_slurm_cmd;
	comb_cmd.opts = comb_opts;
}

/* The run option of @key (0x200 + index, or a short letter), or NULL. */
static const struct lab_opt *run_opt_of(int key)
{
	if (key >= 0x200)
		return &lab_run_cmd.opts[key - 0x200];
	for (int i = 0; lab_run_cmd.opts[i].lname; i++)
		if (lab_run_cmd.opts[i].sname == key)
			return &lab_run_cmd.opts[i];
	return NULL;
}

/* Is @t one of sbatch --time's forms: [D-]N[:N[:N]] (MM, MM:SS, HH:MM:SS; D-HH, D-HH:MM, D-HH:MM:SS)? */
static bool slurm_time_ok(const char *t)
{
	size_t n = strspn(t, "0123456789");
	int fields = 0;

	if (!strcasecmp(t, "INFINITE") || !strcasecmp(t, "UNLIMITED"))	/* sbatch(1): no limit */
		return true;
	if (n && t[n] == '-')	/* days */
		t += n + 1;
	for (;; t++) {	/* up to three fields of digits, ':' between them */
		n = strspn(t, "0123456789");
		if (!n || n > 9 || ++fields > 3)
			return false;
		t += n;
		if (*t != ':')
			return !*t;
	}
}

static int parse_args(int argc, char **argv, struct slurm_opts *o)
{
	/* run's options as each shard gets them: static, as they live until the command ends */
	static char *rargs[2 * LAB_SLURM_MAX_ARGS + 1], names[LAB_SLURM_MAX_ARGS][48];
	const char *dir = NULL;
	struct lab_cli cli;
	int nr = 0, nn = 0, c;
	long v;

	if (argc > LAB_SLURM_MAX_ARGS) {
		fprintf(stderr, "rwlab slurm: %d arguments, more than %d\n", argc - 1, LAB_SLURM_MAX_ARGS - 1);
		return -1;
	}
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {	/* slurm's own, not run's too */
			lab_cmd_help(stdout, &lab_slurm_cmd);
			exit(0);
		}
	comb_build();
	if (lab_cli_begin(&cli, &comb_cmd, argc, argv))
		return -1;
	while ((c = lab_cli_next(&cli)) != -1) {
		const struct lab_opt *ro = c == 'p' ? NULL : run_opt_of(c);

		if (ro) {	/* a run option: each shard's run gets it */
			if (!strcmp(ro->lname, "sim")) {
				fprintf(stderr, "rwlab slurm: the shards run natively: --sim is not passed on (valid "
					"here: the other run options; a simulated run: rwlab run --sim MACHINE, which "
					"--shard I/N splits too)\n");
				return -1;
			}
			if (slurm_owned(ro->lname)) {
				fprintf(stderr, "rwlab slurm: --%s of each shard's run is set by slurm itself (valid "
					"here: the other run options; --dir for the result root)\n", ro->lname);
				return -1;
			}
			snprintf(names[nn], sizeof(names[0]), "--%s", ro->lname);	/* at most one per argv word */
			rargs[nr++] = names[nn++];
			if (ro->arg)
				rargs[nr++] = optarg;
			continue;
		}
		switch (c) {
		case 'M': o->matrix = optarg; break;
		case 'A': o->name = optarg; break;
		case 'C': o->constraint = optarg; break;
		case 'p': o->partition = optarg; break;
		case 'T':
			if (!slurm_time_ok(optarg)) {	/* the script failed later, or sbatch said so, exit 1 */
				fprintf(stderr, "rwlab slurm: bad --time '%s' (valid: Slurm's MM, MM:SS, HH:MM:SS, "
					"D-HH, D-HH:MM, D-HH:MM:SS, INFINITE or UNLIMITED)\n", optarg);
				return -1;
			}
			o->time = optarg;
			break;
		case 'D': dir = optarg; break;
		case 'S': o->submit = true; break;
		case 'N':
			if (lab_cli_count(&cli, "rwlab slurm", 'N', &v))
				return -1;
			o->shards = (int)v;
			break;
		default:	/* lab_cli_next() said what was wrong */
			return -1;
		}
	}
	for (int i = optind; i < argc; i++)	/* after "--": run options as they are */
		rargs[nr++] = argv[i];
	o->run_args = rargs;
	o->nrun_args = nr;
	/* A matrix file given by path must be found from the nodes too. */
	if (o->matrix && (!strchr(o->matrix, '/') || !realpath(o->matrix, o->matrix_arg)))
		snprintf(o->matrix_arg, sizeof(o->matrix_arg), "%s", o->matrix);
	if (!o->name && o->matrix) {
		const char *b = strrchr(o->matrix, '/');

		snprintf(o->namebuf, sizeof(o->namebuf), "%s", b ? b + 1 : o->matrix);
		if (strlen(o->namebuf) > 7 && !strcmp(o->namebuf + strlen(o->namebuf) - 7, ".matrix"))
			o->namebuf[strlen(o->namebuf) - 7] = 0;
		o->name = o->namebuf;
	} else if (!o->name) {	/* run-HASH: FNV-1a of the run options, so one command keeps one root */
		uint32_t h = 2166136261u;

		for (int i = 0; i < nr; i++)
			for (const char *p = rargs[i]; ; p++) {
				h = (h ^ (unsigned char)*p) * 16777619u;
				if (!*p)
					break;
			}
		snprintf(o->namebuf, sizeof(o->namebuf), "run-%08x", h);
		o->name = o->namebuf;
	}
	if (strpbrk(o->name, " \t\n%/'")) {
		fprintf(stderr, "rwlab slurm: --name '%s' has a blank, '/', quote or '%%' (valid: a file name "
			"without them)\n", o->name);
		return -1;
	}
	if (!dir) {
		static char def[PATH_MAX];

		snprintf(def, sizeof(def), "rwlab-results/%s/%s", o->name, LAB_GIT_REV);
		dir = def;
	}
	if (strpbrk(dir, " \t\n%")) {
		fprintf(stderr, "rwlab slurm: --dir '%s' has a blank or '%%': #SBATCH lines cannot quote it\n", dir);
		return -1;
	}
	if (strlen(dir) >= sizeof(o->dir)) {
		fprintf(stderr, "rwlab slurm: --dir '%.40s...' is longer than %zu bytes\n", dir, sizeof(o->dir) - 1);
		return -1;
	}
	strcpy(o->dir, dir);	/* made once the plan is known (make_dir()): a refused plan leaves none */
	if (readlink("/proc/self/exe", o->self, sizeof(o->self) - 1) < 0) {
		fprintf(stderr, "rwlab slurm: /proc/self/exe: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* mkdir -p o->dir, then o->dir its absolute path. Returns 0, or -1 after one line. */
static int make_dir(struct slurm_opts *o)
{
	char abs[PATH_MAX];

	if (mkdir_p(o->dir)) {
		fprintf(stderr, "rwlab slurm: cannot create '%s': %s\n", o->dir, strerror(errno));
		return -1;
	}
	if (!realpath(o->dir, abs)) {
		fprintf(stderr, "rwlab slurm: %s: %s\n", o->dir, strerror(errno));
		return -1;
	}
	strcpy(o->dir, abs);
	return 0;
}

/* Which shards have no zero status: their list in @array. Returns how many. */
static int unfinished(const struct slurm_opts *o, char *array, size_t len, bool say)
{
	int todo = 0;

	array[0] = 0;
	for (int i = 1; i <= o->shards; i++) {
		int s = shard_status(o, i);

		if (!s)
			continue;
		if (say && s < 0)
			fprintf(stderr, "rwlab slurm: shard %d/%d left no status (did not run or was killed): %s/"
				"shard-%d.log\n", i, o->shards, o->dir, i);
		else if (say)
			fprintf(stderr, "rwlab slurm: shard %d/%d failed (exit %d): %s/shard-%d.log\n", i, o->shards,
				s, o->dir, i);
		snprintf(array + strlen(array), len - strlen(array), "%s%d", todo ? "," : "", i);
		todo++;
	}
	return todo;
}

/*
 * sbatch --wait on the script, in a child; meanwhile, every 2 s, the cells
 * the shards' CSVs hold and the shards finished, on stderr when they change.
 * Returns sbatch's exit status (127: it could not run).
 */
static int submit_and_watch(const struct slurm_opts *o, const char *script)
{
	char *sargv[] = { "sbatch", "--wait", (char *)script, NULL };
	bool tty = isatty(2);
	int last = -1, st;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return 127;
	if (!pid) {
		execvp(sargv[0], sargv);
		fprintf(stderr, "rwlab slurm: cannot run sbatch: %s\n", strerror(errno));
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		int done = cells_done(o), fin = 0;

		for (int i = 1; i <= o->shards; i++)
			fin += shard_status(o, i) == 0;
		if (done * 1000 + fin != last) {
			fprintf(stderr, "%srwlab slurm: %d of %d cells done, %d of %d shards finished%s", tty ? "\r\033[K" : "",
				done, o->ncells, fin, o->shards, tty ? "" : "\n");
			last = done * 1000 + fin;
		}
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		sleep(2);
	}
	if (tty)
		fputc('\n', stderr);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int cmd_slurm(int argc, char **argv)
{
	static struct slurm_opts o;
	char script[PATH_MAX + 16], array[4096] = "";
	int todo, st, sb;

	if (parse_args(argc, argv, &o))
		return 2;
	if ((st = read_plan(&o)))
		return st;
	if (!o.shards)
		o.shards = o.nblocks;
	if (o.shards > o.nblocks) {
		fprintf(stderr, "rwlab slurm: --shards %d, but the plan has only %d comparison block%s (workload x "
			"thread count) (valid: 1..%d)\n", o.shards, o.nblocks, o.nblocks == 1 ? "" : "s", o.nblocks);
		return 2;
	}
	if (make_dir(&o))
		return 2;
	todo = unfinished(&o, array, sizeof(array), false);
	snprintf(script, sizeof(script), "%s/rwlab.sbatch", o.dir);
	if (todo && write_script(&o, script, array))
		return 2;
	if (!o.submit) {
		if (todo)
			printf("result root: %s\n%s: %d of %d shard%s to run (array %s)\nsubmit:  sbatch %s\n"
			       "then:    rwlab merge --mixed-hosts -o %s/merged.csv %s/*/shard-*.csv\n"
			       "or:      the same rwlab slurm command with --submit (waits, shows progress, merges)\n",
			       o.dir, script, todo, o.shards, o.shards == 1 ? "" : "s", array, script, o.dir, o.dir);
		else
			printf("every shard of %s finished: rwlab merge --mixed-hosts -o %s/merged.csv %s/*/shard-*.csv\n", o.dir,
			       o.dir, o.dir);
		return 0;
	}
	if (todo) {
		fprintf(stderr, "rwlab slurm: submitting %d of %d shards (array %s) of %s, %d cells; result root %s\n",
			todo, o.shards, array, o.name, o.ncells, o.dir);
		sb = submit_and_watch(&o, script);
		if (sb == 127) {
			fprintf(stderr, "rwlab slurm: sbatch could not run: is Slurm installed here? (tools/slurm-one-node "
				"starts a one-node cluster to try it)\n");
			return 2;
		}
		for (int i = 1; i <= o.shards && sb; i++)
			if (shard_status(&o, i) >= 0)
				break;
			else if (i == o.shards) {
				fprintf(stderr, "rwlab slurm: sbatch exited %d and no shard ran (its message is above); "
					"nothing to merge\n", sb);
				return 1;
			}
	}
	/* Which shards still failed, and where their logs are. */
	todo = unfinished(&o, array, sizeof(array), true);
	st = merge_and_report(&o);
	if (todo)
		fprintf(stderr, "rwlab slurm: %d shard%s unfinished (%s): run the same command again to resubmit "
			"only %s\n", todo, todo == 1 ? "" : "s", array, todo == 1 ? "that one" : "those");
	return todo || st ? (st == 2 ? 2 : 1) : 0;
}

const struct lab_cmd lab_slurm_cmd = {
	.name = "slurm",
	.synopsis = "[--matrix NAME] [options] [run options] [-- run options]",
	.summary = "any run as a Slurm job array, one shard per task; --submit waits with progress, merges and "
		   "reports",
	.opts = slurm_opts,
	.fn = cmd_slurm,
	.more = slurm_more,
	.also = &lab_run_cmd,
};
