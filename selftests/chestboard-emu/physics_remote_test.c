// SPDX-License-Identifier: GPL-2.0-only
/*
 * The emulator's side of the host physics (physics_remote.c), on the host:
 * the test is the server, on a unix socket the module connects to as it
 * does to nb-physics-server --listen, and reads what it does only from its
 * own outputs (remote_state(), the "physics" report's counts):
 *
 *   - the newest reply wins, however many arrive at once; late and stale
 *     count how old the state is;
 *   - garbage, a NaN, a request sent back and a message split across reads
 *     are counted (malformed) and skipped, the good replies around them
 *     taken;
 *   - a server lost (end of stream, or a write that fails) is logged and
 *     counted once, the last state kept; a server there again gets START
 *     and a new body;
 *   - a server that never reads never blocks the exchange (unsent), and
 *     what does go out is whole requests, in order, one the stream took
 *     only part of (write() wrapped) finished before the next.
 *
 * The clock (emu_now()), the log and the standing pose are the test's own:
 * nothing of the emulator but physics_remote.c and physics_wire.c.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "emu.h"
#include "physics_wire.h"

#define POSE		0.25f	/* physics_pose()'s, every joint */
#define TARGET		-0.5f	/* the frames' targets, every joint */
#define RETRY		1000000000ULL	/* physics_remote.c's RETRY_NS */

/* main.c's, played here */
static uint64_t clock_ns = 1000000000ULL;
static unsigned int gone_logged;

uint64_t emu_now(void)
{
	return clock_ns;
}

void emu_log(struct emu *e, int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strstr(line, "is gone"))
		gone_logged++;
}

/*
 * The module's write()s (linked with --wrap=write): a unix socket takes a
 * small request whole or not at all, a virtio port may take part of one.
 * write_budget >= 0: that many bytes go, then EAGAIN.
 */
static long write_budget = -1;
ssize_t __real_write(int fd, const void *buf, size_t len);
ssize_t __wrap_write(int fd, const void *buf, size_t len);

ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	ssize_t n;

	if (write_budget < 0)
		return __real_write(fd, buf, len);
	if (!write_budget) {
		errno = EAGAIN;
		return -1;
	}
	n = __real_write(fd, buf, len < (size_t)write_budget ? len : (size_t)write_budget);
	if (n > 0)
		write_budget -= n;
	return n;
}

/* physics.c's: the scripted standing pose */
void physics_pose(struct emu *e, float pose[NAOBODY_JOINTS])
{
	for (int i = 0; i < NAOBODY_JOINTS; i++)
		pose[i] = POSE;
}

/* A frame: its targets and stiffnesses go out, 12 ms after the last. */
static void cycle(struct emu *e)
{
	float target[NAOBODY_JOINTS], stiffness[NAOBODY_JOINTS];

	for (int i = 0; i < NAOBODY_JOINTS; i++) {
		target[i] = TARGET;
		stiffness[i] = 1;
	}
	clock_ns += 12000000ULL;
	remote_cycle(e, target, stiffness);
}

/* One of the "physics" report's counts. */
static long long count(struct emu *e, const char *key)
{
	char buf[2048], want[64];
	const char *at;

	remote_report(e, buf, sizeof(buf));
	snprintf(want, sizeof(want), " %s=", key);
	at = strstr(buf, want);
	return at ? strtoll(at + strlen(want), NULL, 10) : -1;
}

/* The state a frame would get: its torso height, or -1 (the scripted body). */
static float state(struct emu *e)
{
	struct sim_physics_sense s;

	return remote_state(e, &s) ? s.torso_height : -1;
}

static int reply(uint8_t *buf, uint32_t seq, float height)
{
	struct physw_msg m;

	memset(&m, 0, sizeof(m));
	m.type = PHYSW_REPLY;
	m.seq = seq;
	m.rep.sense.torso_height = height;
	m.rep.model_seconds = 0.012f;
	m.rep.folded = 1;
	m.rep.mass = 5.3f;
	return physw_encode(&m, buf, PHYSW_HEADER + PHYSW_MAX_PAYLOAD);
}

static void put(int fd, const void *buf, size_t len)
{
	if (write(fd, buf, len) != (ssize_t)len)
		abort();
}

static void answer(int fd, uint32_t seq, float height)
{
	uint8_t buf[PHYSW_HEADER + PHYSW_MAX_PAYLOAD];

	put(fd, buf, (size_t)reply(buf, seq, height));
}

/*
 * The requests that have arrived, in order, into m[] (max): how many. A
 * partial one at the end is kept in the inbox for the next call; anything
 * but a request is counted (bad) and ends the reading.
 */
struct inbox {
	uint8_t buf[1 << 20];
	size_t len;
	int bad;
};

static int requests(int fd, struct inbox *in, struct physw_msg *m, int max)
{
	int got = 0, d;
	size_t at = 0;
	ssize_t n;

	while ((n = recv(fd, in->buf + in->len, sizeof(in->buf) - in->len,
			 MSG_DONTWAIT)) > 0)
		in->len += (size_t)n;
	while (got < max && (d = physw_decode(in->buf + at, in->len - at, &m[got])) != 0) {
		if (d < 0 || m[got].type != PHYSW_REQUEST) {
			in->bad++;
			return got;
		}
		at += (size_t)d;
		got++;
	}
	memmove(in->buf, in->buf + at, in->len - at);
	in->len -= at;
	return got;
}

static int listen_at(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	strcpy(a.sun_path, path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

FIXTURE(remote) {
	struct emu *e;
	char dir[32];
	char path[64];
	int lfd;	/* the server's listening socket */
	int srv;	/* its end of the emulator's connection */
	struct inbox *in;
};

FIXTURE_SETUP(remote)
{
	/* main.c ignores it: a write to a server gone is an error, not a kill */
	signal(SIGPIPE, SIG_IGN);
	gone_logged = 0;
	write_budget = -1;
	self->in = calloc(1, sizeof(*self->in));
	self->e = calloc(1, sizeof(*self->e));
	ASSERT_NE(NULL, self->in);
	ASSERT_NE(NULL, self->e);
	self->e->epfd = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, self->e->epfd);

	strcpy(self->dir, "/tmp/emu-remote-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/phys.sock", self->dir);
	self->lfd = listen_at(self->path);
	ASSERT_LE(0, self->lfd);

	ASSERT_EQ(0, remote_open(self->e, self->path));
	self->srv = accept4(self->lfd, NULL, NULL, SOCK_CLOEXEC);
	ASSERT_LE(0, self->srv);
}

FIXTURE_TEARDOWN(remote)
{
	remote_close(self->e);
	close(self->e->epfd);
	if (self->srv >= 0)
		close(self->srv);
	close(self->lfd);
	unlink(self->path);
	rmdir(self->dir);
	free(self->e);
	free(self->in);
}

/*
 * Until a reply the body is the scripted one and the requests carry START
 * with the standing pose; then the frames' targets. Replies that arrive
 * together: the newest is the state, a frame without a new one is stale.
 */
TEST_F(remote, newest_reply_wins)
{
	struct physw_msg m[8];
	uint8_t buf[4 * (PHYSW_HEADER + PHYSW_MAX_PAYLOAD)];
	int n;

	cycle(self->e);
	cycle(self->e);
	cycle(self->e);
	ASSERT_EQ(3, requests(self->srv, self->in, m, 8));
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ((uint32_t)i + 1, m[i].seq);
		EXPECT_TRUE(m[i].req.flags & PHYSW_F_START);
		EXPECT_EQ(POSE, m[i].req.target[0]);
		EXPECT_EQ(1, m[i].req.stiffness[0]);
	}
	EXPECT_EQ(-1, state(self->e));
	EXPECT_EQ(0, count(self->e, "connected"));

	/* replies to 1 and 2 in one read: 2's state, one request after it */
	n = reply(buf, 1, 0.1f);
	n += reply(buf + n, 2, 0.2f);
	put(self->srv, buf, (size_t)n);
	remote_input(self->e);
	EXPECT_EQ(0.2f, state(self->e));
	EXPECT_EQ(1, count(self->e, "connected"));
	EXPECT_EQ(2, count(self->e, "cycles"));
	EXPECT_EQ(1, count(self->e, "late"));
	EXPECT_EQ(0, count(self->e, "stale"));
	EXPECT_EQ(2, count(self->e, "rtt_n"));

	/* nothing new: the same state, a cycle older */
	EXPECT_EQ(0.2f, state(self->e));
	EXPECT_EQ(1, count(self->e, "stale"));

	/* connected: the frames' own targets, no START */
	cycle(self->e);
	ASSERT_EQ(1, requests(self->srv, self->in, m, 8));
	EXPECT_EQ(4u, m[0].seq);
	EXPECT_FALSE(m[0].req.flags & PHYSW_F_START);
	EXPECT_EQ(TARGET, m[0].req.target[0]);

	/* 4 answered, 3 never: 4's state, as fresh as it gets */
	answer(self->srv, 4, 0.4f);
	remote_input(self->e);
	EXPECT_EQ(0.4f, state(self->e));
	EXPECT_EQ(0, count(self->e, "late"));
	EXPECT_EQ(1, count(self->e, "late_max"));
	EXPECT_EQ(0, count(self->e, "malformed"));
	EXPECT_EQ(0, count(self->e, "lost"));
	EXPECT_EQ(4, count(self->e, "requests"));
	EXPECT_EQ(0, count(self->e, "unsent"));
}

/*
 * What is not a reply is counted and skipped to the next magic; the good
 * replies before, between and after are taken, one split across reads too.
 */
TEST_F(remote, malformed_input_is_skipped)
{
	uint8_t buf[8 * (PHYSW_HEADER + PHYSW_MAX_PAYLOAD)];
	struct physw_msg m[8], req;
	size_t n = 0;
	int one;

	for (int i = 0; i < 5; i++)
		cycle(self->e);
	ASSERT_EQ(5, requests(self->srv, self->in, m, 8));

	/* garbage, then a reply */
	memcpy(buf, "garbage", 7);
	n = 7;
	n += (size_t)reply(buf + n, 1, 0.1f);
	put(self->srv, buf, n);
	remote_input(self->e);
	EXPECT_EQ(0.1f, state(self->e));
	EXPECT_EQ(1, count(self->e, "malformed"));

	/* a NaN, a request sent back, a reply */
	n = (size_t)reply(buf, 2, NAN);
	memset(&req, 0, sizeof(req));
	req.type = PHYSW_REQUEST;
	req.seq = 3;
	n += (size_t)physw_encode(&req, buf + n, sizeof(buf) - n);
	n += (size_t)reply(buf + n, 3, 0.3f);
	put(self->srv, buf, n);
	remote_input(self->e);
	EXPECT_EQ(0.3f, state(self->e));
	EXPECT_EQ(3, count(self->e, "malformed"));

	/* a reply in three reads: cut in its magic, then in its payload */
	one = reply(buf, 4, 0.4f);
	memmove(buf + 2, buf, (size_t)one);
	memcpy(buf, "xx", 2);
	one += 2;
	put(self->srv, buf, 4);		/* "xx" and half the magic */
	remote_input(self->e);
	EXPECT_EQ(0.3f, state(self->e));
	put(self->srv, buf + 4, 100);
	remote_input(self->e);
	EXPECT_EQ(0.3f, state(self->e));
	put(self->srv, buf + 104, (size_t)one - 104);
	remote_input(self->e);
	EXPECT_EQ(0.4f, state(self->e));
	EXPECT_EQ(4, count(self->e, "malformed"));

	/* and the one after it, whole */
	answer(self->srv, 5, 0.5f);
	remote_input(self->e);
	EXPECT_EQ(0.5f, state(self->e));
	EXPECT_EQ(0, count(self->e, "late"));
	EXPECT_EQ(4, count(self->e, "cycles"));
	EXPECT_EQ(4, count(self->e, "malformed"));
	EXPECT_EQ(1, count(self->e, "connected"));
	EXPECT_EQ(0, count(self->e, "lost"));
}

/*
 * The server goes (end of stream): logged and counted once, the last state
 * kept; after the retry time the module connects again, with START.
 */
TEST_F(remote, lost_server_keeps_last_state)
{
	struct physw_msg m[64];
	int fd, n;

	cycle(self->e);
	ASSERT_EQ(1, requests(self->srv, self->in, m, 8));
	answer(self->srv, 1, 0.3f);
	remote_input(self->e);
	EXPECT_EQ(0.3f, state(self->e));

	close(self->srv);
	self->srv = -1;
	remote_input(self->e);
	EXPECT_EQ(1, count(self->e, "lost"));
	EXPECT_EQ(0, count(self->e, "connected"));
	EXPECT_EQ(1u, gone_logged);
	/* frozen: the last state, and no stale counted against a lost server */
	EXPECT_EQ(0.3f, state(self->e));
	EXPECT_EQ(0.3f, state(self->e));
	EXPECT_EQ(0, count(self->e, "stale"));

	/* frames go on, unsent: nothing connects before the retry time ... */
	remote_input(self->e);
	for (int i = 0; i < 50; i++)
		cycle(self->e);
	EXPECT_EQ(-1, accept4(self->lfd, NULL, NULL, SOCK_CLOEXEC));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(50, count(self->e, "unsent"));
	EXPECT_EQ(1, count(self->e, "lost"));
	EXPECT_EQ(1u, gone_logged);

	/* ... and once it has passed, a new connection and a new body */
	for (int i = 50; i < 100; i++)
		cycle(self->e);
	EXPECT_EQ((long long)(RETRY / 12000000ULL), count(self->e, "unsent"));
	fd = accept4(self->lfd, NULL, NULL, SOCK_CLOEXEC);
	ASSERT_LE(0, fd);
	self->srv = fd;
	self->in->len = 0;
	n = requests(self->srv, self->in, m, 64);
	ASSERT_EQ(100 - RETRY / 12000000ULL, (unsigned long long)n);
	for (int i = 0; i < n; i++) {
		EXPECT_TRUE(m[i].req.flags & PHYSW_F_START);
		EXPECT_EQ(POSE, m[i].req.target[0]);
	}
	EXPECT_EQ(0.3f, state(self->e));
	answer(self->srv, m[n - 1].seq, 0.31f);
	remote_input(self->e);
	EXPECT_EQ(0.31f, state(self->e));
	EXPECT_EQ(1, count(self->e, "connected"));
	EXPECT_EQ(0, count(self->e, "late"));
	EXPECT_EQ(1, count(self->e, "lost"));
}

/*
 * A server that goes before its first reply was never the body's: nothing
 * lost, nothing logged, the body still the scripted one.
 */
TEST_F(remote, gone_before_a_reply)
{
	close(self->srv);
	self->srv = -1;
	remote_input(self->e);
	EXPECT_EQ(0, count(self->e, "lost"));
	EXPECT_EQ(0u, gone_logged);
	EXPECT_EQ(-1, state(self->e));
	cycle(self->e);
	EXPECT_EQ(1, count(self->e, "unsent"));
	EXPECT_EQ(0, count(self->e, "lost"));
}

/* The server goes and the module finds out writing: the same, once. */
TEST_F(remote, lost_on_write_error)
{
	struct physw_msg m[8];
	long long unsent;

	cycle(self->e);
	ASSERT_EQ(1, requests(self->srv, self->in, m, 8));
	answer(self->srv, 1, 0.3f);
	remote_input(self->e);
	EXPECT_EQ(0.3f, state(self->e));

	close(self->srv);
	self->srv = -1;
	unsent = count(self->e, "unsent");
	cycle(self->e);
	EXPECT_EQ(1, count(self->e, "lost"));
	EXPECT_EQ(0, count(self->e, "connected"));
	EXPECT_EQ(unsent + 1, count(self->e, "unsent"));
	EXPECT_EQ(1u, gone_logged);
	remote_input(self->e);
	cycle(self->e);
	EXPECT_EQ(1, count(self->e, "lost"));
	EXPECT_EQ(1u, gone_logged);
	EXPECT_EQ(0.3f, state(self->e));
}

/*
 * No server at the start, only its socket (one killed, or started after
 * the emulator but not listening yet): the frames go unsent, and once a
 * retry time the module tries again, however often the frames come.
 */
TEST(server_comes_later)
{
	char dir[32] = "/tmp/emu-remote-XXXXXX", path[64];
	struct emu *e = calloc(1, sizeof(*e));
	int lfd, fd, tries = 0;

	ASSERT_NE(NULL, e);
	e->epfd = -1;
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/phys.sock", dir);
	lfd = listen_at(path);
	ASSERT_LE(0, lfd);
	close(lfd);
	ASSERT_EQ(0, remote_open(e, path));
	for (int i = 0; i < 10; i++)
		cycle(e);
	EXPECT_EQ(10, count(e, "unsent"));
	EXPECT_EQ(0, count(e, "requests"));

	unlink(path);
	lfd = listen_at(path);
	ASSERT_LE(0, lfd);
	while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0 && tries++ < 200)
		cycle(e);
	EXPECT_LE(0, fd);
	/* within a retry time (and a frame) of the server's start */
	EXPECT_GE(RETRY / 12000000ULL + 1, (unsigned long long)tries);
	EXPECT_EQ(1, count(e, "requests"));

	remote_close(e);
	free(e);
	if (fd >= 0)
		close(fd);
	close(lfd);
	unlink(path);
	rmdir(dir);
}

/*
 * Nothing at the path (the server not started yet): refused at once, with
 * what to start, and nothing is left open.
 */
TEST(missing_path_says_what_to_start)
{
	char dir[32] = "/tmp/emu-remote-XXXXXX", path[64], msg[512] = "";
	struct emu *e = calloc(1, sizeof(*e));
	FILE *err = tmpfile();
	int saved = dup(2);
	size_t n;

	ASSERT_NE(NULL, e);
	ASSERT_NE(NULL, err);
	e->epfd = -1;
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/phys.sock", dir);
	fflush(stderr);
	dup2(fileno(err), 2);
	EXPECT_EQ(-ENOENT, remote_open(e, path));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	n = fread(msg, 1, sizeof(msg) - 1, err);
	msg[n] = '\0';
	EXPECT_NE(NULL, strstr(msg, path)) TH_LOG("%s", msg);
	EXPECT_NE(NULL, strstr(msg, "nb-physics-server --listen")) TH_LOG("%s", msg);
	EXPECT_EQ(NULL, e->remote);
	fclose(err);
	free(e);
	rmdir(dir);
}

/*
 * A request the stream took only part of is in it: its rest goes before
 * anything else, however many frames later, so the server reads whole
 * requests.
 */
TEST_F(remote, half_written_request_goes_first)
{
	struct physw_msg m[8];

	write_budget = 100;
	cycle(self->e);
	EXPECT_EQ(1, count(self->e, "requests"));
	EXPECT_EQ(0, requests(self->srv, self->in, m, 8));
	EXPECT_EQ(100u, self->in->len);

	/* nothing goes: the next frame's request is dropped, not the half */
	write_budget = 0;
	cycle(self->e);
	EXPECT_EQ(1, count(self->e, "requests"));
	EXPECT_EQ(1, count(self->e, "unsent"));

	write_budget = -1;
	cycle(self->e);
	ASSERT_EQ(2, requests(self->srv, self->in, m, 8));
	EXPECT_EQ(0, self->in->bad);
	EXPECT_EQ(0u, self->in->len);
	EXPECT_EQ(1u, m[0].seq);
	EXPECT_EQ(2u, m[1].seq);
	EXPECT_EQ(POSE, m[0].req.target[NAOBODY_JOINTS - 1]);
	EXPECT_EQ(POSE, m[1].req.target[NAOBODY_JOINTS - 1]);
	EXPECT_EQ(2, count(self->e, "requests"));
}

/*
 * A server that never reads: the socket fills, and remote_cycle() drops
 * the requests that do not fit (unsent) instead of waiting. When it reads
 * again, what arrives is whole requests, numbered without a gap. A write
 * that waited for room would wait for ever: the harness's time limit
 * fails that, not a clock here (a busy machine takes its time anyway).
 */
TEST_F(remote, full_stream_never_blocks)
{
	static struct physw_msg m[4096];
	int got;

	for (int i = 0; i < 5000; i++)
		cycle(self->e);
	EXPECT_GT(count(self->e, "unsent"), 0);
	EXPECT_GT(count(self->e, "requests"), 0);
	EXPECT_EQ(5000, count(self->e, "unsent") + count(self->e, "requests"));

	got = requests(self->srv, self->in, m, 4096);
	/* one more frame: a request left half out is finished first */
	cycle(self->e);
	got += requests(self->srv, self->in, m + got, 4096 - got);
	EXPECT_EQ(0, self->in->bad);
	EXPECT_EQ(0u, self->in->len);
	EXPECT_EQ(count(self->e, "requests"), got);
	for (int i = 0; i < got; i++)
		EXPECT_EQ((uint32_t)i + 1, m[i].seq);
	/* the time of the dropped ones went with the next: at most 100 ms */
	for (int i = 1; i < got; i++)
		EXPECT_GE(0.1f + 1e-6f, m[i].req.seconds);
}

TEST_HARNESS_MAIN
