# SPDX-License-Identifier: GPL-2.0-only
#
# naoctl replay and verify: captures of a real chest board through the
# codec (kernel/naobody/codec, GPL like naoctl) and libnbcapture.
naoctl_SRCS += $(addprefix $(srctree)/userspace/tools/naoctl/, \
	replay.c verify.c verify_frames.c verify_fields.c)
naoctl_LIBS += nbcapture mpread nbcodec
naoctl_LDLIBS += -lpcap $(shell $(PKG_CONFIG) --libs msgpack)
