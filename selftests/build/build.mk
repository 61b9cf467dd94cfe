# SPDX-License-Identifier: GPL-2.0-only
#
# Tests of the build itself (the top-level Makefile and scripts/), run on the
# host by make unit.
HOST_TESTS += $(srctree)/selftests/build/kernel_release_test.sh
HOST_TESTS += $(srctree)/selftests/build/tap_summary_test.py
HOST_TESTS += $(srctree)/selftests/build/fresh_parse_test.sh
HOST_TESTS += $(srctree)/selftests/build/deps_demo_test.sh
HOST_TESTS += $(srctree)/selftests/build/vm_boot_retry_test.sh
