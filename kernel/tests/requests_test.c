// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: naobody's request scheduler (kernel/naobody/requests.c), its chest
 * mode requests cycle by cycle. Each case runs the cycles by hand, as the
 * driver does: the OUT frame's plan and its commit (body.c), the answer the
 * board may send (answers.c), the cycle's end (body.c's record); so every
 * assertion names the very cycle a request goes out in.
 *
 * A chest mode answer names no request, so the next chest mode request is
 * held back after one that went out (answered, timed out, or given up by
 * its waiter): the cases find the cycle it goes out in, to the cycle, and
 * no hold after a request that never went out; one chest mode request per
 * frame.
 */

/*
 * cycle_test.c, in the same module, has its own naobody_requests_fail_all()
 * (cycle.c's quiesce calls it): requests.c's is renamed here, and only
 * here, naobody.h's declaration included.
 */
#define naobody_requests_fail_all	requests_test_fail_all

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/slab.h>

#include "../naobody/naobody.h"

/* The unit under test, compiled in (see Kbuild). */
#include "../naobody/requests.c"

/* main.c's parameter, from which a waiter's time limit follows. */
unsigned int naobody_period_us = 12000;

/*
 * The hold the design asks for (requests.c): cycles enough for every
 * answer the last request may still get. Worked out here, not taken from
 * NAOBODY_CHEST_MODE_HOLD, so that a change to that shows.
 */
static const unsigned int hold = NAOBODY_REQ_WAIT * NAOBODY_REQ_SENDS;

static const struct nb_msg_info chest_mode_answer = {
	.type = NB_MSG_CHEST_MODE,
	.board = NB_NO_BOARD,
	.value = 1,
};

struct rq_test {
	struct naobody_dev *nb;
	unsigned int cycle;		/* the last cycle run; 0 before the first */
	struct nb_out_plan plan;	/* its OUT frame's */
};

static int requests_test_init(struct kunit *test)
{
	struct rq_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->nb = kunit_kzalloc(test, sizeof(*t->nb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->nb);
	/* Neither NAOBODY_GONE nor NAOBODY_HALTED: requests are taken. */
	spin_lock_init(&t->nb->lock);
	INIT_LIST_HEAD(&t->nb->requests);
	test->priv = t;
	return 0;
}

/* --- driving the cycles ------------------------------------------------------ */

/*
 * One cycle, each step under nb->lock as in the driver: the OUT frame's
 * plan, and its commit once built (naobody_body_build_frame()); the answer,
 * if the board sent one (naobody_body_take_answer()); the cycle's end
 * (naobody_body_publish()). Returns whether the frame carried a chest mode
 * request.
 */
static bool run_cycle(struct rq_test *t, const struct nb_msg_info *answer)
{
	struct naobody_dev *nb = t->nb;
	unsigned long flags;

	t->cycle++;
	memset(&t->plan, 0, sizeof(t->plan));
	t->plan.requests = NB_REQ_SENSORS | NB_REQ_CHEST_LED;

	spin_lock_irqsave(&nb->lock, flags);
	naobody_requests_plan(nb, &t->plan);
	naobody_requests_commit(nb);
	spin_unlock_irqrestore(&nb->lock, flags);

	if (answer) {
		spin_lock_irqsave(&nb->lock, flags);
		naobody_requests_match(nb, answer);
		spin_unlock_irqrestore(&nb->lock, flags);
	}

	spin_lock_irqsave(&nb->lock, flags);
	naobody_requests_age(nb);
	spin_unlock_irqrestore(&nb->lock, flags);

	return t->plan.requests & NB_REQ_CHEST_MODE;
}

/*
 * Run cycles without answers until one carries a chest mode request; it is
 * the returned one, counted from the last cycle run before (1: the next).
 * 0 if none did in four holds' time.
 */
static unsigned int cycles_to_chest_mode(struct rq_test *t)
{
	unsigned int n;

	for (n = 1; n <= 4 * hold; n++)
		if (run_cycle(t, NULL))
			return n;
	return 0;
}

static struct naobody_request *queue(struct kunit *test, u8 type, u16 param)
{
	struct rq_test *t = test->priv;
	struct naobody_request *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->type = type;
	r->param = param;
	KUNIT_ASSERT_EQ(test, naobody_request_queue(t->nb, r), 0);
	KUNIT_EXPECT_EQ(test, r->status, -EINPROGRESS);
	return r;
}

static struct naobody_request *queue_chest_mode(struct kunit *test, u16 op)
{
	return queue(test, NAOBODY_RQ_CHEST_MODE, op);
}

/* --- the cases ---------------------------------------------------------------- */

/*
 * Answered in the cycle after its send: the next chest mode request, queued
 * as soon as the first's waiter lets go of chest_lock (fops.c), is held,
 * then goes out. The hold counts cycle ends from the answer on, and the
 * answer is matched before its cycle ends: that end is the hold's first, so
 * the next request waits out hold - 1 whole cycles and goes out in the
 * hold-th after the answer's.
 */
static void requests_chest_mode_hold_after_answer(struct kunit *test)
{
	struct rq_test *t = test->priv;
	struct naobody_request *first, *next;
	unsigned int answered, went_out;

	first = queue_chest_mode(test, NAOBODY_CHEST_QUERY_BOOTLOADER);
	KUNIT_EXPECT_TRUE(test, run_cycle(t, NULL));
	KUNIT_EXPECT_EQ(test, t->plan.chest_mode, (u8)NAOBODY_CHEST_QUERY_BOOTLOADER);
	KUNIT_EXPECT_FALSE(test, completion_done(&first->done));

	KUNIT_EXPECT_FALSE(test, run_cycle(t, &chest_mode_answer));
	answered = t->cycle;
	KUNIT_EXPECT_TRUE(test, completion_done(&first->done));
	KUNIT_EXPECT_EQ(test, first->status, 0);
	KUNIT_EXPECT_EQ(test, first->value, chest_mode_answer.value);
	KUNIT_EXPECT_EQ(test, t->nb->chest_requests, 0U);

	next = queue_chest_mode(test, NAOBODY_CHEST_LED_START);
	went_out = cycles_to_chest_mode(t);
	KUNIT_EXPECT_EQ_MSG(test, went_out, hold,
			    "the next chest mode request went out in cycle %u, the first's answer came in %u",
			    t->cycle, answered);
	KUNIT_EXPECT_EQ(test, t->plan.chest_mode, (u8)NAOBODY_CHEST_LED_START);
	KUNIT_EXPECT_EQ(test, next->sends_left, (u8)(NAOBODY_REQ_SENDS - 1));
	KUNIT_EXPECT_FALSE(test, completion_done(&next->done));
}

/*
 * Never answered: sent in the first cycle, again every NAOBODY_REQ_WAIT
 * cycles, NAOBODY_REQ_SENDS times, and failed with -ETIMEDOUT at the end of
 * the last send's wait. The timeout is found at that cycle's end, after the
 * hold was counted down: the next request waits out hold whole cycles and
 * goes out in the one after.
 */
static void requests_chest_mode_resent_then_times_out(struct kunit *test)
{
	struct rq_test *t = test->priv;
	struct naobody_request *r, *next;
	unsigned int sends = 0, timed_out, went_out, c;

	r = queue_chest_mode(test, NAOBODY_CHEST_QUERY_BOOTLOADER);
	for (c = 1; c <= NAOBODY_REQ_SENDS * NAOBODY_REQ_WAIT; c++) {
		bool sent = run_cycle(t, NULL);

		KUNIT_EXPECT_EQ_MSG(test, sent, (bool)((c - 1) % NAOBODY_REQ_WAIT == 0),
				    "cycle %u", c);
		if (sent)
			sends++;
		KUNIT_EXPECT_EQ_MSG(test, r->sends_left, (u8)(NAOBODY_REQ_SENDS - sends),
				    "cycle %u", c);
		if (c < NAOBODY_REQ_SENDS * NAOBODY_REQ_WAIT) {
			KUNIT_EXPECT_FALSE_MSG(test, completion_done(&r->done), "cycle %u", c);
			KUNIT_EXPECT_EQ_MSG(test, r->status, -EINPROGRESS, "cycle %u", c);
		}
	}
	timed_out = t->cycle;
	KUNIT_EXPECT_EQ(test, sends, (unsigned int)NAOBODY_REQ_SENDS);
	KUNIT_EXPECT_TRUE(test, completion_done(&r->done));
	KUNIT_EXPECT_EQ(test, r->status, -ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->nb->requests));
	KUNIT_EXPECT_EQ(test, t->nb->chest_requests, 0U);

	next = queue_chest_mode(test, NAOBODY_CHEST_LED_START);
	went_out = cycles_to_chest_mode(t);
	KUNIT_EXPECT_EQ_MSG(test, went_out, hold + 1,
			    "the next chest mode request went out in cycle %u, the first timed out in %u",
			    t->cycle, timed_out);
	KUNIT_EXPECT_EQ(test, t->plan.chest_mode, (u8)NAOBODY_CHEST_LED_START);
	KUNIT_EXPECT_FALSE(test, completion_done(&next->done));
}

/*
 * Finished before it ever went out (a quiesce failed every request): no
 * answer can come for it, and the next goes out in the next cycle.
 */
static void requests_chest_mode_failed_unsent_no_hold(struct kunit *test)
{
	struct rq_test *t = test->priv;
	struct naobody_request *r;
	unsigned long flags;

	r = queue_chest_mode(test, NAOBODY_CHEST_QUERY_BOOTLOADER);
	spin_lock_irqsave(&t->nb->lock, flags);
	naobody_requests_fail_all(t->nb, -ECANCELED);
	spin_unlock_irqrestore(&t->nb->lock, flags);
	KUNIT_EXPECT_TRUE(test, completion_done(&r->done));
	KUNIT_EXPECT_EQ(test, r->status, -ECANCELED);
	KUNIT_EXPECT_EQ(test, t->nb->chest_mode_hold, (u8)0);

	queue_chest_mode(test, NAOBODY_CHEST_LED_START);
	KUNIT_EXPECT_EQ(test, cycles_to_chest_mode(t), 1U);
	KUNIT_EXPECT_EQ(test, t->plan.chest_mode, (u8)NAOBODY_CHEST_LED_START);
}

/*
 * The waiter gave up (naobody_request_wait()'s limit, a real wait of some
 * 0.7 s: no cycle runs meanwhile) before the request went out: no hold.
 */
static void requests_chest_mode_given_up_unsent_no_hold(struct kunit *test)
{
	struct rq_test *t = test->priv;
	struct naobody_request *r;

	r = queue_chest_mode(test, NAOBODY_CHEST_QUERY_BOOTLOADER);
	KUNIT_EXPECT_EQ(test, naobody_request_wait(t->nb, r), -ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, completion_done(&r->done));
	KUNIT_EXPECT_EQ(test, r->sends_left, (u8)NAOBODY_REQ_SENDS);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->nb->requests));
	KUNIT_EXPECT_EQ(test, t->nb->chest_mode_hold, (u8)0);

	queue_chest_mode(test, NAOBODY_CHEST_LED_START);
	KUNIT_EXPECT_EQ(test, cycles_to_chest_mode(t), 1U);
}

/*
 * The waiter gave up after the request went out (the cycle stalled): its
 * answer may still come, so the hold applies, from between two cycles as
 * after a timeout.
 */
static void requests_chest_mode_given_up_sent_holds(struct kunit *test)
{
	struct rq_test *t = test->priv;
	struct naobody_request *r;
	unsigned int given_up, went_out;

	r = queue_chest_mode(test, NAOBODY_CHEST_QUERY_BOOTLOADER);
	KUNIT_EXPECT_TRUE(test, run_cycle(t, NULL));
	KUNIT_EXPECT_EQ(test, naobody_request_wait(t->nb, r), -ETIMEDOUT);
	given_up = t->cycle;
	KUNIT_EXPECT_TRUE(test, list_empty(&t->nb->requests));

	queue_chest_mode(test, NAOBODY_CHEST_LED_START);
	went_out = cycles_to_chest_mode(t);
	KUNIT_EXPECT_EQ_MSG(test, went_out, hold + 1,
			    "the next chest mode request went out in cycle %u, the first was given up after %u",
			    t->cycle, given_up);
}

/*
 * Two chest mode requests queued at once: fops.c's chest_lock keeps the
 * driver from it (one in flight at a time rests on that), but within one
 * frame the plan sees to it itself: the frame carries the oldest only.
 * chest_requests counts the chest mode and harakiri requests queued, its
 * maximum the most at once; a refused request is not counted.
 */
static void requests_one_chest_mode_per_frame(struct kunit *test)
{
	struct rq_test *t = test->priv;
	struct naobody_dev *nb = t->nb;
	struct naobody_request *first, *second, *refused;
	unsigned long flags;

	queue(test, NAOBODY_RQ_PREF, 7);
	KUNIT_EXPECT_EQ(test, nb->chest_requests, 0U);
	first = queue_chest_mode(test, NAOBODY_CHEST_QUERY_BOOTLOADER);
	second = queue_chest_mode(test, NAOBODY_CHEST_LED_START);
	KUNIT_EXPECT_EQ(test, nb->chest_requests, 2U);
	KUNIT_EXPECT_EQ(test, nb->stats.chest_requests_max, 2ULL);
	queue(test, NAOBODY_RQ_HARAKIRI, NAOBODY_HARAKIRI_POWER_OFF);
	KUNIT_EXPECT_EQ(test, nb->chest_requests, 3U);
	KUNIT_EXPECT_EQ(test, nb->stats.chest_requests_max, 3ULL);

	memset(&t->plan, 0, sizeof(t->plan));
	spin_lock_irqsave(&nb->lock, flags);
	naobody_requests_plan(nb, &t->plan);
	spin_unlock_irqrestore(&nb->lock, flags);
	KUNIT_EXPECT_EQ(test, t->plan.requests, (u32)(NB_REQ_PREF | NB_REQ_CHEST_MODE |
						      NB_REQ_HARAKIRI));
	KUNIT_EXPECT_EQ(test, t->plan.chest_mode, (u8)NAOBODY_CHEST_QUERY_BOOTLOADER);
	KUNIT_EXPECT_TRUE(test, first->planned);
	KUNIT_EXPECT_FALSE(test, second->planned);

	spin_lock_irqsave(&nb->lock, flags);
	naobody_requests_commit(nb);
	spin_unlock_irqrestore(&nb->lock, flags);
	KUNIT_EXPECT_TRUE(test, first->in_frame);
	KUNIT_EXPECT_EQ(test, first->sends_left, (u8)(NAOBODY_REQ_SENDS - 1));
	KUNIT_EXPECT_FALSE(test, second->in_frame);
	KUNIT_EXPECT_EQ(test, second->sends_left, (u8)NAOBODY_REQ_SENDS);

	/* Finished ones leave the count, not its maximum. */
	spin_lock_irqsave(&nb->lock, flags);
	naobody_requests_match(nb, &chest_mode_answer);
	spin_unlock_irqrestore(&nb->lock, flags);
	KUNIT_EXPECT_EQ(test, first->status, 0);
	KUNIT_EXPECT_EQ(test, nb->chest_requests, 2U);
	KUNIT_EXPECT_EQ(test, nb->stats.chest_requests_max, 3ULL);

	set_bit(NAOBODY_HALTED, &nb->flags);
	refused = kunit_kzalloc(test, sizeof(*refused), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, refused);
	refused->type = NAOBODY_RQ_CHEST_MODE;
	KUNIT_EXPECT_EQ(test, naobody_request_queue(nb, refused), -ECANCELED);
	KUNIT_EXPECT_TRUE(test, completion_done(&refused->done));
	KUNIT_EXPECT_EQ(test, nb->chest_requests, 2U);
	clear_bit(NAOBODY_HALTED, &nb->flags);
	set_bit(NAOBODY_GONE, &nb->flags);
	KUNIT_EXPECT_EQ(test, naobody_request_queue(nb, refused), -ENODEV);
	KUNIT_EXPECT_EQ(test, nb->chest_requests, 2U);
	KUNIT_EXPECT_EQ(test, nb->stats.chest_requests_max, 3ULL);

	spin_lock_irqsave(&nb->lock, flags);
	naobody_requests_fail_all(nb, -ECANCELED);
	spin_unlock_irqrestore(&nb->lock, flags);
	KUNIT_EXPECT_EQ(test, second->status, -ECANCELED);
	KUNIT_EXPECT_EQ(test, nb->chest_requests, 0U);
	KUNIT_EXPECT_EQ(test, nb->stats.chest_requests_max, 3ULL);
}

static struct kunit_case requests_cases[] = {
	KUNIT_CASE(requests_chest_mode_hold_after_answer),
	KUNIT_CASE(requests_chest_mode_resent_then_times_out),
	KUNIT_CASE(requests_chest_mode_failed_unsent_no_hold),
	KUNIT_CASE(requests_chest_mode_given_up_unsent_no_hold),
	KUNIT_CASE(requests_chest_mode_given_up_sent_holds),
	KUNIT_CASE(requests_one_chest_mode_per_frame),
	{}
};

static struct kunit_suite requests_suite = {
	.name = "naobody-requests",
	.init = requests_test_init,
	.test_cases = requests_cases,
};

kunit_test_suite(requests_suite);
