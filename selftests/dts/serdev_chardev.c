// SPDX-License-Identifier: GPL-2.0-only
/*
 * The serdev device node's character interface, where it must be the line
 * discipline's (uapi/linux/n_robot.h), against a PAROL6 node whose other
 * end is parol6-emu (which answers each command with telemetry): run in the
 * arm64 VM by arm64-guest.sh. Prints one RESULT line per check. The command
 * is built here from the wire format, byte by byte: Idle (255) at zero
 * speed, which moves nothing.
 *
 *   serdev_chardev /dev/n_robot0
 *   serdev_chardev --unbind /dev/n_robot0 UNBIND-FILE SERDEV-NAME
 *       the device goes away under an open file: a sleeping reader wakes
 *       with 0 (end of file), then write() fails with EIO and poll()
 *       reports POLLHUP; the file still closes cleanly.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <linux/n_robot.h>

static int failed;

static void result(int ok, const char *what, const char *why)
{
	printf("RESULT %s arm64/parol6: chardev: %s%s%s\n", ok ? "pass" : "fail",
	       what, ok ? "" : ": ", ok ? "" : why);
	failed |= !ok;
}

/* Idle: FF FF FF, length 52, the payload (command byte at 40), 01 02. */
static void idle_frame(unsigned char f[N_ROBOT_PAROL6_CMD_FRAME])
{
	memset(f, 0, N_ROBOT_PAROL6_CMD_FRAME);
	f[0] = f[1] = f[2] = 0xff;
	f[3] = N_ROBOT_PAROL6_CMD_LEN;
	f[40] = 255;
	f[N_ROBOT_PAROL6_CMD_FRAME - 2] = 0x01;
	f[N_ROBOT_PAROL6_CMD_FRAME - 1] = 0x02;
}

static int wait_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static int unbind(const char *dev, const char *file, const char *name)
{
	unsigned char buf[256], idle[N_ROBOT_PAROL6_CMD_FRAME];
	struct pollfd p;
	char why[128];
	int fd, ufd, st;
	ssize_t r;
	pid_t kid;

	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(dev);
		return 1;
	}
	ioctl(fd, TCFLSH, TCIFLUSH);
	kid = fork();
	if (kid == 0) {
		/* Nothing is sent, so nothing arrives: this read sleeps. */
		r = read(fd, buf, sizeof(buf));
		_exit(r == 0 ? 0 : r < 0 ? 100 + (errno & 0x3f) : 1);
	}
	usleep(500 * 1000);
	ufd = open(file, O_WRONLY | O_CLOEXEC);
	r = ufd < 0 ? -1 : write(ufd, name, strlen(name));
	if (ufd >= 0)
		close(ufd);
	snprintf(why, sizeof(why), "write to %s: %zd (errno %d)", file, r, errno);
	result(r == (ssize_t)strlen(name), "unbind with the file open", why);
	st = -1;
	waitpid(kid, &st, 0);
	snprintf(why, sizeof(why), "the reader's exit status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "a reader sleeping in read() wakes with 0 (end of file)", why);
	idle_frame(idle);
	r = write(fd, idle, sizeof(idle));
	snprintf(why, sizeof(why), "ret %zd errno %d", r, errno);
	result(r == -1 && errno == EIO, "write() after the device went: EIO", why);
	p.fd = fd;
	p.events = POLLIN | POLLOUT;
	p.revents = 0;
	r = poll(&p, 1, 0);
	snprintf(why, sizeof(why), "ret %zd revents %#x", r, p.revents);
	result(r == 1 && (p.revents & POLLHUP) && !(p.revents & POLLOUT),
	       "poll() after the device went: POLLHUP, no POLLOUT", why);
	result(close(fd) == 0, "the file closes", "close failed");
	return failed;
}

int main(int argc, char **argv)
{
	struct n_robot_config c;
	struct n_robot_stats s;
	unsigned char buf[256], small[16], idle[N_ROBOT_PAROL6_CMD_FRAME];
	char why[128];
	int fd, n, len = -1;
	ssize_t r;

	if (argc == 5 && !strcmp(argv[1], "--unbind")) {
		alarm(30);
		return unbind(argv[2], argv[3], argv[4]);
	}
	if (argc != 2) {
		fprintf(stderr, "usage: serdev_chardev DEVICE\n"
			"       serdev_chardev --unbind DEVICE UNBIND-FILE SERDEV-NAME\n");
		return 2;
	}
	alarm(30);	/* a read that blocks for ever fails the run */
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	n = ioctl(fd, N_ROBOT_IOC_GET_CONFIG, &c);
	snprintf(why, sizeof(why), "ret %d framing %u max_frame %u", n,
		 c.framing, c.max_frame);
	result(n == 0 && c.framing == N_ROBOT_FRAMING_PAROL6 &&
	       c.max_frame == N_ROBOT_PAROL6_TELEMETRY_FRAME,
	       "GET_CONFIG: the node's framing from the start", why);

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.framing = N_ROBOT_FRAMING_CM5;
	n = ioctl(fd, N_ROBOT_IOC_SET_CONFIG, &c);
	snprintf(why, sizeof(why), "ret %d errno %d", n, errno);
	result(n == -1 && errno == EINVAL, "SET_CONFIG with another framing: EINVAL", why);
	c.framing = N_ROBOT_FRAMING_PAROL6;
	c.rx_queue_frames = 4;
	n = ioctl(fd, N_ROBOT_IOC_SET_CONFIG, &c);
	snprintf(why, sizeof(why), "ret %d errno %d", n, errno);
	result(n == 0, "SET_CONFIG with the node's framing", why);

	idle_frame(idle);
	r = write(fd, idle, sizeof(idle));
	snprintf(why, sizeof(why), "ret %zd errno %d", r, errno);
	result(r == sizeof(idle), "write of one whole command frame", why);
	result(wait_in(fd, 3000), "poll: POLLIN when the telemetry arrives", "no POLLIN in 3 s");
	n = ioctl(fd, FIONREAD, &len);
	snprintf(why, sizeof(why), "ret %d len %d", n, len);
	result(n == 0 && len == N_ROBOT_PAROL6_TELEMETRY_FRAME,
	       "FIONREAD: the next frame's size", why);
	r = read(fd, small, sizeof(small));
	snprintf(why, sizeof(why), "ret %zd errno %d", r, errno);
	result(r == -1 && errno == EOVERFLOW, "a short read: EOVERFLOW", why);
	r = wait_in(fd, 0) ? read(fd, buf, sizeof(buf)) : -2;
	snprintf(why, sizeof(why), "ret %zd", r);
	result(r == N_ROBOT_PAROL6_TELEMETRY_FRAME && buf[0] == 0xff && buf[1] == 0xff &&
	       buf[2] == 0xff && buf[3] == N_ROBOT_PAROL6_TELEMETRY_LEN &&
	       buf[r - 2] == 0x01 && buf[r - 1] == 0x02,
	       "the frame stayed queued: then read whole, as on the wire", why);

	memset(buf, 0, sizeof(buf));
	r = write(fd, buf, 10);
	snprintf(why, sizeof(why), "ret %zd errno %d", r, errno);
	result(r == -1 && errno == EINVAL, "write of a malformed frame: EINVAL", why);
	memset(&s, 0, sizeof(s));
	n = ioctl(fd, N_ROBOT_IOC_GET_STATS, &s);
	snprintf(why, sizeof(why), "ret %d tx_rejected %llu rx_frames %llu", n,
		 (unsigned long long)s.tx_rejected, (unsigned long long)s.rx_frames);
	result(n == 0 && s.tx_rejected == 1 && s.tx_frames == 1 && s.rx_frames >= 1 &&
	       s.rx_raw_bytes == s.rx_bytes + s.rx_dropped_bytes + s.rx_pending_bytes,
	       "GET_STATS: the rejected write counted, every byte accounted for", why);

	n = ioctl(fd, TCFLSH, TCIFLUSH);
	len = -1;
	ioctl(fd, FIONREAD, &len);
	snprintf(why, sizeof(why), "ret %d then FIONREAD %d", n, len);
	result(n == 0 && len == 0, "TCFLSH TCIFLUSH empties the queue", why);
	n = ioctl(fd, TCFLSH, TCOFLUSH);
	snprintf(why, sizeof(why), "ret %d errno %d", n, errno);
	result(n == -1 && errno == EOPNOTSUPP, "TCFLSH TCOFLUSH: EOPNOTSUPP (serdev cannot)", why);
	n = ioctl(fd, TCGETS, buf);
	snprintf(why, sizeof(why), "ret %d errno %d", n, errno);
	result(n == -1 && errno == ENOTTY, "a tty ioctl: ENOTTY (not a tty)", why);

	fcntl(fd, F_SETFL, O_NONBLOCK);
	ioctl(fd, TCFLSH, TCIFLUSH);
	r = read(fd, buf, sizeof(buf));
	/* a frame may have arrived since the flush: then that one */
	snprintf(why, sizeof(why), "ret %zd errno %d", r, errno);
	result((r == -1 && errno == EAGAIN) || r == N_ROBOT_PAROL6_TELEMETRY_FRAME,
	       "O_NONBLOCK read of an empty queue: EAGAIN", why);
	close(fd);
	return failed;
}
