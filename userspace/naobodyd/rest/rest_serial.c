// SPDX-License-Identifier: GPL-2.0-only
/*
 * The REST API's serial bodies: discovery, the PAROL6 arms' command
 * threads, the CM-5s' register exchanges, and their JSON. See
 * rest_serial.h for the threads, Documentation/rest-api.rst for the design.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-device.h>

#include "clock.h"
#include "log.h"
#include "naobodyd.h"
#include "rest_serial.h"
#include "rest_serial_parse.h"

#define SERIAL_BODIES		16
/* A TCG VM stalls for hundreds of ms: parolctl's tests use 1 s too. */
#define SERIAL_LINK_TIMEOUT_MS	1000
/* How long a request waits for an arm's command to start or end. */
#define SERIAL_WAIT_MS		3000
/* How long a request waits for another's CM-5 exchange to end. */
#define SERIAL_LOCK_MS		3000
#define SERIAL_MISC		"/sys/class/misc"

enum sb_kind { SB_CM5, SB_PAROL6 };

enum job_kind { J_NONE, J_STATUS, J_ENABLE, J_DISABLE, J_CLEAR, J_HOME, J_JOG, J_MOVE };

static const char *const job_name[] = {
	[J_NONE] = "none", [J_STATUS] = "status", [J_ENABLE] = "enable",
	[J_DISABLE] = "disable", [J_CLEAR] = "clear-error", [J_HOME] = "home",
	[J_JOG] = "jog", [J_MOVE] = "move",
};

enum job_state { JS_STARTING, JS_RUNNING, JS_DONE, JS_FAILED, JS_REFUSED, JS_STOPPED };

static const char *const state_name[] = {
	[JS_STARTING] = "starting", [JS_RUNNING] = "running", [JS_DONE] = "done",
	[JS_FAILED] = "failed", [JS_REFUSED] = "refused", [JS_STOPPED] = "stopped",
};

struct job {
	enum job_kind kind;
	enum job_state state;
	struct serial_move mv;
	struct serial_jog jg;
	struct parol6_move plan;
	bool planned;
	int64_t start_ms, end_ms;
	int64_t tick0_ms;	/* the loop's first cycle: the ticks count from it */
	int max_ticks;
	int aborting;		/* frames spent ending a homing */
	unsigned int http;	/* the answer's status when it failed */
	char error[32];
	char message[SERIAL_WHY];
};

struct sbody {
	char name[32];
	char path[PATH_MAX];
	enum sb_kind kind;
	const char *found;	/* option, serdev, udev */
	pthread_mutex_t lock;	/* the job, the telemetry, the thread's state */
	pthread_cond_t cond;	/* CLOCK_MONOTONIC; a job's state changed */
	/* PAROL6: one command at a time, on its own thread */
	struct parol6 p6;	/* the thread's only */
	pthread_t thread;
	bool thread_live, thread_done;
	atomic_bool stop;
	struct job job;
	struct parol6_telemetry tel;
	bool have_tel;
	int64_t tel_ms;
	uint64_t sent, received;
	int priority;		/* the body thread's SCHED_FIFO, or 0 */
	bool ranked;		/* the loop's thread is below it */
	/* CM-5: one exchange at a time */
	pthread_mutex_t xlock;
};

struct rest_serial {
	pthread_mutex_t lock;	/* adding bodies; they are never removed */
	unsigned int n;
	struct sbody *b[SERIAL_BODIES];
	char options[8][PATH_MAX + 8];
	unsigned int n_options;
	int priority;		/* --priority: the body thread's */
};

static const char *kind_name(enum sb_kind k)
{
	return k == SB_CM5 ? "cm5" : "parol6";
}

bool rest_serial_arg_ok(const char *arg)
{
	return (!strncmp(arg, "cm5:", 4) && arg[4]) ||
	       (!strncmp(arg, "parol6:", 7) && arg[7]);
}

/* ---- discovery ------------------------------------------------------------ */

static bool known(struct rest_serial *s, const char *path)
{
	char a[PATH_MAX], b[PATH_MAX];
	unsigned int i;

	if (!realpath(path, a))
		snprintf(a, sizeof(a), "%s", path);
	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->b[i]->path, path))
			return true;
		if (realpath(s->b[i]->path, b) && !strcmp(a, b))
			return true;
	}
	return false;
}

/* Called with s->lock held. */
static void add_body(struct rest_serial *s, enum sb_kind kind, const char *path,
		     const char *found)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	pthread_condattr_t ca;
	struct sbody *b;
	unsigned int i, k;

	if (known(s, path))
		return;
	if (s->n == SERIAL_BODIES) {
		log_warn("rest: more than %d serial bodies: %s left out", SERIAL_BODIES, path);
		return;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return;
	snprintf(b->path, sizeof(b->path), "%s", path);
	b->kind = kind;
	b->found = found;
	/* The name in the paths: the node's, made safe and unique. */
	snprintf(b->name, sizeof(b->name), "%.24s", base);
	for (i = 0; b->name[i]; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_.-", b->name[i]))
			b->name[i] = '_';
	if (!b->name[0])
		snprintf(b->name, sizeof(b->name), "%s", kind_name(kind));
	for (k = 2, i = 0; i < s->n; i++) {
		if (strcmp(s->b[i]->name, b->name))
			continue;
		snprintf(b->name, sizeof(b->name), "%.24s-%u", base, k++);
		i = (unsigned int)-1;	/* again from the first */
	}
	pthread_mutex_init(&b->lock, NULL);
	pthread_mutex_init(&b->xlock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&b->stop, false);
	b->job.state = JS_DONE;
	b->priority = s->priority;
	s->b[s->n++] = b;
	log_info("rest: serial body %s: %s on %s (%s)", b->name,
		 kind == SB_CM5 ? "CM-5" : "PAROL6", path, found);
}

/* The serdev nodes: /dev/n_robotN, the robot by its device tree compatible. */
static void scan_serdev(struct rest_serial *s)
{
	DIR *d = opendir(SERIAL_MISC);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[PATH_MAX], compat[256] = "", dev[300];
		size_t n = 0;
		FILE *f;

		if (strncmp(e->d_name, "n_robot", 7))
			continue;
		snprintf(p, sizeof(p), SERIAL_MISC "/%.64s/device/of_node/compatible", e->d_name);
		f = fopen(p, "r");
		if (f) {
			n = fread(compat, 1, sizeof(compat) - 1, f);
			fclose(f);
		}
		compat[n] = 0;	/* the list's first string: ours is the only one */
		snprintf(dev, sizeof(dev), "/dev/%.64s", e->d_name);
		if (strstr(compat, "cm5"))
			add_body(s, SB_CM5, dev, "serdev");
		else if (strstr(compat, "parol6"))
			add_body(s, SB_PAROL6, dev, "serdev");
	}
	closedir(d);
}

/* The ttys a udev rule named for n_robot (ENV{N_ROBOT}=cm5 or parol6). */
static void scan_udev(struct rest_serial *s)
{
	sd_device_enumerator *en = NULL;
	sd_device *dev;

	if (sd_device_enumerator_new(&en) < 0)
		return;
	if (sd_device_enumerator_add_match_subsystem(en, "tty", 1) < 0 ||
	    sd_device_enumerator_add_match_property(en, "N_ROBOT", "*") < 0) {
		sd_device_enumerator_unref(en);
		return;
	}
	for (dev = sd_device_enumerator_get_device_first(en); dev;
	     dev = sd_device_enumerator_get_device_next(en)) {
		const char *kind = NULL, *node = NULL;

		if (sd_device_get_property_value(dev, "N_ROBOT", &kind) < 0 ||
		    sd_device_get_devname(dev, &node) < 0)
			continue;
		if (!strcmp(kind, "cm5"))
			add_body(s, SB_CM5, node, "udev");
		else if (!strcmp(kind, "parol6"))
			add_body(s, SB_PAROL6, node, "udev");
	}
	sd_device_enumerator_unref(en);
}

static void rescan(struct rest_serial *s)
{
	pthread_mutex_lock(&s->lock);
	scan_serdev(s);
	scan_udev(s);
	pthread_mutex_unlock(&s->lock);
}

struct rest_serial *rest_serial_create(const struct config *cfg)
{
	struct rest_serial *s = calloc(1, sizeof(*s));
	unsigned int i;

	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->priority = cfg->priority;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < cfg->n_serial; i++) {
		const char *a = cfg->serial[i];

		if (!strncmp(a, "cm5:", 4))
			add_body(s, SB_CM5, a + 4, "option");
		else
			add_body(s, SB_PAROL6, a + 7, "option");
	}
	pthread_mutex_unlock(&s->lock);
	rescan(s);
	return s;
}

static struct sbody *body_at(struct rest_serial *s, unsigned int i)
{
	struct sbody *b = NULL;

	pthread_mutex_lock(&s->lock);
	if (i < s->n)
		b = s->b[i];
	pthread_mutex_unlock(&s->lock);
	return b;
}

static struct sbody *body_named(struct rest_serial *s, const char *name)
{
	struct sbody *b;
	unsigned int i;

	for (i = 0; (b = body_at(s, i)); i++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

/* ---- waiting, bounded ------------------------------------------------------ */

static struct timespec deadline(int ms)
{
	uint64_t t = mono_ns() + (uint64_t)ms * 1000000ULL;

	return (struct timespec){ .tv_sec = (time_t)(t / 1000000000ULL),
				  .tv_nsec = (long)(t % 1000000000ULL) };
}

static bool terminal(enum job_state st)
{
	return st >= JS_DONE;
}

/* ---- PAROL6: the command thread ------------------------------------------- */

/* Called with b->lock held: the job ends (the loop then sends the Idle). */
static void job_end(struct sbody *b, enum job_state st, unsigned int http, const char *error,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void job_end(struct sbody *b, enum job_state st, unsigned int http, const char *error,
		    const char *fmt, ...)
{
	struct job *j = &b->job;
	va_list ap;

	if (terminal(j->state))
		return;
	j->state = st;
	j->http = http;
	snprintf(j->error, sizeof(j->error), "%s", error);
	va_start(ap, fmt);
	vsnprintf(j->message, sizeof(j->message), fmt, ap);
	va_end(ap);
	j->end_ms = nr_now_ms();
	pthread_cond_broadcast(&b->cond);
}

static void job_running(struct sbody *b)
{
	if (b->job.state == JS_STARTING) {
		b->job.state = JS_RUNNING;
		pthread_cond_broadcast(&b->cond);
	}
}

/*
 * One cycle of a job, as parolctl's tick() (the rules are libparol6's):
 * returns 0 to go on, 1 when done; every way out of the loop sends Idle at
 * zero speed. Called with b->lock held.
 */
static int job_step(struct sbody *b, const struct parol6_telemetry *t, struct parol6_cmd *next,
		    int ticks)
{
	struct job *j = &b->job;
	char why[SERIAL_WHY];
	int k, homed;
	double since;

	if (j->kind == J_HOME && (atomic_load(&b->stop) || j->aborting)) {
		job_end(b, JS_STOPPED, 409, "stopped", "stopped: ended the homing (disable, "
			"clear-error) and sent Idle at zero speed");
		return parol6_abort_homing(++j->aborting, next);
	}
	if (atomic_load(&b->stop)) {
		job_end(b, JS_STOPPED, 409, "stopped", "stopped: sent Idle at zero speed");
		return 1;
	}
	if (ticks > j->max_ticks) {
		switch (j->kind) {
		case J_JOG:
			job_end(b, JS_DONE, 200, "", "jogged J%d for %.2f s", j->jg.joint + 1,
				j->jg.seconds);
			return 1;
		case J_HOME:
			job_end(b, JS_FAILED, 504, "timeout", "not homed after %.0f s; ended the "
				"homing (disable, clear-error)", j->mv.timeout);
			return parol6_abort_homing(++j->aborting, next);
		default:
			job_end(b, JS_FAILED, 504, "timeout", "%s: gave up after %.1f s",
				job_name[j->kind], (double)j->max_ticks / PAROL6_HZ);
			return 1;
		}
	}
	if (t && t->estop_pressed && j->kind != J_STATUS) {
		job_end(b, JS_REFUSED, 409, "estop_pressed", "the E-stop is pressed: release it, "
			"then POST enable; nothing moved");
		return 1;
	}
	switch (j->kind) {
	case J_STATUS:
		if (t && ticks > 2) {
			job_end(b, JS_DONE, 200, "", "telemetry");
			return 1;
		}
		break;
	case J_ENABLE:
	case J_DISABLE:
	case J_CLEAR:
		job_running(b);
		if (ticks <= 3) {
			next->command = j->kind == J_ENABLE ? PAROL6_ENABLE :
					j->kind == J_DISABLE ? PAROL6_DISABLE : PAROL6_CLEAR_ERROR;
		} else if (t) {
			job_end(b, JS_DONE, 200, "", "%s: sent", job_name[j->kind]);
			return 1;
		}
		break;
	case J_HOME:
		job_running(b);
		if (ticks <= 3) {
			next->command = PAROL6_HOME;
			break;
		}
		/* Idle continues a homing in progress. */
		if (t) {
			for (k = 0, homed = 1; k < PAROL6_JOINTS; k++)
				homed &= t->homed[k];
			if (homed && t->last_command == PAROL6_IDLE) {
				job_end(b, JS_DONE, 200, "", "homed");
				return 1;
			}
		}
		break;
	case J_JOG:
		job_running(b);
		if (t && parol6_jog_at_limit(j->jg.joint, t, j->jg.speed)) {
			job_end(b, JS_DONE, 200, "", "J%d is at its limit: stopped",
				j->jg.joint + 1);
			return 1;
		}
		next->command = PAROL6_JOG;
		next->speed[j->jg.joint] = j->jg.speed;
		break;
	case J_MOVE:
		if (!t)
			return 0;	/* Idle until we know where the arm is */
		if (!j->planned) {
			/* from where the arm is: parolctl's rule on the move's time */
			int err = parol6_plan_move(&j->plan, t->position, j->mv.target,
						   j->mv.speed, j->mv.accel);

			if (err)
				snprintf(why, sizeof(why), "speed and acceleration must be positive");
			else
				err = parol6_check_plan(&j->plan, j->mv.speed, j->mv.timeout, why,
							sizeof(why));
			if (err) {
				job_end(b, JS_REFUSED, 422, "refused", "move refused, nothing "
					"moved: %s", why);
				return 1;
			}
			j->planned = true;
			j->start_ms = nr_now_ms();	/* the profile's clock */
			j->max_ticks = ticks + (int)(j->mv.timeout * PAROL6_HZ);
			job_running(b);
		}
		since = (double)(nr_now_ms() - j->start_ms) / 1000.0;
		if (since >= j->plan.duration && parol6_move_arrived(&j->plan, t)) {
			job_end(b, JS_DONE, 200, "", "there in %.2f s (every joint within %d "
				"steps, at rest)", since, PAROL6_ARRIVED_STEPS);
			return 1;
		}
		next->command = PAROL6_GOTO;
		parol6_move_setpoint(&j->plan, since, 1.0 / PAROL6_HZ, next->position,
				     next->speed);
		break;
	default:
		return 1;
	}
	return 0;
}

static int job_tick(void *ctx, const struct parol6_telemetry *t, struct parol6_cmd *next)
{
	struct sbody *b = ctx;
	int64_t now = nr_now_ms();
	int ticks, ret;

	/*
	 * libparol6's loop makes itself SCHED_FIFO 10 when it may; under
	 * naobodyd it must never outrank the body thread: one below the
	 * body's --priority (at most 10), or normal scheduling with it.
	 */
	if (!b->ranked) {
		struct sched_param sp = { .sched_priority = b->priority > 11 ? 10 :
					  b->priority > 1 ? b->priority - 1 : 0 };

		pthread_setschedparam(pthread_self(), sp.sched_priority ? SCHED_FIFO : SCHED_OTHER,
				      &sp);
		b->ranked = true;
	}
	parol6_idle_cmd(&b->p6, next);
	pthread_mutex_lock(&b->lock);
	/*
	 * Ticks of wall-clock time from the loop's first cycle, as parolctl:
	 * a stalled loop still jogs for its time, and opening the port (the
	 * discipline's attach) eats none of a command's first frames.
	 */
	if (!b->job.tick0_ms)
		b->job.tick0_ms = now;
	ticks = (int)((now - b->job.tick0_ms) * PAROL6_HZ / 1000) + 1;
	if (t) {
		b->tel = *t;
		b->have_tel = true;
		b->tel_ms = b->p6.last_rx_ms;
	}
	b->sent = b->p6.sent;
	b->received = b->p6.received;
	ret = job_step(b, t, next, ticks);
	pthread_mutex_unlock(&b->lock);
	return ret;
}

static const char *link_hint(int err)
{
	switch (-err) {
	case ENOENT:
		return " (is the robot plugged in?)";
	case EACCES:
		return " (naobodyd's user may not open it: see the port's group in "
		       "Documentation/n_robot.rst)";
	case EPERM:
		return " (the line discipline needs CAP_NET_ADMIN)";
	case EPROTOTYPE:
		return " (that n_robot device is another robot's)";
	case EBUSY:
		return " (another program holds it)";
	default:
		return "";
	}
}

static void *job_thread(void *arg)
{
	struct sbody *b = arg;
	int err;

	pthread_setname_np(pthread_self(), "naobodyd-parol6");
	err = parol6_open(&b->p6, b->path, NR_LINK_AUTO);
	if (!err) {
		err = parol6_run(&b->p6, PAROL6_HZ, job_tick, b, NULL, SERIAL_LINK_TIMEOUT_MS);
		nr_link_close(&b->p6.link);
	}
	pthread_mutex_lock(&b->lock);
	b->sent = b->p6.sent;
	b->received = b->p6.received;
	if (err == -ENOLINK || err == -EIO)
		job_end(b, JS_FAILED, 504, "link_lost", "no telemetry for %d ms (is the board "
			"powered and running its firmware?); sent Idle at zero speed",
			SERIAL_LINK_TIMEOUT_MS);
	else if (err && !b->p6.sent)
		job_end(b, JS_FAILED, 503, "no_link", "cannot open %s: %s%s", b->path,
			strerror(-err), link_hint(err));
	else if (err)
		job_end(b, JS_FAILED, 502, "link_error", "%s; sent Idle at zero speed",
			strerror(-err));
	else
		job_end(b, JS_FAILED, 500, "ended", "the command loop ended early");
	b->thread_done = true;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* Called with b->lock held: the last job's thread is gone (bounded wait). */
static bool reap(struct sbody *b)
{
	struct timespec until = deadline(SERIAL_WAIT_MS);

	if (!b->thread_live)
		return true;
	while (!b->thread_done)
		if (pthread_cond_timedwait(&b->cond, &b->lock, &until) == ETIMEDOUT)
			return false;
	pthread_join(b->thread, NULL);
	b->thread_live = false;
	return true;
}

/*
 * Start a job (b->lock held): 0, or an HTTP status with the answer's
 * error and message when another one runs.
 */
static unsigned int job_start(struct sbody *b, const struct job *j, char *why, size_t len)
{
	sigset_t all, old;
	int err;

	if (b->thread_live && !terminal(b->job.state)) {
		snprintf(why, len, "a %s is running since %.1f s: wait for it (GET /serial/%s), "
			 "or POST /serial/%s/stop", job_name[b->job.kind],
			 (double)(nr_now_ms() - b->job.start_ms) / 1000.0, b->name, b->name);
		return 409;
	}
	if (!reap(b)) {
		snprintf(why, len, "the last command's thread has not ended yet; try again");
		return 503;
	}
	b->job = *j;
	b->job.state = JS_STARTING;
	b->job.start_ms = nr_now_ms();
	b->thread_done = false;
	b->ranked = false;
	atomic_store(&b->stop, false);
	/* The thread takes no signals, as the REST API's other threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&b->thread, NULL, job_thread, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		b->job.state = JS_FAILED;
		snprintf(why, len, "cannot start the command's thread: %s", strerror(err));
		return 503;
	}
	b->thread_live = true;
	return 0;
}

/* Wait (b->lock held, bounded) until the job ends, or only starts. */
static void job_wait(struct sbody *b, bool until_end, int ms)
{
	struct timespec until = deadline(ms);

	while (until_end ? !terminal(b->job.state) : b->job.state == JS_STARTING)
		if (pthread_cond_timedwait(&b->cond, &b->lock, &until) == ETIMEDOUT)
			break;
}

void rest_serial_stop_all(struct rest_serial *s)
{
	struct sbody *b;
	unsigned int i;

	if (!s)
		return;
	for (i = 0; (b = body_at(s, i)); i++)
		if (b->kind == SB_PAROL6)
			atomic_store(&b->stop, true);
}

void rest_serial_destroy(struct rest_serial *s)
{
	struct sbody *b;
	unsigned int i;

	if (!s)
		return;
	rest_serial_stop_all(s);
	for (i = 0; i < s->n; i++) {
		b = s->b[i];
		if (b->thread_live)
			pthread_join(b->thread, NULL);	/* within a cycle or a homing's end */
		pthread_cond_destroy(&b->cond);
		pthread_mutex_destroy(&b->lock);
		pthread_mutex_destroy(&b->xlock);
		free(b);
	}
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* ---- JSON ------------------------------------------------------------------- */

static json_t *err_json(unsigned int *status, unsigned int code, const char *error,
			const char *message)
{
	*status = code;
	return json_pack("{s:s,s:s}", "error", error, "message", message);
}

/* Called with b->lock held. */
static json_t *job_json(const struct sbody *b)
{
	const struct job *j = &b->job;
	int64_t end = terminal(j->state) ? j->end_ms : nr_now_ms();

	if (j->kind == J_NONE)
		return json_null();
	return json_pack("{s:s,s:s,s:s,s:f}", "command", job_name[j->kind], "state",
			 state_name[j->state], "message", j->message, "elapsed_s",
			 (double)(end - j->start_ms) / 1000.0);
}

static json_t *body_json(struct sbody *b)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:b}", "name", b->name, "kind",
			      kind_name(b->kind), "path", b->path, "found", b->found,
			      "present", access(b->path, F_OK) == 0);

	pthread_mutex_lock(&b->lock);
	if (b->kind == SB_PAROL6) {
		bool busy = b->thread_live && !terminal(b->job.state);

		json_object_set_new(o, "state", json_string(busy ? "busy" : "idle"));
		json_object_set_new(o, "command", job_json(b));
		json_object_set_new(o, "frames_sent", json_integer((json_int_t)b->sent));
		json_object_set_new(o, "frames_received", json_integer((json_int_t)b->received));
	}
	pthread_mutex_unlock(&b->lock);
	if (b->kind == SB_CM5) {
		bool busy = pthread_mutex_trylock(&b->xlock) != 0;

		if (!busy)
			pthread_mutex_unlock(&b->xlock);
		json_object_set_new(o, "state", json_string(busy ? "busy" : "idle"));
	}
	return o;
}

static json_t *telemetry_json(const struct sbody *b)
{
	const struct parol6_telemetry *t = &b->tel;
	json_t *joints = json_array();
	int j;

	for (j = 0; j < PAROL6_JOINTS; j++)
		json_array_append_new(joints, json_pack(
			"{s:f,s:i,s:f,s:i,s:b,s:b,s:b}",
			"position_deg", parol6_steps_to_deg(j, t->position[j]),
			"position_steps", t->position[j],
			"speed_deg_s", parol6_steps_to_deg(j, t->speed[j]),
			"speed_steps", t->speed[j], "homed", t->homed[j],
			"temperature_error", t->temperature_error[j],
			"position_error", t->position_error[j]));
	return json_pack("{s:s,s:f,s:o,s:b,s:{s:b,s:b},s:{s:b,s:b},s:s,s:f,s:i,"
			 "s:{s:i,s:i,s:i,s:i,s:b,s:b,s:b,s:i}}",
			 "name", b->name, "age_s", (double)(nr_now_ms() - b->tel_ms) / 1000.0,
			 "joints", joints, "estop_pressed", t->estop_pressed,
			 "inputs", "in1", t->in1, "in2", t->in2,
			 "outputs", "out1", t->out1, "out2", t->out2,
			 "last_command", parol6_command_name(t->last_command),
			 "timing_us", t->timing_us, "timeout_error", t->timeout_error,
			 "gripper", "id", t->grip_id, "position", t->grip_position,
			 "current_ma", t->grip_current, "status", t->grip_status,
			 "activated", t->grip_activated, "moving", t->grip_moving,
			 "calibrated", t->grip_calibrated, "object", t->grip_object);
}

/* ---- PAROL6 requests -------------------------------------------------------- */

static json_t *parol6_command(struct sbody *b, enum job_kind kind, const char *body, size_t len,
			      bool too_big, const char *peer, unsigned int *status)
{
	char why[SERIAL_WHY], msg[SERIAL_WHY + 64];
	struct job j = { .kind = kind };
	json_error_t jerr;
	unsigned int code;
	json_t *o = NULL, *ans;
	bool long_one = kind == J_HOME || kind == J_JOG || kind == J_MOVE;
	int err = 0;

	/* Only a move and a jog read their body; the others take none. */
	if (too_big && (kind == J_MOVE || kind == J_JOG))
		return err_json(status, 413, "body_too_large", "the body is over the limit; "
				"nothing was sent; see Documentation/rest-api.yaml for what to send");
	if (kind == J_MOVE || kind == J_JOG) {
		o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!o) {
			snprintf(msg, sizeof(msg), "malformed JSON at line %d, column %d: %s; "
				 "nothing was sent", jerr.line, jerr.column, jerr.text);
			return err_json(status, 400, "bad_body", msg);
		}
		err = kind == J_MOVE ? serial_parse_move(o, &j.mv, why, sizeof(why)) :
				       serial_parse_jog(o, &j.jg, why, sizeof(why));
		json_decref(o);
		if (err) {
			snprintf(msg, sizeof(msg), "%s refused, nothing was sent: %s", job_name[kind],
				 why);
			/* a well-formed request the rules refuse, or a malformed one */
			return err_json(status, err == -EINVAL ? 400 : 422,
					err == -EINVAL ? "bad_body" : "refused", msg);
		}
	}
	j.max_ticks = kind == J_STATUS ? PAROL6_HZ :
		      kind == J_HOME ? (int)(SERIAL_MOVE_TIMEOUT_S * PAROL6_HZ) :
		      kind == J_JOG ? (int)(j.jg.seconds * PAROL6_HZ) :
		      kind == J_MOVE ? (int)(j.mv.timeout * PAROL6_HZ) + PAROL6_HZ :
		      PAROL6_HZ;
	if (kind == J_HOME)
		j.mv.timeout = SERIAL_MOVE_TIMEOUT_S;
	pthread_mutex_lock(&b->lock);
	code = job_start(b, &j, why, sizeof(why));
	if (code) {
		pthread_mutex_unlock(&b->lock);
		return err_json(status, code, code == 409 ? "busy" : "unavailable", why);
	}
	if (kind != J_STATUS)
		log_info("rest: %s: %s %s", peer, b->name, job_name[kind]);
	/* A long one answers once it runs (202); a short one once it is done. */
	job_wait(b, !long_one, SERIAL_WAIT_MS);
	if (!terminal(b->job.state)) {
		ans = json_pack("{s:s,s:o}", "name", b->name, "command", job_json(b));
		*status = 202;
	} else if (b->job.state == JS_DONE) {
		ans = json_pack("{s:s,s:o}", "name", b->name, "command", job_json(b));
		if (kind == J_STATUS) {
			json_decref(ans);
			ans = NULL;	/* the telemetry instead, below */
		}
		*status = 200;
	} else {
		ans = err_json(status, b->job.http, b->job.error, b->job.message);
		json_object_set_new(ans, "command", job_json(b));
	}
	if (!ans)
		ans = telemetry_json(b);
	pthread_mutex_unlock(&b->lock);
	return ans;
}

static json_t *parol6_telemetry_get(struct sbody *b, const char *peer, unsigned int *status)
{
	json_t *o;

	pthread_mutex_lock(&b->lock);
	if (b->thread_live && !terminal(b->job.state)) {
		/* a command runs: its latest telemetry, a cycle old at most */
		o = b->have_tel ? telemetry_json(b) : NULL;
		pthread_mutex_unlock(&b->lock);
		if (!o)
			return err_json(status, 503, "no_telemetry", "a command is starting and "
					"no telemetry came yet; try again in a moment");
		json_object_set_new(o, "command", json_string(job_name[b->job.kind]));
		*status = 200;
		return o;
	}
	pthread_mutex_unlock(&b->lock);
	/* Idle frames until the board answers, as parolctl status. */
	return parol6_command(b, J_STATUS, NULL, 0, false, peer, status);
}

static json_t *parol6_stop(struct sbody *b, const char *peer, unsigned int *status)
{
	json_t *o;

	pthread_mutex_lock(&b->lock);
	if (!b->thread_live || terminal(b->job.state)) {
		pthread_mutex_unlock(&b->lock);
		/* Nothing runs: send Idle at zero speed anyway; a stop is never refused. */
		o = parol6_command(b, J_STATUS, NULL, 0, false, peer, status);
		if (*status == 200) {
			json_decref(o);
			o = json_pack("{s:s,s:b,s:s}", "name", b->name, "stopped", 1, "message",
				      "nothing was running; sent Idle at zero speed");
		}
		return o;
	}
	atomic_store(&b->stop, true);
	log_warn("rest: %s: %s stop", peer, b->name);
	job_wait(b, true, SERIAL_WAIT_MS);
	o = json_pack("{s:s,s:b,s:s,s:o}", "name", b->name, "stopped",
		      terminal(b->job.state), "message", terminal(b->job.state) ?
		      b->job.message : "the stop is sent; the command has not ended yet",
		      "command", job_json(b));
	pthread_mutex_unlock(&b->lock);
	*status = 200;
	return o;
}

/* ---- CM-5 requests ---------------------------------------------------------- */

static json_t *cm5_fail(unsigned int *status, const struct sbody *b, const char *what, int err)
{
	char msg[SERIAL_WHY + PATH_MAX];

	if (err == -ETIMEDOUT) {
		snprintf(msg, sizeof(msg), "%s: no answer from the CM-5 on %s (is it on, running "
			 "BRBrain?)", what, b->path);
		return err_json(status, 504, "timeout", msg);
	}
	snprintf(msg, sizeof(msg), "%s on %s: %s%s", what, b->path, strerror(-err), link_hint(err));
	return err_json(status, err == -ENOENT || err == -EACCES || err == -EPERM ||
			err == -EPROTOTYPE ? 503 : 502, "link_error", msg);
}

static json_t *cm5_regs_json(const struct serial_regs *r, const int32_t *raw,
			     const struct cm5 *c, int st, bool read)
{
	char sbuf[160];
	json_t *a = json_array();
	unsigned int k;

	for (k = 0; k < r->count; k++) {
		const struct cm5_reg *g = &r->start[k];
		bool missing = read && cm5_read_missing(c, k);
		json_t *e = json_pack("{s:i,s:s,s:i}", "address", g->addr, "name", g->name,
				      "size", g->size);

		json_object_set_new(e, "raw", missing ? json_null() : json_integer(raw[k]));
		json_object_set_new(e, "value", missing ? json_null() :
				    json_real(cm5_to_natural(g, raw[k])));
		json_object_set_new(e, "unit", json_string(g->unit));
		json_array_append_new(a, e);
	}
	return json_pack("{s:i,s:s,s:s,s:o}", "id", r->id, "model", cm5_model_name(r->model),
			 "status", cm5_status_str(st, sbuf, sizeof(sbuf)), "registers", a);
}

static json_t *cm5_exchange(struct sbody *b, struct serial_regs *r, bool read,
			    const char *peer, unsigned int *status)
{
	struct timespec until = deadline(SERIAL_LOCK_MS);
	struct cm5_fmt_entry e = { .id = r->id, .start = r->start, .nregs = r->count };
	int32_t raw[N_ROBOT_CM5_NUM_REG_BYTES] = { 0 };
	char sbuf[160], msg[400];
	struct cm5 *c;
	json_t *o;
	int err, st, fmt;

	if (pthread_mutex_timedlock(&b->xlock, &until))
		return err_json(status, 409, "busy", "another request's exchange with this CM-5 "
				"did not end within 3 s; try again");
	c = calloc(1, sizeof(*c));
	if (!c) {
		pthread_mutex_unlock(&b->xlock);
		return err_json(status, 503, "no_memory", "out of memory; try again");
	}
	err = cm5_open(c, b->path, NR_LINK_AUTO);
	if (err) {
		free(c);
		pthread_mutex_unlock(&b->xlock);
		return cm5_fail(status, b, "cannot open the CM-5", err);
	}
	cm5_set_model(c, r->id, r->model);
	/* the format first, as cm5ctl read and write: known only once answered cleanly */
	st = fmt = read ? cm5_set_read_format(c, &e, 1) : cm5_set_write_format(c, &e, 1);
	if (fmt >= 0 && !(fmt & 0xFF))
		st = read ? cm5_read_raw(c, raw, r->count) : cm5_write_raw(c, r->values, r->count);
	if (fmt >= 0 && (fmt & 0xFF)) {
		snprintf(msg, sizeof(msg), "the CM-5 refused the %s format: %s; nothing was %s",
			 read ? "read" : "write", cm5_status_str(fmt, sbuf, sizeof(sbuf)),
			 read ? "read" : "written");
		o = err_json(status, 502, "cm5_status", msg);
	} else if (st >= 0 && read && (st & CM5_S_DYNAMIXEL_TIMEOUT) && cm5_read_missing(c, 0)) {
		snprintf(msg, sizeof(msg), "Dynamixel %u did not answer (status %s): is it on "
			 "the bus, powered, with that id?", r->id,
			 cm5_status_str(st, sbuf, sizeof(sbuf)));
		o = err_json(status, 504, "servo_timeout", msg);
	} else if (st >= 0 && !read && (st & 0xFF)) {
		snprintf(msg, sizeof(msg), "the CM-5 reported %s: Dynamixel %u may not have taken "
			 "the write", cm5_status_str(st, sbuf, sizeof(sbuf)), r->id);
		o = err_json(status, 502, "cm5_status", msg);
	} else if (st >= 0) {
		o = cm5_regs_json(r, read ? raw : r->values, c, st, read);
		*status = 200;
		if (!read)
			log_info("rest: %s: %s: wrote %u register(s) from %s of Dynamixel %u",
				 peer, b->name, r->count, r->start->name, r->id);
	} else {
		o = cm5_fail(status, b, read ? "reading" : "writing", st);
	}
	cm5_close(c);
	free(c);
	pthread_mutex_unlock(&b->xlock);
	return o;
}

static json_t *cm5_registers(struct sbody *b, struct MHD_Connection *c, bool read,
			     const char *body, size_t len, bool too_big, const char *peer,
			     unsigned int *status)
{
	char why[SERIAL_WHY], msg[SERIAL_WHY + 64];
	struct serial_regs r;
	json_error_t jerr;
	json_t *o;
	int err;

	if (read) {
		err = serial_parse_read(
			MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "id"),
			MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "address"),
			MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "register"),
			MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "count"),
			MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "model"),
			&r, why, sizeof(why));
	} else {
		if (too_big)
			return err_json(status, 413, "body_too_large", "the body is over the "
					"limit; send {\"id\", \"address\", \"values\"}");
		o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!o) {
			snprintf(msg, sizeof(msg), "malformed JSON at line %d, column %d: %s; "
				 "nothing was written", jerr.line, jerr.column, jerr.text);
			return err_json(status, 400, "bad_body", msg);
		}
		err = serial_parse_write(o, &r, why, sizeof(why));
		json_decref(o);
	}
	if (err) {
		snprintf(msg, sizeof(msg), "%s; nothing was %s", why, read ? "read" : "written");
		return err_json(status, err == -EINVAL ? 400 : 422,
				err == -EINVAL ? "bad_request" : "refused", msg);
	}
	return cm5_exchange(b, &r, read, peer, status);
}

/* ---- routing ---------------------------------------------------------------- */

json_t *rest_serial_answer(struct rest_serial *s, struct MHD_Connection *c,
			   const char *method, const char *url, const char *body,
			   size_t len, bool too_big, const char *peer,
			   unsigned int *status)
{
	static const struct { const char *name; enum job_kind kind; } cmds[] = {
		{ "enable", J_ENABLE }, { "disable", J_DISABLE }, { "clear-error", J_CLEAR },
		{ "home", J_HOME }, { "jog", J_JOG }, { "move", J_MOVE },
	};
	char name[40], msg[200];
	const char *rest, *action;
	struct sbody *b;
	bool get = !strcmp(method, "GET");
	size_t n;

	if (!strcmp(url, "/serial")) {
		json_t *a = json_array();
		unsigned int i;

		rescan(s);
		for (i = 0; (b = body_at(s, i)); i++)
			json_array_append_new(a, body_json(b));
		*status = 200;
		return json_pack("{s:o}", "bodies", a);
	}
	rest = url + strlen("/serial/");
	n = strcspn(rest, "/");
	action = rest[n] ? rest + n + 1 : "";
	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1),
		 rest);
	b = n < 32 && serial_name_ok(name) ? body_named(s, name) : NULL;
	if (!b) {
		snprintf(msg, sizeof(msg), "no serial body named '%.32s': GET /serial lists them",
			 name);
		return err_json(status, 404, "not_found", msg);
	}
	if (!*action)
		return *status = 200, body_json(b);
	if (!strcmp(action, "registers") || b->kind == SB_CM5) {
		if (b->kind != SB_CM5) {
			snprintf(msg, sizeof(msg), "%s is a PAROL6: registers are a CM-5's", b->name);
			return err_json(status, 404, "wrong_kind", msg);
		}
		if (strcmp(action, "registers")) {
			snprintf(msg, sizeof(msg), "%s is a CM-5: it has /registers, not /%.20s",
				 b->name, action);
			return err_json(status, 404, "wrong_kind", msg);
		}
		return cm5_registers(b, c, get, body, len, too_big, peer, status);
	}
	if (!strcmp(action, "telemetry"))
		return parol6_telemetry_get(b, peer, status);
	if (!strcmp(action, "stop"))
		return parol6_stop(b, peer, status);
	for (n = 0; n < sizeof(cmds) / sizeof(cmds[0]); n++)
		if (!strcmp(action, cmds[n].name))
			return parol6_command(b, cmds[n].kind, body, len, too_big, peer, status);
	return err_json(status, 404, "not_found", "no such serial body path");
}
