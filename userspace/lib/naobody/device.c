// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnaobody's device side: the file, the mapped ring and the ioctls.
 */
#include <naobody/naobody.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct nb_device {
	int fd;
	int wait_fd;			/* epoll: the device, edge-triggered */
	bool gone;			/* the device said EPOLLHUP */
	const struct naobody_ring_header *hdr;
	size_t map_len;
	uint64_t cursor;		/* the next record nb_next() returns */
	uint64_t lost;
	struct naobody_info info;
	struct nb_calibration cal;
	bool cal_final;			/* cal is what the block holds, or all it will */
	uint32_t cal_state;		/* enum naobody_calibration, as cal has it */
	uint64_t cal_retry_ns;		/* no new read before this */
};

static int ioctl_errno(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/* The ring's protocol, reader side (see <linux/naobody.h>). */
static uint64_t ring_head(const struct nb_device *d)
{
	return __atomic_load_n(&d->hdr->head, __ATOMIC_ACQUIRE);
}

static const struct naobody_record *ring_slot(const struct nb_device *d, uint64_t n)
{
	const char *base = (const char *)d->hdr;

	return (const void *)(base + d->hdr->records_offset +
			      (n & (d->hdr->record_count - 1)) * d->hdr->record_size);
}

/* Copy record n; -ESTALE if it was overwritten before or during the copy. */
static int ring_read(const struct nb_device *d, uint64_t n, struct naobody_record *out)
{
	const struct naobody_record *slot = ring_slot(d, n);
	uint64_t want = 2 * n + 2;

	if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) != want)
		return -ESTALE;
	memcpy(out, slot, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&slot->seq, __ATOMIC_RELAXED) != want)
		return -ESTALE;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The calibration from the preference block. The driver reads the block
 * during its start-up, a couple of seconds after the device appears, and
 * again while the cycle runs if that failed (naobody_info.calibration).
 * Until the driver has it, the defaults apply and the driver's state is
 * asked again at most once a second. A block the driver gave up on
 * (NAOBODY_CALIB_FAILED), or one that doesn't parse here, is final: the
 * defaults stay, and nb_calibration_state() says so.
 */
static void refresh_calibration(struct nb_device *d)
{
	uint32_t flags = 0;
	uint64_t now;
	void *block;
	int n;

	if (d->cal_final)
		return;
	now = now_ns();
	if (now < d->cal_retry_ns)
		return;
	d->cal_retry_ns = now + 1000000000ull;
	if (nb_refresh_info(d))
		return;
	/* A driver without the field: its block is there once GET_PREFS has it. */
	if (d->info.size < offsetof(struct naobody_info, calibration) + sizeof(d->info.calibration))
		d->cal_state = NAOBODY_CALIB_READ;
	else
		d->cal_state = d->info.calibration;
	if (d->cal_state == NAOBODY_CALIB_FAILED) {
		d->cal_final = true;
		return;
	}
	if (d->cal_state != NAOBODY_CALIB_READ)
		return;
	block = malloc(NAOBODY_PREFS_SIZE);
	if (!block)
		return;
	n = nb_prefs(d, block, NAOBODY_PREFS_SIZE, &flags);
	if (n > 0) {
		d->cal_final = true;
		if (!(flags & NAOBODY_PREFS_VALID) ||
		    nb_prefs_parse(block, NAOBODY_PREFS_SIZE, &d->cal) < 0) {
			nb_calibration_init(&d->cal);
			d->cal_state = NAOBODY_CALIB_FAILED;
		}
	} else if (n == -ENODATA) {
		d->cal_state = NAOBODY_CALIB_PENDING;	/* (such an older driver's) */
	} else {
		d->cal_final = true;	/* an error that won't go away */
		d->cal_state = NAOBODY_CALIB_FAILED;
	}
	free(block);
}

struct nb_device *nb_open(const char *path, unsigned int flags)
{
	struct nb_device *d;
	void *map;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	int err;

	if (flags & ~NB_OPEN_CONTROL) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->wait_fd = -1;
	d->fd = open(path ? path : NB_DEFAULT_DEVICE,
		     O_CLOEXEC | ((flags & NB_OPEN_CONTROL) ? O_RDWR : O_RDONLY));
	if (d->fd < 0)
		goto err_free;
	if (flags & NB_OPEN_CONTROL) {
		err = ioctl_errno(d->fd, NAOBODY_IOC_CLAIM, NULL);
		if (err)
			goto err_close;
	}
	err = ioctl_errno(d->fd, NAOBODY_IOC_GET_INFO, &d->info);
	if (err)
		goto err_close;
	if (d->info.abi_version != NAOBODY_ABI_VERSION) {
		err = -EPROTO;
		goto err_close;
	}
	map = mmap(NULL, d->info.ring_size, PROT_READ, MAP_SHARED, d->fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		goto err_close;
	}
	d->hdr = map;
	d->map_len = d->info.ring_size;
	/* Only a ring that fits its mapping is followed. */
	if (d->hdr->magic != NAOBODY_RING_MAGIC ||
	    d->hdr->record_size < sizeof(struct naobody_record) ||
	    !d->hdr->record_count ||
	    (d->hdr->record_count & (d->hdr->record_count - 1)) ||
	    d->hdr->records_offset < sizeof(*d->hdr) ||
	    d->hdr->records_offset + (uint64_t)d->hdr->record_count * d->hdr->record_size >
	    d->map_len) {
		err = -EPROTO;
		goto err_unmap;
	}
	/*
	 * The driver wakes the device's waiters once per record it publishes,
	 * and its poll() stays readable until this file read()s. Edge-triggered,
	 * each wake-up is one event, taken once: nothing needs reading to
	 * rearm it.
	 */
	d->wait_fd = epoll_create1(EPOLL_CLOEXEC);
	if (d->wait_fd < 0 || epoll_ctl(d->wait_fd, EPOLL_CTL_ADD, d->fd, &ev)) {
		err = -errno;
		goto err_unmap;
	}
	d->cursor = ring_head(d);
	if (d->cursor)
		d->cursor--;	/* start at the newest record */
	nb_calibration_init(&d->cal);
	refresh_calibration(d);
	return d;

err_unmap:
	if (d->wait_fd >= 0)
		close(d->wait_fd);
	munmap((void *)d->hdr, d->map_len);
err_close:
	close(d->fd);
	errno = -err;
err_free:
	err = errno;
	free(d);
	errno = err;
	return NULL;
}

void nb_close(struct nb_device *d)
{
	if (!d)
		return;
	close(d->wait_fd);
	munmap((void *)d->hdr, d->map_len);
	close(d->fd);
	free(d);
}

int nb_fd(const struct nb_device *d)
{
	return d->fd;
}

int nb_wait_fd(const struct nb_device *d)
{
	return d->wait_fd;
}

const struct naobody_info *nb_info(const struct nb_device *d)
{
	return &d->info;
}

const struct nb_calibration *nb_calibration(struct nb_device *d)
{
	refresh_calibration(d);
	return &d->cal;
}

enum naobody_calibration nb_calibration_state(struct nb_device *d)
{
	refresh_calibration(d);
	return (enum naobody_calibration)d->cal_state;
}

uint64_t nb_lost(const struct nb_device *d)
{
	return d->lost;
}

static bool gone(const struct nb_device *d)
{
	return d->gone ||
	       (__atomic_load_n(&d->hdr->flags, __ATOMIC_RELAXED) & NAOBODY_RING_DISCONNECTED);
}

/*
 * The driver's next wake-up since the last one taken (wait_fd, above):
 * 1 when it came, 0 after timeout_ms (-1: none), or -errno. Whoever calls
 * this looks at the ring's head after it: a record published after the
 * wake-up taken here wakes wait_fd again, one published before is in the
 * head, so none is missed.
 */
static int take_wake(struct nb_device *d, int timeout_ms)
{
	struct epoll_event ev;
	int n;

	do {
		n = epoll_wait(d->wait_fd, &ev, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n && (ev.events & (EPOLLHUP | EPOLLERR)))
		d->gone = true;
	return n;
}

int nb_next(struct nb_device *d, struct naobody_record *rec, int timeout_ms)
{
	uint64_t count = d->hdr->record_count;
	uint64_t end = timeout_ms > 0 ? now_ns() + (uint64_t)timeout_ms * 1000000ull : 0;
	int ret, wait = timeout_ms;

	for (;;) {
		uint64_t head = ring_head(d);

		if (d->cursor >= head) {
			if (gone(d))
				return -ENODEV;
			ret = take_wake(d, wait);
			if (ret <= 0)
				return ret;
			/* A wake-up for a record already read: wait out what is left. */
			if (end) {
				uint64_t now = now_ns();

				wait = now < end ? (int)((end - now + 999999) / 1000000) : 0;
			}
			continue;
		}
		if (head - d->cursor > count) {
			d->lost += head - d->cursor - count;
			d->cursor = head - count;
		}
		ret = ring_read(d, d->cursor, rec);
		d->cursor++;
		if (!ret)
			return 1;
		d->lost++;	/* overwritten while we looked */
	}
}

int nb_newest(struct nb_device *d, struct naobody_record *rec)
{
	/* The wake-up first, then the head (take_wake()). */
	int ret = take_wake(d, 0);

	if (ret < 0)
		return ret;
	for (int tries = 0; tries < 8; tries++) {
		uint64_t head = ring_head(d);

		if (d->cursor >= head)
			return gone(d) ? -ENODEV : 0;
		if (!ring_read(d, head - 1, rec)) {
			d->cursor = head;
			return 1;
		}
	}
	/* Lapped eight times over while copying: the next record wakes it again. */
	return 0;
}

int nb_latest(struct nb_device *d, struct naobody_record *rec)
{
	for (int tries = 0; tries < 8; tries++) {
		uint64_t head = ring_head(d);

		if (!head)
			return -EAGAIN;
		if (!ring_read(d, head - 1, rec))
			return 0;
	}
	return -EAGAIN;
}

void nb_record_sensors(struct nb_device *d, const struct naobody_record *rec,
		       struct nb_sensors *out)
{
	refresh_calibration(d);
	nb_sensors_from_counts(out, &rec->sensors, &rec->commanded, &d->cal);
}

int nb_claim(struct nb_device *d)
{
	return ioctl_errno(d->fd, NAOBODY_IOC_CLAIM, NULL);
}

int nb_release(struct nb_device *d)
{
	return ioctl_errno(d->fd, NAOBODY_IOC_RELEASE, NULL);
}

int nb_command_counts(struct nb_device *d, const struct naobody_actuators *a, uint32_t set)
{
	struct naobody_command cmd = {
		.size = sizeof(cmd),
		.flags = set,
		.set = *a,
	};
	ssize_t n = write(d->fd, &cmd, sizeof(cmd));

	if (n < 0)
		return -errno;
	return n == sizeof(cmd) ? 0 : -EIO;
}

int nb_command(struct nb_device *d, const struct nb_actuators *a, uint32_t set)
{
	struct naobody_actuators counts;

	refresh_calibration(d);
	nb_actuators_to_counts(&counts, a, &d->cal);
	return nb_command_counts(d, &counts, set);
}

int nb_stop(struct nb_device *d, uint32_t reason)
{
	struct naobody_stop stop = { .reason = reason };

	return ioctl_errno(d->fd, NAOBODY_IOC_STOP, &stop);
}

int nb_rearm(struct nb_device *d)
{
	return ioctl_errno(d->fd, NAOBODY_IOC_REARM, NULL);
}

int nb_refresh_info(struct nb_device *d)
{
	return ioctl_errno(d->fd, NAOBODY_IOC_GET_INFO, &d->info);
}

int nb_boards(struct nb_device *d, struct naobody_board *out, unsigned int max)
{
	struct naobody_boards b = {
		.entries = (uintptr_t)out,
		.count = max,
		.entry_size = sizeof(*out),
	};
	int err = ioctl_errno(d->fd, NAOBODY_IOC_GET_BOARDS, &b);

	return err ? err : (int)b.count;
}

int nb_chest_id(struct nb_device *d, unsigned int slot, char out[NAOBODY_CHEST_ID_LEN + 1])
{
	struct naobody_chest_id id = { .slot = slot };
	int err = ioctl_errno(d->fd, NAOBODY_IOC_GET_CHEST_ID, &id);

	if (err)
		return err;
	memcpy(out, id.id, NAOBODY_CHEST_ID_LEN);
	out[NAOBODY_CHEST_ID_LEN] = '\0';
	return 0;
}

int nb_chest_mode(struct nb_device *d, uint32_t op, uint32_t *result)
{
	struct naobody_chest_mode m = { .op = op };
	int err = ioctl_errno(d->fd, NAOBODY_IOC_CHEST_MODE, &m);

	if (!err && result)
		*result = m.result;
	return err;
}

int nb_harakiri(struct nb_device *d, uint32_t op)
{
	struct naobody_harakiri h = { .op = op };

	return ioctl_errno(d->fd, NAOBODY_IOC_HARAKIRI, &h);
}

int nb_prefs(struct nb_device *d, void *buf, size_t len, uint32_t *flags)
{
	struct naobody_prefs p = {
		.data = (uintptr_t)buf,
		.size = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len,
	};
	int err = ioctl_errno(d->fd, NAOBODY_IOC_GET_PREFS, &p);

	if (err)
		return err;
	if (flags)
		*flags = p.flags;
	return (int)p.size;
}

int nb_wait_ready(struct nb_device *d, int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
	const struct timespec tick = { 0, 50 * 1000000L };
	int err;

	for (;;) {
		err = nb_refresh_info(d);
		if (err)
			return err;
		if (d->info.flags & NAOBODY_INFO_READY)
			return 1;
		if (now_ns() >= end)
			return 0;
		nanosleep(&tick, NULL);
	}
}
