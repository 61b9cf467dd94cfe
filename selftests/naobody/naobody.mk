# SPDX-License-Identifier: GPL-2.0-only
# naobody.ko in the VM: its parameters, and end to end against the chest
# board emulator through dummy_hcd.
VM_SUITES += naobody
naobody_VM_PROGS := params_test
naobody_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
naobody_VM_TIMEOUT := 300

params_test_SRCS := $(srctree)/selftests/naobody/params_test.c
