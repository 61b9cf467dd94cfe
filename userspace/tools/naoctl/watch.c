// SPDX-License-Identifier: GPL-2.0-only
/* naoctl watch: the live body, in LoLA's units. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "naoctl.h"
#include "remote.h"

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	quit = sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char mark(float v)
{
	return v > 0.5f ? 'X' : '.';
}

static void show(const struct nb_device *d, const struct naobody_record *rec,
		 const struct nb_sensors *s, double period_ms)
{
	const float *t = s->touch;

	printf("cycle %llu   period %.1f ms   lost %llu   boards up %d%s%s%s%s\n",
	       (unsigned long long)rec->cycle, period_ms,
	       (unsigned long long)nb_lost(d), __builtin_popcountll(rec->boards_up),
	       rec->flags & NAOBODY_REC_STOPPED ? "   [STOPPED]" : "",
	       rec->flags & NAOBODY_REC_CONTROLLED ? "   [controlled]" : "",
	       rec->flags & NAOBODY_REC_RAMPING ? "   [ramping down]" : "",
	       rec->flags & NAOBODY_REC_NO_ANSWER ? "   [no answer]" : "");
	printf("imu      acc %7.2f %7.2f %7.2f m/s2   gyro %6.3f %6.3f %6.3f rad/s"
	       "   angles %6.3f %6.3f rad\n",
	       s->accelerometer[0], s->accelerometer[1], s->accelerometer[2],
	       s->gyroscope[0], s->gyroscope[1], s->gyroscope[2], s->angles[0], s->angles[1]);
	printf("battery  charge %3.0f %%   current %6.2f A   temperature %4.1f (LoLA)"
	       "   status 0x%04x%s\n", s->battery[0] * 100, s->battery[2], s->battery[3],
	       (unsigned int)(int)s->battery[1] & 0xffff,
	       ((int)s->battery[1] & 0x80) ? " charging" : "");
	printf("sonar    left %5.2f m   right %5.2f m\n", s->sonar[0], s->sonar[1]);
	printf("feet     left %5.1f kg cop %6.3f %6.3f m   right %5.1f kg cop %6.3f %6.3f m\n",
	       s->foot[0].weight, s->foot[0].cop[0], s->foot[0].cop[1],
	       s->foot[1].weight, s->foot[1].cop[0], s->foot[1].cop[1]);
	printf("touch    chest %c   head %c%c%c   l.foot %c%c   r.foot %c%c   l.hand %c%c%c"
	       "   r.hand %c%c%c\n", mark(t[0]), mark(t[1]), mark(t[2]), mark(t[3]),
	       mark(t[4]), mark(t[5]), mark(t[9]), mark(t[10]), mark(t[6]), mark(t[7]),
	       mark(t[8]), mark(t[11]), mark(t[12]), mark(t[13]));
	printf("\n%-15s %9s %9s %8s %6s %6s\n", "joint", "position", "stiffness",
	       "current", "temp", "status");
	for (unsigned int j = 0; j < NAOBODY_JOINTS; j++)
		printf("%-15s %9.3f %9.2f %8.3f %6.0f %6d\n", nb_joint_name(j), s->position[j],
		       s->stiffness[j], s->current[j], s->temperature[j], s->status[j]);
}

/* --host: the REST API's states (the robot API's State, SI units, 26 joints). */
struct remote_watch {
	bool tty;
	long count;
};

static int show_remote(const char *kind, json_t *s, void *ctx)
{
	struct remote_watch *w = ctx;
	json_t *imu = json_object_get(s, "imu"), *b = json_object_get(s, "battery");
	json_t *sonar = json_object_get(s, "sonar"), *t = json_object_get(s, "touch");
	static const char *const touches[] = { "chest_button", "head_front", "head_middle",
		"head_rear", "left_hand", "right_hand", "left_foot", "right_foot" };

	if (strcmp(kind, "state"))
		return 0;
	if (w->tty)
		printf("\033[H\033[J");
	printf("cycle %.0f   %s   %s   %s   %s%s\n", jnum(s, "cycle"), jstr(s, "primary_state"),
	       jstr(s, "fall_state"), jstr(s, "motion"),
	       json_is_true(json_object_get(s, "stopped")) ? "   [STOPPED]" : "",
	       json_is_true(json_object_get(s, "board_answering")) ? "" : "   [no answer]");
	printf("imu      acc %7.2f %7.2f %7.2f m/s2   gyro %6.3f %6.3f %6.3f rad/s"
	       "   roll %6.3f pitch %6.3f rad\n",
	       jidx(imu, "linear_acceleration", 0), jidx(imu, "linear_acceleration", 1),
	       jidx(imu, "linear_acceleration", 2), jidx(imu, "angular_velocity", 0),
	       jidx(imu, "angular_velocity", 1), jidx(imu, "angular_velocity", 2),
	       jidx(imu, "roll_pitch", 0), jidx(imu, "roll_pitch", 1));
	printf("battery  charge %3.0f %%   current %6.2f A   temperature %3.0f C%s\n",
	       jnum(b, "charge") * 100, jnum(b, "current"), jnum(b, "temperature"),
	       json_is_true(json_object_get(b, "charging")) ? "   charging" : "");
	printf("sonar    left %5.2f m   right %5.2f m\n", jnum(sonar, "left"), jnum(sonar, "right"));
	printf("feet     left %5.2f kg   right %5.2f kg\n",
	       jidx(s, "left_foot_pressure", 0) + jidx(s, "left_foot_pressure", 1) +
	       jidx(s, "left_foot_pressure", 2) + jidx(s, "left_foot_pressure", 3),
	       jidx(s, "right_foot_pressure", 0) + jidx(s, "right_foot_pressure", 1) +
	       jidx(s, "right_foot_pressure", 2) + jidx(s, "right_foot_pressure", 3));
	printf("touch   ");
	for (int i = 0; i < 8; i++)
		printf(" %s %c", touches[i], json_is_true(json_object_get(t, touches[i])) ? 'X' : '.');
	printf("\n\n%-20s %9s %9s %8s %6s\n", "joint", "position", "stiffness", "current", "temp");
	for (int j = 0; j < 26; j++)
		printf("%-20s %9.3f %9.2f %8.3f %6.0f\n", remote_joint_name(j),
		       jidx(s, "joint_positions", j), jidx(s, "joint_stiffness", j),
		       jidx(s, "joint_currents", j), jidx(s, "joint_temperatures", j));
	if (!w->tty)
		printf("\n");
	fflush(stdout);
	if (w->count > 0 && !--w->count)
		return 1;
	return quit ? 1 : 0;
}

int watch_main(int argc, char **argv)
{
	static const struct option longopts[] = { REMOTE_LONG_OPTIONS, { NULL, 0, NULL, 0 } };
	struct remote r = { 0 };
	bool remote = false;
	struct naobody_record rec, prev = { 0 };
	double rate = 10, last = 0;
	long count = -1;
	struct nb_device *d;
	struct nb_sensors s;
	int c, tty, ret;

	while ((c = getopt_long(argc, argv, "r:n:hH:", longopts, NULL)) != -1) {
		int taken = remote_option(&r, c, optarg, &remote);

		if (taken < 0)
			return 2;
		if (taken)
			continue;
		switch (c) {
		case 'r':
			rate = atof(optarg);
			if (rate <= 0 || rate > 100) {
				fprintf(stderr, "%s: rate '%s' is not in (0, 100] Hz\n",
					naoctl_prog, optarg);
				return 2;
			}
			break;
		case 'n':
			count = atol(optarg);
			if (count <= 0) {
				fprintf(stderr, "%s: count '%s' is not a positive number\n",
					naoctl_prog, optarg);
				return 2;
			}
			break;
		default:
			printf("Usage: %s watch [-r HZ] [-n COUNT] [--host HOST[:PORT]]\n\n"
			       "Shows the body's state in LoLA's units, refreshed HZ times a\n"
			       "second (default 10) until Ctrl-C, or COUNT times. With --host,\n"
			       "naobodyd's state over its REST API (the robot API's State: 26\n"
			       "joints, SI units), from anywhere on the robot's network.\n\n"
			       REMOTE_HELP, naoctl_prog);
			return c == 'h' ? 0 : 2;
		}
	}
	if (remote) {
		struct remote_watch w = { .tty = isatty(STDOUT_FILENO), .count = count };

		if (remote_ready(&r))
			return 1;
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		return remote_events(&r, rate, show_remote, &w) > 0 ? 0 : 1;
	}
	d = naoctl_open(0);
	if (!d)
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	tty = isatty(STDOUT_FILENO);
	while (!quit && count) {
		ret = nb_next(d, &rec, 1000);
		if (ret < 0) {
			nb_close(d);
			return naoctl_fail("watch", ret);
		}
		if (ret == 0) {
			fprintf(stderr, "%s: no record for 1 s; is the chest board answering?\n",
				naoctl_prog);
			continue;
		}
		if (now_s() - last < 1 / rate)
			continue;
		last = now_s();
		nb_record_sensors(d, &rec, &s);
		if (tty)
			printf("\033[H\033[J");
		show(d, &rec, &s, prev.cycle && rec.cycle > prev.cycle ?
		     (rec.in_complete_ns - prev.in_complete_ns) / 1e6 /
		     (double)(rec.cycle - prev.cycle) : nb_info(d)->period_ns / 1e6);
		if (!tty)
			printf("\n");
		fflush(stdout);
		prev = rec;
		if (count > 0)
			count--;
	}
	nb_close(d);
	return 0;
}
