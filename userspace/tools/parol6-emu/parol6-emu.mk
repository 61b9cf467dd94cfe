# SPDX-License-Identifier: GPL-2.0-only
PROGRAMS += parol6-emu
parol6-emu_SRCS := $(srctree)/userspace/tools/parol6-emu/parol6-emu.c
parol6-emu_LIBS := nbtool
parol6-emu_LDLIBS := -lm
MAN_PAGES += $(srctree)/userspace/tools/parol6-emu/parol6-emu.1
