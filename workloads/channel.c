/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "channel.h"
#include "err.h"

#if LAB_SIM
#include "atomic.h"
#include "wait.h"

#define LAB_CHAN_CLOSED	0x80000000u
#define LAB_CHAN_COUNT	0x7fffffffu

int lab_chan_open(struct lab_chan *ch)
{
	WRITE_ONCE(ch->word, 0);
	WRITE_ONCE(ch->taken, 0);
	return 0;
}

int lab_chan_send(struct lab_chan *ch)
{
	/* Full barrier (pipe_write's lock): what the sender did before the byte is visible to the reader. */
	uint32_t old = atomic_fetch_add(&ch->word, 1);

	if (old & LAB_CHAN_CLOSED)
		return -EPIPE;
	/* pipe_write wakes the reader of an empty pipe; one reader. */
	lab_futex_wake(&ch->word, 1);
	return 0;
}

int lab_chan_recv(struct lab_chan *ch)
{
	uint32_t taken = READ_ONCE(ch->taken);

	for (;;) {
		/* Acquire: pairs with the sender's RMW. */
		uint32_t w = smp_load_acquire(&ch->word);

		if ((w & LAB_CHAN_COUNT) != (taken & LAB_CHAN_COUNT)) {
			WRITE_ONCE(ch->taken, taken + 1);
			return 1;
		}
		if (w & LAB_CHAN_CLOSED)
			return 0;
		/* Empty: sleep until the word changes (a byte or the close). */
		lab_futex_wait(&ch->word, w, -1);
	}
}

void lab_chan_close_tx(struct lab_chan *ch)
{
	/* The closed bit lives in the word the reader sleeps on, so no wake-up is lost. */
	(void)atomic_fetch_or(&ch->word, LAB_CHAN_CLOSED);
	lab_futex_wake(&ch->word, 1);
}

void lab_chan_close(struct lab_chan *ch)
{
	(void)ch;
}
#else

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
	lab_err("channel %s transferred %zd bytes, expected 1", op, r);
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
#endif
