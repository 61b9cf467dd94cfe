// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd's REST API: the LEDs' JSON (see rest_leds.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rest_leds.h"

static const char *const names[] = {
	"left_eye", "right_eye", "left_ear", "right_ear", "chest", "left_foot", "right_foot",
};

static int rgb(const json_t *v, const char *where, uint8_t *c, char *err, size_t len)
{
	if (!json_is_array(v) || json_array_size(v) != 3) {
		snprintf(err, len, "%s: expected [r, g, b], three integers 0..255", where);
		return -1;
	}
	for (size_t i = 0; i < 3; i++) {
		const json_t *x = json_array_get(v, i);

		if (!json_is_integer(x) || json_integer_value(x) < 0 ||
		    json_integer_value(x) > 255) {
			snprintf(err, len, "%s[%zu]: expected an integer 0..255", where, i);
			return -1;
		}
		c[i] = (uint8_t)json_integer_value(x);
	}
	return 0;
}

static int eye(const json_t *v, const char *name, uint8_t (*seg)[3], char *err, size_t len)
{
	char where[32];

	if (!json_is_array(v) || json_array_size(v) != API_EYE_SEGMENTS) {
		snprintf(err, len, "%s: expected 8 [r, g, b], segment 0 at the top, then "
			 "clockwise as seen from the front", name);
		return -1;
	}
	for (size_t k = 0; k < API_EYE_SEGMENTS; k++) {
		snprintf(where, sizeof(where), "%s[%zu]", name, k);
		if (rgb(json_array_get(v, k), where, seg[k], err, len))
			return -1;
	}
	return 0;
}

static int ear(const json_t *v, const char *name, float *b, char *err, size_t len)
{
	if (!json_is_array(v) || json_array_size(v) != API_EAR_LEDS) {
		snprintf(err, len, "%s: expected 10 numbers, brightness 0..1", name);
		return -1;
	}
	for (size_t i = 0; i < API_EAR_LEDS; i++) {
		const json_t *x = json_array_get(v, i);
		double d = json_number_value(x);

		if (!json_is_number(x) || !isfinite(d)) {
			snprintf(err, len, "%s[%zu]: expected a number 0..1", name, i);
			return -1;
		}
		b[i] = fminf(fmaxf((float)d, 0.0f), 1.0f);	/* as the robot API does */
	}
	return 0;
}

int rest_leds_parse(const json_t *o, struct leds_req *r, char *err, size_t len)
{
	const char *key;
	json_t *v;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(o)) {
		snprintf(err, len, "expected an object with any of left_eye, right_eye, left_ear, "
			 "right_ear, chest, left_foot, right_foot ({} hands them all back)");
		return -1;
	}
	json_object_foreach((json_t *)o, key, v) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(key, names[i]))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			snprintf(err, len, "unknown field '%.32s': the groups are left_eye, right_eye, "
				 "left_ear, right_ear, chest, left_foot, right_foot", key);
			return -1;
		}
		if (json_is_null(v))
			continue;	/* handed back */
		switch (i) {
		case 0:
		case 1:
			if (eye(v, key, r->eye[i], err, len))
				return -1;
			r->has_eye[i] = true;
			break;
		case 2:
		case 3:
			if (ear(v, key, r->ear[i - 2], err, len))
				return -1;
			r->has_ear[i - 2] = true;
			break;
		case 4:
			if (rgb(v, key, r->chest, err, len))
				return -1;
			r->has_chest = true;
			break;
		default:
			if (rgb(v, key, r->foot[i - 5], err, len))
				return -1;
			r->has_foot[i - 5] = true;
			break;
		}
	}
	return 0;
}

json_t *rest_leds_groups(const struct leds_req *r)
{
	const bool has[] = { r->has_eye[0], r->has_eye[1], r->has_ear[0], r->has_ear[1],
			     r->has_chest, r->has_foot[0], r->has_foot[1] };
	json_t *a = json_array();

	for (size_t i = 0; i < sizeof(has) / sizeof(has[0]); i++)
		if (has[i])
			json_array_append_new(a, json_string(names[i]));
	return a;
}

json_t *rest_leds_not_driven(const struct leds_req *r, bool head_leds)
{
	const bool has[] = { !r || r->has_eye[0], !r || r->has_eye[1], !r || r->has_ear[0],
			     !r || r->has_ear[1] };
	json_t *a = json_array();

	if (head_leds)
		return a;
	for (size_t i = 0; i < sizeof(has) / sizeof(has[0]); i++)
		if (has[i])
			json_array_append_new(a, json_string(names[i]));
	if (!r)
		json_array_append_new(a, json_string("skull"));
	return a;
}
