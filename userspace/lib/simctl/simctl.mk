# SPDX-License-Identifier: GPL-2.0-only
#
# libnbsimctl: the simulators' control languages' command tables, words and
# numbers (userspace/include/simctl/simctl.h), shared by naobodyd's
# simulated body (body_sim.c) and chestboard-emu (control.c).
LIBRARIES += nbsimctl
nbsimctl_SRCS := $(srctree)/userspace/lib/simctl/simctl.c
