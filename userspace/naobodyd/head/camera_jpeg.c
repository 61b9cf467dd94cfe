// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd: camera frames to JPEG (see camera_jpeg.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <turbojpeg.h>

#include "camera_jpeg.h"

int camera_jpeg_init(struct camera_jpeg *j, uint32_t width, uint32_t height, int quality)
{
	unsigned long cap;

	memset(j, 0, sizeof(*j));
	if (!width || !height || width & 1 || width > 8192 || height > 8192)
		return -EINVAL;
	cap = tjBufSize((int)width, (int)height, TJSAMP_422);
	if (cap == (unsigned long)-1)
		return -EINVAL;
	j->tj = tjInitCompress();
	j->planes = malloc((size_t)width * height * 2);
	j->out = tjAlloc((int)cap);
	if (!j->tj || !j->planes || !j->out) {
		camera_jpeg_free(j);
		return -ENOMEM;
	}
	j->out_cap = cap;
	j->width = width;
	j->height = height;
	j->quality = quality;
	return 0;
}

void camera_jpeg_free(struct camera_jpeg *j)
{
	if (j->tj)
		tjDestroy(j->tj);
	tjFree(j->out);
	free(j->planes);
	memset(j, 0, sizeof(*j));
}

int camera_jpeg_yuyv(struct camera_jpeg *j, const uint8_t *frame, size_t len,
		     uint32_t bytesperline, const uint8_t **jpeg, size_t *jpeg_len)
{
	uint32_t w = j->width, h = j->height, cw = w / 2;
	uint8_t *y = j->planes, *u = y + (size_t)w * h, *v = u + (size_t)cw * h;
	const unsigned char *planes[3] = { y, u, v };
	int strides[3] = { (int)w, (int)cw, (int)cw };
	unsigned char *out = j->out;
	unsigned long out_len = j->out_cap;

	if (bytesperline < w * 2 || len < (size_t)bytesperline * (h - 1) + w * 2)
		return -EINVAL;
	/* Y0 U Y1 V: the planes 4:2:2 wants, row by row. */
	for (uint32_t r = 0; r < h; r++) {
		const uint8_t *p = frame + (size_t)r * bytesperline;

		for (uint32_t c = 0; c < cw; c++, p += 4) {
			*y++ = p[0];
			*u++ = p[1];
			*y++ = p[2];
			*v++ = p[3];
		}
	}
	if (tjCompressFromYUVPlanes(j->tj, planes, (int)w, strides, (int)h, TJSAMP_422, &out,
				    &out_len, j->quality, TJFLAG_NOREALLOC | TJFLAG_FASTDCT))
		return -EIO;
	*jpeg = out;
	*jpeg_len = out_len;
	return 0;
}

size_t camera_mjpeg_len(const uint8_t *frame, size_t len)
{
	if (len < 4 || frame[0] != 0xff || frame[1] != 0xd8)
		return 0;
	/* Devices pad their buffers: cut at the last EOI (0xff 0xd9). */
	for (size_t i = len - 2; i >= 2; i--)
		if (frame[i] == 0xff && frame[i + 1] == 0xd9)
			return i + 2;
	return len;
}
