// SPDX-License-Identifier: GPL-2.0-only
/*
 * The walking engine on the physical NAO: the daemon's motion layer
 * (motion.c, with walk.c and leg_kinematics.c) drives the MuJoCo model
 * (sim_physics.c) cycle by cycle, faster than real time, and the checks
 * are on the physics' own torso, not on what the engine believes:
 *
 *   - the legs' kinematics agree with the model's, and invert;
 *   - WalkToward (1, 0) for 10 s keeps its heading within 10 degrees;
 *     (0.5, 0.5) draws a circle; Stand ends the walk within a step;
 *   - the swing foot stays off the floor until it lands, at Normal and Fast;
 *   - 100 WalkTo targets at random within 2 m and +-180 degrees (a fixed
 *     seed): at least 99 arrive within 10 cm and 10 degrees (the
 *     issue's bar), none falls; the count and median time at Normal printed;
 *   - a client that goes quiet mid-walk (the watchdog's stages, at the
 *     watchdog's times): standing still within 0.5 s and a step, sitting
 *     within 3 s and the sit-down, not falling.
 *
 * A fall is the torso below FALLEN_M or the motion layer's fall state.
 */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
#include <motion/leg_kinematics.h>
#include <motion/poses.h>
#include "walk_harness.h"
#include "watchdog.h"

#define STEP_S		walk_step_seconds()

TEST(leg_forward_is_the_models)
{
	/* LHipYawPitch, the left leg's five, the right's five. */
	static const float legs[][LEG_JOINTS] = {
		{ 0.0f, 0.0f, -0.42f, 0.92f, -0.50f, 0.0f,
		  0.0f, -0.42f, 0.92f, -0.50f, 0.0f },
		{ -0.40f, 0.20f, -0.70f, 1.20f, -0.40f, -0.10f,
		  -0.25f, -0.30f, 0.60f, -0.20f, 0.15f },
		{ 0.30f, -0.10f, -0.20f, 0.50f, -0.60f, 0.20f,
		  0.30f, -0.90f, 1.60f, -0.80f, -0.20f },
	};
	char path[512], err[512];

	model_path(path, sizeof(path));
	for (size_t i = 0; i < sizeof(legs) / sizeof(legs[0]); i++) {
		float pose[NAOBODY_JOINTS], stiff[NAOBODY_JOINTS];
		struct sim_physics *p;
		struct sim_physics_sense ps;

		memcpy(pose, motion_poses[POSE_STAND], sizeof(pose));
		memcpy(&pose[LEG_FIRST], legs[i], sizeof(legs[i]));
		for (int j = 0; j < NAOBODY_JOINTS; j++)
			stiff[j] = 1.0f;
		p = sim_physics_create(path, pose, err, sizeof(err));
		ASSERT_NE(NULL, p) TH_LOG("%s", err);
		/*
		 * Held up by the torso, the legs hanging: under the body's weight
		 * the model's two hip yaw-pitch joints part by milliradians (its
		 * coupling is a soft constraint), and only the left one is read;
		 * hanging, the right leg's weight still parts them a little.
		 */
		sim_physics_hold(p, true, 0.10f);
		sim_physics_cycle(p, 1.0f, pose, stiff);
		sim_physics_sense(p, &ps);
		for (int f = 0; f < 2; f++) {
			struct foot_pose fk;
			float model[4];

			/* The joints where the physics has them: the same state, two ways. */
			leg_forward(f, ps.position, &fk);
			sim_physics_sole(p, f, model);
			TH_LOG("pose %zu foot %d: ours %.4f %.4f %.4f %.3f, the model's %.4f %.4f %.4f %.3f",
			       i, f, fk.x, fk.y, fk.z, fk.yaw, model[0], model[1], model[2], model[3]);
			/* Within what the soft coupling leaves (0.4 mm, 7 mrad seen). */
			EXPECT_LT(fabsf(fk.x - model[0]), 1e-3f);
			EXPECT_LT(fabsf(fk.y - model[1]), 1e-3f);
			EXPECT_LT(fabsf(fk.z - model[2]), 1e-3f);
			EXPECT_LT(fabsf(angle_wrap(fk.yaw - model[3])), 0.015f);
		}
		sim_physics_destroy(p);
	}
}

static float uniform(unsigned int *seed, float lo, float hi)
{
	return lo + (hi - lo) * (rand_r(seed) / (float)RAND_MAX);
}

/*
 * Mirrored feet (the right the left's image, yaws opposite) exactly; feet
 * apart in x, as in a step, to within millimetres: the shared hip motor
 * cannot give both their yaws.
 */
TEST(leg_ik_reaches_the_feet)
{
	unsigned int seed = 7;
	float worst_mirrored = 0.0f, worst_stepping = 0.0f;

	for (int i = 0; i < 400; i++) {
		bool mirrored = i % 2 == 0;
		float q[NAOBODY_JOINTS], err, yaw = uniform(&seed, -0.3f, 0.3f);
		struct foot_pose want[2], got;

		memcpy(q, motion_poses[POSE_STAND], sizeof(q));
		for (int f = 0; f < 2; f++) {
			leg_forward(f, q, &want[f]);
			want[f].yaw = f == 0 ? yaw : -yaw;
		}
		want[0].x += uniform(&seed, -0.04f, 0.04f);
		want[0].y += uniform(&seed, 0.0f, 0.04f);
		want[0].z += uniform(&seed, 0.0f, 0.02f);
		if (mirrored) {
			want[1].x = want[0].x;
			want[1].y = -want[0].y;
			want[1].z = want[0].z;
		} else {
			want[1].x -= want[0].x - want[1].x;
		}
		err = leg_ik(want, q);
		if (mirrored)
			worst_mirrored = fmaxf(worst_mirrored, err);
		else
			worst_stepping = fmaxf(worst_stepping, err);
		for (int f = 0; mirrored && f < 2; f++) {
			leg_forward(f, q, &got);
			ASSERT_LT(fabsf(got.x - want[f].x) + fabsf(got.y - want[f].y) +
				  fabsf(got.z - want[f].z), 1e-4f);
			ASSERT_LT(fabsf(got.yaw - want[f].yaw), 1e-3f);
		}
	}
	TH_LOG("worst error: mirrored %.6f, stepping %.6f (m + 0.1 m/rad)",
	       worst_mirrored, worst_stepping);
	EXPECT_LT(worst_mirrored, 1e-4f);
	EXPECT_LT(worst_stepping, 5e-3f);
}

TEST(walk_toward_forward_keeps_its_heading)
{
	struct robot r;
	float at[3], worst = 0.0f;

	ASSERT_TRUE(robot_up(&r));
	robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
	for (int i = 0; i < (int)(10.0f / CYCLE_S); i++) {
		robot_cycle(&r);
		robot_where(&r, at);
		worst = fmaxf(worst, fabsf(at[2]));
	}
	TH_LOG("10 s at Normal: %.2f m forward, %.2f m aside, heading within %.1f deg",
	       at[0], at[1], worst / DEG);
	EXPECT_FALSE(r.fell);
	EXPECT_LT(worst, 10.0f * DEG);
	/* Normal is 0.2 m/s: it walked, not shuffled. */
	EXPECT_GT(at[0], 1.5f);
	robot_down(&r);
}

/*
 * The swing foot leaves the floor and stays off it until it lands: walking
 * forward at Normal and at Fast, each time a foot's sensors read nothing
 * it is for at least 0.7 of a step (15 of its 21 cycles; 16 or 17 on the
 * model, the floor meeting the foot as the step ends). Aimed at the floor
 * with the 2 cm lift, the foot met it five cycles early at Normal, since
 * the support leg gives under the weight (walk.c's land_m), and dragged
 * along it: 14 cycles off the floor at Normal, at Fast moments of contact
 * all through the swing. The bar is a cycle from each.
 */
TEST(the_swing_foot_stays_off_the_floor_until_it_lands)
{
	static const enum walk_speed speeds[] = { SPEED_NORMAL, SPEED_FAST };
	int least = (int)ceilf(0.7f * STEP_S / CYCLE_S);

	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		int off[2] = { 0, 0 }, shortest = INT_MAX, swings = 0;
		bool landed[2] = { false, false };
		struct robot r;

		ASSERT_TRUE(robot_up(&r));
		robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, speeds[i]);
		robot_run(&r, 2.0f);
		for (int c = 0; c < (int)(5.0f / CYCLE_S); c++) {
			robot_cycle(&r);
			for (int f = 0; f < 2; f++) {
				if (r.f.s.foot[f].weight <= 0.0f) {
					off[f]++;
					continue;
				}
				/* A whole swing: one that began after the first landing. */
				if (off[f] && landed[f]) {
					shortest = off[f] < shortest ? off[f] : shortest;
					swings++;
				}
				landed[f] = landed[f] || off[f];
				off[f] = 0;
			}
		}
		TH_LOG("%s: %d swings, the shortest %d cycles off the floor (at least %d)",
		       speeds[i] == SPEED_FAST ? "Fast" : "Normal", swings, shortest, least);
		EXPECT_FALSE(r.fell);
		EXPECT_GE(swings, 10);
		EXPECT_GE(shortest, least);
		robot_down(&r);
	}
}

TEST(walk_toward_half_left_draws_a_circle)
{
	struct robot r;
	float at[3], prev = 0.0f, turned = 0.0f, far = 0.0f, xs = 0.0f, ys = 0.0f;
	float rmin = INFINITY, rmax = 0.0f, cx, cy;
	int n = 0;
	static float path[2][2000];

	ASSERT_TRUE(robot_up(&r));
	robot_request(&r, MOTION_WALK_TOWARD, 0.5f, 0.5f, false, 0.0f, SPEED_NORMAL);
	robot_run(&r, 2.0f);	/* into its stride */
	for (int i = 0; i < (int)(20.0f / CYCLE_S); i++) {
		robot_cycle(&r);
		robot_where(&r, at);
		turned += angle_wrap(at[2] - prev);
		prev = at[2];
		if (i % 10 == 0 && n < 2000) {
			path[0][n] = at[0];
			path[1][n] = at[1];
			xs += at[0];
			ys += at[1];
			n++;
		}
	}
	/* The circle's centre: the mean of whole turns' points, near enough. */
	cx = xs / n;
	cy = ys / n;
	for (int i = 0; i < n; i++) {
		float d = hypotf(path[0][i] - cx, path[1][i] - cy);

		rmin = fminf(rmin, d);
		rmax = fmaxf(rmax, d);
		far = fmaxf(far, d);
	}
	TH_LOG("20 s: turned %.2f rad, radius %.3f to %.3f m about (%.2f, %.2f)",
	       turned, rmin, rmax, cx, cy);
	EXPECT_FALSE(r.fell);
	/* 0.4 rad/s asked: a whole turn at least, to the left. */
	EXPECT_GT(turned, 2.0f * (float)M_PI);
	/* A circle: the distance from its centre varies by less than half of it. */
	EXPECT_GT(rmin, 0.5f * rmax);
	EXPECT_LT(rmax, 0.6f);
	robot_down(&r);
}

TEST(stand_ends_the_walk_within_a_step)
{
	struct robot r;
	int cycles = 0;

	ASSERT_TRUE(robot_up(&r));
	robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, SPEED_FAST);
	robot_run(&r, 3.0f);
	ASSERT_STREQ("Walk", robot_motion(&r));
	robot_request(&r, MOTION_STAND, 0.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
	while (!strcmp(robot_motion(&r), "Walk") && cycles < 200) {
		robot_cycle(&r);
		cycles++;
	}
	TH_LOG("feet together %.0f ms after Stand", cycles * CYCLE_S * 1e3f);
	/* The step under way and the one that closes the feet. */
	EXPECT_LE(cycles * CYCLE_S, 2.0f * STEP_S + CYCLE_S);
	EXPECT_STREQ("Stand", robot_motion(&r));
	robot_run(&r, 1.0f);
	EXPECT_FALSE(r.fell);
	robot_down(&r);
}

TEST(a_keyframe_waits_for_the_feet_and_a_later_request_overtakes_it)
{
	struct robot r;
	int cycles = 0;
	bool sat = false;

	ASSERT_TRUE(robot_up(&r));
	robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
	robot_run(&r, 2.0f);
	/* SitDown mid-step: the walk closes its feet first, then it sits. */
	robot_request(&r, MOTION_SIT_DOWN, 0.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
	robot_cycle(&r);
	EXPECT_STREQ("Walk", robot_motion(&r));
	while (!strcmp(robot_motion(&r), "Walk") && cycles++ < 100)
		robot_cycle(&r);
	EXPECT_STREQ("SitDown", robot_motion(&r));
	robot_run(&r, 3.0f);
	EXPECT_FALSE(r.fell);
	/* Up and walking again; a SitDown overtaken by WalkToward never sits. */
	robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
	robot_run(&r, 4.0f);
	ASSERT_STREQ("Walk", robot_motion(&r));
	robot_request(&r, MOTION_SIT_DOWN, 0.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
	robot_cycle(&r);
	robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
	for (int i = 0; i < (int)(2.0f / CYCLE_S); i++) {
		robot_cycle(&r);
		sat = sat || !strcmp(robot_motion(&r), "SitDown");
	}
	EXPECT_FALSE(sat);
	EXPECT_STREQ("Walk", robot_motion(&r));
	EXPECT_FALSE(r.fell);
	robot_down(&r);
}

/* A hundred walks: a longer limit still. */
FIXTURE(long_walk) {};
FIXTURE_SETUP(long_walk) {}
FIXTURE_TEARDOWN(long_walk) {}

TEST_F_TIMEOUT(long_walk, walk_to_100_random_targets, 1800)
{
	unsigned int seed = 2026;
	float times[100], worst_d = 0.0f, worst_a = 0.0f, worst_share = 0.0f;
	int arrived = 0, falls = 0, beyond = 0, n = 100;

	for (int i = 0; i < n; i++) {
		struct walk_to_result res;
		float x, y, turn;

		walk_to_target(&seed, &x, &y, &turn);
		walk_to_trial(x, y, turn, SPEED_NORMAL, &res);
		times[i] = res.seconds;
		worst_d = fmaxf(worst_d, res.miss_m);
		worst_a = fmaxf(worst_a, res.miss_rad);
		falls += res.fell;
		/* State's odometry_uncertainty bounds the odometry's error. */
		worst_share = fmaxf(worst_share, res.odometry_error / fmaxf(res.uncertainty, 1e-6f));
		if (res.odometry_error > res.uncertainty) {
			beyond++;
			TH_LOG("target %d (%.2f, %.2f, %.0f deg): the odometry %.3f m off, State "
			       "said %.3f m at most", i, x, y, turn / DEG, res.odometry_error,
			       res.uncertainty);
		}
		if (walk_to_arrived(&res))
			arrived++;
		else
			TH_LOG("target %d (%.2f, %.2f, %.0f deg): missed by %.3f m, %.1f deg in %.1f s "
			       "(at %.2f, %.2f, %.0f deg; odometry %.2f, %.2f, %.0f deg)",
			       i, x, y, turn / DEG, res.miss_m, res.miss_rad / DEG, res.seconds,
			       res.at[0], res.at[1], res.at[2] / DEG, res.odometry[0],
			       res.odometry[1], res.odometry[2] / DEG);
	}
	qsort(times, n, sizeof(times[0]), float_order);
	TH_LOG("%d of %d arrived within 10 cm and 10 deg, %d fell; worst %.3f m, %.1f deg; "
	       "median time at Normal %.1f s", arrived, n, falls, worst_d, worst_a / DEG,
	       times[n / 2]);
	TH_LOG("the odometry's error at most %.2f of State's odometry_uncertainty; beyond it "
	       "%d times", worst_share, beyond);
	EXPECT_EQ(0, falls);
	EXPECT_EQ(0, beyond);
	/*
	 * Issue 33's bar, 99 of 100. The engine makes 100 here (the worst miss
	 * 5.0 cm; 6.8 with the 3 cm lift) since the odometry scales the
	 * gyroscope's turn and a turning step takes back the torso's creep;
	 * with the 3 cm lift and without either it made 98, the misses 10.5
	 * and 11.5 cm off (Documentation/naobodyd.rst, "Walking"); the figure
	 * printed.
	 */
	EXPECT_GE(arrived, 99);
}

/*
 * The body loop stalls 100 ms once mid-walk at Fast (the boards hold the
 * last command meanwhile; robot_stall()), at twenty moments of two steps,
 * each foot's: the walk holds its phase, closes its feet, stands until the
 * torso is still and walks on, and never falls. (Walking on at once from
 * the closed feet, 7 of these 20 fell, all in the second step, the other
 * foot's, which ten moments of one step had never stalled; stepping on by
 * the clock's jump, or only holding the phase, more. Longer stalls, which
 * nb-walk-bench prints, still fail some.)
 */
#define STALL_S		0.10f
#define STALL_MOMENTS	20	/* over two steps */

TEST(a_stall_mid_walk_holds_the_step_and_walks_on)
{
	for (int p = 0; p < STALL_MOMENTS; p++) {
		struct robot r;
		float a[3], b[3];

		ASSERT_TRUE(robot_up(&r));
		robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, SPEED_FAST);
		robot_run(&r, 2.0f + p * 2.0f * STEP_S / STALL_MOMENTS);
		robot_stall(&r, STALL_S);
		robot_where(&r, a);
		robot_run(&r, 3.0f);
		robot_where(&r, b);
		EXPECT_FALSE(r.fell) TH_LOG("stalled %.0f ms at %d/%d of two steps: fell",
					    STALL_S * 1e3f, p, STALL_MOMENTS);
		/*
		 * Walking on: Fast goes 0.32 m/s; it stands up to 2 s until
		 * still, then speeds up again from the closed feet (0.31 m at
		 * the least here).
		 */
		EXPECT_GT(b[0] - a[0], 0.25f) TH_LOG("stalled at %d/%d of two steps: %.3f m in 3 s",
						     p, STALL_MOMENTS, b[0] - a[0]);
		EXPECT_STREQ("Walk", robot_motion(&r));
		robot_down(&r);
	}
}

/*
 * Stalled twice as long, 200 ms, at Normal and at Fast, at the same twenty
 * moments: the swing foot lands where it catches the sideways swing the
 * stall left (walk.c, walk_late()), and none falls. Without the catch, 4
 * and 2 of these 20 fell. At other moments and in turning walks some still
 * do (nb-walk-bench; Documentation/naobodyd.rst, "A late cycle").
 */
#define LONG_STALL_S	0.20f

TEST(a_long_stall_mid_walk_is_caught_by_the_step)
{
	static const enum walk_speed speeds[] = { SPEED_NORMAL, SPEED_FAST };

	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		for (int p = 0; p < STALL_MOMENTS; p++) {
			struct robot r;

			ASSERT_TRUE(robot_up(&r));
			robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, speeds[i]);
			robot_run(&r, 2.0f + p * 2.0f * STEP_S / STALL_MOMENTS);
			robot_stall(&r, LONG_STALL_S);
			robot_run(&r, 2.0f);
			EXPECT_FALSE(r.fell) TH_LOG("%s, stalled %.0f ms at %d/%d of two steps: fell",
						    speeds[i] == SPEED_FAST ? "Fast" : "Normal",
						    LONG_STALL_S * 1e3f, p, STALL_MOMENTS);
			robot_down(&r);
		}
	}
}

TEST(a_quiet_client_mid_walk_stands_then_sits)
{
	struct robot r;
	float t = 0.0f, still_at = -1.0f, sitting_at = -1.0f;
	bool stage2 = false;

	ASSERT_TRUE(robot_up(&r));
	robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, SPEED_FAST);
	robot_run(&r, 3.0f);
	ASSERT_STREQ("Walk", robot_motion(&r));
	/* The client's last message was now: the watchdog's stages at its times. */
	while (t < 10.0f) {
		if (t >= WATCHDOG_STAND_NS / 1e9f && still_at < 0.0f)
			motion_watchdog(r.m, 1, r.f.time_ns);
		if (t >= WATCHDOG_SIT_NS / 1e9f && !stage2) {
			motion_watchdog(r.m, 2, r.f.time_ns);
			stage2 = true;
		}
		robot_cycle(&r);
		t += CYCLE_S;
		if (still_at < 0.0f && strcmp(robot_motion(&r), "Walk"))
			still_at = t;
		if (stage2 && sitting_at < 0.0f && !strcmp(robot_motion(&r), "Unstiff")) {
			sitting_at = t;
			break;	/* sat down: what a limp crouch does next is not the walk's */
		}
	}
	TH_LOG("quiet at 0: standing still at %.2f s, sat down and limp at %.2f s",
	       still_at, sitting_at);
	EXPECT_GT(still_at, 0.0f);
	/*
	 * The step under way and the one that closes the feet, after the
	 * cycle that applies the stage; the state shows it the cycle after.
	 */
	EXPECT_LE(still_at, WATCHDOG_STAND_NS / 1e9f + 2.0f * STEP_S + 2.0f * CYCLE_S);
	EXPECT_GT(sitting_at, 0.0f);
	/* The sit-down keyframe takes at most 3 s, the stiffness ramp 0.5 s. */
	EXPECT_LE(sitting_at, WATCHDOG_SIT_NS / 1e9f + 3.5f + CYCLE_S);
	EXPECT_FALSE(r.fell);
	robot_down(&r);
}

TEST_HARNESS_MAIN
