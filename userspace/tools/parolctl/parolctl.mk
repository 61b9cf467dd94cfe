# SPDX-License-Identifier: GPL-2.0-only
PROGRAMS += parolctl
parolctl_SRCS := $(srctree)/userspace/tools/parolctl/parolctl.c
parolctl_LIBS := parol6 nbtool nrlink nrframer
parolctl_LDLIBS := -lm
MAN_PAGES += $(srctree)/userspace/tools/parolctl/parolctl.1
