// SPDX-License-Identifier: GPL-2.0-only
/*
 * Answer decoding: each IN frame the cycle read, through the codec, into
 * the sensors, the boards that answered and the requests it answers;
 * what is wrong with it is counted. Runs under nb->lock, from the cycle's
 * completions; the codec neither allocates nor sleeps.
 */
#include "naobody.h"

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
			naobody_boards_answered(nb, info.board);
		naobody_requests_match(nb, &info);
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
