// SPDX-License-Identifier: GPL-2.0-only
/*
 * The physical body (--physics MODEL): the MuJoCo model of the NAO V6
 * (userspace/sim/nao6/nao6.xml) run by libnbphysics, as naobodyd's, in place
 * of the scripted joints, inertial unit, pressure sensors and currents.
 *
 * The model runs in a thread of its own, so the exchange never waits for
 * it. Each received frame:
 *
 *   1. physics_sense()   before the body's step: the thread's last state,
 *                        LoLA units to counts with the preference block's
 *                        calibration, goes into the body's base, so waves
 *                        still add to it and the answer carries it;
 *   2. (the answer is built and queued, the 0x14 answered)
 *   3. physics_cycle()   after: the frame's targets and stiffnesses,
 *                        counts to LoLA units with the same calibration,
 *                        are handed to the thread, which runs the model
 *                        for the time since its last step (at most
 *                        PHYS_MAX_STEP) with them.
 *
 * So an answer reports the state the earlier frames' targets made, as a
 * real board reports what it measured before it applied the new targets.
 * Where the physics is slower than real time (QEMU TCG), the model runs
 * in slow motion (lag_ms) and a step takes the newest targets only
 * (superseded counts the others). The feet's bumpers and the hands' pads
 * come from the model's contacts as well, added to the scripted touches
 * (body.c); battery, temperatures, sonar (the emulator places no obstacle
 * for the model's sonars) and the joint status stay scripted.
 *
 * MuJoCo is loaded at run time (the library's sim_physics_dl.c); a build
 * without libmujoco-dev has no physics and --physics says so
 * (chestboard-emu.mk).
 *
 * --physics-host PATH takes the same two seams to a model on the host
 * (physics_remote.c, nb-physics-server) instead of the thread: this file
 * converts units and picks the one in use; neither needs MuJoCo here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <naobody/body.h>
#include <naobody/units.h>
#include <physics/sim_physics.h>

#include "emu.h"

/* The model's state into the body's base, in counts. */
static void apply(struct emu *e, const struct sim_physics_sense *s)
{
	struct naobody_sensors c, *base = &e->body.base;
	struct nb_sensors u;

	/* the scripted fields as they are, the physical ones from the model */
	memset(&u, 0, sizeof(u));
	nb_sensors_from_counts(&u, base, NULL, &e->boards.cal);
	memcpy(u.accelerometer, s->accelerometer, sizeof(u.accelerometer));
	memcpy(u.gyroscope, s->gyroscope, sizeof(u.gyroscope));
	memcpy(u.angles, s->angles, sizeof(u.angles));
	memcpy(u.fsr, s->fsr, sizeof(u.fsr));
	memcpy(u.position, s->position, sizeof(u.position));
	memcpy(u.current, s->current, sizeof(u.current));
	memset(&c, 0, sizeof(c));
	nb_sensors_to_counts(&c, &u, &e->boards.cal);
	memcpy(base->accelerometer, c.accelerometer, sizeof(c.accelerometer));
	memcpy(base->gyroscope, c.gyroscope, sizeof(c.gyroscope));
	memcpy(base->angles, c.angles, sizeof(c.angles));
	memcpy(base->fsr, c.fsr, sizeof(c.fsr));
	memcpy(base->joint_position, c.joint_position, sizeof(c.joint_position));
	memcpy(base->joint_current, c.joint_current, sizeof(c.joint_current));
	/* body.c adds the scripted touches to these */
	base->touch = s->touch;
}

/* The frame's targets and stiffnesses, counts to LoLA units. */
static void lola_targets(struct emu *e, float target[NAOBODY_JOINTS],
			 float stiffness[NAOBODY_JOINTS])
{
	struct naobody_actuators a;
	struct nb_actuators u;

	memset(&a, 0, sizeof(a));
	memcpy(a.position, e->body.target, sizeof(a.position));
	memcpy(a.stiffness, e->body.stiffness, sizeof(a.stiffness));
	memset(&u, 0, sizeof(u));
	nb_actuators_from_counts(&u, &a, &e->boards.cal);
	memcpy(target, u.position, sizeof(u.position));
	memcpy(stiffness, u.stiffness, sizeof(u.stiffness));
}

/* The scripted standing body's pose, LoLA units: where a model starts. */
void physics_pose(struct emu *e, float pose[NAOBODY_JOINTS])
{
	struct nb_sensors u;

	memset(&u, 0, sizeof(u));
	nb_sensors_from_counts(&u, &e->body.base, NULL, &e->boards.cal);
	memcpy(pose, u.position, sizeof(u.position));
}

#ifdef EMU_MUJOCO
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

/*
 * The longest step of model time the thread runs at once (s): when the
 * physics is slower than real time (TCG: about twice), the model falls
 * behind the clock by the rest (lag_ms) instead of asking ever longer
 * steps; it runs in slow motion, the exchange on time.
 */
#define PHYS_MAX_STEP	0.024f
#define PHYS_NICE	10	/* the thread's nice, added to the emulator's */

struct emu_physics {
	struct sim_physics *sim;
	float mass;
	pthread_t thread;
	pthread_mutex_t lock;		/* everything below */
	pthread_cond_t cond;
	bool started, quit;
	bool fresh;			/* targets the thread hasn't taken */
	float target[NAOBODY_JOINTS], stiffness[NAOBODY_JOINTS];	/* LoLA units */
	bool push;			/* a push to apply */
	float push_f[3];		/* fx, fy, seconds */
	int hold;			/* 1 hold, -1 let go, 0 nothing to do */
	float hold_h;
	struct sim_physics_sense sense;	/* the last step's */
	float torso[4];
	struct emu_physics_stats st;
	uint64_t since_ns;		/* stats reset, CLOCK_MONOTONIC */
};

static uint64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* The physics thread: one step per batch of new targets, never spinning. */
static void *run(void *arg)
{
	struct emu_physics *p = arg;
	float target[NAOBODY_JOINTS], stiffness[NAOBODY_JOINTS];
	struct sim_physics_sense sense;
	uint64_t last = 0, now, t0, w0, cost, wall, lag;
	float torso[4], dt;

	/*
	 * Below the exchange: where the CPUs are short (TCG), the model slows
	 * down rather than the driver's cycle. (Linux: nice is per thread,
	 * and PRIO_PROCESS 0 is the calling thread.)
	 */
	setpriority(PRIO_PROCESS, (id_t)gettid(), getpriority(PRIO_PROCESS, 0) + PHYS_NICE);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->quit && !p->fresh)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->quit)
			break;
		p->fresh = false;
		memcpy(target, p->target, sizeof(target));
		memcpy(stiffness, p->stiffness, sizeof(stiffness));
		if (p->push)
			sim_physics_push(p->sim, p->push_f[0], p->push_f[1], p->push_f[2]);
		if (p->hold)
			sim_physics_hold(p->sim, p->hold > 0, p->hold_h);
		p->push = false;
		p->hold = 0;
		pthread_mutex_unlock(&p->lock);

		now = emu_now();
		dt = last ? (float)(now - last) / 1e9f : 0.012f;
		last = now;
		lag = 0;
		if (dt > PHYS_MAX_STEP) {
			lag = (uint64_t)((dt - PHYS_MAX_STEP) * 1e9f);
			dt = PHYS_MAX_STEP;
		}
		w0 = emu_now();
		t0 = cpu_ns();
		sim_physics_cycle(p->sim, dt, target, stiffness);
		sim_physics_sense(p->sim, &sense);
		sim_physics_torso(p->sim, torso);
		cost = cpu_ns() - t0;
		wall = emu_now() - w0;

		pthread_mutex_lock(&p->lock);
		p->sense = sense;
		memcpy(p->torso, torso, sizeof(torso));
		p->st.cycles++;
		p->st.model_ns += (uint64_t)(dt * 1e9f);
		p->st.lag_ns += lag;
		p->st.clamped += lag != 0;
		p->st.cpu_ns += cost;
		p->st.wall_ns += wall;
		if (cost > p->st.cpu_max_ns)
			p->st.cpu_max_ns = cost;
		if (wall > p->st.wall_max_ns)
			p->st.wall_max_ns = wall;
		if ((uint64_t)(dt * 1e9f) > p->st.dt_max_ns)
			p->st.dt_max_ns = (uint64_t)(dt * 1e9f);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static int local_open(struct emu *e, const char *model)
{
	struct emu_physics *p;
	float pose[NAOBODY_JOINTS];
	char why[512];
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	/* the scripted standing body's pose, settled on the floor */
	physics_pose(e, pose);
	p->sim = sim_physics_create(model, pose, why, sizeof(why));
	if (!p->sim) {
		/* fatal: said even with --quiet */
		fprintf(stderr, "chestboard-emu: --physics: %s\n", why);
		free(p);
		return -ENOENT;
	}
	sim_physics_sense(p->sim, &p->sense);
	sim_physics_torso(p->sim, p->torso);
	p->mass = sim_physics_mass(p->sim);
	p->since_ns = emu_now();
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	r = pthread_create(&p->thread, NULL, run, p);
	if (r) {
		fprintf(stderr, "chestboard-emu: --physics: cannot start its thread: %s\n",
			strerror(r));
		sim_physics_destroy(p->sim);
		free(p);
		return -r;
	}
	p->started = true;
	e->phys = p;
	emu_log(e, 1, "physics: %s, %.2f kg, torso at %.3f m", model, (double)p->mass,
		(double)p->sense.torso_height);
	return 0;
}

static void local_close(struct emu *e)
{
	struct emu_physics *p = e->phys;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	sim_physics_destroy(p->sim);
	free(p);
	e->phys = NULL;
}

/* The thread's last state. */
static void local_state(struct emu *e, struct sim_physics_sense *s)
{
	pthread_mutex_lock(&e->phys->lock);
	*s = e->phys->sense;
	pthread_mutex_unlock(&e->phys->lock);
}

/* A frame arrived: its targets and stiffnesses are the thread's next. */
static void local_cycle(struct emu *e, const float target[NAOBODY_JOINTS],
			const float stiffness[NAOBODY_JOINTS])
{
	struct emu_physics *p = e->phys;

	pthread_mutex_lock(&p->lock);
	memcpy(p->target, target, sizeof(p->target));
	memcpy(p->stiffness, stiffness, sizeof(p->stiffness));
	if (p->fresh)
		p->st.superseded++;	/* the thread is still in the last step */
	p->fresh = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static int local_report(struct emu *e, char *buf, size_t len)
{
	struct emu_physics *p = e->phys;
	struct emu_physics_stats st;
	struct sim_physics_sense s;
	float torso[4], load[2] = { 0, 0 };
	uint64_t since;

	pthread_mutex_lock(&p->lock);
	st = p->st;
	s = p->sense;
	memcpy(torso, p->torso, sizeof(torso));
	since = emu_now() - p->since_ns;
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < NAOBODY_FSRS; i++)
		load[i / 4] += s.fsr[i];
	snprintf(buf, len,
		 "cycles=%llu model_ms=%llu clock_ms=%llu lag_ms=%llu cpu_ms=%llu wall_ms=%llu"
		 " cpu_max_us=%llu wall_max_us=%llu dt_max_us=%llu clamped=%llu superseded=%llu"
		 " torso_height=%.4f torso_z=%.4f acc=%.3f,%.3f,%.3f angles=%.4f,%.4f"
		 " fsr_left=%.3f fsr_right=%.3f mass=%.3f",
		 (unsigned long long)st.cycles, (unsigned long long)(st.model_ns / 1000000),
		 (unsigned long long)(since / 1000000), (unsigned long long)(st.lag_ns / 1000000),
		 (unsigned long long)(st.cpu_ns / 1000000),
		 (unsigned long long)(st.wall_ns / 1000000),
		 (unsigned long long)(st.cpu_max_ns / 1000),
		 (unsigned long long)(st.wall_max_ns / 1000),
		 (unsigned long long)(st.dt_max_ns / 1000), (unsigned long long)st.clamped,
		 (unsigned long long)st.superseded,
		 (double)s.torso_height, (double)torso[2], (double)s.accelerometer[0],
		 (double)s.accelerometer[1], (double)s.accelerometer[2],
		 (double)s.angles[0], (double)s.angles[1], (double)load[0], (double)load[1],
		 (double)p->mass);
	return 0;
}

static void local_reset_stats(struct emu *e)
{
	pthread_mutex_lock(&e->phys->lock);
	memset(&e->phys->st, 0, sizeof(e->phys->st));
	e->phys->since_ns = emu_now();
	pthread_mutex_unlock(&e->phys->lock);
}

/* push and hold: applied by the thread before its next step */
static void local_push(struct emu *e, float fx, float fy, float seconds)
{
	pthread_mutex_lock(&e->phys->lock);
	e->phys->push = true;
	e->phys->push_f[0] = fx;
	e->phys->push_f[1] = fy;
	e->phys->push_f[2] = seconds;
	pthread_mutex_unlock(&e->phys->lock);
}

static void local_hold(struct emu *e, bool on, float height)
{
	pthread_mutex_lock(&e->phys->lock);
	e->phys->hold = on ? 1 : -1;
	e->phys->hold_h = height;
	pthread_mutex_unlock(&e->phys->lock);
}

#else /* a build without MuJoCo: no thread; --physics-host still works */

static int local_open(struct emu *e, const char *model)
{
	fprintf(stderr, "chestboard-emu: --physics %s: this chestboard-emu was built without "
		"MuJoCo (libmujoco-dev was not installed where it was built): no physical body "
		"(--physics-host runs it elsewhere)\n", model);
	return -ENOTSUP;
}

/* never called: e->phys stays NULL */
static void local_close(struct emu *e)
{
}

static void local_state(struct emu *e, struct sim_physics_sense *s)
{
}

static void local_cycle(struct emu *e, const float target[NAOBODY_JOINTS],
			const float stiffness[NAOBODY_JOINTS])
{
}

static int local_report(struct emu *e, char *buf, size_t len)
{
	return -ENODEV;
}

static void local_reset_stats(struct emu *e)
{
}

static void local_push(struct emu *e, float fx, float fy, float seconds)
{
}

static void local_hold(struct emu *e, bool on, float height)
{
}

#endif

/*
 * The seams exchange.c and control.c call: the thread's model (e->phys) or
 * the host's (e->remote), whichever the options started.
 */
int physics_open(struct emu *e, const char *model)
{
	return local_open(e, model);
}

void physics_close(struct emu *e)
{
	remote_close(e);
	local_close(e);
}

bool physics_on(const struct emu *e)
{
	return e->phys || e->remote;
}

/* The last physics state into the body's base (none yet: the scripted one). */
void physics_sense(struct emu *e)
{
	struct sim_physics_sense s;

	if (e->remote) {
		if (!remote_state(e, &s))
			return;
	} else if (e->phys) {
		local_state(e, &s);
	} else {
		return;
	}
	apply(e, &s);
}

/* The answer is out: the frame's targets and stiffnesses to the model. */
void physics_cycle(struct emu *e, uint64_t rx_ns)
{
	float target[NAOBODY_JOINTS], stiffness[NAOBODY_JOINTS];

	if (!physics_on(e))
		return;
	lola_targets(e, target, stiffness);
	if (e->remote)
		remote_cycle(e, target, stiffness);
	else
		local_cycle(e, target, stiffness);
}

int physics_report(struct emu *e, char *buf, size_t len)
{
	if (e->remote)
		return remote_report(e, buf, len);
	return e->phys ? local_report(e, buf, len) : -ENODEV;
}

void physics_reset_stats(struct emu *e)
{
	if (e->remote)
		remote_reset_stats(e);
	else if (e->phys)
		local_reset_stats(e);
}

/* push and hold: applied before the model's next step */
int physics_push(struct emu *e, float fx, float fy, float seconds)
{
	if (e->remote)
		remote_push(e, fx, fy, seconds);
	else if (e->phys)
		local_push(e, fx, fy, seconds);
	else
		return -ENODEV;
	return 0;
}

int physics_hold(struct emu *e, bool on, float height)
{
	if (e->remote)
		remote_hold(e, on, height);
	else if (e->phys)
		local_hold(e, on, height);
	else
		return -ENODEV;
	return 0;
}
