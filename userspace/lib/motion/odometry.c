// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbmotion: the odometry (see odometry.h).
 */
#include <math.h>
#include <string.h>

#include <motion/odometry.h>

/*
 * The uncertainty's growth: m per metre walked and per radian turned.
 * Provisional, set on the physical model, where the error of 100 WalkTo
 * walks to random targets within 2 m and +-180 degrees (at Normal and at
 * Fast, walk_test and nb-walk-bench) was at most 11 cm: 2 cm a metre on a
 * straight walk, and most of it on walks that turn on the spot, where the
 * torso crept (a short walk's 0.4 m with two turns missed by 8 cm). Since
 * TURN_SCALE and walk.c's turn_back(), at most 6.1 cm, 0.44 of the bound;
 * it is kept, as the model's feet are not a real NAO's. The
 * bound is those errors' envelope with a margin, not a statistic: walk_test
 * fails if any of its walks ends further off than State said. A real
 * NAO's feet slip otherwise; its teams measure their own.
 */
#define UNCERTAINTY_PER_M	0.05f
#define UNCERTAINTY_PER_RAD	0.05f

/*
 * The gyroscope's turn, as the body loop reads it (one sample a cycle),
 * times this is the turn. Provisional, the model's: turning on the spot
 * at Normal, 1.5 and 3 rad each way, the samples summed 3.1 to 3.5 % short
 * of the model's turn (2.7 % with the 3 cm lift the gait had before).
 * The joints' targets change once a cycle, so the rate ripples at the
 * cycle's rate, and a sample a cycle sees the ripple at the same phase
 * every time; the mean over each cycle summed within 0.3 % (with the 3 cm
 * lift). A real NAO's ripple and its gyroscope's filter are its own: its
 * teams calibrate the turn on the field, as they do the steps' scale
 * (walk.c's odo_*).
 */
#define TURN_SCALE		1.034f

void odometry_reset(struct odometry *o)
{
	memset(o, 0, sizeof(*o));
}

void odometry_step(struct odometry *o, const float moved[3], float yaw_rate,
		   bool on_feet, float dt)
{
	float c = cosf(o->pose[2]), s = sinf(o->pose[2]);
	float turn = TURN_SCALE * yaw_rate * dt;

	if (!on_feet)
		return;
	/* The step in the frame the robot started in, by the heading so far. */
	o->pose[0] += c * moved[0] - s * moved[1];
	o->pose[1] += s * moved[0] + c * moved[1];
	o->pose[2] += turn;
	o->path += hypotf(moved[0], moved[1]);
	o->turned += fabsf(turn);
}

float odometry_uncertainty(const struct odometry *o)
{
	return UNCERTAINTY_PER_M * o->path + UNCERTAINTY_PER_RAD * o->turned;
}
