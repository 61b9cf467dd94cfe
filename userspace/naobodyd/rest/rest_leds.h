/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API: PUT /leds's JSON, the robot API's Leds with the same
 * field names and ranges (Documentation/robot-api.rst, "Leds"): left_eye,
 * right_eye (8 [r, g, b], 0..255), left_ear, right_ear (10 numbers, 0..1,
 * clamped as the robot API does), chest, left_foot, right_foot ([r, g, b]).
 * A group left out or null is handed back to the daemon's own status; {}
 * hands every group back.
 */
#ifndef NAOBODYD_REST_LEDS_H
#define NAOBODYD_REST_LEDS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "leds.h"

/* 0, or -1 with what to fix in err. */
int rest_leds_parse(const json_t *o, struct leds_req *out, char *err, size_t len);

/* The groups an order overrides, by name (the answer's "overridden"). */
json_t *rest_leds_groups(const struct leds_req *r);

/*
 * The head's groups a body that does not drive them (body_info.head_leds
 * false) accepts and does not show: those of r (the answer's
 * "not_driven"), or with r NULL all of them, LoLA's skull too (GET
 * /robot's "leds_not_driven"). An empty array when head_leds.
 */
json_t *rest_leds_not_driven(const struct leds_req *r, bool head_leds);

#endif
