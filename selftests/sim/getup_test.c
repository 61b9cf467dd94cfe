// SPDX-License-Identifier: GPL-2.0-only
/*
 * The get-up motions on the physical NAO: the daemon's motion layer
 * (motion.c, getup.c, the keys in poses.c) drives the MuJoCo model
 * (sim_physics.c). A push topples the standing, awake robot forwards or
 * backwards (25 to 45 N for 0.2 s, up to 20 degrees aside, from a fixed
 * seed); it takes its protective fall, lies still, and gets up by itself.
 * A trial (walk_harness.c's getup_trial(), which nb-walk-bench runs too)
 * succeeds when State's motion is back to Stand within GETUP_LIMIT_S of
 * the push and the robot then stands GETUP_HOLD_S more without falling:
 * the torso above GETUP_STAND_M (0.31 standing) and tilted less than
 * GETUP_UPRIGHT_RAD, by the physics, not by what the motion layer believes.
 * A get-up that leaves it down tries again (motion.c, GETUP_TRIES); those
 * tries are inside the time limit, not further falls.
 *
 * Each get-up must also stand within RISE_BAR_S of coming upright on its
 * feet (the physics' tilt): the sit and the rise, not the feet dragged in.
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

#include <motion/joints.h>
#include "walk_harness.h"

/*
 * Upright on its feet, it stands within this: the sit, the rise and SETTLE
 * (motion.c's getup_sit()). The model: 1.7 to 3.6 s. With the sit at the
 * keyframes' speed the hip rolls dragged the wide-set feet in for seconds
 * after the rise: 6.7 to 7.0 s.
 */
#define RISE_BAR_S	5.0f

/*
 * GETUP_TRIALS pushes one way; the number up again, and the figures printed.
 * *rise: the longest from upright to Stand.
 */
static int getup_way(struct __test_metadata *_metadata, bool front, float *rise)
{
	unsigned int seed = GETUP_SEED + (front ? 0 : 1);
	float times[GETUP_TRIALS], asked = 0.0f, given = 0.0f;
	int up = 0, asked_joint = -1;

	*rise = 0.0f;
	for (int i = 0; i < GETUP_TRIALS; i++) {
		struct getup_result res;
		float force, angle;

		getup_push(&seed, &force, &angle);
		getup_trial(front, force, angle, &res);
		TH_LOG("%s, %.0f N, %+.0f degrees: %s in %.1f s (upright to Stand %.1f s); worst "
		       "torque asked %.2f (%s), given %.2f",
		       front ? "forwards" : "backwards", force, angle / DEG,
		       res.up ? "up" : res.down ? "still down" : "never fell", res.seconds,
		       res.upright_s, res.worst.asked, res.worst.asked_joint >= 0 ?
		       joint_name[res.worst.asked_joint] : "-", res.worst.given);
		ASSERT_TRUE(res.down);
		if (res.up) {
			*rise = fmaxf(*rise, res.upright_s);
			times[up++] = res.seconds;
			if (res.worst.asked > asked) {
				asked = res.worst.asked;
				asked_joint = res.worst.asked_joint;
			}
			given = fmaxf(given, res.worst.given);
		}
	}
	qsort(times, up, sizeof(times[0]), float_order);
	TH_LOG("%s: up again %d of %d; median %.1f s from the push to Stand, at most %.1f s "
	       "from upright (bar %.1f s); worst torque asked %.2f (%s), given %.2f",
	       front ? "front" : "back", up, GETUP_TRIALS, up ? times[up / 2] : 0.0f, *rise,
	       RISE_BAR_S, asked, asked_joint >= 0 ? joint_name[asked_joint] : "-", given);
	return up;
}

/* The bar, 19 of 20 each way; the model does 20 of 20 both ways. */
#define BAR	19

/*
 * A hang detector, not a speed check (the verdicts are the model's): twenty
 * get-ups take 10 to 20 s of CPU under ASan, and a niced run beside a
 * kernel build took over 300 s of the clock.
 */
FIXTURE(getups) {};
FIXTURE_SETUP(getups) {}
FIXTURE_TEARDOWN(getups) {}

TEST_F_TIMEOUT(getups, lying_on_the_front_it_gets_up, 900)
{
	float rise;

	EXPECT_GE(getup_way(_metadata, true, &rise), BAR);
	EXPECT_LE(rise, RISE_BAR_S);
}

TEST_F_TIMEOUT(getups, lying_on_the_back_it_gets_up, 900)
{
	float rise;

	EXPECT_GE(getup_way(_metadata, false, &rise), BAR);
	EXPECT_LE(rise, RISE_BAR_S);
}

TEST_HARNESS_MAIN
