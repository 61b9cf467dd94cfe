// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: gives any program safe, real-time access to a NAO6's body, over
 * the robot API (TCP 7700) and a LoLA-compatible socket (/tmp/robocup).
 * This file: options, start-up and shut-down.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "api/api.h"
#include "clock.h"
#include "head/head_bus.h"
#include "log.h"
#include "lola/lola.h"
#include "naobodyd.h"
#include "privileges.h"
#include "rest/rest.h"
#include "rest/rest_serial.h"

/* quit: the network thread's loop; body_quit: the body thread's. */
static volatile sig_atomic_t quit, body_quit, signals;
static atomic_bool body_done;

static void on_signal(int sig)
{
	signals++;
}

/* The body thread's stack: its deepest path (motion, msgpack-c) needs far less. */
#define BODY_STACK	(256 * 1024)

/* How long a stop may take to sit the robot down before going. */
#define SHUTDOWN_NS	(5000ULL * 1000000ULL)

/*
 * Where the model and the status page are. An installed naobodyd has them
 * where make install (or the Debian package) put them: the compiled-in
 * NAOBODYD_SIM_MODEL and NAOBODYD_WWW_DIR. The build's own binary (it is
 * NAOBODYD_TREE_BIN, the path it was linked to) runs from its tree, and
 * takes the tree's copies: a fresh clone works after make, with nothing
 * installed.
 */
static bool from_tree(void)
{
#ifdef NAOBODYD_TREE_BIN
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = '\0';
	return !strcmp(self, NAOBODYD_TREE_BIN);
#else
	return false;
#endif
}

static const char *default_model(void)
{
#ifdef NAOBODYD_TREE_MODEL
	if (from_tree())
		return NAOBODYD_TREE_MODEL;
#endif
	return NAOBODYD_SIM_MODEL;
}

static const char *default_www(void)
{
#ifdef NAOBODYD_TREE_WWW
	if (from_tree())
		return NAOBODYD_TREE_WWW;
#endif
	return NAOBODYD_WWW_DIR;
}

/*
 * The REST token's directory: systemd's StateDirectory= ($STATE_DIRECTORY,
 * as naobodyd.service sets it), root's /var/lib/naobodyd, or for anyone
 * else their own: $XDG_STATE_HOME/naobodyd, ~/.local/state/naobodyd (the
 * XDG base directory specification's default). buf holds the last.
 */
static const char *default_state_dir(char *buf, size_t n)
{
	const char *sd = getenv("STATE_DIRECTORY"), *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");

	if (sd && *sd) {
		snprintf(buf, n, "%.*s", (int)strcspn(sd, ":"), sd);
		return buf;
	}
	if (!geteuid())
		return REST_DEFAULT_STATE_DIR;
	if (xdg && *xdg == '/')
		snprintf(buf, n, "%s/naobodyd", xdg);
	else if (home && *home == '/')
		snprintf(buf, n, "%s/.local/state/naobodyd", home);
	else
		return REST_DEFAULT_STATE_DIR;
	return buf;
}

static void usage(FILE *f)
{
	char buf[PATH_MAX];
	const char *state_dir = default_state_dir(buf, sizeof(buf));

	fprintf(f,
"Usage: naobodyd [OPTION]...\n"
"Serve the NAO6's body: the robot API on TCP port 7700, a LoLA-compatible\n"
"socket, the watchdog and the death switch. See naobodyd(8).\n"
"\n"
"Body:\n"
"  -d, --device PATH        the body's device (default " DEVICE_DEFAULT_PATH ")\n"
"  -s, --sim                use the simulated body (without it, a missing device\n"
"                           is an error)\n"
"      --sim-control PATH   the simulator's control socket (commands: touch,\n"
"                           push, battery, charger, sonar, temperature, rearm,\n"
"                           status, leds, cycle; physics with --sim-physics)\n"
"      --sim-physics        the simulated body is the physical one: the MuJoCo\n"
"                           model of the NAO V6, its motors driven with the\n"
"                           targets and stiffnesses, its sensors from the\n"
"                           physics (implies --sim; without it the kinematic\n"
"                           body)\n"
"      --sim-model FILE     that body's model (implies --sim-physics; default\n"
"                           %s)\n"
"      --sim-start POSE     how the physical body starts, limp: lying (face\n"
"                           down, where it rests; the default) or sitting\n"
"                           (it tips over within seconds unless woken: for\n"
"                           tests that wake it at once)\n"
"      --sim-script FILE    simulator commands, one \"SECONDS COMMAND\" a line\n"
"      --sim-battery CHARGE the simulated battery's charge at start, 0..1\n"
"                           (default 0.9)\n"
"      --sim-uncalibrated SECONDS\n"
"                           the simulated body has no calibration for this\n"
"                           long after the start (a test; default 0)\n"
"      --allow-uncalibrated stiffen the body even while its calibration (the\n"
"                           preference block) is not read: only for a body\n"
"                           whose block is known to be broken\n"
"      --robot-motions VERDICT\n"
"                           let the real body walk: VERDICT is naoctl verify\n"
"                           -V's verdict on a capture of this robot, and must\n"
"                           confirm the layout walking needs (naobodyd(8));\n"
"                           without it the real body never walks\n"
"      --body-id ID         the body id Hello and LoLA report (20 characters)\n"
"      --head-id ID         the head id Hello and LoLA report (20 characters)\n"
"      --head-id-file FILE  where the head keeps its id (default on the real\n"
"                           body " HEAD_ID_DEFAULT_PATH ";\n"
"                           the simulated body has none)\n"
"      --head-bus PATH      the head's I2C bus, an i2c-dev file: touch pads,\n"
"                           power monitor, face temperature (default on the\n"
"                           real body " HEAD_BUS_DEFAULT_PATH "; the simulated\n"
"                           body has none)\n"
"      --no-head-bus        read no head bus\n"
"\n"
"Robot API:\n"
"  -p, --port PORT          TCP port (default %u; 0 picks a free one)\n"
"  -b, --bind ADDRESS       listen on ADDRESS only (default: every interface)\n"
"      --echo-cancellation  tell clients the robot removes its own voice (the\n"
"                           microphones then stay open while it speaks)\n"
"\n"
"Audio (ALSA; with --sim only the devices named here):\n"
"      --speaker PCM        the speaker (default " HEAD_AUDIO_DEFAULT_SPEAKER ")\n"
"      --microphones PCM    the microphones (default " HEAD_AUDIO_DEFAULT_MICS ")\n"
"      --mixer CARD         the speaker's mixer (default " HEAD_AUDIO_DEFAULT_MIXER ")\n"
"      --mixer-control NAME its playback volume control (default " HEAD_AUDIO_DEFAULT_CONTROL ")\n"
"      --no-audio           no speaker, microphones or mixer\n"
"\n"
"Cameras (V4L2; opened while a client subscribes to them):\n"
"      --camera-top PATH    the top camera (default " CAMERA_DEFAULT_TOP ");\n"
"                           \"\" for none\n"
"      --camera-bottom PATH the bottom camera (default " CAMERA_DEFAULT_BOTTOM ")\n"
"      --camera-size WxH    the size asked of both (default 640x480)\n"
"      --camera-fps N       the frame rate asked of both, 1..120 (default 30)\n"
"      --camera-quality N   JPEG quality of compressed YUYV, 1..100 (default 80)\n"
"\n"
"REST API (maintenance; see naobodyd(8)):\n"
"      --rest-port PORT     TCP port (default %u; 0 picks a free one)\n"
"      --rest-bind ADDRESS  listen on ADDRESS only (default: every interface);\n"
"                           it answers loopback and the local subnets only\n"
"      --no-rest            no REST API\n"
"      --state-dir DIR      where the REST token lives (default\n"
"                           %s;\n"
"                           root's " REST_DEFAULT_STATE_DIR ", another user's\n"
"                           $XDG_STATE_HOME/naobodyd)\n"
"      --www DIR            the status page's files, served at / (default\n"
"                           %s)\n"
"      --no-www             no status page\n"
"      --serial KIND:PATH   a serial body for the REST API: cm5:PATH or\n"
"                           parol6:PATH (up to 8; serdev nodes and udev-named\n"
"                           ports are found without it)\n"
"\n"
"LoLA:\n"
"  -l, --lola PATH          the LoLA socket (default " LOLA_DEFAULT_PATH ")\n"
"      --lola-mode MODE     its permissions, octal (default 0666)\n"
"      --no-lola            no LoLA socket\n"
"\n"
"Death switch:\n"
"  -g, --guard HOST:PORT    where Stop also sends naoguard's UDP stop\n"
"                           (default 127.0.0.1:%u)\n"
"      --no-guard           send no UDP stop\n"
"\n"
"  -r, --priority N         run SCHED_FIFO at N (1..99) with memory locked, as\n"
"                           LoLA does at 20; 0: normal scheduling (default)\n"
"  -u, --user USER          started as root: become USER once the devices and\n"
"                           sockets are open, with no capabilities (default\n"
"                           " NAOBODYD_DEFAULT_USER "; root: stay root, warned)\n"
"  -v, --verbose            log more (debug lines)\n"
"  -q, --quiet              log warnings and errors only\n"
"  -h, --help               show this help\n"
"  -V, --version            show the version\n",
		default_model(), API_DEFAULT_PORT, REST_DEFAULT_PORT, state_dir, default_www(),
		GUARD_DEFAULT_PORT);
}

static int bad(const char *opt, const char *want, const char *got)
{
	fprintf(stderr, "naobodyd: %s: expected %s, got '%s'\n", opt, want, got);
	fprintf(stderr, "Try 'naobodyd --help'.\n");
	return 2;
}

static bool parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 65535 || *s == '-')
		return false;
	*port = (uint16_t)v;
	return true;
}

enum {
	OPT_SIM_CONTROL = 256, OPT_SIM_SCRIPT, OPT_SIM_START, OPT_SIM_PHYSICS, OPT_SIM_MODEL, OPT_SIM_BATTERY, OPT_SIM_UNCALIBRATED,
	OPT_ALLOW_UNCALIBRATED, OPT_ROBOT_MOTIONS, OPT_BODY_ID, OPT_HEAD_ID, OPT_HEAD_ID_FILE, OPT_HEAD_BUS,
	OPT_NO_HEAD_BUS,
	OPT_ECHO, OPT_LOLA_MODE, OPT_NO_LOLA, OPT_NO_GUARD,
	OPT_REST_PORT, OPT_REST_BIND, OPT_NO_REST, OPT_STATE_DIR, OPT_WWW, OPT_NO_WWW, OPT_SERIAL,
	OPT_CAMERA_TOP, OPT_CAMERA_BOTTOM, OPT_CAMERA_SIZE, OPT_CAMERA_FPS, OPT_CAMERA_QUALITY,
	OPT_SPEAKER, OPT_MICS, OPT_MIXER, OPT_MIXER_CONTROL, OPT_NO_AUDIO,
};

static const struct option options[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "sim", no_argument, NULL, 's' },
	{ "sim-control", required_argument, NULL, OPT_SIM_CONTROL },
	{ "sim-script", required_argument, NULL, OPT_SIM_SCRIPT },
	{ "sim-start", required_argument, NULL, OPT_SIM_START },
	{ "sim-physics", no_argument, NULL, OPT_SIM_PHYSICS },
	{ "sim-model", required_argument, NULL, OPT_SIM_MODEL },
	{ "sim-battery", required_argument, NULL, OPT_SIM_BATTERY },
	{ "sim-uncalibrated", required_argument, NULL, OPT_SIM_UNCALIBRATED },
	{ "allow-uncalibrated", no_argument, NULL, OPT_ALLOW_UNCALIBRATED },
	{ "robot-motions", required_argument, NULL, OPT_ROBOT_MOTIONS },
	{ "body-id", required_argument, NULL, OPT_BODY_ID },
	{ "head-id", required_argument, NULL, OPT_HEAD_ID },
	{ "head-id-file", required_argument, NULL, OPT_HEAD_ID_FILE },
	{ "head-bus", required_argument, NULL, OPT_HEAD_BUS },
	{ "no-head-bus", no_argument, NULL, OPT_NO_HEAD_BUS },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, 'b' },
	{ "echo-cancellation", no_argument, NULL, OPT_ECHO },
	{ "camera-top", required_argument, NULL, OPT_CAMERA_TOP },
	{ "camera-bottom", required_argument, NULL, OPT_CAMERA_BOTTOM },
	{ "camera-size", required_argument, NULL, OPT_CAMERA_SIZE },
	{ "camera-fps", required_argument, NULL, OPT_CAMERA_FPS },
	{ "camera-quality", required_argument, NULL, OPT_CAMERA_QUALITY },
	{ "speaker", required_argument, NULL, OPT_SPEAKER },
	{ "microphones", required_argument, NULL, OPT_MICS },
	{ "mixer", required_argument, NULL, OPT_MIXER },
	{ "mixer-control", required_argument, NULL, OPT_MIXER_CONTROL },
	{ "no-audio", no_argument, NULL, OPT_NO_AUDIO },
	{ "lola", required_argument, NULL, 'l' },
	{ "lola-mode", required_argument, NULL, OPT_LOLA_MODE },
	{ "no-lola", no_argument, NULL, OPT_NO_LOLA },
	{ "guard", required_argument, NULL, 'g' },
	{ "no-guard", no_argument, NULL, OPT_NO_GUARD },
	{ "rest-port", required_argument, NULL, OPT_REST_PORT },
	{ "rest-bind", required_argument, NULL, OPT_REST_BIND },
	{ "no-rest", no_argument, NULL, OPT_NO_REST },
	{ "www", required_argument, NULL, OPT_WWW },
	{ "no-www", no_argument, NULL, OPT_NO_WWW },
	{ "serial", required_argument, NULL, OPT_SERIAL },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "priority", required_argument, NULL, 'r' },
	{ "user", required_argument, NULL, 'u' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct config *cfg, char *guard, size_t n)
{
	bool head_bus_given = false, head_id_file_given = false;
	struct head_audio_config *au = &cfg->audio;
	const char *speaker = NULL, *mics = NULL, *mixer = NULL;
	bool no_audio = false, model_given = false;
	static char state_buf[PATH_MAX];
	int c;

	cfg->port = API_DEFAULT_PORT;
	cfg->user = NAOBODYD_DEFAULT_USER;
	cfg->lola_path = LOLA_DEFAULT_PATH;
	cfg->lola_mode = 0666;
	cfg->device = DEVICE_DEFAULT_PATH;
	cfg->sim_battery = 0.9f;
	cfg->guard_port = GUARD_DEFAULT_PORT;
	cfg->rest = true;
	cfg->rest_port = REST_DEFAULT_PORT;
	cfg->state_dir = default_state_dir(state_buf, sizeof(state_buf));
	cfg->www_dir = default_www();
	snprintf(guard, n, "127.0.0.1");
	cfg->guard_host = guard;
	cfg->cameras.path[0] = CAMERA_DEFAULT_TOP;
	cfg->cameras.path[1] = CAMERA_DEFAULT_BOTTOM;
	cfg->cameras.width = CAMERA_DEFAULT_WIDTH;
	cfg->cameras.height = CAMERA_DEFAULT_HEIGHT;
	cfg->cameras.fps = CAMERA_DEFAULT_FPS;
	cfg->cameras.quality = 80;

	while ((c = getopt_long(argc, argv, "d:sp:b:l:g:r:u:vqhV", options, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'd':
			cfg->device = optarg;
			break;
		case 's':
			cfg->sim = true;
			break;
		case OPT_SIM_CONTROL:
			cfg->sim_control = optarg;
			break;
		case OPT_SIM_SCRIPT:
			cfg->sim_script = optarg;
			break;
		case OPT_SIM_START:
			if (strcmp(optarg, "lying") && strcmp(optarg, "sitting"))
				return bad("--sim-start", "lying or sitting", optarg);
			cfg->sim_sitting = !strcmp(optarg, "sitting");
			break;
		case OPT_SIM_PHYSICS:
			if (!cfg->sim_model)
				cfg->sim_model = default_model();
			cfg->sim = true;
			break;
		case OPT_SIM_MODEL:
			if (!*optarg)
				return bad("--sim-model", "a MuJoCo model file", optarg);
			cfg->sim_model = optarg;
			model_given = true;
			cfg->sim = true;
			break;
		case OPT_SIM_BATTERY:
			cfg->sim_battery = strtof(optarg, &end);
			if (end == optarg || *end || !(cfg->sim_battery >= 0.0f && cfg->sim_battery <= 1.0f))
				return bad("--sim-battery", "a charge from 0 to 1", optarg);
			break;
		case OPT_SIM_UNCALIBRATED:
			cfg->sim_uncalibrated = strtof(optarg, &end);
			if (end == optarg || *end ||
			    !(cfg->sim_uncalibrated >= 0.0f && cfg->sim_uncalibrated <= 1e6f))
				return bad("--sim-uncalibrated", "seconds, 0 to 1000000", optarg);
			break;
		case OPT_ALLOW_UNCALIBRATED:
			cfg->allow_uncalibrated = true;
			break;
		case OPT_ROBOT_MOTIONS:
			if (!*optarg)
				return bad("--robot-motions", "naoctl verify's verdict file", optarg);
			cfg->robot_motions = optarg;
			break;
		case OPT_BODY_ID:
		case OPT_HEAD_ID:
			if (!*optarg || strlen(optarg) > BODY_ID_LEN)
				return bad(c == OPT_BODY_ID ? "--body-id" : "--head-id",
					   "1 to 20 characters", optarg);
			*(c == OPT_BODY_ID ? &cfg->body_id : &cfg->head_id) = optarg;
			break;
		case 'p':
			if (!parse_port(optarg, &cfg->port))
				return bad("--port", "a port number, 0..65535", optarg);
			break;
		case 'b':
			cfg->bind = optarg;
			break;
		case OPT_HEAD_ID_FILE:
			cfg->head_id_file = optarg;
			head_id_file_given = true;
			break;
		case OPT_HEAD_BUS:
		case OPT_NO_HEAD_BUS:
			cfg->head_bus = c == OPT_HEAD_BUS ? optarg : NULL;
			head_bus_given = true;
			break;
		case OPT_ECHO:
			cfg->echo_cancellation = true;
			break;
		case OPT_CAMERA_TOP:
		case OPT_CAMERA_BOTTOM:
			cfg->cameras.path[c == OPT_CAMERA_TOP ? 0 : 1] = *optarg ? optarg : NULL;
			break;
		case OPT_CAMERA_SIZE: {
			unsigned long w = strtoul(optarg, &end, 10), h = 0;

			if (end != optarg && *end == 'x')
				h = strtoul(end + 1, &end, 10);
			if (*end || *optarg == '-' || w < 2 || w > 4096 || w % 2 || h < 1 || h > 4096)
				return bad("--camera-size", "WIDTHxHEIGHT, an even width, up to 4096x4096",
					   optarg);
			cfg->cameras.width = (uint32_t)w;
			cfg->cameras.height = (uint32_t)h;
			break;
		}
		case OPT_CAMERA_FPS:
		case OPT_CAMERA_QUALITY: {
			unsigned long v = strtoul(optarg, &end, 10);
			bool fps = c == OPT_CAMERA_FPS;

			if (end == optarg || *end || *optarg == '-' || v < 1 || v > (fps ? 120 : 100))
				return bad(fps ? "--camera-fps" : "--camera-quality",
					   fps ? "frames per second, 1..120" : "1..100", optarg);
			if (fps)
				cfg->cameras.fps = (uint32_t)v;
			else
				cfg->cameras.quality = (int)v;
			break;
		}
		case OPT_SPEAKER:
		case OPT_MICS:
		case OPT_MIXER:
		case OPT_MIXER_CONTROL:
			if (!*optarg)
				return bad(c == OPT_MIXER_CONTROL ? "--mixer-control" :
					   c == OPT_MIXER ? "--mixer" :
					   c == OPT_MICS ? "--microphones" : "--speaker",
					   "an ALSA name", optarg);
			if (c == OPT_SPEAKER)
				speaker = optarg;
			else if (c == OPT_MICS)
				mics = optarg;
			else if (c == OPT_MIXER)
				mixer = optarg;
			else
				au->control = optarg;
			break;
		case OPT_NO_AUDIO:
			no_audio = true;
			break;
		case 'l':
			if (!*optarg)
				return bad("--lola", "a socket path", optarg);
			cfg->lola_path = optarg;
			break;
		case OPT_LOLA_MODE: {
			unsigned long m = strtoul(optarg, &end, 8);

			if (end == optarg || *end || m > 0777)
				return bad("--lola-mode", "octal permissions such as 0660", optarg);
			cfg->lola_mode = (mode_t)m;
			break;
		}
		case OPT_NO_LOLA:
			cfg->lola_path = NULL;
			break;
		case 'g': {
			char *colon = strrchr(optarg, ':');

			if (!colon || colon == optarg || !parse_port(colon + 1, &cfg->guard_port) ||
			    (size_t)(colon - optarg) >= n)
				return bad("--guard", "HOST:PORT", optarg);
			snprintf(guard, n, "%.*s", (int)(colon - optarg), optarg);
			/* [::1]:7701 */
			if (guard[0] == '[' && guard[strlen(guard) - 1] == ']') {
				memmove(guard, guard + 1, strlen(guard));
				guard[strlen(guard) - 1] = '\0';
			}
			break;
		}
		case OPT_NO_GUARD:
			cfg->guard_host = NULL;
			break;
		case OPT_REST_PORT:
			if (!parse_port(optarg, &cfg->rest_port))
				return bad("--rest-port", "a port number, 0..65535", optarg);
			break;
		case OPT_REST_BIND:
			cfg->rest_bind = optarg;
			break;
		case OPT_NO_REST:
			cfg->rest = false;
			break;
		case OPT_STATE_DIR:
			if (!*optarg)
				return bad("--state-dir", "a directory", optarg);
			cfg->state_dir = optarg;
			break;
		case OPT_WWW:
			if (!*optarg)
				return bad("--www", "a directory", optarg);
			cfg->www_dir = optarg;
			break;
		case OPT_NO_WWW:
			cfg->www_dir = NULL;
			break;
		case OPT_SERIAL:
			if (!rest_serial_arg_ok(optarg))
				return bad("--serial", "cm5:PATH or parol6:PATH", optarg);
			if (cfg->n_serial == sizeof(cfg->serial) / sizeof(cfg->serial[0]))
				return bad("--serial", "at most 8 of them", optarg);
			cfg->serial[cfg->n_serial++] = optarg;
			break;
		case 'r': {
			unsigned long p = strtoul(optarg, &end, 10);

			if (end == optarg || *end || p > 99 || *optarg == '-')
				return bad("--priority", "0..99", optarg);
			cfg->priority = (int)p;
			break;
		}
		case 'u':
			if (!*optarg)
				return bad("--user", "a user name", optarg);
			cfg->user = optarg;
			break;
		case 'v':
			log_level = LOG_LVL_DEBUG;
			break;
		case 'q':
			log_level = LOG_LVL_WARN;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("naobodyd %s (robot API version %d)\n", NAOBODYD_VERSION, API_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'naobodyd --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "naobodyd: unexpected argument '%s'\nTry 'naobodyd --help'.\n",
			argv[optind]);
		return 2;
	}
	if (!cfg->sim && (cfg->sim_control || cfg->sim_script))
		cfg->sim = true;	/* simulator options imply the simulator */
	/* The default model missing (a copy of the binary, nothing installed): say what to do. */
	if (cfg->sim_model && !model_given && access(cfg->sim_model, R_OK)) {
		fprintf(stderr, "naobodyd: the physical body's model %s: %s; --sim-model FILE gives "
			"another (the source tree's is userspace/sim/nao6/nao6.xml)\n", cfg->sim_model,
			strerror(errno));
		return 1;
	}
	if (cfg->sim && cfg->robot_motions) {
		fprintf(stderr, "naobodyd: --robot-motions is for the real body; the simulated one walks without it\n");
		return 2;
	}
	/* The head's defaults are HULKs-OS's, on the real body only. */
	if (!head_bus_given && !cfg->sim)
		cfg->head_bus = HEAD_BUS_DEFAULT_PATH;
	if (!head_id_file_given && !cfg->sim)
		cfg->head_id_file = HEAD_ID_DEFAULT_PATH;
	/*
	 * The real body's head has them all; the simulated body none (the
	 * spec: simulated, no microphones or speakers) but the ones named.
	 */
	if (!no_audio) {
		au->speaker = speaker ? speaker : cfg->sim ? NULL : HEAD_AUDIO_DEFAULT_SPEAKER;
		au->mics = mics ? mics : cfg->sim ? NULL : HEAD_AUDIO_DEFAULT_MICS;
		au->mixer = mixer ? mixer : cfg->sim ? NULL : HEAD_AUDIO_DEFAULT_MIXER;
	}
	if (!au->control)
		au->control = HEAD_AUDIO_DEFAULT_CONTROL;
	au->speaker_rate = au->mic_rate = HEAD_AUDIO_DEFAULT_DEV_RATE;
	au->speaker_channels = HEAD_AUDIO_DEFAULT_SPK_CHANNELS;
	au->mic_channels = HEAD_AUDIO_DEFAULT_MIC_CHANNELS;
	au->echo_cancellation = cfg->echo_cancellation;
	return -1;
}

static int guard_connect(const struct config *cfg)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	char port[8];
	int fd = -1, err;

	if (!cfg->guard_host)
		return -1;
	snprintf(port, sizeof(port), "%u", cfg->guard_port);
	err = getaddrinfo(cfg->guard_host, port, &hints, &res);
	if (err) {
		log_warn("guard: %s: %s: Stop will not send the UDP stop", cfg->guard_host,
			 gai_strerror(err));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		log_warn("guard: cannot reach %s port %u: Stop will not send the UDP stop",
			 cfg->guard_host, cfg->guard_port);
	return fd;
}

static void body_ready(struct loop_watch *w, uint32_t events)
{
	struct daemon *d = container_of(w, struct daemon, body_watch);
	struct body_frame f = { 0 };	/* a backend need not fill f.head */
	int rc = d->body->ops->read(d->body, &f);

	if (rc > 0) {
		if (d->head)
			head_bus_apply(d->head, &f);
		core_cycle(d, &f);
	} else if (rc < 0) {
		log_err("body: %s: stopping", strerror(-rc));
		body_quit = 1;
	}
}

/*
 * SIGTERM or SIGINT: a stiff robot first sits down and goes limp (at most
 * SHUTDOWN_NS), as the watchdog would; the clients are let go at once, so
 * nothing wakes it again. A second signal stops at once. The body thread's
 * part: the LoLA clients and the body.
 */
static void shutdown_step(struct daemon *d)
{
	static uint64_t deadline;
	uint64_t now = mono_ns();

	if (!signals)
		return;
	if (signals > 1) {
		body_quit = 1;
		return;
	}
	if (!deadline) {
		deadline = now + SHUTDOWN_NS;
		log_info("stopping: letting the clients go");
		/* Its thread closes them; main ends it after the body thread. */
		if (d->ctl == CTL_LOLA)
			core_release(d, CTL_LOLA, d->ctl_who);
		lola_stop(d->lola);
		/* The robot API's clients are the network thread's: gone too. */
		if (d->ctl == CTL_API)
			core_release(d, CTL_API, d->ctl_who);
		if (d->status.primary != PRIMARY_UNSTIFF) {
			log_info("stopping: sitting down and going limp first (signal again to stop at once)");
			/* A LoLA client's last command is adopted by the next cycle. */
			motion_power(d->motion, POWER_REST, now);
			return;
		}
	}
	/* Not when State says Unstiff: the last few per cent of the ramp too. */
	if (motion_limp(d->motion)) {
		body_quit = 1;
	} else if (now > deadline) {
		log_warn("stopping: still not limp after %llu s; stopping anyway",
			 SHUTDOWN_NS / 1000000000ULL);
		body_quit = 1;
	}
}

static void body_housekeeping(void *ctx)
{
	shutdown_step(ctx);
}

static void net_housekeeping(void *ctx)
{
	struct daemon *d = ctx;

	if (signals && d->api) {
		api_destroy(d->api);
		d->api = NULL;
	}
	if (d->api)
		api_housekeeping(d->api, mono_ns());
	if (atomic_load(&body_done))
		quit = 1;
}

/* Locked memory when asked, for both threads; a failure is logged, not fatal. */
/*
 * systemd's CPUSchedulingPolicy= (naobodyd.service) starts the whole process
 * real-time, and the main thread is the network thread: it would serve every
 * peer at the body thread's priority. The body thread alone is real-time, so
 * this thread drops to normal scheduling (always allowed) before any other
 * exists; without --priority the body thread takes the priority the process
 * was started with.
 */
static void leave_real_time(struct config *cfg)
{
	struct sched_param sp = { 0 };
	int policy, err;

	if (pthread_getschedparam(pthread_self(), &policy, &sp) ||
	    (policy != SCHED_FIFO && policy != SCHED_RR))
		return;
	if (!cfg->priority)
		cfg->priority = sp.sched_priority;
	sp.sched_priority = 0;
	err = pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	if (err)
		log_warn("started real-time and cannot leave it (%s): the network side runs real-time",
			 strerror(err));
	else
		log_info("started real-time: the network side at normal priority, SCHED_FIFO %d for the body thread alone",
			 cfg->priority);
}

static void lock_memory(int prio)
{
	if (prio && mlockall(MCL_CURRENT | MCL_FUTURE))
		log_warn("cannot lock memory (%s): running unlocked", strerror(errno));
}

/*
 * The body thread: SCHED_FIFO at --priority, the body's cycle, LoLA. It
 * takes no signals (the network thread does) and never waits on the network
 * side: see handoff.h.
 */
static void *body_thread(void *arg)
{
	struct daemon *d = arg;
	struct sched_param sp = { .sched_priority = d->cfg->priority };
	sigset_t all;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "naobodyd-body");
	if (sp.sched_priority) {
		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (err)
			log_warn("cannot get SCHED_FIFO priority %d (%s): running at normal priority",
				 sp.sched_priority, strerror(err));
		else
			log_info("SCHED_FIFO priority %d (the body thread)", sp.sched_priority);
	}
	if (loop_run(&d->loop, &body_quit))
		log_err("body thread: its loop failed");
	atomic_store(&body_done, true);
	return NULL;
}

static struct body *open_body(const struct config *cfg, struct loop *loop)
{
	struct stat st;

	if (cfg->sim)
		return body_sim_create(cfg, loop);
	/* Never the simulated body by surprise: LoLA clients cannot tell. */
	if (stat(cfg->device, &st)) {
		log_err("%s: %s: no body to serve (is naobody.ko loaded and the chest board "
			"up?); --sim serves the simulated body", cfg->device, strerror(errno));
		return NULL;
	}
	return body_real_create(cfg);
}

static int serve(struct config *cfgp)
{
	static struct daemon d;
	struct config cfg = *cfgp;
	struct sigaction sa = { .sa_handler = on_signal };
	pthread_t body_tid;
	struct rest *rest = NULL;
	pthread_attr_t attr;
	int err, rc = 1;

	d.cfg = &cfg;
	d.guard_fd = -1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	buf_init(&d.events, HANDOFF_EVENTS);
	watchdog_init(&d.wd);
	leds_init(&d.leds);
	rest_mailbox_init(&d.rest_box);

	if (loop_init(&d.loop) || loop_init(&d.net_loop)) {
		log_err("epoll: %s", strerror(errno));
		return 1;
	}
	if (handoff_init(&d.handoff)) {
		log_err("eventfd: %s", strerror(errno));
		goto err_loop;
	}
	leave_real_time(&cfg);
	/* From here on no thread writes stderr itself (log.h); not real-time. */
	err = log_start();
	if (err)
		log_warn("cannot start the logging thread (%s): log lines are written at once",
			 strerror(-err));
	lock_memory(cfg.priority);
	d.loop.housekeeping = body_housekeeping;
	d.loop.ctx = &d;
	d.net_loop.housekeeping = net_housekeeping;
	d.net_loop.ctx = &d;
	d.body = open_body(&cfg, &d.loop);
	if (!d.body)
		goto err_handoff;
	/* Its thread's readings come with the body's next state (body_ready()). */
	if (cfg.head_bus)
		d.head = head_bus_start(cfg.head_bus);
	d.motion = motion_create(&d.body->info);
	if (!d.motion)
		goto err_body;
	/* LoLA first: once the API port answers, everything is ready. */
	if (cfg.lola_path) {
		d.lola = lola_create(cfg.lola_path, cfg.lola_mode, &d.body->info, cfg.priority);
		if (!d.lola)
			goto err_motion;
	}
	d.guard_fd = guard_connect(&cfg);
	d.body_watch.fd = d.body->ops->fd(d.body);
	d.body_watch.cb = body_ready;
	if (loop_add(&d.loop, &d.body_watch, EPOLLIN)) {
		log_err("epoll: %s", strerror(errno));
		goto err_guard;
	}
	log_info("naobodyd %s: the %s body %s, head %s; watchdog %llu ms / %llu ms",
		 NAOBODYD_VERSION, d.body->ops->name, d.body->info.body_id,
		 d.body->info.head_id, WATCHDOG_STAND_NS / 1000000ULL,
		 WATCHDOG_SIT_NS / 1000000ULL);
	/* A small stack: with --priority every page of it is locked in. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, BODY_STACK);
	err = pthread_create(&body_tid, &attr, body_thread, &d);
	pthread_attr_destroy(&attr);
	if (err) {
		log_err("cannot start the body thread: %s", strerror(err));
		goto err_watch;
	}
	/* Before the robot API, whose network thread takes its microphone chunks. */
	if (cfg.audio.speaker || cfg.audio.mics || cfg.audio.mixer) {
		/* NULL only without memory or threads: the body is served without audio. */
		d.audio = head_audio_create(&cfg.audio);
	} else {
		log_info("audio: none (%s)", cfg.sim ? "the simulated body has no microphones or speaker" :
			 "--no-audio");
	}
	/* Before the API: a Subscribe may name them from its first message. */
	d.cameras = head_cameras_create(&cfg.cameras);
	if (d.cameras)
		d.api = api_create(&d);
	/* Its own threads (rest.h); without it when asked, else it must start. */
	if (d.api && cfg.rest) {
		rest = rest_create(&d);
		if (!rest) {
			log_err("the REST API did not start (above): --state-dir DIR keeps its token "
				"elsewhere, --rest-port PORT serves it on another port, --no-rest runs "
				"without it");
			api_destroy(d.api);
			d.api = NULL;
		}
	}
	/* Everything that needs root is open: the peers are served without it. */
	if (d.api && privileges_drop(cfg.user, cfg.priority)) {
		rest_destroy(rest);
		rest = NULL;
		api_destroy(d.api);
		d.api = NULL;
	}
	if (d.api) {
		sd_notify(0, "READY=1");	/* naobodyd.service is Type=notify */
		rc = loop_run(&d.net_loop, &quit) ? 1 : 0;
		sd_notify(0, "STOPPING=1");
	}
	log_info("stopping");
	/* The body thread goes first (it sits the robot down on a signal). */
	if (!signals)
		signals = 2;
	body_quit = body_quit || !d.api;
	pthread_join(body_tid, NULL);
	api_destroy(d.api);
	d.api = NULL;
	/* After the body thread, before the body: a POST /stop may call it until here. */
	rest_destroy(rest);
	head_cameras_destroy(d.cameras);
	head_audio_destroy(d.audio);

err_watch:
	loop_del(&d.loop, &d.body_watch);
err_guard:
	if (d.guard_fd >= 0)
		close(d.guard_fd);
	lola_destroy(d.lola);
err_motion:
	motion_destroy(d.motion);
err_body:
	head_bus_stop(d.head);
	d.body->ops->destroy(d.body);
err_handoff:
	handoff_uninit(&d.handoff);
err_loop:
	rest_mailbox_uninit(&d.rest_box);
	loop_uninit(&d.net_loop);
	loop_uninit(&d.loop);
	buf_free(&d.events);
	return rc;
}

int main(int argc, char **argv)
{
	struct config cfg = { 0 };
	char guard[256];
	int rc = parse_options(argc, argv, &cfg, guard, sizeof(guard));

	if (rc >= 0)
		return rc;
	if (privileges_check(cfg.user))
		return 1;
	rc = serve(&cfg);
	log_stop();
	return rc;
}
