// SPDX-License-Identifier: GPL-2.0-only
/*
 * parol6-emu: a PAROL6 control board on a pty, for testing parolctl and
 * libparol6 without the arm. Its parser is the firmware's Get_data(): three
 * 0xFF, a length it trusts, that many bytes, the end bytes 01 02 checked
 * last; a valid command gets one telemetry frame back. Length 0 wedges it,
 * as it wedges the firmware. The joints move as the firmware's main loop
 * moves them (main.cpp, loop()): it boots enabled; a jog runs each joint
 * at its commanded speed; a go-to sets, over and over between two packets,
 * the average of the commanded speed and the speed that would close the
 * error in 10 ms, so with speed 0 the error decays as e^(-t/20 ms), about
 * 39 % of it closed per 10 ms packet, and a target sent with a speed is
 * overshot; Idle sets each stepper's speed to the frame's without
 * stepping it, so the telemetry reports the commanded speeds while nothing
 * moves; every stepper is capped at 50000 microsteps/s. Homing takes a
 * while; Idle continues it, and a jog or go-to (or Disable, Enable, Clear
 * error) ends it. The E-stop can be pressed on cue.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <nbtool/options.h>
#include <nbtool/pty.h>

#define JOINTS 6

static const int32_t standby[JOINTS] = { 10240, -32000, 57905, 0, 0, 32000 };
static const int32_t lo[JOINTS] = { -14000, -51558, 34699, -7500, -6400, 0 };
static const int32_t hi[JOINTS] = { 14000, -1200, 92604, 7500, 6400, 64000 };

static struct nbtool_pty pty = { .fd = -1 };
static volatile sig_atomic_t stop;
static FILE *cmdlog, *tlog;
static bool verbose;
static unsigned long estop_after, estop_release_after, mute_after;
static unsigned long commands;
static int home_ticks = 30;
/* --home-hold: a homing counts no command until SIGUSR1 (for tests). */
static bool home_hold;
static volatile sig_atomic_t home_released;
static int grip_object_at = -1;	/* an object between the jaws at this position */

static struct {
	double pos[JOINTS];
	int32_t speed[JOINTS];	/* each stepper's speed (AccelStepper::speed()) */
	/*
	 * What the telemetry answering a packet reports: the positions and
	 * speeds the loop saved before the packet came (Pack_data() runs
	 * right after Unpack_data(), before the loop acts on the packet).
	 */
	int32_t tel_pos[JOINTS], tel_speed[JOINTS];
	bool running;		/* the loop steps them (jog, go-to) */
	int32_t goto_target[JOINTS], goto_speed[JOINTS];	/* the last 156 */
	bool enabled, estop, homing, wedged;
	uint8_t homed;		/* bit per joint, J1 = 0x80 */
	int homing_left;
	bool out1, out2;
	uint8_t last_command;
	double grip_pos;
	int16_t grip_current;
	bool grip_activated, grip_calibrated, grip_moving, grip_error;
	int grip_object;	/* 0 moving, 1 closing, 2 opening, 3 at position */
	int64_t last_us;
	uint16_t ticks;
} arm;

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static bool rx_waited;	/* the last byte came while we waited for it */
static bool pkt_waited;	/* ... the current packet's first byte did */

/*
 * What one read() took from the pty and rx() has not handed out yet. A
 * read per byte (two polls and a read, at SCHED_FIFO) kept the debug
 * tier's slow kernel busy at real-time priority until its RT throttling
 * (95 % of a second) stopped every real-time task for the rest.
 */
static uint8_t rx_buf[512];
static size_t rx_next, rx_end;

static int rx(void)
{
	struct pollfd p = { .fd = pty.fd, .events = POLLIN };
	struct timespec ts = { 0, 20000000 };
	ssize_t n;

	if (rx_next < rx_end) {
		rx_waited = false;	/* it was here before we asked */
		return rx_buf[rx_next++];
	}
	rx_waited = poll(&p, 1, 0) <= 0;
	while (!stop) {
		if (poll(&p, 1, 200) <= 0) {
			rx_waited = true;
			continue;
		}
		n = (p.revents & POLLIN) ? read(pty.fd, rx_buf, sizeof(rx_buf)) : -1;
		if (n > 0) {
			rx_next = 1;
			rx_end = (size_t)n;
			return rx_buf[0];
		}
		nanosleep(&ts, NULL);	/* no tool on the other side */
	}
	return -1;
}

static void tx(const uint8_t *p, size_t n)
{
	nbtool_pty_write(&pty, p, n, &stop);
}

static int32_t get24(const uint8_t *p)
{
	int32_t v = p[0] << 16 | p[1] << 8 | p[2];

	return v & 0x800000 ? v - 0x1000000 : v;
}

static void put24(uint8_t *p, int32_t v)
{
	p[0] = ((uint32_t)v >> 16) & 0xFF;
	p[1] = ((uint32_t)v >> 8) & 0xFF;
	p[2] = (uint32_t)v & 0xFF;
}

static void put16(uint8_t *p, int32_t v)
{
	p[0] = ((uint32_t)v >> 8) & 0xFF;
	p[1] = (uint32_t)v & 0xFF;
}

static double clampd(double v, double a, double b)
{
	return v < a ? a : v > b ? b : v;
}

/*
 * The SSG-48 gripper behind the board's CAN bus, as far as the telemetry
 * shows it. Its status byte is packed the way the gripper's firmware packs
 * it (Documentation/n_robot.rst, "Gripper object detection"): from the MSB
 * activated, action, object-detection bit 0, object-detection bit 1,
 * temperature error, timeout error, E-stop error, calibrated.
 */
static uint8_t gripper_status(void)
{
	return (arm.grip_activated ? 0x80 : 0) | (arm.grip_moving ? 0x40 : 0) |
	       (arm.grip_object & 1 ? 0x20 : 0) |
	       (arm.grip_object & 2 ? 0x10 : 0) |
	       (arm.grip_error ? 0x04 : 0) | (arm.grip_calibrated ? 0x01 : 0);
}

static void gripper(const uint8_t *d)
{
	double want = (int16_t)(d[40] << 8 | d[41]);
	double step = 1 + ((int16_t)(d[42] << 8 | d[43])) / 16.0;
	bool closing;

	arm.grip_activated = d[46] & 0x80;
	if (d[47] == 1) {		/* calibrate: fully open, then there */
		arm.grip_calibrated = true;
		arm.grip_pos = 0;
		arm.grip_object = 3;
	} else if (d[47] == 2) {	/* clear error */
		arm.grip_error = false;
	}
	want = clampd(want, 0, 255);
	if (!arm.grip_activated || !arm.grip_calibrated || !(d[46] & 0x40) ||
	    arm.grip_error) {
		arm.grip_moving = false;
		arm.grip_current = 0;
		return;
	}
	closing = want > arm.grip_pos;	/* 255 is closed */
	if (fabs(want - arm.grip_pos) <= step) {
		arm.grip_pos = want;
	} else {
		arm.grip_pos += closing ? step : -step;
	}
	arm.grip_moving = arm.grip_pos != want;
	arm.grip_object = arm.grip_moving ? 0 : 3;
	if (grip_object_at >= 0 && closing && arm.grip_pos >= grip_object_at) {
		arm.grip_pos = grip_object_at;
		arm.grip_moving = false;
		arm.grip_object = 1;
	}
	arm.grip_current = arm.grip_object == 1 ?
			   (int16_t)(d[44] << 8 | d[45]) : arm.grip_moving ? 100 : 0;
}

/*
 * The firmware's stepper rules, from the seed's command table
 * (Documentation/n_robot.rst, "The PAROL6 arm"): every joint is an
 * AccelStepper run at a constant speed between two packets, capped by
 * setMaxSpeed(50000); the speed is set when a packet arrives, and the
 * position the telemetry reports is where the stepper is at that moment.
 */
#define STEPPER_MAX_SPEED	50000.0	/* microsteps/s, every joint */
#define CYCLE_S			0.01	/* the firmware's idea of one cycle */

static double cap_speed(double v)
{
	return clampd(v, -STEPPER_MAX_SPEED, STEPPER_MAX_SPEED);
}

/*
 * Command 156's speed for joint j at position pos, as loop() sets it: the
 * error over 10 ms, truncated, averaged with the commanded speed, capped.
 */
static double goto_speed(int j, double pos)
{
	int32_t close = (int32_t)((arm.goto_target[j] - pos) / CYCLE_S);

	return cap_speed((double)((arm.goto_speed[j] + close) / 2));
}

/*
 * The steppers since the last packet, dt seconds: the firmware's loop runs
 * thousands of times a packet, so a go-to's speed follows its error all the
 * way. Within the cap that is exact: with e the error and v the commanded
 * speed, de/dt = -(v + e / 10 ms) / 2, so e + v x 10 ms decays as
 * e^(-t / 20 ms); at the cap the joint runs at the cap. Steps of 0.5 ms.
 */
#define GOTO_STEP_S	0.0005

static void run_steppers(double dt)
{
	double h, e, v, f;
	int j;

	for (j = 0; j < JOINTS && arm.running; j++) {
		if (arm.last_command != 156) {
			arm.pos[j] += arm.speed[j] * dt;
		} else {
			v = arm.goto_speed[j] * CYCLE_S;
			for (h = dt; h > 0; h -= GOTO_STEP_S) {
				f = h < GOTO_STEP_S ? h : GOTO_STEP_S;
				e = arm.goto_target[j] - arm.pos[j];
				if (fabs(arm.goto_speed[j] + e / CYCLE_S) / 2 <= STEPPER_MAX_SPEED)
					e = -v + (e + v) * exp(-f / (2 * CYCLE_S));
				else
					e -= goto_speed(j, arm.pos[j]) * f;
				arm.pos[j] = arm.goto_target[j] - e;
			}
			arm.speed[j] = (int32_t)goto_speed(j, arm.pos[j]);
		}
		/* the hard stops: a joint pushed past them stays there */
		if (arm.pos[j] < lo[j] - 1000.0 || arm.pos[j] > hi[j] + 1000.0) {
			arm.pos[j] = clampd(arm.pos[j], lo[j] - 1000.0,
					    hi[j] + 1000.0);
			arm.speed[j] = 0;
		}
	}
}

/*
 * When this packet reached the board. The firmware handles each packet as
 * it arrives; this process may have been descheduled while packets queued
 * on the pty, and the steppers must not run on at the old speed for that
 * time. Packets still queued behind this one came a cycle apart (the host
 * sends one per cycle), so this one came that many cycles ago. And if it
 * was waiting already when we looked, it came when the host's cycle says:
 * a cycle after the one before, not when we got round to it.
 */
static int64_t arrival_us(void)
{
	int64_t t = now_us(), cycle = (int64_t)(CYCLE_S * 1e6);
	int queued = 0;

	/* Queued: on the pty, and read from it but not served yet. */
	if (ioctl(pty.fd, FIONREAD, &queued) != 0 || queued < 0)
		queued = 0;
	queued += (int)(rx_end - rx_next);
	if (queued > 0)
		t -= (int64_t)(queued / 56) * cycle;
	if (!pkt_waited && arm.last_us && t > arm.last_us + cycle)
		t = arm.last_us + cycle;
	return t > arm.last_us ? t : arm.last_us;
}

/* Unpack_data() and the speeds it sets. d is the payload after the length. */
static void execute(const uint8_t *d)
{
	int64_t t = arrival_us();
	double dt = arm.last_us ? (t - arm.last_us) / 1e6 : 0;
	int32_t target[JOINTS], speed[JOINTS];
	uint8_t cmd = d[36];
	int j;

	run_steppers(dt);
	for (j = 0; j < JOINTS; j++) {
		arm.tel_pos[j] = (int32_t)lround(arm.pos[j]);
		arm.tel_speed[j] = arm.speed[j];
	}
	arm.ticks = (uint16_t)((t - arm.last_us) * 90 / 128);
	arm.last_us = t;
	commands++;
	for (j = 0; j < JOINTS; j++) {
		target[j] = get24(d + 3 * j);
		speed[j] = get24(d + 18 + 3 * j);
	}
	if (cmdlog) {
		/* the gripper's command, position, speed, current, mode */
		fprintf(cmdlog, "%lu grip=%u,%d,%d,%d,%u out=%d,%d cmd=%u speeds=",
			commands, d[46], (int16_t)(d[40] << 8 | d[41]),
			(int16_t)(d[42] << 8 | d[43]), (int16_t)(d[44] << 8 | d[45]),
			d[47], !!(d[38] & 0x20), !!(d[38] & 0x10), cmd);
		for (j = 0; j < JOINTS; j++)
			fprintf(cmdlog, "%d%s", speed[j], j < 5 ? "," : "\n");
		fflush(cmdlog);
	}
	if (estop_after && commands == estop_after)
		arm.estop = true;
	if (estop_release_after && commands == estop_release_after)
		arm.estop = false;
	if (arm.estop)
		arm.enabled = false;	/* the E-stop cuts motion (a model) */
	arm.last_command = cmd;
	arm.out1 = d[38] & 0x20;
	arm.out2 = d[38] & 0x10;
	gripper(d);
	switch (cmd) {
	case 101:			/* reset_homing(), home_command = 0 */
		if (!arm.estop)
			arm.enabled = true;
		arm.homing = false;
		break;
	case 102:
		arm.enabled = false;
		arm.homing = false;
		break;
	case 103:
		arm.homing = false;
		break;
	case 100:
		if (arm.enabled) {
			arm.homing = true;
			arm.homing_left = home_ticks;
			arm.homed = 0;
		}
		break;
	case 123:			/* a jog or go-to ends a homing */
	case 156:
		if (arm.enabled)
			arm.homing = false;
		break;
	default:
		break;
	}
	/*
	 * The speeds until the next packet. Idle sets each stepper's speed
	 * to the frame's, disabled or not, and steps none (outside a homing);
	 * a jog and a go-to step them when enabled; anything else leaves the
	 * speeds as they were and steps nothing.
	 */
	arm.running = arm.enabled && !arm.homing && (cmd == 123 || cmd == 156);
	for (j = 0; j < JOINTS; j++) {
		if (cmd == 255 && !arm.homing)
			arm.speed[j] = (int32_t)cap_speed(speed[j]);
		else if (arm.running && cmd == 123)
			arm.speed[j] = (int32_t)cap_speed(speed[j]);
		if (cmd == 156) {
			arm.goto_target[j] = target[j];
			arm.goto_speed[j] = speed[j];
			if (arm.running)
				arm.speed[j] = (int32_t)goto_speed(j, arm.pos[j]);
		}
		if (arm.homing)
			arm.speed[j] = 0;	/* the homing's own speeds: a model */
	}
	/* Idle (and anything else) continues a homing; only a disabled
	 * arm, or 101/102/103, a jog or a go-to stops it.
	 */
	if (arm.homing && arm.enabled && (!home_hold || home_released) &&
	    --arm.homing_left <= 0) {
		arm.homing = false;
		arm.homed = 0xFC;
		for (j = 0; j < JOINTS; j++)
			arm.tel_pos[j] = (int32_t)(arm.pos[j] = standby[j]);
	}
}

/* Pack_data() */
static void telemetry(void)
{
	uint8_t f[60], *d = f + 4;
	int j;

	memset(f, 0, sizeof(f));
	f[0] = f[1] = f[2] = 0xFF;
	f[3] = 56;
	for (j = 0; j < JOINTS; j++) {
		put24(d + 3 * j, arm.tel_pos[j]);
		put24(d + 18 + 3 * j, arm.tel_speed[j]);
	}
	d[36] = arm.homed | 0x03;
	d[37] = (arm.out1 ? 0x20 : 0) | (arm.out2 ? 0x10 : 0) |
		(arm.estop ? 0 : 0x08) | 0x07;
	d[38] = 0x03;
	d[39] = 0x03;
	put16(d + 40, arm.ticks);
	d[42] = 100;
	d[43] = arm.last_command;
	d[44] = 0;
	put16(d + 45, (int32_t)arm.grip_pos);
	put16(d + 47, 1);
	put16(d + 49, arm.grip_current);
	d[51] = gripper_status();
	d[52] = 1;
	d[53] = 0xD4;
	d[54] = 0x01;
	d[55] = 0x02;
	if (tlog) {
		fprintf(tlog, "%lu pos=", commands);
		for (j = 0; j < JOINTS; j++)
			fprintf(tlog, "%d%s", arm.tel_pos[j], j < 5 ? "," : " speed=");
		for (j = 0; j < JOINTS; j++)
			fprintf(tlog, "%d%s", arm.tel_speed[j], j < 5 ? "," : "");
		/* microseconds since the packet before (the timing field's) */
		fprintf(tlog, " dt=%.0f", arm.ticks * 128.0 / 90.0);
		fprintf(tlog, " homed=0x%02x grip=0x%02x gpos=%d out=%d,%d\n",
			arm.homed, gripper_status(), (int)arm.grip_pos,
			arm.out1, arm.out2);
		fflush(tlog);
	}
	tx(f, sizeof(f));
}

/* Get_data(), byte by byte, with its trust in the length byte. */
static void serve(void)
{
	uint8_t buf[256];
	int b, flags = 0, len = -1, n = 0;

	while (!stop) {
		b = rx();
		if (b < 0)
			break;
		if (len < 0) {
			if (flags == 0)
				pkt_waited = rx_waited;
			if (flags < 3) {
				flags = b == 0xFF ? flags + 1 : 0;
				continue;
			}
			len = b;
			n = 0;
			flags = 0;
			if (len == 0 && !arm.wedged) {
				arm.wedged = true;
				fprintf(stderr, "parol6-emu: length 0: the parser is wedged until reset (firmware bug)\n");
			}
			continue;
		}
		buf[n & 0xFF] = (uint8_t)b;	/* byte data_buffer[255] */
		if (n == len - 1) {
			if (len >= 2 && buf[len - 2] == 1 && buf[len - 1] == 2) {
				execute(buf);
				if (!(mute_after && commands > mute_after))
					telemetry();
			} else if (verbose) {
				fprintf(stderr, "parol6-emu: bad end bytes, dropped\n");
			}
			len = -1;
		}
		n = (n + 1) & 0xFF;
	}
}

static void release_homing(int sig)
{
	(void)sig;
	home_released = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: parol6-emu [OPTIONS]\n"
		"Emulate a PAROL6 control board on a pseudo-terminal. Prints the\n"
		"terminal's path, then serves until SIGINT/SIGTERM.\n\n"
		"  -l, --link PATH           also make PATH a symlink to the terminal\n"
		"  -o, --log FILE            log every command received (for tests)\n"
		"  -t, --telemetry-log FILE  log every telemetry frame sent: positions,\n"
		"                            speeds (microsteps, /s), homed, gripper\n"
		"  -g, --grip-object POS     an object stops the closing jaws at POS\n"
		"  -e, --estop-after N       press the E-stop at the Nth command\n"
		"  -r, --estop-release N     release it at the Nth command\n"
		"  -m, --mute-after N        stop answering after N commands (link loss)\n"
		"  -H, --home-ticks N        commands a homing takes (30)\n"
		"      --home-hold           a homing takes none until SIGUSR1 (a test's\n"
		"                            Ctrl-C then comes during it, however slow)\n"
		"  -v, --verbose             log dropped frames\n"
		"  -h, --help                this help\n"
		"      --version             the program's version\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "link", required_argument, NULL, 'l' },
		{ "log", required_argument, NULL, 'o' },
		{ "telemetry-log", required_argument, NULL, 't' },
		{ "grip-object", required_argument, NULL, 'g' },
		{ "estop-after", required_argument, NULL, 'e' },
		{ "estop-release", required_argument, NULL, 'r' },
		{ "mute-after", required_argument, NULL, 'm' },
		{ "home-ticks", required_argument, NULL, 'H' },
		{ "home-hold", no_argument, NULL, 'W' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct sched_param sp = { .sched_priority = 10 };
	const char *link = NULL;
	int c, j;

	while ((c = getopt_long(argc, argv, "l:o:t:g:e:r:m:H:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			link = optarg;
			break;
		case 'o':
			cmdlog = fopen(optarg, "w");
			if (!cmdlog) {
				fprintf(stderr, "parol6-emu: cannot write %s: %s\n",
					optarg, strerror(errno));
				return 1;
			}
			break;
		case 't':
			tlog = fopen(optarg, "w");
			if (!tlog) {
				fprintf(stderr, "parol6-emu: cannot write %s: %s\n",
					optarg, strerror(errno));
				return 1;
			}
			break;
		case 'g':
			grip_object_at = atoi(optarg);
			break;
		case 'e':
			estop_after = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			estop_release_after = strtoul(optarg, NULL, 10);
			break;
		case 'm':
			mute_after = strtoul(optarg, NULL, 10);
			break;
		case 'H':
			home_ticks = atoi(optarg);
			break;
		case 'W':
			home_hold = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			return nbtool_option("parol6-emu", usage, c);
		}
	}
	if (home_hold) {
		struct sigaction sa = { .sa_handler = release_homing, .sa_flags = SA_RESTART };

		sigaction(SIGUSR1, &sa, NULL);
	}
	for (j = 0; j < JOINTS; j++)
		arm.tel_pos[j] = (int32_t)(arm.pos[j] = standby[j]);
	arm.last_command = 255;
	arm.enabled = true;	/* structs.h: disabled = 0 */
	/* The board answers within its cycle; as parolctl does, run
	 * real-time if allowed so the machine's load stays out of the timing.
	 */
	sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
	if (nbtool_pty_open(&pty, "parol6-emu", link, &stop))
		return 1;
	serve();
	nbtool_pty_close(&pty);
	if (cmdlog)
		fclose(cmdlog);
	if (tlog)
		fclose(tlog);
	return 0;
}
