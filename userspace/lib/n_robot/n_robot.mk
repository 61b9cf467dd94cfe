# SPDX-License-Identifier: GPL-2.0-only
# libnrlink: a framed link to a robot, through the n_robot discipline or the
# same framers in userspace (libnrframer, selftests/n_robot/n_robot.mk).
# Link with: nrlink nrframer
LIBRARIES += nrlink
nrlink_SRCS := $(srctree)/userspace/lib/n_robot/link.c
