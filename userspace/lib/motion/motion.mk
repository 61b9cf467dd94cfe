# SPDX-License-Identifier: GPL-2.0-only
#
# libnbmotion: the motion layer (userspace/include/motion/motion.h): the
# keyframe motions, walking and its odometry, falls and getting up, and the
# tables they share (joints, poses, the legs' kinematics). Requests in,
# joint targets and state out; it knows no socket and no body but the
# sensors it is given. naobodyd drives it; the sim tests and benchmarks
# drive it on the physical model. Whatever links it adds -lm.
LIBRARIES += nbmotion
nbmotion_SRCS := $(addprefix $(srctree)/userspace/lib/motion/, \
	motion.c odometry.c care.c walk.c leg_kinematics.c getup.c fall.c poses.c joints.c)
