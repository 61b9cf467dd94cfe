// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exchange with the chest board, once per period:
 *
 *   tick -> bulk OUT frame -> vendor IN 0x14 -> bulk IN answer -> publish
 *                             (2a + CRC)          | nothing ready
 *                                                 +-> vendor IN 0x15 -> publish
 *
 * The cycle runs on a thread of its own, a kthread_worker at the real-time
 * priority cycle_priority (SCHED_FIFO 51 by default: Documentation/
 * naobody.rst, "Real time"). The period's hrtimer expires in hard
 * interrupt context, PREEMPT_RT included (_HARD), and only wakes that
 * thread (tick_work), which builds the frame and starts a chain; each URB's
 * completion submits the next with GFP_ATOMIC, and the last one publishes a
 * record to the ring. A tick that finds a chain still in flight counts an
 * overrun and never stacks. Each step has the spec's 20 ms limit, kept by a
 * second hard hrtimer that wakes the thread (step_work) to unlink the URB
 * in flight. Whatever needs to sleep (clearing a halt) goes to the recovery
 * work, and cycles that keep failing back off.
 *
 * Concurrency: nb->lock (a spinlock_t: a sleeping lock on PREEMPT_RT)
 * covers the chain's state; the thread and the completions take it, the
 * timer callbacks never do. NAOBODY_HALTED, set under the lock, stops every
 * resubmission, and naobody_cycle_stop() then cancels the timers and the
 * thread's works and kills what is in flight.
 */
#include <linux/kthread.h>
#include <linux/usb.h>

#include "naobody.h"
#include "compat.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

#define NAOBODY_STEP_TIMEOUT_MS		20
/* Each step of the last frame: the spec's 20 ms, and slack for a busy host. */
#define NAOBODY_LIMP_STEP_MS		50
#define NAOBODY_ANSWER_MAX		512
#define NAOBODY_REQ_ACK			0x14
#define NAOBODY_REQ_STATUS		0x15
#define NAOBODY_STATUS_LEN		2

static void chain_end(struct naobody_dev *nb, bool answered);

/* Submit urb as the chain's next step. Caller holds nb->lock. */
static void submit_step(struct naobody_dev *nb, struct urb *urb, enum naobody_step step)
{
	int ret;

	lockdep_assert_held(&nb->lock);
	if (test_bit(NAOBODY_HALTED, &nb->flags)) {
		nb->step = NAOBODY_STEP_IDLE;
		return;
	}
	nb->step = step;
	nb->step_timed_out = false;
	usb_anchor_urb(urb, &nb->anchor);
	ret = usb_submit_urb(urb, GFP_ATOMIC);
	if (ret) {
		usb_unanchor_urb(urb);
		/* -ENODEV, -EPERM (killed), -ESHUTDOWN: going away. */
		if (ret == -ENODEV || ret == -EPERM || ret == -ESHUTDOWN) {
			nb->step = NAOBODY_STEP_IDLE;
			return;
		}
		nb->stats.io_errors++;
		nb->errors |= NAOBODY_ERR_IO;
		chain_end(nb, false);
		return;
	}
	nb->step_deadline = ktime_add(ktime_get(), nb->step_timeout);
	hrtimer_start(&nb->step_timer, nb->step_deadline, NAOBODY_HRTIMER_ABS_HARD);
}

/* The chain is over: publish this cycle's record. Caller holds nb->lock. */
static void chain_end(struct naobody_dev *nb, bool answered)
{
	unsigned int hold = READ_ONCE(naobody_hold_cycles);

	lockdep_assert_held(&nb->lock);
	hrtimer_try_to_cancel(&nb->step_timer);
	nb->step = NAOBODY_STEP_IDLE;
	if (answered) {
		nb->fails = 0;
	} else {
		naobody_body_no_answer(nb);
		nb->fails++;
		/* The fault policy (naobody.h): paced through the hold, then back off. */
		if (nb->fails >= hold)
			nb->backoff = min(1U << min(nb->fails - hold, 6U),
					  (unsigned int)NAOBODY_BACKOFF_MAX_TICKS);
		else if (nb->fails >= NAOBODY_PACE_AFTER)
			nb->backoff = 1;
		if (!(nb->fails % (NAOBODY_RECOVER_HOLDS * hold)) &&
		    !test_and_set_bit(NAOBODY_RECOVERING, &nb->flags)) {
			nb->recover_all = true;
			schedule_work(&nb->recovery_work);
		}
	}
	naobody_body_publish(nb, ktime_get());
}

/*
 * A stalled endpoint (the fault policy: naobody.h). A bulk endpoint stays
 * halted until the host clears it, which sleeps: the recovery work does
 * it, without a limp frame. ep0's stall is a protocol stall, which the
 * next setup clears (USB 2.0, 8.5.3.4): nothing to do but count it.
 */
static void stall(struct naobody_dev *nb, int pipe)
{
	nb->stats.stalls++;
	nb->errors |= NAOBODY_ERR_STALL;
	if (usb_pipecontrol(pipe))
		return;
	nb->stalled_pipe = pipe;
	nb->recover_all = false;
	set_bit(NAOBODY_RECOVERING, &nb->flags);
	schedule_work(&nb->recovery_work);
}

/* What a completion does next. */
enum step_result {
	STEP_GO,		/* the URB succeeded: go on with its data */
	STEP_TIMEOUT,		/* we unlinked it after 20 ms */
	STEP_EP0_STALL,		/* a 0x14 or 0x15 stalled: counted */
	STEP_DONE,		/* the chain ended here (error, or killed) */
};

/* Common completion triage; on STEP_DONE the chain is already over. */
static enum step_result step_result(struct naobody_dev *nb, struct urb *urb, int pipe)
{
	int status = urb->status;

	lockdep_assert_held(&nb->lock);
	if (status == 0)
		return STEP_GO;
	if (status == -ECONNRESET && nb->step_timed_out) {
		nb->stats.timeouts++;
		nb->errors |= NAOBODY_ERR_TIMEOUT;
		return STEP_TIMEOUT;
	}
	switch (status) {
	case -ENOENT:
	case -ECONNRESET:
		/* Killed by us on the way down: stop here, quietly. */
		if (test_bit(NAOBODY_HALTED, &nb->flags))
			goto quiet;
		/* An unlink that wasn't ours to expect: end the cycle properly. */
		nb->stats.io_errors++;
		nb->errors |= NAOBODY_ERR_IO;
		break;
	case -ESHUTDOWN:
	case -ENODEV:
		/* The device is gone; disconnect follows. */
		goto quiet;
	case -EPIPE:
		stall(nb, pipe);
		if (usb_pipecontrol(pipe))
			return STEP_EP0_STALL;
		break;
	default:
		/* -EPROTO, -EILSEQ, -ETIME, -EOVERFLOW...: count, back off. */
		nb->stats.io_errors++;
		nb->errors |= NAOBODY_ERR_IO;
		break;
	}
	chain_end(nb, false);
	return STEP_DONE;
quiet:
	hrtimer_try_to_cancel(&nb->step_timer);
	nb->step = NAOBODY_STEP_IDLE;
	return STEP_DONE;
}

static void out_complete(struct urb *urb)
{
	struct naobody_dev *nb = urb->context;
	unsigned long irqflags;

	spin_lock_irqsave(&nb->lock, irqflags);
	trace_naobody_out_done(nb->index, nb->chain_cycle, urb->status, urb->actual_length);
	switch (step_result(nb, urb, nb->out_pipe)) {
	case STEP_GO:
		nb->out_ok = true;
		submit_step(nb, nb->ack_urb, NAOBODY_STEP_ACK);
		break;
	case STEP_TIMEOUT:
	case STEP_EP0_STALL:	/* not on a bulk endpoint */
		chain_end(nb, false);
		break;
	case STEP_DONE:
		break;
	}
	spin_unlock_irqrestore(&nb->lock, irqflags);
}

static void ack_complete(struct urb *urb)
{
	struct naobody_dev *nb = urb->context;
	unsigned long irqflags;
	const u8 *ack = nb->ack_buf;

	spin_lock_irqsave(&nb->lock, irqflags);
	trace_naobody_ack_done(nb->index, nb->chain_cycle, urb->status, urb->actual_length);
	switch (step_result(nb, urb, usb_rcvctrlpipe(nb->udev, 0))) {
	case STEP_GO:
		break;
	case STEP_TIMEOUT:
		chain_end(nb, false);
		goto out;
	case STEP_EP0_STALL:
		/* Unacknowledged; the answer is read all the same (below). */
		goto read;
	case STEP_DONE:
		goto out;
	}
	/* The board acknowledges the frame by its CRC. */
	if (nb_ack_check(ack, urb->actual_length, nb->out_crc)) {
		nb->stats.ack_mismatches++;
		nb->errors |= NAOBODY_ERR_ACK;
	} else {
		/*
		 * What START and HARAKIRI wait for (requests.c,
		 * naobody_requests_age()), and the limp boards (boards.c).
		 */
		nb->ack_ok = true;
		nb->boards_limp &= ~nb->out_limp;
	}
read:
	/* Read the answer either way: the frame may have been taken. */
	submit_step(nb, nb->in_urb, NAOBODY_STEP_IN);
out:
	spin_unlock_irqrestore(&nb->lock, irqflags);
}

static void in_complete(struct urb *urb)
{
	struct naobody_dev *nb = urb->context;
	unsigned long irqflags;

	spin_lock_irqsave(&nb->lock, irqflags);
	trace_naobody_in_done(nb->index, nb->chain_cycle, urb->status, urb->actual_length);
	switch (step_result(nb, urb, nb->in_pipe)) {
	case STEP_GO:
		hrtimer_try_to_cancel(&nb->step_timer);
		naobody_body_take_answer(nb, nb->in_buf, urb->actual_length);
		chain_end(nb, !(nb->errors & (NAOBODY_ERR_CRC | NAOBODY_ERR_TABLE)));
		break;
	case STEP_TIMEOUT:
		/* Nothing ready in time: ask for the chest board's status. */
		submit_step(nb, nb->status_urb, NAOBODY_STEP_STATUS);
		break;
	case STEP_EP0_STALL:	/* not on a bulk endpoint */
		chain_end(nb, false);
		break;
	case STEP_DONE:
		break;
	}
	spin_unlock_irqrestore(&nb->lock, irqflags);
}

static void status_complete(struct urb *urb)
{
	struct naobody_dev *nb = urb->context;
	unsigned long irqflags;

	spin_lock_irqsave(&nb->lock, irqflags);
	trace_naobody_status_done(nb->index, nb->chain_cycle, urb->status, urb->actual_length);
	switch (step_result(nb, urb, usb_rcvctrlpipe(nb->udev, 0))) {
	case STEP_GO:
		if (urb->actual_length == NAOBODY_STATUS_LEN)
			WRITE_ONCE(nb->chest_status, get_unaligned_be16(nb->status_buf));
		chain_end(nb, false);
		break;
	case STEP_TIMEOUT:
	case STEP_EP0_STALL:	/* a board without 0x15 (provisional) */
		chain_end(nb, false);
		break;
	case STEP_DONE:
		break;
	}
	spin_unlock_irqrestore(&nb->lock, irqflags);
}

static struct urb *step_urb(struct naobody_dev *nb)
{
	switch (nb->step) {
	case NAOBODY_STEP_OUT:
		return nb->out_urb;
	case NAOBODY_STEP_ACK:
		return nb->ack_urb;
	case NAOBODY_STEP_IN:
		return nb->in_urb;
	case NAOBODY_STEP_STATUS:
		return nb->status_urb;
	default:
		return NULL;
	}
}

/*
 * A step ran past its 20 ms (the cycle's thread, woken by the step timer):
 * unlink it; its completion takes it from there.
 */
static void cycle_step_expired(struct naobody_dev *nb)
{
	unsigned long irqflags;
	struct urb *urb;

	spin_lock_irqsave(&nb->lock, irqflags);
	urb = step_urb(nb);
	/*
	 * The step we were armed for may have completed while we waited for
	 * the lock, and the next one re-armed us: its deadline isn't due.
	 * (Returning NORESTART leaves a re-armed timer queued.)
	 */
	if (!urb || nb->step_timed_out || test_bit(NAOBODY_HALTED, &nb->flags) ||
	    ktime_before(ktime_get(), nb->step_deadline)) {
		spin_unlock_irqrestore(&nb->lock, irqflags);
		return;
	}
	nb->step_timed_out = true;
	trace_naobody_step_timeout(nb->index, nb->chain_cycle, nb->step, 0);
	spin_unlock_irqrestore(&nb->lock, irqflags);

	/*
	 * Not under nb->lock: the HCD may complete the URB right here. If we
	 * were delayed past this step's completion and its URB went out again,
	 * the stale unlink costs one cycle: its completion ends that chain with
	 * an I/O error.
	 */
	usb_unlink_urb(urb);
}

static void cycle_step_work(struct kthread_work *work)
{
	cycle_step_expired(container_of(work, struct naobody_dev, step_work));
}

/* Hard interrupt context, on PREEMPT_RT too: no nb->lock, only the thread. */
static enum hrtimer_restart step_timer_fn(struct hrtimer *t)
{
	struct naobody_dev *nb = container_of(t, struct naobody_dev, step_timer);

	kthread_queue_work(nb->worker, &nb->step_work);
	return HRTIMER_NORESTART;
}

/* A tick (the cycle's thread): ticks periods passed since the last one. */
static void cycle_tick(struct naobody_dev *nb, unsigned int ticks)
{
	unsigned long irqflags;
	u32 crc;
	int ret;

	spin_lock_irqsave(&nb->lock, irqflags);
	if (test_bit(NAOBODY_HALTED, &nb->flags)) {
		spin_unlock_irqrestore(&nb->lock, irqflags);
		return;
	}
	nb->cycle += ticks;
	if (nb->step != NAOBODY_STEP_IDLE) {
		nb->stats.overruns++;
		nb->errors |= NAOBODY_ERR_OVERRUN;
		trace_naobody_tick(nb->index, nb->cycle, 0, true);
		goto out;
	}
	if (test_bit(NAOBODY_RECOVERING, &nb->flags) || nb->backoff) {
		if (nb->backoff)
			nb->backoff--;
		nb->stats.skipped++;
		goto out;
	}

	nb->errors = 0;
	ret = naobody_body_build_frame(nb, nb->out_buf, NB_FRAME_MAX, &crc);
	if (ret <= 0) {
		/* Our own frame doesn't fit: a bug, not the board's doing. */
		dev_err_ratelimited(&nb->intf->dev,
				    "cannot build the OUT frame: " NAOBODY_PE "\n",
				    NAOBODY_ERR(ret));
		nb->stats.skipped++;
		goto out;
	}
	nb->out_len = ret;
	nb->out_crc = crc;
	nb->chain_cycle = nb->cycle;
	nb->out_urb->transfer_buffer_length = nb->out_len;
	nb->stats.cycles++;
	nb->out_submit = ktime_get();
	trace_naobody_tick(nb->index, nb->cycle, nb->out_len, false);
	submit_step(nb, nb->out_urb, NAOBODY_STEP_OUT);
out:
	spin_unlock_irqrestore(&nb->lock, irqflags);
}

static void cycle_tick_work(struct kthread_work *work)
{
	struct naobody_dev *nb = container_of(work, struct naobody_dev, tick_work);
	/* A late thread handles every period it missed at once. */
	unsigned int ticks = atomic_xchg(&nb->ticks, 0);

	if (ticks)
		cycle_tick(nb, ticks);
}

/*
 * The period (hard interrupt context, on PREEMPT_RT too): count it and
 * wake the cycle's thread. Never nb->lock here: on PREEMPT_RT it sleeps.
 */
static enum hrtimer_restart cycle_timer_fn(struct hrtimer *t)
{
	struct naobody_dev *nb = container_of(t, struct naobody_dev, timer);
	u64 ticks = hrtimer_forward_now(t, nb->period);

	if (test_bit(NAOBODY_HALTED, &nb->flags))
		return HRTIMER_NORESTART;
	atomic_add(min_t(u64, ticks, INT_MAX), &nb->ticks);
	kthread_queue_work(nb->worker, &nb->tick_work);
	return HRTIMER_RESTART;
}

void naobody_cycle_start(struct naobody_dev *nb)
{
	unsigned long irqflags;

	spin_lock_irqsave(&nb->lock, irqflags);
	/* Quiesced: only the resume or the restart that ends it starts us. */
	if (test_bit(NAOBODY_QUIESCED, &nb->flags)) {
		spin_unlock_irqrestore(&nb->lock, irqflags);
		return;
	}
	clear_bit(NAOBODY_HALTED, &nb->flags);
	nb->step = NAOBODY_STEP_IDLE;
	nb->fails = 0;
	nb->backoff = 0;
	/*
	 * Under the lock: a quiesce (disconnect) that runs as soon as we
	 * unlock then finds the timer armed and cancels it, rather than a
	 * timer armed after its cancel, on a device about to be freed.
	 */
	atomic_set(&nb->ticks, 0);
	hrtimer_start(&nb->timer, ktime_add(ktime_get(), nb->period), NAOBODY_HRTIMER_ABS_HARD);
	spin_unlock_irqrestore(&nb->lock, irqflags);
}

/* Stop ticking and wait for everything in flight. Sleeps. */
void naobody_cycle_stop(struct naobody_dev *nb)
{
	unsigned long irqflags;

	spin_lock_irqsave(&nb->lock, irqflags);
	set_bit(NAOBODY_HALTED, &nb->flags);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	hrtimer_cancel(&nb->timer);
	/* A tick already queued sees the halt; one running ends first. */
	kthread_cancel_work_sync(&nb->tick_work);
	usb_kill_anchored_urbs(&nb->anchor);
	hrtimer_cancel(&nb->step_timer);
	kthread_cancel_work_sync(&nb->step_work);
	/* The step's work may have unlinked a URB as we killed the rest. */
	usb_kill_anchored_urbs(&nb->anchor);
	spin_lock_irqsave(&nb->lock, irqflags);
	nb->step = NAOBODY_STEP_IDLE;
	spin_unlock_irqrestore(&nb->lock, irqflags);
}

/*
 * Stop everything that talks to the board: the cycle, the requests riding
 * in it (they fail with -ECANCELED; new ones are refused while the cycle is
 * halted) and the work items. The board may stay powered: right after the
 * cycle, its last frame sets every stiffness to 0 (why names the state,
 * for the log). Sleeps: at most as long as a restart's try of 0x13 and
 * 0x02 in the start-up work (their control timeouts), or a clear of a
 * halt in the recovery work.
 */
void naobody_quiesce(struct naobody_dev *nb, const char *why)
{
	unsigned long irqflags;

	/* The start-up work may be about to start the cycle: it won't now. */
	set_bit(NAOBODY_QUIESCED, &nb->flags);
	naobody_cycle_stop(nb);
	/*
	 * Before waiting for the work items: they may take seconds. Unbind
	 * and rmmod come here with the board still attached (soft_unbind: the
	 * core has not killed our endpoints yet).
	 */
	naobody_cycle_send_limp(nb, why);
	spin_lock_irqsave(&nb->lock, irqflags);
	naobody_requests_fail_all(nb, -ECANCELED);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	cancel_delayed_work_sync(&nb->startup_work);
	/* After the start-up work, which may queue it. */
	cancel_delayed_work_sync(&nb->retry_work);
	/*
	 * A recovery cancelled before it ran never clears the bit it owns,
	 * and the cycle skips every tick while it is set: clear it here,
	 * where nothing can queue the work again (the cycle is halted).
	 */
	cancel_work_sync(&nb->recovery_work);
	clear_bit(NAOBODY_RECOVERING, &nb->flags);
}

static void limp_complete(struct urb *urb)
{
	struct naobody_dev *nb = urb->context;

	complete(&nb->limp_done);
}

/*
 * The driver is about to stop talking to a board that may be powered
 * (unbind, rmmod, suspend, a reset, a recovery, a restart that gives up):
 * send it one last frame with every stiffness 0, then its 0x14 and the IN
 * read, so the exchange is whole. Synchronous; each step has
 * NAOBODY_LIMP_STEP_MS, so it takes 3 * NAOBODY_LIMP_STEP_MS at most.
 * The cycle must not be running (halted, or skipping for a recovery):
 * this uses its buffers. Returns 0 once the board acknowledged the frame
 * by its CRC, or the error; callers go on either way.
 */
int naobody_cycle_send_limp(struct naobody_dev *nb, const char *why)
{
	unsigned long irqflags;
	int ret, len, actual;
	u32 crc;

	might_sleep();
	if (nb->udev->state == USB_STATE_NOTATTACHED)
		return -ENODEV;
	/* A quiesce may come while the recovery work sends its own. */
	mutex_lock(&nb->limp_lock);
	spin_lock_irqsave(&nb->lock, irqflags);
	len = naobody_body_build_limp(nb, nb->out_buf, NB_FRAME_MAX, &crc);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	if (len <= 0) {
		ret = len ? len : -EINVAL;
		goto out;
	}

	reinit_completion(&nb->limp_done);
	usb_fill_bulk_urb(nb->limp_urb, nb->udev, nb->out_pipe, nb->out_buf, len,
			  limp_complete, nb);
	nb->limp_urb->transfer_flags |= URB_ZERO_PACKET;
	ret = usb_submit_urb(nb->limp_urb, GFP_KERNEL);
	if (ret)
		goto out;
	if (!wait_for_completion_timeout(&nb->limp_done,
					 msecs_to_jiffies(NAOBODY_LIMP_STEP_MS)))
		usb_kill_urb(nb->limp_urb);
	ret = nb->limp_urb->status;
	if (ret)
		goto out;
	spin_lock_irqsave(&nb->lock, irqflags);
	nb->stats.limp_frames++;
	spin_unlock_irqrestore(&nb->lock, irqflags);
	trace_naobody_tick(nb->index, nb->cycle, len, false);

	ret = usb_control_msg(nb->udev, usb_rcvctrlpipe(nb->udev, 0), NAOBODY_REQ_ACK,
			      USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE, 0, 0,
			      nb->ack_buf, NB_ACK_LEN, NAOBODY_LIMP_STEP_MS);
	if (ret >= 0)
		ret = nb_ack_check(nb->ack_buf, ret, crc) ? -EPROTO : 0;
	if (!ret) {
		/* Every board that ever got targets got this one. */
		spin_lock_irqsave(&nb->lock, irqflags);
		nb->boards_limp = 0;
		spin_unlock_irqrestore(&nb->lock, irqflags);
	}
	/* The answer, if one is ready; what it says no longer matters. */
	usb_bulk_msg(nb->udev, nb->in_pipe, nb->in_buf, NAOBODY_ANSWER_MAX, &actual,
		     NAOBODY_LIMP_STEP_MS);
out:
	mutex_unlock(&nb->limp_lock);
	/*
	 * A board that did not get its limp frame may keep its last targets:
	 * that is worth a warning (ratelimited: a recovery storm sends one
	 * per recovery). Going limp as asked is routine.
	 */
	if (ret)
		dev_warn_ratelimited(&nb->intf->dev,
				     "the last frame (stiffness 0) before %s failed: " NAOBODY_PE
				     "; the body may keep its last targets\n",
				     why, NAOBODY_ERR(ret));
	else
		dev_dbg(&nb->intf->dev, "last frame (stiffness 0) before %s sent\n", why);
	return ret;
}

/*
 * usb_clear_halt() with a bound of our own: the core's waits up to 5 s
 * (USB_CTRL_SET_TIMEOUT) on a board that NAKs the request, and the ticks
 * wait for the recovery, a stop's frame with them. The same two steps, as
 * usb-storage's copy does them: CLEAR_FEATURE(ENDPOINT_HALT), then, once
 * the board took it, the host's side of the endpoint (its data toggle).
 */
static int clear_halt(struct naobody_dev *nb, int pipe)
{
	unsigned int endp = usb_pipeendpoint(pipe) | (usb_pipein(pipe) ? USB_DIR_IN : 0);
	int ret;

	ret = usb_control_msg(nb->udev, usb_sndctrlpipe(nb->udev, 0), USB_REQ_CLEAR_FEATURE,
			      USB_RECIP_ENDPOINT, USB_ENDPOINT_HALT, endp, NULL, 0,
			      NAOBODY_CLEAR_TIMEOUT_MS);
	if (ret < 0) {
		dev_dbg(&nb->intf->dev, "clearing the halt of %02x failed: " NAOBODY_PE "\n",
			endp, NAOBODY_ERR(ret));
		return ret;
	}
	usb_reset_endpoint(nb->udev, endp);
	return 0;
}

/*
 * A stalled bulk endpoint (stalled_pipe): its halt is cleared and the cycle
 * goes on; the body held its targets, a stall that clears is no lost link.
 * A clear that fails is one: the limp frame. A board that has not answered
 * for NAOBODY_RECOVER_HOLDS holds (recover_all): the limp frame (its boards
 * went limp at the hold already), both halts cleared, and a reset from
 * NAOBODY_RESET_HOLDS holds on.
 */
void naobody_recovery_work(struct work_struct *work)
{
	struct naobody_dev *nb = container_of(work, struct naobody_dev, recovery_work);
	unsigned int fails;
	bool all;
	int pipe;

	mutex_lock(&nb->io_mutex);
	pipe = READ_ONCE(nb->stalled_pipe);
	all = READ_ONCE(nb->recover_all);
	fails = READ_ONCE(nb->fails);
	if (naobody_gone(nb)) {
		/* Nothing to talk to. */
	} else if (!all) {
		/* A stalled OUT endpoint carries no limp frame before its clear. */
		if (clear_halt(nb, pipe))
			naobody_cycle_send_limp(nb, "giving up a stalled endpoint");
	} else {
		naobody_cycle_send_limp(nb, "recovering");
		clear_halt(nb, nb->out_pipe);
		clear_halt(nb, nb->in_pipe);
		if (fails >= NAOBODY_RESET_HOLDS * READ_ONCE(naobody_hold_cycles)) {
			dev_warn(&nb->intf->dev,
				 "no answer for %u cycles: resetting the chest board\n", fails);
			usb_queue_reset_device(nb->intf);
		}
	}
	clear_bit(NAOBODY_RECOVERING, &nb->flags);
	mutex_unlock(&nb->io_mutex);
}

static void fill_vendor_in(struct usb_ctrlrequest *setup, u8 request, u16 len)
{
	setup->bRequestType = USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE;
	setup->bRequest = request;
	setup->wValue = 0;
	setup->wIndex = 0;
	setup->wLength = cpu_to_le16(len);
}

/*
 * The cycle's thread: created, given its priority, then started. A
 * priority the kernel refuses leaves it running at what it got (logged).
 */
static int start_worker(struct naobody_dev *nb)
{
	unsigned int prio = READ_ONCE(naobody_cycle_priority);
	char name[TASK_COMM_LEN];
	struct kthread_worker *w;
	int ret;

	snprintf(name, sizeof(name), "naobody-%s", dev_name(&nb->intf->dev));
	w = naobody_worker_create(name, &nb->worker_task);
	if (IS_ERR(w))
		return PTR_ERR(w);
	ret = naobody_sched_fifo(nb->worker_task, prio);
	if (ret == -EOPNOTSUPP)
		dev_warn(&nb->intf->dev,
			 "this kernel sets a kernel thread's SCHED_FIFO priority to 50 only: the cycle runs at 50, not cycle_priority=%u\n",
			 prio);
	else if (ret)
		dev_warn(&nb->intf->dev,
			 "cannot run the cycle at SCHED_FIFO %u: " NAOBODY_PE
			 "; it runs at normal priority\n",
			 prio, NAOBODY_ERR(ret));
	/* kthread_create_worker() starts it up to 6.13, not from 6.14 on. */
	wake_up_process(nb->worker_task);
	nb->worker = w;
	return 0;
}

int naobody_cycle_init(struct naobody_dev *nb)
{
	struct usb_device *udev = nb->udev;
	int ret;

	naobody_hrtimer_setup(&nb->timer, cycle_timer_fn, CLOCK_MONOTONIC,
			      NAOBODY_HRTIMER_ABS_HARD);
	naobody_hrtimer_make_hard(&nb->timer);
	naobody_hrtimer_setup(&nb->step_timer, step_timer_fn, CLOCK_MONOTONIC,
			      NAOBODY_HRTIMER_ABS_HARD);
	naobody_hrtimer_make_hard(&nb->step_timer);
	kthread_init_work(&nb->tick_work, cycle_tick_work);
	kthread_init_work(&nb->step_work, cycle_step_work);
	/* naobody_cycle_free() cancels the timers once the thread exists. */
	ret = start_worker(nb);
	if (ret)
		return ret;
	nb->out_urb = usb_alloc_urb(0, GFP_KERNEL);
	nb->ack_urb = usb_alloc_urb(0, GFP_KERNEL);
	nb->in_urb = usb_alloc_urb(0, GFP_KERNEL);
	nb->status_urb = usb_alloc_urb(0, GFP_KERNEL);
	nb->out_buf = kmalloc(NB_FRAME_MAX, GFP_KERNEL);
	nb->in_buf = kmalloc(NAOBODY_ANSWER_MAX, GFP_KERNEL);
	nb->ack_buf = kmalloc(NB_ACK_LEN, GFP_KERNEL);
	nb->status_buf = kmalloc(NAOBODY_STATUS_LEN, GFP_KERNEL);
	nb->ack_setup = kmalloc(sizeof(*nb->ack_setup), GFP_KERNEL);
	nb->status_setup = kmalloc(sizeof(*nb->status_setup), GFP_KERNEL);
	nb->limp_urb = usb_alloc_urb(0, GFP_KERNEL);
	init_completion(&nb->limp_done);
	if (!nb->out_urb || !nb->ack_urb || !nb->in_urb || !nb->status_urb || !nb->limp_urb ||
	    !nb->out_buf || !nb->in_buf || !nb->ack_buf || !nb->status_buf ||
	    !nb->ack_setup || !nb->status_setup)
		return -ENOMEM;	/* naobody_cycle_free() undoes the rest */

	usb_fill_bulk_urb(nb->out_urb, udev, nb->out_pipe, nb->out_buf, 0,
			  out_complete, nb);
	/* The board finds a frame's end by a short packet (provisional). */
	nb->out_urb->transfer_flags |= URB_ZERO_PACKET;

	fill_vendor_in(nb->ack_setup, NAOBODY_REQ_ACK, NB_ACK_LEN);
	usb_fill_control_urb(nb->ack_urb, udev, usb_rcvctrlpipe(udev, 0),
			     (u8 *)nb->ack_setup, nb->ack_buf, NB_ACK_LEN,
			     ack_complete, nb);

	usb_fill_bulk_urb(nb->in_urb, udev, nb->in_pipe, nb->in_buf,
			  NAOBODY_ANSWER_MAX, in_complete, nb);

	fill_vendor_in(nb->status_setup, NAOBODY_REQ_STATUS, NAOBODY_STATUS_LEN);
	usb_fill_control_urb(nb->status_urb, udev, usb_rcvctrlpipe(udev, 0),
			     (u8 *)nb->status_setup, nb->status_buf,
			     NAOBODY_STATUS_LEN, status_complete, nb);

	init_usb_anchor(&nb->anchor);
	nb->step_timeout = ms_to_ktime(NAOBODY_STEP_TIMEOUT_MS);
	set_bit(NAOBODY_HALTED, &nb->flags);
	return 0;
}

/*
 * Undo naobody_cycle_init(), whatever part of it ran: also on a device whose
 * probe failed before it (its preferences' or its ring's allocation), whose
 * timers were never set up.
 */
void naobody_cycle_free(struct naobody_dev *nb)
{
	if (nb->worker) {
		/* Neither may fire on freed memory, whatever path led here. */
		hrtimer_cancel(&nb->timer);
		hrtimer_cancel(&nb->step_timer);
		naobody_worker_destroy(nb->worker, nb->worker_task);
		nb->worker = NULL;
	}
	usb_free_urb(nb->out_urb);
	usb_free_urb(nb->ack_urb);
	usb_free_urb(nb->in_urb);
	usb_free_urb(nb->status_urb);
	usb_free_urb(nb->limp_urb);
	kfree(nb->out_buf);
	kfree(nb->in_buf);
	kfree(nb->ack_buf);
	kfree(nb->status_buf);
	kfree(nb->ack_setup);
	kfree(nb->status_setup);
}
