// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd's camera path on the host: the capture time's conversion, the
 * throttle, and YUYV to JPEG, decoded again by libturbojpeg's decoder.
 */
#include <stdlib.h>
#include <string.h>

#include <turbojpeg.h>

#include "kselftest_harness.h"
#include "head/camera_jpeg.h"
#include "head/head_camera.h"

#define MS	NSEC_PER_MSEC

TEST(buffer_time)
{
	uint64_t now = 1000 * NSEC_PER_SEC;

	/* Monotonic stamps are taken as they are. */
	EXPECT_EQ(999 * NSEC_PER_SEC + 250000 * 1000ULL,
		  camera_buffer_mono_ns(1, 999, 250000, now));
	/* Another clock, no stamp, or one from the future: the dequeue time. */
	EXPECT_EQ(now, camera_buffer_mono_ns(0, 999, 0, now));
	EXPECT_EQ(now, camera_buffer_mono_ns(1, 0, 0, now));
	EXPECT_EQ(now, camera_buffer_mono_ns(1, 1001, 0, now));
}

TEST(epoch)
{
	/* 40 ms before now on the monotonic clock is 40 ms before now in the epoch. */
	uint64_t mono_now = 5000 * NSEC_PER_SEC, real_now = 1700000000ULL * NSEC_PER_SEC;
	double t = camera_epoch(mono_now - 40 * MS, mono_now, real_now);

	EXPECT_GT(t, 1700000000.0 - 0.0401);
	EXPECT_LT(t, 1700000000.0 - 0.0399);
}

/* Frames of a device at period_ns, with jitter; how many of n the throttle lets through. */
static int passed(float fps, uint64_t period_ns, int n, uint64_t jitter_ns)
{
	struct camera_throttle t = { 0 };
	int got = 0;

	for (int i = 0; i < n; i++) {
		uint64_t ts = 1000 * NSEC_PER_SEC + (uint64_t)i * period_ns +
			      (i % 2 ? jitter_ns : 0);

		got += camera_throttle_due(&t, fps, ts);
	}
	return got;
}

TEST(throttle)
{
	uint64_t p30 = NSEC_PER_SEC / 30;

	/* 30 fps asked 10: every third frame, with or without jitter. */
	EXPECT_EQ(30, passed(10.0f, p30, 90, 0));
	EXPECT_EQ(30, passed(10.0f, p30, 90, 2 * MS));
	/* Asked at the device's rate, or above it, or "every frame": all. */
	EXPECT_EQ(90, passed(30.0f, p30, 90, 2 * MS));
	EXPECT_EQ(90, passed(60.0f, p30, 90, 0));
	EXPECT_EQ(90, passed(-1.0f, p30, 90, 0));
	/* 15 of 30: every other. */
	EXPECT_EQ(45, passed(15.0f, p30, 90, 1 * MS));
}

TEST(throttle_no_burst)
{
	struct camera_throttle t = { 0 };

	ASSERT_TRUE(camera_throttle_due(&t, 10.0f, 1000 * MS));
	/* A second's gap, then frames 33 ms apart: one goes, then the rate again. */
	ASSERT_TRUE(camera_throttle_due(&t, 10.0f, 2000 * MS));
	EXPECT_FALSE(camera_throttle_due(&t, 10.0f, 2033 * MS));
	EXPECT_FALSE(camera_throttle_due(&t, 10.0f, 2066 * MS));
	EXPECT_TRUE(camera_throttle_due(&t, 10.0f, 2100 * MS));
}

/* YUYV colour bars: Y, U, V of full-range-ish white, red, green, blue. */
static const uint8_t bars[4][3] = {
	{ 235, 128, 128 }, { 81, 90, 240 }, { 145, 54, 34 }, { 41, 240, 110 },
};

TEST(yuyv_to_jpeg)
{
	enum { W = 64, H = 32, PITCH = W * 2 + 16 };
	static uint8_t frame[PITCH * H];
	struct camera_jpeg j;
	const uint8_t *jpeg;
	size_t len;
	int w, h, sub, cs;
	static uint8_t rgb[W * H * 3];
	tjhandle d;

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x += 2) {
			const uint8_t *c = bars[x * 4 / W];
			uint8_t *p = frame + y * PITCH + x * 2;

			p[0] = c[0];
			p[1] = c[1];
			p[2] = c[0];
			p[3] = c[2];
		}
	ASSERT_EQ(-EINVAL, camera_jpeg_init(&j, 63, 32, 80));
	ASSERT_EQ(0, camera_jpeg_init(&j, W, H, 90));
	EXPECT_EQ(-EINVAL, camera_jpeg_yuyv(&j, frame, sizeof(frame) - 1 - 16, PITCH, &jpeg, &len));
	ASSERT_EQ(0, camera_jpeg_yuyv(&j, frame, sizeof(frame), PITCH, &jpeg, &len));
	EXPECT_EQ(len, camera_mjpeg_len(jpeg, len));

	d = tjInitDecompress();
	ASSERT_EQ(0, tjDecompressHeader3(d, jpeg, len, &w, &h, &sub, &cs));
	EXPECT_EQ(W, w);
	EXPECT_EQ(H, h);
	EXPECT_EQ(TJSAMP_422, sub);
	ASSERT_EQ(0, tjDecompress2(d, jpeg, len, rgb, W, 0, H, TJPF_RGB, 0));
	tjDestroy(d);
	/* Each bar's centre: white, red, green, blue. */
	for (int b = 0; b < 4; b++) {
		const uint8_t *p = rgb + ((H / 2) * W + b * W / 4 + W / 8) * 3;
		int hi = (p[0] > 128) << 2 | (p[1] > 128) << 1 | (p[2] > 128);
		static const int want[4] = { 7, 4, 2, 1 };

		EXPECT_EQ(want[b], hi) TH_LOG("bar %d: %u %u %u", b, p[0], p[1], p[2]);
	}
	camera_jpeg_free(&j);
}

TEST(mjpeg_len)
{
	static const uint8_t ok[] = { 0xff, 0xd8, 1, 2, 0xff, 0xd9, 0, 0, 0 };
	static const uint8_t bad[] = { 0xff, 0xd9, 0xff, 0xd8 };
	static const uint8_t no_eoi[] = { 0xff, 0xd8, 1, 2, 3 };

	EXPECT_EQ(6, camera_mjpeg_len(ok, sizeof(ok)));
	EXPECT_EQ(0, camera_mjpeg_len(bad, sizeof(bad)));
	EXPECT_EQ(5, camera_mjpeg_len(no_eoi, sizeof(no_eoi)));
	EXPECT_EQ(0, camera_mjpeg_len(ok, 2));
}

TEST(throttle_late_frame)
{
	struct camera_throttle t = { 0 };

	/* 3 fps: a frame 300 ms late, then one 70 ms after it: held back. */
	ASSERT_TRUE(camera_throttle_due(&t, 3.0f, 1000 * MS));
	ASSERT_TRUE(camera_throttle_due(&t, 3.0f, 1633 * MS));
	EXPECT_FALSE(camera_throttle_due(&t, 3.0f, 1703 * MS));
	EXPECT_FALSE(camera_throttle_due(&t, 3.0f, 1770 * MS));
	EXPECT_TRUE(camera_throttle_due(&t, 3.0f, 1803 * MS));
}

TEST_HARNESS_MAIN
