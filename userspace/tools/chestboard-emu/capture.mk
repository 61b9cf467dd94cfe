# SPDX-License-Identifier: GPL-2.0-only
#
# chestboard-emu-capture: the chest board playing a layout from a file,
# recorded as naocap would record it (pcap, LoLA log, marks, versions).
# It shares nothing with the codec: see capture_gen.c.
PROGRAMS += chestboard-emu-capture
chestboard-emu-capture_SRCS := $(srctree)/userspace/tools/chestboard-emu/capture_gen.c
chestboard-emu-capture_LIBS := nbcapture mpread
chestboard-emu-capture_LDLIBS := -lpcap $(shell $(PKG_CONFIG) --libs msgpack) -lz -lm
MAN_PAGES += $(srctree)/userspace/tools/chestboard-emu/chestboard-emu-capture.1
