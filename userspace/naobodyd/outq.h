/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: byte buffers, and the bounded output queue of one client.
 *
 * A queue holds bytes already committed to the stream (a frame that has
 * started to go out must finish, or the stream loses its framing) and one
 * "latest" slot: a newer State, or LoLA packet, replaces an older one that
 * has not started to go out. A client that reads slowly therefore sees
 * fewer, fresher States, and the cycle never waits for it. Committed bytes
 * are bounded; a client that lets them pile up past the bound is dropped.
 */
#ifndef NAOBODYD_OUTQ_H
#define NAOBODYD_OUTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	size_t max;		/* the most it may grow to */
};

void buf_init(struct buf *b, size_t max);
void buf_free(struct buf *b);
/* Append; -ENOBUFS past max, -ENOMEM. */
int buf_add(struct buf *b, const void *p, size_t n);

struct outq {
	struct buf committed;	/* bytes to send, from off */
	size_t off;
	struct buf latest;	/* replaceable; empty when len == 0 */
};

void outq_init(struct outq *q, size_t max_committed, size_t max_latest);
void outq_free(struct outq *q);
/* Queue a frame that must be delivered (Hello, an Event). */
int outq_push(struct outq *q, const void *p, size_t n);
/* Queue a frame that a newer one may replace (State, a LoLA packet). */
int outq_set_latest(struct outq *q, const void *p, size_t n);
bool outq_empty(const struct outq *q);
/* Bytes waiting to go out, committed and latest. */
size_t outq_pending(const struct outq *q);
/*
 * Write what the socket takes now. Returns 0 when the queue is empty,
 * 1 when bytes remain (wait for EPOLLOUT), or -errno.
 */
int outq_flush(struct outq *q, int fd);

#endif
