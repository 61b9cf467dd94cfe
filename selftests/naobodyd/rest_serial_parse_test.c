// SPDX-License-Identifier: GPL-2.0-only
/*
 * The REST API's serial bodies' requests (userspace/naobodyd/
 * rest_serial_parse.h), before anything reaches a robot: the PAROL6's
 * move and jog against parolctl's rules (joint limits, speeds, the jog's
 * 80 %), and the CM-5's register reads and writes against the register
 * tables and BRBrain's address limits. Malformed requests are -EINVAL
 * (400); requests the rules refuse are another errno (422).
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"

#include "rest/rest_serial_parse.h"

static json_t *js(const char *text)
{
	json_error_t e;
	json_t *o = json_loads(text, 0, &e);

	if (!o)
		fprintf(stderr, "bad test JSON %s: %s\n", text, e.text);
	return o;
}

static int move(const char *text, struct serial_move *m, char *why)
{
	json_t *o = js(text);
	int err = serial_parse_move(o, m, why, SERIAL_WHY);

	json_decref(o);
	return err;
}

static int jog(const char *text, struct serial_jog *j, char *why)
{
	json_t *o = js(text);
	int err = serial_parse_jog(o, j, why, SERIAL_WHY);

	json_decref(o);
	return err;
}

static int write_regs(const char *text, struct serial_regs *r, char *why)
{
	json_t *o = js(text);
	int err = serial_parse_write(o, r, why, SERIAL_WHY);

	json_decref(o);
	return err;
}

TEST(body_names)
{
	EXPECT_TRUE(serial_name_ok("ttyACM0"));
	EXPECT_TRUE(serial_name_ok("n_robot0"));
	EXPECT_TRUE(serial_name_ok("p6-2.x"));
	EXPECT_FALSE(serial_name_ok(""));
	EXPECT_FALSE(serial_name_ok("a/b"));
	EXPECT_FALSE(serial_name_ok("a b"));
	EXPECT_FALSE(serial_name_ok("0123456789012345678901234567890123"));
}

TEST(move_inside_the_limits)
{
	struct serial_move m;
	char why[SERIAL_WHY];

	ASSERT_EQ(0, move("{\"joints\": [90, -90, 180, 0, 0, 180]}", &m, why));
	/* J1: 90 deg x 6.4 / (360 / 6400) steps */
	EXPECT_EQ(10240, m.target[0]);
	EXPECT_EQ(-32000, m.target[1]);
	EXPECT_EQ(32000, m.target[5]);
	EXPECT_EQ(SERIAL_MOVE_SPEED, m.speed);
	EXPECT_EQ(SERIAL_MOVE_ACCEL, m.accel);
	EXPECT_EQ(SERIAL_MOVE_TIMEOUT_S, m.timeout);
}

TEST(move_refused_by_parolctls_rules)
{
	struct serial_move m;
	char why[SERIAL_WHY];

	/* J2's range is -145.0088..-3.375 deg */
	EXPECT_EQ(-EDOM, move("{\"joints\": [0, 0, 180, 0, 0, 180]}", &m, why));
	EXPECT_NE(NULL, strstr(why, "J2 0.000 deg is outside"));
	EXPECT_EQ(-EDOM, move("{\"joints\": [90, -3.3, 180, 0, 0, 180]}", &m, why));
	EXPECT_EQ(-EDOM, move("{\"joints\": [90, -90, 180, 0, 0, 180], \"speed\": 500}", &m, why));
	EXPECT_NE(NULL, strstr(why, "maximum"));
	EXPECT_EQ(-EDOM, move("{\"joints\": [90, -90, 180, 0, 0, 180], \"speed\": 0}", &m, why));
	EXPECT_EQ(-EDOM, move("{\"joints\": [90, -90, 180, 0, 0, 180], \"accel\": -1}", &m, why));
	EXPECT_NE(NULL, strstr(why, "acceleration"));
}

TEST(move_malformed)
{
	struct serial_move m;
	char why[SERIAL_WHY];

	EXPECT_EQ(-EINVAL, move("[]", &m, why));
	EXPECT_EQ(-EINVAL, move("{\"joints\": [90, -90, 180, 0, 0]}", &m, why));
	EXPECT_EQ(-EINVAL, move("{\"joints\": [90, -90, 180, 0, 0, \"x\"]}", &m, why));
	EXPECT_EQ(-EINVAL, move("{\"joints\": [90, -90, 180, 0, 0, 180], \"sped\": 5}", &m, why));
	EXPECT_NE(NULL, strstr(why, "sped"));
	EXPECT_EQ(-EINVAL, move("{\"joints\": [90, -90, 180, 0, 0, 180], \"timeout\": 0}", &m, why));
	EXPECT_EQ(-EINVAL, move("{\"joints\": [90, -90, 180, 0, 0, 180], \"timeout\": 601}", &m,
				why));
	EXPECT_EQ(-EINVAL, move("{\"joints\": [90, -90, 180, 0, 0, 180], \"speed\": \"5\"}", &m,
				why));
}

TEST(jog_rules)
{
	struct serial_jog j;
	char why[SERIAL_WHY];
	double limit = parol6_steps_to_deg(0, parol6_jog_limit(0));

	ASSERT_EQ(0, jog("{\"joint\": 1, \"speed\": -5, \"seconds\": 2}", &j, why));
	EXPECT_EQ(0, j.joint);
	/* -5 deg/s is -568.9 steps/s, truncated towards zero as the commander does */
	EXPECT_EQ(-568, j.speed);
	EXPECT_EQ(2.0, j.seconds);
	/* the jog limit is 80 % of the joint's maximum, as parolctl's */
	EXPECT_EQ(parol6_max_speed[0] * 8 / 10, parol6_jog_limit(0));
	EXPECT_GT(limit, 100.0);
	EXPECT_EQ(-EDOM, jog("{\"joint\": 1, \"speed\": 106}", &j, why));
	EXPECT_NE(NULL, strstr(why, "jog limit"));
	EXPECT_EQ(-EINVAL, jog("{\"joint\": 0, \"speed\": 5}", &j, why));
	EXPECT_EQ(-EINVAL, jog("{\"joint\": 7, \"speed\": 5}", &j, why));
	EXPECT_EQ(-EINVAL, jog("{\"joint\": 1}", &j, why));
	EXPECT_EQ(-EINVAL, jog("{\"joint\": 1, \"speed\": 5, \"seconds\": 11}", &j, why));
	EXPECT_EQ(-EINVAL, jog("{\"joint\": 1.5, \"speed\": 5}", &j, why));
}

TEST(register_reads)
{
	struct serial_regs r;
	char why[SERIAL_WHY];

	ASSERT_EQ(0, serial_parse_read("1", "30", NULL, "2", NULL, &r, why, sizeof(why)));
	EXPECT_EQ(1, r.id);
	EXPECT_STREQ("goal_position", r.start->name);
	EXPECT_EQ(2U, r.count);
	ASSERT_EQ(0, serial_parse_read("5", NULL, "left_luminosity", NULL, "axs1", &r, why,
				       sizeof(why)));
	EXPECT_EQ(29, r.start->addr);
	EXPECT_EQ(1U, r.count);
	/* ids 0..253 (254 broadcast, 255 the CM-5) */
	EXPECT_EQ(-EINVAL, serial_parse_read("254", "30", NULL, NULL, NULL, &r, why, sizeof(why)));
	EXPECT_EQ(-EINVAL, serial_parse_read("x", "30", NULL, NULL, NULL, &r, why, sizeof(why)));
	/* not a register's first byte; past the 55 register bytes */
	EXPECT_EQ(-EINVAL, serial_parse_read("1", "31", NULL, NULL, NULL, &r, why, sizeof(why)));
	EXPECT_EQ(-EINVAL, serial_parse_read("1", "55", NULL, NULL, NULL, &r, why, sizeof(why)));
	/* both, or neither */
	EXPECT_EQ(-EINVAL, serial_parse_read("1", "30", "goal_position", NULL, NULL, &r, why,
					     sizeof(why)));
	EXPECT_EQ(-EINVAL, serial_parse_read("1", NULL, NULL, NULL, NULL, &r, why, sizeof(why)));
	/* the registers must all be in the table: error (54) is the AX-12's last */
	EXPECT_EQ(0, serial_parse_read("1", "54", NULL, "1", NULL, &r, why, sizeof(why)));
	EXPECT_EQ(-EINVAL, serial_parse_read("1", "54", NULL, "2", NULL, &r, why, sizeof(why)));
	EXPECT_EQ(-EINVAL, serial_parse_read("1", "0", NULL, "0", NULL, &r, why, sizeof(why)));
	EXPECT_EQ(-EINVAL, serial_parse_read("1", "30", NULL, NULL, "ax18", &r, why,
					     sizeof(why)));
}

TEST(register_writes)
{
	struct serial_regs r;
	char why[SERIAL_WHY];

	ASSERT_EQ(0, write_regs("{\"id\": 2, \"address\": 30, \"values\": [300, 77]}", &r, why));
	EXPECT_EQ(2U, r.count);
	EXPECT_EQ(300, r.values[0]);
	EXPECT_EQ(77, r.values[1]);
	/* moving_speed is sign-magnitude: -1023..1023 */
	EXPECT_EQ(0, write_regs("{\"id\": 2, \"register\": \"moving_speed\", \"values\": [-100]}",
				&r, why));
	EXPECT_EQ(-EACCES, write_regs("{\"id\": 1, \"address\": 36, \"values\": [1]}", &r, why));
	EXPECT_NE(NULL, strstr(why, "read-only"));
	/* a read-only register inside the run is refused too */
	EXPECT_EQ(-EACCES, write_regs("{\"id\": 1, \"address\": 34, \"values\": [1, 1]}", &r, why));
	EXPECT_EQ(-ERANGE, write_regs("{\"id\": 1, \"address\": 30, \"values\": [1024]}", &r, why));
	EXPECT_EQ(-ERANGE, write_regs("{\"id\": 1, \"address\": 24, \"values\": [2]}", &r, why));
	EXPECT_EQ(-EINVAL, write_regs("{\"id\": 1, \"address\": 30, \"values\": []}", &r, why));
	EXPECT_EQ(-EINVAL, write_regs("{\"id\": 1, \"address\": 30}", &r, why));
	EXPECT_EQ(-EINVAL, write_regs("{\"id\": 1, \"address\": 30, \"values\": [1], \"x\": 1}",
				      &r, why));
	EXPECT_EQ(-EINVAL, write_regs("{\"address\": 30, \"values\": [1]}", &r, why));
	EXPECT_EQ(-EINVAL, write_regs("{\"id\": 1, \"address\": 30, \"values\": [1.5]}", &r,
				      why));
}

TEST_HARNESS_MAIN
