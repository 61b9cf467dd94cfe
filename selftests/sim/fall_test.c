// SPDX-License-Identifier: GPL-2.0-only
/*
 * The protective fall on the physical NAO: the daemon's motion layer
 * (motion.c) drives the MuJoCo model (sim_physics.c), a push topples the
 * standing robot forwards, backwards or sideways, and the physics says how
 * the head met the floor. Each fall runs twice, on a body that may take
 * the protective pose (the simulated body's) and on one that may not (the
 * real body's without a verdict: the joints just go soft), and the pose
 * must spare the head:
 *
 *   - forwards and backwards, the head touches the floor more slowly than
 *     the soft fall's, by at least PROTECT_GAIN, or not at all;
 *   - no fall is worse for the head with the pose than without;
 *   - the pose is reached (the arms within 0.35 rad) before the head
 *     touches, and the robot ends lying still and limp, as a soft fall
 *     does.
 *
 * And a push that topples nothing slides the feet only where the contact's
 * friction is low (sim_physics_friction(), which make bench varies).
 *
 * The figures are printed; Documentation/naobodyd.rst ("Falls") has them.
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

#define PUSH_S		0.2f
#define FALL_WATCH_S	4.0f
#define PROTECT_GAIN	0.7f	/* the pose's head speeds at most this of the soft falls' */
/*
 * m/s: one protective fall's head may touch this much faster than the soft
 * fall's from the same push. Sideways, both are gentle (under 0.8 m/s: the
 * shoulder lands first) and which touches faster varies with the push.
 */
#define HEAD_MARGIN	0.2f
#define POSE_REACHED	0.35f	/* rad, every arm joint */

struct fall_result {
	struct sim_physics_impact impact;
	float reached_at;	/* s after the push, the arms in the pose; -1 never */
	float head_at;		/* s after the push, the head touched; -1 never */
	float down_at;		/* s after the push, the torso below FALLEN_M; -1 never */
	bool limp;		/* lying still and limp at the end */
	char motion[32];	/* State's motion at the end */
};

static const char *const way_name[] = {
	[FALL_WAY_FRONT] = "forwards", [FALL_WAY_BACK] = "backwards",
	[FALL_WAY_SIDE] = "sideways",
};

static float arm_error(const struct robot *r, enum fall_way way)
{
	static const int arms[] = {
		NAOBODY_L_SHOULDER_PITCH, NAOBODY_L_SHOULDER_ROLL, NAOBODY_L_ELBOW_YAW,
		NAOBODY_L_ELBOW_ROLL, NAOBODY_R_SHOULDER_PITCH, NAOBODY_R_SHOULDER_ROLL,
		NAOBODY_R_ELBOW_YAW, NAOBODY_R_ELBOW_ROLL,
	};
	float worst = 0.0f;

	for (size_t i = 0; i < sizeof(arms) / sizeof(arms[0]); i++)
		worst = fmaxf(worst, fabsf(r->f.s.position[arms[i]] -
					   joint_clamp(arms[i], protect_poses[way][arms[i]])));
	return worst;
}

static bool fall_trial(enum fall_way way, float force, bool protect, struct fall_result *res)
{
	struct motion_body body = {
		.can_walk = true, .can_protect = protect,
	};
	static const float push[FALL_WAYS][2] = {
		[FALL_WAY_FRONT] = { 1.0f, 0.0f }, [FALL_WAY_BACK] = { -1.0f, 0.0f },
		[FALL_WAY_SIDE] = { 0.0f, 1.0f },
	};
	struct robot r;
	float t = 0.0f, torso[4];

	memset(res, 0, sizeof(*res));
	res->reached_at = res->down_at = res->head_at = -1.0f;
	if (!robot_up_as(&r, &body))
		return false;
	sim_physics_impact_reset(r.p);
	sim_physics_push(r.p, force * push[way][0], force * push[way][1], PUSH_S);
	for (; t < FALL_WATCH_S; t += CYCLE_S) {
		robot_cycle(&r);
		sim_physics_torso(r.p, torso);
		if (res->down_at < 0.0f && torso[2] < FALLEN_M)
			res->down_at = t;
		sim_physics_impact(r.p, &res->impact);
		if (res->head_at < 0.0f && res->impact.head_touched)
			res->head_at = t;
		if (protect && res->reached_at < 0.0f && arm_error(&r, way) < POSE_REACHED &&
		    !strcmp(robot_motion(&r), "FallProtection"))
			res->reached_at = t;
	}
	res->limp = !strcmp(robot_motion(&r), "Unstiff");
	snprintf(res->motion, sizeof(res->motion), "%s", robot_motion(&r));
	robot_down(&r);
	return true;
}

/*
 * Each push in turn, a soft fall and a protective one: the pose is taken
 * before the head touches, and the head touches no faster (within a
 * margin of the model's chaos); over the pushes, the protective falls'
 * head speeds add up to at most gain times the soft falls'. arms_first:
 * an arm meets the floor before the head does.
 */
static void check_way(struct __test_metadata *_metadata, enum fall_way way, float gain,
		      bool arms_first)
{
	static const float forces[] = { 25.0f, 30.0f, 40.0f };
	float soft_sum = 0.0f, pose_sum = 0.0f;

	for (size_t i = 0; i < sizeof(forces) / sizeof(forces[0]); i++) {
		struct fall_result soft, pose;

		ASSERT_TRUE(fall_trial(way, forces[i], false, &soft));
		ASSERT_TRUE(fall_trial(way, forces[i], true, &pose));
		TH_LOG("%s, %.0f N: soft fall: head %s at %.2f m/s at %.2f s; protective: head %s "
		       "at %.2f m/s at %.2f s%s, arms in the pose at %.2f s; then %s and %s",
		       way_name[way], forces[i],
		       soft.impact.head_touched ? "touched" : "never touched",
		       soft.impact.head_speed, soft.head_at,
		       pose.impact.head_touched ? "touched" : "never touched",
		       pose.impact.head_speed, pose.head_at,
		       pose.impact.arm_before_head ? " after an arm" : "", pose.reached_at,
		       soft.motion, pose.motion);
		/* The push topples it both times: the comparison is of two falls. */
		ASSERT_GT(soft.down_at, 0.0f);
		ASSERT_GT(pose.down_at, 0.0f);
		if (pose.impact.head_touched && arms_first) {
			/* Reaching out, the arms meet the floor before their pose. */
			EXPECT_TRUE(pose.impact.arm_before_head);
		} else if (pose.impact.head_touched) {
			EXPECT_GE(pose.reached_at, 0.0f);
			EXPECT_LT(pose.reached_at, pose.head_at);
		}
		EXPECT_LE(pose.impact.head_speed, soft.impact.head_speed + HEAD_MARGIN);
		EXPECT_TRUE(pose.limp);
		EXPECT_TRUE(soft.limp);
		soft_sum += soft.impact.head_speed;
		pose_sum += pose.impact.head_speed;
	}
	TH_LOG("%s: the head's speeds add up to %.2f m/s soft, %.2f protective (%.2f)",
	       way_name[way], soft_sum, pose_sum, pose_sum / soft_sum);
	EXPECT_LE(pose_sum, gain * soft_sum);
}

TEST(falling_forwards_the_arms_spare_the_head)
{
	check_way(_metadata, FALL_WAY_FRONT, PROTECT_GAIN, true);
}

TEST(falling_backwards_the_crouch_spares_the_head)
{
	check_way(_metadata, FALL_WAY_BACK, PROTECT_GAIN, false);
}

TEST(falling_sideways_is_no_worse_for_the_head)
{
	check_way(_metadata, FALL_WAY_SIDE, 1.0f, false);
}

/*
 * A robot being put to rest (here Rest's sit-down) that falls is not
 * stiffened again by the protective pose: its stiffness only goes down.
 */
TEST(falling_while_put_to_rest_only_softens)
{
	struct robot r;
	float last[NAOBODY_JOINTS] = { 0.0f }, rose = 0.0f;
	bool fell = false;

	ASSERT_TRUE(robot_up(&r));
	motion_power(r.m, POWER_REST, r.f.time_ns);
	robot_run(&r, 0.1f);
	sim_physics_push(r.p, -40.0f, 0.0f, PUSH_S);
	for (float t = 0.0f; t < FALL_WATCH_S; t += CYCLE_S) {
		robot_cycle(&r);
		for (int j = 0; fell && j < NAOBODY_JOINTS; j++)
			rose = fmaxf(rose, r.stiffness[j] - last[j]);
		if (!strcmp(robot_motion(&r), "FallProtection"))
			fell = true;
		memcpy(last, r.stiffness, sizeof(last));
	}
	TH_LOG("put to rest, pushed: %s; a joint's stiffness rose by at most %.2f in a cycle after",
	       fell ? "fell" : "did not fall", rose);
	ASSERT_TRUE(fell);
	EXPECT_LE(rose, 0.0f);
	EXPECT_STREQ("Unstiff", robot_motion(&r));
	robot_down(&r);
}

/*
 * The contact's friction is what the feet hold with (sim_physics_friction(),
 * the bench's runs at other figures): standing in Stand, a steady 5 N
 * forward on the torso for 0.5 s, less than topples it, moves neither foot
 * at the model's friction (1.0), and slides it at 0.05, where the floor
 * holds at most 0.05 of the weight (about 2.7 N): the foot that moved
 * furthest, each time.
 */
static float push_slides(float friction)
{
	struct robot r;
	float before[2][3], after[2][3], moved = 0.0f;

	harness_friction = friction;
	if (!robot_up(&r)) {
		harness_friction = 0.0f;
		return -1.0f;
	}
	harness_friction = 0.0f;
	robot_run(&r, 0.2f);
	for (int f = 0; f < 2; f++)
		sim_physics_sole_world(r.p, f, before[f]);
	sim_physics_push(r.p, 5.0f, 0.0f, 0.5f);
	robot_run(&r, 1.0f);
	for (int f = 0; f < 2; f++) {
		sim_physics_sole_world(r.p, f, after[f]);
		moved = fmaxf(moved, hypotf(after[f][0] - before[f][0],
					    after[f][1] - before[f][1]));
	}
	if (r.fell)
		moved = -1.0f;
	robot_down(&r);
	return moved;
}

TEST(the_feet_hold_by_the_contacts_friction)
{
	float held = push_slides(0.0f), slid = push_slides(0.05f);

	TH_LOG("5 N for 0.5 s: a foot moved %.1f mm at friction 1.0, %.1f mm at 0.05",
	       held * 1e3f, slid * 1e3f);
	ASSERT_GE(held, 0.0f);	/* stood (a negative: it fell) */
	ASSERT_GE(slid, 0.0f);
	EXPECT_LT(held, 0.002f);
	EXPECT_GT(slid, 0.02f);
}

TEST_HARNESS_MAIN
