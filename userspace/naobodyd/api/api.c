// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the robot API on TCP 7700 (see api.h).
 *
 * All of it runs on the network thread (Documentation/naobodyd.rst,
 * "Threads"); what a client asks of the body goes to the body thread
 * through the hand-over's commands, and the body's state, events and
 * controller changes come back as news (handoff.h).
 *
 * Every connection is a session. A session must say Hello within
 * API_HELLO_NS, in a frame of at most API_PRE_HELLO_FRAME bytes; when it
 * does, with the right version, it becomes the controller and the previous
 * controller (TCP or LoLA) is disconnected. Frames are a u32 big-endian
 * length, then one MessagePack value; a length over API_MAX_FRAME closes
 * the connection before anything is allocated, a frame's buffer grows as
 * its bytes arrive (never from the header alone), and malformed MessagePack
 * closes it with a log line. Unknown variants and fields are ignored with a
 * rate-limited log line. Reading is budgeted per wake-up: frames, bytes
 * and time, so one busy client cannot starve the others.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <msgpack.h>
#include <mpread/mpread.h>

#include "api.h"
#include "clock.h"
#include "codec.h"
#include "log.h"
#include "handoff.h"
#include "head/head_camera.h"
#include "naobodyd.h"

#define INLINE_FRAME		API_PRE_HELLO_FRAME
#define FRAMES_PER_WAKE		64
#define BYTES_PER_WAKE		(256U * 1024)
#define NS_PER_WAKE		(2ULL * 1000000ULL)
#define FIRST_CHUNK		(64U * 1024)	/* a big frame's first allocation */
/*
 * Error events to one client: at most ERRORS_BURST a second; the next one
 * after a second that dropped some says how many (its "suppressed").
 */
#define ERRORS_BURST		50
#define ERRORS_WINDOW_NS	(1000ULL * 1000000ULL)
#define HEARD_EVERY_NS		(10ULL * 1000000ULL)	/* heartbeats, coalesced */
/*
 * An Image goes out only while what waits for the client, with it, stays
 * under this: the rest of the queue is kept for events, so a slow client
 * loses frames, never its connection.
 */
#define IMAGE_QUEUE_ROOM	(API_QUEUE_MAX - 64U * 1024)

struct session {
	struct loop_watch w;
	struct loop_deferred dead;
	struct api *api;
	struct session *next;
	uint64_t id;
	char peer[64];
	char host[64];			/* the peer's address, without the port */
	char client[64];
	bool hello_done;
	bool closing;			/* flushing its last frames */
	bool tried;			/* read before an eviction, once */
	uint64_t since;			/* connected, or started closing */

	uint8_t hdr[4];
	unsigned int hdr_got;
	uint32_t need;			/* the frame's length; 0: reading a header */
	uint32_t got;
	uint8_t *frame;
	uint32_t frame_cap;		/* bytes allocated (or inline) for it */
	uint8_t inline_frame[INLINE_FRAME];
	uint64_t heard_sent;		/* the last BC_HEARD pushed */

	struct outq out;
	bool want_out;

	struct subscription sub;
	float due;			/* States owed; one goes out at 1 */
	bool told_audio, told_media, told_mic, told_volume;
	uint64_t images_dropped;	/* for the rate-limited line */
	struct ratelimit rl;
	char close_why[200];		/* closing: why, for the log */
	uint64_t err_window;		/* Error events: this second's start */
	uint32_t err_sent, err_suppressed;
};

struct api {
	struct daemon *d;
	struct loop *loop;		/* the network thread's */
	struct loop_watch listen_w;
	struct loop_watch news_w;	/* the body thread's news */
	struct session *sessions;
	struct session *controller;	/* the session that said Hello last */
	unsigned int nsessions;
	uint64_t next_id;
	size_t held;			/* bytes allocated for unfinished frames */
	uint64_t news_seq;
	struct body_news news;
	struct buf scratch;
	struct loop_watch cams_w;	/* a camera's new frame (head_camera.h) */
	struct buf jpeg, image;		/* a frame's JPEG, then its Image */
	struct ratelimit rl_accept;
	struct ratelimit rl_close;	/* "disconnected" lines, all sessions */
	struct ratelimit rl_queue;
	struct loop_watch mic_w;	/* the head's microphone chunks (head_audio.h) */
	int16_t *pcm;			/* one Speaker's samples, HEAD_AUDIO_QUEUE at most */
	struct ratelimit rl_mic;
};

static const char *name_of(const struct session *s)
{
	return s->client[0] ? s->client : "-";
}

static void frame_release(struct session *s)
{
	if (s->frame && s->frame != s->inline_frame) {
		free(s->frame);
		s->api->held -= s->frame_cap;
	}
	s->frame = NULL;
	s->frame_cap = 0;
}

static void session_free(struct loop_deferred *dead)
{
	struct session *s = container_of(dead, struct session, dead);

	outq_free(&s->out);
	free(s);
}

/* To the body thread; a full ring drops it with a (rate-limited) line. */
static void push(struct session *s, enum body_cmd_kind kind, const struct body_cmd *with)
{
	struct body_cmd c;

	if (with)
		c = *with;
	else
		memset(&c, 0, sizeof(c));
	c.kind = kind;
	c.session = s->id;
	c.time_ns = mono_ns();
	if (!handoff_push(&s->api->d->handoff, &c) && ratelimit_ok(&s->api->rl_queue))
		log_warn("api: the body thread's command queue is full: a command of client %s dropped",
			 s->peer);
}

/* The cameras follow the controller's subscription: nobody subscribed, closed. */
static void cameras_follow(struct api *api)
{
	struct session *s = api->controller;

	for (int i = 0; i < HEAD_CAMERAS; i++) {
		float fps = 0.0f;

		if (s && s->hello_done && !s->closing && s->sub.cameras[i])
			fps = s->sub.camera_fps > 0.0f ? s->sub.camera_fps : -1.0f;
		head_cameras_want(api->d->cameras, i, fps);
	}
}

/* Microphone chunks only while the controller is subscribed to them. */
static void mic_want(struct api *api)
{
	if (api->d->audio)
		head_audio_mic_want(api->d->audio,
				    api->controller && api->controller->sub.microphone);
}

static void session_close(struct session *s, const char *why)
{
	struct api *api = s->api;
	struct session **pp;

	if (s->w.fd < 0)
		return;
	/* A peer can connect and close at will: the line is rate-limited. */
	if (ratelimit_ok(&api->rl_close))
		log_info("api: client %s (%s) disconnected: %s", s->peer, name_of(s), why);
	if (api->controller == s) {
		api->controller = NULL;
		push(s, BC_RELEASE, NULL);
		cameras_follow(api);
		mic_want(api);
	}
	frame_release(s);
	loop_del(api->loop, &s->w);
	close(s->w.fd);
	s->w.fd = -1;
	for (pp = &api->sessions; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	api->nsessions--;
	loop_defer_free(api->loop, &s->dead);
}

static void want_out(struct session *s, bool on)
{
	uint32_t ev = s->closing ? 0 : EPOLLIN;

	if (s->want_out == on)
		return;
	s->want_out = on;
	loop_mod(s->api->loop, &s->w, ev | (on ? EPOLLOUT : 0));
}

/* Send what the socket takes; false when the session was closed. */
static bool flush(struct session *s)
{
	int rc = outq_flush(&s->out, s->w.fd);

	if (rc < 0) {
		session_close(s, rc == -ENOBUFS ? "too slow: output queue full" : strerror(-rc));
		return false;
	}
	if (rc == 0 && s->closing) {
		session_close(s, s->close_why[0] ? s->close_why : "closed after its last reply");
		return false;
	}
	want_out(s, rc == 1);
	return true;
}

static bool send_frame(struct session *s, const void *p, size_t n, bool latest)
{
	int err = latest ? outq_set_latest(&s->out, p, n) : outq_push(&s->out, p, n);

	if (err) {
		session_close(s, "too slow: output queue full");
		return false;
	}
	return flush(s);
}

static void send_hello(struct session *s)
{
	struct api *api = s->api;
	struct daemon *d = api->d;

	api->scratch.len = 0;
	if (codec_hello(&api->scratch, API_VERSION, core_body_id(d), core_head_id(d),
			d->body->info.simulated, d->cfg->echo_cancellation))
		log_err("api: cannot encode Hello");
	else
		send_frame(s, api->scratch.data, api->scratch.len, false);
}

/*
 * An Error event to the client (codec.h's api_errors[]), within its limit.
 * It may close the session (a full queue): callers look at s->w.fd.
 */
static void send_error(struct session *s, enum api_error e, const char *command,
		       const char *field, const char *detail)
{
	struct api *api = s->api;
	uint64_t now = mono_ns();

	if (s->w.fd < 0 || s->closing)
		return;
	if (now - s->err_window >= ERRORS_WINDOW_NS) {
		s->err_window = now;
		s->err_sent = 0;
	}
	if (s->err_sent >= ERRORS_BURST) {
		s->err_suppressed++;
		return;
	}
	api->scratch.len = 0;
	if (codec_event_error(&api->scratch, e, command, field, detail, API_VERSION,
			      s->err_suppressed)) {
		log_err("api: cannot encode an Error");
		return;
	}
	s->err_sent++;
	s->err_suppressed = 0;
	send_frame(s, api->scratch.data, api->scratch.len, false);
}

/* Stop reading; close once the queue is out, or after API_LINGER_NS. */
static void close_after_flush(struct session *s)
{
	s->closing = true;
	s->since = mono_ns();
	s->want_out = true;
	frame_release(s);
	loop_mod(s->api->loop, &s->w, EPOLLOUT);
	flush(s);
}

/* The client's last message: an Error, then the connection closes (why, in the log). */
static void fail_session(struct session *s, enum api_error e, const char *command,
			 const char *field, const char *why)
{
	send_error(s, e, command, field, why);
	if (s->w.fd < 0)
		return;
	snprintf(s->close_why, sizeof(s->close_why), "%s", why);
	close_after_flush(s);
}

static void handshake(struct session *s, enum decode_result r, struct to_robot *m)
{
	struct body_cmd claim = { 0 };
	struct api *api = s->api;

	if (r != DECODE_OK || m->kind != TR_HELLO) {
		char why[240], field[64] = "";

		if (r == DECODE_OK || r == DECODE_UNKNOWN || m->kind != TR_HELLO)
			snprintf(why, sizeof(why), "handshake: expected Hello first, got %s",
				 m->variant[0] ? m->variant : "something else");
		else
			snprintf(why, sizeof(why), "handshake: bad Hello: %s", m->error);
		if (r == DECODE_INVALID)
			codec_error_field(m->error, field, sizeof(field));
		/* A command the robot knows, from a connection that is not the controller. */
		if (r == DECODE_OK)
			fail_session(s, AERR_NOT_CONTROLLER, m->variant, NULL, why);
		else
			fail_session(s, AERR_HANDSHAKE, m->variant[0] ? m->variant : NULL, field, why);
		return;
	}
	snprintf(s->client, sizeof(s->client), "%s", m->hello.client);
	if (m->hello.version != API_VERSION) {
		log_warn_limited("api: client %s (%s) speaks version %u, this robot version %u: answering and closing",
			 s->peer, name_of(s), m->hello.version, API_VERSION);
		send_hello(s);
		if (s->w.fd >= 0) {
			char why[120];

			snprintf(why, sizeof(why), "Hello.version is %u; this robot speaks version %u",
				 m->hello.version, API_VERSION);
			fail_session(s, AERR_VERSION, "Hello", "Hello.version", why);
		}
		return;
	}
	s->hello_done = true;
	log_info_limited("api: client %s (%s) said hello: it is the controller", s->peer,
			 name_of(s));
	/* The newest is the controller: the previous robot API client goes. */
	if (api->controller && api->controller != s)
		session_close(api->controller, "replaced as the controller by a robot API client");
	api->controller = s;
	mic_want(api);
	/* The body thread drops a LoLA controller, and takes this one's silence from now. */
	/* Its address goes with the claim: the REST API says who holds the body. */
	snprintf(claim.peer, sizeof(claim.peer), "%s", s->peer);
	push(s, BC_CLAIM, &claim);
	s->heard_sent = mono_ns();
	send_hello(s);
}

static void tell_once(struct session *s, bool *told, const char *what)
{
	if (*told)
		return;
	*told = true;
	log_info_limited("api: client %s (%s): %s", s->peer, name_of(s), what);
}

/*
 * Speaker's samples to the head's queue, all of them or none: a Speaker
 * that does not fit, or finds no speaker, is dropped whole with a line.
 */
static void speaker(struct session *s, const uint8_t *p, uint32_t len)
{
	struct api *api = s->api;
	size_t n;
	int err = -ENODEV;

	if (api->d->audio && api->pcm) {
		n = codec_speaker_samples(p, len, api->pcm, HEAD_AUDIO_QUEUE);
		err = n > HEAD_AUDIO_QUEUE ? -ENOSPC : head_audio_speaker(api->d->audio, api->pcm, n);
	}
	if (err == -ENODEV)
		send_error(s, AERR_NO_SPEAKER, "Speaker", NULL, "Speaker");
	else if (err)
		send_error(s, AERR_SPEAKER_FULL, NULL, NULL, NULL);
	if (err == -ENODEV)
		tell_once(s, &s->told_audio,
			  "Speaker dropped: there is no speaker (see the log's audio lines); SpeakerClear does nothing");
	else if (err && ratelimit_ok(&s->rl))
		log_warn_limited("api: client %s (%s): Speaker dropped whole: its samples do not fit in the speaker's queue (%u s); nothing of it was queued",
			 s->peer, name_of(s), HEAD_AUDIO_QUEUE_S);
}

static void volume(struct session *s, const struct to_robot *m)
{
	struct head_audio_volume now;
	int err = -ENODEV;

	if (s->api->d->audio)
		err = head_audio_volume(s->api->d->audio,
					m->volume.has_percent ? &m->volume.percent : NULL,
					m->volume.has_muted ? &m->volume.muted : NULL, &now);
	if (err)
		send_error(s, err == -ENODEV ? AERR_NO_MIXER : AERR_MIXER_REFUSED, NULL, NULL, NULL);
	if (err == -ENODEV)
		tell_once(s, &s->told_volume, "Volume dropped: there is no speaker mixer (see the log's audio lines)");
	else if (err && ratelimit_ok(&s->rl))
		log_warn_limited("api: client %s (%s): Volume not applied: the mixer refused it",
			 s->peer, name_of(s));
	else if (!err)
		nb_log_limited(LOG_LVL_DEBUG, "api: client %s (%s): volume %u %%%s", s->peer, name_of(s), now.percent,
			  now.muted ? ", muted" : "");
}

static void dispatch(struct session *s, struct to_robot *m, const uint8_t *p, uint32_t len)
{
	struct body_cmd c;

	memset(&c, 0, sizeof(c));
	switch (m->kind) {
	case TR_HELLO:
		send_error(s, AERR_HELLO_AGAIN, NULL, NULL, NULL);
		if (ratelimit_ok(&s->rl))
			log_warn_limited("api: client %s (%s): Hello after the handshake: ignored",
				 s->peer, name_of(s));
		break;
	case TR_HEARTBEAT:
		break;
	case TR_POWER:
		log_info_limited("api: client %s (%s): Power %s", s->peer, name_of(s),
				 m->power == POWER_WAKE ? "Wake" : "Rest");
		c.power = m->power;
		push(s, BC_POWER, &c);
		return;
	case TR_MOTION:
		c.motion = m->motion;
		push(s, BC_MOTION, &c);
		return;
	case TR_LEDS:
		c.leds.all_back = m->leds.all_back;
		c.leds.req = m->leds.req;
		push(s, BC_LEDS, &c);
		return;
	case TR_SPEAKER:
		speaker(s, p, len);
		break;
	case TR_SPEAKER_CLEAR:
		if (s->api->d->audio)
			head_audio_speaker_clear(s->api->d->audio);
		else
			send_error(s, AERR_NO_SPEAKER, "SpeakerClear", NULL, "SpeakerClear");
		break;
	case TR_VOLUME:
		volume(s, m);
		break;
	case TR_SUBSCRIBE:
		s->sub = m->subscribe;
		s->due = 1.0f;	/* the first State goes out at the next cycle */
		if (s->sub.microphone && (!s->api->d->audio ||
					  head_audio_mic_fd(s->api->d->audio) < 0))
			send_error(s, AERR_NO_MICROPHONES, NULL, NULL, NULL);
		if (s->w.fd < 0)
			return;
		if (s->sub.microphone && (!s->api->d->audio ||
					  head_audio_mic_fd(s->api->d->audio) < 0))
			tell_once(s, &s->told_mic,
				  "microphone subscription recorded, but there are no microphones: no Microphone messages will come");
		if (s == s->api->controller) {
			cameras_follow(s->api);
			mic_want(s->api);
		}
		break;
	case TR_STOP: {
		char who[160];

		/* At once, from this thread: the body's stop is safe from any thread. */
		snprintf(who, sizeof(who), "robot API client %s (%s)", s->peer, name_of(s));
		core_stop(s->api->d, who);
		break;
	}
	}
	/* Anything else feeds the watchdog, a few times a cycle at most. */
	if (mono_ns() - s->heard_sent >= HEARD_EVERY_NS) {
		s->heard_sent = mono_ns();
		push(s, BC_HEARD, NULL);
	}
}

/* What the client gets to know of its message's faults (Error events). */
static void tell_errors(struct session *s, int r, const struct to_robot *m)
{
	const char *next = m->unknown;
	char field[64];

	/* "Where.name, Where.other": one UnknownField each. */
	while (*next && s->w.fd >= 0) {
		size_t n = strcspn(next, ",");

		snprintf(field, sizeof(field), "%.*s", (int)n, next);
		send_error(s, AERR_UNKNOWN_FIELD, m->variant, field, field);
		next += n;
		next += strspn(next, ", ");
	}
	if (s->w.fd < 0)
		return;
	if (r == DECODE_UNKNOWN) {
		send_error(s, AERR_UNKNOWN_MESSAGE, m->variant[0] ? m->variant : NULL, NULL,
			   m->error);
	} else if (r == DECODE_INVALID) {
		codec_error_field(m->error, field, sizeof(field));
		send_error(s, AERR_BAD_VALUE, m->variant, field, m->error);
	}
}

static void handle_frame(struct session *s, const uint8_t *p, uint32_t len)
{
	msgpack_unpacked u;
	struct to_robot m;
	const char *why;
	int r;

	/* Speaker's samples, however many, without an object per sample. */
	r = s->hello_done ? codec_decode_speaker(p, len, &m) : -1;
	if (r < 0) {
		if (mp_unpack_frame(&u, p, len, API_MAX_VALUES, &why)) {
			char msg[160];

			snprintf(msg, sizeof(msg), "malformed MessagePack in a %u-byte frame: %s",
				 len, why);
			fail_session(s, AERR_MALFORMED, NULL, NULL, msg);
			return;
		}
		r = codec_decode(&u.data, &m);
		msgpack_unpacked_destroy(&u);
	}

	if (!s->hello_done) {
		handshake(s, (enum decode_result)r, &m);
		return;
	}
	if (m.unknown[0] && ratelimit_ok(&s->rl))
		log_warn_limited("api: client %s (%s): unknown fields ignored: %s", s->peer,
			 name_of(s), m.unknown);
	tell_errors(s, r, &m);
	if (s->w.fd < 0)
		return;
	if (r == DECODE_UNKNOWN || r == DECODE_INVALID) {
		if (r == DECODE_UNKNOWN && ratelimit_ok(&s->rl))
			log_warn_limited("api: client %s (%s): ignored: %s", s->peer, name_of(s), m.error);
		else if (r == DECODE_INVALID && ratelimit_ok(&s->rl))
			log_warn_limited("api: client %s (%s): %s ignored: %s", s->peer, name_of(s),
				 m.variant, m.error);
		/* Still heard: the watchdog counts any message. */
		m.kind = TR_HEARTBEAT;
	}
	dispatch(s, &m, p, len);
}

/*
 * Room for n more bytes of the frame: it grows as its bytes arrive, and all
 * unfinished frames together stay under API_MAX_HELD. False: closed.
 */
static bool frame_room(struct session *s)
{
	struct api *api = s->api;
	uint32_t cap;
	uint8_t *p;

	if (s->got < s->frame_cap)
		return true;
	cap = s->frame_cap < FIRST_CHUNK ? FIRST_CHUNK : s->frame_cap * 2;
	if (cap > s->need)
		cap = s->need;
	if (api->held - (s->frame == s->inline_frame ? 0 : s->frame_cap) + cap > API_MAX_HELD) {
		session_close(s, "too much memory held for unfinished frames");
		return false;
	}
	p = realloc(s->frame == s->inline_frame ? NULL : s->frame, cap);
	if (!p) {
		session_close(s, "out of memory for a frame");
		return false;
	}
	if (s->frame == s->inline_frame)
		memcpy(p, s->inline_frame, s->got);
	else
		api->held -= s->frame_cap;
	api->held += cap;
	s->frame = p;
	s->frame_cap = cap;
	return true;
}

/*
 * Read what is there, within this wake-up's budget: FRAMES_PER_WAKE frames,
 * BYTES_PER_WAKE bytes, NS_PER_WAKE of time. What is left waits for the
 * next wake-up (epoll is level-triggered), after the other clients.
 */
static void session_read(struct session *s)
{
	uint64_t start = mono_ns();
	size_t bytes = 0;

	for (int frames = 0; frames < FRAMES_PER_WAKE && s->w.fd >= 0 && !s->closing &&
	     bytes < BYTES_PER_WAKE && mono_ns() - start < NS_PER_WAKE;) {
		uint8_t *dst;
		size_t want;
		ssize_t n;

		if (!s->need) {
			dst = s->hdr + s->hdr_got;
			want = 4 - s->hdr_got;
		} else {
			if (!frame_room(s))
				return;
			dst = s->frame + s->got;
			want = s->frame_cap - s->got;
		}
		if (want > BYTES_PER_WAKE - bytes)
			want = BYTES_PER_WAKE - bytes;
		n = recv(s->w.fd, dst, want, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				session_close(s, strerror(errno));
			return;
		}
		if (n == 0) {
			session_close(s, s->need || s->hdr_got ? "closed mid-frame" : "closed by the client");
			return;
		}
		bytes += (size_t)n;
		if (!s->need) {
			uint32_t len;

			s->hdr_got += (unsigned int)n;
			if (s->hdr_got < 4)
				continue;
			len = (uint32_t)s->hdr[0] << 24 | (uint32_t)s->hdr[1] << 16 |
			      (uint32_t)s->hdr[2] << 8 | s->hdr[3];
			if (len > API_MAX_FRAME) {
				char msg[96];

				snprintf(msg, sizeof(msg), "a frame of %u bytes is over the 8 MiB limit", len);
				fail_session(s, AERR_MALFORMED, NULL, NULL, msg);
				return;
			}
			if (!len) {
				fail_session(s, AERR_MALFORMED, NULL, NULL, "malformed: an empty frame");
				return;
			}
			if (!s->hello_done && len > API_PRE_HELLO_FRAME) {
				char msg[120];

				snprintf(msg, sizeof(msg),
					 "handshake: a frame of %u bytes before Hello (at most %u)",
					 len, API_PRE_HELLO_FRAME);
				fail_session(s, AERR_HANDSHAKE, NULL, NULL, msg);
				return;
			}
			/* Small frames inline; a big one grows as it arrives. */
			s->frame = s->inline_frame;
			s->frame_cap = len <= INLINE_FRAME ? len : INLINE_FRAME;
			s->need = len;
			s->got = 0;
			continue;
		}
		s->got += (uint32_t)n;
		if (s->got < s->need)
			continue;
		handle_frame(s, s->frame, s->need);
		if (s->w.fd < 0 || s->closing)
			return;	/* the frame closed it, and freed the frame */
		frame_release(s);
		s->need = 0;
		s->hdr_got = 0;
		frames++;
	}
}

static void session_event(struct loop_watch *w, uint32_t events)
{
	struct session *s = container_of(w, struct session, w);

	if (events & (EPOLLERR | EPOLLHUP)) {
		session_close(s, events & EPOLLERR ? "socket error" : "hung up");
		return;
	}
	if ((events & EPOLLIN) && !s->closing)
		session_read(s);
	if (s->w.fd >= 0 && (events & EPOLLOUT))
		flush(s);
}

/* "host:port" for log lines, and the host alone, to count per address. */
static void peer_name(const struct sockaddr_storage *sa, char *out, size_t n, char *host_out,
		      size_t hn)
{
	char host[INET6_ADDRSTRLEN], port[8];
	const char *h;

	if (getnameinfo((const struct sockaddr *)sa, sizeof(*sa), host, sizeof(host), port,
			sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(out, n, "?");
		snprintf(host_out, hn, "?");
		return;
	}
	h = strncmp(host, "::ffff:", 7) ? host : host + 7;
	snprintf(host_out, hn, "%s", h);
	if (sa->ss_family == AF_INET6 && !strchr(host, '.'))
		snprintf(out, n, "[%s]:%s", host, port);
	else
		snprintf(out, n, "%s:%s", h, port);
}

/* The oldest session without Hello, from host (or anyone's when NULL). */
static struct session *oldest_pending(struct api *api, const char *host, unsigned int *count)
{
	struct session *oldest = NULL;

	*count = 0;
	for (struct session *s = api->sessions; s; s = s->next) {
		if ((s->hello_done && !s->closing) || (host && strcmp(s->host, host)))
			continue;
		(*count)++;
		if (!oldest || s->since < oldest->since)
			oldest = s;
	}
	return oldest;
}

/*
 * Room for a new connection from host. Connections that have not said
 * Hello never lock a real client out: past API_PENDING_PER_HOST of them
 * from one address, that address's oldest goes; past API_MAX_SESSIONS in
 * all, the oldest anyone's goes. A candidate whose bytes are already
 * waiting is read first: a real client's Hello, sent as it connects, is
 * taken before its connection could be chosen. False when every session
 * has said Hello.
 */
static bool make_room(struct api *api, const char *host)
{
	for (int tries = 0; tries <= API_MAX_SESSIONS; tries++) {
		unsigned int here, all;
		struct session *mine = oldest_pending(api, host, &here);
		struct session *any = oldest_pending(api, NULL, &all);
		struct session *victim = here >= API_PENDING_PER_HOST ? mine :
					 api->nsessions >= API_MAX_SESSIONS ? any : NULL;
		int waiting = 0;

		if (!victim)
			return api->nsessions < API_MAX_SESSIONS;
		if (!victim->closing && !victim->tried && !ioctl(victim->w.fd, FIONREAD, &waiting) &&
		    waiting > 0) {
			victim->tried = true;
			session_read(victim);
			continue;
		}
		session_close(victim, victim == mine && here >= API_PENDING_PER_HOST ?
			      "evicted: the oldest of its address's connections without Hello" :
			      "evicted: the oldest connection without Hello, to make room");
	}
	return api->nsessions < API_MAX_SESSIONS;
}

static void api_accept(struct loop_watch *w, uint32_t events)
{
	struct api *api = container_of(w, struct api, listen_w);

	/* A few per wake-up, so the sessions' reads come in between. */
	for (int i = 0; i < API_PENDING_PER_HOST; i++) {
		struct sockaddr_storage sa;
		socklen_t salen = sizeof(sa);
		struct session *s;
		int one = 1, sndbuf = API_SNDBUF;
		char peer[64], host[64];
		int fd = accept4(w->fd, (struct sockaddr *)&sa, &salen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    ratelimit_ok(&api->rl_accept))
				log_warn("api: accept: %s", strerror(errno));
			return;
		}
		peer_name(&sa, peer, sizeof(peer), host, sizeof(host));
		if (!make_room(api, host)) {
			if (ratelimit_ok(&api->rl_accept))
				log_warn("api: %u connections already: refusing one", api->nsessions);
			close(fd);
			continue;
		}
		s = calloc(1, sizeof(*s));
		if (!s) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		/* A small kernel buffer: what a slow reader gets stays fresh. */
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
		s->api = api;
		s->w.fd = fd;
		s->w.cb = session_event;
		s->dead.free = session_free;
		s->id = ++api->next_id;
		s->since = mono_ns();
		memcpy(s->peer, peer, sizeof(peer));
		memcpy(s->host, host, sizeof(host));
		outq_init(&s->out, API_QUEUE_MAX, API_QUEUE_MAX / 4);
		if (loop_add(api->loop, &s->w, EPOLLIN)) {
			outq_free(&s->out);
			close(fd);
			free(s);
			continue;
		}
		s->next = api->sessions;
		api->sessions = s;
		api->nsessions++;
		nb_log_limited(LOG_LVL_DEBUG, "api: connection from %s", s->peer);
	}
}

/* States to the subscribed controller: cycles is how many passed. */
static void publish_state(struct api *api, const struct body_news *n, uint64_t cycles)
{
	struct daemon *d = api->d;
	struct session *s = api->controller;
	struct state_view v;
	float period, rate;

	if (!s || !s->sub.state || s->closing)
		return;
	period = (float)d->body->info.period_ns / 1e9f;
	rate = s->sub.rate > 0.0f ? s->sub.rate : API_STATE_HZ;
	s->due += rate * period * (float)(cycles < 100 ? cycles : 100);
	if (s->due < 1.0f)
		return;
	s->due -= 1.0f;
	if (s->due > 1.0f)
		s->due = 1.0f;	/* no bursts after a stall */

	v.time = mono_to_epoch(n->frame.time_ns);
	v.primary_state = primary_state_name[n->status.primary];
	v.fall_state = fall_state_name[n->status.fall];
	v.motion = n->status.motion;
	v.s = &n->frame.s;
	v.odometry = n->status.has_odometry ? n->status.odometry : NULL;
	v.odometry_uncertainty = n->status.odometry_uncertainty;
	v.hot = n->status.hot;
	api->scratch.len = 0;
	if (codec_state(&api->scratch, &v)) {
		log_err("api: cannot encode State");
		return;
	}
	send_frame(s, api->scratch.data, api->scratch.len, true);
}

/* A camera's new frame: to the controller, when it is subscribed and has room. */
static void cams_ready(struct loop_watch *w, uint32_t events)
{
	struct api *api = container_of(w, struct api, cams_w);

	head_cameras_clear_fd(api->d->cameras);
	for (int i = 0; i < HEAD_CAMERAS; i++) {
		struct session *s = api->controller;
		uint32_t width, height;
		double time;

		api->jpeg.len = 0;
		if (!head_cameras_take(api->d->cameras, i, &api->jpeg, &time, &width, &height))
			continue;
		if (!s || !s->hello_done || s->closing || !s->sub.cameras[i])
			continue;	/* a frame from before the subscription changed */
		api->image.len = 0;
		if (codec_image(&api->image, camera_name[i], time, width, height, api->jpeg.data,
				api->jpeg.len)) {
			log_err("api: cannot encode an Image of %zu bytes", api->jpeg.len);
			continue;
		}
		if (api->image.len > IMAGE_QUEUE_ROOM) {
			if (ratelimit_ok(&s->rl))
				log_warn_limited("api: an Image of %zu bytes is over the %u a client's queue takes: not sent (a smaller --camera-size or --camera-quality)",
					 api->image.len, IMAGE_QUEUE_ROOM);
			continue;
		}
		if (outq_pending(&s->out) + api->image.len > IMAGE_QUEUE_ROOM) {
			s->images_dropped++;
			if (ratelimit_ok(&s->rl))
				log_info_limited("api: client %s (%s) reads too slowly for its Images: %llu dropped so far",
					 s->peer, name_of(s), (unsigned long long)s->images_dropped);
			continue;
		}
		send_frame(s, api->image.data, api->image.len, false);
	}
}

/* The body thread's news: a new state, events, a controller lost to LoLA. */
static void news_ready(struct loop_watch *w, uint32_t events)
{
	struct api *api = container_of(w, struct api, news_w);
	struct body_news *n = &api->news;
	struct session *s;
	uint64_t cycles;

	handoff_take(&api->d->handoff, n);
	s = api->controller;
	if (s && n->lost_to_lola == s->id) {
		session_close(s, "replaced as the controller by a LoLA client");
		s = NULL;
	}
	if (s && n->released == s->id) {
		session_close(s, "released as the controller by the REST API");
		s = NULL;
	}
	if (s && n->events_len && n->events_for == s->id &&
	    !send_frame(s, n->events, n->events_len, false))
		s = NULL;
	if (n->events_dropped && ratelimit_ok(&api->rl_queue))
		log_warn("api: %u bytes of events dropped: the network thread fell behind",
			 n->events_dropped);
	if (n->seq == api->news_seq)
		return;
	cycles = n->seq - api->news_seq;
	api->news_seq = n->seq;
	/* Only a controller the body thread has taken on gets States. */
	if (s && n->ctl_api == s->id)
		publish_state(api, n, cycles);
}

/* The head's microphone chunks, as Microphone messages to the subscribed controller. */
static void mic_ready(struct loop_watch *w, uint32_t events)
{
	struct api *api = container_of(w, struct api, mic_w);
	int16_t chunk[HEAD_AUDIO_CHUNK];
	unsigned int dropped, lost = 0;
	double time;
	size_t n;

	while ((n = head_audio_mic_take(api->d->audio, chunk, &time, &dropped)) || dropped) {
		struct session *s = api->controller;

		lost += dropped;
		if (!n)
			break;
		if (!s || !s->sub.microphone || s->closing)
			continue;
		api->scratch.len = 0;
		if (codec_microphone(&api->scratch, time, chunk, n)) {
			log_err("api: cannot encode Microphone");
			continue;
		}
		send_frame(s, api->scratch.data, api->scratch.len, false);
	}
	if (lost && ratelimit_ok(&api->rl_mic))
		log_warn("api: %u microphone chunks of %d samples dropped: the network thread fell behind",
			 lost, HEAD_AUDIO_CHUNK);
}

void api_housekeeping(struct api *api, uint64_t now)
{
	struct session *s = api->sessions, *next;

	for (; s; s = next) {
		next = s->next;
		if (s->closing && now - s->since > API_LINGER_NS)
			session_close(s, "closed (its last reply did not go out in time)");
		else if (!s->hello_done && !s->closing && now - s->since > API_HELLO_NS)
			session_close(s, "handshake: no Hello within 2 s");
	}
}

static int listen_on(const struct config *cfg)
{
	char port[8];
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	}, *res, *ai;
	int fd = -1, one = 1, zero = 0, err;

	snprintf(port, sizeof(port), "%u", cfg->port);
	if (!cfg->bind) {
		/* Every interface: IPv6 and IPv4 on one socket, or IPv4 alone. */
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(cfg->port),
					   .sin6_addr = IN6ADDR_ANY_INIT };
		struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(cfg->port),
					  .sin_addr.s_addr = htonl(INADDR_ANY) };

		fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (!bind(fd, (struct sockaddr *)&a6, sizeof(a6)) && !listen(fd, 16))
				return fd;
			close(fd);
		}
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&a4, sizeof(a4)) || listen(fd, 16)) {
			err = -errno;
			close(fd);
			return err;
		}
		return fd;
	}
	err = getaddrinfo(cfg->bind, port, &hints, &res);
	if (err) {
		log_err("api: --bind %s: %s", cfg->bind, gai_strerror(err));
		return -EINVAL;
	}
	err = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 16))
			break;
		err = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd : err;
}

struct api *api_create(struct daemon *d)
{
	struct api *api = calloc(1, sizeof(*api));
	int fd;

	if (!api)
		return NULL;
	fd = listen_on(d->cfg);
	if (fd < 0) {
		log_err("api: cannot listen on %s port %u: %s",
			d->cfg->bind ? d->cfg->bind : "every interface", d->cfg->port,
			strerror(-fd));
		free(api);
		return NULL;
	}
	api->d = d;
	api->loop = &d->net_loop;
	api->listen_w.fd = fd;
	api->listen_w.cb = api_accept;
	api->news_w.fd = d->handoff.wake_fd;
	api->news_w.cb = news_ready;
	api->rl_close.burst = 20;
	buf_init(&api->scratch, 64 * 1024);
	buf_init(&api->jpeg, CAMERA_MAX_JPEG);
	buf_init(&api->image, CAMERA_MAX_JPEG + 256);
	api->cams_w.fd = head_cameras_fd(d->cameras);
	api->cams_w.cb = cams_ready;
	api->mic_w.fd = d->audio ? head_audio_mic_fd(d->audio) : -1;
	api->mic_w.cb = mic_ready;
	/* Speaker's samples land here before the queue: allocated once, with audio only. */
	if (d->audio)
		api->pcm = malloc(HEAD_AUDIO_QUEUE * sizeof(*api->pcm));
	if ((d->audio && !api->pcm) || loop_add(api->loop, &api->listen_w, EPOLLIN) ||
	    loop_add(api->loop, &api->news_w, EPOLLIN) ||
	    loop_add(api->loop, &api->cams_w, EPOLLIN) ||
	    (api->mic_w.fd >= 0 && loop_add(api->loop, &api->mic_w, EPOLLIN))) {
		close(fd);
		free(api->pcm);
		buf_free(&api->scratch);
		free(api);
		return NULL;
	}
	{
		struct sockaddr_storage sa;
		socklen_t salen = sizeof(sa);
		unsigned int port = d->cfg->port;

		if (!getsockname(fd, (struct sockaddr *)&sa, &salen))
			port = ntohs(sa.ss_family == AF_INET6 ?
				     ((struct sockaddr_in6 *)&sa)->sin6_port :
				     ((struct sockaddr_in *)&sa)->sin_port);
		log_info("api: listening on %s port %u (robot API version %u)",
			 d->cfg->bind ? d->cfg->bind : "every interface", port, API_VERSION);
	}
	return api;
}

void api_destroy(struct api *api)
{
	if (!api)
		return;
	while (api->sessions)
		session_close(api->sessions, "naobodyd is stopping");
	loop_del(api->loop, &api->cams_w);
	if (api->mic_w.fd >= 0)
		loop_del(api->loop, &api->mic_w);
	free(api->pcm);
	loop_del(api->loop, &api->news_w);
	loop_del(api->loop, &api->listen_w);
	close(api->listen_w.fd);
	buf_free(&api->scratch);
	buf_free(&api->jpeg);
	buf_free(&api->image);
	free(api);
}
