// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: its options (naobodyd.8): the defaults, --help, and the
 * command line into struct config. The options are taken a group at a
 * time, as --help lists them: the body, the head, the network's peers
 * (robot API, REST, LoLA, the guard), the process.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "head/head_bus.h"
#include "log.h"
#include "lola/lola.h"
#include "naobodyd.h"
#include "options.h"
#include "privileges.h"
#include "rest/rest.h"
#include "rest/rest_serial.h"

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

/* An unsigned number of base's digits and nothing else, at most max. */
static bool parse_ulong(const char *s, int base, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, base);
	return !errno && end != s && !*end && *s != '-' && *v <= max;
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

/* What the options say beyond struct config, until the defaults are chosen. */
struct parsing {
	bool head_bus_given, head_id_file_given, model_given, no_audio;
	const char *speaker, *mics, *mixer;
	char guard[256];		/* --guard's host, as cfg->guard_host */
};

/* Each group's options: -1 taken, NOT_MINE for another group's, else the exit status. */
#define NOT_MINE	(-2)

/* The body, real or simulated. */
static int body_option(int c, char *arg, struct config *cfg, struct parsing *p)
{
	char *end;

	switch (c) {
	case 'd':
		cfg->device = arg;
		return -1;
	case 's':
		cfg->sim = true;
		return -1;
	case OPT_SIM_CONTROL:
		cfg->sim_control = arg;
		return -1;
	case OPT_SIM_SCRIPT:
		cfg->sim_script = arg;
		return -1;
	case OPT_SIM_START:
		if (strcmp(arg, "lying") && strcmp(arg, "sitting"))
			return bad("--sim-start", "lying or sitting", arg);
		cfg->sim_sitting = !strcmp(arg, "sitting");
		return -1;
	case OPT_SIM_PHYSICS:
		if (!cfg->sim_model)
			cfg->sim_model = default_model();
		cfg->sim = true;
		return -1;
	case OPT_SIM_MODEL:
		if (!*arg)
			return bad("--sim-model", "a MuJoCo model file", arg);
		cfg->sim_model = arg;
		p->model_given = true;
		cfg->sim = true;
		return -1;
	case OPT_SIM_BATTERY:
		cfg->sim_battery = strtof(arg, &end);
		if (end == arg || *end || !(cfg->sim_battery >= 0.0f && cfg->sim_battery <= 1.0f))
			return bad("--sim-battery", "a charge from 0 to 1", arg);
		return -1;
	case OPT_SIM_UNCALIBRATED:
		cfg->sim_uncalibrated = strtof(arg, &end);
		if (end == arg || *end ||
		    !(cfg->sim_uncalibrated >= 0.0f && cfg->sim_uncalibrated <= 1e6f))
			return bad("--sim-uncalibrated", "seconds, 0 to 1000000", arg);
		return -1;
	case OPT_ALLOW_UNCALIBRATED:
		cfg->allow_uncalibrated = true;
		return -1;
	case OPT_ROBOT_MOTIONS:
		if (!*arg)
			return bad("--robot-motions", "naoctl verify's verdict file", arg);
		cfg->robot_motions = arg;
		return -1;
	case OPT_BODY_ID:
	case OPT_HEAD_ID:
		if (!*arg || strlen(arg) > BODY_ID_LEN)
			return bad(c == OPT_BODY_ID ? "--body-id" : "--head-id",
				   "1 to 20 characters", arg);
		*(c == OPT_BODY_ID ? &cfg->body_id : &cfg->head_id) = arg;
		return -1;
	}
	return NOT_MINE;
}

/* The head: its id's file, its bus, its cameras, its speaker and microphones. */
static int head_option(int c, char *arg, struct config *cfg, struct parsing *p)
{
	unsigned long v, h = 0;
	char *end;

	switch (c) {
	case OPT_HEAD_ID_FILE:
		cfg->head_id_file = arg;
		p->head_id_file_given = true;
		return -1;
	case OPT_HEAD_BUS:
	case OPT_NO_HEAD_BUS:
		cfg->head_bus = c == OPT_HEAD_BUS ? arg : NULL;
		p->head_bus_given = true;
		return -1;
	case OPT_CAMERA_TOP:
	case OPT_CAMERA_BOTTOM:
		cfg->cameras.path[c == OPT_CAMERA_TOP ? 0 : 1] = *arg ? arg : NULL;
		return -1;
	case OPT_CAMERA_SIZE:
		v = strtoul(arg, &end, 10);
		if (end != arg && *end == 'x')
			h = strtoul(end + 1, &end, 10);
		if (*end || *arg == '-' || v < 2 || v > 4096 || v % 2 || h < 1 || h > 4096)
			return bad("--camera-size", "WIDTHxHEIGHT, an even width, up to 4096x4096", arg);
		cfg->cameras.width = (uint32_t)v;
		cfg->cameras.height = (uint32_t)h;
		return -1;
	case OPT_CAMERA_FPS:
		if (!parse_ulong(arg, 10, 120, &v) || v < 1)
			return bad("--camera-fps", "frames per second, 1..120", arg);
		cfg->cameras.fps = (uint32_t)v;
		return -1;
	case OPT_CAMERA_QUALITY:
		if (!parse_ulong(arg, 10, 100, &v) || v < 1)
			return bad("--camera-quality", "1..100", arg);
		cfg->cameras.quality = (int)v;
		return -1;
	case OPT_SPEAKER:
	case OPT_MICS:
	case OPT_MIXER:
	case OPT_MIXER_CONTROL:
		if (!*arg)
			return bad(c == OPT_MIXER_CONTROL ? "--mixer-control" :
				   c == OPT_MIXER ? "--mixer" :
				   c == OPT_MICS ? "--microphones" : "--speaker",
				   "an ALSA name", arg);
		if (c == OPT_SPEAKER)
			p->speaker = arg;
		else if (c == OPT_MICS)
			p->mics = arg;
		else if (c == OPT_MIXER)
			p->mixer = arg;
		else
			cfg->audio.control = arg;
		return -1;
	case OPT_NO_AUDIO:
		p->no_audio = true;
		return -1;
	}
	return NOT_MINE;
}

/* [::1]:7701, 127.0.0.1:7701, localhost:7701: the host into p->guard (cfg->guard_host). */
static int guard_option(const char *arg, struct config *cfg, struct parsing *p)
{
	const char *colon = strrchr(arg, ':');
	char *g = p->guard;

	if (!colon || colon == arg || !parse_port(colon + 1, &cfg->guard_port) ||
	    (size_t)(colon - arg) >= sizeof(p->guard))
		return bad("--guard", "HOST:PORT", arg);
	snprintf(g, sizeof(p->guard), "%.*s", (int)(colon - arg), arg);
	if (g[0] == '[' && g[strlen(g) - 1] == ']') {
		memmove(g, g + 1, strlen(g));
		g[strlen(g) - 1] = '\0';
	}
	return -1;
}

/* The peers: the robot API, the REST API, LoLA, naoguard. */
static int peers_option(int c, char *arg, struct config *cfg, struct parsing *p)
{
	unsigned long v;

	switch (c) {
	case 'p':
		if (!parse_port(arg, &cfg->port))
			return bad("--port", "a port number, 0..65535", arg);
		return -1;
	case 'b':
		cfg->bind = arg;
		return -1;
	case OPT_ECHO:
		cfg->echo_cancellation = true;
		return -1;
	case OPT_REST_PORT:
		if (!parse_port(arg, &cfg->rest_port))
			return bad("--rest-port", "a port number, 0..65535", arg);
		return -1;
	case OPT_REST_BIND:
		cfg->rest_bind = arg;
		return -1;
	case OPT_NO_REST:
		cfg->rest = false;
		return -1;
	case OPT_STATE_DIR:
	case OPT_WWW:
		if (!*arg)
			return bad(c == OPT_WWW ? "--www" : "--state-dir", "a directory", arg);
		*(c == OPT_WWW ? &cfg->www_dir : &cfg->state_dir) = arg;
		return -1;
	case OPT_NO_WWW:
		cfg->www_dir = NULL;
		return -1;
	case OPT_SERIAL:
		if (!rest_serial_arg_ok(arg))
			return bad("--serial", "cm5:PATH or parol6:PATH", arg);
		if (cfg->n_serial == sizeof(cfg->serial) / sizeof(cfg->serial[0]))
			return bad("--serial", "at most 8 of them", arg);
		cfg->serial[cfg->n_serial++] = arg;
		return -1;
	case 'l':
		if (!*arg)
			return bad("--lola", "a socket path", arg);
		cfg->lola_path = arg;
		return -1;
	case OPT_LOLA_MODE:
		if (!parse_ulong(arg, 8, 0777, &v))
			return bad("--lola-mode", "octal permissions such as 0660", arg);
		cfg->lola_mode = (mode_t)v;
		return -1;
	case OPT_NO_LOLA:
		cfg->lola_path = NULL;
		return -1;
	case 'g':
		return guard_option(arg, cfg, p);
	case OPT_NO_GUARD:
		cfg->guard_host = NULL;
		return -1;
	}
	return NOT_MINE;
}

/* The process: its scheduling, its user, its log, and the answers. */
static int process_option(int c, char *arg, struct config *cfg)
{
	unsigned long v;

	switch (c) {
	case 'r':
		if (!parse_ulong(arg, 10, 99, &v))
			return bad("--priority", "0..99", arg);
		cfg->priority = (int)v;
		return -1;
	case 'u':
		if (!*arg)
			return bad("--user", "a user name", arg);
		cfg->user = arg;
		return -1;
	case 'v':
		log_level = LOG_LVL_DEBUG;
		return -1;
	case 'q':
		log_level = LOG_LVL_WARN;
		return -1;
	case 'h':
		usage(stdout);
		return 0;
	case 'V':
		printf("naobodyd %s (robot API version %d)\n", NAOBODYD_VERSION, API_VERSION);
		return 0;
	}
	fprintf(stderr, "Try 'naobodyd --help'.\n");
	return 2;
}

static void defaults(struct config *cfg, struct parsing *p)
{
	static char state_buf[PATH_MAX];

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
	snprintf(p->guard, sizeof(p->guard), "127.0.0.1");
	cfg->guard_host = p->guard;
	cfg->cameras.path[0] = CAMERA_DEFAULT_TOP;
	cfg->cameras.path[1] = CAMERA_DEFAULT_BOTTOM;
	cfg->cameras.width = CAMERA_DEFAULT_WIDTH;
	cfg->cameras.height = CAMERA_DEFAULT_HEIGHT;
	cfg->cameras.fps = CAMERA_DEFAULT_FPS;
	cfg->cameras.quality = 80;
}

/* What the options given decide together. -1 to go on, else the exit status. */
static int finish(struct config *cfg, const struct parsing *p)
{
	struct head_audio_config *au = &cfg->audio;

	if (!cfg->sim && (cfg->sim_control || cfg->sim_script))
		cfg->sim = true;	/* simulator options imply the simulator */
	/* The default model missing (a copy of the binary, nothing installed): say what to do. */
	if (cfg->sim_model && !p->model_given && access(cfg->sim_model, R_OK)) {
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
	if (!p->head_bus_given && !cfg->sim)
		cfg->head_bus = HEAD_BUS_DEFAULT_PATH;
	if (!p->head_id_file_given && !cfg->sim)
		cfg->head_id_file = HEAD_ID_DEFAULT_PATH;
	/*
	 * The real body's head has them all; the simulated body none (the
	 * spec: simulated, no microphones or speakers) but the ones named.
	 */
	if (!p->no_audio) {
		au->speaker = p->speaker ? p->speaker : cfg->sim ? NULL : HEAD_AUDIO_DEFAULT_SPEAKER;
		au->mics = p->mics ? p->mics : cfg->sim ? NULL : HEAD_AUDIO_DEFAULT_MICS;
		au->mixer = p->mixer ? p->mixer : cfg->sim ? NULL : HEAD_AUDIO_DEFAULT_MIXER;
	}
	if (!au->control)
		au->control = HEAD_AUDIO_DEFAULT_CONTROL;
	au->speaker_rate = au->mic_rate = HEAD_AUDIO_DEFAULT_DEV_RATE;
	au->speaker_channels = HEAD_AUDIO_DEFAULT_SPK_CHANNELS;
	au->mic_channels = HEAD_AUDIO_DEFAULT_MIC_CHANNELS;
	au->echo_cancellation = cfg->echo_cancellation;
	return -1;
}

int options_parse(int argc, char **argv, struct config *cfg)
{
	static struct parsing p;
	int c, rc;

	defaults(cfg, &p);
	while ((c = getopt_long(argc, argv, "d:sp:b:l:g:r:u:vqhV", options, NULL)) != -1) {
		rc = body_option(c, optarg, cfg, &p);
		if (rc == NOT_MINE)
			rc = head_option(c, optarg, cfg, &p);
		if (rc == NOT_MINE)
			rc = peers_option(c, optarg, cfg, &p);
		if (rc == NOT_MINE)
			rc = process_option(c, optarg, cfg);
		if (rc >= 0)
			return rc;
	}
	if (optind < argc) {
		fprintf(stderr, "naobodyd: unexpected argument '%s'\nTry 'naobodyd --help'.\n",
			argv[optind]);
		return 2;
	}
	return finish(cfg, &p);
}
