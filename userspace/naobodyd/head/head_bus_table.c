// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the head bus's one table and its decoders (see head_bus_table.h).
 * Every number below that is not the spec's or a datasheet's is marked
 * provisional here and in Documentation/naobodyd.rst, "The head bus".
 */
#include "head_bus_table.h"

const struct head_bus_table head_bus_table = {
	/*
	 * Provisional, all of it: no public source names the head's touch
	 * controller. A byte register with the front, middle and rear pads in
	 * bits 0, 1, 2 (set: touched), at 0x20. Read every 20 ms: a tap is
	 * about 100 ms, and the robot API's State goes out at 20 Hz.
	 */
	.touch_addr = 0x20,
	.touch_reg = 0x00,
	.touch_bit = { 0, 1, 2 },
	.touch_period_ms = 20,
	/*
	 * INA230 (TI datasheet SBOS601): shunt voltage register 0x01 at
	 * 2.5 uV per count, bus voltage register 0x02 at 1.25 mV per count
	 * (the spec's figure too). Its address, 0x40, is the datasheet's with
	 * A0 and A1 grounded (provisional). Only read, never written: the
	 * calibration register (and so its own current and power registers)
	 * would need the shunt, which is not known; the current is the shunt
	 * voltage over a provisional 10 mOhm, the power bus voltage times it.
	 */
	.ina230_addr = 0x40,
	.ina230_shunt_reg = 0x01,
	.ina230_bus_reg = 0x02,
	.ina230_shunt_v_per_count = 2.5e-6f,
	.ina230_bus_v_per_count = 1.25e-3f,
	.ina230_shunt_ohm = 0.01f,
	/*
	 * TMP100 (TI datasheet SBOS231): temperature register 0x00, 12 bits
	 * left justified, so 1/256 degC per count at any resolution. Address
	 * 0x48, ADD0 and ADD1 grounded (provisional).
	 */
	.tmp100_addr = 0x48,
	.tmp100_temp_reg = 0x00,
	.readings_period_ms = 300,
};

uint16_t head_bus_wire16(uint16_t smbus_word)
{
	/* SMBus takes a word's first byte as its low one; these parts send the high one first. */
	return (uint16_t)(smbus_word << 8 | smbus_word >> 8);
}

void head_touch_decode(const struct head_bus_table *t, uint8_t reg, float out[HEAD_TOUCHES])
{
	for (int i = 0; i < HEAD_TOUCHES; i++)
		out[i] = reg >> t->touch_bit[i] & 1 ? 1.0f : 0.0f;
}

bool head_ina230_bus_volts(const struct head_bus_table *t, uint16_t wire, float *volts)
{
	/* Bit 15 always reads 0 (the register's full scale is 40.96 V). */
	if (wire & 0x8000)
		return false;
	*volts = (float)wire * t->ina230_bus_v_per_count;
	return true;
}

void head_ina230_shunt_volts(const struct head_bus_table *t, uint16_t wire, float *volts)
{
	*volts = (float)(int16_t)wire * t->ina230_shunt_v_per_count;
}

bool head_tmp100_celsius(uint16_t wire, float *celsius)
{
	/* The low four bits always read 0, at every resolution. */
	if (wire & 0x000f)
		return false;
	*celsius = (float)(int16_t)wire / 256.0f;
	return true;
}
