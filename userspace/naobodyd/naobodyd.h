/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the daemon's shared state and its core (core.c): the one
 * controller, the cycle, the death switch.
 *
 * One thread. The body's fd drives the cycle: each new body state runs the
 * watchdog, the motion layer and the LEDs, writes the actuators, and sends
 * the LoLA packet and the State. Sockets never block the cycle.
 */
#ifndef NAOBODYD_H
#define NAOBODYD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <naobody/body.h>

#include "body.h"
#include "leds.h"
#include "loop.h"
#include "motion.h"
#include "outq.h"
#include "watchdog.h"

#define NAOBODYD_VERSION	"0.1"
#define API_VERSION		1
#define API_DEFAULT_PORT	7700
#define GUARD_DEFAULT_PORT	7701
#define LOLA_DEFAULT_PATH	"/tmp/robocup"
#define DEVICE_DEFAULT_PATH	"/dev/naobody"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct config {
	const char *bind;		/* NULL: every interface */
	uint16_t port;
	const char *lola_path;		/* NULL: no LoLA socket */
	mode_t lola_mode;
	const char *device;
	bool sim;
	const char *sim_control;	/* the simulator's control socket, or NULL */
	const char *sim_script;
	float sim_battery;
	const char *guard_host;		/* where Stop sends the UDP stop; NULL: none */
	uint16_t guard_port;
	const char *body_id;		/* overrides */
	const char *head_id;
	bool echo_cancellation;
	int priority;			/* SCHED_FIFO, or 0 */
};

enum ctl_kind { CTL_NONE, CTL_API, CTL_LOLA };

struct api;
struct lola;

struct daemon {
	const struct config *cfg;
	struct loop loop;
	struct body *body;
	struct loop_watch body_watch;
	struct motion *motion;
	struct watchdog wd;
	struct leds leds;
	struct api *api;
	struct lola *lola;
	int guard_fd;			/* UDP to naoguard, or -1 */

	/* The controller: at most one, over either socket. */
	enum ctl_kind ctl;
	void *ctl_who;

	struct body_frame frame;	/* the newest */
	bool have_frame;
	struct nb_actuators cmd;	/* written this cycle */
	struct nb_actuators lola_cmd;	/* the LoLA client's, every key retained */
	bool lola_driving;		/* this cycle's command was the LoLA client's */
	struct motion_status status;
	uint32_t touch_bits;
	enum fall_state fall_reported;
	struct buf scratch;		/* events */
};

/*
 * The controller. A new one replaces the previous, which is disconnected;
 * core_release() when a client goes; core_heard() feeds the watchdog.
 */
void core_claim(struct daemon *d, enum ctl_kind kind, void *who);
void core_release(struct daemon *d, void *who);
void core_heard(struct daemon *d, void *who);
bool core_is_controller(const struct daemon *d, const void *who);

/* The death switch: the body's stop, and the UDP stop to naoguard. */
void core_stop(struct daemon *d, const char *who);

/* One cycle, for each new body state. */
void core_cycle(struct daemon *d, const struct body_frame *f);

/* Hello's ids and flags. */
const char *core_body_id(const struct daemon *d);
const char *core_head_id(const struct daemon *d);

#endif
