// SPDX-License-Identifier: GPL-2.0-only
/*
 * The motion layer (libnbmotion) walking a body that gives nothing but
 * joints and sensors, as the real one does: a test double whose joints read
 * what they were last told, whose inertial unit reads level and still, and
 * whose feet carry its weight. Nothing tells it where it is or how it
 * walks, so the steps and the odometry must come from the motion layer:
 * naobodyd --robot-motions once stood still here, saying Stand, because the
 * walk waited for odometry only the simulated body gave (issue 29).
 */
#include <math.h>
#include <string.h>

#include "kselftest_harness.h"

#include <motion/motion.h>
#include <motion/poses.h>

#include "body_double.h"

#define CYCLE_NS	12000000ULL
#define KNEE		NAOBODY_L_KNEE_PITCH

struct double_body {
	struct motion *m;
	struct nb_sensors s;
	struct nb_actuators out;
	uint64_t t;
	float knee_min, knee_max;	/* the left knee's targets since the last reset */
};

static void body_start(struct double_body *b, bool can_walk)
{
	struct motion_body caps = { .can_walk = can_walk };

	memset(b, 0, sizeof(*b));
	b->m = motion_create(&caps, NULL);
	body_double_sensors(&b->s, POSE_STAND);
	b->t = 1000 * CYCLE_NS;
}

/* One cycle: the motion layer on the body's sensors; the joints obey. */
static void body_cycle(struct double_body *b)
{
	struct motion_input in = { .time_ns = b->t, .s = &b->s };

	motion_update(b->m, &in, &b->out);
	memcpy(b->s.position, b->out.position, sizeof(b->s.position));
	b->knee_min = fminf(b->knee_min, b->out.position[KNEE]);
	b->knee_max = fmaxf(b->knee_max, b->out.position[KNEE]);
	b->t += CYCLE_NS;
}

/* Cycles until State's motion is want, at most limit; how many it took, or -1. */
static int run_until(struct double_body *b, const char *want, int limit)
{
	struct motion_status st;

	for (int i = 0; i < limit; i++) {
		body_cycle(b);
		motion_status(b->m, &st);
		if (!strcmp(st.motion, want))
			return i;
	}
	return -1;
}

/* Wake, and cycles until it holds Stand (State's Initial); false if it never does. */
static bool wake(struct double_body *b)
{
	struct motion_status st;

	motion_power(b->m, POWER_WAKE, b->t);
	for (int i = 0; i < 500; i++) {
		body_cycle(b);
		motion_status(b->m, &st);
		if (st.primary == PRIMARY_INITIAL && !strcmp(st.motion, "Stand"))
			return true;
	}
	return false;
}

static void knee_reset(struct double_body *b)
{
	b->knee_min = b->knee_max = b->out.position[KNEE];
}

static void request(struct double_body *b, enum motion_kind kind, float x, float y)
{
	struct motion_req q = {
		.kind = kind, .x = x, .y = y, .speed = SPEED_NORMAL, .head = HEAD_CENTER,
	};

	motion_request(b->m, &q, b->t);
}

TEST(walk_to_steps_and_counts_on_joints_and_sensors_alone)
{
	struct double_body b;
	struct motion_status st;

	body_start(&b, true);
	ASSERT_TRUE(wake(&b));
	/* Standing still, the odometry stays at the start. */
	for (int i = 0; i < 50; i++)
		body_cycle(&b);
	motion_status(b.m, &st);
	ASSERT_TRUE(st.has_odometry);
	EXPECT_EQ(0.0f, st.odometry[0]);
	EXPECT_EQ(0.0f, st.odometry[1]);

	request(&b, MOTION_WALK_TO, 0.5f, 0.0f);
	ASSERT_LE(0, run_until(&b, "Walk", 10));
	knee_reset(&b);
	/* 0.5 m at Normal's 0.2 m/s: about 3 s; a minute is a hang. */
	ASSERT_LE(0, run_until(&b, "Stand", 60 * 1000 / 12));
	motion_status(b.m, &st);
	TH_LOG("arrived by the odometry at %.3f, %.3f, %.3f; knee %.3f..%.3f rad",
	       st.odometry[0], st.odometry[1], st.odometry[2], b.knee_min, b.knee_max);
	/* WalkTo's own bar: within 2 cm (motion.c, WALK_DONE_M). */
	EXPECT_GT(0.02f, fabsf(st.odometry[0] - 0.5f));
	EXPECT_GT(0.02f, fabsf(st.odometry[1]));
	/* The gyroscope read no turn, so the odometry has none. */
	EXPECT_EQ(0.0f, st.odometry[2]);
	/* The legs stepped: the knee bent and straightened at the board. */
	EXPECT_LT(0.05f, b.knee_max - b.knee_min);
	motion_destroy(b.m);
}

TEST(walk_toward_goes_until_stand)
{
	struct double_body b;
	struct motion_status st;
	float x;

	body_start(&b, true);
	ASSERT_TRUE(wake(&b));
	request(&b, MOTION_WALK_TOWARD, 1.0f, 0.0f);
	ASSERT_LE(0, run_until(&b, "Walk", 10));
	for (int i = 0; i < 1000 / 12; i++)
		body_cycle(&b);
	motion_status(b.m, &st);
	EXPECT_STREQ("Walk", st.motion);
	EXPECT_LT(0.1f, st.odometry[0]);
	request(&b, MOTION_STAND, 0.0f, 0.0f);
	/* The feet close within a step or two. */
	ASSERT_LE(0, run_until(&b, "Stand", 100));
	motion_status(b.m, &st);
	x = st.odometry[0];
	for (int i = 0; i < 50; i++)
		body_cycle(&b);
	motion_status(b.m, &st);
	EXPECT_EQ(x, st.odometry[0]);
	motion_destroy(b.m);
}

TEST(a_body_that_may_not_walk_stands_and_says_so)
{
	struct double_body b;
	struct motion_status st;

	body_start(&b, false);
	ASSERT_TRUE(wake(&b));
	knee_reset(&b);
	request(&b, MOTION_WALK_TO, 0.5f, 0.0f);
	ASSERT_LE(0, run_until(&b, "WalkDisabled", 10));
	for (int i = 0; i < 100; i++)
		body_cycle(&b);
	motion_status(b.m, &st);
	EXPECT_STREQ("WalkDisabled", st.motion);
	EXPECT_FALSE(st.has_odometry);
	EXPECT_GT(1e-6f, b.knee_max - b.knee_min);
	EXPECT_EQ(MREF_WALK_TO, motion_take_refusals(b.m));
	motion_destroy(b.m);
}

TEST_HARNESS_MAIN
