# SPDX-License-Identifier: GPL-2.0-only
#
# libmpread: MessagePack from a peer, checked before msgpack-c unpacks it
# (userspace/include/mpread/mpread.h). Whatever links it adds
# <name>_LDLIBS += $(pkg-config --libs msgpack).
LIBRARIES += mpread
mpread_SRCS := $(srctree)/userspace/lib/mpread/mpread.c
