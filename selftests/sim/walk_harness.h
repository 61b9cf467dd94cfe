/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walking tests' and benchmark's robot: the daemon's motion layer
 * (motion.c, with walk.c) driving the physical model (sim_physics.c) one
 * 12 ms cycle at a time, as fast as the machine goes. What is measured is
 * the model's own torso, not what the engine believes.
 */
#ifndef SELFTESTS_SIM_WALK_HARNESS_H
#define SELFTESTS_SIM_WALK_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "../../userspace/naobodyd/motion.h"
#include "../../userspace/naobodyd/sim_physics.h"
#include "../../userspace/naobodyd/walk.h"

#define CYCLE_S		0.012f
#define CYCLE_NS	12000000ULL
#define FALLEN_M	0.22f	/* the torso's height; standing, 0.31 */
#define DEG		((float)M_PI / 180.0f)
#define WALK_TO_LIMIT_S	60.0f	/* a WalkTo not done by then has failed */

struct robot {
	struct sim_physics *p;
	struct motion *m;
	struct body_frame f;
	float start[4];		/* the torso in the world at the start */
	bool fell;
	int cycles;
	float stiffness[NAOBODY_JOINTS];	/* what the last cycle commanded */
};

/* An angle within +-pi. */
float angle_wrap(float a);
/* The model beside this source, as model_test.c finds it. */
void model_path(char *out, size_t n);

/* A robot standing, stiff, in Stand: Wake and the keyframe done. */
bool robot_up(struct robot *r);
/* The same on a body described by info (robot_up's: the simulated body's). */
bool robot_up_as(struct robot *r, const struct body_info *info);
void robot_down(struct robot *r);
/* One body cycle: sense, the motion layer, the physics. */
void robot_cycle(struct robot *r);
void robot_run(struct robot *r, float seconds);
/* State's motion now. */
const char *robot_motion(struct robot *r);
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
};
void walk_to_trial(float x, float y, float turn, enum walk_speed speed,
		   struct walk_to_result *res);
/* The bar: within 10 cm and 10 degrees of the target, standing. */
#define WALK_TO_MISS_M		0.10f
#define WALK_TO_MISS_RAD	(10.0f * DEG)
bool walk_to_arrived(const struct walk_to_result *res);
/* The next random target within 2 m and +-180 degrees. */
void walk_to_target(unsigned int *seed, float *x, float *y, float *turn);

#endif
