# SPDX-License-Identifier: GPL-2.0-only
# naobody.ko in the VM: its parameters, and end to end against the chest
# board emulator through dummy_hcd.
VM_SUITES += naobody
naobody_VM_PROGS := params_test e2e_test control_test uapi_test faults_test lifetime_test events_test boards_test two_boards_test stop_test
naobody_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
naobody_VM_TIMEOUT := 900
# The shutdown hook, run by boards_test against a driver that refuses it.
naobody_VM_FILES := packaging/systemd/naobody-harakiri

# System suspend runs last in its boot: virtio-9p has no freeze and restore,
# so the host's root (/host) is gone after a suspend, and other suites use it.
VM_SUITES += naobody_suspend
naobody_suspend_VM_PROGS := suspend_test
naobody_suspend_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
naobody_suspend_VM_LAST := 1

NBT_SRCS := $(srctree)/selftests/naobody/nbtest.c
NBT_LIBS := naobody nbemuctl nbgadget
NBT_LDLIBS := -lz -lm

params_test_SRCS := $(srctree)/selftests/naobody/params_test.c
e2e_test_SRCS := $(srctree)/selftests/naobody/e2e_test.c $(NBT_SRCS)
e2e_test_LIBS := $(NBT_LIBS)
e2e_test_LDLIBS := $(NBT_LDLIBS) -lpthread
control_test_SRCS := $(srctree)/selftests/naobody/control_test.c $(NBT_SRCS)
control_test_LIBS := $(NBT_LIBS)
control_test_LDLIBS := $(NBT_LDLIBS)
uapi_test_SRCS := $(srctree)/selftests/naobody/uapi_test.c $(NBT_SRCS)
uapi_test_LIBS := $(NBT_LIBS)
uapi_test_LDLIBS := $(NBT_LDLIBS)
faults_test_SRCS := $(srctree)/selftests/naobody/faults_test.c $(NBT_SRCS)
faults_test_LIBS := $(NBT_LIBS)
faults_test_LDLIBS := $(NBT_LDLIBS) -lpthread
stop_test_SRCS := $(srctree)/selftests/naobody/stop_test.c $(NBT_SRCS)
stop_test_LIBS := $(NBT_LIBS) nbcodec
stop_test_LDLIBS := $(NBT_LDLIBS)
lifetime_test_SRCS := $(srctree)/selftests/naobody/lifetime_test.c $(NBT_SRCS)
lifetime_test_LIBS := $(NBT_LIBS)
lifetime_test_LDLIBS := $(NBT_LDLIBS) -lpthread

# make bench: the cycle's figures, in a VM boot of their own.
VM_BENCH_SUITES += naobody_bench
naobody_bench_VM_PROGS := cycle_bench stop_bench
naobody_bench_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
naobody_bench_VM_TIMEOUT := 600
stop_bench_SRCS := $(srctree)/selftests/naobody/stop_bench.c $(NBT_SRCS)
stop_bench_LIBS := $(NBT_LIBS)
stop_bench_LDLIBS := $(NBT_LDLIBS)
cycle_bench_SRCS := $(srctree)/selftests/naobody/cycle_bench.c $(NBT_SRCS)
cycle_bench_LIBS := $(NBT_LIBS)
cycle_bench_LDLIBS := $(NBT_LDLIBS) -lpthread
events_test_SRCS := $(srctree)/selftests/naobody/events_test.c $(NBT_SRCS)
events_test_LIBS := $(NBT_LIBS)
events_test_LDLIBS := $(NBT_LDLIBS) $(shell $(PKG_CONFIG) --libs libmnl)
boards_test_SRCS := $(srctree)/selftests/naobody/boards_test.c $(NBT_SRCS)
boards_test_LIBS := $(NBT_LIBS)
boards_test_LDLIBS := $(NBT_LDLIBS) -lpthread
two_boards_test_SRCS := $(srctree)/selftests/naobody/two_boards_test.c $(NBT_SRCS)
two_boards_test_LIBS := $(NBT_LIBS)
two_boards_test_LDLIBS := $(NBT_LDLIBS) -lpthread
suspend_test_SRCS := $(srctree)/selftests/naobody/suspend_test.c $(NBT_SRCS)
suspend_test_LIBS := $(NBT_LIBS)
suspend_test_LDLIBS := $(NBT_LDLIBS)
