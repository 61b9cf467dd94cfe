// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the core (see naobodyd.h): the one controller, the cycle and
 * the death switch. Everything here runs on the body thread; the robot API
 * reaches it only through the hand-over's commands (core_commands()).
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

#include <motion/care.h>
#include <motion/joints.h>

#include "api/api.h"
#include "clock.h"
#include "api/codec.h"
#include "log.h"
#include "lola/lola.h"
#include "naobodyd.h"

static const char *const ctl_name[] = {
	[CTL_NONE] = "nobody", [CTL_API] = "a robot API client", [CTL_LOLA] = "a LoLA client",
};

bool core_is_controller(const struct daemon *d, enum ctl_kind kind, const void *who)
{
	return d->ctl != CTL_NONE && d->ctl == kind && d->ctl_who == who;
}

void *core_api_who(uint64_t session)
{
	return (void *)(uintptr_t)session;
}

static uint64_t ctl_api(const struct daemon *d)
{
	return d->ctl == CTL_API ? (uint64_t)(uintptr_t)d->ctl_who : 0;
}

/* The holder for the REST API (handoff.h); peer only for a robot API client. */
static void publish_ctl(struct daemon *d, const char *peer)
{
	struct ctl_news n = { .kind = d->ctl, .session = ctl_api(d), .since_ns = mono_ns() };

	if (peer)
		snprintf(n.peer, sizeof(n.peer), "%s", peer);
	handoff_set_controller(&d->handoff, &n);
}

void core_claim(struct daemon *d, enum ctl_kind kind, void *who)
{
	enum ctl_kind old = d->ctl;
	void *old_who = d->ctl_who;

	if (old != CTL_NONE && (old != kind || old_who != who)) {
		char why[96];

		snprintf(why, sizeof(why), "replaced as the controller by %s", ctl_name[kind]);
		/* Clear first: the drop calls core_release(). */
		d->ctl = CTL_NONE;
		d->ctl_who = NULL;
		if (old == CTL_API)
			/* The network thread closes it when it reads the news. */
			d->lost_to_lola = (uint64_t)(uintptr_t)old_who;
		else if (d->lola)
			lola_drop(d->lola, old_who, why);
	}
	d->ctl = kind;
	d->ctl_who = who;
	/* A robot API client's claim publishes itself, with its address (core_commands). */
	if (kind != CTL_API && (old != kind || old_who != who))
		publish_ctl(d, NULL);
}

void core_release(struct daemon *d, enum ctl_kind kind, void *who)
{
	if (!core_is_controller(d, kind, who))
		return;
	log_info_limited("core: the controller is gone; the watchdog watches the silence");
	d->ctl = CTL_NONE;
	d->ctl_who = NULL;
	publish_ctl(d, NULL);
}

/*
 * Events are for the robot API controller: they collect in d->events and go
 * to the network thread with the cycle's news. An event while no API client
 * controls the body is nobody's: dropped, as before.
 */
static void send_event(struct daemon *d, size_t before, int rc)
{
	if (rc || d->ctl != CTL_API)
		d->events.len = before;
}

#define EVENT(d, call) do { \
		size_t before_ = (d)->events.len; \
		send_event((d), before_, (call)); \
	} while (0)

void core_heard_at(struct daemon *d, enum ctl_kind kind, void *who, uint64_t now)
{
	if (!core_is_controller(d, kind, who))
		return;
	if (watchdog_heard(&d->wd, now) == WD_RELEASED) {
		log_info_limited("watchdog: the controller is back: released");
		EVENT(d, codec_event_watchdog(&d->events, false));
	}
}

/*
 * A Stop flood must not become a flood of datagrams: the guard's stop goes
 * out at most once per body period, whoever calls. The first of a burst
 * goes at once; the body's own stop (above it) is latched on every call.
 */
static bool guard_due(struct daemon *d, uint64_t now)
{
	uint64_t last = atomic_load_explicit(&d->guard_sent_ns, memory_order_relaxed);

	if (last && now - last < d->body->info.period_ns) {
		atomic_fetch_add_explicit(&d->guard_skipped, 1, memory_order_relaxed);
		return false;
	}
	/* One caller of several at once wins the period. */
	return atomic_compare_exchange_strong(&d->guard_sent_ns, &last, now ? now : 1);
}

void core_stop(struct daemon *d, const char *who)
{
	static const char packet[] = "NAOBODY STOP naobodyd";
	int err = d->body->ops->stop(d->body, NAOBODY_STOP_API);

	if (err)
		log_err_limited("stop: from %s: the body's stop failed: %s", who, strerror(-err));
	else
		log_warn_limited("stop: from %s: death switch latched", who);
	/* The guard's UDP stop too, in case the body's path is stuck. */
	if (d->guard_fd >= 0 && guard_due(d, mono_ns()) &&
	    send(d->guard_fd, packet, sizeof(packet) - 1, MSG_DONTWAIT) < 0)
		log_warn_limited("stop: UDP stop to naoguard: %s", strerror(errno));
}

/* One robot API command, from the hand-over. */
static void command(struct daemon *d, const struct body_cmd *c)
{
	void *who = core_api_who(c->session);

	switch (c->kind) {
	case BC_CLAIM:
		if (!core_is_controller(d, CTL_API, who)) {
			core_claim(d, CTL_API, who);
			publish_ctl(d, c->peer);
		}
		break;
	case BC_RELEASE:
		core_release(d, CTL_API, who);
		return;
	default:
		break;
	}
	/* A command from a client that lost the body meanwhile is dropped. */
	if (!core_is_controller(d, CTL_API, who))
		return;
	core_heard_at(d, CTL_API, who, c->time_ns);
	switch (c->kind) {
	case BC_POWER:
		motion_power(d->motion, c->power, mono_ns());
		break;
	case BC_MOTION:
		motion_request(d->motion, &c->motion, mono_ns());
		break;
	case BC_LEDS:
		leds_set(&d->leds, c->leds.all_back ? NULL : &c->leds.req);
		break;
	default:
		break;
	}
}

/*
 * The REST API's order, if one waits (rest_cmd.h). The LEDs go through
 * leds_set(), as the robot API's do; while a controller holds the body the
 * LEDs are its, and the order is refused rather than mixed in.
 */
/*
 * POST /controller/release: the holder loses the role as if it had gone
 * (its connection is closed, the reason logged); the watchdog then takes
 * the body to its safe state as for any controller that goes. Nothing is
 * commanded here.
 */
static void rest_release(struct daemon *d, const struct rest_cmd *c, uint64_t seq)
{
	enum ctl_kind old = d->ctl;
	void *who = d->ctl_who;

	if (old == CTL_NONE || (c->session && (old != CTL_API || ctl_api(d) != c->session))) {
		rest_cmd_answer(&d->rest_box, seq, RC_NOBODY);
		return;
	}
	/* Clear first: the LoLA drop calls core_release(). */
	d->ctl = CTL_NONE;
	d->ctl_who = NULL;
	if (old == CTL_API)
		handoff_release_api(&d->handoff, (uint64_t)(uintptr_t)who);
	else if (d->lola)
		lola_drop(d->lola, who, "released as the controller by the REST API");
	log_warn_limited("core: the REST API released %s from the controller role; the "
			 "watchdog watches the silence", ctl_name[old]);
	publish_ctl(d, NULL);
	rest_cmd_answer(&d->rest_box, seq, RC_DONE);
}

static void rest_command(struct daemon *d)
{
	struct rest_cmd c;
	uint64_t seq;

	if (!rest_cmd_take(&d->rest_box, &c, &seq))
		return;
	if (c.kind == RCMD_RELEASE) {
		rest_release(d, &c, seq);
		return;
	}
	if (d->ctl != CTL_NONE) {
		rest_cmd_answer(&d->rest_box, seq, RC_CONTROLLED);
		return;
	}
	leds_set(&d->leds, c.all_back ? NULL : &c.leds);
	rest_cmd_answer(&d->rest_box, seq, RC_DONE);
}

void core_commands(struct daemon *d)
{
	struct body_cmd c;

	/* Bounded: the ring holds at most HANDOFF_CMDS. */
	for (int i = 0; i < HANDOFF_CMDS && handoff_pop(&d->handoff, &c); i++)
		command(d, &c);
	rest_command(d);
}

/*
 * The newest actuator map a LoLA client sent: it makes that client the
 * controller (the previous one, on either socket, goes), and feeds the
 * watchdog. The command itself stays LoLA's (lola_command()).
 */
static void lola_commands(struct daemon *d)
{
	uint64_t heard;
	void *who;

	if (!d->lola || !lola_take(d->lola, &who, &heard))
		return;
	if (!core_is_controller(d, CTL_LOLA, who)) {
		log_info_limited("lola: client %llu sent an actuator map: it is the controller",
				 (unsigned long long)(uintptr_t)who);
		core_claim(d, CTL_LOLA, who);
	}
	core_heard_at(d, CTL_LOLA, who, heard);
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
	log_warn_limited("watchdog: the controller has been quiet for %s: %s",
		 c == WD_STAND ? "0.5 s" : "3 s",
		 c == WD_STAND ? "standing still" : "sitting down, then limp");
	motion_watchdog(d->motion, c == WD_STAND ? 1 : 2, now);
	EVENT(d, codec_event_watchdog(&d->events, true));
}

/* What the motion layer refused, as Error events (codec.h's api_errors[]). */
static void refusals_step(struct daemon *d)
{
	static const struct {
		unsigned int bit;
		enum api_error e;
		const char *detail;
	} map[] = {
		{ MREF_STOPPED, AERR_STOPPED, NULL },
		{ MREF_UNCALIBRATED, AERR_UNCALIBRATED, NULL },
		{ MREF_FALLEN, AERR_FALLEN, NULL },
		{ MREF_WALK_TO, AERR_WALKING_DISABLED, "WalkTo" },
		{ MREF_WALK_TOWARD, AERR_WALKING_DISABLED, "WalkToward" },
		{ MREF_BATTERY, AERR_LOW_BATTERY, NULL },
	};
	unsigned int refused = motion_take_refusals(d->motion);

	for (size_t i = 0; refused && i < sizeof(map) / sizeof(map[0]); i++)
		if (refused & map[i].bit)
			EVENT(d, codec_event_error(&d->events, map[i].e, NULL, NULL, map[i].detail,
						   API_VERSION, 0));
}

/* Joints that became hot or cooled down (motion/care.h): the log and an event each. */
static void hot_step(struct daemon *d, const struct body_frame *f)
{
	uint32_t changed = motion_take_hot_changes(d->motion);

	for (int j = 0; changed && j < NAOBODY_JOINTS; j++) {
		bool hot = d->status.hot & (1U << j);

		if (!(changed & (1U << j)))
			continue;
		if (hot)
			log_warn("core: %s is hot (%.0f degC): its stiffness held at %.1f at most",
				 joint_name[j], f->s.temperature[j], CARE_HOT_STIFFNESS);
		else
			log_info("core: %s is cool again (%.0f degC): its stiffness no longer held",
				 joint_name[j], f->s.temperature[j]);
		EVENT(d, codec_event_temperature(&d->events, j, hot, f->s.temperature[j],
						 hot ? CARE_HOT_STIFFNESS : 1.0f));
	}
}

static void events_step(struct daemon *d, const struct body_frame *f)
{
	uint32_t bits = api_touch_bits(&f->s), changed = bits ^ d->touch_bits;

	refusals_step(d);
	hot_step(d, f);

	for (int i = 0; i < API_TOUCHES && changed; i++) {
		if (changed & (1U << i))
			EVENT(d, codec_event_touch(&d->events, i, bits & (1U << i)));
	}
	d->touch_bits = bits;
	if (d->status.fall != d->fall_reported) {
		log_info("core: fall state %s", fall_state_name[d->status.fall]);
		d->fall_reported = d->status.fall;
		EVENT(d, codec_event_fall(&d->events, fall_state_name[d->status.fall]));
	}
}

/*
 * The one gate where stiffness is raised: a body whose calibration is not
 * its own (BODY_F_UNCALIBRATED) stays limp, whoever asks, unless
 * --allow-uncalibrated. Wrong zero offsets would move stiffened joints to
 * positions nobody asked for.
 */
static const char uncalibrated_why[] =
	"the body's calibration (its preference block) is not read; "
	"'naoctl status' says why; --allow-uncalibrated overrides";

static bool may_stiffen(struct daemon *d, const struct body_frame *f)
{
	bool ok = !(f->flags & BODY_F_UNCALIBRATED) || d->cfg->allow_uncalibrated;

	if (!d->have_frame || ok != d->may_stiffen) {
		if (!ok)
			log_warn("core: no stiffness (Wake, LoLA) for now: %s", uncalibrated_why);
		else if (d->have_frame)
			log_info("core: the body's calibration is read: Wake and LoLA may stiffen it");
		else if (f->flags & BODY_F_UNCALIBRATED)
			log_warn("core: --allow-uncalibrated: stiffening a body without its calibration");
	}
	d->may_stiffen = ok;
	return ok;
}

void core_cycle(struct daemon *d, const struct body_frame *f)
{
	uint64_t now = f->time_ns;
	struct nb_actuators out = d->cmd;
	struct motion_input in = {
		.time_ns = now, .stopped = f->flags & BODY_F_STOPPED, .s = &f->s,
	};
	float stiff = 0.0f;
	bool lola, stiffen;

	stiffen = may_stiffen(d, f);
	d->frame = *f;
	d->have_frame = true;
	core_commands(d);
	lola_commands(d);
	/* Before deciding who drives: the watchdog may take over this cycle. */
	watchdog_step(d, now);
	/* Without the gate, the motion layer drives: limp. */
	lola = d->ctl == CTL_LOLA && d->wd.stage == 0 && stiffen;
	in.elsewhere = lola;
	motion_hold_limp(d->motion, stiffen ? NULL : uncalibrated_why);

	if (!lola && d->lola_driving)
		motion_adopt(d->motion, lola_command(d->lola), now);
	d->lola_driving = lola;
	motion_update(d->motion, &in, &out);
	motion_status(d->motion, &d->status);

	if (lola) {
		out = *lola_command(d->lola);
		for (int j = 0; j < NAOBODY_JOINTS; j++)
			out.position[j] = joint_clamp(j, out.position[j]);
		motion_limit(d->motion, &out);	/* its hot joints too (motion/care.h) */
		d->status.motion = "Lola";
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
	if (!stiffen)
		memset(out.stiffness, 0, sizeof(out.stiffness));
	d->cmd = out;
	d->body->ops->write(d->body, &out);

	events_step(d, f);
	if (d->lola && !lola_publish(d->lola, f, d->ctl == CTL_LOLA ? d->ctl_who : NULL, &d->cmd))
		/* The controller's client went (closed, dropped): the silence is watched. */
		core_release(d, CTL_LOLA, d->ctl_who);
	handoff_publish(&d->handoff, f, &d->status, ctl_api(d), d->lost_to_lola, ctl_api(d),
			d->events.data, (uint32_t)d->events.len);
	d->events.len = 0;
	d->lost_to_lola = 0;
}
