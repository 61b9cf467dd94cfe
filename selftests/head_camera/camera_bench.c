// SPDX-License-Identifier: GPL-2.0-only
/*
 * make bench: the CPU one 30 fps 640x480 camera stream costs naobodyd, on
 * synthetic YUYV frames through the daemon's own code (camera_jpeg.c):
 *   - YUYV to JPEG (split into planes, compressed at 4:2:2), and
 *   - MJPEG passed through (checked, then copied into the hand-over slot,
 *     as head_camera.c does),
 * each as a ratio to libturbojpeg's own tjCompress2 of the same frames
 * (from RGB, at 4:2:2, the same quality and flags), measured in this run.
 * Frames: a gradient that moves, with texture, so the entropy coder has
 * real work. Figures only: it never fails on time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <turbojpeg.h>

#include "head/camera_jpeg.h"

#define W	640
#define H	480
#define FRAMES	30
#define ROUNDS	4
#define QUALITY	80

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint8_t clamp(int v)
{
	return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
}

int main(void)
{
	static uint8_t yuyv[FRAMES][W * H * 2], rgb[FRAMES][W * H * 3];
	static uint8_t *mjpeg[FRAMES], slot[W * H * 3];
	static unsigned long mjpeg_len[FRAMES];
	struct camera_jpeg j;
	tjhandle tj = tjInitCompress();
	double t0, ours, theirs, pass;
	size_t bytes = 0;
	unsigned int seed = 1;

	for (int f = 0; f < FRAMES; f++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x += 2) {
				uint8_t *p = &yuyv[f][(y * W + x) * 2];
				int n = (int)(rand_r(&seed) % 24);

				p[0] = clamp((x + 4 * f) / 3 + ((x / 16 + y / 16) & 1) * 40 + n);
				p[1] = clamp(128 + (y - H / 2) / 4 + f);
				p[2] = clamp((x + 1 + 4 * f) / 3 + ((x / 16 + y / 16) & 1) * 40 + n);
				p[3] = clamp(128 + (x - W / 2) / 6 - f);
			}
	/* The same frames as RGB for tjCompress2 (BT.601), outside the timing. */
	for (int f = 0; f < FRAMES; f++)
		for (int i = 0; i < W * H; i++) {
			const uint8_t *p = &yuyv[f][(i & ~1) * 2];
			int yy = p[(i & 1) * 2] - 16, u = p[1] - 128, v = p[3] - 128;

			rgb[f][i * 3] = clamp((298 * yy + 409 * v + 128) >> 8);
			rgb[f][i * 3 + 1] = clamp((298 * yy - 100 * u - 208 * v + 128) >> 8);
			rgb[f][i * 3 + 2] = clamp((298 * yy + 516 * u + 128) >> 8);
		}
	if (!tj || camera_jpeg_init(&j, W, H, QUALITY)) {
		fprintf(stderr, "nb-camera-bench: cannot set up libturbojpeg\n");
		return 1;
	}

	t0 = cpu_s();
	for (int r = 0; r < ROUNDS; r++)
		for (int f = 0; f < FRAMES; f++) {
			const uint8_t *out;
			size_t len;

			if (camera_jpeg_yuyv(&j, yuyv[f], sizeof(yuyv[f]), W * 2, &out, &len))
				return 1;
			bytes += len;
		}
	ours = (cpu_s() - t0) / (ROUNDS * FRAMES);

	t0 = cpu_s();
	for (int r = 0; r < ROUNDS; r++)
		for (int f = 0; f < FRAMES; f++) {
			tjFree(mjpeg[f]);
			mjpeg[f] = NULL;
			if (tjCompress2(tj, rgb[f], W, 0, H, TJPF_RGB, &mjpeg[f], &mjpeg_len[f],
					TJSAMP_422, QUALITY, TJFLAG_FASTDCT))
				return 1;
		}
	theirs = (cpu_s() - t0) / (ROUNDS * FRAMES);

	/* MJPEG: tjCompress2's JPEGs stand for the device's frames. */
	t0 = cpu_s();
	for (int r = 0; r < ROUNDS * 10; r++)
		for (int f = 0; f < FRAMES; f++) {
			size_t len = camera_mjpeg_len(mjpeg[f], mjpeg_len[f]);

			memcpy(slot, mjpeg[f], len);
		}
	pass = (cpu_s() - t0) / (ROUNDS * 10 * FRAMES);

	printf("camera: %dx%d, %d synthetic frames x %d, quality %d, %zu bytes per JPEG\n",
	       W, H, FRAMES, ROUNDS, QUALITY, bytes / (ROUNDS * FRAMES));
	printf("camera: tjCompress2 from RGB %.2f ms per frame: %.1f %% of a core at 30 fps\n",
	       theirs * 1e3, theirs * 30 * 100);
	printf("camera: YUYV to JPEG (naobodyd) %.2f ms per frame: %.1f %% of a core at 30 fps, %.2f x tjCompress2\n",
	       ours * 1e3, ours * 30 * 100, ours / theirs);
	printf("camera: MJPEG passed through %.1f us per frame: %.2f %% of a core at 30 fps, %.4f x tjCompress2\n",
	       pass * 1e6, pass * 30 * 100, pass / theirs);
	for (int f = 0; f < FRAMES; f++)
		tjFree(mjpeg[f]);
	camera_jpeg_free(&j);
	tjDestroy(tj);
	return 0;
}
