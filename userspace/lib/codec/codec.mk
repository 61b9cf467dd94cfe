# SPDX-License-Identifier: GPL-2.0-only
#
# libnbcodec: the kernel's chest board codec (kernel/naobody/codec), built
# unchanged for userspace. Its nb_env.h maps the kernel's types, byte order
# and crc32 onto libc and zlib, so whatever links nbcodec adds
# <name>_LDLIBS += -lz. Users include "nb_codec.h": the codec's folder is on
# the include path of every userspace object.
LIBRARIES += nbcodec
nbcodec_SRCS := $(sort $(wildcard $(srctree)/kernel/naobody/codec/*.c))

NB_CODEC_INC := -I$(srctree)/kernel/naobody/codec
$(O)/obj/%.o $(O)/san/%.o: USER_CFLAGS += $(NB_CODEC_INC)
$(O)/fuzz/%.o: BASE_CFLAGS += $(NB_CODEC_INC)
