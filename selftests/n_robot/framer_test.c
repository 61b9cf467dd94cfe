// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests of the CM-5 and PAROL6 framers: the same C files as the
 * kernel module, built with ASan and UBSan.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include <n_robot/cm5.h>
#include <n_robot/parol6.h>
#include "stream.h"

struct rx {
	struct nrf f;
	struct cm5_state cm5;
	struct ts_sink sink;
};

static void rx_emit(void *ctx, const u8 *frame, size_t len)
{
	ts_sink_add(&((struct rx *)ctx)->sink, frame, len);
}

static struct rx *rx_new(u32 framing)
{
	struct rx *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	nrf_init(&r->f, framing == N_ROBOT_FRAMING_CM5 ? &cm5_proto :
		 &parol6_proto, rx_emit, r);
	cm5_state_init(&r->cm5, &r->f);
	return r;
}

static void rx_free(struct rx *r)
{
	ts_sink_free(&r->sink);
	free(r);
}

/* Every byte is a frame byte, dropped, or pending. */
static int rx_accounted(const struct rx *r)
{
	const struct nrf_counters *c = &r->f.cnt;

	return c->raw_bytes == c->frame_bytes + c->dropped_bytes +
			       nrf_pending(&r->f);
}

static size_t cm5_status(u8 *b, u8 status, u8 seq)
{
	b[0] = 0xFA;
	b[1] = status;
	b[2] = 0;
	b[3] = seq;
	b[4] = 0x80;
	b[5] = 0x7f;
	b[6] = cm5_checksum(b, 6);
	return 7;
}

static size_t cm5_data(u8 *b, u32 data_len, u8 seq)
{
	u32 i;

	b[0] = 0xFB;
	for (i = 1; i < 6 + data_len; i++)
		b[i] = (u8)(seq + i);
	b[6 + data_len] = cm5_checksum(b, 6 + data_len);
	return 7 + data_len;
}

static size_t parol6_telemetry(u8 *b, u8 seq)
{
	u32 i;

	b[0] = b[1] = b[2] = 0xFF;
	b[3] = 56;
	for (i = 4; i < 58; i++)
		b[i] = (u8)(seq * 7 + i);
	b[10] = b[11] = b[12] = 0xFF;	/* a position of -1 */
	b[13] = 0xFF;
	b[14] = 0x38;			/* and a fake header inside */
	b[58] = 1;
	b[59] = 2;
	return 60;
}

static int set_read_format(struct rx *r, u32 count, u8 num)
{
	struct n_robot_cm5_entry e[N_ROBOT_CM5_MAX_DYNAMIXELS];
	u32 i;

	memset(e, 0, sizeof(e));
	for (i = 0; i < count; i++) {
		e[i].id = (u8)(i + 1);
		e[i].start = 36;
		e[i].num = num;
	}
	return cm5_set_format(&r->cm5, &r->f, N_ROBOT_CM5_FORMAT_READ, e, count);
}

TEST(cm5_burst_and_byte_by_byte)
{
	struct rx *a = rx_new(N_ROBOT_FRAMING_CM5);
	struct rx *b = rx_new(N_ROBOT_FRAMING_CM5);
	u8 s[256];
	size_t n = 0, i;

	ASSERT_EQ(0, set_read_format(a, 2, 4));
	ASSERT_EQ(0, set_read_format(b, 2, 4));
	n += cm5_status(s + n, 0, 1);
	n += cm5_data(s + n, 8, 2);
	n += cm5_status(s + n, 4, 3);
	nrf_feed(&a->f, s, NULL, n);
	for (i = 0; i < n; i++)
		nrf_feed(&b->f, s + i, NULL, 1);
	ASSERT_EQ(3, a->sink.n);
	ASSERT_EQ(3, b->sink.n);
	EXPECT_EQ(7, a->sink.len[0]);
	EXPECT_EQ(15, a->sink.len[1]);
	EXPECT_EQ(0, memcmp(a->sink.frame[1], s + 7, 15));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(a->sink.len[i], b->sink.len[i]);
		EXPECT_EQ(0, memcmp(a->sink.frame[i], b->sink.frame[i],
				    a->sink.len[i]));
	}
	EXPECT_EQ(0, a->f.cnt.dropped_bytes);
	EXPECT_TRUE(rx_accounted(a));
	rx_free(a);
	rx_free(b);
}

TEST(cm5_garbage_before_between_inside)
{
	struct rx *r = rx_new(N_ROBOT_FRAMING_CM5);
	u8 s[256], st[8];
	size_t n = 0;

	/* before: bytes that cannot start a reply, and a false start */
	s[n++] = 0x00;
	s[n++] = 0x55;
	s[n++] = 0xFA;			/* a STATUS that never finishes */
	n += cm5_status(s + n, 0, 1);
	/* between */
	memset(s + n, 0xFF, 5);		/* the firmware's 0xFF stuffing */
	n += 5;
	n += cm5_status(s + n, 0, 2);
	/* inside: a byte inserted into a STATUS ruins it... */
	cm5_status(st, 0, 3);
	memcpy(s + n, st, 3);
	s[n + 3] = 0x11;
	memcpy(s + n + 4, st + 3, 4);
	n += 8;
	/* ...and the next one still arrives */
	n += cm5_status(s + n, 0, 4);
	nrf_feed(&r->f, s, NULL, n);
	ASSERT_EQ(3, r->sink.n);
	EXPECT_EQ(1, r->sink.frame[0][3]);
	EXPECT_EQ(2, r->sink.frame[1][3]);
	EXPECT_EQ(4, r->sink.frame[2][3]);
	EXPECT_GE(r->f.cnt.checksum_errors, 2);
	EXPECT_EQ(r->f.cnt.checksum_errors, r->f.cnt.resyncs);
	EXPECT_TRUE(rx_accounted(r));
	rx_free(r);
}

TEST(cm5_every_bad_checksum_is_dropped)
{
	u8 good[64], bad[64];
	size_t len, i;
	int bit;

	for (i = 0; i < 2; i++) {
		len = i ? cm5_data(good, 10, 9) : cm5_status(good, 0, 9);
		for (size_t pos = 1; pos < len; pos++) {
			for (bit = 0; bit < 8; bit++) {
				struct rx *r = rx_new(N_ROBOT_FRAMING_CM5);

				ASSERT_EQ(0, set_read_format(r, 1, 10));
				memcpy(bad, good, len);
				bad[pos] ^= 1 << bit;
				nrf_feed(&r->f, bad, NULL, len);
				/* the good frame after it must survive */
				nrf_feed(&r->f, good, NULL, len);
				/* a bit flip can make a 0xFA/0xFB that starts a
				 * false candidate; that one needs more bytes.
				 */
				ASSERT_GE(r->sink.n, 1);
				EXPECT_EQ(0, memcmp(r->sink.frame[r->sink.n - 1],
						    good, len));
				EXPECT_GE(r->f.cnt.checksum_errors, 1);
				EXPECT_TRUE(rx_accounted(r));
				rx_free(r);
			}
		}
	}
}

TEST(cm5_wrong_length_truncated_reply)
{
	struct rx *r = rx_new(N_ROBOT_FRAMING_CM5);
	u8 s[128];
	size_t n = 0;

	ASSERT_EQ(0, set_read_format(r, 1, 6));
	n += cm5_data(s + n, 6, 1);
	n -= 3;				/* cut short */
	n += cm5_data(s + n, 6, 2);
	n += cm5_status(s + n, 0, 3);
	nrf_feed(&r->f, s, NULL, n);
	ASSERT_EQ(2, r->sink.n);
	EXPECT_EQ(13, r->sink.len[0]);
	EXPECT_EQ(0xFB, r->sink.frame[0][0]);
	EXPECT_EQ((u8)(2 + 1), r->sink.frame[0][1]);
	EXPECT_EQ(7, r->sink.len[1]);
	EXPECT_TRUE(rx_accounted(r));
	rx_free(r);
}

TEST(cm5_format_change_mid_stream)
{
	struct rx *r = rx_new(N_ROBOT_FRAMING_CM5);
	u8 s[128];
	size_t n;

	ASSERT_EQ(0, set_read_format(r, 1, 4));
	n = cm5_data(s, 4, 1);
	/* half a DATA of the old format, then the format changes */
	nrf_feed(&r->f, s, NULL, 5);
	ASSERT_EQ(0, set_read_format(r, 3, 10));
	nrf_feed(&r->f, s + 5, NULL, n - 5);
	ASSERT_EQ(1, r->sink.n);
	EXPECT_EQ(11, r->sink.len[0]);
	/* the next DATA has the new length */
	n = cm5_data(s, 30, 2);
	nrf_feed(&r->f, s, NULL, n);
	ASSERT_EQ(2, r->sink.n);
	EXPECT_EQ(37, r->sink.len[1]);
	/* and a format learned from a SET_READ_FORMAT packet */
	{
		u8 p[8] = { 0xF1, 1, 7, 36, 2 };

		p[5] = cm5_checksum(p, 5);
		ASSERT_EQ(0, cm5_tx_check(&r->cm5, p, 6));
		cm5_tx_commit(&r->cm5, &r->f, p, 6);
		EXPECT_EQ(2, r->f.cm5.data_len);
	}
	n = cm5_data(s, 2, 3);
	nrf_feed(&r->f, s, NULL, n);
	ASSERT_EQ(3, r->sink.n);
	EXPECT_EQ(9, r->sink.len[2]);
	rx_free(r);
}

TEST(cm5_unsolicited_status_counted_and_delivered)
{
	struct rx *r = rx_new(N_ROBOT_FRAMING_CM5);
	u8 s[16], ping[3] = { 0xF0, 1, 0 };

	ping[2] = cm5_checksum(ping, 2);
	ASSERT_EQ(0, cm5_tx_check(&r->cm5, ping, 3));
	cm5_tx_commit(&r->cm5, &r->f, ping, 3);
	cm5_status(s, 0, 1);
	nrf_feed(&r->f, s, NULL, 7);	/* the reply */
	EXPECT_EQ(0, r->f.cnt.cm5_unsolicited);
	cm5_status(s, 0x04, 2);
	nrf_feed(&r->f, s, NULL, 7);	/* after garbage */
	EXPECT_EQ(1, r->f.cnt.cm5_unsolicited);
	EXPECT_EQ(2, r->sink.n);
	rx_free(r);
}

TEST(tty_error_flags_break_a_frame)
{
	struct rx *r = rx_new(N_ROBOT_FRAMING_CM5);
	u8 s[32], fl[32];
	size_t n = 0;

	n += cm5_status(s + n, 0, 1);
	n += cm5_status(s + n, 0, 2);
	memset(fl, 0, sizeof(fl));
	fl[2] = 1;			/* TTY_PARITY inside frame 1 */
	nrf_feed(&r->f, s, fl, n);
	ASSERT_EQ(1, r->sink.n);
	EXPECT_EQ(2, r->sink.frame[0][3]);
	EXPECT_EQ(1, r->f.cnt.tty_errors);
	EXPECT_TRUE(rx_accounted(r));
	rx_free(r);
}

/*
 * "The read format will be indeterminate until it is successfully re-set":
 * a format is known only after a clean STATUS answers its F1; after a
 * status bit (0x40 included), or another request before the answer, a
 * READ_DATA is refused with -ESTALE until the format is sent again.
 */
TEST(cm5_format_unknown_until_a_clean_status)
{
	struct rx *r = rx_new(N_ROBOT_FRAMING_CM5);
	u8 f1[6] = { 0xF1, 1, 1, 36, 2 }, f3[2] = { 0xF3 }, ping[3] = { 0xF0, 1 };
	u8 b[16];

	f1[5] = cm5_checksum(f1, 5);
	f3[1] = cm5_checksum(f3, 1);
	ping[2] = cm5_checksum(ping, 2);
	EXPECT_EQ(0, cm5_tx_ready(&r->f, f3, 2));	/* empty and known */
	/* answered with 0x40: unknown, and the reader got that STATUS */
	cm5_tx_commit(&r->cm5, &r->f, f1, 6);
	EXPECT_EQ(-ESTALE, cm5_tx_ready(&r->f, f3, 2));
	nrf_feed(&r->f, b, NULL, cm5_status(b, 0x40, 1));
	EXPECT_EQ(1, r->f.cnt.frames);
	EXPECT_EQ(1, r->f.cnt.cm5_formats_lost);
	EXPECT_EQ(-ESTALE, cm5_tx_ready(&r->f, f3, 2));
	/* the next reply is not taken for an answer to it */
	cm5_tx_commit(&r->cm5, &r->f, ping, 3);
	nrf_feed(&r->f, b, NULL, cm5_status(b, 0, 2));
	EXPECT_EQ(-ESTALE, cm5_tx_ready(&r->f, f3, 2));
	/* re-set, answered cleanly: known */
	cm5_tx_commit(&r->cm5, &r->f, f1, 6);
	nrf_feed(&r->f, b, NULL, cm5_status(b, 0, 3));
	EXPECT_EQ(0, cm5_tx_ready(&r->f, f3, 2));
	/* no answer before the next request: unknown */
	cm5_tx_commit(&r->cm5, &r->f, f1, 6);
	cm5_tx_commit(&r->cm5, &r->f, ping, 3);
	nrf_feed(&r->f, b, NULL, cm5_status(b, 0, 4));
	nrf_feed(&r->f, b, NULL, cm5_status(b, 0, 5));
	EXPECT_EQ(-ESTALE, cm5_tx_ready(&r->f, f3, 2));
	EXPECT_EQ(2, r->f.cnt.cm5_formats_lost);
	/* told by the caller (the ioctl): known */
	EXPECT_EQ(0, cm5_set_format(&r->cm5, &r->f, N_ROBOT_CM5_FORMAT_READ,
				    (struct n_robot_cm5_entry[1]){ 0 }, 0));
	EXPECT_EQ(0, cm5_tx_ready(&r->f, f3, 2));
	EXPECT_TRUE(rx_accounted(r));
	rx_free(r);
}

TEST(cm5_tx_checks)
{
	struct rx *r = rx_new(N_ROBOT_FRAMING_CM5);
	u8 p[200];

#define CK(n) (p[(n) - 1] = cm5_checksum(p, (n) - 1))
	p[0] = 0xF3; CK(2);
	EXPECT_EQ(0, cm5_tx_check(&r->cm5, p, 2));
	EXPECT_EQ(-EINVAL, cm5_tx_check(&r->cm5, p, 1));	/* lone F3 */
	p[1] ^= 1;
	EXPECT_EQ(-EBADMSG, cm5_tx_check(&r->cm5, p, 2));
	p[0] = 0xF0; p[1] = 254; CK(3);
	EXPECT_EQ(-EINVAL, cm5_tx_check(&r->cm5, p, 3));
	p[1] = 255; CK(3);
	EXPECT_EQ(0, cm5_tx_check(&r->cm5, p, 3));
	p[0] = 0xF5; CK(2);
	EXPECT_EQ(-EINVAL, cm5_tx_check(&r->cm5, p, 2));
	/* a write format over present position (read-only on an AX-12) */
	p[0] = 0xF2; p[1] = 1; p[2] = 3; p[3] = 30; p[4] = 8; CK(6);
	EXPECT_EQ(-EACCES, cm5_tx_check(&r->cm5, p, 6));
	/* goal position and moving speed are writable */
	p[4] = 4; CK(6);
	EXPECT_EQ(0, cm5_tx_check(&r->cm5, p, 6));
	cm5_tx_commit(&r->cm5, &r->f, p, 6);
	/* on an AX-S1 address 30 is a luminosity: read-only */
	r->cm5.model[3] = N_ROBOT_CM5_MODEL_AXS1;
	EXPECT_EQ(-EACCES, cm5_tx_check(&r->cm5, p, 6));
	r->cm5.model[3] = N_ROBOT_CM5_MODEL_AX12;
	/* out of the firmware's bounds */
	p[3] = 54; p[4] = 2; CK(6);
	EXPECT_EQ(-EINVAL, cm5_tx_check(&r->cm5, p, 6));
	p[1] = 33; CK(3 + 3 * 33);
	EXPECT_EQ(-EINVAL, cm5_tx_check(&r->cm5, p, 3 + 3 * 33));
	/* WRITE_DATA must match the write format (4 bytes) */
	p[0] = 0xF4; memset(p + 1, 0x10, 4); CK(6);
	EXPECT_EQ(0, cm5_tx_check(&r->cm5, p, 6));
	CK(5);
	EXPECT_EQ(-EINVAL, cm5_tx_check(&r->cm5, p, 5));
	EXPECT_EQ(-EMSGSIZE, cm5_tx_check(&r->cm5, p, 131));
	{
		/* a write format whose WRITE_DATA would overflow 128 bytes */
		struct n_robot_cm5_entry e[3] = {
			{ 1, 24, 12, 0 }, { 2, 24, 12, 0 }, { 3, 24, 12, 0 },
		};
		struct n_robot_cm5_entry e5[5] = {
			{ 1, 24, 6, 0 }, { 2, 24, 6, 0 }, { 3, 24, 6, 0 },
			{ 4, 24, 6, 0 }, { 5, 24, 6, 0 },
		};

		EXPECT_EQ(0, cm5_set_format(&r->cm5, &r->f,
					    N_ROBOT_CM5_FORMAT_WRITE, e5, 5));
		EXPECT_EQ(30, cm5_format_bytes(&r->cm5.fmt[1]));
		EXPECT_EQ(0, cm5_set_format(&r->cm5, &r->f,
					    N_ROBOT_CM5_FORMAT_WRITE, e, 3));
	}
	{
		struct n_robot_cm5_entry big[11];
		int i;

		for (i = 0; i < 11; i++) {
			big[i].id = (u8)i;
			big[i].start = 24;
			big[i].num = 12;	/* 24..35 */
			big[i].pad = 0;
		}
		/* 11 * 12 + 2 = 134 > 130 */
		EXPECT_EQ(-EMSGSIZE, cm5_set_format(&r->cm5, &r->f,
						     N_ROBOT_CM5_FORMAT_WRITE,
						     big, 11));
		/* reading the same span is fine */
		EXPECT_EQ(0, cm5_set_format(&r->cm5, &r->f,
					    N_ROBOT_CM5_FORMAT_READ, big, 11));
		EXPECT_EQ(132, r->f.cm5.data_len);
	}
	{
		/* BRBrain's 32 servos x (goal position, moving speed): 130 */
		struct n_robot_cm5_entry all[32];
		int i;

		for (i = 0; i < 32; i++)
			all[i] = (struct n_robot_cm5_entry){ (u8)i, 30, 4, 0 };
		EXPECT_EQ(0, cm5_set_format(&r->cm5, &r->f,
					    N_ROBOT_CM5_FORMAT_WRITE, all, 32));
		p[0] = 0xF4; memset(p + 1, 0, 128); CK(130);
		EXPECT_EQ(0, cm5_tx_check(&r->cm5, p, 130));
		/* and an entry of no bytes, which BRBrain sends */
		all[3].num = 0;
		all[3].start = 0;
		EXPECT_EQ(0, cm5_set_format(&r->cm5, &r->f,
					    N_ROBOT_CM5_FORMAT_READ, all, 32));
		EXPECT_EQ(124, r->f.cm5.data_len);
	}
#undef CK
	rx_free(r);
}

TEST(parol6_frames_and_resync)
{
	struct rx *r = rx_new(N_ROBOT_FRAMING_PAROL6);
	u8 s[512], t[60];
	size_t n = 0, i;

	n += parol6_telemetry(s + n, 1);
	s[n++] = 0xFF;			/* stray FF before a header */
	n += parol6_telemetry(s + n, 2);
	/* a header with length 0, then 52, then 255 */
	memcpy(s + n, "\xff\xff\xff\x00", 4); n += 4;
	memcpy(s + n, "\xff\xff\xff\x34", 4); n += 4;
	memcpy(s + n, "\xff\xff\xff\xff", 4); n += 4;
	n += parol6_telemetry(s + n, 3);
	/* bad end bytes */
	parol6_telemetry(t, 4);
	t[59] = 3;
	memcpy(s + n, t, 60); n += 60;
	n += parol6_telemetry(s + n, 5);
	for (i = 0; i < n; i += 7)
		nrf_feed(&r->f, s + i, NULL, n - i < 7 ? n - i : 7);
	ASSERT_EQ(4, r->sink.n);
	EXPECT_EQ((u8)(1 * 7 + 20), r->sink.frame[0][20]);
	EXPECT_EQ((u8)(2 * 7 + 20), r->sink.frame[1][20]);
	EXPECT_EQ((u8)(3 * 7 + 20), r->sink.frame[2][20]);
	EXPECT_EQ((u8)(5 * 7 + 20), r->sink.frame[3][20]);
	EXPECT_GE(r->f.cnt.length_errors, 3);
	EXPECT_GE(r->f.cnt.marker_errors, 1);
	EXPECT_TRUE(rx_accounted(r));
	rx_free(r);
}

TEST(parol6_tx_checks)
{
	u8 p[64];

	memset(p, 0, sizeof(p));
	p[0] = p[1] = p[2] = 0xFF;
	p[3] = 52;
	p[40] = 255;
	p[54] = 1;
	p[55] = 2;
	EXPECT_EQ(0, parol6_tx_check(p, 56));
	EXPECT_EQ(-EINVAL, parol6_tx_check(p, 55));
	p[3] = 0;			/* length 0 wedges the firmware */
	EXPECT_EQ(-EINVAL, parol6_tx_check(p, 56));
	p[3] = 52;
	p[40] = 7;			/* no such command */
	EXPECT_EQ(-EINVAL, parol6_tx_check(p, 56));
	p[40] = 123;
	p[55] = 3;
	EXPECT_EQ(-EINVAL, parol6_tx_check(p, 56));
}

/* Worst case for the slide: a stream of nothing but start bytes. */
TEST(cm5_all_start_bytes_linear)
{
	struct rx *r = rx_new(N_ROBOT_FRAMING_CM5);
	static u8 s[1 << 20];
	struct n_robot_cm5_entry e[32];
	int i;

	for (i = 0; i < 32; i++) {
		e[i].id = (u8)i;
		e[i].start = 0;
		e[i].num = 55;
		e[i].pad = 0;
	}
	ASSERT_EQ(0, cm5_set_format(&r->cm5, &r->f, N_ROBOT_CM5_FORMAT_READ,
				    e, 32));
	EXPECT_EQ(N_ROBOT_CM5_MAX_FRAME, 7 + r->f.cm5.data_len);
	memset(s, 0xFB, sizeof(s));
	nrf_feed(&r->f, s, NULL, sizeof(s));
	EXPECT_EQ(0, r->sink.n);
	EXPECT_TRUE(rx_accounted(r));
	EXPECT_LT(nrf_pending(&r->f), N_ROBOT_CM5_MAX_FRAME);
	rx_free(r);
}

static void noise_run(struct __test_metadata *_metadata, u32 framing,
		      size_t chunk)
{
	struct ts_stream s;
	struct ts_result res;
	struct rx *r = rx_new(framing);
	char why[256];
	size_t i;

	ts_build(&s, framing, 10000, 0x5eed + framing, 10, 10);
	if (framing == N_ROBOT_FRAMING_CM5)
		ASSERT_EQ(0, set_read_format(r, 2, 5));
	for (i = 0; i < s.len; i += chunk)
		nrf_feed(&r->f, s.buf + i, NULL,
			 s.len - i < chunk ? s.len - i : chunk);
	ASSERT_EQ(0, ts_verify(&s, &r->sink, &res, why, sizeof(why)))
		TH_LOG("%s", why);
	TH_LOG("%zu frames, %zu touched, %zu delivered, %zu originals, %zu shadowed",
	       s.nframes, s.touched, res.delivered, res.originals,
	       res.shadowed);
	EXPECT_GE(s.touched, 500);
	EXPECT_LE(res.shadowed, s.nframes / 100);
	EXPECT_GE(res.expected, s.nframes - s.touched - res.shadowed);
	EXPECT_TRUE(rx_accounted(r));
	ts_free(&s);
	rx_free(r);
}

TEST(cm5_noise_10000)
{
	noise_run(_metadata, N_ROBOT_FRAMING_CM5, 61);
}

TEST(parol6_noise_10000)
{
	noise_run(_metadata, N_ROBOT_FRAMING_PAROL6, 61);
}

TEST(parol6_noise_10000_byte_by_byte)
{
	noise_run(_metadata, N_ROBOT_FRAMING_PAROL6, 1);
}

TEST_HARNESS_MAIN
