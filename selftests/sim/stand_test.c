// SPDX-License-Identifier: GPL-2.0-only
/*
 * State's Stand tells the truth on the physical NAO: the motion layer
 * (libnbmotion) drives the MuJoCo model (walk_harness.h), and a client that
 * walks 0.2 s after the first State saying Stand must not fall, whatever
 * the robot came from:
 *
 *   - a get-up (10 pushes each way, getup_test's seeds): State says
 *     StandUpFront or StandUpBack until the legs stand in Stand's pose, so
 *     its first Stand finds every leg joint within 0.10 rad of it, by the
 *     body's own joint sensors;
 *   - sitting, and the squat: the keyframe back to Stand says Stand at once
 *     (primary_state Animation), and a walk sent during it waits until the
 *     body stands there (Initial or Playing), then starts. Ten walks from
 *     each, in ten directions at the three speeds.
 *
 * A fall is the torso below FALLEN_M or the motion layer's fall state.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

/* A hang detector: the model's time is counted in cycles, not the clock's. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 900

#include <motion/joints.h>
#include "walk_harness.h"

#define WALK_AFTER_S	0.2f	/* the client's delay after the first Stand State */
#define WALK_S		3.0f
#define LEG_TOLERANCE	0.10f	/* rad: motion.c's SETTLE_LEG_RAD, the documented bound */
#define KEYFRAME_LIMIT_S 15.0f	/* a hang's bound for a keyframe, in the model's time */
#define GETUPS_EACH_WAY	10
#define WALKS_EACH	10

static enum primary_state primary(struct robot *r)
{
	struct motion_status st;

	motion_status(r->m, &st);
	return st.primary;
}

/* Cycles until State's motion is `motion` (and held, if held); false at the bound. */
static bool until_motion(struct robot *r, const char *motion, bool held)
{
	for (float t = 0.0f; t < KEYFRAME_LIMIT_S; t += CYCLE_S) {
		if (!strcmp(robot_motion(r), motion) &&
		    (!held || primary(r) != PRIMARY_ANIMATION))
			return true;
		robot_cycle(r);
	}
	return false;
}

/* From pose (SitDown or Squat) back to Stand, a walk 0.2 s after State says Stand. */
static void from_pose(struct __test_metadata *_metadata, enum motion_kind kind,
		      const char *name)
{
	static const enum walk_speed speeds[] = { SPEED_SLOW, SPEED_NORMAL, SPEED_FAST };

	for (int i = 0; i < WALKS_EACH; i++) {
		float bearing = (-90.0f + 180.0f * i / (WALKS_EACH - 1)) * DEG, err;
		enum walk_speed speed = speeds[i % 3];
		struct robot r;
		int joint = 0;

		ASSERT_TRUE(robot_up(&r));
		robot_request(&r, kind, 0.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
		ASSERT_TRUE(until_motion(&r, name, true)) TH_LOG("%s never held", name);
		robot_request(&r, MOTION_STAND, 0.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
		ASSERT_TRUE(until_motion(&r, "Stand", false));
		robot_run(&r, WALK_AFTER_S);
		robot_request(&r, MOTION_WALK_TOWARD, cosf(bearing), sinf(bearing), false, 0.0f,
			      speed);
		/* The walk waits for Stand held: the legs are in its pose by then. */
		ASSERT_TRUE(until_motion(&r, "Stand", true) || !strcmp(robot_motion(&r), "Walk"));
		err = stand_leg_error(&r, &joint);
		EXPECT_LE(err, LEG_TOLERANCE)
			TH_LOG("from %s, Stand held with %s %.3f rad from its pose", name,
			       joint_name[joint], err);
		r.fell = false;
		robot_run(&r, WALK_S);
		EXPECT_FALSE(r.fell)
			TH_LOG("from %s, a walk toward %.0f degrees at speed %d sent %.1f s after "
			       "State said Stand fell", name, bearing / DEG, speed, WALK_AFTER_S);
		EXPECT_STREQ("Walk", robot_motion(&r));
		robot_down(&r);
	}
}

TEST(a_walk_just_after_stand_from_sitting)
{
	from_pose(_metadata, MOTION_SIT_DOWN, "SitDown");
}

TEST(a_walk_just_after_stand_from_the_squat)
{
	from_pose(_metadata, MOTION_SQUAT, "Squat");
}

TEST(a_walk_just_after_stand_from_a_getup)
{
	int fell = 0, late = 0;

	for (int way = 0; way < 2; way++) {
		unsigned int seed = GETUP_SEED + (unsigned int)way;
		float worst = 0.0f;

		for (int i = 0; i < GETUPS_EACH_WAY; i++) {
			struct getup_result res;
			float force, angle;

			getup_push(&seed, &force, &angle);
			getup_walk_trial(way == 0, force, angle, WALK_AFTER_S, &res);
			if (res.seconds >= GETUP_LIMIT_S) {
				late++;
				TH_LOG("%s push %d (%.0f N): not in Stand within %.0f s",
				       way ? "back" : "front", i, force, GETUP_LIMIT_S);
				continue;
			}
			worst = fmaxf(worst, res.stand_leg_error);
			EXPECT_LE(res.stand_leg_error, LEG_TOLERANCE)
				TH_LOG("%s push %d: at the first Stand a leg joint was %.3f rad "
				       "from its pose", way ? "back" : "front", i, res.stand_leg_error);
			if (res.walk_fell) {
				fell++;
				TH_LOG("%s push %d (%.0f N): the walk %.1f s after Stand fell",
				       way ? "back" : "front", i, force, WALK_AFTER_S);
			}
		}
		TH_LOG("%s: legs at most %.3f rad from Stand's pose at the first Stand",
		       way ? "back" : "front", worst);
	}
	EXPECT_EQ(0, late);
	EXPECT_EQ(0, fell);
}

TEST_HARNESS_MAIN
