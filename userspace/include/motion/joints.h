/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbmotion: joint tables. Arrays inside the daemon use LoLA's 25-joint
 * order (enum naobody_joint); the robot API uses its own 26-joint order,
 * in which both hip yaw-pitch joints appear (they share one motor).
 */
#ifndef NBMOTION_JOINTS_H
#define NBMOTION_JOINTS_H

#include <stdint.h>

#include <linux/naobody.h>

#define API_JOINTS 26

/* The LoLA index of each robot API joint, and its name (head_yaw...). */
extern const uint8_t api_joint_lola[API_JOINTS];
extern const char *const api_joint_name[API_JOINTS];

/* Each joint's range, rad (hands 0..1), from the NAO6's documentation. */
extern const float joint_min[NAOBODY_JOINTS];
extern const float joint_max[NAOBODY_JOINTS];
/* Each joint's top speed, rad/s, from the same family of documents. */
extern const float joint_max_speed[NAOBODY_JOINTS];

/* LoLA's names (HeadYaw...), for logs and the simulator's commands. */
extern const char *const joint_name[NAOBODY_JOINTS];

static inline float joint_clamp(int j, float v)
{
	return v < joint_min[j] ? joint_min[j] : v > joint_max[j] ? joint_max[j] : v;
}

#endif
