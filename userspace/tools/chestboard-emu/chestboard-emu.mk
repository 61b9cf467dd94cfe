# SPDX-License-Identifier: GPL-2.0-only
#
# chestboard-emu: the NAO6 chest board through FunctionFS and dummy_hcd.
PROGRAMS += chestboard-emu
chestboard-emu_SRCS := $(addprefix $(srctree)/userspace/tools/chestboard-emu/, \
	main.c usb.c ep0.c exchange.c body.c boards.c misbehave.c record.c \
	control.c)
chestboard-emu_LIBS := nbemuctl nbgadget nbcodec naobody
chestboard-emu_LDLIBS := -lz -lm
MAN_PAGES += $(srctree)/userspace/tools/chestboard-emu/chestboard-emu.8

PROGRAMS += chestboard-emu-ctl
MAN_PAGES += $(srctree)/userspace/tools/chestboard-emu/chestboard-emu-ctl.1
chestboard-emu-ctl_SRCS := $(srctree)/userspace/tools/chestboard-emu/ctl.c
chestboard-emu-ctl_LIBS := nbemuctl nbgadget
