/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "channel.h"

int lab_chan_open(struct lab_chan *ch)
{
	int fd[2];

	ch->rfd = ch->wfd = -1;
	if (pipe2(fd, O_CLOEXEC))
		return -errno;
	ch->rfd = fd[0];
	ch->wfd = fd[1];
	return 0;
}

static __attribute__((noreturn)) void lab_chan_short(const char *op, ssize_t r)
{
	fprintf(stderr, "rwlab: channel %s transferred %zd bytes, expected 1\n", op, r);
	abort();
}

int lab_chan_send(struct lab_chan *ch)
{
	char c = 'x';
	ssize_t r;

	do
		r = write(ch->wfd, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r != 1)
		lab_chan_short("write", r);
	return 0;
}

int lab_chan_recv(struct lab_chan *ch)
{
	char c;
	ssize_t r;

	do
		r = read(ch->rfd, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r > 1)
		lab_chan_short("read", r);
	return (int)r;
}

void lab_chan_close_tx(struct lab_chan *ch)
{
	if (ch->wfd >= 0)
		close(ch->wfd);
	ch->wfd = -1;
}

void lab_chan_close(struct lab_chan *ch)
{
	lab_chan_close_tx(ch);
	if (ch->rfd >= 0)
		close(ch->rfd);
	ch->rfd = -1;
}
