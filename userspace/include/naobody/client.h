/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnbclient: naobodyd's robot API (TCP 7700, MessagePack) from C and C++,
 * for a brain on the robot or on a laptop (Documentation/robot-api.rst).
 *
 *	struct nbc *c = nbc_connect("nao.local", 0, "my-brain", 0);
 *	struct nbc_msg m;
 *
 *	nbc_subscribe(c, true, 0);
 *	nbc_power(c, NBC_WAKE);
 *	while (nbc_next(c, &m, 1000) > 0) {
 *		if (m.kind == NBC_MSG_STATE)
 *			printf("%s %.2f\n", m.state.motion, m.state.joint_position[17]);
 *		else if (m.kind == NBC_MSG_ERROR)
 *			fprintf(stderr, "robot: %s\n", m.error.message);
 *	}
 *	nbc_close(c);
 *
 * One connection, one thread: nothing here starts a thread or keeps a
 * lock. The heartbeat is the library's: nbc_next() sends "Heartbeat"
 * whenever nothing was sent for 50 ms, so a loop that calls it at least
 * every 50 ms keeps the robot's watchdog quiet (NBC_NO_HEARTBEAT leaves it
 * to the caller). Functions return 0 (or a count) on success and a
 * negative errno on failure; nbc_connect() returns NULL and sets errno,
 * with the reason in nbc_connect_error(). Nothing here prints.
 */
#ifndef NAOBODY_CLIENT_H
#define NAOBODY_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NBC_DEFAULT_PORT	7700
#define NBC_VERSION		1	/* the robot API version spoken */
#define NBC_JOINTS		26	/* the robot API's joint order: nbc_joint_name() */
#define NBC_HEARTBEAT_MS	50

/* nbc_connect() flags */
#define NBC_NO_HEARTBEAT	(1U << 0)	/* nbc_next() sends no heartbeat */

struct nbc;

/*
 * nbc_connect() - connect to host (name or address; port 0: 7700), say
 * Hello as client, and wait (5 s at most) for the robot's Hello. The
 * connection is then the robot's controller. NULL with errno: ECONNREFUSED
 * and the like from the network, EPROTO when the robot does not speak
 * version 1 (or answered something else), ETIMEDOUT without an answer;
 * nbc_connect_error() says what the robot said.
 */
struct nbc *nbc_connect(const char *host, uint16_t port, const char *name, unsigned int flags);
/* Why the last nbc_connect() of this thread failed, in a sentence. */
const char *nbc_connect_error(void);
void nbc_close(struct nbc *c);
/* The socket, for poll(): readable when a message may be waiting. */
int nbc_fd(const struct nbc *c);

struct nbc_robot {
	uint32_t version;
	char body_id[32];
	char head_id[32];
	bool simulated;
	bool echo_cancellation;
};
const struct nbc_robot *nbc_robot(const struct nbc *c);

/* ---- to the robot ---- */

enum nbc_power { NBC_WAKE, NBC_REST };
enum nbc_speed { NBC_NORMAL, NBC_SLOW, NBC_FAST };
enum nbc_head { NBC_HEAD_CENTER, NBC_HEAD_LOOK_AROUND, NBC_HEAD_LOOK_AT };
enum nbc_motion_kind {
	NBC_STAND, NBC_WALK_TO, NBC_WALK_TOWARD, NBC_SIT_DOWN, NBC_ARMS_UP, NBC_SQUAT,
};

struct nbc_motion {
	enum nbc_motion_kind kind;
	float x, y;			/* m: x forward, y left (WalkTo, WalkToward) */
	bool has_turn_to;
	float turn_to;			/* rad, left positive (WalkTo) */
	enum nbc_speed speed;
	enum nbc_head head;
	float look_x, look_y;		/* m, on the ground (NBC_HEAD_LOOK_AT) */
};

int nbc_subscribe(struct nbc *c, bool state, float rate_hz);	/* rate 0: 20 Hz */
int nbc_power(struct nbc *c, enum nbc_power p);
int nbc_motion(struct nbc *c, const struct nbc_motion *m);
int nbc_walk_to(struct nbc *c, float x, float y, enum nbc_speed speed);
int nbc_heartbeat(struct nbc *c);
int nbc_stop(struct nbc *c);	/* the death switch: latched until rearmed on the robot */
/* Any message as MessagePack (one value, with field names): the frame is added. */
int nbc_send_raw(struct nbc *c, const void *msgpack, size_t len);

/* ---- from the robot ---- */

struct nbc_state {
	double time;			/* s since the epoch, when the body state was taken */
	char primary_state[16];		/* Unstiff, Animation, Initial, Playing, Finished */
	char fall_state[16];		/* Upright, Falling, Fallen, StandingUp, Sitting */
	char motion[24];		/* Stand, Walk, SitDown, ... */
	float battery_charge;		/* 0..1 */
	float battery_current;		/* A, negative while discharging */
	float battery_temperature;	/* LoLA's scale: 28.5 degrees C reads 2.85 */
	bool battery_charging;
	float linear_acceleration[3];	/* m/s^2 */
	float angular_velocity[3];	/* rad/s */
	float roll_pitch[2];		/* rad */
	float sonar[2];			/* m, left and right */
	float left_foot_pressure[4];	/* kg: front left, front right, rear left, rear right */
	float right_foot_pressure[4];
	uint32_t touch;			/* bit i: nbc_touch_name(i) pressed */
	float joint_position[NBC_JOINTS];	/* rad (hands 0..1) */
	float joint_temperature[NBC_JOINTS];	/* degrees C */
	float joint_current[NBC_JOINTS];	/* A */
	bool has_odometry;
	float odometry[3];		/* m, m, rad since naobodyd started */
};

struct nbc_error {
	char kind[24];		/* UnknownMessage, UnknownField, BadValue, Malformed, Handshake,
				 * Version, Refused */
	char reason[24];	/* Refused: Stopped, Uncalibrated, Fallen, WalkingDisabled, ... */
	char command[24];	/* the message it is about; "" when none */
	char field[64];		/* the field it names; "" when none */
	char message[400];
	uint32_t suppressed;	/* errors the robot did not send before this one */
};

enum nbc_msg_kind {
	NBC_MSG_STATE = 1,
	NBC_MSG_TOUCH,		/* touch: sensor (ChestButton, HeadFront, ...), pressed */
	NBC_MSG_FALL,		/* fall_state */
	NBC_MSG_WATCHDOG,	/* watchdog_active */
	NBC_MSG_ERROR,		/* error */
	NBC_MSG_OTHER,		/* Image, Microphone, a newer robot's message: other[] names it */
};

struct nbc_msg {
	enum nbc_msg_kind kind;
	struct nbc_state state;
	struct {
		char sensor[16];
		bool pressed;
	} touch;
	char fall_state[16];
	bool watchdog_active;
	struct nbc_error error;
	char other[24];
};

/*
 * nbc_next() - the next message into m, waiting at most timeout_ms (-1:
 * forever), heartbeats sent meanwhile. Returns m->kind, 0 on timeout,
 * -EPIPE when the robot closed the connection (after its last message,
 * an Error that says why when it gave one), -EPROTO for bytes that are
 * not the robot API.
 */
int nbc_next(struct nbc *c, struct nbc_msg *m, int timeout_ms);

const char *nbc_joint_name(unsigned int i);	/* "head_yaw", ...; NULL past 25 */
const char *nbc_touch_name(unsigned int i);	/* "chest_button", ...; NULL past 7 */

#ifdef __cplusplus
}
#endif

#endif
