// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the LoLA-compatible socket (see lola.h); the messages
 * themselves are in lola_codec.c. The body thread's, like the cycle that
 * feeds it.
 *
 * Any number of clients (up to LOLA_MAX_CLIENTS) read the stream: each
 * gets every packet through its own queue, whose one "latest" slot a newer
 * packet replaces, so a slow reader misses packets and delays nobody. A
 * client is a reader until it sends an actuator map; then it is the
 * controller, and the previous controller (on either socket) goes.
 */
#include <errno.h>
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
	int slot;			/* in lola->clients */
};

struct lola {
	struct daemon *d;
	struct loop_watch listen_w;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct lola_client *clients[LOLA_MAX_CLIENTS];
	uint64_t next_id;
	struct ratelimit rl_accept;
	uint8_t packet[LOLA_PACKET];
	bool pack_failed;
};

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
	if (l->clients[c->slot] == c)
		l->clients[c->slot] = NULL;
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
		if (!core_is_controller(d, c) && u.data.type == MSGPACK_OBJECT_MAP) {
			/* Its first actuator map: it drives from now on. */
			log_info("lola: client %llu sent an actuator map: it is the controller",
				 (unsigned long long)c->id);
			core_claim(d, CTL_LOLA, c);
			/* It starts from what the body is doing now. */
			d->lola_cmd = d->cmd;
		}
		/* A reader's anything else is not a command: nothing to apply. */
		if (core_is_controller(d, c))
			lola_apply(&u.data, &d->lola_cmd, err, sizeof(err));
		else
			snprintf(err, sizeof(err), "not an actuator map (a reader stays a reader)");
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
		int slot;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn("lola: accept: %s", strerror(errno));
			return;
		}
		for (slot = 0; slot < LOLA_MAX_CLIENTS && l->clients[slot]; slot++)
			;
		c = slot < LOLA_MAX_CLIENTS ? calloc(1, sizeof(*c)) : NULL;
		if (!c) {
			if (ratelimit_ok(&l->rl_accept))
				log_warn("lola: %d clients already: refusing one", LOLA_MAX_CLIENTS);
			close(fd);
			continue;
		}
		c->lola = l;
		c->w.fd = fd;
		c->w.cb = client_event;
		c->dead.free = client_free;
		c->id = ++l->next_id;
		c->slot = slot;
		/* Room for a few packets; a newer one replaces one not yet sent. */
		outq_init(&c->out, 4 * LOLA_PACKET, LOLA_PACKET);
		if (loop_add(&d->loop, &c->w, EPOLLIN)) {
			outq_free(&c->out);
			close(fd);
			free(c);
			continue;
		}
		l->clients[slot] = c;
		log_info("lola: client %llu connected: it reads until it sends an actuator map",
			 (unsigned long long)c->id);
	}
}

void lola_drop(struct lola *l, void *who, const char *why)
{
	for (int i = 0; i < LOLA_MAX_CLIENTS; i++)
		if (l->clients[i] && l->clients[i] == who)
			client_close(l->clients[i], why);
}

void lola_publish(struct lola *l, const struct body_frame *f)
{
	bool packed = false;

	for (int i = 0; i < LOLA_MAX_CLIENTS; i++) {
		struct lola_client *c = l->clients[i];

		if (!c)
			continue;
		if (!packed) {
			if (lola_pack(l->packet, &l->d->body->info, &f->s)) {
				if (!l->pack_failed)
					log_err("lola: the sensor map is not %d bytes: not sent",
						LOLA_PACKET);
				l->pack_failed = true;
				return;
			}
			packed = true;
		}
		/* Each its own copy: a slow one drops packets, nobody waits. */
		if (outq_set_latest(&c->out, l->packet, LOLA_PACKET)) {
			client_close(c, "output queue full");
			continue;
		}
		client_flush(c);
	}
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
	for (int i = 0; i < LOLA_MAX_CLIENTS; i++)
		if (l->clients[i])
			client_close(l->clients[i], "naobodyd is stopping");
	loop_del(&l->d->loop, &l->listen_w);
	close(l->listen_w.fd);
	unlink(l->path);
	free(l);
}
