# SPDX-License-Identifier: GPL-2.0-only
# libnaobody (LGPL-2.1-or-later): the device and its ring, names, and (from
# the codec work) units and the preference parser. Link with -lz.
LIBRARIES += naobody
naobody_SRCS += $(srctree)/userspace/lib/naobody/device.c \
	$(srctree)/userspace/lib/naobody/names.c
SHARED_LIBRARIES += naobody
naobody_SOVERSION := 1
naobody_LDLIBS := -lz -lm
