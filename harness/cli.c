/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
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

int lab_cli_next(struct lab_cli *c)
{
	int key = getopt_long(c->argc, c->argv, c->shortopts, c->longopts, NULL);

	if (key == 'h') {
		lab_cmd_help(stdout, c->cmd);
		exit(0);
	}
	return key;
}

int lab_cli_no_operands(const struct lab_cli *c)
{
	if (optind >= c->argc)
		return 0;
	fprintf(stderr, "%s: unexpected argument '%s' (see 'rwlab %s --help')\n", LAB_PROG, c->argv[optind],
		c->cmd->name);
	return 2;
}

int lab_cli_fail(const char *msg)
{
	fprintf(stderr, "%s: %s\n", LAB_PROG, msg);
	return 2;
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
static void wrap(FILE *f, const char *text, int col, int indent)
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
	wrap(f, text, 26, 26);
}

void lab_cmd_help(FILE *f, const struct lab_cmd *cmd)
{
	fprintf(f, "usage: rwlab %s %s\n", cmd->name, cmd->synopsis);
	wrap(f, cmd->summary, 0, 0);
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
		wrap(f, cmd->summary, 15, 15);
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
	}
	fprintf(f, ".SH EXIT STATUS\n0 success; 1 a cell or a check failed, or a report could not be made; "
		   "2 bad usage (one line names the problem and the valid choices); 130 interrupted.\n"
		   ".SH SEE ALSO\nThe README of the rwlab sources.\n");
}

static void names_of(FILE *f, const struct lab_registry *r)
{
	struct lab_plugin p;

	fprintf(f, "all");
	for (int i = 0; r->describe(i, &p); i++)
		fprintf(f, " %s", p.name);
}

/* The case arm completing the argument of @o. */
static void comp_arm(FILE *f, const struct lab_opt *o)
{
	fprintf(f, "\t\t");
	if (o->sname)
		fprintf(f, "-%c|", o->sname);
	fprintf(f, "--%s) ", o->lname);
	switch (o->complete) {
	case LAB_COMP_FILE:
		fprintf(f, "COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n");
		return;
	case LAB_COMP_VARIANTS:
	case LAB_COMP_SCHEMES:
	case LAB_COMP_WORKLOADS:
		fprintf(f, "_rwlab_list \"");
		names_of(f, o->complete == LAB_COMP_VARIANTS ? &lab_rwsem_registry :
			    o->complete == LAB_COMP_SCHEMES ? &lab_lazy_mm_registry : &lab_workload_registry);
		fprintf(f, "\"; return;;\n");
		return;
	case LAB_COMP_CHOICES:
		fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return;;\n", o->choices);
		return;
	default:
		fprintf(f, "return;;\n");
	}
}

void lab_cli_bash_completion(FILE *f, const struct lab_cmd *const *cmds)
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
				comp_arm(f, &cmd->opts[i]);
		fprintf(f, "\t\tesac\n\t\tCOMPREPLY=($(compgen -W \"");
		for (int i = 0; i <= nopts(cmd->opts); i++) {
			const struct lab_opt *o = i < nopts(cmd->opts) ? &cmd->opts[i] : &help_opt;

			fprintf(f, "--%s%s", o->lname, i < nopts(cmd->opts) ? " " : "");
		}
		fprintf(f, "\" -- \"$cur\"))\n\t\t[ ${#COMPREPLY[@]} = 0 ] && COMPREPLY=($(compgen -f -- \"$cur\"))\n"
			   "\t\t;;\n");
	}
	fprintf(f, "\thelp)\n\t\tCOMPREPLY=($(compgen -W \"");
	for (const struct lab_cmd *const *c = cmds, *cmd; (cmd = *c); c++)
		fprintf(f, "%s ", cmd->name);
	fprintf(f, "\" -- \"$cur\"));;\n\tesac\n}\ncomplete -F _rwlab rwlab\n");
}

const char *lab_cli_command(int argc, char *const *argv, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (int i = 0; i < argc && off + 1 < len; i++) {
		const char *w = argv[i];
		bool plain = *w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
					 "-_./:=,%+@") == strlen(w);
		char word[4096];
		size_t k = 0;

		if (plain) {
			snprintf(word, sizeof(word), "%s", w);
		} else {
			word[k++] = '\'';
			for (; *w && k + 5 < sizeof(word); w++) {
				if (*w == '\'') {	/* ' -> '\'' */
					memcpy(word + k, "'\\''", 4);
					k += 4;
				} else {
					word[k++] = *w;
				}
			}
			word[k++] = '\'';
			word[k] = 0;
		}
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", word);
	}
	if (off >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}
