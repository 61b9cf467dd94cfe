# SPDX-License-Identifier: GPL-2.0-only
LIBRARIES += nbgadget
nbgadget_SRCS := $(srctree)/userspace/lib/gadget/gadget.c
