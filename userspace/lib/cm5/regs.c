// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AX-12 and AX-S1 register tables (BRBrain's AX12Register and
 * AXS1Register), with units, ranges and read-only flags, and the unit
 * conversions.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cm5/cm5.h>

#define LIN(n, a, s, f, lo, hi, sc, u) \
	{ n, a, s, f, CM5_CONV_LINEAR, lo, hi, sc, u }
#define RO_(n, a, s, sc, u)	LIN(n, a, s, CM5_REG_RO, 0, 0, sc, u)

static const struct cm5_reg ax12[] = {
	RO_("model_number", 0, 2, 1, ""),
	RO_("firmware_version", 2, 1, 1, ""),
	LIN("id", 3, 1, 0, 0, 253, 1, ""),
	{ "baud_rate", 4, 1, 0, CM5_CONV_BAUD, 0, 254, 1, "kbps" },
	LIN("return_delay_time", 5, 1, 0, 0, 254, 2.0, "us"),
	LIN("cw_angle_limit", 6, 2, 0, 0, 1023, 300.0 / 1023, "deg"),
	LIN("ccw_angle_limit", 8, 2, 0, 0, 1023, 300.0 / 1023, "deg"),
	LIN("highest_limit_temperature", 11, 1, 0, 0, 150, 1, "C"),
	LIN("lowest_limit_voltage", 12, 1, 0, 50, 250, 0.1, "V"),
	LIN("highest_limit_voltage", 13, 1, 0, 50, 250, 0.1, "V"),
	LIN("max_torque", 14, 2, 0, 0, 1023, 1.0 / 1023, ""),
	LIN("status_return_level", 16, 1, 0, 0, 2, 1, ""),
	LIN("alarm_led", 17, 1, 0, 0, 127, 1, ""),
	LIN("alarm_shutdown", 18, 1, 0, 0, 127, 1, ""),
	RO_("down_calibration", 20, 2, 1, ""),
	RO_("up_calibration", 22, 2, 1, ""),
	LIN("torque_enable", 24, 1, 0, 0, 1, 1, ""),
	LIN("led", 25, 1, 0, 0, 1, 1, ""),
	LIN("cw_compliance_margin", 26, 1, 0, 0, 254, 1.0 / 254, ""),
	LIN("ccw_compliance_margin", 27, 1, 0, 0, 254, 1.0 / 254, ""),
	{ "cw_compliance_slope", 28, 1, 0, CM5_CONV_SLOPE, 1, 254, 1, "" },
	{ "ccw_compliance_slope", 29, 1, 0, CM5_CONV_SLOPE, 1, 254, 1, "" },
	LIN("goal_position", 30, 2, 0, 0, 1023, 300.0 / 1023, "deg"),
	LIN("moving_speed", 32, 2, CM5_REG_SM11, -1023, 1023, 114.0 / 1023,
	    "rpm"),
	LIN("torque_limit", 34, 2, 0, 0, 1023, 1.0 / 1023, ""),
	RO_("present_position", 36, 2, 300.0 / 1023, "deg"),
	LIN("present_speed", 38, 2, CM5_REG_RO | CM5_REG_SM11, 0, 0,
	    114.0 / 1023, "rpm"),
	LIN("present_load", 40, 2, CM5_REG_RO | CM5_REG_SM11, 0, 0,
	    1.0 / 1023, ""),
	RO_("present_voltage", 42, 1, 0.1, "V"),
	RO_("present_temperature", 43, 1, 1, "C"),
	LIN("registered_instruction", 44, 1, 0, 0, 1, 1, ""),
	RO_("moving", 46, 1, 1, ""),
	LIN("lock", 47, 1, 0, 0, 1, 1, ""),
	LIN("punch", 48, 2, 0, 0, 1023, 1.0 / 1023, ""),
	RO_("error", 54, 1, 1, ""),
};

static const struct cm5_reg axs1[] = {
	RO_("model_number", 0, 2, 1, ""),
	RO_("firmware_version", 2, 1, 1, ""),
	LIN("id", 3, 1, 0, 0, 253, 1, ""),
	{ "baud_rate", 4, 1, 0, CM5_CONV_BAUD, 0, 254, 1, "kbps" },
	LIN("return_delay_time", 5, 1, 0, 0, 254, 2.0, "us"),
	LIN("highest_limit_temperature", 11, 1, 0, 0, 150, 1, "C"),
	LIN("lowest_limit_voltage", 12, 1, 0, 50, 250, 0.1, "V"),
	LIN("highest_limit_voltage", 13, 1, 0, 50, 250, 0.1, "V"),
	LIN("status_return_level", 16, 1, 0, 0, 2, 1, ""),
	LIN("obstacle_detected_compare_value", 20, 1, 0, 0, 255, 1, ""),
	LIN("light_detected_compare_value", 21, 1, 0, 0, 255, 1, ""),
	RO_("left_ir_sensor_data", 26, 1, 1, ""),
	RO_("center_ir_sensor_data", 27, 1, 1, ""),
	RO_("right_ir_sensor_data", 28, 1, 1, ""),
	RO_("left_luminosity", 29, 1, 1, ""),
	RO_("center_luminosity", 30, 1, 1, ""),
	RO_("right_luminosity", 31, 1, 1, ""),
	RO_("obstacle_detection_flag", 32, 1, 1, ""),
	RO_("luminosity_detection_flag", 33, 1, 1, ""),
	LIN("sound_data", 35, 1, 0, 0, 255, 1, ""),
	LIN("sound_data_max_hold", 36, 1, 0, 0, 255, 1, ""),
	LIN("sound_detected_count", 37, 1, 0, 0, 255, 1, ""),
	LIN("sound_detected_time", 38, 2, 0, 0, 65535, 4.096 / 65536, "ms"),
	LIN("buzzer_index", 40, 1, 0, 0, 51, 1, ""),
	LIN("buzzer_time", 41, 1, 0, 0, 255, 0.1, "s"),
	RO_("present_voltage", 42, 1, 0.1, "V"),
	RO_("present_temperature", 43, 1, 1, "C"),
	LIN("registered_instruction", 44, 1, 0, 0, 1, 1, ""),
	RO_("ir_remocon_arrived", 46, 1, 1, ""),
	LIN("lock", 47, 1, 0, 0, 1, 1, ""),
	RO_("ir_remocon_rx_data", 48, 2, 1, ""),
	LIN("ir_remocon_tx_data", 50, 2, 0, 0, 65535, 1, ""),
	LIN("obstacle_detected_compare", 52, 1, 0, 0, 255, 1, ""),
	LIN("light_detected_compare", 53, 1, 0, 0, 255, 1, ""),
	RO_("error", 54, 1, 1, ""),
};

const struct cm5_reg *cm5_regs(int model, size_t *count)
{
	if (model == N_ROBOT_CM5_MODEL_AXS1) {
		*count = sizeof(axs1) / sizeof(axs1[0]);
		return axs1;
	}
	*count = sizeof(ax12) / sizeof(ax12[0]);
	return ax12;
}

const struct cm5_reg *cm5_reg_find(int model, const char *name)
{
	const struct cm5_reg *r;
	size_t n, i;

	r = cm5_regs(model, &n);
	for (i = 0; i < n; i++)
		if (!strcasecmp(r[i].name, name))
			return &r[i];
	return NULL;
}

const struct cm5_reg *cm5_reg_at(int model, unsigned int addr)
{
	const struct cm5_reg *r;
	size_t n, i;

	r = cm5_regs(model, &n);
	for (i = 0; i < n; i++)
		if (r[i].addr == addr)
			return &r[i];
	return NULL;
}

const char *cm5_model_name(int model)
{
	switch (model) {
	case N_ROBOT_CM5_MODEL_AX12: return "ax12";
	case N_ROBOT_CM5_MODEL_AXS1: return "axs1";
	default: return "other";
	}
}

int cm5_model_parse(const char *s)
{
	if (!strcasecmp(s, "ax12") || !strcasecmp(s, "ax-12"))
		return N_ROBOT_CM5_MODEL_AX12;
	if (!strcasecmp(s, "axs1") || !strcasecmp(s, "ax-s1"))
		return N_ROBOT_CM5_MODEL_AXS1;
	if (!strcasecmp(s, "other"))
		return N_ROBOT_CM5_MODEL_OTHER;
	return -1;
}

int32_t cm5_reg_decode(const struct cm5_reg *r, const uint8_t *p)
{
	int32_t v = p[0];

	if (r->size == 2)
		v |= p[1] << 8;
	if (r->flags & CM5_REG_SM11)
		return (v & 0x400) ? -(v & 0x3FF) : (v & 0x3FF);
	return v;
}

void cm5_reg_encode(const struct cm5_reg *r, int32_t raw, uint8_t *p)
{
	uint32_t v = (uint32_t)raw;

	if (r->flags & CM5_REG_SM11)
		v = raw < 0 ? (1u << 10) | (uint32_t)-raw : (uint32_t)raw;
	p[0] = v & 0xFF;
	if (r->size == 2)
		p[1] = (v >> 8) & 0xFF;
}

double cm5_to_natural(const struct cm5_reg *r, int32_t raw)
{
	switch (r->conv) {
	case CM5_CONV_BAUD:
		return 2000.0 / (raw + 1);
	case CM5_CONV_SLOPE:
		return (raw - 1) / 253.0;
	default:
		return raw * r->scale;
	}
}

int cm5_from_natural(const struct cm5_reg *r, double v, int32_t *raw)
{
	double x;

	switch (r->conv) {
	case CM5_CONV_BAUD:
		if (v <= 0)
			return -ERANGE;
		x = round(2000.0 / v - 1);
		break;
	case CM5_CONV_SLOPE:
		x = round(v * 253 + 1);
		break;
	default:
		/* BRBrain's Math.round(value / naturalUnitsPerCount), in
		 * floats: at an exact half (150 deg is 511.5 counts) it rounds
		 * up to 512, where the double quotient lands a hair below
		 */
		x = floorf((float)v / (float)r->scale + 0.5f);
		break;
	}
	if (r->flags & CM5_REG_RO || x < r->min || x > r->max)
		return -ERANGE;
	*raw = (int32_t)x;
	return 0;
}

double cm5_adc_to_volts(uint8_t adc)
{
	return adc / 255.0 * 5.0 * (10.0 + 3.3) / 3.3;
}

const char *cm5_status_str(int status, char *buf, size_t len)
{
	static const char *const names[8] = {
		"pc-timeout", "dynamixel-timeout", "invalid-pc-command",
		"invalid-dynamixel-response", "pc-rx-overflow",
		"dynamixel-rx-overflow", "pc-checksum-error",
		"dynamixel-checksum-error",
	};
	size_t used = 0;
	int i, s = status & 0xFF, retries = (status >> 8) & 0xFF;

	buf[0] = 0;
	if (!s)
		used = snprintf(buf, len, "ok");
	for (i = 0; i < 8 && used < len; i++)
		if (s & (1 << i))
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", names[i]);
	if (retries && used < len)
		snprintf(buf + used, len - used, " (%d retries)", retries);
	return buf;
}
