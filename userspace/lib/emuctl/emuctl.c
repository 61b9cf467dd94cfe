// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbemuctl: start and drive chestboard-emu (see emuctl.h).
 */
#include <emuctl/emuctl.h>
#include <gadget/gadget.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPLY_TIMEOUT_MS	10000

static const char *const misb_names[__NB_EMU_MISB_MAX] = {
	[NB_EMU_MISB_NONE] = "none",
	[NB_EMU_MISB_BAD_CRC] = "bad_crc",
	[NB_EMU_MISB_BAD_TABLE] = "bad_table",
	[NB_EMU_MISB_MSGS256] = "msgs256",
	[NB_EMU_MISB_OVERLONG] = "overlong",
	[NB_EMU_MISB_SHORT] = "short",
	[NB_EMU_MISB_NO_ZLP] = "no_zlp",
	[NB_EMU_MISB_STALL_IN] = "stall_in",
	[NB_EMU_MISB_STALL_OUT] = "stall_out",
	[NB_EMU_MISB_STALL_ACK] = "stall_ack",
	[NB_EMU_MISB_NAK] = "nak",
	[NB_EMU_MISB_SILENCE] = "silence",
	[NB_EMU_MISB_WRONG_ACK] = "wrong_ack",
	[NB_EMU_MISB_NO_PREFS] = "no_prefs",
	[NB_EMU_MISB_NO_VERSION] = "no_version",
	[NB_EMU_MISB_DISCONNECT] = "disconnect",
	[NB_EMU_MISB_STALL_STATUS] = "stall_status",
	[NB_EMU_MISB_NO_IDS] = "no_ids",
};

const char *nb_emu_misb_name(unsigned int m)
{
	return m < __NB_EMU_MISB_MAX ? misb_names[m] : NULL;
}

int nb_emu_misb_find(const char *name)
{
	for (unsigned int m = 0; m < __NB_EMU_MISB_MAX; m++)
		if (!strcmp(misb_names[m], name))
			return (int)m;
	return -ENOENT;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Read exactly len bytes within timeout_ms. */
static int read_exact(int fd, void *buf, size_t len, int timeout_ms)
{
	uint8_t *p = buf;
	uint64_t end = now_ms() + (uint64_t)timeout_ms;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t n;

		if (now >= end)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, (int)(end - now));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -ETIMEDOUT;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	size_t n = 0;
	int r;

	while (n + 1 < len) {
		r = read_exact(fd, buf + n, 1, timeout_ms);
		if (r)
			return r;
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return 0;
		}
		n++;
	}
	return -E2BIG;
}

static int errno_by_name(const char *name)
{
	for (int e = 1; e < 134; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return e;
	}
	return EIO;
}

/* Send a request; read its reply line; "ERR" gives -errno. */
static int transact(struct nb_emu *emu, char *reply, size_t len, int timeout_ms,
		    const char *fmt, va_list ap)
{
	char line[512], buf[1024];
	int n, r;

	if (emu->fd < 0)
		return -ENOTCONN;
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		return -E2BIG;
	line[n++] = '\n';
	if (send(emu->fd, line, (size_t)n, MSG_NOSIGNAL) != n)
		return -errno;
	r = read_line(emu->fd, buf, sizeof(buf), timeout_ms);
	if (r)
		return r;
	if (!strncmp(buf, "ERR ", 4)) {
		char name[32] = "";

		sscanf(buf + 4, "%31s", name);
		if (reply && len)
			snprintf(reply, len, "%s", buf + 4);
		return -errno_by_name(name);
	}
	if (strncmp(buf, "OK", 2))
		return -EPROTO;
	if (reply && len)
		snprintf(reply, len, "%s", buf[2] == ' ' ? buf + 3 : "");
	return 0;
}

int nb_emu_cmd(struct nb_emu *emu, char *reply, size_t len, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = transact(emu, reply, len, REPLY_TIMEOUT_MS, fmt, ap);
	va_end(ap);
	return r;
}

static int cmd_timeout(struct nb_emu *emu, char *reply, size_t len,
		       int timeout_ms, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int cmd_timeout(struct nb_emu *emu, char *reply, size_t len,
		       int timeout_ms, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = transact(emu, reply, len, timeout_ms, fmt, ap);
	va_end(ap);
	return r;
}

int nb_emu_attach(struct nb_emu *emu, const char *socket_path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char reply[128];
	unsigned int proto = 0;
	int r;

	memset(emu, 0, sizeof(*emu));
	emu->fd = -1;
	snprintf(emu->socket, sizeof(emu->socket), "%s", socket_path ?: NB_EMU_SOCKET);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", emu->socket);
	emu->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (emu->fd < 0)
		return -errno;
	if (connect(emu->fd, (struct sockaddr *)&a, sizeof(a))) {
		r = -errno;
		close(emu->fd);
		emu->fd = -1;
		return r;
	}
	r = nb_emu_cmd(emu, reply, sizeof(reply), "hello");
	if (!r && (sscanf(reply, "chestboard-emu %u", &proto) != 1 ||
		   proto != NB_EMU_PROTO))
		r = -EPROTO;
	if (!r)
		r = nb_emu_cmd(emu, reply, sizeof(reply), "status");
	if (!r) {
		const char *p = strstr(reply, "product=");

		emu->product = p ? (uint16_t)strtoul(p + 8, NULL, 0) : 0x0006;
	}
	if (r) {
		close(emu->fd);
		emu->fd = -1;
	}
	return r;
}

int nb_emu_start(struct nb_emu *emu, const struct nb_emu_options *opt)
{
	const struct nb_emu_options none = { 0 };
	const char *argv[64];
	char fdbuf[16], buf[16] = "";
	int p[2], argc = 0, r, status, pid_saved;
	pid_t pid;

	if (!opt)
		opt = &none;
	memset(emu, 0, sizeof(*emu));
	emu->fd = -1;
	argv[argc++] = opt->program ?: getenv("NB_EMU_PROGRAM") ?: NB_EMU_PROGRAM;
	argv[argc++] = "--socket";
	argv[argc++] = opt->socket ?: NB_EMU_SOCKET;
	argv[argc++] = "--ready-fd";
	argv[argc++] = fdbuf;
	for (int i = 0; opt->args && opt->args[i] && argc < 62; i++)
		argv[argc++] = opt->args[i];
	argv[argc] = NULL;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	snprintf(fdbuf, sizeof(fdbuf), "%d", p[1]);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		fcntl(p[1], F_SETFD, 0);	/* the ready fd crosses exec */
		if (opt->quiet) {
			int null = open("/dev/null", O_WRONLY);

			if (null >= 0)
				dup2(null, 2);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "nb_emu_start: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	emu->pid = pid;
	pid_saved = pid;

	/* "ready" once the host has configured the device; EOF if it died */
	r = read_exact(p[0], buf, 6, opt->timeout_ms ?: 10000);
	close(p[0]);
	if (!r && strncmp(buf, "ready\n", 6))
		r = -EPROTO;
	if (r == -ECONNRESET) {
		waitpid(pid, &status, 0);
		emu->pid = 0;
		return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT : -ECHILD;
	}
	if (!r) {
		r = nb_emu_attach(emu, opt->socket ?: NB_EMU_SOCKET);
		emu->pid = pid_saved;
	}
	if (!r && !opt->no_wait_host)
		r = nb_gadget_wait_host_device(0xffff, emu->product,
					       opt->timeout_ms ?: 10000,
					       emu->host_dev, sizeof(emu->host_dev));
	if (r) {
		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
		if (emu->fd >= 0)
			close(emu->fd);
		emu->fd = -1;
		emu->pid = 0;
	}
	return r;
}

int nb_emu_stop(struct nb_emu *emu)
{
	int status = 0, r = 0;

	if (emu->fd >= 0) {
		r = nb_emu_cmd(emu, NULL, 0, "quit");
		close(emu->fd);
		emu->fd = -1;
	}
	if (emu->pid > 0) {
		uint64_t end = now_ms() + 5000;
		const struct timespec t = { 0, 10000000 };

		while (waitpid(emu->pid, &status, WNOHANG) == 0) {
			if (now_ms() > end) {
				kill(emu->pid, SIGKILL);
				waitpid(emu->pid, &status, 0);
				r = -ETIMEDOUT;
				break;
			}
			nanosleep(&t, NULL);
		}
		if (!r && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			r = -ECHILD;
		emu->pid = 0;
	}
	return r;
}

int nb_emu_set(struct nb_emu *emu, const char *field, unsigned int index, int32_t value)
{
	return nb_emu_cmd(emu, NULL, 0, "set %s %u %" PRId32, field, index, value);
}

int nb_emu_get(struct nb_emu *emu, const char *field, unsigned int index, int32_t *value)
{
	char reply[64];
	int r = nb_emu_cmd(emu, reply, sizeof(reply), "get %s %u", field, index);

	if (!r)
		*value = (int32_t)strtol(reply, NULL, 0);
	return r;
}

int nb_emu_wave(struct nb_emu *emu, const char *field, unsigned int index,
		const char *shape, int32_t amplitude, uint32_t period)
{
	return nb_emu_cmd(emu, NULL, 0, "wave %s %u %s %" PRId32 " %" PRIu32, field,
			  index, shape, amplitude, period);
}

int nb_emu_touch(struct nb_emu *emu, unsigned int bit, uint64_t start, uint32_t cycles)
{
	return nb_emu_cmd(emu, NULL, 0, "touch %u %" PRIu64 " %" PRIu32, bit, start, cycles);
}

int nb_emu_drain(struct nb_emu *emu, uint32_t per_kcycle)
{
	return nb_emu_cmd(emu, NULL, 0, "drain %" PRIu32, per_kcycle);
}

int nb_emu_board_version(struct nb_emu *emu, int board, unsigned int version)
{
	if (board < 0)
		return nb_emu_cmd(emu, NULL, 0, "version all %u", version);
	return nb_emu_cmd(emu, NULL, 0, "version %d %u", board, version);
}

int nb_emu_misbehave(struct nb_emu *emu, unsigned int what, int cycles, int arg)
{
	const char *name = nb_emu_misb_name(what);

	if (!name || what == NB_EMU_MISB_NONE)
		return -EINVAL;
	return nb_emu_cmd(emu, NULL, 0, "misbehave %s %d %d", name, cycles, arg);
}

int nb_emu_frames(struct nb_emu *emu, uint64_t from, struct nb_emu_frame *out,
		  unsigned int max)
{
	char reply[64];
	unsigned int n, size;
	int r;

	r = nb_emu_cmd(emu, reply, sizeof(reply), "frames %" PRIu64 " %u", from, max);
	if (r)
		return r;
	if (sscanf(reply, "%u %u", &n, &size) != 2 || n > max)
		return -EPROTO;
	for (unsigned int i = 0; i < n; i++) {
		/* a newer emulator's records may be longer: keep our part */
		uint8_t skip[256];
		size_t mine = size < sizeof(out[i]) ? size : sizeof(out[i]);

		memset(&out[i], 0, sizeof(out[i]));
		r = read_exact(emu->fd, &out[i], mine, REPLY_TIMEOUT_MS);
		for (size_t left = size - mine; !r && left; ) {
			size_t k = left < sizeof(skip) ? left : sizeof(skip);

			r = read_exact(emu->fd, skip, k, REPLY_TIMEOUT_MS);
			left -= k;
		}
		if (r)
			return r;
	}
	return (int)n;
}

int nb_emu_wait_frames(struct nb_emu *emu, uint64_t frames, int timeout_ms)
{
	return cmd_timeout(emu, NULL, 0, timeout_ms + 5000, "wait %" PRIu64 " %d",
			   frames, timeout_ms);
}

int nb_emu_stats(struct nb_emu *emu, struct nb_emu_stats *st)
{
	static const struct { const char *name; size_t off; } keys[] = {
#define K(n) { #n, offsetof(struct nb_emu_stats, n) }
		K(frames), K(bad_frames), K(acks), K(ack_waits), K(ack_timeouts),
		K(ack_wait_max_us),
		K(answers), K(answers_read), K(answers_dropped),
		K(status_requests), K(start_requests), K(version_requests),
		K(stalls), K(misbehaviours), K(connects), K(enables),
		K(started_boards), K(cycle),
#undef K
	};
	char reply[1024], *save = NULL;
	int r;

	r = nb_emu_cmd(emu, reply, sizeof(reply), "stats");
	if (r)
		return r;
	memset(st, 0, sizeof(*st));
	for (char *t = strtok_r(reply, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');

		if (!eq)
			continue;
		*eq = '\0';
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strcmp(keys[k].name, t))
				*(uint64_t *)((char *)st + keys[k].off) =
					strtoull(eq + 1, NULL, 0);
	}
	return 0;
}

int nb_emu_reset(struct nb_emu *emu)
{
	return nb_emu_cmd(emu, NULL, 0, "reset");
}

int nb_emu_disconnect(struct nb_emu *emu)
{
	return nb_emu_cmd(emu, NULL, 0, "disconnect");
}

int nb_emu_connect(struct nb_emu *emu)
{
	return nb_emu_cmd(emu, NULL, 0, "connect");
}

int nb_emu_storm(struct nb_emu *emu, unsigned int count, unsigned int down_ms,
		 unsigned int up_ms)
{
	return nb_emu_cmd(emu, NULL, 0, "storm %u %u %u", count, down_ms, up_ms);
}
