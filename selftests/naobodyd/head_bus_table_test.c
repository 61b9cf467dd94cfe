// SPDX-License-Identifier: GPL-2.0-only
/*
 * The head bus's decoding table (userspace/naobodyd/head/head_bus_table.h) and
 * the head id's file (head_id_read()). The expected values come from the
 * datasheets' own examples and the spec's units, worked out here by hand,
 * not from the table: INA230 (TI SBOS601) bus voltage 1.25 mV per count
 * (also the spec's figure), shunt voltage 2.5 uV per count, both big
 * endian on the wire; TMP100 (TI SBOS231) temperature left justified,
 * 0.0625 degC per 12-bit count, its table's examples.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "head/head_bus.h"
#include "head/head_bus_table.h"

static const struct head_bus_table *t = &head_bus_table;

/* The bytes a part sends, MSB first, as an SMBus word read delivers them (LSB first). */
static uint16_t smbus(uint8_t first, uint8_t second)
{
	return (uint16_t)(second << 8 | first);
}

TEST(wire_order)
{
	EXPECT_EQ(0x4d80, head_bus_wire16(smbus(0x4d, 0x80)));
	EXPECT_EQ(0x0001, head_bus_wire16(smbus(0x00, 0x01)));
}

TEST(ina230_bus_voltage)
{
	float v = -1.0f;

	/* 24.8 V, the spec's reading on a robot: 24.8 / 0.00125 = 19840 = 0x4d80. */
	ASSERT_TRUE(head_ina230_bus_volts(t, head_bus_wire16(smbus(0x4d, 0x80)), &v));
	EXPECT_LT(fabsf(v - 24.8f), 1e-4f);
	ASSERT_TRUE(head_ina230_bus_volts(t, 0x0001, &v));
	EXPECT_LT(fabsf(v - 0.00125f), 1e-7f);
	/* Full scale, 0x7fff: 40.95875 V. */
	ASSERT_TRUE(head_ina230_bus_volts(t, 0x7fff, &v));
	EXPECT_LT(fabsf(v - 40.95875f), 1e-3f);
	/* Bit 15 always reads 0: such an answer is not the part's, and v is untouched. */
	v = 7.0f;
	EXPECT_FALSE(head_ina230_bus_volts(t, 0x8000, &v));
	EXPECT_FALSE(head_ina230_bus_volts(t, 0xffff, &v));
	EXPECT_EQ(7.0f, v);
}

TEST(ina230_shunt_voltage)
{
	float v;

	/* 4.3 mV: 1720 counts = 0x06b8; -4.3 mV: 0xf948 (two's complement). */
	head_ina230_shunt_volts(t, 0x06b8, &v);
	EXPECT_LT(fabsf(v - 0.0043f), 1e-7f);
	head_ina230_shunt_volts(t, 0xf948, &v);
	EXPECT_LT(fabsf(v + 0.0043f), 1e-7f);
	/* The datasheet's full scale: 0x7fff is 81.9175 mV, 0x8000 -81.92 mV. */
	head_ina230_shunt_volts(t, 0x8000, &v);
	EXPECT_LT(fabsf(v + 0.08192f), 1e-6f);
}

TEST(tmp100_datasheet_examples)
{
	static const struct { uint16_t wire; float c; } ex[] = {
		{ 0x7ff0, 127.9375f }, { 0x6400, 100.0f }, { 0x5000, 80.0f },
		{ 0x4b00, 75.0f }, { 0x3200, 50.0f }, { 0x1900, 25.0f },
		{ 0x0040, 0.25f }, { 0x0000, 0.0f }, { 0xffc0, -0.25f },
		{ 0xe700, -25.0f }, { 0xc900, -55.0f }, { 0x2d00, 45.0f },
	};

	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		float c = -1000.0f;

		ASSERT_TRUE(head_tmp100_celsius(ex[i].wire, &c));
		EXPECT_EQ(ex[i].c, c) TH_LOG("0x%04x", ex[i].wire);
	}
}

TEST(tmp100_low_bits_are_zero)
{
	float c = 3.0f;

	EXPECT_FALSE(head_tmp100_celsius(0x1901, &c));
	EXPECT_FALSE(head_tmp100_celsius(0x190f, &c));
	EXPECT_EQ(3.0f, c);
}

TEST(touch_pads)
{
	float p[HEAD_TOUCHES];

	/* Bits 0, 1, 2: front, middle, rear (provisional); other bits ignored. */
	head_touch_decode(t, 0x05, p);
	EXPECT_EQ(1.0f, p[0]);
	EXPECT_EQ(0.0f, p[1]);
	EXPECT_EQ(1.0f, p[2]);
	head_touch_decode(t, 0xf8, p);
	EXPECT_EQ(0.0f, p[0] + p[1] + p[2]);
	head_touch_decode(t, 0x02, p);
	EXPECT_EQ(1.0f, p[1]);
}

TEST(table_periods)
{
	/* The spec: the TMP100 about every 300 ms; the reader ticks at the pads' period. */
	EXPECT_EQ(300, t->readings_period_ms);
	EXPECT_EQ(0, t->readings_period_ms % t->touch_period_ms);
}

static int id_from(const char *text, char out[BODY_ID_LEN + 1])
{
	char path[] = "/tmp/head_id_test.XXXXXX";
	int fd = mkstemp(path), err;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -EIO;
	close(fd);
	err = head_id_read(path, out);
	unlink(path);
	return err;
}

TEST(head_id_file)
{
	char id[BODY_ID_LEN + 1];

	ASSERT_EQ(0, id_from("P0000074A05S93M00061\n", id));
	EXPECT_STREQ("P0000074A05S93M00061", id);
	/* In XML: the first token of exactly 20 letters and digits, not a longer name. */
	ASSERT_EQ(0, id_from("<?xml version=\"1.0\"?><DeviceHeadInternalGeode>"
			     "<Key name=\"FullHeadId\" value=\"P0000074A05S93M00061\"/>", id));
	EXPECT_STREQ("P0000074A05S93M00061", id);
	EXPECT_EQ(-ENODATA, id_from("P0000074A05S93M0006\n", id));	/* 19 */
	EXPECT_EQ(-ENODATA, id_from("P0000074A05S93M000612\n", id));	/* 21 */
	EXPECT_EQ(-ENODATA, id_from("", id));
	EXPECT_EQ(-ENOENT, head_id_read("/nonexistent/head_id", id));
}

TEST_HARNESS_MAIN
