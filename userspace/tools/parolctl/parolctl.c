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
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <parol6/parol6.h>

#define EXIT_USAGE	2
#define EXIT_LINK	3	/* the link was lost */
#define EXIT_REFUSED	4	/* the arm refused: E-stop, not homed... */

static volatile sig_atomic_t stop;
static const char *device;
static enum nr_link_mode mode = NR_LINK_AUTO;
static bool dry_run;
static double duration = 1.0;		/* jog, s */
static double speed_dps = 10.0;		/* move, deg/s */
static double timeout_s = 60.0;		/* home, move */
static int link_timeout_ms = 200;

static void on_signal(int sig)
{
	stop = 1;
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
		"  live                   telemetry as it comes, until Ctrl-C\n\n"
		"Options:\n"
		"  -d, --device PATH      the board ($PAROL6_DEVICE, /dev/ttyACM0)\n"
		"  -L, --ldisc MODE       auto (default), yes (the n_robot line\n"
		"                         discipline or fail), no (userspace framing)\n"
		"  -n, --dry-run          print the frames in hex; open nothing\n"
		"  -f, --for SECONDS      how long to jog (1)\n"
		"  -s, --speed DEG/S      move speed (10)\n"
		"  -T, --timeout SECONDS  give up home or move after (60)\n"
		"  -l, --link-timeout MS  no telemetry for this long = link lost (200)\n"
		"  -h, --help             this help\n\n"
		"On exit, Ctrl-C or a lost link parolctl sends Idle with zero speed.\n"
		"Exit status: 0 ok, 1 error, 2 usage, 3 link lost, 4 refused by the arm.\n");
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

static void explain(const char *what, int err)
{
	const char *hint = "";

	switch (-err) {
	case ENOENT:
		hint = " (is the board plugged in? choose the port with -d)";
		break;
	case EACCES:
		hint = " (add yourself to the dialout group)";
		break;
	case EPERM:
		hint = " (the n_robot line discipline needs CAP_NET_ADMIN: run as root, or use --ldisc=no)";
		break;
	case ETIMEDOUT:
	case ENOLINK:
		hint = " (no telemetry: is the board powered and running its firmware?)";
		break;
	case ERANGE:
		hint = " (outside the joint's limits: see parolctl(1))";
		break;
	case EIO:
		hint = " (the link went away)";
		break;
	}
	fprintf(stderr, "parolctl: %s: %s%s\n", what, strerror(-err), hint);
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
	int32_t move_speed[PAROL6_JOINTS];
	int result;		/* EXIT_* for main */
	int64_t start_ms;
	bool live;
};

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
	if (job->ticks > job->max_ticks) {
		if (job->kind == 'h' || job->kind == 'm') {
			fprintf(stderr, "parolctl: gave up after %.0f s\n",
				timeout_s);
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
			for (j = 0, done = 1; j < PAROL6_JOINTS; j++)
				done &= t->homed[j];
			if (done && t->last_command == PAROL6_IDLE)
				return 1;
		}
		break;
	case 'j':
		if (t && parol6_check_steps(job->joint,
					    t->position[job->joint] +
					    job->jog_speed / 50)) {
			fprintf(stderr, "parolctl: J%d is at its limit: stopped\n",
				job->joint + 1);
			return 1;
		}
		next->command = PAROL6_JOG;
		next->speed[job->joint] = job->jog_speed;
		break;
	case 'm':
		if (t) {
			for (j = 0, done = 1; j < PAROL6_JOINTS; j++)
				done &= abs(t->position[j] - job->target[j]) <= 2;
			if (done)
				return 1;
		}
		next->command = PAROL6_GOTO;
		memcpy(next->position, job->target, sizeof(job->target));
		memcpy(next->speed, job->move_speed, sizeof(job->move_speed));
		break;
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "ldisc", required_argument, NULL, 'L' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "for", required_argument, NULL, 'f' },
		{ "speed", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "link-timeout", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct parol6 p;
	struct job job = { .p = &p };
	struct sigaction sa;
	const char *cmd;
	int o, m, err, j;
	double deg;

	device = getenv("PAROL6_DEVICE");
	if (!device)
		device = "/dev/ttyACM0";
	while ((o = getopt_long(argc, argv, "+d:L:nf:s:T:l:h", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			device = optarg;
			break;
		case 'L':
			m = nr_link_parse_mode(optarg);
			if (m < 0) {
				fprintf(stderr, "parolctl: --ldisc: auto, yes or no, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			mode = m;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'f':
			duration = atof(optarg);
			break;
		case 's':
			speed_dps = atof(optarg);
			break;
		case 'T':
			timeout_s = atof(optarg);
			break;
		case 'l':
			link_timeout_ms = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[0];
	job.max_ticks = 10 * PAROL6_HZ;
	if (!strcmp(cmd, "status")) {
		job.kind = 's';
		job.max_ticks = 50;
	} else if (!strcmp(cmd, "enable")) {
		job.kind = 'e';
	} else if (!strcmp(cmd, "disable")) {
		job.kind = 'd';
	} else if (!strcmp(cmd, "clear-error")) {
		job.kind = 'c';
	} else if (!strcmp(cmd, "home")) {
		job.kind = 'h';
		job.max_ticks = (int)(timeout_s * PAROL6_HZ);
	} else if (!strcmp(cmd, "jog")) {
		if (argc != 3 || (job.joint = parse_joint(argv[1])) < 0) {
			fprintf(stderr, "parolctl: jog: expected JOINT (1-6) and DEG/S\n");
			return EXIT_USAGE;
		}
		err = parol6_speed_to_steps(job.joint, atof(argv[2]),
					    &job.jog_speed);
		if (err || abs(job.jog_speed) >
		    parol6_max_speed[job.joint] * 8 / 10) {
			fprintf(stderr, "parolctl: jog: %s deg/s is over J%d's jog limit of %.1f deg/s\n",
				argv[2], job.joint + 1,
				parol6_steps_to_deg(job.joint,
						    parol6_max_speed[job.joint] * 8 / 10));
			return EXIT_USAGE;
		}
		job.kind = 'j';
		job.max_ticks = (int)(duration * PAROL6_HZ);
	} else if (!strcmp(cmd, "move")) {
		if (argc != 1 + PAROL6_JOINTS) {
			fprintf(stderr, "parolctl: move: expected six angles in degrees\n");
			return EXIT_USAGE;
		}
		for (j = 0; j < PAROL6_JOINTS; j++) {
			char *end;

			deg = strtod(argv[1 + j], &end);
			if (end == argv[1 + j] || *end) {
				fprintf(stderr, "parolctl: move: '%s' is not a number\n",
					argv[1 + j]);
				return EXIT_USAGE;
			}
			err = parol6_deg_to_steps(j, deg, &job.target[j]);
			if (err) {
				fprintf(stderr, "parolctl: move: J%d %.3f deg is outside %.3f..%.3f deg: refused\n",
					j + 1, deg, parol6_limit_deg[j][0],
					parol6_limit_deg[j][1]);
				return EXIT_USAGE;
			}
			err = parol6_speed_to_steps(j, speed_dps,
						    &job.move_speed[j]);
			if (err) {
				fprintf(stderr, "parolctl: move: %.1f deg/s is over J%d's maximum\n",
					speed_dps, j + 1);
				return EXIT_USAGE;
			}
		}
		job.kind = 'm';
		job.max_ticks = (int)(timeout_s * PAROL6_HZ);
	} else if (!strcmp(cmd, "live")) {
		job.kind = 0;
		job.max_ticks = dry_run ? 10 : 0x7fffffff;
	} else {
		fprintf(stderr, "parolctl: unknown command '%s' (see --help)\n", cmd);
		return EXIT_USAGE;
	}

	if (dry_run) {
		parol6_open_dry(&p);
	} else {
		err = parol6_open(&p, device, mode);
		if (err) {
			char what[300];

			snprintf(what, sizeof(what), "cannot open %s", device);
			explain(what, err);
			return 1;
		}
	}
	p.dump = hexdump;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	err = parol6_run(&p, PAROL6_HZ, tick, &job, &stop, link_timeout_ms);
	if (job.kind == 's' && p.have_telemetry && !err)
		print_telemetry(&p.last);
	if (err == -ENOLINK || err == -EIO) {
		explain("link lost; sent Idle with zero speed", err);
		job.result = EXIT_LINK;
	} else if (err) {
		explain(cmd, err);
		job.result = 1;
	} else if (stop) {
		fprintf(stderr, "parolctl: interrupted; sent Idle with zero speed\n");
	}
	if (dry_run)
		p.dump = hexdump;
	if (!dry_run)
		nr_link_close(&p.link);
	return job.result;
}
