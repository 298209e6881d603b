/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sigcount FILE: counts the SIGINTs it receives, creates FILE.ready once it
 * catches them, and writes the count to FILE one second after the first
 * (or after 20 s without one), then exits 0. stop_tty.py runs it under
 * `rwlab exec` on a terminal to count how many Ctrl-Cs reached it.
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>

static volatile sig_atomic_t count;

static void on_int(int sig)
{
	(void)sig;
	count++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_int };
	char ready[4096];
	FILE *f;
	int ms = 0;

	if (argc != 2)
		return 2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	snprintf(ready, sizeof(ready), "%s.ready", argv[1]);
	f = fopen(ready, "w");
	if (!f)
		return 1;
	fclose(f);
	for (int since = -1; ms < 20000 && (since < 0 || ms - since < 1000); ms += 10) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		if (count && since < 0)
			since = ms;
	}
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)count);
	return fclose(f) ? 1 : 0;
}
