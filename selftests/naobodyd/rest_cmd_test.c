// SPDX-License-Identifier: GPL-2.0-only
/*
 * The REST API's mailbox to the body thread (userspace/naobodyd/rest/rest_cmd.h):
 * an order is answered with its own result, in order; the body side never
 * sees an order twice or one that was not posted; an order the body thread
 * did not take times out, and the next is refused (busy) rather than
 * written over the unread slot; once the body thread answers, orders pass
 * again. A thread stands in for the body thread.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "kselftest_harness.h"

#include "rest/rest_cmd.h"

#define MS	1000000ULL

struct body {
	struct rest_mailbox *m;
	atomic_bool quit;
	int taken;
	uint8_t last_red;
};

/* The body thread's side: every 1 ms, as core_commands() once a cycle. */
static void *body_thread(void *arg)
{
	struct timespec nap = { .tv_nsec = 1000000 };
	struct body *b = arg;
	struct rest_cmd c;
	uint64_t seq;

	while (!atomic_load(&b->quit)) {
		if (rest_cmd_take(b->m, &c, &seq)) {
			b->taken++;
			b->last_red = c.leds.chest[0];
			/* Odd reds are "controlled": the answer follows the order. */
			rest_cmd_answer(b->m, seq, c.leds.chest[0] & 1 ? RC_CONTROLLED : RC_DONE);
		}
		nanosleep(&nap, NULL);
	}
	return NULL;
}

TEST(nothing_posted_nothing_taken)
{
	struct rest_mailbox m;
	struct rest_cmd c;
	uint64_t seq;

	rest_mailbox_init(&m);
	ASSERT_FALSE(rest_cmd_take(&m, &c, &seq));
	rest_mailbox_uninit(&m);
}

TEST(each_order_gets_its_answer)
{
	struct rest_mailbox m;
	struct body b = { .m = &m };
	struct rest_cmd c = { 0 };
	pthread_t t;

	rest_mailbox_init(&m);
	atomic_init(&b.quit, false);
	ASSERT_EQ(0, pthread_create(&t, NULL, body_thread, &b));
	for (int i = 0; i < 50; i++) {
		c.leds.has_chest = true;
		c.leds.chest[0] = (uint8_t)i;
		EXPECT_EQ(i & 1 ? RC_CONTROLLED : RC_DONE, rest_cmd_post(&m, &c, 1000 * MS));
		EXPECT_EQ(i, b.last_red);
	}
	atomic_store(&b.quit, true);
	pthread_join(t, NULL);
	EXPECT_EQ(50, b.taken);		/* each once */
	rest_mailbox_uninit(&m);
}

TEST(untaken_order_times_out_then_busy)
{
	struct rest_mailbox m;
	struct rest_cmd c = { 0 }, got;
	uint64_t seq;

	rest_mailbox_init(&m);
	c.leds.chest[0] = 7;
	EXPECT_EQ(RC_TIMEOUT, rest_cmd_post(&m, &c, 20 * MS));
	c.leds.chest[0] = 9;
	/* The slot still holds 7, unread: 9 must not overwrite it. */
	EXPECT_EQ(RC_BUSY, rest_cmd_post(&m, &c, 20 * MS));
	ASSERT_TRUE(rest_cmd_take(&m, &got, &seq));
	EXPECT_EQ(7, got.leds.chest[0]);
	rest_cmd_answer(&m, seq, RC_DONE);
	EXPECT_FALSE(rest_cmd_take(&m, &got, &seq));	/* answered: gone */
	/* Passes again (times out here: nobody takes it, but it is posted). */
	EXPECT_EQ(RC_TIMEOUT, rest_cmd_post(&m, &c, 1 * MS));
	ASSERT_TRUE(rest_cmd_take(&m, &got, &seq));
	EXPECT_EQ(9, got.leds.chest[0]);
	rest_mailbox_uninit(&m);
}

TEST_HARNESS_MAIN
