// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host physics' messages (physics_wire.c): both kinds round trip field
 * by field, the bytes are little-endian where the header says, and what a
 * broken or hostile peer sends (short, long, wrong magic, wrong version,
 * a huge or wrong length, unknown type or flags) is refused, not read.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "kselftest_harness.h"
#include "physics_wire.h"

static void request(struct physw_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = PHYSW_REQUEST;
	m->seq = 0x01020304;
	m->req.flags = PHYSW_F_START | PHYSW_F_PUSH;
	m->req.seconds = 0.012f;
	for (int i = 0; i < NAOBODY_JOINTS; i++) {
		m->req.target[i] = 0.01f * (float)i - 0.1f;
		m->req.stiffness[i] = (float)i / NAOBODY_JOINTS;
	}
	m->req.push[0] = 30;
	m->req.push[1] = -5;
	m->req.push[2] = 0.1f;
	m->req.hold_height = 0.2f;
}

static int encoded(uint8_t *buf, size_t len)
{
	struct physw_msg m;

	request(&m);
	return physw_encode(&m, buf, len);
}

TEST(request_round_trip)
{
	struct physw_msg m, d;
	uint8_t buf[1024];
	int n;

	request(&m);
	n = physw_encode(&m, buf, sizeof(buf));
	ASSERT_EQ(PHYSW_HEADER + physw_payload_len(PHYSW_REQUEST), (size_t)n);
	/* 2 words, 2 x 25 joints, push 3, hold 1 */
	EXPECT_EQ((size_t)(4 * (2 + 2 * NAOBODY_JOINTS + 3 + 1)),
		  physw_payload_len(PHYSW_REQUEST));
	/* little-endian header: magic "NBPH", version, type, length, seq */
	EXPECT_EQ(0, memcmp(buf, "NBPH", 4));
	EXPECT_EQ(PHYSW_VERSION, buf[4]);
	EXPECT_EQ(PHYSW_REQUEST, buf[6]);
	EXPECT_EQ(0x04, buf[12]);
	EXPECT_EQ(0x01, buf[15]);
	EXPECT_EQ(n, physw_decode(buf, (size_t)n, &d));
	EXPECT_EQ(PHYSW_REQUEST, d.type);
	EXPECT_EQ(m.seq, d.seq);
	EXPECT_EQ(0, memcmp(&m.req, &d.req, sizeof(m.req)));
}

TEST(reply_round_trip)
{
	struct physw_msg m, d;
	uint8_t buf[2048];
	float *f;
	int n;

	memset(&m, 0, sizeof(m));
	m.type = PHYSW_REPLY;
	m.seq = 7;
	/* every float of the sense struct distinct: a field left out shows */
	f = (float *)&m.rep.sense;
	for (size_t i = 0; i < sizeof(m.rep.sense) / sizeof(float); i++)
		f[i] = 1.5f + (float)i;
	m.rep.torso[2] = 0.33f;
	m.rep.model_seconds = 0.024f;
	m.rep.cpu_us = 310;
	m.rep.folded = 2;
	n = physw_encode(&m, buf, sizeof(buf));
	ASSERT_GT(n, 0);
	EXPECT_EQ(n, physw_decode(buf, (size_t)n, &d));
	EXPECT_EQ(PHYSW_REPLY, d.type);
	EXPECT_EQ(0, memcmp(&m.rep.sense, &d.rep.sense, sizeof(m.rep.sense)));
	EXPECT_EQ(0, memcmp(m.rep.torso, d.rep.torso, sizeof(m.rep.torso)));
	EXPECT_EQ(310U, d.rep.cpu_us);
	EXPECT_EQ(2U, d.rep.folded);
	/* the table covers the whole struct: none of it is padding or left out */
	EXPECT_EQ(sizeof(m.rep.sense) + 4 * 4 + 4 * 4, physw_payload_len(PHYSW_REPLY));
}

TEST(non_finite_numbers_are_refused)
{
	struct physw_msg m, d;
	uint8_t buf[2048];
	int n;

	/* a NaN target, an infinite push: refused, whichever side decodes */
	request(&m);
	m.req.target[3] = NAN;
	n = physw_encode(&m, buf, sizeof(buf));
	ASSERT_GT(n, 0);
	EXPECT_EQ(-EDOM, physw_decode(buf, (size_t)n, &d));
	request(&m);
	m.req.push[0] = -INFINITY;
	n = physw_encode(&m, buf, sizeof(buf));
	EXPECT_EQ(-EDOM, physw_decode(buf, (size_t)n, &d));
	/* a NaN in a reply's sense; but a u32 is bits, whatever they are */
	memset(&m, 0, sizeof(m));
	m.type = PHYSW_REPLY;
	m.rep.sense.sonar[1] = NAN;
	n = physw_encode(&m, buf, sizeof(buf));
	EXPECT_EQ(-EDOM, physw_decode(buf, (size_t)n, &d));
	m.rep.sense.sonar[1] = 2.55f;
	m.rep.sense.touch = 0xffffffffu;
	n = physw_encode(&m, buf, sizeof(buf));
	EXPECT_EQ(n, physw_decode(buf, (size_t)n, &d));
	EXPECT_EQ(0xffffffffu, d.rep.sense.touch);
}

TEST(short_is_not_yet)
{
	struct physw_msg d;
	uint8_t buf[1024];
	int n = encoded(buf, sizeof(buf));

	/* every prefix of a good message: wait for more, never a message */
	for (int i = 0; i < n; i++)
		EXPECT_EQ(0, physw_decode(buf, (size_t)i, &d));
}

TEST(long_is_one_message_then_the_next)
{
	struct physw_msg d;
	uint8_t buf[2048];
	int n = encoded(buf, sizeof(buf));

	memcpy(buf + n, buf, (size_t)n);
	EXPECT_EQ(n, physw_decode(buf, 2 * (size_t)n, &d));
	EXPECT_EQ(n, physw_decode(buf + n, (size_t)n, &d));
}

TEST(wrong_magic)
{
	struct physw_msg d;
	uint8_t buf[1024];
	int n = encoded(buf, sizeof(buf));

	buf[0] = 'X';
	EXPECT_EQ(-EBADMSG, physw_decode(buf, (size_t)n, &d));
	/* seen from the first byte: no waiting for a header of garbage */
	EXPECT_EQ(-EBADMSG, physw_decode(buf, 1, &d));
	buf[0] = 'N';
	buf[3] = 'X';
	EXPECT_EQ(-EBADMSG, physw_decode(buf, 4, &d));
}

TEST(wrong_version)
{
	struct physw_msg d;
	uint8_t buf[1024];
	int n = encoded(buf, sizeof(buf));

	buf[4] = PHYSW_VERSION + 1;
	EXPECT_EQ(-EPROTONOSUPPORT, physw_decode(buf, (size_t)n, &d));
	buf[4] = PHYSW_VERSION;
	buf[5] = 1;
	EXPECT_EQ(-EPROTONOSUPPORT, physw_decode(buf, PHYSW_HEADER, &d));
}

TEST(huge_or_wrong_length)
{
	struct physw_msg d;
	uint8_t buf[1024];
	int n = encoded(buf, sizeof(buf));

	/* refused from the header alone: nobody waits for 4 GB */
	memset(buf + 8, 0xff, 4);
	EXPECT_EQ(-EMSGSIZE, physw_decode(buf, PHYSW_HEADER, &d));
	buf[8] = 0x01;
	buf[9] = 0x10;
	buf[10] = buf[11] = 0;		/* 4097 */
	EXPECT_EQ(-EMSGSIZE, physw_decode(buf, PHYSW_HEADER, &d));
	/* a length that fits but is not a request's: another build's */
	buf[8] = (uint8_t)(physw_payload_len(PHYSW_REQUEST) + 4);
	buf[9] = 0;
	EXPECT_EQ(-EMSGSIZE, physw_decode(buf, (size_t)n, &d));
	buf[8] = (uint8_t)(physw_payload_len(PHYSW_REQUEST) - 4);
	EXPECT_EQ(-EMSGSIZE, physw_decode(buf, (size_t)n, &d));
}

TEST(unknown_type_and_flags)
{
	struct physw_msg d;
	uint8_t buf[1024];
	int n = encoded(buf, sizeof(buf));

	buf[6] = 3;
	EXPECT_EQ(-EPROTO, physw_decode(buf, (size_t)n, &d));
	buf[6] = 0;
	EXPECT_EQ(-EPROTO, physw_decode(buf, (size_t)n, &d));
	buf[6] = PHYSW_REQUEST;
	buf[PHYSW_HEADER + 3] = 0x80;	/* flags bit 31 */
	EXPECT_EQ(-EPROTO, physw_decode(buf, (size_t)n, &d));
}

TEST(encode_needs_room)
{
	struct physw_msg m;
	uint8_t buf[1024];

	request(&m);
	EXPECT_EQ(-ENOSPC, physw_encode(&m, buf, PHYSW_HEADER));
	m.type = (enum physw_type)9;
	EXPECT_EQ(-ENOSPC, physw_encode(&m, buf, sizeof(buf)));
}

TEST(resync_finds_the_next_magic)
{
	uint8_t buf[2048];
	int n = encoded(buf + 5, sizeof(buf) - 5);

	memset(buf, 'x', 5);
	EXPECT_EQ(5U, physw_resync(buf, 5 + (size_t)n));
	/* no magic: everything goes */
	EXPECT_EQ(5U, physw_resync(buf, 5));
	/* a magic's first bytes at the end: kept for the next read */
	EXPECT_EQ(5U, physw_resync(buf, 7));
}

TEST_HARNESS_MAIN
