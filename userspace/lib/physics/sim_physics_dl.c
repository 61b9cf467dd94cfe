// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbphysics: MuJoCo, loaded at run time (see sim_physics_dl.h).
 *
 * PHYSICS_MUJOCO_SONAME is the SONAME of the libmujoco.so found at build
 * time (physics.mk), PHYSICS_MUJOCO_PACKAGE the Debian package that has
 * it: the name a user needs when it is missing.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "sim_physics_dl.h"

static struct mujoco mujoco;
static void *handle;

const struct mujoco *mujoco_load(char *err, size_t errlen)
{
	void *h;
	int v;

	if (handle)
		return &mujoco;
	/*
	 * RTLD_NOW: a symbol the library lacks fails here, not mid-cycle.
	 * RTLD_LOCAL: its symbols are for this table only.
	 */
	h = dlopen(PHYSICS_MUJOCO_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "the physical simulated body needs MuJoCo, %s, and it "
			 "cannot be loaded: %s (Debian's package %s has it)",
			 PHYSICS_MUJOCO_SONAME, dlerror(), PHYSICS_MUJOCO_PACKAGE);
		return NULL;
	}
#define MUJOCO_BIND(f)								\
	*(void **)&mujoco.f = dlsym(h, #f);					\
	if (!mujoco.f) {							\
		snprintf(err, errlen, "%s has no %s: not the MuJoCo %d.%d.%d "	\
			 "naobodyd was built with", PHYSICS_MUJOCO_SONAME, #f,	\
			 mjVERSION_HEADER / 100, mjVERSION_HEADER / 10 % 10,	\
			 mjVERSION_HEADER % 10);				\
		dlclose(h);							\
		return NULL;							\
	}
	MUJOCO_FUNCTIONS(MUJOCO_BIND)
	MUJOCO_BIND(mju_user_warning)
#undef MUJOCO_BIND
	/*
	 * The structures (mjModel, mjData) are the headers' layout: another
	 * version's library would read and write them at other offsets.
	 */
	v = mujoco.mj_version();
	if (v != mjVERSION_HEADER) {
		snprintf(err, errlen, "%s is MuJoCo %d.%d.%d, naobodyd was built with MuJoCo "
			 "%d.%d.%d's headers: refused, their structures may differ",
			 PHYSICS_MUJOCO_SONAME, v / 100, v / 10 % 10, v % 10,
			 mjVERSION_HEADER / 100, mjVERSION_HEADER / 10 % 10,
			 mjVERSION_HEADER % 10);
		dlclose(h);
		return NULL;
	}
	handle = h;
	return &mujoco;
}
