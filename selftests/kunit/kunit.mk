# SPDX-License-Identifier: GPL-2.0-only
# KUnit, in the debug tier only (the stock kernel has no CONFIG_KUNIT): loads
# every *_kunit.ko that kernel/tests builds and reports each test case.
# It runs among the first suites, before anything that could trip KASAN.
VM_SUITES += kunit
kunit_VM_PROGS := kunit_test
kunit_VM_TIER := debug
kunit_VM_LOCKDEP := 1
kunit_VM_TIMEOUT := 300

kunit_test_SRCS := $(srctree)/selftests/kunit/kunit_test.c
