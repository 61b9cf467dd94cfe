// SPDX-License-Identifier: GPL-2.0-only
/*
 * The walking tests' and benchmark's robot (walk_harness.h): the daemon's
 * motion layer driving the MuJoCo model cycle by cycle, faster than real
 * time, with the body's frame made from the physics as body_sim.c makes it.
 */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <motion/poses.h>
#include "walk_harness.h"

/* An angle within +-pi. */
float angle_wrap(float a)
{
	return remainderf(a, 2.0f * (float)M_PI);
}

int float_order(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

void model_path(char *out, size_t n)
{
	char here[] = __FILE__;

	snprintf(out, n, "%s/../../userspace/sim/nao6/nao6.xml", dirname(here));
}

/* The body's frame from the physics, as body_sim.c makes it (without noise). */
static void sense(struct robot *r)
{
	struct sim_physics_sense ps;
	struct nb_sensors *o = &r->f.s;

	sim_physics_sense(r->p, &ps);
	memset(o, 0, sizeof(*o));
	memcpy(o->position, ps.position, sizeof(o->position));
	memcpy(o->accelerometer, ps.accelerometer, sizeof(o->accelerometer));
	memcpy(o->gyroscope, ps.gyroscope, sizeof(o->gyroscope));
	memcpy(o->angles, ps.angles, sizeof(o->angles));
	for (int i = 0; i < NAOBODY_FSRS; i++) {
		o->fsr[i] = ps.fsr[i];
		o->foot[i / 4].weight += ps.fsr[i];
	}
	r->f.time_ns += CYCLE_NS;
	if (ps.torso_height < FALLEN_M)
		r->fell = true;
}

void robot_cycle(struct robot *r)
{
	struct motion_input in = { .s = &r->f.s };
	struct nb_actuators out;
	struct motion_status st;

	sense(r);
	in.time_ns = r->f.time_ns;
	motion_update(r->m, &in, &out);
	sim_physics_cycle(r->p, CYCLE_S, out.position, out.stiffness);
	memcpy(r->stiffness, out.stiffness, sizeof(r->stiffness));
	r->out = out;
	motion_status(r->m, &st);
	if (st.fall == FALL_FALLING || st.fall == FALL_FALLEN)
		r->fell = true;
	r->cycles++;
}

void robot_run(struct robot *r, float seconds)
{
	for (int i = 0; i < (int)(seconds / CYCLE_S + 0.5f); i++)
		robot_cycle(r);
}

void robot_stall(struct robot *r, float seconds)
{
	struct sim_physics_sense ps;

	for (int i = 0; i < (int)(seconds / CYCLE_S + 0.5f); i++) {
		sim_physics_cycle(r->p, CYCLE_S, r->out.position, r->out.stiffness);
		r->f.time_ns += CYCLE_NS;
		sim_physics_sense(r->p, &ps);
		if (ps.torso_height < FALLEN_M)
			r->fell = true;
	}
}

const char *robot_motion(struct robot *r)
{
	struct motion_status st;

	motion_status(r->m, &st);
	return st.motion;
}

/* A robot standing, stiff, in Stand: Wake and the keyframe done. */
bool robot_up(struct robot *r)
{
	struct motion_body body = { .can_walk = true, .can_protect = true };

	return robot_up_as(r, &body);
}

float harness_friction;

struct sim_physics *model_standing(void)
{
	char path[512], err[512];
	struct sim_physics *p;

	model_path(path, sizeof(path));
	p = sim_physics_create(path, motion_poses[POSE_STAND], err, sizeof(err));
	if (!p)
		fprintf(stderr, "# %s\n", err);
	else if (harness_friction > 0.0f)
		sim_physics_friction(p, harness_friction);
	return p;
}

bool robot_up_as(struct robot *r, const struct motion_body *body)
{
	memset(r, 0, sizeof(*r));
	r->p = model_standing();
	if (!r->p)
		return false;
	r->m = motion_create(body, NULL);
	if (!r->m) {
		sim_physics_destroy(r->p);
		return false;
	}
	sim_physics_torso(r->p, r->start);
	motion_power(r->m, POWER_WAKE, 0);
	robot_run(r, 1.5f);
	if (!strcmp(robot_motion(r), "Stand"))
		return true;
	/* Not up: nothing is left for the caller to put down. */
	robot_down(r);
	return false;
}

void robot_down(struct robot *r)
{
	motion_destroy(r->m);
	sim_physics_destroy(r->p);
}

/* The torso in the start's frame: x, y, yaw. */
void robot_where(struct robot *r, float out[3])
{
	float t[4], dx, dy, c = cosf(r->start[3]), s = sinf(r->start[3]);

	sim_physics_torso(r->p, t);
	dx = t[0] - r->start[0];
	dy = t[1] - r->start[1];
	out[0] = c * dx + s * dy;
	out[1] = -s * dx + c * dy;
	out[2] = angle_wrap(t[3] - r->start[3]);
}

void robot_request(struct robot *r, enum motion_kind kind, float x, float y,
		    bool has_turn, float turn, enum walk_speed speed)
{
	struct motion_req q = {
		.kind = kind, .x = x, .y = y, .has_turn = has_turn, .turn_to = turn,
		.speed = speed, .head = HEAD_CENTER,
	};

	motion_request(r->m, &q, r->f.time_ns);
}

void walk_to_trial(float x, float y, float turn, enum walk_speed speed, struct walk_to_result *res)
{
	struct motion_status st;
	struct robot r;
	float at[3];
	int cycles = 0;

	memset(res, 0, sizeof(*res));
	if (!robot_up(&r)) {
		res->fell = true;
		return;
	}
	robot_request(&r, MOTION_WALK_TO, x, y, true, turn, speed);
	robot_run(&r, 0.1f);
	while (!strcmp(robot_motion(&r), "Walk") && cycles < (int)(WALK_TO_LIMIT_S / CYCLE_S)) {
		robot_cycle(&r);
		cycles++;
	}
	res->seconds = cycles * CYCLE_S;
	robot_run(&r, 0.5f);
	robot_where(&r, at);
	res->miss_m = hypotf(at[0] - x, at[1] - y);
	res->miss_rad = fabsf(angle_wrap(at[2] - turn));
	res->fell = r.fell;
	memcpy(res->at, at, sizeof(at));
	motion_status(r.m, &st);
	memcpy(res->odometry, st.odometry, sizeof(res->odometry));
	res->odometry_error = hypotf(at[0] - st.odometry[0], at[1] - st.odometry[1]);
	res->uncertainty = st.odometry_uncertainty;
	robot_down(&r);
}

bool walk_to_arrived(const struct walk_to_result *res)
{
	return !res->fell && res->miss_m <= WALK_TO_MISS_M && res->miss_rad <= WALK_TO_MISS_RAD;
}

void walk_to_target(unsigned int *seed, float *x, float *y, float *turn)
{
	float d = 2.0f * sqrtf(rand_r(seed) / (float)RAND_MAX);
	float dir = (rand_r(seed) / (float)RAND_MAX * 2.0f - 1.0f) * (float)M_PI;

	*turn = (rand_r(seed) / (float)RAND_MAX * 2.0f - 1.0f) * (float)M_PI;
	*x = d * cosf(dir);
	*y = d * sinf(dir);
}

static enum fall_state fall_now(struct robot *r)
{
	struct motion_status st;

	motion_status(r->m, &st);
	return st.fall;
}

float stand_leg_error(const struct robot *r, int *joint)
{
	float worst = 0.0f;

	for (int j = NAOBODY_L_HIP_YAW_PITCH; j <= NAOBODY_R_ANKLE_ROLL; j++) {
		float e = fabsf(r->f.s.position[j] - motion_poses[POSE_STAND][j]);

		if (e > worst) {
			worst = e;
			if (joint)
				*joint = j;
		}
	}
	return worst;
}

void getup_trial(bool front, float force, float angle, struct getup_result *res)
{
	getup_walk_trial(front, force, angle, -1.0f, res);
}

void getup_walk_trial(bool front, float force, float angle, float walk_after,
		      struct getup_result *res)
{
	struct motion_body body = {
		.can_walk = true, .can_protect = true, .can_stand_up = true,
	};
	float dir = front ? 1.0f : -1.0f, t = 0.0f, torso[4], upright_at = -1.0f;
	struct sim_physics_sense ps;
	struct robot r;
	bool getting_up = false;

	memset(res, 0, sizeof(*res));
	/* Never up, never down again: it counts as a get-up that took too long. */
	res->seconds = GETUP_LIMIT_S;
	if (!robot_up_as(&r, &body))
		return;
	sim_physics_push(r.p, dir * force * cosf(angle), force * sinf(angle), GETUP_PUSH_S);
	for (; t < GETUP_LIMIT_S; t += CYCLE_S) {
		const char *motion;

		robot_cycle(&r);
		sim_physics_torso(r.p, torso);
		if (torso[2] < FALLEN_M)
			res->down = true;
		if (hypotf(r.f.s.angles[0], r.f.s.angles[1]) >= GETUP_UPRIGHT_RAD)
			upright_at = -1.0f;
		else if (upright_at < 0.0f)
			upright_at = t;
		motion = robot_motion(&r);
		if (!getting_up && !strncmp(motion, "StandUp", 7)) {
			getting_up = true;
			sim_physics_torque_reset(r.p);
		}
		if (getting_up && !strcmp(motion, "Stand") && fall_now(&r) == FALL_UPRIGHT)
			break;
	}
	res->seconds = t;
	res->upright_s = upright_at >= 0.0f ? t - upright_at : 0.0f;
	res->stand_leg_error = stand_leg_error(&r, NULL);
	if (t < GETUP_LIMIT_S && walk_after >= 0.0f) {
		robot_run(&r, walk_after);
		robot_request(&r, MOTION_WALK_TOWARD, 1.0f, 0.0f, false, 0.0f, SPEED_NORMAL);
		r.fell = false;
		robot_run(&r, GETUP_WALK_S);
		res->walk_fell = r.fell || fall_now(&r) == FALL_FALLING || fall_now(&r) == FALL_FALLEN;
		res->up = !res->walk_fell;
	} else if (t < GETUP_LIMIT_S) {
		res->up = true;
		for (float h = 0.0f; h < GETUP_HOLD_S; h += CYCLE_S) {
			enum fall_state f;

			robot_cycle(&r);
			f = fall_now(&r);
			if (f == FALL_FALLING || f == FALL_FALLEN)
				res->up = false;
		}
		sim_physics_sense(r.p, &ps);
		if (ps.torso_height < GETUP_STAND_M ||
		    hypotf(ps.angles[0], ps.angles[1]) > GETUP_UPRIGHT_RAD ||
		    strcmp(robot_motion(&r), "Stand"))
			res->up = false;
	}
	sim_physics_torque_ratio(r.p, &res->worst);
	robot_down(&r);
}

void getup_push(unsigned int *seed, float *force, float *angle)
{
	*force = 25.0f + 20.0f * rand_r(seed) / (float)RAND_MAX;
	*angle = (40.0f * rand_r(seed) / (float)RAND_MAX - 20.0f) * DEG;
}
