// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbphysics: the physical NAO (see <physics/sim_physics.h>).
 *
 * The drive is the NAO's boards': each motor holds a position target, and
 * its stiffness (0..1) scales the torque the motor may give,
 *
 *     torque = stiffness * clamp(kp * (target - q) - kd * qdot, +-max)
 *
 * so stiffness 0 is limp (no torque at all: only the gearbox's damping and
 * friction, which are the model's). max is the published maximum torque,
 * the model's actuator forcerange; kp is the model's position gain (its
 * <position kp>); kd is ours (drive_gain[] below). MuJoCo applies the
 * torque through the model's actuators, made plain motors at load: their
 * own position servo would not be scaled by stiffness.
 *
 * The sensors are read from the physics the way the robot's are made: the
 * inertial unit at the model's "imu" site, the feet's pressure sensors from
 * the soles' contact forces, the motor currents from the motor torques, the
 * sonars from rays cast across their cones at the model's obstacles, the
 * feet's bumpers and the hands' pads from where things touch them.
 *
 * MuJoCo is called through mj, the table sim_physics_dl.c loads at run
 * time: no program is linked with it (sim_physics_dl.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <motion/joints.h>
#include <physics/sim_physics.h>

#include "sim_physics_dl.h"

#define NJ		NAOBODY_JOINTS
#define SETTLE_S	1.5	/* held in the start pose, at creation */
#define LAY_SETTLE_S	4.0	/* then limp, when it starts lying */
#define GRAVITY		9.81

/* The arms' shapes, whose touching the floor the protective fall wants. */
static const char *const arm_geom_name[] = {
	"LUpperArm", "LForeArm", "LHand", "RUpperArm", "RForeArm", "RHand",
};
#define ARM_GEOMS	(int)(sizeof(arm_geom_name) / sizeof(arm_geom_name[0]))

/* MuJoCo's functions, set by the first sim_physics_create(). */
static const struct mujoco *mj;

/*
 * Provisional: the motors' derivative gains (N m s/rad), which Aldebaran
 * does not publish. Chosen near critical damping of kp with each joint's
 * reflected rotor inertia (the model's armature) and its link, so a step
 * of target settles without ringing. By the model's joint classes: legs,
 * arms and head, wrists and hands.
 */
static const struct { double legs, arms, hands; } drive_gain = {
	.legs = 0.15, .arms = 0.03, .hands = 0.005,
};

/*
 * Provisional: the motors' torque constant (N m/A at the rotor), for the
 * currents: Aldebaran publishes the motors' types, not their constants.
 * Of the order of a 17 to 22 mm brushed DC motor's; one for all joints,
 * no gearbox losses. A joint's current is |torque| / (this * reduction).
 */
#define TORQUE_CONSTANT	0.01

/*
 * Provisional: where the eight pressure sensors sit under each foot, in the
 * foot's frame (m, x forward, y left), as read from Aldebaran's FSR page
 * (doc.aldebaran.com/2-8/family/nao_technical/fsr_naov6.html), rounded to a
 * rectangle per foot: the front pair at x 0.07025, the rear pair at -0.030.
 * A foot's normal force is shared between its four by where it acts.
 */
static const struct { float front, rear, left, right; } fsr_rect[2] = {
	{ 0.07025f, -0.030f, 0.0299f, -0.0231f },	/* left foot */
	{ 0.07025f, -0.030f, 0.0231f, -0.0299f },	/* right foot */
};

/*
 * The sonars: each a cone 60 degrees wide about its site's z axis (the
 * model's LSonar and RSonar, Aldebaran's sonar page), sampled by rays in
 * three rows, the axis's and 20 degrees either side of it, 5 degrees apart
 * across each row within the cone. 5 degrees: the model's post (0.20 m
 * across) still falls between two rays no further than 2.3 m away, near
 * the sonars' reach. Provisional: a real sonar hears the first echo loud
 * enough, which a smooth surface seen askew may never send back; the rays
 * see every surface.
 */
#define SONAR_HALF_DEG	30
#define SONAR_STEP_DEG	5
#define SONAR_ROW_DEG	20
/* The geom group the sonars see: the model's obstacles. */
#define ECHO_GROUP	3
#define MAX_ECHOES	8

/*
 * The feet's bumpers and the hands' pads, from the sensor frames of
 * Aldebaran's generated NAO model (ros-naoqi/nao_robot,
 * naoV50_generated_urdf/nao_sensors.xacro; nao6-model.rst's [7]): the
 * bumpers at the toes, x 0.0876 m in the foot's frame, one each side of
 * y 0.0025 (left foot; -0.0025 right); a contact ahead of the front
 * pressure sensors (x 0.07) with anything but the floor presses the one on
 * its side. Provisional: the real bumper is a lever across the toe, which
 * the floor does not press; here the floor never does.
 */
#define BUMPER_X	0.07
#define BUMPER_MID_Y	0.0025

/* LoLA's touch bits each foot's and hand's sensors set (enum naobody_touch). */
static const int bumper_bit[2][2] = {	/* [foot][left, right] */
	{ NAOBODY_TOUCH_L_FOOT_LEFT, NAOBODY_TOUCH_L_FOOT_RIGHT },
	{ NAOBODY_TOUCH_R_FOOT_LEFT, NAOBODY_TOUCH_R_FOOT_RIGHT },
};

static const int pad_bit[2][3] = {	/* [hand][back, left, right] */
	{ NAOBODY_TOUCH_L_HAND_BACK, NAOBODY_TOUCH_L_HAND_LEFT, NAOBODY_TOUCH_L_HAND_RIGHT },
	{ NAOBODY_TOUCH_R_HAND_BACK, NAOBODY_TOUCH_R_HAND_LEFT, NAOBODY_TOUCH_R_HAND_RIGHT },
};

struct sim_physics {
	mjModel *m;
	mjData *d;
	int act[NJ];		/* LoLA's joint -> the model's actuator */
	int qpos[NJ], dof[NJ];	/* its joint's qpos and dof addresses */
	double kp[NJ], kd[NJ], max[NJ];
	double reduction[NJ];	/* the model's actuator user[0] */
	int torso, imu, foot_body[2], sole_geom[2], sole_site[2];
	int head_body, head_geom, floor_geom, arm_geom[ARM_GEOMS];
	int sonar_site[2], hand_geom[2];
	int echo_geom[MAX_ECHOES], echoes;	/* the shapes in ECHO_GROUP */
	int obstacle_mocap;	/* the "obstacle" body's mocap index; -1: none */
	double obstacle_parked[3];	/* where the model puts it */
	double start[3];	/* the torso at creation: x, y, yaw */
	uint32_t touched;	/* touch bits set by the steps since the last sense */
	bool head_on_floor;	/* in the last step */
	float head_speed_before;	/* the head's speed before the last step, m/s */
	struct sim_physics_impact impact;
	double push[2];
	int push_steps;
	bool held;		/* lifted by the torso (sim_physics_hold) */
	double hold_at[3];
	float worst_given, worst_asked;
	int worst_given_joint, worst_asked_joint;	/* LoLA's, -1: none yet */
	double load_sum;	/* each step's most loaded motor's asked share, */
	double load_joint[NJ];	/* each motor's own, summed ... */
	long load_steps;	/* ... over this many steps, since the reset */
	double behind;		/* the time the model has still to run, s */
};

static void drive(struct sim_physics *p, const float target[NJ], const float stiffness[NJ])
{
	mjData *d = p->d;
	double load = 0.0;

	for (int j = 0; j < NJ; j++) {
		double err = target[j] - d->qpos[p->qpos[j]];
		double asked = p->kp[j] * err - p->kd[j] * d->qvel[p->dof[j]];
		double k = fmin(fmax(stiffness[j], 0.0), 1.0);
		double given = k * fmin(fmax(asked, -p->max[j]), p->max[j]);
		/* Shares of the motor's maximum: given, and asked at its stiffness. */
		double gave = fabs(given) / p->max[j], share = k * fabs(asked) / p->max[j];

		d->ctrl[p->act[j]] = given;
		if (gave > p->worst_given) {
			p->worst_given = (float)gave;
			p->worst_given_joint = j;
		}
		if (share > p->worst_asked) {
			p->worst_asked = (float)share;
			p->worst_asked_joint = j;
		}
		load = fmax(load, share);
		p->load_joint[j] += share;
	}
	p->load_sum += load;
	p->load_steps++;
}

/*
 * A hand holding the torso: a stiff, damped spring to where it was lifted
 * to and to upright, carrying the whole robot's weight. Provisional gains,
 * stiff enough that the robot hangs within millimetres.
 */
#define HOLD_KP		3000.0	/* N/m */
#define HOLD_KD		150.0	/* N s/m */
#define HOLD_KR		60.0	/* N m/rad */
#define HOLD_KDR	4.0	/* N m s/rad */

static void hold(struct sim_physics *p, double *f)
{
	const double *x = &p->d->xpos[3 * p->torso];
	const double *r = &p->d->xmat[9 * p->torso];
	mjtNum v[6];

	mj->mj_objectVelocity(p->m, p->d, mjOBJ_BODY, p->torso, v, 0);
	for (int i = 0; i < 3; i++)
		f[i] += HOLD_KP * (p->hold_at[i] - x[i]) - HOLD_KD * v[3 + i];
	f[2] += mj->mj_getTotalmass(p->m) * -p->m->opt.gravity[2];
	/* Towards upright: the torso's z axis (r's last column) onto the world's. */
	f[3] += HOLD_KR * r[5] - HOLD_KDR * v[0];
	f[4] += -HOLD_KR * r[2] - HOLD_KDR * v[1];
	f[5] += -HOLD_KDR * v[2];
}

/* Near enough the floor to touch it within a step or two. */
#define HEAD_NEAR_M	0.05

/* The head's speed while it is near the floor: what a touch begins at. */
static void head_before(struct sim_physics *p)
{
	const mjData *d = p->d;
	mjtNum v[6];

	if (d->geom_xpos[3 * p->head_geom + 2] - p->m->geom_rbound[p->head_geom] > HEAD_NEAR_M) {
		p->head_speed_before = 0.0f;
		return;
	}
	mj->mj_objectVelocity(p->m, d, mjOBJ_BODY, p->head_body, v, 0);
	p->head_speed_before = (float)sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
}

/* What a contact with the floor touches: its other geom, or -1. */
static int on_floor(const struct sim_physics *p, const mjContact *con)
{
	if (con->geom1 == p->floor_geom)
		return con->geom2;
	if (con->geom2 == p->floor_geom)
		return con->geom1;
	return -1;
}

static void head_after(struct sim_physics *p)
{
	const mjData *d = p->d;
	bool on = false;

	for (int c = 0; c < d->ncon; c++) {
		int g = on_floor(p, &d->contact[c]);

		if (g < 0)
			continue;
		if (g == p->head_geom)
			on = true;
		for (int a = 0; a < ARM_GEOMS; a++)
			if (g == p->arm_geom[a])
				p->impact.arm_touched = true;
	}
	if (on && !p->head_on_floor) {
		if (!p->impact.head_touched)
			p->impact.arm_before_head = p->impact.arm_touched;
		p->impact.head_touched = true;
		p->impact.head_speed = fmaxf(p->impact.head_speed, p->head_speed_before);
	}
	p->head_on_floor = on;
}

/* pos in body b's frame. */
static void body_local(const struct sim_physics *p, int b, const double *pos, double out[3])
{
	const double *x = &p->d->xpos[3 * b];
	const double *r = &p->d->xmat[9 * b];
	double v[3] = { pos[0] - x[0], pos[1] - x[1], pos[2] - x[2] };

	for (int i = 0; i < 3; i++)
		out[i] = r[i] * v[0] + r[3 + i] * v[1] + r[6 + i] * v[2];
}

/*
 * A hand's pad a contact presses: the back (the hand's +z, where the
 * generated model's HandTouchBack frame is), the left (+y) or the right
 * (-y) side, by which way the contact lies from the hand's axis; the palm
 * (-z) has no pad. Provisional: the pads' extent is not published.
 */
static int hand_pad(const struct sim_physics *p, int hand, const double *pos)
{
	double l[3];

	body_local(p, p->m->geom_bodyid[p->hand_geom[hand]], pos, l);
	if (l[2] >= fabs(l[1]))
		return 0;
	if (-l[2] >= fabs(l[1]))
		return -1;
	return l[1] > 0.0 ? 1 : 2;
}

/*
 * The touches this step's contacts make: a sole's front against anything
 * but the floor (its bumper on that side), a hand against anything.
 */
static void touches(struct sim_physics *p)
{
	const mjData *d = p->d;

	for (int c = 0; c < d->ncon; c++) {
		const mjContact *con = &d->contact[c];
		double l[3];

		for (int i = 0; i < 2; i++) {
			int other = con->geom1 == p->sole_geom[i] ? con->geom2 :
				    con->geom2 == p->sole_geom[i] ? con->geom1 : -1;
			int pad;

			if (other >= 0 && other != p->floor_geom) {
				body_local(p, p->foot_body[i], con->pos, l);
				if (l[0] >= BUMPER_X) {
					double mid = i ? -BUMPER_MID_Y : BUMPER_MID_Y;

					p->touched |= 1U << bumper_bit[i][l[1] >= mid ? 0 : 1];
				}
			}
			if (con->geom1 != p->hand_geom[i] && con->geom2 != p->hand_geom[i])
				continue;
			pad = hand_pad(p, i, con->pos);
			if (pad >= 0)
				p->touched |= 1U << pad_bit[i][pad];
		}
	}
}

static void step(struct sim_physics *p, const float target[NJ], const float stiffness[NJ])
{
	double *f = &p->d->xfrc_applied[6 * p->torso];

	memset(f, 0, 6 * sizeof(*f));
	if (p->push_steps > 0) {
		f[0] = p->push[0];
		f[1] = p->push[1];
		p->push_steps--;
	}
	if (p->held)
		hold(p, f);
	drive(p, target, stiffness);
	head_before(p);
	mj->mj_step(p->m, p->d);
	head_after(p);
	touches(p);
}

/*
 * The model runs the time that passed, not one cycle's 12 ms a call: the
 * motions move their targets by the frames' clock, so a cycle that comes
 * late (a loaded machine) must not leave the model behind its targets,
 * asking its motors for torques a real body on time would never need.
 */
void sim_physics_cycle(struct sim_physics *p, float seconds, const float target[NJ],
		       const float stiffness[NJ])
{
	double dt = p->m->opt.timestep;
	float t[NJ];

	for (int j = 0; j < NJ; j++)
		t[j] = joint_clamp(j, target[j]);
	for (p->behind += seconds; p->behind >= dt / 2; p->behind -= dt)
		step(p, t, stiffness);
}

/* Share a foot's normal force between its four sensors by where it acts. */
static void foot_pressure(const struct sim_physics *p, int foot, const double *pos,
			  double force, float *fsr)
{
	const double *x = &p->d->xpos[3 * p->foot_body[foot]];
	const double *r = &p->d->xmat[9 * p->foot_body[foot]];
	double v[3] = { pos[0] - x[0], pos[1] - x[1], pos[2] - x[2] };
	/* In the foot's frame: R^T v. */
	double lx = r[0] * v[0] + r[3] * v[1] + r[6] * v[2];
	double ly = r[1] * v[0] + r[4] * v[1] + r[7] * v[2];
	double wf = (lx - fsr_rect[foot].rear) / (fsr_rect[foot].front - fsr_rect[foot].rear);
	double wl = (ly - fsr_rect[foot].right) / (fsr_rect[foot].left - fsr_rect[foot].right);
	double kg = force / GRAVITY;

	wf = fmin(fmax(wf, 0.0), 1.0);
	wl = fmin(fmax(wl, 0.0), 1.0);
	fsr[NAOBODY_FSR_FRONT_LEFT] += (float)(kg * wf * wl);
	fsr[NAOBODY_FSR_FRONT_RIGHT] += (float)(kg * wf * (1.0 - wl));
	fsr[NAOBODY_FSR_REAR_LEFT] += (float)(kg * (1.0 - wf) * wl);
	fsr[NAOBODY_FSR_REAR_RIGHT] += (float)(kg * (1.0 - wf) * (1.0 - wl));
}

/*
 * The nearest echo within a sonar's cone (m, from its site), clamped to the
 * sonar's range; SIM_SONAR_NOTHING when nothing is in range. Each ray is
 * met with the obstacles' shapes only (mju_rayGeom): mj_ray() would filter
 * by group but always sees planes, and the floor is no echo. No ray is
 * cast while no obstacle's bounding sphere comes within reach: the
 * obstacle is mostly parked, and then a sonar costs a few distances.
 */
static float sonar(const struct sim_physics *p, int i)
{
	const mjModel *m = p->m;
	const mjData *d = p->d;
	const double *at = &d->site_xpos[3 * p->sonar_site[i]];
	const double *r = &d->site_xmat[9 * p->sonar_site[i]];
	const double *t = &d->xmat[9 * p->torso];
	double axis[3] = { r[2], r[5], r[8] }, up[3] = { t[2], t[5], t[8] };
	double across[3], over[3], len, nearest = INFINITY;
	bool near = false;

	for (int e = 0; e < p->echoes; e++) {
		const double *g = &d->geom_xpos[3 * p->echo_geom[e]];
		double dist = hypot(hypot(g[0] - at[0], g[1] - at[1]), g[2] - at[2]);

		if (dist - m->geom_rbound[p->echo_geom[e]] <= SIM_SONAR_NOTHING)
			near = true;
	}
	if (!near)
		return SIM_SONAR_NOTHING;
	/*
	 * The rows level in the torso's frame: across is the torso's up
	 * crossed with the axis (to the left), over the axis crossed with it.
	 */
	across[0] = up[1] * axis[2] - up[2] * axis[1];
	across[1] = up[2] * axis[0] - up[0] * axis[2];
	across[2] = up[0] * axis[1] - up[1] * axis[0];
	len = sqrt(across[0] * across[0] + across[1] * across[1] + across[2] * across[2]);
	for (int k = 0; k < 3; k++)
		across[k] /= len;
	over[0] = axis[1] * across[2] - axis[2] * across[1];
	over[1] = axis[2] * across[0] - axis[0] * across[2];
	over[2] = axis[0] * across[1] - axis[1] * across[0];
	for (int row = -SONAR_ROW_DEG; row <= SONAR_ROW_DEG; row += SONAR_ROW_DEG) {
		for (int az = -SONAR_HALF_DEG; az <= SONAR_HALF_DEG; az += SONAR_STEP_DEG) {
			double a = az * M_PI / 180.0, b = row * M_PI / 180.0;
			double along = cos(b) * cos(a), v[3], hit;

			/* Within the cone: the ray's angle from the axis at most its half. */
			if (along < cos(SONAR_HALF_DEG * M_PI / 180.0) - 1e-9)
				continue;
			for (int k = 0; k < 3; k++)
				v[k] = along * axis[k] + cos(b) * sin(a) * across[k] +
				       sin(b) * over[k];
			for (int e = 0; e < p->echoes; e++) {
				int g = p->echo_geom[e];

				hit = mj->mju_rayGeom(&d->geom_xpos[3 * g], &d->geom_xmat[9 * g],
						      &m->geom_size[3 * g], at, v, m->geom_type[g]);
				if (hit >= 0.0 && hit < nearest)
					nearest = hit;
			}
		}
	}
	if (!(nearest <= SIM_SONAR_NOTHING))
		return SIM_SONAR_NOTHING;
	return (float)fmax(nearest, SIM_SONAR_MIN);
}

void sim_physics_sense(struct sim_physics *p, struct sim_physics_sense *o)
{
	const mjModel *m = p->m;
	mjData *d = p->d;
	const double *r = &d->xmat[9 * p->torso];
	mjtNum vel[6], acc[6];

	/* The accelerations of the state the steps left (mj_step stops short). */
	mj->mj_forward(p->m, d);
	mj->mj_rnePostConstraint(p->m, d);
	memset(o, 0, sizeof(*o));
	for (int j = 0; j < NJ; j++) {
		o->position[j] = (float)d->qpos[p->qpos[j]];
		o->torque[j] = (float)d->actuator_force[p->act[j]];
		o->current[j] = (float)(fabs(d->actuator_force[p->act[j]]) /
					(TORQUE_CONSTANT * p->reduction[j]));
	}
	/*
	 * MuJoCo gives the specific force (+g up when at rest); the NAO's
	 * accelerometer reads its opposite (-9.81 on z upright, LoLA's sign).
	 */
	mj->mj_objectAcceleration(p->m, d, mjOBJ_SITE, p->imu, acc, 1);
	mj->mj_objectVelocity(p->m, d, mjOBJ_SITE, p->imu, vel, 1);
	for (int i = 0; i < 3; i++) {
		o->accelerometer[i] = (float)-acc[3 + i];
		o->gyroscope[i] = (float)vel[i];
	}
	/*
	 * The world's up in the torso's frame (the last row of its rotation):
	 * pitch over its whole range (a robot lying on its back reads about
	 * -pi/2, not roll pi), roll within +-pi/2.
	 */
	o->angles[0] = (float)atan2(r[7], hypot(r[6], r[8]));
	o->angles[1] = (float)atan2(-r[6], r[8]);
	o->torso_height = (float)d->xpos[3 * p->torso + 2];

	for (int c = 0; c < d->ncon; c++) {
		const mjContact *con = &d->contact[c];
		mjtNum f[6];

		for (int foot = 0; foot < 2; foot++) {
			if (con->geom1 != p->sole_geom[foot] && con->geom2 != p->sole_geom[foot])
				continue;
			mj->mj_contactForce(m, d, c, f);
			foot_pressure(p, foot, con->pos, f[0],
				      &o->fsr[foot ? NAOBODY_FSR_RIGHT_FOOT : 0]);
		}
	}
	/* Once a cycle, not a step: the sonars' cost is the rays. */
	o->sonar[0] = sonar(p, 0);
	o->sonar[1] = sonar(p, 1);
	o->touch = p->touched;
	p->touched = 0;
}

void sim_physics_obstacle(struct sim_physics *p, bool on, float x, float y)
{
	double c = cos(p->start[2]), s = sin(p->start[2]);
	double *at;

	if (p->obstacle_mocap < 0)
		return;
	at = &p->d->mocap_pos[3 * p->obstacle_mocap];
	if (!on) {
		memcpy(at, p->obstacle_parked, sizeof(p->obstacle_parked));
	} else {
		at[0] = p->start[0] + c * x - s * y;
		at[1] = p->start[1] + s * x + c * y;
		at[2] = 0.0;
	}
	/* Where the sonars and the next step see it. */
	mj->mj_kinematics(p->m, p->d);
}

void sim_physics_push(struct sim_physics *p, float fx, float fy, float seconds)
{
	p->push[0] = fx;
	p->push[1] = fy;
	p->push_steps = (int)(seconds / p->m->opt.timestep + 0.5);
}

void sim_physics_hold(struct sim_physics *p, bool on, float height)
{
	const double *x = &p->d->xpos[3 * p->torso];

	p->held = on;
	p->hold_at[0] = x[0];
	p->hold_at[1] = x[1];
	p->hold_at[2] = x[2] + height;
}

void sim_physics_torque_ratio(const struct sim_physics *p, struct sim_physics_worst *w)
{
	double best = 0.0;

	w->given = p->worst_given;
	w->asked = p->worst_asked;
	w->given_joint = p->worst_given_joint;
	w->asked_joint = p->worst_asked_joint;
	w->mean_asked = p->load_steps ? (float)(p->load_sum / p->load_steps) : 0.0f;
	w->motor_mean_joint = -1;
	for (int j = 0; p->load_steps && j < NJ; j++) {
		if (p->load_joint[j] / p->load_steps > best) {
			best = p->load_joint[j] / p->load_steps;
			w->motor_mean_joint = j;
		}
	}
	w->motor_mean = (float)best;
}

void sim_physics_torque_reset(struct sim_physics *p)
{
	p->worst_given = p->worst_asked = 0.0f;
	p->worst_given_joint = p->worst_asked_joint = -1;
	p->load_sum = 0.0;
	memset(p->load_joint, 0, sizeof(p->load_joint));
	p->load_steps = 0;
}

void sim_physics_impact(const struct sim_physics *p, struct sim_physics_impact *out)
{
	*out = p->impact;
}

void sim_physics_impact_reset(struct sim_physics *p)
{
	memset(&p->impact, 0, sizeof(p->impact));
}

void sim_physics_friction(struct sim_physics *p, float sliding)
{
	for (int g = 0; g < p->m->ngeom; g++)
		p->m->geom_friction[3 * g] = sliding;
}

float sim_physics_mass(const struct sim_physics *p)
{
	return (float)mj->mj_getTotalmass(p->m);
}

void sim_physics_torso(const struct sim_physics *p, float out[4])
{
	const double *x = &p->d->xpos[3 * p->torso];
	const double *r = &p->d->xmat[9 * p->torso];

	for (int i = 0; i < 3; i++)
		out[i] = (float)x[i];
	out[3] = (float)atan2(r[3], r[0]);
}

void sim_physics_sole(const struct sim_physics *p, int foot, float out[4])
{
	const double *x = &p->d->xpos[3 * p->torso];
	const double *r = &p->d->xmat[9 * p->torso];
	const double *sx = &p->d->site_xpos[3 * p->sole_site[foot]];
	const double *sr = &p->d->site_xmat[9 * p->sole_site[foot]];
	double v[3] = { sx[0] - x[0], sx[1] - x[1], sx[2] - x[2] };
	/* The sole's x axis in the torso's frame: R^T times its first column. */
	double ax = r[0] * sr[0] + r[3] * sr[3] + r[6] * sr[6];
	double ay = r[1] * sr[0] + r[4] * sr[3] + r[7] * sr[6];

	for (int i = 0; i < 3; i++)
		out[i] = (float)(r[i] * v[0] + r[3 + i] * v[1] + r[6 + i] * v[2]);
	out[3] = (float)atan2(ay, ax);
}

void sim_physics_sole_world(const struct sim_physics *p, int foot, float out[3])
{
	const double *sx = &p->d->site_xpos[3 * p->sole_site[foot]];

	for (int i = 0; i < 3; i++)
		out[i] = (float)sx[i];
}

/* The model's names and actuators, or an error: the model is not the NAO's. */
static int bind(struct sim_physics *p, char *err, size_t n)
{
	mjModel *m = p->m;
	static const char *const feet[2] = { "LFoot", "RFoot" };
	static const char *const soles[2] = { "LSole", "RSole" };
	static const char *const sonars[2] = { "LSonar", "RSonar" };
	static const char *const hands[2] = { "LHand", "RHand" };
	int b;

	p->torso = mj->mj_name2id(m, mjOBJ_BODY, "torso");
	p->imu = mj->mj_name2id(m, mjOBJ_SITE, "imu");
	p->head_body = mj->mj_name2id(m, mjOBJ_BODY, "Head");
	p->head_geom = mj->mj_name2id(m, mjOBJ_GEOM, "head");
	p->floor_geom = mj->mj_name2id(m, mjOBJ_GEOM, "floor");
	if (p->torso < 0 || p->imu < 0 || m->nu < NJ) {
		snprintf(err, n, "no torso body, imu site or 25 actuators");
		return -1;
	}
	if (p->head_body < 0 || p->head_geom < 0 || p->floor_geom < 0) {
		snprintf(err, n, "no Head body, head geom or floor geom");
		return -1;
	}
	for (int a = 0; a < ARM_GEOMS; a++) {
		p->arm_geom[a] = mj->mj_name2id(m, mjOBJ_GEOM, arm_geom_name[a]);
		if (p->arm_geom[a] < 0) {
			snprintf(err, n, "no %s geom", arm_geom_name[a]);
			return -1;
		}
	}
	for (int i = 0; i < 2; i++) {
		p->sonar_site[i] = mj->mj_name2id(m, mjOBJ_SITE, sonars[i]);
		p->hand_geom[i] = mj->mj_name2id(m, mjOBJ_GEOM, hands[i]);
		if (p->sonar_site[i] < 0) {
			snprintf(err, n, "no %s site", sonars[i]);
			return -1;
		}
	}
	p->echoes = 0;
	for (int g = 0; g < m->ngeom; g++) {
		if (m->geom_group[g] != ECHO_GROUP)
			continue;
		if (m->geom_type[g] == mjGEOM_PLANE || m->geom_type[g] == mjGEOM_HFIELD ||
		    m->geom_type[g] == mjGEOM_MESH) {
			snprintf(err, n, "an obstacle (geom group %d) not a primitive shape",
				 ECHO_GROUP);
			return -1;
		}
		if (p->echoes == MAX_ECHOES) {
			snprintf(err, n, "more than %d shapes in geom group %d (obstacles)",
				 MAX_ECHOES, ECHO_GROUP);
			return -1;
		}
		p->echo_geom[p->echoes++] = g;
	}
	/* Optional: a model without one has nothing to place. */
	p->obstacle_mocap = -1;
	b = mj->mj_name2id(m, mjOBJ_BODY, "obstacle");
	if (b >= 0 && m->body_mocapid[b] >= 0) {
		p->obstacle_mocap = m->body_mocapid[b];
		memcpy(p->obstacle_parked, &m->body_pos[3 * b], sizeof(p->obstacle_parked));
	}
	for (int foot = 0; foot < 2; foot++) {
		p->foot_body[foot] = mj->mj_name2id(m, mjOBJ_BODY, feet[foot]);
		p->sole_geom[foot] = mj->mj_name2id(m, mjOBJ_GEOM, soles[foot]);
		p->sole_site[foot] = mj->mj_name2id(m, mjOBJ_SITE, soles[foot]);
		if (p->foot_body[foot] < 0 || p->sole_geom[foot] < 0 || p->sole_site[foot] < 0) {
			snprintf(err, n, "no %s body or %s geom and site", feet[foot], soles[foot]);
			return -1;
		}
	}
	for (int j = 0; j < NJ; j++) {
		int a = mj->mj_name2id(m, mjOBJ_ACTUATOR, joint_name[j]), jnt;

		if (a < 0 || m->actuator_trntype[a] != mjTRN_JOINT) {
			snprintf(err, n, "no actuator on joint %s", joint_name[j]);
			return -1;
		}
		jnt = m->actuator_trnid[2 * a];
		p->act[j] = a;
		p->qpos[j] = m->jnt_qposadr[jnt];
		p->dof[j] = m->jnt_dofadr[jnt];
		p->kp[j] = m->actuator_gainprm[a * mjNGAIN];
		p->max[j] = m->actuator_forcerange[2 * a + 1];
		p->reduction[j] = m->nuser_actuator >= 1 ?
				  m->actuator_user[a * m->nuser_actuator] : 0.0;
		if (!(p->kp[j] > 0.0) || !(p->max[j] > 0.0) || !(p->reduction[j] > 0.0)) {
			snprintf(err, n, "actuator %s: no position gain, torque limit or reduction",
				 joint_name[j]);
			return -1;
		}
		p->kd[j] = j == NAOBODY_L_WRIST_YAW || j == NAOBODY_R_WRIST_YAW ||
			   j == NAOBODY_L_HAND || j == NAOBODY_R_HAND ? drive_gain.hands :
			   j >= NAOBODY_L_HIP_YAW_PITCH && j <= NAOBODY_R_ANKLE_ROLL ?
			   drive_gain.legs : drive_gain.arms;
		/* A plain motor: ctrl is the torque, within the published maximum. */
		m->actuator_gaintype[a] = mjGAIN_FIXED;
		m->actuator_biastype[a] = mjBIAS_NONE;
		memset(&m->actuator_gainprm[a * mjNGAIN], 0, mjNGAIN * sizeof(mjtNum));
		memset(&m->actuator_biasprm[a * mjNBIAS], 0, mjNBIAS * sizeof(mjtNum));
		m->actuator_gainprm[a * mjNGAIN] = 1.0;
		m->actuator_ctrllimited[a] = 1;
		m->actuator_ctrlrange[2 * a] = -p->max[j];
		m->actuator_ctrlrange[2 * a + 1] = p->max[j];
	}
	return 0;
}

/*
 * The start pose, resting on the floor: its lowest shape just touches it.
 * pitch turns the whole body about the world's y axis first (pi/2: lying
 * face down).
 */
static void place(struct sim_physics *p, const float pose[NJ], float pitch)
{
	const mjModel *m = p->m;
	mjData *d = p->d;
	double lowest = INFINITY;
	float stiff[NJ];

	mj->mj_resetData(m, d);
	/* The free joint's orientation, a unit quaternion (w, x, y, z). */
	d->qpos[3] = cos(pitch / 2.0);
	d->qpos[4] = 0.0;
	d->qpos[5] = sin(pitch / 2.0);
	d->qpos[6] = 0.0;
	for (int j = 0; j < NJ; j++)
		d->qpos[p->qpos[j]] = pose[j];
	/* RHipYawPitch follows LHipYawPitch (the model's equality). */
	d->qpos[m->jnt_qposadr[mj->mj_name2id(m, mjOBJ_JOINT, "RHipYawPitch")]] =
		pose[NAOBODY_L_HIP_YAW_PITCH];
	mj->mj_kinematics(m, d);
	/* The robot's shapes: not the floor's, nor the obstacle's. */
	for (int g = 0; g < m->ngeom; g++)
		if (m->body_rootid[m->geom_bodyid[g]] == p->torso)
			lowest = fmin(lowest, d->geom_xpos[3 * g + 2] - m->geom_rbound[g]);
	d->qpos[2] -= lowest;
	/* Held in the pose while it settles, as the robot is put down. */
	for (int j = 0; j < NJ; j++)
		stiff[j] = 1.0f;
	for (int i = 0; i < (int)(SETTLE_S / m->opt.timestep); i++)
		step(p, pose, stiff);
	sim_physics_torque_reset(p);
	sim_physics_impact_reset(p);
	p->touched = 0;
	p->start[0] = d->xpos[3 * p->torso];
	p->start[1] = d->xpos[3 * p->torso + 1];
	p->start[2] = atan2(d->xmat[9 * p->torso + 3], d->xmat[9 * p->torso]);
}

static void (*warn_to)(const char *line);

void sim_physics_set_warn(void (*warn)(const char *line))
{
	warn_to = warn;
}

/* MuJoCo's warnings go to warn_to (the daemon's log), not to a file in its directory. */
static void mujoco_warning(const char *msg)
{
	char line[512];

	snprintf(line, sizeof(line), "sim physics: MuJoCo: %s", msg);
	if (warn_to)
		warn_to(line);
	else
		fprintf(stderr, "%s\n", line);
}

struct sim_physics *sim_physics_create(const char *path, const float pose[NJ],
				       char *err, size_t errlen)
{
	struct sim_physics *p;
	char why[512] = "";

	mj = mujoco_load(err, errlen);
	if (!mj)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	*mj->mju_user_warning = mujoco_warning;
	p->m = mj->mj_loadXML(path, NULL, why, sizeof(why));
	if (!p->m) {
		/* MuJoCo's message spans lines: one line in the log. */
		for (char *c = why; *c; c++)
			if (*c == '\n')
				*c = *(c + 1) ? ' ' : '\0';
		snprintf(err, errlen, "%s: MuJoCo cannot load it: %s", path, why);
		free(p);
		return NULL;
	}
	if (bind(p, why, sizeof(why))) {
		snprintf(err, errlen, "%s: not a NAO V6 model: %s", path, why);
		mj->mj_deleteModel(p->m);
		free(p);
		return NULL;
	}
	p->d = mj->mj_makeData(p->m);
	if (!p->d) {
		snprintf(err, errlen, "%s: out of memory for its data", path);
		mj->mj_deleteModel(p->m);
		free(p);
		return NULL;
	}
	place(p, pose, 0.0f);
	return p;
}

void sim_physics_destroy(struct sim_physics *p)
{
	if (!p)
		return;
	mj->mj_deleteData(p->d);
	mj->mj_deleteModel(p->m);
	free(p);
}

void sim_physics_lay(struct sim_physics *p, const float pose[NJ], float pitch)
{
	float limp[NJ] = { 0 };

	place(p, pose, pitch);
	/* Let go, and let it come to rest: the first cycle finds it lying still. */
	for (int i = 0; i < (int)(LAY_SETTLE_S / p->m->opt.timestep); i++)
		step(p, pose, limp);
	sim_physics_torque_reset(p);
	sim_physics_impact_reset(p);
	p->touched = 0;
}
