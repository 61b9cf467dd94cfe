#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench: the body loop's worst write gap, idle and with both cameras,
# the microphone and the speaker working (head_load_bench.py). vivid as
# head_camera_vm.sh loads it, then head_audio_vm.sh's snd-aloop set-up
# running this bench instead of head_audio's tests.
cd "$(dirname "$0")" || exit 1
if ! modprobe vivid n_devs=2 node_types=0x1,0x1 num_inputs=1,1 input_types=0,0; then
	echo "# head_load_bench: modprobe vivid failed"
	exit 1
fi
HEAD_AUDIO_PROGRAM=head_load_bench.py ./head_audio_vm.sh
rc=$?
rmmod vivid 2>/dev/null
exit $rc
