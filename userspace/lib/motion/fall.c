// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbmotion: the fall detector (see fall.h).
 *
 * Falling: the torso tilts past FALL_TILT_FALLING, or past FALL_TILT_FAST
 * while turning faster than FALL_RATE_FAST. Fallen: tilted past
 * FALL_TILT_FALLING and still (below FALL_RATE_STILL) for FALL_STILL_NS. Back to upright (or
 * sitting) when the tilt drops below FALL_TILT_UPRIGHT.
 */
#include <math.h>

#include <motion/fall.h>

const char *const fall_state_name[] = {
	[FALL_UPRIGHT] = "Upright",
	[FALL_FALLING] = "Falling",
	[FALL_FALLEN] = "Fallen",
	[FALL_STANDING_UP] = "StandingUp",
	[FALL_SITTING] = "Sitting",
};

void fall_init(struct fall *f)
{
	f->state = FALL_UPRIGHT;
	f->still_since = 0;
	f->upright_since = 0;
	f->seen = false;
}

float fall_tilt(const struct nb_sensors *s)
{
	return hypotf(s->angles[0], s->angles[1]);
}

static bool sitting_pose(const struct nb_sensors *s)
{
	return s->position[NAOBODY_L_KNEE_PITCH] > FALL_SIT_KNEE &&
	       s->position[NAOBODY_R_KNEE_PITCH] > FALL_SIT_KNEE;
}

enum fall_state fall_update(struct fall *f, const struct nb_sensors *s,
			    bool standing_up, uint64_t now)
{
	float tilt = fall_tilt(s);
	float rate = hypotf(s->gyroscope[0], s->gyroscope[1]);
	bool upright = tilt < FALL_TILT_UPRIGHT;

	if (tilt > FALL_TILT_FALLING && rate < FALL_RATE_STILL) {
		if (!f->still_since)
			f->still_since = now;
	} else {
		f->still_since = 0;
	}

	if (standing_up) {
		f->state = FALL_STANDING_UP;
		return f->state;
	}
	/*
	 * The first reading: a body that starts down (the physical simulated
	 * body starts lying) has not fallen while anyone watched; it is down.
	 */
	if (!f->seen) {
		f->seen = true;
		if (tilt > FALL_TILT_FALLING)
			f->state = FALL_FALLEN;
	}

	switch (f->state) {
	case FALL_UPRIGHT:
	case FALL_SITTING:
	case FALL_STANDING_UP:
		if (tilt > FALL_TILT_FALLING ||
		    (tilt > FALL_TILT_FAST && rate > FALL_RATE_FAST))
			f->state = FALL_FALLING;
		else if (upright)
			f->state = sitting_pose(s) ? FALL_SITTING : FALL_UPRIGHT;
		else if (f->state == FALL_STANDING_UP)
			f->state = FALL_FALLEN;	/* the get-up gave up half-way */
		break;
	case FALL_FALLING:
		if (f->still_since && now - f->still_since >= FALL_STILL_NS)
			f->state = FALL_FALLEN;
		else if (upright)
			f->state = sitting_pose(s) ? FALL_SITTING : FALL_UPRIGHT;
		break;
	case FALL_FALLEN:
		if (upright)
			f->state = sitting_pose(s) ? FALL_SITTING : FALL_UPRIGHT;
		break;
	}
	return f->state;
}
