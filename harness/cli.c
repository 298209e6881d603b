/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "env.h"
#include "threads.h"
#include "lazy_mm.h"
#include "plugin.h"
#include "rwsem.h"
#include "workload.h"

static const struct lab_opt help_opt = { "help", 'h', 'h', NULL, "this help", NULL, NULL, LAB_COMP_NONE, NULL, 0, 0 };

static int nopts(const struct lab_opt *o)
{
	int n = 0;

	while (o && o[n].lname)
		n++;
	return n;
}

int lab_cli_begin(struct lab_cli *c, const struct lab_cmd *cmd, int argc, char **argv)
{
	int n = nopts(cmd->opts);
	size_t off = 0;

	if (n > LAB_CLI_MAX_OPTS) {
		fprintf(stderr, "rwlab %s: %d options, more than LAB_CLI_MAX_OPTS\n", cmd->name, n);
		return -1;
	}
	memset(c, 0, sizeof(*c));
	*c = (struct lab_cli){ .cmd = cmd, .argc = argc, .argv = argv };
	if (cmd->in_order)
		c->shortopts[off++] = '+';
	c->shortopts[off++] = ':';	/* a missing value returns ':', not '?' (bad_option) */
	for (int i = 0; i <= n; i++) {
		const struct lab_opt *o = i < n ? &cmd->opts[i] : &help_opt;

		c->longopts[i] = (struct option){ o->lname, o->arg ? required_argument : no_argument, NULL, o->key };
		if (o->sname) {
			c->shortopts[off++] = o->sname;
			if (o->arg)
				c->shortopts[off++] = ':';
		}
	}
	c->shortopts[off] = 0;
	optind = 1;
	return 0;
}

/* The table entry getopt_long() answered @key for (a short letter or a long option's key), --help's too. */
static const struct lab_opt *opt_of(const struct lab_cmd *cmd, int key)
{
	for (const struct lab_opt *o = cmd->opts; o && o->lname; o++)
		if (o->key == key || (o->sname && o->sname == key))
			return o;
	return key == help_opt.key ? &help_opt : NULL;
}

/*
 * getopt_long()'s error, as one line naming the command and its options:
 * "rwlab report: unknown option '-o' (valid: -m/--metric, ...; rwlab report --help)"
 * or "rwlab run: -l needs a value (LIST: lock variants, ...)"
 * or "rwlab torture: --kill takes no value (a flag: --kill alone; ...)".
 */
static void bad_option(const struct lab_cli *c, int key)
{
	const char *arg = c->argv[optind - 1] ? c->argv[optind - 1] : "";
	const struct lab_opt *o = key == ':' ? opt_of(c->cmd, optopt) : NULL;

	if (o) {
		fprintf(stderr, "rwlab %s: %.*s needs a value (%s: %s)\n", c->cmd->name, (int)strcspn(arg, "="), arg,
			o->arg, o->help);
		return;
	}
	/* "--kill=1": getopt_long() names the option it knows in optopt */
	o = key == '?' && optopt && !strncmp(arg, "--", 2) && strchr(arg, '=') ? opt_of(c->cmd, optopt) : NULL;
	if (o && !o->arg) {
		fprintf(stderr, "rwlab %s: --%s takes no value (a flag: --%s alone; rwlab %s --help)\n", c->cmd->name,
			o->lname, o->lname, c->cmd->name);
		return;
	}
	if (optopt && !strchr(arg, '='))	/* an unknown letter, maybe among others ("-qo") */
		fprintf(stderr, "rwlab %s: unknown option '-%c' (valid:", c->cmd->name, optopt);
	else
		fprintf(stderr, "rwlab %s: unknown option '%.*s' (valid:", c->cmd->name, (int)strcspn(arg, "="), arg);
	for (const struct lab_opt *p = c->cmd->opts; p && p->lname; p++)
		if (p->sname)
			fprintf(stderr, "%s -%c/--%s", p == c->cmd->opts ? "" : ",", p->sname, p->lname);
		else
			fprintf(stderr, "%s --%s", p == c->cmd->opts ? "" : ",", p->lname);
	fprintf(stderr, "; rwlab %s --help)\n", c->cmd->name);
}

int lab_cli_next(struct lab_cli *c)
{
	int key;

	opterr = 0;	/* bad_option() says it, naming the command */
	key = getopt_long(c->argc, c->argv, c->shortopts, c->longopts, NULL);
	if (key == 'h') {
		lab_cmd_help(stdout, c->cmd);
		exit(0);
	}
	if (key == '?' || key == ':') {
		bad_option(c, key);
		return '?';
	}
	return key;
}

int lab_cli_no_operands(const struct lab_cli *c)
{
	if (optind >= c->argc)
		return 0;
	fprintf(stderr, "%s %s: unexpected argument '%s' (see 'rwlab %s --help')\n", LAB_PROG, c->cmd->name,
		c->argv[optind], c->cmd->name);
	return 2;
}

const char *lab_cli_repeat(const char *first, size_t stride, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(first + (size_t)i * stride, first + (size_t)j * stride))
				return first + (size_t)i * stride;
	return NULL;
}

void lab_cli_span(const struct lab_cli *c, int *from, int *to)
{
	/* getopt_long() leaves optind just past the option; a separate argument is the element before it. */
	*to = optind;
	*from = optind - 1 - (optind >= 2 && optarg == c->argv[optind - 1]);
}

int lab_cli_find(const struct lab_cmd *cmd, int argc, char *const *argv, int key, int *at, int *len,
		 const char **arg)
{
	char **copy = malloc(((size_t)argc + 1) * sizeof(*copy));
	struct lab_cli c;
	int k, found = 0;

	if (!copy)
		return -1;
	memcpy(copy, argv, ((size_t)argc + 1) * sizeof(*copy));
	if (lab_cli_begin(&c, cmd, argc, copy)) {
		free(copy);
		return -1;
	}
	opterr = 0;
	while (!found && (k = getopt_long(c.argc, c.argv, c.shortopts, c.longopts, NULL)) != -1) {
		int from, to;

		if (k != key)
			continue;
		lab_cli_span(&c, &from, &to);
		for (int i = 0; i < argc; i++)	/* the copy may be permuted: find the element by identity */
			if (argv[i] == copy[from])
				*at = i, found = 1;
		*len = to - from;
		*arg = optarg;
	}
	optind = 1;
	free(copy);
	return found;
}

int lab_cli_count(const struct lab_cli *c, const char *prog, int key, long *v)
{
	const struct lab_opt *o = c->cmd->opts;
	char name[64];

	while (o->lname && o->key != key)
		o++;
	if (!o->lname)
		return -1;
	snprintf(name, sizeof(name), "%s%c%s--%s", o->sname ? "-" : "", o->sname ? o->sname : '-',
		 o->sname ? "/" : "", o->lname);
	return lab_opt_count(prog, o->sname ? name : name + 1, optarg, o->min, o->max, v);
}

const struct lab_cmd *lab_cmd_find(const struct lab_cmd *const *cmds, const char *name)
{
	for (const struct lab_cmd *const *c = cmds, *cmd; (cmd = *c); c++)
		if (!strcmp(cmd->name, name))
			return cmd;
	return NULL;
}

/* Print @text from column @col, wrapped at 79 columns, continuation lines indented to @indent. */
void lab_cli_wrap(FILE *f, const char *text, int col, int indent)
{
	while (*text) {
		int room = 79 - col, len = (int)strlen(text), cut = len;

		if (len > room) {
			for (cut = room; cut > 0 && text[cut] != ' '; cut--)
				;
			if (cut == 0)	/* one word longer than the line */
				cut = (int)strcspn(text, " ");
		}
		fprintf(f, "%.*s\n", cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(f, "%*s", indent, "");
		col = indent;
	}
}

/* The unit text of @o: .unit, or "min..max" for a count. */
static void opt_unit(const struct lab_opt *o, char *buf, size_t len)
{
	if (o->unit)
		snprintf(buf, len, "%s", o->unit);
	else if (o->max > o->min)
		snprintf(buf, len, "%ld..%ld", o->min, o->max);
	else
		buf[0] = 0;
}

/* "  -l, --lock LIST" padded to 26 columns, then the help with default and unit. */
static void opt_help(FILE *f, const struct lab_opt *o)
{
	char left[64], text[1024], unit[128];
	int n, off;

	n = snprintf(left, sizeof(left), "  %c%c%s--%s%s%s", o->sname ? '-' : ' ', o->sname ? o->sname : ' ',
		     o->sname ? ", " : "  ", o->lname, o->arg ? " " : "", o->arg ? o->arg : "");
	off = snprintf(text, sizeof(text), "%s", o->help);
	opt_unit(o, unit, sizeof(unit));
	if (o->def || unit[0])
		snprintf(text + off, sizeof(text) - (size_t)off, " (%s%s%s%s)", o->def ? "default " : "",
			 o->def ? o->def : "", o->def && unit[0] ? "; " : "", unit);
	if (n >= 26)
		fprintf(f, "%s\n%26s", left, "");
	else
		fprintf(f, "%-26s", left);
	lab_cli_wrap(f, text, 26, 26);
}

void lab_cmd_help(FILE *f, const struct lab_cmd *cmd)
{
	fprintf(f, "usage: rwlab %s %s\n", cmd->name, cmd->synopsis);
	lab_cli_wrap(f, cmd->summary, 0, 0);
	if (nopts(cmd->opts))
		fprintf(f, "\noptions:\n");
	for (int i = 0; i < nopts(cmd->opts); i++)
		opt_help(f, &cmd->opts[i]);
	opt_help(f, &help_opt);
	if (cmd->more)
		fprintf(f, "\n%s", cmd->more);
}

void lab_cli_usage(FILE *f, const struct lab_cmd *const *cmds)
{
	fprintf(f, "usage: rwlab <command> [options]\n       rwlab --version\n\ncommands:\n");
	for (const struct lab_cmd *const *c = cmds, *cmd; (cmd = *c); c++) {
		fprintf(f, "  %-12s ", cmd->name);
		lab_cli_wrap(f, cmd->summary, 15, 15);
	}
	fprintf(f, "\n'rwlab help COMMAND' or 'rwlab COMMAND --help' lists a command's options.\n");
}

void lab_cli_names(const struct lab_cmd *const *cmds, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (const struct lab_cmd *const *c = cmds, *cmd; (cmd = *c) && off < len; c++)
		off += (size_t)snprintf(buf + off, len - off, "%s, ", cmd->name);
	snprintf(buf + off, off < len ? len - off : 0, "help");
}

const char *lab_list_add(const char *prog, char *buf, size_t len, const char *add, const char *opt)
{
	size_t l = strlen(buf);
	int n = snprintf(buf + l, len - l, "%s%s", l ? "," : "", add);

	if (n < 0 || (size_t)n >= len - l) {
		buf[l] = 0;
		fprintf(stderr, "%s: %s: the list is too long (at most %zu characters)\n", prog, opt, len - 1);
		return NULL;
	}
	return buf;
}

/* roff-escape a help line: backslashes and leading dots/quotes. */
static void roff(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++)
		fputs(*s == '\\' ? "\\e" : *s == '-' ? "\\-" : (char[]){ *s, 0 }, f);
}

/* A tagged paragraph per pair: the first in font @font (I, B), the second under it. */
static void man_pairs(FILE *f, const char *font, const char *const (*pairs)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, ".TP\n.%s ", font);
		roff(f, pairs[i][0]);
		fprintf(f, "\n");
		roff(f, pairs[i][1]);
		fprintf(f, "\n");
	}
}

/* The man page's closing sections: every environment variable (env.h), the files, examples. */
static void man_tail(FILE *f)
{
	static const char *const files[][2] = {
		{ "PREFIX/share/rwlab/matrices/NAME.matrix", "the named matrices (run, report and slurm --matrix NAME)" },
		{ "PREFIX/share/rwlab/reference/NAME.csv", "the published tables (report --reference NAME)" },
		{ "PREFIX/share/rwlab/machines/NAME.machine", "the simulated machines, every value cited (--sim, rwlab sim)" },
		{ "PREFIX/bin/rwlab-sim", "the simulated build, which run and torture --sim re-execute" },
		{ "PREFIX/LIBDIR/librwlab-preload.so", "the pthread_rwlock preload (rwlab exec, LD_PRELOAD)" },
		{ "rwlab-DATE-PID.csv", "run's results when -o is not given; an existing -o FILE is kept as FILE.1" },
		{ "rwlab-results/NAME/REVISION/", "slurm's result root: rwlab.sbatch, shard-I.log and .status, "
		  "HOST/shard-I.csv and HOST/inventory, merged.csv" },
		{ "PREFIX/share/doc/rwlab/README.md", "the whole manual: workloads, variants, the CSV schema, verdicts" },
	};
	static const char *const examples[][2] = {
		{ "rwlab run --matrix quick -o quick.csv", "run the quick matrix, print its table" },
		{ "rwlab run -l rwsem,rwsem-xadd -w pft -t 1-4 -n 5 -o pft.csv", "two variants on pft at 1 to 4 threads" },
		{ "rwlab report pft.csv --format mmtests --baseline rwsem-xadd", "the table as mmtests compare-kernels" },
		{ "rwlab run -l rwsem -w pft --mm-lock mmap,vma,vma-refcnt", "mmap_lock, per-VMA and vm_refcnt side by side" },
		{ "rwlab run --sim generic-64 -l rwsem,rwsem-xadd -t 1,16,64 -d 5ms", "the same on a simulated 64-CPU machine" },
		{ "rwlab exec -l none,rwsem,bravo -n 5 --metric 'qps:higher=QPS: ([0-9.]+)' -- ./server",
		  "a real program under each variant, against no preload" },
		{ "rwlab slurm --matrix rwsem-rework --partition compute --submit", "a matrix as a Slurm job array" },
		{ "rwlab torture -l all -d 30s", "locktorture for every variant" },
	};

	fprintf(f, ".SH EXIT STATUS\n0 success; 1 a cell or a check failed, a report could not be made, "
		   "or the reader of run -o's FIFO or pipe went away; "
		   "2 bad usage (one line names the problem and the valid choices; nothing is run); "
		   "130 interrupted (the finished cells are kept). Each command's own rule is under it above.\n"
		   ".SH ENVIRONMENT\n");
#define ENV_ITEM(name, who, meaning) \
	fprintf(f, ".TP\n.B %s\n(%s) ", name, who); \
	roff(f, meaning); \
	fprintf(f, "\n");
	LAB_ENV_VARS(ENV_ITEM)
#undef ENV_ITEM
	fprintf(f, ".SH FILES\nPREFIX is where rwlab is installed (its binary's ../), so the tree may move; "
		   "run from its build tree, rwlab reads the source tree's tools/matrices, results/reference and "
		   "sim/machines instead.\n");
	man_pairs(f, "I", files, sizeof(files) / sizeof(files[0]));
	fprintf(f, ".SH EXAMPLES\n");
	man_pairs(f, "B", examples, sizeof(examples) / sizeof(examples[0]));
	fprintf(f, ".SH SEE ALSO\n.BR gnuplot (1),\n.BR sbatch (1),\n.BR ld.so (8);\n"
		   ".I PREFIX/share/doc/rwlab/README.md\n(installed with rwlab).\n");
}

void lab_cli_man(FILE *f, const struct lab_cmd *const *cmds, const char *version)
{
	char unit[128];

	fprintf(f, ".TH RWLAB 1 \"\" \"rwlab %s\" \"User Commands\"\n.SH NAME\nrwlab \\- "
		   "re-implemented kernel rwsem generations and peers against mm-shaped workloads\n"
		   ".SH SYNOPSIS\n.B rwlab\n.I command\n[\\fIoptions\\fR]\n.SH COMMANDS\n", version);
	for (const struct lab_cmd *const *c = cmds, *cmd; (cmd = *c); c++) {
		fprintf(f, ".SS \"rwlab %s ", cmd->name);
		roff(f, cmd->synopsis);
		fprintf(f, "\"\n");
		roff(f, cmd->summary);
		fprintf(f, "\n");
		if (cmd->also)
			fprintf(f, "It takes every option of rwlab %s as well, and passes them on.\n", cmd->also->name);
		for (int i = 0; i <= nopts(cmd->opts); i++) {
			const struct lab_opt *o = i < nopts(cmd->opts) ? &cmd->opts[i] : &help_opt;

			fprintf(f, ".TP\n");
			if (o->sname)
				fprintf(f, "\\fB\\-%c\\fR, ", o->sname);
			fprintf(f, "\\fB\\-\\-%s\\fR%s%s\n", o->lname, o->arg ? " \\fI" : "", o->arg ? o->arg : "");
			if (o->arg)
				fprintf(f, "\\fR");
			roff(f, o->help);
			if (o->def) {
				fprintf(f, " (default ");
				roff(f, o->def);
				fprintf(f, ")");
			}
			opt_unit(o, unit, sizeof(unit));
			if (unit[0]) {
				fprintf(f, "; ");
				roff(f, unit);
			}
			fprintf(f, "\n");
		}
		if (cmd->more) {	/* --help's closing text, one paragraph (its line breaks are --help's) */
			char *para = strdup(cmd->more);

			if (!para)
				abort();
			for (char *p = para; *p; p++)
				if (*p == '\n')
					*p = p[1] ? ' ' : 0;
			fprintf(f, ".PP\n");
			roff(f, para);
			fprintf(f, "\n");
			free(para);
		}
	}
	man_tail(f);
}

static void names_of(FILE *f, const struct lab_registry *r)
{
	struct lab_plugin p;

	fprintf(f, "all");
	for (int i = 0; r->describe(i, &p); i++)
		fprintf(f, " %s", p.name);
}

/* What exec -l takes: the variants with both trylocks (the preload needs them), passthrough, none, all. */
static void exec_variants(FILE *f)
{
	fprintf(f, "all none passthrough");
	for (int i = 0; lab_rwsem_variants[i]; i++)
		if (lab_rwsem_preloadable(lab_rwsem_variants[i]))
			fprintf(f, " %s", lab_rwsem_variants[i]->name);
}

/* The bash statement completing a word of kind @k (an option's value or an operand), then return. */
static void comp_words(FILE *f, enum lab_complete k, const char *choices, const struct lab_comp_words *w)
{
	switch (k) {
	case LAB_COMP_FILE:
		fprintf(f, "COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n");
		return;
	case LAB_COMP_DIRS:
		fprintf(f, "COMPREPLY=($(compgen -d -- \"$cur\")); return;;\n");
		return;
	case LAB_COMP_CSV:
		fprintf(f, "COMPREPLY=($(compgen -f -X '!*.csv' -- \"$cur\") $(compgen -d -S / -- \"$cur\")); "
			   "return;;\n");
		return;
	case LAB_COMP_COMMAND:
		fprintf(f, "COMPREPLY=($(compgen -c -- \"$cur\") $(compgen -f -- \"$cur\")); return;;\n");
		return;
	case LAB_COMP_VARIANTS:
	case LAB_COMP_SCHEMES:
	case LAB_COMP_WORKLOADS:
		fprintf(f, "_rwlab_list \"");
		names_of(f, k == LAB_COMP_VARIANTS ? &lab_rwsem_registry :
			    k == LAB_COMP_SCHEMES ? &lab_lazy_mm_registry : &lab_workload_registry);
		fprintf(f, "\"; return;;\n");
		return;
	case LAB_COMP_EXEC_VARIANTS:
		fprintf(f, "_rwlab_list \"");
		exec_variants(f);
		fprintf(f, "\"; return;;\n");
		return;
	case LAB_COMP_MATRICES:	/* the named ones, and .matrix files */
		fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\") $(compgen -f -X '!*.matrix' -- \"$cur\")); "
			   "return;;\n", w && w->matrices ? w->matrices : "");
		return;
	case LAB_COMP_MACHINES:
		fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return;;\n", w && w->machines ? w->machines : "");
		return;
	case LAB_COMP_SIM:	/* list | show MACHINE | validate [MACHINE...] */
		fprintf(f, "if [ \"$COMP_CWORD\" = 2 ]; then COMPREPLY=($(compgen -W \"list show validate\" -- \"$cur\")); "
			   "elif [ \"${COMP_WORDS[2]}\" != list ]; then COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); fi; "
			   "return;;\n", w && w->machines ? w->machines : "");
		return;
	case LAB_COMP_CHOICES:
		fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return;;\n", choices);
		return;
	case LAB_COMP_NONE:
		fprintf(f, "return;;\n");
		return;
	}
}

/* The case arm completing the argument of @o. */
static void comp_arm(FILE *f, const struct lab_opt *o, const struct lab_comp_words *w)
{
	fprintf(f, "\t\t");
	if (o->sname)
		fprintf(f, "-%c|", o->sname);
	fprintf(f, "--%s) ", o->lname);
	comp_words(f, o->complete, o->choices, w);
}

/* The option names of @cmd (and of the command it passes options to), with --help. */
static void comp_option_names(FILE *f, const struct lab_cmd *cmd)
{
	for (int i = 0; i < nopts(cmd->opts); i++)
		fprintf(f, "--%s ", cmd->opts[i].lname);
	for (int i = 0; cmd->also && i < nopts(cmd->also->opts); i++)
		fprintf(f, "--%s ", cmd->also->opts[i].lname);
	fprintf(f, "--%s", help_opt.lname);
}

void lab_cli_bash_completion(FILE *f, const struct lab_cmd *const *cmds, const struct lab_comp_words *w)
{
	fprintf(f, "# bash completion for rwlab, generated by 'rwlab help --bash' from its option tables\n"
		   "_rwlab_list() {\n\tlocal pre=\"\" last=\"$cur\"\n"
		   "\tcase $cur in *,*) pre=\"${cur%%,*},\"; last=\"${cur##*,}\";; esac\n"
		   "\tCOMPREPLY=($(compgen -P \"$pre\" -W \"$1\" -- \"$last\"))\n}\n"
		   "_rwlab() {\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		   "\tif [ \"$COMP_CWORD\" = 1 ]; then\n\t\tCOMPREPLY=($(compgen -W \"");
	for (const struct lab_cmd *const *c = cmds, *cmd; (cmd = *c); c++)
		fprintf(f, "%s ", cmd->name);
	fprintf(f, "help --help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in\n");
	for (const struct lab_cmd *const *c = cmds, *cmd; (cmd = *c); c++) {
		fprintf(f, "\t%s)\n\t\tcase $prev in\n", cmd->name);
		for (int i = 0; i < nopts(cmd->opts); i++)
			if (cmd->opts[i].arg)
				comp_arm(f, &cmd->opts[i], w);
		for (int i = 0; cmd->also && i < nopts(cmd->also->opts); i++) {
			const struct lab_opt *o = &cmd->also->opts[i];
			bool own = false;

			for (int j = 0; j < nopts(cmd->opts); j++)	/* its own option of that name wins */
				own |= !strcmp(cmd->opts[j].lname, o->lname);
			if (o->arg && !own)
				comp_arm(f, o, w);
		}
		fprintf(f, "\t\tesac\n\t\tcase $cur in\n\t\t-*) COMPREPLY=($(compgen -W \"");
		comp_option_names(f, cmd);
		fprintf(f, "\" -- \"$cur\")); return;;\n\t\tesac\n\t\tcase x in\n\t\tx) ");
		comp_words(f, cmd->operands, NULL, w);
		fprintf(f, "\t\tesac\n\t\t;;\n");
	}
	fprintf(f, "\thelp)\n\t\tCOMPREPLY=($(compgen -W \"");
	for (const struct lab_cmd *const *c = cmds, *cmd; (cmd = *c); c++)
		fprintf(f, "%s ", cmd->name);
	fprintf(f, "--man --bash\" -- \"$cur\"));;\n\tesac\n}\ncomplete -F _rwlab rwlab\n");
}

/* Append @n bytes of @s to @buf at *@off, as many as fit before its last byte; *@off counts them all. */
static void cmd_put(char *buf, size_t len, size_t *off, const char *s, size_t n)
{
	if (*off + 1 < len)
		memcpy(buf + *off, s, *off + n < len ? n : len - 1 - *off);
	*off += n;
}

size_t lab_cli_command(int argc, char *const *argv, char *buf, size_t len)
{
	size_t off = 0;

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		bool plain = *w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
					 "-_./:=,%+@") == strlen(w);

		if (i)
			cmd_put(buf, len, &off, " ", 1);
		if (plain) {
			cmd_put(buf, len, &off, w, strlen(w));
			continue;
		}
		cmd_put(buf, len, &off, "'", 1);
		for (; *w; w++)
			cmd_put(buf, len, &off, *w == '\'' ? "'\\''" : w, *w == '\'' ? 4 : 1);	/* ' -> '\'' */
		cmd_put(buf, len, &off, "'", 1);
	}
	if (len)
		buf[off < len ? off : len - 1] = 0;
	if (off >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return off;
}
