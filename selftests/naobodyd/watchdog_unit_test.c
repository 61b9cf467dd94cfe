// SPDX-License-Identifier: GPL-2.0-only
/*
 * The watchdog's stages (userspace/naobodyd/watchdog.c) on a made-up clock:
 * checks every 12 ms as the body thread makes them, the controller's
 * messages at chosen times, and stalls of the daemon in between.
 */
#include "kselftest_harness.h"

#include "watchdog.h"

#define MS		1000000ULL
#define CYCLE		(12 * MS)
#define T0		(1000 * MS)	/* the clock does not start at 0 */

/* Checks every cycle from *t up to end; the first change and when it came. */
static enum watchdog_change run_until(struct watchdog *w, uint64_t *t, uint64_t end)
{
	enum watchdog_change c = WD_NONE;

	while (*t + CYCLE <= end && c == WD_NONE) {
		*t += CYCLE;
		c = watchdog_check(w, *t);
	}
	return c;
}

FIXTURE(wd) {
	struct watchdog w;
	uint64_t t;
};

FIXTURE_SETUP(wd)
{
	watchdog_init(&self->w);
	self->t = T0;
	watchdog_check(&self->w, self->t);
	watchdog_heard(&self->w, self->t);
}

FIXTURE_TEARDOWN(wd)
{
}

TEST_F(wd, quiet_stands_then_sits)
{
	ASSERT_EQ(WD_STAND, run_until(&self->w, &self->t, T0 + 10000 * MS));
	/* The first cycle at or past 0.5 s. */
	EXPECT_GE(self->t - T0, WATCHDOG_STAND_NS);
	EXPECT_LT(self->t - T0, WATCHDOG_STAND_NS + CYCLE);
	ASSERT_EQ(WD_SIT, run_until(&self->w, &self->t, T0 + 10000 * MS));
	EXPECT_GE(self->t - T0, WATCHDOG_SIT_NS);
	EXPECT_LT(self->t - T0, WATCHDOG_SIT_NS + CYCLE);
	EXPECT_EQ(WD_RELEASED, watchdog_heard(&self->w, self->t));
}

/* The whole daemon stopped 2 s (the machine froze): not the controller's silence. */
TEST_F(wd, stall_is_not_silence)
{
	uint64_t resumed;

	EXPECT_EQ(WD_NONE, run_until(&self->w, &self->t, T0 + 100 * MS));
	self->t += 2000 * MS;
	resumed = self->t;
	EXPECT_EQ(WD_NONE, watchdog_check(&self->w, self->t));
	/* Heard on its beat after the resume: nothing ever happened. */
	EXPECT_EQ(WD_NONE, run_until(&self->w, &self->t, resumed + 60 * MS));
	EXPECT_EQ(WD_NONE, watchdog_heard(&self->w, self->t));
	EXPECT_EQ(WD_NONE, run_until(&self->w, &self->t, self->t + 400 * MS));
}

/*
 * Quiet after the stall too: it stands once the silence it listened to, plus
 * up to WATCHDOG_STALL_NS of the stall, reaches 0.5 s.
 */
TEST_F(wd, silence_after_a_stall_still_counts)
{
	uint64_t before = 100 * MS, stall = 2000 * MS, listened;

	EXPECT_EQ(WD_NONE, run_until(&self->w, &self->t, T0 + before));
	self->t += stall;
	EXPECT_EQ(WD_NONE, watchdog_check(&self->w, self->t));
	ASSERT_EQ(WD_STAND, run_until(&self->w, &self->t, self->t + 5000 * MS));
	/* Silence counted: before the stall, 48 ms of it, and after it. */
	listened = self->t - T0 - stall + WATCHDOG_STALL_NS;
	EXPECT_GE(listened, WATCHDOG_STAND_NS);
	EXPECT_LT(listened, WATCHDOG_STAND_NS + CYCLE);
	ASSERT_EQ(WD_SIT, run_until(&self->w, &self->t, self->t + 5000 * MS));
}

/*
 * Only the body thread stalled while the network thread heard the
 * controller (or heard it just before the freeze, and the body thread
 * took it after): the stand comes no sooner than 0.5 s of real silence
 * and no later than 0.5 s after the resume.
 */
TEST_F(wd, heard_inside_a_stall)
{
	uint64_t heard, resumed;

	EXPECT_EQ(WD_NONE, run_until(&self->w, &self->t, T0 + 100 * MS));
	heard = self->t + 300 * MS;
	resumed = self->t + 600 * MS;
	self->t = resumed;
	watchdog_heard(&self->w, heard);
	EXPECT_EQ(WD_NONE, watchdog_check(&self->w, self->t));
	ASSERT_EQ(WD_STAND, run_until(&self->w, &self->t, self->t + 5000 * MS));
	EXPECT_GE(self->t - heard, WATCHDOG_STAND_NS);
	EXPECT_GE(self->t - resumed, WATCHDOG_STAND_NS - WATCHDOG_STALL_NS);
	EXPECT_LT(self->t - resumed, WATCHDOG_STAND_NS + CYCLE);
}

/* Late cycles below the threshold are jitter: all of their time is silence. */
TEST_F(wd, late_cycles_are_not_stalls)
{
	enum watchdog_change c = WD_NONE;

	while (c == WD_NONE) {
		self->t += WATCHDOG_STALL_NS;
		c = watchdog_check(&self->w, self->t);
	}
	EXPECT_EQ(WD_STAND, c);
	EXPECT_GE(self->t - T0, WATCHDOG_STAND_NS);
	EXPECT_LT(self->t - T0, WATCHDOG_STAND_NS + WATCHDOG_STALL_NS);
}

/* Before any controller is heard, nothing; after, its silence counts from then. */
TEST(unarmed_is_quiet)
{
	struct watchdog w;
	uint64_t t = T0, heard;

	watchdog_init(&w);
	EXPECT_EQ(WD_NONE, run_until(&w, &t, T0 + 10000 * MS));
	heard = t;
	EXPECT_EQ(WD_NONE, watchdog_heard(&w, heard));
	ASSERT_EQ(WD_STAND, run_until(&w, &t, t + 5000 * MS));
	EXPECT_GE(t - heard, WATCHDOG_STAND_NS);
	EXPECT_LT(t - heard, WATCHDOG_STAND_NS + CYCLE);
}

TEST_HARNESS_MAIN
