// SPDX-License-Identifier: GPL-2.0-only
/*
 * wake_walk: a robot API client in C with libnbclient (<naobody/client.h>).
 *
 *	wake-walk-c [HOST [PORT]]
 *
 * Wakes the robot, waits until it stands, walks 0.3 m forward reading State
 * on the way, then lets it rest. Try it on the simulated robot: naobodyd
 * --sim in another terminal. Prints one line per step; exit status 0 when
 * the robot did all of it, 1 (with the reason) when not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <naobody/client.h>

/* States until done(state); 0, or -1 after seconds or an error from the robot. */
static int until(struct nbc *c, struct nbc_state *s, int (*done)(const struct nbc_state *),
		 int seconds, const char *what)
{
	struct nbc_msg *m = malloc(sizeof(*m));
	int left = seconds * 1000, rc = -1;

	while (m && left > 0) {
		int kind = nbc_next(c, m, 100);

		left -= 100;	/* at most: a bound, not a clock */
		if (kind < 0) {
			fprintf(stderr, "wake_walk: the connection: %s\n", strerror(-kind));
			break;
		}
		if (kind == NBC_MSG_ERROR) {
			fprintf(stderr, "wake_walk: the robot said: %s (%s%s%s)\n", m->error.message,
				m->error.kind, m->error.reason[0] ? ", " : "", m->error.reason);
			break;
		}
		if (kind == NBC_MSG_FALL)
			printf("  event: fall state %s\n", m->fall_state);
		if (kind == NBC_MSG_STATE && done(&m->state)) {
			*s = m->state;
			rc = 0;
			break;
		}
	}
	if (rc && left <= 0)
		fprintf(stderr, "wake_walk: no %s within %d s\n", what, seconds);
	free(m);
	return rc;
}

static int standing(const struct nbc_state *s)
{
	return !strcmp(s->fall_state, "Upright") && !strcmp(s->motion, "Stand") &&
	       !strcmp(s->primary_state, "Initial");
}

static int walking(const struct nbc_state *s)
{
	return !strcmp(s->motion, "Walk");
}

static int arrived(const struct nbc_state *s)
{
	return !strcmp(s->motion, "Stand") && !strcmp(s->fall_state, "Upright");
}

static int limp(const struct nbc_state *s)
{
	return !strcmp(s->primary_state, "Unstiff");
}

int main(int argc, char **argv)
{
	const char *host = argc > 1 ? argv[1] : "localhost";
	uint16_t port = argc > 2 ? (uint16_t)atoi(argv[2]) : 0;
	struct nbc_state start, s;
	struct nbc *c;

	c = nbc_connect(host, port, "wake_walk_c", 0);
	if (!c) {
		fprintf(stderr, "wake_walk: cannot connect to %s: %s\n", host, nbc_connect_error());
		return 1;
	}
	printf("connected: body %s, %s\n", nbc_robot(c)->body_id,
	       nbc_robot(c)->simulated ? "simulated" : "real");
	if (nbc_subscribe(c, true, 0) || nbc_power(c, NBC_WAKE) ||
	    until(c, &start, standing, 60, "standing robot"))
		goto fail;
	printf("standing: knees %.2f %.2f rad, battery %.0f%%\n", start.joint_position[17],
	       start.joint_position[23], start.battery_charge * 100);
	if (nbc_walk_to(c, 0.3f, 0.0f, NBC_NORMAL) || until(c, &s, walking, 10, "walk"))
		goto fail;
	printf("walking\n");
	if (until(c, &s, arrived, 60, "arrival"))
		goto fail;
	if (start.has_odometry && s.has_odometry)
		printf("arrived: %.2f m forward by the odometry\n", s.odometry[0] - start.odometry[0]);
	else
		printf("arrived\n");
	if (nbc_power(c, NBC_REST) || until(c, &s, limp, 30, "limp robot"))
		goto fail;
	printf("resting: %s, done\n", s.fall_state);
	nbc_close(c);
	return 0;
fail:
	nbc_close(c);
	return 1;
}
