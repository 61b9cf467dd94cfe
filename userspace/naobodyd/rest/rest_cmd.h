/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the REST API's orders to the body thread (LEDs, the controller's
 * release), and
 * the body thread's answer.
 *
 * The robot API's commands go through the hand-over's ring, which has one
 * producer, the network thread. The REST API has a thread per connection,
 * so it gets a mailbox of its own with one slot: a REST thread takes
 * rest_cmd_post()'s mutex, fills the slot, publishes its sequence number
 * and waits (only itself, a few cycles at most) for the body thread to
 * answer with the same number. The body thread never waits: once per
 * cycle, in core_commands(), it looks at the number, and if there is an
 * order it has not answered it runs it through the same code as the robot
 * API's (core.c) and publishes the answer.
 *
 * The slot is written only while the previous order is answered (the body
 * thread has finished reading it), so the two sides never touch it at once.
 */
#ifndef NAOBODYD_REST_CMD_H
#define NAOBODYD_REST_CMD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "leds.h"

enum rest_cmd_result {
	RC_DONE,		/* applied from this cycle on */
	RC_CONTROLLED,		/* refused: a controller (robot API or LoLA) owns the LEDs */
	RC_BUSY,		/* the previous order is still unanswered */
	RC_TIMEOUT,		/* the body thread did not answer: the body is not cycling */
	RC_NOBODY,		/* release: nobody (or not that session) holds the role */
};

enum rest_cmd_kind {
	RCMD_LEDS,		/* leds, all_back */
	RCMD_RELEASE,		/* take the controller role from its holder */
};

struct rest_cmd {
	enum rest_cmd_kind kind;
	bool all_back;		/* hand every LED group back to the daemon */
	struct leds_req leds;
	uint64_t session;	/* RCMD_RELEASE: only from this robot API session; 0: any */
};

struct rest_mailbox {
	pthread_mutex_t lock;		/* REST threads only: one order at a time */
	uint64_t next;			/* under lock */
	_Atomic uint64_t posted;	/* the order in the slot, 0: none yet */
	_Atomic uint64_t answered;	/* (sequence << 8) | enum rest_cmd_result */
	struct rest_cmd slot;
};

void rest_mailbox_init(struct rest_mailbox *m);
void rest_mailbox_uninit(struct rest_mailbox *m);

/* A REST thread: post and wait up to timeout_ns for the answer. */
enum rest_cmd_result rest_cmd_post(struct rest_mailbox *m, const struct rest_cmd *c,
				   uint64_t timeout_ns);

/*
 * The body thread, once per cycle: the order waiting, if any (true), which
 * the caller runs and answers with rest_cmd_answer().
 */
bool rest_cmd_take(struct rest_mailbox *m, struct rest_cmd *out, uint64_t *seq);
void rest_cmd_answer(struct rest_mailbox *m, uint64_t seq, enum rest_cmd_result r);

#endif
