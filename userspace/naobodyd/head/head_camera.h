/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the head's two cameras (Top, Bottom) as V4L2 capture devices.
 *
 * Each camera has a thread of its own (never the body thread, never the
 * network thread): it opens the device while a client wants its frames,
 * streams with mmap'd buffers, passes MJPEG through when the device offers
 * it and else compresses YUYV to JPEG (camera_jpeg.h), throttled to the
 * wanted rate by the buffers' capture times. The newest JPEG of each camera
 * waits in a slot; a newer one replaces it (a slow reader gets fewer,
 * fresher frames) and the eventfd tells the network thread. A camera that
 * is missing, or disappears mid-stream, is logged and retried with backoff
 * (250 ms doubling to 5 s). Documentation/naobodyd.rst, "Cameras".
 */
#ifndef NAOBODYD_HEAD_CAMERA_H
#define NAOBODYD_HEAD_CAMERA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "outq.h"

#define HEAD_CAMERAS		2	/* enum camera (codec.h): Top, Bottom */
#define CAMERA_DEFAULT_TOP	"/dev/video-top"	/* HULKs-OS's udev names */
#define CAMERA_DEFAULT_BOTTOM	"/dev/video-bottom"
#define CAMERA_DEFAULT_WIDTH	640
#define CAMERA_DEFAULT_HEIGHT	480
#define CAMERA_DEFAULT_FPS	30	/* what the device is asked for */
#define CAMERA_MAX_JPEG		(4U << 20)	/* a device's frame, at most */

struct head_cameras;

struct camera_config {
	const char *path[HEAD_CAMERAS];	/* NULL: that camera is off */
	uint32_t width, height;
	uint32_t fps;
	int quality;			/* JPEG quality of compressed YUYV */
};

/* What a camera is doing, for the REST API and the log. */
enum camera_state {
	CAMERA_IDLE,		/* nobody wants its frames: the device is closed */
	CAMERA_STREAMING,
	CAMERA_MISSING,		/* cannot be opened or set up: retried */
	CAMERA_LOST,		/* disappeared mid-stream: retried */
	CAMERA_OFF,		/* no device path */
};

extern const char *const camera_state_name[];
extern const char *const camera_name[HEAD_CAMERAS];

struct camera_status {
	enum camera_state state;
	char path[128];
	char detail[128];	/* the last error, or the format streamed */
	uint64_t frames;	/* JPEGs handed to the network thread */
	uint64_t lost;		/* times it disappeared mid-stream */
};

/* Starts a thread per camera; NULL only when the threads cannot start. */
struct head_cameras *head_cameras_create(const struct camera_config *cfg);
void head_cameras_destroy(struct head_cameras *hc);

/* Readable (an eventfd) when a camera has a new frame. */
int head_cameras_fd(const struct head_cameras *hc);

/* The wanted rate of one camera: 0 closes it, a negative value: every frame. */
void head_cameras_want(struct head_cameras *hc, int camera, float fps);

/*
 * The newest frame of a camera since the last take: its JPEG appended to
 * jpeg (a caller's buffer), time in seconds since the Unix epoch. False
 * when there is none. Clears the eventfd when called for every camera.
 */
bool head_cameras_take(struct head_cameras *hc, int camera, struct buf *jpeg,
		       double *time, uint32_t *width, uint32_t *height);
void head_cameras_clear_fd(struct head_cameras *hc);

void head_cameras_status(struct head_cameras *hc, int camera, struct camera_status *st);

/*
 * The pure parts, here for the unit test.
 *
 * A buffer's capture time as CLOCK_MONOTONIC ns: V4L2 stamps buffers on
 * CLOCK_MONOTONIC when it says so (V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC);
 * any other source (copied from an output, unknown) or a zero stamp is
 * replaced by the time the buffer was dequeued.
 */
static inline uint64_t camera_buffer_mono_ns(uint32_t ts_flags_monotonic, uint64_t tv_sec,
					     uint64_t tv_usec, uint64_t dequeued_ns)
{
	uint64_t t = tv_sec * NSEC_PER_SEC + tv_usec * 1000ULL;

	if (!ts_flags_monotonic || !t || t > dequeued_ns)
		return dequeued_ns;
	return t;
}

/* CLOCK_MONOTONIC ns to seconds since the Unix epoch, given both clocks now. */
static inline double camera_epoch(uint64_t mono, uint64_t mono_now, uint64_t real_now)
{
	return ((double)real_now - (double)(mono_now - mono)) / 1e9;
}

/*
 * The throttle: a frame goes when its capture time reaches the next due
 * time, which then moves one period on, so the rate holds on average. Two
 * rules bound it: after a gap of more than a period the due time starts
 * again from the frame (no burst to catch up), and after a late frame the
 * next is at least half a period later (no pair of frames a few ms apart).
 * A little slack (5 ms) keeps a 30 fps camera asked for 15 fps from
 * sending every third frame when the capture times jitter.
 */
struct camera_throttle {
	uint64_t due;		/* 0: the next frame goes */
};

#define CAMERA_THROTTLE_SLACK_NS	(5ULL * NSEC_PER_MSEC)

static inline bool camera_throttle_due(struct camera_throttle *t, float fps, uint64_t ts)
{
	uint64_t period;

	if (!(fps > 0.0f)) {
		t->due = 0;
		return true;	/* every frame */
	}
	period = (uint64_t)(1e9 / (double)fps);
	if (t->due && ts + CAMERA_THROTTLE_SLACK_NS < t->due)
		return false;
	if (!t->due || ts >= t->due + period)
		t->due = ts + period;
	else if (t->due + period < ts + period / 2)
		t->due = ts + period / 2;
	else
		t->due += period;
	return true;
}

#endif
