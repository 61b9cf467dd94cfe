// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd's REST API: the HTTP side (libmicrohttpd), the JSON (jansson),
 * the routes, and the Server-Sent Events hub. See rest.h for the threads,
 * Documentation/rest-api.rst for the design, rest-api.yaml for the contract.
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>

#include <motion/fall.h>
#include <motion/joints.h>

#include "clock.h"
#include "api/codec.h"
#include "head/head_bus.h"
#include "log.h"
#include "naobodyd.h"
#include "rest.h"
#include "rest_boards.h"
#include "rest_cmd.h"
#include "rest_conns.h"
#include "rest_host.h"
#include "rest_leds.h"
#include "rest_limit.h"
#include "rest_net.h"
#include "rest_serial.h"
#include "rest_static.h"
#include "rest_token.h"

#define REST_TIMEOUT_S		10		/* idle (the headers' own limit: rest_conns.h) */
#define REST_CONN_MEMORY	(32 * 1024)	/* a request's headers must fit */
#define REST_THREAD_STACK	(128 * 1024)	/* locked in with --priority */
#define REST_BODY_MAX		4096		/* a request body, bytes */
#define REST_EVENTS		256		/* the hub's event ring */
#define REST_EVENT_LEN		256		/* one event's JSON */
#define SSE_BUF			(64 * 1024)	/* one stream's chunk */
#define SSE_KEEPALIVE_NS	(15ULL * 1000000000ULL)
#define SSE_DEFAULT_HZ		10.0
#define SSE_MIN_HZ		0.01		/* one state every 100 s */
#define REAP_EVERY_NS		(100ULL * 1000000ULL)	/* late headers looked for */

struct rest_event {
	char kind[16];
	char json[REST_EVENT_LEN];
};

/* What the feeder hands the streams: the newest state and a ring of events. */
struct hub {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* CLOCK_MONOTONIC */
	struct body_news news;		/* events[] unused */
	bool have;
	uint64_t ev_seq;		/* events published so far */
	struct rest_event ev[REST_EVENTS];
	bool quit;
};

struct rest {
	struct daemon *d;
	struct MHD_Daemon *mhd;
	struct localnet *ln;
	struct rest_token *token;
	struct rest_serial *serial;	/* the n_robot bodies (rest_serial.h) */
	struct hub hub;
	pthread_t feeder;
	bool feeder_started;
	atomic_bool quit;
	uint64_t start_ns;
	struct sockaddr_storage bind_addr;
	struct fail_limit limit;	/* wrong tokens (rest_limit.h) */
	struct rest_conns conns;	/* per source, late headers (rest_conns.h) */
	struct ratelimit rl_outside, rl_token, rl_leds, rl_host;
};

/* ---- JSON ---------------------------------------------------------------- */

static json_t *floats(const float *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

static json_t *joints(const float *lola)
{
	json_t *a = json_array();

	for (int i = 0; i < API_JOINTS; i++)
		json_array_append_new(a, json_real(lola[api_joint_lola[i]]));
	return a;
}

/* The joints whose stiffness their heat holds (care.h), by the API's names. */
static json_t *hot_joints(uint32_t hot)
{
	json_t *a = json_array();

	for (int i = 0; i < API_JOINTS; i++)
		if (hot & (1U << api_joint_lola[i]))
			json_array_append_new(a, json_string(api_joint_name[i]));
	return a;
}

/*
 * LoLA's battery temperature has the 0.1 factor applied twice (28 C reads
 * 2.8; the body sensors spec): the REST API reports whole degrees Celsius.
 */
static json_int_t battery_celsius(float lola)
{
	return (json_int_t)lroundf(lola * 10.0f);
}

/* The converted state: the robot API's State, in SI units, as JSON. */
static json_t *state_json(const struct body_news *n)
{
	const struct nb_sensors *s = &n->frame.s;
	uint32_t touch = api_touch_bits(s);
	json_t *o = json_object(), *t = json_object();

	for (int i = 0; i < API_TOUCHES; i++)
		json_object_set_new(t, api_touch_name[i], json_boolean(touch & (1U << i)));
	json_object_set_new(o, "time", json_real(mono_to_epoch(n->frame.time_ns)));
	json_object_set_new(o, "cycle", json_integer((json_int_t)n->frame.cycle));
	json_object_set_new(o, "stopped", json_boolean(n->frame.flags & BODY_F_STOPPED));
	json_object_set_new(o, "board_answering",
			    json_boolean(!(n->frame.flags & BODY_F_NO_ANSWER)));
	json_object_set_new(o, "primary_state",
			    json_string(primary_state_name[n->status.primary]));
	json_object_set_new(o, "fall_state", json_string(fall_state_name[n->status.fall]));
	json_object_set_new(o, "motion", json_string(n->status.motion ? n->status.motion : ""));
	json_object_set_new(o, "odometry", n->status.has_odometry ?
			    floats(n->status.odometry, 3) : json_null());
	json_object_set_new(o, "odometry_uncertainty", n->status.has_odometry ?
			    json_real(n->status.odometry_uncertainty) : json_null());
	json_object_set_new(o, "hot_joints", hot_joints(n->status.hot));
	json_object_set_new(o, "battery",
			    json_pack("{s:f,s:f,s:I,s:b}", "charge", (double)s->battery[0],
				      "current", (double)s->battery[2], "temperature",
				      battery_celsius(s->battery[3]), "charging",
				      s->battery[2] > 0.0f));
	json_object_set_new(o, "imu",
			    json_pack("{s:o,s:o,s:o}", "linear_acceleration",
				      floats(s->accelerometer, 3), "angular_velocity",
				      floats(s->gyroscope, 3), "roll_pitch", floats(s->angles, 2)));
	json_object_set_new(o, "sonar", json_pack("{s:f,s:f}", "left", (double)s->sonar[0],
						  "right", (double)s->sonar[1]));
	json_object_set_new(o, "left_foot_pressure", floats(s->fsr, 4));
	json_object_set_new(o, "right_foot_pressure", floats(s->fsr + NAOBODY_FSR_RIGHT_FOOT, 4));
	json_object_set_new(o, "touch", t);
	/* The head bus's readings (head_bus.h); 0 until read, as the spec says. */
	json_object_set_new(o, "head",
			    json_pack("{s:f,s:f,s:f,s:f}", "voltage",
				      (double)n->frame.head.voltage, "current",
				      (double)n->frame.head.current, "power",
				      (double)n->frame.head.power, "face_temperature",
				      (double)n->frame.head.face_temperature));
	json_object_set_new(o, "joint_positions", joints(s->position));
	json_object_set_new(o, "joint_temperatures", joints(s->temperature));
	json_object_set_new(o, "joint_currents", joints(s->current));
	json_object_set_new(o, "joint_stiffness", joints(s->stiffness));
	return o;
}

/* 13 digits: the time to the millisecond; the sensors' floats need no more. */
static char *dump(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(13));

	json_decref(o);
	return s;
}

/* ---- the feeder: state and events for the streams ------------------------ */

/* Called with the hub's lock held. */
static void hub_event(struct hub *h, const char *kind, json_t *data)
{
	struct rest_event *e = &h->ev[h->ev_seq % REST_EVENTS];
	char *s;

	json_object_set_new(data, "time", json_real(mono_to_epoch(h->news.frame.time_ns)));
	s = dump(data);
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->json, sizeof(e->json), "%s", s ? s : "{}");
	free(s);
	h->ev_seq++;
}

/* Who holds the controller role, by the names GET /controller uses. */
static const char *holder_name(uint32_t kind)
{
	switch (kind) {
	case CTL_API:
		return "robot-api";
	case CTL_LOLA:
		return "lola";
	default:
		return "none";
	}
}

/* The holder: GET /controller and the SSE controller event's fields. */
static json_t *holder_json(const struct ctl_news *c, uint64_t now)
{
	bool api = c->kind == CTL_API;

	return json_pack("{s:s,s:o,s:o,s:o}", "holder", holder_name(c->kind),
			 "session", api ? json_integer((json_int_t)c->session) : json_null(),
			 "peer", api && c->peer[0] ? json_string(c->peer) : json_null(),
			 "held_s", c->kind != CTL_NONE && now >= c->since_ns ?
			 json_real((double)(now - c->since_ns) / 1e9) : json_null());
}

/* What changed between two states, as events. Called with the lock held. */
static void diff_events(struct hub *h, const struct body_news *old, const struct body_news *n)
{
	uint32_t was = api_touch_bits(&old->frame.s), now = api_touch_bits(&n->frame.s);
	uint32_t stop = BODY_F_STOPPED, gone = BODY_F_NO_ANSWER;

	if ((old->frame.flags ^ n->frame.flags) & stop)
		hub_event(h, n->frame.flags & stop ? "stop" : "rearm",
			  json_pack("{s:b}", "stopped", !!(n->frame.flags & stop)));
	if ((old->frame.flags ^ n->frame.flags) & gone)
		hub_event(h, "board", json_pack("{s:b}", "answering", !(n->frame.flags & gone)));
	for (int i = 0; i < API_TOUCHES; i++)
		if ((was ^ now) & (1U << i))
			hub_event(h, "touch", json_pack("{s:s,s:b}", "sensor", api_touch_name[i],
							"pressed", !!(now & (1U << i))));
	if (old->status.fall != n->status.fall)
		hub_event(h, "fall", json_pack("{s:s}", "state", fall_state_name[n->status.fall]));
	if (old->status.primary != n->status.primary)
		hub_event(h, "primary_state",
			  json_pack("{s:s}", "state", primary_state_name[n->status.primary]));
	if (old->ctl.kind != n->ctl.kind || old->ctl.session != n->ctl.session ||
	    old->ctl.since_ns != n->ctl.since_ns) {
		json_t *o = holder_json(&n->ctl, mono_ns());

		json_object_del(o, "held_s");
		hub_event(h, "controller", o);
	}
}

static void *feeder_thread(void *arg)
{
	struct rest *r = arg;
	struct hub *h = &r->hub;
	uint64_t period = r->d->body->info.period_ns;
	/*
	 * Twice a period: the body thread does not wake this one (it wakes
	 * only the network thread), and a poll at the period itself would
	 * drift against the body's cycle and miss a state now and then.
	 */
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)(period ? period / 2 : 6000000) };
	struct pollfd pfd = { .fd = localnet_fd(r->ln), .events = POLLIN };
	static struct body_news n;	/* only this thread's; a few KiB off the stack */
	uint64_t reaped = 0;

	pthread_setname_np(pthread_self(), "naobodyd-restf");
	while (!atomic_load(&r->quit)) {
		if (ppoll(&pfd, 1, &ts, NULL) > 0)
			localnet_process(r->ln);
		if (mono_ns() - reaped >= REAP_EVERY_NS) {
			reaped = mono_ns();
			rest_conns_reap(&r->conns, reaped);
		}
		handoff_peek(&r->d->handoff, &n);
		if (!n.seq)
			continue;	/* no body state yet */
		pthread_mutex_lock(&h->lock);
		if (!h->have || n.seq != h->news.seq) {
			if (h->have)
				diff_events(h, &h->news, &n);
			memcpy(&h->news, &n, offsetof(struct body_news, events));
			h->have = true;
			pthread_cond_broadcast(&h->cond);
		}
		pthread_mutex_unlock(&h->lock);
	}
	return NULL;
}

/* ---- Server-Sent Events -------------------------------------------------- */

struct sse {
	struct rest *r;
	uint64_t every_ns;		/* between states */
	uint64_t next_due;
	uint64_t last_seq;
	uint64_t ev_next;
	uint64_t keepalive;
	size_t len, off;
	char buf[SSE_BUF];
	struct body_news news;
};

static void sse_add(struct sse *s, const char *kind, const char *json)
{
	int n = snprintf(s->buf + s->len, SSE_BUF - s->len, "event: %s\ndata: %s\n\n", kind, json);

	if (n > 0 && (size_t)n < SSE_BUF - s->len)
		s->len += (size_t)n;
}

static bool sse_room(const struct sse *s)
{
	return SSE_BUF - s->len > REST_EVENT_LEN + 64;
}

/*
 * One chunk: the events the stream has not had, then the newest state if
 * one is due. Waits (on the hub, only this stream's thread) when there is
 * nothing; a slow reader just finds newer news the next time.
 */
static ssize_t sse_reader(void *cls, uint64_t pos, char *out, size_t max)
{
	struct sse *s = cls;
	struct hub *h = &s->r->hub;
	bool state = false;
	size_t n;

	if (s->off == s->len) {
		s->off = s->len = 0;
		pthread_mutex_lock(&h->lock);
		for (;;) {
			uint64_t now = mono_ns();
			struct timespec until;
			uint64_t wake;

			if (h->quit) {
				pthread_mutex_unlock(&h->lock);
				return MHD_CONTENT_READER_END_OF_STREAM;
			}
			if (h->ev_seq - s->ev_next > REST_EVENTS) {
				char lost[64];

				snprintf(lost, sizeof(lost), "{\"events\":%llu}",
					 (unsigned long long)(h->ev_seq - s->ev_next - REST_EVENTS));
				sse_add(s, "dropped", lost);
				s->ev_next = h->ev_seq - REST_EVENTS;
			}
			while (s->ev_next < h->ev_seq && sse_room(s)) {
				const struct rest_event *e = &h->ev[s->ev_next % REST_EVENTS];

				sse_add(s, e->kind, e->json);
				s->ev_next++;
			}
			if (h->have && h->news.seq != s->last_seq && now >= s->next_due) {
				memcpy(&s->news, &h->news, offsetof(struct body_news, events));
				s->last_seq = h->news.seq;
				/* At the chosen rate; after a stall, no burst to catch up. */
				s->next_due = s->next_due + s->every_ns > now ?
					      s->next_due + s->every_ns : now + s->every_ns;
				state = true;
			}
			if (state || s->len)
				break;
			if (now >= s->keepalive) {
				sse_add(s, "keepalive", "{}");
				break;
			}
			wake = s->keepalive;
			if (h->have && h->news.seq != s->last_seq && s->next_due < wake)
				wake = s->next_due;
			until.tv_sec = (time_t)(wake / 1000000000ULL);
			until.tv_nsec = (long)(wake % 1000000000ULL);
			pthread_cond_timedwait(&h->cond, &h->lock, &until);
		}
		pthread_mutex_unlock(&h->lock);
		if (state) {
			char *js = dump(state_json(&s->news));

			if (js)
				sse_add(s, "state", js);
			free(js);
		}
		s->keepalive = mono_ns() + SSE_KEEPALIVE_NS;
	}
	n = s->len - s->off < max ? s->len - s->off : max;
	memcpy(out, s->buf + s->off, n);
	s->off += n;
	return (ssize_t)n;
}

static void sse_free(void *cls)
{
	free(cls);
}

/* ---- requests ------------------------------------------------------------ */

struct req {
	const struct route *route;
	size_t len;
	bool too_big;
	bool through;		/* past the gate */
	bool answered;
	char url[256];		/* the path, for the handlers of a pattern's routes */
	char body[REST_BODY_MAX + 1];
};

typedef enum MHD_Result (*handler_fn)(struct rest *r, struct MHD_Connection *c,
				      struct req *q, const char *peer);

struct route {
	const char *path;
	const char *method;
	handler_fn fn;
};

/* A JSON answer, with one more header when hname is set. */
static enum MHD_Result reply_hdr(struct MHD_Connection *c, unsigned int status, json_t *o,
				 const char *hname, const char *hvalue)
{
	char *s = dump(o);
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (!s)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(strlen(s), s, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(s);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (hname)
		MHD_add_response_header(resp, hname, hvalue);
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, json_t *o)
{
	return reply_hdr(c, status, o, NULL, NULL);
}

static json_t *error_json(const char *name, const char *message, json_t *extra)
{
	json_t *o = extra ? extra : json_object();

	json_object_set_new(o, "error", json_string(name));
	json_object_set_new(o, "message", json_string(message));
	return o;
}

/* Every error: {"error": a short name, "message": what to fix}. */
static enum MHD_Result error_reply(struct MHD_Connection *c, unsigned int status,
				   const char *name, const char *message, json_t *extra)
{
	return reply(c, status, error_json(name, message, extra));
}

/* The head bus's reader (head_bus.h): where it reads, and how it goes; null without one. */
static json_t *head_bus_json(struct head_bus *h)
{
	struct head_bus_stats st;

	if (!h)
		return json_null();
	head_bus_stats(h, &st);
	return json_pack("{s:s,s:b,s:I,s:I,s:I}", "path", head_bus_path(h), "open", st.open,
			 "reads", (json_int_t)st.reads, "failed", (json_int_t)st.failed,
			 "malformed", (json_int_t)st.malformed);
}

/* The head's cameras (head_camera.h): what each is doing, and its last error. */
static json_t *cameras_json(struct head_cameras *hc)
{
	json_t *o = json_object();

	for (int i = 0; hc && o && i < HEAD_CAMERAS; i++) {
		struct camera_status st;

		head_cameras_status(hc, i, &st);
		json_object_set_new(o, camera_name[i],
				    json_pack("{s:s,s:s,s:s,s:I,s:I}", "state",
					      camera_state_name[st.state], "path", st.path,
					      "detail", st.detail, "frames", (json_int_t)st.frames,
					      "lost", (json_int_t)st.lost));
	}
	return o;
}

/* Which of the head's audio devices are open now, and their ALSA names. */
static json_t *audio_json(struct head_audio *a)
{
	struct head_audio_status st = { 0 };

	if (a)
		head_audio_status(a, &st);
	return json_pack("{s:b,s:b,s:b,s:s?,s:s?,s:s?,s:s?,s:i,s:b,s:i,s:i}",
			 "speaker", st.speaker, "microphones", st.mics, "mixer", st.mixer,
			 "speaker_device", st.speaker_name, "microphones_device", st.mics_name,
			 "mixer_device", st.mixer_name, "mixer_control", st.mixer ? st.control : NULL,
			 "queued_samples", (int)st.queued, "speaking", st.speaking,
			 "speaker_underruns", (int)st.underruns, "microphone_overruns",
			 (int)st.overruns);
}

static enum MHD_Result h_robot(struct rest *r, struct MHD_Connection *c, struct req *q,
			       const char *peer)
{
	const struct body_info *i = &r->d->body->info;
	struct hub *h = &r->hub;
	json_t *o;
	uint32_t ctl;

	pthread_mutex_lock(&h->lock);
	ctl = h->have ? h->news.ctl.kind : CTL_NONE;
	pthread_mutex_unlock(&h->lock);
	o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:s,s:i,s:i,s:f,s:f,s:o,s:o,s:s,s:o,s:o,s:o,s:o}",
		      "body_id", core_body_id(r->d), "head_id", core_head_id(r->d),
		      "body_version", i->body_version, "head_version", i->head_version,
		      "body", r->d->body->ops->name, "simulated", i->simulated,
		      "daemon_version", NAOBODYD_VERSION, "api_version", API_VERSION,
		      "rest_version", 1, "period_s", (double)i->period_ns / 1e9,
		      "uptime_s", (double)(mono_ns() - r->start_ns) / 1e9, "driver",
		      rest_driver_json(r->d->body), "chest_board", rest_chest_json(r->d->body),
		      "controller", holder_name(ctl), "head_bus", head_bus_json(r->d->head),
		      "leds_not_driven", rest_leds_not_driven(NULL, i->head_leds),
		      "cameras", cameras_json(r->d->cameras), "audio", audio_json(r->d->audio));
	return reply(c, MHD_HTTP_OK, o);
}

static enum MHD_Result h_state(struct rest *r, struct MHD_Connection *c, struct req *q,
			       const char *peer)
{
	struct hub *h = &r->hub;
	struct body_news *n = malloc(sizeof(*n));
	enum MHD_Result ret;
	bool have;

	if (!n)
		return MHD_NO;
	pthread_mutex_lock(&h->lock);
	have = h->have;
	if (have)
		memcpy(n, &h->news, offsetof(struct body_news, events));
	pthread_mutex_unlock(&h->lock);
	if (have)
		ret = reply(c, MHD_HTTP_OK, state_json(n));
	else
		ret = error_reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no_state",
				  "the body has sent no state yet; try again in a moment", NULL);
	free(n);
	return ret;
}

static enum MHD_Result h_events(struct rest *r, struct MHD_Connection *c, struct req *q,
				const char *peer)
{
	const char *rate_s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "rate");
	double max = 1e9 / (double)r->d->body->info.period_ns, rate = SSE_DEFAULT_HZ;
	struct MHD_Response *resp;
	struct sse *s;
	enum MHD_Result ret;

	if (rate_s) {
		char *end, msg[160];

		rate = strtod(rate_s, &end);
		/* The range first: 1e9 / rate must be a period that fits. */
		if (end == rate_s || *end || !(rate >= SSE_MIN_HZ && rate <= max + 1e-6)) {
			snprintf(msg, sizeof(msg),
				 "rate: expected states per second, from %.2f to %.2f (the body's "
				 "cycle rate); got '%.40s'", SSE_MIN_HZ, max, rate_s);
			return error_reply(c, MHD_HTTP_BAD_REQUEST, "bad_rate", msg, NULL);
		}
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return MHD_NO;
	s->r = r;
	s->every_ns = rate >= max ? 0 : (uint64_t)(1e9 / rate);
	s->keepalive = mono_ns() + SSE_KEEPALIVE_NS;
	pthread_mutex_lock(&r->hub.lock);
	s->ev_next = r->hub.ev_seq;	/* from now on */
	pthread_mutex_unlock(&r->hub.lock);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_reader, s,
						 sse_free);
	if (!resp) {
		free(s);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * Any authorised POST /stop latches the switch, whatever its body says: a
 * stop is never refused for how it was asked. The body (optional) is
 * {"who": "..."} for the log; a malformed or over-long one still stops,
 * and the status says what was wrong with it.
 */
static enum MHD_Result h_stop(struct rest *r, struct MHD_Connection *c, struct req *q,
			      const char *peer)
{
	static const char latched[] =
		"the death switch is latched; only 'naoctl rearm' on the robot (as root) releases it";
	char who[128], said[65] = "";
	json_error_t jerr;
	json_t *body = NULL;
	const char *w = NULL;
	char msg[320];
	int bad = 0;	/* 0, 413 or 400 */

	if (q->too_big) {
		bad = 413;
	} else if (q->len) {
		body = json_loadb(q->body, q->len, JSON_REJECT_DUPLICATES, &jerr);
		if (!body || !json_is_object(body) ||
		    (json_object_get(body, "who") &&
		     !json_is_string(json_object_get(body, "who"))))
			bad = 400;
		else
			w = json_string_value(json_object_get(body, "who"));
	}
	if (w)
		sanitize(said, sizeof(said), w, strlen(w));
	snprintf(who, sizeof(who), "REST %s%s%s", peer, said[0] ? " " : "", said);
	core_stop(r->d, who);
	rest_serial_stop_all(r->serial);	/* the arms too: Idle at zero speed */
	if (bad == 413) {
		snprintf(msg, sizeof(msg), "the body is over %d bytes: send {\"who\": \"...\"} or "
			 "nothing; %s", REST_BODY_MAX, latched);
		json_decref(body);
		return error_reply(c, MHD_HTTP_CONTENT_TOO_LARGE, "body_too_large", msg,
				   json_pack("{s:b}", "stopped", 1));
	}
	if (bad == 400) {
		if (!body)
			snprintf(msg, sizeof(msg), "malformed JSON at line %d, column %d: %s; "
				 "send {\"who\": \"...\"} or nothing; %s", jerr.line, jerr.column,
				 jerr.text, latched);
		else
			snprintf(msg, sizeof(msg), "the body must be an object whose \"who\" is a "
				 "string; %s", latched);
		json_decref(body);
		return error_reply(c, MHD_HTTP_BAD_REQUEST, "bad_body", msg,
				   json_pack("{s:b}", "stopped", 1));
	}
	json_decref(body);
	return reply(c, MHD_HTTP_OK, json_pack("{s:b,s:s}", "stopped", 1, "message", latched));
}

static enum MHD_Result h_boards(struct rest *r, struct MHD_Connection *c, struct req *q,
				const char *peer)
{
	char msg[160];
	int err;
	json_t *o = rest_boards_json(r->d->body, &err);

	if (o)
		return reply(c, MHD_HTTP_OK, o);
	snprintf(msg, sizeof(msg), "the driver did not list the boards: %s; try again, or see "
		 "'naoctl boards' and the kernel log", strerror(-err));
	return error_reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "driver_error", msg, NULL);
}

/*
 * GET /controller: who holds the role, and how it is taken over.
 */
static enum MHD_Result h_controller(struct rest *r, struct MHD_Connection *c, struct req *q,
				    const char *peer)
{
	struct hub *h = &r->hub;
	struct ctl_news n = { .kind = CTL_NONE };
	json_t *o;

	pthread_mutex_lock(&h->lock);
	if (h->have)
		n = h->news.ctl;
	pthread_mutex_unlock(&h->lock);
	o = holder_json(&n, mono_ns());
	json_object_set_new(o, "take_over", json_string(
		"a robot API client's Hello or a LoLA client's first actuator map takes the role; "
		"the previous holder is disconnected. POST /controller/release with "
		"{\"force\": true} takes it from its holder (the watchdog's safe state follows); "
		"POST /stop stops the body whoever holds it"));
	return reply(c, MHD_HTTP_OK, o);
}

static enum MHD_Result h_driver(struct rest *r, struct MHD_Connection *c, struct req *q,
				const char *peer)
{
	return reply(c, MHD_HTTP_OK, rest_driver_detail_json(r->d->body));
}

/* A JSON request body: NULL, with the answer queued in *ret, when it is not one. */
static json_t *body_json(struct MHD_Connection *c, const struct req *q, const char *expect,
			 enum MHD_Result *ret)
{
	char msg[512];
	json_error_t jerr;
	json_t *o;

	if (q->too_big) {
		snprintf(msg, sizeof(msg), "the body is over %d bytes; send %s", REST_BODY_MAX,
			 expect);
		*ret = error_reply(c, MHD_HTTP_CONTENT_TOO_LARGE, "body_too_large", msg, NULL);
		return NULL;
	}
	o = json_loadb(q->body, q->len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		snprintf(msg, sizeof(msg), "malformed JSON at line %d, column %d: %s; send %s",
			 jerr.line, jerr.column, jerr.text, expect);
		*ret = error_reply(c, MHD_HTTP_BAD_REQUEST, "bad_body", msg, NULL);
	}
	return o;
}

/* How long a REST order waits for the body thread: many cycles, even on a loaded host. */
#define REST_CMD_TIMEOUT_NS	(1000ULL * 1000000ULL)

/*
 * PUT (or POST) /leds: the robot API's Leds, through the same leds_set() as
 * its Leds command, on the body thread (rest_cmd.h). Answered only once the
 * body thread has applied or refused it.
 */
static enum MHD_Result h_leds(struct rest *r, struct MHD_Connection *c, struct req *q,
			      const char *peer)
{
	static const char expect[] = "an object with any of left_eye, right_eye, left_ear, "
				     "right_ear, chest, left_foot, right_foot";
	struct rest_cmd cmd = { 0 };
	enum MHD_Result ret;
	char msg[256];
	json_t *o = body_json(c, q, expect, &ret);

	if (!o)
		return ret;
	if (rest_leds_parse(o, &cmd.leds, msg, sizeof(msg))) {
		json_decref(o);
		return error_reply(c, MHD_HTTP_BAD_REQUEST, "bad_leds", msg, NULL);
	}
	json_decref(o);
	switch (rest_cmd_post(&r->d->rest_box, &cmd, REST_CMD_TIMEOUT_NS)) {
	case RC_DONE:
		if (ratelimit_ok(&r->rl_leds))
			log_info("rest: %s: LEDs set", peer);
		return reply(c, MHD_HTTP_OK,
			     json_pack("{s:b,s:o,s:o,s:s}", "applied", 1, "overridden",
				       rest_leds_groups(&cmd.leds), "not_driven",
				       rest_leds_not_driven(&cmd.leds,
							    r->d->body->info.head_leds),
				       "message",
				       r->d->body->info.head_leds ?
				       "applied from the next cycle on; the groups not given show "
				       "the daemon's own status" :
				       "applied from the next cycle on; the groups not given show "
				       "the daemon's own status; this body does not drive the eyes "
				       "and ears (not_driven): accepted, not shown"));
	case RC_CONTROLLED:
		return error_reply(c, MHD_HTTP_CONFLICT, "controlled",
				   "a controller (a robot API or LoLA client) holds the body and "
				   "its LEDs: nothing was changed; set them through that client, or "
				   "try again once it has gone", json_pack("{s:b}", "applied", 0));
	case RC_BUSY:
	case RC_TIMEOUT:
	default:
		return error_reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "body_not_cycling",
				   "the body loop did not take the order within a second (the body "
				   "sends no state?): it may still apply it; see GET /state",
				   json_pack("{s:b}", "applied", 0));
	}
}

/*
 * POST /controller/release {"force": true[, "session": N]}: the body thread
 * takes the role from its holder (core.c's rest_release()): its connection
 * closes, the SSE controller event says none, and the watchdog takes the
 * body to its safe state as for a holder that went. force must be given;
 * session, when given, releases only that robot API session (not a newer
 * holder the caller has not seen).
 */
static enum MHD_Result h_release(struct rest *r, struct MHD_Connection *c, struct req *q,
				 const char *peer)
{
	static const char expect[] = "{\"force\": true} (and \"session\": N to release only "
				     "that robot API session)";
	struct rest_cmd cmd = { .kind = RCMD_RELEASE };
	json_t *o, *force, *session;
	enum MHD_Result ret;
	char msg[256];

	o = body_json(c, q, expect, &ret);
	if (!o)
		return ret;
	force = json_is_object(o) ? json_object_get(o, "force") : NULL;
	session = json_is_object(o) ? json_object_get(o, "session") : NULL;
	if (!json_is_true(force) || (session && (!json_is_integer(session) ||
						 json_integer_value(session) < 1)) ||
	    json_object_size(o) != 1U + !!session) {
		json_decref(o);
		snprintf(msg, sizeof(msg), "releasing the controller takes %s, nothing else; "
			 "nothing was changed", expect);
		return error_reply(c, MHD_HTTP_BAD_REQUEST, "bad_release", msg,
				   json_pack("{s:b}", "released", 0));
	}
	cmd.session = session ? (uint64_t)json_integer_value(session) : 0;
	json_decref(o);
	switch (rest_cmd_post(&r->d->rest_box, &cmd, REST_CMD_TIMEOUT_NS)) {
	case RC_DONE:
		log_warn_limited("rest: %s: released the controller", peer);
		return reply(c, MHD_HTTP_OK,
			     json_pack("{s:b,s:s}", "released", 1, "message",
				       "the holder's connection is closed; the watchdog takes the "
				       "body to its safe state as when a controller goes"));
	case RC_NOBODY:
		return error_reply(c, MHD_HTTP_CONFLICT, "no_holder",
				   cmd.session ? "that robot API session does not hold the "
				   "controller role (see GET /controller): nothing was changed" :
				   "nobody holds the controller role: nothing was changed",
				   json_pack("{s:b}", "released", 0));
	case RC_BUSY:
	case RC_TIMEOUT:
	default:
		return error_reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "body_not_cycling",
				   "the body loop did not take the order within a second (the body "
				   "sends no state?): it may still release the role; see GET "
				   "/controller", json_pack("{s:b}", "released", 0));
	}
}

/*
 * GET and PUT /volume: the head's speaker mixer, as the robot API's Volume
 * (head_audio_volume(): fields left out keep their value, a percent above 0
 * unmutes unless muted is given). Without a mixer: 503, nothing read or set.
 */
static enum MHD_Result h_volume(struct rest *r, struct MHD_Connection *c, struct req *q,
				const char *peer)
{
	static const char expect[] = "{\"percent\": 0..100, \"muted\": true|false}, either "
				     "or both";
	struct head_audio *a = r->d->audio;
	struct head_audio_volume now;
	json_t *o = NULL, *pct, *mut;
	enum MHD_Result ret;
	uint8_t percent;
	bool muted;
	char msg[256];
	int err;

	if (!strcmp(q->route->method, MHD_HTTP_METHOD_PUT)) {
		o = body_json(c, q, expect, &ret);
		if (!o)
			return ret;
		pct = json_is_object(o) ? json_object_get(o, "percent") : NULL;
		mut = json_is_object(o) ? json_object_get(o, "muted") : NULL;
		if (!json_is_object(o) || json_object_size(o) != (size_t)!!pct + !!mut ||
		    (pct && (!json_is_integer(pct) || json_integer_value(pct) < 0 ||
			     json_integer_value(pct) > 100)) ||
		    (mut && !json_is_boolean(mut))) {
			json_decref(o);
			snprintf(msg, sizeof(msg), "the volume takes %s, nothing else; nothing was "
				 "changed", expect);
			return error_reply(c, MHD_HTTP_BAD_REQUEST, "bad_volume", msg,
					   json_pack("{s:b}", "applied", 0));
		}
		percent = pct ? (uint8_t)json_integer_value(pct) : 0;
		muted = mut && json_is_true(mut);
		json_decref(o);
		err = a ? head_audio_volume(a, pct ? &percent : NULL, mut ? &muted : NULL, &now) :
			  -ENODEV;
		if (!err)
			log_info_limited("rest: %s: speaker volume %u %%%s", peer, now.percent,
					 now.muted ? ", muted" : "");
	} else {
		err = a ? head_audio_get_volume(a, &now) : -ENODEV;
	}
	if (err)
		return error_reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no_audio",
				   err == -ENODEV ?
				   "there is no speaker mixer (see GET /robot's audio and the log): no "
				   "volume was read or set" :
				   "the speaker mixer refused the volume (see the log): nothing was "
				   "changed",
				   json_pack("{s:b}", "applied", 0));
	return reply(c, MHD_HTTP_OK, json_pack("{s:i,s:b}", "percent", now.percent, "muted",
					       now.muted));
}

/* /serial and below: the n_robot bodies (rest_serial.c). */
static enum MHD_Result h_serial(struct rest *r, struct MHD_Connection *c, struct req *q,
				const char *peer)
{
	unsigned int status = MHD_HTTP_INTERNAL_SERVER_ERROR;
	json_t *o = rest_serial_answer(r->serial, c, q->route->method, q->url, q->body, q->len,
				       q->too_big, peer, &status);

	return o ? reply(c, status, o) : MHD_NO;
}

/* A route's path; "*" stands for one segment of the URL, not empty. */
static bool path_matches(const char *pattern, const char *url)
{
	while (*pattern && *url) {
		if (*pattern == '*') {
			size_t n = strcspn(url, "/");

			if (!n)
				return false;
			url += n;
			pattern++;
			continue;
		}
		if (*pattern++ != *url++)
			return false;
	}
	return !*pattern && !*url;
}

static const struct route routes[] = {
	{ "/robot", MHD_HTTP_METHOD_GET, h_robot },
	{ "/state", MHD_HTTP_METHOD_GET, h_state },
	{ "/events", MHD_HTTP_METHOD_GET, h_events },
	{ "/stop", MHD_HTTP_METHOD_POST, h_stop },
	{ "/boards", MHD_HTTP_METHOD_GET, h_boards },
	{ "/driver", MHD_HTTP_METHOD_GET, h_driver },
	{ "/controller", MHD_HTTP_METHOD_GET, h_controller },
	{ "/controller/release", MHD_HTTP_METHOD_POST, h_release },
	{ "/leds", MHD_HTTP_METHOD_PUT, h_leds },
	{ "/leds", MHD_HTTP_METHOD_POST, h_leds },
	{ "/volume", MHD_HTTP_METHOD_GET, h_volume },
	{ "/volume", MHD_HTTP_METHOD_PUT, h_volume },
	{ "/serial", MHD_HTTP_METHOD_GET, h_serial },
	{ "/serial/*", MHD_HTTP_METHOD_GET, h_serial },
	{ "/serial/*/telemetry", MHD_HTTP_METHOD_GET, h_serial },
	{ "/serial/*/enable", MHD_HTTP_METHOD_POST, h_serial },
	{ "/serial/*/disable", MHD_HTTP_METHOD_POST, h_serial },
	{ "/serial/*/clear-error", MHD_HTTP_METHOD_POST, h_serial },
	{ "/serial/*/home", MHD_HTTP_METHOD_POST, h_serial },
	{ "/serial/*/jog", MHD_HTTP_METHOD_POST, h_serial },
	{ "/serial/*/move", MHD_HTTP_METHOD_POST, h_serial },
	{ "/serial/*/stop", MHD_HTTP_METHOD_POST, h_serial },
	{ "/serial/*/registers", MHD_HTTP_METHOD_GET, h_serial },
	{ "/serial/*/registers", MHD_HTTP_METHOD_POST, h_serial },
};

static void peer_text(const struct sockaddr *sa, char *out, size_t n)
{
	const void *a = sa->sa_family == AF_INET ?
			(const void *)&((const struct sockaddr_in *)sa)->sin_addr :
			(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

	if (!inet_ntop(sa->sa_family, a, out, (socklen_t)n))
		snprintf(out, n, "?");
	if (!strncmp(out, "::ffff:", 7) && strchr(out, '.'))
		memmove(out, out + 7, strlen(out + 7) + 1);
}

/* The token from "Authorization: Bearer T", or ?token=T (EventSource sets no headers). */
static const char *token_of(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_AUTHORIZATION);

	if (a && !strncasecmp(a, "Bearer ", 7))
		return a + 7;
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
}

/*
 * The status page's files (rest_static.h): no token, the page holds none.
 * True when the answer is queued in *ret.
 */
static bool static_file(struct rest *r, struct MHD_Connection *c, const char *url,
			const char *method, enum MHD_Result *ret)
{
	char msg[256];
	unsigned int status;
	struct MHD_Response *resp = rest_static_answer(r->d->cfg->www_dir, c, url, method,
						       &status, msg, sizeof(msg));

	if (resp) {
		*ret = MHD_queue_response(c, status, resp);
		MHD_destroy_response(resp);
	} else if (status == MHD_HTTP_METHOD_NOT_ALLOWED) {
		*ret = reply_hdr(c, status, error_json("method_not_allowed", msg, NULL),
				 MHD_HTTP_HEADER_ALLOW, REST_STATIC_METHODS);
	} else if (status == MHD_HTTP_NOT_FOUND) {
		*ret = error_reply(c, status, "not_found", msg, NULL);
	} else {
		*ret = MHD_NO;	/* out of memory */
	}
	return resp || status;
}

/*
 * The checks, in order: the local network (403: never reaches the token
 * check), the Host (400: rest_host.h), the path (404; a file of the status
 * page is answered here, with no token), the method (405), the token: the
 * right one always passes, whatever the failure limit says, so that nobody
 * can lock out a stop; a wrong or missing one is counted (rest_limit.h),
 * answered 401, or 429 past the limit. Sets q->through when the request may
 * go on; otherwise it has queued the answer.
 */
static enum MHD_Result gate(struct rest *r, struct MHD_Connection *c, const char *url,
			    const char *method, const char *version, struct req *q,
			    const char *peer, const struct sockaddr *sa)
{
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	const struct route *path = NULL;
	char msg[256], allow[64] = "", hostname[256] = "";
	const char *t;
	unsigned int wait;

	if (!localnet_allows(r->ln, sa)) {
		if (ratelimit_ok(&r->rl_outside))
			log_warn_limited("rest: %s is outside the local network: refused", peer);
		return error_reply(c, MHD_HTTP_FORBIDDEN, "not_local",
				   "the REST API answers loopback and the robot's own subnets "
				   "only: connect from the robot's network", NULL);
	}
	if (gethostname(hostname, sizeof(hostname) - 1))
		hostname[0] = '\0';
	/* HTTP/1.0 may leave Host out; HTTP/1.1 must send it (RFC 9112, 3.2). */
	if (host ? !rest_host_names_robot(r->ln, host, hostname) :
	    strcmp(version, MHD_HTTP_VERSION_1_0) != 0) {
		char h[64];

		sanitize(h, sizeof(h), host ? host : "", host ? strlen(host) : 0);
		if (ratelimit_ok(&r->rl_host))
			log_warn_limited("rest: %s: Host '%s' does not name this robot: refused",
					 peer, host ? h : "(none)");
		snprintf(msg, sizeof(msg), "%s%s%s: the REST API answers only a Host that names "
			 "this robot: localhost, %s, %s.local or one of its addresses",
			 host ? "Host '" : "no Host header", host ? h : "", host ? "'" : "",
			 hostname[0] ? hostname : "its host name", hostname[0] ? hostname : "NAME");
		return error_reply(c, MHD_HTTP_BAD_REQUEST, "bad_host", msg, NULL);
	}
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (!path_matches(routes[i].path, url))
			continue;
		path = &routes[i];
		snprintf(allow + strlen(allow), sizeof(allow) - strlen(allow), "%s%s",
			 allow[0] ? ", " : "", routes[i].method);
		if (!strcmp(method, routes[i].method))
			q->route = &routes[i];
	}
	if (!path) {
		enum MHD_Result ret;

		if (static_file(r, c, url, method, &ret))
			return ret;
		snprintf(msg, sizeof(msg), "no such path: %.64s; the paths are /robot, /state, "
			 "/events, /stop, /boards, /driver, /controller, /leds, /volume and /serial "
			 "(Documentation/rest-api.yaml)", url);
		return error_reply(c, MHD_HTTP_NOT_FOUND, "not_found", msg, NULL);
	}
	if (!q->route) {
		snprintf(msg, sizeof(msg), "%.64s takes %s, not %.16s", url, allow, method);
		return reply_hdr(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				 error_json("method_not_allowed", msg, NULL),
				 MHD_HTTP_HEADER_ALLOW, allow);
	}
	t = token_of(c);
	if (rest_token_check(r->token, t)) {
		q->through = true;
		return MHD_YES;
	}
	wait = fail_limit_wait(&r->limit, sa, mono_ns());
	if (!wait) {
		wait = fail_limit_failed(&r->limit, sa, mono_ns());
		if (ratelimit_ok(&r->rl_token))
			log_warn_limited("rest: %s: %s token", peer, t ? "a wrong" : "no");
		if (!wait) {
			snprintf(msg, sizeof(msg), "%s token: send 'Authorization: Bearer TOKEN' with "
				 "the token in %s ('naoctl token' prints it)", t ? "wrong" : "no",
				 rest_token_path(r->token));
			/* RFC 6750; libmicrohttpd sends no 401 without it. */
			return reply_hdr(c, MHD_HTTP_UNAUTHORIZED, error_json("bad_token", msg, NULL),
					 MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					 "Bearer realm=\"naobodyd\"");
		}
	}
	{
		char after[16];

		snprintf(msg, sizeof(msg), "too many wrong or missing tokens from %s or from "
			 "everyone: wait %u s, or send the right one (it always passes)", peer, wait);
		snprintf(after, sizeof(after), "%u", wait);
		return reply_hdr(c, MHD_HTTP_TOO_MANY_REQUESTS,
				 error_json("too_many_failures", msg, NULL),
				 MHD_HTTP_HEADER_RETRY_AFTER, after);
	}
}

/* The request's Content-Length says more than REST_BODY_MAX bytes. */
static bool declared_too_big(struct MHD_Connection *c)
{
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);
	char *end;
	unsigned long long n;

	if (!cl)
		return false;
	errno = 0;
	n = strtoull(cl, &end, 10);
	return end != cl && (errno == ERANGE || n > REST_BODY_MAX);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload, size_t *upload_size, void **ctx)
{
	struct rest *r = cls;
	struct req *q = *ctx;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	char peer[INET6_ADDRSTRLEN];

	if (!sa)
		return MHD_NO;
	peer_text(sa, peer, sizeof(peer));
	if (!q) {
		enum MHD_Result ret;

		q = calloc(1, sizeof(*q));
		if (!q)
			return MHD_NO;
		*ctx = q;
		snprintf(q->url, sizeof(q->url), "%s", url);
		/* Its headers are in: the late-header limit is off until it ends. */
		rest_conns_request(&r->conns, c, true, mono_ns());
		ret = gate(r, c, url, method, version, q, peer, sa);
		if (!q->through) {
			q->answered = true;	/* the gate answered */
			return ret;
		}
		/*
		 * Through the gate: a GET answers now; a POST or PUT reads its
		 * body first, unless it says it is over the limit: answered at
		 * once then (a stop latches sooner), and the rest is dropped.
		 */
		if (strcmp(method, MHD_HTTP_METHOD_POST) && strcmp(method, MHD_HTTP_METHOD_PUT))
			q->answered = true;
		else if (declared_too_big(c))
			q->answered = q->too_big = true;
		return q->answered ? q->route->fn(r, c, q, peer) : MHD_YES;
	}
	if (q->answered) {
		*upload_size = 0;	/* an early answer: the rest of the body is dropped */
		return MHD_YES;
	}
	if (*upload_size) {
		if (q->len + *upload_size > REST_BODY_MAX)
			q->too_big = true;
		else
			memcpy(q->body + q->len, upload, *upload_size);
		if (!q->too_big)
			q->len += *upload_size;
		*upload_size = 0;
		return MHD_YES;
	}
	q->answered = true;
	return q->route->fn(r, c, q, peer);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **ctx,
			 enum MHD_RequestTerminationCode toe)
{
	struct rest *r = cls;

	free(*ctx);
	*ctx = NULL;
	/* The next request's headers are held to the limit from now on. */
	rest_conns_request(&r->conns, c, false, mono_ns());
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct rest *r = cls;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED)
		rest_conns_started(&r->conns, c, mono_ns());
	else
		rest_conns_closed(&r->conns, c);
}

/* Before libmicrohttpd takes a connection: the per-source limit. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rest *r = cls;

	return rest_conns_admit(&r->conns, addr) ? MHD_YES : MHD_NO;
}

/* The HTTP daemon on cfg's port (and --rest-bind's address), with its limits. */
static struct MHD_Daemon *rest_listen(struct rest *r, const struct config *cfg,
				      unsigned int flags)
{
	return MHD_start_daemon(flags, cfg->rest_port, on_accept, r, on_request, r,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)REST_CONNECTIONS,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, r,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)REST_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REST_CONN_MEMORY,
				MHD_OPTION_THREAD_STACK_SIZE, (size_t)REST_THREAD_STACK,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, r,
				cfg->rest_bind ? MHD_OPTION_SOCK_ADDR : MHD_OPTION_END,
				&r->bind_addr, MHD_OPTION_END);
}

/* ---- start and stop ------------------------------------------------------ */

static int bind_address(const char *host, uint16_t port, struct sockaddr_storage *out)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *res;
	char p[8];
	int err;

	snprintf(p, sizeof(p), "%u", port);
	err = getaddrinfo(host, p, &hints, &res);
	if (err) {
		log_err("rest: --rest-bind %s: %s (expected a numeric address)", host,
			gai_strerror(err));
		return -1;
	}
	memcpy(out, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

struct rest *rest_create(struct daemon *d)
{
	const struct config *cfg = d->cfg;
	struct rest *r = calloc(1, sizeof(*r));
	unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_POLL;
	pthread_condattr_t ca;
	sigset_t all, old;
	const union MHD_DaemonInfo *di;
	int err;

	if (!r)
		return NULL;
	r->d = d;
	r->start_ns = mono_ns();
	fail_limit_init(&r->limit);
	rest_conns_init(&r->conns);
	pthread_mutex_init(&r->hub.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->hub.cond, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&r->quit, false);

	r->token = rest_token_open(cfg->state_dir);
	if (!r->token)
		goto fail;
	r->serial = rest_serial_create(cfg);
	if (!r->serial)
		goto fail;
	r->ln = localnet_create();
	if (!r->ln) {
		log_err("rest: cannot read the host's addresses (rtnetlink): %s", strerror(errno));
		goto fail;
	}
	if (cfg->rest_bind && bind_address(cfg->rest_bind, cfg->rest_port, &r->bind_addr))
		goto fail;
	if (!cfg->rest_bind)
		flags |= MHD_USE_DUAL_STACK;

	/* Their threads take no signals: the network thread does. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&r->feeder, NULL, feeder_thread, r);
	r->feeder_started = !err;
	if (!err)
		r->mhd = rest_listen(r, cfg, flags);
	/*
	 * Every interface means IPv6 and IPv4 on one socket; a kernel built
	 * without IPv6 (the robot's may be) refuses that: IPv4 alone then.
	 */
	if (!err && !r->mhd && (flags & MHD_USE_DUAL_STACK)) {
		r->mhd = rest_listen(r, cfg, flags & ~MHD_USE_DUAL_STACK);
		if (r->mhd)
			log_info("rest: no IPv6 here: listening on IPv4 only");
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		log_err("rest: cannot start its thread: %s", strerror(err));
		goto fail;
	}
	if (!r->mhd) {
		log_err("rest: cannot listen on %s port %u: %s (--rest-port, --rest-bind, --no-rest)",
			cfg->rest_bind ? cfg->rest_bind : "every interface", cfg->rest_port,
			strerror(errno));
		goto fail;
	}
	rest_static_check(cfg->www_dir);
	di = MHD_get_daemon_info(r->mhd, MHD_DAEMON_INFO_BIND_PORT);
	log_info("rest: listening on %s port %u; token in %s; %u local addresses",
		 cfg->rest_bind ? cfg->rest_bind : "every interface",
		 di ? di->port : cfg->rest_port, rest_token_path(r->token), localnet_count(r->ln));
	return r;
fail:
	rest_destroy(r);
	return NULL;
}

void rest_destroy(struct rest *r)
{
	if (!r)
		return;
	atomic_store(&r->quit, true);
	pthread_mutex_lock(&r->hub.lock);
	r->hub.quit = true;
	pthread_cond_broadcast(&r->hub.cond);
	pthread_mutex_unlock(&r->hub.lock);
	if (r->mhd)
		MHD_stop_daemon(r->mhd);
	if (r->feeder_started)
		pthread_join(r->feeder, NULL);
	rest_serial_destroy(r->serial);	/* after the requests: the arms end at Idle */
	localnet_destroy(r->ln);
	rest_token_close(r->token);
	pthread_cond_destroy(&r->hub.cond);
	pthread_mutex_destroy(&r->hub.lock);
	rest_conns_uninit(&r->conns);
	fail_limit_uninit(&r->limit);
	free(r);
}
