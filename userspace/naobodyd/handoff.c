// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd: the network thread and the body thread's hand-over (see handoff.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "handoff.h"

int handoff_init(struct handoff *h)
{
	pthread_mutexattr_t a;
	int err;

	memset(h, 0, sizeof(*h));
	atomic_init(&h->cmds.head, 0);
	atomic_init(&h->cmds.tail, 0);
	atomic_init(&h->cmds_dropped, 0);
	h->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (h->wake_fd < 0)
		return -errno;
	pthread_mutexattr_init(&a);
	/* A preempted network thread holding it runs at the body's priority. */
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	err = pthread_mutex_init(&h->lock, &a);
	pthread_mutexattr_destroy(&a);
	if (err) {
		close(h->wake_fd);
		h->wake_fd = -1;
		return -err;
	}
	return 0;
}

void handoff_uninit(struct handoff *h)
{
	if (h->wake_fd >= 0)
		close(h->wake_fd);
	h->wake_fd = -1;
	pthread_mutex_destroy(&h->lock);
}

bool handoff_push(struct handoff *h, const struct body_cmd *c)
{
	uint32_t head = atomic_load_explicit(&h->cmds.head, memory_order_relaxed);
	/* Acquire: the body thread is done with the slot it released. */
	uint32_t tail = atomic_load_explicit(&h->cmds.tail, memory_order_acquire);

	if (head - tail >= HANDOFF_CMDS) {
		atomic_fetch_add_explicit(&h->cmds_dropped, 1, memory_order_relaxed);
		return false;
	}
	h->cmds.slot[head % HANDOFF_CMDS] = *c;
	/* Release: the slot's contents before the index that publishes it. */
	atomic_store_explicit(&h->cmds.head, head + 1, memory_order_release);
	return true;
}

bool handoff_pop(struct handoff *h, struct body_cmd *c)
{
	uint32_t tail = atomic_load_explicit(&h->cmds.tail, memory_order_relaxed);
	/* Acquire: pairs with handoff_push()'s release; the slot is complete. */
	uint32_t head = atomic_load_explicit(&h->cmds.head, memory_order_acquire);

	if (tail == head)
		return false;
	*c = h->cmds.slot[tail % HANDOFF_CMDS];
	/* Release: the slot is copied out before the network thread reuses it. */
	atomic_store_explicit(&h->cmds.tail, tail + 1, memory_order_release);
	return true;
}

void handoff_publish(struct handoff *h, const struct body_frame *f,
		     const struct motion_status *st, uint64_t ctl_api, uint64_t lost_to_lola,
		     uint64_t to, const uint8_t *events, uint32_t events_len)
{
	struct body_news *n = &h->news;
	uint64_t one = 1;

	pthread_mutex_lock(&h->lock);
	n->seq++;
	n->frame = *f;
	n->status = *st;
	n->ctl_api = ctl_api;
	if (lost_to_lola)
		n->lost_to_lola = lost_to_lola;
	if (events_len) {
		/* Events untaken for another session are stale: that one went. */
		if (n->events_for != to)
			n->events_len = 0;
		n->events_for = to;
		if (n->events_len + events_len <= HANDOFF_EVENTS) {
			memcpy(n->events + n->events_len, events, events_len);
			n->events_len += events_len;
		} else {
			n->events_dropped += events_len;
		}
	}
	pthread_mutex_unlock(&h->lock);
	/*
	 * Wake the network thread only when the news is for someone: an API
	 * controller's State, events, a controller lost. Without one the slot
	 * is still fresh for whoever says Hello next.
	 */
	if (!ctl_api && !events_len && !lost_to_lola)
		return;
	/* Never blocks: the counter saturates long after anyone reads it. */
	if (write(h->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return;
}

void handoff_set_controller(struct handoff *h, const struct ctl_news *ctl)
{
	pthread_mutex_lock(&h->lock);
	h->news.ctl = *ctl;
	pthread_mutex_unlock(&h->lock);
}

void handoff_release_api(struct handoff *h, uint64_t session)
{
	uint64_t one = 1;

	pthread_mutex_lock(&h->lock);
	h->news.released = session;
	pthread_mutex_unlock(&h->lock);
	/* Never blocks, as handoff_publish()'s. */
	if (write(h->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return;
}

void handoff_take(struct handoff *h, struct body_news *out)
{
	uint64_t v;

	if (read(h->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		v = 0;
	pthread_mutex_lock(&h->lock);
	memcpy(out, &h->news, offsetof(struct body_news, events));
	memcpy(out->events, h->news.events, h->news.events_len);
	h->news.events_len = 0;
	h->news.events_dropped = 0;
	h->news.lost_to_lola = 0;
	h->news.released = 0;
	pthread_mutex_unlock(&h->lock);
}

void handoff_peek(struct handoff *h, struct body_news *out)
{
	pthread_mutex_lock(&h->lock);
	out->seq = h->news.seq;
	out->frame = h->news.frame;
	out->status = h->news.status;
	out->ctl_api = h->news.ctl_api;
	out->ctl = h->news.ctl;
	pthread_mutex_unlock(&h->lock);
	out->lost_to_lola = 0;
	out->released = 0;
	out->events_for = 0;
	out->events_len = 0;
	out->events_dropped = 0;
}
