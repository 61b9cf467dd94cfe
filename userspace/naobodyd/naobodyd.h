/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the daemon's shared state and its core (core.c): the one
 * controller, the cycle, the death switch.
 *
 * Two threads (Documentation/naobodyd.rst, "Threads"):
 *   - the body thread (SCHED_FIFO with --priority) owns the body, the
 *     controller, the watchdog, the motion layer and the LEDs, on its own
 *     loop (d->loop). The body's fd drives the cycle: each new body state
 *     drains the robot API's commands and the newest LoLA command, runs the
 *     watchdog, the motion layer and the LEDs, writes the actuators, sends
 *     the LoLA packets (non-blocking) and hands the state to the network
 *     thread;
 *   - the LoLA thread (normal priority; lola.h) owns the LoLA socket's
 *     clients: it reads and validates their maps within a budget and
 *     hands the newest command over;
 *   - the logging thread (log.h) writes every thread's log lines;
 *   - the network thread (normal priority) owns the robot API's sockets
 *     (d->net_loop): framing, decoding, sessions, State and events out.
 * They share only d->handoff (handoff.h), the LoLA slots (lola_slots.h)
 * and what is set before the body thread starts and never changes (cfg,
 * body->info).
 */
#ifndef NAOBODYD_H
#define NAOBODYD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <naobody/body.h>

#include <motion/motion.h>

#include "body.h"
#include "handoff.h"
#include "head/head_camera.h"
#include "head/head_audio.h"
#include "leds.h"
#include "loop.h"
#include "outq.h"
#include "rest/rest_cmd.h"
#include "watchdog.h"

#define NAOBODYD_VERSION	"0.1"
#define API_VERSION		1
#define API_DEFAULT_PORT	7700
#define GUARD_DEFAULT_PORT	7701
#define LOLA_DEFAULT_PATH	"/tmp/robocup"
#define DEVICE_DEFAULT_PATH	"/dev/naobody"

struct config {
	const char *bind;		/* NULL: every interface */
	uint16_t port;
	const char *lola_path;		/* NULL: no LoLA socket */
	mode_t lola_mode;
	const char *device;
	bool sim;
	const char *sim_control;	/* the simulator's control socket, or NULL */
	const char *sim_script;
	const char *sim_model;		/* the physical body's MuJoCo model, or NULL: kinematic */
	float sim_battery;
	bool sim_sitting;		/* the physical body starts sitting, not lying */
	float sim_uncalibrated;		/* s the simulated body reports no calibration */
	bool allow_uncalibrated;	/* stiffen a body without its calibration */
	const char *robot_motions;	/* naoctl verify's verdict: the real body walks */
	const char *guard_host;		/* where Stop sends the UDP stop; NULL: none */
	uint16_t guard_port;
	const char *body_id;		/* overrides */
	const char *head_id;
	const char *head_id_file;	/* where the head keeps its id, or NULL */
	const char *head_bus;		/* the head's i2c-dev file, or NULL: none */
	bool echo_cancellation;
	int priority;			/* SCHED_FIFO, or 0 */
	const char *user;		/* started as root: who it becomes (privileges.h) */
	bool rest;			/* the REST API (rest.h) */
	uint16_t rest_port;
	const char *rest_bind;		/* NULL: every interface */
	const char *state_dir;		/* the REST token's directory */
	const char *www_dir;		/* the status page's files, or NULL */
	const char *serial[8];		/* --serial KIND:PATH (rest_serial.h) */
	unsigned int n_serial;
	struct camera_config cameras;	/* head_camera.h */
	struct head_audio_config audio;	/* the head's ALSA devices (head_audio.h) */
};

enum ctl_kind { CTL_NONE, CTL_API, CTL_LOLA };

struct api;
struct head_bus;
struct lola;

struct daemon {
	const struct config *cfg;
	struct loop loop;		/* the body thread's */
	struct loop net_loop;		/* the network thread's */
	struct handoff handoff;
	struct body *body;
	struct loop_watch body_watch;
	struct motion *motion;
	struct watchdog wd;
	struct leds leds;
	struct head_bus *head;		/* the head bus's reader, or NULL */
	struct api *api;
	struct lola *lola;
	struct head_cameras *cameras;	/* their threads; the network thread takes the frames */
	struct head_audio *audio;	/* its own threads and locks; NULL: none */
	struct rest_mailbox rest_box;	/* the REST API's LED orders (rest_cmd.h) */
	int guard_fd;			/* UDP to naoguard, or -1 */
	_Atomic uint64_t guard_sent_ns;	/* the last UDP stop (core_stop()); 0: none */
	_Atomic uint64_t guard_skipped;	/* stops within a period of the last one sent */

	/*
	 * The controller: at most one, over either socket. For a LoLA client
	 * ctl_who is its id, as lola_who() makes it; for a robot API client its
	 * session id, as core_api_who() makes it (the body thread never sees
	 * the network thread's sessions).
	 */
	enum ctl_kind ctl;
	void *ctl_who;
	uint64_t lost_to_lola;		/* for the next news: that API session lost */

	struct body_frame frame;	/* the newest */
	bool have_frame;
	struct nb_actuators cmd;	/* written this cycle */
	bool lola_driving;		/* this cycle's command was the LoLA client's */
	bool may_stiffen;		/* last cycle's calibration gate (core.c) */
	struct motion_status status;
	uint32_t touch_bits;
	enum fall_state fall_reported;
	struct buf events;		/* this cycle's, for the API controller */
};

/*
 * The controller (body thread): a kind and a "who" (core_api_who(),
 * lola_who()). A new one replaces the previous, which is disconnected;
 * core_release() when a client goes; core_heard_at() feeds the watchdog
 * with the time the client was heard.
 */
void core_claim(struct daemon *d, enum ctl_kind kind, void *who);
void core_release(struct daemon *d, enum ctl_kind kind, void *who);
void core_heard_at(struct daemon *d, enum ctl_kind kind, void *who, uint64_t now);
bool core_is_controller(const struct daemon *d, enum ctl_kind kind, const void *who);
/* A robot API session's id as the controller's "who". */
void *core_api_who(uint64_t session);
/* The robot API's commands waiting in the hand-over (each cycle). */
void core_commands(struct daemon *d);

/*
 * The death switch: the body's stop, and the UDP stop to naoguard. From
 * either thread: it touches only the body's stop (body.h: safe from any
 * thread) and the guard's socket.
 */
void core_stop(struct daemon *d, const char *who);

/* One cycle, for each new body state. */
void core_cycle(struct daemon *d, const struct body_frame *f);

/* Hello's ids and flags. */
const char *core_body_id(const struct daemon *d);
const char *core_head_id(const struct daemon *d);

#endif
