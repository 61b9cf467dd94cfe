// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the robot API on TCP 7700 (see api.h).
 *
 * Every connection is a session. A session must say Hello within
 * API_HELLO_NS; when it does, with the right version, it becomes the
 * controller and the previous controller (TCP or LoLA) is disconnected.
 * Frames are a u32 big-endian length, then one MessagePack value; a length
 * over API_MAX_FRAME closes the connection before anything is allocated,
 * and malformed MessagePack closes it with a log line. Unknown variants and
 * fields are ignored with a rate-limited log line.
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
#include <sys/socket.h>
#include <unistd.h>

#include <msgpack.h>

#include "api.h"
#include "clock.h"
#include "codec.h"
#include "log.h"
#include "mpcheck.h"
#include "naobodyd.h"

#define INLINE_FRAME	4096
#define FRAMES_PER_WAKE	64

struct session {
	struct loop_watch w;
	struct loop_deferred dead;
	struct api *api;
	struct session *next;
	uint64_t id;
	char peer[64];
	char client[64];
	bool hello_done;
	bool closing;			/* flushing its last frames */
	uint64_t since;			/* connected, or started closing */

	uint8_t hdr[4];
	unsigned int hdr_got;
	uint32_t need;			/* the frame's length; 0: reading a header */
	uint32_t got;
	uint8_t *frame;
	uint8_t inline_frame[INLINE_FRAME];

	struct outq out;
	bool want_out;

	struct subscription sub;
	float due;			/* States owed; one goes out at 1 */
	bool told_audio, told_media;
	struct ratelimit rl;
};

struct api {
	struct daemon *d;
	struct loop_watch listen_w;
	struct session *sessions;
	unsigned int nsessions;
	uint64_t next_id;
	struct buf scratch;
	struct ratelimit rl_accept;
};

static const char *name_of(const struct session *s)
{
	return s->client[0] ? s->client : "-";
}

static void session_free(struct loop_deferred *dead)
{
	struct session *s = container_of(dead, struct session, dead);

	outq_free(&s->out);
	if (s->frame && s->frame != s->inline_frame)
		free(s->frame);
	free(s);
}

static void session_close(struct session *s, const char *why)
{
	struct api *api = s->api;
	struct session **pp;

	if (s->w.fd < 0)
		return;
	log_info("api: client %s (%s) disconnected: %s", s->peer, name_of(s), why);
	core_release(api->d, s);
	loop_del(&api->d->loop, &s->w);
	close(s->w.fd);
	s->w.fd = -1;
	for (pp = &api->sessions; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	api->nsessions--;
	loop_defer_free(&api->d->loop, &s->dead);
}

static void want_out(struct session *s, bool on)
{
	uint32_t ev = s->closing ? 0 : EPOLLIN;

	if (s->want_out == on)
		return;
	s->want_out = on;
	loop_mod(&s->api->d->loop, &s->w, ev | (on ? EPOLLOUT : 0));
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
		session_close(s, "closed after its last reply");
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

/* Stop reading; close once the queue is out, or after API_LINGER_NS. */
static void close_after_flush(struct session *s)
{
	s->closing = true;
	s->since = mono_ns();
	s->want_out = true;
	loop_mod(&s->api->d->loop, &s->w, EPOLLOUT);
	flush(s);
}

static void handshake(struct session *s, enum decode_result r, struct to_robot *m)
{
	struct daemon *d = s->api->d;

	if (r != DECODE_OK || m->kind != TR_HELLO) {
		char why[240];

		if (r == DECODE_OK || r == DECODE_UNKNOWN)
			snprintf(why, sizeof(why), "handshake: expected Hello first, got %s",
				 m->variant[0] ? m->variant : "something else");
		else
			snprintf(why, sizeof(why), "handshake: bad Hello: %s", m->error);
		session_close(s, why);
		return;
	}
	snprintf(s->client, sizeof(s->client), "%s", m->hello.client);
	if (m->hello.version != API_VERSION) {
		log_warn("api: client %s (%s) speaks version %u, this robot version %u: answering and closing",
			 s->peer, name_of(s), m->hello.version, API_VERSION);
		send_hello(s);
		if (s->w.fd >= 0)
			close_after_flush(s);
		return;
	}
	s->hello_done = true;
	log_info("api: client %s (%s) said hello: it is the controller", s->peer, name_of(s));
	core_claim(d, CTL_API, s);
	send_hello(s);
	if (s->w.fd >= 0)
		core_heard(d, s);
}

static void tell_once(struct session *s, bool *told, const char *what)
{
	if (*told)
		return;
	*told = true;
	log_info("api: client %s (%s): %s", s->peer, name_of(s), what);
}

static void dispatch(struct session *s, struct to_robot *m)
{
	struct daemon *d = s->api->d;
	uint64_t now = mono_ns();

	switch (m->kind) {
	case TR_HELLO:
		if (ratelimit_ok(&s->rl))
			log_warn("api: client %s (%s): Hello after the handshake: ignored",
				 s->peer, name_of(s));
		break;
	case TR_HEARTBEAT:
		break;
	case TR_POWER:
		log_info("api: client %s (%s): Power %s", s->peer, name_of(s),
			 m->power == POWER_WAKE ? "Wake" : "Rest");
		motion_power(d->motion, m->power, now);
		break;
	case TR_MOTION:
		motion_request(d->motion, &m->motion, now);
		break;
	case TR_LEDS:
		leds_set(&d->leds, m->leds.all_back ? NULL : &m->leds.req);
		break;
	case TR_SPEAKER:
		tell_once(s, &s->told_audio,
			  "Speaker, SpeakerClear and Volume are checked and dropped: there is no audio device yet");
		break;
	case TR_SPEAKER_CLEAR:
	case TR_VOLUME:
		tell_once(s, &s->told_audio,
			  "Speaker, SpeakerClear and Volume are checked and dropped: there is no audio device yet");
		break;
	case TR_SUBSCRIBE:
		s->sub = m->subscribe;
		s->due = 1.0f;	/* the first State goes out at the next cycle */
		if (s->sub.cameras[CAMERA_TOP] || s->sub.cameras[CAMERA_BOTTOM] ||
		    s->sub.microphone)
			tell_once(s, &s->told_media,
				  "camera and microphone subscriptions are recorded, but there are no such devices yet: no Image or Microphone messages will come");
		break;
	case TR_STOP: {
		char who[160];

		snprintf(who, sizeof(who), "robot API client %s (%s)", s->peer, name_of(s));
		core_stop(d, who);
		break;
	}
	}
}

static void handle_frame(struct session *s, const uint8_t *p, uint32_t len)
{
	struct daemon *d = s->api->d;
	msgpack_unpacked u;
	struct to_robot m;
	enum decode_result r;
	const char *why = NULL;
	size_t off = 0;
	long n;

	n = mp_check(p, len, len, API_MAX_VALUES, &why);
	if (n != (long)len) {
		char msg[160];

		if (n > 0)
			why = "bytes after the value";
		else if (n == 0)
			why = "truncated value";
		snprintf(msg, sizeof(msg), "malformed MessagePack in a %u-byte frame: %s", len, why);
		session_close(s, msg);
		return;
	}
	msgpack_unpacked_init(&u);
	if (msgpack_unpack_next(&u, (const char *)p, len, &off) != MSGPACK_UNPACK_SUCCESS) {
		msgpack_unpacked_destroy(&u);
		session_close(s, "malformed MessagePack (msgpack-c refused it)");
		return;
	}
	r = codec_decode(&u.data, &m);
	msgpack_unpacked_destroy(&u);

	if (!s->hello_done) {
		handshake(s, r, &m);
		return;
	}
	core_heard(d, s);
	if (m.unknown[0] && ratelimit_ok(&s->rl))
		log_warn("api: client %s (%s): unknown fields ignored: %s", s->peer,
			 name_of(s), m.unknown);
	if (r == DECODE_UNKNOWN) {
		if (ratelimit_ok(&s->rl))
			log_warn("api: client %s (%s): ignored: %s", s->peer, name_of(s), m.error);
		return;
	}
	if (r == DECODE_INVALID) {
		if (ratelimit_ok(&s->rl))
			log_warn("api: client %s (%s): %s ignored: %s", s->peer, name_of(s),
				 m.variant, m.error);
		return;
	}
	dispatch(s, &m);
}

/* Read what is there, a bounded number of frames per wake-up. */
static void session_read(struct session *s)
{
	for (int frames = 0; frames < FRAMES_PER_WAKE && s->w.fd >= 0;) {
		uint8_t *dst;
		size_t want;
		ssize_t n;

		if (!s->need) {
			dst = s->hdr + s->hdr_got;
			want = 4 - s->hdr_got;
		} else {
			dst = s->frame + s->got;
			want = s->need - s->got;
		}
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
				session_close(s, msg);
				return;
			}
			if (!len) {
				session_close(s, "malformed: an empty frame");
				return;
			}
			s->frame = len <= INLINE_FRAME ? s->inline_frame : malloc(len);
			if (!s->frame) {
				session_close(s, "out of memory for a frame");
				return;
			}
			s->need = len;
			s->got = 0;
			continue;
		}
		s->got += (uint32_t)n;
		if (s->got < s->need)
			continue;
		handle_frame(s, s->frame, s->need);
		if (s->w.fd < 0)
			return;	/* the frame closed it; session_free frees the frame */
		if (s->frame != s->inline_frame)
			free(s->frame);
		s->frame = NULL;
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

static void peer_name(const struct sockaddr_storage *sa, char *out, size_t n)
{
	char host[INET6_ADDRSTRLEN], port[8];

	if (getnameinfo((const struct sockaddr *)sa, sizeof(*sa), host, sizeof(host), port,
			sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(out, n, "?");
	else if (sa->ss_family == AF_INET6 && !strchr(host, '.'))
		snprintf(out, n, "[%s]:%s", host, port);
	else
		snprintf(out, n, "%s:%s", strncmp(host, "::ffff:", 7) ? host : host + 7, port);
}

static void api_accept(struct loop_watch *w, uint32_t events)
{
	struct api *api = container_of(w, struct api, listen_w);

	for (;;) {
		struct sockaddr_storage sa;
		socklen_t salen = sizeof(sa);
		struct session *s;
		int one = 1, sndbuf = API_SNDBUF;
		int fd = accept4(w->fd, (struct sockaddr *)&sa, &salen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    ratelimit_ok(&api->rl_accept))
				log_warn("api: accept: %s", strerror(errno));
			return;
		}
		if (api->nsessions >= API_MAX_SESSIONS) {
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
		peer_name(&sa, s->peer, sizeof(s->peer));
		outq_init(&s->out, API_QUEUE_MAX, API_QUEUE_MAX / 4);
		if (loop_add(&api->d->loop, &s->w, EPOLLIN)) {
			outq_free(&s->out);
			close(fd);
			free(s);
			continue;
		}
		s->next = api->sessions;
		api->sessions = s;
		api->nsessions++;
		log_debug("api: connection from %s", s->peer);
	}
}

void api_drop(struct api *api, void *who, const char *why)
{
	for (struct session *s = api->sessions; s; s = s->next) {
		if (s == who) {
			session_close(s, why);
			return;
		}
	}
}

void api_send_controller(struct api *api, const void *frame, size_t len)
{
	struct daemon *d = api->d;

	if (d->ctl == CTL_API)
		send_frame(d->ctl_who, frame, len, false);
}

void api_publish(struct api *api, const struct body_frame *f,
		 const struct motion_status *st)
{
	struct daemon *d = api->d;
	struct session *s;
	struct state_view v;
	float period, rate;

	if (d->ctl != CTL_API)
		return;
	s = d->ctl_who;
	if (!s->sub.state)
		return;
	period = (float)d->body->info.period_ns / 1e9f;
	rate = s->sub.rate > 0.0f ? s->sub.rate : API_STATE_HZ;
	s->due += rate * period;
	if (s->due < 1.0f)
		return;
	s->due -= 1.0f;
	if (s->due > 1.0f)
		s->due = 1.0f;	/* no bursts after a stall */

	v.time = mono_to_epoch(f->time_ns);
	v.primary_state = primary_state_name[st->primary];
	v.fall_state = fall_state_name[st->fall];
	v.motion = st->motion;
	v.s = &f->s;
	api->scratch.len = 0;
	if (codec_state(&api->scratch, &v)) {
		log_err("api: cannot encode State");
		return;
	}
	send_frame(s, api->scratch.data, api->scratch.len, true);
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
	api->listen_w.fd = fd;
	api->listen_w.cb = api_accept;
	buf_init(&api->scratch, 64 * 1024);
	if (loop_add(&d->loop, &api->listen_w, EPOLLIN)) {
		close(fd);
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
	loop_del(&api->d->loop, &api->listen_w);
	close(api->listen_w.fd);
	buf_free(&api->scratch);
	free(api);
}
