# SPDX-License-Identifier: GPL-2.0-only
#
# Captures of a real chest board: libnbcapture's readers (unit test and
# fuzzer), and naoctl replay and verify against the planted-layout
# emulator's captures (Documentation/capture.rst).
CAPTURE_LDLIBS := -lpcap $(shell $(PKG_CONFIG) --libs msgpack) -lz

UNIT_TESTS += capture_reader_test
capture_reader_test_SRCS := $(srctree)/selftests/capture/reader_test.c
capture_reader_test_LIBS := nbcapture mpread
capture_reader_test_LDLIBS := $(CAPTURE_LDLIBS)

# verify must find a layout it was not told: selftests/capture/*.layout
HOST_TESTS += $(srctree)/selftests/capture/verify_test.sh
# naobodyd --robot-motions: walking on the real body only on such a verdict
HOST_TESTS += $(srctree)/selftests/capture/robot_motions_test.sh
# naocap's refusals, against a sysfs tree of its own
HOST_TESTS += $(srctree)/selftests/capture/naocap_test.sh

FUZZERS += fuzz_capture_pcap
fuzz_capture_pcap_SRCS := $(srctree)/selftests/capture/fuzz/fuzz_pcap.c
fuzz_capture_pcap_LIBS := nbcapture mpread
fuzz_capture_pcap_LDLIBS := $(CAPTURE_LDLIBS)
fuzz_capture_pcap_CORPUS := $(srctree)/selftests/capture/corpus/pcap

# In the VM: naocap against the emulator on dummy_hcd, with usbmon, a HAL
# stand-in on usbfs and a LoLA stand-in; and its refusal when naobody.ko
# has the board.
VM_SUITES += capture
# naocap is userspace on usbmon and usbfs; of naobody.ko it needs only the
# claimed interface it refuses, which the naobody suites take on every tier.
capture_VM_TIER := stock
capture_VM_PROGS := naocap_vm_test
capture_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs usbmon
capture_VM_TIMEOUT := 240
capture_VM_FILES := selftests/capture/naocap_vm.sh
naocap_vm_test_SRCS := $(srctree)/selftests/capture/vm_standins.c
naocap_vm_test_LIBS := nbcapture mpread nbcodec
naocap_vm_test_LDLIBS := $(CAPTURE_LDLIBS) -lm
