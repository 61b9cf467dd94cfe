# SPDX-License-Identifier: GPL-2.0-only
#
# libnbtool: what the tools share (userspace/include/nbtool/): the serial
# robots' tools' main (serial.c; they link nbtool nrlink) and the signals
# that end their work (signals.c). Not installed.
LIBRARIES += nbtool
nbtool_SRCS := $(addprefix $(srctree)/userspace/lib/nbtool/, serial.c signals.c)
