// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LoLA's names for the joints and the touch sensors, in the orders of
 * enum naobody_joint and enum naobody_touch.
 */
#include <naobody/naobody.h>

static const char *const joint_names[NAOBODY_JOINTS] = {
	"HeadYaw", "HeadPitch",
	"LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll", "LWristYaw",
	"LHipYawPitch", "LHipRoll", "LHipPitch", "LKneePitch", "LAnklePitch", "LAnkleRoll",
	"RHipRoll", "RHipPitch", "RKneePitch", "RAnklePitch", "RAnkleRoll",
	"RShoulderPitch", "RShoulderRoll", "RElbowYaw", "RElbowRoll", "RWristYaw",
	"LHand", "RHand",
};

static const char *const touch_names[NAOBODY_TOUCHES] = {
	"ChestBoard/Button",
	"Head/Touch/Front", "Head/Touch/Middle", "Head/Touch/Rear",
	"LFoot/Bumper/Left", "LFoot/Bumper/Right",
	"LHand/Touch/Back", "LHand/Touch/Left", "LHand/Touch/Right",
	"RFoot/Bumper/Left", "RFoot/Bumper/Right",
	"RHand/Touch/Back", "RHand/Touch/Left", "RHand/Touch/Right",
};

const char *nb_joint_name(unsigned int joint)
{
	return joint < NAOBODY_JOINTS ? joint_names[joint] : "?";
}

const char *nb_touch_name(unsigned int touch)
{
	return touch < NAOBODY_TOUCHES ? touch_names[touch] : "?";
}
