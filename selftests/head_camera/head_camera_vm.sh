#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# naobodyd's cameras against Debian's vivid (the kernel's V4L2 test driver),
# in the VM: two vivid instances, each one webcam-type capture node, named
# /dev/video-top and /dev/video-bottom as udev names them on HULKs-OS. The
# body is the simulated one: the cameras do not need naobody.ko. The tests
# run in the host's root (vm_env.sh says why) with Debian's python3.
cd "$(dirname "$0")" || exit 1
. ./vm_env.sh
trap vm_down EXIT
vm_host_up || exit 1
# node_types 0x1: a video capture node only; input_types 0: one webcam input
# (discrete sizes and frame intervals, as a UVC camera has).
if ! modprobe vivid n_devs=2 node_types=0x1,0x1 num_inputs=1,1 input_types=0,0; then
	nbvm_say "modprobe vivid failed"
	exit 1
fi
chroot "$NBVM_HOST" /usr/bin/env -i PATH="$NBVM_WORK/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
	HOME=/tmp O="$NBVM_WORK" NBTEST_BODY=sim NBTEST_JOBS=1 \
	NBVM_TIME_SCALE="${NBVM_TIME_SCALE:-1}" ${NBTEST_ONLY:+NBTEST_ONLY="$NBTEST_ONLY"} \
	/usr/bin/python3 -B "$NBVM_WORK/camera_test.py"
rc=$?
rmmod vivid 2>/dev/null
exit $rc
