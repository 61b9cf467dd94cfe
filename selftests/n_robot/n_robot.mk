# SPDX-License-Identifier: GPL-2.0-only
# n_robot: the line discipline's framers in userspace, their tests, fuzzers,
# VM suite and benchmark.

# The kernel's framers, built unchanged for userspace.
LIBRARIES += nrframer
nrframer_SRCS := $(srctree)/kernel/n_robot/framer.c \
	$(srctree)/kernel/n_robot/cm5.c $(srctree)/kernel/n_robot/parol6.c

# Noise streams and their judge, shared by the host and VM tests.
LIBRARIES += nrstream
nrstream_SRCS := $(srctree)/selftests/n_robot/stream.c

UNIT_TESTS += n_robot_framer_test
n_robot_framer_test_SRCS := $(srctree)/selftests/n_robot/framer_test.c
n_robot_framer_test_LIBS := nrframer nrstream

FUZZERS += n_robot_fuzz_cm5 n_robot_fuzz_parol6
n_robot_fuzz_cm5_SRCS := $(srctree)/selftests/n_robot/fuzz_cm5.c
n_robot_fuzz_cm5_LIBS := nrframer
n_robot_fuzz_cm5_CORPUS := $(srctree)/selftests/n_robot/corpus/cm5
n_robot_fuzz_parol6_SRCS := $(srctree)/selftests/n_robot/fuzz_parol6.c
n_robot_fuzz_parol6_LIBS := nrframer
n_robot_fuzz_parol6_CORPUS := $(srctree)/selftests/n_robot/corpus/parol6

# The VM suite: the real module on pty pairs.
VM_SUITES += n_robot
n_robot_VM_PROGS := n_robot_ldisc_test
n_robot_VM_TIMEOUT := 900
n_robot_ldisc_test_SRCS := $(srctree)/selftests/n_robot/ldisc_test.c
n_robot_ldisc_test_LIBS := nrstream
n_robot_ldisc_test_LDLIBS := -lpthread

# The tools end to end against the emulators: on the host through the
# userspace framers, in the VM through the line discipline.
HOST_TESTS += $(srctree)/selftests/n_robot/e2e.sh
n_robot_VM_PROGS += n_robot_e2e
n_robot_VM_FILES := selftests/n_robot/e2e.sh selftests/n_robot/speed_dps.awk
n_robot_e2e_SRCS := $(srctree)/selftests/n_robot/e2e_vm.c

# make bench: selftests/n_robot/bench.sh, also runnable on its own.
PROGRAMS += n_robot_bench
n_robot_bench_SRCS := $(srctree)/selftests/n_robot/bench.c
n_robot_bench_LIBS := nrframer
BENCHES += $(srctree)/selftests/n_robot/bench.sh

UNIT_TESTS += n_robot_lib_test
n_robot_lib_test_SRCS := $(srctree)/selftests/n_robot/lib_test.c
n_robot_lib_test_LIBS := cm5 parol6 nrlink nrframer
n_robot_lib_test_LDLIBS := -lm -lpthread -lutil

# libcm5's error paths against a scripted CM-5 on a socketpair.
UNIT_TESTS += n_robot_cm5_errors_test
n_robot_cm5_errors_test_SRCS := $(srctree)/selftests/n_robot/cm5_errors_test.c
n_robot_cm5_errors_test_LIBS := cm5 nrlink nrframer
n_robot_cm5_errors_test_LDLIBS := -lm -lpthread

# parol6-emu against the firmware's rules, in frames the test packs itself.
HOST_TESTS += $(srctree)/selftests/n_robot/parol6_emu_test.py

# The Python bindings' examples against the emulators (host, make unit).
HOST_TESTS += $(srctree)/selftests/n_robot/python_test.sh

# make bench: the links end to end (link_bench.sh): the CM-5 loop rate for
# 18 servos at 115.2 kbaud and the PAROL6 round trip; on the host through
# the userspace framers, in a VM boot of its own through the module.
PROGRAMS += n_robot_rtt_bench
n_robot_rtt_bench_SRCS := $(srctree)/selftests/n_robot/rtt_bench.c
n_robot_rtt_bench_LIBS := parol6 nrlink nrframer
n_robot_rtt_bench_LDLIBS := -lm
BENCHES += $(srctree)/selftests/n_robot/link_bench.sh
VM_BENCH_SUITES += n_robot_bench
n_robot_bench_VM_PROGS := n_robot_rtt_bench n_robot_link_bench
n_robot_bench_VM_FILES := selftests/n_robot/link_bench.sh selftests/n_robot/speed_dps.awk
n_robot_link_bench_SRCS := $(srctree)/selftests/n_robot/link_bench_vm.c
