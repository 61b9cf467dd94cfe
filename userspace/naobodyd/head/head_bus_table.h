/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the head bus's devices, their addresses and registers, and how
 * their values decode: the one table (head_bus_table.c), kept apart from
 * the reader (head_bus.c) so the host's unit tests check it alone.
 *
 * What the spec gives (nao-rs's "Body sensors and units"): touch
 * indices 1..3 are the head's front, middle and rear pads; the INA230's
 * bus voltage is 1.25 mV per count; the TMP100 is read about every 300 ms.
 * The datasheets give the INA230's and the TMP100's registers and their
 * encodings (big endian on the wire, two's complement). Everything else --
 * the 7-bit addresses, the touch pads' device and its register, the
 * shunt resistor -- is *provisional* (Documentation/naobodyd.rst, "The
 * head bus"): no public source says what the NAO's head has there.
 */
#ifndef NAOBODYD_HEAD_BUS_TABLE_H
#define NAOBODYD_HEAD_BUS_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#define HEAD_TOUCHES	3	/* front, middle, rear: LoLA's touch 1, 2, 3 */

struct head_bus_table {
	/* The touch pads: one byte register, a bit per pad (provisional). */
	uint8_t touch_addr;
	uint8_t touch_reg;
	uint8_t touch_bit[HEAD_TOUCHES];
	uint32_t touch_period_ms;
	/* INA230: registers per its datasheet; the address and shunt provisional. */
	uint8_t ina230_addr;
	uint8_t ina230_shunt_reg;	/* 0x01: 2.5 uV per count, signed */
	uint8_t ina230_bus_reg;		/* 0x02: 1.25 mV per count (the spec), bit 15 zero */
	float ina230_shunt_v_per_count;
	float ina230_bus_v_per_count;
	float ina230_shunt_ohm;		/* current = shunt voltage / this (provisional) */
	/* TMP100: register 0x00, 1/256 degC per count (left justified), low 4 bits zero. */
	uint8_t tmp100_addr;
	uint8_t tmp100_temp_reg;
	uint32_t readings_period_ms;	/* INA230 and TMP100: "about every 300 ms" */
};

extern const struct head_bus_table head_bus_table;

/*
 * The decoders take a register's 16 bits as the device sends them, most
 * significant byte first (an SMBus word read delivers them swapped:
 * head_bus_wire16()). Each returns false for a value the device cannot
 * send (a reserved bit set), which the reader counts and drops.
 */
uint16_t head_bus_wire16(uint16_t smbus_word);
/* The pads' register: out[i] 0 or 1 for front, middle, rear. Other bits ignored. */
void head_touch_decode(const struct head_bus_table *t, uint8_t reg, float out[HEAD_TOUCHES]);
bool head_ina230_bus_volts(const struct head_bus_table *t, uint16_t wire, float *volts);
void head_ina230_shunt_volts(const struct head_bus_table *t, uint16_t wire, float *volts);
bool head_tmp100_celsius(uint16_t wire, float *celsius);

#endif
