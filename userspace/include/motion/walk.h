/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbmotion: the walking engine. It turns a wanted velocity into the legs'
 * joints, one body cycle at a time, and says how far the torso went.
 *
 * The method (Documentation/naobodyd.rst, "Walking"): an open gait of
 * alternating steps of fixed duration, in the RoboCup teams' style. The
 * support foot moves back under the torso at the walking speed, the swing
 * foot forward on a smooth lifted path; the torso sways over the support
 * foot as a linear inverted pendulum would; the legs' joints come from
 * leg_kinematics.h. Sideways and turning steps open with the leading foot
 * and close with the other, so the feet never cross or collide.
 *
 * Odometry is the support foot's motion under the torso: what the gait
 * did, not what the body did (a slipping foot is not seen).
 */
#ifndef NBMOTION_WALK_H
#define NBMOTION_WALK_H

#include <stdbool.h>

#include <naobody/body.h>

struct walk;

struct walk *walk_create(void);
void walk_destroy(struct walk *w);

/* Begin stepping from standing (Stand's legs, poses.h: it ends in them too). */
void walk_start(struct walk *w);

/*
 * The velocity wanted from the next step on: x forward, y left (m/s),
 * turn left (rad/s); within the engine's limits. 0, 0, 0 stops: the feet
 * close within a step or two, and walk_update() then returns false.
 */
void walk_set_velocity(struct walk *w, float vx, float vy, float vturn);

/* Stop at the end of this step, whatever the velocity. */
void walk_stop(struct walk *w);

/*
 * The body loop came back late (it stalled; the boards held the last
 * command): stop as walk_stop() does, and set this step's swing foot down
 * where it catches the sideways swing the stall left. gyro: the torso's
 * rates now, rad/s.
 */
void walk_late(struct walk *w, const float gyro[3]);

/*
 * One cycle of dt seconds: the legs' joints into q (the rest of q is left
 * alone), the torso's motion since the last call into moved (x, y in the
 * last cycle's torso frame, m; the turn, rad). gyro is the torso's
 * gyroscope (rad/s), for the balance's feedback, or NULL for none. False
 * when the robot is standing still again, feet together (q then holds the
 * stand pose).
 */
bool walk_update(struct walk *w, float dt, const float gyro[3],
		 float q[NAOBODY_JOINTS], float moved[3]);

/*
 * The torso's turn rate about the world's vertical (rad/s), from the
 * inertial unit's angles (roll, pitch) and gyroscope: the odometry's turn.
 * The gyroscope's own z is about the torso's axis, which rocks as it walks.
 */
float walk_yaw_rate(const float angles[2], const float gyro[3]);

/* A step's duration, s. */
float walk_step_seconds(void);

#endif
