# SPDX-License-Identifier: GPL-2.0-only
#
# libnbsimctl: the simulators' control languages' words, tables and numbers.
UNIT_TESTS += simctl_test
simctl_test_SRCS := $(srctree)/selftests/simctl/simctl_test.c
simctl_test_LIBS := nbsimctl
