// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LoLA's names for the touch sensors, in the order of enum naobody_touch.
 * (The joints' are in units.c, nb_joint_name().)
 */
#include <naobody/naobody.h>

static const char *const touch_names[NAOBODY_TOUCHES] = {
	"ChestBoard/Button",
	"Head/Touch/Front", "Head/Touch/Middle", "Head/Touch/Rear",
	"LFoot/Bumper/Left", "LFoot/Bumper/Right",
	"LHand/Touch/Back", "LHand/Touch/Left", "LHand/Touch/Right",
	"RFoot/Bumper/Left", "RFoot/Bumper/Right",
	"RHand/Touch/Back", "RHand/Touch/Left", "RHand/Touch/Right",
};

const char *nb_touch_name(unsigned int touch)
{
	return touch < NAOBODY_TOUCHES ? touch_names[touch] : "?";
}
