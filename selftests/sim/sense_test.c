// SPDX-License-Identifier: GPL-2.0-only
/*
 * The physical NAO's sonars, bumpers and hands' pads (sim_physics.c): the
 * model's obstacle, a post 0.20 m across, placed about the robot, and what
 * the physics says of it.
 *
 *   - Each sonar reads the distance from its site to the post's surface,
 *     within SONAR_TOL_M (the rays are 5 degrees apart: the nearest ray
 *     misses the nearest point by up to 2.5 degrees); the post ahead-left
 *     is the left sonar's, not the right's, and ahead-right the other way
 *     about; nearer than the sonars' minimum reads the minimum; parked or
 *     out of reach, both read nothing.
 *   - Walking (the daemon's motion layer) over the bare floor presses no
 *     bumper; into the post, a bumper, which is released once the robot
 *     has backed away.
 *   - An arm swung against the post presses that hand's pad on the side
 *     that met it while it rests there, and none once it is back.
 *
 * The figures are printed; Documentation/naobodyd.rst has them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

/*
 * A hang detector, not a speed check: these tests step the model in model
 * time, so their verdicts are the model's; their wall time is the machine's
 * (a niced run beside a kernel build took over the harness's default 30 s).
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 600

#include <motion/joints.h>
#include <motion/poses.h>
#include "walk_harness.h"

#define POST_R		0.10f	/* the model's obstacle, nao6.xml */
#define SONAR_X		0.0507f	/* the model's LSonar and RSonar sites, torso frame */
#define SONAR_Y		0.03785f
#define SONAR_TOL_M	0.03f

#define BUMPERS		(1U << NAOBODY_TOUCH_L_FOOT_LEFT | 1U << NAOBODY_TOUCH_L_FOOT_RIGHT | \
			 1U << NAOBODY_TOUCH_R_FOOT_LEFT | 1U << NAOBODY_TOUCH_R_FOOT_RIGHT)
#define L_HAND		(1U << NAOBODY_TOUCH_L_HAND_BACK | 1U << NAOBODY_TOUCH_L_HAND_LEFT | \
			 1U << NAOBODY_TOUCH_L_HAND_RIGHT)
#define R_HAND		(1U << NAOBODY_TOUCH_R_HAND_BACK | 1U << NAOBODY_TOUCH_R_HAND_LEFT | \
			 1U << NAOBODY_TOUCH_R_HAND_RIGHT)

/* The model standing stiff in target, driven directly (no motion layer). */
struct stand {
	struct sim_physics *p;
	float target[NAOBODY_JOINTS], stiffness[NAOBODY_JOINTS];
	struct sim_physics_sense s;
	uint32_t touched;	/* every touch bit seen since the last clear */
};

static bool stand_up(struct stand *st)
{
	memset(st, 0, sizeof(*st));
	st->p = model_standing();
	if (!st->p)
		return false;
	memcpy(st->target, motion_poses[POSE_STAND], sizeof(st->target));
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		st->stiffness[j] = 1.0f;
	return true;
}

static void stand_run(struct stand *st, float seconds)
{
	for (int i = 0; i < (int)(seconds / CYCLE_S + 0.5f); i++) {
		sim_physics_cycle(st->p, CYCLE_S, st->target, st->stiffness);
		sim_physics_sense(st->p, &st->s);
		st->touched |= st->s.touch;
	}
}

/* The surface's distance from sonar i (0 left) with the post at x, y (start frame). */
static float post_distance(struct sim_physics *p, int i, float x, float y)
{
	float t[4], sx, sy, c, s;

	sim_physics_torso(p, t);
	c = cosf(t[3]);
	s = sinf(t[3]);
	sx = t[0] + c * SONAR_X - s * (i ? -SONAR_Y : SONAR_Y);
	sy = t[1] + s * SONAR_X + c * (i ? -SONAR_Y : SONAR_Y);
	/* The start frame is where the torso was: it has barely moved. */
	return hypotf(x - sx, y - sy) - POST_R;
}

TEST(sonars_read_the_post_on_their_side)
{
	static const struct { float x, y; int sees; } at[] = {
		/* sees: 1 left, 2 right, 3 both */
		{ 0.50f, 0.30f, 1 }, { 0.90f, 0.55f, 1 }, { 1.60f, 0.90f, 1 },
		{ 0.50f, -0.30f, 2 }, { 0.90f, -0.55f, 2 }, { 1.60f, -0.90f, 2 },
		{ 0.60f, 0.0f, 3 }, { 1.20f, 0.0f, 3 }, { 2.20f, 0.0f, 3 },
	};
	struct stand st;

	ASSERT_TRUE(stand_up(&st));
	stand_run(&st, 0.5f);
	TH_LOG("parked: left %.3f m, right %.3f m", st.s.sonar[0], st.s.sonar[1]);
	EXPECT_EQ(SIM_SONAR_NOTHING, st.s.sonar[0]);
	EXPECT_EQ(SIM_SONAR_NOTHING, st.s.sonar[1]);
	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		float want[2];

		sim_physics_obstacle(st.p, true, at[k].x, at[k].y);
		stand_run(&st, 0.1f);
		for (int i = 0; i < 2; i++)
			want[i] = post_distance(st.p, i, at[k].x, at[k].y);
		TH_LOG("post at %.2f, %.2f: left %.3f m (its surface %.3f), right %.3f m (%.3f)",
		       at[k].x, at[k].y, st.s.sonar[0], want[0], st.s.sonar[1], want[1]);
		/* Braces: EXPECT_*() are two statements. */
		for (int i = 0; i < 2; i++) {
			if (at[k].sees & (1 << i)) {
				EXPECT_LE(fabsf(st.s.sonar[i] - want[i]), SONAR_TOL_M);
			} else {
				EXPECT_EQ(SIM_SONAR_NOTHING, st.s.sonar[i]);
			}
		}
	}
	/* Nearer than the minimum: the minimum. Beyond the reach: nothing. */
	sim_physics_obstacle(st.p, true, 0.22f, 0.0f);
	stand_run(&st, 0.1f);
	TH_LOG("post at 0.22, 0 (surface %.3f m): left %.3f m, right %.3f m",
	       post_distance(st.p, 0, 0.22f, 0.0f), st.s.sonar[0], st.s.sonar[1]);
	EXPECT_EQ(SIM_SONAR_MIN, st.s.sonar[0]);
	EXPECT_EQ(SIM_SONAR_MIN, st.s.sonar[1]);
	sim_physics_obstacle(st.p, true, 3.0f, 0.0f);
	stand_run(&st, 0.1f);
	TH_LOG("post at 3.00, 0: left %.3f m, right %.3f m", st.s.sonar[0], st.s.sonar[1]);
	EXPECT_EQ(SIM_SONAR_NOTHING, st.s.sonar[0]);
	EXPECT_EQ(SIM_SONAR_NOTHING, st.s.sonar[1]);
	sim_physics_obstacle(st.p, false, 0.0f, 0.0f);
	stand_run(&st, 0.1f);
	EXPECT_EQ(SIM_SONAR_NOTHING, st.s.sonar[0]);
	EXPECT_EQ(SIM_SONAR_NOTHING, st.s.sonar[1]);
	/* Standing there all along, the robot touched nothing. */
	EXPECT_EQ(0U, st.touched);
	sim_physics_destroy(st.p);
}

/* Run r for seconds; the touch bits seen, ORed. */
static uint32_t walk_run(struct robot *r, float seconds)
{
	struct sim_physics_sense s;
	uint32_t seen = 0;

	for (int i = 0; i < (int)(seconds / CYCLE_S + 0.5f); i++) {
		robot_cycle(r);
		sim_physics_sense(r->p, &s);
		seen |= s.touch;
	}
	return seen;
}

TEST(walking_into_the_post_presses_a_bumper)
{
	struct robot r;
	float at[3], first = -1.0f;
	uint32_t floor_only, seen = 0, after;

	ASSERT_TRUE(robot_up(&r));
	/* The bare floor, walking: no bumper. */
	robot_request(&r, MOTION_WALK_TO, 0.40f, 0.0f, true, 0.0f, SPEED_NORMAL);
	floor_only = walk_run(&r, 6.0f);
	robot_where(&r, at);
	TH_LOG("over the floor to %.2f, %.2f m: touch bits %#x%s", at[0], at[1], floor_only,
	       r.fell ? ", fell" : "");
	ASSERT_FALSE(r.fell);
	EXPECT_EQ(0U, floor_only & BUMPERS);

	/* The post 0.30 m ahead of the torso, and a target beyond it. */
	sim_physics_obstacle(r.p, true, at[0] + 0.30f, at[1]);
	robot_request(&r, MOTION_WALK_TO, 0.60f, 0.0f, true, 0.0f, SPEED_NORMAL);
	for (float t = 0.0f; t < 8.0f; t += CYCLE_S) {
		uint32_t b = walk_run(&r, CYCLE_S) & BUMPERS;

		if (b && first < 0.0f)
			first = t;
		seen |= b;
	}
	robot_where(&r, at);
	TH_LOG("into the post: bumper bits %#x, first after %.2f s; stopped at %.2f, %.2f m%s",
	       seen, first, at[0], at[1], r.fell ? ", fell" : "");
	EXPECT_NE(0U, seen);

	/* Backed away: released. */
	robot_request(&r, MOTION_WALK_TO, -0.25f, 0.0f, true, 0.0f, SPEED_NORMAL);
	walk_run(&r, 5.0f);
	after = walk_run(&r, 1.0f);
	robot_where(&r, at);
	TH_LOG("backed away to %.2f, %.2f m: touch bits in the last second %#x", at[0], at[1],
	       after);
	EXPECT_EQ(0U, after & BUMPERS);
	robot_down(&r);
}

TEST(an_arm_against_the_post_presses_its_hand)
{
	struct stand st;
	uint32_t resting = ~0U, back;
	int cycles = 0, pressed = 0;

	ASSERT_TRUE(stand_up(&st));
	/* The left arm straight ahead, the post beside it, out of reach. */
	st.target[NAOBODY_L_SHOULDER_PITCH] = 0.0f;
	st.target[NAOBODY_L_SHOULDER_ROLL] = 0.0f;
	st.target[NAOBODY_L_ELBOW_YAW] = 0.0f;
	st.target[NAOBODY_L_ELBOW_ROLL] = -0.0349f;
	st.target[NAOBODY_L_WRIST_YAW] = 0.0f;
	sim_physics_obstacle(st.p, true, 0.25f, 0.26f);
	stand_run(&st, 1.0f);
	st.touched = 0;
	stand_run(&st, 0.5f);
	TH_LOG("arm ahead, beside the post: touch bits %#x", st.touched);
	EXPECT_EQ(0U, st.touched);

	/* Swung out against it, and held there. */
	st.target[NAOBODY_L_SHOULDER_ROLL] = 1.0f;
	stand_run(&st, 1.0f);
	for (float t = 0.0f; t < 1.0f; t += CYCLE_S) {
		stand_run(&st, CYCLE_S);
		resting &= st.s.touch;
		pressed += (st.s.touch & L_HAND) != 0;
		cycles++;
	}
	TH_LOG("resting against the post: the left hand pressed in %d of %d cycles, "
	       "bits in all of them %#x, ever %#x", pressed, cycles, resting, st.touched);
	EXPECT_EQ(cycles, pressed);
	/* The side that swung into it: the hand's left. */
	EXPECT_EQ(1U << NAOBODY_TOUCH_L_HAND_LEFT, resting);
	EXPECT_EQ(0U, st.touched & (R_HAND | BUMPERS));

	/* Back ahead: released. */
	st.target[NAOBODY_L_SHOULDER_ROLL] = 0.0f;
	stand_run(&st, 1.0f);
	st.touched = 0;
	stand_run(&st, 0.5f);
	back = st.touched;
	TH_LOG("arm back ahead: touch bits %#x", back);
	EXPECT_EQ(0U, back);
	sim_physics_destroy(st.p);
}

TEST_HARNESS_MAIN
