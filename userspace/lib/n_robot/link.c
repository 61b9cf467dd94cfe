// SPDX-License-Identifier: GPL-2.0-only
/*
 * A framed serial link: see <n_robot/link.h>.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <n_robot/link.h>

int64_t nr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int nr_link_ldisc_number(void)
{
	const char *path = getenv("N_ROBOT_LDISC_SYSFS");
	char buf[16];
	ssize_t n;
	long v;
	int fd;

	fd = open(path ? path : N_ROBOT_LDISC_SYSFS, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return N_ROBOT_LDISC;	/* not loaded yet: autoload takes 29 */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return N_ROBOT_LDISC;
	buf[n] = 0;
	v = strtol(buf, NULL, 10);
	return v > 0 && v < 64 ? (int)v : N_ROBOT_LDISC;
}

bool nr_link_module_loaded(void)
{
	const char *path = getenv("N_ROBOT_LDISC_SYSFS");

	return access(path ? path : N_ROBOT_LDISC_SYSFS, F_OK) == 0;
}

int nr_link_parse_mode(const char *s)
{
	if (!strcasecmp(s, "auto"))
		return NR_LINK_AUTO;
	if (!strcasecmp(s, "yes") || !strcasecmp(s, "ldisc"))
		return NR_LINK_LDISC;
	if (!strcasecmp(s, "no") || !strcasecmp(s, "raw"))
		return NR_LINK_RAW;
	return -1;
}

static speed_t nr_speed(unsigned int baud)
{
	switch (baud) {
	case 9600: return B9600;
	case 57600: return B57600;
	case 115200: return B115200;
	case 230400: return B230400;
	case 1000000: return B1000000;
	case 2000000: return B2000000;
	case 3000000: return B3000000;
	default: return 0;
	}
}

static void nr_emit(void *ctx, const u8 *frame, size_t len)
{
	struct nr_link *l = ctx;
	unsigned int slot;

	if (l->qn == NR_LINK_QUEUE) {
		/* Like the discipline: the oldest frame goes. */
		l->qhead = (l->qhead + 1) % NR_LINK_QUEUE;
		l->qn--;
		l->overruns++;
	}
	slot = (l->qhead + l->qn) % NR_LINK_QUEUE;
	memcpy(l->q[slot], frame, len);
	l->qlen[slot] = (uint32_t)len;
	l->qn++;
}

static void nr_raw_reset(struct nr_link *l)
{
	nrf_init(&l->rx, l->framing == N_ROBOT_FRAMING_CM5 ? &cm5_proto :
		 &parol6_proto, nr_emit, l);
	cm5_state_init(&l->cm5, &l->rx);
	l->qhead = 0;
	l->qn = 0;
	l->overruns = 0;
}

int nr_link_attach_fd(struct nr_link *l, int fd, uint32_t framing,
		      enum nr_link_mode mode, unsigned int baud)
{
	struct n_robot_config c;
	struct termios t;
	int ld = nr_link_ldisc_number(), cur = -1, err;	/* valgrind knows no TIOCGETD */

	memset(l, 0, sizeof(*l));
	l->fd = fd;
	l->framing = framing;
	if (tcgetattr(fd, &l->saved) == 0) {
		l->is_tty = true;
		t = l->saved;
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD;
		t.c_cflag &= ~(CRTSCTS | CSTOPB);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		if (baud) {
			if (!nr_speed(baud))
				return -EINVAL;
			cfsetispeed(&t, nr_speed(baud));
			cfsetospeed(&t, nr_speed(baud));
		}
		if (tcsetattr(fd, TCSANOW, &t))
			return -errno;
		tcflush(fd, TCIOFLUSH);
	}
	nr_raw_reset(l);
	/*
	 * Not a tty but answering the n_robot ioctls: a serdev device node
	 * (/dev/n_robotN), framed in the kernel from the start, at the
	 * device tree's speed. Its framing is the node's: SET_CONFIG with
	 * another fails (EINVAL), and there is no raw mode.
	 */
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	if (!l->is_tty && ioctl(fd, N_ROBOT_IOC_GET_CONFIG, &c) == 0) {
		if (mode == NR_LINK_RAW)
			return -ENOTTY;
		if (c.framing != framing)
			return -EPROTOTYPE;
		l->ldisc = true;
		l->shared = true;
		l->serdev = true;
		return 0;
	}
	if (mode == NR_LINK_RAW)
		return 0;
	/*
	 * Attached already (cm5ctl attach, ldattach, another program): use
	 * it as it is, so its counters and CM-5 formats go on, and leave it
	 * attached. Selecting the framing again would reset them.
	 */
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	if (ioctl(fd, TIOCGETD, &cur) == 0 && cur == ld &&
	    ioctl(fd, N_ROBOT_IOC_GET_CONFIG, &c) == 0) {
		if (c.framing != framing) {
			memset(&c, 0, sizeof(c));
			c.size = sizeof(c);
			c.framing = framing;
			if (ioctl(fd, N_ROBOT_IOC_SET_CONFIG, &c))
				return -errno;
		}
		l->ldisc = true;
		l->shared = true;
		return 0;
	}
	if (ioctl(fd, TIOCSETD, &ld) == 0) {
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.framing = framing;
		if (ioctl(fd, N_ROBOT_IOC_SET_CONFIG, &c) == 0) {
			l->ldisc = true;
			return 0;
		}
		err = -errno;
		ld = N_TTY;
		ioctl(fd, TIOCSETD, &ld);
		return err;
	}
	err = -errno;
	return mode == NR_LINK_AUTO ? 0 : err;
}

int nr_link_open(struct nr_link *l, const char *path, uint32_t framing,
		 enum nr_link_mode mode, unsigned int baud)
{
	int fd, err;

	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = nr_link_attach_fd(l, fd, framing, mode, baud);
	if (err) {
		close(fd);
		return err;
	}
	return 0;
}

int nr_link_close_fd(struct nr_link *l)
{
	int ld = N_TTY;

	if (l->fd < 0)
		return -EBADF;
	if (l->ldisc && !l->shared)
		ioctl(l->fd, TIOCSETD, &ld);
	if (l->is_tty)
		tcsetattr(l->fd, TCSADRAIN, &l->saved);
	return 0;
}

void nr_link_close(struct nr_link *l)
{
	if (nr_link_close_fd(l) == 0)
		close(l->fd);
	l->fd = -1;
}

static int nr_write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int nr_link_send(struct nr_link *l, const uint8_t *p, size_t len)
{
	ssize_t n;
	int err;

	if (l->ldisc) {
		do {
			n = write(l->fd, p, len);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		return (size_t)n == len ? 0 : -EIO;
	}
	/* Raw: the same checks the discipline makes, then all at once. */
	if (l->framing == N_ROBOT_FRAMING_CM5) {
		err = cm5_tx_check(&l->cm5, p, len);
		if (!err)
			err = cm5_tx_ready(&l->rx, p, len);
	} else {
		err = parol6_tx_check(p, len);
	}
	if (err)
		return err;
	err = nr_write_all(l->fd, p, len);
	if (err)
		return err;
	if (l->framing == N_ROBOT_FRAMING_CM5)
		cm5_tx_commit(&l->cm5, &l->rx, p, len);
	return 0;
}

static ssize_t nr_pop(struct nr_link *l, uint8_t *buf, size_t cap)
{
	uint32_t len = l->qlen[l->qhead];

	if (len > cap)
		return -EOVERFLOW;
	memcpy(buf, l->q[l->qhead], len);
	l->qhead = (l->qhead + 1) % NR_LINK_QUEUE;
	l->qn--;
	return len;
}

ssize_t nr_link_recv(struct nr_link *l, uint8_t *buf, size_t cap,
		     int timeout_ms)
{
	struct pollfd p = { .fd = l->fd, .events = POLLIN };
	int64_t deadline = nr_now_ms() + timeout_ms;
	uint8_t raw[512];
	ssize_t n;
	int r, left;

	for (;;) {
		if (!l->ldisc && l->qn)
			return nr_pop(l, buf, cap);
		left = (int)(deadline - nr_now_ms());
		if (left < 0)
			left = 0;
		r = poll(&p, 1, left);
		if (r < 0) {
			if (errno == EINTR)
				return -EINTR;
			return -errno;
		}
		if (r == 0)
			return -ETIMEDOUT;
		if (p.revents & (POLLHUP | POLLERR) && !(p.revents & POLLIN))
			return -EIO;
		if (l->ldisc) {
			n = read(l->fd, buf, cap);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n < 0)
				return -errno;
			if (n == 0)
				return -EIO;	/* hung up */
			return n;
		}
		n = read(l->fd, raw, sizeof(raw));
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		nrf_feed(&l->rx, raw, NULL, n);
	}
}

static volatile sig_atomic_t nr_hold_stop;

static void nr_hold_signal(int sig)
{
	nr_hold_stop = 1;
}

int nr_link_hold(struct nr_link *l)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, saved[ARRAY_SIZE(sigs)];
	sigset_t block, old, wait_mask;
	struct pollfd p;
	unsigned int i;
	int err = 0;

	if (l->fd < 0)
		return -EBADF;
	/*
	 * Blocked but for the wait itself, so a signal between the check of
	 * nr_hold_stop and ppoll() is not lost.
	 */
	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&block, sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	wait_mask = old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nr_hold_signal;
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		sigdelset(&wait_mask, sigs[i]);
		sigaction(sigs[i], &sa, &saved[i]);
	}
	nr_hold_stop = 0;
	while (!nr_hold_stop) {
		/* No events asked: POLLHUP and POLLERR come anyway. */
		p.fd = l->fd;
		p.events = 0;
		p.revents = 0;
		if (ppoll(&p, 1, NULL, &wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
			err = -EIO;
			break;
		}
	}
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &saved[i], NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

int nr_link_flush(struct nr_link *l)
{
	/* The serdev node takes TCIFLUSH as the tty does. */
	if ((l->is_tty || l->serdev) && tcflush(l->fd, TCIFLUSH))
		return -errno;
	if (!l->ldisc) {
		nrf_reset(&l->rx);
		l->rx.cm5.outstanding = 0;
		l->rx.cm5.answer_in = 0;	/* an awaited answer is lost */
		l->qhead = 0;
		l->qn = 0;
	}
	return 0;
}

int nr_link_cm5_set_models(struct nr_link *l, const uint8_t model[256])
{
	struct n_robot_cm5_models m;

	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	memcpy(m.model, model, sizeof(m.model));
	m.model[254] = 0;
	m.model[255] = 0;
	if (l->ldisc)
		return ioctl(l->fd, N_ROBOT_IOC_CM5_SET_MODELS, &m) ? -errno : 0;
	memcpy(l->cm5.model, m.model, sizeof(l->cm5.model));
	return 0;
}

int nr_link_stats(struct nr_link *l, struct n_robot_stats *s)
{
	const struct nrf_counters *c = &l->rx.cnt;

	memset(s, 0, sizeof(*s));
	if (l->ldisc)
		return ioctl(l->fd, N_ROBOT_IOC_GET_STATS, s) ? -errno : 0;
	s->size = sizeof(*s);
	s->framing = l->framing;
	s->rx_raw_bytes = c->raw_bytes;
	s->rx_frames = c->frames;
	s->rx_bytes = c->frame_bytes;
	s->rx_dropped_bytes = c->dropped_bytes;
	s->rx_checksum_errors = c->checksum_errors;
	s->rx_length_errors = c->length_errors;
	s->rx_marker_errors = c->marker_errors;
	s->rx_resyncs = c->resyncs;
	s->rx_tty_errors = c->tty_errors;
	s->rx_overruns = l->overruns;
	s->rx_pending_bytes = nrf_pending(&l->rx);
	s->rx_queued_frames = l->qn;
	s->cm5_unsolicited = c->cm5_unsolicited;
	s->cm5_formats_lost = c->cm5_formats_lost;
	return 0;
}
