// SPDX-License-Identifier: GPL-2.0-only
/*
 * nb-physics-server: chestboard-emu's physical body (the MuJoCo model of
 * the NAO V6, libnbphysics, naobodyd's too) run on the host, for an emulator
 * in a VM whose CPUs (QEMU TCG) are too slow for it (--physics-host).
 *
 * One client at a time over a stream, physics_wire.h's messages: a request
 * brings a frame's targets, stiffnesses and model seconds; the reply is the
 * state after the step. Requests that arrived together are folded into one
 * step (their seconds summed, the newest targets, every push and hold
 * applied), so a server that fell behind catches up instead of answering
 * ever older requests.
 *
 * --connect PATH (the VM's case): QEMU listens on the virtio serial port's
 * socket (-chardev socket,server=on,wait=off, so a boot never waits for a
 * server), and this connects, again whenever the connection goes (a VM
 * booted again). --listen PATH: this listens and takes one client at a
 * time (a test on the host). A malformed message is counted and ends the
 * connection: its stream's framing is lost.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <nbtool/version.h>

#include "physics_wire.h"

/*
 * The most model time one step runs (s): after a long silence (the guest
 * stopped, a slow boot), the body goes on from where it was instead of
 * running seconds at once.
 */
#define MAX_STEP	0.1f
#define BUF		(4 * (PHYSW_HEADER + PHYSW_MAX_PAYLOAD))

static volatile sig_atomic_t quit;

struct server {
	const char *model;
	int verbose;
	struct sim_physics *sim;
	bool starting;			/* the last request was a START */
	/* counted over the server's life, printed at exit */
	unsigned long long requests, replies, steps, folded, malformed, connections;
};

static void on_signal(int sig)
{
	quit = 1;
}

static uint64_t cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000ULL + (uint64_t)t.tv_nsec / 1000;
}

static int body(struct server *s, const float pose[NAOBODY_JOINTS])
{
	char why[512];
	struct sim_physics *sim = sim_physics_create(s->model, pose, why, sizeof(why));

	if (!sim) {
		fprintf(stderr, "nb-physics-server: %s\n", why);
		return -1;
	}
	if (s->sim)
		sim_physics_destroy(s->sim);
	s->sim = sim;
	return 0;
}

static int send_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The requests in buf[0..*len): applied and folded into one step, answered
 * once. 0, or -1 when the stream is broken (a malformed message).
 */
static int serve(struct server *s, int fd, uint8_t *buf, size_t *len)
{
	struct physw_msg m, r;
	float target[NAOBODY_JOINTS], stiffness[NAOBODY_JOINTS];
	float seconds = 0;
	uint32_t seq = 0, taken = 0;
	size_t at = 0;
	uint8_t out[PHYSW_HEADER + PHYSW_MAX_PAYLOAD];
	uint64_t t0;
	int n;

	t0 = cpu_us();
	while ((n = physw_decode(buf + at, *len - at, &m)) > 0) {
		at += (size_t)n;
		if (m.type != PHYSW_REQUEST) {
			s->malformed++;
			fprintf(stderr, "nb-physics-server: a reply from the client: closing\n");
			return -1;
		}
		s->requests++;
		/*
		 * A new emulator (or one whose server went): a new body, in its
		 * pose, settled. It sends START until it has a reply: the
		 * first of a run is the one.
		 */
		if ((m.req.flags & PHYSW_F_START) && !s->starting) {
			if (body(s, m.req.target))
				return -1;
			seconds = 0;
		}
		s->starting = m.req.flags & PHYSW_F_START;
		if (m.req.flags & PHYSW_F_PUSH)
			sim_physics_push(s->sim, m.req.push[0], m.req.push[1], m.req.push[2]);
		if (m.req.flags & PHYSW_F_HOLD)
			sim_physics_hold(s->sim, true, m.req.hold_height);
		if (m.req.flags & PHYSW_F_RELEASE)
			sim_physics_hold(s->sim, false, 0);
		if (m.req.seconds > 0)
			seconds += m.req.seconds < MAX_STEP ? m.req.seconds : MAX_STEP;
		memcpy(target, m.req.target, sizeof(target));
		memcpy(stiffness, m.req.stiffness, sizeof(stiffness));
		seq = m.seq;
		taken++;
	}
	if (n < 0) {
		s->malformed++;
		fprintf(stderr, "nb-physics-server: a malformed message (%s): closing\n",
			strerror(-n));
		return -1;
	}
	memmove(buf, buf + at, *len - at);
	*len -= at;
	if (!taken)
		return 0;
	if (seconds > MAX_STEP)
		seconds = MAX_STEP;
	if (seconds > 0)
		sim_physics_cycle(s->sim, seconds, target, stiffness);
	s->steps++;
	s->folded += taken - 1;

	memset(&r, 0, sizeof(r));
	r.type = PHYSW_REPLY;
	r.seq = seq;
	sim_physics_sense(s->sim, &r.rep.sense);
	sim_physics_torso(s->sim, r.rep.torso);
	r.rep.model_seconds = seconds;
	r.rep.cpu_us = (uint32_t)(cpu_us() - t0);
	r.rep.folded = taken;
	r.rep.mass = sim_physics_mass(s->sim);
	n = physw_encode(&r, out, sizeof(out));
	if (n < 0 || send_all(fd, out, (size_t)n))
		return -1;
	s->replies++;
	return 0;
}

/* One connection, until it ends or a signal comes. */
static void session(struct server *s, int fd)
{
	static uint8_t buf[BUF];
	size_t len = 0;

	s->connections++;
	s->starting = false;
	if (s->verbose)
		fprintf(stderr, "nb-physics-server: connected\n");
	while (!quit) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 500) <= 0)
			continue;
		n = read(fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (serve(s, fd, buf, &len))
			break;
		/* a full buffer without a whole message cannot happen: lengths are capped */
	}
	close(fd);
	if (s->verbose)
		fprintf(stderr, "nb-physics-server: disconnected\n");
}

static int unix_socket(const char *path, struct sockaddr_un *a)
{
	if (strlen(path) >= sizeof(a->sun_path)) {
		fprintf(stderr, "nb-physics-server: %s: path too long for a socket\n", path);
		return -1;
	}
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	strcpy(a->sun_path, path);
	return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static const char usage[] =
"Usage: nb-physics-server [-v] (--connect PATH | --listen PATH) MODEL\n"
"\n"
"The MuJoCo model of the NAO V6 (MODEL, nao6.xml) for chestboard-emu\n"
"--physics-host, over a stream socket (physics_wire.h's messages).\n"
"\n"
"  -c, --connect PATH  connect to PATH (QEMU's virtio serial port socket),\n"
"                      again whenever the connection ends\n"
"  -l, --listen PATH   listen on PATH, one client at a time\n"
"  -v, --verbose       say when a client comes and goes\n"
"  -h, --help          this help\n"
"      --version       the program's version\n"
"See nb-physics-server(1) and Documentation/chestboard-emu.rst.\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "connect", required_argument, NULL, 'c' },
		{ "listen", required_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct server s = { 0 };
	const char *connect_to = NULL, *listen_on = NULL;
	float pose[NAOBODY_JOINTS] = { 0 };
	struct sockaddr_un a;
	struct sigaction sa;
	int c, lfd = -1;

	while ((c = getopt_long(argc, argv, "c:l:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			connect_to = optarg;
			break;
		case 'l':
			listen_on = optarg;
			break;
		case 'v':
			s.verbose++;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			return nbtool_version("nb-physics-server");
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !connect_to == !listen_on) {
		fputs(usage, stderr);
		return 2;
	}
	s.model = argv[optind];
	/* the model is checked now: a wrong path fails here, not at a client's */
	if (body(&s, pose))
		return 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll() returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (listen_on) {
		lfd = unix_socket(listen_on, &a);
		unlink(listen_on);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1)) {
			fprintf(stderr, "nb-physics-server: --listen %s: %s\n", listen_on,
				strerror(errno));
			return 1;
		}
	}
	while (!quit) {
		int fd;

		if (listen_on) {
			fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		} else {
			/* QEMU's socket may not be there yet, or be between boots */
			fd = unix_socket(connect_to, &a);
			if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
				close(fd);
				fd = -1;
				usleep(100000);
			}
		}
		if (fd >= 0)
			session(&s, fd);
	}
	if (lfd >= 0) {
		close(lfd);
		unlink(listen_on);
	}
	fprintf(stderr, "nb-physics-server: %llu connections, %llu requests, %llu steps "
		"(%llu requests folded into others), %llu replies, %llu malformed\n",
		s.connections, s.requests, s.steps, s.folded, s.replies, s.malformed);
	sim_physics_destroy(s.sim);
	return 0;
}
