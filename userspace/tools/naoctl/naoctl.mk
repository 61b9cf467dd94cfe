# SPDX-License-Identifier: GPL-2.0-only
PROGRAMS += naoctl
naoctl_SRCS := $(addprefix $(srctree)/userspace/tools/naoctl/, \
	naoctl.c status.c watch.c dump.c stop.c boards.c prefs.c chest.c token.c remote.c record.c)
naoctl_LIBS := naobody nbclient
# --host: naobodyd's REST API (libcurl, jansson).
naoctl_LDLIBS := -lz -lm $(shell $(PKG_CONFIG) --libs libcurl jansson msgpack)
MAN_PAGES += $(srctree)/userspace/tools/naoctl/naoctl.8
# Aldebaran's chest board tools, by name.
PROGRAM_LINKS += chest-version=naoctl chest-mode=naoctl chest-harakiri=naoctl
