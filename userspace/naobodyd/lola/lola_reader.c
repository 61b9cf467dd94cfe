// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the LoLA thread (see lola.h, lola_slots.h). With --priority
 * it is real-time one below the body thread, its CPU capped per window
 * (lola_pace()); its own event loop. It accepts LoLA clients, reads them, checks and
 * applies their actuator maps, and hands the newest validated command to
 * the body thread; it evicts and closes clients. A client is read within a
 * budget per wake-up (LOLA_MSGS_PER_WAKE maps, LOLA_BYTES_PER_WAKE bytes,
 * LOLA_NS_PER_WAKE), as the robot API's clients are on the network thread;
 * what is left waits for the next wake-up (epoll is level-triggered),
 * after the other clients. Its log lines a client can cause are
 * rate-limited per kind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mpread/mpread.h>

#include "clock.h"
#include "log.h"
#include "lola.h"
#include "lola_slots.h"

static void client_free(struct loop_deferred *dead)
{
	struct lola_client *c = container_of(dead, struct lola_client, dead);

	outq_free(&c->out);
	free(c);
}

/* Out of the slots (under the lock: the body thread is not sending to it), then closed. */
static void client_close(struct lola_client *c, const char *why)
{
	struct lola *l = c->lola;

	log_info_limited("lola: client %llu disconnected: %s", (unsigned long long)c->id, why);
	pthread_mutex_lock(&l->lock);
	for (int i = 0; i < LOLA_MAX_CLIENTS; i++)
		if (l->clients[i] == c)
			l->clients[i] = NULL;
	pthread_mutex_unlock(&l->lock);
	loop_del(&l->loop, &c->w);
	close(c->fd);
	c->fd = c->w.fd = -1;
	loop_defer_free(&l->loop, &c->dead);
}

/* The clients the body thread let go (lola_drop(), a failed send, idle). */
static void close_let_go(struct lola *l)
{
	for (;;) {
		struct lola_client *c = NULL;
		char why[160];

		pthread_mutex_lock(&l->lock);
		for (int i = 0; i < LOLA_MAX_CLIENTS && !c; i++)
			if (l->clients[i] && l->clients[i]->dropped)
				c = l->clients[i];
		if (c)
			snprintf(why, sizeof(why), "%s%s%s", c->drop_why, c->drop_err ? ": " : "",
				 c->drop_err ? strerror(c->drop_err) : "");
		pthread_mutex_unlock(&l->lock);
		if (!c)
			return;
		client_close(c, why);
	}
}

/* One message from the client: an actuator map, or a reader's anything else. */
static void client_message(struct lola_client *c, const msgpack_object *o)
{
	struct lola *l = c->lola;
	struct lola_cmd cmd;
	char err[160] = "";

	if (!c->wants && o->type == MSGPACK_OBJECT_MAP) {
		/* Its first actuator map: it drives, from what the body does now. */
		c->wants = true;
		pthread_mutex_lock(&l->lock);
		c->cmd = l->body_cmd;
		pthread_mutex_unlock(&l->lock);
	}
	if (!c->wants) {
		if (ratelimit_ok(&c->rl))
			log_warn_limited("lola: client %llu: ignored: not an actuator map (a reader stays a reader)",
					 (unsigned long long)c->id);
		return;
	}
	lola_apply(o, &c->cmd, err, sizeof(err));
	if (err[0] && ratelimit_ok(&c->rl))
		log_warn_limited("lola: client %llu: ignored: %s", (unsigned long long)c->id, err);
	/* The newest only: the body thread takes it at its next cycle. */
	cmd.client = c->id;
	cmd.time_ns = mono_ns();
	cmd.act = c->cmd;
	lola_box_put(&l->box, &cmd);
}

enum input { IN_MORE, IN_BUDGET, IN_CLOSED };

/*
 * The whole messages in c->in, at most *budget of them: IN_MORE when what
 * is left is part of one (or nothing), IN_BUDGET when whole ones wait.
 */
static enum input client_input(struct lola_client *c, int *budget)
{
	enum input ret = IN_MORE;
	size_t off = 0;

	while (off < c->in_len) {
		msgpack_unpacked u;
		const char *why;
		long n;

		if (*budget <= 0) {
			ret = IN_BUDGET;
			break;
		}
		n = mp_unpack_stream(&u, c->in + off, c->in_len - off, LOLA_IN_MAX, 4096, &why);
		if (n == 0)
			break;
		if (n < 0) {
			char msg[96];

			snprintf(msg, sizeof(msg), "malformed MessagePack: %s", why);
			client_close(c, msg);
			return IN_CLOSED;
		}
		client_message(c, &u.data);
		msgpack_unpacked_destroy(&u);
		off += (size_t)n;
		(*budget)--;
	}
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	if (ret == IN_MORE && c->in_len == LOLA_IN_MAX) {
		client_close(c, "an actuator map larger than 64 KiB");
		return IN_CLOSED;
	}
	return ret;
}

/*
 * Read what is there, within this wake-up's budget. Whole messages left
 * in the buffer when the budget is spent are not in the socket any more,
 * so epoll would not wake for them: the client is marked and the thread
 * wakes itself (lola_wake()), after the other clients ready now.
 */
static void client_read(struct lola_client *c)
{
	uint64_t start = mono_ns(), one = 1;
	size_t bytes = 0;
	int msgs = LOLA_MSGS_PER_WAKE;
	enum input in = client_input(c, &msgs);

	c->backlog = false;
	while (in == IN_MORE && bytes < LOLA_BYTES_PER_WAKE &&
	       mono_ns() - start < LOLA_NS_PER_WAKE) {
		size_t want = LOLA_IN_MAX - c->in_len;
		ssize_t n;

		if (want > LOLA_BYTES_PER_WAKE - bytes)
			want = LOLA_BYTES_PER_WAKE - bytes;
		n = recv(c->fd, c->in + c->in_len, want, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			client_close(c, "closed by the client");
			return;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				client_close(c, strerror(errno));
			return;
		}
		bytes += (size_t)n;
		c->in_len += (size_t)n;
		in = client_input(c, &msgs);
	}
	if (in == IN_BUDGET) {
		c->backlog = true;
		if (write(c->lola->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			return;
	}
}

/* The first event of a batch starts its time (lola_pace()). */
static void batch_begins(struct lola *l)
{
	if (!l->batch_start)
		l->batch_start = mono_ns();
}

static void client_event(struct loop_watch *w, uint32_t events)
{
	struct lola_client *c = container_of(w, struct lola_client, w);

	batch_begins(c->lola);
	if (events & EPOLLERR) {
		client_close(c, "socket error");
		return;
	}
	if (events & (EPOLLIN | EPOLLHUP))
		client_read(c);
}

/*
 * Called with the lock held, all slots taken: the slot a new client gets.
 * The reader that has read nothing for the longest goes first (the oldest
 * connection among equals); never the controller. NULL only with a single
 * slot.
 */
static struct lola_client *victim(struct lola *l)
{
	struct lola_client *v = NULL;

	for (int i = 0; i < LOLA_MAX_CLIENTS; i++) {
		struct lola_client *c = l->clients[i];

		if (!c || c->is_controller)
			continue;
		if (!v || c->drained < v->drained || (c->drained == v->drained && c->id < v->id))
			v = c;
	}
	return v;
}

static struct lola_client *client_new(struct lola *l, int fd)
{
	struct lola_client *c = calloc(1, sizeof(*c));
	int sndbuf = LOLA_SNDBUF;

	if (!c)
		return NULL;
	/* What waits for a reader in the kernel: about two packets, fresh ones. */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	c->lola = l;
	c->fd = c->w.fd = fd;
	c->w.cb = client_event;
	c->dead.free = client_free;
	c->id = ++l->next_id;
	/* Room for a partly sent packet and the latest; never more. */
	outq_init(&c->out, 2 * LOLA_PACKET, LOLA_PACKET);
	return c;
}

static void lola_accept(struct loop_watch *w, uint32_t events)
{
	struct lola *l = container_of(w, struct lola, listen_w);

	batch_begins(l);
	/* A few per wake-up, so the clients' reads come in between. */
	for (int n = 0; n < LOLA_MAX_CLIENTS; n++) {
		int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct lola_client *c, *old = NULL;
		int slot;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn_limited("lola: accept: %s", strerror(errno));
			return;
		}
		c = client_new(l, fd);
		if (!c || loop_add(&l->loop, &c->w, EPOLLIN)) {
			if (c)
				client_free(&c->dead);
			close(fd);
			continue;
		}
		pthread_mutex_lock(&l->lock);
		for (slot = 0; slot < LOLA_MAX_CLIENTS && l->clients[slot]; slot++)
			;
		if (slot == LOLA_MAX_CLIENTS) {
			old = victim(l);
			for (slot = 0; old && l->clients[slot] != old; slot++)
				;
			if (old)
				l->clients[slot] = NULL;
		}
		pthread_mutex_unlock(&l->lock);
		if (slot == LOLA_MAX_CLIENTS) {
			log_warn_limited("lola: %d clients already, none of them a reader: refusing one",
					 LOLA_MAX_CLIENTS);
			loop_del(&l->loop, &c->w);
			close(fd);
			client_free(&c->dead);
			continue;
		}
		/* Closed before the new one gets anything: its slot is free for good. */
		if (old) {
			log_info_limited("lola: client %llu evicted for client %llu: all %d slots were taken; the reader that read least recently goes first",
					 (unsigned long long)old->id, (unsigned long long)c->id,
					 LOLA_MAX_CLIENTS);
			client_close(old, "evicted for a new client");
		}
		pthread_mutex_lock(&l->lock);
		c->drained = l->cycle;	/* not idle yet */
		l->clients[slot] = c;
		pthread_mutex_unlock(&l->lock);
		log_info_limited("lola: client %llu connected: it reads until it sends an actuator map",
				 (unsigned long long)c->id);
	}
}

static void lola_wake(struct loop_watch *w, uint32_t events)
{
	struct lola *l = container_of(w, struct lola, wake_w);
	uint64_t v;

	batch_begins(l);
	if (read(w->fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	close_let_go(l);
	/* Only this thread changes the slots: no lock to walk them. */
	for (int i = 0; i < LOLA_MAX_CLIENTS; i++)
		if (l->clients[i] && l->clients[i]->backlog)
			client_read(l->clients[i]);
}

static void lola_housekeeping(void *ctx)
{
	close_let_go(ctx);
}

/*
 * After each batch: the time it took counts against this window's cap;
 * past the cap the thread sleeps to the window's end, and what waits is
 * read then (epoll is level-triggered). Only a flood reaches it: a
 * controller's map a cycle takes some tens of microseconds.
 */
static void lola_pace(void *ctx)
{
	struct lola *l = ctx;
	uint64_t now = mono_ns();

	if (now - l->pace_start >= LOLA_PACE_NS) {
		l->pace_start = now;
		l->busy = 0;
	}
	if (l->batch_start)
		l->busy += now - l->batch_start;
	if (l->busy >= LOLA_BUSY_NS) {
		uint64_t end = l->pace_start + LOLA_PACE_NS;
		struct timespec ts = { .tv_sec = (time_t)(end / NSEC_PER_SEC),
				       .tv_nsec = (long)(end % NSEC_PER_SEC) };

		l->paced++;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		l->pace_start = mono_ns();
		l->busy = 0;
	}
	l->batch_start = 0;
}

static void *lola_thread(void *arg)
{
	struct lola *l = arg;
	sigset_t all;

	struct sched_param sp = { .sched_priority = l->priority - 1 };
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "naobodyd-lola");
	/* One below the body thread; capped (lola_pace()). */
	if (sp.sched_priority >= 1) {
		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (err)
			log_warn("lola: cannot get SCHED_FIFO priority %d (%s): its thread runs at "
				 "normal priority", sp.sched_priority, strerror(err));
	}
	if (loop_run(&l->loop, &l->quit))
		log_err("lola: its thread's loop failed");
	return NULL;
}

int lola_reader_start(struct lola *l)
{
	pthread_attr_t attr;
	int err;

	err = loop_init(&l->loop);
	if (err)
		return err;
	l->loop.housekeeping = lola_housekeeping;
	l->loop.after_batch = lola_pace;
	l->loop.ctx = l;
	l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	l->wake_w.fd = l->wake_fd;
	l->wake_w.cb = lola_wake;
	l->listen_w.cb = lola_accept;
	if (l->wake_fd < 0 || loop_add(&l->loop, &l->wake_w, EPOLLIN) ||
	    loop_add(&l->loop, &l->listen_w, EPOLLIN)) {
		err = -errno;
		goto fail;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, LOLA_THREAD_STACK);
	err = -pthread_create(&l->thread, &attr, lola_thread, l);
	pthread_attr_destroy(&attr);
	if (err)
		goto fail;
	l->started = true;
	return 0;
fail:
	if (l->wake_fd >= 0)
		close(l->wake_fd);
	l->wake_fd = -1;
	loop_uninit(&l->loop);
	return err ? err : -EIO;
}

void lola_reader_stop(struct lola *l)
{
	uint64_t one = 1;

	if (!l->started)
		return;
	l->quit = 1;
	if (write(l->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		one = 0;
	pthread_join(l->thread, NULL);
	l->started = false;
	for (int i = 0; i < LOLA_MAX_CLIENTS; i++)
		if (l->clients[i])
			client_close(l->clients[i], "naobodyd is stopping");
	loop_del(&l->loop, &l->listen_w);
	loop_del(&l->loop, &l->wake_w);
	loop_uninit(&l->loop);	/* frees the closed clients */
	close(l->wake_fd);
	l->wake_fd = -1;
}
