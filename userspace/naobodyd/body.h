/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the body backend. The daemon sees the body only through this
 * interface, in LoLA's units and orders (naobody/body.h):
 *
 *   - fd() becomes readable when a new body state is there: the body's cycle
 *     drives the daemon's cycle;
 *   - read() returns the newest state;
 *   - write() sets the actuators from the next cycle on;
 *   - stop() latches the death switch (only a rearm, outside the daemon,
 *     releases it);
 *   - walk() moves the odometry of a body that can walk (only the simulated
 *     one, for now).
 *
 * Backends: the simulated body (body_sim.c) and the real one through
 * /dev/naobody and libnaobody (body_real.c).
 */
#ifndef NAOBODYD_BODY_H
#define NAOBODYD_BODY_H

#include <stdbool.h>
#include <stdint.h>

#include <naobody/body.h>

#define BODY_ID_LEN	20	/* LoLA's id strings are 20 characters */

/* body_frame.flags */
#define BODY_F_STOPPED		(1U << 0)	/* death switch latched */
#define BODY_F_NO_ANSWER	(1U << 1)	/* no fresh sensor data this cycle */
#define BODY_F_ODOMETRY		(1U << 2)	/* odometry is valid */

struct body_frame {
	uint64_t cycle;
	uint64_t time_ns;		/* CLOCK_MONOTONIC: the state was taken */
	uint32_t flags;			/* BODY_F_* */
	struct nb_sensors s;
	float odometry[3];		/* x, y (m), heading (rad), if BODY_F_ODOMETRY */
};

struct body_info {
	char body_id[BODY_ID_LEN + 1];
	char head_id[BODY_ID_LEN + 1];
	char body_version[8];
	char head_version[8];
	bool simulated;
	bool can_walk;			/* walk() moves it */
	bool can_stand_up;		/* the get-up motions are safe on it */
	uint32_t period_ns;
};

struct body;

struct body_ops {
	const char *name;
	int (*fd)(struct body *b);
	/* 1 and a frame when one is new, 0 when none, -errno when the body is gone. */
	int (*read)(struct body *b, struct body_frame *f);
	int (*write)(struct body *b, const struct nb_actuators *a);
	int (*stop)(struct body *b, uint32_t reason);	/* enum naobody_stop_reason */
	/* Velocity: x forward, y left (m/s), turn (rad/s). Optional. */
	void (*walk)(struct body *b, float vx, float vy, float vturn);
	void (*destroy)(struct body *b);
};

struct body {
	const struct body_ops *ops;
	struct body_info info;
};

struct config;
struct loop;

struct body *body_sim_create(const struct config *cfg, struct loop *loop);
struct body *body_real_create(const struct config *cfg);

#endif
