/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The REST API's serial bodies (rest_serial.h): what a request asks for,
 * parsed and checked before anything reaches a robot. Pure functions on
 * JSON, for the host tests too (selftests/naobodyd/rest_serial_test.c).
 * The rules themselves are the libraries': libparol6's (parol6_check_move,
 * parol6_check_jog, as parolctl) and libcm5's register tables (as cm5ctl).
 * Each returns 0, or -errno with a sentence in why: -EINVAL for a request
 * that is malformed or incomplete (400), another for one the rules refuse
 * (422): -EDOM a move or jog, -EACCES a read-only register, -ERANGE a
 * value out of a register's range.
 */
#ifndef NAOBODYD_REST_SERIAL_PARSE_H
#define NAOBODYD_REST_SERIAL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <cm5/cm5.h>
#include <parol6/parol6.h>

#define SERIAL_WHY		256
#define SERIAL_MOVE_TIMEOUT_S	60.0	/* parolctl's --timeout */
#define SERIAL_MAX_TIMEOUT_S	600.0
#define SERIAL_MOVE_SPEED	10.0	/* parolctl's --speed, deg/s */
#define SERIAL_MOVE_ACCEL	40.0	/* parolctl's --accel, deg/s^2 */
#define SERIAL_JOG_S		1.0	/* parolctl's --for */
#define SERIAL_MAX_JOG_S	10.0

struct serial_move {
	int32_t target[PAROL6_JOINTS];
	double deg[PAROL6_JOINTS];
	double speed, accel, timeout;
};

struct serial_jog {
	int joint;		/* 0..5 */
	int32_t speed;		/* microsteps/s */
	double deg_per_s, seconds;
};

/* One read or write of consecutive registers on one Dynamixel. */
struct serial_regs {
	uint8_t id;
	int model;				/* N_ROBOT_CM5_MODEL_* */
	const struct cm5_reg *start;
	unsigned int count;			/* registers */
	int32_t values[N_ROBOT_CM5_NUM_REG_BYTES];	/* a write's, raw */
};

/* A body's name in a path: 1..31 of [A-Za-z0-9_.-]. */
bool serial_name_ok(const char *s);
/* {"joints": [6 degrees], "speed": deg/s, "accel": deg/s^2, "timeout": s} */
int serial_parse_move(json_t *o, struct serial_move *m, char *why, size_t len);
/* {"joint": 1..6, "speed": deg/s, "seconds": s} */
int serial_parse_jog(json_t *o, struct serial_jog *j, char *why, size_t len);
/*
 * A read: id, address (or register, a name), count (default 1), model
 * (ax12, axs1, other; default ax12), as strings from the query.
 */
int serial_parse_read(const char *id, const char *address, const char *reg,
		      const char *count, const char *model, struct serial_regs *r,
		      char *why, size_t len);
/* A write: {"id", "address" or "register", "values": [raw], "model"}. */
int serial_parse_write(json_t *o, struct serial_regs *r, char *why, size_t len);

#endif
