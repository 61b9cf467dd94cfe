# SPDX-License-Identifier: GPL-2.0-only
# naoguard: the UDP stop, a small real-time process apart from naobodyd.
PROGRAMS += naoguard
MAN_PAGES += $(srctree)/userspace/naoguard/naoguard.8
naoguard_SRCS := $(srctree)/userspace/naoguard/naoguard.c
naoguard_LDLIBS := $(shell $(PKG_CONFIG) --libs libsystemd)
