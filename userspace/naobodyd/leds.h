/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the LEDs. The daemon shows its own status on every group; a
 * client's Leds override groups, and nil hands a group back. This file
 * also turns the robot API's LED orders into LoLA's.
 */
#ifndef NAOBODYD_LEDS_H
#define NAOBODYD_LEDS_H

#include <stdbool.h>
#include <stdint.h>

#include <naobody/body.h>

#define API_EYE_SEGMENTS 8
#define API_EAR_LEDS 10

/* The robot API's Leds; a group not given is handed back. */
struct leds_req {
	bool has_eye[2];			/* left, right */
	uint8_t eye[2][API_EYE_SEGMENTS][3];	/* segment 0 at the top, clockwise from the front */
	bool has_ear[2];
	float ear[2][API_EAR_LEDS];		/* 0..1, LED i at i * 36 degrees */
	bool has_chest;
	uint8_t chest[3];
	bool has_foot[2];
	uint8_t foot[2][3];
};

/* What the daemon's own status shows. */
struct leds_status {
	bool stopped;
	bool controller;
	bool watchdog;
	bool stiff;
	float charge;
	bool charging;
};

struct leds {
	struct leds_req over;		/* the client's overrides */
};

void leds_init(struct leds *l);
void leds_set(struct leds *l, const struct leds_req *req);	/* NULL: hand all back */
void leds_compose(const struct leds *l, const struct leds_status *st, uint64_t now,
		  struct nb_actuators *out);

/* LoLA's index of the robot API's eye segment k (exposed for the tests). */
int leds_eye_lola_index(int eye, int k);

#endif
