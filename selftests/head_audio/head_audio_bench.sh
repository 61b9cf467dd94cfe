#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench: the latency from Speaker to snd-aloop's capture side, in the
# VM (head_audio_test.py's bench); the figures are TAP diagnostics.
cd "$(dirname "$0")" || exit 1
HEAD_AUDIO_BENCH=1 exec ./head_audio_vm.sh
