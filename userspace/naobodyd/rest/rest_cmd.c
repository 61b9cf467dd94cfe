// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd: the REST API's mailbox to the body thread (see rest_cmd.h). */
#include <time.h>

#include "clock.h"
#include "rest_cmd.h"

#define POLL_NS		1000000L	/* 1 ms between looks at the answer */

void rest_mailbox_init(struct rest_mailbox *m)
{
	pthread_mutex_init(&m->lock, NULL);
	m->next = 0;
	atomic_init(&m->posted, 0);
	atomic_init(&m->answered, 0);
}

void rest_mailbox_uninit(struct rest_mailbox *m)
{
	pthread_mutex_destroy(&m->lock);
}

static uint64_t answered_seq(uint64_t a)
{
	return a >> 8;
}

enum rest_cmd_result rest_cmd_post(struct rest_mailbox *m, const struct rest_cmd *c,
				   uint64_t timeout_ns)
{
	struct timespec nap = { .tv_sec = 0, .tv_nsec = POLL_NS };
	enum rest_cmd_result res = RC_TIMEOUT;
	uint64_t until = mono_ns() + timeout_ns, seq, a;

	pthread_mutex_lock(&m->lock);
	/*
	 * Acquire: pairs with rest_cmd_answer()'s release; the body thread has
	 * finished copying the slot out before this thread writes it again.
	 */
	a = atomic_load_explicit(&m->answered, memory_order_acquire);
	if (answered_seq(a) != m->next) {
		/* An order that timed out is still in the slot, unread. */
		pthread_mutex_unlock(&m->lock);
		return RC_BUSY;
	}
	seq = ++m->next;
	m->slot = *c;
	/* Release: the slot's contents before the number that publishes it. */
	atomic_store_explicit(&m->posted, seq, memory_order_release);
	for (;;) {
		a = atomic_load_explicit(&m->answered, memory_order_acquire);
		if (answered_seq(a) == seq) {
			res = (enum rest_cmd_result)(a & 0xff);
			break;
		}
		if (mono_ns() >= until)
			break;
		nanosleep(&nap, NULL);
	}
	pthread_mutex_unlock(&m->lock);
	return res;
}

bool rest_cmd_take(struct rest_mailbox *m, struct rest_cmd *out, uint64_t *seq)
{
	/* Acquire: pairs with rest_cmd_post()'s release; the slot is complete. */
	uint64_t p = atomic_load_explicit(&m->posted, memory_order_acquire);
	uint64_t a = atomic_load_explicit(&m->answered, memory_order_relaxed);

	if (p == answered_seq(a))
		return false;
	*out = m->slot;
	*seq = p;
	return true;
}

void rest_cmd_answer(struct rest_mailbox *m, uint64_t seq, enum rest_cmd_result r)
{
	/* Release: the slot is copied out before a REST thread may rewrite it. */
	atomic_store_explicit(&m->answered, (seq << 8) | (uint64_t)r, memory_order_release);
}
