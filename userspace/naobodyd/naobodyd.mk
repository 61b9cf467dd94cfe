# SPDX-License-Identifier: GPL-2.0-only
# naobodyd: the robot API (TCP 7700), the watchdog, the LoLA-compatible
# socket and the simulated body.

# Its sources name each other's headers from this folder ("rest/rest.h"
# from anywhere, "rest_cmd.h" beside it), and so do its tests.
NAOBODYD_INC := -I$(srctree)/userspace/naobodyd
$(O)/obj/userspace/naobodyd/%.o $(O)/san/userspace/naobodyd/%.o: USER_CFLAGS += $(NAOBODYD_INC)
$(O)/fuzz/userspace/naobodyd/%.o: BASE_CFLAGS += $(NAOBODYD_INC)

# The parts that parse what peers send, alone, for the fuzzer too; they
# take their MessagePack through libmpread (userspace/lib/mpread).
LIBRARIES += nbdcodec
nbdcodec_SRCS := $(addprefix $(srctree)/userspace/naobodyd/, \
	api/codec.c lola/lola_codec.c outq.c log.c head/head_bus_table.c)

PROGRAMS += naobodyd
MAN_PAGES += $(srctree)/userspace/naobodyd/naobodyd.8
naobodyd_SRCS := $(addprefix $(srctree)/userspace/naobodyd/, \
	main.c options.c privileges.c core.c loop.c handoff.c watchdog.c leds.c \
	body_sim.c body_real.c sim_control.c robot_motions.c \
	api/api.c \
	lola/lola.c lola/lola_reader.c \
	head/head_bus.c head/head_audio.c head/head_camera.c head/camera_jpeg.c \
	$(addprefix rest/, rest.c rest_net.c rest_token.c rest_limit.c rest_conns.c rest_host.c \
		rest_static.c rest_cmd.c rest_leds.c rest_boards.c rest_serial.c rest_serial_parse.c))
naobodyd_LIBS := nbdcodec nbmotion mpread nbcodec naobody cm5 parol6 nrlink nrframer
naobodyd_LDLIBS := $(shell $(PKG_CONFIG) --libs msgpack libmicrohttpd jansson libmnl libsystemd libturbojpeg alsa samplerate) \
	-lz -lm -lpthread

# The status page (rest_static.h): plain files, no build step. make install
# (the top Makefile) puts them in NAOBODYD_WWW_DIR, the daemon's --www
# default; the tests serve the source tree's copy (--www). Recursive, so the
# PREFIX set after the fragments (or on the command line) is the one used.
NAOBODYD_WWW_FILES := $(wildcard $(srctree)/userspace/naobodyd/www/*)
NAOBODYD_WWW_DIR ?= $(PREFIX)/share/naobodyd/www
$(O)/obj/userspace/naobodyd/options.o $(O)/san/userspace/naobodyd/options.o: \
	USER_CFLAGS += -DNAOBODYD_WWW_DIR='"$(NAOBODYD_WWW_DIR)"'
# options.o again when that changes (make install PREFIX=/usr after a make):
# the stamp is rewritten, and so newer, only when its text differs.
NAOBODYD_WWW_STAMP := $(O)/obj/userspace/naobodyd/www-dir.stamp
$(O)/obj/userspace/naobodyd/options.o $(O)/san/userspace/naobodyd/options.o: $(NAOBODYD_WWW_STAMP)
$(NAOBODYD_WWW_STAMP): naobodyd-www-dir-check
	@mkdir -p $(@D) && echo '$(NAOBODYD_WWW_DIR) $(NAOBODYD_SIM_DIR) $(NAOBODYD_MUJOCO_SONAME) $(abspath $(O)) $(srctree)' | \
		cmp -s - $@ || \
		echo '$(NAOBODYD_WWW_DIR) $(NAOBODYD_SIM_DIR) $(NAOBODYD_MUJOCO_SONAME) $(abspath $(O)) $(srctree)' > $@
.PHONY: naobodyd-www-dir-check

# The physical simulated body's model (--sim-physics): make install puts
# userspace/sim/nao6/nao6.xml in NAOBODYD_SIM_DIR, the --sim-model default;
# the tests give the source tree's copy (--sim-model). Like the www
# directory's, the stamp above rebuilds options.o when the path changes.
NAOBODYD_SIM_DIR ?= $(PREFIX)/share/naobodyd/sim
$(O)/obj/userspace/naobodyd/options.o $(O)/san/userspace/naobodyd/options.o: \
	USER_CFLAGS += -DNAOBODYD_SIM_MODEL='"$(NAOBODYD_SIM_DIR)/nao6.xml"'
# The build's own binary runs from its tree (options.c, from_tree()): the
# tree's model and status page, nothing installed needed.
$(O)/obj/userspace/naobodyd/options.o: USER_CFLAGS += \
	-DNAOBODYD_TREE_BIN='"$(abspath $(O))/bin/naobodyd"' \
	-DNAOBODYD_TREE_WWW='"$(srctree)/userspace/naobodyd/www"' \
	-DNAOBODYD_TREE_MODEL='"$(srctree)/userspace/sim/nao6/nao6.xml"'

# MuJoCo, for the physical simulated body (--sim-physics) only: not linked,
# so the daemon starts on the robot, which has no MuJoCo (HULKs-OS), but
# loaded at run time (sim_physics_dl.c) by the SONAME of the libmujoco.so
# found here, with its headers. Without libmujoco-dev the daemon is built
# without the physical body (sim_physics_none.c), and --sim-physics says so.
READELF ?= readelf
NAOBODYD_MUJOCO_SO := $(shell $(CC) -print-file-name=libmujoco.so)
NAOBODYD_MUJOCO_SONAME := $(if $(filter /%,$(NAOBODYD_MUJOCO_SO)),$(shell $(READELF) -d \
	$(NAOBODYD_MUJOCO_SO) 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'))
# Debian's name for the package with that library: libmujoco.so.2.2.2 is
# in libmujoco2.2.2 (Policy 8.1), for the message when it is missing.
NAOBODYD_MUJOCO_PACKAGE ?= $(subst .so.,,$(NAOBODYD_MUJOCO_SONAME))
ifneq ($(NAOBODYD_MUJOCO_SONAME),)
naobodyd_SRCS += $(addprefix $(srctree)/userspace/naobodyd/, sim_physics.c sim_physics_dl.c)
$(O)/obj/userspace/naobodyd/sim_physics_dl.o $(O)/san/userspace/naobodyd/sim_physics_dl.o: \
	USER_CFLAGS += -DNAOBODYD_MUJOCO_SONAME='"$(NAOBODYD_MUJOCO_SONAME)"' \
	-DNAOBODYD_MUJOCO_PACKAGE='"$(NAOBODYD_MUJOCO_PACKAGE)"'
# Again when the library found changes (the stamp above has its SONAME).
$(O)/obj/userspace/naobodyd/sim_physics_dl.o $(O)/san/userspace/naobodyd/sim_physics_dl.o: \
	$(NAOBODYD_WWW_STAMP)
# dlopen() is libc's from glibc 2.34; older ones (and some libcs) need -ldl.
NAOBODYD_DL_LDLIBS := $(shell echo 'char dlopen(void); int main(void) { return dlopen(); }' | \
	$(CC) -x c -o /dev/null - 2>/dev/null || echo -ldl)
naobodyd_LDLIBS += $(NAOBODYD_DL_LDLIBS)
# make bench: the physics' CPU per body cycle, as a ratio to real time,
# through the daemon's own calls (selftests/sim/physics_bench.c). Here, not
# in selftests/sim/sim.mk, because it needs MuJoCo found as above.
PROGRAMS += nb-physics-bench
nb-physics-bench_SRCS := $(srctree)/selftests/sim/physics_bench.c \
	$(addprefix $(srctree)/userspace/naobodyd/, sim_physics.c sim_physics_dl.c)
nb-physics-bench_LIBS := nbmotion nbdcodec
nb-physics-bench_LDLIBS := -lm $(NAOBODYD_DL_LDLIBS)
BENCHES += $(O)/bin/nb-physics-bench
# The walking engine on the physics, through the motion layer, faster than
# real time (selftests/sim/walk_test.c); here for the same reason.
SIM_WALK_SRCS := $(srctree)/selftests/sim/walk_harness.c \
	$(addprefix $(srctree)/userspace/naobodyd/, sim_physics.c sim_physics_dl.c)
UNIT_TESTS += sim_walk_test
sim_walk_test_SRCS := $(srctree)/selftests/sim/walk_test.c $(SIM_WALK_SRCS)
# The watchdog's times (watchdog.h), by the daemon's include path.
$(O)/obj/selftests/sim/walk_test.o $(O)/san/selftests/sim/walk_test.o: USER_CFLAGS += $(NAOBODYD_INC)
sim_walk_test_LIBS := nbmotion nbdcodec
sim_walk_test_LDLIBS := -lm $(NAOBODYD_DL_LDLIBS)
# The sim tests' limits are hang detectors: about 60 s of CPU here, but what
# a loaded machine gives them is its own (scripts/run-unit-tests.sh).
sim_walk_test_UNIT_TIMEOUT := 3600
# The protective fall on the physics: the head's impact with and without it
# (selftests/sim/fall_test.c).
UNIT_TESTS += sim_fall_test
sim_fall_test_SRCS := $(srctree)/selftests/sim/fall_test.c $(SIM_WALK_SRCS)
sim_fall_test_LIBS := nbmotion nbdcodec
sim_fall_test_LDLIBS := -lm $(NAOBODYD_DL_LDLIBS)
sim_fall_test_UNIT_TIMEOUT := 1800
# The sonars, bumpers and hands' pads on the physics, against the model's
# obstacle (selftests/sim/sense_test.c).
UNIT_TESTS += sim_sense_test
sim_sense_test_SRCS := $(srctree)/selftests/sim/sense_test.c $(SIM_WALK_SRCS)
sim_sense_test_LIBS := nbmotion nbdcodec
sim_sense_test_LDLIBS := -lm $(NAOBODYD_DL_LDLIBS)
sim_sense_test_UNIT_TIMEOUT := 1200
# The get-up motions on the physics: 20 falls each way, the robot awake,
# up again in Stand (selftests/sim/getup_test.c).
UNIT_TESTS += sim_getup_test
sim_getup_test_SRCS := $(srctree)/selftests/sim/getup_test.c $(SIM_WALK_SRCS)
sim_getup_test_LIBS := nbmotion nbdcodec
sim_getup_test_LDLIBS := -lm $(NAOBODYD_DL_LDLIBS)
sim_getup_test_UNIT_TIMEOUT := 1800
# make bench: walking speeds, the turning rate, WalkTo at Fast and the
# get-ups' rates, with RoboCup anchors (selftests/sim/walk_bench.c).
PROGRAMS += nb-walk-bench
nb-walk-bench_SRCS := $(srctree)/selftests/sim/walk_bench.c $(SIM_WALK_SRCS)
nb-walk-bench_LIBS := nbmotion nbdcodec
nb-walk-bench_LDLIBS := -lm $(NAOBODYD_DL_LDLIBS)
BENCHES += $(O)/bin/nb-walk-bench
else
naobodyd_SRCS += $(srctree)/userspace/naobodyd/sim_physics_none.c
endif
