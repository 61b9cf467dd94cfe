/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walking tests' and benchmark's robot: the motion layer (libnbmotion,
 * as naobodyd drives it) driving the physical model (sim_physics.c) one
 * 12 ms cycle at a time, as fast as the machine goes. What is measured is
 * the model's own torso, not what the engine believes.
 */
#ifndef SELFTESTS_SIM_WALK_HARNESS_H
#define SELFTESTS_SIM_WALK_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include <motion/motion.h>
#include <motion/walk.h>
#include <physics/sim_physics.h>

#define CYCLE_S		0.012f
#define CYCLE_NS	12000000ULL
#define FALLEN_M	0.22f	/* the torso's height; standing, 0.31 */
#define DEG		((float)M_PI / 180.0f)
#define WALK_TO_LIMIT_S	60.0f	/* a WalkTo not done by then has failed */

struct robot {
	struct sim_physics *p;
	struct motion *m;
	struct {
		uint64_t time_ns;
		struct nb_sensors s;
	} f;				/* the body's state, as body_sim.c makes it */
	float start[4];		/* the torso in the world at the start */
	bool fell;
	int cycles;
	float stiffness[NAOBODY_JOINTS];	/* what the last cycle commanded */
	struct nb_actuators out;	/* ... all of it, which a stalled cycle repeats */
};

/* An angle within +-pi. */
float angle_wrap(float a);
/* qsort()'s order of floats, for medians. */
int float_order(const void *a, const void *b);
/* The model beside this source, as model_test.c finds it. */
void model_path(char *out, size_t n);

/*
 * The sliding friction model_standing() gives every shape once settled
 * (sim_physics_friction()); 0, as it starts: the model's own (1.0). For the
 * bench's runs at the other figures NAO simulators use.
 */
extern float harness_friction;

/* The model in Stand's pose, settled; NULL, the reason printed as a TAP comment. */
struct sim_physics *model_standing(void);
/* A robot standing, stiff, in Stand: Wake and the keyframe done (false: nothing to put down). */
bool robot_up(struct robot *r);
/* The same on a body that allows what body says (robot_up's: the simulated body's). */
bool robot_up_as(struct robot *r, const struct motion_body *body);
void robot_down(struct robot *r);
/* One body cycle: sense, the motion layer, the physics. */
void robot_cycle(struct robot *r);
void robot_run(struct robot *r, float seconds);
/*
 * The daemon stalls for seconds: the body goes on under the last command
 * (the boards hold it), its clock with it, and the next robot_cycle() sees
 * the time that passed.
 */
void robot_stall(struct robot *r, float seconds);
/* State's motion now. */
const char *robot_motion(struct robot *r);
/*
 * How far the leg joint furthest from Stand's pose is from it (rad), as the
 * body's sensors read; which joint in *joint unless NULL.
 */
float stand_leg_error(const struct robot *r, int *joint);
/* The torso in the start's frame: x, y (m), yaw (rad). */
void robot_where(struct robot *r, float out[3]);
void robot_request(struct robot *r, enum motion_kind kind, float x, float y,
	     bool has_turn, float turn, enum walk_speed speed);

/* One WalkTo from standing, to the end of its walk. */
struct walk_to_result {
	float miss_m, miss_rad;		/* from the target, by the physics */
	float seconds;			/* until the feet were together */
	bool fell;
	float at[3], odometry[3];	/* where it is; where it thinks it is */
	float odometry_error;		/* m, between the two (x, y) */
	float uncertainty;		/* m, State's odometry_uncertainty then */
};
void walk_to_trial(float x, float y, float turn, enum walk_speed speed,
		   struct walk_to_result *res);
/* The bar: within 10 cm and 10 degrees of the target, standing. */
#define WALK_TO_MISS_M		0.10f
#define WALK_TO_MISS_RAD	(10.0f * DEG)
bool walk_to_arrived(const struct walk_to_result *res);
/* The next random target within 2 m and +-180 degrees. */
void walk_to_target(unsigned int *seed, float *x, float *y, float *turn);

/*
 * One fall and get-up: a push topples the standing, awake robot forwards
 * (front) or backwards, force N for GETUP_PUSH_S, angle rad aside; it takes
 * its protective fall, lies still and gets up by itself. Up: State's motion
 * back to Stand within GETUP_LIMIT_S of the push, and still standing
 * GETUP_HOLD_S later (the torso above GETUP_STAND_M and tilted less than
 * GETUP_UPRIGHT_RAD, by the physics).
 */
#define GETUP_PUSH_S		0.2f
#define GETUP_LIMIT_S		45.0f	/* from the push to Stand */
#define GETUP_HOLD_S		2.0f	/* standing, after */
#define GETUP_STAND_M		0.28f
#define GETUP_UPRIGHT_RAD	0.35f
struct getup_result {
	bool down;		/* the push toppled it: the torso below FALLEN_M */
	bool up;		/* in Stand in time, and still standing after */
	float seconds;		/* from the push to Stand */
	struct sim_physics_worst worst;	/* from the get-up's start */
	/* At the first Stand State: the leg joint furthest from Stand's pose, rad */
	float stand_leg_error;
	/*
	 * From the torso upright for good (tilted less than GETUP_UPRIGHT_RAD
	 * by the physics, and so on to Stand) to Stand, s: the rise's part
	 */
	float upright_s;
	bool walk_fell;		/* getup_walk_trial(): the walk after Stand fell */
};
void getup_trial(bool front, float force, float angle, struct getup_result *res);
/*
 * The same, and walk_after s after the first Stand State, WalkToward (1, 0)
 * at Normal for GETUP_WALK_S instead of standing on (walk_fell).
 */
#define GETUP_WALK_S		3.0f
void getup_walk_trial(bool front, float force, float angle, float walk_after,
		      struct getup_result *res);
/* The 20 falls each way, from these seeds (+1 backwards). */
#define GETUP_TRIALS		20
#define GETUP_SEED		20260531u
/* The next push: 25 to 45 N, up to 20 degrees aside. */
void getup_push(unsigned int *seed, float *force, float *angle);

#endif
