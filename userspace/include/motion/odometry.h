/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbmotion: the odometry, where the robot thinks it is on the floor
 * since it started: x, y (m) and heading (rad, left positive), in the frame
 * it started in.
 *
 * It is the motion layer's own, made from what any body gives: the way the
 * walking engine says the torso went (walk_update()'s moved, the steps it
 * commanded) and the turn the inertial unit measures (walk_yaw_rate(), the
 * gyroscope about the world's vertical). The steps say nothing of a foot
 * that slips; the gyroscope sees a turn the steps did not make (a slip, a
 * push). Nothing here asks the body where it is, so the odometry is the same
 * on the real robot, the kinematic body and the physical model.
 */
#ifndef NBMOTION_ODOMETRY_H
#define NBMOTION_ODOMETRY_H

#include <stdbool.h>

struct odometry {
	float pose[3];		/* x, y (m), heading (rad) */
	float path;		/* m walked, however it turned */
	float turned;		/* rad turned, either way */
};

void odometry_reset(struct odometry *o);

/*
 * How far from the truth pose[0..1] may be (m): a bound that grows with
 * the way walked and the turns made (odometry.c says how it was set).
 */
float odometry_uncertainty(const struct odometry *o);

/*
 * One cycle of dt seconds. moved: the gait's step this cycle (x, y in the
 * last cycle's torso frame, m; its turn is not used), zero when standing.
 * yaw_rate: the measured turn (rad/s). on_feet: the body stands on its
 * feet; a falling or lying body's gyroscope turns it about axes that are
 * not the floor's, so the heading then holds.
 */
void odometry_step(struct odometry *o, const float moved[3], float yaw_rate,
		   bool on_feet, float dt);

#endif
