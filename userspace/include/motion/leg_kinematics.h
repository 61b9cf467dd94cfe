/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbmotion: the NAO V6's legs, forward and inverse kinematics, for the
 * walking engine (walk.h).
 *
 * A foot's pose is its sole's centre under the ankle (the model's LSole
 * and RSole sites) in the torso's frame: x forward, y left, z up (m), and
 * the sole's yaw about the torso's z (rad). The soles are kept parallel
 * to the torso's x-y plane.
 *
 * The NAO turns both hip yaw-pitch joints with one motor, so the two legs
 * are solved together: one HipYawPitch and five joints a leg, eleven in
 * all, for twelve numbers (two positions, two sole orientations). Feet
 * whose yaws are mirror images (left +a, right -a) are reachable exactly;
 * others to within the least-squares error leg_ik() returns.
 */
#ifndef NBMOTION_LEG_KINEMATICS_H
#define NBMOTION_LEG_KINEMATICS_H

#include <linux/naobody.h>

/* The legs' joints, from LoLA's LHipYawPitch to RAnkleRoll: 11. */
#define LEG_FIRST	NAOBODY_L_HIP_YAW_PITCH
#define LEG_JOINTS	(NAOBODY_R_ANKLE_ROLL - NAOBODY_L_HIP_YAW_PITCH + 1)

enum leg_side { LEG_LEFT, LEG_RIGHT };

struct foot_pose {
	float x, y, z, yaw;
};

/*
 * Where a foot is for the joints q (LoLA's order, all 25; the legs' are
 * read). The right leg's HipYawPitch is the left's, as on the robot.
 */
void leg_forward(enum leg_side side, const float q[NAOBODY_JOINTS], struct foot_pose *out);

/*
 * The leg joints that put the feet at want[LEG_LEFT] and want[LEG_RIGHT],
 * starting from q (the last solution: a few iterations then suffice) and
 * written back into q, within the joints' ranges. Returns the remaining
 * error: metres of position, plus 0.1 m per radian of orientation, the
 * worst of the two feet.
 */
float leg_ik(const struct foot_pose want[2], float q[NAOBODY_JOINTS]);

#endif
