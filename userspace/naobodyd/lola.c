// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the LoLA-compatible socket (see lola.h). LoLA's keys, types and
 * orders: shared/notes/nao-chest-board-and-lola.md, section 2.
 *
 * The sensor map is exactly 896 bytes when the id strings have LoLA's 20
 * characters: 13 keys, 136 float32 values, 25 positive fixint statuses.
 * Shorter ids leave zero padding at the end; clients read exactly 896
 * bytes per packet.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "lola.h"
#include "mpcheck.h"
#include "naobodyd.h"

struct lola_client {
	struct loop_watch w;
	struct loop_deferred dead;
	struct lola *lola;
	struct outq out;
	bool want_out;
	size_t in_len;
	uint8_t in[LOLA_IN_MAX];
	struct ratelimit rl;
	uint64_t id;
};

struct lola {
	struct daemon *d;
	struct loop_watch listen_w;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct lola_client *client;	/* LoLA serves one */
	uint64_t next_id;
	uint8_t packet[LOLA_PACKET];
	bool pack_failed;
};

/* ---- the sensor map ------------------------------------------------------ */

struct fixed {
	uint8_t *p;
	size_t len, cap;
};

static int fixed_write(void *data, const char *p, size_t n)
{
	struct fixed *f = data;

	if (f->len + n > f->cap)
		return -1;
	memcpy(f->p + f->len, p, n);
	f->len += n;
	return 0;
}

static int key(msgpack_packer *pk, const char *k)
{
	size_t n = strlen(k);

	return msgpack_pack_str(pk, n) | msgpack_pack_str_body(pk, k, n);
}

static int floats(msgpack_packer *pk, const char *k, const float *v, size_t n)
{
	int err = key(pk, k) | msgpack_pack_array(pk, n);

	for (size_t i = 0; i < n; i++)
		err |= msgpack_pack_float(pk, v[i]);
	return err;
}

/* LoLA's strings: 20-character ids, 5-character versions. */
static int str_max(msgpack_packer *pk, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	return msgpack_pack_str(pk, n) | msgpack_pack_str_body(pk, s, n);
}

int lola_pack(uint8_t *out, const struct body_info *info, const struct nb_sensors *s)
{
	struct fixed f = { .p = out, .cap = LOLA_PACKET };
	msgpack_packer pk;
	int err = 0;

	msgpack_packer_init(&pk, &f, fixed_write);
	err |= msgpack_pack_map(&pk, 13);
	err |= key(&pk, "RobotConfig");
	err |= msgpack_pack_array(&pk, 4);
	err |= str_max(&pk, info->body_id, BODY_ID_LEN);
	err |= str_max(&pk, info->body_version, 5);
	err |= str_max(&pk, info->head_id, BODY_ID_LEN);
	err |= str_max(&pk, info->head_version, 5);
	err |= floats(&pk, "Accelerometer", s->accelerometer, 3);
	err |= floats(&pk, "Angles", s->angles, 2);
	err |= floats(&pk, "Battery", s->battery, 4);
	err |= floats(&pk, "Current", s->current, NAOBODY_JOINTS);
	err |= floats(&pk, "FSR", s->fsr, NAOBODY_FSRS);
	err |= floats(&pk, "Gyroscope", s->gyroscope, 3);
	err |= floats(&pk, "Position", s->position, NAOBODY_JOINTS);
	err |= floats(&pk, "Sonar", s->sonar, 2);
	err |= floats(&pk, "Stiffness", s->stiffness, NAOBODY_JOINTS);
	err |= floats(&pk, "Temperature", s->temperature, NAOBODY_JOINTS);
	err |= floats(&pk, "Touch", s->touch, NAOBODY_TOUCHES);
	err |= key(&pk, "Status");
	err |= msgpack_pack_array(&pk, NAOBODY_JOINTS);
	for (int j = 0; j < NAOBODY_JOINTS; j++) {
		int32_t st = s->status[j];

		/* 0..3: one positive fixint byte each, as LoLA sends them */
		err |= msgpack_pack_int32(&pk, st < 0 ? 0 : st > 3 ? 3 : st);
	}
	if (err)
		return -1;
	memset(out + f.len, 0, LOLA_PACKET - f.len);
	return 0;
}

/* ---- actuator maps ------------------------------------------------------- */

static bool is_key(const msgpack_object *k, const char *s)
{
	size_t n = strlen(s);

	return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
	       !memcmp(k->via.str.ptr, s, n);
}

static bool number(const msgpack_object *o, float *v)
{
	double d;

	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		d = o->via.f64;
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		d = (double)o->via.u64;
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		d = (double)o->via.i64;
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		d = o->via.boolean;
		break;
	default:
		return false;
	}
	if (!isfinite(d))
		return false;
	*v = (float)d;
	return true;
}

/* n numbers into out, clamped to lo..hi; false leaves out unchanged. */
static bool numbers(const msgpack_object *o, float *out, size_t n, float lo, float hi)
{
	float tmp[32];

	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != n || n > 32)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!number(&o->via.array.ptr[i], &tmp[i]))
			return false;
		tmp[i] = fminf(fmaxf(tmp[i], lo), hi);
	}
	memcpy(out, tmp, n * sizeof(float));
	return true;
}

static void note(char *err, size_t errlen, const char *what, const msgpack_object *k)
{
	size_t len = strlen(err);
	char name[24] = "?";

	if (k->type == MSGPACK_OBJECT_STR)
		sanitize(name, sizeof(name), k->via.str.ptr, k->via.str.size);
	snprintf(err + len, errlen - len, "%s%s %s", len ? ", " : "", what, name);
}

int lola_apply(const msgpack_object *o, struct nb_actuators *a, char *err, size_t errlen)
{
	static const float huge = 1e6f;
	int applied = 0;

	err[0] = '\0';
	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "not a map");
		return 0;
	}
	for (uint32_t i = 0; i < o->via.map.size; i++) {
		const msgpack_object *k = &o->via.map.ptr[i].key, *v = &o->via.map.ptr[i].val;
		bool ok;

		if (is_key(k, "Position")) {
			float p[NAOBODY_JOINTS];

			ok = numbers(v, p, NAOBODY_JOINTS, -huge, huge);
			if (ok)
				memcpy(a->position, p, sizeof(p));
		} else if (is_key(k, "Stiffness")) {
			ok = numbers(v, a->stiffness, NAOBODY_JOINTS, 0.0f, 1.0f);
		} else if (is_key(k, "Chest")) {
			ok = numbers(v, a->chest, 3, 0.0f, 1.0f);
		} else if (is_key(k, "LFoot")) {
			ok = numbers(v, a->l_foot, 3, 0.0f, 1.0f);
		} else if (is_key(k, "RFoot")) {
			ok = numbers(v, a->r_foot, 3, 0.0f, 1.0f);
		} else if (is_key(k, "LEar")) {
			ok = numbers(v, a->l_ear, NB_EAR_LEDS, 0.0f, 1.0f);
		} else if (is_key(k, "REar")) {
			ok = numbers(v, a->r_ear, NB_EAR_LEDS, 0.0f, 1.0f);
		} else if (is_key(k, "LEye")) {
			ok = numbers(v, a->l_eye, NB_EYE_LEDS, 0.0f, 1.0f);
		} else if (is_key(k, "REye")) {
			ok = numbers(v, a->r_eye, NB_EYE_LEDS, 0.0f, 1.0f);
		} else if (is_key(k, "Skull")) {
			ok = numbers(v, a->skull, NB_SKULL_LEDS, 0.0f, 1.0f);
		} else if (is_key(k, "Sonar")) {
			float s[2];

			ok = numbers(v, s, 2, 0.0f, 1.0f);
			if (ok) {
				a->sonar[0] = s[0] > 0.5f;
				a->sonar[1] = s[1] > 0.5f;
			}
		} else {
			note(err, errlen, "unknown key", k);
			continue;
		}
		if (ok)
			applied++;
		else
			note(err, errlen, "wrong length or type for", k);
	}
	return applied;
}

/* ---- the socket ------------------------------------------------------------ */

static void client_free(struct loop_deferred *dead)
{
	struct lola_client *c = container_of(dead, struct lola_client, dead);

	outq_free(&c->out);
	free(c);
}

static void client_close(struct lola_client *c, const char *why)
{
	struct lola *l = c->lola;

	log_info("lola: client %llu disconnected: %s", (unsigned long long)c->id, why);
	if (l->client == c)
		l->client = NULL;
	core_release(l->d, c);
	loop_del(&l->d->loop, &c->w);
	close(c->w.fd);
	c->w.fd = -1;
	loop_defer_free(&l->d->loop, &c->dead);
}

static bool client_flush(struct lola_client *c)
{
	int rc = outq_flush(&c->out, c->w.fd);

	if (rc < 0) {
		client_close(c, strerror(-rc));
		return false;
	}
	if ((rc == 1) != c->want_out) {
		c->want_out = rc == 1;
		loop_mod(&c->lola->d->loop, &c->w, EPOLLIN | (c->want_out ? EPOLLOUT : 0));
	}
	return true;
}

static void client_input(struct lola_client *c)
{
	struct daemon *d = c->lola->d;
	size_t off = 0;

	while (c->w.fd >= 0 && off < c->in_len) {
		const char *why = NULL;
		long n = mp_check(c->in + off, c->in_len - off, LOLA_IN_MAX, 4096, &why);
		msgpack_unpacked u;
		size_t uoff = 0;
		char err[160];

		if (n == 0)
			break;
		if (n < 0) {
			char msg[96];

			snprintf(msg, sizeof(msg), "malformed MessagePack: %s", why);
			client_close(c, msg);
			return;
		}
		msgpack_unpacked_init(&u);
		if (msgpack_unpack_next(&u, (const char *)c->in + off, (size_t)n, &uoff) !=
		    MSGPACK_UNPACK_SUCCESS) {
			msgpack_unpacked_destroy(&u);
			client_close(c, "malformed MessagePack (msgpack-c refused it)");
			return;
		}
		lola_apply(&u.data, &d->lola_cmd, err, sizeof(err));
		msgpack_unpacked_destroy(&u);
		if (err[0] && ratelimit_ok(&c->rl))
			log_warn("lola: client %llu: ignored: %s", (unsigned long long)c->id, err);
		core_heard(d, c);
		off += (size_t)n;
	}
	if (c->w.fd < 0)
		return;
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	if (c->in_len == LOLA_IN_MAX)
		client_close(c, "an actuator map larger than 64 KiB");
}

static void client_event(struct loop_watch *w, uint32_t events)
{
	struct lola_client *c = container_of(w, struct lola_client, w);

	if (events & EPOLLERR) {
		client_close(c, "socket error");
		return;
	}
	if (events & (EPOLLIN | EPOLLHUP)) {
		ssize_t n;

		do {
			n = recv(c->w.fd, c->in + c->in_len, LOLA_IN_MAX - c->in_len, 0);
		} while (n < 0 && errno == EINTR);
		if (n == 0) {
			client_close(c, "closed by the client");
			return;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			client_close(c, strerror(errno));
			return;
		}
		if (n > 0) {
			c->in_len += (size_t)n;
			client_input(c);
		}
	}
	if (c->w.fd >= 0 && (events & EPOLLOUT))
		client_flush(c);
}

static void lola_accept(struct loop_watch *w, uint32_t events)
{
	struct lola *l = container_of(w, struct lola, listen_w);
	struct daemon *d = l->d;

	for (;;) {
		int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct lola_client *c;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn("lola: accept: %s", strerror(errno));
			return;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->lola = l;
		c->w.fd = fd;
		c->w.cb = client_event;
		c->dead.free = client_free;
		c->id = ++l->next_id;
		/* Room for a few packets; a newer one replaces one not yet sent. */
		outq_init(&c->out, 4 * LOLA_PACKET, LOLA_PACKET);
		if (loop_add(&d->loop, &c->w, EPOLLIN)) {
			outq_free(&c->out);
			close(fd);
			free(c);
			continue;
		}
		if (l->client)
			client_close(l->client, "replaced by a new LoLA client");
		l->client = c;
		log_info("lola: client %llu connected: it is the controller",
			 (unsigned long long)c->id);
		/* It starts from what the body is doing now. */
		d->lola_cmd = d->cmd;
		core_claim(d, CTL_LOLA, c);
		core_heard(d, c);
	}
}

void lola_drop(struct lola *l, void *who, const char *why)
{
	if (l->client && l->client == who)
		client_close(l->client, why);
}

void lola_publish(struct lola *l, const struct body_frame *f)
{
	struct lola_client *c = l->client;

	if (!c)
		return;
	if (lola_pack(l->packet, &l->d->body->info, &f->s)) {
		if (!l->pack_failed)
			log_err("lola: the sensor map does not fit in %d bytes", LOLA_PACKET);
		l->pack_failed = true;
		return;
	}
	if (outq_set_latest(&c->out, l->packet, LOLA_PACKET)) {
		client_close(c, "output queue full");
		return;
	}
	client_flush(c);
}

/* A socket file left by a daemon that died: remove it; refuse a live one. */
static int clear_stale(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, live;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		log_err("lola: %s exists and is not a socket", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	live = !connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	if (live) {
		log_err("lola: something already serves %s (LoLA itself, or another naobodyd)", path);
		return -EADDRINUSE;
	}
	return unlink(path) ? -errno : 0;
}

struct lola *lola_create(struct daemon *d, const char *path, mode_t mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct lola *l;
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_err("lola: socket path too long: %s", path);
		return NULL;
	}
	err = clear_stale(path);
	if (err) {
		log_err("lola: cannot use %s: %s", path, strerror(-err));
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	snprintf(l->path, sizeof(l->path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(path, mode) ||
	    listen(fd, 4)) {
		log_err("lola: cannot listen on %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(path);
		free(l);
		return NULL;
	}
	l->d = d;
	l->listen_w.fd = fd;
	l->listen_w.cb = lola_accept;
	if (loop_add(&d->loop, &l->listen_w, EPOLLIN)) {
		close(fd);
		unlink(path);
		free(l);
		return NULL;
	}
	log_info("lola: listening on %s", path);
	return l;
}

void lola_destroy(struct lola *l)
{
	if (!l)
		return;
	if (l->client)
		client_close(l->client, "naobodyd is stopping");
	loop_del(&l->d->loop, &l->listen_w);
	close(l->listen_w.fd);
	unlink(l->path);
	free(l);
}
