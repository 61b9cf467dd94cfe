// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every misbehaviour of the emulator does what it says to a host that
 * runs the driver's cycle, for as many cycles as asked, and the emulator
 * is healthy again afterwards.
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "common.h"

FIXTURE(emu) {
	struct nb_emu emu;
	struct host h;
	uint8_t frame[NB_FRAME_MAX];
	int len;
	uint32_t crc;
	struct host_cycle c;
};

FIXTURE_SETUP(emu)
{
	uint8_t v[4];

	ASSERT_EQ(0, nb_gadget_load_modules());
	ASSERT_EQ(0, emu_up(&self->emu, &self->h, NULL));
	ASSERT_EQ(0, host_startup(&self->h, v));
	self->len = plain_frame(self->frame, &self->crc);
	ASSERT_LT(0, self->len);
}

FIXTURE_TEARDOWN(emu)
{
	emu_down(&self->emu, &self->h);
}

/* One ordinary cycle, checked through: acknowledge and answer. */
#define HEALTHY() do {							\
	struct nb_frame f_;						\
									\
	ASSERT_EQ(0, host_cycle(&self->h, self->frame, (size_t)self->len, &self->c)); \
	ASSERT_EQ(0, nb_ack_check(self->c.ackbuf, (size_t)self->c.ack, self->crc)); \
	ASSERT_EQ(0, nb_frame_parse(&f_, self->c.answer, (size_t)self->c.in, \
				    NB_FRAME_IN));			\
} while (0)

/* One cycle that gets as far as an answer, whatever it holds. */
#define ANSWERED() do {							\
	ASSERT_EQ(0, host_cycle(&self->h, self->frame, (size_t)self->len, &self->c)); \
	ASSERT_EQ(0, nb_ack_check(self->c.ackbuf, (size_t)self->c.ack, self->crc)); \
} while (0)

static int parse(struct host_cycle *c, unsigned int flags)
{
	struct nb_frame f;

	return nb_frame_parse(&f, c->answer, (size_t)c->in, NB_FRAME_IN | flags);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Its own CRC is right: only what the misbehaviour broke is broken. */
static bool crc_ok(const struct host_cycle *c)
{
	return c->in >= 4 &&
	       nb_crc32(0, c->answer, (size_t)c->in - 4) == be32(c->answer + c->in - 4);
}

TEST_F(emu, bad_crc_for_as_many_cycles_as_asked)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_BAD_CRC, 3, 0));
	for (int i = 0; i < 3; i++) {
		ANSWERED();
		EXPECT_EQ(-EBADMSG, parse(&self->c, 0));
		EXPECT_EQ(0, parse(&self->c, NB_FRAME_NO_CRC));
	}
	HEALTHY();
	HEALTHY();
}

TEST_F(emu, misbehaves_until_switched_off)
{
	struct nb_emu_stats st;

	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_BAD_CRC, -1, 0));
	for (int i = 0; i < 10; i++) {
		ANSWERED();
		EXPECT_EQ(-EBADMSG, parse(&self->c, 0));
	}
	ASSERT_EQ(0, nb_emu_cmd(&self->emu, NULL, 0, "misbehave off"));
	HEALTHY();
	ASSERT_EQ(0, nb_emu_stats(&self->emu, &st));
	EXPECT_EQ(10, st.misbehaviours);
}

TEST_F(emu, broken_length_table)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_BAD_TABLE, 1, 0));
	ANSWERED();
	EXPECT_TRUE(crc_ok(&self->c));
	EXPECT_EQ(-EPROTO, parse(&self->c, 0));
	HEALTHY();
}

TEST_F(emu, answer_with_256_messages)
{
	unsigned int k = 0, sum = 0, n;

	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_MSGS256, 1, 0));
	ANSWERED();
	EXPECT_TRUE(crc_ok(&self->c));
	EXPECT_EQ(-EPROTO, parse(&self->c, 0));
	/* its table adds up, with a 256th entry */
	n = (unsigned int)self->c.in - 4;
	while (sum + k < n) {
		sum += self->c.answer[n - 1 - k];
		k++;
	}
	EXPECT_EQ(n, sum + k);
	EXPECT_EQ(256, k);
	HEALTHY();
}

/* The host's read fills at 512 bytes; the rest never leaks into the next cycle. */
TEST_F(emu, over_long_answer)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_OVERLONG, 1, 900));
	ANSWERED();
	EXPECT_EQ(512, self->c.in);
	EXPECT_NE(0, parse(&self->c, 0));
	HEALTHY();
	HEALTHY();
}

TEST_F(emu, answer_cut_short)
{
	int full;

	HEALTHY();
	full = self->c.in;
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_SHORT, 1, 0));
	ANSWERED();
	EXPECT_LT(0, self->c.in);
	EXPECT_GT(full, self->c.in);
	EXPECT_NE(0, parse(&self->c, 0));
	HEALTHY();
	EXPECT_EQ(full, self->c.in);
}

/* A 64n-byte answer without its zero-length packet never ends the read. */
TEST_F(emu, no_zero_length_packet)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_NO_ZLP, 1, 0));
	self->h.in_timeout_ms = HOST_TIMEOUT_MS;
	EXPECT_EQ(-ETIMEDOUT, host_cycle(&self->h, self->frame, (size_t)self->len,
					 &self->c));
	EXPECT_EQ(0, nb_ack_check(self->c.ackbuf, (size_t)self->c.ack, self->crc));
	EXPECT_EQ(2, self->c.status);
	self->h.in_timeout_ms = HOST_PATIENT_MS;
	HEALTHY();
}

TEST_F(emu, stalls_bulk_in)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_STALL_IN, 1, 0));
	EXPECT_EQ(-EPIPE, host_cycle(&self->h, self->frame, (size_t)self->len, &self->c));
	EXPECT_EQ(0, nb_ack_check(self->c.ackbuf, (size_t)self->c.ack, self->crc));
	EXPECT_EQ(-EPIPE, self->c.in);
	/* still halted until the host clears it */
	EXPECT_EQ(-EPIPE, host_bulk(&self->h, self->h.ep_in, self->c.answer,
				    sizeof(self->c.answer), 0, self->h.timeout_ms));
	ASSERT_EQ(0, host_clear_halt(&self->h, self->h.ep_in));
	HEALTHY();
}

TEST_F(emu, stalls_bulk_out)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_STALL_OUT, 1, 0));
	HEALTHY();	/* this frame is answered; the next one stalls */
	EXPECT_EQ(-EPIPE, host_cycle(&self->h, self->frame, (size_t)self->len, &self->c));
	EXPECT_EQ(-EPIPE, self->c.out);
	ASSERT_EQ(0, host_clear_halt(&self->h, self->h.ep_out));
	HEALTHY();
}

TEST_F(emu, stalls_the_acknowledge)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_STALL_ACK, 1, 0));
	EXPECT_EQ(-EPIPE, host_cycle(&self->h, self->frame, (size_t)self->len, &self->c));
	EXPECT_EQ(-EPIPE, self->c.ack);
	HEALTHY();
}

TEST_F(emu, acknowledges_another_crc)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_WRONG_ACK, 1, 0));
	ASSERT_EQ(0, host_cycle(&self->h, self->frame, (size_t)self->len, &self->c));
	EXPECT_EQ(5, self->c.ack);
	EXPECT_EQ(0x2a, self->c.ackbuf[0]);
	EXPECT_EQ(-EBADMSG, nb_ack_check(self->c.ackbuf, 5, self->crc));
	HEALTHY();
}

TEST_F(emu, naks_until_the_host_gives_up)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_NAK, 2, 0));
	self->h.in_timeout_ms = HOST_TIMEOUT_MS;
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(-ETIMEDOUT, host_cycle(&self->h, self->frame,
						 (size_t)self->len, &self->c));
		EXPECT_EQ(0, nb_ack_check(self->c.ackbuf, (size_t)self->c.ack, self->crc));
		EXPECT_EQ(2, self->c.status);
	}
	self->h.in_timeout_ms = HOST_PATIENT_MS;
	HEALTHY();
}

/* No answer, and the 0x15 asked after the host gave up on it stalls. */
TEST_F(emu, stalls_the_status)
{
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_STALL_STATUS, 1, 0));
	self->h.in_timeout_ms = HOST_TIMEOUT_MS;
	EXPECT_EQ(-ETIMEDOUT, host_cycle(&self->h, self->frame, (size_t)self->len, &self->c));
	EXPECT_EQ(0, nb_ack_check(self->c.ackbuf, (size_t)self->c.ack, self->crc));
	EXPECT_EQ(-EPIPE, self->c.status);
	self->h.in_timeout_ms = HOST_PATIENT_MS;
	HEALTHY();
}

/* Silence: no acknowledge, no answer, no status; then the next cycle works. */
TEST_F(emu, falls_silent_for_a_cycle)
{
	uint8_t st[2];

	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_SILENCE, 1, 0));
	self->h.timeout_ms = 40;	/* < the emulator's silent hold */
	EXPECT_EQ(-ETIMEDOUT, host_cycle(&self->h, self->frame, (size_t)self->len,
					 &self->c));
	EXPECT_LE(0, self->c.out);
	EXPECT_EQ(-ETIMEDOUT, self->c.ack);
	EXPECT_EQ(-ETIMEDOUT, host_control(&self->h, HOST_IN, 0x15, 0, 2, st,
					   self->h.timeout_ms));
	self->h.timeout_ms = HOST_PATIENT_MS;
	HEALTHY();
	HEALTHY();
}

/*
 * The host gives up on steps (unlinks its URBs after 1 ms, as the driver
 * does after 20 ms), skips some, and the emulator keeps up: it counts
 * every frame, and the next ordinary cycles work, each acknowledged with
 * its own frame's CRC and answered with its own answer. Their frames
 * differ, so that a 0x14 acknowledging an older frame (the last frame
 * before them gets no 0x14) shows.
 */
TEST_F(emu, survives_a_host_that_gives_up)
{
	struct nb_out_plan p = { .targets = ALL_BOARDS, .requests = NB_REQ_SENSORS };
	struct nb_emu_frame rec[5];
	struct naobody_actuators a;
	uint8_t ack[8], st[2];
	struct nb_emu_stats s;

	for (int i = 0; i < 40; i++) {
		ASSERT_EQ(self->len, host_bulk(&self->h, self->h.ep_out, self->frame,
					       (size_t)self->len, 1, HOST_PATIENT_MS));
		if (i % 4 == 3)
			continue;	/* no 0x14, no answer read */
		host_control(&self->h, HOST_IN, 0x14, 0, 5, ack, 1);
		if (i % 4 == 2)
			continue;
		host_bulk(&self->h, self->h.ep_in, self->c.answer, sizeof(self->c.answer),
			  0, 1);
		if (i % 2)
			host_control(&self->h, HOST_IN, 0x15, 0, 2, st, 1);
	}
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 5; i++) {
		a.position[0] = 10000 * (i + 1);
		self->len = out_frame(self->frame, &a, &p, &self->crc);
		ASSERT_LT(0, self->len);
		HEALTHY();
	}
	ASSERT_EQ(0, nb_emu_stats(&self->emu, &s));
	EXPECT_EQ(45, s.frames);
	/*
	 * The emulator learns that an answer was read through FunctionFS's
	 * workqueue, so only once the next frame has come out of it: the
	 * last answer may not be marked read yet.
	 */
	ASSERT_EQ(5, nb_emu_frames(&self->emu, 40, rec, 5));
	for (int i = 0; i < 5; i++) {
		EXPECT_EQ(40 + i, rec[i].seq);
		EXPECT_TRUE(rec[i].flags & NB_EMU_F_ACKED);
		if (i < 4)
			EXPECT_TRUE(rec[i].flags & NB_EMU_F_ANSWER_READ);
	}
}

static void reopen(struct __test_metadata *_metadata, struct nb_emu *emu, struct host *h)
{
	host_close(h);
	ASSERT_EQ(0, nb_gadget_wait_host_device(0xffff, 0x0006, 10000,
						emu->host_dev, sizeof(emu->host_dev)));
	ASSERT_EQ(0, host_open(h, emu->host_dev));
}

/* Gone before the acknowledge; back after arg ms, and working. */
TEST_F(emu, disconnects_mid_cycle)
{
	struct nb_emu_stats st;
	int r;

	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_DISCONNECT, 1,
				      EMU_TEST_RECONNECT_MS));
	r = host_cycle(&self->h, self->frame, (size_t)self->len, &self->c);
	EXPECT_LE(0, self->c.out);
	EXPECT_GT(0, self->c.ack);
	EXPECT_EQ(self->c.ack, r);
	TH_LOG("the host's 0x14 failed with %d", self->c.ack);
	EXPECT_EQ(0, nb_gadget_wait_host_gone(0xffff, 0x0006, EMU_TEST_GONE_MS));
	reopen(_metadata, &self->emu, &self->h);
	HEALTHY();
	ASSERT_EQ(0, nb_emu_stats(&self->emu, &st));
	EXPECT_EQ(2, st.connects);
}

TEST_F(emu, disconnects_and_connects_on_request)
{
	ASSERT_EQ(0, nb_emu_disconnect(&self->emu));
	EXPECT_EQ(0, nb_gadget_wait_host_gone(0xffff, 0x0006, 5000));
	EXPECT_GT(0, host_cycle(&self->h, self->frame, (size_t)self->len, &self->c));
	ASSERT_EQ(0, nb_emu_connect(&self->emu));
	reopen(_metadata, &self->emu, &self->h);
	HEALTHY();
}

/* Unbind and bind again and again; it ends up bound and working. */
TEST_F(emu, survives_a_reconnect_storm)
{
	struct nb_emu_stats st;

	ASSERT_EQ(0, nb_emu_storm(&self->emu, 8, 30, 60));
	for (int i = 0; i < 100; i++) {
		ASSERT_EQ(0, nb_emu_stats(&self->emu, &st));
		if (st.connects == 9)
			break;
		usleep(50000);
	}
	EXPECT_EQ(9, st.connects);
	usleep(200000);
	reopen(_metadata, &self->emu, &self->h);
	HEALTHY();
	ASSERT_EQ(0, nb_emu_stats(&self->emu, &st));
	EXPECT_EQ(9, st.connects);
	TH_LOG("the host configured it %llu times", (unsigned long long)st.enables);
}

/* Harakiri: power off leaves it gone; reset brings it back. */
TEST_F(emu, harakiri_powers_off_or_resets)
{
	struct nb_out_plan p = { .requests = NB_REQ_HARAKIRI,
				 .harakiri = NAOBODY_HARAKIRI_RESET };
	char reply[512];

	ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &self->c, &self->crc));
	EXPECT_EQ(0, nb_gadget_wait_host_gone(0xffff, 0x0006, EMU_TEST_GONE_MS));
	reopen(_metadata, &self->emu, &self->h);
	self->len = plain_frame(self->frame, &self->crc);
	HEALTHY();

	/* Off stays off past a reset's return: unbound, and not on the bus. */
	p.harakiri = NAOBODY_HARAKIRI_POWER_OFF;
	ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &self->c, &self->crc));
	EXPECT_EQ(0, nb_gadget_wait_host_gone(0xffff, 0x0006, EMU_TEST_GONE_MS));
	usleep((EMU_TEST_RECONNECT_MS + 500) * 1000);
	ASSERT_EQ(0, nb_emu_cmd(&self->emu, reply, sizeof(reply), "status"));
	EXPECT_TRUE(!strncmp(reply, "bound=0 ", 8)) TH_LOG("status: %s", reply);
	EXPECT_EQ(-ETIMEDOUT, nb_gadget_wait_host_device(0xffff, 0x0006, 0, NULL, 0));
	ASSERT_EQ(0, nb_emu_connect(&self->emu));
	reopen(_metadata, &self->emu, &self->h);
	self->len = plain_frame(self->frame, &self->crc);
	HEALTHY();
}

/* A board that does not start again: 0x02 stalls until switched off. */
TEST_F(emu, stalls_the_version_request_until_off)
{
	uint8_t v[4];

	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_NO_VERSION, -1, 0));
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(-EPIPE, host_startup(&self->h, v));
	ASSERT_EQ(0, nb_emu_cmd(&self->emu, NULL, 0, "misbehave off"));
	EXPECT_EQ(0, host_startup(&self->h, v));
	HEALTHY();
}

TEST_HARNESS_MAIN
