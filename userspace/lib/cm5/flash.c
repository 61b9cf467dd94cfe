// SPDX-License-Identifier: GPL-2.0-only
/*
 * Flashing the CM-5 through its bootloader, as BRBrain.flashCM5() does:
 * 57,600 baud; '#' every 50 ms until the banner; "l" to load at address 0;
 * the binary; "up 0, <hex length>" and, after START, the image read back to
 * verify; then MODE, and a 0xFF from the user code.
 *
 * The bootloader's side of this is known only from BRBrain's host code, not
 * from a bootloader manual: Documentation/n_robot.rst lists it as
 * provisional.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cm5/cm5.h>

#define FLASH_TIMEOUT_MS	10000

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void say(const struct cm5_flash_ops *ops, size_t done, size_t total,
		const char *what)
{
	if (ops && ops->progress)
		ops->progress(ops->ctx, done, total, what);
}

/* One byte within ms, or -ETIMEDOUT. */
static int get_byte(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint8_t b;
	int r;

	r = poll(&p, 1, ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	r = read(fd, &b, 1);
	if (r < 0)
		return -errno;
	return r ? b : -EIO;
}

static void drain(int fd)
{
	while (get_byte(fd, 0) >= 0)
		;
}

static int put(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;
	ssize_t n;

	while (len) {
		n = write(fd, b, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += n;
		len -= n;
	}
	return 0;
}

static int wait_banner(int fd)
{
	const char *msg = CM5_BOOTLOADER_MSG;
	size_t matched = 0, len = strlen(msg);
	int64_t deadline = nr_now_ms() + FLASH_TIMEOUT_MS;
	int b, err;

	while (matched < len) {
		if (nr_now_ms() > deadline)
			return -ETIMEDOUT;
		if (!matched) {
			err = put(fd, "#", 1);
			if (err)
				return err;
			sleep_ms(50);	/* "important", says BRBrain */
		}
		b = get_byte(fd, matched ? 1000 : 0);
		if (b == -ETIMEDOUT) {
			matched = 0;
			continue;
		}
		if (b < 0)
			return b;
		if (b == msg[matched])
			matched++;
		else
			matched = b == msg[0];
	}
	return 0;
}

ssize_t cm5_flash(const char *path, const uint8_t *image, size_t len,
		  const struct cm5_flash_ops *ops, int step_ms)
{
	struct termios t, saved;
	char cmd[64];
	size_t i, chunk, bad = len;
	int fd, b, err;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (tcgetattr(fd, &saved)) {
		err = -errno;
		goto out_close;
	}
	t = saved;
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	cfsetispeed(&t, B57600);
	cfsetospeed(&t, B57600);
	if (tcsetattr(fd, TCSANOW, &t)) {
		err = -errno;
		goto out_close;
	}
	say(ops, 0, len, "waiting for CM-5 reset, press MODE");
	drain(fd);
	err = wait_banner(fd);
	if (err)
		goto out;
	sleep_ms(step_ms);
	drain(fd);
	err = put(fd, "\nl\n", 3);
	if (err)
		goto out;
	sleep_ms(step_ms);
	drain(fd);
	for (i = 0; i < len; i += chunk) {
		chunk = len - i < 100 ? len - i : 100;
		err = put(fd, image + i, chunk);
		if (err)
			goto out;
		say(ops, i + chunk, len, "flashing");
	}
	tcdrain(fd);
	sleep_ms(step_ms);
	drain(fd);
	snprintf(cmd, sizeof(cmd), "\nup 0, %zx\n", len);
	err = put(fd, cmd, strlen(cmd));
	if (err)
		goto out;
	sleep_ms(step_ms);
	drain(fd);
	say(ops, 0, len, "press START to verify");
	for (i = 0; i < len; i++) {
		b = get_byte(fd, FLASH_TIMEOUT_MS);
		if (b < 0) {
			err = b;
			goto out;
		}
		if (bad == len && (uint8_t)b != image[i])
			bad = i;
		if ((i + 1) % 100 == 0 || i + 1 == len)
			say(ops, i + 1, len, "verifying");
	}
	sleep_ms(step_ms);
	drain(fd);
	say(ops, len, len, "waiting for CM-5 reset, press MODE");
	b = get_byte(fd, FLASH_TIMEOUT_MS);
	if (b == 0xFF)
		say(ops, len, len, "detected CM-5 reset to user code");
	else
		say(ops, len, len, "no reset to user code seen (not fatal)");
	err = bad == len ? 0 : -EILSEQ;
out:
	tcsetattr(fd, TCSADRAIN, &saved);
out_close:
	close(fd);
	return err ? err : (ssize_t)len;
}
