# SPDX-License-Identifier: GPL-2.0-only
PROGRAMS += cm5-emu
cm5-emu_SRCS := $(srctree)/userspace/tools/cm5-emu/cm5-emu.c
cm5-emu_LIBS := nbtool
MAN_PAGES += $(srctree)/userspace/tools/cm5-emu/cm5-emu.1
