# SPDX-License-Identifier: GPL-2.0-only
# The VM harness's own smoke test: a FunctionFS gadget enumerates through
# dummy_hcd, and our modules load and unload cleanly.
VM_SUITES += plumbing
plumbing_VM_PROGS := gadget_test modules_test
plumbing_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
plumbing_VM_TIMEOUT := 120

# With the naobody suites' helpers (nbtest.c): the time scale, path waits.
gadget_test_SRCS := $(srctree)/selftests/plumbing/gadget_test.c \
	$(srctree)/selftests/naobody/nbtest.c
gadget_test_LIBS := naobody nbemuctl nbgadget
gadget_test_LDLIBS := -lz -lm
modules_test_SRCS := $(srctree)/selftests/plumbing/modules_test.c
