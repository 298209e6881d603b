/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workloads/channel.h - a one-byte message channel: the wait.h-style seam for
 * blocking in a pipe (DESIGN.md: "the pipe ping-pong of context_switch goes
 * through a wait.h channel (a real pipe natively)").
 *
 * Natively it is a real pipe(2): lab_chan_send() is write(2) of one byte,
 * lab_chan_recv() is a blocking read(2) of one byte, both retried on EINTR,
 * exactly the syscalls of will-it-scale's context_switch1. A virtual-CPU
 * simulator would replace this file and leave the workloads as they are.
 *
 * Threading: one sender and one receiver per channel. lab_chan_close_tx()
 * makes the receiver's pending and later lab_chan_recv() return 0 (EOF).
 * Errors: functions return a negative errno; a short transfer aborts (the
 * will-it-scale assertion 'ret == 1').
 */
#pragma once

struct lab_chan {
	int rfd, wfd;
};

/* Open a channel (pipe2 with O_CLOEXEC). Returns 0 or -errno. */
int lab_chan_open(struct lab_chan *ch);
/* Send one byte. Returns 0 or -errno (-EPIPE once the receiver closed). */
int lab_chan_send(struct lab_chan *ch);
/* Block until one byte arrives: returns 1, 0 at end of stream, or -errno. */
int lab_chan_recv(struct lab_chan *ch);
/* Close the sending end (the receiver then sees end of stream). */
void lab_chan_close_tx(struct lab_chan *ch);
/* Close whatever is still open. */
void lab_chan_close(struct lab_chan *ch);
