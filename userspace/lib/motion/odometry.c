// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbmotion: the odometry (see odometry.h).
 */
#include <math.h>
#include <string.h>

#include <motion/odometry.h>

void odometry_reset(struct odometry *o)
{
	memset(o, 0, sizeof(*o));
}

void odometry_step(struct odometry *o, const float moved[3], float yaw_rate,
		   bool on_feet, float dt)
{
	float c = cosf(o->pose[2]), s = sinf(o->pose[2]);

	if (!on_feet)
		return;
	/* The step in the frame the robot started in, by the heading so far. */
	o->pose[0] += c * moved[0] - s * moved[1];
	o->pose[1] += s * moved[0] + c * moved[1];
	o->pose[2] += yaw_rate * dt;
}
