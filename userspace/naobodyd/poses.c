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

/*
 * Provisional, chosen on the physical model (Documentation/naobodyd.rst,
 * "Falls"): the RoboCup teams' protective falls in outline, not their
 * numbers. Falling forwards, the arms reach ahead and a little out with
 * the elbows bent, so the forearms meet the floor before the face, and
 * the head tips back; the knees bend, so the body drops before it tips.
 * Backwards, the chin goes to the chest and the body folds into the
 * crouch, so the seat lands first; the arms go down and back. Sideways,
 * the head tucks and the arms come in against the body. Hands closed.
 */
#define PROTECT_LEGS_BENT 0.0f, 0.0f, -0.40f, 1.60f, -0.80f, 0.0f
#define R_PROTECT_LEGS_BENT 0.0f, -0.40f, 1.60f, -0.80f, 0.0f
#define PROTECT_LEGS_SIT 0.0f, 0.0f, -0.86f, 2.10f, -1.18f, 0.0f
#define R_PROTECT_LEGS_SIT 0.0f, -0.86f, 2.10f, -1.18f, 0.0f
#define PROTECT_LEGS_KNEEL 0.0f, 0.0f, -0.30f, 2.10f, -1.18f, 0.0f
#define R_PROTECT_LEGS_KNEEL 0.0f, -0.30f, 2.10f, -1.18f, 0.0f
#define PROTECT_LEGS_FOLD 0.0f, 0.0f, -1.50f, 2.10f, -1.18f, 0.0f
#define R_PROTECT_LEGS_FOLD 0.0f, -1.50f, 2.10f, -1.18f, 0.0f
const float protect_poses[FALL_WAYS][NAOBODY_JOINTS] = {
	[FALL_WAY_FRONT] = { 0.0f, -0.67f, 0.3f, 0.25f, -1.50f, -0.20f, 0.0f,
			     PROTECT_LEGS_BENT, R_PROTECT_LEGS_BENT,
			     0.3f, -0.25f, 1.50f, 0.20f, 0.0f, 0.0f, 0.0f },
	[FALL_WAY_BACK] = { 0.0f, 0.51f, 2.00f, 0.30f, -1.50f, -0.30f, 0.0f,
			    PROTECT_LEGS_FOLD, R_PROTECT_LEGS_FOLD,
			    2.00f, -0.30f, 1.50f, 0.30f, 0.0f, 0.0f, 0.0f },
	[FALL_WAY_SIDE] = { 0.0f, 0.51f, 1.50f, 0.0f, -1.50f, -1.20f, 0.0f,
			    PROTECT_LEGS_SIT, R_PROTECT_LEGS_SIT,
			    1.50f, 0.0f, 1.50f, 1.20f, 0.0f, 0.0f, 0.0f },
};

/* Head and arms firm enough to reach their pose in time; legs softer. */
const float protect_stiffness[FALL_WAYS][NAOBODY_JOINTS] = {
	[FALL_WAY_FRONT] = { 0.8f, 0.8f, 1.0f, 1.0f, 1.0f, 1.0f, 0.3f,
			     0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f,
			     1.0f, 1.0f, 1.0f, 1.0f, 0.3f, 0.3f, 0.3f },
	[FALL_WAY_BACK] = { 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.3f,
			    0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f,
			    0.8f, 0.8f, 0.8f, 0.8f, 0.3f, 0.3f, 0.3f },
	[FALL_WAY_SIDE] = { 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.3f,
			    0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f,
			    0.8f, 0.8f, 0.8f, 0.8f, 0.3f, 0.3f, 0.3f },
};
