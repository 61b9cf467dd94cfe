// SPDX-License-Identifier: GPL-2.0-only
/*
 * The preference block: reassembly from pieces in the codec (kernel), and
 * the typed key-value parser in libnaobody (userspace), which share only
 * the block's format: each checks the other's CRC.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "codec_test.h"

#include <naobody/prefs.h>
#include <naobody/units.h>

/* A calibration with every kind of value, as a real body would have. */
static void full_calibration(struct nb_calibration *cal)
{
	unsigned int i;

	nb_calibration_init(cal);
	cal->present = NB_CAL_BODY_ID | NB_CAL_BODY_VERSION | NB_CAL_SERIALS |
		       NB_CAL_JOINT_ZERO | NB_CAL_FSR | NB_CAL_IMU;
	strcpy(cal->body_id, "P0000074A05S93M00061");
	strcpy(cal->body_version, "6.0.0");
	for (i = 0; i < NB_BOARDS; i++) {
		strcpy(cal->board[i].name, nb_board(i)->name);
		/* foot boards report 0 in their handshake; the block has theirs */
		cal->board[i].serial = 0x80000000U + i * 0x01010101U;
	}
	cal->boards = NB_BOARDS;
	for (i = 0; i < NAOBODY_JOINTS; i++)
		cal->joint_zero[i] = (int32_t)(i * 97) - 1000;
	for (i = 0; i < NAOBODY_FSRS; i++) {
		cal->fsr_gain[i] = 0.00125f * (i + 1);
		cal->fsr_offset[i] = -0.05f * i;
	}
	for (i = 0; i < 3; i++) {
		cal->acc_offset[i] = 0.1f * (i + 1);
		cal->gyro_offset[i] = -0.001f * (i + 1);
	}
	cal->angle_offset[0] = 0.0123f;
	cal->angle_offset[1] = -0.0456f;
}

TEST(piece_lengths)
{
	unsigned int i;
	size_t sum = 0;

	EXPECT_EQ(145, NB_PREFS_PIECES);
	for (i = 0; i < NB_PREFS_PIECES; i++) {
		EXPECT_EQ(i < 144 ? 32U : 27U, nb_prefs_piece_len(i));
		sum += nb_prefs_piece_len(i);
	}
	EXPECT_EQ((size_t)NAOBODY_PREFS_SIZE, sum);
	EXPECT_EQ(0U, nb_prefs_piece_len(145));
	EXPECT_EQ(0U, nb_prefs_piece_len(~0U));
}

TEST(reassembly_in_any_order)
{
	static uint8_t block[NAOBODY_PREFS_SIZE];
	static struct nb_prefs_asm pa;
	unsigned int order[NB_PREFS_PIECES], i, k, t;
	uint64_t st = 5;
	struct nb_calibration cal;

	full_calibration(&cal);
	ASSERT_GT(nb_prefs_build(&cal, block, sizeof(block)), 0);
	/* the codec accepts libnaobody's CRC */
	ASSERT_EQ(0, nb_prefs_crc_check(block, sizeof(block)));

	for (i = 0; i < NB_PREFS_PIECES; i++)
		order[i] = i;
	for (i = NB_PREFS_PIECES - 1; i > 0; i--) {
		k = ct_rand(&st) % (i + 1);
		t = order[i];
		order[i] = order[k];
		order[k] = t;
	}
	nb_prefs_asm_init(&pa);
	EXPECT_EQ(0, nb_prefs_asm_missing(&pa, 0));
	for (i = 0; i < NB_PREFS_PIECES; i++) {
		unsigned int p = order[i];

		ASSERT_EQ(-EAGAIN, nb_prefs_asm_check(&pa));
		ASSERT_EQ(0, nb_prefs_asm_put(&pa, p, block + p * 32,
					      nb_prefs_piece_len(p)));
		/* a duplicate changes nothing */
		if (i % 10 == 0)
			ASSERT_EQ(0, nb_prefs_asm_put(&pa, p, block + p * 32,
						      nb_prefs_piece_len(p)));
		ASSERT_EQ(i + 1, pa.pieces);
		if (i + 1 < NB_PREFS_PIECES) {
			int m = nb_prefs_asm_missing(&pa, p);

			ASSERT_GE(m, 0);
			ASSERT_LT(m, NB_PREFS_PIECES);
			ASSERT_FALSE(pa.have[m / 32] & (1U << (m % 32)));
		}
	}
	EXPECT_EQ(-ENOENT, nb_prefs_asm_missing(&pa, 0));
	EXPECT_EQ(0, nb_prefs_asm_check(&pa));
	EXPECT_EQ(0, memcmp(block, pa.block, sizeof(block)));
	/* one changed byte anywhere breaks the CRC */
	pa.block[1234] ^= 0x40;
	EXPECT_EQ(-EBADMSG, nb_prefs_asm_check(&pa));
	pa.block[1234] ^= 0x40;
	pa.block[NAOBODY_PREFS_SIZE - 1] ^= 1;
	EXPECT_EQ(-EBADMSG, nb_prefs_asm_check(&pa));
}

TEST(reassembly_rejects_bad_pieces)
{
	static struct nb_prefs_asm pa;
	uint8_t piece[33] = { 0 };

	nb_prefs_asm_init(&pa);
	EXPECT_EQ(-ERANGE, nb_prefs_asm_put(&pa, 145, piece, 32));
	EXPECT_EQ(-ERANGE, nb_prefs_asm_put(&pa, ~0U, piece, 32));
	EXPECT_EQ(-EMSGSIZE, nb_prefs_asm_put(&pa, 0, piece, 31));
	EXPECT_EQ(-EMSGSIZE, nb_prefs_asm_put(&pa, 0, piece, 33));
	EXPECT_EQ(-EMSGSIZE, nb_prefs_asm_put(&pa, 144, piece, 32));
	EXPECT_EQ(0, nb_prefs_asm_put(&pa, 144, piece, 27));
	EXPECT_EQ(1, pa.pieces);
	EXPECT_EQ(0, nb_prefs_asm_missing(&pa, 144));
	EXPECT_EQ(-EMSGSIZE, nb_prefs_crc_check(pa.block, 4634));
}

TEST(pieces_through_messages)
{
	static uint8_t block[NAOBODY_PREFS_SIZE], buf[NB_FRAME_MAX];
	static struct nb_prefs_asm pa;
	struct nb_calibration cal;
	struct naobody_sensors s;
	unsigned int p;

	full_calibration(&cal);
	ASSERT_GT(nb_prefs_build(&cal, block, sizeof(block)), 0);
	nb_prefs_asm_init(&pa);
	/* the emulator answers a piece per frame; the driver stores it */
	for (p = 0; p < NB_PREFS_PIECES; p++) {
		struct nb_msg_info info = {
			.type = NB_MSG_PREF_PIECE, .board = NB_NO_BOARD,
			.piece = p, .data = block + p * 32,
			.len = nb_prefs_piece_len(p),
		};
		struct nb_frame_builder b;
		struct nb_msg_iter it;
		struct nb_frame f;
		const uint8_t *m;
		size_t l;
		int len;

		nb_frame_begin(&b, buf, NB_IN_FRAME_MAX, NB_FRAME_IN);
		ASSERT_EQ(0, nb_in_msg_encode(&b, &info, &s));
		len = nb_frame_end(&b, NULL);
		ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
		nb_msg_iter_init(&it, &f);
		m = nb_msg_next(&it, &l);
		memset(&info, 0, sizeof(info));
		ASSERT_EQ(NB_MSG_PREF_PIECE, nb_in_msg_decode(m, l, &s, &info));
		ASSERT_EQ(p, info.piece);
		ASSERT_EQ(0, nb_prefs_asm_put(&pa, info.piece, info.data,
					      info.len));
	}
	EXPECT_EQ(0, nb_prefs_asm_check(&pa));
	EXPECT_EQ(0, memcmp(block, pa.block, sizeof(block)));
}

TEST(round_trip_body_id_serials_zeros_fsr_imu)
{
	static uint8_t block[NAOBODY_PREFS_SIZE];
	struct nb_calibration cal, back;
	unsigned int i;
	int entries;

	full_calibration(&cal);
	ASSERT_GT(nb_prefs_build(&cal, block, sizeof(block)), 0);
	/* a block sealed by the codec parses too */
	nb_prefs_crc_seal(block, sizeof(block));
	entries = nb_prefs_parse(block, sizeof(block), &back);
	/* id, version, 17 serials, 25 zeros, 16 FSR values, 8 IMU offsets */
	ASSERT_EQ(2 + NB_BOARDS + NAOBODY_JOINTS + 16 + 8, entries);
	EXPECT_EQ(cal.present, back.present);
	EXPECT_STREQ("P0000074A05S93M00061", back.body_id);
	EXPECT_STREQ("6.0.0", back.body_version);
	ASSERT_EQ(NB_BOARDS, back.boards);
	for (i = 0; i < NB_BOARDS; i++) {
		EXPECT_STREQ(nb_board(i)->name, back.board[i].name);
		EXPECT_EQ(cal.board[i].serial, back.board[i].serial);
	}
	for (i = 0; i < NAOBODY_JOINTS; i++)
		EXPECT_EQ(cal.joint_zero[i], back.joint_zero[i]);
	/* floats travel bit for bit */
	EXPECT_EQ(0, memcmp(cal.fsr_gain, back.fsr_gain, sizeof(cal.fsr_gain)));
	EXPECT_EQ(0, memcmp(cal.fsr_offset, back.fsr_offset,
			    sizeof(cal.fsr_offset)));
	EXPECT_EQ(0, memcmp(cal.acc_offset, back.acc_offset,
			    sizeof(cal.acc_offset)));
	EXPECT_EQ(0, memcmp(cal.gyro_offset, back.gyro_offset,
			    sizeof(cal.gyro_offset)));
	EXPECT_EQ(0, memcmp(cal.angle_offset, back.angle_offset,
			    sizeof(cal.angle_offset)));
	EXPECT_EQ(0, memcmp(&cal, &back, sizeof(cal)));
}

TEST(parser_defaults_and_partial_blocks)
{
	static uint8_t block[NAOBODY_PREFS_SIZE];
	struct nb_calibration cal, back;
	unsigned int i;

	nb_calibration_init(&cal);
	for (i = 0; i < NAOBODY_FSRS; i++)
		EXPECT_EQ(NB_FSR_DEFAULT_GAIN, cal.fsr_gain[i]);
	/* only the body id: everything else keeps its default */
	cal.present = NB_CAL_BODY_ID;
	strcpy(cal.body_id, "P0000073A03S83I00011");
	ASSERT_GT(nb_prefs_build(&cal, block, sizeof(block)), 0);
	ASSERT_EQ(1, nb_prefs_parse(block, sizeof(block), &back));
	EXPECT_EQ(0, memcmp(&cal, &back, sizeof(cal)));
	/* an empty block */
	nb_calibration_init(&cal);
	ASSERT_EQ(0, nb_prefs_build(&cal, block, sizeof(block)));
	EXPECT_EQ(0, nb_prefs_parse(block, sizeof(block), &back));
}

/* Append a raw entry at *pos. */
static void raw(uint8_t *b, size_t *pos, uint8_t type, const char *key,
		const void *v, uint8_t vlen)
{
	b[*pos] = type;
	b[*pos + 1] = strlen(key);
	b[*pos + 2] = vlen;
	memcpy(b + *pos + 3, key, strlen(key));
	memcpy(b + *pos + 3 + strlen(key), v, vlen);
	*pos += 3 + strlen(key) + vlen;
}

TEST(parser_skips_unknown_and_rejects_malformed)
{
	static uint8_t block[NAOBODY_PREFS_SIZE];
	const uint8_t zero42[4] = { 0, 0, 0, 42 };
	struct nb_calibration back;
	struct nb_pref e;
	size_t pos = 0;

	memset(block, 0, sizeof(block));
	raw(block, &pos, 9, "Some/Future/Type", "abcdefgh", 8);
	raw(block, &pos, NB_PREF_INT, "Unknown/Key", zero42, 4);
	raw(block, &pos, NB_PREF_INT, "Joint/LKneePitch/Zero", zero42, 4);
	raw(block, &pos, NB_PREF_INT, "Board/LShin/Serial", zero42, 4);
	raw(block, &pos, NB_PREF_INT, "Board/LShin/SerialX", zero42, 4);
	nb_prefs_crc_seal(block, sizeof(block));
	ASSERT_EQ(5, nb_prefs_parse(block, sizeof(block), &back));
	EXPECT_EQ(42, back.joint_zero[NAOBODY_L_KNEE_PITCH]);
	EXPECT_EQ(NB_CAL_JOINT_ZERO | NB_CAL_SERIALS, back.present);
	EXPECT_EQ(1U, back.boards);
	EXPECT_EQ(42U, back.board[0].serial);

	/* the iterator shows every entry, the unknown type included */
	pos = 0;
	ASSERT_EQ(1, nb_prefs_next(block, sizeof(block), &pos, &e));
	EXPECT_EQ(9, e.type);
	EXPECT_STREQ("Some/Future/Type", e.key);
	ASSERT_EQ(1, nb_prefs_next(block, sizeof(block), &pos, &e));
	EXPECT_EQ(NB_PREF_INT, e.type);
	EXPECT_EQ(42, e.i);

	/* a bad CRC */
	block[0] ^= 1;
	EXPECT_EQ(-EBADMSG, nb_prefs_parse(block, sizeof(block), &back));
	block[0] ^= 1;
	EXPECT_EQ(-EINVAL, nb_prefs_parse(block, sizeof(block) - 1, &back));

	/* an int that isn't 4 bytes; a key of length 0; NUL in a key */
	memset(block, 0, sizeof(block));
	pos = 0;
	raw(block, &pos, NB_PREF_INT, "Joint/HeadYaw/Zero", zero42, 3);
	nb_prefs_crc_seal(block, sizeof(block));
	EXPECT_EQ(-EBADMSG, nb_prefs_parse(block, sizeof(block), &back));
	memset(block, 0, sizeof(block));
	block[0] = NB_PREF_INT;
	block[2] = 4;
	nb_prefs_crc_seal(block, sizeof(block));
	EXPECT_EQ(-EBADMSG, nb_prefs_parse(block, sizeof(block), &back));
	memset(block, 0, sizeof(block));
	pos = 0;
	raw(block, &pos, NB_PREF_INT, "a\x01" "b", zero42, 4);
	block[4] = 0;
	nb_prefs_crc_seal(block, sizeof(block));
	EXPECT_EQ(-EBADMSG, nb_prefs_parse(block, sizeof(block), &back));

	/* garbage after a good entry: key length 255 */
	memset(block, 0xff, sizeof(block));
	block[0] = 200;		/* an unknown type, skipped by its length */
	block[1] = 1;
	block[2] = 255;
	pos = 0;
	ASSERT_EQ(1, nb_prefs_next(block, sizeof(block), &pos, &e));
	EXPECT_EQ(259U, pos);
	EXPECT_EQ(-EBADMSG, nb_prefs_next(block, sizeof(block), &pos, &e));
	nb_prefs_crc_seal(block, sizeof(block));
	EXPECT_EQ(-EBADMSG, nb_prefs_parse(block, sizeof(block), &back));

	/* an entry that would run into the CRC */
	memset(block, 0, sizeof(block));
	pos = NAOBODY_PREFS_SIZE - 4 - 27;
	raw(block, &pos, NB_PREF_STRING, "Body/BodyId", "0123456789abc", 13);
	EXPECT_EQ((size_t)NAOBODY_PREFS_SIZE - 4 + 0, pos);
	pos = NAOBODY_PREFS_SIZE - 4 - 27;
	ASSERT_EQ(1, nb_prefs_next(block, sizeof(block), &pos, &e));
	EXPECT_STREQ("0123456789abc", e.s);
	pos = NAOBODY_PREFS_SIZE - 4 - 26;
	memmove(block + pos, block + pos - 1, 27);
	block[pos - 1] = 0;
	EXPECT_EQ(-EBADMSG, nb_prefs_next(block, sizeof(block), &pos, &e));
}

TEST(a_key_seen_twice_keeps_the_last_value_only)
{
	static uint8_t block[NAOBODY_PREFS_SIZE], again[NAOBODY_PREFS_SIZE];
	struct nb_calibration cal, cal2;
	size_t pos = 0;

	memset(block, 0, sizeof(block));
	raw(block, &pos, NB_PREF_STRING, "Body/BodyId", "P0000074A05S93M00061", 20);
	raw(block, &pos, NB_PREF_STRING, "Body/BodyId", "short", 5);
	nb_prefs_crc_seal(block, sizeof(block));
	ASSERT_EQ(2, nb_prefs_parse(block, sizeof(block), &cal));
	EXPECT_STREQ("short", cal.body_id);
	/* nothing of the first value is left after the NUL */
	EXPECT_EQ(0, cal.body_id[6]);
	EXPECT_EQ(0, cal.body_id[19]);
	ASSERT_GT(nb_prefs_build(&cal, again, sizeof(again)), 0);
	ASSERT_EQ(1, nb_prefs_parse(again, sizeof(again), &cal2));
	EXPECT_EQ(0, memcmp(&cal, &cal2, sizeof(cal)));
}

TEST(build_reports_a_full_block)
{
	static uint8_t block[NAOBODY_PREFS_SIZE];
	struct nb_calibration cal;

	full_calibration(&cal);
	EXPECT_EQ(-EINVAL, nb_prefs_build(&cal, block, sizeof(block) - 1));
	/* 32 boards with long names still fit */
	for (cal.boards = 0; cal.boards < NB_CAL_BOARDS; cal.boards++)
		snprintf(cal.board[cal.boards].name, NB_CAL_NAME_MAX + 1,
			 "Board%010u", cal.boards);
	EXPECT_GT(nb_prefs_build(&cal, block, sizeof(block)), 0);
}

TEST_HARNESS_MAIN
