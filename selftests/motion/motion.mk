# SPDX-License-Identifier: GPL-2.0-only
#
# libnbmotion on its own: walking a test double that gives joints and
# sensors and nothing else, as the real body does.
UNIT_TESTS += motion_walk_body_test
motion_walk_body_test_SRCS := $(srctree)/selftests/motion/walk_body_test.c
motion_walk_body_test_LIBS := nbmotion
motion_walk_body_test_LDLIBS := -lm
# The body cared for: hot joints' and the battery's thresholds.
UNIT_TESTS += motion_care_test
motion_care_test_SRCS := $(srctree)/selftests/motion/care_test.c
motion_care_test_LIBS := nbmotion
# State's Stand held only once the legs stand in its pose (motion.c, SETTLE_*).
UNIT_TESTS += motion_settle_test
motion_settle_test_SRCS := $(srctree)/selftests/motion/settle_test.c
motion_settle_test_LIBS := nbmotion
motion_settle_test_LDLIBS := -lm
