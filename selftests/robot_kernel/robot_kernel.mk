# SPDX-License-Identifier: GPL-2.0-only
#
# make check-robot-kernel: a VM on the kernel configured like the robots'
# (scripts/robot-kernel.sh). Not in VM_SUITES: the other tiers' kernels
# load line disciplines on demand. ROBOT_VM_RUN lists what that VM runs:
# this suite first (before anything loads n_robot), then the other suites'
# programs that load both modules and use them.
ROBOT_VM_SUITES := robot_kernel plumbing n_robot naobody
ROBOT_VM_FILTER := robot_kernel,plumbing/modules_test,n_robot/n_robot_e2e,naobody/e2e_test
robot_kernel_VM_PROGS := robot_kernel_test
robot_kernel_VM_TIMEOUT := 120
robot_kernel_test_SRCS := $(srctree)/selftests/robot_kernel/robot_kernel_test.c

# The attach units load n_robot before they attach it (host, static).
HOST_TESTS += $(srctree)/selftests/robot_kernel/units_load_test.sh
