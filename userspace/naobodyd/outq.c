// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd: byte buffers and bounded output queues (see outq.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "outq.h"

void buf_init(struct buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

static int buf_reserve(struct buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (need <= b->cap)
		return 0;
	if (need > b->max)
		return -ENOBUFS;
	while (cap < need)
		cap *= 2;
	if (cap > b->max)
		cap = b->max;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_add(struct buf *b, const void *p, size_t n)
{
	int err = buf_reserve(b, b->len + n);

	if (err)
		return err;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void outq_init(struct outq *q, size_t max_committed, size_t max_latest)
{
	buf_init(&q->committed, max_committed);
	buf_init(&q->latest, max_latest);
	q->off = 0;
}

void outq_free(struct outq *q)
{
	buf_free(&q->committed);
	buf_free(&q->latest);
}

int outq_push(struct outq *q, const void *p, size_t n)
{
	/* Reclaim what was sent before growing. */
	if (q->off && q->committed.len + n > q->committed.cap) {
		memmove(q->committed.data, q->committed.data + q->off,
			q->committed.len - q->off);
		q->committed.len -= q->off;
		q->off = 0;
	}
	return buf_add(&q->committed, p, n);
}

int outq_set_latest(struct outq *q, const void *p, size_t n)
{
	q->latest.len = 0;
	return buf_add(&q->latest, p, n);
}

bool outq_empty(const struct outq *q)
{
	return q->off == q->committed.len && !q->latest.len;
}

size_t outq_pending(const struct outq *q)
{
	return q->committed.len - q->off + q->latest.len;
}

int outq_flush(struct outq *q, int fd)
{
	for (;;) {
		ssize_t n;

		if (q->off == q->committed.len) {
			q->off = q->committed.len = 0;
			if (!q->latest.len)
				return 0;
			/* The latest frame starts to go out: it is committed now. */
			if (buf_add(&q->committed, q->latest.data, q->latest.len))
				return -ENOBUFS;
			q->latest.len = 0;
		}
		n = send(fd, q->committed.data + q->off, q->committed.len - q->off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 1;
			return -errno;
		}
		q->off += (size_t)n;
	}
}
