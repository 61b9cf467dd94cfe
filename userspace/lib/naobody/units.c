// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Counts to LoLA's units and back. Every formula is in
 * Documentation/chest-board-protocol.rst ("Sensor counts"); the
 * factors are the NB_*_PER_COUNT constants of <naobody/units.h>.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <naobody/units.h>

/*
 * The pressure sensors' positions in the ankle frame, m (x forward, y
 * left), from Aldebaran's NAO documentation ("FSRs", doc.aldebaran.com
 * 1-14 family/robots/fsr_robot.html). The NAO6 page points to the URDF
 * instead, so treat these as provisional for NAO6.
 */
const float nb_fsr_position[2][4][2] = {
	{	/* left foot */
		{ 0.07025f, 0.0299f },		/* front left */
		{ 0.07025f, -0.0231f },		/* front right */
		{ -0.03025f, 0.0299f },		/* rear left */
		{ -0.02965f, -0.0191f },	/* rear right */
	},
	{	/* right foot */
		{ 0.07025f, 0.0231f },
		{ 0.07025f, -0.0299f },
		{ -0.03025f, 0.0191f },
		{ -0.02965f, -0.0299f },
	},
};

static const char *const joint_names[NAOBODY_JOINTS] = {
	"HeadYaw", "HeadPitch",
	"LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll",
	"LWristYaw",
	"LHipYawPitch", "LHipRoll", "LHipPitch", "LKneePitch", "LAnklePitch",
	"LAnkleRoll",
	"RHipRoll", "RHipPitch", "RKneePitch", "RAnklePitch", "RAnkleRoll",
	"RShoulderPitch", "RShoulderRoll", "RElbowYaw", "RElbowRoll",
	"RWristYaw",
	"LHand", "RHand",
};

const char *nb_joint_name(unsigned int joint)
{
	return joint < NAOBODY_JOINTS ? joint_names[joint] : NULL;
}

static int is_hand(unsigned int j)
{
	return j == NAOBODY_L_HAND || j == NAOBODY_R_HAND;
}

/* Round to nearest, clamp to [lo, hi]; NaN gives nan_value. */
static int64_t round_clamp(double v, double lo, double hi, int64_t nan_value)
{
	if (isnan(v))
		return nan_value;
	if (v < lo)
		v = lo;
	if (v > hi)
		v = hi;
	return (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
}

static int32_t to_s32(double v)
{
	return (int32_t)round_clamp(v, INT32_MIN, INT32_MAX, 0);
}

void nb_foot_load(struct nb_foot *foot, const float fsr[4], int right)
{
	const float (*pos)[2] = nb_fsr_position[right ? 1 : 0];
	double w = 0, x = 0, y = 0;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		w += fsr[i];
		x += fsr[i] * pos[i][0];
		y += fsr[i] * pos[i][1];
	}
	foot->weight = (float)w;
	if (w > 0) {
		foot->cop[0] = (float)(x / w);
		foot->cop[1] = (float)(y / w);
	} else {
		foot->cop[0] = 0;
		foot->cop[1] = 0;
	}
}

void nb_sensors_from_counts(struct nb_sensors *out,
			    const struct naobody_sensors *in,
			    const struct naobody_actuators *commanded,
			    const struct nb_calibration *cal)
{
	double charge;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		out->accelerometer[i] = (float)(in->accelerometer[i] *
				NB_ACC_PER_COUNT + cal->acc_offset[i]);
		out->gyroscope[i] = (float)(in->gyroscope[i] *
				NB_GYRO_PER_COUNT + cal->gyro_offset[i]);
	}
	for (i = 0; i < 2; i++)
		out->angles[i] = (float)(in->angles[i] * NB_ANGLE_PER_COUNT +
					 cal->angle_offset[i]);

	charge = in->battery_charge * NB_CHARGE_PER_COUNT;
	if (charge >= 0 && charge <= 1)
		out->battery[0] = (float)charge;
	out->battery[1] = (float)in->battery_status;
	out->battery[2] = (float)(in->battery_current *
				  NB_BATT_CURRENT_PER_COUNT);
	out->battery[3] = (float)(in->battery_temperature *
				  NB_BATT_TEMP_PER_COUNT);

	for (i = 0; i < NAOBODY_JOINTS; i++) {
		double d = (double)in->joint_position[i] - cal->joint_zero[i];

		out->position[i] = (float)(d * (is_hand(i) ? NB_HAND_PER_COUNT :
							   NB_POSITION_PER_COUNT));
		out->current[i] = (float)(in->joint_current[i] *
					  NB_CURRENT_PER_COUNT);
		out->temperature[i] = (float)(in->joint_temperature[i] *
					      NB_TEMP_PER_COUNT);
		out->status[i] = in->joint_status[i];
		out->stiffness[i] = commanded ?
			(float)(commanded->stiffness[i] * NB_STIFFNESS_PER_COUNT) : 0;
	}
	for (i = 0; i < NAOBODY_FSRS; i++)
		out->fsr[i] = (float)(cal->fsr_gain[i] * (double)in->fsr[i] +
				      cal->fsr_offset[i]);
	for (i = 0; i < 2; i++)
		out->sonar[i] = (float)(in->sonar[i] * NB_SONAR_PER_COUNT);
	for (i = 0; i < NAOBODY_TOUCHES; i++)
		out->touch[i] = (in->touch >> i) & 1;
	nb_foot_load(&out->foot[0], &out->fsr[0], 0);
	nb_foot_load(&out->foot[1], &out->fsr[NAOBODY_FSR_RIGHT_FOOT], 1);
}

void nb_sensors_to_counts(struct naobody_sensors *out,
			  const struct nb_sensors *in,
			  const struct nb_calibration *cal)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < 3; i++) {
		out->accelerometer[i] = to_s32((in->accelerometer[i] -
				cal->acc_offset[i]) / NB_ACC_PER_COUNT);
		out->gyroscope[i] = to_s32((in->gyroscope[i] -
				cal->gyro_offset[i]) / NB_GYRO_PER_COUNT);
	}
	for (i = 0; i < 2; i++)
		out->angles[i] = to_s32((in->angles[i] - cal->angle_offset[i]) /
					NB_ANGLE_PER_COUNT);
	out->battery_charge = to_s32(in->battery[0] / NB_CHARGE_PER_COUNT);
	out->battery_status = to_s32(in->battery[1]);
	out->battery_current = to_s32(in->battery[2] /
				      NB_BATT_CURRENT_PER_COUNT);
	out->battery_temperature = to_s32(in->battery[3] /
					  NB_BATT_TEMP_PER_COUNT);
	for (i = 0; i < NAOBODY_JOINTS; i++) {
		out->joint_position[i] = to_s32(cal->joint_zero[i] +
			(double)in->position[i] / (is_hand(i) ? NB_HAND_PER_COUNT :
							NB_POSITION_PER_COUNT));
		out->joint_current[i] = to_s32(in->current[i] /
					       NB_CURRENT_PER_COUNT);
		out->joint_temperature[i] = to_s32(in->temperature[i] /
						   NB_TEMP_PER_COUNT);
		out->joint_status[i] = (uint8_t)round_clamp(in->status[i], 0,
							    3, 0);
	}
	for (i = 0; i < NAOBODY_FSRS; i++) {
		double g = cal->fsr_gain[i] ? cal->fsr_gain[i] : NB_FSR_DEFAULT_GAIN;

		out->fsr[i] = to_s32((in->fsr[i] - cal->fsr_offset[i]) / g);
	}
	for (i = 0; i < 2; i++)
		out->sonar[i] = to_s32(in->sonar[i] / NB_SONAR_PER_COUNT);
	for (i = 0; i < NAOBODY_TOUCHES; i++)
		if (in->touch[i] > 0.5f)
			out->touch |= 1U << i;
}

static uint8_t to_led(float v)
{
	return (uint8_t)round_clamp(v * (double)NB_LED_MAX, 0, NB_LED_MAX, 0);
}

void nb_actuators_to_counts(struct naobody_actuators *out,
			    const struct nb_actuators *in,
			    const struct nb_calibration *cal)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < NAOBODY_JOINTS; i++) {
		double per = is_hand(i) ? NB_HAND_PER_COUNT :
					  NB_POSITION_PER_COUNT;
		double p = in->position[i];

		/* The kernel refuses what the wire can't carry: clamp here. */
		out->position[i] = isnan(p) ? cal->joint_zero[i] :
			(int32_t)round_clamp(cal->joint_zero[i] + p / per,
					     NAOBODY_POSITION_MIN, NAOBODY_POSITION_MAX, 0);
		out->stiffness[i] = (uint16_t)round_clamp(in->stiffness[i] *
				(double)NAOBODY_STIFFNESS_MAX, 0,
				NAOBODY_STIFFNESS_MAX, 0);
	}
	for (i = 0; i < 3; i++) {
		out->chest_led[i] = to_led(in->chest[i]);
		out->l_foot_led[i] = to_led(in->l_foot[i]);
		out->r_foot_led[i] = to_led(in->r_foot[i]);
	}
	out->sonar = (in->sonar[0] ? NAOBODY_SONAR_LEFT : 0) |
		     (in->sonar[1] ? NAOBODY_SONAR_RIGHT : 0);
}

void nb_actuators_from_counts(struct nb_actuators *out,
			      const struct naobody_actuators *in,
			      const struct nb_calibration *cal)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < NAOBODY_JOINTS; i++) {
		double d = (double)in->position[i] - cal->joint_zero[i];

		out->position[i] = (float)(d * (is_hand(i) ? NB_HAND_PER_COUNT :
							   NB_POSITION_PER_COUNT));
		out->stiffness[i] = (float)(in->stiffness[i] *
					    NB_STIFFNESS_PER_COUNT);
	}
	for (i = 0; i < 3; i++) {
		out->chest[i] = in->chest_led[i] / (float)NB_LED_MAX;
		out->l_foot[i] = in->l_foot_led[i] / (float)NB_LED_MAX;
		out->r_foot[i] = in->r_foot_led[i] / (float)NB_LED_MAX;
	}
	out->sonar[0] = in->sonar & NAOBODY_SONAR_LEFT;
	out->sonar[1] = in->sonar & NAOBODY_SONAR_RIGHT;
}
