// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: naobody's cycle (kernel/naobody/cycle.c), its URB chain driven by
 * hand: each case calls the timer callbacks and the completion handlers
 * itself, in the order and with the status it wants, against a fake USB
 * core that records what the cycle submits and unlinks. body.c and
 * answers.c, whose functions the chain calls at its end, are replaced by
 * fakes that count.
 *
 * Every step (OUT, 0x14, IN, 0x15) meets every status a completion can
 * carry (0, -ENOENT, -ECONNRESET, -ESHUTDOWN, -EPROTO, -EPIPE, -ETIMEDOUT),
 * and the orders that matter: a step timeout before or after its
 * completion, a tick during a chain, a completion after the stop.
 */

/* The fake USB core: these names, and only these, are renamed in
 * everything below, usb.h's declarations included.
 */
#define usb_submit_urb		fake_usb_submit_urb
#define usb_unlink_urb		fake_usb_unlink_urb
#define usb_kill_anchored_urbs	fake_usb_kill_anchored_urbs
#define usb_control_msg		fake_usb_control_msg

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/usb.h>
#include <linux/workqueue.h>

#include "../naobody/naobody.h"
#include "../naobody/compat.h"

/*
 * The cycle timer's arming, watched (renamed in cycle.c only, after the
 * headers): naobody_cycle_start() must arm it with nb->lock held, or a
 * disconnect that quiesces between its check and the arming misses the
 * timer, which then fires on a freed device. A race the VM cannot make
 * happen on demand (lifetime_test tries it), shown here by construction.
 */
static struct {
	struct hrtimer *timer;		/* the one watched: nb->timer */
	spinlock_t *lock;		/* nb->lock */
	int starts;
	int starts_unlocked;
} watch;

static void watched_hrtimer_start(struct hrtimer *timer, ktime_t tim,
				  const enum hrtimer_mode mode)
{
	if (timer == watch.timer) {
		watch.starts++;
		/* Lockdep's view (the debug tier keeps it on: debug-checks). */
		if (!lockdep_is_held_type(watch.lock, -1))
			watch.starts_unlocked++;
	}
	hrtimer_start(timer, tim, mode);
}

#define hrtimer_start		watched_hrtimer_start

/* The unit under test, compiled in (see Kbuild). */
#include "../naobody/cycle.c"

/*
 * The 20 ms step limit becomes an hour (nb->step_timeout, set after
 * naobody_cycle_init()): a case fires the step timer itself, when it wants
 * the step to have run out of time, and a slow machine never fires it
 * behind a case's back. cycle_step_timer_waits_for_the_case proves it.
 */
#define TEST_STEP_TIMEOUT	ktime_set(3600, 0)

/* --- the fakes ------------------------------------------------------------- */

#define MAX_CALLS 16

static struct fake {
	struct naobody_dev *nb;
	struct urb *submitted[MAX_CALLS];
	int nsubmitted;
	int submit_error;		/* what the next submission returns */
	struct urb *unlinked;
	int cleared_halts;
	int published;
	int no_answers;
	int answers;
} fake;

int fake_usb_submit_urb(struct urb *urb, gfp_t mem_flags)
{
	int ret = fake.submit_error;

	fake.submit_error = 0;
	if (ret)
		return ret;
	if (fake.nsubmitted < MAX_CALLS)
		fake.submitted[fake.nsubmitted++] = urb;
	return 0;
}

int fake_usb_unlink_urb(struct urb *urb)
{
	fake.unlinked = urb;
	return -EINPROGRESS;
}

void fake_usb_kill_anchored_urbs(struct usb_anchor *anchor)
{
	struct urb *urb;

	while ((urb = usb_get_from_anchor(anchor)))
		usb_put_urb(urb);
}

/* Only a halt's clear succeeds (the last frame's 0x14 never comes here). */
int fake_usb_control_msg(struct usb_device *dev, unsigned int pipe, __u8 request,
			 __u8 requesttype, __u16 value, __u16 index, void *data,
			 __u16 size, int timeout)
{
	if (request != USB_REQ_CLEAR_FEATURE || value != USB_ENDPOINT_HALT)
		return -ENODEV;
	fake.cleared_halts++;
	return 0;
}

int naobody_body_build_frame(struct naobody_dev *nb, u8 *buf, u32 cap, u32 *crc)
{
	memset(buf, 0x2a, 16);
	*crc = 0x1234;
	return 16;
}

void naobody_body_take_answer(struct naobody_dev *nb, const u8 *buf, u32 len)
{
	fake.answers++;
}

void naobody_body_no_answer(struct naobody_dev *nb)
{
	fake.no_answers++;
}

void naobody_body_publish(struct naobody_dev *nb, ktime_t now)
{
	fake.published++;
}

/* The last, limp frame: never built here (the fake device is not attached). */
int naobody_body_build_limp(struct naobody_dev *nb, u8 *buf, u32 cap, u32 *crc)
{
	return -ENODEV;
}

int nb_ack_check(const u8 *ack, size_t len, u32 crc)
{
	return 0;
}

/* main.c's parameter, which the cycle's thread takes its priority from. */
unsigned int naobody_cycle_priority = 51;
unsigned int naobody_hold_cycles = 10;

/* requests.c's, which naobody_quiesce() calls: no request rides here. */
void naobody_requests_fail_all(struct naobody_dev *nb, int status)
{
}

/* startup.c's works, which naobody_quiesce() cancels. */
static void fake_work(struct work_struct *work)
{
}

/* --- set-up ------------------------------------------------------------------ */

static int cycle_test_init(struct kunit *test)
{
	struct naobody_dev *nb = kunit_kzalloc(test, sizeof(*nb), GFP_KERNEL);
	struct usb_device *udev = kunit_kzalloc(test, sizeof(*udev), GFP_KERNEL);
	struct usb_interface *intf = kunit_kzalloc(test, sizeof(*intf), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, nb);
	KUNIT_ASSERT_NOT_NULL(test, udev);
	KUNIT_ASSERT_NOT_NULL(test, intf);
	memset(&fake, 0, sizeof(fake));
	nb->udev = udev;
	nb->intf = intf;
	nb->out_pipe = usb_sndbulkpipe(udev, 2);
	nb->in_pipe = usb_rcvbulkpipe(udev, 1);
	nb->period = ms_to_ktime(12);
	spin_lock_init(&nb->lock);
	mutex_init(&nb->io_mutex);
	mutex_init(&nb->limp_lock);
	INIT_WORK(&nb->recovery_work, naobody_recovery_work);
	INIT_DELAYED_WORK(&nb->startup_work, fake_work);
	INIT_DELAYED_WORK(&nb->retry_work, fake_work);
	KUNIT_ASSERT_EQ(test, naobody_cycle_init(nb), 0);
	KUNIT_ASSERT_EQ(test, ktime_to_ms(nb->step_timeout), (s64)NAOBODY_STEP_TIMEOUT_MS);
	nb->step_timeout = TEST_STEP_TIMEOUT;
	clear_bit(NAOBODY_HALTED, &nb->flags);	/* ticks come from the cases */
	fake.nb = nb;
	memset(&watch, 0, sizeof(watch));
	watch.timer = &nb->timer;
	watch.lock = &nb->lock;
	test->priv = nb;
	return 0;
}

static void cycle_test_exit(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;

	naobody_cycle_stop(nb);
	flush_work(&nb->recovery_work);
	naobody_cycle_free(nb);
}

/* --- driving the chain ------------------------------------------------------ */

/* A tick, as the cycle's thread runs it once the period's timer woke it. */
static void tick(struct naobody_dev *nb)
{
	cycle_tick(nb, 1);
}

/* Complete the step in flight with status; actual is the bytes it moved. */
static void complete_step(struct naobody_dev *nb, struct urb *urb, int status, u32 actual)
{
	usb_unanchor_urb(urb);
	urb->status = status;
	urb->actual_length = actual;
	urb->complete(urb);
}

/*
 * The step in flight ran out of time: its deadline passed, its timer fired
 * and woke the cycle's thread, which runs this.
 */
static void step_expires(struct naobody_dev *nb)
{
	nb->step_deadline = ktime_sub_ms(ktime_get(), 1);
	cycle_step_expired(nb);
}

static struct urb *last_submitted(void)
{
	return fake.nsubmitted ? fake.submitted[fake.nsubmitted - 1] : NULL;
}

/* Run a chain up to step (submitted, not completed). */
static struct urb *chain_to(struct kunit *test, struct naobody_dev *nb, enum naobody_step step)
{
	tick(nb);
	KUNIT_ASSERT_PTR_EQ(test, last_submitted(), nb->out_urb);
	if (step == NAOBODY_STEP_OUT)
		return nb->out_urb;
	complete_step(nb, nb->out_urb, 0, 16);
	KUNIT_ASSERT_PTR_EQ(test, last_submitted(), nb->ack_urb);
	if (step == NAOBODY_STEP_ACK)
		return nb->ack_urb;
	complete_step(nb, nb->ack_urb, 0, NB_ACK_LEN);
	KUNIT_ASSERT_PTR_EQ(test, last_submitted(), nb->in_urb);
	if (step == NAOBODY_STEP_IN)
		return nb->in_urb;
	/* 0x15 comes only after the IN step ran out of time. */
	step_expires(nb);
	KUNIT_ASSERT_PTR_EQ(test, fake.unlinked, nb->in_urb);
	complete_step(nb, nb->in_urb, -ECONNRESET, 0);
	KUNIT_ASSERT_PTR_EQ(test, last_submitted(), nb->status_urb);
	return nb->status_urb;
}

/* --- the cases --------------------------------------------------------------- */

static void cycle_answered(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	struct urb *in = chain_to(test, nb, NAOBODY_STEP_IN);

	complete_step(nb, in, 0, 100);
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, 3);
	KUNIT_EXPECT_EQ(test, fake.answers, 1);
	KUNIT_EXPECT_EQ(test, fake.published, 1);
	KUNIT_EXPECT_EQ(test, fake.no_answers, 0);
	KUNIT_EXPECT_EQ(test, nb->step, NAOBODY_STEP_IDLE);
	KUNIT_EXPECT_EQ(test, nb->fails, 0U);
	KUNIT_EXPECT_EQ(test, nb->stats.cycles, 1ULL);
}

/* Nothing to read in 20 ms: ask 0x15, publish a record without an answer. */
static void cycle_in_timeout_asks_status(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	struct urb *status = chain_to(test, nb, NAOBODY_STEP_STATUS);

	nb->status_buf[0] = 0x12;
	nb->status_buf[1] = 0x34;
	complete_step(nb, status, 0, 2);
	KUNIT_EXPECT_EQ(test, nb->stats.timeouts, 1ULL);
	KUNIT_EXPECT_TRUE(test, nb->errors & NAOBODY_ERR_TIMEOUT);
	KUNIT_EXPECT_EQ(test, nb->chest_status, 0x1234);
	KUNIT_EXPECT_EQ(test, fake.published, 1);
	KUNIT_EXPECT_EQ(test, fake.no_answers, 1);
	KUNIT_EXPECT_EQ(test, nb->step, NAOBODY_STEP_IDLE);
}

/* The step timer fires after the completion came: it must not unlink. */
static void cycle_step_timer_after_completion(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	struct urb *in = chain_to(test, nb, NAOBODY_STEP_IN);

	complete_step(nb, in, 0, 100);
	step_expires(nb);
	KUNIT_EXPECT_NULL(test, fake.unlinked);
	KUNIT_EXPECT_EQ(test, nb->stats.timeouts, 0ULL);
	KUNIT_EXPECT_EQ(test, fake.published, 1);
}

/*
 * The timer armed for one step fires late, after that step completed and
 * the next was submitted with a fresh deadline: the new step stays.
 */
static void cycle_stale_step_timer(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;

	chain_to(test, nb, NAOBODY_STEP_IN);
	cycle_step_expired(nb);
	KUNIT_EXPECT_NULL(test, fake.unlinked);
	KUNIT_EXPECT_FALSE(test, nb->step_timed_out);
	KUNIT_EXPECT_EQ(test, nb->step, NAOBODY_STEP_IN);
	KUNIT_EXPECT_EQ(test, nb->stats.timeouts, 0ULL);
}

/*
 * Well past the spec's 20 ms, the step in flight is still the case's: the
 * real step timer would have unlinked it by now.
 */
static void cycle_step_timer_waits_for_the_case(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;

	chain_to(test, nb, NAOBODY_STEP_IN);
	msleep(5 * NAOBODY_STEP_TIMEOUT_MS);
	KUNIT_EXPECT_NULL(test, fake.unlinked);
	KUNIT_EXPECT_FALSE(test, nb->step_timed_out);
	KUNIT_EXPECT_EQ(test, nb->stats.timeouts, 0ULL);
	KUNIT_EXPECT_EQ(test, nb->step, NAOBODY_STEP_IN);
	/* ...and the deadline it was armed for is the injected one. */
	KUNIT_EXPECT_GT(test, ktime_ms_delta(nb->step_deadline, ktime_get()), 3000LL * 1000);
}

/* A tick while a chain is in flight counts an overrun and submits nothing. */
static void cycle_tick_during_chain(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;

	chain_to(test, nb, NAOBODY_STEP_ACK);
	tick(nb);
	KUNIT_EXPECT_EQ(test, nb->stats.overruns, 1ULL);
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, 2);
	KUNIT_EXPECT_EQ(test, nb->step, NAOBODY_STEP_ACK);
}

/* A completion after the stop: nothing is submitted, the chain is idle. */
static void cycle_completion_after_stop(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	struct urb *out = chain_to(test, nb, NAOBODY_STEP_OUT);
	unsigned long flags;

	spin_lock_irqsave(&nb->lock, flags);
	set_bit(NAOBODY_HALTED, &nb->flags);
	spin_unlock_irqrestore(&nb->lock, flags);
	complete_step(nb, out, 0, 16);
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, 1);
	KUNIT_EXPECT_EQ(test, nb->step, NAOBODY_STEP_IDLE);
	tick(nb);
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, 1);
}

/* Killed on the way down (the cycle halted): quietly, no record, no count. */
static void cycle_killed_while_halted(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	struct urb *in = chain_to(test, nb, NAOBODY_STEP_IN);
	int published = fake.published;
	unsigned long flags;

	spin_lock_irqsave(&nb->lock, flags);
	set_bit(NAOBODY_HALTED, &nb->flags);
	spin_unlock_irqrestore(&nb->lock, flags);
	complete_step(nb, in, -ENOENT, 0);
	KUNIT_EXPECT_EQ(test, nb->step, NAOBODY_STEP_IDLE);
	KUNIT_EXPECT_EQ(test, fake.published, published);
	KUNIT_EXPECT_EQ(test, nb->stats.io_errors, 0ULL);
}

/* The device went away between steps: the chain stops, nothing counted. */
static void cycle_submit_fails_gone(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	struct urb *out = chain_to(test, nb, NAOBODY_STEP_OUT);

	fake.submit_error = -ENODEV;
	complete_step(nb, out, 0, 16);
	KUNIT_EXPECT_EQ(test, nb->step, NAOBODY_STEP_IDLE);
	KUNIT_EXPECT_EQ(test, nb->stats.io_errors, 0ULL);
	KUNIT_EXPECT_EQ(test, fake.published, 0);
}

/* Three cycles without an answer back off: the next tick is skipped. */
static void cycle_backs_off(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	int i;

	for (i = 0; i < NAOBODY_PACE_AFTER; i++)
		complete_step(nb, chain_to(test, nb, NAOBODY_STEP_OUT), -EPROTO, 0);
	KUNIT_EXPECT_EQ(test, nb->fails, (unsigned int)NAOBODY_PACE_AFTER);
	KUNIT_EXPECT_GT(test, nb->backoff, 0U);
	tick(nb);
	KUNIT_EXPECT_EQ(test, nb->stats.skipped, 1ULL);
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, NAOBODY_PACE_AFTER);
}

/*
 * The fault policy's pace: from the third miss on, every other tick through
 * the hold (hold_cycles misses); past it, 1, 2, 4 ... ticks between tries.
 */
static void cycle_paces_through_the_hold_then_backs_off(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	unsigned int hold = naobody_hold_cycles, miss, ticks;

	for (miss = 1; miss <= hold + 3; miss++) {
		unsigned int before = miss - 1;	/* fails when this try came */
		u64 skipped = nb->stats.skipped, want;
		int submitted = fake.nsubmitted;

		for (ticks = 0; fake.nsubmitted == submitted && ticks < 100; ticks++)
			tick(nb);
		KUNIT_ASSERT_EQ(test, fake.nsubmitted, submitted + 1);
		want = before >= hold ? 1ULL << (before - hold) :
		       before >= NAOBODY_PACE_AFTER ? 1 : 0;
		KUNIT_EXPECT_EQ_MSG(test, nb->stats.skipped - skipped, want,
				    "before miss %u", miss);
		complete_step(nb, last_submitted(), -EPROTO, 0);
	}
}

/* Every step against every completion status. */
struct step_status {
	enum naobody_step step;
	int status;
};

static const struct step_status step_statuses[] = {
	{ NAOBODY_STEP_OUT, -ENOENT }, { NAOBODY_STEP_OUT, -ECONNRESET },
	{ NAOBODY_STEP_OUT, -ESHUTDOWN }, { NAOBODY_STEP_OUT, -EPROTO },
	{ NAOBODY_STEP_OUT, -EPIPE }, { NAOBODY_STEP_OUT, -ETIMEDOUT },
	{ NAOBODY_STEP_ACK, -ENOENT }, { NAOBODY_STEP_ACK, -ECONNRESET },
	{ NAOBODY_STEP_ACK, -ESHUTDOWN }, { NAOBODY_STEP_ACK, -EPROTO },
	{ NAOBODY_STEP_ACK, -EPIPE }, { NAOBODY_STEP_ACK, -ETIMEDOUT },
	{ NAOBODY_STEP_IN, -ENOENT }, { NAOBODY_STEP_IN, -ECONNRESET },
	{ NAOBODY_STEP_IN, -ESHUTDOWN }, { NAOBODY_STEP_IN, -EPROTO },
	{ NAOBODY_STEP_IN, -EPIPE }, { NAOBODY_STEP_IN, -ETIMEDOUT },
	{ NAOBODY_STEP_STATUS, -ENOENT }, { NAOBODY_STEP_STATUS, -ECONNRESET },
	{ NAOBODY_STEP_STATUS, -ESHUTDOWN }, { NAOBODY_STEP_STATUS, -EPROTO },
	{ NAOBODY_STEP_STATUS, -EPIPE }, { NAOBODY_STEP_STATUS, -ETIMEDOUT },
};

static const char *const step_names[] = {
	[NAOBODY_STEP_OUT] = "out", [NAOBODY_STEP_ACK] = "0x14",
	[NAOBODY_STEP_IN] = "in", [NAOBODY_STEP_STATUS] = "0x15",
};

static void step_status_desc(const struct step_status *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %pe", step_names[p->step],
		 ERR_PTR(p->status));
}

KUNIT_ARRAY_PARAM(step_status, step_statuses, step_status_desc);

static void cycle_step_error(struct kunit *test)
{
	const struct step_status *p = test->param_value;
	struct naobody_dev *nb = test->priv;
	struct urb *urb = chain_to(test, nb, p->step);
	int submitted = fake.nsubmitted, published = fake.published;
	bool bulk = p->step == NAOBODY_STEP_OUT || p->step == NAOBODY_STEP_IN;

	complete_step(nb, urb, p->status, 0);
	if (p->step == NAOBODY_STEP_ACK && p->status == -EPIPE) {
		/*
		 * A protocol stall of the 0x14, which the next setup clears:
		 * counted, no recovery; the frame may have been taken, so its
		 * answer is read all the same, and an answer ends it well.
		 */
		KUNIT_EXPECT_EQ(test, nb->stats.stalls, 1ULL);
		KUNIT_EXPECT_FALSE(test, test_bit(NAOBODY_RECOVERING, &nb->flags));
		KUNIT_EXPECT_FALSE(test, nb->ack_ok);
		KUNIT_ASSERT_PTR_EQ(test, last_submitted(), nb->in_urb);
		complete_step(nb, nb->in_urb, 0, 100);
		KUNIT_EXPECT_EQ(test, fake.answers, 1);
		KUNIT_EXPECT_EQ(test, nb->fails, 0U);
		flush_work(&nb->recovery_work);
		KUNIT_EXPECT_EQ(test, fake.cleared_halts, 0);
		return;
	}
	/* No step follows a failed one, and the chain is over. */
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, submitted);
	KUNIT_EXPECT_EQ(test, nb->step, NAOBODY_STEP_IDLE);
	switch (p->status) {
	case -ESHUTDOWN:
		/* The device is gone: quietly, no record, no count. */
		KUNIT_EXPECT_EQ(test, fake.published, published);
		KUNIT_EXPECT_EQ(test, nb->stats.io_errors, 0ULL);
		KUNIT_EXPECT_EQ(test, nb->stats.stalls, 0ULL);
		break;
	case -EPIPE:
		/*
		 * A stall: counted; a bulk endpoint's halt is cleared in
		 * process context, with no limp frame; the 0x15's (a
		 * protocol stall) needs nothing.
		 */
		KUNIT_EXPECT_EQ(test, fake.published, published + 1);
		KUNIT_EXPECT_EQ(test, nb->stats.stalls, 1ULL);
		KUNIT_EXPECT_TRUE(test, nb->errors & NAOBODY_ERR_STALL);
		KUNIT_EXPECT_EQ(test, test_bit(NAOBODY_RECOVERING, &nb->flags), bulk);
		flush_work(&nb->recovery_work);
		KUNIT_EXPECT_FALSE(test, test_bit(NAOBODY_RECOVERING, &nb->flags));
		KUNIT_EXPECT_EQ(test, fake.cleared_halts, bulk ? 1 : 0);
		break;
	default:
		/*
		 * An I/O error, or a kill or unlink the running cycle didn't
		 * ask for (-ENOENT, -ECONNRESET without a timeout): counted,
		 * and the chain still ends with a record.
		 */
		KUNIT_EXPECT_EQ(test, fake.published, published + 1);
		KUNIT_EXPECT_EQ(test, nb->stats.io_errors, 1ULL);
		KUNIT_EXPECT_TRUE(test, nb->errors & NAOBODY_ERR_IO);
		KUNIT_EXPECT_EQ(test, nb->fails, 1U);
		break;
	}
	/* The next tick starts a new chain, unless the stall is still being
	 * recovered (it is not, after the flush).
	 */
	tick(nb);
	KUNIT_EXPECT_PTR_EQ(test, last_submitted(), nb->out_urb);
}

/*
 * A restart's start arms the cycle timer under the lock; a quiesced
 * device's start (a disconnect came first) arms nothing.
 */
static void cycle_start_arms_the_timer_under_the_lock(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;

	set_bit(NAOBODY_HALTED, &nb->flags);
	naobody_cycle_start(nb);
	hrtimer_cancel(&nb->timer);
	KUNIT_EXPECT_EQ(test, watch.starts, 1);
	KUNIT_EXPECT_EQ(test, watch.starts_unlocked, 0);
	KUNIT_EXPECT_FALSE(test, test_bit(NAOBODY_HALTED, &nb->flags));
}

static void cycle_start_when_quiesced_arms_nothing(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;

	set_bit(NAOBODY_HALTED, &nb->flags);
	set_bit(NAOBODY_QUIESCED, &nb->flags);
	naobody_cycle_start(nb);
	KUNIT_EXPECT_EQ(test, watch.starts, 0);
	KUNIT_EXPECT_FALSE(test, hrtimer_active(&nb->timer));
	KUNIT_EXPECT_TRUE(test, test_bit(NAOBODY_HALTED, &nb->flags));
}

/*
 * Both timers expire in hard interrupt context on every kernel: on
 * PREEMPT_RT an hrtimer not marked _HARD expires in a softirq thread at
 * normal priority, below every real-time process.
 */
static void cycle_timers_are_hard(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;

	KUNIT_EXPECT_TRUE(test, nb->timer.is_hard);
	KUNIT_EXPECT_TRUE(test, nb->step_timer.is_hard);
}

/* The period's timer only counts and wakes the cycle's thread. */
static void cycle_timer_wakes_the_thread(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	unsigned long flags;
	int i;

	/* Held: the callback must not need nb->lock (it sleeps on PREEMPT_RT). */
	spin_lock_irqsave(&nb->lock, flags);
	hrtimer_set_expires(&nb->timer, ktime_sub(ktime_get(), nb->period));
	KUNIT_EXPECT_EQ(test, cycle_timer_fn(&nb->timer), HRTIMER_RESTART);
	spin_unlock_irqrestore(&nb->lock, flags);
	/* The thread takes the tick: one chain, the periods counted. */
	for (i = 0; i < 50 && !fake.nsubmitted; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, 1);
	KUNIT_EXPECT_PTR_EQ(test, last_submitted(), nb->out_urb);
	KUNIT_EXPECT_GE(test, nb->cycle, 1ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&nb->ticks), 0);
}

/* A thread that woke late takes every period it missed in one tick. */
static void cycle_late_thread_counts_missed_periods(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;

	atomic_set(&nb->ticks, 3);
	cycle_tick_work(&nb->tick_work);
	KUNIT_EXPECT_EQ(test, nb->cycle, 3ULL);
	KUNIT_EXPECT_EQ(test, nb->chain_cycle, 3ULL);
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, 1);
	/* Nothing more to take: the next run of the work does nothing. */
	cycle_tick_work(&nb->tick_work);
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, 1);
}

/*
 * A probe that fails before naobody_cycle_init() (its preferences' or its
 * ring's allocation) releases a device whose timers were never set up:
 * freeing its cycle must not touch them (hrtimer_cancel() would follow
 * their NULL base).
 */
static void cycle_free_before_init(struct kunit *test)
{
	struct naobody_dev *nb = kunit_kzalloc(test, sizeof(*nb), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, nb);
	naobody_cycle_free(nb);
	KUNIT_EXPECT_NULL(test, nb->worker);
}

/* Holds an ordered workqueue's queue until the case lets it go. */
struct blocker {
	struct work_struct work;
	struct completion go;
};

static void blocker_fn(struct work_struct *work)
{
	wait_for_completion(&container_of(work, struct blocker, work)->go);
}

/*
 * A recovery queued but cancelled by a quiesce (a suspend or a reset that
 * came first) never ran, so never cleared NAOBODY_RECOVERING: the cycle
 * after the resume must not skip every tick for it.
 */
static void cycle_quiesce_cancels_a_pending_recovery(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	struct workqueue_struct *wq = alloc_ordered_workqueue("naobody-test", 0);
	struct blocker b;

	KUNIT_ASSERT_NOT_NULL(test, wq);
	INIT_WORK_ONSTACK(&b.work, blocker_fn);
	init_completion(&b.go);
	queue_work(wq, &b.work);
	/* What stall() does, but the work waits behind the blocker. */
	set_bit(NAOBODY_RECOVERING, &nb->flags);
	queue_work(wq, &nb->recovery_work);
	naobody_quiesce(nb, "testing");
	complete(&b.go);
	destroy_workqueue(wq);
	destroy_work_on_stack(&b.work);
	KUNIT_EXPECT_EQ(test, fake.cleared_halts, 0);	/* it never ran */
	/* The resume. */
	clear_bit(NAOBODY_QUIESCED, &nb->flags);
	naobody_cycle_start(nb);
	hrtimer_cancel(&nb->timer);	/* the case ticks */
	tick(nb);
	KUNIT_EXPECT_EQ(test, nb->stats.skipped, 0ULL);
	KUNIT_EXPECT_EQ(test, fake.nsubmitted, 1);
	KUNIT_EXPECT_PTR_EQ(test, last_submitted(), nb->out_urb);
}

static struct kunit_case cycle_cases[] = {
	KUNIT_CASE(cycle_answered),
	KUNIT_CASE(cycle_in_timeout_asks_status),
	KUNIT_CASE(cycle_step_timer_after_completion),
	KUNIT_CASE(cycle_stale_step_timer),
	KUNIT_CASE(cycle_step_timer_waits_for_the_case),
	KUNIT_CASE(cycle_tick_during_chain),
	KUNIT_CASE(cycle_completion_after_stop),
	KUNIT_CASE(cycle_killed_while_halted),
	KUNIT_CASE(cycle_submit_fails_gone),
	KUNIT_CASE(cycle_backs_off),
	KUNIT_CASE(cycle_paces_through_the_hold_then_backs_off),
	KUNIT_CASE_PARAM(cycle_step_error, step_status_gen_params),
	KUNIT_CASE(cycle_start_arms_the_timer_under_the_lock),
	KUNIT_CASE(cycle_start_when_quiesced_arms_nothing),
	KUNIT_CASE(cycle_free_before_init),
	KUNIT_CASE(cycle_quiesce_cancels_a_pending_recovery),
	KUNIT_CASE(cycle_timers_are_hard),
	KUNIT_CASE(cycle_timer_wakes_the_thread),
	KUNIT_CASE(cycle_late_thread_counts_missed_periods),
	{}
};

static struct kunit_suite cycle_suite = {
	.name = "naobody-cycle",
	.init = cycle_test_init,
	.exit = cycle_test_exit,
	.test_cases = cycle_cases,
};

kunit_test_suite(cycle_suite);
