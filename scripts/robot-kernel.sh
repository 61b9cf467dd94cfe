#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the kernel configured like the robots' once, and cache it outside
# the clone: x86_64_defconfig + kvm_guest.config + scripts/vm/robot.config
# (PREEMPT_RT, HZ=1000, MODVERSIONS, no line discipline autoload, cdc-acm
# and ftdi_sio as modules) from Debian's linux-source-6.12. make
# check-robot-kernel boots it with our modules built against it.
#
#   robot-kernel.sh          build it unless the cache already has it
#                            (90 min measured on 2 cores shared with
#                            three VMs and builds; less on idle ones)
#   robot-kernel.sh --dir    print its cache directory (built or not)
#
# The cache and what a build leaves: scripts/lib/kernel-build.sh, in
# $NAOBODY_CACHE/robot-kernel.
set -euo pipefail

# Bump when the steps in kernel-build.sh change what a build produces.
RECIPE=1

here=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in
"" | --dir) ;;
*) echo "usage: robot-kernel.sh [--dir]" >&2; exit 2 ;;
esac
exec "$here/lib/kernel-build.sh" --name robot-kernel --source 6.12 \
	--fragment "$here/vm/robot.config" --recipe "$RECIPE" ${1:+"$1"}
