// SPDX-License-Identifier: GPL-2.0-only
/*
 * libparol6: a joint move as the commander streams it. See <parol6/parol6.h>.
 *
 * The firmware's go-to (156) runs each joint at the average of the speed in
 * the frame and the speed that closes the position error in one 10 ms
 * cycle: a final target in every frame would run each joint at its stepper
 * limit and settle 0.01 x speed steps past it. So the host streams a
 * trapezoidal profile instead, one setpoint per cycle, each frame carrying
 * the next cycle's position and the speed that reaches it in one cycle;
 * both terms of the average then agree, and the last frames carry the
 * target with speed 0, where the rule halves the error every cycle.
 *
 * Every joint follows one normalised profile, so all arrive together; the
 * joint with the longest way in degrees runs at --speed and --accel, the
 * others slower.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parol6/parol6.h>

int parol6_plan_move(struct parol6_move *m, const int32_t start[PAROL6_JOINTS],
		     const int32_t target[PAROL6_JOINTS], double speed_dps,
		     double accel_dps2)
{
	double d;
	int j;

	if (!(speed_dps > 0) || !(accel_dps2 > 0) || isinf(speed_dps) ||
	    isinf(accel_dps2))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	memcpy(m->start, start, sizeof(m->start));
	memcpy(m->target, target, sizeof(m->target));
	for (j = 0; j < PAROL6_JOINTS; j++) {
		d = fabs(parol6_steps_to_deg(j, target[j]) -
			 parol6_steps_to_deg(j, start[j]));
		if (d > m->distance)
			m->distance = d;
	}
	m->accel = accel_dps2;
	if (m->distance * accel_dps2 < speed_dps * speed_dps) {
		/* too short to reach the speed: a triangle */
		m->peak = sqrt(m->distance * accel_dps2);
		m->ramp = m->peak / accel_dps2;
		m->duration = 2 * m->ramp;
	} else {
		m->peak = speed_dps;
		m->ramp = speed_dps / accel_dps2;
		m->duration = m->distance / speed_dps + m->ramp;
	}
	return 0;
}

/* Degrees along the leading joint's way at t seconds from the start. */
static double parol6_move_along(const struct parol6_move *m, double t)
{
	double rest;

	if (t <= 0)
		return 0;
	if (t >= m->duration)
		return m->distance;
	if (t < m->ramp)
		return m->accel * t * t / 2;
	rest = m->duration - t;
	if (rest < m->ramp)
		return m->distance - m->accel * rest * rest / 2;
	return m->accel * m->ramp * m->ramp / 2 + m->peak * (t - m->ramp);
}

static int32_t parol6_move_steps(const struct parol6_move *m, int j, double s)
{
	double frac = m->distance > 0 ? s / m->distance : 1;

	return m->start[j] + (int32_t)lround((m->target[j] - m->start[j]) * frac);
}

void parol6_move_setpoint(const struct parol6_move *m, double t, double cycle,
			  int32_t position[PAROL6_JOINTS],
			  int32_t speed[PAROL6_JOINTS])
{
	double now = parol6_move_along(m, t);
	double next = parol6_move_along(m, t + cycle);
	int j;

	for (j = 0; j < PAROL6_JOINTS; j++) {
		position[j] = parol6_move_steps(m, j, next);
		/* from the unrounded way, not two rounded setpoints: at a
		 * few steps per cycle their difference would jitter by
		 * 100 steps/s
		 */
		speed[j] = t + cycle >= m->duration || m->distance <= 0 ? 0 :
			(int32_t)lround((m->target[j] - m->start[j]) *
					(next - now) / m->distance / cycle);
	}
}

bool parol6_move_arrived(const struct parol6_move *m,
			 const struct parol6_telemetry *t)
{
	int j;

	/*
	 * There, and at rest: the board runs a joint at its last speed until
	 * the next frame, so a move that ends with a joint still creeping
	 * would carry on for as long as the Idle after it takes to arrive.
	 */
	for (j = 0; j < PAROL6_JOINTS; j++)
		if (abs(t->position[j] - m->target[j]) > PAROL6_ARRIVED_STEPS ||
		    t->speed[j])
			return false;
	return true;
}

struct parol6_move_run {
	struct parol6 *p;
	struct parol6_move move;
	const int32_t *target;
	double speed, accel, timeout, start;
	bool planned;
	int result;
};

static double parol6_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parol6_move_tick(void *ctx, const struct parol6_telemetry *t,
			    struct parol6_cmd *next)
{
	struct parol6_move_run *r = ctx;
	double since;

	parol6_idle_cmd(r->p, next);
	if (!t)
		return 0;
	if (t->estop_pressed) {
		r->result = -ECANCELED;
		return 1;
	}
	if (!r->planned) {
		r->result = parol6_plan_move(&r->move, t->position, r->target,
					     r->speed, r->accel);
		if (r->result)
			return 1;
		r->planned = true;
		r->start = parol6_now_s();
	}
	since = parol6_now_s() - r->start;
	if (since >= r->move.duration && parol6_move_arrived(&r->move, t))
		return 1;
	if (since > r->timeout) {
		r->result = -ETIMEDOUT;
		return 1;
	}
	next->command = PAROL6_GOTO;
	parol6_move_setpoint(&r->move, since, 1.0 / PAROL6_HZ, next->position,
			     next->speed);
	return 0;
}

int parol6_move_to(struct parol6 *p, const int32_t target[PAROL6_JOINTS],
		   double speed_dps, double accel_dps2, double timeout_s,
		   volatile sig_atomic_t *stop, int link_timeout_ms)
{
	struct parol6_move_run r = {
		.p = p, .target = target, .speed = speed_dps,
		.accel = accel_dps2, .timeout = timeout_s,
	};
	int32_t steps;
	int j, err;

	for (j = 0; j < PAROL6_JOINTS; j++) {
		if (parol6_check_steps(j, target[j]))
			return -ERANGE;
		if (parol6_speed_to_steps(j, speed_dps, &steps))
			return -EINVAL;
	}
	err = parol6_run(p, PAROL6_HZ, parol6_move_tick, &r, stop,
			 link_timeout_ms);
	return err ? err : r.result;
}
