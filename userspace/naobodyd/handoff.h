/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: what the network thread and the body thread hand each other
 * (Documentation/naobodyd.rst, "Threads").
 *
 *   - Commands, network -> body: a bounded single-producer, single-consumer
 *     ring, lock-free. The network thread pushes what a robot API client
 *     asked for; the body thread drains it once per cycle. Neither side
 *     ever waits: a full ring refuses the push (the network thread logs it
 *     and drops the command; the queue holds HANDOFF_CMDS, far more than a
 *     cycle's worth, and heartbeats are coalesced before they get here).
 *   - News, body -> network: one slot behind a priority-inheritance mutex,
 *     held only to copy a few kilobytes: the newest body state and motion
 *     status, the robot API controller the body thread knows, the events
 *     for it, and which API client lost the body to a LoLA client. An
 *     eventfd wakes the network thread. The body thread never blocks on it
 *     for longer than the other side's memcpy, and with priority
 *     inheritance a preempted network thread runs at the body thread's
 *     priority until it lets go.
 */
#ifndef NAOBODYD_HANDOFF_H
#define NAOBODYD_HANDOFF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <motion/motion.h>

#include "body.h"
#include "leds.h"

enum body_cmd_kind {
	BC_CLAIM,		/* session said Hello: it is the controller */
	BC_RELEASE,		/* session went */
	BC_HEARD,		/* the controller spoke (the watchdog) */
	BC_POWER,
	BC_MOTION,
	BC_LEDS,
};

#define HANDOFF_PEER_LEN	64	/* "[address]:port", NUL-terminated */

struct body_cmd {
	enum body_cmd_kind kind;
	uint64_t session;	/* the robot API session's id (never 0) */
	uint64_t time_ns;	/* CLOCK_MONOTONIC, when the frame was read */
	union {
		char peer[HANDOFF_PEER_LEN];	/* BC_CLAIM: the client's address */
		enum power_req power;
		struct motion_req motion;
		struct {
			bool all_back;
			struct leds_req req;
		} leds;
	};
};

#define HANDOFF_CMDS		1024	/* a power of two */
#define HANDOFF_EVENTS		4096	/* bytes of encoded events per cycle */

struct cmd_ring {
	_Atomic uint32_t head;	/* written by the network thread */
	_Atomic uint32_t tail;	/* written by the body thread */
	struct body_cmd slot[HANDOFF_CMDS];
};

/* Who holds the controller role, as the body thread knows it (for the REST API). */
struct ctl_news {
	uint32_t kind;			/* enum ctl_kind (naobodyd.h) */
	uint64_t session;		/* CTL_API: the session's id */
	uint64_t since_ns;		/* CLOCK_MONOTONIC, when it took the role */
	char peer[HANDOFF_PEER_LEN];	/* CTL_API: its address; "" otherwise */
};

struct body_news {
	uint64_t seq;			/* body states published so far */
	struct ctl_news ctl;		/* the holder, whatever socket it came from */
	struct body_frame frame;
	struct motion_status status;
	uint64_t ctl_api;		/* the API session that controls the body, 0: none */
	uint64_t lost_to_lola;		/* the API session a LoLA client replaced, 0: none */
	uint64_t released;		/* the API session the REST API released, 0: none */
	uint64_t events_for;		/* the session events[] is for */
	uint32_t events_len;
	uint32_t events_dropped;	/* bytes that did not fit, since the last take */
	uint8_t events[HANDOFF_EVENTS];
};

struct handoff {
	struct cmd_ring cmds;
	pthread_mutex_t lock;		/* news; PTHREAD_PRIO_INHERIT */
	struct body_news news;
	int wake_fd;			/* eventfd: news for the network thread */
	_Atomic uint32_t cmds_dropped;
};

int handoff_init(struct handoff *h);
void handoff_uninit(struct handoff *h);

/* Network thread. False when the ring is full (nothing is queued). */
bool handoff_push(struct handoff *h, const struct body_cmd *c);
/* Body thread. False when the ring is empty. */
bool handoff_pop(struct handoff *h, struct body_cmd *c);

/*
 * Body thread, once per cycle: the newest state, and events for the
 * session "to" (appended to what the network thread has not taken yet).
 */
void handoff_publish(struct handoff *h, const struct body_frame *f,
		     const struct motion_status *st, uint64_t ctl_api, uint64_t lost_to_lola,
		     uint64_t to, const uint8_t *events, uint32_t events_len);

/*
 * Body thread, when the controller changes: the holder the REST API reports
 * (the robot API's own news keep ctl_api). The same short lock.
 */
void handoff_set_controller(struct handoff *h, const struct ctl_news *ctl);

/* Body thread: the robot API session the REST API took the role from (to close). */
void handoff_release_api(struct handoff *h, uint64_t session);

/* Network thread: a copy of the news; its events are taken (emptied). */
void handoff_take(struct handoff *h, struct body_news *out);

/*
 * The REST API's feeder thread: the newest state only (seq, frame, status,
 * ctl_api, ctl), the events left for the robot API. The same short copy.
 */
void handoff_peek(struct handoff *h, struct body_news *out);

#endif
