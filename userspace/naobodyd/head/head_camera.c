// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd: the head's cameras over V4L2 (see head_camera.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "camera_jpeg.h"
#include "head_camera.h"
#include "log.h"

#define NBUFS			4
#define BACKOFF_FIRST_MS	250
#define BACKOFF_MAX_MS		5000
#define STALL_MS		3000	/* no frame for this long: lost */

const char *const camera_state_name[] = {
	[CAMERA_IDLE] = "idle",
	[CAMERA_STREAMING] = "streaming",
	[CAMERA_MISSING] = "missing",
	[CAMERA_LOST] = "lost",
	[CAMERA_OFF] = "off",
};

const char *const camera_name[HEAD_CAMERAS] = { "Top", "Bottom" };

struct camera {
	struct head_cameras *hc;
	int id;
	const char *path;
	pthread_t tid;
	bool started;
	int wake_fd;			/* the want changed, or quit */
	_Atomic float want;		/* 0: closed; < 0: every frame */

	/* The thread's own. */
	int fd;
	void *map[NBUFS];
	size_t map_len[NBUFS];
	unsigned int nbufs;
	uint32_t pixfmt, width, height, bytesperline;
	struct camera_jpeg enc;
	struct camera_throttle thr;

	/* Under hc->lock: the newest JPEG, and the status. */
	uint8_t *slot;
	size_t slot_len, slot_cap;
	bool slot_full;
	double slot_time;
	uint32_t slot_width, slot_height;
	struct camera_status st;
};

struct head_cameras {
	struct camera_config cfg;
	pthread_mutex_t lock;
	int ready_fd;			/* to the network thread */
	atomic_bool quit;
	struct camera cam[HEAD_CAMERAS];
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

static void fourcc(uint32_t f, char out[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)(f >> (8 * i));

		out[i] = c >= ' ' && c <= '~' ? c : '?';
	}
	out[4] = '\0';
}

/* A state change, logged once: a camera that stays missing is not a log flood. */
static void set_state(struct camera *c, enum camera_state s, const char *detail)
{
	struct head_cameras *hc = c->hc;
	bool changed;

	pthread_mutex_lock(&hc->lock);
	changed = c->st.state != s || strcmp(c->st.detail, detail);
	c->st.state = s;
	snprintf(c->st.detail, sizeof(c->st.detail), "%s", detail);
	if (s == CAMERA_LOST)
		c->st.lost++;
	pthread_mutex_unlock(&hc->lock);
	if (!changed)
		return;
	if (s == CAMERA_STREAMING || s == CAMERA_IDLE)
		log_info("camera %s (%s): %s%s%s", camera_name[c->id], c->path,
			 camera_state_name[s], *detail ? ": " : "", detail);
	else
		log_warn("camera %s (%s): %s: %s", camera_name[c->id], c->path,
			 camera_state_name[s], detail);
}

static void cam_close(struct camera *c)
{
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

	if (c->fd < 0)
		return;
	xioctl(c->fd, VIDIOC_STREAMOFF, &type);
	for (unsigned int i = 0; i < c->nbufs; i++)
		if (c->map[i] && c->map[i] != MAP_FAILED)
			munmap(c->map[i], c->map_len[i]);
	memset(c->map, 0, sizeof(c->map));
	c->nbufs = 0;
	close(c->fd);
	c->fd = -1;
	camera_jpeg_free(&c->enc);
}

/* The device's formats: MJPEG when it offers it, else YUYV, else 0. */
static uint32_t pick_format(int fd)
{
	struct v4l2_fmtdesc d = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	bool yuyv = false;

	for (d.index = 0; d.index < 64 && !xioctl(fd, VIDIOC_ENUM_FMT, &d); d.index++) {
		if (d.pixelformat == V4L2_PIX_FMT_MJPEG || d.pixelformat == V4L2_PIX_FMT_JPEG)
			return d.pixelformat;
		if (d.pixelformat == V4L2_PIX_FMT_YUYV)
			yuyv = true;
	}
	return yuyv ? V4L2_PIX_FMT_YUYV : 0;
}

/* Open and start streaming; false with why filled in. */
static bool cam_open(struct camera *c, char *why, size_t n)
{
	const struct camera_config *cfg = &c->hc->cfg;
	struct v4l2_capability cap = { 0 };
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_requestbuffers req = {
		.count = NBUFS, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP,
	};
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	char fcc[5];
	uint32_t caps;
	int err;

	c->fd = open(c->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		snprintf(why, n, "open: %s", strerror(errno));
		return false;
	}
	if (xioctl(c->fd, VIDIOC_QUERYCAP, &cap)) {
		snprintf(why, n, "not a V4L2 device (VIDIOC_QUERYCAP: %s)", strerror(errno));
		goto fail;
	}
	caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
	if (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)) {
		snprintf(why, n, "not a single-planar streaming capture device");
		goto fail;
	}
	c->pixfmt = pick_format(c->fd);
	if (!c->pixfmt) {
		snprintf(why, n, "offers neither MJPEG nor YUYV");
		goto fail;
	}
	fmt.fmt.pix.width = cfg->width;
	fmt.fmt.pix.height = cfg->height;
	fmt.fmt.pix.pixelformat = c->pixfmt;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	if (xioctl(c->fd, VIDIOC_S_FMT, &fmt)) {
		snprintf(why, n, "VIDIOC_S_FMT: %s", strerror(errno));
		goto fail;
	}
	/* The device may answer with another size or format: use what it gives, checked. */
	c->pixfmt = fmt.fmt.pix.pixelformat;
	c->width = fmt.fmt.pix.width;
	c->height = fmt.fmt.pix.height;
	c->bytesperline = fmt.fmt.pix.bytesperline;
	fourcc(c->pixfmt, fcc);
	if (c->pixfmt == V4L2_PIX_FMT_YUYV) {
		if (c->bytesperline < c->width * 2)
			c->bytesperline = c->width * 2;
		err = camera_jpeg_init(&c->enc, c->width, c->height, cfg->quality);
		if (err) {
			snprintf(why, n, "cannot compress %ux%u YUYV: %s", c->width, c->height,
				 strerror(-err));
			goto fail;
		}
	} else if (c->pixfmt != V4L2_PIX_FMT_MJPEG && c->pixfmt != V4L2_PIX_FMT_JPEG) {
		snprintf(why, n, "set to %s, neither MJPEG nor YUYV", fcc);
		goto fail;
	}
	if (c->width != cfg->width || c->height != cfg->height)
		log_warn("camera %s (%s): asked for %ux%u, the device gives %ux%u",
			 camera_name[c->id], c->path, cfg->width, cfg->height, c->width, c->height);
	/* The frame rate: a device that cannot set it keeps its own. */
	parm.parm.capture.timeperframe.numerator = 1;
	parm.parm.capture.timeperframe.denominator = cfg->fps;
	xioctl(c->fd, VIDIOC_S_PARM, &parm);

	if (xioctl(c->fd, VIDIOC_REQBUFS, &req) || req.count < 2) {
		snprintf(why, n, "VIDIOC_REQBUFS: %s", req.count < 2 && !errno ?
			 "fewer than 2 buffers" : strerror(errno));
		goto fail;
	}
	c->nbufs = req.count < NBUFS ? req.count : NBUFS;
	for (unsigned int i = 0; i < c->nbufs; i++) {
		struct v4l2_buffer b = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP, .index = i,
		};

		if (xioctl(c->fd, VIDIOC_QUERYBUF, &b)) {
			snprintf(why, n, "VIDIOC_QUERYBUF: %s", strerror(errno));
			goto fail;
		}
		c->map_len[i] = b.length;
		c->map[i] = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
				 b.m.offset);
		if (c->map[i] == MAP_FAILED) {
			snprintf(why, n, "mmap: %s", strerror(errno));
			goto fail;
		}
		if (xioctl(c->fd, VIDIOC_QBUF, &b)) {
			snprintf(why, n, "VIDIOC_QBUF: %s", strerror(errno));
			goto fail;
		}
	}
	if (xioctl(c->fd, VIDIOC_STREAMON, &type)) {
		snprintf(why, n, "VIDIOC_STREAMON: %s", strerror(errno));
		goto fail;
	}
	c->thr.due = 0;
	snprintf(why, n, "%ux%u %s%s, %u buffers", c->width, c->height, fcc,
		 c->pixfmt == V4L2_PIX_FMT_YUYV ? " compressed to JPEG" : " passed through",
		 c->nbufs);
	return true;
fail:
	cam_close(c);
	return false;
}

/* Into the slot, replacing a frame the network thread has not taken. */
static void hand_over(struct camera *c, const uint8_t *jpeg, size_t len, double time)
{
	struct head_cameras *hc = c->hc;
	uint64_t one = 1;

	pthread_mutex_lock(&hc->lock);
	if (len > c->slot_cap) {
		uint8_t *p = realloc(c->slot, len);

		if (!p) {
			pthread_mutex_unlock(&hc->lock);
			return;
		}
		c->slot = p;
		c->slot_cap = len;
	}
	memcpy(c->slot, jpeg, len);
	c->slot_len = len;
	c->slot_time = time;
	c->slot_width = c->width;
	c->slot_height = c->height;
	c->slot_full = true;
	c->st.frames++;
	pthread_mutex_unlock(&hc->lock);
	if (write(hc->ready_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("camera %s: eventfd: %s", camera_name[c->id], strerror(errno));
}

/*
 * One dequeued buffer: throttled, compressed or checked, handed over,
 * queued again. False when the device is gone.
 */
static bool cam_frame(struct camera *c, float want, char *why, size_t n)
{
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
	uint64_t now, ts;
	const uint8_t *jpeg = NULL;
	size_t len = 0;

	if (xioctl(c->fd, VIDIOC_DQBUF, &b)) {
		if (errno == EAGAIN)
			return true;
		snprintf(why, n, "VIDIOC_DQBUF: %s", strerror(errno));
		return false;
	}
	now = mono_ns();
	if (b.index >= c->nbufs || b.bytesused > c->map_len[b.index]) {
		snprintf(why, n, "the device returned buffer %u with %u bytes", b.index,
			 b.bytesused);
		return false;
	}
	ts = camera_buffer_mono_ns((b.flags & V4L2_BUF_FLAG_TIMESTAMP_MASK) ==
				   V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC,
				   (uint64_t)b.timestamp.tv_sec, (uint64_t)b.timestamp.tv_usec, now);
	if (!(b.flags & V4L2_BUF_FLAG_ERROR) && camera_throttle_due(&c->thr, want, ts)) {
		const uint8_t *frame = c->map[b.index];

		if (c->pixfmt == V4L2_PIX_FMT_YUYV) {
			if (camera_jpeg_yuyv(&c->enc, frame, b.bytesused, c->bytesperline, &jpeg,
					     &len))
				jpeg = NULL;
		} else {
			len = camera_mjpeg_len(frame, b.bytesused);
			jpeg = len && len <= CAMERA_MAX_JPEG ? frame : NULL;
		}
		if (jpeg)
			hand_over(c, jpeg, len,
				  camera_epoch(ts, mono_ns(), clock_ns(CLOCK_REALTIME)));
		else
			log_debug("camera %s: a short or broken frame (%u bytes) dropped",
				  camera_name[c->id], b.bytesused);
	}
	if (xioctl(c->fd, VIDIOC_QBUF, &b)) {
		snprintf(why, n, "VIDIOC_QBUF: %s", strerror(errno));
		return false;
	}
	return true;
}

/* Sleep until woken or ms pass (-1: until woken); drains the wake-up. */
static void wait_wake(struct camera *c, int ms)
{
	struct pollfd p = { .fd = c->wake_fd, .events = POLLIN };
	uint64_t v;

	if (poll(&p, 1, ms) > 0 && read(c->wake_fd, &v, sizeof(v)) < 0)
		log_debug("camera %s: wake: %s", camera_name[c->id], strerror(errno));
}

static void *cam_thread(void *arg)
{
	struct camera *c = arg;
	struct head_cameras *hc = c->hc;
	int backoff = BACKOFF_FIRST_MS;
	char why[128];

	while (!atomic_load(&hc->quit)) {
		float want = atomic_load(&c->want);
		struct pollfd p[2];
		int r;

		if (want == 0.0f) {
			if (c->fd >= 0) {
				cam_close(c);
				set_state(c, CAMERA_IDLE, "");
			}
			backoff = BACKOFF_FIRST_MS;
			wait_wake(c, -1);
			continue;
		}
		if (c->fd < 0) {
			if (!cam_open(c, why, sizeof(why))) {
				pthread_mutex_lock(&hc->lock);
				r = c->st.state == CAMERA_LOST;
				pthread_mutex_unlock(&hc->lock);
				/* Lost stays lost until it is back: the reason is in the log. */
				if (!r)
					set_state(c, CAMERA_MISSING, why);
				wait_wake(c, backoff);
				backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
				continue;
			}
			backoff = BACKOFF_FIRST_MS;
			set_state(c, CAMERA_STREAMING, why);
		}
		p[0] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = c->wake_fd, .events = POLLIN };
		r = poll(p, 2, STALL_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (p[1].revents & POLLIN) {
			wait_wake(c, 0);
			continue;
		}
		if (r == 0)
			snprintf(why, sizeof(why), "no frame for %d ms", STALL_MS);
		else if (r < 0)
			snprintf(why, sizeof(why), "poll: %s", strerror(errno));
		else if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL))
			snprintf(why, sizeof(why), "the device went away");
		else if (cam_frame(c, want, why, sizeof(why)))
			continue;
		cam_close(c);
		set_state(c, CAMERA_LOST, why);
		wait_wake(c, backoff);
	}
	cam_close(c);
	return NULL;
}

struct head_cameras *head_cameras_create(const struct camera_config *cfg)
{
	struct head_cameras *hc = calloc(1, sizeof(*hc));
	sigset_t all, old;

	if (!hc)
		return NULL;
	hc->cfg = *cfg;
	pthread_mutex_init(&hc->lock, NULL);
	hc->ready_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (hc->ready_fd < 0) {
		log_err("cameras: eventfd: %s", strerror(errno));
		goto fail;
	}
	for (int i = 0; i < HEAD_CAMERAS; i++) {
		struct camera *c = &hc->cam[i];

		c->hc = hc;
		c->id = i;
		c->fd = -1;
		c->path = cfg->path[i];
		c->wake_fd = -1;
		atomic_init(&c->want, 0.0f);
		snprintf(c->st.path, sizeof(c->st.path), "%s", c->path ? c->path : "");
		if (!c->path) {
			c->st.state = CAMERA_OFF;
			continue;
		}
		c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (c->wake_fd < 0) {
			log_err("cameras: eventfd: %s", strerror(errno));
			goto fail;
		}
		/* Its thread takes no signals: the network thread does. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		c->started = !pthread_create(&c->tid, NULL, cam_thread, c);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!c->started) {
			log_err("cameras: cannot start the %s camera's thread", camera_name[i]);
			goto fail;
		}
	}
	return hc;
fail:
	head_cameras_destroy(hc);
	return NULL;
}

void head_cameras_destroy(struct head_cameras *hc)
{
	if (!hc)
		return;
	atomic_store(&hc->quit, true);
	for (int i = 0; i < HEAD_CAMERAS; i++) {
		struct camera *c = &hc->cam[i];
		uint64_t one = 1;

		if (c->started) {
			if (write(c->wake_fd, &one, sizeof(one)) < 0)
				log_err("cameras: eventfd: %s", strerror(errno));
			pthread_join(c->tid, NULL);
		}
		if (c->wake_fd >= 0)
			close(c->wake_fd);
		free(c->slot);
	}
	if (hc->ready_fd >= 0)
		close(hc->ready_fd);
	pthread_mutex_destroy(&hc->lock);
	free(hc);
}

int head_cameras_fd(const struct head_cameras *hc)
{
	return hc->ready_fd;
}

void head_cameras_want(struct head_cameras *hc, int camera, float fps)
{
	struct camera *c = &hc->cam[camera];
	uint64_t one = 1;

	if (!c->started || atomic_exchange(&c->want, fps) == fps)
		return;
	if (write(c->wake_fd, &one, sizeof(one)) < 0)
		log_err("cameras: eventfd: %s", strerror(errno));
}

bool head_cameras_take(struct head_cameras *hc, int camera, struct buf *jpeg, double *time,
		       uint32_t *width, uint32_t *height)
{
	struct camera *c = &hc->cam[camera];
	bool got = false;

	pthread_mutex_lock(&hc->lock);
	if (c->slot_full && !buf_add(jpeg, c->slot, c->slot_len)) {
		*time = c->slot_time;
		*width = c->slot_width;
		*height = c->slot_height;
		got = true;
	}
	c->slot_full = false;
	pthread_mutex_unlock(&hc->lock);
	return got;
}

void head_cameras_clear_fd(struct head_cameras *hc)
{
	uint64_t v;

	if (read(hc->ready_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		log_warn("cameras: eventfd: %s", strerror(errno));
}

void head_cameras_status(struct head_cameras *hc, int camera, struct camera_status *st)
{
	pthread_mutex_lock(&hc->lock);
	*st = hc->cam[camera].st;
	pthread_mutex_unlock(&hc->lock);
}
