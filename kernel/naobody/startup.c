// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chest board's start-up, as the spec gives it:
 *
 *   1. configuration 1           (the USB core has set it before probe)
 *   2. vendor OUT 0x13           probe, synchronously
 *   3. interface 0 claimed       binding does it
 *   4. vendor IN 0x02, 4 bytes   probe: the chest board's version
 *   5. the preference block      the start-up work, through the cycle
 *   6. the id strings            the start-up work
 *   7. the motor board handshake the start-up work
 *
 * Probe starts the cycle right after step 4, so the body's sensors flow at
 * once; the work then reads what rides in the frames and hands the accepted
 * boards their targets.
 *
 * What steps 5 and 6 could not read (a board that answered garbage for a
 * while, a rough patch on the bus) the retry work reads again while the
 * cycle runs: 1 s after the start-up, then twice as long after each pass
 * that read nothing, at most NAOBODY_RETRY_MAX_MS apart, until every piece
 * is in. Only a block that arrives whole and fails its CRC check
 * NAOBODY_CALIB_CRC_READS times is given up (NAOBODY_CALIB_FAILED):
 * reading it again would give the same bytes.
 */
#include <linux/slab.h>
#include <linux/usb.h>

#include "naobody.h"
#include "compat.h"

#define NAOBODY_REQ_START_PROTOCOL	0x13
#define NAOBODY_REQ_VERSION		0x02
#define NAOBODY_CTRL_TIMEOUT_MS		1000
#define NAOBODY_HANDSHAKE_TRIES		3
/* Requests per preference piece or id string before start-up gives up on it. */
#define NAOBODY_PIECE_TRIES		3
/*
 * A board starting over after a reset or a resume gets this many tries of
 * 0x13 and 0x02, this far apart: about 10 s in all. The PM callbacks don't
 * wait for it (a board just powered up may not answer yet, and our own
 * emulator is a user process, frozen until the resume is over).
 */
#define NAOBODY_RESTART_TRIES		8
#define NAOBODY_RESTART_DELAY_MS	250
/* How often boards that dropped out, or whose start failed, are asked again. */
#define NAOBODY_REHANDSHAKE_MS		1000
#define NAOBODY_CHEST_BODY_ID_SLOT	3	/* uapi: slot 3 is the body id */
static_assert(NAOBODY_CHEST_ID_LEN < NAOBODY_LATCH_KEY_LEN);
/* The retry work's backoff. */
#define NAOBODY_RETRY_FIRST_MS		1000
#define NAOBODY_RETRY_MAX_MS		32000
#define NAOBODY_CALIB_CRC_READS		3

int naobody_startup_probe(struct naobody_dev *nb)
{
	struct usb_device *udev = nb->udev;
	struct device *dev = &nb->intf->dev;
	u8 *version;
	int ret;

	if (!udev->actconfig || udev->actconfig->desc.bConfigurationValue != 1) {
		dev_err(dev, "configuration 1 is not active\n");
		return -ENODEV;
	}

	ret = usb_control_msg(udev, usb_sndctrlpipe(udev, 0), NAOBODY_REQ_START_PROTOCOL,
			      USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_DEVICE,
			      0, 0, NULL, 0, NAOBODY_CTRL_TIMEOUT_MS);
	if (ret < 0) {
		dev_err(dev, "vendor request 0x13 (start) failed: " NAOBODY_PE "\n",
			NAOBODY_ERR(ret));
		return ret;
	}

	version = kmalloc(4, GFP_KERNEL);
	if (!version)
		return -ENOMEM;
	ret = usb_control_msg(udev, usb_rcvctrlpipe(udev, 0), NAOBODY_REQ_VERSION,
			      USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE,
			      0, 0, version, 4, NAOBODY_CTRL_TIMEOUT_MS);
	if (ret == 4) {
		nb->chest_version = get_unaligned_be32(version);
		ret = 0;
	} else {
		dev_err(dev, "vendor request 0x02 (version) failed: " NAOBODY_PE "\n",
			NAOBODY_ERR(ret < 0 ? ret : -EPROTO));
		ret = ret < 0 ? ret : -EPROTO;
	}
	kfree(version);
	return ret;
}

static bool startup_cancelled(struct naobody_dev *nb)
{
	return naobody_gone(nb) || test_bit(NAOBODY_HALTED, &nb->flags);
}

static void set_calibration(struct naobody_dev *nb, u32 state)
{
	lockdep_assert_held(&nb->info_lock);
	WRITE_ONCE(nb->calibration, state);
}

/* A read of the block failed: it is read again later (the retry work). */
static void prefs_failed(struct naobody_dev *nb, unsigned int piece, int err)
{
	unsigned long irqflags;
	bool first;

	mutex_lock(&nb->info_lock);
	first = nb->calibration == NAOBODY_CALIB_PENDING;
	set_calibration(nb, NAOBODY_CALIB_RETRYING);
	mutex_unlock(&nb->info_lock);
	spin_lock_irqsave(&nb->lock, irqflags);
	nb->stats.calib_failures++;
	spin_unlock_irqrestore(&nb->lock, irqflags);
	/* Once: the retries count in statistics/calib_failures. */
	if (first)
		dev_warn(&nb->intf->dev,
			 "preference piece %u: " NAOBODY_PE
			 "; no calibration yet, reading it again\n",
			 piece, NAOBODY_ERR(err));
}

/*
 * Read every piece of the preference block and check its CRC, unless the
 * calibration is read already (a restart after a reset: the same board)
 * or given up.
 */
static void read_prefs(struct naobody_dev *nb, struct naobody_request *r)
{
	struct nb_prefs_asm *pa;
	unsigned int piece, try;
	u32 state = READ_ONCE(nb->calibration);
	bool retried = state == NAOBODY_CALIB_RETRYING;
	int ret = 0;

	if (state != NAOBODY_CALIB_PENDING && !retried)
		return;
	pa = kmalloc(sizeof(*pa), GFP_KERNEL);
	if (!pa)
		return;
	nb_prefs_asm_init(pa);
	for (piece = 0; piece < NB_PREFS_PIECES && !startup_cancelled(nb); piece++) {
		/* A rough patch of lost answers is no reason to give up. */
		for (try = 0; try < NAOBODY_PIECE_TRIES; try++) {
			ret = naobody_request_simple(nb, NAOBODY_RQ_PREF, 0, piece, r);
			if (ret != -ETIMEDOUT)
				break;
		}
		if (!ret)
			ret = nb_prefs_asm_put(pa, piece, r->answer, r->answer_len);
		if (ret)
			break;
	}
	if (piece == NB_PREFS_PIECES) {
		ret = nb_prefs_asm_check(pa);
		mutex_lock(&nb->info_lock);
		memcpy(nb->prefs, pa->block, NAOBODY_PREFS_SIZE);
		nb->prefs_read = true;
		nb->prefs_valid = !ret;
		if (!ret)
			set_calibration(nb, NAOBODY_CALIB_READ);
		else if (++nb->calib_reads >= NAOBODY_CALIB_CRC_READS)
			set_calibration(nb, NAOBODY_CALIB_FAILED);
		else
			set_calibration(nb, NAOBODY_CALIB_RETRYING);
		state = nb->calibration;
		mutex_unlock(&nb->info_lock);
		if (state == NAOBODY_CALIB_FAILED)
			dev_err(&nb->intf->dev,
				"the preference block fails its CRC check (%u reads): no calibration\n",
				NAOBODY_CALIB_CRC_READS);
		else if (ret)
			dev_warn(&nb->intf->dev,
				 "the preference block fails its CRC check; reading it again\n");
		else if (retried)
			/* Ends the warning above: said at the same level. */
			dev_info(&nb->intf->dev, "the preference block is read: calibrated\n");
		else
			dev_dbg(&nb->intf->dev, "the preference block is read\n");
	} else if (!startup_cancelled(nb)) {
		prefs_failed(nb, piece, ret);
	}
	kfree(pa);
}

/*
 * The body id is the latch's second key (latch.c): a body stopped on
 * another port is stopped here too, before any board is handed targets
 * (the handshake comes after the ids).
 */
static void latch_by_body_id(struct naobody_dev *nb, const struct naobody_request *r)
{
	unsigned long irqflags;
	u32 reason;

	spin_lock_irqsave(&nb->lock, irqflags);
	memset(nb->latch_body_id, 0, sizeof(nb->latch_body_id));
	memcpy(nb->latch_body_id, r->answer,
	       min_t(size_t, r->answer_len, NAOBODY_CHEST_ID_LEN));
	if (nb->stopped)
		naobody_safety_stop(nb, nb->stop_reason);	/* adds the id */
	else if (naobody_latch_get(nb->latch_path, nb->latch_body_id, &reason))
		naobody_safety_stop(nb, reason);
	spin_unlock_irqrestore(&nb->lock, irqflags);
}

/* The id strings not read yet (at probe: all of them). */
static void read_ids(struct naobody_dev *nb, struct naobody_request *r)
{
	unsigned int slot, try;
	int ret;

	for (slot = 0; slot < NAOBODY_CHEST_ID_SLOTS && !startup_cancelled(nb); slot++) {
		if (READ_ONCE(nb->chest_id_read[slot]))
			continue;
		for (try = 0; try < NAOBODY_PIECE_TRIES; try++) {
			ret = naobody_request_simple(nb, NAOBODY_RQ_ID, 0, slot, r);
			if (ret != -ETIMEDOUT)
				break;
		}
		if (ret)
			continue;
		mutex_lock(&nb->info_lock);
		memset(nb->chest_ids[slot], 0, sizeof(nb->chest_ids[slot]));
		memcpy(nb->chest_ids[slot], r->answer,
		       min_t(size_t, r->answer_len, NAOBODY_CHEST_ID_LEN));
		WRITE_ONCE(nb->chest_id_read[slot], true);
		mutex_unlock(&nb->info_lock);
		if (slot == NAOBODY_CHEST_BODY_ID_SLOT)
			latch_by_body_id(nb, r);
	}
}

/* Is anything of steps 5 and 6 still to be read? */
static bool startup_missing(struct naobody_dev *nb)
{
	u32 state = READ_ONCE(nb->calibration);
	unsigned int slot;

	if (state == NAOBODY_CALIB_PENDING || state == NAOBODY_CALIB_RETRYING)
		return true;
	for (slot = 0; slot < NAOBODY_CHEST_ID_SLOTS; slot++)
		if (!READ_ONCE(nb->chest_id_read[slot]))
			return true;
	return false;
}

/*
 * Queue the retry work if something is missing and the cycle runs. Its
 * callers, which also write nb->retries, never run at once, though
 * system_wq runs the start-up and the retry works side by side (they are
 * two work items): the start-up work calls it only at the end of its first
 * pass, before any retry work is queued (at probe; after a reset, whose
 * quiesce cancelled the retry work); the retry work at its own end; a
 * resume only after naobody_quiesce() cancelled the retry work, and only
 * when the first pass is done, which the start-up work it queues then
 * skips. Side by side, the works share only the request list (each
 * request is its own) and info_lock's fields (under it).
 */
void naobody_retry_schedule(struct naobody_dev *nb)
{
	unsigned int shift = min(nb->retries, 5U);

	if (startup_cancelled(nb) || !startup_missing(nb))
		return;
	schedule_delayed_work(&nb->retry_work,
			      msecs_to_jiffies(min(NAOBODY_RETRY_FIRST_MS << shift,
						   NAOBODY_RETRY_MAX_MS)));
}

void naobody_retry_work(struct work_struct *work)
{
	struct naobody_dev *nb = container_of(to_delayed_work(work), struct naobody_dev,
					      retry_work);
	u32 calibration = READ_ONCE(nb->calibration);
	unsigned int slot, ids = 0, ids_after = 0;
	struct naobody_request *r;

	if (startup_cancelled(nb))
		return;
	for (slot = 0; slot < NAOBODY_CHEST_ID_SLOTS; slot++)
		ids += READ_ONCE(nb->chest_id_read[slot]);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (r) {
		read_prefs(nb, r);
		read_ids(nb, r);
		kfree(r);
	}
	for (slot = 0; slot < NAOBODY_CHEST_ID_SLOTS; slot++)
		ids_after += READ_ONCE(nb->chest_id_read[slot]);
	/* A pass that read something starts the backoff over. */
	if (ids_after != ids || READ_ONCE(nb->calibration) != calibration)
		nb->retries = 0;
	else
		nb->retries++;
	naobody_retry_schedule(nb);
}

/*
 * The motor board handshake, the boards in open at once: ask (00 20), check
 * the configuration version against accepted_versions, ask a rejected or
 * silent board again, three times in all, and start the accepted ones.
 * At start-up (first) a board is decided at the last try: rejected if it
 * ever answered, else silent. Asked again later (it dropped out, its start
 * was not acknowledged, or it was silent), a board that doesn't answer
 * keeps its state and is asked again after NAOBODY_REHANDSHAKE_MS.
 */
static void handshake(struct naobody_dev *nb, u64 open, bool first)
{
	struct naobody_request *rq;
	unsigned int i, try;
	u64 accepted = 0, answered = 0;

	rq = kcalloc(NB_BOARDS, sizeof(*rq), GFP_KERNEL);
	if (!rq)
		return;
	for (try = 1; try <= NAOBODY_HANDSHAKE_TRIES && open && !startup_cancelled(nb); try++) {
		/* Queue every open board's request, so they share frames... */
		for (i = 0; i < NB_BOARDS; i++) {
			if (!(open & BIT_ULL(i)))
				continue;
			memset(&rq[i], 0, sizeof(rq[i]));
			rq[i].type = NAOBODY_RQ_HANDSHAKE;
			rq[i].board = i;
			naobody_request_queue(nb, &rq[i]);
		}
		/* ...then collect the answers. */
		for (i = 0; i < NB_BOARDS; i++) {
			struct naobody_board b;
			int ret;

			if (!(open & BIT_ULL(i)))
				continue;
			ret = naobody_request_wait(nb, &rq[i]);
			mutex_lock(&nb->info_lock);
			nb->boards[i].tries = try;
			if (!ret && !nb_handshake_parse(rq[i].answer, rq[i].answer_len, &b)) {
				nb->boards[i].config_version = b.config_version;
				nb->boards[i].hw_revision = b.hw_revision;
				nb->boards[i].board_type = b.board_type;
				nb->boards[i].serial = b.serial;
				memcpy(nb->boards[i].status, b.status, sizeof(b.status));
				memcpy(nb->boards[i].config, b.config, sizeof(b.config));
				answered |= BIT_ULL(i);
				if (naobody_version_accepted(b.config_version)) {
					accepted |= BIT_ULL(i);
					open &= ~BIT_ULL(i);
				}
			}
			/* Undecided until the last try: rejected if it ever answered. */
			if ((open & BIT_ULL(i)) && try == NAOBODY_HANDSHAKE_TRIES &&
			    (first || (answered & BIT_ULL(i))))
				nb->boards[i].state = answered & BIT_ULL(i) ?
						      NAOBODY_BOARD_REJECTED :
						      NAOBODY_BOARD_SILENT;
			mutex_unlock(&nb->info_lock);
		}
	}

	/* Start the accepted boards; from then on they get their targets. */
	for (i = 0; i < NB_BOARDS && !startup_cancelled(nb); i++) {
		if (!(accepted & BIT_ULL(i)))
			continue;
		if (naobody_request_simple(nb, NAOBODY_RQ_START, i, 0, &rq[i]))
			continue;
		mutex_lock(&nb->info_lock);
		nb->boards[i].state = NAOBODY_BOARD_ACCEPTED;
		mutex_unlock(&nb->info_lock);
		naobody_boards_accept(nb, i);
	}
	kfree(rq);
}

/*
 * After a reset, or a resume that lost the board's state: the boards start
 * over, and the start-up work starts the board again as probe did, then
 * the cycle, then reads and shakes hands as at probe. The cycle is halted
 * (quiesced) when this is called.
 */
void naobody_startup_restart(struct naobody_dev *nb)
{
	naobody_boards_reset(nb);
	nb->restart_tries = 0;
	set_bit(NAOBODY_RESTARTING, &nb->flags);
	clear_bit(NAOBODY_QUIESCED, &nb->flags);
	schedule_delayed_work(&nb->startup_work, 0);
}

/* Start the board again; false while it doesn't answer (the work is requeued). */
static bool restart_board(struct naobody_dev *nb)
{
	int ret;

	if (naobody_gone(nb))
		return false;
	ret = naobody_startup_probe(nb);
	if (ret) {
		if (++nb->restart_tries < NAOBODY_RESTART_TRIES) {
			schedule_delayed_work(&nb->startup_work,
					      msecs_to_jiffies(NAOBODY_RESTART_DELAY_MS));
		} else {
			dev_err(&nb->intf->dev,
				"the chest board did not start again after %u tries: " NAOBODY_PE
				"; replug it or rebind the driver\n",
				nb->restart_tries, NAOBODY_ERR(ret));
			/* We give up on it: if it hears anything, let it be limp. */
			naobody_cycle_send_limp(nb, "giving up the restart");
		}
		return false;
	}
	clear_bit(NAOBODY_RESTARTING, &nb->flags);
	naobody_cycle_start(nb);
	return true;
}

/*
 * The boards to ask again: those that dropped out (boards.c, naobody_boards_track())
 * are undecided from now on; with those whose start went unacknowledged,
 * they are the undecided ones. A board silent through the start-up's tries
 * is asked again too: a rough patch on the bus, or a board slower to come
 * up than the chest board, is no reason to leave it without targets for
 * good (the preference block is read again for the same reason). Only a
 * board that answered with a version we refuse is left alone.
 */
static u64 boards_to_ask_again(struct naobody_dev *nb)
{
	unsigned long irqflags;
	u64 dropped, undecided = 0;
	unsigned int i;

	spin_lock_irqsave(&nb->lock, irqflags);
	dropped = nb->boards_dropped;
	nb->boards_dropped = 0;
	spin_unlock_irqrestore(&nb->lock, irqflags);
	mutex_lock(&nb->info_lock);
	for (i = 0; i < NB_BOARDS; i++) {
		if (dropped & BIT_ULL(i)) {
			nb->boards[i].state = NAOBODY_BOARD_UNKNOWN;
			nb->boards[i].tries = 0;
		}
		if (nb->boards[i].state == NAOBODY_BOARD_UNKNOWN ||
		    nb->boards[i].state == NAOBODY_BOARD_SILENT)
			undecided |= BIT_ULL(i);
	}
	mutex_unlock(&nb->info_lock);
	return undecided;
}

void naobody_startup_work(struct work_struct *work)
{
	struct naobody_dev *nb = container_of(to_delayed_work(work), struct naobody_dev,
					      startup_work);
	struct naobody_request *r;
	u64 again;

	if (test_bit(NAOBODY_RESTARTING, &nb->flags) && !restart_board(nb))
		return;
	if (!READ_ONCE(nb->startup_done)) {
		r = kzalloc(sizeof(*r), GFP_KERNEL);
		if (!r)
			return;
		read_prefs(nb, r);
		read_ids(nb, r);
		kfree(r);
		/* Before any board gets targets: a body without its id. */
		if (!READ_ONCE(nb->chest_id_read[NAOBODY_CHEST_BODY_ID_SLOT]) &&
		    !startup_cancelled(nb))
			naobody_safety_latch_unidentified(nb);
		handshake(nb, GENMASK_ULL(NB_BOARDS - 1, 0), true);
		/* Cut short by a suspend, it runs again at resume. */
		if (startup_cancelled(nb))
			return;
		WRITE_ONCE(nb->startup_done, true);
		nb->retries = 0;
		naobody_retry_schedule(nb);
	}
	again = boards_to_ask_again(nb);
	if (!again)
		return;
	handshake(nb, again, false);
	if (!startup_cancelled(nb) && boards_to_ask_again(nb))
		schedule_delayed_work(&nb->startup_work,
				      msecs_to_jiffies(NAOBODY_REHANDSHAKE_MS));
}
