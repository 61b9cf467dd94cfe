// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the simulated body's control socket and script.
 *
 * The socket (--sim-control PATH) is a Unix SOCK_SEQPACKET socket: each
 * message is one command line, each answer one line, "ok ..." or
 * "error: ...". The script (--sim-script FILE) has one "SECONDS COMMAND"
 * per line, run when the simulation reaches that time; '#' starts a
 * comment. Commands: the body's interpreter's (body_sim.c) and naobodyd(8).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "sim_control.h"

/* A reply's bytes at most: "physics", the longest, is about 280. */
#define SIM_REPLY_MAX	512

#define MAX_CONTROL_CLIENTS	8
#define MAX_SCRIPT_LINES	4096

struct control_client {
	struct loop_watch w;
	struct loop_deferred dead;
	struct sim_control *c;
};

struct script_line {
	double at;
	char cmd[96];
};

struct sim_control {
	sim_command_fn *run;
	void *ctx;
	struct loop *loop;
	struct loop_watch listen_w;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct control_client *clients[MAX_CONTROL_CLIENTS];
	struct script_line *script;
	size_t script_len, script_next;
};

static void client_free(struct loop_deferred *d)
{
	free(container_of(d, struct control_client, dead));
}

static void client_close(struct control_client *cc)
{
	struct sim_control *c = cc->c;

	for (int i = 0; i < MAX_CONTROL_CLIENTS; i++)
		if (c->clients[i] == cc)
			c->clients[i] = NULL;
	loop_del(c->loop, &cc->w);
	close(cc->w.fd);
	loop_defer_free(c->loop, &cc->dead);
}

static void client_event(struct loop_watch *w, uint32_t events)
{
	struct control_client *cc = container_of(w, struct control_client, w);
	char line[256], reply[SIM_REPLY_MAX];
	ssize_t n = recv(w->fd, line, sizeof(line) - 1, 0);

	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			client_close(cc);
		return;
	}
	line[n] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	cc->c->run(cc->c->ctx, line, reply, sizeof(reply));
	log_debug("sim: control: %s -> %s", line, reply);
	if (send(w->fd, reply, strlen(reply), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		client_close(cc);
}

static void control_accept(struct loop_watch *w, uint32_t events)
{
	struct sim_control *c = container_of(w, struct sim_control, listen_w);
	int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), i;
	struct control_client *cc;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CONTROL_CLIENTS && c->clients[i]; i++)
		;
	cc = i < MAX_CONTROL_CLIENTS ? calloc(1, sizeof(*cc)) : NULL;
	if (!cc) {
		close(fd);
		return;
	}
	cc->c = c;
	cc->w.fd = fd;
	cc->w.cb = client_event;
	cc->dead.free = client_free;
	if (loop_add(c->loop, &cc->w, EPOLLIN)) {
		close(fd);
		free(cc);
		return;
	}
	c->clients[i] = cc;
}

static int load_script(struct sim_control *c, const char *file)
{
	char line[256];
	double last = 0.0;
	unsigned int lineno = 0;
	FILE *f = fopen(file, "re");

	if (!f) {
		log_err("sim: --sim-script %s: %s", file, strerror(errno));
		return -1;
	}
	c->script = calloc(MAX_SCRIPT_LINES, sizeof(*c->script));
	if (!c->script) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct script_line *sl = &c->script[c->script_len];
		char *hash = strchr(line, '#');
		int used = 0;

		lineno++;
		if (hash)
			*hash = '\0';
		line[strcspn(line, "\r\n")] = '\0';
		if (sscanf(line, " %n", &used) >= 0 && line[used] == '\0')
			continue;
		if (c->script_len == MAX_SCRIPT_LINES ||
		    sscanf(line, "%lf %n", &sl->at, &used) != 1 || sl->at < last ||
		    strlen(line + used) >= sizeof(sl->cmd)) {
			log_err("sim: %s:%u: expected \"SECONDS COMMAND\", times never going back",
				file, lineno);
			fclose(f);
			return -1;
		}
		snprintf(sl->cmd, sizeof(sl->cmd), "%s", line + used);
		last = sl->at;
		c->script_len++;
	}
	fclose(f);
	log_info("sim: script %s: %zu commands", file, c->script_len);
	return 0;
}

struct sim_control *sim_control_create(struct loop *loop, const char *socket_path,
				       const char *script, sim_command_fn *run, void *ctx)
{
	struct sim_control *c = calloc(1, sizeof(*c));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (!c)
		return NULL;
	c->run = run;
	c->ctx = ctx;
	c->loop = loop;
	c->listen_w.fd = -1;
	if (script && load_script(c, script))
		goto fail;
	if (!socket_path)
		return c;
	if (strlen(socket_path) >= sizeof(sa.sun_path)) {
		log_err("sim: control socket path too long: %s", socket_path);
		goto fail;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", socket_path);
	snprintf(c->path, sizeof(c->path), "%s", socket_path);
	unlink(socket_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4)) {
		log_err("sim: control socket %s: %s", socket_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	c->listen_w.fd = fd;
	c->listen_w.cb = control_accept;
	if (loop_add(loop, &c->listen_w, EPOLLIN)) {
		close(fd);
		c->listen_w.fd = -1;
		goto fail;
	}
	log_info("sim: control socket %s", socket_path);
	return c;
fail:
	if (c->path[0])
		unlink(c->path);
	free(c->script);
	free(c);
	return NULL;
}

void sim_control_destroy(struct sim_control *c)
{
	if (!c)
		return;
	for (int i = 0; i < MAX_CONTROL_CLIENTS; i++)
		if (c->clients[i])
			client_close(c->clients[i]);
	if (c->listen_w.fd >= 0) {
		loop_del(c->loop, &c->listen_w);
		close(c->listen_w.fd);
		unlink(c->path);
	}
	free(c->script);
	free(c);
}

void sim_control_tick(struct sim_control *c, double t)
{
	while (c->script_next < c->script_len && c->script[c->script_next].at <= t) {
		char reply[SIM_REPLY_MAX];

		c->run(c->ctx, c->script[c->script_next].cmd, reply, sizeof(reply));
		log_info("sim: script at %.2f s: %s -> %s", t, c->script[c->script_next].cmd, reply);
		c->script_next++;
	}
}
