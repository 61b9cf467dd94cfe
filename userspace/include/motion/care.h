/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbmotion: the body cared for. Two policies the motion layer
 * (motion.h) applies to every command, whoever computed it:
 *
 *   - a hot joint: from CARE_HOT_C its stiffness is held at most
 *     CARE_HOT_STIFFNESS, until it has cooled below CARE_COOL_C (RoboCup
 *     teams cut a joint's stiffness at 76 degC and give it back below 70:
 *     HULKs/hulk#1826); with a hot leg joint, walking is Slow;
 *   - a low battery: below CARE_BATTERY_LOW, not charging, the robot sits
 *     down and goes limp while it still can, and Wake is refused until the
 *     charge is back above CARE_BATTERY_OK or the charger is on.
 *
 * Provisional (Documentation/naobodyd.rst, "The body cared for"): the two
 * temperatures are the teams', the held stiffness and the battery's
 * levels ours.
 */
#ifndef NBMOTION_CARE_H
#define NBMOTION_CARE_H

#include <stdbool.h>
#include <stdint.h>

#include <naobody/body.h>

#define CARE_HOT_C		76.0f	/* degC: a joint is hot from here */
#define CARE_COOL_C		70.0f	/* degC: ... until below here */
#define CARE_HOT_STIFFNESS	0.5f	/* a hot joint's stiffness, at most */
#define CARE_BATTERY_LOW	0.05f	/* charge: sit down, then limp */
#define CARE_BATTERY_OK		0.10f	/* charge: Wake again (or on the charger) */

struct care {
	uint32_t hot;		/* bit j: LoLA joint j is hot */
	uint32_t changed;	/* bits that changed since care_take_changes() */
	bool battery_low;
};

/* This cycle's sensors: the joints' temperatures, the battery. */
void care_update(struct care *c, const struct nb_sensors *s);
/* Hold each hot joint's stiffness at CARE_HOT_STIFFNESS at most. */
void care_limit(const struct care *c, float stiffness[NAOBODY_JOINTS]);
/* A leg joint (hips, knees, ankles) is hot. */
bool care_legs_hot(const struct care *c);
/* The joints whose state changed since the last call (bit j: LoLA joint j). */
uint32_t care_take_changes(struct care *c);

#endif
