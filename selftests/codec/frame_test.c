// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frames: the CRC against zlib, the length table's reading, the limits
 * (255 messages, 4,096 bytes), truncation, and the builder.
 */
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "kselftest_harness.h"
#include "codec_test.h"

/*
 * The kernel's crc32_le(seed, p, len), bit by bit as lib/crc32.c defines it
 * (the reflected polynomial 0xedb88320, no inversion of its own): the model
 * of what nb_env.h's kernel branch calls.
 */
static uint32_t kernel_crc32_le(uint32_t crc, const uint8_t *p, size_t len)
{
	unsigned int i;

	while (len--) {
		crc ^= *p++;
		for (i = 0; i < 8; i++)
			crc = (crc >> 1) ^ ((crc & 1) ? 0xedb88320 : 0);
	}
	return crc;
}

/* nb_env.h's kernel branch, with the model in place of crc32_le() */
static uint32_t kernel_nb_crc32(uint32_t crc, const uint8_t *p, size_t len)
{
	return kernel_crc32_le(crc ^ ~0U, p, len) ^ ~0U;
}

TEST(crc_check_value)
{
	/* The CRC-32 check value: "123456789" gives 0xcbf43926. */
	EXPECT_EQ(0xcbf43926U, nb_crc32(0, "123456789", 9));
	EXPECT_EQ(0xcbf43926U, (uint32_t)crc32(0, (const Bytef *)"123456789", 9));
	EXPECT_EQ(0xcbf43926U, kernel_nb_crc32(0, (const uint8_t *)"123456789", 9));
	EXPECT_EQ(0U, nb_crc32(0, "", 0));
}

TEST(crc_zlib_equals_kernel_formula)
{
	/* zlib's crc32(0, buf, len) == crc32_le(~0, buf, len) ^ ~0 */
	static uint8_t buf[NB_FRAME_MAX];
	uint64_t st = 1;
	size_t len, i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = ct_rand(&st);
	for (len = 0; len <= sizeof(buf); len += len < 64 ? 1 : 61) {
		uint32_t z = crc32(0, buf, len);

		ASSERT_EQ(z, kernel_crc32_le(~0U, buf, len) ^ ~0U);
		ASSERT_EQ(z, nb_crc32(0, buf, len));
	}
}

TEST(crc_chains_like_zlib)
{
	static uint8_t buf[1000];
	uint64_t st = 7;
	uint32_t z, k, n;
	size_t i, cut;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = ct_rand(&st);
	for (cut = 0; cut <= sizeof(buf); cut += 37) {
		z = crc32(crc32(0, buf, cut), buf + cut, sizeof(buf) - cut);
		k = kernel_nb_crc32(kernel_nb_crc32(0, buf, cut), buf + cut,
				    sizeof(buf) - cut);
		n = nb_crc32(nb_crc32(0, buf, cut), buf + cut,
			     sizeof(buf) - cut);
		ASSERT_EQ(z, k);
		ASSERT_EQ(z, n);
		ASSERT_EQ(z, (uint32_t)crc32(0, buf, sizeof(buf)));
	}
}

/* Build a frame of the given message lengths (bytes 0x11, 0x22, ...). */
static int build(uint8_t *buf, size_t cap, unsigned int flags,
		 const unsigned int *lens, unsigned int n, uint32_t *crc)
{
	struct nb_frame_builder b;
	unsigned int i;
	uint8_t *m;

	nb_frame_begin(&b, buf, cap, flags);
	for (i = 0; i < n; i++) {
		m = nb_frame_add(&b, lens[i]);
		if (!m)
			break;
		memset(m, 0x11 * ((i % 15) + 1), lens[i]);
	}
	return nb_frame_end(&b, crc);
}

TEST(zero_messages)
{
	uint8_t buf[16];
	struct nb_frame f;
	uint32_t crc;
	int len;

	len = build(buf, sizeof(buf), NB_FRAME_IN, NULL, 0, &crc);
	ASSERT_EQ(4, len);
	/* zlib's CRC of nothing is 0 */
	EXPECT_EQ(0U, crc);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	EXPECT_EQ(0, f.count);
	EXPECT_EQ(0, f.msgs_len);
	len = build(buf, sizeof(buf), NB_FRAME_OUT, NULL, 0, &crc);
	ASSERT_EQ(4, len);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_OUT));
	EXPECT_EQ(0, f.count);
}

TEST(one_message)
{
	const uint8_t golden[] = {
		/* message: 02 02 42 00 64 00 c8 (sonar 100, 200) */
		0x02, 0x02, 0x42, 0x00, 0x64, 0x00, 0xc8,
		0x07,			/* the table */
		0, 0, 0, 0,		/* CRC, filled below with zlib */
	};
	uint8_t expect[sizeof(golden)], buf[64];
	struct nb_frame_builder b;
	struct nb_msg_iter it;
	struct nb_frame f;
	const uint8_t *m;
	uint32_t crc, z;
	size_t l;
	int len;

	memcpy(expect, golden, sizeof(golden));
	z = crc32(0, expect, 8);
	expect[8] = z >> 24;
	expect[9] = z >> 16;
	expect[10] = z >> 8;
	expect[11] = z;

	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	ASSERT_EQ(0, nb_frame_put(&b, golden, 7));
	len = nb_frame_end(&b, &crc);
	ASSERT_EQ((int)sizeof(expect), len);
	EXPECT_EQ(z, crc);
	ASSERT_EQ(0, memcmp(expect, buf, len));

	ASSERT_EQ(0, nb_frame_parse(&f, expect, sizeof(expect), NB_FRAME_IN));
	ASSERT_EQ(1, f.count);
	EXPECT_EQ(7, f.msgs_len);
	EXPECT_EQ(z, f.crc);
	nb_msg_iter_init(&it, &f);
	m = nb_msg_next(&it, &l);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(7U, l);
	EXPECT_EQ((const uint8_t *)expect, m);
	EXPECT_NULL(nb_msg_next(&it, &l));
	EXPECT_NULL(nb_msg_next(&it, &l));
}

TEST(out_frame_crc_first)
{
	const uint8_t msg[] = { 0x00, 0x02, 0x09 };
	uint8_t buf[64];
	struct nb_frame_builder b;
	struct nb_frame f;
	uint32_t crc;
	int len;

	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_OUT);
	ASSERT_EQ(0, nb_frame_put(&b, msg, 3));
	ASSERT_EQ(0, nb_frame_put(&b, msg, 3));
	len = nb_frame_end(&b, &crc);
	ASSERT_EQ(4 + 6 + 2, len);
	/* [CRC][00 02 09][00 02 09][03 03], CRC over everything after it */
	EXPECT_EQ(crc, (uint32_t)crc32(0, buf + 4, 8));
	EXPECT_EQ(crc >> 24, buf[0]);
	EXPECT_EQ(crc & 0xff, buf[3]);
	EXPECT_EQ(0, memcmp(buf + 4, msg, 3));
	EXPECT_EQ(3, buf[10]);
	EXPECT_EQ(3, buf[11]);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_OUT));
	EXPECT_EQ(2, f.count);
	EXPECT_EQ(buf + 4, f.msgs);
	/* the same bytes read as an IN frame fail their CRC */
	EXPECT_EQ(-EBADMSG, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
}

TEST(table_lists_last_message_first)
{
	static const unsigned int lens[] = { 3, 5, 4 };
	uint8_t buf[64];
	struct nb_msg_iter it;
	struct nb_frame f;
	unsigned int i;
	size_t l;
	int len;

	len = build(buf, sizeof(buf), NB_FRAME_IN, lens, 3, NULL);
	ASSERT_EQ(12 + 3 + 4, len);
	/* table bytes: 4 5 3, the first message's length next to the CRC */
	EXPECT_EQ(4, buf[12]);
	EXPECT_EQ(5, buf[13]);
	EXPECT_EQ(3, buf[14]);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	nb_msg_iter_init(&it, &f);
	for (i = 0; i < 3; i++) {
		const uint8_t *m = nb_msg_next(&it, &l);

		ASSERT_NE(NULL, m);
		EXPECT_EQ(lens[i], l);
		EXPECT_EQ(0x11 * (i + 1), m[0]);
	}
}

TEST(max_messages_255)
{
	static unsigned int lens[256];
	static uint8_t buf[NB_FRAME_MAX];
	struct nb_msg_iter it;
	struct nb_frame f;
	unsigned int i;
	size_t l;
	int len;

	for (i = 0; i < 256; i++)
		lens[i] = 3;
	len = build(buf, sizeof(buf), NB_FRAME_IN, lens, 255, NULL);
	ASSERT_EQ(255 * 3 + 255 + 4, len);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	ASSERT_EQ(255, f.count);
	nb_msg_iter_init(&it, &f);
	for (i = 0; i < 255; i++) {
		const uint8_t *m = nb_msg_next(&it, &l);

		ASSERT_NE(NULL, m);
		ASSERT_EQ(3U, l);
		ASSERT_EQ(buf + 3 * i, m);
	}
	EXPECT_NULL(nb_msg_next(&it, &l));
}

TEST(builder_refuses_256th_message)
{
	static uint8_t buf[NB_FRAME_MAX];
	struct nb_frame_builder b;
	unsigned int i;

	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	for (i = 0; i < 255; i++)
		ASSERT_NE(NULL, nb_frame_add(&b, 1));
	EXPECT_NULL(nb_frame_add(&b, 1));
	/* the error is latched */
	EXPECT_NULL(nb_frame_add(&b, 1));
	EXPECT_EQ(-ENOSPC, nb_frame_end(&b, NULL));
}

TEST(frame_of_256_messages_is_rejected)
{
	static unsigned int lens[256];
	static uint8_t buf[NB_FRAME_MAX];
	struct nb_frame f;
	unsigned int i;
	int len;

	for (i = 0; i < 256; i++)
		lens[i] = 3;
	len = build(buf, sizeof(buf), NB_FRAME_IN | NB_FRAME_UNBOUNDED,
		    lens, 256, NULL);
	ASSERT_EQ(256 * 4 + 4, len);
	/* a good CRC, a table that would add up with a 256th entry */
	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	/* with zero-length messages too: 256 entries of 0 */
	memset(lens, 0, sizeof(lens));
	len = build(buf, sizeof(buf), NB_FRAME_IN | NB_FRAME_UNBOUNDED,
		    lens, 256, NULL);
	ASSERT_EQ(256 + 4, len);
	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	len = build(buf, sizeof(buf), NB_FRAME_IN, lens, 255, NULL);
	ASSERT_EQ(255 + 4, len);
	EXPECT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	EXPECT_EQ(255, f.count);
}

TEST(zero_length_messages)
{
	static const unsigned int lens[] = { 0, 3, 0, 0, 4, 0 };
	struct naobody_sensors s;
	struct nb_msg_info info;
	struct nb_msg_iter it;
	uint8_t buf[64], before[sizeof(s)];
	struct nb_frame f;
	const uint8_t *m;
	unsigned int i;
	size_t l;
	int len;

	len = build(buf, sizeof(buf), NB_FRAME_IN, lens, 6, NULL);
	ASSERT_EQ(7 + 6 + 4, len);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	ASSERT_EQ(6, f.count);
	EXPECT_EQ(7, f.msgs_len);
	memset(&s, 0x5a, sizeof(s));
	memcpy(before, &s, sizeof(s));
	nb_msg_iter_init(&it, &f);
	for (i = 0; i < 6; i++) {
		m = nb_msg_next(&it, &l);
		ASSERT_NE(NULL, m);
		ASSERT_EQ(lens[i], l);
		if (!l)	/* too short for kind, bus and address */
			EXPECT_EQ(-EMSGSIZE, nb_in_msg_decode(m, l, &s, &info));
	}
	EXPECT_NULL(nb_msg_next(&it, &l));
	EXPECT_EQ(0, memcmp(before, &s, sizeof(s)));

	/* a frame of nothing but zero-length messages */
	len = build(buf, sizeof(buf), NB_FRAME_IN, (unsigned int[3]){ 0 }, 3,
		    NULL);
	ASSERT_EQ(3 + 4, len);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	EXPECT_EQ(3, f.count);
	EXPECT_EQ(0, f.msgs_len);
}

/* Seal an IN frame's body with a good CRC; returns the frame's length. */
static size_t seal_in(uint8_t *buf, size_t body)
{
	uint32_t c = crc32(0, buf, body);

	buf[body] = c >> 24;
	buf[body + 1] = c >> 16;
	buf[body + 2] = c >> 8;
	buf[body + 3] = c;
	return body + 4;
}

TEST(table_overrun)
{
	/* 3 bytes; the first entry claims 5: past the table's own start */
	uint8_t buf[16] = { 0x02, 0x02, 0x05 };
	struct nb_frame f;

	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf, seal_in(buf, 3),
					  NB_FRAME_IN));
	/* an entry of 255 in a short frame */
	buf[2] = 0xff;
	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf, seal_in(buf, 3),
					  NB_FRAME_IN));
	/* one byte too many: [a b c][3] would be right, [a b c][4] is not */
	memset(buf, 0, sizeof(buf));
	buf[3] = 4;
	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf, seal_in(buf, 4),
					  NB_FRAME_IN));
	buf[3] = 3;
	EXPECT_EQ(0, nb_frame_parse(&f, buf, seal_in(buf, 4), NB_FRAME_IN));
	EXPECT_EQ(1, f.count);
}

TEST(table_underrun)
{
	/* 255 entries that sum to less than the region: no 256th to read */
	static uint8_t buf[NB_FRAME_MAX];
	struct nb_frame f;
	size_t body = 600;

	memset(buf, 0, sizeof(buf));
	memset(buf + body - 255, 1, 255);	/* 255 messages of 1 byte */
	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf, seal_in(buf, body),
					  NB_FRAME_IN));
	/* the same entries in a region they fill exactly are fine */
	memset(buf, 0, sizeof(buf));
	memset(buf + 255, 1, 255);
	EXPECT_EQ(0, nb_frame_parse(&f, buf, seal_in(buf, 510), NB_FRAME_IN));
	EXPECT_EQ(255, f.count);
	/* all-zero tables run out at 255 entries in a region longer than 255 */
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf, seal_in(buf, 256),
					  NB_FRAME_IN));
}

TEST(table_never_adds_up)
{
	/*
	 * 10 bytes: entries 3 (1 + 3 < 10), then 7 (2 + 10 > 10): the sum
	 * jumps past the point where messages and table would meet.
	 */
	uint8_t buf[32] = { 0 };
	struct nb_frame f;

	buf[9] = 3;
	buf[8] = 7;
	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf, seal_in(buf, 10),
					  NB_FRAME_IN));
	/* 3 then 5: 3 + 5 + 2 = 10 meets */
	buf[8] = 5;
	EXPECT_EQ(0, nb_frame_parse(&f, buf, seal_in(buf, 10), NB_FRAME_IN));
	EXPECT_EQ(2, f.count);
	EXPECT_EQ(8, f.msgs_len);
	/* a single byte of any value but 0 never adds up */
	buf[0] = 1;
	EXPECT_EQ(-EPROTO, nb_frame_parse(&f, buf, seal_in(buf, 1),
					  NB_FRAME_IN));
}

TEST(frame_4096_accepted_4097_rejected)
{
	static uint8_t buf[NB_FRAME_MAX + 64];
	static unsigned int lens[64];
	struct nb_frame f;
	unsigned int i, n = 16;
	int len;

	/* 15 messages of 255, one of 4096 - 4 (CRC) - 16 (table) - 15 * 255 */
	for (i = 0; i < 15; i++)
		lens[i] = 255;
	lens[15] = NB_FRAME_MAX - 4 - n - 15 * 255;
	len = build(buf, sizeof(buf), NB_FRAME_IN, lens, n, NULL);
	ASSERT_EQ(NB_FRAME_MAX, len);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	EXPECT_EQ(16, f.count);
	len = build(buf, sizeof(buf), NB_FRAME_OUT, lens, n, NULL);
	ASSERT_EQ(NB_FRAME_MAX, len);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_OUT));

	/* one byte more: the builder refuses unless unbounded... */
	lens[15]++;
	EXPECT_EQ(-ENOSPC, build(buf, sizeof(buf), NB_FRAME_IN, lens, n, NULL));
	len = build(buf, sizeof(buf), NB_FRAME_IN | NB_FRAME_UNBOUNDED, lens,
		    n, NULL);
	ASSERT_EQ(NB_FRAME_MAX + 1, len);
	/* ...and the parser rejects it, good CRC and table notwithstanding */
	EXPECT_EQ(-EMSGSIZE, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	EXPECT_EQ(-EMSGSIZE, nb_frame_parse(&f, buf, len,
					    NB_FRAME_IN | NB_FRAME_NO_CRC));
}

TEST(truncated_crc)
{
	static const unsigned int lens[] = { 3, 4 };
	uint8_t buf[64];
	struct nb_frame f;
	int len, cut;

	for (cut = 0; cut < 4; cut++) {
		EXPECT_EQ(-EMSGSIZE, nb_frame_parse(&f, buf, cut, NB_FRAME_IN));
		EXPECT_EQ(-EMSGSIZE, nb_frame_parse(&f, buf, cut, NB_FRAME_OUT));
	}
	len = build(buf, sizeof(buf), NB_FRAME_IN, lens, 2, NULL);
	ASSERT_EQ(13, len);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	/* losing 1 to 3 bytes of the CRC: the CRC no longer matches */
	for (cut = 1; cut < 4; cut++)
		EXPECT_EQ(-EBADMSG, nb_frame_parse(&f, buf, len - cut,
						   NB_FRAME_IN));
	/* an OUT frame cut short keeps its CRC but loses body bytes */
	len = build(buf, sizeof(buf), NB_FRAME_OUT, lens, 2, NULL);
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_OUT));
	for (cut = 1; cut < len - 4; cut++)
		EXPECT_EQ(-EBADMSG, nb_frame_parse(&f, buf, len - cut,
						   NB_FRAME_OUT));
}

TEST(every_bit_flip_fails_the_crc)
{
	static const unsigned int lens[] = { 5, 3, 9 };
	uint8_t buf[64];
	struct nb_frame f;
	int len, i, bit;

	len = build(buf, sizeof(buf), NB_FRAME_IN, lens, 3, NULL);
	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			buf[i] ^= 1 << bit;
			ASSERT_EQ(-EBADMSG, nb_frame_parse(&f, buf, len,
							   NB_FRAME_IN));
			buf[i] ^= 1 << bit;
		}
	}
	ASSERT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
}

TEST(no_crc_flag)
{
	static const unsigned int lens[] = { 3 };
	uint8_t buf[16];
	struct nb_frame f;
	int len;

	len = build(buf, sizeof(buf), NB_FRAME_IN, lens, 1, NULL);
	buf[len - 1] ^= 0xff;
	EXPECT_EQ(-EBADMSG, nb_frame_parse(&f, buf, len, NB_FRAME_IN));
	EXPECT_EQ(0, nb_frame_parse(&f, buf, len, NB_FRAME_IN | NB_FRAME_NO_CRC));
	EXPECT_EQ(1, f.count);
}

TEST(random_frames_keep_messages_inside)
{
	static uint8_t buf[NB_FRAME_MAX];
	static unsigned int lens[255];
	uint64_t st = 42;
	unsigned int round, n, i, sum;

	for (round = 0; round < 2000; round++) {
		struct nb_msg_iter it;
		struct nb_frame f;
		const uint8_t *m;
		size_t l;
		int len;

		n = ct_rand(&st) % 256;
		for (i = 0; i < n; i++)
			lens[i] = ct_rand(&st) % (round & 1 ? 16 : 256);
		len = build(buf, sizeof(buf), round & 2 ? NB_FRAME_OUT :
			    NB_FRAME_IN, lens, n, NULL);
		if (len < 0) {
			ASSERT_EQ(-ENOSPC, len);
			continue;
		}
		ASSERT_EQ(0, nb_frame_parse(&f, buf, len, round & 2 ?
					    NB_FRAME_OUT : NB_FRAME_IN));
		ASSERT_EQ(n, f.count);
		nb_msg_iter_init(&it, &f);
		sum = 0;
		for (i = 0; i < n; i++) {
			m = nb_msg_next(&it, &l);
			ASSERT_NE(NULL, m);
			ASSERT_EQ(lens[i], l);
			ASSERT_EQ(f.msgs + sum, m);
			sum += l;
			ASSERT_LE(sum, f.msgs_len);
		}
		ASSERT_EQ(sum, f.msgs_len);
		ASSERT_NULL(nb_msg_next(&it, &l));
	}
}

TEST(builder_limits)
{
	uint8_t buf[32];
	struct nb_frame_builder b;

	/* a message longer than a table entry can say */
	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	EXPECT_NULL(nb_frame_add(&b, 256));
	EXPECT_EQ(-EMSGSIZE, nb_frame_end(&b, NULL));
	/* exactly full: 32 = 27 + 1 + 4 */
	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	ASSERT_NE(NULL, nb_frame_add(&b, 27));
	EXPECT_EQ(32, nb_frame_end(&b, NULL));
	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_OUT);
	ASSERT_NE(NULL, nb_frame_add(&b, 27));
	EXPECT_EQ(32, nb_frame_end(&b, NULL));
	/* one more byte does not fit */
	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	EXPECT_NULL(nb_frame_add(&b, 28));
	EXPECT_EQ(-ENOSPC, nb_frame_end(&b, NULL));
	/* too small for a CRC */
	nb_frame_begin(&b, buf, 3, NB_FRAME_IN);
	EXPECT_NULL(nb_frame_add(&b, 0));
	EXPECT_EQ(-ENOSPC, nb_frame_end(&b, NULL));
	/* a finished builder takes nothing more */
	nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_IN);
	EXPECT_EQ(4, nb_frame_end(&b, NULL));
	EXPECT_NULL(nb_frame_add(&b, 1));
}

TEST(acknowledge)
{
	uint8_t ack[NB_ACK_LEN];

	nb_ack_encode(ack, 0x12345678);
	EXPECT_EQ(0x2a, ack[0]);
	EXPECT_EQ(0x12, ack[1]);
	EXPECT_EQ(0x78, ack[4]);
	EXPECT_EQ(0, nb_ack_check(ack, sizeof(ack), 0x12345678));
	EXPECT_EQ(-EBADMSG, nb_ack_check(ack, sizeof(ack), 0x12345679));
	EXPECT_EQ(-EMSGSIZE, nb_ack_check(ack, 4, 0x12345678));
	EXPECT_EQ(-EMSGSIZE, nb_ack_check(ack, 0, 0x12345678));
	ack[0] = 0x2b;
	EXPECT_EQ(-EPROTO, nb_ack_check(ack, sizeof(ack), 0x12345678));
}

TEST_HARNESS_MAIN
