/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The body in LoLA's units and orders: what libnaobody makes of the kernel's
 * counts (struct naobody_sensors), what the simulated body produces, and
 * what the daemon serves. The kernel's uapi header gives the indexes
 * (enum naobody_joint, enum naobody_touch, NAOBODY_FSR_*).
 */
#ifndef NAOBODY_BODY_H
#define NAOBODY_BODY_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/naobody.h>

/* Each foot's load, computed from its four pressure sensors as HAL does. */
struct nb_foot {
	float weight;		/* kg, the four sensors' sum */
	float cop[2];		/* centre of pressure, m: x forward, y left, foot frame */
};

/* LoLA's sensor message. */
struct nb_sensors {
	float accelerometer[3];		/* m/s^2 */
	float angles[2];		/* rad */
	float battery[4];		/* charge 0..1, status bits, current A,
					 * temperature (LoLA's scale) */
	float current[NAOBODY_JOINTS];	/* A */
	float fsr[NAOBODY_FSRS];	/* kg */
	float gyroscope[3];		/* rad/s */
	float position[NAOBODY_JOINTS];	/* rad; hands 0..1 */
	float sonar[2];			/* m */
	float stiffness[NAOBODY_JOINTS];	/* 0..1, as commanded */
	float temperature[NAOBODY_JOINTS];	/* deg C */
	float touch[NAOBODY_TOUCHES];	/* 0 or 1 */
	int32_t status[NAOBODY_JOINTS];	/* temperature status 0..3 */
	struct nb_foot foot[2];		/* left, right; beyond LoLA */
};

#define NB_EAR_LEDS	10
#define NB_EYE_LEDS	24
#define NB_SKULL_LEDS	12

/*
 * LoLA's actuator message. LED orders are LoLA's: ears from 0 degrees (the
 * right ear reversed), eyes as eight reds, eight greens, eight blues.
 */
struct nb_actuators {
	float position[NAOBODY_JOINTS];		/* rad; hands 0..1 */
	float stiffness[NAOBODY_JOINTS];	/* 0..1 */
	float chest[3];
	float l_ear[NB_EAR_LEDS];
	float r_ear[NB_EAR_LEDS];
	float l_eye[NB_EYE_LEDS];
	float r_eye[NB_EYE_LEDS];
	float l_foot[3];
	float r_foot[3];
	float skull[NB_SKULL_LEDS];
	bool sonar[2];				/* left, right enabled */
};

#endif
