/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the event loop. One thread, one epoll set. The body's fd drives
 * the cycle; sockets are non-blocking and never hold the cycle up.
 */
#ifndef NAOBODYD_LOOP_H
#define NAOBODYD_LOOP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* The object a watch (or any member) is embedded in. */
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct loop_watch;
typedef void (*loop_cb)(struct loop_watch *w, uint32_t events);

struct loop_watch {
	int fd;
	loop_cb cb;
};

/* Objects freed once the current batch of events is handled. */
struct loop_deferred {
	struct loop_deferred *next;
	void (*free)(struct loop_deferred *);
};

struct loop {
	int epfd;
	struct loop_deferred *graveyard;
	/* Called after each batch of events, when set. */
	void (*after_batch)(void *ctx);
	/* Called every housekeeping_ms even when no fd is ready. */
	void (*housekeeping)(void *ctx);
	void *ctx;
	int housekeeping_ms;
};

int loop_init(struct loop *l);
void loop_uninit(struct loop *l);
int loop_add(struct loop *l, struct loop_watch *w, uint32_t events);
int loop_mod(struct loop *l, struct loop_watch *w, uint32_t events);
void loop_del(struct loop *l, struct loop_watch *w);

/*
 * Free d after the current batch: an object whose watch was deleted may
 * still have an event waiting in this batch.
 */
void loop_defer_free(struct loop *l, struct loop_deferred *d);

/* Run until *quit is set. */
int loop_run(struct loop *l, volatile sig_atomic_t *quit);

#endif
