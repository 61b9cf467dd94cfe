/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libparol6: the PAROL6 arm's control board from C. Packs command frames,
 * unpacks telemetry, converts microsteps to degrees and radians per joint
 * (refusing targets outside the joint limits), and runs a 100 Hz command
 * loop on a real-time timer that leaves the arm idle, at zero speed, however
 * it ends: the firmware has no watchdog, and a jog runs on otherwise.
 */
#ifndef _PAROL6_PAROL6_H
#define _PAROL6_PAROL6_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/n_robot.h>
#include <n_robot/link.h>

#define PAROL6_JOINTS	6
#define PAROL6_HZ	100
#define PAROL6_BAUD	3000000		/* nominal: USB CDC ignores it */

enum parol6_command {
	PAROL6_IDLE = 255,
	PAROL6_JOG = 123,
	PAROL6_GOTO = 156,
	PAROL6_HOME = 100,
	PAROL6_ENABLE = 101,
	PAROL6_DISABLE = 102,
	PAROL6_CLEAR_ERROR = 103,
	PAROL6_REPEATABILITY = 69,
};

/* Gripper command bits (from the MSB). */
#define PAROL6_GRIP_ACTIVATE	0x80
#define PAROL6_GRIP_ACTION	0x40
#define PAROL6_GRIP_ESTOP	0x20
#define PAROL6_GRIP_RELEASE_DIR	0x10

struct parol6_cmd {
	int32_t position[PAROL6_JOINTS];	/* microsteps */
	int32_t speed[PAROL6_JOINTS];		/* microsteps/s */
	uint8_t command;			/* enum parol6_command */
	uint8_t affected;
	bool out1, out2;
	uint8_t timeout;
	int16_t grip_position, grip_speed, grip_current;
	uint8_t grip_command;			/* PAROL6_GRIP_* */
	uint8_t grip_mode;			/* 0 operate, 1 calibrate, 2 clear */
	uint8_t grip_id;
};

struct parol6_telemetry {
	int32_t position[PAROL6_JOINTS];
	int32_t speed[PAROL6_JOINTS];
	bool homed[PAROL6_JOINTS];
	bool in1, in2, out1, out2;
	bool estop_pressed;
	bool temperature_error[PAROL6_JOINTS];
	bool position_error[PAROL6_JOINTS];
	uint16_t timing_ticks;			/* 90 MHz / 128 */
	double timing_us;
	uint8_t timeout_error;
	uint8_t last_command;			/* XTR2 */
	uint8_t grip_id;
	int16_t grip_position, grip_speed, grip_current;
	uint8_t grip_status;
	bool grip_activated, grip_moving, grip_temperature_error;
	bool grip_timeout_error, grip_estop_error, grip_calibrated;
	uint8_t grip_object;	/* 0 moving, 1 closing, 2 opening, 3 at position */
	uint8_t object_detection;
};

/* Frames. */
void parol6_pack(const struct parol6_cmd *c, uint8_t out[N_ROBOT_PAROL6_CMD_FRAME]);
/* 0, or -EINVAL if p is not a 60-byte telemetry frame. */
int parol6_unpack(const uint8_t *p, size_t len, struct parol6_telemetry *t);
const char *parol6_command_name(uint8_t command);

/* Units and limits; joint is 0..5. */
extern const double parol6_gear_ratio[PAROL6_JOINTS];
extern const double parol6_limit_deg[PAROL6_JOINTS][2];
extern const int32_t parol6_max_speed[PAROL6_JOINTS];	/* microsteps/s */
double parol6_steps_to_deg(int joint, int32_t steps);
double parol6_steps_to_rad(int joint, int32_t steps);
/* -ERANGE outside the joint's limits, -EINVAL for a bad joint. */
int parol6_deg_to_steps(int joint, double deg, int32_t *steps);
int parol6_rad_to_steps(int joint, double rad, int32_t *steps);
int parol6_check_steps(int joint, int32_t steps);
/* A speed in degrees/s; -ERANGE above the joint's maximum. */
int parol6_speed_to_steps(int joint, double deg_per_s, int32_t *steps);

/*
 * A joint move as the commander streams it (profile.c): a trapezoid at
 * speed_dps and accel_dps2 for the joint with the longest way, the others
 * scaled to arrive with it. parol6_move_setpoint() gives the go-to frame's
 * positions and speeds for the cycle starting t seconds into the move;
 * after the profile, the target at speed 0.
 */
#define PAROL6_ARRIVED_STEPS	2	/* "there": every joint within this, at rest */

struct parol6;

struct parol6_move {
	int32_t start[PAROL6_JOINTS], target[PAROL6_JOINTS];
	double distance;	/* degrees, the longest joint's way */
	double peak;		/* degrees/s it reaches */
	double accel;		/* degrees/s^2 */
	double ramp;		/* s, accelerating (and as long braking) */
	double duration;	/* s, the whole profile */
};

/* -EINVAL unless speed and acceleration are finite and positive. */
int parol6_plan_move(struct parol6_move *m, const int32_t start[PAROL6_JOINTS],
		     const int32_t target[PAROL6_JOINTS], double speed_dps,
		     double accel_dps2);
void parol6_move_setpoint(const struct parol6_move *m, double t, double cycle,
			  int32_t position[PAROL6_JOINTS],
			  int32_t speed[PAROL6_JOINTS]);
bool parol6_move_arrived(const struct parol6_move *m,
			 const struct parol6_telemetry *t);
/*
 * A whole move on the command loop (parol6_run): 0 when there, -ETIMEDOUT
 * after timeout_s, -EINVAL for a bad speed or acceleration, -ERANGE for a
 * target outside the limits, -ENOLINK/-EIO for a lost link, -ECANCELED if
 * the arm reports the E-stop pressed. Ends with the safe stop.
 */
int parol6_move_to(struct parol6 *p, const int32_t target[PAROL6_JOINTS],
		   double speed_dps, double accel_dps2, double timeout_s,
		   volatile sig_atomic_t *stop, int link_timeout_ms);

/*
 * The rules a request must pass before anything is sent (rules.c), shared
 * by parolctl and naobodyd's REST API. Each returns 0, or -errno with a
 * sentence in why saying what was refused and what is allowed.
 */
#define PAROL6_JOG_PERCENT	80	/* a jog runs at most this % of the maximum */
#define PAROL6_ABORT_FRAMES	3	/* Disable, then Clear error, this many each */
int32_t parol6_jog_limit(int joint);
/* A jog of joint (0..5) at deg_per_s: its speed in *steps, or -ERANGE. */
int parol6_check_jog(int joint, double deg_per_s, int32_t *steps, char *why,
		     size_t len);
/* Stop the jog: the joint would pass its limit within two cycles. */
bool parol6_jog_at_limit(int joint, const struct parol6_telemetry *t,
			 int32_t jog_speed);
/* A move's target in degrees, speed and acceleration: the target in steps. */
int parol6_check_move(const double deg[PAROL6_JOINTS], double speed_dps,
		      double accel_dps2, int32_t target[PAROL6_JOINTS],
		      char *why, size_t len);
/* Once planned from where the arm is: refused if it outlasts timeout_s. */
int parol6_check_plan(const struct parol6_move *m, double speed_dps,
		      double timeout_s, char *why, size_t len);
/*
 * Idle continues a homing, so a homing is ended by Disable (stops the
 * motors), then Clear error (resets the homing state), a few frames each
 * in case one is lost; only then the Idle. step counts from 1; fills next
 * and returns 0 while there is a frame to send, 1 when done.
 */
int parol6_abort_homing(int step, struct parol6_cmd *next);

/* For other languages' FFIs (userspace/python). */
size_t parol6_size(void);
size_t parol6_cmd_size(void);
size_t parol6_telemetry_size(void);
const struct parol6_telemetry *parol6_last(const struct parol6 *p);

/* The link. */
struct parol6 {
	struct nr_link link;
	bool dry_run;			/* print frames in hex, send nothing */
	bool have_telemetry;
	struct parol6_telemetry last;
	int64_t last_rx_ms;
	uint64_t sent, received, missed_ticks;
	void (*dump)(void *ctx, const uint8_t *frame, size_t len);
	void *dump_ctx;
	/*
	 * What the board keeps from every frame, as the last one sent set it:
	 * the outputs and the gripper's fields (all but its mode, which asks
	 * for a calibration or a clearing once). Idle frames carry it on, as
	 * the commander does, so that no frame switches an output or moves
	 * the gripper that nobody asked to (parol6_idle_cmd).
	 */
	struct parol6_cmd held;
	bool have_held;
};

int parol6_open(struct parol6 *p, const char *path, enum nr_link_mode mode);
int parol6_attach_fd(struct parol6 *p, int fd, enum nr_link_mode mode);
/* A link that only prints what it would send (parolctl --dry-run). */
void parol6_open_dry(struct parol6 *p);
/* Stops the arm (parol6_safe_stop) before closing. */
void parol6_close(struct parol6 *p);

int parol6_send(struct parol6 *p, const struct parol6_cmd *c);
/* Take in telemetry that has arrived (waiting at most timeout_ms for one). */
int parol6_poll(struct parol6 *p, int timeout_ms);
/* Send, then wait up to timeout_ms for the telemetry it answers. */
int parol6_exchange(struct parol6 *p, const struct parol6_cmd *c,
		    int timeout_ms);
/* Idle, every speed zero, at the last known positions. */
int parol6_safe_stop(struct parol6 *p);
/*
 * A command that holds the arm where it is: idle, zero speeds, and the
 * outputs and gripper fields the board keeps (p->held: as the last frame
 * set them, or parol6_hold()); before any frame, the outputs as the
 * telemetry shows them.
 */
void parol6_idle_cmd(const struct parol6 *p, struct parol6_cmd *c);
/*
 * Take c's outputs and gripper fields as what the board keeps (every send
 * does): for a program that knows them from before its first frame, such
 * as parolctl's previous run (the board itself cannot say: it reports the
 * outputs each frame sets).
 */
void parol6_hold(struct parol6 *p, const struct parol6_cmd *c);

/*
 * The command loop: at hz on a CLOCK_MONOTONIC timerfd (SCHED_FIFO when
 * allowed), tick() fills the next command from the latest telemetry (NULL
 * before the first). tick returns 0 to go on, > 0 when done, < 0 to fail.
 * The loop ends on that, on *stop (a signal handler's flag), or when no
 * telemetry came for link_timeout_ms (-ENOLINK); every way out sends the
 * safe stop first.
 */
typedef int (*parol6_tick_fn)(void *ctx, const struct parol6_telemetry *t,
			      struct parol6_cmd *next);
int parol6_run(struct parol6 *p, int hz, parol6_tick_fn tick, void *ctx,
	       volatile sig_atomic_t *stop, int link_timeout_ms);

#endif /* _PAROL6_PAROL6_H */
