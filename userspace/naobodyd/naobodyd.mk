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
	@mkdir -p $(@D) && echo '$(NAOBODYD_WWW_DIR) $(NAOBODYD_SIM_DIR) $(abspath $(O)) $(srctree)' | \
		cmp -s - $@ || \
		echo '$(NAOBODYD_WWW_DIR) $(NAOBODYD_SIM_DIR) $(abspath $(O)) $(srctree)' > $@
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

# The simulated body's control language (body_sim.c): libnbsimctl's table
# and words, which chestboard-emu's shares.
naobodyd_LIBS += nbsimctl
# The physical simulated body (--sim-physics): libnbphysics
# (userspace/lib/physics), MuJoCo loaded at run time, or without
# libmujoco-dev a library whose --sim-physics says so; nbmotion again after
# it, for the joints' names and ranges.
naobodyd_LIBS += nbphysics nbmotion
naobodyd_LDLIBS += $(PHYSICS_LDLIBS)
# What needs the real model, where physics.mk found MuJoCo.
ifneq ($(PHYSICS_MUJOCO_SONAME),)
# make bench: the physics' CPU per body cycle, as a ratio to real time,
# through the daemon's own calls (selftests/sim/physics_bench.c). Here, not
# in selftests/sim/sim.mk: the fragments are read in their paths' order, and
# selftests/ comes before userspace/lib/physics/physics.mk, which finds MuJoCo.
PROGRAMS += nb-physics-bench
nb-physics-bench_SRCS := $(srctree)/selftests/sim/physics_bench.c
nb-physics-bench_LIBS := nbphysics nbmotion
nb-physics-bench_LDLIBS := -lm $(PHYSICS_LDLIBS)
BENCHES += $(O)/bin/nb-physics-bench
# The walking engine on the physics, through the motion layer, faster than
# real time (selftests/sim/walk_test.c).
SIM_WALK_SRCS := $(srctree)/selftests/sim/walk_harness.c
UNIT_TESTS += sim_walk_test
sim_walk_test_SRCS := $(srctree)/selftests/sim/walk_test.c $(SIM_WALK_SRCS)
# The watchdog's times (naobodyd's watchdog.h), by the daemon's include path.
$(O)/obj/selftests/sim/walk_test.o $(O)/san/selftests/sim/walk_test.o: USER_CFLAGS += $(NAOBODYD_INC)
sim_walk_test_LIBS := nbphysics nbmotion
sim_walk_test_LDLIBS := -lm $(PHYSICS_LDLIBS)
# The sim tests' limits are hang detectors: about 60 s of CPU here, but what
# a loaded machine gives them is its own (scripts/run-unit-tests.sh).
sim_walk_test_UNIT_TIMEOUT := 3600
# The protective fall on the physics: the head's impact with and without it
# (selftests/sim/fall_test.c).
UNIT_TESTS += sim_fall_test
sim_fall_test_SRCS := $(srctree)/selftests/sim/fall_test.c $(SIM_WALK_SRCS)
sim_fall_test_LIBS := nbphysics nbmotion
sim_fall_test_LDLIBS := -lm $(PHYSICS_LDLIBS)
sim_fall_test_UNIT_TIMEOUT := 1800
# The sonars, bumpers and hands' pads on the physics, against the model's
# obstacle (selftests/sim/sense_test.c).
UNIT_TESTS += sim_sense_test
sim_sense_test_SRCS := $(srctree)/selftests/sim/sense_test.c $(SIM_WALK_SRCS)
sim_sense_test_LIBS := nbphysics nbmotion
sim_sense_test_LDLIBS := -lm $(PHYSICS_LDLIBS)
sim_sense_test_UNIT_TIMEOUT := 1200
# The get-up motions on the physics: 20 falls each way, the robot awake,
# up again in Stand (selftests/sim/getup_test.c).
UNIT_TESTS += sim_getup_test
sim_getup_test_SRCS := $(srctree)/selftests/sim/getup_test.c $(SIM_WALK_SRCS)
sim_getup_test_LIBS := nbphysics nbmotion
sim_getup_test_LDLIBS := -lm $(PHYSICS_LDLIBS)
sim_getup_test_UNIT_TIMEOUT := 1800
# State's Stand tells the truth: a walk 0.2 s after the first Stand from a
# get-up, sitting and the squat does not fall (selftests/sim/stand_test.c).
UNIT_TESTS += sim_stand_test
sim_stand_test_SRCS := $(srctree)/selftests/sim/stand_test.c $(SIM_WALK_SRCS)
sim_stand_test_LIBS := nbphysics nbmotion
sim_stand_test_LDLIBS := -lm $(PHYSICS_LDLIBS)
sim_stand_test_UNIT_TIMEOUT := 1800
# make bench: walking speeds, the turning rate, WalkTo at Fast and the
# get-ups' rates, with RoboCup anchors (selftests/sim/walk_bench.c).
PROGRAMS += nb-walk-bench
nb-walk-bench_SRCS := $(srctree)/selftests/sim/walk_bench.c $(SIM_WALK_SRCS)
nb-walk-bench_LIBS := nbphysics nbmotion
nb-walk-bench_LDLIBS := -lm $(PHYSICS_LDLIBS)
BENCHES += $(O)/bin/nb-walk-bench
endif
