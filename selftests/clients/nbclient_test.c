// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbclient against a running naobodyd --sim (c_client_test.py starts it):
 *
 *	nbclient-test PORT
 *
 * Hello's robot, a decoded State, an unknown field's Error with its field,
 * a bad value's, the heartbeat keeping the watchdog quiet through a second
 * of nbc_next(), and Wake after Stop refused (Stopped). Prints one line per
 * check, "ok N" or "not ok N what", and exits 1 when any failed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <naobody/client.h>

static int n, failed;

static void ok(int cond, const char *what)
{
	n++;
	printf("%s %d %s\n", cond ? "ok" : "not ok", n, what);
	failed += !cond;
}

/* The next message of kind within ms; 0 when none came. */
static int expect(struct nbc *c, struct nbc_msg *m, int kind, int ms)
{
	for (; ms > 0; ms -= 50) {
		int k = nbc_next(c, m, 50);

		if (k < 0)
			return 0;
		if (k == kind)
			return 1;
		if (k == NBC_MSG_WATCHDOG && kind != NBC_MSG_WATCHDOG)
			return 0;
	}
	return 0;
}

/* {"Motion": {"WalkToward": {"x": 1.0, "y": 0.0, "theta": 0.5}}}, by hand. */
static const unsigned char unknown_field[] = {
	0x81, 0xa6, 'M', 'o', 't', 'i', 'o', 'n',
	0x81, 0xaa, 'W', 'a', 'l', 'k', 'T', 'o', 'w', 'a', 'r', 'd',
	0x83, 0xa1, 'x', 0x01, 0xa1, 'y', 0x00, 0xa5, 't', 'h', 'e', 't', 'a', 0xcb,
	0x3f, 0xe0, 0, 0, 0, 0, 0, 0,
};

/* {"Leds": {"chest": [256, 0, 0]}} */
static const unsigned char bad_value[] = {
	0x81, 0xa4, 'L', 'e', 'd', 's', 0x81, 0xa5, 'c', 'h', 'e', 's', 't',
	0x93, 0xcd, 0x01, 0x00, 0x00, 0x00,
};

int main(int argc, char **argv)
{
	struct nbc_msg *m = calloc(1, sizeof(*m));
	struct nbc *c;
	int quiet = 1;

	if (argc != 2 || !m)
		return 2;
	c = nbc_connect("127.0.0.1", (uint16_t)atoi(argv[1]), "nbclient-test", 0);
	if (!c) {
		printf("not ok 1 connect: %s (%s)\n", strerror(errno), nbc_connect_error());
		return 1;
	}
	ok(nbc_robot(c)->version == 1 && nbc_robot(c)->simulated &&
	   !strcmp(nbc_robot(c)->body_id, "SIMULATED-BODY-00001"), "Hello's robot");
	ok(!nbc_subscribe(c, true, 50) && expect(c, m, NBC_MSG_STATE, 3000), "a State");
	ok(!strcmp(m->state.fall_state, "Sitting") && !strcmp(m->state.primary_state, "Unstiff") &&
	   fabsf(m->state.linear_acceleration[2] + 9.81f) < 0.5f && m->state.battery_charge > 0.8f &&
	   m->state.joint_position[17] > 1.0f && m->state.time > 1.6e9, "State's fields");
	ok(!nbc_send_raw(c, unknown_field, sizeof(unknown_field)) &&
	   expect(c, m, NBC_MSG_ERROR, 3000) && !strcmp(m->error.kind, "UnknownField") &&
	   !strcmp(m->error.field, "Motion.WalkToward.theta") && !strcmp(m->error.command, "Motion"),
	   "an unknown field's Error");
	ok(!nbc_send_raw(c, bad_value, sizeof(bad_value)) && expect(c, m, NBC_MSG_ERROR, 3000) &&
	   !strcmp(m->error.kind, "BadValue") && !strcmp(m->error.field, "Leds.chest[0]") &&
	   strstr(m->error.message, "256"), "a bad value's Error");
	/* A second of nbc_next() only: the library's heartbeats keep the watchdog quiet. */
	for (int i = 0; i < 20; i++)
		if (nbc_next(c, m, 50) == NBC_MSG_WATCHDOG)
			quiet = 0;
	ok(quiet, "the heartbeat");
	ok(!nbc_stop(c) && !nbc_power(c, NBC_WAKE) && expect(c, m, NBC_MSG_ERROR, 3000) &&
	   !strcmp(m->error.kind, "Refused") && !strcmp(m->error.reason, "Stopped"),
	   "Wake after Stop: Refused, Stopped");
	ok(nbc_joint_name(17) && !strcmp(nbc_joint_name(17), "left_knee_pitch") &&
	   !nbc_joint_name(26) && !strcmp(nbc_touch_name(1), "head_front"), "the names");
	nbc_close(c);
	free(m);
	return failed ? 1 : 0;
}
