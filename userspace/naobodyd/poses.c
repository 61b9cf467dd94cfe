// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the motions' key poses (poses.h), in a file of their own so
 * that what checks them (selftests/sim/model_test.c, on the physical NAO
 * model) uses the daemon's numbers, not a copy.
 */
#include "poses.h"

/*
 * Poses, LoLA's order. Legs bent a little when standing; the sit pose is
 * the crouch the NAO rests in; knees past FALL_SIT_KNEE mean sitting.
 */
#define ARMS_DOWN 1.55f, 0.15f, -1.20f, -0.45f, 0.0f
#define R_ARMS_DOWN 1.55f, -0.15f, 1.20f, 0.45f, 0.0f
#define LEGS_STAND 0.0f, 0.0f, -0.42f, 0.92f, -0.50f, 0.0f
#define R_LEGS_STAND 0.0f, -0.42f, 0.92f, -0.50f, 0.0f
const float motion_poses[POSE_CURRENT][NAOBODY_JOINTS] = {
	[POSE_STAND] = { 0.0f, 0.0f, ARMS_DOWN, LEGS_STAND, R_LEGS_STAND,
			 R_ARMS_DOWN, 0.2f, 0.2f },
	[POSE_SIT] = { 0.0f, 0.0f, 1.45f, 0.10f, -1.00f, -0.60f, 0.0f,
		       0.0f, 0.0f, -0.86f, 2.10f, -1.18f, 0.0f,
		       0.0f, -0.86f, 2.10f, -1.18f, 0.0f,
		       1.45f, -0.10f, 1.00f, 0.60f, 0.0f, 0.0f, 0.0f },
	[POSE_ARMS_UP] = { 0.0f, 0.0f, -1.50f, 0.10f, -1.40f, -0.05f, 0.0f,
			   LEGS_STAND, R_LEGS_STAND,
			   -1.50f, -0.10f, 1.40f, 0.05f, 0.0f, 0.8f, 0.8f },
	[POSE_SQUAT] = { 0.0f, 0.0f, 0.30f, 0.10f, -1.20f, -0.10f, 0.0f,
			 0.0f, 0.0f, -0.85f, 1.50f, -0.75f, 0.0f,
			 0.0f, -0.85f, 1.50f, -0.75f, 0.0f,
			 0.30f, -0.10f, 1.20f, 0.10f, 0.0f, 0.2f, 0.2f },
};
