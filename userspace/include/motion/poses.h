/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbmotion: the key poses the motions (motion.c) move between, LoLA's
 * joint order, radians (hands 0..1).
 */
#ifndef NBMOTION_POSES_H
#define NBMOTION_POSES_H

#include <stdbool.h>

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

/*
 * The get-up motions (getup.c, motion.c): keys, each moved to in move_s
 * and then held until its condition holds or wait_s is over.
 */
enum getup_until {
	GETUP_AFTER,		/* wait_s */
	GETUP_STILL,		/* the torso still, at most wait_s */
};

/* Stiffness: 1, all the torque the motors have; or none, limp. */
enum getup_limp {
	GETUP_STIFF,
	GETUP_ARMS_LIMP,	/* the arms (and head) limp, the legs stiff */
	GETUP_LIMP,
};

struct getup_key {
	float pose[NAOBODY_JOINTS];
	float move_s, wait_s;
	enum getup_until until;
	enum getup_limp limp;
};

/* Lying on the front; on the back, rolling onto the front first. */
extern const struct getup_key getup_front[];
extern const int getup_front_keys;
extern const struct getup_key getup_back[];
extern const int getup_back_keys;

#endif
