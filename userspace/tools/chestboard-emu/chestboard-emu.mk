# SPDX-License-Identifier: GPL-2.0-only
#
# chestboard-emu: the NAO6 chest board through FunctionFS and dummy_hcd.
PROGRAMS += chestboard-emu
chestboard-emu_SRCS := $(addprefix $(srctree)/userspace/tools/chestboard-emu/, \
	main.c usb.c ep0.c exchange.c body.c boards.c misbehave.c record.c \
	control.c)
chestboard-emu_LIBS := nbemuctl nbgadget nbcodec naobody nbsimctl
chestboard-emu_LDLIBS := -lz -lm
MAN_PAGES += $(srctree)/userspace/tools/chestboard-emu/chestboard-emu.8

PROGRAMS += chestboard-emu-ctl
MAN_PAGES += $(srctree)/userspace/tools/chestboard-emu/chestboard-emu-ctl.1
chestboard-emu-ctl_SRCS := $(srctree)/userspace/tools/chestboard-emu/ctl.c
chestboard-emu-ctl_LIBS := nbemuctl nbgadget

# The physical body (--physics MODEL, physics.c): libnbphysics
# (userspace/lib/physics), MuJoCo loaded at run time by its SONAME, where
# physics.mk found it (nbmotion after it, for the joints' names and
# ranges). Without libmujoco-dev, physics.c alone, and --physics says the
# build has no MuJoCo.
chestboard-emu_SRCS += $(addprefix $(srctree)/userspace/tools/chestboard-emu/, physics.c \
	physics_remote.c physics_wire.c)
ifneq ($(PHYSICS_MUJOCO_SONAME),)
chestboard-emu_LIBS += nbphysics nbmotion
chestboard-emu_LDLIBS += -lpthread $(PHYSICS_LDLIBS)
$(O)/obj/userspace/tools/chestboard-emu/physics.o $(O)/san/userspace/tools/chestboard-emu/physics.o: \
	USER_CFLAGS += -DEMU_MUJOCO=1
# The same model on the host, for an emulator in a VM too slow for it
# (chestboard-emu --physics-host; physics_server.c).
PROGRAMS += nb-physics-server
MAN_PAGES += $(srctree)/userspace/tools/chestboard-emu/nb-physics-server.1
nb-physics-server_SRCS := $(addprefix $(srctree)/userspace/tools/chestboard-emu/, \
	physics_server.c physics_wire.c)
nb-physics-server_LIBS := nbphysics nbmotion
nb-physics-server_LDLIBS := -lm $(PHYSICS_LDLIBS)
endif
