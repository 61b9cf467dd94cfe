// SPDX-License-Identifier: GPL-2.0-only
/*
 * The emulator, driven by a usbfs host that does what naobody.ko does:
 * enumeration, the start-up requests, the three-step exchange, answers
 * that belong to their cycle, the recording, and the scripted body.
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "common.h"

FIXTURE(emu) {
	struct nb_emu emu;
	struct host h;
};

FIXTURE_SETUP(emu)
{
	ASSERT_EQ(0, nb_gadget_load_modules());
	ASSERT_EQ(0, emu_up(&self->emu, &self->h, NULL));
}

FIXTURE_TEARDOWN(emu)
{
	emu_down(&self->emu, &self->h);
}

TEST_F(emu, acknowledges_and_answers_frames)
{
	struct host_cycle c;
	struct naobody_sensors s;
	struct nb_in_stats st;
	uint8_t buf[NB_FRAME_MAX], v[4];
	uint32_t crc;
	int n;

	ASSERT_EQ(0, host_startup(&self->h, v));
	n = plain_frame(buf, &crc);
	ASSERT_GT(n, 0);
	ASSERT_EQ(0, host_cycle(&self->h, buf, (size_t)n, &c));
	EXPECT_EQ(0, nb_ack_check(c.ackbuf, (size_t)c.ack, crc));
	memset(&s, 0, sizeof(s));
	EXPECT_LT(0, nb_in_frame_decode(c.answer, (size_t)c.in, &s, &st));
	TH_LOG("cycle %llu us, answer %d bytes, acc z %d", (unsigned long long)c.ns / 1000,
	       c.in, s.accelerometer[2]);
}

TEST_HARNESS_MAIN
