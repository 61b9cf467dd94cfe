// SPDX-License-Identifier: GPL-2.0-only
/*
 * The emulator, driven by a usbfs host that does what naobody.ko does:
 * enumeration, the start-up requests, the three-step exchange, answers
 * that belong to their cycle, the recording, and the scripted body.
 */
#include <stdlib.h>
#include <time.h>

#include <naobody/prefs.h>

#include "kselftest_harness.h"
#include "common.h"

FIXTURE(emu) {
	struct nb_emu emu;
	struct host h;
};

FIXTURE_SETUP(emu)
{
	ASSERT_EQ(0, nb_gadget_load_modules());
	ASSERT_EQ(0, emu_up(&self->emu, &self->h, NULL));
}

FIXTURE_TEARDOWN(emu)
{
	emu_down(&self->emu, &self->h);
}

static int sysfs_read(const char *dev, const char *attr, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/%s", dev, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

TEST_F(emu, enumerates_as_the_chest_board)
{
	char buf[64];

	ASSERT_EQ(0, sysfs_read(self->emu.host_dev, "idVendor", buf, sizeof(buf)));
	EXPECT_STREQ("ffff", buf);
	ASSERT_EQ(0, sysfs_read(self->emu.host_dev, "idProduct", buf, sizeof(buf)));
	EXPECT_STREQ("0006", buf);
	ASSERT_EQ(0, sysfs_read(self->emu.host_dev, "speed", buf, sizeof(buf)));
	EXPECT_STREQ("12", buf);
	EXPECT_EQ(0xff, self->h.intf_class);
	EXPECT_EQ(64, self->h.maxp_in);
	EXPECT_EQ(64, self->h.maxp_out);
	EXPECT_TRUE(self->h.ep_in & 0x80);
	EXPECT_FALSE(self->h.ep_out & 0x80);
	TH_LOG("bulk IN 0x%02x, bulk OUT 0x%02x", self->h.ep_in, self->h.ep_out);
}

TEST_F(emu, answers_the_start_up_requests)
{
	struct nb_emu_stats st;
	uint8_t v[4];

	ASSERT_EQ(0, host_startup(&self->h, v));
	EXPECT_EQ(0x00, v[0]);
	EXPECT_EQ(0x02, v[1]);
	EXPECT_EQ(0x00, v[2]);
	EXPECT_EQ(0x29, v[3]);
	/* an unknown vendor request stalls */
	EXPECT_EQ(-EPIPE, host_control(&self->h, HOST_IN, 0x42, 0, 4, v, 100));
	ASSERT_EQ(0, nb_emu_stats(&self->emu, &st));
	EXPECT_EQ(1, st.start_requests);
	EXPECT_EQ(1, st.version_requests);
}

/* Every frame's 0x14 carries that frame's CRC; every answer is sound. */
TEST_F(emu, acknowledges_every_frame_with_its_crc)
{
	struct naobody_actuators a;
	const struct nb_out_plan p = { .targets = ALL_BOARDS,
				       .requests = NB_REQ_SENSORS | NB_REQ_CHEST_LED };
	struct nb_emu_stats st;
	struct host_cycle c;
	uint32_t crc, prev = 0;
	int bad = 0;

	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 200; i++) {
		struct naobody_sensors s;

		a.position[i % NAOBODY_JOINTS] = i;	/* every CRC differs */
		ASSERT_EQ(0, cycle_plan(&self->h, &a, &p, &c, &crc))
			TH_LOG("cycle %d: out %d, 0x14 %d, in %d, 0x15 %d, %llu us", i,
			       c.out, c.ack, c.in, c.status,
			       (unsigned long long)c.ns / 1000);
		ASSERT_NE(prev, crc);
		prev = crc;
		if (nb_ack_check(c.ackbuf, (size_t)c.ack, crc))
			bad++;
		memset(&s, 0, sizeof(s));
		ASSERT_LT(0, nb_in_frame_decode(c.answer, (size_t)c.in, &s, NULL));
		ASSERT_TRUE(s.updated & NAOBODY_UPDATED_IMU);
	}
	EXPECT_EQ(0, bad);
	/* the last answer's completion may still be on its way */
	for (int i = 0; i < 50; i++) {
		ASSERT_EQ(0, nb_emu_stats(&self->emu, &st));
		if (st.answers_read == 200)
			break;
		usleep(20000);
	}
	EXPECT_EQ(200, st.frames);
	EXPECT_EQ(200, st.acks);
	EXPECT_EQ(200, st.answers_read);
	EXPECT_EQ(0, st.ack_timeouts);
	TH_LOG("%llu of 200 acknowledges came before their frame's data, by up to %llu us",
	       (unsigned long long)st.ack_waits, (unsigned long long)st.ack_wait_max_us);
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/*
 * A 0x14 with no frame to acknowledge waits --ack-wait ms, then stalls: not
 * before (on the same clock), and well before a host that waits 5 s more
 * gives up (a hold that never ends times out rather than stalls).
 */
TEST_F(emu, stalls_an_acknowledge_without_a_frame)
{
	struct nb_emu_stats st;
	uint8_t ack[5];
	uint64_t t0 = now_ms(), dt;

	EXPECT_EQ(-EPIPE, host_control(&self->h, HOST_IN, 0x14, 0, 5, ack,
				       EMU_TEST_ACK_WAIT_MS + 5000));
	dt = now_ms() - t0;
	EXPECT_LE(EMU_TEST_ACK_WAIT_MS, dt);
	ASSERT_EQ(0, nb_emu_stats(&self->emu, &st));
	EXPECT_EQ(1, st.ack_timeouts);
	EXPECT_EQ(0, st.acks);
}

/*
 * A frame that is a multiple of 64 bytes ends with a zero-length packet;
 * one over 64 bytes takes several packets. Both arrive whole.
 */
TEST_F(emu, receives_multi_packet_frames)
{
	static const size_t sizes[] = { 63, 64, 65, 128, 300, 1024, 4096 };
	struct nb_emu_frame rec[8];
	struct host_cycle c;
	uint8_t buf[NB_FRAME_MAX];
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct nb_frame_builder b;
		size_t fill = sizes[i] - NB_FRAME_CRC_LEN;
		uint32_t crc;
		int n;

		/* messages of 200 bytes (unknown kind 0x7f) and one to fit */
		nb_frame_begin(&b, buf, sizes[i], NB_FRAME_OUT);
		while (fill) {
			size_t m = fill > 201 ? 200 : fill - 1;
			uint8_t *p = nb_frame_add(&b, m);

			ASSERT_NE(NULL, p);
			memset(p, 0x7f, m);
			fill -= m + 1;
		}
		n = nb_frame_end(&b, &crc);
		ASSERT_EQ((int)sizes[i], n);
		ASSERT_EQ(0, host_cycle(&self->h, buf, (size_t)n, &c));
		EXPECT_EQ(0, nb_ack_check(c.ackbuf, (size_t)c.ack, crc));
	}
	ASSERT_EQ((int)i, nb_emu_frames(&self->emu, 0, rec, 8));
	for (unsigned int k = 0; k < i; k++) {
		EXPECT_EQ(sizes[k], rec[k].len);
		EXPECT_TRUE(rec[k].flags & NB_EMU_F_CRC_OK);
		EXPECT_TRUE(rec[k].flags & NB_EMU_F_TABLE_OK);
	}
}

/*
 * The recording holds what the host sent, decoded: targets, requests,
 * CRC state, and when the cycle's steps happened.
 */
TEST_F(emu, records_what_the_host_sent)
{
	struct nb_emu_frame rec[3];
	struct naobody_actuators a;
	struct nb_out_plan p = { .targets = ALL_BOARDS, .requests = NB_REQ_CHEST_LED };
	struct host_cycle c;
	uint8_t buf[NB_FRAME_MAX];
	uint32_t crc;
	int n;

	memset(&a, 0, sizeof(a));
	for (int j = 0; j < NAOBODY_JOINTS; j++) {
		a.position[j] = 100 * j - 1000;
		a.stiffness[j] = (uint16_t)(40 * j);
	}
	a.chest_led[0] = 10;
	a.chest_led[1] = 20;
	a.chest_led[2] = 30;
	a.l_foot_led[1] = 7;
	ASSERT_EQ(0, cycle_plan(&self->h, &a, &p, &c, &crc));

	/* stiffness 0 everywhere, only the legs */
	memset(a.stiffness, 0, sizeof(a.stiffness));
	p.targets = 0;
	for (unsigned int i = 0; i < NB_BOARDS; i++)
		if (nb_board(i)->bus == 1)
			p.targets |= 1ULL << i;
	p.requests = NB_REQ_SENSORS | NB_REQ_ID;
	p.id_slot = 2;
	ASSERT_EQ(0, cycle_plan(&self->h, &a, &p, &c, &crc));

	/* a corrupted CRC: 0x14 says what the bytes' CRC is */
	n = plain_frame(buf, &crc);
	buf[0] ^= 1;
	ASSERT_EQ(0, host_cycle(&self->h, buf, (size_t)n, &c));
	EXPECT_EQ(0, nb_ack_check(c.ackbuf, (size_t)c.ack, crc));
	EXPECT_NE(0, nb_ack_check(c.ackbuf, (size_t)c.ack, crc ^ 0x01000000));

	ASSERT_EQ(3, nb_emu_frames(&self->emu, 0, rec, 3));
	EXPECT_EQ(0, rec[0].seq);
	EXPECT_EQ(sizeof(struct nb_emu_frame), rec[0].size);
	EXPECT_EQ(ALL_BOARDS, rec[0].targets);
	EXPECT_EQ(NB_REQ_CHEST_LED, rec[0].requests);
	for (int j = 0; j < NAOBODY_JOINTS; j++) {
		EXPECT_EQ(100 * j - 1000, rec[0].act.position[j]);
		EXPECT_EQ(40 * j, rec[0].act.stiffness[j]);
	}
	EXPECT_EQ(30, rec[0].act.chest_led[2]);
	EXPECT_EQ(7, rec[0].act.l_foot_led[1]);
	EXPECT_TRUE(rec[0].flags & NB_EMU_F_CRC_OK);
	EXPECT_TRUE(rec[0].flags & NB_EMU_F_ACKED);
	EXPECT_TRUE(rec[0].flags & NB_EMU_F_ANSWER_READ);
	EXPECT_LE(rec[0].rx_ns, rec[0].ack_ns);
	EXPECT_LE(rec[0].ack_ns, rec[0].answer_ns);
	EXPECT_LT(rec[0].answer_ns, rec[1].rx_ns);

	EXPECT_EQ(1, rec[1].seq);
	EXPECT_EQ(p.targets, rec[1].targets);
	EXPECT_EQ(NB_REQ_SENSORS | NB_REQ_ID, rec[1].requests);
	EXPECT_EQ(2, rec[1].id_slot);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		EXPECT_EQ(0, rec[1].act.stiffness[j]);
	/* the arms were not in this frame */
	EXPECT_EQ(0, rec[1].act.position[NAOBODY_L_SHOULDER_PITCH]);
	EXPECT_EQ(100 * NAOBODY_L_KNEE_PITCH - 1000,
		  rec[1].act.position[NAOBODY_L_KNEE_PITCH]);

	EXPECT_EQ(2, rec[2].seq);
	EXPECT_FALSE(rec[2].flags & NB_EMU_F_CRC_OK);
	EXPECT_EQ(crc ^ 0x01000000, rec[2].crc);
	EXPECT_EQ(crc, rec[2].crc_calc);
	EXPECT_EQ(0, rec[2].targets);
}

/*
 * An answer the host didn't read is never delivered in a later cycle: the
 * body counts cycles on the gyroscope, and every answer read must carry
 * its own frame's count.
 */
TEST_F(emu, never_delivers_an_answer_to_the_wrong_cycle)
{
	char reply[64];
	struct nb_emu_frame rec[64];
	uint8_t buf[NB_FRAME_MAX];
	struct host_cycle c;
	uint64_t start;
	int32_t base;
	uint32_t crc;
	int n, read = 0;

	ASSERT_EQ(0, nb_emu_get(&self->emu, "gyroscope", 0, &base));
	ASSERT_EQ(0, nb_emu_cmd(&self->emu, reply, sizeof(reply),
				"wave gyroscope 0 linear 1 0"));
	start = strtoull(reply, NULL, 0);
	n = plain_frame(buf, &crc);
	ASSERT_GT(n, 0);

	for (uint64_t seq = 0; seq < 60; seq++) {
		struct naobody_sensors s;

		ASSERT_EQ(n, host_bulk(&self->h, self->h.ep_out, buf, (size_t)n, 1,
				       self->h.timeout_ms));
		ASSERT_EQ(5, host_control(&self->h, HOST_IN, 0x14, 0, 5, c.ackbuf,
					  self->h.timeout_ms));
		ASSERT_EQ(0, nb_ack_check(c.ackbuf, 5, crc));
		if (seq % 3 == 1)
			continue;	/* leave this answer unread */
		if (seq % 3 == 2)
			usleep(5000);	/* and let this one wait a little */
		c.in = host_bulk(&self->h, self->h.ep_in, c.answer, sizeof(c.answer),
				 0, self->h.timeout_ms);
		ASSERT_LT(0, c.in);
		memset(&s, 0, sizeof(s));
		ASSERT_LT(0, nb_in_frame_decode(c.answer, (size_t)c.in, &s, NULL));
		EXPECT_EQ(base + (int32_t)(seq - start), s.gyroscope[0]);
		read++;
	}
	EXPECT_EQ(40, read);
	ASSERT_EQ(60, nb_emu_frames(&self->emu, 0, rec, 64));
	/* the last answer's completion may still be on its way */
	for (int i = 0; i < 59; i++) {
		if (i % 3 == 1) {
			EXPECT_TRUE(rec[i].flags & NB_EMU_F_ANSWER_DROPPED);
		} else {
			EXPECT_TRUE(rec[i].flags & NB_EMU_F_ANSWER_READ);
		}
	}
}

/* After an IN read times out the host asks 0x15; the status says why. */
TEST_F(emu, reports_status_after_no_answer)
{
	struct host_cycle c;
	uint8_t v[4];
	uint32_t crc;
	const struct nb_out_plan p = { .targets = ALL_BOARDS };

	ASSERT_EQ(0, host_startup(&self->h, v));
	ASSERT_EQ(0, nb_emu_misbehave(&self->emu, NB_EMU_MISB_NAK, 1, 0));
	self->h.in_timeout_ms = HOST_TIMEOUT_MS;
	EXPECT_EQ(-ETIMEDOUT, cycle_plan(&self->h, NULL, &p, &c, &crc));
	EXPECT_EQ(0, nb_ack_check(c.ackbuf, (size_t)c.ack, crc));
	ASSERT_EQ(2, c.status);
	/* 0x0a: no answer was ready (0x02), 0x13 was received (0x08) */
	EXPECT_EQ(0x00, c.statbuf[0]);
	EXPECT_EQ(0x0a, c.statbuf[1]);
	self->h.in_timeout_ms = HOST_PATIENT_MS;
	EXPECT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
}

static void find_handshakes(const struct nb_msg_info *i, void *ctx)
{
	struct naobody_board *b = ctx;

	if (i->type == NB_MSG_HANDSHAKE && i->board < NB_BOARDS) {
		nb_handshake_parse(i->data, i->len, &b[i->board]);
		b[i->board].tries++;
	}
}

static void find_acks(const struct nb_msg_info *i, void *ctx)
{
	uint64_t *acked = ctx;

	if (i->type == NB_MSG_ACK && i->board < NB_BOARDS && i->value == 0)
		*acked |= 1ULL << i->board;
}

/*
 * The handshake: 00 20 to every board gets 32-byte answers with the
 * configuration version (10 by default, any other on request) and the
 * serials; more than fit one 512-byte answer follow in the next cycles.
 * Boards send their data only once started, and acknowledge the start.
 */
TEST_F(emu, runs_the_motor_board_handshake)
{
	struct naobody_board b[NB_BOARDS];
	struct nb_out_plan p = { .handshake = ALL_BOARDS };
	struct naobody_sensors s;
	struct host_cycle c;
	uint64_t acked = 0;
	uint32_t crc;
	int cycles = 0, got = 0;

	ASSERT_EQ(0, nb_emu_board_version(&self->emu, 3, 11));
	memset(b, 0, sizeof(b));
	ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
	memset(&s, 0, sizeof(s));
	ASSERT_LT(0, nb_in_frame_decode(c.answer, (size_t)c.in, &s, NULL));
	EXPECT_FALSE(s.updated & NAOBODY_UPDATED_JOINTS);
	ASSERT_LT(0, each_msg(c.answer, (size_t)c.in, find_handshakes, b));
	p.handshake = 0;
	for (cycles = 1; cycles < 5; cycles++) {
		ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
		ASSERT_LE(0, each_msg(c.answer, (size_t)c.in, find_handshakes, b));
	}
	for (unsigned int i = 0; i < NB_BOARDS; i++) {
		if (!b[i].tries)
			continue;
		got++;
		EXPECT_EQ(1, b[i].tries);
		EXPECT_EQ(i == 3 ? 11 : 10, b[i].config_version);
		if (nb_board(i)->kind == NAOBODY_BOARD_FOOT) {
			EXPECT_EQ(0, b[i].serial);
		} else {
			EXPECT_EQ(0x4e420000u | (i + 1), b[i].serial);
		}
	}
	EXPECT_EQ(NB_BOARDS, got);

	/* start them: acknowledges, then every board's data */
	p.start = ALL_BOARDS;
	p.requests = NB_REQ_SENSORS;
	ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
	ASSERT_LT(0, each_msg(c.answer, (size_t)c.in, find_acks, &acked));
	p.start = 0;
	ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
	ASSERT_LE(0, each_msg(c.answer, (size_t)c.in, find_acks, &acked));
	EXPECT_EQ(ALL_BOARDS, acked);
	memset(&s, 0, sizeof(s));
	ASSERT_LT(0, nb_in_frame_decode(c.answer, (size_t)c.in, &s, NULL));
	EXPECT_TRUE(s.updated & NAOBODY_UPDATED_JOINTS);
	EXPECT_TRUE(s.updated & NAOBODY_UPDATED_L_FOOT);
	EXPECT_TRUE(s.updated & NAOBODY_UPDATED_R_FOOT);
	/* a standing robot: knees bent forward, feet loaded */
	EXPECT_LT(100, s.joint_position[NAOBODY_L_KNEE_PITCH]);
	EXPECT_LT(100, s.fsr[0]);
}

struct prefs_ctx {
	struct nb_prefs_asm *a;
	int pieces;
};

static void find_pieces(const struct nb_msg_info *i, void *ctx)
{
	struct prefs_ctx *p = ctx;

	if (i->type == NB_MSG_PREF_PIECE &&
	    nb_prefs_asm_put(p->a, i->piece, i->data, i->len) == 0)
		p->pieces++;
}

struct id_ctx {
	char id[NAOBODY_CHEST_ID_SLOTS][NAOBODY_CHEST_ID_LEN + 1];
	int mode;
};

static void find_ids(const struct nb_msg_info *i, void *ctx)
{
	struct id_ctx *c = ctx;

	if (i->type == NB_MSG_ID_STRING && i->value < NAOBODY_CHEST_ID_SLOTS)
		memcpy(c->id[i->value], i->data, i->len);
	if (i->type == NB_MSG_CHEST_MODE)
		c->mode = i->value;
}

/*
 * The preference block, read piece by piece as the driver does, is whole
 * and CRC-sealed, and libnaobody parses the body id and serials from it;
 * the id strings and chest mode requests are answered too.
 */
TEST_F(emu, serves_preferences_and_id_strings)
{
	static struct nb_prefs_asm a;
	static struct nb_calibration cal;
	struct prefs_ctx pc = { .a = &a };
	struct id_ctx ic;
	struct nb_out_plan p = { .requests = NB_REQ_PREF };
	struct host_cycle c;
	uint32_t crc;

	nb_prefs_asm_init(&a);
	for (unsigned int k = 0; k < NB_PREFS_PIECES; k++) {
		p.pref_piece = (uint16_t)k;
		ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
		ASSERT_LT(0, each_msg(c.answer, (size_t)c.in, find_pieces, &pc));
	}
	EXPECT_EQ(NB_PREFS_PIECES, pc.pieces);
	ASSERT_EQ(0, nb_prefs_asm_check(&a));
	ASSERT_LT(0, nb_prefs_parse(a.block, sizeof(a.block), &cal));
	EXPECT_STREQ("P0000073A07SEMU00042", cal.body_id);
	EXPECT_LE(NB_BOARDS, cal.boards);
	EXPECT_EQ(0x4e420001u, cal.board[0].serial);

	memset(&ic, 0, sizeof(ic));
	ic.mode = -1;
	ASSERT_EQ(0, nb_emu_cmd(&self->emu, NULL, 0, "id 1 hello world"));
	for (unsigned int slot = 0; slot < NAOBODY_CHEST_ID_SLOTS; slot++) {
		p = (struct nb_out_plan){ .requests = NB_REQ_ID, .id_slot = (uint8_t)slot };
		ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
		ASSERT_LT(0, each_msg(c.answer, (size_t)c.in, find_ids, &ic));
	}
	EXPECT_STREQ("hello world", ic.id[1]);
	EXPECT_STREQ("P0000073A07SEMU00042", ic.id[3]);
	p = (struct nb_out_plan){ .requests = NB_REQ_CHEST_MODE,
				  .chest_mode = NAOBODY_CHEST_QUERY_BOOTLOADER };
	ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
	ASSERT_LT(0, each_msg(c.answer, (size_t)c.in, find_ids, &ic));
	EXPECT_EQ(0, ic.mode);	/* not in the boot loader */
}

/* Scripted sensors reach the host: values set, waves, touches, drain. */
TEST_F(emu, plays_the_scripted_body)
{
	const struct nb_out_plan p = { .requests = NB_REQ_SENSORS };
	struct naobody_sensors s;
	struct host_cycle c;
	char reply[64];
	int32_t lo = INT32_MAX, hi = INT32_MIN, charge0 = -1;
	uint64_t next;
	uint32_t crc;

	/* standing: gravity on z, battery nearly full */
	ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
	memset(&s, 0, sizeof(s));
	ASSERT_LT(0, nb_in_frame_decode(c.answer, (size_t)c.in, &s, NULL));
	EXPECT_GT(-15000, s.accelerometer[2]);
	EXPECT_LT(-17500, s.accelerometer[2]);
	EXPECT_LE(90, s.battery_charge);
	EXPECT_GE(100, s.battery_charge);

	ASSERT_EQ(0, nb_emu_set(&self->emu, "sonar", 1, 77));
	ASSERT_EQ(0, nb_emu_set(&self->emu, "gyroscope", 1, 100));
	ASSERT_EQ(0, nb_emu_wave(&self->emu, "gyroscope", 1, "sine", 1000, 20));
	ASSERT_EQ(0, nb_emu_drain(&self->emu, 1000));	/* a count a cycle */
	ASSERT_EQ(0, nb_emu_cmd(&self->emu, reply, sizeof(reply), "touch 0 +5 3"));
	next = strtoull(reply, NULL, 0);
	for (int i = 0; i < 40; i++) {
		struct nb_emu_stats st;

		ASSERT_EQ(0, nb_emu_stats(&self->emu, &st));
		ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
		memset(&s, 0, sizeof(s));
		ASSERT_LT(0, nb_in_frame_decode(c.answer, (size_t)c.in, &s, NULL));
		EXPECT_EQ(77, s.sonar[1]);
		lo = s.gyroscope[1] < lo ? s.gyroscope[1] : lo;
		hi = s.gyroscope[1] > hi ? s.gyroscope[1] : hi;
		if (charge0 < 0)
			charge0 = s.battery_charge;
		EXPECT_EQ(charge0 - i, s.battery_charge);
		/* this frame was number st.frames */
		EXPECT_EQ(st.frames >= next && st.frames < next + 3,
			  !!(s.touch & (1U << NAOBODY_TOUCH_CHEST_BUTTON)));
	}
	EXPECT_EQ(100 + 1000, hi);
	EXPECT_EQ(100 - 1000, lo);
}

/* A stiff joint moves toward its target; a limp one stays. */
TEST_F(emu, joints_follow_stiff_targets)
{
	struct nb_out_plan p = { .start = ALL_BOARDS };
	struct naobody_actuators a;
	struct naobody_sensors s;
	struct host_cycle c;
	int32_t knee0, elbow0;
	uint32_t crc;

	ASSERT_EQ(0, cycle_plan(&self->h, NULL, &p, &c, &crc));
	ASSERT_EQ(0, nb_emu_get(&self->emu, "joint_position", NAOBODY_L_KNEE_PITCH, &knee0));
	ASSERT_EQ(0, nb_emu_get(&self->emu, "joint_position", NAOBODY_L_ELBOW_YAW, &elbow0));
	memset(&a, 0, sizeof(a));
	a.position[NAOBODY_L_KNEE_PITCH] = knee0 + 500;
	a.stiffness[NAOBODY_L_KNEE_PITCH] = 1000;
	a.position[NAOBODY_L_ELBOW_YAW] = elbow0 + 500;	/* stiffness 0 */
	p = (struct nb_out_plan){ .targets = ALL_BOARDS };
	for (int i = 0; i < 30; i++)
		ASSERT_EQ(0, cycle_plan(&self->h, &a, &p, &c, &crc));
	memset(&s, 0, sizeof(s));
	ASSERT_LT(0, nb_in_frame_decode(c.answer, (size_t)c.in, &s, NULL));
	EXPECT_LT(knee0 + 450, s.joint_position[NAOBODY_L_KNEE_PITCH]);
	EXPECT_GE(knee0 + 500, s.joint_position[NAOBODY_L_KNEE_PITCH]);
	EXPECT_EQ(elbow0, s.joint_position[NAOBODY_L_ELBOW_YAW]);
}

/* The 0x05 product id and another version are options. */
TEST(product_and_version_are_options)
{
	static const char *const args[] = { "--product", "0x0005",
		"--chest-version", "0x01020304", NULL };
	struct nb_emu emu;
	struct host h;
	uint8_t v[4];

	ASSERT_EQ(0, nb_gadget_load_modules());
	ASSERT_EQ(0, emu_up(&emu, &h, args));
	EXPECT_EQ(0x0005, emu.product);
	EXPECT_EQ(0, host_startup(&h, v));
	EXPECT_EQ(1, v[0]);
	EXPECT_EQ(2, v[1]);
	EXPECT_EQ(3, v[2]);
	EXPECT_EQ(4, v[3]);
	emu_down(&emu, &h);
}

static int run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* --help answers; a bad option is a usage error that names itself. */
TEST(help_and_usage_errors)
{
	EXPECT_EQ(0, run("chestboard-emu --help | grep -q '^Usage: chestboard-emu'"));
	EXPECT_EQ(0, run("chestboard-emu --help | grep -q -- '--ack-wait'"));
	EXPECT_EQ(2, run("chestboard-emu --frobnicate 2>/dev/null"));
	EXPECT_EQ(0, run("chestboard-emu --product 7 2>&1 | grep -q -- '--product'"));
	EXPECT_EQ(0, run("chestboard-emu --silent-ms 0 2>&1 | grep -q -- '--silent-ms: 1 to'"));
	EXPECT_EQ(0, run("chestboard-emu --reconnect-ms 70000 2>&1 | grep -q -- '--reconnect-ms: 0 to'"));
	EXPECT_EQ(2, run("chestboard-emu extra 2>/dev/null"));
}

TEST_HARNESS_MAIN
