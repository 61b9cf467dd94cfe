# SPDX-License-Identifier: GPL-2.0-only
# naobodyd and naoguard on the host, against the simulated body, with a
# client on Debian's python3-msgpack (nbtest.py). Each prints TAP.
HOST_TESTS += $(addprefix $(srctree)/selftests/naobodyd/, \
	api_test.py watchdog_test.py lola_test.py naoguard_test.py leak_test.py)
# The benchmark: latency, CPU, RSS and churn against the simulated body.
BENCHES += $(srctree)/selftests/naobodyd/naobodyd_bench.py

# libFuzzer: the structural check, the robot API decoder and the LoLA
# actuator parser; seeds written by make_corpus.py.
FUZZERS += fuzz_naobodyd_msgpack
fuzz_naobodyd_msgpack_SRCS := $(srctree)/selftests/naobodyd/fuzz_msgpack.c
fuzz_naobodyd_msgpack_LIBS := nbdcodec
fuzz_naobodyd_msgpack_LDLIBS := $(shell $(PKG_CONFIG) --libs msgpack) -lm
fuzz_naobodyd_msgpack_CORPUS := $(srctree)/selftests/naobodyd/corpus

# In the VM: naobodyd against naobody.ko and the chest board emulator.
VM_SUITES += naobodyd_vm
naobodyd_vm_VM_PROGS := naobodyd_vm.sh
naobodyd_vm_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
naobodyd_vm_VM_TIMEOUT := 400
naobodyd_vm_VM_FILES := $(addprefix selftests/naobodyd/, naobodyd_vm.sh vm_env.sh nbtest.py \
	api_test.py watchdog_test.py lola_test.py naoguard_test.py vm_tests.py)

# make bench: the same benchmark in the VM, against naobody.ko and the
# emulator; it adds naoguard's UDP stop to stiffness 0 at the board.
VM_BENCH_SUITES += naobodyd_vm_bench
naobodyd_vm_bench_VM_PROGS := naobodyd_vm_bench.sh
naobodyd_vm_bench_VM_KMODS := $(naobodyd_vm_VM_KMODS)
naobodyd_vm_bench_VM_TIMEOUT := 600
naobodyd_vm_bench_VM_FILES := $(addprefix selftests/naobodyd/, naobodyd_vm_bench.sh vm_env.sh \
	nbtest.py api_test.py naoguard_test.py naobodyd_bench.py)
