// SPDX-License-Identifier: GPL-2.0-only
/*
 * parolctl: the PAROL6 arm from the shell. See parolctl.1.
 *
 * Whatever happens (the command ends, Ctrl-C, SIGTERM, the link is lost),
 * the last frame parolctl sends is Idle with every speed zero: the firmware
 * has no watchdog, and a jog would otherwise run on at its last speed.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <parol6/parol6.h>
#include <nbtool/serial.h>

#define EXIT_USAGE	NBTOOL_EXIT_USAGE
#define EXIT_LINK	3	/* the link was lost */
#define EXIT_REFUSED	4	/* the arm refused: E-stop, not homed... */

static volatile sig_atomic_t stop;	/* the signal that came, or 0 */
static bool dry_run;
static double duration = 1.0;		/* jog, s */
static double speed_dps = 10.0;		/* move, deg/s */
static double accel_dps2 = 40.0;	/* move, deg/s^2 */
static double timeout_s = 60.0;		/* home, move */
static int link_timeout_ms = 200;

/* An interrupted command's exit status, as a shell gives it: 128 + signal. */
static int interrupted(void)
{
	return 128 + stop;
}

/*
 * Progress for the long commands (home, move): one line on stderr, redrawn
 * at most twice a second, and only on a terminal; cleared before the
 * result is printed.
 */
static bool progress_on;
static double progress_last;

static double now_s(void);

static void progress(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
	va_list ap;
	double t = now_s();

	if (!progress_on || t - progress_last < 0.5)
		return;
	progress_last = t;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

static void progress_done(void)
{
	if (progress_on && progress_last > 0) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	progress_last = 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: parolctl [OPTIONS] COMMAND [ARGS]\n"
		"Drive a PAROL6 arm through its control board.\n\n"
		"Commands:\n"
		"  status                 one telemetry frame, decoded\n"
		"  enable | disable       enable or disable motion\n"
		"  clear-error            reset the homing state\n"
		"  home                   home all joints, wait until homed\n"
		"  jog JOINT DEG/S        jog joint 1-6 for --for seconds\n"
		"  move J1 .. J6          go to these joint angles (degrees)\n"
		"  live                   telemetry as it comes, until Ctrl-C\n"
		"  gripper activate | calibrate | clear-error\n"
		"  gripper move POS [SPEED [CURRENT]]\n"
		"                         POS 0-255, SPEED 0-255 (100), CURRENT mA\n"
		"                         (500); waits for its object detection\n"
		"  out 1|2 on|off         set an output (it stays set)\n"
		"  wait SECONDS           hold still (in a program)\n"
		"  run FILE               a program: one command a line, '#'\n"
		"                         comments; all checked before it starts\n"
		"  attach                 hold the line discipline attached until\n"
		"                         Ctrl-C or a hang-up, so other runs share it\n\n"
		"Options:\n"
		"  -d, --device PATH      the board ($PAROL6_DEVICE, /dev/ttyACM0)\n"
		"  -L, --ldisc MODE       auto (default), yes (the n_robot line\n"
		"                         discipline or fail), no (userspace framing)\n"
		"  -n, --dry-run          print the frames in hex; open nothing\n"
		"  -f, --for SECONDS      how long to jog (1)\n"
		"  -s, --speed DEG/S      move speed (10)\n"
		"  -a, --accel DEG/S2     move acceleration and braking (40)\n"
		"  -T, --timeout SECONDS  give up home or move after (60)\n"
		"  -l, --link-timeout MS  no telemetry for this long = link lost (200)\n"
		"  -h, --help             this help\n"
		"      --version          the program's version\n\n"
		"On exit, Ctrl-C or a lost link parolctl sends Idle with zero speed.\n"
		"Exit status: 0 ok, 1 error, 2 usage, 3 link lost, 4 refused by the arm,\n"
		"128 + N when signal N ended a command (130: Ctrl-C).\n");
}

static void hexdump(void *ctx, const uint8_t *f, size_t len)
{
	size_t i;

	if (!dry_run)
		return;
	for (i = 0; i < len; i++)
		printf("%02x%s", f[i], i + 1 < len ? " " : "\n");
	fflush(stdout);
}

/* parolctl's own hints; the link's are libnbtool's. */
static const char *hint(const char *what, int err)
{
	switch (-err) {
	case ETIMEDOUT:
	case ENOLINK:
		return " (no telemetry: is the board powered and running its firmware?)";
	case ERANGE:
		return " (outside the joint's limits: see parolctl(1))";
	}
	return NULL;
}

static struct nbtool_serial tool = {
	.prog = "parolctl",
	.robot = "the board",
	.usage = usage,
	.hint = hint,
};

static void explain(const char *what, int err)
{
	nbtool_serial_explain(&tool, what, err);
}

static void print_telemetry(const struct parol6_telemetry *t)
{
	int j;

	printf("joint   position(deg)  speed(deg/s)  homed  temp-err  pos-err\n");
	for (j = 0; j < PAROL6_JOINTS; j++)
		printf("J%d      %12.3f  %12.3f  %-5s  %-8s  %s\n", j + 1,
		       parol6_steps_to_deg(j, t->position[j]),
		       parol6_steps_to_deg(j, t->speed[j]),
		       t->homed[j] ? "yes" : "no",
		       t->temperature_error[j] ? "yes" : "no",
		       t->position_error[j] ? "yes" : "no");
	printf("estop: %s\n", t->estop_pressed ? "PRESSED" : "released");
	printf("inputs: in1=%d in2=%d outputs: out1=%d out2=%d\n", t->in1,
	       t->in2, t->out1, t->out2);
	printf("last command: %s (%u)\n", parol6_command_name(t->last_command),
	       t->last_command);
	printf("timing: %.0f us between commands\n", t->timing_us);
	printf("gripper: id %u position %d current %d mA status 0x%02x%s%s%s object %u\n",
	       t->grip_id, t->grip_position, t->grip_current, t->grip_status,
	       t->grip_activated ? " activated" : "",
	       t->grip_moving ? " moving" : "",
	       t->grip_calibrated ? " calibrated" : "", t->grip_object);
}

/* ---- the loop's ticks ------------------------------------------------------ */

struct job {
	struct parol6 *p;
	int kind;		/* 0 idle, 'e' enable, 'd' disable, ... */
	int ticks;		/* done so far */
	int max_ticks;
	int joint;
	int32_t jog_speed;
	int32_t target[PAROL6_JOINTS];
	struct parol6_move move;
	bool planned;
	double move_start;	/* s, CLOCK_MONOTONIC */
	int aborting;		/* ticks spent ending a homing */
	int value;		/* out: on or off */
	int grip;		/* gripper: 'a'ctivate, 'm'ove, 'c'alibrate, 'x' clear */
	int16_t grip_position, grip_speed, grip_current;
	uint64_t rx0;		/* telemetry frames before the job's first */
	int result;		/* EXIT_* for main */
	int64_t start_ms;
	bool live;
};

/* Idle continues a homing: end it as libparol6 says (parol6_abort_homing). */
static int abort_homing(struct job *job, struct parol6_cmd *next)
{
	return parol6_abort_homing(++job->aborting, next);
}

/* Finer than nr_now_ms(): a millisecond is a tenth of a cycle. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int move_tick(struct job *job, const struct parol6_telemetry *t,
		     struct parol6_cmd *next)
{
	char why[160];
	double since;

	if (!t)
		return 0;		/* Idle until we know where we are */
	if (!job->planned) {
		if (parol6_plan_move(&job->move, t->position, job->target,
				     speed_dps, accel_dps2)) {
			fprintf(stderr, "parolctl: move: --speed and --accel must be positive\n");
			job->result = EXIT_USAGE;
			return 1;
		}
		if (parol6_check_plan(&job->move, speed_dps, timeout_s, why,
				      sizeof(why))) {
			fprintf(stderr, "parolctl: move: %s (--timeout): refused\n",
				why);
			job->result = EXIT_USAGE;
			return 1;
		}
		job->planned = true;
		job->move_start = now_s();
	}
	since = now_s() - job->move_start;
	if (since >= job->move.duration && parol6_move_arrived(&job->move, t)) {
		progress_done();
		printf("move: there in %.2f s (every joint within %d steps, at rest)\n",
		       since, PAROL6_ARRIVED_STEPS);
		return 1;
	}
	progress("move: %.1f of %.1f s, %.0f%% of %.1f deg", since,
		 job->move.duration, job->move.duration > 0 ?
		 100.0 * (since < job->move.duration ? since : job->move.duration) /
		 job->move.duration : 100.0, job->move.distance);
	next->command = PAROL6_GOTO;
	parol6_move_setpoint(&job->move, since, 1.0 / PAROL6_HZ,
			     next->position, next->speed);
	return 0;
}

/*
 * The gripper, through the board: the board sends it a move over CAN
 * whenever the gripper's fields change, a calibrate for every frame with
 * mode 1, a clearing for every frame with mode 2, a status poll
 * otherwise. So the mode goes out in one frame (one calibrate, as the
 * commander sends it), with the fields the board keeps (the setpoints
 * and the activate bit, p->held); a move sets those, and later frames
 * carry them on. Done when the status byte says so.
 */
static int gripper_tick(struct job *job, const struct parol6_telemetry *t,
			struct parol6_cmd *next)
{
	static const char *const object[4] = {
		"moving", "object detected while closing",
		"object detected while opening", "at position",
	};
	/* telemetry answering a frame sent after the job's first */
	bool answered = job->rx0 && job->p->received > job->rx0;

	switch (job->grip) {
	case 'a':
		next->grip_command |= PAROL6_GRIP_ACTIVATE;
		if (job->ticks > 3 && ((t && t->grip_activated) || dry_run))
			return 1;
		break;
	case 'c':
	case 'x':
		if (!job->rx0) {
			job->rx0 = job->p->received + 1;
			next->grip_mode = job->grip == 'c' ? 1 : 2;
			if (job->grip == 'c')
				next->grip_command |= PAROL6_GRIP_ACTIVATE;
		}
		if (dry_run && job->ticks > 3)
			return 1;
		if (answered && (job->grip == 'x' || (t && t->grip_calibrated)))
			return 1;
		break;
	case 'm':
		/* only telemetry answering our move frames tells */
		if (!job->rx0)
			job->rx0 = job->p->received + 1;
		next->grip_command = PAROL6_GRIP_ACTIVATE | PAROL6_GRIP_ACTION;
		next->grip_position = job->grip_position;
		next->grip_speed = job->grip_speed;
		next->grip_current = job->grip_current;
		if (dry_run && job->ticks > 3)
			return 1;
		if (job->p->received > job->rx0 + 3 && t && !t->grip_moving &&
		    t->grip_object) {
			printf("gripper: %s, position %d, %d mA\n",
			       object[t->grip_object & 3], t->grip_position,
			       t->grip_current);
			return 1;
		}
		break;
	}
	return 0;
}

static int grip_arg(const char *s, int lo, int hi, int16_t *v)
{
	char *end;
	long x = strtol(s, &end, 10);

	if (end == s || *end || x < lo || x > hi)
		return -1;
	*v = (int16_t)x;
	return 0;
}

static int parse_gripper(struct job *job, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";

	job->kind = 'g';
	job->max_ticks = (int)(timeout_s * PAROL6_HZ);
	if (!strcmp(sub, "activate") && argc == 2) {
		job->grip = 'a';
	} else if (!strcmp(sub, "calibrate") && argc == 2) {
		job->grip = 'c';
	} else if (!strcmp(sub, "clear-error") && argc == 2) {
		job->grip = 'x';
	} else if (!strcmp(sub, "move") && argc >= 3 && argc <= 5) {
		job->grip = 'm';
		job->grip_speed = 100;
		job->grip_current = 500;
		if (grip_arg(argv[2], 0, 255, &job->grip_position) ||
		    (argc > 3 && grip_arg(argv[3], 0, 255, &job->grip_speed)) ||
		    (argc > 4 && grip_arg(argv[4], 100, 1000, &job->grip_current))) {
			fprintf(stderr, "parolctl: gripper move: POS 0-255 [SPEED 0-255 [CURRENT 100-1000 mA]]\n");
			return EXIT_USAGE;
		}
	} else {
		fprintf(stderr, "parolctl: gripper: activate, move POS [SPEED [CURRENT]], calibrate or clear-error\n");
		return EXIT_USAGE;
	}
	return 0;
}

static int tick(void *ctx, const struct parol6_telemetry *t,
		struct parol6_cmd *next)
{
	struct job *job = ctx;
	int j, done;

	parol6_idle_cmd(job->p, next);
	/* Ticks of wall-clock time: a stalled loop still jogs for --for. */
	if (!job->start_ms)
		job->start_ms = nr_now_ms();
	job->ticks = (int)((nr_now_ms() - job->start_ms) * PAROL6_HZ / 1000) + 1;
	if (job->kind == 'h' && (stop || job->aborting))
		return abort_homing(job, next);
	if (job->ticks > job->max_ticks) {
		if (job->kind == 'h') {
			fprintf(stderr, "parolctl: gave up after %.0f s; ending the homing\n",
				timeout_s);
			job->result = 1;
			return abort_homing(job, next);
		}
		if (job->kind == 'm' || job->kind == 'g') {
			progress_done();
			fprintf(stderr, "parolctl: gave up after %.0f s%s\n", timeout_s,
				job->kind == 'g' ? ": the gripper did not get there" : "");
			job->result = 1;
		}
		return 1;
	}
	if (t && t->estop_pressed && job->kind != 0 && job->kind != 's') {
		fprintf(stderr, "parolctl: the E-stop is pressed: release it, then 'parolctl enable'\n");
		job->result = EXIT_REFUSED;
		return 1;
	}
	switch (job->kind) {
	case 's':			/* status: one exchange is enough */
		if (t && job->ticks > 2)
			return 1;
		break;
	case 'e':
	case 'd':
	case 'c':
		if (job->ticks <= 3) {
			next->command = job->kind == 'e' ? PAROL6_ENABLE :
					job->kind == 'd' ? PAROL6_DISABLE :
					PAROL6_CLEAR_ERROR;
		} else if (t || dry_run) {
			return 1;
		}
		break;
	case 'h':
		if (job->ticks <= 3) {
			next->command = PAROL6_HOME;
			break;
		}
		/* Idle continues a homing in progress. */
		if (t) {
			char homed[32] = "";

			for (j = 0, done = 1; j < PAROL6_JOINTS; j++) {
				done &= t->homed[j];
				if (t->homed[j])
					snprintf(homed + strlen(homed),
						 sizeof(homed) - strlen(homed),
						 " J%d", j + 1);
			}
			if (done && t->last_command == PAROL6_IDLE) {
				progress_done();
				printf("home: homed in %.1f s\n",
				       (nr_now_ms() - job->start_ms) / 1000.0);
				return 1;
			}
			progress("home: %.1f s, homed:%s", (nr_now_ms() - job->start_ms) / 1000.0,
				 *homed ? homed : " none yet");
		}
		break;
	case 'j':
		if (t && parol6_jog_at_limit(job->joint, t, job->jog_speed)) {
			fprintf(stderr, "parolctl: J%d is at its limit: stopped\n",
				job->joint + 1);
			return 1;
		}
		next->command = PAROL6_JOG;
		next->speed[job->joint] = job->jog_speed;
		break;
	case 'm':
		return move_tick(job, t, next);
	case 'o':
		if (job->joint == 0)
			next->out1 = job->value;
		else
			next->out2 = job->value;
		if (job->ticks > 3 && t &&
		    (job->joint == 0 ? t->out1 : t->out2) == job->value)
			return 1;
		if (dry_run && job->ticks > 3)
			return 1;
		break;
	case 'g':
		return gripper_tick(job, t, next);
	case 'w':
		break;			/* Idle until max_ticks */
	default:			/* live */
		if (t && job->ticks % 10 == 0) {
			printf("\033[H\033[2J");
			print_telemetry(t);
			fflush(stdout);
		}
		break;
	}
	return 0;
}

static int parse_joint(const char *s)
{
	int j = atoi(s);

	return j >= 1 && j <= PAROL6_JOINTS ? j - 1 : -1;
}

/*
 * A command (argv[0]) and its arguments into a job: 0, or the exit status
 * for a bad one. Everything is checked here, before anything is sent; the
 * program runner checks a whole file this way before its first frame.
 */
static int parse_job(struct job *job, int argc, char **argv)
{
	const char *cmd = argv[0];
	double deg[PAROL6_JOINTS];
	char why[160];
	int j;

	job->max_ticks = 10 * PAROL6_HZ;
	if (!strcmp(cmd, "status")) {
		job->kind = 's';
		job->max_ticks = 50;
	} else if (!strcmp(cmd, "enable")) {
		job->kind = 'e';
	} else if (!strcmp(cmd, "disable")) {
		job->kind = 'd';
	} else if (!strcmp(cmd, "clear-error")) {
		job->kind = 'c';
	} else if (!strcmp(cmd, "home")) {
		job->kind = 'h';
		job->max_ticks = (int)(timeout_s * PAROL6_HZ);
	} else if (!strcmp(cmd, "jog")) {
		if (argc != 3 || (job->joint = parse_joint(argv[1])) < 0) {
			fprintf(stderr, "parolctl: jog: expected JOINT (1-6) and DEG/S\n");
			return EXIT_USAGE;
		}
		if (parol6_check_jog(job->joint, atof(argv[2]), &job->jog_speed,
				     why, sizeof(why))) {
			fprintf(stderr, "parolctl: jog: %s\n", why);
			return EXIT_USAGE;
		}
		job->kind = 'j';
		job->max_ticks = (int)(duration * PAROL6_HZ);
	} else if (!strcmp(cmd, "move")) {
		if (argc != 1 + PAROL6_JOINTS) {
			fprintf(stderr, "parolctl: move: expected six angles in degrees\n");
			return EXIT_USAGE;
		}
		for (j = 0; j < PAROL6_JOINTS; j++) {
			char *end;

			deg[j] = strtod(argv[1 + j], &end);
			if (end == argv[1 + j] || *end) {
				fprintf(stderr, "parolctl: move: '%s' is not a number\n",
					argv[1 + j]);
				return EXIT_USAGE;
			}
		}
		if (parol6_check_move(deg, speed_dps, accel_dps2, job->target,
				      why, sizeof(why))) {
			fprintf(stderr, "parolctl: move: %s: refused\n",
				why);
			return EXIT_USAGE;
		}
		job->kind = 'm';
		job->max_ticks = (int)(timeout_s * PAROL6_HZ);
	} else if (!strcmp(cmd, "live")) {
		job->kind = 0;
		job->max_ticks = dry_run ? 10 : 0x7fffffff;
	} else if (!strcmp(cmd, "gripper")) {
		return parse_gripper(job, argc, argv);
	} else if (!strcmp(cmd, "out")) {
		if (argc != 3 || (strcmp(argv[1], "1") && strcmp(argv[1], "2")) ||
		    (strcmp(argv[2], "on") && strcmp(argv[2], "off"))) {
			fprintf(stderr, "parolctl: out: expected 1|2 and on|off\n");
			return EXIT_USAGE;
		}
		job->kind = 'o';
		job->joint = argv[1][0] - '1';
		job->value = !strcmp(argv[2], "on");
	} else if (!strcmp(cmd, "wait")) {
		char *end;
		double s = argc == 2 ? strtod(argv[1], &end) : -1;

		if (argc != 2 || end == argv[1] || *end || !(s >= 0) || s > 3600) {
			fprintf(stderr, "parolctl: wait: expected SECONDS (0..3600)\n");
			return EXIT_USAGE;
		}
		job->kind = 'w';
		job->max_ticks = (int)(s * PAROL6_HZ);
	} else {
		fprintf(stderr, "parolctl: unknown command '%s' (see --help)\n", cmd);
		return EXIT_USAGE;
	}
	return 0;

}

/*
 * What the board keeps from frame to frame (its outputs, the gripper's
 * setpoints and activate bit) outlives one run of parolctl only here. The
 * board cannot be asked: its telemetry reports the outputs the frame it
 * answers has just set, so without this every run's first frame would
 * switch the outputs off and move the gripper. One file per port, in
 * $PAROLCTL_STATE_DIR, else $XDG_RUNTIME_DIR/parolctl, else /run/parolctl
 * (root) or /tmp/parolctl-UID: a runtime directory, emptied at boot, as
 * the board's outputs are when it is powered up.
 */
static char state_path[PATH_MAX];

static void state_locate(void)
{
	const char *dir = getenv("PAROLCTL_STATE_DIR"), *xdg;
	char base[PATH_MAX], real[PATH_MAX], *c;

	if (!dir) {
		xdg = getenv("XDG_RUNTIME_DIR");
		if (xdg && *xdg)
			snprintf(base, sizeof(base), "%s/parolctl", xdg);
		else if (geteuid() == 0)
			snprintf(base, sizeof(base), "/run/parolctl");
		else
			snprintf(base, sizeof(base), "/tmp/parolctl-%u",
				 (unsigned int)geteuid());
		dir = base;
	}
	if (!realpath(tool.device, real))
		return;
	for (c = real; *c; c++)
		if (*c == '/')
			*c = '_';
	if (mkdir(dir, 0700) && errno != EEXIST)
		return;
	if ((size_t)snprintf(state_path, sizeof(state_path), "%s/%s", dir, real) >=
	    sizeof(state_path))
		state_path[0] = 0;
}

/* The last run's outputs and gripper fields, if this port has them. */
static void state_load(struct parol6 *p)
{
	int out1, out2, cmd, pos, speed, current, id;
	struct parol6_cmd c = { 0 };
	FILE *f;

	state_locate();
	f = state_path[0] ? fopen(state_path, "r") : NULL;
	if (!f)
		return;
	if (fscanf(f, "outputs %d %d gripper %d %d %d %d %d", &out1, &out2, &cmd,
		   &pos, &speed, &current, &id) == 7 &&
	    out1 >= 0 && out1 <= 1 && out2 >= 0 && out2 <= 1 && cmd >= 0 && cmd <= 255 &&
	    pos >= 0 && pos <= 255 && speed >= 0 && speed <= 255 &&
	    current >= 0 && current <= 1000 && id >= 0 && id <= 255) {
		c.out1 = out1;
		c.out2 = out2;
		c.grip_command = (uint8_t)cmd;
		c.grip_position = (int16_t)pos;
		c.grip_speed = (int16_t)speed;
		c.grip_current = (int16_t)current;
		c.grip_id = (uint8_t)id;
		parol6_hold(p, &c);
	}
	fclose(f);
}

static void state_save(const struct parol6 *p)
{
	char tmp[PATH_MAX + 8];
	FILE *f;

	if (!state_path[0] || !p->have_held ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.new", state_path) >= sizeof(tmp))
		return;
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "outputs %d %d gripper %u %d %d %d %u\n", p->held.out1,
		p->held.out2, p->held.grip_command, p->held.grip_position,
		p->held.grip_speed, p->held.grip_current, p->held.grip_id);
	if (fclose(f) || rename(tmp, state_path))
		unlink(tmp);
}

static int open_link(struct parol6 *p)
{
	int err;

	if (dry_run) {
		parol6_open_dry(p);
	} else {
		err = parol6_open(p, tool.device, tool.mode);
		if (err) {
			char what[300];

			snprintf(what, sizeof(what), "cannot open %s", tool.device);
			explain(what, err);
			return 1;
		}
		state_load(p);
	}
	p->dump = hexdump;
	nbtool_catch_signals(&stop);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void close_link(struct parol6 *p)
{
	if (!dry_run) {
		state_save(p);
		nr_link_close(&p->link);
	}
}

/* Run one job to its end; its exit status. */
static int run_job(struct parol6 *p, struct job *job, const char *cmd)
{
	volatile sig_atomic_t never = 0;
	int err;

	job->p = p;
	job->start_ms = 0;
	job->rx0 = 0;
	/* A homing sees Ctrl-C in tick(), to end it before the Idle. */
	err = parol6_run(p, PAROL6_HZ, tick, job,
			 job->kind == 'h' ? &never : &stop, link_timeout_ms);
	if (job->kind == 's' && p->have_telemetry && !err)
		print_telemetry(&p->last);
	progress_done();
	if (err == -ENOLINK || err == -EIO) {
		explain("link lost; sent Idle with zero speed", err);
		job->result = EXIT_LINK;
	} else if (err) {
		explain(cmd, err);
		job->result = 1;
	} else if (stop && job->kind == 0) {
		/* live: Ctrl-C is how it ends */
	} else if (stop && job->kind == 'h') {
		fprintf(stderr, "parolctl: interrupted; ended the homing (disable, clear-error), sent Idle with zero speed\n");
		job->result = interrupted();
	} else if (stop) {
		fprintf(stderr, "parolctl: interrupted; sent Idle with zero speed\n");
		job->result = interrupted();
	}
	return job->result;
}

/*
 * parolctl run FILE: a small program, one command a line as on the command
 * line (move, jog, wait, out, gripper, home, enable...), '#' comments. The
 * whole file is checked before the first frame; then each line runs to its
 * end in turn, and the first failure, Ctrl-C or lost link ends it there.
 */
#define MAX_STEPS	1000
#define MAX_WORDS	12

static int cmd_run(void *dev, int argc, char **argv)
{
	static struct job jobs[MAX_STEPS];
	static char text[MAX_STEPS][256];
	char *words[MAX_WORDS], *save, *w;
	struct parol6 p;
	int n = 0, line = 0, k, ret = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "parolctl: run: expected one FILE\n");
		return EXIT_USAGE;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		fprintf(stderr, "parolctl: run: cannot read %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	while (n < MAX_STEPS && fgets(text[n], sizeof(text[n]), f)) {
		line++;
		w = strchr(text[n], '#');
		if (w)
			*w = 0;
		k = 0;
		for (w = strtok_r(text[n], " \t\r\n", &save); w && k < MAX_WORDS;
		     w = strtok_r(NULL, " \t\r\n", &save))
			words[k++] = w;
		if (!k)
			continue;
		if (!strcmp(words[0], "run") || !strcmp(words[0], "live")) {
			fprintf(stderr, "parolctl: run: %s:%d: '%s' cannot be in a program\n",
				argv[1], line, words[0]);
			fclose(f);
			return EXIT_USAGE;
		}
		memset(&jobs[n], 0, sizeof(jobs[n]));
		if (parse_job(&jobs[n], k, words)) {
			fprintf(stderr, "parolctl: run: %s:%d: refused; nothing was sent\n",
				argv[1], line);
			fclose(f);
			return EXIT_USAGE;
		}
		n++;
	}
	fclose(f);
	if (open_link(&p))
		return 1;
	for (k = 0; k < n && !stop && !ret; k++)
		ret = run_job(&p, &jobs[k], argv[1]);
	close_link(&p);
	if (!ret && !stop)
		printf("ran %d step%s of %s\n", n, n == 1 ? "" : "s", argv[1]);
	return ret ? ret : stop ? interrupted() : 0;
}

/*
 * Hold the line discipline attached (nr_link_hold), for the
 * n_robot-parol6@.service unit or by hand, so that other parolctl runs
 * share it and its counters last. Sends nothing: the arm sees no frame
 * from it, so there is no Idle to owe it either.
 */
static int cmd_attach(void *dev, int argc, char **argv)
{
	struct parol6 p;
	int err;

	if (argc > 1) {
		fprintf(stderr, "parolctl: attach takes no arguments\n");
		return EXIT_USAGE;
	}
	if (dry_run || tool.mode == NR_LINK_RAW) {
		fprintf(stderr, "parolctl: attach: it attaches the line discipline; not with --dry-run or --ldisc=no\n");
		return EXIT_USAGE;
	}
	err = parol6_open(&p, tool.device, NR_LINK_LDISC);
	if (err) {
		char what[300];

		snprintf(what, sizeof(what), "cannot attach the line discipline to %s",
			 tool.device);
		explain(what, err);
		return 1;
	}
	printf("attached%s; Ctrl-C detaches\n",
	       p.link.shared ? " (already, by someone else)" : "");
	fflush(stdout);
	err = nr_link_hold(&p.link);
	nr_link_close(&p.link);
	if (err) {
		fprintf(stderr, "parolctl: attach: %s\n", err == -EIO ?
			"the port hung up" : strerror(-err));
		return EXIT_LINK;
	}
	return 0;
}

/* Any other command: one job, checked before the link is opened. */
static int cmd_job(void *dev, int argc, char **argv)
{
	struct parol6 p;
	struct job job = { .p = &p };
	int ret = parse_job(&job, argc, argv);

	if (ret)
		return ret;
	if (open_link(&p))
		return 1;
	ret = run_job(&p, &job, argv[0]);
	close_link(&p);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "ldisc", required_argument, NULL, 'L' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "for", required_argument, NULL, 'f' },
		{ "speed", required_argument, NULL, 's' },
		{ "accel", required_argument, NULL, 'a' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "link-timeout", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	static const struct nbtool_cmd cmds[] = {
		{ "run", cmd_run, 0 },
		{ "attach", cmd_attach, 0 },
		{ NULL, cmd_job, 0 },
	};
	int o, ret;

	nbtool_serial_init(&tool, "PAROL6_DEVICE", "/dev/ttyACM0");
	while ((o = getopt_long(argc, argv, "+d:L:nf:s:a:T:l:h", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			dry_run = true;
			break;
		case 'f':
			duration = atof(optarg);
			break;
		case 's':
			speed_dps = atof(optarg);
			break;
		case 'a':
			accel_dps2 = atof(optarg);
			if (!(accel_dps2 > 0)) {
				fprintf(stderr, "parolctl: --accel: a positive deg/s^2, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'T':
			timeout_s = atof(optarg);
			break;
		case 'l':
			link_timeout_ms = atoi(optarg);
			break;
		default:
			ret = nbtool_serial_option(&tool, o, optarg);
			if (ret >= 0)
				return ret;
		}
	}
	progress_on = isatty(STDERR_FILENO);
	return nbtool_serial_run(&tool, cmds, argc - optind, argv + optind);
}
