// SPDX-License-Identifier: GPL-2.0-only
/*
 * The physical body on the host (--physics-host PATH): physics.c's two
 * seams with nb-physics-server's model in place of the thread, over a
 * stream (physics_wire.h): in the VM a virtio serial port
 * (/dev/vportNpM, named naobody.physics), elsewhere a unix socket.
 *
 * The exchange never waits for it. Each frame:
 *
 *   physics_sense()  takes the newest reply that has arrived (read as it
 *                    arrives, from the emulator's epoll loop); none since
 *                    the last frame: the state is a cycle older (stale);
 *   physics_cycle()  sends the frame's targets and stiffnesses with the
 *                    model time since the last request, and any push or
 *                    hold asked on the control socket.
 *
 * So with a round trip shorter than a cycle, an answer reports what the
 * frames before it did, as with the thread; a longer one makes the state
 * that many cycles older (late), and the server folds what queued up into
 * one step, so the model keeps the clock's time rather than a backlog.
 *
 * Until the first reply the body is the scripted one. A server that goes
 * away (end of stream: the host closed its side) is logged and counted
 * (lost), and the body keeps the last state it sent: frozen, the driver's
 * exchange unchanged. When a server is there again, the first requests
 * carry PHYSW_F_START and it starts a new body in the scripted standing
 * pose, as at the emulator's start.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "emu.h"
#include "physics_wire.h"

#define RING		64	/* requests in flight we can time */
#define RTT_SAMPLES	4096	/* round trips kept for the percentiles */
#define MAX_DT_NS	100000000ULL	/* nb-physics-server's MAX_STEP */
#define RETRY_NS	1000000000ULL	/* a unix socket's reconnect */

struct emu_remote {
	char *path;
	int fd;
	bool socket;			/* a unix socket, else a device */
	bool armed;			/* fd in the epoll set */
	bool connected;			/* a reply came since the stream began */
	bool have;			/* a state to give (sense, torso) */
	bool fresh;			/* a reply since the last physics_sense() */
	uint64_t retry_ns;
	uint8_t rx[4 * (PHYSW_HEADER + PHYSW_MAX_PAYLOAD)];
	size_t rx_len;
	uint8_t tx[PHYSW_HEADER + PHYSW_MAX_PAYLOAD];
	size_t tx_len, tx_off;		/* a request partly written */
	uint32_t seq, got_seq;		/* the last request sent; replied */
	uint32_t sent_seq[RING];
	uint64_t sent_ns[RING];
	uint64_t last_ns;		/* the last request's time */
	uint32_t flags;			/* push and hold not yet sent */
	float push[3], hold_height;
	struct sim_physics_sense sense;
	float torso[4];
	float mass;

	/* since "physics reset" */
	uint64_t since_ns;
	uint64_t requests, unsent, replies, model_ns, cpu_us, cpu_max_us;
	uint64_t folded, stale, late_sum, late_n, malformed, lost;
	uint32_t late, late_max;
	uint32_t rtt_us[RTT_SAMPLES];
	uint64_t rtt_n;
};

/* epoll: the stream's input, or not (a virtio port without a host HUPs) */
static void arm(struct emu *e, bool on)
{
	struct emu_remote *r = e->remote;
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = EMU_TAG_PHYSICS };

	if (r->armed == on || e->epfd < 0 || r->fd < 0)
		return;
	if (!epoll_ctl(e->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, r->fd, &ev))
		r->armed = on;
}

static int reach(struct emu *e)
{
	struct emu_remote *r = e->remote;
	struct sockaddr_un a;

	if (r->fd >= 0)
		return 0;
	r->fd = open(r->path, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (r->fd >= 0 || errno != ENXIO)
		return r->fd >= 0 ? 0 : -errno;
	/* ENXIO: a unix socket, to connect to (nb-physics-server --listen) */
	r->socket = true;
	if (strlen(r->path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	strcpy(a.sun_path, r->path);
	r->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->fd >= 0 && connect(r->fd, (struct sockaddr *)&a, sizeof(a))) {
		close(r->fd);
		r->fd = -1;
	}
	return r->fd >= 0 ? 0 : -errno;
}

/* The stream ended (the host's side closed): keep the last state. */
static void gone(struct emu *e, const char *why)
{
	struct emu_remote *r = e->remote;

	if (r->connected) {
		r->lost++;
		emu_log(e, 0, "physics: the server at %s is gone (%s): the body keeps its "
			"last state", r->path, why);
	}
	r->connected = false;
	r->rx_len = 0;
	r->tx_len = r->tx_off = 0;
	arm(e, false);
	if (r->socket && r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
		r->retry_ns = emu_now() + RETRY_NS;
	}
}

int remote_open(struct emu *e, const char *path)
{
	struct emu_remote *r = calloc(1, sizeof(*r));
	int err;

	if (r)
		r->path = strdup(path);
	if (!r || !r->path) {
		free(r);
		return -ENOMEM;
	}
	r->fd = -1;
	r->since_ns = emu_now();
	e->remote = r;
	err = reach(e);
	/* a socket without a server yet is retried; a device must exist */
	if (err && !r->socket) {
		/* Nothing there: most likely the server is not started yet. */
		fprintf(stderr, "chestboard-emu: --physics-host %s: %s%s\n", path, strerror(-err),
			err == -ENOENT ? " (a socket: start 'nb-physics-server --listen PATH' "
			"first; in the VM, the virtio port: boot with --physics-host)" : "");
		remote_close(e);
		return err;
	}
	emu_log(e, 1, "physics: on the host, through %s", path);
	return 0;
}

void remote_close(struct emu *e)
{
	struct emu_remote *r = e->remote;

	if (!r)
		return;
	arm(e, false);
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r);
	e->remote = NULL;
}

static void reply(struct emu *e, const struct physw_msg *m)
{
	struct emu_remote *r = e->remote;
	uint32_t i = m->seq % RING;
	uint64_t cpu = m->rep.cpu_us;

	if (!r->connected)
		emu_log(e, 1, "physics: the server at %s answers", r->path);
	r->connected = r->have = r->fresh = true;
	r->sense = m->rep.sense;
	memcpy(r->torso, m->rep.torso, sizeof(r->torso));
	r->mass = m->rep.mass;
	r->got_seq = m->seq;
	r->replies++;
	if (m->rep.model_seconds > 0 && m->rep.model_seconds <= 1)
		r->model_ns += (uint64_t)(m->rep.model_seconds * 1e9f);
	r->cpu_us += cpu;
	if (cpu > r->cpu_max_us)
		r->cpu_max_us = cpu;
	if (m->rep.folded > 1)
		r->folded += m->rep.folded - 1;
	if (r->sent_seq[i] == m->seq && r->sent_ns[i]) {
		uint64_t us = (emu_now() - r->sent_ns[i]) / 1000;

		r->rtt_us[r->rtt_n++ % RTT_SAMPLES] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
		r->sent_ns[i] = 0;
	}
}

/* The stream is readable: take every whole reply (the last one wins). */
void remote_input(struct emu *e)
{
	struct emu_remote *r = e->remote;
	struct physw_msg m;
	ssize_t n;
	size_t at;
	int d;

	if (!r || r->fd < 0)
		return;
	for (;;) {
		n = read(r->fd, r->rx + r->rx_len, sizeof(r->rx) - r->rx_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			gone(e, n ? strerror(errno) : "end of stream");
			return;
		}
		r->rx_len += (size_t)n;
		at = 0;
		for (;;) {
			d = physw_decode(r->rx + at, r->rx_len - at, &m);
			if (d == 0)
				break;
			if (d > 0 && m.type == PHYSW_REPLY) {
				reply(e, &m);
				at += (size_t)d;
				continue;
			}
			/* framing lost (or a request sent back): skip to a magic */
			r->malformed++;
			emu_log(e, 2, "physics: a malformed message from the server (%s)",
				d < 0 ? strerror(-d) : "a request");
			at += d > 0 ? (size_t)d : physw_resync(r->rx + at, r->rx_len - at);
		}
		memmove(r->rx, r->rx + at, r->rx_len - at);
		r->rx_len -= at;
	}
}

bool remote_state(struct emu *e, struct sim_physics_sense *s)
{
	struct emu_remote *r = e->remote;

	if (!r->have)
		return false;
	if (r->connected) {
		/* requests sent after the one this state answers */
		r->late = r->seq - r->got_seq;
		if (r->late > r->late_max)
			r->late_max = r->late;
		r->late_sum += r->late;
		r->late_n++;
		if (!r->fresh)
			r->stale++;
	}
	r->fresh = false;
	*s = r->sense;
	return true;
}

/* Write what is left of the request in tx; true when it is all out. */
static bool flush(struct emu *e)
{
	struct emu_remote *r = e->remote;

	while (r->tx_off < r->tx_len) {
		ssize_t n = write(r->fd, r->tx + r->tx_off, r->tx_len - r->tx_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return false;	/* full, or no host on a virtio port */
		if (n <= 0) {
			gone(e, strerror(errno));
			return false;
		}
		r->tx_off += (size_t)n;
	}
	r->tx_len = r->tx_off = 0;
	return true;
}

void remote_cycle(struct emu *e, const float target[NAOBODY_JOINTS],
		  const float stiffness[NAOBODY_JOINTS])
{
	struct emu_remote *r = e->remote;
	struct pollfd p;
	struct physw_msg m;
	uint64_t now = emu_now(), dt;
	int n;

	/* since the last request sent: a dropped one's time goes with the next */
	dt = r->last_ns ? now - r->last_ns : 12000000ULL;
	if (r->fd < 0) {
		/*
		 * a unix socket's server, tried once a RETRY_NS: the deadline
		 * moves only when a try failed, or frames (every 12 ms) would
		 * push it on for ever and a server that comes never be reached
		 */
		if (r->socket && now >= r->retry_ns && reach(e))
			r->retry_ns = now + RETRY_NS;
		if (r->fd < 0) {
			r->unsent++;
			return;
		}
	}
	if (!r->armed) {
		/* a virtio port HUPs until the host's side is connected */
		p.fd = r->fd;
		p.events = POLLIN;
		if (poll(&p, 1, 0) < 0 || (p.revents & POLLHUP)) {
			r->unsent++;
			return;
		}
		arm(e, true);
	}
	/* a request half out goes first: its bytes are in the stream */
	if (!flush(e)) {
		r->unsent++;
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = PHYSW_REQUEST;
	m.seq = r->seq + 1;
	m.req.flags = r->flags;
	m.req.seconds = (float)(dt < MAX_DT_NS ? dt : MAX_DT_NS) / 1e9f;
	memcpy(m.req.push, r->push, sizeof(r->push));
	m.req.hold_height = r->hold_height;
	if (!r->connected) {
		/* a new server, or a new emulator: a new body, standing */
		m.req.flags |= PHYSW_F_START;
		physics_pose(e, m.req.target);
	} else {
		memcpy(m.req.target, target, sizeof(m.req.target));
	}
	memcpy(m.req.stiffness, stiffness, sizeof(m.req.stiffness));
	n = physw_encode(&m, r->tx, sizeof(r->tx));
	if (n < 0)
		return;
	r->tx_len = (size_t)n;
	r->tx_off = 0;
	if (!flush(e) && r->tx_off == 0) {
		/* nothing of it went: drop it whole, the next one has newer targets */
		r->tx_len = 0;
		r->unsent++;
		return;
	}
	r->seq = m.seq;
	r->sent_seq[m.seq % RING] = m.seq;
	r->sent_ns[m.seq % RING] = now;
	r->requests++;
	r->flags = 0;
	r->last_ns = now;
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int remote_report(struct emu *e, char *buf, size_t len)
{
	struct emu_remote *r = e->remote;
	static uint32_t sorted[RTT_SAMPLES];
	size_t n = r->rtt_n < RTT_SAMPLES ? r->rtt_n : RTT_SAMPLES;
	uint64_t since = emu_now() - r->since_ns, lag;
	double med = 0, p99 = 0, max = 0;
	float load[2] = { 0, 0 };

	if (n) {
		memcpy(sorted, r->rtt_us, n * sizeof(sorted[0]));
		qsort(sorted, n, sizeof(sorted[0]), by_value);
		med = sorted[n / 2] / 1000.0;
		p99 = sorted[n * 99 / 100] / 1000.0;
		max = sorted[n - 1] / 1000.0;
	}
	for (int i = 0; i < NAOBODY_FSRS; i++)
		load[i / 4] += r->sense.fsr[i];
	lag = since > r->model_ns ? since - r->model_ns : 0;
	/* the thread's keys where they mean the same, then the stream's own */
	snprintf(buf, len,
		 "host=1 connected=%d cycles=%llu model_ms=%llu clock_ms=%llu lag_ms=%llu"
		 " cpu_ms=%llu cpu_max_us=%llu superseded=%llu clamped=0"
		 " requests=%llu unsent=%llu rtt_n=%llu rtt_med_ms=%.3f rtt_p99_ms=%.3f"
		 " rtt_max_ms=%.3f late=%u late_max=%u late_mean=%.3f stale=%llu lost=%llu"
		 " malformed=%llu wall_max_us=%llu"
		 " torso_height=%.4f torso=%.4f,%.4f,%.4f,%.4f acc=%.3f,%.3f,%.3f angles=%.4f,%.4f"
		 " fsr_left=%.3f fsr_right=%.3f mass=%.3f",
		 r->connected, (unsigned long long)r->replies,
		 (unsigned long long)(r->model_ns / 1000000), (unsigned long long)(since / 1000000),
		 (unsigned long long)(lag / 1000000), (unsigned long long)(r->cpu_us / 1000),
		 (unsigned long long)r->cpu_max_us, (unsigned long long)r->folded,
		 (unsigned long long)r->requests, (unsigned long long)r->unsent,
		 (unsigned long long)n, med, p99, max, r->late, r->late_max,
		 r->late_n ? (double)r->late_sum / (double)r->late_n : 0.0,
		 (unsigned long long)r->stale, (unsigned long long)r->lost,
		 (unsigned long long)r->malformed, (unsigned long long)(max * 1000),
		 (double)r->sense.torso_height, (double)r->torso[0], (double)r->torso[1],
		 (double)r->torso[2], (double)r->torso[3],
		 (double)r->sense.accelerometer[0], (double)r->sense.accelerometer[1],
		 (double)r->sense.accelerometer[2], (double)r->sense.angles[0],
		 (double)r->sense.angles[1], (double)load[0], (double)load[1], (double)r->mass);
	return 0;
}

void remote_reset_stats(struct emu *e)
{
	struct emu_remote *r = e->remote;

	r->since_ns = emu_now();
	r->requests = r->unsent = r->replies = r->model_ns = r->cpu_us = r->cpu_max_us = 0;
	r->folded = r->stale = r->late_sum = r->late_n = r->malformed = r->lost = 0;
	r->late_max = 0;
	r->rtt_n = 0;
}

/* with the next request that goes out */
void remote_push(struct emu *e, float fx, float fy, float seconds)
{
	struct emu_remote *r = e->remote;

	r->flags |= PHYSW_F_PUSH;
	r->push[0] = fx;
	r->push[1] = fy;
	r->push[2] = seconds;
}

void remote_hold(struct emu *e, bool on, float height)
{
	struct emu_remote *r = e->remote;

	r->flags &= ~(PHYSW_F_HOLD | PHYSW_F_RELEASE);
	r->flags |= on ? PHYSW_F_HOLD : PHYSW_F_RELEASE;
	r->hold_height = height;
}
