// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control socket: a unix stream socket, one request per line, one
 * reply line per request ("OK ..." or "ERR <ERRNO> <text>"), records after
 * an "OK <count> <size>" line. Documentation/chestboard-emu.rst and the
 * "help" request list the requests; libnbemuctl wraps them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <simctl/simctl.h>

#include "emu.h"

#define MAX_WORDS	8
#define FRAMES_MAX	1024	/* records per "frames" reply */

int control_setup(struct emu *e)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = EMU_TAG_CONTROL };

	if (strlen(e->opt.socket) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	strcpy(a.sun_path, e->opt.socket);
	for (int i = 0; i < EMU_MAX_CLIENTS; i++)
		e->client[i].fd = -1;
	e->ctlfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (e->ctlfd < 0)
		return -errno;
	unlink(a.sun_path);
	if (bind(e->ctlfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(e->ctlfd, EMU_MAX_CLIENTS)) {
		emu_log(e, 0, "control socket %s: %s", e->opt.socket, strerror(errno));
		return -errno;
	}
	chmod(a.sun_path, 0600);
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->ctlfd, &ev))
		return -errno;
	return 0;
}

static void drop(struct emu *e, int slot)
{
	struct emu_client *c = &e->client[slot];

	if (c->fd < 0)
		return;
	epoll_ctl(e->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->used = 0;
	c->wait_frames = 0;
}

void control_teardown(struct emu *e)
{
	for (int i = 0; i < EMU_MAX_CLIENTS; i++)
		drop(e, i);
	if (e->ctlfd >= 0) {
		close(e->ctlfd);
		unlink(e->opt.socket);
	}
	e->ctlfd = -1;
}

void control_accept(struct emu *e)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct timeval tv = { .tv_sec = 2 };
	int fd, slot;

	while ((fd = accept4(e->ctlfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		for (slot = 0; slot < EMU_MAX_CLIENTS; slot++)
			if (e->client[slot].fd < 0)
				break;
		if (slot == EMU_MAX_CLIENTS) {
			dprintf(fd, "ERR EMFILE too many clients\n");
			close(fd);
			continue;
		}
		/* replies are written blocking, but never for long */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		e->client[slot].fd = fd;
		e->client[slot].used = 0;
		e->client[slot].wait_frames = 0;
		ev.data.u64 = EMU_TAG_CLIENT + (uint64_t)slot;
		epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev);
	}
}

static int send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

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

static void ok(struct emu *e, int slot, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void ok(struct emu *e, int slot, const char *fmt, ...)
{
	char line[1024] = "OK";
	size_t n = 2;
	va_list ap;

	if (fmt && *fmt) {
		line[n++] = ' ';
		va_start(ap, fmt);
		vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
		va_end(ap);
	}
	n = strlen(line);
	line[n++] = '\n';
	if (send_all(e->client[slot].fd, line, n))
		drop(e, slot);
}

static void err(struct emu *e, int slot, int error, const char *what)
{
	char line[256];
	const char *name = strerrorname_np(error);
	int n;

	n = snprintf(line, sizeof(line), "ERR %s %s\n", name ? name : "EIO", what);
	if (send_all(e->client[slot].fd, line, (size_t)n))
		drop(e, slot);
}

/* The requests, in the order "help" lists them. */
enum request {
	RQ_HELLO, RQ_STATUS, RQ_STATS, RQ_SET, RQ_GET, RQ_WAVE,
	RQ_TOUCH, RQ_DRAIN, RQ_FOLLOW, RQ_PHYSICS, RQ_VERSION, RQ_BOOTLOADER,
	RQ_BOARD, RQ_ID, RQ_MISBEHAVE, RQ_FRAMES, RQ_RAW, RQ_WAIT,
	RQ_RESET, RQ_DISCONNECT, RQ_CONNECT, RQ_STORM, RQ_QUIT, RQ_HELP,
	RQ_COUNT		/* simctl_find(): none of them */
};

/*
 * The table's form, the words and the numbers are libnbsimctl's, shared
 * with naobodyd's simulated body (body_sim.c); the requests differ, for a
 * reason: these are the board's raw fields, bits and cycles, for driving
 * and checking the driver, the body's a person's acts in LoLA's units.
 * Each request checks its own words (a missing one is its usage, one too
 * many is not read), so the word counts are left 0.
 */
#define SET_GET_USAGE	"set FIELD INDEX VALUE | get FIELD INDEX"
static const struct simctl_cmd requests[RQ_COUNT] = {
	[RQ_HELLO] = { .name = "hello" },
	[RQ_STATUS] = { .name = "status" },
	[RQ_STATS] = { .name = "stats" },
	[RQ_SET] = { .name = "set", .usage = SET_GET_USAGE },
	[RQ_GET] = { .name = "get", .usage = SET_GET_USAGE },
	[RQ_WAVE] = { .name = "wave", .usage = "wave FIELD INDEX SHAPE AMPLITUDE PERIOD" },
	[RQ_TOUCH] = { .name = "touch", .usage = "touch BIT START|+DELAY CYCLES" },
	[RQ_DRAIN] = { .name = "drain", .usage = "drain COUNTS_PER_1000_CYCLES" },
	[RQ_FOLLOW] = { .name = "follow", .usage = "follow on|off" },
	[RQ_PHYSICS] = { .name = "physics", .flags = SIMCTL_PHYSICS,
			 .usage = "physics [reset|push FX FY S|hold H|hold off]" },
	[RQ_VERSION] = { .name = "version", .usage = "version BOARD|all CONFIG_VERSION" },
	[RQ_BOOTLOADER] = { .name = "bootloader", .usage = "bootloader on|off" },
	[RQ_BOARD] = { .name = "board", .usage = "board BOARD down|up" },
	[RQ_ID] = { .name = "id", .usage = "id SLOT STRING (20 characters at most)" },
	[RQ_MISBEHAVE] = { .name = "misbehave",
			   .usage = "misbehave NAME CYCLES|-1 [ARG] | misbehave off" },
	[RQ_FRAMES] = { .name = "frames", .usage = "frames FROM MAX" },
	[RQ_RAW] = { .name = "raw", .usage = "raw SEQ" },
	[RQ_WAIT] = { .name = "wait", .usage = "wait FRAMES TIMEOUT_MS" },
	[RQ_RESET] = { .name = "reset" },
	[RQ_DISCONNECT] = { .name = "disconnect" },
	[RQ_CONNECT] = { .name = "connect" },
	[RQ_STORM] = { .name = "storm", .usage = "storm COUNT DOWN_MS UP_MS" },
	[RQ_QUIT] = { .name = "quit" },
	[RQ_HELP] = { .name = "help" },
};

static const char *const off_on[] = { "off", "on" };

/* A request's malformed words: its usage. */
static void usage(struct emu *e, int slot, enum request r)
{
	char what[128];

	snprintf(what, sizeof(what), "usage: %s", requests[r].usage);
	err(e, slot, EINVAL, what);
}

/*
 * Each request's handler, in a table beside requests[] (struct simctl_cmd
 * is libnbsimctl's, shared with body_sim.c, whose handlers take other
 * things): w[0] is its name, w[1]... its words, NULL after the last. Only
 * "id" reads rest, its string, which keeps its spaces (request()). Every
 * request has one: request() calls it unchecked.
 */
typedef void request_fn(struct emu *e, int slot, char **w, char *rest);

static void rq_hello(struct emu *e, int slot, char **w, char *rest)
{
	ok(e, slot, "chestboard-emu %d", NB_EMU_PROTO);
}

static void rq_status(struct emu *e, int slot, char **w, char *rest)
{
	char m[256];

	misb_describe(e, m, sizeof(m));
	ok(e, slot, "bound=%d enabled=%d started=%d frames=%" PRIu64
	   " acked=%" PRIu64 " next=%" PRIu64 " boards=0x%" PRIx64
	   " pending=%u misbehave=%s product=0x%04x chest_mode=%u down=0x%" PRIx64,
	   e->bound, e->enabled, e->protocol_started, e->frames, e->acked,
	   e->body.next, e->boards.started, e->npending, m, e->opt.product,
	   e->boards.chest_led_op, e->boards.down);
}

static void rq_stats(struct emu *e, int slot, char **w, char *rest)
{
	const struct nb_emu_stats *s = &e->st;

	ok(e, slot, "frames=%" PRIu64 " bad_frames=%" PRIu64 " acks=%" PRIu64
	   " ack_waits=%" PRIu64 " ack_timeouts=%" PRIu64
	   " ack_wait_max_us=%" PRIu64 " answers=%" PRIu64
	   " answers_read=%" PRIu64 " answers_dropped=%" PRIu64
	   " status_requests=%" PRIu64 " start_requests=%" PRIu64
	   " version_requests=%" PRIu64 " stalls=%" PRIu64
	   " misbehaviours=%" PRIu64 " connects=%" PRIu64 " enables=%" PRIu64
	   " started_boards=0x%" PRIx64 " cycle=%" PRIu64,
	   s->frames, s->bad_frames, s->acks, s->ack_waits, s->ack_timeouts,
	   s->ack_wait_max_us, s->answers, s->answers_read, s->answers_dropped,
	   s->status_requests, s->start_requests, s->version_requests, s->stalls, s->misbehaviours,
	   s->connects, s->enables, e->boards.started, e->body.next);
}

/* "set"'s and "get"'s FIELD INDEX, w[1] and w[2]: 0, or -EINVAL. */
static int field_index(char **w, int *field, long long *index)
{
	*field = body_field(w[1] ?: "");
	return *field < 0 ? -EINVAL : simctl_int(w[2], 0, 255, index);
}

static void rq_set(struct emu *e, int slot, char **w, char *rest)
{
	long long index, v;
	int field, r;

	if (field_index(w, &field, &index) || simctl_int(w[3], INT32_MIN, UINT32_MAX, &v)) {
		usage(e, slot, RQ_SET);
		return;
	}
	r = body_set(&e->body, field, (unsigned int)index, (int32_t)v);
	if (r)
		err(e, slot, -r, "no such index");
	else
		ok(e, slot, NULL);
}

static void rq_get(struct emu *e, int slot, char **w, char *rest)
{
	long long index;
	int field, r;
	int32_t v;

	if (field_index(w, &field, &index)) {
		usage(e, slot, RQ_GET);
		return;
	}
	r = body_get(&e->body, field, (unsigned int)index, &v);
	if (r)
		err(e, slot, -r, "no such index");
	else
		ok(e, slot, "%" PRId32, v);
}

static void rq_wave(struct emu *e, int slot, char **w, char *rest)
{
	int field = body_field(w[1] ?: ""), shape = body_wave_shape(w[3] ?: ""), r;
	long long index, amplitude, period;

	if (field < 0 || shape < 0 || simctl_int(w[2], 0, 255, &index) ||
	    (shape != WAVE_NONE && (simctl_int(w[4], INT32_MIN, INT32_MAX, &amplitude) ||
				    simctl_int(w[5], 0, UINT32_MAX, &period)))) {
		usage(e, slot, RQ_WAVE);
		return;
	}
	if (shape == WAVE_NONE)
		amplitude = period = 0;
	r = body_wave(&e->body, field, (unsigned int)index, shape, (int32_t)amplitude,
		      (uint32_t)period);
	if (r)
		err(e, slot, -r, "bad wave");
	else
		ok(e, slot, "%" PRIu64, e->body.next);
}

static void rq_touch(struct emu *e, int slot, char **w, char *rest)
{
	long long bit, when, cycles;
	uint64_t start;
	int r;

	if (simctl_int(w[1], 0, NAOBODY_TOUCHES - 1, &bit) || !w[2] ||
	    simctl_int(w[2][0] == '+' ? w[2] + 1 : w[2], 0, INT64_MAX, &when) ||
	    simctl_int(w[3], 1, UINT32_MAX, &cycles)) {
		usage(e, slot, RQ_TOUCH);
		return;
	}
	start = w[2][0] == '+' ? e->body.next + (uint64_t)when : (uint64_t)when;
	r = body_touch(&e->body, (unsigned int)bit, start, (uint32_t)cycles);
	if (r)
		err(e, slot, -r, "no room for another touch");
	else
		ok(e, slot, "%" PRIu64, start);
}

static void rq_drain(struct emu *e, int slot, char **w, char *rest)
{
	long long counts;

	if (simctl_int(w[1], 0, 1000000, &counts)) {
		usage(e, slot, RQ_DRAIN);
		return;
	}
	e->body.drain = (uint32_t)counts;
	ok(e, slot, NULL);
}

static void rq_follow(struct emu *e, int slot, char **w, char *rest)
{
	int on = simctl_word(w[1], off_on, 2);

	if (on < 0) {
		usage(e, slot, RQ_FOLLOW);
		return;
	}
	e->opt.follow = on;
	ok(e, slot, NULL);
}

static void rq_physics(struct emu *e, int slot, char **w, char *rest)
{
	char m[768];

	if (w[1] && !strcmp(w[1], "reset")) {
		physics_reset_stats(e);
	} else if (w[1] && !strcmp(w[1], "push")) {
		float fx, fy, t;

		if (simctl_float(w[2], &fx) || simctl_float(w[3], &fy) ||
		    simctl_float(w[4], &t) || t <= 0 || t > 10) {
			err(e, slot, EINVAL, "usage: physics push FX FY SECONDS (N, s)");
			return;
		}
		physics_push(e, fx, fy, t);
	} else if (w[1] && !strcmp(w[1], "hold")) {
		float h;

		if (w[2] && !strcmp(w[2], "off")) {
			physics_hold(e, false, 0);
		} else if (simctl_float(w[2], &h) || h < 0 || h > 2) {
			err(e, slot, EINVAL, "usage: physics hold HEIGHT|off (m)");
			return;
		} else {
			physics_hold(e, true, h);
		}
	} else if (w[1]) {
		usage(e, slot, RQ_PHYSICS);
		return;
	}
	physics_report(e, m, sizeof(m));
	ok(e, slot, "%s", m);
}

static void rq_version(struct emu *e, int slot, char **w, char *rest)
{
	long long board = -1, v;
	bool all = w[1] && !strcmp(w[1], "all");

	if (!w[1] || (!all && simctl_int(w[1], 0, NB_BOARDS - 1, &board)) ||
	    simctl_int(w[2], 0, 255, &v)) {
		usage(e, slot, RQ_VERSION);
		return;
	}
	boards_set_version(&e->boards, all ? -1 : (int)board, (unsigned int)v);
	ok(e, slot, NULL);
}

static void rq_bootloader(struct emu *e, int slot, char **w, char *rest)
{
	int on = simctl_word(w[1], off_on, 2);

	if (on < 0) {
		usage(e, slot, RQ_BOOTLOADER);
		return;
	}
	e->boards.bootloader = on;
	ok(e, slot, NULL);
}

static void rq_board(struct emu *e, int slot, char **w, char *rest)
{
	long long board;

	if (simctl_int(w[1], 0, NB_BOARDS - 1, &board) || !w[2] ||
	    (strcmp(w[2], "down") && strcmp(w[2], "up"))) {
		usage(e, slot, RQ_BOARD);
		return;
	}
	boards_set_down(&e->boards, (int)board, !strcmp(w[2], "down"));
	ok(e, slot, NULL);
}

static void rq_id(struct emu *e, int slot, char **w, char *rest)
{
	long long id;

	while (rest && *rest == ' ')
		rest++;
	if (simctl_int(w[1], 0, NAOBODY_CHEST_ID_SLOTS - 1, &id) || !rest ||
	    strlen(rest) > NAOBODY_CHEST_ID_LEN) {
		usage(e, slot, RQ_ID);
		return;
	}
	snprintf(e->boards.id[id], sizeof(e->boards.id[id]), "%s", rest);
	ok(e, slot, NULL);
}

static void rq_misbehave(struct emu *e, int slot, char **w, char *rest)
{
	long long cycles, arg;
	int m;

	if (w[1] && !strcmp(w[1], "off")) {
		memset(&e->misb, 0, sizeof(e->misb));
		ok(e, slot, NULL);
		return;
	}
	m = nb_emu_misb_find(w[1] ?: "");
	if (m <= 0 || simctl_int(w[2], -1, INT32_MAX, &cycles) ||
	    (w[3] && simctl_int(w[3], 0, INT32_MAX, &arg))) {
		usage(e, slot, RQ_MISBEHAVE);
		return;
	}
	misb_set(e, (unsigned int)m, (int)cycles, w[3] ? (int)arg : 0);
	ok(e, slot, NULL);
}

static void rq_frames(struct emu *e, int slot, char **w, char *rest)
{
	static struct nb_emu_frame out[FRAMES_MAX];
	long long from, max;
	char line[64];
	unsigned int n;
	int len;

	if (simctl_int(w[1], 0, INT64_MAX, &from) || simctl_int(w[2], 0, INT32_MAX, &max)) {
		usage(e, slot, RQ_FRAMES);
		return;
	}
	if (max > FRAMES_MAX)
		max = FRAMES_MAX;
	n = record_copy(&e->rec, (uint64_t)from, e->frames, out, (unsigned int)max);
	len = snprintf(line, sizeof(line), "OK %u %zu\n", n, sizeof(out[0]));
	if (send_all(e->client[slot].fd, line, (size_t)len) ||
	    send_all(e->client[slot].fd, out, n * sizeof(out[0])))
		drop(e, slot);
}

static void rq_raw(struct emu *e, int slot, char **w, char *rest)
{
	const uint8_t *p;
	long long seq;
	char line[64];
	size_t len;
	int n;

	if (simctl_int(w[1], 0, INT64_MAX, &seq)) {
		usage(e, slot, RQ_RAW);
		return;
	}
	p = record_raw(&e->rec, (uint64_t)seq, &len);
	if (!p) {
		err(e, slot, ENOENT, "frame not kept");
		return;
	}
	n = snprintf(line, sizeof(line), "OK 1 %zu\n", len);
	if (send_all(e->client[slot].fd, line, (size_t)n) ||
	    send_all(e->client[slot].fd, p, len))
		drop(e, slot);
}

/* The reply waits for the frames or the time (control_frames_arrived(), control_timeouts()). */
static void rq_wait(struct emu *e, int slot, char **w, char *rest)
{
	long long frames, timeout_ms;

	if (simctl_int(w[1], 0, INT64_MAX, &frames) ||
	    simctl_int(w[2], 0, 3600000, &timeout_ms)) {
		usage(e, slot, RQ_WAIT);
		return;
	}
	if (e->frames >= (uint64_t)frames) {
		ok(e, slot, "%" PRIu64, e->frames);
		return;
	}
	e->client[slot].wait_frames = (uint64_t)frames;
	e->client[slot].wait_deadline = emu_now() + (uint64_t)timeout_ms * 1000000;
}

static void rq_reset(struct emu *e, int slot, char **w, char *rest)
{
	memset(&e->st, 0, sizeof(e->st));
	memset(e->rec.ring, 0, e->rec.size * sizeof(e->rec.ring[0]));
	ok(e, slot, NULL);
}

static void rq_disconnect(struct emu *e, int slot, char **w, char *rest)
{
	int r;

	emu_timer_set(e, T_RECONNECT, 0);
	emu_timer_set(e, T_STORM, 0);
	r = usb_unbind(e);
	if (r)
		err(e, slot, -r, "unbind failed");
	else
		ok(e, slot, NULL);
}

static void rq_connect(struct emu *e, int slot, char **w, char *rest)
{
	int r = usb_bind(e);

	if (r)
		err(e, slot, -r, "bind failed");
	else
		ok(e, slot, NULL);
}

static void rq_storm(struct emu *e, int slot, char **w, char *rest)
{
	long long count, down_ms, up_ms;

	if (simctl_int(w[1], 1, 10000, &count) || simctl_int(w[2], 1, 60000, &down_ms) ||
	    simctl_int(w[3], 1, 60000, &up_ms)) {
		usage(e, slot, RQ_STORM);
		return;
	}
	e->storm_left = (unsigned int)count;
	e->storm_down_ms = (unsigned int)down_ms;
	e->storm_up_ms = (unsigned int)up_ms;
	/* the first unbind is done when the reply comes */
	emu_timer_set(e, T_RECONNECT, 0);
	if (e->bound)
		usb_unbind(e);
	emu_timer_set(e, T_STORM, emu_now() + (uint64_t)down_ms * 1000000);
	ok(e, slot, NULL);
}

static void rq_quit(struct emu *e, int slot, char **w, char *rest)
{
	ok(e, slot, NULL);
	e->quit = true;
}

static void rq_help(struct emu *e, int slot, char **w, char *rest)
{
	char help[256];

	simctl_list(requests, RQ_COUNT, 0, 0, " ", help, sizeof(help));
	ok(e, slot, "%s", help);
}

static request_fn *const request_run[RQ_COUNT] = {
	[RQ_HELLO] = rq_hello, [RQ_STATUS] = rq_status, [RQ_STATS] = rq_stats,
	[RQ_SET] = rq_set, [RQ_GET] = rq_get, [RQ_WAVE] = rq_wave,
	[RQ_TOUCH] = rq_touch, [RQ_DRAIN] = rq_drain, [RQ_FOLLOW] = rq_follow,
	[RQ_PHYSICS] = rq_physics, [RQ_VERSION] = rq_version,
	[RQ_BOOTLOADER] = rq_bootloader, [RQ_BOARD] = rq_board, [RQ_ID] = rq_id,
	[RQ_MISBEHAVE] = rq_misbehave, [RQ_FRAMES] = rq_frames, [RQ_RAW] = rq_raw,
	[RQ_WAIT] = rq_wait, [RQ_RESET] = rq_reset, [RQ_DISCONNECT] = rq_disconnect,
	[RQ_CONNECT] = rq_connect, [RQ_STORM] = rq_storm, [RQ_QUIT] = rq_quit,
	[RQ_HELP] = rq_help,
};

static void request(struct emu *e, int slot, char *line)
{
	char *w[MAX_WORDS] = { 0 }, *rest = NULL;
	enum request rq;
	int nw;

	/* After "id SLOT", the id string keeps its spaces. */
	nw = simctl_split(line, w, 2, &rest);
	if (nw == 2 && strcmp(w[0], "id"))
		nw += simctl_split(rest, w + 2, MAX_WORDS - 2, NULL);
	if (!nw)
		return;
	emu_log(e, 2, "control: %s %s %s %s", w[0], w[1] ?: "", w[2] ?: "", w[3] ?: "");

	rq = (enum request)simctl_find(requests, RQ_COUNT, w[0]);
	if (rq == RQ_COUNT)
		err(e, slot, EOPNOTSUPP, "unknown request; try 'help'");
	else if ((requests[rq].flags & SIMCTL_PHYSICS) && !physics_on(e))
		err(e, slot, ENODEV, "no physical body (start with --physics MODEL or --physics-host PATH)");
	else
		request_run[rq](e, slot, w, rest);
}

void control_input(struct emu *e, int slot)
{
	struct emu_client *c = &e->client[slot];
	char *nl;
	ssize_t n;

	n = recv(c->fd, c->line + c->used, sizeof(c->line) - 1 - c->used,
		 MSG_DONTWAIT);
	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		drop(e, slot);
		return;
	}
	c->used += (size_t)n;
	c->line[c->used] = '\0';
	while (c->fd >= 0 && (nl = strchr(c->line, '\n'))) {
		size_t len = (size_t)(nl - c->line) + 1;

		*nl = '\0';
		if (c->wait_frames)
			err(e, slot, EBUSY, "a wait is pending");
		else
			request(e, slot, c->line);
		if (c->fd < 0)
			return;
		memmove(c->line, c->line + len, c->used - len + 1);
		c->used -= len;
	}
	if (c->used == sizeof(c->line) - 1) {
		err(e, slot, E2BIG, "request too long");
		drop(e, slot);
	}
}

void control_frames_arrived(struct emu *e)
{
	for (int i = 0; i < EMU_MAX_CLIENTS; i++) {
		struct emu_client *c = &e->client[i];

		if (c->fd >= 0 && c->wait_frames && e->frames >= c->wait_frames) {
			c->wait_frames = 0;
			ok(e, i, "%" PRIu64, e->frames);
		}
	}
}

void control_timeouts(struct emu *e, uint64_t now)
{
	for (int i = 0; i < EMU_MAX_CLIENTS; i++) {
		struct emu_client *c = &e->client[i];

		if (c->fd >= 0 && c->wait_frames && now >= c->wait_deadline) {
			c->wait_frames = 0;
			err(e, i, ETIMEDOUT, "not enough frames");
		}
	}
}

uint64_t control_next_deadline(struct emu *e)
{
	uint64_t d = 0;

	for (int i = 0; i < EMU_MAX_CLIENTS; i++) {
		struct emu_client *c = &e->client[i];

		if (c->fd >= 0 && c->wait_frames && (!d || c->wait_deadline < d))
			d = c->wait_deadline;
	}
	return d;
}
