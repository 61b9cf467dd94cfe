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
# Another client (LoLA) drives and hands back: no pose of its own on that
# client's fall; let go of while down, limp; after a walk, SitDown runs.
UNIT_TESTS += motion_handover_test
motion_handover_test_SRCS := $(srctree)/selftests/motion/handover_test.c
motion_handover_test_LIBS := nbmotion
motion_handover_test_LDLIBS := -lm
# A get-up that leaves it lying still tries again at once; still moving, it waits.
UNIT_TESTS += motion_getup_retry_test
motion_getup_retry_test_SRCS := $(srctree)/selftests/motion/getup_retry_test.c
motion_getup_retry_test_LIBS := nbmotion
motion_getup_retry_test_LDLIBS := -lm
