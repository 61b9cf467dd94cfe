// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the event loop, a thin layer over epoll.
 *
 * A callback may delete its own watch or another one and free the owner
 * through loop_defer_free(): events already fetched in this batch for a
 * deleted watch are dropped, and the memory is released after the batch.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "loop.h"

#define MAX_EVENTS 32

int loop_init(struct loop *l)
{
	memset(l, 0, sizeof(*l));
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->housekeeping_ms = 100;
	return l->epfd < 0 ? -errno : 0;
}

static void bury(struct loop *l)
{
	while (l->graveyard) {
		struct loop_deferred *d = l->graveyard;

		l->graveyard = d->next;
		d->free(d);
	}
}

void loop_uninit(struct loop *l)
{
	bury(l);
	if (l->epfd >= 0)
		close(l->epfd);
	l->epfd = -1;
}

int loop_add(struct loop *l, struct loop_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, w->fd, &ev) ? -errno : 0;
}

int loop_mod(struct loop *l, struct loop_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, w->fd, &ev) ? -errno : 0;
}

void loop_del(struct loop *l, struct loop_watch *w)
{
	if (w->fd >= 0)
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	/* Marks events already fetched for it as stale (see loop_run). */
	w->cb = NULL;
}

void loop_defer_free(struct loop *l, struct loop_deferred *d)
{
	d->next = l->graveyard;
	l->graveyard = d;
}

int loop_run(struct loop *l, volatile sig_atomic_t *quit)
{
	struct epoll_event ev[MAX_EVENTS];
	uint64_t last_housekeeping = mono_ns();

	while (!*quit) {
		int n = epoll_wait(l->epfd, ev, MAX_EVENTS, l->housekeeping_ms);
		uint64_t now;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_err("epoll_wait: %s", strerror(errno));
			return -errno;
		}
		for (int i = 0; i < n; i++) {
			struct loop_watch *w = ev[i].data.ptr;

			/* Deleted by an earlier callback of this batch. */
			if (w->cb)
				w->cb(w, ev[i].events);
		}
		bury(l);
		if (l->after_batch)
			l->after_batch(l->ctx);
		now = mono_ns();
		if (l->housekeeping &&
		    now - last_housekeeping >= (uint64_t)l->housekeeping_ms * NSEC_PER_MSEC) {
			last_housekeeping = now;
			l->housekeeping(l->ctx);
			bury(l);
		}
	}
	return 0;
}
