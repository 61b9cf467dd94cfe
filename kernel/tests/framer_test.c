// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: n_robot's framers as the kernel builds them, fed byte by byte.
 *
 * The line discipline hands the framers whatever the tty delivers, one byte
 * at a time from a slow UART or a whole buffer from a pty. A frame split at
 * any byte must come out the same as a frame delivered whole: these cases
 * feed the same streams both ways (and in uneven chunks) and compare what
 * comes out, frames and counters alike.
 */
#include <kunit/test.h>
#include <linux/slab.h>

/* The units under test, compiled in (see Kbuild). */
#include "../n_robot/framer.c"
#include "../n_robot/cm5.c"
#include "../n_robot/parol6.c"

#define MAX_OUT_FRAMES	16

/* What a framer emitted: the frames, concatenated, and their lengths. */
struct sink {
	u32 frames;
	u32 len[MAX_OUT_FRAMES];
	u8 bytes[MAX_OUT_FRAMES * N_ROBOT_PAROL6_TELEMETRY_FRAME];
	u32 used;
};

static void sink_emit(void *ctx, const u8 *frame, size_t len)
{
	struct sink *s = ctx;

	if (s->frames >= MAX_OUT_FRAMES || s->used + len > sizeof(s->bytes))
		return;
	s->len[s->frames++] = len;
	memcpy(s->bytes + s->used, frame, len);
	s->used += len;
}

struct run {
	struct nrf f;
	struct sink out;
};

/* Feed stream in chunks of chunk bytes (0: all at once). */
static struct run *feed(struct kunit *test, const struct nrf_proto *proto,
			u32 cm5_data_len, const u8 *stream, size_t len, size_t chunk)
{
	struct run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	size_t off, n;

	KUNIT_ASSERT_NOT_NULL(test, r);
	nrf_init(&r->f, proto, sink_emit, &r->out);
	r->f.cm5.data_len = cm5_data_len;
	for (off = 0; off < len; off += n) {
		n = chunk ? min(chunk, len - off) : len;
		nrf_feed(&r->f, stream + off, NULL, n);
	}
	return r;
}

/* The same frames and the same counters, whatever the chunking. */
static void expect_same(struct kunit *test, const struct run *a, const struct run *b)
{
	KUNIT_EXPECT_EQ(test, a->out.frames, b->out.frames);
	KUNIT_EXPECT_EQ(test, a->out.used, b->out.used);
	KUNIT_EXPECT_EQ(test, memcmp(a->out.len, b->out.len, sizeof(a->out.len)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a->out.bytes, b->out.bytes, a->out.used), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&a->f.cnt, &b->f.cnt, sizeof(a->f.cnt)), 0);
}

/* A PAROL6 telemetry frame whose payload is seed, seed + 1, ... */
static size_t parol6_frame(u8 *p, u8 seed)
{
	const size_t len = N_ROBOT_PAROL6_TELEMETRY_FRAME;
	size_t i;

	p[0] = 0xFF;
	p[1] = 0xFF;
	p[2] = 0xFF;
	p[3] = N_ROBOT_PAROL6_TELEMETRY_LEN;
	for (i = 4; i < len - 2; i++)
		p[i] = seed + i;
	p[len - 2] = 0x01;
	p[len - 1] = 0x02;
	return len;
}

/* A CM-5 reply: instruction, data_len + 5 bytes, checksum. */
static size_t cm5_reply(u8 *p, u8 instruction, u32 data_len, u8 seed)
{
	size_t len = N_ROBOT_CM5_STATUS_LEN + data_len, i;

	p[0] = instruction;
	for (i = 1; i < len - 1; i++)
		p[i] = seed + 3 * i;
	p[len - 1] = cm5_checksum(p, len - 1);
	return len;
}

static void parol6_one_frame_byte_by_byte(struct kunit *test)
{
	u8 frame[N_ROBOT_PAROL6_TELEMETRY_FRAME];
	size_t len = parol6_frame(frame, 7);
	struct run *r = feed(test, &parol6_proto, 0, frame, len, 1);

	KUNIT_ASSERT_EQ(test, r->out.frames, 1U);
	KUNIT_EXPECT_EQ(test, r->out.len[0], (u32)len);
	KUNIT_EXPECT_EQ(test, memcmp(r->out.bytes, frame, len), 0);
	KUNIT_EXPECT_EQ(test, r->f.cnt.frames, 1ULL);
	KUNIT_EXPECT_EQ(test, r->f.cnt.dropped_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, nrf_pending(&r->f), 0U);
}

/*
 * Garbage with false starts (FF, FF FF FF with a bad length, a frame cut
 * short), then FF FF FF inside a payload: the real frames all come out,
 * and only the garbage is dropped, however the bytes arrive.
 */
static void parol6_false_starts(struct kunit *test)
{
	static const u8 junk[] = { 0x00, 0xFF, 0x12, 0xFF, 0xFF, 0x34,
				   0xFF, 0xFF, 0xFF, 0x05, 0x99 };
	u8 stream[sizeof(junk) + 3 * N_ROBOT_PAROL6_TELEMETRY_FRAME + 8];
	size_t len = 0, first;
	struct run *whole, *bytes, *chunks;

	memcpy(stream, junk, sizeof(junk));
	len += sizeof(junk);
	first = len;
	len += parol6_frame(stream + len, 1);
	/* A payload holding FF FF FF 38: a false start inside a frame. */
	len += parol6_frame(stream + len, 2);
	memset(stream + len - 12, 0xFF, 3);
	stream[len - 9] = N_ROBOT_PAROL6_TELEMETRY_LEN;
	len += parol6_frame(stream + len, 3);
	/* A frame cut short by the end of the stream stays pending. */
	memcpy(stream + len, stream + first, 8);
	len += 8;

	whole = feed(test, &parol6_proto, 0, stream, len, 0);
	bytes = feed(test, &parol6_proto, 0, stream, len, 1);
	chunks = feed(test, &parol6_proto, 0, stream, len, 7);
	KUNIT_EXPECT_EQ(test, bytes->out.frames, 3U);
	KUNIT_EXPECT_EQ(test, memcmp(bytes->out.bytes, stream + first,
				     3 * N_ROBOT_PAROL6_TELEMETRY_FRAME), 0);
	KUNIT_EXPECT_EQ(test, nrf_pending(&bytes->f), 8U);
	expect_same(test, whole, bytes);
	expect_same(test, chunks, bytes);
}

static void cm5_status_and_data_byte_by_byte(struct kunit *test)
{
	const u32 data_len = 12;
	u8 stream[64];
	size_t len = 0, status_len, data_off;
	struct run *whole, *bytes;

	status_len = cm5_reply(stream, N_ROBOT_CM5_STATUS, 0, 5);
	len += status_len;
	data_off = len;
	len += cm5_reply(stream + len, N_ROBOT_CM5_DATA, data_len, 9);

	bytes = feed(test, &cm5_proto, data_len, stream, len, 1);
	whole = feed(test, &cm5_proto, data_len, stream, len, 0);
	KUNIT_ASSERT_EQ(test, bytes->out.frames, 2U);
	KUNIT_EXPECT_EQ(test, bytes->out.len[0], (u32)status_len);
	KUNIT_EXPECT_EQ(test, bytes->out.len[1], (u32)(len - data_off));
	KUNIT_EXPECT_EQ(test, memcmp(bytes->out.bytes, stream, len), 0);
	KUNIT_EXPECT_EQ(test, bytes->f.cnt.checksum_errors, 0ULL);
	expect_same(test, whole, bytes);
}

/*
 * A reply with a bad checksum is dropped, and the search resumes one byte
 * later: the good reply right behind it still comes out.
 */
static void cm5_bad_checksum_then_good(struct kunit *test)
{
	u8 stream[32];
	size_t len = 0, good_off;
	struct run *whole, *bytes;

	len += cm5_reply(stream, N_ROBOT_CM5_STATUS, 0, 1);
	stream[len - 1] ^= 0x40;
	good_off = len;
	len += cm5_reply(stream + len, N_ROBOT_CM5_STATUS, 0, 2);

	bytes = feed(test, &cm5_proto, 0, stream, len, 1);
	whole = feed(test, &cm5_proto, 0, stream, len, 0);
	KUNIT_ASSERT_EQ(test, bytes->out.frames, 1U);
	KUNIT_EXPECT_EQ(test, memcmp(bytes->out.bytes, stream + good_off,
				     N_ROBOT_CM5_STATUS_LEN), 0);
	KUNIT_EXPECT_GE(test, bytes->f.cnt.checksum_errors, 1ULL);
	expect_same(test, whole, bytes);
}

/* A flagged byte (a tty error) ends the candidate it falls in. */
static void tty_error_breaks_a_frame(struct kunit *test)
{
	u8 stream[2 * N_ROBOT_PAROL6_TELEMETRY_FRAME];
	u8 flags[sizeof(stream)] = { };
	size_t len = 0, i;
	struct run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	len += parol6_frame(stream, 1);
	len += parol6_frame(stream + len, 2);
	flags[20] = 1;	/* TTY_FRAME, say */
	nrf_init(&r->f, &parol6_proto, sink_emit, &r->out);
	for (i = 0; i < len; i++)
		nrf_feed(&r->f, stream + i, flags + i, 1);
	KUNIT_ASSERT_EQ(test, r->out.frames, 1U);
	KUNIT_EXPECT_EQ(test, memcmp(r->out.bytes, stream + N_ROBOT_PAROL6_TELEMETRY_FRAME,
				     N_ROBOT_PAROL6_TELEMETRY_FRAME), 0);
	KUNIT_EXPECT_EQ(test, r->f.cnt.tty_errors, 1ULL);
}

static struct kunit_case framer_cases[] = {
	KUNIT_CASE(parol6_one_frame_byte_by_byte),
	KUNIT_CASE(parol6_false_starts),
	KUNIT_CASE(cm5_status_and_data_byte_by_byte),
	KUNIT_CASE(cm5_bad_checksum_then_good),
	KUNIT_CASE(tty_error_breaks_a_frame),
	{}
};

static struct kunit_suite framer_suite = {
	.name = "n_robot-framer",
	.test_cases = framer_cases,
};

kunit_test_suite(framer_suite);

MODULE_DESCRIPTION("KUnit: n_robot's framers, fed byte by byte");
MODULE_LICENSE("GPL");
