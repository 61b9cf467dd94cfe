// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two chest boards at once: dummy_hcd with two UDCs, an emulator on each
 * (the second one the older ffff:0005 board). Each gets its own device
 * node, ring, death switch and lifetime: one unplugged leaves the other
 * running, and comes back under the same name.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "nbtest.h"

#define CHEST_A		0x00020029u
#define CHEST_B		0x00020030u

static const char *const emu_b_args[] = {
	"--udc", "dummy_udc.1", "--name", "chestboard1", "--product", "0x0005",
	"--chest-version", "0x00020030", "--body-id", "P0000073A07SEMU00043", NULL
};

/* The open device whose chest board answers 0x02 with version. */
static struct nb_device *device_of(struct nb_device *d[2], uint32_t version)
{
	for (int i = 0; i < 2; i++)
		if (d[i] && nb_info(d[i])->chest_version == version)
			return d[i];
	return NULL;
}

FIXTURE(two) {
	struct nb_emu a, b;
	struct nb_device *d[2];
	bool module_loaded;
};

FIXTURE_SETUP(two)
{
	struct nb_emu_options oa = { .socket = "/run/nbemu-a.sock", .quiet = 1,
				     .timeout_ms = NBT_MS(10000) };
	struct nb_emu_options ob = { .socket = "/run/nbemu-b.sock", .args = emu_b_args,
				     .quiet = 1, .timeout_ms = NBT_MS(10000) };

	/* dummy_hcd with a second UDC: loaded again if an earlier test left it. */
	nbt_sh("rmmod naobody 2>/dev/null");
	nbt_sh("rmmod dummy_hcd 2>/dev/null");
	ASSERT_EQ(0, nbt_sh("modprobe dummy_hcd is_high_speed=0 num=2"));
	ASSERT_EQ(0, nb_emu_start(&self->a, &oa));
	ASSERT_EQ(0, nb_emu_start(&self->b, &ob));
	ASSERT_STRNE(self->a.host_dev, self->b.host_dev);
	ASSERT_EQ(0, nbt_sh("modprobe naobody"));
	self->module_loaded = true;
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, NBT_MS(10000)));
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody1", true, NBT_MS(10000)));
	self->d[0] = nb_open("/dev/naobody", 0);
	self->d[1] = nb_open("/dev/naobody1", 0);
	ASSERT_NE(NULL, self->d[0]);
	ASSERT_NE(NULL, self->d[1]);
}

FIXTURE_TEARDOWN(two)
{
	for (int i = 0; i < 2; i++)
		if (self->d[i])
			nb_close(self->d[i]);
	if (self->module_loaded)
		nbt_sh("rmmod naobody");
	nb_emu_stop(&self->b);
	nb_emu_stop(&self->a);
	/* The next tests load dummy_hcd as they need it. */
	nbt_sh("rmmod dummy_hcd 2>/dev/null");
}

TEST_F_TIMEOUT(two, each_board_has_its_own_device, NBT_TIMEOUT)
{
	struct nb_device *a = device_of(self->d, CHEST_A), *b = device_of(self->d, CHEST_B);
	struct naobody_record rec;
	struct nb_emu_stats sa, sb;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(a, b);
	/* Both cycle, each through its own emulator. */
	nbt_skip_to_newest(a);
	nbt_skip_to_newest(b);
	for (int i = 0; i < 20; i++) {
		ASSERT_EQ(1, nb_next(a, &rec, NBT_MS(3000)));
		ASSERT_EQ(1, nb_next(b, &rec, NBT_MS(3000)));
	}
	/* The emulators count a frame once their loop took it: let them. */
	EXPECT_EQ(0, nb_emu_wait_frames(&self->a, 20, NBT_MS(3000)));
	EXPECT_EQ(0, nb_emu_wait_frames(&self->b, 20, NBT_MS(3000)));
	ASSERT_EQ(0, nb_emu_stats(&self->a, &sa));
	ASSERT_EQ(0, nb_emu_stats(&self->b, &sb));
	EXPECT_LE(20u, sa.frames);
	EXPECT_LE(20u, sb.frames);
	/*
	 * A sensor set on one board shows on its device (in one of its next
	 * records: counted, not timed), and not on the other's.
	 */
	ASSERT_EQ(0, nb_emu_set(&self->b, "gyroscope", 0, 1234));
	nbt_skip_to_newest(b);
	for (int i = 0; i < 200; i++) {
		ASSERT_EQ(1, nb_next(b, &rec, NBT_MS(3000)));
		if (rec.sensors.gyroscope[0] == 1234)
			break;
	}
	EXPECT_EQ(1234, rec.sensors.gyroscope[0]);
	nbt_skip_to_newest(a);
	ASSERT_EQ(1, nb_next(a, &rec, NBT_MS(3000)));
	EXPECT_NE(1234, rec.sensors.gyroscope[0]);
}

TEST_F_TIMEOUT(two, a_stop_holds_one_body_only, NBT_TIMEOUT)
{
	struct nb_device *a = device_of(self->d, CHEST_A), *b = device_of(self->d, CHEST_B);

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, nb_stop(b, NAOBODY_STOP_TOOL));
	ASSERT_EQ(0, nb_refresh_info(a));
	ASSERT_EQ(0, nb_refresh_info(b));
	EXPECT_NE(0u, nb_info(b)->flags & NAOBODY_INFO_STOPPED);
	EXPECT_EQ(0u, nb_info(a)->flags & NAOBODY_INFO_STOPPED);
	EXPECT_EQ(0, nb_rearm(b));
}

TEST_F_TIMEOUT(two, one_unplugged_leaves_the_other_running, NBT_TIMEOUT)
{
	struct nb_device *a = device_of(self->d, CHEST_A), *b = device_of(self->d, CHEST_B);
	const char *b_node = b == self->d[0] ? "/dev/naobody" : "/dev/naobody1";
	struct naobody_record rec;
	struct nb_device *again;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, nb_emu_disconnect(&self->b));
	ASSERT_EQ(0, nbt_wait_path(b_node, false, NBT_MS(5000)));
	/* Its records so far can still be read; then it is gone. */
	nbt_skip_to_newest(b);
	EXPECT_EQ(-ENODEV, nb_next(b, &rec, NBT_MS(1000)));
	/* The other board never noticed. */
	nbt_skip_to_newest(a);
	for (int i = 0; i < 20; i++)
		ASSERT_EQ(1, nb_next(a, &rec, NBT_MS(3000)));

	/* Plugged back: the same name again, a working device. */
	ASSERT_EQ(0, nb_emu_connect(&self->b));
	ASSERT_EQ(0, nbt_wait_path(b_node, true, NBT_MS(10000)));
	again = nb_open(b_node, 0);
	ASSERT_NE(NULL, again);
	EXPECT_EQ(CHEST_B, nb_info(again)->chest_version);
	EXPECT_EQ(1, nb_next(again, &rec, NBT_MS(3000)));
	nb_close(again);
}

NBT_HARNESS_MAIN
