// SPDX-License-Identifier: GPL-2.0-only
/*
 * libcm5 and libparol6 without a device: register tables, units, frames.
 */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "kselftest_harness.h"

#include <cm5/cm5.h>
#include <parol6/parol6.h>

#define EXPECT_NEAR(want, got, tol) EXPECT_TRUE(fabs((double)(want) - (got)) <= (tol))

/* The library's tables and the discipline's read-only masks agree. */
TEST(cm5_tables_match_the_kernel_read_only_masks)
{
	int models[2] = { N_ROBOT_CM5_MODEL_AX12, N_ROBOT_CM5_MODEL_AXS1 };
	const struct cm5_reg *r;
	size_t n, i, b;
	int m;

	for (m = 0; m < 2; m++) {
		r = cm5_regs(models[m], &n);
		EXPECT_EQ(35, n);
		for (i = 0; i < n; i++) {
			if (i)
				EXPECT_GT(r[i].addr, r[i - 1].addr);
			for (b = 0; b < r[i].size; b++)
				EXPECT_EQ(!!(r[i].flags & CM5_REG_RO),
					  cm5_read_only(models[m], r[i].addr + b))
					TH_LOG("%s %s", cm5_model_name(models[m]),
					       r[i].name);
		}
	}
}

TEST(cm5_units)
{
	const struct cm5_reg *goal = cm5_reg_find(N_ROBOT_CM5_MODEL_AX12,
						  "goal_position");
	const struct cm5_reg *speed = cm5_reg_find(N_ROBOT_CM5_MODEL_AX12,
						   "moving_speed");
	const struct cm5_reg *baud = cm5_reg_find(N_ROBOT_CM5_MODEL_AX12,
						  "baud_rate");
	const struct cm5_reg *pos = cm5_reg_find(N_ROBOT_CM5_MODEL_AX12,
						 "present_position");
	uint8_t b[2];
	int32_t raw;
	char buf[128];

	ASSERT_NE(NULL, goal);
	EXPECT_EQ(0, cm5_from_natural(goal, 100.0, &raw));
	EXPECT_EQ(341, raw);
	/* an exact half rounds up, as BRBrain's Math.round on floats */
	EXPECT_EQ(0, cm5_from_natural(goal, 150.0, &raw));
	EXPECT_EQ(512, raw);
	EXPECT_NEAR(300.0, cm5_to_natural(goal, 1023), 1e-9);
	EXPECT_EQ(-ERANGE, cm5_from_natural(goal, 301.0, &raw));
	EXPECT_EQ(-ERANGE, cm5_from_natural(pos, 10.0, &raw));
	/* sign-magnitude speeds */
	cm5_reg_encode(speed, -100, b);
	EXPECT_EQ(0x64, b[0]);
	EXPECT_EQ(0x04, b[1]);
	EXPECT_EQ(-100, cm5_reg_decode(speed, b));
	EXPECT_EQ(1, cm5_reg_at(N_ROBOT_CM5_MODEL_AX12, 1) == NULL);
	EXPECT_EQ(0, cm5_from_natural(baud, 1000.0, &raw));
	EXPECT_EQ(1, raw);
	EXPECT_NEAR(9.6, cm5_adc_to_volts(121), 0.05);
	EXPECT_STREQ("ok", cm5_status_str(0, buf, sizeof(buf)));
	cm5_status_str(0x0A | 2 << 8, buf, sizeof(buf));
	EXPECT_STREQ("dynamixel-timeout,invalid-dynamixel-response (2 retries)",
		     buf);
}

TEST(parol6_pack_is_a_valid_command_frame)
{
	struct parol6_cmd c;
	uint8_t f[56];
	int j;

	memset(&c, 0, sizeof(c));
	c.command = PAROL6_JOG;
	for (j = 0; j < 6; j++) {
		c.position[j] = -1 - j;
		c.speed[j] = 1000 * j - 2500;
	}
	c.out1 = true;
	c.grip_position = 200;
	parol6_pack(&c, f);
	EXPECT_EQ(0, parol6_tx_check(f, sizeof(f)));
	EXPECT_EQ(0xFF, f[4]);
	EXPECT_EQ(0xFF, f[6]);			/* -1: FF FF FF in a payload */
	EXPECT_EQ(123, f[40]);
	EXPECT_EQ(0x20, f[42]);
	EXPECT_EQ(200, f[45]);
	EXPECT_EQ(1, f[54]);
	EXPECT_EQ(2, f[55]);
}

TEST(parol6_unpack_telemetry)
{
	struct parol6_telemetry t;
	uint8_t f[60];

	memset(f, 0, sizeof(f));
	f[0] = f[1] = f[2] = 0xFF;
	f[3] = 56;
	f[4] = 0xFF; f[5] = 0xFF; f[6] = 0xFE;	/* J1 -2 */
	f[22] = 0x00; f[23] = 0x01; f[24] = 0x00;	/* J1 speed 256 */
	f[40] = 0x80 | 0x04 | 0x03;		/* J1 and J6 homed */
	f[41] = 0x40 | 0x08 | 0x07;		/* in2, E-stop released */
	f[44] = 0x1B; f[45] = 0x77;		/* 7031 ticks */
	f[47] = 123;
	f[55] = 0x80 | 0x20 | 0x01;		/* activated, object 1, calibrated */
	f[58] = 1;
	f[59] = 2;
	ASSERT_EQ(0, parol6_unpack(f, 60, &t));
	EXPECT_EQ(-2, t.position[0]);
	EXPECT_EQ(256, t.speed[0]);
	EXPECT_TRUE(t.homed[0]);
	EXPECT_FALSE(t.homed[1]);
	EXPECT_TRUE(t.homed[5]);
	EXPECT_FALSE(t.in1);
	EXPECT_TRUE(t.in2);
	EXPECT_FALSE(t.estop_pressed);
	EXPECT_NEAR(10000.0, t.timing_us, 1.0);
	EXPECT_EQ(123, t.last_command);
	EXPECT_TRUE(t.grip_activated);
	EXPECT_EQ(1, t.grip_object);
	EXPECT_TRUE(t.grip_calibrated);
	f[41] = 0x07;				/* E-stop pressed */
	ASSERT_EQ(0, parol6_unpack(f, 60, &t));
	EXPECT_TRUE(t.estop_pressed);
	f[59] = 3;
	EXPECT_EQ(-EINVAL, parol6_unpack(f, 60, &t));
}

TEST(parol6_units_and_limits)
{
	int32_t s;

	/* J1: 6.4 / 0.05625 = 113.78 microsteps per degree */
	EXPECT_EQ(0, parol6_deg_to_steps(0, 90.0, &s));
	EXPECT_EQ(10240, s);
	EXPECT_NEAR(90.0, parol6_steps_to_deg(0, 10240), 1e-9);
	EXPECT_NEAR(M_PI / 2, parol6_steps_to_rad(0, 10240), 1e-9);
	EXPECT_EQ(0, parol6_rad_to_steps(5, M_PI, &s));
	EXPECT_EQ(32000, s);
	EXPECT_EQ(-ERANGE, parol6_deg_to_steps(0, 124.0, &s));
	EXPECT_EQ(-ERANGE, parol6_deg_to_steps(1, 0.0, &s));
	EXPECT_EQ(0, parol6_deg_to_steps(2, 180.0, &s));
	EXPECT_EQ(57904, s);		/* the commander's int(57904.76) */
	EXPECT_EQ(-ERANGE, parol6_deg_to_steps(5, -1.0, &s));
	EXPECT_EQ(-EINVAL, parol6_deg_to_steps(6, 0.0, &s));
	EXPECT_EQ(-ERANGE, parol6_check_steps(3, 9000));
	EXPECT_EQ(0, parol6_check_steps(3, -7500));
	EXPECT_EQ(-ERANGE, parol6_speed_to_steps(0, 200.0, &s));
	EXPECT_EQ(0, parol6_speed_to_steps(0, 10.0, &s));
	EXPECT_EQ(1137, s);		/* int(1137.78) */
}

/*
 * One rule, the commander's (PAROL6_ROBOT.py: int(deg / 0.05625 x ratio)):
 * truncation towards zero. Rounding to nearest put J2's own lower limit,
 * -145.0088 degrees (-51558.68 steps), at -51559, one step past the
 * commander's limit of -51558. No angle within the limits gives a step
 * past them.
 */
TEST(parol6_truncates_as_the_commander_and_never_passes_a_limit)
{
	int32_t s, lo, hi;
	double d;
	int j;

	EXPECT_EQ(0, parol6_deg_to_steps(1, -145.0088, &s));
	EXPECT_EQ(-51558, s);
	EXPECT_EQ(0, parol6_check_steps(1, -51558));
	EXPECT_EQ(-ERANGE, parol6_check_steps(1, -51559));
	EXPECT_EQ(0, parol6_deg_to_steps(0, 85.0, &s));
	EXPECT_EQ(9671, s);		/* 9671.11 */
	EXPECT_EQ(0, parol6_deg_to_steps(2, 287.8675, &s));
	EXPECT_EQ(92604, s);		/* 92604.99: down, not up */
	EXPECT_EQ(0, parol6_deg_to_steps(0, -0.01, &s));
	EXPECT_EQ(-1, s);		/* -1.14: towards zero */
	for (j = 0; j < PAROL6_JOINTS; j++) {
		ASSERT_EQ(0, parol6_deg_to_steps(j, parol6_limit_deg[j][0], &lo));
		ASSERT_EQ(0, parol6_deg_to_steps(j, parol6_limit_deg[j][1], &hi));
		EXPECT_EQ(0, parol6_check_steps(j, lo));
		EXPECT_EQ(0, parol6_check_steps(j, hi));
		EXPECT_EQ(-ERANGE, parol6_check_steps(j, lo - 1));
		EXPECT_EQ(-ERANGE, parol6_check_steps(j, hi + 1));
		for (d = parol6_limit_deg[j][0]; d <= parol6_limit_deg[j][1]; d += 0.0137) {
			ASSERT_EQ(0, parol6_deg_to_steps(j, d, &s));
			ASSERT_EQ(0, parol6_check_steps(j, s));
		}
	}
}

/* The tools attach the discipline by the number the module publishes. */
TEST(ldisc_number_from_the_module_parameter)
{
	char path[] = "/tmp/n_robot_ldisc_XXXXXX";
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	ASSERT_EQ(3, write(fd, "25\n", 3));
	close(fd);
	setenv("N_ROBOT_LDISC_SYSFS", path, 1);
	EXPECT_EQ(25, nr_link_ldisc_number());
	fd = open(path, O_WRONLY | O_TRUNC);
	ASSERT_EQ(4, write(fd, "junk", 4));
	close(fd);
	EXPECT_EQ(N_ROBOT_LDISC, nr_link_ldisc_number());
	unlink(path);
	/* not loaded: the default, which autoloads it */
	EXPECT_EQ(N_ROBOT_LDISC, nr_link_ldisc_number());
	unsetenv("N_ROBOT_LDISC_SYSFS");
}

/*
 * attach's hold: until a signal or a hang-up, on a pty (raw: the host has
 * no discipline; the hold is the same). The helper thread sends its signal
 * once the process catches it (the hold has installed its handlers: before,
 * the signal's default would end the test), and hangs up after a pause.
 */
struct hold_peer {
	pthread_t target;
	int master;		/* close it: a hang-up */
	int sig;		/* or send this to target */
};

/* Whether this process catches sig now (SigCgt in /proc/self/status). */
static bool catching(int sig)
{
	unsigned long long mask = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask & (1ULL << (sig - 1));
}

static void *hold_peer(void *arg)
{
	struct hold_peer *h = arg;

	usleep(100 * 1000);
	/* 10 s at most: a hold that never catches it fails by the signal */
	for (int i = 0; h->sig && !catching(h->sig) && i < 1000; i++)
		usleep(10 * 1000);
	if (h->sig)
		pthread_kill(h->target, h->sig);
	else
		close(h->master);
	return NULL;
}

static int hold_until(struct hold_peer *h, struct nr_link *l)
{
	pthread_t t;
	int err;

	h->target = pthread_self();
	if (pthread_create(&t, NULL, hold_peer, h))
		return -1000;
	err = nr_link_hold(l);
	pthread_join(t, NULL);
	return err;
}

TEST(hold_ends_on_a_hang_up_or_a_signal_and_restores_the_signals)
{
	struct hold_peer h = { 0 };
	struct sigaction sa;
	struct nr_link l;
	char name[64];
	sigset_t mask;
	int master, slave;

	ASSERT_EQ(0, openpty(&master, &slave, name, NULL, NULL));
	ASSERT_EQ(0, nr_link_open(&l, name, N_ROBOT_FRAMING_PAROL6, NR_LINK_RAW, 0));
	close(slave);
	h.sig = SIGTERM;
	EXPECT_EQ(0, hold_until(&h, &l));
	h.sig = SIGHUP;
	EXPECT_EQ(0, hold_until(&h, &l));
	/* the default dispositions and an empty mask again */
	ASSERT_EQ(0, sigaction(SIGTERM, NULL, &sa));
	EXPECT_TRUE(sa.sa_handler == SIG_DFL);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, NULL, &mask));
	EXPECT_FALSE(sigismember(&mask, SIGTERM));
	EXPECT_FALSE(sigismember(&mask, SIGINT));
	h.sig = 0;
	h.master = master;
	EXPECT_EQ(-EIO, hold_until(&h, &l));
	nr_link_close(&l);
}

TEST_HARNESS_MAIN
