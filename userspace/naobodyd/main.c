// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: gives any program safe, real-time access to a NAO6's body, over
 * the robot API (TCP 7700) and a LoLA-compatible socket (/tmp/robocup).
 * This file: options, start-up and shut-down.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "clock.h"
#include "log.h"
#include "lola.h"
#include "naobodyd.h"

static volatile sig_atomic_t quit, signals;

static void on_signal(int sig)
{
	signals++;
}

/* How long a stop may take to sit the robot down before going. */
#define SHUTDOWN_NS	(5000ULL * 1000000ULL)

static void usage(FILE *f)
{
	fprintf(f,
"Usage: naobodyd [OPTION]...\n"
"Serve the NAO6's body: the robot API on TCP port 7700, a LoLA-compatible\n"
"socket, the watchdog and the death switch. See naobodyd(8).\n"
"\n"
"Body:\n"
"  -d, --device PATH        the body's device (default " DEVICE_DEFAULT_PATH ")\n"
"  -s, --sim                use the simulated body (also used when there is no\n"
"                           device)\n"
"      --sim-control PATH   the simulator's control socket (commands: touch,\n"
"                           push, battery, charger, sonar, temperature, rearm,\n"
"                           status)\n"
"      --sim-script FILE    simulator commands, one \"SECONDS COMMAND\" a line\n"
"      --sim-battery CHARGE the simulated battery's charge at start, 0..1\n"
"                           (default 0.9)\n"
"      --body-id ID         the body id Hello and LoLA report (20 characters)\n"
"      --head-id ID         the head id Hello and LoLA report (20 characters)\n"
"\n"
"Robot API:\n"
"  -p, --port PORT          TCP port (default %u; 0 picks a free one)\n"
"  -b, --bind ADDRESS       listen on ADDRESS only (default: every interface)\n"
"      --echo-cancellation  tell clients the robot removes its own voice\n"
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
"  -v, --verbose            log more (debug lines)\n"
"  -q, --quiet              log warnings and errors only\n"
"  -h, --help               show this help\n"
"  -V, --version            show the version\n",
		API_DEFAULT_PORT, GUARD_DEFAULT_PORT);
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
	OPT_SIM_CONTROL = 256, OPT_SIM_SCRIPT, OPT_SIM_BATTERY, OPT_BODY_ID, OPT_HEAD_ID,
	OPT_ECHO, OPT_LOLA_MODE, OPT_NO_LOLA, OPT_NO_GUARD,
};

static const struct option options[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "sim", no_argument, NULL, 's' },
	{ "sim-control", required_argument, NULL, OPT_SIM_CONTROL },
	{ "sim-script", required_argument, NULL, OPT_SIM_SCRIPT },
	{ "sim-battery", required_argument, NULL, OPT_SIM_BATTERY },
	{ "body-id", required_argument, NULL, OPT_BODY_ID },
	{ "head-id", required_argument, NULL, OPT_HEAD_ID },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, 'b' },
	{ "echo-cancellation", no_argument, NULL, OPT_ECHO },
	{ "lola", required_argument, NULL, 'l' },
	{ "lola-mode", required_argument, NULL, OPT_LOLA_MODE },
	{ "no-lola", no_argument, NULL, OPT_NO_LOLA },
	{ "guard", required_argument, NULL, 'g' },
	{ "no-guard", no_argument, NULL, OPT_NO_GUARD },
	{ "priority", required_argument, NULL, 'r' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct config *cfg, char *guard, size_t n)
{
	int c;

	cfg->port = API_DEFAULT_PORT;
	cfg->lola_path = LOLA_DEFAULT_PATH;
	cfg->lola_mode = 0666;
	cfg->device = DEVICE_DEFAULT_PATH;
	cfg->sim_battery = 0.9f;
	cfg->guard_port = GUARD_DEFAULT_PORT;
	snprintf(guard, n, "127.0.0.1");
	cfg->guard_host = guard;

	while ((c = getopt_long(argc, argv, "d:sp:b:l:g:r:vqhV", options, NULL)) != -1) {
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
		case OPT_SIM_BATTERY:
			cfg->sim_battery = strtof(optarg, &end);
			if (end == optarg || *end || !(cfg->sim_battery >= 0.0f && cfg->sim_battery <= 1.0f))
				return bad("--sim-battery", "a charge from 0 to 1", optarg);
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
		case OPT_ECHO:
			cfg->echo_cancellation = true;
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
		case 'r': {
			unsigned long p = strtoul(optarg, &end, 10);

			if (end == optarg || *end || p > 99 || *optarg == '-')
				return bad("--priority", "0..99", optarg);
			cfg->priority = (int)p;
			break;
		}
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
	struct body_frame f;
	int rc = d->body->ops->read(d->body, &f);

	if (rc > 0) {
		core_cycle(d, &f);
	} else if (rc < 0) {
		log_err("body: %s: stopping", strerror(-rc));
		quit = 1;
	}
}

/*
 * SIGTERM or SIGINT: a stiff robot first sits down and goes limp (at most
 * SHUTDOWN_NS), as the watchdog would; the clients are let go at once, so
 * nothing wakes it again. A second signal stops at once.
 */
static void shutdown_step(struct daemon *d)
{
	static uint64_t deadline;
	uint64_t now = mono_ns();

	if (!signals)
		return;
	if (signals > 1) {
		quit = 1;
		return;
	}
	if (!deadline) {
		deadline = now + SHUTDOWN_NS;
		log_info("stopping: letting the clients go");
		lola_destroy(d->lola);
		d->lola = NULL;
		api_destroy(d->api);
		d->api = NULL;
		if (d->status.primary != PRIMARY_UNSTIFF) {
			log_info("stopping: sitting down and going limp first (signal again to stop at once)");
			/* A LoLA client's last command is adopted by the next cycle. */
			motion_power(d->motion, POWER_REST, now);
			return;
		}
	}
	/* Not when State says Unstiff: the last few per cent of the ramp too. */
	if (motion_limp(d->motion)) {
		quit = 1;
	} else if (now > deadline) {
		log_warn("stopping: still not limp after %llu s; stopping anyway",
			 SHUTDOWN_NS / 1000000000ULL);
		quit = 1;
	}
}

static void housekeeping(void *ctx)
{
	struct daemon *d = ctx;

	if (d->api)
		api_housekeeping(d->api, mono_ns());
	shutdown_step(d);
}

/* SCHED_FIFO and locked memory when asked; a failure is logged, not fatal. */
static void realtime(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (!prio)
		return;
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		log_warn("cannot lock memory (%s): running unlocked", strerror(errno));
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		log_warn("cannot get SCHED_FIFO priority %d (%s): running at normal priority",
			 prio, strerror(errno));
	else
		log_info("SCHED_FIFO priority %d", prio);
}

static struct body *open_body(const struct config *cfg, struct loop *loop)
{
	struct stat st;

	if (!cfg->sim) {
		if (!stat(cfg->device, &st))
			return body_real_create(cfg);
		log_info("no %s: using the simulated body", cfg->device);
	}
	return body_sim_create(cfg, loop);
}

int main(int argc, char **argv)
{
	static struct daemon d;
	struct config cfg = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	char guard[256];
	int rc = parse_options(argc, argv, &cfg, guard, sizeof(guard));

	if (rc >= 0)
		return rc;
	rc = 1;
	d.cfg = &cfg;
	d.guard_fd = -1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	buf_init(&d.scratch, 4096);
	watchdog_init(&d.wd);
	leds_init(&d.leds);

	if (loop_init(&d.loop)) {
		log_err("epoll: %s", strerror(errno));
		return 1;
	}
	realtime(cfg.priority);
	d.loop.housekeeping = housekeeping;
	d.loop.ctx = &d;
	d.body = open_body(&cfg, &d.loop);
	if (!d.body)
		goto err_loop;
	d.motion = motion_create(&d.body->info);
	if (!d.motion)
		goto err_body;
	/* LoLA first: once the API port answers, everything is ready. */
	if (cfg.lola_path) {
		d.lola = lola_create(&d, cfg.lola_path, cfg.lola_mode);
		if (!d.lola)
			goto err_motion;
	}
	d.api = api_create(&d);
	if (!d.api)
		goto err_lola;
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

	rc = loop_run(&d.loop, &quit) ? 1 : 0;
	log_info("stopping");

	loop_del(&d.loop, &d.body_watch);
err_guard:
	if (d.guard_fd >= 0)
		close(d.guard_fd);
	api_destroy(d.api);
err_lola:
	lola_destroy(d.lola);
err_motion:
	motion_destroy(d.motion);
err_body:
	d.body->ops->destroy(d.body);
err_loop:
	loop_uninit(&d.loop);
	buf_free(&d.scratch);
	return rc;
}
