// SPDX-License-Identifier: GPL-2.0-only
/*
 * The body's side of the cycle: what each OUT frame carries (after the
 * safety policy, safety.c, and with the requests' plan, requests.c), the
 * last, limp frame, and the record that ends each cycle. Answers are
 * decoded in answers.c, boards tracked in boards.c. Everything here runs
 * under nb->lock, from the cycle's timer and completions (atomic context),
 * and calls the codec, which neither allocates nor sleeps.
 */
#include <linux/ktime.h>

#include "naobody.h"
#include "trace.h"

/* Stiffness 0 for the joints of boards. */
static void limp_boards(struct naobody_actuators *a, u64 boards)
{
	unsigned int i, j;

	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *d = nb_board(i);

		if (!(boards & BIT_ULL(i)))
			continue;
		for (j = 0; j < d->joints; j++)
			a->stiffness[d->joint[j]] = 0;
	}
}

/*
 * Build this cycle's OUT frame; returns its length or a negative errno.
 * The accepted boards get their targets after the safety policy; the
 * boards that must go limp (boards.c) get stiffness 0.
 */
int naobody_body_build_frame(struct naobody_dev *nb, u8 *buf, u32 cap, u32 *crc)
{
	u64 limp = nb->boards_limp & ~nb->boards_accepted;
	struct nb_out_plan plan = {
		.targets = nb->boards_accepted | limp,
		.requests = NB_REQ_SENSORS | NB_REQ_CHEST_LED,
	};

	int ret;

	lockdep_assert_held(&nb->lock);
	naobody_safety_apply(nb, ktime_get());
	limp_boards(&nb->sent, limp);
	nb->out_limp = limp;
	naobody_requests_plan(nb, &plan);
	nb->boards_targeted |= plan.targets;
	nb->out_ok = false;
	nb->ack_ok = false;
	ret = nb_out_cycle(buf, cap, &nb->sent, &plan, crc);
	if (ret > 0)
		naobody_requests_commit(nb);
	return ret;
}

/*
 * The last frame before the driver goes quiet (naobody_cycle_send_limp()):
 * every stiffness 0, to every board that ever got targets from this
 * device, positions and LEDs as last sent, no requests. What it sends
 * becomes the record's "commanded" too.
 */
int naobody_body_build_limp(struct naobody_dev *nb, u8 *buf, u32 cap, u32 *crc)
{
	struct nb_out_plan plan = {
		.targets = nb->boards_targeted | nb->boards_accepted,
		.requests = NB_REQ_SENSORS,
	};

	lockdep_assert_held(&nb->lock);
	memset(nb->sent.stiffness, 0, sizeof(nb->sent.stiffness));
	return nb_out_cycle(buf, cap, &nb->sent, &plan, crc);
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
	naobody_requests_age(nb);
	naobody_boards_track(nb);
}
