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

/*
 * A body that moves to another port (the latch, Documentation/naobody.rst,
 * "Death switch"): board A at dummy_udc.0, then the same body (its body id,
 * id slot 3) at dummy_udc.1 once A is unplugged.
 */
#define BODY_ID		"P0000073A07SEMU00042"	/* the emulator's default */
#define STIFF		500
#define READY_MS	60000	/* the start-up under load: a bound for a hang */

FIXTURE(moved) {
	struct nb_emu a, b;
	struct nb_device *d, *ctl;
	bool module_loaded;
};

FIXTURE_SETUP(moved)
{
	struct nb_emu_options oa = { .socket = "/run/nbemu-a.sock", .quiet = 1 };

	nbt_sh("rmmod naobody 2>/dev/null");
	nbt_sh("rmmod dummy_hcd 2>/dev/null");
	ASSERT_EQ(0, nbt_sh("modprobe dummy_hcd is_high_speed=0 num=2"));
	ASSERT_EQ(0, nb_emu_start(&self->a, &oa));
	ASSERT_EQ(0, nbt_sh("modprobe naobody controller_timeout_ms=0 %s", nbt_hold_arg()));
	self->module_loaded = true;
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, NBT_MS(10000)));
	self->d = nb_open("/dev/naobody", 0);
	ASSERT_NE(NULL, self->d);
	ASSERT_EQ(1, nb_wait_ready(self->d, NBT_MS(READY_MS)));
}

FIXTURE_TEARDOWN(moved)
{
	if (self->ctl)
		nb_close(self->ctl);
	if (self->d)
		nb_close(self->d);
	if (self->module_loaded)
		nbt_sh("rmmod naobody");
	if (self->b.pid)
		nb_emu_stop(&self->b);
	nb_emu_stop(&self->a);
	nbt_sh("rmmod dummy_hcd 2>/dev/null");
}

/* A unplugged, the body at B's port: the new device, ready. */
static struct nb_device *move_body(struct nb_emu *a, struct nb_emu *b, bool id_unreadable)
{
	const char *args[] = {
		"--udc", "dummy_udc.1", "--name", "chestboard1", "--body-id", BODY_ID,
		id_unreadable ? "--misbehave" : NULL, "no_ids:-1", NULL
	};
	struct nb_emu_options ob = { .socket = "/run/nbemu-b.sock", .args = args, .quiet = 1 };
	struct nb_device *d;

	if (nb_emu_disconnect(a) || nbt_wait_path("/dev/naobody", false, NBT_MS(10000)) ||
	    nb_emu_start(b, &ob) || nbt_wait_path("/dev/naobody", true, NBT_MS(10000)))
		return NULL;
	d = nb_open("/dev/naobody", 0);
	if (d && nb_wait_ready(d, NBT_MS(READY_MS)) != 1) {
		nb_close(d);
		d = NULL;
	}
	return d;
}

static int stopped(struct nb_device *d, uint32_t *reason)
{
	if (nb_refresh_info(d))
		return -1;
	*reason = nb_info(d)->stop_reason;
	return !!(nb_info(d)->flags & NAOBODY_INFO_STOPPED);
}

/* Frames B received since from that carry stiffness to any board. */
static int stiff_frames(struct nb_emu *e, uint64_t from)
{
	static struct nb_emu_frame f[256];
	int n = nb_emu_frames(e, from, f, 256), stiff = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; f[i].targets && j < NAOBODY_JOINTS; j++)
			if (f[i].act.stiffness[j]) {
				stiff++;
				break;
			}
	return n < 0 ? -1 : stiff;
}

static int command_stiff(struct nb_device *ctl)
{
	struct naobody_actuators a = { 0 };

	for (int j = 0; j < NAOBODY_JOINTS; j++)
		a.stiffness[j] = STIFF;
	return nb_command_counts(ctl, &a, NAOBODY_SET_STIFFNESS);
}

/*
 * A stop on a file whose device is gone reaches the body by its body id
 * too, at its new port: before, only a device at the same port was found.
 */
TEST_F_TIMEOUT(moved, a_stop_on_a_stale_file_finds_the_body_at_another_port, NBT_TIMEOUT)
{
	struct nb_device *stale = self->d, *moved;
	uint32_t reason = 0;

	moved = move_body(&self->a, &self->b, false);
	ASSERT_NE(NULL, moved);
	EXPECT_EQ(0, stopped(moved, &reason));
	EXPECT_EQ(-ENODEV, nb_stop(stale, NAOBODY_STOP_GUARD));
	EXPECT_EQ(1, stopped(moved, &reason));
	EXPECT_EQ(NAOBODY_STOP_GUARD, reason);
	EXPECT_EQ(0, nb_rearm(moved));
	nb_close(moved);
}

/*
 * A body stopped at A comes back at B, and its body id cannot be read
 * there: it may be the stopped one, so it is held stopped, and a
 * controller's stiffness reaches none of its boards, until REARM. Before,
 * its boards were shaken hands with and stiffened.
 */
TEST_F_TIMEOUT(moved, a_body_whose_id_is_unread_is_held_while_a_body_is_stopped, NBT_TIMEOUT)
{
	struct nb_emu_stats st;
	struct nb_device *moved;
	uint32_t reason = 0;
	uint64_t from;
	int stiff = -1;

	ASSERT_EQ(0, nb_stop(self->d, NAOBODY_STOP_GUARD));
	moved = move_body(&self->a, &self->b, true);
	ASSERT_NE(NULL, moved);
	EXPECT_EQ(1, stopped(moved, &reason));
	EXPECT_EQ(NAOBODY_STOP_GUARD, reason);
	self->ctl = nb_open("/dev/naobody", NB_OPEN_CONTROL);
	ASSERT_NE(NULL, self->ctl);
	ASSERT_EQ(0, nb_emu_stats(&self->b, &st));
	from = st.frames;
	ASSERT_EQ(0, command_stiff(self->ctl));
	ASSERT_EQ(0, nb_emu_wait_frames(&self->b, from + 20, NBT_MS(20000)));
	EXPECT_EQ(0, stiff_frames(&self->b, from));
	/* REARM ends it: then the same command reaches the boards. */
	ASSERT_EQ(0, nb_rearm(moved));
	ASSERT_EQ(0, command_stiff(self->ctl));
	for (int i = 0; i < NBT_MS(500) && stiff <= 0; i++) {
		usleep(20000);
		stiff = stiff_frames(&self->b, from);
	}
	EXPECT_LT(0, stiff);
	nb_close(moved);
}

NBT_HARNESS_MAIN
