// SPDX-License-Identifier: GPL-2.0-only
/* libnbmotion: joint tables (see joints.h). */
#include <motion/joints.h>

/*
 * The robot API's order (Documentation/robot-api.rst, "State"): head, left arm with
 * hand, right arm with hand, left leg, right leg.
 */
const uint8_t api_joint_lola[API_JOINTS] = {
	NAOBODY_HEAD_YAW, NAOBODY_HEAD_PITCH,
	NAOBODY_L_SHOULDER_PITCH, NAOBODY_L_SHOULDER_ROLL, NAOBODY_L_ELBOW_YAW,
	NAOBODY_L_ELBOW_ROLL, NAOBODY_L_WRIST_YAW, NAOBODY_L_HAND,
	NAOBODY_R_SHOULDER_PITCH, NAOBODY_R_SHOULDER_ROLL, NAOBODY_R_ELBOW_YAW,
	NAOBODY_R_ELBOW_ROLL, NAOBODY_R_WRIST_YAW, NAOBODY_R_HAND,
	NAOBODY_L_HIP_YAW_PITCH, NAOBODY_L_HIP_ROLL, NAOBODY_L_HIP_PITCH,
	NAOBODY_L_KNEE_PITCH, NAOBODY_L_ANKLE_PITCH, NAOBODY_L_ANKLE_ROLL,
	NAOBODY_L_HIP_YAW_PITCH,	/* right_hip_yaw_pitch: the same motor */
	NAOBODY_R_HIP_ROLL, NAOBODY_R_HIP_PITCH,
	NAOBODY_R_KNEE_PITCH, NAOBODY_R_ANKLE_PITCH, NAOBODY_R_ANKLE_ROLL,
};

const char *const api_joint_name[API_JOINTS] = {
	"head_yaw", "head_pitch", "left_shoulder_pitch", "left_shoulder_roll",
	"left_elbow_yaw", "left_elbow_roll", "left_wrist_yaw", "left_hand",
	"right_shoulder_pitch", "right_shoulder_roll", "right_elbow_yaw",
	"right_elbow_roll", "right_wrist_yaw", "right_hand", "left_hip_yaw_pitch",
	"left_hip_roll", "left_hip_pitch", "left_knee_pitch", "left_ankle_pitch",
	"left_ankle_roll", "right_hip_yaw_pitch", "right_hip_roll", "right_hip_pitch",
	"right_knee_pitch", "right_ankle_pitch", "right_ankle_roll",
};

const float joint_min[NAOBODY_JOINTS] = {
	[NAOBODY_HEAD_YAW] = -2.0857f,		[NAOBODY_HEAD_PITCH] = -0.6720f,
	[NAOBODY_L_SHOULDER_PITCH] = -2.0857f,	[NAOBODY_L_SHOULDER_ROLL] = -0.3142f,
	[NAOBODY_L_ELBOW_YAW] = -2.0857f,	[NAOBODY_L_ELBOW_ROLL] = -1.5446f,
	[NAOBODY_L_WRIST_YAW] = -1.8238f,	[NAOBODY_L_HIP_YAW_PITCH] = -1.1453f,
	[NAOBODY_L_HIP_ROLL] = -0.3795f,	[NAOBODY_L_HIP_PITCH] = -1.5359f,
	[NAOBODY_L_KNEE_PITCH] = -0.0923f,	[NAOBODY_L_ANKLE_PITCH] = -1.1895f,
	[NAOBODY_L_ANKLE_ROLL] = -0.3979f,	[NAOBODY_R_HIP_ROLL] = -0.7905f,
	[NAOBODY_R_HIP_PITCH] = -1.5359f,	[NAOBODY_R_KNEE_PITCH] = -0.1031f,
	[NAOBODY_R_ANKLE_PITCH] = -1.1864f,	[NAOBODY_R_ANKLE_ROLL] = -0.7690f,
	[NAOBODY_R_SHOULDER_PITCH] = -2.0857f,	[NAOBODY_R_SHOULDER_ROLL] = -1.3265f,
	[NAOBODY_R_ELBOW_YAW] = -2.0857f,	[NAOBODY_R_ELBOW_ROLL] = 0.0349f,
	[NAOBODY_R_WRIST_YAW] = -1.8238f,	[NAOBODY_L_HAND] = 0.0f,
	[NAOBODY_R_HAND] = 0.0f,
};

const float joint_max[NAOBODY_JOINTS] = {
	[NAOBODY_HEAD_YAW] = 2.0857f,		[NAOBODY_HEAD_PITCH] = 0.5149f,
	[NAOBODY_L_SHOULDER_PITCH] = 2.0857f,	[NAOBODY_L_SHOULDER_ROLL] = 1.3265f,
	[NAOBODY_L_ELBOW_YAW] = 2.0857f,	[NAOBODY_L_ELBOW_ROLL] = -0.0349f,
	[NAOBODY_L_WRIST_YAW] = 1.8238f,	[NAOBODY_L_HIP_YAW_PITCH] = 0.7408f,
	[NAOBODY_L_HIP_ROLL] = 0.7905f,		[NAOBODY_L_HIP_PITCH] = 0.4841f,
	[NAOBODY_L_KNEE_PITCH] = 2.1125f,	[NAOBODY_L_ANKLE_PITCH] = 0.9227f,
	[NAOBODY_L_ANKLE_ROLL] = 0.7690f,	[NAOBODY_R_HIP_ROLL] = 0.3795f,
	[NAOBODY_R_HIP_PITCH] = 0.4841f,	[NAOBODY_R_KNEE_PITCH] = 2.1202f,
	[NAOBODY_R_ANKLE_PITCH] = 0.9321f,	[NAOBODY_R_ANKLE_ROLL] = 0.3979f,
	[NAOBODY_R_SHOULDER_PITCH] = 2.0857f,	[NAOBODY_R_SHOULDER_ROLL] = 0.3142f,
	[NAOBODY_R_ELBOW_YAW] = 2.0857f,	[NAOBODY_R_ELBOW_ROLL] = 1.5446f,
	[NAOBODY_R_WRIST_YAW] = 1.8238f,	[NAOBODY_L_HAND] = 1.0f,
	[NAOBODY_R_HAND] = 1.0f,
};

/*
 * Each joint's top speed, rad/s: Aldebaran's generated model of the NAO
 * (ros-naoqi/nao_robot, nao_description's naoV50 URDF, the joints'
 * velocity limits), the figures the physical model carries beside its
 * motors (userspace/sim/nao6/nao6.xml; model_test compares them).
 */
const float joint_max_speed[NAOBODY_JOINTS] = {
	[NAOBODY_HEAD_YAW] = 8.26797f,		[NAOBODY_HEAD_PITCH] = 7.19407f,
	[NAOBODY_L_SHOULDER_PITCH] = 8.26797f,	[NAOBODY_L_SHOULDER_ROLL] = 7.19407f,
	[NAOBODY_L_ELBOW_YAW] = 8.26797f,	[NAOBODY_L_ELBOW_ROLL] = 7.19407f,
	[NAOBODY_L_WRIST_YAW] = 24.6229f,	[NAOBODY_L_HIP_YAW_PITCH] = 4.16174f,
	[NAOBODY_L_HIP_ROLL] = 4.16174f,	[NAOBODY_L_HIP_PITCH] = 6.40239f,
	[NAOBODY_L_KNEE_PITCH] = 6.40239f,	[NAOBODY_L_ANKLE_PITCH] = 6.40239f,
	[NAOBODY_L_ANKLE_ROLL] = 4.16174f,	[NAOBODY_R_HIP_ROLL] = 4.16174f,
	[NAOBODY_R_HIP_PITCH] = 6.40239f,	[NAOBODY_R_KNEE_PITCH] = 6.40239f,
	[NAOBODY_R_ANKLE_PITCH] = 6.40239f,	[NAOBODY_R_ANKLE_ROLL] = 4.16174f,
	[NAOBODY_R_SHOULDER_PITCH] = 8.26797f,	[NAOBODY_R_SHOULDER_ROLL] = 7.19407f,
	[NAOBODY_R_ELBOW_YAW] = 8.26797f,	[NAOBODY_R_ELBOW_ROLL] = 7.19407f,
	[NAOBODY_R_WRIST_YAW] = 24.6229f,	[NAOBODY_L_HAND] = 8.33f,
	[NAOBODY_R_HAND] = 8.33f,
};

const char *const joint_name[NAOBODY_JOINTS] = {
	"HeadYaw", "HeadPitch", "LShoulderPitch", "LShoulderRoll", "LElbowYaw",
	"LElbowRoll", "LWristYaw", "LHipYawPitch", "LHipRoll", "LHipPitch",
	"LKneePitch", "LAnklePitch", "LAnkleRoll", "RHipRoll", "RHipPitch",
	"RKneePitch", "RAnklePitch", "RAnkleRoll", "RShoulderPitch",
	"RShoulderRoll", "RElbowYaw", "RElbowRoll", "RWristYaw", "LHand", "RHand",
};
