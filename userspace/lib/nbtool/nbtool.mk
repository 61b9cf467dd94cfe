# SPDX-License-Identifier: GPL-2.0-only
#
# libnbtool: what the tools share (userspace/include/nbtool/): the serial
# robots' tools' main (serial.c; they link nbtool nrlink), the serial
# emulators' pseudo-terminal (pty.c) and the signals both end on
# (signals.c). Not installed.
LIBRARIES += nbtool
nbtool_SRCS := $(addprefix $(srctree)/userspace/lib/nbtool/, serial.c pty.c signals.c)
