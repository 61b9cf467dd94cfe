// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobody.ko's module parameters: bad values are refused at load with a
 * message that names the parameter, good ones show in sysfs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

static int run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Does the kernel log, since the marker, contain text? */
static int dmesg_has(const char *marker, const char *text)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "dmesg | sed -n '/%s/,$p' | grep -qF -- '%s'", marker, text);
	return run(cmd) == 0;
}

static void mark(const char *marker)
{
	FILE *f = fopen("/dev/kmsg", "w");

	if (f) {
		fprintf(f, "%s\n", marker);
		fclose(f);
	}
}

FIXTURE(params) {
	int unused;
};

FIXTURE_VARIANT(params) {
	const char *args;
	const char *message;	/* NULL: loads */
};

FIXTURE_VARIANT_ADD(params, period_too_short) {
	.args = "period_us=100",
	.message = "period_us=100 is outside 2000..100000",
};

FIXTURE_VARIANT_ADD(params, period_too_long) {
	.args = "period_us=200000",
	.message = "period_us=200000 is outside 2000..100000",
};

FIXTURE_VARIANT_ADD(params, ring_not_power_of_two) {
	.args = "ring_records=1000",
	.message = "ring_records=1000 is not a power of two in 16..65536",
};

FIXTURE_VARIANT_ADD(params, ring_too_small) {
	.args = "ring_records=8",
	.message = "ring_records=8 is not a power of two in 16..65536",
};

FIXTURE_VARIANT_ADD(params, controller_timeout_too_short) {
	.args = "controller_timeout_ms=5",
	.message = "controller_timeout_ms=5 is neither 0 nor in 10..10000",
};

FIXTURE_VARIANT_ADD(params, controller_timeout_too_long) {
	.args = "controller_timeout_ms=20000",
	.message = "controller_timeout_ms=20000 is neither 0 nor in 10..10000",
};

FIXTURE_VARIANT_ADD(params, ramp_too_long) {
	.args = "ramp_ms=10001",
	.message = "ramp_ms=10001 is outside 0..10000",
};

FIXTURE_VARIANT_ADD(params, accepted_version_not_a_byte) {
	.args = "accepted_versions=10,300",
	.message = "accepted_versions: 300 is outside 0..255",
};

FIXTURE_VARIANT_ADD(params, cycle_priority_too_high) {
	.args = "cycle_priority=100",
	.message = "cycle_priority=100 is outside 0..99",
};

FIXTURE_VARIANT_ADD(params, hold_of_no_cycles) {
	.args = "hold_cycles=0",
	.message = "hold_cycles=0 is outside 1..100",
};

FIXTURE_VARIANT_ADD(params, good_values) {
	.args = "period_us=10000 ring_records=256 accepted_versions=10,11",
	.message = NULL,
};

FIXTURE_SETUP(params)
{
	run("rmmod naobody 2>/dev/null");
}

FIXTURE_TEARDOWN(params)
{
	run("rmmod naobody 2>/dev/null");
}

TEST_F(params, load)
{
	char cmd[256], marker[64];

	snprintf(marker, sizeof(marker), "params-test-%d", getpid());
	mark(marker);
	snprintf(cmd, sizeof(cmd), "modprobe naobody %s 2>/dev/null", variant->args);
	if (variant->message) {
		EXPECT_NE(0, run(cmd));
		EXPECT_TRUE(dmesg_has(marker, variant->message));
		EXPECT_NE(0, access("/sys/module/naobody", F_OK));
	} else {
		ASSERT_EQ(0, run(cmd));
		EXPECT_EQ(0, run("grep -qx 10000 /sys/module/naobody/parameters/period_us"));
		EXPECT_EQ(0, run("grep -qx 256 /sys/module/naobody/parameters/ring_records"));
		EXPECT_EQ(0, run("grep -qx 10,11 /sys/module/naobody/parameters/accepted_versions"));
		/* The safety timeouts at run time: refused outside their range, kept. */
		EXPECT_NE(0, run("echo 5 > /sys/module/naobody/parameters/controller_timeout_ms"));
		EXPECT_EQ(0, run("grep -qx 100 /sys/module/naobody/parameters/controller_timeout_ms"));
		EXPECT_NE(0, run("echo 99999 > /sys/module/naobody/parameters/ramp_ms"));
		EXPECT_EQ(0, run("grep -qx 1000 /sys/module/naobody/parameters/ramp_ms"));
		EXPECT_EQ(0, run("echo 250 > /sys/module/naobody/parameters/controller_timeout_ms"));
		EXPECT_EQ(0, run("grep -qx 250 /sys/module/naobody/parameters/controller_timeout_ms"));
	}
}

TEST_HARNESS_MAIN
