# SPDX-License-Identifier: GPL-2.0-only
#
# libnbcapture: usbmon pcaps (libpcap), LoLA logs (msgpack-c, through
# libmpread), layout description files and capture archives, for naocap,
# naoctl replay and verify, and the planted-layout capture generator. It
# never uses the codec. Whatever links it also links mpread, and adds
# <name>_LDLIBS += -lpcap -lmsgpackc -lz.
LIBRARIES += nbcapture
nbcapture_SRCS := $(addprefix $(srctree)/userspace/lib/capture/, \
	usbmon.c lolalog.c layout.c archive.c)
