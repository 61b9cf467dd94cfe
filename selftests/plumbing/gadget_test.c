// SPDX-License-Identifier: GPL-2.0-only
/*
 * A FunctionFS gadget with the chest board's id comes up on dummy_udc.0 and
 * enumerates on the host side of dummy_hcd, at full speed like the real
 * board, with two bulk endpoints of 64-byte packets.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <gadget/gadget.h>

#include "../naobody/nbtest.h"

static int read_sysfs(const char *dev, const char *attr, char *buf, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/%s", dev, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

#define BIND_TRIES	3

FIXTURE(gadget) {
	struct nb_gadget g;
};

FIXTURE_SETUP(gadget)
{
	const struct nb_gadget_config cfg = {
		.vendor = 0xffff, .product = 0x0006, .bcd_device = 0x0100,
		.manufacturer = "naobody tests", .product_name = "plumbing",
		.serial = "0", .bulk_packet = 64,
	};

	ASSERT_EQ(0, nb_gadget_load_modules());
	ASSERT_EQ(0, nb_gadget_create(&self->g, "plumbing", &cfg));
}

FIXTURE_TEARDOWN(gadget)
{
	nb_gadget_destroy(&self->g);
}

TEST_F(gadget, enumerates_at_full_speed_with_two_bulk_endpoints)
{
	char dev[64], intf[96], buf[64], path[256];
	int bulk = 0, maxp64 = 0;
	struct dirent *de;
	DIR *d;

	/*
	 * The host sees the device, then configures it: wait for that, not
	 * only for the device. On a loaded PREEMPT_RT VM the host's
	 * SET_CONFIGURATION once failed (-EPROTO) and left it unconfigured;
	 * that is dummy_hcd's and the load's, not the descriptors' under test
	 * here: the gadget is bound again, at most BIND_TRIES times in all.
	 */
	for (int tries = 1; ; tries++) {
		ASSERT_EQ(0, nb_gadget_bind(&self->g, "dummy_udc.0"));
		ASSERT_EQ(0, nb_gadget_wait_host_device(0xffff, 0x0006, NBT_MS(5000), dev,
							sizeof(dev)));
		TH_LOG("host sees the gadget as %s", dev);
		/* Configured: its interface 0 is there. */
		snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s:1.0", dev);
		if (!nbt_wait_path(path, true, NBT_MS(5000)))
			break;
		TH_LOG("the host did not configure it (try %d)", tries);
		ASSERT_GT(BIND_TRIES, tries);
		ASSERT_EQ(0, nb_gadget_unbind(&self->g));
		ASSERT_EQ(0, nb_gadget_wait_host_gone(0xffff, 0x0006, NBT_MS(5000)));
	}

	ASSERT_EQ(0, read_sysfs(dev, "speed", buf, sizeof(buf)));
	EXPECT_STREQ("12", buf);
	ASSERT_EQ(0, read_sysfs(dev, "bConfigurationValue", buf, sizeof(buf)));
	EXPECT_STREQ("1", buf);

	snprintf(intf, sizeof(intf), "%s:1.0", dev);
	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s", intf);
	d = opendir(path);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d))) {
		char attr[300];

		if (strncmp(de->d_name, "ep_", 3))
			continue;
		snprintf(attr, sizeof(attr), "%s/type", de->d_name);
		if (read_sysfs(intf, attr, buf, sizeof(buf)) || strcmp(buf, "Bulk"))
			continue;
		bulk++;
		snprintf(attr, sizeof(attr), "%s/wMaxPacketSize", de->d_name);
		if (!read_sysfs(intf, attr, buf, sizeof(buf)) && strtoul(buf, NULL, 16) == 64)
			maxp64++;
		TH_LOG("bulk endpoint %s", de->d_name);
	}
	closedir(d);
	EXPECT_EQ(2, bulk);
	EXPECT_EQ(2, maxp64);

	ASSERT_EQ(0, nb_gadget_unbind(&self->g));
	EXPECT_EQ(0, nb_gadget_wait_host_gone(0xffff, 0x0006, NBT_MS(5000)));
}

TEST_HARNESS_MAIN
