// SPDX-License-Identifier: GPL-2.0-only
/*
 * The request scheduler. Requests (preference pieces, id strings,
 * handshakes, chest board requests) wait on nb->requests. Each frame
 * carries what the codec's plan has room for (any number of handshakes and
 * starts, one of each other kind), oldest first. A request that expects an
 * answer waits NAOBODY_REQ_WAIT cycles for it, then goes out again,
 * NAOBODY_REQ_SENDS times in all, and then fails with -ETIMEDOUT.
 *
 * Process context queues and waits (naobody_request_run()); the cycle,
 * under nb->lock, plans, commits, matches and ages (body.c, answers.c).
 */
#include <linux/completion.h>
#include <linux/list.h>

#include "naobody.h"

#define NAOBODY_REQ_WAIT	3	/* cycles per send */
#define NAOBODY_REQ_SENDS	3

static bool request_expects_answer(const struct naobody_request *r)
{
	return r->type != NAOBODY_RQ_HARAKIRI && r->type != NAOBODY_RQ_START;
}

/*
 * A chest mode answer names no request: a late one (a resend's, or a
 * timed-out request's) would pass for the next request's. So one is in
 * flight at a time (fops.c), and the next goes out only after every answer
 * the last one may still get had its time.
 */
#define NAOBODY_CHEST_MODE_HOLD	(NAOBODY_REQ_WAIT * NAOBODY_REQ_SENDS)

/* Any reader may queue these: the list must not grow with the readers. */
static bool request_is_chest(const struct naobody_request *r)
{
	return r->type == NAOBODY_RQ_CHEST_MODE || r->type == NAOBODY_RQ_HARAKIRI;
}

static void request_finish(struct naobody_dev *nb, struct naobody_request *r, int status)
{
	if (r->type == NAOBODY_RQ_CHEST_MODE && r->sends_left < NAOBODY_REQ_SENDS)
		nb->chest_mode_hold = NAOBODY_CHEST_MODE_HOLD;
	if (request_is_chest(r))
		nb->chest_requests--;
	list_del_init(&r->node);
	r->status = status;
	/* The waiter may free r as soon as this returns. */
	complete(&r->done);
}

/*
 * Put what fits of the waiting requests into plan. They count as sent only
 * once the frame is built: naobody_requests_commit().
 */
void naobody_requests_plan(struct naobody_dev *nb, struct nb_out_plan *plan)
{
	struct naobody_request *r;

	list_for_each_entry(r, &nb->requests, node) {
		r->planned = false;
		if (r->in_frame)
			continue;
		switch (r->type) {
		case NAOBODY_RQ_PREF:
			if (plan->requests & NB_REQ_PREF)
				continue;
			plan->requests |= NB_REQ_PREF;
			plan->pref_piece = r->param;
			break;
		case NAOBODY_RQ_ID:
			if (plan->requests & NB_REQ_ID)
				continue;
			plan->requests |= NB_REQ_ID;
			plan->id_slot = r->param;
			break;
		case NAOBODY_RQ_CHEST_MODE:
			if ((plan->requests & NB_REQ_CHEST_MODE) || nb->chest_mode_hold)
				continue;
			plan->requests |= NB_REQ_CHEST_MODE;
			plan->chest_mode = r->param;
			break;
		case NAOBODY_RQ_HARAKIRI:
			if (plan->requests & NB_REQ_HARAKIRI)
				continue;
			plan->requests |= NB_REQ_HARAKIRI;
			plan->harakiri = r->param;
			break;
		case NAOBODY_RQ_HANDSHAKE:
			plan->handshake |= BIT_ULL(r->board);
			break;
		case NAOBODY_RQ_START:
			plan->start |= BIT_ULL(r->board);
			break;
		}
		r->planned = true;
	}
}

void naobody_requests_commit(struct naobody_dev *nb)
{
	struct naobody_request *r;

	list_for_each_entry(r, &nb->requests, node) {
		if (!r->planned)
			continue;
		r->planned = false;
		r->in_frame = true;
		r->waited = 0;
		r->sends_left--;
	}
}

/* Does the decoded message answer r? */
static bool answers(const struct naobody_request *r, const struct nb_msg_info *info)
{
	if (!r->in_frame)
		return false;
	switch (r->type) {
	case NAOBODY_RQ_PREF:
		return info->type == NB_MSG_PREF_PIECE && info->piece == r->param;
	case NAOBODY_RQ_ID:
		return info->type == NB_MSG_ID_STRING && info->value == r->param;
	case NAOBODY_RQ_CHEST_MODE:
		return info->type == NB_MSG_CHEST_MODE;
	case NAOBODY_RQ_HANDSHAKE:
		return info->type == NB_MSG_HANDSHAKE && info->board == r->board;
	default:
		return false;
	}
}

void naobody_requests_match(struct naobody_dev *nb, const struct nb_msg_info *info)
{
	struct naobody_request *r, *tmp;

	list_for_each_entry_safe(r, tmp, &nb->requests, node) {
		if (!answers(r, info))
			continue;
		r->value = info->value;
		r->answer_len = min_t(u16, info->len, sizeof(r->answer));
		if (info->data)
			memcpy(r->answer, info->data, r->answer_len);
		request_finish(nb, r, 0);
		return;
	}
}

/* At the end of a cycle: resend or fail what got no answer. */
void naobody_requests_age(struct naobody_dev *nb)
{
	struct naobody_request *r, *tmp;

	/* The chest mode hold counts the cycles' ends, and this is one. */
	if (nb->chest_mode_hold)
		nb->chest_mode_hold--;
	list_for_each_entry_safe(r, tmp, &nb->requests, node) {
		if (!r->in_frame)
			continue;
		if (!request_expects_answer(r)) {
			/* Done once the board acknowledged that very frame. */
			if (nb->ack_ok)
				request_finish(nb, r, 0);
			else if (!r->sends_left)
				request_finish(nb, r, -EIO);
			else
				r->in_frame = false;
			continue;
		}
		if (++r->waited < NAOBODY_REQ_WAIT)
			continue;
		if (r->sends_left)
			r->in_frame = false;
		else
			request_finish(nb, r, -ETIMEDOUT);
	}
}

void naobody_requests_fail_all(struct naobody_dev *nb, int status)
{
	struct naobody_request *r, *tmp;

	lockdep_assert_held(&nb->lock);
	list_for_each_entry_safe(r, tmp, &nb->requests, node)
		request_finish(nb, r, status);
}

/* Hand r to the cycle. Returns -ENODEV once the device is gone. */
int naobody_request_queue(struct naobody_dev *nb, struct naobody_request *r)
{
	unsigned long irqflags;

	init_completion(&r->done);
	INIT_LIST_HEAD(&r->node);
	r->sends_left = NAOBODY_REQ_SENDS;
	r->in_frame = false;
	r->status = -EINPROGRESS;

	spin_lock_irqsave(&nb->lock, irqflags);
	if (naobody_gone(nb) || test_bit(NAOBODY_HALTED, &nb->flags)) {
		/* Gone, or quiesced for a suspend or a reset. */
		r->status = naobody_gone(nb) ? -ENODEV : -ECANCELED;
		spin_unlock_irqrestore(&nb->lock, irqflags);
		complete(&r->done);
		return r->status;
	}
	list_add_tail(&r->node, &nb->requests);
	/* What statistics/chest_requests_max shows: fops.c's chest_lock bounds it. */
	if (request_is_chest(r) && ++nb->chest_requests > nb->stats.chest_requests_max)
		nb->stats.chest_requests_max = nb->chest_requests;
	spin_unlock_irqrestore(&nb->lock, irqflags);
	return 0;
}

/*
 * Sleep until the cycle completes r. Returns its status: 0, -ETIMEDOUT
 * (no answer, or the cycle isn't running), -EIO, -ENODEV, -ECANCELED (a
 * suspend or a reset), or -EINTR on a fatal signal.
 */
int naobody_request_wait(struct naobody_dev *nb, struct naobody_request *r)
{
	/* Every send, its wait, and slack for a slow or backing-off cycle. */
	unsigned long limit = msecs_to_jiffies((NAOBODY_REQ_SENDS * (NAOBODY_REQ_WAIT + 1) + 4) *
					       (naobody_period_us / 1000 + 1) + 500);
	unsigned long irqflags;
	long left;

	left = wait_for_completion_killable_timeout(&r->done, limit);
	if (left > 0)
		return r->status;

	spin_lock_irqsave(&nb->lock, irqflags);
	if (!list_empty(&r->node))
		request_finish(nb, r, left ? -EINTR : -ETIMEDOUT);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	return r->status;
}

int naobody_request_run(struct naobody_dev *nb, struct naobody_request *r)
{
	int ret = naobody_request_queue(nb, r);

	return ret ? ret : naobody_request_wait(nb, r);
}

int naobody_request_simple(struct naobody_dev *nb, u8 type, u8 board, u16 param,
			   struct naobody_request *out)
{
	memset(out, 0, sizeof(*out));
	out->type = type;
	out->board = board;
	out->param = param;
	return naobody_request_run(nb, out);
}
