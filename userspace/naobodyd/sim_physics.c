// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the simulated body's physics (see sim_physics.h).
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
 * the soles' contact forces, the motor currents from the motor torques.
 *
 * MuJoCo is called through mj, the table sim_physics_dl.c loads at run
 * time: naobodyd is not linked with it (sim_physics_dl.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joints.h"
#include "log.h"
#include "sim_physics.h"
#include "sim_physics_dl.h"

#define NJ		NAOBODY_JOINTS
#define SETTLE_S	1.5	/* held in the start pose, at creation */
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

struct sim_physics {
	mjModel *m;
	mjData *d;
	int act[NJ];		/* LoLA's joint -> the model's actuator */
	int qpos[NJ], dof[NJ];	/* its joint's qpos and dof addresses */
	double kp[NJ], kd[NJ], max[NJ];
	double reduction[NJ];	/* the model's actuator user[0] */
	int torso, imu, foot_body[2], sole_geom[2], sole_site[2];
	int head_body, head_geom, floor_geom, arm_geom[ARM_GEOMS];
	bool head_on_floor;	/* in the last step */
	float head_speed_before;	/* the head's speed before the last step, m/s */
	struct sim_physics_impact impact;
	double push[2];
	int push_steps;
	bool held;		/* lifted by the torso (sim_physics_hold) */
	double hold_at[3];
	float worst_given, worst_asked;
	int worst_given_joint, worst_asked_joint;	/* LoLA's, -1: none yet */
	double behind;		/* the time the model has still to run, s */
};

static void drive(struct sim_physics *p, const float target[NJ], const float stiffness[NJ])
{
	mjData *d = p->d;

	for (int j = 0; j < NJ; j++) {
		double err = target[j] - d->qpos[p->qpos[j]];
		double asked = p->kp[j] * err - p->kd[j] * d->qvel[p->dof[j]];
		double k = fmin(fmax(stiffness[j], 0.0), 1.0);
		double given = k * fmin(fmax(asked, -p->max[j]), p->max[j]);

		d->ctrl[p->act[j]] = given;
		if (fabs(given) / p->max[j] > p->worst_given) {
			p->worst_given = (float)(fabs(given) / p->max[j]);
			p->worst_given_joint = j;
		}
		if (k * fabs(asked) / p->max[j] > p->worst_asked) {
			p->worst_asked = (float)(k * fabs(asked) / p->max[j]);
			p->worst_asked_joint = j;
		}
	}
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
	w->given = p->worst_given;
	w->asked = p->worst_asked;
	w->given_joint = p->worst_given_joint;
	w->asked_joint = p->worst_asked_joint;
}

void sim_physics_torque_reset(struct sim_physics *p)
{
	p->worst_given = p->worst_asked = 0.0f;
	p->worst_given_joint = p->worst_asked_joint = -1;
}

void sim_physics_impact(const struct sim_physics *p, struct sim_physics_impact *out)
{
	*out = p->impact;
}

void sim_physics_impact_reset(struct sim_physics *p)
{
	memset(&p->impact, 0, sizeof(p->impact));
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

/* The model's names and actuators, or an error: the model is not the NAO's. */
static int bind(struct sim_physics *p, char *err, size_t n)
{
	mjModel *m = p->m;
	static const char *const feet[2] = { "LFoot", "RFoot" };
	static const char *const soles[2] = { "LSole", "RSole" };

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

/* The start pose, resting on the floor: its lowest shape just touches it. */
static void place(struct sim_physics *p, const float pose[NJ])
{
	const mjModel *m = p->m;
	mjData *d = p->d;
	double lowest = INFINITY;
	float stiff[NJ];

	mj->mj_resetData(m, d);
	for (int j = 0; j < NJ; j++)
		d->qpos[p->qpos[j]] = pose[j];
	/* RHipYawPitch follows LHipYawPitch (the model's equality). */
	d->qpos[m->jnt_qposadr[mj->mj_name2id(m, mjOBJ_JOINT, "RHipYawPitch")]] =
		pose[NAOBODY_L_HIP_YAW_PITCH];
	mj->mj_kinematics(m, d);
	for (int g = 0; g < m->ngeom; g++)
		if (m->geom_bodyid[g] != 0)
			lowest = fmin(lowest, d->geom_xpos[3 * g + 2] - m->geom_rbound[g]);
	d->qpos[2] -= lowest;
	/* Held in the pose while it settles, as the robot is put down. */
	for (int j = 0; j < NJ; j++)
		stiff[j] = 1.0f;
	for (int i = 0; i < (int)(SETTLE_S / m->opt.timestep); i++)
		step(p, pose, stiff);
	sim_physics_torque_reset(p);
	sim_physics_impact_reset(p);
}

/* MuJoCo's warnings go to the daemon's log, not to a file in its directory. */
static void mujoco_warning(const char *msg)
{
	log_warn("sim physics: MuJoCo: %s", msg);
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
	place(p, pose);
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
