# SPDX-License-Identifier: GPL-2.0-only
#
# libnbphysics: the physical NAO, the MuJoCo model userspace/sim/nao6/nao6.xml
# driven as the boards drive the motors (userspace/include/physics/
# sim_physics.h): naobodyd --sim-physics, chestboard-emu --physics,
# nb-physics-server and the tests in selftests/sim.
#
# It is here, not beside the model in userspace/sim, because the top
# Makefile reads the fragments in the order of their paths and userspace/lib
# comes before naobodyd and tools: their fragments test
# PHYSICS_MUJOCO_SONAME and take PHYSICS_LDLIBS while they are read.
#
# Whatever links it adds, after it, nbmotion (the joints' names and
# ranges, <motion/joints.h>), and $(PHYSICS_LDLIBS) to its LDLIBS.
LIBRARIES += nbphysics

# MuJoCo is not linked, so a program with this library still starts where
# there is no MuJoCo (the robot: HULKs-OS has none): it is loaded at run
# time (sim_physics_dl.c) by the SONAME of the libmujoco.so found here,
# with its headers. Without libmujoco-dev the library is
# sim_physics_none.c, whose sim_physics_create() says so;
# PHYSICS_MUJOCO_SONAME is then empty, and the users leave out what needs
# the real model.
READELF ?= readelf
PHYSICS_MUJOCO_SO := $(shell $(CC) -print-file-name=libmujoco.so)
PHYSICS_MUJOCO_SONAME := $(if $(filter /%,$(PHYSICS_MUJOCO_SO)),$(shell $(READELF) -d \
	$(PHYSICS_MUJOCO_SO) 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'))
# Debian's name for the package with that library: libmujoco.so.2.2.2 is
# in libmujoco2.2.2 (Policy 8.1), for the message when it is missing.
PHYSICS_MUJOCO_PACKAGE ?= $(subst .so.,,$(PHYSICS_MUJOCO_SONAME))

ifneq ($(PHYSICS_MUJOCO_SONAME),)
nbphysics_SRCS := $(addprefix $(srctree)/userspace/lib/physics/, sim_physics.c sim_physics_dl.c)
# dlopen() is libc's from glibc 2.34; older ones (and some libcs) need -ldl.
PHYSICS_LDLIBS := $(shell echo 'char dlopen(void); int main(void) { return dlopen(); }' | \
	$(CC) -x c -o /dev/null - 2>/dev/null || echo -ldl)
else
nbphysics_SRCS := $(srctree)/userspace/lib/physics/sim_physics_none.c
PHYSICS_LDLIBS :=
endif

$(O)/obj/userspace/lib/physics/sim_physics_dl.o $(O)/san/userspace/lib/physics/sim_physics_dl.o: \
	USER_CFLAGS += -DPHYSICS_MUJOCO_SONAME='"$(PHYSICS_MUJOCO_SONAME)"' \
	-DPHYSICS_MUJOCO_PACKAGE='"$(PHYSICS_MUJOCO_PACKAGE)"'
# Both builds' objects again when the library found changes, so that the
# archive is made again from the one its SRCS name: the stamp is rewritten,
# and so newer, only when its text differs.
PHYSICS_MUJOCO_STAMP := $(O)/obj/userspace/lib/physics/mujoco.stamp
$(foreach b,obj san,$(foreach f,sim_physics_dl sim_physics_none,\
	$(O)/$(b)/userspace/lib/physics/$(f).o)): $(PHYSICS_MUJOCO_STAMP)
$(PHYSICS_MUJOCO_STAMP): physics-mujoco-check
	@mkdir -p $(@D) && echo '$(PHYSICS_MUJOCO_SONAME) $(PHYSICS_MUJOCO_PACKAGE)' | \
		cmp -s - $@ || echo '$(PHYSICS_MUJOCO_SONAME) $(PHYSICS_MUJOCO_PACKAGE)' > $@
.PHONY: physics-mujoco-check
