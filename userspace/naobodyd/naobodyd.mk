# SPDX-License-Identifier: GPL-2.0-only
# naobodyd: the robot API (TCP 7700), the watchdog, the LoLA-compatible
# socket and the simulated body.

# The parts that parse what peers send, alone, for the fuzzer too.
LIBRARIES += nbdcodec
nbdcodec_SRCS := $(addprefix $(srctree)/userspace/naobodyd/, \
	mpcheck.c codec.c lola_codec.c outq.c log.c joints.c)

PROGRAMS += naobodyd
MAN_PAGES += $(srctree)/userspace/naobodyd/naobodyd.8
naobodyd_SRCS := $(addprefix $(srctree)/userspace/naobodyd/, \
	main.c core.c loop.c api.c lola.c watchdog.c motion.c fall.c leds.c \
	body_sim.c body_real.c sim_control.c)
naobodyd_LIBS := nbdcodec naobody
naobodyd_LDLIBS := $(shell $(PKG_CONFIG) --libs msgpack) -lz -lm
