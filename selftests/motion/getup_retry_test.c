// SPDX-License-Identifier: GPL-2.0-only
/*
 * A get-up that leaves the robot down: libnbmotion ends the keys in the
 * sit pose and waits for the torso to come upright (a body that rights
 * itself as its legs fold does so then). One that lies still there has
 * failed, and tries again at once (motion.c, lying_still()): waiting out
 * the whole wait cost each failed try 4 s. One still moving is given the
 * wait.
 *
 * A test double stands in for a body that never gets up: its joints are
 * where they were told, its inertial unit reads it lying on its back, and
 * its gyroscope reads what the test sets.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include <motion/fall.h>
#include <motion/motion.h>
#include <motion/poses.h>

#include "body_double.h"

#define CYCLE_NS	12000000ULL
#define CYCLES(ns)	((int)((ns) / CYCLE_NS))
#define TRY_CYCLES	CYCLES(30000000000ULL)	/* a try's keys take about 15 s */
#define WAIT_CYCLES	CYCLES(4000000000ULL)	/* motion.c's GETUP_WAIT_NS */

struct lying_body {
	struct motion *m;
	struct nb_sensors s;
	struct nb_actuators out;
	uint64_t t;
	int cycle;
	int retry_at;		/* the cycle of "trying again", or -1 */
};

static struct lying_body *current;

static void note(bool warn, const char *line)
{
	if (warn && strstr(line, "trying again") && current->retry_at < 0)
		current->retry_at = current->cycle;
}

static void body_start(struct lying_body *b)
{
	struct motion_body caps = { .can_walk = true, .can_stand_up = true };

	memset(b, 0, sizeof(*b));
	b->retry_at = -1;
	current = b;
	b->m = motion_create(&caps, note);
	body_double_sensors(&b->s, POSE_SIT);
	/* On its back: pitched 1.5 rad backwards, still, the feet off the floor. */
	b->s.angles[1] = -1.5f;
	b->s.accelerometer[0] = 9.81f;
	b->s.accelerometer[2] = 0.0f;
	memset(b->s.fsr, 0, sizeof(b->s.fsr));
	b->t = 1000 * CYCLE_NS;
}

static void body_cycle(struct lying_body *b)
{
	struct motion_input in = { .time_ns = b->t, .s = &b->s };

	motion_update(b->m, &in, &b->out);
	memcpy(b->s.position, b->out.position, sizeof(b->s.position));
	b->t += CYCLE_NS;
	b->cycle++;
}

/* The command is the sit pose, stiff: the keys and the sit are done. */
static bool sitting(const struct lying_body *b)
{
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		if (fabsf(b->out.position[j] - motion_poses[POSE_SIT][j]) > 1e-4f)
			return false;
	return b->out.stiffness[NAOBODY_L_KNEE_PITCH] > 0.5f;
}

/* Cycles until the first try has sat (its keys done), or -1. */
static int until_sat(struct lying_body *b)
{
	bool keys = false;

	motion_power(b->m, POWER_WAKE, b->t);
	while (b->cycle < TRY_CYCLES) {
		body_cycle(b);
		/* It starts in the sit pose: the keys leave it first. */
		keys = keys || !sitting(b);
		if (keys && sitting(b))
			return b->cycle;
	}
	return -1;
}

/*
 * The first try up to the sit pose, then the gyroscope's pitch rate set to
 * pitch_rate: cycles from the sit to the second try, or -1 (none within
 * two waits). The sit's cycle in *sat (-1: never reached).
 */
static int retry_after_sit(struct lying_body *b, float pitch_rate, int *sat)
{
	body_start(b);
	*sat = until_sat(b);
	if (*sat < 0)
		return -1;
	b->s.gyroscope[1] = pitch_rate;
	while (b->retry_at < 0 && b->cycle < *sat + 2 * WAIT_CYCLES)
		body_cycle(b);
	return b->retry_at < 0 ? -1 : b->retry_at - *sat;
}

TEST(lying_still_after_the_sit_it_tries_again_at_once)
{
	struct lying_body b;
	int sat, after = retry_after_sit(&b, 0.0f, &sat);

	ASSERT_GE(sat, 0) TH_LOG("the first try never reached the sit pose");
	ASSERT_GE(after, 0) TH_LOG("no second try");
	/*
	 * The last key's hold and the sit's shortest move end in the sit
	 * pose too (0.7 s here), then FALL_STILL_NS of lying still: well
	 * within the wait's 4 s.
	 */
	EXPECT_LE(after, WAIT_CYCLES / 2)
		TH_LOG("tried again %d cycles after the sit (%.2f s)", after,
		       after * CYCLE_NS / 1e9);
	motion_destroy(b.m);
}

TEST(still_moving_after_the_sit_it_is_given_the_wait)
{
	struct lying_body b;
	/* Rocking on its back: turning faster than the fall detector's still. */
	int sat, after = retry_after_sit(&b, 2.0f * FALL_RATE_STILL, &sat);

	ASSERT_GE(sat, 0) TH_LOG("the first try never reached the sit pose");
	ASSERT_GE(after, 0) TH_LOG("no second try after the wait");
	EXPECT_GE(after, WAIT_CYCLES)
		TH_LOG("tried again %d cycles after the sit, while the body still moved", after);
	motion_destroy(b.m);
}

TEST_HARNESS_MAIN
