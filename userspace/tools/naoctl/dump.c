// SPDX-License-Identifier: GPL-2.0-only
/* naoctl dump: records as tab-separated lines, one per cycle, for scripts. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naoctl.h"
#include "remote.h"

static void header(void)
{
	static const char *const groups[] = { "position", "stiffness", "current",
					      "temperature", "status" };

	printf("cycle\tout_submit_ns\tin_complete_ns\tflags\terrors\tboards_up");
	printf("\tacc_x\tacc_y\tacc_z\tgyro_x\tgyro_y\tgyro_z\tangle_x\tangle_y");
	printf("\tcharge\tbattery_status\tbattery_current\tbattery_temperature");
	printf("\tsonar_left\tsonar_right");
	for (int i = 0; i < NAOBODY_FSRS; i++)
		printf("\tfsr%d", i);
	for (int i = 0; i < NAOBODY_TOUCHES; i++)
		printf("\t%s", nb_touch_name(i));
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (int j = 0; j < NAOBODY_JOINTS; j++)
			printf("\t%s.%s", nb_joint_name(j), groups[g]);
	printf("\n");
}

/*
 * --counts: the record's own fields, as the kernel published them, in the
 * order of struct naobody_record. examples/ prints the same columns from
 * the ring in other languages; their test compares them with this.
 */
static void counts_header(void)
{
	static const char *const groups[] = { "position", "current", "temperature",
					      "status" };

	printf("seq\tcycle\tout_submit_ns\tin_complete_ns\tflags\terrors\tboards_up");
	printf("\tacc_x\tacc_y\tacc_z\tgyro_x\tgyro_y\tgyro_z\tangle_x\tangle_y");
	printf("\tcharge\tbattery_status\tbattery_current\tbattery_temperature");
	for (int i = 0; i < NAOBODY_FSRS; i++)
		printf("\tfsr%d", i);
	printf("\tsonar_left\tsonar_right\ttouch\tupdated");
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (int j = 0; j < NAOBODY_JOINTS; j++)
			printf("\t%s.%s", nb_joint_name(j), groups[g]);
	printf("\n");
}

static void counts_row(const struct naobody_record *r)
{
	const struct naobody_sensors *s = &r->sensors;

	printf("%llu\t%llu\t%llu\t%llu\t0x%x\t0x%x\t0x%llx", (unsigned long long)r->seq,
	       (unsigned long long)r->cycle, (unsigned long long)r->out_submit_ns,
	       (unsigned long long)r->in_complete_ns, r->flags, r->errors,
	       (unsigned long long)r->boards_up);
	for (int i = 0; i < 3; i++)
		printf("\t%d", s->accelerometer[i]);
	for (int i = 0; i < 3; i++)
		printf("\t%d", s->gyroscope[i]);
	printf("\t%d\t%d\t%d\t%d\t%d\t%d", s->angles[0], s->angles[1], s->battery_charge,
	       s->battery_status, s->battery_current, s->battery_temperature);
	for (int i = 0; i < NAOBODY_FSRS; i++)
		printf("\t%d", s->fsr[i]);
	printf("\t%d\t%d\t0x%x\t0x%x", s->sonar[0], s->sonar[1], s->touch, s->updated);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		printf("\t%d", s->joint_position[j]);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		printf("\t%d", s->joint_current[j]);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		printf("\t%d", s->joint_temperature[j]);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		printf("\t%u", s->joint_status[j]);
	printf("\n");
}

static void row(const struct naobody_record *r, const struct nb_sensors *s)
{
	printf("%llu\t%llu\t%llu\t0x%x\t0x%x\t0x%llx", (unsigned long long)r->cycle,
	       (unsigned long long)r->out_submit_ns, (unsigned long long)r->in_complete_ns,
	       r->flags, r->errors, (unsigned long long)r->boards_up);
	for (int i = 0; i < 3; i++)
		printf("\t%g", s->accelerometer[i]);
	for (int i = 0; i < 3; i++)
		printf("\t%g", s->gyroscope[i]);
	printf("\t%g\t%g", s->angles[0], s->angles[1]);
	for (int i = 0; i < 4; i++)
		printf("\t%g", s->battery[i]);
	printf("\t%g\t%g", s->sonar[0], s->sonar[1]);
	for (int i = 0; i < NAOBODY_FSRS; i++)
		printf("\t%g", s->fsr[i]);
	for (int i = 0; i < NAOBODY_TOUCHES; i++)
		printf("\t%g", s->touch[i]);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		printf("\t%g", s->position[j]);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		printf("\t%g", s->stiffness[j]);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		printf("\t%g", s->current[j]);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		printf("\t%g", s->temperature[j]);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		printf("\t%d", s->status[j]);
	printf("\n");
}

/* --host: one tab-separated line per State of the REST API (SI units). */
static void remote_header(void)
{
	static const char *const groups[] = { "position", "stiffness", "current", "temperature" };

	printf("time\tcycle\tprimary_state\tfall_state\tmotion\tstopped");
	printf("\tacc_x\tacc_y\tacc_z\tgyro_x\tgyro_y\tgyro_z\troll\tpitch");
	printf("\tcharge\tbattery_current\tbattery_temperature\tsonar_left\tsonar_right");
	for (int i = 0; i < 4; i++)
		printf("\tfsr_left%d", i);
	for (int i = 0; i < 4; i++)
		printf("\tfsr_right%d", i);
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (int j = 0; j < 26; j++)
			printf("\t%s.%s", remote_joint_name(j), groups[g]);
	printf("\n");
}

static int remote_row(const char *kind, json_t *s, void *ctx)
{
	static const char *const arrays[] = { "joint_positions", "joint_stiffness",
					      "joint_currents", "joint_temperatures" };
	json_t *imu = json_object_get(s, "imu"), *b = json_object_get(s, "battery");
	long *count = ctx;

	if (strcmp(kind, "state"))
		return 0;
	printf("%.3f\t%.0f\t%s\t%s\t%s\t%d", jnum(s, "time"), jnum(s, "cycle"),
	       jstr(s, "primary_state"), jstr(s, "fall_state"), jstr(s, "motion"),
	       json_is_true(json_object_get(s, "stopped")));
	for (int i = 0; i < 3; i++)
		printf("\t%g", jidx(imu, "linear_acceleration", i));
	for (int i = 0; i < 3; i++)
		printf("\t%g", jidx(imu, "angular_velocity", i));
	printf("\t%g\t%g\t%g\t%g\t%g\t%g\t%g", jidx(imu, "roll_pitch", 0),
	       jidx(imu, "roll_pitch", 1), jnum(b, "charge"), jnum(b, "current"),
	       jnum(b, "temperature"), jnum(json_object_get(s, "sonar"), "left"),
	       jnum(json_object_get(s, "sonar"), "right"));
	for (int i = 0; i < 4; i++)
		printf("\t%g", jidx(s, "left_foot_pressure", i));
	for (int i = 0; i < 4; i++)
		printf("\t%g", jidx(s, "right_foot_pressure", i));
	for (size_t g = 0; g < sizeof(arrays) / sizeof(arrays[0]); g++)
		for (int j = 0; j < 26; j++)
			printf("\t%g", jidx(s, arrays[g], j));
	printf("\n");
	fflush(stdout);
	return *count > 0 && !--*count ? 1 : 0;
}

int dump_main(int argc, char **argv)
{
	static const struct option longopts[] = { REMOTE_LONG_OPTIONS,
		{ "rate", required_argument, NULL, 'r' }, { NULL, 0, NULL, 0 } };
	struct remote r = { 0 };
	bool remote = false;
	double rate = 10;
	struct naobody_record rec;
	struct nb_device *d;
	struct nb_sensors s;
	bool counts = false;
	long count = -1;
	int c, ret, status = 0;

	while ((c = getopt_long(argc, argv, "cn:hH:r:", longopts, NULL)) != -1) {
		int taken = remote_option(&r, c, optarg, &remote);

		if (taken < 0)
			return 2;
		if (taken)
			continue;
		if (c == 'r') {
			rate = atof(optarg);
			if (rate > 0 && rate <= 100)
				continue;
			fprintf(stderr, "%s: rate '%s' is not in (0, 100] Hz\n", naoctl_prog, optarg);
			return 2;
		}
		if (c == 'c') {
			counts = true;
			continue;
		}
		if (c == 'n') {
			count = atol(optarg);
			if (count > 0)
				continue;
			fprintf(stderr, "%s: count '%s' is not a positive number\n",
				naoctl_prog, optarg);
			return 2;
		}
		printf("Usage: %s dump [-c] [-n COUNT] [--host HOST[:PORT] [-r HZ]]\n\n"
		       "Prints every cycle's record as one tab-separated line in LoLA's\n"
		       "units, after a header line, until Ctrl-C or COUNT records.\n"
		       "-c prints the record's counts instead, as the kernel published\n"
		       "them, in the order of struct naobody_record.\n"
		       "Records the ring overwrote before they were read are skipped;\n"
		       "the cycle column shows the gap.\n"
		       "With --host, naobodyd's States over its REST API, HZ a second\n"
		       "(default 10): the robot API's fields, 26 joints, SI units.\n\n"
		       REMOTE_HELP, naoctl_prog);
		return c == 'h' ? 0 : 2;
	}
	if (remote) {
		if (counts) {
			fprintf(stderr, "%s: dump -c reads the ring's counts: not with --host\n",
				naoctl_prog);
			return 2;
		}
		if (remote_ready(&r))
			return 1;
		remote_header();
		return remote_events(&r, rate, remote_row, &count) > 0 ? 0 : 1;
	}
	d = naoctl_open(0);
	if (!d)
		return 1;
	if (counts)
		counts_header();
	else
		header();
	while (count) {
		ret = nb_next(d, &rec, 2000);
		if (ret <= 0) {
			status = naoctl_fail("dump", ret ? ret : -ETIMEDOUT);
			break;
		}
		if (counts) {
			counts_row(&rec);
		} else {
			memset(&s, 0, sizeof(s));
			nb_record_sensors(d, &rec, &s);
			row(&rec, &s);
		}
		if (count > 0)
			count--;
	}
	nb_close(d);
	return status;
}
