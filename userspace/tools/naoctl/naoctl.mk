# SPDX-License-Identifier: GPL-2.0-only
PROGRAMS += naoctl
naoctl_SRCS := $(addprefix $(srctree)/userspace/tools/naoctl/, \
	naoctl.c status.c watch.c dump.c stop.c boards.c prefs.c chest.c token.c)
naoctl_LIBS := naobody
naoctl_LDLIBS := -lz -lm
MAN_PAGES += $(srctree)/userspace/tools/naoctl/naoctl.8
# Aldebaran's chest board tools, by name.
PROGRAM_LINKS += chest-version=naoctl chest-mode=naoctl chest-harakiri=naoctl
