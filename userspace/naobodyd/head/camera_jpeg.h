/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: a camera frame to the JPEG the robot API's Image carries.
 *
 * YUYV (packed 4:2:2) is split into its Y, U and V planes and compressed
 * from them by libjpeg-turbo at 4:2:2, so no colour conversion is done at
 * all; an MJPEG frame is checked (it starts with SOI, ends within the
 * buffer) and copied. The camera threads and the benchmark
 * (selftests/head_camera/camera_bench.c) use this file alone.
 */
#ifndef NAOBODYD_CAMERA_JPEG_H
#define NAOBODYD_CAMERA_JPEG_H

#include <stddef.h>
#include <stdint.h>

struct camera_jpeg {
	void *tj;		/* tjhandle */
	uint32_t width, height;
	uint8_t *planes;	/* Y, then U, then V */
	uint8_t *out;		/* the JPEG, tjBufSize() bytes */
	size_t out_cap;
	int quality;
};

/* -errno (-EINVAL: a size YUYV cannot have, odd width; -ENOMEM). */
int camera_jpeg_init(struct camera_jpeg *j, uint32_t width, uint32_t height, int quality);
void camera_jpeg_free(struct camera_jpeg *j);

/*
 * Compress one YUYV frame, bytesperline apart; len is what the device
 * says it filled. On success *jpeg points into j (valid until the next
 * call). -EINVAL when len is short of a frame, -EIO when libjpeg-turbo
 * fails.
 */
int camera_jpeg_yuyv(struct camera_jpeg *j, const uint8_t *frame, size_t len,
		     uint32_t bytesperline, const uint8_t **jpeg, size_t *jpeg_len);

/*
 * The length of the JPEG an MJPEG buffer of len bytes holds (to its EOI,
 * or len when the device pads without one), or 0 when it does not start
 * with SOI.
 */
size_t camera_mjpeg_len(const uint8_t *frame, size_t len);

#endif
