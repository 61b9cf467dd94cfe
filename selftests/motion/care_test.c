// SPDX-License-Identifier: GPL-2.0-only
/*
 * The body cared for (libnbmotion's care.h), on made-up sensors: a joint
 * is hot from 76 degC and stays so down to 70, its stiffness held at 0.5;
 * the battery is low below 5 % unless charging, and again well only from
 * 10 % or on the charger; an unread charge (0) is not low.
 */
#include <string.h>

#include "kselftest_harness.h"

#include <motion/care.h>

#define KNEE	NAOBODY_R_KNEE_PITCH
#define ELBOW	NAOBODY_L_ELBOW_ROLL

static void at(struct care *c, struct nb_sensors *s, int j, float celsius)
{
	s->temperature[j] = celsius;
	care_update(c, s);
}

TEST(a_joint_is_hot_from_76_until_below_70)
{
	struct nb_sensors s = { .battery = { 0.9f } };
	struct care c = { 0 };
	float stiff[NAOBODY_JOINTS];

	at(&c, &s, KNEE, 75.9f);
	EXPECT_EQ(0U, c.hot);
	at(&c, &s, KNEE, 76.0f);
	EXPECT_EQ(1U << KNEE, c.hot);
	EXPECT_EQ(1U << KNEE, care_take_changes(&c));
	EXPECT_EQ(0U, care_take_changes(&c));
	EXPECT_TRUE(care_legs_hot(&c));
	at(&c, &s, KNEE, 70.0f);
	EXPECT_EQ(1U << KNEE, c.hot);
	EXPECT_EQ(0U, care_take_changes(&c));
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		stiff[j] = 1.0f;
	stiff[ELBOW] = 0.3f;
	care_limit(&c, stiff);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		EXPECT_EQ(j == KNEE ? CARE_HOT_STIFFNESS : j == ELBOW ? 0.3f : 1.0f, stiff[j]);
	at(&c, &s, KNEE, 69.9f);
	EXPECT_EQ(0U, c.hot);
	EXPECT_EQ(1U << KNEE, care_take_changes(&c));
	EXPECT_FALSE(care_legs_hot(&c));
}

TEST(a_hot_arm_leaves_the_legs_walking)
{
	struct nb_sensors s = { .battery = { 0.9f } };
	struct care c = { 0 };

	at(&c, &s, ELBOW, 80.0f);
	EXPECT_EQ(1U << ELBOW, c.hot);
	EXPECT_FALSE(care_legs_hot(&c));
}

TEST(the_battery_is_low_below_5_until_10_or_the_charger)
{
	struct nb_sensors s = { 0 };
	struct care c = { 0 };

	care_update(&c, &s);
	EXPECT_FALSE(c.battery_low);	/* 0: not read yet */
	s.battery[0] = 0.05f;
	care_update(&c, &s);
	EXPECT_FALSE(c.battery_low);
	s.battery[0] = 0.049f;
	s.battery[2] = 1.5f;		/* charging */
	care_update(&c, &s);
	EXPECT_FALSE(c.battery_low);
	s.battery[2] = -0.9f;
	care_update(&c, &s);
	EXPECT_TRUE(c.battery_low);
	s.battery[0] = 0.099f;
	care_update(&c, &s);
	EXPECT_TRUE(c.battery_low);
	s.battery[0] = 0.10f;
	care_update(&c, &s);
	EXPECT_FALSE(c.battery_low);
	s.battery[0] = 0.04f;
	care_update(&c, &s);
	EXPECT_TRUE(c.battery_low);
	s.battery[2] = 1.5f;
	care_update(&c, &s);
	EXPECT_FALSE(c.battery_low);
}

TEST_HARNESS_MAIN
