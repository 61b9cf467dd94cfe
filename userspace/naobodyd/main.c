// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: gives any program safe, real-time access to a NAO6's body, over
 * the robot API (TCP 7700) and a LoLA-compatible socket (/tmp/robocup).
 * This file: start-up and shut-down; the options are options.c's.
 */
#include <errno.h>
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
#include "options.h"
#include "privileges.h"
#include "rest/rest.h"

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

/* The motion layer's notes, into the log's queue (it never blocks the body's thread). */
static void motion_note(bool warn, const char *line)
{
	nb_log(warn ? LOG_LVL_WARN : LOG_LVL_INFO, "%s", line);
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
	d.motion = motion_create(&(struct motion_body){
		.can_walk = d.body->info.can_walk,
		.can_stand_up = d.body->info.can_stand_up,
		.can_protect = d.body->info.can_protect,
	}, motion_note);
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
	int rc = options_parse(argc, argv, &cfg);

	if (rc >= 0)
		return rc;
	if (privileges_check(cfg.user))
		return 1;
	rc = serve(&cfg);
	log_stop();
	return rc;
}
