/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbmotion: the motion layer. Interpolated keyframe motions (Stand,
 * SitDown, ArmsUp, Squat), power (Wake, Rest), the head (Center,
 * LookAround, LookAt), walking (walk.h) and its odometry (odometry.h), fall
 * protection and getting up, and the body cared for (care.h: hot joints, a
 * low battery). Falling and getting up always win over the client's
 * request.
 *
 * Every cycle it turns the body's sensors and the latest requests into
 * joint positions and stiffnesses (LoLA's order and units). It knows
 * nothing of which body it drives beyond what struct motion_body says, nor
 * of who asks: naobodyd's robot API, a test, a benchmark.
 */
#ifndef NBMOTION_MOTION_H
#define NBMOTION_MOTION_H

#include <stdbool.h>
#include <stdint.h>

#include <naobody/body.h>

#include <motion/fall.h>

/* What the body it drives allows. */
struct motion_body {
	bool can_walk;			/* the walking engine may move its legs */
	bool can_stand_up;		/* the get-up motions are safe on it */
	bool can_protect;		/* the protective fall's poses are safe on it */
};

/* One cycle's state of the body. */
struct motion_input {
	uint64_t time_ns;		/* CLOCK_MONOTONIC: the state was taken */
	bool stopped;			/* the death switch is latched */
	/*
	 * Another client drives the joints (a LoLA client: falls are its
	 * business): the motion layer still reads the sensors (the fall
	 * detector, State, the gyroscope's turn) but takes no protective fall
	 * of its own, and counts no steps of its own in the odometry.
	 */
	bool elsewhere;
	const struct nb_sensors *s;
};

/*
 * Where the motion layer's notes go (a fall, a refused Wake): one line,
 * warn for what its user should look into. Called from motion_update() and
 * so on its thread: it must not block.
 */
typedef void motion_note_fn(bool warn, const char *line);

enum motion_kind {
	MOTION_STAND,
	MOTION_WALK_TO,
	MOTION_WALK_TOWARD,
	MOTION_SIT_DOWN,
	MOTION_ARMS_UP,
	MOTION_SQUAT,
};

enum head_kind { HEAD_CENTER, HEAD_LOOK_AROUND, HEAD_LOOK_AT };
enum walk_speed { SPEED_SLOW, SPEED_NORMAL, SPEED_FAST };

/* The robot API's Motion. */
struct motion_req {
	enum motion_kind kind;
	float x, y;			/* m, x forward, y left */
	bool has_turn;
	float turn_to;			/* rad, left positive */
	enum walk_speed speed;
	enum head_kind head;
	float look_x, look_y;		/* m, on the ground */
};

enum power_req { POWER_WAKE, POWER_REST };

enum primary_state {
	PRIMARY_UNSTIFF,
	PRIMARY_ANIMATION,
	PRIMARY_INITIAL,
	PRIMARY_PLAYING,
	PRIMARY_FINISHED,
};

extern const char *const primary_state_name[];

struct motion_status {
	enum primary_state primary;
	enum fall_state fall;
	const char *motion;		/* the motion being executed */
	uint32_t hot;			/* bit j: LoLA joint j is hot, its stiffness held (care.h) */
	bool has_odometry;		/* on a body that can walk */
	float odometry[3];		/* x, y (m), heading (rad): odometry.h */
	float odometry_uncertainty;	/* m: odometry_uncertainty() */
};

struct motion;

/* note may be NULL: no notes. */
struct motion *motion_create(const struct motion_body *body, motion_note_fn *note);
void motion_destroy(struct motion *m);

void motion_power(struct motion *m, enum power_req req, uint64_t now);
void motion_request(struct motion *m, const struct motion_req *req, uint64_t now);
/* The watchdog's stages: 1 stand still, 2 sit down (then limp). */
void motion_watchdog(struct motion *m, int stage, uint64_t now);
/*
 * Hold the body limp while why is not NULL (the reason, for the log): Wake
 * is refused, a stiff body goes limp at once. Called every cycle, before
 * motion_update().
 */
void motion_hold_limp(struct motion *m, const char *why);
/*
 * Take over from a command the daemon did not compute (a LoLA client's):
 * hold it, or, with the robot down or going down, let it go soft and then
 * limp (Wake gets it up).
 */
void motion_adopt(struct motion *m, const struct nb_actuators *cmd, uint64_t now);

/* One cycle: fills out's positions and stiffnesses. */
void motion_update(struct motion *m, const struct motion_input *in, struct nb_actuators *out);
void motion_status(const struct motion *m, struct motion_status *st);
/*
 * Requests refused since the last call (for the client: core.c makes them
 * the robot API's Error events). Each is a bit of enum motion_refusal.
 */
enum motion_refusal {
	MREF_STOPPED = 1 << 0,		/* Wake: the death switch is latched */
	MREF_UNCALIBRATED = 1 << 1,	/* Wake: motion_hold_limp() */
	MREF_FALLEN = 1 << 2,		/* Wake: down, and no get-up on this body */
	MREF_WALK_TO = 1 << 3,		/* WalkTo on a body that does not walk */
	MREF_WALK_TOWARD = 1 << 4,	/* WalkToward on a body that does not walk */
	MREF_BATTERY = 1 << 5,		/* Wake: the battery is low (care.h) */
};
unsigned int motion_take_refusals(struct motion *m);
/*
 * The body cared for (care.h), for a command the motion layer did not
 * compute (a LoLA client's): its hot joints' stiffness held. The motion
 * layer's own command already is.
 */
void motion_limit(const struct motion *m, struct nb_actuators *out);
/* Joints that became hot or cooled down since the last call (bit j: LoLA joint j). */
uint32_t motion_take_hot_changes(struct motion *m);
/*
 * Fully limp: every stiffness the last cycle commanded is 0. (State's
 * Unstiff comes a little earlier, below 0.05, on the way down.)
 */
bool motion_limp(const struct motion *m);

#endif
