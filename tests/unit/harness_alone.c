/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * librwlab-harness.a stands alone: this program links every object of the
 * library (meson's link_whole, i.e. --whole-archive) with its own main() and
 * without harness/main.c, so a name that only main.c defined (the command
 * table, the error prefix, the list helpers) fails the link. It then checks
 * the command table the library carries: every LAB_CMDS entry reachable by
 * name, in order, with an option table, a function and help text, and the
 * list helper's error naming the prefix it is given.
 * Not Criterion: a plain main(), so that nothing else supplies one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"

static int fails;

#define CHECK(cond, ...)                                          \
	do {                                                      \
		if (!(cond)) {                                    \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);             \
			fputc('\n', stderr);                      \
			fails++;                                  \
		}                                                 \
	} while (0)

/* cmds.h's list, as the X-macro gives it: the table must hold exactly these, in this order. */
static const struct lab_cmd *const listed[] = {
#define LISTED(id) &lab_##id##_cmd,
	LAB_CMDS(LISTED)
#undef LISTED
};

int main(void)
{
	size_t n = 0, len;
	char *help, names[512], buf[8];
	FILE *f;


	for (; lab_cmds[n]; n++) {
		const struct lab_cmd *cmd = lab_cmds[n];

		CHECK(n < sizeof(listed) / sizeof(listed[0]) && cmd == listed[n], "lab_cmds[%zu] is not LAB_CMDS' entry",
		      n);
		CHECK(cmd->name && cmd->synopsis && cmd->summary && cmd->opts && cmd->fn, "command %zu incomplete", n);
		CHECK(lab_cmd_find(lab_cmds, cmd->name) == cmd, "lab_cmd_find(\"%s\") does not find it", cmd->name);
		for (size_t j = 0; j < n; j++)
			CHECK(strcmp(lab_cmds[j]->name, cmd->name), "command '%s' listed twice", cmd->name);
		f = open_memstream(&help, &len);
		lab_cmd_help(f, cmd);
		fclose(f);
		CHECK(!strncmp(help, "usage: rwlab ", 13) && strstr(help, cmd->name) && strstr(help, "--help"),
		      "'%s --help' is not a help text:\n%s", cmd->name, help);
		free(help);
	}
	CHECK(n == sizeof(listed) / sizeof(listed[0]), "lab_cmds has %zu commands, LAB_CMDS %zu", n,
	      sizeof(listed) / sizeof(listed[0]));
	lab_cli_names(lab_cmds, names, sizeof(names));
	CHECK(strstr(names, "bench-lazy") && strstr(names, "help"), "lab_cli_names: '%s'", names);

	/* The list helper: appends, and names the prefix it is given when full. */
	buf[0] = 0;
	CHECK(lab_list_add("rwlab: m.matrix:3", buf, sizeof(buf), "a", "-l") && !strcmp(buf, "a"), "first add");
	CHECK(lab_list_add("rwlab", buf, sizeof(buf), "bc", "-l") && !strcmp(buf, "a,bc"), "second add: '%s'", buf);
	{
		char msg[256] = "";
		FILE *tmp = tmpfile();
		int saved = dup(2);
		const char *r;

		fflush(stderr);
		dup2(fileno(tmp), 2);
		r = lab_list_add("rwlab: m.matrix:3", buf, sizeof(buf), "defgh", "-l");
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		rewind(tmp);
		if (!fgets(msg, sizeof(msg), tmp))
			msg[0] = 0;
		fclose(tmp);
		CHECK(!r && !strcmp(buf, "a,bc"), "an add that does not fit must fail and keep the list: '%s'", buf);
		CHECK(!strcmp(msg, "rwlab: m.matrix:3: -l: the list is too long (at most 7 characters)\n"),
		      "the message must carry the prefix given: '%s'", msg);
	}
	if (fails)
		printf("%d check(s) failed\n", fails);
	else
		printf("librwlab-harness.a linked alone; %zu commands checked\n", n);
	return fails != 0;
}
