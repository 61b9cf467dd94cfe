// SPDX-License-Identifier: GPL-2.0-only
/*
 * LoLA's client. LoLA serves one client on /tmp/robocup: every 12 ms it
 * sends an 896-byte sensor packet and expects one command map back. naocap
 * logs each packet with the time it was read (CLOCK_REALTIME, usbmon's
 * clock) and answers every one, so LoLA sees a healthy client.
 *
 * What it sends, every cycle (the 11 keys RoboCup clients send, float32,
 * Sonar as booleans, as B-Human and HULKs do):
 *   Position   the positions LoLA just reported: a target where the joint
 *              already is, so nothing moves even if a stiffness applied;
 *   Stiffness  0 for every joint: the motors are off, a person may move
 *              the arms by hand;
 *   Chest, LFoot, RFoot  a slow colour sequence, known to the log, so
 *              verify can find the LED bytes in HAL's OUT frames;
 *   LEar, REar, LEye, REye, Skull  dark (head LEDs are not the chest
 *              board's);
 *   Sonar      both on.
 * The robot must sit or be held: with stiffness 0 it cannot stand.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "naocap.h"

#define LOLA_PACKET	896

uint64_t naocap_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool read_full(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	return true;
}

static void *run(void *arg)
{
	struct lola_client *l = arg;
	uint8_t in[LOLA_PACKET], out[LOLA_PACKET_MAX];
	struct lola_command c;
	struct lola_sensors s;
	unsigned long long k = 0;

	memset(&c, 0, sizeof(c));
	c.sonar[0] = c.sonar[1] = true;
	while (!atomic_load(&l->stop)) {
		uint64_t ts;
		size_t n;

		if (!read_full(l->fd, in, sizeof(in))) {
			if (!atomic_load(&l->stop))
				snprintf(l->err, sizeof(l->err), "LoLA closed the connection");
			break;
		}
		ts = naocap_now();
		lola_log_append(l->log, ts, 'S', in, sizeof(in));
		atomic_fetch_add(&l->packets, 1);
		if (lola_sensors_decode(in, sizeof(in), &s) || !(s.have & 1u << LOLA_K_POSITION)) {
			atomic_fetch_add(&l->errors, 1);
		} else {
			memcpy(c.position, s.position, sizeof(c.position));
		}
		memset(c.stiffness, 0, sizeof(c.stiffness));
		for (int i = 0; i < 3; i++) {
			c.chest[i] = (float)((k / 7 + (unsigned long long)i * 3) % 11) / 10.0f;
			c.lfoot[i] = (float)((k / 5 + (unsigned long long)i * 4) % 9) / 8.0f;
			c.rfoot[i] = (float)((k / 3 + (unsigned long long)i * 2) % 6) / 5.0f;
		}
		k++;
		n = lola_command_encode(&c, out, sizeof(out));
		/*
		 * lola_stop() shuts the socket down while this thread may be
		 * between a read and this send: without MSG_NOSIGNAL the send
		 * raises SIGPIPE, which ended naocap before it wrote its archive.
		 */
		if (!n || send(l->fd, out, n, MSG_NOSIGNAL) != (ssize_t)n) {
			if (!atomic_load(&l->stop))
				snprintf(l->err, sizeof(l->err), "cannot send LoLA its command: %s",
					 strerror(errno));
			break;
		}
		lola_log_append(l->log, naocap_now(), 'C', out, n);
		atomic_fetch_add(&l->commands, 1);
	}
	return NULL;
}

int lola_start(struct lola_client *l, const char *socket_path, const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	memset(l, 0, sizeof(*l));
	if (strlen(socket_path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", socket_path);
	l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l->fd < 0 || connect(l->fd, (struct sockaddr *)&a, sizeof(a))) {
		snprintf(l->err, sizeof(l->err), "%s: %s (is LoLA running, and no other client on it?)",
			 socket_path, strerror(errno));
		if (l->fd >= 0)
			close(l->fd);
		return -ECONNREFUSED;
	}
	l->log = fopen(path, "wb");
	if (!l->log || lola_log_open(l->log)) {
		snprintf(l->err, sizeof(l->err), "%s: %s", path, strerror(errno));
		close(l->fd);
		return -EIO;
	}
	if (pthread_create(&l->thread, NULL, run, l)) {
		fclose(l->log);
		close(l->fd);
		return -EAGAIN;
	}
	return 0;
}

void lola_stop(struct lola_client *l)
{
	atomic_store(&l->stop, true);
	shutdown(l->fd, SHUT_RDWR);
	pthread_join(l->thread, NULL);
	close(l->fd);
	fclose(l->log);
}
