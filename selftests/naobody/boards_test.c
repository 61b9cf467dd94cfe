// SPDX-License-Identifier: GPL-2.0-only
/*
 * The motor board handshake's version check, the chest board's own
 * requests, and a USB reset, end to end against the emulator.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

#include "kselftest_harness.h"
#include "nb_codec.h"
#include "nbtest.h"

#define MAX_FRAMES	1024

static const char *const version_11[] = { "--board-version", "11", NULL };

/* Count boards in each state. */
static void board_states(struct nbt *t, unsigned int count[4], struct naobody_board *b,
			 int *n)
{
	memset(count, 0, 4 * sizeof(count[0]));
	*n = nb_boards(t->dev, b, 64);
	for (int i = 0; i < *n && i < 64; i++)
		if (b[i].state < 4)
			count[b[i].state]++;
}

FIXTURE(boards) {
	struct nbt t;
};

FIXTURE_VARIANT(boards) {
	const char *modargs;
	const char *const *emu_args;
	unsigned int expect;		/* the state every board must reach */
};

FIXTURE_VARIANT_ADD(boards, version_10_by_default) {
	.modargs = NULL,
	.emu_args = NULL,
	.expect = NAOBODY_BOARD_ACCEPTED,
};

FIXTURE_VARIANT_ADD(boards, version_11_refused_by_default) {
	.modargs = NULL,
	.emu_args = version_11,
	.expect = NAOBODY_BOARD_REJECTED,
};

FIXTURE_VARIANT_ADD(boards, version_11_accepted_with_the_parameter) {
	.modargs = "accepted_versions=10,11",
	.emu_args = version_11,
	.expect = NAOBODY_BOARD_ACCEPTED,
};

FIXTURE_SETUP(boards)
{
	ASSERT_EQ(0, nbt_up(&self->t, variant->modargs, variant->emu_args));
}

FIXTURE_TEARDOWN(boards)
{
	nbt_down(&self->t);
}

TEST_F(boards, handshake_outcome)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct naobody_board b[64];
	unsigned int count[4], asked[64] = { 0 };
	struct nb_emu_stats st;
	int n, frames;

	ASSERT_EQ(0, nbt_wait_boards(&self->t, variant->expect, NBT_ALL_BOARDS, 20000));
	board_states(&self->t, count, b, &n);
	EXPECT_EQ((unsigned int)n, count[variant->expect]);
	for (int i = 0; i < n; i++) {
		/* A board with a serial says so (the foot boards send 0). */
		EXPECT_EQ(variant->emu_args ? 11 : 10, b[i].config_version);
		/* Rejected: asked three times in all; accepted: once. */
		EXPECT_EQ(variant->expect == NAOBODY_BOARD_REJECTED ? 3 : 1, b[i].tries);
	}

	/* What the board got: handshakes, and start commands only if accepted. */
	ASSERT_EQ(0, nb_emu_stats(&self->t.emu, &st));
	frames = nb_emu_frames(&self->t.emu, 0, f, MAX_FRAMES);
	ASSERT_LT(0, frames);
	for (int i = 0; i < frames; i++)
		for (int j = 0; j < n && j < 64; j++)
			asked[j] += !!(f[i].handshake & (1ull << j));
	for (int j = 0; j < n; j++)
		EXPECT_LE(variant->expect == NAOBODY_BOARD_REJECTED ? 3u : 1u, asked[j]);
	EXPECT_EQ(variant->expect == NAOBODY_BOARD_REJECTED ? 0 : (1ull << n) - 1,
		  st.started_boards);
}

FIXTURE(chest) {
	struct nbt t;
};

FIXTURE_SETUP(chest)
{
	ASSERT_EQ(0, nbt_up(&self->t, NULL, NULL));
	ASSERT_EQ(1, nb_wait_ready(self->t.dev, 20000));
}

FIXTURE_TEARDOWN(chest)
{
	nbt_down(&self->t);
}

TEST_F(chest, id_strings_in_every_slot)
{
	char id[NAOBODY_CHEST_ID_LEN + 1], want[64];

	for (unsigned int slot = 0; slot < NAOBODY_CHEST_ID_SLOTS; slot++) {
		ASSERT_EQ(0, nb_chest_id(self->t.dev, slot, id));
		EXPECT_LT(0u, strlen(id));
		EXPECT_GE(NAOBODY_CHEST_ID_LEN, (int)strlen(id));
	}
	/* The body id is the preference block's. */
	ASSERT_EQ(0, nb_chest_id(self->t.dev, 3, id));
	snprintf(want, sizeof(want), "%s", nb_calibration(self->t.dev)->body_id);
	EXPECT_STREQ(want, id);
}

TEST_F(chest, mode_query_and_led_state)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct nb_emu_stats st;
	uint32_t result = 7;
	int n, seen = 0;

	/* The firmware is running: not in the boot loader. */
	ASSERT_EQ(0, nb_chest_mode(self->t.dev, NAOBODY_CHEST_QUERY_BOOTLOADER, &result));
	EXPECT_EQ(0u, result);
	ASSERT_EQ(0, nb_emu_stats(&self->t.emu, &st));
	ASSERT_EQ(0, nb_chest_mode(self->t.dev, NAOBODY_CHEST_LED_MANUAL, NULL));
	/* The request went out in a frame, with its op. */
	n = nb_emu_frames(&self->t.emu, st.frames > 20 ? st.frames - 20 : 0, f, MAX_FRAMES);
	for (int i = 0; i < n; i++)
		if ((f[i].requests & NB_REQ_CHEST_MODE) &&
		    f[i].chest_mode == NAOBODY_CHEST_LED_MANUAL)
			seen++;
	EXPECT_LE(1, seen);
	EXPECT_EQ(0, nbt_sh("chest-mode -b | grep -qx firmware"));
	EXPECT_EQ(0, nbt_sh("chest-version 3 | grep -q ."));
}

/* harakiri -r: the board resets itself; the driver sees it go and come back. */
TEST_F(chest, harakiri_reset_comes_back)
{
	struct naobody_record rec;
	struct nb_device *d;

	ASSERT_EQ(0, nb_harakiri(self->t.dev, NAOBODY_HARAKIRI_RESET));
	/* It goes (within 3 s), then comes back. */
	nbt_wait_path("/dev/naobody", false, 3000);
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, 5000));
	EXPECT_EQ(-ENODEV, nb_rearm(self->t.dev));
	d = nb_open(NULL, 0);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(1, nb_next(d, &rec, 3000));
	nb_close(d);
}

/*
 * A USB reset from userspace (usbfs): pre_reset quiesces the driver,
 * post_reset starts the board over; the device and its files survive.
 */
TEST_F(chest, usb_reset_starts_the_boards_over)
{
	struct naobody_record rec;
	char path[64];
	int fd, bus, dev;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/busnum", self->t.emu.host_dev);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%d", &bus));
	fclose(f);
	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/devnum", self->t.emu.host_dev);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%d", &dev));
	fclose(f);
	snprintf(path, sizeof(path), "/dev/bus/usb/%03d/%03d", bus, dev);
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, USBDEVFS_RESET, 0));
	close(fd);

	/* The same device: its open file goes on, and the boards come back. */
	nbt_skip_to_newest(self->t.dev);
	EXPECT_EQ(1, nb_next(self->t.dev, &rec, 3000));
	EXPECT_EQ(0, nbt_wait_boards(&self->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, 20000));
	EXPECT_EQ(0, nb_refresh_info(self->t.dev));
}

TEST_HARNESS_MAIN
