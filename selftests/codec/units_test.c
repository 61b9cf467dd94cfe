// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnaobody's conversions: every factor against the spec, the calibration
 * applied, the feet's weight and centre of pressure, commands to counts
 * and back, and the factors against the codec's field table (one place
 * for the layout; this test keeps the two copies of each scale equal).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "codec_test.h"

#include <naobody/prefs.h>
#include <naobody/units.h>

#define NEAR(a, b, eps)	(fabs((double)(a) - (double)(b)) <= (eps))

static void convert(const struct naobody_sensors *c, struct nb_sensors *u,
		    const struct nb_calibration *cal)
{
	memset(u, 0, sizeof(*u));
	nb_sensors_from_counts(u, c, NULL, cal);
}

TEST(spec_factors)
{
	struct nb_calibration cal;
	struct naobody_sensors c;
	struct nb_sensors u;

	nb_calibration_init(&cal);
	memset(&c, 0, sizeof(c));
	c.accelerometer[2] = -16384;		/* -9.81 m/s^2 */
	c.gyroscope[0] = 32768;			/* 500 deg/s */
	c.sonar[0] = 40;			/* 0.4 m */
	c.sonar[1] = 170;
	c.joint_current[NAOBODY_HEAD_YAW] = 1;	/* 0.016 A */
	c.joint_temperature[NAOBODY_R_HAND] = 23;	/* 46 deg C */
	c.battery_temperature = 285;		/* 28.5 deg C reads 2.85 */
	c.battery_charge = 99;
	c.battery_status = -32552;
	c.battery_current = -1500;
	convert(&c, &u, &cal);
	EXPECT_TRUE(NEAR(u.accelerometer[2], -9.81, 1e-5));
	EXPECT_TRUE(NEAR(u.gyroscope[0], 500 * M_PI / 180, 1e-5));
	EXPECT_TRUE(NEAR(u.sonar[0], 0.4, 1e-6));
	EXPECT_TRUE(NEAR(u.sonar[1], 1.7, 1e-6));
	EXPECT_TRUE(NEAR(u.current[NAOBODY_HEAD_YAW], 0.016, 1e-7));
	EXPECT_TRUE(NEAR(u.temperature[NAOBODY_R_HAND], 46, 1e-6));
	EXPECT_TRUE(NEAR(u.battery[3], 2.85, 1e-6));
	EXPECT_TRUE(NEAR(u.battery[0], 0.99, 1e-6));
	/* LoLA's bit field as a float, the sign included */
	EXPECT_EQ(-32552.0f, u.battery[1]);
	EXPECT_TRUE(NEAR(u.battery[2], -1.5, 1e-6));
}

TEST(battery_charge_outside_0_1_is_dropped)
{
	struct nb_calibration cal;
	struct naobody_sensors c;
	struct nb_sensors u;

	nb_calibration_init(&cal);
	memset(&c, 0, sizeof(c));
	memset(&u, 0, sizeof(u));
	c.battery_charge = 50;
	nb_sensors_from_counts(&u, &c, NULL, &cal);
	EXPECT_EQ(0.5f, u.battery[0]);
	c.battery_charge = 101;
	nb_sensors_from_counts(&u, &c, NULL, &cal);
	EXPECT_EQ(0.5f, u.battery[0]);
	c.battery_charge = -1;
	nb_sensors_from_counts(&u, &c, NULL, &cal);
	EXPECT_EQ(0.5f, u.battery[0]);
	c.battery_charge = 100;
	nb_sensors_from_counts(&u, &c, NULL, &cal);
	EXPECT_EQ(1.0f, u.battery[0]);
}

TEST(calibration_is_applied)
{
	struct nb_calibration cal;
	struct naobody_actuators cmd;
	struct naobody_sensors c;
	struct nb_sensors u;

	nb_calibration_init(&cal);
	cal.joint_zero[NAOBODY_L_KNEE_PITCH] = 100;
	cal.joint_zero[NAOBODY_L_HAND] = 50;
	cal.fsr_gain[5] = 0.002f;
	cal.fsr_offset[5] = -0.1f;
	cal.angle_offset[1] = 0.25f;
	cal.acc_offset[0] = 1.0f;
	cal.gyro_offset[2] = -0.5f;
	memset(&c, 0, sizeof(c));
	c.joint_position[NAOBODY_L_KNEE_PITCH] = 100 + 1024;	/* a quarter turn */
	c.joint_position[NAOBODY_L_HAND] = 50 + 750;
	c.fsr[5] = 1000;
	c.fsr[0] = 1000;
	c.angles[1] = 500;
	c.accelerometer[0] = 16384;
	memset(&cmd, 0, sizeof(cmd));
	cmd.stiffness[NAOBODY_HEAD_PITCH] = 250;
	memset(&u, 0, sizeof(u));
	nb_sensors_from_counts(&u, &c, &cmd, &cal);
	EXPECT_TRUE(NEAR(u.position[NAOBODY_L_KNEE_PITCH], M_PI / 2, 1e-6));
	EXPECT_TRUE(NEAR(u.position[NAOBODY_L_HAND], 0.75, 1e-6));
	EXPECT_TRUE(NEAR(u.position[NAOBODY_HEAD_YAW], 0, 1e-9));
	EXPECT_TRUE(NEAR(u.fsr[5], 1.9, 1e-6));
	EXPECT_TRUE(NEAR(u.fsr[0], 1000 * NB_FSR_DEFAULT_GAIN, 1e-6));
	EXPECT_TRUE(NEAR(u.angles[1], 0.75, 1e-6));
	EXPECT_TRUE(NEAR(u.accelerometer[0], 10.81, 1e-5));
	EXPECT_TRUE(NEAR(u.gyroscope[2], -0.5, 1e-6));
	EXPECT_TRUE(NEAR(u.stiffness[NAOBODY_HEAD_PITCH], 0.25, 1e-6));
	EXPECT_EQ(0.0f, u.stiffness[NAOBODY_HEAD_YAW]);
}

TEST(touch_and_status)
{
	struct nb_calibration cal;
	struct naobody_sensors c;
	struct nb_sensors u;
	unsigned int i;

	nb_calibration_init(&cal);
	memset(&c, 0, sizeof(c));
	c.touch = BIT(NAOBODY_TOUCH_CHEST_BUTTON) | BIT(NAOBODY_TOUCH_R_HAND_RIGHT);
	c.joint_status[NAOBODY_R_ANKLE_ROLL] = 3;
	convert(&c, &u, &cal);
	for (i = 0; i < NAOBODY_TOUCHES; i++)
		EXPECT_EQ(i == 0 || i == NAOBODY_TOUCH_R_HAND_RIGHT ? 1.0f : 0.0f,
			  u.touch[i]);
	EXPECT_EQ(3, u.status[NAOBODY_R_ANKLE_ROLL]);
	EXPECT_EQ(0, u.status[NAOBODY_R_ANKLE_PITCH]);
}

TEST(foot_weight_and_centre_of_pressure)
{
	const float even[4] = { 1, 1, 1, 1 }, none[4] = { 0 };
	const float front_left[4] = { 2, 0, 0, 0 };
	const float front[4] = { 1.5f, 1.5f, 0, 0 };
	struct nb_foot f;

	nb_foot_load(&f, even, 0);
	EXPECT_TRUE(NEAR(f.weight, 4, 1e-6));
	EXPECT_TRUE(NEAR(f.cop[0], (0.07025 * 2 - 0.03025 - 0.02965) / 4, 1e-6));
	EXPECT_TRUE(NEAR(f.cop[1], (0.0299 - 0.0231 + 0.0299 - 0.0191) / 4, 1e-6));
	nb_foot_load(&f, front_left, 1);
	EXPECT_TRUE(NEAR(f.weight, 2, 1e-6));
	EXPECT_TRUE(NEAR(f.cop[0], 0.07025, 1e-6));
	EXPECT_TRUE(NEAR(f.cop[1], 0.0231, 1e-6));
	nb_foot_load(&f, front, 1);
	EXPECT_TRUE(NEAR(f.cop[0], 0.07025, 1e-6));
	EXPECT_TRUE(NEAR(f.cop[1], (0.0231 - 0.0299) / 2, 1e-6));
	nb_foot_load(&f, none, 0);
	EXPECT_EQ(0.0f, f.weight);
	EXPECT_EQ(0.0f, f.cop[0]);
	EXPECT_EQ(0.0f, f.cop[1]);
}

TEST(sensors_fill_each_foot)
{
	struct nb_calibration cal;
	struct naobody_sensors c;
	struct nb_sensors u;

	nb_calibration_init(&cal);
	memset(&c, 0, sizeof(c));
	c.fsr[NAOBODY_FSR_RIGHT_FOOT + NAOBODY_FSR_REAR_RIGHT] = 3000;
	convert(&c, &u, &cal);
	EXPECT_EQ(0.0f, u.foot[0].weight);
	EXPECT_TRUE(NEAR(u.foot[1].weight, 3, 1e-6));
	EXPECT_TRUE(NEAR(u.foot[1].cop[0], -0.02965, 1e-6));
	EXPECT_TRUE(NEAR(u.foot[1].cop[1], -0.0299, 1e-6));
}

TEST(commands_to_counts)
{
	struct nb_calibration cal;
	struct naobody_actuators c;
	struct nb_actuators a;

	nb_calibration_init(&cal);
	cal.joint_zero[NAOBODY_HEAD_YAW] = 2048;
	memset(&a, 0, sizeof(a));
	a.position[NAOBODY_HEAD_YAW] = (float)M_PI;		/* half a turn */
	a.position[NAOBODY_HEAD_PITCH] = -0.5f * (float)(2 * M_PI / 4096);
	a.position[NAOBODY_L_HAND] = 0.4f;
	a.position[NAOBODY_R_HAND] = NAN;
	a.position[NAOBODY_L_ELBOW_YAW] = 1e30f;
	a.stiffness[NAOBODY_HEAD_YAW] = 0.5f;
	a.stiffness[NAOBODY_HEAD_PITCH] = 1.7f;
	a.stiffness[NAOBODY_L_HAND] = -1;
	a.stiffness[NAOBODY_R_HAND] = NAN;
	a.stiffness[NAOBODY_L_KNEE_PITCH] = 0.0006f;
	a.chest[0] = 1;
	a.chest[1] = 0.5f;
	a.chest[2] = 2;
	a.l_foot[0] = -3;
	a.r_foot[1] = NAN;
	a.sonar[1] = true;
	nb_actuators_to_counts(&c, &a, &cal);
	EXPECT_EQ(4096, c.position[NAOBODY_HEAD_YAW]);
	/* half a count rounds away from zero */
	EXPECT_EQ(-1, c.position[NAOBODY_HEAD_PITCH]);
	EXPECT_EQ(400, c.position[NAOBODY_L_HAND]);
	EXPECT_EQ(cal.joint_zero[NAOBODY_R_HAND], c.position[NAOBODY_R_HAND]);
	/* clamped to what the kernel takes: the wire's range */
	EXPECT_EQ(NAOBODY_POSITION_MAX, c.position[NAOBODY_L_ELBOW_YAW]);
	EXPECT_EQ(500, c.stiffness[NAOBODY_HEAD_YAW]);
	EXPECT_EQ(1000, c.stiffness[NAOBODY_HEAD_PITCH]);
	EXPECT_EQ(0, c.stiffness[NAOBODY_L_HAND]);
	EXPECT_EQ(0, c.stiffness[NAOBODY_R_HAND]);
	EXPECT_EQ(1, c.stiffness[NAOBODY_L_KNEE_PITCH]);
	EXPECT_EQ(255, c.chest_led[0]);
	EXPECT_EQ(128, c.chest_led[1]);
	EXPECT_EQ(255, c.chest_led[2]);
	EXPECT_EQ(0, c.l_foot_led[0]);
	EXPECT_EQ(0, c.r_foot_led[1]);
	EXPECT_EQ(NAOBODY_SONAR_RIGHT, c.sonar);
}

TEST(commands_round_trip)
{
	struct nb_calibration cal;
	struct naobody_actuators c, c2;
	struct nb_actuators a, back;
	uint64_t st = 9;
	unsigned int i, round;

	nb_calibration_init(&cal);
	for (i = 0; i < NAOBODY_JOINTS; i++)
		cal.joint_zero[i] = ct_range(&st, -500, 500);
	for (round = 0; round < 100; round++) {
		ct_random_actuators(&c, &st);
		nb_actuators_from_counts(&a, &c, &cal);
		nb_actuators_to_counts(&c2, &a, &cal);
		ASSERT_EQ(0, memcmp(&c, &c2, sizeof(c)));
		nb_actuators_from_counts(&back, &c2, &cal);
		for (i = 0; i < NAOBODY_JOINTS; i++)
			ASSERT_EQ(a.position[i], back.position[i]);
	}
}

TEST(sensors_round_trip)
{
	struct nb_calibration cal;
	struct naobody_sensors c, c2;
	struct nb_sensors u;
	uint64_t st = 13;
	unsigned int i, round;

	nb_calibration_init(&cal);
	for (i = 0; i < NAOBODY_JOINTS; i++)
		cal.joint_zero[i] = ct_range(&st, -500, 500);
	for (i = 0; i < NAOBODY_FSRS; i++) {
		cal.fsr_gain[i] = 0.001f * (1 + i);
		cal.fsr_offset[i] = 0.01f * i;
	}
	cal.acc_offset[1] = 0.3f;
	cal.angle_offset[0] = -0.02f;
	for (round = 0; round < 100; round++) {
		ct_random_sensors(&c, &st);
		/* the charge LoLA keeps is 0..1 */
		c.battery_charge %= 101;
		convert(&c, &u, &cal);
		nb_sensors_to_counts(&c2, &u, &cal);
		ASSERT_EQ(0, memcmp(&c, &c2, sizeof(c)));
	}
}

/*
 * The codec's field table says what a count is worth; libnaobody applies
 * its own constants. They must agree.
 */
TEST(factors_match_the_codec_field_table)
{
	struct nb_calibration cal;
	struct naobody_sensors c;
	struct nb_sensors u;
	unsigned int i, checked = 0;

	nb_calibration_init(&cal);
	for (i = 0; nb_field(i); i++) {
		const struct nb_field *f = nb_field(i);
		double per = (double)f->scale_num / f->scale_den;
		double got = NAN, want = 1000 * per;

		memset(&c, 0, sizeof(c));
		if (!strcmp(f->name, "imu.acc_x")) {
			c.accelerometer[0] = 1000;
			convert(&c, &u, &cal);
			got = u.accelerometer[0];
		} else if (!strcmp(f->name, "imu.gyr_y")) {
			c.gyroscope[1] = 1000;
			convert(&c, &u, &cal);
			got = u.gyroscope[1];
			want *= M_PI / 180;	/* deg/s */
		} else if (!strcmp(f->name, "imu.angle_x")) {
			c.angles[0] = 1000;
			convert(&c, &u, &cal);
			got = u.angles[0];
		} else if (!strcmp(f->name, "battery.charge")) {
			c.battery_charge = 10;
			convert(&c, &u, &cal);
			got = u.battery[0];
			want = 10 * per;
		} else if (!strcmp(f->name, "battery.current")) {
			c.battery_current = 1000;
			convert(&c, &u, &cal);
			got = u.battery[2];
		} else if (!strcmp(f->name, "battery.temperature")) {
			c.battery_temperature = 1000;
			convert(&c, &u, &cal);
			got = u.battery[3];
		} else if (!strcmp(f->name, "sonar.left")) {
			c.sonar[0] = 1000;
			convert(&c, &u, &cal);
			got = u.sonar[0];
		} else if (!strcmp(f->name, "joint.position")) {
			c.joint_position[NAOBODY_HEAD_YAW] = 1000;
			convert(&c, &u, &cal);
			got = u.position[NAOBODY_HEAD_YAW];
			want *= 2 * M_PI;	/* turns */
		} else if (!strcmp(f->name, "joint.current")) {
			c.joint_current[NAOBODY_HEAD_YAW] = 1000;
			convert(&c, &u, &cal);
			got = u.current[NAOBODY_HEAD_YAW];
		} else if (!strcmp(f->name, "joint.temperature")) {
			c.joint_temperature[NAOBODY_HEAD_YAW] = 100;
			convert(&c, &u, &cal);
			got = u.temperature[NAOBODY_HEAD_YAW];
			want = 100 * per;
		} else if (!strcmp(f->name, "targets.stiffness")) {
			struct naobody_actuators cmd = { 0 };

			cmd.stiffness[0] = 1000;
			memset(&u, 0, sizeof(u));
			nb_sensors_from_counts(&u, &c, &cmd, &cal);
			got = u.stiffness[0];
		} else {
			continue;
		}
		EXPECT_TRUE(NEAR(got, want, fabs(want) * 1e-6)) {
			TH_LOG("%s: %g, the table says %g", f->name, got, want);
		}
		checked++;
	}
	EXPECT_EQ(11U, checked);
}

/* The uapi's position range is what the codec's target field carries. */
TEST(position_range_is_the_wire_field)
{
	const struct nb_field *f = NULL;

	for (unsigned int i = 0; nb_field(i); i++)
		if (!strcmp(nb_field(i)->name, "targets.position"))
			f = nb_field(i);
	ASSERT_NE(NULL, f);
	ASSERT_TRUE(f->flags & NB_FIELD_SIGNED);
	EXPECT_EQ(-(1LL << (8 * f->width - 1)), NAOBODY_POSITION_MIN);
	EXPECT_EQ((1LL << (8 * f->width - 1)) - 1, NAOBODY_POSITION_MAX);
}

TEST(joint_names)
{
	EXPECT_STREQ("HeadYaw", nb_joint_name(NAOBODY_HEAD_YAW));
	EXPECT_STREQ("LHipYawPitch", nb_joint_name(NAOBODY_L_HIP_YAW_PITCH));
	EXPECT_STREQ("RHand", nb_joint_name(NAOBODY_R_HAND));
	EXPECT_NULL(nb_joint_name(NAOBODY_JOINTS));
}

TEST_HARNESS_MAIN
