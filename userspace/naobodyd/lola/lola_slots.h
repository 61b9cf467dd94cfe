/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's LoLA socket, inside: the clients' slots that the LoLA thread
 * (lola_reader.c) and the body thread (lola.c) share.
 *
 * The LoLA thread owns the sockets: it accepts, reads, validates, evicts
 * and closes. The body thread only sends each cycle's sensor packet, with
 * non-blocking sends, and takes the newest validated command from the
 * hand-over (handoff.h). The slot table is behind l->lock, a priority-
 * inheritance mutex that neither side holds across anything that can
 * block: the body thread holds it for its sends (MSG_DONTWAIT), the LoLA
 * thread only to put a client in or take one out, so a client is never
 * freed, nor its socket closed, while the body thread sends to it.
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

struct lola {
	struct daemon *d;
	pthread_mutex_t lock;		/* clients[] and the fields above; PTHREAD_PRIO_INHERIT */
	struct lola_client *clients[LOLA_MAX_CLIENTS];
	struct nb_actuators body_cmd;	/* the body's last command: a new driver starts there */
	uint64_t cycle;			/* body states published */

	/* The body thread's. */
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

#endif
