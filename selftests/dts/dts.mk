# SPDX-License-Identifier: GPL-2.0-only
# dts/: the device tree bindings and overlays of the serdev driver
# (kernel/n_robot/serdev.c), and its test on an arm64 VM.
#
#   make dts-check     the bindings (dt-doc-validate), their examples and
#                      the overlays (dtc, fdtoverlay, dt-validate)
#   make check-arm64   QEMU virt arm64 under TCG, Debian's arm64 kernel,
#                      the robot's node under the PL011, the emulator on
#                      the other end (selftests/dts/arm64-test.sh)
.PHONY: dts-check check-arm64

dts-check:
	$(Q)O=$(O) $(srctree)/selftests/dts/dts-check.sh

check-arm64:
	$(Q)O=$(O) $(srctree)/selftests/dts/arm64-test.sh $(ARM64_ROBOTS)
