// SPDX-License-Identifier: GPL-2.0-only
/*
 * State's Stand is the body's, not the keyframe's clock: libnbmotion holds
 * Stand (primary_state Initial or Playing, a walk may start) only once the
 * legs' own sensors read Stand's pose within 0.10 rad and the torso is
 * upright and still (motion.c, SETTLE_*). A test double stands in for the
 * body: its joints move a share of the way to their targets each cycle, as
 * a motor under load lags, and one knee can be held where it is, blocked.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include <motion/motion.h>
#include <motion/poses.h>

#include "body_double.h"

#define CYCLE_NS	12000000ULL
#define KNEE		NAOBODY_L_KNEE_PITCH
#define SETTLE_MAX_CYCLES 500	/* 6 s: SETTLE_MAX_NS */

struct lag_body {
	struct motion *m;
	struct nb_sensors s;
	struct nb_actuators out;
	uint64_t t;
	float share;		/* of the error closed each cycle */
	bool knee_blocked;	/* the left knee stays where it is */
};

static char last_warning[256];

static void keep_warning(bool warn, const char *line)
{
	if (warn)
		snprintf(last_warning, sizeof(last_warning), "%s", line);
}

static void body_start(struct lag_body *b, float share)
{
	struct motion_body caps = { .can_walk = true };

	memset(b, 0, sizeof(*b));
	last_warning[0] = '\0';
	b->m = motion_create(&caps, keep_warning);
	b->share = share;
	/* Sitting: the knees bent, as a robot is before Wake. */
	body_double_sensors(&b->s, POSE_SIT);
	b->t = 1000 * CYCLE_NS;
}

static void body_cycle(struct lag_body *b)
{
	struct motion_input in = { .time_ns = b->t, .s = &b->s };

	motion_update(b->m, &in, &b->out);
	for (int j = 0; j < NAOBODY_JOINTS; j++) {
		if (j == KNEE && b->knee_blocked)
			continue;
		b->s.position[j] += b->share * (b->out.position[j] - b->s.position[j]);
	}
	b->t += CYCLE_NS;
}

static struct motion_status status(struct lag_body *b)
{
	struct motion_status st;

	motion_status(b->m, &st);
	return st;
}

/* Cycles until Stand is held (Initial); how many, or -1 within limit. */
static int until_held(struct lag_body *b, int limit)
{
	for (int i = 0; i < limit; i++) {
		struct motion_status st;

		body_cycle(b);
		st = status(b);
		if (!strcmp(st.motion, "Stand") && st.primary == PRIMARY_INITIAL)
			return i;
	}
	return -1;
}

TEST(stand_is_held_once_the_legs_stand_there)
{
	struct lag_body b;
	float err;
	int n;

	/* A slow body: 3 % of the error a cycle (a time constant of 0.4 s). */
	body_start(&b, 0.03f);
	motion_power(b.m, POWER_WAKE, b.t);
	n = until_held(&b, 2 * SETTLE_MAX_CYCLES);
	ASSERT_GE(n, 0);
	err = fabsf(b.s.position[KNEE] - motion_poses[POSE_STAND][KNEE]);
	EXPECT_LE(err, 0.10f) TH_LOG("held with the knee %.3f rad from Stand's pose", err);
	EXPECT_STREQ("", last_warning);
	motion_destroy(b.m);
}

TEST(a_walk_asked_while_it_settles_starts_once_it_stands)
{
	struct motion_req walk = { .kind = MOTION_WALK_TOWARD, .x = 1.0f, .speed = SPEED_NORMAL };
	struct lag_body b;
	int i;

	body_start(&b, 0.03f);
	motion_power(b.m, POWER_WAKE, b.t);
	/* The first State saying Stand, still a transition (Animation). */
	for (i = 0; i < SETTLE_MAX_CYCLES && (strcmp(status(&b).motion, "Stand") ||
					       status(&b).primary != PRIMARY_ANIMATION); i++)
		body_cycle(&b);
	ASSERT_EQ(PRIMARY_ANIMATION, status(&b).primary);
	motion_request(b.m, &walk, b.t);
	for (i = 0; i < 2 * SETTLE_MAX_CYCLES && strcmp(status(&b).motion, "Walk"); i++) {
		float err = fabsf(b.s.position[KNEE] - motion_poses[POSE_STAND][KNEE]);

		body_cycle(&b);
		/* No step before the knee is in Stand's pose. */
		if (!strcmp(status(&b).motion, "Walk"))
			EXPECT_LE(err, 0.10f) TH_LOG("walking with the knee %.3f rad off", err);
	}
	EXPECT_STREQ("Walk", status(&b).motion);
	motion_destroy(b.m);
}

TEST(a_knee_that_cannot_get_there_is_held_after_6_s_and_named)
{
	struct lag_body b;
	int n;

	body_start(&b, 0.5f);
	b.knee_blocked = true;
	motion_power(b.m, POWER_WAKE, b.t);
	/* Stiffen (0.5 s) and the keyframe (at most 3 s), then 6 s settling. */
	n = until_held(&b, 3 * SETTLE_MAX_CYCLES);
	ASSERT_GE(n, 0);
	EXPECT_GE(n, SETTLE_MAX_CYCLES) TH_LOG("held after %d cycles, the knee blocked", n);
	EXPECT_NE(NULL, strstr(last_warning, "LKneePitch")) TH_LOG("warning: '%s'", last_warning);
	motion_destroy(b.m);
}

TEST_HARNESS_MAIN
