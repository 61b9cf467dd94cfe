// SPDX-License-Identifier: GPL-2.0-only
/*
 * libparol6: see <parol6/parol6.h>. Frame layouts are the firmware's
 * Unpack_data()/Pack_data() (Documentation/n_robot.rst, "PAROL6");
 * units and limits come from PAROL6_ROBOT.py.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <parol6/parol6.h>

#define DEG_PER_STEP	(360.0 / (32 * 200))	/* 200 steps x 32 microsteps */

/*
 * Degrees to microsteps as the commander computes them (PAROL6_ROBOT.py's
 * DEG2STEPS and SPEED_DEG2STEPS, then int()): degrees / DEG_PER_STEP x the
 * ratio, in that order, truncated towards zero. The same operations in
 * IEEE doubles give the commander's very numbers, and since truncation
 * keeps the order of values, an angle within a joint's limits never gives
 * a step past the limit's own step (parol6_check_steps).
 */
const double parol6_gear_ratio[PAROL6_JOINTS] = {
	6.4, 20.0, 20.0 * (38.0 / 42.0), 4.0, 4.0, 10.0,
};

const double parol6_limit_deg[PAROL6_JOINTS][2] = {
	{ -123.046875, 123.046875 },
	{ -145.0088, -3.375 },
	{ 107.866, 287.8675 },
	{ -105.46975, 105.46975 },
	{ -90.0, 90.0 },
	{ 0.0, 360.0 },
};

const int32_t parol6_max_speed[PAROL6_JOINTS] = {
	15000, 25000, 32000, 10000, 10000, 27000,
};

static void put24(uint8_t *p, int32_t v)
{
	uint32_t u = (uint32_t)v;

	p[0] = (u >> 16) & 0xFF;
	p[1] = (u >> 8) & 0xFF;
	p[2] = u & 0xFF;
}

static int32_t get24(const uint8_t *p)
{
	int32_t v = p[0] << 16 | p[1] << 8 | p[2];

	return v & 0x800000 ? v - 0x1000000 : v;
}

static void put16(uint8_t *p, int16_t v)
{
	p[0] = ((uint16_t)v >> 8) & 0xFF;
	p[1] = (uint16_t)v & 0xFF;
}

static int16_t get16(const uint8_t *p)
{
	return (int16_t)(p[0] << 8 | p[1]);
}

void parol6_pack(const struct parol6_cmd *c, uint8_t out[N_ROBOT_PAROL6_CMD_FRAME])
{
	uint8_t *d = out + 4;
	int j;

	memset(out, 0, N_ROBOT_PAROL6_CMD_FRAME);
	out[0] = out[1] = out[2] = 0xFF;
	out[3] = N_ROBOT_PAROL6_CMD_LEN;
	for (j = 0; j < PAROL6_JOINTS; j++) {
		put24(d + 3 * j, c->position[j]);
		put24(d + 18 + 3 * j, c->speed[j]);
	}
	d[36] = c->command;
	d[37] = c->affected;
	d[38] = (c->out1 ? 0x20 : 0) | (c->out2 ? 0x10 : 0);
	d[39] = c->timeout;
	put16(d + 40, c->grip_position);
	put16(d + 42, c->grip_speed);
	put16(d + 44, c->grip_current);
	d[46] = c->grip_command;
	d[47] = c->grip_mode;
	d[48] = c->grip_id;
	d[49] = 0xE4;		/* the "CRC" hosts send; not checked */
	d[50] = 0x01;
	d[51] = 0x02;
}

int parol6_unpack(const uint8_t *p, size_t len, struct parol6_telemetry *t)
{
	const uint8_t *d = p + 4;
	int j;

	if (len != N_ROBOT_PAROL6_TELEMETRY_FRAME || p[0] != 0xFF ||
	    p[1] != 0xFF || p[2] != 0xFF ||
	    p[3] != N_ROBOT_PAROL6_TELEMETRY_LEN || p[58] != 1 || p[59] != 2)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	for (j = 0; j < PAROL6_JOINTS; j++) {
		t->position[j] = get24(d + 3 * j);
		t->speed[j] = get24(d + 18 + 3 * j);
		t->homed[j] = d[36] & (0x80 >> j);
		t->temperature_error[j] = d[38] & (0x80 >> j);
		t->position_error[j] = d[39] & (0x80 >> j);
	}
	t->in1 = d[37] & 0x80;
	t->in2 = d[37] & 0x40;
	t->out1 = d[37] & 0x20;
	t->out2 = d[37] & 0x10;
	t->estop_pressed = !(d[37] & 0x08);	/* 1 = closed, not pressed */
	t->timing_ticks = (uint16_t)(d[40] << 8 | d[41]);
	t->timing_us = t->timing_ticks * (128.0 / 90.0);
	t->timeout_error = d[42];
	t->last_command = d[43];
	t->grip_id = d[44];
	t->grip_position = get16(d + 45);
	t->grip_speed = get16(d + 47);
	t->grip_current = get16(d + 49);
	t->grip_status = d[51];
	t->grip_activated = d[51] & 0x80;
	t->grip_moving = d[51] & 0x40;
	/* bits 5 and 4, bit 5 the low bit */
	t->grip_object = (d[51] >> 5 & 1) | (d[51] >> 4 & 1) << 1;
	t->grip_temperature_error = d[51] & 0x08;
	t->grip_timeout_error = d[51] & 0x04;
	t->grip_estop_error = d[51] & 0x02;
	t->grip_calibrated = d[51] & 0x01;
	t->object_detection = d[52];
	return 0;
}

const char *parol6_command_name(uint8_t command)
{
	switch (command) {
	case PAROL6_IDLE: return "idle";
	case PAROL6_JOG: return "jog";
	case PAROL6_GOTO: return "go-to";
	case PAROL6_HOME: return "home";
	case PAROL6_ENABLE: return "enable";
	case PAROL6_DISABLE: return "disable";
	case PAROL6_CLEAR_ERROR: return "clear-error";
	case PAROL6_REPEATABILITY: return "repeatability-test";
	default: return "unknown";
	}
}

/* Microsteps, unrounded, for deg degrees (or degrees/s) of joint. */
static double deg_steps(int joint, double deg)
{
	return deg / DEG_PER_STEP * parol6_gear_ratio[joint];
}

double parol6_steps_to_deg(int joint, int32_t steps)
{
	if (joint < 0 || joint >= PAROL6_JOINTS)
		return NAN;
	return steps * DEG_PER_STEP / parol6_gear_ratio[joint];
}

double parol6_steps_to_rad(int joint, int32_t steps)
{
	return parol6_steps_to_deg(joint, steps) * M_PI / 180.0;
}

int parol6_deg_to_steps(int joint, double deg, int32_t *steps)
{
	if (joint < 0 || joint >= PAROL6_JOINTS || isnan(deg))
		return -EINVAL;
	if (deg < parol6_limit_deg[joint][0] || deg > parol6_limit_deg[joint][1])
		return -ERANGE;
	*steps = (int32_t)deg_steps(joint, deg);	/* truncated */
	return 0;
}

int parol6_rad_to_steps(int joint, double rad, int32_t *steps)
{
	return parol6_deg_to_steps(joint, rad * 180.0 / M_PI, steps);
}

int parol6_check_steps(int joint, int32_t steps)
{
	if (joint < 0 || joint >= PAROL6_JOINTS)
		return -EINVAL;
	/* the limits' own steps, truncated as every angle is */
	if (steps < (int32_t)deg_steps(joint, parol6_limit_deg[joint][0]) ||
	    steps > (int32_t)deg_steps(joint, parol6_limit_deg[joint][1]))
		return -ERANGE;
	return 0;
}

int parol6_speed_to_steps(int joint, double deg_per_s, int32_t *steps)
{
	double s;

	if (joint < 0 || joint >= PAROL6_JOINTS || isnan(deg_per_s))
		return -EINVAL;
	s = deg_steps(joint, deg_per_s);
	if (fabs(s) > parol6_max_speed[joint])
		return -ERANGE;
	*steps = (int32_t)s;		/* truncated */
	return 0;
}

int parol6_attach_fd(struct parol6 *p, int fd, enum nr_link_mode mode)
{
	memset(p, 0, sizeof(*p));
	return nr_link_attach_fd(&p->link, fd, N_ROBOT_FRAMING_PAROL6, mode,
				 PAROL6_BAUD);
}

int parol6_open(struct parol6 *p, const char *path, enum nr_link_mode mode)
{
	memset(p, 0, sizeof(*p));
	return nr_link_open(&p->link, path, N_ROBOT_FRAMING_PAROL6, mode,
			    PAROL6_BAUD);
}

void parol6_open_dry(struct parol6 *p)
{
	memset(p, 0, sizeof(*p));
	p->link.fd = -1;
	p->dry_run = true;
}

void parol6_close(struct parol6 *p)
{
	parol6_safe_stop(p);
	if (!p->dry_run)
		nr_link_close(&p->link);
}

void parol6_hold(struct parol6 *p, const struct parol6_cmd *c)
{
	p->held.out1 = c->out1;
	p->held.out2 = c->out2;
	p->held.grip_position = c->grip_position;
	p->held.grip_speed = c->grip_speed;
	p->held.grip_current = c->grip_current;
	p->held.grip_command = c->grip_command;
	p->held.grip_id = c->grip_id;
	p->have_held = true;
}

int parol6_send(struct parol6 *p, const struct parol6_cmd *c)
{
	uint8_t f[N_ROBOT_PAROL6_CMD_FRAME];
	int err;

	parol6_hold(p, c);
	parol6_pack(c, f);
	if (p->dump)
		p->dump(p->dump_ctx, f, sizeof(f));
	if (p->dry_run) {
		p->sent++;
		return 0;
	}
	err = nr_link_send(&p->link, f, sizeof(f));
	if (!err)
		p->sent++;
	return err;
}

int parol6_poll(struct parol6 *p, int timeout_ms)
{
	uint8_t f[N_ROBOT_PAROL6_TELEMETRY_FRAME + 4];
	struct parol6_telemetry t;
	int got = 0;
	ssize_t n;

	if (p->dry_run)
		return -ETIMEDOUT;
	for (;;) {
		n = nr_link_recv(&p->link, f, sizeof(f), got ? 0 : timeout_ms);
		if (n == -ETIMEDOUT)
			return got ? 0 : -ETIMEDOUT;
		if (n < 0)
			return (int)n;
		if (parol6_unpack(f, n, &t))
			continue;
		p->last = t;
		p->have_telemetry = true;
		p->last_rx_ms = nr_now_ms();
		p->received++;
		got = 1;
	}
}

int parol6_exchange(struct parol6 *p, const struct parol6_cmd *c,
		    int timeout_ms)
{
	int err = parol6_send(p, c);

	if (err)
		return err;
	return parol6_poll(p, timeout_ms);
}

size_t parol6_size(void)
{
	return sizeof(struct parol6);
}

size_t parol6_cmd_size(void)
{
	return sizeof(struct parol6_cmd);
}

size_t parol6_telemetry_size(void)
{
	return sizeof(struct parol6_telemetry);
}

const struct parol6_telemetry *parol6_last(const struct parol6 *p)
{
	return p->have_telemetry ? &p->last : NULL;
}

void parol6_idle_cmd(const struct parol6 *p, struct parol6_cmd *c)
{
	int j;

	memset(c, 0, sizeof(*c));
	c->command = PAROL6_IDLE;
	/*
	 * The board sets its outputs from every frame, and sends the gripper
	 * a move whenever its fields change: carry on what the last frame
	 * said (the commander's Pack_data() sends its kept values every
	 * cycle), or every frame would switch the outputs off and move the
	 * gripper to 0 at speed 0.
	 */
	if (p->have_held) {
		c->out1 = p->held.out1;
		c->out2 = p->held.out2;
		c->grip_position = p->held.grip_position;
		c->grip_speed = p->held.grip_speed;
		c->grip_current = p->held.grip_current;
		c->grip_command = p->held.grip_command;
		c->grip_id = p->held.grip_id;
	} else if (p->have_telemetry) {
		c->out1 = p->last.out1;
		c->out2 = p->last.out2;
	}
	if (!p->have_telemetry)
		return;
	for (j = 0; j < PAROL6_JOINTS; j++)
		c->position[j] = p->last.position[j];
}

int parol6_safe_stop(struct parol6 *p)
{
	struct parol6_cmd c;

	parol6_idle_cmd(p, &c);
	return parol6_send(p, &c);
}

int parol6_run(struct parol6 *p, int hz, parol6_tick_fn tick, void *ctx,
	       volatile sig_atomic_t *stop, int link_timeout_ms)
{
	struct itimerspec its = { 0 };
	struct sched_param sp = { .sched_priority = 10 };
	struct parol6_cmd next;
	int64_t start = nr_now_ms();
	uint64_t expirations;
	int tfd, ret = 0, err;

	if (hz <= 0 || hz > 1000)
		return -EINVAL;
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (tfd < 0)
		return -errno;
	its.it_interval.tv_nsec = 1000000000L / hz;
	its.it_value = its.it_interval;
	if (timerfd_settime(tfd, 0, &its, NULL)) {
		ret = -errno;
		close(tfd);
		return ret;
	}
	/* Real-time if we may; a plain priority works too, only less evenly. */
	sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
	while (!(stop && *stop)) {
		if (read(tfd, &expirations, sizeof(expirations)) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (expirations > 1)
			p->missed_ticks += expirations - 1;
		err = parol6_poll(p, 0);
		if (err && err != -ETIMEDOUT) {
			ret = err;	/* -EIO: the link is gone */
			break;
		}
		if (!p->dry_run && link_timeout_ms > 0) {
			int64_t since = p->have_telemetry ? p->last_rx_ms : start;

			if (nr_now_ms() - since > link_timeout_ms) {
				ret = -ENOLINK;
				break;
			}
		}
		memset(&next, 0, sizeof(next));
		ret = tick(ctx, p->have_telemetry ? &p->last : NULL, &next);
		if (ret)
			break;
		err = parol6_send(p, &next);
		if (err) {
			ret = err;
			break;
		}
	}
	close(tfd);
	/* However we got here: idle, zero speed. */
	err = parol6_safe_stop(p);
	if (ret > 0)
		ret = 0;
	return ret ? ret : err;
}
