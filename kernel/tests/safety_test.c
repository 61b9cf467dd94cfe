// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: naobody's safety policy (kernel/naobody/safety.c), applied frame by
 * frame at times the cases choose: naobody_safety_apply() takes the frame's
 * time, so a ramp's course is checked without waiting for it. The latch
 * (latch.c) is compiled in too; the events the policy raises are counted by
 * a fake.
 */
#include <kunit/test.h>
#include <linux/slab.h>

/* The units under test, compiled in (see Kbuild). */
#include "../naobody/safety.c"
#include "../naobody/latch.c"

/* main.c's parameters, which the policy reads. */
unsigned int naobody_controller_timeout_ms = 100;
unsigned int naobody_ramp_ms = 1000;
bool naobody_start_latched;

static int events;

void naobody_queue_event(struct naobody_dev *nb, u32 event, u32 a, u32 b)
{
	events++;
}

/* boards.c's, which a stop and a ramp's start call. */
void naobody_boards_limp_unaccepted(struct naobody_dev *nb)
{
}

#define STIFF	800

static int safety_test_init(struct kunit *test)
{
	struct naobody_dev *nb = kunit_kzalloc(test, sizeof(*nb), GFP_KERNEL);
	unsigned int j;

	KUNIT_ASSERT_NOT_NULL(test, nb);
	spin_lock_init(&nb->lock);
	for (j = 0; j < NAOBODY_JOINTS; j++)
		nb->target.stiffness[j] = STIFF;
	nb->controller = nb;	/* any file: one holds the role */
	nb->last_command = ktime_get();
	naobody_controller_timeout_ms = 100;
	naobody_ramp_ms = 1000;
	events = 0;
	test->priv = nb;
	return 0;
}

/* The stiffness of joint 0 in the frame built at start + ms. */
static u16 frame_at(struct naobody_dev *nb, s64 ms)
{
	unsigned long flags;
	u16 v;

	spin_lock_irqsave(&nb->lock, flags);
	naobody_safety_apply(nb, ktime_add_ms(nb->ramp_start, ms));
	v = nb->sent.stiffness[0];
	spin_unlock_irqrestore(&nb->lock, flags);
	return v;
}

static void lose_controller(struct naobody_dev *nb)
{
	unsigned long flags;

	spin_lock_irqsave(&nb->lock, flags);
	naobody_safety_controller_lost(nb);
	spin_unlock_irqrestore(&nb->lock, flags);
}

/* The ramp falls linearly over ramp_ms, from the controller's stiffness. */
static void safety_ramp_falls_linearly(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;

	lose_controller(nb);
	KUNIT_EXPECT_TRUE(test, nb->ramping);
	KUNIT_EXPECT_EQ(test, frame_at(nb, 0), (u16)STIFF);
	KUNIT_EXPECT_EQ(test, frame_at(nb, 250), (u16)(STIFF * 3 / 4));
	KUNIT_EXPECT_EQ(test, frame_at(nb, 500), (u16)(STIFF / 2));
	KUNIT_EXPECT_EQ(test, frame_at(nb, 1000), (u16)0);
	KUNIT_EXPECT_FALSE(test, nb->ramping);
}

/*
 * root lengthens ramp_ms halfway through a ramp: the ramp goes on as it
 * started, its stiffness never rises again (with the new length it would
 * jump from 400 back to 760).
 */
static void safety_ramp_keeps_falling_when_ramp_ms_grows(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	s64 ms, first_rise = -1;
	u16 last, now;
	int rises = 0;

	lose_controller(nb);
	last = frame_at(nb, 500);
	KUNIT_EXPECT_EQ(test, last, (u16)(STIFF / 2));
	WRITE_ONCE(naobody_ramp_ms, 10000);
	for (ms = 500; ms <= 1000; ms += 12) {
		now = frame_at(nb, ms);
		if (now > last && !rises++)
			first_rise = ms;
		last = now;
	}
	/* One line however many frames rose: a KUnit case's log is short. */
	KUNIT_EXPECT_EQ_MSG(test, rises, 0, "the stiffness rose in %d frames, first at %lld ms",
			    rises, first_rise);
	KUNIT_EXPECT_EQ(test, frame_at(nb, 1000), (u16)0);
	/* The next ramp takes the new length. */
	KUNIT_EXPECT_FALSE(test, nb->ramping);
}

/* ...and one shortened to 0 neither divides by it nor goes back up. */
static void safety_ramp_keeps_its_course_when_ramp_ms_drops(struct kunit *test)
{
	struct naobody_dev *nb = test->priv;
	u16 last;

	lose_controller(nb);
	last = frame_at(nb, 500);
	WRITE_ONCE(naobody_ramp_ms, 0);
	KUNIT_EXPECT_LE(test, frame_at(nb, 600), last);
	KUNIT_EXPECT_EQ(test, frame_at(nb, 1000), (u16)0);
}

static struct kunit_case safety_cases[] = {
	KUNIT_CASE(safety_ramp_falls_linearly),
	KUNIT_CASE(safety_ramp_keeps_falling_when_ramp_ms_grows),
	KUNIT_CASE(safety_ramp_keeps_its_course_when_ramp_ms_drops),
	{}
};

static struct kunit_suite safety_suite = {
	.name = "naobody-safety",
	.init = safety_test_init,
	.test_cases = safety_cases,
};

kunit_test_suite(safety_suite);
