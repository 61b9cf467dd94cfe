// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the core (see naobodyd.h): the one controller, the cycle and
 * the death switch.
 *
 * Who drives the body, each cycle:
 *   - a LoLA client that is the controller, while the watchdog is quiet:
 *     its actuator maps go to the body as they are (clamped to the joints'
 *     ranges), LEDs included, as with LoLA;
 *   - otherwise the motion layer, with the daemon's LEDs and the robot API
 *     client's overrides.
 * When the LoLA client stops driving (it went quiet or away), the motion
 * layer takes over from its last command, so nothing jumps.
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "api.h"
#include "clock.h"
#include "codec.h"
#include "joints.h"
#include "log.h"
#include "lola.h"
#include "naobodyd.h"

static const char *const ctl_name[] = {
	[CTL_NONE] = "nobody", [CTL_API] = "a robot API client", [CTL_LOLA] = "a LoLA client",
};

bool core_is_controller(const struct daemon *d, const void *who)
{
	return d->ctl != CTL_NONE && d->ctl_who == who;
}

void core_claim(struct daemon *d, enum ctl_kind kind, void *who)
{
	enum ctl_kind old = d->ctl;
	void *old_who = d->ctl_who;

	if (old != CTL_NONE && old_who != who) {
		char why[96];

		snprintf(why, sizeof(why), "replaced as the controller by %s", ctl_name[kind]);
		/* Clear first: the drop calls core_release(). */
		d->ctl = CTL_NONE;
		d->ctl_who = NULL;
		if (old == CTL_API && d->api)
			api_drop(d->api, old_who, why);
		else if (d->lola)
			lola_drop(d->lola, old_who, why);
	}
	d->ctl = kind;
	d->ctl_who = who;
}

void core_release(struct daemon *d, void *who)
{
	if (!core_is_controller(d, who))
		return;
	log_info("core: the controller is gone; the watchdog watches the silence");
	d->ctl = CTL_NONE;
	d->ctl_who = NULL;
}

static void send_event(struct daemon *d, int rc)
{
	if (!rc && d->scratch.len && d->api)
		api_send_controller(d->api, d->scratch.data, d->scratch.len);
	d->scratch.len = 0;
}

void core_heard(struct daemon *d, void *who)
{
	if (!core_is_controller(d, who))
		return;
	if (watchdog_heard(&d->wd, mono_ns()) == WD_RELEASED) {
		log_info("watchdog: the controller is back: released");
		send_event(d, codec_event_watchdog(&d->scratch, false));
	}
}

void core_stop(struct daemon *d, const char *who)
{
	static const char packet[] = "NAOBODY STOP naobodyd";
	int err = d->body->ops->stop(d->body, NAOBODY_STOP_API);

	if (err)
		log_err("stop: from %s: the body's stop failed: %s", who, strerror(-err));
	else
		log_warn("stop: from %s: death switch latched", who);
	/* The guard's UDP stop too, in case the body's path is stuck. */
	if (d->guard_fd >= 0 && send(d->guard_fd, packet, sizeof(packet) - 1, MSG_DONTWAIT) < 0)
		log_warn("stop: UDP stop to naoguard: %s", strerror(errno));
}

const char *core_body_id(const struct daemon *d)
{
	return d->body->info.body_id;
}

const char *core_head_id(const struct daemon *d)
{
	return d->body->info.head_id;
}

static void watchdog_step(struct daemon *d, uint64_t now)
{
	enum watchdog_change c = watchdog_check(&d->wd, now);

	if (c == WD_NONE)
		return;
	log_warn("watchdog: the controller has been quiet for %s: %s",
		 c == WD_STAND ? "0.5 s" : "3 s",
		 c == WD_STAND ? "standing still" : "sitting down, then limp");
	motion_watchdog(d->motion, c == WD_STAND ? 1 : 2, now);
	send_event(d, codec_event_watchdog(&d->scratch, true));
}

static void events_step(struct daemon *d, const struct body_frame *f)
{
	uint32_t bits = api_touch_bits(&f->s), changed = bits ^ d->touch_bits;

	for (int i = 0; i < API_TOUCHES && changed; i++) {
		if (changed & (1U << i))
			send_event(d, codec_event_touch(&d->scratch, i, bits & (1U << i)));
	}
	d->touch_bits = bits;
	if (d->status.fall != d->fall_reported) {
		log_info("core: fall state %s", fall_state_name[d->status.fall]);
		d->fall_reported = d->status.fall;
		send_event(d, codec_event_fall(&d->scratch, fall_state_name[d->status.fall]));
	}
}

void core_cycle(struct daemon *d, const struct body_frame *f)
{
	uint64_t now = f->time_ns;
	struct nb_actuators out = d->cmd;
	float walk[3], stiff = 0.0f;
	bool lola;

	d->frame = *f;
	d->have_frame = true;
	if (d->api)
		api_housekeeping(d->api, mono_ns());
	/* Before deciding who drives: the watchdog may take over this cycle. */
	watchdog_step(d, now);
	lola = d->ctl == CTL_LOLA && d->wd.stage == 0;

	if (!lola && d->lola_driving)
		motion_adopt(d->motion, &d->lola_cmd, now);
	d->lola_driving = lola;
	motion_update(d->motion, f, &out, walk);
	motion_status(d->motion, &d->status);

	if (lola) {
		out = d->lola_cmd;
		for (int j = 0; j < NAOBODY_JOINTS; j++)
			out.position[j] = joint_clamp(j, out.position[j]);
		d->status.motion = "Lola";
		walk[0] = walk[1] = walk[2] = 0.0f;
	} else {
		struct leds_status ls;

		for (int j = 0; j < NAOBODY_JOINTS; j++)
			stiff = fmaxf(stiff, out.stiffness[j]);
		ls.stopped = f->flags & BODY_F_STOPPED;
		ls.controller = d->ctl != CTL_NONE;
		ls.watchdog = d->wd.stage > 0;
		ls.stiff = stiff > 0.05f;
		ls.charge = f->s.battery[0];
		ls.charging = f->s.battery[2] > 0.0f;
		leds_compose(&d->leds, &ls, now, &out);
		out.sonar[0] = out.sonar[1] = true;
	}
	d->cmd = out;
	d->body->ops->write(d->body, &out);
	if (d->body->ops->walk)
		d->body->ops->walk(d->body, walk[0], walk[1], walk[2]);

	events_step(d, f);
	if (d->lola)
		lola_publish(d->lola, f);
	if (d->api)
		api_publish(d->api, f, &d->status);
}
