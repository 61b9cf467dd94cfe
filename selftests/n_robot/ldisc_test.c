// SPDX-License-Identifier: GPL-2.0-only
/*
 * The n_robot line discipline in the VM, on pty pairs: the discipline is set
 * on the slave, the test plays the robot on the master.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <linux/n_robot.h>

#include "kselftest_harness.h"
#include "stream.h"

static int run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static uint8_t ck(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;

	while (n--)
		sum += *p++;
	return (uint8_t)~sum;
}

static size_t cm5_status(uint8_t *b, uint8_t status, uint8_t seq)
{
	b[0] = 0xFA;
	b[1] = status;
	b[2] = 0;
	b[3] = seq;
	b[4] = 0x80;
	b[5] = 0x7f;
	b[6] = ck(b, 6);
	return 7;
}

static size_t cm5_data(uint8_t *b, uint32_t data_len, uint8_t seq)
{
	uint32_t i;

	b[0] = 0xFB;
	for (i = 1; i < 6 + data_len; i++)
		b[i] = (uint8_t)(seq + i);
	b[6 + data_len] = ck(b, 6 + data_len);
	return 7 + data_len;
}

static size_t parol6_telemetry(uint8_t *b, uint8_t seq)
{
	uint32_t i;

	b[0] = b[1] = b[2] = 0xFF;
	b[3] = 56;
	for (i = 4; i < 58; i++)
		b[i] = (uint8_t)(seq * 7 + i);
	b[10] = b[11] = b[12] = 0xFF;
	b[58] = 1;
	b[59] = 2;
	return 60;
}

static size_t parol6_command(uint8_t *b, uint8_t cmd, uint8_t len)
{
	memset(b, 0, 56);
	b[0] = b[1] = b[2] = 0xFF;
	b[3] = len;
	b[40] = cmd;
	b[53] = 0xE4;
	b[54] = 1;
	b[55] = 2;
	return 56;
}

static int open_pair(int *master, int *slave)
{
	int m, s;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || grantpt(m) || unlockpt(m))
		return -1;
	s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return -1;
	*master = m;
	*slave = s;
	return 0;
}

static int set_config(int fd, uint32_t framing, uint32_t qlen)
{
	struct n_robot_config c = {
		.size = sizeof(c),
		.framing = framing,
		.rx_queue_frames = qlen,
	};

	return ioctl(fd, N_ROBOT_IOC_SET_CONFIG, &c);
}

static int attach(int fd, uint32_t framing, uint32_t qlen)
{
	int ld = N_ROBOT_LDISC;

	if (ioctl(fd, TIOCSETD, &ld))
		return -1;
	if (framing != N_ROBOT_FRAMING_NONE)
		return set_config(fd, framing, qlen);
	return 0;
}

static int stats(int fd, struct n_robot_stats *s)
{
	memset(s, 0, sizeof(*s));
	return ioctl(fd, N_ROBOT_IOC_GET_STATS, s);
}

/*
 * Until the discipline has taken want bytes from the tty (the flip buffer's
 * worker runs when the scheduler lets it: a starved guest takes its time),
 * 10 s at most: 0, or -ETIMEDOUT.
 */
static int wait_raw_bytes(int fd, uint64_t want)
{
	struct n_robot_stats st;

	for (int i = 0; i < 1000; i++) {
		if (stats(fd, &st))
			return -errno;
		if (st.rx_raw_bytes >= want)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

static int set_read_format(int fd, uint32_t count, uint8_t num)
{
	struct n_robot_cm5_format f;
	uint32_t i;

	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	f.which = N_ROBOT_CM5_FORMAT_READ;
	f.count = count;
	for (i = 0; i < count; i++) {
		f.entry[i].id = (uint8_t)(i + 1);
		f.entry[i].start = 36;
		f.entry[i].num = num;
	}
	return ioctl(fd, N_ROBOT_IOC_CM5_SET_FORMAT, &f);
}

/* Read one frame, waiting at most ms. */
static ssize_t read_frame(int fd, uint8_t *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, ms);

	if (r <= 0)
		return r == 0 ? -ETIMEDOUT : -errno;
	r = read(fd, buf, len);
	return r < 0 ? -errno : r;
}

/* Bytes the master sees within ms, up to len. */
static ssize_t master_read(int fd, uint8_t *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len && poll(&p, 1, ms) > 0) {
		n = read(fd, buf + got, len - got);
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

static int accounted(const struct n_robot_stats *s)
{
	return s->rx_raw_bytes ==
	       s->rx_bytes + s->rx_dropped_bytes + s->rx_pending_bytes;
}

FIXTURE(pty) {
	int master;
	int slave;
};

FIXTURE_SETUP(pty)
{
	ASSERT_EQ(0, run("modprobe n_robot"));
	ASSERT_EQ(0, open_pair(&self->master, &self->slave));
}

FIXTURE_TEARDOWN(pty)
{
	close(self->slave);
	close(self->master);
}

TEST_F(pty, attach_needs_cap_net_admin)
{
	int ld = N_ROBOT_LDISC, status;
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* nobody, with the tty already open: no capabilities left */
		if (setresuid(65534, 65534, 65534))
			_exit(2);
		if (ioctl(self->slave, TIOCSETD, &ld) == 0)
			_exit(3);
		_exit(errno == EPERM ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_NONE, 0));
	ASSERT_EQ(0, ioctl(self->slave, TIOCGETD, &ld));
	EXPECT_EQ(N_ROBOT_LDISC, ld);
}

TEST_F(pty, no_framing_yet_enoprotoopt)
{
	uint8_t b[8];

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_NONE, 0));
	EXPECT_EQ(-1, read(self->slave, b, sizeof(b)));
	EXPECT_EQ(ENOPROTOOPT, errno);
	cm5_status(b, 0, 0);
	EXPECT_EQ(-1, write(self->slave, b, 7));
	EXPECT_EQ(ENOPROTOOPT, errno);
}

TEST_F(pty, config_ioctl_validation)
{
	struct n_robot_config c;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_NONE, 0));
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c) - 4;
	c.framing = N_ROBOT_FRAMING_CM5;
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_SET_CONFIG, &c));
	EXPECT_EQ(EINVAL, errno);
	c.size = sizeof(c);
	c.reserved[1] = 1;
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_SET_CONFIG, &c));
	EXPECT_EQ(EINVAL, errno);
	c.reserved[1] = 0;
	c.flags = 1;
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_SET_CONFIG, &c));
	EXPECT_EQ(EOPNOTSUPP, errno);
	c.flags = 0;
	c.framing = 7;
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_SET_CONFIG, &c));
	EXPECT_EQ(EINVAL, errno);
	c.framing = N_ROBOT_FRAMING_PAROL6;
	c.rx_queue_frames = N_ROBOT_RX_QUEUE_MAX + 1;
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_SET_CONFIG, &c));
	EXPECT_EQ(EINVAL, errno);
	c.rx_queue_frames = 9;
	c.api_version = 1;
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_SET_CONFIG, &c));
	EXPECT_EQ(EINVAL, errno);
	c.api_version = 0;
	ASSERT_EQ(0, ioctl(self->slave, N_ROBOT_IOC_SET_CONFIG, &c));
	memset(&c, 0xff, sizeof(c));
	ASSERT_EQ(0, ioctl(self->slave, N_ROBOT_IOC_GET_CONFIG, &c));
	EXPECT_EQ(sizeof(c), c.size);
	EXPECT_EQ(N_ROBOT_FRAMING_PAROL6, c.framing);
	EXPECT_EQ(9, c.rx_queue_frames);
	EXPECT_EQ(N_ROBOT_API_VERSION, c.api_version);
	EXPECT_EQ(60, c.max_frame);
	EXPECT_EQ(0, c.reserved[0]);
	EXPECT_EQ(-1, ioctl(self->slave, _IO(N_ROBOT_IOC_MAGIC, 0x3f)));
}

TEST_F(pty, cm5_burst_and_byte_by_byte)
{
	uint8_t s[128], b[64];
	size_t n = 0, i, off;
	int round;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	ASSERT_EQ(0, set_read_format(self->slave, 2, 4));
	n += cm5_status(s + n, 0, 1);
	n += cm5_data(s + n, 8, 2);
	n += cm5_status(s + n, 4, 3);
	for (round = 0; round < 2; round++) {
		if (round == 0) {
			ASSERT_EQ((ssize_t)n, write(self->master, s, n));
		} else {
			for (i = 0; i < n; i++) {
				ASSERT_EQ(1, write(self->master, s + i, 1));
				usleep(200);
			}
		}
		for (off = 0, i = 0; i < 3; i++) {
			ssize_t len = read_frame(self->slave, b, sizeof(b), 2000);

			ASSERT_EQ(i == 1 ? 15 : 7, len);
			EXPECT_EQ(0, memcmp(b, s + off, len));
			off += len;
		}
		EXPECT_EQ(-ETIMEDOUT, read_frame(self->slave, b, sizeof(b), 50));
	}
}

TEST_F(pty, short_buffer_eoverflow_keeps_frame)
{
	uint8_t s[128], b[64];
	int avail = -1;
	size_t n;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	ASSERT_EQ(0, set_read_format(self->slave, 10, 10));
	n = cm5_data(s, 100, 9);
	ASSERT_EQ(107, n);
	ASSERT_EQ((ssize_t)n, write(self->master, s, n));
	ASSERT_EQ(-EOVERFLOW, read_frame(self->slave, b, 3, 2000));
	/* more than one chunk of the tty core's 64-byte buffer, still short */
	{
		uint8_t big[106];

		EXPECT_EQ(-1, read(self->slave, big, sizeof(big)));
		EXPECT_EQ(EOVERFLOW, errno);
	}
	ASSERT_EQ(0, ioctl(self->slave, FIONREAD, &avail));
	EXPECT_EQ(107, avail);
	{
		uint8_t big[200];

		ASSERT_EQ(107, read_frame(self->slave, big, sizeof(big), 100));
		EXPECT_EQ(0, memcmp(big, s, 107));
	}
	ASSERT_EQ(0, ioctl(self->slave, FIONREAD, &avail));
	EXPECT_EQ(0, avail);
	(void)b;
}

TEST_F(pty, poll_only_on_whole_frames)
{
	struct pollfd p = { .events = POLLIN };
	uint8_t s[64];

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_PAROL6, 0));
	p.fd = self->slave;
	parol6_telemetry(s, 1);
	ASSERT_EQ(30, write(self->master, s, 30));
	EXPECT_EQ(0, poll(&p, 1, 200));
	ASSERT_EQ(30, write(self->master, s + 30, 30));
	EXPECT_EQ(1, poll(&p, 1, 2000));
	EXPECT_TRUE(p.revents & POLLIN);
	p.events = POLLOUT;
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_TRUE(p.revents & POLLOUT);
}

TEST_F(pty, full_queue_drops_oldest)
{
	struct n_robot_stats st;
	uint8_t s[600], b[64];
	size_t n = 0;
	int i, avail;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_PAROL6, 4));
	for (i = 0; i < 10; i++)
		n += parol6_telemetry(s + n, (uint8_t)i);
	ASSERT_EQ((ssize_t)n, write(self->master, s, n));
	/* wait until all ten arrived */
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, stats(self->slave, &st));
		if (st.rx_frames == 10)
			break;
		usleep(10000);
	}
	EXPECT_EQ(10, st.rx_frames);
	EXPECT_EQ(6, st.rx_overruns);
	EXPECT_EQ(4, st.rx_queued_frames);
	for (i = 6; i < 10; i++) {
		ASSERT_EQ(60, read_frame(self->slave, b, sizeof(b), 100));
		EXPECT_EQ((uint8_t)(i * 7 + 20), b[20]);
	}
	ASSERT_EQ(0, ioctl(self->slave, FIONREAD, &avail));
	EXPECT_EQ(0, avail);
}

TEST_F(pty, garbage_before_between_inside)
{
	struct n_robot_stats st;
	uint8_t s[256], f[8], b[64];
	size_t n = 0;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	s[n++] = 0x00;
	s[n++] = 0xFA;
	n += cm5_status(s + n, 0, 1);
	memset(s + n, 0xFF, 5);
	n += 5;
	n += cm5_status(s + n, 0, 2);
	cm5_status(f, 0, 3);
	memcpy(s + n, f, 3);
	s[n + 3] = 0x11;
	memcpy(s + n + 4, f + 3, 4);
	n += 8;
	n += cm5_status(s + n, 0, 4);
	ASSERT_EQ((ssize_t)n, write(self->master, s, n));
	ASSERT_EQ(7, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(1, b[3]);
	ASSERT_EQ(7, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(2, b[3]);
	ASSERT_EQ(7, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(4, b[3]);
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_EQ(n, st.rx_raw_bytes);
	EXPECT_EQ(3, st.rx_frames);
	EXPECT_GE(st.rx_checksum_errors, 2);
	EXPECT_EQ(n - 21, st.rx_dropped_bytes);
	EXPECT_TRUE(accounted(&st));
}

TEST_F(pty, parol6_bad_lengths_and_end_bytes)
{
	struct n_robot_stats st;
	uint8_t s[512], t[64], b[64];
	size_t n = 0;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_PAROL6, 0));
	n += parol6_telemetry(s + n, 1);
	memcpy(s + n, "\xff\xff\xff\x00\xff\xff\xff\x34\xff", 9);
	n += 9;
	n += parol6_telemetry(s + n, 2);
	parol6_telemetry(t, 3);
	t[58] = 2;
	memcpy(s + n, t, 60);
	n += 60;
	n += parol6_telemetry(s + n, 4);
	ASSERT_EQ((ssize_t)n, write(self->master, s, n));
	ASSERT_EQ(60, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(1 * 7 + 20, b[20]);
	ASSERT_EQ(60, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(2 * 7 + 20, b[20]);
	ASSERT_EQ(60, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(4 * 7 + 20, b[20]);
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_GE(st.rx_length_errors, 3);
	EXPECT_GE(st.rx_marker_errors, 1);
	EXPECT_EQ(st.rx_length_errors + st.rx_marker_errors, st.rx_resyncs);
	EXPECT_TRUE(accounted(&st));
}

TEST_F(pty, cm5_every_bad_checksum)
{
	struct n_robot_stats st;
	uint8_t good[16], bad[16], b[64];
	size_t pos;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	cm5_status(good, 0, 5);
	for (pos = 1; pos < 7; pos++) {
		memcpy(bad, good, 7);
		bad[pos] ^= 0x01;
		ASSERT_EQ(7, write(self->master, bad, 7));
		ASSERT_EQ(7, write(self->master, good, 7));
		ASSERT_EQ(7, read_frame(self->slave, b, sizeof(b), 2000));
		EXPECT_EQ(0, memcmp(b, good, 7));
	}
	EXPECT_EQ(-ETIMEDOUT, read_frame(self->slave, b, sizeof(b), 50));
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_EQ(6, st.rx_frames);
	EXPECT_GE(st.rx_checksum_errors, 6);
	EXPECT_TRUE(accounted(&st));
}

TEST_F(pty, cm5_format_learned_from_written_packet)
{
	uint8_t p[16] = { 0xF1, 2, 1, 36, 2, 2, 36, 3 }, m[16], s[64], b[64];
	struct n_robot_cm5_format f;
	size_t n;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	p[8] = ck(p, 8);
	ASSERT_EQ(9, write(self->slave, p, 9));
	ASSERT_EQ(9, master_read(self->master, m, 9, 2000));
	EXPECT_EQ(0, memcmp(p, m, 9));
	/* unknown until its STATUS comes */
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	f.which = N_ROBOT_CM5_FORMAT_READ;
	ASSERT_EQ(0, ioctl(self->slave, N_ROBOT_IOC_CM5_GET_FORMAT, &f));
	EXPECT_EQ(N_ROBOT_CM5_FORMAT_UNKNOWN, f.flags);
	/* the reply to it, then DATA in the new format, in one burst */
	n = cm5_status(s, 0, 1);
	n += cm5_data(s + n, 5, 2);
	ASSERT_EQ((ssize_t)n, write(self->master, s, n));
	ASSERT_EQ(7, read_frame(self->slave, b, sizeof(b), 2000));
	ASSERT_EQ(12, read_frame(self->slave, b, sizeof(b), 2000));
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	f.which = N_ROBOT_CM5_FORMAT_READ;
	ASSERT_EQ(0, ioctl(self->slave, N_ROBOT_IOC_CM5_GET_FORMAT, &f));
	EXPECT_EQ(0, f.flags);
	EXPECT_EQ(2, f.count);
	EXPECT_EQ(2, f.entry[1].id);
	EXPECT_EQ(3, f.entry[1].num);
}

TEST_F(pty, cm5_unsolicited_status_counted)
{
	uint8_t ping[3] = { 0xF0, 1 }, m[8], s[16], b[16];
	struct n_robot_stats st;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	ping[2] = ck(ping, 2);
	ASSERT_EQ(3, write(self->slave, ping, 3));
	ASSERT_EQ(3, master_read(self->master, m, 3, 2000));
	cm5_status(s, 0, 1);			/* the reply */
	cm5_status(s + 7, 0x04, 2);		/* after line garbage */
	ASSERT_EQ(14, write(self->master, s, 14));
	ASSERT_EQ(7, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(0, b[1]);
	ASSERT_EQ(7, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(0x04, b[1]);
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_EQ(1, st.cm5_unsolicited);
	/* a flush forgets the request too: its late reply is unsolicited */
	ASSERT_EQ(3, write(self->slave, ping, 3));
	ASSERT_EQ(0, tcflush(self->slave, TCIFLUSH));
	ASSERT_EQ(7, write(self->master, s, 7));
	ASSERT_EQ(7, read_frame(self->slave, b, sizeof(b), 2000));
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_EQ(2, st.cm5_unsolicited);
	EXPECT_EQ(2, st.tx_frames);
}

TEST_F(pty, cm5_format_change_mid_stream)
{
	uint8_t s[64], b[64];
	size_t n;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	ASSERT_EQ(0, set_read_format(self->slave, 1, 4));
	n = cm5_data(s, 4, 1);
	ASSERT_EQ(5, write(self->master, s, 5));
	ASSERT_EQ(0, wait_raw_bytes(self->slave, 5));
	/* a reply on its way keeps the length it started with */
	ASSERT_EQ(0, set_read_format(self->slave, 2, 10));
	ASSERT_EQ((ssize_t)n - 5, write(self->master, s + 5, n - 5));
	ASSERT_EQ(11, read_frame(self->slave, b, sizeof(b), 2000));
	n = cm5_data(s, 20, 2);
	ASSERT_EQ((ssize_t)n, write(self->master, s, n));
	ASSERT_EQ(27, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(0, memcmp(b, s, 27));
}

TEST_F(pty, cm5_format_ioctl_validation)
{
	struct n_robot_cm5_format f;
	struct n_robot_cm5_models m;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	f.which = N_ROBOT_CM5_FORMAT_WRITE;
	f.count = 1;
	f.entry[0] = (struct n_robot_cm5_entry){ 3, 36, 2, 0 };
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_CM5_SET_FORMAT, &f));
	EXPECT_EQ(EACCES, errno);		/* present position */
	f.entry[0] = (struct n_robot_cm5_entry){ 254, 30, 2, 0 };
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_CM5_SET_FORMAT, &f));
	EXPECT_EQ(EINVAL, errno);		/* id out of range */
	f.entry[0] = (struct n_robot_cm5_entry){ 3, 30, 2, 0 };
	f.entry[5].num = 1;			/* junk past count */
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_CM5_SET_FORMAT, &f));
	EXPECT_EQ(EINVAL, errno);
	f.entry[5].num = 0;
	EXPECT_EQ(0, ioctl(self->slave, N_ROBOT_IOC_CM5_SET_FORMAT, &f));
	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	m.model[3] = N_ROBOT_CM5_MODEL_AXS1;
	m.model[255] = 1;
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_CM5_SET_MODELS, &m));
	EXPECT_EQ(EINVAL, errno);
	m.model[255] = 0;
	ASSERT_EQ(0, ioctl(self->slave, N_ROBOT_IOC_CM5_SET_MODELS, &m));
	/* address 30 is a luminosity on an AX-S1: read-only */
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_CM5_SET_FORMAT, &f));
	EXPECT_EQ(EACCES, errno);
	memset(&m, 0, sizeof(m));
	ASSERT_EQ(0, ioctl(self->slave, N_ROBOT_IOC_CM5_GET_MODELS, &m));
	EXPECT_EQ(N_ROBOT_CM5_MODEL_AXS1, m.model[3]);
	ASSERT_EQ(0, set_config(self->slave, N_ROBOT_FRAMING_PAROL6, 0));
	EXPECT_EQ(-1, ioctl(self->slave, N_ROBOT_IOC_CM5_SET_FORMAT, &f));
	EXPECT_EQ(ENOPROTOOPT, errno);
}

/* One refused write: the errno, the counter, and nothing on the wire. */
static void refused(struct __test_metadata *_metadata, int master, int slave,
		    const uint8_t *p, size_t len, int err)
{
	struct n_robot_stats st;
	uint8_t m[256];

	EXPECT_EQ(-1, write(slave, p, len));
	EXPECT_EQ(err, errno);
	EXPECT_EQ(0, master_read(master, m, sizeof(m), 100));
	ASSERT_EQ(0, stats(slave, &st));
	EXPECT_EQ(1, st.tx_rejected);
	EXPECT_EQ(0, st.tx_frames);
}

TEST_F(pty, write_cm5_bad_checksum_ebadmsg)
{
	uint8_t p[3] = { 0xF0, 1, 0 };

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	refused(_metadata, self->master, self->slave, p, 3, EBADMSG);
}

TEST_F(pty, write_cm5_lone_f3_einval)
{
	uint8_t p[1] = { 0xF3 };

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	refused(_metadata, self->master, self->slave, p, 1, EINVAL);
}

TEST_F(pty, write_cm5_unknown_instruction_einval)
{
	uint8_t p[2] = { 0xF7, 0 };

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	p[1] = ck(p, 1);
	refused(_metadata, self->master, self->slave, p, 2, EINVAL);
}

TEST_F(pty, write_cm5_over_130_bytes_emsgsize)
{
	uint8_t p[140];

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	memset(p, 0x10, sizeof(p));
	p[0] = 0xF4;
	p[130] = ck(p, 130);
	refused(_metadata, self->master, self->slave, p, 131, EMSGSIZE);
}

/*
 * A format answered with STATUS 0x40 (the firmware installed whatever it
 * got) is unknown: the reader gets that STATUS, GET_FORMAT flags it, the
 * counter counts it, and READ_DATA is refused with ESTALE, nothing sent.
 */
TEST_F(pty, cm5_read_refused_after_a_format_answered_with_an_error)
{
	uint8_t p[16] = { 0xF1, 1, 1, 36, 2 }, r[2] = { 0xF3 }, m[16], s[16];
	struct n_robot_cm5_format f;
	struct n_robot_stats st;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	p[5] = ck(p, 5);
	r[1] = ck(r, 1);
	ASSERT_EQ(6, write(self->slave, p, 6));
	ASSERT_EQ(6, master_read(self->master, m, 6, 2000));
	cm5_status(s, 0x40, 1);
	ASSERT_EQ(7, write(self->master, s, 7));
	ASSERT_EQ(7, read_frame(self->slave, m, sizeof(m), 2000));
	EXPECT_EQ(0x40, m[1]);
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	f.which = N_ROBOT_CM5_FORMAT_READ;
	ASSERT_EQ(0, ioctl(self->slave, N_ROBOT_IOC_CM5_GET_FORMAT, &f));
	EXPECT_EQ(N_ROBOT_CM5_FORMAT_UNKNOWN, f.flags);
	EXPECT_EQ(-1, write(self->slave, r, 2));
	EXPECT_EQ(ESTALE, errno);
	EXPECT_EQ(0, master_read(self->master, m, sizeof(m), 100));
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_EQ(1, st.cm5_formats_lost);
	EXPECT_EQ(1, st.tx_rejected);
	EXPECT_EQ(1, st.tx_frames);		/* the F1 only */
}

TEST_F(pty, write_cm5_read_only_register_eacces)
{
	uint8_t p[6] = { 0xF2, 1, 4, 36, 2 };

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	p[5] = ck(p, 5);
	refused(_metadata, self->master, self->slave, p, 6, EACCES);
}

TEST_F(pty, write_cm5_write_data_wrong_length_einval)
{
	uint8_t p[8] = { 0xF4, 1, 2, 3 };

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	p[4] = ck(p, 4);	/* the write format is empty: F4 ck only */
	refused(_metadata, self->master, self->slave, p, 5, EINVAL);
}

TEST_F(pty, write_parol6_length_zero_einval)
{
	uint8_t p[56];

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_PAROL6, 0));
	parol6_command(p, 255, 0);
	refused(_metadata, self->master, self->slave, p, 56, EINVAL);
}

TEST_F(pty, write_parol6_short_frame_einval)
{
	uint8_t p[56];

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_PAROL6, 0));
	parol6_command(p, 255, 52);
	refused(_metadata, self->master, self->slave, p, 55, EINVAL);
}

TEST_F(pty, write_parol6_unknown_command_einval)
{
	uint8_t p[56];

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_PAROL6, 0));
	parol6_command(p, 99, 52);
	refused(_metadata, self->master, self->slave, p, 56, EINVAL);
}

TEST_F(pty, write_goes_out_whole)
{
	struct n_robot_stats st;
	uint8_t p[56], m[64], r[2] = { 0xF3, 0x0C };

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_PAROL6, 0));
	parol6_command(p, 123, 52);
	ASSERT_EQ(56, write(self->slave, p, 56));
	ASSERT_EQ(56, master_read(self->master, m, sizeof(m), 1000));
	EXPECT_EQ(0, memcmp(p, m, 56));
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_EQ(1, st.tx_frames);
	EXPECT_EQ(56, st.tx_bytes);
	ASSERT_EQ(0, set_config(self->slave, N_ROBOT_FRAMING_CM5, 0));
	ASSERT_EQ(2, write(self->slave, r, 2));
	ASSERT_EQ(2, master_read(self->master, m, sizeof(m), 1000));
	EXPECT_EQ(0, memcmp(r, m, 2));
}

/* The driver's buffer fills: write() says EAGAIN, poll() not POLLOUT, and
 * when the robot reads again every accepted frame arrives, whole, in order.
 */
TEST_F(pty, write_waits_for_room_and_loses_nothing)
{
	static uint8_t got[5000 * 56];
	struct pollfd pw = { .events = POLLOUT };
	struct n_robot_stats st;
	uint8_t p[56];
	size_t want, have = 0;
	ssize_t n;
	int i, k;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_PAROL6, 0));
	ASSERT_EQ(0, fcntl(self->slave, F_SETFL,
			   fcntl(self->slave, F_GETFL) | O_NONBLOCK));
	pw.fd = self->slave;
	for (i = 0; i < 5000; i++) {
		parol6_command(p, 255, 52);
		p[4] = (uint8_t)(i >> 8);
		p[5] = (uint8_t)i;
		n = write(self->slave, p, 56);
		if (n < 0) {
			ASSERT_EQ(EAGAIN, errno);
			break;
		}
		ASSERT_EQ(56, n);
	}
	ASSERT_LT(i, 5000);
	ASSERT_GT(i, 10);
	EXPECT_EQ(0, poll(&pw, 1, 0));
	want = (size_t)i * 56;
	while (have < want) {
		n = master_read(self->master, got + have, want - have, 2000);
		ASSERT_GT(n, 0);
		have += n;
	}
	for (k = 0; k < i; k++) {
		parol6_command(p, 255, 52);
		p[4] = (uint8_t)(k >> 8);
		p[5] = (uint8_t)k;
		ASSERT_EQ(0, memcmp(p, got + (size_t)k * 56, 56))
			TH_LOG("frame %d of %d differs", k, i);
	}
	EXPECT_EQ(1, poll(&pw, 1, 2000));
	EXPECT_TRUE(pw.revents & POLLOUT);
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_EQ(i, st.tx_frames);
	EXPECT_EQ(want, st.tx_bytes);
	EXPECT_EQ(0, st.tx_rejected);
}

TEST_F(pty, framing_change_resets_state)
{
	struct n_robot_stats st;
	struct n_robot_cm5_format f;
	uint8_t s[64], b[64];
	int avail;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	ASSERT_EQ(0, set_read_format(self->slave, 1, 4));
	cm5_status(s, 0, 1);
	ASSERT_EQ(7, write(self->master, s, 7));
	cm5_data(s, 4, 2);
	ASSERT_EQ(5, write(self->master, s, 5));	/* half a DATA */
	ASSERT_EQ(0, wait_raw_bytes(self->slave, 12));
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_EQ(5, st.rx_pending_bytes);
	EXPECT_EQ(1, st.rx_queued_frames);
	ASSERT_EQ(0, set_config(self->slave, N_ROBOT_FRAMING_CM5, 0));
	ASSERT_EQ(0, stats(self->slave, &st));
	EXPECT_EQ(0, st.rx_pending_bytes);
	EXPECT_EQ(0, st.rx_queued_frames);
	EXPECT_EQ(0, st.rx_raw_bytes);
	ASSERT_EQ(0, ioctl(self->slave, FIONREAD, &avail));
	EXPECT_EQ(0, avail);
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	ASSERT_EQ(0, ioctl(self->slave, N_ROBOT_IOC_CM5_GET_FORMAT, &f));
	EXPECT_EQ(0, f.count);
	/* the rest of the old DATA is garbage now; a STATUS still frames */
	ASSERT_EQ(6, write(self->master, s + 5, 6));
	cm5_status(s, 0, 3);
	ASSERT_EQ(7, write(self->master, s, 7));
	ASSERT_EQ(7, read_frame(self->slave, b, sizeof(b), 2000));
	EXPECT_EQ(3, b[3]);
}

struct reader {
	int fd;
	atomic_int done;
	ssize_t ret;
	int err;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint8_t b[64];

	r->ret = read(r->fd, b, sizeof(b));
	r->err = errno;
	atomic_store(&r->done, 1);
	return NULL;
}

static int wait_done(struct reader *r, int ms)
{
	while (ms-- > 0 && !atomic_load(&r->done))
		usleep(1000);
	return atomic_load(&r->done);
}

TEST_F(pty, hangup_while_reader_sleeps)
{
	struct reader r = { .fd = self->slave };
	pthread_t t;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, reader_main, &r));
	usleep(100000);
	ASSERT_FALSE(atomic_load(&r.done));
	close(self->master);		/* the pty hangs up the slave */
	self->master = -1;
	ASSERT_TRUE(wait_done(&r, 5000));
	pthread_join(t, NULL);
	EXPECT_TRUE(r.ret == 0 || (r.ret == -1 && r.err == EIO));
}

TEST_F(pty, ldisc_change_while_reader_sleeps)
{
	struct reader r = { .fd = self->slave };
	int n_tty = N_TTY, ld = -1;
	pthread_t t;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_PAROL6, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, reader_main, &r));
	usleep(100000);
	ASSERT_FALSE(atomic_load(&r.done));
	ASSERT_EQ(0, ioctl(self->slave, TIOCSETD, &n_tty));
	ASSERT_EQ(0, ioctl(self->slave, TIOCGETD, &ld));
	EXPECT_EQ(N_TTY, ld);
	/* the reader left our discipline; under N_TTY it may sleep again */
	ASSERT_EQ(1, write(self->master, "x", 1));
	ASSERT_TRUE(wait_done(&r, 5000));
	pthread_join(t, NULL);
}

TEST_F(pty, reader_killed_then_tty_closed)
{
	struct n_robot_stats st;
	int status;
	pid_t pid;

	ASSERT_EQ(0, attach(self->slave, N_ROBOT_FRAMING_CM5, 0));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		uint8_t b[16];

		read(self->slave, b, sizeof(b));
		_exit(0);
	}
	usleep(100000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	/* the discipline still works for the parent */
	ASSERT_EQ(0, stats(self->slave, &st));
	close(self->slave);		/* last close of the slave */
	self->slave = -1;
	close(self->master);
	self->master = -1;
}

/* The robot's side of the noise test: write the stream, keeping ahead of
 * the reader by a bounded amount so the queue never overflows.
 */
struct feeder {
	int fd;			/* the master */
	int slave;		/* to watch the receive queue */
	const struct ts_stream *s;
	int err;
	volatile int done;	/* every byte written, or an error */
};

static void *feeder_main(void *arg)
{
	struct feeder *f = arg;
	const struct ts_stream *s = f->s;
	struct n_robot_stats st;
	size_t off = 0, n;
	ssize_t w;

	while (off < s->len) {
		if (stats(f->slave, &st)) {
			f->err = errno;
			return NULL;
		}
		/* Bytes still in the tty's flip buffers become frames soon:
		 * count them too (a CM-5 frame can be 7 bytes).
		 */
		if (st.rx_queued_frames > N_ROBOT_RX_QUEUE_MAX / 2 ||
		    off - st.rx_raw_bytes > 2048) {
			usleep(1000);
			continue;
		}
		n = s->len - off < 509 ? s->len - off : 509;
		w = write(f->fd, s->buf + off, n);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			f->err = errno;
			return NULL;
		}
		off += w;
	}
	f->done = 1;
	return NULL;
}

static void noise_run(struct __test_metadata *_metadata, int master,
		      int slave, uint32_t framing)
{
	struct ts_sink sink = { 0 };
	struct n_robot_stats st;
	struct ts_result res;
	struct ts_stream s;
	struct feeder f = { .fd = master, .slave = slave };
	uint8_t b[N_ROBOT_MAX_FRAME];
	pthread_t t;
	char why[256];
	ssize_t n;

	ts_build(&s, framing, 10000, 0x5eed + framing, 10, 10);
	f.s = &s;
	ASSERT_EQ(0, attach(slave, framing, N_ROBOT_RX_QUEUE_MAX));
	if (framing == N_ROBOT_FRAMING_CM5)
		ASSERT_EQ(0, set_read_format(slave, 2, 5));
	ASSERT_EQ(0, pthread_create(&t, NULL, feeder_main, &f));
	/*
	 * The stream ends when the feeder has written it all, the discipline
	 * has taken every byte and no frame waits: not at a pause, which a
	 * starved feeder can make as long as it likes.
	 */
	for (int idle = 0;;) {
		n = read_frame(slave, b, sizeof(b), 100);
		if (n == -ETIMEDOUT) {
			if (f.err)
				break;
			ASSERT_EQ(0, stats(slave, &st));
			/* twice in a row: a frame being queued as the bytes are counted */
			if (f.done && st.rx_raw_bytes >= s.len && !st.rx_queued_frames)
				idle++;
			else
				idle = 0;
			if (idle == 2)
				break;
			continue;
		}
		idle = 0;
		ASSERT_GT(n, 0);
		ts_sink_add(&sink, b, n);
	}
	pthread_join(t, NULL);
	ASSERT_EQ(0, f.err);
	ASSERT_EQ(0, stats(slave, &st));
	EXPECT_EQ(s.len, st.rx_raw_bytes);
	EXPECT_EQ(0, st.rx_overruns);
	EXPECT_EQ(sink.n, st.rx_frames);
	EXPECT_TRUE(accounted(&st));
	ASSERT_EQ(0, ts_verify(&s, &sink, &res, why, sizeof(why)))
		TH_LOG("%s", why);
	TH_LOG("%zu frames, %zu touched, %zu delivered, %zu shadowed",
	       s.nframes, s.touched, res.delivered, res.shadowed);
	EXPECT_GE(s.touched, 500);
	EXPECT_LE(res.shadowed, s.nframes / 100);
	ts_sink_free(&sink);
	ts_free(&s);
}

TEST_F_TIMEOUT(pty, cm5_noise_10000_frames, 300)
{
	noise_run(_metadata, self->master, self->slave, N_ROBOT_FRAMING_CM5);
}

TEST_F_TIMEOUT(pty, parol6_noise_10000_frames, 300)
{
	noise_run(_metadata, self->master, self->slave,
		  N_ROBOT_FRAMING_PAROL6);
}

TEST_HARNESS_MAIN
