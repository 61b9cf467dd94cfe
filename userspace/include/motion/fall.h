/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbmotion: the fall detector. It reads the inertial unit's own angle
 * estimate and rates and the leg joints, and says whether the body is
 * upright, falling, fallen, standing up or sitting.
 */
#ifndef NBMOTION_FALL_H
#define NBMOTION_FALL_H

#include <stdbool.h>
#include <stdint.h>

#include <naobody/body.h>

enum fall_state {
	FALL_UPRIGHT,
	FALL_FALLING,
	FALL_FALLEN,
	FALL_STANDING_UP,
	FALL_SITTING,
};

extern const char *const fall_state_name[];

/* Thresholds, rad and rad/s (Documentation/naobodyd.rst, "Falls"). */
#define FALL_TILT_UPRIGHT	0.35f	/* below: upright */
#define FALL_TILT_FALLING	0.60f	/* above: falling */
#define FALL_TILT_FAST		0.40f	/* above, turning fast: falling */
#define FALL_RATE_FAST		1.50f
#define FALL_RATE_STILL		0.60f	/* falling, and slower: lying */
#define FALL_STILL_NS		(250ULL * 1000000ULL)
#define FALL_SIT_KNEE		1.60f	/* both knees above, upright: sitting */

struct fall {
	enum fall_state state;
	uint64_t still_since;		/* tilted and still, or 0 */
	uint64_t upright_since;
	bool seen;			/* a first reading was taken */
};

void fall_init(struct fall *f);
/* The state after this cycle's sensors; standing_up: a get-up motion runs. */
enum fall_state fall_update(struct fall *f, const struct nb_sensors *s,
			    bool standing_up, uint64_t now);
/* Tilt from vertical, rad. */
float fall_tilt(const struct nb_sensors *s);

#endif
