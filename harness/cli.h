/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/cli.h - the table-driven command line.
 *
 * Each subcommand is one struct lab_cmd (listed in lab_cmds[], cmds.h) with
 * a table of struct lab_opt. From the tables come: the getopt_long short and long
 * option strings, `rwlab CMD --help` / `-h` / `rwlab help CMD` (with
 * defaults and units), the usage list of bare `rwlab help`, the man page
 * (`rwlab help --man`) and the bash completion (`rwlab help --bash`).
 *
 * Adding an option is one entry in its command's table (the handler's
 * switch gets one case for its key); adding a subcommand: cmds.h. -h/--help
 * is added to every table.
 *
 * Threading: single-threaded (getopt_long's globals).
 */
#pragma once

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* What bash completion offers for an option's argument, or for a command's operands. */
enum lab_complete {
	LAB_COMP_NONE,		/* free text */
	LAB_COMP_FILE,		/* a path */
	LAB_COMP_VARIANTS,	/* lock variant names and all */
	LAB_COMP_SCHEMES,	/* lazy-mm scheme names and all */
	LAB_COMP_WORKLOADS,	/* workload names and all */
	LAB_COMP_CHOICES,	/* the words of .choices */
	LAB_COMP_MATRICES,	/* matrix names (struct lab_comp_words) and .matrix files */
	LAB_COMP_DIRS,		/* a directory */
	LAB_COMP_MACHINES,	/* simulated machine names (struct lab_comp_words) */
	LAB_COMP_EXEC_VARIANTS,	/* what exec -l takes: variants with both trylocks, passthrough, none, all */
	LAB_COMP_CSV,		/* results files: *.csv (and directories on the way) */
	LAB_COMP_COMMAND,	/* a program (exec's CMD) */
	LAB_COMP_SIM,		/* sim's operands: list | show MACHINE | validate [MACHINE...] */
};

struct lab_opt {
	const char *lname;	/* long name, without "--" */
	char sname;		/* short letter, or 0 */
	int key;		/* what lab_cli_next() returns: sname, or a private letter */
	const char *arg;	/* argument placeholder ("LIST", "DUR"); NULL: a flag */
	const char *help;	/* one line, no default */
	const char *def;	/* default shown as "(default: DEF)"; NULL: none */
	const char *unit;	/* units of the argument ("s, ms, us or m"); NULL: none */
	enum lab_complete complete;
	const char *choices;	/* LAB_COMP_CHOICES: space-separated words */
	long min, max;		/* a count in [min, max] (max > min): lab_cli_count() checks it and
				 * --help shows "min..max" when .unit is NULL */
};

struct lab_cmd {
	const char *name;
	const char *synopsis;	/* after "rwlab NAME ": "FILE.csv [options]" */
	const char *summary;	/* one line for `rwlab help` */
	const struct lab_opt *opts;	/* terminated by an entry with lname NULL */
	int (*fn)(int argc, char **argv);	/* argv[0] is "rwlab"; returns the exit status */
	const char *more;	/* text printed after the options in --help, or NULL */
	bool in_order;		/* options end at the first operand (getopt's "+"): the operands
				 * are another program's command line (exec) */
	enum lab_complete operands;	/* what completion offers for an operand (LAB_COMP_NONE: nothing) */
	const struct lab_cmd *also;	/* a command whose options this one takes too and passes on (slurm:
					 * run's); completion offers them */
};

/*
 * The completion's words that live in files, not in tables (the machine
 * files, the matrices): the caller looks them up (main.c), so that cli.c
 * stays below the commands. Space-separated; NULL: none.
 */
struct lab_comp_words {
	const char *machines;	/* "generic- icx-8336c-2s128 ..." */
	const char *matrices;	/* "quick rwsem-rework ..." */
};


/*
 * The program's name: a command's error messages begin with it and the
 * command's, "rwlab run: bad --seed ..." (each command's PROG); where an
 * option came from a matrix file, run passes "rwlab run: FILE:LINE"
 * explicitly instead (cmd_run.c). "rwlab:" alone is the dispatcher's. The
 * libraries' lines begin the same way: main() sets "rwlab CMD" once with
 * lab_prog_set() (locks/err.h) before it dispatches, lab_err() reads it.
 */
#define LAB_PROG "rwlab"

#define LAB_CLI_MAX_OPTS 48	/* options in one command's table */

/* The option iterator of one command (lab_cli_begin, then lab_cli_next). */
struct lab_cli {
	const struct lab_cmd *cmd;
	int argc;
	char **argv;
	char shortopts[2 * LAB_CLI_MAX_OPTS + 4];
	struct option longopts[LAB_CLI_MAX_OPTS + 2];
};

/*
 * lab_cli_begin() - prepare to parse @argv (argv[0] the program) against
 * @cmd's table. Returns 0 or -1 (a table longer than LAB_CLI_MAX_OPTS).
 */
int lab_cli_begin(struct lab_cli *c, const struct lab_cmd *cmd, int argc, char **argv);

/*
 * lab_cli_next() - the next option's key (optarg holds its argument), or -1
 * at the end, or '?' after getopt_long printed an error. -h/--help prints
 * the command's help on stdout and exits 0.
 */
int lab_cli_next(struct lab_cli *c);

/*
 * lab_cli_no_operands() - after lab_cli_next() returned -1, for a command
 * that takes options only: 0, or 2 after "rwlab CMD: unexpected argument
 * 'X' (see 'rwlab CMD --help')".
 */
int lab_cli_no_operands(const struct lab_cli *c);

/*
 * lab_cli_repeat() - of @n labels @stride bytes apart from @first (the
 * label arrays of a list of variants, schemes or workloads: &a[0].label,
 * sizeof(a[0])), the first that repeats an earlier one, or NULL. A list
 * entry given twice would be measured twice, its rows repeated in the CSV,
 * which report and --resume refuse: the commands refuse the list instead.
 */
const char *lab_cli_repeat(const char *first, size_t stride, int n);

/*
 * lab_cli_find() - where the first option whose key is @key lies in @argv, by
 * a silent getopt_long() pass over a copy against @cmd's table (so a value
 * that looks like the option, "-o --matrix", is a value, and "--" ends the
 * options, as the real parse reads them). On success *@at is its index in
 * @argv, *@len its elements (1: "--opt=V" or "-oV"; 2: "--opt V") and *@arg
 * its value. Returns 1 found, 0 not found, -1 out of memory. getopt's state
 * (optind) is reset for the real parse. Not thread-safe (getopt).
 */
int lab_cli_find(const struct lab_cmd *cmd, int argc, char *const *argv, int key, int *at, int *len,
		 const char **arg);

/*
 * lab_cli_span() - where the option lab_cli_next() last returned lies in
 * the argv given to lab_cli_begin(): elements [*from, *to). For an option
 * with an argument that is whole elements: any long option ("--sim M" or
 * "--sim=M"), not a short one bundled with others ("-qnM"). How run and
 * torture take --sim out of the command line they hand on (sim_cmd.h).
 */
void lab_cli_span(const struct lab_cli *c, int *from, int *to);

/*
 * lab_cli_count() - optarg of option @key as a count in its table entry's
 * [min, max]. Returns 0, or -1 after "PROG: bad value 'ARG' for -n/--reps
 * (an integer in MIN..MAX)".
 */
int lab_cli_count(const struct lab_cli *c, const char *prog, int key, long *v);

/*
 * The functions that walk a command table take it, NULL-terminated, as
 * @cmds: rwlab's is lab_cmds[] (cmds.h); cli.c itself names no command.
 */

/* The command named @name in @cmds, or NULL. */
const struct lab_cmd *lab_cmd_find(const struct lab_cmd *const *cmds, const char *name);

/* `rwlab CMD --help`. */
void lab_cmd_help(FILE *f, const struct lab_cmd *cmd);

/* Bare `rwlab help`: the commands, one line each. */
void lab_cli_usage(FILE *f, const struct lab_cmd *const *cmds);

/* "list, run, report, ...": the command names. */
void lab_cli_names(const struct lab_cmd *const *cmds, char *buf, size_t len);

/*
 * The command line @argv as a shell would take it back, for a record:
 * words joined by blanks, a word with characters the shell treats
 * specially single-quoted. Cut (ending "...") at @len - 1 bytes. Returns
 * the length of the whole command, as snprintf() does: @len or more, it was
 * cut (@len 0 and @buf NULL: only the length). Threading: pure.
 */
size_t lab_cli_command(int argc, char *const *argv, char *buf, size_t len);

/*
 * Is @name one of the comma-separated items of @list (exactly, as the list
 * parsers take them: no spaces)? NULL @list holds nothing. Threading: pure.
 */
static inline bool lab_list_has(const char *list, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == nl && !strncmp(p, name, nl))
			return true;
		p += l;
		if (*p == ',')
			p++;
	}
	return false;
}

/*
 * lab_list_add() - append @add to the comma-separated list in @buf of @len
 * bytes (a repeated list option: -l a -l b is -l a,b, for every command).
 * Returns @buf, or NULL after "PROG: OPT: the list is too long (at most N
 * characters)" on stderr, @buf unchanged. Threading: pure but for stderr.
 */
const char *lab_list_add(const char *prog, char *buf, size_t len, const char *add, const char *opt);

/*
 * lab_cli_wrap() - @text from column @col, wrapped at 79 columns at blanks,
 * continuation lines indented to @indent (--help's layout, sim list's).
 */
void lab_cli_wrap(FILE *f, const char *text, int col, int indent);

/* The man page rwlab(1), roff, from the tables. */
void lab_cli_man(FILE *f, const struct lab_cmd *const *cmds, const char *version);

/* A bash completion script for rwlab, from the tables. */
void lab_cli_bash_completion(FILE *f, const struct lab_cmd *const *cmds, const struct lab_comp_words *w);
