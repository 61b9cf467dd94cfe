// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the LoLA-compatible socket (see lola.h): the body thread's
 * side, and its start and end. The LoLA thread, which owns the sockets, is
 * in lola_reader.c; what the two share is in lola_slots.h; the messages
 * themselves are in lola_codec.c.
 *
 * Each cycle the body thread sends every client the sensor packet through
 * the client's own queue, whose one "latest" slot a newer packet replaces:
 * a slow reader misses packets and delays nobody, and with LOLA_SNDBUF
 * what waits for it in the kernel is about two packets, so what it reads
 * is fresh. A client is a reader until it sends an actuator map; then the
 * daemon makes it the controller (core.c), and the previous controller
 * (on either socket) goes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "lola.h"
#include "lola_slots.h"

static struct lola_client *find(struct lola *l, uint64_t id)
{
	for (int i = 0; i < LOLA_MAX_CLIENTS; i++)
		if (l->clients[i] && l->clients[i]->id == id)
			return l->clients[i];
	return NULL;
}

/* Called with the lock held: the LoLA thread closes it at its next wake-up. */
static void let_go(struct lola *l, struct lola_client *c, const char *why, int err)
{
	uint64_t one = 1;

	if (c->dropped)
		return;
	c->dropped = true;
	/* A copy: why may be the caller's own buffer. */
	snprintf(c->drop_why, sizeof(c->drop_why), "%s", why);
	c->drop_err = err;
	/* Never blocks: the counter saturates long after anyone reads it. */
	if (write(l->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return;
}

void lola_drop(struct lola *l, void *who, const char *why)
{
	struct lola_client *c;

	pthread_mutex_lock(&l->lock);
	c = find(l, (uint64_t)(uintptr_t)who);
	if (c)
		let_go(l, c, why, 0);
	pthread_mutex_unlock(&l->lock);
}

bool lola_take(struct lola *l, void **who, uint64_t *heard_ns)
{
	struct lola_client *cl;
	struct lola_cmd c;
	bool live;

	if (l->stopping || !lola_box_take(&l->box, &c))
		return false;
	/* A client let go meanwhile (replaced, released, gone) drives no more. */
	pthread_mutex_lock(&l->lock);
	cl = find(l, c.client);
	live = cl && !cl->dropped;
	pthread_mutex_unlock(&l->lock);
	if (!live)
		return false;
	l->cmd = c.act;
	*who = lola_who(c.client);
	*heard_ns = c.time_ns;
	return true;
}

const struct nb_actuators *lola_command(const struct lola *l)
{
	return &l->cmd;
}

bool lola_publish(struct lola *l, const struct body_frame *f, void *controller,
		  const struct nb_actuators *cmd)
{
	uint64_t ctl = (uint64_t)(uintptr_t)controller;
	bool packed = false, ctl_here = false;

	if (l->stopping)
		return true;
	pthread_mutex_lock(&l->lock);
	l->cycle++;
	/* Where a client that starts to drive starts from. */
	l->body_cmd = *cmd;
	for (int i = 0; i < LOLA_MAX_CLIENTS; i++) {
		struct lola_client *c = l->clients[i];
		int rc;

		if (!c || c->dropped)
			continue;
		c->is_controller = c->id == ctl;
		ctl_here |= c->is_controller;
		if (!packed) {
			if (lola_pack(l->packet, l->info, &f->s)) {
				if (!l->pack_failed)
					log_err("lola: the sensor map is not %d bytes: not sent",
						LOLA_PACKET);
				l->pack_failed = true;
				break;
			}
			packed = true;
		}
		/* Each its own copy: a slow one drops packets, nobody waits. */
		if (outq_set_latest(&c->out, l->packet, LOLA_PACKET)) {
			let_go(l, c, "output queue full", 0);
			continue;
		}
		rc = outq_flush(&c->out, c->fd);
		if (rc < 0)
			let_go(l, c, "the socket failed", -rc);
		else if (rc == 0)
			c->drained = l->cycle;
		else if (!c->is_controller && l->cycle - c->drained > LOLA_IDLE_CYCLES)
			let_go(l, c, "it read nothing for " "250 cycles (3 s)", 0);
	}
	pthread_mutex_unlock(&l->lock);
	/* The controller's client went (closed, dropped), unless nothing was sent. */
	return !ctl || ctl_here || l->pack_failed;
}

void lola_stop(struct lola *l)
{
	if (!l || l->stopping)
		return;
	pthread_mutex_lock(&l->lock);
	for (int i = 0; i < LOLA_MAX_CLIENTS; i++)
		if (l->clients[i])
			let_go(l, l->clients[i], "naobodyd is stopping", 0);
	pthread_mutex_unlock(&l->lock);
	l->stopping = true;
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

static int lock_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int err;

	pthread_mutexattr_init(&a);
	/* The LoLA thread holding it runs at the body thread's priority. */
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	err = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return -err;
}

struct lola *lola_create(const char *path, mode_t mode, const struct body_info *info,
			 int priority)
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
	if (lock_init(&l->lock)) {
		free(l);
		return NULL;
	}
	l->info = info;
	l->priority = priority;
	lola_box_init(&l->box);
	l->wake_fd = -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	snprintf(l->path, sizeof(l->path), "%s", path);
	/* A backlog of a few: the LoLA thread takes new clients at once. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(path, mode) ||
	    listen(fd, 16)) {
		log_err("lola: cannot listen on %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(path);
		pthread_mutex_destroy(&l->lock);
		free(l);
		return NULL;
	}
	l->listen_w.fd = fd;
	err = lola_reader_start(l);
	if (err) {
		log_err("lola: cannot start its thread: %s", strerror(-err));
		close(fd);
		unlink(path);
		pthread_mutex_destroy(&l->lock);
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
	/* The body thread is gone: nobody else touches the slots now. */
	l->stopping = true;
	lola_reader_stop(l);
	close(l->listen_w.fd);
	unlink(l->path);
	pthread_mutex_destroy(&l->lock);
	free(l);
}
