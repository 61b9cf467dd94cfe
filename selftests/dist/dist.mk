# SPDX-License-Identifier: GPL-2.0-only
#
# make dist's bundle in a root with only the C library (bundle_test.py makes
# the bundle, then runs naobodyd and the tools in that root, in namespaces
# of its own). About 15 s.
HOST_TESTS += $(srctree)/selftests/dist/bundle_test.py
