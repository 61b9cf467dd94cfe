// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbphysics in a build without MuJoCo (no libmujoco-dev where it was
 * built, physics.mk), which only naobodyd links: its --sim-physics says so
 * and the daemon exits; the kinematic body and the real one are whole.
 * sim_physics_create() never gives a body, so the rest is never called
 * with one: they are here for the link only.
 */
#include <stdio.h>

#include <physics/sim_physics.h>

void sim_physics_set_warn(void (*warn)(const char *line))
{
}

struct sim_physics *sim_physics_create(const char *path, const float pose[NAOBODY_JOINTS],
				       char *err, size_t errlen)
{
	snprintf(err, errlen, "this naobodyd was built without MuJoCo (libmujoco-dev was not "
		 "installed): no physical simulated body");
	return NULL;
}

void sim_physics_destroy(struct sim_physics *p)
{
}

void sim_physics_lay(struct sim_physics *p, const float pose[NAOBODY_JOINTS], float pitch)
{
}

void sim_physics_cycle(struct sim_physics *p, float seconds,
		       const float target[NAOBODY_JOINTS],
		       const float stiffness[NAOBODY_JOINTS])
{
}

void sim_physics_sense(struct sim_physics *p, struct sim_physics_sense *out)
{
}

void sim_physics_push(struct sim_physics *p, float fx, float fy, float seconds)
{
}

void sim_physics_hold(struct sim_physics *p, bool on, float height)
{
}

void sim_physics_torque_ratio(const struct sim_physics *p, struct sim_physics_worst *w)
{
}

void sim_physics_torque_reset(struct sim_physics *p)
{
}

void sim_physics_impact(const struct sim_physics *p, struct sim_physics_impact *out)
{
}

void sim_physics_impact_reset(struct sim_physics *p)
{
}

void sim_physics_friction(struct sim_physics *p, float sliding)
{
}

void sim_physics_obstacle(struct sim_physics *p, bool on, float x, float y)
{
}

void sim_physics_torso(const struct sim_physics *p, float out[4])
{
}

void sim_physics_sole(const struct sim_physics *p, int foot, float out[4])
{
}

void sim_physics_sole_world(const struct sim_physics *p, int foot, float out[3])
{
}

float sim_physics_mass(const struct sim_physics *p)
{
	return 0.0f;
}
