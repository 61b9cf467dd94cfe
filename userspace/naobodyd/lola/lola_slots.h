/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's LoLA socket, inside: what the LoLA thread (lola_reader.c) and
 * the body thread (lola.c) share, the clients' slots and the newest
 * command.
 *
 * The LoLA thread owns the sockets: it accepts, reads, validates, evicts
 * and closes. The body thread only sends each cycle's sensor packet, with
 * non-blocking sends, and takes the newest validated command from the
 * box below. The slot table is behind l->lock, a priority-
 * inheritance mutex that neither side holds across anything that can
 * block: the body thread holds it for its sends (MSG_DONTWAIT), the LoLA
 * thread only to put a client in or take one out, so a client is never
 * freed, nor its socket closed, while the body thread sends to it.
 *
 * The newest validated command goes from the LoLA thread to the body thread
 * in a triple buffer, wait-free on both sides (lola_box_put(),
 * lola_box_take()): the LoLA thread fills its back buffer and swaps it in;
 * the body thread, once a cycle, swaps out the freshest if there is one. A
 * command the body thread did not take is replaced by a newer.
 */
#ifndef NAOBODYD_LOLA_SLOTS_H
#define NAOBODYD_LOLA_SLOTS_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "lola.h"
#include "log.h"
#include "loop.h"
#include "outq.h"

struct lola_client {
	struct lola *lola;
	uint64_t id;			/* never reused; the controller's "who" (lola_who()) */
	int fd;

	/* The body thread's, under l->lock. */
	struct outq out;
	uint64_t drained;		/* the last cycle its queue was empty after a send */
	bool is_controller;		/* as the body thread knows it */
	bool dropped;			/* the body thread let it go: the LoLA thread closes it */
	int drop_err;			/* with the send's errno, or 0 */
	char drop_why[128];		/* why, for the log */

	/* The LoLA thread's. */
	struct loop_watch w;
	struct loop_deferred dead;
	bool wants;			/* it sent an actuator map: it drives */
	bool backlog;			/* whole messages wait past its budget */
	struct nb_actuators cmd;	/* its command, every key retained */
	size_t in_len;
	uint8_t in[LOLA_IN_MAX];
	struct ratelimit rl;
};

/* A client's command: its whole actuator map, every key retained. */
struct lola_cmd {
	uint64_t client;		/* the client's id */
	uint64_t time_ns;		/* CLOCK_MONOTONIC, when its map was read */
	struct nb_actuators act;
};

#define LOLA_BOX_FRESH	4U		/* middle: not taken yet */

struct lola_box {
	struct lola_cmd buf[3];
	_Atomic uint32_t middle;	/* an index, | LOLA_BOX_FRESH */
	uint32_t back;			/* the LoLA thread's */
	uint32_t front;			/* the body thread's */
};

struct lola {
	const struct body_info *info;	/* the body's; never changes */
	int priority;			/* the body thread's SCHED_FIFO priority, or 0 */
	struct lola_box box;		/* the newest command */
	pthread_mutex_t lock;		/* clients[] and the fields above; PTHREAD_PRIO_INHERIT */
	struct lola_client *clients[LOLA_MAX_CLIENTS];
	struct nb_actuators body_cmd;	/* the body's last command: a new driver starts there */
	uint64_t cycle;			/* body states published */

	/* The body thread's. */
	struct nb_actuators cmd;	/* the last command taken (lola_command()) */
	uint8_t packet[LOLA_PACKET];
	bool pack_failed;
	bool stopping;			/* lola_stop(): nothing more is sent */

	/* The LoLA thread's. */
	struct loop loop;
	pthread_t thread;
	bool started;
	volatile sig_atomic_t quit;
	int wake_fd;			/* eventfd: the body thread let a client go */
	struct loop_watch listen_w, wake_w;
	uint64_t next_id;
	uint64_t pace_start;		/* this LOLA_PACE_NS window's start */
	uint64_t busy;			/* ns spent handling events in it */
	uint64_t batch_start;		/* when the current batch's events came */
	uint64_t paced;			/* windows cut short by the cap */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* The LoLA thread (lola_reader.c). */
int lola_reader_start(struct lola *l);
void lola_reader_stop(struct lola *l);

static inline void lola_box_init(struct lola_box *b)
{
	b->back = 0;
	atomic_init(&b->middle, 1);
	b->front = 2;
}

/* LoLA thread: the newest command (replaces one not taken yet). */
static inline void lola_box_put(struct lola_box *b, const struct lola_cmd *c)
{
	uint32_t old;

	b->buf[b->back] = *c;
	/*
	 * Release: the command before the index that hands it over; acquire:
	 * the buffer handed back is one the body thread is done with.
	 */
	old = atomic_exchange_explicit(&b->middle, b->back | LOLA_BOX_FRESH,
				       memory_order_acq_rel);
	b->back = old & ~LOLA_BOX_FRESH;
}

/* Body thread: the newest command, if one came since the last take. */
static inline bool lola_box_take(struct lola_box *b, struct lola_cmd *c)
{
	uint32_t old;

	if (!(atomic_load_explicit(&b->middle, memory_order_relaxed) & LOLA_BOX_FRESH))
		return false;
	/* Acquire: pairs with lola_box_put()'s release; release: front is free. */
	old = atomic_exchange_explicit(&b->middle, b->front, memory_order_acq_rel);
	b->front = old & ~LOLA_BOX_FRESH;
	*c = b->buf[b->front];
	return true;
}

#endif
