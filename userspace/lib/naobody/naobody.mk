# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libnaobody: the body library (LGPL-2.1-or-later): the device and its ring,
# counts to units, the preference parser, names. It must not link the GPL
# codec. Built static and shared (libnaobody.so.1, for other languages'
# FFIs); programs that link it add <name>_LDLIBS += -lz -lm.
LIBRARIES += naobody
SHARED_LIBRARIES += naobody
naobody_SOVERSION := 1
naobody_LDLIBS := -lz -lm
naobody_SRCS += $(addprefix $(srctree)/userspace/lib/naobody/, \
	device.c names.c units.c prefs.c)
