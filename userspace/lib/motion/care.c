// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbmotion: the body cared for (see care.h).
 *
 * A joint's temperature comes in steps of 2 degC from the real boards, so
 * the two thresholds, 6 degC apart, keep a joint near one of them from
 * switching every cycle. A charge of 0 is "not read yet" (the boards'
 * first frames), never "empty": it does not count as low.
 */
#include <motion/care.h>

void care_update(struct care *c, const struct nb_sensors *s)
{
	float charge = s->battery[0];
	bool charging = s->battery[2] > 0.0f;

	for (int j = 0; j < NAOBODY_JOINTS; j++) {
		uint32_t bit = 1U << j;
		bool was = c->hot & bit, hot = was;

		if (!was && s->temperature[j] >= CARE_HOT_C)
			hot = true;
		else if (was && s->temperature[j] < CARE_COOL_C)
			hot = false;
		if (hot != was) {
			c->hot ^= bit;
			c->changed |= bit;
		}
	}
	if (!c->battery_low && charge > 0.0f && charge < CARE_BATTERY_LOW && !charging)
		c->battery_low = true;
	else if (c->battery_low && (charge >= CARE_BATTERY_OK || charging))
		c->battery_low = false;
}

void care_limit(const struct care *c, float stiffness[NAOBODY_JOINTS])
{
	for (int j = 0; c->hot && j < NAOBODY_JOINTS; j++)
		if ((c->hot & (1U << j)) && stiffness[j] > CARE_HOT_STIFFNESS)
			stiffness[j] = CARE_HOT_STIFFNESS;
}

bool care_legs_hot(const struct care *c)
{
	uint32_t legs = 0;

	for (int j = NAOBODY_L_HIP_YAW_PITCH; j <= NAOBODY_R_ANKLE_ROLL; j++)
		legs |= 1U << j;
	return c->hot & legs;
}

uint32_t care_take_changes(struct care *c)
{
	uint32_t changed = c->changed;

	c->changed = 0;
	return changed;
}
