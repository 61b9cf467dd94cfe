# SPDX-License-Identifier: GPL-2.0-only
PROGRAMS += cm5ctl
cm5ctl_SRCS := $(srctree)/userspace/tools/cm5ctl/cm5ctl.c \
	$(srctree)/userspace/tools/cm5ctl/everyday.c
cm5ctl_LIBS := cm5 nbtool nrlink nrframer
cm5ctl_LDLIBS := -lm
MAN_PAGES += $(srctree)/userspace/tools/cm5ctl/cm5ctl.1
