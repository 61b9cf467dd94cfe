// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnbclient: naobodyd's robot API from C (see <naobody/client.h>).
 *
 * Frames are a big-endian u32 length and one MessagePack value with field
 * names (msgpack-c packs and unpacks them). What the robot sends is decoded
 * leniently: fields this version does not know are skipped, a missing one
 * reads 0 or "", so a newer robot does not break an older client. Lengths
 * from the peer are checked against the robot's own limit (8 MiB) before
 * anything is allocated for them.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include <naobody/client.h>

#define MAX_FRAME	(8U << 20)
#define HELLO_MS	5000

struct nbc {
	int fd;
	unsigned int flags;
	struct nbc_robot robot;
	uint64_t last_sent_ms;
	uint8_t *buf;		/* bytes read, not yet taken */
	size_t len, cap;
	msgpack_sbuffer out;
};

static __thread char connect_error[448];

static const char *const joint_names[NBC_JOINTS] = {
	"head_yaw", "head_pitch",
	"left_shoulder_pitch", "left_shoulder_roll", "left_elbow_yaw", "left_elbow_roll",
	"left_wrist_yaw", "left_hand",
	"right_shoulder_pitch", "right_shoulder_roll", "right_elbow_yaw", "right_elbow_roll",
	"right_wrist_yaw", "right_hand",
	"left_hip_yaw_pitch", "left_hip_roll", "left_hip_pitch", "left_knee_pitch",
	"left_ankle_pitch", "left_ankle_roll",
	"right_hip_yaw_pitch", "right_hip_roll", "right_hip_pitch", "right_knee_pitch",
	"right_ankle_pitch", "right_ankle_roll",
};

static const char *const touch_names[] = {
	"chest_button", "head_front", "head_middle", "head_rear",
	"left_hand", "right_hand", "left_foot", "right_foot",
};

const char *nbc_joint_name(unsigned int i)
{
	return i < NBC_JOINTS ? joint_names[i] : NULL;
}

const char *nbc_touch_name(unsigned int i)
{
	return i < sizeof(touch_names) / sizeof(touch_names[0]) ? touch_names[i] : NULL;
}

const char *nbc_connect_error(void)
{
	return connect_error;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- sending ---- */

static int send_all(struct nbc *c, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = send(c->fd, b, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd pfd = { .fd = c->fd, .events = POLLOUT };

				if (poll(&pfd, 1, 1000) <= 0)
					return -ETIMEDOUT;
				continue;
			}
			return errno == ECONNRESET ? -EPIPE : -errno;
		}
		b += w;
		n -= (size_t)w;
	}
	c->last_sent_ms = now_ms();
	return 0;
}

int nbc_send_raw(struct nbc *c, const void *msgpack, size_t len)
{
	uint8_t hdr[4] = { len >> 24, len >> 16, len >> 8, len };
	int err;

	if (!len || len > MAX_FRAME)
		return -EMSGSIZE;
	err = send_all(c, hdr, 4);
	return err ? err : send_all(c, msgpack, len);
}

static void pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

/* A packer on the connection's buffer, emptied; send_packed() sends it. */
static msgpack_packer *packer(struct nbc *c, msgpack_packer *pk)
{
	msgpack_sbuffer_clear(&c->out);
	msgpack_packer_init(pk, &c->out, msgpack_sbuffer_write);
	return pk;
}

static int send_packed(struct nbc *c)
{
	return nbc_send_raw(c, c->out.data, c->out.size);
}

int nbc_heartbeat(struct nbc *c)
{
	msgpack_packer pk;

	pack_str(packer(c, &pk), "Heartbeat");
	return send_packed(c);
}

int nbc_stop(struct nbc *c)
{
	msgpack_packer pk;

	pack_str(packer(c, &pk), "Stop");
	return send_packed(c);
}

int nbc_power(struct nbc *c, enum nbc_power p)
{
	msgpack_packer pk;

	packer(c, &pk);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "Power");
	pack_str(&pk, p == NBC_WAKE ? "Wake" : "Rest");
	return send_packed(c);
}

int nbc_subscribe(struct nbc *c, bool state, float rate_hz)
{
	msgpack_packer pk;

	if (rate_hz < 0)
		return -EINVAL;
	packer(c, &pk);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "Subscribe");
	msgpack_pack_map(&pk, rate_hz > 0 ? 5 : 4);
	pack_str(&pk, "state");
	state ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
	pack_str(&pk, "cameras");
	msgpack_pack_array(&pk, 0);
	pack_str(&pk, "camera_fps");
	msgpack_pack_nil(&pk);
	pack_str(&pk, "microphone");
	msgpack_pack_false(&pk);
	if (rate_hz > 0) {
		pack_str(&pk, "rate");
		msgpack_pack_float(&pk, rate_hz);
	}
	return send_packed(c);
}

static void pack_head(msgpack_packer *pk, const struct nbc_motion *m)
{
	pack_str(pk, "head");
	if (m->head == NBC_HEAD_LOOK_AT) {
		msgpack_pack_map(pk, 1);
		pack_str(pk, "LookAt");
		msgpack_pack_map(pk, 2);
		pack_str(pk, "x");
		msgpack_pack_float(pk, m->look_x);
		pack_str(pk, "y");
		msgpack_pack_float(pk, m->look_y);
	} else {
		pack_str(pk, m->head == NBC_HEAD_LOOK_AROUND ? "LookAround" : "Center");
	}
}

static const char *const speed_names[] = {
	[NBC_NORMAL] = "Normal", [NBC_SLOW] = "Slow", [NBC_FAST] = "Fast",
};

int nbc_motion(struct nbc *c, const struct nbc_motion *m)
{
	static const char *const units[] = {
		[NBC_SIT_DOWN] = "SitDown", [NBC_ARMS_UP] = "ArmsUp", [NBC_SQUAT] = "Squat",
	};
	msgpack_packer pk;

	if ((unsigned int)m->speed > NBC_FAST || (unsigned int)m->head > NBC_HEAD_LOOK_AT ||
	    (unsigned int)m->kind > NBC_SQUAT)
		return -EINVAL;
	packer(c, &pk);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "Motion");
	switch (m->kind) {
	case NBC_STAND:
		msgpack_pack_map(&pk, 1);
		pack_str(&pk, "Stand");
		msgpack_pack_map(&pk, 1);
		pack_head(&pk, m);
		break;
	case NBC_WALK_TO:
	case NBC_WALK_TOWARD:
		msgpack_pack_map(&pk, 1);
		pack_str(&pk, m->kind == NBC_WALK_TO ? "WalkTo" : "WalkToward");
		msgpack_pack_map(&pk, m->kind == NBC_WALK_TO ? 5 : 4);
		pack_str(&pk, "x");
		msgpack_pack_float(&pk, m->x);
		pack_str(&pk, "y");
		msgpack_pack_float(&pk, m->y);
		if (m->kind == NBC_WALK_TO) {
			pack_str(&pk, "turn_to");
			if (m->has_turn_to)
				msgpack_pack_float(&pk, m->turn_to);
			else
				msgpack_pack_nil(&pk);
		}
		pack_str(&pk, "speed");
		pack_str(&pk, speed_names[m->speed]);
		pack_head(&pk, m);
		break;
	default:
		pack_str(&pk, units[m->kind]);
		break;
	}
	return send_packed(c);
}

int nbc_walk_to(struct nbc *c, float x, float y, enum nbc_speed speed)
{
	struct nbc_motion m = { .kind = NBC_WALK_TO, .x = x, .y = y, .speed = speed };

	return nbc_motion(c, &m);
}

/* ---- receiving ---- */

static const msgpack_object *get(const msgpack_object *map, const char *key)
{
	size_t n = strlen(key);

	if (!map || map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (uint32_t i = 0; i < map->via.map.size; i++) {
		const msgpack_object_kv *kv = &map->via.map.ptr[i];

		if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == n &&
		    !memcmp(kv->key.via.str.ptr, key, n))
			return &kv->val;
	}
	return NULL;
}

static double num(const msgpack_object *o)
{
	if (!o)
		return 0;
	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return o->via.f64;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		return (double)o->via.u64;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return (double)o->via.i64;
	default:
		return 0;
	}
}

static bool boolean(const msgpack_object *o)
{
	return o && o->type == MSGPACK_OBJECT_BOOLEAN && o->via.boolean;
}

static void str(const msgpack_object *o, char *out, size_t n)
{
	size_t len = 0;

	if (o && o->type == MSGPACK_OBJECT_STR) {
		len = o->via.str.size < n - 1 ? o->via.str.size : n - 1;
		memcpy(out, o->via.str.ptr, len);
	}
	out[len] = '\0';
}

/* Up to n numbers of an array (the rest 0). */
static void floats(const msgpack_object *o, float *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = o && o->type == MSGPACK_OBJECT_ARRAY && i < o->via.array.size ?
			 (float)num(&o->via.array.ptr[i]) : 0.0f;
}

static void decode_state(const msgpack_object *s, struct nbc_state *st)
{
	const msgpack_object *b = get(s, "battery"), *imu = get(s, "imu");
	const msgpack_object *sonar = get(s, "sonar"), *touch = get(s, "touch");
	const msgpack_object *odo = get(s, "odometry");

	memset(st, 0, sizeof(*st));
	st->time = num(get(s, "time"));
	str(get(s, "primary_state"), st->primary_state, sizeof(st->primary_state));
	str(get(s, "fall_state"), st->fall_state, sizeof(st->fall_state));
	str(get(s, "motion"), st->motion, sizeof(st->motion));
	st->battery_charge = (float)num(get(b, "charge"));
	st->battery_current = (float)num(get(b, "current"));
	st->battery_temperature = (float)num(get(b, "temperature"));
	st->battery_charging = boolean(get(b, "charging"));
	floats(get(imu, "linear_acceleration"), st->linear_acceleration, 3);
	floats(get(imu, "angular_velocity"), st->angular_velocity, 3);
	floats(get(imu, "roll_pitch"), st->roll_pitch, 2);
	st->sonar[0] = (float)num(get(sonar, "left"));
	st->sonar[1] = (float)num(get(sonar, "right"));
	floats(get(s, "left_foot_pressure"), st->left_foot_pressure, 4);
	floats(get(s, "right_foot_pressure"), st->right_foot_pressure, 4);
	for (unsigned int i = 0; i < sizeof(touch_names) / sizeof(touch_names[0]); i++)
		if (boolean(get(touch, touch_names[i])))
			st->touch |= 1U << i;
	floats(get(s, "joint_positions"), st->joint_position, NBC_JOINTS);
	floats(get(s, "joint_temperatures"), st->joint_temperature, NBC_JOINTS);
	floats(get(s, "joint_currents"), st->joint_current, NBC_JOINTS);
	st->has_odometry = odo && odo->type == MSGPACK_OBJECT_ARRAY;
	floats(odo, st->odometry, 3);
}

static void decode_error(const msgpack_object *e, struct nbc_error *err)
{
	str(get(e, "kind"), err->kind, sizeof(err->kind));
	str(get(e, "reason"), err->reason, sizeof(err->reason));
	str(get(e, "command"), err->command, sizeof(err->command));
	str(get(e, "field"), err->field, sizeof(err->field));
	str(get(e, "message"), err->message, sizeof(err->message));
	err->suppressed = (uint32_t)num(get(e, "suppressed"));
}

/* The one-entry map {"Name": data}: its name, and data. */
static bool tagged(const msgpack_object *o, char *name, size_t n, const msgpack_object **data)
{
	if (o->type == MSGPACK_OBJECT_STR) {
		str(o, name, n);
		*data = NULL;
		return true;
	}
	if (o->type != MSGPACK_OBJECT_MAP || o->via.map.size != 1)
		return false;
	str(&o->via.map.ptr[0].key, name, n);
	*data = &o->via.map.ptr[0].val;
	return true;
}

static int decode(const msgpack_object *o, struct nbc_msg *m, struct nbc_robot *hello)
{
	const msgpack_object *data, *edata;
	char name[24], ev[24];

	memset(m, 0, sizeof(*m));
	if (!tagged(o, name, sizeof(name), &data))
		return -EPROTO;
	if (!strcmp(name, "State")) {
		decode_state(data, &m->state);
		return m->kind = NBC_MSG_STATE;
	}
	if (!strcmp(name, "Hello") && hello) {
		const msgpack_object *r = get(data, "robot");

		hello->version = (uint32_t)num(get(data, "version"));
		str(get(r, "body_id"), hello->body_id, sizeof(hello->body_id));
		str(get(r, "head_id"), hello->head_id, sizeof(hello->head_id));
		hello->simulated = boolean(get(r, "simulated"));
		hello->echo_cancellation = boolean(get(r, "echo_cancellation"));
	}
	if (strcmp(name, "Event") || !data || !tagged(data, ev, sizeof(ev), &edata)) {
		snprintf(m->other, sizeof(m->other), "%s", name);
		return m->kind = NBC_MSG_OTHER;
	}
	if (!strcmp(ev, "Touch")) {
		str(get(edata, "sensor"), m->touch.sensor, sizeof(m->touch.sensor));
		m->touch.pressed = boolean(get(edata, "pressed"));
		return m->kind = NBC_MSG_TOUCH;
	}
	if (!strcmp(ev, "Fall")) {
		str(get(edata, "state"), m->fall_state, sizeof(m->fall_state));
		return m->kind = NBC_MSG_FALL;
	}
	if (!strcmp(ev, "Watchdog")) {
		m->watchdog_active = boolean(get(edata, "active"));
		return m->kind = NBC_MSG_WATCHDOG;
	}
	if (!strcmp(ev, "Error")) {
		decode_error(edata, &m->error);
		return m->kind = NBC_MSG_ERROR;
	}
	snprintf(m->other, sizeof(m->other), "Event.%.17s", ev);
	return m->kind = NBC_MSG_OTHER;
}

/* A whole frame in the buffer: its value decoded into m, and taken. 0: not yet. */
static int take_frame(struct nbc *c, struct nbc_msg *m, struct nbc_robot *hello)
{
	msgpack_unpacked u;
	size_t off = 0;
	uint32_t n;
	int rc;

	if (c->len < 4)
		return 0;
	n = (uint32_t)c->buf[0] << 24 | (uint32_t)c->buf[1] << 16 |
	    (uint32_t)c->buf[2] << 8 | c->buf[3];
	if (!n || n > MAX_FRAME)
		return -EPROTO;
	if (c->len < 4 + (size_t)n)
		return 0;
	msgpack_unpacked_init(&u);
	if (msgpack_unpack_next(&u, (const char *)c->buf + 4, n, &off) != MSGPACK_UNPACK_SUCCESS ||
	    off != n)
		rc = -EPROTO;
	else
		rc = decode(&u.data, m, hello);
	msgpack_unpacked_destroy(&u);
	memmove(c->buf, c->buf + 4 + n, c->len - 4 - n);
	c->len -= 4 + n;
	return rc;
}

/* Read what is there; -EPIPE when the robot closed. */
static int fill(struct nbc *c)
{
	ssize_t r;

	if (c->cap - c->len < 65536) {
		size_t cap = c->cap ? c->cap * 2 : 131072;
		uint8_t *p;

		if (cap > 2 * (MAX_FRAME + 4))
			cap = 2 * (MAX_FRAME + 4);
		if (cap <= c->len)
			return -EPROTO;
		p = realloc(c->buf, cap);
		if (!p)
			return -ENOMEM;
		c->buf = p;
		c->cap = cap;
	}
	r = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 :
		       errno == ECONNRESET ? -EPIPE : -errno;
	if (r == 0)
		return -EPIPE;
	c->len += (size_t)r;
	return 1;
}

static int next(struct nbc *c, struct nbc_msg *m, int timeout_ms, struct nbc_robot *hello)
{
	uint64_t end = timeout_ms < 0 ? UINT64_MAX : now_ms() + (uint64_t)timeout_ms;

	for (;;) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		uint64_t now, wake = end;
		int rc = take_frame(c, m, hello);

		if (rc)
			return rc;
		now = now_ms();
		if (!(c->flags & NBC_NO_HEARTBEAT) && !hello) {
			if (now - c->last_sent_ms >= NBC_HEARTBEAT_MS) {
				rc = nbc_heartbeat(c);
				if (rc)
					return rc;
			}
			if (c->last_sent_ms + NBC_HEARTBEAT_MS < wake)
				wake = c->last_sent_ms + NBC_HEARTBEAT_MS;
		}
		if (now >= end)
			return 0;
		rc = poll(&pfd, 1, wake > now ? (int)(wake - now) : 0);
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc > 0) {
			rc = fill(c);
			if (rc < 0)
				return rc;
		}
	}
}

int nbc_next(struct nbc *c, struct nbc_msg *m, int timeout_ms)
{
	return next(c, m, timeout_ms, NULL);
}

int nbc_fd(const struct nbc *c)
{
	return c->fd;
}

const struct nbc_robot *nbc_robot(const struct nbc *c)
{
	return &c->robot;
}

static int dial(const char *host, uint16_t port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	char p[8];
	int fd = -1, err, one = 1;

	snprintf(p, sizeof(p), "%u", port ? port : NBC_DEFAULT_PORT);
	err = getaddrinfo(host, p, &hints, &res);
	if (err) {
		snprintf(connect_error, sizeof(connect_error), "%s: %s", host, gai_strerror(err));
		return -EHOSTUNREACH;
	}
	err = -ECONNREFUSED;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		err = -errno;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(connect_error, sizeof(connect_error), "%s port %s: %s", host, p,
			 strerror(-err));
		return err;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int hello(struct nbc *c, const char *name)
{
	msgpack_packer pk;
	struct nbc_msg *m = malloc(sizeof(*m));
	uint64_t end = now_ms() + HELLO_MS;
	int rc;

	if (!m)
		return -ENOMEM;
	packer(c, &pk);
	msgpack_pack_map(&pk, 1);
	pack_str(&pk, "Hello");
	msgpack_pack_map(&pk, 2);
	pack_str(&pk, "version");
	msgpack_pack_uint32(&pk, NBC_VERSION);
	pack_str(&pk, "client");
	pack_str(&pk, name ? name : "naobody-c");
	rc = send_packed(c);
	while (!rc) {
		uint64_t now = now_ms();

		rc = now < end ? next(c, m, (int)(end - now), &c->robot) : 0;
		if (rc == NBC_MSG_ERROR) {
			snprintf(connect_error, sizeof(connect_error), "the robot said: %s",
				 m->error.message);
			rc = -EPROTO;
		} else if (rc == NBC_MSG_OTHER && !strcmp(m->other, "Hello")) {
			if (c->robot.version == NBC_VERSION)
				break;
			rc = 0;	/* its Error follows, then it closes */
		} else if (rc == 0) {
			snprintf(connect_error, sizeof(connect_error),
				 "no Hello from the robot within %d s", HELLO_MS / 1000);
			rc = -ETIMEDOUT;
		} else if (rc == -EPIPE) {
			snprintf(connect_error, sizeof(connect_error),
				 "the robot closed the connection during the handshake");
		} else if (rc > 0) {
			rc = 0;	/* anything before the Hello is not for us */
		}
	}
	free(m);
	return rc;
}

struct nbc *nbc_connect(const char *host, uint16_t port, const char *name, unsigned int flags)
{
	struct nbc *c = calloc(1, sizeof(*c));
	int rc;

	connect_error[0] = '\0';
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->flags = flags;
	msgpack_sbuffer_init(&c->out);
	rc = dial(host ? host : "localhost", port);
	if (rc < 0) {
		msgpack_sbuffer_destroy(&c->out);
		free(c);
		errno = -rc;
		return NULL;
	}
	c->fd = rc;
	rc = hello(c, name);
	if (rc < 0) {
		nbc_close(c);
		errno = -rc;
		return NULL;
	}
	return c;
}

void nbc_close(struct nbc *c)
{
	if (!c)
		return;
	close(c->fd);
	msgpack_sbuffer_destroy(&c->out);
	free(c->buf);
	free(c);
}
