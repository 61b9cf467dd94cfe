# SPDX-License-Identifier: GPL-2.0-only
# libparol6: the PAROL6 control board (userspace/include/parol6/parol6.h).
# Link with: parol6 nrlink nrframer, and -lm.
LIBRARIES += parol6
parol6_SRCS := $(srctree)/userspace/lib/parol6/parol6.c \
	$(srctree)/userspace/lib/parol6/profile.c \
	$(srctree)/userspace/lib/parol6/rules.c
