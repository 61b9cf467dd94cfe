// SPDX-License-Identifier: GPL-2.0-only
/*
 * Another client drives (a LoLA client, naobodyd's core.c) and hands back:
 * libnbmotion runs meanwhile with motion_input's elsewhere set, its output
 * thrown away, and motion_adopt() gives it the client's last command.
 *
 *   - A fall while the other client drives is that client's: the motion
 *     layer sees it (State's fall state) and takes no protective pose and
 *     logs none. Without elsewhere, the same fall takes the pose.
 *   - Let go of while down, the robot goes soft and then limp, not held
 *     stiff in the client's last pose on the floor.
 *   - Let go of after the motion layer had been walking (its client asked
 *     for a walk before the other client took over), a SitDown afterwards
 *     runs; and the steps it computed meanwhile, which the body never
 *     took, are not in the odometry.
 *
 * A test double stands in for the body: its joints are where they were
 * told, its inertial unit reads what the test sets.
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

struct double_body {
	struct motion *m;
	struct nb_sensors s;
	struct nb_actuators out;
	uint64_t t;
	bool elsewhere;
};

static bool noted_pose;

static void note(bool warn, const char *line)
{
	if (strstr(line, "protective pose"))
		noted_pose = true;
}

static void body_start(struct double_body *b)
{
	struct motion_body caps = { .can_walk = true, .can_protect = true };

	memset(b, 0, sizeof(*b));
	noted_pose = false;
	b->m = motion_create(&caps, note);
	body_double_sensors(&b->s, POSE_STAND);
	b->t = 1000 * CYCLE_NS;
}

static void body_cycle(struct double_body *b)
{
	struct motion_input in = { .time_ns = b->t, .s = &b->s, .elsewhere = b->elsewhere };

	motion_update(b->m, &in, &b->out);
	/* The other client's command goes to the body, not this one. */
	if (!b->elsewhere)
		memcpy(b->s.position, b->out.position, sizeof(b->s.position));
	b->t += CYCLE_NS;
}

static void body_run(struct double_body *b, int cycles)
{
	while (cycles--)
		body_cycle(b);
}

static struct motion_status status(struct double_body *b)
{
	struct motion_status st;

	motion_status(b->m, &st);
	return st;
}

/* Awake and standing: Stand held (Initial), within 3 s. */
static bool awake(struct double_body *b)
{
	motion_power(b->m, POWER_WAKE, b->t);
	for (int i = 0; i < 250; i++) {
		body_cycle(b);
		if (status(b).primary == PRIMARY_INITIAL)
			return true;
	}
	return false;
}

/* The torso tipping backwards fast (fall.c: past 0.6 rad and turning). */
static void tip_back(struct double_body *b)
{
	b->s.angles[1] = -0.8f;
	b->s.gyroscope[1] = -2.0f;
}

/* Lying on its back, still. */
static void lie_back(struct double_body *b)
{
	b->s.angles[1] = -1.5f;
	b->s.gyroscope[1] = 0.0f;
	b->s.accelerometer[0] = 9.81f;
	b->s.accelerometer[2] = 0.0f;
}

/* The other client takes over, its command the motion layer's last. */
static void take_over(struct double_body *b)
{
	b->elsewhere = true;
}

static void let_go(struct double_body *b, float stiffness)
{
	struct nb_actuators cmd = b->out;

	for (int j = 0; j < NAOBODY_JOINTS; j++)
		cmd.stiffness[j] = stiffness;
	memcpy(cmd.position, b->s.position, sizeof(cmd.position));
	b->elsewhere = false;
	motion_adopt(b->m, &cmd, b->t);
}

static float max_stiffness(const struct double_body *b)
{
	float v = 0.0f;

	for (int j = 0; j < NAOBODY_JOINTS; j++)
		v = fmaxf(v, b->out.stiffness[j]);
	return v;
}

TEST(another_clients_fall_takes_no_pose)
{
	for (int other = 0; other < 2; other++) {
		struct double_body b;
		struct motion_status st;

		body_start(&b);
		ASSERT_TRUE(awake(&b));
		if (other)
			take_over(&b);
		tip_back(&b);
		body_run(&b, 10);
		st = status(&b);
		TH_LOG("%s: fall state %d, motion %s", other ? "another client" : "its own",
		       st.fall, st.motion);
		EXPECT_EQ(FALL_FALLING, st.fall);
		if (other) {
			EXPECT_STRNE("FallProtection", st.motion);
			EXPECT_FALSE(noted_pose);
		} else {
			/* The same fall, its own: the pose (the test can tell). */
			EXPECT_STREQ("FallProtection", st.motion);
			EXPECT_TRUE(noted_pose);
		}
		motion_destroy(b.m);
	}
}

TEST(let_go_while_down_goes_limp)
{
	struct double_body b;
	int cycles;

	body_start(&b);
	ASSERT_TRUE(awake(&b));
	take_over(&b);
	tip_back(&b);
	body_run(&b, 10);
	lie_back(&b);
	body_run(&b, 60);
	ASSERT_EQ(FALL_FALLEN, status(&b).fall);
	/* The client lets go of its stiff command with the robot on the floor. */
	let_go(&b, 1.0f);
	for (cycles = 0; cycles < 250 && max_stiffness(&b) > 0.0f; cycles++)
		body_cycle(&b);
	TH_LOG("let go of while down: limp after %d cycles, motion %s", cycles, status(&b).motion);
	EXPECT_EQ(0.0f, max_stiffness(&b));
	EXPECT_LE(cycles, 125);		/* lying still 0.5 s, then the unstiffening's 0.5 s */
	motion_destroy(b.m);
}

TEST(let_go_after_a_walk_sits_down_when_asked)
{
	struct motion_req walk = { .kind = MOTION_WALK_TOWARD, .x = 1.0f, .speed = SPEED_NORMAL };
	struct motion_req sit = { .kind = MOTION_SIT_DOWN };
	struct double_body b;
	float before, after;
	int cycles;

	body_start(&b);
	ASSERT_TRUE(awake(&b));
	motion_request(b.m, &walk, b.t);
	body_run(&b, 100);
	ASSERT_STREQ("Walk", status(&b).motion);
	take_over(&b);
	before = status(&b).odometry[0];
	body_run(&b, 100);
	after = status(&b).odometry[0];
	TH_LOG("odometry while another client drove: %.3f m to %.3f m", before, after);
	EXPECT_EQ(before, after);
	let_go(&b, 1.0f);
	body_run(&b, 5);
	motion_request(b.m, &sit, b.t);
	for (cycles = 0; cycles < 500; cycles++) {
		body_cycle(&b);
		if (fabsf(b.out.position[KNEE] - motion_poses[POSE_SIT][KNEE]) < 0.05f)
			break;
	}
	TH_LOG("SitDown after the hand-back: the knee in the sit pose after %d cycles", cycles);
	EXPECT_LT(cycles, 500);
	motion_destroy(b.m);
}

TEST_HARNESS_MAIN
