// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbmotion: the walking engine (see walk.h).
 *
 * A step lasts step_s. At its start the swing foot leaves the offset it
 * had (x, y, yaw from where it stands in the stand pose) and the support
 * foot, on the floor, starts moving back under the torso; at its end the
 * swing foot is down at its new offset and the roles change.
 *
 *   forward: swing to +D/2, support to -D/2 (D: the torso's way in a step)
 *   sideways and turning, the leading foot's step (left for left): swing
 *     to +d, support to -d; the other foot's step closes them to 0
 *
 * The support foot moves at a constant rate (the torso at constant speed
 * over it); the swing foot along a smooth half cosine, lifted on a full
 * one, landing as the step ends (wp.land_m). The torso sways towards the
 * support foot as a linear inverted pendulum of the walk's height would
 * between two changes of support.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <motion/joints.h>
#include <motion/leg_kinematics.h>
#include <motion/poses.h>
#include <motion/walk.h>

#define NJ NAOBODY_JOINTS
#define GRAVITY 9.81f

/*
 * Provisional: the gait's numbers, chosen on the physical model (make
 * check's walk_test holds them to its targets), none from a real NAO.
 */
static const struct walk_params {
	float step_s;		/* s, one step */
	float lift_m;		/* the swing foot's height */
	/*
	 * The swing foot's target ends this far above the floor: the support
	 * leg gives under the body's weight (its joints short of their
	 * targets by torque / kp: on the model the torso sinks 8 mm over a
	 * step), so a foot aimed at the floor met it five cycles early and
	 * was dragged along it for the rest of the step. It rises to this on
	 * a quarter sine over the step, besides the lift; the support leg
	 * takes the floor's height again at the change of support, at once
	 * (ramped over one or two cycles, the worst torque at Normal fell
	 * from 1.27 to 1.14 but rose at Fast from 1.37 to 1.41 and more).
	 * 3, 4 and 5 mm were tried, one walk at each speed: 4 asked the
	 * least torque at Fast (1.37; 3 mm 1.39, though 1.20 at Normal to
	 * 4's 1.27); 8 mm, the whole sag, asked 2.0 of the landing knee,
	 * its target dropping 8 mm at once. Off the floor now for 16 or 17
	 * of a step's 21 cycles (walk_test).
	 */
	float land_m;
	float sway;		/* the torso's sway, as a share of the pendulum's */
	float height_m;		/* the pendulum's: the centre of mass over the floor */
	float forward_m;	/* the torso's way in a step, at most */
	float backward_m;
	float side_m;		/* a sideways step opens the feet this much */
	float turn_rad;		/* a turning step opens them this much */
	float accel_m;		/* a step's length changes at most this much a step */
	float turn_from;	/* the feet turn from this far into a step to as far from its end */
	float gyro_pitch;	/* ankle pitch per rad/s of the torso's pitch rate */
	float gyro_roll;	/* ankle roll per rad/s of its roll rate */
	/*
	 * Turning on the spot, the torso creeps forward this far a radian
	 * (the support foot slips about the turn: the model's, measured); a
	 * step that turns takes the torso back by as much (turn_back()).
	 */
	float turn_creep;
	/*
	 * The odometry's scale: how far the torso goes for the way the
	 * support foot moves under it, forward, backward and sideways (a
	 * foot slips: the model's figures, as the RoboCup teams measure
	 * their robots' on the field). Backward at its full step, as WalkTo
	 * backs to a target behind: 1.5 m, 1.499 by the model for 1.501 by
	 * the odometry (at Slow's shorter steps the torso goes 6 % less).
	 */
	float odo_forward, odo_backward, odo_side;
} wp = {
	.step_s = 0.25f,
	.lift_m = 0.020f,
	.land_m = 0.004f,
	.sway = 1.0f,
	.height_m = 0.26f,
	.forward_m = 0.075f,
	.backward_m = 0.040f,
	.side_m = 0.040f,
	.turn_rad = 0.30f,
	.accel_m = 0.025f,
	.turn_from = 0.25f,
	.gyro_pitch = 0.05f,
	.gyro_roll = 0.05f,
	.turn_creep = 0.018f,
	.odo_forward = 1.09f,
	.odo_backward = 1.01f,
	.odo_side = 0.93f,
};

enum { OX, OY, OYAW };

struct walk {
	struct foot_pose nominal[2];	/* the stand pose's feet */
	float stand[NJ];
	float q[NJ];			/* the last solution */
	bool active, stopping;
	int support;			/* LEG_LEFT or LEG_RIGHT */
	float t;			/* s into the step */
	float from[2][3], to[2][3];	/* the feet's offsets, step start and end */
	float forward;			/* this step's D */
	/* The part of from's and to's x that is turn_back()'s, not the odometry's. */
	float back_from[2], back_to[2];
	float v[3];			/* wanted */
};

struct walk *walk_create(void)
{
	struct walk *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	memcpy(w->stand, motion_poses[POSE_STAND], sizeof(w->stand));
	leg_forward(LEG_LEFT, w->stand, &w->nominal[LEG_LEFT]);
	leg_forward(LEG_RIGHT, w->stand, &w->nominal[LEG_RIGHT]);
	memcpy(w->q, w->stand, sizeof(w->q));
	return w;
}

void walk_destroy(struct walk *w)
{
	free(w);
}

/* The stand pose's legs into pose. */
static void walk_stand_pose(const struct walk *w, float pose[NJ])
{
	memcpy(&pose[LEG_FIRST], &w->stand[LEG_FIRST], LEG_JOINTS * sizeof(float));
}

float walk_step_seconds(void)
{
	return wp.step_s;
}

float walk_yaw_rate(const float angles[2], const float gyro[3])
{
	/* The world's up in the torso's frame, as sim_physics.c's angles read it. */
	float cr = cosf(angles[0]), sr = sinf(angles[0]);
	float cp = cosf(angles[1]), sp = sinf(angles[1]);

	return -cr * sp * gyro[0] + sr * gyro[1] + cr * cp * gyro[2];
}

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void walk_start(struct walk *w)
{
	memset(w->from, 0, sizeof(w->from));
	memset(w->to, 0, sizeof(w->to));
	memset(w->back_from, 0, sizeof(w->back_from));
	memset(w->back_to, 0, sizeof(w->back_to));
	memcpy(w->q, w->stand, sizeof(w->q));
	w->forward = 0.0f;
	w->active = true;
	w->stopping = false;
	/*
	 * The first step is planned at once, swinging the foot that is the
	 * support now: the left leads a left turn or side step.
	 */
	w->support = w->v[1] > 0.0f || w->v[2] > 0.0f ? LEG_LEFT : LEG_RIGHT;
	w->t = wp.step_s;
}

void walk_set_velocity(struct walk *w, float vx, float vy, float vturn)
{
	w->v[0] = vx;
	w->v[1] = vy;
	w->v[2] = vturn;
}

void walk_stop(struct walk *w)
{
	w->stopping = true;
}

/*
 * A late cycle's catch, *provisional* (set on the physical model). While
 * the body loop stalled, the swing foot hung where it was and the torso
 * went on swaying, mostly towards the swing foot's side. The foot then
 * lands further out by the linear inverted pendulum's capture offset:
 * the centre of mass moves sideways at about its height times the roll
 * rate, and a pendulum moving at v is caught v / omega further on, so
 * height_m / omega metres per rad/s, up to CATCH_MAX_M. Only outwards (a
 * torso swaying over the support foot has that foot under it), and not
 * while the torso pitches faster than CATCH_PITCH_RATE: falling forwards,
 * the planned step ahead is the catch, and widening it made more falls.
 * Stalled 100 to 250 ms at 20 moments of two steps in five walks (forward
 * and turning, Normal and Fast, as nb-walk-bench's), 119 of 800 fell
 * without the catch, 57 with it, 82 with it at any pitch rate.
 */
#define CATCH_MAX_M		0.06f
#define CATCH_PITCH_RATE	0.6f	/* rad/s */

void walk_late(struct walk *w, const float gyro[3])
{
	float omega = sqrtf(GRAVITY / wp.height_m);
	int swing = 1 - w->support;
	/* The torso's roll rate: positive, rolling to its right (-y). */
	float off = -gyro[0] * wp.height_m / omega;

	walk_stop(w);
	if (!w->active || w->t >= wp.step_s || fabsf(gyro[1]) >= CATCH_PITCH_RATE)
		return;
	if ((swing == LEG_LEFT) != (off > 0.0f))
		return;
	w->to[swing][OY] += clampf(off, -CATCH_MAX_M, CATCH_MAX_M);
}

/*
 * Against the turn's creep, *provisional* (the model's): the step's turn
 * (the support foot's yaw under the torso changes by as much) takes the
 * torso back turn_creep a radian, as a backward step would: the support
 * foot moves forward under it to +c/2, the swing foot lands at -c/2.
 * Turning on the spot at Normal, 3 rad either way, the torso ended 4.4 and
 * 2.5 cm from where it started without it, 0.3 and 2.1 cm with it (1.5
 * rad: 3.9 and 2.6 cm, 1.5 and 0.6; nb-walk-bench). The odometry counts
 * none of it, as it counts none of the creep (support_place()). A step
 * that closes the feet to stop takes none, so that they close in it.
 */
static void turn_back(struct walk *w, int swing, int support, bool still)
{
	float c = still ? 0.0f :
		  wp.turn_creep * fabsf(w->to[support][OYAW] - w->from[support][OYAW]);

	memcpy(w->back_from, w->back_to, sizeof(w->back_from));
	w->back_to[swing] = -c / 2.0f;
	w->back_to[support] = c / 2.0f;
	w->to[swing][OX] += w->back_to[swing];
	w->to[support][OX] += w->back_to[support];
}

/* The next step, at a change of support. False: closed and nothing wanted. */
static bool plan(struct walk *w)
{
	int swing = w->support, support = 1 - w->support;
	bool still = w->stopping || (w->v[0] == 0.0f && w->v[1] == 0.0f && w->v[2] == 0.0f);
	float d = still ? 0.0f : clampf(w->v[0] * wp.step_s, -wp.backward_m, wp.forward_m);
	float side = still ? 0.0f : clampf(w->v[1] * wp.step_s, -wp.side_m, wp.side_m);
	float turn = still ? 0.0f : clampf(w->v[2] * wp.step_s, -wp.turn_rad, wp.turn_rad);
	bool closed = true;

	memcpy(w->from, w->to, sizeof(w->from));
	for (int f = 0; f < 2; f++)
		for (int k = 0; k < 3; k++)
			closed = closed && w->from[f][k] == 0.0f;
	if (still && closed)
		return false;

	/* Speeding up a step at a time; stopping at once: the feet close in this step. */
	w->forward = still ? 0.0f : clampf(d, w->forward - wp.accel_m, w->forward + wp.accel_m);
	w->to[swing][OX] = w->forward / 2.0f;
	w->to[support][OX] = -w->forward / 2.0f;
	/* The leading foot opens; the other closes. */
	if ((side > 0.0f) == (swing == LEG_LEFT) && side != 0.0f) {
		w->to[swing][OY] = side;
		w->to[support][OY] = -side;
	} else {
		w->to[swing][OY] = w->to[support][OY] = 0.0f;
	}
	if ((turn > 0.0f) == (swing == LEG_LEFT) && turn != 0.0f) {
		w->to[swing][OYAW] = turn;
		w->to[support][OYAW] = -turn;
	} else {
		w->to[swing][OYAW] = w->to[support][OYAW] = 0.0f;
	}
	turn_back(w, swing, support, still);
	w->support = support;
	w->t = 0.0f;
	return true;
}

/* A foot's offsets at u (0..1) into the step. */
static void offsets(const struct walk *w, int foot, float u, float o[3])
{
	float s = foot == w->support ? u : 0.5f - 0.5f * cosf((float)M_PI * u);

	for (int k = 0; k < 3; k++)
		o[k] = w->from[foot][k] + (w->to[foot][k] - w->from[foot][k]) * s;
	/*
	 * One motor turns both hips, so the feet's yaws are mirror images and
	 * turn together: while the swing foot is off the floor, else it drags.
	 */
	s = clampf((u - wp.turn_from) / (1.0f - 2.0f * wp.turn_from), 0.0f, 1.0f);
	o[OYAW] = w->from[foot][OYAW] + (w->to[foot][OYAW] - w->from[foot][OYAW]) *
		  s * s * (3.0f - 2.0f * s);
}

/* Where a foot is on the floor plane under the torso: x, y, yaw. */
static void foot_place(const struct walk *w, int foot, const float o[3], float p[3])
{
	float x = w->nominal[foot].x + o[OX], y = w->nominal[foot].y + o[OY];
	float c = cosf(o[OYAW]), s = sinf(o[OYAW]);

	/* A turned foot turns about the torso's vertical. */
	p[0] = c * x - s * y;
	p[1] = s * x + c * y;
	p[2] = w->nominal[foot].yaw + o[OYAW];
}

/* moved = moved then (a, the support before) undone by (b, after). */
static void accumulate(const struct walk *w, float moved[3], const float a[3], const float b[3])
{
	float da = a[2] - b[2];
	float c = cosf(da), s = sinf(da);
	/* The torso's motion in its old frame: a - R(a - b) b. */
	float x = a[0] - (c * b[0] - s * b[1]), y = a[1] - (s * b[0] + c * b[1]);
	float cm = cosf(moved[2]), sm = sinf(moved[2]);

	/*
	 * Scaled by the step's own direction, not each cycle's piece: a turn
	 * on the spot moves the torso to and fro within its steps, and those
	 * pieces must cancel.
	 */
	x *= w->forward > 0.0f ? wp.odo_forward : w->forward < 0.0f ? wp.odo_backward : 1.0f;
	y *= w->to[0][OY] != 0.0f || w->from[0][OY] != 0.0f ? wp.odo_side : 1.0f;
	moved[0] += cm * x - sm * y;
	moved[1] += sm * x + cm * y;
	moved[2] += da;
}

/* The support foot's place now, for the odometry: without turn_back()'s part. */
static void support_place(const struct walk *w, float p[3])
{
	int f = w->support;
	float o[3], u = w->t / wp.step_s;

	offsets(w, f, u, o);
	o[OX] -= w->back_from[f] + (w->back_to[f] - w->back_from[f]) * u;
	foot_place(w, f, o, p);
}

/*
 * The torso's sway towards the support foot, 0 at either end of the step:
 * a linear inverted pendulum over the support foot's centre p, crossing
 * the middle at each change of support, is at p (1 - cosh(w (t - T/2)) /
 * cosh(w T / 2)); with the feet 10 cm apart and 0.25 s steps its widest
 * is 11.5 mm.
 */
static float sway(const struct walk *w, float u)
{
	float omega = sqrtf(GRAVITY / wp.height_m), half = omega * wp.step_s / 2.0f;
	float p = w->nominal[w->support].y;

	return wp.sway * p * (1.0f - coshf(half * (2.0f * u - 1.0f)) / coshf(half));
}

bool walk_update(struct walk *w, float dt, const float gyro[3], float q[NJ], float moved[3])
{
	struct foot_pose want[2];
	float u, y_sway;

	moved[0] = moved[1] = moved[2] = 0.0f;
	if (!w->active) {
		walk_stand_pose(w, q);
		return false;
	}
	while (w->active) {
		float a[3], b[3], h;

		if (w->t >= wp.step_s && !plan(w)) {
			w->active = false;
			break;
		}
		h = fminf(dt, wp.step_s - w->t);
		support_place(w, a);
		w->t += h;
		support_place(w, b);
		accumulate(w, moved, a, b);
		dt -= h;
		if (dt <= 0.0f)
			break;
	}
	if (!w->active) {
		walk_stand_pose(w, q);
		memcpy(w->q, w->stand, sizeof(w->q));
		return false;
	}

	u = w->t / wp.step_s;
	y_sway = sway(w, u);
	for (int f = 0; f < 2; f++) {
		float o[3], p[3];

		offsets(w, f, u, o);
		foot_place(w, f, o, p);
		want[f].x = p[0];
		want[f].y = p[1] - y_sway;
		want[f].z = w->nominal[f].z;
		want[f].yaw = p[2];
		if (f != w->support)
			want[f].z += wp.lift_m * (0.5f - 0.5f * cosf(2.0f * (float)M_PI * u)) +
				     wp.land_m * sinf((float)M_PI / 2.0f * u);
	}
	leg_ik(want, w->q);
	memcpy(&q[LEG_FIRST], &w->q[LEG_FIRST], LEG_JOINTS * sizeof(float));
	/* Balance: the support ankle leans against the torso's rotation. */
	if (gyro) {
		int ap = w->support == LEG_LEFT ? NAOBODY_L_ANKLE_PITCH : NAOBODY_R_ANKLE_PITCH;
		int ar = w->support == LEG_LEFT ? NAOBODY_L_ANKLE_ROLL : NAOBODY_R_ANKLE_ROLL;

		q[ap] = joint_clamp(ap, q[ap] + wp.gyro_pitch * gyro[1]);
		q[ar] = joint_clamp(ar, q[ar] + wp.gyro_roll * gyro[0]);
	}
	return true;
}
