// SPDX-License-Identifier: GPL-2.0-only
/*
 * Messages: the provisional tables' consistency, every decoder at its
 * extreme values, malformed and unknown messages, the OUT cycle, the
 * emulator's body, the handshake answer, and golden frames encoded and
 * decoded back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "kselftest_harness.h"
#include "codec_test.h"

static int board_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < NB_BOARDS; i++)
		if (!strcmp(nb_board(i)->name, name))
			return i;
	return -1;
}

/* ------------------------------------------------------------------------
 * The tables
 */

TEST(board_table_covers_every_joint_once)
{
	unsigned int seen[NAOBODY_JOINTS] = { 0 };
	unsigned int i, j, fsr = 0, touch = 0;

	ASSERT_NULL(nb_board(NB_BOARDS));
	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *b = nb_board(i);

		ASSERT_NE(NULL, b);
		ASSERT_TRUE(b->bus == 0 || b->bus == 1);
		ASSERT_LE(b->joints, 2);
		for (j = 0; j < b->joints; j++) {
			ASSERT_LT(b->joint[j], NAOBODY_JOINTS);
			seen[b->joint[j]]++;
		}
		switch (b->kind) {
		case NAOBODY_BOARD_JOINT:
			EXPECT_EQ(0x07, b->start);
			EXPECT_GE(b->joints, 1);
			EXPECT_EQ(NB_NONE, b->touch);
			EXPECT_EQ(NB_NONE, b->fsr);
			break;
		case NAOBODY_BOARD_HAND:
			EXPECT_EQ(0x08, b->start);
			EXPECT_EQ(2, b->joints);
			/* back, left, right are consecutive touch bits */
			ASSERT_LE(b->touch + 3, NAOBODY_TOUCHES);
			touch |= 7U << b->touch;
			break;
		case NAOBODY_BOARD_FOOT:
			EXPECT_EQ(0x08, b->start);
			EXPECT_EQ(0, b->joints);
			ASSERT_TRUE(b->fsr == 0 || b->fsr == NAOBODY_FSR_RIGHT_FOOT);
			fsr |= 1U << b->fsr;
			ASSERT_LE(b->touch + 2, NAOBODY_TOUCHES);
			touch |= 3U << b->touch;
			break;
		default:
			ASSERT_TRUE(0);
		}
		/* the address finds the board, and only it */
		EXPECT_EQ((int)i, nb_board_find(b->bus, b->address));
		for (j = 0; j < i; j++)
			EXPECT_FALSE(nb_board(j)->bus == b->bus &&
				     nb_board(j)->address == b->address);
	}
	for (j = 0; j < NAOBODY_JOINTS; j++)
		EXPECT_EQ(1U, seen[j]);
	EXPECT_EQ(0x11U, fsr);
	/* every touch but the chest button's and the head's three */
	EXPECT_EQ((1U << NAOBODY_TOUCHES) - 1 - 0xf, touch);
	EXPECT_EQ(-ENOENT, nb_board_find(0, 0x99));
	EXPECT_EQ(-ENOENT, nb_board_find(2, nb_board(0)->address));
}

/* nb_board_find() (the board map) is the board table, read backwards */
TEST(board_map_matches_the_table)
{
	unsigned int bus, addr, i;

	for (bus = 0; bus < 256; bus++) {
		for (addr = 0; addr < 256; addr++) {
			int want = -ENOENT;

			for (i = 0; i < NB_BOARDS; i++)
				if (nb_board(i)->bus == bus &&
				    nb_board(i)->address == addr)
					want = i;
			ASSERT_EQ(want, nb_board_find(bus, addr));
		}
	}
	EXPECT_EQ(-ENOENT, nb_board_find(256, 0));
	EXPECT_EQ(-ENOENT, nb_board_find(0, 256 + nb_board(0)->address));
}

TEST(board_lengths_are_their_data_messages)
{
	unsigned int i;

	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *b = nb_board(i);
		int want = b->kind == NAOBODY_BOARD_FOOT ?
			nb_msg_len(NB_MSG_FOOT_BOARD, i) :
			b->kind == NAOBODY_BOARD_HAND ?
			nb_msg_len(NB_MSG_HAND_BOARD, i) :
			nb_msg_len(NB_MSG_JOINT_BOARD, i);

		EXPECT_EQ(want, b->len);
		EXPECT_NE(3 + NB_HANDSHAKE_LEN, b->len);
	}
}

TEST(field_table_fits_the_messages)
{
	unsigned int i, k, names = 0;

	for (i = 0; nb_field(i); i++) {
		const struct nb_field *f = nb_field(i);
		const struct nb_msg_layout *l = nb_msg_layout(f->msg);
		unsigned int end, reps = f->stride ? 2 : 1;

		ASSERT_NE(NULL, l);
		ASSERT_TRUE(f->width == 1 || f->width == 2 || f->width == 4);
		ASSERT_GE(f->offset, NB_MSG_HDR);
		ASSERT_NE(0, f->scale_den);
		end = f->offset + (reps - 1) * f->stride + f->width;
		EXPECT_LE(end, l->len);
		/* no two fields of a message overlap */
		for (k = 0; k < i; k++) {
			const struct nb_field *g = nb_field(k);

			if (g->msg != f->msg)
				continue;
			EXPECT_TRUE(g->offset + g->width <= f->offset ||
				    f->offset + f->width <= g->offset);
			EXPECT_STRNE(g->name, f->name);
		}
		names++;
	}
	EXPECT_GE(names, 40U);
	for (i = 1; i < __NB_MSG_MAX; i++) {
		ASSERT_NE(NULL, nb_msg_layout(i));
		EXPECT_EQ(i, nb_msg_layout(i)->type);
		EXPECT_GE(nb_msg_layout(i)->len, NB_MSG_HDR);
	}
	EXPECT_NULL(nb_msg_layout(0));
	EXPECT_NULL(nb_msg_layout(__NB_MSG_MAX));
	EXPECT_EQ(9, nb_msg_len(NB_MSG_JOINT_BOARD, board_index("LShin")));
	EXPECT_EQ(15, nb_msg_len(NB_MSG_JOINT_BOARD, board_index("Head")));
	EXPECT_EQ(7, nb_msg_len(NB_MSG_TARGETS, board_index("RHip")));
	EXPECT_EQ(-EINVAL, nb_msg_len(NB_MSG_TARGETS, board_index("LFoot")));
	EXPECT_EQ(-EINVAL, nb_msg_len(NB_MSG_TARGETS, NB_BOARDS));
	EXPECT_EQ(4, nb_msg_len(NB_MSG_ACK, 0));
}

/* ------------------------------------------------------------------------
 * Round trips through one message
 */

/* Encode one IN message from s, check it decodes to exactly s' fields. */
static int in_round_trip(struct __test_metadata *_metadata, uint8_t type,
			 uint8_t board, const struct naobody_sensors *s,
			 struct naobody_sensors *out, uint8_t *msg, size_t *len)
{
	uint8_t buf[NB_FRAME_MAX];
	struct nb_frame_builder b;
	struct nb_msg_info info = { .type = type, .board = board };
	struct nb_msg_iter it;
	struct nb_frame f;
	const uint8_t *m;
	int n, r;

	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	r = nb_in_msg_encode(&b, &info, s);
	if (r)
		return r;
	n = nb_frame_end(&b, NULL);
	EXPECT_EQ(0, nb_frame_parse(&f, buf, n, NB_FRAME_IN));
	EXPECT_EQ(1, f.count);
	nb_msg_iter_init(&it, &f);
	m = nb_msg_next(&it, len);
	if (!m)
		return -EIO;
	memcpy(msg, m, *len);
	return nb_in_msg_decode(msg, *len, out, &info);
}

static void sensors_fill(struct naobody_sensors *s, int32_t v16, uint8_t v8)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 3; i++) {
		s->accelerometer[i] = v16;
		s->gyroscope[i] = v16;
	}
	s->angles[0] = s->angles[1] = v16;
	s->battery_charge = v16;
	s->battery_status = v16;
	s->battery_current = v16;
	s->battery_temperature = v16;
	for (i = 0; i < NAOBODY_FSRS; i++)
		s->fsr[i] = v16;
	s->sonar[0] = s->sonar[1] = v16;
	for (i = 0; i < NAOBODY_JOINTS; i++) {
		s->joint_position[i] = v16;
		s->joint_current[i] = v16;
		s->joint_temperature[i] = v8;
		s->joint_status[i] = v8 > 3 ? 3 : v8;
	}
	s->touch = v8 ? 0x3fff & ~0xeU : 0;
}

/*
 * Every sensor message at the extremes of its signed and unsigned fields:
 * the decoder gives back what the encoder was given, for signed 16-bit
 * fields -32768 and 32767, for unsigned ones 0 and 65535, for bytes 0 and
 * 255, for statuses 0 and 3.
 */
TEST(every_decoder_at_its_extremes)
{
	static const struct { int32_t s16; int32_t u16; uint8_t u8; } ext[] = {
		{ -32768, 0, 0 }, { 32767, 65535, 255 }, { -1, 1, 1 },
	};
	struct naobody_sensors s, out;
	uint8_t msg[NB_MSG_MAX];
	unsigned int e, i;
	size_t len;

	for (e = 0; e < ARRAY_SIZE(ext); e++) {
		/* signed fields */
		sensors_fill(&s, ext[e].s16, ext[e].u8);
		memset(&out, 0, sizeof(out));
		ASSERT_EQ(NB_MSG_IMU, in_round_trip(_metadata, NB_MSG_IMU,
				NB_NO_BOARD, &s, &out, msg, &len));
		EXPECT_EQ(19U, len);
		EXPECT_EQ(0, memcmp(s.accelerometer, out.accelerometer,
				    sizeof(s.accelerometer)));
		EXPECT_EQ(0, memcmp(s.gyroscope, out.gyroscope,
				    sizeof(s.gyroscope)));
		EXPECT_EQ(0, memcmp(s.angles, out.angles, sizeof(s.angles)));
		EXPECT_EQ(NAOBODY_UPDATED_IMU, out.updated);

		ASSERT_EQ(NB_MSG_BATTERY, in_round_trip(_metadata,
				NB_MSG_BATTERY, NB_NO_BOARD, &s, &out, msg, &len));
		EXPECT_EQ(ext[e].s16, out.battery_status);
		EXPECT_EQ(ext[e].s16, out.battery_current);
		EXPECT_EQ(ext[e].s16, out.battery_temperature);

		for (i = 0; i < NB_BOARDS; i++) {
			const struct nb_board_desc *bd = nb_board(i);
			uint8_t t = bd->kind == NAOBODY_BOARD_JOINT ?
				NB_MSG_JOINT_BOARD : bd->kind == NAOBODY_BOARD_HAND ?
				NB_MSG_HAND_BOARD : NB_MSG_FOOT_BOARD;
			unsigned int j, jt;

			memset(&out, 0, sizeof(out));
			ASSERT_EQ(t, in_round_trip(_metadata, t, i, &s, &out,
						   msg, &len));
			for (j = 0; j < bd->joints; j++) {
				jt = bd->joint[j];
				EXPECT_EQ(ext[e].s16, out.joint_position[jt]);
				EXPECT_EQ(ext[e].s16, out.joint_current[jt]);
				EXPECT_EQ(ext[e].u8, out.joint_temperature[jt]);
				EXPECT_EQ(s.joint_status[jt], out.joint_status[jt]);
			}
		}

		/* unsigned fields */
		sensors_fill(&s, ext[e].u16, ext[e].u8);
		memset(&out, 0, sizeof(out));
		ASSERT_EQ(NB_MSG_BATTERY, in_round_trip(_metadata,
				NB_MSG_BATTERY, NB_NO_BOARD, &s, &out, msg, &len));
		EXPECT_EQ(ext[e].u16, out.battery_charge);
		ASSERT_EQ(NB_MSG_SONAR, in_round_trip(_metadata, NB_MSG_SONAR,
				NB_NO_BOARD, &s, &out, msg, &len));
		EXPECT_EQ(ext[e].u16, out.sonar[0]);
		EXPECT_EQ(ext[e].u16, out.sonar[1]);
		for (i = 0; i < NB_BOARDS; i++) {
			if (nb_board(i)->kind != NAOBODY_BOARD_FOOT)
				continue;
			ASSERT_EQ(NB_MSG_FOOT_BOARD, in_round_trip(_metadata,
				  NB_MSG_FOOT_BOARD, i, &s, &out, msg, &len));
		}
		for (i = 0; i < NAOBODY_FSRS; i++)
			EXPECT_EQ(ext[e].u16, out.fsr[i]);
		ASSERT_EQ(NB_MSG_CHEST_BUTTON, in_round_trip(_metadata,
			  NB_MSG_CHEST_BUTTON, NB_NO_BOARD, &s, &out, msg, &len));
		EXPECT_EQ(ext[e].u8 ? 1U : 0U, out.touch & 1);
	}
}

TEST(encoders_clamp_to_the_wire)
{
	struct naobody_sensors s, out;
	uint8_t msg[NB_MSG_MAX];
	size_t len;

	sensors_fill(&s, 100000, 0);
	s.battery_charge = -5;
	s.joint_status[NAOBODY_HEAD_YAW] = 200;
	ASSERT_EQ(NB_MSG_IMU, in_round_trip(_metadata, NB_MSG_IMU, NB_NO_BOARD,
					    &s, &out, msg, &len));
	EXPECT_EQ(32767, out.accelerometer[0]);
	ASSERT_EQ(NB_MSG_BATTERY, in_round_trip(_metadata, NB_MSG_BATTERY,
						NB_NO_BOARD, &s, &out, msg, &len));
	EXPECT_EQ(0, out.battery_charge);
	EXPECT_EQ(32767, out.battery_status);
	ASSERT_EQ(NB_MSG_JOINT_BOARD, in_round_trip(_metadata,
		  NB_MSG_JOINT_BOARD, board_index("Head"), &s, &out, msg, &len));
	EXPECT_EQ(3, out.joint_status[NAOBODY_HEAD_YAW]);
	sensors_fill(&s, -100000, 0);
	ASSERT_EQ(NB_MSG_IMU, in_round_trip(_metadata, NB_MSG_IMU, NB_NO_BOARD,
					    &s, &out, msg, &len));
	EXPECT_EQ(-32768, out.gyroscope[2]);
}

TEST(touch_bits_land_in_lola_order)
{
	struct naobody_sensors s;
	struct nb_msg_info info;
	/* LHand: joints then touch bits back, left, right */
	uint8_t hand[16] = { 0x02, 0x00, 0x16 };
	uint8_t foot[12] = { 0x02, 0x01, 0x32 };
	uint8_t button[4] = { 0x02, 0x03, 0x05, 0xff };

	memset(&s, 0, sizeof(s));
	hand[15] = 0x05;	/* back and right */
	ASSERT_EQ(NB_MSG_HAND_BOARD, nb_in_msg_decode(hand, 16, &s, &info));
	EXPECT_EQ(board_index("LHand"), info.board);
	EXPECT_EQ(BIT(NAOBODY_TOUCH_L_HAND_BACK) |
		  BIT(NAOBODY_TOUCH_L_HAND_RIGHT), s.touch);
	foot[11] = 0xfe;	/* right bumper; undefined bits ignored */
	ASSERT_EQ(NB_MSG_FOOT_BOARD, nb_in_msg_decode(foot, 12, &s, &info));
	EXPECT_EQ(BIT(NAOBODY_TOUCH_L_HAND_BACK) | BIT(NAOBODY_TOUCH_L_HAND_RIGHT) |
		  BIT(NAOBODY_TOUCH_R_FOOT_RIGHT), s.touch);
	EXPECT_EQ(NAOBODY_UPDATED_R_FOOT, s.updated & ~NAOBODY_UPDATED_JOINTS);
	ASSERT_EQ(NB_MSG_CHEST_BUTTON, nb_in_msg_decode(button, 4, &s, &info));
	EXPECT_TRUE(s.touch & BIT(NAOBODY_TOUCH_CHEST_BUTTON));
	/* releasing clears only the message's own bits */
	hand[15] = 0;
	ASSERT_EQ(NB_MSG_HAND_BOARD, nb_in_msg_decode(hand, 16, &s, &info));
	EXPECT_EQ(BIT(NAOBODY_TOUCH_CHEST_BUTTON) |
		  BIT(NAOBODY_TOUCH_R_FOOT_RIGHT), s.touch);
}

TEST(fsr_order_per_foot)
{
	uint8_t foot[12] = { 0x02, 0x01, 0x30,
			     0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0 };
	struct naobody_sensors s;
	struct nb_msg_info info;

	memset(&s, 0, sizeof(s));
	ASSERT_EQ(NB_MSG_FOOT_BOARD, nb_in_msg_decode(foot, 12, &s, &info));
	EXPECT_EQ(1, s.fsr[NAOBODY_FSR_FRONT_LEFT]);
	EXPECT_EQ(2, s.fsr[NAOBODY_FSR_FRONT_RIGHT]);
	EXPECT_EQ(3, s.fsr[NAOBODY_FSR_REAR_LEFT]);
	EXPECT_EQ(4, s.fsr[NAOBODY_FSR_REAR_RIGHT]);
	EXPECT_EQ(0, s.fsr[NAOBODY_FSR_RIGHT_FOOT]);
	EXPECT_EQ(NAOBODY_UPDATED_L_FOOT, s.updated);
	foot[2] = 0x32;
	ASSERT_EQ(NB_MSG_FOOT_BOARD, nb_in_msg_decode(foot, 12, &s, &info));
	EXPECT_EQ(4, s.fsr[NAOBODY_FSR_RIGHT_FOOT + NAOBODY_FSR_REAR_RIGHT]);
}

TEST(joint_status_above_3_is_rejected_untouched)
{
	uint8_t m[15] = { 0x02, 0x00, 0x10, 0x01, 0x02, 0, 7, 30, 3,
			  0x03, 0x04, 0, 8, 31, 4 };
	struct naobody_sensors s, before;
	struct nb_msg_info info;

	memset(&s, 0x33, sizeof(s));
	before = s;
	EXPECT_EQ(-ERANGE, nb_in_msg_decode(m, sizeof(m), &s, &info));
	EXPECT_EQ(0, memcmp(&s, &before, sizeof(s)));
	m[14] = 3;
	EXPECT_EQ(NB_MSG_JOINT_BOARD, nb_in_msg_decode(m, sizeof(m), &s, &info));
	EXPECT_EQ(0x0102, s.joint_position[NAOBODY_HEAD_YAW]);
	EXPECT_EQ(7, s.joint_current[NAOBODY_HEAD_YAW]);
	EXPECT_EQ(30, s.joint_temperature[NAOBODY_HEAD_YAW]);
	EXPECT_EQ(3, s.joint_status[NAOBODY_HEAD_YAW]);
	EXPECT_EQ(0x0304, s.joint_position[NAOBODY_HEAD_PITCH]);
	EXPECT_EQ(31, s.joint_temperature[NAOBODY_HEAD_PITCH]);
}

/* A valid instance of each message from the board. */
static int valid_in(uint8_t type, uint8_t *m)
{
	struct naobody_sensors s;
	struct nb_msg_info info = { .type = type, .board = NB_NO_BOARD };
	static uint8_t data[64];
	struct nb_frame_builder b;
	uint8_t buf[512];
	struct nb_frame f;
	struct nb_msg_iter it;
	const uint8_t *p;
	size_t len;

	memset(&s, 0, sizeof(s));
	switch (type) {
	case NB_MSG_JOINT_BOARD:
		info.board = board_index("LArm");
		break;
	case NB_MSG_HAND_BOARD:
		info.board = board_index("RHand");
		break;
	case NB_MSG_FOOT_BOARD:
		info.board = board_index("RFoot");
		break;
	case NB_MSG_HANDSHAKE:
	case NB_MSG_ACK:
		info.board = board_index("LHand");
		info.data = data;
		info.len = NB_HANDSHAKE_LEN;
		break;
	case NB_MSG_PREF_PIECE:
		info.piece = 3;
		info.data = data;
		info.len = 32;
		break;
	case NB_MSG_ID_STRING:
		info.data = (const uint8_t *)"P0000073A03S83I00011";
		info.len = 20;
		break;
	}
	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	if (nb_in_msg_encode(&b, &info, &s))
		return -1;
	if (nb_frame_parse(&f, buf, nb_frame_end(&b, NULL), NB_FRAME_IN))
		return -1;
	nb_msg_iter_init(&it, &f);
	p = nb_msg_next(&it, &len);
	memcpy(m, p, len);
	return len;
}

TEST(wrong_lengths_are_rejected_untouched)
{
	struct naobody_sensors s, before;
	struct nb_msg_info info;
	uint8_t m[NB_MSG_MAX + 1];
	unsigned int t;
	int len, l;

	memset(&s, 0x44, sizeof(s));
	before = s;
	for (t = NB_MSG_IMU; t <= NB_MSG_CHEST_MODE; t++) {
		len = valid_in(t, m);
		ASSERT_GT(len, 0);
		memset(m + len, 0, sizeof(m) - len);
		/* every other length from 0 to 255 */
		for (l = 0; l <= NB_MSG_MAX; l++) {
			int r;

			if (l == len)
				continue;
			r = nb_in_msg_decode(m, l, &s, &info);
			if (r > 0) {
				/*
				 * Only a board's other message may decode: its
				 * handshake answer (35 bytes) or, from a
				 * handshake answer cut short, its data.
				 */
				ASSERT_TRUE(m[0] == 2 && m[1] < 2 &&
					    (l == 35 || t == NB_MSG_HANDSHAKE)) {
					TH_LOG("type %u, length %d: %d", t, l, r);
				}
				s = before;
				continue;
			}
			ASSERT_EQ(0, memcmp(&s, &before, sizeof(s)));
		}
	}
}

TEST(unknown_messages)
{
	struct naobody_sensors s, before;
	struct nb_msg_info info;
	uint8_t m[32] = { 0 };
	unsigned int k;

	memset(&s, 0, sizeof(s));
	before = s;
	for (k = 5; k < 256; k++) {
		m[0] = k;
		EXPECT_EQ(-ENOENT, nb_in_msg_decode(m, 19, &s, &info));
	}
	/* requests and commands are not answers */
	m[0] = 0x00;
	m[1] = 0x02;
	m[2] = 0x09;
	EXPECT_EQ(-ENOENT, nb_in_msg_decode(m, 3, &s, &info));
	/* data from the unnamed devices 50 and 51 */
	m[0] = 0x02;
	m[2] = 0x50;
	EXPECT_EQ(-ENOENT, nb_in_msg_decode(m, 8, &s, &info));
	m[2] = 0x51;
	EXPECT_EQ(-ENOENT, nb_in_msg_decode(m, 8, &s, &info));
	/* a bus that doesn't exist */
	m[1] = 0x04;
	m[2] = 0x09;
	EXPECT_EQ(-ENOENT, nb_in_msg_decode(m, 19, &s, &info));
	/* a board address nobody has */
	m[1] = 0x01;
	m[2] = 0x99;
	EXPECT_EQ(-ENOENT, nb_in_msg_decode(m, 9, &s, &info));
	m[0] = 0x04;
	EXPECT_EQ(-ENOENT, nb_in_msg_decode(m, 4, &s, &info));
	/* short of a header */
	EXPECT_EQ(-EMSGSIZE, nb_in_msg_decode(m, 2, &s, &info));
	EXPECT_EQ(0, memcmp(&s, &before, sizeof(s)));
}

TEST(acknowledges)
{
	uint8_t m[4] = { 0x04, 0x01, 0x24, 0xff };
	struct naobody_sensors s;
	struct nb_msg_info info;

	ASSERT_EQ(NB_MSG_ACK, nb_in_msg_decode(m, 4, &s, &info));
	EXPECT_EQ(board_index("LShin"), info.board);
	EXPECT_EQ(0xff, info.value);
	m[3] = 0;
	ASSERT_EQ(NB_MSG_ACK, nb_in_msg_decode(m, 4, &s, &info));
	EXPECT_EQ(0, info.value);
	/* from a device behind the chest board: no board */
	m[1] = 0x02;
	m[2] = 0x42;
	ASSERT_EQ(NB_MSG_ACK, nb_in_msg_decode(m, 4, &s, &info));
	EXPECT_EQ(NB_NO_BOARD, info.board);
	EXPECT_EQ(0x02, info.bus);
	EXPECT_EQ(0x42, info.address);
	EXPECT_EQ(-EMSGSIZE, nb_in_msg_decode(m, 5, &s, &info));
}

TEST(preference_pieces)
{
	uint8_t m[NB_MSG_MAX] = { 0x03, 0x03, 0x06 };
	struct naobody_sensors s;
	struct nb_msg_info info;
	unsigned int piece;

	EXPECT_EQ(145, NB_PREFS_PIECES);
	for (piece = 0; piece < 150; piece++) {
		size_t n = piece < 144 ? 32 : piece == 144 ? 27 : 32;
		int r;

		m[3] = piece >> 8;
		m[4] = piece;
		m[5] = piece;
		r = nb_in_msg_decode(m, 5 + n, &s, &info);
		if (piece >= 145) {
			EXPECT_EQ(-ERANGE, r);
			continue;
		}
		ASSERT_EQ(NB_MSG_PREF_PIECE, r);
		EXPECT_EQ(piece, info.piece);
		EXPECT_EQ(n, info.len);
		EXPECT_EQ(m + 5, info.data);
		EXPECT_EQ(-EMSGSIZE, nb_in_msg_decode(m, 5 + n - 1, &s, &info));
		EXPECT_EQ(-EMSGSIZE, nb_in_msg_decode(m, 5 + n + 1, &s, &info));
	}
	m[3] = 0xff;	/* index 0xff00 */
	EXPECT_EQ(-ERANGE, nb_in_msg_decode(m, 37, &s, &info));
	EXPECT_EQ(-EMSGSIZE, nb_in_msg_decode(m, 4, &s, &info));
}

TEST(id_strings_and_chest_mode)
{
	uint8_t m[24] = { 0x03, 0x03, 0x08, 3, 'P', '0', '0' };
	struct naobody_sensors s;
	struct nb_msg_info info;

	ASSERT_EQ(NB_MSG_ID_STRING, nb_in_msg_decode(m, 24, &s, &info));
	EXPECT_EQ(3, info.value);
	EXPECT_EQ(20, info.len);
	EXPECT_EQ(m + 4, info.data);
	m[3] = 4;
	EXPECT_EQ(-ERANGE, nb_in_msg_decode(m, 24, &s, &info));
	m[3] = 255;
	EXPECT_EQ(-ERANGE, nb_in_msg_decode(m, 24, &s, &info));
	m[3] = 0;
	EXPECT_EQ(-EMSGSIZE, nb_in_msg_decode(m, 23, &s, &info));
	m[2] = 0x2a;
	m[3] = 0xff;
	ASSERT_EQ(NB_MSG_CHEST_MODE, nb_in_msg_decode(m, 4, &s, &info));
	EXPECT_EQ(0xff, info.value);
	m[2] = 0x2b;
	EXPECT_EQ(-ENOENT, nb_in_msg_decode(m, 4, &s, &info));
}

TEST(handshake_answer)
{
	uint8_t ans[NB_HANDSHAKE_LEN], again[NB_HANDSHAKE_LEN];
	uint8_t m[3 + NB_HANDSHAKE_LEN] = { 0x02, 0x01, 0x26 };
	struct naobody_board bo, bo2;
	struct naobody_sensors s;
	struct nb_msg_info info;
	unsigned int i, fill;

	for (fill = 0; fill < 3; fill++) {
		for (i = 0; i < NB_HANDSHAKE_LEN; i++)
			ans[i] = fill == 0 ? 0 : fill == 1 ? 0xff : i * 7 + 1;
		memcpy(m + 3, ans, sizeof(ans));
		ASSERT_EQ(NB_MSG_HANDSHAKE, nb_in_msg_decode(m, sizeof(m), &s,
							     &info));
		EXPECT_EQ(board_index("LAnkle"), info.board);
		ASSERT_EQ(32, info.len);
		memset(&bo, 0xee, sizeof(bo));
		ASSERT_EQ(0, nb_handshake_parse(info.data, info.len, &bo));
		EXPECT_EQ(0, memcmp(bo.status, ans, 16));
		EXPECT_EQ(0, memcmp(bo.config, ans + 16, 16));
		EXPECT_EQ((uint32_t)ans[16] << 24 | ans[17] << 16 |
			  ans[18] << 8 | ans[19], bo.serial);
		EXPECT_EQ(ans[20], bo.config_version);
		EXPECT_EQ(ans[21], bo.hw_revision);
		EXPECT_EQ(ans[22], bo.board_type);
		/* untouched: what the driver keeps */
		EXPECT_EQ(0xee, bo.state);
		nb_handshake_encode(&bo, again);
		EXPECT_EQ(0, memcmp(ans, again, sizeof(ans)));
	}
	/* the parsed fields win over the raw configuration when encoding */
	memset(&bo, 0, sizeof(bo));
	bo.serial = 0xfffffffe;
	bo.config_version = 11;
	nb_handshake_encode(&bo, again);
	memset(&bo2, 0, sizeof(bo2));
	ASSERT_EQ(0, nb_handshake_parse(again, sizeof(again), &bo2));
	EXPECT_EQ(0xfffffffeU, bo2.serial);
	EXPECT_EQ(11, bo2.config_version);
	EXPECT_EQ(-EMSGSIZE, nb_handshake_parse(again, 31, &bo2));
	EXPECT_EQ(-EMSGSIZE, nb_handshake_parse(again, 33, &bo2));
}

/* ------------------------------------------------------------------------
 * To the board
 */

static int out_decode_one(const uint8_t *buf, int len,
			  struct naobody_actuators *a, struct nb_msg_info *info)
{
	struct nb_msg_iter it;
	struct nb_frame f;
	const uint8_t *m;
	size_t l;

	if (len < 0 || nb_frame_parse(&f, buf, len, NB_FRAME_OUT) ||
	    f.count != 1)
		return -1;
	nb_msg_iter_init(&it, &f);
	m = nb_msg_next(&it, &l);
	return nb_out_msg_decode(m, l, a, info);
}

static int out_round_trip(struct nb_msg_info *info,
			  const struct naobody_actuators *a,
			  struct naobody_actuators *out)
{
	uint8_t buf[256];
	struct nb_frame_builder b;
	int r;

	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_OUT);
	r = nb_out_msg_encode(&b, info, a);
	if (r)
		return r;
	return out_decode_one(buf, nb_frame_end(&b, NULL), out, info);
}

TEST(targets_at_their_extremes)
{
	static const int32_t pos[][2] = {
		{ -32768, -32768 }, { 32767, 32767 }, { 0, 0 },
		{ 100000, 32767 }, { -100000, -32768 },
	};
	static const uint16_t stiff[][2] = {
		{ 0, 0 }, { 1000, 1000 }, { 1001, 1000 }, { 65535, 1000 },
	};
	struct naobody_actuators a, out;
	struct nb_msg_info info;
	unsigned int i, k, j;

	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *bd = nb_board(i);

		if (bd->kind == NAOBODY_BOARD_FOOT)
			continue;
		for (k = 0; k < ARRAY_SIZE(pos); k++) {
			memset(&a, 0, sizeof(a));
			memset(&out, 0, sizeof(out));
			for (j = 0; j < NAOBODY_JOINTS; j++) {
				a.position[j] = pos[k][0];
				a.stiffness[j] = stiff[k % 4][0];
			}
			info = (struct nb_msg_info){ .type = NB_MSG_TARGETS,
						     .board = i };
			ASSERT_EQ(NB_MSG_TARGETS, out_round_trip(&info, &a, &out));
			EXPECT_EQ(i, info.board);
			for (j = 0; j < bd->joints; j++) {
				EXPECT_EQ(pos[k][1], out.position[bd->joint[j]]);
				EXPECT_EQ(stiff[k % 4][1],
					  out.stiffness[bd->joint[j]]);
			}
		}
	}
	/* a stiffness above 1000 on the wire is refused */
	{
		uint8_t m[7] = { 0x00, 0x01, 0x24, 0x00, 0x10, 0x03, 0xe9 };

		memset(&a, 0, sizeof(a));
		EXPECT_EQ(-ERANGE, nb_out_msg_decode(m, 7, &a, &info));
		EXPECT_EQ(0, a.position[NAOBODY_L_KNEE_PITCH]);
		m[6] = 0xe8;
		EXPECT_EQ(NB_MSG_TARGETS, nb_out_msg_decode(m, 7, &a, &info));
		EXPECT_EQ(16, a.position[NAOBODY_L_KNEE_PITCH]);
		EXPECT_EQ(1000, a.stiffness[NAOBODY_L_KNEE_PITCH]);
		EXPECT_EQ(-EMSGSIZE, nb_out_msg_decode(m, 6, &a, &info));
		EXPECT_EQ(-EMSGSIZE, nb_out_msg_decode(m, 11, &a, &info));
	}
}

TEST(leds_sonar_and_chest_requests)
{
	struct naobody_actuators a, out;
	struct nb_msg_info info;
	unsigned int v, op;

	for (v = 0; v < 256; v += 255) {
		memset(&a, v, sizeof(a));
		memset(&out, 0, sizeof(out));
		info = (struct nb_msg_info){ .type = NB_MSG_FOOT_LEDS,
					     .board = board_index("LFoot") };
		ASSERT_EQ(NB_MSG_FOOT_LEDS, out_round_trip(&info, &a, &out));
		EXPECT_EQ(0, memcmp(a.l_foot_led, out.l_foot_led, 3));
		info = (struct nb_msg_info){ .type = NB_MSG_FOOT_LEDS,
					     .board = board_index("RFoot") };
		ASSERT_EQ(NB_MSG_FOOT_LEDS, out_round_trip(&info, &a, &out));
		EXPECT_EQ(0, memcmp(a.r_foot_led, out.r_foot_led, 3));
		info = (struct nb_msg_info){ .type = NB_MSG_CHEST_LED,
					     .board = NB_NO_BOARD };
		ASSERT_EQ(NB_MSG_CHEST_LED, out_round_trip(&info, &a, &out));
		EXPECT_EQ(0, memcmp(a.chest_led, out.chest_led, 3));
		info = (struct nb_msg_info){ .type = NB_MSG_SONAR_REQ,
					     .board = NB_NO_BOARD };
		ASSERT_EQ(NB_MSG_SONAR_REQ, out_round_trip(&info, &a, &out));
		EXPECT_EQ(v ? 3 : 0, out.sonar);
	}
	/* a foot has no targets, a joint board no LEDs */
	info = (struct nb_msg_info){ .type = NB_MSG_TARGETS,
				     .board = board_index("LFoot") };
	EXPECT_EQ(-EINVAL, out_round_trip(&info, &a, &out));
	info = (struct nb_msg_info){ .type = NB_MSG_FOOT_LEDS, .board = 0 };
	EXPECT_EQ(-EINVAL, out_round_trip(&info, &a, &out));
	{
		uint8_t m[4] = { 0x00, 0x02, 0x42, 0x04 };

		EXPECT_EQ(-ERANGE, nb_out_msg_decode(m, 4, &a, &info));
	}
	for (op = 0; op < __NAOBODY_CHEST_MODE_MAX; op++) {
		info = (struct nb_msg_info){ .type = NB_MSG_CHEST_MODE_REQ,
					     .board = NB_NO_BOARD, .value = op };
		ASSERT_EQ(NB_MSG_CHEST_MODE_REQ, out_round_trip(&info, &a, &out));
		EXPECT_EQ(op, info.value);
	}
	info.value = __NAOBODY_CHEST_MODE_MAX;
	info.type = NB_MSG_CHEST_MODE_REQ;
	EXPECT_EQ(-EINVAL, out_round_trip(&info, &a, &out));
	for (op = 0; op < 3; op++) {
		info = (struct nb_msg_info){ .type = NB_MSG_HARAKIRI,
					     .board = NB_NO_BOARD, .value = op };
		if (op == 2) {
			EXPECT_EQ(-EINVAL, out_round_trip(&info, &a, &out));
			continue;
		}
		ASSERT_EQ(NB_MSG_HARAKIRI, out_round_trip(&info, &a, &out));
		EXPECT_EQ(op, info.value);
	}
	{
		uint8_t m[5] = { 0x03, 0x03, 0x2a, 0x42 };

		EXPECT_EQ(-ERANGE, nb_out_msg_decode(m, 4, &a, &info));
		/* preference piece 145 and id slot 4 don't exist */
		m[2] = 0x06;
		m[3] = 0x00;
		m[4] = 145;
		EXPECT_EQ(-ERANGE, nb_out_msg_decode(m, 5, &a, &info));
		m[4] = 144;
		EXPECT_EQ(NB_MSG_PREF_READ, nb_out_msg_decode(m, 5, &a, &info));
		m[2] = 0x08;
		m[3] = 4;
		EXPECT_EQ(-ERANGE, nb_out_msg_decode(m, 4, &a, &info));
		m[3] = 3;
		EXPECT_EQ(NB_MSG_ID_READ, nb_out_msg_decode(m, 4, &a, &info));
	}
	for (op = 0; op < 146; op++) {
		info = (struct nb_msg_info){ .type = NB_MSG_PREF_READ,
					     .board = NB_NO_BOARD, .piece = op };
		if (op == 145) {
			EXPECT_EQ(-EINVAL, out_round_trip(&info, &a, &out));
			continue;
		}
		ASSERT_EQ(NB_MSG_PREF_READ, out_round_trip(&info, &a, &out));
		EXPECT_EQ(op, info.piece);
	}
	for (op = 0; op < 5; op++) {
		info = (struct nb_msg_info){ .type = NB_MSG_ID_READ,
					     .board = NB_NO_BOARD, .value = op };
		if (op == 4) {
			EXPECT_EQ(-EINVAL, out_round_trip(&info, &a, &out));
			continue;
		}
		ASSERT_EQ(NB_MSG_ID_READ, out_round_trip(&info, &a, &out));
		EXPECT_EQ(op, info.value);
	}
}

TEST(handshake_requests_and_start_commands)
{
	struct naobody_actuators a, out;
	struct nb_msg_info info;
	unsigned int i;

	memset(&a, 0, sizeof(a));
	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *bd = nb_board(i);

		info = (struct nb_msg_info){ .type = NB_MSG_HANDSHAKE_REQ,
					     .board = i };
		ASSERT_EQ(NB_MSG_HANDSHAKE_REQ, out_round_trip(&info, &a, &out));
		EXPECT_EQ(i, info.board);
		EXPECT_EQ(0x00, info.kind);
		info = (struct nb_msg_info){ .type = NB_MSG_START, .board = i };
		ASSERT_EQ(NB_MSG_START, out_round_trip(&info, &a, &out));
		EXPECT_EQ(i, info.board);
		EXPECT_EQ(0x01, info.kind);
		EXPECT_EQ(bd->kind == NAOBODY_BOARD_JOINT ? 0x07 : 0x08,
			  info.value);
	}
	{
		/* the joint board LShin told to start as a hand board */
		uint8_t m[4] = { 0x01, 0x01, 0x24, 0x08 };

		EXPECT_EQ(-ERANGE, nb_out_msg_decode(m, 4, &a, &info));
		m[3] = 0x07;
		EXPECT_EQ(NB_MSG_START, nb_out_msg_decode(m, 4, &a, &info));
		m[0] = 0x00;
		m[3] = 0x20;
		EXPECT_EQ(NB_MSG_HANDSHAKE_REQ, nb_out_msg_decode(m, 4, &a, &info));
		m[3] = 0x21;
		EXPECT_EQ(-EMSGSIZE, nb_out_msg_decode(m, 4, &a, &info));
	}
}

/* Where a message type goes in an OUT frame (struct nb_out_plan) */
static int out_rank(int type)
{
	static const uint8_t order[] = {
		NB_MSG_HANDSHAKE_REQ, NB_MSG_START, NB_MSG_TARGETS,
		NB_MSG_IMU_REQ, NB_MSG_BATTERY_REQ, NB_MSG_SONAR_REQ,
		NB_MSG_CHEST_LED, NB_MSG_PREF_READ, NB_MSG_ID_READ,
		NB_MSG_CHEST_MODE_REQ, NB_MSG_HARAKIRI,
	};
	unsigned int i;

	if (type == NB_MSG_FOOT_LEDS)
		type = NB_MSG_TARGETS;
	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (order[i] == type)
			return i;
	return 100;
}

TEST(out_cycle_round_trip)
{
	static uint8_t buf[NB_FRAME_MAX];
	struct naobody_actuators a, out;
	struct nb_out_plan plan = {
		.targets = CT_ALL_BOARDS,
		.handshake = BIT_ULL(3) | BIT_ULL(16),
		.start = BIT_ULL(0),
		.requests = NB_REQ_ALL,
		.pref_piece = 144,
		.id_slot = 3,
		.chest_mode = NAOBODY_CHEST_LED_STOP,
		.harakiri = NAOBODY_HARAKIRI_RESET,
	};
	unsigned int seen[__NB_MSG_MAX] = { 0 };
	struct nb_msg_info info;
	struct nb_msg_iter it;
	struct nb_frame f;
	uint64_t st = 3;
	uint32_t crc;
	const uint8_t *m;
	int last = 0;
	size_t l;
	int len, round;

	for (round = 0; round < 50; round++) {
		ct_random_actuators(&a, &st);
		len = nb_out_cycle(buf, sizeof(buf), &a, &plan, &crc);
		ASSERT_GT(len, 0);
		ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_OUT));
		EXPECT_EQ(crc, f.crc);
		/* 2 handshakes, 1 start, 17 targets, 3 sensor requests, LED,
		 * preference, id, chest mode, harakiri
		 */
		ASSERT_EQ(2 + 1 + NB_BOARDS + 3 + 1 + 4, f.count);
		memset(&out, 0, sizeof(out));
		memset(seen, 0, sizeof(seen));
		nb_msg_iter_init(&it, &f);
		while ((m = nb_msg_next(&it, &l))) {
			int r = nb_out_msg_decode(m, l, &out, &info);

			ASSERT_GT(r, 0);
			seen[r]++;
			/* messages come in the documented order */
			ASSERT_LE(last, out_rank(r));
			last = out_rank(r);
			if (r == NB_MSG_PREF_READ)
				EXPECT_EQ(144, info.piece);
			if (r == NB_MSG_ID_READ)
				EXPECT_EQ(3, info.value);
			if (r == NB_MSG_CHEST_MODE_REQ)
				EXPECT_EQ(NAOBODY_CHEST_LED_STOP, info.value);
			if (r == NB_MSG_HARAKIRI)
				EXPECT_EQ(NAOBODY_HARAKIRI_RESET, info.value);
		}
		last = 0;
		EXPECT_EQ(2U, seen[NB_MSG_HANDSHAKE_REQ]);
		EXPECT_EQ(1U, seen[NB_MSG_START]);
		EXPECT_EQ(15U, seen[NB_MSG_TARGETS]);
		EXPECT_EQ(2U, seen[NB_MSG_FOOT_LEDS]);
		EXPECT_EQ(0, memcmp(&a, &out, sizeof(a)));
	}
}

TEST(out_cycle_rejects_bad_plans)
{
	static uint8_t buf[NB_FRAME_MAX];
	struct naobody_actuators a;
	struct nb_out_plan plan;

	memset(&a, 0, sizeof(a));
	memset(&plan, 0, sizeof(plan));
	EXPECT_EQ(4, nb_out_cycle(buf, sizeof(buf), &a, &plan, NULL));
	plan.targets = BIT_ULL(NB_BOARDS);
	EXPECT_EQ(-EINVAL, nb_out_cycle(buf, sizeof(buf), &a, &plan, NULL));
	plan.targets = 0;
	plan.start = ~0ULL;
	EXPECT_EQ(-EINVAL, nb_out_cycle(buf, sizeof(buf), &a, &plan, NULL));
	plan.start = 0;
	plan.requests = NB_REQ_ALL + 1;
	EXPECT_EQ(-EINVAL, nb_out_cycle(buf, sizeof(buf), &a, &plan, NULL));
	plan.requests = NB_REQ_PREF;
	plan.pref_piece = 145;
	EXPECT_EQ(-EINVAL, nb_out_cycle(buf, sizeof(buf), &a, &plan, NULL));
	plan.requests = NB_REQ_ID;
	plan.id_slot = 4;
	EXPECT_EQ(-EINVAL, nb_out_cycle(buf, sizeof(buf), &a, &plan, NULL));
	plan.requests = NB_REQ_CHEST_MODE;
	plan.chest_mode = __NAOBODY_CHEST_MODE_MAX;
	EXPECT_EQ(-EINVAL, nb_out_cycle(buf, sizeof(buf), &a, &plan, NULL));
	plan.requests = NB_REQ_HARAKIRI;
	plan.harakiri = 2;
	EXPECT_EQ(-EINVAL, nb_out_cycle(buf, sizeof(buf), &a, &plan, NULL));
	/* too small a buffer */
	plan.requests = NB_REQ_SENSORS;
	plan.targets = CT_ALL_BOARDS;
	EXPECT_EQ(-ENOSPC, nb_out_cycle(buf, 64, &a, &plan, NULL));
}

TEST(body_round_trip)
{
	static uint8_t buf[NB_FRAME_MAX];
	struct naobody_sensors s, out;
	struct nb_frame_builder b;
	struct nb_in_stats st;
	uint64_t seed = 11;
	int len, round;

	for (round = 0; round < 200; round++) {
		ct_random_sensors(&s, &seed);
		nb_frame_begin(&b, buf, NB_IN_FRAME_MAX, NB_FRAME_IN);
		ASSERT_EQ(0, nb_in_body(&b, &s, CT_ALL_BOARDS));
		len = nb_frame_end(&b, NULL);
		ASSERT_GT(len, 0);
		ASSERT_LE(len, NB_IN_FRAME_MAX);
		memset(&out, 0, sizeof(out));
		out.updated = 0xdead;
		ASSERT_EQ(4 + NB_BOARDS, nb_in_frame_decode(buf, len, &out, &st));
		EXPECT_EQ(4 + NB_BOARDS, st.messages);
		EXPECT_EQ(4 + NB_BOARDS, st.decoded);
		EXPECT_EQ(0, st.unknown);
		EXPECT_EQ(0, st.malformed);
		EXPECT_EQ(NAOBODY_UPDATED_IMU | NAOBODY_UPDATED_BATTERY |
			  NAOBODY_UPDATED_SONAR | NAOBODY_UPDATED_L_FOOT |
			  NAOBODY_UPDATED_R_FOOT | NAOBODY_UPDATED_JOINTS |
			  NAOBODY_UPDATED_CHEST_BUTTON, out.updated);
		out.updated = 0;
		ASSERT_EQ(0, memcmp(&s, &out, sizeof(s)));
	}
	/* a bad frame leaves the state alone */
	buf[0] ^= 1;
	out.updated = 0x77;
	EXPECT_EQ(-EBADMSG, nb_in_frame_decode(buf, len, &out, NULL));
	EXPECT_EQ(0x77U, out.updated);
}

/* ------------------------------------------------------------------------
 * Golden frames: bytes written by hand from the layout in
 * Documentation/chest-board-protocol.rst, CRCs computed with zlib.
 */

static const uint8_t golden_in[] = {
	/* 02 02 09: acc -1000 2000 -16384, gyro 1 -1 300, angles -25 990 */
	0x02, 0x02, 0x09, 0xfc, 0x18, 0x07, 0xd0, 0xc0, 0x00,
	0x00, 0x01, 0xff, 0xff, 0x01, 0x2c, 0xff, 0xe7, 0x03, 0xde,
	/* 02 02 0b: charge 99, status 0x80d8, current -1500, temp 285 */
	0x02, 0x02, 0x0b, 0x00, 0x63, 0x80, 0xd8, 0xfa, 0x24, 0x01, 0x1d,
	/* 02 03 05: chest button pressed */
	0x02, 0x03, 0x05, 0x01,
	/* 02 01 24 (LShin): position 1234, current 35, temp 21, status 1 */
	0x02, 0x01, 0x24, 0x04, 0xd2, 0x00, 0x23, 0x15, 0x01,
	/* 02 01 30 (LFoot): fsr 100 200 300 400, left bumper */
	0x02, 0x01, 0x30, 0x00, 0x64, 0x00, 0xc8, 0x01, 0x2c, 0x01, 0x90, 0x01,
	/* 04 01 24: LShin acknowledges, status 0 */
	0x04, 0x01, 0x24, 0x00,
	/* the table, last message first */
	0x04, 0x0c, 0x09, 0x04, 0x0b, 0x13,
	/* CRC-32 of all the above, big endian */
	0x81, 0xe5, 0x80, 0x5f,
};

static void golden_state(struct naobody_sensors *s)
{
	memset(s, 0, sizeof(*s));
	s->accelerometer[0] = -1000;
	s->accelerometer[1] = 2000;
	s->accelerometer[2] = -16384;
	s->gyroscope[0] = 1;
	s->gyroscope[1] = -1;
	s->gyroscope[2] = 300;
	s->angles[0] = -25;
	s->angles[1] = 990;
	s->battery_charge = 99;
	s->battery_status = -32552;
	s->battery_current = -1500;
	s->battery_temperature = 285;
	s->touch = BIT(NAOBODY_TOUCH_CHEST_BUTTON) |
		   BIT(NAOBODY_TOUCH_L_FOOT_LEFT);
	s->joint_position[NAOBODY_L_KNEE_PITCH] = 1234;
	s->joint_current[NAOBODY_L_KNEE_PITCH] = 35;
	s->joint_temperature[NAOBODY_L_KNEE_PITCH] = 21;
	s->joint_status[NAOBODY_L_KNEE_PITCH] = 1;
	s->fsr[0] = 100;
	s->fsr[1] = 200;
	s->fsr[2] = 300;
	s->fsr[3] = 400;
}

TEST(golden_in_frame)
{
	static const uint8_t types[] = {
		NB_MSG_IMU, NB_MSG_BATTERY, NB_MSG_CHEST_BUTTON,
		NB_MSG_JOINT_BOARD, NB_MSG_FOOT_BOARD, NB_MSG_ACK,
	};
	uint8_t buf[256];
	struct naobody_sensors s, out;
	struct nb_frame_builder b;
	struct nb_msg_info info;
	struct nb_in_stats st;
	unsigned int i;
	uint32_t crc;
	int len;

	golden_state(&s);
	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		info = (struct nb_msg_info){ .type = types[i],
					     .board = NB_NO_BOARD };
		if (i == 3 || i == 5)
			info.board = board_index("LShin");
		if (i == 4)
			info.board = board_index("LFoot");
		ASSERT_EQ(0, nb_in_msg_encode(&b, &info, &s));
	}
	len = nb_frame_end(&b, &crc);
	ASSERT_EQ((int)sizeof(golden_in), len);
	EXPECT_EQ(0, memcmp(golden_in, buf, len));
	EXPECT_EQ(0x81e5805fU, crc);
	EXPECT_EQ(crc, (uint32_t)crc32(0, golden_in, sizeof(golden_in) - 4));

	memset(&out, 0, sizeof(out));
	ASSERT_EQ(6, nb_in_frame_decode(golden_in, sizeof(golden_in), &out, &st));
	EXPECT_EQ(6, st.decoded);
	EXPECT_EQ(NAOBODY_UPDATED_IMU | NAOBODY_UPDATED_BATTERY |
		  NAOBODY_UPDATED_CHEST_BUTTON | NAOBODY_UPDATED_JOINTS |
		  NAOBODY_UPDATED_L_FOOT, out.updated);
	out.updated = 0;
	EXPECT_EQ(0, memcmp(&s, &out, sizeof(s)));
}

static const uint8_t golden_out[] = {
	/* CRC-32 of everything after it, big endian */
	0xf9, 0x16, 0x30, 0x10,
	0x00, 0x01, 0x32, 0x20,			/* RFoot: handshake request */
	0x01, 0x01, 0x24, 0x07,			/* LShin: start */
	0x00, 0x01, 0x24, 0xfd, 0x44, 0x03, 0xe8, /* LShin: -700, 1000 */
	0x00, 0x01, 0x32, 0xff, 0x00, 0x10,	/* RFoot LEDs */
	0x00, 0x02, 0x09,			/* inertial unit request */
	0x00, 0x02, 0x0b,			/* battery request */
	0x00, 0x02, 0x42, 0x03,			/* sonar, both enabled */
	0x03, 0x03, 0x05, 0x01, 0x02, 0x03,	/* chest LED */
	0x03, 0x03, 0x06, 0x00, 0x07,		/* read preference piece 7 */
	0x05, 0x06, 0x04, 0x03, 0x03, 0x06, 0x07, 0x04, 0x04,
};

TEST(golden_out_frame)
{
	uint8_t buf[256];
	struct naobody_actuators a, out;
	struct nb_out_plan plan = {
		.targets = BIT_ULL(board_index("LShin")) |
			   BIT_ULL(board_index("RFoot")),
		.handshake = BIT_ULL(board_index("RFoot")),
		.start = BIT_ULL(board_index("LShin")),
		.requests = NB_REQ_SENSORS | NB_REQ_CHEST_LED | NB_REQ_PREF,
		.pref_piece = 7,
	};
	struct nb_msg_info info;
	struct nb_msg_iter it;
	struct nb_frame f;
	const uint8_t *m;
	uint32_t crc;
	size_t l;
	int len;

	memset(&a, 0, sizeof(a));
	a.position[NAOBODY_L_KNEE_PITCH] = -700;
	a.stiffness[NAOBODY_L_KNEE_PITCH] = 1000;
	a.r_foot_led[0] = 255;
	a.r_foot_led[2] = 16;
	a.chest_led[0] = 1;
	a.chest_led[1] = 2;
	a.chest_led[2] = 3;
	a.sonar = NAOBODY_SONAR_LEFT | NAOBODY_SONAR_RIGHT;

	len = nb_out_cycle(buf, sizeof(buf), &a, &plan, &crc);
	ASSERT_EQ((int)sizeof(golden_out), len);
	EXPECT_EQ(0, memcmp(golden_out, buf, len));
	EXPECT_EQ(0xf9163010U, crc);
	EXPECT_EQ(crc, (uint32_t)crc32(0, golden_out + 4, sizeof(golden_out) - 4));

	ASSERT_EQ(0, nb_frame_parse(&f, golden_out, sizeof(golden_out),
				    NB_FRAME_OUT));
	ASSERT_EQ(9, f.count);
	memset(&out, 0, sizeof(out));
	nb_msg_iter_init(&it, &f);
	while ((m = nb_msg_next(&it, &l)))
		ASSERT_GT(nb_out_msg_decode(m, l, &out, &info), 0);
	EXPECT_EQ(-700, out.position[NAOBODY_L_KNEE_PITCH]);
	EXPECT_EQ(1000, out.stiffness[NAOBODY_L_KNEE_PITCH]);
	EXPECT_EQ(0, memcmp(a.r_foot_led, out.r_foot_led, 3));
	EXPECT_EQ(0, memcmp(a.chest_led, out.chest_led, 3));
	EXPECT_EQ(3, out.sonar);
	EXPECT_EQ(0, memcmp(&a, &out, sizeof(a)));
}

TEST_HARNESS_MAIN
