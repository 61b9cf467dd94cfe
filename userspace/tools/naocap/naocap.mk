# SPDX-License-Identifier: GPL-2.0-only
#
# naocap: record a real chest board (usbmon) and LoLA for naoctl verify.
PROGRAMS += naocap
naocap_SRCS := $(addprefix $(srctree)/userspace/tools/naocap/, main.c device.c usbmon.c lola.c)
naocap_LIBS := nbcapture mpread
naocap_LDLIBS := -lpcap $(shell $(PKG_CONFIG) --libs msgpack) -lz -lpthread
MAN_PAGES += $(srctree)/userspace/tools/naocap/naocap.8
