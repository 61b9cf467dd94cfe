/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbphysics: the physical NAO (userspace/lib/physics/sim_physics.c),
 * the MuJoCo model of the NAO V6 (userspace/sim/nao6/nao6.xml) driven the
 * way the NAO's boards drive their motors. naobodyd's simulated body
 * (--sim-physics), chestboard-emu (--physics), nb-physics-server and the
 * tests in selftests/sim run it. The caller owns the cycle, the control
 * language and what is still kinematic (in naobodyd's body_sim.c: battery,
 * temperatures, the head's and the chest's touches, which a person
 * presses); this is the torso, the joints, the inertial unit, the feet,
 * the sonars (rays cast at an obstacle) and the bumpers and hands' touches
 * (contacts).
 */
#ifndef NAOBODY_PHYSICS_SIM_PHYSICS_H
#define NAOBODY_PHYSICS_SIM_PHYSICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <naobody/body.h>

struct sim_physics;

/* What the physics measured at the end of a cycle; LoLA's orders and units. */
struct sim_physics_sense {
	float position[NAOBODY_JOINTS];		/* rad */
	float torque[NAOBODY_JOINTS];		/* N m, the motor's, signed */
	float current[NAOBODY_JOINTS];		/* A, from the torque */
	float accelerometer[3];			/* m/s^2, as the NAO's (-g on z upright) */
	float gyroscope[3];			/* rad/s */
	float angles[2];			/* torso roll, pitch (rad) */
	float fsr[NAOBODY_FSRS];		/* kg */
	float torso_height;			/* m, the torso frame above the floor */
	/*
	 * m, left and right: the nearest obstacle within each sonar's cone,
	 * SIM_SONAR_MIN..SIM_SONAR_NOTHING; SIM_SONAR_NOTHING when none is
	 * in range. Only obstacles echo (the model's geom group 3), not the
	 * floor or the robot.
	 */
	float sonar[2];
	/*
	 * Bit i: LoLA's touch i (enum naobody_touch), for those the physics
	 * sets: the feet's bumpers and the hands' pads, touched during the
	 * cycle. Never the chest button or the head's pads.
	 */
	uint32_t touch;
};

/* The sonars' range: nearer reads the minimum, nothing in range the maximum. */
#define SIM_SONAR_MIN		0.20f
#define SIM_SONAR_NOTHING	2.55f

/*
 * Where MuJoCo's warnings go, one line each ("sim physics: MuJoCo: ...");
 * NULL, as at the start: standard error. MuJoCo's hook is one for the
 * process, and so is this.
 */
void sim_physics_set_warn(void (*warn)(const char *line));

/*
 * The model at path, its joints in pose (LoLA's order), settled on the
 * floor. NULL and a message in err: the file and MuJoCo's error, or why
 * MuJoCo cannot be loaded (userspace/lib/physics/sim_physics_dl.h; a build
 * without MuJoCo, sim_physics_none.c, says so).
 */
struct sim_physics *sim_physics_create(const char *path, const float pose[NAOBODY_JOINTS],
				       char *err, size_t errlen);
void sim_physics_destroy(struct sim_physics *p);
/*
 * Put the body down again in pose, turned pitch rad about the world's y
 * axis (pi/2: lying face down), held there while it settles: as created,
 * but lying. The simulated body starts so (body_sim.c).
 */
void sim_physics_lay(struct sim_physics *p, const float pose[NAOBODY_JOINTS], float pitch);

/*
 * Run the model for seconds (a body cycle's time since the last: 12 ms, six
 * 2 ms steps, when on time) with these position targets and stiffnesses
 * (0..1; 0: limp, the motor gives no torque).
 */
void sim_physics_cycle(struct sim_physics *p, float seconds,
		       const float target[NAOBODY_JOINTS],
		       const float stiffness[NAOBODY_JOINTS]);
void sim_physics_sense(struct sim_physics *p, struct sim_physics_sense *out);

/* A horizontal push on the torso (N, world x forward, y left) for seconds. */
void sim_physics_push(struct sim_physics *p, float fx, float fy, float seconds);

/*
 * Lift the robot by its torso (on) height metres, held upright, as a person
 * would; or let it go.
 */
void sim_physics_hold(struct sim_physics *p, bool on, float height);

/*
 * The worst |motor torque| / its maximum since the last reset: what the
 * motors gave (at most 1: they are clamped), and what the position error
 * asked for before the clamp (above 1: a motor saturated). Averaged over
 * the model's steps since the reset (a walk's mean load): motor_mean, the
 * motor whose own asked share averages highest (motor_mean_joint), and
 * mean_asked, each step's most loaded motor's share, whichever motor it
 * is (no one motor's load: a bound above every motor's mean).
 */
struct sim_physics_worst {
	float given, asked;
	int given_joint, asked_joint;	/* LoLA's joint, -1: none since the reset */
	float motor_mean;
	int motor_mean_joint;	/* LoLA's joint, -1: no step, or none asked anything */
	float mean_asked;
};
void sim_physics_torque_ratio(const struct sim_physics *p, struct sim_physics_worst *w);
void sim_physics_torque_reset(struct sim_physics *p);

/*
 * How the head met the floor since the last reset: whether it touched,
 * the fastest it was going (m/s, the head's centre) in the step before a
 * touch began, and whether an arm (upper arm, forearm or hand) had touched
 * the floor before the head first did. The protective fall's measure
 * (motion.c, selftests/sim/fall_test.c).
 */
struct sim_physics_impact {
	bool head_touched;
	float head_speed;
	bool arm_touched;		/* an arm touched the floor, ever */
	bool arm_before_head;		/* ... before the head's first touch */
};
void sim_physics_impact(const struct sim_physics *p, struct sim_physics_impact *out);
void sim_physics_impact_reset(struct sim_physics *p);

/*
 * Every shape's sliding friction set to sliding, the floor's too (MuJoCo
 * takes the larger of two touching shapes'): the model's 1.0 is other
 * simulators' convention, not a measured figure (nao6-model.rst,
 * Contact), so a bench measures how much the motions depend on it.
 */
void sim_physics_friction(struct sim_physics *p, float sliding);

/*
 * The model's obstacle (a post 0.20 m across, 0.60 m tall) with its axis at
 * x, y (m) in the robot's start frame (the torso's place and heading when
 * it was created: x forward, y left); or (on false) parked out of reach.
 */
void sim_physics_obstacle(struct sim_physics *p, bool on, float x, float y);

/* The model's total mass (kg). */
float sim_physics_mass(const struct sim_physics *p);

/*
 * Where things are, for tests and the control socket: the torso in the
 * world (x, y, z in m, yaw in rad), and a sole (the model's LSole or
 * RSole site; foot 0 left, 1 right) in the torso's frame.
 */
void sim_physics_torso(const struct sim_physics *p, float out[4]);
void sim_physics_sole(const struct sim_physics *p, int foot, float out[4]);
/* A sole's place in the world (x, y, z in m): its site, foot 0 left, 1 right. */
void sim_physics_sole_world(const struct sim_physics *p, int foot, float out[3]);

#endif
