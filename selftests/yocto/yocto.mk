# SPDX-License-Identifier: GPL-2.0-only
#
# packaging/yocto/meta-naobody without BitBake: the layer's syntax, and its
# recipes' build and install commands in clean copies of the tree (the
# modules against Debian's 6.12-rt headers). About 45 s of CPU (a clean
# userspace build and the two modules).
HOST_TESTS += $(srctree)/selftests/yocto/recipe_test.py
