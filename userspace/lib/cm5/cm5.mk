# SPDX-License-Identifier: GPL-2.0-only
# libcm5: BRBrain's host library in C (userspace/include/cm5/cm5.h).
# Link with: cm5 nrlink nrframer, and -lm.
LIBRARIES += cm5
cm5_SRCS := $(srctree)/userspace/lib/cm5/cm5.c \
	$(srctree)/userspace/lib/cm5/regs.c $(srctree)/userspace/lib/cm5/flash.c
