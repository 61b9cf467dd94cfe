/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the key poses the motions (motion.c) move between, LoLA's
 * joint order, radians (hands 0..1).
 */
#ifndef NAOBODYD_POSES_H
#define NAOBODYD_POSES_H

#include <linux/naobody.h>

/* POSE_CURRENT is not in the table: it is wherever the joints are held. */
enum pose { POSE_STAND, POSE_SIT, POSE_ARMS_UP, POSE_SQUAT, POSE_CURRENT };

extern const float motion_poses[POSE_CURRENT][NAOBODY_JOINTS];

/*
 * The protective fall's poses (motion.c), by the way the robot falls, and
 * the stiffness each joint holds them with until the body lies still.
 */
enum fall_way { FALL_WAY_FRONT, FALL_WAY_BACK, FALL_WAY_SIDE, FALL_WAYS };

extern const float protect_poses[FALL_WAYS][NAOBODY_JOINTS];
extern const float protect_stiffness[FALL_WAYS][NAOBODY_JOINTS];

#endif
