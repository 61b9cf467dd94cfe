/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbphysics: MuJoCo, loaded at run time (sim_physics_dl.c). The daemon
 * that serves the real robot must start where there is no MuJoCo
 * (HULKs-OS has none), so it is not linked: only the physical simulated
 * body loads it, by the SONAME of the libmujoco.so it was built against. Its headers still
 * give the types and structures, so the loaded library must be their
 * version.
 */
#ifndef NAOBODY_PHYSICS_SIM_PHYSICS_DL_H
#define NAOBODY_PHYSICS_SIM_PHYSICS_DL_H

#include <stddef.h>

#include <mujoco/mujoco.h>

/* Every MuJoCo function sim_physics.c calls, by its name. */
#define MUJOCO_FUNCTIONS(X) \
	X(mj_version) X(mj_loadXML) X(mj_deleteModel) X(mj_makeData) X(mj_deleteData) \
	X(mj_resetData) X(mj_step) X(mj_forward) X(mj_kinematics) \
	X(mj_rnePostConstraint) X(mj_objectVelocity) X(mj_objectAcceleration) \
	X(mj_contactForce) X(mj_name2id) X(mj_getTotalmass) X(mju_rayGeom)

struct mujoco {
#define MUJOCO_POINTER(f) __typeof__(f) *f;
	MUJOCO_FUNCTIONS(MUJOCO_POINTER)
#undef MUJOCO_POINTER
	/* A variable, not a function: the address of the library's own. */
	__typeof__(mju_user_warning) *mju_user_warning;
};

/*
 * The library and its functions, loaded on the first call and kept for the
 * process's life; NULL and why (the library, dlerror()'s text, a missing
 * symbol or a version mismatch) in err.
 */
const struct mujoco *mujoco_load(char *err, size_t errlen);

#endif
