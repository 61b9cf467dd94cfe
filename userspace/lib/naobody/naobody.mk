# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libnaobody: the body library (LGPL-2.1-or-later). It must not link the
# GPL codec. Programs that link it add <name>_LDLIBS += -lz (the
# preference block's CRC). The device and ring parts append their sources:
#   naobody_SRCS += $(srctree)/userspace/lib/naobody/device.c ...
LIBRARIES += naobody
naobody_SRCS += $(srctree)/userspace/lib/naobody/units.c \
	$(srctree)/userspace/lib/naobody/prefs.c
