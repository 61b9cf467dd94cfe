#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# naobodyd's audio against snd-aloop, in the VM: head_audio_test.py, run by
# the host's python3 in "chroot /host" as the naobodyd VM tests are
# (vm_env.sh), with the host's alsa-utils. No body: naobodyd --sim with the
# audio devices named. HEAD_AUDIO_PROGRAM: another test file to run so, with
# the same set-up (head_load_bench.sh's).
cd "$(dirname "$0")" || exit 1
. ./vm_env.sh
trap vm_down EXIT
say() { echo "# head_audio VM: $*"; }
if [ ! -x "$NBVM_HOST/usr/bin/arecord" ] || [ ! -x "$NBVM_HOST/usr/bin/amixer" ]; then
	say "the host has no alsa-utils (aplay, arecord, amixer): apt-get install alsa-utils"
	exit 1
fi
modprobe snd-aloop pcm_substreams=2 || { say "modprobe snd-aloop failed"; exit 1; }
vm_host_up || exit 1
mkdir -p "$NBVM_WORK/home"
cp asoundrc "$NBVM_WORK/home/.asoundrc"
# The softvols' controls, made before naobodyd starts: alsa-lib makes them
# when the PCM is first opened and keeps them locked to that opener while it
# stays open, so naobodyd's own mixer could not write controls its speaker made.
# A real card's controls exist from the start, unlocked.
if ! chroot "$NBVM_HOST" /usr/bin/env -i HOME="$NBVM_WORK/home" \
	aplay -q -D nbspeaker -f S16_LE -r 48000 -c 2 -s 480 /dev/zero; then
	say "cannot open the test's speaker (nbspeaker in asoundrc)"
	exit 1
fi
chroot "$NBVM_HOST" /usr/bin/env -i PATH="$NBVM_WORK/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
	HOME="$NBVM_WORK/home" O="$NBVM_WORK" NBTEST_JOBS=1 \
	NBVM_TIME_SCALE="${NBVM_TIME_SCALE:-1}" ${NBTEST_ONLY:+NBTEST_ONLY="$NBTEST_ONLY"} \
	${HEAD_AUDIO_BENCH:+HEAD_AUDIO_BENCH=1} \
	/usr/bin/python3 -B "$NBVM_WORK/${HEAD_AUDIO_PROGRAM:-head_audio_test.py}"
