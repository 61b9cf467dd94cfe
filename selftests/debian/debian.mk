# SPDX-License-Identifier: GPL-2.0-only
# debian/: the packages built with dpkg-buildpackage on a copy of the tree
# and checked with lintian (needs debhelper, dh-dkms, lintian).
HOST_TESTS += $(srctree)/selftests/debian/deb_test.sh
