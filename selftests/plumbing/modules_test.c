// SPDX-License-Identifier: GPL-2.0-only
/*
 * Our modules load and unload cleanly. Anything the kernel prints while they
 * do (a WARN, an oops) fails the whole VM run through the console check.
 */
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"

static int run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

FIXTURE(module) {
	int unused;
};

FIXTURE_VARIANT(module) {
	const char *name;
	const char *sysfs_driver;	/* a path that exists while loaded */
};

FIXTURE_VARIANT_ADD(module, naobody) {
	.name = "naobody",
	.sysfs_driver = "/sys/bus/usb/drivers/naobody",
};

FIXTURE_VARIANT_ADD(module, n_robot) {
	.name = "n_robot",
	.sysfs_driver = "/sys/module/n_robot",
};

FIXTURE_SETUP(module) {}
FIXTURE_TEARDOWN(module) {}

TEST_F(module, loads_and_unloads)
{
	char cmd[128], path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", variant->name);
	snprintf(cmd, sizeof(cmd), "modprobe %s", variant->name);
	ASSERT_EQ(0, run(cmd));
	EXPECT_EQ(0, access(path, F_OK));
	EXPECT_EQ(0, access(variant->sysfs_driver, F_OK));

	snprintf(cmd, sizeof(cmd), "rmmod %s", variant->name);
	ASSERT_EQ(0, run(cmd));
	EXPECT_NE(0, access(path, F_OK));
}

TEST_HARNESS_MAIN
