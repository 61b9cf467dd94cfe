# SPDX-License-Identifier: GPL-2.0-only
# naobodyd: the robot API (TCP 7700), the watchdog, the LoLA-compatible
# socket and the simulated body.

# The parts that parse what peers send, alone, for the fuzzer too.
LIBRARIES += nbdcodec
nbdcodec_SRCS := $(addprefix $(srctree)/userspace/naobodyd/, \
	mpcheck.c codec.c lola_codec.c outq.c log.c joints.c head_bus_table.c)

PROGRAMS += naobodyd
MAN_PAGES += $(srctree)/userspace/naobodyd/naobodyd.8
naobodyd_SRCS := $(addprefix $(srctree)/userspace/naobodyd/, \
	main.c core.c loop.c api.c lola.c watchdog.c motion.c fall.c leds.c head_bus.c \
	body_sim.c sim_physics.c body_real.c sim_control.c handoff.c rest.c rest_net.c rest_token.c \
	rest_static.c rest_cmd.c rest_leds.c rest_boards.c head_audio.c rest_serial.c rest_serial_parse.c \
	head_camera.c camera_jpeg.c)
naobodyd_LIBS := nbdcodec naobody cm5 parol6 nrlink nrframer
naobodyd_LDLIBS := $(shell $(PKG_CONFIG) --libs msgpack libmicrohttpd jansson libmnl libsystemd libturbojpeg alsa samplerate) \
	-lz -lm -lpthread -lmujoco

# The status page (rest_static.h): plain files, no build step. make install
# (the top Makefile) puts them in NAOBODYD_WWW_DIR, the daemon's --www
# default; the tests serve the source tree's copy (--www). Recursive, so the
# PREFIX set after the fragments (or on the command line) is the one used.
NAOBODYD_WWW_FILES := $(wildcard $(srctree)/userspace/naobodyd/www/*)
NAOBODYD_WWW_DIR ?= $(PREFIX)/share/naobodyd/www
$(O)/obj/userspace/naobodyd/main.o $(O)/san/userspace/naobodyd/main.o: \
	USER_CFLAGS += -DNAOBODYD_WWW_DIR='"$(NAOBODYD_WWW_DIR)"'
# main.o again when that changes (make install PREFIX=/usr after a make):
# the stamp is rewritten, and so newer, only when its text differs.
NAOBODYD_WWW_STAMP := $(O)/obj/userspace/naobodyd/www-dir.stamp
$(O)/obj/userspace/naobodyd/main.o $(O)/san/userspace/naobodyd/main.o: $(NAOBODYD_WWW_STAMP)
$(NAOBODYD_WWW_STAMP): naobodyd-www-dir-check
	@mkdir -p $(@D) && echo '$(NAOBODYD_WWW_DIR) $(NAOBODYD_SIM_DIR)' | cmp -s - $@ || \
		echo '$(NAOBODYD_WWW_DIR) $(NAOBODYD_SIM_DIR)' > $@
.PHONY: naobodyd-www-dir-check

# The physical simulated body's model (--sim-physics): make install puts
# userspace/sim/nao6/nao6.xml in NAOBODYD_SIM_DIR, the --sim-model default;
# the tests give the source tree's copy (--sim-model). Like the www
# directory's, the stamp above rebuilds main.o when the path changes.
NAOBODYD_SIM_DIR ?= $(PREFIX)/share/naobodyd/sim
$(O)/obj/userspace/naobodyd/main.o $(O)/san/userspace/naobodyd/main.o: \
	USER_CFLAGS += -DNAOBODYD_SIM_MODEL='"$(NAOBODYD_SIM_DIR)/nao6.xml"'
