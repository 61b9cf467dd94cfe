/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Counts to LoLA's units and back.
 *
 * The kernel publishes integer counts (struct naobody_sensors) and takes
 * targets in counts (struct naobody_actuators). These functions convert
 * them to and from LoLA's units (struct nb_sensors, struct nb_actuators in
 * <naobody/body.h>) with the calibration from the preference block.
 * Documentation/chest-board-protocol.rst ("Sensor counts") gives
 * every formula; the constants below are the factors it names. Those the
 * spec gives are marked (spec); the others are provisional.
 */
#ifndef NAOBODY_UNITS_H
#define NAOBODY_UNITS_H

#include <linux/naobody.h>

#include <naobody/body.h>
#include <naobody/prefs.h>

#define NB_PI			3.14159265358979323846

/* Per count */
#define NB_ACC_PER_COUNT	(9.81 / 16384.0)		/* m/s^2 (spec) */
#define NB_GYRO_PER_COUNT	(500.0 / 32768.0 * NB_PI / 180.0)	/* rad/s (spec) */
#define NB_ANGLE_PER_COUNT	(1.0 / 1000.0)			/* rad */
#define NB_CHARGE_PER_COUNT	(1.0 / 100.0)			/* 0..1 */
#define NB_BATT_CURRENT_PER_COUNT (1.0 / 1000.0)		/* A */
#define NB_BATT_TEMP_PER_COUNT	(0.1 * 0.1)	/* LoLA's scale: 0.1 twice (spec) */
#define NB_SONAR_PER_COUNT	0.01				/* m (spec) */
#define NB_POSITION_PER_COUNT	(2.0 * NB_PI / 4096.0)		/* rad */
#define NB_HAND_PER_COUNT	(1.0 / 1000.0)			/* 0..1 */
#define NB_CURRENT_PER_COUNT	0.016				/* A (spec) */
#define NB_TEMP_PER_COUNT	2.0			/* deg C: 2 deg steps (spec) */
#define NB_STIFFNESS_PER_COUNT	(1.0 / NAOBODY_STIFFNESS_MAX)	/* 0..1 */
#define NB_LED_MAX		255

/*
 * The pressure sensors' positions in the foot (ankle) frame, m: x forward,
 * y left. Index as NAOBODY_FSR_* within one foot.
 */
extern const float nb_fsr_position[2][4][2];

/* nb_joint_name() - LoLA's name of a joint ("HeadYaw"), NULL past 24. */
const char *nb_joint_name(unsigned int joint);

/*
 * nb_sensors_from_counts() - convert one cycle's counts.
 * commanded: the stiffness LoLA reports (NULL: 0). out keeps its battery
 * charge when the new one is outside 0..1, as LoLA drops those; start from
 * a zeroed out.
 */
void nb_sensors_from_counts(struct nb_sensors *out,
			    const struct naobody_sensors *in,
			    const struct naobody_actuators *commanded,
			    const struct nb_calibration *cal);

/*
 * nb_sensors_to_counts() - the inverse, for simulated bodies: counts
 * rounded to nearest (the codec clamps them to the wire's widths when it
 * encodes them). touch bits are set from touch[] > 0.5; status is clamped
 * to 0..3; updated is 0; foot[] and stiffness[] are not used.
 */
void nb_sensors_to_counts(struct naobody_sensors *out,
			  const struct nb_sensors *in,
			  const struct nb_calibration *cal);

/*
 * nb_actuators_to_counts() - targets in LoLA's units to counts: positions
 * with the joint zeros, stiffness 0..1 to 0..1000, the chest and foot LEDs
 * 0..1 to 0..255, sonar enables to NAOBODY_SONAR_* bits. Out-of-range
 * values are clamped (positions to NAOBODY_POSITION_MIN..MAX, which
 * write() would refuse); NaN gives stiffness 0, LED 0 and the zero
 * position.
 * The head's LEDs (ears, eyes, skull) are not the chest board's and are
 * ignored.
 */
void nb_actuators_to_counts(struct naobody_actuators *out,
			    const struct nb_actuators *in,
			    const struct nb_calibration *cal);

/* nb_actuators_from_counts() - the inverse (head LEDs are zeroed). */
void nb_actuators_from_counts(struct nb_actuators *out,
			      const struct naobody_actuators *in,
			      const struct nb_calibration *cal);

/*
 * nb_foot_load() - a foot's total weight (the sum of its four sensors, kg)
 * and centre of pressure (the weighted mean of the sensors' positions; 0, 0
 * when the weight is not above 0). fsr: the foot's four values, kg.
 */
void nb_foot_load(struct nb_foot *foot, const float fsr[4], int right);

#endif
