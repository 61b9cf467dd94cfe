// SPDX-License-Identifier: GPL-2.0-only
/*
 * The body's side of the cycle: what each OUT frame carries, what each
 * answer changes, and the record that ends each cycle. Everything here runs
 * under nb->lock, from the cycle's timer and completions (atomic context),
 * and calls the codec, which neither allocates nor sleeps.
 *
 * Safety policy, applied to every frame (Documentation/naobody.rst):
 *   - stopped (the death switch): every stiffness is 0; commands are
 *     dropped until REARM, which leaves stiffness at 0 and positions at
 *     the measured ones, so nothing old applies afterwards;
 *   - ramping (the controller closed, released the role, or fell silent
 *     for controller_timeout_ms): stiffness falls linearly from what it
 *     was to 0 over ramp_ms, positions hold. The targets' stiffness is 0
 *     from the start of the ramp, so nothing of the old controller's comes
 *     back; only a write that sets stiffness ends the ramp. When the ramp
 *     ends at 0, the position targets become the measured positions;
 *   - otherwise the controller's targets. Before any controller, every
 *     target is 0: the body starts limp.
 *
 * Requests (preference pieces, id strings, handshakes, chest board
 * requests) wait on nb->requests. Each frame carries what the codec's plan
 * has room for (any number of handshakes and starts, one of each other
 * kind), oldest first. A request that expects an answer waits
 * NAOBODY_REQ_WAIT cycles for it, then goes out again, NAOBODY_REQ_SENDS
 * times in all, and then fails with -ETIMEDOUT.
 */
#include <linux/ktime.h>

#include "naobody.h"
#include "trace.h"

#define NAOBODY_REQ_WAIT	3	/* cycles per send */
#define NAOBODY_REQ_SENDS	3
#define NAOBODY_BOARD_DOWN_MISSES	10	/* cycles without an answer */

void naobody_boards_init(struct naobody_dev *nb)
{
	unsigned int i;

	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *d = nb_board(i);

		nb->boards[i].bus = d->bus;
		nb->boards[i].address = d->address;
		nb->boards[i].kind = d->kind;
		nb->boards[i].state = NAOBODY_BOARD_UNKNOWN;
	}
}

/* After a reset: every board is asked again, and nothing is sent to any. */
void naobody_boards_reset(struct naobody_dev *nb)
{
	unsigned long irqflags;

	spin_lock_irqsave(&nb->lock, irqflags);
	nb->boards_accepted = 0;
	nb->boards_alive = 0;
	memset(nb->board_misses, 0, sizeof(nb->board_misses));
	spin_unlock_irqrestore(&nb->lock, irqflags);
	mutex_lock(&nb->info_lock);
	memset(nb->boards, 0, sizeof(nb->boards));
	naobody_boards_init(nb);
	mutex_unlock(&nb->info_lock);
	WRITE_ONCE(nb->startup_done, false);
}

/* --- safety ------------------------------------------------------------ */

/* Caller holds nb->lock, for all four. */
void naobody_safety_stop(struct naobody_dev *nb, u32 reason)
{
	lockdep_assert_held(&nb->lock);
	if (nb->stopped)
		return;
	nb->stopped = true;
	nb->stop_reason = reason;
	memset(nb->target.stiffness, 0, sizeof(nb->target.stiffness));
	nb->ramping = false;
	/* The next tick must carry it, even while backing off. */
	nb->backoff = 0;
	naobody_queue_event(nb, NAOBODY_EVENT_STOP, reason, 0);
}

void naobody_safety_rearm(struct naobody_dev *nb)
{
	lockdep_assert_held(&nb->lock);
	if (!nb->stopped)
		return;
	nb->stopped = false;
	nb->stop_reason = NAOBODY_STOP_UNSPEC;
	memset(nb->target.stiffness, 0, sizeof(nb->target.stiffness));
	memcpy(nb->target.position, nb->sensors.joint_position,
	       sizeof(nb->target.position));
	naobody_queue_event(nb, NAOBODY_EVENT_REARM, 0, 0);
}

void naobody_safety_controller_lost(struct naobody_dev *nb)
{
	lockdep_assert_held(&nb->lock);
	if (nb->lost)
		return;
	nb->lost = true;
	naobody_queue_event(nb, NAOBODY_EVENT_CONTROLLER_LOST, 0, 0);
	if (nb->stopped || nb->ramping)
		return;
	nb->ramping = true;
	nb->ramp_start = ktime_get();
	/* Ramp from what was sent; nothing of it survives the ramp. */
	memcpy(nb->ramp_from, nb->target.stiffness, sizeof(nb->ramp_from));
	memset(nb->target.stiffness, 0, sizeof(nb->target.stiffness));
}

/* The actuators this frame sends, after the policy above. */
static void apply_safety(struct naobody_dev *nb, ktime_t now)
{
	/* Parameters root may change at any time: read each once. */
	unsigned int timeout_ms = READ_ONCE(naobody_controller_timeout_ms);
	unsigned int ramp_ms = READ_ONCE(naobody_ramp_ms);
	struct naobody_actuators *a = &nb->sent;
	unsigned int i;
	s64 left_ms;

	*a = nb->target;
	if (nb->stopped) {
		memset(a->stiffness, 0, sizeof(a->stiffness));
		return;
	}
	if (nb->controller && !nb->lost && timeout_ms &&
	    ktime_ms_delta(now, nb->last_command) > timeout_ms)
		naobody_safety_controller_lost(nb);
	if (!nb->ramping)
		return;

	left_ms = (s64)ramp_ms - ktime_ms_delta(now, nb->ramp_start);
	if (left_ms <= 0) {
		/* Limp now: hold where the joints are, not the old targets. */
		nb->ramping = false;
		memcpy(nb->target.position, nb->sensors.joint_position,
		       sizeof(nb->target.position));
		*a = nb->target;
		return;
	}
	for (i = 0; i < NAOBODY_JOINTS; i++)
		a->stiffness[i] = div_u64((u64)nb->ramp_from[i] * left_ms, ramp_ms);
}

/* --- requests ---------------------------------------------------------- */

static bool request_expects_answer(const struct naobody_request *r)
{
	return r->type != NAOBODY_RQ_HARAKIRI && r->type != NAOBODY_RQ_START;
}

static void request_finish(struct naobody_request *r, int status)
{
	list_del_init(&r->node);
	r->status = status;
	/* The waiter may free r as soon as this returns. */
	complete(&r->done);
}

/*
 * Put what fits of the waiting requests into plan. They count as sent only
 * once the frame is built: commit_requests().
 */
static void plan_requests(struct naobody_dev *nb, struct nb_out_plan *plan)
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
			if (plan->requests & NB_REQ_CHEST_MODE)
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

static void commit_requests(struct naobody_dev *nb)
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

static void match_requests(struct naobody_dev *nb, const struct nb_msg_info *info)
{
	struct naobody_request *r, *tmp;

	list_for_each_entry_safe(r, tmp, &nb->requests, node) {
		if (!answers(r, info))
			continue;
		r->value = info->value;
		r->answer_len = min_t(u16, info->len, sizeof(r->answer));
		if (info->data)
			memcpy(r->answer, info->data, r->answer_len);
		request_finish(r, 0);
		return;
	}
}

/* At the end of a cycle: resend or fail what got no answer. */
static void age_requests(struct naobody_dev *nb)
{
	struct naobody_request *r, *tmp;

	list_for_each_entry_safe(r, tmp, &nb->requests, node) {
		if (!r->in_frame)
			continue;
		if (!request_expects_answer(r)) {
			if (nb->out_ok)
				request_finish(r, 0);
			else if (!r->sends_left)
				request_finish(r, -EIO);
			else
				r->in_frame = false;
			continue;
		}
		if (++r->waited < NAOBODY_REQ_WAIT)
			continue;
		if (r->sends_left)
			r->in_frame = false;
		else
			request_finish(r, -ETIMEDOUT);
	}
}

void naobody_requests_fail_all(struct naobody_dev *nb, int status)
{
	struct naobody_request *r, *tmp;

	lockdep_assert_held(&nb->lock);
	list_for_each_entry_safe(r, tmp, &nb->requests, node)
		request_finish(r, status);
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
		request_finish(r, left ? -EINTR : -ETIMEDOUT);
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

/* --- the frames ---------------------------------------------------------- */

/* Build this cycle's OUT frame; returns its length or a negative errno. */
int naobody_body_build_frame(struct naobody_dev *nb, u8 *buf, u32 cap, u32 *crc)
{
	struct nb_out_plan plan = {
		.targets = nb->boards_accepted,
		.requests = NB_REQ_SENSORS | NB_REQ_CHEST_LED,
	};

	int ret;

	lockdep_assert_held(&nb->lock);
	apply_safety(nb, ktime_get());
	plan_requests(nb, &plan);
	nb->out_ok = false;
	ret = nb_out_cycle(buf, cap, &nb->sent, &plan, crc);
	if (ret > 0)
		commit_requests(nb);
	return ret;
}

static void board_answered(struct naobody_dev *nb, unsigned int board)
{
	if (board >= NB_BOARDS)
		return;
	nb->boards_up |= BIT_ULL(board);
}

/* Decode an answer frame into the sensors; count what is wrong with it. */
void naobody_body_take_answer(struct naobody_dev *nb, const u8 *buf, u32 len)
{
	struct nb_msg_info info;
	struct nb_msg_iter it;
	struct nb_frame f;
	const u8 *msg;
	size_t mlen;
	int ret;

	lockdep_assert_held(&nb->lock);
	nb->boards_up = 0;
	nb->sensors.updated = 0;
	ret = nb_frame_parse(&f, buf, len, NB_FRAME_IN);
	if (ret == -EBADMSG) {
		nb->stats.crc_errors++;
		nb->errors |= NAOBODY_ERR_CRC;
		return;
	}
	if (ret) {
		nb->stats.bad_tables++;
		nb->errors |= NAOBODY_ERR_TABLE;
		return;
	}

	nb_msg_iter_init(&it, &f);
	while ((msg = nb_msg_next(&it, &mlen))) {
		/* Returns the message's type, or an error. */
		ret = nb_in_msg_decode(msg, mlen, &nb->sensors, &info);
		if (ret == -ENOENT)
			continue;	/* a device we don't know yet: not an error */
		if (ret < 0) {
			nb->stats.bad_messages++;
			nb->errors |= NAOBODY_ERR_MESSAGE;
			continue;
		}
		if (info.board != NB_NO_BOARD)
			board_answered(nb, info.board);
		match_requests(nb, &info);
	}
	nb->stats.answers++;

	if (nb->sensors.touch != nb->last_touch) {
		naobody_queue_event(nb, NAOBODY_EVENT_TOUCH, nb->sensors.touch,
				    nb->sensors.touch ^ nb->last_touch);
		nb->last_touch = nb->sensors.touch;
	}
}

void naobody_body_no_answer(struct naobody_dev *nb)
{
	lockdep_assert_held(&nb->lock);
	nb->boards_up = 0;
	nb->sensors.updated = 0;
}

/* Board up and down events for accepted boards, debounced. */
static void track_boards(struct naobody_dev *nb)
{
	unsigned int i;

	for (i = 0; i < NB_BOARDS; i++) {
		u64 bit = BIT_ULL(i);

		if (!(nb->boards_accepted & bit))
			continue;
		if (nb->boards_up & bit) {
			nb->board_misses[i] = 0;
			if (!(nb->boards_alive & bit)) {
				nb->boards_alive |= bit;
				naobody_queue_event(nb, NAOBODY_EVENT_BOARD_UP, i, 0);
			}
		} else if ((nb->boards_alive & bit) &&
			   ++nb->board_misses[i] >= NAOBODY_BOARD_DOWN_MISSES) {
			nb->boards_alive &= ~bit;
			naobody_queue_event(nb, NAOBODY_EVENT_BOARD_DOWN, i, 0);
		}
	}
}

/* End of a cycle: the record, the readers, the requests, the boards. */
void naobody_body_publish(struct naobody_dev *nb, ktime_t now)
{
	struct naobody_record *rec;
	u32 flags = 0;

	lockdep_assert_held(&nb->lock);
	if (nb->stopped)
		flags |= NAOBODY_REC_STOPPED;
	if (nb->controller)
		flags |= NAOBODY_REC_CONTROLLED;
	if (nb->ramping)
		flags |= NAOBODY_REC_RAMPING;
	if (nb->errors & (NAOBODY_ERR_CRC | NAOBODY_ERR_TABLE | NAOBODY_ERR_TIMEOUT |
			  NAOBODY_ERR_STALL | NAOBODY_ERR_IO))
		flags |= NAOBODY_REC_NO_ANSWER;

	rec = naobody_ring_begin(&nb->ring);
	rec->cycle = nb->chain_cycle;
	rec->out_submit_ns = ktime_to_ns(nb->out_submit);
	rec->in_complete_ns = ktime_to_ns(now);
	rec->flags = flags;
	rec->errors = nb->errors;
	rec->boards_up = nb->boards_up;
	rec->sensors = nb->sensors;
	rec->commanded = nb->sent;
	naobody_ring_commit(&nb->ring);
	trace_naobody_publish(nb->index, nb->chain_cycle, flags, nb->errors);

	wake_up_interruptible(&nb->wait);
	age_requests(nb);
	track_boards(nb);
}
