// SPDX-License-Identifier: GPL-2.0-only
/*
 * libcm5's error paths against a CM-5 that answers as BRBrain's firmware
 * does (brbrain.c, Documentation/n_robot.rst): over a socketpair, with the
 * userspace framers. Built with ASan and UBSan by make unit.
 *
 * The firmware stores a SET_*_FORMAT before it reads the checksum, and then
 * reports a bad one as STATUS 0x40; a reply to READ_DATA carries exactly as
 * many data bytes as its read format says, 0xFF where a servo did not
 * answer.
 */
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include <cm5/cm5.h>

/* The fake CM-5: what it answers, and what it saw. */
struct fake {
	int fd;
	uint8_t format_status;		/* the STATUS byte answering F1/F2 */
	bool mute;			/* answer nothing */
	unsigned int read_bytes;	/* the installed read format's total */
	uint8_t last_format[2 + 3 * N_ROBOT_CM5_MAX_DYNAMIXELS + 1];	/* and its checksum */
	int requests;
	int short_writes;
};

static void fake_reply(struct fake *f, uint8_t instr, const uint8_t *data,
		       size_t n, uint8_t status)
{
	uint8_t p[N_ROBOT_CM5_MAX_FRAME];
	size_t len = 0;

	p[len++] = instr;
	if (n)
		memcpy(p + len, data, n);
	len += n;
	p[len++] = status;
	p[len++] = 0;		/* retries */
	p[len++] = 180;		/* adc pos, neg, therm */
	p[len++] = 0;
	p[len++] = 100;
	p[len] = cm5_checksum(p, len);
	len++;
	if (write(f->fd, p, len) != (ssize_t)len)
		f->short_writes++;
}

static int fake_byte(struct fake *f)
{
	uint8_t b;

	return read(f->fd, &b, 1) == 1 ? b : -1;
}

static void *fake_cm5(void *arg)
{
	struct fake *f = arg;
	uint8_t data[N_ROBOT_CM5_MAX_FRAME];
	int b, n, i;

	while ((b = fake_byte(f)) >= 0) {
		f->requests++;
		switch (b) {
		case N_ROBOT_CM5_SET_READ:
		case N_ROBOT_CM5_SET_WRITE:
			n = fake_byte(f);
			if (n < 0 || n > N_ROBOT_CM5_MAX_DYNAMIXELS)
				return NULL;
			f->last_format[0] = (uint8_t)b;
			f->last_format[1] = (uint8_t)n;
			if (b == N_ROBOT_CM5_SET_READ)
				f->read_bytes = 0;
			for (i = 0; i < 3 * n; i++) {
				f->last_format[2 + i] = (uint8_t)fake_byte(f);
				if (b == N_ROBOT_CM5_SET_READ && i % 3 == 2)
					f->read_bytes += f->last_format[2 + i];
			}
			/* the checksum: the firmware stores the format first anyway */
			f->last_format[2 + 3 * n] = (uint8_t)fake_byte(f);
			if (f->mute)
				break;
			fake_reply(f, N_ROBOT_CM5_STATUS, NULL, 0,
				   f->format_status);
			break;
		case N_ROBOT_CM5_READ_DATA:
			fake_byte(f);
			for (i = 0; i < (int)f->read_bytes; i++)
				data[i] = (uint8_t)(i + 1);
			fake_reply(f, N_ROBOT_CM5_DATA, data, f->read_bytes, 0);
			break;
		default:
			break;
		}
	}
	return NULL;
}

FIXTURE(cm5) {
	struct cm5 c;
	struct fake f;
	pthread_t thread;
	int sv[2];
};

FIXTURE_SETUP(cm5)
{
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, self->sv));
	memset(&self->f, 0, sizeof(self->f));
	self->f.fd = self->sv[1];
	ASSERT_EQ(0, pthread_create(&self->thread, NULL, fake_cm5, &self->f));
	ASSERT_EQ(0, cm5_attach_fd(&self->c, self->sv[0], NR_LINK_RAW));
	self->c.timeout_ms = 300;
	self->c.retries = 0;
}

FIXTURE_TEARDOWN(cm5)
{
	shutdown(self->sv[0], SHUT_RDWR);
	shutdown(self->sv[1], SHUT_RDWR);
	pthread_join(self->thread, NULL);
	close(self->sv[0]);
	close(self->sv[1]);
}

static void two_positions(struct cm5_fmt_entry e[2])
{
	const struct cm5_reg *pos = cm5_reg_find(N_ROBOT_CM5_MODEL_AX12,
						 "present_position");

	e[0] = (struct cm5_fmt_entry){ .id = 1, .start = pos, .nregs = 1 };
	e[1] = (struct cm5_fmt_entry){ .id = 2, .start = pos, .nregs = 1 };
}

/*
 * STATUS 0x40 answering a read format: the format is unknown, a read is
 * refused with -ESTALE (it used to walk the old totals into a NULL
 * register), and setting it again cleanly makes reads work.
 */
TEST_F(cm5, read_after_a_format_answered_with_0x40_is_refused_until_reset)
{
	struct cm5_fmt_entry e[2];
	int32_t v[4];

	two_positions(e);
	self->f.format_status = 0x40;
	EXPECT_EQ(0x40, cm5_set_read_format(&self->c, e, 2));
	EXPECT_TRUE(self->c.fmt[N_ROBOT_CM5_FORMAT_READ].unknown);
	EXPECT_EQ(-ESTALE, cm5_read_raw(&self->c, v, 4));
	self->f.format_status = 0;
	EXPECT_EQ(0, cm5_set_read_format(&self->c, e, 2));
	ASSERT_EQ(0, cm5_read_raw(&self->c, v, 4));
	EXPECT_EQ(0x0201, v[0]);	/* little endian, bytes 1, 2 */
	EXPECT_EQ(0x0403, v[1]);
}

/* The same for a write format, and for one that got no answer at all. */
TEST_F(cm5, write_after_a_rejected_or_unanswered_format_is_refused)
{
	const struct cm5_reg *goal = cm5_reg_find(N_ROBOT_CM5_MODEL_AX12,
						  "goal_position");
	struct cm5_fmt_entry e = { .id = 1, .start = goal, .nregs = 1 };
	int32_t v = 512;

	self->f.format_status = 0x04;
	EXPECT_EQ(0x04, cm5_set_write_format(&self->c, &e, 1));
	EXPECT_EQ(-ESTALE, cm5_write_raw(&self->c, &v, 1));
	/* the CM-5 goes silent: a timeout leaves the format unknown too */
	self->f.mute = true;
	EXPECT_EQ(-ETIMEDOUT, cm5_set_read_format(&self->c, &e, 1));
	EXPECT_EQ(-ESTALE, cm5_read_raw(&self->c, &v, 1));
}

/* An entry of 0 registers goes out as (id, 0, 0), as BRBrain sends it. */
TEST_F(cm5, a_format_entry_of_no_registers_is_sent_and_takes_no_bytes)
{
	struct cm5_fmt_entry e[3];
	int32_t v[4];

	two_positions(e);
	e[2] = e[1];
	e[1] = (struct cm5_fmt_entry){ .id = 7, .start = NULL, .nregs = 0 };
	ASSERT_EQ(0, cm5_set_read_format(&self->c, e, 3));
	EXPECT_EQ(3, self->f.last_format[1]);
	EXPECT_EQ(7, self->f.last_format[5]);
	EXPECT_EQ(0, self->f.last_format[6]);
	EXPECT_EQ(0, self->f.last_format[7]);
	EXPECT_EQ(4u, self->f.read_bytes);
	ASSERT_EQ(0, cm5_read_raw(&self->c, v, 4));
	EXPECT_EQ(0x0403, v[1]);
}

/*
 * With a start register too (cm5ctl's 1:present_position:0), BRBrain's
 * setFormat() sends no start for it: these are its bytes for
 * {1, present_position, 0} and {2, present_position, 1}.
 */
TEST_F(cm5, a_format_entry_of_no_registers_is_brbrains_bytes_whatever_its_start)
{
	static const uint8_t brbrain[] = { 0xf1, 0x02, 0x01, 0x00, 0x00, 0x02, 0x24, 0x02, 0xe3 };
	struct cm5_fmt_entry e[2];

	two_positions(e);
	e[0].nregs = 0;
	ASSERT_EQ(0, cm5_set_read_format(&self->c, e, 2));
	EXPECT_EQ(0, memcmp(self->f.last_format, brbrain, sizeof(brbrain)));
	EXPECT_EQ(2u, self->f.read_bytes);
}

TEST_HARNESS_MAIN
