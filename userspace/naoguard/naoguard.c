// SPDX-License-Identifier: GPL-2.0-only
/*
 * naoguard: the death switch's UDP stop, in a process of its own.
 *
 * It waits for a UDP datagram on port 7701 (every interface, IPv6 and IPv4,
 * broadcasts included) whose payload is
 *
 *	"NAOBODY STOP"			12 bytes, then optionally
 *	" " or "\n", and free text	who sent it and why; 256 bytes in all
 *
 * and calls NAOBODY_IOC_STOP (reason NAOBODY_STOP_GUARD) on the body's
 * device. The kernel then sends stiffness 0 from the next cycle on,
 * latched until a rearm. It answers the sender "NAOBODY STOPPED" or
 * "NAOBODY STOP FAILED <errno name>" (ENOENT...), but only when the answer
 * is no longer than the request: a forged sender cannot turn the port into
 * an amplifier (a bare 12-byte "NAOBODY STOP" stops, unanswered). Anything
 * else is ignored.
 *
 * naoguard --send HOST sends that datagram itself, padded to SEND_LEN
 * bytes so that every answer fits (three tries, a second apart), and
 * waits for the answer: the stop from an operator's machine.
 *
 * It shares nothing with naobodyd: it works when the daemon is stuck or
 * dead. It runs SCHED_FIFO with its memory locked when it may, and says so
 * when it may not. It keeps the device open, and opens it again when a
 * stop fails (the device went away and came back) or was never there.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include <linux/naobody.h>

#define STOP_MAGIC	"NAOBODY STOP"
#define STOP_MAGIC_LEN	12
#define STOP_MAX	256
#define SEND_LEN	64	/* --send's request: longer than any answer */
#define DEFAULT_PORT	7701
#define DEFAULT_DEVICE	"/dev/naobody"
#define DEFAULT_PRIO	50
#define LOG_PER_SEC	10

static unsigned int log_budget;
static time_t log_second;
static unsigned long suppressed;

/* At most LOG_PER_SEC lines a second: a flood of packets cannot flood the log. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (ts.tv_sec != log_second) {
		if (suppressed)
			fprintf(stderr, "naoguard: (%lu lines suppressed)\n", suppressed);
		log_second = ts.tv_sec;
		log_budget = LOG_PER_SEC;
		suppressed = 0;
	}
	if (!log_budget) {
		suppressed++;
		return;
	}
	log_budget--;
	va_start(ap, fmt);
	fputs("naoguard: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: naoguard [OPTION]...\n"
"       naoguard --send HOST [NOTE]\n"
"Listen for the UDP stop and latch the NAO's death switch (NAOBODY_IOC_STOP).\n"
"The stop is a datagram that starts with \"NAOBODY STOP\", e.g.\n"
"  printf 'NAOBODY STOP from the shell' | nc -u -w1 ROBOT %d\n"
"or, from any machine with naoguard, naoguard --send ROBOT.\n"
"See naoguard(8).\n"
"\n"
"  -s, --send HOST       send the stop to HOST and wait for its answer\n"
"  -p, --port PORT       UDP port (default %d)\n"
"  -b, --bind ADDRESS    listen on ADDRESS only (default: every interface)\n"
"  -d, --device PATH     the body's device (default %s)\n"
"  -r, --priority N      SCHED_FIFO priority, 1..99; 0 for none (default %d)\n"
"  -h, --help            show this help\n"
"  -V, --version         show the version\n",
		DEFAULT_PORT, DEFAULT_PORT, DEFAULT_DEVICE, DEFAULT_PRIO);
}

static int open_device(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

/* 0, or -errno from the last try. */
static int stop(const char *device, int *fd)
{
	struct naobody_stop st = { .reason = NAOBODY_STOP_GUARD };
	int err = 0;

	for (int attempt = 0; attempt < 2; attempt++) {
		if (*fd < 0) {
			*fd = open_device(device);
			if (*fd < 0) {
				err = -errno;
				continue;
			}
		}
		if (!ioctl(*fd, NAOBODY_IOC_STOP, &st))
			return 0;
		err = -errno;
		/* Perhaps a device that went away: open it again once. */
		close(*fd);
		*fd = -1;
	}
	return err;
}

static void realtime(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		say("warning: cannot lock memory (%s): running unlocked", strerror(errno));
	if (!prio) {
		say("no real-time priority (--priority 0)");
		return;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		say("warning: cannot get SCHED_FIFO priority %d (%s): running at normal priority",
		    prio, strerror(errno));
	else
		say("SCHED_FIFO priority %d", prio);
}

static int listen_udp(const char *bind_addr, unsigned int port)
{
	char portstr[8];
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV | AI_NUMERICHOST };
	struct addrinfo *res, *ai;
	int fd = -1, zero = 0;

	if (!bind_addr) {
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
					   .sin6_addr = IN6ADDR_ANY_INIT };
		struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port),
					  .sin_addr.s_addr = htonl(INADDR_ANY) };

		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (!bind(fd, (struct sockaddr *)&a6, sizeof(a6)))
				return fd;
			close(fd);
		}
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && !bind(fd, (struct sockaddr *)&a4, sizeof(a4)))
			return fd;
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(portstr, sizeof(portstr), "%u", port);
	if (getaddrinfo(bind_addr, portstr, &hints, &res)) {
		errno = EINVAL;
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd >= 0 && !bind(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

static void peer_name(const struct sockaddr_storage *sa, socklen_t len, char *out, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";

	getnameinfo((const struct sockaddr *)sa, len, host, sizeof(host), port, sizeof(port),
		    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(out, n, "%s port %s", strncmp(host, "::ffff:", 7) ? host : host + 7, port);
}

/* The text after the magic, printable characters only. */
static void note(const char *p, size_t len, char *out, size_t n)
{
	size_t i, j = 0;

	for (i = 0; i < len && j + 1 < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f)
			out[j++] = p[i];
		else if (p[i] == '\n' || p[i] == '\t')
			out[j++] = ' ';
	}
	while (j && out[j - 1] == ' ')
		j--;	/* --send's padding */
	out[j] = '\0';
}

static bool parse_uint(const char *s, unsigned int max, unsigned int *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || x > max)
		return false;
	*v = (unsigned int)x;
	return true;
}

/*
 * --send: the stop to host:port, up to three times a second apart, until
 * naoguard there answers. 0 once it says the stop is latched.
 */
static int send_stop(const char *host, unsigned int port, const char *text)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_NUMERICSERV };
	struct timeval wait = { .tv_sec = 1 };
	char portstr[8], msg[STOP_MAX + 1], reply[128];
	struct addrinfo *res;
	int fd, err;

	snprintf(portstr, sizeof(portstr), "%u", port);
	err = getaddrinfo(host, portstr, &hints, &res);
	if (err) {
		fprintf(stderr, "naoguard: %s: %s\n", host, gai_strerror(err));
		return 1;
	}
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait))) {
		fprintf(stderr, "naoguard: %s port %u: %s\n", host, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return 1;
	}
	freeaddrinfo(res);
	/* Padded with spaces: naoguard answers no more bytes than it got. */
	snprintf(msg, sizeof(msg), STOP_MAGIC " %-*s", SEND_LEN - STOP_MAGIC_LEN - 1,
		 text ? text : "from naoguard --send");
	for (int attempt = 0; attempt < 3; attempt++) {
		ssize_t n;

		if (send(fd, msg, strlen(msg), 0) < 0) {
			fprintf(stderr, "naoguard: send to %s: %s\n", host, strerror(errno));
			continue;
		}
		n = recv(fd, reply, sizeof(reply) - 1, 0);
		if (n < 0)
			continue;	/* no answer in a second: again */
		reply[n] = '\0';
		printf("%s: %s\n", host, reply);
		close(fd);
		return strcmp(reply, "NAOBODY STOPPED") ? 1 : 0;
	}
	close(fd);
	fprintf(stderr, "naoguard: %s port %u: no answer to three stops; is naoguard running "
		"there, and the port open?\n", host, port);
	return 1;
}

static const struct option options[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, 'b' },
	{ "device", required_argument, NULL, 'd' },
	{ "priority", required_argument, NULL, 'r' },
	{ "send", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	const char *device = DEFAULT_DEVICE, *bind_addr = NULL, *send_to = NULL;
	unsigned int port = DEFAULT_PORT, prio = DEFAULT_PRIO;
	int sock, dev, c;

	while ((c = getopt_long(argc, argv, "p:b:d:r:s:hV", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!parse_uint(optarg, 65535, &port) || !port) {
				fprintf(stderr, "naoguard: --port: expected 1..65535, got '%s'\n", optarg);
				return 2;
			}
			break;
		case 'b':
			bind_addr = optarg;
			break;
		case 'd':
			device = optarg;
			break;
		case 'r':
			if (!parse_uint(optarg, 99, &prio)) {
				fprintf(stderr, "naoguard: --priority: expected 0..99, got '%s'\n", optarg);
				return 2;
			}
			break;
		case 's':
			send_to = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("naoguard 0.1 (naobody ABI %d)\n", NAOBODY_ABI_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'naoguard --help'.\n");
			return 2;
		}
	}
	if (send_to) {
		if (optind + 1 < argc) {
			fprintf(stderr, "naoguard: --send takes one NOTE (quote it)\n");
			return 2;
		}
		return send_stop(send_to, port, optind < argc ? argv[optind] : NULL);
	}
	if (optind < argc) {
		fprintf(stderr, "naoguard: unexpected argument '%s'\nTry 'naoguard --help'.\n",
			argv[optind]);
		return 2;
	}

	sock = listen_udp(bind_addr, port);
	if (sock < 0) {
		fprintf(stderr, "naoguard: cannot listen on UDP %s port %u: %s\n",
			bind_addr ? bind_addr : "every interface", port, strerror(errno));
		return 1;
	}
	realtime((int)prio);
	dev = open_device(device);
	if (dev < 0)
		say("warning: cannot open %s (%s): will try again at each stop", device,
		    strerror(errno));
	say("listening on UDP %s port %u; stops go to %s",
	    bind_addr ? bind_addr : "every interface", port, device);
	sd_notify(0, "READY=1");	/* naoguard.service is Type=notify */

	for (;;) {
		char buf[STOP_MAX + 1], peer[80], text[72];
		const char *reply;
		struct sockaddr_storage sa;
		socklen_t salen = sizeof(sa);
		ssize_t n = recvfrom(sock, buf, sizeof(buf), 0, (struct sockaddr *)&sa, &salen);
		char failed[64];
		int err;

		if (n < 0) {
			if (errno != EINTR)
				say("recvfrom: %s", strerror(errno));
			continue;
		}
		peer_name(&sa, salen, peer, sizeof(peer));
		if (n < STOP_MAGIC_LEN || n > STOP_MAX || memcmp(buf, STOP_MAGIC, STOP_MAGIC_LEN) ||
		    (n > STOP_MAGIC_LEN && buf[STOP_MAGIC_LEN] != ' ' && buf[STOP_MAGIC_LEN] != '\n')) {
			say("ignored a %zd-byte datagram from %s: not a stop", n, peer);
			continue;
		}
		err = stop(device, &dev);
		note(buf + STOP_MAGIC_LEN, (size_t)n - STOP_MAGIC_LEN, text, sizeof(text));
		if (!err) {
			say("stop from %s%s%s: latched", peer, text[0] ? ":" : "", text);
			reply = "NAOBODY STOPPED";
		} else {
			say("error: stop from %s%s%s: %s: %s", peer, text[0] ? ":" : "", text, device,
			    strerror(-err));
			snprintf(failed, sizeof(failed), "NAOBODY STOP FAILED %s",
				 strerrorname_np(-err) ? strerrorname_np(-err) : "?");
			reply = failed;
		}
		/* Never more than was sent: no amplification for a forged sender. */
		if (strlen(reply) <= (size_t)n)
			sendto(sock, reply, strlen(reply), MSG_DONTWAIT, (struct sockaddr *)&sa,
			       salen);
	}
}
