// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the simulated body, a kinematic NAO for the host and the demo.
 *
 *   - A timerfd ticks every 12 ms, the real body's cycle.
 *   - Joints follow their targets with a first-order lag that stiffness
 *     scales; a limp joint stays where it is.
 *   - The torso is upright, falling (a pendulum), lying, or righting itself.
 *     It falls when pushed (a control command) or when it stands on limp
 *     legs; lying with the legs folded and stiff, it sits up. The inertial
 *     unit follows the torso.
 *   - Standing, the lower sole stays where it is on the floor and the torso
 *     goes where the legs' joints put it over that foot: a walk (the motion
 *     layer's, which this body knows nothing of) carries it as far and turns
 *     it as much as its steps do, and the gyroscope reads the turn.
 *   - The battery drains with the stiffness, or charges on the charger.
 *   - Touches, sonar, the battery and pushes are scripted through the
 *     control socket or a script file (sim_control.c).
 *   - The death switch latches stiffness at 0 until "rearm".
 *
 * With --sim-physics the joints, the torso, the inertial unit, the feet's
 * pressure sensors and the currents come from the MuJoCo model instead
 * (sim_physics.c): each cycle steps it with the targets and stiffnesses
 * written, as the boards would drive the motors. So do the sonars (rays at
 * the model's obstacle, which "obstacle" places; "sonar" is refused) and
 * the feet's bumpers and hands' pads (contacts), ORed with the scripted
 * touches, which still press the head's and the chest's (a person's) and
 * can force the others. The rest (battery, temperatures from the
 * currents) stays as above, and where the body is, is the model's.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <motion/joints.h>
#include <motion/leg_kinematics.h>
#include <physics/sim_physics.h>
#include <simctl/simctl.h>

#include "body.h"
#include "clock.h"
#include "head/head_bus.h"
#include "log.h"
#include "naobodyd.h"
#include "sim_control.h"

#define NJ NAOBODY_JOINTS
#define PERIOD_NS	12000000U
#define GRAVITY		9.81f
#define JOINT_TAU	0.04f	/* s, at stiffness 1 */
#define JOINT_SPEED	6.0f	/* rad/s, the fastest a joint moves */
#define PENDULUM	0.35f	/* m, the falling torso's length */
#define RIGHTING_SPEED	1.2f	/* rad/s */
#define LYING_TILT	1.45f
#define MASS		5.4f	/* kg, on the feet when standing */
#define CAPACITY_AS	(2.15f * 3600.0f)	/* A s */
#define OBSTACLE_REACH	100.0f	/* m, the farthest "obstacle" places the post */

enum support { SUP_UPRIGHT, SUP_FALLING, SUP_LYING, SUP_RIGHTING };

struct sim {
	struct body b;
	int tfd;
	uint64_t cycle;
	uint64_t start_ns, last_ns;
	bool lockstep;			/* NAOBODYD_SIM_LOCKSTEP: see body_sim_create() */
	uint64_t calibrated_ns;		/* no calibration before (--sim-uncalibrated) */
	struct sim_control *control;
	struct sim_physics *phys;	/* NULL: kinematic */
	struct sim_physics_sense ps;	/* its last reading */

	struct nb_actuators cmd;
	bool have_cmd;
	/* The cycle as the body sees it: gaps between consecutive writes. */
	uint64_t last_write_ns;
	uint64_t writes, late_writes;	/* late: more than 1.5 periods after the last */
	uint64_t worst_gap_ns;
	atomic_bool stopped;		/* stop() comes from the network thread too */

	float pos[NJ];
	float temp[NJ];
	float cur[NJ];
	enum support support;
	float tilt, tilt_rate;		/* rad, along dir */
	float dir[2];			/* roll, pitch components of the fall, unit */
	float limp_legs_s;		/* standing on limp legs for this long */
	float fold_s;			/* lying, legs folded and stiff, this long */
	/* Where the kinematic body is on the floor (feet_step()). */
	float pose[3];			/* the torso: x, y (m), heading (rad) */
	bool planted;			/* standing on foot[] */
	enum leg_side support_foot;
	float foot[3];			/* that sole on the floor: x, y, heading */
	float yaw_rate;

	float charge;
	bool charger;
	float sonar[2];
	uint32_t touch;
	uint32_t rng;
};

static float noise(struct sim *s, float amp)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 17;
	s->rng ^= s->rng << 5;
	return amp * ((float)(s->rng & 0xffff) / 32768.0f - 1.0f);
}

static float leg_stiffness(const struct sim *s)
{
	float sum = 0.0f;

	if (s->stopped || !s->have_cmd)
		return 0.0f;
	for (int j = NAOBODY_L_HIP_YAW_PITCH; j <= NAOBODY_R_ANKLE_ROLL; j++)
		sum += s->cmd.stiffness[j];
	return sum / (NAOBODY_R_ANKLE_ROLL - NAOBODY_L_HIP_YAW_PITCH + 1);
}

static bool legs_folded(const struct sim *s)
{
	return s->pos[NAOBODY_L_KNEE_PITCH] > 1.7f && s->pos[NAOBODY_R_KNEE_PITCH] > 1.7f;
}

/* The stiffness the motors get: none while stopped or before a command. */
static float stiffness(const struct sim *s, int j)
{
	return (s->stopped || !s->have_cmd) ? 0.0f : s->cmd.stiffness[j];
}

/* Temperatures warm towards 30 + 25 C per ampere, over about two minutes. */
static void heat_step(struct sim *s, int j, float dt)
{
	float heat = 30.0f + 25.0f * s->cur[j];

	s->temp[j] += (heat - s->temp[j]) * (dt / 120.0f);
}

/* The physics' cycle: the joints, torso and sensors of the model. */
static void physics_step(struct sim *s, float dt)
{
	float k[NJ];
	float tilt, rate;

	for (int j = 0; j < NJ; j++)
		k[j] = stiffness(s, j);
	sim_physics_cycle(s->phys, dt, s->cmd.position, k);
	sim_physics_sense(s->phys, &s->ps);
	for (int j = 0; j < NJ; j++) {
		s->pos[j] = s->ps.position[j];
		s->cur[j] = s->ps.current[j];
		heat_step(s, j, dt);
	}
	/* support and tilt only for "status": the daemon reads the IMU. */
	tilt = hypotf(s->ps.angles[0], s->ps.angles[1]);
	rate = hypotf(s->ps.gyroscope[0], s->ps.gyroscope[1]);
	s->tilt = tilt;
	s->support = tilt < 0.5f ? SUP_UPRIGHT : rate > 0.3f ? SUP_FALLING : SUP_LYING;
}

static void joints_step(struct sim *s, float dt)
{
	for (int j = 0; j < NJ; j++) {
		float k = stiffness(s, j);
		float target = joint_clamp(j, s->cmd.position[j]);
		float err = target - s->pos[j], step, load;

		if (k > 0.01f) {
			step = err * (1.0f - expf(-dt * k / JOINT_TAU));
			if (fabsf(step) > JOINT_SPEED * dt)
				step = copysignf(JOINT_SPEED * dt, step);
			s->pos[j] = joint_clamp(j, s->pos[j] + step);
		}
		/* Legs carry the body while it stands. */
		load = (j >= NAOBODY_L_HIP_YAW_PITCH && j <= NAOBODY_R_ANKLE_ROLL &&
			s->support == SUP_UPRIGHT && !legs_folded(s)) ? 0.25f : 0.02f;
		s->cur[j] = k * (0.05f + load + 0.6f * fminf(fabsf(err), 1.0f));
		heat_step(s, j, dt);
	}
}

static void fall(struct sim *s, float roll, float pitch, float tilt0)
{
	float n = hypotf(roll, pitch);

	if (s->support == SUP_FALLING || s->support == SUP_LYING)
		return;
	s->dir[0] = roll / n;
	s->dir[1] = pitch / n;
	s->support = SUP_FALLING;
	s->tilt = fmaxf(s->tilt, tilt0);
	s->tilt_rate = 0.0f;
}

static void torso_step(struct sim *s, float dt)
{
	float k = leg_stiffness(s);

	switch (s->support) {
	case SUP_UPRIGHT:
		s->tilt = 0.0f;
		s->tilt_rate = 0.0f;
		/* Standing on limp legs: it collapses backwards. */
		if (!legs_folded(s) && k < 0.15f) {
			s->limp_legs_s += dt;
			if (s->limp_legs_s > 0.3f)
				fall(s, 0.0f, -1.0f, 0.08f);
		} else {
			s->limp_legs_s = 0.0f;
		}
		break;
	case SUP_FALLING:
		s->tilt_rate += GRAVITY / PENDULUM * sinf(s->tilt) * dt;
		s->tilt += s->tilt_rate * dt;
		if (s->tilt >= LYING_TILT) {
			s->tilt = LYING_TILT;
			s->tilt_rate = 0.0f;
			s->support = SUP_LYING;
			s->fold_s = 0.0f;
		}
		break;
	case SUP_LYING:
		s->tilt_rate = 0.0f;
		if (legs_folded(s) && k > 0.5f) {
			s->fold_s += dt;
			if (s->fold_s > 0.5f)
				s->support = SUP_RIGHTING;
		} else {
			s->fold_s = 0.0f;
		}
		break;
	case SUP_RIGHTING:
		if (k < 0.3f) {
			s->support = SUP_FALLING;	/* gave up: back down */
			break;
		}
		s->tilt_rate = -RIGHTING_SPEED;
		s->tilt += s->tilt_rate * dt;
		if (s->tilt <= 0.0f) {
			s->tilt = 0.0f;
			s->tilt_rate = 0.0f;
			s->support = SUP_UPRIGHT;
			s->limp_legs_s = 0.0f;
		}
		break;
	}
}

/*
 * The kinematic body's place on the floor, from its legs alone: the lower
 * sole carries and stays where it is, and the torso is where the joints put
 * it over that foot. When the other sole comes lower (a step landed), it
 * carries from where it is. Only upright on stiff, unfolded legs: a body
 * that falls, sits or is limp stays where it was, and is planted afresh
 * when it stands again.
 */
#define SOLE_LOWER_M	0.0001f	/* m: the other sole carries once this much lower */

static void feet_step(struct sim *s, float dt)
{
	bool can = s->support == SUP_UPRIGHT && !legs_folded(s) && leg_stiffness(s) > 0.5f;
	float heading = s->pose[2], c, sn;
	struct foot_pose fp[2];
	enum leg_side f, other;

	s->yaw_rate = 0.0f;
	if (!can) {
		s->planted = false;
		return;
	}
	leg_forward(LEG_LEFT, s->pos, &fp[LEG_LEFT]);
	leg_forward(LEG_RIGHT, s->pos, &fp[LEG_RIGHT]);
	f = s->planted ? s->support_foot : LEG_LEFT;
	other = f == LEG_LEFT ? LEG_RIGHT : LEG_LEFT;
	if (fp[other].z < fp[f].z - SOLE_LOWER_M)
		f = other;
	if (!s->planted || f != s->support_foot) {
		c = cosf(heading);
		sn = sinf(heading);
		s->foot[0] = s->pose[0] + c * fp[f].x - sn * fp[f].y;
		s->foot[1] = s->pose[1] + sn * fp[f].x + c * fp[f].y;
		s->foot[2] = heading + fp[f].yaw;
		s->support_foot = f;
		s->planted = true;
	}
	s->pose[2] = s->foot[2] - fp[f].yaw;
	c = cosf(s->pose[2]);
	sn = sinf(s->pose[2]);
	s->pose[0] = s->foot[0] - (c * fp[f].x - sn * fp[f].y);
	s->pose[1] = s->foot[1] - (sn * fp[f].x + c * fp[f].y);
	if (dt > 0.0f)
		s->yaw_rate = (s->pose[2] - heading) / dt;
}

static void battery_step(struct sim *s, float dt, float *current)
{
	float sum = 0.0f;

	for (int j = 0; j < NJ; j++)
		sum += s->cur[j];
	*current = s->charger ? 1.5f : -(0.9f + sum);
	s->charge += *current * dt / CAPACITY_AS;
	s->charge = fminf(fmaxf(s->charge, 0.0f), 1.0f);
}

/* The physics' readings over the kinematic ones, with the same noise. */
static void sense_physics(struct sim *s, struct nb_sensors *o)
{
	for (int i = 0; i < 3; i++) {
		o->accelerometer[i] = s->ps.accelerometer[i] + noise(s, 0.02f);
		o->gyroscope[i] = s->ps.gyroscope[i] + noise(s, 0.003f);
	}
	o->angles[0] = s->ps.angles[0];
	o->angles[1] = s->ps.angles[1];
	o->foot[0].weight = o->foot[1].weight = 0.0f;
	for (int i = 0; i < NAOBODY_FSRS; i++) {
		o->fsr[i] = s->ps.fsr[i];
		o->foot[i / 4].weight += o->fsr[i];
	}
	for (int j = 0; j < NJ; j++)
		o->position[j] = joint_clamp(j, s->ps.position[j] + noise(s, 0.0005f));
}

static void sense(struct sim *s, struct body_frame *f, float current)
{
	struct nb_sensors *o = &f->s;
	float roll = s->dir[0] * s->tilt, pitch = s->dir[1] * s->tilt;
	float roll_rate = s->dir[0] * s->tilt_rate, pitch_rate = s->dir[1] * s->tilt_rate;
	float per_fsr;
	uint16_t status;

	memset(o, 0, sizeof(*o));
	o->accelerometer[0] = GRAVITY * sinf(pitch) + noise(s, 0.02f);
	o->accelerometer[1] = -GRAVITY * sinf(roll) * cosf(pitch) + noise(s, 0.02f);
	o->accelerometer[2] = -GRAVITY * cosf(roll) * cosf(pitch) + noise(s, 0.02f);
	o->gyroscope[0] = roll_rate + noise(s, 0.003f);
	o->gyroscope[1] = pitch_rate + noise(s, 0.003f);
	o->gyroscope[2] = s->yaw_rate + noise(s, 0.003f);
	o->angles[0] = roll;
	o->angles[1] = pitch;

	/* Battery: LoLA's order, status as the int16 of the status register. */
	status = s->charger ? (1U << 2 | 1U << 7 | 1U << 15) : (1U << 3 | 1U << 5);
	if (s->charge >= 0.99f)
		status |= 1U << 6;
	o->battery[0] = s->charge;
	o->battery[1] = (float)(int16_t)status;
	o->battery[2] = current;
	o->battery[3] = 3.0f;		/* 30 C on LoLA's scale */

	if (s->support == SUP_UPRIGHT)
		per_fsr = (legs_folded(s) ? 0.6f : MASS) / NAOBODY_FSRS;
	else if (s->support == SUP_FALLING)
		per_fsr = MASS / NAOBODY_FSRS * fmaxf(0.0f, 1.0f - s->tilt);
	else
		per_fsr = 0.0f;
	for (int i = 0; i < NAOBODY_FSRS; i++)
		o->fsr[i] = fmaxf(0.0f, per_fsr + (per_fsr > 0.0f ? noise(s, 0.02f) : 0.0f));
	for (int foot = 0; foot < 2; foot++) {
		for (int i = 0; i < 4; i++)
			o->foot[foot].weight += o->fsr[foot * 4 + i];
	}

	o->sonar[0] = s->phys ? s->ps.sonar[0] : s->sonar[0];
	o->sonar[1] = s->phys ? s->ps.sonar[1] : s->sonar[1];
	for (int t = 0; t < NAOBODY_TOUCHES; t++)
		o->touch[t] = ((s->touch | (s->phys ? s->ps.touch : 0)) >> t) & 1 ? 1.0f : 0.0f;
	for (int j = 0; j < NJ; j++) {
		float t = 2.0f * floorf(s->temp[j] / 2.0f);	/* steps of 2 C */

		o->position[j] = joint_clamp(j, s->pos[j] + noise(s, 0.0005f));
		o->current[j] = roundf(s->cur[j] / 0.016f) * 0.016f;
		o->temperature[j] = t;
		o->status[j] = t >= 85.0f ? 3 : t >= 80.0f ? 2 : t >= 75.0f ? 1 : 0;
		o->stiffness[j] = stiffness(s, j);
	}
	if (s->phys)
		sense_physics(s, o);
	f->flags = s->stopped ? BODY_F_STOPPED : 0;
}

/* MuJoCo's warnings, into the log's queue. */
static void physics_warn(const char *line)
{
	log_warn("%s", line);
}

static int sim_fd(struct body *b)
{
	return container_of(b, struct sim, b)->tfd;
}

static int sim_read(struct body *b, struct body_frame *f)
{
	struct sim *s = container_of(b, struct sim, b);
	uint64_t ticks, now;
	float dt, current;

	if (read(s->tfd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return errno == EAGAIN ? 0 : -errno;
	if (s->lockstep) {
		now = s->start_ns + (s->cycle + 1) * PERIOD_NS;
		dt = (float)PERIOD_NS / 1e9f;
	} else {
		now = mono_ns();
		dt = (float)(now - s->last_ns) / 1e9f;
		if (dt > 0.1f)
			dt = 0.1f;	/* a stopped process does not teleport its body */
	}
	s->last_ns = now;
	if (s->control)
		sim_control_tick(s->control, (double)(now - s->start_ns) / 1e9);

	if (s->phys) {
		physics_step(s, dt);
	} else {
		joints_step(s, dt);
		torso_step(s, dt);
		feet_step(s, dt);
	}
	battery_step(s, dt, &current);
	f->cycle = ++s->cycle;
	f->time_ns = now;
	sense(s, f, current);
	if (now < s->calibrated_ns)
		f->flags |= BODY_F_UNCALIBRATED;
	return 1;
}

static int sim_write(struct body *b, const struct nb_actuators *a)
{
	struct sim *s = container_of(b, struct sim, b);
	uint64_t now = mono_ns();

	if (s->last_write_ns) {
		uint64_t gap = now - s->last_write_ns;

		if (gap > s->worst_gap_ns)
			s->worst_gap_ns = gap;
		if (2 * gap > 3ULL * PERIOD_NS)
			s->late_writes++;
	}
	s->last_write_ns = now;
	s->writes++;
	s->cmd = *a;
	s->have_cmd = true;
	return 0;
}

static int sim_stop(struct body *b, uint32_t reason)
{
	struct sim *s = container_of(b, struct sim, b);

	s->stopped = true;
	return 0;
}

static void sim_destroy(struct body *b)
{
	struct sim *s = container_of(b, struct sim, b);

	sim_control_destroy(s->control);
	sim_physics_destroy(s->phys);
	close(s->tfd);
	free(s);
}

static const struct body_ops sim_ops = {
	.name = "simulated",
	.fd = sim_fd,
	.read = sim_read,
	.write = sim_write,
	.stop = sim_stop,
	.destroy = sim_destroy,
};

/* The sit pose the robot starts in, LoLA's order. */
static const float start_pose[NJ] = {
	0.0f, 0.0f, 1.45f, 0.10f, -1.00f, -0.60f, 0.0f,
	0.0f, 0.0f, -0.86f, 2.10f, -1.18f, 0.0f,
	0.0f, -0.86f, 2.10f, -1.18f, 0.0f,
	1.45f, -0.10f, 1.00f, 0.60f, 0.0f, 0.0f, 0.0f,
};

/*
 * The physical body starts lying face down, limp (turned pi/2 about y):
 * the model's limp sit tips over within seconds (its gearbox friction is
 * provisional: Documentation/naobodyd.rst), lying it rests, and Wake gets
 * it up from there with the get-up from the front. Legs straight, arms
 * along the body.
 */
static const float lying_pose[NJ] = {
	0.0f, 0.0f, 1.45f, 0.20f, 0.0f, 0.0f, 0.0f,
	0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f,
	0.0f, 0.0f, 0.0f, 0.0f, 0.0f,
	1.45f, -0.20f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f,
};
#define LYING_PITCH	((float)M_PI_2)

static sim_command_fn sim_command;	/* the control socket's and the script's, below */

struct body *body_sim_create(const struct config *cfg, struct loop *loop)
{
	struct itimerspec its = {
		.it_interval = { .tv_nsec = PERIOD_NS },
		.it_value = { .tv_nsec = PERIOD_NS },
	};
	struct sim *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->b.ops = &sim_ops;
	snprintf(s->b.info.body_id, sizeof(s->b.info.body_id), "%s",
		 cfg->body_id ? cfg->body_id : "SIMULATED-BODY-00001");
	head_id_choose(cfg, "SIMULATED-HEAD-00001", s->b.info.head_id);
	snprintf(s->b.info.body_version, sizeof(s->b.info.body_version), "6.0.0");
	snprintf(s->b.info.head_version, sizeof(s->b.info.head_version), "6.0.0");
	s->b.info.simulated = true;
	s->b.info.can_walk = true;
	s->b.info.can_stand_up = true;
	s->b.info.can_protect = true;
	s->b.info.head_leds = true;	/* shown on its control socket (leds) */
	s->b.info.period_ns = PERIOD_NS;
	memcpy(s->pos, start_pose, sizeof(s->pos));
	for (int j = 0; j < NJ; j++)
		s->temp[j] = 30.0f;
	s->charge = cfg->sim_battery;
	s->sonar[0] = s->sonar[1] = 2.55f;
	s->rng = 0x2545f491;
	s->start_ns = s->last_ns = mono_ns();
	/*
	 * A test mode, off unless NAOBODYD_SIM_LOCKSTEP=1 (physics_test.py):
	 * each cycle is one period of the body's time, the frames' time with
	 * it, however late the cycle ran. A stand, a walk or a fall then never
	 * depends on how busy the machine is, only how long it takes. That
	 * time can only fall behind the clock, so a watchdog (which hears on
	 * the clock) can only come later.
	 */
	s->lockstep = getenv("NAOBODYD_SIM_LOCKSTEP") &&
		      !strcmp(getenv("NAOBODYD_SIM_LOCKSTEP"), "1");
	if (s->lockstep)
		log_info("sim: lockstep (NAOBODYD_SIM_LOCKSTEP): a period of the body's time a cycle");
	s->calibrated_ns = s->start_ns + (uint64_t)(cfg->sim_uncalibrated * 1e9);
	if (cfg->sim_model) {
		char err[768];

		sim_physics_set_warn(physics_warn);
		s->phys = sim_physics_create(cfg->sim_model, start_pose, err, sizeof(err));
		if (!s->phys) {
			log_err("sim: %s", err);
			free(s);
			return NULL;
		}
		if (!cfg->sim_sitting)
			sim_physics_lay(s->phys, lying_pose, LYING_PITCH);
		/* The joints the physics settled them in, not the pose asked. */
		sim_physics_sense(s->phys, &s->ps);
		memcpy(s->pos, s->ps.position, sizeof(s->pos));
	}

	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->tfd < 0 || timerfd_settime(s->tfd, 0, &its, NULL)) {
		log_err("sim: timerfd: %s", strerror(errno));
		if (s->tfd >= 0)
			close(s->tfd);
		free(s);
		return NULL;
	}
	if (cfg->sim_control || cfg->sim_script) {
		s->control = sim_control_create(loop, cfg->sim_control, cfg->sim_script,
						sim_command, s);
		if (!s->control) {
			sim_physics_destroy(s->phys);
			close(s->tfd);
			free(s);
			return NULL;
		}
	}
	log_info("sim: the simulated body (%s, %s), %s, limp%s%s", s->b.info.body_id,
		 s->b.info.head_id, s->phys && !cfg->sim_sitting ? "lying face down" : "sitting",
		 s->phys ? ", physical: " : "",
		 s->phys ? cfg->sim_model : "");
	return &s->b;
}

/* ---- commands (sim_control.h) ----------------------------------------------- */

static const char *const touch_names[NAOBODY_TOUCHES] = {
	"chest", "head_front", "head_middle", "head_rear",
	"l_foot_left", "l_foot_right", "l_hand_back", "l_hand_left", "l_hand_right",
	"r_foot_left", "r_foot_right", "r_hand_back", "r_hand_left", "r_hand_right",
};

static const char *const support_name[] = {
	[SUP_UPRIGHT] = "upright", [SUP_FALLING] = "falling",
	[SUP_LYING] = "lying", [SUP_RIGHTING] = "righting",
};

/*
 * The commands, in the order the unknown command's reply lists them. The
 * table's form, the words and the numbers are libnbsimctl's, shared with
 * chestboard-emu's control language (control.c); the commands differ, for
 * a reason: these are what a person does to a robot (press the head, push
 * it, plug the charger) in the daemon's units, the emulator's the board's
 * raw fields and cycles, for the driver's tests. A line whose words are
 * not one of these (too many, too few, or not of the command's sort) gets
 * the unknown command's reply; a malformed name or value, where a command
 * says so, its usage. Numbers are read as sscanf()'s %f reads them, a
 * number's beginning, as they always were here.
 */
enum sim_cmd {
	SC_TOUCH, SC_PUSH, SC_BATTERY, SC_CHARGER, SC_SONAR, SC_TEMPERATURE,
	SC_REARM, SC_STATUS, SC_LEDS, SC_CYCLE, SC_LOG, SC_PHYSICS, SC_LIFT,
	SC_OBSTACLE, SC_COUNT
};

static const struct simctl_cmd sim_cmds[SC_COUNT] = {
	[SC_TOUCH] = { "touch", 2, 2, 0,
		       "touch SENSOR 0|1 (SENSOR: chest, head_front, ..., r_hand_right)" },
	[SC_PUSH] = { "push", 1, 1, 0, "push front|back|left|right" },
	[SC_BATTERY] = { "battery", 1, 1, 0, "battery CHARGE (0..1)" },
	[SC_CHARGER] = { "charger", 1, 1, 0, "charger 0|1" },
	/* Any count: with a physical body every "sonar" is refused (cmd_sonar()). */
	[SC_SONAR] = { "sonar", 0, 2, 0, "sonar LEFT RIGHT (m)" },
	[SC_TEMPERATURE] = { "temperature", 2, 2, 0,
			     "temperature JOINT CELSIUS (JOINT: HeadYaw, ...)" },
	[SC_REARM] = { "rearm", 0, 0, 0, "rearm" },
	[SC_STATUS] = { "status", 0, 0, 0, "status" },
	[SC_LEDS] = { "leds", 1, 1, 0, "leds chest|l_ear|r_ear|l_eye|r_eye|l_foot|r_foot|skull" },
	[SC_CYCLE] = { "cycle", 0, 1, 0, "cycle [reset]" },
	/* The log's queue, for the tests (nbtest.py): the list never had it. */
	[SC_LOG] = { "log", 0, 0, SIMCTL_UNLISTED, "log" },
	[SC_PHYSICS] = { "physics", 0, 1, SIMCTL_PHYSICS, "physics [reset]" },
	[SC_LIFT] = { "lift", 1, 1, SIMCTL_PHYSICS, "lift 0|1" },
	/* Any words: its usage says the reach, OBSTACLE_REACH (cmd_obstacle()). */
	[SC_OBSTACLE] = { "obstacle", 0, 2, SIMCTL_PHYSICS, "obstacle X Y|off" },
};

static const char *const off_on[] = { "0", "1" };

/* The reply to a malformed name or value: the command's usage. */
static bool cmd_usage(enum sim_cmd c, char *out, size_t n)
{
	snprintf(out, n, "error: %s", sim_cmds[c].usage);
	return true;
}

/* Each command's words (w[0] its name, argc with it); false: not this command. */
typedef bool sim_cmd_fn(struct sim *s, char **w, int argc, char *out, size_t n);

static bool cmd_touch(struct sim *s, char **w, int argc, char *out, size_t n)
{
	int i = simctl_word(w[1], touch_names, NAOBODY_TOUCHES), on = simctl_word(w[2], off_on, 2);

	if (i < 0 || on < 0)
		return cmd_usage(SC_TOUCH, out, n);
	s->touch = (s->touch & ~(1U << i)) | (uint32_t)on << i;
	snprintf(out, n, "ok");
	return true;
}

static bool cmd_push(struct sim *s, char **w, int argc, char *out, size_t n)
{
	static const char *const way[] = { "front", "back", "left", "right" };
	static const float roll[] = { 0.0f, 0.0f, -1.0f, 1.0f };
	static const float pitch[] = { 1.0f, -1.0f, 0.0f, 0.0f };
	int i = simctl_word(w[1], way, 4);

	if (i < 0)
		return cmd_usage(SC_PUSH, out, n);
	/*
	 * The physics' push: 30 N on the torso for 0.2 s (provisional), in the
	 * robot's frame as a person means it: front is the way it faces, so
	 * the force turns with the torso's yaw into the world's axes, which
	 * are the physics'. (The kinematic body's fall is in its own frame.)
	 */
	if (s->phys) {
		float fx = 30.0f * pitch[i], fy = -30.0f * roll[i], torso[4];

		sim_physics_torso(s->phys, torso);
		sim_physics_push(s->phys, fx * cosf(torso[3]) - fy * sinf(torso[3]),
				 fx * sinf(torso[3]) + fy * cosf(torso[3]), 0.2f);
	} else {
		fall(s, roll[i], pitch[i], 0.15f);
	}
	snprintf(out, n, "ok");
	return true;
}

static bool cmd_battery(struct sim *s, char **w, int argc, char *out, size_t n)
{
	float x;

	if (sscanf(w[1], "%f", &x) != 1 || !(x >= 0.0f && x <= 1.0f))
		return false;
	s->charge = x;
	snprintf(out, n, "ok");
	return true;
}

static bool cmd_charger(struct sim *s, char **w, int argc, char *out, size_t n)
{
	int on = simctl_word(w[1], off_on, 2);

	if (on < 0)
		return false;
	s->charger = on;
	snprintf(out, n, "ok");
	return true;
}

static bool cmd_sonar(struct sim *s, char **w, int argc, char *out, size_t n)
{
	float x, y;

	if (s->phys) {
		snprintf(out, n, "error: sonar: the physical body's sonars see its obstacle "
			 "(obstacle X Y|off)");
		return true;
	}
	if (argc != 3 || sscanf(w[1], "%f", &x) != 1 || sscanf(w[2], "%f", &y) != 1 ||
	    !(x >= 0.0f && y >= 0.0f))
		return false;
	s->sonar[0] = x;
	s->sonar[1] = y;
	snprintf(out, n, "ok");
	return true;
}

static bool cmd_temperature(struct sim *s, char **w, int argc, char *out, size_t n)
{
	float x;
	int j;

	if (sscanf(w[2], "%f", &x) != 1)
		return false;
	j = simctl_word(w[1], joint_name, NJ);
	if (j < 0)
		return cmd_usage(SC_TEMPERATURE, out, n);
	s->temp[j] = x;
	snprintf(out, n, "ok");
	return true;
}

static bool cmd_rearm(struct sim *s, char **w, int argc, char *out, size_t n)
{
	s->stopped = false;
	snprintf(out, n, "ok");
	return true;
}

static bool cmd_status(struct sim *s, char **w, int argc, char *out, size_t n)
{
	float at[4] = { s->pose[0], s->pose[1], 0.0f, s->pose[2] };

	/* pose: where the body is (the model's torso, with the physics). */
	if (s->phys)
		sim_physics_torso(s->phys, at);
	snprintf(out, n, "ok stopped=%d support=%s tilt=%.3f pose=%.4f,%.4f,%.4f "
		 "charge=%.4f knees=%.3f legs_stiffness=%.3f cycle=%llu",
		 s->stopped, support_name[s->support], s->tilt, at[0], at[1],
		 at[3], s->charge,
		 (s->pos[NAOBODY_L_KNEE_PITCH] + s->pos[NAOBODY_R_KNEE_PITCH]) / 2.0f,
		 leg_stiffness(s), (unsigned long long)s->cycle);
	return true;
}

static bool cmd_leds(struct sim *s, char **w, int argc, char *out, size_t n)
{
	static const char *const name[] = {
		"chest", "l_ear", "r_ear", "l_eye", "r_eye", "l_foot", "r_foot", "skull",
	};
	static const struct { size_t off, len; } groups[] = {
		{ offsetof(struct nb_actuators, chest), 3 },
		{ offsetof(struct nb_actuators, l_ear), NB_EAR_LEDS },
		{ offsetof(struct nb_actuators, r_ear), NB_EAR_LEDS },
		{ offsetof(struct nb_actuators, l_eye), NB_EYE_LEDS },
		{ offsetof(struct nb_actuators, r_eye), NB_EYE_LEDS },
		{ offsetof(struct nb_actuators, l_foot), 3 },
		{ offsetof(struct nb_actuators, r_foot), 3 },
		{ offsetof(struct nb_actuators, skull), NB_SKULL_LEDS },
	};
	int g = simctl_word(w[1], name, sizeof(name) / sizeof(name[0]));
	size_t len;

	if (g < 0)
		return cmd_usage(SC_LEDS, out, n);
	len = (size_t)snprintf(out, n, "ok");
	for (size_t i = 0; i < groups[g].len && len < n; i++) {
		const float *v = (const float *)((const char *)&s->cmd + groups[g].off);

		len += (size_t)snprintf(out + len, n - len, " %.3f", v[i]);
	}
	return true;
}

static bool cmd_cycle(struct sim *s, char **w, int argc, char *out, size_t n)
{
	if (argc == 1) {
		/* The body loop's timing at the body, since the last "cycle reset". */
		snprintf(out, n, "ok writes=%llu late=%llu worst_gap_us=%llu",
			 (unsigned long long)s->writes, (unsigned long long)s->late_writes,
			 (unsigned long long)(s->worst_gap_ns / 1000));
		return true;
	}
	if (strcmp(w[1], "reset"))
		return false;
	s->writes = s->late_writes = s->worst_gap_ns = 0;
	snprintf(out, n, "ok");
	return true;
}

static bool cmd_log(struct sim *s, char **w, int argc, char *out, size_t n)
{
	/* The log's queue (log.h): written >= queued-as-read means it is out. */
	uint64_t queued, written;

	log_progress(&queued, &written);
	snprintf(out, n, "ok queued=%llu written=%llu dropped=%llu",
		 (unsigned long long)queued, (unsigned long long)written,
		 (unsigned long long)log_dropped());
	return true;
}

static bool cmd_physics(struct sim *s, char **w, int argc, char *out, size_t n)
{
	struct sim_physics_worst wo;
	struct sim_physics_impact im;
	float fsr = 0.0f, at[4];

	/* The worst torques and the head's impact are since the last reset. */
	if (argc == 2) {
		if (strcmp(w[1], "reset"))
			return false;
		sim_physics_torque_reset(s->phys);
		sim_physics_impact_reset(s->phys);
		snprintf(out, n, "ok");
		return true;
	}
	sim_physics_torque_ratio(s->phys, &wo);
	sim_physics_impact(s->phys, &im);
	for (int i = 0; i < NAOBODY_FSRS; i++)
		fsr += s->ps.fsr[i];
	sim_physics_torso(s->phys, at);
	snprintf(out, n, "ok torso_height=%.4f roll=%.4f pitch=%.4f fsr_kg=%.3f "
		 "mass_kg=%.3f torque_given=%.3f torque_given_joint=%s "
		 "torque_asked=%.3f torque_asked_joint=%s torso_x=%.4f torso_y=%.4f "
		 "torso_yaw=%.4f head_touched=%d head_speed=%.3f arm_before_head=%d",
		 s->ps.torso_height, s->ps.angles[0], s->ps.angles[1], fsr,
		 sim_physics_mass(s->phys), wo.given,
		 wo.given_joint >= 0 ? joint_name[wo.given_joint] : "-", wo.asked,
		 wo.asked_joint >= 0 ? joint_name[wo.asked_joint] : "-", at[0], at[1], at[3],
		 im.head_touched, im.head_speed, im.arm_before_head);
	return true;
}

static bool cmd_lift(struct sim *s, char **w, int argc, char *out, size_t n)
{
	int on = simctl_word(w[1], off_on, 2);

	if (on < 0)
		return false;
	/* Picked up by the torso, 10 cm up, or let go. */
	sim_physics_hold(s->phys, on, 0.10f);
	snprintf(out, n, "ok");
	return true;
}

static bool cmd_obstacle(struct sim *s, char **w, int argc, char *out, size_t n)
{
	float x, y;

	/*
	 * The post's axis, m, in the frame the robot started in; "nan"
	 * (which sscanf takes) would break the model.
	 */
	if (argc == 2 && !strcmp(w[1], "off")) {
		sim_physics_obstacle(s->phys, false, 0.0f, 0.0f);
		snprintf(out, n, "ok");
	} else if (argc == 3 && sscanf(w[1], "%f", &x) == 1 && sscanf(w[2], "%f", &y) == 1 &&
		   fabsf(x) <= OBSTACLE_REACH && fabsf(y) <= OBSTACLE_REACH) {
		sim_physics_obstacle(s->phys, true, x, y);
		snprintf(out, n, "ok");
	} else {
		snprintf(out, n, "error: obstacle X Y (m from where the robot started, "
			 "each within %.0f) or obstacle off", (double)OBSTACLE_REACH);
	}
	return true;
}

static sim_cmd_fn *const sim_cmd_run[SC_COUNT] = {
	[SC_TOUCH] = cmd_touch, [SC_PUSH] = cmd_push, [SC_BATTERY] = cmd_battery,
	[SC_CHARGER] = cmd_charger, [SC_SONAR] = cmd_sonar,
	[SC_TEMPERATURE] = cmd_temperature, [SC_REARM] = cmd_rearm,
	[SC_STATUS] = cmd_status, [SC_LEDS] = cmd_leds, [SC_CYCLE] = cmd_cycle,
	[SC_LOG] = cmd_log, [SC_PHYSICS] = cmd_physics, [SC_LIFT] = cmd_lift,
	[SC_OBSTACLE] = cmd_obstacle,
};

/* The commands a body has: the physics' only with --sim-physics. */
static void cmd_unknown(char *out, size_t n)
{
	const unsigned int listed = SIMCTL_PHYSICS | SIMCTL_UNLISTED;
	char any[160], physical[64];

	simctl_list(sim_cmds, SC_COUNT, listed, 0, ", ", any, sizeof(any));
	simctl_list(sim_cmds, SC_COUNT, listed, SIMCTL_PHYSICS, ", ", physical, sizeof(physical));
	snprintf(out, n, "error: unknown command; try: %s; with --sim-physics: %s", any, physical);
}

static void sim_command(void *sim, const char *line, char *out, size_t n)
{
	struct sim *s = sim;
	char copy[256], *w[3];
	int argc, c;

	/* A name and two words at most: what follows is not read. */
	snprintf(copy, sizeof(copy), "%s", line);
	argc = simctl_split(copy, w, 3, NULL);
	if (argc < 1) {
		snprintf(out, n, "error: empty command");
		return;
	}
	c = simctl_find(sim_cmds, SC_COUNT, w[0]);
	if (c == SC_COUNT || !simctl_takes(&sim_cmds[c], argc - 1) ||
	    ((sim_cmds[c].flags & SIMCTL_PHYSICS) && !s->phys) ||
	    !sim_cmd_run[c](s, w, argc, out, n))
		cmd_unknown(out, n);
}
