# SPDX-License-Identifier: GPL-2.0-only
#
# libnbemuctl: start and drive the chest board emulator from tests and the
# demo. Whatever links it also links nbgadget (it waits for the host side
# to enumerate the emulator).
LIBRARIES += nbemuctl
nbemuctl_SRCS := $(srctree)/userspace/lib/emuctl/emuctl.c
