// SPDX-License-Identifier: GPL-2.0-only
/*
 * The get-up motions on the physical NAO: the daemon's motion layer
 * (motion.c, getup.c, the keys in poses.c) drives the MuJoCo model
 * (sim_physics.c). A push topples the standing, awake robot forwards or
 * backwards (25 to 45 N for 0.2 s, up to 20 degrees aside, from a fixed
 * seed); it takes its protective fall, lies still, and gets up by itself.
 * A trial succeeds when State's motion is back to Stand within
 * GETUP_LIMIT_S of the push and the robot then stands GETUP_HOLD_S more
 * without falling: the torso above STAND_M (0.31 standing) and tilted less
 * than 0.35 rad, by the physics, not by what the motion layer believes.
 * A get-up that leaves it down tries again (motion.c, GETUP_TRIES); those
 * tries are inside the time limit, not further falls.
 *
 * Printed: the counts each way, the median time from the push to Stand,
 * and the worst motor torque the position errors asked for (above 1: a
 * motor saturated, and gave its maximum) and gave. The figures are
 * Documentation/naobodyd.rst's ("Falls").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../userspace/naobodyd/joints.h"
#include "walk_harness.h"

#define TRIALS		20
#define PUSH_S		0.2f
#define GETUP_LIMIT_S	45.0f	/* from the push to Stand */
#define GETUP_HOLD_S	2.0f	/* standing, after */
#define STAND_M		0.28f
#define UPRIGHT_RAD	0.35f
#define SEED		20260531u

struct getup_result {
	bool down;		/* the push toppled it: the torso below FALLEN_M */
	bool up;		/* in Stand in time, and still standing after */
	float seconds;		/* from the push to Stand */
	struct sim_physics_worst worst;	/* from the get-up's start */
};

static enum fall_state fall_now(struct robot *r)
{
	struct motion_status st;

	motion_status(r->m, &st);
	return st.fall;
}

static void getup_trial(bool front, float force, float angle, struct getup_result *res)
{
	struct body_info info = {
		.simulated = true, .can_walk = true, .can_protect = true,
		.can_stand_up = true, .period_ns = CYCLE_NS,
	};
	float dir = front ? 1.0f : -1.0f, t = 0.0f, torso[4];
	struct sim_physics_sense ps;
	struct robot r;
	bool getting_up = false;

	memset(res, 0, sizeof(*res));
	if (!robot_up_as(&r, &info))
		return;
	sim_physics_push(r.p, dir * force * cosf(angle), force * sinf(angle), PUSH_S);
	for (; t < GETUP_LIMIT_S; t += CYCLE_S) {
		const char *motion;

		robot_cycle(&r);
		sim_physics_torso(r.p, torso);
		if (torso[2] < FALLEN_M)
			res->down = true;
		motion = robot_motion(&r);
		if (!getting_up && !strncmp(motion, "StandUp", 7)) {
			getting_up = true;
			sim_physics_torque_reset(r.p);
		}
		if (getting_up && !strcmp(motion, "Stand") && fall_now(&r) == FALL_UPRIGHT)
			break;
	}
	res->seconds = t;
	if (t < GETUP_LIMIT_S) {
		res->up = true;
		for (float h = 0.0f; h < GETUP_HOLD_S; h += CYCLE_S) {
			enum fall_state f;

			robot_cycle(&r);
			f = fall_now(&r);
			if (f == FALL_FALLING || f == FALL_FALLEN)
				res->up = false;
		}
		sim_physics_sense(r.p, &ps);
		if (ps.torso_height < STAND_M || hypotf(ps.angles[0], ps.angles[1]) > UPRIGHT_RAD ||
		    strcmp(robot_motion(&r), "Stand"))
			res->up = false;
	}
	sim_physics_torque_ratio(r.p, &res->worst);
	robot_down(&r);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* TRIALS pushes one way; the number up again, and the figures printed. */
static int getup_way(struct __test_metadata *_metadata, bool front)
{
	unsigned int seed = SEED + (front ? 0 : 1);
	float times[TRIALS], asked = 0.0f, given = 0.0f;
	int up = 0, asked_joint = -1;

	for (int i = 0; i < TRIALS; i++) {
		float force = 25.0f + 20.0f * rand_r(&seed) / (float)RAND_MAX;
		float angle = (40.0f * rand_r(&seed) / (float)RAND_MAX - 20.0f) * DEG;
		struct getup_result res;

		getup_trial(front, force, angle, &res);
		TH_LOG("%s, %.0f N, %+.0f degrees: %s in %.1f s; worst torque asked %.2f (%s), "
		       "given %.2f",
		       front ? "forwards" : "backwards", force, angle / DEG,
		       res.up ? "up" : res.down ? "still down" : "never fell", res.seconds,
		       res.worst.asked, res.worst.asked_joint >= 0 ?
		       joint_name[res.worst.asked_joint] : "-", res.worst.given);
		ASSERT_TRUE(res.down);
		if (res.up) {
			times[up++] = res.seconds;
			if (res.worst.asked > asked) {
				asked = res.worst.asked;
				asked_joint = res.worst.asked_joint;
			}
			given = fmaxf(given, res.worst.given);
		}
	}
	qsort(times, up, sizeof(times[0]), cmp_float);
	TH_LOG("%s: up again %d of %d; median %.1f s from the push to Stand; worst torque "
	       "asked %.2f (%s), given %.2f",
	       front ? "front" : "back", up, TRIALS, up ? times[up / 2] : 0.0f, asked,
	       asked_joint >= 0 ? joint_name[asked_joint] : "-", given);
	return up;
}

/* The bar, 19 of 20 each way; the model does 20 of 20 both ways. */
#define BAR	19

/*
 * The harness's default is 30 s a test; twenty get-ups take 10 to 20 s of
 * a loaded machine's time under ASan, and more on a busier one.
 */
FIXTURE(getups) {};
FIXTURE_SETUP(getups) {}
FIXTURE_TEARDOWN(getups) {}

TEST_F_TIMEOUT(getups, lying_on_the_front_it_gets_up, 300)
{
	EXPECT_GE(getup_way(_metadata, true), BAR);
}

TEST_F_TIMEOUT(getups, lying_on_the_back_it_gets_up, 300)
{
	EXPECT_GE(getup_way(_metadata, false), BAR);
}

TEST_HARNESS_MAIN
