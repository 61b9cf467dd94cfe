# SPDX-License-Identifier: GPL-2.0-only
# make bench: the body loop with the head working (issue 14). In the VM, a
# boot of its own: the simulated body's worst gap between writes, idle and
# with both cameras (vivid) at 30 fps, the microphone and the speaker
# (snd-aloop) streaming to and from one client. On the stock kernel and
# again on Debian's PREEMPT_RT one (scripts/bench.sh), which have both
# drivers; not on the debug kernel, which has neither.
VM_BENCH_SUITES += head_load_bench
head_load_bench_VM_TIER := stock
head_load_bench_VM_PROGS := head_load_bench.sh
head_load_bench_VM_KMODS := $(sort $(head_camera_VM_KMODS) $(head_audio_VM_KMODS))
head_load_bench_VM_TIMEOUT := 180
head_load_bench_VM_FILES := $(addprefix selftests/head_load/, head_load_bench.sh \
	head_load_bench.py) $(addprefix selftests/head_audio/, head_audio_vm.sh \
	head_audio_test.py asoundrc) selftests/head_camera/camera_test.py \
	$(addprefix selftests/naobodyd/, vm_env.sh nbtest.py resttest.py api_test.py \
	isolation_test.py naobodyd_bench.py) Documentation/rest-api.yaml
