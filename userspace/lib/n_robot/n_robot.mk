# SPDX-License-Identifier: GPL-2.0-only
# libnrlink: a framed link to a robot, through the n_robot discipline or the
# same framers in userspace (libnrframer, selftests/n_robot/n_robot.mk).
# Link with: nrlink nrframer
LIBRARIES += nrlink
nrlink_SRCS := $(srctree)/userspace/lib/n_robot/link.c

# libnrobot.so.1: libcm5, libparol6, libnrlink and the framers as one shared
# library, for other languages' FFIs (userspace/python). GPL, as its parts.
SHARED_LIBRARIES += nrobot
nrobot_SOVERSION := 1
nrobot_LDLIBS := -lm
nrobot_SRCS = $(cm5_SRCS) $(parol6_SRCS) $(nrlink_SRCS) $(nrframer_SRCS)
