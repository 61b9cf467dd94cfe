// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fuzzers' seed corpus (selftests/codec/corpus), made with the codec
 * itself so that it follows the provisional layout.
 *
 *   codec_seeds_test           check that every committed seed is what
 *                              the layout makes today
 *   codec_seeds_test --write   write them (after a layout change)
 */
#include <errno.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "codec_test.h"

#include <naobody/prefs.h>

#define SEED_MAX	(NAOBODY_PREFS_SIZE + 16)

struct seed {
	const char *dir;	/* fuzzer: frame, msg, prefs, handshake */
	const char *name;
	int (*make)(uint8_t *out, int arg);
	int arg;
};

static int board_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < NB_BOARDS; i++)
		if (!strcmp(nb_board(i)->name, name))
			return i;
	abort();
}

static void calibration(struct nb_calibration *cal)
{
	unsigned int i;

	nb_calibration_init(cal);
	cal->present = ~0U;
	strcpy(cal->body_id, "P0000074A05S93M00061");
	strcpy(cal->body_version, "6.0.0");
	for (i = 0; i < NB_BOARDS; i++) {
		strcpy(cal->board[i].name, nb_board(i)->name);
		cal->board[i].serial = 1000 + i;
	}
	cal->boards = NB_BOARDS;
	for (i = 0; i < NAOBODY_JOINTS; i++)
		cal->joint_zero[i] = i * 10 - 100;
	for (i = 0; i < NAOBODY_FSRS; i++)
		cal->fsr_offset[i] = 0.01f * i;
	cal->angle_offset[0] = 0.01f;
}

/* The first message of the frame b built into buf, copied to out; its length. */
static int first_message(uint8_t *out, struct nb_frame_builder *b,
			 const uint8_t *buf, unsigned int flags)
{
	struct nb_msg_iter it;
	struct nb_frame f;
	const uint8_t *m;
	size_t l;

	if (nb_frame_parse(&f, buf, nb_frame_end(b, NULL), flags))
		abort();
	nb_msg_iter_init(&it, &f);
	m = nb_msg_next(&it, &l);
	memcpy(out, m, l);
	return l;
}

/* One message from the board: type arg, with a few kinds of content */
static int in_msg(uint8_t *out, int type)
{
	static const uint8_t hs[NB_HANDSHAKE_LEN] = {
		[16] = 0x12, 0x34, 0x56, 0x78, 11, 3, 1,
	};
	struct nb_msg_info info = { .type = type, .board = NB_NO_BOARD };
	struct naobody_sensors s;
	struct nb_frame_builder b;
	uint8_t buf[512];
	uint64_t st = type;

	ct_random_sensors(&s, &st);
	switch (type) {
	case NB_MSG_JOINT_BOARD:
		info.board = board_index("LAnkle");
		break;
	case NB_MSG_HAND_BOARD:
		info.board = board_index("LHand");
		break;
	case NB_MSG_FOOT_BOARD:
		info.board = board_index("RFoot");
		break;
	case NB_MSG_HANDSHAKE:
		info.board = board_index("RArm");
		info.data = hs;
		info.len = sizeof(hs);
		break;
	case NB_MSG_ACK:
		info.board = board_index("LThigh");
		info.value = 1;
		break;
	case NB_MSG_PREF_PIECE:
		info.piece = 144;
		info.data = (const uint8_t *)"twenty-seven bytes of prefs";
		info.len = 27;
		break;
	case NB_MSG_ID_STRING:
		info.value = 3;
		info.data = (const uint8_t *)"P0000074A05S93M00061";
		info.len = 20;
		break;
	}
	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	if (nb_in_msg_encode(&b, &info, &s))
		abort();
	return first_message(out, &b, buf, NB_FRAME_IN);
}

static int out_msg(uint8_t *out, int type)
{
	struct nb_msg_info info = { .type = type, .board = NB_NO_BOARD };
	struct naobody_actuators a;
	struct nb_frame_builder b;
	uint8_t buf[512];
	uint64_t st = type;

	ct_random_actuators(&a, &st);
	switch (type) {
	case NB_MSG_TARGETS:
		info.board = board_index("Head");
		break;
	case NB_MSG_FOOT_LEDS:
		info.board = board_index("LFoot");
		break;
	case NB_MSG_HANDSHAKE_REQ:
		info.board = board_index("RShin");
		break;
	case NB_MSG_START:
		info.board = board_index("RHand");
		break;
	case NB_MSG_PREF_READ:
		info.piece = 100;
		break;
	case NB_MSG_ID_READ:
		info.value = 2;
		break;
	case NB_MSG_CHEST_MODE_REQ:
		info.value = NAOBODY_CHEST_LED_WATCHDOG_RESET;
		break;
	case NB_MSG_HARAKIRI:
		info.value = NAOBODY_HARAKIRI_RESET;
		break;
	}
	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_OUT);
	if (nb_out_msg_encode(&b, &info, &a))
		abort();
	return first_message(out, &b, buf, NB_FRAME_OUT);
}

/* frame seeds: a mode byte (fuzz_frame.c), then the frame */
static int in_body(uint8_t *out, int mode)
{
	struct naobody_sensors s;
	struct nb_frame_builder b;
	uint64_t st = 1;
	unsigned int i;

	ct_random_sensors(&s, &st);
	out[0] = mode;
	nb_frame_begin(&b, out + 1, NB_IN_FRAME_MAX, NB_FRAME_IN);
	nb_in_body(&b, &s, CT_ALL_BOARDS);
	for (i = 0; i < NB_BOARDS; i += 4) {
		struct nb_msg_info info = { .type = NB_MSG_ACK, .board = i };

		nb_in_msg_encode(&b, &info, &s);
	}
	return 1 + nb_frame_end(&b, NULL);
}

static int in_chest(uint8_t *out, int mode)
{
	struct nb_frame_builder b;
	uint8_t m[NB_MSG_MAX];
	int type, n;

	out[0] = mode;
	nb_frame_begin(&b, out + 1, NB_IN_FRAME_MAX, NB_FRAME_IN);
	for (type = NB_MSG_HANDSHAKE; type <= NB_MSG_CHEST_MODE; type++) {
		n = in_msg(m, type);
		nb_frame_put(&b, m, n);
	}
	return 1 + nb_frame_end(&b, NULL);
}

static int in_zero_lengths(uint8_t *out, int mode)
{
	struct nb_frame_builder b;
	int i;

	out[0] = mode;
	nb_frame_begin(&b, out + 1, NB_FRAME_MAX, NB_FRAME_IN);
	for (i = 0; i < NB_FRAME_MAX_MSGS; i++)
		nb_frame_add(&b, 0);
	return 1 + nb_frame_end(&b, NULL);
}

static int in_bad_table(uint8_t *out, int mode)
{
	int n = in_body(out, mode);

	out[n - 5] += 1;	/* the first message's length: now overruns */
	return n;
}

static int out_cycle(uint8_t *out, int mode)
{
	struct nb_out_plan plan = {
		.targets = CT_ALL_BOARDS, .handshake = BIT_ULL(2),
		.start = BIT_ULL(5), .requests = NB_REQ_ALL, .pref_piece = 9,
		.id_slot = 1, .chest_mode = NAOBODY_CHEST_QUERY_BOOTLOADER,
		.harakiri = NAOBODY_HARAKIRI_POWER_OFF,
	};
	struct naobody_actuators a;
	uint64_t st = 2;

	ct_random_actuators(&a, &st);
	out[0] = mode;
	return 1 + nb_out_cycle(out + 1, NB_FRAME_MAX, &a, &plan, NULL);
}

static int empty_frame(uint8_t *out, int mode)
{
	struct nb_frame_builder b;

	out[0] = mode;
	nb_frame_begin(&b, out + 1, 16, mode & 2 ? NB_FRAME_OUT : NB_FRAME_IN);
	return 1 + nb_frame_end(&b, NULL);
}

/* prefs seeds: a mode byte (fuzz_prefs.c), then a block or pieces */
static int prefs_block(uint8_t *out, int mode)
{
	struct nb_calibration cal;

	calibration(&cal);
	out[0] = mode;
	if (nb_prefs_build(&cal, out + 1, NAOBODY_PREFS_SIZE) < 0)
		abort();
	return 1 + NAOBODY_PREFS_SIZE;
}

static int prefs_pieces(uint8_t *out, int mode)
{
	static uint8_t block[NAOBODY_PREFS_SIZE + 1];
	unsigned int p, n = 1;

	prefs_block(block, 0);
	out[0] = mode;
	/* every other piece, so that the fuzzer has room to fill the rest */
	for (p = 0; p < NB_PREFS_PIECES; p += 2) {
		out[n++] = p;
		out[n++] = nb_prefs_piece_len(p);
		memcpy(out + n, block + 1 + p * 32, nb_prefs_piece_len(p));
		n += nb_prefs_piece_len(p);
	}
	return n;
}

/* handshake seeds: a board byte, then the answer */
static int handshake(uint8_t *out, int pattern)
{
	int i;

	out[0] = pattern * 5;
	for (i = 0; i < NB_HANDSHAKE_LEN; i++)
		out[1 + i] = pattern == 0 ? 0 : pattern == 1 ? 0xff : i * 13;
	out[1 + 20] = 10 + pattern % 2;	/* configuration version 10, 11 */
	return 1 + NB_HANDSHAKE_LEN - (pattern == 3);
}

static const struct seed seeds[] = {
	{ "frame", "in-body", in_body, 0 },
	{ "frame", "in-chest-answers", in_chest, 0 },
	{ "frame", "in-zero-length-255", in_zero_lengths, 1 },
	{ "frame", "in-bad-table", in_bad_table, 1 },
	{ "frame", "in-empty", empty_frame, 0 },
	{ "frame", "out-cycle", out_cycle, 2 },
	{ "frame", "out-cycle-fix-crc", out_cycle, 3 },
	{ "frame", "out-empty", empty_frame, 2 },
	{ "msg", "in-imu", in_msg, NB_MSG_IMU },
	{ "msg", "in-battery", in_msg, NB_MSG_BATTERY },
	{ "msg", "in-sonar", in_msg, NB_MSG_SONAR },
	{ "msg", "in-chest-button", in_msg, NB_MSG_CHEST_BUTTON },
	{ "msg", "in-joint", in_msg, NB_MSG_JOINT_BOARD },
	{ "msg", "in-hand", in_msg, NB_MSG_HAND_BOARD },
	{ "msg", "in-foot", in_msg, NB_MSG_FOOT_BOARD },
	{ "msg", "in-handshake", in_msg, NB_MSG_HANDSHAKE },
	{ "msg", "in-ack", in_msg, NB_MSG_ACK },
	{ "msg", "in-pref-piece", in_msg, NB_MSG_PREF_PIECE },
	{ "msg", "in-id-string", in_msg, NB_MSG_ID_STRING },
	{ "msg", "in-chest-mode", in_msg, NB_MSG_CHEST_MODE },
	{ "msg", "out-targets", out_msg, NB_MSG_TARGETS },
	{ "msg", "out-foot-leds", out_msg, NB_MSG_FOOT_LEDS },
	{ "msg", "out-imu-req", out_msg, NB_MSG_IMU_REQ },
	{ "msg", "out-battery-req", out_msg, NB_MSG_BATTERY_REQ },
	{ "msg", "out-sonar-req", out_msg, NB_MSG_SONAR_REQ },
	{ "msg", "out-chest-led", out_msg, NB_MSG_CHEST_LED },
	{ "msg", "out-handshake-req", out_msg, NB_MSG_HANDSHAKE_REQ },
	{ "msg", "out-start", out_msg, NB_MSG_START },
	{ "msg", "out-pref-read", out_msg, NB_MSG_PREF_READ },
	{ "msg", "out-id-read", out_msg, NB_MSG_ID_READ },
	{ "msg", "out-chest-mode", out_msg, NB_MSG_CHEST_MODE_REQ },
	{ "msg", "out-harakiri", out_msg, NB_MSG_HARAKIRI },
	{ "prefs", "block", prefs_block, 3 },
	{ "prefs", "block-unsealed", prefs_block, 1 },
	{ "prefs", "pieces", prefs_pieces, 0 },
	{ "handshake", "zeros", handshake, 0 },
	{ "handshake", "ones", handshake, 1 },
	{ "handshake", "pattern", handshake, 2 },
	{ "handshake", "short", handshake, 3 },
};

static void corpus_path(char *path, size_t n, const struct seed *s)
{
	char here[] = __FILE__;

	snprintf(path, n, "%s/corpus/%s/%s", dirname(here), s->dir, s->name);
}

static int write_all(void)
{
	static uint8_t buf[SEED_MAX];
	char path[512];
	unsigned int i;
	FILE *f;
	int n;

	for (i = 0; i < ARRAY_SIZE(seeds); i++) {
		n = seeds[i].make(buf, seeds[i].arg);
		corpus_path(path, sizeof(path), &seeds[i]);
		mkdir(dirname(dirname(strdupa(path))), 0755);
		mkdir(dirname(strdupa(path)), 0755);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, n, f) != (size_t)n || fclose(f)) {
			perror(path);
			return 1;
		}
		printf("%s: %d bytes\n", path, n);
	}
	return 0;
}

TEST(committed_seeds_are_current)
{
	static uint8_t want[SEED_MAX], have[SEED_MAX + 1];
	char path[512];
	unsigned int i;
	FILE *f;
	size_t got;
	int n;

	for (i = 0; i < ARRAY_SIZE(seeds); i++) {
		n = seeds[i].make(want, seeds[i].arg);
		ASSERT_GT(n, 0);
		ASSERT_LE(n, SEED_MAX);
		corpus_path(path, sizeof(path), &seeds[i]);
		f = fopen(path, "rb");
		ASSERT_NE(NULL, f) {
			TH_LOG("%s is missing: run codec_seeds_test --write", path);
		}
		got = fread(have, 1, sizeof(have), f);
		fclose(f);
		EXPECT_TRUE(got == (size_t)n && !memcmp(want, have, n)) {
			TH_LOG("%s is stale: run codec_seeds_test --write", path);
		}
	}
}

TEST(frame_seeds_parse_as_intended)
{
	static uint8_t buf[SEED_MAX];
	struct nb_frame f;
	int n;

	n = in_body(buf, 0);
	ASSERT_EQ(0, nb_frame_parse(&f, buf + 1, n - 1, NB_FRAME_IN));
	EXPECT_EQ(4 + NB_BOARDS + 5, f.count);
	n = in_bad_table(buf, 1);
	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf + 1, n - 1,
					  NB_FRAME_IN | NB_FRAME_NO_CRC));
	n = in_chest(buf, 0);
	ASSERT_EQ(0, nb_frame_parse(&f, buf + 1, n - 1, NB_FRAME_IN));
	EXPECT_EQ(5, f.count);
	n = out_cycle(buf, 2);
	ASSERT_EQ(0, nb_frame_parse(&f, buf + 1, n - 1, NB_FRAME_OUT));
	n = in_zero_lengths(buf, 1);
	ASSERT_EQ(0, nb_frame_parse(&f, buf + 1, n - 1, NB_FRAME_IN));
	EXPECT_EQ(255, f.count);
}

static void __attribute__((constructor)) seeds_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--write"))
		return write_all();
	return test_harness_run(argc, argv);
}
