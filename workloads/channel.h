/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workloads/channel.h - a one-byte message channel: the wait.h-style seam for
 * blocking in a pipe (docs/architecture.md §3: the pipe ping-pong of
 * context_switch goes through a wait.h channel, a real pipe natively).
 *
 * Natively it is a real pipe(2): lab_chan_send() is write(2) of one byte,
 * lab_chan_recv() is a blocking read(2) of one byte, both retried on EINTR,
 * exactly the syscalls of will-it-scale's context_switch1.
 *
 * In the simulated build (LAB_SIM) it is a pipe in virtual time: one 32-bit
 * word on its own cache line, written through locks/atomic.h (so the engine
 * charges its transfers), holding the count of bytes sent (bits 0-30) and a
 * closed bit (bit 31); the receiver keeps its own count of bytes taken and
 * sleeps in the engine's futex on the word. Costs: a send is an RMW on the
 * line plus a futex wake (cost.futex_wake_ns, pipe_write's wake-up of the
 * reader); a recv that finds the pipe empty is a futex wait
 * (cost.futex_wait_ns) and a block, so the switch to the next task costs the
 * engine's cost.ctxsw_ns. No further syscall cost is charged: cost.ctxsw_ns
 * is a measured pipe hop (write + wake + switch + read), so its syscalls are
 * in it already and the two futex charges count about 0.4 us of it twice
 * (results/sim/lazy-mm-hazptr/README.md).
 *
 * Threading: one sender and one receiver per channel. lab_chan_close_tx()
 * makes the receiver's pending and later lab_chan_recv() return 0 (EOF).
 * Errors: functions return a negative errno; a short transfer aborts (the
 * will-it-scale assertion 'ret == 1').
 */
#pragma once

#include <stdint.h>
#include "compiler.h"

#if LAB_SIM
struct lab_chan {
	uint32_t word;			/* bytes sent (bits 0-30) | LAB_CHAN_CLOSED; sender RMWs, receiver waits */
	uint32_t taken __lab_cacheline_aligned;	/* bytes received: the receiver's own line */
} __lab_cacheline_aligned;
#else
struct lab_chan {
	int rfd, wfd;
};
#endif

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
