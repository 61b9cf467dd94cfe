# SPDX-License-Identifier: GPL-2.0-only
# naobodyd: the robot API (TCP 7700), the watchdog, the LoLA-compatible
# socket and the simulated body.
PROGRAMS += naobodyd
MAN_PAGES += $(srctree)/userspace/naobodyd/naobodyd.8
naobodyd_SRCS := $(addprefix $(srctree)/userspace/naobodyd/, \
	main.c core.c loop.c log.c outq.c mpcheck.c codec.c api.c lola.c \
	watchdog.c motion.c fall.c leds.c joints.c body_sim.c sim_control.c)
naobodyd_LDLIBS := $(shell $(PKG_CONFIG) --libs msgpack) -lm
