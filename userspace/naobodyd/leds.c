// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: LEDs (see leds.h).
 *
 * LoLA's orders (nao_lola's lola_enums.hpp, as HULKs and B-Human): eyes as
 * eight reds, eight greens, eight blues; the left eye's LEDs in the order
 * 45, 0, 315, 270, 225, 180, 135, 90 degrees, the right eye's 0, 45, ...
 * 315; ears from 0 degrees, the right ear reversed.
 *
 * Where those angles sit on the face is taken from nao_lola's mapping of
 * Aldebaran's LED diagram (its command_index_conversion.hpp): seen from
 * the front, the left eye's first LoLA LED is at the top and the indexes
 * run anticlockwise; the right eye's last LoLA LED is at the top and the
 * indexes run clockwise backwards. The robot API numbers segments from
 * the top, clockwise as seen from the front. This geometry is provisional
 * until it is checked on a robot (Documentation/naobodyd.rst).
 */
#include <math.h>
#include <string.h>

#include "leds.h"

void leds_init(struct leds *l)
{
	memset(l, 0, sizeof(*l));
}

void leds_set(struct leds *l, const struct leds_req *req)
{
	if (req)
		l->over = *req;
	else
		memset(&l->over, 0, sizeof(l->over));
}

int leds_eye_lola_index(int eye, int k)
{
	return eye == 0 ? (API_EYE_SEGMENTS - k) % API_EYE_SEGMENTS
			: API_EYE_SEGMENTS - 1 - k;
}

static void eye_fill(float *lola, float r, float g, float b)
{
	for (int i = 0; i < API_EYE_SEGMENTS; i++) {
		lola[i] = r;
		lola[API_EYE_SEGMENTS + i] = g;
		lola[2 * API_EYE_SEGMENTS + i] = b;
	}
}

static void rgb(float *out, float r, float g, float b)
{
	out[0] = r;
	out[1] = g;
	out[2] = b;
}

static void rgb8(float *out, const uint8_t *c)
{
	rgb(out, c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f);
}

void leds_compose(const struct leds *l, const struct leds_status *st, uint64_t now,
		  struct nb_actuators *out)
{
	const struct leds_req *o = &l->over;
	bool blink = (now / 500000000ULL) & 1;	/* 1 Hz */
	int lit = (int)lroundf(fminf(fmaxf(st->charge, 0.0f), 1.0f) * API_EAR_LEDS);
	float *eyes[2] = { out->l_eye, out->r_eye };
	float *ears[2] = { out->l_ear, out->r_ear };
	float *feet[2] = { out->l_foot, out->r_foot };

	/* The daemon's own status. */
	if (st->stopped)
		rgb(out->chest, blink ? 1.0f : 0.0f, 0.0f, 0.0f);
	else if (st->watchdog)
		rgb(out->chest, 1.0f, 0.5f, 0.0f);
	else if (st->controller)
		rgb(out->chest, 0.0f, 1.0f, 0.0f);
	else
		rgb(out->chest, 0.0f, 0.0f, 1.0f);
	for (int e = 0; e < 2; e++) {
		if (st->stopped)
			eye_fill(eyes[e], 0.8f, 0.0f, 0.0f);
		else if (st->stiff)
			eye_fill(eyes[e], 0.6f, 0.6f, 0.6f);
		else
			eye_fill(eyes[e], 0.0f, 0.0f, 0.4f);
		/* Battery gauge; the next LED blinks while charging. */
		for (int i = 0; i < API_EAR_LEDS; i++) {
			float v = i < lit ? 1.0f : (i == lit && st->charging && blink) ? 1.0f : 0.0f;

			ears[e][e == 0 ? i : API_EAR_LEDS - 1 - i] = v;
		}
		rgb(feet[e], 0.0f, 0.0f, 0.0f);
	}
	memset(out->skull, 0, sizeof(out->skull));

	/* The client's overrides, in LoLA's orders. */
	for (int e = 0; e < 2; e++) {
		if (o->has_eye[e]) {
			for (int k = 0; k < API_EYE_SEGMENTS; k++) {
				int i = leds_eye_lola_index(e, k);

				for (int c = 0; c < 3; c++)
					eyes[e][c * API_EYE_SEGMENTS + i] = o->eye[e][k][c] / 255.0f;
			}
		}
		if (o->has_ear[e]) {
			for (int i = 0; i < API_EAR_LEDS; i++)
				ears[e][e == 0 ? i : API_EAR_LEDS - 1 - i] = o->ear[e][i];
		}
		if (o->has_foot[e])
			rgb8(feet[e], o->foot[e]);
	}
	if (o->has_chest)
		rgb8(out->chest, o->chest);
}
