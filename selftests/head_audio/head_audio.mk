# SPDX-License-Identifier: GPL-2.0-only
# naobodyd's speaker, microphones and mixer (userspace/naobodyd/head/head_audio.c)
# against Debian's snd-aloop in the VM: tones measured on the loopback's far
# side with alsa-utils' aplay and arecord, the mixer read back with amixer.
# Stock tier only: the debug kernel has no sound (scripts/vm/debug.config).
VM_SUITES += head_audio
head_audio_VM_TIER := stock
head_audio_VM_PROGS := head_audio_vm.sh
head_audio_VM_KMODS := snd-aloop
head_audio_VM_TIMEOUT := 180
head_audio_VM_FILES := $(addprefix selftests/head_audio/, head_audio_vm.sh head_audio_test.py \
	asoundrc) $(addprefix selftests/naobodyd/, vm_env.sh nbtest.py resttest.py) \
	Documentation/rest-api.yaml

# make bench: Speaker to the loopback's capture, 20 bursts, and SpeakerClear to silence,
# 10 tones (a VM boot of its own).
VM_BENCH_SUITES += head_audio_bench
head_audio_bench_VM_TIER := stock
head_audio_bench_VM_PROGS := head_audio_bench.sh
head_audio_bench_VM_KMODS := $(head_audio_VM_KMODS)
head_audio_bench_VM_TIMEOUT := 180
head_audio_bench_VM_FILES := selftests/head_audio/head_audio_bench.sh $(head_audio_VM_FILES)
