// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbmotion: the motions' key poses (poses.h), in a file of their own so
 * that what checks them (selftests/sim/model_test.c, on the physical NAO
 * model) uses the daemon's numbers, not a copy.
 */
#include <motion/poses.h>

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
 * numbers. Falling forwards, the arms reach ahead and a little out, the
 * elbows nearly straight, so the arms meet the floor before the face, and
 * the head tips back; the knees bend with the hips nearly straight.
 * Backwards, the chin goes to the chest and the body folds into the
 * crouch, so the seat lands first; the arms go down and back. Sideways,
 * the head tucks and the arms come in against the body. Hands closed.
 */
#define PROTECT_LEGS_BENT 0.0f, 0.0f, -0.40f, 1.60f, -0.80f, 0.0f
#define R_PROTECT_LEGS_BENT 0.0f, -0.40f, 1.60f, -0.80f, 0.0f
#define PROTECT_LEGS_SIT 0.0f, 0.0f, -0.86f, 2.10f, -1.18f, 0.0f
#define R_PROTECT_LEGS_SIT 0.0f, -0.86f, 2.10f, -1.18f, 0.0f
#define PROTECT_LEGS_FOLD 0.0f, 0.0f, -1.50f, 2.10f, -1.18f, 0.0f
#define R_PROTECT_LEGS_FOLD 0.0f, -1.50f, 2.10f, -1.18f, 0.0f
/* Backwards; the get-up from the back starts from it too (getup_back[]). */
#define PROTECT_BACK { 0.0f, 0.51f, 2.00f, 0.30f, -1.50f, -0.30f, 0.0f, \
		       PROTECT_LEGS_FOLD, R_PROTECT_LEGS_FOLD, \
		       2.00f, -0.30f, 1.50f, 0.30f, 0.0f, 0.0f, 0.0f }
const float protect_poses[FALL_WAYS][NAOBODY_JOINTS] = {
	[FALL_WAY_FRONT] = { 0.0f, -0.67f, 0.3f, 0.25f, -1.50f, -0.20f, 0.0f,
			     PROTECT_LEGS_BENT, R_PROTECT_LEGS_BENT,
			     0.3f, -0.25f, 1.50f, 0.20f, 0.0f, 0.0f, 0.0f },
	[FALL_WAY_BACK] = PROTECT_BACK,
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

/*
 * The get-ups (getup.c plays them; motion.c chains them), *provisional*:
 * chosen on the physical model, partly by a random search over these
 * keys run on it, never tried on a robot (Documentation/naobodyd.rst,
 * "Falls"). The model's shoulders (1.33 N m) cannot lift the torso, so the
 * legs and gravity do the lifting and the arms only prop and swing.
 *
 * A key of a get-up, symmetric: head yaw and pitch; the left arm's
 * shoulder pitch and roll, elbow yaw and roll, wrist yaw; hip yaw-pitch;
 * the left leg's hip roll and pitch, knee, ankle pitch and roll. The right
 * side mirrors the left; hands closed.
 */
#define GETUP_POSE(hy, hp, sp, sr, ey, er, wy, hyp, hr, hip, knee, ap, ar) \
	{ hy, hp, sp, sr, ey, er, wy, hyp, hr, hip, knee, ap, ar, \
	  -(hr), hip, knee, ap, -(ar), sp, -(sr), -(ey), -(er), -(wy), 0.0f, 0.0f }

/*
 * Face down. The first four keys make one start out of the many ways a
 * fall leaves the robot: the arms go limp so the torso lies flat on the
 * floor whatever is under it, sweep out along the floor (shoulder roll)
 * and down to the sides, bend, and set the forearms under the chest with
 * the head back. Then: the knees fold under the hips (k0); the legs open
 * into a frog, hips fully flexed, hands ahead (k1); the hips rise (a) into
 * a pike with the knees half straight (b); and the hips drop back between
 * the spread feet as the arms swing back (c): the body rolls back onto its
 * feet, a wide squat, upright. Held until still; motion.c then sits and
 * stands.
 *
 * The arms' two sweeps take 0.4 s each. At 0.6 s, on the bench's pushes
 * and two other sets of 20 each way: from the back 11 or 12 of 20 got up
 * at the first try, at 0.4 s 17 (from the front about the same), the
 * medians 0.4 to 1.2 s shorter. At 0.3 s the back's first tries fell to 7
 * to 13. Why 0.4 s suits the roll is not understood: chosen by trial.
 */
const struct getup_key getup_front[] = {
	/* the arms limp: the torso settles flat */
	{ GETUP_POSE(0.0f, 0.0f, 1.45f, 0.10f, -1.00f, -0.60f, 0.0f,
		     0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f),
	  0.5f, 1.5f, GETUP_STILL, GETUP_ARMS_LIMP },
	/* the arms out along the floor */
	{ GETUP_POSE(0.0f, 0.0f, 1.55f, 1.30f, -1.50f, -0.05f, 0.0f,
		     0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f),
	  0.4f, 0.0f, GETUP_AFTER, GETUP_STIFF },
	/* elbows bent, forearms turned in */
	{ GETUP_POSE(0.0f, 0.0f, 1.55f, 1.30f, -1.93f, -1.55f, -1.83f,
		     0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f),
	  0.4f, 0.0f, GETUP_AFTER, GETUP_STIFF },
	/* forearms under the chest, head back, knees bent */
	{ GETUP_POSE(0.0f, 0.52f, 1.39f, 0.80f, -1.93f, -1.55f, -1.83f,
		     0.0f, 0.0f, -0.36f, 1.58f, -0.85f, 0.0f),
	  0.8f, 0.5f, GETUP_AFTER, GETUP_STIFF },
	/* k0: the knees under the hips */
	{ GETUP_POSE(0.0f, 0.0f, 1.00f, 0.20f, -1.50f, -0.30f, -1.83f,
		     0.0f, 0.0f, 0.0f, 2.10f, -1.10f, 0.0f),
	  0.8f, 0.0f, GETUP_AFTER, GETUP_STIFF },
	/* k1: the frog, on the soles and the hands */
	{ GETUP_POSE(0.0f, -0.60f, 0.30f, 0.30f, -1.50f, -0.05f, -1.83f,
		     -0.70f, 0.79f, -1.54f, 2.10f, -1.18f, -0.39f),
	  1.5f, 0.0f, GETUP_AFTER, GETUP_STIFF },
	/* a: the hips rise */
	{ GETUP_POSE(0.0f, -0.265f, -0.168f, -0.022f, -1.50f, -0.475f, -1.83f,
		     -0.434f, 0.066f, -1.189f, 1.449f, -0.861f, -0.368f),
	  0.967f, 0.0f, GETUP_AFTER, GETUP_STIFF },
	/* b: the pike */
	{ GETUP_POSE(0.0f, -0.210f, 0.715f, 0.186f, -1.50f, -0.581f, -1.83f,
		     -0.961f, 0.487f, -1.435f, 1.137f, -0.438f, -0.257f),
	  1.2f, 0.0f, GETUP_AFTER, GETUP_STIFF },
	/* c: back onto the feet, the arms swinging back */
	{ GETUP_POSE(0.0f, -0.428f, 1.708f, -0.194f, -1.50f, -0.090f, -1.83f,
		     -0.305f, 0.790f, -1.102f, 1.442f, -0.080f, 0.237f),
	  1.114f, 1.0f, GETUP_STILL, GETUP_STIFF },
};
const int getup_front_keys = sizeof(getup_front) / sizeof(getup_front[0]);

/*
 * A roll key: the sit pose's ankles and wrists, elbows turned in; head yaw;
 * each shoulder's pitch and roll, elbow roll; hip yaw-pitch; each hip's
 * roll and pitch, knee.
 */
#define ROLL_POSE(hy, lsp, lsr, ler, rsp, rsr, rer, hyp, lhr, lhp, lkp, rhr, rhp, rkp) \
	{ hy, 0.0f, lsp, lsr, -1.50f, ler, 0.0f, hyp, lhr, lhp, lkp, -1.18f, 0.0f, \
	  rhr, rhp, rkp, -1.18f, 0.0f, rsp, rsr, 1.50f, rer, 0.0f, 0.0f, 0.0f }

/*
 * Face up: roll onto the front, then as from the front (motion.c goes on
 * when the pitch says face down). The backward protective pose first, so
 * a fall and a second try start alike; then the legs, arms and head swing
 * to one side in three keys: the torso's flat back resists a roll, the
 * legs' mass tips it over. Folded into the sit pose, lying still, it
 * starts the front's keys as a fallen robot would.
 */
const struct getup_key getup_back[] = {
	/* the backward protective pose, stiff */
	{ PROTECT_BACK, 0.6f, 1.0f, GETUP_STILL, GETUP_STIFF },
	/* the roll: legs, arms and head to one side, and back */
	{ ROLL_POSE(1.766f, 1.507f, 0.161f, -0.995f, 0.224f, -0.223f, 1.427f,
		    -0.115f, 0.248f, -0.067f, 1.397f, 0.012f, 0.361f, 1.983f),
	  0.738f, 0.0f, GETUP_AFTER, GETUP_STIFF },
	{ ROLL_POSE(-1.420f, -1.082f, 0.137f, -0.398f, 0.359f, -0.103f, 0.637f,
		    -0.301f, -0.259f, 0.191f, 1.828f, 0.341f, -0.127f, 1.545f),
	  0.953f, 0.0f, GETUP_AFTER, GETUP_STIFF },
	{ ROLL_POSE(0.428f, 0.550f, 1.064f, -0.310f, -1.232f, 0.222f, 1.133f,
		    -0.722f, 0.324f, -0.752f, 0.401f, -0.790f, 0.287f, 1.696f),
	  1.000f, 0.5f, GETUP_STILL, GETUP_STIFF },
	/* face down: folded into the sit pose until still */
	{ GETUP_POSE(0.0f, 0.0f, 1.45f, 0.10f, -1.00f, -0.60f, 0.0f,
		     0.0f, 0.0f, -0.86f, 2.10f, -1.18f, 0.0f),
	  1.0f, 3.0f, GETUP_STILL, GETUP_STIFF },
};
const int getup_back_keys = sizeof(getup_back) / sizeof(getup_back[0]);
