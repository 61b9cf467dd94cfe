// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd's LoLA sensor map is always exactly 896 bytes, as real LoLA's
 * is, with nothing after it: whatever the ids (empty, short, exact,
 * over-long, unprintable) and whatever the values (NaN, infinities, the
 * largest floats, statuses out of range). Checked by walking the bytes
 * here, independently of msgpack-c's packer.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "lola/lola.h"

/* The map's length by walking it: 13 keys, arrays of floats, fixints, strings. */
static size_t walk(const uint8_t *p, char config[4][32])
{
	size_t i = 1;

	if (p[0] != 0x8d)
		return 0;
	for (int k = 0; k < 13; k++) {
		unsigned int n, count;

		if ((p[i] & 0xe0) != 0xa0)
			return 0;
		i += 1 + (p[i] & 0x1f);
		if ((p[i] & 0xf0) == 0x90) {
			count = p[i] & 0x0f;
			i++;
		} else if (p[i] == 0xdc) {
			count = (unsigned int)p[i + 1] << 8 | p[i + 2];
			i += 3;
		} else {
			return 0;
		}
		for (unsigned int e = 0; e < count; e++) {
			if (p[i] == 0xca) {
				i += 5;
			} else if (p[i] <= 0x03) {
				i++;
			} else if ((p[i] & 0xe0) == 0xa0) {
				n = p[i] & 0x1f;
				if (k == 0 && e < 4) {
					memcpy(config[e], p + i + 1, n);
					config[e][n] = '\0';
				}
				i += 1 + n;
			} else {
				return 0;
			}
		}
	}
	return i;
}

static void fill(struct nb_sensors *s, float v, int32_t status)
{
	float *f = (float *)s;

	for (size_t i = 0; i < sizeof(*s) / sizeof(float); i++)
		f[i] = v;
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		s->status[j] = status;
}

TEST(always_896_bytes)
{
	static const char *const ids[] = {
		"", "X", "P0000074A05S93M00061", "P0000074A05S93M00061-and-more",
		"\x01\x7f\xff tab\t", "12345678901234567890",
	};
	static const char *const versions[] = { "", "6", "6.0.0", "6.0.0.1234", "10.2.3" };
	static const float values[] = { 0.0f, -0.0f, NAN, INFINITY, -INFINITY, 3.4e38f,
					-1e-45f, 1e30f };
	static const int32_t statuses[] = { 0, 3, -1, 4, 127, 128, INT32_MAX, INT32_MIN };
	uint8_t out[LOLA_PACKET + 16];

	for (size_t a = 0; a < sizeof(ids) / sizeof(ids[0]); a++) {
		for (size_t b = 0; b < sizeof(versions) / sizeof(versions[0]); b++) {
			for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
				struct body_info info = { 0 };
				struct nb_sensors s;
				char config[4][32];

				snprintf(info.body_id, sizeof(info.body_id), "%s", ids[a]);
				snprintf(info.head_id, sizeof(info.head_id), "%s",
					 ids[(a + 1) % 6]);
				snprintf(info.body_version, sizeof(info.body_version), "%s",
					 versions[b]);
				snprintf(info.head_version, sizeof(info.head_version), "%s",
					 versions[(b + 2) % 5]);
				fill(&s, values[v], statuses[v]);
				memset(out, 0xee, sizeof(out));
				ASSERT_EQ(0, lola_pack(out, &info, &s));
				/* Exactly 896 bytes of map, and nothing written past it. */
				ASSERT_EQ((size_t)LOLA_PACKET, walk(out, config));
				ASSERT_EQ(0xee, out[LOLA_PACKET]);
				/* LoLA's lengths: 20-character ids, 5-character versions. */
				ASSERT_EQ(20U, strlen(config[0]));
				ASSERT_EQ(5U, strlen(config[1]));
				ASSERT_EQ(20U, strlen(config[2]));
				ASSERT_EQ(5U, strlen(config[3]));
			}
		}
	}
}

TEST(robot_config_strings)
{
	struct body_info info = { 0 };
	struct nb_sensors s = { 0 };
	uint8_t out[LOLA_PACKET];
	char config[4][32];

	/* The real body today: a body id, no head id, no head version. */
	snprintf(info.body_id, sizeof(info.body_id), "P0000073A07S94700012");
	snprintf(info.body_version, sizeof(info.body_version), "6.0.0");
	ASSERT_EQ(0, lola_pack(out, &info, &s));
	ASSERT_EQ((size_t)LOLA_PACKET, walk(out, config));
	EXPECT_STREQ("P0000073A07S94700012", config[0]);
	EXPECT_STREQ("6.0.0", config[1]);
	EXPECT_STREQ(LOLA_UNKNOWN_HEAD_ID, config[2]);
	EXPECT_STREQ(LOLA_UNKNOWN_VERSION, config[3]);
	/* A short id is padded, a long one cut, unprintable bytes replaced. */
	snprintf(info.head_id, sizeof(info.head_id), "X");
	snprintf(info.body_id, sizeof(info.body_id), "AB\x01");
	ASSERT_EQ(0, lola_pack(out, &info, &s));
	ASSERT_EQ((size_t)LOLA_PACKET, walk(out, config));
	EXPECT_STREQ("X-------------------", config[2]);
	EXPECT_STREQ("AB?-----------------", config[0]);
	EXPECT_EQ(20U, strlen(LOLA_UNKNOWN_BODY_ID));
	EXPECT_EQ(20U, strlen(LOLA_UNKNOWN_HEAD_ID));
	EXPECT_EQ(5U, strlen(LOLA_UNKNOWN_VERSION));
}

TEST_HARNESS_MAIN
